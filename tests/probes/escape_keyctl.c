/* escape_keyctl: the kernel keyrings are not namespaced: reach the
 * user's keyring (tokens of other sessions of the same uid) or add a
 * key (CVE-2016-0728 was a keyring refcount overflow). */
#include <linux/keyctl.h>
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	long id = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0);
	int e1 = errno;
	long key;

	if (id >= 0)
		ESCAPED("keyctl reached the user keyring (id %ld)", id);
	key = syscall(SYS_add_key, "user", "kjail-escape", "x", 1, KEY_SPEC_PROCESS_KEYRING);
	if (key >= 0) {
		syscall(SYS_keyctl, KEYCTL_REVOKE, key);
		ESCAPED("add_key added a key (revoked again)");
	}
	CONTAINED("keyctl(GET_KEYRING_ID @u): %s; add_key: %s", errname(e1), errname(errno));
}
