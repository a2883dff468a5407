/* The proxy process: forked by kjail before the sandbox is cloned, in the
 * host's network namespace and the sandbox's cgroup (launch.c moves it
 * there, so the limits count it), holding nothing but its end of the relay's
 * socketpair, the --net-log fd and the parsed rules. One thread per
 * connection (name resolution blocks), kept a while for the next one; it
 * ends when the relay's end closes (the sandbox is gone), and dies with
 * kjail (PR_SET_PDEATHSIG). */
#include "net/proxy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net/proxy_int.h"
#include "runtime/clock.h"

#define PROXY_STACK (256 * 1024)
#define PROXY_STOP_MS 3000 /* kjail's wait before SIGKILL */

struct kj_proxy {
	pid_t pid;
	int pidfd;
	struct proxy_stats *stats;
	const char *log_path;
	uint64_t log_limit; /* --net-log-limit, for the summary */
	bool quiet;
	bool log_created; /* this run made the --net-log file ... */
	dev_t log_dev;    /* ... this one */
	ino_t log_ino;
	int log_unnamed, log_dir; /* not linked in yet (proxy_commit_log), or -1 */
	bool log_lost;            /* it could not be linked in: the lines went nowhere */
	char log_named[PATH_MAX]; /* the name it was linked in under, when not log_path's */
};

struct job {
	struct proxy_ctx *px;
	int fd, slot;
	struct job *next;
};

/* Worker threads serve connections one after another: starting a thread
 * lies on each new connection's path and costs 10 µs on a quiet machine,
 * 20-120 µs on a busy one (placement on a busy CPU), waking a waiting one
 * about 4 µs. A worker with nothing to do for PROXY_WORKER_IDLE_S ends,
 * and one that would be the PROXY_WORKERS_KEPT+1st waiting ends at once:
 * the proxy is in the sandbox's cgroup, so every thread it keeps counts
 * against --pids, and a burst of 200 connections must not hold 200 of
 * the command's processes for ten seconds after it. */
#define PROXY_WORKER_IDLE_S 10
#define PROXY_WORKERS_KEPT 16
static struct {
	pthread_mutex_t lock;
	pthread_cond_t more; /* CLOCK_MONOTONIC */
	struct job *head, *tail;
	int idle; /* waiting workers no job was handed to yet */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* A slot in clients[] for fd, or -1 when all are taken. */
static int slot_take(struct proxy_ctx *px, int fd)
{
	int slot = -1;

	pthread_mutex_lock(&px->lock);
	for (int i = 0; i < PROXY_MAX_CONNS && slot < 0; i++)
		if (px->clients[i] < 0)
			px->clients[slot = i] = fd;
	pthread_mutex_unlock(&px->lock);
	return slot;
}

static void serve_job(struct job *j)
{
	struct proxy_ctx *px = j->px;

	conn_serve(px, j->fd);
	/* Freed under the lock, after conn_serve closed the fd: the shutdown
	 * in proxy_serve never reaches a number reused by something else. */
	pthread_mutex_lock(&px->lock);
	px->clients[j->slot] = -1;
	pthread_mutex_unlock(&px->lock);
	free(j);
	atomic_fetch_sub(&px->active, 1);
}

static void *worker(void *arg)
{
	struct job *j = arg;

	while (j) {
		struct timespec until;

		serve_job(j);
		j = NULL;
		pthread_mutex_lock(&pool.lock);
		if (pool.idle >= PROXY_WORKERS_KEPT) {
			pthread_mutex_unlock(&pool.lock);
			break;
		}
		pool.idle++;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += PROXY_WORKER_IDLE_S;
		while (!pool.head)
			if (pthread_cond_timedwait(&pool.more, &pool.lock, &until) == ETIMEDOUT &&
			    !pool.head) {
				pool.idle--;
				break;
			}
		/* Whoever queued this job counted one idle worker less for it. */
		if ((j = pool.head) && !(pool.head = j->next))
			pool.tail = NULL;
		pthread_mutex_unlock(&pool.lock);
	}
	return NULL;
}

/* To a waiting worker if there is one, else to a new thread. */
static int dispatch(struct job *j, const pthread_attr_t *attr)
{
	pthread_t t;

	pthread_mutex_lock(&pool.lock);
	if (pool.idle > 0) {
		pool.idle--;
		j->next = NULL;
		if (pool.tail)
			pool.tail->next = j;
		else
			pool.head = j;
		pool.tail = j;
		pthread_cond_signal(&pool.more);
		pthread_mutex_unlock(&pool.lock);
		return 0;
	}
	pthread_mutex_unlock(&pool.lock);
	return pthread_create(&t, attr, worker, j);
}

/* The relay passes TCP sockets it accepted; anything else (a pipe, a file
 * on a FUSE mount that blocks forever, a unix socket) is not served. */
static bool is_tcp_stream(int fd)
{
	int v, listening = 0;
	socklen_t l = sizeof(v);
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return false;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) < 0 || (v != AF_INET && v != AF_INET6))
		return false;
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) < 0 || v != SOCK_STREAM)
		return false;
	l = sizeof(listening);
	return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &l) == 0 && !listening;
}

/* One message, one fd; 0 at end of file (the relay is gone). */
static int receive_fd(int sock, int *fd)
{
	char byte, cbuf[CMSG_SPACE(sizeof(int) * 4)];
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf)};
	ssize_t n;

	*fd = -1;
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return n == 0 || (errno != EINTR && errno != EAGAIN) ? 0 : 1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t nfds;
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		nfds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfds; i++) {
			int f;
			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			/* Exactly one fd per message: extra ones are closed, not
			 * leaked into our table. */
			if (*fd < 0 && !(mh.msg_flags & MSG_CTRUNC))
				*fd = f;
			else
				close(f);
		}
	}
	return 1;
}

__attribute__((noreturn)) static void proxy_serve(struct proxy_ctx *px, int sock)
{
	static struct conn c; /* a refusal's, made here: only this thread uses it */
	pthread_attr_t attr;
	pthread_condattr_t ca;
	int64_t deadline;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pool.more, &ca);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, PROXY_STACK);
	for (;;) {
		struct job *j;
		int fd, slot, rc = receive_fd(sock, &fd);

		if (rc == 0)
			break;
		if (fd < 0)
			continue;
		if (!is_tcp_stream(fd)) {
			close(fd);
			continue;
		}
		/* A sandbox opening connections without end must not exhaust
		 * the host's threads and fds: beyond the cap it gets nothing. */
		slot = slot_take(px, fd);
		if (slot < 0 || !(j = malloc(sizeof(*j)))) {
			if (slot >= 0) {
				pthread_mutex_lock(&px->lock);
				px->clients[slot] = -1;
				pthread_mutex_unlock(&px->lock);
			}
			c = (struct conn){.px = px, .client = fd, .upstream = -1, .proto = "-"};
			conn_refuse(&c, "more than %d connections at once", PROXY_MAX_CONNS);
			conn_log(&c);
			close(fd);
			continue;
		}
		*j = (struct job){.px = px, .fd = fd, .slot = slot};
		atomic_fetch_add(&px->active, 1);
		if ((rc = dispatch(j, &attr))) {
			atomic_fetch_sub(&px->active, 1);
			pthread_mutex_lock(&px->lock);
			px->clients[slot] = -1;
			pthread_mutex_unlock(&px->lock);
			free(j);
			/* In the sandbox's cgroup, the proxy's threads count
			 * against --pids: at the limit, this connection is
			 * refused, and the summary says so. */
			c = (struct conn){.px = px, .client = fd, .upstream = -1, .proto = "-"};
			conn_refuse(
				&c,
				"no thread to serve it: %s (the proxy's threads count against --pids)",
				strerror(rc));
			conn_log(&c);
			close(fd);
		}
	}
	/* The sandbox is gone: end the connections it left (one waiting on a
	 * slow server would otherwise hold its thread until the idle timeout),
	 * let them write their log lines, then go. */
	pthread_mutex_lock(&px->lock);
	for (int i = 0; i < PROXY_MAX_CONNS; i++)
		if (px->clients[i] >= 0)
			(void)shutdown(px->clients[i], SHUT_RDWR);
	pthread_mutex_unlock(&px->lock);
	deadline = kj_mono_ms() + PROXY_DRAIN_MS;
	for (;;) {
		pthread_mutex_lock(&px->lock);
		/* Those left only wait on a resolver or a connect (no shutdown
		 * reaches them, and what they wait for no one will use), or,
		 * past the deadline, still relay (an upstream that stalls the
		 * rest of an upload): they are logged as ended with the
		 * sandbox, and the lock stays held to the exit so that none
		 * writes a second line. */
		if (atomic_load(&px->active) <= px->nwaiting || kj_mono_ms() >= deadline) {
			conn_log_waiting(px);
			_exit(0);
		}
		pthread_mutex_unlock(&px->lock);
		usleep(5000);
	}
}

/* Everything the proxy does not need goes before it serves anyone. */
static void proxy_harden(int keep1, int keep2)
{
	int lo = keep1 < keep2 ? keep1 : keep2, hi = keep1 < keep2 ? keep2 : keep1;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct rlimit rl;
	sigset_t none_blocked;
	cap_t none;

	/* kjail's terminal is not the proxy's to write to (or to read). */
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	/* No fd of kjail's (the cgroup, the setup channel) stays open here. */
	if (lo > 3)
		syscall(SYS_close_range, 3, lo - 1, 0);
	if (hi > lo + 1)
		syscall(SYS_close_range, lo + 1, hi - 1, 0);
	syscall(SYS_close_range, hi + 1, ~0U, 0);
	/* Two sockets per connection. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max < 16384 ? rl.rlim_max : 16384;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* Run as root, the proxy still needs no capability: a bug in its
	 * parsers must not hand the sandbox root's privileges. */
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++)
		(void)cap_drop_bound(c);
	if ((none = cap_init())) {
		(void)cap_set_proc(none);
		cap_free(none);
	}
	(void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	/* Not dumpable: no other process of the caller's can ptrace it. */
	(void)prctl(PR_SET_DUMPABLE, 0);
	(void)prctl(PR_SET_NAME, "kjail-proxy");
	/* Its own process group: the terminal's ^C and ^Z go to kjail, which
	 * forwards them to the sandbox; the proxy ends with the sandbox. */
	(void)setpgid(0, 0);
	sigemptyset(&none_blocked);
	sigprocmask(SIG_SETMASK, &none_blocked, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* Holds no directory of the caller's busy. */
	(void)!chdir("/");
}

static int load_rules(const char *const *text, size_t n, struct hm_rule **out, struct kj_err *err)
{
	struct hm_rule *r = calloc(n ? n : 1, sizeof(*r));
	const char *why;

	if (!r)
		return kj_fail(err, "net", ENOMEM, NULL, "rules");
	for (size_t i = 0; i < n; i++)
		if (hm_rule_parse(text[i], &r[i], &why)) {
			free(r);
			return kj_fail(
				err, "net", 0,
				"use NAME, *.NAME, an IP address or CIDR range, optionally with :PORT or :*",
				"'%s': %s", text[i], why);
		}
	*out = r;
	return 0;
}

/* The log is the caller's: opened as the caller, never through a symlink
 * (a sandbox-planted link must not aim kjail's appends at another file). */
static int log_open(const char *path, int create)
{
	/* path is canonical (proxy_config.c): no component may be a symlink
	 * now, or one was planted since it was checked (a sandbox of a
	 * session sharing the workspace), and it would choose where kjail
	 * creates the file. */
	struct open_how how = {.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};

	/* O_NONBLOCK: a fifo (or a device) put where the checked file was
	 * would block this open for good, before open_log's fstat could see
	 * it; opened non-blocking, a fifo with no reader fails with ENXIO,
	 * one with a reader is refused as not regular. */
	how.flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | create;
	how.mode = create ? 0600 : 0; /* openat2 refuses a mode without O_CREAT */
	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

/* A missing log is made unnamed (O_TMPFILE) in its directory, and linked
 * in under its name once COMMAND has started (proxy_commit_log): kill -9
 * of kjail during the setup left an empty log of a run that never ran
 * (a setup that fails removes it, proxy_stop; a dead kjail cannot). The
 * fd, or -1 with errno (EOPNOTSUPP and the like: a file system without
 * O_TMPFILE, made named as before); *dir the directory's O_PATH fd. */
static int log_open_unnamed(const char *path, int *dir)
{
	const char *slash = strrchr(path, '/');
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	char d[PATH_MAX];
	int fd;

	*dir = -1;
	if (!slash || snprintf(d, sizeof(d), "%.*s", slash == path ? 1 : (int)(slash - path),
			       path) >= (int)sizeof(d)) {
		errno = EINVAL;
		return -1;
	}
	*dir = (int)syscall(SYS_openat2, AT_FDCWD, d, &how, sizeof(how));
	if (*dir < 0)
		return -1;
	fd = openat(*dir, ".", O_TMPFILE | O_WRONLY | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		close(*dir);
		*dir = -1;
		errno = e;
	}
	return fd;
}

static int open_log(const struct kj_config *cfg, int *out, bool *created, int *dir,
		    struct kj_err *err)
{
	struct stat st;
	int fd;

	*out = -1;
	*created = false;
	*dir = -1;
	if (!cfg->net_log)
		return 0;
	/* Made here only if missing, and then known to be kjail's: a run
	 * whose setup fails removes it again (proxy_stop). */
	fd = log_open(cfg->net_log, 0);
	if (fd < 0 && errno == ENOENT) {
		/* Unnamed if it can be; else (no O_TMPFILE on this file
		 * system, or any other failure, which the named open then
		 * reports) named at once, as before. */
		if ((fd = log_open_unnamed(cfg->net_log, dir)) < 0)
			fd = log_open(cfg->net_log, O_CREAT | O_EXCL);
		*created = fd >= 0;
	}
	/* ENXIO: a fifo no one reads (or a socket) took the file's place. */
	if (fd < 0 && errno == ENXIO)
		return kj_fail(err, "net", 0, "give a regular file of your own",
			       "--net-log %s is not a regular file", cfg->net_log);
	if (fd < 0)
		return kj_fail(err, "net", errno, "give a file path you can write", "--net-log %s",
			       cfg->net_log);
	/* A hard link to someone else's file, or a fifo or device someone
	 * reads: the proxy's log lines would go there. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != cfg->caller_uid ||
	    st.st_nlink != (*dir >= 0 ? 0 : 1) /* unnamed yet: no link */) {
		close(fd);
		return kj_fail(err, "net", 0, "give a regular file of your own",
			       "--net-log %s is not a regular file owned by you", cfg->net_log);
	}
	/* A regular file: the writes may block as they always did. */
	(void)fcntl(fd, F_SETFL, O_APPEND);
	*out = fd;
	return 0;
}

static void ctx_free(struct proxy_ctx *px)
{
	if (!px)
		return;
	free((void *)px->rules.allow);
	free((void *)px->rules.deny);
	free((void *)px->hosts);
	if (px->log_fd >= 0)
		close(px->log_fd);
	if (px->log_dir >= 0)
		close(px->log_dir);
	if (px->stats && px->stats != MAP_FAILED)
		munmap(px->stats, sizeof(*px->stats));
	free(px);
}

/* Everything the proxy needs, read and checked while kjail can still
 * report errors: rules, --net-hosts, then --net-log (so a bad hosts file
 * creates no log file), and the shared counters. */
static int ctx_make(const struct kj_config *cfg, struct proxy_ctx **out, struct kj_err *err)
{
	struct proxy_ctx *px = calloc(1, sizeof(*px));
	struct hm_rule *allow = NULL, *deny = NULL;
	struct proxy_host_entry *hosts = NULL;
	int rc;

	*out = NULL;
	if (!px)
		return kj_fail(err, "net", ENOMEM, NULL, "start the proxy");
	px->log_fd = -1;
	px->log_dir = -1;
	for (int i = 0; i < PROXY_MAX_CONNS; i++)
		px->clients[i] = -1;
	pthread_mutex_init(&px->lock, NULL);
	pthread_mutex_init(&px->log_lock, NULL);
	px->log_limit = cfg->net_log_limit;
	px->idle_ms = cfg->net_idle_ms;
	rc = load_rules(cfg->allow_host, cfg->nallow_host, &allow, err);
	px->rules = (struct hm_rules){.allow = allow, .nallow = cfg->nallow_host};
	if (!rc)
		rc = load_rules(cfg->deny_host, cfg->ndeny_host, &deny, err);
	px->rules.deny = deny;
	px->rules.ndeny = cfg->ndeny_host;
	if (!rc && cfg->net_hosts)
		rc = proxy_hosts_load(cfg->net_hosts, &hosts, &px->nhosts, err);
	px->hosts = hosts;
	if (!rc)
		rc = open_log(cfg, &px->log_fd, &px->log_created, &px->log_dir, err);
	if (!rc) {
		px->stats = mmap(NULL, sizeof(*px->stats), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (px->stats == MAP_FAILED)
			rc = kj_fail(err, "net", errno, NULL, "map the proxy's counters");
	}
	if (rc) {
		ctx_free(px);
		return rc;
	}
	*out = px;
	return 0;
}

int proxy_start(const struct kj_config *cfg, struct kj_proxy **proxy, int *relay_fd,
		struct kj_err *err)
{
	struct proxy_ctx *px;
	struct kj_proxy *p;
	struct stat st;
	int sp[2], rc;
	pid_t parent = getpid();

	*proxy = NULL;
	*relay_fd = -1;
	if (cfg->net != KJ_NET_PROXY)
		return 0;
	if ((rc = ctx_make(cfg, &px, err)))
		return rc;
	if (!px)
		return kj_fail(err, "net", ENOMEM, NULL, "prepare the proxy");
	p = calloc(1, sizeof(*p));
	/* SEQPACKET: one message per connection, one fd in each. */
	if (!p || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
		rc = kj_fail(err, "net", p ? errno : ENOMEM, NULL,
			     "create the proxy's socket pair");
		goto fail;
	}
	p->pid = fork();
	if (p->pid < 0) {
		rc = kj_fail(err, "net", errno, NULL, "fork the proxy");
		close(sp[0]);
		close(sp[1]);
		goto fail;
	}
	if (p->pid == 0) {
		/* Dies with kjail, kill -9 included (and the check closes the
		 * race with a kjail that died before the prctl). */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(1);
		close(sp[1]);
		proxy_harden(sp[0], px->log_fd >= 0 ? px->log_fd : sp[0]);
		proxy_serve(px, sp[0]);
	}
	close(sp[0]);
	p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	p->stats = px->stats;
	px->stats = NULL; /* kjail's copy of the mapping now belongs to p */
	p->log_path = cfg->net_log;
	p->log_limit = cfg->net_log_limit;
	p->quiet = cfg->quiet;
	if (px->log_created && fstat(px->log_fd, &st) == 0) {
		p->log_created = true;
		p->log_dev = st.st_dev;
		p->log_ino = st.st_ino;
	}
	/* Unnamed yet: kjail keeps it, and its directory, to link it in. */
	p->log_unnamed = p->log_dir = -1;
	if (px->log_dir >= 0) {
		p->log_unnamed = px->log_fd;
		p->log_dir = px->log_dir;
		px->log_fd = px->log_dir = -1;
	}
	*proxy = p;
	*relay_fd = sp[1];
	ctx_free(px);
	return 0;
fail:
	free(p);
	ctx_free(px);
	return rc;
}

pid_t proxy_pid(const struct kj_proxy *p)
{
	return p ? p->pid : 0;
}

/* The log linked in under NAME.kjail-XXXXXXXX: a name nobody else can
 * have guessed and made first. 0, or -1 with errno. */
static int link_fresh(struct kj_proxy *p, const char *fdpath, const char *base)
{
	for (int tries = 0; tries < 8; tries++) {
		unsigned r;
		char name[NAME_MAX + 1];

		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r) ||
		    (size_t)snprintf(name, sizeof(name), "%s.kjail-%08x", base, r) >=
			    sizeof(name) ||
		    (size_t)snprintf(p->log_named, sizeof(p->log_named), "%s.kjail-%08x",
				     p->log_path, r) >= sizeof(p->log_named)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (linkat(AT_FDCWD, fdpath, p->log_dir, name, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

void proxy_commit_log(struct kj_proxy *p)
{
	char fdpath[32];
	const char *base;

	if (!p || p->log_unnamed < 0)
		return;
	base = strrchr(p->log_path, '/') + 1;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", p->log_unnamed);
	/* EEXIST: someone put a file at the path during the setup (another
	 * user, in a shared directory). It is not kjail's (not checked, not
	 * written), and pointing at it would show their lines as the run's:
	 * the log goes under a fresh name, and kjail says which. */
	if (linkat(AT_FDCWD, fdpath, p->log_dir, base, AT_SYMLINK_FOLLOW) == 0) {
		/* as asked */
	} else if (errno == EEXIST && link_fresh(p, fdpath, base) == 0) {
		kj_note("net: --net-log %s was made by someone else during the setup (not kjail's, "
			"not written); this run's log is %s",
			p->log_path, p->log_named);
		p->log_path = p->log_named;
	} else {
		kj_note("net: --net-log %s: could not be made (%s); this run's connections are "
			"not logged",
			p->log_path, strerror(errno));
		p->log_created = false;
		p->log_lost = true;
	}
	close(p->log_unnamed);
	close(p->log_dir);
	p->log_unnamed = p->log_dir = -1;
}

static void report(const struct kj_proxy *p)
{
	const struct proxy_stats *st = p->stats;
	unsigned long refused = atomic_load(&st->refused), dropped = atomic_load(&st->log_dropped);
	unsigned shown = atomic_load(&st->nshown);
	char hosts[PROXY_SHOWN_HOSTS * (PROXY_HOSTPORT_MAX + 2)] = "";
	size_t o = 0;

	if (p->quiet)
		return;
	for (unsigned i = 0; i < shown && i < PROXY_SHOWN_HOSTS; i++)
		o += (size_t)snprintf(hosts + o, sizeof(hosts) - o, "%s%s", i ? ", " : "",
				      st->shown[i]);
	/* "...": a refused host was left out; refusals with no host (no
	 * request head, over the connection cap) are counted, not named. */
	if (refused)
		kj_note("net: %lu connection%s refused%s%s%s (%s%s)", refused,
			refused == 1 ? "" : "s", shown ? ": " : "", hosts,
			atomic_load(&st->left_out) ? ", ..." : "",
			p->log_lost   ? "the --net-log file could not be made"
			: p->log_path ? "see "
				      : "add --net-log FILE for the reasons",
			p->log_path && !p->log_lost ? p->log_path : "");
	if (atomic_load(&st->log_truncated) && !p->log_lost)
		kj_note("net: --net-log %s truncated at --net-log-limit %llu: %lu later line%s (%lu "
			"bytes) not written",
			p->log_path, (unsigned long long)p->log_limit, dropped,
			dropped == 1 ? "" : "s", atomic_load(&st->log_dropped_bytes));
}

void proxy_stop(struct kj_proxy *p, bool show)
{
	struct pollfd pfd;
	int st;

	if (!p)
		return;
	/* After a run, the relay's end has closed with the sandbox; the proxy
	 * then ends its connections, writes their log lines and exits by
	 * itself (killed if it does not). After a failed setup nothing ran
	 * and kjail may still hold the relay's end: killed at once. */
	pfd = (struct pollfd){.fd = p->pidfd, .events = POLLIN};
	if (!show || p->pidfd < 0 || poll(&pfd, 1, PROXY_STOP_MS) <= 0)
		(void)kill(p->pid, SIGKILL);
	(void)waitpid(p->pid, &st, 0);
	if (show) {
		report(p);
		if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) && !p->quiet)
			kj_note("net: the proxy ended abnormally (%s %d)",
				WIFSIGNALED(st) ? "signal" : "status",
				WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
	/* A setup that failed ran nothing: a log file this run made is
	 * still empty, and removed (bad input changes nothing on the host). */
	if (!show && p->log_created) {
		struct stat ls;
		if (lstat(p->log_path, &ls) == 0 && ls.st_dev == p->log_dev &&
		    ls.st_ino == p->log_ino && ls.st_size == 0)
			(void)unlink(p->log_path);
	}
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->log_unnamed >= 0)
		close(p->log_unnamed); /* never linked in: gone with this close */
	if (p->log_dir >= 0)
		close(p->log_dir);
	munmap(p->stats, sizeof(*p->stats));
	free(p);
}
