#!/bin/sh
# Build the small C probes the tests run inside sandboxes (static, so they
# run under --root rootfs directories and in the VM as well).
set -eu
out=$1
mkdir -p "$out"
for src in "$(dirname "$0")"/*.c; do
	[ -e "$src" ] || continue
	bin=$out/$(basename "$src" .c)
	if [ ! -e "$bin" ] || [ "$src" -nt "$bin" ]; then
		${CC:-cc} -std=c17 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -static -o "$bin" "$src"
	fi
done
