/* After the run: the other git directories host git enters from the
 * workspace's repository, and what COMMAND changed in them.
 *
 * .git/hooks and .git/config are read-only during the run, but host git
 * also reads the config and runs the hooks of every submodule it looks
 * at (`git status` runs a status in each): those of the absorbed
 * submodules in .git/modules/NAME (any depth), and those of a nested
 * repository whose .git is a directory, which the index names as a
 * gitlink (mode 160000). COMMAND can write all of these, and can add a
 * gitlink to the index (which `git add` must be able to write), so a
 * core.fsmonitor planted in any of them would run on the host at the
 * user's next `git status`. No mount can cover what COMMAND creates, so
 * they are checked once every process of the sandbox is gone: a config
 * file, or a hooks directory or hook, changed during the run (its ctime,
 * which no process can set back, is after the run's start) is renamed to
 * NAME.kjail-refused, and kjail says so. */
#include "mounts/git_links.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/mountapi.h"

#define MAX_GITDIRS 256
#define MAX_DEPTH 4
#define INDEX_MAX (256u << 20)
#define GITLINK 0160000u
#define BENEATH (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

struct walk {
	struct timespec start;
	const char *workspace;
	int checked, rc;
	struct git_snapshot *snap; /* filled (taking) or compared with (checking) */
	bool taking;
};

/* What a config file or a hooks directory (and every hook in it) is now:
 * inode, ctime, size and mode, hashed (FNV-1a over 64-bit words). Any write, rename or new entry
 * changes it. */
static void mix(uint64_t *h, const struct stat *st)
{
	const uint64_t v[] = {(uint64_t)st->st_ino, (uint64_t)st->st_ctim.tv_sec,
			      (uint64_t)st->st_ctim.tv_nsec, (uint64_t)st->st_size, st->st_mode};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		*h ^= v[i];
		*h *= 0x100000001b3ULL;
	}
}

static uint64_t state_of(int gitfd, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct stat st;
	struct dirent *e;
	int fd;
	DIR *d;

	if (fstatat(gitfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	mix(&h, &st);
	if (!S_ISDIR(st.st_mode) ||
	    (fd = openat(gitfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return h;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return h;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			mix(&h, &st); /* (readdir's order is stable while nothing changes) */
	closedir(d);
	return h;
}

static const struct git_snap *snap_find(const struct git_snapshot *s, const char *key)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (!strcmp(s->v[i].key, key))
			return &s->v[i];
	return NULL;
}

static bool changed_since(const struct stat *st, const struct timespec *t)
{
	return st->st_ctim.tv_sec > t->tv_sec ||
	       (st->st_ctim.tv_sec == t->tv_sec && st->st_ctim.tv_nsec >= t->tv_nsec);
}

static void set_aside(struct walk *w, int dirfd, const char *name, const char *where)
{
	char refused[64];

	snprintf(refused, sizeof(refused), "%s.kjail-refused", name);
	if (renameat(dirfd, name, dirfd, refused) == 0) {
		kj_note("git: the command changed %s/%s (host git would use it when it enters "
			"that repository); renamed to %s",
			where, name, refused);
	} else {
		struct kj_err err;
		w->rc = kj_fail(&err, "git", errno, "remove it before running git there",
				"set aside %s/%s, which the command changed", where, name);
		kj_err_print(&err);
	}
}

/* A hooks directory: set aside whole when it or any hook in it changed. */
static bool hooks_changed(int gitfd, const struct timespec *t)
{
	struct stat st;
	struct dirent *e;
	bool changed;
	int fd = openat(gitfd, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return false;
	changed = fstat(fd, &st) == 0 && changed_since(&st, t);
	if (changed || !(d = fdopendir(fd))) {
		close(fd);
		return changed;
	}
	while (!changed && (e = readdir(d)))
		changed = e->d_name[0] != '.' &&
			  fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			  changed_since(&st, t);
	closedir(d);
	return changed;
}

static void check_gitdir(struct walk *w, int gitfd, const char *where, const char *key, int depth);

/* .git/modules/NAME, and their own modules, to MAX_DEPTH. */
static void check_modules(struct walk *w, int gitfd, const char *where, const char *key, int depth)
{
	int fd = path_open(gitfd, "modules", O_DIRECTORY, BENEATH);
	struct dirent *e;
	DIR *d;

	if (fd < 0 || depth >= MAX_DEPTH)
		goto out;
	/* Listed through a readable reopen of the O_PATH fd. */
	{
		int rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		d = rfd >= 0 ? fdopendir(rfd) : NULL;
		if (!d && rfd >= 0)
			close(rfd);
	}
	while (d && (e = readdir(d)) && w->checked < MAX_GITDIRS) {
		char sub[4096];
		int mfd;
		if (e->d_name[0] == '.')
			continue;
		mfd = path_open(fd, e->d_name, O_DIRECTORY, BENEATH);
		if (mfd < 0)
			continue;
		char subkey[sizeof(((struct git_snap *)0)->key)];
		int kn = *key ? snprintf(subkey, sizeof(subkey), "%s/%s", key, e->d_name) : -1;
		/* A key that does not fit is no key: judged by the clock,
		 * never against another module's state. */
		if (kn < 0 || (size_t)kn >= sizeof(subkey))
			subkey[0] = '\0';
		(void)!snprintf(sub, sizeof(sub), "%s/modules/%s", where, e->d_name);
		check_gitdir(w, mfd, sub, subkey, depth + 1);
		close(mfd);
	}
	if (d)
		closedir(d);
out:
	if (fd >= 0)
		close(fd);
}

/* key names a git directory of .git/modules ("" for the others): one in
 * the snapshot taken before the run is judged by its state then (no clock
 * involved: one made just before the run is not the command's), any
 * other by its ctime against the run's start. */
static void check_gitdir(struct walk *w, int gitfd, const char *where, const char *key, int depth)
{
	struct stat st;
	int rfd = openat(gitfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const struct git_snap *before = *key ? snap_find(w->snap, key) : NULL;

	w->checked++;
	if (rfd < 0)
		return;
	if (w->taking) {
		struct git_snapshot *s = w->snap;
		struct git_snap *v =
			s->n < MAX_GITDIRS ? realloc(s->v, (s->n + 1) * sizeof(*v)) : NULL;
		if (v) {
			s->v = v;
			snprintf(v[s->n].key, sizeof(v[s->n].key), "%s", key);
			v[s->n].config = state_of(rfd, "config");
			v[s->n].hooks = state_of(rfd, "hooks");
			s->n++;
		}
	} else if (before) {
		if (state_of(rfd, "config") != before->config && state_of(rfd, "config"))
			set_aside(w, rfd, "config", where);
		if (state_of(rfd, "hooks") != before->hooks && state_of(rfd, "hooks"))
			set_aside(w, rfd, "hooks", where);
	} else {
		if (fstatat(rfd, "config", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    changed_since(&st, &w->start))
			set_aside(w, rfd, "config", where);
		if (hooks_changed(rfd, &w->start))
			set_aside(w, rfd, "hooks", where);
	}
	close(rfd);
	check_modules(w, gitfd, where, key, depth);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The index's gitlinks, each handed to fn; false if it could not be read
 * as an index (versions 2 to 4, SHA-1 or SHA-256 names). */
static bool index_gitlinks(const unsigned char *b, size_t len, size_t hash,
			   void (*fn)(void *, const char *), void *arg)
{
	char path[4096] = "";
	uint32_t version, n;
	size_t off = 12, fixed = 40 + hash + 2;

	if (len < 12 || memcmp(b, "DIRC", 4))
		return false;
	version = be32(b + 4);
	n = be32(b + 8);
	if (version < 2 || version > 4)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		size_t start = off, plen, strip = 0, namelen;
		unsigned flags;
		const unsigned char *name, *nul;
		if (off + fixed > len)
			return false;
		flags = (unsigned)b[off + fixed - 2] << 8 | b[off + fixed - 1];
		off += fixed + (version >= 3 && (flags & 0x4000) ? 2 : 0);
		if (version == 4) { /* prefix-compressed: strip N bytes, add the rest */
			unsigned char c;
			if (off >= len)
				return false;
			c = b[off++];
			strip = c & 0x7f;
			while (c & 0x80) {
				if (off >= len || strip > sizeof(path))
					return false;
				c = b[off++];
				strip = ((strip + 1) << 7) | (c & 0x7f);
			}
		}
		name = b + off;
		nul = memchr(name, 0, len - off);
		if (!nul)
			return false;
		namelen = (size_t)(nul - name);
		plen = strlen(path);
		if (version < 4)
			strip = plen; /* the whole name */
		if (strip > plen || plen - strip + namelen >= sizeof(path))
			return false;
		if (version < 4 && (flags & 0xfff) != (namelen < 0xfff ? namelen : 0xfff))
			return false; /* not this hash size */
		memcpy(path + plen - strip, name, namelen + 1);
		off += namelen + 1;
		if (version < 4) /* NUL padding to a multiple of 8 */
			off = start + ((off - start + 7) & ~(size_t)7);
		if (fn && be32(b + start + 24) == GITLINK)
			fn(arg, path);
	}
	return true;
}

struct link_ctx {
	struct walk *w;
	int wsfd;
};

static void check_link(void *arg, const char *path)
{
	struct link_ctx *c = arg;
	char where[4200];
	int fd;

	if (c->w->checked >= MAX_GITDIRS)
		return;
	/* A nested repository's own .git directory; a .git file leads to
	 * .git/modules, checked already. */
	snprintf(where, sizeof(where), "%s/.git", path);
	fd = path_open(c->wsfd, where, O_DIRECTORY, BENEATH);
	if (fd < 0)
		return;
	snprintf(where, sizeof(where), "%s/%s/.git", c->w->workspace, path);
	check_gitdir(c->w, fd, where, "", 0);
	close(fd);
}

void git_links_snapshot(int gitfd, struct git_snapshot *s)
{
	struct walk w = {.snap = s, .taking = true};

	*s = (struct git_snapshot){0};
	check_modules(&w, gitfd, "", "m", 0);
}

void git_links_snapshot_free(struct git_snapshot *s)
{
	free(s->v);
	*s = (struct git_snapshot){0};
}

int git_links_check(int wsfd, int gitfd, const char *workspace, const struct timespec *start,
		    struct git_snapshot *before)
{
	struct walk w = {.start = *start, .workspace = workspace, .snap = before};
	struct link_ctx c = {.w = &w, .wsfd = wsfd};
	char where[4200];
	unsigned char *buf = NULL;
	struct stat st;
	int fd;

	snprintf(where, sizeof(where), "%s/.git", workspace);
	check_modules(&w, gitfd, where, "m", 0);
	fd = openat(gitfd, "index", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (size_t)st.st_size <= INDEX_MAX && (buf = malloc((size_t)st.st_size))) {
		size_t len = 0;
		ssize_t r;
		while (len < (size_t)st.st_size &&
		       (r = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
			len += (size_t)r;
		/* Read whole first (no entry is acted on from a misread). */
		size_t hash = index_gitlinks(buf, len, 20, NULL, NULL)   ? 20
			      : index_gitlinks(buf, len, 32, NULL, NULL) ? 32
									 : 0;
		if (hash) {
			(void)index_gitlinks(buf, len, hash, check_link, &c);
		} else {
			struct kj_err err;
			w.rc = kj_fail(&err, "git", 0, "check the repository with git fsck",
				       "cannot read %s/index for the submodules host git would "
				       "enter",
				       where);
			kj_err_print(&err);
		}
	}
	free(buf);
	if (fd >= 0)
		close(fd);
	return w.rc;
}
