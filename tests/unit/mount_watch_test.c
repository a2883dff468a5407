/* The mount watch's bookkeeping (runtime/mount_watch.c) and its message
 * (runtime/channel.c): which mounts count, when the sandbox is lost. The
 * table is a plain file standing in for /proc/PID/mountinfo; the change
 * poll would report is passed as revents, as supervise.c does. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/channel.h"
#include "runtime/mount_watch.h"
#include "tests/unit/tap.h"

static char table[] = "/tmp/kjail-mount-watch-test.XXXXXX";
static int tfd = -1;

/* The table now: lines "ID PARENT MAJ:MIN ROOT POINT OPTS - TYPE SRC OPTS". */
static void set_table(const char *lines)
{
	if (ftruncate(tfd, 0) < 0 || pwrite(tfd, lines, strlen(lines), 0) < 0)
		perror("table");
}

#define ROOT "20 1 8:1 / / ro - ext4 /dev/sda1 rw\n"
#define MASK "31 20 0:5 /null /root/.git-credentials ro - devtmpfs udev rw\n"
#define WS "32 20 8:1 /home/u/ws /home/u/ws rw - ext4 /dev/sda1 rw\n"
#define COPY "25 20 0:44 / /media/usb ro - vfat /dev/sdb1 rw\n"
/* kjail's mask on the host mount's copy, and its bind on the workspace. */
#define ON_COPY "33 25 0:5 /null /media/usb/.git-credentials ro - devtmpfs udev rw\n"
#define GITCFG "34 32 8:1 /home/u/ws/.git/config /home/u/ws/.git/config ro - ext4 /dev/sda1 rw\n"

/* A watch of the table with the ids given, its baseline read already
 * (due passed: revents 0 after the due time). */
static struct mount_watch armed(const uint32_t *ids, uint32_t count, bool all)
{
	static struct channel_mounts m;
	struct mount_watch w;

	m.n = count;
	m.all = all;
	if (count)
		memcpy(m.id, ids, count * sizeof(*ids));
	if (mount_watch_arm(&w, dup(tfd), -1, &m))
		perror("arm");
	return w;
}

/* w armed on a fresh inotify watch of dir (for names made, and for dir
 * renamed or removed), the wd put in m's first appear record if it has
 * one, its baseline read. False on a failure (perror said why). */
static bool watching_dir(struct mount_watch *w, const char *dir, struct channel_mounts *m)
{
	const uint32_t mask = IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;
	int ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	int32_t wd;

	if (ino < 0 || (wd = inotify_add_watch(ino, dir, mask)) < 0)
		return perror("inotify"), false;
	if (m->appear_len)
		memcpy(m->appear, &wd, sizeof(wd));
	if (mount_watch_arm(w, dup(tfd), ino, m))
		return perror("arm"), false;
	w->due_ms = 0;
	return !mount_watch_lost(w, 0, 0); /* the baseline */
}

int main(void)
{
	const uint32_t kjails[] = {32, 20, 31, 31};
	struct mount_watch w;

	tfd = mkstemp(table);
	if (tfd < 0)
		return perror("mkstemp"), 1;
	unlink(table);

	/* Nothing read before it is due, and nothing lost. */
	set_table(ROOT MASK WS COPY);
	w = armed(kjails, 4, false);
	ok(!mount_watch_lost(&w, 0, 0) && !w.base, "not_read_before_due", NULL);
	ok(mount_watch_wait_ms(&w) >= 0 && mount_watch_wait_ms(&w) <= 25, "waits_up_to_25_ms",
	   NULL);
	/* A change before it is due: read then, nothing of kjail's gone. */
	set_table(ROOT MASK WS);
	ok(!mount_watch_lost(&w, POLLPRI, 0) && w.base, "early_change_takes_the_baseline", NULL);
	ok(mount_watch_wait_ms(&w) == -1, "no_timeout_after_the_baseline", NULL);
	/* A host mount's copy is not kjail's: gone, nothing lost. */
	set_table(ROOT MASK WS COPY);
	mount_watch_close(&w);
	w = armed(kjails, 4, false);
	w.due_ms = 0;
	ok(!mount_watch_lost(&w, 0, 0) && w.base, "baseline_when_due", NULL);
	set_table(ROOT MASK WS);
	ok(!mount_watch_lost(&w, POLLPRI, 0), "host_copy_gone_not_lost", NULL);
	/* A mount that comes is no loss. */
	set_table(ROOT MASK WS "40 20 0:50 / /net/home ro - nfs4 srv:/ rw\n");
	ok(!mount_watch_lost(&w, POLLPRI, 0), "mount_added_not_lost", NULL);
	/* The mask gone: lost. */
	set_table(ROOT WS);
	ok(mount_watch_lost(&w, POLLPRI, 0), "mask_gone_lost", NULL);
	/* Its id given again to another mount: still lost. */
	set_table(ROOT WS "31 20 0:61 / /root/.git-credentials ro - tmpfs x rw\n");
	ok(mount_watch_lost(&w, POLLPRI, 0), "mask_id_reused_lost", NULL);
	/* The mask moved (its point renamed): lost. */
	set_table(ROOT WS "31 20 0:5 /null /root/.git-credentials.old ro - devtmpfs udev rw\n");
	ok(mount_watch_lost(&w, POLLPRI, 0), "mask_point_changed_lost", NULL);
	mount_watch_close(&w);

	/* kjail's mask on a host mount's copy: gone with the copy (its
	 * directory removed on the host), nothing is in sight; gone alone, it
	 * is lost. The workspace gone with its .git/config bind is lost: the
	 * mount the workspace was on is still there. */
	{
		const uint32_t more[] = {20, 31, 32, 33, 34};

		set_table(ROOT MASK WS COPY ON_COPY GITCFG);
		w = armed(more, 5, false);
		ok(!mount_watch_lost(&w, POLLPRI, 0), "nested_baseline", NULL);
		set_table(ROOT MASK WS GITCFG);
		ok(!mount_watch_lost(&w, POLLPRI, 0), "mask_gone_with_host_copy_not_lost", NULL);
		set_table(ROOT MASK WS COPY GITCFG);
		ok(mount_watch_lost(&w, POLLPRI, 0), "mask_on_host_copy_gone_alone_lost", NULL);
		set_table(ROOT MASK COPY ON_COPY);
		ok(mount_watch_lost(&w, POLLPRI, 0), "workspace_gone_with_its_binds_lost", NULL);
		set_table(ROOT MASK WS COPY ON_COPY);
		ok(mount_watch_lost(&w, POLLPRI, 0), "git_config_bind_gone_lost", NULL);
		mount_watch_close(&w);
	}

	/* One of kjail's already gone when the baseline is read: lost. */
	set_table(ROOT WS COPY);
	w = armed(kjails, 4, false);
	ok(mount_watch_lost(&w, POLLPRI, 0), "kjails_mount_gone_before_baseline_lost", NULL);
	mount_watch_close(&w);

	/* More than the child could list: every mount counts, and a change
	 * before the baseline cannot be told from a loss. */
	set_table(ROOT MASK WS COPY);
	w = armed(NULL, 0, true);
	ok(mount_watch_lost(&w, POLLPRI, 0), "all_early_change_lost", NULL);
	mount_watch_close(&w);
	w = armed(NULL, 0, true);
	w.due_ms = 0;
	ok(!mount_watch_lost(&w, 0, 0), "all_baseline_when_due", NULL);
	set_table(ROOT MASK WS);
	ok(mount_watch_lost(&w, POLLPRI, 0), "all_host_copy_gone_lost", NULL);
	mount_watch_close(&w);
	/* No list at all is every mount too (fail closed). */
	w = armed(NULL, 0, false);
	ok(w.all, "empty_list_watches_all", NULL);
	mount_watch_close(&w);

	/* The message: ids and fd across, and malformed records refused. */
	{
		int sp[2], fd = -1, t;
		static struct channel_mounts out, in;
		struct kj_err err;
		char junk[8] = {CHANNEL_MOUNTS};

		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
			return perror("socketpair"), 1;
		out.n = 3;
		out.id[0] = 7, out.id[1] = 9, out.id[2] = 4000000000u;
		ok(channel_send_mounts(sp[1], tfd, &out) == 0, "mounts_sent", NULL);
		t = channel_recv(sp[0], &err, &fd, &in);
		ok(t == CHANNEL_MOUNTS && fd >= 0 && in.n == 3 && !in.all &&
			   in.id[2] == 4000000000u,
		   "mounts_received", NULL);
		if (fd >= 0)
			close(fd);
		/* A mounts record without its fd, and one cut short. */
		(void)!send(sp[1], junk, sizeof(junk), 0);
		ok(channel_recv(sp[0], &err, &fd, &in) == -EPROTO && fd == -1,
		   "mounts_without_fd_refused", NULL);
		junk[4] = 100; /* says 100 ids, carries none */
		(void)!channel_msg_send(sp[1], junk, sizeof(junk), tfd);
		ok(channel_recv(sp[0], &err, &fd, &in) == -EPROTO && fd == -1,
		   "mounts_count_past_what_came_refused", NULL);
		/* The appear records ride after the ids; a length past what
		 * came is refused. */
		out.appear_len = 9;
		memcpy(out.appear, "\1\0\0\0.aws\0/r", 9);
		ok(channel_send_mounts(sp[1], tfd, &out) == 0 &&
			   channel_recv(sp[0], &err, &fd, &in) == CHANNEL_MOUNTS && in.n == 3 &&
			   in.id[2] == 4000000000u && in.appear_len == 9 &&
			   !memcmp(in.appear, "\1\0\0\0.aws\0/r", 9),
		   "appear_records_received", NULL);
		if (fd >= 0)
			close(fd);
		{
			char cut[64] = {CHANNEL_MOUNTS};
			uint32_t len = 40; /* 40 bytes of records said, 4 sent */
			memcpy(cut + 12, &len, sizeof(len));
			(void)!channel_msg_send(sp[1], cut, 20, tfd);
			ok(channel_recv(sp[0], &err, &fd, &in) == -EPROTO && fd == -1,
			   "appear_length_past_what_came_refused", NULL);
		}
		out.appear_len = 0;
		/* The rename watch: an fd, nothing else; one without is refused. */
		ok(channel_send_renames(sp[1], tfd) == 0 &&
			   channel_recv(sp[0], &err, &fd, &in) == CHANNEL_RENAMES && fd >= 0,
		   "renames_received", NULL);
		if (fd >= 0)
			close(fd);
		junk[0] = CHANNEL_RENAMES;
		(void)!send(sp[1], junk, 4, 0);
		ok(channel_recv(sp[0], &err, &fd, &in) == -EPROTO && fd == -1,
		   "renames_without_fd_refused", NULL);
		close(sp[0]);
		close(sp[1]);
	}
	{
		/* A watched entry renamed is lost; one removed is the mount
		 * table's to judge (its watch goes with an IN_IGNORED). */
		char dir[] = "/tmp/kjail-rename-test.XXXXXX", a[64], b[64], c[64];
		uint32_t ids[] = {20};
		int ino;

		if (!mkdtemp(dir))
			return perror("mkdtemp"), 1;
		snprintf(a, sizeof(a), "%s/a", dir);
		snprintf(b, sizeof(b), "%s/b", dir);
		snprintf(c, sizeof(c), "%s/c", dir);
		set_table(ROOT);
		ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
		if (ino < 0 || mkdir(a, 0700) || mkdir(c, 0700) ||
		    inotify_add_watch(ino, a, IN_MOVE_SELF) < 0 ||
		    inotify_add_watch(ino, c, IN_MOVE_SELF) < 0)
			return perror("inotify"), 1;
		if (mount_watch_arm(&w, dup(tfd), ino,
				    &(struct channel_mounts){.n = 1, .id = {ids[0]}}))
			return perror("arm"), 1;
		w.due_ms = 0;
		ok(!mount_watch_lost(&w, 0, 0) && w.base, "renames_baseline", NULL);
		rmdir(c);
		ok(!mount_watch_lost(&w, 0, POLLIN), "watched_entry_removed_not_a_rename", NULL);
		ok(rename(a, b) == 0 && mount_watch_lost(&w, 0, POLLIN),
		   "watched_entry_renamed_lost", NULL);
		mount_watch_close(&w);
		rmdir(b);
		rmdir(dir);
	}
	{
		/* A directory watched for a name to appear: that name made,
		 * or renamed in, is lost and says which path; another name
		 * is not; the directory removed is lost. */
		char dir[] = "/tmp/kjail-appear-test.XXXXXX", p[96], q[96];
		static struct channel_mounts m = {.n = 1, .id = {20}};

		if (!mkdtemp(dir))
			return perror("mkdtemp"), 1;
		set_table(ROOT);
		m.appear_len = (uint32_t)(sizeof(int32_t) + sizeof(".aws") + strlen(dir) + 6);
		memcpy(m.appear + 4, ".aws", sizeof(".aws"));
		snprintf(m.appear + 4 + sizeof(".aws"), sizeof(m.appear) - 9, "%s/.aws", dir);
		ok(watching_dir(&w, dir, &m), "appear_baseline", NULL);
		snprintf(p, sizeof(p), "%s/notes", dir);
		ok(mkdir(p, 0700) == 0 && !mount_watch_lost(&w, 0, POLLIN),
		   "other_name_made_not_lost", NULL);
		snprintf(q, sizeof(q), "%s/.aws", dir);
		ok(rename(p, q) == 0 && mount_watch_lost(&w, 0, POLLIN) && !strcmp(w.appeared, q),
		   "watched_name_renamed_in_lost", w.appeared);
		mount_watch_close(&w);
		rmdir(q);

		ok(watching_dir(&w, dir, &m) && mkdir(q, 0700) == 0 &&
			   mount_watch_lost(&w, 0, POLLIN),
		   "watched_name_made_lost", NULL);
		{
			struct kj_err e = {0};
			mount_watch_report(&w, &e);
			ok(strstr(e.msg, "/.aws appeared on the host") != NULL,
			   "appeared_report_names_path", e.msg);
		}
		mount_watch_close(&w);
		rmdir(q);

		ok(watching_dir(&w, dir, &m) && mkdir(p, 0700) == 0 &&
			   !mount_watch_lost(&w, 0, POLLIN),
		   "other_name_made_again_not_lost", NULL);
		ok(rmdir(p) == 0 && rmdir(dir) == 0 && mount_watch_lost(&w, 0, POLLIN),
		   "watched_dir_removed_lost", NULL);
		mount_watch_close(&w);

		/* More records than fit: any name made counts. */
		if (!mkdtemp(strcpy(dir, "/tmp/kjail-appear-test.XXXXXX")))
			return perror("mkdtemp"), 1;
		m.appear_len = 0;
		m.appear_all = true;
		if (!watching_dir(&w, dir, &m))
			return 1;
		snprintf(p, sizeof(p), "%s/notes", dir);
		ok(mkdir(p, 0700) == 0 && mount_watch_lost(&w, 0, POLLIN),
		   "appear_all_any_name_lost", w.appeared);
		mount_watch_close(&w);
		rmdir(p);
		rmdir(dir);
		m.appear_all = false;
	}
	printf("1..%d\n", n);
	return failed != 0;
}
