/* The parent's half of a run: prepare everything that can be prepared
 * outside, clone the sandbox's init into its new namespaces, give it its
 * uid/gid maps, and report its setup errors as cleanly as our own. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mounts/git_after.h"
#include "net/proxy.h"
#include "runtime/channel.h"
#include "runtime/env.h"
#include "runtime/landlock.h"
#include "runtime/probe.h"
#include "runtime/sandbox.h"

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL /* linux/sched.h, 5.7+ */
#endif

struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
		set_tid_size, cgroup;
};

/* No CLONE_NEWNET: the child makes its network namespace on a thread,
 * beside the mount recipe (net/netns.c). */
static pid_t clone_sandbox(int cgroupfd, int *pidfd)
{
	struct clone3_args args = {
		.flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
			 CLONE_NEWCGROUP | CLONE_PIDFD,
		.pidfd = (uint64_t)(uintptr_t)pidfd,
		.exit_signal = SIGCHLD,
	};

	/* Born inside its cgroup: not one instruction runs outside the
	 * limits (moving it in after the fork would leave a window). */
	if (cgroupfd >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (uint64_t)cgroupfd;
	}
	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}

static int write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* Root keeps its identity (uid 0 inside is host uid 0, with no
 * capabilities); anyone else is mapped 1:1 as themselves, which is all an
 * unprivileged user namespace allows. */
static int write_id_maps(pid_t pid, const struct kj_config *cfg, struct kj_err *err)
{
	char uid_map[64], gid_map[64];
	int rc;

	if (cfg->caller_uid == 0) {
		snprintf(uid_map, sizeof(uid_map), "0 0 4294967295\n");
		snprintf(gid_map, sizeof(gid_map), "0 0 4294967295\n");
	} else {
		snprintf(uid_map, sizeof(uid_map), "%u %u 1\n", (unsigned)cfg->caller_uid,
			 (unsigned)cfg->caller_uid);
		snprintf(gid_map, sizeof(gid_map), "%u %u 1\n", (unsigned)cfg->caller_gid,
			 (unsigned)cfg->caller_gid);
		/* Required before an unprivileged gid_map; it also stops the
		 * sandbox from dropping a group that denies it access. */
		if ((rc = write_file(pid, "setgroups", "deny")))
			return kj_fail(err, "userns", -rc, userns_map_fix(rc), "write setgroups");
	}
	if ((rc = write_file(pid, "uid_map", uid_map)))
		return kj_fail(err, "userns", -rc, userns_map_fix(rc), "write uid_map");
	if ((rc = write_file(pid, "gid_map", gid_map)))
		return kj_fail(err, "userns", -rc, userns_map_fix(rc), "write gid_map");
	return 0;
}

extern const struct sock_filter kj_seccomp_default_bpf[], kj_seccomp_strict_bpf[];
extern const size_t kj_seccomp_default_bpf_len, kj_seccomp_strict_bpf_len;

/* The built-in policies were compiled at build time; a FILE compiles now
 * (a parse error is exit 125 naming the file and line). */
static int seccomp_prepare(const struct kj_config *cfg, struct kj_seccomp_prog **prog,
			   struct kj_err *err)
{
	if (cfg->seccomp == KJ_SECCOMP_DEFAULT)
		return kj_seccomp_from_bpf(kj_seccomp_default_bpf, kj_seccomp_default_bpf_len, prog,
					   err);
	if (cfg->seccomp == KJ_SECCOMP_STRICT)
		return kj_seccomp_from_bpf(kj_seccomp_strict_bpf, kj_seccomp_strict_bpf_len, prog,
					   err);
	return kj_seccomp_compile_bounded(cfg->seccomp_text, cfg->seccomp_source, prog, err);
}

static int clone_error(int e, struct kj_err *err)
{
	const char *fix =
		"check that the kernel allows unprivileged user namespaces "
		"(sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0, "
		"or AppArmor's kernel.apparmor_restrict_unprivileged_userns=0); see kjail doctor";
	if (e == ENOSYS)
		fix = "kjail needs Linux 5.12 or later";
	else if (e != EPERM && e != EACCES && e != ENOSPC && e != EUSERS)
		fix = NULL; /* not the namespaces' fault (EMFILE for the pidfd, EAGAIN) */
	return kj_fail(err, "namespaces", e, fix, "create the sandbox's namespaces");
}

/* Kill and reap a sandbox whose setup failed. */
static void abandon(struct sandbox *sb)
{
	siginfo_t si;

	(void)syscall(SYS_pidfd_send_signal, sb->pidfd, SIGKILL, NULL, 0);
	(void)waitid(P_PIDFD, (id_t)sb->pidfd, &si, WEXITED);
}

/* Read the setup child's messages until COMMAND is executed (end of file). */
static int await_setup(struct sandbox *sb, struct kj_err *err)
{
	struct kj_err child_err;
	struct channel_mounts made; /* 32 KiB, this once */
	bool reset = false;
	int fd = -1;

	for (;;) {
		int t = channel_recv(sb->chan[0], &child_err, &fd, &made);
		/* The end of the channel is COMMAND's exec, unless the child
		 * died before it read our go-ahead and said nothing. */
		if (t == 0)
			return reset ? kj_fail(err, "launch", 0,
					       "retry; if it repeats, kjail doctor checks the host",
					       "the sandbox died during its setup")
				     : 0;
		/* A child that died before it read our go-ahead resets the
		 * channel, and the kernel reports that before the error line
		 * the child queued: once reported, the line is there. */
		if (t == -ECONNRESET && !reset) {
			reset = true;
			continue;
		}
		if (t < 0)
			return kj_fail(err, "launch", -t, NULL, "read from the sandbox");
		if (t == CHANNEL_PTY) {
			if (stdio_attach_pty(&sb->io, fd, err))
				return -EINVAL;
			continue;
		}
		/* Once, after the last mount (runtime/mount_watch.c): the
		 * rename watch, then the table. */
		if (t == CHANNEL_RENAMES) {
			/* Held here until the table comes (released with
			 * the sandbox if it does not). */
			if (sb->mounts.renames >= 0)
				close(sb->mounts.renames);
			sb->mounts.renames = fd;
			continue;
		}
		if (t == CHANNEL_MOUNTS) {
			int renames = sb->mounts.renames;

			sb->mounts.renames = -1;
			mount_watch_close(&sb->mounts);
			if (mount_watch_arm(&sb->mounts, fd, renames, &made))
				return kj_fail(err, "mounts", ENOMEM, NULL,
					       "keep the list of the sandbox's mounts");
			continue;
		}
		if (child_err.exit_code != KJ_EXIT_SETUP) {
			/* COMMAND not found / not executable: say so, and let the
			 * sandbox end with 126 or 127 like a shell would. */
			kj_err_print(&child_err);
			continue;
		}
		*err = child_err;
		return -EINVAL;
	}
}

void sandbox_kill(struct sandbox *sb)
{
	(void)syscall(SYS_pidfd_send_signal, sb->pidfd, SIGKILL, NULL, 0);
}

void sandbox_release(struct sandbox *sb)
{
	proxy_stop(sb->proxy, false);
	cgroup_destroy(sb->cg);
	sb->cg = NULL;
	if (sb->netgo >= 0)
		close(sb->netgo);
	sb->netgo = -1;
	if (sb->pidfd >= 0)
		close(sb->pidfd);
	sb->pidfd = -1;
	mount_watch_close(&sb->mounts);
}

int sandbox_start(struct sandbox *sb, const struct kj_config *cfg, int session_listen,
		  struct git_after *git, struct kj_err *err)
{
	int guard_rc;

	*sb = (struct sandbox){.cfg = cfg,
			       .chan = {-1, -1},
			       .ctl = {-1, -1},
			       .netgo = -1,
			       .pidfd = -1,
			       .proxy_fd = -1,
			       .mounts = MOUNT_WATCH_NONE,
			       .session_listen = session_listen};
	/* A downgrade is the caller's to ask for, and said: a settings line
	 * or a profile can set these as silently as a flag. */
	if (!cfg->quiet && cfg->net == KJ_NET_HOST)
		kj_note("net: host: the command shares the host's network (not isolated)");
	if (!cfg->quiet && cfg->landlock == KJ_LANDLOCK_OFF)
		kj_note("landlock: off: no Landlock rules beneath the mounts");
	if (env_build(cfg, &sb->envp, err))
		return -EINVAL;
	kj_trace("environment built");
	if (seccomp_prepare(cfg, &sb->seccomp, err))
		return -EINVAL;
	kj_trace("seccomp compiled");
	/* --landlock required fails here, before anything is created. */
	if (landlock_plan(cfg, &sb->landlock_abi, err) || stdio_plan_make(cfg, &sb->io, err) ||
	    config_make_session_dirs(cfg, err) || cgroup_prepare(cfg, &sb->cg, err))
		return -EINVAL;
	kj_trace("cgroup ready");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sb->chan) < 0 ||
	    pipe2(sb->ctl, O_CLOEXEC) < 0 || (sb->netgo = eventfd(0, EFD_CLOEXEC)) < 0) {
		sandbox_release(sb);
		return kj_fail(err, "launch", errno, NULL, "create the setup channel");
	}
	/* --net proxy: the host-side proxy, before the sandbox can ask it
	 * anything (the relay inside gets sb->proxy_fd), in the sandbox's
	 * cgroup: what it spends for the command counts against the limits. */
	if (proxy_start(cfg, &sb->proxy, &sb->proxy_fd, err) ||
	    cgroup_adopt(sb->cg, proxy_pid(sb->proxy), "the --net proxy proxy", err)) {
		sandbox_release(sb);
		return -EINVAL;
	}
	/* Signals meant for COMMAND must not kill kjail between the clone and
	 * the supervisor loop: block them now, the loop reads them from a
	 * signalfd (the command's child clears its mask before exec). */
	supervise_block_signals();
	sb->pid = clone_sandbox(cgroup_fd(sb->cg), &sb->pidfd);
	if (sb->pid < 0) {
		clone_error(errno, err);
		sandbox_release(sb);
		return -EINVAL;
	}
	if (sb->pid == 0)
		sandbox_child(sb);
	kj_trace("cloned");

	close(sb->chan[1]);
	close(sb->ctl[0]);
	/* The git guardian learns of init before init hears "g" (COMMAND
	 * cannot start sooner): killed with -9 from here on, kjail leaves it
	 * the check after the run (mounts/git_guard.c). Fail closed: a
	 * guardian that is gone cannot do it. */
	if ((guard_rc = git_guard_arm(git, sb->pidfd))) {
		stdio_restore(&sb->io);
		abandon(sb);
		sandbox_release(sb);
		return kj_fail(err, "git", -guard_rc, NULL,
			       "hand the sandbox to the guardian of the workspace's git");
	}
	if (sb->proxy_fd >= 0)
		close(sb->proxy_fd); /* the relay's now; the proxy sees EOF when it dies */
	stdio_parent_close_child_ends(&sb->io);
	/* The netns thread first (net/netns.c): this wake-up puts it on this
	 * CPU, which is free as soon as kjail waits below. */
	if (write_id_maps(sb->pid, cfg, err) || write(sb->netgo, &(uint64_t){1}, 8) != 8 ||
	    write(sb->chan[0], "g", 1) != 1) {
		/* The child may have failed first, before it waited for us (a
		 * check of the host's mounts): its error line is queued on the
		 * channel, and it says more than our EPIPE or ESRCH. */
		struct kj_err child_err = {0};
		int e = errno;

		stdio_restore(&sb->io);
		abandon(sb); /* reaped: the channel now ends after what it sent */
		if (await_setup(sb, &child_err) && child_err.part[0])
			*err = child_err;
		else if (!err->part[0])
			kj_fail(err, "launch", e, NULL, "start the sandbox");
		sandbox_release(sb);
		return -EINVAL;
	}
	if (await_setup(sb, err)) {
		stdio_restore(&sb->io);
		abandon(sb);
		if (!err->part[0])
			kj_fail(err, "launch", errno, NULL, "start the sandbox");
		sandbox_release(sb);
		return -EINVAL;
	}
	kj_trace("command started");
	/* Not watched, not run: the child sends the table before COMMAND. */
	if (sb->mounts.fd < 0 || sb->mounts.renames < 0) {
		stdio_restore(&sb->io);
		abandon(sb);
		sandbox_release(sb);
		return kj_fail(err, "mounts", EPROTO, "retry",
			       "receive the sandbox's mount table and rename watch");
	}
	proxy_commit_log(sb->proxy);
	close(sb->chan[0]);
	close(sb->netgo);
	sb->netgo = -1;
	kj_seccomp_free(sb->seccomp);
	sb->seccomp = NULL;
	return 0;
}

int sandbox_run(const struct kj_config *cfg, struct kj_err *err)
{
	struct git_after git;
	struct sandbox sb;
	int rc;

	git_after_start(cfg, &git);
	if (sandbox_start(&sb, cfg, -1, &git, err)) {
		git_guard_release(&git); /* COMMAND never ran */
		return KJ_EXIT_SETUP;
	}
	rc = supervise(&sb);
	kj_trace("sandbox ended");
	stdio_restore(&sb.io);
	relay_report(&sb.io);
	proxy_stop(sb.proxy, true); /* "kjail: net: N connections refused" */
	sb.proxy = NULL;
	/* Every process of the sandbox is gone: nothing can plant more. A
	 * commondir that could not be set aside is kjail's failure. */
	if (git_after_finish(&git, cfg->quiet))
		rc = KJ_EXIT_SETUP;
	if (!sb.timed_out)
		cgroup_report(sb.cg, cfg, &rc);
	if (sb.mounts_lost) {
		mount_watch_report(&sb.mounts, err);
		rc = KJ_EXIT_SETUP;
	}
	if (cfg->limits.stats) {
		char ll[96];
		landlock_describe(cfg, sb.landlock_abi, ll, sizeof(ll));
		kj_note("stats: landlock %s", ll);
	}
	sandbox_release(&sb);
	return rc;
}
