/* kjail doctor: the facts, each with its status, the reason when something
 * is off and the fix; then the posture of the run a `kjail exec` would
 * get here, and whether it can start. See doctor.h. */
#include "runtime/doctor.h"
#include "runtime/json_out.h"
#include "runtime/launch_host.h"
#include "runtime/sandbox.h"
#include "runtime/stdio.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "runtime/cgroup_int.h" /* cg_locate: see check_cgroup() */
#include "runtime/builtin.h"
#include "runtime/cli.h"
#include "runtime/landlock.h"
#include "runtime/probe.h"
#include "runtime/settings.h"

#ifndef KJAIL_VERSION
#define KJAIL_VERSION "0.1.0"
#endif

#define MAX_CHECKS 16

struct check {
	const char *name;
	const char *status; /* ok, warn, fail, info */
	char detail[640];
	char fix[320];
};

struct report {
	struct check checks[MAX_CHECKS];
	size_t n;
	bool blocked; /* the run cannot start: verdict says why */
	char verdict[640];
	char limits[480]; /* the limits part of the posture */
	char posture[800];
	/* Live results the verdict needs. */
	struct kj_err kernel_err, userns_err, mount_err, net_err, seccomp_err, landlock_err;
	bool kernel_ok, userns_ok, mount_ok, net_ok, seccomp_ok, landlock_ok, seccomp_compiles;
	int landlock_abi;
	struct kj_err limits_err; /* the first limit that cannot be enforced */
	bool limits_blocked;
};

__attribute__((format(printf, 3, 4))) static void put(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

/* snprintf for report text, where a cut is harmless. */
__attribute__((format(printf, 3, 4))) static void set(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

static struct check *add(struct report *r, const char *name, const char *status)
{
	struct check *c = &r->checks[r->n < MAX_CHECKS - 1 ? r->n++ : r->n];

	memset(c, 0, sizeof(*c));
	c->name = name;
	c->status = status;
	return c;
}

/* "fix" part of an error record's message: the text in the last (...).
 * False when it is only the errno's own advice (error.c's errno_fix): a
 * check with a better one of its own gives that instead. */
static bool split_fix(const struct kj_err *e, char *what, size_t wsize, char *fix, size_t fsize)
{
	const char *msg = e->msg;
	size_t n = strlen(msg);
	const char *open = NULL;

	if (n && msg[n - 1] == ')') {
		int depth = 0;
		for (const char *p = msg + n - 1; p >= msg; p--) {
			depth += *p == ')' ? 1 : *p == '(' ? -1 : 0;
			if (depth == 0) {
				open = p;
				break;
			}
		}
	}
	if (open && open > msg && open[-1] == ' ') {
		set(what, wsize, "%.*s", (int)(open - msg - 1), msg);
		snprintf(fix, fsize, "%.*s", (int)(msg + n - open - 2), open + 1);
	} else {
		set(what, wsize, "%s", msg);
		fix[0] = '\0';
	}
	return fix[0] && !e->errno_fix;
}

static void sysctl_read(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "re");

	if (!f || !fgets(out, (int)size, f))
		snprintf(out, size, "absent");
	else
		out[strcspn(out, "\n")] = '\0';
	if (f)
		fclose(f);
}

/* ------------------------------------------------------------ the facts */

static void check_kernel(struct report *r)
{
	struct utsname u;
	int major = 0, minor = 0;
	struct check *c;

	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	r->kernel_ok = major > 5 || (major == 5 && minor >= 12);
	c = add(r, "kernel", r->kernel_ok ? "ok" : "fail");
	set(c->detail, sizeof(c->detail), "Linux %s (kjail needs 5.12 or later)", u.release);
	if (!r->kernel_ok) {
		set(c->fix, sizeof(c->fix),
		    "upgrade the kernel, or use the host profile inside a VM");
		kj_fail(&r->kernel_err, "kernel", 0, c->fix, "Linux %s is older than 5.12",
			u.release);
	}
}

static void check_userns(struct report *r)
{
	char max[32], clone[32], aa[32], what[480], fix[320];
	struct check *c;

	sysctl_read("/proc/sys/user/max_user_namespaces", max, sizeof(max));
	sysctl_read("/proc/sys/kernel/unprivileged_userns_clone", clone, sizeof(clone));
	sysctl_read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", aa, sizeof(aa));
	r->userns_ok = probe_userns(&r->userns_err) == 0;
	c = add(r, "user namespaces", r->userns_ok ? "ok" : "fail");
	if (r->userns_ok) {
		set(what, sizeof(what),
		    "live probe: a user namespace with our uid mapped, and a mount namespace inside it");
	} else {
		/* The probe's own fix first: it knows an unreadable binary. */
		if (split_fix(&r->userns_err, what, sizeof(what), fix, sizeof(fix)))
			set(c->fix, sizeof(c->fix), "%s", fix);
		else if (!strcmp(max, "0"))
			set(c->fix, sizeof(c->fix),
			    "sysctl -w user.max_user_namespaces=15000 (and in /etc/sysctl.d/)");
		else if (!strcmp(clone, "0"))
			set(c->fix, sizeof(c->fix),
			    "sysctl -w kernel.unprivileged_userns_clone=1 (and in /etc/sysctl.d/)");
		else if (!strcmp(aa, "1"))
			set(c->fix, sizeof(c->fix),
			    "install the AppArmor profile kjail ships: cp contrib/apparmor/kjail /etc/apparmor.d/ && apparmor_parser -r /etc/apparmor.d/kjail; "
			    "or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0");
		else
			set(c->fix, sizeof(c->fix),
			    "check the kernel's user namespace support and any LSM denying it");
	}
	set(c->detail, sizeof(c->detail),
	    "%s; user.max_user_namespaces=%s, kernel.unprivileged_userns_clone=%s, kernel.apparmor_restrict_unprivileged_userns=%s",
	    what, max, clone, aa);
}

/* The policy the run would load (the built-in default when the
 * configuration was refused), compiled, loaded and tried. */
static void check_seccomp(struct report *r, const struct kj_config *cfg)
{
	const struct scmp_version *v = seccomp_version();
	const char *text = cfg->seccomp_text, *source = cfg->seccomp_source;
	char actions[200], what[480], fix[320];
	bool builtin = cfg->seccomp != KJ_SECCOMP_FILE;
	unsigned insns = 0;
	struct check *c;

	if (!text) {
		text = kjail_builtin_find("seccomp-default.policy");
		source = "profiles/seccomp-default.policy";
		builtin = true;
	}
	sysctl_read("/proc/sys/kernel/seccomp/actions_avail", actions, sizeof(actions));
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		kj_fail(&r->seccomp_err, "seccomp", errno,
			"use a kernel built with CONFIG_SECCOMP_FILTER",
			"the kernel has no seccomp");
	} else if (!text) {
		kj_fail(&r->seccomp_err, "seccomp", 0, "rebuild kjail",
			"the built-in policy is missing");
	} else {
		r->seccomp_ok = probe_seccomp(text, source, builtin, &insns, &r->seccomp_err) == 0;
		r->seccomp_compiles = r->seccomp_ok || insns > 0;
	}
	/* --isolation none loads no filter: the probe is a fact of the host,
	 * not of the run, and the line says so instead of "ok". */
	if (cfg->isolation == KJ_ISOLATION_NONE) {
		c = add(r, "seccomp", "info");
		set(c->detail, sizeof(c->detail),
		    "not used: --isolation none runs COMMAND without a filter (here %s %s)", source,
		    r->seccomp_ok ? "loads and denies unshare" : "does not load");
		return;
	}
	c = add(r, "seccomp", r->seccomp_ok ? "ok" : "fail");
	if (r->seccomp_ok) {
		set(c->detail, sizeof(c->detail),
		    "live probe: %s (%u instructions) loads%s; libseccomp %u.%u.%u; kernel actions: %s",
		    source, insns, builtin ? " and denies unshare" : "", v->major, v->minor,
		    v->micro, actions);
		return;
	}
	bool own_fix = split_fix(&r->seccomp_err, what, sizeof(what), fix, sizeof(fix));
	set(c->detail, sizeof(c->detail), "%s; libseccomp %u.%u.%u", what, v->major, v->minor,
	    v->micro);
	set(c->fix, sizeof(c->fix), "%s", own_fix ? fix : "use a kernel with seccomp filters");
}

/* Where a crash inside would go. A core_pattern of `|program` has the
 * kernel run that program as root on the host for every crash whatever
 * the limit, but 1 byte, which a run pins (runtime/child.c). */
static void check_core_dumps(struct report *r, const struct kj_config *cfg)
{
	char pattern[200];
	struct rlimit lim;
	bool pipe;
	struct check *c;

	sysctl_read("/proc/sys/kernel/core_pattern", pattern, sizeof(pattern));
	pipe = pattern[0] == '|';
	if (cfg->isolation == KJ_ISOLATION_NONE) {
		c = add(r, "core dumps", pipe ? "warn" : "info");
		set(c->detail, sizeof(c->detail),
		    "not pinned: --isolation none leaves COMMAND's crashes to the host (core_pattern %s)",
		    pattern);
		return;
	}
	if (cfg->seccomp == KJ_SECCOMP_FILE) {
		c = add(r, "core dumps", pipe ? "warn" : "info");
		set(c->detail, sizeof(c->detail),
		    "RLIMIT_CORE starts at 1 byte; the caller's policy file decides whether COMMAND can change it (core_pattern %s)",
		    pattern);
		set(c->fix, sizeof(c->fix),
		    "copy the two RLIMIT_CORE lines of profiles/seccomp-default.policy into the policy");
		return;
	}
	/* runtime/child.c, core_limit_pin: a hard limit of 0 stays 0. */
	if (getrlimit(RLIMIT_CORE, &lim) == 0 && lim.rlim_max == 0) {
		c = add(r, "core dumps", pipe ? "warn" : "info");
		set(c->detail, sizeof(c->detail),
		    "RLIMIT_CORE stays 0: the caller's hard limit is 0, which kjail cannot raise to the 1 byte that keeps the kernel from calling a pipe handler (core_pattern %s)",
		    pattern);
		if (pipe)
			set(c->fix, sizeof(c->fix),
			    "a crash inside reaches the handler, told the limit is 0: allow a hard core limit of 1 or more (limits.conf)");
		return;
	}
	c = add(r, "core dumps", "ok");
	set(c->detail, sizeof(c->detail),
	    "none: RLIMIT_CORE pinned at 1 byte, so no crash inside reaches the host's handler or writes a file (core_pattern %s)",
	    pattern);
}

/* fd names an inotify instance. */
static bool is_inotify(int dirfd, const char *name)
{
	char link[32];
	ssize_t n = readlinkat(dirfd, name, link, sizeof(link) - 1);

	if (n < 0)
		return false;
	link[n] = '\0';
	return !strcmp(link, "anon_inode:inotify");
}

/* The inotify instances the processes running as uid hold; *hidden: how
 * many of those processes' fds could not be read. */
static long inotify_in_use(uid_t uid, long *hidden)
{
	DIR *proc = opendir("/proc"), *fds;
	struct dirent *p, *f;
	long used = 0;

	*hidden = 0;
	while (proc && (p = readdir(proc))) {
		char path[sizeof(p->d_name) + 16];
		struct stat st;

		if (p->d_name[0] < '1' || p->d_name[0] > '9' ||
		    fstatat(dirfd(proc), p->d_name, &st, 0) < 0 || st.st_uid != uid)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		if (!(fds = opendir(path))) {
			*hidden += errno != ENOENT; /* ENOENT: it just ended */
			continue;
		}
		while ((f = readdir(fds)))
			used += f->d_name[0] != '.' && is_inotify(dirfd(fds), f->d_name);
		closedir(fds);
	}
	if (proc)
		closedir(proc);
	return used;
}

/* Each running sandbox and session holds an inotify instance, its watch
 * for renames on the host (runtime/mount_watch.c), and the kernel counts
 * them per user: with none left, kjail exits 125. */
static void check_inotify(struct report *r, const struct kj_config *cfg)
{
	char limit_s[32];
	long limit, used, hidden, left;
	struct check *c;
	char *end;

	if (cfg->isolation == KJ_ISOLATION_NONE)
		return; /* no mounts, no watch */
	sysctl_read("/proc/sys/user/max_inotify_instances", limit_s, sizeof(limit_s));
	limit = strtol(limit_s, &end, 10);
	used = inotify_in_use(geteuid(), &hidden);
	if (end == limit_s) {
		c = add(r, "inotify", "info");
		set(c->detail, sizeof(c->detail),
		    "%ld instances in use by uid %u, limit unknown (no "
		    "/proc/sys/user/max_inotify_instances); each running sandbox and session holds "
		    "one",
		    used, (unsigned)geteuid());
		return;
	}
	left = limit - used;
	c = add(r, "inotify", left <= 0 ? "fail" : left < 8 ? "warn" : "ok");
	set(c->detail, sizeof(c->detail),
	    "%ld of %ld instances in use by uid %u (fs.inotify.max_user_instances)%s; each running "
	    "sandbox and session holds one, to see a masked or bound path renamed, or a missing credential store made, on the host",
	    used, limit, (unsigned)geteuid(),
	    hidden ? ", not counting processes whose fds cannot be read" : "");
	if (left < 8)
		set(c->fix, sizeof(c->fix),
		    "end sessions not in use (kjail ls), or raise fs.inotify.max_user_instances");
}

/* What Landlock the run would get (landlock_plan(), as launch.c calls it). */
static void check_landlock(struct report *r, const struct kj_config *cfg)
{
	char what[200], fix[320], why[480];
	struct check *c;

	r->landlock_ok = landlock_plan(cfg, &r->landlock_abi, &r->landlock_err) == 0;
	landlock_describe(cfg, r->landlock_abi, what, sizeof(what));
	/* --isolation none enforces no Landlock (launch_host.c): "ABI 7:
	 * files, ..." would describe a wall the run does not get. */
	if (cfg->isolation == KJ_ISOLATION_NONE) {
		c = add(r, "landlock", "info");
		set(c->detail, sizeof(c->detail),
		    "not used: --isolation none runs COMMAND without Landlock (here %s)", what);
		return;
	}
	c = add(r, "landlock", !r->landlock_ok ? "fail" : r->landlock_abi > 0 ? "ok" : "info");
	set(c->detail, sizeof(c->detail), "%s", what);
	if (!r->landlock_ok) {
		split_fix(&r->landlock_err, why, sizeof(why), fix, sizeof(fix));
		put(c->detail, sizeof(c->detail), "; %s", why);
		set(c->fix, sizeof(c->fix), "%s", fix);
	}
}

static void check_mount_api(struct report *r)
{
	char what[480], fix[320];
	struct check *c;

	r->mount_ok = probe_mount_api(&r->mount_err) == 0;
	c = add(r, "mount API", r->mount_ok ? "ok" : "fail");
	if (r->mount_ok) {
		set(c->detail, sizeof(c->detail),
		    "live probe: fsopen/fsmount of a tmpfs and a read-only open_tree clone of / in a user namespace");
		return;
	}
	bool own_fix = split_fix(&r->mount_err, what, sizeof(what), fix, sizeof(fix));
	set(c->detail, sizeof(c->detail), "%s", what);
	set(c->fix, sizeof(c->fix), "%s", own_fix ? fix : "kjail needs Linux 5.12 or later");
}

static void check_network(struct report *r, const struct kj_config *cfg)
{
	char what[480], fix[320];
	struct check *c;

	r->net_ok = probe_netns(&r->net_err) == 0;
	c = add(r, "network", r->net_ok ? "ok" : cfg->net != KJ_NET_HOST ? "fail" : "warn");
	if (r->net_ok) {
		set(c->detail, sizeof(c->detail),
		    "live probe: lo up in a new network namespace (what --net none gets)");
		return;
	}
	bool own_fix = split_fix(&r->net_err, what, sizeof(what), fix, sizeof(fix));
	set(c->detail, sizeof(c->detail), "--net none (and proxy) cannot work here: %s", what);
	set(c->fix, sizeof(c->fix), "%s", own_fix ? fix : "use --net host (no network isolation)");
}

/* The limits asked for, through the cgroup module's own look (cg_locate,
 * which writes nothing), so doctor's answer is the one a run would get. */
static void check_cgroup(struct report *r, const struct kj_config *cfg)
{
	const struct kj_limits *l = &cfg->limits;
	const bool asked[CG_NCTRL] = {l->memory != KJ_LIMIT_MAX, l->pids != KJ_LIMIT_MAX,
				      l->cpu_quota_us != KJ_LIMIT_MAX};
	const char *opt[CG_NCTRL] = {"--memory", "--pids", "--cpus"};
	const char *arg[CG_NCTRL] = {l->memory_arg, l->pids_arg, l->cpus_arg};
	char summary[400] = "", enforced[200] = "";
	struct cg_problem prob[CG_NCTRL];
	struct cg_place pl;
	bool all_v1 = true, any_asked = false, any_missing = false;
	struct check *c;

	cg_locate(&pl, CG_BIT(CG_MEMORY) | CG_BIT(CG_PIDS) | CG_BIT(CG_CPU), prob);
	c = add(r, "cgroup v2", "ok");
	if (!pl.have_mount)
		put(c->detail, sizeof(c->detail), "no cgroup2 file system (cgroup v1 only)");
	else if (!strcmp(pl.mount, "/sys/fs/cgroup"))
		put(c->detail, sizeof(c->detail), "unified: cgroup2 at %s", pl.mount);
	else
		put(c->detail, sizeof(c->detail), "hybrid: cgroup2 at %s, beside cgroup v1",
		    pl.mount);
	if (pl.have_base)
		put(c->detail, sizeof(c->detail), "; kjail's cgroups go in %s", pl.kjail);
	for (int i = 0; i < CG_NCTRL; i++) {
		put(c->detail, sizeof(c->detail), "; %s: %s", cg_ctrl_name[i],
		    prob[i].why[0] ? prob[i].why : "usable");
		if (prob[i].why[0]) {
			c->status = "warn";
			if (!c->fix[0])
				set(c->fix, sizeof(c->fix), "%s", prob[i].fix);
		}
		if (!asked[i])
			continue;
		any_asked = true;
		if (!prob[i].why[0]) {
			put(enforced, sizeof(enforced), "%s%s %s", enforced[0] ? ", " : "",
			    opt[i] + 2, arg[i]);
			continue;
		}
		all_v1 &= strstr(prob[i].why, "cgroup v1") != NULL;
		if (!any_missing) /* the error a run would stop at: the first */
			kj_fail(&r->limits_err, "cgroup", 0, prob[i].fix[0] ? prob[i].fix : NULL,
				"cannot enforce %s %s: %s", opt[i], arg[i], prob[i].why);
		any_missing = true;
	}
	cg_place_release(&pl);
	if (any_missing) {
		const char *sep = "";
		int k = 0, nmissing = 0;
		for (int i = 0; i < CG_NCTRL; i++)
			nmissing += asked[i] && prob[i].why[0];
		for (int i = 0; i < CG_NCTRL; i++) {
			if (!asked[i] || !prob[i].why[0])
				continue;
			k++;
			sep = k == 1 ? "" : k == nmissing ? " and " : ", ";
			if (all_v1)
				put(summary, sizeof(summary), "%s%s", sep, cg_ctrl_name[i]);
			else
				put(summary, sizeof(summary), "%s%s", k > 1 ? "; " : "",
				    prob[i].why);
		}
		if (all_v1)
			put(summary, sizeof(summary), " %s on cgroup v1",
			    nmissing > 1 ? "are" : "is");
	}
	r->limits_blocked = any_missing && l->mode == KJ_LIMITS_REQUIRED;
	if (!any_asked)
		set(r->limits, sizeof(r->limits), "limits: none asked");
	else if (!any_missing)
		set(r->limits, sizeof(r->limits), "limits: %s", enforced);
	else if (r->limits_blocked)
		set(r->limits, sizeof(r->limits), "limits: not enforceable here (%s)", summary);
	else
		set(r->limits, sizeof(r->limits), "limits: best-effort, not enforced here (%s)%s%s",
		    summary, enforced[0] ? "; enforced: " : "", enforced);
}

/* ---------------------------------------------------- the configuration */

static void check_config(struct report *r, const struct kj_config *cfg, const struct kj_sources *s,
			 int cfg_rc, const struct kj_err *cfg_err)
{
	struct check *c = add(r, "profile", cfg_rc ? "fail" : "ok");
	char *unread;

	if (s->profile.name)
		set(c->detail, sizeof(c->detail), "%s (chosen by %s; %s)", s->profile.name,
		    s->profile_from ? s->profile_from : "?", s->profile.file);
	else
		set(c->detail, sizeof(c->detail), "none could be chosen");
	if (cfg_rc) {
		char what[480];
		split_fix(cfg_err, what, sizeof(what), c->fix, sizeof(c->fix));
		put(c->detail, sizeof(c->detail), "; the configuration is refused: %s: %s",
		    cfg_err->part, what);
	}
	if (!cfg_rc && cfg->isolation == KJ_ISOLATION_NONE) {
		c->status = "warn";
		put(c->detail, sizeof(c->detail),
		    "; profile host: no isolation, the environment is the boundary");
	}
	c = add(r, "settings", "info");
	for (size_t i = 0; i < s->files.n; i++)
		if (strncmp(s->files.v[i].state, "built-in", 8))
			put(c->detail, sizeof(c->detail), "%s%s: %s", c->detail[0] ? "; " : "",
			    s->files.v[i].shown, s->files.v[i].state);
	/* Settings the caller wrote where kjail no longer looks: each run
	 * goes without them, and says nothing. */
	if ((unread = conf_user_unread("settings", c->fix, sizeof(c->fix)))) {
		c->status = "warn";
		put(c->detail, sizeof(c->detail), "%s%s: there, not read (XDG_CONFIG_HOME is set)",
		    c->detail[0] ? "; " : "", conf_shown(unread));
		free(unread);
	}
	c = add(r, "policy", "info");
	put(c->detail, sizeof(c->detail), "%s: %s", KJ_POLICY_FILE,
	    s->policy.state ? s->policy.state : "not read");
	for (size_t i = 0; i < s->policy.n; i++)
		put(c->detail, sizeof(c->detail), "%s %s", i ? ";" : ":", s->policy.rules[i].text);
}

static void posture(struct report *r, const struct kj_config *cfg, const struct kj_sources *s)
{
	const char *name = s->profile.name ? s->profile.name : "?";

	if (cfg->isolation == KJ_ISOLATION_NONE)
		set(r->posture, sizeof(r->posture),
		    "%s · no isolation (the environment is the boundary) · %s", name, r->limits);
	else
		/* "full" only without a downgrade: the host's network,
		 * Landlock turned off, or a seccomp policy file of the
		 * caller's (kjail does not judge what it allows: `@default
		 * allow` is a valid one) make it "reduced", and say so. */
		set(r->posture, sizeof(r->posture),
		    "%s · %s isolation (user, mount ro-root%s, pid, net %s, seccomp%s%s, caps dropped) · %s",
		    name,
		    cfg->net == KJ_NET_HOST || cfg->landlock == KJ_LANDLOCK_OFF ||
				    cfg->seccomp == KJ_SECCOMP_FILE
			    ? "reduced"
			    : "full",
		    cfg->workspace_ro ? ", read-only workspace" : "",
		    cfg->net == KJ_NET_NONE   ? "none"
		    : cfg->net == KJ_NET_HOST ? "host (not isolated)"
					      : "proxy",
		    cfg->seccomp == KJ_SECCOMP_STRICT ? " strict"
		    : cfg->seccomp == KJ_SECCOMP_FILE ? " (the caller's policy file, not checked)"
						      : "",
		    cfg->landlock == KJ_LANDLOCK_OFF ? ", landlock off"
		    : r->landlock_abi > 0            ? ", landlock"
						     : "",
		    r->limits);
}

/* In the order a run meets them: the first one a run would stop at. */
static void verdict(struct report *r, const struct kj_config *cfg, int cfg_rc,
		    const struct kj_err *cfg_err)
{
	const struct kj_err *why = NULL;
	bool full = cfg->isolation == KJ_ISOLATION_FULL;

	if (cfg_rc)
		why = cfg_err;
	else if (full && !r->seccomp_ok && !r->seccomp_compiles)
		why = &r->seccomp_err; /* compiled before anything else */
	else if (full && !r->landlock_ok)
		why = &r->landlock_err;
	else if (r->limits_blocked)
		why = &r->limits_err;
	else if (full && !r->kernel_ok)
		why = &r->kernel_err;
	else if (full && !r->userns_ok)
		why = &r->userns_err;
	else if (full && !r->mount_ok)
		why = &r->mount_err;
	else if (full && cfg->net != KJ_NET_HOST && !r->net_ok)
		why = &r->net_err;
	else if (full && !r->seccomp_ok)
		why = &r->seccomp_err;
	r->blocked = why != NULL;
	if (why)
		set(r->verdict, sizeof(r->verdict), "%s: %s", why->part, why->msg);
}

/* The truth, where the checks above found nothing against the run: the
 * run itself, with `true` for COMMAND, no terminal, no notes. What they
 * cannot model (a --cwd or a mount point missing in the new root, a
 * grant's source changed since) shows here as `kjail exec` would meet
 * it. Not through sandbox_run: the git checks after a run would judge
 * the workspace's repository, which the doctor does not touch. */
static void check_live(struct report *r, struct kj_config *cfg)
{
	static char *argv[] = {"true", NULL};
	struct kj_err err = {0};
	struct sandbox sb;
	struct check *c;
	int rc;

	if (r->blocked)
		return;
	cfg->argv = argv;
	cfg->tty = KJ_TTY_OFF;
	cfg->quiet = true;
	fflush(stdout);
	if (cfg->isolation == KJ_ISOLATION_NONE) {
		rc = sandbox_run_host(cfg, &err);
	} else if ((rc = sandbox_start(&sb, cfg, -1, NULL, &err)) == 0) {
		rc = supervise(&sb);
		stdio_restore(&sb.io);
		sandbox_release(&sb);
	} else {
		rc = KJ_EXIT_SETUP;
	}
	if (rc == KJ_EXIT_SETUP) {
		c = add(r, "live run", "fail");
		if (!err.part[0])
			kj_fail(&err, "launch", 0, "run kjail exec -- true to see its error line",
				"the sandbox did not start");
		split_fix(&err, c->detail, sizeof(c->detail), c->fix, sizeof(c->fix));
		r->blocked = true;
		set(r->verdict, sizeof(r->verdict), "%s: %s", err.part, err.msg);
		return;
	}
	c = add(r, "live run", "ok");
	set(c->detail, sizeof(c->detail),
	    "a sandbox with these options started here and ran true (exit %d)", rc);
}

/* --------------------------------------------------------------- output */

static void print_json(FILE *out, const struct report *r, const struct kj_sources *s)
{
	fputs("{\"kjail\":", out);
	json_put_string(out, KJAIL_VERSION);
	fprintf(out, ",\"can_run\":%s,\"verdict\":", r->blocked ? "false" : "true");
	json_put_string(out, r->blocked ? r->verdict : "can run here");
	fputs(",\"posture\":", out);
	json_put_string(out, r->posture);
	fputs(",\"limits\":", out);
	json_put_string(out, r->limits);
	fputs(",\"profile\":{\"name\":", out);
	json_put_string(out, s->profile.name);
	fputs(",\"from\":", out);
	json_put_string(out, s->profile_from);
	fputs(",\"file\":", out);
	json_put_string(out, s->profile.file);
	fputs("},\"files\":[", out);
	for (size_t i = 0; i < s->files.n; i++) {
		fputs(i ? ",{\"path\":" : "{\"path\":", out);
		json_put_string(out, s->files.v[i].shown);
		fputs(",\"state\":", out);
		json_put_string(out, s->files.v[i].state);
		fputc('}', out);
	}
	fputs("],\"policy\":{\"path\":", out);
	json_put_string(out, KJ_POLICY_FILE);
	fputs(",\"state\":", out);
	json_put_string(out, s->policy.state);
	fputs(",\"rules\":[", out);
	for (size_t i = 0; i < s->policy.n; i++) {
		fputs(i ? "," : "", out);
		json_put_string(out, s->policy.rules[i].text);
	}
	fputs("]},\"checks\":[", out);
	for (size_t i = 0; i < r->n; i++) {
		const struct check *c = &r->checks[i];
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json_put_string(out, c->name);
		fputs(",\"status\":", out);
		json_put_string(out, c->status);
		fputs(",\"detail\":", out);
		json_put_string(out, c->detail);
		fputs(",\"fix\":", out);
		json_put_string(out, c->fix);
		fputc('}', out);
	}
	fputs("]}\n", out);
}

static void print_text(FILE *out, const struct report *r)
{
	fprintf(out, "kjail %s doctor\n", KJAIL_VERSION);
	for (size_t i = 0; i < r->n; i++) {
		const struct check *c = &r->checks[i];
		fprintf(out, "%-5s %-16s %s%s%s%s\n", c->status, c->name, c->detail,
			c->fix[0] ? " (fix: " : "", c->fix, c->fix[0] ? ")" : "");
	}
	fprintf(out, "%-5s %-16s %s\n", "", "posture", r->posture);
	if (r->blocked)
		fprintf(out, "%-5s %-16s cannot run here: %s\n", "fail", "verdict", r->verdict);
	else
		fprintf(out, "%-5s %-16s can run here\n", "ok", "verdict");
}

/* A bad flag is doctor's own usage error (125), checked as kjail exec
 * checks it: its value, the profile it names (`--profile agnet` was a
 * finding, exit 1), and the flags a one-shot run refuses (--idle-timeout
 * was "can run here"). A bad settings file, or a profile one of them
 * names, is a finding about this machine (reported, exit 1). */
static int check_flags(int argc, char **argv, struct kj_err *err)
{
	struct kj_lines flags = {0};
	struct kj_config scratch;
	char **rest;
	int rc = cli_parse_exec(argc, argv, false, &flags, &rest, err);

	config_init(&scratch);
	for (size_t i = 0; !rc && i < flags.n; i++) {
		const struct kj_line *f = &flags.v[i];
		if ((rc = cli_apply_option(&scratch, f->name, f->value, err)) ||
		    (rc = cli_check_oneshot_flag(f->name, err)))
			break;
		if (!strcmp(f->name, "profile"))
			rc = profile_check(f->value, "--profile", err);
	}
	free(flags.v);
	return rc;
}

/* --json anywhere among the options, as the usage line reads (it was
 * taken only first: `doctor --limits best-effort --json` was "unknown
 * option --json"). Not another option's value (--setenv --json), and
 * nothing from the first argument that is no option on, as the parser
 * reads them. The rest go to opts, in order; returns their count. */
static int take_json(int argc, char **argv, char **opts, bool *json)
{
	int n = 0, i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool takes_value;

		if (a[0] != '-' || !strcmp(a, "--"))
			break;
		if (!strcmp(a, "--json")) {
			*json = true;
			continue;
		}
		opts[n++] = argv[i];
		if (a[1] == '-' && !strchr(a, '=') && cli_option_lookup(a + 2, &takes_value) == 0 &&
		    takes_value && i + 1 < argc)
			opts[n++] = argv[++i];
	}
	while (i < argc)
		opts[n++] = argv[i++];
	opts[n] = NULL;
	return n;
}

int doctor_run(int argc, char **argv)
{
	static struct report r;
	struct kj_config cfg;
	struct kj_sources src;
	struct kj_err err = {0};
	bool json = false;
	char **opts = calloc((size_t)argc + 1, sizeof(*opts));
	int rc;

	if (!opts) {
		kj_fail(&err, "doctor", ENOMEM, NULL, "the options");
		kj_err_print(&err);
		return KJ_EXIT_SETUP;
	}
	argc = take_json(argc, argv, opts, &json);
	argv = opts; /* freed at the end: cfg.argv points into it */
	rc = check_flags(argc, argv, &err);
	if (rc == 1) {
		printf("usage: kjail doctor [--json] [OPTIONS]\n"
		       "Check what kjail can do here for `kjail exec [OPTIONS]`; exit 0 if it can run, 1 if not.\n");
		free(opts);
		return 0;
	}
	if (rc) {
		kj_err_print(&err);
		free(opts);
		return KJ_EXIT_SETUP;
	}
	config_init(&cfg);
	rc = settings_load(argc, argv, false, &cfg, &src, &err);
	check_kernel(&r);
	check_userns(&r);
	check_mount_api(&r);
	check_network(&r, &cfg);
	check_seccomp(&r, &cfg);
	check_landlock(&r, &cfg);
	check_core_dumps(&r, &cfg);
	check_cgroup(&r, &cfg);
	check_inotify(&r, &cfg);
	check_config(&r, &cfg, &src, rc, &err);
	posture(&r, &cfg, &src);
	verdict(&r, &cfg, rc, &err);
	check_live(&r, &cfg);
	if (json)
		print_json(stdout, &r, &src);
	else
		print_text(stdout, &r);
	free(opts);
	return r.blocked ? 1 : 0;
}
