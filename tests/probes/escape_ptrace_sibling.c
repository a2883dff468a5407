/* escape_ptrace_sibling: attach to another process of the sandbox; a
 * tracer can rewrite a tracee's syscalls after seccomp checked them
 * (the pre-4.8 seccomp bypass), so ptrace is denied outright. */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "escape.h"

int main(void)
{
	pid_t kid = fork();
	long r;
	int e;

	if (kid < 0)
		BROKEN("fork: %s", errname(errno));
	if (kid == 0) {
		pause();
		_exit(0);
	}
	r = ptrace(PTRACE_ATTACH, kid, NULL, NULL);
	e = errno;
	if (r == 0) {
		waitpid(kid, NULL, 0);
		ptrace(PTRACE_DETACH, kid, NULL, NULL);
	}
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	if (r < 0)
		CONTAINED("ptrace(PTRACE_ATTACH, sibling): %s", errname(e));
	ESCAPED("ptrace attached to a sibling");
}
