/* escape_netlink: netlink families other than route that reach host-wide
 * state: NETLINK_AUDIT (write records into the host's audit log), and
 * NETLINK_KOBJECT_UEVENT (the host's device events, the channel udev
 * trusts). Contained if audit refuses and no host uevent arrives. */
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>

#include "escape.h"

int main(void)
{
	struct sockaddr_nl nl = {.nl_family = AF_NETLINK};
	struct {
		struct nlmsghdr h;
		char text[32];
	} msg = {.h = {.nlmsg_len = sizeof(msg),
		       .nlmsg_type = AUDIT_USER,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK}};
	char buf[4096];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	int s, e1;

	strcpy(msg.text, "kjail escape probe");
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	e1 = errno;
	if (s >= 0) {
		struct pollfd p = {.fd = s, .events = POLLIN};
		if (send(s, &msg, sizeof(msg), 0) < 0)
			e1 = errno;
		else if (poll(&p, 1, 1000) == 1 && recv(s, buf, sizeof(buf), 0) > 0 &&
			 h->nlmsg_type == NLMSG_ERROR)
			e1 = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
		else
			e1 = ETIMEDOUT;
		close(s);
		if (e1 == 0)
			ESCAPED("NETLINK_AUDIT accepted a user message into the host's audit log");
	}
	NOTE("NETLINK_AUDIT: %s", errname(e1));
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (s >= 0) {
		struct pollfd p = {.fd = s, .events = POLLIN};
		nl.nl_groups = 1;
		if (bind(s, (struct sockaddr *)&nl, sizeof(nl)) == 0) {
			/* A uevent the runner triggers on the host arrives
			 * within the second, if this socket can see them. */
			if (poll(&p, 1, 1500) == 1)
				ESCAPED("received a host uevent on NETLINK_KOBJECT_UEVENT");
			NOTE("NETLINK_KOBJECT_UEVENT: bound, but no host event arrives");
		} else {
			NOTE("NETLINK_KOBJECT_UEVENT bind: %s", errname(errno));
		}
		close(s);
	} else {
		NOTE("NETLINK_KOBJECT_UEVENT: %s", errname(errno));
	}
	CONTAINED("audit refused (%s); no host uevents", errname(e1));
}
