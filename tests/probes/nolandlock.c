/* nolandlock CMD [ARG...]: run CMD as if the kernel had no Landlock.
 *
 * A seccomp filter makes landlock_create_ruleset (and the other two
 * Landlock calls) fail with ENOSYS, as on a kernel built without it;
 * everything else is allowed. landlock.t runs kjail under it to prove
 * that --landlock required fails closed and best-effort runs without.
 * Only libc: builds with -static.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_restrict_self 446
#endif

int main(int argc, char **argv)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SYS_landlock_create_ruleset, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, SYS_landlock_restrict_self, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(insns) / sizeof(insns[0]), insns};

	if (argc < 2) {
		fprintf(stderr, "usage: nolandlock CMD [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		perror("nolandlock: seccomp");
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror("nolandlock: exec");
	return 127;
}
