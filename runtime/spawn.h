/* Start a process that shares our memory until it executes, as
 * posix_spawn does. */
#ifndef KJAIL_SPAWN_H
#define KJAIL_SPAWN_H

#include <sys/types.h>

/* AddressSanitizer cannot follow a task that shares its memory on
 * another stack (its report lock deadlocks): its builds fork instead. */
#if defined(__SANITIZE_ADDRESS__)
#define KJ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KJ_ASAN 1
#endif
#endif
#ifndef KJ_ASAN
#define KJ_ASAN 0
#endif

/* Run fn(arg) in a new process (SIGCHLD on exit) on a stack of its own,
 * sharing the caller's memory; the caller is suspended until the child
 * executes or exits. fn may use only system calls and its stack (no
 * malloc, no stdio): the caller's heap and globals are the child's too.
 * One caller thread at a time. Returns the pid, or -1 with errno. */
pid_t spawn_shared(int (*fn)(void *), void *arg);

#endif
