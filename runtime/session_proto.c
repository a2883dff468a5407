/* The session wire: one SOCK_SEQPACKET message per request or reply, a
 * fixed header, a payload of NUL-separated strings, and fds as SCM_RIGHTS. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/session.h"

int session_send(int sock, const struct session_msg_hdr *hdr, const char *payload, size_t len,
		 const int *fds, int nfds)
{
	struct iovec iov[2] = {
		{.iov_base = (void *)hdr, .iov_len = sizeof(*hdr)},
		{.iov_base = (void *)payload, .iov_len = len},
	};
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = payload ? 2 : 1};

	if (sizeof(*hdr) + len > SESSION_MSG_MAX)
		return -E2BIG;
	if (nfds > 0) {
		struct cmsghdr *c;
		memset(u.buf, 0, sizeof(u.buf));
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int session_recv(int sock, struct session_msg_hdr *hdr, char *payload, size_t *len, int *fds,
		 int *nfds)
{
	struct iovec iov[2] = {
		{.iov_base = hdr, .iov_len = sizeof(*hdr)},
		{.iov_base = payload, .iov_len = payload ? *len : 0},
	};
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {
		.msg_iov = iov,
		.msg_iovlen = payload ? 2 : 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	ssize_t n;

	if (nfds)
		*nfds = 0;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		/* Never keep fds nobody asked for: close extras at once. */
		for (int i = 0; i < count; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + (size_t)i * sizeof(int), sizeof(int));
			if (fds && nfds && *nfds < 3)
				fds[(*nfds)++] = fd;
			else
				close(fd);
		}
	}
	if ((size_t)n < sizeof(*hdr) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return -EPROTO;
	if (len)
		*len = (size_t)n - sizeof(*hdr);
	return 0;
}
