/* The administrator's policy (/etc/kjail/policy): its lines through
 * conf_parse and the rule parser, then every rule checked against the
 * default configuration. policy.c reads only its fixed, root-owned path
 * and keeps its rule parser static, so this target compiles policy.c in
 * (its copy of policy.o is then not taken from libkjail.a). */
#include "runtime/policy.c" /* NOLINT(bugprone-suspicious-include): reaches add_rule */
#include "tests/fuzz/fuzz.h"

FUZZ_NO_LEAK_CHECK("rules are built once per run and live until exit")

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size);
	struct kj_lines lines = {0};
	struct kj_policy p;
	struct kj_sources src;
	struct kj_config cfg;
	struct kj_err err = {0};
	int rc;

	memset(&p, 0, sizeof(p));
	memset(&src, 0, sizeof(src));
	rc = conf_parse("policy", text, KJ_POLICY_FILE, &lines, &err);
	for (size_t i = 0; !rc && i < lines.n; i++)
		rc = add_rule(&p, &lines.v[i], &err);
	if (!rc) {
		/* A finished configuration, as policy_enforce sees it after
		 * config_finish: a canonical workspace, one bind of each kind. */
		config_init(&cfg);
		cfg.timeout_ms = 30000;
		cfg.workspace.src = "/var/tmp";
		cfg.workspace.dest = "/var/tmp";
		cfg.workspace.writable = true;
		cfg.binds[0] = (struct kj_bind){.src = "/etc", .dest = "/etc"};
		cfg.binds[1] = (struct kj_bind){.src = "/home", .dest = "/home", .writable = true};
		cfg.nbinds = 2;
		(void)policy_enforce(&p, &cfg, &src, &err);
	} else {
		FUZZ_ASSERT(err.part[0] && memchr(err.msg, '\0', sizeof(err.msg)));
	}
	policy_free(&p);
	free(lines.v);
	free(text);
	return 0;
}
