/* kjail create / ls / stop / rm / gc. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mounts/git_after.h"
#include "net/proxy.h"
#include "runtime/config_id.h"
#include "runtime/json_out.h"
#include "runtime/cgroup.h"
#include "runtime/cli.h"
#include "runtime/sandbox.h"
#include "runtime/session.h"
#include "runtime/settings.h"

static int listen_socket(const char *name, struct kj_err *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (session_path(sa.sun_path, sizeof(sa.sun_path), name, "sock", err))
		return -EINVAL;
	unlink(sa.sun_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	/* 0600 from the start (umask), inside a 0700 directory: only the
	 * owner can connect, so only the owner can exec into or stop it. */
	mode_t old = umask(0177);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 128) < 0) {
		int e = errno;
		umask(old);
		if (fd >= 0)
			close(fd);
		return kj_fail(err, "session", e, NULL, "listen on %s", sa.sun_path);
	}
	umask(old);
	return fd;
}

/* Close every fd above 2 but keep. */
static void close_fds_but(int keep)
{
	if (keep > 3)
		syscall(SYS_close_range, 3, (unsigned)keep - 1, 0);
	syscall(SYS_close_range, (unsigned)keep + 1, ~0U, 0);
}

static int create_failed(const char *name, int lock, const char *lockpath, int rc);
static int claim_name(const char *name, int *lock, int *listenfd, struct kj_err *err);

/* What a supervisor that could not start tells its create: the error,
 * and -EEXIST when a session of that name runs (exec --create joins it).
 * "ready" is one byte. */
struct create_failure {
	int rc;
	struct kj_err err;
};
/* "Ready": a 0 byte and the notes, at most a msg long; never as long as a
 * failure, so create tells them apart by length. */
#define READY_MAX (1 + sizeof(((struct create_failure *)0)->err.msg))
_Static_assert(READY_MAX < sizeof(struct create_failure),
	       "a ready message must be shorter than a failure");

/* Tell create why the session did not start (unless it is gone). */
static void tell_failure(int ready, int rc, const struct kj_err *err)
{
	struct create_failure f = {.rc = rc, .err = *err};

	(void)!write(ready, &f, sizeof(f));
}

/* A supervisor that did not start a session (its setup failed, or the
 * create it reports to is gone) leaves nothing of NAME: no socket or
 * record, and the lock file, removed while the lock is still held, so
 * that no other create, rm or gc of the name is in between. Done before
 * create hears of the failure: once it has exited 125, nothing remains. */
static void release_name(const char *name, int lock)
{
	char lockpath[512];
	struct kj_err ignored;

	if (session_path(lockpath, sizeof(lockpath), name, "lock", &ignored) == 0)
		(void)create_failed(name, lock, lockpath, 0);
	else
		close(lock);
}

/* The supervisor: takes the name, builds the sandbox, says "ready" (or
 * why not) on the pipe, then waits for the session to end and frees
 * what it held. A create killed (kill -9 of kjail create or of exec
 * --create) before "ready" got 137, not a session, so none may outlive
 * it (a supervisor and init nobody asked for, a socket and lock file):
 * the supervisor finds it gone (EPIPE on "ready") and releases all. */
__attribute__((noreturn)) static void supervise_session(const struct kj_config *cfg,
							const char *name, int ready)
{
	struct sandbox sb;
	struct session_record rec = {0};
	struct kj_err err = {0};
	struct git_after git;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int lock = -1, listenfd = -1, rc;
	/* Notes create printed itself before the fork are not said again. */
	const size_t said = strlen(kj_notes());
	sigset_t set;
	siginfo_t si;
	bool killed = false; /* for a mount the host took away */

	setsid();
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	/* The supervisor outlives its caller and never execs, so main's
	 * close-on-exec marking drops nothing the caller left open: it held
	 * a pipe's write end for the session's whole life (`kjail create
	 * 5>&1 | cat` never saw EOF), and any file, socket or lock of the
	 * caller's with it. Only the ready pipe stays; the name's lock and
	 * listening socket are the supervisor's own, taken next (the
	 * sandbox's init and the proxy close them), and sandbox_start opens
	 * what else it needs. */
	close_fds_but(ready);
	/* After close_fds_but, which would close its guardian's socket. */
	git_after_start(cfg, &git);
	rc = claim_name(name, &lock, &listenfd, &err);
	if (rc) {
		tell_failure(ready, rc, &err); /* claim_name left nothing */
		_exit(KJ_EXIT_SETUP);
	}
	if (sandbox_start(&sb, cfg, listenfd, &git, &err)) {
		git_guard_release(&git); /* nothing ran */
		release_name(name, lock);
		tell_failure(ready, -EINVAL, &err);
		_exit(KJ_EXIT_SETUP);
	}
	close(listenfd);
	snprintf(rec.name, sizeof(rec.name), "%s", name);
	rec.supervisor = getpid();
	rec.supervisor_start = session_proc_start(rec.supervisor);
	rec.created = (long long)time(NULL);
	snprintf(rec.state, sizeof(rec.state), "running");
	snprintf(rec.workspace, sizeof(rec.workspace), "%s", cfg->workspace.src);
	snprintf(rec.profile, sizeof(rec.profile), "%s", cfg->profile ? cfg->profile : "default");
	snprintf(rec.cgroup, sizeof(rec.cgroup), "%s", cgroup_path(sb.cg));
	rec.idle_ms = cfg->idle_timeout_ms;
	rec.timeout_ms = cfg->timeout_ms;
	rec.kill_grace_ms = cfg->kill_grace_ms;
	rec.output_limit = cfg->output_limited ? cfg->output_limit : 0;
	rec.output_limited = cfg->output_limited;
	rec.config_id = config_fingerprint(cfg);
	if (session_record_write(&rec, &err)) {
		sandbox_kill(&sb);
		(void)waitid(P_PIDFD, (id_t)sb.pidfd, &si, WEXITED);
		sandbox_release(&sb);
		release_name(name, lock);
		tell_failure(ready, -EINVAL, &err);
		_exit(KJ_EXIT_SETUP);
	}
	/* "Ready" is a 0 byte, then the notes said so far (the limits
	 * --limits best-effort could not enforce, --net host, --landlock
	 * off): this process's stderr is /dev/null, so without them create
	 * said nothing of a session that runs unlimited or less isolated.
	 * One write (under PIPE_BUF), read whole by create. */
	char ready_msg[READY_MAX] = "";
	size_t ready_len;

	if (snprintf(ready_msg + 1, sizeof(ready_msg) - 1, "%s", kj_notes() + said) >=
	    (int)sizeof(ready_msg) - 1) {
		char *last = strrchr(ready_msg + 1, '\n');
		(last ? last : ready_msg)[1] = '\0'; /* whole lines only */
	}
	ready_len = 1 + strlen(ready_msg + 1);
	/* EPIPE (SIGPIPE is blocked): the create died before it learnt of
	 * the session. Nothing ran in it yet: the sandbox goes (its proxy,
	 * a --net-log file still empty, its cgroup with it), and the name. */
	if (write(ready, ready_msg, ready_len) != (ssize_t)ready_len) {
		sandbox_kill(&sb);
		(void)waitid(P_PIDFD, (id_t)sb.pidfd, &si, WEXITED);
		sandbox_release(&sb);
		release_name(name, lock);
		_exit(KJ_EXIT_SETUP);
	}
	close(ready);
	close(lock);
	/* kill (TERM/INT/HUP) of the supervisor stops the session cleanly. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	{
		/* [2], [3]: the host took a mask or bind away, or renamed
		 * one (runtime/mount_watch.c): the session ends before any
		 * exec can see what it hid. */
		struct pollfd pfd[4] = {{.fd = sb.pidfd, .events = POLLIN},
					{.fd = signalfd(-1, &set, SFD_CLOEXEC), .events = POLLIN},
					{.fd = sb.mounts.fd, .events = POLLPRI},
					{.fd = sb.mounts.renames, .events = POLLIN}};
		while (poll(pfd, 4, pfd[2].fd >= 0 ? mount_watch_wait_ms(&sb.mounts) : -1) >= 0 &&
		       !pfd[0].revents) {
			if (pfd[1].revents)
				sandbox_kill(&sb);
			if (pfd[2].fd >= 0 &&
			    mount_watch_lost(&sb.mounts, pfd[2].revents, pfd[3].revents)) {
				sandbox_kill(&sb);
				pfd[2].fd = pfd[3].fd = -1;
				killed = true;
			}
		}
	}
	(void)waitid(P_PIDFD, (id_t)sb.pidfd, &si, WEXITED);
	/* The session ran: the proxy ends its connections and writes their
	 * log lines, as after a one-shot run (its notes go to /dev/null).
	 * sandbox_release's stop is a failed setup's: a kill, and the
	 * removal of a --net-log file still empty. */
	proxy_stop(sb.proxy, true);
	sb.proxy = NULL;
	sandbox_release(&sb);
	/* The session's processes are all gone: a .git/commondir one of them
	 * made is set aside (quietly: the supervisor has no terminal). */
	(void)git_after_finish(&git, true);
	/* Stopped: nothing held any more; the record stays until `rm`. */
	{
		char path[512];
		if (session_path(path, sizeof(path), name, "sock", &err) == 0)
			unlink(path);
	}
	/* "killed": an exec then says why (session_connect). */
	snprintf(rec.state, sizeof(rec.state), "%s", killed ? "killed" : "stopped");
	rec.cgroup[0] = '\0';
	(void)session_record_write(&rec, &err);
	_exit(0);
}

/* Leave nothing behind: the lock file goes too, removed while held so
 * that no create of the same name is between its checks. */
static void drop_lock(const char *name)
{
	char lockpath[512];
	struct kj_err ignored;
	int lock;

	if (session_path(lockpath, sizeof(lockpath), name, "lock", &ignored) == 0 &&
	    (lock = open(lockpath, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
		if (flock(lock, LOCK_EX | LOCK_NB) == 0)
			unlink(lockpath);
		close(lock);
	}
}

/* Take NAME's lock file (one create per name at a time): the fd, held
 * with LOCK_EX, or -errno (-EWOULDBLOCK when another holds it and !wait).
 * A lock file that rm, gc or a failed create unlinked while this one
 * waited for it no longer guards the name: taken again from the path. */
static int lock_name(const char *lockpath, bool wait)
{
	for (;;) {
		struct stat held, now;
		int lock = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

		if (lock < 0)
			return -errno;
		if (flock(lock, wait ? LOCK_EX : LOCK_EX | LOCK_NB) < 0 || fstat(lock, &held) < 0) {
			int e = errno;
			close(lock);
			return -e;
		}
		if (stat(lockpath, &now) == 0 && now.st_dev == held.st_dev &&
		    now.st_ino == held.st_ino)
			return lock;
		close(lock);
	}
}

/* Forget NAME (socket, record, lock file) under its lock, unless it is a
 * live session; its cgroup went with the supervisor's sweeper (else
 * cgroup_gc takes it), its mounts and processes died with its supervisor.
 * The lock is create's: a create holding it is replacing the record right
 * now, and what a check made before the lock would remove afterwards could
 * be the new session's socket and record (a live supervisor nobody could
 * reach or stop by name). gc and stop (dead_only: a "running" record whose
 * supervisor died) do not wait for a create; rm does, and leaves what that
 * create made. True when NAME was forgotten. */
static bool forget_unless_live(const char *name, bool dead_only)
{
	struct session_record rec;
	struct kj_err ignored;
	char lockpath[512];
	bool gone, running;
	int lock;

	if (session_path(lockpath, sizeof(lockpath), name, "lock", &ignored) ||
	    (lock = lock_name(lockpath, !dead_only)) < 0)
		return false;
	if (session_record_read(name, &rec, &ignored) == 0) {
		running = !strcmp(rec.state, "running");
		gone = running ? !session_supervisor_alive(&rec) : !dead_only;
	} else {
		gone = !dead_only;
	}
	if (gone) {
		session_forget(name);
		unlink(lockpath); /* while held, as drop_lock does */
	}
	close(lock);
	return gone;
}

/* A create that failed leaves nothing behind: no socket or record, and
 * its lock file removed while still held (lock_name makes a waiting
 * create take a new one). */
static int create_failed(const char *name, int lock, const char *lockpath, int rc)
{
	session_forget(name);
	unlink(lockpath);
	close(lock);
	/* The state directory stays, empty and private, as a one-shot run
	 * leaves it (config_make_session_dirs): a sandbox still running may
	 * mask it, and an rmdir here detached that mask in its namespace, so
	 * the next create made it anew, unmasked there, and a --net none
	 * command could exec into a --net host session. */
	return rc;
}

/* Take NAME for the supervisor calling this: the state directory, the
 * name's lock (one create per name at a time; held until "ready"), no
 * live session of that name, and its listening socket. 0 with *lock and
 * *listenfd, or -errno with err filled (-EEXIST: a session of that name
 * runs) and nothing of this claim left behind. */
static int claim_name(const char *name, int *lock, int *listenfd, struct kj_err *err)
{
	struct session_record rec;
	char lockpath[512], dir[256];

	/* The directory removed between this mkdir and this lock (by hand,
	 * or by an older kjail's failed create) is made again. */
	for (int tries = 0;; tries++) {
		if (session_dir_create(dir, sizeof(dir), err) ||
		    session_path(lockpath, sizeof(lockpath), name, "lock", err))
			return -EINVAL;
		*lock = lock_name(lockpath, true);
		if (*lock != -ENOENT || tries == 3)
			break;
	}
	if (*lock < 0)
		return kj_fail(err, "session", -*lock, NULL, "lock %s", lockpath);
	if (session_record_read(name, &rec, err) == 0) {
		if (!strcmp(rec.state, "running") && session_supervisor_alive(&rec)) {
			close(*lock);
			kj_fail(err, "session", 0, "choose another name, or kjail rm it first",
				"session '%s' exists", name);
			return -EEXIST; /* exec --create joins it instead */
		}
		session_forget(name); /* stopped or dead: the name is free again */
		(void)cgroup_gc(NULL, err);
	}
	*listenfd = listen_socket(name, err);
	if (*listenfd < 0)
		return create_failed(name, *lock, lockpath, *listenfd);
	return 0;
}

/* The supervisor of NAME died without saying "ready" or why not (killed,
 * or crashed): what it had made of the name goes, as it would have
 * removed it itself, unless another create holds the name now or a
 * session of it runs. */
static void unstarted_forget(const char *name)
{
	struct session_record rec;
	struct kj_err ignored;
	char lockpath[512];
	int lock, rc;

	if (session_path(lockpath, sizeof(lockpath), name, "lock", &ignored))
		return;
	/* The dead supervisor's lock goes with its last fd, which the kernel
	 * may release a moment after its end of the ready pipe: tried for up
	 * to 2 s (on a loaded host the one try came first, and the lock file
	 * and socket stayed). Another create's live lock stays its own. */
	for (int i = 0; (lock = lock_name(lockpath, false)) == -EWOULDBLOCK && i < 200; i++)
		usleep(10000);
	if (lock < 0)
		return;
	rc = session_record_read(name, &rec, &ignored);
	if (rc == -ENOENT ||
	    (rc == 0 && !strcmp(rec.state, "running") && !session_supervisor_alive(&rec))) {
		(void)create_failed(name, lock, lockpath, 0);
		return;
	}
	unlink(lockpath); /* while held, as drop_lock does */
	close(lock);
}

/* Create makes nothing of NAME itself: it forks the supervisor first,
 * and the supervisor takes the name (state directory, lock file,
 * socket) and says "ready" or why not. The order is what keeps a
 * `kill -9` of create, at any moment, from leaving anything behind:
 * killed before the fork, it has made nothing; killed after, what there
 * is belongs to the supervisor, which finds create gone when it says
 * "ready" (EPIPE) and removes it all. (Taken by create before the fork,
 * a lock file and socket stayed after a kill in between, with no
 * process left to remove them.) */
int session_create(const struct kj_config *cfg, const char *name, struct kj_err *err)
{
	/* A failure (a whole struct create_failure), or "ready": a 0 byte
	 * and the notes, always shorter. */
	union {
		struct create_failure f;
		char ready[READY_MAX];
	} m;
	int ready[2];
	pid_t pid;
	ssize_t n;

	if (session_check_name(name, err))
		return -EINVAL;
	if (pipe2(ready, O_CLOEXEC) < 0)
		return kj_fail(err, "session", errno, NULL, "pipe");
	pid = fork();
	if (pid < 0) {
		int rc = kj_fail(err, "session", errno, NULL, "start the supervisor");
		close(ready[0]);
		close(ready[1]);
		return rc;
	}
	if (pid == 0) {
		close(ready[0]);
		/* A grandchild, so the supervisor is nobody's zombie. */
		if (fork() == 0)
			supervise_session(cfg, name, ready[1]);
		_exit(0);
	}
	close(ready[1]);
	(void)waitpid(pid, NULL, 0);
	do
		n = read(ready[0], &m, sizeof(m));
	while (n < 0 && errno == EINTR);
	close(ready[0]);
	if (n == (ssize_t)sizeof(m.f)) {
		*err = m.f.err;
		return m.f.rc;
	}
	if (n < 1 || m.ready[0]) {
		unstarted_forget(name);
		return kj_fail(err, "session", 0,
			       "retry; if it repeats, kjail doctor checks the host",
			       "the supervisor of '%s' died while starting", name);
	}
	/* The supervisor's notes, as kjail exec prints them. */
	m.ready[n < (ssize_t)sizeof(m.ready) ? n : (ssize_t)sizeof(m.ready) - 1] = '\0';
	for (char *line = m.ready + 1, *nl; *line; line = nl ? nl + 1 : line + strlen(line)) {
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		kj_note("%s", line);
	}
	return 0;
}

int session_settled(const char *name, struct kj_err *err)
{
	char lockpath[512];
	int lock;

	/* A create's supervisor holds the name's lock from before its
	 * socket listens until its record is written: once the lock is
	 * free, a session that answers has its record. */
	if (session_path(lockpath, sizeof(lockpath), name, "lock", err))
		return -EINVAL;
	lock = lock_name(lockpath, true);
	if (lock == -ENOENT)
		return 0; /* no create ever ran, or it was removed: nothing to wait for */
	if (lock < 0)
		return kj_fail(err, "session", -lock, NULL, "lock %s", lockpath);
	close(lock);
	return 0;
}

/* Flags of kjail exec that a create cannot honour: refused, not dropped
 * (`kjail create --cwd src NAME` ran every exec in the workspace). Only
 * flags: a profile or settings line serves kjail exec as well. */
static int refuse_exec_only_flags(const struct kj_sources *src, bool exec, struct kj_err *err)
{
	static const struct {
		const char *opt, *fix;
	} only[] = {
		{"cwd", "give --cwd to each kjail exec -s NAME"},
		{"tty", "an exec into a session never gets a terminal; drop it"},
		{"no-tty", "an exec into a session never gets a terminal; drop it"},
		{"stats", "a session has no end to report on; kjail ls shows its memory"},
	};

	for (size_t i = 0; i < sizeof(only) / sizeof(only[0]); i++) {
		const char *o = settings_origin(src, only[i].opt);
		if (exec && !strcmp(only[i].opt, "cwd"))
			continue; /* exec -s --create --cwd DIR: this exec's */
		if (o && o[0] == '-')
			return kj_fail(err, "option", 0, only[i].fix,
				       "--%s does nothing for kjail create", only[i].opt);
	}
	return 0;
}

int session_create_check(const struct kj_config *cfg, const struct kj_sources *src, bool exec,
			 struct kj_err *err)
{
	int rc = refuse_exec_only_flags(src, exec, err);

	if (rc == 0 && cfg->isolation == KJ_ISOLATION_NONE)
		rc = kj_fail(err, "session", 0, "sessions need the namespaces sandbox",
			     "the host profile has no sandbox to keep");
	return rc;
}

int cmd_create(int argc, char **argv)
{
	struct kj_config cfg;
	struct kj_sources src;
	struct kj_err err = {0};
	int rc;

	config_init(&cfg);
	/* The same options, sources and checks as kjail exec; NAME stands
	 * where COMMAND would. */
	rc = settings_load(argc, argv, true, &cfg, &src, &err);
	if (rc == 1) {
		printf("usage: kjail create [OPTIONS] NAME   (the options of kjail exec --help but "
		       "--cwd, --tty, --no-tty and --stats, which it refuses; and --idle-timeout)\n");
		return 0;
	}
	if (rc == 0 && cfg.argv[1])
		rc = kj_fail(&err, "option", 0, "usage: kjail create [OPTIONS] NAME",
			     "unexpected argument '%s'", cfg.argv[1]);
	if (rc == 0)
		rc = session_create_check(&cfg, &src, false, &err);
	if (rc || session_create(&cfg, cfg.argv[0], &err)) {
		kj_err_print(&err);
		return KJ_EXIT_SETUP;
	}
	return 0;
}

static int ask(const char *name, enum session_msg type, struct session_msg_hdr *reply)
{
	struct session_msg_hdr h = {.type = type};
	struct kj_err ignored;
	/* A session too busy (or stopped) to answer must not hang ls, stop
	 * or rm for ever: not in the connect either, which waits while the
	 * session's backlog is full. */
	struct timeval limit = {.tv_sec = 5};
	int fd = session_connect(name, &limit, &ignored), rc;

	if (fd < 0)
		return fd;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
	rc = session_send(fd, &h, NULL, 0, NULL, 0);
	if (rc == 0)
		rc = session_recv(fd, reply, NULL, NULL, NULL, NULL);
	close(fd);
	return rc;
}

/* The session's memory.current in bytes; -1 when unknown (no cgroup of its
 * own, as on a host whose limits are best-effort, or a stopped session's
 * cgroup already freed). */
static long long memory_bytes_of(const struct session_record *rec)
{
	char path[4200];
	unsigned long long bytes;
	long long got = -1;
	FILE *f;

	if (!rec->cgroup[0])
		return -1;
	snprintf(path, sizeof(path), "%s/memory.current", rec->cgroup);
	if ((f = fopen(path, "re"))) {
		if (fscanf(f, "%llu", &bytes) == 1 && bytes <= (unsigned long long)LLONG_MAX)
			got = (long long)bytes;
		fclose(f);
	}
	return got;
}

/* One session of `kjail ls --json`: times in seconds and memory in bytes,
 * as numbers (idle_s null when the session did not say: only a running
 * one answers; memory_bytes null when unknown). */
static void ls_json_entry(bool first, const char *name, const char *state,
			  const struct session_record *rec, long long idle_s,
			  unsigned long long running, long long mem)
{
	printf("%s{\"name\":", first ? "" : ",");
	json_put_string(stdout, name);
	printf(",\"state\":");
	json_put_string(stdout, state);
	printf(",\"pid\":%d,\"age_s\":%lld,\"idle_s\":", (int)rec->supervisor,
	       (long long)time(NULL) - rec->created);
	if (idle_s < 0)
		printf("null");
	else
		printf("%lld", idle_s);
	printf(",\"running_execs\":%llu,\"profile\":", running);
	json_put_string(stdout, rec->profile);
	if (mem < 0)
		printf(",\"memory_bytes\":null");
	else
		printf(",\"memory_bytes\":%lld", mem);
	printf(",\"workspace\":");
	json_put_string(stdout, rec->workspace);
	printf("}");
}

static bool is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help");
}

int cmd_ls(int argc, char **argv)
{
	bool json = argc >= 1 && !strcmp(argv[0], "--json");
	char dir[256];
	struct kj_err err = {0};
	struct dirent *e;
	DIR *d;
	int count = 0;

	if (argc == 1 && is_help(argv[0])) {
		printf("usage: kjail ls [--json]   your sessions: name, state, pid, age, idle, "
		       "profile, memory, workspace\n");
		return 0;
	}
	if (argc > (json ? 1 : 0))
		return kj_usage_error("usage: kjail ls [--json]",
				      "kjail ls takes only --json: '%s'", argv[json ? 1 : 0]);
	if (session_dir(dir, sizeof(dir), &err) == -ENOENT) {
		if (json)
			printf("[]\n");
		else
			printf("%-20s %-8s %8s %8s %8s %-10s %8s %s\n", "NAME", "STATE", "PID",
			       "AGE", "IDLE", "PROFILE", "MEMORY", "WORKSPACE");
		return 0;
	}
	if (err.part[0] || !(d = opendir(dir))) {
		if (!err.part[0])
			kj_fail(&err, "session", errno, NULL, "%s", dir);
		kj_err_print(&err);
		return KJ_EXIT_SETUP;
	}
	if (json)
		printf("[");
	else
		printf("%-20s %-8s %8s %8s %8s %-10s %8s %s\n", "NAME", "STATE", "PID", "AGE",
		       "IDLE", "PROFILE", "MEMORY", "WORKSPACE");
	while ((e = readdir(d))) {
		struct session_record rec;
		struct session_msg_hdr info = {0};
		char name[SESSION_NAME_MAX + 1], mem[32] = "n/a", idle[32] = "-";
		size_t l = strlen(e->d_name);
		const char *state;
		long long idle_s = -1, mem_bytes;

		if (l < 7 || strcmp(e->d_name + l - 6, ".state") || l - 6 > SESSION_NAME_MAX)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(l - 6), e->d_name);
		if (session_record_read(name, &rec, &err))
			continue;
		/* busy: the supervisor lives but the session did not answer
		 * within ask's 5 s (stopped, or its queue full); gc leaves it. */
		state = strcmp(rec.state, "running")          ? rec.state
			: !session_supervisor_alive(&rec)     ? "dead"
			: ask(name, SESSION_INFO, &info) == 0 ? "running"
							      : "busy";
		if (!strcmp(state, "running")) {
			idle_s = (long long)(info.b / 1000);
			snprintf(idle, sizeof(idle), "%llds", idle_s);
		}
		mem_bytes = memory_bytes_of(&rec);
		if (mem_bytes >= 0)
			snprintf(mem, sizeof(mem), "%.1fM", (double)mem_bytes / (1 << 20));
		if (json)
			ls_json_entry(count == 0, name, state, &rec, idle_s,
				      (unsigned long long)info.a, mem_bytes);
		else
			printf("%-20s %-8s %8d %7llds %8s %-10s %8s %s\n", name, state,
			       (int)rec.supervisor, (long long)time(NULL) - rec.created, idle,
			       rec.profile, mem, rec.workspace);
		count++;
	}
	closedir(d);
	if (json)
		printf("]\n");
	return 0;
}

/* SIGKILL through a pidfd (the pid checked to be the supervisor, by its
 * start time, after the pidfd pins it), then wait for its end; the sandbox
 * dies with it (parent-death signal), and its cgroup goes with the
 * supervisor's sweeper (cgroup_gc, after, takes one whose sweeper died). */
static int kill_supervisor(const char *name, const struct session_record *rec, struct kj_err *err)
{
	int pfd = (int)syscall(SYS_pidfd_open, rec->supervisor, 0);
	struct pollfd p;

	if (pfd < 0 || !session_supervisor_alive(rec)) {
		if (pfd >= 0)
			close(pfd);
		return 0; /* gone meanwhile */
	}
	if (syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0) < 0) {
		int e = errno;
		close(pfd);
		return kj_fail(err, "session", e, "kjail ls shows it; try again",
			       "stop '%s': kill its supervisor (pid %d)", name,
			       (int)rec->supervisor);
	}
	p = (struct pollfd){.fd = pfd, .events = POLLIN};
	(void)poll(&p, 1, 5000);
	close(pfd);
	session_forget(name);
	(void)cgroup_gc(NULL, err);
	return 0;
}

static int stop_session(const char *name, struct kj_err *err)
{
	struct session_record rec;
	struct session_msg_hdr r;

	if (session_check_name(name, err))
		return -EINVAL;
	if (session_record_read(name, &rec, err))
		return kj_fail(err, "session", 0, "kjail ls lists your sessions", "no session '%s'",
			       name);
	if (!strcmp(rec.state, "running") && session_supervisor_alive(&rec)) {
		(void)ask(name, SESSION_STOP, &r);
		/* The supervisor frees the cgroup and marks the record. */
		for (int i = 0; i < 500 && session_supervisor_alive(&rec); i++)
			usleep(10000);
		/* One that did not stop (stopped itself, or too busy to be
		 * asked) is killed: forgetting the record of a live session
		 * would leave its supervisor, init and every process of the
		 * sandbox running with no name to stop them by. */
		if (session_supervisor_alive(&rec))
			return kill_supervisor(name, &rec, err);
	} else if (!strcmp(rec.state, "running") && forget_unless_live(name, true)) {
		(void)cgroup_gc(NULL, err);
	}
	return 0;
}

int cmd_stop(int argc, char **argv)
{
	struct kj_err err = {0};

	if (argc == 1 && is_help(argv[0])) {
		printf("usage: kjail stop NAME   kill everything in session NAME; the record stays\n");
		return 0;
	}
	if (argc == 0)
		return kj_usage_error("usage: kjail stop NAME", "no NAME given");
	if (argc > 1)
		return kj_usage_error("usage: kjail stop NAME", "unexpected argument '%s'",
				      argv[1]);
	if (stop_session(argv[0], &err)) {
		kj_err_print(&err);
		return KJ_EXIT_SETUP;
	}
	return 0;
}

int cmd_rm(int argc, char **argv)
{
	struct kj_err err = {0};

	if (argc == 1 && is_help(argv[0])) {
		printf("usage: kjail rm NAME   stop session NAME if needed, and forget it\n");
		return 0;
	}
	if (argc == 0)
		return kj_usage_error("usage: kjail rm NAME", "no NAME given");
	if (argc > 1)
		return kj_usage_error("usage: kjail rm NAME", "unexpected argument '%s'", argv[1]);
	if (stop_session(argv[0], &err)) {
		struct session_record rec;
		struct kj_err ignored;

		/* No record, but a lock file nobody holds: what an `rm` killed
		 * (kill -9) between forgetting the record and removing the
		 * lock left; this rm finishes it (drop_lock leaves one a create
		 * holds). It stayed until a `kjail gc`, and this rm said only
		 * "no session". */
		if (session_check_name(argv[0], &ignored) == 0 &&
		    session_record_read(argv[0], &rec, &ignored) == -ENOENT)
			drop_lock(argv[0]);
		kj_err_print(&err);
		return KJ_EXIT_SETUP;
	}
	(void)forget_unless_live(argv[0], false);
	return 0;
}

/* A lock file with no session (left by a supervisor killed while it
 * started, or by the create of an older kjail killed before it forked
 * its supervisor): removed, unless a create holds it right now. */
static void orphan_lock_remove(const char *dir, const char *file, int namelen)
{
	char name[SESSION_NAME_MAX + 1], state[512];
	struct stat st;

	snprintf(name, sizeof(name), "%.*s", namelen, file);
	snprintf(state, sizeof(state), "%s/%s.state", dir, name);
	if (lstat(state, &st) < 0 && errno == ENOENT)
		drop_lock(name);
}

/* A socket with no session: a supervisor killed between its bind and
 * its record (or an older kjail's create killed before its fork) left
 * it, and neither rm (no record) nor the next gc saw it. Removed under
 * NAME's lock, taken as create takes it but without waiting (a create
 * holding it is mid-way: its socket is live), and only while there
 * still is no record (a session that has one is running or stopped,
 * and its socket is its supervisor's). */
static void orphan_socket_remove(const char *dir, const char *file, int namelen)
{
	char name[SESSION_NAME_MAX + 1], state[512], lockpath[512], sock[512];
	struct kj_err ignored;
	struct stat st;
	int lock;

	snprintf(name, sizeof(name), "%.*s", namelen, file);
	snprintf(state, sizeof(state), "%s/%s.state", dir, name);
	if (session_check_name(name, &ignored) || lstat(state, &st) == 0 || errno != ENOENT ||
	    session_path(lockpath, sizeof(lockpath), name, "lock", &ignored) ||
	    session_path(sock, sizeof(sock), name, "sock", &ignored) ||
	    (lock = lock_name(lockpath, false)) < 0)
		return;
	if (lstat(state, &st) < 0 && errno == ENOENT) {
		unlink(sock);
		unlink(lockpath); /* while held, as drop_lock does */
	}
	close(lock);
}

/* Sessions whose supervisor died: forget them (their processes and
 * mounts died with the supervisor, their cgroups with its sweeper; cgroup_gc
 * removes any left).
 * Lock files and sockets a killed create left go too, silently. */
int session_gc(struct kj_err *err)
{
	char dir[256];
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (session_dir(dir, sizeof(dir), err) || !(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		struct session_record rec;
		char name[SESSION_NAME_MAX + 1];
		size_t l = strlen(e->d_name);

		if (l > 5 && !strcmp(e->d_name + l - 5, ".lock") && l - 5 <= SESSION_NAME_MAX) {
			orphan_lock_remove(dir, e->d_name, (int)(l - 5));
			continue;
		}
		if (l > 5 && !strcmp(e->d_name + l - 5, ".sock") && l - 5 <= SESSION_NAME_MAX) {
			orphan_socket_remove(dir, e->d_name, (int)(l - 5));
			continue;
		}
		if (l < 7 || strcmp(e->d_name + l - 6, ".state") || l - 6 > SESSION_NAME_MAX)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(l - 6), e->d_name);
		if (session_record_read(name, &rec, err) == 0 && !strcmp(rec.state, "running") &&
		    !session_supervisor_alive(&rec) && forget_unless_live(name, true)) {
			printf("removed session %s\n", name);
			n++;
		}
	}
	closedir(d);
	return n;
}
