/* Configuration files (settings and profiles share the format):
 * conf_parse splits the text into option lines, and each line goes
 * through cli_apply_option on a fresh configuration, as settings.c does. */
#include "runtime/cli.h"
#include "runtime/conffile.h"
#include "tests/fuzz/fuzz.h"

FUZZ_NO_LEAK_CHECK("option values are strdup'ed into a configuration that lives until exit")

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size);
	struct kj_lines lines = {0};
	struct kj_config cfg;
	struct kj_err err = {0};

	if (conf_parse("settings", text, "fuzz.settings", &lines, &err) == 0) {
		config_init(&cfg);
		for (size_t i = 0; i < lines.n; i++) {
			FUZZ_ASSERT(lines.v[i].name && lines.v[i].name[0] && lines.v[i].lineno > 0);
			if (cli_apply_option(&cfg, lines.v[i].name, lines.v[i].value, &err))
				line_error(&lines.v[i], &err);
		}
	} else {
		FUZZ_ASSERT(err.part[0]);
	}
	free(lines.v);
	free(text);
	return 0;
}
