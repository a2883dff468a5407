/* escape_fill FILE LIMIT: fill a sandbox file system (the private /tmp,
 * /dev/shm) until the kernel says no. Contained if it stops with ENOSPC
 * at no more than LIMIT bytes (its size): the host's disk and memory
 * are not the sandbox's to fill. */
#include <fcntl.h>

#include "escape.h"

int main(int argc, char **argv)
{
	static char block[1 << 16];
	unsigned long long total = 0, limit;
	ssize_t n;
	int fd, e;

	if (argc != 3)
		BROKEN("usage: escape_fill FILE LIMIT");
	limit = strtoull(argv[2], NULL, 10);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
		CONTAINED("%s cannot be written at all: %s", argv[1], errname(errno));
	if (fd < 0)
		BROKEN("open %s: %s", argv[1], errname(errno));
	memset(block, 'x', sizeof(block));
	while ((n = write(fd, block, sizeof(block))) > 0 && total <= limit * 2)
		total += (unsigned long long)n;
	e = errno;
	close(fd);
	unlink(argv[1]);
	if (n < 0 && (e == ENOSPC || e == EDQUOT) && total <= limit)
		CONTAINED("%s filled at %llu bytes: %s", argv[1], total, errname(e));
	ESCAPED("wrote %llu bytes to %s (limit %llu), then %s", total, argv[1], limit,
		n < 0 ? errname(e) : "stopped by the probe");
}
