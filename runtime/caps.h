/* Dropping every privilege before COMMAND runs. */
#ifndef KJAIL_CAPS_H
#define KJAIL_CAPS_H

#include "runtime/config.h"
#include "runtime/error.h"

/* Empty the bounding and ambient sets, lock the securebits, switch to the
 * configured uid/gid, empty the remaining sets and set no_new_privs. */
int caps_drop_all(const struct kj_config *cfg, struct kj_err *err);

#endif
