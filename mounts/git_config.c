/* The files and directories the workspace's git config sends host git
 * to, kept read-only like .git/hooks and .git/config themselves.
 *
 * A read-only .git/config is not enough when it names a place the command
 * can write: `core.hooksPath = .husky` (what husky sets up) or
 * `include.path = ../shared.gitconfig`. The command would write a hook
 * there, or `core.fsmonitor` into the included file, and the host's next
 * `git commit` or `git status` would run it as the caller. Every such
 * target inside the workspace becomes a --protect path (and must exist:
 * one the command could create is refused, as a missing .git/hooks is).
 *
 * git's config syntax (quoting, escapes, sections with subsections,
 * case-insensitive names, includeIf conditions) is read by git itself,
 * `git config --file F`, which reads only F and runs nothing; and only
 * when F mentions "hookspath" or "include" at all, so a run in an
 * ordinary repository starts no process. Without git on the host nothing
 * runs host git either, and there is nothing to protect. */
#include "mounts/git_config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mounts/git_after.h"
#include "mounts/git_index.h"
#include "mounts/mountapi.h"
#include "runtime/accounts.h"

#define CONFIG_MAX (256 * 1024) /* larger config files are refused */
#define INCLUDE_DEPTH 10        /* git's own limit */

extern char **environ;

/* The whole of a small file, NUL-terminated; NULL if missing. */
static char *slurp(const char *path, int *e)
{
	char *buf = NULL;
	ssize_t n = 0, r;
	/* O_NONBLOCK: a FIFO left in the workspace must not hang kjail (nor
	 * the git config run on it after): only a regular file is read. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;

	*e = 0;
	if (fd < 0) {
		*e = errno == ENOENT ? 0 : errno;
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		*e = errno;
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		*e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		return NULL;
	}
	if (!(buf = malloc(CONFIG_MAX + 1))) {
		*e = ENOMEM;
		close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + n, (size_t)(CONFIG_MAX + 1 - n))) > 0 && n + r <= CONFIG_MAX)
		n += r;
	close(fd);
	if (r < 0 || n + r > CONFIG_MAX) {
		*e = r < 0 ? errno : EFBIG;
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* The git the caller's PATH finds, as execvp would (an empty entry is the
 * current directory), into out, canonical; but never one the sandbox
 * could have written: with the project's bin (or node_modules/.bin, as
 * direnv adds it) on PATH, a git that an earlier run put there ran on
 * the host, as the caller, at the next kjail exec in a husky repository.
 * 0, or ENOENT when there is no other. */
static int find_git(const struct kj_config *cfg, char *out)
{
	const char *path = getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";

	for (const char *p = path;; p++) {
		size_t n = strcspn(p, ":");
		char cand[PATH_MAX], *real;
		struct stat st;
		if ((size_t)snprintf(cand, sizeof(cand), "%.*s%sgit", (int)n, n ? p : "",
				     n ? "/" : "") < sizeof(cand) &&
		    (real = realpath(cand, NULL))) {
			bool ok = stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
				  access(real, X_OK) == 0 && !config_writable_root(cfg, real) &&
				  strlen(real) < PATH_MAX;
			if (ok)
				memcpy(out, real, strlen(real) + 1);
			free(real);
			if (ok)
				return 0;
		}
		p += n;
		if (!*p)
			return ENOENT;
	}
}

#define NO_GIT "install git, or put one the sandbox cannot write on PATH"

/* `git config --file FILE -z ARGS...` into out (name\nvalue\0 records
 * for --get-regexp, value\0 for --get-all). 0, or -1 with *e set; no
 * match is 0 with an empty out. */
static int git_config(const struct kj_config *cfg, const char *file, const char *const *args,
		      char *out, size_t size, int *e)
{
	char git[PATH_MAX];
	/* git reads the file kjail opened and found regular, as its stdin,
	 * not the path again: between slurp() and git's own open, a sandbox
	 * still running on this workspace (a session) could rename a FIFO
	 * over a submodule's config, and git, opening it, waited for a
	 * writer forever, with kjail waiting for git. /proc/self/fd/0 is a
	 * magic link: it reopens that inode, whatever the path names now. */
	const char *argv[12] = {"git",    "config",          "--no-includes",
				"--file", "/proc/self/fd/0", "-z"};
	char *envp[] = {"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", NULL, NULL};
	char pathvar[PATH_MAX + 8];
	posix_spawn_file_actions_t fa;
	size_t argc = 6, n = 0;
	int p[2], st, in;
	struct stat sb;
	ssize_t r;
	pid_t pid;

	for (; *args && argc < 11; args++)
		argv[argc++] = *args;
	argv[argc] = NULL;
	snprintf(pathvar, sizeof(pathvar), "PATH=%s",
		 getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	envp[2] = pathvar;
	if ((*e = find_git(cfg, git)))
		return -1;
	if ((in = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return *e = errno, -1;
	if (fstat(in, &sb) < 0) {
		*e = errno;
		close(in);
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		*e = S_ISDIR(sb.st_mode) ? EISDIR : EINVAL;
		close(in);
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		*e = errno;
		close(in);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	*e = posix_spawn(&pid, git, &fa, NULL, (char **)argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	close(in);
	if (*e) {
		close(p[0]);
		return -1;
	}
	while ((r = read(p[0], out + n, size - 1 - n)) > 0 && n + (size_t)r < size - 1)
		n += (size_t)r;
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	out[n] = '\0';
	/* 1: no such key; anything else but 0 is a file git cannot read. */
	if (r > 0 || !WIFEXITED(st) || (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 1))
		return *e = r > 0 ? EFBIG : EINVAL, -1;
	return 0;
}

struct walk {
	struct kj_config *cfg;
	const char *ws;       /* the workspace's source, canonical */
	const char *worktree; /* the config's repository's: ws, or a submodule's */
	int wsfd;
	const char *home;
	struct kj_err *err;
};

/* A config value as a host path, as git expands it: "~/" from $HOME,
 * "~user/" from that user's home (left as it is, which names nothing,
 * when git could not expand it either), relative from base. A
 * `~alice/proj/x.gitconfig` include into the workspace read as a
 * relative name was never protected. */
static void value_path(const struct walk *w, const char *base, const char *v, char *out,
		       size_t size)
{
	if (v[0] == '~') {
		const char *rest = strchr(v, '/'), *home = w->home;
		size_t ulen = rest ? (size_t)(rest - v - 1) : strlen(v + 1);
		struct kj_account a;
		char user[256];

		if (ulen) {
			home = NULL;
			if (ulen < sizeof(user)) {
				memcpy(user, v + 1, ulen);
				user[ulen] = '\0';
				if (account_by_name(user, &a) == 0)
					home = a.home;
			}
		}
		int n = home ? snprintf(out, size, "%s/%s", home, rest ? rest + 1 : "") : -1;
		if (n < 0 || (size_t)n >= size)
			snprintf(out, size, "%s", v);
	} else if (v[0] == '/') {
		snprintf(out, size, "%s", v);
	} else {
		snprintf(out, size, "%s/%s", base, v);
	}
}

/* Target (a host path) inside the workspace: kept read-only there. */
static int protect_target(struct walk *w, const char *file, const char *key, const char *target)
{
	char *real = realpath(target, NULL), rel[PATH_MAX];
	size_t n = strlen(w->ws);
	struct kj_config *cfg = w->cfg;

	if (!real) {
		/* Missing: only where the command could create it. */
		if (errno == ENOENT && !strncmp(target, w->ws, n) && target[n] == '/')
			return kj_fail(w->err, "workspace", ENOENT,
				       "create it on the host, so kjail can keep it read-only",
				       "%s in %s names %s, which the command could create", key,
				       file, target);
		return 0;
	}
	if (strncmp(real, w->ws, n) || (real[n] != '/' && real[n] != '\0')) {
		free(real);
		return 0; /* outside the workspace: read-only through the root */
	}
	if (!real[n]) {
		free(real);
		return kj_fail(w->err, "workspace", 0,
			       "point it at a directory below the workspace, or use --workspace-ro",
			       "%s in %s names the workspace itself, which the command can write",
			       key, file);
	}
	snprintf(rel, sizeof(rel), "%s", real + n + 1);
	free(real);
	/* A symlink in the workspace on the way (.husky -> hooks) is the
	 * command's to replace, whatever its target's protection. */
	if (!strncmp(target, w->ws, n) && target[n] == '/') {
		int fd = path_open(w->wsfd, target + n + 1, 0,
				   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd < 0)
			return kj_fail(w->err, "workspace", -fd,
				       "name the directory itself, not a symbolic link to it",
				       "%s in %s: cannot protect %s", key, file, target);
		close(fd);
	}
	for (size_t i = 0; i < cfg->nprotect; i++)
		if (!strcmp(cfg->protect[i], rel))
			return 0;
	if (cfg->nprotect == KJ_MAX_PROTECTED)
		return kj_fail(w->err, "workspace", 0, "keep fewer of them in the workspace",
			       "%s in %s: more than %d protected paths", key, file,
			       KJ_MAX_PROTECTED);
	if (!(cfg->protect[cfg->nprotect] = strdup(rel)))
		return kj_fail(w->err, "workspace", ENOMEM, NULL, "protect %s", rel);
	cfg->nprotect++;
	return 0;
}

static int walk_file(struct walk *w, const char *file, int depth);

static int walk_includes(struct walk *w, const char *file, const char *dir, int depth)
{
	static const char *const args[] = {"--get-regexp", "^include(if\\..*)?\\.path$", NULL};
	char *out = malloc(CONFIG_MAX), target[PATH_MAX];
	int e, rc = 0;

	if (!out)
		return kj_fail(w->err, "workspace", ENOMEM, NULL, "read %s", file);
	if (git_config(w->cfg, file, args, out, CONFIG_MAX, &e) < 0) {
		free(out);
		return kj_fail(w->err, "workspace", e,
			       e == ENOENT ? NO_GIT : "fix the file, or remove the include",
			       "read the includes of %s with git config", file);
	}
	/* -z: "name\nvalue\0" records. */
	for (char *rec = out; !rc && *rec; rec += strlen(rec) + 1) {
		char *value = strchr(rec, '\n');
		if (!value)
			continue; /* a key without a value: nothing is included */
		value_path(w, dir, value + 1, target, sizeof(target));
		if (!(rc = protect_target(w, file, "include.path", target)))
			rc = walk_file(w, target, depth + 1);
	}
	free(out);
	return rc;
}

static int walk_hooks_path(struct walk *w, const char *file)
{
	static const char *const args[] = {"--get-all", "core.hookspath", NULL};
	char out[4 * PATH_MAX], target[PATH_MAX];
	int e, rc = 0;

	if (git_config(w->cfg, file, args, out, sizeof(out), &e) < 0)
		return kj_fail(w->err, "workspace", e, e == ENOENT ? NO_GIT : "fix the file",
			       "read core.hooksPath of %s with git config", file);
	/* A relative hooksPath is taken from the top of the working tree:
	 * the workspace, when git runs there; a submodule's, when host git
	 * enters that. */
	for (char *v = out; !rc && *v; v += strlen(v) + 1) {
		value_path(w, w->worktree, v, target, sizeof(target));
		rc = protect_target(w, file, "core.hooksPath", target);
	}
	return rc;
}

static int walk_file(struct walk *w, const char *file, int depth)
{
	char dir[PATH_MAX], *text, *slash;
	int e, rc = 0;

	if (depth > INCLUDE_DEPTH)
		return 0; /* git stops there too */
	if (!(text = slurp(file, &e)))
		return e ? kj_fail(w->err, "workspace", e, NULL, "read %s", file) : 0;
	snprintf(dir, sizeof(dir), "%s", file);
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	if (strcasestr(text, "hookspath"))
		rc = walk_hooks_path(w, file);
	if (!rc && strcasestr(text, "include"))
		rc = walk_includes(w, file, dir, depth);
	free(text);
	return rc;
}

/* The config host git reads in the git directory dir: its config and
 * config.worktree, and those of the common directory its commondir
 * names (a worktree's own holds only its part; the shared one is where
 * husky writes core.hooksPath). */
static int walk_gitdir(struct walk *w, const char *dir)
{
	char file[PATH_MAX + 32], common[PATH_MAX];
	const char *dirs[2] = {dir, NULL};
	int rc = 0;

	snprintf(file, sizeof(file), "%s/commondir", dir);
	if (git_named_path(AT_FDCWD, file, "", dir, common, sizeof(common)) == 0)
		dirs[1] = common;
	for (int i = 0; !rc && i < 2 && dirs[i]; i++) {
		snprintf(file, sizeof(file), "%s/config", dirs[i]);
		if (!(rc = walk_file(w, file, 0))) {
			snprintf(file, sizeof(file), "%s/config.worktree", dirs[i]);
			rc = walk_file(w, file, 0);
		}
	}
	return rc;
}

struct sub_ctx {
	struct walk *w;
	int rc;
};

/* A submodule host git enters (any depth: git_index_walk): its config's
 * core.hooksPath and include.path targets kept read-only as the top
 * repository's are. Whoever could write that config (the command, when
 * it is in .git/modules; no one in the sandbox, when it is out of
 * reach), what it names in the workspace the command could rewrite: a
 * hook in the submodule's .husky, an fsmonitor in its included file,
 * which host git ran at the next `git status` or `git submodule foreach
 * --recursive git commit`. A config the command changes is set aside
 * after the run (git_links.c). */
static void walk_submodule(void *arg, const char *path, const char *gitdir)
{
	struct sub_ctx *c = arg;
	char worktree[PATH_MAX];

	if (c->rc)
		return;
	if ((size_t)snprintf(worktree, sizeof(worktree), "%s/%s", c->w->ws, path) >=
	    sizeof(worktree))
		return; /* git_index_walk hands in none that long */
	c->w->worktree = worktree;
	c->rc = walk_gitdir(c->w, gitdir);
	c->w->worktree = c->w->ws;
}

/* The submodules of the index in gitdir. An index or a nesting kjail
 * cannot read or walk whole is not refused here: the check after the
 * run walks the same gitlinks and ends the run with 125 for it. */
static int walk_submodules(struct walk *w, const char *gitdir)
{
	struct sub_ctx c = {w, 0};
	struct git_paths top;
	struct stat st;
	char bad[PATH_MAX];
	int fd = open(gitdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (git_index_gitlinks(fd, &top, &st) == 0) {
		(void)git_index_walk(w->ws, &top, GIT_WALK_MAX, walk_submodule, &c, bad,
				     sizeof(bad));
		git_paths_free(&top);
	}
	close(fd);
	return c.rc;
}

int git_config_protect(struct kj_config *cfg, struct kj_err *err)
{
	struct walk w = {.cfg = cfg,
			 .ws = cfg->workspace.src,
			 .worktree = cfg->workspace.src,
			 .home = getenv("HOME"),
			 .err = err};
	char dotgit[PATH_MAX], gitdir[PATH_MAX];
	struct stat st;
	int rc;

	if (cfg->workspace_ro || !cfg->workspace.src || cfg->isolation == KJ_ISOLATION_NONE)
		return 0; /* nothing in it can be written; or no sandbox at all */
	snprintf(dotgit, sizeof(dotgit), "%s/.git", cfg->workspace.src);
	if (lstat(dotgit, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
		return 0;
	/* A worktree's or submodule's .git names the real git directory,
	 * and a worktree's holds only its own config: the shared one, where
	 * husky writes core.hooksPath, is in the common directory. */
	if (S_ISDIR(st.st_mode))
		snprintf(gitdir, sizeof(gitdir), "%s", dotgit);
	else if (git_named_path(AT_FDCWD, dotgit, "gitdir: ", cfg->workspace.src, gitdir,
				sizeof(gitdir)))
		return 0; /* names nothing: host git cannot use it either */
	w.wsfd = path_open(AT_FDCWD, cfg->workspace.src, O_DIRECTORY, RESOLVE_NO_MAGICLINKS);
	if (w.wsfd < 0)
		return kj_fail(err, "workspace", -w.wsfd, NULL, "open %s", cfg->workspace.src);
	if (!(rc = walk_gitdir(&w, gitdir)))
		rc = walk_submodules(&w, gitdir);
	close(w.wsfd);
	return rc;
}
