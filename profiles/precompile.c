/* Build-time tool: compile the built-in seccomp policy to BPF and write it
 * as C, so `kjail exec` loads the default filter without compiling it on
 * every run. Usage: precompile POLICY-FILE SYMBOL > out.c */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/error.h"
#include "runtime/seccomp.h"

int main(int argc, char **argv)
{
	struct kj_seccomp_prog *prog;
	struct kj_err err = {0};
	static char text[1 << 20];
	size_t n;
	FILE *f;

	if (argc != 3 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: precompile POLICY-FILE SYMBOL\n");
		return 2;
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	if (kj_seccomp_compile(text, argv[1], &prog, &err)) {
		kj_err_print(&err);
		return 1;
	}
	if (kj_seccomp_write_c(prog, argv[2], stdout))
		return 1;
	kj_seccomp_free(prog);
	return 0;
}
