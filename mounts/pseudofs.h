/* procfs, sysfs and other kernel pseudo file systems the host mounted
 * outside /proc and /sys: listed by the setup child from the host's mount
 * table and hidden in the new root (pseudofs.c says why). */
#ifndef KJAIL_PSEUDOFS_H
#define KJAIL_PSEUDOFS_H

#include <stddef.h>

#include "runtime/config.h"
#include "runtime/error.h"

struct host_pseudofs {
	char **paths; /* where the sandbox shows each mount */
	size_t n;
};

/* From the host's mount table (mounts/hostmounts.h). */
struct hostmounts;
int pseudofs_find(const struct kj_config *cfg, const struct hostmounts *hm,
		  struct host_pseudofs *pf, struct kj_err *err);

/* An empty read-only directory over each, after the binds. */
int pseudofs_mask(int rootfd, const struct host_pseudofs *pf, struct kj_err *err);

void pseudofs_free(struct host_pseudofs *pf);

#endif
