/* Moving bytes: bounded reads of the handshake, then, once the connection
 * is decided, recv/send through one bounded buffer per direction: 64 KiB,
 * grown up to 2 MiB for a bulk transfer out of a budget shared by all
 * connections (PROXY_BULK_BUDGET), so a connection holds at most two
 * buffers however fast one side is and slow the other.
 *
 * Why not splice(2), which never copies the payload into userspace? It was
 * measured slower. splice into a TCP socket adds the pipe's pages to a
 * segment 4 KiB page by page, at most 17 fragments, so segments to the
 * sandbox stay near 64 KiB whatever its lo allows (packets on it averaged
 * 36-45 KiB with splice, any pipe size; 175-250 KiB with send()), while
 * send() from a buffer fills segments of up to 512 KiB (net/loopback.c).
 * Several times fewer segments (TCP/IP processing, ACKs and wake-ups, for
 * the proxy and for COMMAND's receive) outweigh the two memcpy: a 1 GiB
 * download cost about 0.98 s of CPU in all (server, proxy, curl) with
 * splice, 0.62 s this way, 0.45 s with --net host (README, "Measured"). */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/proxy_int.h"
#include "runtime/clock.h"

static int wait_for(int fd, short events, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = events};
	int64_t left = deadline - kj_mono_ms();
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
	int64_t deadline = kj_mono_ms() + timeout_ms;

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
	unsigned char *buf;
	size_t size;      /* of buf */
	size_t off, len;  /* buf[off, off + len): read, not yet written */
	bool full;        /* the last read filled buf: a bulk transfer */
	uint64_t left;    /* bytes still allowed from `from` */
	uint64_t *count;  /* bytes written to `to` */
	bool eof;         /* nothing more will be read */
	bool done;        /* eof and the buffer drained */
	bool shut_on_eof; /* a real end of file: pass it on as a half-close */
};

/* An empty buffer that the last read filled is doubled, up to
 * PUMP_BUF_MAX, while the proxy's shared budget allows: a bulk transfer
 * then moves in large reads and writes (and large TCP segments to the
 * sandbox), a small one never costs more than PUMP_BUF_MIN. */
static void dir_grow(struct dir *d, struct proxy_ctx *px)
{
	size_t more = d->size;
	unsigned char *bigger;

	if (d->size >= PUMP_BUF_MAX)
		return;
	if (atomic_fetch_add(&px->bulk_bytes, more) + more > PROXY_BULK_BUDGET) {
		atomic_fetch_sub(&px->bulk_bytes, more);
		return;
	}
	if (!(bigger = malloc(d->size * 2))) {
		atomic_fetch_sub(&px->bulk_bytes, more);
		return;
	}
	free(d->buf);
	d->buf = bigger;
	d->size *= 2;
}

/* One read, then write out what the buffer holds. 1 if any byte moved,
 * 0 if none, -errno on a broken connection. */
static int dir_move(struct dir *d, struct proxy_ctx *px)
{
	bool moved = false;
	ssize_t n;

	if (!d->eof && d->len == 0) {
		size_t want;

		if (d->full) {
			dir_grow(d, px);
			d->full = false;
		}
		want = d->left < d->size ? (size_t)d->left : d->size;
		n = recv(d->from, d->buf, want, MSG_DONTWAIT);
		if (n > 0) {
			d->off = 0;
			d->len = (size_t)n;
			d->left -= (uint64_t)n;
			d->full = (size_t)n == d->size;
			moved = true;
		} else if (n == 0) {
			d->eof = d->shut_on_eof = true;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -errno;
		}
		if (d->left == 0)
			d->eof = true; /* the one request body is through */
	}
	while (d->len) {
		n = send(d->to, d->buf + d->off, d->len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			d->off += (size_t)n;
			d->len -= (size_t)n;
			/* Read by the main thread too, when the sandbox ends
			 * mid-transfer (conn_log_waiting). */
			__atomic_fetch_add(d->count, (uint64_t)n, __ATOMIC_RELAXED);
			moved = true;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		break;
	}
	if (d->eof && d->len == 0 && !d->done) {
		d->done = true;
		if (d->shut_on_eof)
			(void)shutdown(d->to, SHUT_WR);
	}
	return moved;
}

/* Move what can be moved without blocking: a few rounds per wake-up
 * (fewer polls on a bulk transfer), bounded so the other direction is
 * not starved. 0, or -errno on a broken connection. */
static int dir_step(struct dir *d, struct proxy_ctx *px)
{
	for (int round = 0; round < 8; round++) {
		int rc = dir_move(d, px);
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
	if (fd == d->from && !d->eof && d->len == 0)
		ev |= POLLIN;
	if (fd == d->to && d->len)
		ev |= POLLOUT;
	return ev;
}

const char *pump(struct conn *c, uint64_t up_limit, uint64_t idle_ms)
{
	struct dir d[2] = {
		{.from = c->client, .to = c->upstream, .left = up_limit, .count = &c->up},
		{.from = c->upstream, .to = c->client, .left = UINT64_MAX, .count = &c->down},
	};
	const char *why = NULL;
	bool hup[2] = {false, false};

	if (up_limit == 0)
		d[0].eof = d[0].done = true;
	/* On the proxy's list while it moves bytes: if the sandbox ends and
	 * this outlasts the drain, its line is still written. */
	conn_track(c);
	for (int i = 0; i < 2; i++) {
		d[i].size = PUMP_BUF_MIN;
		if (!d[i].done && !(d[i].buf = malloc(d[i].size))) {
			why = "out of memory";
			goto out;
		}
	}
	while (!d[0].done || !d[1].done) {
		struct pollfd p[2] = {{.fd = c->client}, {.fd = c->upstream}};
		int rc;

		for (int i = 0; i < 2; i++) {
			if (dir_step(&d[i], c->px) < 0) {
				why = "connection reset";
				goto out;
			}
		}
		if (d[0].done && d[1].done)
			break;
		for (int i = 0; i < 2; i++) {
			p[i].events =
				(short)(dir_events(&d[0], p[i].fd) | dir_events(&d[1], p[i].fd));
			/* A hung-up end reads without blocking from now on; polling
			 * it again would only spin on its POLLHUP. */
			if (hup[i])
				p[i].fd = -1;
		}
		/* Both ends closed for good: POLLHUP without POLLIN wanted
		 * still wakes poll, and the next read sees it. */
		rc = poll(p, 2, idle_ms > INT32_MAX ? INT32_MAX : (int)idle_ms);
		if (rc == 0) {
			/* A connection nobody uses ties up two buffers and a thread:
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
				if (dir_step(&d[k], c->px) < 0) {
					why = "connection reset";
					goto out;
				}
			/* ... but an end that is gone cannot take more bytes. */
			if ((d[0].to == p[i].fd && !d[0].done) ||
			    (d[1].to == p[i].fd && !d[1].done) || (p[i].revents & POLLNVAL)) {
				why = "peer closed early";
				goto out;
			}
		}
	}
out:
	conn_untrack(c);
	for (int i = 0; i < 2; i++) {
		free(d[i].buf);
		if (d[i].size > PUMP_BUF_MIN)
			atomic_fetch_sub(&c->px->bulk_bytes, d[i].size - PUMP_BUF_MIN);
	}
	return why;
}
