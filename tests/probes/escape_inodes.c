/* escape_inodes DIR LIMIT: fill a sandbox tmpfs (/tmp, /dev/shm, /run)
 * with empty files, which cost no data page and so pass its size= cap,
 * each an inode and a dentry of kernel memory. Contained if the kernel
 * says ENOSPC (or the directory is not writable) by LIMIT files; without
 * an inode cap a tmpfs takes about 3 million per 12 GiB of host RAM. The
 * files die with the sandbox's tmpfs. */
#include <fcntl.h>

#include "escape.h"

int main(int argc, char **argv)
{
	unsigned long long n = 0, limit;
	char path[4096];
	int fd = -1;

	if (argc != 3)
		BROKEN("usage: escape_inodes DIR LIMIT");
	limit = strtoull(argv[2], NULL, 10);
	while (n <= limit) {
		snprintf(path, sizeof(path), "%s/i%llu", argv[1], n);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			break;
		close(fd);
		n++;
	}
	if (fd < 0 && n == 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
		CONTAINED("%s cannot be written at all: %s", argv[1], errname(errno));
	if (fd < 0 && errno == ENOSPC && n <= limit)
		CONTAINED("%s took %llu empty files, then %s", argv[1], n, errname(errno));
	ESCAPED("%llu empty files in %s (limit %llu), then %s", n, argv[1], limit,
		fd < 0 ? errname(errno) : "stopped by the probe");
}
