/* escape_kexec: load a new kernel to boot into. The arguments are
 * invalid in ways the kernel checks only after the capability, so the
 * answer tells the refusal (EPERM) from a success that did no harm
 * (EINVAL, EBADF). ENOSYS: a kernel without kexec, nothing to reach. */
#include <linux/kexec.h>
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	int e1;

	if (syscall(SYS_kexec_load, 0, 1000 /* > KEXEC_SEGMENT_MAX */, NULL, KEXEC_ARCH_DEFAULT) ==
		    0 ||
	    (errno != EPERM && errno != ENOSYS))
		ESCAPED("kexec_load passed the permission check (%s)", errname(errno));
	e1 = errno;
	if (syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0) == 0 ||
	    (errno != EPERM && errno != ENOSYS))
		ESCAPED("kexec_file_load passed the permission check (%s)", errname(errno));
	CONTAINED("kexec_load: %s; kexec_file_load: %s", errname(e1), errname(errno));
}
