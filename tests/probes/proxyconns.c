/* proxyconns: connections to the --net proxy, to see what its threads
 * cost the sandbox (the proxy runs in the sandbox's cgroup).
 *
 *   proxyconns two     holds one connection (one byte of a request head
 *                      sent, so the proxy's thread for it waits for the
 *                      rest), opens a second and waits up to 5 s for it:
 *                      prints "second: closed" when the proxy closed it
 *                      (no thread to serve it), "second: still waiting"
 *                      when it got a thread, "second: got bytes" else.
 *   proxyconns many N  opens N connections at once, each with half a
 *                      request head for http://b.test/ (N threads wait),
 *                      completes them after 1 s, reads each answer to the
 *                      end, waits 2 s, and prints "answered A of N,
 *                      pids.current P" (P from /sys/fs/cgroup: the
 *                      threads the proxy kept count).
 *
 * The port comes from $HTTP_PROXY. One process: under --pids 5 the
 * sandbox holds init, the relay, this probe, the proxy and one thread.
 * Exits 0, or 1 when a connection or a write failed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MANY_MAX 200

static int port;

static int connect_proxy(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("proxyconns: connect");
		exit(1);
	}
	return fd;
}

static void send_all(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
		perror("proxyconns: write");
		exit(1);
	}
}

static int two(void)
{
	struct pollfd pfd;
	char buf[64];
	int first = connect_proxy(), second;
	ssize_t n;

	send_all(first, "G");
	second = connect_proxy();
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

static int many(int count)
{
	static int fd[MANY_MAX];
	char buf[4096], pids[32] = "?";
	int answered = 0;
	FILE *f;

	for (int i = 0; i < count; i++) {
		fd[i] = connect_proxy();
		send_all(fd[i], "GET http://b.test/ HTTP/1.0\r\n");
	}
	sleep(1);
	for (int i = 0; i < count; i++)
		send_all(fd[i], "\r\n");
	for (int i = 0; i < count; i++) {
		ssize_t n, got = 0;
		while ((n = read(fd[i], buf, sizeof(buf))) > 0)
			got += n;
		answered += got > 0;
		close(fd[i]);
	}
	sleep(2);
	if ((f = fopen("/sys/fs/cgroup/pids.current", "r"))) {
		if (!fgets(pids, sizeof(pids), f))
			strcpy(pids, "?");
		pids[strcspn(pids, "\n")] = '\0';
		fclose(f);
	}
	printf("answered %d of %d, pids.current %s\n", answered, count, pids);
	return 0;
}

int main(int argc, char **argv)
{
	const char *proxy = getenv("HTTP_PROXY"), *colon;
	int count;

	if (!proxy || !(colon = strrchr(proxy, ':')) || (port = atoi(colon + 1)) <= 0) {
		fprintf(stderr, "proxyconns: no port in HTTP_PROXY\n");
		return 1;
	}
	if (argc == 2 && !strcmp(argv[1], "two"))
		return two();
	if (argc == 3 && !strcmp(argv[1], "many") && (count = atoi(argv[2])) > 0 &&
	    count <= MANY_MAX)
		return many(count);
	fprintf(stderr, "usage: proxyconns two | proxyconns many N (N <= %d)\n", MANY_MAX);
	return 1;
}
