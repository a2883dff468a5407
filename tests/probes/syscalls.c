/* Probe for the default seccomp policy (profiles/seccomp-default.policy).
 *
 *   syscalls        try each denied operation once; one line per check:
 *                   "ok - mount denied (EPERM)" or
 *                   "not ok - mount: expected EPERM, got ENOENT";
 *                   exit 0 only if every check passed
 *   syscalls x32    make an x32 syscall: the filter must kill us (SIGSYS)
 *   syscalls i386   make an int $0x80 syscall: the filter must kill us
 *
 * Each denied call uses arguments that, without the filter, fail with a
 * different errno or succeed harmlessly (even as root), so every check
 * can fail. Privileged calls only discriminate with the capability:
 * unprivileged, the kernel says EPERM on its own. Only libc is used, so
 * the probe builds with -static.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_open_tree_attr
#define SYS_open_tree_attr 467 /* x86_64, Linux 6.15 */
#endif

#define NOPATH "/nonexistent/kjail-probe"
#define KILLED(sig) (-1000L - (sig)) /* result of a child killed by sig */

/* Raw syscalls throughout: libc wrappers may pick another syscall
 * (settimeofday -> clock_settime, adjtimex -> clock_adjtime). */
static long sys_result(long r) { return r == -1 ? -errno : r; }
#define SC(...) sys_result(syscall(__VA_ARGS__))

typedef long (*probe_fn)(void);

/* Run fn in a child, so what it changes (persona, session, namespaces)
 * stays there. Returns -errno, 0 for success, or KILLED(sig). */
static long in_child(probe_fn fn)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		long r = fn();
		_exit(r < 0 ? (int)(-r & 0xff) : 0);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	if (WIFSIGNALED(st))
		return KILLED(WTERMSIG(st));
	return -(long)WEXITSTATUS(st);
}

/* --- namespaces */
static long t_unshare(void) { return SC(SYS_unshare, 0); } /* no-op: 0 */
static long t_unshare_user(void) { return SC(SYS_unshare, CLONE_NEWUSER); }
static long t_setns(void) { return SC(SYS_setns, -1, 0); } /* EBADF */

/* CLONE_THREAD without CLONE_SIGHAND is EINVAL before any namespace
 * work, so no child is made whichever way the check goes. */
static long try_clone(unsigned long ns)
{
	long r = SC(SYS_clone, ns | CLONE_THREAD, 0, 0, 0, 0);

	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, __WALL);
	return r;
}
#define CLONE_CHECK(f) \
	static long t_clone_##f(void) { return try_clone(CLONE_##f); }
CLONE_CHECK(NEWNS)
CLONE_CHECK(NEWUTS)
CLONE_CHECK(NEWIPC)
CLONE_CHECK(NEWUSER)
CLONE_CHECK(NEWPID)
CLONE_CHECK(NEWNET)
CLONE_CHECK(NEWCGROUP)

static long t_clone_user_child(void) /* a real one: succeeds unfiltered */
{
	long r = SC(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);

	if (r == 0)
		_exit(0);
	if (r > 0)
		r = waitpid((pid_t)r, NULL, 0) < 0 ? -errno : 0;
	return r;
}

static long t_fork(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}

static void *thread_main(void *arg) { return arg; }

static long t_thread(void) /* glibc tries clone3, falls back on ENOSYS */
{
	pthread_t t;
	int e = pthread_create(&t, NULL, thread_main, NULL);

	if (e)
		return -e;
	pthread_join(t, NULL);
	return 0;
}

static long t_clone3(void) { return SC(SYS_clone3, NULL, 0); } /* EINVAL */

/* --- mounts */
static long t_mount(void) { return SC(SYS_mount, "none", NOPATH, "tmpfs", 0, NULL); }
static long t_umount2(void) { return SC(SYS_umount2, NOPATH, 0x80000000); } /* bad flags */
static long t_pivot_root(void) { return SC(SYS_pivot_root, NOPATH, NOPATH); }
static long t_chroot(void) { return SC(SYS_chroot, NOPATH); }
static long t_open_tree(void) { return SC(SYS_open_tree, AT_FDCWD, NOPATH, 0); }
static long t_open_tree_attr(void) { return SC(SYS_open_tree_attr, AT_FDCWD, NOPATH, 0, NULL, 0); }
static long t_move_mount(void) { return SC(SYS_move_mount, AT_FDCWD, NOPATH, AT_FDCWD, NOPATH, 0); }
static long t_fsopen(void) { return SC(SYS_fsopen, "kjail-probe-nofs", 0); }    /* ENODEV */
static long t_fsconfig(void) { return SC(SYS_fsconfig, -1, 0, "ro", NULL, 0); } /* EBADF */
static long t_fsmount(void) { return SC(SYS_fsmount, -1, 0, 0); }
static long t_fspick(void) { return SC(SYS_fspick, AT_FDCWD, NOPATH, 0); }
static long t_mount_setattr(void) { return SC(SYS_mount_setattr, -1, "", 0, NULL, 0); }

/* --- keys, bpf, perf, io_uring, userfaultfd */
static long t_keyctl(void) { return SC(SYS_keyctl, 0x7fff, 0, 0, 0, 0); }       /* EOPNOTSUPP */
static long t_add_key(void) { return SC(SYS_add_key, NULL, NULL, NULL, 0, 0); } /* EFAULT */
static long t_request_key(void) { return SC(SYS_request_key, NULL, NULL, NULL, 0); }
static long t_bpf(void) { return SC(SYS_bpf, 0x7fff, NULL, 0); }                 /* EINVAL */
static long t_perf(void) { return SC(SYS_perf_event_open, NULL, 0, -1, -1, 0); } /* EFAULT */
static long t_uring_setup(void) { return SC(SYS_io_uring_setup, 1, NULL); }      /* EFAULT */
static long t_uring_enter(void) { return SC(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0); }
static long t_uring_register(void) { return SC(SYS_io_uring_register, -1, 0, NULL, 0); }
/* UFFD_USER_MODE_ONLY (1) passes the kernel's own vm.unprivileged_userfaultfd
 * check (Linux 5.11+), so the bad flag beside it reaches EINVAL: without it
 * the kernel said EPERM by itself on a default host and the check could
 * not fail. */
static long t_userfaultfd(void) { return SC(SYS_userfaultfd, 1 | 0x40000000); } /* EINVAL */

/* --- other processes */
static long t_ptrace(void) { return SC(SYS_ptrace, 7 /* CONT */, 0x3fffffff, 0, 0); } /* ESRCH */
static long t_vm_readv(void) { return SC(SYS_process_vm_readv, getpid(), NULL, 0, NULL, 0, 1); }
static long t_vm_writev(void) { return SC(SYS_process_vm_writev, getpid(), NULL, 0, NULL, 0, 1); }
static long t_pidfd_getfd(void) { return SC(SYS_pidfd_getfd, -1, 0, 1); } /* EINVAL */
static long t_kcmp(void) { return SC(SYS_kcmp, getpid(), getpid(), 0x7fff, 0, 0); }

/* --- host administration: invalid arguments, never a real effect */
static long t_init_module(void) { return SC(SYS_init_module, NULL, 0, ""); }
static long t_finit_module(void) { return SC(SYS_finit_module, -1, "", 0); }
static long t_delete_module(void) { return SC(SYS_delete_module, "kjail_probe_none", 0); }
static long t_kexec_load(void) { return SC(SYS_kexec_load, 0, 0, NULL, 0x8000UL); }
static long t_kexec_file_load(void) { return SC(SYS_kexec_file_load, -1, -1, 0, NULL, 0x8000UL); }
static long t_reboot(void) { return SC(SYS_reboot, 0, 0, 0, NULL); }      /* bad magic: EINVAL */
static long t_swapon(void) { return SC(SYS_swapon, NOPATH, 0x10000000); } /* bad flags */
static long t_swapoff(void) { return SC(SYS_swapoff, NOPATH); }
static long t_acct(void) { return SC(SYS_acct, NOPATH); }
static long t_quotactl(void) { return SC(SYS_quotactl, 0xff, NULL, 0, NULL); } /* bad type */
static long t_quotactl_fd(void) { return SC(SYS_quotactl_fd, -1, 0xff, 0, NULL); }
static long t_syslog(void) { return SC(SYS_syslog, 10 /* SIZE_BUFFER */, NULL, 0); }
static long t_iopl(void) { return SC(SYS_iopl, 4); }                 /* level > 3: EINVAL */
static long t_ioperm(void) { return SC(SYS_ioperm, 0x10000, 1, 1); } /* EINVAL */
static long t_lookup_dcookie(void) { return SC(SYS_lookup_dcookie, 0, NULL, 0); }
static long t_nfsservctl(void) { return SC(SYS_nfsservctl, 0, NULL, NULL); }
static long t_uselib(void) { return SC(SYS_uselib, NOPATH); }

static long t_vhangup(void) /* in a new session: no terminal to hang up */
{
	setsid();
	return SC(SYS_vhangup);
}

/* --- file handles */
static long t_open_by_handle(void) { return SC(SYS_open_by_handle_at, -1, NULL, 0); }
static long t_name_to_handle(void)
{
	return SC(SYS_name_to_handle_at, AT_FDCWD, NOPATH, NULL, NULL, 0);
}

/* --- clocks and names: invalid clock 1000, read-only or over-long */
static long t_clock_settime(void)
{
	struct timespec ts = {0, 0};

	return SC(SYS_clock_settime, 1000, &ts);
}

static long t_clock_adjtime(void)
{
	struct timex tx;

	memset(&tx, 0, sizeof(tx));
	return SC(SYS_clock_adjtime, 1000, &tx);
}

static long t_settimeofday(void) { return SC(SYS_settimeofday, NULL, NULL); } /* no-op */

static long t_adjtimex(void) /* modes 0: read only */
{
	struct timex tx;

	memset(&tx, 0, sizeof(tx));
	return SC(SYS_adjtimex, &tx);
}

static char longname[80] = "kjail-probe";
static long t_sethostname(void) { return SC(SYS_sethostname, longname, 65); } /* EINVAL */
static long t_setdomainname(void) { return SC(SYS_setdomainname, longname, 65); }

/* --- terminal injection: fd -1 is EBADF unless the filter answers
 * first; the upper 32 bits are ignored by the kernel, not by seccomp. */
static char ch;
static long t_tiocsti(void) { return SC(SYS_ioctl, -1, TIOCSTI, &ch); }
static long t_tiocsti_hi(void) { return SC(SYS_ioctl, -1, (1UL << 32) | TIOCSTI, &ch); }
static long t_tioclinux(void) { return SC(SYS_ioctl, -1, TIOCLINUX, &ch); }
static long t_tioclinux_hi(void) { return SC(SYS_ioctl, -1, (1UL << 32) | TIOCLINUX, &ch); }

static long t_ioctl_fionread(void)
{
	int p[2], n = 0;
	long r;

	if (pipe(p) < 0)
		return -errno;
	r = SC(SYS_ioctl, p[0], FIONREAD, &n);
	close(p[0]);
	close(p[1]);
	return r;
}

/* --- personality */
static long t_pers_bsd(void) { return SC(SYS_personality, PER_BSD); }
static long t_pers_norandom(void) { return SC(SYS_personality, ADDR_NO_RANDOMIZE); }
static long t_pers_hi(void) { return SC(SYS_personality, 1UL << 32); } /* kernel sees 0 */
static long t_pers_query(void) { return SC(SYS_personality, 0xffffffffUL); }
static long t_pers_linux(void) { return SC(SYS_personality, PER_LINUX); }

struct check {
	const char *name;
	int want; /* errno the call must fail with; 0: must succeed */
	probe_fn fn;
	int isolate; /* run in a child */
};

static const struct check checks[] = {
	{"unshare", EPERM, t_unshare, 0},
	{"unshare(CLONE_NEWUSER)", EPERM, t_unshare_user, 1},
	{"setns", EPERM, t_setns, 0},
	{"clone(CLONE_NEWNS)", EPERM, t_clone_NEWNS, 0},
	{"clone(CLONE_NEWUTS)", EPERM, t_clone_NEWUTS, 0},
	{"clone(CLONE_NEWIPC)", EPERM, t_clone_NEWIPC, 0},
	{"clone(CLONE_NEWUSER)", EPERM, t_clone_NEWUSER, 0},
	{"clone(CLONE_NEWPID)", EPERM, t_clone_NEWPID, 0},
	{"clone(CLONE_NEWNET)", EPERM, t_clone_NEWNET, 0},
	{"clone(CLONE_NEWCGROUP)", EPERM, t_clone_NEWCGROUP, 0},
	{"clone(CLONE_NEWUSER|SIGCHLD)", EPERM, t_clone_user_child, 0},
	{"fork", 0, t_fork, 0},
	{"pthread_create", 0, t_thread, 0},
	{"clone3", ENOSYS, t_clone3, 0},
	{"mount", EPERM, t_mount, 0},
	{"umount2", EPERM, t_umount2, 0},
	{"pivot_root", EPERM, t_pivot_root, 0},
	{"chroot", EPERM, t_chroot, 0},
	{"open_tree", EPERM, t_open_tree, 0},
	{"open_tree_attr", EPERM, t_open_tree_attr, 0},
	{"move_mount", EPERM, t_move_mount, 0},
	{"fsopen", EPERM, t_fsopen, 0},
	{"fsconfig", EPERM, t_fsconfig, 0},
	{"fsmount", EPERM, t_fsmount, 0},
	{"fspick", EPERM, t_fspick, 0},
	{"mount_setattr", EPERM, t_mount_setattr, 0},
	{"keyctl", EPERM, t_keyctl, 0},
	{"add_key", EPERM, t_add_key, 0},
	{"request_key", EPERM, t_request_key, 0},
	{"bpf", EPERM, t_bpf, 0},
	{"perf_event_open", EPERM, t_perf, 0},
	{"io_uring_setup", EPERM, t_uring_setup, 0},
	{"io_uring_enter", EPERM, t_uring_enter, 0},
	{"io_uring_register", EPERM, t_uring_register, 0},
	{"userfaultfd", EPERM, t_userfaultfd, 0},
	{"ptrace", EPERM, t_ptrace, 0},
	{"process_vm_readv", EPERM, t_vm_readv, 0},
	{"process_vm_writev", EPERM, t_vm_writev, 0},
	{"pidfd_getfd", EPERM, t_pidfd_getfd, 0},
	{"kcmp", EPERM, t_kcmp, 0},
	{"init_module", EPERM, t_init_module, 0},
	{"finit_module", EPERM, t_finit_module, 0},
	{"delete_module", EPERM, t_delete_module, 0},
	{"kexec_load", EPERM, t_kexec_load, 0},
	{"kexec_file_load", EPERM, t_kexec_file_load, 0},
	{"reboot", EPERM, t_reboot, 0},
	{"swapon", EPERM, t_swapon, 0},
	{"swapoff", EPERM, t_swapoff, 0},
	{"acct", EPERM, t_acct, 0},
	{"quotactl", EPERM, t_quotactl, 0},
	{"quotactl_fd", EPERM, t_quotactl_fd, 0},
	{"syslog", EPERM, t_syslog, 0},
	{"iopl", EPERM, t_iopl, 0},
	{"ioperm", EPERM, t_ioperm, 0},
	{"lookup_dcookie", EPERM, t_lookup_dcookie, 0},
	{"nfsservctl", EPERM, t_nfsservctl, 0},
	{"uselib", EPERM, t_uselib, 0},
	{"vhangup", EPERM, t_vhangup, 1},
	{"open_by_handle_at", EPERM, t_open_by_handle, 0},
	{"name_to_handle_at", EPERM, t_name_to_handle, 0},
	{"clock_settime", EPERM, t_clock_settime, 0},
	{"clock_adjtime", EPERM, t_clock_adjtime, 0},
	{"settimeofday", EPERM, t_settimeofday, 0},
	{"adjtimex", EPERM, t_adjtimex, 0},
	{"sethostname", EPERM, t_sethostname, 0},
	{"setdomainname", EPERM, t_setdomainname, 0},
	{"ioctl(TIOCSTI)", EPERM, t_tiocsti, 0},
	{"ioctl(TIOCSTI|1<<32)", EPERM, t_tiocsti_hi, 0},
	{"ioctl(TIOCLINUX)", EPERM, t_tioclinux, 0},
	{"ioctl(TIOCLINUX|1<<32)", EPERM, t_tioclinux_hi, 0},
	{"ioctl(FIONREAD)", 0, t_ioctl_fionread, 0},
	{"personality(PER_BSD)", EPERM, t_pers_bsd, 1},
	{"personality(ADDR_NO_RANDOMIZE)", EPERM, t_pers_norandom, 1},
	{"personality(1<<32)", EPERM, t_pers_hi, 1},
	{"personality(0xffffffff)", 0, t_pers_query, 0},
	{"personality(PER_LINUX)", 0, t_pers_linux, 1},
};

static const char *errname(long e)
{
	static const struct {
		int e;
		const char *name;
	} t[] = {
#define E(x) {x, #x}
		E(EPERM),  E(ENOENT), E(ESRCH),  E(EIO),     E(E2BIG),      E(ENOEXEC),
		E(EBADF),  E(ECHILD), E(EAGAIN), E(ENOMEM),  E(EACCES),     E(EFAULT),
		E(EBUSY),  E(EEXIST), E(ENODEV), E(ENOTDIR), E(EINVAL),     E(ENOTTY),
		E(ENOSPC), E(EROFS),  E(ERANGE), E(ENOSYS),  E(EOPNOTSUPP),
#undef E
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].e == e)
			return t[i].name;
	return NULL;
}

static void describe(long r, char *buf, size_t len)
{
	const char *n = errname(-r);

	if (r >= 0)
		snprintf(buf, len, "success (%ld)", r);
	else if (r <= KILLED(0))
		snprintf(buf, len, "killed by signal %ld", KILLED(0) - r);
	else if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "errno %ld", -r);
}

static int run_checks(void)
{
	size_t i, failed = 0, n = sizeof(checks) / sizeof(checks[0]);
	char got[64];

	for (i = 0; i < n; i++) {
		const struct check *c = &checks[i];
		long r = c->isolate ? in_child(c->fn) : c->fn();

		describe(r, got, sizeof(got));
		if (c->want == 0 && r >= 0) {
			printf("ok - %s works\n", c->name);
		} else if (c->want && r == -c->want) {
			printf("ok - %s denied (%s)\n", c->name, errname(c->want));
		} else {
			printf("not ok - %s: expected %s, got %s\n", c->name,
			       c->want ? errname(c->want) : "success", got);
			failed++;
		}
	}
	printf("# %zu checks, %zu failed\n", n, failed);
	return failed ? 1 : 0;
}

/* A death by SIGSYS is the expected outcome: no core file for it. */
static void no_core(void)
{
	struct rlimit zero = {0, 0};

	setrlimit(RLIMIT_CORE, &zero);
	prctl(PR_SET_DUMPABLE, 0);
}

#if defined(__x86_64__)
static int run_x32(void)
{
	/* x32 getpid: same number as x86_64 with bit 30 set. Without the
	 * bad-arch kill a deny-list keyed on x86_64 numbers would not see it. */
	long r;

	no_core();
	r = SC(0x40000000L | 39);
	printf("x32 getpid returned %ld: not killed\n", r);
	return 3;
}

static int run_i386(void)
{
	/* int $0x80 enters the i386 table (getpid is 20 there). */
	long r;

	no_core();
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(20L)
			 : "r8", "r9", "r10", "r11", "memory", "cc");
	printf("i386 getpid returned %ld: not killed\n", r);
	return 3;
}
#endif

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
#if defined(__x86_64__)
	if (argc > 1 && strcmp(argv[1], "x32") == 0)
		return run_x32();
	if (argc > 1 && strcmp(argv[1], "i386") == 0)
		return run_i386();
#endif
	if (argc > 1) {
		fprintf(stderr, "usage: syscalls [x32 | i386]\n");
		return 2;
	}
	return run_checks();
}
