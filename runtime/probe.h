/* Live probes for kjail doctor. Each one runs in a forked child doing what
 * a real run does (with the same code where there is code to share), so
 * the report says what kjail can do here, not what the sysctls suggest.
 * Whatever a probe creates (namespaces, mounts, a filter) dies with its
 * child; nothing is written to the host. Each returns 0 or -errno and
 * fills err with what failed. */
#ifndef KJAIL_PROBE_H
#define KJAIL_PROBE_H

#include <stdbool.h>

#include "runtime/error.h"

/* unshare(CLONE_NEWUSER), write our uid/gid map, then unshare(CLONE_NEWNS)
 * inside it: the last step is what AppArmor's userns restriction denies. */
int probe_userns(struct kj_err *err);

/* The fix for a failed write of a user namespace's uid_map, gid_map or
 * setgroups (rc: -errno), or NULL. */
const char *userns_map_fix(int rc);

/* In a user and mount namespace: fsopen/fsmount a tmpfs and clone the
 * root tree read-only with open_tree and mount_setattr, as rootfs.c does. */
int probe_mount_api(struct kj_err *err);

/* In a user and network namespace: bring lo up with net_loopback_up(). */
int probe_netns(struct kj_err *err);

/* Compile a policy (source names it in errors), load it after
 * no_new_privs and, for kjail's own policies (check_unshare), check that
 * it denies unshare(CLONE_NEWUSER). *insns: the filter's length. */
int probe_seccomp(const char *text, const char *source, bool check_unshare, unsigned *insns,
		  struct kj_err *err);

#endif
