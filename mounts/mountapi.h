/* Thin, race-free helpers over the new mount API (open_tree, move_mount,
 * mount_setattr, fsopen/fsmount) and openat2. kjail needs Linux 5.12+. */
#ifndef KJAIL_MOUNTAPI_H
#define KJAIL_MOUNTAPI_H

#include <linux/openat2.h>
#include <stdint.h>
#include <sys/stat.h>

#include "runtime/error.h"

/* openat2(dirfd, path, O_PATH|O_CLOEXEC|flags, resolve): no glibc wrapper. */
int path_open(int dirfd, const char *path, int flags, uint64_t resolve);

/* Open path inside the tree rooted at rootfd; symlinks are resolved as if
 * rootfd were "/" (RESOLVE_IN_ROOT), magic links never followed.
 * Stops a symlink planted in the tree from redirecting a mount onto the
 * host (the class of bubblewrap CVE-2026-87766 and runc CVE-2025-31133). */
/* For paths kjail itself names beneath a directory it mounted. */
#define RESOLVE_BENEATH_FLAGS \
	(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)

int path_open_in_root(int rootfd, const char *path, int flags);

/* Open path (canonical: no symbolic link on its way) again, through no
 * symbolic link, and check it is still the file validated as (dev, ino):
 * a path swapped for a link or for another file between the check and
 * the mount is refused ("part: ..."), not mounted. Returns an O_PATH fd. */
int path_open_validated(const char *path, dev_t dev, ino_t ino, const char *part,
			struct kj_err *err);

/* A new mount of fstype ("tmpfs", "proc", "devpts"...) with string options
 * "key=value,key" and MOUNT_ATTR_* flags, detached: returns its fd. */
int fs_new(const char *fstype, const char *options, unsigned attrs, struct kj_err *err);

/* Clone the tree at fd (recursively when recursive) and set/clear attrs. */
int tree_clone(int fd, const char *what, int recursive, unsigned set, unsigned clear,
	       struct kj_err *err);

/* Attach the detached mount mntfd on top of the object targetfd names, and
 * note it as one of kjail's, which the sandbox is killed for losing
 * (runtime/mount_watch.c), as it is for the host renaming the entry it
 * covers; unwatched, neither. */
int tree_attach(int mntfd, int targetfd, const char *what, struct kj_err *err);
int tree_attach_unwatched(int mntfd, int targetfd, const char *what, struct kj_err *err);

/* Set or clear attributes on the mount at fd (recursive or not). */
int tree_setattr(int fd, int recursive, unsigned set, unsigned clear, const char *what,
		 struct kj_err *err);

#endif
