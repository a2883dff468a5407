/* The one configuration record of a run.
 *
 * Flags (and later profile lines, settings and env) go through one parser
 * (cli.c) and one validator (validate.c) into this struct; after
 * config_finish() it is read-only. Modules take the part they need.
 */
#ifndef KJAIL_CONFIG_H
#define KJAIL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime/error.h"

#define KJ_MAX_BINDS 32
#define KJ_MAX_MASKS 64
#define KJ_MAX_CRED_PLACES 64
#define KJ_MAX_ENV 64
#define KJ_MAX_WRITE_GRANTS 16 /* --rw: each one is host data the command can change */
#define KJ_MAX_PROTECT 16      /* --protect paths given, from every source */
/* ...and with the places the workspace's git configs name, its
 * submodules' included (mounts/git_config.c): one husky per submodule must
 * not make a repository with more than 16 submodules unusable. */
#define KJ_MAX_PROTECTED 256
#define KJ_AGENT_SOCKET "/run/kjail/ssh-agent.sock" /* --ssh-agent, inside */
#define KJ_MAX_HOST_RULES 64                        /* --allow-host, --deny-host (each) */
#define KJ_PROXY_PORT 3128 /* --net proxy: the relay on the sandbox's 127.0.0.1 */
#define KJ_PROXY_URL "127.0.0.1:3128"
#define KJ_NET_LOG_LIMIT (16ULL << 20) /* --net-log-limit's default: 16M of lines */

enum kj_net_mode { KJ_NET_NONE, KJ_NET_HOST, KJ_NET_PROXY };
enum kj_tty_mode { KJ_TTY_AUTO, KJ_TTY_ON, KJ_TTY_OFF };
enum kj_limits_mode { KJ_LIMITS_REQUIRED, KJ_LIMITS_BEST_EFFORT };
/* full: the namespaces sandbox; none: the host profile (for use inside an
 * outer boundary such as a container or VM): no namespaces, no seccomp,
 * only the scrubbed environment, a new session, timeouts, output caps and
 * limits where possible (runtime/launch_host.c). */
enum kj_isolation { KJ_ISOLATION_FULL, KJ_ISOLATION_NONE };
/* --landlock: best-effort (default) uses it where the kernel has it. */
enum kj_landlock_mode { KJ_LANDLOCK_BEST_EFFORT, KJ_LANDLOCK_REQUIRED, KJ_LANDLOCK_OFF };
/* --seccomp: the built-in deny-list, the built-in allow-list, or a file. */
enum kj_seccomp_policy { KJ_SECCOMP_DEFAULT, KJ_SECCOMP_STRICT, KJ_SECCOMP_FILE };

#define KJ_LIMIT_MAX UINT64_MAX /* "max": no limit */

/* cgroup v2 limits; KJ_LIMIT_MAX means none. */
struct kj_limits {
	uint64_t memory;       /* memory.max, bytes (default 512M) */
	uint64_t memory_swap;  /* memory.swap.max, bytes (default 0) */
	uint64_t pids;         /* pids.max (default 256) */
	uint64_t cpu_quota_us; /* cpu.max quota per 100ms period (default max) */
	enum kj_limits_mode mode;
	bool stats; /* --stats: one line of usage at the end */
	/* As the user wrote them, for messages ("--memory 512M"). */
	const char *memory_arg, *memory_swap_arg, *pids_arg, *cpus_arg;
};

/* A host path bound into the sandbox. src is canonical; (dev, ino) is the
 * identity it had when validated, checked again when it is mounted so a
 * path swapped in between is refused. */
struct kj_bind {
	char *src;   /* canonical, once config_finish ran */
	char *given; /* src as given (then), or NULL */
	char *dest;
	bool writable;
	bool is_dir;
	bool agent; /* the --ssh-agent socket */
	dev_t dev;
	ino_t ino;
};

struct kj_config {
	char **argv; /* COMMAND ARG... (points into the caller's argv) */

	const char *root; /* canonical rootfs directory, "/" by default */
	dev_t root_dev;   /* the root directory as validated (config_finish) */
	ino_t root_ino;
	struct kj_bind workspace;
	/* Each --workspace a later one replaced (src and dest as given):
	 * config_finish checks it as it checks the workspace. */
	struct kj_bind *replaced_ws;
	size_t nreplaced_ws;
	struct kj_bind binds[KJ_MAX_BINDS];
	size_t nbinds;
	const char *masks[KJ_MAX_MASKS]; /* --mask, absolute */
	char *mask_hosts[KJ_MAX_MASKS];  /* the host file each names, canonical (or NULL) */
	size_t nmasks;
	uint64_t tmp_size;

	enum kj_net_mode net;
	/* --net proxy (net/proxy.h): patterns as written, checked by cli.c */
	const char *allow_host[KJ_MAX_HOST_RULES], *deny_host[KJ_MAX_HOST_RULES];
	size_t nallow_host, ndeny_host;
	const char *net_log;   /* --net-log FILE: one line per connection */
	const char *net_hosts; /* --net-hosts FILE, canonical after config_finish */
	uint64_t net_idle_ms;  /* --net-idle-timeout (default 5m) */
	bool net_idle_set;
	uint64_t net_log_limit; /* --net-log-limit: bytes of lines per run (or session) */
	bool net_log_limit_set;
	enum kj_isolation isolation;
	enum kj_landlock_mode landlock; /* --landlock */
	enum kj_seccomp_policy seccomp; /* --seccomp */
	const char *seccomp_file;       /* --seccomp FILE, as given */
	struct kj_limits limits;
	bool workspace_ro;                     /* --workspace-ro */
	bool ssh_agent;                        /* --ssh-agent */
	const char *env_file;                  /* --env-file: NAME=VALUE lines, 0600 */
	const char *protect[KJ_MAX_PROTECTED]; /* --protect, relative to the workspace */
	size_t nprotect;
	bool tmp_size_set;
	const char *profile;      /* the effective profile's name (for messages) */
	const char *cwd;          /* --cwd: where COMMAND starts (default: the workspace) */
	uint64_t idle_timeout_ms; /* sessions: stop after this long unused; 0: never */

	uid_t caller_uid, uid; /* uid: who COMMAND runs as (caller unless --user) */
	gid_t caller_gid, gid;
	bool user_set;

	uint64_t timeout_ms; /* 0: none */
	uint64_t kill_grace_ms;
	uint64_t output_limit; /* 0: none */
	bool output_limited;
	enum kj_tty_mode tty;
	bool quiet;

	const char *setenv[KJ_MAX_ENV]; /* "NAME=VALUE" */
	size_t nsetenv;
	const char *passenv[KJ_MAX_ENV]; /* --env NAME */
	size_t npassenv;
	const char *allow_secret[KJ_MAX_ENV]; /* --allow-secret-env NAME */
	size_t nallow_secret;

	/* Filled by config_finish(). */
	/* Homes whose credential stores are masked: the caller's from the
	 * user database, $HOME when it differs, and --user's home. */
	const char *homes[3];
	/* Where credential stores really are when that is not below a home
	 * as written: one reached through a symlink (~/.ssh -> /data/ssh),
	 * and those below $XDG_CONFIG_HOME. Canonical; no grant may show
	 * them. */
	char *cred_places[KJ_MAX_CRED_PLACES];
	size_t ncred_places;
	const char *seccomp_text, *seccomp_source;
	char **env_file_vars; /* "NAME=VALUE" from --env-file; never printed */
	size_t nenv_file_vars;
	char *env_file_text;      /* the file's text, which env_file_vars point into */
	const char *agent_socket; /* the caller's SSH_AUTH_SOCK, canonical */
	/* kjail's session directories (runtime/session_state.c), host paths:
	 * the one $XDG_RUNTIME_DIR names now, and those a caller's sessions
	 * use with it unset (/tmp/kjail-UID) or at its usual value
	 * (/run/user/UID/kjail). Hidden in every sandbox; no grant may lie
	 * in one. */
	char *session_dirs[3];
	size_t nsession_dirs;
};

void config_init(struct kj_config *cfg);

/* Resolve and check everything that needs the file system or the user
 * database: paths canonical and existing, binds allowed, homes found. */
/* Make the session directories the sandbox will see but that do not
 * exist yet, so they can be masked (runtime/config.c says why). */
int config_make_session_dirs(const struct kj_config *cfg, struct kj_err *err);
int config_finish(struct kj_config *cfg, struct kj_err *err);

/* Is dir equal to path or an ancestor of it, component-wise? Both
 * canonical; false if either is NULL. */
bool path_covers(const char *dir, const char *path);

/* The host path that path, a sandbox path below a bind's DEST (the
 * workspace's or a grant's, bound elsewhere than its source), shows:
 * written to out. False if no such bind covers path, or out is too short. */
bool bind_source_of(const struct kj_config *cfg, const char *path, char *out, size_t size);

/* Does dir hold path: by name, or by identity, path or an existing
 * directory above it being dir under another name (a bind mount)? Both
 * absolute; false if either is NULL. */
bool path_holds(const char *dir, const char *path);

/* The source of the workspace or a --rw grant that holds path, or NULL:
 * what the sandbox (this run's or an earlier one's) can write. */
const char *config_writable_root(const struct kj_config *cfg, const char *path);

/* path resolved into out (PATH_MAX bytes), canonical, refusing a symlink
 * on the way that lies inside the workspace or a --rw grant (an earlier
 * run could have planted it): 0, 1 (refused: err names part and opt), or
 * -errno. */
int config_resolve_unplanted(const struct kj_config *cfg, const char *part, const char *opt,
			     const char *path, bool follow_last, char *out, struct kj_err *err);

#endif
