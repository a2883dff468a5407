/* The directories kjail reads settings, profiles, the policy and
 * sessions' records from, whether or not they hold a file yet, against
 * the directories this run's sandbox can write (the workspace and every
 * --rw grant).
 *
 * By name, a grant of one (or of a directory above one) is refused (a
 * credential store, a system directory) or masked (the session
 * directory). A workspace or --rw grant that is one of them under
 * another name was neither:
 *   - a bind mount: the sandbox wrote ~/.config/kjail/settings, or an
 *     agent.profile there that shadowed the built-in one, and the next
 *     run read it;
 *   - a symlink: ~/.config/kjail/profiles (or one build.profile in it)
 *     linked into a project, a usual dotfiles layout. A run in that
 *     project could rewrite the profile, and the next run, anywhere,
 *     loaded it (`isolation none`, `net host`). A file read in this run
 *     is checked where it really is (settings.c); these are the files a
 *     later run reads, so every link in the directories is followed here.
 */
#include "runtime/settings_reach.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/conffile.h"

struct roots {
	const char *path[1 + KJ_MAX_BINDS];
	struct stat st[1 + KJ_MAX_BINDS];
	size_t n;
};

/* The workspace and the --rw grants, each identified once. */
static void roots_of(const struct kj_config *cfg, struct roots *r)
{
	r->n = 0;
	for (size_t b = 0; b <= cfg->nbinds; b++) {
		const struct kj_bind *k = b < cfg->nbinds ? &cfg->binds[b] : &cfg->workspace;
		if (k->src && (b == cfg->nbinds || k->writable) && stat(k->src, &r->st[r->n]) == 0)
			r->path[r->n++] = k->src;
	}
}

/* The root that holds dir: by name, else by identity, dir or a directory
 * above it (by name) being a root under another name. NULL: none. */
static const char *root_of(const struct roots *r, const char *dir)
{
	char up[PATH_MAX], *slash;
	const char *root = NULL;

	for (size_t i = 0; i < r->n && !root; i++)
		root = path_covers(r->path[i], dir) ? r->path[i] : NULL;
	if (root || dir[0] != '/' || strlen(dir) >= sizeof(up))
		return root;
	/* One stat() per directory on the way up (the same calls whichever
	 * of them exist). */
	for (memcpy(up, dir, strlen(dir) + 1); !root && strcmp(up, "/");
	     slash[slash == up] = '\0') {
		struct stat st;
		if (stat(up, &st) == 0)
			for (size_t i = 0; i < r->n && !root; i++)
				if (st.st_dev == r->st[i].st_dev && st.st_ino == r->st[i].st_ino)
					root = r->path[i];
		if (!(slash = strrchr(up, '/')))
			break;
	}
	return root;
}

/* path with its deepest existing part resolved (realpath) and the rest
 * appended: where it is, or would be once made; a dangling symlink on the
 * way is followed to where its target would be (the sandbox makes the
 * target, and the link leads there). False if it cannot be resolved. */
static bool resolve_partial(const char *path, char out[PATH_MAX], int depth)
{
	char p[PATH_MAX], next[PATH_MAX], target[PATH_MAX];
	const char *rest;
	size_t len;
	ssize_t t;

	if (path[0] != '/' || strlen(path) >= sizeof(p) || depth > 40)
		return false;
	memcpy(p, path, strlen(path) + 1);
	for (;;) {
		char *slash = strrchr(p, '/');
		struct stat st;

		/* Up to the deepest part that is there (or a link) first:
		 * realpath() costs a readlink() per component, and configuration
		 * directories are usually missing. */
		if (lstat(p, &st) == 0) {
			if (realpath(p, out))
				break;
		} else if (errno == ENOENT || errno == ENOTDIR) {
			if (!slash || slash == p)
				return false;
			*slash = '\0';
			continue;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			return false;
		if ((t = readlink(p, target, sizeof(target) - 1)) > 0) {
			/* p is a link to nothing (yet): on from its target. */
			target[t] = '\0';
			rest = path + strlen(p);
			if (target[0] == '/')
				len = (size_t)snprintf(next, sizeof(next), "%s%s", target, rest);
			else
				len = (size_t)snprintf(next, sizeof(next), "%.*s/%s%s",
						       (int)(slash - p), p, target, rest);
			return len < sizeof(next) && resolve_partial(next, out, depth + 1);
		}
		if (!slash || slash == p)
			return false;
		*slash = '\0';
	}
	rest = path + strlen(p);
	len = strlen(out);
	if (len + strlen(rest) >= PATH_MAX)
		return false;
	/* realpath("/") is "/": no second slash before the rest. */
	memcpy(out + (len == 1 ? 0 : len), rest, strlen(rest) + 1);
	return true;
}

static int refuse_link(const struct kj_config *cfg, const char *root, const char *link,
		       const char *real, struct kj_err *err)
{
	return kj_fail(err, "settings", 0,
		       "grant a directory that holds none of kjail's configuration or sessions, "
		       "or move the link's target out of it",
		       "%s%s holds %s, which %s leads to through a symlink: the sandbox could "
		       "write it, and a later run read it",
		       root == cfg->workspace.src ? "the workspace " : "--rw ", root, real,
		       conf_shown(link));
}

/* Every symlink in dir (a configuration directory: settings, the policy,
 * profiles) must lead out of the roots, there or dangling. */
static int check_links_in(const struct kj_config *cfg, const struct roots *r, const char *dir,
			  struct kj_err *err)
{
	DIR *d = opendir(dir); /* absent: nothing to check */
	struct dirent *e;
	int rc = 0;

	if (!d)
		return 0;
	while (!rc && (e = readdir(d))) {
		char link[PATH_MAX], real[PATH_MAX];
		const char *root;
		struct stat st;

		if (e->d_type != DT_LNK &&
		    (e->d_type != DT_UNKNOWN ||
		     fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		     !S_ISLNK(st.st_mode)))
			continue;
		if ((size_t)snprintf(link, sizeof(link), "%s/%s", dir, e->d_name) >= sizeof(link) ||
		    !resolve_partial(link, real, 0))
			continue; /* a link no path can be read through */
		if ((root = root_of(r, real)))
			rc = refuse_link(cfg, root, link, real, err);
	}
	closedir(d);
	return rc;
}

int settings_dirs_out_of_reach(const struct kj_config *cfg, struct kj_err *err)
{
	const char *home = conf_home(), *udir, *dirs[3 + 3] = {KJ_ETC "/profiles"};
	char user[PATH_MAX], legacy[PATH_MAX];
	struct roots r;
	size_t n = 1, nconf;
	int rc;

	if ((rc = conf_user_dir(&udir, err)))
		return rc;
	if (udir && (size_t)snprintf(user, sizeof(user), "%s/profiles", udir) < sizeof(user))
		dirs[n++] = user;
	/* ~/.config/kjail too when $XDG_CONFIG_HOME moved it: a run
	 * without that variable reads it again. */
	if (home &&
	    (size_t)snprintf(legacy, sizeof(legacy), "%s/%s/profiles", home, KJ_USER_DIR) <
		    sizeof(legacy) &&
	    (n == 1 || strcmp(legacy, user)))
		dirs[n++] = legacy;
	nconf = n;
	for (size_t i = 0; i < cfg->nsession_dirs && n < sizeof(dirs) / sizeof(dirs[0]); i++)
		dirs[n++] = cfg->session_dirs[i];
	roots_of(cfg, &r);
	if (!r.n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *root = root_of(&r, dirs[i]);
		char real[PATH_MAX];

		/* Another mount of the whole home (or of a directory above it)
		 * is refused as such when the mounts are read, with its own
		 * message (mounts/masks.c, add_home_alias). */
		if (root && i > 0 && i < nconf && path_covers(home, dirs[i]) &&
		    path_holds(root, home))
			continue;
		/* A grant that holds a session directory by name masks it.
		 * One that holds $XDG_CONFIG_HOME/kjail by name, before the
		 * directory exists, would let the sandbox make it. */
		if (root && (i < nconf || !path_covers(root, dirs[i])))
			return kj_fail(
				err, "settings", 0,
				"grant a directory that holds none of kjail's configuration or sessions",
				"%s%s %s %s%s, which the sandbox could then write",
				root == cfg->workspace.src ? "the workspace " : "--rw ", root,
				path_covers(root, dirs[i]) ? "holds" : "shows", conf_shown(dirs[i]),
				path_covers(root, dirs[i]) ? "" : " under another name");
		/* Through a symlink, the mask by name does not reach it. */
		if (!root && resolve_partial(dirs[i], real, 0) && strcmp(real, dirs[i]) &&
		    (root = root_of(&r, real)))
			return refuse_link(cfg, root, dirs[i], real, err);
	}
	/* The links to single files: in each profiles directory, and beside
	 * it (settings, the policy). */
	for (size_t i = 0; i < nconf; i++) {
		char parent[PATH_MAX];

		snprintf(parent, sizeof(parent), "%s", dirs[i]);
		*strrchr(parent, '/') = '\0';
		if ((rc = check_links_in(cfg, &r, dirs[i], err)) ||
		    (rc = check_links_in(cfg, &r, parent, err)))
			return rc;
	}
	return 0;
}
