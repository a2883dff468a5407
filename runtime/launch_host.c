/* isolation none (the host profile): COMMAND runs on the host, as the
 * caller, with no namespace, no seccomp and no mount of kjail's. What it
 * still gets: the scrubbed environment, its own session and process group
 * (no controlling terminal, so no TIOCSTI into the caller's), the timeout
 * and kill grace, capped output, and cgroup limits where they can be had.
 *
 *   kjail     supervise(): relay, timeout, signals
 *   └ keeper  stands in for the sandbox's init: forwards signals, reaps,
 *     │       kills whatever COMMAND leaves behind
 *     └ COMMAND, in a new session
 *
 * With no pid namespace, nothing makes a whole tree die at once; kjail and
 * the keeper are child subreapers, so a descendant that daemonizes is
 * re-parented to one of them (not to the host's init) and killed at the
 * end. The keeper outlives a SIGKILLed kjail (the end of file on its
 * control pipe says so) and kills the tree then. A process that escapes
 * the keeper too (one forking faster than it kills, for its second of
 * trying) is the outer boundary's to contain.
 */
#include "runtime/launch_host.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/channel.h"
#include "runtime/env.h"
#include "runtime/sandbox.h"
#include "runtime/signals.h"

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
		set_tid_size, cgroup;
};

/* Send sig to every descendant of pid (through /proc/PID/task/TID/children)
 * but spare (the cgroup leaf's sweeper, which must outlive a SIGKILLed
 * kjail); returns how many were signalled. */
static int signal_descendants(pid_t pid, int sig, int depth, pid_t spare)
{
	char path[64], buf[4096];
	struct dirent *t;
	DIR *d;
	int n = 0;

	if (depth > 64)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return 0;
	while ((t = readdir(d))) {
		FILE *f;
		size_t len;

		if (t->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children", (int)pid, t->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = '\0';
		for (char *s = buf, *end; *s; s = end) {
			long c = strtol(s, &end, 10);
			if (end == s)
				break;
			if (c <= 0 || c == spare)
				continue;
			if (kill((pid_t)c, sig) == 0)
				n++;
			n += signal_descendants((pid_t)c, sig, depth + 1, spare);
		}
	}
	closedir(d);
	return n;
}

/* SIGKILL every descendant of ours until none is left (reaping those that
 * were re-parented to us), for at most about a second. */
static void kill_descendants(pid_t spare)
{
	struct timespec ts = {0, 2000000};

	for (int round = 0; round < 500; round++) {
		int n = signal_descendants(getpid(), SIGKILL, 0, spare);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (n == 0)
			return;
		nanosleep(&ts, NULL);
	}
}

__attribute__((noreturn)) static void run_command(struct sandbox *sb)
{
	const struct kj_config *cfg = sb->cfg;
	struct kj_err err = {0};
	int e;

	/* A session of its own: no controlling terminal of the caller's to
	 * inject input into (TIOCSTI, CVE-2017-5226). */
	if (setsid() < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
	    stdio_child_install(&sb->io, -1) < 0 || chdir(cfg->workspace.src) < 0) {
		kj_fail(&err, "launch", errno, NULL, "start COMMAND");
		(void)channel_send_err(sb->chan[1], &err);
		_exit(KJ_EXIT_SETUP);
	}
	/* --cwd as the sandbox reads it: absolute, or relative to the
	 * workspace; a missing one fails the same way, never runs elsewhere. */
	if (cfg->cwd && chdir(cfg->cwd) < 0) {
		kj_fail(&err, "cwd", errno, "give a directory that exists inside the sandbox",
			"chdir %s", cfg->cwd);
		(void)channel_send_err(sb->chan[1], &err);
		_exit(KJ_EXIT_SETUP);
	}
	/* As in a sandbox: no ignored signal of the caller's leaks in. */
	command_signals_default();
	/* Only 0, 1 and 2 reach the command; the channel is close-on-exec. */
	if (sb->chan[1] > 3)
		syscall(SYS_close_range, 3, sb->chan[1] - 1, 0);
	syscall(SYS_close_range, sb->chan[1] + 1, ~0U, 0);
	/* The sandbox's search (runtime/child.c), not execvp: execvp answers
	 * EACCES when a PATH directory cannot be searched (~/.cargo/bin in
	 * root's PATH, for another user), so a command found nowhere was
	 * 126 "Permission denied" here and 127 in every other sandbox. */
	e = exec_search(cfg->argv, sb->envp);
	kj_exec_fail(&err, e, cfg->argv[0]);
	(void)channel_send_err(sb->chan[1], &err);
	_exit(err.exit_code);
}

/* The keeper speaks init's protocol (INIT_TO_COMMAND, INIT_TO_ALL) so
 * supervise() works unchanged; "all" is our descendants, never kill(-1). */
__attribute__((noreturn)) static void keeper(struct sandbox *sb, pid_t parent)
{
	struct pollfd pfd[2];
	sigset_t chld;
	pid_t command;

	close(sb->chan[0]);
	close(sb->ctl[1]);
	if (cgroup_fd(sb->cg) >= 0)
		close(cgroup_fd(sb->cg));
	/* No parent-death signal: kjail's end, kill -9 included, is the end
	 * of file on ctl, and the keeper kills what COMMAND started before
	 * it goes (killed with kjail, it left them running, re-parented to
	 * the host's init). */
	if (getppid() != parent)
		_exit(KJ_EXIT_SETUP);
	/* Out of kjail's process group before COMMAND exists: kill -9 of
	 * that group (kill -9 %1, kill -9 -PGID, a harness's killpg) killed
	 * the keeper with kjail, and COMMAND's tree, in a session of its own,
	 * ran on under the host's init. A kill that comes before this finds
	 * no COMMAND to leave behind. */
	if (setpgid(0, 0) < 0)
		_exit(KJ_EXIT_SETUP);
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	command = fork();
	if (command == 0)
		run_command(sb);
	close(sb->chan[1]);
	for (int i = 0; i < 3; i++)
		if (sb->io.child_only[i] >= 0)
			close(sb->io.child_only[i]);
	if (command < 0)
		_exit(KJ_EXIT_SETUP);
	pfd[0] = (struct pollfd){.fd = signalfd(-1, &chld, SFD_CLOEXEC), .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = sb->ctl[0], .events = POLLIN};
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents) {
			struct signalfd_siginfo si;
			int st;
			pid_t p;
			(void)!read(pfd[0].fd, &si, sizeof(si));
			while ((p = waitpid(-1, &st, WNOHANG)) > 0)
				if (p == command) {
					kill_descendants(0); /* what COMMAND left behind */
					_exit(exit_code_of(st));
				}
		}
		if (pfd[1].revents) {
			unsigned char msg[2];
			if (read(sb->ctl[0], msg, sizeof(msg)) != 2)
				break; /* kjail is gone */
			/* As the sandbox's init does (runtime/init.c): an ending
			 * signal, then SIGCONT, or a command that stopped itself
			 * never sees it. */
			for (int k = 0; k < (kj_sig_ends(msg[1]) ? 2 : 1); k++) {
				int sig = k ? SIGCONT : msg[1];
				(void)kill(-command, sig);
				if (msg[0] == INIT_TO_ALL)
					(void)signal_descendants(getpid(), sig, 0, 0);
			}
		}
	}
	kill_descendants(0);
	_exit(KJ_EXIT_SETUP);
}

/* Until COMMAND is executed (end of file on the channel). */
static int await_start(struct sandbox *sb, struct kj_err *err)
{
	struct kj_err child_err;
	int fd = -1, t;

	while ((t = channel_recv(sb->chan[0], &child_err, &fd, NULL)) != 0) {
		if (t < 0)
			return kj_fail(err, "launch", -t, NULL, "read from the keeper");
		if (t == CHANNEL_ERROR && child_err.exit_code != KJ_EXIT_SETUP) {
			kj_err_print(&child_err); /* 126, 127: like a shell */
			continue;
		}
		if (t == CHANNEL_ERROR) {
			*err = child_err;
			return -EINVAL;
		}
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

int sandbox_run_host(const struct kj_config *given, struct kj_err *err)
{
	struct kj_config cfg = *given;
	/* No mounts, nothing to watch: fd 0 there was the caller's stdin,
	 * read as a mount table (a pipe on stdin killed the run, 137). */
	struct sandbox sb = {.cfg = &cfg,
			     .chan = {-1, -1},
			     .ctl = {-1, -1},
			     .pidfd = -1,
			     .mounts = MOUNT_WATCH_NONE};
	struct clone3_args args = {.flags = CLONE_PIDFD, .exit_signal = SIGCHLD};
	pid_t parent = getpid();
	int rc;

	if (!cfg.quiet)
		kj_note("%s: no isolation, the environment is the boundary",
			cfg.profile && !strcasecmp(cfg.profile, "host") ? "profile host"
									: "isolation none");
	/* No devpts of our own for a terminal: a terminal on stdin is relayed
	 * through a pipe instead (config.c refuses --tty here). */
	cfg.tty = KJ_TTY_OFF;
	if (env_build(&cfg, &sb.envp, err) || stdio_plan_make(&cfg, &sb.io, err) ||
	    cgroup_prepare(&cfg, &sb.cg, err))
		return KJ_EXIT_SETUP;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sb.chan) < 0 ||
	    pipe2(sb.ctl, O_CLOEXEC) < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		kj_fail(err, "launch", errno, NULL, "prepare the keeper");
		cgroup_destroy(sb.cg);
		return KJ_EXIT_SETUP;
	}
	/* Signals meant for COMMAND must not kill kjail before supervise()
	 * reads them (the keeper's child clears its mask before exec). */
	supervise_block_signals();
	args.pidfd = (uint64_t)(uintptr_t)&sb.pidfd;
	if (cgroup_fd(sb.cg) >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (uint64_t)cgroup_fd(sb.cg);
	}
	sb.pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	if (sb.pid < 0) {
		kj_fail(err, "launch", errno, NULL, "start the keeper");
		cgroup_destroy(sb.cg);
		return KJ_EXIT_SETUP;
	}
	if (sb.pid == 0)
		keeper(&sb, parent);
	close(sb.chan[1]);
	close(sb.ctl[0]);
	stdio_parent_close_child_ends(&sb.io);
	if (await_start(&sb, err)) {
		stdio_restore(&sb.io);
		(void)syscall(SYS_pidfd_send_signal, sb.pidfd, SIGKILL, NULL, 0);
		kill_descendants(cgroup_sweeper_pid(sb.cg));
		cgroup_destroy(sb.cg);
		return KJ_EXIT_SETUP;
	}
	close(sb.chan[0]);
	rc = supervise(&sb);
	/* Anything re-parented to us after the keeper died. */
	kill_descendants(cgroup_sweeper_pid(sb.cg));
	stdio_restore(&sb.io);
	relay_report(&sb.io);
	if (!sb.timed_out)
		cgroup_report(sb.cg, &cfg, &rc);
	cgroup_destroy(sb.cg);
	return rc;
}
