/* escape_connect_unix ADDR: connect to a host unix socket: a path, or
 * @NAME for the abstract namespace (which belongs to the network
 * namespace). A host socket reached is a host service reached. */
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "escape.h"

int main(int argc, char **argv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	socklen_t len;
	size_t n;
	int s;

	if (argc != 2 || (n = strlen(argv[1])) >= sizeof(sa.sun_path))
		BROKEN("usage: escape_connect_unix PATH|@NAME");
	memcpy(sa.sun_path, argv[1], n);
	if (argv[1][0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (argv[1][0] != '@'));
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		BROKEN("socket: %s", errname(errno));
	if (connect(s, (struct sockaddr *)&sa, len) < 0)
		CONTAINED("connect(%s): %s", argv[1], errname(errno));
	ESCAPED("connected to the host's unix socket %s", argv[1]);
}
