/* escape_write PATH: get a writable file descriptor on PATH.
 *
 * Tries open(PATH, O_WRONLY) and the O_PATH detour (open O_PATH, then
 * reopen /proc/self/fd/N for writing: how runc CVE-2019-5736 rewrote the
 * host's runc through /proc/self/exe). Nothing is ever written: a
 * writable fd is the escape, and it is closed at once. */
#include <fcntl.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char reopen[64];
	int fd, pfd, e1, e2;

	if (argc != 2)
		BROKEN("usage: escape_write PATH");
	fd = open(argv[1], O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	e1 = errno;
	if (fd >= 0) {
		close(fd);
		ESCAPED("open(%s, O_WRONLY) succeeded", argv[1]);
	}
	pfd = open(argv[1], O_PATH | O_CLOEXEC);
	if (pfd < 0) {
		e2 = errno;
		CONTAINED("open(%s, O_WRONLY): %s; O_PATH: %s", argv[1], errname(e1), errname(e2));
	}
	snprintf(reopen, sizeof(reopen), "/proc/self/fd/%d", pfd);
	fd = open(reopen, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	e2 = errno;
	if (fd >= 0) {
		close(fd);
		ESCAPED("reopening an O_PATH fd of %s for writing succeeded", argv[1]);
	}
	CONTAINED("open(%s, O_WRONLY): %s; O_PATH reopen for writing: %s", argv[1], errname(e1),
		  errname(e2));
}
