/* The relay inside the sandbox (see relay.h). Passing the accepted socket
 * instead of copying its bytes keeps the relay trivial (one accept, one
 * sendmsg, one close per connection; no buffers, no threads, nothing for
 * the sandbox's pids limit) and lets the proxy move bytes straight between
 * the upstream socket and the sandbox's: one relaying process, not two. */
#include "net/relay.h"
#include "runtime/stdio.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int relay_listen(uint16_t port, struct kj_err *err)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, e;

	if (fd < 0)
		return kj_fail(err, "net", errno, NULL, "create the proxy relay's socket");
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 4096) < 0) {
		e = errno;
		close(fd);
		return kj_fail(err, "net", e, NULL, "listen on 127.0.0.1:%u for the proxy relay",
			       port);
	}
	return fd;
}

static int pass_fd(int sock, int fd)
{
	char byte = 'c', cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	ssize_t n;

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -errno;
}

void relay_run(int listen_fd, int proxy_fd, const struct kj_seccomp_prog *seccomp)
{
	struct kj_err err;
	sigset_t none;

	/* The relay must not outlive the sandbox's init (it would anyway die
	 * with the pid namespace; this covers a stray reparenting). */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void)prctl(PR_SET_NAME, "kjail-relay");
	/* CVE-2017-5226 / CVE-2024-21626: no terminal of the caller's and no
	 * fd of init's (its channel to kjail, COMMAND's pipes) stays here. */
	stdio_release(false);
	/* Moved high first, so neither dup2 below can clobber the other. */
	listen_fd = fcntl(listen_fd, F_DUPFD_CLOEXEC, 10);
	proxy_fd = fcntl(proxy_fd, F_DUPFD_CLOEXEC, 10);
	if (listen_fd < 0 || proxy_fd < 0 || dup2(listen_fd, 3) < 0 || dup2(proxy_fd, 4) < 0)
		_exit(1);
	syscall(SYS_close_range, 5, ~0U, 0);
	listen_fd = 3;
	proxy_fd = 4;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The same filter as COMMAND: the relay runs inside the sandbox and
	 * gets nothing COMMAND does not have. */
	if (kj_seccomp_load(seccomp, &err) < 0)
		_exit(1);
	for (;;) {
		int c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				usleep(10000);
			continue;
		}
		/* The proxy is gone: nothing can be relayed any more. */
		if (pass_fd(proxy_fd, c) == -EPIPE)
			_exit(0);
		close(c);
	}
}
