/* Live probes, each in a child of its own (see probe.h). */
#include "runtime/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mounts/mountapi.h"
#include "net/loopback.h"
#include "runtime/seccomp.h"

/* Run fn in a child; its error record comes back through a pipe. */
static int in_child(int (*fn)(void *, struct kj_err *), void *arg, struct kj_err *err)
{
	struct kj_err child = {0};
	int p[2], st = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return kj_fail(err, "doctor", errno, NULL, "create a pipe");
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return kj_fail(err, "doctor", errno, NULL, "fork a probe");
	}
	if (pid == 0) {
		int rc;
		close(p[0]);
		alarm(10); /* a probe that hangs must not hang doctor */
		rc = fn(arg, &child);
		if (rc)
			(void)!write(p[1], &child, sizeof(child));
		_exit(rc ? 1 : 0);
	}
	close(p[1]);
	n = read(p[0], &child, sizeof(child));
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (n == (ssize_t)sizeof(child)) {
		*err = child;
		return -EINVAL;
	}
	return kj_fail(err, "doctor", 0,
		       "run kjail doctor again; if it repeats, report it with this line",
		       "the probe died (%s %d)", WIFSIGNALED(st) ? "signal" : "status",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

static int write_self(const char *name, const char *text)
{
	char path[64];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "/proc/self/%s", name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

const char *userns_map_fix(int rc)
{
	/* Exec of a binary its caller cannot read (installed 0711) makes the
	 * process undumpable, and the kernel then gives its /proc/PID files
	 * to root: the caller cannot write its own child's maps. */
	if (rc == -EACCES && prctl(PR_GET_DUMPABLE) == 0)
		return "kjail's binary is not readable by you, so the kernel makes its "
		       "processes' /proc files root's: make it readable, chmod a+r on it";
	return NULL;
}

static int userns_steps(void *arg, struct kj_err *err)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	int rc;

	(void)arg;
	if (unshare(CLONE_NEWUSER) < 0)
		return kj_fail(err, "userns", errno, NULL, "unshare(CLONE_NEWUSER)");
	/* In the launcher's order (runtime/launch.c), so that a refusal
	 * names the step a run would stop at, as the verdict promises. */
	if ((rc = write_self("setgroups", "deny")))
		return kj_fail(err, "userns", -rc, userns_map_fix(rc), "write setgroups");
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if ((rc = write_self("uid_map", map)))
		return kj_fail(err, "userns", -rc, userns_map_fix(rc), "write uid_map");
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if ((rc = write_self("gid_map", map)))
		return kj_fail(err, "userns", -rc, userns_map_fix(rc), "write gid_map");
	if (unshare(CLONE_NEWNS) < 0)
		return kj_fail(
			err, "userns", errno, NULL,
			"unshare(CLONE_NEWNS) inside the new user namespace (no capabilities there)");
	return 0;
}

int probe_userns(struct kj_err *err)
{
	return in_child(userns_steps, NULL, err);
}

static int mount_steps(void *arg, struct kj_err *err)
{
	int fd, rootfd;

	(void)arg;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return kj_fail(err, "mount", errno, NULL, "unshare a user and mount namespace");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return kj_fail(err, "mount", errno, NULL, "make / private");
	if ((fd = fs_new("tmpfs", "size=4k", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, err)) < 0)
		return fd;
	close(fd);
	if ((rootfd = path_open(AT_FDCWD, "/", O_DIRECTORY, 0)) < 0)
		return kj_fail(err, "mount", -rootfd, NULL, "open /");
	fd = tree_clone(rootfd, "/", 1, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0,
			err);
	close(rootfd);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int probe_mount_api(struct kj_err *err)
{
	return in_child(mount_steps, NULL, err);
}

static int net_steps(void *arg, struct kj_err *err)
{
	(void)arg;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return kj_fail(err, "net", errno, NULL, "unshare a user and network namespace");
	return net_loopback_up(err);
}

int probe_netns(struct kj_err *err)
{
	return in_child(net_steps, NULL, err);
}

struct seccomp_probe {
	struct kj_seccomp_prog *prog;
	bool check_unshare;
};

static int seccomp_steps(void *arg, struct kj_err *err)
{
	const struct seccomp_probe *p = arg;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return kj_fail(err, "seccomp", errno, NULL, "set no_new_privs");
	if (kj_seccomp_load(p->prog, err))
		return -EINVAL;
	/* The filter must act, not merely load. */
	if (p->check_unshare && (unshare(CLONE_NEWUSER) == 0 || errno != EPERM))
		return kj_fail(
			err, "seccomp", 0,
			"do not run untrusted code on this host; report it with kjail doctor's output",
			"the loaded filter did not deny unshare(CLONE_NEWUSER)");
	return 0;
}

int probe_seccomp(const char *text, const char *source, bool check_unshare, unsigned *insns,
		  struct kj_err *err)
{
	struct seccomp_probe p = {.check_unshare = check_unshare};
	int rc;

	*insns = 0;
	if (kj_seccomp_compile_bounded(text, source, &p.prog, err))
		return -EINVAL;
	*insns = kj_seccomp_prog_len(p.prog);
	rc = in_child(seccomp_steps, &p, err);
	kj_seccomp_free(p.prog);
	return rc;
}
