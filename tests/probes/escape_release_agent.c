/* escape_release_agent: CVE-2022-0492: mount a cgroup v1 hierarchy and
 * set its release_agent, a program the host kernel runs as host root
 * when a cgroup empties. The mount must fail, and no release_agent may
 * be writable anywhere under /sys/fs/cgroup. The agent is never set. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "escape.h"

int main(void)
{
	const char *dir = "/tmp/escape-cgroup";
	char path[512];
	DIR *d;
	struct dirent *e;
	int fd, e1;

	mkdir(dir, 0755);
	if (mount("cgroup", dir, "cgroup", 0, "rdma") == 0) {
		umount2(dir, MNT_DETACH);
		ESCAPED("mounted a cgroup v1 hierarchy (rdma): release_agent is reachable");
	}
	e1 = errno;
	d = opendir("/sys/fs/cgroup");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/release_agent", e->d_name);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			ESCAPED("%s is writable", path);
		}
		NOTE("%s: %s", path, errname(errno));
	}
	if (d)
		closedir(d);
	fd = open("/sys/fs/cgroup/release_agent", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		ESCAPED("/sys/fs/cgroup/release_agent is writable");
	}
	CONTAINED("mount(cgroup v1): %s; no writable release_agent", errname(e1));
}
