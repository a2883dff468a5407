/* cgroup v2 limits: every sandbox in a leaf of its own.
 *
 * The leaf exists, with its limits written, before the sandbox is cloned
 * straight into it (clone3 CLONE_INTO_CGROUP), so no process of the
 * sandbox ever runs outside its limits.
 */
#ifndef KJAIL_CGROUP_H
#define KJAIL_CGROUP_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "runtime/config.h"
#include "runtime/error.h"

struct kj_cgroup;

/* Before clone: reclaim stale kjail cgroups, create this run's leaf and
 * write its limits. *out is NULL when no limit was asked for (all "max"),
 * or when --limits best-effort and none could be enforced (one line per
 * limit not enforced is printed, unless --quiet). With --limits required,
 * any limit that cannot be enforced is an error (exit 125). */
int cgroup_prepare(const struct kj_config *cfg, struct kj_cgroup **out, struct kj_err *err);

/* The leaf's directory fd for CLONE_INTO_CGROUP, or -1. */
int cgroup_fd(const struct kj_cgroup *cg);

/* Put pid (a host-side helper of this run: the --net proxy) in the leaf,
 * so the limits count what it costs too. 0 when cg is NULL (no limit is
 * enforced) or pid is not positive; else 0, or fills err and -errno. */
int cgroup_adopt(const struct kj_cgroup *cg, pid_t pid, const char *what, struct kj_err *err);

/* After the sandbox ended: report an OOM kill (exit 137 and
 * "kjail: killed: out of memory (limit 512M)"), pids.max reached, and the
 * --stats line; *exit_code may be changed. */
void cgroup_report(struct kj_cgroup *cg, const struct kj_config *cfg, int *exit_code);

/* The leaf's path ("" for NULL), e.g. for a session's record. */
const char *cgroup_path(const struct kj_cgroup *cg);

/* The leaf's sweeper, a child of kjail outside the leaf that removes it
 * if kjail is killed (runtime/cgroup_sweep.c), or 0: a loop that kills
 * every descendant of kjail's must spare it. */
pid_t cgroup_sweeper_pid(const struct kj_cgroup *cg);

/* Kill whatever is left in the leaf and remove it. NULL is fine. */
void cgroup_destroy(struct kj_cgroup *cg);

/* kjail gc: remove stale kjail cgroups (no live process), listing each
 * removed path on out. Returns the number removed, or -errno. */
int cgroup_gc(FILE *out, struct kj_err *err);

#endif
