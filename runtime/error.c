#include "error.h"
#include "runtime/signals.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
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

/* The fix for an error whose caller knows none better: what to do about
 * the errno itself. Principle: every failure line says what to do. */
static const char *errno_fix(int errnum)
{
	switch (errnum) {
	case EACCES:
		return "check the path's permissions and owner: the caller may not use it";
	case EPERM:
		return "the kernel or a security module refused it; kjail doctor shows what this host allows";
	case ENOENT:
		return "check that the path exists";
	case ENOTDIR:
		return "a component of the path is not a directory: check the path";
	case EISDIR:
		return "it is a directory: name a file";
	case ELOOP:
		return "a symbolic link is in the way or loops: name the real path";
	case ENAMETOOLONG:
		return "use a shorter path";
	case ENOMEM:
	case ENOBUFS:
		return "the host is short of memory: free some and retry";
	case EMFILE:
		return "raise the open-file limit: ulimit -n";
	case ENFILE:
		return "the host's file table is full: close files and retry";
	case EAGAIN:
		return "the host is short of processes or memory: retry, or raise the limit that ran out";
	case ENOSPC:
	case EDQUOT:
		return "a file system or a kernel count is full: free some, or raise its limit";
	case EROFS:
		return "it is on a read-only file system: choose a writable place";
	case ENOSYS:
	case EOPNOTSUPP:
	case ENODEV:
		return "this kernel lacks it; kjail doctor shows what this host supports";
	case EBUSY:
		return "something else holds it: retry once it is free";
	case EEXIST:
		return "it exists already: remove it or choose another name";
	case ESRCH:
	case EPIPE:
	case ECONNRESET:
	case ECONNREFUSED:
		return "the other side ended first: retry";
	case ETIMEDOUT:
		return "it did not answer in time: retry";
	case EINTR:
		return "a signal interrupted it: retry";
	default:
		return "kjail doctor shows whether this host can run a sandbox";
	}
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
	err->errno_fix = !fix && errnum;
	if (err->errno_fix)
		fix = errno_fix(errnum);
	if (fix && *fix && n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, " (%s)", fix);
	put_escaped(err->msg, sizeof(err->msg), 0, msg);
	return errnum ? -errnum : -EINVAL;
}

void kj_exec_fail(struct kj_err *err, int e, const char *argv0)
{
	kj_fail(err, "exec", e, "", "%s", argv0);
	err->exit_code = e == ENOENT ? KJ_EXIT_NOTFOUND : KJ_EXIT_NOEXEC;
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

static void on_write_timer(int sig)
{
	(void)sig; /* only to interrupt the write (no SA_RESTART) */
}

static timer_t write_timer;
static int write_timer_made; /* 1 made, -1 could not be */

void kj_write_timer_init(void)
{
	if (!write_timer_made) {
		struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL,
				      .sigev_signo = KJ_SIG_WRITE_TIMER};
		struct sigaction sa = {.sa_handler = on_write_timer};
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, KJ_SIG_WRITE_TIMER);
		write_timer_made =
			sigaction(KJ_SIG_WRITE_TIMER, &sa, NULL) == 0 &&
					sigprocmask(SIG_UNBLOCK, &set, NULL) == 0 &&
					timer_create(CLOCK_MONOTONIC, &ev, &write_timer) == 0
				? 1
				: -1;
	}
}

ssize_t kj_write_bounded(int fd, const void *buf, size_t n, int ms)
{
	struct itimerspec on = {.it_value = {.tv_sec = ms / 1000,
					     .tv_nsec = (long)(ms % 1000) * 1000000L}},
			  off = {0};
	ssize_t w;
	int e;

	kj_write_timer_init();
	if (write_timer_made < 0)
		return write(fd, buf, n);
	(void)timer_settime(write_timer, 0, &on, NULL);
	w = write(fd, buf, n);
	e = errno;
	(void)timer_settime(write_timer, 0, &off, NULL);
	errno = e;
	return w;
}

/* One write, so concurrent writers never interleave inside a line. A
 * terminal stopped by ^S or a pipe nobody reads gets a second for the
 * line (non-blocking once stdio_own_stderr made fd 2 kjail's own; else
 * a bounded write), then it is dropped: kjail ends (on --timeout, on a
 * signal) whatever its reader does. */
static void put_line(const char *line, size_t n)
{
	int waited_ms = 0;

	while (n && waited_ms < 1000) {
		ssize_t w = kj_write_bounded(STDERR_FILENO, line, n, 1000 - waited_ms);
		if (w > 0) {
			line += w;
			n -= (size_t)w;
		} else if (w < 0 && errno == EAGAIN) {
			struct pollfd p = {.fd = STDERR_FILENO, .events = POLLOUT};
			(void)poll(&p, 1, 100);
			waited_ms += 100;
		} else {
			return; /* EINTR: the second is up; or a real error */
		}
	}
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
	put_line(line, n);
}

int kj_usage_error(const char *usage, const char *fmt, ...)
{
	struct kj_err err = {0};
	va_list ap;

	va_start(ap, fmt);
	kj_failv(&err, "option", 0, usage, fmt, ap);
	va_end(ap);
	kj_err_print(&err);
	return KJ_EXIT_SETUP;
}

/* The notes said so far, one a line, without "kjail: " (kj_notes). */
static char notes[1024];
static size_t notes_len;

const char *kj_notes(void)
{
	return notes;
}

void kj_note(const char *fmt, ...)
{
	char line[600] = "kjail: ", what[sizeof(line)];
	va_list ap;
	size_t n = strlen(line), w;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* Kept whole, or not at all, for a process whose stderr is not the
	 * user's: a session's supervisor (on /dev/null) hands them to kjail
	 * create, which printed none, so a session ran unlimited, with the
	 * host's network or without Landlock without a word. */
	w = strlen(what);
	if (notes_len + w + 1 < sizeof(notes)) {
		memcpy(notes + notes_len, what, w);
		notes_len += w;
		notes[notes_len++] = '\n';
		notes[notes_len] = '\0';
	}
	n = put_escaped(line, sizeof(line) - 1, n, what);
	line[n++] = '\n';
	put_line(line, n);
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
