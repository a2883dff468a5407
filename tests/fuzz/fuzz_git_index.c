/* A git index the command wrote: read by git_index_gitlinks (from a
 * private directory the target rewrites the index in for each input)
 * for the gitlinks host git would enter. The parser meets sizes and
 * offsets a command chose (entry lengths, version 4 prefixes, EOIE and
 * IEOT offsets): none may make it read outside the buffer. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/git_index.h"
#include "tests/fuzz/fuzz.h"

static const char *path;
static int dirfd_ = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const struct fuzz_file *f = fuzz_file_make("index");

	if ((dirfd_ = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		abort();
	path = f->path;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct git_paths l;
	struct stat st;

	fuzz_file_write(path, data, size);
	if (git_index_gitlinks(dirfd_, &l, &st) == 0) {
		for (size_t i = 0; i < l.n; i++)
			FUZZ_ASSERT(l.v[i] && strlen(l.v[i]) < 4096);
		git_paths_free(&l);
	} else {
		FUZZ_ASSERT(l.n == 0 && !l.v);
	}
	return 0;
}
