/* Unit test of mounts/mountapi.c path_open: a scoped lookup through ".."
 * must not fail with EAGAIN because a mount happened elsewhere on the
 * system (binds.c took such a failure for "no linked worktree" and left
 * another worktree's commondir writable; seen in the VM tests, where
 * another lane's sandboxes mount all the time). TAP on stdout.
 *
 * A child in a user and mount namespace of its own mounts and unmounts a
 * tmpfs in a loop (the kernel's mount sequence count is global). The
 * parent alternates a bare openat2 and path_open_in_root on the same
 * "a/b/../.." path: the bare calls show the load makes EAGAIN happen
 * (otherwise the check could not fail, and is a skip), path_open must
 * never return it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mounts/mountapi.h"
#include "tests/unit/tap.h"

#define ROUNDS 300000

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		_exit(2);
	close(fd);
}

/* The load: mount and unmount a tmpfs on dir until killed. */
static void mount_loop(const char *dir, int ready)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		_exit(3);
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	write_file("/proc/self/uid_map", map);
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	write_file("/proc/self/gid_map", map);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		_exit(4);
	(void)!write(ready, "x", 1);
	for (;;) {
		if (mount("t", dir, "tmpfs", 0, NULL) < 0 || umount(dir) < 0)
			_exit(5);
	}
}

int main(void)
{
	char top[] = "/tmp/kjail-pathopen.XXXXXX", path[256], sub[256], mnt[256], why[128];
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	long raw_eagain = 0, wrapped_eagain = 0, wrapped_other = 0;
	int pipefd[2], rootfd, status;
	char c;
	pid_t pid;

	if (!mkdtemp(top) || chmod(top, 0755) < 0)
		return perror("mkdtemp"), 1;
	snprintf(sub, sizeof(sub), "%s/a", top);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/a/b", top);
	mkdir(sub, 0755);
	snprintf(mnt, sizeof(mnt), "%s/mnt", top);
	mkdir(mnt, 0755);
	snprintf(path, sizeof(path), "%s/a/b/../..", top + 1);
	rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || pipe2(pipefd, O_CLOEXEC) < 0)
		return perror("setup"), 1;
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		mount_loop(mnt, pipefd[1]);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1) {
		waitpid(pid, &status, 0);
		printf("1..0 # SKIP no user and mount namespace for the mount load (child status %d)\n",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 0;
	}
	for (int i = 0; i < ROUNDS; i++) {
		int fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
		if (fd >= 0)
			close(fd);
		else if (errno == EAGAIN)
			raw_eagain++;
		fd = path_open_in_root(rootfd, path, 0);
		if (fd >= 0)
			close(fd);
		else if (fd == -EAGAIN)
			wrapped_eagain++;
		else
			wrapped_other++;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	rmdir(mnt);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/a", top);
	rmdir(sub);
	rmdir(top);

	printf("# %d lookups each; the bare openat2 met EAGAIN %ld times\n", ROUNDS, raw_eagain);
	snprintf(why, sizeof(why), "%ld EAGAIN, %ld other errors", wrapped_eagain, wrapped_other);
	if (raw_eagain == 0)
		printf("ok 1 - path_open_retries_eagain_under_mount_load # SKIP the load made no "
		       "EAGAIN this time (the check could not fail)\n");
	else
		ok(wrapped_eagain == 0 && wrapped_other == 0,
		   "path_open_retries_eagain_under_mount_load", why);
	if (n == 0)
		n = 1;
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
