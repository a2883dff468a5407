/* Placeholder until the cgroup v2 module lands: limits are never
 * enforced, so asking for one fails closed (or warns, best-effort). */
#include "runtime/cgroup.h"

#include <errno.h>

static bool wants_limits(const struct kj_limits *l)
{
	return l->memory != KJ_LIMIT_MAX || l->pids != KJ_LIMIT_MAX ||
	       l->cpu_quota_us != KJ_LIMIT_MAX;
}

int cgroup_prepare(const struct kj_config *cfg, struct kj_cgroup **out, struct kj_err *err)
{
	*out = NULL;
	if (!wants_limits(&cfg->limits))
		return 0;
	if (cfg->limits.mode == KJ_LIMITS_REQUIRED)
		return kj_fail(err, "cgroup", ENOSYS, "--limits best-effort",
			       "cannot enforce --memory %s", cfg->limits.memory_arg);
	if (!cfg->quiet)
		kj_note("limits: not enforced (cgroup support missing)");
	return 0;
}

int cgroup_fd(const struct kj_cgroup *cg)
{
	(void)cg;
	return -1;
}

void cgroup_report(struct kj_cgroup *cg, const struct kj_config *cfg, int *exit_code)
{
	(void)cg;
	(void)cfg;
	(void)exit_code;
}

void cgroup_destroy(struct kj_cgroup *cg)
{
	(void)cg;
}

int cgroup_gc(FILE *out, struct kj_err *err)
{
	(void)out;
	(void)err;
	return 0;
}
