/* After the run: what COMMAND could leave in the workspace's git for the
 * host's git to run, where no mount could stop it (a mount cannot cover a
 * name that does not exist yet). See git_after.h. */
#include "mounts/git_after.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/git_links.h"
#include "mounts/mountapi.h"

#define MAX_WATCHED 256

/* What host git follows in a git directory that had none: set aside. */
static const char *const redirects[] = {"commondir", "config.worktree"};
static const char *const why[] = {
	"host git would take hooks and config from the directory it names",
	"host git would read it as config",
};

/* The workspace on the host, reached through no symlink: the sandbox
 * could have replaced a path component it can write. */
static int workspace_open(const char *ws)
{
	return path_open(AT_FDCWD, ws, O_DIRECTORY, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

static bool exists_at(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* A directory as host git reaches it: through symlinks, as git does. */
static int dir_open(const char *path)
{
	return path_open(AT_FDCWD, path, O_DIRECTORY, RESOLVE_NO_MAGICLINKS);
}

static bool below(const char *path, const char *top)
{
	size_t n = strlen(top);

	return !strncmp(path, top, n) && (path[n] == '/' || path[n] == '\0' || !strcmp(top, "/"));
}

bool git_sandbox_writes(const struct kj_config *cfg, const char *path)
{
	char real[PATH_MAX];

	if (!realpath(path, real))
		return false;
	if (cfg->workspace.writable && below(real, cfg->workspace.src))
		return true;
	for (size_t i = 0; i < cfg->nbinds; i++)
		if (cfg->binds[i].writable && !cfg->binds[i].agent &&
		    below(real, cfg->binds[i].src))
			return true;
	return false;
}

int git_named_path(int dirfd, const char *file, const char *prefix, const char *base, char *out,
		   size_t size)
{
	char text[PATH_MAX];
	ssize_t n;
	int fd = openat(dirfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	text[n] = '\0';
	text[strcspn(text, "\r\n")] = '\0';
	if (strncmp(text, prefix, strlen(prefix)) || !text[strlen(prefix)])
		return -EINVAL;
	n = text[strlen(prefix)] == '/' ? snprintf(out, size, "%s", text + strlen(prefix))
					: snprintf(out, size, "%s/%s", base, text + strlen(prefix));
	return (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/* The name the kernel has for fd's directory (/proc/self/fd/N), to be
 * resolved: where it is now, not where a path to it leads by then. */
static const char *fd_link(int fd, char *buf, size_t size)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
	return buf;
}

/* fd, the directory path led to before the run, watched: what it holds. */
static void watch_fd(struct git_after *g, int fd, const char *path, bool repo)
{
	struct git_watch *v;
	struct stat st;

	if (g->ndirs >= MAX_WATCHED)
		return;
	v = realloc(g->dirs, (g->ndirs + 1) * sizeof(*v));
	if (v && fstat(fd, &st) == 0 && (v[g->ndirs].path = strdup(path))) {
		v[g->ndirs].dev = st.st_dev;
		v[g->ndirs].ino = st.st_ino;
		v[g->ndirs].repo = repo;
		for (int i = 0; i < 2; i++)
			v[g->ndirs].had[i] = exists_at(fd, redirects[i]);
		g->ndirs++;
	}
	if (v)
		g->dirs = v;
}

static void watch_add(struct git_after *g, const struct kj_config *cfg, const char *path, bool repo)
{
	int fd;

	if (!git_sandbox_writes(cfg, path) || (fd = dir_open(path)) < 0)
		return;
	watch_fd(g, fd, path, repo);
	close(fd);
}

/* fn(arg, fd, dir/worktrees/NAME) for each linked worktree of the git
 * directory dirfd (dir, as said): real directories only. A worktrees/ or
 * worktrees/NAME that is a symlink is not git's (git makes directories
 * there) but a command's: followed, it led kjail's after-run rename onto
 * a host file outside the workspace (worktrees/evil -> /somewhere, whose
 * commondir changed during the run). Each entry is opened once, beneath
 * worktrees/ and through no symlink, and fn works on that fd: a check by
 * stat and then a path opened again left a window in which another
 * process writing the workspace (a second sandbox on it) could swap the
 * directory for such a symlink. */
static void each_worktree(int dirfd, const char *dir, void (*fn)(void *, int, const char *),
			  void *arg)
{
	char sub[PATH_MAX];
	struct dirent *e;
	int wfd = openat(dirfd, "worktrees", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd;
	DIR *d;

	if (wfd < 0 || !(d = fdopendir(wfd))) {
		if (wfd >= 0)
			close(wfd);
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/worktrees/%s", dir, e->d_name) >=
			    sizeof(sub) ||
		    (fd = path_open(wfd, e->d_name, O_DIRECTORY,
				    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
					    RESOLVE_NO_MAGICLINKS)) < 0)
			continue;
		fn(arg, fd, sub);
		close(fd);
	}
	closedir(d);
}

struct watch_ctx {
	struct git_after *g;
	const struct kj_config *cfg;
};

/* Judged by where fd is, not by where path leads by now. */
static void watch_worktree(void *arg, int fd, const char *path)
{
	struct watch_ctx *c = arg;
	char link[64];

	if (git_sandbox_writes(c->cfg, fd_link(fd, link, sizeof(link))))
		watch_fd(c->g, fd, path, false);
}

/* A repository's directory and its linked worktrees' directories. */
static void watch_repo(struct git_after *g, const struct kj_config *cfg, const char *dir)
{
	struct watch_ctx c = {g, cfg};
	int fd = dir_open(dir);

	if (fd < 0)
		return;
	if (git_sandbox_writes(cfg, dir))
		watch_fd(g, fd, dir, true);
	each_worktree(fd, dir, watch_worktree, &c);
	close(fd);
}

/* .git is a file ("gitdir: PATH"): the directory it names, and the
 * common directory that one's commondir names (or it is a whole
 * repository: a submodule, a --separate-git-dir). .git is read-only
 * during the run, so it names the same directory after it. */
static void watch_gitfile(struct git_after *g, const struct kj_config *cfg, int ws)
{
	char gitdir[PATH_MAX], common[PATH_MAX];
	int fd;

	if (git_named_path(ws, ".git", "gitdir: ", cfg->workspace.src, gitdir, sizeof(gitdir)) ||
	    (fd = dir_open(gitdir)) < 0)
		return;
	if (git_named_path(fd, "commondir", "", gitdir, common, sizeof(common)) == 0) {
		watch_repo(g, cfg, common);
		watch_add(g, cfg, gitdir, false); /* (if not one of those) */
	} else {
		watch_repo(g, cfg, gitdir);
	}
	close(fd);
}

/* The git directory with the workspace's index: .git, or the one a .git
 * file names (a worktree's worktrees/NAME, a submodule's modules/NAME),
 * whose gitlinks host git enters just the same. */
static int index_dir_open(const struct git_after *g, int ws)
{
	char gitdir[PATH_MAX];

	if (g->git_is_dir)
		return path_open(ws, ".git", O_DIRECTORY,
				 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (git_named_path(ws, ".git", "gitdir: ", g->workspace, gitdir, sizeof(gitdir)))
		return -1;
	return dir_open(gitdir);
}

void git_after_start(const struct kj_config *cfg, struct git_after *g)
{
	struct stat st;
	int ws = workspace_open(cfg->workspace.src);

	*g = (struct git_after){.workspace = cfg->workspace.src, .cfg = cfg, .guard = {.sock = -1}};
	/* Before COMMAND can change anything; coarse, as the kernel's file
	 * times are (a fine clock could run ahead of a change's ctime). */
	clock_gettime(CLOCK_REALTIME_COARSE, &g->start);
	if (ws < 0)
		return; /* config_finish checked it; the run fails on its own */
	g->watching = true;
	g->had_git = fstatat(ws, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0;
	g->git_is_dir = g->had_git && S_ISDIR(st.st_mode);
	if (g->git_is_dir) {
		char dir[PATH_MAX];
		if ((size_t)snprintf(dir, sizeof(dir), "%s/.git", cfg->workspace.src) < sizeof(dir))
			watch_repo(g, cfg, dir);
	} else if (g->had_git && S_ISREG(st.st_mode)) {
		watch_gitfile(g, cfg, ws);
	}
	if (g->had_git) {
		int git = index_dir_open(g, ws);
		if (git >= 0) {
			git_links_snapshot(git, g->workspace, &g->modules);
			close(git);
		}
		/* Only a .git can be planted in: a workspace without one
		 * costs no process. */
		git_guard_start(g);
	}
	close(ws);
}

static const struct git_watch *watch_find(const struct git_after *g, const char *path)
{
	for (size_t i = 0; i < g->ndirs; i++)
		if (!strcmp(g->dirs[i].path, path))
			return &g->dirs[i];
	return NULL;
}

/* fd's directory (path, if the kernel cannot name it), as said (into
 * buf): canonical, and relative to the workspace when inside it. */
static const char *shown(const struct git_after *g, int fd, const char *path, char *buf)
{
	char link[64];
	size_t n = strlen(g->workspace);
	const char *p = realpath(fd_link(fd, link, sizeof(link)), buf) ? buf : path;

	return !strncmp(p, g->workspace, n) && p[n] == '/' ? p + n + 1 : p;
}

/* One line on stderr for a failure of the after-run checks. */
static int fail(int errnum, const char *fix, const char *what)
{
	struct kj_err err;
	int rc = kj_fail(&err, "git", errnum, fix, "%s", what);

	kj_err_print(&err);
	return rc;
}

/* For a directory not watched (one of worktrees/ made during the run, or
 * past MAX_WATCHED): its ctime, which no process can set back, is after
 * the run's start. */
static bool made_during_run(const struct git_after *g, int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       (st.st_ctim.tv_sec > g->start.tv_sec ||
		(st.st_ctim.tv_sec == g->start.tv_sec && st.st_ctim.tv_nsec >= g->start.tv_nsec));
}

/* fd is the directory w watched before the run. */
static bool same_dir(int fd, const struct git_watch *w)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == w->dev && st.st_ino == w->ino;
}

/* fd (path, as host git reaches it) after the run: each of redirects[] it
 * did not have before (before: as the run found it, and the same
 * directory then) is renamed to NAME.kjail-refused. All through fd: the
 * directory looked at is the one changed. */
static int check_dir(const struct git_after *g, int fd, const char *path,
		     const struct git_watch *before)
{
	char what[PATH_MAX + 64], buf[PATH_MAX];
	int rc = 0;
	const char *said = shown(g, fd, path, buf);

	if (before && !same_dir(fd, before)) {
		/* A parent renamed during the run: path now leads to a
		 * directory the command may have made, whole. */
		snprintf(what, sizeof(what), "%s is not the directory it was before the run", said);
		return fail(0, "check it before running git there", what);
	}
	for (int i = 0; i < 2; i++) {
		char refused[64];
		if (before ? before->had[i] || !exists_at(fd, redirects[i])
			   : !made_during_run(g, fd, redirects[i]))
			continue;
		snprintf(refused, sizeof(refused), "%s.kjail-refused", redirects[i]);
		if (renameat(fd, redirects[i], fd, refused) == 0) {
			kj_note("git: the command created %s/%s (%s); renamed to %s/%s", said,
				redirects[i], why[i], said, refused);
		} else {
			snprintf(what, sizeof(what), "set aside %s/%s, which the command created",
				 said, redirects[i]);
			rc = fail(errno, "remove it before running git there", what);
		}
	}
	return rc;
}

struct check_ctx {
	const struct git_after *g;
	int rc;
};

/* A worktrees/ entry not watched (or no longer the directory that was):
 * judged by the clock. */
static void check_worktree(void *arg, int fd, const char *path)
{
	struct check_ctx *c = arg;
	const struct git_watch *w = watch_find(c->g, path);
	int rc;

	if ((!w || !same_dir(fd, w)) && (rc = check_dir(c->g, fd, path, NULL)))
		c->rc = rc;
}

/* Each watched directory, opened once and checked through that fd; a
 * repository's worktrees/ only when it is still the one watched: its
 * path may lead, by now, to a host directory the command chose (a
 * parent swapped for a symlink), whose worktrees kjail must not rename
 * in. */
static int check_watched(struct git_after *g)
{
	struct check_ctx c = {g, 0};
	int rc, fd;

	for (size_t i = 0; i < g->ndirs; i++) {
		if ((fd = dir_open(g->dirs[i].path)) < 0)
			continue; /* gone (git worktree prune, say): nothing host git reads */
		if ((rc = check_dir(g, fd, g->dirs[i].path, &g->dirs[i])))
			c.rc = rc;
		if (g->dirs[i].repo && same_dir(fd, &g->dirs[i]))
			each_worktree(fd, g->dirs[i].path, check_worktree, &c);
		close(fd);
	}
	for (size_t i = 0; i < g->ndirs; i++)
		free(g->dirs[i].path);
	free(g->dirs);
	g->dirs = NULL;
	g->ndirs = 0;
	return c.rc;
}

static int finish(struct git_after *g, bool quiet)
{
	int ws, git, rc = 0;

	if (!g->watching || (ws = workspace_open(g->workspace)) < 0)
		return check_watched(g);
	if (!g->had_git) {
		/* A repository the command made (git init, say) is the user's
		 * to use; its config and hooks are the command's. Said, not
		 * undone. */
		if (exists_at(ws, ".git") && !quiet)
			kj_note("git: the command created %s/.git: host git will use the config "
				"and hooks it wrote there (check them before running git in it)",
				g->workspace);
		close(ws);
		return 0;
	}
	git = index_dir_open(g, ws);
	if (git >= 0) {
		rc = git_links_check(g->cfg, git, g->workspace, &g->start, &g->modules);
		close(git);
	}
	git_links_snapshot_free(&g->modules);
	close(ws);
	/* A commondir or config.worktree made during the run would point
	 * host git at another git directory, or add config, of the
	 * command's choosing: the hooks and config kept read-only here would
	 * no longer matter. */
	return check_watched(g) ?: rc;
}

int git_after_finish(struct git_after *g, bool quiet)
{
	int rc = finish(g, quiet);

	git_guard_release(g); /* checked: the guardian ends untouched */
	return rc;
}
