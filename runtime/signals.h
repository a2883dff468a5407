/* The signals kjail passes on to COMMAND, one definition for the one-shot
 * supervisor (runtime/supervise.c), the session client (session_client.c)
 * and the quick client, which runs before libc (session_quick.c): masks
 * in the kernel's layout, bit N-1 for signal N. */
#ifndef KJAIL_SIGNALS_H
#define KJAIL_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define KJ_SIGBIT(sig) (1ULL << ((sig)-1))

/* kjail's own: it cuts short a write that would block (runtime/error.c,
 * kj_write_bounded), so it is never passed on. SIGRTMAX on Linux. */
#define KJ_SIG_WRITE_TIMER 64

/* Passed on, and they mean "end": after COMMAND ended, kjail then waits
 * for no slow reader (the rest of the output is dropped, and said). */
#define KJ_SIGS_END \
	(KJ_SIGBIT(SIGINT) | KJ_SIGBIT(SIGTERM) | KJ_SIGBIT(SIGHUP) | KJ_SIGBIT(SIGQUIT))

/* Passed on, meaning nothing to kjail. By default each would kill kjail
 * alone (SIGPWR, SIGVTALRM and SIGIO did), leaving COMMAND running until
 * the parent-death signal and the caller's terminal in raw mode. The
 * real-time signals from 34 on (glibc keeps 32 and 33 for itself) too.
 * Not here: the faults (SIGSEGV...), SIGSYS, SIGTRAP, SIGXCPU, SIGXFSZ,
 * which are kjail's own, and the stop signals. */
#define KJ_SIGS_PASSED                                                                         \
	(KJ_SIGBIT(SIGUSR1) | KJ_SIGBIT(SIGUSR2) | KJ_SIGBIT(SIGALRM) | KJ_SIGBIT(SIGPWR) |    \
	 KJ_SIGBIT(SIGVTALRM) | KJ_SIGBIT(SIGPROF) | KJ_SIGBIT(SIGIO) | KJ_SIGBIT(SIGSTKFLT) | \
	 ((~0ULL << 33) & ~KJ_SIGBIT(KJ_SIG_WRITE_TIMER)))

#define KJ_SIGS_FORWARDED (KJ_SIGS_END | KJ_SIGS_PASSED)

/* Does sig mean "end" (KJ_SIGS_END)? Such a signal is followed by
 * SIGCONT wherever it is delivered (the sandbox's init, the host
 * profile's keeper, a session's init): a stopped process sees it only
 * once it runs again, so a command that stopped itself outlived every
 * signal but the timeout's SIGKILL. */
static inline bool kj_sig_ends(int sig)
{
	return sig > 0 && sig < 65 && (KJ_SIGS_END & KJ_SIGBIT(sig));
}

/* A session exec's client sends the timeout's SIGTERM with this in the
 * message's a (session.h, SESSION_SIGNAL): once the command ends, its
 * session's init kills what is left of its process group and session, as
 * a one-shot run's end takes its whole pid namespace down. */
#define KJ_SIGNAL_TIMEOUT 1

/* Once told to end (SIGTERM, SIGINT, SIGHUP, SIGQUIT: forwarded while
 * COMMAND runs) or once the timeout expired, kjail waits for no reader
 * after COMMAND ended: a reader that never reads must not keep it alive.
 * When, for the note on what was dropped. */
static inline const char *kj_told_to_end(uint32_t sig)
{
	switch (sig) {
	case SIGINT:
		return "when kjail got SIGINT";
	case SIGHUP:
		return "when kjail got SIGHUP";
	case SIGQUIT:
		return "when kjail got SIGQUIT";
	default:
		return "when kjail got SIGTERM";
	}
}

#define KJ_TIMEOUT_WHEN "when the timeout expired"

/* After COMMAND ended: why kjail no longer waits for a slow reader (told
 * to end, or the timeout expired or killed COMMAND), or NULL while it
 * still does. One rule for the one-shot supervisor and the session
 * client. */
static inline const char *kj_reader_given_up(const char *told, bool timed_out)
{
	return told ? told : timed_out ? KJ_TIMEOUT_WHEN : NULL;
}

/* A sigset_t of the signals in mask (not for the quick client: libc). */
static inline void kj_sigset_from_mask(sigset_t *set, uint64_t mask)
{
	sigemptyset(set);
	for (int sig = 1; sig <= 64; sig++)
		if (mask & KJ_SIGBIT(sig))
			sigaddset(set, sig);
}

#endif
