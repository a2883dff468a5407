/* escape_clone: clone(2) with CLONE_NEWUSER|CLONE_NEWNS, the fork-style
 * way around a filter that only looks at unshare(2). */
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "escape.h"

int main(void)
{
	long pid = syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0);

	if (pid < 0)
		CONTAINED("clone(CLONE_NEWUSER|CLONE_NEWNS): %s", errname(errno));
	if (pid == 0)
		_exit(0);
	waitpid((pid_t)pid, NULL, 0);
	ESCAPED("clone(CLONE_NEWUSER|CLONE_NEWNS) made a child in new namespaces");
}
