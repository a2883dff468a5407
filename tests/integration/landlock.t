#!/bin/bash
# Landlock under the mount tree: writes only beneath the workspace, /tmp,
# /dev/shm, the /dev nodes and the --rw grants, even where the mount tree
# alone would allow more; abstract unix sockets and signals scoped to the
# sandbox; --landlock required|best-effort|off.
. "$(dirname "$0")/../lib.sh"

abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))' 2>/dev/null)
if [ "${abi:-0}" -lt 1 ] 2>/dev/null; then
	skip landlock_tests "the kernel has no Landlock (ABI ${abi:-?})"
	done_testing
	exit
fi

# kjail run as if the kernel had no Landlock (tests/probes/nolandlock.c).
kj_without_landlock() {
	local o=$T/.nl.out e=$T/.nl.err
	# shellcheck disable=SC2086
	as_caller "$PROBES/nolandlock" "$KJAIL" exec $KJ_EXEC_ARGS "$@" >"$o" 2>"$e" </dev/null
	rc=$?
	out=$(cat "$o")
	err=$(cat "$e")
}

# --- the mount tree allows it, Landlock does not ----------------------
# /run is kjail's own fresh tmpfs: writable in the mount tree (it exists
# to hide the host's /run, not to be written), so it is the mistake
# Landlock must catch.
kj exec --landlock off -- sh -c 'touch /run/x && echo written'
is "$out" written run_is_writable_in_the_mount_tree_alone
kj exec -- sh -c 'touch /run/x 2>&1; echo rc=$?'
like "$out" "Permission denied" run_write_denied_by_landlock
like "$out" "rc=1" run_write_fails
kj exec -- sh -c 'mkdir /run/d 2>&1; ln -s /etc /run/l 2>&1; mkfifo /run/f 2>&1; echo done'
is "$(printf '%s\n' "$out" | grep -c 'Permission denied')" 3 run_mkdir_symlink_fifo_denied

# /proc/self/* files the DAC lets a process write (comm, and the mem file
# of the Dirty COW exploits) are not beneath any write rule.
kj exec --landlock off -- sh -c 'echo probe > /proc/self/comm && echo written'
is "$out" written proc_self_comm_writable_without_landlock
kj exec -- sh -c '(echo probe > /proc/self/comm) 2>&1; echo rc=$?'
like "$out" "Permission denied" proc_self_comm_write_denied

# --- what stays writable ----------------------------------------------
kj exec -- sh -c 'touch ws-file && mkdir ws-dir && mv ws-file ws-dir/ && rm -r ws-dir && echo ok'
is "$out" ok workspace_create_rename_remove_work
kj exec -- sh -c 'echo x > /tmp/f && mkdir /tmp/d && ln -s f /tmp/l && mkfifo /tmp/p && cat /tmp/l'
is "$out" x tmp_writable
kj exec -- sh -c 'echo x > /dev/shm/f && cat /dev/shm/f'
is "$out" x dev_shm_writable
kj exec -- sh -c 'echo x > /dev/null && head -c 4 /dev/zero | wc -c && head -c 4 /dev/urandom | wc -c && (echo x > /dev/full) 2>&1'
like "$(echo $out)" "^4 4 .*error" dev_nodes_usable_with_o_trunc
unlike "$out" "Permission denied" dev_full_opens_for_writing
kj exec -- sh -c 'touch /dev/newnode 2>&1; echo rc=$?'
like "$out" "rc=1" dev_stays_closed
kj exec -- python3 -c 'import os, pty
m, s = pty.openpty(); os.write(s, b"hi\n"); print(os.read(m, 3).decode().strip(), os.isatty(s))'
is "$out" "hi True" new_pty_usable
grant=$T/grant
mkdir -p "$grant"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$grant"
kj exec --rw "$grant" -- sh -c "echo x > '$grant/f' && cat '$grant/f'"
is "$out" x rw_grant_writable
kj exec --rw "$grant:/run/granted" -- sh -c 'echo x > /run/granted/g && cat /run/granted/g && touch /run/other 2>&1'
like "$(echo $out)" "^x .*Permission denied" rw_grant_under_run_writable_rest_of_run_not
kj exec --workspace-ro -- sh -c 'touch ws-ro 2>&1; echo rc=$?'
like "$out" "Read-only file system" workspace_ro_still_erofs_first

# stdio passed straight through (files of the caller): reopening through
# /dev/stdout or /dev/stderr keeps working, with the descriptor's access.
# The files belong to the caller (kj's would be root's: the test shell
# opens them).
touch "$T/so" "$T/se"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/so" "$T/se"
# shellcheck disable=SC2086
as_caller "$KJAIL" exec $KJ_EXEC_ARGS -- sh -c 'echo to-stderr >> /dev/stderr; echo to-stdout >> /dev/stdout; cat /dev/stdin; echo rc=$?' \
	>>"$T/so" 2>>"$T/se" </dev/null
is "$(cat "$T/se")" to-stderr stderr_file_reopened_through_dev_stderr
is "$(cat "$T/so")" "to-stdout
rc=0" stdout_and_stdin_reopened

# --- scopes (ABI 6): signals and abstract unix sockets -----------------
if [ "$abi" -ge 6 ]; then
	kj exec -- sh -c 'kill -0 1 2>&1; echo rc=$?'
	like "$out" "Operation not permitted" signal_to_sandbox_init_denied
	kj exec --landlock off -- sh -c 'kill -0 1; echo rc=$?'
	is "$out" "rc=0" signal_to_init_allowed_without_landlock
	kj exec -- sh -c 'sleep 5 & kill $!; wait $!; echo $?'
	is "$out" 143 signals_inside_the_sandbox_work
	kj exec -- python3 -c 'import os, socket
name = "\0kjail-inside"
s = socket.socket(socket.AF_UNIX); s.bind(name); s.listen(1)
if os.fork() == 0:
    c = socket.socket(socket.AF_UNIX); c.connect(name); c.sendall(b"hi"); os._exit(0)
a, _ = s.accept(); print(a.recv(2).decode()); os.wait()'
	is "$out" hi abstract_socket_between_sandbox_processes_works

	# With --net host the abstract namespace is the host's: its sockets
	# (X11, D-Bus, containerd-shim's CVE-2020-15257) stay out of reach.
	python3 -c '
import socket, time
a = socket.socket(socket.AF_UNIX); a.bind("\0kjail-test-ll-'$$'"); a.listen(8)
print("ready", flush=True); time.sleep(30)' > "$T/abstract" &
	LPID=$!
	for _ in $(seq 50); do [ -s "$T/abstract" ] && break; sleep 0.1; done
	connect_abstract='import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0kjail-test-ll-'$$'"); print("connected")
except OSError as e: print("refused", e.errno)'
	kj exec --net host -- python3 -c "$connect_abstract"
	is "$out" "refused 1" net_host_abstract_socket_of_host_refused_eperm
	kj exec --net host --landlock off -- python3 -c "$connect_abstract"
	is "$out" connected net_host_abstract_socket_reachable_with_landlock_off
	kill "$LPID" 2>/dev/null
	wait "$LPID" 2>/dev/null
else
	skip landlock_scopes "Landlock ABI $abi < 6"
fi

# --- TCP (ABI 4): --net proxy allows only the relay ---------------------
if [ "$abi" -ge 4 ]; then
	tcp_probe='import socket
for what, f in (("bind", lambda s: s.bind(("127.0.0.1", 0))),
                ("connect-other", lambda s: s.connect(("127.0.0.1", 80))),
                ("connect-relay", lambda s: s.connect(("127.0.0.1", 3128)))):
    s = socket.socket()
    try: f(s); print(what, "ok")
    except OSError as e: print(what, e.errno)'
	kj exec --net proxy -- python3 -c "$tcp_probe"
	is "$(echo $out)" "bind 13 connect-other 13 connect-relay ok" net_proxy_tcp_only_to_the_relay
	kj exec --net proxy --landlock off -- python3 -c "$tcp_probe"
	is "$(echo $out)" "bind ok connect-other 111 connect-relay ok" net_proxy_tcp_without_landlock_is_the_namespace_only
	# --net none: loopback servers of the command's own keep working.
	kj exec -- python3 -c "$tcp_probe"
	like "$(echo $out)" "^bind ok connect-other 111" net_none_tcp_not_restricted_by_landlock
else
	skip landlock_tcp "Landlock ABI $abi < 4"
fi

# --- modes ----------------------------------------------------------------
kj exec --landlock required --stats -- sh -c 'touch /run/x 2>/dev/null || echo denied'
is "$rc:$out" 0:denied landlock_required_works_here
like "$err" "^kjail: stats: landlock ABI $abi: files" stats_report_landlock_abi
kj exec --landlock off --stats -- true
like "$err" "^kjail: stats: landlock off \(--landlock off\)$" stats_report_landlock_off
kj exec --landlock sometimes -- true
is "$rc" 125 landlock_bad_value_exit_125
like "$err" "^kjail: option: --landlock" landlock_bad_value_names_option

kj exec --isolation none --net host --landlock required -- true
like "$rc:$err" "^125:kjail: option: --landlock required needs the sandbox's namespaces" landlock_required_refused_without_isolation

kj_without_landlock --landlock required -- true
is "$rc" 125 landlock_required_without_landlock_fails_closed
like "$err" "^kjail: landlock: --landlock required, but the kernel has no Landlock: Function not implemented \(.*best-effort\)$" landlock_required_message
kj_without_landlock --stats -- sh -c 'touch /run/x && echo written'
is "$rc:$out" 0:written best_effort_without_landlock_runs_as_before
like "$err" "stats: landlock not available \(Function not implemented\)" stats_report_landlock_not_available

done_testing
