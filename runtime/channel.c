#include "runtime/channel.h"

#include <errno.h>
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

int channel_send_fd(int sock, int fd)
{
	struct channel_rec rec = {.type = CHANNEL_PTY};
	struct iovec iov = {.iov_base = &rec, .iov_len = sizeof(rec)};
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

int channel_recv(int sock, struct kj_err *err, int *fd)
{
	struct channel_rec rec;
	struct iovec iov = {.iov_base = &rec, .iov_len = sizeof(rec)};
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
	ssize_t n;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return 0;
	if ((size_t)n != sizeof(rec))
		return -EPROTO;
	if (rec.type == CHANNEL_PTY) {
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		if (!c || c->cmsg_type != SCM_RIGHTS)
			return -EPROTO;
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	} else {
		*err = rec.err;
		err->part[sizeof(err->part) - 1] = '\0';
		err->msg[sizeof(err->msg) - 1] = '\0';
	}
	return rec.type;
}
