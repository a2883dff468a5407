/* escape_umount PATH: unmount PATH (a mask, a read-only bind over
 * /proc/sys) to uncover what lies beneath it. */
#include <sys/mount.h>

#include "escape.h"

int main(int argc, char **argv)
{
	if (argc != 2)
		BROKEN("usage: escape_umount PATH");
	if (umount2(argv[1], MNT_DETACH) < 0)
		CONTAINED("umount2(%s, MNT_DETACH): %s", argv[1], errname(errno));
	ESCAPED("umount2(%s) uncovered what was beneath", argv[1]);
}
