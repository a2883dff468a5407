/* escape_peer serve|probe MARKER: one sandbox (serve) leaves MARKER in
 * its /tmp, /dev/shm and /run, listens on the abstract socket @MARKER and
 * waits; a second sandbox running at the same time (probe) looks for any
 * of it and for the first one's processes (whose argv[1] is MARKER). */
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "escape.h"

static void abstract_addr(struct sockaddr_un *sa, socklen_t *len, const char *marker)
{
	size_t n = strlen(marker);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path + 1, marker, n);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/* A process of the serving sandbox: its argv holds "serve\0MARKER" (this
 * sandbox's init holds "probe\0MARKER" in its own argv: kjail's). */
static int other_process(const char *marker)
{
	char needle[80];
	size_t nlen = (size_t)snprintf(needle, sizeof(needle), "serve%c%s", '\0', marker);

	DIR *d = opendir("/proc");
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d))) {
		char path[300], argv[512] = "";
		ssize_t n;
		int fd;
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || atoi(e->d_name) == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, argv, sizeof(argv) - 1);
		close(fd);
		if (n > 0 && memmem(argv, (size_t)n, needle, nlen))
			found = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

int main(int argc, char **argv)
{
	static const char *const dirs[] = {"/tmp", "/dev/shm", "/run"};
	struct sockaddr_un sa;
	socklen_t len;
	char path[512];
	int s, pid;

	if (argc != 3 || strlen(argv[2]) > 64)
		BROKEN("usage: escape_peer serve|probe MARKER");
	abstract_addr(&sa, &len, argv[2]);
	if (!strcmp(argv[1], "serve")) {
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", dirs[i], argv[2]);
			close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		}
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0 || bind(s, (struct sockaddr *)&sa, len) < 0 || listen(s, 4) < 0)
			BROKEN("listen on @%s: %s", argv[2], errname(errno));
		close(open("serve.ready", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		sleep(30);
		return 0;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], argv[2]);
		if (access(path, F_OK) == 0)
			ESCAPED("the other sandbox's %s is visible", path);
	}
	if ((pid = other_process(argv[2])))
		ESCAPED("the other sandbox's process is visible (pid %d)", pid);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (connect(s, (struct sockaddr *)&sa, len) == 0)
		ESCAPED("connected to the other sandbox's abstract socket @%s", argv[2]);
	CONTAINED("nothing of the other sandbox: files, processes, socket (%s)", errname(errno));
}
