/* The workspace and the --ro/--rw binds. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/mountapi.h"
#include "mounts/rootfs.h"

/* Clone b->src, detached. The source is opened again here without
 * following any symlink and must still be the file that was validated
 * (same device and inode): a path swapped for a symlink or another
 * directory between the check and the mount is refused. */
static int bind_clone(const struct kj_bind *b, const char *what, struct kj_err *err)
{
	unsigned set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (b->writable ? 0 : MOUNT_ATTR_RDONLY);
	struct stat st;
	int sfd, mfd;

	sfd = path_open(AT_FDCWD, b->src, O_NOFOLLOW, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (sfd < 0)
		return kj_fail(err, what, -sfd, NULL, "open %s", b->src);
	if (fstat(sfd, &st) < 0 || st.st_dev != b->dev || st.st_ino != b->ino) {
		close(sfd);
		return kj_fail(err, what, 0, "something is changing the path; retry",
			       "%s changed between validation and mount", b->src);
	}
	mfd = tree_clone(sfd, b->src, 1, set, 0, err);
	close(sfd);
	return mfd;
}

static int bind_attach(int rootfd, int mfd, const struct kj_bind *b, const char *what,
		       struct kj_err *err)
{
	int tfd = mountpoint_open(rootfd, b->dest, b->is_dir, what, err), rc;

	rc = tfd < 0 ? tfd : tree_attach(mfd, tfd, b->dest, err);
	if (tfd >= 0)
		close(tfd);
	return rc;
}

static const char *bind_what(const struct kj_config *cfg, size_t i)
{
	return i == 0 ? "workspace" : cfg->binds[i - 1].writable ? "rw" : "ro";
}

static const struct kj_bind *bind_at(const struct kj_config *cfg, size_t i)
{
	return i == 0 ? &cfg->workspace : &cfg->binds[i - 1];
}

int binds_prepare(const struct kj_config *cfg, int *mfds, struct kj_err *err)
{
	for (size_t i = 0; i <= cfg->nbinds; i++) {
		mfds[i] = bind_clone(bind_at(cfg, i), bind_what(cfg, i), err);
		if (mfds[i] < 0) {
			binds_release(cfg, mfds);
			return -EINVAL;
		}
	}
	return 0;
}

int binds_mount(int rootfd, const struct kj_config *cfg, const int *mfds, struct kj_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i <= cfg->nbinds; i++)
		rc = bind_attach(rootfd, mfds[i], bind_at(cfg, i), bind_what(cfg, i), err);
	return rc;
}

void binds_release(const struct kj_config *cfg, int *mfds)
{
	for (size_t i = 0; i <= cfg->nbinds; i++)
		if (mfds[i] >= 0) {
			close(mfds[i]);
			mfds[i] = -1;
		}
}

/* Bind name (beneath dirfd) onto itself, read-only or not. */
static int pin(int dirfd, const char *name, int readonly, struct kj_err *err)
{
	int fd = path_open(dirfd, name, O_NOFOLLOW, RESOLVE_BENEATH_FLAGS), mfd, rc;

	if (fd < 0)
		return kj_fail(err, "workspace", -fd, NULL, "open .git/%s", name);
	mfd = tree_clone(fd, name, 1,
			 MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (readonly ? MOUNT_ATTR_RDONLY : 0), 0,
			 err);
	rc = mfd < 0 ? mfd : tree_attach(mfd, fd, name, err);
	if (mfd >= 0)
		close(mfd);
	close(fd);
	return rc;
}

/* .git/hooks and .git/config read-only, so the command cannot plant a hook
 * (or core.hooksPath / core.fsmonitor) that later runs on the host when the
 * user runs git. .git itself is bound onto itself: a mount point cannot be
 * renamed or removed (EBUSY), so `mv .git x; mkdir .git` cannot swap in a
 * fresh, writable repository directory under the same name. */
int git_protect(int rootfd, const char *ws, struct kj_err *err)
{
	struct stat st;
	int wsfd, gitfd, rc = 0;

	wsfd = path_open_in_root(rootfd, ws, O_DIRECTORY);
	if (wsfd < 0)
		return kj_fail(err, "workspace", -wsfd, NULL, "open %s", ws);
	if (fstatat(wsfd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0) {
		close(wsfd);
		return errno == ENOENT ? 0 : kj_fail(err, "workspace", errno, NULL, "stat .git");
	}
	if (S_ISLNK(st.st_mode)) {
		close(wsfd);
		return kj_fail(err, "workspace", 0,
			       "use the repository's real directory as the workspace",
			       "cannot protect .git/hooks: .git is a symbolic link");
	}
	if (!S_ISDIR(st.st_mode)) {
		/* A worktree's .git file ("gitdir: ..."): pinned read-only so
		 * it cannot be pointed at a directory the command controls. */
		rc = pin(wsfd, ".git", 1, err);
		close(wsfd);
		return rc;
	}
	rc = pin(wsfd, ".git", 0, err);
	/* .git is now a mount of its own: open it across that boundary. */
	gitfd = rc ? -1 : path_open(wsfd, ".git", O_DIRECTORY,
				    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	close(wsfd);
	if (rc)
		return rc;
	if (gitfd < 0)
		return kj_fail(err, "workspace", -gitfd, NULL, "open .git");
	if (faccessat(gitfd, "hooks", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		close(gitfd);
		return kj_fail(err, "workspace", errno,
			       "create it on the host (mkdir .git/hooks) so kjail can make it read-only",
			       "cannot protect .git/hooks");
	}
	rc = pin(gitfd, "hooks", 1, err);
	if (!rc)
		rc = pin(gitfd, "config", 1, err);
	close(gitfd);
	return rc;
}
