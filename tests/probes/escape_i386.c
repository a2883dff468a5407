/* escape_i386: call unshare(CLONE_NEWUSER) through the i386 ABI (int
 * $0x80, where 310 is unshare and the numbers mean other syscalls): a
 * filter that ignores the architecture would check the wrong rules.
 * The filter must kill the process (SIGSYS: exit status 159).
 * `escape_i386 host-check`, run outside any sandbox, makes the harmless
 * i386 getpid and exits 0 if it answered: a kernel built or booted
 * without the i386 ABI (ia32_emulation=off) faults on int $0x80 with
 * SIGSEGV, and there the attack cannot be tried at all. */
#include <sched.h>
#include <string.h>

#include "escape.h"

int main(int argc, char **argv)
{
	long r = 310; /* i386 unshare */

	if (argc > 1 && !strcmp(argv[1], "host-check")) {
		r = 20; /* i386 getpid */
		__asm__ volatile("int $0x80" : "+a"(r) : : "memory");
		return r > 0 ? 0 : 1;
	}

	__asm__ volatile("int $0x80" : "+a"(r) : "b"((long)CLONE_NEWUSER) : "memory");
	if (r == 0)
		ESCAPED("i386 unshare(CLONE_NEWUSER) succeeded");
	CONTAINED("i386 unshare(CLONE_NEWUSER) returned %s (not killed by the filter)",
		  errname((int)-r));
}
