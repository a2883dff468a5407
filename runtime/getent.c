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
#include <spawn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

long getent_query(const char *db, const char *key, char *out, size_t cap)
{
	static const char *const paths[] = {"/usr/bin/getent", "/bin/getent", NULL};
	/* No caller variables: a LD_PRELOAD or LOCPATH of the environment
	 * kjail was started with has no business in the lookup. */
	static char *const envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
	char *argv[] = {"getent", (char *)db, "--", (char *)key, NULL};
	posix_spawn_file_actions_t fa;
	int p[2], e, st;
	pid_t w;
	bool truncated = false;
	size_t len = 0;
	pid_t pid = -1;

	if (cap == 0 || pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	if ((e = posix_spawn_file_actions_init(&fa)) != 0) {
		close(p[0]);
		close(p[1]);
		return -e;
	}
	(void)posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	(void)posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	(void)posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	for (int i = 0; paths[i] && pid < 0; i++)
		if (posix_spawn(&pid, paths[i], &fa, NULL, argv, envp) != 0)
			pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -ENOENT; /* no getent: nothing more to ask */
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
