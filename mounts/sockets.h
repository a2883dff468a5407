/* The host's pathname unix sockets, listed before the clone and masked in
 * the new root (sockets.c says why). */
#ifndef KJAIL_SOCKETS_H
#define KJAIL_SOCKETS_H

#include <stddef.h>

#include "runtime/config.h"
#include "runtime/error.h"

struct host_sockets {
	char **paths; /* as seen inside the sandbox, each once */
	size_t n;
	size_t *seen; /* open-addressing set over paths: index + 1, 0 free */
	size_t nseen; /* its slots, a power of two, or 0 */
};

/* Read /proc/net/unix (the caller's network namespace) and keep the
 * sockets the sandbox would otherwise reach. */
struct hostmounts;
/* hm: the host's mount table, for the other places a socket shows at. */
int host_sockets_find(const struct kj_config *cfg, const struct hostmounts *hm,
		      struct host_sockets *hs, struct kj_err *err);

/* In the setup child: /dev/null over each that exists in the new root. */
int host_sockets_mask(int rootfd, const struct host_sockets *hs, struct kj_err *err);

void host_sockets_free(struct host_sockets *hs);

/* Does path lie in a tree every sandbox gets fresh (/run, /var/run,
 * /tmp, /dev, /proc, /sys), so only a bind can show the host's? */
bool fresh_inside(const char *path);

#endif
