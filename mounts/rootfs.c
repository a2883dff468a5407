/* The root filesystem recipe:
 *   1. stop mount propagation to and from the host;
 *   2. clone the host's / (or --root) recursively and make every mount in
 *      it read-only, nosuid, nodev in one step (no writable window);
 *   3. fresh /proc, minimal /dev, private /tmp and /run, optional /sys;
 *   4. the workspace and the binds, then .git protection, then masks;
 *   5. pivot_root into it and detach the host's tree.
 */
#include "mounts/rootfs.h"
#include "runtime/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mounts/mountapi.h"
#include "mounts/pseudofs.h"
#include "runtime/mount_watch.h"

#define RO_ATTRS (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

/* kjail's own fresh tmpfs mounts (/tmp, /run, /var/run), by device: the
 * only places a missing mount point may be made. */
static dev_t own_tmpfs[3];
static int n_own_tmpfs;

/* May a mount point be made in the directory pfd? On kjail's own tmpfs,
 * yes. On the read-only root, EROFS. Anywhere else writable (the
 * workspace, a --rw grant: the host's own directories), no: it would be
 * left on the host, also when the run then fails (EXDEV, said as such). */
static int creatable_in(int pfd)
{
	struct statvfs vfs;
	struct stat st;

	if (fstat(pfd, &st) < 0)
		return -errno;
	for (int i = 0; i < n_own_tmpfs; i++)
		if (st.st_dev == own_tmpfs[i])
			return 0;
	return fstatvfs(pfd, &vfs) == 0 && !(vfs.f_flag & ST_RDONLY) ? -EXDEV : -EROFS;
}

/* Create dest (and missing parents) in the new root: this works only on
 * kjail's own tmpfs mounts (/tmp, /run). */
static int mountpoint_create(int rootfd, const char *dest, int is_dir)
{
	char parent[PATH_MAX];
	const char *name = strrchr(dest, '/');
	int pfd, rc;

	if (!name || (size_t)(name - dest) >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, dest, (size_t)(name - dest));
	parent[name - dest] = '\0';
	pfd = path_open_in_root(rootfd, parent[0] ? parent : "/", 0);
	if (pfd == -ENOENT) {
		if ((rc = mountpoint_create(rootfd, parent, 1)))
			return rc;
		pfd = path_open_in_root(rootfd, parent, 0);
	}
	if (pfd < 0)
		return pfd;
	if ((rc = creatable_in(pfd))) {
		close(pfd);
		return rc;
	}
	rc = is_dir ? mkdirat(pfd, name + 1, 0755) : mknodat(pfd, name + 1, S_IFREG | 0644, 0);
	rc = rc < 0 && errno != EEXIST ? -errno : 0;
	close(pfd);
	return rc;
}

int mountpoint_open(int rootfd, const char *dest, int is_dir, const char *what, struct kj_err *err)
{
	/* Errors name the bind ("workspace", "ro", "rw") or the mount. */
	const char *part = what[0] == '/' ? "mount" : what;
	int fd, rc;

	fd = path_open_in_root(rootfd, dest, 0);
	if (fd == -ENOENT) {
		if ((rc = mountpoint_create(rootfd, dest, is_dir)) == -EXDEV)
			return kj_fail(
				err, part, 0,
				"create it there yourself, or choose a DEST under kjail's own /tmp or /run",
				"create mount point %s: it would be made on the host, in the workspace or a --rw grant",
				dest);
		if (rc)
			return kj_fail(
				err, part, -rc,
				rc != -EROFS ? NULL
				: what[0] == '/'
					? "give a --root that has it: a root file system has /proc, /dev, /sys, /tmp and /run"
					: "choose a DEST that exists in the root, or one under /tmp or /run",
				"create mount point %s", dest);
		fd = path_open_in_root(rootfd, dest, 0);
	}
	/* ELOOP: the path runs through a symbolic link (resolved in the new
	 * root, never on the host: see path_open_in_root). */
	return fd < 0 ? kj_fail(err, part, -fd,
				fd == -ELOOP && what[0] == '/'
					? "give a --root where it is a directory, not a symbolic link"
					: NULL,
				"open %s", dest)
		      : fd;
}

/* Mount a fresh filesystem on dest inside the new root. */
static int fresh_mount(int rootfd, const char *dest, const char *fstype, const char *options,
		       unsigned attrs, struct kj_err *err)
{
	int mfd, tfd, rc;

	tfd = mountpoint_open(rootfd, dest, 1, dest, err);
	if (tfd < 0)
		return tfd;
	mfd = fs_new(fstype, options, attrs, err);
	if (mfd < 0) {
		close(tfd);
		return mfd;
	}
	rc = tree_attach(mfd, tfd, dest, err);
	/* One of kjail's own tmpfs mounts: mount points may be made there. */
	if (!rc && !strcmp(fstype, "tmpfs") && n_own_tmpfs < 3) {
		struct stat st;
		if (fstat(mfd, &st) == 0)
			own_tmpfs[n_own_tmpfs++] = st.st_dev;
	}
	close(mfd);
	close(tfd);
	return rc;
}

/* /var/run is usually a symlink to /run; when it is its own directory it
 * gets its own empty tmpfs, so the host's sockets stay out of reach. */
static int var_run_mount(int rootfd, struct kj_err *err)
{
	struct stat run, var_run;
	int fd = path_open_in_root(rootfd, "/var/run", O_DIRECTORY);

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return kj_fail(err, "mount", -fd, NULL, "open /var/run");
	if (fstatat(rootfd, "run", &run, 0) == 0 && fstat(fd, &var_run) == 0 &&
	    run.st_dev == var_run.st_dev && run.st_ino == var_run.st_ino) {
		close(fd);
		return 0;
	}
	close(fd);
	return fresh_mount(rootfd, "/var/run", "tmpfs", "mode=0755,size=16m,nr_inodes=16k",
			   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, err);
}

/* A fresh sysfs shows only this network namespace's devices; it needs a
 * network namespace of our own, so --net host keeps the host's, read-only. */
static int sys_mount(int rootfd, const struct kj_config *cfg, struct kj_err *err)
{
	if (cfg->net == KJ_NET_HOST)
		return 0;
	return fresh_mount(rootfd, "/sys", "sysfs", NULL, RO_ATTRS | MOUNT_ATTR_NOEXEC, err);
}

/* The sandbox's own cgroup, read-only: a fresh cgroup2 mount shows the
 * root of its cgroup namespace, which is its leaf, so it can read its
 * limits and usage but neither raise them nor see other cgroups. */
static int cgroup_mount(int rootfd, const struct kj_config *cfg, bool cgroupfs, struct kj_err *err)
{
	struct kj_err ignored;

	if (!cgroupfs)
		return 0;
	/* --net host keeps the host's /sys (read-only): cover its cgroup
	 * mount if we can, else leave the read-only host view. */
	if (cfg->net == KJ_NET_HOST) {
		(void)fresh_mount(rootfd, "/sys/fs/cgroup", "cgroup2", NULL,
				  RO_ATTRS | MOUNT_ATTR_NOEXEC, &ignored);
		return 0;
	}
	return fresh_mount(rootfd, "/sys/fs/cgroup", "cgroup2", NULL, RO_ATTRS | MOUNT_ATTR_NOEXEC,
			   err);
}

static int pivot(int rootfd, struct kj_err *err)
{
	/* pivot_root(".", "."): the host's tree ends up stacked under the
	 * new root and is detached at once, so no host path stays reachable. */
	if (fchdir(rootfd) < 0)
		return kj_fail(err, "mount", errno, NULL, "enter the new root");
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return kj_fail(err, "mount", errno, NULL, "pivot_root");
	if (umount2(".", MNT_DETACH) < 0)
		return kj_fail(err, "mount", errno, NULL, "detach the host's root");
	if (chdir("/") < 0)
		return kj_fail(err, "mount", errno, NULL, "chdir /");
	return 0;
}

/* Must the binds and masks wait for the fresh /sys? When a bind lands
 * below /sys, and for any --mask (its path may lead there through a
 * symlink): the fresh sysfs would cover them. The built-in masks hide
 * host files, which a fresh sysfs hides just as well. */
static bool below_sys(const struct kj_config *cfg)
{
	if (cfg->nmasks || path_covers("/sys", cfg->workspace.dest))
		return true;
	for (size_t i = 0; i < cfg->nbinds; i++)
		if (path_covers("/sys", cfg->binds[i].dest))
			return true;
	return false;
}

/* Run one step of the recipe: on failure leave with its rc. */
#define STEP(call, name)           \
	do {                       \
		if ((rc = (call))) \
			goto out;  \
		kj_trace(name);    \
	} while (0)

int rootfs_build(const struct kj_config *cfg, bool cgroupfs, struct netns_job *net,
		 const struct host_pseudofs *pseudo, const struct home_aliases *homes,
		 struct kj_err *err)
{
	char tmp_opts[96];
	int pathfd, rootfd, rc = -EINVAL, bind_fds[KJ_MAX_BINDS + 1];
	bool early;

	for (size_t i = 0; i <= KJ_MAX_BINDS; i++)
		bind_fds[i] = -1;
	masks_check_as(cfg);

	/* Nothing we mount may propagate back to the host, and nothing the
	 * host mounts later may appear in the sandbox. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return kj_fail(err, "mount", errno, NULL, "make / private");

	/* cfg->root is opened as a grant's source is (path_open_validated):
	 * swapped after the check for a link to / (a session whose workspace
	 * holds the --root DIR renaming one over it), open_tree followed it,
	 * and the sandbox got the host's / while the socket and pseudo file
	 * system masks, listed for DIR, left the host's unix sockets outside
	 * /run and /tmp (an LXD socket is root on the host) connectable; a
	 * directory renamed over it is the same swap. Every submount is made
	 * read-only in the same call: a host tmpfs below / must not stay
	 * writable (the recursive flag is what `mount -o remount,ro` alone
	 * would miss). */
	pathfd = path_open_validated(cfg->root, cfg->root_dev, cfg->root_ino, "root", err);
	if (pathfd < 0)
		return pathfd;
	rootfd = tree_clone(pathfd, "the root", 1, RO_ATTRS, 0, err);
	close(pathfd);
	if (rootfd < 0)
		return rootfd;
	kj_trace("mount: root cloned");
	if (binds_prepare(cfg, bind_fds, err))
		goto out;
	/* Attach the tree somewhere in our private mount namespace so that
	 * it can be mounted on and then pivoted into. (It shadows /tmp from
	 * here on, which is why the binds were cloned first.) */
	if (move_mount(rootfd, "", AT_FDCWD, "/tmp", MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		rc = kj_fail(err, "mount", errno, NULL, "attach the root at /tmp");
		goto out;
	}
	mount_watch_note(rootfd);

	kj_trace("mount: root read-only, binds cloned, attached");
	/* nr_inodes: size= bounds data pages only, and an empty file, a
	 * directory or a link costs none; without a cap each tmpfs took ~3
	 * million inodes and dentries (half the host's RAM in pages), GBs of
	 * kernel memory no --memory of a best-effort run bounds. One per KiB
	 * of size is 4 per data page. */
	snprintf(tmp_opts, sizeof(tmp_opts), "mode=1777,size=%llu,nr_inodes=%llu",
		 (unsigned long long)cfg->tmp_size,
		 (unsigned long long)(cfg->tmp_size / 1024 < 1024 ? 1024 : cfg->tmp_size / 1024));
	/* One step a line, each timed under KJAIL_TRACE=1 (make bench's
	 * breakdown). */
	STEP(proc_mount(rootfd, cfg, err), "mount: /proc");
	STEP(dev_mount(rootfd, err), "mount: /dev");
	STEP(fresh_mount(rootfd, "/tmp", "tmpfs", tmp_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
			 err),
	     "mount: /tmp");
	STEP(fresh_mount(rootfd, "/run", "tmpfs", "mode=0755,size=16m,nr_inodes=16k",
			 MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, err),
	     "mount: /run");
	STEP(var_run_mount(rootfd, err), "mount: /var/run");
	/* Binds and masks after the fresh mounts: a grant or --mask below
	 * /tmp, /run or /sys lands on the fresh mount, not under it. Unless
	 * one is below /sys, they go before it, while net/netns.c is still
	 * making the network namespace, which the fresh /sys must wait for. */
	early = !below_sys(cfg);
	if (early) {
		STEP(binds_mount(rootfd, cfg, bind_fds, err), "mount: workspace and grants");
		STEP(git_protect(rootfd, cfg->workspace.dest, err), "mount: git protection");
		STEP(masks_mount(rootfd, cfg, homes, err),
		     "mount: credential and host-secret masks");
	}
	/* The fresh /sys shows the mounting task's network namespace, so
	 * from here on the sandbox's own must be there; so must the host's
	 * socket list. */
	STEP(netns_enter(net, err), "net: namespace entered");
	STEP(sys_mount(rootfd, cfg, err), "mount: /sys");
	STEP(cgroup_mount(rootfd, cfg, cgroupfs, err), "mount: /sys/fs/cgroup");
	STEP(sys_masks_mount(rootfd, err), "mount: /sys masks");
	if (!early) {
		STEP(binds_mount(rootfd, cfg, bind_fds, err), "mount: workspace and grants");
		STEP(git_protect(rootfd, cfg->workspace.dest, err), "mount: git protection");
		STEP(masks_mount(rootfd, cfg, homes, err),
		     "mount: credential and host-secret masks");
	}
	STEP(host_sockets_mask(rootfd, net->sockets, err), "mount: host socket masks");
	STEP(pseudofs_mask(rootfd, pseudo, err), "mount: host pseudo file systems hidden");
	STEP(pivot(rootfd, err), "mount: pivot_root");
	rc = 0;
out:
	mask_sources_release();
	binds_release(cfg, bind_fds);
	close(rootfd);
	return rc;
}
