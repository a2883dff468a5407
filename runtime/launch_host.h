/* The host profile's launcher (isolation none). */
#ifndef KJAIL_LAUNCH_HOST_H
#define KJAIL_LAUNCH_HOST_H

#include "runtime/config.h"
#include "runtime/error.h"

/* Run COMMAND without namespaces: scrubbed environment, a new session and
 * process group, the timeout, output caps and cgroup limits where they
 * can be had. For use only inside an outer boundary (a container, a VM):
 * the environment is the boundary. Returns the exit status. */
int sandbox_run_host(const struct kj_config *cfg, struct kj_err *err);

#endif
