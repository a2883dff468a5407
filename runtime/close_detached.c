/* Two last closes at the end of every run are slow, and the caller
 * waited for them as kjail's exit (runtime/mount_watch.c holds both fds):
 * - the rename watch, an inotify instance with watches, waits for
 *   fsnotify's mark reaper and an SRCU grace period
 *   (fsnotify_destroy_group -> fsnotify_wait_marks_destroyed): 1 to 10
 *   ms on the development VM (median 1.2 ms for one watch, 3 ms for a
 *   dozen, 10 ms in one run in ten);
 * - the sandbox's /proc/self/mountinfo holds its mount namespace once
 *   init has exited: its close unmounts the whole tree and waits for an
 *   RCU grace period (put_mnt_ns -> namespace_unlock), 0.22-0.38 ms,
 *   median 0.29 ms.
 * Here a child makes those closes instead, and nobody waits for it. So
 * the sandbox's mounts go a moment after kjail's exit, not before it: by
 * then no process of the sandbox's is left, and an fd of a mountinfo file
 * lets nobody enter the namespace it holds.
 *
 * The child shares kjail's memory (CLONE_VM, no page tables copied) on
 * a stack of its own and a copy of kjail's fd table, closes every fd
 * but those and two pipes' ends, and says so; kjail waits for that word
 * (so the child holds no fd of the caller's once kjail ends: a reader of
 * kjail's stdout sees end of file then), closes its own copies, then
 * tells the child, which makes the last closes and exits. Whoever
 * closes last waits: without that order the child was often first, and
 * kjail still waited. Its exit signal is none (no SIGCHLD for kjail's
 * loops, no waitpid(-1) of kjail's reaps it); once kjail is gone it is
 * reaped by whoever inherits it. It is born with every signal blocked, so no
 * handler of kjail's runs on the memory it shares; it makes only raw
 * system calls that cannot fail, so errno, which it shares, is never
 * written. It holds nothing of the sandbox's but those fds: every
 * process of the sandbox has ended before kjail lets go of them.
 *
 * Made at the end, not kept from the start of a run: a closer born
 * before the sandbox and waiting for the fds over a socket was measured
 * slower (0.1-0.2 ms per run, interleaved): a second process sharing
 * kjail's memory all through the set-up costs more than its clone. */
#include "runtime/close_detached.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/spawn.h"

#define CLOSER_STACK (16 * 1024)

#if !KJ_ASAN
/* Used by one child only, for its whole life: never freed or reused. */
static char closer_stack[CLOSER_STACK] __attribute__((aligned(64)));
#endif
static atomic_flag closer_used = ATOMIC_FLAG_INIT;

struct closer {
	unsigned fds[CLOSE_DETACHED_MAX];
	unsigned n;
	unsigned go;    /* read end: kjail let go of its copies (end of file) */
	unsigned ready; /* write end: the child holds nothing else now */
};
static struct closer closer;

/* Close every fd but the ones to keep, say so, wait for kjail's word,
 * make the last closes. */
static int closer_main(void *arg)
{
	const struct closer *c = arg;
	unsigned keep[CLOSE_DETACHED_MAX + 2], nkeep = c->n + 2, from = 0;
	char byte = 0;

	(void)syscall(SYS_prctl, PR_SET_NAME, "kjail-close", 0, 0, 0);
	for (unsigned i = 0; i < c->n; i++)
		keep[i] = c->fds[i];
	keep[c->n] = c->go;
	keep[c->n + 1] = c->ready;
	for (unsigned i = 0; i < nkeep; i++) /* sorted: a few compares */
		for (unsigned j = i + 1; j < nkeep; j++)
			if (keep[j] < keep[i]) {
				unsigned t = keep[i];
				keep[i] = keep[j];
				keep[j] = t;
			}
	for (unsigned i = 0; i < nkeep; i++) {
		if (keep[i] > from)
			(void)syscall(SYS_close_range, from, keep[i] - 1, 0u);
		from = keep[i] + 1;
	}
	(void)syscall(SYS_close_range, from, ~0u, 0u);
	(void)syscall(SYS_write, c->ready, &byte, 1);
	(void)syscall(SYS_close, c->ready);
	(void)syscall(SYS_read, c->go, &byte, 1);
	for (unsigned i = 0; i < c->n; i++)
		(void)syscall(SYS_close, c->fds[i]);
	return 0;
}

static void close_all(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

void close_detached(const int *fds, size_t n)
{
	struct closer c = {0};
	sigset_t all, old;
	int go[2], ready[2];
	pid_t pid;
	char byte;
	bool other = false;

	/* Gathered apart: the shared closer is the child's once it runs. */
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 3 && c.n < CLOSE_DETACHED_MAX)
			c.fds[c.n++] = (unsigned)fds[i];
		else if (fds[i] >= 0)
			other = true;
	if (!c.n && !other)
		return; /* nothing to close: the child stays for a later call */
	if (other || atomic_flag_test_and_set(&closer_used) || pipe2(go, O_CLOEXEC) < 0) {
		close_all(fds, n);
		return;
	}
	if (pipe2(ready, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		close_all(fds, n);
		return;
	}
	c.go = (unsigned)go[0];
	c.ready = (unsigned)ready[1];
	closer = c;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
#if KJ_ASAN
	/* spawn.h: KJ_ASAN */
	pid = fork();
	if (pid == 0)
		_exit(closer_main(&closer));
#else
	pid = clone(closer_main, closer_stack + CLOSER_STACK, CLONE_VM, &closer);
#endif
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(ready[1]);
	/* Its copies of the caller's fds are closed once it speaks (or it
	 * never started: end of file), so kjail's end still ends them. */
	if (pid > 0)
		while (read(ready[0], &byte, 1) < 0 && errno == EINTR)
			;
	close(ready[0]);
	/* Not the last closes when the child holds copies; the end of the
	 * pipe then tells it to make those. */
	close_all(fds, n);
	close(go[1]);
	close(go[0]);
}
