/* Kernel pseudo file systems the host mounted somewhere else than /proc
 * and /sys: hidden in the sandbox.
 *
 * The root is the host's tree cloned with every submount, and a procfs
 * mounted for a chroot (sbuild, mock, schroot: /srv/chroot/x/proc) is the
 * host's pid namespace's: through it a command saw every host process and
 * its command line, and /proc files kjail masks in its own /proc
 * (timer_list, kallsyms...). A sysfs, debugfs or tracefs elsewhere shows
 * what the fresh /sys and its masks hide. So the setup child lists them
 * from its copy of the host's mount table, in the idle wait for its uid
 * maps (runtime/child.c), and after the binds covers each with an empty
 * read-only directory wherever the sandbox shows it: at its path (below
 * --root DIR: at its place inside), and below every bind whose source
 * holds it. Those in trees the sandbox has fresh (/proc, /sys, /dev,
 * /tmp, /run) are covered already. */
#include "mounts/pseudofs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/hostmounts.h"
#include "mounts/rootfs.h"
#include "mounts/sockets.h"

#define MAX_PSEUDOFS 256 /* more is a refusal, as for sockets */

static const char *const hidden_types[] = {
	"proc",     "sysfs",  "debugfs", "tracefs", "securityfs", "bpf",         "configfs",
	"efivarfs", "pstore", "fusectl", "cgroup",  "cgroup2",    "binfmt_misc", NULL,
};

static bool hidden_type(const char *type)
{
	for (int i = 0; hidden_types[i]; i++)
		if (!strcmp(type, hidden_types[i]))
			return true;
	return false;
}

static int add(struct host_pseudofs *pf, const char *path, struct kj_err *err)
{
	char **v, *p;

	for (size_t i = 0; i < pf->n; i++)
		if (!strcmp(pf->paths[i], path))
			return 0;
	if (pf->n == MAX_PSEUDOFS)
		return kj_fail(err, "mask", 0, "report it: the host has unusually many such mounts",
			       "more than %d proc, sysfs and similar mounts to hide", MAX_PSEUDOFS);
	if (!(p = strdup(path)) || !(v = realloc(pf->paths, (pf->n + 1) * sizeof(*v)))) {
		free(p);
		return kj_fail(err, "mask", ENOMEM, NULL, "list the host's mounts");
	}
	pf->paths = v;
	pf->paths[pf->n++] = p;
	return 0;
}

/* Every place the sandbox shows the host path mp at. */
static int add_shown(struct host_pseudofs *pf, const struct kj_config *cfg, const char *mp,
		     struct kj_err *err)
{
	size_t n = strlen(cfg->root);
	char at[PATH_MAX];
	int rc = 0;

	/* In the root's view, a tree the sandbox has fresh covers it; below
	 * a bind's DEST nothing does. */
	if (n == 1 && !fresh_inside(mp))
		rc = add(pf, mp, err);
	else if (n > 1 && path_covers(cfg->root, mp) && mp[n] == '/' && !fresh_inside(mp + n))
		rc = add(pf, mp + n, err);
	for (size_t i = 0; !rc && i <= cfg->nbinds; i++) {
		const struct kj_bind *b = i < cfg->nbinds ? &cfg->binds[i] : &cfg->workspace;
		if (b->agent || !b->src || !b->dest || !path_covers(b->src, mp))
			continue;
		if ((size_t)snprintf(at, sizeof(at), "%s%s", b->dest, mp + strlen(b->src)) <
		    sizeof(at))
			rc = add(pf, at, err);
	}
	return rc;
}

int pseudofs_find(const struct kj_config *cfg, const struct hostmounts *hm,
		  struct host_pseudofs *pf, struct kj_err *err)
{
	int rc = 0;

	*pf = (struct host_pseudofs){0};
	for (size_t i = 0; !rc && i < hm->n; i++) {
		const char *mp = hm->v[i].mp;
		if (hidden_type(hm->v[i].type) && strcmp(mp, "/"))
			rc = add_shown(pf, cfg, mp, err);
	}
	if (rc)
		pseudofs_free(pf);
	return rc;
}

int pseudofs_mask(int rootfd, const struct host_pseudofs *pf, struct kj_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < pf->n; i++)
		rc = mask_path(rootfd, pf->paths[i], S_IFDIR, err);
	return rc;
}

void pseudofs_free(struct host_pseudofs *pf)
{
	for (size_t i = 0; i < pf->n; i++)
		free(pf->paths[i]);
	free(pf->paths);
	*pf = (struct host_pseudofs){0};
}
