#!/bin/bash
# make demo: the demonstration the README's first command runs shows what
# it says it shows, as root and as an ordinary user, and leaves nothing.
DEMO=$(readlink -f "$(dirname "$0")/../demo.sh") # before lib.sh's cd: $0 may be relative
. "$(dirname "$0")/../lib.sh"

cp "$DEMO" "$T/demo.sh"
chmod a+r "$T/demo.sh"
# The caller's own only: the test VM runs the root and the user lane side
# by side, and the other lane's demo may be running.
demo_dirs() {
	find /tmp /var/tmp -maxdepth 1 -user "$KJ_UID" \( -name 'kjail-demo.*' -o \
		-name 'kjail-demo-home.*' \) 2>/dev/null | sort
}
before=$(demo_dirs)
as_caller sh "$T/demo.sh" "$KJAIL" >"$T/demo.out" 2>&1 </dev/null
rc=$?
out=$(cat "$T/demo.out")
err=$out

is "$rc" 0 demo_exits_0
like "$out" 'made note.txt' demo_command_writes_the_workspace
like "$out" 'On the host, the workspace now holds: note.txt' demo_file_appears_on_the_host
like "$out" "/etc/evil': Read-only file system" demo_root_read_only
like "$out" "cannot open directory '[^']*/\.ssh': Permission denied" demo_ssh_dir_masked
like "$out" 'id_ed25519: Permission denied' demo_ssh_key_unreadable
unlike "$out" 'not a real key' demo_ssh_key_content_never_shown
like "$out" 'OPENAI_API_KEY=<not set>' demo_api_key_scrubbed
like "$out" 'Network is unreachable' demo_no_route_out
like "$out" 'unshare failed: Operation not permitted' demo_no_namespaces
like "$out" $'CapEff:\t0000000000000000' demo_no_capabilities
like "$out" $'NoNewPrivs:\t1' demo_no_new_privs
like "$out" $'Seccomp:\t2' demo_seccomp_filter
like "$out" 'gave exit 124' demo_timeout_124
is "$(demo_dirs)" "$before" demo_leaves_no_temporary_directory

done_testing
