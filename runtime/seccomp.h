/* Seccomp: policy files compiled to a BPF filter.
 *
 * A policy is a readable text file (profiles/seccomp-default.policy is
 * the built-in one). The parent compiles it once per run, before the
 * sandbox child is cloned; the child loads the ready BPF with a single
 * seccomp(2) call, last thing before execve.
 *
 * Policy format, one rule a line; '#' starts a comment (the reason):
 *
 *   @default allow                  first directive: allow | kill | errno:NAME
 *   mount   errno:EPERM             # reason
 *   clone   errno:EPERM  arg0&CLONE_NEWUSER==CLONE_NEWUSER   # reason
 *   ioctl   errno:EPERM  arg1&0xffffffff==TIOCSTI            # reason
 *   personality errno:EPERM arg0!=0 arg0!=0xffffffff         # reason
 *   ioctl   allow  arg1&0xffffffff!=TIOCSTI                  # allow-list form
 *
 * Actions: allow, kill (the whole process), errno:NAME, errno:NUMBER,
 * ignore (the call does nothing and returns 0: for a call a program
 * insists on, setrlimit(RLIMIT_CORE) in ssh-agent).
 * Conditions: argN==V, argN!=V, argN&MASK==V, argN&0xffffffff!=V (N 0..5;
 * V and MASK are decimal, 0x hex or a constant such as CLONE_NEWNS,
 * TIOCSTI, AF_INET, or several ORed: CLONE_NEWNS|CLONE_NEWUSER).
 * Conditions on one line are ANDed; lines for the same syscall are ORed.
 * Several != on the same argument are allowed (libseccomp allows one
 * comparison per argument, so the line is expanded into ranges).
 * An int argument (ioctl's request, socket's family, prctl's option...)
 * is read by the kernel as 32 bits while seccomp sees 64, so
 * arg1==TIOCSTI would miss 0x100005412. For those the parser accepts only
 * compares the upper half cannot dodge: a mask within 0xffffffff (==, or
 * the 32-bit != which is expanded into ranges), == in an allow rule, !=
 * in a deny rule.
 * A syscall unknown to libseccomp is an error; one it knows that the
 * native architecture lacks (umount, stime on x86_64) is skipped.
 * Syscalls of any other ABI (i386 int $0x80, x32) kill the process.
 */
#ifndef KJAIL_SECCOMP_H
#define KJAIL_SECCOMP_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

struct kj_seccomp_prog; /* compiled BPF, ready to load */

/* Parse policy_text and compile it to BPF. source names the text in
 * error messages ("<source>:<line>: <what is wrong> (<fix>)"), e.g.
 * "profiles/seccomp-default.policy" or a user's path. */
int kj_seccomp_compile(const char *policy_text, const char *source, struct kj_seccomp_prog **out,
		       struct kj_err *err);

/* Parse policy_text and check every line as kj_seccomp_compile() would,
 * without calling libseccomp (fast, no fork). A policy that passes can
 * still fail to compile: a rule conflicting with an earlier one. */
int kj_seccomp_check(const char *policy_text, const char *source, struct kj_err *err);

/* kj_seccomp_compile() for a caller's policy file: checked here, then
 * compiled by libseccomp in a child process with a CPU-time limit, so a
 * policy shape that sends libseccomp into a search of minutes (2.5.4's
 * rule tree merge, found by fuzzing) is exit 125 after a bounded time
 * instead of a hang. */
int kj_seccomp_compile_bounded(const char *policy_text, const char *source,
			       struct kj_seccomp_prog **out, struct kj_err *err);

/* Install the filter on the calling thread; the caller has already set
 * PR_SET_NO_NEW_PRIVS. No allocation: safe in a freshly forked child. */
int kj_seccomp_load(const struct kj_seccomp_prog *prog, struct kj_err *err);

/* A program from instructions compiled earlier: the built-in policy is
 * compiled once at build time (profiles/precompile.c), so a run pays no
 * compile cost for it. */
int kj_seccomp_from_bpf(const void *insns, size_t len, struct kj_seccomp_prog **out,
			struct kj_err *err);

/* Write prog as C source defining `const struct sock_filter NAME[]` and
 * `const size_t NAME_len` (used by the build). */
int kj_seccomp_write_c(const struct kj_seccomp_prog *prog, const char *name, FILE *out);

/* Number of BPF instructions (for reports and tests), and the
 * instructions themselves. */
unsigned int kj_seccomp_prog_len(const struct kj_seccomp_prog *prog);
const void *kj_seccomp_prog_insns(const struct kj_seccomp_prog *prog);

void kj_seccomp_free(struct kj_seccomp_prog *prog);

#endif
