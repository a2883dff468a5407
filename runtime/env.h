/* The environment COMMAND sees: cleared, then rebuilt from an allow-list. */
#ifndef KJAIL_ENV_H
#define KJAIL_ENV_H

#include <stdbool.h>

#include "runtime/config.h"
#include "runtime/error.h"

/* Does this variable name look like it holds a secret? */
bool env_is_secret(const char *name, size_t len);

/* Build the sandbox's environment from the caller's (environ). */
int env_build(const struct kj_config *cfg, char ***envp, struct kj_err *err);

#endif
