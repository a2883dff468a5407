/* tiocsti: try to push TEXT into the input queue of the terminal on fd 0
 * with TIOCSTI (CVE-2017-5226: a sandboxed command typing commands into
 * the caller's shell after the sandbox exits).
 *
 *   tiocsti TEXT     prints "tiocsti: injected N bytes" or
 *                    "tiocsti: refused: <reason>"; exits 0 either way
 *                    (2 on bad usage): the test decides by looking at what
 *                    the caller's terminal delivers, not at this probe. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

int main(int argc, char **argv)
{
	size_t n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: tiocsti TEXT\n");
		return 2;
	}
	for (const char *p = argv[1]; *p; p++, n++)
		if (ioctl(0, TIOCSTI, p) < 0) {
			printf("tiocsti: refused: %s\n", strerror(errno));
			return 0;
		}
	printf("tiocsti: injected %zu bytes\n", n);
	return 0;
}
