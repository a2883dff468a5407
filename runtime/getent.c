/* getent(1) as kjail's window on the host's name services.
 *
 * kjail is a static-pie binary (Makefile: a start-up without the dynamic
 * loader is ~0.3 ms faster, most of it in the sandbox's init and the
 * session client). glibc's NSS in a static process still dlopen()s the
 * modules nsswitch.conf names (systemd, sss, ldap, mdns, resolve), each
 * linked against the shared libc: two C libraries in one process, and
 * `--user unknown` crashed inside libnss_systemd that way. So kjail never
 * calls getpwnam or getaddrinfo with such modules in play: it reads the
 * files itself (runtime/accounts.c), uses glibc's built-in files and dns
 * services for host names (net/proxy_hosts.c), and asks getent, a
 * dynamically linked program of the host's own libc, for anything else.
 */
#include "runtime/getent.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* fd as to, open across the exec (a dup2 onto itself would keep
 * O_CLOEXEC: a caller with its stdout closed gets the pipe there). */
static int move_fd(int fd, int to)
{
	return fd == to ? fcntl(fd, F_SETFD, 0) : dup2(fd, to);
}

/* The child of a fork: getent on the pipe's write end. Only
 * async-signal-safe calls (the proxy forks from one of its threads). */
__attribute__((noreturn)) static void getent_exec(pid_t parent, int out, char *const argv[],
						  char *const envp[])
{
	static const char *const paths[] = {"/usr/bin/getent", "/bin/getent", NULL};
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	/* getent dies with its caller: the proxy exits when the sandbox
	 * ends, without waiting for a lookup still in flight (nothing can
	 * wake it), and kill -9 of kjail ends it. A getent left alone ran
	 * on, orphaned, for as long as the host's resolver (an mdns or
	 * LDAP module) took: a sandbox asking for names that never answer
	 * left host processes behind after its run. The getppid check
	 * closes the race with a caller that died before the prctl. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent || null < 0 ||
	    move_fd(out, STDOUT_FILENO) < 0 || move_fd(null, STDIN_FILENO) < 0 ||
	    move_fd(null, STDERR_FILENO) < 0)
		_exit(127);
	for (int i = 0; paths[i]; i++)
		execve(paths[i], argv, envp);
	_exit(127);
}

long getent_query(const char *db, const char *key, char *out, size_t cap)
{
	/* No caller variables: a LD_PRELOAD or LOCPATH of the environment
	 * kjail was started with has no business in the lookup. */
	static char *const envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
	char *argv[] = {"getent", (char *)db, "--", (char *)key, NULL};
	int p[2], st, e;
	pid_t w, pid, self = getpid();
	bool truncated = false;
	size_t len = 0;

	if (cap == 0 || pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	/* Not posix_spawn: it cannot set the child's parent-death signal. */
	pid = fork();
	if (pid == 0)
		getent_exec(self, p[1], argv, envp);
	e = errno;
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -e;
	}
	for (;;) {
		char skip[512];
		ssize_t n = len < cap - 1 ? read(p[0], out + len, cap - 1 - len)
					  : read(p[0], skip, sizeof(skip));
		if (n > 0 && len < cap - 1)
			len += (size_t)n;
		else if (n > 0)
			truncated = true; /* read on to the end: getent must not block */
		else if (!(n < 0 && errno == EINTR))
			break;
	}
	out[len] = '\0';
	close(p[0]);
	while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	/* getent: 0 found, 2 not found (1 bad arguments, 3 no enumeration).
	 * A cut answer is no answer: half a home directory is a wrong one. */
	if (w < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || len == 0)
		return -ENOENT;
	return truncated ? -E2BIG : (long)len;
}
