/* The egress proxy (--net proxy) on one connection: conn_serve picks HTTP
 * (CONNECT or an absolute-URI request) or SOCKS5 by the first byte, parses
 * the request, decides against the allow-list and answers. This is the
 * code that reads what the sandbox sends, outside the sandbox.
 *
 * Input: the bytes a sandboxed client sends, then end of file.
 * The allow-list holds a name and a documentation range (192.0.2.0/24) that
 * --net-hosts maps the name into. The target runs in a network namespace of
 * its own with no interface up, so even an allowed connection goes nowhere
 * (ENETUNREACH): nothing leaves this machine, and the proxy may never
 * report a connection as made. Leaks are checked: the proxy is long-lived
 * and serves every connection of a run. */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/proxy_int.h"
#include "tests/fuzz/fuzz.h"

static struct proxy_ctx px;
static struct proxy_stats stats;
static struct hm_rule allow[2];
static const struct proxy_host_entry hosts[] = {
	{.name = "allowed.test", .family = AF_INET, .addr = {192, 0, 2, 1}},
};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const patterns[] = {"allowed.test:*", "192.0.2.0/24:*"};
	const char *why;

	(void)argc;
	(void)argv;
	/* No network: a new, empty network namespace (as root directly,
	 * else inside a new user namespace). No way out means no fuzzing. */
	if (unshare(CLONE_NEWNET) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) {
		perror("fuzz_proxy: unshare(CLONE_NEWNET)");
		abort();
	}
	for (int i = 0; i < 2; i++)
		if (hm_rule_parse(patterns[i], &allow[i], &why))
			abort();
	px.rules = (struct hm_rules){.allow = allow, .nallow = 2};
	px.hosts = hosts;
	px.nhosts = 1;
	px.log_fd = open("/dev/null", O_WRONLY | O_APPEND | O_CLOEXEC);
	px.idle_ms = 1000;
	px.stats = &stats;
	pthread_mutex_init(&px.lock, NULL);
	/* Small, so a run goes past --net-log-limit into the truncated log. */
	pthread_mutex_init(&px.log_lock, NULL);
	px.log_limit = 64 * 1024;
	for (int i = 0; i < PROXY_MAX_CONNS; i++)
		px.clients[i] = -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char sink[4096];
	int sv[2];

	if (size > 65536 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 0;
	if (size && write(sv[0], data, size) != (ssize_t)size)
		abort();
	shutdown(sv[0], SHUT_WR);
	conn_serve(&px, sv[1]); /* closes sv[1] */
	while (read(sv[0], sink, sizeof(sink)) > 0)
		;
	close(sv[0]);
	FUZZ_ASSERT(atomic_load(&stats.allowed) == 0);
	FUZZ_ASSERT(atomic_load(&stats.nshown) <= PROXY_SHOWN_HOSTS);
	FUZZ_ASSERT(px.log_used <= px.log_limit);
	return 0;
}
