/* After the run: what COMMAND could leave in the workspace's git for the
 * host's git to run, where no mount could stop it (a mount cannot cover a
 * name that does not exist yet). See git_after.h. */
#include "mounts/git_after.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/git_links.h"
#include "mounts/mountapi.h"

#define REFUSED_NAME "commondir.kjail-refused"

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

void git_after_start(const struct kj_config *cfg, struct git_after *g)
{
	struct stat st;
	int ws = workspace_open(cfg->workspace.src);

	*g = (struct git_after){.workspace = cfg->workspace.src};
	/* Before COMMAND can change anything; coarse, as the kernel's file
	 * times are (a fine clock could run ahead of a change's ctime). */
	clock_gettime(CLOCK_REALTIME_COARSE, &g->start);
	if (ws < 0)
		return; /* config_finish checked it; the run fails on its own */
	g->watching = true;
	g->had_git = fstatat(ws, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0;
	g->git_is_dir = g->had_git && S_ISDIR(st.st_mode);
	g->had_commondir = g->git_is_dir && exists_at(ws, ".git/commondir");
	if (g->git_is_dir) {
		int git = path_open(ws, ".git", O_DIRECTORY,
				    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (git >= 0) {
			git_links_snapshot(git, &g->modules);
			close(git);
		}
	}
	close(ws);
}

int git_after_finish(struct git_after *g, bool quiet)
{
	int ws, git, rc = 0;

	if (!g->watching || (ws = workspace_open(g->workspace)) < 0)
		return 0;
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
	git = g->git_is_dir
		      ? path_open(ws, ".git", O_DIRECTORY,
				  RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
		      : -1;
	if (git < 0) {
		close(ws);
		return 0;
	}
	rc = git_links_check(ws, git, g->workspace, &g->start, &g->modules);
	git_links_snapshot_free(&g->modules);
	close(ws);
	if (g->had_commondir) {
		close(git);
		return rc;
	}
	/* .git/commondir, made during the run, would point host git at
	 * another git directory, with hooks and config of the command's
	 * choosing: the hooks and config kept read-only here would no longer
	 * matter. git makes no such file in a repository's own .git (only in
	 * a worktree's), so it is set aside, not trusted. */
	if (exists_at(git, "commondir")) {
		if (renameat(git, "commondir", git, REFUSED_NAME) == 0) {
			kj_note("git: the command created .git/commondir (host git would take hooks "
				"and config from the directory it names); renamed to .git/" REFUSED_NAME);
		} else {
			struct kj_err err;
			rc = kj_fail(&err, "git", errno, "remove it before running git there",
				     "set aside %s/.git/commondir, which the command created",
				     g->workspace);
			kj_err_print(&err);
		}
	}
	close(git);
	return rc;
}
