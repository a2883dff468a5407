/* Moving bytes: bounded reads of the handshake, and splice(2) through a
 * pipe in each direction once the connection is decided, so the payload
 * never enters userspace and each connection holds at most two pipe
 * buffers (64 KiB each) however fast one side is and slow the other. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/proxy_int.h"

#define PUMP_CHUNK (1 << 16)

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int wait_for(int fd, short events, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = events};
	int64_t left = deadline - now_ms();
	int rc;

	if (left <= 0)
		return -ETIMEDOUT;
	rc = poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	return rc == 0 ? -ETIMEDOUT : 0;
}

int rbuf_need(int fd, struct rbuf *rb, size_t n, int64_t deadline)
{
	while (rb->len - rb->off < n) {
		ssize_t r;
		int rc;

		if (rb->off + n > sizeof(rb->b))
			return -EMSGSIZE;
		r = recv(fd, rb->b + rb->len, sizeof(rb->b) - rb->len, 0);
		if (r > 0) {
			rb->len += (size_t)r;
			continue;
		}
		if (r == 0)
			return -EPIPE;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		if ((rc = wait_for(fd, POLLIN, deadline)))
			return rc;
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t len, int timeout_ms)
{
	const char *p = buf;
	int64_t deadline = now_ms() + timeout_ms;

	while (len) {
		ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
		int rc;

		if (w > 0) {
			p += w;
			len -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if ((rc = wait_for(fd, POLLOUT, deadline)))
			return rc;
	}
	return 0;
}

struct dir {
	int from, to;
	int pipe[2];
	size_t inpipe;	 /* bytes in the pipe, not yet written */
	uint64_t left;	 /* bytes still allowed from `from` */
	uint64_t *count; /* bytes written to `to` */
	bool eof;	 /* nothing more will be read */
	bool done;	 /* eof and the pipe drained */
	bool shut_on_eof; /* a real end of file: pass it on as a half-close */
};

/* One read into the pipe, then write out what it holds. 1 if any byte
 * moved, 0 if none, -errno on a broken connection. */
static int dir_move(struct dir *d)
{
	size_t before = d->inpipe;
	bool moved = false;
	ssize_t n;

	if (!d->eof && d->inpipe == 0) {
		size_t want = d->left < PUMP_CHUNK ? (size_t)d->left : PUMP_CHUNK;
		n = splice(d->from, NULL, d->pipe[1], NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			d->inpipe = (size_t)n;
			d->left -= (uint64_t)n;
		} else if (n == 0) {
			d->eof = d->shut_on_eof = true;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -errno;
		}
		if (d->left == 0)
			d->eof = true; /* the one request body is through */
	}
	while (d->inpipe) {
		n = splice(d->pipe[0], NULL, d->to, NULL, d->inpipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			d->inpipe -= (size_t)n;
			*d->count += (uint64_t)n;
			moved = true;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		break;
	}
	if (d->eof && d->inpipe == 0 && !d->done) {
		d->done = true;
		if (d->shut_on_eof)
			(void)shutdown(d->to, SHUT_WR);
	}
	return moved || d->inpipe != before;
}

/* Move what can be moved without blocking: a few rounds per wake-up
 * (fewer polls on a bulk transfer), bounded so the other direction is
 * not starved. 0, or -errno on a broken connection. */
static int dir_step(struct dir *d)
{
	for (int round = 0; round < 8; round++) {
		int rc = dir_move(d);
		if (rc <= 0)
			return rc;
	}
	return 0;
}

static short dir_events(const struct dir *d, int fd)
{
	short ev = 0;

	if (d->done)
		return 0;
	if (fd == d->from && !d->eof && d->inpipe == 0)
		ev |= POLLIN;
	if (fd == d->to && d->inpipe)
		ev |= POLLOUT;
	return ev;
}

const char *pump(struct conn *c, uint64_t up_limit, uint64_t idle_ms)
{
	struct dir d[2] = {
		{.from = c->client, .to = c->upstream, .left = up_limit, .count = &c->up,
		 .pipe = {-1, -1}},
		{.from = c->upstream, .to = c->client, .left = UINT64_MAX, .count = &c->down,
		 .pipe = {-1, -1}},
	};
	const char *why = NULL;
	bool hup[2] = {false, false};

	if (up_limit == 0)
		d[0].eof = d[0].done = true;
	if (pipe2(d[0].pipe, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(d[1].pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		why = "out of pipes";
		goto out;
	}
	while (!d[0].done || !d[1].done) {
		struct pollfd p[2] = {{.fd = c->client}, {.fd = c->upstream}};
		int rc;

		for (int i = 0; i < 2; i++) {
			if (dir_step(&d[i]) < 0) {
				why = "connection reset";
				goto out;
			}
		}
		if (d[0].done && d[1].done)
			break;
		for (int i = 0; i < 2; i++) {
			p[i].events = (short)(dir_events(&d[0], p[i].fd) | dir_events(&d[1], p[i].fd));
			/* A hung-up end reads without blocking from now on; polling
			 * it again would only spin on its POLLHUP. */
			if (hup[i])
				p[i].fd = -1;
		}
		/* Both ends closed for good: POLLHUP without POLLIN wanted
		 * still wakes poll, and the next splice sees it. */
		rc = poll(p, 2, idle_ms > INT32_MAX ? INT32_MAX : (int)idle_ms);
		if (rc == 0) {
			/* A connection nobody uses ties up two pipes and a thread:
			 * idle ones are closed. */
			why = "idle timeout";
			goto out;
		}
		if (rc < 0 && errno != EINTR) {
			why = "poll failed";
			goto out;
		}
		for (int i = 0; i < 2; i++) {
			if (!(p[i].revents & (POLLERR | POLLHUP | POLLNVAL)))
				continue;
			hup[i] = true;
			/* Drain what the closed end left in the kernel ... */
			for (int k = 0; k < 2; k++)
				if (dir_step(&d[k]) < 0) {
					why = "connection reset";
					goto out;
				}
			/* ... but an end that is gone cannot take more bytes. */
			if ((d[0].to == p[i].fd && !d[0].done) || (d[1].to == p[i].fd && !d[1].done) ||
			    (p[i].revents & POLLNVAL)) {
				why = "peer closed early";
				goto out;
			}
		}
	}
out:
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (d[i].pipe[j] >= 0)
				close(d[i].pipe[j]);
	return why;
}
