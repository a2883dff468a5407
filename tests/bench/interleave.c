/* make bench's second measurement: the commands in rounds, each round
 * running every command once in a rotating order, so the kernel's work
 * that one run leaves behind (a network namespace is freed by a kworker
 * after its last process exits, RCU callbacks) lands on every command
 * alike instead of on the next run of the same command, as in hyperfine's
 * blocks. Prints each command's median wall time (spawn to reap) in ms.
 *   interleave ROUNDS "CMD ARG..." ... */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int run(char **argv, const posix_spawn_file_actions_t *fa, double *ms)
{
	double t0 = now_ms();
	pid_t pid;
	int st;

	if (posix_spawn(&pid, argv[0], fa, NULL, argv, environ) != 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	*ms = now_ms() - t0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[1]) : 0, n = argc - 2;
	char **cmds[16];
	double *t[16];
	posix_spawn_file_actions_t fa;

	if (rounds < 1 || n < 1 || n > 16) {
		fprintf(stderr, "usage: interleave ROUNDS \"CMD ARG...\"...\n");
		return 2;
	}
	posix_spawn_file_actions_init(&fa);
	/* All three on /dev/null, as hyperfine -N does: a stdio that is the
	 * caller's regular file (make bench > log 2>&1) is relayed by kjail
	 * (runtime/stdio.c), which is not what a start-up figure is about. */
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	for (int i = 0; i < n; i++) {
		char *s = strdup(argv[2 + i]);
		int k = 0;
		cmds[i] = calloc(64, sizeof(char *));
		t[i] = calloc((size_t)rounds, sizeof(double));
		if (!s || !cmds[i] || !t[i])
			return 1;
		for (char *p = strtok(s, " "); p && k < 63; p = strtok(NULL, " "))
			cmds[i][k++] = p;
	}
	for (int r = -10; r < rounds; r++) /* 10 warm-up rounds */
		for (int j = 0; j < n; j++) {
			int i = (j + (r < 0 ? 0 : r)) % n;
			double ms;
			if (run(cmds[i], &fa, &ms)) {
				fprintf(stderr, "interleave: %s failed\n", argv[2 + i]);
				return 1;
			}
			if (r >= 0)
				t[i][r] = ms;
		}
	for (int i = 0; i < n; i++) {
		qsort(t[i], (size_t)rounds, sizeof(double), cmp);
		printf("%s\t%.3f\n", cmds[i][0], t[i][rounds / 2]);
	}
	return 0;
}
