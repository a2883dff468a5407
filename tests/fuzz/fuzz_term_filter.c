/* The filter of what a sandboxed command writes to the caller's terminal
 * (runtime/term_filter.c), on bytes the command chooses. Input: one byte
 * that sets the read size, then the output. Checked:
 *   - in place, as the relay runs it (the input right after
 *     TERM_FILTER_SLACK bytes of room, in an allocation of exactly that
 *     size, so ASan sees a write past it), the result is the same as into
 *     a separate buffer: the output never overtakes the input it reads;
 *   - cut into reads of any size, the result is the same as whole;
 *   - filtered again, the output comes out unchanged and nothing more is
 *     withheld: what passed holds no string the filter would withhold. A
 *     letter goes after it first: a byte the filter holds (0xC2, which
 *     may start a C1) is let go by the next one, and dropped at the end. */
#include <stdbool.h>

#include "runtime/term_filter.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_ASSERT_EQ(a, an, b, bn) FUZZ_ASSERT((an) == (bn) && !memcmp((a), (b), (an)))

/* data in reads of `piece` bytes (0: whole), each in place; out gets it. */
static size_t filter_all(struct term_filter *f, const uint8_t *data, size_t size, size_t piece,
			 char *out)
{
	size_t at = 0, n = 0;

	memset(f, 0, sizeof(*f));
	do {
		size_t len = piece && size - at > piece ? piece : size - at;
		char *buf = malloc(TERM_FILTER_SLACK + len + 1);
		size_t got;

		if (!buf)
			abort();
		memcpy(buf + TERM_FILTER_SLACK, data + at, len);
		got = term_filter_run(f, buf, buf + TERM_FILTER_SLACK, len);
		FUZZ_ASSERT(got <= TERM_FILTER_SLACK + len);
		memcpy(out + n, buf, got);
		free(buf);
		n += got;
		at += len;
	} while (at < size);
	return n + term_filter_end(f, out + n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct term_filter f, g;
	size_t piece, whole, cut, again, sep;
	char *a, *b, *c, *d;

	if (size < 1)
		return 0;
	piece = data[0] % 17;
	data++, size--;
	a = malloc(size + 3), b = malloc(size + 3), c = malloc(size + 3), d = malloc(size + 3);
	if (!a || !b || !c || !d)
		abort();

	whole = filter_all(&f, data, size, 0, a);
	FUZZ_ASSERT(whole <= size + 2);
	memset(&g, 0, sizeof(g));
	sep = term_filter_run(&g, d, (const char *)data, size);
	sep += term_filter_end(&g, d + sep);
	FUZZ_ASSERT_EQ(a, whole, d, sep);

	cut = filter_all(&g, data, size, piece ? piece : 1, b);
	FUZZ_ASSERT_EQ(a, whole, b, cut);
	FUZZ_ASSERT(f.withheld == g.withheld);

	a[whole++] = 'Z';
	again = filter_all(&g, (const uint8_t *)a, whole, 0, c);
	FUZZ_ASSERT_EQ(a, whole, c, again);
	FUZZ_ASSERT(g.withheld == 0);

	free(a), free(b), free(c), free(d);
	return 0;
}
