/* After the run: the submodules' and nested repositories' git directories
 * that host git enters from the workspace (git_links.c). */
#ifndef KJAIL_GIT_LINKS_H
#define KJAIL_GIT_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "mounts/git_index.h"
#include "runtime/error.h"

/* gitfd: the git directory with the workspace's index on
 * the host (no symlinks).
 * Set aside every config, commondir, config.worktree and hooks of theirs
 * changed since start
 * (CLOCK_REALTIME_COARSE, like file times). 0, or -errno when one could
 * not be set aside or the index not read (reported on stderr). */
#define GIT_LINK_FILES 3 /* config, commondir, config.worktree */
struct git_snap {
	char key[256];                  /* "m/NAME/NAME...": its place in .git/modules */
	uint64_t files[GIT_LINK_FILES]; /* state_of() before the run; 0: absent */
	uint64_t hooks;
};
/* A gitlink of the index: the git directory host git reached through the
 * .git at its path, and that directory's state. */
struct git_link_snap {
	char *path;
	dev_t dev;
	ino_t ino;
	struct git_snap state; /* (key unused) */
};
struct git_snapshot {
	struct git_snap *v;
	size_t n;
	struct git_link_snap *links;
	size_t nlinks;
	bool index_read;           /* index and gitlinks below are known */
	struct stat index;         /* the index as read (zero: none) */
	struct git_paths gitlinks; /* its gitlinks */
	struct stat common;        /* the common dir commondir named then */
	bool common_read;
	bool modules_whole; /* taken, and every .git/modules entry is in v */
};

/* Before the run: the state of every git directory in gitfd/modules, and
 * where each gitlink of gitfd/index leads (workspace: its host path). */
void git_links_snapshot(int gitfd, const char *workspace, struct git_snapshot *s);
void git_links_snapshot_free(struct git_snapshot *s);

struct kj_config;
int git_links_check(const struct kj_config *cfg, int gitfd, const char *workspace,
		    const struct timespec *start, struct git_snapshot *before);

#endif
