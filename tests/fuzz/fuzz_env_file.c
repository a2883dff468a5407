/* --env-file: the caller's NAME=VALUE file, read by env_file_load (from a
 * private file the target rewrites for each input), then the sandbox's
 * environment built from it by env_build. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "runtime/env.h"
#include "tests/fuzz/fuzz.h"

FUZZ_NO_LEAK_CHECK("the environment is built once per run and lives until exit")

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	path = fuzz_file_make("env")->path;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kj_conf_files files = {0};
	struct kj_config cfg;
	struct kj_err err = {0};
	char **envp = NULL;

	fuzz_file_write(path, data, size);
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
