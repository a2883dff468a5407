/* fdcheck: list this process's open file descriptors and fail if any is
 * open besides 0, 1, 2 (and the directory fd used to list them).
 *
 *   fdcheck          prints "fds: 0 1 2" and exits 0 when clean;
 *                    prints every fd with its target and exits 1 otherwise
 *
 * Used to prove that no fd of the caller (or of kjail) leaks into the
 * sandbox: CVE-2024-21626 escaped through exactly such an fd. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int self, extra = 0;
	char line[4096] = "fds:";
	size_t n = 4;

	if (!d) {
		perror("fdcheck: opendir /proc/self/fd");
		return 2;
	}
	self = dirfd(d);
	while ((e = readdir(d))) {
		char path[64], target[PATH_MAX];
		ssize_t len;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd == self)
			continue;
		if (fd > 2) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			len = readlink(path, target, sizeof(target) - 1);
			target[len > 0 ? len : 0] = '\0';
			fprintf(stderr, "fdcheck: unexpected fd %d -> %s\n", fd, target);
			extra++;
		}
		if (n < sizeof(line) - 16)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %d", fd);
	}
	closedir(d);
	printf("%s\n", line);
	return extra ? 1 : 0;
}
