/* escape_stdio_socket FD [PORT]: use stdio fd FD, which the caller made a
 * socket of the host's (a TCP connection, a unix socketpair), to reach the
 * host's network namespace from inside a sandbox without one:
 *   - SIOCGIFCONF on FD lists the interfaces of the namespace the socket
 *     was made in; a list other than the one a socket made inside gets
 *     is the host's;
 *   - with PORT, a TCP FD is disconnected (connect AF_UNSPEC) and
 *     connected again to 127.0.0.1:PORT, a listener on the host's
 *     loopback. The verdict goes to stdout, so FD should not be 1. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "escape.h"

/* The interface names SIOCGIFCONF gives for fd, comma-separated, or
 * NULL with errno set. */
static const char *interfaces(int fd, char *out, size_t size)
{
	struct ifreq req[32] = {0};
	struct ifconf conf = {.ifc_len = sizeof(req), .ifc_req = req};
	size_t used = 0;

	if (ioctl(fd, SIOCGIFCONF, &conf) < 0)
		return NULL;
	out[0] = '\0';
	for (int i = 0; i < conf.ifc_len / (int)sizeof(req[0]); i++)
		used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s",
					 i ? "," : "", req[i].ifr_name);
	return out;
}

static void reconnect(int fd, const char *port)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
	struct sockaddr none = {.sa_family = AF_UNSPEC};
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	socklen_t len = sizeof(int);
	int e = 0;

	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	if (connect(fd, &none, sizeof(none)) < 0) {
		NOTE("connect(fd, AF_UNSPEC): %s", errname(errno));
		return;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		if (errno != EINPROGRESS) {
			NOTE("connect(127.0.0.1 port %s): %s", port, errname(errno));
			return;
		}
		if (poll(&p, 1, 2000) != 1) {
			NOTE("connect(127.0.0.1 port %s): no answer in 2 s", port);
			return;
		}
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len);
		if (e) {
			NOTE("connect(127.0.0.1 port %s): %s", port, errname(e));
			return;
		}
	}
	ESCAPED("fd %d reconnected to the host's 127.0.0.1 port %s", fd, port);
}

int main(int argc, char **argv)
{
	char theirs[1024], ours[1024];
	struct stat st;
	int fd, own;

	if (argc < 2 || argc > 3)
		BROKEN("usage: escape_stdio_socket FD [PORT]");
	fd = atoi(argv[1]);
	if (fstat(fd, &st) < 0)
		BROKEN("fd %d is not open: %s", fd, errname(errno));
	NOTE("fd %d is %s", fd,
	     S_ISSOCK(st.st_mode)   ? "a socket"
	     : S_ISFIFO(st.st_mode) ? "a pipe"
				    : "neither a socket nor a pipe");
	own = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (own < 0 || !interfaces(own, ours, sizeof(ours)))
		BROKEN("SIOCGIFCONF on a socket of the sandbox's: %s", errname(errno));
	if (!interfaces(fd, theirs, sizeof(theirs)))
		NOTE("SIOCGIFCONF on fd %d: %s", fd, errname(errno));
	else if (strcmp(theirs, ours))
		ESCAPED("fd %d lists the host's interfaces (%s; the sandbox has %s)", fd, theirs,
			ours);
	else
		NOTE("fd %d lists %s, as a socket of the sandbox's does", fd, ours);
	if (argc == 3)
		reconnect(fd, argv[2]);
	CONTAINED("fd %d gives no way into the host's network namespace", fd);
}
