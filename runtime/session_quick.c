/* kjail exec -s NAME [--] COMMAND [ARG...], before the C library starts.
 *
 * An exec into a session is what an agent's shell tool calls for every
 * command, and most of its client's cost was kjail's own start, not its
 * work: glibc's start-up probes the CPU (43 cpuid instructions, each a
 * trap to the hypervisor in a VM, 0.15 ms here), applies its IRELATIVE
 * relocations and sets up TLS and stdio. So kjail's ELF entry point is
 * kj_entry, below. When the command line is the plain form above and
 * nothing about the call needs the full client, this file runs the whole
 * client with raw system calls and exits. Everything else (any other
 * option, a terminal on stdio, a session created with a timeout or an
 * output cap, KJAIL_TRACE, any error before the command was handed over)
 * falls through to glibc's _start and the full client
 * (runtime/session_client.c), which does the same or reports what is
 * wrong. This path has no error messages of its own: it prints only what
 * init sends back, and the one line for a session that went away.
 *
 * Rules for this file, because it runs before relocation and TLS exist:
 * no calls outside it (no libc, no errno), no stack protector, no global
 * pointers (a static-pie binary's relocations are not applied yet). The
 * build checks that its object has no undefined symbols.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/sockios.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <time.h>

#include "runtime/signals.h"
#include "runtime/error.h"
#include "runtime/policy.h"
#include "runtime/session.h"
#include "runtime/session_quick.h"

static size_t q_len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static bool q_prefix(const char *s, const char *prefix)
{
	while (*prefix && *s == *prefix)
		s++, prefix++;
	return !*prefix;
}

static bool q_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Append s at buf[*n], NUL-terminated; false when it does not fit. */
static bool q_put(char *buf, size_t cap, size_t *n, const char *s)
{
	for (; *s; s++) {
		if (*n + 1 >= cap)
			return false;
		buf[(*n)++] = *s;
	}
	if (*n >= cap)
		return false;
	buf[*n] = '\0';
	return true;
}

static bool q_put_uint(char *buf, size_t cap, size_t *n, unsigned v)
{
	char digits[12], text[12];
	int k = 0, i = 0;

	do
		digits[k++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (k > 0)
		text[i++] = digits[--k];
	text[i] = '\0';
	return q_put(buf, cap, n, text);
}

bool session_name_ok(const char *name)
{
	size_t n = q_len(name);

	if (n < 1 || n > SESSION_NAME_MAX || !q_alnum(name[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!q_alnum(name[i]) && name[i] != '_' && name[i] != '.' && name[i] != '-')
			return false;
	return true;
}

size_t session_dir_compose(char *buf, size_t cap, unsigned euid, const char *xdg)
{
	size_t n = 0;
	bool ok;

	if (cap == 0)
		return 0;
	buf[0] = '\0';
	if (euid == 0)
		ok = q_put(buf, cap, &n, "/run/kjail");
	else if (xdg && xdg[0] == '/')
		ok = q_put(buf, cap, &n, xdg) && q_put(buf, cap, &n, "/kjail");
	else
		ok = q_put(buf, cap, &n, "/tmp/kjail-") && q_put_uint(buf, cap, &n, euid);
	return ok ? n : 0;
}

bool session_dir_private(unsigned mode, unsigned owner, unsigned euid)
{
	/* A directory planted in /tmp by someone else under the expected
	 * name would hand them our sockets' names and our stdio. */
	return S_ISDIR(mode) && owner == euid && !(mode & 077);
}

const char *session_record_find(const char *text, const char *key)
{
	size_t k = q_len(key);

	for (const char *line = text;;) {
		if (q_prefix(line, key) && line[k] == '=')
			return line + k + 1;
		while (*line && *line != '\n')
			line++;
		if (!*line)
			return NULL;
		line++;
	}
}

unsigned long long session_record_number(const char *text, const char *key)
{
	const char *p = session_record_find(text, key);
	unsigned long long v = 0;

	for (; p && *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (unsigned)(*p - '0');
	return v;
}

#if defined(__x86_64__) && defined(KJ_QUICK_ENTRY)

/* --- raw system calls (x86_64) --- */

static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static bool q_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

#define SYS1(nr, a) sys6(nr, (long)(a), 0, 0, 0, 0, 0)
#define SYS2(nr, a, b) sys6(nr, (long)(a), (long)(b), 0, 0, 0, 0)
#define SYS3(nr, a, b, c) sys6(nr, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define SYS4(nr, a, b, c, d) sys6(nr, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

__attribute__((noreturn)) static void q_exit(int code)
{
	for (;;)
		SYS1(SYS_exit_group, code);
}

/* kjail: PART: TEXT, in one write, as kj_err_print prints it, given at
 * most a second, as the full client's put_line gives it. fd 2 is a pipe
 * or a null-like device here (stdio_plain). A pipe nobody reads must not
 * hold the client in a write(2) with SIGTERM blocked until SIGKILL: the
 * line is written through a non-blocking open of the same pipe (setting
 * O_NONBLOCK on fd 2 would change the caller's open file), after poll
 * says there is room, and dropped when none comes. Without /proc, fd 2
 * itself after poll: only another writer filling the pipe between the
 * two could still block it. */
static void q_print(const char *part, const char *text)
{
	char line[600];
	const char *p = line;
	size_t n = 0;
	long own, waited_ms = 0;
	int fd;

	(void)(q_put(line, sizeof(line) - 1, &n, "kjail: ") &&
	       q_put(line, sizeof(line) - 1, &n, part) && q_put(line, sizeof(line) - 1, &n, ": ") &&
	       q_put(line, sizeof(line) - 1, &n, text));
	line[n++] = '\n';
	own = SYS3(SYS_open, "/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
	fd = own >= 0 ? (int)own : 2;
	while (n && waited_ms < 1000) {
		struct pollfd pfd = {.fd = fd, .events = POLLOUT};
		long r = SYS3(SYS_poll, &pfd, 1, 100), w;

		if (r == 0 || r == -EINTR) {
			waited_ms += 100;
			continue;
		}
		if (r < 0)
			break;
		w = SYS3(SYS_write, fd, p, n);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
		} else if (w == -EAGAIN || w == -EINTR) {
			waited_ms += 10; /* room for less than the line: wait a little */
			(void)SYS3(SYS_poll, 0, 0, 10);
		} else {
			break;
		}
	}
	if (own >= 0)
		(void)SYS1(SYS_close, own);
}

static const char *q_getenv(char **envp, const char *key)
{
	size_t k = q_len(key);

	for (; *envp; envp++)
		if (q_prefix(*envp, key) && (*envp)[k] == '=')
			return *envp + k + 1;
	return NULL;
}

/* --- what the full client would do differently --- */

/* exec, one session flag, an optional --, then COMMAND: nothing else. */
static bool plain_form(int argc, char **argv, const char **name, char ***cmd)
{
	int i = 2;

	if (argc < 4 || !q_eq(argv[1], "exec"))
		return false;
	if (q_eq(argv[i], "-s") || q_eq(argv[i], "--session")) {
		*name = argv[i + 1];
		i += 2;
	} else if (q_prefix(argv[i], "--session=")) {
		*name = argv[i] + 10;
		i++;
	} else {
		return false;
	}
	if (i < argc && q_eq(argv[i], "--"))
		i++;
	else if (i < argc && argv[i][0] == '-')
		return false;
	*cmd = argv + i;
	return i < argc && session_name_ok(*name);
}

/* stdin, stdout and stderr are open, and each is a pipe or one of the
 * sandbox's own device nodes (/dev/null..., which init reopens from the
 * sandbox's read-only /dev): not a terminal (the full client relays it
 * through a pipe, so no tty of the caller's reaches the session:
 * TIOCSTI), not a directory or O_PATH fd (the CVE-2024-21626 class), not
 * a socket, which carries the host's network namespace, nor a file or
 * other device of the caller's, whose metadata the command could change
 * (the full client relays those: stdio_fd_needs_relay). */
static bool stdio_plain(void)
{
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;
		struct statfs sf;
		char termios[64];
		long fl = SYS3(SYS_fcntl, fd, F_GETFL, 0);
		unsigned maj, min;

		if (fl < 0 || (fl & O_PATH) || SYS2(SYS_fstat, fd, &st) < 0)
			return false;
		if (S_ISFIFO(st.st_mode)) {
			if (SYS2(SYS_fstatfs, fd, &sf) < 0 || sf.f_type != PIPEFS_MAGIC)
				return false;
			continue;
		}
		if (!S_ISCHR(st.st_mode) || SYS3(SYS_ioctl, fd, TCGETS, termios) == 0)
			return false;
		maj = (unsigned)((st.st_rdev >> 8) & 0xfff);
		min = (unsigned)((st.st_rdev & 0xff) | ((st.st_rdev >> 12) & 0xfff00));
		if (maj != 1 || (min != 3 && min != 5 && min != 7 && min != 8 && min != 9))
			return false;
	}
	return true;
}

/* The session's record sets no per-exec timeout or output cap (those
 * need the full client's timer and relays). */
static bool record_plain(const char *path)
{
	static char text[SESSION_RECORD_MAX];
	size_t len = 0;
	struct stat st;
	/* O_NONBLOCK: a FIFO put in the record's place must not hang the
	 * client in open(). */
	long fd = SYS2(SYS_open, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), n = 0;

	if (fd < 0)
		return false;
	/* The full client's rule (session_state.c, record_load): a record is
	 * a regular file of the caller's with one link. Anything else falls
	 * through to the full client, which refuses it with 125: a hard link
	 * to a file elsewhere (timeout_ms=0) must not lift a session's limits
	 * on the quick path alone. */
	if (SYS2(SYS_fstat, fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != (unsigned)SYS1(SYS_geteuid, 0) || st.st_nlink != 1) {
		(void)SYS1(SYS_close, fd);
		return false;
	}
	while (len < sizeof(text) - 1 &&
	       (n = SYS3(SYS_read, fd, text + len, sizeof(text) - 1 - len)) != 0) {
		if (n == -EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
	}
	(void)SYS1(SYS_close, fd);
	if (n < 0 || len == sizeof(text) - 1)
		return false;
	text[len] = '\0';
	return session_record_number(text, "timeout_ms") == 0 &&
	       session_record_number(text, "output_limit") == 0 &&
	       session_record_number(text, "output_limited") == 0;
}

/* The session's socket, connected; -1 when the full client should take
 * over (it reports why). */
static int connect_plain(char **envp, const char *name)
{
	char dir[256], path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct sockaddr_un sa;
	struct stat st;
	unsigned euid = (unsigned)SYS1(SYS_geteuid, 0);
	size_t n = session_dir_compose(dir, sizeof(dir), euid, q_getenv(envp, "XDG_RUNTIME_DIR"));
	size_t base;
	long fd;

	/* An admin policy is the full client's to enforce (session_client.c:
	 * exec_policy), also on the session's defaults. */
	if (SYS4(SYS_newfstatat, AT_FDCWD, KJ_POLICY_FILE, &st, AT_SYMLINK_NOFOLLOW) != -ENOENT)
		return -1;
	if (n == 0 || SYS4(SYS_newfstatat, AT_FDCWD, dir, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !session_dir_private(st.st_mode, st.st_uid, euid))
		return -1;
	n = 0;
	if (!q_put(path, sizeof(path), &n, dir) || !q_put(path, sizeof(path), &n, "/") ||
	    !q_put(path, sizeof(path), &n, name))
		return -1;
	base = n;
	if (!q_put(path, sizeof(path), &n, ".state") || !record_plain(path))
		return -1;
	n = base;
	path[n] = '\0';
	if (!q_put(path, sizeof(path), &n, ".sock"))
		return -1;
	sa.sun_family = AF_UNIX;
	for (size_t i = 0; i <= n; i++)
		sa.sun_path[i] = path[i];
	fd = SYS3(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (SYS3(SYS_connect, fd, &sa, sizeof(sa)) < 0) {
		(void)SYS1(SYS_close, fd);
		return -1;
	}
	return (int)fd;
}

/* EXEC: argv, no extra environment, the session's own cwd; fds 0, 1, 2. */
static bool send_exec(int sock, char **cmd)
{
	static char payload[SESSION_MSG_MAX - sizeof(struct session_msg_hdr)];
	struct session_msg_hdr h = {.type = SESSION_EXEC};
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov[2];
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
	struct cmsghdr *c = &u.align;
	int *fds;
	size_t len = 0;
	long rc;

	for (; *cmd; cmd++, h.nargv++) {
		if (!q_put(payload, sizeof(payload), &len, *cmd))
			return false;
		len++; /* keep the NUL */
	}
	if (len >= sizeof(payload))
		return false;
	payload[len++] = '\0'; /* the cwd: the session's own */
	iov[0] = (struct iovec){.iov_base = &h, .iov_len = sizeof(h)};
	iov[1] = (struct iovec){.iov_base = payload, .iov_len = len};
	for (size_t i = 0; i < sizeof(u.buf); i++)
		u.buf[i] = 0;
	c->cmsg_len = CMSG_LEN(3 * sizeof(int));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	fds = (int *)CMSG_DATA(c);
	fds[0] = 0, fds[1] = 1, fds[2] = 2;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	do
		rc = SYS3(SYS_sendmsg, sock, &msg, MSG_NOSIGNAL);
	while (rc == -EINTR);
	return rc >= 0;
}

static void send_signal(int sock, int sig)
{
	struct session_msg_hdr h = {.type = SESSION_SIGNAL, .value = sig};
	struct iovec iov = {.iov_base = &h, .iov_len = sizeof(h)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	(void)SYS3(SYS_sendmsg, sock, &msg, MSG_NOSIGNAL);
}

static long long q_now_ms(void)
{
	struct timespec ts = {0};

	(void)SYS2(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Told to end (sig) and init did not read what was sent within
 * SESSION_DEAF_MS (session.h): it does not serve (stopped, wedged), and
 * no exit status will come. The full client's line and status. */
_Static_assert(SESSION_DEAF_MS == 1000, "deaf_exit's line says 1 s: keep them in step");

__attribute__((noreturn)) static void deaf_exit(const char *name, int sig)
{
	char what[256];
	size_t n = 0;
	const char *sname = sig == SIGINT    ? "SIGINT"
			    : sig == SIGHUP  ? "SIGHUP"
			    : sig == SIGQUIT ? "SIGQUIT"
					     : "SIGTERM";

	(void)(q_put(what, sizeof(what), &n, "session '") && q_put(what, sizeof(what), &n, name) &&
	       q_put(what, sizeof(what), &n, "' did not take ") &&
	       q_put(what, sizeof(what), &n, sname) &&
	       q_put(what, sizeof(what), &n,
		     " within 1 s: its init does not answer (kjail ls shows it busy; kjail "
		     "stop NAME ends it)"));
	q_print("session", what);
	q_exit(128 + sig);
}

/* The command runs: forward the signals a one-shot run forwards
 * (runtime/signals.h) to it, print what init reports, exit with its
 * status. */
__attribute__((noreturn)) static void wait_exit(int sock, const char *name)
{
	uint64_t fwd = KJ_SIGS_FORWARDED;
	/* SIGPIPE blocked as the full client ignores it: an error line to a
	 * closed stderr must not change the exit status. */
	uint64_t blocked = fwd | 1ULL << (SIGPIPE - 1);
	long sfd;
	long long deaf_since = -1; /* an end signal sent then, not known taken */
	int deaf_sig = 0;

	(void)SYS4(SYS_rt_sigprocmask, SIG_BLOCK, &blocked, 0, sizeof(blocked));
	sfd = SYS4(SYS_signalfd4, -1, &fwd, sizeof(fwd), SFD_CLOEXEC);
	/* No signalfd (out of fds): a signal then ends the client, and init
	 * kills the command whose client went away. */
	if (sfd < 0)
		(void)SYS4(SYS_rt_sigprocmask, SIG_UNBLOCK, &fwd, 0, sizeof(fwd));
	for (;;) {
		struct pollfd p[2] = {{.fd = sock, .events = POLLIN},
				      {.fd = (int)sfd, .events = POLLIN}};
		long wait_ms = -1, r;

		if (deaf_since >= 0) {
			long long left = deaf_since + SESSION_DEAF_MS - q_now_ms();
			int unread = 0;

			if (left > 0)
				wait_ms = (long)left;
			else if (SYS3(SYS_ioctl, sock, SIOCOUTQ, &unread) == 0 && unread > 0)
				deaf_exit(name, deaf_sig);
			else
				deaf_since = -1,
				deaf_sig = 0; /* init took it (or cannot be asked) */
		}
		r = SYS3(SYS_poll, p, 2, wait_ms);
		if (r == -EINTR)
			continue;
		if (r < 0)
			break;
		if (p[0].revents) {
			struct session_msg_hdr h;
			char text[sizeof(((struct kj_err *)0)->msg)];
			struct iovec iov[2] = {{.iov_base = &h, .iov_len = sizeof(h)},
					       {.iov_base = text, .iov_len = sizeof(text) - 1}};
			struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
			long n;

			do
				n = SYS3(SYS_recvmsg, sock, &msg, MSG_CMSG_CLOEXEC);
			while (n == -EINTR);
			if (n < (long)sizeof(h) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
				break;
			text[n - (long)sizeof(h)] = '\0';
			if (h.type == SESSION_FAILED)
				q_print(h.value == KJ_EXIT_SETUP ? "session" : "exec", text);
			else if (h.type == SESSION_EXITED)
				q_exit(h.value);
		}
		if (p[1].revents) {
			struct signalfd_siginfo si;
			if (SYS3(SYS_read, sfd, &si, sizeof(si)) == (long)sizeof(si)) {
				send_signal(sock, (int)si.ssi_signo);
				/* Checked from the last message sent: one sent
				 * just now is not one init left unread. */
				if (kj_sig_ends((int)si.ssi_signo) || deaf_since >= 0) {
					deaf_since = q_now_ms();
					deaf_sig = deaf_sig ? deaf_sig : (int)si.ssi_signo;
				}
			}
		}
	}
	{
		char what[128];
		size_t n = 0;
		(void)(q_put(what, sizeof(what), &n, "session '") &&
		       q_put(what, sizeof(what), &n, name) &&
		       q_put(what, sizeof(what), &n, "' ended (kjail ls shows its state)"));
		q_print("session", what);
	}
	q_exit(KJ_EXIT_SETUP);
}

/* Called by kj_entry with the process's initial stack; returns only when
 * the full client should run instead. */
__attribute__((visibility("hidden"), used)) void session_quick_main(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1), **envp = argv + argc + 1, **cmd;
	const char *name;
	int sock;

	if (!plain_form(argc, argv, &name, &cmd) || q_getenv(envp, "KJAIL_TRACE") || !stdio_plain())
		return;
	sock = connect_plain(envp, name);
	if (sock < 0)
		return;
	if (!send_exec(sock, cmd)) {
		(void)SYS1(SYS_close, sock);
		return;
	}
	wait_exit(sock, name);
}

/* The process's first instruction: keep the initial stack pointer and
 * %rdx (the ABI's exit hook) in callee-saved registers, try the quick
 * client on a 16-byte aligned stack, and if it returns, start glibc
 * exactly as the kernel would have. */
__asm__(".text\n"
	".globl kj_entry\n"
	".type kj_entry, @function\n"
	"kj_entry:\n"
	"	mov %rsp, %r12\n"
	"	mov %rdx, %r13\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call session_quick_main\n"
	"	mov %r12, %rsp\n"
	"	mov %r13, %rdx\n"
	"	jmp _start\n"
	".size kj_entry, .-kj_entry\n");

#endif
