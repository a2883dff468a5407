/* escape_pidfd_getfd: copy a file descriptor out of pid 1 (kjail's
 * init holds its control pipe to kjail) with pidfd_getfd. */
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	long pidfd = syscall(SYS_pidfd_open, 1, 0);

	if (pidfd < 0)
		BROKEN("pidfd_open(1): %s", errname(errno));
	for (int fd = 0; fd < 16; fd++) {
		long got = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
		if (got >= 0)
			ESCAPED("pidfd_getfd took fd %d of pid 1", fd);
		if (errno != EBADF)
			CONTAINED("pidfd_getfd(pid 1, fd %d): %s", fd, errname(errno));
	}
	CONTAINED("pidfd_getfd(pid 1): no fd could be taken (EBADF)");
}
