#!/bin/sh
# The unit test of kjail's NSS-free lookups: accounts from /etc/passwd and
# /etc/group, getent(1) for the rest, and the proxy's parsing of
# `getent ahosts`.
. "$(dirname "$0")/build.inc"
unit_build accounts_test runtime/accounts.c runtime/getent.c runtime/validate.c \
	net/proxy_hosts.c net/hostmatch.c runtime/error.c -lpthread
exec "$out/accounts_test"
