/* escape_cwd: runc CVE-2024-21626: a working directory left outside the
 * new root (through a leaked fd or /proc/self/fd/N as the cwd) lets
 * "../../.." walk the host. The cwd must be reachable from "/": getcwd
 * names it, it is the same inode as ".", and climbing ".." ends at "/". */
#include <limits.h>
#include <sys/stat.h>

#include "escape.h"

int main(void)
{
	char cwd[PATH_MAX];
	struct stat dot, named, root, here, up;

	if (!getcwd(cwd, sizeof(cwd)))
		ESCAPED("getcwd: %s: the cwd is not below the root", errname(errno));
	if (cwd[0] != '/')
		ESCAPED("getcwd says %s: the cwd is outside the root", cwd);
	if (stat(".", &dot) < 0 || stat(cwd, &named) < 0 || stat("/", &root) < 0)
		BROKEN("stat: %s", errname(errno));
	if (dot.st_dev != named.st_dev || dot.st_ino != named.st_ino)
		ESCAPED("the cwd is not %s, the path getcwd names", cwd);
	for (int i = 0; i < 256; i++) {
		if (stat(".", &here) < 0 || chdir("..") < 0 || stat(".", &up) < 0)
			BROKEN("walking up: %s", errname(errno));
		if (here.st_dev == up.st_dev && here.st_ino == up.st_ino)
			break;
	}
	if (here.st_dev != root.st_dev || here.st_ino != root.st_ino)
		ESCAPED("climbing from %s ended outside the sandbox's root", cwd);
	CONTAINED("cwd %s is inside the root", cwd);
}
