/* A git index's gitlinks, read without git (kjail reads indexes the
 * command wrote, before and after the run, and must neither run the
 * command's config nor trust the index's sizes), and the submodules host
 * git enters through them. See git_index.h. */
#include "mounts/git_index.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/git_after.h"

#define INDEX_MAX (256u << 20)
#define GITLINK 0160000u

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#define IEOT_MAX_BLOCKS 1024 /* git writes one per 10000 entries */

/* Where host git may start reading instead of after the last entry: an
 * EOIE trailer (the offset of the extensions) and the IEOT extension it
 * leads to (the offsets of blocks of entries, which git reads on
 * threads, each block from its own offset, from an empty previous name
 * in version 4). git writes them with index.threads set, and reads them
 * whenever it runs more than one thread (its default on 2 cores and
 * up). A command can write offsets that disagree with the entries read
 * one after another, as kjail reads them: git would then read entries
 * kjail never saw, a gitlink among them. So they must agree, or the
 * index is not read (125). */
struct offsets {
	bool eoie;      /* an EOIE trailer is there */
	size_t ext;     /* its offset: where the entries must end */
	size_t nblocks; /* IEOT blocks */
	uint32_t off[IEOT_MAX_BLOCKS], nr[IEOT_MAX_BLOCKS];
};

/* The EOIE trailer and its IEOT, found where git looks for them; false if
 * they cannot be held (then the index is not read). */
static bool index_offsets(const unsigned char *b, size_t len, size_t hash, struct offsets *o)
{
	size_t eoie = 8 + 4 + hash, at;

	o->eoie = false;
	o->nblocks = 0;
	/* git: the last thing before the trailing hash, "EOIE", its size
	 * (4 + hash), the 32-bit offset, a hash of the extensions' headers
	 * (not checked here: an index git would ignore it in is held to it
	 * anyway, which refuses only what git never writes). */
	if (len < 12 + eoie + hash || memcmp(b + len - hash - eoie, "EOIE", 4) ||
	    be32(b + len - hash - eoie + 4) != 4 + hash)
		return true;
	o->eoie = true;
	o->ext = be32(b + len - hash - eoie + 8);
	/* git walks the extensions from there to the IEOT. */
	for (at = o->ext; at >= 12 && at + 8 <= len - hash;) {
		size_t size = be32(b + at + 4);
		if (size > len - hash - at - 8)
			return true; /* git stops reading there too: no IEOT */
		if (!memcmp(b + at, "IEOT", 4)) {
			/* git ignores an IEOT of another version or shape */
			if (size < 4 || be32(b + at + 8) != 1 || (size - 4) % 8)
				return true;
			if ((size - 4) / 8 > IEOT_MAX_BLOCKS)
				return false;
			o->nblocks = (size - 4) / 8;
			for (size_t i = 0; i < o->nblocks; i++) {
				o->off[i] = be32(b + at + 12 + 8 * i);
				o->nr[i] = be32(b + at + 16 + 8 * i);
			}
			return true;
		}
		at += 8 + size;
	}
	return true;
}

/* The entries one after another, and the extensions after them. */
static bool index_entries(const unsigned char *b, size_t len, size_t hash, uint32_t version,
			  uint32_t n, const struct offsets *o, void (*fn)(void *, const char *),
			  void *arg)
{
	char path[4096] = "";
	size_t off = 12, fixed = 40 + hash + 2, plen = 0, block = 0, next_block = 0;

	/* Cheap per entry (a big repository's index has 100k+): the name is
	 * copied only where it is needed, a gitlink's or (version 4) the
	 * prefix the next name builds on. */
	for (uint32_t i = 0; i < n; i++) {
		size_t start = off, strip = 0, namelen;
		unsigned flags;
		const unsigned char *name, *nul;
		bool gitlink;
		if (off + fixed > len)
			return false;
		/* An IEOT block starts here: at this very entry, and (version
		 * 4, where git reads a block from an empty previous name) with
		 * a name that takes nothing from the one before, as git writes
		 * it; the strip is checked below, once read. */
		if (block < o->nblocks && i == next_block) {
			if (o->off[block] != start)
				return false;
			next_block += o->nr[block++];
		}
		/* Host git tests the type bits only (S_ISGITLINK: mode &
		 * S_IFMT): a mode of 0160644 the command wrote into the index
		 * is a gitlink to it, whose submodule `git status` enters and
		 * whose core.fsmonitor it runs. An exact compare missed it. */
		gitlink = (be32(b + start + 24) & 0170000u) == GITLINK;
		flags = (unsigned)b[off + fixed - 2] << 8 | b[off + fixed - 1];
		/* Host git reads the extended flags of an entry whose flag
		 * says so in any version; git writes them in version 3 and up
		 * only, so one in version 2 is no index git made: unread, never
		 * parsed otherwise than git parses it. */
		if (version < 3 && (flags & 0x4000))
			return false;
		off += fixed + (flags & 0x4000 ? 2 : 0);
		if (off >= len)
			return false; /* the extended flags ran past the end */
		if (version == 4) {   /* prefix-compressed: strip N bytes, add the rest */
			unsigned char c = b[off++]; /* off < len: checked above */
			strip = c & 0x7f;
			while (c & 0x80) {
				if (off >= len || strip > sizeof(path))
					return false;
				c = b[off++];
				strip = ((strip + 1) << 7) | (c & 0x7f);
			}
		}
		name = b + off;
		if (version < 4 && (flags & 0xfff) < 0xfff) {
			/* the length is in the flags: its NUL must be there */
			namelen = flags & 0xfff;
			if (off + namelen >= len || name[namelen])
				return false; /* not this hash size */
		} else {
			if (!(nul = memchr(name, 0, len - off)))
				return false;
			namelen = (size_t)(nul - name);
			if (version < 4 && namelen < 0xfff)
				return false; /* not this hash size */
		}
		if (version < 4)
			strip = plen; /* the whole name */
		if (strip > plen || plen - strip + namelen >= sizeof(path))
			return false;
		if (version == 4 && block > 0 && i == next_block - o->nr[block - 1] &&
		    strip != plen)
			return false;
		/* Version 4: host git takes the name's length from the flags
		 * when it fits there, not from its NUL, and steps over the
		 * entry by it: names the two disagree on would have kjail
		 * step elsewhere than git and miss the gitlinks git reads. */
		if (version == 4 && (flags & 0xfff) < 0xfff &&
		    plen - strip + namelen != (flags & 0xfff))
			return false;
		if (version == 4 || (fn && gitlink)) {
			memcpy(path + plen - strip, name, namelen);
			plen = plen - strip + namelen;
			path[plen] = '\0';
		}
		off += namelen + 1;
		if (version < 4) /* NUL padding to a multiple of 8 */
			off = start + ((off - start + 7) & ~(size_t)7);
		if (fn && gitlink)
			fn(arg, path);
	}
	/* Every entry in a block, the blocks' entries all there are, and
	 * the extensions where EOIE says they start. */
	if ((o->nblocks && (block < o->nblocks || next_block != n)) || (o->eoie && o->ext != off))
		return false;
	/* The extensions, up to the trailing hash. A split index ("link",
	 * core.splitIndex) keeps entries in sharedindex.*, which this parser
	 * does not read: a gitlink there would go unchecked, so such an
	 * index is one kjail cannot read (125), never "no gitlinks". */
	while (len >= hash && off + 8 <= len - hash) {
		uint32_t size = be32(b + off + 4);
		if (!memcmp(b + off, "link", 4))
			return false;
		if (size > len - hash - off - 8)
			break;
		off += 8 + size;
	}
	return true;
}

/* The index's gitlinks, each handed to fn; false if it could not be read
 * as an index (versions 2 to 4, SHA-1 or SHA-256 names). */
static bool index_gitlinks(const unsigned char *b, size_t len, size_t hash,
			   void (*fn)(void *, const char *), void *arg)
{
	uint32_t version, n;
	struct offsets *o;
	bool ok;

	if (len < 12 || memcmp(b, "DIRC", 4))
		return false;
	version = be32(b + 4);
	n = be32(b + 8);
	if (version < 2 || version > 4 || !(o = malloc(sizeof(*o))))
		return false;
	ok = index_offsets(b, len, hash, o) && index_entries(b, len, hash, version, n, o, fn, arg);
	free(o);
	return ok;
}

/* Where host git goes for the gitlink at path: path/.git itself, or the
 * directory a .git file there names, each reached as host git reaches
 * it (through symlinks), into real (canonical). */
bool git_link_target(const char *workspace, const char *path, char real[PATH_MAX])
{
	char base[PATH_MAX], dotgit[PATH_MAX], named[PATH_MAX];
	const char *dir = dotgit;
	struct stat st;

	if ((size_t)snprintf(base, sizeof(base), "%s/%s", workspace, path) >= sizeof(base) ||
	    (size_t)snprintf(dotgit, sizeof(dotgit), "%s/.git", base) >= sizeof(dotgit) ||
	    stat(dotgit, &st) < 0)
		return false;
	if (S_ISREG(st.st_mode)) {
		if (!realpath(dotgit, real) ||
		    git_named_path(AT_FDCWD, real, "gitdir: ", base, named, sizeof(named)))
			return false;
		dir = named;
	}
	return realpath(dir, real) != NULL;
}

static void gitlinks_add(void *arg, const char *path)
{
	struct git_paths *l = arg;
	char **v;

	if (l->failed || !(v = realloc(l->v, (l->n + 1) * sizeof(*v)))) {
		l->failed = true;
		return;
	}
	/* The grown array is the list's now, even if strdup fails below. */
	l->v = v;
	if (!(v[l->n] = strdup(path))) {
		l->failed = true;
		return;
	}
	l->n++;
}

void git_paths_free(struct git_paths *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct git_paths){0};
}

/* The gitlinks of gitfd/index into *l, the index's stat into *st (zero
 * if there is none). -1 if the index is there but could not be read as
 * one. One pass over it (a big repository's is megabytes): names are
 * collected, not acted on, until the whole index has been read. */
int git_index_gitlinks(int gitfd, struct git_paths *l, struct stat *st)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	ssize_t r;
	int fd, rc = -1;

	*l = (struct git_paths){0};
	*st = (struct stat){0};
	/* O_NONBLOCK: a FIFO the command left as .git/index would hang kjail
	 * after the run (and before the next); only a regular file is read. */
	fd = openat(gitfd, "index", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	/* Anything but a regular file of a size kjail reads is not skipped:
	 * a command could pad the index past INDEX_MAX to hide a gitlink. */
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || (size_t)st->st_size > INDEX_MAX ||
	    !(buf = malloc((size_t)st->st_size + 1)))
		goto out;
	while (len < (size_t)st->st_size &&
	       (r = read(fd, buf + len, (size_t)st->st_size - len)) > 0)
		len += (size_t)r;
	if (len == 0) {
		rc = 0; /* an empty index: git's "no entries" */
		goto out;
	}
	/* SHA-1 names, and SHA-256: both, not the first that reads. The
	 * repository's object format says which one git uses, but an index
	 * crafted to read cleanly both ways would show kjail the SHA-1
	 * entries of a SHA-256 repository, and git a gitlink kjail never saw.
	 * The gitlinks of every reading that works are checked. */
	for (size_t hash = 20; hash <= 32; hash += 12) {
		struct git_paths one = {0};
		if (index_gitlinks(buf, len, hash, gitlinks_add, &one) && !one.failed) {
			rc = 0;
			for (size_t i = 0; i < one.n && !l->failed; i++)
				gitlinks_add(l, one.v[i]);
		}
		git_paths_free(&one);
	}
	if (l->failed)
		rc = -1;
out:
	if (rc < 0)
		git_paths_free(l);
	free(buf);
	close(fd);
	return rc;
}

/* The walk's first failure, the one said: err into *rc, where into bad. */
__attribute__((format(printf, 5, 6))) static void walk_fail(int *rc, int err, char *bad,
							    size_t size, const char *fmt, ...)
{
	va_list ap;

	if (*rc)
		return;
	*rc = err;
	va_start(ap, fmt);
	vsnprintf(bad, size, fmt, ap);
	va_end(ap);
}

/* Breadth first, through a queue rather than recursion: a command can
 * nest gitlinks as deep as paths go (or make one lead back to its own
 * parent's git directory, "gitdir: ../.git"), and kjail's stack must not
 * be what bounds the walk. Each worktree path is longer than its
 * parent's, so the walk ends; max and GIT_NESTED_BYTES keep it short
 * (a command could otherwise make kjail read the same big index over
 * and over), and past them the caller says what was not reached. */
int git_index_walk(const char *workspace, const struct git_paths *top, size_t max,
		   void (*fn)(void *, const char *, const char *), void *arg, char *bad,
		   size_t size)
{
	struct git_paths q = {0};
	size_t bytes = 0;
	bool stopped = false; /* past max or GIT_NESTED_BYTES: no more added */
	int rc = 0;

	for (size_t i = 0; i < top->n && !stopped; i++) {
		if (i < max)
			gitlinks_add(&q, top->v[i]);
		else
			stopped = true;
	}
	if (stopped)
		walk_fail(&rc, -E2BIG, bad, size, "%s", top->v[max]);
	for (size_t i = 0; i < q.n; i++) {
		char real[PATH_MAX], full[PATH_MAX];
		struct git_paths sub;
		struct stat st;
		int fd, r;

		if (!git_link_target(workspace, q.v[i], real))
			continue; /* not checked out: host git does not enter it */
		fn(arg, q.v[i], real);
		if (stopped || (fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			continue;
		r = git_index_gitlinks(fd, &sub, &st);
		close(fd);
		if (r < 0) {
			walk_fail(&rc, -1, bad, size, "%s", real);
			continue;
		}
		bytes += (size_t)st.st_size;
		for (size_t j = 0; j < sub.n && !stopped; j++) {
			if ((size_t)snprintf(full, sizeof(full), "%s/%s", q.v[i], sub.v[j]) >=
			    sizeof(full)) {
				walk_fail(&rc, -ENAMETOOLONG, bad, size, "%s/%s", q.v[i], sub.v[j]);
			} else if (q.n >= max || bytes > GIT_NESTED_BYTES) {
				walk_fail(&rc, -E2BIG, bad, size, "%s", full);
				stopped = true;
			} else {
				gitlinks_add(&q, full);
			}
		}
		git_paths_free(&sub);
	}
	if (q.failed)
		walk_fail(&rc, -ENOMEM, bad, size, "%s", workspace);
	git_paths_free(&q);
	return rc;
}
