/* Validation of everything in the configuration that touches the file
 * system: canonical paths, identities recorded for later re-checks, and the
 * rules on what may be bound. Nothing here creates anything on the host. */
#include "runtime/config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/git_config.h"
#include "runtime/conffile.h"
#include "mounts/masks.h"
#include "mounts/mountapi.h"
#include "mounts/sockets.h"
#include "net/proxy.h"
#include "runtime/accounts.h"
#include "runtime/builtin.h"
#include "runtime/seccomp_choice.h"
#include "runtime/session_quick.h"

void config_init(struct kj_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->root = "/";
	cfg->tmp_size = 64ULL << 20;
	cfg->kill_grace_ms = 5000;
	cfg->net = KJ_NET_NONE;
	cfg->net_idle_ms = 300000;
	cfg->net_log_limit = KJ_NET_LOG_LIMIT;
	cfg->tty = KJ_TTY_AUTO;
	cfg->idle_timeout_ms = 30 * 60 * 1000;
	cfg->limits.memory = 512ULL << 20;
	cfg->limits.memory_arg = "512M";
	cfg->limits.memory_swap = 0;
	cfg->limits.memory_swap_arg = "0";
	cfg->limits.pids = 256;
	cfg->limits.pids_arg = "256";
	cfg->limits.cpu_quota_us = KJ_LIMIT_MAX;
	cfg->limits.cpus_arg = "max";
	cfg->limits.mode = KJ_LIMITS_REQUIRED;
	cfg->caller_uid = cfg->uid = getuid();
	cfg->caller_gid = cfg->gid = getgid();
}

bool path_covers(const char *dir, const char *path)
{
	size_t n;

	if (!dir || !path)
		return false;
	n = strlen(dir);
	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(dir, path, n) && (path[n] == '\0' || path[n] == '/');
}

/* The bind whose DEST shows path is the one with the deepest DEST that
 * covers it (binds are attached shallowest first, so it is on top):
 * `--ro /o:/tmp/a --workspace W:/tmp/a/ws` shows W, not /o/ws, at
 * /tmp/a/ws, and a --mask there must hide W's file. */
static const struct kj_bind *bind_showing(const struct kj_config *cfg, const char *path)
{
	const struct kj_bind *top = NULL;

	for (size_t i = 0; i <= cfg->nbinds; i++) {
		const struct kj_bind *b = i < cfg->nbinds ? &cfg->binds[i] : &cfg->workspace;
		if (b->src && b->dest && path_covers(b->dest, path) &&
		    (!top || strlen(b->dest) >= strlen(top->dest)))
			top = b;
	}
	return top;
}

bool bind_source_of(const struct kj_config *cfg, const char *path, char *out, size_t size)
{
	const struct kj_bind *top = bind_showing(cfg, path);

	if (!top || !strcmp(top->src, top->dest))
		return false;
	return (size_t)snprintf(out, size, "%s%s", top->src, path + strlen(top->dest)) < size;
}

/* A DEST inside the sandbox: absolute, no "." or ".." or empty parts. */
static int check_dest(const char *what, const char *dest, struct kj_err *err)
{
	const char *p = dest;

	if (!strcmp(dest, "/"))
		return kj_fail(err, what, 0, "kjail builds / itself; bind a project directory",
			       "cannot bind onto /");
	if (dest[0] != '/')
		return kj_fail(err, what, 0, "give an absolute path",
			       "destination '%s' is not absolute", dest);
	while (*p) {
		const char *q;
		p++;
		q = p + strcspn(p, "/");
		if (q == p || (q - p == 1 && p[0] == '.') ||
		    (q - p == 2 && p[0] == '.' && p[1] == '.'))
			return kj_fail(err, what, 0,
				       "write it without '.', '..', '//' or a trailing '/'",
				       "destination '%s' is not a plain path", dest);
		p = q;
	}
	if (!strcmp(dest, "/") || path_covers("/proc", dest) || path_covers("/dev", dest))
		return kj_fail(err, what, 0, "kjail builds /, /proc and /dev itself",
			       "cannot bind onto %s", dest);
	return 0;
}

static void add_home(struct kj_config *cfg, const char *dir)
{
	char *h;

	if (!dir || dir[0] != '/')
		return;
	h = realpath(dir, NULL);
	if (!h && !(h = strdup(dir)))
		return;
	for (int i = 0; i < 3; i++) {
		if (cfg->homes[i] && !strcmp(cfg->homes[i], h))
			break;
		if (!cfg->homes[i]) {
			cfg->homes[i] = h;
			return;
		}
	}
	free(h);
}

/* The home directory of uid: /etc/passwd read directly (NSS costs about
 * 100 us on every start: nscd probes, nsswitch.conf), the user database
 * only for users that file does not list (LDAP, sssd...). */
static void add_home_of(struct kj_config *cfg, uid_t uid)
{
	struct kj_account acct;

	add_home(cfg, account_by_uid(uid, &acct) == 0 ? acct.home : NULL);
}

static void find_homes(struct kj_config *cfg)
{
	add_home_of(cfg, cfg->caller_uid);
	add_home(cfg, getenv("HOME"));
	if (cfg->user_set)
		add_home_of(cfg, cfg->uid);
}

/* Record the real place of the credential store at path (if it exists):
 * only when it differs from path, unless always. */
static void add_cred_place(struct kj_config *cfg, const char *path, bool always)
{
	char *real = realpath(path, NULL);

	if (real && (always || strcmp(real, path)) && cfg->ncred_places < KJ_MAX_CRED_PLACES)
		cfg->cred_places[cfg->ncred_places++] = real;
	else
		free(real);
}

/* Does home/rel pass a symlink? One lstat per component, from the home's
 * fd; false when a component is missing (nothing there to expose). */
static bool passes_symlink(int homefd, const char *rel)
{
	char prefix[PATH_MAX];
	struct stat st;

	for (const char *p = rel;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - rel) : strlen(rel);
		if (n >= sizeof(prefix))
			return false;
		memcpy(prefix, rel, n);
		prefix[n] = '\0';
		if (fstatat(homefd, prefix, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return false;
		if (S_ISLNK(st.st_mode))
			return true;
		if (!slash)
			return false;
		p = slash + 1;
	}
}

/* The credential stores whose place the textual checks below would miss:
 * ~/.ssh as a link to /data/ssh made `--ro /data` show the keys; with
 * $XDG_CONFIG_HOME, gh's and git's tokens live below it (masks.c masks
 * them there), and `--ro $XDG_CONFIG_HOME` showed them. */
static int find_cred_places(struct kj_config *cfg, struct kj_err *err)
{
	static const char prefix[] = ".config/";
	const char *xdg;
	char path[PATH_MAX];

	for (int i = 0; i < 3 && cfg->homes[i]; i++) {
		int fd = open(cfg->homes[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		for (int c = 0; credential_paths[c]; c++)
			if (passes_symlink(fd, credential_paths[c]) &&
			    (size_t)snprintf(path, sizeof(path), "%s/%s", cfg->homes[i],
					     credential_paths[c]) < sizeof(path))
				add_cred_place(cfg, path, false);
		close(fd);
	}
	/* $XDG_CONFIG_HOME/kjail among them: kjail's own configuration
	 * there, by the rules of ~/.config/kjail. */
	if (conf_xdg_config_home(&xdg, err))
		return -EINVAL;
	for (int c = 0; xdg && credential_paths[c]; c++)
		if (!strncmp(credential_paths[c], prefix, sizeof(prefix) - 1) &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", xdg,
				     credential_paths[c] + sizeof(prefix) - 1) < sizeof(path))
			add_cred_place(cfg, path, true);
	return 0;
}

/* src is, is inside, or contains the credential store at cred. */
static int check_cred_store(const char *what, const char *src, const char *cred, struct kj_err *err)
{
	if (path_covers(cred, src))
		return kj_fail(err, what, 0, "credential stores are always masked",
			       "%s is inside the credential store %s", src, cred);
	if (path_covers(src, cred))
		return kj_fail(
			err, what, 0,
			"credential stores are always masked; bind a directory that holds none",
			"%s contains the credential store %s", src, cred);
	return 0;
}

/* Would binding src expose a home or a credential store, or is src inside
 * one? Each case has its own message. */
static int check_exposes_credentials(const char *what, const char *src, const char *home,
				     struct kj_err *err)
{
	char cred[PATH_MAX];
	int rc;

	if (!home)
		return 0;
	if (!strcmp(src, home))
		return kj_fail(err, what, 0, "bind a project directory instead",
			       "%s is the home directory, with its dotfiles and credential stores",
			       src);
	if (path_covers(src, home))
		return kj_fail(err, what, 0, "bind a project directory instead",
			       "%s contains the home directory %s and its credential stores", src,
			       home);
	for (int i = 0; credential_paths[i]; i++) {
		snprintf(cred, sizeof(cred), "%s/%s", home, credential_paths[i]);
		if ((rc = check_cred_store(what, src, cred, err)))
			return rc;
	}
	return 0;
}

/* Directories kjail builds itself (/proc, /sys, /dev, /run) or that hold
 * the host's boot and configuration files. None may be granted; nothing
 * inside them may be writable; and inside /proc and /sys even a read-only
 * grant would show the host's processes and devices. */
static int check_system_dirs(const char *what, const char *canon, bool writable, struct kj_err *err)
{
	static const char *const system_dirs[] = {"/proc", "/sys", "/dev", "/run",
						  "/boot", "/etc", NULL};

	for (int i = 0; system_dirs[i]; i++) {
		const char *d = system_dirs[i];
		if (path_covers(canon, d))
			return writable
				       ? kj_fail(err, what, 0,
						 "grant write access to a project directory instead",
						 "%s may not be writable inside the sandbox (it is or holds %s)",
						 canon, d)
				       : kj_fail(err, what, 0,
						 "the sandbox has its own /proc, /sys, /dev and /run, and sees /boot and /etc read-only",
						 "%s is or holds the system directory %s", canon,
						 d);
		if (!path_covers(d, canon))
			continue;
		if (writable)
			return kj_fail(
				err, what, 0, "grant write access to a project directory instead",
				"%s may not be writable inside the sandbox (it is inside %s)",
				canon, d);
		if (i < 2)
			return kj_fail(
				err, what, 0, "the sandbox has its own /proc and /sys",
				"%s is inside the host's %s, which would show the host's processes or devices",
				canon, d);
	}
	return 0;
}

/* Canonicalize b->src, record its identity, check it may be bound. */
static int finish_bind(struct kj_config *cfg, struct kj_bind *b, const char *what,
		       struct kj_err *err)
{
	struct stat st;
	char *canon = realpath(b->src, NULL);
	int rc;

	/* "DIR:rel" is a DIR of that name (a DEST starts with '/'): a
	 * relative DEST was reported as a missing directory, no more. */
	if (!canon)
		return kj_fail(
			err, what, errno,
			errno == ENOENT && strchr(b->src, ':')
				? "give an existing path; a DEST after ':' starts with '/', as in DIR:/DEST"
				: "give an existing path",
			"%s", b->src);
	b->given = b->src; /* for check_planted_binds */
	b->src = canon;
	if (stat(canon, &st) < 0)
		return kj_fail(err, what, errno, NULL, "%s", canon);
	b->dev = st.st_dev;
	b->ino = st.st_ino;
	b->is_dir = S_ISDIR(st.st_mode);
	if (!b->dest && !(b->dest = strdup(canon)))
		return kj_fail(err, what, ENOMEM, NULL, "%s", canon);
	if (!strcmp(canon, "/"))
		return kj_fail(err, what, 0, "bind a project directory instead",
			       "cannot bind the whole host root /");
	if ((rc = check_dest(what, b->dest, err)))
		return rc;
	/* The session directory holds every session's socket and record: a
	 * sandbox that reached them could exec into a session with other
	 * isolation, or rewrite a record's limits. masks.c hides it
	 * wherever a grant shows it; a grant inside it would be hidden too. */
	for (size_t i = 0; i < cfg->nsession_dirs; i++)
		if (path_covers(cfg->session_dirs[i], canon))
			return kj_fail(err, what, 0, "grant a directory outside it",
				       "%s lies in kjail's session directory %s", canon,
				       cfg->session_dirs[i]);
	for (int i = 0; i < 3; i++)
		if ((rc = check_exposes_credentials(what, canon, cfg->homes[i], err)))
			return rc;
	for (size_t i = 0; i < cfg->ncred_places; i++)
		if ((rc = check_cred_store(what, canon, cfg->cred_places[i], err)))
			return rc;
	if ((rc = check_system_dirs(what, canon, b->writable, err)))
		return rc;
	/* The built-in masks go on after every bind: a DEST at or below one
	 * (`--rw DIR:/etc/ssl/private`) ran with the grant silently hidden. */
	{
		char masked[PATH_MAX];
		if (mask_builtin_covers(cfg, b->dest, masked, sizeof(masked)))
			return kj_fail(err, what, 0,
				       "give a DEST outside the credential stores and host secrets",
				       "DEST %s: every sandbox masks %s, which would hide the bind",
				       b->dest, masked);
	}
	if (b->writable && !b->is_dir)
		return kj_fail(err, what, ENOTDIR,
			       strcmp(what, "workspace")
				       ? "write grants are directories; bind a file with --ro"
				       : "give a project directory",
			       "%s", canon);
	if (b->writable && access(canon, W_OK) < 0)
		return kj_fail(err, what, errno, "grant only what you can write yourself",
			       "%s is not writable by you", canon);
	return 0;
}

bool path_holds(const char *dir, const char *path)
{
	struct stat ds, st;
	char up[PATH_MAX];
	char *slash;
	size_t n;

	if (path_covers(dir, path))
		return true;
	if (!dir || !path || path[0] != '/' || (n = strlen(path)) >= sizeof(up) ||
	    stat(dir, &ds) < 0)
		return false;
	memcpy(up, path, n + 1);
	for (;;) {
		if (stat(up, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == ds.st_dev &&
		    st.st_ino == ds.st_ino)
			return true;
		if (!strcmp(up, "/") || !(slash = strrchr(up, '/')))
			return false;
		slash[slash == up] = '\0';
	}
}

/* The writable root that is the directory st, by identity. */
static const char *writable_root_is(const struct kj_config *cfg, const struct stat *st)
{
	struct stat rs;

	if (stat(cfg->workspace.src, &rs) == 0 && rs.st_dev == st->st_dev &&
	    rs.st_ino == st->st_ino)
		return cfg->workspace.src;
	for (size_t b = 0; b < cfg->nbinds; b++)
		if (cfg->binds[b].writable && stat(cfg->binds[b].src, &rs) == 0 &&
		    rs.st_dev == st->st_dev && rs.st_ino == st->st_ino)
			return cfg->binds[b].src;
	return NULL;
}

const char *config_writable_root(const struct kj_config *cfg, const char *path)
{
	char up[PATH_MAX];
	size_t n;

	if (path_covers(cfg->workspace.src, path))
		return cfg->workspace.src;
	for (size_t b = 0; b < cfg->nbinds; b++)
		if (cfg->binds[b].writable && path_covers(cfg->binds[b].src, path))
			return cfg->binds[b].src;
	/* By identity too: through a bind mount of the workspace (or of a
	 * directory above it) the same directory has another name. With
	 * `mount --bind ~/proj /mnt/p`, a --net-log /mnt/p/net.log was
	 * ~/proj/net.log, which COMMAND could erase or forge. Each existing
	 * directory on path's way up is compared with each root. Not caught:
	 * a bind of a directory *below* a root, mounted elsewhere. */
	if ((n = strlen(path)) >= sizeof(up) || path[0] != '/')
		return NULL;
	memcpy(up, path, n + 1);
	for (;;) {
		struct stat st;
		const char *root;
		char *slash;

		if (stat(up, &st) == 0 && S_ISDIR(st.st_mode) &&
		    (root = writable_root_is(cfg, &st)))
			return root;
		if (!strcmp(up, "/") || !(slash = strrchr(up, '/')))
			return NULL;
		slash[slash == up] = '\0';
	}
}

struct link_ctx {
	const struct kj_config *cfg;
	const char *part, *opt, *given;
	struct kj_err *err;
};

/* A symlink the sandbox could have planted decides where the path goes:
 * run 1 replaces ./logs with a link to /etc/cron.d, and run 2 (as root)
 * creates its --net-log there; or run 1 replaces ./cache with a link to
 * ~/bin, and run 2's --rw ./cache lets it write there. */
static int refuse_planted_link(const char *dir, const char *name, void *arg)
{
	const struct link_ctx *c = arg;
	const char *root = config_writable_root(c->cfg, dir);

	if (!root)
		return 0;
	kj_fail(c->err, c->part, 0, "give a path without symlinks the sandbox can write",
		"%s %s: %s%s%s is a symlink inside %s, which the sandbox can write", c->opt,
		c->given, dir, dir[1] ? "/" : "", name, root);
	return 1;
}

int config_resolve_unplanted(const struct kj_config *cfg, const char *part, const char *opt,
			     const char *path, bool follow_last, char *out, struct kj_err *err)
{
	return conf_resolve(path, follow_last, out, PATH_MAX, refuse_planted_link,
			    &(struct link_ctx){cfg, part, opt, path, err});
}

/* Every bind's path as given, the workspace's too, once every write
 * grant is known: none may pass a symlink inside the workspace or a write
 * grant (`--rw ./proj --workspace ./proj/out`, with out a link the
 * sandbox made to ~/bin, wrote to ~/bin). */
static int check_planted_binds(const struct kj_config *cfg, struct kj_err *err)
{
	char buf[PATH_MAX];

	for (size_t i = 0; i <= cfg->nbinds; i++) {
		const struct kj_bind *b = i < cfg->nbinds ? &cfg->binds[i] : &cfg->workspace;
		const char *part = i == cfg->nbinds ? "workspace" : b->writable ? "rw" : "ro";
		int rc;
		if (!b->given)
			continue;
		rc = config_resolve_unplanted(cfg, part,
					      i == cfg->nbinds ? "--workspace"
					      : b->writable    ? "--rw"
							       : "--ro",
					      b->given, true, buf, err);
		if (rc > 0)
			return -EPERM;
		if (rc < 0)
			return kj_fail(err, part, -rc, NULL, "%s", b->given);
	}
	/* A --mask's path too (at the bind's source below a DEST): run 1
	 * swaps conf for a link to a decoy, and run 2 masks the decoy while
	 * the file stays readable; the mask could not be held in place
	 * either (mounts/masks.c). */
	for (size_t i = 0; !strcmp(cfg->root, "/") && i < cfg->nmasks; i++) {
		char src[PATH_MAX];
		const char *on_host =
			bind_source_of(cfg, cfg->masks[i], src, sizeof(src)) ? src : cfg->masks[i];
		int rc = config_resolve_unplanted(cfg, "mask", "--mask", on_host, true, buf, err);
		if (rc > 0)
			return -EPERM;
		if (rc < 0)
			return kj_fail(err, "mask", -rc, NULL, "%s", cfg->masks[i]);
	}
	return 0;
}

/* The workspace's .git protections and --protect paths (and
 * --workspace-ro) are mounts at the workspace's DEST. A write grant that
 * shows the same files somewhere else would show them without those
 * mounts: `--rw $PWD:/tmp/alias`, or `--workspace $PWD:/tmp/w --rw ..`,
 * let a command plant .git/hooks/pre-commit, which the host's next git
 * commit ran. Overlap is fine only where the grant shows the workspace
 * exactly at its DEST (the workspace's bind then lies on top). */
static int check_workspace_aliases(const struct kj_config *cfg, struct kj_err *err)
{
	const struct kj_bind *ws = &cfg->workspace;
	char at[PATH_MAX];

	for (size_t i = 0; i < cfg->nbinds; i++) {
		const struct kj_bind *b = &cfg->binds[i];
		const char *place = NULL;
		if (!b->writable || b->agent)
			continue;
		if (path_covers(b->src, ws->src)) {
			/* The grant holds the workspace: where does it show it?
			 * (Neither a src nor a DEST is ever "/".) */
			snprintf(at, sizeof(at), "%s%s", b->dest, ws->src + strlen(b->src));
			place = strcmp(at, ws->dest) ? at : NULL;
		} else if (path_covers(ws->src, b->src)) {
			/* The grant is inside the workspace: where should it be? */
			snprintf(at, sizeof(at), "%s%s", ws->dest, b->src + strlen(ws->src));
			place = strcmp(at, b->dest) ? b->dest : NULL;
		}
		if (place)
			return kj_fail(
				err, "rw", 0,
				"grant it at its place in the workspace, or a directory that does not overlap the workspace",
				"--rw %s:%s would show files of the workspace %s writable at %s too, where its .git protection, --protect and --workspace-ro do not reach",
				b->src, b->dest, ws->src, place);
	}
	return 0;
}

/* 0 if path exists inside root (resolved there, as the mount recipe
 * will), or below a bind's DEST at the bind's source; else -errno. */
static int mask_in_root(const struct kj_config *cfg, const char *root, const char *path)
{
	const struct kj_bind *b = bind_showing(cfg, path);
	char src[PATH_MAX];
	struct stat st;
	int rfd, fd;

	if (b) {
		if ((size_t)snprintf(src, sizeof(src), "%s%s", b->src, path + strlen(b->dest)) >=
		    sizeof(src))
			return -ENAMETOOLONG;
		return lstat(src, &st) < 0 ? -errno : 0;
	}
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	fd = path_open_in_root(rfd, path, 0);
	close(rfd);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* With the host's root: true (errno set) if the --mask path exists
 * neither on the host nor as a sandbox path below a bind's DEST. Else the
 * host file it names, canonical, goes to *host (NULL for a dangling
 * link): the setup child masks it wherever a bind shows it, and it can
 * no longer resolve host paths by then (mounts/masks.c). */
static bool host_mask_missing(const struct kj_config *cfg, const char *path, char **host)
{
	char src[PATH_MAX];
	const char *on_host = path;
	struct stat st;

	/* Below a bind's DEST the sandbox shows the bind's source, whatever
	 * the host has at the same path: masking that host file instead
	 * left `--workspace $PWD/proj:/tmp/w --mask /tmp/w/.env` showing
	 * proj/.env whenever the host had a /tmp/w/.env (any local user can
	 * make one). */
	if (bind_source_of(cfg, path, src, sizeof(src)))
		on_host = src;
	if (lstat(on_host, &st) < 0)
		return true;
	*host = realpath(on_host, NULL);
	return false;
}

/* A session directory, canonical (so path_covers can compare it with a
 * grant): the directory itself, or its parent's real path and its name
 * when it does not exist yet. */
static int add_session_dir(struct kj_config *cfg, char *dir, struct kj_err *err)
{
	char *canon, *slash;

	if (!(canon = realpath(dir, NULL)) && (slash = strrchr(dir, '/')) && slash > dir) {
		char *parent;
		*slash = '\0';
		parent = realpath(dir, NULL);
		*slash = '/';
		if (parent &&
		    asprintf(&canon, "%s%s", strcmp(parent, "/") ? parent : "", slash) < 0)
			canon = NULL;
		free(parent);
	}
	if (!canon && !(canon = strdup(dir)))
		return kj_fail(err, "session", ENOMEM, NULL, "%s", dir);
	for (size_t i = 0; i < cfg->nsession_dirs; i++)
		if (!strcmp(cfg->session_dirs[i], canon)) {
			free(canon);
			return 0;
		}
	cfg->session_dirs[cfg->nsession_dirs++] = canon;
	return 0;
}

/* Where this caller's sessions live. Not only where $XDG_RUNTIME_DIR
 * points now: sessions made with it unset, or at its usual value, keep
 * their sockets and records elsewhere, and a sandbox that reached those
 * (--workspace /tmp shows /tmp/kjail-UID) could rewrite a record's
 * timeout or exec into a session made with --net host. */
static int find_session_dirs(struct kj_config *cfg, struct kj_err *err)
{
	char usual[64], dirs[3][PATH_MAX];
	const char *xdg[3] = {getenv("XDG_RUNTIME_DIR"), NULL, usual};
	int rc;

	snprintf(usual, sizeof(usual), "/run/user/%u", (unsigned)geteuid());
	for (int i = 0; i < 3; i++) {
		bool seen = false;
		/* too long to exist: sessions refuse it too */
		if (!session_dir_compose(dirs[i], sizeof(dirs[i]), (unsigned)geteuid(), xdg[i])) {
			dirs[i][0] = '\0';
			continue;
		}
		/* Root's three are one (/run/kjail): resolved once, on a path
		 * every run takes. */
		for (int j = 0; j < i; j++)
			seen = seen || !strcmp(dirs[j], dirs[i]);
		if (!seen && (rc = add_session_dir(cfg, dirs[i], err)))
			return rc;
	}
	return 0;
}

/* A session directory that does not exist yet but that the sandbox will
 * see (through the host's root, outside the fresh /tmp and /run, or
 * through a grant) is made now, empty and private, as `kjail create`
 * would make it: the sandbox's view of it is masked (mounts/masks.c),
 * which needs it to exist. Left missing, a `kjail create` after the
 * sandbox started made it on the host, in the sandbox's view unmasked,
 * and a --net none command could exec into a --net host session.
 * Called when the sandbox is started, after every check. */
int config_make_session_dirs(const struct kj_config *cfg, struct kj_err *err)
{
	for (size_t i = 0; i < cfg->nsession_dirs; i++) {
		const char *dir = cfg->session_dirs[i];
		bool seen = !strcmp(cfg->root, "/") && !fresh_inside(dir);
		struct stat st;

		for (size_t j = 0; !seen && j <= cfg->nbinds; j++) {
			const struct kj_bind *b =
				j < cfg->nbinds ? &cfg->binds[j] : &cfg->workspace;
			seen = b->src && path_covers(b->src, dir);
		}
		if (!seen || lstat(dir, &st) == 0 || errno != ENOENT)
			continue;
		/* It stays after the run, empty and private: removing it
		 * would unmask it in every sandbox still running (an rmdir on
		 * the host detaches the mounts on it in other namespaces),
		 * and one of them could then plant a session there. */
		if (mkdir(dir, 0700) < 0 && errno != EEXIST && errno != ENOENT)
			return kj_fail(err, "session", errno,
				       "point XDG_RUNTIME_DIR at a directory of your own",
				       "create the session directory %s (the sandbox would see it)",
				       dir);
	}
	return 0;
}

/* --ssh-agent: the caller's agent socket, bound read-only at a fixed path
 * inside; the keys stay in the agent (and ~/.ssh stays masked). */
static int finish_agent(struct kj_config *cfg, struct kj_err *err)
{
	const char *sock = getenv("SSH_AUTH_SOCK");
	struct kj_bind *b;
	struct stat st;
	char *canon;

	if (!cfg->ssh_agent)
		return 0;
	/* A path-named unix socket is reachable from any network namespace;
	 * --net none is the caller saying "no remote access", so no agent. */
	if (cfg->net == KJ_NET_NONE)
		return kj_fail(
			err, "ssh-agent", 0,
			"add --net host if the command must reach remote hosts",
			"--ssh-agent needs network access: with --net none the command should reach no remote host, so it gets no agent either");
	if (!sock || sock[0] != '/')
		return kj_fail(err, "ssh-agent", 0,
			       "start an agent and add your key: ssh-agent, then ssh-add",
			       "--ssh-agent: SSH_AUTH_SOCK is not set to an agent's socket");
	if (!(canon = realpath(sock, NULL)) || stat(canon, &st) < 0)
		return kj_fail(err, "ssh-agent", errno, "check SSH_AUTH_SOCK", "%s", sock);
	if (!S_ISSOCK(st.st_mode))
		return kj_fail(err, "ssh-agent", 0, "check SSH_AUTH_SOCK", "%s is not a socket",
			       canon);
	if (st.st_uid != cfg->caller_uid)
		return kj_fail(err, "ssh-agent", 0, "use your own agent",
			       "%s belongs to uid %u, not to you", canon, (unsigned)st.st_uid);
	cfg->agent_socket = canon;
	if (cfg->isolation == KJ_ISOLATION_NONE)
		return 0;               /* the command sees the host's paths */
	b = &cfg->binds[cfg->nbinds++]; /* cli.c keeps this slot free */
	*b = (struct kj_bind){.src = canon,
			      .dest = strdup(KJ_AGENT_SOCKET),
			      .agent = true,
			      .dev = st.st_dev,
			      .ino = st.st_ino};
	return b->dest ? 0 : kj_fail(err, "ssh-agent", ENOMEM, NULL, "bind");
}

/* --protect PATH must exist now: a path that does not exist could be
 * created by the command, and then it is not protected. */
static int finish_protect(struct kj_config *cfg, struct kj_err *err)
{
	int wsfd;

	if (!cfg->nprotect)
		return 0;
	wsfd = path_open(AT_FDCWD, cfg->workspace.src, O_DIRECTORY, RESOLVE_NO_MAGICLINKS);
	if (wsfd < 0)
		return kj_fail(err, "workspace", -wsfd, NULL, "open %s", cfg->workspace.src);
	for (size_t i = 0; i < cfg->nprotect; i++) {
		/* Beneath the workspace, through no symlink: what is protected
		 * is what the sandbox sees at that path. */
		int fd = path_open(wsfd, cfg->protect[i], O_NOFOLLOW,
				   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd < 0) {
			close(wsfd);
			return kj_fail(
				err, "protect", -fd,
				-fd == ENOENT
					? "create it first: a missing path could be created by the command"
					: "protect a plain path inside the workspace, not through a symlink",
				"--protect %s", cfg->protect[i]);
		}
		close(fd);
	}
	close(wsfd);
	return 0;
}

/* isolation none (the host profile) has no mount namespace: an option
 * that only a mount or network namespace can honour is an error, never
 * silently ignored. */
static int check_no_isolation(const struct kj_config *cfg, struct kj_err *err)
{
	const char *opt = NULL;

	if (cfg->isolation != KJ_ISOLATION_NONE)
		return 0;
	/* No network namespace, so no proxy either: only --net host is true. */
	if (cfg->net != KJ_NET_HOST)
		return kj_fail(
			err, "option", 0, "add --net host, as the host profile does",
			"--isolation none shares the host's network, so --net %s cannot hold",
			cfg->net == KJ_NET_NONE ? "none" : "proxy");
	if (cfg->nbinds)
		opt = cfg->binds[0].writable ? "--rw" : "--ro";
	else if (cfg->nmasks)
		opt = "--mask";
	else if (strcmp(cfg->root, "/"))
		opt = "--root";
	else if (cfg->workspace.dest && strcmp(cfg->workspace.dest, cfg->workspace.src))
		opt = "--workspace DIR:DEST";
	else if (cfg->workspace_ro)
		opt = "--workspace-ro";
	else if (cfg->nprotect)
		opt = "--protect";
	else if (cfg->tmp_size_set)
		opt = "--tmp-size";
	else if (cfg->user_set)
		opt = "--user";
	else if (cfg->tty == KJ_TTY_ON)
		opt = "--tty";
	/* The host launcher loads no filter and no Landlock ruleset: asking
	 * for one must not pass silently. */
	else if (cfg->seccomp != KJ_SECCOMP_DEFAULT)
		opt = "--seccomp strict|FILE";
	else if (cfg->landlock == KJ_LANDLOCK_REQUIRED)
		opt = "--landlock required";
	if (!opt)
		return 0;
	return kj_fail(err, "option", 0, "drop it, or use a profile with isolation",
		       "%s needs the sandbox's namespaces, and --isolation none has none", opt);
}

/* A sandbox holds at least its init and COMMAND, and with --net proxy
 * the relay and the proxy too (it runs in the sandbox's cgroup: its main
 * thread and one connection's): under a lower --pids, COMMAND could never
 * start or never connect, and the run failed late instead of saying why. */
static int check_pids_floor(const struct kj_config *cfg, struct kj_err *err)
{
	uint64_t need = cfg->net == KJ_NET_PROXY ? 5 : 2;
	char fix[96];

	if (cfg->limits.pids == UINT64_MAX || cfg->limits.pids >= need)
		return 0;
	snprintf(fix, sizeof(fix), "give --pids %llu or more, or --pids max",
		 (unsigned long long)need);
	return kj_fail(err, "option", 0, fix,
		       "--pids %s: a sandbox needs %llu processes (its init and COMMAND%s)",
		       cfg->limits.pids_arg, (unsigned long long)need,
		       cfg->net == KJ_NET_PROXY
			       ? ", the proxy's relay, and the proxy with one connection's thread"
			       : "");
}

/* Each --workspace a later one replaced meets the workspace's rules, by
 * the same code: a workspace that is /, the home directory or a file is
 * an error wherever it stands (README), also in a settings file or
 * profile a flag overrides, where it was taken silently. */
static int check_replaced_workspaces(struct kj_config *cfg, struct kj_err *err)
{
	for (size_t i = 0; i < cfg->nreplaced_ws; i++) {
		struct kj_bind b = cfg->replaced_ws[i];
		char msg[sizeof(err->msg)];
		int rc;

		b.writable = cfg->workspace.writable;
		b.dest = b.dest ? strdup(b.dest) : NULL;
		rc = finish_bind(cfg, &b, "workspace", err);
		if (!rc && !b.is_dir)
			rc = kj_fail(err, "workspace", ENOTDIR, "give a directory", "%s", b.src);
		if (b.given)
			free(b.src); /* finish_bind's canonical copy */
		free(b.dest);
		if (!rc)
			continue;
		/* A cut at the end of a long message is harmless. */
		if (snprintf(msg, sizeof(msg),
			     "--workspace %s (replaced by a later --workspace): %s",
			     cfg->replaced_ws[i].src, err->msg) >= 0)
			memcpy(err->msg, msg, sizeof(err->msg));
		return rc;
	}
	return 0;
}

int config_finish(struct kj_config *cfg, struct kj_err *err)
{
	struct stat st;
	char *canon;
	int rc;

	if (cfg->user_set && cfg->caller_uid != 0)
		return kj_fail(err, "option", 0, "only root can run a command as another user",
			       "--user needs root");
	canon = realpath(cfg->root, NULL);
	if (!canon || stat(canon, &st) < 0 || !S_ISDIR(st.st_mode))
		return kj_fail(err, "root", canon ? ENOTDIR : errno,
			       "give a root filesystem directory", "%s", cfg->root);
	cfg->root = canon;
	cfg->root_dev = st.st_dev;
	cfg->root_ino = st.st_ino;

	find_homes(cfg);
	if ((rc = find_cred_places(cfg, err)) || (rc = find_session_dirs(cfg, err)))
		return rc;

	if (!cfg->workspace.src) {
		cfg->workspace.src = getcwd(NULL, 0);
		if (!cfg->workspace.src)
			return kj_fail(err, "workspace", errno,
				       "cd into a project directory or give --workspace DIR",
				       "the current directory");
	}
	cfg->workspace.writable = !cfg->workspace_ro;
	if ((rc = finish_bind(cfg, &cfg->workspace, "workspace", err)))
		return rc;
	if (!cfg->workspace.is_dir)
		return kj_fail(err, "workspace", ENOTDIR, "give a directory", "%s",
			       cfg->workspace.src);
	if ((rc = check_replaced_workspaces(cfg, err)))
		return rc;
	{
		size_t nrw = 0;
		for (size_t i = 0; i < cfg->nbinds; i++) {
			struct kj_bind *b = &cfg->binds[i];
			if (b->writable && ++nrw > KJ_MAX_WRITE_GRANTS)
				return kj_fail(err, "rw", 0, "grant fewer, broader directories",
					       "at most %d write grants", KJ_MAX_WRITE_GRANTS);
			if ((rc = finish_bind(cfg, b, b->writable ? "rw" : "ro", err)))
				return rc;
		}
	}
	for (size_t i = 0; i < cfg->nmasks; i++) {
		if (cfg->masks[i][0] != '/')
			return kj_fail(err, "mask", 0, "give an absolute path",
				       "'%s' is not absolute", cfg->masks[i]);
		/* Looked up where the sandbox will see it: in --root DIR, not
		 * on the host (a mask of nothing would be skipped silently);
		 * below a bind's DEST, at the bind's source. */
		if (cfg->root[1] == '\0'
			    ? host_mask_missing(cfg, cfg->masks[i], &cfg->mask_hosts[i])
			    : (errno = -mask_in_root(cfg, cfg->root, cfg->masks[i])) != 0)
			return kj_fail(err, "mask", errno, "mask a path that exists", "%s",
				       cfg->masks[i]);
	}
	if ((rc = check_planted_binds(cfg, err)) || (rc = check_workspace_aliases(cfg, err)) ||
	    (rc = check_no_isolation(cfg, err)) || (rc = check_pids_floor(cfg, err)) ||
	    (rc = git_config_protect(cfg, err)) || (rc = finish_protect(cfg, err)) ||
	    (rc = finish_agent(cfg, err)) || (rc = proxy_config_check(cfg, err)))
		return rc;
	/* After the workspace and binds: a policy FILE may not lie in them. */
	if (!cfg->seccomp_text && (rc = seccomp_choice_finish(cfg, err)))
		return rc;
	return 0;
}
