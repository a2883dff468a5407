/* kjail exec -s NAME: run one command inside a session, with its own
 * stdio, timeout, output caps and exit status, reported exactly as a
 * one-shot `kjail exec` reports them. */
#include <errno.h>
#include <linux/sockios.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cli.h"
#include "runtime/clock.h"
#include "runtime/config_id.h"
#include "runtime/policy.h"
#include "runtime/session.h"
#include "runtime/settings.h"
#include "runtime/signals.h"
#include "runtime/stdio.h"
#include "runtime/validate.h"

/* A session killed for a mount the host took away (runtime/mount_watch.c;
 * its record says "killed"). */
static int killed_fail(const char *name, struct kj_err *err)
{
	return kj_fail(
		err, "session", 0,
		"kjail rm it and create it again; do not delete, replace or rename such a "
		"path, or make a credential store, on the host while a session uses it",
		"session '%s' was killed: the host removed, replaced or renamed a path it had "
		"masked or bound (a credential file saved by rename, .git/config, .git/hooks, "
		"the workspace), or made a credential store it masks where there was none",
		name);
}

/* The session was killed for a mount: its record says so once its
 * supervisor has put the sandbox away, a moment after its socket stopped
 * answering (up to 2 s is waited for a "running" record to change while
 * its supervisor lives). */
static bool was_killed(const char *name)
{
	struct session_record rec;
	struct kj_err ignored;

	for (int i = 0; i < 200; i++) {
		if (session_record_read(name, &rec, &ignored) || strcmp(rec.state, "running") ||
		    !session_supervisor_alive(&rec))
			break;
		usleep(10000);
	}
	return session_record_read(name, &rec, &ignored) == 0 && !strcmp(rec.state, "killed");
}

/* The session under a running exec ended. */
static int ended_fail(const char *name, struct kj_err *err)
{
	if (was_killed(name))
		return killed_fail(name, err);
	return kj_fail(err, "session", 0, "kjail ls shows its state", "session '%s' ended", name);
}

int session_connect(const char *name, const struct timeval *limit, struct kj_err *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (session_check_name(name, err) ||
	    session_path(sa.sun_path, sizeof(sa.sun_path), name, "sock", err))
		return -EINVAL;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return kj_fail(err, "session", errno, NULL, "socket");
	/* A unix connect waits while the listener's backlog is full, for as
	 * long as the send timeout says: bounded for those who ask. */
	if (limit && setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, limit, sizeof(*limit)) < 0) {
		int e = errno;
		close(fd);
		return kj_fail(err, "session", e, NULL, "socket");
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		close(fd);
		/* Refused while being killed (an exec right after the host
		 * renamed a mask): said as "killed", not "no session". */
		if ((e == ENOENT || e == ECONNREFUSED) && was_killed(name))
			return killed_fail(name, err);
		if (e == ENOENT || e == ECONNREFUSED)
			return kj_fail(err, "session", 0,
				       "kjail ls lists your sessions; kjail create NAME makes one",
				       "no running session '%s'", name);
		return kj_fail(err, "session", e, NULL, "connect to session '%s'", name);
	}
	return fd;
}

/* One message carries them all (SESSION_MSG_MAX); a one-shot run takes
 * what execve takes (128K an argument, 2M in all here). */
#define TOO_LONG                                                               \
	"an exec into a session takes at most 64K of arguments, --setenv and " \
	"--cwd; pass a long script on stdin: sh -s"

/* argv, then NAME=VALUE pairs, then the cwd, NUL-separated. */
static int build_payload(const struct kj_config *cfg, char *buf, size_t cap, size_t *len,
			 struct session_msg_hdr *h, struct kj_err *err)
{
	size_t n = 0;

#define PUT(s)                                                          \
	do {                                                            \
		size_t l_ = strlen(s) + 1;                              \
		if (n + l_ > cap)                                       \
			return kj_fail(err, "session", E2BIG, TOO_LONG, \
				       "the command line is too long"); \
		memcpy(buf + n, s, l_);                                 \
		n += l_;                                                \
	} while (0)
	for (char **a = cfg->argv; *a; a++, h->nargv++)
		PUT(*a);
	for (size_t i = 0; i < cfg->nsetenv; i++, h->nenv++)
		PUT(cfg->setenv[i]);
	PUT(cfg->cwd ? cfg->cwd : "");
#undef PUT
	*len = n;
	return 0;
}

static void arm(int tfd, uint64_t ms)
{
	struct itimerspec its = {.it_value = {.tv_sec = (time_t)(ms / 1000),
					      .tv_nsec = (long)(ms % 1000) * 1000000L + 1}};
	(void)timerfd_settime(tfd, 0, &its, NULL);
}

/* timeout: the timeout's SIGTERM (signals.h, KJ_SIGNAL_TIMEOUT). */
static void send_signal(int sock, int sig, bool timeout)
{
	struct session_msg_hdr h = {
		.type = SESSION_SIGNAL, .value = sig, .a = timeout ? KJ_SIGNAL_TIMEOUT : 0};
	(void)session_send(sock, &h, NULL, 0, NULL, 0);
}

/* An end signal sent to init, the last message at since_ms (session.h,
 * SESSION_DEAF_MS): 1 while still to be checked (the poll's wait until
 * then in *wait_ms), 0 when init took it or cannot be asked (keep waiting
 * for the exit status, as before), -1 when init did not take it in time. */
static int deaf_check(int sock, long long since_ms, int *wait_ms)
{
	long long left = since_ms + SESSION_DEAF_MS - kj_mono_ms();
	int unread = 0;

	if (left > 0) {
		*wait_ms = (int)left;
		return 1;
	}
	if (ioctl(sock, SIOCOUTQ, &unread) < 0 || unread == 0)
		return 0;
	return -1;
}

static const char *end_signal_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGHUP:
		return "SIGHUP";
	case SIGQUIT:
		return "SIGQUIT";
	default:
		return "SIGTERM";
	}
}

/* cfg->tty is off: no terminal of the caller's is handed to the session,
 * a terminal fd becomes a pipe kjail relays (as --no-tty). */
static int session_exec(const struct kj_config *cfg, const char *name, struct kj_err *err)
{
	static char payload[SESSION_MSG_MAX - sizeof(struct session_msg_hdr)];
	struct session_msg_hdr h = {.type = SESSION_EXEC};
	struct stdio_plan io;
	struct pollfd pfd[3 + 3];
	int sock, sfd, tfd = -1, status = -1, fds[3];
	bool killing = false, timed_out = false;
	const char *give_up = NULL; /* why the rest of the output is dropped */
	long long deaf_since = -1;  /* an end signal sent then, not known taken */
	int deaf_sig = 0;
	size_t len = 0;
	sigset_t set;

	sock = session_connect(name, NULL, err);
	if (sock < 0)
		return KJ_EXIT_SETUP;
	if (build_payload(cfg, payload, sizeof(payload), &len, &h, err) ||
	    stdio_plan_make(cfg, &io, err))
		return KJ_EXIT_SETUP;
	for (int i = 0; i < 3; i++)
		fds[i] = io.child_fd[i];
	if (session_send(sock, &h, payload, len, fds, 3) < 0) {
		kj_fail(err, "session", errno, NULL, "send the command to session '%s'", name);
		return KJ_EXIT_SETUP;
	}
	stdio_parent_close_child_ends(&io);
	stdio_own_stderr(); /* the session has the caller's own by now */

	kj_sigset_from_mask(&set, KJ_SIGS_FORWARDED);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	/* No signalfd (out of fds): a signal then ends the client, and init
	 * kills the command whose client went away. */
	if (sfd < 0)
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	if (cfg->timeout_ms) {
		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		arm(tfd, cfg->timeout_ms);
	}
	for (;;) {
		bool open_out = false;
		const char *why;
		int n = 3;
		pfd[0] = (struct pollfd){.fd = status < 0 ? sock : -1, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = sfd, .events = POLLIN};
		pfd[2] = (struct pollfd){.fd = tfd, .events = POLLIN};
		for (int i = 0; i < io.nrelays; i++) {
			struct relay *r = &io.relays[i];
			bool want = r->open && (r->name || status < 0);
			relay_poll(r, want, &pfd[n++]);
			open_out |= (want && r->name) || (r->name && r->off < r->len);
		}
		if (status >= 0 && !open_out)
			break;
		/* Told to end (also while the command ran), or past the
		 * timeout (also when it killed the command), once the command
		 * ended: what the reader has not taken is dropped, and said. As
		 * runtime/supervise.c does for a one-shot run. */
		why = status >= 0 ? kj_reader_given_up(give_up, timed_out) : NULL;
		if (why) {
			relay_abandon(&io, why);
			break;
		}
		/* After the command ended, its output is drained until end of
		 * file or a moment of silence: a background job it started may
		 * hold the pipe open for as long as the session lives. Silence
		 * is the command's: output a slow reader has not taken yet is
		 * waited for (it was dropped unsaid). */
		int wait_ms = status >= 0 ? 100 : -1;
		if (status < 0 && deaf_since >= 0) {
			int d = deaf_check(sock, deaf_since, &wait_ms);
			if (d < 0) {
				relay_end_line(&io);
				kj_fail(err, "session", 0,
					"kjail ls shows it busy; kjail stop NAME ends it",
					"session '%s' did not take %s%s within %d s: its init does "
					"not answer",
					name, timed_out ? "the timeout's " : "",
					end_signal_name(deaf_sig), SESSION_DEAF_MS / 1000);
				kj_err_print(err); /* the caller prints only a 125 */
				return timed_out ? KJ_EXIT_TIMEOUT : 128 + deaf_sig;
			}
			if (d == 0)
				deaf_since = -1, deaf_sig = 0;
		}
		int ready = poll(pfd, (nfds_t)n, wait_ms);
		if (ready == 0 && status >= 0 && !relay_pending(&io))
			break;
		if (ready < 0 && errno != EINTR)
			break;
		if (pfd[0].revents) {
			struct session_msg_hdr r;
			char text[sizeof(((struct kj_err *)0)->msg)];
			size_t tl = sizeof(text) - 1;
			if (session_recv(sock, &r, text, &tl, NULL, NULL) < 0) {
				(void)ended_fail(name, err);
				return KJ_EXIT_SETUP;
			}
			text[tl] = '\0';
			if (r.type == SESSION_FAILED) {
				/* init sends the message part of its error record. */
				struct kj_err shown = {.exit_code = r.value};
				snprintf(shown.part, sizeof(shown.part), "%s",
					 r.value == KJ_EXIT_SETUP ? "session" : "exec");
				memcpy(shown.msg, text, sizeof(shown.msg));
				shown.msg[sizeof(shown.msg) - 1] = '\0';
				kj_err_print(&shown);
			} else if (r.type == SESSION_EXITED) {
				status = r.value;
			}
		}
		if (pfd[1].revents) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (status < 0)
					send_signal(sock, (int)si.ssi_signo, false);
				/* Checked from the last message sent: one sent just
				 * now is not one init left unread. */
				if (status < 0 &&
				    (kj_sig_ends((int)si.ssi_signo) || deaf_since >= 0)) {
					deaf_since = kj_mono_ms();
					deaf_sig = deaf_sig ? deaf_sig : (int)si.ssi_signo;
				}
				if (kj_sig_ends((int)si.ssi_signo))
					give_up = kj_told_to_end(si.ssi_signo);
			}
		}
		if (tfd >= 0 && pfd[2].revents) {
			uint64_t t;
			(void)!read(tfd, &t, sizeof(t));
			if (status >= 0) {
				give_up = KJ_TIMEOUT_WHEN; /* the status stays */
			} else {
				/* Phase 1, SIGTERM: init kills what is left once the
				 * command ends. Phase 2, SIGKILL after the grace,
				 * for a command that outlived the SIGTERM. */
				send_signal(sock, killing ? SIGKILL : SIGTERM, !killing);
				deaf_since = kj_mono_ms();
				deaf_sig = deaf_sig ? deaf_sig : SIGTERM;
				timed_out = true;
				if (!killing)
					arm(tfd, cfg->kill_grace_ms);
				killing = true;
			}
		}
		for (int i = 0; i < io.nrelays; i++)
			if (pfd[3 + i].fd >= 0)
				relay_service(&io.relays[i], pfd[3 + i].revents);
	}
	close(sock);
	relay_report(&io);
	if (timed_out) {
		char d[32];
		format_duration(cfg->timeout_ms, d, sizeof(d));
		relay_end_line(&io);
		kj_note("timed out after %s and was killed", d);
		return KJ_EXIT_TIMEOUT;
	}
	return status;
}

/* The origin of a value this exec's own flags set. */
#define FROM_EXEC_FLAGS "the command line (exec -s)"

/* Options a single exec into an existing session may carry; everything
 * else was fixed when the session was created. */
static const char *const per_exec[] = {"timeout", "kill-grace", "output-limit", "setenv", "cwd",
				       "quiet",   NULL};

/* The admin policy (README "Admin policy") bounds every run, an exec
 * into a session too: a per-exec --timeout 0, --output-limit 1G or
 * --setenv LD_PRELOAD=... must meet the rules a one-shot run meets. The
 * session's own options were checked when it was created; here only the
 * rules about what one exec can set are, against the values in force
 * (the session's defaults, then the flags). */
static int exec_policy(const struct kj_config *cfg, const struct kj_sources *src,
		       struct kj_err *err)
{
	struct kj_policy all = {0}, mine = {0};
	struct kj_rule *rules;
	int rc = policy_load(&all, err);

	if (rc) {
		policy_free(&all);
		return rc;
	}
	if (!(rules = calloc(all.n + 1, sizeof(*rules)))) {
		policy_free(&all);
		return kj_fail(err, "policy", ENOMEM, NULL, "allocate");
	}
	mine.rules = rules;
	for (size_t i = 0; i < all.n; i++) {
		const struct kj_rule *r = &all.rules[i];
		const char *o = settings_origin(src, r->opt);
		/* `deny kill-grace` is about who asks: the session's own
		 * value was judged at create, and counting it here refused
		 * every exec into every session. */
		if (r->kind == RULE_DENY && !r->value && !(o && !strcmp(o, FROM_EXEC_FLAGS)))
			continue;
		/* Every option an exec may carry: with only some of them,
		 * `deny cwd` or `deny quiet` refused `kjail exec --cwd` and let
		 * `kjail exec -s NAME --cwd` through. */
		for (int j = 0; per_exec[j]; j++)
			if (!strcmp(r->opt, per_exec[j])) {
				rules[mine.n++] = *r;
				break;
			}
	}
	rc = policy_enforce(&mine, cfg, src, err);
	free(rules);
	policy_free(&all);
	return rc;
}

/* --create found NAME running: was it made with the sandbox cfg asks for? */
static int same_sandbox(const char *name, const struct kj_config *cfg, struct kj_err *err)
{
	struct session_record rec;
	int rc = session_record_read(name, &rec, err);

	if (rc == -ENOENT)
		return kj_fail(err, "session", 0, "kjail ls lists your sessions",
			       "session '%s' has no record (still starting, or stopped)", name);
	if (rc)
		return rc;
	if (rec.config_id != config_fingerprint(cfg))
		return kj_fail(
			err, "session", 0,
			"exec -s NAME without --create uses it as it is; kjail rm NAME, then "
			"--create makes it anew",
			"session '%s' runs with other options than this --create asks for", name);
	return 0;
}

/* Where a value in force came from, for the policy's message. */
static void note_origin(struct kj_sources *src, const char *opt, const char *from)
{
	for (size_t i = 0; i < src->norigins; i++)
		if (!strcmp(src->origin[i].opt, opt)) {
			src->origin[i].src = from;
			return;
		}
	if (src->norigins < KJ_MAX_ORIGINS) {
		src->origin[src->norigins].opt = opt;
		src->origin[src->norigins++].src = from;
	}
}

/* The per_exec entry equal to opt (which outlives opt's buffer). */
static const char *per_exec_name(const char *opt)
{
	for (int j = 0; per_exec[j]; j++)
		if (!strcmp(per_exec[j], opt))
			return per_exec[j];
	return "";
}

static bool is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help");
}

static bool is_session_flag(const char *a, bool *takes_value)
{
	*takes_value = !strcmp(a, "-s") || !strcmp(a, "--session");
	return *takes_value || !strncmp(a, "--session=", 10) || !strcmp(a, "--create");
}

/* Does the option token argv[i] take the next token as its value? */
static bool value_follows(const char *a)
{
	char name[64];
	bool tv = false;

	if (a[0] != '-' || a[1] != '-' || strchr(a, '='))
		return false;
	snprintf(name, sizeof(name), "%s", a + 2);
	return cli_option_lookup(name, &tv) == 0 && tv;
}

bool session_requested(int argc, char **argv)
{
	bool tv;

	for (int i = 0; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++) {
		if (is_session_flag(argv[i], &tv) && strcmp(argv[i], "--create"))
			return true;
		if (value_follows(argv[i]))
			i++;
	}
	return false;
}

static const char session_exec_usage[] =
	"usage: kjail exec -s NAME [--timeout D] [--kill-grace D] [--output-limit B] [--setenv K=V]\n"
	"                          [--cwd DIR] [--quiet] [--] COMMAND [ARG...]\n"
	"       kjail exec -s NAME --create [OPTIONS] [--] COMMAND [ARG...]\n\n"
	"Run COMMAND in the session NAME (kjail create NAME made it); -s NAME is also\n"
	"--session NAME or --session=NAME. The options above override the session's own\n"
	"timeout, kill grace and output cap; the others shape the sandbox and go to\n"
	"kjail create. --create makes the session first (with OPTIONS, those of\n"
	"kjail exec --help) when it does not run, and uses a running one only if it\n"
	"was made with the same sandbox.\n";

int cmd_session_exec(int argc, char **argv)
{
	char **rest = calloc((size_t)argc + 1, sizeof(char *));
	const char *name = NULL;
	bool create = false, shaped = false, tv;
	struct kj_config cfg;
	struct kj_err err = {0};
	struct session_exec_defaults def;
	int n = 0, i, rc = 0;

	if (!rest)
		return KJ_EXIT_SETUP;
	/* Take -s NAME / --session NAME / --create out; keep the rest. */
	for (i = 0; i < argc; i++) {
		if (argv[i][0] != '-' || !strcmp(argv[i], "--"))
			break;
		/* `-s --help` asks for this usage too: --help is no name. */
		if (is_help(argv[i]) ||
		    (is_session_flag(argv[i], &tv) && tv && i + 1 < argc && is_help(argv[i + 1]))) {
			/* As kjail exec --help: the usage, whatever else is given. */
			printf("%s", session_exec_usage);
			free(rest);
			return 0;
		}
		if (!is_session_flag(argv[i], &tv)) {
			rest[n++] = argv[i];
			if (value_follows(argv[i]) && i + 1 < argc)
				rest[n++] = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--create"))
			create = true;
		else if (!tv)
			name = argv[i] + 10;
		else if (i + 1 < argc)
			name = argv[++i];
		else if (!rc)
			rc = kj_fail(&err, "option", 0, "use -s NAME", "%s needs a session name",
				     argv[i]);
		/* Each name given is checked, as any value a later one replaces
		 * (runtime/cli.c): `-s 'bad name' -s work` ran in work. */
		if (!rc && name && session_check_name(name, &err))
			rc = -EINVAL;
	}
	for (; i < argc; i++)
		rest[n++] = argv[i];
	if (!rc && session_check_name(name ? name : "", &err))
		rc = -EINVAL;
	config_init(&cfg);
	if (!rc && create) {
		/* Create it (all of kjail exec's options apply) unless it runs.
		 * A running session is used only if it was made with exactly
		 * the sandbox these options ask for (config_id.c): otherwise
		 * `--create --net none` would run the command in a session
		 * made with --net host. Then the exec is an exec into it: the
		 * session's defaults, this call's per-exec flags. */
		static struct kj_sources src;
		struct kj_err ignored;
		int fd;
		bool join = false;
		rc = settings_load(n, rest, true, &cfg, &src, &err);
		if (!rc)
			rc = session_create_check(&cfg, &src, true, &err);
		if (!rc && (fd = session_connect(name, NULL, &ignored)) >= 0) {
			close(fd);
			join = true;
		} else if (!rc && (rc = session_create(&cfg, name, &err)) == -EEXIST) {
			/* Another --create of the same name won the race. */
			err = (struct kj_err){0};
			rc = 0;
			join = true;
		}
		/* A session that answers may still be writing its record. */
		if (!rc && join && !(rc = session_settled(name, &err))) {
			rc = same_sandbox(name, &cfg, &err);
			shaped = true;
			config_init(&cfg);
		}
	}
	if (!rc && (!create || shaped)) {
		static struct kj_sources src;
		int k;
		/* Start from what the session was created with (its profile's
		 * timeout, say); flags override. A record that cannot be read
		 * is an error, not "no limits": the command must not run
		 * without the timeout and output cap the session was made
		 * with (a record is written just after the socket listens). */
		rc = session_exec_defaults(name, &def, &err);
		if (rc == -ENOENT) {
			int fd = session_connect(name, NULL, &err); /* "no running session" */
			rc = fd < 0 ? fd
				    : kj_fail(&err, "session", 0, "kjail ls lists your sessions",
					      "session '%s' has no record (still starting, or stopped)",
					      name);
			if (fd >= 0)
				close(fd);
		}
		if (!rc) {
			/* create always records its kill grace: 0 is "SIGKILL at
			 * once", as for a one-shot run, not "unset". */
			cfg.timeout_ms = def.timeout_ms;
			cfg.kill_grace_ms = def.kill_grace_ms;
			cfg.output_limited = def.output_limited;
			cfg.output_limit = def.output_limit;
			for (int j = 0; j < 3; j++)
				note_origin(&src,
					    (const char *[]){"timeout", "kill-grace",
							     "output-limit"}[j],
					    "the session's defaults (kjail create)");
		}
		for (k = 0; !rc && k < n && rest[k][0] == '-' && strcmp(rest[k], "--"); k++) {
			char opt[64];
			const char *a = rest[k] + 2, *eq = strchr(a, '='), *value = NULL;
			size_t len = eq ? (size_t)(eq - a) : strlen(a);
			bool allowed = false;
			snprintf(opt, sizeof(opt), "%.*s", (int)len, a);
			for (int j = 0; per_exec[j]; j++)
				allowed |= !strcmp(per_exec[j], opt);
			if (shaped && !allowed && rest[k][1] == '-') {
				/* Shapes the sandbox: checked by same_sandbox. */
				if (cli_option_lookup(opt, &tv) == 0 && tv && !eq && k + 1 < n)
					k++;
				continue;
			}
			/* A typo is an unknown option, as kjail exec says, not
			 * an option that "does not apply" here. */
			if (rest[k][1] != '-' || cli_option_lookup(opt, &tv)) {
				rc = kj_fail(&err, "option", 0, "see kjail exec --help",
					     "unknown option %.*s",
					     rest[k][1] != '-' ? (int)strlen(rest[k])
							       : (int)len + 2,
					     rest[k]);
				break;
			}
			if (!allowed) {
				rc = kj_fail(
					&err, "option", 0,
					"options that shape the sandbox go to kjail create (or add --create)",
					"%s does not apply to one exec into a session", rest[k]);
				break;
			}
			if (cli_option_lookup(opt, &tv) == 0 && tv)
				value = eq ? eq + 1 : (k + 1 < n ? rest[++k] : NULL);
			else if (eq) {
				/* As kjail exec says: a flag takes no value. */
				rc = kj_fail(&err, "option", 0, "see kjail exec --help",
					     "--%s takes no value", opt);
				break;
			}
			rc = cli_apply_option(&cfg, opt, value, &err);
			note_origin(&src, per_exec_name(opt), FROM_EXEC_FLAGS);
		}
		if (!rc)
			rc = exec_policy(&cfg, &src, &err);
		if (k < n && !strcmp(rest[k], "--"))
			k++;
		cfg.argv = rest + k;
		if (!rc && !cfg.argv[0])
			rc = kj_fail(&err, "option", 0,
				     "usage: kjail exec -s NAME [OPTIONS] [--] COMMAND [ARG...]",
				     "no COMMAND given");
	}
	if (rc) {
		kj_err_print(&err);
		free(rest);
		return KJ_EXIT_SETUP;
	}
	cfg.tty = KJ_TTY_OFF;
	rc = session_exec(&cfg, name, &err);
	if (rc == KJ_EXIT_SETUP && err.part[0])
		kj_err_print(&err);
	free(rest);
	return rc;
}
