/* Host unix sockets: masked wherever the sandbox could reach them.
 *
 * connect(2) and sendto(2) on a pathname unix socket need write permission
 * on the socket file, not a writable mount, and no Landlock ABI up to 7
 * covers them: the read-only bind of the host's / would leave every host
 * service listening outside /run and /tmp reachable (LXD's
 * /var/snap/lxd/common/lxd/unix.socket and Incus's give root on the host;
 * an IDE's server under ~ runs code as the caller). So kjail lists the
 * sockets bound in the host's network namespace (/proc/net/unix, read
 * before the clone, in the caller's namespace) and masks each with
 * /dev/null in the new root, after the binds, if that path is a socket
 * there (a process of another mount namespace may have bound the same
 * path name to something else: an ordinary file there stays).
 *
 * Not masked: a socket at or below a --ro/--rw grant's source (the caller
 * exposed it on purpose), and sockets under /run, /var/run, /tmp, /dev,
 * /proc and /sys unless they lie in the workspace (those trees are fresh
 * mounts inside: only a bind shows any part of them). Not covered: a socket bound after
 * the sandbox started, one bound by a process of another network
 * namespace (it is not listed), and one bound by a relative path.
 */
#include "mounts/sockets.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/rootfs.h"

#define MAX_SOCKETS 4096 /* more is a refusal: fail closed, not a partial mask */

static bool hidden_anyway(const char *path)
{
	static const char *const fresh[] = {"/run",  "/var/run", "/tmp", "/dev",
					    "/proc", "/sys",     NULL};

	for (int i = 0; fresh[i]; i++)
		if (path_covers(fresh[i], path))
			return true;
	return false;
}

static bool granted(const struct kj_config *cfg, const char *path)
{
	for (size_t i = 0; i < cfg->nbinds; i++)
		if (!cfg->binds[i].agent && path_covers(cfg->binds[i].src, path))
			return true;
	return false;
}

static int add(struct host_sockets *hs, const char *path, size_t len, struct kj_err *err)
{
	char **v, *p;

	if (hs->n == MAX_SOCKETS)
		return kj_fail(err, "mask", 0, "report it: the host has unusually many sockets",
			       "more than %d host unix sockets to mask", MAX_SOCKETS);
	if (!(p = strndup(path, len)) || !(v = realloc(hs->paths, (hs->n + 1) * sizeof(*v)))) {
		free(p);
		return kj_fail(err, "mask", ENOMEM, NULL, "list the host's unix sockets");
	}
	hs->paths = v;
	hs->paths[hs->n++] = p;
	return 0;
}

/* Also the path the socket has below the workspace's DEST, when the
 * workspace is bound somewhere else. */
static int add_mapped(struct host_sockets *hs, const struct kj_config *cfg, const char *path,
		      struct kj_err *err)
{
	const struct kj_bind *ws = &cfg->workspace;
	char mapped[PATH_MAX];
	size_t n;
	int rc = 0;

	if (!strcmp(cfg->root, "/"))
		rc = add(hs, path, strlen(path), err);
	if (rc || !ws->dest || !path_covers(ws->src, path) || !strcmp(ws->src, ws->dest))
		return rc;
	n = strlen(ws->src);
	if ((size_t)snprintf(mapped, sizeof(mapped), "%s%s", ws->dest, path + n) >= sizeof(mapped))
		return 0; /* longer than a path: cannot exist there */
	return add(hs, mapped, strlen(mapped), err);
}

int host_sockets_find(const struct kj_config *cfg, struct host_sockets *hs, struct kj_err *err)
{
	char line[PATH_MAX + 128];
	FILE *f;
	int rc = 0;

	*hs = (struct host_sockets){0};
	f = fopen("/proc/net/unix", "re");
	if (!f)
		return kj_fail(err, "mask", errno, "mount /proc", "list the host's unix sockets");
	/* "Num RefCount Protocol Flags Type St Inode Path": the path, when
	 * the socket has one, is the eighth field and the rest of the line. */
	while (!rc && fgets(line, sizeof(line), f)) {
		char *path = NULL, *p = line;
		size_t len;

		for (int field = 0; field < 7 && p; field++) {
			p += strspn(p, " ");
			p = strchr(p, ' ');
		}
		if (!p || *(p += strspn(p, " ")) != '/')
			continue; /* the header, unbound, abstract (@), or relative */
		path = p;
		len = strcspn(path, "\n");
		path[len] = '\0';
		if (granted(cfg, path) ||
		    (hidden_anyway(path) && !path_covers(cfg->workspace.src, path)))
			continue;
		rc = add_mapped(hs, cfg, path, err);
	}
	if (!rc && ferror(f))
		rc = kj_fail(err, "mask", EIO, NULL, "read /proc/net/unix");
	fclose(f);
	if (rc)
		host_sockets_free(hs);
	return rc;
}

int host_sockets_mask(int rootfd, const struct host_sockets *hs, struct kj_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < hs->n; i++)
		rc = mask_path(rootfd, hs->paths[i], S_IFSOCK, err);
	return rc;
}

void host_sockets_free(struct host_sockets *hs)
{
	for (size_t i = 0; i < hs->n; i++)
		free(hs->paths[i]);
	free(hs->paths);
	*hs = (struct host_sockets){0};
}
