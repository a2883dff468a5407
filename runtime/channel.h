/* The setup child's channel to the parent: an error record, the
 * terminal's master fd, or the mount table and the rename watch to watch
 * (runtime/mount_watch.h).
 * End of file means COMMAND was executed. */
#ifndef KJAIL_CHANNEL_H
#define KJAIL_CHANNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/error.h"

enum channel_msg { CHANNEL_ERROR = 1, CHANNEL_PTY = 2, CHANNEL_MOUNTS = 3, CHANNEL_RENAMES = 4 };

/* What CHANNEL_MOUNTS says beside its fd: the ids of the mounts the setup
 * child made itself; all (n 0) when there were more than fit. Then the
 * masked paths that were missing (runtime/mount_watch.c: the appear
 * watch): appear_len bytes of records, each an int32_t watch descriptor
 * of the rename watch's, the name that must not appear in that
 * directory and the path it stands for, both NUL-terminated;
 * appear_all when there were more than fit (any name counts). On the
 * wire the records follow the n ids. */
#define CHANNEL_MOUNT_IDS 4096
#define CHANNEL_APPEAR_BYTES 16384
struct channel_mounts {
	uint32_t n;
	bool all, appear_all;
	uint32_t appear_len;
	uint32_t id[CHANNEL_MOUNT_IDS];
	char appear[CHANNEL_APPEAR_BYTES];
};

int channel_send_err(int sock, const struct kj_err *err);
int channel_send_pty(int sock, int fd);
int channel_send_renames(int sock, int fd);
int channel_send_mounts(int sock, int fd, const struct channel_mounts *m);

/* Receive one message: returns its type, 0 at end of file, -errno on error.
 * An error record goes to *err; a passed fd to *fd (-1 for an error); the
 * ids of CHANNEL_MOUNTS to *m (dropped when m is NULL). */
int channel_recv(int sock, struct kj_err *err, int *fd, struct channel_mounts *m);

/* The one SCM_RIGHTS sender and reader, also for mounts/git_guard.c: len
 * bytes and fd, 0 or -errno; one message into buf, its length (0: end of
 * file) or -errno, and *fd the fd it passed (close-on-exec) or -1. */
int channel_msg_send(int sock, const void *buf, size_t len, int fd);
ssize_t channel_msg_recv(int sock, void *buf, size_t len, int *fd);

#endif
