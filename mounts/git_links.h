/* After the run: the submodules' and nested repositories' git directories
 * that host git enters from the workspace (git_links.c). */
#ifndef KJAIL_GIT_LINKS_H
#define KJAIL_GIT_LINKS_H

#include <time.h>

#include "runtime/error.h"

/* wsfd, gitfd: the workspace and its .git on the host (no symlinks).
 * Set aside every config and hooks of theirs changed since start
 * (CLOCK_REALTIME_COARSE, like file times). 0, or -errno when one could
 * not be set aside or the index not read (reported on stderr). */
int git_links_check(int wsfd, int gitfd, const char *workspace, const struct timespec *start);

#endif
