/* Unit test of runtime/cgroup.c cgroup_adopt: the --net proxy is moved
 * into the sandbox's leaf by writing its pid to the leaf's cgroup.procs,
 * and a move that fails is an error (fail closed: the proxy would spend
 * outside the limits), named in kjail's one-line format. A real leaf
 * exists only on a cgroup v2 host (tests/vm/guest/10-limits.t moves the
 * real proxy); here a plain directory stands in for it. TAP on stdout. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/cgroup.h"
#include "runtime/cgroup_int.h"
#include "tests/unit/tap.h"

int main(void)
{
	char dir[] = "/tmp/kj-adopt-XXXXXX", procs[64], got[32] = "", want[200];
	struct kj_cgroup cg = {0};
	struct kj_err err = {0};
	int fd, rc;
	ssize_t r;

	if (!mkdtemp(dir))
		return 2;
	cg.fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(cg.path, sizeof(cg.path), "%s", dir);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);

	ok(cgroup_adopt(NULL, 1234, "the proxy", &err) == 0 && !err.part[0],
	   "no_leaf_nothing_to_do", NULL);
	ok(cgroup_adopt(&cg, 0, "the proxy", &err) == 0 && !err.part[0], "no_pid_nothing_to_do",
	   NULL);

	/* No cgroup.procs (a leaf removed under kjail): an error, nothing made. */
	rc = cgroup_adopt(&cg, 1234, "the --net proxy proxy", &err);
	snprintf(want, sizeof(want),
		 "put the --net proxy proxy in the sandbox's cgroup %s: No such file or directory "
		 "(kjail doctor checks the host's cgroups)",
		 dir);
	ok(rc < 0 && !strcmp(err.part, "cgroup") && !strcmp(err.msg, want),
	   "move_failure_is_an_error", err.msg);
	ok(access(procs, F_OK) != 0, "move_failure_creates_nothing", NULL);

	/* The pid is written, as cgroup.procs takes it. */
	if ((fd = open(procs, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)) >= 0)
		close(fd);
	err = (struct kj_err){0};
	rc = cgroup_adopt(&cg, 4321, "the --net proxy proxy", &err);
	fd = open(procs, O_RDONLY | O_CLOEXEC);
	r = fd >= 0 ? read(fd, got, sizeof(got) - 1) : -1;
	if (fd >= 0)
		close(fd);
	ok(rc == 0 && r == 4 && !strcmp(got, "4321") && !err.part[0], "pid_written_to_cgroup_procs",
	   got);

	unlink(procs);
	close(cg.fd);
	rmdir(dir);
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
