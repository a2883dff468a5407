#include "runtime/stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

/* The caller's stdout or stderr, where a write can block: a terminal
 * held by ^S or not read (a stalled ssh), a pipe to a slow reader, a
 * socket. A blocked write stalled kjail's loop, so --timeout and SIGTERM
 * never acted (POLLOUT promises a terminal no room, a pipe only
 * PIPE_BUF). The caller's open file is shared with other processes and
 * cannot be made non-blocking; kjail opens its own of the same terminal
 * or pipe (/proc/self/fd), non-blocking, and sends to a socket with
 * MSG_DONTWAIT. A pty master is never reopened (that would make a new
 * pty); it, and anything else, keeps the bounded write. */
static int reopen_nonblocking(int fd)
{
	char path[32];
	struct stat st;
	int ptn;

	if (fstat(fd, &st) < 0 ||
	    !(S_ISFIFO(st.st_mode) || (isatty(fd) && ioctl(fd, TIOCGPTN, &ptn) < 0)))
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

static void own_destination(struct relay *r)
{
	struct stat st;
	int fd;

	if (fstat(r->to, &st) == 0 && S_ISSOCK(st.st_mode)) {
		r->to_sock = r->to_own = true;
		return;
	}
	if ((fd = reopen_nonblocking(r->to)) >= 0) {
		r->to = fd; /* kjail's own open: closed when kjail ends */
		r->to_own = true;
	}
}

void stdio_own_stderr(void)
{
	int fd = reopen_nonblocking(STDERR_FILENO);

	kj_write_timer_init();
	if (fd >= 0 && dup2(fd, STDERR_FILENO) == STDERR_FILENO)
		close(fd);
	else if (fd >= 0)
		close(fd);
}

static void add_relay(struct stdio_plan *io, int from, int to, const char *name,
		      const struct kj_config *cfg)
{
	struct relay *r = &io->relays[io->nrelays++];

	memset(r, 0, sizeof(*r));
	r->from = from;
	r->to = to;
	r->name = name;
	r->open = true;
	r->capped = name && cfg->output_limited;
	r->limit = cfg->output_limit;
	/* The terminal emulator is the host's: control strings that act
	 * there (the clipboard, files, programmed keys) are withheld
	 * (runtime/term_filter.h). A file or a pipe gets every byte. */
	r->to_term = name && isatty(to);
	if (name)
		own_destination(r);
}

/* The device nodes every sandbox has in /dev (mounts/dev.c). */
static const struct {
	unsigned major_nr, minor_nr;
	const char *path;
} sandbox_nodes[] = {
	{1, 3, "/dev/null"},   {1, 5, "/dev/zero"},    {1, 7, "/dev/full"},
	{1, 8, "/dev/random"}, {1, 9, "/dev/urandom"},
};

static const char *sandbox_node(const struct stat *st)
{
	if (!S_ISCHR(st->st_mode))
		return NULL;
	for (size_t i = 0; i < sizeof(sandbox_nodes) / sizeof(sandbox_nodes[0]); i++)
		if (major(st->st_rdev) == sandbox_nodes[i].major_nr &&
		    minor(st->st_rdev) == sandbox_nodes[i].minor_nr)
			return sandbox_nodes[i].path;
	return NULL;
}

bool stdio_fd_needs_relay(int fd)
{
	struct stat st;
	struct statfs sf;

	/* An fd's metadata is its inode's, and the command may change what
	 * its owner may (chmod, utimensat, setxattr: no Landlock right and
	 * no mount flag of the sandbox's reaches an inode on the caller's
	 * own mount). A file the caller redirected in or out is such an
	 * inode: `kjail exec ... < /etc/sudoers` as root would let the
	 * command make it writable by everyone.
	 * A socket belongs to the network namespace it was made in, the
	 * host's: through a TCP connection given as stdout the command could
	 * connect(AF_UNSPEC) and connect again to the host's loopback, out of
	 * --net none, and SIOCGIFCONF on any socket, a unix socketpair
	 * included (Node's child stdio), lists the host's interfaces.
	 * Only pipes pass (inodes of their own, in no namespace); a terminal
	 * goes through the sandbox's pty, and the sandbox's device nodes are
	 * reopened inside from its read-only /dev (stdio_reopen_nodes).
	 * Everything else is relayed. */
	if (fstat(fd, &st) < 0 || sandbox_node(&st) || isatty(fd))
		return false;
	return !S_ISFIFO(st.st_mode) || fstatfs(fd, &sf) < 0 || sf.f_type != PIPEFS_MAGIC;
}

int stdio_reopen_nodes(void)
{
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;
		const char *path;
		int fl = fcntl(fd, F_GETFL), nfd;

		if (fl < 0 || fstat(fd, &st) < 0 || !(path = sandbox_node(&st)))
			continue;
		nfd = open(path, (fl & (O_ACCMODE | O_APPEND | O_NONBLOCK)) | O_CLOEXEC);
		if (nfd < 0)
			return -errno;
		if (dup2(nfd, fd) < 0) {
			int e = errno;
			close(nfd);
			return -e;
		}
		close(nfd);
	}
	return 0;
}

bool stdio_fd_plain(int fd)
{
	struct stat st;
	struct statfs sf;

	if (fstat(fd, &st) < 0)
		return false;
	if (sandbox_node(&st))
		return true;
	return S_ISFIFO(st.st_mode) && fstatfs(fd, &sf) == 0 && sf.f_type == PIPEFS_MAGIC;
}

int stdio_fd_check(int fd, const char *name, struct kj_err *err)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	/* A directory (or O_PATH) fd handed in as stdio names a place on the
	 * host's own mounts: openat(fd, "..") walks the host's file system
	 * from inside (the CVE-2024-21626 class, through stdio). */
	if ((fl >= 0 && (fl & O_PATH)) || (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)))
		return kj_fail(
			err, "stdio", 0, "redirect from a file, a pipe or /dev/null",
			"%s is a directory: it would open the host's file system to the command",
			name);
	return 0;
}

/* Are fds a and b one file, both open for writing (`2>&1`)? */
static bool same_file(int a, int b)
{
	struct stat sa, sb;
	int fa = fcntl(a, F_GETFL), fb = fcntl(b, F_GETFL);

	return fa >= 0 && fb >= 0 && (fa & O_ACCMODE) != O_RDONLY && (fb & O_ACCMODE) != O_RDONLY &&
	       fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int stdio_plan_make(const struct kj_config *cfg, struct stdio_plan *io, struct kj_err *err)
{
	static const char *const names[3] = {NULL, "stdout", "stderr"};
	bool tty[3];

	memset(io, 0, sizeof(*io));
	io->master = -1;
	io->term_fd = -1;
	io->guard.sock = -1;
	io->limited = cfg->output_limited;
	io->limit = cfg->output_limit;
	for (int i = 0; i < 3; i++) {
		if (stdio_fd_check(i, i == 0 ? "stdin" : i == 1 ? "stdout" : "stderr", err))
			return -EINVAL;
		tty[i] = isatty(i);
		io->child_only[i] = -1;
		io->child_fd[i] = i;
		if (tty[i] && io->term_fd < 0)
			io->term_fd = i;
	}
	io->pty = cfg->tty == KJ_TTY_ON || (cfg->tty == KJ_TTY_AUTO && tty[0]);
	for (int i = 0; i < 3; i++) {
		int p[2];

		if (io->pty && (cfg->tty == KJ_TTY_ON || tty[i])) {
			io->child_fd[i] = -1; /* the pty; relays wired when it arrives */
			continue;
		}
		if (!tty[i] && !(i > 0 && cfg->output_limited) && !stdio_fd_needs_relay(i))
			continue; /* passed straight through */
		if (i == 2 && !cfg->output_limited && io->child_only[1] >= 0 && same_file(1, 2)) {
			/* `> log 2>&1`: one relay, so the file gets the command's
			 * writes in the order it made them (two relays mixed them
			 * up, and two opens of one file wrote over each other). */
			io->child_fd[2] = io->child_fd[1];
			continue;
		}
		if (pipe2(p, O_CLOEXEC) < 0)
			return kj_fail(err, "stdio", errno, NULL, "create a pipe for %s",
				       i ? names[i] : "stdin");
		if (i == 0) {
			io->child_fd[0] = io->child_only[0] = p[0];
			add_relay(io, 0, p[1], NULL, cfg);
			/* kjail's own end: never blocks the loop */
			io->relays[io->nrelays - 1].to_own = fcntl(p[1], F_SETFL, O_NONBLOCK) == 0;
		} else {
			io->child_fd[i] = io->child_only[i] = p[1];
			add_relay(io, p[0], i, names[i], cfg);
		}
	}
	return 0;
}

void stdio_parent_close_child_ends(struct stdio_plan *io)
{
	for (int i = 0; i < 3; i++)
		if (io->child_only[i] >= 0) {
			close(io->child_only[i]);
			io->child_only[i] = -1;
		}
}

void stdio_resize(struct stdio_plan *io)
{
	struct winsize ws;

	if (io->master >= 0 && io->term_fd >= 0 && ioctl(io->term_fd, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(io->master, TIOCSWINSZ, &ws);
}

void stdio_pty_inherit(const struct stdio_plan *io, int slave)
{
	struct termios t;
	struct winsize ws;

	/* Done by init before COMMAND starts: kjail learns of the pty only
	 * afterwards, so a command that reads its size or sets its own modes
	 * at once (stty, an editor) would race kjail and lose. */
	if (io->term_fd < 0)
		return;
	if (tcgetattr(io->term_fd, &t) == 0)
		(void)tcsetattr(slave, TCSANOW, &t);
	if (ioctl(io->term_fd, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(slave, TIOCSWINSZ, &ws);
}

/* The guardian's end: the terminal's settings back, unless someone owns
 * the terminal again. Once kjail said which raw settings it set ('T' and
 * them), only a terminal still in them is changed: after kill -9 of kjail
 * the caller's shell may already have set its own (readline's, after
 * waitpid returned; or any program's, while kjail was stopped with
 * SIGSTOP), and a late restore broke its line editing. */
static void guard_wait(int sock, int term, const struct termios *saved)
{
	struct termios raw, now;
	size_t got = 0;
	char tag = 0;
	ssize_t n;

	while ((n = read(sock, &tag, 1)) < 0 && errno == EINTR)
		;
	if (n == 1 && tag == 'T') {
		while (got < sizeof(raw) &&
		       ((n = read(sock, (char *)&raw + got, sizeof(raw) - got)) > 0 ||
			(n < 0 && errno == EINTR)))
			got += n > 0 ? (size_t)n : 0;
		if (got < sizeof(raw))
			return;
		while ((n = read(sock, &tag, 1)) < 0 && errno == EINTR)
			;
		if (n != 0)
			return;
	} else if (n != 0) {
		return; /* 'r': kjail restored them */
	} else {
		/* Gone before it said: kjail died in or just before its
		 * tcsetattr. A kjail started in the background stops there
		 * (SIGTTOU) with the terminal untouched, and its shell sets
		 * its own (readline's); kill -9 of it then had these old
		 * settings put back over the shell's, unconditionally. Only
		 * the raw settings kjail was about to set are undone. */
		raw = *saved;
		cfmakeraw(&raw);
	}
	if (tcgetattr(term, &now) < 0 || now.c_iflag != raw.c_iflag || now.c_oflag != raw.c_oflag ||
	    now.c_cflag != raw.c_cflag || now.c_lflag != raw.c_lflag ||
	    memcmp(now.c_cc, raw.c_cc, sizeof(now.c_cc)))
		return;
	(void)tcsetattr(term, TCSANOW, saved);
}

/* The raw settings kjail set, as the terminal holds them, for guard_wait
 * to compare with. */
static void guard_tell_raw(const struct stdio_plan *io)
{
	char msg[1 + sizeof(struct termios)] = {'T'};
	struct termios now;

	if (io->guard.sock < 0 || tcgetattr(io->term_fd, &now) < 0)
		return; /* the guardian then restores without comparing */
	memcpy(msg + 1, &now, sizeof(now));
	(void)!write(io->guard.sock, msg, sizeof(msg));
}

/* kill -9 of kjail left the caller's terminal raw (no echo, no ^C: the
 * shell after it unusable until `stty sane`). A guardian process holds
 * the terminal and the settings to put back, and puts them back when
 * its socket from kjail ends without kjail's "restored" byte: kjail died
 * without restoring them (guard_wait). Not kjail's child (a grandchild:
 * kjail's one child is the sandbox's init), and stdio_restore waits for
 * its end. None (it could not start): restored by kjail alone. */
static void guard_start(struct stdio_plan *io)
{
	int rc = guardian_start(&io->guard, "kjail-tty", SOCK_STREAM, &io->term_fd, 1, true);

	if (rc == 0) {
		/* Its socket is fd 1, the terminal fd 0: tcsetattr on a terminal
		 * that is not its controlling one needs no job control. */
		guard_wait(1, 0, &io->saved);
		_exit(0);
	}
	if (rc > 0 && guardian_ready(&io->guard))
		guardian_end(&io->guard, 'r'); /* it died: no guardian */
}

int stdio_raw_enter(struct stdio_plan *io, int when)
{
	struct termios raw;

	if (io->term_fd < 0 || tcgetattr(io->term_fd, &io->saved) < 0)
		return 0;
	raw = io->saved;
	/* The caller's own terminal goes raw so every key reaches the
	 * sandbox's (which already has the caller's settings). */
	cfmakeraw(&raw);
	guard_start(io);
	if (tcsetattr(io->term_fd, when, &raw) < 0) {
		int e = errno;
		guardian_end(&io->guard, 'r');
		return -e;
	}
	io->raw = true;
	guard_tell_raw(io);
	/* Only now: a kjail started in the background is stopped by
	 * SIGTTOU in the tcsetattr above, before the terminal is raw. */
	stdio_stop_block();
	return 0;
}

int stdio_attach_pty(struct stdio_plan *io, int master, struct kj_err *err)
{
	struct kj_config none = {0},
			 capped = {.output_limited = io->limited, .output_limit = io->limit};
	int out = io->child_fd[1] == -1 ? 1 : (io->term_fd >= 0 ? io->term_fd : 1), e;

	io->master = master;
	if ((e = stdio_raw_enter(io, TCSADRAIN)) < 0)
		return kj_fail(err, "tty", -e, "use --no-tty", "set the terminal to raw mode");
	stdio_resize(io);
	if (io->child_fd[0] == -1) {
		add_relay(io, 0, master, NULL, &none);
		io->relays[io->nrelays - 1].to_pty = true;
		io->relays[io->nrelays - 1].from_tty = io->raw && io->term_fd == 0;
		/* kjail's own: a command that stops reading its terminal
		 * must not block kjail in a write to the master. */
		io->relays[io->nrelays - 1].to_own = fcntl(master, F_SETFL, O_NONBLOCK) == 0;
	}
	/* Everything the terminal shows (stdout and stderr are one stream
	 * there) counts as "output" for --output-limit. */
	add_relay(io, master, out, "output", &capped);
	return 0;
}

void stdio_restore(struct stdio_plan *io)
{
	if (io->raw) {
		/* TCSANOW: TCSADRAIN waited (forever, with the signals
		 * blocked) for a terminal stopped by ^S to drain. */
		(void)tcsetattr(io->term_fd, TCSANOW, &io->saved);
		io->raw = false;
		guardian_end(&io->guard, 'r');
	}
}

void stdio_release(bool keep_stderr)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	/* Closed if /dev/null cannot be had: either way no fd of the
	 * caller's stays. */
	for (int fd = 0; fd < (keep_stderr ? 2 : 3); fd++)
		if (fd != null && (null < 0 || dup2(null, fd) < 0))
			close(fd);
	if (null > 2)
		close(null);
}

int stdio_child_install(const struct stdio_plan *io, int slave)
{
	for (int i = 0; i < 3; i++) {
		int fd = io->child_fd[i] == -1 ? slave : io->child_fd[i];
		if (fd != i && dup2(fd, i) < 0)
			return -errno;
	}
	return stdio_reopen_nodes();
}

bool fd_write_all(int fd, const void *data, size_t n)
{
	const char *buf = data;

	while (n > 0) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		buf += w;
		n -= (size_t)w;
	}
	return true;
}

#define RELAY_BUF 65536

/* Input at its end, everything before it written: pass the end on (close
 * the pipe, or the terminal's end-of-file character: twice after a line
 * with no newline, which the first only flushes in canonical mode). */
static void relay_finish_input(struct relay *r)
{
	if (r->to_pty)
		(void)!write(r->to, r->last && r->last != '\n' ? "\x04\x04" : "\x04",
			     r->last && r->last != '\n' ? 2 : 1);
	else
		close(r->to);
	r->open = false;
}

/* Counts relay writes: which relay wrote last to a file (relay_end_line). */
static uint64_t relay_writes;

/* The destination's reader is gone (EPIPE, a hang-up): an output relay
 * ends and closes its source, so the command meets EPIPE/SIGPIPE as it
 * would writing there itself (`kjail exec ... | head -1`). */
static void relay_reader_gone(struct relay *r)
{
	r->off = r->len = 0;
	r->open = false;
	close(r->from);
	r->from = -1;
}

/* A destination that fails otherwise (ENOSPC, EIO, EFBIG) is said once,
 * and the rest of the stream is read and discarded: the command wrote
 * to kjail's pipe, so it cannot be shown the error itself. */
static void relay_write_failed(struct relay *r, int e)
{
	kj_note("%s: write failed: %s (the rest of %s is discarded)", r->name, strerror(e),
		r->name);
	r->off = r->len = 0;
	r->failed = true;
}

/* Write what the destination takes now. One that is the caller's own
 * (its stdout: a pipe to a slow reader, say) cannot be made non-blocking
 * (the open file is shared with other processes), so after POLLOUT it
 * gets at most what a pipe is sure to take without blocking; a regular
 * file takes it all. */
static void relay_write(struct relay *r)
{
	size_t n = r->len - r->off;
	struct stat st;
	ssize_t w;

	bool bounded = !r->to_own && !(fstat(r->to, &st) == 0 && S_ISREG(st.st_mode));

	if (bounded && n > PIPE_BUF)
		n = PIPE_BUF;
	/* Not kjail's own (a terminal of another user's it could not open
	 * again): a write it takes nothing of is cut short, and retried at
	 * the next POLLOUT, so the loop goes on. */
	w = r->to_sock ? send(r->to, r->buf + r->off, n, MSG_DONTWAIT | MSG_NOSIGNAL)
	    : bounded  ? kj_write_bounded(r->to, r->buf + r->off, n, 100)
		       : write(r->to, r->buf + r->off, n);
	if (w < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (w <= 0 && r->name && (w == 0 || errno != EPIPE)) {
		relay_write_failed(r, w < 0 ? errno : EIO);
		return;
	}
	if (w <= 0) {
		if (r->name) {
			relay_reader_gone(r);
		} else {
			r->off = r->len = 0;
			r->open = false;
			close(r->to);
		}
		return;
	}
	r->last = r->buf[r->off + (size_t)w - 1];
	r->wrote = ++relay_writes;
	r->off += (size_t)w;
	if (r->off == r->len)
		r->off = r->len = 0;
}

/* A capped relay past its limit writes nothing, so no EPIPE tells it
 * that its reader left: poll does (POLLERR or POLLHUP, asked or not), and
 * the command gets SIGPIPE as it would without the cap. */
static bool relay_destination_gone(const struct relay *r)
{
	struct pollfd p = {.fd = r->to, .events = 0};

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

void relay_poll(const struct relay *r, bool want, struct pollfd *p)
{
	/* Output pending is flushed even after the sandbox ended; input for
	 * a sandbox that ended goes nowhere. */
	if (r->off < r->len && (want || r->name))
		*p = (struct pollfd){.fd = r->to, .events = POLLOUT};
	else
		*p = (struct pollfd){.fd = want && r->open ? r->from : -1, .events = POLLIN};
}

void relay_service(struct relay *r, short revents)
{
	ssize_t n;
	size_t keep, slack;

	if (!revents)
		return;
	if (r->off < r->len) {
		if (!(revents & POLLOUT) && (revents & (POLLHUP | POLLERR))) {
			/* the destination is gone */
			if (r->name) {
				relay_reader_gone(r);
			} else {
				r->off = r->len = 0;
				r->open = false;
			}
			return;
		}
		relay_write(r);
		return;
	}
	if (!r->buf && !(r->buf = malloc(RELAY_BUF)))
		return; /* tried again next round */
	/* Filtered in place: read after the room the filter may need. */
	slack = r->to_term ? TERM_FILTER_SLACK : 0;
	do
		n = read(r->from, r->buf + slack, RELAY_BUF - slack);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n < 0 && errno == EIO && r->from_tty && tcgetpgrp(r->from) > 0 &&
	    tcgetpgrp(r->from) != getpgrp()) {
		/* Read in the background, SIGTTIN blocked (raw mode): the
		 * kernel refused it, and the input has not ended. kjail stops
		 * as it would have (stdio_stop), not the command's input. */
		(void)kill(getpid(), SIGTTIN);
		return;
	}
	if (n <= 0) {
		/* EOF (or EIO: a pty whose last slave closed). A string the
		 * terminal is still in is closed, so it does not swallow what
		 * the caller's shell writes next. */
		if (r->name) {
			r->open = false;
			if (r->to_term && !r->failed) {
				r->off = 0;
				r->len = term_filter_end(&r->tf, r->buf);
			}
		} else
			relay_finish_input(r);
		return;
	}
	if (r->failed)
		return; /* discarded: its destination failed */
	keep = (size_t)n;
	if (r->capped) {
		uint64_t room = r->limit > r->passed ? r->limit - r->passed : 0;
		if (keep > room)
			keep = (size_t)room;
		r->dropped += (uint64_t)n - keep;
	}
	if (keep == 0 && relay_destination_gone(r)) {
		relay_reader_gone(r);
		return;
	}
	r->passed += keep;
	if (r->to_term)
		keep = term_filter_run(&r->tf, r->buf, r->buf + slack, keep);
	r->off = 0;
	r->len = keep;
	if (keep && r->to_own)
		relay_write(r); /* non-blocking: at once */
}

bool relay_pending(const struct stdio_plan *io)
{
	for (int i = 0; i < io->nrelays; i++)
		if (io->relays[i].name && io->relays[i].off < io->relays[i].len)
			return true;
	return false;
}

/* Give the destination what it takes now, without waiting; of the
 * source, at most what it held at the start (a process kjail no longer
 * waits for may still write). */
static void relay_flush_now(struct relay *r)
{
	int queued = 0;
	uint64_t end;

	if (r->open && ioctl(r->from, FIONREAD, &queued) < 0)
		queued = 0;
	end = r->passed + r->dropped + (uint64_t)queued;
	for (;;) {
		struct pollfd p;

		relay_poll(r, true, &p);
		if (p.fd < 0 || r->failed || (p.fd == r->from && r->passed + r->dropped >= end))
			return;
		if (poll(&p, 1, 0) != 1)
			return;
		relay_service(r, p.revents);
	}
}

/* What is still buffered or queued in the source counts as dropped:
 * read, it would have gone over the cap or to the reader. */
static void relay_give_up(struct relay *r)
{
	uint64_t pending = r->len - r->off;
	uint64_t room = r->limit > r->passed ? r->limit - r->passed : 0;
	int queued = 0;

	if (r->open && ioctl(r->from, FIONREAD, &queued) < 0)
		queued = 0;
	if (r->capped && (uint64_t)queued > room) {
		r->dropped += (uint64_t)queued - room;
		queued = (int)room;
	}
	r->passed -= pending; /* counted when read, never delivered */
	r->abandoned += pending + (uint64_t)queued;
	r->off = r->len = 0;
	r->open = false;
}

void relay_abandon(struct stdio_plan *io, const char *when)
{
	io->abandoned_when = when;
	for (int i = 0; i < io->nrelays; i++) {
		struct relay *r = &io->relays[i];
		if (!r->name || r->failed)
			continue; /* input, or discarded already */
		relay_flush_now(r);
		relay_give_up(r);
	}
}

/* The relay whose write to stderr's file came last, if that write ended
 * no line; -1 if none. */
static int relay_line_open(const struct stdio_plan *io)
{
	struct stat err, st;
	int latest = -1;

	if (fstat(STDERR_FILENO, &err) < 0)
		return -1;
	for (int i = 0; i < io->nrelays; i++) {
		const struct relay *r = &io->relays[i];
		if (r->name && r->wrote && fstat(r->to, &st) == 0 && st.st_dev == err.st_dev &&
		    st.st_ino == err.st_ino && (latest < 0 || r->wrote > io->relays[latest].wrote))
			latest = i;
	}
	return latest >= 0 && io->relays[latest].last != '\n' ? latest : -1;
}

void relay_end_line(struct stdio_plan *io)
{
	int i = relay_line_open(io);

	if (i < 0)
		return;
	(void)!write(STDERR_FILENO, "\n", 1);
	io->relays[i].last = '\n';
}

/* One "kjail: stdout truncated after N bytes (M bytes dropped...)" line. */
static void relay_note(const struct stdio_plan *io, const struct relay *r)
{
	const char *when = io->abandoned_when ? io->abandoned_when : "at the end";
	uint64_t dropped = r->dropped + r->abandoned;
	char why[160] = "";

	if (r->abandoned && r->dropped)
		snprintf(why, sizeof(why), ", %llu of them not taken by the reader %s",
			 (unsigned long long)r->abandoned, when);
	else if (r->abandoned)
		snprintf(why, sizeof(why), ": not taken by the reader %s", when);
	kj_note("%s truncated after %llu bytes (%llu %s dropped%s)", r->name,
		(unsigned long long)r->passed, (unsigned long long)dropped,
		dropped == 1 ? "byte" : "bytes", why);
}

void relay_report(const struct stdio_plan *io)
{
	bool first = true;

	for (int i = 0; i < io->nrelays; i++) {
		const struct relay *r = &io->relays[i];
		bool cut = (r->capped && r->dropped) || r->abandoned;

		if (!r->name || !(cut || r->tf.withheld))
			continue;
		if (first && relay_line_open(io) >= 0)
			(void)!write(STDERR_FILENO, "\n", 1); /* the note starts a line */
		first = false;
		if (cut)
			relay_note(io, r);
		if (r->tf.withheld)
			kj_note("%s: %llu terminal control %s withheld (the first: %s): %s acted on "
				"the host's terminal, outside the sandbox (the clipboard, files, "
				"keys, notifications)",
				r->name, (unsigned long long)r->tf.withheld,
				r->tf.withheld == 1 ? "string" : "strings", r->tf.first,
				r->tf.withheld == 1 ? "it would have" : "they would have");
	}
}
