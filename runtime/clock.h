/* The monotonic clock in milliseconds: deadlines, idle times and memo
 * ages (never the wall clock, which the host may step). */
#ifndef KJAIL_CLOCK_H
#define KJAIL_CLOCK_H

#include <stdint.h>

int64_t kj_mono_ms(void);

#endif
