/* Validation of everything in the configuration that touches the file
 * system: canonical paths, identities recorded for later re-checks, and the
 * rules on what may be bound. Nothing here creates anything on the host. */
#include "runtime/config.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/masks.h"
#include "runtime/builtin.h"

void config_init(struct kj_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->root = "/";
	cfg->tmp_size = 64ULL << 20;
	cfg->kill_grace_ms = 5000;
	cfg->net = KJ_NET_NONE;
	cfg->tty = KJ_TTY_AUTO;
	cfg->limits.memory = 512ULL << 20;
	cfg->limits.memory_arg = "512M";
	cfg->limits.memory_swap = 0;
	cfg->limits.memory_swap_arg = "0";
	cfg->limits.pids = 256;
	cfg->limits.pids_arg = "256";
	cfg->limits.cpu_quota_us = KJ_LIMIT_MAX;
	cfg->limits.cpus_arg = "max";
	cfg->limits.mode = KJ_LIMITS_REQUIRED;
	cfg->caller_uid = cfg->uid = getuid();
	cfg->caller_gid = cfg->gid = getgid();
}

/* Is a equal to b or an ancestor of it (path-wise)? Both canonical. */
static bool path_covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (!strcmp(a, "/"))
		return true;
	return !strncmp(a, b, n) && (b[n] == '\0' || b[n] == '/');
}

/* A DEST inside the sandbox: absolute, no "." or ".." or empty parts. */
static int check_dest(const char *what, const char *dest, struct kj_err *err)
{
	const char *p = dest;

	if (dest[0] != '/')
		return kj_fail(err, what, 0, "give an absolute path", "destination '%s' is not absolute", dest);
	while (*p) {
		const char *q;
		p++;
		q = p + strcspn(p, "/");
		if (q == p || (q - p == 1 && p[0] == '.') || (q - p == 2 && p[0] == '.' && p[1] == '.'))
			return kj_fail(err, what, 0, "write it without '.', '..', '//' or a trailing '/'",
				       "destination '%s' is not a plain path", dest);
		p = q;
	}
	if (!strcmp(dest, "/") || path_covers("/proc", dest) || path_covers("/dev", dest))
		return kj_fail(err, what, 0, "kjail builds /, /proc and /dev itself",
			       "cannot bind onto %s", dest);
	return 0;
}

static void add_home(struct kj_config *cfg, const char *dir)
{
	char *h;

	if (!dir || dir[0] != '/')
		return;
	h = realpath(dir, NULL);
	if (!h && !(h = strdup(dir)))
		return;
	for (int i = 0; i < 3; i++) {
		if (cfg->homes[i] && !strcmp(cfg->homes[i], h))
			break;
		if (!cfg->homes[i]) {
			cfg->homes[i] = h;
			return;
		}
	}
	free(h);
}

/* The home directory of uid: /etc/passwd read directly (NSS costs about
 * 100 us on every start: nscd probes, nsswitch.conf), the user database
 * only for users that file does not list (LDAP, sssd...). */
static void add_home_of(struct kj_config *cfg, uid_t uid)
{
	char line[1024];
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;

	while (f && fgets(line, sizeof(line), f)) {
		char *field[7], *p = line;
		int n = 0;
		for (; n < 7 && (field[n] = strsep(&p, ":\n")); n++)
			;
		if (n >= 6 && field[2][0] && strtoul(field[2], NULL, 10) == uid) {
			fclose(f);
			add_home(cfg, field[5]);
			return;
		}
	}
	if (f)
		fclose(f);
	pw = getpwuid(uid);
	add_home(cfg, pw ? pw->pw_dir : NULL);
}

static void find_homes(struct kj_config *cfg)
{
	add_home_of(cfg, cfg->caller_uid);
	add_home(cfg, getenv("HOME"));
	if (cfg->user_set)
		add_home_of(cfg, cfg->uid);
}

/* Would binding src expose a credential store, or is src inside one? */
static int check_exposes_credentials(const char *what, const char *src, const char *home,
				     struct kj_err *err)
{
	char cred[PATH_MAX];

	if (!home)
		return 0;
	if (path_covers(src, home))
		return kj_fail(err, what, 0, "bind a project directory instead",
			       "%s contains the home directory %s and its credential stores", src, home);
	for (int i = 0; credential_paths[i]; i++) {
		snprintf(cred, sizeof(cred), "%s/%s", home, credential_paths[i]);
		if (path_covers(src, cred) || path_covers(cred, src))
			return kj_fail(err, what, 0, "credential stores are always masked",
				       "%s overlaps the credential store %s", src, cred);
	}
	return 0;
}

/* Canonicalize b->src, record its identity, check it may be bound. */
static int finish_bind(struct kj_config *cfg, struct kj_bind *b, const char *what,
		       struct kj_err *err)
{
	static const char *const never_writable[] = {"/proc", "/sys", "/dev", "/run", "/boot", "/etc", NULL};
	struct stat st;
	char *canon = realpath(b->src, NULL);
	int rc;

	if (!canon)
		return kj_fail(err, what, errno, NULL, "%s", b->src);
	free(b->src);
	b->src = canon;
	if (stat(canon, &st) < 0)
		return kj_fail(err, what, errno, NULL, "%s", canon);
	b->dev = st.st_dev;
	b->ino = st.st_ino;
	b->is_dir = S_ISDIR(st.st_mode);
	if (!b->dest && !(b->dest = strdup(canon)))
		return kj_fail(err, what, ENOMEM, NULL, "%s", canon);
	if ((rc = check_dest(what, b->dest, err)))
		return rc;
	if (!strcmp(canon, "/"))
		return kj_fail(err, what, 0, "bind a project directory instead", "cannot bind the whole host root /");
	for (int i = 0; i < 3; i++)
		if ((rc = check_exposes_credentials(what, canon, cfg->homes[i], err)))
			return rc;
	if (b->writable) {
		for (int i = 0; never_writable[i]; i++)
			if (path_covers(canon, never_writable[i]) || path_covers(never_writable[i], canon))
				return kj_fail(err, what, 0, "grant write access to a project directory instead",
					       "%s may not be writable inside the sandbox (it is or holds %s)", canon, never_writable[i]);
		if (access(canon, W_OK) < 0)
			return kj_fail(err, what, errno, "grant only what you can write yourself",
				       "%s is not writable by you", canon);
	}
	return 0;
}

int config_finish(struct kj_config *cfg, struct kj_err *err)
{
	struct stat st;
	char *canon;
	int rc;

	if (cfg->user_set && cfg->caller_uid != 0)
		return kj_fail(err, "option", 0, "only root can run a command as another user",
			       "--user needs root");
	canon = realpath(cfg->root, NULL);
	if (!canon || stat(canon, &st) < 0 || !S_ISDIR(st.st_mode))
		return kj_fail(err, "root", canon ? ENOTDIR : errno, "give a root filesystem directory",
			       "%s", cfg->root);
	cfg->root = canon;

	find_homes(cfg);

	if (!cfg->workspace.src) {
		cfg->workspace.src = getcwd(NULL, 0);
		if (!cfg->workspace.src)
			return kj_fail(err, "workspace", errno, "cd into a project directory or give --workspace DIR",
				       "the current directory");
	}
	cfg->workspace.writable = true;
	if ((rc = finish_bind(cfg, &cfg->workspace, "workspace", err)))
		return rc;
	if (!cfg->workspace.is_dir)
		return kj_fail(err, "workspace", ENOTDIR, "give a directory", "%s", cfg->workspace.src);
	{
		size_t nrw = 0;
		for (size_t i = 0; i < cfg->nbinds; i++) {
			struct kj_bind *b = &cfg->binds[i];
			if (b->writable && ++nrw > 16)
				return kj_fail(err, "rw", 0, "grant fewer, broader directories",
					       "at most 16 write grants");
			if ((rc = finish_bind(cfg, b, b->writable ? "rw" : "ro", err)))
				return rc;
		}
	}
	for (size_t i = 0; i < cfg->nmasks; i++) {
		if (cfg->masks[i][0] != '/')
			return kj_fail(err, "mask", 0, "give an absolute path", "'%s' is not absolute", cfg->masks[i]);
		if (lstat(cfg->masks[i], &st) < 0 && (cfg->root[1] == '\0'))
			return kj_fail(err, "mask", errno, "mask a path that exists", "%s", cfg->masks[i]);
	}
	if (!cfg->seccomp_text) {
		cfg->seccomp_source = "profiles/seccomp-default.policy";
		cfg->seccomp_text = kjail_builtin_find("seccomp-default.policy");
		cfg->seccomp_builtin = true;
		if (!cfg->seccomp_text)
			return kj_fail(err, "seccomp", 0, "rebuild kjail", "the built-in policy is missing");
	}
	return 0;
}
