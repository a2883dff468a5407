#!/bin/bash
# --seccomp default|strict|FILE: the argument checks of the default policy
# (socket families, netlink protocols, prctl, ioctl), the strict
# allow-list running real workloads, and policy files of the caller's.
. "$(dirname "$0")/../lib.sh"

# --- default policy: argument checks, proven by a probe -----------------
kj exec -- "$PROBES/hardening" default
expect_rc default_policy_argument_checks_hold 0
is "$(printf '%s\n' "$out" | grep '^not ok' || true)" "" default_probe_reports_no_failed_check
ok "default_probe_ran_its_checks ($(printf '%s\n' "$out" | grep -c '^ok'))" \
	test "$(printf '%s\n' "$out" | grep -c '^ok')" -ge 50
# Without kjail, the denials must not happen on their own (as root, where
# the kernel's capability checks pass) or the probe proves nothing.
if [ "$KJ_AS" = root ]; then
	same=$("$PROBES/hardening" none | grep '^same' | grep -v 'AF_\|NETLINK' || true)
	is "$same" "" probe_denials_do_not_happen_without_the_filter
fi
kj exec -- sh -c 'ip -o addr show lo 2>&1 | head -1'
like "$out" "^1: lo +inet 127.0.0.1" netlink_route_still_works_ip_addr

# --- strict: an allow-list that still runs real work --------------------
kj exec --seccomp strict -- grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status
is "$(echo $out | tr -s '\t ' ' ')" "NoNewPrivs: 1 Seccomp: 2" strict_filter_loaded
kj exec --seccomp strict -- "$PROBES/hardening" strict
expect_rc strict_policy_checks_hold 0
is "$(printf '%s\n' "$out" | grep '^not ok' || true)" "" strict_probe_reports_no_failed_check
kj exec --seccomp strict -- "$PROBES/syscalls"
is "$(printf '%s\n' "$out" | grep '^not ok' | grep -v ' got EPERM$' || true)" "" strict_denies_everything_default_denies

kj exec --seccomp strict -- sh -c 'for i in 1 2 3; do echo $i; done | sort -r | tr "\n" " "; ls / >/dev/null && cat /etc/hostname >/dev/null && echo shell-ok'
is "$out" "3 2 1 shell-ok" strict_runs_a_shell_pipeline

cat > "$WS/hello.c" <<'EOF'
#include <stdio.h>
int main(void) { puts("hello from gcc"); return 0; }
EOF
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$WS/hello.c"
kj exec --seccomp strict -- sh -c 'gcc -O2 -o hello hello.c && ./hello'
is "$out" "hello from gcc" strict_gcc_compiles_and_runs

kj exec --seccomp strict -- python3 -c '
import threading, subprocess, multiprocessing, tempfile, socket, sqlite3, hashlib
r = []
t = [threading.Thread(target=lambda: r.append(sum(range(10000)))) for _ in range(4)]
[x.start() for x in t]; [x.join() for x in t]
sub = subprocess.run(["echo", "sub"], capture_output=True, text=True).stdout.strip()
with multiprocessing.Pool(2) as p: m = p.map(abs, [-1, -2])
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); a, _ = s.accept(); c.sendall(b"x")
with tempfile.NamedTemporaryFile() as f: f.write(b"x")
sqlite3.connect(":memory:").execute("select 1")
print(len(r), sub, m, a.recv(1).decode(), hashlib.sha256(b"").hexdigest()[:8])'
is "$out" "4 sub [1, 2] x e3b0c442" strict_python_threads_subprocess_multiprocessing

if command -v node >/dev/null; then
	kj exec --seccomp strict -- node -e '
const cp = require("child_process"), http = require("http"), { Worker } = require("worker_threads");
const sub = cp.execSync("echo nodesub").toString().trim();
new Worker("require(\"worker_threads\").parentPort.postMessage(6*7)", { eval: true }).on("message", (w) => {
  const srv = http.createServer((q, r) => r.end("ok")).listen(0, "127.0.0.1", () => {
    http.get("http://127.0.0.1:" + srv.address().port, (r) => r.on("data", (d) => {
      console.log(sub, w, d.toString()); srv.close();
    }));
  });
});'
	is "$out" "nodesub 42 ok" strict_node_worker_child_process_http
else
	skip strict_node_worker_child_process_http "node is not installed"
fi

kj exec --seccomp strict -- sh -c 'git init -q repo && cd repo && git config user.email t@example.com && git config user.name t &&
	echo x > f && git add f && git commit -qm first && git log --oneline | wc -l && git status --short | wc -l'
is "$(echo $out)" "1 0" strict_git_init_add_commit_log

# --- policy files -------------------------------------------------------
P=$T/policies
mkdir -p "$P"
cat > "$P/no-uname.policy" <<'EOF'
# a caller's policy: the default's spirit, plus no uname
@default allow
uname     errno:EPERM   # test: observable from a shell
mount     errno:EPERM   # keep the obvious one
EOF
cat > "$P/broken.policy" <<'EOF'
@default allow
# line 3 names a syscall that does not exist
nosuchcall errno:EPERM
EOF
cat > "$P/unsafe-int.policy" <<'EOF'
@default allow
socket errno:EPERM arg0==AF_PACKET   # 64-bit compare of an int
EOF
chmod 0644 "$P"/*.policy
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$P"/*.policy

kj exec --seccomp "$P/no-uname.policy" -- sh -c 'uname 2>&1; echo rc=$?'
like "$out" "Operation not permitted" policy_file_rule_applies
like "$out" "rc=1" policy_file_rule_fails_the_command
kj exec --seccomp "$P/no-uname.policy" -- grep Seccomp: /proc/self/status
like "$out" "2$" policy_file_loaded_as_filter

kj exec --seccomp "$P/broken.policy" -- true
is "$rc" 125 broken_policy_exit_125
is "$err" "kjail: seccomp: $P/broken.policy:3: unknown syscall 'nosuchcall' (check the spelling; see syscalls(2))" broken_policy_names_file_and_line
kj exec --seccomp "$P/unsafe-int.policy" -- true
is "$rc" 125 int_compared_on_64_bits_refused
like "$err" "unsafe-int.policy:2: socket arg0 compared on 64 bits" int_compare_message_names_line

# Every argument, not only a list of int ones: kill's signal is an int,
# and `arg1==10` in a deny rule was dodged with 0x10000000a.
printf '@default allow\nkill errno:EPERM arg1==10\n' >"$P/kill-int.policy"
chmod 0644 "$P/kill-int.policy"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$P/kill-int.policy"
kj exec --seccomp "$P/kill-int.policy" -- true
like "$rc:$err" "^125:.*kill-int.policy:2: kill arg1 compared on 64 bits" any_int_argument_compared_on_64_bits_refused
printf '@default allow\nkill errno:EPERM arg1&0xffffffff==10\n' >"$P/kill-int.policy"
kj exec --seccomp "$P/kill-int.policy" -- python3 -c 'import ctypes, os, signal
signal.signal(signal.SIGUSR1, lambda *a: print("delivered"))
libc = ctypes.CDLL(None, use_errno=True)
for sig in (10, 0x10000000a):
    r = libc.syscall(62, os.getpid(), ctypes.c_long(sig))
    print(sig, r, ctypes.get_errno())'
is "$out" "10 -1 1
4294967306 -1 1" masked_deny_catches_upper_bits_of_an_int

# A conflict only libseccomp finds (in the compiler child) keeps its line.
printf '@default allow\ngetppid errno:EPERM arg0&0xffffffff==1\ngetppid errno:EACCES arg0&0xffffffff==1\n' >"$P/conflict.policy"
kj exec --seccomp "$P/conflict.policy" -- true
like "$rc:$err" "^125:kjail: seccomp: $P/conflict.policy:3: getppid: conflicts with an earlier rule" conflict_found_by_libseccomp_names_line
# A shape that sends libseccomp 2.5.4 into a minutes-long search (found by
# fuzzing): exit 125 after the compiler's 2 s CPU limit, not a hang.
printf '@default allow\nsocket errno:EPROTONOSUPPORT arg4&0xffffffff==16 arg2!=0\nsocket errno:EPROTONOSUPPORT arg5&0xffffffff==16 arg2!=0\n' >"$P/slow.policy"
start=$(date +%s)
kj exec --seccomp "$P/slow.policy" -- echo ran
took=$(( $(date +%s) - start ))
if [ "$rc" = 0 ]; then
	is "$out" ran slow_policy_compiled_here_so_it_must_run # a fixed libseccomp
else
	like "$rc:$err" "^125:kjail: seccomp: $P/slow.policy: libseccomp did not finish compiling the policy within 2 s" pathological_policy_bounded_exit_125
fi
ok "pathological_policy_answered_within_12s (${took}s)" test "$took" -le 12
is "$(pgrep -f -- "$P/slow.policy" | wc -l)" 0 policy_compiler_child_gone

cp "$P/no-uname.policy" "$WS/in-ws.policy"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$WS/in-ws.policy"
kj exec --seccomp "$WS/in-ws.policy" -- true
is "$rc" 125 policy_in_workspace_refused
like "$err" "^kjail: seccomp: --seccomp $WS/in-ws.policy is inside the workspace" policy_in_workspace_message
kj exec --seccomp ./in-ws.policy -- true
is "$rc" 125 policy_in_workspace_refused_by_relative_path

grant=$T/grant
mkdir -p "$grant"
cp "$P/no-uname.policy" "$grant/g.policy"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$grant"
kj exec --rw "$grant" --seccomp "$grant/g.policy" -- true
is "$rc" 125 policy_in_write_grant_refused
like "$err" "is inside the write grant $grant" policy_in_write_grant_message
ln -s "$WS/in-ws.policy" "$P/link.policy"
kj exec --seccomp "$P/link.policy" -- true
like "$rc:$err" "^125:.*inside the workspace" policy_symlink_into_workspace_refused

# A link planted in the workspace to a policy outside it: refused (an
# earlier run would choose this run's filter).
cp "$P/no-uname.policy" "$P/outside.policy"
ln -s "$P/outside.policy" "$WS/planted.policy"
kj exec --seccomp ./planted.policy -- true
like "$rc:$err" "^125:kjail: seccomp: --seccomp ./planted.policy: $WS/planted.policy is a symlink inside $WS, which the sandbox can write" \
	policy_link_planted_in_workspace_refused
rm -f "$WS/planted.policy"

# A directory others can write lets them replace the policy.
mkdir -m 0777 "$T/opendir"
cp "$P/no-uname.policy" "$T/opendir/p.policy"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/opendir/p.policy"
kj exec --seccomp "$T/opendir/p.policy" -- true
like "$rc:$err" "^125:kjail: seccomp: the directory .*opendir is writable by group or others" policy_in_open_directory_refused

cp "$P/no-uname.policy" "$P/shared.policy"
chmod 0666 "$P/shared.policy"
kj exec --seccomp "$P/shared.policy" -- true
is "$rc" 125 policy_writable_by_others_refused
like "$err" "writable by others \(mode 0666\) \(chmod go-w it\)" policy_writable_message
cp "$P/no-uname.policy" "$P/foreign.policy"
chown 12345 "$P/foreign.policy"
kj exec --seccomp "$P/foreign.policy" -- true
like "$rc:$err" "^125:.*belongs to uid 12345" policy_owned_by_another_user_refused

# A FIFO named as the policy: refused at once (125), never opened for a
# read that waits for a writer (kjail and kjail doctor hung).
mkfifo -m 0644 "$P/fifo.policy" "$WS/fifo.policy"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$P/fifo.policy" "$WS/fifo.policy"
KJ_KILL_AFTER=10 kj exec --seccomp "$P/fifo.policy" -- true
like "$rc:$err" "^125:kjail: seccomp: --seccomp $P/fifo.policy is not a regular file \(give a policy file\)$" \
	policy_fifo_refused_not_waited_on
KJ_KILL_AFTER=10 kj exec --seccomp ./fifo.policy -- true
like "$rc:$err" "^125:kjail: seccomp: --seccomp $WS/fifo.policy is inside the workspace" policy_fifo_in_workspace_refused
KJ_KILL_AFTER=10 kj doctor --seccomp "$P/fifo.policy"
like "$rc:$(printf '%s\n' "$out" | grep verdict)" "^1:fail +verdict +cannot run here: seccomp: --seccomp $P/fifo.policy is not a regular file" \
	doctor_policy_fifo_reported_not_waited_on
rm -f "$P/fifo.policy" "$WS/fifo.policy"

kj exec --seccomp maybe -- true
is "$rc" 125 seccomp_bare_word_refused
like "$err" "'maybe' is neither default, strict nor a path" seccomp_bare_word_message
kj exec --seccomp "$P/missing.policy" -- true
like "$rc:$err" "^125:kjail: seccomp: --seccomp $P/missing.policy: No such file or directory" missing_policy_file
kj exec --isolation none --net host --seccomp strict -- true
like "$rc:$err" "^125:kjail: option: --seccomp strict\|FILE needs the sandbox's namespaces" strict_refused_without_isolation
# libseccomp keeps only the unconditional rule of a syscall that also has
# a conditional one with another action: `ioctl allow` beside `ioctl kill
# arg1&0xffffffff==TIOCSTI` let TIOCSTI through (ENOTTY from the kernel,
# not the kill the line asks for). Such a line does nothing: refused.
{ printf '@default errno:EPERM\n'
  for sc in execve brk arch_prctl set_tid_address set_robust_list rseq prlimit64 \
	mprotect mmap munmap readlink readlinkat getrandom newfstatat fstat write \
	exit exit_group rt_sigaction rt_sigprocmask futex uname access openat read close; do
	printf '%s allow\n' "$sc"
  done
  printf 'ioctl allow  # any request\nioctl kill arg1&0xffffffff==TIOCSTI  # but not TIOCSTI\n'
} >"$P/uncond-mixed.policy"
chmod 0644 "$P/uncond-mixed.policy"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$P/uncond-mixed.policy"
kj exec --seccomp "$P/uncond-mixed.policy" -- "$PROBES/tiocsti" x </dev/null
like "$rc:$err" "^125:kjail: seccomp: $P/uncond-mixed.policy:[0-9]*: 'ioctl': a line without conditions and a line with another action" unconditional_rule_beside_conditional_other_action_refused
is "$out" "" unconditional_rule_beside_conditional_other_action_runs_nothing
kj exec --seccomp STRICT -- true
is "$rc" 0 seccomp_value_case_insensitive

done_testing
