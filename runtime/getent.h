/* Ask the host's name services through getent(1). */
#ifndef KJAIL_GETENT_H
#define KJAIL_GETENT_H

#include <stddef.h>

/* Run `getent DB -- KEY`, its output in out (NUL-terminated). Returns
 * the length, -ENOENT when getent found nothing (or is not installed),
 * -E2BIG when the answer does not fit in cap bytes, another -errno when
 * it could not run. */
long getent_query(const char *db, const char *key, char *out, size_t cap);

#endif
