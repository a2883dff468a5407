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

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* One mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] -
 * TYPE SOURCE SUPEROPTS". */
static int consider(struct host_pseudofs *pf, const struct kj_config *cfg, char *line,
		    struct kj_err *err)
{
	char *mp = line, *sep, *type, *end;

	for (int field = 0; field < 4 && mp; field++)
		if ((mp = strchr(mp, ' ')))
			mp++;
	sep = mp ? strstr(mp, " - ") : NULL;
	if (!sep)
		return 0;
	type = sep + 3;
	if (!(end = strchr(type, ' ')))
		return 0;
	*end = '\0';
	if (!hidden_type(type))
		return 0;
	*strchr(mp, ' ') = '\0'; /* there is one: before " - " at the latest */
	unescape(mp);
	if (mp[0] != '/' || !strcmp(mp, "/"))
		return 0;
	return add_shown(pf, cfg, mp, err);
}

int pseudofs_find(const struct kj_config *cfg, struct host_pseudofs *pf, struct kj_err *err)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int rc = 0;

	*pf = (struct host_pseudofs){0};
	/* Still the host's mount table: this child's mount namespace is a copy
	 * of it, and nothing is mounted yet. */
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return kj_fail(err, "mask", errno, "mount /proc", "list the host's mounts");
	while (!rc && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		rc = consider(pf, cfg, line, err);
	}
	if (!rc && ferror(f))
		rc = kj_fail(err, "mask", EIO, NULL, "read /proc/self/mountinfo");
	free(line);
	fclose(f);
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
