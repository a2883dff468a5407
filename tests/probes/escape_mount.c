/* escape_mount: mount a fresh tmpfs, the first step of most mount-based
 * escapes (mount over /etc, a fresh procfs without masks, ...). */
#include <sys/mount.h>
#include <sys/stat.h>

#include "escape.h"

int main(void)
{
	const char *dir = "/tmp/escape-mount";

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		BROKEN("mkdir %s: %s", dir, errname(errno));
	if (mount("none", dir, "tmpfs", 0, "size=1m") < 0)
		CONTAINED("mount(tmpfs, %s): %s", dir, errname(errno));
	umount2(dir, MNT_DETACH);
	ESCAPED("mount(tmpfs, %s) succeeded", dir);
}
