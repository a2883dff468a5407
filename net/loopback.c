/* --net none: the sandbox's own network namespace holds only lo, up. There
 * is no route out, so nothing inside can reach the host or the internet;
 * the host's loopback listeners and abstract unix sockets live in the
 * host's namespace and are out of reach too. */
#include "net/loopback.h"

#include <net/if.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

static int nl_fail(struct kj_err *err, const char *what, int nlerr)
{
	return kj_fail(err, "net", 0, "check that the kernel has network namespaces",
		       "%s: %s", what, nl_geterror(nlerr));
}

int net_loopback_up(struct kj_err *err)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct rtnl_link *lo = NULL, *change = NULL;
	int rc;

	if (!sk)
		return kj_fail(err, "net", 12, NULL, "allocate a netlink socket");
	rc = nl_connect(sk, NETLINK_ROUTE);
	if (rc < 0) {
		rc = nl_fail(err, "connect to rtnetlink", rc);
		goto out;
	}
	/* In a new network namespace lo is always ifindex 1 (the kernel's
	 * LOOPBACK_IFINDEX), so no dump of the link is needed: one
	 * RTM_NEWLINK request, one ack. */
	lo = rtnl_link_alloc();
	change = rtnl_link_alloc();
	if (!lo || !change) {
		rc = kj_fail(err, "net", 12, NULL, "bring up lo");
		goto out;
	}
	rtnl_link_set_ifindex(lo, 1);
	rtnl_link_set_name(lo, "lo");
	rtnl_link_set_flags(change, IFF_UP);
	rc = rtnl_link_change(sk, lo, change, 0);
	if (rc < 0)
		rc = nl_fail(err, "bring up lo", rc);
out:
	if (change)
		rtnl_link_put(change);
	if (lo)
		rtnl_link_put(lo);
	nl_socket_free(sk);
	return rc < 0 ? rc : 0;
}
