/* Turn the configuration's mount plan into the sandbox's root filesystem. */
#ifndef KJAIL_ROOTFS_H
#define KJAIL_ROOTFS_H

#include <stdbool.h>
#include <sys/types.h>

#include "mounts/sockets.h"
#include "net/netns.h"
#include "runtime/config.h"
#include "runtime/error.h"

/* Build the tree and pivot_root into it. Runs in the setup child, inside
 * the new user, mount and pid namespaces, before privileges are dropped.
 * cgroupfs: the sandbox has a cgroup of its own (the root of its cgroup
 * namespace), shown read-only at /sys/fs/cgroup. net: the job making the
 * network namespace and listing the host's sockets (net/netns.h), entered
 * half-way, before the fresh /sys. pseudo: the host's procfs and similar
 * mounts outside /proc and /sys (mounts/pseudofs.h), hidden. homes: other
 * mounts of the home directories (mounts/masks.h), masked like them. */
struct host_pseudofs;
struct home_aliases;
int rootfs_build(const struct kj_config *cfg, bool cgroupfs, struct netns_job *net,
		 const struct host_pseudofs *pseudo, const struct home_aliases *homes,
		 struct kj_err *err);

/* Pieces of the recipe, each in its own file. rootfd is the new root. */
int mountpoint_open(int rootfd, const char *dest, int is_dir, const char *what, struct kj_err *err);
int proc_mount(int rootfd, const struct kj_config *cfg, struct kj_err *err);
/* Hide firmware, power-meter and kernel-debug directories under /sys. */
int sys_masks_mount(int rootfd, struct kj_err *err);
int dev_mount(int rootfd, struct kj_err *err);
/* Binds are cloned from the host before the new root is attached (the
 * attach point could shadow a source), then attached into it. mfds holds
 * 1 + cfg->nbinds entries: the workspace first. */
int binds_prepare(const struct kj_config *cfg, int *mfds, struct kj_err *err);
int binds_mount(int rootfd, const struct kj_config *cfg, const int *mfds, struct kj_err *err);
void binds_release(const struct kj_config *cfg, int *mfds);
int git_protect(int rootfd, const char *workspace_dest, struct kj_err *err);
/* Hold every directory between dirfd and rel's last component in place
 * (bound onto itself: a mount point cannot be renamed). */
int pin_parents(int dirfd, const char *rel, const char *what, struct kj_err *err);
int masks_mount(int rootfd, const struct kj_config *cfg, const struct home_aliases *homes,
		struct kj_err *err);

/* A clone of the host's /dev/null, verified to be the char device 1:3
 * (runc CVE-2025-31133: a /dev/null swapped for a symlink or another file
 * turned "masking" into a bind of something else). */
int devnull_clone(struct kj_err *err);

/* Hide path (resolved inside the new root): an empty read-only directory
 * over a directory, /dev/null over anything else; nothing if it is not
 * there, or if only (an S_IF* type) is given and it is something else. */
int mask_path(int rootfd, const char *path, mode_t only, struct kj_err *err);

/* A mask is watched for the host replacing what it hides only if the
 * command could read that (mask_path): with --user, as that user. Called
 * once, before the first mask. */
void masks_check_as(const struct kj_config *cfg);

/* Mount a mask onto targetfd (an empty read-only directory if is_dir,
 * else /dev/null): the first of each kind is fresh, later ones clone it.
 * Watched (tree_attach) unless watch is false. mask_sources_release()
 * drops the two kept, when the tree is built. */
int mask_onto(int targetfd, int is_dir, bool watch, const char *what, struct kj_err *err);
void mask_sources_release(void);

#endif
