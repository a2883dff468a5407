/* The targets of core.hooksPath and include.path inside the workspace,
 * kept read-only (mounts/git_config.c). */
#ifndef KJAIL_MOUNTS_GIT_CONFIG_H
#define KJAIL_MOUNTS_GIT_CONFIG_H

#include "runtime/config.h"
#include "runtime/error.h"

/* Add them to cfg's --protect paths; 125-worthy error if one is missing,
 * is the workspace itself, or is reached through a symlink in it. */
int git_config_protect(struct kj_config *cfg, struct kj_err *err);

#endif
