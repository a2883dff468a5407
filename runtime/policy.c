/* Reading /etc/kjail/policy and holding every run to it. */
#include "runtime/policy.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/cli.h"
#include "runtime/conffile.h"
#include "runtime/profile.h"
#include "runtime/settings.h"
#include "runtime/validate.h"

#define FIX "ask your administrator; kjail doctor lists the policy"

/* ---------------------------------------------------------- the values */

static uint64_t or_none(bool set, uint64_t v)
{
	return set ? v : UINT64_MAX;
}

/* Options a `max` line can bound: the value in force (UINT64_MAX: none)
 * and how to show it. */
static uint64_t num_value(const struct kj_config *c, const char *opt, char *shown, size_t size)
{
	char d[32];

	if (!strcmp(opt, "memory"))
		return snprintf(shown, size, "%s", c->limits.memory_arg), c->limits.memory;
	if (!strcmp(opt, "memory-swap"))
		return snprintf(shown, size, "%s", c->limits.memory_swap_arg),
		       c->limits.memory_swap;
	if (!strcmp(opt, "pids"))
		return snprintf(shown, size, "%s", c->limits.pids_arg), c->limits.pids;
	if (!strcmp(opt, "cpus"))
		return snprintf(shown, size, "%s", c->limits.cpus_arg), c->limits.cpu_quota_us;
	if (!strcmp(opt, "timeout")) {
		format_duration(c->timeout_ms, d, sizeof(d));
		snprintf(shown, size, "%s", c->timeout_ms ? d : "none");
		return or_none(c->timeout_ms, c->timeout_ms);
	}
	if (!strcmp(opt, "kill-grace")) {
		format_duration(c->kill_grace_ms, shown, size);
		return c->kill_grace_ms;
	}
	if (!strcmp(opt, "output-limit")) {
		snprintf(shown, size, c->output_limited ? "%llu" : "max",
			 (unsigned long long)c->output_limit);
		return or_none(c->output_limited, c->output_limit);
	}
	if (!strcmp(opt, "tmp-size")) {
		snprintf(shown, size, "%llu", (unsigned long long)c->tmp_size);
		return c->tmp_size;
	}
	if (!strcmp(opt, "net-log-limit")) {
		snprintf(shown, size, "%llu", (unsigned long long)c->net_log_limit);
		return c->net_log_limit;
	}
	return 0;
}

static const char *const max_opts[] = {"memory",        "memory-swap", "pids",         "cpus",
				       "timeout",       "kill-grace",  "output-limit", "tmp-size",
				       "net-log-limit", NULL};
static const char *const enum_opts[] = {"net", "isolation", "limits", "landlock", "seccomp", NULL};
static const char *const name_opts[] = {"env", "setenv", "allow-secret-env", NULL};
static const char *const path_opts[] = {"rw", "ro", "workspace", NULL};
static const char *const requirements[] = {"seccomp",      "isolation", "timeout",
					   "output-limit", "limits",    NULL};

static bool in(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

static uint64_t enum_value(const struct kj_config *c, const char *opt)
{
	if (!strcmp(opt, "net"))
		return c->net;
	if (!strcmp(opt, "isolation"))
		return c->isolation;
	if (!strcmp(opt, "landlock"))
		return c->landlock;
	if (!strcmp(opt, "seccomp"))
		return c->seccomp; /* a path stands for every policy FILE */
	return c->limits.mode;
}

/* ------------------------------------------------------------- loading */

static int bad(struct kj_err *err, const struct kj_rule *r, const char *fix, const char *what)
{
	return kj_fail(err, "policy", 0, fix, "%s: %s: %s", r->where, r->text, what);
}

/* The option's own parser refused the value: its words, the rule's place. */
static int bad_value(struct kj_err *err, const struct kj_rule *r)
{
	char msg[sizeof(err->msg)];

	memcpy(msg, err->msg, sizeof(msg));
	return kj_fail(err, "policy", 0, NULL, "%s: %s: %s", r->where, r->text, msg);
}

/* path (absolute) canonical also where it does not exist (yet): its
 * deepest existing part resolved, the rest appended (without trailing
 * slashes). Kept as written, `deny rw /srv/secret` with /srv a symlink to
 * /data and no secret there yet let `--rw /srv` (canonical /data)
 * through, and the sandbox made /data/secret, the path denied. NULL: out
 * of memory or too long. */
static char *policy_path(const char *path)
{
	char head[PATH_MAX], *real = NULL, *out;
	size_t n = strlen(path);
	const char *rest;

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= sizeof(head))
		return NULL;
	memcpy(head, path, n);
	head[n] = '\0';
	while (!(real = realpath(head, NULL))) {
		char *slash = strrchr(head, '/');
		if (!slash || slash == head) {
			head[1] = '\0'; /* "/" */
			if (!(real = realpath(head, NULL)))
				return NULL;
			break;
		}
		*slash = '\0';
	}
	rest = strcmp(head, "/") ? path + strlen(head) : path;
	n -= (size_t)(rest - path);
	if (asprintf(&out, "%s%.*s", strcmp(real, "/") || !n ? real : "", (int)n, rest) < 0)
		out = NULL;
	free(real);
	return out;
}

/* Check the rule's value with the option's own parser, so the policy
 * reads sizes, durations and names exactly as every other source does. */
static int parse_rule(struct kj_rule *r, struct kj_err *err)
{
	struct kj_config scratch;
	bool takes_value;
	char shown[64];

	if (r->kind == RULE_REQUIRE)
		return in(requirements, r->opt) && !r->value
			       ? 0
			       : bad(err, r,
				     "require seccomp, isolation, timeout, output-limit or limits",
				     "unknown requirement");
	if (strcmp(r->opt, "profile") && cli_option_lookup(r->opt, &takes_value))
		return bad(err, r, "name an option of kjail exec, without dashes",
			   "unknown option");
	if (r->kind == RULE_DENY && !r->value)
		return strcmp(r->opt, "profile")
			       ? 0
			       : bad(err, r, "write deny profile NAME", "needs a NAME");
	config_init(&scratch);
	if (r->kind == RULE_MAX) {
		if (!in(max_opts, r->opt) || !r->value)
			return bad(
				err, r,
				"max memory, memory-swap, pids, cpus, timeout, kill-grace, output-limit, tmp-size or net-log-limit, with a value",
				"not a bound");
		if (cli_apply_option(&scratch, r->opt, r->value, err))
			return bad_value(err, r);
		/* --timeout 0 means no timeout, which every maximum refuses:
		 * taken as written, this line would limit nothing. */
		if (!strcmp(r->opt, "timeout") && !scratch.timeout_ms)
			return bad(err, r, "use require timeout, or a positive maximum",
				   "a maximum timeout of 0 limits nothing");
		r->num = num_value(&scratch, r->opt, shown, sizeof(shown));
		/* `max memory max` (or pids, cpus, memory-swap) bounds nothing
		 * either: every value is at most max. */
		if (r->num == UINT64_MAX)
			return bad(err, r, "give a finite maximum, or remove the line",
				   "a maximum of max limits nothing");
		return 0;
	}
	/* Runs are matched by the names of the profiles they use, never by
	 * path: a path, or a string no profile can be named, would deny
	 * nothing. The name need not exist: the admin may deny a name
	 * before anyone makes it, and one a user alone has defined. */
	if (!strcmp(r->opt, "profile")) {
		if (strchr(r->value, '/'))
			return bad(err, r, "deny a profile by its name, see kjail profile list",
				   "a path never matches");
		return profile_name_check(r->value, "profile", err) ? bad_value(err, r) : 0;
	}
	if (in(enum_opts, r->opt)) {
		if (cli_apply_option(&scratch, r->opt, r->value, err))
			return bad_value(err, r);
		r->num = enum_value(&scratch, r->opt);
		return 0;
	}
	if (in(name_opts, r->opt))
		return check_env_name(r->opt, r->value, strlen(r->value), err) ? bad_value(err, r)
									       : 0;
	if (in(path_opts, r->opt)) {
		if (r->value[0] != '/')
			return bad(err, r, "give an absolute path", "not an absolute path");
		if (!(r->path = policy_path(r->value)))
			return kj_fail(err, "policy", ENAMETOOLONG, NULL, "%s", r->where);
		return 0;
	}
	return bad(
		err, r,
		"deny with a value works for profile, net, isolation, limits, landlock, seccomp, rw, ro, workspace, env, setenv, allow-secret-env",
		"cannot deny a value of this option");
}

static int add_rule(struct kj_policy *p, const struct kj_line *ln, struct kj_err *err)
{
	static const char *const verbs[] = {"deny", "max", "require", NULL};
	char where[PATH_MAX + 16], *rest, *sp, *text;
	struct kj_rule *r;
	int kind = -1;

	for (int i = 0; verbs[i]; i++)
		if (!strcmp(ln->name, verbs[i]))
			kind = i;
	if (asprintf(&text, "%s%s%s", ln->name, ln->value ? " " : "", ln->value ? ln->value : "") <
	    0)
		return kj_fail(err, "policy", ENOMEM, NULL, "policy");
	if (kind < 0 || !ln->value) {
		kj_fail(err, "policy", 0,
			"write deny OPTION [VALUE], max OPTION VALUE or require WHAT",
			"%s: '%s' is not a policy rule", line_source(ln, where, sizeof(where)),
			text);
		free(text);
		return -EINVAL;
	}
	r = realloc(p->rules, (p->n + 1) * sizeof(*r));
	if (!r) {
		free(text);
		return kj_fail(err, "policy", ENOMEM, NULL, "policy");
	}
	p->rules = r;
	if (!(rest = strdup(ln->value))) {
		free(text);
		return kj_fail(err, "policy", ENOMEM, NULL, "policy");
	}
	r = &p->rules[p->n++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->text = text;
	r->where = strdup(line_source(ln, where, sizeof(where)));
	sp = rest + strcspn(rest, " \t");
	if (*sp) {
		*sp++ = '\0';
		r->value = sp + strspn(sp, " \t");
	}
	r->opt = rest;
	return parse_rule(r, err);
}

void policy_free(struct kj_policy *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free((char *)p->rules[i].opt); /* the copy the value points into */
		free((char *)p->rules[i].where);
		free((char *)p->rules[i].text);
		free(p->rules[i].path);
	}
	free(p->rules);
	p->rules = NULL;
	p->n = 0;
}

int policy_load(struct kj_policy *p, struct kj_err *err)
{
	struct kj_lines lines = {0};
	char *text, *real;
	int rc;

	memset(p, 0, sizeof(*p));
	/* Root's file only: whoever else could write it could loosen it. */
	rc = conf_read("policy", KJ_POLICY_FILE, CONF_SYSTEM, &text, &real, err);
	p->state = rc == -ENOENT ? "absent" : "read";
	/* Absent, only root may be able to put it there: a directory of
	 * another user's on the way (/etc/kjail owned by a deploy user) lets
	 * that user delete the policy and run without it. */
	if (rc == -ENOENT)
		return conf_check_tree("policy", KJ_POLICY_FILE, CONF_SYSTEM, err);
	if (rc || (rc = conf_parse("policy", text, KJ_POLICY_FILE, &lines, err)))
		return rc;
	for (size_t i = 0; !rc && i < lines.n; i++)
		rc = add_rule(p, &lines.v[i], err);
	free(lines.v);
	return rc;
}

/* ----------------------------------------------------------- enforcing */

static const char *from(const struct kj_sources *src, const char *opt)
{
	const char *o = settings_origin(src, opt);
	return o ? o : "kjail's default";
}

static bool env_listed(const char *const *list, size_t n, const char *name, bool assignment)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (!strncmp(list[i], name, len) &&
		    (assignment ? list[i][len] == '=' : !list[i][len]))
			return true;
	return false;
}

static int denied(const struct kj_rule *r, const char *what, const char *src, struct kj_err *err)
{
	return kj_fail(err, "policy", 0, FIX, "%s (from %s) is denied by %s: %s", what, src,
		       r->where, r->text);
}

static int check_profile(const struct kj_rule *r, const struct kj_config *c,
			 const struct kj_sources *s, struct kj_err *err)
{
	const struct kj_profile *p = &s->profile;
	char what[300];

	/* Every name of every profile read, its own and its includes',
	 * also those of a profile given by path (its file's name). */
	for (size_t i = 0; i < p->nnames; i++) {
		if (strcasecmp(p->names[i], r->value))
			continue;
		if (i >= p->ntop)
			snprintf(what, sizeof(what), "profile %s (it includes %s)", p->name,
				 p->names[i]);
		else if (!strcasecmp(p->name, p->names[i]))
			snprintf(what, sizeof(what), "profile %s", p->name);
		else
			snprintf(what, sizeof(what), "profile %s (%s)", p->name, p->file);
		return denied(r, what, s->profile_from, err);
	}
	/* What makes the host profile the host profile is isolation none: a
	 * copy under another name, or the flag itself, is refused too. */
	if (!strcasecmp(r->value, "host") && c->isolation == KJ_ISOLATION_NONE)
		return denied(r, "--isolation none (what the host profile is)",
			      from(s, "isolation"), err);
	return 0;
}

static int check_path(const struct kj_rule *r, const struct kj_config *c,
		      const struct kj_sources *s, struct kj_err *err)
{
	char what[PATH_MAX + 32];
	bool ws = !strcmp(r->opt, "workspace") ||
		  (!strcmp(r->opt, "rw") && c->workspace.writable) ||
		  (!strcmp(r->opt, "ro") && !c->workspace.writable);

	/* Overlap either way: a grant of PATH's parent shows PATH too
	 * (`deny rw /srv/secret` did not stop `--rw /srv`). */
	if (ws &&
	    (path_covers(r->path, c->workspace.src) || path_covers(c->workspace.src, r->path))) {
		snprintf(what, sizeof(what), "the %s workspace %s",
			 c->workspace.writable ? "writable" : "read-only", c->workspace.src);
		return denied(r, what, from(s, "workspace"), err);
	}
	if (!strcmp(r->opt, "workspace"))
		return 0;
	for (size_t i = 0; i < c->nbinds; i++) {
		const struct kj_bind *b = &c->binds[i];
		if (b->agent || b->writable != !strcmp(r->opt, "rw") ||
		    !(path_covers(r->path, b->src) || path_covers(b->src, r->path)))
			continue;
		snprintf(what, sizeof(what), "--%s %s", r->opt, b->src);
		return denied(r, what, from(s, r->opt), err);
	}
	return 0;
}

/* Did a source use opt? A value from the built-in default profile is
 * kjail's own default, as a value no source set is: `deny limits` (or
 * pids, memory, net) would otherwise refuse every run, asked or not. A
 * default.profile file of the admin's or the user's is a use. */
static bool used(const struct kj_sources *s, const char *opt)
{
	static const char builtin_default[] = "built-in default.profile:";
	const char *o = settings_origin(s, opt);

	return o && strncmp(o, builtin_default, sizeof(builtin_default) - 1);
}

/* --isolation none (the host profile) has no mount namespace, no
 * Landlock, no seccomp and the host's network, whatever the nominal
 * values say: the rules are weighed on what the command gets. Judged on
 * the values alone, `deny rw /srv`, `deny landlock off`, `deny seccomp
 * /` and `deny net host` each let --profile host through. */
static int check_no_isolation_rule(const struct kj_rule *r, const struct kj_config *c,
				   const struct kj_sources *s, struct kj_err *err)
{
	const char *what = NULL;

	if (c->isolation != KJ_ISOLATION_NONE)
		return 0;
	if (!strcmp(r->opt, "rw") || !strcmp(r->opt, "workspace"))
		what = "--isolation none (every path the caller can write is writable)";
	else if (!strcmp(r->opt, "landlock") && r->num == KJ_LANDLOCK_OFF)
		what = "--isolation none (no Landlock)";
	else if (!strcmp(r->opt, "seccomp") && r->num == KJ_SECCOMP_FILE)
		what = "--isolation none (no seccomp filter at all)";
	else if (!strcmp(r->opt, "net") && r->num == KJ_NET_HOST)
		what = "--isolation none (the host's network)";
	return what ? denied(r, what, from(s, "isolation"), err) : 0;
}

static int check_deny(const struct kj_rule *r, const struct kj_config *c,
		      const struct kj_sources *s, struct kj_err *err)
{
	char what[300];
	int rc;

	if (!r->value) {
		snprintf(what, sizeof(what), "--%s", r->opt);
		return used(s, r->opt) ? denied(r, what, from(s, r->opt), err) : 0;
	}
	if (!strcmp(r->opt, "profile"))
		return check_profile(r, c, s, err);
	if ((rc = check_no_isolation_rule(r, c, s, err)))
		return rc;
	if (in(path_opts, r->opt))
		return check_path(r, c, s, err);
	snprintf(what, sizeof(what), "--%s %s", r->opt, r->value);
	if (in(enum_opts, r->opt))
		return enum_value(c, r->opt) == r->num ? denied(r, what, from(s, r->opt), err) : 0;
	if (!strcmp(r->opt, "env") && env_listed(c->passenv, c->npassenv, r->value, false))
		return denied(r, what, from(s, r->opt), err);
	if (!strcmp(r->opt, "allow-secret-env") &&
	    env_listed(c->allow_secret, c->nallow_secret, r->value, false))
		return denied(r, what, from(s, r->opt), err);
	if (!strcmp(r->opt, "setenv") && env_listed(c->setenv, c->nsetenv, r->value, true))
		return denied(r, what, from(s, r->opt), err);
	/* --env NAME sets NAME inside as surely, to the caller's value. */
	if (!strcmp(r->opt, "setenv") && env_listed(c->passenv, c->npassenv, r->value, false)) {
		snprintf(what, sizeof(what), "--env %s", r->value);
		return denied(r, what, from(s, "env"), err);
	}
	/* An --env-file line sets a variable as --setenv does: without
	 * this, `deny setenv LD_PRELOAD` let a vault line through. */
	if (!strcmp(r->opt, "setenv") &&
	    env_listed((const char *const *)c->env_file_vars, c->nenv_file_vars, r->value, true))
		return denied(r, what, from(s, "env-file"), err);
	return 0;
}

static int check_max(const struct kj_rule *r, const struct kj_config *c, const struct kj_sources *s,
		     struct kj_err *err)
{
	char shown[64], fix[128];

	/* Only a --net proxy run with a --net-log has a log to bound. */
	if (!strcmp(r->opt, "net-log-limit") && !(c->net == KJ_NET_PROXY && c->net_log))
		return 0;
	if (num_value(c, r->opt, shown, sizeof(shown)) <= r->num)
		return 0;
	snprintf(fix, sizeof(fix), "ask for at most %s with --%s, or %s", r->value, r->opt, FIX);
	return kj_fail(err, "policy", 0, fix, "--%s %s (from %s) exceeds %s: %s", r->opt, shown,
		       from(s, r->opt), r->where, r->text);
}

static int check_require(const struct kj_rule *r, const struct kj_config *c,
			 const struct kj_sources *s, struct kj_err *err)
{
	const char *opt = NULL, *what = NULL, *fix = FIX;

	if ((!strcmp(r->opt, "seccomp") || !strcmp(r->opt, "isolation")) &&
	    c->isolation == KJ_ISOLATION_NONE)
		opt = "isolation", what = "--isolation none runs without namespaces or seccomp";
	/* A policy file is the caller's own: `@default allow` passed for
	 * "seccomp" and left every call open. Only kjail's own filters meet
	 * the rule; `require isolation` is the rule that lets files through. */
	else if (!strcmp(r->opt, "seccomp") && c->seccomp == KJ_SECCOMP_FILE)
		opt = "seccomp",
		what = "a policy file (--seccomp FILE) is the caller's own filter, which may allow every call",
		fix = "use --seccomp default or strict, or ask your administrator; kjail doctor lists the policy";
	else if (!strcmp(r->opt, "timeout") && !c->timeout_ms)
		opt = "timeout", what = "no --timeout is set";
	else if (!strcmp(r->opt, "output-limit") && !c->output_limited)
		opt = "output-limit", what = "no --output-limit is set";
	else if (!strcmp(r->opt, "limits") && c->limits.mode != KJ_LIMITS_REQUIRED)
		opt = "limits", what = "--limits best-effort may run without limits";
	if (!opt)
		return 0;
	return kj_fail(err, "policy", 0, fix, "%s: %s: %s (from %s)", r->where, r->text, what,
		       from(s, opt));
}

int policy_enforce(const struct kj_policy *p, const struct kj_config *cfg,
		   const struct kj_sources *src, struct kj_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < p->n; i++) {
		const struct kj_rule *r = &p->rules[i];
		rc = r->kind == RULE_DENY  ? check_deny(r, cfg, src, err)
		     : r->kind == RULE_MAX ? check_max(r, cfg, src, err)
					   : check_require(r, cfg, src, err);
	}
	return rc;
}
