/* Landlock: the file system rules enforced by the kernel itself, so that
 * a mistake in the mount tree alone does not give write access.
 *
 * Inside the sandbox, COMMAND may write only beneath the workspace, /tmp,
 * the --rw grants, /dev/shm and /dev/pts, and to the /dev nodes kjail
 * created (null, zero, full, random, urandom, tty); everything else is
 * read and execute only, whatever the mount tree says. With ABI 6 or
 * later, COMMAND can neither connect to abstract unix sockets nor signal
 * processes created outside its Landlock domain. The ruleset is built on
 * the sandbox's own paths (opened after pivot_root) and enforced in
 * COMMAND's process just before the seccomp filter, after every other
 * privilege is gone.
 */
#ifndef KJAIL_LANDLOCK_H
#define KJAIL_LANDLOCK_H

#include <stddef.h>

#include "runtime/config.h"
#include "runtime/error.h"

/* The kernel's Landlock ABI version (1 to 7 today), or -ENOSYS (not
 * built in), -EOPNOTSUPP (built in, not enabled at boot: lsm=), another
 * -errno (e.g. an outer seccomp filter). For kjail doctor and --stats. */
int landlock_abi(void);

/* Parent, before the clone: the ABI the sandbox will use, or 0 for none
 * (--landlock off, or best-effort on a kernel without Landlock). With
 * --landlock required and no Landlock: an error, exit 125. */
int landlock_plan(const struct kj_config *cfg, int *abi, struct kj_err *err);

/* COMMAND's process, after pivot_root, setsid and stdio, before seccomp:
 * build the ruleset for this ABI (0: do nothing) and restrict ourselves.
 * tcp_port < 0: TCP is not restricted by Landlock (the network namespace
 * is the boundary); 0..65535: with ABI 4+, no TCP bind at all and TCP
 * connect only to that port (the proxy mode's in-sandbox relay); below
 * ABI 4 the namespace alone holds TCP in. */
int landlock_enforce(const struct kj_config *cfg, int abi, int tcp_port, struct kj_err *err);

/* What a run with this plan enforces, for --stats and doctor:
 * "ABI 7: files, abstract unix sockets, signals", "off (--landlock off)",
 * "not available (...)". */
void landlock_describe(const struct kj_config *cfg, int abi, char *buf, size_t size);

#endif
