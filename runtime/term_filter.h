/* What the command writes to the caller's terminal, filtered.
 *
 * The sandbox's output reaches the caller's terminal emulator, which
 * lives outside the sandbox. Most of its control strings act on the
 * screen, and a terminal's answers (title and colour reports, device
 * attributes) go back to the sandbox's own pty only. Some act on the
 * host: OSC 52 sets (or reads) the host's clipboard, where a command
 * planted there runs when the user pastes it into a host shell; iTerm2's
 * OSC 1337 File= and kitty's OSC 5113 write files; kitty's graphics APC
 * reads host files by path; DECUDK (a DCS) programs function keys that
 * type text into whatever runs after kjail; tmux's DCS passthrough
 * carries any of them to the terminal outside tmux; notifications (OSC
 * 9, 99, 777) pose as the desktop's. So control strings pass by an
 * allow-list and every other one is withheld, whole:
 *
 *   OSC 0-2 (title), 4, 10-19, 104, 110-119 (colours), 7 (directory),
 *   8 (hyperlinks), 133 (prompt marks); DCS ending in q (sixel images,
 *   DECRQSS and XTGETTCAP queries). SOS, PM and APC never pass.
 *
 * The parser follows a DEC/xterm one (C0 controls run inside an escape
 * sequence; ESC, CAN and SUB end a string) and takes the conservative
 * side where terminals differ: an OSC number with anything but digits
 * before its ';' (xterm skips a newline there: "ESC ] 5 LF 2 ;" is OSC
 * 52) is withheld; an ESC followed by a C1 control is dropped whole.
 * It reads the output as UTF-8, as terminals do by default: a C1
 * control is U+0080-U+009F (0xC2 0x80-0x9F), and a stray byte 0x80-0x9F
 * counts as one too. A lone 0xC2, and 0xC0, 0xC1 and 0xF5-0xFF, never
 * valid UTF-8 (0xC0 0x9B is an overlong ESC to a lax decoder), become
 * '?'. Not covered: a terminal set to an 8-bit charset, which takes any
 * byte 0x80-0x9F as a C1 control, also inside what is UTF-8 here.
 *
 * Pure code, no I/O (the unit test links this file alone).
 */
#ifndef KJAIL_TERM_FILTER_H
#define KJAIL_TERM_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes held between calls: an introducer and its head (ESC ] and up to
 * 5 digits, ESC P and its parameters) and a 0xC2 that may start a C1. */
#define TERM_FILTER_HOLD 32
/* term_filter_run may write up to this far ahead of what it has read. */
#define TERM_FILTER_SLACK (TERM_FILTER_HOLD + 1)

struct term_filter {
	unsigned char state;
	unsigned char utf8_need; /* continuation bytes still due */
	bool c2_held;            /* a 0xC2 lead held: it may make a C1 */
	bool string_open;        /* the terminal is inside a passed string */
	bool dcs_inter;          /* the DCS head has an intermediate byte */
	unsigned char ndigits;   /* of the OSC number */
	unsigned num;            /* the OSC number so far */
	unsigned char nheld;     /* held[0..nheld): not yet written */
	char held[TERM_FILTER_HOLD];
	uint64_t withheld; /* control strings withheld */
	char first[12];    /* the first withheld: "OSC 52", "APC"... */
};

/* Filter n bytes at in into out; returns how many were written there.
 * out may be in - TERM_FILTER_SLACK (in place, with room before it). */
size_t term_filter_run(struct term_filter *f, char *out, const char *in, size_t n);
/* The stream ended: what to write last (at most 2 bytes, an ST closing
 * a passed string the terminal would still be in); held bytes drop. */
size_t term_filter_end(struct term_filter *f, char *out);

#endif
