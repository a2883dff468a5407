/* Where a run's configuration comes from, and in which order.
 *
 * Sources, highest precedence first:
 *   1. command-line flags;
 *   2. KJAIL_PROFILE (chooses a profile);
 *   3. the user's settings, ~/.config/kjail/settings ($XDG_CONFIG_HOME/kjail/settings
 *      when XDG_CONFIG_HOME is set: conf_user_dir);
 *   4. the system's settings, /etc/kjail/settings;
 *   5. the built-in default profile.
 * The profile named by the highest source that names one is the effective
 * profile; its lines take that source's place, just below that source's
 * own lines (flags always win over profile lines, whatever their order).
 * Every line of every source goes through cli_apply_option(), the one
 * parser and validator; a bad value anywhere is an error naming its source.
 * Then config_finish(), the check that no configuration file is somewhere
 * the sandbox can write, and the admin's policy.
 */
#ifndef KJAIL_SETTINGS_H
#define KJAIL_SETTINGS_H

#include <stdbool.h>

#include "runtime/conffile.h"
#include "runtime/config.h"
#include "runtime/policy.h"
#include "runtime/profile.h"

#define KJ_MAX_ORIGINS 64

struct kj_sources {
	struct kj_profile profile;
	const char *profile_from;   /* "--profile", "KJAIL_PROFILE", "~/.config/kjail/settings:2",
				       "built-in default" */
	struct kj_conf_files files; /* settings and profile files looked at */
	struct kj_policy policy;
	struct {
		const char *opt, *src; /* the source of each option's last value */
		unsigned rank;         /* its source's place in precedence: higher wins */
	} origin[KJ_MAX_ORIGINS];
	size_t norigins;
};

/* Build cfg from every source (argv holds the exec options, and COMMAND
 * when need_command), finish and check it, and enforce the policy.
 * Returns 0, 1 for --help, or -errno with err filled. */
int settings_load(int argc, char **argv, bool need_command, struct kj_config *cfg,
		  struct kj_sources *src, struct kj_err *err);

/* Where opt's value came from ("--memory", "built-in ci.profile:3", ...),
 * or NULL when it is kjail's built-in default. */
const char *settings_origin(const struct kj_sources *src, const char *opt);

#endif
