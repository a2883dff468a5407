/* Profiles: a profile file (rewritten for each input, private to the
 * target) through profile_load, includes and all, then each of its lines
 * applied to a fresh configuration. $HOME is a directory of the target's,
 * so `include NAME` looks in /etc/kjail/profiles, there, and the built-ins. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "runtime/cli.h"
#include "runtime/profile.h"
#include "tests/fuzz/fuzz.h"

FUZZ_NO_LEAK_CHECK("a profile's text and lines live until exit (the lines point into it)")

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const struct fuzz_file *f = fuzz_file_make("fuzz.profile");

	if (setenv("HOME", f->dir, 1))
		abort();
	path = f->path;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kj_conf_files files = {0};
	struct kj_profile p;
	struct kj_config cfg;
	struct kj_err err = {0};

	fuzz_file_write(path, data, size);
	if (profile_load(path, "--profile", &p, &files, &err) == 0) {
		FUZZ_ASSERT(p.nnames <= KJ_MAX_PROFILES && files.n <= KJ_MAX_FILES);
		config_init(&cfg);
		for (size_t i = 0; i < p.lines.n; i++)
			(void)cli_apply_option(&cfg, p.lines.v[i].name, p.lines.v[i].value, &err);
	} else {
		FUZZ_ASSERT(err.part[0] && memchr(err.msg, '\0', sizeof(err.msg)));
	}
	profile_free(&p);
	return 0;
}
