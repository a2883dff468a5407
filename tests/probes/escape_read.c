/* escape_read PATH [MARKER]: read PATH. With MARKER the attack succeeds
 * if the content holds MARKER (a masked secret); without, if any byte
 * can be read (a file that must stay unreadable). Content is never
 * printed, only its size. */
#include <fcntl.h>

#include "escape.h"

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	ssize_t n, total = 0;
	int fd, found = 0;

	if (argc != 2 && argc != 3)
		BROKEN("usage: escape_read PATH [MARKER]");
	fd = open(argv[1], O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		CONTAINED("open(%s): %s", argv[1], errname(errno));
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		total += n;
		if (argc == 3 && memmem(buf, (size_t)n, argv[2], strlen(argv[2])))
			found = 1;
		if (total > (1 << 20))
			break;
	}
	if (n < 0 && total == 0)
		CONTAINED("read(%s): %s", argv[1], errname(errno));
	close(fd);
	if (argc == 3 && !found)
		CONTAINED("read %zd bytes of %s, without the secret", total, argv[1]);
	if (argc == 2 && total == 0)
		CONTAINED("%s reads empty", argv[1]);
	ESCAPED("read %zd bytes of %s%s", total, argv[1], found ? ", the secret included" : "");
}
