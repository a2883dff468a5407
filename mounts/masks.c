/* Masking: an empty read-only directory over a directory, /dev/null over a
 * file. Applied last, after every bind, so no bind can re-expose them. */
#include "mounts/masks.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/mountapi.h"
#include "mounts/rootfs.h"

const char *const credential_paths[] = {
	".ssh",	       ".gnupg",	      ".aws",		   ".azure",
	".config/gcloud", ".kube",	      ".docker/config.json", ".netrc",
	".git-credentials", ".config/gh",     ".npmrc",		   ".pypirc",
	".cargo/credentials", ".cargo/credentials.toml", NULL,
};

static int mask_one(int rootfd, const char *path, int emptyfd, int nullfd, struct kj_err *err)
{
	struct stat st;
	int fd, mfd, rc;

	/* Resolved inside the new root: a symlinked ~/.ssh gets its target
	 * masked, and no link can lead the mask out onto the host. */
	fd = path_open_in_root(rootfd, path, 0);
	/* Not in the sandbox, or out of the caller's own reach (the command
	 * runs as the caller with fewer rights): nothing to hide. */
	if (fd == -ENOENT || fd == -EACCES)
		return 0;
	if (fd < 0)
		return kj_fail(err, "mask", -fd, NULL, "open %s", path);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return kj_fail(err, "mask", errno, NULL, "stat %s", path);
	}
	mfd = tree_clone(S_ISDIR(st.st_mode) ? emptyfd : nullfd, path, 0, 0, 0, err);
	rc = mfd < 0 ? mfd : tree_attach(mfd, fd, path, err);
	if (mfd >= 0)
		close(mfd);
	close(fd);
	return rc;
}

static int mask_home(int rootfd, const char *home, int emptyfd, int nullfd, struct kj_err *err)
{
	char path[PATH_MAX];
	int rc = 0;

	for (int i = 0; !rc && credential_paths[i]; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", home, credential_paths[i]) >= sizeof(path))
			return kj_fail(err, "mask", ENAMETOOLONG, NULL, "%s", home);
		rc = mask_one(rootfd, path, emptyfd, nullfd, err);
	}
	return rc;
}

int masks_mount(int rootfd, const struct kj_config *cfg, struct kj_err *err)
{
	int emptyfd, nullfd, rc = 0;

	/* An empty directory nobody can write to or read from. */
	emptyfd = fs_new("tmpfs", "mode=0000,size=4k,nr_inodes=1",
			 MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, err);
	if (emptyfd < 0)
		return emptyfd;
	nullfd = devnull_clone(err);
	if (nullfd < 0) {
		close(emptyfd);
		return nullfd;
	}
	for (int i = 0; !rc && i < 3 && cfg->homes[i]; i++)
		rc = mask_home(rootfd, cfg->homes[i], emptyfd, nullfd, err);
	for (size_t i = 0; !rc && i < cfg->nmasks; i++)
		rc = mask_one(rootfd, cfg->masks[i], emptyfd, nullfd, err);
	close(nullfd);
	close(emptyfd);
	return rc;
}
