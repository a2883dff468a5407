/* escape_reboot: reboot the host. With wrong magic numbers, which the
 * kernel checks after the capability: EPERM is the refusal, EINVAL a
 * success that did nothing. Never a real reboot command. */
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	if (syscall(SYS_reboot, 0xdead, 0xbeef, 0, NULL) == 0 || errno != EPERM)
		ESCAPED("reboot passed the permission check (%s)", errname(errno));
	CONTAINED("reboot: EPERM");
}
