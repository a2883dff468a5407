/* Users and groups of the host, without glibc's NSS (runtime/getent.c
 * says why). */
#ifndef KJAIL_ACCOUNTS_H
#define KJAIL_ACCOUNTS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct kj_account {
	uid_t uid;
	gid_t gid;
	char name[256];
	char home[PATH_MAX];
};

/* /etc/passwd first, then getent (LDAP, sssd, systemd-homed users).
 * 0 found, -ENOENT not found. */
int account_by_uid(uid_t uid, struct kj_account *a);
int account_by_name(const char *name, struct kj_account *a);
/* /etc/group, then getent. 0 found, -ENOENT not found. */
int group_by_name(const char *name, gid_t *gid);

/* The pieces, for tests: the entry of `name` (or, name NULL, of `id`) in
 * a passwd- or group-format stream (is_group), and one line parsed. */
int account_scan(FILE *f, bool is_group, const char *name, uint32_t id, struct kj_account *a);
int account_parse(char *line, bool is_group, struct kj_account *a);

#endif
