/* Configuration files and configuration lines.
 *
 * Settings, profiles and the policy are text files of lines
 *
 *     name [value]        # comment
 *
 * one long option a line, without its dashes. They are read only when
 * nobody but their owner and root can change them: a file another user
 * (or a sandbox) could write would be a way to loosen every later run.
 */
#ifndef KJAIL_CONFFILE_H
#define KJAIL_CONFFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/error.h"

/* One option from any source. */
struct kj_line {
	const char *name;
	const char *value; /* NULL: a flag without a value */
	const char *file;  /* the source as shown to the user; NULL: the command line */
	unsigned lineno;   /* 0: not from a file (the command line, KJAIL_PROFILE) */
};

struct kj_lines {
	struct kj_line *v;
	size_t n, cap;
};

int lines_add(struct kj_lines *l, const char *name, const char *value, const char *file,
	      unsigned lineno, struct kj_err *err);

/* "file:line", "file", or "--name" for the command line. */
const char *line_source(const struct kj_line *ln, char *buf, size_t size);

/* Prefix err's message with "<source>: " (for lines not from the command
 * line), so the same problem reads the same from every source. */
void line_error(const struct kj_line *ln, struct kj_err *err);

/* Where kjail's own configuration lives. The admin's is never taken from
 * the environment: whoever can set a variable must not be able to
 * redirect the admin's settings or policy. The caller's own follows
 * $XDG_CONFIG_HOME and $HOME (conf_user_dir), as the caller's files do. */
#define KJ_ETC "/etc/kjail"
#define KJ_USER_DIR ".config/kjail" /* below the caller's home, without XDG_CONFIG_HOME */

/* Every configuration file kjail looked at, for doctor and for the check
 * that none of them is somewhere the sandbox can write. */
#define KJ_MAX_FILES 32
struct kj_conf_files {
	struct {
		const char *real;  /* canonical path; NULL for a built-in */
		const char *shown; /* as shown to the user */
		const char *state; /* "read", "absent", "built-in" */
		const char *given; /* a path as the caller wrote it, or NULL */
	} v[KJ_MAX_FILES];
	size_t n;
	const char *unrecorded; /* shown name of the first file that did not fit */
};

/* Record a file (once). Returns -E2BIG when KJ_MAX_FILES are recorded
 * already; the file is then kept in f->unrecorded, so that a caller who
 * ignores the result still has the run refused by conf_files_check(). */
int conf_files_add(struct kj_conf_files *f, const char *real, const char *shown, const char *state);

/* 0, or -E2BIG with err filled when a file could not be recorded: a file
 * that is not recorded escapes the check that the sandbox cannot write it,
 * so the run must not go ahead. */
int conf_files_check(const struct kj_conf_files *f, struct kj_err *err);

enum conf_trust {
	CONF_SYSTEM,  /* /etc/kjail: owned by root, writable by root only */
	CONF_USER,    /* owned by root or the caller, writable by its owner only */
	CONF_PRIVATE, /* --env-file: the caller's, no access for group or others */
};

/* Resolve path as the kernel does (a relative one from the current
 * directory) into out, canonical. Each symlink met on the way is shown to
 * on_link (when not NULL) with the canonical directory that holds it and
 * its name, before it is followed; a nonzero return ends the walk with
 * that value. With follow_last false the last component is neither
 * followed nor required to exist. Returns 0, on_link's refusal, or a
 * negative errno (-ENOENT: a component, or a link's target, is missing). */
int conf_resolve(const char *path, bool follow_last, char *out, size_t size,
		 int (*on_link)(const char *dir, const char *name, void *arg), void *arg);

/* The directory holding real (canonical) must be one only its owner (root
 * or, but for CONF_SYSTEM, the caller) can change, or sticky: whoever can
 * replace the file chooses it. 0 or -EPERM/-errno with err filled. */
int conf_check_dir(const char *part, const char *real, enum conf_trust trust, struct kj_err *err);

/* Every symlink on the way to path (which resolves) sits in a directory
 * that meets the rule conf_check_dir() sets for a file's, and, in a
 * sticky one, is owned as the file must be: conf_read's check, for files
 * read elsewhere (--seccomp, --net-hosts). 0, or -EPERM with err filled. */
int conf_check_links(const char *part, const char *path, enum conf_trust trust, struct kj_err *err);

/* path (a configuration file or directory, there or not): the deepest
 * part of it that exists, resolved (each symlink's directory checked as
 * conf_read checks it), and every directory from there up to / must be
 * one no other user can change: owned by root or (but for CONF_SYSTEM)
 * the caller, and writable by its owner only, or sticky. Else another
 * user could replace or hide the file, also one that is not there now
 * (a run would go without the settings that restricted it). 0 or
 * -EPERM/-errno with err filled. conf_read checks the same above the
 * files it reads. */
int conf_check_tree(const char *part, const char *path, enum conf_trust trust, struct kj_err *err);

/* Read a configuration file. Symlinks are resolved; the file itself must
 * be a regular file the trust rule accepts, and so must its directory,
 * and the directory holding each symlink on the way (whoever can replace
 * a link chooses the file), by CONF_USER's rule for CONF_PRIVATE. Returns -ENOENT without touching
 * err when there is no such file; a symlink on the path whose target is missing is an error, not
 * "no file". *real gets the canonical path (malloc'd). */
int conf_read(const char *part, const char *path, enum conf_trust trust, char **text, char **real,
	      struct kj_err *err);

/* conf_read, and for a file that is not there, conf_check_tree's checks
 * from where the lookup stopped (not walked twice): -ENOENT, without
 * touching err, when no other user could put the file there either. */
int conf_read_vetted(const char *part, const char *path, enum conf_trust trust, char **text,
		     char **real, struct kj_err *err);

/* Split one line in place: 1 and name/value for an option line, 0 for a
 * blank or comment line, -1 with *why for a malformed one. */
int conf_split_line(char *line, const char **name, const char **value, const char **why);

/* Split text (modified in place) into lines; file names them in messages. */
int conf_parse(const char *part, char *text, const char *file, struct kj_lines *out,
	       struct kj_err *err);

/* path as shown to the user: "~/..." below $HOME. Never freed. */
const char *conf_shown(const char *path);

/* The caller's home for ~/.config/kjail ($HOME if absolute, else the user
 * database), or NULL. */
const char *conf_home(void);

/* $XDG_CONFIG_HOME, the one check of it wherever it is read (settings,
 * profiles, the grants it may not hold, the masks): *xdg is NULL when it
 * is unset or empty, else its value, absolute. A relative value is
 * refused: -EINVAL with err filled. */
int conf_xdg_config_home(const char **xdg, struct kj_err *err);

/* The caller's configuration directory, $XDG_CONFIG_HOME/kjail when that
 * is set, else ~/.config/kjail: *dir (static) or NULL when there is
 * neither a home nor XDG_CONFIG_HOME. 0, or -errno with err filled. */
int conf_user_dir(const char **dir, struct kj_err *err);

/* The caller's ~/.config/kjail/NAME when $XDG_CONFIG_HOME moved the
 * configuration directory elsewhere and it exists there, not being the
 * file kjail reads, with the fix in fix ("move its lines to
 * DIR/NAME"): for doctor's warning and a run's note. NULL otherwise;
 * malloc'd. */
char *conf_user_unread(const char *name, char *fix, size_t size);

#endif
