/* make bench's floor: the least work a sandbox with kjail's default
 * isolation (issue #2's list) must make the kernel do, done with the
 * cheapest calls and nothing else, to see what the one-shot targets allow
 * on this machine. Not a sandbox: no checks, no error messages, no option
 * parsing, no configuration, and every step kjail takes that the issue
 * does not name literally is left out (pivot_root, a fresh /sys, Landlock,
 * git protection, the environment, fd and cwd checks, cgroups). What it
 * does, beyond `unshare -Urmpfn --mount-proc`:
 *   - ipc, uts and cgroup namespaces; hostname
 *   - the root read-only, recursively (mount_setattr on the namespace's
 *     own copy: no second clone, no pivot)
 *   - /proc/sys read-only; /dev: tmpfs, six node binds, devpts, shm, links
 *   - /tmp and /run tmpfs; the workspace bound read-write
 *   - masks over the caller's credential paths that exist
 *   - lo up; capabilities dropped, securebits, no_new_privs
 *   - a pid 1 that waits, COMMAND its child in a new session, under a
 *     seccomp filter shorter than kjail's (one compare per denied call)
 * The network namespace is made in the clone ("floor") or on a thread
 * beside the mounts, as kjail does ("floor thread").
 *   floor [thread] COMMAND [ARG...]     (run it from the workspace) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/mount.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define NS_FLAGS \
	(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

static int go[2];
static int use_thread, hardened;
static char **command;

static void die(const char *what)
{
	perror(what);
	_exit(125);
}

static void must(long rc, const char *what)
{
	if (rc < 0)
		die(what);
}

static int clone_tree(const char *path)
{
	int fd = (int)syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

	must(fd, path);
	return fd;
}

static void attach(int fd, const char *path)
{
	must(syscall(SYS_move_mount, fd, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH), path);
	close(fd);
}

static void set_attr(int dfd, const char *path, unsigned flags, unsigned long long attr)
{
	struct mount_attr a = {.attr_set = attr};

	must(syscall(SYS_mount_setattr, dfd, path, flags, &a, sizeof(a)), "mount_setattr");
}

static void make_path(const char *path)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1;; s++)
		if (*s == '/' || !*s) {
			char end = *s;
			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				die(p);
			if (!end)
				return;
			*s = '/';
		}
}

/* An empty read-only tmpfs over a directory, /dev/null over anything
 * else; nothing if path is not there. */
static void mask_existing(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode))
		must(mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k"),
		     path);
	else
		attach(clone_tree("/dev/null"), path);
}

/* Issue #7's /proc: masks and read-only subtrees (those that exist). */
static void harden_proc(void)
{
	static const char *mask[] = {"kcore",       "sysrq-trigger", "keys", "timer_list",
				     "sched_debug", "acpi",          "scsi"};
	static const char *ro[] = {"irq", "bus", "fs"};
	char p[64];
	struct stat st;

	for (size_t i = 0; i < sizeof(mask) / sizeof(mask[0]); i++) {
		snprintf(p, sizeof(p), "/proc/%s", mask[i]);
		mask_existing(p);
	}
	for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		snprintf(p, sizeof(p), "/proc/%s", ro[i]);
		if (lstat(p, &st) < 0)
			continue;
		int fd = clone_tree(p);
		set_attr(fd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY);
		attach(fd, p);
	}
}

/* Landlock ABI 6: the file rights of ABI 5, TCP bind/connect, scopes. */
struct ll_attr {
	unsigned long long fs, net, scoped;
};
struct ll_beneath {
	unsigned long long allowed;
	int parent_fd;
} __attribute__((packed));
#define LL_READ (1ULL << 0 | 1ULL << 2 | 1ULL << 3) /* execute, read file, read dir */
#define LL_ALL ((1ULL << 16) - 1)

static void landlock(const char *ws)
{
	struct ll_attr a = {.fs = LL_ALL, .net = 3, .scoped = 3};
	const char *rw[] = {ws, "/tmp", "/dev/shm", "/dev/pts", "/dev/null"};
	int rs = (int)syscall(SYS_landlock_create_ruleset, &a, sizeof(a), 0);

	must(rs, "landlock_create_ruleset");
	for (int i = -1; i < 5; i++) {
		struct ll_beneath b = {.allowed = i < 0 ? LL_READ : LL_ALL};
		b.parent_fd = open(i < 0 ? "/" : rw[i], O_PATH | O_CLOEXEC);
		must(b.parent_fd, "landlock path");
		if (i >= 0 && strcmp(rw[i], "/dev/null") == 0)
			b.allowed = 1ULL << 1 | 1ULL << 2 | 1ULL << 14; /* write, read, truncate */
		must(syscall(SYS_landlock_add_rule, rs, 1 /* path beneath */, &b, 0), "add rule");
		close(b.parent_fd);
	}
	must(syscall(SYS_landlock_restrict_self, rs, 0), "landlock_restrict_self");
	close(rs);
}

static void *make_netns(void *arg)
{
	int s;

	must(unshare(CLONE_NEWNET), "unshare net");
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	must(s, "socket");
	*(int *)arg = ioctl(s, SIOCGSKNS);
	close(s);
	return NULL;
}

static void lo_up(void)
{
	struct ifreq ifr = {.ifr_name = "lo"};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	must(s, "socket");
	must(ioctl(s, SIOCGIFFLAGS, &ifr), "SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	must(ioctl(s, SIOCSIFFLAGS, &ifr), "SIOCSIFFLAGS");
	close(s);
}

static const char *node[] = {"null", "zero", "full", "random", "urandom", "tty"};

/* Before the root turns nodev. */
static void clone_dev_nodes(int fd[6])
{
	char p[64];

	for (int i = 0; i < 6; i++) {
		snprintf(p, sizeof(p), "/dev/%s", node[i]);
		fd[i] = clone_tree(p);
	}
}

static void mount_dev(const int fd[6])
{
	char p[64];

	must(mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=755,size=64k"), "/dev");
	for (int i = 0; i < 6; i++) {
		snprintf(p, sizeof(p), "/dev/%s", node[i]);
		close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0666));
		attach(fd[i], p);
	}
	must(mkdir("/dev/pts", 0755), "/dev/pts");
	must(mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		   "newinstance,ptmxmode=0666,mode=620"),
	     "devpts");
	must(mkdir("/dev/shm", 01777), "/dev/shm");
	must(mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777"), "/dev/shm");
	must(symlink("pts/ptmx", "/dev/ptmx"), "ptmx");
	must(symlink("/proc/self/fd", "/dev/fd"), "fd");
	must(symlink("/proc/self/fd/0", "/dev/stdin"), "stdin");
	must(symlink("/proc/self/fd/1", "/dev/stdout"), "stdout");
	must(symlink("/proc/self/fd/2", "/dev/stderr"), "stderr");
}

/* Issue #2's list, written out: the floor links nothing of kjail's
 * (mounts/masks.c keeps kjail's own, which has more). */
static void mask_credentials(void)
{
	static const char *rel[] = {".ssh",
				    ".gnupg",
				    ".aws",
				    ".azure",
				    ".config/gcloud",
				    ".kube",
				    ".docker/config.json",
				    ".netrc",
				    ".git-credentials",
				    ".config/gh",
				    ".npmrc",
				    ".pypirc",
				    ".cargo/credentials.toml"};
	const char *home = getenv("HOME");
	char p[4096];

	for (size_t i = 0; home && i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", home, rel[i]);
		mask_existing(p);
	}
}

static void drop_privileges(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {{0}};

	for (int c = 0; c <= CAP_LAST_CAP; c++)
		must(prctl(PR_CAPBSET_DROP, c, 0, 0, 0), "PR_CAPBSET_DROP");
	must(prctl(PR_SET_SECUREBITS, 0x2f /* every lock and noroot */, 0, 0, 0), "securebits");
	must(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "ambient");
	must(syscall(SYS_capset, &h, d), "capset");
	must(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs");
}

/* One compare per denied call, in one list: shorter than kjail's policy
 * (which also checks arguments of more calls and keeps a readable list). */
static void load_seccomp(void)
{
	static const int deny[] = {SYS_unshare,
				   SYS_setns,
				   SYS_mount,
				   SYS_umount2,
				   SYS_pivot_root,
				   SYS_chroot,
				   SYS_open_tree,
				   SYS_move_mount,
				   SYS_fsopen,
				   SYS_fsconfig,
				   SYS_fsmount,
				   SYS_fspick,
				   SYS_mount_setattr,
				   SYS_keyctl,
				   SYS_add_key,
				   SYS_request_key,
				   SYS_bpf,
				   SYS_perf_event_open,
				   SYS_ptrace,
				   SYS_process_vm_readv,
				   SYS_process_vm_writev,
				   SYS_io_uring_setup,
				   SYS_io_uring_enter,
				   SYS_io_uring_register,
				   SYS_userfaultfd,
				   SYS_init_module,
				   SYS_finit_module,
				   SYS_delete_module,
				   SYS_kexec_load,
				   SYS_kexec_file_load,
				   SYS_reboot,
				   SYS_swapon,
				   SYS_swapoff,
				   SYS_acct,
				   SYS_quotactl,
				   SYS_syslog,
				   SYS_open_by_handle_at,
				   SYS_settimeofday,
				   SYS_clock_settime,
				   SYS_clock_adjtime,
				   SYS_adjtimex};
	enum { N = sizeof(deny) / sizeof(deny[0]) };
	struct sock_filter f[N + 48];
	unsigned n = 0;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	/* clone3: ENOSYS; clone with a namespace flag and ioctl TIOCSTI /
	 * TIOCLINUX: EPERM; the rest of the list: EPERM. */
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 38);
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, args[0]));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS | CLONE_NEWNET,
					      0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 4);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, args[1]));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 1, 0);
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1);
	if (hardened) { /* #7: socket families and personality */
		f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						      offsetof(struct seccomp_data, nr));
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 9);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						      offsetof(struct seccomp_data, args[0]));
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 5, 0);
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 4, 0);
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 3, 0);
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 0, 3);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						      offsetof(struct seccomp_data, args[2]));
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1);
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_personality, 0,
						      5);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						      offsetof(struct seccomp_data, args[0]));
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffff, 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						      offsetof(struct seccomp_data, nr));
	}
	for (unsigned i = 0; i < N; i++)
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)deny[i],
						      (unsigned char)(N - i), 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1);
	struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
	must(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0), "seccomp");
}

/* pid 1 of the new pid namespace. */
static int sandbox_init(void)
{
	pthread_t th;
	int netfd = -1, ws, st, dev[6];
	char c, cwd[4096];
	pid_t pid;

	must(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), "pdeathsig");
	must(read(go[0], &c, 1) == 1 ? 0 : -1, "wait for the maps");
	if (use_thread && pthread_create(&th, NULL, make_netns, &netfd))
		die("pthread_create");
	ws = clone_tree(".");
	clone_dev_nodes(dev);
	must(getcwd(cwd, sizeof(cwd)) ? 0 : -1, "getcwd");
	set_attr(AT_FDCWD, "/", AT_RECURSIVE,
		 MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	must(mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL), "/proc");
	int sys = clone_tree("/proc/sys");
	set_attr(sys, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY);
	attach(sys, "/proc/sys");
	if (hardened)
		harden_proc();
	mount_dev(dev);
	must(mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m"), "/tmp");
	must(mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=755"), "/run");
	make_path(cwd); /* a workspace below /tmp or /run */
	attach(ws, cwd);
	must(chdir(cwd), "chdir");
	mask_credentials();
	if (use_thread) {
		pthread_join(th, NULL);
		must(netfd, "SIOCGSKNS");
		must(setns(netfd, CLONE_NEWNET), "setns");
		close(netfd);
	}
	if (hardened) /* a fresh /sys: no host network device */
		must(mount("sysfs", "/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			   NULL),
		     "/sys");
	lo_up();
	must(sethostname("kjail", 5), "sethostname");
	drop_privileges();
	pid = vfork();
	if (pid == 0) {
		setsid();
		if (hardened)
			landlock(cwd);
		load_seccomp();
		execvp(command[0], command);
		_exit(127);
	}
	must(pid, "vfork");
	while (waitpid(pid, &st, 0) < 0)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void write_file(pid_t pid, const char *name, const char *text)
{
	char p[64];
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/%s", pid, name);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	must(fd, p);
	must(write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1, p);
	close(fd);
}

int main(int argc, char **argv)
{
	struct clone_args ca = {.exit_signal = SIGCHLD};
	char map[64];
	pid_t pid;
	int st;

	for (command = argv + 1; *command; command++)
		if (!strcmp(*command, "thread"))
			use_thread = 1;
		else if (!strcmp(*command, "hard"))
			hardened = 1;
		else
			break;
	if (argc < 2 || !*command) {
		fprintf(stderr, "usage: floor [thread] [hard] COMMAND [ARG...]\n");
		return 2;
	}
	must(pipe2(go, O_CLOEXEC), "pipe");
	ca.flags = NS_FLAGS | (use_thread ? 0 : CLONE_NEWNET);
	pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	must(pid, "clone3");
	if (pid == 0)
		_exit(sandbox_init());
	snprintf(map, sizeof(map), "%u %u 1", getuid(), getuid());
	write_file(pid, "uid_map", map);
	write_file(pid, "setgroups", "deny");
	snprintf(map, sizeof(map), "%u %u 1", getgid(), getgid());
	write_file(pid, "gid_map", map);
	must(write(go[1], "g", 1), "go");
	must(waitpid(pid, &st, 0), "waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
