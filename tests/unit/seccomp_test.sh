#!/bin/sh
# shellcheck disable=SC2086,SC2046 # $CFLAGS and pkg-config output are meant to split
# Build and run the seccomp unit test; TAP on stdout, so: prove tests/unit/seccomp_test.sh
# Needs only libseccomp (pkg-config) and a C compiler (CC, default cc).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=${BUILD:-build}/tests
CC=${CC:-cc}
CFLAGS="-O2 -g -std=c17 -Wall -Wextra -Werror -Wshadow -Wformat=2 -D_GNU_SOURCE \
	-fstack-protector-strong -D_FORTIFY_SOURCE=2"

fail() {
	echo "1..1"
	echo "not ok 1 - build: $1"
	exit 1
}

pkg-config --exists libseccomp || fail "libseccomp not found by pkg-config (apt-get install libseccomp-dev)"
mkdir -p "$out/gen" "$out/unit" || fail "mkdir $out"
# Only the default policy, through the same embedding as the kjail binary.
sh profiles/embed.sh profiles/seccomp-default.policy >"$out/gen/seccomp_builtin.c" ||
	fail "profiles/embed.sh"
$CC $CFLAGS -I. $(pkg-config --cflags libseccomp) -o "$out/unit/seccomp_test" \
	tests/unit/seccomp_test.c runtime/seccomp.c runtime/error.c \
	"$out/gen/seccomp_builtin.c" $(pkg-config --libs libseccomp) >&2 ||
	fail "tests/unit/seccomp_test.c"
# Static like tests/probes/build.sh makes it; dynamic if libc.a is missing.
$CC $CFLAGS -static -o "$out/syscalls" tests/probes/syscalls.c >/dev/null 2>&1 ||
	$CC $CFLAGS -o "$out/syscalls" tests/probes/syscalls.c >&2 ||
	fail "tests/probes/syscalls.c"
exec "$out/unit/seccomp_test" "$out/syscalls"
