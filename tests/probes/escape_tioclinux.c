/* escape_tioclinux: TIOCLINUX TIOCL_PASTESEL pastes the console
 * selection as input (CVE-2023-1523, the TIOCSTI sibling). On a
 * terminal that is not a virtual console the kernel says ENOTTY/EINVAL
 * by itself; the filter must say EPERM before it gets there. */
#include <sys/ioctl.h>

#include "escape.h"

int main(void)
{
	char sub = 3; /* TIOCL_PASTESEL */

	if (ioctl(0, TIOCLINUX, &sub) == 0)
		ESCAPED("TIOCLINUX TIOCL_PASTESEL accepted");
	if (errno == EPERM)
		CONTAINED("ioctl(TIOCLINUX): EPERM");
	CONTAINED("ioctl(TIOCLINUX): %s (not a virtual console, not a filter refusal)",
		  errname(errno));
}
