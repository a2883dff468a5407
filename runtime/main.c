/* kjail: run untrusted commands in a sandbox built from kernel primitives.
 *
 *   kjail exec [OPTIONS] [--] COMMAND [ARG...]
 *   kjail profile list | show NAME|PATH
 *   kjail doctor [--json] [OPTIONS]
 *   kjail create [OPTIONS] NAME | exec -s NAME ... | ls | stop | rm | gc
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/cli.h"
#include "runtime/config.h"
#include "runtime/doctor.h"
#include "runtime/launch_host.h"
#include "runtime/profile.h"
#include "runtime/sandbox.h"
#include "runtime/session.h"
#include "runtime/settings.h"

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
	struct kj_sources src;
	struct kj_err err = {0};
	int rc;

	config_init(&cfg);
	rc = settings_load(argc, argv, true, &cfg, &src, &err);
	if (rc == 1) {
		cli_usage(stdout);
		return 0;
	}
	if (rc) {
		kj_err_print(&err);
		return KJ_EXIT_SETUP;
	}
	/* A session's option on the command line: a one-shot run has no
	 * idle time to end (the same check as kjail doctor's). A flag's
	 * origin is "--NAME"; settings and profiles may hold it for create. */
	for (size_t i = 0; i < src.norigins; i++)
		if (!strncmp(src.origin[i].src, "--", 2) &&
		    cli_check_oneshot_flag(src.origin[i].opt, &err)) {
			kj_err_print(&err);
			return KJ_EXIT_SETUP;
		}
	kj_trace("options parsed");
	/* The host profile: no namespaces (runtime/launch_host.c). */
	rc = cfg.isolation == KJ_ISOLATION_NONE ? sandbox_run_host(&cfg, &err)
						: sandbox_run(&cfg, &err);
	if (rc == KJ_EXIT_SETUP && err.part[0])
		kj_err_print(&err);
	return rc;
}

/* kjail profile list | show NAME|PATH */
static int cmd_profile(int argc, char **argv)
{
	static const char usage[] = "usage: kjail profile list | kjail profile show NAME|PATH";
	struct kj_err err = {0};

	if (argc == 1 && !strcmp(argv[0], "list")) {
		if (profile_list(stdout, &err) == 0)
			return 0;
		kj_err_print(&err);
		return KJ_EXIT_SETUP;
	}
	if (argc == 2 && !strcmp(argv[0], "show")) {
		if (profile_show(argv[1], stdout, &err) == 0)
			return 0;
		kj_err_print(&err);
		return KJ_EXIT_SETUP;
	}
	if (argc == 1 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
		printf("%s\n", usage);
		return 0;
	}
	if (argc == 0)
		return kj_usage_error(usage, "%s", "kjail profile needs list or show");
	if (strcmp(argv[0], "list") && strcmp(argv[0], "show"))
		return kj_usage_error(usage, "unknown profile command '%s'", argv[0]);
	return kj_usage_error(usage, "%s",
			      !strcmp(argv[0], "show") ? "kjail profile show takes one NAME or PATH"
						       : "kjail profile list takes no arguments");
}

/* kjail gc: remove the cgroups of runs whose kjail was killed (SIGKILL)
 * before it could remove them, printing each removed path. */
static int cmd_gc(int argc, char **argv)
{
	struct kj_err err = {0};

	if (argc == 1 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
		printf("usage: kjail gc   remove what killed runs and dead sessions left behind\n");
		return 0;
	}
	if (argc)
		return kj_usage_error("usage: kjail gc", "kjail gc takes no arguments: '%s'",
				      argv[0]);
	(void)session_gc(&err); /* sessions whose supervisor died */
	if (cgroup_gc(stdout, &err) < 0) {
		kj_err_print(&err);
		return KJ_EXIT_SETUP;
	}
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: kjail exec [OPTIONS] [--] COMMAND [ARG...]\n"
		"       kjail create [OPTIONS] NAME      a session: a sandbox that stays\n"
		"       kjail exec -s NAME [--timeout D] [--kill-grace D] [--output-limit B] [--setenv K=V] [--cwd DIR] [--quiet] [--create] [--] COMMAND...\n"
		"       kjail ls [--json] | stop NAME | rm NAME\n"
		"       kjail gc          remove what killed runs and dead sessions left behind\n"
		"       kjail profile list | show NAME|PATH\n"
		"       kjail doctor [--json] [OPTIONS]   what works here, and why not\n"
		"       kjail --version | --help\n"
		"Run `kjail exec --help` for the options, `kjail SUBCOMMAND --help` for the others.\n");
}

int main(int argc, char **argv)
{
	const char *cmd = argc >= 2 ? argv[1] : NULL;

	kj_trace_init();
	sanitize_fds();
	/* A caller's stderr (or stdout) that is a pipe nobody reads must not
	 * kill kjail with SIGPIPE at its first note or error line: the run's
	 * status would be 141, or COMMAND never ran. Blocked, not ignored: an
	 * ignored signal would stay ignored across COMMAND's execve, a
	 * blocked one is unblocked there (and the supervisor ignores it). */
	{
		sigset_t pipe_set;
		sigemptyset(&pipe_set);
		sigaddset(&pipe_set, SIGPIPE);
		sigprocmask(SIG_BLOCK, &pipe_set, NULL);
	}
	/* A caller that ignores SIGCHLD (a daemon's signal(SIGCHLD, SIG_IGN),
	 * `env --ignore-signal=CHLD`) passes that on through exec: the kernel
	 * then reaps kjail's children itself, so waitid on init's pidfd failed
	 * with ECHILD, and init (which inherits it) never saw COMMAND end
	 * either. kjail hung for ever after COMMAND exited, --timeout and its
	 * SIGKILL included, and COMMAND's status was lost; every helper kjail
	 * waits for (getent, the seccomp compiler, git config) lost its status
	 * too. Reset first, before any child is made. */
	signal(SIGCHLD, SIG_DFL);
	if (!cmd) {
		usage(stderr);
		return KJ_EXIT_SETUP;
	}
	/* An exec into a session first: its client is what agents call most,
	 * and it needs none of cmd_exec's stack (a whole configuration). */
	if (!strcmp(cmd, "exec") && session_requested(argc - 2, argv + 2))
		return cmd_session_exec(argc - 2, argv + 2);
	if (!strcmp(cmd, "exec"))
		return cmd_exec(argc - 2, argv + 2);
	if (!strcmp(cmd, "gc"))
		return cmd_gc(argc - 2, argv + 2);
	if (!strcmp(cmd, "create")) {
		/* NAME stands where exec's COMMAND would: say so when missing. */
		cli_set_operand("NAME", "usage: kjail create [OPTIONS] NAME");
		return cmd_create(argc - 2, argv + 2);
	}
	if (!strcmp(cmd, "ls"))
		return cmd_ls(argc - 2, argv + 2);
	if (!strcmp(cmd, "stop"))
		return cmd_stop(argc - 2, argv + 2);
	if (!strcmp(cmd, "rm"))
		return cmd_rm(argc - 2, argv + 2);
	if (!strcmp(cmd, "profile"))
		return cmd_profile(argc - 2, argv + 2);
	if (!strcmp(cmd, "doctor"))
		return doctor_run(argc - 2, argv + 2);
	if (!strcmp(cmd, "--version")) {
		printf("kjail %s\n", KJAIL_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	return kj_usage_error("see kjail --help", "unknown command '%s'", cmd);
}
