/* Where sessions live and what is recorded about them.
 *
 * Root: /run/kjail. Others: $XDG_RUNTIME_DIR/kjail, or /tmp/kjail-<uid>
 * when that is unset. The directory is the owner's alone (0700): another
 * user can neither list the sessions nor reach their sockets. A directory
 * planted in /tmp by someone else under the expected name is refused, not
 * used (a shared /tmp is where such traps are laid).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/session.h"
#include "runtime/session_quick.h"

int session_check_name(const char *name, struct kj_err *err)
{
	if (!session_name_ok(name))
		return kj_fail(
			err, "session", 0,
			"a name is 1 to 64 of A-Z a-z 0-9 _ . -, starting with a letter or digit",
			"invalid session name '%.80s'", name);
	return 0;
}

static int ensure_private_dir(const char *dir, bool create, struct kj_err *err)
{
	struct stat st;

	/* Only `kjail create` makes the directory: ls, gc, exec -s, stop and
	 * rm leave a machine without sessions untouched. */
	if (create && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return kj_fail(err, "session", errno,
			       errno == ENOENT ? "point XDG_RUNTIME_DIR at a directory that exists"
					       : NULL,
			       "create %s", dir);
	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT) {
			kj_fail(err, "session", 0, "kjail create NAME makes one",
				"no sessions yet (%s)", dir);
			return -ENOENT;
		}
		return kj_fail(err, "session", errno, NULL, "%s", dir);
	}
	/* Planted by another user in a shared /tmp, it cannot be removed by
	 * us (sticky): say where sessions can live instead. */
	if (S_ISDIR(st.st_mode) && st.st_uid != geteuid())
		return kj_fail(err, "session", 0,
			       "set XDG_RUNTIME_DIR to a private directory of yours; sessions then "
			       "live in $XDG_RUNTIME_DIR/kjail",
			       "%s belongs to uid %u, not to you", dir, (unsigned)st.st_uid);
	if (!session_dir_private(st.st_mode, st.st_uid, geteuid()))
		return kj_fail(err, "session", 0, "remove it; kjail recreates it with mode 0700",
			       "%s is not a private directory of yours", dir);
	return 0;
}

static int state_dir(char *buf, size_t len, bool create, struct kj_err *err)
{
	if (session_dir_compose(buf, len, (unsigned)geteuid(), getenv("XDG_RUNTIME_DIR")) == 0)
		return kj_fail(err, "session", ENAMETOOLONG, NULL, "state directory");
	return ensure_private_dir(buf, create, err);
}

int session_dir(char *buf, size_t len, struct kj_err *err)
{
	return state_dir(buf, len, false, err);
}

int session_dir_create(char *buf, size_t len, struct kj_err *err)
{
	return state_dir(buf, len, true, err);
}

int session_path(char *buf, size_t len, const char *name, const char *suffix, struct kj_err *err)
{
	char dir[256];
	int n;

	if (session_dir(dir, sizeof(dir), err))
		return -EINVAL;
	n = snprintf(buf, len, "%s/%s.%s", dir, name, suffix);
	/* A socket's path must fit sun_path (108 bytes). */
	if (n < 0 || (size_t)n >= len || (size_t)n >= 108)
		return kj_fail(err, "session", ENAMETOOLONG,
			       "use a shorter name, or a shorter XDG_RUNTIME_DIR", "%s/%s.%s", dir,
			       name, suffix);
	return 0;
}

int session_record_write(const struct session_record *rec, struct kj_err *err)
{
	char path[512], tmp[520];
	FILE *f;

	if (session_path(path, sizeof(path), rec->name, "state", err))
		return -EINVAL;
	/* One value a line, read back by key: a newline in a value (a
	 * workspace named "p\ntimeout_ms=0") would add a line of its own,
	 * and the first match of a key wins, so it could lift the
	 * session's timeout and output cap. */
	{
		const char *what[] = {"workspace", "profile", "cgroup"};
		const char *value[] = {rec->workspace, rec->profile, rec->cgroup};
		for (int i = 0; i < 3; i++)
			if (strchr(value[i], '\n'))
				return kj_fail(
					err, "session", 0,
					"rename it: a session's record holds one value a line",
					"the %s path holds a newline", what[i]);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	/* A fresh file of kjail's own, never one found there: a link
	 * planted under that name (by a sandbox that once saw the directory)
	 * would have had the record written through it onto a host file. */
	(void)unlink(tmp);
	{
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			return kj_fail(err, "session", e, NULL, "write %s", tmp);
		}
	}
	fprintf(f,
		"supervisor=%d\nsupervisor_start=%llu\ncreated=%lld\nstate=%s\nworkspace=%s\nprofile=%s\n"
		"cgroup=%s\nidle_ms=%llu\ntimeout_ms=%llu\nkill_grace_ms=%llu\noutput_limit=%llu\n"
		"output_limited=%d\nconfig_id=%llu\n",
		(int)rec->supervisor, rec->supervisor_start, rec->created, rec->state,
		rec->workspace, rec->profile, rec->cgroup, (unsigned long long)rec->idle_ms,
		(unsigned long long)rec->timeout_ms, (unsigned long long)rec->kill_grace_ms,
		(unsigned long long)rec->output_limit, rec->output_limited ? 1 : 0,
		(unsigned long long)rec->config_id);
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		return kj_fail(err, "session", errno, NULL, "write %s", path);
	}
	return 0;
}

/* The record file of NAME, read whole into buf (NUL-terminated): 0,
 * -ENOENT when there is none, or another error. A record is kjail's own
 * small file; one that does not fit is refused, not cut. */
static int record_load(const char *name, char *buf, size_t cap, struct kj_err *err)
{
	char path[512];
	ssize_t n;
	size_t len = 0;
	int fd;

	if (session_path(path, sizeof(path), name, "state", err))
		return -EINVAL;
	/* O_NONBLOCK: a FIFO in the record's place is refused below, not
	 * waited on in open(). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT
				       : kj_fail(err, "session", errno, NULL, "read %s", path);
	/* kjail's own file: a regular file of the caller's with one link (a
	 * hard link to a file elsewhere is no record). */
	{
		struct stat st;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    st.st_nlink != 1) {
			close(fd);
			return kj_fail(err, "session", 0,
				       "kjail rm the session and create it again",
				       "%s is not a record kjail wrote", path);
		}
	}
	while (len < cap - 1 && (n = read(fd, buf + len, cap - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return kj_fail(err, "session", e, NULL, "read %s", path);
		}
		len += (size_t)n;
	}
	close(fd);
	if (len == cap - 1)
		return kj_fail(err, "session", EFBIG, NULL, "read %s", path);
	buf[len] = '\0';
	return 0;
}

/* The value of "key=..." in a record's text, copied (cut at size) into
 * out; false when the key is absent. */
static bool record_value(const char *text, const char *key, char *out, size_t size)
{
	const char *v = session_record_find(text, key);

	if (v)
		snprintf(out, size, "%.*s", (int)strcspn(v, "\n"), v);
	return v != NULL;
}

int session_record_read(const char *name, struct session_record *rec, struct kj_err *err)
{
	char text[SESSION_RECORD_MAX];
	int rc = record_load(name, text, sizeof(text), err);

	memset(rec, 0, sizeof(*rec));
	if (rc)
		return rc;
	snprintf(rec->name, sizeof(rec->name), "%s", name);
	rec->supervisor = (pid_t)session_record_number(text, "supervisor");
	rec->supervisor_start = session_record_number(text, "supervisor_start");
	rec->created = (long long)session_record_number(text, "created");
	(void)record_value(text, "state", rec->state, sizeof(rec->state));
	(void)record_value(text, "workspace", rec->workspace, sizeof(rec->workspace));
	(void)record_value(text, "profile", rec->profile, sizeof(rec->profile));
	(void)record_value(text, "cgroup", rec->cgroup, sizeof(rec->cgroup));
	rec->idle_ms = session_record_number(text, "idle_ms");
	rec->timeout_ms = session_record_number(text, "timeout_ms");
	rec->kill_grace_ms = session_record_number(text, "kill_grace_ms");
	rec->output_limit = session_record_number(text, "output_limit");
	rec->output_limited = session_record_number(text, "output_limited") || rec->output_limit;
	rec->config_id = session_record_number(text, "config_id");
	return 0;
}

int session_exec_defaults(const char *name, struct session_exec_defaults *d, struct kj_err *err)
{
	char text[SESSION_RECORD_MAX];
	int rc = record_load(name, text, sizeof(text), err);

	*d = (struct session_exec_defaults){0};
	if (rc)
		return rc;
	d->timeout_ms = session_record_number(text, "timeout_ms");
	d->kill_grace_ms = session_record_number(text, "kill_grace_ms");
	d->output_limit = session_record_number(text, "output_limit");
	/* --output-limit 0 is a cap (nothing passes), not "none". */
	d->output_limited = session_record_number(text, "output_limited") || d->output_limit;
	return 0;
}

void session_forget(const char *name)
{
	/* The lock file stays: removing it under a waiting `create` would
	 * let a second one take a fresh lock on the same name. */
	static const char *const suffixes[] = {"state", "sock", NULL};
	char path[512];
	struct kj_err ignored;

	for (int i = 0; suffixes[i]; i++)
		if (session_path(path, sizeof(path), name, suffixes[i], &ignored) == 0)
			unlink(path);
}

/* /proc/PID/stat: its state letter and start time (0 when unreadable). */
static char proc_stat(pid_t pid, unsigned long long *start, char *comm_line, size_t size)
{
	char path[64], buf[512], *p, *save = NULL, *tok;
	char state = 0;
	FILE *f;

	*start = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	if (!p || p[1] != ' ')
		return 0;
	if (comm_line)
		snprintf(comm_line, size, "%.*s", (int)(p + 1 - buf), buf);
	/* After "(comm)": state is field 3, starttime field 22. */
	tok = strtok_r(p + 2, " ", &save);
	if (tok)
		state = tok[0];
	for (int field = 4; tok && field <= 22; field++)
		if ((tok = strtok_r(NULL, " ", &save)) && field == 22)
			*start = strtoull(tok, NULL, 10);
	return state;
}

unsigned long long session_proc_start(pid_t pid)
{
	unsigned long long start;

	(void)proc_stat(pid, &start, NULL, 0);
	return start;
}

bool session_supervisor_alive(const struct session_record *rec)
{
	char comm[512];
	unsigned long long start;
	char state;

	if (rec->supervisor <= 0)
		return false;
	state = proc_stat(rec->supervisor, &start, comm, sizeof(comm));
	/* A zombie is no supervisor. */
	if (!state || state == 'Z' || state == 'X')
		return false;
	/* A recycled pid is not our supervisor: its start time differs.
	 * (Records of older kjails have none: there the process must still
	 * be named kjail, which a kjail installed under another name is
	 * not, so such a live session looked dead to stop and rm.) */
	if (rec->supervisor_start)
		return start == rec->supervisor_start;
	return strstr(comm, "(kjail)") != NULL;
}
