/* Unit test of mounts/git_index.c git_index_gitlinks: an index is read
 * with SHA-1 names and with SHA-256 names, and the gitlinks of every
 * reading that works are returned. A command can craft an index that
 * reads cleanly both ways (here: one entry, a gitlink "x" to SHA-1 eyes,
 * "sub" to SHA-256 ones); in a SHA-256 repository git reads "sub", and
 * kjail, stopping at the SHA-1 reading, never checked where it leads.
 * TAP on stdout. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/git_after.h"
#include "mounts/git_index.h"
#include "tests/unit/tap.h"

/* git_link_target's only call out of git_index.c, not reached here. */
int git_named_path(int dirfd, const char *file, const char *prefix, const char *base, char *out,
		   size_t size)
{
	(void)dirfd, (void)file, (void)prefix, (void)base, (void)out, (void)size;
	abort();
}

static void be32(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static bool has(const struct git_paths *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return true;
	return false;
}

/* One version 2 entry, 124 bytes: header (12), entry (80 as SHA-256:
 * stat data 40 with the mode at 24, name 32, flags 2, "sub", NUL pad),
 * trailing hash (32). As SHA-1 the name is 20 bytes, the flags are
 * bytes 20-21 of the SHA-256 name (length 1), the name "x". */
static size_t dual_index(unsigned char *b)
{
	memset(b, 0, 124);
	memcpy(b, "DIRC", 4);
	be32(b + 4, 2);
	be32(b + 8, 1);
	be32(b + 12 + 24, 0160000); /* a gitlink, both ways */
	b[72] = 0x00, b[73] = 0x01; /* SHA-1 flags: name length 1 */
	b[74] = 'x';                /* SHA-1 name, its NUL at 75 */
	b[84] = 0x00, b[85] = 0x03; /* SHA-256 flags: name length 3 */
	memcpy(b + 86, "sub", 3);   /* SHA-256 name, NUL-padded to 92 */
	return 124;
}

int main(void)
{
	char dir[] = "/tmp/kjail-git-index.XXXXXX", path[64];
	unsigned char b[124];
	struct git_paths l;
	struct stat st;
	size_t len = dual_index(b);
	int fd, dfd, rc;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/index", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, b, len) != (ssize_t)len)
		return 1;
	close(fd);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = git_index_gitlinks(dfd, &l, &st);
	ok(rc == 0, "dual_index_is_read", NULL);
	ok(has(&l, "x"), "dual_index_sha1_gitlink_found", NULL);
	ok(has(&l, "sub"), "dual_index_sha256_gitlink_found_too",
	   "only the first reading that worked was taken");
	git_paths_free(&l);

	/* Not vacuous: a plain SHA-256 index of that entry reads too. */
	b[72] = 0xff, b[73] = 0xff; /* no NUL where SHA-1 would want it */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, b, len) != (ssize_t)len)
		return 1;
	close(fd);
	rc = git_index_gitlinks(dfd, &l, &st);
	ok(rc == 0 && l.n == 1 && has(&l, "sub"), "sha256_index_gitlink_found", NULL);
	git_paths_free(&l);

	close(dfd);
	unlink(path);
	rmdir(dir);
	printf("1..%d\n", n);
	return failed != 0;
}
