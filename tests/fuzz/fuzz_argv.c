/* The command line: cli_parse_exec on an argv built from the input, then
 * every option line it produced applied to a fresh configuration, as
 * settings.c does. Input: the first byte says whether a COMMAND is needed
 * (kjail exec) or not (kjail doctor); the rest is argv, NUL-separated. */
#include <stdbool.h>

#include "runtime/cli.h"
#include "tests/fuzz/fuzz.h"

FUZZ_NO_LEAK_CHECK("option values are strdup'ed into a configuration that lives until exit")

#define MAX_ARGS 128

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS + 1], **command = NULL;
	struct kj_lines flags = {0};
	struct kj_config cfg;
	struct kj_err err = {0};
	bool need_command;
	int argc = 0, rc;

	if (size < 1)
		return 0;
	need_command = data[0] & 1;
	buf = malloc(size);
	if (!buf)
		abort();
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	for (size_t i = 0; i < size - 1 && argc < MAX_ARGS; i += strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	argv[argc] = NULL;

	rc = cli_parse_exec(argc, argv, need_command, &flags, &command, &err);
	if (rc == 0) {
		FUZZ_ASSERT(command >= argv && command <= argv + argc);
		FUZZ_ASSERT(!need_command || *command);
		config_init(&cfg);
		for (size_t i = 0; i < flags.n; i++)
			(void)cli_apply_option(&cfg, flags.v[i].name, flags.v[i].value, &err);
	} else if (rc < 0) {
		FUZZ_ASSERT(err.part[0]);
	}
	free(flags.v);
	free(buf);
	return 0;
}
