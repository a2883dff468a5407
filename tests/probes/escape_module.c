/* escape_module: load kernel code (init_module, finit_module). With an
 * empty image and a bad fd the kernel fails after its permission check,
 * so a non-EPERM answer means the check passed (and nothing loaded);
 * ENOSYS: a kernel without modules, nothing to reach. */
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	int e1;

	if (syscall(SYS_finit_module, -1, "", 0) == 0 || (errno != EPERM && errno != ENOSYS))
		ESCAPED("finit_module passed the permission check (%s)", errname(errno));
	e1 = errno;
	if (syscall(SYS_init_module, NULL, 0, "") == 0 || (errno != EPERM && errno != ENOSYS))
		ESCAPED("init_module passed the permission check (%s)", errname(errno));
	CONTAINED("finit_module: %s; init_module: %s", errname(e1), errname(errno));
}
