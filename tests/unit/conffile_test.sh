#!/bin/sh
# Build and run the configuration line parser's unit test (TAP).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=${BUILD:-build}/tests/unit
CC=${CC:-cc}
CFLAGS="-O2 -g -std=c17 -Wall -Wextra -Werror -Wshadow -Wformat=2 -D_GNU_SOURCE \
	-fstack-protector-strong -D_FORTIFY_SOURCE=2"

mkdir -p "$out" || { echo "1..1"; echo "not ok 1 - mkdir $out"; exit 1; }
# shellcheck disable=SC2086 # CFLAGS is meant to split
$CC $CFLAGS -I. -o "$out/conffile_test" tests/unit/conffile_test.c runtime/conffile.c runtime/accounts.c runtime/getent.c \
	runtime/error.c >&2 || { echo "1..1"; echo "not ok 1 - build tests/unit/conffile_test.c"; exit 1; }
exec "$out/conffile_test"
