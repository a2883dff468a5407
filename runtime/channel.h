/* The setup child's channel to the parent: an error record, or the
 * terminal's master fd. End of file means COMMAND was executed. */
#ifndef KJAIL_CHANNEL_H
#define KJAIL_CHANNEL_H

#include "runtime/error.h"

enum channel_msg { CHANNEL_ERROR = 1, CHANNEL_PTY = 2 };

int channel_send_err(int sock, const struct kj_err *err);
int channel_send_fd(int sock, int fd);

/* Receive one message: returns its type, 0 at end of file, -errno on error.
 * An error record goes to *err; a passed fd to *fd. */
int channel_recv(int sock, struct kj_err *err, int *fd);

#endif
