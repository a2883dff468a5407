/* Finding, reading and expanding profiles. */
#include "runtime/profile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/builtin.h"
#include "runtime/cli.h"
#include "runtime/config.h"
#include "runtime/env.h"

#define SUFFIX ".profile"
#define MAX_NAME 64

/* One profile file found. */
struct found {
	char name[MAX_NAME + 1]; /* lower case; the path for a path reference */
	const char *shown;       /* "built-in x.profile" or the path as shown */
	const char *id;          /* identity for include loops: real path or shown */
	char *real;              /* NULL for a built-in */
	char *text;              /* mutable copy */
};

/* The directories searched, highest first; the built-ins come last.
 * -ENOENT past the last; another -errno with err filled (a relative
 * XDG_CONFIG_HOME). */
static int search_dir(int i, char *out, size_t size, enum conf_trust *trust, struct kj_err *err)
{
	const char *dir;
	int rc;

	if (i == 0) {
		snprintf(out, size, "%s/profiles", KJ_ETC);
		*trust = CONF_SYSTEM;
		return 0;
	}
	if (i == 1) {
		if ((rc = conf_user_dir(&dir, err)))
			return rc;
		if (!dir)
			return -ENOENT;
		snprintf(out, size, "%s/profiles", dir);
		*trust = CONF_USER;
		return 0;
	}
	return -ENOENT;
}

/* The valid names, for "no profile 'x' (profiles: ...)". */
static void names_for_fix(char *out, size_t size)
{
	size_t n = (size_t)snprintf(out, size, "built-in profiles:");
	const char *b;

	for (size_t i = 0, k = 0; (b = kjail_builtin_name(i)) && n < size; i++) {
		size_t len = strlen(b);
		if (len > strlen(SUFFIX) && !strcmp(b + len - strlen(SUFFIX), SUFFIX))
			n += (size_t)snprintf(out + n, size - n, "%s %.*s", k++ ? "," : "",
					      (int)(len - strlen(SUFFIX)), b);
	}
	if (n < size)
		snprintf(out + n, size - n, "; kjail profile list shows all");
}

static int check_name(const char *ref, const char *label, char *name, struct kj_err *err)
{
	size_t len = strlen(ref);

	if (len == 0)
		return kj_fail(err, "option", 0,
			       "name a profile, see kjail profile list; or give a path",
			       "%s: empty value", label);
	if (len > MAX_NAME)
		return kj_fail(err, "option", 0, "profile names are at most 64 characters",
			       "%s: invalid profile name '%.64s...'", label, ref);
	for (size_t i = 0; i <= len; i++) {
		char c = (char)tolower((unsigned char)ref[i]);
		if (c && !isalnum((unsigned char)c) && !(i && (c == '-' || c == '_' || c == '.')))
			return kj_fail(
				err, "option", 0,
				"a profile name is letters, digits, '-', '_' and '.'; a path has a '/'",
				"%s: invalid profile name '%s'", label, ref);
		name[i] = c;
	}
	return 0;
}

/* Find ref: a path (it has a '/'), else a name in the search order. */
static int find(const char *ref, const char *label, struct found *f, struct kj_err *err)
{
	char path[PATH_MAX], fix[400];
	enum conf_trust trust;
	const char *b;
	int rc;

	memset(f, 0, sizeof(*f));
	if (strchr(ref, '/')) {
		snprintf(f->name, sizeof(f->name), "%s", ref);
		rc = conf_read("profile", ref, CONF_USER, &f->text, &f->real, err);
		if (rc == -ENOENT)
			return kj_fail(err, "option", ENOENT,
				       "give the path of a profile file, or a name", "%s: %s",
				       label, ref);
		if (rc)
			return rc;
		f->shown = conf_shown(f->real);
		f->id = f->real;
		return 0;
	}
	if ((rc = check_name(ref, label, f->name, err)))
		return rc;
	for (int i = 0; (rc = search_dir(i, path, sizeof(path), &trust, err)) != -ENOENT; i++) {
		if (rc)
			return rc;
		size_t n = strlen(path);
		snprintf(path + n, sizeof(path) - n, "/%s%s", f->name, SUFFIX);
		/* Not there: nobody else may have taken it away (the next
		 * directory's, or the built-in, would be used instead). */
		rc = conf_read_vetted("profile", path, trust, &f->text, &f->real, err);
		if (rc == -ENOENT)
			continue;
		if (rc)
			return rc;
		f->shown = conf_shown(f->real);
		f->id = f->real;
		return 0;
	}
	snprintf(path, sizeof(path), "%s%s", f->name, SUFFIX);
	b = kjail_builtin_find(path);
	if (b) {
		char *shown;
		f->text = strdup(b);
		if (!f->text || asprintf(&shown, "built-in %s", path) < 0) {
			free(f->text);
			f->text = NULL;
			return kj_fail(err, "profile", ENOMEM, NULL, "%s", path);
		}
		f->shown = f->id = shown;
		return 0;
	}
	names_for_fix(fix, sizeof(fix));
	return kj_fail(err, "option", 0, fix, "%s: no profile '%s'", label, ref);
}

int profile_name_check(const char *name, const char *label, struct kj_err *err)
{
	char lower[MAX_NAME + 1];

	return check_name(name, label, lower, err);
}

int profile_check(const char *ref, const char *label, struct kj_err *err)
{
	struct found f;
	int rc = find(ref, label, &f, err);

	free(f.text);
	if (!f.real)
		free((char *)f.shown); /* "built-in x" */
	free(f.real);
	return rc;
}

struct expand {
	struct kj_profile *p;
	struct kj_conf_files *files;
	const char *stack[KJ_MAX_INCLUDE_DEPTH + 1];
	int depth;
	struct kj_err *err;
};

static int expand(struct expand *x, const char *ref, const char *label, const struct kj_line *at);

/* p takes s (NULL is fine); it is freed by profile_free(). */
static int own(struct kj_profile *p, void *s, struct kj_err *err)
{
	char **v;

	if (!s)
		return 0;
	v = realloc(p->owned, (p->nowned + 1) * sizeof(*v));
	if (!v) {
		free(s);
		kj_fail(err, "profile", ENOMEM, NULL, "reading profiles");
		return -ENOMEM;
	}
	p->owned = v;
	p->owned[p->nowned++] = s;
	return 0;
}

/* Record a name `deny profile` is matched against. A name left out would
 * escape the rule (a profile that included 16 others first, then the
 * denied one, ran with the denied one's lines): one too many is an error. */
static int add_name(struct kj_profile *p, const char *name, const char *shown, struct kj_err *err)
{
	char *copy;

	for (size_t i = 0; i < p->nnames; i++)
		if (!strcmp(p->names[i], name))
			return 0;
	if (p->nnames == KJ_MAX_PROFILES)
		return kj_fail(err, "profile", 0, "include fewer profiles",
			       "%s: more than %d profiles are included", shown, KJ_MAX_PROFILES);
	if (!(copy = strdup(name)))
		return kj_fail(err, "profile", ENOMEM, NULL, "reading profiles");
	p->names[p->nnames++] = copy;
	return own(p, copy, err);
}

/* A profile file is also known by its file name without .profile, lower
 * case ("/srv/p/CI.profile": ci): `deny profile ci` holds whether ci is
 * asked for by name, by the path of its file (--profile
 * /etc/kjail/profiles/ci.profile recorded no name, and ran), or through
 * a symlink. What the file says is not compared: a copy under another
 * name is another profile. */
static int add_file_name(struct kj_profile *p, const char *path, const char *shown,
			 struct kj_err *err)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	char name[NAME_MAX + 1];

	if (n > strlen(SUFFIX) && !strcmp(base + n - strlen(SUFFIX), SUFFIX))
		n -= strlen(SUFFIX);
	if (n == 0 || n > NAME_MAX)
		return 0; /* no file has such a name */
	for (size_t i = 0; i < n; i++)
		name[i] = (char)tolower((unsigned char)base[i]);
	name[n] = '\0';
	return add_name(p, name, shown, err);
}

/* The profile an include line names: a NAME, an absolute path, or a
 * relative path read from the directory of the file that includes it,
 * never from the caller's current directory: `include ./common.profile`
 * in ~/.config/kjail/profiles/b.profile read ./common.profile wherever
 * kjail ran, a file an earlier sandbox could have planted in its
 * workspace. */
static int include_ref(struct expand *x, const struct found *f, const struct kj_line *ln,
		       const char **ref)
{
	const char *slash;
	char *joined;
	int rc;

	*ref = ln->value;
	if (!strchr(ln->value, '/') || ln->value[0] == '/')
		return 0;
	if (!f->real || !(slash = strrchr(f->real, '/')))
		return kj_fail(x->err, "profile", 0, "include a NAME or an absolute path",
			       "%s:%u: a built-in profile has no directory for '%s'", ln->file,
			       ln->lineno, ln->value);
	if (asprintf(&joined, "%.*s/%s", (int)(slash - f->real), f->real, ln->value) < 0)
		return kj_fail(x->err, "profile", ENOMEM, NULL, "reading profiles");
	if ((rc = own(x->p, joined, x->err)))
		return rc;
	*ref = joined;
	return 0;
}

static int expand_lines(struct expand *x, struct found *f)
{
	struct kj_lines lines = {0};
	int rc = conf_parse("profile", f->text, f->shown, &lines, x->err);

	for (size_t i = 0; !rc && i < lines.n; i++) {
		const struct kj_line *ln = &lines.v[i];
		const char *ref;

		if (!strcmp(ln->name, "include")) {
			if (!ln->value)
				rc = kj_fail(x->err, "profile", 0, "write include NAME",
					     "%s:%u: include needs a profile name", ln->file,
					     ln->lineno);
			else if ((rc = include_ref(x, f, ln, &ref)) == 0)
				rc = expand(x, ref, "include", ln);
		} else if (!strcmp(ln->name, "profile")) {
			rc = kj_fail(x->err, "profile", 0, "write include NAME",
				     "%s:%u: a profile cannot choose a profile", ln->file,
				     ln->lineno);
		} else {
			rc = lines_add(&x->p->lines, ln->name, ln->value, ln->file, ln->lineno,
				       x->err);
		}
	}
	free(lines.v);
	return rc;
}

static int expand(struct expand *x, const char *ref, const char *label, const struct kj_line *at)
{
	struct found f;
	int rc;

	if ((rc = find(ref, label, &f, x->err))) {
		if (at)
			line_error(at, x->err);
		return rc;
	}
	/* An include loop would never end; a deep chain is a mistake too. */
	for (int i = 0; i < x->depth; i++)
		if (!strcmp(x->stack[i], f.id)) {
			rc = kj_fail(x->err, "profile", 0, "remove one of the includes",
				     "%s:%u: include loop: %s is already being read", at->file,
				     at->lineno, f.shown);
			goto out;
		}
	if (x->depth == KJ_MAX_INCLUDE_DEPTH) {
		rc = kj_fail(x->err, "profile", 0, "flatten the profiles",
			     "%s:%u: includes nested more than %d deep", at->file, at->lineno,
			     KJ_MAX_INCLUDE_DEPTH);
		goto out;
	}
	/* From here on the profile owns the text (its lines point into it)
	 * and the path (the lines' file names). */
	if ((rc = own(x->p, f.real, x->err))) {
		free(f.text);
		return rc;
	}
	if ((rc = own(x->p, f.text, x->err)))
		return rc;
	if (!f.real && (rc = own(x->p, (char *)f.shown, x->err))) /* "built-in x" */
		return rc;
	if (x->depth == 0) {
		char *name = strdup(ref);
		if ((rc = own(x->p, name, x->err)))
			return rc;
		if (!name)
			return kj_fail(x->err, "profile", ENOMEM, NULL, "reading profiles");
		x->p->name = name;
		x->p->file = f.shown;
	}
	if ((rc = strchr(ref, '/') ? add_file_name(x->p, ref, f.shown, x->err)
				   : add_name(x->p, f.name, f.shown, x->err)) ||
	    (f.real && (rc = add_file_name(x->p, f.real, f.shown, x->err))))
		return rc;
	if (x->depth == 0)
		x->p->ntop = x->p->nnames;
	if (x->files &&
	    conf_files_add(x->files, f.real, f.shown, f.real ? "read" : "built-in") == 0 &&
	    strchr(ref, '/') && x->files->n && x->files->v[x->files->n - 1].real == f.real)
		x->files->v[x->files->n - 1].given = ref; /* its links are checked too */
	x->stack[x->depth++] = f.id;
	rc = expand_lines(x, &f);
	x->depth--;
	return rc;
out:
	free(f.text);
	if (!f.real)
		free((char *)f.shown); /* "built-in x" */
	free(f.real);
	return rc;
}

int profile_load(const char *ref, const char *label, struct kj_profile *p,
		 struct kj_conf_files *files, struct kj_err *err)
{
	struct expand x = {.p = p, .files = files, .err = err};

	memset(p, 0, sizeof(*p));
	return expand(&x, ref, label, NULL);
}

void profile_free(struct kj_profile *p)
{
	for (size_t i = 0; i < p->nowned; i++)
		free(p->owned[i]);
	free(p->owned);
	free(p->lines.v);
	memset(p, 0, sizeof(*p));
}

/* The first comment of a profile says what it is for. */
static void describe(const char *text, const char *name, size_t nlen, char *out, size_t size)
{
	const char *p = text;

	out[0] = '\0';
	while (*p == '#') {
		size_t n = strcspn(p, "\n");
		const char *d = p + strspn(p, "# ");
		/* "# agent: what it is for" */
		if (!strncmp(d, name, nlen) && d[nlen] == ':')
			d += nlen + 1 + strspn(d + nlen + 1, " ");
		if (d < p + n) {
			snprintf(out, size, "%.*s", (int)(p + n - d), d);
			return;
		}
		p += n + (p[n] == '\n');
	}
}

static int list_dir(FILE *out, int i, struct kj_err *err)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], desc[200], ref[256], lower[MAX_NAME + 1];
	enum conf_trust trust;
	struct dirent *d;
	DIR *dp;
	int rc = search_dir(i, dir, sizeof(dir), &trust, err);

	if (rc)
		return rc == -ENOENT ? 0 : rc;
	if (!(dp = opendir(dir)))
		return 0;
	while ((d = readdir(dp))) {
		size_t len = strlen(d->d_name);
		char *text, *real;
		struct kj_err why;

		if (len <= strlen(SUFFIX) || strcmp(d->d_name + len - strlen(SUFFIX), SUFFIX))
			continue;
		/* Only what --profile can name: "bad name", ".hidden" or
		 * "MyProf" (names are looked up in lower case) never are. */
		snprintf(ref, sizeof(ref), "%.*s", (int)(len - strlen(SUFFIX)), d->d_name);
		if (len - strlen(SUFFIX) > MAX_NAME || check_name(ref, "--profile", lower, &why) ||
		    strcmp(ref, lower))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (conf_read("profile", path, trust, &text, &real, &why)) {
			fprintf(out, "%-12.*s %s (refused: %s)\n", (int)(len - strlen(SUFFIX)),
				d->d_name, conf_shown(path), why.msg);
			continue;
		}
		describe(text, d->d_name, len - strlen(SUFFIX), desc, sizeof(desc));
		fprintf(out, "%-12.*s %s%s%s\n", (int)(len - strlen(SUFFIX)), d->d_name,
			conf_shown(real), desc[0] ? ": " : "", desc);
		free(text);
		free(real);
	}
	closedir(dp);
	return 0;
}

int profile_list(FILE *out, struct kj_err *err)
{
	char desc[200];
	const char *b;
	int rc;

	/* A relative XDG_CONFIG_HOME is refused before anything is listed. */
	if ((rc = conf_user_dir(&b, err)))
		return rc;
	/* In search order: a file listed first shadows a later one. */
	if ((rc = list_dir(out, 0, err)) || (rc = list_dir(out, 1, err)))
		return rc;
	for (size_t i = 0; (b = kjail_builtin_name(i)); i++) {
		size_t len = strlen(b);
		if (len <= strlen(SUFFIX) || strcmp(b + len - strlen(SUFFIX), SUFFIX))
			continue;
		describe(kjail_builtin_find(b), b, len - strlen(SUFFIX), desc, sizeof(desc));
		fprintf(out, "%-12.*s built-in%s%s\n", (int)(len - strlen(SUFFIX)), b,
			desc[0] ? ": " : "", desc);
	}
	return 0;
}

int profile_show(const char *ref, FILE *out, struct kj_err *err)
{
	struct kj_profile p;
	struct kj_config scratch;
	int rc;

	if ((rc = profile_load(ref, "--profile", &p, NULL, err))) {
		profile_free(&p);
		return rc;
	}
	/* Every line through the one validator, as a run would apply it. */
	config_init(&scratch);
	for (size_t i = 0; i < p.lines.n; i++)
		if ((rc = cli_apply_option(&scratch, p.lines.v[i].name, p.lines.v[i].value, err))) {
			line_error(&p.lines.v[i], err);
			profile_free(&p);
			return rc;
		}
	fprintf(out, "# profile %s: %s\n", p.name, p.file);
	for (size_t i = 0; i < p.lines.n; i++) {
		const struct kj_line *ln = &p.lines.v[i];
		const char *v = ln->value;
		char shown[300], src[PATH_MAX + 16];
		size_t eq = v ? strcspn(v, "=") : 0;

		/* A token written into a profile is still a token. */
		if (v && !strcmp(ln->name, "setenv") && v[eq] && env_is_secret(v, eq))
			snprintf(shown, sizeof(shown), "%s %.*s=(hidden)", ln->name, (int)eq, v);
		else
			snprintf(shown, sizeof(shown), "%s%s%s", ln->name, v ? " " : "",
				 v ? v : "");
		fprintf(out, "%-32s # %s\n", shown, line_source(ln, src, sizeof(src)));
	}
	profile_free(&p);
	return 0;
}
