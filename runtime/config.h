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
#define KJ_MAX_ENV 64

enum kj_net_mode { KJ_NET_NONE, KJ_NET_HOST };
enum kj_tty_mode { KJ_TTY_AUTO, KJ_TTY_ON, KJ_TTY_OFF };
enum kj_limits_mode { KJ_LIMITS_REQUIRED, KJ_LIMITS_BEST_EFFORT };

#define KJ_LIMIT_MAX UINT64_MAX /* "max": no limit */

/* cgroup v2 limits; KJ_LIMIT_MAX means none. */
struct kj_limits {
	uint64_t memory;      /* memory.max, bytes (default 512M) */
	uint64_t memory_swap; /* memory.swap.max, bytes (default 0) */
	uint64_t pids;	      /* pids.max (default 256) */
	uint64_t cpu_quota_us; /* cpu.max quota per 100ms period (default max) */
	enum kj_limits_mode mode;
	bool stats;	      /* --stats: one line of usage at the end */
	/* As the user wrote them, for messages ("--memory 512M"). */
	const char *memory_arg, *memory_swap_arg, *pids_arg, *cpus_arg;
};

/* A host path bound into the sandbox. src is canonical; (dev, ino) is the
 * identity it had when validated, checked again when it is mounted so a
 * path swapped in between is refused. */
struct kj_bind {
	char *src;
	char *dest;
	bool writable;
	bool is_dir;
	dev_t dev;
	ino_t ino;
};

struct kj_config {
	char **argv; /* COMMAND ARG... (points into the caller's argv) */

	const char *root; /* canonical rootfs directory, "/" by default */
	struct kj_bind workspace;
	struct kj_bind binds[KJ_MAX_BINDS];
	size_t nbinds;
	const char *masks[KJ_MAX_MASKS]; /* --mask, absolute */
	size_t nmasks;
	uint64_t tmp_size;

	enum kj_net_mode net;
	struct kj_limits limits;

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
	const char *seccomp_text, *seccomp_source;
	bool seccomp_builtin; /* the default policy: precompiled at build time */
};

void config_init(struct kj_config *cfg);

/* Resolve and check everything that needs the file system or the user
 * database: paths canonical and existing, binds allowed, homes found. */
int config_finish(struct kj_config *cfg, struct kj_err *err);

#endif
