/* --net proxy, host side: kjail's own egress proxy.
 *
 * The sandbox keeps its empty network namespace (only lo). kjail forks a
 * proxy process in the host's network context; the sandbox reaches it
 * only through one end of a socketpair, held by the relay inside
 * (net/relay.c), which passes each accepted TCP connection over it. The
 * proxy speaks HTTP CONNECT, plain HTTP and SOCKS5, decides each
 * connection against --allow-host/--deny-host (net/hostmatch.c), resolves
 * names itself, refuses non-public addresses unless allowed as such,
 * relays the bytes, and logs one line per connection to --net-log.
 */
#ifndef KJAIL_PROXY_H
#define KJAIL_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "runtime/config.h"
#include "runtime/error.h"

struct kj_proxy;
struct proxy_host_entry;

/* With --net proxy: load --net-hosts, open --net-log, fork the proxy.
 * *relay_fd is the sandbox's end of the socketpair (for the relay);
 * otherwise *proxy is NULL and *relay_fd -1. */
int proxy_start(const struct kj_config *cfg, struct kj_proxy **proxy, int *relay_fd,
		struct kj_err *err);

/* The proxy's pid (for the sandbox's cgroup), or 0 for NULL. */
pid_t proxy_pid(const struct kj_proxy *proxy);

/* COMMAND started (or the session is ready): a --net-log file this run
 * made, unnamed until now, gets its name. NULL is fine. */
void proxy_commit_log(struct kj_proxy *proxy);

/* With report (the sandbox ran and ended): wait for the proxy to finish
 * its connections (it sees the relay's end close), kill it if it does
 * not, and print the refusals on stderr. Without (setup failed, nothing
 * ran): kill it at once. NULL is fine. */
void proxy_stop(struct kj_proxy *proxy, bool report);

/* The validation of the --net proxy options that needs the file system
 * (called from config_finish; nothing is created). */
int proxy_config_check(struct kj_config *cfg, struct kj_err *err);

/* --net-hosts: parse the file (the proxy_hosts.c part of proxy_start). */
int proxy_hosts_load(const char *path, struct proxy_host_entry **out, size_t *count,
		     struct kj_err *err);

#endif
