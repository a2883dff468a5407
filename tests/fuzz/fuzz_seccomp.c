/* The seccomp policy compiler (kj_seccomp_compile): a user's --seccomp
 * policy file is parsed by it. A policy that compiles must give a loadable
 * program and print as C; nothing may leak, whatever the error path. */
#include <stdio.h>

#include "runtime/seccomp.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size);
	struct kj_seccomp_prog *prog = NULL;
	struct kj_err err = {0};
	static FILE *null;

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	if (kj_seccomp_compile(text, "fuzz.policy", &prog, &err) == 0) {
		FUZZ_ASSERT(prog && kj_seccomp_prog_len(prog) > 0);
		FUZZ_ASSERT(kj_seccomp_write_c(prog, "fuzz", null) == 0);
		kj_seccomp_free(prog);
	} else {
		FUZZ_ASSERT(err.part[0] && memchr(err.msg, '\0', sizeof(err.msg)));
	}
	free(text);
	return 0;
}
