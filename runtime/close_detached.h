/* Close an fd whose last close is slow, off the caller's path. */
#ifndef KJAIL_CLOSE_DETACHED_H
#define KJAIL_CLOSE_DETACHED_H

/* Close fd; its last close happens in a short-lived child that holds
 * nothing else and that nobody waits for. The first call of a process
 * only (later ones, and any failure to start the child, close fd here). */
void close_detached(int fd);

#endif
