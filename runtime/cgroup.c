/* cgroup v2 limits: one leaf per run, made and limited before the clone.
 *
 *   prepare:  find where kjail may make cgroups (cgroup_place.c), refuse or
 *             warn for each limit that cannot be enforced, reclaim stale
 *             leaves, make run-<pid>-<random>, write its limits;
 *   clone:    the sandbox is born in the leaf (CLONE_INTO_CGROUP), which
 *             is also the root of its cgroup namespace;
 *   report:   OOM kill, process limit reached, --stats;
 *   destroy:  kill what is left (cgroup.kill) and remove the leaf
 *             (cgroup_remove.c, with the reclaim of stale leaves).
 */
#include "runtime/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cgroup_int.h"

#define CPU_PERIOD_US 100000

/* The limits as asked, in the order failures are named. */
struct asked {
	bool on[CG_NCTRL];
	const char *opt[CG_NCTRL], *arg[CG_NCTRL];
};

static void asked_init(const struct kj_limits *l, struct asked *a)
{
	*a = (struct asked){
		.on = {l->memory != KJ_LIMIT_MAX, l->pids != KJ_LIMIT_MAX,
		       l->cpu_quota_us != KJ_LIMIT_MAX},
		.opt = {"--memory", "--pids", "--cpus"},
		.arg = {l->memory_arg, l->pids_arg, l->cpus_arg},
	};
}

/* A limit that cannot be enforced: an error with --limits required (fail
 * closed: COMMAND never runs unlimited), one line of warning otherwise. */
static int not_enforced(const struct kj_config *cfg, const char *opt, const char *arg,
			const struct cg_problem *p, struct kj_err *err)
{
	if (cfg->limits.mode == KJ_LIMITS_REQUIRED)
		return kj_fail(err, "cgroup", 0, p->fix[0] ? p->fix : NULL,
			       "cannot enforce %s %s: %s", opt, arg, p->why);
	if (!cfg->quiet)
		kj_note("cgroup: %s %s not enforced: %s", opt, arg, p->why);
	return 0;
}

/* Every limit still asked for fails for the same reason. */
static int none_enforced(const struct kj_config *cfg, struct asked *a, const struct cg_problem *p,
			 struct kj_err *err)
{
	for (int c = 0; c < CG_NCTRL; c++)
		if (a->on[c] && not_enforced(cfg, a->opt[c], a->arg[c], p, err))
			return -EINVAL;
	return 0;
}

static int leaf_write(struct kj_cgroup *cg, const char *file, uint64_t v, struct cg_problem *p)
{
	char text[48];
	int rc;

	if (v == KJ_LIMIT_MAX)
		cg_fmt(text, sizeof(text), "max");
	else if (!strcmp(file, "cpu.max"))
		cg_fmt(text, sizeof(text), "%llu %d", (unsigned long long)v, CPU_PERIOD_US);
	else
		cg_fmt(text, sizeof(text), "%llu", (unsigned long long)v);
	if (!(rc = cg_write(cg->fd, file, text)))
		return 0;
	cg_fmt(p->why, sizeof(p->why), "write %s to %s/%s: %s", text, cg->path, file,
	       strerror(-rc));
	cg_fmt(p->fix, sizeof(p->fix), "check that the cgroup is delegated to you");
	return rc;
}

/* Make this run's leaf in kjfd. The creator's pid in the name lets a later
 * kjail (or kjail gc) tell a stale leaf from one about to be used. */
static int leaf_make(struct kj_cgroup *cg, const struct cg_place *pl, struct cg_problem *p)
{
	char name[48];
	uint32_t r;

	for (int tries = 0; tries < 8; tries++) {
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint32_t)time(NULL) ^ (uint32_t)clock() ^
			    (uint32_t)tries * 2654435761u;
		cg_fmt(name, sizeof(name), "run-%d-%08x", (int)getpid(), r);
		/* 0755 and ours: only kjail may change the limits (the
		 * sandbox reads them through its own read-only mount). */
		if (mkdirat(pl->kjfd, name, 0755) == 0)
			break;
		if (errno != EEXIST || tries == 7) {
			int e = errno;
			cg_fmt(p->why, sizeof(p->why), "create %s/%s: %s", pl->kjail, name,
			       strerror(e));
			cg_fmt(p->fix, sizeof(p->fix), "check that the cgroup is delegated to you");
			return -e;
		}
	}
	cg_fmt(cg->path, sizeof(cg->path), "%s/%s", pl->kjail, name);
	cg->fd = openat(pl->kjfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->fd < 0) {
		int e = errno;
		cg_fmt(p->why, sizeof(p->why), "open %s: %s", cg->path, strerror(e));
		(void)unlinkat(pl->kjfd, name, AT_REMOVEDIR);
		return -e;
	}
	return 0;
}

/* memory.swap.max exists only with swap accounting (CONFIG_MEMCG_SWAP and
 * not swapaccount=0): without it --memory-swap cannot be enforced, which
 * matters only when more than the default 0 was asked for. */
static int swap_check(const struct kj_config *cfg, const struct cg_place *pl, bool *write_swap,
		      struct kj_err *err)
{
	struct cg_problem p = {.fix = "boot with swapaccount=1 (a kernel with swap accounting), "
				      "or --limits best-effort"};

	*write_swap = faccessat(pl->kjfd, "memory.swap.max", F_OK, 0) == 0;
	if (*write_swap || cfg->limits.memory_swap == 0)
		return 0;
	cg_fmt(p.why, sizeof(p.why),
	       "the kernel has no swap accounting (memory.swap.max is missing)");
	return not_enforced(cfg, "--memory-swap", cfg->limits.memory_swap_arg, &p, err);
}

static int leaf_limit(struct kj_cgroup *cg, const struct kj_limits *l, bool write_swap,
		      struct cg_problem *p)
{
	int rc = 0;

	if (cg->enforced[CG_MEMORY]) {
		if (write_swap && (rc = leaf_write(cg, "memory.swap.max", l->memory_swap, p)))
			return rc;
		if ((rc = leaf_write(cg, "memory.max", l->memory, p)))
			return rc;
	}
	if (cg->enforced[CG_PIDS] && (rc = leaf_write(cg, "pids.max", l->pids, p)))
		return rc;
	if (cg->enforced[CG_CPU])
		rc = leaf_write(cg, "cpu.max", l->cpu_quota_us, p);
	return rc;
}

int cgroup_prepare(const struct kj_config *cfg, struct kj_cgroup **out, struct kj_err *err)
{
	struct cg_problem prob[CG_NCTRL], p = {{0}, {0}};
	struct kj_cgroup *cg;
	struct cg_place pl;
	struct asked a;
	unsigned want = 0;
	bool write_swap = false;
	int rc = 0;

	*out = NULL;
	asked_init(&cfg->limits, &a);
	for (int c = 0; c < CG_NCTRL; c++)
		want |= a.on[c] ? CG_BIT(c) : 0;
	if (!want)
		return 0; /* all "max": no cgroup at all */

	cg_locate(&pl, want, prob);
	for (int c = 0; c < CG_NCTRL; c++) {
		if (!a.on[c] || !prob[c].why[0])
			continue;
		if ((rc = not_enforced(cfg, a.opt[c], a.arg[c], &prob[c], err)))
			goto out;
		a.on[c] = false;
		want &= ~CG_BIT(c);
	}
	/* Nothing left to enforce: nothing is created either (on a hybrid
	 * host, best-effort never writes to the cgroup tree). */
	if (!want)
		goto out;
	kj_trace("cgroup: located");

	if ((rc = cg_setup(&pl, want, &p)))
		goto fail;
	if (a.on[CG_MEMORY] && (rc = swap_check(cfg, &pl, &write_swap, err)))
		goto out;
	/* Stale leaves of killed kjails (one read when there is none). */
	(void)cg_reclaim(pl.kjfd, pl.kjail, NULL);
	kj_trace("cgroup: stale leaves reclaimed");

	if (!(cg = calloc(1, sizeof(*cg)))) {
		rc = kj_fail(err, "cgroup", ENOMEM, NULL, "allocate");
		goto out;
	}
	for (int c = 0; c < CG_NCTRL; c++)
		cg->enforced[c] = a.on[c];
	cg->memory_arg = cfg->limits.memory_arg;
	cg->pids_arg = cfg->limits.pids_arg;
	if ((rc = leaf_make(cg, &pl, &p))) {
		free(cg);
		goto fail;
	}
	/* From here a kill -9 of kjail leaves no leaf behind (fail closed:
	 * a run the sweeper does not cover would). */
	if ((rc = cg_sweeper_start(cg, pl.kjfd, strrchr(cg->path, '/') + 1))) {
		kj_fail(err, "cgroup", -rc,
			"retry; kjail's own process or memory limit may be reached",
			"start the process that removes %s if kjail is killed", cg->path);
		cgroup_destroy(cg);
		goto out;
	}
	kj_trace("cgroup: leaf made, sweeper started");
	/* Limits written before the clone: the sandbox never runs unlimited. */
	if ((rc = leaf_limit(cg, &cfg->limits, write_swap, &p))) {
		cgroup_destroy(cg);
		goto fail;
	}
	*out = cg;
	goto out;
fail:
	rc = none_enforced(cfg, &a, &p, err);
out:
	cg_place_release(&pl);
	return rc;
}

/* A helper outside the leaf would spend what the limits deny the sandbox:
 * the proxy relays, resolves and buffers (up to about 210 MiB, its CPU,
 * a thread per connection) as the command asks, so a command held to
 * --memory 64M could make it spend more than three times that on the
 * caller's account. Moved before the sandbox exists, it has had nothing
 * to do yet: only its fork (a kernel stack, page tables) stays charged
 * where kjail runs, and everything the command makes it spend is the
 * leaf's. */
int cgroup_adopt(const struct kj_cgroup *cg, pid_t pid, const char *what, struct kj_err *err)
{
	char num[24];
	int rc;

	if (!cg || pid <= 0)
		return 0;
	cg_fmt(num, sizeof(num), "%d", (int)pid);
	if ((rc = cg_write(cg->fd, "cgroup.procs", num)) < 0)
		return kj_fail(err, "cgroup", -rc, "kjail doctor checks the host's cgroups",
			       "put %s in the sandbox's cgroup %s", what, cg->path);
	return 0;
}

int cgroup_fd(const struct kj_cgroup *cg)
{
	return cg ? cg->fd : -1;
}

void cg_collect(struct kj_cgroup *cg)
{
	struct kj_cgroup_result *r = &cg->res;
	char buf[2048];

	if (cg->enforced[CG_MEMORY] && cg_read(cg->fd, "memory.events", buf, sizeof(buf)) > 0)
		(void)cg_key(buf, "oom_kill", &r->oom_kills);
	if (cg->enforced[CG_PIDS] && cg_read(cg->fd, "pids.events", buf, sizeof(buf)) > 0)
		(void)cg_key(buf, "max", &r->pids_max);
	if (cg_read(cg->fd, "memory.peak", buf, sizeof(buf)) > 0) {
		r->memory_peak = strtoull(buf, NULL, 10);
		r->memory_peak_known = true;
	}
	/* cpu.stat's usage lines are there without the cpu controller. */
	if (cg_read(cg->fd, "cpu.stat", buf, sizeof(buf)) > 0)
		r->cpu_known = cg_key(buf, "usage_usec", &r->cpu_usage_us) &&
			       cg_key(buf, "user_usec", &r->cpu_user_us) &&
			       cg_key(buf, "system_usec", &r->cpu_system_us);
}

static void format_bytes(uint64_t v, char *out, size_t size)
{
	static const char unit[] = "BKMGTP";
	double d = (double)v;
	int u = 0;

	while (d >= 1024 && u < 5) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		cg_fmt(out, size, "%lluB", (unsigned long long)v);
	else
		cg_fmt(out, size, "%.1f%c", d, unit[u]);
}

void cgroup_report(struct kj_cgroup *cg, const struct kj_config *cfg, int *exit_code)
{
	const struct kj_cgroup_result *r;
	char peak[32] = "n/a";

	if (!cg) {
		if (cfg->limits.stats)
			kj_note("stats: n/a (no cgroup: no limit is enforced)");
		return;
	}
	cg_collect(cg);
	cg->reported = true;
	r = &cg->res;
	if (r->oom_kills) {
		kj_note("killed: out of memory (limit %s)", cfg->limits.memory_arg);
		*exit_code = 128 + SIGKILL;
	}
	if (r->pids_max)
		kj_note("process limit reached (%s)", cfg->limits.pids_arg);
	if (!cfg->limits.stats)
		return;
	if (r->memory_peak_known)
		format_bytes(r->memory_peak, peak, sizeof(peak));
	if (r->cpu_known)
		kj_note("stats: memory peak %s, cpu %.2fs user %.2fs system", peak,
			(double)r->cpu_user_us / 1e6, (double)r->cpu_system_us / 1e6);
	else
		kj_note("stats: memory peak %s, cpu n/a", peak);
}

const char *cgroup_path(const struct kj_cgroup *cg)
{
	return cg ? cg->path : "";
}
