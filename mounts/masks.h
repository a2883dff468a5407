/* Credential stores hidden from every sandbox. */
#ifndef KJAIL_MASKS_H
#define KJAIL_MASKS_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/config.h"
#include "runtime/error.h"

/* Paths relative to a home directory, NULL-terminated. */
extern const char *const credential_paths[];

/* The other host paths where a home directory shows: another mount of
 * its file system (mounts/hostmounts.h). Its credential stores are masked
 * there too; a writable bind that shows one is refused. secrets: the
 * other host paths of the host's own secrets (/etc/shadow, the SSH host
 * keys...), masked there too. */
struct home_aliases {
	char **paths;
	size_t n;
	char **secrets;
	size_t nsecrets;
};

/* Is path (a sandbox path: a bind's DEST) at or below a mask every
 * sandbox gets, a host secret or a home's credential store? That mask
 * goes on after the binds and would hide the bind. Its path to out. */
bool mask_builtin_covers(const struct kj_config *cfg, const char *path, char *out, size_t size);

struct hostmounts;
int home_aliases_find(const struct kj_config *cfg, const struct hostmounts *hm,
		      struct home_aliases *ha, struct kj_err *err);
void home_aliases_free(struct home_aliases *ha);

#endif
