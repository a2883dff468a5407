/* Close fds whose last close is slow, off the caller's path. */
#ifndef KJAIL_CLOSE_DETACHED_H
#define KJAIL_CLOSE_DETACHED_H

#include <stddef.h>

#define CLOSE_DETACHED_MAX 4

/* Close the n fds (-1 entries skipped; at most CLOSE_DETACHED_MAX, each
 * above 2); their last closes happen in a short-lived child that holds
 * nothing else and that nobody waits for. The first call with an fd of a
 * process only (later ones, any other fds, and any failure to start the
 * child, close them here). */
void close_detached(const int *fds, size_t n);

#endif
