/* escape_perf: perf_event_open on ourselves (a software counter, the
 * least privileged event): perf is a rich source of kernel bugs
 * (CVE-2013-2094) and of side channels. */
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd >= 0) {
		close((int)fd);
		ESCAPED("perf_event_open opened a counter");
	}
	CONTAINED("perf_event_open(task clock, self): %s", errname(errno));
}
