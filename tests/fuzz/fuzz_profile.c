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
	if (!mkdtemp(dir) || setenv("HOME", dir, 1))
		abort();
	snprintf(path, sizeof(path), "%s/fuzz.profile", dir);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kj_conf_files files = {0};
	struct kj_profile p;
	struct kj_config cfg;
	struct kj_err err = {0};
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
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
