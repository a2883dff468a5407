/* A minimal /dev: a few safe character devices bound from the host (a user
 * namespace cannot mknod), a private devpts, /dev/shm, and the usual links.
 * No other host device node is reachable. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mounts/mountapi.h"
#include "mounts/rootfs.h"

static const struct {
	const char *name;
	unsigned major, minor;
} dev_nodes[] = {
	{"null", 1, 3},   {"zero", 1, 5},    {"full", 1, 7},
	{"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0},
};

static const struct {
	const char *name, *target;
} dev_links[] = {
	{"ptmx", "pts/ptmx"},          {"fd", "/proc/self/fd"},       {"stdin", "/proc/self/fd/0"},
	{"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
};

/* Clone the host's device node, refusing anything that is not exactly the
 * expected character device: a host /dev entry replaced by a symlink or a
 * regular file must not be bound into the sandbox (runc CVE-2025-31133).
 * The check is on the clone itself, the very inode that will be mounted,
 * so no path trick between a check and the clone can swap it. */
static int host_node_clone(const char *name, unsigned major_nr, unsigned minor_nr,
			   struct kj_err *err)
{
	char path[64];
	struct stat st;
	int mfd;

	snprintf(path, sizeof(path), "/dev/%s", name);
	mfd = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);
	if (mfd < 0)
		return kj_fail(err, "dev", errno, NULL, "clone the host's %s", path);
	if (fstat(mfd, &st) < 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != major_nr ||
	    minor(st.st_rdev) != minor_nr) {
		close(mfd);
		return kj_fail(err, "dev", 0, "check the host's /dev",
			       "the host's %s is not the character device %u:%u", path, major_nr,
			       minor_nr);
	}
	/* Read-only, nosuid, noexec: a write to a device node needs no
	 * writable mount, but its metadata does. The node is the host's own
	 * inode: on a writable clone a root caller's command could chmod
	 * or utimensat the host's /dev/null (through /dev or any file mask
	 * made of it) and break it for every user of the host. */
	if (tree_setattr(mfd, 0, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, 0, path,
			 err)) {
		close(mfd);
		return -EINVAL;
	}
	return mfd;
}

int devnull_clone(struct kj_err *err)
{
	return host_node_clone("null", 1, 3, err);
}

static int node_bind(int devfd, const char *name, unsigned ma, unsigned mi, struct kj_err *err)
{
	int mfd, tfd, rc;

	/* The file to mount on, made here and held: the node lands on
	 * exactly it. */
	tfd = openat(devfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (tfd < 0)
		return kj_fail(err, "dev", errno, NULL, "create /dev/%s", name);
	mfd = host_node_clone(name, ma, mi, err);
	rc = mfd < 0 ? mfd : tree_attach(mfd, tfd, name, err);
	if (mfd >= 0)
		close(mfd);
	close(tfd);
	return rc;
}

static int sub_mount(int devfd, const char *name, const char *fstype, const char *opts,
		     unsigned attrs, struct kj_err *err)
{
	int mfd, tfd, rc;

	if (mkdirat(devfd, name, 0755) < 0)
		return kj_fail(err, "dev", errno, NULL, "create /dev/%s", name);
	tfd = path_open(devfd, name, O_DIRECTORY, RESOLVE_BENEATH_FLAGS);
	if (tfd < 0)
		return kj_fail(err, "dev", -tfd, NULL, "open /dev/%s", name);
	mfd = fs_new(fstype, opts, attrs, err);
	rc = mfd < 0 ? mfd : tree_attach(mfd, tfd, name, err);
	if (mfd >= 0)
		close(mfd);
	close(tfd);
	return rc;
}

int dev_mount(int rootfd, struct kj_err *err)
{
	int tfd, mfd, devfd = -1, rc;

	tfd = mountpoint_open(rootfd, "/dev", 1, "/dev", err);
	if (tfd < 0)
		return tfd;
	mfd = fs_new("tmpfs", "mode=0755,size=64k", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, err);
	rc = mfd < 0 ? mfd : tree_attach(mfd, tfd, "/dev", err);
	close(tfd);
	if (rc)
		goto out;
	/* A real directory fd on the new tmpfs, to create entries in. */
	devfd = openat(mfd, ".", O_DIRECTORY | O_CLOEXEC);
	if (devfd < 0) {
		rc = kj_fail(err, "dev", errno, NULL, "open /dev");
		goto out;
	}
	for (size_t i = 0; !rc && i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++)
		rc = node_bind(devfd, dev_nodes[i].name, dev_nodes[i].major, dev_nodes[i].minor,
			       err);
	for (size_t i = 0; !rc && i < sizeof(dev_links) / sizeof(dev_links[0]); i++)
		if (symlinkat(dev_links[i].target, devfd, dev_links[i].name) < 0)
			rc = kj_fail(err, "dev", errno, NULL, "create /dev/%s", dev_links[i].name);
	/* A private devpts instance: the sandbox's terminals are its own and
	 * the host's ptys are not listed (TIOCSTI, CVE-2017-5226, can then
	 * only reach the sandbox's own terminal). At most 64 of them: every
	 * devpts but the host's draws on one pool (kernel.pty.max, 4096 less
	 * the host's reserve), which one sandbox could otherwise empty for
	 * every other sandbox and container. */
	if (!rc)
		rc = sub_mount(devfd, "pts", "devpts", "newinstance,ptmxmode=0666,mode=0620,max=64",
			       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, err);
	/* nr_inodes as for /tmp (mounts/rootfs.c): empty files cost no size. */
	if (!rc)
		rc = sub_mount(devfd, "shm", "tmpfs", "mode=1777,size=64m,nr_inodes=64k",
			       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, err);
	/* Done creating: /dev itself becomes read-only so nothing can add a
	 * node or a link there (its submounts keep their own flags). */
	if (!rc)
		rc = tree_setattr(mfd, 0, MOUNT_ATTR_RDONLY, 0, "/dev", err);
out:
	if (devfd >= 0)
		close(devfd);
	if (mfd >= 0)
		close(mfd);
	return rc;
}
