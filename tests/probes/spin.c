/* spin: burn CPU for a wall-clock time, to measure a CPU limit.
 *
 *   spin SECONDS   busy-loops until SECONDS of wall time have passed, then
 *                  prints "spin: wall W cpu C" (seconds, CPU time of this
 *                  process) and exits 0
 *
 * Under --cpus 0.5 C/W comes out near 0.5. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 3, t0 = now(CLOCK_MONOTONIC), wall;
	volatile unsigned long x = 0;

	while ((wall = now(CLOCK_MONOTONIC) - t0) < secs)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
	printf("spin: wall %.3f cpu %.3f\n", wall, now(CLOCK_PROCESS_CPUTIME_ID));
	return 0;
}
