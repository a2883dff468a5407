/* escape_idmap: rewrite the sandbox's identity: map every uid with
 * /proc/self/uid_map (a map can be written once, and kjail wrote it),
 * drop supplementary groups with setgroups (a group that denies access,
 * "negative" permissions, CVE-2014-8989), become uid 0 with setuid. */
#include <fcntl.h>
#include <grp.h>

#include "escape.h"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? errno : 0;
}

int main(void)
{
	int e1, e2, e3;
	uid_t uid = getuid();

	if (!(e1 = write_file("/proc/self/uid_map", "0 0 4294967295\n")))
		ESCAPED("rewrote /proc/self/uid_map");
	if (!(e2 = write_file("/proc/self/gid_map", "0 0 4294967295\n")))
		ESCAPED("rewrote /proc/self/gid_map");
	if (setgroups(0, NULL) == 0 && getgroups(0, NULL) == 0 && uid != 0)
		NOTE("setgroups(0) succeeded (no supplementary groups to drop?)");
	e3 = errno;
	if (uid != 0 && setuid(0) == 0)
		ESCAPED("setuid(0) succeeded for uid %u", (unsigned)uid);
	CONTAINED("uid_map: %s; gid_map: %s; setgroups: %s; setuid(0): %s", errname(e1),
		  errname(e2), errname(e3), uid ? errname(errno) : "already 0");
}
