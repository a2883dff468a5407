/* The sandbox's pid 1: reaps every orphan, forwards the parent's signals,
 * and exits with COMMAND's status as soon as COMMAND ends. Its exit makes
 * the kernel kill everything else in the pid namespace, so nothing the
 * command left behind (daemonized grandchildren included) survives it. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/sandbox.h"
#include "runtime/signals.h"

int exit_code_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void init_run(int ctl, pid_t command)
{
	struct pollfd pfd[2];
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	pfd[0].fd = signalfd(-1, &set, SFD_CLOEXEC);
	pfd[0].events = POLLIN;
	pfd[1].fd = ctl;
	pfd[1].events = POLLIN;
	if (pfd[0].fd < 0)
		_exit(125);
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			_exit(125);
		if (pfd[0].revents) {
			struct signalfd_siginfo si;
			int st;
			pid_t p;
			(void)!read(pfd[0].fd, &si, sizeof(si));
			while ((p = waitpid(-1, &st, WNOHANG)) > 0)
				if (p == command) {
					kj_trace("init: command reaped");
					_exit(exit_code_of(st));
				}
		}
		if (pfd[1].revents) {
			unsigned char msg[2];
			ssize_t n = read(ctl, msg, sizeof(msg));
			if (n <= 0)
				_exit(125); /* the parent is gone: take the sandbox down */
			if (n == 2 && msg[0] == INIT_TO_COMMAND)
				(void)kill(-command, msg[1]);
			else if (n == 2 && msg[0] == INIT_TO_ALL)
				(void)kill(-1, msg[1]);
			/* runtime/signals.h: an ending signal, then SIGCONT. */
			if (n == 2 && kj_sig_ends(msg[1]))
				(void)kill(msg[0] == INIT_TO_COMMAND ? -command : -1, SIGCONT);
		}
	}
}
