/* Removing cgroups: this run's leaf when the sandbox ended
 * (cgroup_destroy), and the leaves of runs whose kjail was killed before it
 * could remove them (reclaimed by the next cgroup_prepare, or kjail gc).
 */
#include "runtime/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cgroup_int.h"

/* Is pid (still) in the leaf? Its /proc/<pid>/cgroup ends in the leaf's
 * name, which is unique (creator pid + random). */
static bool in_leaf(pid_t pid, const char *leaf_name)
{
	char path[64], line[PATH_MAX + 8];
	size_t ln = strlen(leaf_name);
	int n;

	cg_fmt(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if ((n = cg_read(AT_FDCWD, path, line, sizeof(line))) <= 0)
		return false;
	while (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	return (size_t)n > ln && line[n - ln - 1] == '/' && !strcmp(line + n - ln, leaf_name);
}

/* Kill everything in the leaf: cgroup.kill (Linux 5.14+) in one write,
 * else SIGKILL to each pid in cgroup.procs until it stays empty. */
static void kill_all(struct kj_cgroup *cg)
{
	const char *name = strrchr(cg->path, '/') + 1;
	char buf[8192];
	int n;

	if (cg_write(cg->fd, "cgroup.kill", "1") != -ENOENT)
		return;
	for (int round = 0; round < 100; round++) {
		bool any = false;
		char *last;

		if ((n = cg_read(cg->fd, "cgroup.procs", buf, sizeof(buf))) <= 0)
			return;
		/* Whole lines only: a pid cut in half by a short read would
		 * name some other process. */
		if (!(last = strrchr(buf, '\n')))
			return;
		last[1] = '\0';
		for (char *s = buf, *end; *s; s = end) {
			long pid = strtol(s, &end, 10);
			int pfd;
			if (end == s)
				break;
			/* A pid can be reused once its process is gone: pin the
			 * process with a pidfd, then check it is still ours, so
			 * SIGKILL never reaches an unrelated process. */
			if (pid <= 0 || (pfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0)) < 0)
				continue;
			if (in_leaf((pid_t)pid, name) &&
			    syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0) == 0)
				any = true;
			close(pfd);
		}
		if (!any)
			return;
	}
}

void cgroup_destroy(struct kj_cgroup *cg)
{
	struct timespec ts = {0, 1000000};
	bool killed = false, busy = false;

	if (!cg)
		return;
	/* No report (the run timed out, or its setup failed): still say
	 * which limit it hit, before the error or note that follows. */
	if (!cg->reported) {
		cg_collect(cg);
		if (cg->res.oom_kills)
			kj_note("out of memory (limit %s): a process was killed", cg->memory_arg);
		if (cg->res.pids_max)
			kj_note("process limit reached (%s)", cg->pids_arg);
	}
	/* Usually empty already: the sandbox's pid namespace died with its
	 * init. A leaf still busy is killed, then waited for (dying tasks
	 * leave the cgroup a moment after they are reaped), up to ~2 s. */
	for (int waited_ms = 0; rmdir(cg->path) < 0 && errno == EBUSY;
	     waited_ms += (int)(ts.tv_nsec / 1000000)) {
		if (waited_ms >= 2000) {
			/* Left to the sweeper, which outlives kjail for it. */
			kj_note("cgroup: %s is still busy; it is removed once empty (or by `kjail gc`)",
				cg->path);
			busy = true;
			break;
		}
		if (!killed) {
			kill_all(cg);
			killed = true;
		}
		nanosleep(&ts, NULL);
		if (ts.tv_nsec < 32000000)
			ts.tv_nsec *= 2;
	}
	if (!busy)
		cg_sweeper_stop(cg);
	else if (cg->sweeper_pid > 0)
		close(cg->sweeper_pidfd);
	close(cg->fd);
	free(cg);
}

int cgroup_gc(FILE *out, struct kj_err *err)
{
	struct cg_problem none[CG_NCTRL];
	struct cg_place pl;
	int n = 0;

	cg_locate(&pl, 0, none);
	/* No base: no cgroup of ours can exist. */
	if (pl.basefd >= 0 &&
	    (pl.kjfd = openat(pl.basefd, "kjail", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 &&
	    errno != ENOENT)
		n = kj_fail(err, "cgroup", errno, NULL, "open %s", pl.kjail);
	if (pl.kjfd >= 0)
		n = cg_reclaim(pl.kjfd, pl.kjail, out);
	cg_place_release(&pl);
	return n;
}

/* "run-<pid>-<hex>": the creator's pid, or 0 for a name kjail did not make. */
static pid_t leaf_creator(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, "run-", 4))
		return 0;
	pid = strtol(name + 4, &end, 10);
	if (pid <= 0 || pid > INT32_MAX || *end != '-' || !end[1] ||
	    end[1 + strspn(end + 1, "0123456789abcdef")])
		return 0;
	return (pid_t)pid;
}

int cg_reclaim(int kjfd, const char *kjail_path, FILE *out)
{
	char stat[256];
	uint64_t n = 1;
	int dfd, removed = 0;
	struct dirent *de;
	DIR *d;

	/* The hot path: no leaf at all, nothing to list (kjail/ also holds
	 * some 60 interface files, so the listing is not free). */
	if (cg_read(kjfd, "cgroup.stat", stat, sizeof(stat)) > 0 &&
	    cg_key(stat, "nr_descendants", &n) && n == 0)
		return 0;
	dfd = openat(kjfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while ((de = readdir(d))) {
		char events[256], path[NAME_MAX + 32];
		pid_t pid = leaf_creator(de->d_name);

		/* A live creator may not have cloned into its leaf yet. */
		if (!pid || kill(pid, 0) == 0 || errno == EPERM)
			continue;
		cg_fmt(path, sizeof(path), "%s/cgroup.events", de->d_name);
		/* Never a cgroup with processes: only the empty shell of a
		 * run whose kjail was killed before it could clean up. */
		if (cg_read(kjfd, path, events, sizeof(events)) < 0 ||
		    !strstr(events, "populated 0"))
			continue;
		if (unlinkat(kjfd, de->d_name, AT_REMOVEDIR) == 0) {
			removed++;
			if (out)
				fprintf(out, "%s/%s\n", kjail_path, de->d_name);
		}
	}
	closedir(d);
	return removed;
}
