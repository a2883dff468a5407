/* Internals of the host-side egress proxy (--net proxy), shared by its
 * files: proxy.c (the process), proxy_conn.c (one connection: decide,
 * resolve, connect, log), proxy_http.c, proxy_socks.c (the two
 * protocols), proxy_pump.c (relay both ways), proxy_hosts.c (--net-hosts). */
#ifndef KJAIL_PROXY_INT_H
#define KJAIL_PROXY_INT_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "net/hostmatch.h"

#define PROXY_MAX_CONNS 1024        /* concurrent connections; more are refused */
#define PROXY_HEAD_TIMEOUT_MS 30000 /* to send a request head (slowloris) */
#define PROXY_CONNECT_TIMEOUT_MS 10000
#define PROXY_HEAD_MAX 16384                  /* request head and SOCKS5 handshake */
#define PROXY_MAX_ADDRS 16                    /* addresses tried per name */
#define PROXY_SHOWN_HOSTS 5                   /* refused hosts named in the summary */
#define PROXY_HOSTPORT_MAX (HM_NAME_MAX + 32) /* "host:port", "[v6]:port" */
#define PUMP_BUF_MIN (64 * 1024)              /* per direction and connection */
#define PUMP_BUF_MAX (2048 * 1024)            /* grown to, for a bulk transfer ... */
#define PROXY_BULK_BUDGET (64u << 20)         /* ... while all growth stays below this */

struct proxy_host_entry {
	char name[HM_NAME_MAX + 1];
	int family;
	unsigned char addr[16];
};

/* Written by the proxy process, read by kjail after the proxy exited
 * (a MAP_SHARED page set up before the fork). */
struct proxy_stats {
	atomic_ulong allowed, refused, failed;
	atomic_uint nshown;
	char shown[PROXY_SHOWN_HOSTS][PROXY_HOSTPORT_MAX]; /* "host:port" */
	atomic_bool left_out; /* a refused host:port not in shown[] (it was full) */
	/* --net-log-limit reached: the lines not written after it, their bytes */
	atomic_bool log_truncated;
	atomic_ulong log_dropped, log_dropped_bytes;
};

struct conn;

struct proxy_ctx {
	struct hm_rules rules;
	const struct proxy_host_entry *hosts; /* --net-hosts */
	size_t nhosts;
	int log_fd;       /* --net-log, O_APPEND; -1: none */
	bool log_created; /* open_log made the file (for proxy_stop) */
	int log_dir;      /* log_fd is unnamed yet: its directory (proxy_commit_log), or -1 */
	/* Every line goes through log_write, under log_lock: log_used bytes
	 * of at most log_limit (--net-log-limit) written, then one line
	 * saying the log stops there (stats->log_truncated), then none. A
	 * leaf lock: taken with px->lock held (conn_log_waiting), never the
	 * other way round. */
	pthread_mutex_t log_lock;
	uint64_t log_limit, log_used;
	uint64_t idle_ms;
	struct proxy_stats *stats;
	pthread_mutex_t lock;         /* the shown list, clients[], the waiting list */
	atomic_int active;            /* connections being served */
	atomic_size_t bulk_bytes;     /* buffer growth beyond PUMP_BUF_MIN, all connections */
	int clients[PROXY_MAX_CONNS]; /* their client fds (-1: free slot) */
	struct conn *waiting;         /* those that wait, or relay (conn.waiting), linked */
	int nwaiting;                 /* of them, those that wait */
};

#define PROXY_DRAIN_MS 2000 /* connections still running when the sandbox ended */

/* Bytes read from the client and not yet consumed. */
struct rbuf {
	unsigned char b[PROXY_HEAD_MAX];
	size_t len, off;
};

enum open_result { OPEN_OK, OPEN_REFUSED, OPEN_NORESOLVE, OPEN_FAILED };

/* One client connection, from the relay's fd to the log line. */
struct conn {
	struct proxy_ctx *px;
	int client, upstream;
	const char *proto; /* "connect", "http", "socks5" */
	struct hm_target target;
	bool have_target;
	char shown_host[208]; /* escaped, for the log when there is no target */
	int shown_port;
	const char *decision; /* "allow", "refuse", "fail" */
	char rule[320];       /* the rule that decided, or "-" */
	char reason[400];     /* why it was refused or failed */
	char addr[INET6_ADDRSTRLEN];
	uint64_t up, down; /* bytes client -> upstream, upstream -> client */
	/* "resolving", "connecting": blocked where the sandbox's end cannot
	 * wake it, and on px->waiting; else NULL. Under px->lock. */
	const char *waiting;
	/* Moving bytes (pump), and on px->waiting too, but not counted in
	 * px->nwaiting: the drain waits for it. Under px->lock. */
	bool relaying;
	struct conn *wait_prev, *wait_next;
	struct rbuf in;
	/* When the request head (HTTP, or SOCKS5's greeting and request) must
	 * be in: one deadline from the accept, not one per read. */
	int64_t head_deadline;
};

/* proxy_conn.c */
/* Append one whole line (ending in \n) to --net-log, within the cap. */
void log_write(struct proxy_ctx *px, const char *line, size_t len);
void conn_serve(struct proxy_ctx *px, int client);
/* Count the connection and write its log line. */
void conn_log(struct conn *c);
/* The sandbox has ended: log every connection still waiting (on the
 * host's resolver or a connect) as ended by it. Called with px->lock held,
 * which the caller keeps until it exits: a waiting thread that wakes
 * blocks on the lock and never writes a second line. */
void conn_log_waiting(struct proxy_ctx *px);
/* Around pump: a connection relaying when the proxy gives up draining
 * is logged by conn_log_waiting too (with its bytes so far), and its
 * thread, which blocks in conn_untrack, writes no second line. */
void conn_track(struct conn *c);
void conn_untrack(struct conn *c);
enum open_result conn_open(struct conn *c);
void conn_refuse(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void conn_set_shown(struct conn *c, const unsigned char *host, size_t len, int port);

/* proxy_http.c, proxy_socks.c: speak the protocol, call conn_open, pump. */
void http_serve(struct conn *c);
void socks5_serve(struct conn *c);

/* proxy_pump.c */
/* Make sure at least n unread bytes are in c->in (0, or -errno: EPIPE at
 * end of file, ETIMEDOUT, EMSGSIZE when the buffer is full). */
int rbuf_need(int fd, struct rbuf *rb, size_t n, int64_t deadline);
int write_all(int fd, const void *buf, size_t len, int timeout_ms);
/* Relay client <-> upstream until both directions ended, an error, or
 * idle_ms without a byte. up_limit caps client -> upstream (plain HTTP:
 * one request body); UINT64_MAX for none. Returns a reason for the log
 * ("idle timeout") or NULL. */
const char *pump(struct conn *c, uint64_t up_limit, uint64_t idle_ms);

/* proxy_hosts.c */
/* Addresses for a name: --net-hosts first, else the host's resolver
 * (getaddrinfo, or getent: see proxy_hosts.c), in the host's network
 * context. Returns the count (0: none), fills family/addr. */
int hosts_resolve(const struct proxy_ctx *px, const char *name, int *family,
		  unsigned char (*addr)[16], int max);
/* Does getaddrinfo need no NSS module (nsswitch.conf's hosts: files, dns
 * only)? Else hosts_resolve asks getent. */
bool hosts_nss_builtin(void);
/* Addresses (TCP, deduplicated) from `getent ahosts` output; the count. */
int hosts_parse_getent(char *out, int *family, unsigned char (*addr)[16], int max);

#endif
