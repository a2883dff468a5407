#include "runtime/channel.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct channel_rec {
	int type;
	union {
		struct kj_err err;         /* CHANNEL_ERROR */
		struct channel_mounts ids; /* CHANNEL_MOUNTS: n ids, then the appear records */
	};
};

/* The length of a message of that type, NULL rec: the longest. */
static size_t rec_len(int type, const struct channel_rec *rec)
{
	if (type == CHANNEL_ERROR)
		return offsetof(struct channel_rec, err) + sizeof(rec->err);
	if (type == CHANNEL_MOUNTS)
		return offsetof(struct channel_rec, ids.id) + sizeof(uint32_t) * rec->ids.n +
		       rec->ids.appear_len;
	return offsetof(struct channel_rec, err); /* PTY, RENAMES: the type alone */
}

int channel_send_err(int sock, const struct kj_err *err)
{
	struct channel_rec rec = {.type = CHANNEL_ERROR, .err = *err};
	return send(sock, &rec, rec_len(rec.type, &rec), MSG_NOSIGNAL) < 0 ? -errno : 0;
}

int channel_send_pty(int sock, int fd)
{
	struct channel_rec rec = {.type = CHANNEL_PTY};
	return channel_msg_send(sock, &rec, rec_len(rec.type, &rec), fd);
}

int channel_send_renames(int sock, int fd)
{
	struct channel_rec rec = {.type = CHANNEL_RENAMES};
	return channel_msg_send(sock, &rec, rec_len(rec.type, &rec), fd);
}

int channel_send_mounts(int sock, int fd, const struct channel_mounts *m)
{
	static struct channel_rec rec; /* 32 KiB: off the setup child's stack */
	size_t n = m->n < CHANNEL_MOUNT_IDS ? m->n : CHANNEL_MOUNT_IDS;
	size_t a = m->appear_len < CHANNEL_APPEAR_BYTES ? m->appear_len : CHANNEL_APPEAR_BYTES;

	rec.type = CHANNEL_MOUNTS;
	rec.ids.all = m->all;
	rec.ids.appear_all = m->appear_all;
	rec.ids.n = (uint32_t)n;
	rec.ids.appear_len = (uint32_t)a;
	memcpy(rec.ids.id, m->id, n * sizeof(uint32_t));
	/* Packed: the records right after the ids. */
	memcpy((char *)(rec.ids.id + n), m->appear, a);
	return channel_msg_send(sock, &rec, rec_len(rec.type, &rec), fd);
}

/* A record of a known type, of that type's length (a count of ids no more
 * than were sent), with an fd exactly when the type carries one. */
static bool well_formed(const struct channel_rec *rec, size_t n, int fd)
{
	if (n < offsetof(struct channel_rec, err))
		return false;
	switch (rec->type) {
	case CHANNEL_ERROR:
		return fd < 0 && n == rec_len(rec->type, rec);
	case CHANNEL_PTY:
	case CHANNEL_RENAMES:
		return fd >= 0 && n == rec_len(rec->type, rec);
	case CHANNEL_MOUNTS:
		return fd >= 0 && n >= offsetof(struct channel_rec, ids.id) &&
		       rec->ids.n <= CHANNEL_MOUNT_IDS &&
		       rec->ids.appear_len <= CHANNEL_APPEAR_BYTES && n == rec_len(rec->type, rec);
	default:
		return false;
	}
}

int channel_recv(int sock, struct kj_err *err, int *fd, struct channel_mounts *m)
{
	struct channel_rec rec; /* 32 KiB, not zeroed: well_formed reads only what came */
	ssize_t n = channel_msg_recv(sock, &rec, sizeof(rec), fd);

	if (n > 0 && !well_formed(&rec, (size_t)n, *fd)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EPROTO;
	}
	if (n > 0 && rec.type == CHANNEL_ERROR) {
		*err = rec.err;
		err->part[sizeof(err->part) - 1] = '\0';
		err->msg[sizeof(err->msg) - 1] = '\0';
	}
	if (n > 0 && rec.type == CHANNEL_MOUNTS && m) {
		m->n = rec.ids.n;
		m->all = rec.ids.all;
		m->appear_all = rec.ids.appear_all;
		m->appear_len = rec.ids.appear_len;
		memcpy(m->id, rec.ids.id, m->n * sizeof(uint32_t));
		memcpy(m->appear, (const char *)(rec.ids.id + m->n), m->appear_len);
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
