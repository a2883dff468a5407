/* The sandbox's mounts, watched from outside while it runs: a mask or a
 * read-only bind the host takes away ends the sandbox. */
#ifndef KJAIL_MOUNT_WATCH_H
#define KJAIL_MOUNT_WATCH_H

#include <sys/types.h>

#include "runtime/error.h"

/* Setup child, once its last mount is made: open its own mount table and
 * pass it over the setup channel (CHANNEL_MOUNTS); the parent polls it
 * for POLLPRI, which comes when a mount of that namespace goes. */
int mount_watch_send(int chan, struct kj_err *err);
/* Why the sandbox was killed, as the run's error. */
void mount_watch_report(struct kj_err *err);

#endif
