/* Persistent sessions: a sandbox created once and executed into many times.
 *
 *   kjail create [OPTIONS] NAME      build the sandbox, leave it running
 *   kjail exec -s NAME -- COMMAND    run COMMAND inside it
 *   kjail ls [--json] | stop NAME | rm NAME | gc
 *
 * Design: `create` forks a supervisor on the host side that builds the
 * sandbox exactly like `kjail exec` does (same namespaces, mounts, cgroup,
 * capabilities, seccomp) but whose init (pid 1 inside) serves requests on
 * a unix socket in the owner's 0700 state directory instead of running one
 * COMMAND. An exec request carries argv, extra environment, a cwd and the
 * client's three stdio fds; init forks, the child applies the session's
 * seccomp filter and executes, and init reports the exit status back on
 * the same connection. No lock is held across a command's run, so execs
 * into one session and many sessions run concurrently.
 */
#ifndef KJAIL_SESSION_H
#define KJAIL_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>

#include "runtime/config.h"
#include "runtime/error.h"

#define SESSION_NAME_MAX 64

/* --- state directory and records (session_state.c) --- */

struct session_record {
	char name[SESSION_NAME_MAX + 1];
	pid_t supervisor; /* host pid of the supervisor */
	/* Its start time (/proc/PID/stat, clock ticks after boot): a pid
	 * recycled by another process is not the supervisor. */
	unsigned long long supervisor_start;
	long long created; /* unix seconds */
	char state[16];    /* "running", "stopped", "killed" (runtime/mount_watch.c) */
	char workspace[4096];
	char profile[64];
	char cgroup[4096]; /* the session's cgroup directory, or "" */
	uint64_t idle_ms;
	/* Per-exec defaults from create (a profile's timeout, say). */
	uint64_t timeout_ms, kill_grace_ms, output_limit;
	bool output_limited; /* output_limit holds (0 is a cap of nothing) */
	uint64_t config_id;  /* config_fingerprint() of what it was created with */
};

/* [A-Za-z0-9][A-Za-z0-9_.-]{0,63} */
int session_check_name(const char *name, struct kj_err *err);
/* The caller's state directory (created 0700 when missing, and refused
 * when it is not a real directory owned by the caller with mode 0700). */
int session_dir(char *buf, size_t len, struct kj_err *err);
/* The same, created (0700) when missing: only kjail create does this. */
int session_dir_create(char *buf, size_t len, struct kj_err *err);
/* dir/NAME.<suffix> */
int session_path(char *buf, size_t len, const char *name, const char *suffix, struct kj_err *err);
/* A record file's largest size: a bigger one is refused, not cut. */
#define SESSION_RECORD_MAX (sizeof(struct session_record) + 512)
int session_record_write(const struct session_record *rec, struct kj_err *err);
/* 0, -ENOENT when there is no such session, or another error. */
int session_record_read(const char *name, struct session_record *rec, struct kj_err *err);
/* Only the per-exec defaults of the record (what an exec into the
 * session starts from), without filling a whole record. */
struct session_exec_defaults {
	uint64_t timeout_ms, kill_grace_ms, output_limit;
	bool output_limited;
};
int session_exec_defaults(const char *name, struct session_exec_defaults *d, struct kj_err *err);
void session_forget(const char *name);
bool session_supervisor_alive(const struct session_record *rec);
/* A process's start time (field 22 of /proc/PID/stat), 0 if unknown. */
unsigned long long session_proc_start(pid_t pid);

/* --- the wire (session_proto.c) --- */

/* A client that sent its session's init a signal meaning "end" (signals.h,
 * KJ_SIGS_END: forwarded, or its --timeout's) waits this long for init to
 * read it; a message still unread then (SIOCOUTQ: a socket's bytes its
 * peer has not taken) is an init that does not serve (stopped, wedged),
 * and the client ends instead of waiting for an exit status that cannot
 * come: a harness's SIGTERM needed a SIGKILL. */
#define SESSION_DEAF_MS 1000

enum session_msg {
	SESSION_EXEC = 1, /* client -> init: argv, env, cwd; fds 0,1,2 */
	SESSION_SIGNAL,   /* client -> init: signal this exec's process group */
	SESSION_STOP,     /* client -> init: end the session */
	SESSION_INFO,     /* client -> init: ask for usage */
	SESSION_EXITED,   /* init -> client: value = exit status (shell style) */
	SESSION_FAILED,   /* init -> client: value = 126/127, text = message */
	SESSION_REPLY,    /* init -> client: INFO answer / STOP ack */
};

#define SESSION_MSG_MAX 65536

struct session_msg_hdr {
	uint32_t type;
	int32_t value;  /* signal, status or count */
	uint64_t a, b;  /* INFO: execs running, ms since last activity */
	uint32_t nargv; /* EXEC: argv strings, then env strings, then cwd */
	uint32_t nenv;
};

/* Send hdr + payload (+ up to 3 fds); receive one message (fds into
 * fds[], count into *nfds). Return 0 / -errno; -ECONNRESET at EOF. */
int session_send(int sock, const struct session_msg_hdr *hdr, const char *payload, size_t len,
		 const int *fds, int nfds);
int session_recv(int sock, struct session_msg_hdr *hdr, char *payload, size_t *len, int *fds,
		 int *nfds);

/* --- the parts that run in init and in the client --- */

struct sandbox;
/* init: serve requests on listenfd until STOP, idle timeout or the
 * supervisor's death. Never returns. */
__attribute__((noreturn)) void session_serve(struct sandbox *sb, int listenfd);

/* Connect to a running session's socket (exit-125 error when none). */
int session_connect(const char *name, const struct timeval *limit, struct kj_err *err);

/* The commands (session_cmd.c, session_client.c). */
/* -EEXIST (err filled) when a session of that name runs. */
int session_create(const struct kj_config *cfg, const char *name, struct kj_err *err);
/* What kjail create and exec -s --create refuse before creating: flags
 * a session cannot honour (exec: --cwd is the exec's own), the host
 * profile. */
struct kj_sources;
int session_create_check(const struct kj_config *cfg, const struct kj_sources *src, bool exec,
			 struct kj_err *err);
/* Wait until no create of NAME is under way (its record is written). */
int session_settled(const char *name, struct kj_err *err);
int cmd_create(int argc, char **argv);
/* Is this `kjail exec` argv aimed at a session (-s NAME, --session)? */
bool session_requested(int argc, char **argv);
int cmd_session_exec(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int session_gc(struct kj_err *err);

#endif
