/* escape_settime: set the host's clock (clock_settime, settimeofday,
 * adjtimex): the clock is not namespaced. The time written is the time
 * just read, so even a success changes nothing that matters. */
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>

#include "escape.h"

int main(void)
{
	struct timespec now;
	struct timeval tv;
	struct timex tx = {.modes = ADJ_MAXERROR, .maxerror = 0};
	int e1, e2;

	clock_gettime(CLOCK_REALTIME, &now);
	if (syscall(SYS_clock_settime, CLOCK_REALTIME, &now) == 0)
		ESCAPED("clock_settime(CLOCK_REALTIME) succeeded");
	e1 = errno;
	gettimeofday(&tv, NULL);
	if (syscall(SYS_settimeofday, &tv, NULL) == 0)
		ESCAPED("settimeofday succeeded");
	e2 = errno;
	if (syscall(SYS_adjtimex, &tx) >= 0)
		ESCAPED("adjtimex(ADJ_MAXERROR) succeeded");
	CONTAINED("clock_settime: %s; settimeofday: %s; adjtimex: %s", errname(e1), errname(e2),
		  errname(errno));
}
