/* escape_prlimit_init: lower pid 1's resource limits with prlimit(2).
 * The kernel lets a process set the limits of any process with the same
 * uid and gid, dumpable or not: pid 1's signals are ignored and its
 * memory closed, but with RLIMIT_NOFILE at 4 a session's init can no
 * longer accept a connection (it spun at full CPU while every later
 * `kjail exec -s` hung), RLIMIT_NPROC 0 stops it forking an exec, and
 * RLIMIT_CPU has the kernel SIGKILL it. Only the sandbox's own init is
 * touched; a limit lowered here stays lowered (the runner checks what
 * that does to the session). */
#include <sys/resource.h>

#include "escape.h"

int main(void)
{
	struct rlimit nofile = {4, 4};

	if (prlimit(1, RLIMIT_NOFILE, &nofile, NULL) == 0)
		ESCAPED("prlimit(1, RLIMIT_NOFILE, 4): pid 1 can no longer accept or open");
	if (errno != EPERM)
		BROKEN("prlimit(1, RLIMIT_NOFILE): %s, not EPERM", errname(errno));
	NOTE("prlimit(1, RLIMIT_NOFILE, 4): %s", errname(errno));
	/* Reading pid 1's limits stays allowed: it changes nothing. */
	if (prlimit(1, RLIMIT_NOFILE, NULL, &nofile) < 0)
		BROKEN("prlimit(1, RLIMIT_NOFILE) to read: %s", errname(errno));
	/* A process's own limits stay its own to lower. */
	if (getrlimit(RLIMIT_NOFILE, &nofile) < 0 || (nofile.rlim_cur = 64) > nofile.rlim_max ||
	    setrlimit(RLIMIT_NOFILE, &nofile) < 0 || prlimit(0, RLIMIT_NOFILE, &nofile, NULL) < 0)
		BROKEN("lowering its own RLIMIT_NOFILE: %s", errname(errno));
	CONTAINED("pid 1's limits cannot be changed from inside");
}
