/* The environment COMMAND sees: cleared, then rebuilt from an allow-list. */
#ifndef KJAIL_ENV_H
#define KJAIL_ENV_H

#include <stdbool.h>

#include "runtime/conffile.h"
#include "runtime/config.h"
#include "runtime/error.h"

/* Does this variable name look like it holds a secret? */
bool env_is_secret(const char *name, size_t len);

/* --env-file: read the caller's private NAME=VALUE file into
 * cfg->env_file_vars (and add it to files). The file must be the caller's
 * and closed to group and others. No value ever appears in a message. */
int env_file_load(struct kj_config *cfg, struct kj_conf_files *files, struct kj_err *err);

/* Build the sandbox's environment from the caller's (environ). */
int env_build(const struct kj_config *cfg, char ***envp, struct kj_err *err);

#endif
