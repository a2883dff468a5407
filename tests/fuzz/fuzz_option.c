/* Option lines through cli_apply_option, the one parser every source
 * (flags, profiles, settings, policy values) goes through.
 * Input: lines "NAME VALUE" or "NAME" (no value), applied in order to one
 * fresh configuration. */
#include <stdbool.h>

#include "runtime/cli.h"
#include "tests/fuzz/fuzz.h"

FUZZ_NO_LEAK_CHECK("option values are strdup'ed into a configuration that lives until exit")

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size), *lines[64];
	size_t n = fuzz_split(text, '\n', lines, 64);
	struct kj_config cfg;
	struct kj_err err = {0};

	config_init(&cfg);
	for (size_t i = 0; i < n; i++) {
		char *value = strchr(lines[i], ' ');
		bool takes_value;

		if (value)
			*value++ = '\0';
		(void)cli_option_lookup(lines[i], &takes_value);
		if (cli_apply_option(&cfg, lines[i], value, &err))
			FUZZ_ASSERT(err.part[0] && memchr(err.msg, '\0', sizeof(err.msg)));
		FUZZ_ASSERT(cfg.nbinds <= KJ_MAX_BINDS && cfg.nmasks <= KJ_MAX_MASKS &&
			    cfg.nsetenv <= KJ_MAX_ENV && cfg.npassenv <= KJ_MAX_ENV);
	}
	free(text);
	return 0;
}
