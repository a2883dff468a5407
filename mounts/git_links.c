/* After the run: the other git directories host git enters from the
 * workspace's repository, and what COMMAND changed in them.
 *
 * .git/hooks and .git/config are read-only during the run, but host git
 * also reads the config and runs the hooks of every submodule it looks
 * at (`git status` runs a status in each): those of the absorbed
 * submodules in .git/modules/NAME (any depth), and those of a nested
 * repository whose .git is a directory, which the index names as a
 * gitlink (mode 160000). COMMAND can write all of these, and can add a
 * gitlink to the index (which `git add` must be able to write), so a
 * core.fsmonitor planted in any of them would run on the host at the
 * user's next `git status`. No mount can cover what COMMAND creates, so
 * they are checked once every process of the sandbox is gone: a config,
 * commondir or config.worktree file, or a hooks directory or hook,
 * changed during the run (its ctime, which no process can set back, is
 * after the run's start) is renamed to NAME.kjail-refused, and kjail
 * says so. */
#include "mounts/git_links.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/git_after.h"
#include "mounts/git_index.h"
#include "mounts/mountapi.h"

/* Git directories remembered before the run (past it, one is judged as
 * if new: all of its config and hooks set aside, never skipped), and
 * checked after it (past it, kjail says it could not check them all:
 * a command could otherwise hide its submodule behind thousands). */
#define MAX_GITDIRS 256
#define MAX_CHECKED GIT_WALK_MAX
#define MAX_DEPTH 4
#define BENEATH (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

struct walk {
	struct timespec start;
	const char *workspace;
	int checked, rc;
	struct git_snapshot *snap; /* filled (taking) or compared with (checking) */
	bool taking;
};

/* What a config file or a hooks directory (and every hook in it) is now:
 * inode, ctime, size and mode, hashed (FNV-1a over 64-bit words). Any write, rename or new entry
 * changes it. */
static void mix(uint64_t *h, const struct stat *st)
{
	const uint64_t v[] = {(uint64_t)st->st_ino, (uint64_t)st->st_ctim.tv_sec,
			      (uint64_t)st->st_ctim.tv_nsec, (uint64_t)st->st_size, st->st_mode};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		*h ^= v[i];
		*h *= 0x100000001b3ULL;
	}
}

static uint64_t state_of(int gitfd, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct stat st;
	struct dirent *e;
	int fd;
	DIR *d;

	if (fstatat(gitfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	mix(&h, &st);
	if (!S_ISDIR(st.st_mode) ||
	    (fd = openat(gitfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return h;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return h;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			mix(&h, &st); /* (readdir's order is stable while nothing changes) */
	closedir(d);
	return h;
}

static const struct git_snap *snap_find(const struct git_snapshot *s, const char *key)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (!strcmp(s->v[i].key, key))
			return &s->v[i];
	return NULL;
}

static bool changed_since(const struct stat *st, const struct timespec *t)
{
	return st->st_ctim.tv_sec > t->tv_sec ||
	       (st->st_ctim.tv_sec == t->tv_sec && st->st_ctim.tv_nsec >= t->tv_nsec);
}

/* strict: the directory is one the command led host git to, so all of
 * its config and hooks are the command's, whatever their times say. */
static void set_aside(struct walk *w, int dirfd, const char *name, const char *where, bool strict)
{
	char refused[64];

	snprintf(refused, sizeof(refused), "%s.kjail-refused", name);
	if (renameat(dirfd, name, dirfd, refused) == 0) {
		if (strict)
			kj_note("git: the command made a submodule lead to %s (host git would "
				"use its %s when it enters that submodule); renamed to %s",
				where, name, refused);
		else
			kj_note("git: the command changed %s/%s (host git would use it when it "
				"enters that repository); renamed to %s",
				where, name, refused);
	} else {
		struct kj_err err;
		w->rc = kj_fail(&err, "git", errno, "remove it before running git there",
				"set aside %s/%s, which the command changed", where, name);
		kj_err_print(&err);
	}
}

/* A hooks directory: set aside whole when it or any hook in it changed. */
static bool hooks_changed(int gitfd, const struct timespec *t)
{
	struct stat st;
	struct dirent *e;
	bool changed;
	int fd = openat(gitfd, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return false;
	changed = fstat(fd, &st) == 0 && changed_since(&st, t);
	if (changed || !(d = fdopendir(fd))) {
		close(fd);
		return changed;
	}
	while (!changed && (e = readdir(d)))
		changed = e->d_name[0] != '.' &&
			  fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			  changed_since(&st, t);
	closedir(d);
	return changed;
}

/* name in dirfd (where) is a symbolic link the command made during the
 * run: renamed to NAME.kjail-refused. Git makes directories in
 * .git/modules, never links, but follows one: a link .git/modules/lib ->
 * ../../junk/evil was walked by no check (opened through no symlink) and
 * the user's next `git submodule update --init` of the unpopulated lib
 * took that repository as the submodule's git directory and ran its
 * post-checkout hook on the host. True if it was such a link. */
static bool link_set_aside(struct walk *w, int dirfd, const char *name, const char *where)
{
	char refused[NAME_MAX + 32];
	struct stat st;

	if (w->taking || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
		return false;
	if (!changed_since(&st, &w->start))
		return true; /* not the command's: left, and not followed */
	snprintf(refused, sizeof(refused), "%s.kjail-refused", name);
	if (renameat(dirfd, name, dirfd, refused) == 0) {
		kj_note("git: the command made %s/%s a symbolic link (host git would take a "
			"submodule's config and hooks from where it leads); renamed to %s",
			where, name, refused);
	} else {
		struct kj_err err;
		w->rc = kj_fail(&err, "git", errno, "remove it before running git there",
				"set aside the symbolic link %s/%s, which the command made", where,
				name);
		kj_err_print(&err);
	}
	return true;
}

/* The files of a git directory host git takes config from: config, and
 * commondir (which sends it to another directory's config and hooks) and
 * config.worktree (more config, with extensions.worktreeConfig). */
static const char *const link_files[GIT_LINK_FILES] = {"config", "commondir", "config.worktree"};

static void check_gitdir(struct walk *w, int gitfd, const char *where, const char *key, int depth,
			 const struct git_snap *given, bool strict);

static void take_state(int dirfd, struct git_snap *v)
{
	for (int i = 0; i < GIT_LINK_FILES; i++)
		v->files[i] = state_of(dirfd, link_files[i]);
	v->hooks = state_of(dirfd, "hooks");
}

/* The entries of a modules/ directory (fd), or of a directory in it that
 * holds part of a submodule's name: `git submodule add URL libs/foo`
 * keeps its git directory in .git/modules/libs/foo, so an entry that is
 * no git directory (no HEAD) is a name's first part, and is walked in
 * turn (within MAX_DEPTH). */
static void check_module_names(struct walk *w, int fd, const char *where, const char *key,
			       int depth, bool strict)
{
	struct dirent *e;
	DIR *d;

	if (depth >= MAX_DEPTH)
		return;
	/* Listed through a readable reopen of the O_PATH fd. */
	{
		int rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		d = rfd >= 0 ? fdopendir(rfd) : NULL;
		if (!d && rfd >= 0)
			close(rfd);
	}
	while (d && (e = readdir(d)) && w->checked <= MAX_CHECKED) {
		char sub[4096];
		struct stat head;
		int mfd;
		if (e->d_name[0] == '.' || link_set_aside(w, fd, e->d_name, where))
			continue;
		mfd = path_open(fd, e->d_name, O_DIRECTORY, BENEATH);
		if (mfd < 0)
			continue;
		char subkey[sizeof(((struct git_snap *)0)->key)];
		int kn = *key ? snprintf(subkey, sizeof(subkey), "%s/%s", key, e->d_name) : -1;
		/* A key that does not fit is no key: judged by the clock,
		 * never against another module's state. */
		if (kn < 0 || (size_t)kn >= sizeof(subkey))
			subkey[0] = '\0';
		(void)!snprintf(sub, sizeof(sub), "%s/%s", where, e->d_name);
		if (fstatat(mfd, "HEAD", &head, AT_SYMLINK_NOFOLLOW) == 0)
			check_gitdir(w, mfd, sub, subkey, depth + 1, NULL, strict);
		else
			check_module_names(w, mfd, sub, subkey, depth + 1, strict);
		close(mfd);
	}
	if (d)
		closedir(d);
}

/* .git/modules/NAME, and their own modules, to MAX_DEPTH. */
static void check_modules(struct walk *w, int gitfd, const char *where, const char *key, int depth,
			  bool strict)
{
	int fd;
	char sub[4096];

	if (link_set_aside(w, gitfd, "modules", where))
		return; /* .git/modules -> ../junk: the same */
	if ((fd = path_open(gitfd, "modules", O_DIRECTORY, BENEATH)) < 0)
		return;
	(void)!snprintf(sub, sizeof(sub), "%s/modules", where);
	check_module_names(w, fd, sub, key, depth, strict);
	close(fd);
}

/* key names a git directory of .git/modules ("" for the others): one in
 * the snapshot taken before the run (or given) is judged by its state
 * then (no clock involved: one made just before the run is not the
 * command's), any other by its ctime against the run's start; with
 * strict, none is judged (each present is set aside). */
static void check_gitdir(struct walk *w, int gitfd, const char *where, const char *key, int depth,
			 const struct git_snap *given, bool strict)
{
	struct stat st;
	const struct git_snap *before = *key ? snap_find(w->snap, key) : given;
	int rfd;

	if (++w->checked > MAX_CHECKED) {
		if (w->taking)
			w->snap->modules_whole = false;
		if (w->checked == MAX_CHECKED + 1 && !w->taking) {
			struct kj_err err;
			w->rc = kj_fail(
				&err, "git", E2BIG,
				"check the submodules' config and hooks before running git "
				"there",
				"more than %d git directories to check after the run; %s and "
				"others past it were not checked",
				MAX_CHECKED, where);
			kj_err_print(&err);
		}
		return;
	}
	if ((rfd = openat(gitfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	if (w->taking) {
		struct git_snapshot *s = w->snap;
		struct git_snap *v =
			s->n < MAX_GITDIRS ? realloc(s->v, (s->n + 1) * sizeof(*v)) : NULL;
		if (v) {
			s->v = v;
			snprintf(v[s->n].key, sizeof(v[s->n].key), "%s", key);
			take_state(rfd, &v[s->n]);
			s->n++;
		} else {
			s->modules_whole = false;
		}
	} else if (strict || (*key && !before && w->snap && w->snap->modules_whole)) {
		/* strict, or a .git/modules entry that was not there when the
		 * run began: the command's, whatever its files' times say (a
		 * repository staged in .git in one run and moved into
		 * modules/ in the next keeps its old ctimes). */
		for (int i = 0; i < GIT_LINK_FILES; i++)
			if (state_of(rfd, link_files[i]))
				set_aside(w, rfd, link_files[i], where, true);
		if (state_of(rfd, "hooks"))
			set_aside(w, rfd, "hooks", where, true);
	} else if (before) {
		for (int i = 0; i < GIT_LINK_FILES; i++)
			if (state_of(rfd, link_files[i]) != before->files[i] &&
			    state_of(rfd, link_files[i]))
				set_aside(w, rfd, link_files[i], where, false);
		if (state_of(rfd, "hooks") != before->hooks && state_of(rfd, "hooks"))
			set_aside(w, rfd, "hooks", where, false);
	} else {
		for (int i = 0; i < GIT_LINK_FILES; i++)
			if (fstatat(rfd, link_files[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    changed_since(&st, &w->start))
				set_aside(w, rfd, link_files[i], where, false);
		if (hooks_changed(rfd, &w->start))
			set_aside(w, rfd, "hooks", where, false);
	}
	close(rfd);
	check_modules(w, gitfd, where, key, depth, strict);
}

struct link_ctx {
	struct walk *w;
	const struct kj_config *cfg;
	const char *workspace;
	struct stat own[2]; /* the index's git directory and its common one */
	int nown;
};

static const struct git_link_snap *link_find(const struct git_snapshot *s, const char *path)
{
	for (size_t i = 0; s && i < s->nlinks; i++)
		if (!strcmp(s->links[i].path, path))
			return &s->links[i];
	return NULL;
}

/* Before the run: where the gitlink at path (relative to the workspace,
 * "lib/inner" for one in a submodule's index) leads, real, and what is
 * there. */
static void snap_link(void *arg, const char *path, const char *real)
{
	struct link_ctx *c = arg;
	struct git_snapshot *s = c->w->snap;
	struct git_link_snap *v;
	struct stat st;
	int fd;

	if (s->nlinks >= MAX_GITDIRS || (fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	v = realloc(s->links, (s->nlinks + 1) * sizeof(*v));
	if (v && fstat(fd, &st) == 0 && (v[s->nlinks].path = strdup(path))) {
		v[s->nlinks].dev = st.st_dev;
		v[s->nlinks].ino = st.st_ino;
		take_state(fd, &v[s->nlinks].state);
		s->nlinks++;
	}
	if (v)
		s->links = v;
	close(fd);
}

/* After the run: the git directory host git enters for the gitlink at
 * path. COMMAND can write the .git files and directories in the
 * workspace, and the index, so "gitdir: ../evil", a symlink
 * .git -> ../evil or a directory moved to sub/.git could send host git
 * to a config with a core.fsmonitor of COMMAND's (sandbox-to-host code
 * execution at the user's next `git status`), even one whose files are
 * older than the run (a repository's own files, moved). So a gitlink that
 * is new, or that leads to another directory than before the run, has
 * all of its target's config and hooks set aside; one that leads where it
 * did is judged by the state found there before the run. A target out of
 * the sandbox's reach is not COMMAND's, and not kjail's to rename (the
 * gitlinks of its index are still walked: their .git files are in the
 * workspace). The same for the gitlinks of every submodule's own index,
 * to any depth (git_index_walk): `git status` in the workspace runs one
 * in each submodule, which enters its own submodules in turn, so a
 * repository the command nested in a submodule and linked from that
 * submodule's index (or a nested .git file it rewrote) ran its
 * core.fsmonitor on the host. */
static void check_link(void *arg, const char *path, const char *real)
{
	struct link_ctx *c = arg;
	const struct git_link_snap *before = link_find(c->w->snap, path);
	struct stat st;
	int fd;

	if (!git_sandbox_writes(c->cfg, real))
		return;
	/* No process of the sandbox is left to swap a path component now. */
	fd = path_open(AT_FDCWD, real, O_DIRECTORY, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	/* The repository's own git directory (gitdir: ../.git): its config
	 * and hooks were read-only during the run, and are the user's. */
	for (int i = 0; i < c->nown; i++)
		if (st.st_dev == c->own[i].st_dev && st.st_ino == c->own[i].st_ino) {
			close(fd);
			return;
		}
	if (before && (st.st_dev != before->dev || st.st_ino != before->ino))
		before = NULL;
	check_gitdir(c->w, fd, real, "", 0, before ? &before->state : NULL, !before);
	close(fd);
}

/* gitfd/index is the snapshot's, untouched since: the same file, its
 * ctime (which no process can set back) as it was, and from before the
 * run's clock tick (a change in that tick would keep it). Then its
 * gitlinks are the snapshot's, and the index (megabytes in a big
 * repository) is not read again. */
static bool index_unchanged(const struct git_snapshot *s, int gitfd, const struct timespec *start)
{
	struct stat st;

	return s && s->index_read && s->index.st_ino &&
	       fstatat(gitfd, "index", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_dev == s->index.st_dev && st.st_ino == s->index.st_ino &&
	       st.st_size == s->index.st_size && st.st_ctim.tv_sec == s->index.st_ctim.tv_sec &&
	       st.st_ctim.tv_nsec == s->index.st_ctim.tv_nsec && !changed_since(&st, start);
}

/* The common directory gitfd's commondir names (dir: gitfd's path), into
 * *st: true if there is one. */
static bool common_dir(int gitfd, const char *dir, struct stat *st)
{
	char common[PATH_MAX];

	return *dir && !git_named_path(gitfd, "commondir", "", dir, common, sizeof(common)) &&
	       stat(common, st) == 0;
}

static void fd_path(int fd, char dir[PATH_MAX])
{
	char fdpath[64];
	ssize_t n;

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	n = readlink(fdpath, dir, PATH_MAX - 1);
	dir[n > 0 ? n : 0] = '\0';
}

void git_links_snapshot(int gitfd, const char *workspace, struct git_snapshot *s)
{
	struct walk w = {.snap = s, .taking = true};
	struct link_ctx c = {.w = &w, .workspace = workspace};
	char dir[PATH_MAX], bad[PATH_MAX];

	*s = (struct git_snapshot){0};
	fd_path(gitfd, dir);
	s->common_read = common_dir(gitfd, dir, &s->common);
	s->modules_whole = true; /* until an entry does not fit */
	check_modules(&w, gitfd, "", "m", 0, false);
	if (git_index_gitlinks(gitfd, &s->gitlinks, &s->index) < 0)
		return;
	s->index_read = true;
	/* Past MAX_GITDIRS, or a nested index not read: judged as new. */
	(void)git_index_walk(workspace, &s->gitlinks, MAX_GITDIRS, snap_link, &c, bad, sizeof(bad));
}

void git_links_snapshot_free(struct git_snapshot *s)
{
	for (size_t i = 0; i < s->nlinks; i++)
		free(s->links[i].path);
	free(s->links);
	free(s->v);
	git_paths_free(&s->gitlinks);
	*s = (struct git_snapshot){0};
}

/* The index's git directory (its path into dir, "" if unknown) and the
 * common one it named before the run: the user's. Not the one it names
 * after: a commondir the command wrote (../sub/.git) made the command's
 * own repository "the user's", and its config went unchecked. */
static void own_dirs(int gitfd, struct link_ctx *c, const struct git_snapshot *before,
		     char dir[PATH_MAX])
{
	fd_path(gitfd, dir);
	if (fstat(gitfd, &c->own[0]) == 0)
		c->nown = 1;
	if (c->nown && before && before->common_read) {
		c->own[1] = before->common;
		c->nown = 2;
	}
}

int git_links_check(const struct kj_config *cfg, int gitfd, const char *workspace,
		    const struct timespec *start, struct git_snapshot *before)
{
	struct walk w = {.start = *start, .workspace = workspace, .snap = before};
	struct link_ctx c = {.w = &w, .cfg = cfg, .workspace = workspace};
	char where[4200], dir[PATH_MAX], bad[PATH_MAX] = "";

	own_dirs(gitfd, &c, before, dir);
	snprintf(where, sizeof(where), "%s/.git", workspace);
	check_modules(&w, gitfd, where, "m", 0, false);
	struct git_paths now = {0};
	const struct git_paths *links = &now;
	int rc = 0;
	if (index_unchanged(before, gitfd, start))
		links = &before->gitlinks;
	else if (git_index_gitlinks(gitfd, &now, &(struct stat){0}) < 0)
		rc = -1;
	if (rc == 0) {
		rc = git_index_walk(workspace, links, MAX_CHECKED, check_link, &c, bad,
				    sizeof(bad));
		if (rc == -1) /* a nested index: said with its own directory */
			snprintf(dir, sizeof(dir), "%s", bad);
	}
	git_paths_free(&now);
	if (rc) {
		/* An index kjail could not read, or gitlinks past what it
		 * walks: not "no submodules there", which would leave what
		 * they lead to unchecked. */
		struct kj_err err;
		if (rc == -1)
			w.rc = kj_fail(
				&err, "git", 0,
				"check the repository with git fsck; a split index is not "
				"read: git update-index --no-split-index; one whose offsets "
				"disagree with its entries neither: rm .git/index && git reset",
				"cannot read %s/index for the submodules host git would enter",
				*dir ? dir : where);
		else
			w.rc = kj_fail(&err, "git", -rc,
				       "check the submodules' config and hooks before running git "
				       "there",
				       "more nested submodules than kjail checks after the run (%d "
				       "gitlinks, %u MiB of index); %s and those past it were not "
				       "checked",
				       MAX_CHECKED, GIT_NESTED_BYTES >> 20, bad);
		kj_err_print(&err);
	}
	return w.rc;
}
