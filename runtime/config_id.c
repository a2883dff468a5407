/* A configuration's identity: one number that changes with anything that
 * shapes the sandbox (root, binds, masks, network and its rules, Landlock,
 * seccomp and its policy text, limits, identity, environment sources), and
 * not with what one exec into a session may set on its own (timeout, kill
 * grace, output cap, --setenv, --cwd, --quiet) or what only names a source
 * (the profile's name). A session records it, so `kjail exec -s NAME
 * --create` can tell a running session made with other options from one
 * made as asked, and refuse the first instead of running the command with
 * less isolation than asked (FNV-1a, 64 bits: a fingerprint against
 * mistakes, not an adversary's collisions: whoever could forge one can
 * run kjail with any options anyway). */
#include "runtime/config_id.h"

#include <string.h>

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static void mix(uint64_t *h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		*h ^= p[i];
		*h *= FNV_PRIME;
	}
}

/* A string and its end (NULL and "" differ), so fields cannot run into
 * each other. */
static void mix_str(uint64_t *h, const char *s)
{
	unsigned char tag = s ? 1 : 0;

	mix(h, &tag, 1);
	if (s)
		mix(h, s, strlen(s) + 1);
}

static void mix_num(uint64_t *h, uint64_t v)
{
	mix(h, &v, sizeof(v));
}

static void mix_list(uint64_t *h, const char *const *list, size_t n)
{
	mix_num(h, n);
	for (size_t i = 0; i < n; i++)
		mix_str(h, list[i]);
}

static void mix_bind(uint64_t *h, const struct kj_bind *b)
{
	mix_str(h, b->src);
	mix_str(h, b->dest);
	mix_num(h, (uint64_t)b->writable << 1 | (uint64_t)b->agent);
}

uint64_t config_fingerprint(const struct kj_config *cfg)
{
	uint64_t h = FNV_OFFSET;

	mix_str(&h, cfg->root);
	mix_bind(&h, &cfg->workspace);
	mix_num(&h, cfg->nbinds);
	for (size_t i = 0; i < cfg->nbinds; i++)
		mix_bind(&h, &cfg->binds[i]);
	mix_list(&h, cfg->masks, cfg->nmasks);
	mix_list(&h, cfg->protect, cfg->nprotect);
	mix_num(&h, cfg->tmp_size);
	mix_num(&h, (uint64_t)cfg->net);
	mix_list(&h, cfg->allow_host, cfg->nallow_host);
	mix_list(&h, cfg->deny_host, cfg->ndeny_host);
	mix_str(&h, cfg->net_log);
	mix_str(&h, cfg->net_hosts);
	mix_num(&h, cfg->net_idle_ms);
	mix_num(&h, cfg->net_log_limit);
	mix_num(&h, (uint64_t)cfg->isolation);
	mix_num(&h, (uint64_t)cfg->landlock);
	mix_num(&h, (uint64_t)cfg->seccomp);
	mix_str(&h, cfg->seccomp_text);
	mix_num(&h, cfg->limits.memory);
	mix_num(&h, cfg->limits.memory_swap);
	mix_num(&h, cfg->limits.pids);
	mix_num(&h, cfg->limits.cpu_quota_us);
	mix_num(&h, (uint64_t)cfg->limits.mode);
	mix_num(&h, (uint64_t)cfg->ssh_agent);
	mix_str(&h, cfg->agent_socket);
	mix_str(&h, cfg->env_file);
	mix_list(&h, cfg->passenv, cfg->npassenv);
	mix_list(&h, cfg->allow_secret, cfg->nallow_secret);
	mix_num(&h, (uint64_t)cfg->uid << 32 | cfg->gid);
	mix_num(&h, cfg->idle_timeout_ms);
	return h;
}
