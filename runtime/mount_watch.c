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
 * anywhere; seccomp denies the mount calls), so a change once setup is
 * done is the host's doing. When one of the mounts kjail made is gone,
 * the sandbox is killed, and kjail exits 125 saying why. Fail closed,
 * with what is left: a command that reads in the microseconds between the
 * detach and the kill sees the new file. The README says so.
 *
 * Only kjail's own mounts count: the setup child notes the id of each it
 * attaches (mount_watch_note) and sends the list with the table. The
 * read-only root and a --ro/--rw grant are recursive copies, so the
 * sandbox also holds a copy of every host mount below them, hidden or
 * not (/run/user/1000 under the fresh /run, a USB stick, a container's
 * overlay, another test's fixture). The host unmounting one and removing
 * its directory detaches the copy too; that hides nothing kjail hid (the
 * directory is gone), and killing every sandbox on the machine for it
 * was wrong. kjail's own mounts on such a copy (a mask of the home's
 * second mount, a chroot's bind of it) go with it, and hide nothing
 * either: one of kjail's counts as lost only while the mount it was on
 * is still there. A mount that comes is no loss either: the kernel mounts an
 * NFSv4 or CIFS submount (an automount) in the namespace of whoever walks
 * into it.
 *
 * kjail's mounts are read 25 ms after the start, off the start-up path (a
 * short command never pays for it), or at the first change before then.
 * One of them already missing then is lost. After that each is known by
 * its id, device, root and mount point, so an id the kernel gives again
 * to a new mount does not pass for it. */
#include "runtime/mount_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/channel.h"

#define BASELINE_AFTER_MS 25

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The setup child's list of the mounts it made (one process, one
 * sandbox: a fresh fork's list starts empty). */
static struct channel_mounts made;
static int note_errno;

void mount_watch_note(int mntfd)
{
	struct statx stx;

	if (made.all || note_errno)
		return;
	if (statx(mntfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0)
		note_errno = errno;
	else if (!(stx.stx_mask & STATX_MNT_ID))
		note_errno = ENOSYS;
	else if (made.n == CHANNEL_MOUNT_IDS)
		made = (struct channel_mounts){.all = true}; /* watch every mount */
	else
		made.id[made.n++] = (uint32_t)stx.stx_mnt_id;
}

int mount_watch_send(int chan, struct kj_err *err)
{
	/* Opened by the setup child itself, right after its last mount: the
	 * open takes the namespace's mount event count as it stands, so any
	 * change after it, even before kjail polls, is seen. */
	int fd, rc;

	if (note_errno)
		return kj_fail(err, "mounts", note_errno, NULL,
			       "read the id of a mount kjail made, to watch it");
	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kj_fail(err, "mounts", errno, "kjail doctor checks /proc",
			       "open the sandbox's /proc/self/mountinfo to watch its mounts");
	rc = channel_send_mounts(chan, fd, &made);
	close(fd);
	return rc < 0 ? kj_fail(err, "mounts", -rc, NULL, "pass the sandbox's mount table to kjail")
		      : 0;
}

static int id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int mount_watch_arm(struct mount_watch *w, int fd, const struct channel_mounts *m)
{
	/* No list (there is always the root): every mount, fail closed. */
	*w = (struct mount_watch){
		.fd = fd, .due_ms = mono_ms() + BASELINE_AFTER_MS, .all = m->all || !m->n};
	if (w->all)
		return 0;
	if (!(w->ids = malloc(m->n * sizeof(uint32_t)))) {
		mount_watch_close(w);
		return -ENOMEM;
	}
	memcpy(w->ids, m->id, m->n * sizeof(uint32_t));
	qsort(w->ids, m->n, sizeof(uint32_t), id_cmp);
	/* Each once: each shows on one line, and the lines are counted. */
	for (size_t i = 0; i < m->n; i++)
		if (!w->nids || w->ids[w->nids - 1] != w->ids[i])
			w->ids[w->nids++] = w->ids[i];
	return 0;
}

/* One of kjail's mounts (or any, with all). */
static bool watched(const struct mount_watch *w, unsigned long id)
{
	uint32_t key = (uint32_t)id;

	if (w->all)
		return true;
	return id <= UINT32_MAX && bsearch(&key, w->ids, w->nids, sizeof(key), id_cmp);
}

int mount_watch_wait_ms(const struct mount_watch *w)
{
	int64_t left;

	if (w->fd < 0 || w->base)
		return -1;
	left = w->due_ms - mono_ms();
	return left > 0 ? (int)left : 0;
}

/* A mount table as read: each line cut to its key "ID MAJ:MIN ROOT POINT"
 * (NUL-terminated, in buf), with its id and its parent's. The parent's id
 * is not in the key: it changes when a mount above goes, which that
 * mount's own line then says. */
struct mount_line {
	unsigned long id, parent;
	const char *key;
};
struct mount_table {
	char *buf;
	struct mount_line *v;
	size_t n;
	size_t len; /* of the keys, NULs included */
};

static void table_free(struct mount_table *t)
{
	free(t->buf);
	free(t->v);
	*t = (struct mount_table){0};
}

/* The whole of fd, NUL-terminated; NULL if it cannot be read. */
static char *read_all(int fd, size_t *len)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap);
	ssize_t r;

	if (!buf || lseek(fd, 0, SEEK_SET) < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (n + 1 >= cap) {
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return NULL;
			}
			buf = bigger;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The table now; -1 if it cannot be read. */
static int table_read(int fd, struct mount_table *t)
{
	size_t n, out = 0, lines = 1;
	char *line, *next;

	*t = (struct mount_table){0};
	if (!(t->buf = read_all(fd, &n)))
		return -1;
	for (const char *c = t->buf; *c; c++)
		lines += *c == '\n';
	if (!(t->v = calloc(lines, sizeof(*t->v)))) {
		table_free(t);
		return -1;
	}
	for (line = t->buf; line < t->buf + n; line = next) {
		char *end = strchr(line, '\n'), *f[5], *key;
		int i = 0;

		next = end ? end + 1 : t->buf + n;
		if (end)
			*end = '\0';
		f[0] = strtok_r(line, " ", &end);
		for (i = 1; f[i - 1] && i < 5; i++)
			f[i] = strtok_r(NULL, " ", &end);
		if (i < 5 || !f[4])
			continue;
		t->v[t->n].id = strtoul(f[0], NULL, 10);
		t->v[t->n].parent = strtoul(f[1], NULL, 10);
		/* Written over what was read, never past it: each field moves
		 * back (memmove), and the key is shorter than its line. */
		key = t->buf + out;
		{
			const int keep[] = {0, 2, 3, 4};
			for (size_t k = 0; k < 4; k++) {
				size_t fl = strlen(f[keep[k]]);
				memmove(t->buf + out, f[keep[k]], fl);
				out += fl;
				t->buf[out++] = k < 3 ? ' ' : '\0';
			}
		}
		t->v[t->n++].key = key;
	}
	t->len = out;
	return 0;
}

static const struct mount_line *by_key(const struct mount_table *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].key, key))
			return &t->v[i];
	return NULL;
}

static const struct mount_line *by_id(const struct mount_table *t, unsigned long id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].id == id)
			return &t->v[i];
	return NULL;
}

static bool pending(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLPRI};
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLPRI | POLLERR));
}

/* The mounts the sandbox started with, read when due or at the first
 * change: true when one of kjail's is missing already, or may be. Each
 * is kept as two strings: its key, then its parent's ("" if none). */
static bool baseline(struct mount_watch *w, bool changed)
{
	struct mount_table t;
	size_t kept = 0, out = 0;

	/* Every mount watched (more than the child could list): a change
	 * before the read cannot be told from a loss. */
	if (w->all && changed)
		return true;
	if (table_read(w->fd, &t))
		return true; /* unreadable: fail closed */
	/* A key and its parent's, or "", a line at most. */
	if (!(w->base = malloc(2 * t.len + t.n + 1))) {
		table_free(&t);
		return true;
	}
	for (size_t i = 0; i < t.n; i++) {
		const struct mount_line *p = by_id(&t, t.v[i].parent);
		const char *keys[2] = {t.v[i].key, p && p != &t.v[i] ? p->key : ""};

		if (!watched(w, t.v[i].id))
			continue;
		kept++;
		for (size_t k = 0; k < 2; k++) {
			size_t l = strlen(keys[k]) + 1;
			memcpy(w->base + out, keys[k], l);
			out += l;
		}
	}
	w->base_len = out;
	table_free(&t);
	/* With all, a change just before this read would be missing from it
	 * and then never seen gone: one still unpolled after the read cannot
	 * be ordered against it, so it counts as lost. With the list, one
	 * of kjail's mounts gone before the read is missing from it. */
	return w->all ? pending(w->fd) : kept != w->nids;
}

/* A mount of the baseline gone, while the mount it was on is still
 * there: what it hid is in sight. (Gone with the mount it was on, its
 * directory went too: a host mount's copy unmounted and removed on the
 * host takes kjail's masks on it along, and hides nothing.) A mount with
 * no parent in the table counts as on one still there. */
static bool lost_one(const struct mount_table *now, const char *key, const char *parent)
{
	return !by_key(now, key) && (!*parent || by_key(now, parent));
}

bool mount_watch_lost(struct mount_watch *w, short revents)
{
	bool changed = revents & (POLLPRI | POLLERR), gone = false;
	struct mount_table now;

	if (w->fd < 0)
		return false;
	if (!w->base)
		return (changed || mono_ms() >= w->due_ms) && baseline(w, changed);
	if (!changed)
		return false;
	if (table_read(w->fd, &now))
		return true;
	for (const char *k = w->base; !gone && k < w->base + w->base_len;) {
		const char *parent = k + strlen(k) + 1;
		gone = lost_one(&now, k, parent);
		k = parent + strlen(parent) + 1;
	}
	table_free(&now);
	return gone;
}

void mount_watch_close(struct mount_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->base);
	free(w->ids);
	*w = (struct mount_watch){.fd = -1};
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
