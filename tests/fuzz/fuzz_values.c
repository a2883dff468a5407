/* The value parsers: sizes, durations, CPUs, users, counts, enums and
 * variable names, with their invariants (a duration printed the way kjail
 * prints it reads back the same; a count is positive and below 2^31...).
 * Input: the first byte picks the parser, the rest is the value. */
#include <stdbool.h>
#include <stdio.h>

#include "runtime/env.h"
#include "runtime/validate.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const modes[] = {"none", "host", "proxy", NULL};
	struct kj_err err = {0};
	uint64_t v = 0, back = 0;
	uid_t uid;
	gid_t gid;
	char *s, buf[64];
	int rc = 0;

	if (size < 1)
		return 0;
	s = fuzz_str(data + 1, size - 1);
	switch (data[0] % 9) {
	case 0:
		if (!(rc = parse_size("tmp-size", s, &v, &err))) {
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
			FUZZ_ASSERT(!parse_size("tmp-size", buf, &back, &err) && back == v);
		}
		break;
	case 1:
		if (!(rc = parse_duration("timeout", s, &v, &err))) {
			format_duration(v, buf, sizeof(buf));
			FUZZ_ASSERT(!parse_duration("timeout", buf, &back, &err) && back == v);
		}
		break;
	case 2:
		if (!(rc = parse_cpus("cpus", s, &v, &err)))
			FUZZ_ASSERT(v == UINT64_MAX || (v >= 1000 && v <= 4097ULL * 100000));
		break;
	case 3:
		rc = parse_user("user", s, &uid, &gid, &err);
		if (!rc)
			FUZZ_ASSERT(uid != (uid_t)-1 && gid != (gid_t)-1);
		break;
	case 4:
		rc = parse_size_or_max("memory", s, &v, &err);
		break;
	case 5:
		if (!(rc = parse_count_or_max("pids", s, &v, &err)))
			FUZZ_ASSERT(v == UINT64_MAX || (v > 0 && v < (1ULL << 31)));
		break;
	case 6:
		rc = parse_enum("net", s, modes, &err);
		FUZZ_ASSERT(rc < 0 || rc < 3);
		rc = rc < 0 ? rc : 0;
		break;
	case 7:
		if (!(rc = check_env_name("env", s, strlen(s), &err)))
			for (const char *p = s; *p; p++)
				FUZZ_ASSERT(*p == '_' || (*p >= '0' && *p <= '9' && p > s) ||
					    (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'));
		break;
	default:
		(void)env_is_secret(s, strlen(s));
		break;
	}
	if (rc)
		FUZZ_ASSERT(err.part[0] && memchr(err.msg, '\0', sizeof(err.msg)));
	free(s);
	return 0;
}
