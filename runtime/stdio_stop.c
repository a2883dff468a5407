/* kjail told to stop (SIGTSTP, SIGTTIN, SIGTTOU) while the caller's
 * terminal is raw. By default such a signal stopped kjail with the
 * terminal as raw mode left it: no echo, no ^C, the caller's shell
 * unusable until kjail was continued. As ssh and tmux's client do: the
 * settings go back, kjail stops (its shell sees a stopped job: fg, bg),
 * and once continued in the foreground the terminal goes raw again and
 * the window size, which may have changed meanwhile, goes on to the
 * command's terminal (SIGWINCH there).
 *
 * COMMAND keeps running: it has a terminal of its own (a ^Z typed goes
 * to it, and its job control with it), which kjail's stop must not
 * disturb; stopped from outside, an interactive shell inside would see
 * its foreground job stop behind its back. It waits on its own for input,
 * and once the sandbox's terminal is full, for kjail to read its output.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/error.h"
#include "runtime/stdio.h"

void stdio_stop_signals(sigset_t *set)
{
	sigaddset(set, SIGTSTP);
	sigaddset(set, SIGTTIN);
	sigaddset(set, SIGTTOU);
}

void stdio_stop_block(void)
{
	sigset_t set;

	sigemptyset(&set);
	stdio_stop_signals(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Stop kjail with sig, as the signal's default action does. True once
 * kjail has been stopped and continued; false if the kernel discarded the
 * stop (an orphaned process group: no shell could ever continue it). A
 * SIGCONT, held blocked meanwhile, tells which. */
static bool stop_self(int sig)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
	struct timespec now = {0, 0};
	sigset_t one, cont, prev;
	bool continued;

	sigemptyset(&cont);
	sigaddset(&cont, SIGCONT);
	sigprocmask(SIG_BLOCK, &cont, &prev);
	while (sigtimedwait(&cont, NULL, &now) == SIGCONT)
		; /* an earlier one */
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigaction(sig, &dfl, &old);
	(void)kill(getpid(), sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL); /* delivered here: kjail stops */
	sigprocmask(SIG_BLOCK, &one, NULL);
	sigaction(sig, &old, NULL);
	continued = sigtimedwait(&cont, NULL, &now) == SIGCONT;
	sigprocmask(SIG_SETMASK, &prev, NULL);
	return continued;
}

/* Is kjail's process group the terminal's foreground one? */
static bool foreground(const struct stdio_plan *io)
{
	return tcgetpgrp(io->term_fd) == getpgrp();
}

void stdio_stop(struct stdio_plan *io, int sig)
{
	bool was_raw = io->raw, stopped;
	int e;

	/* The settings back (TCSANOW, allowed in the background too: SIGTTOU
	 * is blocked), and the guardian gone: kill -9 while stopped leaves
	 * the terminal as the caller had it. */
	stdio_restore(io);
	stopped = stop_self(sig);
	if (!was_raw)
		return;
	/* Continued in the background (bg): raw mode there would take the
	 * terminal from the caller's shell. Stopped again, as a background
	 * tcsetattr is (SIGTTOU), until fg. */
	while (stopped && !foreground(io))
		stopped = stop_self(SIGTTOU);
	if (!stopped && !foreground(io)) {
		/* No job control to wait for (orphaned): the terminal stays
		 * the caller's, and a read refused in the background ends
		 * the input, as it would without raw mode. */
		for (int i = 0; i < io->nrelays; i++)
			io->relays[i].from_tty = false;
		return;
	}
	/* The caller's settings are read again: its shell may have changed
	 * them while kjail was stopped. TCSANOW: TCSADRAIN would wait for a
	 * terminal held by ^S, with kjail's loop stalled. */
	if ((e = stdio_raw_enter(io, TCSANOW)) < 0)
		kj_note("tty: set the terminal to raw mode again: %s (keys now reach the command "
			"as the terminal's own settings pass them)",
			strerror(-e));
	stdio_resize(io);
}
