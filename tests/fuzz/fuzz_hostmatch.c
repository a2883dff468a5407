/* --allow-host/--deny-host patterns and the host names a sandboxed client
 * asks the proxy for (net/hostmatch.c): the proxy's decision on untrusted
 * input. Input: lines "+PATTERN" (allow) or "-PATTERN" (deny), and one
 * "HOST PORT" line, the request. */
#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>

#include "net/hostmatch.h"
#include "tests/fuzz/fuzz.h"

#define MAX_RULES 16

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n > HM_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '.' ||
		      *s == '-' || *s == '_'))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size), *lines[MAX_RULES + 1], norm[HM_NAME_MAX + 1], hint[600];
	struct hm_rule allow[MAX_RULES], deny[MAX_RULES];
	struct hm_rules rules = {.allow = allow, .deny = deny};
	struct hm_target t;
	const struct hm_rule *rule;
	const char *why, *cls;
	size_t n = fuzz_split(text, '\n', lines, MAX_RULES + 1);

	for (size_t i = 0; i + 1 < n; i++) {
		bool is_deny = lines[i][0] == '-';
		struct hm_rule *r = is_deny ? &deny[rules.ndeny] : &allow[rules.nallow];

		if (!lines[i][0] || hm_rule_parse(lines[i] + 1, r, &why))
			continue;
		FUZZ_ASSERT(r->port == HM_PORT_DEFAULT || r->port == HM_PORT_ANY ||
			    (r->port >= 1 && r->port <= 65535));
		FUZZ_ASSERT(r->kind != HM_ADDR || r->prefix <= (r->family == AF_INET ? 32u : 128u));
		FUZZ_ASSERT(r->kind == HM_ADDR || name_ok(r->name));
		(void)hm_rule_port_matches(r, 443, is_deny);
		if (is_deny)
			rules.ndeny++;
		else
			rules.nallow++;
	}
	{
		char *host = lines[n - 1], *sp = strrchr(host, ' ');
		int port = sp ? atoi(sp + 1) : 443;

		if (sp)
			*sp = '\0';
		if (hm_name_normalize(host, strlen(host), norm, &why) == 0)
			FUZZ_ASSERT(name_ok(norm));
		if (hm_target_parse(host, strlen(host), port, &t, &why) == 0) {
			(void)hm_check_target(&rules, &t, &rule);
			if (t.is_addr) {
				(void)hm_check_addr(&rules, t.family, t.addr, t.port, &rule, &cls);
				(void)hm_addr_class(t.family, t.addr);
			} else {
				FUZZ_ASSERT(name_ok(t.name));
			}
			hm_suggest(&t, hint, sizeof(hint));
			FUZZ_ASSERT(memchr(hint, '\0', sizeof(hint)));
		}
	}
	free(text);
	return 0;
}
