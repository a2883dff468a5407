/* The sandbox's network namespace, made on a second thread.
 *
 * Creating a network namespace is the most expensive step of a sandbox:
 * the kernel runs every network subsystem's per-namespace setup (about
 * 0.45 ms on the 2-vCPU machine of README's figures, most of the clone).
 * It does not depend on the mount recipe, so the setup child makes it on
 * a thread of its own with unshare(CLONE_NEWNET), brings lo up there, and
 * moves into it with setns() once the root is built: the two run on two
 * cores at once. The namespace belongs to the sandbox's user namespace,
 * exactly as if the clone had made it.
 *
 * The thread is the child's first step, so the namespace is being made
 * while the child lists the host's unix sockets (mounts/sockets.c) and
 * pseudo file systems (mounts/pseudofs.c) and waits for its id maps:
 * both read the host's tables through the main thread, which stays in
 * the host's network namespace (/proc/self/net is the thread group
 * leader's) until it joins the new one, and both come before
 * rootfs_build starts to cover the host's tree (the new root is attached
 * on /tmp). Started after those lists, the namespace kept the mount
 * recipe waiting ~0.05 ms longer (README, "Measured").
 *
 * Fail closed: the child joins the thread before anything needs the
 * namespace (the fresh /sys, the socket masks, the capability drop and
 * seccomp, which are per thread and must find no second thread), and a
 * failure on the thread is the child's failure, exit 125.
 */
#include "net/netns.h"

#include <errno.h>
#include <linux/sockios.h>
#include <malloc.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/loopback.h"

#define NETNS_STACK (256 * 1024)

/* The namespace as an fd: SIOCGSKNS on a socket made in it (no /proc
 * path, which the mount recipe is changing meanwhile). */
static int netns_fd(struct kj_err *err)
{
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), fd;

	if (s < 0)
		return kj_fail(err, "net", errno, NULL, "open a socket in the new namespace");
	fd = ioctl(s, SIOCGSKNS);
	if (fd < 0)
		fd = kj_fail(err, "net", errno, NULL, "get the new network namespace");
	close(s);
	return fd;
}

static void *netns_thread(void *arg)
{
	struct netns_job *job = arg;

	if (job->cfg->net == KJ_NET_HOST)
		return NULL;
	/* Wait for kjail's wake-up. Not for correctness (a network namespace
	 * needs no id map) but for a CPU: the wake-up places this thread on
	 * kjail's CPU, which kjail leaves right after, while the main thread
	 * wakes on its own. Started any other way, the thread queued behind
	 * the main thread or on an idle vCPU that took up to a millisecond
	 * to wake (KJAIL_TRACE on the 2-vCPU VM of README's figures). */
	{
		uint64_t v;
		ssize_t n;
		while ((n = read(job->go, &v, sizeof(v))) < 0 && errno == EINTR)
			;
		if (n != sizeof(v)) {
			job->rc = kj_fail(&job->err, "net", n < 0 ? errno : EPIPE, NULL,
					  "wait for kjail");
			return NULL;
		}
	}
	if (unshare(CLONE_NEWNET) < 0) {
		job->rc = kj_fail(&job->err, "net", errno,
				  "check that the kernel has network namespaces",
				  "create the network namespace");
		return NULL;
	}
	if ((job->rc = net_loopback_up(&job->err)))
		return NULL;
	job->fd = netns_fd(&job->err);
	if (job->fd < 0)
		job->rc = job->fd;
	return NULL;
}

int netns_start(struct netns_job *job, const struct kj_config *cfg, struct host_sockets *sockets,
		int go, struct kj_err *err)
{
	pthread_attr_t attr;
	int e;

	*job = (struct netns_job){.cfg = cfg, .sockets = sockets, .fd = -1, .go = go};
	/* The thread allocates a little (the socket list, libnl's messages):
	 * from the main arena, not from a new 64 MiB one made for it. */
	(void)mallopt(M_ARENA_MAX, 1);
	if ((e = pthread_attr_init(&attr)) == 0) {
		(void)pthread_attr_setstacksize(&attr, NETNS_STACK);
		e = pthread_create(&job->thread, &attr, netns_thread, job);
		pthread_attr_destroy(&attr);
	}
	if (e)
		return kj_fail(err, "net", e, NULL, "start the network setup thread");
	job->started = true;
	return 0;
}

int netns_enter(struct netns_job *job, struct kj_err *err)
{
	int rc = 0;

	if (!job->started)
		return 0;
	pthread_join(job->thread, NULL);
	job->started = false;
	if (job->rc) {
		*err = job->err;
		rc = job->rc;
	} else if (job->fd >= 0 && setns(job->fd, CLONE_NEWNET) < 0) {
		rc = kj_fail(err, "net", errno, NULL, "enter the new network namespace");
	}
	if (job->fd >= 0)
		close(job->fd);
	job->fd = -1;
	return rc;
}
