/* sigready: report the first INT, TERM or HUP it receives.
 *
 *   sigready FILE
 *
 * installs handlers for SIGINT, SIGTERM and SIGHUP first, then creates
 * FILE.ready, then waits. On a signal it writes the signal's name to FILE
 * and exits 7. Static and tiny, so it is running (and ready) as early as a
 * command can be: a test that signals kjail the moment FILE.ready exists
 * proves signals are forwarded from the first instant COMMAND runs. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *out;

static void on_signal(int sig)
{
	const char *name = sig == SIGINT ? "INT\n" : sig == SIGTERM ? "TERM\n" : "HUP\n";
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		(void)!write(fd, name, strlen(name));
		close(fd);
	}
	_exit(7);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	char ready[4096];
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: sigready FILE\n");
		return 2;
	}
	out = argv[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	snprintf(ready, sizeof(ready), "%s.ready", out);
	fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror("sigready: create the ready file");
		return 2;
	}
	close(fd);
	for (;;)
		pause();
}
