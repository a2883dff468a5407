/* Network setup inside the sandbox's own network namespace. */
#ifndef KJAIL_LOOPBACK_H
#define KJAIL_LOOPBACK_H

#include "runtime/error.h"

/* Bring lo up (the kernel then gives it 127.0.0.1/8 and ::1). */
int net_loopback_up(struct kj_err *err);

#endif
