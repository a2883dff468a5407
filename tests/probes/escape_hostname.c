/* escape_hostname: change the host name and the NIS domain name. The
 * sandbox has its own UTS namespace; even there the filter refuses, and
 * the runner checks the host's name did not change. */
#include "escape.h"

int main(void)
{
	int e1;

	if (sethostname("kjail-escaped", 13) == 0)
		ESCAPED("sethostname succeeded");
	e1 = errno;
	if (setdomainname("kjail-escaped", 13) == 0)
		ESCAPED("setdomainname succeeded");
	CONTAINED("sethostname: %s; setdomainname: %s", errname(e1), errname(errno));
}
