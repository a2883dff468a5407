/* Where COMMAND's stdin, stdout and stderr go.
 *
 * No terminal of the caller ever reaches the sandbox: a terminal fd is
 * replaced by the sandbox's own pseudo-terminal (pty mode: stdin is a
 * terminal, or --tty) or by a pipe kjail relays (--no-tty). stdout and
 * stderr go through a capped relay with --output-limit; everything else
 * is passed straight through, with no copy.
 */
#ifndef KJAIL_STDIO_H
#define KJAIL_STDIO_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <termios.h>

#include "runtime/config.h"
#include "runtime/error.h"
#include "runtime/guardian.h"
#include "runtime/term_filter.h"

struct relay {
	int from, to;     /* parent-side fds */
	const char *name; /* "stdout", "stderr", "output" (a pty); NULL: input */
	bool capped, open, to_pty;
	bool to_own;  /* to never blocks: kjail's own (O_NONBLOCK set), or a socket */
	bool to_sock; /* ... written with MSG_DONTWAIT */
	char *buf;    /* read, not yet written: buf[off..len) */
	size_t off, len;
	char last;      /* the last byte written */
	uint64_t wrote; /* when it was written (a count of relay writes) */
	bool failed;    /* a write error (not EPIPE): the rest is discarded */
	bool from_tty;  /* the caller's terminal, raw: EIO in the background stops */
	uint64_t limit, passed, dropped;
	uint64_t abandoned; /* output given up: the reader took no more */
	bool to_term;       /* output to the caller's terminal: filtered */
	struct term_filter tf;
};

struct stdio_plan {
	bool pty;
	int child_fd[3];   /* what the command gets as 0, 1, 2; -1: the pty */
	int child_only[3]; /* fds only the child needs (closed in the parent) */
	struct relay relays[3];
	int nrelays;
	int master;  /* pty master in the parent, or -1 */
	int term_fd; /* the caller's terminal (for raw mode and size) */
	bool raw;
	struct termios saved;
	struct guardian guard; /* the terminal's, while raw (stdio.c); or -1, 0 */
	bool limited;          /* --output-limit, for the pty's relay too */
	uint64_t limit;
	const char *abandoned_when; /* "when the timeout expired"... */
};

/* Must fd be relayed, not handed to the command: an inode of the
 * caller's (a file, a named FIFO, a device other than the sandbox's own)
 * or a socket, which carries the host's network namespace? */
bool stdio_fd_needs_relay(int fd);
/* Inside the sandbox, in the command's process: fds 0-2 that are one of
 * the sandbox's device nodes (/dev/null...) reopened from its /dev, a
 * read-only mount, so their metadata is out of the command's reach. */
int stdio_reopen_nodes(void);
/* Is fd a pipe or one of the sandbox's device nodes: what a session takes
 * as an exec's stdio, since kjail's clients relay everything else? */
bool stdio_fd_plain(int fd);
/* Refuse an fd that must not become the command's stdio (a directory). */
int stdio_fd_check(int fd, const char *name, struct kj_err *err);
int stdio_plan_make(const struct kj_config *cfg, struct stdio_plan *io, struct kj_err *err);
/* Parent, after clone: close the child's ends. */
void stdio_parent_close_child_ends(struct stdio_plan *io);
/* init, before COMMAND starts: the caller's terminal settings and window
 * size onto the sandbox's pty. */
void stdio_pty_inherit(const struct stdio_plan *io, int slave);
/* In the sandbox (init, the relay), once COMMAND has its stdio: 0, 1 and
 * 2 (or 0 and 1) onto /dev/null, so no fd of the caller's (a terminal, a
 * pipe) stays inside. */
void stdio_release(bool keep_stderr);
/* Parent: the sandbox's pty master arrived; wire the relays, raw mode. */
int stdio_attach_pty(struct stdio_plan *io, int master, struct kj_err *err);
/* Parent: the caller's terminal (io->term_fd) raw, its settings kept in
 * io->saved and its guardian started; tcsetattr's when (TCSADRAIN...).
 * 0, also when it has no settings to read; -errno if it cannot go raw. */
int stdio_raw_enter(struct stdio_plan *io, int when);
/* Parent, raw mode (runtime/stdio_stop.c): SIGTSTP, SIGTTIN and SIGTTOU
 * are blocked and read by kjail's loop, which calls stdio_stop with
 * them; the terminal is restored, kjail stops, and once continued in the
 * foreground goes raw again and passes the window size on. */
void stdio_stop_block(void);
void stdio_stop_signals(sigset_t *set);
void stdio_stop(struct stdio_plan *io, int sig);
/* Parent: copy the caller's window size to the sandbox's terminal. */
void stdio_resize(struct stdio_plan *io);
/* Parent: give the caller's terminal back as it was. */
void stdio_restore(struct stdio_plan *io);
/* Command child: install 0, 1, 2 (slave is the pty, or -1). */
int stdio_child_install(const struct stdio_plan *io, int slave);

/* The relays never block kjail's loop (its timer and signals): a relay
 * with data pending waits for its destination to take more (POLLOUT),
 * else for its source (POLLIN). relay_poll fills p (fd -1 when !want),
 * relay_service moves data once when p had events. */
void relay_poll(const struct relay *r, bool want, struct pollfd *p);
void relay_service(struct relay *r, short revents);
/* COMMAND has ended and kjail waits no longer (a signal, the timeout):
 * output relays pass on what their destination takes without waiting,
 * and the rest counts as dropped ("when" says why, in relay_report). */
void relay_abandon(struct stdio_plan *io, const char *when);

/* kjail's own fd 2, where its notes go, made an open of its own of the
 * same terminal or pipe, non-blocking (after the sandbox got the
 * caller's): a note then never blocks kjail (runtime/error.c). */
void stdio_own_stderr(void);

/* Does output wait in a relay for its destination (a slow reader)? */
bool relay_pending(const struct stdio_plan *io);
/* Before a note of kjail's: a newline on stderr if the command's last
 * relayed byte there ended no line, so the note starts a line. */
void relay_end_line(struct stdio_plan *io);
/* "kjail: stdout truncated after N bytes (M bytes dropped)" lines. */
void relay_report(const struct stdio_plan *io);

/* write() all n bytes (EINTR retried); false on an error or a short end. */
bool fd_write_all(int fd, const void *data, size_t n);

#endif
