/* Every source of a run's configuration, applied in precedence order. */
#include "runtime/settings.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/cli.h"
#include "runtime/env.h"
#include "runtime/settings_reach.h"

enum { L_SYSTEM, L_USER, L_ENV, L_FLAGS, L_COUNT }; /* lowest first */

/* Read one settings file into lines; a missing file is no error. */
static int read_settings(const char *path, enum conf_trust trust, struct kj_lines *out,
			 struct kj_conf_files *files, struct kj_err *err)
{
	char *text, *real;
	/* Absent, no other user may be able to put it there either;
	 * read, conf_read checked the same. */
	int rc = conf_read_vetted("settings", path, trust, &text, &real, err);

	if (rc == -ENOENT) {
		if (conf_files_add(files, NULL, conf_shown(path), "absent"))
			return conf_files_check(files, err);
		return 0;
	}
	if (rc)
		return rc;
	/* A file that is not recorded escapes check_files_out_of_reach(). */
	if (conf_files_add(files, real, conf_shown(real), "read"))
		return conf_files_check(files, err);
	if ((rc = conf_parse("settings", text, conf_shown(real), out, err)))
		return rc;
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(out->v[i].name, "include"))
			return kj_fail(
				err, "settings", 0, "settings choose a profile with 'profile NAME'",
				"%s:%u: include is for profiles", out->v[i].file, out->v[i].lineno);
	return 0;
}

static int read_sources(struct kj_lines layers[L_COUNT], struct kj_sources *src, struct kj_err *err)
{
	const char *dir, *env = getenv("KJAIL_PROFILE");
	/* Static: outside the home (an $XDG_CONFIG_HOME elsewhere)
	 * conf_shown() returns path itself, which src->files keeps. */
	static char path[PATH_MAX];
	int rc;

	if ((rc = read_settings(KJ_ETC "/settings", CONF_SYSTEM, &layers[L_SYSTEM], &src->files,
				err)))
		return rc;
	/* $XDG_CONFIG_HOME/kjail or ~/.config/kjail; a relative
	 * XDG_CONFIG_HOME is refused here, before anything runs. */
	if ((rc = conf_user_dir(&dir, err)))
		return rc;
	if (dir) {
		snprintf(path, sizeof(path), "%s/settings", dir);
		/* Read or not, no other user may be able to put it there or
		 * take it away: a run without the user's settings (or
		 * profiles, below the same directory) loses what they
		 * restricted (read_settings). */
		if ((rc = read_settings(path, CONF_USER, &layers[L_USER], &src->files, err)))
			return rc;
	}
	/* Set but empty is a mistake too, not "no profile". */
	if (env && lines_add(&layers[L_ENV], "profile", env, "KJAIL_PROFILE", 0, err))
		return -ENOMEM;
	return 0;
}

/* The effective profile: named by the highest source that names one.
 * Every other profile named anywhere must exist too (a typo is an error
 * even where it is overridden). */
static int choose_profile(struct kj_lines layers[L_COUNT], int *chosen, struct kj_sources *src,
			  struct kj_err *err)
{
	const struct kj_line *pick = NULL;
	char from[PATH_MAX + 16];
	int rc;

	*chosen = -1;
	for (int l = 0; l < L_COUNT; l++)
		for (size_t i = 0; i < layers[l].n; i++)
			if (!strcmp(layers[l].v[i].name, "profile")) {
				pick = &layers[l].v[i];
				*chosen = l;
			}
	for (int l = 0; l < L_COUNT; l++)
		for (size_t i = 0; i < layers[l].n; i++) {
			const struct kj_line *ln = &layers[l].v[i];
			if (ln == pick || strcmp(ln->name, "profile"))
				continue;
			if ((rc = profile_check(ln->value ? ln->value : "", "--profile", err))) {
				line_error(ln, err);
				return rc;
			}
		}
	/* profile_load() records every file it reads; one that did not fit
	 * is refused here, before any of the profile's lines is applied. */
	if (!pick) {
		src->profile_from = "built-in default";
		if ((rc = profile_load("default", "--profile", &src->profile, &src->files, err)))
			return rc;
		return conf_files_check(&src->files, err);
	}
	src->profile_from =
		strdup(pick->file ? line_source(pick, from, sizeof(from)) : "--profile");
	if ((rc = profile_load(pick->value ? pick->value : "", "--profile", &src->profile,
			       &src->files, err))) {
		line_error(pick, err);
		return rc;
	}
	return conf_files_check(&src->files, err);
}

static void record_origin(struct kj_sources *src, const struct kj_line *ln, unsigned rank)
{
	char buf[PATH_MAX + 16];
	size_t i;

	for (i = 0; i < src->norigins; i++)
		if (!strcmp(src->origin[i].opt, ln->name))
			break;
	if (i == KJ_MAX_ORIGINS)
		return;
	src->origin[i].opt = ln->name;
	src->origin[i].src = strdup(line_source(ln, buf, sizeof(buf)));
	src->origin[i].rank = rank;
	if (i == src->norigins)
		src->norigins++;
}

static unsigned origin_rank(const struct kj_sources *src, const char *opt)
{
	for (size_t i = 0; i < src->norigins; i++)
		if (!strcmp(src->origin[i].opt, opt))
			return src->origin[i].rank;
	return 0; /* kjail's built-in default (or the default profile's line) */
}

/* Options of --net proxy alone, when the network is not the proxy: set
 * by a source below the one that chose the network, they are that lower
 * source's plan for a proxy the higher one overrode (an /etc/kjail/settings
 * with `net proxy` and its allow-host lines, then `--net none` or
 * --profile strict): not applied, like any overridden value. Set at or
 * above it, the caller asked for both: refused, naming the source. */
static int settle_proxy_options(struct kj_config *cfg, const struct kj_sources *src,
				struct kj_err *err)
{
	static const char *const only_proxy[] = {"allow-host",    "deny-host", "net-log",
						 "net-log-limit", "net-hosts", "net-idle-timeout"};
	unsigned net = origin_rank(src, "net");

	if (cfg->net == KJ_NET_PROXY)
		return 0;
	for (size_t i = 0; i < sizeof(only_proxy) / sizeof(only_proxy[0]); i++) {
		unsigned r = origin_rank(src, only_proxy[i]);
		const char *from = settings_origin(src, only_proxy[i]);
		if (!settings_origin(src, only_proxy[i]))
			continue;
		/* Same source or higher: the caller asked for both. */
		if (r >= net) {
			const char *nfrom = settings_origin(src, "net");
			/* A flag is its own source; a file line is named. */
			bool fflag = !from || from[0] == '-', nflag = nfrom && nfrom[0] == '-';
			return kj_fail(
				err, "option", 0, "add --net proxy",
				"--%s%s%s%s applies only to --net proxy (the network is %s%s%s%s)",
				only_proxy[i], fflag ? "" : " (", fflag ? "" : from,
				fflag ? "" : ")",
				cfg->net == KJ_NET_HOST ? "the host's, unfiltered" : "none at all",
				nflag ? "" : ", from ",
				nflag   ? ""
				: nfrom ? nfrom
					: "the default",
				"");
		}
	}
	cfg->nallow_host = cfg->ndeny_host = 0;
	cfg->net_log = cfg->net_hosts = NULL;
	cfg->net_idle_set = false;
	cfg->net_log_limit = KJ_NET_LOG_LIMIT;
	cfg->net_log_limit_set = false;
	return 0;
}

/* rank: the source's place in precedence (lines of one source share
 * it): the built-in default profile 0, then for each layer l the profile
 * it chose 2l+1 and its own lines 2l+2. */
static int apply_lines(struct kj_config *cfg, struct kj_sources *src, const struct kj_lines *l,
		       unsigned rank, struct kj_err *err)
{
	int rc;

	for (size_t i = 0; i < l->n; i++) {
		const struct kj_line *ln = &l->v[i];
		if ((rc = cli_apply_option(cfg, ln->name, ln->value, err))) {
			line_error(ln, err);
			return rc;
		}
		record_origin(src, ln, rank);
	}
	return 0;
}

/* Lowest source first, so a higher one overrides; the effective profile's
 * lines go just before the lines of the source that chose it. profile
 * lines themselves were handled by choose_profile(). */
static int apply_layers(struct kj_config *cfg, struct kj_lines layers[L_COUNT], int chosen,
			struct kj_sources *src, struct kj_err *err)
{
	int rc;

	if (chosen < 0 && (rc = apply_lines(cfg, src, &src->profile.lines, 0, err)))
		return rc;
	for (int l = 0; l < L_COUNT; l++) {
		if (l == chosen &&
		    (rc = apply_lines(cfg, src, &src->profile.lines, 2U * (unsigned)l + 1, err)))
			return rc;
		for (size_t i = 0; i < layers[l].n; i++) {
			struct kj_lines one = {.v = &layers[l].v[i], .n = 1};
			if (strcmp(layers[l].v[i].name, "profile") &&
			    (rc = apply_lines(cfg, src, &one, 2U * (unsigned)l + 2, err)))
				return rc;
		}
	}
	cfg->profile = src->profile.name;
	return 0;
}

/* --net-hosts decides where allowed names go: configuration like the
 * rest (config_finish made its path canonical). Without this a run could
 * rewrite ./hosts and choose where the next run's allowed hosts lead. */
static int record_net_hosts(const struct kj_config *cfg, struct kj_conf_files *f,
			    struct kj_err *err)
{
	if (!cfg->net_hosts || cfg->net != KJ_NET_PROXY)
		return 0;
	if (conf_files_add(f, cfg->net_hosts, conf_shown(cfg->net_hosts), "read (--net-hosts)"))
		return conf_files_check(f, err);
	return 0;
}

/* One file, at its real place: not in the workspace or a --rw grant,
 * also under another name (a bind mount of one, or of a directory above
 * one: a profile the sandbox wrote in its workspace was read through
 * `mount --bind ~/proj /mnt/p` as /mnt/p/x.profile). */
static int check_file_out_of_reach(const struct kj_config *cfg, const char *shown, const char *real,
				   struct kj_err *err)
{
	const char *root = config_writable_root(cfg, real);

	if (!root)
		return 0;
	return kj_fail(err, "settings", 0, "keep configuration in ~/.config/kjail or /etc/kjail",
		       "%s is inside %s%s, which the sandbox can write", shown,
		       root == cfg->workspace.src ? "the workspace " : "--rw ", root);
}

/* A file the sandbox can write is the sandbox's to choose: reading it as
 * configuration would let one run loosen the next. */
static int check_files_out_of_reach(const struct kj_config *cfg, const struct kj_conf_files *f,
				    bool workspace_chosen, struct kj_err *err)
{
	/* A workspace set by a file (a profile's `workspace` line) moves the
	 * check away from the directory an earlier run wrote: a p.profile
	 * planted in the current directory, saying `workspace /elsewhere`
	 * and `net host`, passed as --profile ./p.profile. Unless the caller
	 * chose the workspace (--workspace on the command line), a profile
	 * named by path is kept out of the current directory too, the
	 * default workspace. */
	char *cwd = workspace_chosen ? NULL : getcwd(NULL, 0);
	int rc = 0;

	/* Only recorded files are checked below: a file that did not fit in
	 * f (the --env-file after many profiles) must refuse the run. */
	if (conf_files_check(f, err))
		rc = -E2BIG;
	for (size_t i = 0; !rc && i < f->n; i++) {
		const char *real = f->v[i].real;
		char buf[PATH_MAX];
		if (!real)
			continue;
		/* A path as given may pass a link that an earlier run planted
		 * in the workspace, to a file outside it. */
		if (f->v[i].given &&
		    (rc = config_resolve_unplanted(cfg, "settings", "--profile", f->v[i].given,
						   true, buf, err)) != 0) {
			rc = rc > 0 ? -EPERM
				    : kj_fail(err, "settings", -rc, NULL, "%s", f->v[i].given);
			break;
		}
		if (cwd && f->v[i].given && path_holds(cwd, real) &&
		    !path_holds(cfg->workspace.src, real)) {
			rc = kj_fail(
				err, "settings", 0,
				"keep configuration in ~/.config/kjail or /etc/kjail",
				"%s is inside the current directory %s, the default workspace, "
				"which a sandbox can write (and it sets another workspace)",
				f->v[i].shown, cwd);
			break;
		}
		rc = check_file_out_of_reach(cfg, f->v[i].shown, real, err);
	}
	free(cwd);
	return rc ? rc : settings_dirs_out_of_reach(cfg, err);
}

/* Did the caller choose the workspace (--workspace on the command line),
 * not a file? (No environment variable sets it: the env layer holds only
 * KJAIL_PROFILE's profile line.) */
static bool workspace_chosen(const struct kj_lines *layers)
{
	for (int l = L_ENV; l <= L_FLAGS; l++)
		for (size_t i = 0; i < layers[l].n; i++)
			if (!strcmp(layers[l].v[i].name, "workspace"))
				return true;
	return false;
}

/* Settings the caller wrote in ~/.config/kjail while XDG_CONFIG_HOME
 * points elsewhere: the run goes without what they set, so it says so,
 * as kjail doctor does (a note, not a refusal: the XDG spec makes that
 * directory the one to read, and --quiet silences it). */
static void note_unread_settings(void)
{
	char fix[PATH_MAX + 32], *unread = conf_user_unread("settings", fix, sizeof(fix));

	if (!unread)
		return;
	kj_note("settings: %s is not read (XDG_CONFIG_HOME is set): %s", conf_shown(unread), fix);
	free(unread);
}

int settings_load(int argc, char **argv, bool need_command, struct kj_config *cfg,
		  struct kj_sources *src, struct kj_err *err)
{
	struct kj_lines layers[L_COUNT] = {{0}};
	int rc, chosen;

	memset(src, 0, sizeof(*src));
	rc = cli_parse_exec(argc, argv, need_command, &layers[L_FLAGS], &cfg->argv, err);
	if (rc)
		return rc;
	if ((rc = read_sources(layers, src, err)) ||
	    (rc = choose_profile(layers, &chosen, src, err)) ||
	    (rc = apply_layers(cfg, layers, chosen, src, err)) ||
	    (rc = settle_proxy_options(cfg, src, err)))
		return rc;
	if ((rc = config_finish(cfg, err)) || (rc = env_file_load(cfg, &src->files, err)) ||
	    (rc = record_net_hosts(cfg, &src->files, err)) ||
	    (rc = check_files_out_of_reach(cfg, &src->files, workspace_chosen(layers), err)))
		return rc;
	if ((rc = policy_load(&src->policy, err)) ||
	    (rc = policy_enforce(&src->policy, cfg, src, err)))
		return rc;
	if (need_command && !cfg->quiet)
		note_unread_settings();
	return 0;
}

const char *settings_origin(const struct kj_sources *src, const char *opt)
{
	for (size_t i = 0; i < src->norigins; i++)
		if (!strcmp(src->origin[i].opt, opt))
			return src->origin[i].src;
	return NULL;
}
