#include "runtime/stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

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

int stdio_plan_make(const struct kj_config *cfg, struct stdio_plan *io, struct kj_err *err)
{
	static const char *const names[3] = {NULL, "stdout", "stderr"};
	bool tty[3];

	memset(io, 0, sizeof(*io));
	io->master = -1;
	io->term_fd = -1;
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
		if (!tty[i] && !(i > 0 && cfg->output_limited))
			continue; /* passed straight through */
		if (pipe2(p, O_CLOEXEC) < 0)
			return kj_fail(err, "stdio", errno, NULL, "create a pipe for %s",
				       i ? names[i] : "stdin");
		if (i == 0) {
			io->child_fd[0] = io->child_only[0] = p[0];
			add_relay(io, 0, p[1], NULL, cfg);
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

int stdio_attach_pty(struct stdio_plan *io, int master, struct kj_err *err)
{
	struct kj_config none = {0},
			 capped = {.output_limited = io->limited, .output_limit = io->limit};
	int out = io->child_fd[1] == -1 ? 1 : (io->term_fd >= 0 ? io->term_fd : 1);

	io->master = master;
	if (io->term_fd >= 0 && tcgetattr(io->term_fd, &io->saved) == 0) {
		struct termios raw = io->saved;
		/* The caller's own terminal goes raw so every key reaches the
		 * sandbox's (which already has the caller's settings). */
		cfmakeraw(&raw);
		if (tcsetattr(io->term_fd, TCSADRAIN, &raw) < 0)
			return kj_fail(err, "tty", errno, "use --no-tty",
				       "set the terminal to raw mode");
		io->raw = true;
	}
	stdio_resize(io);
	if (io->child_fd[0] == -1) {
		add_relay(io, 0, master, NULL, &none);
		io->relays[io->nrelays - 1].to_pty = true;
	}
	/* Everything the terminal shows counts as stdout for --output-limit. */
	add_relay(io, master, out, "stdout", &capped);
	return 0;
}

void stdio_restore(struct stdio_plan *io)
{
	if (io->raw) {
		(void)tcsetattr(io->term_fd, TCSADRAIN, &io->saved);
		io->raw = false;
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
	return 0;
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

bool relay_pump(struct relay *r)
{
	char buf[65536];
	ssize_t n;
	size_t keep;

	do
		n = read(r->from, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		/* EOF (or EIO: a pty whose last slave closed). An input relay
		 * passes the end on: close the pipe, or send the terminal's
		 * end-of-file character. */
		if (!r->name) {
			if (r->to_pty)
				(void)!write(r->to, "\x04", 1);
			else
				close(r->to);
		}
		r->open = false;
		return false;
	}
	keep = (size_t)n;
	if (r->capped) {
		uint64_t room = r->limit > r->passed ? r->limit - r->passed : 0;
		if (keep > room)
			keep = (size_t)room;
		r->dropped += (uint64_t)n - keep;
	}
	r->passed += keep;
	/* A reader that went away (EPIPE) just means the rest is dropped;
	 * kjail keeps draining so the command never blocks on a full pipe. */
	if (keep && !fd_write_all(r->to, buf, keep) && r->capped)
		r->limit = r->passed;
	return true;
}

void relay_report(const struct stdio_plan *io)
{
	for (int i = 0; i < io->nrelays; i++) {
		const struct relay *r = &io->relays[i];
		if (r->name && r->capped && r->dropped)
			kj_note("%s truncated after %llu bytes (%llu bytes dropped)", r->name,
				(unsigned long long)r->passed, (unsigned long long)r->dropped);
	}
}
