/* escape_setns PATH [HOST_INODE]: join the namespace PATH names
 * (/proc/<pid>/ns/net of a host process, or the sandbox's own). The
 * attack succeeds if setns works, or if PATH opens onto the host's
 * namespace (its inode is HOST_INODE). */
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>

#include "escape.h"

int main(int argc, char **argv)
{
	struct stat st;
	int fd;

	if (argc != 2 && argc != 3)
		BROKEN("usage: escape_setns PATH [HOST_INODE]");
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		CONTAINED("open(%s): %s", argv[1], errname(errno));
	if (argc == 3 && fstat(fd, &st) == 0 && st.st_ino == strtoull(argv[2], NULL, 10))
		ESCAPED("%s is the host's namespace (inode %s)", argv[1], argv[2]);
	if (setns(fd, 0) < 0)
		CONTAINED("setns(%s): %s", argv[1], errname(errno));
	ESCAPED("setns(%s) succeeded", argv[1]);
}
