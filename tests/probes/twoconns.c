/* twoconns: hold one connection to the --net proxy open and try a second,
 * to see whether the proxy's threads count against --pids.
 *
 *   twoconns   connects to the port in $HTTP_PROXY, sends one byte of a
 *              request head (so the proxy's thread for it waits for the
 *              rest), connects again and waits up to 5 s for the second:
 *              prints "second: closed" when the proxy closed it (no
 *              thread to serve it), "second: still waiting" when it was
 *              given a thread (it waits for a request), "second: got
 *              bytes" otherwise. Exits 0, or 1 when a connection failed.
 *
 * One process: under --pids 5 the sandbox holds init, the relay, this
 * probe, and (in the sandbox's cgroup) the proxy and one thread. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int connect_to(int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("twoconns: connect");
		exit(1);
	}
	return fd;
}

int main(void)
{
	const char *proxy = getenv("HTTP_PROXY"), *colon;
	struct pollfd pfd;
	char buf[64];
	int port, first, second;
	ssize_t n;

	if (!proxy || !(colon = strrchr(proxy, ':')) || (port = atoi(colon + 1)) <= 0) {
		fprintf(stderr, "twoconns: no port in HTTP_PROXY\n");
		return 1;
	}
	first = connect_to(port);
	if (write(first, "G", 1) != 1) {
		perror("twoconns: write");
		return 1;
	}
	second = connect_to(port);
	pfd = (struct pollfd){.fd = second, .events = POLLIN};
	if (poll(&pfd, 1, 5000) == 0) {
		puts("second: still waiting");
		return 0;
	}
	n = read(second, buf, sizeof(buf));
	puts(n <= 0 ? "second: closed" : "second: got bytes");
	close(first);
	return 0;
}
