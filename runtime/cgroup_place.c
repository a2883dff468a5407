/* Where kjail's cgroups live, and why a limit cannot be enforced.
 *
 *   root:   <top of the cgroup2 hierarchy>/kjail/run-<pid>-<random>
 *   a user: <highest cgroup delegated to them>/kjail/run-<pid>-<random>
 *
 * Nothing here writes until cg_setup(), and cg_setup() writes only inside
 * the base: for a user that is a subtree delegated to them, so kjail never
 * touches a cgroup the caller could not have touched by hand.
 */
#include "runtime/cgroup_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

const char *const cg_ctrl_name[CG_NCTRL] = {"memory", "pids", "cpu"};

#define OR_BEST_EFFORT ", or --limits best-effort"
#define FIX_DELEGATE \
	"run kjail in a delegated cgroup: systemd-run --user --scope -p Delegate=yes kjail exec ..."

/* The first cgroup2 line of mountinfo (whose mount point is `point`, if
 * given): its mount point and the cgroup it shows at its top, as
 * /proc/self/cgroup names it. */
static bool mountinfo_cgroup2(const char *point, char *mount, size_t msize, char *root,
			      size_t rsize)
{
	char *line = NULL, r[PATH_MAX], m[PATH_MAX];
	size_t cap = 0;
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		const char *sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) != 2 ||
		    (point && strcmp(m, point)))
			continue;
		cg_fmt(mount, msize, "%s", m);
		cg_fmt(root, rsize, "%s", r);
		found = true;
	}
	free(line);
	fclose(f);
	return found;
}

/* The cgroup2 mount: /sys/fs/cgroup on a unified system, or systemd's
 * /sys/fs/cgroup/unified on a hybrid one (a statfs each: every run on
 * such a host passes here, and reading mountinfo cost 0.1 ms, a fifth of
 * what kjail does before the clone), else the first cgroup2 mount in
 * mountinfo. *root (see mount_root) is filled when that was read. */
static bool find_mount(struct cg_place *pl, char *root, size_t rsize)
{
	static const char *const known[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
	struct statfs st;

	*root = '\0';
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (statfs(known[i], &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC) {
			cg_fmt(pl->mount, sizeof(pl->mount), "%s", known[i]);
			if (i == 0)
				cg_fmt(root, rsize, "/");
			return true;
		}
	return mountinfo_cgroup2(NULL, pl->mount, sizeof(pl->mount), root, rsize);
}

/* What the mount shows at its top, needed only to find the caller's own
 * cgroup below it (a user whose top is not delegated): from mountinfo,
 * unless find_mount already knows. */
static bool mount_root(const struct cg_place *pl, char *root, size_t rsize)
{
	char m[PATH_MAX];

	return *root || mountinfo_cgroup2(pl->mount, m, sizeof(m), root, rsize);
}

/* kjail's own cgroup, relative to the mount's top ("" for the top). */
static bool own_cgroup(const char *mroot, char *rel, size_t size)
{
	char buf[4096], *p, *nl;
	size_t rl = strcmp(mroot, "/") ? strlen(mroot) : 0;

	if (cg_read(AT_FDCWD, "/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return false;
	/* The unified hierarchy's line, "0::/path" (hybrid has v1 lines too). */
	if (!strncmp(buf, "0::", 3))
		p = buf + 3;
	else if ((p = strstr(buf, "\n0::")))
		p += 4;
	else
		return false;
	if ((nl = strchr(p, '\n')))
		*nl = '\0';
	if (strncmp(p, mroot, rl) || (p[rl] && p[rl] != '/'))
		return false; /* not below what the mount shows */
	p += rl;
	while (*p == '/')
		p++;
	cg_fmt(rel, size, "%s", p);
	return true;
}

/* May this caller manage the cgroup at rel (and create children in it)?
 * For a user: the directory is theirs and so are the files that move
 * processes and enable controllers, which is what delegation means. */
static bool delegated(int mfd, const char *rel, uid_t uid)
{
	char f[PATH_MAX + 32];
	const char *dir = *rel ? rel : ".";
	struct stat st;

	if (fstatat(mfd, dir, &st, 0) < 0 || (uid != 0 && st.st_uid != uid))
		return false;
	cg_fmt(f, sizeof(f), "%s/cgroup.procs", dir);
	if (faccessat(mfd, f, W_OK, AT_EACCESS) < 0)
		return false;
	cg_fmt(f, sizeof(f), "%s/cgroup.subtree_control", dir);
	return faccessat(mfd, f, W_OK, AT_EACCESS) == 0;
}

/* A controller missing at the top of the hierarchy: say what holds it.
 * /proc/cgroups names a v1 hierarchy id; /proc/self/mounts is the second
 * witness (a v1 mount with the controller in its options). */
static void why_missing(enum cg_ctrl c, bool have_mount, struct cg_problem *p)
{
	const char *name = cg_ctrl_name[c];
	/* Read once for all three controllers (this runs on every start on a
	 * hybrid host, where none is on v2). */
	static char cgroups[4096];
	static ssize_t cgroups_len = -2;
	char buf[4096], *line, *save = NULL;
	int hier = -1, enabled = -1;
	FILE *f;

	if (cgroups_len == -2)
		cgroups_len = cg_read(AT_FDCWD, "/proc/cgroups", cgroups, sizeof(cgroups));
	if (cgroups_len > 0)
		memcpy(buf, cgroups, (size_t)cgroups_len + 1);
	/* "subsys_name hierarchy num_cgroups enabled" a line. */
	for (line = cgroups_len > 0 ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f_save = NULL, *n = strtok_r(line, " \t", &f_save);
		char *h = strtok_r(NULL, " \t", &f_save), *num = strtok_r(NULL, " \t", &f_save);
		char *e = strtok_r(NULL, " \t", &f_save);
		if (n && h && num && e && !strcmp(n, name)) {
			hier = atoi(h);
			enabled = atoi(e);
		}
	}
	if (enabled != 0 && hier <= 0 && (f = fopen("/proc/self/mounts", "re"))) {
		char *l = NULL;
		size_t cap = 0;
		while (getline(&l, &cap, f) > 0) {
			char type[32], opts[1024];
			if (sscanf(l, "%*s %*s %31s %1023s", type, opts) != 2 ||
			    strcmp(type, "cgroup"))
				continue;
			for (char *o = strtok_r(opts, ",", &save); o;
			     o = strtok_r(NULL, ",", &save))
				if (!strcmp(o, name))
					hier = 1;
		}
		free(l);
		fclose(f);
	}
	if (enabled == 0) {
		cg_fmt(p->why, sizeof(p->why), "the %s controller is disabled (cgroup_disable=%s)",
		       name, name);
		cg_fmt(p->fix, sizeof(p->fix),
		       "remove cgroup_disable=%s from the kernel command line%s", name,
		       OR_BEST_EFFORT);
	} else if (hier > 0) {
		cg_fmt(p->why, sizeof(p->why), "%s is bound to cgroup v1 (%s hierarchy)", name,
		       have_mount ? "hybrid" : "legacy");
		cg_fmt(p->fix, sizeof(p->fix), "boot with systemd.unified_cgroup_hierarchy=1%s",
		       OR_BEST_EFFORT);
	} else if (!have_mount) {
		cg_fmt(p->why, sizeof(p->why), "no cgroup2 file system is mounted");
		cg_fmt(p->fix, sizeof(p->fix), "mount -t cgroup2 cgroup2 /sys/fs/cgroup%s",
		       OR_BEST_EFFORT);
	} else if (enabled < 0) {
		cg_fmt(p->why, sizeof(p->why), "the kernel has no %s controller", name);
		cg_fmt(p->fix, sizeof(p->fix), "use a kernel built with it%s", OR_BEST_EFFORT);
	} else {
		/* On v2 but not offered here: the top of a cgroup namespace
		 * (a container) whose parent did not enable it. */
		cg_fmt(p->why, sizeof(p->why), "%s is not available in this cgroup namespace",
		       name);
		cg_fmt(p->fix, sizeof(p->fix),
		       "enable it for the container (its parent's cgroup.subtree_control)%s",
		       OR_BEST_EFFORT);
	}
}

static bool has_all(const char *list, unsigned want)
{
	for (int c = 0; c < CG_NCTRL; c++)
		if ((want & CG_BIT(c)) && !cg_has_word(list, cg_ctrl_name[c]))
			return false;
	return true;
}

/* The hot path for root: <top>/kjail exists and its children can already
 * have every controller wanted, so nothing else needs looking at. */
static bool fast_path(struct cg_place *pl, int mfd, unsigned want)
{
	char have[512];

	pl->kjfd = openat(mfd, "kjail", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pl->kjfd < 0)
		return false;
	if (cg_read(pl->kjfd, "cgroup.controllers", have, sizeof(have)) < 0 ||
	    !has_all(have, want)) {
		close(pl->kjfd);
		pl->kjfd = -1;
		return false;
	}
	pl->have_base = true;
	pl->basefd = mfd;
	cg_fmt(pl->base, sizeof(pl->base), "%s", pl->mount);
	cg_fmt(pl->kjail, sizeof(pl->kjail), "%s/kjail", pl->mount);
	return true;
}

void cg_locate(struct cg_place *pl, unsigned want, struct cg_problem prob[CG_NCTRL])
{
	char mroot[PATH_MAX], own[PATH_MAX], top_ctrl[512] = "", base_ctrl[512] = "";
	char base_sub[512] = "", cand[PATH_MAX], rel[PATH_MAX];
	const char *base_rel = NULL;
	uid_t uid = geteuid();
	int mfd = -1;
	bool own_ok = false, base_is_own = false;

	memset(pl, 0, sizeof(*pl));
	/* No reason yet for any controller: the fast path below returns
	 * without looking at them, and an unset reason read as garbage made
	 * root's runs in the VM fail with "cannot enforce --pids 256: \3". */
	memset(prob, 0, sizeof(*prob) * CG_NCTRL);
	pl->basefd = pl->kjfd = -1;
	pl->have_mount = find_mount(pl, mroot, sizeof(mroot));
	if (pl->have_mount)
		mfd = open(pl->mount, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (mfd >= 0 && uid == 0 && want && fast_path(pl, mfd, want))
		return;
	if (mfd >= 0) {
		(void)cg_read(mfd, "cgroup.controllers", top_ctrl, sizeof(top_ctrl));
		/* Top down: the first cgroup the caller may manage is the
		 * highest one delegated to them (for root: the top). */
		if (delegated(mfd, "", uid)) {
			base_rel = "";
		} else if (mount_root(pl, mroot, sizeof(mroot)) &&
			   (own_ok = own_cgroup(mroot, own, sizeof(own)))) {
			for (char *s = own;; s++) {
				if (*s == '/' || !*s) {
					cg_fmt(cand, sizeof(cand), "%.*s", (int)(s - own), own);
					if (delegated(mfd, cand, uid)) {
						memcpy(rel, cand, sizeof(rel));
						base_rel = rel;
						break;
					}
				}
				if (!*s)
					break;
			}
		}
	}
	if (base_rel) {
		pl->have_base = true;
		cg_fmt(pl->base, sizeof(pl->base), "%s%s%s", pl->mount, *base_rel ? "/" : "",
		       base_rel);
		cg_fmt(pl->kjail, sizeof(pl->kjail), "%s/kjail", pl->base);
		base_is_own = *base_rel && own_ok && !strcmp(base_rel, own);
		if (*base_rel) {
			cg_fmt(cand, sizeof(cand), "%s/cgroup.controllers", base_rel);
			(void)cg_read(mfd, cand, base_ctrl, sizeof(base_ctrl));
		} else {
			memcpy(base_ctrl, top_ctrl, sizeof(base_ctrl));
		}
		if (base_is_own) {
			cg_fmt(cand, sizeof(cand), "%s/cgroup.subtree_control", base_rel);
			(void)cg_read(mfd, cand, base_sub, sizeof(base_sub));
		}
	}
	for (int c = 0; c < CG_NCTRL; c++) {
		struct cg_problem *p = &prob[c];
		const char *name = cg_ctrl_name[c];

		p->why[0] = p->fix[0] = '\0';
		if (!(want & CG_BIT(c)))
			continue;
		if (!cg_has_word(top_ctrl, name)) {
			why_missing((enum cg_ctrl)c, pl->have_mount, p);
		} else if (!pl->have_base) {
			cg_fmt(p->why, sizeof(p->why),
			       "no cgroup is delegated to uid %u (kjail runs in /%s)",
			       (unsigned)uid, own_ok ? own : "?");
			cg_fmt(p->fix, sizeof(p->fix), "%s%s", FIX_DELEGATE, OR_BEST_EFFORT);
		} else if (!cg_has_word(base_ctrl, name)) {
			cg_fmt(p->why, sizeof(p->why),
			       "%s is not delegated to uid %u (%s/cgroup.controllers lacks it)",
			       name, (unsigned)uid, pl->base);
			cg_fmt(p->fix, sizeof(p->fix),
			       "delegate it (systemd: Delegate=yes, or Delegate=memory pids cpu)%s",
			       OR_BEST_EFFORT);
		} else if (base_is_own && !cg_has_word(base_sub, name)) {
			/* No internal processes: the cgroup kjail runs in cannot
			 * give its children a controller. */
			cg_fmt(p->why, sizeof(p->why),
			       "the only cgroup delegated to uid %u is %s, where kjail itself runs, "
			       "and a cgroup with processes cannot have limited children",
			       (unsigned)uid, pl->base);
			cg_fmt(p->fix, sizeof(p->fix), "run kjail in a child cgroup of it, or %s%s",
			       FIX_DELEGATE, OR_BEST_EFFORT);
		}
	}
	/* Kept for cg_setup: the top is the usual base (root). */
	if (base_rel && !*base_rel)
		pl->basefd = mfd;
	else if (base_rel)
		pl->basefd = openat(mfd, base_rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (mfd >= 0 && pl->basefd != mfd)
		close(mfd);
}

void cg_place_release(struct cg_place *pl)
{
	if (pl->basefd >= 0)
		close(pl->basefd);
	if (pl->kjfd >= 0)
		close(pl->kjfd);
	pl->basefd = pl->kjfd = -1;
}

/* Enable the controllers in want for dirfd's children, writing only the
 * ones not enabled yet (the common case writes nothing). */
static int enable(int dirfd, const char *path, unsigned want, struct cg_problem *p)
{
	char cur[512] = "", add[64] = "";
	size_t n = 0;
	int rc;

	(void)cg_read(dirfd, "cgroup.subtree_control", cur, sizeof(cur));
	for (int c = 0; c < CG_NCTRL; c++)
		if ((want & CG_BIT(c)) && !cg_has_word(cur, cg_ctrl_name[c]))
			n += (size_t)snprintf(add + n, sizeof(add) - n, "%s+%s", n ? " " : "",
					      cg_ctrl_name[c]);
	if (!n)
		return 0;
	rc = cg_write(dirfd, "cgroup.subtree_control", add);
	if (rc == -EBUSY) {
		cg_fmt(p->why, sizeof(p->why),
		       "%s holds processes, so it cannot enable controllers for its children",
		       path);
		cg_fmt(p->fix, sizeof(p->fix), "run kjail in a child cgroup of it, or %s%s",
		       FIX_DELEGATE, OR_BEST_EFFORT);
	} else if (rc) {
		cg_fmt(p->why, sizeof(p->why), "enable %s in %s/cgroup.subtree_control: %s", add,
		       path, strerror(-rc));
		cg_fmt(p->fix, sizeof(p->fix), "check that the cgroup is delegated to you%s",
		       OR_BEST_EFFORT);
	}
	return rc;
}

int cg_setup(struct cg_place *pl, unsigned want, struct cg_problem *p)
{
	char have[512] = "";
	bool have_read = false;
	int bfd = pl->basefd, rc = 0;

	if (bfd < 0) {
		rc = -ENOENT;
		goto fail;
	}
	/* kjail/ exists and already has the controllers (its
	 * cgroup.controllers is what base enables for its children)? */
	if (pl->kjfd < 0)
		pl->kjfd = openat(bfd, "kjail", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else
		have_read = true; /* by fast_path() */
	if (pl->kjfd >= 0 && !have_read)
		(void)cg_read(pl->kjfd, "cgroup.controllers", have, sizeof(have));
	if (!have_read && !has_all(have, want) && (rc = enable(bfd, pl->base, want, p)))
		return rc;
	/* 0755: kjail's tree is readable (for kjail gc and kjail doctor)
	 * but only its owner may create or change cgroups in it. */
	if (pl->kjfd < 0 && mkdirat(bfd, "kjail", 0755) < 0 && errno != EEXIST)
		rc = -errno;
	if (!rc && pl->kjfd < 0 &&
	    (pl->kjfd = openat(bfd, "kjail", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		rc = -errno;
	if (rc)
		goto fail;
	return enable(pl->kjfd, pl->kjail, want, p);
fail:
	cg_fmt(p->why, sizeof(p->why), "create %s: %s", pl->kjail, strerror(-rc));
	cg_fmt(p->fix, sizeof(p->fix), "check that the cgroup is delegated to you%s",
	       OR_BEST_EFFORT);
	return rc;
}
