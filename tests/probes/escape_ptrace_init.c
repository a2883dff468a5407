/* escape_ptrace_init: attach to pid 1, kjail's init, which holds the
 * sandbox's channel to kjail: a tracer could take it over. */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "escape.h"

int main(void)
{
	if (ptrace(PTRACE_ATTACH, 1, NULL, NULL) < 0)
		CONTAINED("ptrace(PTRACE_ATTACH, 1): %s", errname(errno));
	waitpid(1, NULL, __WALL);
	ptrace(PTRACE_DETACH, 1, NULL, NULL);
	ESCAPED("ptrace attached to pid 1 (detached again)");
}
