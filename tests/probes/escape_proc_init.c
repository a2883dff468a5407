/* escape_proc_init: reach kjail's init through /proc/1: its memory
 * (/proc/1/mem for writing), its fds (init holds its channel to kjail),
 * its root, cwd and environment. init is not dumpable, so all of them
 * must be closed to the sandbox. (A root caller may list the numbers in
 * /proc/1/fd, since the directory belongs to uid 0; what matters is
 * that no link can be followed.) */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>

#include "escape.h"

int main(void)
{
	static const char *const paths[] = {"/proc/1/root/etc/hostname", "/proc/1/cwd/.",
					    "/proc/1/environ", "/proc/1/maps"};
	static const char *const dirs[] = {"/proc/1/map_files", "/proc/1/fdinfo"};
	char link[64], target[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int fd;

	fd = open("/proc/1/mem", O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		ESCAPED("/proc/1/mem opened for writing");
	NOTE("/proc/1/mem O_RDWR: %s", errname(errno));
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			ESCAPED("%s is open to the sandbox", paths[i]);
		NOTE("%s: %s", paths[i], errname(errno));
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int n = 0;
		errno = 0;
		d = opendir(dirs[i]);
		while (d && (e = readdir(d)))
			n += e->d_name[0] != '.';
		if (n)
			ESCAPED("%s lists %d entries", dirs[i], n);
		NOTE("%s: %s", dirs[i], errno ? errname(errno) : "empty");
		if (d)
			closedir(d);
	}
	d = opendir("/proc/1/fd");
	NOTE("/proc/1/fd listing: %s", d ? "allowed (numbers only)" : errname(errno));
	for (int n = 0; n < 1024; n++) {
		snprintf(link, sizeof(link), "/proc/1/fd/%d", n);
		if (readlink(link, target, sizeof(target)) >= 0)
			ESCAPED("readlink %s: init's fd %d is visible", link, n);
		fd = open(link, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0)
			ESCAPED("opened init's fd %d through %s", n, link);
	}
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			NOTE("init's fd %s: link not followed", e->d_name);
	if (d)
		closedir(d);
	CONTAINED("/proc/1: mem, fds, root, cwd, environ, maps, map_files and fdinfo are closed");
}
