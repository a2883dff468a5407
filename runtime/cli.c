#include "runtime/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/seccomp_choice.h"
#include "net/hostmatch.h"
#include "runtime/validate.h"

struct option_def {
	const char *name;
	bool takes_value;
	int (*apply)(struct kj_config *cfg, const char *opt, const char *v, struct kj_err *err);
	const char *arg, *help;
};

/* DIR[:DEST] (--workspace, --rw, --ro): the ':' that separates DEST is
 * the last one followed by '/', DEST being absolute; any other ':' is
 * part of DIR (`--workspace /data/run:2024` is that directory, at its own
 * path). So a DIR may hold ':' (and ':/' when a DEST follows); a DEST
 * cannot hold ':/'. NULL when there is no DEST. */
static const char *dest_colon(const char *v)
{
	const char *colon = NULL;

	for (const char *p = v; (p = strchr(p, ':')); p++)
		if (p[1] == '/')
			colon = p;
	return colon;
}

static int add_bind(struct kj_config *cfg, const char *opt, const char *v, bool writable,
		    struct kj_err *err)
{
	struct kj_bind *b;
	const char *colon = dest_colon(v);

	/* One slot stays free for the --ssh-agent socket. */
	if (cfg->nbinds == KJ_MAX_BINDS - 1)
		return kj_fail(err, "option", 0, "grant fewer, broader directories",
			       "--%s: at most %d binds", opt, KJ_MAX_BINDS - 1);
	if (!*v || colon == v || (colon && !colon[1]))
		return kj_fail(err, "option", 0, "use SRC or SRC:DEST", "--%s: invalid bind '%s'",
			       opt, v);
	b = &cfg->binds[cfg->nbinds++];
	b->src = colon ? strndup(v, (size_t)(colon - v)) : strdup(v);
	b->dest = colon ? strdup(colon + 1) : NULL;
	b->writable = writable;
	if (!b->src || (colon && !b->dest))
		return kj_fail(err, "option", ENOMEM, NULL, "--%s", opt);
	return 0;
}

static int opt_ro(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	return add_bind(c, o, v, false, e);
}

static int opt_rw(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	return add_bind(c, o, v, true, e);
}

#define REPLACED_FIX "fix or drop the earlier value; a later one does not excuse it"

/* A path value a later one replaces is still checked: it must exist and,
 * when type is not 0, be of the type the option takes (S_IFDIR,
 * S_IFREG), as the value in force must (`--root /nonexistent --root /`,
 * `--root /etc/passwd --root /`, or a settings line a flag overrides):
 * invalid input is an error wherever it stands, as a profile name is. */
static int replaced_path_check(const char *o, const char *old, mode_t type, struct kj_err *e)
{
	struct stat st;

	if (!old)
		return 0;
	if (stat(old, &st) < 0)
		return kj_fail(e, "option", errno, REPLACED_FIX,
			       "--%s %s (replaced by a later --%s)", o, old, o);
	if (type == S_IFDIR && !S_ISDIR(st.st_mode))
		return kj_fail(e, "option", ENOTDIR, REPLACED_FIX,
			       "--%s %s (replaced by a later --%s)", o, old, o);
	if (type == S_IFREG && !S_ISREG(st.st_mode))
		return kj_fail(e, "option", 0, REPLACED_FIX,
			       "--%s %s (replaced by a later --%s) is not a regular file", o, old,
			       o);
	return 0;
}

static int opt_workspace(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	const char *colon = dest_colon(v);

	if (!*v || colon == v || (colon && !colon[1]))
		return kj_fail(e, "option", 0, "use DIR or DIR:DEST",
			       "--%s: invalid workspace '%s'", o, v);
	if (replaced_path_check(o, c->workspace.src, S_IFDIR, e))
		return -ENOENT;
	if (c->workspace.src) {
		/* Kept for config_finish, which checks it as the workspace:
		 * `workspace /` or `workspace ~` in a settings file under a
		 * --workspace flag was taken silently. */
		struct kj_bind *ws =
			realloc(c->replaced_ws, (c->nreplaced_ws + 1) * sizeof(*c->replaced_ws));
		if (!ws)
			return kj_fail(e, "option", ENOMEM, NULL, "--%s", o);
		c->replaced_ws = ws;
		ws[c->nreplaced_ws++] =
			(struct kj_bind){.src = c->workspace.src, .dest = c->workspace.dest};
	}
	c->workspace.src = colon ? strndup(v, (size_t)(colon - v)) : strdup(v);
	c->workspace.dest = colon ? strdup(colon + 1) : NULL;
	return 0;
}

static int opt_root(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	if (!*v)
		return kj_fail(e, "option", 0, "give a root filesystem directory",
			       "--%s: empty path", o);
	if (replaced_path_check(o, c->root, S_IFDIR, e))
		return -ENOENT;
	c->root = v;
	return 0;
}

static int opt_mask(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	if (c->nmasks == KJ_MAX_MASKS)
		return kj_fail(e, "option", 0, "mask a directory that holds them instead",
			       "--%s: at most %d masks", o, KJ_MAX_MASKS);
	c->masks[c->nmasks++] = v;
	return 0;
}

static int opt_tmp_size(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	int rc = parse_size(o, v, &c->tmp_size, e);
	c->tmp_size_set = true;
	if (rc == 0 && c->tmp_size < 4096)
		return kj_fail(e, "option", 0, "give at least 4K", "--%s: %s is too small", o, v);
	return rc;
}

static int opt_net(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	static const char *const modes[] = {"none", "host", "proxy", NULL};
	int i = parse_enum(o, v, modes, e);
	if (i < 0)
		return i;
	c->net = (enum kj_net_mode)i;
	return 0;
}

/* --allow-host / --deny-host: the pattern is checked here, for every
 * source alike; the proxy parses it again when it starts. */
static int opt_host_rule(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	bool deny = !strcmp(o, "deny-host");
	size_t *n = deny ? &c->ndeny_host : &c->nallow_host;
	struct hm_rule r;
	const char *why;

	if (hm_rule_parse(v, &r, &why))
		return kj_fail(
			e, "option", 0,
			"use NAME, *.NAME, an IP address or CIDR range, optionally with :PORT or :*",
			"--%s '%s': %s", o, v, why);
	if (*n == KJ_MAX_HOST_RULES)
		return kj_fail(e, "option", 0, "use *.NAME or a CIDR range", "--%s: at most %d", o,
			       KJ_MAX_HOST_RULES);
	(deny ? c->deny_host : c->allow_host)[(*n)++] = v;
	return 0;
}

static int opt_net_file(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	const char **slot = !strcmp(o, "net-log") ? &c->net_log : &c->net_hosts;

	if (!*v)
		return kj_fail(e, "option", 0, "give a file path", "--%s: empty value", o);
	/* A replaced --net-hosts must exist; a replaced --net-log (a file
	 * kjail would make) must have a directory to be made in. */
	if (*slot && slot == &c->net_hosts && replaced_path_check(o, *slot, S_IFREG, e))
		return -ENOENT;
	if (*slot && slot == &c->net_log) {
		char dir[PATH_MAX];
		const char *cut = strrchr(*slot, '/');
		snprintf(dir, sizeof(dir), "%.*s",
			 cut ? (cut == *slot ? 1 : (int)(cut - *slot)) : 1, cut ? *slot : ".");
		if (replaced_path_check(o, dir, S_IFDIR, e))
			return -ENOENT;
	}
	*slot = v;
	return 0;
}

static int opt_net_idle(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	c->net_idle_set = true;
	if (parse_duration(o, v, &c->net_idle_ms, e))
		return -EINVAL;
	if (c->net_idle_ms == 0)
		return kj_fail(e, "option", 0, "give a positive duration",
			       "--%s: 0 would close every connection", o);
	return 0;
}

/* A cap below 1K would keep no line worth having (one is up to 1400
 * bytes); there is no "none": the log is always bounded. */
static int opt_net_log_limit(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	int rc = parse_size(o, v, &c->net_log_limit, e);

	c->net_log_limit_set = true;
	if (rc == 0 && c->net_log_limit < 1024)
		return kj_fail(e, "option", 0, "give at least 1K", "--%s: %s is too small", o, v);
	return rc;
}

/* Below 1M no sandbox can start: COMMAND's own pages, the page tables
 * and kernel stacks of init and COMMAND, and the sandbox's mounts are all
 * charged to its cgroup. A lower value is nearly always bytes meant as
 * megabytes (--memory 512), refused here rather than OOM-killed later. */
#define KJ_MEMORY_MIN (1ULL << 20)

static int opt_memory(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	c->limits.memory_arg = v;
	if (parse_size_or_max(o, v, &c->limits.memory, e))
		return -EINVAL;
	if (c->limits.memory < KJ_MEMORY_MIN)
		return kj_fail(e, "option", 0,
			       "give --memory 1M or more, or --memory max; a bare number is bytes",
			       "--%s %s: a sandbox needs at least 1M", o, v);
	return 0;
}

static int opt_memory_swap(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	c->limits.memory_swap_arg = v;
	return parse_size_or_max(o, v, &c->limits.memory_swap, e);
}

static int opt_pids(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	c->limits.pids_arg = v;
	return parse_count_or_max(o, v, &c->limits.pids, e);
}

static int opt_cpus(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	c->limits.cpus_arg = v;
	return parse_cpus(o, v, &c->limits.cpu_quota_us, e);
}

static int opt_limits(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	static const char *const modes[] = {"required", "best-effort", NULL};
	int i = parse_enum(o, v, modes, e);
	if (i < 0)
		return i;
	c->limits.mode = (enum kj_limits_mode)i;
	return 0;
}

static int opt_stats(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	(void)o;
	(void)v;
	(void)e;
	c->limits.stats = true;
	return 0;
}

static int opt_cwd(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	/* One check for a one-shot run and an exec into a session (which
	 * would otherwise take "" for "the workspace"). */
	if (!*v)
		return kj_fail(e, "option", 0, "give a directory inside the sandbox",
			       "--%s: empty path", o);
	c->cwd = v;
	return 0;
}

static int opt_idle_timeout(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	return parse_duration(o, v, &c->idle_timeout_ms, e);
}

static int opt_user(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	c->user_set = true;
	return parse_user(o, v, &c->uid, &c->gid, e);
}

static int opt_timeout(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	return parse_duration(o, v, &c->timeout_ms, e);
}

static int opt_kill_grace(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	return parse_duration(o, v, &c->kill_grace_ms, e);
}

/* "max" lifts a cap a profile or settings file set (an admin's `max
 * output-limit` still holds: max exceeds every bound). */
static int opt_output_limit(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	uint64_t n;

	if (parse_size_or_max(o, v, &n, e))
		return -EINVAL;
	c->output_limited = n != KJ_LIMIT_MAX;
	c->output_limit = c->output_limited ? n : 0;
	return 0;
}

static int opt_tty(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	(void)v;
	(void)e;
	c->tty = !strcmp(o, "tty") ? KJ_TTY_ON : KJ_TTY_OFF;
	return 0;
}

static int opt_quiet(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	(void)o;
	(void)v;
	(void)e;
	c->quiet = true;
	return 0;
}

static int add_env(const char **list, size_t *n, const char *o, const char *v, struct kj_err *e)
{
	if (*n == KJ_MAX_ENV)
		return kj_fail(e, "option", 0,
			       strcmp(o, "setenv") ? "pass fewer variables"
						   : "put the variables in an --env-file",
			       "--%s: at most %d", o, KJ_MAX_ENV);
	list[(*n)++] = v;
	return 0;
}

static int opt_setenv(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	const char *eq = strchr(v, '=');

	if (!eq)
		return kj_fail(e, "option", 0, "use --setenv NAME=VALUE", "--%s: '%s' has no '='",
			       o, v);
	if (check_env_name(o, v, (size_t)(eq - v), e))
		return -EINVAL;
	return add_env(c->setenv, &c->nsetenv, o, v, e);
}

static int opt_env(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	if (check_env_name(o, v, strlen(v), e))
		return -EINVAL;
	return add_env(c->passenv, &c->npassenv, o, v, e);
}

static int opt_allow_secret(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	if (check_env_name(o, v, strlen(v), e))
		return -EINVAL;
	return add_env(c->allow_secret, &c->nallow_secret, o, v, e);
}

static int opt_profile(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	(void)c;
	/* Which profile wins is decided by precedence in settings.c; here only
	 * the value itself is checked, the same way for every source. */
	if (!*v)
		return kj_fail(e, "option", 0,
			       "name a profile, see kjail profile list; or give a path",
			       "--%s: empty value", o);
	return 0;
}

static int opt_landlock(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	static const char *const modes[] = {"best-effort", "required", "off", NULL};
	int i = parse_enum(o, v, modes, e);
	if (i < 0)
		return i;
	c->landlock = (enum kj_landlock_mode)i;
	return 0;
}

static int opt_seccomp(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	return seccomp_choice_parse(c, o, v, e);
}

static int opt_isolation(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	static const char *const modes[] = {"full", "none", NULL};
	int i = parse_enum(o, v, modes, e);
	if (i < 0)
		return i;
	c->isolation = (enum kj_isolation)i;
	return 0;
}

static int opt_workspace_ro(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	(void)v;
	(void)e;
	c->workspace_ro = !strcmp(o, "workspace-ro");
	return 0;
}

static int opt_ssh_agent(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	(void)o;
	(void)v;
	(void)e;
	c->ssh_agent = true;
	return 0;
}

static int opt_env_file(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	if (!*v)
		return kj_fail(e, "option", 0, "give the path of a NAME=VALUE file",
			       "--%s: empty value", o);
	if (replaced_path_check(o, c->env_file, S_IFREG, e))
		return -ENOENT;
	c->env_file = v;
	return 0;
}

/* A path inside the workspace: relative, plain, never leaving it. */
static int opt_protect(struct kj_config *c, const char *o, const char *v, struct kj_err *e)
{
	const char *p = v;

	if (c->nprotect == KJ_MAX_PROTECT)
		return kj_fail(e, "option", 0, "protect a directory that holds them instead",
			       "--%s: at most %d paths", o, KJ_MAX_PROTECT);
	if (!*v || v[0] == '/')
		return kj_fail(e, "option", 0,
			       "give a path relative to the workspace, e.g. .github/workflows",
			       "--%s: '%s' is not a relative path", o, v);
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return kj_fail(e, "option", 0,
				       "write it without '.', '..', '//' or a trailing '/'",
				       "--%s: '%s' is not a plain path", o, v);
		p += n;
		if (*p == '/' && !*++p)
			return kj_fail(e, "option", 0,
				       "write it without '.', '..', '//' or a trailing '/'",
				       "--%s: '%s' is not a plain path", o, v);
	}
	c->protect[c->nprotect++] = v;
	return 0;
}

static const struct option_def options[] = {
	{"profile", true, opt_profile, "NAME|PATH",
	 "start from this profile (kjail profile list); flags override its lines"},
	{"workspace", true, opt_workspace, "DIR[:DEST]",
	 "bind DIR read-write (default: the current directory) and start there"},
	{"root", true, opt_root, "DIR", "use DIR as the read-only root instead of the host's /"},
	{"ro", true, opt_ro, "SRC[:DEST]", "bind SRC read-only at DEST (repeatable)"},
	{"rw", true, opt_rw, "SRC[:DEST]", "bind SRC read-write at DEST (repeatable)"},
	{"mask", true, opt_mask, "PATH", "hide PATH (empty directory or /dev/null) (repeatable)"},
	{"workspace-ro", false, opt_workspace_ro, NULL, "bind the workspace read-only"},
	{"workspace-rw", false, opt_workspace_ro, NULL, "bind the workspace read-write (default)"},
	{"protect", true, opt_protect, "PATH",
	 "keep PATH (relative to the workspace) read-only inside (repeatable)"},
	{"tmp-size", true, opt_tmp_size, "SIZE", "size of the private /tmp (default 64M)"},
	{"net", true, opt_net, "none|host|proxy",
	 "network: none (loopback only, default), host, or proxy (only --allow-host hosts)"},
	{"allow-host", true, opt_host_rule, "PATTERN",
	 "--net proxy: allow NAME, *.NAME, IP or CIDR [:PORT|:*] (repeatable)"},
	{"deny-host", true, opt_host_rule, "PATTERN",
	 "--net proxy: refuse PATTERN even if allowed (repeatable)"},
	{"net-log", true, opt_net_file, "FILE",
	 "--net proxy: append one line per connection to FILE"},
	{"net-log-limit", true, opt_net_log_limit, "SIZE",
	 "--net proxy: write at most SIZE of --net-log lines (default 16M)"},
	{"net-hosts", true, opt_net_file, "FILE",
	 "--net proxy: resolve names from FILE (hosts format) first"},
	{"net-idle-timeout", true, opt_net_idle, "DURATION",
	 "--net proxy: close idle connections (default 5m)"},
	{"landlock", true, opt_landlock, "required|best-effort|off",
	 "Landlock file rules under the mount tree (default best-effort: where the kernel has it)"},
	{"seccomp", true, opt_seccomp, "default|strict|FILE",
	 "syscall filter: default deny-list, strict allow-list, or a policy file"},
	{"isolation", true, opt_isolation, "full|none",
	 "none: no namespaces at all (the host profile; only inside an outer boundary)"},
	{"ssh-agent", false, opt_ssh_agent, NULL,
	 "let COMMAND use your ssh-agent ($SSH_AUTH_SOCK); needs --net host or proxy"},
	{"memory", true, opt_memory, "SIZE|max",
	 "memory limit, cgroup memory.max (default 512M, at least 1M)"},
	{"memory-swap", true, opt_memory_swap, "SIZE|max",
	 "swap allowed beyond --memory (default 0)"},
	{"pids", true, opt_pids, "N|max", "process limit, cgroup pids.max (default 256)"},
	{"cpus", true, opt_cpus, "FLOAT|max", "CPU limit, e.g. 0.5 (default max)"},
	{"limits", true, opt_limits, "required|best-effort",
	 "fail (default) or warn when a limit cannot be enforced"},
	{"stats", false, opt_stats, NULL, "print peak memory and CPU time at the end"},
	{"cwd", true, opt_cwd, "DIR",
	 "start COMMAND in DIR (inside the sandbox; default: the workspace)"},
	{"idle-timeout", true, opt_idle_timeout, "DURATION",
	 "kjail create: stop the session after DURATION unused (default 30m; 0: never)"},
	{"user", true, opt_user, "UID[:GID]", "run COMMAND as this host user (root only)"},
	{"timeout", true, opt_timeout, "DURATION",
	 "kill the sandbox after DURATION; exit 124 (default and 0: none)"},
	{"kill-grace", true, opt_kill_grace, "DURATION",
	 "time between SIGTERM and SIGKILL (default 5s)"},
	{"output-limit", true, opt_output_limit, "BYTES|max",
	 "cap stdout and stderr at BYTES each (max: no cap, the default)"},
	{"tty", false, opt_tty, NULL, "give COMMAND a pseudo-terminal even if stdin is not one"},
	{"no-tty", false, opt_tty, NULL, "never give COMMAND a pseudo-terminal"},
	{"setenv", true, opt_setenv, "NAME=VALUE", "set a variable inside (repeatable)"},
	{"env", true, opt_env, "NAME", "pass the caller's NAME through (repeatable)"},
	{"allow-secret-env", true, opt_allow_secret, "NAME",
	 "let --env pass a secret-looking NAME"},
	{"env-file", true, opt_env_file, "FILE",
	 "set the NAME=VALUE lines of FILE (yours, mode 0600) inside"},
	{"quiet", false, opt_quiet, NULL, "no notes from kjail, only errors"},
	{NULL, false, NULL, NULL, NULL},
};

static const struct option_def *find_option(const char *name, size_t len)
{
	for (const struct option_def *o = options; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

int cli_apply_option(struct kj_config *cfg, const char *name, const char *value, struct kj_err *err)
{
	const struct option_def *o = find_option(name, strlen(name));

	if (!o)
		return kj_fail(err, "option", 0, "see kjail exec --help", "unknown option --%s",
			       name);
	if (o->takes_value && !value)
		return kj_fail(err, "option", 0, "see kjail exec --help", "--%s needs a value (%s)",
			       name, o->arg);
	if (!o->takes_value && value)
		return kj_fail(err, "option", 0, "see kjail exec --help", "--%s takes no value",
			       name);
	return o->apply(cfg, o->name, value, err);
}

int cli_option_lookup(const char *name, bool *takes_value)
{
	const struct option_def *o = find_option(name, strlen(name));

	if (!o)
		return -ENOENT;
	if (takes_value)
		*takes_value = o->takes_value;
	return 0;
}

/* The command being parsed (main.c sets it before dispatching). */
static const char *operand_name = "COMMAND";
static const char *operand_usage = "usage: kjail exec [OPTIONS] [--] COMMAND [ARG...]";

void cli_set_operand(const char *operand, const char *usage)
{
	operand_name = operand;
	operand_usage = usage;
}

/* Only splits the command line into option lines (the values are checked
 * when settings.c applies them with cli_apply_option, in precedence order
 * after the settings files and the profile). */
int cli_parse_exec(int argc, char **argv, bool need_command, struct kj_lines *flags,
		   char ***command, struct kj_err *err)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *eq, *value;
		const struct option_def *o;
		size_t len;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return 1;
		if (a[0] != '-')
			break;
		if (a[1] != '-')
			return kj_fail(err, "option", 0, "see kjail exec --help",
				       "unknown option %s", a);
		eq = strchr(a + 2, '=');
		len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		o = find_option(a + 2, len);
		if (!o)
			return kj_fail(err, "option", 0, "see kjail exec --help",
				       "unknown option %.*s", (int)len + 2, a);
		if (o->takes_value && !eq) {
			if (i + 1 >= argc)
				return kj_fail(err, "option", 0, "see kjail exec --help",
					       "--%s needs a value (%s)", o->name, o->arg);
			value = argv[++i];
		} else if (!o->takes_value && eq) {
			return kj_fail(err, "option", 0, "see kjail exec --help",
				       "--%s takes no value", o->name);
		} else {
			value = eq ? eq + 1 : NULL;
		}
		if (lines_add(flags, o->name, value, NULL, 0, err))
			return -ENOMEM;
	}
	*command = argv + i;
	if (i >= argc && need_command)
		return kj_fail(err, "option", 0, operand_usage, "no %s given", operand_name);
	if (i < argc && !need_command)
		return kj_fail(err, "option", 0, "give only options here",
			       "unexpected argument '%s'", argv[i]);
	return 0;
}

int cli_check_oneshot_flag(const char *name, struct kj_err *err)
{
	/* A value that does nothing would look like one that took effect. */
	if (!strcmp(name, "idle-timeout"))
		return kj_fail(err, "option", 0, "give it to kjail create",
			       "--idle-timeout does nothing for a one-shot kjail exec");
	return 0;
}

void cli_usage(FILE *out)
{
	fprintf(out, "usage: kjail exec [OPTIONS] [--] COMMAND [ARG...]\n\n"
		     "Run COMMAND in a fresh sandbox and return its exit status.\n\noptions:\n");
	for (const struct option_def *o = options; o->name; o++) {
		char left[64];
		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		/* A long option and its values get a line of their own, so
		 * every description starts in the same column. */
		if (strlen(left) > 30)
			fprintf(out, "  %s\n  %-30s %s\n", left, "", o->help);
		else
			fprintf(out, "  %-30s %s\n", left, o->help);
	}
	fprintf(out, "  %-30s %s\n  %-30s %s\n", "-s, --session NAME",
		"run COMMAND in a session instead (kjail exec -s NAME --help)", "--create",
		"with -s: create the session first if it does not run");
	fprintf(out,
		"\nexit status: COMMAND's own; 128+N if it died of signal N; 124 timeout;\n"
		"125 kjail failed (bad option, setup failure); 126 not executable; 127 not found\n");
}
