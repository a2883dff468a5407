#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Append s to out (len bytes used of size), each control character as a
 * visible escape: a value with a newline in it ("bogus\nkjail: ok") must
 * not forge a second kjail line. UTF-8 passes as is. An escape that does
 * not fit is left out whole; out stays terminated. Returns the new len. */
static size_t put_escaped(char *out, size_t size, size_t len, const char *s)
{
	for (; *s && len + 1 < size; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[5];
		size_t n;

		if (c >= 0x20 && c != 0x7f)
			esc[0] = (char)c, esc[1] = '\0';
		else if (c == '\n' || c == '\t' || c == '\r')
			snprintf(esc, sizeof(esc), "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
		else
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		n = strlen(esc);
		if (len + n >= size)
			break;
		memcpy(out + len, esc, n);
		len += n;
	}
	out[len] = '\0';
	return len;
}

int kj_failv(struct kj_err *err, const char *part, int errnum, const char *fix, const char *fmt,
	     va_list ap)
{
	char what[320], msg[sizeof(err->msg)];
	int n;

	vsnprintf(what, sizeof(what), fmt, ap);
	err->exit_code = KJ_EXIT_SETUP;
	snprintf(err->part, sizeof(err->part), "%s", part);
	n = snprintf(msg, sizeof(msg), "%s", what);
	if (errnum && n >= 0 && (size_t)n < sizeof(msg))
		n += snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(errnum));
	if (fix && n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, " (%s)", fix);
	put_escaped(err->msg, sizeof(err->msg), 0, msg);
	return errnum ? -errnum : -EINVAL;
}

int kj_fail(struct kj_err *err, const char *part, int errnum, const char *fix, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = kj_failv(err, part, errnum, fix, fmt, ap);
	va_end(ap);
	return rc;
}

void kj_err_print(const struct kj_err *err)
{
	/* One write, so concurrent writers never interleave inside the line;
	 * escaped again for records that came over a channel or a socket. */
	char line[600] = "kjail: ";
	size_t n = strlen(line);

	n = put_escaped(line, sizeof(line) - 1, n, err->part);
	n = put_escaped(line, sizeof(line) - 1, n, ": ");
	n = put_escaped(line, sizeof(line) - 1, n, err->msg);
	line[n++] = '\n';
	(void)!write(STDERR_FILENO, line, n);
}

void kj_note(const char *fmt, ...)
{
	char line[600] = "kjail: ", what[sizeof(line)];
	va_list ap;
	size_t n = strlen(line);

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	n = put_escaped(line, sizeof(line) - 1, n, what);
	line[n++] = '\n';
	(void)!write(STDERR_FILENO, line, n);
}

static long long trace_t0 = -1;

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

void kj_trace_init(void)
{
	const char *t = getenv("KJAIL_TRACE");
	if (t && *t && strcmp(t, "0"))
		trace_t0 = now_us();
}

bool kj_tracing(void)
{
	return trace_t0 >= 0;
}

void kj_trace(const char *step)
{
	char line[128];
	int n;

	if (trace_t0 < 0)
		return;
	n = snprintf(line, sizeof(line), "kjail: trace: %6lld us %s\n", now_us() - trace_t0, step);
	if (n > 0)
		(void)!write(STDERR_FILENO, line, (size_t)n);
}
