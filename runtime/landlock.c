/* Landlock: defence in depth under the mount tree (see landlock.h).
 *
 * The mount tree already makes the host read-only; Landlock says the same
 * thing a second time, in terms of paths the kernel checks on every open,
 * so that one mistake (a writable submount, a tmpfs kjail mounted for its
 * own reasons, a bind made writable by accident) is not a way to write.
 *
 * ABI differences handled here (linux/landlock.h of the build machine may
 * be older than the kernel, so the constants are our own):
 *   1  (5.13) file system rights
 *   2  (5.19) REFER: rename and link across directories
 *   3  (6.2)  TRUNCATE: truncate(2) and open(O_TRUNC)
 *   4  (6.7)  TCP bind and connect by port
 *   5  (6.10) IOCTL_DEV: ioctl on device files
 *   6  (6.12) scopes: abstract unix sockets and signals
 *   7  (6.15) audit logging flags (left at their defaults, see below)
 */
#include "runtime/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mounts/mountapi.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

/* File system rights. */
#define LL_EXECUTE (1ULL << 0)
#define LL_WRITE_FILE (1ULL << 1)
#define LL_READ_FILE (1ULL << 2)
#define LL_READ_DIR (1ULL << 3)
#define LL_REMOVE_DIR (1ULL << 4)
#define LL_REMOVE_FILE (1ULL << 5)
#define LL_MAKE_CHAR (1ULL << 6)
#define LL_MAKE_DIR (1ULL << 7)
#define LL_MAKE_REG (1ULL << 8)
#define LL_MAKE_SOCK (1ULL << 9)
#define LL_MAKE_FIFO (1ULL << 10)
#define LL_MAKE_BLOCK (1ULL << 11)
#define LL_MAKE_SYM (1ULL << 12)
#define LL_REFER (1ULL << 13)                     /* ABI 2 */
#define LL_TRUNCATE (1ULL << 14)                  /* ABI 3 */
#define LL_IOCTL_DEV (1ULL << 15)                 /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)               /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)            /* ABI 4 */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)               /* ABI 6 */

/* Everywhere: read, list, execute. */
#define FS_READ (LL_EXECUTE | LL_READ_FILE | LL_READ_DIR)
/* Beneath the writable directories. MAKE_CHAR and MAKE_BLOCK are never
 * granted: a device node made in the workspace would outlive the run on
 * the host (if a capability ever leaked, mknod is the first thing an
 * exploit tries). */
#define FS_WRITE                                                                      \
	(LL_WRITE_FILE | LL_REMOVE_DIR | LL_REMOVE_FILE | LL_MAKE_DIR | LL_MAKE_REG | \
	 LL_MAKE_SOCK | LL_MAKE_FIFO | LL_MAKE_SYM | LL_REFER | LL_TRUNCATE)
/* Beneath /dev: use the devices, never make anything. Read, write,
 * `> /dev/null` (O_TRUNC), and their ioctls (isatty, termios on /dev/tty
 * and the ptys). */
#define FS_DEVICES (LL_READ_FILE | LL_READ_DIR | LL_WRITE_FILE | LL_TRUNCATE | LL_IOCTL_DEV)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

int landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);

	return v < 0 ? -errno : (int)v;
}

static uint64_t fs_handled(int abi)
{
	uint64_t a = FS_READ | FS_WRITE | LL_MAKE_CHAR | LL_MAKE_BLOCK;

	if (abi < 2)
		a &= ~LL_REFER;
	if (abi < 3)
		a &= ~LL_TRUNCATE;
	if (abi >= 5)
		a |= LL_IOCTL_DEV;
	return a;
}

int landlock_plan(const struct kj_config *cfg, int *abi, struct kj_err *err)
{
	int v;

	*abi = 0;
	if (cfg->landlock == KJ_LANDLOCK_OFF)
		return 0;
	v = landlock_abi();
	if (v > 0) {
		*abi = v;
		return 0;
	}
	if (cfg->landlock == KJ_LANDLOCK_BEST_EFFORT)
		return 0;
	/* required: fail closed, before anything is created. */
	return kj_fail(
		err, "landlock", -v,
		v == -EOPNOTSUPP
			? "enable it at boot (lsm=landlock,...) or use --landlock best-effort"
			: "use a kernel with CONFIG_SECURITY_LANDLOCK (5.13+) or --landlock best-effort",
		"--landlock required, but the kernel has no Landlock");
}

struct ruleset {
	int fd, rootfd;   /* the ruleset; the sandbox's "/" */
	uint64_t handled; /* file system rights this ABI knows */
};

static int add_fd_rule(struct ruleset *rs, int fd, uint64_t access, const char *path,
		       struct kj_err *err)
{
	struct ll_path_beneath_attr attr = {.allowed_access = access & rs->handled,
					    .parent_fd = fd};

	if (syscall(SYS_landlock_add_rule, rs->fd, LL_RULE_PATH_BENEATH, &attr, 0) < 0)
		return kj_fail(err, "landlock", errno, NULL, "add the rule for %s", path);
	return 0;
}

/* A rule on a path of the sandbox, resolved in its root as the mounts
 * were (RESOLVE_IN_ROOT): the rule lands on what was mounted there. */
static int add_path_rule(struct ruleset *rs, const char *path, uint64_t access, struct kj_err *err)
{
	int fd = path_open_in_root(rs->rootfd, path, 0), rc;

	if (fd < 0)
		return kj_fail(err, "landlock", -fd, NULL, "open %s for its rule", path);
	rc = add_fd_rule(rs, fd, access, path, err);
	close(fd);
	return rc;
}

/* stdin, stdout and stderr passed straight through from the caller may be
 * host files outside the sandbox's tree: reopening them through
 * /proc/self/fd (`echo x > /dev/stderr`) must keep working, with exactly
 * the access the open descriptor already gives, no more (the command can
 * write and ftruncate the descriptor itself anyway). Pipes, sockets and
 * the sandbox's own pty need no rule. */
static int add_stdio_rules(struct ruleset *rs, struct kj_err *err)
{
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;
		uint64_t access = 0;
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0 || fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)))
			continue;
		if ((fl & O_ACCMODE) != O_WRONLY)
			access |= LL_READ_FILE;
		if ((fl & O_ACCMODE) != O_RDONLY)
			access |= LL_WRITE_FILE | LL_TRUNCATE;
		if (add_fd_rule(rs, fd, access,
				fd == 0   ? "stdin"
				: fd == 1 ? "stdout"
					  : "stderr",
				err))
			return -EINVAL;
	}
	return 0;
}

static int add_rules(struct ruleset *rs, const struct kj_config *cfg, struct kj_err *err)
{
	int rc;

	/* Everything: read and execute only. Whatever the mount tree leaves
	 * writable by mistake (kjail's own /run tmpfs, a submount of the
	 * root, /proc/self/mem of the Dirty COW exploits, CVE-2016-5195)
	 * stays unwritable unless named below. */
	if ((rc = add_fd_rule(rs, rs->rootfd, FS_READ, "/", err)))
		return rc;
	if (cfg->workspace.writable &&
	    (rc = add_path_rule(rs, cfg->workspace.dest, FS_READ | FS_WRITE, err)))
		return rc;
	for (size_t i = 0; i < cfg->nbinds; i++)
		if (cfg->binds[i].writable &&
		    (rc = add_path_rule(rs, cfg->binds[i].dest, FS_READ | FS_WRITE, err)))
			return rc;
	if ((rc = add_path_rule(rs, "/tmp", FS_READ | FS_WRITE, err)) ||
	    (rc = add_path_rule(rs, "/dev/shm", FS_READ | FS_WRITE, err)))
		return rc;
	/* /dev holds only what mounts/dev.c made (null, zero, full, random,
	 * urandom, tty, the private devpts, shm) and is itself read-only, so
	 * one rule beneath it is the same as one per node, at a third of the
	 * cost: use them, make nothing (no MAKE_* beneath /dev). */
	if ((rc = add_path_rule(rs, "/dev", FS_DEVICES, err)))
		return rc;
	return add_stdio_rules(rs, err);
}

/* TCP by port (ABI 4). Landlock's port rules cannot tell 127.0.0.1 from a
 * remote host, so in --net none they could only either break servers the
 * command runs on its own loopback (any port, often ephemeral) or allow
 * every port; the network namespace, with no route out, is the boundary
 * there. With a relay port (proxy mode) the only TCP the command may do is
 * connect to the relay: no bind, no other port, even if the namespace
 * were wrong. */
static int add_tcp_rule(struct ruleset *rs, int tcp_port, struct kj_err *err)
{
	struct ll_net_port_attr port = {.allowed_access = LL_NET_CONNECT_TCP,
					.port = (uint64_t)tcp_port};

	if (syscall(SYS_landlock_add_rule, rs->fd, LL_RULE_NET_PORT, &port, 0) < 0)
		return kj_fail(err, "landlock", errno, NULL, "allow TCP connect to port %d",
			       tcp_port);
	return 0;
}

int landlock_enforce(const struct kj_config *cfg, int abi, int tcp_port, struct kj_err *err)
{
	struct ll_ruleset_attr attr = {0};
	struct ruleset rs = {.fd = -1, .rootfd = -1};
	/* Before ABI 4 the network namespace alone holds TCP in. */
	bool tcp = abi >= 4 && tcp_port >= 0 && tcp_port <= 65535;
	int rc;

	if (abi <= 0)
		return 0;
	rs.handled = attr.handled_access_fs = fs_handled(abi);
	if (tcp)
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	/* ABI 6: the command cannot connect to an abstract unix socket made
	 * outside its domain (with --net host: the host's X11 display, D-Bus,
	 * or containerd-shim's socket of CVE-2020-15257) nor signal a
	 * process outside it (the sandbox's init, kjail, the host's). */
	if (abi >= 6)
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
	/* The whole struct, zeros past what this ABI knows: the kernel
	 * accepts a larger struct whose extra bytes are zero. */
	rs.fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs.fd < 0)
		return kj_fail(err, "landlock", errno, "use --landlock off to run without it",
			       "create the Landlock ruleset (ABI %d)", abi);
	/* After pivot_root "/" is the sandbox's root: every rule is on a path
	 * of the sandbox, never on one of the host. */
	rs.rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rs.rootfd < 0) {
		rc = kj_fail(err, "landlock", errno, NULL, "open the sandbox's root");
		goto out;
	}
	if ((rc = add_rules(&rs, cfg, err)) || (tcp && (rc = add_tcp_rule(&rs, tcp_port, err))))
		goto out;
	/* Flags 0: ABI 7's audit logging stays at its default (off after
	 * exec), so an untrusted command cannot flood the host's audit log
	 * with denials. no_new_privs is already set (caps.c). */
	if (syscall(SYS_landlock_restrict_self, rs.fd, 0) < 0)
		rc = kj_fail(err, "landlock", errno, NULL, "enforce the Landlock ruleset");
out:
	if (rs.rootfd >= 0)
		close(rs.rootfd);
	close(rs.fd);
	return rc;
}

void landlock_describe(const struct kj_config *cfg, int abi, char *buf, size_t size)
{
	int v;

	if (cfg->landlock == KJ_LANDLOCK_OFF) {
		snprintf(buf, size, "off (--landlock off)");
		return;
	}
	if (abi > 0) {
		snprintf(buf, size, "ABI %d: files%s%s", abi,
			 abi >= 4 && cfg->net == KJ_NET_PROXY ? ", tcp (relay port only)" : "",
			 abi >= 6 ? ", abstract unix sockets, signals" : "");
		return;
	}
	v = landlock_abi();
	snprintf(buf, size, "not available (%s)",
		 v == -EOPNOTSUPP ? "not enabled at boot"
		 : v < 0          ? strerror(-v)
				  : "not used");
}
