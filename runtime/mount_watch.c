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
 * to a new mount does not pass for it.
 *
 * A rename on the host moves no mount: the mount goes with the directory
 * entry to its new name, and the old name, free, shows what the host puts
 * there next. `mv .git/hooks .git/hooks.old; mkdir .git/hooks` (or an
 * editor that keeps its backup by renaming, as Emacs does with
 * .git/config or ~/.netrc) left the command a writable .git/hooks whose
 * hooks the host's next git ran, and `mv ~/.aws ~/.aws.old` put the next
 * ~/.aws in sight. The mount table raises no event for it either. So the
 * setup child also watches, with inotify (IN_MOVE_SELF), each host entry
 * it mounts on, and for a mask each directory above it on the same mount
 * (~, ~/.config), and passes that watch to kjail too: any of them renamed
 * is a mount lost. The command cannot rename one itself (each is a mount
 * point in its namespace, EBUSY) nor any directory above a mask (the
 * root is read-only; in a writable bind they are held in place,
 * mounts/binds.c: pin_parents). Not watched: entries of the file systems
 * kjail made (its /dev, /tmp, /run: no host process reaches them), a
 * mount root (the host cannot rename one of its own mount points), and
 * an entry the setup cannot read (inotify needs read access): a file the
 * command cannot read either, or a directory it may only search (mode
 * 0711), whose rename on the host is not seen. A rename between setup's
 * lookup of a path and its watch (microseconds, before COMMAND starts)
 * is not seen either.
 *
 * A mask needs something to cover. A credential store that is not there
 * at the start (no ~/.aws yet) has none, and the host making it while the
 * sandbox runs (`aws configure`, `gh auth login`, `docker login`, git's
 * credential store saving by rename) put it in sight through the
 * read-only root. So the setup child also watches, on the same inotify
 * instance, the deepest directory that is there on the way to each
 * missing masked path, for the next name on that way to be made, linked
 * or renamed in (mounts/masks.c: mask_absent), and sends kjail a table of
 * which name in which watch stands for which path. Such a name made, or
 * the directory renamed or removed, ends the sandbox as a lost mount
 * does, saying which path appeared. Other names made there (the host
 * writes its home all the time) are read and passed over. A path found
 * there after all once watched (made in between) is masked instead. */
#include "runtime/mount_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "runtime/channel.h"
#include "runtime/clock.h"
#include "runtime/close_detached.h"

#define BASELINE_AFTER_MS 25

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
		made.all = true, made.n = 0; /* watch every mount */
	else
		made.id[made.n++] = (uint32_t)stx.stx_mnt_id;
}

/* The setup child's rename watch, and the devices of the file systems it
 * made (more than fit are watched as the host's: it costs a watch). */
#define FRESH_MAX 32
#define VISITED_MAX 256
static int watch_fd = -1, renames_errno;
static dev_t fresh[FRESH_MAX];
static size_t nfresh;
/* Directories above a mask already watched: the walk up from the next
 * mask in the same directory stops there. */
struct entry {
	dev_t dev;
	uint64_t ino;
};
static struct entry visited[VISITED_MAX];
static size_t nvisited;

void mount_watch_fresh(int mntfd)
{
	struct stat st;

	if (nfresh < FRESH_MAX && fstat(mntfd, &st) == 0)
		fresh[nfresh++] = st.st_dev;
}

static bool seen_before(dev_t dev, uint64_t ino)
{
	for (size_t i = 0; i < nvisited; i++)
		if (visited[i].dev == dev && visited[i].ino == ino)
			return true;
	if (nvisited < VISITED_MAX)
		visited[nvisited++] = (struct entry){dev, ino};
	return false;
}

/* dev is a file system kjail made: no host process reaches its entries. */
static bool on_fresh(dev_t dev)
{
	for (size_t i = 0; i < nfresh; i++)
		if (fresh[i] == dev)
			return true;
	return false;
}

/* The rename watch, made at its first use; -1 (kept in renames_errno). */
static int watch_open(void)
{
	if (watch_fd < 0 && (watch_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0)
		renames_errno = errno;
	return watch_fd;
}

/* Watch what fd names, unless nothing on the host can rename it. 1 when
 * it is a directory to go on from (not a mount root, not seen before), 0
 * to stop, -1 on an error (kept in renames_errno). */
static int watch_one(int fd, bool walking)
{
	struct statx stx;
	char path[48];
	dev_t dev;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_INO, &stx) < 0)
		return renames_errno = errno, -1;
	dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	if ((stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	    (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return 0;
	if (on_fresh(dev))
		return 0;
	if (walking && seen_before(dev, stx.stx_ino))
		return 0;
	if (watch_open() < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* IN_MASK_ADD: a directory watched for a name to appear in it
	 * (mount_watch_dir) keeps that watch too. */
	if (inotify_add_watch(watch_fd, path, IN_MOVE_SELF | IN_MASK_ADD) < 0 && errno != EACCES)
		return renames_errno = errno, -1;
	return 1;
}

void mount_watch_target(int targetfd)
{
	if (!renames_errno)
		(void)watch_one(targetfd, false);
}

/* Each record of the appear table (struct channel_mounts) in turn:
 * *at is where the next starts, 0 to begin. False at the end. */
static bool appear_next(const char *buf, size_t len, size_t *at, int32_t *wd, const char **name,
			const char **path)
{
	const char *end = buf + len, *p = buf + *at;

	if ((size_t)(end - p) < sizeof(*wd) + 4)
		return false;
	memcpy(wd, p, sizeof(*wd));
	*name = p + sizeof(*wd);
	if (!(p = memchr(*name, '\0', (size_t)(end - *name))) ||
	    !(p = memchr(*path = p + 1, '\0', (size_t)(end - (p + 1)))))
		return false; /* cut short: kjail's own records never are */
	*at = (size_t)(p + 1 - buf);
	return true;
}

int mount_watch_dir(int dirfd)
{
	uint32_t mask = IN_CREATE | IN_MOVED_TO | IN_ONLYDIR | IN_MASK_ADD;
	struct statx stx;
	char proc[48];
	int wd;

	if (renames_errno)
		return -1;
	if (statx(dirfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_INO, &stx) < 0) {
		renames_errno = errno;
		return -1;
	}
	/* kjail's own /tmp, /run: no host process makes names there. */
	if (on_fresh(makedev(stx.stx_dev_major, stx.stx_dev_minor)) || watch_open() < 0)
		return -1;
	/* A rename of the directory (`mv ~/.docker x; mkdir ~/.docker`) or
	 * its removal would let the name come back under a new directory,
	 * unwatched: both end the sandbox too. Not for a mount root (a
	 * --root DIR, a home on its own file system): the sandbox reaches
	 * it through its mount, not by its name, so a rename on the host
	 * (root_swap.t swaps a --root DIR by rename while runs start)
	 * changes nothing it sees, and killed it for nothing. */
	if (!(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		mask |= IN_MOVE_SELF | IN_DELETE_SELF;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
	wd = inotify_add_watch(watch_fd, proc, mask);
	/* Unreadable: a directory the command may search only. As for the
	 * rename watch (see above), not seen. */
	if (wd < 0 && errno != EACCES)
		renames_errno = errno;
	return wd < 0 ? -1 : wd;
}

void mount_watch_expect(int wd, const char *name, const char *path)
{
	size_t at = 0, need = sizeof(int32_t) + strlen(name) + strlen(path) + 2;
	const char *n, *p;
	int32_t w;

	while (appear_next(made.appear, made.appear_len, &at, &w, &n, &p))
		if (w == wd && !strcmp(n, name))
			return; /* the same directory by another path (a home's alias) */
	if (made.appear_len + need > CHANNEL_APPEAR_BYTES) {
		made.appear_all = true; /* any name made in a watched directory counts */
		return;
	}
	w = wd;
	memcpy(made.appear + made.appear_len, &w, sizeof(w));
	memcpy(made.appear + made.appear_len + sizeof(w), name, strlen(name) + 1);
	memcpy(made.appear + made.appear_len + sizeof(w) + strlen(name) + 1, path,
	       strlen(path) + 1);
	made.appear_len += (uint32_t)need;
}

/* The directory fd (a file) is in, checked to hold it still; -1 (errno). */
static int parent_of_file(int fd)
{
	char link[48], path[PATH_MAX], *slash;
	struct stat st, in;
	ssize_t n;
	int dfd;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return -1;
	path[n] = '\0';
	if (!(slash = strrchr(path, '/')) || fstat(fd, &st) < 0)
		return errno = ESTALE, -1;
	*slash = '\0';
	dfd = openat(AT_FDCWD, *path ? path : "/", O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd >= 0 && (fstatat(dfd, slash + 1, &in, AT_SYMLINK_NOFOLLOW) < 0 ||
			 in.st_dev != st.st_dev || in.st_ino != st.st_ino)) {
		close(dfd);
		return errno = ESTALE, -1; /* moved since it was opened */
	}
	return dfd;
}

void mount_watch_parents(int fd, bool is_dir)
{
	int up;

	if (renames_errno)
		return;
	up = is_dir ? openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC) : parent_of_file(fd);
	/* Up through "..", which stays on this mount short of its root. */
	while (up >= 0 && watch_one(up, true) > 0) {
		int next = openat(up, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(up);
		up = next;
	}
	if (up < 0 && !renames_errno)
		renames_errno = errno;
	if (up >= 0)
		close(up);
}

/* What to do about errno e from inotify (NULL: the usual fix). */
static const char *renames_fix(int e)
{
	if (e == EMFILE || e == ENOSPC)
		return "each running sandbox and session holds an inotify instance: end sessions "
		       "not in use, or raise fs.inotify.max_user_instances (and max_user_watches)";
	if (e == ESTALE)
		return "a masked file was moved on the host during the setup; retry";
	return NULL;
}

/* The rename watch, made if no entry needed one (the parent expects it). */
static int send_renames(int chan, struct kj_err *err)
{
	int rc;

	if (!renames_errno)
		(void)watch_open();
	if (renames_errno)
		return kj_fail(
			err, "mounts", renames_errno, renames_fix(renames_errno),
			"watch the paths kjail masked or bound for a rename on the host, and those missing for their making");
	rc = channel_send_renames(chan, watch_fd);
	close(watch_fd);
	watch_fd = -1;
	return rc < 0 ? kj_fail(err, "mounts", -rc, NULL, "pass the rename watch to kjail") : 0;
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
	if (send_renames(chan, err))
		return -EINVAL;
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

int mount_watch_arm(struct mount_watch *w, int fd, int renames, const struct channel_mounts *m)
{
	/* No list (there is always the root): every mount, fail closed. */
	*w = (struct mount_watch){.fd = fd,
				  .renames = renames,
				  .due_ms = kj_mono_ms() + BASELINE_AFTER_MS,
				  .all = m->all || !m->n,
				  .appear_all = m->appear_all};
	if (m->appear_len) {
		if (!(w->appear = malloc(m->appear_len))) {
			mount_watch_close(w);
			return -ENOMEM;
		}
		memcpy(w->appear, m->appear, m->appear_len);
		w->appear_len = m->appear_len;
	}
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
	left = w->due_ms - kj_mono_ms();
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

/* A name made in a directory watched for it to appear: one of the
 * appear records (or, with appear_all, any). Kept in w->appeared. */
static bool appeared(struct mount_watch *w, const struct inotify_event *ev)
{
	const char *name, *path;
	size_t at = 0;
	int32_t wd;

	if (!ev->len)
		return false;
	while (appear_next(w->appear, w->appear_len, &at, &wd, &name, &path))
		if (wd == ev->wd && !strcmp(name, ev->name)) {
			snprintf(w->appeared, sizeof(w->appeared), "%s", path);
			return true;
		}
	if (w->appear_all)
		snprintf(w->appeared, sizeof(w->appeared), "%s (in a directory watched)", ev->name);
	return w->appear_all;
}

/* A watched entry renamed, a directory watched for a name removed, or
 * that name made (or events lost, or the watch unreadable: fail
 * closed). Other events (IN_IGNORED: the entry deleted, which the mount
 * table shows; another name made beside the one watched for) are not. */
static bool renamed_now(struct mount_watch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(w->renames, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->mask & (IN_MOVE_SELF | IN_DELETE_SELF | IN_Q_OVERFLOW))
				return true;
			if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) && appeared(w, ev))
				return true;
			p += sizeof(*ev) + ev->len;
		}
	return n == 0 || (errno != EAGAIN && errno != EINTR);
}

bool mount_watch_lost(struct mount_watch *w, short revents, short renamed)
{
	bool changed = revents & (POLLPRI | POLLERR), gone = false;
	struct mount_table now;

	if (w->fd < 0)
		return false;
	if (renamed && renamed_now(w))
		return true;
	if (!w->base)
		return (changed || kj_mono_ms() >= w->due_ms) && baseline(w, changed);
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
	/* Both last closes are slow: the watch's, and the mountinfo's,
	 * which holds the sandbox's mount namespace once init is gone. */
	close_detached((int[]){w->fd, w->renames}, 2);
	free(w->base);
	free(w->ids);
	free(w->appear);
	*w = MOUNT_WATCH_NONE;
}

void mount_watch_report(const struct mount_watch *w, struct kj_err *err)
{
	if (w->appeared[0]) {
		kj_fail(err, "mounts", 0,
			"run it again: kjail masks it from the start now; make or restore "
			"credentials on the host between runs",
			"%s appeared on the host while the sandbox ran: kjail masks it, but it was "
			"missing at the start, so nothing hid it; the sandbox was killed at once",
			w->appeared);
		return;
	}
	kj_fail(err, "mounts", 0,
		"run it again; do not delete, replace or rename such a path on the host while a "
		"sandbox uses it",
		"the host removed, replaced or renamed a path the sandbox had masked or bound (a "
		"credential file saved by rename, .git/config, .git/hooks, the workspace): its "
		"mount was gone or moved, so the sandbox was killed at once");
}
