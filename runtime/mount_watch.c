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
 * sees the new file. The README says so.
 *
 * A mount may also come: the kernel mounts an NFSv4 or CIFS submount
 * (an automount) in the namespace of whoever walks into it. That is no
 * loss, so only a mount the sandbox started with that is gone kills it.
 * Those are read 25 ms after the start, off the start-up path (a short
 * command never pays for it); a change before then kills, as it cannot
 * be told apart. Each is known by its id, device, root and mount point,
 * so an id the kernel gives again to a new mount does not pass for it. */
#include "runtime/mount_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
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

void mount_watch_arm(struct mount_watch *w, int fd)
{
	*w = (struct mount_watch){.fd = fd, .due_ms = mono_ms() + BASELINE_AFTER_MS};
}

int mount_watch_wait_ms(const struct mount_watch *w)
{
	int64_t left;

	if (w->fd < 0 || w->base)
		return -1;
	left = w->due_ms - mono_ms();
	return left > 0 ? (int)left : 0;
}

/* The table now, each line cut to its key: "ID MAJ:MIN ROOT POINT" (the
 * parent's id left out: it changes when a mount above goes, which the
 * mount's own line then says). NUL-separated; NULL if it cannot be read. */
static char *read_keys(int fd, size_t *len)
{
	size_t cap = 16384, n = 0, out = 0;
	char *buf = malloc(cap), *line, *next;
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
	for (line = buf; line < buf + n; line = next) {
		char *end = strchr(line, '\n'), *f[5];
		int i = 0;

		next = end ? end + 1 : buf + n;
		if (end)
			*end = '\0';
		f[0] = strtok_r(line, " ", &end);
		for (i = 1; f[i - 1] && i < 5; i++)
			f[i] = strtok_r(NULL, " ", &end);
		if (i < 5 || !f[4])
			continue;
		/* Written over what was read, never past it: each field moves
		 * back (memmove), and the key is shorter than its line. */
		{
			const int keep[] = {0, 2, 3, 4};
			for (size_t k = 0; k < 4; k++) {
				size_t fl = strlen(f[keep[k]]);
				memmove(buf + out, f[keep[k]], fl);
				out += fl;
				buf[out++] = k < 3 ? ' ' : '\0';
			}
		}
	}
	*len = out;
	return buf;
}

static bool has_key(const char *keys, size_t len, const char *key)
{
	for (const char *k = keys; k < keys + len; k += strlen(k) + 1)
		if (!strcmp(k, key))
			return true;
	return false;
}

static bool pending(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLPRI};
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLPRI | POLLERR));
}

bool mount_watch_lost(struct mount_watch *w, short revents)
{
	char *now;
	size_t len;
	bool gone = false;

	if (w->fd < 0)
		return false;
	if (revents & (POLLPRI | POLLERR)) {
		if (!w->base)
			return true; /* before the baseline: added or lost, unknown */
		if (!(now = read_keys(w->fd, &len)))
			return true; /* unreadable: fail closed */
		for (const char *k = w->base; !gone && k < w->base + w->base_len;
		     k += strlen(k) + 1)
			gone = !has_key(now, len, k);
		free(now);
		return gone;
	}
	if (w->base || mono_ms() < w->due_ms)
		return false;
	/* The baseline. A change just before this read would be missing from
	 * it and then never seen gone: one still unpolled after the read
	 * cannot be ordered against it, so it counts as lost. */
	if (!(w->base = read_keys(w->fd, &w->base_len)))
		return true;
	return pending(w->fd);
}

void mount_watch_close(struct mount_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->base);
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
