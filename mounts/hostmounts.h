/* The host's mount table, read once by the setup child before anything is
 * mounted (its mount namespace is still a copy of the host's), for the
 * steps that must find what the host mounted where: pseudo file systems
 * outside /proc and /sys (pseudofs.c), other mounts of a home directory
 * (masks.c). */
#ifndef KJAIL_HOSTMOUNTS_H
#define KJAIL_HOSTMOUNTS_H

#include <stddef.h>
#include <sys/types.h>

#include "runtime/error.h"

struct hostmount {
	unsigned long long id; /* the mount's id (statx's stx_mnt_id) */
	dev_t dev;             /* MAJ:MIN: the file system */
	char *root;            /* the directory of that file system mounted here */
	char *mp;              /* where, as a host path */
	char *type;            /* "ext4", "proc"... */
};

struct hostmounts {
	struct hostmount *v; /* in /proc/self/mountinfo's order: later on top */
	size_t n, cap;
};

/* /proc/self/mountinfo, parsed (escapes undone). */
int hostmounts_read(struct hostmounts *hm, struct kj_err *err);
void hostmounts_free(struct hostmounts *hm);

/* The other host paths where the directory at path (canonical) shows:
 * the mount that holds path gives its file system and its place there;
 * every other mount of that file system whose root holds that place shows
 * it too (a bind of /home for a chroot, a second mount of a btrfs
 * subvolume). Only paths that are the same directory now (device and
 * inode) are given. fn is called with each; it returns 0 to go on. */
int hostmounts_aliases(const struct hostmounts *hm, const char *path,
		       int (*fn)(const char *alias, void *arg), void *arg);

#endif
