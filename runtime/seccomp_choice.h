/* Which seccomp policy a run gets (--seccomp default|strict|FILE), and
 * where a policy FILE may come from. */
#ifndef KJAIL_SECCOMP_CHOICE_H
#define KJAIL_SECCOMP_CHOICE_H

#include "runtime/config.h"
#include "runtime/error.h"

/* The option's value: "default", "strict" (any case) or a path with a '/'
 * ("./mine.policy" for a file in the current directory). */
int seccomp_choice_parse(struct kj_config *cfg, const char *opt, const char *value,
			 struct kj_err *err);

/* In config_finish, after the workspace and binds are canonical: fill
 * cfg->seccomp_text and seccomp_source. A FILE is configuration: it is
 * refused inside the workspace or a --rw grant (the sandbox could have
 * rewritten it in an earlier run), when it is writable by anyone but its
 * owner, or owned by anyone but the caller or root. */
int seccomp_choice_finish(struct kj_config *cfg, struct kj_err *err);

#endif
