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

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ASan reads its defaults from this hook; ASAN_OPTIONS still wins. */
#define FUZZ_NO_LEAK_CHECK(why)                                                                    \
	const char *__asan_default_options(void);                                                  \
	const char *__asan_default_options(void)                                                   \
	{                                                                                          \
		(void)(why);                                                                       \
		return "detect_leaks=0";                                                           \
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

/* Crash (so the fuzzer keeps the input) when an invariant does not hold. */
#define FUZZ_ASSERT(cond)                                                                          \
	do {                                                                                       \
		if (!(cond))                                                                       \
			abort();                                                                   \
	} while (0)

#endif
