/* Unit tests of net/hostmatch.c: patterns, normalisation, matching and
 * the address classifier. TAP on stdout. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "net/hostmatch.h"
#include "tests/unit/tap.h"

/* Rules from a NULL-terminated list of patterns (allow, then deny). */
#define MAX_RULES 16
struct set {
	struct hm_rule allow[MAX_RULES], deny[MAX_RULES];
	struct hm_rules rules;
};

static void build(struct set *s, const char *const *allow, const char *const *deny)
{
	const char *why;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; allow && allow[i]; i++)
		if (hm_rule_parse(allow[i], &s->allow[s->rules.nallow++], &why))
			printf("# bad allow pattern %s: %s\n", allow[i], why);
	for (size_t i = 0; deny && deny[i]; i++)
		if (hm_rule_parse(deny[i], &s->deny[s->rules.ndeny++], &why))
			printf("# bad deny pattern %s: %s\n", deny[i], why);
	s->rules.allow = s->allow;
	s->rules.deny = s->deny;
}

static enum hm_verdict check(const struct set *s, const char *host, int port)
{
	struct hm_target t;
	const struct hm_rule *r;
	const char *why;

	if (hm_target_parse(host, strlen(host), port, &t, &why))
		return (enum hm_verdict) - 1;
	return hm_check_target(&s->rules, &t, &r);
}

static void verdict(const struct set *s, const char *host, int port, enum hm_verdict want,
		    const char *name)
{
	char d[128];
	enum hm_verdict got = check(s, host, port);

	snprintf(d, sizeof(d), "%s:%d: got verdict %d, want %d", host, port, (int)got, (int)want);
	ok(got == want, name, d);
}

static void pattern_ok(const char *p, enum hm_kind kind, int port)
{
	struct hm_rule r;
	const char *why = "";
	char name[160], d[160];
	int rc = hm_rule_parse(p, &r, &why);

	snprintf(name, sizeof(name), "pattern_parses %s", p);
	snprintf(d, sizeof(d), "rc %d (%s), kind %d want %d, port %d want %d", rc, rc ? why : "",
		 (int)r.kind, (int)kind, r.port, port);
	ok(rc == 0 && r.kind == kind && r.port == port, name, d);
}

static void pattern_bad(const char *p, const char *label)
{
	struct hm_rule r;
	const char *why = NULL;
	char name[160];

	snprintf(name, sizeof(name), "pattern_refused %s", label);
	ok(hm_rule_parse(p, &r, &why) < 0 && why, name, "parsed, should have been refused");
}

static void host_bad(const char *h, size_t len, const char *label)
{
	struct hm_target t;
	const char *why = NULL;
	char name[160];

	snprintf(name, sizeof(name), "host_refused %s", label);
	ok(hm_target_parse(h, len, 443, &t, &why) < 0 && why, name, t.name);
}

static void addr_class(const char *a, const char *want)
{
	unsigned char buf[16] = {0};
	int fam = strchr(a, ':') ? AF_INET6 : AF_INET;
	const char *got;
	char name[160], d[160];

	inet_pton(fam, a, buf);
	got = hm_addr_class(fam, buf);
	snprintf(name, sizeof(name), "addr_class %s is %s", a, want ? want : "public");
	snprintf(d, sizeof(d), "got %s", got ? got : "public");
	ok(want ? got && strstr(got, want) : !got, name, d);
}

static void rebinding(void)
{
	static const char *const allow_name[] = {"web.test:8080", NULL};
	static const char *const allow_both[] = {"web.test:8080", "127.0.0.0/8:8080", NULL};
	static const char *const deny_net[] = {"127.0.0.1", NULL};
	unsigned char lo[16] = {127, 0, 0, 1}, mapped[16] = {0}, pub[16] = {93, 184, 216, 34};
	const struct hm_rule *r;
	const char *cls;
	struct set s;

	mapped[10] = mapped[11] = 0xff;
	memcpy(mapped + 12, lo, 4);
	build(&s, allow_name, NULL);
	ok(hm_check_addr(&s.rules, AF_INET, lo, 8080, &r, &cls) == HM_BAD_ADDR && cls &&
		   !strcmp(cls, "loopback"),
	   "allowed_name_resolving_to_loopback_refused", NULL);
	ok(hm_check_addr(&s.rules, AF_INET6, mapped, 8080, &r, &cls) == HM_BAD_ADDR,
	   "ipv4_mapped_loopback_refused", NULL);
	ok(hm_check_addr(&s.rules, AF_INET, pub, 8080, &r, &cls) == HM_ALLOWED && !r,
	   "public_address_of_allowed_name_passes", NULL);
	build(&s, allow_both, NULL);
	ok(hm_check_addr(&s.rules, AF_INET, lo, 8080, &r, &cls) == HM_ALLOWED && r,
	   "loopback_passes_with_explicit_range", NULL);
	ok(hm_check_addr(&s.rules, AF_INET6, mapped, 8080, &r, &cls) == HM_ALLOWED,
	   "mapped_loopback_passes_with_ipv4_range", NULL);
	ok(hm_check_addr(&s.rules, AF_INET, lo, 8081, &r, &cls) == HM_BAD_ADDR,
	   "explicit_range_is_port_specific", NULL);
	build(&s, allow_both, deny_net);
	ok(hm_check_addr(&s.rules, AF_INET, lo, 8080, &r, &cls) == HM_DENIED,
	   "deny_address_beats_allowed_range", NULL);
}

/* An address behind a translator (NAT64's 64:ff9b::/96, 6to4) meets the
 * rules for the IPv4 address it reaches: on a DNS64 host every
 * IPv4-only name resolves so, and a deny of the IPv4 address must hold. */
static void translated(void)
{
	static const char *const allow[] = {"*.example.com", "10.0.0.5", NULL};
	static const char *const deny[] = {"8.8.8.8", "10.0.0.0/8", NULL};
	unsigned char a[16];
	const struct hm_rule *r;
	const char *cls;
	struct set s;

	build(&s, allow, deny);
	inet_pton(AF_INET6, "64:ff9b::808:808", a);
	ok(hm_check_addr(&s.rules, AF_INET6, a, 443, &r, &cls) == HM_DENIED,
	   "deny_ipv4_covers_nat64_address", NULL);
	inet_pton(AF_INET6, "2002:808:808::1", a);
	ok(hm_check_addr(&s.rules, AF_INET6, a, 443, &r, &cls) == HM_DENIED,
	   "deny_ipv4_covers_6to4_address", NULL);
	inet_pton(AF_INET6, "64:ff9b::a00:7", a);
	ok(hm_check_addr(&s.rules, AF_INET6, a, 443, &r, &cls) == HM_DENIED,
	   "deny_ipv4_range_covers_nat64_address", NULL);
	build(&s, allow, NULL);
	inet_pton(AF_INET6, "64:ff9b::a00:5", a);
	ok(hm_check_addr(&s.rules, AF_INET6, a, 443, &r, &cls) == HM_ALLOWED && r,
	   "allow_ipv4_covers_nat64_address", NULL);
	inet_pton(AF_INET6, "64:ff9b:1::a00:1", a);
	ok(hm_check_addr(&s.rules, AF_INET6, a, 443, &r, &cls) == HM_BAD_ADDR,
	   "nat64_local_use_prefix_refused", NULL);
}

/* hm_check_addr of an IPv6 address written as text. */
static enum hm_verdict check6(const struct set *s, const char *a, int port)
{
	unsigned char buf[16];
	const struct hm_rule *r;
	const char *cls;

	inet_pton(AF_INET6, a, buf);
	return hm_check_addr(&s->rules, AF_INET6, buf, port, &r, &cls);
}

/* The whole of ::/96 but :: and ::1 is IPv4-compatible (::127.0.0.1 was
 * taken as public), and meets the IPv4 address's rules as ::ffff:a.b.c.d
 * does. Teredo (2001::/32) hides its client's address: allowed only by
 * an IPv6 rule, denied by its client's too. */
static void embedded(void)
{
	static const char *const allow_name[] = {"web.test:8080", NULL};
	static const char *const allow_v4[] = {"web.test:8080", "127.0.0.1:8080", "192.0.2.45:8080",
					       NULL};
	static const char *const allow_v6[] = {"[::127.0.0.1]:8080", "[2001::/32]:8080", NULL};
	static const char *const deny_v4[] = {"127.0.0.0/8", "192.0.2.0/24", NULL};
	const char *teredo = "2001:0:4136:e378:8000:63bf:3fff:fdd2"; /* client 192.0.2.45 */
	struct set s;

	build(&s, allow_name, NULL);
	ok(check6(&s, "::127.0.0.1", 8080) == HM_BAD_ADDR, "ipv4_compatible_loopback_refused",
	   NULL);
	ok(check6(&s, "::ffff:0:127.0.0.1", 8080) == HM_BAD_ADDR,
	   "ipv4_translated_loopback_refused", NULL);
	ok(check6(&s, teredo, 8080) == HM_BAD_ADDR, "teredo_address_refused", NULL);
	build(&s, allow_v4, NULL);
	ok(check6(&s, "::127.0.0.1", 8080) == HM_ALLOWED,
	   "allow_ipv4_covers_ipv4_compatible_address", NULL);
	ok(check6(&s, teredo, 8080) == HM_BAD_ADDR, "allow_ipv4_of_teredo_client_does_not_allow",
	   NULL);
	build(&s, allow_v6, NULL);
	ok(check6(&s, teredo, 8080) == HM_ALLOWED, "teredo_allowed_by_ipv6_range", NULL);
	build(&s, allow_v6, deny_v4);
	ok(check6(&s, "::127.0.0.1", 8080) == HM_DENIED,
	   "deny_ipv4_range_covers_ipv4_compatible_address", NULL);
	ok(check6(&s, "::ffff:0:127.0.0.1", 8080) == HM_DENIED,
	   "deny_ipv4_range_covers_ipv4_translated_address", NULL);
	ok(check6(&s, teredo, 8080) == HM_DENIED, "deny_ipv4_range_covers_teredo_client", NULL);
}

/* The punycode refusal is for allow wildcards only: a deny wildcard
 * covers xn-- names too, whatever narrower allow rule names them. */
/* An unspecified address reaches the host's loopback (connect() to
 * 0.0.0.0 is to 127.0.0.1, to :: is to ::1): a deny of loopback holds for
 * it, even where a wide allow rule covers it. */
static void unspecified_meets_loopback_deny(void)
{
	static const char *const allow[] = {"0.0.0.0/0:*", "[::/0]:*", NULL};
	static const char *const deny4[] = {"127.0.0.0/8", NULL};
	static const char *const deny6[] = {"[::1]", NULL};
	unsigned char any[16] = {0};
	const struct hm_rule *r;
	const char *cls;
	struct set s;

	build(&s, allow, deny4);
	ok(hm_check_addr(&s.rules, AF_INET, any, 80, &r, &cls) == HM_DENIED,
	   "deny_loopback_covers_0.0.0.0", NULL);
	ok(check6(&s, "::ffff:0.0.0.0", 80) == HM_DENIED, "deny_loopback_covers_mapped_0.0.0.0",
	   NULL);
	ok(check6(&s, "::", 80) == HM_ALLOWED, "deny_ipv4_loopback_leaves_ipv6_any", NULL);
	inet_pton(AF_INET, "0.0.0.1", any);
	ok(hm_check_addr(&s.rules, AF_INET, any, 80, &r, &cls) == HM_ALLOWED,
	   "deny_loopback_leaves_other_0/8_addresses", NULL);
	build(&s, allow, deny6);
	ok(check6(&s, "::", 80) == HM_DENIED, "deny_ipv6_loopback_covers_ipv6_any", NULL);
	memset(any, 0, sizeof(any));
	ok(hm_check_addr(&s.rules, AF_INET, any, 80, &r, &cls) == HM_ALLOWED,
	   "deny_ipv6_loopback_leaves_0.0.0.0", NULL);
	build(&s, allow, NULL);
	ok(hm_check_addr(&s.rules, AF_INET, any, 80, &r, &cls) == HM_ALLOWED,
	   "unspecified_allowed_by_a_wide_rule_without_deny", NULL);
}

static void deny_wildcard_covers_punycode(void)
{
	static const char *const allow[] = {"xn--bcher-kva.example.test", "*.xn--p1ai.example.test",
					    "xn--80ak6aa92e.xn--p1ai", NULL};
	static const char *const deny[] = {"*.example.test", "*.xn--p1ai", NULL};
	struct set s;

	build(&s, allow, deny);
	verdict(&s, "xn--bcher-kva.example.test", 443, HM_DENIED,
		"deny_wildcard_covers_punycode_name_allowed_by_name");
	verdict(&s, "a.xn--p1ai.example.test", 443, HM_DENIED,
		"deny_wildcard_covers_punycode_label_allowed_by_wildcard");
	verdict(&s, "xn--80ak6aa92e.xn--p1ai", 443, HM_DENIED,
		"deny_punycode_wildcard_covers_punycode_label");
	verdict(&s, "XN--BCHER-KVA.example.test.", 443, HM_DENIED,
		"deny_wildcard_covers_punycode_name_normalised");
	build(&s, allow, NULL);
	verdict(&s, "xn--bcher-kva.example.test", 443, HM_ALLOWED,
		"punycode_name_allowed_by_name_without_deny");
	verdict(&s, "xn--80ak6aa92e.a.xn--p1ai.example.test", 443, HM_UNLISTED,
		"allow_wildcard_still_skips_punycode_label");
}

int main(void)
{
	static const char *const allow[] = {"pypi.org",   "*.example.test", "files.test:8443",
					    "any.test:*", "10.1.2.3:8080",  "192.168.0.0/16:*",
					    "[::1]:3000", "*.xn--p1ai",     "xn--80ak6aa92e.test",
					    NULL};
	static const char *const deny[] = {"bad.example.test", "192.168.7.0/24", NULL};
	struct set s;

	pattern_ok("pypi.org", HM_NAME, HM_PORT_DEFAULT);
	pattern_ok("PyPI.org:443", HM_NAME, 443);
	pattern_ok("*.github.com", HM_WILDCARD, HM_PORT_DEFAULT);
	pattern_ok("*.github.com:*", HM_WILDCARD, HM_PORT_ANY);
	pattern_ok("127.0.0.1:8080", HM_ADDR, 8080);
	pattern_ok("127.0.0.0/8", HM_ADDR, HM_PORT_DEFAULT);
	pattern_ok("[::1]:443", HM_ADDR, 443);
	pattern_ok("fd00::/8", HM_ADDR, HM_PORT_DEFAULT);
	pattern_ok("[fd00::/8]:*", HM_ADDR, HM_PORT_ANY);
	pattern_ok("1password.com", HM_NAME, HM_PORT_DEFAULT);
	pattern_bad("", "empty");
	pattern_bad("*", "bare_star");
	pattern_bad("a.*.test", "star_inside");
	pattern_bad("*foo.test", "star_prefix");
	pattern_bad("pypi.org:0", "port_zero");
	pattern_bad("pypi.org:65536", "port_too_big");
	pattern_bad("pypi.org:", "empty_port");
	pattern_bad("pypi.org:http", "named_port");
	pattern_bad("pypi..org", "empty_label");
	pattern_bad("pypi.org.", "trailing_dot");
	pattern_bad("p\xc3\xbfpi.org", "non_ascii");
	pattern_bad("user@pypi.org", "userinfo");
	pattern_bad("10.0.0.1/8", "host_bits_below_prefix");
	pattern_bad("10.0.0.0/33", "prefix_too_long");
	pattern_bad("[10.0.0.1]", "brackets_on_ipv4");
	pattern_bad("[::1", "unclosed_bracket");
	pattern_bad("127.1", "short_numeric");

	build(&s, allow, deny);
	verdict(&s, "pypi.org", 443, HM_ALLOWED, "exact_name_default_port_443");
	verdict(&s, "pypi.org", 80, HM_ALLOWED, "exact_name_default_port_80");
	verdict(&s, "pypi.org", 22, HM_UNLISTED, "exact_name_other_port_refused");
	verdict(&s, "PyPI.ORG.", 443, HM_ALLOWED, "case_and_trailing_dot_normalised");
	verdict(&s, "a.example.test", 443, HM_ALLOWED, "wildcard_matches_one_label");
	verdict(&s, "a.b.example.test", 443, HM_ALLOWED, "wildcard_matches_two_labels");
	verdict(&s, "example.test", 443, HM_UNLISTED, "wildcard_does_not_match_apex");
	verdict(&s, "example.test.evil", 443, HM_UNLISTED,
		"wildcard_does_not_match_suffix_extension");
	verdict(&s, "badexample.test", 443, HM_UNLISTED, "wildcard_needs_label_boundary");
	verdict(&s, "bad.example.test", 443, HM_DENIED, "deny_beats_wildcard_allow");
	verdict(&s, "BAD.example.test.", 443, HM_DENIED, "deny_normalised_too");
	verdict(&s, "files.test", 8443, HM_ALLOWED, "explicit_port_allowed");
	verdict(&s, "files.test", 443, HM_UNLISTED, "explicit_port_only");
	verdict(&s, "any.test", 12345, HM_ALLOWED, "any_port_rule");
	verdict(&s, "10.1.2.3", 8080, HM_ALLOWED, "ip_literal_allowed_as_such");
	verdict(&s, "10.1.2.4", 8080, HM_UNLISTED, "other_ip_literal_refused");
	verdict(&s, "192.168.1.9", 5000, HM_ALLOWED, "cidr_range_allows_literal");
	verdict(&s, "192.168.7.9", 5000, HM_DENIED, "deny_cidr_beats_allow_cidr");
	verdict(&s, "[::1]", 3000, HM_ALLOWED, "bracketed_ipv6_literal");
	verdict(&s, "::1", 3000, HM_ALLOWED, "bare_ipv6_literal");
	verdict(&s, "::ffff:10.1.2.3", 8080, HM_ALLOWED, "ipv4_mapped_literal_is_the_ipv4");
	verdict(&s, "sub.xn--p1ai", 443, HM_ALLOWED, "punycode_suffix_spelled_in_pattern");
	verdict(&s, "xn--80ak6aa92e.xn--p1ai", 443, HM_UNLISTED,
		"wildcard_does_not_cover_punycode_label");
	verdict(&s, "xn--80ak6aa92e.test", 443, HM_ALLOWED, "punycode_name_spelled_in_pattern");
	verdict(&s, "xn--80ak6aa92e.example.test", 443, HM_UNLISTED,
		"punycode_under_ascii_wildcard");
	host_bad("pypi.org\0.evil.test", 19, "embedded_nul");
	host_bad("pypi.org evil", 13, "whitespace");
	host_bad("pypi%2eorg", 10, "percent_encoding");
	host_bad("evil.test@pypi.org", 18, "at_sign");
	host_bad("evil.test\\pypi.org", 18, "backslash");
	host_bad("p\xd0\xb0ypal.com", 11, "cyrillic_homograph");
	host_bad("a..example.test", 15, "empty_label");
	host_bad(".example.test", 13, "leading_dot");
	host_bad("allowed.test..", 14, "two_trailing_dots");
	host_bad("127.0.0.1..", 11, "address_with_two_trailing_dots");
	host_bad("2130706433", 10, "decimal_address");
	host_bad("0x7f000001", 10, "hex_address");
	host_bad("0177.0.0.1", 10, "octal_address");
	host_bad("127.1", 5, "short_address");
	host_bad("fe80::1%eth0", 12, "zone_index");
	host_bad("", 0, "empty");

	addr_class("127.0.0.1", "loopback");
	addr_class("10.2.3.4", "private");
	addr_class("172.16.0.1", "private");
	addr_class("172.31.255.255", "private");
	addr_class("172.32.0.1", NULL);
	addr_class("192.168.1.1", "private");
	addr_class("100.64.0.1", "CGNAT");
	addr_class("100.127.255.255", "CGNAT");
	addr_class("100.128.0.1", NULL);
	addr_class("169.254.169.254", "link-local");
	addr_class("224.0.0.1", "multicast");
	addr_class("0.0.0.0", "unspecified");
	addr_class("255.255.255.255", "broadcast");
	addr_class("8.8.8.8", NULL);
	addr_class("93.184.216.34", NULL);
	addr_class("::1", "loopback");
	addr_class("::", "unspecified");
	addr_class("::ffff:127.0.0.1", "loopback");
	addr_class("::ffff:10.0.0.1", "private");
	addr_class("::ffff:8.8.8.8", NULL);
	addr_class("64:ff9b::7f00:1", "loopback");
	addr_class("2002:7f00:1::", "loopback");
	addr_class("64:ff9b:1::a00:1", "NAT64 local-use");
	addr_class("fd12:3456::1", "ULA");
	addr_class("fc00::1", "ULA");
	addr_class("fe80::1", "link-local");
	addr_class("ff02::1", "multicast");
	addr_class("2606:4700::1111", NULL);
	addr_class("::127.0.0.1", "loopback");
	addr_class("::7f00:1", "loopback");
	addr_class("::10.1.2.3", "private");
	addr_class("::169.254.169.254", "link-local");
	addr_class("::8.8.8.8", "IPv4-compatible");
	addr_class("::ffff:0:127.0.0.1", "loopback");
	addr_class("::ffff:0:8.8.8.8", "IPv4-translated");
	addr_class("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo");
	addr_class("2001::", "Teredo");
	addr_class("2001:2::1", "benchmarking");
	addr_class("2001:1:2::1", NULL);
	addr_class("64:ff9b::808:808", NULL);
	addr_class("2002:808:808::1", NULL);
	addr_class("2002:a00:1::1", "private");
	addr_class("0:1::1", "reserved");
	addr_class("4000::1", "reserved");
	rebinding();
	translated();
	embedded();
	deny_wildcard_covers_punycode();
	unspecified_meets_loopback_deny();

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
