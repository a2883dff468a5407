/* Guardians outlive kill -9 of kjail and of its process group, to do what
 * kjail would have done at its end (kjail-tty in runtime/stdio.c,
 * kjail-git in mounts/git_guard.c): each acts when its socket from kjail
 * ends without kjail's word that kjail did it. */
#ifndef KJAIL_GUARDIAN_H
#define KJAIL_GUARDIAN_H

#include <stdbool.h>
#include <sys/types.h>

struct guardian {
	int sock;  /* kjail's end of the socket to it, or -1 */
	pid_t pid; /* kjail's child, reaped by guardian_end; or 0 */
};

/* Fork one, on a socketpair of type. In the guardian (0 is returned; it
 * serves, then _exits): every signal blocked, fds 0..nfds-1 (nfds <= 3)
 * are fds[i] (-1: /dev/null), fd nfds its socket, nothing else open;
 * named name, in /, in a session of its own, and "k" written; gd none.
 * grandchild: not kjail's child (kjail reaps the middle one here). In
 * kjail: 1, or -errno (no guardian). */
int guardian_start(struct guardian *gd, const char *name, int type, const int *fds, int nfds,
		   bool grandchild);

/* Its "k" (it left kjail's process group): 0, or -errno (-EPIPE: died). */
int guardian_ready(const struct guardian *gd);

/* Send bye (kjail did the work) and wait for its end: kjail's child is
 * reaped (one someone stopped is not waited for: reaped by kjail's own
 * parent); a grandchild's end of file is waited for at most a second for
 * each of a "k" never read and the end. */
void guardian_end(struct guardian *gd, char bye);

#endif
