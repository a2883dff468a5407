/* escape_remount PATH: remount PATH (the root, /proc/sys, a mask)
 * read-write with mount(2) MS_REMOUNT|MS_BIND. */
#include <sys/mount.h>

#include "escape.h"

int main(int argc, char **argv)
{
	if (argc != 2)
		BROKEN("usage: escape_remount PATH");
	if (mount(NULL, argv[1], NULL, MS_REMOUNT | MS_BIND, NULL) < 0)
		CONTAINED("mount(%s, MS_REMOUNT|MS_BIND, rw): %s", argv[1], errname(errno));
	ESCAPED("%s remounted read-write", argv[1]);
}
