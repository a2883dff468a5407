/* The workspace's git after the run.
 *
 * While the sandbox runs, .git/hooks and .git/config are read-only and
 * .git is pinned (mounts/binds.c). A mount cannot cover a name that does
 * not exist yet, so two things stay open to COMMAND, and are looked at
 * once every process of the sandbox is gone:
 *   - a commondir created in the workspace's own .git, in the git
 *     directory a .git file names, in its common directory or in one of
 *     that directory's worktrees/NAME: it would make host git take hooks
 *     and config from a directory COMMAND chose. git itself never makes
 *     that file in a directory that had none (`git worktree add` on the
 *     host during the run aside), so kjail renames it to
 *     commondir.kjail-refused and says so. The same for config.worktree,
 *     which host git reads as config when extensions.worktreeConfig is set.
 *   - a .git where there was none (git init): the user's new repository,
 *     with config and hooks COMMAND wrote. kjail says so (unless --quiet)
 *     and leaves it.
 *   - the git directories of submodules and nested repositories, which
 *     host git enters from this one: see git_links.c.
 */
#ifndef KJAIL_GIT_AFTER_H
#define KJAIL_GIT_AFTER_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "mounts/git_links.h"
#include "runtime/config.h"
#include "runtime/guardian.h"

/* A git directory the sandbox could write, as the run found it. */
struct git_watch {
	char *path; /* as host git reaches it (symlinks and all) */
	dev_t dev;  /* what path led to before the run */
	ino_t ino;
	bool repo;   /* a repository's (common) directory: its
		      * worktrees/ entries are watched too */
	bool had[2]; /* commondir, config.worktree there before */
};

struct git_after {
	const struct kj_config *cfg;
	const char *workspace; /* the workspace's host path */
	bool watching;         /* it could be opened before the run */
	bool had_git, git_is_dir;
	struct timespec start;       /* CLOCK_REALTIME_COARSE, as file times */
	struct git_snapshot modules; /* .git/modules, gitlinks before the run */
	struct git_watch *dirs;      /* .git, or the directories a .git file
				      * leads to, and their worktrees/ entries */
	size_t ndirs;
	struct guardian guard; /* kjail-git (git_guard.c), kjail's child; or -1, 0 */
	int guard_err;         /* errno when it could not be started: the run fails */
};

/* "gitdir: PATH" in a .git file, "PATH" in commondir (prefix ""): PATH,
 * relative to base (the directory the file is in), into out. 0, or
 * -errno (-EINVAL for a file that names nothing). Shared by the mount
 * recipe (binds.c), the config walk (git_config.c) and the check after
 * the run, so all three read those files alike. */
int git_named_path(int dirfd, const char *file, const char *prefix, const char *base, char *out,
		   size_t size);

/* path (canonical) is in the workspace or a --rw grant, where COMMAND
 * could write. */
bool git_sandbox_writes(const struct kj_config *cfg, const char *path);

/* Before the sandbox starts: what the workspace's .git holds; with a
 * .git, a guardian that does the check after the run should kjail die
 * before it (git_guard.c). */
void git_after_start(const struct kj_config *cfg, struct git_after *g);

/* After the sandbox ended (no process of it left): set aside a new
 * commondir or config.worktree, note a new .git. 0, or -errno when one
 * could not be set aside or a watched directory was swapped (reported on
 * stderr). */
int git_after_finish(struct git_after *g, bool quiet);

/* git_guard.c: start the guardian, without waiting for it (g->guard, or
 * g->guard_err); hand it the sandbox's init (pidfd) before COMMAND may
 * start, once it says it left kjail's process group (0, or -errno: no
 * guardian, and the run must not go on); tell it the check was done (or
 * that nothing ran) and wait for its end. arm with g NULL: nothing. */
void git_guard_start(struct git_after *g);
int git_guard_arm(struct git_after *g, int pidfd);
void git_guard_release(struct git_after *g);

#endif
