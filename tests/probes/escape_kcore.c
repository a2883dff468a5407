/* escape_kcore: kernel memory and addresses: /proc/kcore (an ELF image
 * of kernel memory), /dev/mem, /dev/kmem, and the real addresses in
 * /proc/kallsyms that defeat KASLR. Contained if none gives a byte of
 * memory or a non-zero kernel address. */
#include <fcntl.h>

#include "escape.h"

int main(void)
{
	static const char *const mem[] = {"/proc/kcore", "/dev/mem", "/dev/kmem", "/dev/port"};
	char buf[512];
	FILE *f;

	for (size_t i = 0; i < sizeof(mem) / sizeof(mem[0]); i++) {
		int fd = open(mem[i], O_RDONLY | O_CLOEXEC);
		ssize_t n;
		if (fd < 0) {
			NOTE("%s: %s", mem[i], errname(errno));
			continue;
		}
		n = read(fd, buf, sizeof(buf));
		close(fd);
		if (n > 0)
			ESCAPED("read %zd bytes of %s", n, mem[i]);
		NOTE("%s: reads %s", mem[i], n == 0 ? "empty" : errname(errno));
	}
	f = fopen("/proc/kallsyms", "r");
	while (f && fgets(buf, sizeof(buf), f))
		if (strtoull(buf, NULL, 16) != 0)
			ESCAPED("/proc/kallsyms shows real kernel addresses");
	if (f)
		fclose(f);
	CONTAINED("no kernel memory and no kernel address readable");
}
