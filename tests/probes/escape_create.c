/* escape_create [-d] PATH: create a new file (or, with -d, a directory)
 * at PATH. If it works, it is removed again at once and that is the
 * escape; the runner also checks the host side. */
#include <fcntl.h>
#include <sys/stat.h>

#include "escape.h"

int main(int argc, char **argv)
{
	int dir = argc == 3 && !strcmp(argv[1], "-d"), fd;
	const char *path = argv[argc - 1];

	if (argc != 2 && !dir)
		BROKEN("usage: escape_create [-d] PATH");
	if (dir) {
		if (mkdir(path, 0755) < 0)
			CONTAINED("mkdir(%s): %s", path, errname(errno));
		rmdir(path);
		ESCAPED("mkdir(%s) succeeded (removed again)", path);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		CONTAINED("creat(%s): %s", path, errname(errno));
	close(fd);
	unlink(path);
	ESCAPED("creat(%s) succeeded (removed again)", path);
}
