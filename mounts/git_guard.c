/* The check after the run, also after kill -9 of kjail.
 *
 * git_after_finish runs in kjail once every process of the sandbox is
 * gone. kill -9 of kjail (an agent harness's own timeout, `kill -9`, a
 * Python subprocess.kill()) or of a session's supervisor skipped it: the
 * sandbox died with kjail, but a .git/commondir or config.worktree the
 * command had made stayed in the workspace, and the user's next `git
 * status` took hooks and config (core.fsmonitor: a command run on the
 * host) from a directory of the command's choosing. A command that planted
 * one and then hung was enough to get there under a harness that kills on
 * timeout.
 *
 * So a guardian process, kjail-git, holds the snapshot git_after_start
 * took and does the check itself when its socket from kjail ends without
 * kjail's word that it did ('d'). It waits first for the sandbox's init to
 * exit: kjail sends it init's pidfd ('p') before COMMAND may start, and
 * when a pid namespace's init has exited the kernel has killed every
 * other process in it, so none can plant more after the check. No pidfd
 * (kjail died before the clone): COMMAND never ran, nothing to check.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mounts/git_after.h"

/* One byte, and with 'p' the pidfd. 1, 0 at end of file, -1 on error. */
static ssize_t guard_recv(int sock, char *c, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = c, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *cm;
	ssize_t n;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*fd = -1;
	for (cm = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL; cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(cm), sizeof(int));
	return n;
}

__attribute__((noreturn)) static void guard_serve(struct git_after *g, int sock)
{
	int pidfd = -1, fd;
	char c;

	for (;;) {
		ssize_t n = guard_recv(sock, &c, &fd);
		if (n == 1 && c == 'd')
			_exit(0); /* kjail did the check */
		if (n == 1 && c == 'p' && fd >= 0) {
			if (pidfd >= 0)
				close(pidfd);
			pidfd = fd;
			continue;
		}
		if (fd >= 0)
			close(fd);
		break; /* kjail is gone without the check (or the socket failed) */
	}
	if (pidfd < 0)
		_exit(0); /* no sandbox was cloned: COMMAND never ran */
	{
		struct pollfd p = {.fd = pidfd, .events = POLLIN};
		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
	}
	(void)git_after_finish(g, g->cfg->quiet);
	_exit(0);
}

/* One fork, kjail's own child: kjail waits for its sandbox's init and its
 * session's processes by pidfd only, so no wait of kjail's can take it.
 * The wait for its "k" is left to git_guard_arm, after the sandbox's
 * setup has begun. (A grandchild, and the waits here, cost a git
 * workspace's run 0.65 ms more, paired A/B; the fork alone about 1 ms on
 * this 2-vCPU VM, which is what the check after a kill -9 costs.) */
void git_guard_start(struct git_after *g)
{
	int sp[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
		g->guard_err = errno;
		return;
	}
	pid = fork();
	if (pid == 0) {
		sigset_t all;
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* In a session of its own (below), every signal blocked: a
		 * kill of kjail's process group (^C, a harness's killpg) does
		 * not take it along. */
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		/* Holds nothing of the caller's but stderr (for the line saying
		 * what it set aside): not its pipes on 0 and 1, whose readers
		 * wait for their end. */
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(sp[1], 3) < 0)
			_exit(1);
		syscall(SYS_close_range, 4, ~0U, 0);
		(void)prctl(PR_SET_NAME, "kjail-git");
		(void)!chdir("/");
		g->guard = -1; /* its git_after_finish tells no guardian */
		/* Ready once out of kjail's session and process group: kjail
		 * waits for this byte before COMMAND may start, so no kill -9
		 * of its group (kill -9 %1, a harness's killpg) can take the
		 * guardian along from then on. */
		if (setsid() < 0 || write(3, "k", 1) != 1)
			_exit(1);
		guard_serve(g, 3);
	}
	close(sp[1]);
	if (pid < 0) {
		g->guard_err = errno;
		close(sp[0]);
		return;
	}
	g->guard = sp[0];
	g->guard_pid = pid;
}

int git_guard_arm(struct git_after *g, int pidfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = "p", .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	char k = 0;
	ssize_t n;

	if (!g)
		return 0;
	if (g->guard_err)
		return -g->guard_err; /* fail closed: no one would check */
	if (g->guard < 0)
		return 0; /* no .git: nothing to guard */
	while ((n = read(g->guard, &k, 1)) < 0 && errno == EINTR)
		;
	if (n != 1 || k != 'k')
		return n < 0 ? -errno : -EPIPE; /* it died before its setsid */
	memset(u.buf, 0, sizeof(u.buf));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &pidfd, sizeof(int));
	return sendmsg(g->guard, &msg, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

void git_guard_release(struct git_after *g)
{
	struct pollfd pfd = {.fd = g->guard, .events = POLLIN};
	bool ended = g->guard < 0;
	char c;
	ssize_t n = 1;

	if (g->guard >= 0) {
		/* It exits at once: its end of file says so (at most a second
		 * each for a "k" never read and the end). A guardian someone
		 * stopped is not waited for: reaped by kjail's own parent. */
		if (send(g->guard, "d", 1, MSG_NOSIGNAL) == 1)
			for (int i = 0; i < 2 && n == 1 && poll(&pfd, 1, 1000) == 1; i++)
				n = read(g->guard, &c, 1);
		ended = n == 0;
		close(g->guard);
		g->guard = -1;
	}
	if (g->guard_pid > 0)
		(void)waitpid(g->guard_pid, NULL, ended ? 0 : WNOHANG);
	g->guard_pid = 0;
}
