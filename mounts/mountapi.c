#include "mounts/mountapi.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/mount_watch.h"

#define NEED_KERNEL "kjail needs Linux 5.12 or later for the new mount API"

/* How often a scoped lookup that met a mount or rename is tried again. */
#define EAGAIN_TRIES 1000

int path_open(int dirfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = {
		.flags = (uint64_t)(O_PATH | O_CLOEXEC | flags),
		.resolve = resolve,
	};
	int fd, tries = 0;

	/* With RESOLVE_IN_ROOT or RESOLVE_BENEATH, a ".." walked while any
	 * mount or rename happened anywhere on the system gives EAGAIN: the
	 * kernel cannot prove the ".." stayed inside. That is routine when
	 * other sandboxes start next to this one (a worktree's commondir is
	 * "../.."), so it is tried again, as openat2(2) advises; a caller
	 * that took EAGAIN for "not there" would skip a protection. */
	do
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN && ++tries < EAGAIN_TRIES);
	return fd < 0 ? -errno : fd;
}

int path_open_validated(const char *path, dev_t dev, ino_t ino, const char *part,
			struct kj_err *err)
{
	struct stat st;
	int fd = path_open(AT_FDCWD, path, O_NOFOLLOW, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);

	if (fd < 0)
		return kj_fail(err, part, -fd,
			       fd == -ELOOP ? "something is changing the path; retry" : NULL,
			       "open %s", path);
	if (fstat(fd, &st) < 0 || st.st_dev != dev || st.st_ino != ino) {
		close(fd);
		return kj_fail(err, part, 0, "something is changing the path; retry",
			       "%s changed between validation and mount", path);
	}
	return fd;
}

int path_open_in_root(int rootfd, const char *path, int flags)
{
	while (*path == '/')
		path++;
	return path_open(rootfd, *path ? path : ".", flags,
			 RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
}

int fs_new(const char *fstype, const char *options, unsigned attrs, struct kj_err *err)
{
	char buf[256], *save = NULL, *opt;
	int fsfd, mfd;

	fsfd = fsopen(fstype, FSOPEN_CLOEXEC);
	if (fsfd < 0)
		return kj_fail(err, "mount", errno, errno == ENOSYS ? NEED_KERNEL : NULL,
			       "open a new %s", fstype);
	snprintf(buf, sizeof(buf), "%s", options ? options : "");
	for (opt = strtok_r(buf, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(opt, '=');
		int rc;
		if (eq) {
			*eq = '\0';
			rc = fsconfig(fsfd, FSCONFIG_SET_STRING, opt, eq + 1, 0);
		} else {
			rc = fsconfig(fsfd, FSCONFIG_SET_FLAG, opt, NULL, 0);
		}
		if (rc < 0) {
			int e = errno;
			close(fsfd);
			return kj_fail(err, "mount", e, NULL, "%s option %s", fstype, opt);
		}
	}
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		int e = errno;
		close(fsfd);
		return kj_fail(err, "mount", e, NULL, "create %s", fstype);
	}
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, attrs);
	if (mfd < 0) {
		int e = errno;
		close(fsfd);
		return kj_fail(err, "mount", e, NULL, "mount %s", fstype);
	}
	close(fsfd);
	mount_watch_fresh(mfd);
	return mfd;
}

int tree_setattr(int fd, int recursive, unsigned set, unsigned clear, const char *what,
		 struct kj_err *err)
{
	struct mount_attr attr = {.attr_set = set, .attr_clr = clear};

	if (mount_setattr(fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &attr,
			  sizeof(attr)) < 0)
		return kj_fail(err, "mount", errno, errno == ENOSYS ? NEED_KERNEL : NULL,
			       "set attributes on %s", what);
	return 0;
}

int tree_clone(int fd, const char *what, int recursive, unsigned set, unsigned clear,
	       struct kj_err *err)
{
	int mfd = open_tree(fd, "",
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
				    (recursive ? AT_RECURSIVE : 0));
	if (mfd < 0)
		return kj_fail(err, "mount", errno, errno == ENOSYS ? NEED_KERNEL : NULL,
			       "clone %s", what);
	if ((set || clear) && tree_setattr(mfd, recursive, set, clear, what, err)) {
		close(mfd);
		return -EINVAL;
	}
	return mfd;
}

int tree_attach_unwatched(int mntfd, int targetfd, const char *what, struct kj_err *err)
{
	if (move_mount(mntfd, "", targetfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) <
	    0)
		return kj_fail(err, "mount", errno, NULL, "attach %s", what);
	return 0;
}

int tree_attach(int mntfd, int targetfd, const char *what, struct kj_err *err)
{
	/* Watched before the mount is made: a rename after it is seen. */
	mount_watch_target(targetfd);
	if (tree_attach_unwatched(mntfd, targetfd, what, err))
		return -EINVAL;
	mount_watch_note(mntfd);
	return 0;
}
