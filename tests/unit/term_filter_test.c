/* Unit tests of runtime/term_filter.c: which control strings reach the
 * caller's terminal. Every case is run whole, split in two at every
 * byte, and a byte at a time, in place as the relay runs it: a sequence
 * cut across two reads is filtered just the same. TAP. */
#include <stdio.h>
#include <string.h>

#include "runtime/term_filter.h"
#include "tests/unit/tap.h"

struct result {
	char out[1024];
	size_t n;
	unsigned long long withheld;
	char first[12];
};

static void feed(struct term_filter *f, struct result *r, const char *in, size_t len)
{
	char buf[TERM_FILTER_SLACK + 1024];
	size_t got;

	memcpy(buf + TERM_FILTER_SLACK, in, len);
	got = term_filter_run(f, buf, buf + TERM_FILTER_SLACK, len);
	memcpy(r->out + r->n, buf, got);
	r->n += got;
}

/* in, in pieces: the first `split` bytes, then the rest `piece` at a
 * time (0: at once). */
static void run(const char *in, size_t len, size_t split, size_t piece, struct result *r)
{
	struct term_filter f;
	size_t at = split;

	memset(&f, 0, sizeof(f));
	memset(r, 0, sizeof(*r));
	feed(&f, r, in, split);
	while (at < len) {
		size_t part = piece && len - at > piece ? piece : len - at;
		feed(&f, r, in + at, part);
		at += part;
	}
	r->n += term_filter_end(&f, r->out + r->n);
	r->withheld = f.withheld;
	memcpy(r->first, f.first, sizeof(r->first));
}

static void show(char *dst, size_t size, const char *p, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 5 < size; i++) {
		unsigned char c = (unsigned char)p[i];
		o += (size_t)snprintf(dst + o, size - o, c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x",
				      c);
	}
	dst[o] = 0;
}

/* The filter turns in into want, withholding `withheld` strings, the
 * first of them `first` (NULL: none), however the input is cut. */
static void check(const char *name, const char *in, size_t len, const char *want, size_t wlen,
		  unsigned withheld, const char *first)
{
	struct result r;
	char detail[1200], got[500], exp[500];
	int bad = 0;

	for (size_t split = 0; split <= len && !bad; split++)
		for (size_t piece = 0; piece <= 1 && !bad; piece++) {
			run(in, len, split, piece, &r);
			if (r.n != wlen || memcmp(r.out, want, wlen) || r.withheld != withheld ||
			    (first && strcmp(r.first, first))) {
				show(got, sizeof(got), r.out, r.n);
				show(exp, sizeof(exp), want, wlen);
				snprintf(
					detail, sizeof(detail),
					"split %zu piece %zu: got \"%s\" (%llu withheld, first %s), "
					"want \"%s\" (%u, %s)",
					split, piece, got, r.withheld, r.first, exp, withheld,
					first ? first : "-");
				bad = 1;
			}
		}
	ok(!bad, name, detail);
}

#define CHECK(name, in, want, withheld, first) \
	check(name, in, sizeof(in) - 1, want, sizeof(want) - 1, withheld, first)

int main(void)
{
	/* What passes. */
	CHECK("plain_text_and_utf8_pass", "h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80\r\n",
	      "h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80\r\n", 0, NULL);
	CHECK("utf8_whose_continuation_is_0x9d_passes", "\xc7\x9d \xe2\x80\x9d",
	      "\xc7\x9d \xe2\x80\x9d", 0, NULL);
	CHECK("sgr_colours_and_cursor_moves_pass",
	      "\x1b[1;31mred\x1b[0m\x1b[2J\x1b[H\x1b(B\x1b"
	      "7",
	      "\x1b[1;31mred\x1b[0m\x1b[2J\x1b[H\x1b(B\x1b"
	      "7",
	      0, NULL);
	CHECK("title_with_bel_passes", "\x1b]0;my title\x07x", "\x1b]0;my title\x07x", 0, NULL);
	CHECK("title_with_st_passes", "\x1b]2;t\x1b\\x", "\x1b]2;t\x1b\\x", 0, NULL);
	CHECK("hyperlink_passes", "\x1b]8;;https://e.test/\x1b\\link\x1b]8;;\x1b\\",
	      "\x1b]8;;https://e.test/\x1b\\link\x1b]8;;\x1b\\", 0, NULL);
	CHECK("colour_query_and_reset_pass", "\x1b]11;?\x07\x1b]104\x07\x1b]133;A\x07",
	      "\x1b]11;?\x07\x1b]104\x07\x1b]133;A\x07", 0, NULL);
	CHECK("sixel_and_query_dcs_pass", "\x1bP0;1;0q#0~~\x1b\\\x1bP$qm\x1b\\\x1bP+q544e\x1b\\",
	      "\x1bP0;1;0q#0~~\x1b\\\x1bP$qm\x1b\\\x1bP+q544e\x1b\\", 0, NULL);
	CHECK("c1_csi_and_st_pass",
	      "\xc2\x9b"
	      "1m\xc2\x9c",
	      "\xc2\x9b"
	      "1m\xc2\x9c",
	      0, NULL);

	/* What is withheld, whole. */
	CHECK("osc52_clipboard_set_withheld",
	      "a\x1b]52;c;ZWNobyBwd25lZAo=\x07"
	      "b",
	      "ab", 1, "OSC 52");
	CHECK("osc52_with_st_withheld", "a\x1b]52;c;eA==\x1b\\b", "ab", 1, "OSC 52");
	CHECK("osc52_query_withheld", "\x1b]52;c;?\x07", "", 1, "OSC 52");
	CHECK("osc52_leading_zero_withheld",
	      "\x1b]052;c;eA==\x07"
	      "b",
	      "b", 1, "OSC 52");
	CHECK("osc_number_past_five_digits_withheld",
	      "\x1b]000052;c;eA==\x07"
	      "b",
	      "b", 1, "OSC");
	CHECK("newline_inside_osc_number_withheld",
	      "\x1b]5\n2;c;eA==\x07"
	      "b",
	      "b", 1, "OSC");
	CHECK("iterm_file_download_withheld", "\x1b]1337;File=name=eA==;inline=0:eA==\x07ok", "ok",
	      1, "OSC 1337");
	CHECK("kitty_file_transfer_withheld", "\x1b]5113;ac=send\x1b\\ok", "ok", 1, "OSC 5113");
	CHECK("notifications_withheld", "\x1b]9;hi\x07\x1b]99;;hi\x1b\\\x1b]777;notify;a;b\x07ok",
	      "ok", 3, "OSC 9");
	CHECK("osc_without_number_withheld", "\x1b];x\x07ok", "ok", 1, "OSC");
	CHECK("tmux_passthrough_withheld", "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\ok", "\x1b\\ok",
	      2, "DCS");
	CHECK("decudk_key_programming_withheld", "\x1bP0;1|17/6c730a\x1b\\ok", "ok", 1, "DCS");
	CHECK("kitty_graphics_apc_withheld", "\x1b_Gf=100,t=f;L2V0Yy9zaGFkb3c=\x1b\\ok", "ok", 1,
	      "APC");
	CHECK("pm_and_sos_withheld", "\x1b^x\x1b\\\x1bXy\x1b\\ok", "ok", 2, "PM");
	CHECK("utf8_c1_osc_withheld",
	      "\xc2\x9d"
	      "52;c;eA==\x07ok",
	      "ok", 1, "C1 OSC");
	CHECK("stray_c1_osc_byte_withheld",
	      "\x9d"
	      "52;c;eA==\x9cok",
	      "ok", 1, "C1 OSC");
	CHECK("stray_c1_dcs_apc_withheld", "\x90tmux;x\x1b\\\x9fGx\x1b\\ok", "ok", 2, "C1 DCS");

	/* How a string ends, as terminals end it. */
	CHECK("withheld_string_cut_by_can_then_text_passes", "\x1b]52;c;eA\x18ok", "ok", 1, NULL);
	CHECK("withheld_string_cut_by_csi_passes_the_csi", "\x1b]52;c;eA\x1b[1mX", "\x1b[1mX", 1,
	      NULL);
	CHECK("esc_then_c0_then_bracket_is_still_osc", "\x1b\n]52;c;eA==\x07ok", "\nok", 1,
	      "OSC 52");
	CHECK("esc_esc_starts_over", "\x1b\x1b]52;c;eA==\x07ok", "ok", 1, "OSC 52");
	CHECK("c1_cancels_a_held_esc",
	      "\x1b\xc2\x9d"
	      "52;x\x07ok",
	      "ok", 1, "C1 OSC");
	CHECK("withheld_inside_a_title_closes_the_title_first",
	      "\x1b]0;a\x1b]52;c;eA==\x07"
	      "bc",
	      "\x1b]0;a\x1b\\bc", 1, "OSC 52");
	CHECK("c1_osc_inside_a_title_closes_it_in_kind",
	      "\x1b]0;a\xc2\x9d"
	      "52;x\x07"
	      "b",
	      "\x1b]0;a\xc2\x9c"
	      "b",
	      1, "C1 OSC");
	CHECK("unfinished_title_closed_at_the_end", "\x1b]0;half", "\x1b]0;half\x1b\\", 0, NULL);
	CHECK("unfinished_head_dropped_at_the_end", "x\x1b]5", "x", 0, NULL);
	CHECK("lone_esc_and_c2_dropped_at_the_end", "x\x1b", "x", 0, NULL);
	CHECK("lone_c2_becomes_a_question_mark",
	      "a\xc2"
	      "b\xc2\x1b_x\x1b\\\x9c",
	      "a?b?\x9c", 1, "APC");
	CHECK("esc_then_c1_both_dropped_and_title_ended", "\x1b]2;t\x1b\x83x", "\x1b]2;t\x1b\\x", 0,
	      NULL);
	CHECK("never_utf8_bytes_become_question_marks", "\xc0\x9b]52;c;eA==\x07\xff",
	      "?\x9b]52;c;eA==\x07?", 0, NULL);

	/* The relay's reads: in place, a long title and a long withheld
	 * string cut at every byte give the same output. */
	{
		char in[600], want[600];
		size_t k = 0, w = 0;

		k += (size_t)snprintf(in + k, sizeof(in) - k, "\x1b]2;");
		memset(in + k, 't', 200), k += 200;
		k += (size_t)snprintf(in + k, sizeof(in) - k, "\x07\x1b]52;c;");
		memset(in + k, 'A', 200), k += 200;
		k += (size_t)snprintf(in + k, sizeof(in) - k,
				      "\x07"
				      "end");
		w += (size_t)snprintf(want + w, sizeof(want) - w, "\x1b]2;");
		memset(want + w, 't', 200), w += 200;
		w += (size_t)snprintf(want + w, sizeof(want) - w,
				      "\x07"
				      "end");
		check("long_strings_cut_anywhere", in, k, want, w, 1, "OSC 52");
	}

	printf("1..%d\n", n);
	return failed != 0;
}
