/* escape_hardlink HOSTFILE DIR: hard-link a host file the caller owns
 * (visible read-only) into DIR, the writable workspace, then write it
 * through the link: a read-only bind protects a path, not an inode. The
 * link crosses mounts, which the kernel refuses (EXDEV). Nothing is
 * written: a writable fd on the link is the escape. */
#include <fcntl.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char link[512];
	int fd;

	if (argc != 3)
		BROKEN("usage: escape_hardlink HOSTFILE DIR");
	snprintf(link, sizeof(link), "%s/escape-hardlink", argv[2]);
	if (linkat(AT_FDCWD, argv[1], AT_FDCWD, link, 0) < 0)
		CONTAINED("link(%s -> %s): %s", argv[1], link, errname(errno));
	fd = open(link, O_WRONLY | O_CLOEXEC);
	unlink(link);
	if (fd >= 0)
		ESCAPED("hard link to %s is writable through the workspace", argv[1]);
	CONTAINED("hard link made, but not writable: %s", errname(errno));
}
