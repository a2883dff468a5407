/* The sandbox recipe, run by the cloned child inside its new namespaces.
 * Each step can fail; the first failure is sent to the parent as one
 * error record and the child exits 125, before COMMAND ever runs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mounts/hostmounts.h"
#include "mounts/masks.h"
#include "mounts/pseudofs.h"
#include "mounts/rootfs.h"
#include "net/netns.h"
#include "net/relay.h"
#include "runtime/caps.h"
#include "runtime/channel.h"
#include "runtime/landlock.h"
#include "runtime/mount_watch.h"
#include "runtime/sandbox.h"
#include "runtime/signals.h"
#include "runtime/session.h"
#include "runtime/spawn.h"

__attribute__((noreturn)) static void child_die(struct sandbox *sb, const struct kj_err *err)
{
	(void)channel_send_err(sb->chan[1], err);
	_exit(err->exit_code ? err->exit_code : KJ_EXIT_SETUP);
}

/* Wait for the parent to write our uid/gid maps. */
static int wait_for_parent(struct sandbox *sb, struct kj_err *err)
{
	char go;

	/* Die with kjail: kill -9 of kjail must take the whole sandbox with
	 * it (the pid namespace dies with its init). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return kj_fail(err, "launch", errno, NULL, "set the parent-death signal");
	if (read(sb->chan[1], &go, 1) != 1)
		_exit(KJ_EXIT_SETUP); /* the parent died before we started */
	return 0;
}

static int set_hostname(struct kj_err *err)
{
	if (sethostname("kjail", 5) < 0)
		return kj_fail(err, "uts", errno, NULL, "set the hostname");
	return 0;
}

/* --net proxy: the relay (net/relay.c), a child of init like COMMAND,
 * forked after every privilege is gone and before COMMAND, so its port
 * listens when COMMAND starts. init reaps it like any orphan and exits
 * only for COMMAND; it dies with the pid namespace. */
static int start_relay(struct sandbox *sb, struct kj_err *err)
{
	pid_t pid;
	int lfd;

	if (sb->proxy_fd < 0)
		return 0;
	lfd = relay_listen(KJ_PROXY_PORT, err);
	if (lfd < 0)
		return lfd;
	pid = fork();
	if (pid < 0) {
		close(lfd);
		return kj_fail(err, "net", errno, NULL, "fork the proxy relay");
	}
	if (pid == 0)
		relay_run(lfd, sb->proxy_fd, sb->seccomp);
	close(lfd);
	close(sb->proxy_fd); /* init holds no way out of the sandbox */
	sb->proxy_fd = -1;
	return 0;
}

/* The sandbox's own terminal, from its private devpts, with the caller's
 * settings and size; the master goes to the parent, which relays it to
 * the caller's terminal. */
static int open_pty(struct sandbox *sb, int *slave, struct kj_err *err)
{
	int master, unlock = 0, rc;

	*slave = -1;
	if (!sb->io.pty)
		return 0;
	master = open("/dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return kj_fail(err, "tty", errno, "use --no-tty",
			       "open the sandbox's /dev/pts/ptmx");
	if (ioctl(master, TIOCSPTLCK, &unlock) < 0 ||
	    (*slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		rc = kj_fail(err, "tty", errno, "use --no-tty", "open the terminal's slave side");
		close(master);
		return rc;
	}
	stdio_pty_inherit(&sb->io, *slave);
	rc = channel_send_pty(sb->chan[1], master);
	close(master);
	return rc < 0 ? kj_fail(err, "tty", -rc, NULL, "pass the terminal to kjail") : 0;
}

/* cwd must be inside the new root: a cwd (or fd) left on the host is how
 * runc CVE-2024-21626 escaped. After pivot_root the path is resolved in
 * the sandbox, and getcwd() names a path only if it is reachable from /. */
static int enter_workspace(const struct kj_config *cfg, struct kj_err *err)
{
	char cwd[PATH_MAX];
	struct stat here, dest;

	if (chdir(cfg->workspace.dest) < 0)
		return kj_fail(err, "workspace", errno, NULL, "chdir %s", cfg->workspace.dest);
	/* --cwd: absolute inside the sandbox, or relative to the workspace. */
	if (cfg->cwd && chdir(cfg->cwd) < 0)
		return kj_fail(err, "cwd", errno, "give a directory that exists inside the sandbox",
			       "chdir %s", cfg->cwd);
	/* Reachable from the new root (getcwd names no path otherwise), and
	 * the DEST as the sandbox resolves it (/var/run/ws is /run/ws where
	 * /var/run is a link): the same directory, not the same spelling. */
	if (!getcwd(cwd, sizeof(cwd)) || cwd[0] != '/' ||
	    (!cfg->cwd && (strcmp(cwd, cfg->workspace.dest) &&
			   (stat(".", &here) < 0 || stat(cfg->workspace.dest, &dest) < 0 ||
			    here.st_dev != dest.st_dev || here.st_ino != dest.st_ino))))
		return kj_fail(err, "workspace", 0, "give --workspace the directory to start in",
			       "the working directory is outside the sandbox");
	return 0;
}

/* execvpe, with a shell's answer: a name found nowhere on PATH (a PATH
 * directory we cannot search counts as nowhere) is ENOENT, exit 127; a
 * file found but not executable is its own errno, exit 126. Returns the
 * errno when nothing could be executed. */
/* A NUL before the first newline: a binary (for another machine), not a
 * script, as bash decides before it runs a file without "#!" itself. */
static bool looks_binary(const char *file)
{
	char head[128];
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, head, sizeof(head));

	if (fd >= 0)
		close(fd);
	for (ssize_t i = 0; i < n && head[i] != '\n'; i++)
		if (head[i] == '\0')
			return true;
	return n < 0;
}

#define SH_ARGS_MAX 4096 /* 32 KiB of the 128 KiB stack spawn_shared gives */

/* execve, and for a text file without "#!" (ENOEXEC) /bin/sh on it, as
 * execvp(3) and the shells do: a script without a shebang runs the same
 * in the sandbox as under the host profile (runtime/launch_host.c). */
static int exec_file(const char *file, char **argv, char **envp)
{
	/* On this stack, not the heap: init starts COMMAND sharing its
	 * memory (spawn.c), and a session's init would keep every calloc'd
	 * array of an exec that ran (or take malloc's lock in a child). */
	char *small[SH_ARGS_MAX], **sh = small;
	size_t argc = 0, size;
	int e;

	execve(file, argv, envp);
	if ((e = errno) != ENOEXEC || looks_binary(file))
		return e;
	while (argv[argc])
		argc++;
	/* More arguments than that (rare): a mapping of its own, which a
	 * session's init keeps once the exec worked, as a whole page or so. */
	size = (argc + 2) * sizeof(*sh);
	if (argc + 2 > SH_ARGS_MAX && (sh = mmap(NULL, size, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		return ENOEXEC;
	sh[0] = (char *)"sh";
	sh[1] = (char *)file;
	for (size_t i = 1; i <= argc; i++)
		sh[i + 1] = argv[i];
	execve("/bin/sh", sh, envp);
	if (sh != small)
		munmap(sh, size);
	return ENOEXEC;
}

int exec_search(char **argv, char **envp)
{
	const char *path = NULL, *p;
	char buf[PATH_MAX];
	int found_err = 0, e;
	struct stat st;

	if (strchr(argv[0], '/')) {
		e = exec_file(argv[0], argv, envp);
		return e == ENOTDIR ? ENOENT : e;
	}
	for (char **v = envp; *v; v++)
		if (!strncmp(*v, "PATH=", 5))
			path = *v + 5;
	for (p = path ? path : "/usr/bin:/bin"; p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL) {
		size_t len = strcspn(p, ":");
		/* An empty entry is the current directory, as for execvp: with
		 * a precision of 0, "." printed as "", and PATH=/usr/bin: ran
		 * /NAME from the root instead of ./NAME. */
		if ((size_t)snprintf(buf, sizeof(buf), "%.*s/%s", len ? (int)len : 1, len ? p : ".",
				     argv[0]) >= sizeof(buf))
			continue;
		if (stat(buf, &st) < 0 || S_ISDIR(st.st_mode))
			continue;
		e = exec_file(buf, argv, envp);
		if (!found_err)
			found_err = e;
	}
	return found_err ? found_err : ENOENT;
}

/* The signals ignored and caught (SigIgn, SigCgt of /proc/self/status:
 * bit N-1 for signal N); every one in both when the file cannot say. One
 * open and read instead of a sigaction per signal: 62 calls on every
 * run's way to COMMAND, where the caller had ignored none or a few. */
static void signals_not_default(uint64_t *ign, uint64_t *cgt)
{
	char buf[4096];
	const char *i, *c;
	unsigned long long vi, vc;
	ssize_t n = -1;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	*ign = *cgt = ~0ULL;
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return;
	buf[n] = '\0';
	i = strstr(buf, "\nSigIgn:\t");
	c = strstr(buf, "\nSigCgt:\t");
	if (i && c && sscanf(i + 9, "%16llx", &vi) == 1 && sscanf(c + 9, "%16llx", &vc) == 1) {
		*ign = vi;
		*cgt = vc;
	}
}

void command_signals_default(void)
{
	/* An all-zero kernel sigaction is SIG_DFL, no flags, no mask, on
	 * every architecture's layout. */
	static const uint64_t dfl[4];
	uint64_t ign, cgt;
	sigset_t none;

	signals_not_default(&ign, &cgt);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Every signal at its default: an ignored SIGINT or SIGPIPE of the
	 * caller's (a background job, a Python parent) must not leak in, and
	 * neither may a handler of kjail's where no exec follows (a
	 * session's init). glibc's signal() refuses 32 and 33, which it
	 * keeps for its threads, yet a caller can ignore them (this
	 * machine's CI runner does) and exec keeps them ignored: those are
	 * set back by the kernel's call, when ignored; a handler glibc put
	 * there stays glibc's. */
	for (int sig = 1; sig < NSIG && sig <= 64; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP || !((ign | cgt) & KJ_SIGBIT(sig)))
			continue;
		if (signal(sig, SIG_DFL) == SIG_ERR && errno == EINVAL && (ign & KJ_SIGBIT(sig)))
			(void)syscall(SYS_rt_sigaction, sig, dfl, NULL, sizeof(uint64_t));
	}
}

void command_close_fds(int keep_fd)
{
	/* Only 0, 1 and 2 reach the command (CVE-2024-21626: a leaked host
	 * fd is a way out). keep_fd stays, close-on-exec, to report an exec
	 * failure. */
	if (keep_fd > 3)
		syscall(SYS_close_range, 3, keep_fd - 1, 0);
	syscall(SYS_close_range, keep_fd < 0 ? 3 : keep_fd + 1, ~0U, 0);
}

int command_walls(struct sandbox *sb, struct kj_err *err)
{
	const struct kj_config *cfg = sb->cfg;

	/* Landlock, on the sandbox's paths (after pivot_root) and stdio: a
	 * writable spot the mount tree leaves by mistake is still denied.
	 * --net proxy: TCP only to the relay, so a command that ignores the
	 * proxy variables meets a wall even if the namespace were wrong;
	 * --net none: TCP is the namespace's (see landlock.c). */
	if (landlock_enforce(cfg, sb->landlock_abi, cfg->net == KJ_NET_PROXY ? KJ_PROXY_PORT : -1,
			     err))
		return -EINVAL;
	kj_trace("command: landlock enforced");
	/* Loaded last: after this, no mount, namespace or privilege change
	 * is possible, so every earlier step had to be done already. */
	return kj_seccomp_load(sb->seccomp, err);
}

/* Runs in a child that shares init's memory until execve (spawn.c): only
 * system calls and stack buffers here. */
__attribute__((noreturn)) static void exec_command(struct sandbox *sb, int slave)
{
	const struct kj_config *cfg = sb->cfg;
	struct kj_err err = {0};
	int e;

	/* A new session: the command has no controlling terminal of the
	 * caller's, so TIOCSTI (CVE-2017-5226) has nothing to inject into. */
	if (setsid() < 0)
		child_die(sb, (kj_fail(&err, "launch", errno, NULL, "setsid"), &err));
	if (slave >= 0 && ioctl(slave, TIOCSCTTY, 0) < 0)
		child_die(sb, (kj_fail(&err, "tty", errno, NULL, "make the terminal controlling"),
			       &err));
	if (stdio_child_install(&sb->io, slave) < 0)
		child_die(sb, (kj_fail(&err, "stdio", errno, NULL, "install stdin/stdout/stderr"),
			       &err));
	kj_trace("command: started");
	if (enter_workspace(cfg, &err))
		child_die(sb, &err);
	command_signals_default();
	command_close_fds(sb->chan[1]);
	if (command_walls(sb, &err))
		child_die(sb, &err);
	kj_trace("command: seccomp loaded, exec");
	e = exec_search(cfg->argv, sb->envp);
	kj_exec_fail(&err, e, cfg->argv[0]);
	child_die(sb, &err);
}

struct command_args {
	struct sandbox *sb;
	int slave;
};

static int command_trampoline(void *arg)
{
	struct command_args *a = arg;

	exec_command(a->sb, a->slave);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Close every fd above 2 except the listed ones (-1 entries ignored). */
static void close_all_but(int *keep, int n)
{
	unsigned next = 3;

	qsort(keep, (size_t)n, sizeof(int), cmp_int);
	for (int i = 0; i < n; i++) {
		if (keep[i] < (int)next)
			continue;
		if ((unsigned)keep[i] > next)
			syscall(SYS_close_range, next, (unsigned)keep[i] - 1, 0);
		next = (unsigned)keep[i] + 1;
	}
	syscall(SYS_close_range, next, ~0U, 0);
}

/* RLIMIT_CORE to 1 byte. A caller whose hard limit is 0 (pam_limits'
 * `hard core 0`) cannot raise it, nor can root from inside its user
 * namespace: 0 stays, as for every process of the caller's, and a pipe
 * handler is told 0 (systemd-coredump then stores nothing; kjail doctor
 * warns). 0, or -1 with errno. */
static int core_limit_pin(void)
{
	struct rlimit now;
	int e;

	if (setrlimit(RLIMIT_CORE, &(struct rlimit){1, 1}) == 0)
		return 0;
	e = errno;
	if (e == EPERM && getrlimit(RLIMIT_CORE, &now) == 0 && now.rlim_max == 0)
		return 0;
	errno = e;
	return -1;
}

void sandbox_child(struct sandbox *sb)
{
	struct kj_err err = {0};
	struct host_sockets sockets = {0};
	struct host_pseudofs pseudo = {0};
	struct home_aliases homes = {0};
	struct hostmounts hm = {0};
	struct netns_job net;
	pid_t command;
	int slave = -1;

	/* CVE-2024-21626: init keeps no fd of kjail's or its caller's beyond
	 * what it needs (the caller's leaked fds are close-on-exec, but init
	 * never executes). Gone with them: the parent's ends of the channels
	 * and the cgroup leaf's fd, a handle on the host's writable cgroup
	 * tree that could raise the sandbox's own limits. */
	{
		int keep[] = {sb->chan[1],          sb->ctl[0],           sb->netgo,
			      sb->io.child_only[0], sb->io.child_only[1], sb->io.child_only[2],
			      sb->proxy_fd,         sb->session_listen};
		close_all_but(keep, (int)(sizeof(keep) / sizeof(keep[0])));
	}
	/* The network namespace is made beside the mount recipe, on a thread
	 * (net/netns.c) started first, which kjail's "go" wakes; rootfs_build
	 * enters it half-way. */
	if (netns_start(&net, sb->cfg, &sockets, sb->netgo, &err) || hostmounts_read(&hm, &err) ||
	    host_sockets_find(sb->cfg, &hm, &sockets, &err) ||
	    pseudofs_find(sb->cfg, &hm, &pseudo, &err) ||
	    home_aliases_find(sb->cfg, &hm, &homes, &err) || wait_for_parent(sb, &err))
		child_die(sb, &err);
	hostmounts_free(&hm);
	kj_trace("child: maps written");
	if (set_hostname(&err) ||
	    rootfs_build(sb->cfg, sb->cg != NULL, &net, &pseudo, &homes, &err))
		child_die(sb, &err);
	kj_trace("child: root filesystem built");
	/* The last mount is made: the parent watches the table from here. */
	if (mount_watch_send(sb->chan[1], &err))
		child_die(sb, &err);
	host_sockets_free(&sockets);
	pseudofs_free(&pseudo);
	home_aliases_free(&homes);
	close(sb->netgo);
	if (open_pty(sb, &slave, &err) || caps_drop_all(sb->cfg, &err))
		child_die(sb, &err);
	/* A uid change (--user) clears the parent-death signal: set it again,
	 * or kill -9 of kjail would leave this sandbox running. (init also
	 * exits when its control pipe from kjail closes.) */
	if (sb->cfg->user_set && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		child_die(sb, (kj_fail(&err, "launch", errno, NULL, "set the parent-death signal"),
			       &err));
	kj_trace("child: privileges dropped");
	/* Not dumpable: nothing in the sandbox may ptrace its init or read
	 * its memory and fds (the parent's channels). */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		child_die(sb,
			  (kj_fail(&err, "launch", errno, NULL, "make init non-dumpable"), &err));
	/* Core dumps never reach the host's pipe handler (systemd-coredump,
	 * apport: run as root in the host's namespaces and cgroup for every
	 * crash, so a crash loop spends the host's CPU and disk outside the
	 * sandbox's limits, and feeds its memory image to a root parser that
	 * has had exploitable races, CVE-2025-4598, CVE-2025-5054). The
	 * kernel skips a pipe handler for RLIMIT_CORE exactly 1, and writes no
	 * core file under a page. Inherited by everything in the sandbox; the
	 * seccomp policies keep it there (profiles/seccomp-default.policy). */
	if (core_limit_pin() < 0)
		child_die(sb, (kj_fail(&err, "launch", errno, NULL, "disable core dumps"), &err));
	/* init learns of COMMAND's end through a signalfd: SIGCHLD must be
	 * blocked before the fork so none is lost. */
	{
		sigset_t chld;
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_BLOCK, &chld, NULL);
	}
	if (start_relay(sb, &err))
		child_die(sb, &err);
	if (sb->session_listen >= 0)
		session_serve(sb, sb->session_listen); /* a session: serve, never returns */
	command = spawn_shared(command_trampoline, &(struct command_args){sb, slave});
	if (command < 0)
		child_die(sb, (kj_fail(&err, "launch", errno, NULL, "start COMMAND"), &err));
	close(sb->chan[1]);
	if (slave >= 0)
		close(slave);
	for (int i = 0; i < 3; i++)
		if (sb->io.child_only[i] >= 0)
			close(sb->io.child_only[i]);
	/* CVE-2017-5226: COMMAND has its stdio (it has executed: spawn_shared
	 * waits for that), so the caller's terminal or pipes leave init, the
	 * one process of kjail's inside the sandbox. init is non-dumpable and
	 * ptrace is denied, so nothing inside could reach them there; this
	 * makes that not matter. stderr stays for KJAIL_TRACE's last line. */
	stdio_release(kj_tracing());
	init_run(sb->ctl[0], command);
}
