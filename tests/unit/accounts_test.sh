#!/bin/sh
# Build and run the unit test of kjail's NSS-free lookups: accounts from
# /etc/passwd and /etc/group, getent(1) for the rest, and the proxy's
# parsing of `getent ahosts` (TAP).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=${BUILD:-build}/tests/unit
CC=${CC:-cc}
CFLAGS="-O2 -g -std=c17 -Wall -Wextra -Werror -Wshadow -Wformat=2 -D_GNU_SOURCE \
	-fstack-protector-strong -D_FORTIFY_SOURCE=2"

mkdir -p "$out" || { echo "1..1"; echo "not ok 1 - mkdir $out"; exit 1; }
# shellcheck disable=SC2086 # CFLAGS is meant to split
$CC $CFLAGS -I. -o "$out/accounts_test" tests/unit/accounts_test.c runtime/accounts.c \
	runtime/getent.c net/proxy_hosts.c net/hostmatch.c runtime/error.c -lpthread >&2 ||
	{ echo "1..1"; echo "not ok 1 - build tests/unit/accounts_test.c"; exit 1; }
exec "$out/accounts_test"
