/* The setup child's channel to the parent: an error record, the
 * terminal's master fd, or the mount table to watch (runtime/mount_watch.h).
 * End of file means COMMAND was executed. */
#ifndef KJAIL_CHANNEL_H
#define KJAIL_CHANNEL_H

#include "runtime/error.h"

enum channel_msg { CHANNEL_ERROR = 1, CHANNEL_PTY = 2, CHANNEL_MOUNTS = 3 };

int channel_send_err(int sock, const struct kj_err *err);
/* type: CHANNEL_PTY or CHANNEL_MOUNTS, the messages that carry an fd. */
int channel_send_fd(int sock, enum channel_msg type, int fd);

/* Receive one message: returns its type, 0 at end of file, -errno on error.
 * An error record goes to *err; a passed fd to *fd (-1 for an error). */
int channel_recv(int sock, struct kj_err *err, int *fd);

/* The one SCM_RIGHTS sender and reader, also for mounts/git_guard.c: len
 * bytes and fd, 0 or -errno; one message into buf, its length (0: end of
 * file) or -errno, and *fd the fd it passed (close-on-exec) or -1. */
int channel_msg_send(int sock, const void *buf, size_t len, int fd);
ssize_t channel_msg_recv(int sock, void *buf, size_t len, int *fd);

#endif
