/* escape_iopl: raw x86 port I/O (iopl, ioperm) reaches the hardware
 * directly. No port is ever touched, even when granted. */
#include <sys/io.h>

#include "escape.h"

int main(void)
{
	int e1;

	if (iopl(3) == 0) {
		iopl(0);
		ESCAPED("iopl(3) granted all I/O ports");
	}
	e1 = errno;
	if (ioperm(0x80, 1, 1) == 0) {
		ioperm(0x80, 1, 0);
		ESCAPED("ioperm(0x80) granted a port");
	}
	CONTAINED("iopl(3): %s; ioperm(0x80): %s", errname(e1), errname(errno));
}
