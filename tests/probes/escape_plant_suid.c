/* escape_plant_suid DIR: leave a setuid/setgid file in DIR, the
 * workspace, which is a host directory: created with mode 06755 and
 * chmod'ed 06755. For a root caller such a file is a setuid-root
 * program on the host that any local user who reaches the workspace
 * could run later. A setuid file owned by the caller itself (who could
 * make one on the host anyway) gains nobody anything. The files are
 * empty and removed at once; the runner checks the host side too. */
#include <fcntl.h>
#include <sys/stat.h>

#include "escape.h"

static int planted(const char *path, const char *how)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	unlink(path);
	if ((st.st_mode & (S_ISUID | S_ISGID)) && (st.st_uid == 0 || st.st_gid == 0)) {
		NOTE("%s left mode %o owned by %u:%u", how, (unsigned)(st.st_mode & 07777),
		     (unsigned)st.st_uid, (unsigned)st.st_gid);
		return 1;
	}
	NOTE("%s: mode %o owned by %u:%u (no root privilege in it)", how,
	     (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)st.st_gid);
	return 0;
}

int main(int argc, char **argv)
{
	char a[512], b[512];
	int fd, hits = 0;

	if (argc != 2)
		BROKEN("usage: escape_plant_suid DIR");
	snprintf(a, sizeof(a), "%s/escape-suid-open", argv[1]);
	snprintf(b, sizeof(b), "%s/escape-suid-chmod", argv[1]);
	umask(0);
	fd = open(a, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 06755);
	if (fd >= 0)
		close(fd);
	else
		NOTE("open(O_CREAT, 06755): %s", errname(errno));
	hits += planted(a, "open(O_CREAT, 06755)");
	fd = open(b, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (fd >= 0) {
		if (fchmod(fd, 06755) < 0)
			NOTE("fchmod(06755): %s", errname(errno));
		close(fd);
	}
	if (chmod(b, 06755) < 0)
		NOTE("chmod(06755): %s", errname(errno));
	hits += planted(b, "chmod(06755)");
	if (hits)
		ESCAPED("planted %d setuid/setgid-root file(s) in the host directory %s", hits,
			argv[1]);
	CONTAINED("no setuid/setgid-root file can be left in %s", argv[1]);
}
