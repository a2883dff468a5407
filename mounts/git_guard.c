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
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mounts/git_after.h"
#include "runtime/channel.h"

__attribute__((noreturn)) static void guard_serve(struct git_after *g, int sock)
{
	int pidfd = -1, fd;
	char c;

	for (;;) {
		ssize_t n = channel_msg_recv(sock, &c, 1, &fd);
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
	/* Of the caller's only stderr (for the line saying what it set
	 * aside): not its pipes on 0 and 1, whose readers wait for their end. */
	static const int fds[] = {-1, -1, 2}; /* its socket: fd 3 */
	int rc = guardian_start(&g->guard, "kjail-git", SOCK_SEQPACKET, fds, 3, false);

	if (rc < 0)
		g->guard_err = -rc;
	else if (rc == 0)
		guard_serve(g, 3);
}

int git_guard_arm(struct git_after *g, int pidfd)
{
	if (!g)
		return 0;
	if (g->guard_err)
		return -g->guard_err; /* fail closed: no one would check */
	if (g->guard.sock < 0)
		return 0; /* no .git: nothing to guard */
	return guardian_ready(&g->guard) ?: channel_msg_send(g->guard.sock, "p", 1, pidfd);
}

void git_guard_release(struct git_after *g)
{
	guardian_end(&g->guard, 'd');
}
