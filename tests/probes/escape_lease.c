/* escape_lease FILE: take a file lease (fcntl F_SETLEASE) on a host file
 * the sandbox sees through its read-only root. A lease is not namespaced:
 * while a write lease is held, every open of the file on the host (a
 * read lease: every open for writing) blocks for up to
 * /proc/sys/fs/lease-break-time (45 s) and the holder, ignoring SIGIO,
 * may take it again each time. The lease needs only an open fd and the
 * file's owner's uid, which a root caller's sandbox has for every file
 * root owns: /etc/passwd, /etc/hosts... (a host-wide stall of getpwnam and
 * name lookups). A lease taken here is released at once. */
#include <fcntl.h>
#include <signal.h>

#include "escape.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int type;
	} tries[] = {{"F_WRLCK (every host open blocks)", F_WRLCK},
		     {"F_RDLCK (every host open for writing blocks)", F_RDLCK}};
	int fd;

	if (argc != 2)
		BROKEN("usage: escape_lease FILE");
	signal(SIGIO, SIG_IGN); /* the lease breaker's signal, kept from killing us */
	if ((fd = open(argv[1], O_RDONLY | O_CLOEXEC)) < 0)
		BROKEN("open %s: %s", argv[1], errname(errno));
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (fcntl(fd, F_SETLEASE, tries[i].type) == 0) {
			(void)fcntl(fd, F_SETLEASE, F_UNLCK);
			ESCAPED("fcntl(F_SETLEASE, %s) on the host's %s", tries[i].name, argv[1]);
		}
		/* Only the filter's answer counts: EAGAIN (the file open for
		 * writing elsewhere) or EACCES (not its owner) would pass
		 * without the attack having been possible at all. */
		if (errno != EPERM)
			BROKEN("F_SETLEASE %s: %s, not EPERM: the attack was not possible here",
			       tries[i].name, errname(errno));
		NOTE("F_SETLEASE %s: %s", tries[i].name, errname(errno));
	}
	CONTAINED("no lease on a host file");
}
