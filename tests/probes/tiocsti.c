/* tiocsti: try to push a line into the input queue of a terminal with
 * TIOCSTI (CVE-2017-5226: a sandboxed command typing commands into the
 * caller's shell, which runs them after the sandbox exits).
 *
 *   tiocsti [--dev-tty] TEXT
 *
 * pushes TEXT and a newline into fd 0 (or, with --dev-tty, into the
 * controlling terminal opened as /dev/tty) and prints
 * "tiocsti: injected N bytes" or "tiocsti: refused: <reason>". It exits 0
 * either way (2 on bad usage): a test decides by what the caller's
 * terminal delivers afterwards, not by what this probe believes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd = 0;
	size_t n = 0;
	const char *text;

	if (argc == 3 && !strcmp(argv[1], "--dev-tty")) {
		fd = open("/dev/tty", O_RDWR | O_NOCTTY);
		if (fd < 0) {
			printf("tiocsti: refused: open /dev/tty: %s\n", strerror(errno));
			return 0;
		}
	} else if (argc != 2) {
		fprintf(stderr, "usage: tiocsti [--dev-tty] TEXT\n");
		return 2;
	}
	text = argv[argc - 1];
	for (const char *p = text;; p++, n++) {
		char c = *p ? *p : '\n';
		if (ioctl(fd, TIOCSTI, &c) < 0) {
			printf("tiocsti: refused: %s\n", strerror(errno));
			return 0;
		}
		if (!*p)
			break;
	}
	printf("tiocsti: injected %zu bytes\n", n + 1);
	return 0;
}
