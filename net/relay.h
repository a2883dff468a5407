/* --net proxy, inside the sandbox: the relay on 127.0.0.1:KJ_PROXY_PORT.
 *
 * It accepts TCP connections on the sandbox's own loopback and hands each
 * one, as a file descriptor over its end of the socketpair, to kjail's
 * proxy outside (net/proxy.h). It reads and writes no payload and holds
 * nothing of value: no host fd but that socketpair end, no privilege,
 * the same seccomp filter as COMMAND. */
#ifndef KJAIL_RELAY_H
#define KJAIL_RELAY_H

#include <stdint.h>

#include "runtime/error.h"
#include "runtime/seccomp.h"

/* Listen on 127.0.0.1:port (lo must be up): the fd, or -errno. */
int relay_listen(uint16_t port, struct kj_err *err);

/* In the relay's own process (forked by the sandbox's init before
 * COMMAND): shed every other fd, load the filter, serve until the
 * sandbox ends. Never returns. */
__attribute__((noreturn)) void relay_run(int listen_fd, int proxy_fd,
					 const struct kj_seccomp_prog *seccomp);

#endif
