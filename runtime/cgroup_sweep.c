/* The leaf's sweeper: it removes this run's leaf when kjail dies without
 * removing it (kill -9, a crash), so no empty cgroup is
 * left behind until the next run or `kjail gc` (principle 4). cgroup v2
 * sends no notice when a cgroup empties, and nothing of the run's inside
 * the leaf can remove it (a cgroup that holds a process cannot be
 * removed), so this is one small process outside the leaf, in kjail's
 * own cgroup:
 *
 *   started   right after the leaf is made, before anything runs in it;
 *   waits     on a pidfd of kjail, every signal blocked, in a session of
 *             its own (a killpg of kjail's group, ^C, a harness's kill -9
 *             -PGID, does not take it along), holding no fd of kjail's or
 *             its caller's (a reader of kjail's stdout still sees EOF);
 *   on kjail's death: kills what is left in the leaf (cgroup.kill: the
 *             sandbox's init dies by its parent-death signal, but the
 *             --net proxy and the keeper of isolation none have none),
 *             waits until the leaf is empty, removes it, exits;
 *   otherwise kjail removes the leaf itself, then kills and reaps it.
 *
 * It shares kjail's memory (CLONE_VM, as spawn.c's children do) on a
 * stack of its own: no page tables are copied, and kjail takes no
 * copy-on-write fault for it afterwards (13-28 us each on the
 * development VM), so it costs one clone. While kjail lives, the sweeper
 * makes only raw system calls that cannot fail (errno, which it shares, is never
 * written) and touches no libc state; once kjail is dead, the memory is
 * its alone. Its exit signal is none: no SIGCHLD wakes kjail's loops, and
 * no waitpid(-1) of kjail's reaps it by mistake. What kills every process
 * sharing kjail's memory (the OOM killer picking kjail) kills it too: the
 * next run's reclaim, or kjail gc, then removes the leaf.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cgroup.h"
#include "runtime/cgroup_int.h"
#include "runtime/spawn.h"

#define SWEEP_MAP (64 * 1024)
/* How long it waits for the leaf to empty once kjail is gone (a task in
 * uninterruptible sleep leaves late); then the next run or kjail gc. */
#define SWEEP_WAIT_S 60

/* At the bottom of the sweeper's own mapping, which kjail unmaps only
 * after reaping it: what it reads stays valid whatever kjail frees. */
struct sweep_args {
	int fd[3]; /* kjail's pidfd, the leaf, <base>/kjail: all >= 3 */
	char name[NAME_MAX + 1];
};

enum { KJAIL_FD, LEAF_FD, KJDIR_FD };

/* After kjail's death: the leaf is this process's to empty and remove. */
static void sweep_leaf(const char *name)
{
	char buf[256];
	int ev, k;

	(void)!chdir("/"); /* pin no mount of the caller's while it waits */
	ev = openat(LEAF_FD, "cgroup.events", O_RDONLY | O_CLOEXEC);
	if (ev < 0)
		return; /* kjail removed it: it died after its cleanup */
	/* Before Linux 5.14 there is no cgroup.kill: what the run left
	 * (the proxy sees its sandbox's end and exits) is waited for. */
	if ((k = openat(LEAF_FD, "cgroup.kill", O_WRONLY | O_CLOEXEC)) >= 0) {
		(void)!write(k, "1", 1);
		close(k);
	}
	for (time_t end = time(NULL) + SWEEP_WAIT_S; time(NULL) < end;) {
		struct pollfd p = {.fd = ev, .events = POLLPRI};
		ssize_t r = pread(ev, buf, sizeof(buf) - 1, 0);

		if (r < 0)
			break;
		buf[r] = '\0';
		if (strstr(buf, "populated 0"))
			break;
		/* cgroup.events signals POLLPRI when "populated" changes. */
		(void)poll(&p, 1, 1000);
	}
	close(ev);
	(void)unlinkat(KJDIR_FD, name, AT_REMOVEDIR);
}

static int sweeper_main(void *arg)
{
	struct sweep_args *a = arg;
	struct pollfd p = {.fd = KJAIL_FD, .events = POLLIN};

	/* The three fds kjail gave, at 0-2; none other of kjail's or its
	 * caller's (fds 0-2 are always open in kjail, main.c, so the three
	 * are above 2 and no dup2 overwrites another). */
	for (int i = 0; i < 3; i++)
		syscall(SYS_dup3, a->fd[i], i, 0);
	syscall(SYS_close_range, 3, ~0U, 0);
	/* Cannot fail: a new process's pid is no live group's or session's. */
	syscall(SYS_setsid);
	syscall(SYS_prctl, PR_SET_NAME, "kjail-sweep", 0, 0, 0);
	/* Readable when kjail has exited. Restarted after a stop, and no
	 * other signal gets through. */
	while (syscall(SYS_ppoll, &p, 1, NULL, NULL, 0) != 1)
		;
	sweep_leaf(a->name);
	return 0;
}

int cg_sweeper_start(struct kj_cgroup *cg, int kjfd, const char *name)
{
	struct sweep_args *a;
	sigset_t all, old;
	int self, rc = 0;

	if (strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (self < 0)
		return -errno;
	a = mmap(NULL, SWEEP_MAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		 -1, 0);
	if (a == MAP_FAILED) {
		rc = -errno;
		close(self);
		return rc;
	}
	*a = (struct sweep_args){.fd = {self, cg->fd, kjfd}};
	memcpy(a->name, name, strlen(name) + 1);
	cg->sweeper_pidfd = -1;
	/* Born with every signal blocked (a ^C to kjail's group a moment
	 * after the clone would end it, or run a handler of kjail's on the
	 * memory it shares); the mask stays so for its whole life. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
#if KJ_ASAN
	/* spawn.h: KJ_ASAN */
	cg->sweeper_pid = fork();
	if (cg->sweeper_pid == 0)
		_exit(sweeper_main(a));
	if (cg->sweeper_pid > 0 &&
	    (cg->sweeper_pidfd = (int)syscall(SYS_pidfd_open, cg->sweeper_pid, 0)) < 0)
		rc = -errno;
#else
	cg->sweeper_pid = clone(sweeper_main, (char *)a + SWEEP_MAP, CLONE_VM | CLONE_PIDFD, a,
				&cg->sweeper_pidfd);
#endif
	if (cg->sweeper_pid < 0)
		rc = -errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(self);
	if (rc && cg->sweeper_pid > 0)
		kill(cg->sweeper_pid, SIGKILL); /* ASan's fork, without its pidfd */
	if (rc) {
		munmap(a, SWEEP_MAP);
		cg->sweeper_pid = 0;
		return rc;
	}
	cg->sweeper_map = a;
	return 0;
}

/* kjail removed the leaf itself: the sweeper has nothing to do. */
void cg_sweeper_stop(struct kj_cgroup *cg)
{
	siginfo_t si;

	if (cg->sweeper_pid <= 0)
		return;
	(void)syscall(SYS_pidfd_send_signal, cg->sweeper_pidfd, SIGKILL, NULL, 0);
	while (waitid(P_PIDFD, (id_t)cg->sweeper_pidfd, &si, WEXITED | __WALL) < 0 &&
	       errno == EINTR)
		;
	close(cg->sweeper_pidfd);
	munmap(cg->sweeper_map, SWEEP_MAP);
	cg->sweeper_pid = 0;
	cg->sweeper_pidfd = -1;
	cg->sweeper_map = NULL;
}

pid_t cgroup_sweeper_pid(const struct kj_cgroup *cg)
{
	return cg ? cg->sweeper_pid : 0;
}
