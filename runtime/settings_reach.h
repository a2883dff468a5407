/* Is any of kjail's configuration or session directories somewhere this
 * run's sandbox can write? (runtime/settings_reach.c) */
#ifndef KJAIL_SETTINGS_REACH_H
#define KJAIL_SETTINGS_REACH_H

#include "runtime/config.h"
#include "runtime/error.h"

/* 0 when the workspace and every --rw grant stay clear of the
 * directories kjail reads settings, profiles, the policy and sessions'
 * records from (by name, under another name, or through a symlink, the
 * directory's or one file's in it); else -EPERM with err filled. */
int settings_dirs_out_of_reach(const struct kj_config *cfg, struct kj_err *err);

#endif
