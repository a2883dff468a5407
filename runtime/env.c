/* The caller's environment is where API keys and tokens live; an agent's
 * untrusted command must not inherit them. Only names on the allow-list
 * pass, never one that looks like a secret, unless named explicitly. */
#include "runtime/env.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/accounts.h"
#include "runtime/validate.h"

extern char **environ;

static const char *const allowed[] = {
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "TERM", "TZ", "COLORTERM", "NO_COLOR", NULL,
};

static const char *const secret_parts[] = {
	"SECRET",
	"PASSWORD",
	"PASSWD",
	"TOKEN",
	"CREDENTIAL",
	"APIKEY",
	"API_KEY",
	"PRIVATE_KEY",
	"COOKIE",
	"PASSPHRASE",
	/* S3_ACCESS_KEY_ID; a database URL carries its password */
	"ACCESS_KEY",
	"DATABASE_URL",
	NULL,
};
/* _DSN: Sentry's and the like hold a key */
static const char *const secret_suffixes[] = {"_KEY", "_PASS", "_PWD", "_PAT", "_DSN", NULL};
static const char *const secret_prefixes[] = {
	"AWS_",        "GH_",        "GITHUB_",   "SSH_",
	"GPG_",        "VAULT_",     "AZURE_",    "GOOGLE_APPLICATION_",
	"DOCKER_AUTH", "KUBECONFIG", "NPM_TOKEN", NULL,
};

bool env_is_secret(const char *name, size_t len)
{
	char up[256];

	if (len >= sizeof(up))
		return true; /* absurdly long names are not worth the risk */
	for (size_t i = 0; i < len; i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	up[len] = '\0';
	for (int i = 0; secret_parts[i]; i++)
		if (strstr(up, secret_parts[i]))
			return true;
	for (int i = 0; secret_suffixes[i]; i++) {
		size_t sl = strlen(secret_suffixes[i]);
		if (len >= sl && !strcmp(up + len - sl, secret_suffixes[i]))
			return true;
	}
	for (int i = 0; secret_prefixes[i]; i++)
		if (!strncmp(up, secret_prefixes[i], strlen(secret_prefixes[i])))
			return true;
	return false;
}

static bool in_list(const char *const *list, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n && list[i]; i++)
		if (strlen(list[i]) == len && !strncmp(list[i], name, len))
			return true;
	return false;
}

/* LC_*: the locale categories glibc knows, no other LC_ name. SSH's
 * habit of `AcceptEnv LC_*` makes LC_ a way to carry data to a remote
 * shell (`LC_DB=postgres://user:password@...`), and such a name looks
 * like no secret. */
static const char *const locale_names[] = {
	"LC_ALL",         "LC_CTYPE",    "LC_COLLATE",
	"LC_MESSAGES",    "LC_MONETARY", "LC_NUMERIC",
	"LC_TIME",        "LC_ADDRESS",  "LC_IDENTIFICATION",
	"LC_MEASUREMENT", "LC_NAME",     "LC_PAPER",
	"LC_TELEPHONE",   NULL,
};

static bool allowed_name(const char *name, size_t len)
{
	return in_list(allowed, SIZE_MAX, name, len) || in_list(locale_names, SIZE_MAX, name, len);
}

/* Replace or append NAME=VALUE (entry) in env. */
static void env_put(char **env, size_t *n, const char *entry)
{
	size_t len = strcspn(entry, "=");

	for (size_t i = 0; i < *n; i++)
		if (!strncmp(env[i], entry, len) && env[i][len] == '=') {
			env[i] = (char *)entry;
			return;
		}
	env[(*n)++] = (char *)entry;
}

/* Remove NAME (no '=') from env. */
static void env_drop(char **env, size_t *n, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < *n; i++)
		if (!strncmp(env[i], name, len) && env[i][len] == '=') {
			env[i] = env[--(*n)];
			return;
		}
}

static char *env_fmt(const char *name, const char *value)
{
	char *s;
	return asprintf(&s, "%s=%s", name, value) < 0 ? NULL : s;
}

#define ENV_FILE_MAX_VARS 256
#define ENV_FILE_MAX_LINE (128 * 1024)

int env_file_load(struct kj_config *cfg, struct kj_conf_files *files, struct kj_err *err)
{
	char *text, *real, *line, *next;
	const char *shown;
	unsigned lineno = 0;
	int rc;

	if (!cfg->env_file)
		return 0;
	/* A symlink the sandbox could have planted on the way chooses the
	 * vault: ./vault -> ~/.config/kjail/prod.vault, swapped by run 1,
	 * gave run 2 the production tokens (as for --profile PATH). */
	{
		char buf[PATH_MAX];
		rc = config_resolve_unplanted(cfg, "env-file", "--env-file", cfg->env_file, true,
					      buf, err);
		if (rc > 0)
			return -EPERM; /* a missing file: conf_read says so below */
	}
	rc = conf_read("env-file", cfg->env_file, CONF_PRIVATE, &text, &real, err);
	if (rc == -ENOENT)
		return kj_fail(err, "env-file", ENOENT, "give the path of a NAME=VALUE file",
			       "--env-file %s", cfg->env_file);
	if (rc)
		return rc;
	shown = conf_shown(real);
	conf_files_add(files, real, shown, "read (values not shown)");
	cfg->env_file_text = text;
	cfg->env_file_vars = calloc(ENV_FILE_MAX_VARS, sizeof(char *));
	if (!cfg->env_file_vars)
		return kj_fail(err, "env-file", ENOMEM, NULL, "%s", shown);
	for (line = text; line && *line; line = next) {
		size_t len, size;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line += strspn(line, " \t");
		if (!*line || *line == '#')
			continue;
		/* A vault saved with Windows line ends: every value would end in
		 * a carriage return, a token that silently fails to sign in. */
		size = strlen(line);
		if (line[size - 1] == '\r')
			return kj_fail(
				err, "env-file", 0,
				"convert the file to Unix line ends: dos2unix FILE, or sed -i 's/\\r$//' FILE",
				"%s:%u: the line ends in a carriage return", shown, lineno);
		/* Messages name the file, the line and at most the name: the
		 * rest of a line may be a secret. */
		len = strcspn(line, "=");
		if (!line[len])
			return kj_fail(err, "env-file", 0, "write NAME=VALUE lines",
				       "%s:%u: the line has no '='", shown, lineno);
		if (check_env_name("env-file", line, len, err))
			return kj_fail(err, "env-file", 0,
				       "a name is letters, digits and _, not starting with a digit",
				       "%s:%u: invalid variable name", shown, lineno);
		/* The kernel's bound on one environment string (MAX_ARG_STRLEN,
		 * 32 pages of 4K): a longer line failed COMMAND's execve, 126
		 * "kjail: exec: CMD: Argument list too long", as if the
		 * command were at fault, not the vault. */
		if (size >= ENV_FILE_MAX_LINE)
			return kj_fail(
				err, "env-file", 0, "keep each NAME=VALUE under 128K",
				"%s:%u: the line is longer than the kernel allows a variable",
				shown, lineno);
		if (cfg->nenv_file_vars == ENV_FILE_MAX_VARS)
			return kj_fail(err, "env-file", 0, "split it", "%s: more than %d variables",
				       shown, ENV_FILE_MAX_VARS);
		cfg->env_file_vars[cfg->nenv_file_vars++] = line;
	}
	return 0;
}

int env_build(const struct kj_config *cfg, char ***envp, struct kj_err *err)
{
	size_t cap = 32 + cfg->nsetenv + cfg->npassenv + cfg->nenv_file_vars, n = 0;
	char **env;

	/* The name is refused, set or not: checked only on a variable the
	 * caller had, `--env GITHUB_TOKEN` ran where the token was unset (a
	 * laptop) and failed where it was set (CI), so a profile's review
	 * passed a line that was refused later. */
	for (size_t i = 0; i < cfg->npassenv; i++) {
		size_t len = strlen(cfg->passenv[i]);
		if (env_is_secret(cfg->passenv[i], len) &&
		    !in_list(cfg->allow_secret, cfg->nallow_secret, cfg->passenv[i], len))
			return kj_fail(err, "env", 0, "add --allow-secret-env NAME if it must pass",
				       "--env %s: the name looks like a secret", cfg->passenv[i]);
	}
	for (char **e = environ; *e; e++)
		cap++;
	env = calloc(cap, sizeof(*env));
	if (!env)
		return kj_fail(err, "env", ENOMEM, NULL, "build the environment");
	for (char **e = environ; *e; e++) {
		size_t len = strcspn(*e, "=");
		if (!(*e)[len])
			continue;
		if (allowed_name(*e, len) && !env_is_secret(*e, len))
			env_put(env, &n, *e);
		else if (in_list(cfg->passenv, cfg->npassenv, *e, len))
			env_put(env, &n, *e); /* a secret-looking name is allowed (above) */
	}
	if (!getenv("PATH"))
		env_put(env, &n,
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	if (cfg->user_set) {
		struct kj_account acct;
		bool known = account_by_uid(cfg->uid, &acct) == 0;
		char *h = env_fmt("HOME", known ? acct.home : "/");
		char *u = known ? env_fmt("USER", acct.name) : NULL;
		char *l = known ? env_fmt("LOGNAME", acct.name) : NULL;
		if (!h || (known && (!u || !l))) {
			free(h);
			free(u);
			free(l);
			free(env);
			return kj_fail(err, "env", ENOMEM, NULL, "build the environment");
		}
		env_put(env, &n, h);
		if (u) {
			env_put(env, &n, u);
			env_put(env, &n, l);
		} else {
			/* A uid no account names: the caller's USER=root and
			 * LOGNAME=root stayed, and told the command (sudo-like
			 * checks, git's committer, ssh's login) it ran as root. */
			env_drop(env, &n, "USER");
			env_drop(env, &n, "LOGNAME");
		}
	}
	env_put(env, &n, "TMPDIR=/tmp");
	env_put(env, &n, "TMP=/tmp");
	env_put(env, &n, "TEMP=/tmp");
	/* --net proxy: ordinary tools (curl, pip, npm, git, apt) find the
	 * relay through these; loopback stays direct. Before --setenv, which
	 * may override them. */
	if (cfg->net == KJ_NET_PROXY) {
		static const char *const proxy_env[] = {"HTTP_PROXY=http://" KJ_PROXY_URL,
							"http_proxy=http://" KJ_PROXY_URL,
							"HTTPS_PROXY=http://" KJ_PROXY_URL,
							"https_proxy=http://" KJ_PROXY_URL,
							"ALL_PROXY=socks5h://" KJ_PROXY_URL,
							"all_proxy=socks5h://" KJ_PROXY_URL,
							"NO_PROXY=localhost,127.0.0.1,::1",
							"no_proxy=localhost,127.0.0.1,::1",
							NULL};
		for (int i = 0; proxy_env[i]; i++)
			env_put(env, &n, proxy_env[i]);
	}
	/* Explicit values last: the vault, the agent, then --setenv. */
	for (size_t i = 0; i < cfg->nenv_file_vars; i++)
		env_put(env, &n, cfg->env_file_vars[i]);
	if (cfg->agent_socket) {
		char *a = env_fmt("SSH_AUTH_SOCK", cfg->isolation == KJ_ISOLATION_NONE
							   ? cfg->agent_socket
							   : KJ_AGENT_SOCKET);
		if (!a) {
			free(env);
			return kj_fail(err, "env", ENOMEM, NULL, "build the environment");
		}
		env_put(env, &n, a);
	}
	for (size_t i = 0; i < cfg->nsetenv; i++)
		env_put(env, &n, cfg->setenv[i]);
	env[n] = NULL;
	*envp = env;
	return 0;
}
