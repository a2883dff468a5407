/* The sandbox's mounts, watched from outside while it runs: a mask or a
 * read-only bind the host takes away ends the sandbox. */
#ifndef KJAIL_MOUNT_WATCH_H
#define KJAIL_MOUNT_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/channel.h"
#include "runtime/error.h"

struct mount_watch {
	int fd;         /* the sandbox's mountinfo, from the setup child; -1: none */
	int renames;    /* its inotify watch on the paths under kjail's mounts; -1: none */
	int64_t due_ms; /* when the mounts it started with are read (CLOCK_MONOTONIC ms) */
	uint32_t *ids;  /* the ids of the mounts kjail made, sorted */
	size_t nids;
	bool all;   /* more than the child could list: every mount is watched */
	char *base; /* those mounts, one key each, NUL-separated; NULL: not read */
	size_t base_len;
	char *appear; /* the appear records (struct channel_mounts) */
	size_t appear_len;
	bool appear_all;
	char appeared[256]; /* what appeared, when that ended the sandbox */
};

/* A watch of nothing (no mounts: --isolation none); every struct
 * mount_watch starts so, as its fds are not 0 (stdin). */
#define MOUNT_WATCH_NONE ((struct mount_watch){.fd = -1, .renames = -1})

/* Setup child: note the mount mntfd names, just attached, as one of
 * kjail's own (mounts/mountapi.c's tree_attach, and the two other
 * attaches). */
void mount_watch_note(int mntfd);
/* Setup child: the file system mntfd names is one kjail made (fs_new),
 * whose entries no host process can reach: a mount on one is not watched
 * for a rename. */
void mount_watch_fresh(int mntfd);
/* Setup child, before a mount is attached on targetfd: watch the host's
 * entry there for a rename (inotify IN_MOVE_SELF). A failure is kept for
 * mount_watch_send. */
void mount_watch_target(int targetfd);
/* Setup child, for a mask: watch each directory above what fd names (a
 * directory when is_dir), on the same mount, too (~ above ~/.ssh). */
void mount_watch_parents(int fd, bool is_dir);
/* Setup child, for a masked path that is missing: watch dirfd, the
 * directory that would hold it, for names made, linked or renamed into
 * it (by the host), and for the directory itself renamed or removed.
 * dirfd may be a host mount's root (a home on its own file system): it
 * is watched all the same. The watch descriptor, or -1: not watched (a
 * file system kjail made, an unreadable directory, or a failure, kept
 * for mount_watch_send). */
int mount_watch_dir(int dirfd);
/* Setup child: name appearing in the directory watched as wd stands for
 * path (for the error line): it ends the sandbox. */
void mount_watch_expect(int wd, const char *name, const char *path);
/* Setup child, once its last mount is made: pass the rename watch
 * (CHANNEL_RENAMES), then open its own mount table and pass it
 * (CHANNEL_MOUNTS) with the mounts noted. */
int mount_watch_send(int chan, struct kj_err *err);
/* Parent: watch the table the child sent (fd) for the mounts it listed,
 * and the rename watch it sent before (renames, -1: none); both taken
 * over. 0, or -ENOMEM (both closed). */
int mount_watch_arm(struct mount_watch *w, int fd, int renames, const struct channel_mounts *m);
/* The poll timeout the watch needs: ms until the mounts it started with
 * are read, or -1. */
int mount_watch_wait_ms(const struct mount_watch *w);
/* After a poll: revents of w->fd (POLLPRI asked) and of w->renames
 * (POLLIN asked; 0 on a timeout). True when a mount the sandbox started
 * with is gone or renamed, or may be: kill the sandbox. */
bool mount_watch_lost(struct mount_watch *w, short revents, short renamed);
void mount_watch_close(struct mount_watch *w);
/* Why the sandbox was killed, as the run's error. */
void mount_watch_report(const struct mount_watch *w, struct kj_err *err);

#endif
