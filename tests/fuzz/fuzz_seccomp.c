/* The seccomp policy compiler as a run uses it for a user's --seccomp
 * file (kj_seccomp_compile_bounded: parsed here, compiled by libseccomp in
 * a child under a CPU limit, so a pathological shape is an error, not a
 * fuzzer timeout; a crash of the child fails the assertion below). A policy that compiles must give
 * a loadable program and print as C; nothing may leak, whatever the error path. */
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
	if (kj_seccomp_compile_bounded(text, "fuzz.policy", &prog, &err) == 0) {
		FUZZ_ASSERT(prog && kj_seccomp_prog_len(prog) > 0);
		FUZZ_ASSERT(kj_seccomp_write_c(prog, "fuzz", null) == 0);
		kj_seccomp_free(prog);
	} else {
		FUZZ_ASSERT(err.part[0] && memchr(err.msg, '\0', sizeof(err.msg)));
		FUZZ_ASSERT(!strstr(err.msg, "policy compiler"));
	}
	free(text);
	return 0;
}
