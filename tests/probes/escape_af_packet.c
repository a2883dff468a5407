/* escape_af_packet: a raw packet socket sees and forges link-layer
 * frames (and has been a kernel bug source: CVE-2020-14386,
 * CVE-2017-7308). Needs CAP_NET_RAW, which the sandbox does not have. */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <sys/socket.h>

#include "escape.h"

int main(void)
{
	int s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL)), e1;

	if (s >= 0) {
		close(s);
		ESCAPED("socket(AF_PACKET, SOCK_RAW) succeeded");
	}
	e1 = errno;
	s = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (s >= 0) {
		close(s);
		ESCAPED("socket(AF_INET, SOCK_RAW) succeeded");
	}
	CONTAINED("AF_PACKET raw socket: %s; AF_INET raw socket: %s", errname(e1), errname(errno));
}
