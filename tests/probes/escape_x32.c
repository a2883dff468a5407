/* escape_x32: call unshare(CLONE_NEWUSER) through the x32 ABI (syscall
 * number | 0x40000000): a filter that checks syscall numbers but not
 * the ABI would let it pass. The filter must kill the process (SIGSYS:
 * exit status 159); a kernel without x32 says ENOSYS, also contained. */
#include <sched.h>

#include "escape.h"

int main(void)
{
	long r, nr = 0x40000000L | 272; /* x32 unshare */

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(nr), "D"((long)CLONE_NEWUSER)
			 : "rcx", "r11", "memory");
	if (r == 0)
		ESCAPED("x32 unshare(CLONE_NEWUSER) succeeded");
	CONTAINED("x32 unshare(CLONE_NEWUSER) returned %s (not killed by the filter)",
		  errname((int)-r));
}
