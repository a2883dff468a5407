#include "runtime/validate.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/accounts.h"

/* Digits only, no sign, no blanks: strtoull alone would take " -1". */
static int parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

int parse_size(const char *opt, const char *s, uint64_t *out, struct kj_err *err)
{
	static const char units[] = "kmgt";
	size_t n = strspn(s, "0123456789");
	const char *suffix = s + n;
	uint64_t v, mul = 1;

	if (parse_u64(s, n, &v) == 0) {
		if (*suffix) {
			const char *u = strchr(units, tolower((unsigned char)*suffix));
			if (!u)
				goto bad;
			for (const char *p = units; p <= u; p++)
				mul <<= 10;
			suffix++;
			if (strcasecmp(suffix, "") && strcasecmp(suffix, "b") &&
			    strcasecmp(suffix, "ib"))
				goto bad;
		}
		/* UINT64_MAX is "max" (parse_size_or_max): written as a
		 * number it would lift the limit it was meant to set. */
		if (v > UINT64_MAX / mul || v * mul == UINT64_MAX)
			return kj_fail(err, "option", ERANGE, "the largest size is 16777215T",
				       "--%s %s", opt, s);
		*out = v * mul;
		return 0;
	}
bad:
	return kj_fail(
		err, "option", 0,
		"a size is a number of bytes with an optional K, M, G or T suffix: 200000, 64M, 1G",
		"--%s: invalid size '%s'", opt, s);
}

/* Units are case-insensitive as size suffixes are ("30S", "2M": in a
 * duration M is minutes; there is no month). */
int parse_duration(const char *opt, const char *s, uint64_t *ms, struct kj_err *err)
{
	size_t whole = strspn(s, "0123456789"), frac = 0;
	const char *p = s + whole, *fp = NULL;
	uint64_t w, f = 0, mul;

	if (*p == '.') {
		fp = p + 1;
		frac = strspn(fp, "0123456789");
		if (frac == 0)
			goto bad;
		p = fp + frac;
	}
	if (parse_u64(s, whole, &w))
		goto bad;
	if (!strcasecmp(p, "ms"))
		mul = 1;
	else if (!strcasecmp(p, "s") || !*p)
		mul = 1000;
	else if (!strcasecmp(p, "m"))
		mul = 60 * 1000;
	else if (!strcasecmp(p, "h"))
		mul = 3600 * 1000;
	else
		goto bad;
	/* "0.0001" or "1.5ms": below kjail's resolution. Never rounded:
	 * "--timeout 0.0001" read as 0 would be no timeout at all. */
	if (fp && (frac > 3 || mul == 1))
		return kj_fail(
			err, "option", 0,
			"kjail counts whole milliseconds: give at most 3 decimals, none with ms, e.g. 1.5s, 0.25m, 250ms",
			"--%s: '%s' is finer than kjail's resolution of 1 ms", opt, s);
	if (fp) {
		(void)parse_u64(fp, frac, &f);
		for (size_t i = frac; i < 3; i++)
			f *= 10;
		f = f * mul / 1000;
	}
	if (w > (UINT64_MAX - f) / mul / 2)
		return kj_fail(err, "option", ERANGE, "give a shorter duration", "--%s %s", opt, s);
	*ms = w * mul + f;
	return 0;
bad:
	return kj_fail(
		err, "option", 0,
		"a duration is a number with an optional unit: 500ms, 30s, 1.5s, 2m, 1h; a bare number is seconds",
		"--%s: invalid duration '%s'", opt, s);
}

void format_duration(uint64_t ms, char *buf, size_t len)
{
	if (ms % 3600000 == 0)
		snprintf(buf, len, "%lluh", (unsigned long long)(ms / 3600000));
	else if (ms % 60000 == 0)
		snprintf(buf, len, "%llum", (unsigned long long)(ms / 60000));
	else if (ms % 1000 == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(ms / 1000));
	else
		snprintf(buf, len, "%llums", (unsigned long long)ms);
}

int parse_id(const char *s, size_t len, uint32_t *out)
{
	uint64_t v;

	/* (uid_t)-1 means "unchanged" to the kernel; never accept it. */
	if (parse_u64(s, len, &v) || v >= UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int parse_user(const char *opt, const char *s, uid_t *uid, gid_t *gid, struct kj_err *err)
{
	const char *colon = strchr(s, ':');
	size_t ulen = colon ? (size_t)(colon - s) : strlen(s);
	char name[256];
	struct kj_account acct;
	uint32_t id;

	if (ulen == 0 || ulen >= sizeof(name) || (colon && !colon[1]))
		goto bad;
	memcpy(name, s, ulen);
	name[ulen] = '\0';
	if (parse_id(name, ulen, &id) == 0) {
		*uid = id;
		*gid = account_by_uid(id, &acct) == 0 ? acct.gid : id;
	} else {
		/* All digits, yet no id: out of range, said as such (it was
		 * "no such user '4294967295'"). */
		if (strspn(name, "0123456789") == ulen)
			return kj_fail(err, "option", 0, "give a uid from 0 to 4294967294",
				       "--%s: uid %s is out of range", opt, name);
		if (account_by_name(name, &acct))
			return kj_fail(err, "option", 0,
				       "give a numeric uid or an existing user name",
				       "--%s: no such user '%s'", opt, name);
		*uid = acct.uid;
		*gid = acct.gid;
	}
	if (colon) {
		if (parse_id(colon + 1, strlen(colon + 1), &id) == 0)
			*gid = id;
		else if (strspn(colon + 1, "0123456789") == strlen(colon + 1))
			return kj_fail(err, "option", 0, "give a gid from 0 to 4294967294",
				       "--%s: gid %s is out of range", opt, colon + 1);
		else if (group_by_name(colon + 1, gid))
			return kj_fail(err, "option", 0,
				       "give a numeric gid or an existing group name",
				       "--%s: no such group '%s'", opt, colon + 1);
	}
	return 0;
bad:
	return kj_fail(err, "option", 0, "use UID or UID:GID, e.g. --user 1000:1000",
		       "--%s: invalid user '%s'", opt, s);
}

int parse_enum(const char *opt, const char *s, const char *const *names, struct kj_err *err)
{
	char valid[200] = "";
	size_t n = 0;

	for (int i = 0; names[i]; i++) {
		if (!strcasecmp(s, names[i]))
			return i;
		n += (size_t)snprintf(valid + n, sizeof(valid) - n, "%s%s", i ? ", " : "",
				      names[i]);
		if (n >= sizeof(valid))
			n = sizeof(valid) - 1;
	}
	{
		char fix[240];
		snprintf(fix, sizeof(fix), "valid values: %s", valid);
		return kj_fail(err, "option", 0, fix, "--%s: invalid value '%s'", opt, s);
	}
}

int check_env_name(const char *opt, const char *s, size_t len, struct kj_err *err)
{
	bool ok = len > 0 && (isalpha((unsigned char)s[0]) || s[0] == '_');

	for (size_t i = 1; ok && i < len; i++)
		ok = isalnum((unsigned char)s[i]) || s[i] == '_';
	if (!ok)
		return kj_fail(err, "option", 0,
			       "a name is letters, digits and _, not starting with a digit",
			       "--%s: invalid variable name '%.*s'", opt, (int)len, s);
	return 0;
}

int parse_size_or_max(const char *opt, const char *s, uint64_t *out, struct kj_err *err)
{
	if (!strcasecmp(s, "max")) {
		*out = UINT64_MAX;
		return 0;
	}
	return parse_size(opt, s, out, err);
}

int parse_count_or_max(const char *opt, const char *s, uint64_t *out, struct kj_err *err)
{
	size_t n = strspn(s, "0123456789");

	if (!strcasecmp(s, "max")) {
		*out = UINT64_MAX;
		return 0;
	}
	if (s[n] || parse_u64(s, n, out) || *out == 0 || *out >= (1ULL << 31))
		return kj_fail(err, "option", 0, "give a positive whole number or max",
			       "--%s: invalid count '%s'", opt, s);
	return 0;
}

int parse_cpus(const char *opt, const char *s, uint64_t *quota_us, struct kj_err *err)
{
	size_t whole = strspn(s, "0123456789"), frac = 0;
	uint64_t w = 0, f = 0;

	if (!strcasecmp(s, "max")) {
		*quota_us = UINT64_MAX;
		return 0;
	}
	if (s[whole] == '.') {
		frac = strspn(s + whole + 1, "0123456789");
		if (frac == 0 || frac > 3 || s[whole + 1 + frac])
			goto bad;
		(void)parse_u64(s + whole + 1, frac, &f);
		for (size_t i = frac; i < 3; i++)
			f *= 10;
	} else if (s[whole]) {
		goto bad;
	}
	if ((whole == 0 && frac == 0) || (whole && parse_u64(s, whole, &w)))
		goto bad;
	if (w > 4096 || (w == 4096 && f))
		goto bad;
	/* cpu.max quota over a 100 ms period; the kernel's minimum is 1 ms. */
	*quota_us = (w * 1000 + f) * 100;
	if (*quota_us < 1000)
		goto bad;
	return 0;
bad:
	return kj_fail(
		err, "option", 0,
		"give a number of CPUs from 0.01 to 4096, at most 3 decimals, such as 0.5 or 2; "
		"or max",
		"--%s: invalid value '%s'", opt, s);
}
