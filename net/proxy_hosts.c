/* Name resolution for the proxy: --net-hosts first (lines "ADDRESS NAME
 * [NAME...]" like /etc/hosts, read by kjail before the proxy starts),
 * else the host's resolver, in the host's network context. The sandbox
 * never resolves anything itself: it has no route to a resolver.
 *
 * The host's resolver: /etc/hosts (read here, when nsswitch.conf's hosts
 * line names files), then the name in its absolute form ("NAME.") through
 * getaddrinfo when that line names only glibc's built-in services (files,
 * dns: Debian's and most servers' default), else through getent ahosts,
 * so that no NSS module (mdns, resolve, myhostname...) is ever loaded
 * into the static kjail (runtime/getent.c says why).
 *
 * Exactly the name the rules were checked on is resolved, never another:
 * a relative name gets resolv.conf's search list appended (on NXDOMAIN,
 * or first when it has fewer dots than ndots), so with "search corp.test"
 * an allowed "secret.example.test" reached "secret.example.test.corp.test"
 * past --deny-host '*.corp.test'. The absolute name has no search list.
 * glibc's files service does not match "NAME." against an /etc/hosts line
 * for NAME, hence the file is read here first, with the plain name. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "net/proxy.h"
#include "net/proxy_int.h"
#include "runtime/getent.h"

#define HOSTS_MAX_ENTRIES 4096
/* getent processes of one proxy at once (see hosts_getent). */
#define HOSTS_GETENT_MAX 16

static int add_entry(struct proxy_host_entry **v, size_t *n, const char *name, int family,
		     const unsigned char *addr)
{
	struct proxy_host_entry *e;

	if (*n == HOSTS_MAX_ENTRIES)
		return -E2BIG;
	if (*n % 64 == 0) {
		e = realloc(*v, (*n + 64) * sizeof(**v));
		if (!e)
			return -ENOMEM;
		*v = e;
	}
	e = &(*v)[(*n)++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->family = family;
	memcpy(e->addr, addr, 16);
	return 0;
}

int proxy_hosts_load(const char *path, struct proxy_host_entry **out, size_t *count,
		     struct kj_err *err)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	unsigned lineno = 0;
	size_t n = 0;
	struct proxy_host_entry *v = NULL;

	if (!f)
		return kj_fail(err, "net", errno, NULL, "--net-hosts %s", path);
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *word, *hash = strchr(line, '#');
		unsigned char addr[16] = {0};
		int family, names = 0, rc;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			kj_fail(err, "net", 0, "keep lines under 1024 characters",
				"--net-hosts %s:%u: line too long", path, lineno);
			goto fail;
		}
		if (hash)
			*hash = '\0';
		word = strtok_r(line, " \t\r\n", &save);
		if (!word)
			continue;
		family = strchr(word, ':') ? AF_INET6 : AF_INET;
		if (inet_pton(family, word, addr) != 1) {
			kj_fail(err, "net", 0, "write ADDRESS NAME [NAME...] lines",
				"--net-hosts %s:%u: '%s' is not an IP address", path, lineno, word);
			goto fail;
		}
		while ((word = strtok_r(NULL, " \t\r\n", &save))) {
			char name[HM_NAME_MAX + 1];
			const char *why;
			if (hm_name_normalize(word, strlen(word), name, &why)) {
				kj_fail(err, "net", 0, "write plain DNS names",
					"--net-hosts %s:%u: '%s': %s", path, lineno, word, why);
				goto fail;
			}
			if ((rc = add_entry(&v, &n, name, family, addr))) {
				kj_fail(err, "net", -rc, NULL, "--net-hosts %s:%u", path, lineno);
				goto fail;
			}
			names++;
		}
		if (!names) {
			kj_fail(err, "net", 0, "write ADDRESS NAME [NAME...] lines",
				"--net-hosts %s:%u: no name", path, lineno);
			goto fail;
		}
	}
	fclose(f);
	*out = v;
	*count = n;
	return 0;
fail:
	fclose(f);
	free(v);
	return -EINVAL;
}

static bool builtin_only = true, uses_files = true;
static pthread_once_t nsswitch_once = PTHREAD_ONCE_INIT;

static void read_nsswitch(void)
{
	char line[1024];
	FILE *f = fopen("/etc/nsswitch.conf", "re");

	/* No file, or no hosts line: glibc's default is dns, then files. */
	while (f && fgets(line, sizeof(line), f)) {
		char *save = NULL, *t = strtok_r(line, " \t\n", &save);
		if (!t || strcmp(t, "hosts:"))
			continue;
		uses_files = false;
		while ((t = strtok_r(NULL, " \t\n", &save)) && t[0] != '#') {
			if (!strcmp(t, "files"))
				uses_files = true;
			else if (t[0] != '[' && strcmp(t, "dns"))
				builtin_only = false;
		}
	}
	if (f)
		fclose(f);
}

/* True when getaddrinfo needs no NSS module; read once. */
bool hosts_nss_builtin(void)
{
	pthread_once(&nsswitch_once, read_nsswitch);
	return builtin_only;
}

/* Does the host's resolver consult /etc/hosts? */
static bool hosts_nss_files(void)
{
	pthread_once(&nsswitch_once, read_nsswitch);
	return uses_files;
}

/* The addresses /etc/hosts gives name (every line naming it, as glibc's
 * files service does), read at each lookup like glibc reads it. Lines
 * that do not parse are skipped, as glibc skips them. */
static int etc_hosts_lookup(const char *name, int *family, unsigned char (*addr)[16], int max)
{
	FILE *f = fopen("/etc/hosts", "re");
	char line[1024];
	int n = 0;

	while (f && n < max && fgets(line, sizeof(line), f)) {
		char *save = NULL, *hash = strchr(line, '#'), *word;
		unsigned char bin[16] = {0};
		int fam;

		if (!strchr(line, '\n') && !feof(f)) {
			/* A line longer than the buffer: skipped whole. */
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (hash)
			*hash = '\0';
		word = strtok_r(line, " \t\r\n", &save);
		if (!word)
			continue;
		fam = strchr(word, ':') ? AF_INET6 : AF_INET;
		if (inet_pton(fam, word, bin) != 1)
			continue;
		while ((word = strtok_r(NULL, " \t\r\n", &save)))
			if (!strcasecmp(word, name)) {
				bool seen = false;
				for (int k = 0; k < n && !seen; k++)
					seen = family[k] == fam && !memcmp(addr[k], bin, 16);
				if (!seen) {
					family[n] = fam;
					memcpy(addr[n++], bin, 16);
				}
				break;
			}
	}
	if (f)
		fclose(f);
	return n;
}

/* `getent ahosts NAME`: "ADDRESS STREAM|DGRAM|RAW [NAME]" per line. */
int hosts_parse_getent(char *out, int *family, unsigned char (*addr)[16], int max)
{
	char *save = NULL;
	int n = 0;

	for (char *l = strtok_r(out, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save)) {
		char a[INET6_ADDRSTRLEN + 1], kind[8];
		unsigned char bin[16] = {0};
		int fam;
		bool seen = false;

		if (sscanf(l, "%46s %7s", a, kind) != 2 || strcmp(kind, "STREAM"))
			continue;
		if (inet_pton(AF_INET, a, bin) == 1)
			fam = AF_INET;
		else if (inet_pton(AF_INET6, a, bin) == 1)
			fam = AF_INET6;
		else
			continue;
		for (int k = 0; k < n && !seen; k++)
			seen = family[k] == fam && !memcmp(addr[k], bin, 16);
		if (seen)
			continue;
		family[n] = fam;
		memcpy(addr[n++], bin, 16);
	}
	return n;
}

static sem_t getent_slots;
static pthread_once_t getent_once = PTHREAD_ONCE_INIT;

static void getent_slots_init(void)
{
	(void)sem_init(&getent_slots, 0, HOSTS_GETENT_MAX);
}

/* `getent ahosts NAME`, at most HOSTS_GETENT_MAX at once: each is a host
 * process, outside the sandbox's cgroup and --pids, that lives as long as
 * the host's resolver takes. A sandbox opening its 1024 connections to
 * names that never answer had as many getent processes running on the
 * host; now the rest wait here (as "resolving", logged at the end). */
static int hosts_getent(const char *absolute, int *family, unsigned char (*addr)[16], int max)
{
	char out[8192];
	long rc;
	int held;

	pthread_once(&getent_once, getent_slots_init);
	while ((held = sem_wait(&getent_slots)) < 0 && errno == EINTR)
		;
	rc = getent_query("ahosts", absolute, out, sizeof(out));
	if (held == 0)
		sem_post(&getent_slots);
	return rc < 0 ? 0 : hosts_parse_getent(out, family, addr, max);
}

int hosts_resolve(const struct proxy_ctx *px, const char *name, int *family,
		  unsigned char (*addr)[16], int max)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
	char absolute[HM_NAME_MAX + 2];
	int n = 0;

	for (size_t i = 0; i < px->nhosts && n < max; i++)
		if (!strcmp(px->hosts[i].name, name)) {
			family[n] = px->hosts[i].family;
			memcpy(addr[n++], px->hosts[i].addr, 16);
		}
	if (n)
		return n; /* a name in --net-hosts is never looked up elsewhere */
	if (hosts_nss_files() && (n = etc_hosts_lookup(name, family, addr, max)))
		return n;
	/* Search-list bypass of --deny-host (see the top of this file): only
	 * the absolute name goes to the resolver, and no fallback to the
	 * relative one. name is normalised: no trailing dot, no address. */
	snprintf(absolute, sizeof(absolute), "%s.", name);
	if (!hosts_nss_builtin())
		return hosts_getent(absolute, family, addr, max);
	if (getaddrinfo(absolute, NULL, &hints, &res) != 0)
		return 0;
	for (ai = res; ai && n < max; ai = ai->ai_next) {
		memset(addr[n], 0, 16);
		if (ai->ai_family == AF_INET)
			memcpy(addr[n], &((struct sockaddr_in *)ai->ai_addr)->sin_addr, 4);
		else if (ai->ai_family == AF_INET6)
			memcpy(addr[n], &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 16);
		else
			continue;
		family[n++] = ai->ai_family;
	}
	freeaddrinfo(res);
	return n;
}
