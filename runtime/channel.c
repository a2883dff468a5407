#include "runtime/channel.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct channel_rec {
	int type;
	struct kj_err err;
};

int channel_send_err(int sock, const struct kj_err *err)
{
	struct channel_rec rec = {.type = CHANNEL_ERROR, .err = *err};
	return send(sock, &rec, sizeof(rec), MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static bool carries_fd(int type)
{
	return type == CHANNEL_PTY || type == CHANNEL_MOUNTS;
}

int channel_send_fd(int sock, enum channel_msg type, int fd)
{
	struct channel_rec rec = {.type = (int)type};
	return channel_msg_send(sock, &rec, sizeof(rec), fd);
}

int channel_recv(int sock, struct kj_err *err, int *fd)
{
	struct channel_rec rec;
	ssize_t n = channel_msg_recv(sock, &rec, sizeof(rec), fd);

	if (n > 0 && ((size_t)n != sizeof(rec) || carries_fd(rec.type) != (*fd >= 0))) {
		if (*fd >= 0)
			close(*fd);
		return -EPROTO; /* a short record, a message without its fd, an fd astray */
	}
	if (n > 0 && !carries_fd(rec.type)) {
		*err = rec.err;
		err->part[sizeof(err->part) - 1] = '\0';
		err->msg[sizeof(err->msg) - 1] = '\0';
	}
	return n > 0 ? rec.type : (int)n;
}

int channel_msg_send(int sock, const void *buf, size_t len, int fd)
{
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	memset(u.buf, 0, sizeof(u.buf));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

ssize_t channel_msg_recv(int sock, void *buf, size_t len, int *fd)
{
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*fd = -1;
	for (c = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL; c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	return n < 0 ? -errno : n;
}
