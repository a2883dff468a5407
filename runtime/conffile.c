/* Reading configuration files safely, and their line format. */
#include "runtime/conffile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/accounts.h"
#include "runtime/clock.h"

#define CONF_MAX_SIZE (256 * 1024)
#define CONF_MAX_LINE 4096

int lines_add(struct kj_lines *l, const char *name, const char *value, const char *file,
	      unsigned lineno, struct kj_err *err)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct kj_line *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return kj_fail(err, "option", ENOMEM, NULL, "configuration lines");
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct kj_line){name, value, file, lineno};
	return 0;
}

const char *line_source(const struct kj_line *ln, char *buf, size_t size)
{
	if (!ln->file)
		snprintf(buf, size, "--%s", ln->name);
	else if (ln->lineno)
		snprintf(buf, size, "%s:%u", ln->file, ln->lineno);
	else
		snprintf(buf, size, "%s", ln->file);
	return buf;
}

void line_error(const struct kj_line *ln, struct kj_err *err)
{
	char src[PATH_MAX + 16], msg[sizeof(err->msg)];

	if (!ln->file)
		return;
	/* A cut at the end of a long message is harmless. */
	if (snprintf(msg, sizeof(msg), "%s: %s", line_source(ln, src, sizeof(src)), err->msg) >= 0)
		memcpy(err->msg, msg, sizeof(err->msg));
}

int conf_files_add(struct kj_conf_files *f, const char *real, const char *shown, const char *state)
{
	for (size_t i = 0; i < f->n; i++) {
		const char *r = f->v[i].real;
		/* The same file: an "absent" entry (no real path) must not
		 * stand in for a file read under the same name, or the read
		 * one would escape the out-of-reach check. */
		if (!strcmp(f->v[i].shown, shown) && (r && real ? !strcmp(r, real) : r == real))
			return 0;
	}
	/* A file dropped here would escape the check that the sandbox cannot
	 * write it: a profile that includes 30 others could then include
	 * one from the workspace. Remember it, and the run is refused. */
	if (f->n == KJ_MAX_FILES) {
		if (!f->unrecorded)
			f->unrecorded = shown;
		return -E2BIG;
	}
	f->v[f->n].real = real;
	f->v[f->n].given = NULL;
	f->v[f->n].shown = shown;
	f->v[f->n++].state = state;
	return 0;
}

int conf_files_check(const struct kj_conf_files *f, struct kj_err *err)
{
	if (!f->unrecorded)
		return 0;
	kj_fail(err, "settings", 0, "include fewer profiles",
		"cannot use %s: at most %d configuration files can be read in one run",
		f->unrecorded, KJ_MAX_FILES);
	return -E2BIG;
}

const char *conf_home(void)
{
	static struct kj_account acct;
	const char *h = getenv("HOME");

	if (h && h[0] == '/')
		return h;
	if (account_by_uid(getuid(), &acct) == 0 && acct.home[0] == '/')
		return acct.home;
	return NULL;
}

int conf_xdg_config_home(const char **xdg, struct kj_err *err)
{
	const char *x = getenv("XDG_CONFIG_HOME");

	*xdg = x && *x ? x : NULL;
	/* The XDG Base Directory spec calls a relative value invalid. Read
	 * from the current directory (the default workspace), it would be
	 * configuration a sandbox could write; ignored, the caller's
	 * settings would be silently skipped, and a run go without what
	 * they restricted. */
	if (*xdg && x[0] != '/') {
		*xdg = NULL;
		return kj_fail(err, "settings", 0, "make it an absolute path, or unset it",
			       "XDG_CONFIG_HOME=%s is not an absolute path", x);
	}
	return 0;
}

int conf_user_dir(const char **dir, struct kj_err *err)
{
	static char buf[PATH_MAX];
	const char *xdg, *home = conf_home();
	size_t n;
	int len;

	*dir = NULL;
	if (conf_xdg_config_home(&xdg, err))
		return -EINVAL;
	if (xdg) {
		/* "/u/.xdg/" reads as "/u/.xdg": paths are compared as text
		 * too (a grant of the directory is refused by name). */
		for (n = strlen(xdg); n > 1 && xdg[n - 1] == '/'; n--)
			;
		len = snprintf(buf, sizeof(buf), "%.*s/kjail", (int)n, n == 1 ? "" : xdg);
	} else if (home) {
		len = snprintf(buf, sizeof(buf), "%s/%s", home, KJ_USER_DIR);
	} else {
		return 0;
	}
	if (len < 0 || (size_t)len >= sizeof(buf))
		return kj_fail(err, "settings", ENAMETOOLONG,
			       xdg ? "set a shorter XDG_CONFIG_HOME" : "set a shorter HOME", "%s",
			       xdg ? xdg : home);
	*dir = buf;
	return 0;
}

char *conf_user_unread(const char *name, char *fix, size_t size)
{
	const char *home = conf_home(), *dir;
	struct kj_err err;
	struct stat old, cur;
	char path[PATH_MAX], now[PATH_MAX];

	if (!home || conf_user_dir(&dir, &err) || !dir ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s/%s", home, KJ_USER_DIR, name) >=
		    sizeof(path) ||
	    (size_t)snprintf(now, sizeof(now), "%s/%s", dir, name) >= sizeof(now) ||
	    !strcmp(path, now) || lstat(path, &old) < 0)
		return NULL;
	/* The same file under two names (a symlink) is read, not shadowed. */
	if (stat(path, &old) == 0 && stat(now, &cur) == 0 && old.st_dev == cur.st_dev &&
	    old.st_ino == cur.st_ino)
		return NULL;
	snprintf(fix, size, "move its lines to %s", conf_shown(now));
	return strdup(path);
}

const char *conf_shown(const char *path)
{
	const char *home = conf_home();
	size_t n = home ? strlen(home) : 0;
	char *s;

	if (!n || strcmp(home, "/") == 0 || strncmp(path, home, n) || path[n] != '/')
		return path;
	if (asprintf(&s, "~%s", path + n) < 0)
		return path;
	return s;
}

/* Who may own a file (or its directory) under a trust rule. */
static int check_owner(const char *part, const char *shown, const struct stat *st,
		       enum conf_trust trust, const char *kind, struct kj_err *err)
{
	uid_t me = getuid();

	if (trust == CONF_SYSTEM && st->st_uid != 0)
		return kj_fail(err, part, 0, "only root may own system configuration: chown root",
			       "%s%s is owned by uid %u, not root", kind, shown,
			       (unsigned)st->st_uid);
	if (trust == CONF_PRIVATE && st->st_uid != me)
		return kj_fail(err, part, 0, "use a file of your own",
			       "%s%s is owned by uid %u, not by you", kind, shown,
			       (unsigned)st->st_uid);
	if (trust == CONF_USER && st->st_uid != 0 && st->st_uid != me)
		return kj_fail(err, part, 0, "use a file of your own, or have root own it",
			       "%s%s is owned by uid %u, neither root nor you", kind, shown,
			       (unsigned)st->st_uid);
	return 0;
}

/* Another user who can write the file could loosen every later run. */
static int check_file(const char *part, const char *shown, const struct stat *st,
		      enum conf_trust trust, struct kj_err *err)
{
	char fix[PATH_MAX + 32];

	if (!S_ISREG(st->st_mode))
		return kj_fail(err, part, 0, "give a regular file", "%s is not a regular file",
			       shown);
	if (check_owner(part, shown, st, trust, "", err))
		return -EPERM;
	if (trust == CONF_PRIVATE && (st->st_mode & 077)) {
		snprintf(fix, sizeof(fix), "chmod 600 %s", shown);
		return kj_fail(err, part, 0, fix, "%s is accessible to group or others (mode %04o)",
			       shown, (unsigned)(st->st_mode & 07777));
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(fix, sizeof(fix), "chmod go-w %s", shown);
		return kj_fail(err, part, 0, fix, "%s is writable by group or others (mode %04o)",
			       shown, (unsigned)(st->st_mode & 07777));
	}
	return 0;
}

/* out without its last component ("/a/b" -> "/a", "/a" -> "/"). */
static void drop_last(char *out)
{
	char *slash = strrchr(out, '/');

	if (slash == out)
		out[1] = '\0';
	else if (slash)
		*slash = '\0';
}

/* Directories conf_check_above() passed a moment ago, with everything
 * above them: one run looks up five files or so below /etc/kjail and
 * ~/.config/kjail, and walked up the same directories for each (two or
 * three stat calls apiece). Each passed only because root or the caller
 * owns it and every directory above it, and only they can change them;
 * kept for a tenth of a second, so a process that lives on (a session's
 * supervisor) walks again for a later lookup. */
#define ABOVE_MEMO 8
#define ABOVE_MEMO_MS 100
static struct {
	char *dir;
	bool system; /* passed root's rule (CONF_SYSTEM), which is the stricter */
	int64_t at_ms;
} above_memo[ABOVE_MEMO];
static unsigned above_next;

static bool above_passed(const char *dir, enum conf_trust trust, int64_t now)
{
	for (unsigned i = 0; i < ABOVE_MEMO; i++)
		if (above_memo[i].dir && now - above_memo[i].at_ms < ABOVE_MEMO_MS &&
		    (above_memo[i].system || trust != CONF_SYSTEM) &&
		    !strcmp(above_memo[i].dir, dir))
			return true;
	return false;
}

static void above_note(const char *dir, enum conf_trust trust, int64_t now)
{
	char *copy = strdup(dir);
	unsigned i = above_next++ % ABOVE_MEMO;

	if (!copy)
		return;
	free(above_memo[i].dir);
	above_memo[i].dir = copy;
	above_memo[i].system = trust == CONF_SYSTEM;
	above_memo[i].at_ms = now;
}

/* Every directory from dir (canonical) up to / is owned by root or (but
 * for CONF_SYSTEM) the caller, and writable by its owner only, or sticky:
 * another user who can write one of them (or owns it, and can chmod it)
 * can rename what lies below and put a tree of the caller's own files of
 * their choosing in its place, or hide the caller's configuration, so
 * that a run goes without the settings or profile that restricted it
 * (HOME=/srv/shared/me with /srv/shared mode 0777). A sticky one (/tmp)
 * is safe when its owner is: its other users cannot touch the caller's
 * entries, and each entry on the way is checked in turn. */
static int conf_check_above(const char *part, const char *dir, const char *below,
			    enum conf_trust trust, struct kj_err *err)
{
	char a[PATH_MAX], fix[PATH_MAX + 32];
	uid_t me = getuid();
	int64_t now = kj_mono_ms();
	struct stat st;

	if (snprintf(a, sizeof(a), "%s", dir) >= (int)sizeof(a))
		return kj_fail(err, part, ENAMETOOLONG, NULL, "%s", dir);
	for (;;) {
		bool owner_ok;

		if (above_passed(a, trust, now))
			break;
		if (stat(a, &st) < 0)
			return kj_fail(err, part, errno, NULL, "%s", conf_shown(a));
		owner_ok = st.st_uid == 0 || (trust != CONF_SYSTEM && st.st_uid == me);
		if (!owner_ok) {
			snprintf(fix, sizeof(fix),
				 "keep %s below directories only you and root own",
				 conf_shown(below));
			return kj_fail(err, part, 0, fix,
				       "%s (on the way to %s) is owned by uid %u: that user could "
				       "replace or hide what is below it",
				       conf_shown(a), conf_shown(below), (unsigned)st.st_uid);
		}
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
			snprintf(fix, sizeof(fix), "chmod go-w %s", conf_shown(a));
			return kj_fail(err, part, 0, fix,
				       "%s (on the way to %s) is writable by group or others (mode "
				       "%04o): another user could replace or hide what is below it",
				       conf_shown(a), conf_shown(below),
				       (unsigned)(st.st_mode & 07777));
		}
		if (!strcmp(a, "/"))
			break;
		drop_last(a);
	}
	above_note(dir, trust, now);
	return 0;
}

/* Whoever can write the directory can replace the file in it (unless the
 * directory is sticky, as /tmp is: then only the file's owner and the
 * directory's can). */
int conf_check_dir(const char *part, const char *real, enum conf_trust trust, struct kj_err *err)
{
	char dir[PATH_MAX], fix[PATH_MAX + 32];
	const char *shown, *slash = strrchr(real, '/');
	struct stat st;

	snprintf(dir, sizeof(dir), "%.*s", slash && slash != real ? (int)(slash - real) : 1, real);
	if (stat(dir, &st) < 0)
		return kj_fail(err, part, errno, NULL, "%s", dir);
	shown = conf_shown(dir);
	/* Sticky or not, its owner can rename or replace what is in it (a
	 * 1777 directory of another user's swapped the caller's vault for
	 * theirs): root or the caller, as conf_check_above() asks of every
	 * directory above. */
	if (check_owner(part, shown, &st, trust, "the directory ", err))
		return -EPERM;
	if (!(st.st_mode & S_ISVTX) && (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(fix, sizeof(fix), "chmod go-w %s", shown);
		return kj_fail(err, part, 0, fix, "the directory %s is writable by group or others",
			       shown);
	}
	if (!strcmp(dir, "/"))
		return 0;
	drop_last(dir);
	return conf_check_above(part, dir, real, trust, err);
}

int conf_resolve(const char *path, bool follow_last, char *out, size_t size,
		 int (*on_link)(const char *dir, const char *name, void *arg), void *arg)
{
	char todo[PATH_MAX], next[PATH_MAX], target[PATH_MAX], name[NAME_MAX + 1];
	const char *p = todo;
	struct stat st;
	int links = 0, rc;

	if (!*path)
		return -ENOENT;
	if (snprintf(todo, sizeof(todo), "%s", path) >= (int)sizeof(todo) || size < 2)
		return -ENAMETOOLONG;
	if (path[0] == '/')
		snprintf(out, size, "/");
	else if (!getcwd(out, size))
		return -errno;
	for (;;) {
		size_t n, len;
		bool last;
		ssize_t tl;

		p += strspn(p, "/");
		if (!*p)
			return 0;
		n = strcspn(p, "/");
		if (n > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		last = !p[strspn(p, "/")];
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			drop_last(out);
			continue;
		}
		len = strlen(out);
		if (snprintf(out + len, size - len, "%s%s", len > 1 ? "/" : "", name) >=
		    (int)(size - len))
			return -ENAMETOOLONG;
		if (lstat(out, &st) < 0) {
			if (errno == ENOENT && last && !follow_last)
				return 0;
			return -errno;
		}
		if (!S_ISLNK(st.st_mode) || (last && !follow_last)) {
			if (!last && !S_ISDIR(st.st_mode))
				return -ENOTDIR;
			continue;
		}
		if (++links > 40)
			return -ELOOP;
		tl = readlink(out, target, sizeof(target) - 1);
		if (tl < 0)
			return -errno;
		target[tl] = '\0';
		out[len > 1 ? len : 1] = '\0'; /* back to the link's directory */
		if (on_link && (rc = on_link(out, name, arg)))
			return rc;
		if (snprintf(next, sizeof(next), "%s/%s", target, p) >= (int)sizeof(next))
			return -ENAMETOOLONG;
		memcpy(todo, next, sizeof(todo));
		p = todo;
		if (target[0] == '/')
			snprintf(out, size, "/");
	}
}

struct link_check {
	const char *part;
	enum conf_trust trust;
	struct kj_err *err;
};

/* A symlink on the way to a configuration file chooses the file: whoever
 * can replace it (anyone who can write its directory; in a sticky one,
 * its owner) could point it at a file of their own, so its directory
 * meets the rule a file's directory meets (`chmod 777 ~/.config/kjail`
 * with settings a link to a safe file was read). */
static int check_link_dir(const char *dir, const char *name, void *arg)
{
	const struct link_check *c = arg;
	char link[PATH_MAX];
	struct stat st, dst;

	if (snprintf(link, sizeof(link), "%s%s%s", dir, dir[1] ? "/" : "", name) >=
	    (int)sizeof(link))
		return kj_fail(c->err, c->part, ENAMETOOLONG, NULL, "%s", dir), 1;
	if (conf_check_dir(c->part, link, c->trust, c->err))
		return 1;
	if (stat(dir, &dst) == 0 && (dst.st_mode & S_ISVTX) && lstat(link, &st) == 0 &&
	    check_owner(c->part, conf_shown(link), &st, c->trust, "the symlink ", c->err))
		return 1;
	return 0;
}

int conf_check_links(const char *part, const char *path, enum conf_trust trust, struct kj_err *err)
{
	char real[PATH_MAX];

	return conf_resolve(path, true, real, sizeof(real), check_link_dir,
			    &(struct link_check){part, trust, err}) > 0
		       ? -EPERM
		       : 0;
}

/* The deepest part of path that exists, into p (PATH_MAX), lstat'ed
 * into st: 0; -ENOENT when none of a relative path does; or an error. */
static int deepest_present(const char *part, const char *path, char *p, struct stat *st,
			   struct kj_err *err)
{
	*st = (struct stat){0};
	if (snprintf(p, PATH_MAX, "%s", path) >= PATH_MAX)
		return kj_fail(err, part, ENAMETOOLONG, NULL, "%s", conf_shown(path));
	while (lstat(p, st) < 0) {
		if (errno != ENOENT)
			return kj_fail(err, part, errno, NULL, "%s", conf_shown(p));
		if (!strchr(p, '/'))
			return -ENOENT;
		drop_last(p);
	}
	return 0;
}

/* conf_check_tree from p, the deepest part of path that exists, which
 * deepest_present lstat'ed into st. */
static int check_tree_from(const char *part, const char *path, const char *p, const struct stat *st,
			   enum conf_trust trust, struct kj_err *err)
{
	char real[PATH_MAX];
	struct stat rst;
	bool dir;
	int rc;

	rc = conf_resolve(p, true, real, sizeof(real), check_link_dir,
			  &(struct link_check){part, trust, err});
	if (rc > 0)
		return -EPERM; /* check_link_dir said why */
	if (rc)
		return kj_fail(err, part, -rc, NULL, "%s", conf_shown(p));
	/* p as lstat'ed, where no symlink was followed to real. */
	if (!strcmp(real, p))
		dir = S_ISDIR(st->st_mode);
	else
		dir = stat(real, &rst) < 0 || S_ISDIR(rst.st_mode);
	if (!dir)
		drop_last(real);
	return conf_check_above(part, real, path, trust, err);
}

int conf_check_tree(const char *part, const char *path, enum conf_trust trust, struct kj_err *err)
{
	char p[PATH_MAX];
	struct stat st;
	int rc;

	if ((rc = deepest_present(part, path, p, &st, err)))
		return rc == -ENOENT ? 0
				     : rc; /* (relative: the caller's cwd, never a config path) */
	return check_tree_from(part, path, p, &st, trust, err);
}

/* p, the deepest part of a missing path that exists, lstat'ed into st:
 * -ENOENT (without touching err) when there truly is no such file, an
 * error when p is a symlink to nothing. A dangling /etc/kjail/policy
 * (its target on a mount that is missing, say) taken as "no policy" would
 * lift every rule of the admin's; fail closed instead. */
static int absent_at(const char *part, const char *p, const struct stat *st, struct kj_err *err)
{
	char target[PATH_MAX];
	struct stat tst;
	ssize_t n;

	if (!S_ISLNK(st->st_mode) || stat(p, &tst) == 0)
		return -ENOENT;
	if (errno != ENOENT)
		return kj_fail(err, part, errno, NULL, "%s", conf_shown(p));
	n = readlink(p, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	kj_fail(err, part, ENOENT, "restore its target, or remove the link",
		"%s is a dangling symlink to %s", conf_shown(p), target);
	return -EINVAL; /* not kj_fail's -ENOENT, which callers take for "no file" */
}

/* A lookup of path failed with ENOENT: absent_at its deepest part. */
static int conf_absent(const char *part, const char *path, struct kj_err *err)
{
	char p[PATH_MAX];
	struct stat st;
	int rc;

	if ((rc = deepest_present(part, path, p, &st, err)))
		return rc;
	return absent_at(part, p, &st, err);
}

/* conf_read; a file that is not there leaves the deepest part of its
 * path that exists in p (PATH_MAX; "" if none), lstat'ed into pst. */
static int read_file(const char *part, const char *path, enum conf_trust trust, char **text,
		     char **real, char *p, struct stat *pst, struct kj_err *err)
{
	struct stat st;
	const char *shown;
	char *buf;
	ssize_t n;
	int fd, rc;

	*text = *real = NULL;
	/* Most runs have none of the files: a few lookups say so, where
	 * realpath() costs a readlink() per path component. */
	rc = deepest_present(part, path, p, pst, err);
	if (rc == -ENOENT)
		p[0] = '\0'; /* a relative path none of which exists */
	if (rc)
		return rc;
	if (strcmp(p, path))
		return absent_at(part, p, pst, err);
	if (!(*real = malloc(PATH_MAX)))
		return kj_fail(err, part, ENOMEM, NULL, "%s", conf_shown(path));
	rc = conf_resolve(
		path, true, *real, PATH_MAX, check_link_dir,
		&(struct link_check){part, trust == CONF_PRIVATE ? CONF_USER : trust, err});
	if (rc) {
		free(*real);
		*real = NULL;
		if (rc == -ENOENT)
			return conf_absent(part, path, err);
		if (rc > 0)
			return -EPERM; /* check_link_dir said why */
		return kj_fail(err, part, -rc, NULL, "%s", conf_shown(path));
	}
	shown = conf_shown(*real);
	/* Checked before opening (a file closed to us still gets its own
	 * message), and again on what was opened. */
	if (stat(*real, &st) < 0) {
		kj_fail(err, part, errno, NULL, "%s", shown);
		goto fail_nofd; /* shown points into *real: fail first, then free */
	}
	if (check_file(part, shown, &st, trust, err) ||
	    conf_check_dir(part, *real, trust == CONF_PRIVATE ? CONF_USER : trust, err)) {
		free(*real);
		*real = NULL;
		return -EPERM;
	}
	/* O_NOFOLLOW: the resolved path must still be no symlink when opened;
	 * O_NONBLOCK: a FIFO planted there cannot hang kjail. */
	fd = open(*real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		kj_fail(err, part, errno, NULL, "open %s", shown);
		goto fail_nofd;
	}
	if (fstat(fd, &st) < 0 || check_file(part, shown, &st, trust, err))
		goto fail;
	if (st.st_size > CONF_MAX_SIZE) {
		kj_fail(err, part, EFBIG, "configuration files are small", "%s", shown);
		goto fail;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		kj_fail(err, part, ENOMEM, NULL, "read %s", shown);
		goto fail;
	}
	n = read(fd, buf, (size_t)st.st_size + 1);
	if (n < 0 || n > st.st_size) {
		kj_fail(err, part, n < 0 ? errno : EAGAIN, NULL, "read %s", shown);
		free(buf);
		goto fail;
	}
	close(fd);
	buf[n] = '\0';
	if (memchr(buf, '\0', (size_t)n)) {
		free(buf);
		kj_fail(err, part, 0, "configuration files are text", "%s contains a NUL byte",
			shown);
		goto fail_nofd;
	}
	*text = buf;
	return 0;
fail:
	close(fd);
fail_nofd:
	free(*real);
	*real = NULL;
	return -EINVAL;
}

int conf_read(const char *part, const char *path, enum conf_trust trust, char **text, char **real,
	      struct kj_err *err)
{
	char p[PATH_MAX];
	struct stat pst;

	return read_file(part, path, trust, text, real, p, &pst, err);
}

int conf_read_vetted(const char *part, const char *path, enum conf_trust trust, char **text,
		     char **real, struct kj_err *err)
{
	char p[PATH_MAX];
	struct stat pst;
	int rc = read_file(part, path, trust, text, real, p, &pst, err);

	/* Not there: from where the lookup stopped, as conf_check_tree. */
	if (rc == -ENOENT && p[0] && (rc = check_tree_from(part, path, p, &pst, trust, err)) == 0)
		rc = -ENOENT;
	return rc;
}

static char *trim(char *s)
{
	char *end;

	s += strspn(s, " \t\r");
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

int conf_split_line(char *line, const char **name, const char **value, const char **why)
{
	char *s = trim(line), *p;

	if (!*s || *s == '#')
		return 0;
	/* A comment starts at a '#' after a blank; a '#' inside a value
	 * ("setenv COLOR=#fff") stays. */
	for (p = s + 1; *p; p++)
		if (*p == '#' && (p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			s = trim(s);
			break;
		}
	p = s + strcspn(s, " \t");
	if (*p) {
		*p++ = '\0';
		p = trim(p);
	}
	*name = s;
	*value = *p ? p : NULL;
	if (s[0] == '-') {
		*why = "write an option without its dashes ('net none', not '--net none')";
		return -1;
	}
	if (strchr(s, '=')) {
		*why = "separate the option and its value with a space ('net none', not 'net=none')";
		return -1;
	}
	return 1;
}

int conf_parse(const char *part, char *text, const char *file, struct kj_lines *out,
	       struct kj_err *err)
{
	unsigned lineno = 0;

	for (char *line = text, *next; line && *line; line = next) {
		const char *name, *value, *why;
		int rc;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (strlen(line) > CONF_MAX_LINE)
			return kj_fail(err, part, 0, "split it", "%s:%u: the line is too long",
				       file, lineno);
		rc = conf_split_line(line, &name, &value, &why);
		if (rc < 0)
			return kj_fail(err, part, 0, why, "%s:%u: '%s' is not an option line", file,
				       lineno, name);
		if (rc > 0 && lines_add(out, name, value, file, lineno, err))
			return -ENOMEM;
	}
	return 0;
}
