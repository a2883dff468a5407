#include "runtime/clock.h"

#include <time.h>

/* runtime/session_quick.c keeps its own: it runs before libc is set up. */
int64_t kj_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
