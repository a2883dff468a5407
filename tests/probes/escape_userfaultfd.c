/* escape_userfaultfd: userfaultfd (and /dev/userfaultfd) lets a process
 * stall the kernel inside a page fault, the usual way to win the race
 * of a kernel exploit. */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "escape.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1 /* Linux 5.11 */
#endif

int main(void)
{
	long fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	int e1 = errno, e2, dev;

	if (fd >= 0) {
		close((int)fd);
		ESCAPED("userfaultfd() succeeded");
	}
	/* User-mode faults only: allowed to anyone since Linux 5.11 whatever
	 * vm.unprivileged_userfaultfd says, so the kernel's own EPERM above
	 * proves nothing about the sandbox on a default host. */
	fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	e2 = errno;
	if (fd >= 0) {
		close((int)fd);
		ESCAPED("userfaultfd(UFFD_USER_MODE_ONLY) succeeded");
	}
	dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (dev >= 0) {
		close(dev);
		ESCAPED("/dev/userfaultfd opened");
	}
	CONTAINED("userfaultfd: %s; user-mode only: %s; /dev/userfaultfd: %s", errname(e1),
		  errname(e2), errname(errno));
}
