#!/bin/sh
# make demo: run a few commands in a kjail sandbox and show what a command
# inside can and cannot do.
set -u
KJAIL=$(readlink -f "${1:-build/kjail}")
WS=$(mktemp -d /tmp/kjail-demo.XXXXXX)
# A HOME of the demo's own with a (fake) SSH key in it, so the masking is
# shown on a credential store that exists, on any host.
DEMO_HOME=$(mktemp -d /var/tmp/kjail-demo-home.XXXXXX) # not /tmp: private inside
trap 'rm -rf "$WS" "$DEMO_HOME"' EXIT
mkdir -m 700 "$DEMO_HOME/.ssh" && echo "not a real key" >"$DEMO_HOME/.ssh/id_ed25519"
cd "$WS" || exit 1
[ "$(id -u)" -ne 0 ] || chmod 755 "$WS"

LIMITS=""
if ! "$KJAIL" exec --quiet -- true 2>"$WS/.err"; then
	if grep -q "cgroup" "$WS/.err"; then
		echo "Note: this host cannot enforce cgroup v2 limits:"
		sed 's/^/  /' "$WS/.err"
		echo "The demo runs with --limits best-effort (the limits are proven in the VM: make test-vm)."
		LIMITS="--limits best-effort --quiet"
	else
		echo "kjail cannot build a sandbox on this host:"
		cat "$WS/.err"
		exit 1
	fi
fi

export OPENAI_API_KEY=sk-demo-not-a-real-key
run() { # description, then the shell command to run inside
	desc=$1
	shift
	printf '\n$ kjail exec -- sh -c %s\n' "'$*'"
	# shellcheck disable=SC2086
	"$KJAIL" exec $LIMITS -- sh -c "$*" 2>&1 | sed 's/^/  | /'
	printf '  => %s\n' "$desc"
}

echo "kjail demo: one command, a fresh sandbox each time (workspace: $WS)"
run "the caller's own identity, a private hostname, kjail's init as pid 1" \
	'id; hostname; ps -o pid,comm 2>/dev/null || ls /proc | grep -E "^[0-9]+$"'
run "CAN write the workspace (the file appears on the host) and the private /tmp" \
	'echo hello > note.txt && echo made note.txt; echo scratch > /tmp/x && df -h /tmp | tail -1'
run "CANNOT write the rest of the host: the root is read-only" \
	'touch /etc/evil; touch /usr/bin/evil'
printf '\n(on the host, HOME=%s holds .ssh/%s)' "$DEMO_HOME" "$(ls "$DEMO_HOME/.ssh")"
HOME=$DEMO_HOME run "CANNOT read the caller's credential stores (~/.ssh is masked inside) or API keys" \
	'ls -A ~/.ssh; cat ~/.ssh/id_ed25519 2>&1; echo "OPENAI_API_KEY=${OPENAI_API_KEY:-<not set>}"'
run "CANNOT see or reach the network: only lo exists" \
	'ls /sys/class/net; python3 -c "import socket; socket.create_connection((\"1.1.1.1\", 53), timeout=2)" 2>&1 | tail -1'
run "CANNOT make namespaces, mount, or gain privileges (seccomp, no capabilities)" \
	'unshare -U true; mount -t tmpfs none /tmp; grep -E "CapEff|NoNewPrivs|Seccomp:" /proc/self/status'
echo
printf 'On the host, the workspace now holds: '
ls "$WS"
echo "Exit codes: COMMAND's own; 128+N killed by signal N; 124 timeout; 125 kjail failed; 126/127 not executable/not found."
"$KJAIL" exec $LIMITS --timeout 1 -- sleep 10
echo "  => --timeout 1 gave exit $?"
