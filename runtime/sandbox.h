/* One run of a sandbox: the parent's view and the child's recipe. */
#ifndef KJAIL_SANDBOX_H
#define KJAIL_SANDBOX_H

#include <sys/types.h>

#include "runtime/cgroup.h"
#include "runtime/config.h"
#include "runtime/error.h"
#include "runtime/mount_watch.h"
#include "runtime/seccomp.h"
#include "runtime/stdio.h"

/* Commands from the parent to the sandbox's init (pid 1), two bytes each. */
#define INIT_TO_COMMAND 'C' /* forward signal to COMMAND's process group */
#define INIT_TO_ALL 'A'     /* send signal to every process in the sandbox */

struct git_after; /* mounts/git_after.h */

struct sandbox {
	const struct kj_config *cfg;
	char **envp;
	struct kj_seccomp_prog *seccomp;
	int landlock_abi; /* 0: no Landlock for this run (landlock_plan) */
	struct stdio_plan io;
	int chan[2]; /* socketpair: [0] parent, [1] setup child */
	int ctl[2];  /* pipe parent -> init: [0] init reads, [1] parent writes */
	int netgo;   /* eventfd: the parent's "maps written" to the netns thread */
	pid_t pid;   /* the sandbox's init, as the parent sees it */
	int pidfd;
	struct kj_cgroup *cg;      /* NULL: no limits */
	struct kj_proxy *proxy;    /* --net proxy: the host-side proxy (net/proxy.h) */
	int session_listen;        /* a session's listening socket; -1: one-shot */
	int proxy_fd;              /* the relay's end of its socketpair; -1: none */
	struct mount_watch mounts; /* the sandbox's mount table, polled */
	bool timed_out;
	bool mounts_lost; /* the host took a mount away: killed for it */
};

/* Parent: everything from preparing to the exit status. */
int sandbox_run(const struct kj_config *cfg, struct kj_err *err);

/* Parent: prepare, clone and set up a sandbox until COMMAND runs (or, with
 * session_listen >= 0, until its init serves that socket). git: the
 * workspace's git, whose guardian (mounts/git_guard.c) is told of init before
 * COMMAND can start, or -1. On failure everything is released and err
 * filled. */
int sandbox_start(struct sandbox *sb, const struct kj_config *cfg, int session_listen,
		  struct git_after *git, struct kj_err *err);
void sandbox_kill(struct sandbox *sb);
/* Stop the proxy, remove the cgroup, close the pidfd. */
void sandbox_release(struct sandbox *sb);

/* Command side: execute argv like a shell would (returns the errno). */
int exec_search(char **argv, char **envp);
/* Command side, the last steps before exec: every signal at its default
 * and unblocked; only fds 0-2 (and keep_fd, -1 for none) left open; then
 * the walls: Landlock and the seccomp filter. */
void command_signals_default(void);
void command_close_fds(int keep_fd);
int command_walls(struct sandbox *sb, struct kj_err *err);

/* Child: build the sandbox, start COMMAND, become its init. Never returns. */
__attribute__((noreturn)) void sandbox_child(struct sandbox *sb);

/* Init (pid 1): reap, forward, exit with COMMAND's status. Never returns. */
__attribute__((noreturn)) void init_run(int ctl, pid_t command);
/* A wait status as a shell reports it: the exit code, or 128+N for
 * signal N. */
int exit_code_of(int wait_status);

/* Parent: block the signals the supervisor forwards (before clone). */
void supervise_block_signals(void);

/* Parent: relay, time out, forward signals; returns the exit status. */
int supervise(struct sandbox *sb);

#endif
