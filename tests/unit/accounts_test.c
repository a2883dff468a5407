/* kjail's lookups without glibc's NSS (runtime/accounts.c,
 * runtime/getent.c) and the proxy's reading of `getent ahosts`
 * (net/proxy_hosts.c). TAP. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "net/proxy_int.h"
#include "runtime/accounts.h"
#include "runtime/getent.h"

static int n, failed;

static void ok(int cond, const char *name)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++n, name);
	failed += !cond;
}

static FILE *stream(const char *text)
{
	FILE *f = tmpfile();

	if (f) {
		fputs(text, f);
		rewind(f);
	}
	return f;
}

static void parse_lines(void)
{
	struct kj_account a;
	char l1[] = "alice:x:1000:1001:Alice,,,:/home/alice:/bin/bash\n";
	char l2[] = "staff:x:50:alice,bob\n";
	char l3[] = "bad:x:notanumber:1:::\n";
	char l4[] = "short:x:1\n";
	char l5[] = "big:x:4294967295:1::/h:/bin/sh\n";
	char l6[] = ":x:1:1::/h:/bin/sh\n";

	ok(account_parse(l1, false, &a) == 0 && a.uid == 1000 && a.gid == 1001 &&
		   !strcmp(a.name, "alice") && !strcmp(a.home, "/home/alice"),
	   "passwd_line_parsed");
	ok(account_parse(l2, true, &a) == 0 && a.gid == 50 && !strcmp(a.name, "staff"),
	   "group_line_parsed");
	ok(account_parse(l3, false, &a) == -EINVAL, "non_numeric_uid_refused");
	ok(account_parse(l4, false, &a) == -EINVAL, "short_passwd_line_refused");
	ok(account_parse(l5, false, &a) == -EINVAL, "uid_minus_one_refused");
	ok(account_parse(l6, false, &a) == -EINVAL, "empty_name_refused");
}

static void scan_files(void)
{
	struct kj_account a;
	char longline[6000];
	FILE *f;

	memset(longline, 'x', sizeof(longline) - 2);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	f = stream("root:x:0:0:root:/root:/bin/sh\n+nis::::::\n");
	ok(f && account_scan(f, false, "nis", 0, &a) == -ENOENT, "nis_compat_line_not_an_entry");
	if (f)
		fclose(f);
	f = tmpfile();
	if (f) {
		fputs(longline, f);
		fputs("carol:x:1002:1002::/home/carol:/bin/sh\n", f);
		rewind(f);
	}
	ok(f && account_scan(f, false, "carol", 0, &a) == 0 && a.uid == 1002,
	   "entry_after_an_overlong_line_found");
	if (f)
		fclose(f);
	f = stream("a:x:5:5::/a:/bin/sh\nb:x:6:7::/b:/bin/sh\n");
	ok(f && account_scan(f, false, NULL, 6, &a) == 0 && !strcmp(a.name, "b") && a.gid == 7,
	   "found_by_uid");
	if (f)
		fclose(f);
	f = stream("wheel:x:10:\nusers:x:100:\n");
	ok(f && account_scan(f, true, "users", 0, &a) == 0 && a.gid == 100, "group_found_by_name");
	if (f)
		fclose(f);
}

/* The real lookups, through the files and through getent(1). */
static void host_lookups(void)
{
	struct kj_account a;
	char out[4096];
	gid_t gid;
	long len;

	ok(account_by_uid(0, &a) == 0 && !strcmp(a.name, "root"), "uid_0_is_root");
	ok(account_by_name("root", &a) == 0 && a.uid == 0, "root_by_name");
	ok(account_by_name("kjail-no-such-user-x", &a) == -ENOENT, "unknown_name_not_found");
	ok(account_by_name("-x", &a) == -ENOENT, "dash_name_not_an_option_to_getent");
	ok(group_by_name("root", &gid) == 0 && gid == 0, "root_group_by_name");
	len = getent_query("passwd", "root", out, sizeof(out));
	ok(len > 0 && account_parse(out, false, &a) == 0 && a.uid == 0,
	   "getent_answers_like_the_file");
	ok(getent_query("passwd", "kjail-no-such-user-x", out, sizeof(out)) == -ENOENT,
	   "getent_unknown_is_enoent");
	ok(getent_query("passwd", "root", out, 8) == -E2BIG, "getent_answer_too_long_is_refused");
}

static void getent_hosts(void)
{
	int family[8];
	unsigned char addr[8][16], v4[4], v6[16];
	char text[] = "127.0.0.1       STREAM localhost\n127.0.0.1       DGRAM  \n"
		      "127.0.0.1       RAW    \n::1             STREAM \n::1             DGRAM  \n"
		      "127.0.0.1       STREAM again\nnot-an-address STREAM x\n";
	char out[4096];
	int k;
	bool lo = false;

	inet_pton(AF_INET, "127.0.0.1", v4);
	inet_pton(AF_INET6, "::1", v6);
	k = hosts_parse_getent(text, family, addr, 8);
	ok(k == 2 && family[0] == AF_INET && !memcmp(addr[0], v4, 4) && family[1] == AF_INET6 &&
		   !memcmp(addr[1], v6, 16),
	   "ahosts_stream_lines_once_each");
	if (getent_query("ahosts", "localhost", out, sizeof(out)) > 0) {
		k = hosts_parse_getent(out, family, addr, 8);
		for (int i = 0; i < k; i++)
			lo |= (family[i] == AF_INET && !memcmp(addr[i], v4, 4)) ||
			      (family[i] == AF_INET6 && !memcmp(addr[i], v6, 16));
	}
	ok(lo, "getent_ahosts_localhost_is_loopback");
}

int main(void)
{
	parse_lines();
	scan_files();
	host_lookups();
	getent_hosts();
	printf("1..%d\n", n);
	return failed != 0;
}
