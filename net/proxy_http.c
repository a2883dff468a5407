/* HTTP for the proxy: CONNECT host:port (TLS and anything else, tunnelled
 * after the decision) and plain-HTTP forwarding of absolute-URI (or
 * Host-header) requests, one request per connection.
 *
 * Parsing is strict on purpose: where two HTTP parsers could read the
 * same bytes differently (obs-fold, bare LF, two Content-Lengths, chunked
 * plus Content-Length), the request is refused rather than guessed at,
 * because the decision is only as good as the host this file extracts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/proxy_int.h"

#define HTTP_MAX_HEADERS 100

struct header {
	const char *name, *value;
	size_t nlen, vlen;
};

struct request {
	const char *method, *target, *version;
	size_t mlen, tlen, vlen;
	struct header h[HTTP_MAX_HEADERS];
	size_t nh;
	size_t head_len;               /* bytes of the head, final CRLF CRLF included */
	char head[PROXY_HEAD_MAX + 1]; /* a NUL-terminated copy, parsed in place */
};

static int reply(struct conn *c, int code, const char *status)
{
	char buf[1024];
	int blen = snprintf(buf, sizeof(buf), "kjail: %s\n", c->reason);
	int len = snprintf(buf + blen + 1, sizeof(buf) - (size_t)blen - 1,
			   "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
			   "Connection: close\r\nProxy-Agent: kjail\r\n\r\n",
			   code, status, blen);

	/* Head then body, both short: the client may already be gone. */
	if (write_all(c->client, buf + blen + 1, (size_t)len, 2000) == 0)
		(void)write_all(c->client, buf, (size_t)blen, 2000);
	return 0;
}

static int refuse(struct conn *c, int code, const char *status, const char *why)
{
	conn_refuse(c, "%s", why);
	return reply(c, code, status);
}

static bool is_tchar(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       strchr("!#$%&'*+-.^_`|~", ch);
}

static bool name_is(const struct header *h, const char *name)
{
	return h->nlen == strlen(name) && !strncasecmp(h->name, name, h->nlen);
}

/* Read until the blank line that ends the head. */
static int read_head(struct conn *c, size_t *head_len)
{
	int64_t deadline = c->head_deadline;
	size_t have = 0;

	for (;;) {
		const unsigned char *end = memmem(c->in.b, c->in.len, "\r\n\r\n", 4);
		int rc;

		if (end) {
			*head_len = (size_t)(end - c->in.b) + 4;
			return 0;
		}
		have = c->in.len;
		if ((rc = rbuf_need(c->client, &c->in, have + 1, deadline)))
			return rc;
	}
}

/* Request line and header lines, CRLF-terminated, no obs-fold. */
static const char *parse_head(const struct conn *c, struct request *r)
{
	char *p = r->head, *end = p + r->head_len - 2, *eol;

	memcpy(r->head, c->in.b, r->head_len);
	r->head[r->head_len] = '\0';

	for (char *q = p; q < end; q++) {
		/* Request smuggling: a bare CR or LF, or a NUL, splits lines
		 * differently for the next parser. */
		if (*q == '\0' || (*q == '\r' && q[1] != '\n') ||
		    (*q == '\n' && (q == p || q[-1] != '\r')))
			return "bare CR, LF or NUL in the request head";
	}
	eol = strstr(p, "\r\n");
	/* One SP between the three parts and no other white space or control
	 * byte: a server that splits on any white space read
	 * "GET http://h/\tx HTTP/1.1" as four words where this read three. */
	for (const char *q = p; q < eol; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			return "white space or a control byte in the request line";
	r->method = p;
	r->mlen = strcspn(p, " ");
	/* No space in the request line: the target would start past it (past
	 * the whole head, when no line held a space). */
	if (p + r->mlen >= eol)
		return "malformed request line";
	r->target = p + r->mlen + 1;
	r->tlen = strcspn(r->target, " \r");
	r->version = r->target + r->tlen + 1;
	r->vlen = (size_t)(eol - r->version);
	if (r->mlen == 0 || r->tlen == 0 || r->target[r->tlen] != ' ' || r->version > eol)
		return "malformed request line";
	for (size_t i = 0; i < r->mlen; i++)
		if (!is_tchar((unsigned char)r->method[i]))
			return "malformed method";
	if (r->vlen != 8 ||
	    (strncmp(r->version, "HTTP/1.1", 8) && strncmp(r->version, "HTTP/1.0", 8)))
		return "only HTTP/1.0 and HTTP/1.1 are spoken";
	for (p = eol + 2; p < end; p = eol + 2) {
		struct header *h = &r->h[r->nh];
		eol = strstr(p, "\r\n");
		if (r->nh == HTTP_MAX_HEADERS)
			return "too many header lines";
		/* obs-fold (a line starting with space or tab) continues the
		 * previous header for some parsers and not for others. */
		h->name = p;
		h->nlen = 0;
		while (p + h->nlen < eol && is_tchar((unsigned char)p[h->nlen]))
			h->nlen++;
		/* "Host : evil": whitespace before the colon, refused (RFC 9112). */
		if (h->nlen == 0 || p[h->nlen] != ':')
			return "malformed header line";
		h->value = p + h->nlen + 1;
		while (h->value < eol && (*h->value == ' ' || *h->value == '\t'))
			h->value++;
		h->vlen = (size_t)(eol - h->value);
		while (h->vlen && (h->value[h->vlen - 1] == ' ' || h->value[h->vlen - 1] == '\t'))
			h->vlen--;
		for (size_t i = 0; i < h->vlen; i++)
			if ((unsigned char)h->value[i] < 0x20 && h->value[i] != '\t')
				return "control character in a header value";
		r->nh++;
	}
	return NULL;
}

/* "host:port", "[v6]:port", "host" (default port). */
static const char *split_authority(const char *a, size_t len, int defport, const char **host,
				   size_t *hlen, int *port)
{
	const char *colon = NULL;

	if (len && a[0] == '[') {
		const char *rb = memchr(a, ']', len);
		if (!rb)
			return "unterminated IPv6 address";
		if (rb + 1 < a + len && rb[1] != ':')
			return "junk after an IPv6 address";
		colon = rb + 1 < a + len ? rb + 1 : NULL;
	} else {
		for (size_t i = 0; i < len; i++)
			if (a[i] == ':')
				colon = a + i;
	}
	*host = a;
	*hlen = colon ? (size_t)(colon - a) : len;
	*port = defport;
	if (colon) {
		long v = 0;
		const char *p = colon + 1;
		if (p == a + len)
			return "empty port";
		for (; p < a + len; p++)
			if (*p < '0' || *p > '9' || (v = v * 10 + (*p - '0')) > 65535)
				return "bad port";
		if (v == 0)
			return "bad port";
		*port = (int)v;
	}
	return *hlen ? NULL : "empty host";
}

static int target_from(struct conn *c, const char *host, size_t hlen, int port)
{
	const char *why;

	if (hm_target_parse(host, hlen, port, &c->target, &why) == 0)
		return 0;
	conn_set_shown(c, (const unsigned char *)host, hlen, port);
	conn_refuse(c, "refused host name: %s", why);
	reply(c, 403, "Forbidden");
	return -1;
}

/* Decide and connect; on refusal or failure the client gets its answer. */
static int open_upstream(struct conn *c)
{
	switch (conn_open(c)) {
	case OPEN_OK:
		return 0;
	case OPEN_REFUSED:
		reply(c, 403, "Forbidden");
		return -1;
	case OPEN_NORESOLVE:
	case OPEN_FAILED:
		break;
	}
	reply(c, 502, "Bad Gateway");
	return -1;
}

static void note_end(struct conn *c, const char *end)
{
	if (end)
		snprintf(c->reason, sizeof(c->reason), "%s", end);
}

static int serve_connect(struct conn *c, const struct request *r)
{
	static const char ok[] =
		"HTTP/1.1 200 Connection established\r\nProxy-Agent: kjail\r\n\r\n";
	const char *host, *why;
	size_t hlen, early;
	int port;

	c->proto = "connect";
	if ((why = split_authority(r->target, r->tlen, 443, &host, &hlen, &port))) {
		conn_set_shown(c, (const unsigned char *)r->target, r->tlen, 0);
		return refuse(c, 400, "Bad Request", why);
	}
	if (target_from(c, host, hlen, port) || open_upstream(c))
		return -1;
	if (write_all(c->client, ok, sizeof(ok) - 1, 5000))
		return -1;
	/* Bytes the client sent after the head (an eager TLS ClientHello). */
	early = c->in.len - r->head_len;
	if (early && write_all(c->upstream, c->in.b + r->head_len, early, 10000))
		return -1;
	c->up += early;
	note_end(c, pump(c, UINT64_MAX, c->px->idle_ms));
	return 0;
}

/* Hop-by-hop and proxy-only headers are not forwarded (a
 * Proxy-Authorization meant for us must not reach the server); Connection
 * is replaced by "close" so the connection carries exactly one request. */
static bool hop_by_hop(const struct header *h)
{
	static const char *const names[] = {
		"connection", "proxy-connection", "keep-alive", "proxy-authorization",
		"te",         "trailer",          "upgrade",    NULL};
	for (int i = 0; names[i]; i++)
		if (name_is(h, names[i]))
			return true;
	return false;
}

/* Host header, Content-Length, and what would make the body ambiguous. */
static int scan_headers(struct conn *c, const struct request *r, const struct header **host_h,
			uint64_t *body)
{
	bool have_len = false;

	*host_h = NULL;
	*body = 0;
	for (size_t i = 0; i < r->nh; i++) {
		const struct header *h = &r->h[i];
		uint64_t v = 0;

		if (name_is(h, "host")) {
			/* Two Host headers: which one the server uses is anyone's guess. */
			if (*host_h)
				return refuse(c, 400, "Bad Request", "more than one Host header"),
				       -1;
			*host_h = h;
		} else if (name_is(h, "transfer-encoding")) {
			/* Chunked framing would have to be parsed to find where the
			 * one request ends (CL.TE / TE.CL smuggling otherwise). */
			return refuse(c, 411, "Length Required",
				      "chunked request bodies are not forwarded over plain HTTP (use https)"),
			       -1;
		} else if (name_is(h, "content-length")) {
			if (h->vlen == 0 || h->vlen > 18)
				return refuse(c, 400, "Bad Request", "bad Content-Length"), -1;
			for (size_t k = 0; k < h->vlen; k++) {
				if (h->value[k] < '0' || h->value[k] > '9')
					return refuse(c, 400, "Bad Request", "bad Content-Length"),
					       -1;
				v = v * 10 + (uint64_t)(h->value[k] - '0');
			}
			/* Two lengths that differ: request smuggling. */
			if (have_len && v != *body)
				return refuse(c, 400, "Bad Request",
					      "conflicting Content-Length headers"),
				       -1;
			*body = v;
			have_len = true;
		}
	}
	return 0;
}

/* The authority of an absolute http:// target ("h:p" of
 * "http://h:p/x?q"), or false. */
static bool url_authority(const struct request *r, const char **a, size_t *alen)
{
	if (r->tlen <= 7 || strncasecmp(r->target, "http://", 7))
		return false;
	*a = r->target + 7;
	*alen = strcspn(*a, "/? ");
	if (*alen > (size_t)(r->target + r->tlen - *a))
		*alen = (size_t)(r->target + r->tlen - *a);
	return true;
}

/* The host asked for, as the log shows it, for a request refused before
 * its target is decided (two Host headers, a bad length, fronting): the
 * URL's authority, else the first Host header. */
static void show_early(struct conn *c, const struct request *r)
{
	const char *a = NULL, *host;
	size_t alen = 0, hlen;
	int port;

	if (!url_authority(r, &a, &alen))
		a = NULL;
	for (size_t i = 0; !a && i < r->nh; i++)
		if (name_is(&r->h[i], "host")) {
			a = r->h[i].value;
			alen = r->h[i].vlen;
		}
	if (a && !split_authority(a, alen, 80, &host, &hlen, &port))
		conn_set_shown(c, (const unsigned char *)host, hlen, port);
	else if (a)
		conn_set_shown(c, (const unsigned char *)a, alen, 0);
}

static int serve_forward(struct conn *c, const struct request *r)
{
	const struct header *host_h;
	const char *auth, *host, *path, *why;
	size_t alen, hlen, plen, avail, o, cap = PROXY_HEAD_MAX + 512;
	uint64_t body;
	int port;
	char *out;

	c->proto = "http";
	show_early(c, r);
	if (scan_headers(c, r, &host_h, &body))
		return -1;
	if (url_authority(r, &auth, &alen)) {
		path = auth + alen;
		plen = (size_t)(r->target + r->tlen - path);
	} else if (r->target[0] == '/' && host_h) {
		auth = host_h->value;
		alen = host_h->vlen;
		path = r->target;
		plen = r->tlen;
	} else if (r->tlen > 8 && !strncasecmp(r->target, "https://", 8)) {
		return refuse(c, 400, "Bad Request",
			      "https:// URLs go through CONNECT (set HTTPS_PROXY)");
	} else {
		return refuse(c, 400, "Bad Request", "the request target must be an http:// URL");
	}
	if ((why = split_authority(auth, alen, 80, &host, &hlen, &port))) {
		conn_set_shown(c, (const unsigned char *)auth, alen, 0);
		return refuse(c, 400, "Bad Request", why);
	}
	if (target_from(c, host, hlen, port))
		return -1;
	if (host_h && host_h->value != auth) {
		/* Domain fronting: the decision is made on the URL's host, so
		 * the server must be asked for that same host, not another
		 * one behind the same address. */
		struct hm_target ht;
		const char *hh;
		size_t hhlen;
		int hport;
		if (split_authority(host_h->value, host_h->vlen, 80, &hh, &hhlen, &hport) ||
		    hm_target_parse(hh, hhlen, hport, &ht, &why) ||
		    strcmp(ht.name, c->target.name) || ht.port != c->target.port)
			return refuse(c, 400, "Bad Request",
				      "the Host header names another host than the URL");
	}
	if (open_upstream(c))
		return -1;
	out = malloc(cap);
	if (!out)
		return -1;
	/* absolute-form becomes origin-form: many servers take the URL
	 * as a path otherwise. "http://h?q" has the path "/?q", not "?q". */
	o = (size_t)snprintf(out, cap, "%.*s %s%.*s %.*s\r\n", (int)r->mlen, r->method,
			     plen && path[0] == '/' ? "" : "/", (int)plen, path, (int)r->vlen,
			     r->version);
	if (!host_h)
		o += (size_t)snprintf(out + o, cap - o, "Host: %.*s\r\n", (int)alen, auth);
	for (size_t i = 0; i < r->nh && o < cap; i++)
		if (!hop_by_hop(&r->h[i]))
			o += (size_t)snprintf(out + o, cap - o, "%.*s: %.*s\r\n", (int)r->h[i].nlen,
					      r->h[i].name, (int)r->h[i].vlen, r->h[i].value);
	if (o < cap)
		o += (size_t)snprintf(out + o, cap - o, "Connection: close\r\n\r\n");
	if (o >= cap) {
		free(out);
		return refuse(c, 431, "Request Header Fields Too Large", "request head too large");
	}
	/* The head, then the part of the body already read: no more than
	 * Content-Length (anything after it would be a second request). */
	avail = c->in.len - r->head_len;
	if (avail > body)
		avail = (size_t)body;
	if (write_all(c->upstream, out, o, 10000) ||
	    (avail && write_all(c->upstream, c->in.b + r->head_len, avail, 10000))) {
		free(out);
		return -1;
	}
	free(out);
	c->up += o + avail;
	note_end(c, pump(c, body - avail, c->px->idle_ms));
	return 0;
}

void http_serve(struct conn *c)
{
	struct request r = {0};
	const char *why;
	int rc;

	c->proto = "http";
	if ((rc = read_head(c, &r.head_len))) {
		if (rc == -EMSGSIZE)
			(void)refuse(c, 431, "Request Header Fields Too Large",
				     "request head larger than 16 KiB");
		else
			conn_refuse(c, "incomplete request head: %s", strerror(-rc));
		return;
	}
	if ((why = parse_head(c, &r))) {
		(void)refuse(c, 400, "Bad Request", why);
		return;
	}
	if (r.mlen == 7 && !strncmp(r.method, "CONNECT", 7))
		(void)serve_connect(c, &r);
	else
		(void)serve_forward(c, &r);
}
