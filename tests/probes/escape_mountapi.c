/* escape_mountapi: the new mount API, which a filter that only denies
 * mount(2) misses: clear read-only on / with mount_setattr, clone the
 * root with open_tree, create a tmpfs with fsopen. */
#include <fcntl.h>
#include <linux/mount.h>
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	struct mount_attr attr = {.attr_clr = MOUNT_ATTR_RDONLY};
	long r;
	int e1, e2, e3;

	r = syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof(attr));
	if (r == 0)
		ESCAPED("mount_setattr cleared read-only on /");
	e1 = errno;
	r = syscall(SYS_open_tree, AT_FDCWD, "/",
		    OPEN_TREE_CLONE | AT_RECURSIVE | OPEN_TREE_CLOEXEC);
	if (r >= 0)
		ESCAPED("open_tree(/, OPEN_TREE_CLONE) succeeded");
	e2 = errno;
	r = syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (r >= 0)
		ESCAPED("fsopen(tmpfs) succeeded");
	e3 = errno;
	CONTAINED("mount_setattr: %s; open_tree: %s; fsopen: %s", errname(e1), errname(e2),
		  errname(e3));
}
