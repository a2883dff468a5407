/* escape_i386: call unshare(CLONE_NEWUSER) through the i386 ABI (int
 * $0x80, where 310 is unshare and the numbers mean other syscalls): a
 * filter that ignores the architecture would check the wrong rules.
 * The filter must kill the process (SIGSYS: exit status 159). */
#include <sched.h>

#include "escape.h"

int main(void)
{
	long r = 310; /* i386 unshare */

	__asm__ volatile("int $0x80" : "+a"(r) : "b"((long)CLONE_NEWUSER) : "memory");
	if (r == 0)
		ESCAPED("i386 unshare(CLONE_NEWUSER) succeeded");
	CONTAINED("i386 unshare(CLONE_NEWUSER) returned %s (not killed by the filter)",
		  errname((int)-r));
}
