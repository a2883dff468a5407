/* escape_clone3: clone3(2) with CLONE_NEWUSER: the flags sit in a struct
 * in memory, where a seccomp filter cannot read them, so a filter that
 * allowed clone3 would let namespaces through. */
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "escape.h"

int main(void)
{
	struct clone_args args = {
		.flags = CLONE_NEWUSER | CLONE_NEWNS,
		.exit_signal = SIGCHLD,
	};
	long pid = syscall(SYS_clone3, &args, sizeof(args));

	if (pid < 0)
		CONTAINED("clone3(CLONE_NEWUSER|CLONE_NEWNS): %s", errname(errno));
	if (pid == 0)
		_exit(0);
	waitpid((pid_t)pid, NULL, 0);
	ESCAPED("clone3(CLONE_NEWUSER|CLONE_NEWNS) made a child in new namespaces");
}
