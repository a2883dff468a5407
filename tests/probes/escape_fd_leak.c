/* escape_fd_leak: runc CVE-2024-21626: a host file descriptor that
 * reaches the sandbox (the caller's, or one of the runtime's own) is a
 * way out: openat(fd, "..") walks the host's tree. Looks at every fd
 * above 2 and tries to climb out through it. */
#include <fcntl.h>
#include <limits.h>

#include "escape.h"

int main(void)
{
	int leaked = 0;

	for (int fd = 3; fd < 4096; fd++) {
		char link[64], target[PATH_MAX];
		ssize_t n;
		int up;

		if (fcntl(fd, F_GETFD) < 0)
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		NOTE("fd %d is open: %s", fd, target);
		leaked++;
		up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (up >= 0)
			NOTE("  openat(fd %d, \"..\") climbed out", fd);
	}
	if (leaked)
		ESCAPED("%d file descriptor(s) above 2 reached the command", leaked);
	CONTAINED("only fds 0, 1 and 2 are open");
}
