#include "runtime/caps.h"

#include <errno.h>
#include <grp.h>
#include <linux/securebits.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

int caps_drop_all(const struct kj_config *cfg, struct kj_err *err)
{
	cap_t none;
	int rc;

	/* The bounding set caps what any later execve (a setuid or file-caps
	 * binary included) can ever gain back. */
	for (cap_value_t c = 0; c <= CAP_LAST_CAP || cap_valid(c); c++)
		if (cap_drop_bound(c) < 0 && errno != EINVAL)
			return kj_fail(err, "caps", errno, NULL,
				       "drop capability %d from the bounding set", c);
	/* One prctl: libcap's cap_reset_ambient() first asks about every
	 * capability in turn (42 calls here, on every run's critical path)
	 * and clears only if one is set; clearing an empty set is harmless,
	 * and the kernels kjail runs on (5.2 and later, for open_tree) all
	 * have ambient capabilities (4.3). */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return kj_fail(err, "caps", errno, NULL, "clear the ambient set");
	/* Locked securebits: uid 0 inside gets no capabilities at execve
	 * (NOROOT), a uid change cannot restore them, and neither can ambient
	 * raises. Keeping caps over setresuid (NO_SETUID_FIXUP) is only so we
	 * can drop them ourselves below. */
	if (cap_set_secbits(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
			    SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
			    SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED) < 0)
		return kj_fail(err, "caps", errno, NULL, "lock the securebits");
	if (cfg->user_set) {
		if (setgroups(0, NULL) < 0 || setresgid(cfg->gid, cfg->gid, cfg->gid) < 0 ||
		    setresuid(cfg->uid, cfg->uid, cfg->uid) < 0)
			return kj_fail(err, "user", errno, NULL, "switch to uid %u gid %u",
				       (unsigned)cfg->uid, (unsigned)cfg->gid);
	}
	none = cap_init();
	if (!none)
		return kj_fail(err, "caps", errno, NULL, "allocate a capability set");
	rc = cap_set_proc(none);
	cap_free(none);
	if (rc < 0)
		return kj_fail(err, "caps", errno, NULL, "clear the capability sets");
	/* no_new_privs: setuid binaries and file capabilities grant nothing,
	 * and it lets an unprivileged process install the seccomp filter. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return kj_fail(err, "caps", errno, NULL, "set no_new_privs");
	return 0;
}
