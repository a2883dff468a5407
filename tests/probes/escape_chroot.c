/* escape_chroot: the classic chroot break-out: chroot into a
 * subdirectory while keeping the cwd outside it, then walk up with ".."
 * and chroot(".") at the real top. */
#include <sys/stat.h>

#include "escape.h"

int main(void)
{
	mkdir("/tmp/escape-chroot", 0755);
	if (chroot("/tmp/escape-chroot") < 0)
		CONTAINED("chroot(/tmp/escape-chroot): %s", errname(errno));
	for (int i = 0; i < 64; i++)
		if (chdir("..") < 0)
			break;
	if (chroot(".") < 0)
		ESCAPED("chroot succeeded (the second chroot(\".\") did not: %s)", errname(errno));
	ESCAPED("chroot break-out succeeded");
}
