/* The sandbox's network namespace, made beside the mount recipe. */
#ifndef KJAIL_NETNS_H
#define KJAIL_NETNS_H

#include <pthread.h>
#include <stdbool.h>

#include "mounts/sockets.h"
#include "runtime/config.h"
#include "runtime/error.h"

struct netns_job {
	const struct kj_config *cfg;
	struct host_sockets *sockets; /* the host's, listed by the child while the job runs */
	pthread_t thread;
	bool started;
	int go; /* eventfd: becomes readable when kjail has written the id maps */
	int fd; /* the new namespace, once made */
	int rc;
	struct kj_err err;
};

/* In the setup child: once go is readable, make a network namespace with
 * lo up, on a thread of its own while the caller builds the root. Only
 * the thread changes namespace. (sockets: the host's unix sockets, listed
 * by the caller, for rootfs_build.) */
int netns_start(struct netns_job *job, const struct kj_config *cfg, struct host_sockets *sockets,
		int go, struct kj_err *err);

/* Wait for the job and move the calling thread into its namespace (when
 * one was made); the job's failure, if any, becomes the caller's. */
int netns_enter(struct netns_job *job, struct kj_err *err);

#endif
