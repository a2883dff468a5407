/* A fresh /proc for the sandbox's pid namespace, with the host-wide knobs
 * made read-only and the dangerous files masked. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "mounts/mountapi.h"
#include "mounts/rootfs.h"

/* Read-only: a root caller's sandbox maps uid 0 to host uid 0, so a
 * writable /proc/sys would let it rewrite host-wide sysctls such as
 * kernel.core_pattern (a host-root code execution path). */
static const char *const proc_readonly[] = {"sys", "irq", "bus", "fs", "sysrq-trigger", NULL};

/* Masked with /dev/null: kernel memory (kcore), host-wide key rings,
 * timer and scheduler internals that leak host activity. */
static const char *const proc_masked_files[] = {
	"kcore", "keys", "timer_list", "sched_debug", "kallsyms", NULL,
};

static int bind_readonly(int procfd, const char *name, struct kj_err *err)
{
	int fd = path_open(procfd, name, O_NOFOLLOW, RESOLVE_BENEATH_FLAGS), mfd, rc;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return kj_fail(err, "mount", -fd, NULL, "open /proc/%s", name);
	mfd = tree_clone(fd, name, 1, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					       MOUNT_ATTR_NOEXEC, 0, err);
	rc = mfd < 0 ? mfd : tree_attach(mfd, fd, name, err);
	if (mfd >= 0)
		close(mfd);
	close(fd);
	return rc;
}

static int mask_file(int procfd, const char *name, struct kj_err *err)
{
	int fd = path_open(procfd, name, O_NOFOLLOW, RESOLVE_BENEATH_FLAGS), mfd, rc;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return kj_fail(err, "mount", -fd, NULL, "open /proc/%s", name);
	mfd = mask_source(0, err);
	rc = mfd < 0 ? mfd : tree_attach(mfd, fd, name, err);
	if (mfd >= 0)
		close(mfd);
	close(fd);
	return rc;
}

int proc_mount(int rootfd, const struct kj_config *cfg, struct kj_err *err)
{
	int tfd, mfd, rc;

	(void)cfg;
	tfd = mountpoint_open(rootfd, "/proc", 1, "/proc", err);
	if (tfd < 0)
		return tfd;
	mfd = fs_new("proc", NULL, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, err);
	if (mfd < 0) {
		close(tfd);
		return mfd;
	}
	rc = tree_attach(mfd, tfd, "/proc", err);
	close(tfd);
	if (rc) {
		close(mfd);
		return rc;
	}
	/* mfd still names the new proc mount: work beneath it. */
	for (int i = 0; !rc && proc_readonly[i]; i++)
		rc = bind_readonly(mfd, proc_readonly[i], err);
	for (int i = 0; !rc && proc_masked_files[i]; i++)
		rc = mask_file(mfd, proc_masked_files[i], err);
	close(mfd);
	return rc;
}
