/* Unit test of runtime/cgroup_sweep.c: the leaf's sweeper removes the leaf
 * when kjail dies without removing it, and only then. A real leaf exists
 * only on a cgroup v2 host (tests/vm/guest/10-limits.t kills real
 * kjails); here plain directories stand in for it: "leaf" holds the
 * cgroup.events and cgroup.kill the sweeper reads and writes, and the
 * empty "kjail/run-1-test" is the name it removes. A child of this test
 * stands in for kjail; the test is a child subreaper, so the sweeper,
 * re-parented to it when that child dies, is reaped (and seen gone) here.
 * Built plain (a CLONE_VM sweeper) and with ASan (a forked one) by the two
 * .sh files. TAP on stdout. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cgroup.h"
#include "runtime/cgroup_int.h"
#include "tests/unit/tap.h"

static char base[] = "/tmp/kj-sweep-XXXXXX";

static void path(char *out, size_t size, const char *rel)
{
	snprintf(out, size, "%s/%s", base, rel);
}

static void put(const char *rel, const char *text)
{
	char p[128];
	FILE *f;

	path(p, sizeof(p), rel);
	if ((f = fopen(p, "w"))) {
		fputs(text, f);
		fclose(f);
	}
}

static void get(const char *rel, char *buf, size_t size)
{
	char p[128];
	FILE *f;
	size_t len = 0;

	path(p, sizeof(p), rel);
	if ((f = fopen(p, "r"))) {
		len = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[len] = '\0';
}

static bool exists(const char *rel)
{
	char p[128];

	path(p, sizeof(p), rel);
	return access(p, F_OK) == 0;
}

/* Poll for up to ms for exists(rel) to become want. */
static bool settles(const char *rel, bool want, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		if (exists(rel) == want)
			return true;
		usleep(10000);
	}
	return exists(rel) == want;
}

static void proc_read(pid_t pid, const char *file, char *buf, size_t size)
{
	char p[64];
	FILE *f;
	size_t len = 0;

	snprintf(p, sizeof(p), "/proc/%d/%s", (int)pid, file);
	if ((f = fopen(p, "r"))) {
		len = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* The SigBlk mask of pid's /proc status, in hex (out: 64 bytes). */
static void sigblk(pid_t pid, char *out)
{
	char p[64], line[256];
	FILE *f;

	out[0] = '\0';
	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	if (!(f = fopen(p, "r")))
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %63s", out) == 1)
			break;
	fclose(f);
}

/* The stand-in for kjail: make the leaf's sweeper, report its pid, then
 * end as told ('k': wait to be killed; 's': stop the sweeper and exit). */
static pid_t fake_kjail(char how, pid_t *sweeper)
{
	int p[2];
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct kj_cgroup cg = {0};
		char leaf[128], kj[128];
		int rc;

		close(p[0]);
		path(leaf, sizeof(leaf), "leaf");
		path(kj, sizeof(kj), "kjail");
		cg.fd = open(leaf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int kjfd = open(kj, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		rc = cg_sweeper_start(&cg, kjfd, "run-1-test");
		pid_t sw = rc ? -1 : cgroup_sweeper_pid(&cg);
		(void)!write(p[1], &sw, sizeof(sw));
		if (how == 's') {
			cg_sweeper_stop(&cg);
			/* Reaped: no child of ours is left. */
			_exit(waitpid(-1, NULL, __WALL | WNOHANG) < 0 && errno == ECHILD ? 0 : 3);
		}
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], sweeper, sizeof(*sweeper)) != sizeof(*sweeper))
		*sweeper = -1;
	close(p[0]);
	return pid;
}

/* The sweeper, re-parented to this subreaper, has exited and is reaped. */
static bool reaped(pid_t sw, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		if (waitpid(sw, NULL, WNOHANG | __WALL) == sw)
			return true;
		usleep(10000);
	}
	return false;
}

static void fresh(const char *events)
{
	char p[128];

	path(p, sizeof(p), "kjail/run-1-test");
	mkdir(p, 0755);
	put("leaf/cgroup.events", events);
	put("leaf/cgroup.kill", "");
}

int main(void)
{
	char p[128], buf[256], want[256];
	pid_t kj, sw;
	int st;

	if (!mkdtemp(base))
		return 2;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	path(p, sizeof(p), "kjail");
	mkdir(p, 0755);
	path(p, sizeof(p), "leaf");
	mkdir(p, 0755);

	/* kill -9 of kjail: the leaf is killed, then removed. */
	fresh("populated 0\nfrozen 0\n");
	kj = fake_kjail('k', &sw);
	ok(kj > 0 && sw > 0, "sweeper_started", NULL);
	usleep(100000);
	proc_read(sw, "comm", buf, sizeof(buf));
	ok(!strcmp(buf, "kjail-sweep"), "sweeper_named_kjail_sweep", buf);
	snprintf(p, sizeof(p), "/proc/%d/fd/3", (int)sw);
	ok(access(p, F_OK) != 0, "sweeper_holds_no_fd_above_2", NULL);
	snprintf(p, sizeof(p), "/proc/%d/fd/1", (int)sw);
	path(want, sizeof(want), "leaf");
	ok(readlink(p, buf, sizeof(buf) - 1) > 0 && !strncmp(buf, want, strlen(want)),
	   "sweeper_fd_1_is_the_leaf", buf);
	ok(getsid(sw) == sw && getsid(sw) != getsid(kj), "sweeper_in_a_session_of_its_own", NULL);
	sigblk(sw, buf);
	/* All but SIGKILL and SIGSTOP, and glibc's own 32 and 33. */
	ok(!strcmp(buf, "fffffffe7ffbfeff"), "sweeper_blocks_every_signal", buf);
	ok(exists("kjail/run-1-test"), "leaf_kept_while_kjail_lives", NULL);
	kill(kj, SIGKILL);
	waitpid(kj, &st, 0);
	ok(settles("kjail/run-1-test", false, 5000), "leaf_removed_after_kill_9", NULL);
	get("leaf/cgroup.kill", buf, sizeof(buf));
	ok(!strcmp(buf, "1"), "cgroup_kill_written_first", buf);
	ok(reaped(sw, 5000), "sweeper_exits_after_sweeping", NULL);

	/* A leaf that still holds a process is not removed until it empties. */
	fresh("populated 1\nfrozen 0\n");
	kj = fake_kjail('k', &sw);
	kill(kj, SIGKILL);
	waitpid(kj, &st, 0);
	usleep(1500000);
	ok(exists("kjail/run-1-test"), "busy_leaf_waited_for", NULL);
	put("leaf/cgroup.events", "populated 0\nfrozen 0\n");
	ok(settles("kjail/run-1-test", false, 3000), "leaf_removed_once_empty", NULL);
	ok(reaped(sw, 5000), "sweeper_exits_after_the_wait", NULL);

	/* A normal end: kjail stops and reaps the sweeper, which does nothing. */
	fresh("populated 0\nfrozen 0\n");
	kj = fake_kjail('s', &sw);
	waitpid(kj, &st, 0);
	ok(sw > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "stop_kills_and_reaps_the_sweeper",
	   NULL);
	usleep(200000);
	ok(exists("kjail/run-1-test"), "stopped_sweeper_removes_nothing", NULL);
	get("leaf/cgroup.kill", buf, sizeof(buf));
	ok(buf[0] == '\0', "stopped_sweeper_kills_nothing", buf);
	ok(waitpid(-1, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD, "nothing_left_behind", NULL);

	path(p, sizeof(p), "kjail/run-1-test");
	rmdir(p);
	path(p, sizeof(p), "kjail");
	rmdir(p);
	path(p, sizeof(p), "leaf/cgroup.events");
	unlink(p);
	path(p, sizeof(p), "leaf/cgroup.kill");
	unlink(p);
	path(p, sizeof(p), "leaf");
	rmdir(p);
	rmdir(base);
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
