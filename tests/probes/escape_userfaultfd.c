/* escape_userfaultfd: userfaultfd (and /dev/userfaultfd) lets a process
 * stall the kernel inside a page fault, the usual way to win the race
 * of a kernel exploit. */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	long fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	int e1 = errno, dev;

	if (fd >= 0) {
		close((int)fd);
		ESCAPED("userfaultfd() succeeded");
	}
	dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (dev >= 0) {
		close(dev);
		ESCAPED("/dev/userfaultfd opened");
	}
	CONTAINED("userfaultfd: %s; /dev/userfaultfd: %s", errname(e1), errname(errno));
}
