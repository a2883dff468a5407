/* Shared pieces of kjail's libFuzzer targets (tests/fuzz/fuzz_*.c).
 *
 * Adding a target: write tests/fuzz/fuzz_NAME.c defining
 * LLVMFuzzerTestOneInput, put a few seed inputs in tests/fuzz/corpus/NAME/
 * (and, optionally, a libFuzzer dictionary in tests/fuzz/NAME.dict).
 * `make fuzz` builds it against build/fuzz/libkjail.a (kjail without
 * main, with coverage, ASan and UBSan) and runs it; nothing else to list.
 *
 * A target that calls code whose allocations live until exit by design
 * (the configuration is built once per run and never freed) says so with
 * FUZZ_NO_LEAK_CHECK("why"); every other target runs with LeakSanitizer. */
#ifndef KJAIL_FUZZ_H
#define KJAIL_FUZZ_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ASan reads its defaults from this hook; ASAN_OPTIONS still wins. */
#define FUZZ_NO_LEAK_CHECK(why)                   \
	const char *__asan_default_options(void); \
	const char *__asan_default_options(void)  \
	{                                         \
		(void)(why);                      \
		return "detect_leaks=0";          \
	}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (cut at its first NUL); free it. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Split s in place at every sep; up to max pieces in v. Returns the count. */
static inline size_t fuzz_split(char *s, char sep, char **v, size_t max)
{
	size_t n = 0;

	while (n < max) {
		char *next = strchr(s, sep);
		v[n++] = s;
		if (!next)
			break;
		*next = '\0';
		s = next + 1;
	}
	return n;
}

/* A target that reads its input from a file: a private directory of the
 * target's and the file's path in it. */
struct fuzz_file {
	char dir[32];
	char path[64];
};

static inline struct fuzz_file *fuzz_file_(void)
{
	static struct fuzz_file f = {"/tmp/kjail-fuzz.XXXXXX", ""};
	return &f;
}

static inline void fuzz_file_cleanup_(void)
{
	unlink(fuzz_file_()->path);
	rmdir(fuzz_file_()->dir);
}

/* NAME in a private directory made now; both removed at exit. Once, from
 * LLVMFuzzerInitialize. */
static inline const struct fuzz_file *fuzz_file_make(const char *name)
{
	struct fuzz_file *f = fuzz_file_();

	if (!mkdtemp(f->dir) ||
	    (size_t)snprintf(f->path, sizeof(f->path), "%s/%s", f->dir, name) >= sizeof(f->path))
		abort();
	atexit(fuzz_file_cleanup_);
	return f;
}

/* The file at path holds data, and only data. */
static inline void fuzz_file_write(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

/* Crash (so the fuzzer keeps the input) when an invariant does not hold. */
#define FUZZ_ASSERT(cond)        \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

#endif
