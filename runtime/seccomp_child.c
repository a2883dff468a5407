/* A caller's seccomp policy file, compiled by libseccomp in a child
 * process under a CPU-time limit.
 *
 * Why: libseccomp 2.5.4 merges the rules of one syscall into a decision
 * tree, and some rule shapes (found by fuzzing: two rules for socket, each
 * a masked == on a different argument plus the same != on a third) send
 * that merge into a search that runs for minutes. A policy file is caller
 * input; kjail must answer it with exit 125 in bounded time, not hang (a
 * CI job stuck in kjail holds its runner until its own timeout). The
 * parser's checks run here in the caller's process first, so a syntax
 * error costs no fork and keeps its file:line message.
 *
 * Leave nothing behind: the child dies with kjail (PR_SET_PDEATHSIG) and
 * is reaped on every path.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/seccomp.h"
#include "runtime/stdio.h"

#define CPU_LIMIT_S 2       /* a real policy compiles in milliseconds */
#define WALL_LIMIT_MS 10000 /* the CPU limit, with room for a loaded host */

struct reply {
	int rc;
	unsigned int len; /* instructions that follow when rc == 0 */
	struct kj_err err;
};

static void child(const char *text, const char *source, int fd, pid_t parent)
{
	struct rlimit cpu = {CPU_LIMIT_S, CPU_LIMIT_S + 1};
	struct kj_seccomp_prog *prog = NULL;
	struct reply r = {0};

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	/* SIGXCPU at the soft limit, SIGKILL at the hard one. */
	if (setrlimit(RLIMIT_CPU, &cpu) < 0)
		_exit(1);
	r.rc = kj_seccomp_compile(text, source, &prog, &r.err);
	r.len = r.rc ? 0 : kj_seccomp_prog_len(prog);
	if (!fd_write_all(fd, &r, sizeof(r)) ||
	    (r.len &&
	     !fd_write_all(fd, kj_seccomp_prog_insns(prog), r.len * sizeof(struct sock_filter))))
		_exit(1);
	_exit(0);
}

/* Read exactly len bytes unless the deadline passes or the child closes
 * the pipe: 0, -ETIMEDOUT or -EPIPE. */
static int read_until(int fd, void *buf, size_t len, const struct timespec *deadline)
{
	char *p = buf;

	while (len) {
		struct timespec now;
		long ms;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (deadline->tv_sec - now.tv_sec) * 1000 +
		     (deadline->tv_nsec - now.tv_nsec) / 1000000;
		if (ms <= 0)
			return -ETIMEDOUT;
		if (poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, (int)ms) < 0 &&
		    errno != EINTR)
			return -errno;
		n = read(fd, p, len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int child_failed(pid_t pid, int rc, const char *source, struct kj_err *err)
{
	int status = 0;

	if (rc == -ETIMEDOUT)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc == -ETIMEDOUT ||
	    (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL)))
		return kj_fail(err, "seccomp", 0,
			       "give fewer rules with argument conditions for one syscall",
			       "%s: libseccomp did not finish compiling the policy within %d s",
			       source, CPU_LIMIT_S);
	if (WIFSIGNALED(status))
		return kj_fail(err, "seccomp", 0, "report it as a kjail bug",
			       "%s: the policy compiler died of signal %d", source,
			       WTERMSIG(status));
	return kj_fail(err, "seccomp", -rc, "report it as a kjail bug",
		       "%s: the policy compiler exited with %d", source,
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int kj_seccomp_compile_bounded(const char *text, const char *source, struct kj_seccomp_prog **out,
			       struct kj_err *err)
{
	struct sock_filter insns[BPF_MAXINSNS];
	struct timespec deadline;
	struct reply r = {0};
	pid_t parent = getpid(), pid;
	int fds[2], rc, status;

	*out = NULL;
	if ((rc = kj_seccomp_check(text, source, err)))
		return rc;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return kj_fail(err, "seccomp", errno, NULL,
			       "cannot create a pipe to the policy compiler");
	pid = fork();
	if (pid < 0) {
		rc = errno;
		close(fds[0]);
		close(fds[1]);
		return kj_fail(err, "seccomp", rc, NULL, "cannot start the policy compiler");
	}
	if (pid == 0) {
		close(fds[0]);
		child(text, source, fds[1], parent);
	}
	close(fds[1]);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += WALL_LIMIT_MS / 1000;
	rc = read_until(fds[0], &r, sizeof(r), &deadline);
	if (!rc && !r.rc && (r.len == 0 || r.len > BPF_MAXINSNS))
		rc = -EPROTO;
	if (!rc && !r.rc)
		rc = read_until(fds[0], insns, r.len * sizeof(*insns), &deadline);
	close(fds[0]);
	if (rc)
		return child_failed(pid, rc, source, err);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r.rc) {
		r.err.part[sizeof(r.err.part) - 1] = '\0';
		r.err.msg[sizeof(r.err.msg) - 1] = '\0';
		*err = r.err;
		return r.rc < 0 ? r.rc : -EINVAL;
	}
	return kj_seccomp_from_bpf(insns, r.len, out, err);
}
