/* A fresh /proc for the sandbox's pid namespace, with the host-wide knobs
 * made read-only and the dangerous files masked; and the masks on /sys.
 *
 * Why not procfs's subset=pid (only the pid directories): /proc/meminfo,
 * /proc/cpuinfo, /proc/stat, /proc/loadavg, /proc/mounts and friends go
 * with it, and free, top, ps, Node's os.totalmem(), JVMs sizing their
 * heap and many build tools read them. The host-wide files that matter
 * are masked or read-only below instead. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "mounts/mountapi.h"
#include "mounts/rootfs.h"
#include "runtime/mount_watch.h"

/* Read-only: a root caller's sandbox maps uid 0 to host uid 0, so a
 * writable /proc/sys would let it rewrite host-wide sysctls such as
 * kernel.core_pattern (a host-root code execution path). */
static const char *const proc_readonly[] = {"sys", "irq", "bus", "fs", NULL};

/* Masked with /dev/null (absent ones are skipped): kernel memory (kcore),
 * kernel addresses (kallsyms: KASLR), host-wide key rings, timer and
 * scheduler internals that leak host activity (timer_list, timer_stats,
 * sched_debug, latency_stats), and sysrq-trigger, which a root caller's
 * uid 0 could otherwise write to crash or reboot the host. Also, for a
 * root caller's uid 0 (these are 0400 root): physical page flags, counts
 * and cgroups (kpage*: what a Rowhammer attack uses to aim, the reason
 * pagemap's PFNs were hidden from unprivileged readers in Linux 4.0) and
 * the kernel heap's layout (slabinfo, pagetypeinfo, vmallocinfo), the
 * usual aids of a kernel heap exploit. */
static const char *const proc_masked_files[] = {
	"kcore",       "keys",          "timer_list",    "timer_stats", "sched_debug",
	"kallsyms",    "sysrq-trigger", "latency_stats", "kpageflags",  "kpagecount",
	"kpagecgroup", "slabinfo",      "pagetypeinfo",  "vmallocinfo", NULL,
};

/* Masked with an empty read-only directory: the host's ACPI, SCSI and
 * sound hardware (/proc/scsi/scsi once took commands that rescanned the
 * host's buses). */
static const char *const proc_masked_dirs[] = {"acpi", "scsi", "asound", NULL};

/* Masked in /sys (a fresh sysfs with --net none, the host's read-only
 * one with --net host): firmware tables (the raw DMI table with its
 * serial numbers); RAPL energy counters, a power side channel on the
 * host's CPUs (PLATYPUS, CVE-2020-8694); debugfs and tracefs, kernel
 * internals readable by a root caller's uid 0; SLUB's per-cache
 * counters (0400 root: /proc/slabinfo by another path, the kernel heap's
 * layout that a heap exploit grooms by, readable by a root caller's uid
 * 0 while /proc/slabinfo was masked); and DAMON's monitors (0600 root:
 * the host's memory access pattern, by physical address with paddr, the
 * state /proc/kpageflags and page_idle give). */
static const char *const sys_masked_dirs[] = {
	"/sys/firmware",
	"/sys/devices/virtual/powercap",
	"/sys/kernel/debug",
	"/sys/kernel/tracing",
	"/sys/kernel/slab",
	"/sys/kernel/mm/damon",
	NULL,
};

/* Masked with /dev/null, absent ones skipped: the 0400-root files a root
 * caller's uid 0 could read past the masks above. DMI's serial numbers
 * and machine UUID, decoded (the host's identity; /sys/firmware masks
 * only the raw table), and the idle bitmap of physical pages (/proc's
 * kpageflags by another path: physical page state). The world-readable
 * DMI names (vendor, product) stay, for tools that detect a VM by them. */
static const char *const sys_masked_files[] = {
	"/sys/devices/virtual/dmi/id/product_serial",
	"/sys/devices/virtual/dmi/id/product_uuid",
	"/sys/devices/virtual/dmi/id/board_serial",
	"/sys/devices/virtual/dmi/id/chassis_serial",
	"/sys/kernel/mm/page_idle/bitmap",
	NULL,
};

/* A read-only bind of /proc/NAME onto itself. NAME is one plain entry of
 * the proc mount made a moment ago, which nothing else can reach yet, so
 * it is named, not opened first. */
static int bind_readonly(int procfd, const char *name, struct kj_err *err)
{
	int mfd = open_tree(procfd, name,
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW |
				    AT_RECURSIVE),
	    rc;

	if (mfd < 0 && errno == ENOENT)
		return 0;
	if (mfd < 0)
		return kj_fail(err, "mount", errno, NULL, "clone /proc/%s", name);
	rc = tree_setattr(mfd, 1,
			  MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				  MOUNT_ATTR_NOEXEC,
			  0, name, err);
	if (!rc && move_mount(mfd, "", procfd, name, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		rc = kj_fail(err, "mount", errno, NULL, "attach /proc/%s", name);
	else if (!rc)
		mount_watch_note(mfd);
	close(mfd);
	return rc;
}

/* Hide what fd names (-ENOENT: nothing to hide). */
static int mask_at(int fd, const char *name, int is_dir, struct kj_err *err)
{
	int rc;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return kj_fail(err, "mount", -fd, NULL, "open %s", name);
	rc = mask_onto(fd, is_dir, true, name, err);
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
		rc = mask_at(
			path_open(mfd, proc_masked_files[i], O_NOFOLLOW, RESOLVE_BENEATH_FLAGS),
			proc_masked_files[i], 0, err);
	for (int i = 0; !rc && proc_masked_dirs[i]; i++)
		rc = mask_at(path_open(mfd, proc_masked_dirs[i], O_NOFOLLOW, RESOLVE_BENEATH_FLAGS),
			     proc_masked_dirs[i], 1, err);
	close(mfd);
	return rc;
}

int sys_masks_mount(int rootfd, struct kj_err *err)
{
	int rc = 0;

	/* Resolved in the new root, as sys_mount resolved /sys. */
	for (int i = 0; !rc && sys_masked_dirs[i]; i++)
		rc = mask_at(path_open_in_root(rootfd, sys_masked_dirs[i], O_DIRECTORY),
			     sys_masked_dirs[i], 1, err);
	for (int i = 0; !rc && sys_masked_files[i]; i++)
		rc = mask_at(path_open_in_root(rootfd, sys_masked_files[i], O_NOFOLLOW),
			     sys_masked_files[i], 0, err);
	return rc;
}
