#include "runtime/guardian.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Nothing of kjail's or the caller's but what it is given: not the
 * caller's pipes (their readers wait for their end), not a pty master.
 * Each is copied above 0..nfds first, so no placement overwrites one. */
static void guardian_fds(const int *fds, int nfds, int sock)
{
	int from[4], null = -1; /* nfds <= 3 */

	for (int i = 0; i <= nfds; i++) {
		int fd = i == nfds ? sock : fds[i];
		if (fd < 0 && null < 0)
			null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if ((from[i] = fcntl(fd < 0 ? null : fd, F_DUPFD, nfds + 1)) < 0)
			_exit(1);
	}
	for (int i = 0; i <= nfds; i++)
		if (dup2(from[i], i) < 0)
			_exit(1);
	syscall(SYS_close_range, nfds + 1, ~0U, 0);
}

static void guardian_child(const char *name, const int *fds, int nfds, int sock)
{
	sigset_t all;

	/* Every signal blocked: with the session of its own below, a kill of
	 * kjail's process group (^C, a harness's killpg) does not take it
	 * along; SIGTTOU too, so kjail-tty's tcsetattr works also once the
	 * caller's shell has the terminal again. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	guardian_fds(fds, nfds, sock);
	(void)prctl(PR_SET_NAME, name);
	(void)!chdir("/");
	/* Ready once out of kjail's session and process group: kjail waits
	 * for this byte before COMMAND may start (or the terminal goes raw),
	 * so no kill -9 of that group (kill -9 %1, kill -9 -PGID, a
	 * harness's killpg) takes the guardian along from then on. */
	if (setsid() < 0 || write(nfds, "k", 1) != 1)
		_exit(1);
}

int guardian_start(struct guardian *gd, const char *name, int type, const int *fds, int nfds,
		   bool grandchild)
{
	int sp[2], e;
	pid_t pid;

	*gd = (struct guardian){.sock = -1};
	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sp) < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		if (grandchild && fork() != 0)
			_exit(0);
		guardian_child(name, fds, nfds, sp[1]); /* gd: still none */
		return 0;
	}
	e = errno;
	close(sp[1]);
	if (pid < 0) {
		close(sp[0]);
		return -e;
	}
	if (grandchild)
		(void)waitpid(pid, NULL, 0);
	else
		gd->pid = pid;
	gd->sock = sp[0];
	return 1;
}

int guardian_ready(const struct guardian *gd)
{
	char k = 0;
	ssize_t n;

	while ((n = read(gd->sock, &k, 1)) < 0 && errno == EINTR)
		;
	return n == 1 && k == 'k' ? 0 : n < 0 ? -errno : -EPIPE; /* -EPIPE: died before setsid */
}

void guardian_end(struct guardian *gd, char bye)
{
	struct pollfd pfd = {.fd = gd->sock, .events = POLLIN};
	ssize_t n = gd->sock >= 0; /* 0: none to wait for */
	char c;

	/* bye goes out before the close below, so the guardian reads it
	 * before the end of file (which would make it act itself). */
	if (n && send(gd->sock, &bye, 1, MSG_NOSIGNAL) == 1 && gd->pid <= 0)
		for (int i = 0; i < 2 && n == 1 && poll(&pfd, 1, 1000) == 1; i++)
			n = read(gd->sock, &c, 1);
	if (gd->sock >= 0)
		close(gd->sock);
	/* kjail's own child: waited for until it ends, or stops (one someone
	 * stopped is not waited for; kjail's own parent reaps it), with no
	 * time bound. A second's bound left a guardian slow to exit (a loaded
	 * machine, the test VM's TCG) running when kjail returned. */
	if (gd->pid > 0) {
		int st;
		while (waitpid(gd->pid, &st, WUNTRACED) < 0 && errno == EINTR)
			;
	}
	*gd = (struct guardian){.sock = -1};
}
