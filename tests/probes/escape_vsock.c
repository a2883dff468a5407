/* escape_vsock: AF_VSOCK is not network-namespaced: a vsock socket made
 * inside --net none talks to the hypervisor (CID 2) and to other VMs'
 * services exactly as the host would, past the sandbox's own network
 * namespace. Only creates the socket: it never connects (the peers are
 * the hypervisor's, not the test's to touch). Contained if the socket
 * cannot be made. */
#include <sys/socket.h>

#include "escape.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

int main(void)
{
	int s = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0), e1;

	if (s >= 0) {
		close(s);
		ESCAPED("socket(AF_VSOCK) succeeded: the hypervisor's vsock services are reachable "
			"past --net none");
	}
	e1 = errno;
	s = socket(AF_VSOCK, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s >= 0) {
		close(s);
		ESCAPED("socket(AF_VSOCK, SOCK_DGRAM) succeeded");
	}
	CONTAINED("socket(AF_VSOCK): %s", errname(e1));
}
