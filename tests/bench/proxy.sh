#!/bin/sh
# make bench (--net proxy): throughput of a 1 GiB download from a loopback
# HTTP server through kjail's proxy against the same with --net host, and
# the latency one small request gains. One run; prints the figures.
#   sh tests/bench/proxy.sh [build/kjail]     (BENCH_SIZE, BENCH_REQUESTS)
set -eu
KJAIL=$(readlink -f "${1:-build/kjail}")
SIZE=${BENCH_SIZE:-1073741824}
REQS=${BENCH_REQUESTS:-100}
ROUNDS=${BENCH_ROUNDS:-7}
WS=$(mktemp -d /tmp/kjail-bench-proxy.XXXXXX)
cd "$WS"
limits=""
"$KJAIL" exec --help 2>/dev/null | grep -q -- '--limits' && limits="--limits best-effort"

# A server that writes SIZE zero bytes from one 1 MiB buffer (no copy in
# Python: on a small machine the server's CPU would otherwise be part of
# the figure) and "ok" for /small.
cat >server.py <<'PY'
import socket, sys, threading
size = int(sys.argv[1])
buf = memoryview(b"\0" * (1 << 20))  # slices without copying
def serve(c):
    with c:
        req = b""
        while b"\r\n\r\n" not in req:
            d = c.recv(65536)
            if not d:
                return
            req += d
        n = size if b"/big" in req.split(b"\r\n", 1)[0] else 2
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % n)
        if n == 2:
            return c.sendall(b"ok")
        while n:
            k = min(n, len(buf))
            c.sendall(buf[:k])
            n -= k
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
python3 server.py "$SIZE" >port &
SRV=$!
trap 'kill $SRV 2>/dev/null; rm -rf "$WS"' EXIT
for _ in $(seq 100); do [ -s port ] && break; sleep 0.05; done
PORT=$(cat port)
echo "127.0.0.1 bench.test" >hosts
# The sandboxes run in a workspace of their own: a --net-hosts file in
# the workspace, which the sandbox can write, is refused.
mkdir "$WS/ws" && cd "$WS/ws"
PROXY="--net proxy --net-hosts $WS/hosts --allow-host bench.test:$PORT --allow-host 127.0.0.1:$PORT"

echo "machine: $(uname -sr), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
echo "download of $SIZE bytes from a loopback server, curl inside kjail, $ROUNDS rounds (medians):"
# Rounds interleave the modes, so a burst of load elsewhere on the machine
# hits all three alike; the medians are reported.
for _ in $(seq "$ROUNDS"); do
	# shellcheck disable=SC2086
	"$KJAIL" exec --quiet $limits --net host -- \
		curl -s --noproxy '*' -o /dev/null -w '%{speed_download} ' "http://127.0.0.1:$PORT/big"
	# shellcheck disable=SC2086
	"$KJAIL" exec --quiet $limits $PROXY -- \
		curl -s -o /dev/null -w '%{speed_download} ' "http://bench.test:$PORT/big"
	# shellcheck disable=SC2086
	"$KJAIL" exec --quiet $limits $PROXY -- \
		curl -s -p -o /dev/null -w '%{speed_download}\n' "http://bench.test:$PORT/big"
done >speeds

# One small request, REQS times in one sandbox (curl's own time_total:
# connect + request + response, without curl's start-up).
lat='for i in $(seq '$REQS'); do curl -s -o /dev/null -w "%{time_total}\n" "$0"; done'
# shellcheck disable=SC2086
"$KJAIL" exec --quiet $limits --net host -- env no_proxy='*' sh -c "$lat" "http://127.0.0.1:$PORT/small" >lat.host
# shellcheck disable=SC2086
"$KJAIL" exec --quiet $limits $PROXY -- sh -c "$lat" "http://bench.test:$PORT/small" >lat.proxy

python3 - speeds lat.host lat.proxy <<'PY'
import statistics, sys
rounds = [[float(x) for x in line.split()] for line in open(sys.argv[1])]
host, http, tunnel = (statistics.median(r[i] for r in rounds) for i in range(3))
def med(f):
    return statistics.median(float(x) for x in open(f)) * 1e6
mib = 1 << 20
print("  --net host                   %8.0f MiB/s" % (host / mib))
print("  --net proxy (plain HTTP)     %8.0f MiB/s   ratio %.2f  (target >= 0.7)" % (http / mib, http / host))
print("  --net proxy (CONNECT tunnel) %8.0f MiB/s   ratio %.2f  (target >= 0.7)" % (tunnel / mib, tunnel / host))
print("  per-round ratios (plain HTTP): %s" % " ".join("%.2f" % (r[1] / r[0]) for r in rounds))
h, p = med(sys.argv[2]), med(sys.argv[3])
print("small request, median of %d: --net host %.0f us, --net proxy %.0f us, added %.0f us"
      % (sum(1 for _ in open(sys.argv[2])), h, p, p - h))
PY
