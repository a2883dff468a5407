/* Credential stores hidden from every sandbox. */
#ifndef KJAIL_MASKS_H
#define KJAIL_MASKS_H

#include <stddef.h>

/* Paths relative to a home directory, NULL-terminated. */
extern const char *const credential_paths[];

#endif
