/* escape_devices: reach host devices through /dev: disks, memory, the
 * kernel log, the console, loop and fuse control, tun. Opened read-only
 * and non-blocking (never written); a new node in /dev must fail too. */
#include <fcntl.h>

#include "escape.h"

int main(void)
{
	static const char *const nodes[] = {
		"/dev/sda",  "/dev/vda",     "/dev/nvme0n1",      "/dev/xvda",
		"/dev/dm-0", "/dev/mem",     "/dev/kmsg",         "/dev/console",
		"/dev/tty0", "/dev/tty1",    "/dev/loop0",        "/dev/loop-control",
		"/dev/fuse", "/dev/net/tun", "/dev/autofs",       "/dev/cpu/0/msr",
		"/dev/hpet", "/dev/rtc0",    "/dev/input/event0", "/dev/vsock",
	};
	int fd;

	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		fd = open(nodes[i], O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			ESCAPED("opened the host device %s", nodes[i]);
		}
	}
	fd = open("/dev/escape-node", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		unlink("/dev/escape-node");
		ESCAPED("created /dev/escape-node");
	}
	CONTAINED("no host device opens; /dev/escape-node: %s", errname(errno));
}
