/* Inside the cgroup module, not for other modules:
 *   cgroup.c         one run's leaf: limits before the clone, the report;
 *   cgroup_place.c   where kjail's cgroups may live, and why a controller
 *                    cannot be used there;
 *   cgroup_remove.c  removal of the leaf, and of stale ones (kjail gc);
 *   cgroup_file.c    cgroupfs file helpers. */
#ifndef KJAIL_CGROUP_INT_H
#define KJAIL_CGROUP_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum cg_ctrl { CG_MEMORY, CG_PIDS, CG_CPU, CG_NCTRL };
#define CG_BIT(c) (1u << (c))

extern const char *const cg_ctrl_name[CG_NCTRL];

/* What the leaf saw, kept for a machine-readable result. */
struct kj_cgroup_result {
	uint64_t oom_kills;   /* memory.events oom_kill */
	uint64_t pids_max;    /* pids.events max: forks refused */
	uint64_t memory_peak; /* memory.peak, bytes (Linux 5.19+) */
	bool memory_peak_known;
	uint64_t cpu_usage_us, cpu_user_us, cpu_system_us; /* cpu.stat */
	bool cpu_known;
};

struct kj_cgroup {
	int fd;              /* the leaf, for CLONE_INTO_CGROUP and reading it */
	char path[PATH_MAX]; /* the leaf, for removal */
	bool enforced[CG_NCTRL];
	const char *memory_arg, *pids_arg; /* as the user wrote them */
	bool reported;                     /* cgroup_report ran */
	struct kj_cgroup_result res;
	pid_t sweeper_pid; /* cgroup_sweep.c; 0: none */
	int sweeper_pidfd; /* valid when sweeper_pid > 0 */
	void *sweeper_map; /* its stack and arguments */
};

/* Why a controller cannot be used ("" when it can), and what to do. */
struct cg_problem {
	char why[240];
	char fix[200];
};

/* Where this run's leaf goes: <base>/kjail/run-<pid>-<random>.
 * base is the top of the hierarchy for root, and the highest cgroup
 * delegated to the caller otherwise: never kjail's own cgroup, which holds
 * processes (a cgroup with processes cannot enable controllers for its
 * children: the "no internal processes" rule). */
struct cg_place {
	bool have_mount, have_base;
	char mount[PATH_MAX]; /* the cgroup2 mount point */
	char base[PATH_MAX];  /* absolute path of the base cgroup */
	char kjail[PATH_MAX]; /* <base>/kjail */
	int basefd;           /* base (O_PATH), or -1 */
	int kjfd;             /* <base>/kjail once cg_setup made it, else -1 */
};

/* Find the cgroup2 mount and the base; for each controller in want (CG_BIT
 * mask) that cannot be used there, say why in prob[]. Writes nothing. */
void cg_locate(struct cg_place *pl, unsigned want, struct cg_problem prob[CG_NCTRL]);

/* Close the place's fds. */
void cg_place_release(struct cg_place *pl);

/* Make <base>/kjail with the controllers in want enabled for its children
 * (enabling them in base first if needed). On failure fills prob and
 * returns -errno. */
int cg_setup(struct cg_place *pl, unsigned want, struct cg_problem *prob);

/* Remove the leaves under kjfd whose creator is dead and that hold no
 * process (left by a kjail killed with SIGKILL); print each removed path
 * to out when out is not NULL. Returns how many were removed. */
int cg_reclaim(int kjfd, const char *kjail_path, FILE *out);

/* Start the leaf's sweeper (cgroup_sweep.c), which removes the leaf
 * named name in kjfd if kjail dies without removing it. 0 or -errno. */
int cg_sweeper_start(struct kj_cgroup *cg, int kjfd, const char *name);

/* kjail removed the leaf: kill and reap the sweeper. No sweeper is fine. */
void cg_sweeper_stop(struct kj_cgroup *cg);

/* Read memory.events, pids.events, memory.peak and cpu.stat into cg->res. */
void cg_collect(struct kj_cgroup *cg);

/* Small cgroupfs file helpers relative to a directory fd; -errno on error. */
int cg_read(int dirfd, const char *name, char *buf, size_t size);
int cg_write(int dirfd, const char *name, const char *text);
/* "key value" lines (memory.events, cpu.stat): value of key, or false. */
bool cg_key(const char *text, const char *key, uint64_t *val);
/* snprintf for messages and paths, where a cut is harmless (a path that
 * long fails to open). */
void cg_fmt(char *out, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A space-separated list (cgroup.controllers) contains word. */
bool cg_has_word(const char *list, const char *word);

#endif
