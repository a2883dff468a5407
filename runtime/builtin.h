/* Files from profiles/ compiled into the binary (see profiles/embed.sh). */
#ifndef KJAIL_BUILTIN_H
#define KJAIL_BUILTIN_H

#include <stddef.h>

/* The text of profiles/NAME, or NULL when there is no such built-in. */
const char *kjail_builtin_find(const char *name);
/* The name of the i-th built-in file, or NULL past the last. */
const char *kjail_builtin_name(size_t i);

#endif
