/* Profiles: named sets of option lines.
 *
 * A profile is a file of option lines (conffile.h) plus `include NAME`.
 * NAME is looked up in /etc/kjail/profiles/NAME.profile, then
 * ~/.config/kjail/profiles/NAME.profile ($XDG_CONFIG_HOME/kjail/... when
 * that is set), then the built-ins compiled from
 * profiles/; never in the workspace or the current directory. A reference
 * with a '/' is a path: in an include line, a relative one is read from
 * the directory of the file that includes it. Names are matched in lower
 * case.
 */
#ifndef KJAIL_PROFILE_H
#define KJAIL_PROFILE_H

#include <stdio.h>

#include "runtime/conffile.h"
#include "runtime/error.h"

#define KJ_MAX_INCLUDE_DEPTH 8
/* Names of the profile and everything it includes: each file read gives
 * at most two (the name asked for and the name of the file read), and a
 * run reads at most KJ_MAX_FILES files. One more is an error, never a
 * name left out: a name not recorded escapes `deny profile NAME`. */
#define KJ_MAX_PROFILES (2 * KJ_MAX_FILES)

struct kj_profile {
	const char *name; /* as referred to: "agent" or a path */
	const char *file; /* shown: "built-in agent.profile", "/etc/kjail/profiles/x.profile" */
	/* The lower-case names of the profile and of every profile it
	 * includes, transitively (the policy's `deny profile` looks at all):
	 * a NAME as asked for; for a file, also its file name without
	 * .profile (a profile given by path, or reached through a symlink,
	 * is known by that). The first ntop are the profile's own. */
	const char *names[KJ_MAX_PROFILES];
	size_t nnames, ntop;
	struct kj_lines lines; /* its option lines, includes expanded in place */
	/* What the lines and names point into (file texts, paths), freed by
	 * profile_free(). */
	char **owned;
	size_t nowned;
};

/* Does ref name an existing profile? label ("--profile", "include") names
 * the option in messages. */
int profile_check(const char *ref, const char *label, struct kj_err *err);

/* Is name a valid profile name (not a path)? It need not exist. */
int profile_name_check(const char *name, const char *label, struct kj_err *err);

/* Read the profile ref and every profile it includes into p; each file
 * read is added to files. */
int profile_load(const char *ref, const char *label, struct kj_profile *p,
		 struct kj_conf_files *files, struct kj_err *err);

/* Free what profile_load() allocated, also after it failed. p's lines and
 * names must not be used afterwards. */
void profile_free(struct kj_profile *p);

/* kjail profile list: every profile, where it comes from, what it is for.
 * 0, or -errno with err filled (a relative XDG_CONFIG_HOME). */
int profile_list(FILE *out, struct kj_err *err);

/* kjail profile show REF: its resolved lines, each validated and shown
 * with the file and line it came from; secret-looking values hidden. */
int profile_show(const char *ref, FILE *out, struct kj_err *err);

#endif
