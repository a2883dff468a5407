/* forkbomb: fork until the kernel refuses, to measure a pids limit.
 *
 *   forkbomb          forks children that sleep, until fork() fails; prints
 *                     "forkbomb: forked N, then <error>", kills and reaps
 *                     the children and exits 0 (1 if fork never failed
 *                     within 100000 tries)
 *   forkbomb forever  the classic: every child forks too, never ends
 *
 * Under --pids 64 fork fails with EAGAIN once the sandbox has 64 tasks
 * (its init and this process included). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static pid_t kids[100000];
	int n = 0, err = 0;

	if (argc > 1 && !strcmp(argv[1], "forever"))
		for (;;)
			(void)fork();
	while (n < 100000) {
		pid_t pid = fork();
		if (pid < 0) {
			err = errno;
			break;
		}
		if (pid == 0) {
			pause();
			_exit(0);
		}
		kids[n++] = pid;
	}
	printf("forkbomb: forked %d, then %s\n", n, err ? strerror(err) : "no failure");
	fflush(stdout);
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return err ? 0 : 1;
}
