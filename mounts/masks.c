/* Masking: an empty read-only directory over a directory, /dev/null over a
 * file. Applied last, after every bind, so no bind can re-expose them. */
#include "mounts/masks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/hostmounts.h"
#include "mounts/mountapi.h"
#include "mounts/rootfs.h"
#include "mounts/sockets.h"
#include "runtime/conffile.h"
#include "runtime/mount_watch.h"

const char *const credential_paths[] = {
	".ssh",
	".gnupg",
	".aws",
	".azure",
	".config/gcloud",
	".kube",
	".docker/config.json",
	".netrc",
	".git-credentials",
	/* git credential-store reads this one too (its XDG file). */
	".config/git/credentials",
	".config/gh",
	".npmrc",
	".pypirc",
	".cargo/credentials",
	".cargo/credentials.toml",
	/* Database clients' passwords (psql, mysql). */
	".pgpass",
	".my.cnf",
	".mylogin.cnf",
	/* Tokens and keys of cloud and secret-store tools: Vault, s3cmd,
	 * gsutil, rclone, DigitalOcean, Terraform Cloud. */
	".vault-token",
	".s3cfg",
	".boto",
	".config/rclone",
	".config/doctl",
	".terraform.d/credentials.tfrc.json",
	/* Git forges' other command-line tools (hub, GitLab's glab). */
	".config/hub",
	".config/glab-cli",
	/* Coding agents' own sign-in (Claude Code, Codex CLI, Gemini CLI):
	 * an agent that runs its commands through kjail must not hand them
	 * its account's token. */
	".claude/.credentials.json",
	".codex/auth.json",
	".gemini/oauth_creds.json",
	/* Password stores: pass's tree (which names every account) and the
	 * desktop keyrings. */
	".password-store",
	".local/share/keyrings",
	/* kjail's own settings, profiles and --env-file vaults: a sandbox
	 * reads none of them (they may hold tokens for other sandboxes). */
	".config/kjail",
	NULL,
};

/* A fresh detached mount to hide something with: an empty read-only
 * tmpfs for a directory, a clone of the host's verified /dev/null for a
 * file. */
static int mask_source(int is_dir, struct kj_err *err)
{
	if (!is_dir)
		return devnull_clone(err);
	return fs_new("tmpfs", "mode=0000,size=4k,nr_inodes=1",
		      MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
		      err);
}

/* The first mask of each kind, once attached: later masks are clones of
 * it. A new tmpfs costs a superblock (fsopen, fsconfig, fsmount: about
 * 20 us each, and a sandbox has a dozen masks); a clone of an attached
 * mount is one open_tree, on every kernel (Linux 6.1 cannot clone a
 * detached one). Sharing is safe: the directory is a read-only, empty,
 * mode 0000 tmpfs with no room for an inode, and the file is the node the
 * first clone verified as /dev/null (the fd pins it; no path is looked up
 * again, so nothing can be swapped in). */
static int cached[2] = {-1, -1};

int mask_onto(int targetfd, int is_dir, bool watch, const char *what, struct kj_err *err)
{
	int *c = &cached[is_dir ? 1 : 0];
	int mfd = *c >= 0 ? tree_clone(*c, what, 0, 0, 0, err) : mask_source(is_dir, err);
	int rc;

	if (mfd < 0)
		return mfd;
	rc = watch ? tree_attach(mfd, targetfd, what, err)
		   : tree_attach_unwatched(mfd, targetfd, what, err);
	if (rc || *c >= 0)
		close(mfd);
	else
		*c = mfd; /* attached now */
	return rc;
}

/* The directories last found holding a missing path (~, ~/.config,
 * /etc), each with its watch descriptor (-1: not watched; -2: not yet
 * asked): the next missing path in one (~/.aws, then ~/.azure) is not
 * looked up nor watched again. */
#define DIRS_KEPT 4
static struct kept_dir {
	char path[PATH_MAX];
	int fd, wd;
} kept[DIRS_KEPT] = {{.fd = -1}, {.fd = -1}, {.fd = -1}, {.fd = -1}};
static unsigned kept_next;

void mask_sources_release(void)
{
	for (int i = 0; i < DIRS_KEPT; i++) {
		if (kept[i].fd >= 0)
			close(kept[i].fd);
		kept[i].fd = -1;
	}
	for (int i = 0; i < 2; i++) {
		if (cached[i] >= 0)
			close(cached[i]);
		cached[i] = -1;
	}
}

/* Who the command will run as, for command_may_reach: a non-root
 * --user's ids, or (uid -1) the setup child's own, which are the
 * caller's. */
static uid_t reach_uid = (uid_t)-1;
static gid_t reach_gid = (gid_t)-1;

void masks_check_as(const struct kj_config *cfg)
{
	if (cfg->user_set && cfg->uid != 0) {
		reach_uid = cfg->uid;
		reach_gid = cfg->gid;
	}
}

/* Could the command read fd (search it, a directory) if no mask hid it?
 * The kernel decides, ACLs included: as the setup child itself, or for
 * --user with its file-system ids switched to the user's for the one
 * check (a file-system uid other than 0 also clears the file
 * capabilities from the effective set; going back to 0 raises them
 * again). The child keeps root's supplementary groups meanwhile, which
 * --user's command will not have: they can only grant more, so at worst
 * a mask is watched that need not be. If the switch does not take, it
 * is watched too. */
static bool command_may_reach(int fd, bool is_dir)
{
	bool as_user = reach_uid != (uid_t)-1, switched = true;
	uid_t was_uid = 0;
	gid_t was_gid = 0;
	int rc = 0, e = 0;

	if (as_user) {
		was_gid = (gid_t)setfsgid(reach_gid);
		was_uid = (uid_t)setfsuid(reach_uid);
		/* -1 changes nothing: each call answers the id in force. */
		switched = (uid_t)setfsuid((uid_t)-1) == reach_uid &&
			   (gid_t)setfsgid((gid_t)-1) == reach_gid;
	}
	if (switched) {
		rc = faccessat(fd, "", is_dir ? X_OK : R_OK, AT_EACCESS | AT_EMPTY_PATH);
		e = errno;
	}
	if (as_user) {
		(void)setfsuid(was_uid);
		(void)setfsgid(was_gid);
	}
	return !switched || rc == 0 || e != EACCES; /* any other answer: reachable */
}

/* Whether a missing path gets watched for it to appear (mask_absent):
 * off for the host's own secrets unless the command runs as host root,
 * the only one who could read what the host makes there. */
static bool watch_missing = true;

/* dir, open (kept), or -errno. */
static struct kept_dir *dir_open_in_root(int rootfd, const char *dir, int *fd)
{
	struct kept_dir *k;

	for (int i = 0; i < DIRS_KEPT; i++)
		if (kept[i].fd >= 0 && !strcmp(dir, kept[i].path))
			return *fd = kept[i].fd, &kept[i];
	*fd = path_open_in_root(rootfd, *dir ? dir : "/", O_DIRECTORY);
	if (*fd < 0)
		return NULL;
	k = &kept[kept_next++ % DIRS_KEPT];
	if (k->fd >= 0)
		close(k->fd);
	snprintf(k->path, sizeof(k->path), "%s", dir);
	k->fd = *fd;
	k->wd = -2;
	return k;
}

/* path (inside the new root) is missing: a credential store the host
 * may make while the sandbox runs (`aws configure`, `gh auth login`,
 * `docker login`, a `git credential-store` save), in the sight of a
 * command that began with nothing there, through the read-only root.
 * No mask can go where nothing is, and the host's file system is not
 * kjail's to change; so the deepest directory that is there is watched
 * for the next name on the way to appear (runtime/mount_watch.c), and
 * the sandbox ends the moment it does. A symbolic link there that leads
 * nowhere yet (a dotfiles manager's ~/.aws -> /secure/aws) is followed:
 * both its name and where it points are watched. 1 when path is there
 * after all (made meanwhile: mask it), 0, or -errno. */
static int mask_absent(int rootfd, const char *path, int links, struct kj_err *err)
{
	char dir[PATH_MAX], entry[NAME_MAX + 1], target[PATH_MAX], next[PATH_MAX];
	const char *name, *rest;
	struct kept_dir *k = NULL;
	struct stat st;
	bool fresh_watch;
	ssize_t n;
	int dfd = -ENOENT, fd;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return 0; /* longer than a path: nothing can be there */
	/* Up to the deepest directory there (a file on the way: its parent,
	 * where a directory could be renamed over it). */
	while (dfd == -ENOENT || dfd == -ENOTDIR || dfd == -ELOOP) {
		char *slash = strrchr(dir, '/');
		if (!slash)
			return 0;
		*slash = '\0';
		k = dir_open_in_root(rootfd, dir, &dfd);
	}
	if (dfd == -EACCES)
		return 0; /* out of the caller's reach, as in mask_path */
	if (dfd < 0)
		return kj_fail(err, "mask", -dfd, NULL, "open %s, to watch for %s", dir, path);
	/* Watched before this path was first looked up (the same directory
	 * as the last path's): a name made since is seen, so no second look
	 * is needed below. */
	fresh_watch = k->wd == -2;
	if (fresh_watch)
		k->wd = command_may_reach(dfd, true) ? mount_watch_dir(dfd) : -1;
	if (k->wd < 0)
		return 0;
	name = path + strlen(dir) + 1;
	rest = strchr(name, '/');
	if ((size_t)snprintf(entry, sizeof(entry), "%.*s",
			     (int)(rest ? rest - name : (long)strlen(name)), name) >= sizeof(entry))
		return 0; /* longer than a name: nothing can be there */
	mount_watch_expect(k->wd, entry, path);
	if (fstatat(dfd, entry, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
		if (links >= 8)
			return kj_fail(err, "mask", ELOOP, NULL, "follow %s", path);
		n = readlinkat(dfd, entry, target, sizeof(target) - 1);
		if (n < 0)
			return kj_fail(err, "mask", errno, NULL, "read the link on the way to %s",
				       path);
		target[n] = '\0';
		if ((size_t)snprintf(next, sizeof(next), "%s%s%s%s", target[0] == '/' ? "" : dir,
				     target[0] == '/' ? "" : "/", target,
				     rest ? rest : "") >= sizeof(next))
			return 0;
		if ((fd = path_open_in_root(rootfd, next, 0)) == -ENOENT)
			return mask_absent(rootfd, next, links + 1, err);
		if (fd >= 0)
			close(fd);
	}
	/* Made between the lookup and the watch: mask it now. */
	if (!fresh_watch)
		return 0;
	fd = path_open_in_root(rootfd, path, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

int mask_path(int rootfd, const char *path, mode_t only, struct kj_err *err)
{
	struct stat st;
	bool watch;
	int fd, rc;

	/* Resolved inside the new root: a symlinked ~/.ssh gets its target
	 * masked, and no link can lead the mask out onto the host. */
	fd = path_open_in_root(rootfd, path, 0);
	/* Not in the sandbox: watched for it to appear (a host socket's
	 * mask, only S_IFSOCK, is not). */
	if (fd == -ENOENT && !only && watch_missing) {
		if ((rc = mask_absent(rootfd, path, 0, err)) <= 0)
			return rc;
		fd = path_open_in_root(rootfd, path, 0);
	}
	/* Not in the sandbox, or out of the caller's own reach (the command
	 * runs as the caller with fewer rights): nothing to hide. */
	if (fd == -ENOENT || fd == -EACCES)
		return 0;
	if (fd < 0)
		return kj_fail(err, "mask", -fd, NULL, "open %s", path);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return kj_fail(err, "mask", errno, NULL, "stat %s", path);
	}
	if (only && (st.st_mode & S_IFMT) != only) {
		close(fd);
		return 0;
	}
	/* Watched (runtime/mount_watch.c) only if the command could read it
	 * (search it, a directory) without the mask: the host replacing
	 * /etc/shadow or /etc/sudoers (useradd, passwd and visudo save by
	 * rename; dpkg does for a package's file) detaches the mask, and
	 * killing every unprivileged sandbox (or every --user one: a CI
	 * runner's job, while the runner adds the next job's user) for what
	 * its permissions still hide helps no one. The setup child checks as
	 * the command will be: the caller's ids in a user namespace (no
	 * capability over a file of an unmapped owner), a root caller with
	 * every right (so watched), --user's ids. */
	watch = command_may_reach(fd, S_ISDIR(st.st_mode));
	/* Nor a host unix socket's: a socket bound after the sandbox started
	 * is in its sight anyway (README, "Host unix sockets"), and one
	 * unlinked and bound again (its service restarted) is no more than
	 * that. Watched, a socket a host service removed killed every running
	 * sandbox and session that had it masked (the test VM's other lane
	 * ending a listener killed a tty.t session). */
	if (only == S_IFSOCK)
		watch = false;
	/* A directory above it renamed on the host (`mv ~/.config x`) takes
	 * the mask along: watched too (runtime/mount_watch.c), looked up
	 * before the mask covers the name. */
	if (watch)
		mount_watch_parents(fd, S_ISDIR(st.st_mode));
	rc = mask_onto(fd, S_ISDIR(st.st_mode), watch, path, err);
	close(fd);
	return rc;
}

/* A mask the sandbox could move: path below the DEST of a writable bind
 * (the workspace, a --rw grant) through directories the command can
 * rename. The mask moves with them, and a file put at the old name is
 * what the next run masks, while the real one shows under the new name
 * (`mv conf conf.x; mkdir conf; touch conf/secret.env`). Those
 * directories are held in place first (mounts/binds.c: pin_parents). */
static int mask_held(int rootfd, const struct kj_config *cfg, const char *path, struct kj_err *err)
{
	int rc = 0, fd = -1;

	for (size_t i = 0; !rc && i <= cfg->nbinds; i++) {
		const struct kj_bind *b = i < cfg->nbinds ? &cfg->binds[i] : &cfg->workspace;
		int dfd;

		if (!b->writable || !b->dest || !strcmp(b->dest, "/") ||
		    !path_covers(b->dest, path) || !path[strlen(b->dest)])
			continue;
		/* Nothing there: nothing to mask, nothing to hold. */
		if (fd < 0 && (fd = path_open_in_root(rootfd, path, 0)) < 0)
			break;
		dfd = path_open_in_root(rootfd, b->dest, O_DIRECTORY);
		if (dfd < 0) {
			rc = kj_fail(err, "mask", -dfd, NULL, "open %s", b->dest);
			break;
		}
		rc = pin_parents(dfd, path + strlen(b->dest) + 1, "mask", err);
		close(dfd);
	}
	if (fd >= 0)
		close(fd);
	return rc ? rc : mask_path(rootfd, path, 0, err);
}

/* host (a host path) below the DEST of every bind whose source holds it,
 * but at except (masked already): a mask at the file's own path alone
 * left `--ro /etc/ssl:/tmp/ssl` showing /tmp/ssl/private, or
 * `--workspace $PWD:/work --mask $PWD/secret` showing /work/secret. */
static int mask_aliases(int rootfd, const struct kj_config *cfg, const char *host,
			const char *except, struct kj_err *err)
{
	char alias[PATH_MAX];
	int rc = 0;

	for (size_t i = 0; !rc && i <= cfg->nbinds; i++) {
		const struct kj_bind *b = i < cfg->nbinds ? &cfg->binds[i] : &cfg->workspace;
		if (!b->src || !b->dest || !strcmp(b->src, b->dest) || !path_covers(b->src, host) ||
		    (size_t)snprintf(alias, sizeof(alias), "%s%s", b->dest,
				     host + (strcmp(b->src, "/") ? strlen(b->src) : 0)) >=
			    sizeof(alias))
			continue;
		if (strcmp(alias, except))
			rc = mask_held(rootfd, cfg, alias, err);
	}
	return rc;
}

static int mask_home(int rootfd, const struct kj_config *cfg, const char *home, struct kj_err *err)
{
	char path[PATH_MAX];
	int rc = 0;

	for (int i = 0; !rc && credential_paths[i]; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", home, credential_paths[i]) >=
		    sizeof(path))
			return kj_fail(err, "mask", ENAMETOOLONG, NULL, "%s", home);
		rc = mask_held(rootfd, cfg, path, err);
		if (!rc)
			rc = mask_aliases(rootfd, cfg, path, path, err);
	}
	return rc;
}

/* $XDG_CONFIG_HOME moves ~/.config: git, gh and gcloud then keep their
 * tokens below it, and the masks of ~/.config/... alone would leave
 * `cat $XDG_CONFIG_HOME/gh/hosts.yml` (or git/credentials) readable
 * through the read-only root; so would $XDG_CONFIG_HOME/kjail, kjail's
 * own configuration then. Read here, in the setup child, which still
 * has the caller's environment (the command's own is built apart, in
 * runtime/env.c). A relative value was refused before (the same check). */
static int mask_xdg_config(int rootfd, const struct kj_config *cfg, struct kj_err *err)
{
	static const char prefix[] = ".config/";
	const char *xdg;
	char path[PATH_MAX];
	int rc = 0;

	if ((rc = conf_xdg_config_home(&xdg, err)) || !xdg)
		return rc;
	for (int i = 0; i < 3 && cfg->homes[i]; i++)
		if (snprintf(path, sizeof(path), "%s/.config", cfg->homes[i]) > 0 &&
		    !strcmp(path, xdg))
			return 0; /* ~/.config itself: masked with the home */
	for (int i = 0; !rc && credential_paths[i]; i++) {
		const char *entry = credential_paths[i];
		if (strncmp(entry, prefix, sizeof(prefix) - 1))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", xdg,
				     entry + sizeof(prefix) - 1) >= sizeof(path))
			return kj_fail(err, "mask", ENAMETOOLONG, NULL, "XDG_CONFIG_HOME %s", xdg);
		rc = mask_held(rootfd, cfg, path, err);
	}
	return rc;
}

/* The host's own secrets. The sandbox of a root caller runs as uid 0, and
 * the owner of a file needs no capability to read it: without these masks
 * it could read the password hashes and the SSH host keys (then
 * impersonate the host). */
static const char *const host_secrets[] = {
	"/etc/shadow",
	"/etc/shadow-",
	"/etc/gshadow",
	"/etc/gshadow-",
	"/etc/ssl/private",
	"/etc/sudoers",
	"/etc/sudoers.d",
	"/etc/krb5.keytab",
	/* The same hashes by another path: the passwd package's daily cron
	 * job (Ubuntu, older Debian) copies them here, 0600 root. */
	"/var/backups/shadow.bak",
	"/var/backups/gshadow.bak",
	NULL,
};

bool mask_builtin_covers(const struct kj_config *cfg, const char *path, char *out, size_t size)
{
	for (int i = 0; host_secrets[i]; i++)
		if (path_covers(host_secrets[i], path))
			return snprintf(out, size, "%s", host_secrets[i]) > 0;
	for (int h = 0; h < 3 && cfg->homes[h]; h++)
		for (int i = 0; credential_paths[i]; i++)
			if ((size_t)snprintf(out, size, "%s/%s", cfg->homes[h],
					     credential_paths[i]) < size &&
			    path_covers(out, path))
				return true;
	return false;
}

/* An SSH host key's file name in /etc/ssh: ssh_host_*_key. */
static bool ssh_host_key(const char *name)
{
	size_t n = strlen(name);

	return !strncmp(name, "ssh_host_", 9) && n >= 4 && !strcmp(name + n - 4, "_key");
}

static int mask_ssh_host_keys(int rootfd, const struct kj_config *cfg, struct kj_err *err)
{
	int dfd = path_open_in_root(rootfd, "/etc/ssh", O_DIRECTORY), rc = 0;
	struct dirent *e;
	DIR *d;

	if (dfd < 0)
		return 0;
	/* O_PATH cannot be listed: reopen it for reading through /proc. */
	{
		char p[64];
		snprintf(p, sizeof(p), "/proc/self/fd/%d", dfd);
		d = opendir(p);
	}
	close(dfd);
	while (!rc && d && (e = readdir(d))) {
		char path[PATH_MAX];
		if (!ssh_host_key(e->d_name))
			continue;
		snprintf(path, sizeof(path), "/etc/ssh/%s", e->d_name);
		rc = mask_path(rootfd, path, 0, err);
		if (!rc)
			rc = mask_aliases(rootfd, cfg, path, path, err);
	}
	if (d)
		closedir(d);
	return rc;
}

/* Make the session directory at path (inside the new root, through a
 * writable grant, so on the host) as `kjail create` would: 0700, the
 * caller's. Its parent must exist: a sandbox could make a missing one
 * and the directory in it. */
static int make_session_dir(int rootfd, const char *path, struct kj_err *err)
{
	char parent[PATH_MAX];
	const char *base = strrchr(path, '/');
	int dfd;

	snprintf(parent, sizeof(parent), "%.*s", (int)(base - path), path);
	dfd = path_open_in_root(rootfd, *parent ? parent : "/", O_DIRECTORY);
	if (dfd < 0)
		return kj_fail(
			err, "session", -dfd,
			"create it, or point XDG_RUNTIME_DIR at a directory outside the grants",
			"the session directory's parent %s is missing in a writable grant", parent);
	if (mkdirat(dfd, base + 1, 0700) < 0 && errno != EEXIST) {
		int e = errno;
		close(dfd);
		return kj_fail(err, "session", e, NULL, "create %s", path);
	}
	close(dfd);
	return 0;
}

/* kjail's session directory, wherever the sandbox would see it: at its
 * own path (a $XDG_RUNTIME_DIR outside /run shows through the read-only
 * root, and connect() needs no write access to a read-only mount), and
 * below every grant whose source covers it (--workspace /tmp, --ro
 * /run). Its sockets would let a command exec into a session with other
 * isolation (--net host, say), its records set a session's limits. Where
 * a writable grant covers it and it is not there yet, it is made first,
 * so the command cannot make it and plant a socket or a record that the
 * caller's next `kjail exec -s` would trust. */
static int mask_session_dir(int rootfd, const struct kj_config *cfg, const char *dir,
			    struct kj_err *err)
{
	bool host_root = !strcmp(cfg->root, "/");
	char inside[KJ_MAX_BINDS + 1][PATH_MAX];
	size_t n = 0;
	int rc = 0;

	/* Where each grant that covers it shows it; made first under a
	 * writable one. */
	for (size_t i = 0; !rc && i <= cfg->nbinds; i++) {
		const struct kj_bind *b = i < cfg->nbinds ? &cfg->binds[i] : &cfg->workspace;
		if (!b->src || !b->dest || !path_covers(b->src, dir) ||
		    (size_t)snprintf(inside[n], sizeof(inside[n]), "%s%s", b->dest,
				     dir + strlen(b->src)) >= sizeof(inside[n]))
			continue; /* not covered, or longer than a path: cannot exist there */
		if (b->writable)
			rc = make_session_dir(rootfd, inside[n], err);
		if (!host_root || strcmp(inside[n], dir) || fresh_inside(dir))
			n++; /* else its own path is masked below anyway */
	}
	/* At its own path only where the host's root shows it: below /run
	 * or /tmp the sandbox has a fresh tree, where the name may be
	 * kjail's own (the --ssh-agent socket's /run/kjail). */
	if (!rc && host_root && !fresh_inside(dir))
		rc = mask_held(rootfd, cfg, dir, err);
	for (size_t i = 0; !rc && i < n; i++)
		rc = mask_held(rootfd, cfg, inside[i], err);
	return rc;
}

/* A --mask hides the file wherever the sandbox shows it: at the path
 * given; at the host file's own path (through the read-only root) when
 * the path given lies below a bind's DEST; and below the DEST of every
 * bind whose source holds the file. Masking the path given alone left
 * `--workspace $PWD:/work --mask $PWD/secret` readable as /work/secret.
 * host: the file on the host, canonical (runtime/config.c); NULL with
 * --root, where the path given is the only one. */
static int mask_user(int rootfd, const struct kj_config *cfg, const char *path, const char *host,
		     struct kj_err *err)
{
	int rc = mask_held(rootfd, cfg, path, err);

	if (rc || !host)
		return rc;
	if (strcmp(host, path))
		rc = mask_held(rootfd, cfg, host, err);
	return rc ? rc : mask_aliases(rootfd, cfg, host, path, err);
}

struct alias_ctx {
	const struct kj_config *cfg;
	const char *home;
	struct home_aliases *ha;
	struct kj_err *err;
};

/* Append a copy of path, another place of what (a kind and a path), to
 * the list (v, n), at most 64 long. */
static int list_add(char ***v, size_t *n, const char *path, const char *kind, const char *what,
		    struct kj_err *err)
{
	char **nv, *p;

	if (*n == 64)
		return kj_fail(err, "mask", E2BIG, "report it: the host has unusually many mounts",
			       "more than 64 other mounts of %s %s", kind, what);
	if (!(p = strdup(path)) || !(nv = realloc(*v, (*n + 1) * sizeof(*nv)))) {
		free(p);
		return kj_fail(err, "mask", ENOMEM, NULL, "list the host's mounts");
	}
	*v = nv;
	(*v)[(*n)++] = p;
	return 0;
}

static int add_home_alias(const char *alias, void *arg)
{
	struct alias_ctx *c = arg;

	/* Written through a bind, the home would be: its dotfiles (.bashrc
	 * runs at the next login), not only its credential stores. */
	for (size_t i = 0; i <= c->cfg->nbinds; i++) {
		const struct kj_bind *b =
			i < c->cfg->nbinds ? &c->cfg->binds[i] : &c->cfg->workspace;
		if (b->writable && b->src && path_covers(b->src, alias))
			return kj_fail(
				c->err, i < c->cfg->nbinds ? "rw" : "workspace", 0,
				"bind a project directory instead",
				"%s shows the home directory %s at %s (another mount of it), "
				"with its dotfiles and credential stores",
				b->src, c->home, alias);
	}
	return list_add(&c->ha->paths, &c->ha->n, alias, "the home directory", c->home, c->err);
}

static int add_secret_alias(const char *alias, void *arg)
{
	struct alias_ctx *c = arg;

	return list_add(&c->ha->secrets, &c->ha->nsecrets, alias, "the host secret", c->home,
			c->err);
}

/* The host's own secrets at their other places: a second mount of /, of
 * /etc or of /etc/ssl (a chroot's, a container tool's) showed
 * /etc/shadow and the SSH host keys to a root caller's uid 0, which owns
 * them, through the read-only root or a --ro grant of that mount. Looked
 * for only when some file system is mounted twice. */
static int secret_aliases_find(const struct kj_config *cfg, const struct hostmounts *hm,
			       struct home_aliases *ha, struct kj_err *err)
{
	bool twice = false;
	struct dirent *e;
	int rc = 0;
	DIR *d;

	for (size_t i = 0; !twice && i < hm->n; i++)
		for (size_t j = i + 1; !twice && j < hm->n; j++)
			twice = hm->v[i].dev == hm->v[j].dev;
	if (!twice)
		return 0;
	for (int i = 0; !rc && host_secrets[i]; i++)
		rc = hostmounts_aliases(hm, host_secrets[i], add_secret_alias,
					&(struct alias_ctx){cfg, host_secrets[i], ha, err});
	if (rc || !(d = opendir("/etc/ssh")))
		return rc;
	while (!rc && (e = readdir(d))) {
		char path[PATH_MAX];
		if (!ssh_host_key(e->d_name))
			continue;
		snprintf(path, sizeof(path), "/etc/ssh/%s", e->d_name);
		rc = hostmounts_aliases(hm, path, add_secret_alias,
					&(struct alias_ctx){cfg, path, ha, err});
	}
	closedir(d);
	return rc;
}

int home_aliases_find(const struct kj_config *cfg, const struct hostmounts *hm,
		      struct home_aliases *ha, struct kj_err *err)
{
	int rc = 0;

	*ha = (struct home_aliases){0};
	for (int i = 0; !rc && i < 3 && cfg->homes[i]; i++)
		rc = hostmounts_aliases(hm, cfg->homes[i], add_home_alias,
					&(struct alias_ctx){cfg, cfg->homes[i], ha, err});
	if (!rc)
		rc = secret_aliases_find(cfg, hm, ha, err);
	if (rc)
		home_aliases_free(ha);
	return rc;
}

void home_aliases_free(struct home_aliases *ha)
{
	for (size_t i = 0; i < ha->n; i++)
		free(ha->paths[i]);
	free(ha->paths);
	for (size_t i = 0; i < ha->nsecrets; i++)
		free(ha->secrets[i]);
	free(ha->secrets);
	*ha = (struct home_aliases){0};
}

int masks_mount(int rootfd, const struct kj_config *cfg, const struct home_aliases *homes,
		struct kj_err *err)
{
	int rc = 0;

	/* A host secret made during the run is root's, 0600 or 0640: of
	 * concern only to a command that runs as host root. */
	watch_missing = cfg->caller_uid == 0 && !(cfg->user_set && cfg->uid != 0);
	for (int i = 0; !rc && host_secrets[i]; i++) {
		rc = mask_held(rootfd, cfg, host_secrets[i], err);
		if (!rc)
			rc = mask_aliases(rootfd, cfg, host_secrets[i], host_secrets[i], err);
	}
	if (!rc)
		rc = mask_ssh_host_keys(rootfd, cfg, err);
	/* At their other places: through the read-only root (the host's
	 * only: below --root DIR the host path names another file), and
	 * below every bind that shows one. */
	for (size_t i = 0; !rc && i < homes->nsecrets; i++) {
		const char *alias = homes->secrets[i];
		if (!strcmp(cfg->root, "/"))
			rc = mask_held(rootfd, cfg, alias, err);
		if (!rc)
			rc = mask_aliases(rootfd, cfg, alias, alias, err);
	}

	watch_missing = true;
	for (int i = 0; !rc && i < 3 && cfg->homes[i]; i++)
		rc = mask_home(rootfd, cfg, cfg->homes[i], err);
	/* A home shown elsewhere too (a bind of /home for a chroot): its
	 * stores were readable there. */
	for (size_t i = 0; !rc && i < homes->n; i++)
		rc = mask_home(rootfd, cfg, homes->paths[i], err);
	if (!rc)
		rc = mask_xdg_config(rootfd, cfg, err);
	for (size_t i = 0; !rc && i < cfg->nmasks; i++)
		rc = mask_user(rootfd, cfg, cfg->masks[i], cfg->mask_hosts[i], err);
	for (size_t i = 0; !rc && i < cfg->nsession_dirs; i++)
		rc = mask_session_dir(rootfd, cfg, cfg->session_dirs[i], err);
	return rc;
}
