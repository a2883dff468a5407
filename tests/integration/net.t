#!/bin/bash
# --net none (default): only lo, up; nothing of the host's network reachable.
# --net host: the host's network, shared, explicitly.
. "$(dirname "$0")/../lib.sh"

kj exec -- sh -c 'ls /sys/class/net | tr "\n" " "; cat /sys/class/net/lo/flags'
is "$out" "lo 0x9" only_lo_exists_and_is_up

# lo's GSO limit raised to its TSO limit (512 KiB; net/loopback.c), in the
# sandbox's namespace only: large segments for bulk loopback traffic.
kj exec -- sh -c 'ip -d link show lo | grep -o "[gt]so_max_size [0-9]*" | tr "\n" " "'
like "$out" "^gso_max_size ([0-9]+) tso_max_size \1 $" sandbox_lo_gso_limit_is_its_tso_limit
host_gso() { ip -d link show lo | grep -o 'gso_max_size [0-9]*'; }
before=$(host_gso)
kj exec --net host -- true
like "$err" "^kjail: net: host: the command shares the host's network \(not isolated\)$" net_host_announced
kj exec -- true
is "$(host_gso)" "$before" host_lo_untouched
kj exec --net host --quiet -- true
is "$rc:$err" "0:" net_host_note_quiet
kj exec --landlock off -- true
like "$err" "^kjail: landlock: off: no Landlock rules beneath the mounts$" landlock_off_announced

inside_loopback='import socket, threading
for fam, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    s = socket.socket(fam); s.bind((addr, 0)); s.listen(1)
    c = socket.socket(fam); c.connect(s.getsockname()); a, _ = s.accept()
    c.sendall(b"hi"); print(addr, a.recv(2).decode())'
kj exec -- python3 -c "$inside_loopback"
is "$(echo $out)" "127.0.0.1 hi ::1 hi" loopback_v4_and_v6_work_inside

# A listener on the host's loopback, in the host's network namespace.
python3 -c '
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
a = socket.socket(socket.AF_UNIX); a.bind("\0kjail-test-abstract-'$$'"); a.listen(8)
time.sleep(30)' > "$T/port" &
LPID=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
PORT=$(cat "$T/port")
connect_tcp='import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2); print("connected")
except OSError as e: print("refused", e.errno)'
kj exec -- python3 -c "$connect_tcp" "$PORT"
like "$out" "^refused" host_loopback_listener_unreachable
connect_abstract='import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0kjail-test-abstract-'$$'"); print("connected")
except OSError as e: print("refused", e.errno)'
kj exec -- python3 -c "$connect_abstract"
like "$out" "^refused" host_abstract_socket_unreachable
kj exec -- python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b"x", ("192.0.2.1", 9)); print("sent")
except OSError as e: print("unreachable", e.errno)'
like "$out" "^unreachable 101" udp_finds_no_route
kj exec -- python3 -c 'import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP); print("raw socket")
except OSError as e: print("denied", e.errno)'
like "$out" "^denied" raw_socket_denied

kj exec --net host -- python3 -c "$connect_tcp" "$PORT"
is "$out" connected net_host_reaches_host_loopback
# Landlock (ABI 6) scopes abstract sockets to the sandbox even with
# --net host (landlock.t); without it they are part of the shared network.
kj exec --net host --landlock off -- python3 -c "$connect_abstract"
is "$out" connected net_host_reaches_abstract_socket_without_landlock
kill "$LPID" 2>/dev/null
wait "$LPID" 2>/dev/null

done_testing
