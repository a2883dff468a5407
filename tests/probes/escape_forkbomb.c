/* escape_forkbomb MARKER MAX: a fork bomb, bounded to MAX processes so
 * that a broken kjail cannot exhaust the host: every process forks
 * while a shared counter is below MAX, then waits forever, ignoring
 * SIGTERM. Never exits: kjail's --timeout must end it, all of it. The
 * runner finds leftovers on the host by MARKER (argv[1]). */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "escape.h"

int main(int argc, char **argv)
{
	int *count, max;

	if (argc != 3 || (max = atoi(argv[2])) <= 0)
		BROKEN("usage: escape_forkbomb MARKER MAX");
	count = mmap(NULL, sizeof(*count), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		     0);
	if (count == MAP_FAILED)
		BROKEN("mmap: %s", errname(errno));
	signal(SIGTERM, SIG_IGN);
	*count = 1;
	printf("forkbomb: started, at most %d processes\n", max);
	fflush(stdout);
	for (;;) {
		if (__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST) > max) {
			__atomic_sub_fetch(count, 1, __ATOMIC_SEQ_CST);
			break;
		}
		if (fork() < 0) {
			__atomic_sub_fetch(count, 1, __ATOMIC_SEQ_CST);
			break;
		}
	}
	for (;;)
		pause();
}
