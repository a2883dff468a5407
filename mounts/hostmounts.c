/* The host's mount table (hostmounts.h). */
#include "mounts/hostmounts.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "runtime/config.h"

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

/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - TYPE SOURCE
 * SUPEROPTS": 1 when parsed into m, 0 for a line of another shape. */
static int parse(char *line, struct hostmount *m)
{
	char *field[5], *p = line, *sep, *type, *end;
	unsigned maj, min;
	unsigned long long id;

	for (int i = 0; i < 5; i++) {
		field[i] = p;
		if (!(p = strchr(p, ' ')))
			return 0;
		*p++ = '\0';
	}
	if (!(sep = strstr(p, " - ")) && strncmp(p, "- ", 2))
		return 0;
	type = sep ? sep + 3 : p + 2;
	if ((end = strchr(type, ' ')))
		*end = '\0';
	if (sscanf(field[0], "%llu", &id) != 1 || sscanf(field[2], "%u:%u", &maj, &min) != 2)
		return 0;
	unescape(field[3]);
	unescape(field[4]);
	if (field[3][0] != '/' || field[4][0] != '/')
		return 0;
	m->id = id;
	m->dev = makedev(maj, min);
	m->root = strdup(field[3]);
	m->mp = strdup(field[4]);
	m->type = strdup(type);
	return 1;
}

#define IOBUF_SIZE (64 * 1024)

int hostmounts_read(struct hostmounts *hm, struct kj_err *err)
{
	char *line = NULL, *iobuf;
	size_t cap = 0;
	FILE *f;
	int rc = 0;

	*hm = (struct hostmounts){0};
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return kj_fail(err, "mask", errno, "mount /proc", "list the host's mounts");
	/* One read for a usual table: stdio's default is proc's st_blksize,
	 * 1 KiB, and each read of mountinfo walks the table again to where
	 * the last one stopped (this runs on every sandbox's critical path). */
	iobuf = malloc(IOBUF_SIZE);
	if (iobuf)
		(void)setvbuf(f, iobuf, _IOFBF, IOBUF_SIZE);
	while (!rc && getline(&line, &cap, f) > 0) {
		struct hostmount m = {0};
		line[strcspn(line, "\n")] = '\0';
		if (!parse(line, &m))
			continue;
		if (m.root && m.mp && m.type && hm->n == hm->cap) {
			size_t more = hm->cap ? 2 * hm->cap : 64;
			struct hostmount *v = reallocarray(hm->v, more, sizeof(*v));
			if (v) {
				hm->v = v;
				hm->cap = more;
			}
		}
		if (!m.root || !m.mp || !m.type || hm->n == hm->cap) {
			free(m.root), free(m.mp), free(m.type);
			rc = kj_fail(err, "mask", ENOMEM, NULL, "list the host's mounts");
		} else {
			hm->v[hm->n++] = m;
		}
	}
	if (!rc && ferror(f))
		rc = kj_fail(err, "mask", EIO, NULL, "read /proc/self/mountinfo");
	free(line);
	fclose(f);
	free(iobuf);
	if (rc)
		hostmounts_free(hm);
	return rc;
}

void hostmounts_free(struct hostmounts *hm)
{
	for (size_t i = 0; i < hm->n; i++) {
		free(hm->v[i].root);
		free(hm->v[i].mp);
		free(hm->v[i].type);
	}
	free(hm->v);
	*hm = (struct hostmounts){0};
}

/* path, below the mount point mp, as a path below that mount's root. */
static int join(char *out, size_t size, const char *base, const char *rest)
{
	int n = snprintf(out, size, "%s%s%s", strcmp(base, "/") ? base : "",
			 rest[0] == '/' || !rest[0] ? "" : "/", rest);
	if (n >= 0 && !out[0] && size > 1)
		out[0] = '/', out[1] = '\0';
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int hostmounts_aliases(const struct hostmounts *hm, const char *path,
		       int (*fn)(const char *alias, void *arg), void *arg)
{
	const struct hostmount *at = NULL, *last = NULL;
	char inside[PATH_MAX], alias[PATH_MAX];
	struct stat want, st;
	struct statx stx;
	size_t best = 0;
	int rc = 0;

	if (stat(path, &want) < 0)
		return 0;
	/* The mount that holds path, by its id (a btrfs subvolume's st_dev
	 * is not its mount's MAJ:MIN); without one, the longest mount point
	 * above it, the last of equals (mounted on top). */
	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx) == 0 && (stx.stx_mask & STATX_MNT_ID))
		for (size_t i = 0; !at && i < hm->n; i++)
			if (hm->v[i].id == stx.stx_mnt_id && path_covers(hm->v[i].mp, path))
				at = &hm->v[i];
	for (size_t i = 0; !at && i < hm->n; i++) {
		size_t l = strlen(hm->v[i].mp);
		if (path_covers(hm->v[i].mp, path) && l >= best) {
			best = l;
			last = &hm->v[i];
		}
	}
	if (!at && !(at = last))
		return 0;
	best = strlen(at->mp);
	if (join(inside, sizeof(inside), at->root, path + (best > 1 ? best : 0)))
		return 0;
	for (size_t i = 0; !rc && i < hm->n; i++) {
		const struct hostmount *m = &hm->v[i];
		if (m == at || m->dev != at->dev || !path_covers(m->root, inside) ||
		    join(alias, sizeof(alias), m->mp,
			 inside + (strcmp(m->root, "/") ? strlen(m->root) : 0)))
			continue;
		/* Still that directory here (not under a later mount), and
		 * not path itself. */
		if (strcmp(alias, path) && stat(alias, &st) == 0 && st.st_dev == want.st_dev &&
		    st.st_ino == want.st_ino)
			rc = fn(alias, arg);
	}
	return rc;
}
