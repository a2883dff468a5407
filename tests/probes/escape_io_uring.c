/* escape_io_uring: io_uring_setup. Operations submitted through a ring
 * never pass the seccomp filter, and io_uring has had many bugs
 * (CVE-2022-29582). */
#include <linux/io_uring.h>
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	struct io_uring_params p;
	long fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(SYS_io_uring_setup, 4, &p);
	if (fd >= 0) {
		close((int)fd);
		ESCAPED("io_uring_setup made a ring: its ops bypass seccomp");
	}
	CONTAINED("io_uring_setup: %s", errname(errno));
}
