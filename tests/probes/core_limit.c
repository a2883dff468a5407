/* core_limit: RLIMIT_CORE as the sandbox sees it (tests/integration/
 * core_dumps.t, tests/vm/guest/30-coredump.t).
 *
 *   core_limit                         print "SOFT HARD" of this process
 *   core_limit set-self SOFT HARD      setrlimit (glibc: prlimit64)
 *   core_limit set-raw SOFT HARD       the setrlimit syscall itself
 *   core_limit set-pid PID SOFT HARD   prlimit64 on another process
 *   core_limit crash                   die of SIGSEGV (a core dump)
 *
 * set-* print "rc=R now=SOFT HARD" (R: 0 or the errno name's number),
 * the limit read back from the process set. SOFT, HARD: a number or inf. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static rlim_t parse(const char *s)
{
	return strcmp(s, "inf") == 0 ? RLIM_INFINITY : (rlim_t)strtoull(s, NULL, 10);
}

static void show(pid_t pid, const char *prefix)
{
	struct rlimit r;

	if (prlimit(pid, RLIMIT_CORE, NULL, &r) < 0) {
		printf("%sread failed: %s\n", prefix, strerror(errno));
		exit(3);
	}
	printf("%s", prefix);
	if (r.rlim_cur == RLIM_INFINITY)
		printf("inf ");
	else
		printf("%llu ", (unsigned long long)r.rlim_cur);
	if (r.rlim_max == RLIM_INFINITY)
		printf("inf\n");
	else
		printf("%llu\n", (unsigned long long)r.rlim_max);
}

int main(int argc, char **argv)
{
	struct rlimit want;
	pid_t pid = 0;
	long rc;
	char prefix[32];

	if (argc == 1) {
		show(0, "");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "crash") == 0) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		return 4;
	}
	if (argc == 5 && strcmp(argv[1], "set-pid") == 0) {
		pid = (pid_t)atoi(argv[2]);
		argv++;
		argc--;
	}
	if (argc != 4) {
		fprintf(stderr,
			"usage: core_limit [set-self|set-raw|set-pid PID] SOFT HARD | crash\n");
		return 2;
	}
	want.rlim_cur = parse(argv[2]);
	want.rlim_max = parse(argv[3]);
	if (strcmp(argv[1], "set-raw") == 0)
		rc = syscall(SYS_setrlimit, RLIMIT_CORE, &want);
	else
		rc = prlimit(pid, RLIMIT_CORE, &want, NULL);
	snprintf(prefix, sizeof(prefix), "rc=%d now=", rc < 0 ? errno : 0);
	show(pid, prefix);
	return 0;
}
