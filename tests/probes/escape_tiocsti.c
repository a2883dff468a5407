/* escape_tiocsti TEXT: push TEXT and a newline into the input queue of
 * the terminal on fd 0 (CVE-2017-5226: a sandboxed command types a
 * command into the caller's shell, which runs it after the sandbox
 * exits). The runner owns the terminal and checks what arrived; this
 * probe reports what the kernel said. */
#include <sys/ioctl.h>

#include "escape.h"

int main(int argc, char **argv)
{
	size_t n = 0;

	if (argc != 2)
		BROKEN("usage: escape_tiocsti TEXT");
	if (!isatty(0))
		BROKEN("stdin is not a terminal");
	for (const char *p = argv[1];; p++, n++) {
		char c = *p ? *p : '\n';
		if (ioctl(0, TIOCSTI, &c) < 0)
			CONTAINED("ioctl(0, TIOCSTI) after %zu bytes: %s", n, errname(errno));
		if (!*p)
			break;
	}
	ESCAPED("TIOCSTI pushed %zu bytes into the terminal", n + 1);
}
