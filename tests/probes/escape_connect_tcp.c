/* escape_connect_tcp HOST PORT: connect to a TCP listener of the host
 * (on its loopback, or one of its addresses), with a 2 s limit. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include "escape.h"

int main(int argc, char **argv)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
	struct pollfd p;
	socklen_t len;
	int s, e = 0;

	if (argc != 3)
		BROKEN("usage: escape_connect_tcp HOST PORT");
	if (inet_pton(AF_INET, argv[1], &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)atoi(argv[2]));
		len = sizeof(*v4);
	} else if (inet_pton(AF_INET6, argv[1], &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)atoi(argv[2]));
		len = sizeof(*v6);
	} else {
		BROKEN("bad address %s", argv[1]);
	}
	s = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		BROKEN("socket: %s", errname(errno));
	if (connect(s, (struct sockaddr *)&ss, len) < 0) {
		if (errno != EINPROGRESS)
			CONTAINED("connect(%s port %s): %s", argv[1], argv[2], errname(errno));
		p = (struct pollfd){.fd = s, .events = POLLOUT};
		if (poll(&p, 1, 2000) != 1)
			CONTAINED("connect(%s port %s): no answer in 2 s", argv[1], argv[2]);
		len = sizeof(e);
		getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &len);
		if (e)
			CONTAINED("connect(%s port %s): %s", argv[1], argv[2], errname(e));
	}
	ESCAPED("connected to the host's %s port %s", argv[1], argv[2]);
}
