/* escape_pivot_root: pivot_root into a directory of our own, the step
 * that would let a process replace the sandbox's root. */
#include <sys/stat.h>
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	mkdir("/tmp/escape-newroot", 0755);
	mkdir("/tmp/escape-newroot/old", 0755);
	if (syscall(SYS_pivot_root, "/tmp/escape-newroot", "/tmp/escape-newroot/old") < 0)
		CONTAINED("pivot_root: %s", errname(errno));
	ESCAPED("pivot_root succeeded");
}
