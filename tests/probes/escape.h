/* Shared verdicts for the escape probes (tests/probes/escape_*.c), run by
 * tests/escape/battery.t inside a default sandbox.
 *
 * Each probe tries one attack and ends with one verdict line:
 *   contained: <what happened>   exit 0
 *   ESCAPED: <what happened>     exit 1
 *   broken: <why>                exit 2 (the attack could not even be tried)
 * A probe never does harm when an attack succeeds: it opens for writing
 * but does not write, uses arguments the kernel rejects after its
 * permission check, and undoes what it did. Only libc: built -static. */
#ifndef KJAIL_ESCAPE_H
#define KJAIL_ESCAPE_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((format(printf, 2, 3), noreturn)) static inline void verdict(int code, const char *fmt,
									 ...)
{
	static const char *const label[] = {"contained", "ESCAPED", "broken"};
	va_list ap;

	printf("%s: ", label[code]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(code);
}

#define CONTAINED(...) verdict(0, __VA_ARGS__)
#define ESCAPED(...) verdict(1, __VA_ARGS__)
#define BROKEN(...) verdict(2, __VA_ARGS__)

/* One line of evidence before the verdict. */
#define NOTE(...)                                                                                  \
	do {                                                                                       \
		printf("  ");                                                                      \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
	} while (0)

/* The errno's symbolic name, for readable evidence ("EPERM"). */
static inline const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "success";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case EXDEV: return "EXDEV";
	case ENODEV: return "ENODEV";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EINVAL: return "EINVAL";
	case ETXTBSY: return "ETXTBSY";
	case ENOSPC: return "ENOSPC";
	case EROFS: return "EROFS";
	case ENOTTY: return "ENOTTY";
	case ENOTSOCK: return "ENOTSOCK";
	case ENOSYS: return "ENOSYS";
	case ELOOP: return "ELOOP";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ENETUNREACH: return "ENETUNREACH";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EDQUOT: return "EDQUOT";
	default: snprintf(buf, sizeof(buf), "errno %d", e); return buf;
	}
}

/* r from a raw syscall(2): -1 with errno, or a result. */
#define SYSERR(r) ((r) == -1 ? errno : 0)

#endif
