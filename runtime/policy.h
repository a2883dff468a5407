/* The admin's policy, /etc/kjail/policy: limits that no flag, environment
 * variable, settings file or profile can loosen. Root-owned; checked
 * against the finished configuration of every run, so it does not matter
 * which source asked for what.
 *
 *   deny OPTION              no source may use OPTION at all (deny ssh-agent)
 *   deny OPTION VALUE        net host, isolation none, limits best-effort,
 *                            landlock off, seccomp default (seccomp ./x:
 *                            every policy FILE),
 *                            profile NAME (an existing profile's name, not
 *                            a path; also when included; `deny profile
 *                            host` also refuses isolation none), rw PATH /
 *                            ro PATH / workspace PATH (a grant at or below
 *                            PATH; rw covers a writable workspace too),
 *                            env NAME, setenv NAME, allow-secret-env NAME
 *   max OPTION VALUE         memory, memory-swap, pids, cpus, timeout,
 *                            kill-grace, output-limit, tmp-size: the value
 *                            in force must be at most VALUE ("max" and "no
 *                            timeout" exceed every VALUE; `max timeout 0`
 *                            is malformed: write require timeout)
 *   require seccomp|isolation|timeout|output-limit|limits
 *                            (seccomp: kjail's default or strict filter,
 *                            not --isolation none and not a caller's
 *                            --seccomp FILE; isolation: not --isolation
 *                            none)
 *
 * The policy is a ceiling, not a default: a run whose value exceeds it
 * fails (exit 125) naming the policy line and where the value came from.
 * A malformed policy is an error for every run, never ignored.
 */
#ifndef KJAIL_POLICY_H
#define KJAIL_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/config.h"
#include "runtime/error.h"

#define KJ_POLICY_FILE "/etc/kjail/policy"

struct kj_sources;

struct kj_rule {
	enum { RULE_DENY, RULE_MAX, RULE_REQUIRE } kind;
	const char *opt;   /* the option (or the thing required) */
	const char *value; /* NULL: deny the option itself */
	const char *where; /* "/etc/kjail/policy:3" */
	const char *text;  /* "max memory 2G", as written */
	uint64_t num;      /* VALUE as the option's own parser read it (max, enums) */
	char *path;        /* canonical PATH for rw, ro, workspace */
};

struct kj_policy {
	const char *state; /* "absent" or "read" */
	struct kj_rule *rules;
	size_t n;
};

int policy_load(struct kj_policy *p, struct kj_err *err);

/* Free the rules policy_load() (or add_rule) built, also after an error. */
void policy_free(struct kj_policy *p);

int policy_enforce(const struct kj_policy *p, const struct kj_config *cfg,
		   const struct kj_sources *src, struct kj_err *err);

#endif
