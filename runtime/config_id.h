/* A configuration's identity, for telling sessions apart (config_id.c). */
#ifndef KJAIL_CONFIG_ID_H
#define KJAIL_CONFIG_ID_H

#include <stdint.h>

#include "runtime/config.h"

/* Changes with everything that shapes the sandbox, not with per-exec
 * options. cfg must be finished (config_finish). */
uint64_t config_fingerprint(const struct kj_config *cfg);

#endif
