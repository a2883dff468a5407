/* A git index's gitlinks, and the submodules host git enters through
 * them, to any depth (mounts/git_index.c). */
#ifndef KJAIL_GIT_INDEX_H
#define KJAIL_GIT_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct git_paths {
	char **v;
	size_t n;
	bool failed; /* out of memory: not all collected */
};

/* The gitlinks (mode 160000) of gitfd/index into *l, the index's stat
 * into *st (zero if there is none). 0, or -1 if the index is there but
 * could not be read as one (a split index among them). */
int git_index_gitlinks(int gitfd, struct git_paths *l, struct stat *st);
void git_paths_free(struct git_paths *l);

/* Where host git goes for the gitlink whose worktree is workspace/path:
 * its .git directory, or the directory a .git file there names, reached
 * through symlinks as host git reaches it, into real (canonical). */
bool git_link_target(const char *workspace, const char *path, char real[4096]);

/* Every gitlink host git enters from an index whose gitlinks are top,
 * then those of the index of each git directory one leads to, to any
 * depth (`git status` runs a status in each submodule, which does the
 * same in its own; so does `git submodule update --recursive`):
 * fn(arg, path, gitdir), breadth first, path being the gitlink's
 * worktree relative to the workspace ("lib", then "lib/inner") and
 * gitdir its git directory, canonical. Gitlinks whose .git is missing
 * are not entered. 0; -1 when an index could not be read (its git
 * directory into bad); -E2BIG past max gitlinks or GIT_NESTED_BYTES
 * bytes of nested indexes, -ENAMETOOLONG for a path past PATH_MAX (where
 * it stopped into bad): those past it were not handed to fn. */
#define GIT_NESTED_BYTES (1024u << 20)
#define GIT_WALK_MAX 65536 /* gitlinks, the walks after the run and before it */
int git_index_walk(const char *workspace, const struct git_paths *top, size_t max,
		   void (*fn)(void *, const char *, const char *), void *arg, char *bad,
		   size_t size);

#endif
