/* memhog: allocate and touch memory until told to stop, to trip a cgroup's
 * memory.max.
 *
 *   memhog MB      touches MB mebibytes, 1 MiB at a time, then exits 0;
 *                  prints "memhog: N MiB" every 8 MiB (so a kill shows
 *                  how far it got)
 *
 * Under --memory 32M it is OOM-killed long before 200 MiB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every block stays reachable through this chain: the memory is held,
 * not leaked, until the process ends. */
static void *held;

int main(int argc, char **argv)
{
	long mb = argc > 1 ? strtol(argv[1], NULL, 10) : 200;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (long i = 1; i <= mb; i++) {
		char *p = malloc(1 << 20);
		if (!p) {
			printf("memhog: malloc failed at %ld MiB\n", i);
			return 2;
		}
		memset(p, (int)i, 1 << 20); /* touch every page: charged now */
		*(void **)p = held;
		held = p;
		if (i % 8 == 0)
			printf("memhog: %ld MiB\n", i);
	}
	printf("memhog: done, %ld MiB\n", mb);
	return 0;
}
