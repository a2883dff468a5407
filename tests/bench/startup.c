/* make bench: what a process start costs on this machine before its main()
 * runs, the part of every run that kjail, bwrap, unshare and COMMAND each
 * pay once. glibc's start-up (static, or ld.so's in a dynamic program)
 * asks the CPU what it is with cpuid, dozens of times (cache sizes for
 * sysconf among them); under a hypervisor that traps cpuid, each one is an
 * exit to the host.
 *   startup true             exit 0 at once (built static, like kjail)
 *   startup cpuid            ns per cpuid instruction (median of 9 x 200)
 *   startup count PROG [ARG] instructions and cpuid instructions PROG runs
 *                            (single-stepped under ptrace: slow, exact)
 *   startup exit             exit at once without libc (build with
 *                            -nostdlib -static -DNO_LIBC) */
#ifdef NO_LIBC
void _start(void)
{
	__asm__ volatile("mov $60, %eax\n\txor %edi, %edi\n\tsyscall");
}
#else
#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int time_cpuid(void)
{
	double per[9];
	unsigned a, b, c, d;

	for (int r = 0; r < 9; r++) {
		double t = now_ns();
		for (int i = 0; i < 200; i++)
			__cpuid_count(0x80000000u + (unsigned)(i & 7), 0, a, b, c, d);
		per[r] = (now_ns() - t) / 200;
	}
	qsort(per, 9, sizeof(per[0]), cmp);
	printf("%.0f\n", per[4]);
	return 0;
}

static int count(char **argv)
{
	long insns = 0, cpuids = 0;
	int st;
	pid_t p = fork();

	if (p < 0)
		return perror("fork"), 1;
	if (p == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(p, &st, 0) < 0 || !WIFSTOPPED(st))
		return fprintf(stderr, "startup: %s did not start\n", argv[0]), 1;
	for (;;) {
		struct user_regs_struct r;
		long word;

		if (ptrace(PTRACE_GETREGS, p, NULL, &r) < 0)
			break;
		errno = 0;
		word = ptrace(PTRACE_PEEKTEXT, p, (void *)r.rip, NULL);
		if (!errno && (word & 0xffff) == 0xa20f) /* 0f a2: cpuid */
			cpuids++;
		if (ptrace(PTRACE_SINGLESTEP, p, NULL, NULL) < 0 || waitpid(p, &st, 0) < 0 ||
		    WIFEXITED(st) || WIFSIGNALED(st))
			break;
		insns++;
	}
	printf("%ld %ld\n", insns, cpuids);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "true"))
		return 0;
	if (argc == 2 && !strcmp(argv[1], "cpuid"))
		return time_cpuid();
	if (argc >= 3 && !strcmp(argv[1], "count"))
		return count(argv + 2);
	fprintf(stderr, "usage: startup true | startup cpuid | startup count PROG [ARG...]\n");
	return 2;
}
#endif
