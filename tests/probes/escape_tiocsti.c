/* escape_tiocsti TEXT: push TEXT and a newline into the input queue of a
 * terminal (CVE-2017-5226: a sandboxed command types a command into the
 * caller's shell, which runs it after the sandbox exits). Tries every
 * terminal in reach: fds 0, 1, 2 and /dev/tty. The runner owns the
 * caller's terminal and checks what arrived; this reports what the
 * kernel said. */
#include <fcntl.h>
#include <sys/ioctl.h>

#include "escape.h"

static int inject(int fd, const char *text, int *err)
{
	for (const char *p = text;; p++) {
		char c = *p ? *p : '\n';
		if (ioctl(fd, TIOCSTI, &c) < 0) {
			*err = errno;
			return (int)(p - text);
		}
		if (!*p)
			return -1;
	}
}

int main(int argc, char **argv)
{
	int fds[4] = {0, 1, 2, -1}, ttys = 0, err = 0;

	if (argc != 2)
		BROKEN("usage: escape_tiocsti TEXT");
	fds[3] = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fds[3] < 0)
		NOTE("/dev/tty: %s", errname(errno));
	for (int i = 0; i < 4; i++) {
		int n;
		if (fds[i] < 0 || !isatty(fds[i]))
			continue;
		ttys++;
		n = inject(fds[i], argv[1], &err);
		if (n < 0)
			ESCAPED("TIOCSTI pushed the whole line into the terminal on %s",
				i < 3 ? "a standard fd" : "/dev/tty");
		NOTE("%s%d: TIOCSTI after %d bytes: %s", i < 3 ? "fd " : "/dev/tty as fd ", fds[i],
		     n, errname(err));
	}
	if (!ttys)
		CONTAINED("no terminal reaches the sandbox (fds 0-2 are not ttys, no /dev/tty)");
	CONTAINED("TIOCSTI refused on every terminal in reach (%s)", errname(err));
}
