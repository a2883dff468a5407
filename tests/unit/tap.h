/* The unit tests' TAP output: one "ok N - name" line per check, and a
 * "#   detail" line under a failure. main() prints the plan from n and
 * exits non-zero when failed is. */
#ifndef KJAIL_TAP_H
#define KJAIL_TAP_H

#include <stdio.h>

static int n, failed;

static void ok(int cond, const char *name, const char *detail)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ++n, name);
	if (!cond) {
		failed++;
		if (detail)
			printf("#   %s\n", detail);
	}
}

#endif
