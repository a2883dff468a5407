/* Users and groups: /etc/passwd and /etc/group read here, getent for the
 * rest (runtime/getent.c: no NSS module is ever loaded into kjail). */
#include "runtime/accounts.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "runtime/getent.h"
#include "runtime/validate.h"

/* "name:x:uid:gid:gecos:home:shell" or "name:x:gid:members". */
int account_parse(char *line, bool is_group, struct kj_account *a)
{
	char *f[7], *p = line;
	uint32_t id, gid = 0;
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	while (n < 7 && (f[n] = strsep(&p, ":")))
		n++;
	if (n < (is_group ? 3 : 6) || !f[0][0] || strlen(f[0]) >= sizeof(a->name) ||
	    parse_id(f[2], strlen(f[2]), &id) ||
	    (!is_group && parse_id(f[3], strlen(f[3]), &gid)) ||
	    (!is_group && strlen(f[5]) >= sizeof(a->home)))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	strcpy(a->name, f[0]);
	a->uid = (uid_t)id;
	a->gid = is_group ? (gid_t)id : (gid_t)gid;
	if (!is_group)
		strcpy(a->home, f[5]);
	return 0;
}

int account_scan(FILE *f, bool is_group, const char *name, uint32_t id, struct kj_account *a)
{
	char line[4096];

	while (fgets(line, sizeof(line), f)) {
		struct kj_account e;
		/* A line longer than the buffer is not an entry: skip its rest. */
		if (!strchr(line, '\n') && !feof(f)) {
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (line[0] == '+' || line[0] == '-' || account_parse(line, is_group, &e))
			continue; /* NIS compat lines are getent's business */
		if (name ? !strcmp(e.name, name) : (is_group ? e.gid : e.uid) == id) {
			*a = e;
			return 0;
		}
	}
	return -ENOENT;
}

static int lookup(bool is_group, const char *name, uint32_t id, struct kj_account *a)
{
	char key[32], out[8192];
	FILE *f = fopen(is_group ? "/etc/group" : "/etc/passwd", "re");
	int rc = -ENOENT;

	if (f) {
		rc = account_scan(f, is_group, name, id, a);
		fclose(f);
	}
	if (rc == 0)
		return 0;
	snprintf(key, sizeof(key), "%u", id);
	if (getent_query(is_group ? "group" : "passwd", name ? name : key, out, sizeof(out)) < 0)
		return -ENOENT;
	/* getent prints the one entry in the files' format; a numeric name
	 * would have been taken for an id, so check what came back. */
	if (account_parse(out, is_group, a) ||
	    (name ? strcmp(a->name, name) : (is_group ? a->gid : a->uid) != id))
		return -ENOENT;
	return 0;
}

int account_by_uid(uid_t uid, struct kj_account *a)
{
	return lookup(false, NULL, (uint32_t)uid, a);
}

int account_by_name(const char *name, struct kj_account *a)
{
	return lookup(false, name, 0, a);
}

int group_by_name(const char *name, gid_t *gid)
{
	struct kj_account a;
	int rc = lookup(true, name, 0, &a);

	if (rc == 0)
		*gid = a.gid;
	return rc;
}
