/* The workspace and the --ro/--rw binds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "mounts/git_after.h"
#include "mounts/mountapi.h"
#include "mounts/rootfs.h"

/* A kernel pseudo file system that pseudofs.c hides (procfs, sysfs,
 * debugfs...). configfs and fusectl have no constant in linux/magic.h. */
static bool pseudo_fs(long type)
{
	static const long types[] = {
		PROC_SUPER_MAGIC,
		SYSFS_MAGIC,
		DEBUGFS_MAGIC,
		TRACEFS_MAGIC,
		SECURITYFS_MAGIC,
		BPF_FS_MAGIC,
		CGROUP_SUPER_MAGIC,
		CGROUP2_SUPER_MAGIC,
		EFIVARFS_MAGIC,
		PSTOREFS_MAGIC,
		BINFMTFS_MAGIC,
		0x62656570 /* configfs */,
		0x65735543 /* fusectl */,
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (type == types[i])
			return true;
	return false;
}

/* Clone b->src, detached. The source is opened again here without
 * following any symlink and must still be the file that was validated
 * (same device and inode): a path swapped for a symlink or another
 * directory between the check and the mount is refused. */
static int bind_clone(const struct kj_bind *b, const char *what, struct kj_err *err)
{
	unsigned set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (b->writable ? 0 : MOUNT_ATTR_RDONLY);
	int sfd = path_open_validated(b->src, b->dev, b->ino, what, err), mfd;

	if (sfd < 0)
		return sfd;
	/* A source inside a procfs (or sysfs...) the host mounted elsewhere,
	 * a chroot's /srv/chroot/x/proc: config.c refuses one inside the
	 * host's /proc and /sys by path only, and pseudofs.c hides such a
	 * mount below a bind's DEST only where the bind's source holds all of
	 * it, so `--ro /srv/chroot/x/proc/1:/tmp/p` showed the host's
	 * processes (and .../proc/sys the host's sysctls). */
	{
		struct statfs sfs;
		if (fstatfs(sfd, &sfs) < 0 || pseudo_fs((long)sfs.f_type)) {
			close(sfd);
			return kj_fail(
				err, what, 0, "the sandbox has its own /proc and /sys",
				"%s is on a kernel pseudo file system (proc, sysfs...) of the "
				"host's, which would show the host's processes or devices",
				b->src);
		}
	}
	mfd = tree_clone(sfd, b->src, 1, set, 0, err);
	close(sfd);
	return mfd;
}

/* Where DEST landed, walked up to the new root: inside (or onto) kjail's
 * /proc or /dev? config.c refuses those names as given; through a symlink
 * (./p -> /proc in the workspace) the bind went onto the fresh /proc and
 * the sandbox's /proc became a writable host directory, where a session's
 * init looks for its execs' processes. A DEST with no symlink on the way
 * (the usual case, one lookup) needs no walk. */
static bool lands_in_kernel_tree(int rootfd, int tfd, const struct kj_bind *b)
{
	static const char *const trees[] = {"/proc", "/dev"};
	struct stat top[2], root, cur;
	int fd, n = 0;
	bool hit = false;

	fd = path_open(rootfd, b->dest + 1, 0,
		       RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd >= 0) {
		bool plain = fstat(fd, &cur) == 0 && fstat(tfd, &root) == 0 &&
			     cur.st_dev == root.st_dev && cur.st_ino == root.st_ino;
		close(fd);
		if (plain)
			return false;
	}
	for (int i = 0; i < 2; i++) {
		fd = path_open_in_root(rootfd, trees[i], O_DIRECTORY);
		if (fd >= 0 && fstat(fd, &top[n]) == 0)
			n++;
		if (fd >= 0)
			close(fd);
	}
	if (fstat(rootfd, &root) < 0 || fstat(tfd, &cur) < 0)
		return true; /* cannot tell: refused */
	/* A file: by its directory, which a lookup of ".." cannot give;
	 * the fresh /proc and /dev each have a device of their own. */
	if (!S_ISDIR(cur.st_mode)) {
		for (int i = 0; i < n; i++)
			hit = hit || cur.st_dev == top[i].st_dev;
		return hit;
	}
	fd = fcntl(tfd, F_DUPFD_CLOEXEC, 0);
	for (int depth = 0; fd >= 0 && !hit && depth < 4096; depth++) {
		int up;
		if (fstat(fd, &cur) < 0 || (cur.st_dev == root.st_dev && cur.st_ino == root.st_ino))
			break;
		for (int i = 0; i < n; i++)
			hit = hit || (cur.st_dev == top[i].st_dev && cur.st_ino == top[i].st_ino);
		up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = up;
	}
	if (fd >= 0)
		close(fd);
	return hit;
}

/* Is tfd the new root itself (the same mount and directory)? config.c
 * refuses a DEST of "/" as given; through a symlink to / (`up -> /` in a
 * --root, or planted in the workspace by an earlier run) the bind was
 * stacked on the root, under which pivot_root left the command: the
 * workspace silently missing, the command in / instead of in it. */
static bool lands_on_root(int rootfd, int tfd)
{
	struct statx r, t;

	if (statx(rootfd, "", AT_EMPTY_PATH, STATX_INO | STATX_MNT_ID, &r) < 0 ||
	    statx(tfd, "", AT_EMPTY_PATH, STATX_INO | STATX_MNT_ID, &t) < 0)
		return true; /* cannot tell: refused */
	return r.stx_ino == t.stx_ino && r.stx_dev_major == t.stx_dev_major &&
	       r.stx_dev_minor == t.stx_dev_minor &&
	       (!(r.stx_mask & t.stx_mask & STATX_MNT_ID) || r.stx_mnt_id == t.stx_mnt_id);
}

static int bind_attach(int rootfd, int mfd, const struct kj_bind *b, const char *what,
		       struct kj_err *err)
{
	int tfd = mountpoint_open(rootfd, b->dest, b->is_dir, what, err), rc;
	struct stat st;

	if (tfd >= 0 && lands_on_root(rootfd, tfd)) {
		close(tfd);
		return kj_fail(err, what, 0, "kjail builds / itself; give another DEST",
			       "%s leads to / through a symbolic link", b->dest);
	}

	if (tfd >= 0 && lands_in_kernel_tree(rootfd, tfd, b)) {
		close(tfd);
		return kj_fail(err, what, 0,
			       "kjail builds /proc and /dev itself; give another DEST",
			       "%s leads into /proc or /dev through a symbolic link", b->dest);
	}

	/* A directory mounts only on a directory, a file only on a
	 * non-directory: said as such, not as move_mount's EINVAL. */
	if (tfd >= 0 && fstat(tfd, &st) == 0 && S_ISDIR(st.st_mode) != b->is_dir) {
		close(tfd);
		return kj_fail(err, what, 0, "give a DEST of the same kind as the source",
			       "%s is a %s, and %s there is a %s", b->src,
			       b->is_dir ? "directory" : "file", b->dest,
			       S_ISDIR(st.st_mode) ? "directory" : "file");
	}
	rc = tfd < 0 ? tfd : tree_attach(mfd, tfd, b->dest, err);
	if (tfd >= 0)
		close(tfd);
	return rc;
}

static const char *bind_what(const struct kj_config *cfg, size_t i)
{
	return i == 0                       ? "workspace"
	       : cfg->binds[i - 1].agent    ? "ssh-agent"
	       : cfg->binds[i - 1].writable ? "rw"
					    : "ro";
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

static int protect_paths(int rootfd, const struct kj_config *cfg, struct kj_err *err);

/* Path components of an absolute destination ("/a/b" has 2). */
static size_t dest_depth(const char *dest)
{
	size_t n = 0;

	for (const char *p = dest; *p; p++)
		n += p[0] != '/' && (p == dest || p[-1] == '/');
	return n;
}

int binds_mount(int rootfd, const struct kj_config *cfg, const int *mfds, struct kj_err *err)
{
	size_t order[KJ_MAX_BINDS + 1], n = cfg->nbinds + 1;
	int rc = 0;

	/* Shallower destinations first (stable: the workspace, then the
	 * grants in flag order): a grant of /home must not cover a workspace
	 * or a grant below it, which it did when attached after them. Only an
	 * equal destination covers an earlier bind, the later flag winning. */
	for (size_t i = 0; i < n; i++) {
		size_t j = i, d = dest_depth(bind_at(cfg, i)->dest);
		for (; j > 0 && dest_depth(bind_at(cfg, order[j - 1])->dest) > d; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (size_t k = 0; !rc && k < n; k++)
		rc = bind_attach(rootfd, mfds[order[k]], bind_at(cfg, order[k]),
				 bind_what(cfg, order[k]), err);
	/* --protect: read-only once every bind is in place, so no later bind
	 * of the workspace's own can cover a protected path. */
	return rc ? rc : protect_paths(rootfd, cfg, err);
}

void binds_release(const struct kj_config *cfg, int *mfds)
{
	for (size_t i = 0; i <= cfg->nbinds; i++)
		if (mfds[i] >= 0) {
			close(mfds[i]);
			mfds[i] = -1;
		}
}

/* Bind the object at fd onto itself, read-only or not. A mount point
 * cannot be renamed or removed (EBUSY), so it also stays where it is. */
static int pin_fd(int fd, const char *name, int readonly, struct kj_err *err)
{
	int mfd, rc;

	mfd = tree_clone(fd, name, 1,
			 MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (readonly ? MOUNT_ATTR_RDONLY : 0),
			 0, err);
	rc = mfd < 0 ? mfd : tree_attach(mfd, fd, name, err);
	if (mfd >= 0)
		close(mfd);
	return rc;
}

/* fd is a mount's root (its own pin, a bind, .git): renaming it is
 * already EBUSY. */
static bool mount_root(int fd)
{
	struct statx stx;

	return statx(fd, "", AT_EMPTY_PATH, 0, &stx) == 0 &&
	       (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* Every directory between dirfd and rel's last component bound onto
 * itself (writable: only the name is held). A pin moves with its parent:
 * `mv tools tools.old; mkdir -p tools/hooks` left the read-only
 * tools/hooks under another name and let the command plant the hooks
 * host git runs, or swap a masked file's directory for a decoy that the
 * next run masked instead. A mount point cannot be renamed (EBUSY), so
 * the path names the same file for the whole run. Looked up by path from
 * dirfd every time, through the pins made before. */
int pin_parents(int dirfd, const char *rel, const char *what, struct kj_err *err)
{
	char prefix[PATH_MAX];
	int rc = 0;

	for (const char *p = strchr(rel, '/'); !rc && p; p = strchr(p + 1, '/')) {
		int fd;

		if (p == rel || p[-1] == '/')
			continue; /* a leading or doubled slash: no component */
		if ((size_t)(p - rel) >= sizeof(prefix))
			return kj_fail(err, what, ENAMETOOLONG, NULL, "%s", rel);
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(p - rel), rel);
		fd = path_open(dirfd, prefix, O_DIRECTORY | O_NOFOLLOW,
			       RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd < 0)
			return kj_fail(err, what, -fd, NULL, "cannot hold %s in place: open %s",
				       rel, prefix);
		if (!mount_root(fd))
			rc = pin_fd(fd, prefix, 0, err);
		close(fd);
	}
	return rc;
}

/* A pin of a symbolic link protects the link, not what host git reads
 * through it: a .git/hooks -> ../myhooks would stay writable. Refused,
 * as a symlinked .git is. */
static int refuse_symlink(int fd, const char *shown, struct kj_err *err)
{
	struct stat st;
	char fix[PATH_MAX + 64];

	if (fstat(fd, &st) < 0)
		return kj_fail(err, "workspace", errno, NULL, "stat %s", shown);
	if (!S_ISLNK(st.st_mode))
		return 0;
	snprintf(fix, sizeof(fix), "replace the symlink %s with what it points to", shown);
	return kj_fail(err, "workspace", 0, fix, "cannot protect %s: it is a symbolic link", shown);
}

/* Bind name (beneath dirfd, the workspace's .git unless name is .git)
 * onto itself, read-only or not. */
static int pin(int dirfd, const char *name, int readonly, struct kj_err *err)
{
	int fd = path_open(dirfd, name, O_NOFOLLOW, RESOLVE_BENEATH_FLAGS), rc;
	char shown[PATH_MAX];

	snprintf(shown, sizeof(shown), "%s%s", strcmp(name, ".git") ? ".git/" : "", name);
	if (fd < 0) {
		return kj_fail(err, "workspace", -fd,
			       fd == -ENOENT
				       ? "create it on the host so kjail can make it read-only"
				       : NULL,
			       "open %s", shown);
	}
	rc = refuse_symlink(fd, shown, err);
	if (!rc)
		rc = pin_fd(fd, name, readonly, err);
	close(fd);
	return rc;
}

/* pin(), for a file that may not exist (nothing to protect then). */
static int pin_if_present(int dirfd, const char *name, int readonly, struct kj_err *err)
{
	return faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT
		       ? 0
		       : pin(dirfd, name, readonly, err);
}

/* The directory a small file names ("gitdir: PATH" in a .git file,
 * "PATH" in commondir), opened inside the new root; base is the
 * directory the file is in, a path inside. */
static int open_named_dir(int rootfd, int dirfd, const char *file, const char *prefix,
			  const char *base, char *out, size_t size)
{
	int rc = git_named_path(dirfd, file, prefix, base, out, size);

	if (rc) {
		out[0] = '\0'; /* defined on every path, even when the caller ignores rc */
		return rc;
	}
	/* Resolved inside the new root: no link in the repository can lead
	 * the protection (or anything else) out onto the host. */
	return path_open_in_root(rootfd, out, O_DIRECTORY);
}

static bool same_dir(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* path without "." and "name/.." parts, for messages only (lookups go
 * through the kernel, which knows about symlinks). */
static void tidy(const char *in, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	for (const char *p = in; *p;) {
		size_t len = strcspn(p, "/");
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(out, '/');
			n = slash ? (size_t)(slash - out) : 0;
			out[n] = '\0';
		} else if (len && !(len == 1 && p[0] == '.') && n + len + 2 < size) {
			n += (size_t)snprintf(out + n, size - n, "/%.*s", (int)len, p);
		}
		p += len + (p[len] == '/');
	}
	if (!out[0])
		snprintf(out, size, "/");
}

/* Pin dir/name (name NULL: dir itself) onto itself, looked up by path
 * from the new root every time: once a directory is pinned, only a fresh
 * lookup goes through the new top mount, and a pin made below it through
 * an older fd would be hidden under it. Nothing there: nothing to pin. */
static int pin_at(int rootfd, const char *dir, const char *name, int readonly, struct kj_err *err)
{
	char path[PATH_MAX], shown[PATH_MAX];
	int fd, rc;

	if ((size_t)snprintf(path, sizeof(path), "%s%s%s", dir, name ? "/" : "",
			     name ? name : "") >= sizeof(path))
		return kj_fail(err, "workspace", ENAMETOOLONG, NULL, "%s", dir);
	fd = path_open_in_root(rootfd, path, O_NOFOLLOW);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return kj_fail(err, "workspace", -fd, NULL, "open %s", path);
	tidy(path, shown, sizeof(shown));
	rc = refuse_symlink(fd, shown, err);
	if (!rc)
		rc = pin_fd(fd, path, readonly, err);
	close(fd);
	return rc;
}

/* An open that failed because the sandbox has nothing there, or nothing
 * the caller may reach (the command runs as the caller): nothing to
 * protect. Any other failure leaves a protection undone: an error, never
 * "absent" (fail closed). */
static bool absent(int fd)
{
	return fd == -ENOENT || fd == -ENOTDIR || fd == -EACCES;
}

/* The files in a linked worktree's own git directory that point host git
 * elsewhere (commondir), add to its config (config.worktree) or place
 * the worktree (gitdir, which `git worktree prune` and `repair` trust). */
static const char *const worktree_files[] = {"commondir", "config.worktree", "gitdir", NULL};

/* dir/worktrees/NAME of every linked worktree of the repository in dir:
 * each of worktree_files read-only where present. With dir writable
 * (`--rw <repo>/.git`, which a worktree needs), another worktree's
 * commondir could otherwise send host git there to hooks of the
 * command's. (One created during the run: git_after.c.) */
static int worktrees_protect(int rootfd, const char *dir, struct kj_err *err)
{
	char sub[PATH_MAX];
	struct dirent *e;
	int fd, rc = 0;
	DIR *d;

	if ((size_t)snprintf(sub, sizeof(sub), "%s/worktrees", dir) >= sizeof(sub))
		return kj_fail(err, "workspace", ENAMETOOLONG, NULL, "%s", dir);
	fd = path_open_in_root(rootfd, sub, O_DIRECTORY);
	if (absent(fd))
		return 0; /* no linked worktree */
	if (fd < 0)
		return kj_fail(
			err, "workspace", -fd,
			"repair it so host git can read it, or remove it if no worktree uses it",
			"cannot protect linked worktrees: open %s", sub);
	d = fdopendir(openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	close(fd);
	if (!d)
		return kj_fail(err, "workspace", errno, NULL, "list %s", sub);
	while (!rc && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/worktrees/%s", dir, e->d_name) >=
		    sizeof(sub)) {
			rc = kj_fail(err, "workspace", ENAMETOOLONG, NULL, "%s", dir);
			break;
		}
		for (int i = 0; !rc && worktree_files[i]; i++)
			rc = pin_at(rootfd, sub, worktree_files[i], 1, err);
	}
	closedir(d);
	return rc;
}

/* A file or directory git needs in dir, missing where the sandbox could
 * create it (hooks/, config): refused, as for .git/hooks. */
static int must_exist(int fd, const char *dir, const char *name, bool readonly, struct kj_err *err)
{
	char shown[PATH_MAX];

	if (readonly || faccessat(fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	tidy(dir, shown, sizeof(shown));
	return kj_fail(err, "workspace", ENOENT,
		       "create it on the host so kjail can make it read-only",
		       "cannot protect %s/%s", shown, name);
}

/* The directory whose hooks/ and config git uses: pinned, with hooks/,
 * config and config.worktree read-only, and its linked worktrees'
 * files. Missing hooks/ or config where the sandbox could create them:
 * refused. */
static int common_protect(int rootfd, const char *dir, struct kj_err *err)
{
	int fd = path_open_in_root(rootfd, dir, O_DIRECTORY), rc;
	struct statvfs vfs;
	bool readonly;

	if (absent(fd))
		return 0; /* not in the sandbox: git cannot use it there either */
	if (fd < 0)
		return kj_fail(err, "workspace", -fd,
			       "check the git directory that .git or its commondir file names",
			       "cannot protect git hooks and config: open %s", dir);
	readonly = fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
	rc = must_exist(fd, dir, "hooks", readonly, err);
	if (!rc)
		rc = must_exist(fd, dir, "config", readonly, err);
	close(fd);
	if (rc || (rc = pin_at(rootfd, dir, NULL, 0, err)) ||
	    (rc = pin_at(rootfd, dir, "hooks", 1, err)) ||
	    (rc = pin_at(rootfd, dir, "config", 1, err)) ||
	    /* read when extensions.worktreeConfig is set (git sparse-checkout) */
	    (rc = pin_at(rootfd, dir, "config.worktree", 1, err)) ||
	    /* a repository's own commondir: host git would follow it too */
	    (rc = pin_at(rootfd, dir, "commondir", 1, err)))
		return rc;
	return worktrees_protect(rootfd, dir, err);
}

/* A worktree (or submodule) keeps its repository elsewhere: .git is a
 * file naming the real git directory, whose commondir file names the
 * directory with the hooks and the shared config. If the sandbox can
 * write those (a --rw grant, or inside the workspace), a hook planted
 * there runs on the host: so they get .git's protection too. */
static int gitdir_protect(int rootfd, int wsfd, const char *ws, struct kj_err *err)
{
	static const char *const own_files[] = {"commondir", "config", "config.worktree", NULL};
	char gitdir[PATH_MAX], common[PATH_MAX];
	int gfd, cfd, rc;
	bool shared;

	gfd = open_named_dir(rootfd, wsfd, ".git", "gitdir: ", ws, gitdir, sizeof(gitdir));
	if (gfd < 0)
		return 0; /* no such directory here: git cannot use it either */
	cfd = open_named_dir(rootfd, gfd, "commondir", "", gitdir, common, sizeof(common));
	shared = cfd >= 0 && !same_dir(gfd, cfd);
	close(gfd);
	if (cfd >= 0)
		close(cfd);
	if (!shared)
		return common_protect(rootfd, gitdir, err); /* a submodule: a whole repository */
	/* The common directory first: the worktree's own directory is
	 * usually inside it, and a later pin of the common directory would
	 * cover the pins made inside it. */
	if ((rc = common_protect(rootfd, common, err)) ||
	    (rc = pin_at(rootfd, gitdir, NULL, 0, err)))
		return rc;
	/* commondir and the worktree's config point git elsewhere. */
	for (int i = 0; !rc && own_files[i]; i++)
		rc = pin_at(rootfd, gitdir, own_files[i], 1, err);
	return rc;
}

/* --protect PATH: bound read-only onto itself, beneath the workspace and
 * through no symlink (config.c checked it exists). */
static int protect_paths(int rootfd, const struct kj_config *cfg, struct kj_err *err)
{
	int wsfd, rc = 0;

	if (!cfg->nprotect)
		return 0;
	wsfd = path_open_in_root(rootfd, cfg->workspace.dest, O_DIRECTORY);
	if (wsfd < 0)
		return kj_fail(err, "protect", -wsfd, NULL, "open %s", cfg->workspace.dest);
	for (size_t i = 0; !rc && i < cfg->nprotect; i++) {
		int fd;

		if ((rc = pin_parents(wsfd, cfg->protect[i], "protect", err)))
			break;
		fd = path_open(wsfd, cfg->protect[i], O_NOFOLLOW,
			       RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd < 0) {
			rc = kj_fail(err, "protect", -fd, NULL, "open %s", cfg->protect[i]);
			break;
		}
		rc = pin_fd(fd, cfg->protect[i], 1, err);
		close(fd);
	}
	close(wsfd);
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
		 * it cannot be pointed at a directory the command controls;
		 * then the directories it names get the same protection. */
		rc = pin(wsfd, ".git", 1, err);
		if (!rc)
			rc = gitdir_protect(rootfd, wsfd, ws, err);
		close(wsfd);
		return rc;
	}
	rc = pin(wsfd, ".git", 0, err);
	/* .git is now a mount of its own: open it across that boundary. */
	gitfd = rc ? -1
		   : path_open(wsfd, ".git", O_DIRECTORY,
			       RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	close(wsfd);
	if (rc)
		return rc;
	if (gitfd < 0)
		return kj_fail(err, "workspace", -gitfd, NULL, "open .git");
	if (faccessat(gitfd, "hooks", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		close(gitfd);
		return kj_fail(
			err, "workspace", errno,
			"create it on the host (mkdir .git/hooks) so kjail can make it read-only",
			"cannot protect .git/hooks");
	}
	rc = pin(gitfd, "hooks", 1, err);
	if (!rc)
		rc = pin(gitfd, "config", 1, err);
	/* A commondir file makes git take hooks and config from elsewhere,
	 * and config.worktree adds to config (with extensions.worktreeConfig,
	 * which git sparse-checkout sets): one that exists is pinned. (One
	 * the command creates is set aside after the run: git_after.c.) */
	if (!rc)
		rc = pin_if_present(gitfd, "commondir", 1, err);
	if (!rc)
		rc = pin_if_present(gitfd, "config.worktree", 1, err);
	close(gitfd);
	if (!rc) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s/.git", ws);
		rc = worktrees_protect(rootfd, dir, err);
	}
	return rc;
}
