/* kjail: run untrusted commands in a sandbox built from kernel primitives.
 *
 *   kjail exec [OPTIONS] [--] COMMAND [ARG...]
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/cli.h"
#include "runtime/config.h"
#include "runtime/sandbox.h"

#ifndef KJAIL_VERSION
#define KJAIL_VERSION "0.1.0"
#endif

/* fds 0-2 always exist (so no pipe or mount fd lands there by accident)
 * and nothing else the caller left open can reach the sandbox. */
static void sanitize_fds(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			_exit(KJ_EXIT_SETUP);
	/* CVE-2024-21626: every inherited fd above 2 is close-on-exec. */
	syscall(SYS_close_range, 3, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */);
}

static int cmd_exec(int argc, char **argv)
{
	struct kj_config cfg;
	struct kj_err err = {0};
	int rc;

	config_init(&cfg);
	rc = cli_parse_exec(argc, argv, &cfg, &err);
	if (rc == 1) {
		cli_usage(stdout);
		return 0;
	}
	if (rc || config_finish(&cfg, &err)) {
		kj_err_print(&err);
		return KJ_EXIT_SETUP;
	}
	kj_trace("options parsed");
	rc = sandbox_run(&cfg, &err);
	if (rc == KJ_EXIT_SETUP && err.part[0])
		kj_err_print(&err);
	return rc;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: kjail exec [OPTIONS] [--] COMMAND [ARG...]\n"
		     "       kjail --version\n"
		     "Run `kjail exec --help` for the options.\n");
}

int main(int argc, char **argv)
{
	kj_trace_init();
	sanitize_fds();
	if (argc >= 2 && !strcmp(argv[1], "exec"))
		return cmd_exec(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("kjail %s\n", KJAIL_VERSION);
		return 0;
	}
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2)
		fprintf(stderr, "kjail: option: unknown command '%s' (see kjail --help)\n", argv[1]);
	else
		usage(stderr);
	return KJ_EXIT_SETUP;
}
