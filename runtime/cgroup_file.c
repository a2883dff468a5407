/* Small helpers for cgroupfs files, shared by the cgroup module. Interface
 * files are short and read in one call; writes are one write each, which
 * is how the kernel wants a value (a partial write is an error). */
#include "runtime/cgroup_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cg_fmt(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, size, fmt, ap);
	va_end(ap);
}

int cg_read(int dirfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	close(fd);
	buf[n] = '\0';
	return (int)n;
}

int cg_write(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

bool cg_key(const char *text, const char *key, uint64_t *val)
{
	size_t len = strlen(key);

	for (const char *p = text; p && *p;) {
		if (!strncmp(p, key, len) && p[len] == ' ') {
			*val = strtoull(p + len + 1, NULL, 10);
			return true;
		}
		if ((p = strchr(p, '\n')))
			p++;
	}
	return false;
}

bool cg_has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\n' || !p[len]))
			return true;
	return false;
}
