/* Seccomp: parse a policy file, compile it with libseccomp, load the BPF.
 * The policy format is described in seccomp.h. */
#include "seccomp.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define LINE_MAX_LEN 512    /* longer lines are an error, not truncated */
#define MAX_CONDS 8         /* conditions on one line, before != expansion */
#define MAX_EXPANDED 256    /* libseccomp rules one line may expand to */
#define ARG_MAX_INDEX 5     /* seccomp sees six syscall arguments */
#define MAX_SYSCALL_NR 1024 /* native numbers tracked per policy (x86_64: < 512) */

struct kj_seccomp_prog {
	unsigned short len;         /* instructions */
	struct sock_filter insns[]; /* as exported by libseccomp */
};

struct named {
	const char *name;
	uint64_t value;
};

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262 /* linux/in.h, 5.6 */
#endif
#ifndef IPPROTO_SMC
#define IPPROTO_SMC 256 /* linux/in.h, 6.11 */
#endif

/* Tables of names, laid out by hand. */
/* clang-format off */
#define N(x) { #x, (uint64_t)(x) }

static const struct named errno_names[] = {
	N(EPERM), N(EACCES), N(ENOSYS), N(EINVAL), N(ENOENT), N(EIO),
	N(ENOTTY), N(EROFS), N(ENODEV), N(EAFNOSUPPORT), N(EPROTONOSUPPORT),
	N(EOPNOTSUPP), N(ESOCKTNOSUPPORT), { NULL, 0 },
};

static const struct named constants[] = {
	N(CLONE_NEWNS), N(CLONE_NEWCGROUP), N(CLONE_NEWUTS), N(CLONE_NEWIPC),
	N(CLONE_NEWUSER), N(CLONE_NEWPID), N(CLONE_NEWNET), N(CLONE_NEWTIME),
	N(CLONE_VM), N(CLONE_THREAD), N(CLONE_VFORK),
	N(TIOCSTI), N(TIOCLINUX), N(TIOCSETD),
	N(AF_UNSPEC), N(AF_UNIX), N(AF_INET), N(AF_INET6), N(AF_NETLINK), N(AF_PACKET),
	N(AF_KEY), N(AF_ALG), N(AF_VSOCK), N(AF_BLUETOOTH), N(AF_CAN), N(AF_TIPC),
	N(AF_RDS), N(AF_LLC), N(AF_NFC), N(AF_XDP), N(AF_MCTP), N(AF_KCM),
	N(AF_RXRPC), N(AF_SMC), N(AF_QIPCRTR), N(AF_X25), N(AF_AX25), N(AF_APPLETALK),
	N(NETLINK_ROUTE), N(NETLINK_SOCK_DIAG), N(NETLINK_AUDIT), N(NETLINK_KOBJECT_UEVENT),
	N(SOCK_STREAM), N(SOCK_DGRAM), N(SOCK_RAW), N(SOCK_SEQPACKET), N(SOCK_PACKET),
	N(SOCK_DCCP), N(SOCK_RDM),
	N(IPPROTO_TCP), N(IPPROTO_UDP), N(IPPROTO_ICMP), N(IPPROTO_ICMPV6),
	N(IPPROTO_MPTCP), N(IPPROTO_SMC), N(IPPROTO_SCTP),
	N(F_SETLEASE), N(RLIMIT_CORE),
	N(PR_SET_MM), N(PR_SET_PTRACER), N(PR_SET_SECCOMP), N(PR_SET_NO_NEW_PRIVS),
	N(PER_LINUX), N(PER_LINUX32), N(ADDR_NO_RANDOMIZE),
	N(READ_IMPLIES_EXEC), N(MMAP_PAGE_ZERO), { NULL, 0 },
};
/* clang-format on */

/* Syscalls newer than the libseccomp we may be built against (2.5.4
 * does not know them). Native numbers; libseccomp's own name wins. */
static const struct named late_syscalls[] = {
#if defined(__x86_64__)
	{"futex_wake", 454}, /* Linux 6.7 */
	{"futex_wait", 455},
	{"futex_requeue", 456},
	{"statmount", 457}, /* Linux 6.8 */
	{"listmount", 458},
	{"lsm_get_self_attr", 459},
	{"lsm_set_self_attr", 460},
	{"lsm_list_modules", 461},
	{"mseal", 462},      /* Linux 6.10 */
	{"setxattrat", 463}, /* Linux 6.13 */
	{"getxattrat", 464},
	{"listxattrat", 465},
	{"removexattrat", 466},
	{"open_tree_attr", 467}, /* Linux 6.15 */
	{"file_getattr", 468},   /* Linux 6.17 */
	{"file_setattr", 469},
#endif
	{NULL, 0},
};

struct policy {
	const char *source;
	unsigned int line;
	bool build;          /* false: check the text only, libseccomp is not called */
	bool have_default;   /* the @default line was read */
	scmp_filter_ctx ctx; /* with build, from the @default line on */
	uint32_t def_action;
	struct kj_err *err;
	unsigned int nrules; /* libseccomp rules added so far */
	/* Per native syscall number: the actions its lines use, and whether
	 * one of them has no condition (see note_action). */
	struct {
		bool seen, mixed, uncond;
		uint32_t act;
	} sys[MAX_SYSCALL_NR];
};

/* libseccomp's rule database grows worse than linearly: a policy that
 * expands to thousands of rules (many != values) would take seconds to
 * compile, and a policy file is caller input. */
#define MAX_POLICY_RULES 1024

static int bad(struct policy *p, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "<source>:<line>: <what>" with part "seccomp": exit 125. */
static int bad(struct policy *p, const char *fix, const char *fmt, ...)
{
	char what[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return kj_fail(p->err, "seccomp", 0, fix, "%s:%u: %s", p->source, p->line, what);
}

static const struct named *lookup(const struct named *t, const char *name)
{
	for (; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

/* Decimal or 0x hex, all of the string, no sign, no overflow. */
static int parse_number(const char *s, uint64_t *v)
{
	int base = 10;
	const char *digits = "0123456789";
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
		digits = "0123456789abcdefABCDEF";
	}
	if (!*s || s[strspn(s, digits)] != '\0')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

static int parse_one_value(struct policy *p, const char *s, uint64_t *v)
{
	const struct named *c = lookup(constants, s);

	if (c) {
		*v = c->value;
		return 0;
	}
	if (parse_number(s, v) == 0)
		return 0;
	return bad(
		p,
		"use decimal, 0x hex or a known constant such as CLONE_NEWUSER, TIOCSTI, AF_INET, PER_LINUX",
		"unknown value '%s'", s);
}

/* A value, or several ORed: CLONE_NEWNS|CLONE_NEWUSER|0x100. */
static int parse_value(struct policy *p, const char *s, uint64_t *v)
{
	char buf[LINE_MAX_LEN], *save = NULL, *part;
	uint64_t one = 0;
	int rc;

	snprintf(buf, sizeof(buf), "%s", s);
	if (!*s || s[0] == '|' || s[strlen(s) - 1] == '|' || strstr(s, "||"))
		return bad(p, "write A|B|C", "bad value '%s'", s);
	*v = 0;
	for (part = strtok_r(buf, "|", &save); part; part = strtok_r(NULL, "|", &save)) {
		if ((rc = parse_one_value(p, part, &one)) < 0)
			return rc;
		*v |= one;
	}
	return 0;
}

/* The ignore action: errno 0, so the call returns 0 and does nothing. */
#define ACT_IGNORE SCMP_ACT_ERRNO(0)

static int parse_action(struct policy *p, const char *s, uint32_t *act)
{
	const struct named *e;
	uint64_t n;

	if (strcmp(s, "allow") == 0) {
		*act = SCMP_ACT_ALLOW;
		return 0;
	}
	if (strcmp(s, "kill") == 0) {
		/* Whole process: a killed thread would leave the rest running. */
		*act = SCMP_ACT_KILL_PROCESS;
		return 0;
	}
	if (strcmp(s, "ignore") == 0) {
		/* Said by name, never as errno:0, so success is not faked by
		 * a typo. */
		*act = ACT_IGNORE;
		return 0;
	}
	if (strncmp(s, "errno:", 6) == 0) {
		if ((e = lookup(errno_names, s + 6)))
			n = e->value;
		else if (parse_number(s + 6, &n) < 0)
			return bad(p, "use a name such as EPERM or ENOSYS, or a number",
				   "unknown errno '%s'", s + 6);
		/* errno 0 fakes success (write ignore); above 4095 is not
		 * an errno. */
		if (n < 1 || n > 4095)
			return bad(p, "use an errno between 1 and 4095 (ignore fakes success)",
				   "errno %llu out of range", (unsigned long long)n);
		*act = SCMP_ACT_ERRNO((uint32_t)n);
		return 0;
	}
	return bad(p, "use allow, kill, ignore or errno:NAME", "unknown action '%s'", s);
}

/* argN==V, argN!=V or argN&MASK==V. */
static int parse_cond(struct policy *p, const char *tok, struct scmp_arg_cmp *c)
{
	char buf[LINE_MAX_LEN];
	char *s, *op, *eq, *ne;
	uint64_t mask = 0, value = 0;
	int rc;

	snprintf(buf, sizeof(buf), "%s", tok);
	if (strncmp(buf, "arg", 3) != 0 || !isdigit((unsigned char)buf[3]))
		return bad(p, "write argN==V, argN!=V or argN&MASK==V", "bad condition '%s'", tok);
	if (buf[3] - '0' > ARG_MAX_INDEX || isdigit((unsigned char)buf[4]))
		return bad(p, "seccomp sees arguments arg0 to arg5",
			   "argument index in '%s' out of range", tok);
	s = buf + 4;
	eq = strstr(s, "==");
	ne = strstr(s, "!=");
	op = eq && (!ne || eq < ne) ? eq : ne;
	if (!op || (*s != '&' && s != op))
		return bad(p, "write argN==V, argN!=V or argN&MASK==V", "bad condition '%s'", tok);
	memset(c, 0, sizeof(*c));
	c->arg = (unsigned int)(buf[3] - '0');
	c->op = op == ne ? SCMP_CMP_NE : SCMP_CMP_EQ;
	if (*s == '&') {
		*op = '\0';
		if ((rc = parse_value(p, s + 1, &mask)) < 0)
			return rc;
		/* The one masked != there is: a 32-bit argument, expanded into
		 * ranges by add_rule (datum_b carries the mask). */
		if (op == ne && mask != 0xffffffff)
			return bad(
				p,
				"libseccomp has no masked !=; use argN&0xffffffff!=V, or list the == cases as separate lines",
				"'%s': argN&MASK!=V is not supported", tok);
		c->op = op == ne ? SCMP_CMP_NE : SCMP_CMP_MASKED_EQ;
		c->datum_b = op == ne ? mask : 0;
	}
	if ((rc = parse_value(p, op + 2, &value)) < 0)
		return rc;
	if (c->op == SCMP_CMP_NE && c->datum_b && (value & ~c->datum_b))
		return bad(p, "the value must be a subset of the mask",
			   "'%s': value has bits outside the mask", tok);
	if (c->op == SCMP_CMP_MASKED_EQ) {
		/* A value with bits outside the mask can never match: the
		 * rule would silently deny nothing. */
		if (value & ~mask)
			return bad(p, "the value must be a subset of the mask",
				   "'%s': value has bits outside the mask", tok);
		c->datum_a = mask;
		c->datum_b = value;
	} else {
		c->datum_a = value;
	}
	return 0;
}

/* The kernel reads ioctl's request as 32 bits but seccomp sees all 64:
 * arg1==TIOCSTI is dodged by passing 0x100005412 (CVE-2017-5226 class).
 * The same holds for every int argument, and most are (socket's family,
 * prctl's option, kill's signal, setns's nstype, fcntl's command...): a
 * list of the int ones missed kill's `arg1==10`, dodged with 0x10000000a.
 * So every argument is held to it. A compare is safe when the upper bits
 * cannot help the caller: a mask within the low 32 bits; == in an allow
 * rule (garbage above matches nothing, so it is refused); != in a deny
 * rule (garbage above is denied too). On an argument that really is 64
 * bits (a pointer, a size), a low-32-bit mask in a deny rule matches more
 * than asked: more is refused, never less. */
static int check_int32_cond(struct policy *p, const char *name, uint32_t act,
			    const struct scmp_arg_cmp *c)
{
	bool allow = act == SCMP_ACT_ALLOW;

	if (c->op == SCMP_CMP_MASKED_EQ && !(c->datum_a >> 32))
		return 0;
	if (c->op == SCMP_CMP_NE && c->datum_b == 0xffffffff)
		return 0;
	if ((c->op == SCMP_CMP_EQ && allow) || (c->op == SCMP_CMP_NE && !allow))
		return 0;
	if (!strcmp(name, "ioctl"))
		return bad(
			p, "write arg1&0xffffffff==VALUE",
			"ioctl request compared on 64 bits: the kernel reads 32, so upper bits would slip past");
	return bad(
		p, "write argN&0xffffffff==V or argN&0xffffffff!=V",
		"%s arg%u compared on 64 bits: the kernel reads most arguments as 32-bit ints and ignores the upper half, so upper bits would slip past",
		name, c->arg);
}

/* Prefix-split [lo, hi] into masked == compares (lo > 0 here). */
static int add_range(struct scmp_arg_cmp *alt, int n, unsigned int arg, uint64_t lo, uint64_t hi)
{
	for (;;) {
		int k = lo ? __builtin_ctzll(lo) : 63;
		uint64_t span;

		while ((span = (1ULL << k) - 1) > hi - lo)
			k--;
		if (n == MAX_EXPANDED)
			return -1;
		alt[n++] = (struct scmp_arg_cmp){arg, SCMP_CMP_MASKED_EQ, ~span, lo};
		if (hi - lo == span)
			return n;
		lo += span + 1;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* libseccomp compares each argument at most once per rule, so
 * "x != a AND x != b" becomes the OR of x<a, the ranges between the
 * values, and x>b. Returns the number of alternatives or -1. */
static int expand_ne(const uint64_t *vals, int nvals, unsigned int arg, struct scmp_arg_cmp *alt)
{
	uint64_t v[MAX_CONDS];
	int n = 0, i;

	memcpy(v, vals, sizeof(*v) * nvals);
	qsort(v, nvals, sizeof(*v), cmp_u64);
	if (v[0] > 0)
		alt[n++] = (struct scmp_arg_cmp){arg, SCMP_CMP_LT, v[0], 0};
	for (i = 0; i + 1 < nvals; i++)
		if (v[i] + 1 < v[i + 1] && (n = add_range(alt, n, arg, v[i] + 1, v[i + 1] - 1)) < 0)
			return -1;
	if (v[nvals - 1] < UINT64_MAX) {
		if (n == MAX_EXPANDED)
			return -1;
		alt[n++] = (struct scmp_arg_cmp){arg, SCMP_CMP_GT, v[nvals - 1], 0};
	}
	return n;
}

/* argN&0xffffffff != each of vals: the ranges of the low 32 bits between
 * them, each a prefix split into masked == compares that ignore the upper
 * half as the kernel does. Returns the number of alternatives or -1. */
static int add_range32(struct scmp_arg_cmp *alt, int n, unsigned int arg, uint64_t lo, uint64_t hi)
{
	for (;;) {
		int k = lo ? __builtin_ctzll(lo) : 32;
		uint64_t span;

		while ((span = (1ULL << k) - 1) > hi - lo)
			k--;
		if (n == MAX_EXPANDED)
			return -1;
		alt[n++] =
			(struct scmp_arg_cmp){arg, SCMP_CMP_MASKED_EQ, 0xffffffffULL & ~span, lo};
		if (hi - lo == span)
			return n;
		lo += span + 1;
	}
}

static int expand_ne32(const uint64_t *vals, int nvals, unsigned int arg, struct scmp_arg_cmp *alt)
{
	uint64_t v[MAX_CONDS], lo = 0;
	int n = 0, i;

	memcpy(v, vals, sizeof(*v) * nvals);
	qsort(v, nvals, sizeof(*v), cmp_u64);
	for (i = 0; i < nvals && n >= 0; i++) {
		if (v[i] > lo)
			n = add_range32(alt, n, arg, lo, v[i] - 1);
		if (v[i] >= lo)
			lo = v[i] + 1;
	}
	if (n >= 0 && lo <= 0xffffffff)
		n = add_range32(alt, n, arg, lo, 0xffffffff);
	return n;
}

/* After the structure of the line was checked (so that its own error
 * wins): every int argument compared safely. */
static int check_int32_conds(struct policy *p, const char *name, uint32_t act,
			     const struct scmp_arg_cmp *c, int n)
{
	for (int i = 0; i < n; i++) {
		int rc = check_int32_cond(p, name, act, &c[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int add_one(struct policy *p, const char *name, int nr, uint32_t act, unsigned int n,
		   const struct scmp_arg_cmp *c)
{
	int rc;

	if (++p->nrules > MAX_POLICY_RULES)
		return bad(p, "use fewer rules or fewer != values",
			   "the policy expands to more than %d rules", MAX_POLICY_RULES);
	if (!p->build)
		return 0;
	rc = seccomp_rule_add_array(p->ctx, act, nr, n, c);
	if (rc == -EEXIST)
		return bad(p, "give overlapping rules for a syscall the same action",
			   "%s: conflicts with an earlier rule", name);
	if (rc < 0)
		return bad(p, NULL, "%s: libseccomp rejected the rule: %s", name, strerror(-rc));
	return 0;
}

static int add_rule(struct policy *p, const char *name, int nr, uint32_t act,
		    const struct scmp_arg_cmp *c, int n)
{
	struct scmp_arg_cmp alt[MAX_EXPANDED];
	struct scmp_arg_cmp base[MAX_CONDS];
	uint64_t ne[MAX_CONDS];
	int count[ARG_MAX_INDEX + 1] = {0};
	int i, nb = 0, nne = 0, nmasked = 0, nalt, rep = -1, rc;

	/* An argument compared more than once, or with a masked != (which
	 * libseccomp lacks), is expanded into alternatives. */
	int ne_arg = -1;

	for (i = 0; i < n; i++)
		count[c[i].arg] += c[i].op == SCMP_CMP_NE && c[i].datum_b ? 2 : 1;
	for (i = 0; i <= ARG_MAX_INDEX; i++) {
		if (count[i] < 2)
			continue;
		if (rep >= 0)
			return bad(p, "split the line",
				   "only one argument may be compared more than once");
		rep = i;
	}
	/* != on two arguments of one rule sends libseccomp 2.5 into a search
	 * that takes minutes (found by fuzzing): refuse it. */
	for (i = 0; i < n; i++) {
		if (c[i].op != SCMP_CMP_NE)
			continue;
		if (ne_arg >= 0 && ne_arg != (int)c[i].arg)
			return bad(p, "compare at most one argument with !=",
				   "!= on arg%d and arg%u in one rule", ne_arg, c[i].arg);
		ne_arg = (int)c[i].arg;
	}
	if (rep < 0)
		return (rc = check_int32_conds(p, name, act, c, n)) < 0
			       ? rc
			       : add_one(p, name, nr, act, (unsigned int)n, c);
	for (i = 0; i < n; i++) {
		if ((int)c[i].arg != rep) {
			base[nb++] = c[i];
		} else if (c[i].op == SCMP_CMP_NE) {
			ne[nne++] = c[i].datum_a;
			nmasked += c[i].datum_b != 0;
		} else {
			return bad(p, "only != may repeat on one argument",
				   "arg%d is compared more than once", rep);
		}
	}
	if (nmasked && nmasked != nne)
		return bad(p, "write every != on the argument the same way",
			   "arg%d mixes argN!=V and argN&0xffffffff!=V", rep);
	if ((rc = check_int32_conds(p, name, act, c, n)) < 0)
		return rc;
	nalt = nmasked ? expand_ne32(ne, nne, (unsigned int)rep, alt)
		       : expand_ne(ne, nne, (unsigned int)rep, alt);
	if (nalt < 0)
		return bad(p, "use fewer != values", "conditions expand to more than %d rules",
			   MAX_EXPANDED);
	for (i = 0; i < nalt; i++) {
		base[nb] = alt[i];
		if ((rc = add_one(p, name, nr, act, (unsigned int)nb + 1, base)) < 0)
			return rc;
	}
	return 0;
}

static int resolve_syscall(const char *name)
{
	const struct named *late;
	int nr = seccomp_syscall_resolve_name(name);

	if (nr != __NR_SCMP_ERROR)
		return nr; /* < 0: libseccomp knows it, this arch lacks it */
	late = lookup(late_syscalls, name);
	return late ? (int)late->value : __NR_SCMP_ERROR;
}

/* libseccomp keeps only the unconditional rule of a syscall that also
 * has rules with conditions and another action, in either order: with
 * `ioctl allow` and `ioctl kill arg1&0xffffffff==TIOCSTI` in an allow-list
 * TIOCSTI was allowed (terminal injection, CVE-2017-5226), the kill line
 * silently dropped. A line that does nothing is refused, as an action
 * equal to @default is. */
static int note_action(struct policy *p, const char *name, int nr, uint32_t act, int nconds)
{
	if (nr >= MAX_SYSCALL_NR)
		return 0;
	if (p->sys[nr].seen && p->sys[nr].act != act)
		p->sys[nr].mixed = true;
	if (!p->sys[nr].seen)
		p->sys[nr].act = act;
	p->sys[nr].seen = true;
	p->sys[nr].uncond |= nconds == 0;
	if (p->sys[nr].mixed && p->sys[nr].uncond)
		return bad(
			p, "give every line of the syscall conditions, or one action",
			"'%s': a line without conditions and a line with another action: libseccomp keeps only the one without, so the other would do nothing",
			name);
	return 0;
}

static int parse_rule(struct policy *p, char **tok, int ntok)
{
	struct scmp_arg_cmp c[MAX_CONDS];
	uint32_t act;
	int nr, i, rc;

	if (!p->have_default)
		return bad(p, "start the policy with '@default <action>'",
			   "rule before the @default line");
	if (ntok < 2)
		return bad(p, "write: <syscall> <action> [conditions] # reason",
			   "'%s': missing action", tok[0]);
	if (ntok - 2 > MAX_CONDS)
		return bad(p, "split the line", "more than %d conditions", MAX_CONDS);
	nr = resolve_syscall(tok[0]);
	if (nr == __NR_SCMP_ERROR)
		return bad(p, "check the spelling; see syscalls(2)", "unknown syscall '%s'",
			   tok[0]);
	if ((rc = parse_action(p, tok[1], &act)) < 0)
		return rc;
	if (act == p->def_action)
		return bad(p, "remove the line or change its action",
			   "'%s': action is the same as @default, so the rule does nothing",
			   tok[0]);
	for (i = 2; i < ntok; i++) {
		if ((rc = parse_cond(p, tok[i], &c[i - 2])) < 0)
			return rc;
	}
	if (nr < 0)
		return 0; /* e.g. umount on x86_64: nothing to filter */
	if ((rc = note_action(p, tok[0], nr, act, ntok - 2)) < 0)
		return rc;
	return add_rule(p, tok[0], nr, act, c, ntok - 2);
}

static int parse_default(struct policy *p, char **tok, int ntok)
{
	int rc;

	if (p->have_default)
		return bad(p, "keep one @default line, first", "duplicate @default");
	if (ntok != 2)
		return bad(p, "write: @default allow | kill | errno:NAME",
			   "@default takes exactly one action");
	if ((rc = parse_action(p, tok[1], &p->def_action)) < 0)
		return rc;
	/* Every call unlisted (seccomp, landlock_restrict_self, setuid...)
	 * would report success having done nothing: a program would believe
	 * it had dropped privileges or sandboxed itself. */
	if (p->def_action == ACT_IGNORE)
		return bad(p, "name the calls to ignore one by one",
			   "@default ignore would fake success for every call not listed");
	p->have_default = true;
	if (!p->build)
		return 0;
	p->ctx = seccomp_init(p->def_action);
	if (!p->ctx)
		return kj_fail(p->err, "seccomp", ENOMEM, NULL, "%s: seccomp_init failed",
			       p->source);
	/* The ctx holds only the native arch, so an i386 syscall (int $0x80)
	 * or an x32 one (nr | 0x40000000) would dodge every rule, its numbers
	 * meaning other syscalls: kill the process instead. */
	rc = seccomp_attr_set(p->ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0)
		return kj_fail(p->err, "seccomp", -rc, "libseccomp 2.4 or newer is needed",
			       "cannot set the bad-architecture action");
	/* A binary tree of syscall numbers instead of a linear scan: the
	 * kernel's load of the filter (paid on every start) halves. */
	(void)seccomp_attr_set(p->ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	return 0;
}

static int parse_line(struct policy *p, char *line)
{
	char *tok[2 + MAX_CONDS + 1], *save = NULL, *t;
	int ntok = 0;

	line[strcspn(line, "#")] = '\0'; /* the rest is the reason */
	for (t = strtok_r(line, " \t\r\v\f", &save); t; t = strtok_r(NULL, " \t\r\v\f", &save)) {
		if (ntok == (int)(sizeof(tok) / sizeof(tok[0])))
			return bad(p, "split the line", "more than %d conditions", MAX_CONDS);
		tok[ntok++] = t;
	}
	if (ntok == 0)
		return 0;
	if (tok[0][0] != '@')
		return parse_rule(p, tok, ntok);
	if (strcmp(tok[0], "@default") == 0)
		return parse_default(p, tok, ntok);
	return bad(p, "the only directive is @default", "unknown directive '%s'", tok[0]);
}

static int export_bpf(struct policy *p, struct kj_seccomp_prog **out)
{
	struct kj_seccomp_prog *prog;
	size_t size, done = 0;
	ssize_t n;
	off_t end;
	int fd, rc;

	/* libseccomp 2.5 has no seccomp_export_bpf_mem: go through a memfd. */
	fd = memfd_create("kjail-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return kj_fail(p->err, "seccomp", errno, NULL,
			       "cannot create a memfd for the filter");
	rc = seccomp_export_bpf(p->ctx, fd);
	end = lseek(fd, 0, SEEK_END);
	if (rc < 0 || end < 0) {
		close(fd);
		return kj_fail(p->err, "seccomp", rc < 0 ? -rc : errno, NULL,
			       "%s: cannot generate the BPF filter", p->source);
	}
	size = (size_t)end;
	if (size == 0 || size % sizeof(struct sock_filter) ||
	    size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		close(fd);
		return kj_fail(p->err, "seccomp", 0, "shorten the policy",
			       "%s: filter has %zu bytes, not 1 to %d instructions", p->source,
			       size, BPF_MAXINSNS);
	}
	prog = malloc(sizeof(*prog) + size);
	if (!prog) {
		close(fd);
		return kj_fail(p->err, "seccomp", ENOMEM, NULL, "cannot hold the filter");
	}
	prog->len = (unsigned short)(size / sizeof(struct sock_filter));
	while (done < size) {
		n = pread(fd, (char *)prog->insns + done, size - done, (off_t)done);
		if (n <= 0) {
			rc = n < 0 ? errno : EIO;
			free(prog);
			close(fd);
			return kj_fail(p->err, "seccomp", rc, NULL, "cannot read the filter back");
		}
		done += (size_t)n;
	}
	close(fd);
	*out = prog;
	return 0;
}

static int compile(const char *policy_text, const char *source, bool build,
		   struct kj_seccomp_prog **out, struct kj_err *err)
{
	struct policy p = {.source = source, .err = err, .build = build};
	char line[LINE_MAX_LEN];
	const char *s = policy_text, *eol;
	size_t len;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!s)
		return kj_fail(err, "seccomp", 0, "rebuild kjail", "%s: no policy text", source);
	while (*s && rc == 0) {
		p.line++;
		eol = strchrnul(s, '\n');
		len = (size_t)(eol - s);
		if (len >= sizeof(line)) {
			rc = bad(&p, "split the line", "line longer than %d bytes",
				 LINE_MAX_LEN - 1);
			break;
		}
		memcpy(line, s, len);
		line[len] = '\0';
		rc = parse_line(&p, line);
		s = *eol ? eol + 1 : eol;
	}
	if (rc == 0 && !p.have_default) {
		p.line = p.line ? p.line : 1;
		rc = bad(&p, "start the policy with '@default <action>'", "no @default line");
	}
	if (rc == 0 && build)
		rc = export_bpf(&p, out);
	if (p.ctx)
		seccomp_release(p.ctx);
	return rc;
}

int kj_seccomp_compile(const char *policy_text, const char *source, struct kj_seccomp_prog **out,
		       struct kj_err *err)
{
	return compile(policy_text, source, true, out, err);
}

int kj_seccomp_check(const char *policy_text, const char *source, struct kj_err *err)
{
	return compile(policy_text, source, false, NULL, err);
}

int kj_seccomp_load(const struct kj_seccomp_prog *prog, struct kj_err *err)
{
	struct sock_fprog fprog;
	int e;

	if (!prog)
		return kj_fail(err, "seccomp", EINVAL, NULL, "no filter to load");
	fprog.len = prog->len;
	fprog.filter = (struct sock_filter *)prog->insns; /* the kernel copies it */
	/* Flags 0: the child is single-threaded, so no TSYNC is needed. */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) == 0)
		return 0;
	e = errno;
	if (e == EACCES)
		return kj_fail(err, "seccomp", e, "set PR_SET_NO_NEW_PRIVS first",
			       "cannot load the syscall filter");
	return kj_fail(err, "seccomp", e, "the kernel needs CONFIG_SECCOMP_FILTER",
		       "cannot load the syscall filter");
}

int kj_seccomp_from_bpf(const void *insns, size_t len, struct kj_seccomp_prog **out,
			struct kj_err *err)
{
	struct kj_seccomp_prog *prog;

	if (len == 0 || len > BPF_MAXINSNS)
		return kj_fail(err, "seccomp", EINVAL, "rebuild kjail", "bad precompiled filter");
	prog = malloc(sizeof(*prog) + len * sizeof(struct sock_filter));
	if (!prog)
		return kj_fail(err, "seccomp", ENOMEM, NULL, "cannot hold the filter");
	prog->len = (unsigned short)len;
	memcpy(prog->insns, insns, len * sizeof(struct sock_filter));
	*out = prog;
	return 0;
}

int kj_seccomp_write_c(const struct kj_seccomp_prog *prog, const char *name, FILE *out)
{
	fprintf(out,
		"/* generated by profiles/precompile.c: do not edit */\n"
		"#include <linux/filter.h>\n#include <stddef.h>\n"
		"const struct sock_filter %s[] = {\n",
		name);
	for (unsigned i = 0; i < prog->len; i++)
		fprintf(out, "\t{0x%04x, %u, %u, 0x%08x},\n", prog->insns[i].code,
			prog->insns[i].jt, prog->insns[i].jf, prog->insns[i].k);
	fprintf(out, "};\nconst size_t %s_len = %u;\n", name, prog->len);
	return ferror(out) ? -EIO : 0;
}

unsigned int kj_seccomp_prog_len(const struct kj_seccomp_prog *prog)
{
	return prog ? prog->len : 0;
}

const void *kj_seccomp_prog_insns(const struct kj_seccomp_prog *prog)
{
	return prog->insns;
}

void kj_seccomp_free(struct kj_seccomp_prog *prog)
{
	free(prog);
}
