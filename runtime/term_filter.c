#include "runtime/term_filter.h"

#include <stdio.h>
#include <string.h>

enum {
	TF_GROUND,   /* text, CSI, other escapes, an allowed string's body pass */
	TF_ESC,      /* an ESC held: what follows decides */
	TF_OSC_HEAD, /* ESC ] and digits held */
	TF_DCS_HEAD, /* ESC P and its parameters held */
	TF_DROP,     /* inside a withheld string, dropped */
	TF_DROP_ESC, /* an ESC inside a withheld string: ST or a new escape */
};

#define ESC 0x1b
#define BEL 0x07
#define CAN 0x18
#define SUB 0x1a
#define C1_DCS 0x90
#define C1_SOS 0x98
#define C1_ST 0x9c
#define C1_OSC 0x9d
#define C1_PM 0x9e
#define C1_APC 0x9f

/* One character as the terminal sees it: a byte, or a C1 control (code
 * 0x80-0x9F) written as one byte or as UTF-8 (0xC2 code). */
struct tok {
	unsigned char code;
	bool c1;
	unsigned char nraw;
	char raw[2];
};

struct sink {
	char *out;
	size_t n;
};

static void put(struct sink *s, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s->out[s->n++] = p[i];
}

static void put_held(struct term_filter *f, struct sink *s)
{
	put(s, f->held, f->nheld);
	f->nheld = 0;
}

static bool hold(struct term_filter *f, const struct tok *t)
{
	if (f->nheld + t->nraw > TERM_FILTER_HOLD)
		return false;
	memcpy(f->held + f->nheld, t->raw, t->nraw);
	f->nheld += t->nraw;
	return true;
}

/* The OSC numbers that act on the screen only (the header's list). */
static bool osc_allowed(unsigned num)
{
	return num <= 2 || num == 4 || num == 7 || num == 8 || (num >= 10 && num <= 19) ||
	       num == 104 || (num >= 110 && num <= 119) || num == 133;
}

/* Withhold the string just begun: drop what is held, and end a passed
 * string the terminal is still in with an ST of the introducer's form
 * (ESC \ for ESC forms, which dropped 2 bytes or more; U+009C for a UTF-8
 * C1), never longer than what was dropped, so the output never outgrows
 * the input and the filter runs in place. t: the C1 token that began it,
 * or NULL for an ESC form. */
static void withhold(struct term_filter *f, struct sink *s, const char *kind, const struct tok *t)
{
	/* Not after a stray C1 byte: a UTF-8 terminal never took it for
	 * one, so it is still in the passed string, and a stray ST would
	 * not end that either. */
	if (f->string_open && (!t || t->nraw == 2)) {
		put(s, t ? "\xc2\x9c" : "\x1b\\", 2);
		f->string_open = false;
	}
	f->nheld = 0;
	if (!f->withheld++)
		snprintf(f->first, sizeof(f->first), "%s", kind);
	f->state = TF_DROP;
}

static const char *c1_kind(unsigned char code)
{
	return code == C1_OSC   ? "C1 OSC"
	       : code == C1_DCS ? "C1 DCS"
	       : code == C1_APC ? "C1 APC"
	       : code == C1_PM  ? "C1 PM"
				: "C1 SOS";
}

static bool c1_starts_string(const struct tok *t)
{
	return t->c1 && (t->code == C1_OSC || t->code == C1_DCS || t->code == C1_SOS ||
			 t->code == C1_PM || t->code == C1_APC);
}

/* A C0 control the terminal runs without leaving an escape sequence
 * (ESC, CAN and SUB end one; DEL is ignored there). */
static bool c0_runs_inside(const struct tok *t)
{
	return !t->c1 && (t->code < 0x20 || t->code == 0x7f) && t->code != ESC && t->code != CAN &&
	       t->code != SUB;
}

static void osc_decide(struct term_filter *f, struct sink *s)
{
	char kind[12];

	if (f->ndigits && osc_allowed(f->num)) {
		put_held(f, s);
		f->string_open = true;
		f->state = TF_GROUND; /* its body passes as text does */
		return;
	}
	snprintf(kind, sizeof(kind), f->ndigits ? "OSC %u" : "OSC", f->num);
	withhold(f, s, kind, NULL);
}

/* ESC held; t follows it. */
static void after_esc(struct term_filter *f, struct sink *s, const struct tok *t)
{
	if (t->c1) {
		/* ESC and then a C1 control: no program writes that, and
		 * terminals differ on which of the two counts (one that kept
		 * the ESC would join it to the byte after a dropped string).
		 * Both are dropped, a passed string ended in their place. */
		f->nheld = 0;
		if (c1_starts_string(t)) {
			withhold(f, s, c1_kind(t->code), NULL);
			return;
		}
		if (f->string_open)
			put(s, "\x1b\\", 2);
		f->string_open = false;
		f->state = TF_GROUND;
		return;
	}
	if (c0_runs_inside(t)) {
		/* It runs now and the ESC still waits; but inside a passed
		 * string the ESC ends the string first, so the C0 cannot go
		 * before it (it would land in the string): dropped there. */
		if (!f->string_open)
			put(s, t->raw, t->nraw);
	} else if (t->code == ESC) {
		/* ESC ESC: the second starts over, the first does nothing */
	} else if (t->code == ']') {
		hold(f, t);
		f->num = f->ndigits = 0;
		f->state = TF_OSC_HEAD;
	} else if (t->code == 'P') {
		hold(f, t);
		f->dcs_inter = false;
		f->state = TF_DCS_HEAD;
	} else if (t->code == 'X' || t->code == '^' || t->code == '_') {
		withhold(f, s, t->code == 'X' ? "SOS" : t->code == '^' ? "PM" : "APC", NULL);
	} else {
		/* ST, CSI, a charset or any other escape: passes, and ends a
		 * string the terminal was in. */
		put_held(f, s);
		put(s, t->raw, t->nraw);
		f->string_open = false;
		f->state = TF_GROUND;
	}
}

/* The OSC's number so far held; false: t was not taken, and goes on to
 * the state decided (a terminator, or anything withheld). */
static bool osc_head(struct term_filter *f, struct sink *s, const struct tok *t)
{
	if (!t->c1 && t->code >= '0' && t->code <= '9' && f->ndigits < 5 && hold(f, t)) {
		f->num = f->num * 10 + (unsigned)(t->code - '0');
		f->ndigits++;
		return true;
	}
	if ((!t->c1 && (t->code == ';' || t->code == BEL || t->code == ESC)) ||
	    (t->c1 && t->code == C1_ST))
		osc_decide(f, s);
	else /* a C0 control xterm would skip, a sixth digit: terminals
	      * disagree there, so withheld */
		withhold(f, s, "OSC", NULL);
	return false;
}

/* The DCS's parameters, one intermediate and its final byte; false: t
 * was not taken (the string is withheld, t goes on to TF_DROP). */
static bool dcs_head(struct term_filter *f, struct sink *s, const struct tok *t)
{
	unsigned char c = t->code;

	if (!t->c1 && !f->dcs_inter && ((c >= '0' && c <= '9') || c == ';' || c == ':') &&
	    hold(f, t))
		return true;
	if (!t->c1 && c >= 0x20 && c <= 0x2f && !f->dcs_inter && hold(f, t)) {
		f->dcs_inter = true;
		return true;
	}
	if (!t->c1 && c == 'q' &&
	    (!f->dcs_inter || f->held[f->nheld - 1] == '$' || f->held[f->nheld - 1] == '+') &&
	    hold(f, t)) {
		put_held(f, s);
		f->string_open = true;
		f->state = TF_GROUND; /* its body passes as text does */
		return true;
	}
	withhold(f, s, "DCS", NULL);
	return false;
}

static void ground(struct term_filter *f, struct sink *s, const struct tok *t)
{
	if (!t->c1 && t->code == ESC) {
		f->nheld = 0;
		hold(f, t);
		f->state = TF_ESC;
	} else if (c1_starts_string(t)) {
		withhold(f, s, c1_kind(t->code), t);
	} else {
		put(s, t->raw, t->nraw);
		/* BEL, CAN, SUB and any C1 end (or cut) a string. */
		if (t->c1 || t->code == BEL || t->code == CAN || t->code == SUB)
			f->string_open = false;
	}
}

static void drop(struct term_filter *f, const struct tok *t)
{
	if (!t->c1 && t->code == ESC)
		f->state = TF_DROP_ESC;
	else if ((!t->c1 && (t->code == BEL || t->code == CAN || t->code == SUB)) ||
		 (t->c1 && t->code == C1_ST))
		f->state = TF_GROUND;
}

/* Feed one token; a head that decides hands it on to the state chosen. */
static void step(struct term_filter *f, struct sink *s, const struct tok *t)
{
	for (;;) {
		switch (f->state) {
		case TF_GROUND:
			ground(f, s, t);
			return;
		case TF_ESC:
			after_esc(f, s, t);
			return;
		case TF_OSC_HEAD:
			if (osc_head(f, s, t))
				return;
			break;
		case TF_DCS_HEAD:
			if (dcs_head(f, s, t))
				return;
			break;
		case TF_DROP:
			drop(f, t);
			return;
		default: /* TF_DROP_ESC */
			if (!t->c1 && t->code == '\\') {
				f->state = TF_GROUND;
				return;
			}
			/* ESC and something else: the string is cut, and a new
			 * escape begins with that ESC. */
			f->nheld = 0;
			f->held[f->nheld++] = ESC;
			f->state = TF_ESC;
			break;
		}
	}
}

static void byte_tok(struct term_filter *f, struct sink *s, unsigned char b)
{
	struct tok t = {.code = b, .nraw = 1, .raw = {(char)b}};

	step(f, s, &t);
}

static void c1_tok(struct term_filter *f, struct sink *s, unsigned char code, bool encoded)
{
	struct tok t = {.code = code, .c1 = true, .nraw = encoded ? 2 : 1};

	t.raw[0] = encoded ? (char)0xc2 : (char)code;
	t.raw[1] = (char)code;
	step(f, s, &t);
}

size_t term_filter_run(struct term_filter *f, char *out, const char *in, size_t n)
{
	struct sink s = {.out = out};

	for (size_t i = 0; i < n; i++) {
		unsigned char b = (unsigned char)in[i];

		if (f->c2_held) {
			f->c2_held = false;
			if (b >= 0x80 && b <= 0x9f) {
				c1_tok(f, &s, b, true); /* U+0080-U+009F */
				continue;
			}
			if (b >= 0xa0 && b <= 0xbf) {
				byte_tok(f, &s, 0xc2);
				byte_tok(f, &s, b);
				continue;
			}
			/* 0xC2 alone, invalid: '?', so that it never joins a
			 * byte written after something dropped into a C1. */
			byte_tok(f, &s, '?');
		}
		if (f->utf8_need) {
			if (b >= 0x80 && b <= 0xbf) {
				f->utf8_need--;
				byte_tok(f, &s, b);
				continue;
			}
			f->utf8_need = 0;
		}
		if (b == 0xc2)
			f->c2_held = true;
		else if (b >= 0x80 && b <= 0x9f)
			c1_tok(f, &s, b, false); /* a stray byte: C1 in an 8-bit mode */
		else if (b == 0xc0 || b == 0xc1 || b >= 0xf5)
			byte_tok(f, &s, '?'); /* never UTF-8; 0xC0 0x9B: an overlong ESC */
		else {
			f->utf8_need = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : b >= 0xc3 ? 1 : 0;
			byte_tok(f, &s, b);
		}
	}
	return s.n;
}

size_t term_filter_end(struct term_filter *f, char *out)
{
	size_t n = 0;

	if (f->string_open) {
		out[n++] = ESC;
		out[n++] = '\\';
	}
	f->string_open = f->c2_held = false;
	f->nheld = f->utf8_need = 0;
	f->state = TF_GROUND;
	return n;
}
