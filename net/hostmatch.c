/* Patterns, host normalisation and the allow/deny decision of --net proxy.
 * Every check here is a way around an allow-list that someone has used:
 * the comments name the trick each line stops. */
#include "net/hostmatch.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static bool is_label_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The last label as inet_aton would read it: decimal, octal or 0x-hex. */
static bool label_is_numeric(const char *l, size_t n)
{
	size_t i = 0;
	bool hex = n > 2 && l[0] == '0' && l[1] == 'x';

	for (i = hex ? 2 : 0; i < n; i++)
		if (!(l[i] >= '0' && l[i] <= '9') && !(hex && l[i] >= 'a' && l[i] <= 'f'))
			return false;
	return n > 0;
}

int hm_name_normalize(const char *in, size_t len, char *out, const char **why)
{
	size_t label = 0;
	const char *last;

	/* One trailing dot is the absolute form of the same name: "pypi.org."
	 * must meet the rule for "pypi.org" (and not slip past a deny). */
	if (len && in[len - 1] == '.')
		len--;
	if (len == 0)
		return *why = "empty host name", -1;
	if (len > HM_NAME_MAX)
		return *why = "host name longer than 253 characters", -1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];
		char l = lower((char)c);

		/* IDN homographs ("раураl.com" in Cyrillic) and their UTF-8
		 * bytes never match an ASCII rule by accident: refused. */
		if (c >= 0x80)
			return *why = "non-ASCII host name (write IDN names as xn-- punycode)", -1;
		/* "evil.test%2eallowed.test": a parser that decodes later sees
		 * another host than the one matched here. */
		if (c == '%')
			return *why = "percent-encoded host name", -1;
		/* "allowed.test\0.evil.test", "allowed.test evil.test": C
		 * strings and header parsers disagree about where it ends. */
		if (c == '\0' || c == ' ' || c == '\t' || c == '\r' || c == '\n')
			return *why = "NUL or whitespace in host name", -1;
		/* "allowed.test@evil.test", "allowed.test\\@evil.test": URL
		 * parsers read userinfo and backslashes differently. */
		if (c == '@' || c == '\\')
			return *why = "'@' or '\\' in host name", -1;
		if (l == '.') {
			/* "a..b", ".a": empty labels resolve unpredictably. */
			if (label == 0)
				return *why = "empty label in host name", -1;
			label = 0;
			out[i] = '.';
			continue;
		}
		if (!is_label_char(l))
			return *why = "invalid character in host name", -1;
		if (++label > 63)
			return *why = "label longer than 63 characters", -1;
		out[i] = l;
	}
	/* "allowed.test..": the one dot dropped above left an empty last
	 * label, which no rule can name (and which hid "127.0.0.1.." from
	 * the numeric check below). */
	if (label == 0)
		return *why = "empty label in host name", -1;
	out[len] = '\0';
	/* "127.1", "2130706433", "0x7f.1", "0177.0.0.1": inet_aton-style
	 * resolvers turn these into addresses (loopback here) that the name
	 * check never saw. No real top-level domain is numeric. */
	last = strrchr(out, '.');
	last = last ? last + 1 : out;
	if (label_is_numeric(last, strlen(last)))
		return *why = "numeric host name (an address in disguise)", -1;
	return 0;
}

/* Strict address parsing: inet_pton only (dotted quad of decimals, or
 * IPv6), never inet_aton's octal and short forms. */
static int parse_addr(const char *s, size_t len, int *family, unsigned char *addr)
{
	char buf[INET6_ADDRSTRLEN + 1];

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, buf, addr) == 1)
		return *family = AF_INET, 0;
	/* A zone index ("fe80::1%eth0") names a host interface: refused. */
	if (inet_pton(AF_INET6, buf, addr) == 1)
		return *family = AF_INET6, 0;
	return -1;
}

static int parse_port(const char *s, int *port, const char **why)
{
	long v = 0;

	if (!strcmp(s, "*"))
		return *port = HM_PORT_ANY, 0;
	if (!*s)
		return *why = "empty port", -1;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9' || (v = v * 10 + (*p - '0')) > 65535)
			return *why = "port must be 1-65535 or *", -1;
	}
	if (v == 0 || s[0] == '0')
		return *why = "port must be 1-65535 or *", -1;
	return *port = (int)v, 0;
}

/* "1.2.3.0/24", "fd00::/8": address and prefix. */
static int parse_cidr(const char *s, size_t len, struct hm_rule *r, const char **why)
{
	const char *slash = memchr(s, '/', len);
	size_t alen = slash ? (size_t)(slash - s) : len;
	unsigned max, prefix = 0;

	if (parse_addr(s, alen, &r->family, r->addr))
		return *why = "not an IP address", -1;
	max = r->family == AF_INET ? 32 : 128;
	if (!slash) {
		r->prefix = max;
		return 0;
	}
	if (slash + 1 == s + len)
		return *why = "empty prefix length", -1;
	for (const char *p = slash + 1; p < s + len; p++)
		if (*p < '0' || *p > '9' || (prefix = prefix * 10 + (unsigned)(*p - '0')) > max)
			return *why = "prefix length out of range", -1;
	r->prefix = prefix;
	/* "10.1.2.3/8" is almost certainly a typo for a host: the bits
	 * below the prefix must be zero. */
	for (unsigned bit = prefix; bit < max; bit++)
		if (r->addr[bit / 8] & (0x80 >> (bit % 8)))
			return *why = "address has bits set below the prefix length", -1;
	return 0;
}

int hm_rule_parse(const char *text, struct hm_rule *r, const char **why)
{
	const char *host = text, *end, *colon;
	size_t hlen;

	memset(r, 0, sizeof(*r));
	r->text = text;
	r->port = HM_PORT_DEFAULT;
	if (!*text)
		return *why = "empty pattern", -1;
	if (text[0] == '[') {
		/* [IPv6] or [IPv6/prefix], then optionally :PORT. */
		end = strchr(text, ']');
		if (!end)
			return *why = "missing ']'", -1;
		if (end[1] && (end[1] != ':' || parse_port(end + 2, &r->port, why)))
			return *why = end[1] == ':' ? *why : "expected :PORT after ']'", -1;
		r->kind = HM_ADDR;
		if (parse_cidr(text + 1, (size_t)(end - text - 1), r, why))
			return -1;
		if (r->family != AF_INET6)
			return *why = "brackets are for IPv6 addresses", -1;
		return 0;
	}
	colon = strchr(text, ':');
	if (colon && strchr(colon + 1, ':')) {
		/* Two or more colons: a bare IPv6 address or range, no port. */
		r->kind = HM_ADDR;
		return parse_cidr(text, strlen(text), r, why)
			       ? (*why = "not an IPv6 address (write [ADDR]:PORT to give a port)",
				  -1)
			       : 0;
	}
	hlen = colon ? (size_t)(colon - text) : strlen(text);
	if (colon && parse_port(colon + 1, &r->port, why))
		return -1;
	if (hlen && ((host[0] >= '0' && host[0] <= '9') || memchr(host, '/', hlen))) {
		struct hm_rule tmp = *r;
		if (parse_cidr(host, hlen, &tmp, why) == 0) {
			tmp.kind = HM_ADDR;
			*r = tmp;
			return 0;
		}
		if (memchr(host, '/', hlen))
			return -1;
	}
	if (hlen >= 2 && host[0] == '*' && host[1] == '.') {
		r->kind = HM_WILDCARD;
		host += 2;
		hlen -= 2;
	} else {
		r->kind = HM_NAME;
	}
	/* "*", "a.*.b", "*foo.test": a wildcard is one whole leading label. */
	if (memchr(host, '*', hlen))
		return *why = "'*' is allowed only as the whole first label (*.example.com)", -1;
	if (hlen && host[hlen - 1] == '.')
		return *why = "write the name without a trailing dot", -1;
	return hm_name_normalize(host, hlen, r->name, why);
}

int hm_target_parse(const char *host, size_t len, int port, struct hm_target *t, const char **why)
{
	memset(t, 0, sizeof(*t));
	t->port = port;
	if (port < 1 || port > 65535)
		return *why = "port out of range", -1;
	if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
		if (parse_addr(host + 1, len - 2, &t->family, t->addr) || t->family != AF_INET6)
			return *why = "invalid IPv6 address", -1;
		t->is_addr = true;
	} else if (parse_addr(host, len, &t->family, t->addr) == 0) {
		t->is_addr = true;
	}
	if (t->is_addr) {
		inet_ntop(t->family, t->addr, t->name, sizeof(t->name));
		return 0;
	}
	return hm_name_normalize(host, len, t->name, why);
}

bool hm_rule_port_matches(const struct hm_rule *r, int port, bool deny)
{
	if (r->port == HM_PORT_ANY || (r->port == HM_PORT_DEFAULT && deny))
		return true;
	if (r->port == HM_PORT_DEFAULT)
		return port == 80 || port == 443; /* the web's two ports */
	return r->port == port;
}

static bool has_punycode_label(const char *name, size_t len)
{
	for (size_t i = 0; i + 4 <= len; i++)
		if ((i == 0 || name[i - 1] == '.') && !strncmp(name + i, "xn--", 4))
			return true;
	return false;
}

static bool name_matches(const struct hm_rule *r, const char *name, bool deny)
{
	size_t n = strlen(name), s = strlen(r->name);

	if (r->kind == HM_NAME)
		return !strcmp(name, r->name);
	/* *.example.test: at least one label, then ".example.test" exactly
	 * at the end, so neither "example.test" nor "example.test.evil" nor
	 * "badexample.test". */
	if (r->kind != HM_WILDCARD || n < s + 2 || name[n - s - 1] != '.' ||
	    strcmp(name + n - s, r->name))
		return false;
	/* A punycode label is matched only by an allow rule that spells it
	 * out: the wildcard must not lend its trust to an IDN homograph it
	 * never named. A deny wildcard covers every name below it, punycode
	 * included: else --deny-host '*.corp.test' let "xn--bcher-kva.corp.test"
	 * through to a narrower --allow-host. */
	return deny || !has_punycode_label(name, n - s - 1);
}

/* IPv4-mapped (::ffff:a.b.c.d) is the IPv4 address: one rule for both. */
static void unmap(int *family, const unsigned char **addr)
{
	static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (*family == AF_INET6 && !memcmp(*addr, mapped, 12)) {
		*family = AF_INET;
		*addr += 12;
	}
}

static bool addr_matches(const struct hm_rule *r, int family, const unsigned char *addr)
{
	const unsigned char *ra = r->addr;
	int rf = r->family;
	unsigned bits = r->prefix;

	unmap(&family, &addr);
	if (bits >= 96) {
		unmap(&rf, &ra);
		if (rf != r->family)
			bits -= 96; /* ::ffff:10.0.0.0/104 is 10.0.0.0/8 */
	}
	if (r->kind != HM_ADDR || rf != family)
		return false;
	if (memcmp(ra, addr, bits / 8))
		return false;
	return bits % 8 == 0 ||
	       !((ra[bits / 8] ^ addr[bits / 8]) & (unsigned char)(0xff00 >> (bits % 8)));
}

static const struct hm_rule *find(const struct hm_rule *list, size_t n, const struct hm_target *t,
				  bool deny)
{
	for (size_t i = 0; i < n; i++) {
		const struct hm_rule *r = &list[i];
		if (!hm_rule_port_matches(r, t->port, deny))
			continue;
		if (t->is_addr ? addr_matches(r, t->family, t->addr)
			       : name_matches(r, t->name, deny))
			return r;
	}
	return NULL;
}

enum hm_verdict hm_check_target(const struct hm_rules *rules, const struct hm_target *t,
				const struct hm_rule **rule)
{
	/* Deny wins: checked first, whatever the order of the flags. */
	if ((*rule = find(rules->deny, rules->ndeny, t, true)))
		return HM_DENIED;
	if ((*rule = find(rules->allow, rules->nallow, t, false)))
		return HM_ALLOWED;
	return HM_UNLISTED;
}

static const unsigned char nat64_wkp[12] = {0, 0x64, 0xff, 0x9b}; /* 64:ff9b::/96 */
static const unsigned char v6_zero[16];
static const unsigned char v4_translated[12] = {0, 0, 0, 0,    0,
						0, 0, 0, 0xff, 0xff}; /* ::ffff:0:0/96 */

/* IPv4-compatible (::a.b.c.d, RFC 4291, deprecated): a kernel with sit
 * loaded tunnels it to a.b.c.d. Not :: and ::1, which are IPv6's own. */
static bool is_v4_compatible(const unsigned char *a)
{
	return !memcmp(a, v6_zero, 12) && (memcmp(a + 12, v6_zero, 3) || a[15] > 1);
}

/* Teredo (2001:0::/32, RFC 4380): a UDP tunnel to the client's address,
 * stored in the last 32 bits, inverted. */
static bool is_teredo(const unsigned char *a)
{
	return a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0;
}

/* The IPv4 address an IPv6 one stands for or reaches through a
 * translator or a tunnel, into v4: IPv4-compatible (::a.b.c.d), NAT64's
 * well-known prefix (64:ff9b::a.b.c.d), SIIT's IPv4-translated form
 * (::ffff:0:a.b.c.d), 6to4 (2002:AABB:CCDD::/48) and, with teredo,
 * Teredo's client. false for any other. */
static bool embedded_v4(int family, const unsigned char *a, bool teredo, unsigned char *v4)
{
	if (family != AF_INET6)
		return false;
	if (is_v4_compatible(a) || !memcmp(a, nat64_wkp, 12) || !memcmp(a, v4_translated, 12)) {
		memcpy(v4, a + 12, 4);
		return true;
	}
	if (a[0] == 0x20 && a[1] == 0x02) {
		memcpy(v4, a + 2, 4);
		return true;
	}
	if (teredo && is_teredo(a)) {
		for (int i = 0; i < 4; i++)
			v4[i] = (unsigned char)~a[12 + i];
		return true;
	}
	return false;
}

/* A rule for the address itself, or for the IPv4 address it embeds: on
 * a DNS64 host every IPv4-only name resolves to 64:ff9b::a.b.c.d, and a
 * --deny-host 10.0.0.0/8 that met only the raw IPv6 address never held
 * (nor for ::10.0.0.1). A Teredo address meets the deny rules of its
 * client's IPv4 address, never the allow rules: it is allowed only by
 * an IPv6 rule that covers it. */
static const struct hm_rule *find_addr(const struct hm_rule *list, size_t n, int family,
				       const unsigned char *addr, int port, bool deny)
{
	struct hm_target t = {.is_addr = true, .family = family, .port = port};
	const struct hm_rule *r;
	unsigned char v4[4];

	memcpy(t.addr, addr, family == AF_INET ? 4 : 16);
	if ((r = find(list, n, &t, deny)) || !embedded_v4(family, addr, deny, v4))
		return r;
	t.family = AF_INET;
	memset(t.addr, 0, sizeof(t.addr));
	memcpy(t.addr, v4, 4);
	return find(list, n, &t, deny);
}

/* Where the kernel connects an unspecified address: connect() to 0.0.0.0
 * (also as ::ffff:0.0.0.0 on a dual-stack socket) reaches 127.0.0.1, to
 * :: reaches ::1. Into lo (family *lf); false for any other address. */
static bool unspecified_reaches(int family, const unsigned char *a, int *lf, unsigned char *lo)
{
	static const unsigned char v4_any[4], mapped_any[16] = {[10] = 0xff, [11] = 0xff};

	memset(lo, 0, 16);
	if ((family == AF_INET && !memcmp(a, v4_any, 4)) ||
	    (family == AF_INET6 && !memcmp(a, mapped_any, 16))) {
		*lf = AF_INET;
		lo[0] = 127, lo[3] = 1;
		return true;
	}
	if (family == AF_INET6 && !memcmp(a, v6_zero, 16)) {
		*lf = AF_INET6;
		lo[15] = 1;
		return true;
	}
	return false;
}

enum hm_verdict hm_check_addr(const struct hm_rules *rules, int family, const unsigned char *addr,
			      int port, const struct hm_rule **rule, const char **cls)
{
	unsigned char lo[16];
	int lf;

	*cls = NULL;
	if ((*rule = find_addr(rules->deny, rules->ndeny, family, addr, port, true)))
		return HM_DENIED;
	/* --deny-host 127.0.0.0/8 holds for 0.0.0.0, [::ffff:0.0.0.0] and
	 * [::] too, which reach the host's loopback as well (a wide allow
	 * rule, such as 0.0.0.0/0, let them past the deny rule). */
	if (unspecified_reaches(family, addr, &lf, lo) &&
	    (*rule = find_addr(rules->deny, rules->ndeny, lf, lo, port, true)))
		return HM_DENIED;
	*cls = hm_addr_class(family, addr);
	if (!*cls)
		return *rule = NULL, HM_ALLOWED;
	/* SSRF and DNS rebinding: loopback, the LAN, link-local (cloud
	 * metadata at 169.254.169.254) only when named as addresses. */
	if ((*rule = find_addr(rules->allow, rules->nallow, family, addr, port, false)))
		return HM_ALLOWED;
	return HM_BAD_ADDR;
}

static const char *v4_class(const unsigned char *a)
{
	uint32_t x = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
	static const struct {
		uint32_t net, mask;
		const char *cls;
	} table[] = {
		{0x00000000, 0xff000000, "unspecified"},    /* 0/8: "this network" */
		{0x0a000000, 0xff000000, "private"},        /* 10/8 */
		{0x64400000, 0xffc00000, "shared (CGNAT)"}, /* 100.64/10 */
		{0x7f000000, 0xff000000, "loopback"},       /* 127/8 */
		{0xa9fe0000, 0xffff0000, "link-local"},     /* 169.254/16: cloud metadata */
		{0xac100000, 0xfff00000, "private"},        /* 172.16/12 */
		{0xc0000000, 0xffffff00, "reserved"},       /* 192.0.0/24: protocol assignments */
		{0xc0000200, 0xffffff00, "documentation"},  /* 192.0.2/24 */
		{0xc0a80000, 0xffff0000, "private"},        /* 192.168/16 */
		{0xc6120000, 0xfffe0000, "benchmarking"},   /* 198.18/15 */
		{0xc6336400, 0xffffff00, "documentation"},  /* 198.51.100/24 */
		{0xcb007100, 0xffffff00, "documentation"},  /* 203.0.113/24 */
		{0xe0000000, 0xf0000000, "multicast"},      /* 224/4 */
		{0xf0000000, 0xf0000000, "reserved"},       /* 240/4, 255.255.255.255 broadcast */
	};

	if (x == 0xffffffff)
		return "broadcast";
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if ((x & table[i].mask) == table[i].net)
			return table[i].cls;
	return NULL;
}

const char *hm_addr_class(int family, const unsigned char *a)
{
	static const unsigned char nat64_local[6] = {0, 0x64, 0xff, 0x9b, 0, 0x01};
	unsigned char v4[4];
	const char *cls;

	if (family == AF_INET)
		return v4_class(a);
	if (family != AF_INET6)
		return "unknown family";
	if (!memcmp(a, v6_zero, 15) && a[15] <= 1)
		return a[15] == 1 ? "loopback" : "unspecified";
	/* ::ffff:127.0.0.1 is 127.0.0.1 on a dual-stack socket; NAT64
	 * (64:ff9b::/96) and 6to4 (2002::/16) reach the embedded IPv4
	 * address through a gateway: all are judged as that IPv4 address. */
	if (!memcmp(a, v6_zero, 10) && a[10] == 0xff && a[11] == 0xff)
		return v4_class(a + 12);
	/* So are ::127.0.0.1 (IPv4-compatible: sit tunnels it to 127.0.0.1)
	 * and ::ffff:0:127.0.0.1 (SIIT): only ::/120 was refused, and
	 * ::7f00:1 passed as public. Neither form is in use: one that
	 * embeds a public address is refused as well. */
	if (is_v4_compatible(a) || !memcmp(a, v4_translated, 12)) {
		cls = v4_class(a + 12);
		return cls            ? cls
		       : a[8] == 0xff ? "reserved (IPv4-translated)"
				      : "reserved (IPv4-compatible)";
	}
	if (embedded_v4(family, a, false, v4))
		return v4_class(v4);
	/* Teredo's client address is hidden (inverted) in its last 32 bits,
	 * for a loopback or LAN address as well: never taken as public. */
	if (is_teredo(a))
		return "Teredo";
	/* NAT64's local-use prefix (64:ff9b:1::/48, RFC 8215) embeds the
	 * IPv4 address where the operator's prefix length puts it: a site's
	 * own translator, to be named as an address to be reached. */
	if (!memcmp(a, nat64_local, 6))
		return "NAT64 local-use";
	if ((a[0] & 0xfe) == 0xfc)
		return "unique local (ULA)"; /* fc00::/7 */
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return "link-local"; /* fe80::/10 */
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return "site-local"; /* fec0::/10, deprecated */
	if (a[0] == 0xff)
		return "multicast"; /* ff00::/8 */
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8)
		return "documentation"; /* 2001:db8::/32 */
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0x02 && !a[4] && !a[5])
		return "benchmarking"; /* 2001:2::/48, as 198.18/15 */
	if (a[0] == 0x01 && !memcmp(a + 1, v6_zero, 7))
		return "discard"; /* 100::/64 */
	/* Global unicast is 2000::/3; the rest of ::/8 and the other
	 * unassigned blocks reach nothing public (any other embedding of an
	 * IPv4 address among them included). */
	if ((a[0] & 0xe0) != 0x20)
		return "reserved";
	return NULL;
}

void hm_suggest(const struct hm_target *t, char *buf, size_t len)
{
	if (t->is_addr && t->family == AF_INET6)
		snprintf(buf, len, "[%s]:%d", t->name, t->port);
	else
		snprintf(buf, len, "%s:%d", t->name, t->port);
}
