/* A child that shares its parent's memory until execve, on a stack of its
 * own (CLONE_VM | CLONE_VFORK): the parent's page tables are not copied,
 * and neither side takes a copy-on-write fault for every page it touches
 * afterwards. The sandbox's init starts COMMAND (and a session's init
 * every exec) this way: for a one-shot /bin/true that is most of the cost
 * of the fork (README, "Measured"). */
#include "runtime/spawn.h"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

pid_t spawn_shared(int (*fn)(void *), void *arg)
{
	/* One stack serves every child: the parent waits until the child has
	 * executed (or exited), so two never use it at once. */
	static char stack[128 * 1024] __attribute__((aligned(16)));
	pid_t pid;

#if KJ_ASAN
	(void)stack; /* spawn.h: KJ_ASAN */
	pid = fork();
	if (pid == 0)
		_exit(fn(arg));
#else
	pid = clone(fn, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, arg);
#endif
	return pid;
}
