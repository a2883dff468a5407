/* escape_kill_init: signal pid 1 (kjail's init) to death from inside:
 * SIGKILL, SIGTERM, SIGSEGV, SIGSTOP... directly and through a pidfd.
 * The kernel ignores signals to a pid namespace's init that it has no
 * handler for, when they come from inside. Exits 42 while still alive
 * under a live init: kjail must report 42, this command's own status. */
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>

#include "escape.h"

int main(void)
{
	static const int sigs[] = {SIGKILL, SIGTERM, SIGINT,  SIGHUP, SIGQUIT,
				   SIGSEGV, SIGABRT, SIGUSR1, SIGSTOP};
	struct timespec ms100 = {0, 100 * 1000 * 1000};
	long pidfd = syscall(SYS_pidfd_open, 1, 0);
	char state = '?';
	FILE *f;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (kill(1, sigs[i]) < 0)
			NOTE("kill(1, %s): %s", strsignal(sigs[i]), errname(errno));
		if (pidfd >= 0 && syscall(SYS_pidfd_send_signal, pidfd, sigs[i], NULL, 0) < 0)
			NOTE("pidfd_send_signal(1, %s): %s", strsignal(sigs[i]), errname(errno));
	}
	nanosleep(&ms100, NULL);
	f = fopen("/proc/1/stat", "r");
	if (!f || fscanf(f, "%*d %*s %c", &state) != 1)
		ESCAPED("pid 1 is gone");
	fclose(f);
	kill(1, SIGCONT);
	if (getppid() != 1 || state == 'T' || state == 'Z' || state == 'X')
		ESCAPED("pid 1 was hurt (state %c)", state);
	printf("contained: pid 1 ignored every signal (state %c); exiting 42\n", state);
	fflush(stdout);
	return 42;
}
