/* Validation of the --net proxy options (called from config_finish):
 * they need the mode, --net-hosts must be a file only the caller (or
 * root) can change, and --net-log must be somewhere kjail can create a
 * file of the caller's; neither path may pass a symlink the sandbox can
 * write. Nothing is created here. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "net/proxy.h"
#include "runtime/conffile.h"

/* path resolved into out, canonical, with no symlink the sandbox can
 * write on the way (runtime/config.c). 0, 1 (refused, err filled), or
 * -errno. */
static int resolve(const struct kj_config *cfg, const char *opt, const char *path, bool follow_last,
		   char *out, struct kj_err *err)
{
	return config_resolve_unplanted(cfg, "net", opt, path, follow_last, out, err);
}

static int check_hosts_file(struct kj_config *cfg, struct kj_err *err)
{
	const char *fix = "give a hosts file of your own that only you can write";
	char buf[PATH_MAX];
	struct stat st;
	char *canon;
	int rc;

	if (!cfg->net_hosts)
		return 0;
	rc = resolve(cfg, "--net-hosts", cfg->net_hosts, true, buf, err);
	if (rc > 0)
		return -EPERM;
	if (rc < 0 || stat(buf, &st) < 0)
		return kj_fail(err, "net", rc < 0 ? -rc : errno, "give an existing hosts file",
			       "--net-hosts %s", cfg->net_hosts);
	/* A link on the way chooses the file, so whoever can replace the
	 * link could point allowed names at a server of theirs (conf_read). */
	if (conf_check_links("net", cfg->net_hosts, CONF_USER, err))
		return -EPERM;
	if (!S_ISREG(st.st_mode))
		return kj_fail(err, "net", 0, fix, "--net-hosts %s is not a regular file",
			       cfg->net_hosts);
	/* The file decides where allowed names go: another user who could
	 * write it could point pypi.org at a server of their own. */
	if (st.st_uid != cfg->caller_uid && st.st_uid != 0)
		return kj_fail(err, "net", 0, fix, "--net-hosts %s belongs to uid %u, not to you",
			       cfg->net_hosts, (unsigned)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return kj_fail(err, "net", 0, "chmod go-w it",
			       "--net-hosts %s is writable by group or others", cfg->net_hosts);
	/* The same rule as every configuration file: its directory too. */
	if (conf_check_dir("net", buf, CONF_USER, err))
		return -EPERM;
	if (!(canon = strdup(buf)))
		return kj_fail(err, "net", ENOMEM, NULL, "--net-hosts");
	/* settings.c records it with the configuration files: one inside
	 * the workspace or a --rw grant is refused as they are. */
	cfg->net_hosts = canon;
	return 0;
}

/* cfg->net_log becomes the canonical path, with no symlink at all: the
 * proxy opens exactly that path with RESOLVE_NO_SYMLINKS, so a link
 * planted between this check and the open fails the open. */
static int check_log_file(struct kj_config *cfg, struct kj_err *err)
{
	char buf[PATH_MAX];
	struct stat st;
	const char *root;
	char *canon;
	int rc;

	if (!cfg->net_log)
		return 0;
	if (!*cfg->net_log || strlen(cfg->net_log) >= sizeof(buf))
		return kj_fail(err, "net", 0, "give a file path", "--net-log: bad path");
	rc = resolve(cfg, "--net-log", cfg->net_log, false, buf, err);
	if (rc > 0)
		return -EPERM;
	if (rc < 0)
		return kj_fail(err, "net", -rc,
			       -rc == ENOTDIR ? "give a path in a directory"
					      : "create the directory first",
			       "--net-log %s", cfg->net_log);
	if (lstat(buf, &st) == 0) {
		/* A symlink planted where the log goes would turn kjail's
		 * appends into writes to another file. */
		if (!S_ISREG(st.st_mode))
			return kj_fail(err, "net", 0, "give a regular file (not a symlink)",
				       "--net-log %s is not a regular file", cfg->net_log);
		if (st.st_uid != cfg->caller_uid)
			return kj_fail(err, "net", 0, "give a file of your own",
				       "--net-log %s belongs to uid %u, not to you", cfg->net_log,
				       (unsigned)st.st_uid);
	}
	/* The log is the record of what COMMAND reached: in the workspace or
	 * a --rw grant, COMMAND could erase or rewrite it (rm net.log, then a
	 * forged net.log: the proxy's lines went to the unlinked file, and
	 * the end-of-run summary pointed at the forgery). */
	if ((root = config_writable_root(cfg, buf)))
		return kj_fail(err, "net", 0,
			       "give a path outside the workspace and every --rw grant",
			       "--net-log %s is inside %s%s, which the sandbox can write (it could "
			       "erase or forge the log's lines)",
			       cfg->net_log,
			       root == cfg->workspace.src ? "the workspace " : "--rw ", root);
	if (!(canon = strdup(buf)))
		return kj_fail(err, "net", ENOMEM, NULL, "--net-log");
	cfg->net_log = canon;
	return 0;
}

int proxy_config_check(struct kj_config *cfg, struct kj_err *err)
{
	const char *opt = NULL;
	int rc;

	if (cfg->net != KJ_NET_PROXY) {
		if (cfg->nallow_host)
			opt = "--allow-host";
		else if (cfg->ndeny_host)
			opt = "--deny-host";
		else if (cfg->net_log)
			opt = "--net-log";
		else if (cfg->net_log_limit_set)
			opt = "--net-log-limit";
		else if (cfg->net_hosts)
			opt = "--net-hosts";
		else if (cfg->net_idle_set)
			opt = "--net-idle-timeout";
		if (!opt)
			return 0;
		return kj_fail(err, "option", 0, "add --net proxy",
			       "%s applies only to --net proxy (the network is %s)", opt,
			       cfg->net == KJ_NET_HOST ? "the host's, unfiltered" : "none at all");
	}
	/* The proxy is reached through the sandbox's own network namespace;
	 * without one, the command would have the host's network unfiltered. */
	if (cfg->isolation == KJ_ISOLATION_NONE)
		return kj_fail(
			err, "option", 0, "use --net host, or a profile with isolation",
			"--net proxy needs the sandbox's own network namespace, and --isolation none has none");
	if ((rc = check_hosts_file(cfg, err)) || (rc = check_log_file(cfg, err)))
		return rc;
	return 0;
}
