#!/bin/sh
# shellcheck disable=SC2086 # $CFLAGS is meant to split
# Build and run the allow-list matcher's unit test (net/hostmatch.c): TAP on
# stdout, so: prove tests/unit/hostmatch_test.sh. Needs only a C compiler.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=${BUILD:-build}/tests/unit
CC=${CC:-cc}
CFLAGS="-O2 -g -std=c17 -Wall -Wextra -Werror -Wshadow -Wformat=2 -D_GNU_SOURCE \
	-fstack-protector-strong -D_FORTIFY_SOURCE=2"

mkdir -p "$out" || { echo "1..1"; echo "not ok 1 - build: mkdir $out"; exit 1; }
if ! $CC $CFLAGS -I. -o "$out/hostmatch_test" tests/unit/hostmatch_test.c net/hostmatch.c >&2; then
	echo "1..1"
	echo "not ok 1 - build: tests/unit/hostmatch_test.c"
	exit 1
fi
exec "$out/hostmatch_test"
