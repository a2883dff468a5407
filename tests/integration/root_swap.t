#!/bin/bash
# --root DIR swapped for a symbolic link to / between the check
# (realpath, runtime/config.c) and the clone of the root
# (mounts/rootfs.c). A session whose workspace holds DIR can do that while
# another run starts; the clone followed the link and the sandbox got the
# host's /, with the host's unix sockets outside /run and /tmp unmasked
# (they are listed for DIR only). Now the root is opened through no
# symbolic link: such a run is refused (125), never run on the host's /.
. "$(dirname "$0")/../lib.sh"

V=/var/tmp/kjail-rootswap-$$
LPID= SPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; [ -n "$LPID" ] && kill "$LPID" 2>/dev/null; rm -rf "$V"; _cleanup' EXIT
mkdir -p "$V" && chmod 755 "$V"
# The listener lives past the whole file (killed at exit): in the VM the
# loops below take about two minutes, and a socket file whose listener
# has gone is no longer listed, so not masked, and `test -S` saw it.
python3 -c '
import socket, sys, os, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(8)
time.sleep(900)' "$V/s.sock" &
LPID=$!
for _ in $(seq 50); do [ -S "$V/s.sock" ] && break; sleep 0.1; done

# The root file system, inside the workspace (a CI job's own image).
R=$WS/rootfs
mkdir -p "$R/bin" "$R/proc" "$R/dev" "$R/tmp" "$R/run" "$R/sys"
cp "$(command -v busybox)" "$R/bin/busybox"
for a in sh test echo; do ln -s busybox "$R/bin/$a"; done
chmod -R a+rX "$R"
ln -s / "$WS/rootfs.lnk"
[ "$KJ_AS" = user ] && chown -R -h "$KJ_USER" "$WS"

probe="test -S $V/s.sock && echo EXPOSED; test -c $V/s.sock && echo masked; echo end"

# Not vacuous: on the host's / the socket is masked.
kj exec --workspace "$WS:/tmp/w" -- /bin/sh -c "$probe"
is "$rc:$(echo $out)" "0:masked end" root_swap_socket_masked_on_host_root

# The swap, as fast as it goes, while runs start.
cat > "$T/swap.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	(void)argc;
	for (;;)
		renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE);
}
EOF
cc -o "$T/swap" "$T/swap.c"
"$T/swap" "$R" "$WS/rootfs.lnk" &
SPID=$!
exposed=0 refused=0 runs=0
for _ in $(seq 150); do
	kj exec --workspace "$WS:/tmp/w" --root "$R" -- /bin/sh -c "$probe"
	runs=$((runs + 1))
	case $out in *EXPOSED*) exposed=$((exposed + 1)); break ;; esac
	case $err in *"root: open $R: Too many levels of symbolic links"*) refused=$((refused + 1)) ;; esac
done
kill "$SPID"
wait "$SPID" 2>/dev/null
SPID=
is "$exposed" 0 root_swap_never_runs_on_hosts_root "($runs runs, $refused refused)"

# A directory renamed over DIR between the check and the clone (no link
# on the way, so the open through no symbolic link passes it): the root
# must be the directory that was validated, else the run is refused. Each
# run either runs on one of the two trees or is refused with that
# message; some runs of the race are refused (the old code ran them on
# the other tree).
# (The swap above may have stopped with the two exchanged: put them back.)
if [ -L "$R" ]; then
	mv "$R" "$WS/rootfs.tmp" && mv "$WS/rootfs.lnk" "$R" && mv "$WS/rootfs.tmp" "$WS/rootfs.lnk"
fi
R2=$WS/rootfs.other
cp -a "$R" "$R2"
[ "$KJ_AS" = user ] && chown -R -h "$KJ_USER" "$R2"
"$T/swap" "$R" "$R2" &
SPID=$!
odd=0 refused=0 runs=0
for _ in $(seq 200); do
	kj exec --workspace "$WS:/tmp/w" --root "$R" -- /bin/sh -c 'echo end'
	runs=$((runs + 1))
	if [ "$rc" = 125 ]; then
		case $err in
		*"$R changed between validation and mount"*) refused=$((refused + 1)) ;;
		*"root:"*) ;; # the path was missing for a moment
		*) odd=$((odd + 1)); echo "# odd: $err" ;;
		esac
	elif [ "$rc:$out" != "0:end" ]; then
		odd=$((odd + 1)); echo "# odd: $rc $out $err"
	fi
	[ "$refused" -ge 1 ] && break
done
kill "$SPID"
wait "$SPID" 2>/dev/null
SPID=
is "$odd" 0 root_dir_swap_runs_or_refuses "($runs runs)"
ok root_dir_swap_refused_when_changed [ "$refused" -ge 1 ]
echo "# $runs runs, $refused refused"

done_testing
