/* inotify_hog: take every inotify instance the caller's user may have
 * (fs.inotify.max_user_instances counts per user), print how many, and
 * hold them until stdin closes. mount_watch.t runs it as the
 * unprivileged test user to see kjail fail closed without one. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <unistd.h>

int main(void)
{
	struct rlimit fds;
	int n = 0;
	char c;

	/* EMFILE is also the fd limit's answer: out of its way. */
	if (getrlimit(RLIMIT_NOFILE, &fds) == 0) {
		fds.rlim_cur = fds.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &fds);
	}

	/* Far more than any default limit: a user with no limit at all
	 * cannot be tested this way. */
	while (n < 100000 && inotify_init1(IN_CLOEXEC) >= 0)
		n++;
	if (errno != EMFILE || (rlim_t)n + 8 >= fds.rlim_cur) {
		printf("stopped by %s after %d\n", strerror(errno), n);
		return 1;
	}
	printf("%d\n", n);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
