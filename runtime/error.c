#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int kj_failv(struct kj_err *err, const char *part, int errnum, const char *fix, const char *fmt,
	     va_list ap)
{
	char what[320];
	int n;

	vsnprintf(what, sizeof(what), fmt, ap);
	err->exit_code = KJ_EXIT_SETUP;
	snprintf(err->part, sizeof(err->part), "%s", part);
	n = snprintf(err->msg, sizeof(err->msg), "%s", what);
	if (errnum && n >= 0 && (size_t)n < sizeof(err->msg))
		n += snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", strerror(errnum));
	if (fix && n >= 0 && (size_t)n < sizeof(err->msg))
		snprintf(err->msg + n, sizeof(err->msg) - n, " (%s)", fix);
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
	/* One write, so concurrent writers never interleave inside the line. */
	char line[600];
	int n = snprintf(line, sizeof(line), "kjail: %s: %s\n", err->part, err->msg);
	if (n > 0)
		(void)!write(STDERR_FILENO, line,
			     (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

void kj_note(const char *fmt, ...)
{
	char line[600] = "kjail: ";
	va_list ap;
	size_t n = strlen(line);

	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(line);
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
