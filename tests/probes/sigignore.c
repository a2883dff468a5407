/* sigignore: run a command with signals ignored, as a caller can leave
 * them.
 *
 *   sigignore SIG[,SIG...] COMMAND [ARG...]
 *
 * sets each numbered signal to SIG_IGN with the kernel's rt_sigaction,
 * not glibc's sigaction, which refuses 32 and 33 (glibc keeps them for
 * its threads) though a caller can ignore them and exec keeps them
 * ignored; then execs COMMAND. Exit 2 on bad use, 3 if a signal cannot be
 * ignored, 127 if COMMAND cannot be run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	/* The kernel's struct sigaction with SIG_IGN (1) as the handler and
	 * every other field zero: the same bytes on every layout. */
	const uint64_t ign[4] = {1, 0, 0, 0};
	char *list, *tok, *end;

	if (argc < 3) {
		fprintf(stderr, "usage: sigignore SIG[,SIG...] COMMAND [ARG...]\n");
		return 2;
	}
	list = argv[1];
	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		long sig = strtol(tok, &end, 10);

		if (*end || sig < 1 || sig > 64) {
			fprintf(stderr, "sigignore: bad signal '%s'\n", tok);
			return 2;
		}
		if (syscall(SYS_rt_sigaction, (int)sig, ign, NULL, sizeof(uint64_t)) < 0) {
			perror("sigignore: rt_sigaction");
			return 3;
		}
	}
	execvp(argv[2], argv + 2);
	perror("sigignore: exec");
	return 127;
}
