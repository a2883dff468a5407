/* escape_personality: change the execution domain: ADDR_NO_RANDOMIZE
 * turns off ASLR for what we exec next, READ_IMPLIES_EXEC makes data
 * executable, MMAP_PAGE_ZERO maps page 0 (CVE-2009-1895), UNAME26 leaked
 * kernel stack (CVE-2012-0957). Only PER_LINUX may be set. */
#include <sys/personality.h>

#include "escape.h"

int main(void)
{
	static const struct {
		const char *name;
		unsigned long persona;
	} tries[] = {
		{"ADDR_NO_RANDOMIZE", PER_LINUX | ADDR_NO_RANDOMIZE},
		{"READ_IMPLIES_EXEC", PER_LINUX | READ_IMPLIES_EXEC},
		{"MMAP_PAGE_ZERO", PER_LINUX | MMAP_PAGE_ZERO},
		{"UNAME26", PER_LINUX | UNAME26},
		{"PER_LINUX32", PER_LINUX32},
	};

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (personality(tries[i].persona) != -1 &&
		    (unsigned long)personality(0xffffffff) == tries[i].persona)
			ESCAPED("personality(%s) took effect", tries[i].name);
		NOTE("personality(%s): %s", tries[i].name, errname(errno));
		personality(PER_LINUX);
	}
	CONTAINED("no execution domain other than PER_LINUX can be set");
}
