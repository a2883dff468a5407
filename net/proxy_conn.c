/* One connection through the proxy: pick the protocol by its first byte,
 * decide against the allow-list, resolve, vet and connect, then write the
 * log line. The protocol files (proxy_http.c, proxy_socks.c) only parse
 * and answer; every decision is made here, in one place. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/proxy_int.h"
#include "runtime/clock.h"

void conn_refuse(struct conn *c, const char *fmt, ...)
{
	va_list ap;

	c->decision = "refuse";
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

/* What the client asked for, made safe to print (log injection: a host
 * with newlines or escapes must not forge log lines or drive a terminal). */
void conn_set_shown(struct conn *c, const unsigned char *host, size_t len, int port)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 5 < 200; i++) {
		unsigned char ch = host[i];
		if (ch > 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
			c->shown_host[o++] = (char)ch;
		else
			o += (size_t)snprintf(c->shown_host + o, 5, "\\x%02x", ch);
	}
	c->shown_host[o] = '\0';
	c->shown_port = port;
}

/* "host:port" for the summary; false when nothing was asked for (a head
 * that never came, an unknown protocol, over the connection cap). */
static bool shown(const struct conn *c, char *buf, size_t len)
{
	if (c->have_target)
		hm_suggest(&c->target, buf, len);
	else if (c->shown_host[0] && c->shown_port)
		snprintf(buf, len, "%s:%d", c->shown_host, c->shown_port);
	else if (c->shown_host[0])
		snprintf(buf, len, "%s", c->shown_host); /* an authority as asked, port and all */
	else
		return false;
	return true;
}

/* "2025-01-31T12:00:00.000Z", the time each log line starts with. */
static void log_time(char *when, size_t size)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(when, size, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + n, size - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

/* The cap: a command that opens connections without end must not fill
 * the caller's disk with their lines. Whole lines only, and under one
 * lock, so that two threads cannot both take the last room, and a line
 * decided before the cap was reached cannot land after the line that
 * says the log stops there. The lock is held for the one write a line
 * always cost (to a regular file). */
void log_write(struct proxy_ctx *px, const char *line, size_t len)
{
	struct proxy_stats *st = px->stats;

	if (px->log_fd < 0)
		return;
	pthread_mutex_lock(&px->log_lock);
	if (!atomic_load(&st->log_truncated) && len <= px->log_limit - px->log_used) {
		px->log_used += len;
		/* One write per line on an O_APPEND file: lines never
		 * interleave, with another kjail's appending to it either. */
		(void)!write(px->log_fd, line, len);
	} else {
		if (!atomic_exchange(&st->log_truncated, true)) {
			char last[256], when[40];
			int n;

			log_time(when, sizeof(when));
			n = snprintf(
				last, sizeof(last),
				"%s log=truncated limit=%llu reason=\"--net-log-limit reached: later connections are not logged (they are still decided and relayed)\"\n",
				when, (unsigned long long)px->log_limit);
			(void)!write(px->log_fd, last, (size_t)n);
		}
		atomic_fetch_add(&st->log_dropped, 1);
		atomic_fetch_add(&st->log_dropped_bytes, len);
	}
	pthread_mutex_unlock(&px->log_lock);
}

/* The log line (px->lock may be held: conn_log_waiting). */
static void write_line(const struct conn *c)
{
	char line[1400], when[40];
	int len;

	if (c->px->log_fd < 0)
		return;
	log_time(when, sizeof(when));
	len = snprintf(
		line, sizeof(line),
		"%s proto=%s host=%s port=%d decision=%s rule=\"%s\" addr=%s up=%llu down=%llu%s%s%s\n",
		when, c->proto ? c->proto : "-",
		c->have_target     ? c->target.name
		: c->shown_host[0] ? c->shown_host
				   : "-",
		c->have_target ? c->target.port : c->shown_port, c->decision,
		c->rule[0] ? c->rule : "-", c->addr[0] ? c->addr : "-",
		(unsigned long long)__atomic_load_n(&c->up, __ATOMIC_RELAXED),
		(unsigned long long)__atomic_load_n(&c->down, __ATOMIC_RELAXED),
		c->reason[0] ? " reason=\"" : "", c->reason, c->reason[0] ? "\"" : "");
	if (len >= (int)sizeof(line)) {
		len = sizeof(line) - 1;
		line[len - 1] = '\n';
	}
	log_write(c->px, line, (size_t)len);
}

/* The summary names the first few refused hosts, once each, and says
 * when it left one out. */
static void summary_add(struct proxy_ctx *px, const char *host)
{
	struct proxy_stats *st = px->stats;
	unsigned n, i;

	pthread_mutex_lock(&px->lock);
	n = atomic_load(&st->nshown);
	for (i = 0; i < n && strcmp(st->shown[i], host); i++)
		;
	if (i == n && n < PROXY_SHOWN_HOSTS) {
		snprintf(st->shown[n], sizeof(st->shown[n]), "%s", host);
		atomic_store(&st->nshown, n + 1);
	} else if (i == n) {
		atomic_store(&st->left_out, true);
	}
	pthread_mutex_unlock(&px->lock);
}

void conn_log(struct conn *c)
{
	struct proxy_stats *st = c->px->stats;
	char host[PROXY_HOSTPORT_MAX];

	if (!strcmp(c->decision, "refuse")) {
		atomic_fetch_add(&st->refused, 1);
		/* A refusal with no host is only counted (it was named "-"). */
		if (shown(c, host, sizeof(host)))
			summary_add(c->px, host);
	} else if (!strcmp(c->decision, "allow")) {
		atomic_fetch_add(&st->allowed, 1);
	} else {
		atomic_fetch_add(&st->failed, 1);
	}
	write_line(c);
}

static void list_add(struct conn *c)
{
	struct proxy_ctx *px = c->px;

	c->wait_prev = NULL;
	c->wait_next = px->waiting;
	if (px->waiting)
		px->waiting->wait_prev = c;
	px->waiting = c;
}

static void list_del(struct conn *c)
{
	struct proxy_ctx *px = c->px;

	if (c->wait_prev)
		c->wait_prev->wait_next = c->wait_next;
	else
		px->waiting = c->wait_next;
	if (c->wait_next)
		c->wait_next->wait_prev = c->wait_prev;
}

/* Around a call the sandbox's end cannot cut short (getaddrinfo, getent,
 * a connect's 10 s poll): while c waits, only conn_log_waiting may read
 * it, and this thread writes nothing to it. */
static void conn_wait(struct conn *c, const char *what)
{
	struct proxy_ctx *px = c->px;

	pthread_mutex_lock(&px->lock);
	c->waiting = what;
	list_add(c);
	px->nwaiting++;
	pthread_mutex_unlock(&px->lock);
}

/* Blocks for good once conn_log_waiting has logged c: the proxy exits. */
static void conn_unwait(struct conn *c)
{
	struct proxy_ctx *px = c->px;

	pthread_mutex_lock(&px->lock);
	list_del(c);
	c->waiting = NULL;
	px->nwaiting--;
	pthread_mutex_unlock(&px->lock);
}

void conn_track(struct conn *c)
{
	pthread_mutex_lock(&c->px->lock);
	c->relaying = true;
	list_add(c);
	pthread_mutex_unlock(&c->px->lock);
}

void conn_untrack(struct conn *c)
{
	pthread_mutex_lock(&c->px->lock);
	list_del(c);
	c->relaying = false;
	pthread_mutex_unlock(&c->px->lock);
}

void conn_log_waiting(struct proxy_ctx *px)
{
	/* Every connection gets its line: one still resolving, connecting
	 * or relaying when the sandbox ended (and the drain gave up on it)
	 * would otherwise vanish from the log with the proxy's exit: a
	 * command could keep a transfer out of --net-log by having the
	 * server stall it. Only an allowed connection waits or relays, so
	 * it counts as allowed. */
	for (struct conn *c = px->waiting; c; c = c->wait_next) {
		c->decision = "allow";
		if (c->relaying) {
			/* A reset, not the clean end the exit's close would
			 * send: the server must not take a cut upload for
			 * whole. */
			struct linger now = {.l_onoff = 1, .l_linger = 0};
			(void)setsockopt(c->upstream, SOL_SOCKET, SO_LINGER, &now, sizeof(now));
			snprintf(c->reason, sizeof(c->reason),
				 "sandbox ended while relaying: cut after the proxy's last %d ms; "
				 "the server's connection reset",
				 PROXY_DRAIN_MS);
		} else
			snprintf(c->reason, sizeof(c->reason), "sandbox ended while %s",
				 c->waiting);
		atomic_fetch_add(&px->stats->allowed, 1);
		write_line(c);
	}
}

static int connect_to(int family, const unsigned char *addr, int port)
{
	struct sockaddr_storage ss = {0};
	socklen_t sl;
	struct pollfd p;
	int fd, e = 0, one = 1;
	socklen_t el = sizeof(e);

	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		memcpy(&s4->sin_addr, addr, 4);
		sl = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		memcpy(&s6->sin6_addr, addr, 16);
		sl = sizeof(*s6);
	}
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&ss, sl) == 0)
		return fd;
	if (errno != EINPROGRESS) {
		e = errno;
		close(fd);
		return -e;
	}
	p = (struct pollfd){.fd = fd, .events = POLLOUT};
	if (poll(&p, 1, PROXY_CONNECT_TIMEOUT_MS) <= 0)
		e = ETIMEDOUT;
	else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
		e = errno;
	if (e) {
		close(fd);
		return -e;
	}
	return fd;
}

static void set_rule(struct conn *c, const char *opt, const struct hm_rule *r)
{
	snprintf(c->rule, sizeof(c->rule), "%s %s", opt, r->text);
}

enum open_result conn_open(struct conn *c)
{
	struct proxy_ctx *px = c->px;
	const struct hm_target *t = &c->target;
	const struct hm_rule *rule;
	unsigned char addrs[PROXY_MAX_ADDRS][16];
	int fams[PROXY_MAX_ADDRS], n, last_err = 0;
	const char *bad_cls = NULL;
	char suggest[PROXY_HOSTPORT_MAX], bad_addr[INET6_ADDRSTRLEN] = "";

	c->have_target = true;
	hm_suggest(t, suggest, sizeof(suggest));
	switch (hm_check_target(&px->rules, t, &rule)) {
	case HM_DENIED:
		set_rule(c, "--deny-host", rule);
		conn_refuse(c, "%s is refused by --deny-host %s", suggest, rule->text);
		return OPEN_REFUSED;
	case HM_UNLISTED:
		if (t->is_addr)
			conn_refuse(
				c,
				"%s is an IP address; addresses are refused unless allowed as such (--allow-host %s)",
				suggest, suggest);
		else
			conn_refuse(c,
				    "%s is not on the allow-list (allow it with --allow-host %s)",
				    suggest, suggest);
		return OPEN_REFUSED;
	case HM_ALLOWED:
		set_rule(c, "--allow-host", rule);
		break;
	case HM_BAD_ADDR:
		break;
	}
	/* The proxy resolves, never the client: an IP literal is used as is,
	 * a name is resolved once here, and each address is vetted. */
	if (t->is_addr) {
		fams[0] = t->family;
		memcpy(addrs[0], t->addr, 16);
		n = 1;
	} else {
		conn_wait(c, "resolving");
		n = hosts_resolve(px, t->name, fams, addrs, PROXY_MAX_ADDRS);
		conn_unwait(c);
	}
	if (n == 0) {
		c->decision = "fail";
		snprintf(c->reason, sizeof(c->reason), "cannot resolve %s", t->name);
		return OPEN_NORESOLVE;
	}
	for (int i = 0; i < n; i++) {
		const struct hm_rule *ar;
		const char *cls;
		enum hm_verdict v =
			hm_check_addr(&px->rules, fams[i], addrs[i], t->port, &ar, &cls);
		int fd;

		if (v == HM_DENIED) {
			inet_ntop(fams[i], addrs[i], c->addr, sizeof(c->addr));
			set_rule(c, "--deny-host", ar);
			conn_refuse(c, "%s resolves to %s, refused by --deny-host %s", t->name,
				    c->addr, ar->text);
			return OPEN_REFUSED;
		}
		if (v == HM_BAD_ADDR) {
			/* DNS rebinding / SSRF: an allowed name pointing at
			 * loopback, the LAN or cloud metadata is not followed. */
			if (!bad_cls) {
				bad_cls = cls;
				inet_ntop(fams[i], addrs[i], bad_addr, sizeof(bad_addr));
			}
			continue;
		}
		/* Connect to the vetted address itself: resolving again here
		 * could return another answer (rebinding between check and use). */
		inet_ntop(fams[i], addrs[i], c->addr, sizeof(c->addr));
		conn_wait(c, "connecting");
		fd = connect_to(fams[i], addrs[i], t->port);
		conn_unwait(c);
		if (fd >= 0) {
			c->upstream = fd;
			c->decision = "allow";
			return OPEN_OK;
		}
		last_err = -fd;
	}
	if (bad_cls && !last_err) {
		snprintf(c->addr, sizeof(c->addr), "%s", bad_addr);
		conn_refuse(
			c,
			"%s resolves to %s (%s address); such addresses are refused unless allowed as such (--allow-host %s%s%s:%d)",
			t->name, bad_addr, bad_cls, strchr(bad_addr, ':') ? "[" : "", bad_addr,
			strchr(bad_addr, ':') ? "]" : "", t->port);
		return OPEN_REFUSED;
	}
	c->decision = "fail";
	snprintf(c->reason, sizeof(c->reason), "connect to %s port %d: %s", c->addr, t->port,
		 strerror(last_err));
	return OPEN_FAILED;
}

void conn_serve(struct proxy_ctx *px, int client)
{
	struct conn *c;
	int one = 1, rc;

	/* 16 KiB of buffer: on the heap, not the thread's small stack. */
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(client);
		return;
	}
	c->px = px;
	c->client = client;
	c->upstream = -1;
	c->decision = "refuse";
	(void)fcntl(client, F_SETFL, O_NONBLOCK);
	(void)setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* Slowloris: one byte every 29 s kept a thread and a slot forever
	 * while each read had its own 30 s. */
	c->head_deadline = kj_mono_ms() + PROXY_HEAD_TIMEOUT_MS;
	rc = rbuf_need(client, &c->in, 1, c->head_deadline);
	if (rc == -EPIPE) {
		free(c); /* connected and closed: nothing was asked, nothing to log */
		close(client);
		return;
	}
	if (rc)
		conn_refuse(c, "no request: %s", strerror(-rc));
	else if (c->in.b[0] == 0x05) /* SOCKS version 5 */
		socks5_serve(c);
	else if (c->in.b[0] >= 'A' && c->in.b[0] <= 'Z') /* an HTTP method */
		http_serve(c);
	else
		conn_refuse(c, "unknown protocol (first byte 0x%02x): speak HTTP or SOCKS5",
			    c->in.b[0]);
	conn_log(c);
	if (c->upstream >= 0)
		close(c->upstream);
	close(client);
	free(c);
}
