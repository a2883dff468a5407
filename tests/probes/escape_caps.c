/* escape_caps: win privileges back: raise capabilities with capset,
 * clear no_new_privs, raise an ambient capability, drop the seccomp
 * filter by installing a permissive one (filters only stack). */
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {{.effective = ~0U, .permitted = ~0U},
						 {.effective = ~0U, .permitted = ~0U}};
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {.len = 1, .filter = &allow};
	int e1, e2;

	if (syscall(SYS_capset, &hdr, data) == 0)
		ESCAPED("capset raised every capability");
	e1 = errno;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYS_ADMIN, 0, 0) == 0)
		ESCAPED("raised CAP_SYS_ADMIN as an ambient capability");
	e2 = errno;
	prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		ESCAPED("no_new_privs was cleared");
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 &&
	    prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
		ESCAPED("the seccomp filter is gone");
	CONTAINED("capset: %s; ambient raise: %s; no_new_privs stays 1; seccomp stays on",
		  errname(e1), errname(e2));
}
