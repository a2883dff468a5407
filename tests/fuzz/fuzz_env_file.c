/* --env-file: the caller's NAME=VALUE file, read by env_file_load (from a
 * private file the target rewrites for each input), then the sandbox's
 * environment built from it by env_build. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "runtime/env.h"
#include "tests/fuzz/fuzz.h"

FUZZ_NO_LEAK_CHECK("the environment is built once per run and lives until exit")

static char dir[] = "/tmp/kjail-fuzz.XXXXXX", path[64];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/env", dir);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kj_conf_files files = {0};
	struct kj_config cfg;
	struct kj_err err = {0};
	char **envp = NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	config_init(&cfg);
	cfg.env_file = path;
	if (env_file_load(&cfg, &files, &err) == 0) {
		FUZZ_ASSERT(cfg.nenv_file_vars <= 256);
		for (size_t i = 0; i < cfg.nenv_file_vars; i++)
			FUZZ_ASSERT(strchr(cfg.env_file_vars[i], '='));
		if (env_build(&cfg, &envp, &err) == 0)
			FUZZ_ASSERT(envp);
	} else {
		FUZZ_ASSERT(err.part[0] && memchr(err.msg, '\0', sizeof(err.msg)));
	}
	/* Freed here so that long runs do not grow into the RSS limit (a
	 * run builds these once and keeps them until exit). */
	free(envp);
	free(cfg.env_file_vars);
	free(cfg.env_file_text);
	for (size_t i = 0; i < files.n; i++)
		free((char *)files.v[i].real);
	return 0;
}
