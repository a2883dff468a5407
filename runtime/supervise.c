/* The parent while COMMAND runs: relay output (capped), forward signals,
 * enforce the timeout, and turn the sandbox's end into an exit status. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/sandbox.h"
#include "runtime/signals.h"
#include "runtime/validate.h"

enum { P_CHILD, P_SIGNAL, P_TIMER, P_MOUNTS, P_RENAMES, P_RELAY };

static void arm(int tfd, uint64_t ms)
{
	struct itimerspec its = {.it_value = {.tv_sec = (time_t)(ms / 1000),
					      .tv_nsec = (long)(ms % 1000) * 1000000L}};
	if (ms == 0)
		its.it_value.tv_nsec = 1;
	(void)timerfd_settime(tfd, 0, &its, NULL);
}

static void tell_init(struct sandbox *sb, char target, int sig)
{
	unsigned char msg[2] = {(unsigned char)target, (unsigned char)sig};
	(void)!write(sb->ctl[1], msg, sizeof(msg));
}

/* runtime/signals.h's, and SIGWINCH (the terminal's size, for the pty). */
static void forwarded_signals(sigset_t *set)
{
	kj_sigset_from_mask(set, KJ_SIGS_FORWARDED);
	sigaddset(set, SIGWINCH);
}

static void on_signal(struct sandbox *sb, bool exited, uint32_t sig, const char **give_up)
{
	if (sig == SIGWINCH) {
		stdio_resize(&sb->io);
		return;
	}
	if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
		stdio_stop(&sb->io, (int)sig); /* raw mode only; COMMAND runs on */
		return;
	}
	if (!exited)
		tell_init(sb, INIT_TO_COMMAND, (int)sig);
	if (kj_sig_ends((int)sig))
		*give_up = kj_told_to_end(sig);
}

void supervise_block_signals(void)
{
	sigset_t set;

	forwarded_signals(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

int supervise(struct sandbox *sb)
{
	const struct kj_config *cfg = sb->cfg;
	struct pollfd pfd[P_RELAY + 3];
	sigset_t set;
	siginfo_t si = {0};
	bool exited = false, killing = false;
	const char *give_up = NULL; /* why the rest of the output is dropped */
	int sfd, tfd = -1, rc;

	forwarded_signals(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN); /* a closed reader must not kill kjail */
	stdio_own_stderr();       /* the sandbox has the caller's own by now */
	/* Blocked since raw mode began (stdio_raw_enter). */
	if (sb->io.raw)
		stdio_stop_signals(&set);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (cfg->timeout_ms) {
		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		arm(tfd, cfg->timeout_ms);
	}
	pfd[P_CHILD] = (struct pollfd){.fd = sb->pidfd, .events = POLLIN};
	pfd[P_SIGNAL] = (struct pollfd){.fd = sfd, .events = POLLIN};
	pfd[P_TIMER] = (struct pollfd){.fd = tfd, .events = POLLIN};
	pfd[P_MOUNTS] = (struct pollfd){.fd = sb->mounts.fd, .events = POLLPRI};
	pfd[P_RENAMES] = (struct pollfd){.fd = sb->mounts.renames, .events = POLLIN};

	for (;;) {
		bool relays_open = false;
		const char *why;

		for (int i = 0; i < sb->io.nrelays; i++) {
			struct relay *r = &sb->io.relays[i];
			/* Output relays run until end of file even after the
			 * sandbox ended, so its last bytes are not lost. */
			bool want = r->open && (r->name || !exited);
			relay_poll(r, want, &pfd[P_RELAY + i]);
			relays_open |= (want && r->name) || (r->name && r->off < r->len);
		}
		if (exited && !relays_open)
			break;
		/* Told to end, or the timeout expired (or killed the
		 * sandbox): what the reader does not take at once is dropped. */
		why = exited ? kj_reader_given_up(give_up, sb->timed_out) : NULL;
		if (why) {
			relay_abandon(&sb->io, why);
			break;
		}
		if (poll(pfd, (nfds_t)P_RELAY + (nfds_t)sb->io.nrelays,
			 exited ? -1 : mount_watch_wait_ms(&sb->mounts)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!exited && pfd[P_CHILD].revents) {
			if (waitid(P_PIDFD, (id_t)sb->pidfd, &si, WEXITED) == 0)
				exited = true;
			pfd[P_CHILD].fd = -1;
			/* No more watching: a rename event left unread
			 * would wake every poll. */
			pfd[P_RENAMES].fd = -1;
		}
		/* The host took a mask or bind away (runtime/mount_watch.c):
		 * the sandbox must not go on seeing what it hid. */
		if (!exited && pfd[P_MOUNTS].fd >= 0 &&
		    mount_watch_lost(&sb->mounts, pfd[P_MOUNTS].revents, pfd[P_RENAMES].revents)) {
			sb->mounts_lost = true;
			(void)syscall(SYS_pidfd_send_signal, sb->pidfd, SIGKILL, NULL, 0);
			pfd[P_MOUNTS].fd = pfd[P_RENAMES].fd = -1;
		}
		if (pfd[P_SIGNAL].revents) {
			struct signalfd_siginfo ssi;
			if (read(sfd, &ssi, sizeof(ssi)) == sizeof(ssi))
				on_signal(sb, exited, ssi.ssi_signo, &give_up);
		}
		if (tfd >= 0 && pfd[P_TIMER].revents) {
			uint64_t ticks;
			(void)!read(tfd, &ticks, sizeof(ticks));
			if (exited) {
				give_up = KJ_TIMEOUT_WHEN; /* COMMAND's own status stays */
			} else if (!killing) {
				/* Phase 1: every process in the sandbox gets SIGTERM. */
				sb->timed_out = killing = true;
				tell_init(sb, INIT_TO_ALL, SIGTERM);
				arm(tfd, cfg->kill_grace_ms);
			} else {
				/* Phase 2: SIGKILL to init takes the pid namespace
				 * down, daemonized grandchildren included. */
				(void)syscall(SYS_pidfd_send_signal, sb->pidfd, SIGKILL, NULL, 0);
			}
		}
		for (int i = 0; i < sb->io.nrelays; i++)
			if (pfd[P_RELAY + i].fd >= 0)
				relay_service(&sb->io.relays[i], pfd[P_RELAY + i].revents);
	}
	close(sfd);
	if (tfd >= 0)
		close(tfd);
	if (sb->timed_out) {
		char d[32];
		format_duration(cfg->timeout_ms, d, sizeof(d));
		stdio_restore(&sb->io);
		relay_end_line(&sb->io);
		kj_note("timed out after %s and was killed", d);
		return KJ_EXIT_TIMEOUT;
	}
	rc = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
	return rc;
}
