/* Why the sandbox's mounts are watched while it runs.
 *
 * Every mask (a credential file under /dev/null, ~/.ssh under an empty
 * directory), every read-only bind inside the workspace (.git/config,
 * .git/hooks) and the workspace itself is a mount on one of the host's
 * own directory entries. When the host removes or replaces that entry
 * (unlink, rmdir, a rename over it) the kernel detaches every mount on it,
 * in every mount namespace (Linux 3.18 and later), and the sandbox then
 * sees what is there now. Host programs save files exactly that way:
 * git's credential store and `docker login` write a new file and rename
 * it over ~/.git-credentials or ~/.docker/config.json, `git config` on
 * the host renames .git/config.lock over .git/config. A command in a
 * sandbox (or a session) still running would then read the new secret,
 * or write a .git/config (core.fsmonitor) that the host's next git runs.
 *
 * No mount can be kept from going. What kjail can do is notice at once:
 * /proc/PID/mountinfo polls POLLPRI when a mount of that namespace is
 * added or removed, and nothing inside can make one (no capability
 * anywhere; seccomp denies the mount calls), so any change once setup
 * is done is the host taking a mount away. The sandbox is then killed,
 * and kjail exits 125 saying why. Fail closed, with what is left: a
 * command that reads in the microseconds between the detach and the kill
 * sees the new file. The README says so. */
#include "runtime/mount_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "runtime/channel.h"

int mount_watch_send(int chan, struct kj_err *err)
{
	/* Opened by the setup child itself, right after its last mount: the
	 * open takes the namespace's mount event count as it stands, so any
	 * change after it, even before kjail polls, is seen. */
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return kj_fail(err, "mounts", errno, "kjail doctor checks /proc",
			       "open the sandbox's /proc/self/mountinfo to watch its mounts");
	rc = channel_send_fd(chan, CHANNEL_MOUNTS, fd);
	close(fd);
	return rc < 0 ? kj_fail(err, "mounts", -rc, NULL, "pass the sandbox's mount table to kjail")
		      : 0;
}

void mount_watch_report(struct kj_err *err)
{
	kj_fail(err, "mounts", 0,
		"run it again; do not delete or replace such a path on the host while a sandbox "
		"uses it",
		"the host removed or replaced a path the sandbox had masked or bound (a credential "
		"file saved by rename, .git/config, the workspace): its mount was gone, so the "
		"sandbox was killed at once");
}
