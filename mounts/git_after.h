/* The workspace's git after the run.
 *
 * While the sandbox runs, .git/hooks and .git/config are read-only and
 * .git is pinned (mounts/binds.c). A mount cannot cover a name that does
 * not exist yet, so two things stay open to COMMAND, and are looked at
 * once every process of the sandbox is gone:
 *   - .git/commondir created in the workspace's own .git: it would make
 *     host git take hooks and config from a directory COMMAND chose. git
 *     itself never makes that file there, so kjail renames it to
 *     .git/commondir.kjail-refused and says so.
 *   - a .git where there was none (git init): the user's new repository,
 *     with config and hooks COMMAND wrote. kjail says so (unless --quiet)
 *     and leaves it.
 *   - the git directories of submodules and nested repositories, which
 *     host git enters from this one: see git_links.c.
 */
#ifndef KJAIL_GIT_AFTER_H
#define KJAIL_GIT_AFTER_H

#include <stdbool.h>
#include <time.h>

#include "mounts/git_links.h"
#include "runtime/config.h"

struct git_after {
	const char *workspace; /* the workspace's host path */
	bool watching;         /* it could be opened before the run */
	bool had_git, git_is_dir, had_commondir;
	struct timespec start;       /* CLOCK_REALTIME_COARSE, as file times */
	struct git_snapshot modules; /* .git/modules before the run */
};

/* Before the sandbox starts: what the workspace's .git holds. */
void git_after_start(const struct kj_config *cfg, struct git_after *g);

/* After the sandbox ended (no process of it left): set aside a new
 * .git/commondir, note a new .git. 0, or -errno when a commondir could
 * not be set aside (reported on stderr). */
int git_after_finish(struct git_after *g, bool quiet);

#endif
