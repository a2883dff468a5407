/* Host unix sockets: masked wherever the sandbox could reach them.
 *
 * connect(2) and sendto(2) on a pathname unix socket need write permission
 * on the socket file, not a writable mount, and no Landlock ABI up to 7
 * covers them: the read-only bind of the host's / would leave every host
 * service listening outside /run and /tmp reachable (LXD's
 * /var/snap/lxd/common/lxd/unix.socket and Incus's give root on the host;
 * an IDE's server under ~ runs code as the caller). So kjail lists the
 * sockets bound in the host's network namespace (sock_diag, or /proc/net/unix, read
 * by the setup child before anything is mounted, still in the caller's
 * network namespace, runtime/child.c) and masks each with
 * /dev/null in the new root, after the binds, if that path is a socket
 * there (a process of another mount namespace may have bound the same
 * path name to something else: an ordinary file there stays).
 *
 * Not masked: a socket at or below a --ro/--rw grant's source (the caller
 * exposed it on purpose), and sockets under /run, /var/run, /tmp, /dev,
 * /proc and /sys unless they lie in the workspace (those trees are fresh
 * mounts inside: only a bind shows any part of them). Those are the
 * paths as they were bound, text: /tmp/x/lnk/s.sock with lnk -> /var/tmp/y
 * (or /tmp/../var/tmp/y/s.sock) is really /var/tmp/y/s.sock, in sight
 * through the read-only root. So a path that would be skipped so, or that
 * has a "." or ".." part, is resolved on the host and the file it names
 * is masked as well when that lies outside those trees (see resolve_dir).
 * Every other place the host's mount table shows the socket's file at (a
 * second mount of its directory, see add_aliases) is masked too.
 *
 * Not covered: a socket bound after the sandbox started, one bound by a
 * process of another network namespace (it is not listed), one bound by a
 * relative path, one the setup child cannot stat by the path it was
 * bound by (then its other places are not looked for), and one whose
 * file was renamed since.
 */
#include "mounts/sockets.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts/hostmounts.h"
#include "mounts/rootfs.h"

#define MAX_SOCKETS 4096 /* more is a refusal: fail closed, not a partial mask */

bool fresh_inside(const char *path)
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

static size_t path_hash(const char *path, size_t len)
{
	size_t h = 14695981039346656037ULL; /* FNV-1a */

	while (len--)
		h = (h ^ (unsigned char)*path++) * 1099511628211ULL;
	return h;
}

/* The slot of path in the set: where it is, or the free slot it would
 * take. The set is never full (kept at most half full). */
static size_t *seen_slot(const struct host_sockets *hs, const char *path, size_t len)
{
	size_t i = path_hash(path, len) & (hs->nseen - 1);

	while (hs->seen[i] &&
	       (strncmp(hs->paths[hs->seen[i] - 1], path, len) || hs->paths[hs->seen[i] - 1][len]))
		i = (i + 1) & (hs->nseen - 1);
	return &hs->seen[i];
}

/* Room in the set for one more path: doubled at half full. */
static int seen_grow(struct host_sockets *hs)
{
	struct host_sockets bigger = *hs;

	if (hs->nseen && 2 * (hs->n + 1) <= hs->nseen)
		return 0;
	bigger.nseen = hs->nseen ? 2 * hs->nseen : 64;
	if (!(bigger.seen = calloc(bigger.nseen, sizeof(*bigger.seen))))
		return -ENOMEM;
	for (size_t i = 0; i < hs->n; i++)
		*seen_slot(&bigger, hs->paths[i], strlen(hs->paths[i])) = i + 1;
	free(hs->seen);
	hs->seen = bigger.seen;
	hs->nseen = bigger.nseen;
	return 0;
}

/* Each path once: every connection a listening socket accepted is
 * listed with the listener's path, and so is every socket bound there
 * and unlinked since. Counted each time, 4097 connections to one
 * socket of any local user's (in ~ or /var/tmp) made every run on the
 * host refuse with "more than 4096 host unix sockets", and one would
 * be masked as often. */
static int add(struct host_sockets *hs, const char *path, size_t len, struct kj_err *err)
{
	char **v, *p;
	size_t *slot;

	if (seen_grow(hs))
		return kj_fail(err, "mask", ENOMEM, NULL, "list the host's unix sockets");
	slot = seen_slot(hs, path, len);
	if (*slot)
		return 0;
	if (hs->n == MAX_SOCKETS)
		return kj_fail(err, "mask", 0, "report it: the host has unusually many sockets",
			       "more than %d host unix sockets to mask", MAX_SOCKETS);
	if (!(p = strndup(path, len)) || !(v = realloc(hs->paths, (hs->n + 1) * sizeof(*v)))) {
		free(p);
		return kj_fail(err, "mask", ENOMEM, NULL, "list the host's unix sockets");
	}
	hs->paths = v;
	hs->paths[hs->n++] = p;
	*slot = hs->n;
	return 0;
}

/* The socket's path in the sandbox: the host path itself with the host's
 * root; with --root DIR, the part below DIR (a socket bound as
 * DIR/srv/app.sock is /srv/app.sock inside), unless that lies in a tree
 * the sandbox has fresh. Also the path it has below the workspace's
 * DEST, when the workspace is bound somewhere else. */
static int add_mapped(struct host_sockets *hs, const struct kj_config *cfg, const char *path,
		      struct kj_err *err)
{
	const struct kj_bind *ws = &cfg->workspace;
	char mapped[PATH_MAX];
	size_t n = strlen(cfg->root);
	int rc = 0;

	if (n == 1)
		rc = add(hs, path, strlen(path), err);
	else if (path_covers(cfg->root, path) && path[n] == '/' && !fresh_inside(path + n))
		rc = add(hs, path + n, strlen(path + n), err); /* (a workspace socket may not be) */
	if (rc || !ws->dest || !path_covers(ws->src, path) || !strcmp(ws->src, ws->dest))
		return rc;
	n = strlen(ws->src);
	if ((size_t)snprintf(mapped, sizeof(mapped), "%s%s", ws->dest, path + n) >= sizeof(mapped))
		return 0; /* longer than a path: cannot exist there */
	return add(hs, mapped, strlen(mapped), err);
}

/* Resolving the directories of listed paths on the host. A few sockets
 * share most directories (every connection accepted on
 * /run/systemd/journal/stdout is listed with that path): the last few
 * answers are kept. */
#define RESOLVED_KEPT 8

struct resolver {
	struct {
		char *dir, *real; /* real NULL: not on the host, or out of reach */
	} kept[RESOLVED_KEPT];
	unsigned next;
};

/* Where dir really is on the host, named by the kernel (/proc/self/fd).
 * The child still sees the host's tree (a copy: nothing is mounted yet).
 * NULL if it is not there or the child, with no more rights than the
 * command will have, cannot look it up. */
static const char *resolve_dir(struct resolver *r, const char *dir)
{
	char link[64], real[PATH_MAX];
	unsigned slot;
	ssize_t n = -1;
	int fd = -1;

	for (unsigned i = 0; i < RESOLVED_KEPT; i++)
		if (r->kept[i].dir && !strcmp(r->kept[i].dir, dir))
			return r->kept[i].real;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, real, sizeof(real) - 1);
		close(fd);
	}
	slot = r->next++ % RESOLVED_KEPT;
	free(r->kept[slot].dir);
	free(r->kept[slot].real);
	r->kept[slot].real = NULL;
	if (n > 0 && real[0] == '/') {
		real[n] = '\0';
		r->kept[slot].real = strdup(real);
	}
	r->kept[slot].dir = strdup(dir);
	if (!r->kept[slot].dir) {
		free(r->kept[slot].real);
		r->kept[slot].real = NULL;
	}
	return r->kept[slot].real;
}

static void resolver_release(struct resolver *r)
{
	for (unsigned i = 0; i < RESOLVED_KEPT; i++) {
		free(r->kept[i].dir);
		free(r->kept[i].real);
	}
}

/* What one listing carries: the resolver, and for add_aliases the
 * host's mount table, whether any file system is mounted twice there
 * (else no socket can show at a second place), and the paths looked at. */
struct scan {
	struct resolver res;
	const struct hostmounts *hm;
	bool aliases_possible;
	struct host_sockets done;
};

/* Has path a "." or ".." part? */
static bool has_dot_part(const char *path)
{
	for (const char *p = path; (p = strchr(p, '/'));) {
		p++;
		if (p[0] == '.' &&
		    (p[1] == '/' || !p[1] || (p[1] == '.' && (p[2] == '/' || !p[2]))))
			return true;
	}
	return false;
}

/* Skipped: exposed by a grant, or in a tree the sandbox has fresh (with
 * --root DIR: outside DIR, or in such a tree below it). */
static bool skipped(const struct kj_config *cfg, const char *path)
{
	size_t n = strlen(cfg->root);

	if (granted(cfg, path))
		return true;
	if (path_covers(cfg->workspace.src, path))
		return false;
	if (n > 1)
		return !path_covers(cfg->root, path) || path[n] != '/' || fresh_inside(path + n);
	return fresh_inside(path);
}

/* A socket bound through a link or ".." (/tmp/x/lnk/s.sock, lnk ->
 * /var/tmp/y): its file is where the host resolves it, and there the
 * read-only root shows it, connectable (connect needs no write access).
 * Masked at that path too, unless that one is skipped as well. Only
 * the directory is resolved: a socket's own name is never a link (bind
 * makes the file). */
static int add_resolved(struct resolver *r, struct host_sockets *hs, const struct kj_config *cfg,
			const char *path, struct kj_err *err)
{
	const char *base = strrchr(path, '/'), *real;
	char dir[PATH_MAX], full[PATH_MAX];

	snprintf(dir, sizeof(dir), "%.*s", (int)(base - path), path);
	real = resolve_dir(r, *dir ? dir : "/");
	if (!real || (size_t)snprintf(full, sizeof(full), "%s%s", strcmp(real, "/") ? real : "",
				      base) >= sizeof(full))
		return 0; /* not on the host, out of reach, or too long to exist */
	if (!strcmp(full, path) || skipped(cfg, full))
		return 0;
	return add_mapped(hs, cfg, full, err);
}

struct alias_ctx {
	struct host_sockets *hs;
	const struct kj_config *cfg;
	struct kj_err *err;
};

static int add_alias(const char *alias, void *arg)
{
	struct alias_ctx *c = arg;

	return skipped(c->cfg, alias) ? 0 : add_mapped(c->hs, c->cfg, alias, c->err);
}

/* The socket's file shown at another place by a second mount of its
 * directory (a bind of /home or /var/tmp for a chroot, a second mount of
 * a btrfs subvolume): masked at its own path only, it stayed
 * connectable there, through the read-only root; so did one bound below
 * /tmp through a host bind of a /var/tmp directory. Each path is looked
 * at once (a listener is listed again for every connection it took). */
static int add_aliases(struct scan *sc, struct host_sockets *hs, const struct kj_config *cfg,
		       const char *path, struct kj_err *err)
{
	size_t before = sc->done.n;

	if (!sc->hm || !sc->aliases_possible)
		return 0;
	/* Past MAX_SOCKETS paths no longer remembered: looked at again. */
	if (before < MAX_SOCKETS) {
		if (add(&sc->done, path, strlen(path), err))
			return -EINVAL;
		if (sc->done.n == before)
			return 0;
	}
	return hostmounts_aliases(sc->hm, path, add_alias, &(struct alias_ctx){hs, cfg, err});
}

/* One listed socket path (absolute, as it was bound). */
static int consider(struct scan *sc, struct host_sockets *hs, const struct kj_config *cfg,
		    const char *path, struct kj_err *err)
{
	int rc = 0;

	if (granted(cfg, path))
		return 0;
	if (!skipped(cfg, path))
		rc = add_mapped(hs, cfg, path, err);
	if (!rc)
		rc = add_aliases(sc, hs, cfg, path, err);
	/* Only these few are resolved: one lookup each, on the host. */
	if (rc || (!fresh_inside(path) && !has_dot_part(path)))
		return rc;
	return add_resolved(&sc->res, hs, cfg, path, err);
}

/* The socket's name from sock_diag, exactly as bound: /proc/net/unix
 * prints a name's bytes raw, so a socket bound as "/var/tmp/d/a\nb.sock"
 * read as "/var/tmp/d/a" (and a line "b.sock"), and stayed reachable. 1
 * when listed, 0 when this kernel has no unix_diag (the caller falls
 * back to /proc/net/unix), -errno on failure (err filled). */
static int list_by_diag(struct scan *res, struct host_sockets *hs, const struct kj_config *cfg,
			struct kj_err *err)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} rq = {
		.nlh = {.nlmsg_len = sizeof(rq),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = 1},
		.req = {.sdiag_family = AF_UNIX,
			.udiag_states = ~0U,
			.udiag_show = UDIAG_SHOW_NAME},
	};
	_Alignas(struct nlmsghdr) char buf[16384];
	bool any = false;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG), rc = 0;

	if (fd < 0)
		return 0;
	if (send(fd, &rq, sizeof(rq), 0) != (ssize_t)sizeof(rq)) {
		close(fd);
		return 0;
	}
	while (rc == 0) {
		ssize_t got = recv(fd, buf, sizeof(buf), 0);
		int left = (int)got;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = kj_fail(err, "mask", got < 0 ? errno : EIO, NULL,
				     "list the host's unix sockets (sock_diag)");
			break;
		}
		/* NLMSG_OK, written out: its int/unsigned compare fails clang's
		 * -Wsign-compare. */
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf;
		     rc == 0 && left >= (int)sizeof(*h) && h->nlmsg_len >= sizeof(*h) &&
		     h->nlmsg_len <= (unsigned)left;
		     h = NLMSG_NEXT(h, left)) {
			const struct unix_diag_msg *m = NLMSG_DATA(h);
			const struct rtattr *a = (const struct rtattr *)(m + 1);
			int alen = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m));

			if (h->nlmsg_type == NLMSG_DONE) {
				rc = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				int e = -((const struct nlmsgerr *)NLMSG_DATA(h))->error;
				/* No unix_diag in this kernel (not built, not loadable). */
				rc = !any && (e == ENOENT || e == EOPNOTSUPP || e == EINVAL)
					     ? -EAGAIN
					     : kj_fail(err, "mask", e, NULL,
						       "list the host's unix sockets (sock_diag)");
				break;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || alen < 0)
				continue;
			any = true;
			for (; rc == 0 && RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				const char *name = RTA_DATA(a);
				size_t len = RTA_PAYLOAD(a);
				char path[PATH_MAX];

				if (a->rta_type != UNIX_DIAG_NAME || !len || name[0] != '/')
					continue; /* abstract ('\0' first) or relative */
				len = strnlen(name, len);
				if (len >= sizeof(path))
					continue;
				memcpy(path, name, len);
				path[len] = '\0';
				rc = consider(res, hs, cfg, path, err);
			}
		}
	}
	close(fd);
	return rc == -EAGAIN ? 0 : rc;
}

/* Without unix_diag: "Num RefCount Protocol Flags Type St Inode Path",
 * the path, when the socket has one, the eighth field and the rest of the
 * line (a name with a newline in it is cut there: see README). */
static int list_by_proc(struct scan *res, struct host_sockets *hs, const struct kj_config *cfg,
			struct kj_err *err)
{
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/net/unix", "re");
	int rc = 0;

	if (!f)
		return kj_fail(err, "mask", errno, "mount /proc", "list the host's unix sockets");
	while (!rc && fgets(line, sizeof(line), f)) {
		char *p = line;

		for (int field = 0; field < 7 && p; field++) {
			p += strspn(p, " ");
			p = strchr(p, ' ');
		}
		if (!p || *(p += strspn(p, " ")) != '/')
			continue; /* the header, unbound, abstract (@), or relative */
		p[strcspn(p, "\n")] = '\0';
		rc = consider(res, hs, cfg, p, err);
	}
	if (!rc && ferror(f))
		rc = kj_fail(err, "mask", EIO, NULL, "read /proc/net/unix");
	fclose(f);
	return rc;
}

int host_sockets_find(const struct kj_config *cfg, const struct hostmounts *hm,
		      struct host_sockets *hs, struct kj_err *err)
{
	struct scan sc = {.hm = hm};
	int rc;

	for (size_t i = 0; hm && !sc.aliases_possible && i < hm->n; i++)
		for (size_t j = i + 1; !sc.aliases_possible && j < hm->n; j++)
			sc.aliases_possible = hm->v[i].dev == hm->v[j].dev;
	*hs = (struct host_sockets){0};
	rc = list_by_diag(&sc, hs, cfg, err);
	if (rc == 0)
		rc = list_by_proc(&sc, hs, cfg, err);
	resolver_release(&sc.res);
	host_sockets_free(&sc.done);
	if (rc < 0) {
		host_sockets_free(hs);
		return rc;
	}
	return 0;
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
	free(hs->seen);
	*hs = (struct host_sockets){0};
}
