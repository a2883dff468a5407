/* After the run: the submodules' and nested repositories' git directories
 * that host git enters from the workspace (git_links.c). */
#ifndef KJAIL_GIT_LINKS_H
#define KJAIL_GIT_LINKS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "runtime/error.h"

/* wsfd, gitfd: the workspace and its .git on the host (no symlinks).
 * Set aside every config and hooks of theirs changed since start
 * (CLOCK_REALTIME_COARSE, like file times). 0, or -errno when one could
 * not be set aside or the index not read (reported on stderr). */
struct git_snap {
	char key[256];          /* "m/NAME/NAME...": its place in .git/modules */
	uint64_t config, hooks; /* state_of() before the run; 0: absent */
};
struct git_snapshot {
	struct git_snap *v;
	size_t n;
};

/* Before the run: the state of every git directory in .git/modules. */
void git_links_snapshot(int gitfd, struct git_snapshot *s);
void git_links_snapshot_free(struct git_snapshot *s);

int git_links_check(int wsfd, int gitfd, const char *workspace, const struct timespec *start,
		    struct git_snapshot *before);

#endif
