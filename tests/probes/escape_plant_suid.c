/* escape_plant_suid DIR: leave a setuid/setgid file in DIR, the
 * workspace, which is a host directory: created with the bit (open,
 * openat, openat2, creat, mknod) or given it (chmod, fchmod, fchmodat,
 * fchmodat2), for each of the setuid (04755) and setgid (02755) bits on
 * its own, so that one rule of the filter missing is one way found. For a root caller such a file
 * is a setuid-root program on the host that any local user who reaches the workspace could run
 * later. A setuid file owned by the caller itself (who could make one on the host anyway) gains
 * nobody anything. The files are empty and removed at once; the runner checks the host side too. */
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>

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

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452 /* x86_64, Linux 6.6 */
#endif

enum {
	NEW_OPEN,
	NEW_OPENAT,
	NEW_OPENAT2,
	NEW_CREAT,
	NEW_MKNOD,
	SET_CHMOD,
	SET_FCHMOD,
	SET_FCHMODAT,
	SET_FCHMODAT2,
	NWAYS
};
static const char *const way_name[NWAYS] = {"open",  "openat", "openat2",  "creat",    "mknod",
					    "chmod", "fchmod", "fchmodat", "fchmodat2"};

/* Try one way with one mode on path; 0 or the errno. Raw syscalls: libc
 * would turn open into openat and chmod into fchmodat. */
static int try_way(int way, const char *path, mode_t mode)
{
	struct open_how how = {.flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, .mode = mode};
	long r;
	int fd;

	if (way >= SET_CHMOD) {
		fd = (int)syscall(SYS_openat, AT_FDCWD, path,
				  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
		if (fd < 0)
			return errno;
		switch (way) {
		case SET_CHMOD:
			r = syscall(SYS_chmod, path, mode);
			break;
		case SET_FCHMOD:
			r = syscall(SYS_fchmod, fd, mode);
			break;
		case SET_FCHMODAT:
			r = syscall(SYS_fchmodat, AT_FDCWD, path, mode);
			break;
		default:
			r = syscall(SYS_fchmodat2, AT_FDCWD, path, mode, 0);
			break;
		}
		close(fd);
		return r < 0 ? errno : 0;
	}
	switch (way) {
	case NEW_OPEN:
		r = syscall(SYS_open, path, how.flags, mode);
		break;
	case NEW_OPENAT:
		r = syscall(SYS_openat, AT_FDCWD, path, how.flags, mode);
		break;
	case NEW_OPENAT2:
		r = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
		break;
	case NEW_CREAT:
		r = syscall(SYS_creat, path, mode);
		break;
	default:
		r = syscall(SYS_mknodat, AT_FDCWD, path, S_IFREG | mode, 0);
		break;
	}
	if (r < 0)
		return errno;
	if (way != NEW_MKNOD)
		close((int)r);
	return 0;
}

int main(int argc, char **argv)
{
	static const mode_t modes[] = {04755, 02755};
	char path[512], how[64];
	int hits = 0, e;

	if (argc != 2)
		BROKEN("usage: escape_plant_suid DIR");
	umask(0);
	for (int m = 0; m < 2; m++)
		for (int w = 0; w < NWAYS; w++) {
			snprintf(path, sizeof(path), "%s/escape-suid-%s-%o", argv[1], way_name[w],
				 (unsigned)modes[m]);
			snprintf(how, sizeof(how), "%s(%04o)", way_name[w], (unsigned)modes[m]);
			unlink(path);
			if ((e = try_way(w, path, modes[m])))
				NOTE("%s: %s", how, errname(e));
			hits += planted(path, how);
		}
	if (hits)
		ESCAPED("planted %d setuid/setgid-root file(s) in the host directory %s", hits,
			argv[1]);
	CONTAINED("no setuid/setgid-root file can be left in %s", argv[1]);
}
