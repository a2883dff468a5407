/* A session's init (pid 1 inside): serves exec requests until STOP, the
 * idle timeout, or the supervisor's death.
 *
 * Threat model (README, "Sessions"): this process is the only one inside
 * the sandbox that holds the listening socket and the clients' fds. It
 * runs without capabilities and non-dumpable (no ptrace, no /proc/1/fd or
 * mem for the sandbox's processes; the seccomp filter denies ptrace too),
 * and as pid 1 of the pid namespace it ignores every signal sent from
 * inside. Each exec child keeps only the three stdio fds its own client
 * sent; the listening socket and other clients' connections are closed
 * before it executes anything.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/signals.h"
#include "runtime/channel.h"
#include "runtime/clock.h"
#include "runtime/sandbox.h"
#include "runtime/session.h"
#include "runtime/spawn.h"
#include "runtime/stdio.h"

#define MAX_CONNS 512
/* Out of file descriptors: how long the listener waits before the next
 * accept (a readable listener that cannot be accepted spun poll). */
#define ACCEPT_RETRY_MS 100

struct conn {
	int fd;
	pid_t pid; /* the exec's process (and session and group) id, or 0 */
	bool done; /* its exec was reported: closed after this round */
	/* Its client's timeout sent SIGTERM (signals.h, KJ_SIGNAL_TIMEOUT):
	 * when the command ends, what is left of it is killed. */
	bool timed_out;
};

static struct conn conns[MAX_CONNS];
static int nconns;
static long long last_activity_ms;
static long long accept_after; /* kj_mono_ms() before which no accept is tried */

static int running_execs(void)
{
	int n = 0;
	for (int i = 0; i < nconns; i++)
		n += conns[i].pid > 0;
	return n;
}

/* Signal an exec's whole tree: its process group, and every process still
 * in its session (a child that made its own process group stays in the
 * session). Processes that called setsid themselves are detached on
 * purpose (background jobs that outlive one exec) and are left alone. */
static void signal_exec(pid_t sid, int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	(void)kill(-sid, sig);
	while (d && (e = readdir(d))) {
		char path[64], buf[512], *p;
		pid_t pid = (pid_t)atoi(e->d_name);
		FILE *f;
		int fields;
		long s = 0, pg = 0;

		if (pid <= 1)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		if (!(f = fopen(path, "re")))
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		/* ") S ppid pgrp session" */
		fields = p ? sscanf(p, ") %*c %*d %ld %ld", &pg, &s) : 0;
		/* The group had it already: a second SIGTERM would run a
		 * command's trap twice. */
		if (fields == 2 && s == sid && pg != sid)
			(void)kill(pid, sig);
	}
	if (d)
		closedir(d);
}

/* A client waiting to be accepted? */
static bool pending(int listenfd)
{
	struct pollfd p = {.fd = listenfd, .events = POLLIN};

	return poll(&p, 1, 0) == 1;
}

static void drop_conn(int i)
{
	if (conns[i].pid > 0)
		signal_exec(conns[i].pid, SIGKILL); /* its client went away */
	close(conns[i].fd);
	conns[i] = conns[--nconns];
}

/* Has the client closed its end (what it sent before stays readable)? */
static bool client_gone(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLRDHUP};

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP));
}

static void reply(int fd, enum session_msg type, int value, const char *text)
{
	struct session_msg_hdr h = {.type = type, .value = value};
	/* Without the NUL (the clients end the text at its length): a message
	 * of kj_err.msg's full length (487 characters) plus its NUL overran
	 * the clients' buffers, and was taken for the session's end. */
	(void)session_send(fd, &h, text, text ? strlen(text) : 0, NULL, 0);
}

/* The exec's argv, environment and cwd, built by init before the child
 * starts (the child shares init's memory until it executes: it must not
 * allocate). argv and envp point into payload and sb->envp. */
struct exec_plan {
	char **argv, **envp;
	const char *cwd;
};

static int exec_plan_make(const struct sandbox *sb, char *payload, size_t len,
			  const struct session_msg_hdr *h, struct exec_plan *x)
{
	size_t nbase = 0, n = 0, nstr = 0;
	char *p = payload;

	/* The header's counts are the client's word: argv and env must be
	 * strings the payload holds (payload[len] is NUL), or the walks
	 * below would read past it, in init. */
	for (size_t off = 0; off < len; off += strlen(payload + off) + 1)
		nstr++;
	if (h->nargv > nstr || h->nenv > nstr - h->nargv) {
		errno = EINVAL;
		return -1;
	}
	for (char **q = sb->envp; *q; q++)
		nbase++;
	x->argv = calloc(h->nargv + 1, sizeof(char *));
	x->envp = calloc(nbase + h->nenv + 1, sizeof(char *));
	x->cwd = NULL;
	if (!x->argv || !x->envp) {
		free(x->argv);
		free(x->envp);
		errno = ENOMEM;
		return -1;
	}
	for (uint32_t i = 0; i < h->nargv; i++, p += strlen(p) + 1)
		x->argv[i] = p;
	for (size_t i = 0; i < nbase; i++)
		x->envp[n++] = sb->envp[i];
	for (uint32_t i = 0; i < h->nenv; i++, p += strlen(p) + 1) {
		size_t k = strcspn(p, "=");
		size_t j;
		for (j = 0; j < n; j++)
			if (!strncmp(x->envp[j], p, k + 1))
				break;
		x->envp[j] = p;
		n += j == n;
	}
	if (p < payload + len && *p)
		x->cwd = p;
	return 0;
}

/* The workspace's bind as init found it when the session became ready:
 * its mount and inode, to tell it from whatever a path lookup finds later. */
static struct workspace_id {
	bool known;
	uint64_t mnt_id;
	uint64_t ino;
} workspace_seen;

static void workspace_remember(const char *dest)
{
	struct statx st;

	if (statx(AT_FDCWD, dest, 0, STATX_INO | STATX_MNT_ID, &st) == 0 &&
	    (st.stx_mask & STATX_MNT_ID))
		workspace_seen = (struct workspace_id){true, st.stx_mnt_id, st.stx_ino};
}

/* True when DEST is no longer the session's workspace: gone, deleted, or
 * another directory (the host's new one, seen through the read-only root). */
static bool workspace_replaced(const char *dest)
{
	struct statx st;

	if (statx(AT_FDCWD, dest, 0, STATX_INO | STATX_NLINK | STATX_MNT_ID, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR;
	if (st.stx_nlink == 0)
		return true;
	return workspace_seen.known && (st.stx_mask & STATX_MNT_ID) &&
	       (st.stx_mnt_id != workspace_seen.mnt_id || st.stx_ino != workspace_seen.ino);
}

/* In the exec's child: become the requested command, or report why not.
 * Only system calls and stack buffers here: init's memory is shared until
 * execve (exec_start), and init waits. */
__attribute__((noreturn)) static void exec_child(const struct sandbox *sb, int connfd,
						 const struct exec_plan *x, const int *fds)
{
	const struct kj_config *cfg = sb->cfg;
	struct kj_err err = {0};
	sigset_t none;
	int e;

	setsid();
	/* The host's /dev/null (and the like) handed in: reopened from the
	 * sandbox's read-only /dev (runtime/stdio.c says why). Said, as every
	 * failure here is: a silent 125 left the client with nothing to go
	 * on (init out of file descriptors). */
	for (int i = 0; i <= 3; i++) {
		e = i < 3 ? (fds[i] != i && dup2(fds[i], i) < 0 ? errno : 0)
			  : (stdio_reopen_nodes() < 0 ? errno : 0);
		if (e) {
			kj_fail(&err, "session", e,
				"fewer commands at once in the session, or a higher ulimit -n at "
				"kjail create",
				"give the command its stdin, stdout and stderr");
			reply(connfd, SESSION_FAILED, KJ_EXIT_SETUP, err.msg);
			_exit(KJ_EXIT_SETUP);
		}
	}
	/* The workspace removed (or renamed) on the host since create. Where
	 * its DEST is the host's own directory seen through the read-only
	 * root, the kernel detaches the session's bind when the host removes
	 * it: a new directory of that name is then the host's, read-only, and
	 * a command ran there (exit 0) with nothing it wrote reaching the
	 * host, or, renamed, cd failed with ENOENT. Under the sandbox's own
	 * /tmp the bind holds the old, deleted directory. Said, not run. */
	if (workspace_replaced(cfg->workspace.dest)) {
		kj_fail(&err, "workspace", 0, "kjail rm the session, then create it anew",
			"%s was removed or renamed on the host after the session was made",
			cfg->workspace.src);
		reply(connfd, SESSION_FAILED, KJ_EXIT_SETUP, err.msg);
		_exit(KJ_EXIT_SETUP);
	}
	/* --cwd: absolute inside the sandbox, or relative to the workspace. */
	if (chdir(cfg->workspace.dest) < 0 || (x->cwd && chdir(x->cwd) < 0)) {
		kj_fail(&err, "cwd", errno, "give a directory that exists inside the sandbox",
			"cd %s", x->cwd ? x->cwd : cfg->workspace.dest);
		reply(connfd, SESSION_FAILED, KJ_EXIT_SETUP, err.msg);
		_exit(KJ_EXIT_SETUP);
	}
	/* The walls (Landlock, seccomp) are init's already and inherited.
	 * Only the client's stdio and its own connection (close-on-exec, to
	 * report an exec failure) survive: no other client's fd, not the
	 * listening socket. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	command_close_fds(connfd);
	e = exec_search(x->argv, x->envp);
	kj_exec_fail(&err, e, x->argv[0]);
	reply(connfd, SESSION_FAILED, err.exit_code, err.msg);
	_exit(err.exit_code);
}

struct exec_args {
	const struct sandbox *sb;
	int connfd;
	const struct exec_plan *x;
	const int *fds;
};

static int exec_trampoline(void *arg)
{
	const struct exec_args *a = arg;

	exec_child(a->sb, a->connfd, a->x, a->fds);
}

/* The child shares init's memory until it executes (runtime/spawn.c). */
static pid_t exec_start(const struct sandbox *sb, int connfd, char *payload, size_t len,
			const struct session_msg_hdr *h, const int *fds)
{
	struct exec_plan x;
	struct exec_args a = {.sb = sb, .connfd = connfd, .x = &x, .fds = fds};
	pid_t pid;

	if (exec_plan_make(sb, payload, len, h, &x) < 0)
		return -1;
	pid = spawn_shared(exec_trampoline, &a);
	free(x.argv);
	free(x.envp);
	return pid;
}

static void handle_request(struct sandbox *sb, int i)
{
	static char payload[SESSION_MSG_MAX];
	struct session_msg_hdr h;
	size_t len = sizeof(payload) - 1;
	int fds[3], nfds = 0, rc;
	pid_t pid;

	rc = session_recv(conns[i].fd, &h, payload, &len, fds, &nfds);
	if (rc < 0) {
		for (int k = 0; k < nfds; k++)
			close(fds[k]);
		drop_conn(i);
		return;
	}
	payload[len] = '\0';
	switch (h.type) {
	case SESSION_EXEC:
		/* Only an exec is activity: a `kjail ls` (INFO) that counted
		 * kept every session it looked at alive, idle 0 s, forever. */
		last_activity_ms = kj_mono_ms();
		if (nfds != 3 || h.nargv == 0 || conns[i].pid || conns[i].done) {
			/* Both replies, as for every refused exec: a client
			 * waits for the exit status. */
			reply(conns[i].fd, SESSION_FAILED, KJ_EXIT_SETUP, "malformed exec request");
			reply(conns[i].fd, SESSION_EXITED, KJ_EXIT_SETUP, NULL);
			break;
		}
		{
			/* Checked here too: the client is another process. */
			struct kj_err bad = {0};
			int k;
			for (k = 0; k < 3 && !stdio_fd_check(fds[k], "a stdio fd", &bad); k++)
				;
			/* A socket would bring the host's network namespace in,
			 * a terminal TIOCSTI's target, a file its host inode:
			 * kjail's clients relay those through pipes, and a
			 * client of another making is held to the same. */
			if (k == 3)
				for (k = 0; k < 3 && stdio_fd_plain(fds[k]); k++)
					;
			if (k < 3 && !bad.msg[0])
				snprintf(bad.msg, sizeof(bad.msg),
					 "stdio fd %d is not a pipe or /dev/null (kjail's client "
					 "relays sockets, terminals and files)",
					 k);
			if (k < 3) {
				reply(conns[i].fd, SESSION_FAILED, KJ_EXIT_SETUP, bad.msg);
				reply(conns[i].fd, SESSION_EXITED, KJ_EXIT_SETUP, NULL);
				break;
			}
		}
		/* A client that hung up before init read its request (it gave
		 * up on an init that did not serve: stopped, wedged; session.h,
		 * SESSION_DEAF_MS) told its caller the command did not run:
		 * running it now, with no one to report to, would be a command
		 * the caller believes cancelled. */
		if (client_gone(conns[i].fd)) {
			for (int k = 0; k < nfds; k++)
				close(fds[k]);
			drop_conn(i);
			return;
		}
		pid = exec_start(sb, conns[i].fd, payload, len, &h, fds);
		if (pid < 0) {
			/* Both replies: a client given only the first waited for
			 * an exit status that never came. */
			char why[160];
			int e = errno;
			snprintf(why, sizeof(why), "start the command: %s (%s)", strerror(e),
				 e == EAGAIN ? "the session is at its --pids limit: let a command "
					       "end, or create the session with a higher --pids"
					     : "kjail ls shows the session");
			reply(conns[i].fd, SESSION_FAILED, KJ_EXIT_SETUP, why);
			reply(conns[i].fd, SESSION_EXITED, KJ_EXIT_SETUP, NULL);
		} else
			conns[i].pid = pid;
		break;
	case SESSION_SIGNAL:
		if (conns[i].pid > 0 && h.value > 0 && h.value < 65) {
			conns[i].timed_out |= h.a == KJ_SIGNAL_TIMEOUT;
			signal_exec(conns[i].pid, h.value);
			/* As init does for a one-shot run: a stopped command sees
			 * SIGTERM (INT, HUP, QUIT) only once it runs again. */
			if (kj_sig_ends(h.value))
				signal_exec(conns[i].pid, SIGCONT);
		}
		break;
	case SESSION_INFO: {
		struct session_msg_hdr r = {.type = SESSION_REPLY};
		r.a = (uint64_t)running_execs();
		r.b = (uint64_t)(kj_mono_ms() - last_activity_ms);
		(void)session_send(conns[i].fd, &r, NULL, 0, NULL, 0);
		break;
	}
	case SESSION_STOP:
		reply(conns[i].fd, SESSION_REPLY, 0, NULL);
		_exit(0); /* the pid namespace, and everything in it, goes */
	default:
		break;
	}
	for (int k = 0; k < nfds; k++)
		close(fds[k]);
}

static void reap(void)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		for (int i = 0; i < nconns; i++)
			if (conns[i].pid == pid) {
				/* --timeout kills the command's process group and
				 * session (README, "Sessions"), as a one-shot run's end
				 * takes its pid namespace down: a process that ignored
				 * the SIGTERM outlived a leader that died of it, and
				 * the client's SIGKILL after the grace came only while
				 * the leader lived. The group and session keep their id
				 * while a member lives, so it names no other's yet. */
				if (conns[i].timed_out)
					signal_exec(pid, SIGKILL);
				reply(conns[i].fd, SESSION_EXITED, exit_code_of(st), NULL);
				conns[i].pid = 0;
				/* The client needs nothing more from this connection:
				 * closing it now spares init a wake-up when the client
				 * exits (it reads what was sent before the close). */
				conns[i].done = true;
				last_activity_ms = kj_mono_ms();
			}
}

/* Close the connections whose exec was reported (after the round that
 * reported it, so no index of that round's poll moves under it). */
static void sweep(void)
{
	for (int i = nconns - 1; i >= 0; i--)
		if (conns[i].done) {
			close(conns[i].fd);
			conns[i] = conns[--nconns];
		}
}

void session_serve(struct sandbox *sb, int listenfd)
{
	struct pollfd pfd[MAX_CONNS + 4];
	uint64_t idle = sb->cfg->idle_timeout_ms;
	sigset_t set;
	int sfd, tfd;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (sfd < 0 || tfd < 0)
		_exit(KJ_EXIT_SETUP);
	if (idle) {
		/* Check for idleness a few times per idle period. */
		uint64_t tick = idle / 4 ? idle / 4 : 1;
		struct itimerspec its = {
			.it_value = {.tv_sec = (time_t)(tick / 1000),
				     .tv_nsec = (long)(tick % 1000) * 1000000L},
			.it_interval = {.tv_sec = (time_t)(tick / 1000),
					.tv_nsec = (long)(tick % 1000) * 1000000L},
		};
		timerfd_settime(tfd, 0, &its, NULL);
	}
	last_activity_ms = kj_mono_ms();
	workspace_remember(sb->cfg->workspace.dest);
	/* A session's init puts the command walls (Landlock, the seccomp
	 * filter) on itself, once: every exec child inherits them, so an
	 * exec pays for neither. init needs nothing they deny. */
	{
		struct kj_err err = {0};
		command_signals_default();
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (command_walls(sb, &err)) {
			(void)channel_send_err(sb->chan[1], &err);
			_exit(KJ_EXIT_SETUP);
		}
	}
	/* Ready: closing the setup channel tells the supervisor so. */
	close(sb->chan[1]);
	for (;;) {
		int n = 0;
		pfd[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = sb->ctl[0], .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = tfd, .events = POLLIN};
		long long wait = accept_after - kj_mono_ms();
		pfd[n++] = (struct pollfd){.fd = nconns < MAX_CONNS && wait <= 0 ? listenfd : -1,
					   .events = POLLIN};
		for (int i = 0; i < nconns; i++)
			pfd[n++] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
		if (poll(pfd, (nfds_t)n, wait > 0 ? (int)wait : -1) < 0 && errno != EINTR)
			_exit(KJ_EXIT_SETUP);
		if (pfd[0].revents) {
			struct signalfd_siginfo si;
			(void)!read(sfd, &si, sizeof(si));
			reap();
		}
		if (pfd[1].revents) {
			unsigned char msg[2];
			if (read(sb->ctl[0], msg, sizeof(msg)) <= 0)
				_exit(0); /* the supervisor is gone: so is the session */
			if (msg[0] == INIT_TO_ALL)
				(void)kill(-1, msg[1]);
		}
		if (pfd[2].revents) {
			uint64_t ticks;
			(void)!read(tfd, &ticks, sizeof(ticks));
			/* Not with a client connected or waiting to be: its exec
			 * would be lost (an `exec --create` that found the
			 * session running failed with 125). */
			if (idle && running_execs() == 0 && nconns == 0 && !pending(listenfd) &&
			    kj_mono_ms() - last_activity_ms >= (long long)idle)
				_exit(0);
		}
		if (pfd[3].revents) {
			/* Non-blocking: a client that never reads its replies
			 * loses them, and no longer stalls init for every other.
			 * Out of fds (EMFILE), the listener stays readable: it is
			 * left out of poll for a while, not spun on. */
			int c = accept4(listenfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (c >= 0)
				conns[nconns++] = (struct conn){.fd = c};
			else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
				 errno == ENOMEM)
				accept_after = kj_mono_ms() + ACCEPT_RETRY_MS;
		}
		/* Walk backwards: handling may drop (swap-remove) a connection. */
		for (int i = n - 5; i >= 0; i--)
			if (i < nconns && pfd[4 + i].revents)
				handle_request(sb, i);
		sweep();
	}
}
