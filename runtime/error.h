/* One error idiom for all of kjail.
 *
 * A function that can fail returns 0 or a negative errno and fills a
 * struct kj_err. The user sees exactly one line:
 *     kjail: <part>: <what failed>: <errno text> (<what to do>)
 * The setup child inside the namespaces sends the same record to the
 * parent over a socket, so failures there are reported just as cleanly.
 */
#ifndef KJAIL_ERROR_H
#define KJAIL_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <sys/types.h>

#define KJ_EXIT_SETUP 125 /* kjail itself failed: bad option, setup failure */
#define KJ_EXIT_TIMEOUT 124
#define KJ_EXIT_NOEXEC 126
#define KJ_EXIT_NOTFOUND 127

struct kj_err {
	int exit_code;  /* what kjail exits with: 125 unless set otherwise */
	char part[24];  /* "mount", "net", "seccomp", "option" ... */
	char msg[488];  /* "<what failed>: <errno text> (<fix>)" */
	bool errno_fix; /* <fix> is the errno's own (the code knew none better) */
};

/* Fill err and return -errnum (or -EINVAL when errnum is 0).
 * errnum 0 leaves out the errno text; fix NULL means the errno's own
 * (errno_fix in error.c), or none when errnum is 0; fix "" means none. */
int kj_fail(struct kj_err *err, const char *part, int errnum, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int kj_failv(struct kj_err *err, const char *part, int errnum, const char *fix, const char *fmt,
	     va_list ap) __attribute__((format(printf, 5, 0)));
/* COMMAND could not be executed (errno e): "exec: ARGV0: <errno text>",
 * exit 127 when not found, else 126, as a shell says it, with no fix: it
 * is the command's failure, not the sandbox's. */
void kj_exec_fail(struct kj_err *err, int e, const char *argv0);

/* write(2), but given up after ms when fd takes nothing: -1 and EINTR
 * (or what it wrote until then). For the caller's own terminal or pipe,
 * which kjail cannot make non-blocking: a terminal stopped by ^S, a
 * reader that stopped reading, must not keep kjail from its timeout. */
ssize_t kj_write_bounded(int fd, const void *buf, size_t n, int ms);
/* Its timer and signal (KJ_SIG_WRITE_TIMER, then a no-op to kjail). */
void kj_write_timer_init(void);

/* Print the record as one line on stderr. */
void kj_err_print(const struct kj_err *err);

/* A subcommand's usage error: one line in the house format ("kjail:
 * option: <fmt> (<usage>)"), the arguments escaped (a newline in one
 * must not forge a second kjail line); returns KJ_EXIT_SETUP. */
int kj_usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print "kjail: <fmt>" as one line on stderr (notes and warnings). */
void kj_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Every note kj_note said so far (while they fit), one a line, without
 * the "kjail: " prefix; "" for none. */
const char *kj_notes(void);

/* KJAIL_TRACE=1: print "kjail: trace: <us since start> <step>" to stderr,
 * so every millisecond of start-up can be accounted for (make bench). */
void kj_trace_init(void);
void kj_trace(const char *step);
bool kj_tracing(void); /* KJAIL_TRACE is on */

#endif
