/* escape_proc_init: reach kjail's init through /proc/1: its memory
 * (/proc/1/mem for writing), its fds, its root and cwd. init is not
 * dumpable, so all of them must be closed to the sandbox. */
#include <dirent.h>
#include <fcntl.h>

#include "escape.h"

int main(void)
{
	static const char *const paths[] = {"/proc/1/mem", "/proc/1/fd", "/proc/1/root/",
					    "/proc/1/cwd/", "/proc/1/environ", "/proc/1/map_files"};
	int fd;

	fd = open("/proc/1/mem", O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		ESCAPED("/proc/1/mem opened for writing");
	NOTE("/proc/1/mem O_RDWR: %s", errname(errno));
	for (size_t i = 1; i < sizeof(paths) / sizeof(paths[0]); i++) {
		DIR *d;
		fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			ESCAPED("%s is open to the sandbox", paths[i]);
		}
		NOTE("%s: %s", paths[i], errname(errno));
		d = opendir(paths[i]);
		if (d) {
			closedir(d);
			ESCAPED("%s is listable", paths[i]);
		}
	}
	CONTAINED("/proc/1 mem, fd, root, cwd, environ and map_files are closed");
}
