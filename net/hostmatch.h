/* The allow-list of --net proxy: parsing --allow-host/--deny-host
 * patterns, normalising the host a client asked for, and deciding.
 *
 * Pure functions, no I/O and no kjail error records (the unit test links
 * this file alone): each failure comes back as a short reason string.
 *
 * Patterns: NAME, *.NAME, IPv4, [IPv6], CIDR (10.0.0.0/8, [fd00::/8] or
 * fd00::/8 without a port), each optionally followed by :PORT or :*.
 * Without a port an allow rule covers ports 80 and 443 only, a deny rule
 * every port.
 */
#ifndef KJAIL_HOSTMATCH_H
#define KJAIL_HOSTMATCH_H

#include <stdbool.h>
#include <stddef.h>

#define HM_NAME_MAX 253   /* longest DNS name, without the trailing dot */
#define HM_PORT_DEFAULT 0 /* no :PORT given */
#define HM_PORT_ANY (-1)  /* :* */

enum hm_kind {
	HM_NAME,     /* exact name */
	HM_WILDCARD, /* *.suffix: one or more labels before suffix */
	HM_ADDR,     /* an address or a CIDR range */
};

struct hm_rule {
	enum hm_kind kind;
	char name[HM_NAME_MAX + 1]; /* normalised; for a wildcard the suffix */
	int family;                 /* AF_INET or AF_INET6 (HM_ADDR) */
	unsigned char addr[16];     /* network order; IPv4 in the first 4 bytes */
	unsigned prefix;            /* CIDR prefix length */
	int port;                   /* 1..65535, HM_PORT_DEFAULT or HM_PORT_ANY */
	const char *text;           /* the pattern as written */
};

/* What a client asked for: a normalised name, or an address literal. */
struct hm_target {
	bool is_addr;
	char name[HM_NAME_MAX + 1]; /* a name, or the address in canonical text */
	int family;
	unsigned char addr[16];
	int port;
};

enum hm_verdict {
	HM_ALLOWED,  /* *rule: the allow rule */
	HM_DENIED,   /* *rule: the --deny-host rule that matched */
	HM_UNLISTED, /* no allow rule covers it */
	HM_BAD_ADDR, /* a non-public address no address rule allows */
};

struct hm_rules {
	const struct hm_rule *allow, *deny;
	size_t nallow, ndeny;
};

/* Parse one pattern (text must outlive the rule). 0 or -1 with *why. */
int hm_rule_parse(const char *text, struct hm_rule *r, const char **why);

/* Normalise a host name: lower case, one trailing dot dropped; refuses
 * non-ASCII, percent-encoding, NUL, whitespace, '@', '\\' and anything
 * else outside [a-z0-9._-], empty labels, over-long names, and numeric
 * forms that resolvers read as addresses (127.1, 0x7f000001, 2130706433).
 * out holds HM_NAME_MAX + 1 bytes. 0 or -1 with *why. */
int hm_name_normalize(const char *in, size_t len, char *out, const char **why);

/* A host as a client wrote it (name, IPv4, IPv6 with or without
 * brackets) and its port, as a target. 0 or -1 with *why. */
int hm_target_parse(const char *host, size_t len, int port, struct hm_target *t, const char **why);

/* Before resolution: deny rules first, then allow rules. Names match only
 * name rules and address literals only address rules. An allow wildcard
 * never covers a name with an xn-- label below its suffix (IDN
 * homographs); a deny wildcard covers every name below it. */
enum hm_verdict hm_check_target(const struct hm_rules *rules, const struct hm_target *t,
				const struct hm_rule **rule);

/* For each address a name resolved to (and for an allowed literal): deny
 * address rules first; a non-public address passes only when an allow
 * address rule covers it (DNS rebinding: an allowed name may not point
 * at loopback or the LAN). *cls names the class of a refused address.
 * An IPv6 address that embeds an IPv4 one (mapped, compatible,
 * translated, NAT64, 6to4) meets the rules for that IPv4 address as
 * well; a Teredo address meets the deny rules of its client's. */
enum hm_verdict hm_check_addr(const struct hm_rules *rules, int family, const unsigned char *addr,
			      int port, const struct hm_rule **rule, const char **cls);

/* NULL for a public unicast address, else its class ("loopback",
 * "private", ...). IPv4-mapped and other IPv6 forms that embed an IPv4
 * address are judged by the IPv4 address (IPv4-compatible ::a.b.c.d and
 * IPv4-translated ::ffff:0:a.b.c.d are never public); Teredo
 * (2001::/32) and anything outside 2000::/3 but NAT64's 64:ff9b::/96 are
 * never public either. */
const char *hm_addr_class(int family, const unsigned char *addr);

/* Does a rule without an explicit port cover this port? */
bool hm_rule_port_matches(const struct hm_rule *r, int port, bool deny);

/* The --allow-host pattern that would allow target (host:port form). */
void hm_suggest(const struct hm_target *t, char *buf, size_t len);

#endif
