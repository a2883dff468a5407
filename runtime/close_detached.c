/* The last close of an inotify instance that had watches waits for
 * fsnotify's mark reaper and an SRCU grace period
 * (fsnotify_destroy_group -> fsnotify_wait_marks_destroyed): 1 to 10 ms
 * on the development VM (median 1.2 ms for one watch, 3 ms for a
 * dozen, 10 ms in one run in ten), at the end of every run with a
 * rename watch (runtime/mount_watch.c), while the caller waited for
 * kjail's exit. Here a child makes that close instead, and nobody waits
 * for it: it shares kjail's memory (CLONE_VM, no page tables copied) on
 * a stack of its own and a copy of kjail's fd table, closes every fd
 * but that one and two pipes' ends, and says so; kjail waits for that
 * word (so the child holds no fd of the caller's once kjail ends: a
 * reader of kjail's stdout sees end of file then), closes its own copy,
 * then tells the child, which makes the last close and exits. Whoever
 * closes last waits: without that order the child was often first, and
 * kjail still waited. Its exit signal is none (no SIGCHLD
 * for kjail's loops, no waitpid(-1) of kjail's reaps it); once kjail is gone it is reaped by
 * whoever inherits it. It is born with every signal blocked, so no
 * handler of kjail's runs on the memory it shares; it makes only raw
 * system calls that cannot fail, so errno, which it shares, is never
 * written. It holds nothing of the sandbox's: the sandbox has ended
 * before kjail lets go of its watch. */
#include "runtime/close_detached.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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
	unsigned fd;    /* the fd */
	unsigned go;    /* read end: kjail let go of its copy (end of file) */
	unsigned ready; /* write end: the child holds nothing else now */
};
static struct closer closer;

/* Close every fd but the three, say so, wait for kjail's word, make the
 * last close of fd. */
static int closer_main(void *arg)
{
	const struct closer *c = arg;
	unsigned keep[3] = {c->fd, c->go, c->ready}, from = 0;
	char byte = 0;

	(void)syscall(SYS_prctl, PR_SET_NAME, "kjail-close", 0, 0, 0);
	for (int i = 0; i < 3; i++) /* sorted: three compares */
		for (int j = i + 1; j < 3; j++)
			if (keep[j] < keep[i]) {
				unsigned t = keep[i];
				keep[i] = keep[j];
				keep[j] = t;
			}
	for (int i = 0; i < 3; i++) {
		if (keep[i] > from)
			(void)syscall(SYS_close_range, from, keep[i] - 1, 0u);
		from = keep[i] + 1;
	}
	(void)syscall(SYS_close_range, from, ~0u, 0u);
	(void)syscall(SYS_write, c->ready, &byte, 1);
	(void)syscall(SYS_close, c->ready);
	(void)syscall(SYS_read, c->go, &byte, 1);
	(void)syscall(SYS_close, c->fd);
	return 0;
}

void close_detached(int fd)
{
	sigset_t all, old;
	int go[2], ready[2];
	pid_t pid;
	char byte;

	if (fd < 3 || atomic_flag_test_and_set(&closer_used) || pipe2(go, O_CLOEXEC) < 0) {
		close(fd);
		return;
	}
	if (pipe2(ready, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		close(fd);
		return;
	}
	closer = (struct closer){
		.fd = (unsigned)fd, .go = (unsigned)go[0], .ready = (unsigned)ready[1]};
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
	/* Not the last close of fd when the child holds a copy; the end of
	 * the pipe then tells it to make that one. */
	close(fd);
	close(go[1]);
	close(go[0]);
}
