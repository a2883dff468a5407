/* Which seccomp policy a run gets: the built-in deny-list (default), the
 * built-in allow-list (strict), or a policy file of the caller's. */
#include "runtime/seccomp_choice.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/builtin.h"
#include "runtime/conffile.h"

#define POLICY_MAX_BYTES (256 * 1024)

int seccomp_choice_parse(struct kj_config *cfg, const char *opt, const char *value,
			 struct kj_err *err)
{
	struct stat st;

	/* A policy FILE a later value replaces is still checked (invalid
	 * input is an error wherever it stands; runtime/cli.c). */
	if (cfg->seccomp_file && stat(cfg->seccomp_file, &st) < 0)
		return kj_fail(err, "option", errno,
			       "fix or drop the earlier value; a later one does not excuse it",
			       "--%s %s (replaced by a later --%s)", opt, cfg->seccomp_file, opt);
	if (cfg->seccomp_file && !S_ISREG(st.st_mode))
		return kj_fail(err, "option", 0,
			       "fix or drop the earlier value; a later one does not excuse it",
			       "--%s %s (replaced by a later --%s) is not a regular file", opt,
			       cfg->seccomp_file, opt);
	if (!strcasecmp(value, "default") || !strcasecmp(value, "strict")) {
		cfg->seccomp =
			!strcasecmp(value, "default") ? KJ_SECCOMP_DEFAULT : KJ_SECCOMP_STRICT;
		cfg->seccomp_file = NULL;
		return 0;
	}
	/* A bare word is a typo of a built-in more often than a file name. */
	if (!strchr(value, '/'))
		return kj_fail(err, "option", 0, "write ./NAME for a policy file in this directory",
			       "--%s: '%s' is neither default, strict nor a path", opt, value);
	cfg->seccomp = KJ_SECCOMP_FILE;
	cfg->seccomp_file = value;
	return 0;
}

/* Is dir equal to path or an ancestor of it? Both canonical. */
/* The policy decides what the sandbox may do, so the sandbox must not be
 * able to have written it: not in the workspace, not in a write grant
 * (an earlier run, or this one's setup race, could plant a permissive
 * policy there), not writable by group or others, and owned by the
 * caller or root. */
static int check_file_place(const struct kj_config *cfg, const char *canon, const struct stat *st,
			    struct kj_err *err)
{
	/* Also under another name: through a bind mount of the workspace
	 * (or of a directory above it) the policy was read. */
	const char *root = config_writable_root(cfg, canon);

	if (root == cfg->workspace.src)
		return kj_fail(
			err, "seccomp", 0, "keep policy files outside the workspace",
			"--seccomp %s is inside the workspace %s, which the sandbox can write",
			canon, cfg->workspace.src);
	if (root)
		return kj_fail(err, "seccomp", 0, "keep policy files outside every --rw grant",
			       "--seccomp %s is inside the write grant %s", canon, root);
	if (!S_ISREG(st->st_mode))
		return kj_fail(err, "seccomp", 0, "give a policy file",
			       "--seccomp %s is not a regular file", canon);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return kj_fail(err, "seccomp", 0, "chmod go-w it",
			       "--seccomp %s is writable by others (mode %04o)", canon,
			       (unsigned)(st->st_mode & 07777));
	if (st->st_uid != cfg->caller_uid && st->st_uid != 0)
		return kj_fail(err, "seccomp", 0, "use a policy file you or root own",
			       "--seccomp %s belongs to uid %u", canon, (unsigned)st->st_uid);
	return 0;
}

static int read_policy_file(struct kj_config *cfg, struct kj_err *err)
{
	char buf[PATH_MAX], *canon, *text = NULL;
	struct stat st;
	size_t got = 0;
	ssize_t n;
	int fd = -1, rc;

	/* Resolved as given, refusing a link that lies in the workspace or a
	 * --rw grant: ./policy -> a loose policy elsewhere, planted by an
	 * earlier run, would choose this run's filter. */
	rc = config_resolve_unplanted(cfg, "seccomp", "--seccomp", cfg->seccomp_file, true, buf,
				      err);
	if (rc > 0)
		return -EPERM;
	if (rc < 0)
		return kj_fail(err, "seccomp", -rc, NULL, "--seccomp %s", cfg->seccomp_file);
	/* A link on the way chooses the file: one in a directory another
	 * user can write (or, in /tmp, another user's) is theirs to point
	 * at a loose policy, as for every configuration file (conf_read). */
	if (conf_check_links("seccomp", cfg->seccomp_file, CONF_USER, err))
		return -EPERM;
	if (!(canon = strdup(buf)))
		return kj_fail(err, "seccomp", ENOMEM, NULL, "--seccomp %s", cfg->seccomp_file);
	/* Checked on the descriptor we read from, not on the name.
	 * O_NONBLOCK: a FIFO put there would hang the open (kjail exec and
	 * kjail doctor) until someone wrote to it; opened at once, it is
	 * refused below as no regular file. O_NOCTTY: a terminal given as
	 * the file never becomes kjail's controlling terminal. */
	fd = open(canon, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = kj_fail(err, "seccomp", errno, NULL, "--seccomp %s", canon);
		goto fail;
	}
	if ((rc = check_file_place(cfg, canon, &st, err)) ||
	    (rc = conf_check_dir("seccomp", canon, CONF_USER, err)))
		goto fail;
	if (st.st_size > POLICY_MAX_BYTES) {
		rc = kj_fail(err, "seccomp", EFBIG, "a policy is a few hundred lines",
			     "--seccomp %s", canon);
		goto fail;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		rc = kj_fail(err, "seccomp", ENOMEM, NULL, "--seccomp %s", canon);
		goto fail;
	}
	while (got < (size_t)st.st_size && (n = read(fd, text + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	text[got] = '\0';
	if (strlen(text) != got) {
		rc = kj_fail(err, "seccomp", 0, "a policy is a text file",
			     "--seccomp %s has a NUL byte", canon);
		goto fail;
	}
	close(fd);
	cfg->seccomp_text = text;
	cfg->seccomp_source = canon; /* errors say "<file>:<line>: ..." */
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(text);
	free(canon);
	return rc;
}

int seccomp_choice_finish(struct kj_config *cfg, struct kj_err *err)
{
	const char *name;

	if (cfg->seccomp == KJ_SECCOMP_FILE)
		return read_policy_file(cfg, err);
	name = cfg->seccomp == KJ_SECCOMP_STRICT ? "seccomp-strict.policy"
						 : "seccomp-default.policy";
	cfg->seccomp_source = cfg->seccomp == KJ_SECCOMP_STRICT ? "profiles/seccomp-strict.policy"
								: "profiles/seccomp-default.policy";
	cfg->seccomp_text = kjail_builtin_find(name);
	if (!cfg->seccomp_text)
		return kj_fail(err, "seccomp", 0, "rebuild kjail",
			       "the built-in policy %s is missing", name);
	return 0;
}
