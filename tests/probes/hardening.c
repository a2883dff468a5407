/* Probe for the argument checks and newer denials of the seccomp policies
 * (profiles/seccomp-default.policy, profiles/seccomp-strict.policy).
 *
 *   hardening default   checks under the default policy
 *   hardening strict    checks under --seccomp strict: every denial is
 *                       EPERM (the allow-list's default), and the calls
 *                       default allows but strict leaves out are denied
 *   hardening none      without kjail: every check that can discriminate
 *                       must fail (run by seccomp_policy.t as the proof)
 *
 * One line per check, "ok - ..." or "not ok - ...: expected X, got Y";
 * exit 0 only if every check passed. Each call uses arguments that,
 * without the filter, fail with another errno or succeed harmlessly.
 * Only libc: the probe builds with -static.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif
#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif
#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif
#ifndef AF_MCTP
#define AF_MCTP 45
#endif
#ifndef PR_SET_MM_MAP_SIZE
#define PR_SET_MM_MAP_SIZE 15
#endif

#define HI (1UL << 32) /* upper bits the kernel ignores in an int */

static long sys_result(long r) { return r == -1 ? -errno : r; }
#define SC(...) sys_result(syscall(__VA_ARGS__))

/* A socket of this kind: 0 if made (and closed), or -errno. */
static long try_socket(unsigned long family, int type, unsigned long protocol)
{
	long fd = SC(SYS_socket, family, type, protocol);

	if (fd >= 0)
		close((int)fd);
	return fd >= 0 ? 0 : fd;
}

static long try_socketpair(unsigned long family)
{
	int sv[2];
	long r = SC(SYS_socketpair, family, SOCK_STREAM, 0, sv);

	if (r == 0) {
		close(sv[0]);
		close(sv[1]);
	}
	return r;
}

/* --- families: allowed ones work, the rest are refused */
static long s_unix(void) { return try_socket(AF_UNIX, SOCK_STREAM, 0); }
static long s_inet(void) { return try_socket(AF_INET, SOCK_DGRAM, 0); }
static long s_inet6(void) { return try_socket(AF_INET6, SOCK_DGRAM, 0); }
static long s_route(void) { return try_socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE); }
static long s_inet_tcp(void) { return try_socket(AF_INET, SOCK_STREAM, 0); }
static long s_inet6_tcp(void) { return try_socket(AF_INET6, SOCK_STREAM, 0); }
/* A packet socket by AF_INET's name: EPERM (no CAP_NET_RAW) unfiltered,
 * which neither policy gives (EAFNOSUPPORT; strict's EPERM is checked
 * in the default run). */
static long s_inet_packet(void) { return try_socket(AF_INET, 10 /* SOCK_PACKET */, 0); }
static long s_inet_packet_all(void)
{
	return try_socket(AF_INET, 10, 0x300 /* htons(ETH_P_ALL) */);
}
static long s_inet_packet_fl(void) { return try_socket(AF_INET, 10 | SOCK_CLOEXEC, 0); }
static long s_mptcp(void) { return try_socket(AF_INET, SOCK_STREAM, 262 /* IPPROTO_MPTCP */); }
static long s_mptcp6(void) { return try_socket(AF_INET6, SOCK_STREAM, 262); }
static long s_mptcp_hi(void) { return try_socket(AF_INET, SOCK_STREAM, HI | 262); }
/* TCP and UDP with upper bits the kernel would drop: refused as well
 * (the protocol is compared on 64 bits, profiles/seccomp-default.policy). */
static long s_tcp_hi(void) { return try_socket(AF_INET, SOCK_STREAM, HI | 6 /* IPPROTO_TCP */); }
static long s_udp6_hi(void) { return try_socket(AF_INET6, SOCK_DGRAM, HI | 17 /* IPPROTO_UDP */); }
static long s_smc_inet(void) { return try_socket(AF_INET, SOCK_STREAM, 256 /* IPPROTO_SMC */); }
static long s_sctp(void) { return try_socket(AF_INET, SOCK_STREAM, 132 /* IPPROTO_SCTP */); }
static long s_sctp_seq(void) { return try_socket(AF_INET, SOCK_SEQPACKET, 0); }
static long s_sctp6_seq(void) { return try_socket(AF_INET6, SOCK_SEQPACKET, 0); }
static long s_dccp(void) { return try_socket(AF_INET, 6 /* SOCK_DCCP */, 0); }
static long s_dccp6(void) { return try_socket(AF_INET6, 6, 0); }
static long s_udplite(void) { return try_socket(AF_INET, SOCK_DGRAM, 136 /* IPPROTO_UDPLITE */); }
static long s_tcp6(void) { return try_socket(AF_INET6, SOCK_STREAM, 6); }
static long s_udp(void) { return try_socket(AF_INET, SOCK_DGRAM, 17); }
static long s_packet(void) { return try_socket(AF_PACKET, SOCK_DGRAM, 0); }
static long s_packet_hi(void) { return try_socket(HI | AF_PACKET, SOCK_DGRAM, 0); }
static long s_vsock(void) { return try_socket(AF_VSOCK, SOCK_STREAM, 0); }
static long s_alg(void) { return try_socket(AF_ALG, SOCK_SEQPACKET, 0); }
static long s_key(void) { return try_socket(AF_KEY, SOCK_RAW, 2 /* PF_KEY_V2 */); }
static long s_bluetooth(void) { return try_socket(AF_BLUETOOTH, SOCK_RAW, 0); }
static long s_can(void) { return try_socket(AF_CAN, SOCK_RAW, 1 /* CAN_RAW */); }
static long s_tipc(void) { return try_socket(AF_TIPC, SOCK_RDM, 0); }
static long s_rds(void) { return try_socket(AF_RDS, SOCK_SEQPACKET, 0); }
static long s_llc(void) { return try_socket(AF_LLC, SOCK_DGRAM, 0); }
static long s_nfc(void) { return try_socket(AF_NFC, SOCK_SEQPACKET, 1); }
static long s_xdp(void) { return try_socket(AF_XDP, SOCK_RAW, 0); }
static long s_mctp(void) { return try_socket(AF_MCTP, SOCK_DGRAM, 0); }
static long s_kcm(void) { return try_socket(AF_KCM, SOCK_DGRAM, 0); }
static long s_rxrpc(void) { return try_socket(AF_RXRPC, SOCK_DGRAM, AF_INET); }
static long s_smc(void) { return try_socket(AF_SMC, SOCK_STREAM, 0); }
static long s_x25(void) { return try_socket(AF_X25, SOCK_SEQPACKET, 0); }
static long s_appletalk(void) { return try_socket(AF_APPLETALK, SOCK_DGRAM, 0); }
/* netlink: only route */
static long s_diag(void) { return try_socket(AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG); }
static long s_diag_hi(void) { return try_socket(AF_NETLINK, SOCK_RAW, HI | NETLINK_SOCK_DIAG); }
static long s_audit(void) { return try_socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT); }
static long s_uevent(void) { return try_socket(AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT); }
static long s_netfilter(void) { return try_socket(AF_NETLINK, SOCK_RAW, NETLINK_NETFILTER); }
static long s_xfrm(void) { return try_socket(AF_NETLINK, SOCK_RAW, NETLINK_XFRM); }
static long s_generic(void) { return try_socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC); }
static long sp_unix(void) { return try_socketpair(AF_UNIX); }
static long sp_tipc(void) { return try_socketpair(AF_TIPC); }

/* --- prctl: PR_SET_MM_MAP_SIZE needs no capability, so without the
 * filter it succeeds */
static long p_set_mm(void)
{
	unsigned int size = 0;

	return SC(SYS_prctl, PR_SET_MM, PR_SET_MM_MAP_SIZE, &size, 0, 0);
}

static long p_set_mm_hi(void)
{
	unsigned int size = 0;

	return SC(SYS_prctl, HI | PR_SET_MM, PR_SET_MM_MAP_SIZE, &size, 0, 0);
}

static long p_get_dumpable(void) { return SC(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0); }
static long p_set_name(void) { return SC(SYS_prctl, PR_SET_NAME, "probe", 0, 0, 0); }

/* --- ioctl: fd -1 is EBADF unless the filter answers first */
static int ldisc;
static long i_tiocsetd(void) { return SC(SYS_ioctl, -1, TIOCSETD, &ldisc); }
static long i_tiocsetd_hi(void) { return SC(SYS_ioctl, -1, HI | TIOCSETD, &ldisc); }
static long i_tiocsti(void) { return SC(SYS_ioctl, -1, TIOCSTI, "x"); }
static long i_tiocsti_hi(void) { return SC(SYS_ioctl, -1, HI | TIOCSTI, "x"); }
static long i_tioclinux(void) { return SC(SYS_ioctl, -1, TIOCLINUX, "x"); }

static long i_fionread(void)
{
	int p[2], n = 0;
	long r;

	if (pipe(p) < 0)
		return -errno;
	r = SC(SYS_ioctl, p[0], FIONREAD, &n);
	close(p[0]);
	close(p[1]);
	return r;
}

static long i_tcgets(void) /* a terminal ioctl on a non-terminal: ENOTTY */
{
	char buf[64];
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	long r = SC(SYS_ioctl, fd, TCGETS, buf);

	close(fd);
	return r;
}

/* --- newer or NUMA calls the default policy denies */
static long n_process_madvise(void) { return SC(SYS_process_madvise, -1, NULL, 0, 0, 0); }
static long n_move_pages(void) { return SC(SYS_move_pages, 0, 0, NULL, NULL, NULL, 0); }
static long n_migrate_pages(void) { return SC(SYS_migrate_pages, 0, 0, NULL, NULL); }

static long n_modify_ldt(void)
{
	char buf[16];

	return SC(SYS_modify_ldt, 0, buf, sizeof(buf)); /* read: harmless */
}

static long n_memfd_secret(void) { return SC(SYS_memfd_secret, 0x40000000); }  /* bad flags */
static long n_cachestat(void) { return SC(SYS_cachestat, -1, NULL, NULL, 0); } /* EBADF */

/* --- strict only: allowed by default, left out of the allow-list */
static long x_vmsplice(void)
{
	int p[2];
	char c = 'x';
	struct iovec iov = {&c, 1};
	long r;

	if (pipe(p) < 0)
		return -errno;
	r = SC(SYS_vmsplice, p[1], &iov, 1, 0);
	close(p[0]);
	close(p[1]);
	return r < 0 ? r : 0;
}

static long x_io_setup(void)
{
	unsigned long ctx = 0;
	long r = SC(SYS_io_setup, 1, &ctx);

	if (r == 0)
		syscall(SYS_io_destroy, ctx);
	return r;
}

static long x_mq_open(void)
{
	long r = SC(SYS_mq_open, "kjail-probe", O_RDONLY, 0, NULL);

	if (r >= 0)
		close((int)r);
	return r == -ENOENT ? 0 : r; /* ENOENT: the call itself ran */
}

/* --- strict keeps the default's argument checks */
static long c_fork(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -errno;
	return 0;
}

static void *thread_main(void *arg) { return arg; }

static long c_thread(void)
{
	pthread_t t;
	int e = pthread_create(&t, NULL, thread_main, NULL);

	if (e)
		return -e;
	pthread_join(t, NULL);
	return 0;
}

static long c_clone_newuser(void) /* CLONE_THREAD without SIGHAND: EINVAL unfiltered */
{
	return SC(SYS_clone, CLONE_NEWUSER | CLONE_THREAD, 0, 0, 0, 0);
}

static long c_clone3(void) { return SC(SYS_clone3, NULL, 0); } /* EINVAL unfiltered */
static long c_pers_bsd(void) { return SC(SYS_personality, 6 /* PER_BSD */); }
static long c_pers_query(void) { return SC(SYS_personality, 0xffffffffUL); }

typedef long (*probe_fn)(void);

/* want: 0 must succeed; an errno must fail with it; NODIFF: the kernel
 * alone may give the same answer, so the check cannot fail without the
 * filter (skipped in "none" mode). */
struct check {
	const char *name;
	probe_fn fn;
	int want_default, want_strict;
	int isolate; /* run in a child (it changes the process) */
};

#define FAM EAFNOSUPPORT
#define PROTO EPROTONOSUPPORT
#define ALLOWED 0
#define DENIED_STRICT EPERM

static const struct check checks[] = {
	{"socket(AF_UNIX)", s_unix, ALLOWED, ALLOWED, 0},
	{"socket(AF_INET)", s_inet, ALLOWED, ALLOWED, 0},
	{"socket(AF_INET6)", s_inet6, ALLOWED, ALLOWED, 0},
	{"socket(AF_NETLINK, NETLINK_ROUTE)", s_route, ALLOWED, ALLOWED, 0},
	{"socket(AF_INET, SOCK_STREAM)", s_inet_tcp, ALLOWED, ALLOWED, 0},
	{"socket(AF_INET6, SOCK_STREAM)", s_inet6_tcp, ALLOWED, ALLOWED, 0},
	{"socket(AF_INET, SOCK_PACKET)", s_inet_packet, FAM, EPERM, 0},
	{"socket(AF_INET, SOCK_PACKET|SOCK_CLOEXEC)", s_inet_packet_fl, FAM, EPERM, 0},
	{"socket(AF_INET, SOCK_PACKET, ETH_P_ALL)", s_inet_packet_all, PROTO, EPERM, 0},
	{"socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)", s_mptcp, PROTO, EPERM, 0},
	{"socket(AF_INET6, SOCK_STREAM, IPPROTO_MPTCP)", s_mptcp6, PROTO, EPERM, 0},
	{"socket(AF_INET, SOCK_STREAM, 1<<32|IPPROTO_MPTCP)", s_mptcp_hi, PROTO, EPERM, 0},
	{"socket(AF_INET, SOCK_STREAM, 1<<32|IPPROTO_TCP)", s_tcp_hi, PROTO, EPERM, 0},
	{"socket(AF_INET6, SOCK_DGRAM, 1<<32|IPPROTO_UDP)", s_udp6_hi, PROTO, EPERM, 0},
	{"socket(AF_INET, SOCK_STREAM, IPPROTO_SMC)", s_smc_inet, PROTO, EPERM, 0},
	{"socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)", s_sctp, PROTO, EPERM, 0},
	{"socket(AF_INET, SOCK_SEQPACKET)", s_sctp_seq, ESOCKTNOSUPPORT, EPERM, 0},
	{"socket(AF_INET6, SOCK_SEQPACKET)", s_sctp6_seq, ESOCKTNOSUPPORT, EPERM, 0},
	{"socket(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE)", s_udplite, PROTO, EPERM, 0},
	{"socket(AF_INET, SOCK_DCCP)", s_dccp, ESOCKTNOSUPPORT, EPERM, 0},
	{"socket(AF_INET6, SOCK_DCCP)", s_dccp6, ESOCKTNOSUPPORT, EPERM, 0},
	{"socket(AF_INET6, SOCK_STREAM, IPPROTO_TCP)", s_tcp6, ALLOWED, ALLOWED, 0},
	{"socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP)", s_udp, ALLOWED, ALLOWED, 0},
	{"socket(AF_PACKET)", s_packet, FAM, EPERM, 0},
	{"socket(1<<32|AF_PACKET)", s_packet_hi, FAM, EPERM, 0},
	{"socket(AF_VSOCK)", s_vsock, FAM, EPERM, 0},
	{"socket(AF_ALG)", s_alg, FAM, EPERM, 0},
	{"socket(AF_KEY)", s_key, FAM, EPERM, 0},
	{"socket(AF_BLUETOOTH)", s_bluetooth, FAM, EPERM, 0},
	{"socket(AF_CAN)", s_can, FAM, EPERM, 0},
	{"socket(AF_TIPC)", s_tipc, FAM, EPERM, 0},
	{"socket(AF_RDS)", s_rds, FAM, EPERM, 0},
	{"socket(AF_LLC)", s_llc, FAM, EPERM, 0},
	{"socket(AF_NFC)", s_nfc, FAM, EPERM, 0},
	{"socket(AF_XDP)", s_xdp, FAM, EPERM, 0},
	{"socket(AF_MCTP)", s_mctp, FAM, EPERM, 0},
	{"socket(AF_KCM)", s_kcm, FAM, EPERM, 0},
	{"socket(AF_RXRPC)", s_rxrpc, FAM, EPERM, 0},
	{"socket(AF_SMC)", s_smc, FAM, EPERM, 0},
	{"socket(AF_X25)", s_x25, FAM, EPERM, 0},
	{"socket(AF_APPLETALK)", s_appletalk, FAM, EPERM, 0},
	{"socket(AF_NETLINK, NETLINK_SOCK_DIAG)", s_diag, PROTO, EPERM, 0},
	{"socket(AF_NETLINK, 1<<32|NETLINK_SOCK_DIAG)", s_diag_hi, PROTO, EPERM, 0},
	{"socket(AF_NETLINK, NETLINK_AUDIT)", s_audit, PROTO, EPERM, 0},
	{"socket(AF_NETLINK, NETLINK_KOBJECT_UEVENT)", s_uevent, PROTO, EPERM, 0},
	{"socket(AF_NETLINK, NETLINK_NETFILTER)", s_netfilter, PROTO, EPERM, 0},
	{"socket(AF_NETLINK, NETLINK_XFRM)", s_xfrm, PROTO, EPERM, 0},
	{"socket(AF_NETLINK, NETLINK_GENERIC)", s_generic, PROTO, EPERM, 0},
	{"socketpair(AF_UNIX)", sp_unix, ALLOWED, ALLOWED, 0},
	{"socketpair(AF_TIPC)", sp_tipc, FAM, EPERM, 0},
	{"prctl(PR_SET_MM)", p_set_mm, EPERM, EPERM, 0},
	{"prctl(1<<32|PR_SET_MM)", p_set_mm_hi, EPERM, EPERM, 0},
	{"prctl(PR_GET_DUMPABLE)", p_get_dumpable, ALLOWED, ALLOWED, 0},
	{"prctl(PR_SET_NAME)", p_set_name, ALLOWED, ALLOWED, 1},
	{"ioctl(TIOCSETD)", i_tiocsetd, EPERM, EPERM, 0},
	{"ioctl(1<<32|TIOCSETD)", i_tiocsetd_hi, EPERM, EPERM, 0},
	{"ioctl(TIOCSTI)", i_tiocsti, EPERM, EPERM, 0},
	{"ioctl(1<<32|TIOCSTI)", i_tiocsti_hi, EPERM, EPERM, 0},
	{"ioctl(TIOCLINUX)", i_tioclinux, EPERM, EPERM, 0},
	{"ioctl(FIONREAD)", i_fionread, ALLOWED, ALLOWED, 0},
	{"ioctl(TCGETS) on /dev/null", i_tcgets, ENOTTY, ENOTTY, 0},
	{"process_madvise", n_process_madvise, EPERM, EPERM, 0},
	{"move_pages", n_move_pages, EPERM, EPERM, 0},
	{"migrate_pages", n_migrate_pages, EPERM, EPERM, 0},
	{"modify_ldt", n_modify_ldt, EPERM, EPERM, 0},
	{"memfd_secret", n_memfd_secret, EPERM, EPERM, 0},
	{"cachestat", n_cachestat, EPERM, EPERM, 0},
	{"vmsplice", x_vmsplice, ALLOWED, DENIED_STRICT, 0},
	{"io_setup", x_io_setup, ALLOWED, DENIED_STRICT, 0},
	{"mq_open", x_mq_open, ALLOWED, DENIED_STRICT, 0},
	{"fork", c_fork, ALLOWED, ALLOWED, 0},
	{"pthread_create", c_thread, ALLOWED, ALLOWED, 0},
	{"clone(CLONE_NEWUSER)", c_clone_newuser, EPERM, EPERM, 0},
	{"clone3", c_clone3, ENOSYS, ENOSYS, 0},
	{"personality(PER_BSD)", c_pers_bsd, EPERM, EPERM, 1},
	{"personality(0xffffffff)", c_pers_query, ALLOWED, ALLOWED, 0},
};

static const char *errname(long e)
{
	static const struct {
		int e;
		const char *name;
	} t[] = {
#define E(x) {x, #x}
		E(EPERM),        E(ENOENT),          E(ESRCH),           E(EBADF),
		E(EAGAIN),       E(ENOMEM),          E(EACCES),          E(EFAULT),
		E(EINVAL),       E(ENOTTY),          E(ENOSYS),          E(EOPNOTSUPP),
		E(EAFNOSUPPORT), E(EPROTONOSUPPORT), E(ESOCKTNOSUPPORT), E(EPROTOTYPE),
		E(ENODEV),
#undef E
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].e == e)
			return t[i].name;
	return NULL;
}

static void describe(long r, char *buf, size_t len)
{
	const char *n = errname(-r);

	if (r >= 0)
		snprintf(buf, len, "success");
	else if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "errno %ld", -r);
}

static long in_child(probe_fn fn)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		long r = fn();
		_exit(r < 0 ? (int)(-r & 0xff) : 0);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -ECHILD;
	return -(long)WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	size_t i, failed = 0, n = sizeof(checks) / sizeof(checks[0]);
	int strict, none;
	char got[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2 ||
	    (strcmp(argv[1], "default") && strcmp(argv[1], "strict") && strcmp(argv[1], "none"))) {
		fprintf(stderr, "usage: hardening default|strict|none\n");
		return 2;
	}
	strict = !strcmp(argv[1], "strict");
	none = !strcmp(argv[1], "none");
	for (i = 0; i < n; i++) {
		const struct check *c = &checks[i];
		int want = strict ? c->want_strict : c->want_default;
		long r = c->isolate ? in_child(c->fn) : c->fn();

		describe(r, got, sizeof(got));
		if (none) {
			/* Without a filter, a denial check passes only by
			 * accident of the kernel's own answer: report those. */
			if (want && want != ENOSYS && want != ENOTTY && r == -want)
				printf("same - %s: %s without the filter too\n", c->name, got);
			continue;
		}
		if (want == 0 && r >= 0) {
			printf("ok - %s works\n", c->name);
		} else if (want && r == -want) {
			printf("ok - %s denied (%s)\n", c->name, errname(want));
		} else {
			printf("not ok - %s: expected %s, got %s\n", c->name,
			       want ? errname(want) : "success", got);
			failed++;
		}
	}
	if (!none)
		printf("# %zu checks, %zu failed\n", n, failed);
	return failed ? 1 : 0;
}
