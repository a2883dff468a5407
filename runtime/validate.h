/* Value parsers shared by every source of configuration. Each returns 0
 * or -EINVAL and fills err naming the option and the valid forms. */
#ifndef KJAIL_VALIDATE_H
#define KJAIL_VALIDATE_H

#include <stdint.h>
#include <sys/types.h>

#include "runtime/error.h"

/* "64M", "1G", "200000", "512k", "2GiB": bytes, binary units. */
int parse_size(const char *opt, const char *s, uint64_t *out, struct kj_err *err);
/* "500ms", "30s", "1.5s", "2m", "1h" (any case); a bare number is seconds;
 * 1 ms resolution: a finer value is refused, never rounded. */
int parse_duration(const char *opt, const char *s, uint64_t *ms, struct kj_err *err);
/* "UID" or "UID:GID", numeric or a name from the user database. */
int parse_user(const char *opt, const char *s, uid_t *uid, gid_t *gid, struct kj_err *err);
/* A uid or gid: the len digits at s, below (uid_t)-1 ("unchanged" to the
 * kernel). 0 or -EINVAL. */
int parse_id(const char *s, size_t len, uint32_t *out);
/* A size, or "max" (KJ_LIMIT_MAX). */
int parse_size_or_max(const char *opt, const char *s, uint64_t *out, struct kj_err *err);
/* A count ("256") or "max". */
int parse_count_or_max(const char *opt, const char *s, uint64_t *out, struct kj_err *err);
/* CPUs as a decimal ("0.5", "2") or "max": quota in us per 100ms period. */
int parse_cpus(const char *opt, const char *s, uint64_t *quota_us, struct kj_err *err);
/* Case-insensitive match of s against a NULL-terminated list: index or error. */
int parse_enum(const char *opt, const char *s, const char *const *names, struct kj_err *err);
/* An environment variable name: [A-Za-z_][A-Za-z0-9_]*. */
int check_env_name(const char *opt, const char *s, size_t len, struct kj_err *err);
/* Render ms as the user wrote it ("30s", "500ms", "2m"). */
void format_duration(uint64_t ms, char *buf, size_t len);

#endif
