/* SOCKS5 (RFC 1928) for the proxy: no authentication, CONNECT only, with
 * domain names (decided on the name, resolved here: curl --socks5-hostname,
 * socks5h://) or IPv4/IPv6 addresses (refused unless allowed as such). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "net/proxy_int.h"

enum {
	S5_OK = 0x00,
	S5_FAILURE = 0x01,
	S5_NOT_ALLOWED = 0x02,
	S5_HOST_UNREACHABLE = 0x04,
	S5_REFUSED = 0x05,
	S5_BAD_COMMAND = 0x07,
	S5_BAD_ATYP = 0x08,
};

/* Refuse and end: the caller logs the reason. */
#define REFUSE(...)                          \
	do {                                 \
		conn_refuse(c, __VA_ARGS__); \
		return;                      \
	} while (0)

static void s5_reply(struct conn *c, unsigned char code)
{
	/* The bound address is not meaningful through kjail: 0.0.0.0:0. */
	unsigned char r[10] = {0x05, code, 0x00, 0x01};

	(void)write_all(c->client, r, sizeof(r), 2000);
}

void socks5_serve(struct conn *c)
{
	int64_t deadline = c->head_deadline;
	struct rbuf *in = &c->in;
	const unsigned char *req;
	unsigned char atyp, host[256];
	size_t nmethods, hlen, need;
	int port;
	const char *why;
	bool noauth = false;

	c->proto = "socks5";
	if (rbuf_need(c->client, in, 2, deadline) ||
	    rbuf_need(c->client, in, 2 + (nmethods = in->b[1]), deadline))
		REFUSE("incomplete SOCKS5 greeting");
	for (size_t i = 0; i < nmethods; i++)
		noauth |= in->b[2 + i] == 0x00;
	if (!noauth) {
		static const unsigned char none[2] = {0x05, 0xff};
		(void)write_all(c->client, none, 2, 2000);
		REFUSE("the SOCKS5 client does not offer no-authentication");
	}
	if (write_all(c->client, "\x05\x00", 2, 2000))
		REFUSE("client went away during the SOCKS5 greeting");
	in->off = 2 + nmethods;
	if (rbuf_need(c->client, in, 5, deadline))
		REFUSE("incomplete SOCKS5 request");
	req = in->b + in->off;
	atyp = req[3];
	if (req[0] != 0x05) {
		s5_reply(c, S5_FAILURE);
		REFUSE("bad SOCKS5 request version");
	}
	if (req[1] != 0x01) {
		/* BIND and UDP ASSOCIATE would open listeners or datagram paths
		 * the allow-list does not cover. */
		s5_reply(c, S5_BAD_COMMAND);
		REFUSE("SOCKS5 command %u is not supported (only CONNECT)", req[1]);
	}
	hlen = atyp == 0x01 ? 4 : atyp == 0x04 ? 16 : atyp == 0x03 ? req[4] : 0;
	if (!hlen) {
		s5_reply(c, atyp == 0x03 ? S5_FAILURE : S5_BAD_ATYP);
		REFUSE(atyp == 0x03 ? "empty SOCKS5 domain name" : "bad SOCKS5 address type");
	}
	need = 4 + (atyp == 0x03) + hlen + 2;
	if (rbuf_need(c->client, in, need, deadline))
		REFUSE("incomplete SOCKS5 request");
	req = in->b + in->off;
	port = req[need - 2] << 8 | req[need - 1];
	if (atyp == 0x03) {
		memcpy(host, req + 5, hlen);
	} else {
		char text[INET6_ADDRSTRLEN];
		inet_ntop(atyp == 0x01 ? AF_INET : AF_INET6, req + 4, text, sizeof(text));
		hlen = strlen(text);
		memcpy(host, text, hlen);
	}
	in->off += need;
	/* The domain's bytes go through the same normalisation as any host:
	 * a NUL, '@' or non-ASCII byte inside a length-prefixed name is
	 * exactly the trick this form makes easy. */
	if (hm_target_parse((const char *)host, hlen, port, &c->target, &why)) {
		conn_set_shown(c, host, hlen, port);
		s5_reply(c, S5_NOT_ALLOWED);
		REFUSE("refused host name: %s", why);
	}
	switch (conn_open(c)) {
	case OPEN_OK:
		break;
	case OPEN_REFUSED:
		s5_reply(c, S5_NOT_ALLOWED);
		return;
	case OPEN_NORESOLVE:
		s5_reply(c, S5_HOST_UNREACHABLE);
		return;
	case OPEN_FAILED:
		s5_reply(c, S5_REFUSED);
		return;
	}
	s5_reply(c, S5_OK);
	if (in->len > in->off) {
		if (write_all(c->upstream, in->b + in->off, in->len - in->off, 10000))
			return;
		c->up += in->len - in->off;
	}
	const char *end = pump(c, UINT64_MAX, c->px->idle_ms);
	if (end)
		snprintf(c->reason, sizeof(c->reason), "%s", end);
}
