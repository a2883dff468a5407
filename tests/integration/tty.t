#!/bin/bash
# Terminal handling: the sandbox's own pty, job control, the caller's
# terminal settings, TIOCSTI, --tty/--no-tty and the window size.
#
# A small python harness (pty.py below) owns a pseudo-terminal, runs a
# shell command as its session leader with that terminal as controlling
# terminal, types keys when patterns appear, and prints everything the
# terminal showed. The shell runs kjail through $KJC (kjail exec as the
# caller, with the suite's common options).
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
if ! [ -x "$PY" ]; then
	skip tty_suite "no /usr/bin/python3 to own a pseudo-terminal"
	done_testing
	exit
fi

cat >"$T/pty.py" <<'EOF'
"""pty.py [--size ROWS COLS] [--timeout S] [--step PATTERN DELAY KEYS]... -- CMD

Run `bash -c CMD` on a new pseudo-terminal (its controlling terminal) and
print everything the terminal shows. Each step waits until PATTERN has
appeared in the output since the previous step (an empty PATTERN does not
wait), sleeps DELAY seconds, then types KEYS (backslash escapes allowed) or,
for KEYS "resize:RxC", changes the window size. Exits with CMD's status;
99 and a "pty.py: ..." line when a step or the whole run times out."""
import codecs, fcntl, os, select, signal, struct, sys, termios, time

args = sys.argv[1:]
rows, cols, timeout, steps = 24, 80, 30.0, []
while args and args[0] != "--":
    if args[0] == "--size":
        rows, cols, args = int(args[1]), int(args[2]), args[3:]
    elif args[0] == "--timeout":
        timeout, args = float(args[1]), args[2:]
    elif args[0] == "--step":
        steps.append((args[1], float(args[2]), args[3]))
        args = args[4:]
    else:
        sys.exit("pty.py: bad argument " + args[0])
cmd = args[1]

# A second terminal on the host's devpts, kept open for the whole run: if
# the sandbox saw the host's devpts it would see more than its own pty.
spare = os.openpty()
master, slave = os.openpty()
fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
pid = os.fork()
if pid == 0:
    # The terminal's owner gives its shell default signal dispositions, as
    # a login would: a harness started in the background (SIGINT ignored)
    # or by python (SIGPIPE ignored) must not pass that on to kjail.
    for sig in signal.valid_signals():
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.closerange(3, 1024)
    os.execv("/bin/bash", ["bash", "-c", cmd])
os.close(slave)

out = b""
mark = 0
deadline = time.monotonic() + timeout
failed = None


def pump(wait):
    global out
    r, _, _ = select.select([master], [], [], wait)
    if not r:
        return True
    try:
        data = os.read(master, 65536)
    except OSError:
        return False
    if not data:
        return False
    out += data
    return True


alive = True
for pattern, delay, keys in steps:
    pat = pattern.encode()
    while alive and pat not in out[mark:] and time.monotonic() < deadline:
        alive = pump(0.05)
    if pat not in out[mark:]:
        failed = "step waiting for %r never saw it" % pattern
        break
    end = time.monotonic() + delay
    while alive and time.monotonic() < end:
        alive = pump(0.02)
    mark = len(out)
    if keys.startswith("resize:"):
        r, c = keys[7:].split("x")
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", int(r), int(c), 0, 0))
    else:
        os.write(master, codecs.decode(keys, "unicode_escape").encode("latin-1"))
while not failed and alive:
    if time.monotonic() > deadline:
        failed = "timed out after %gs" % timeout
        break
    alive = pump(0.05)
if failed:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
_, st = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.stdout.flush()
if failed:
    sys.stderr.write("pty.py: %s\n" % failed)
    sys.exit(99)
sys.exit(os.waitstatus_to_exitcode(st) if os.WIFEXITED(st) else 98)
EOF

# $KJC: kjail exec as the caller, usable from the harness's shell.
if [ "$KJ_AS" = user ]; then
	printf '#!/bin/sh\nexec setpriv --reuid=%s --regid=%s --clear-groups --reset-env -- env PATH="%s" HOME="%s" TERM=xterm "%s" exec %s "$@"\n' \
		"$KJ_USER" "$KJ_GID" "$PATH" "${KJ_HOME:-/nonexistent}" "$KJAIL" "${KJ_EXEC_ARGS:-}" >"$T/kjc"
else
	printf '#!/bin/sh\nexec env TERM=xterm "%s" exec %s "$@"\n' "$KJAIL" "${KJ_EXEC_ARGS:-}" >"$T/kjc"
fi
chmod 0755 "$T/kjc"
KJC=$T/kjc

# onpty [pty.py options] -- CMD: run CMD under the harness; sets $out (the
# terminal's output, carriage returns removed), $err and $rc.
onpty() {
	"$PY" "$T/pty.py" "$@" >"$T/pty.out" 2>"$T/pty.err"
	rc=$?
	out=$(tr -d '\r' <"$T/pty.out")
	err=$(cat "$T/pty.err")
	# A step that timed out: the terminal's last output says where it
	# stood (a failed check prints $err).
	[ "$rc" != 99 ] || err="$err
terminal's last output: $(tail -c 800 "$T/pty.out" | cat -v)"
}

# line_of TAG: what follows the last TAG on the first line of $out holding
# TAG (the terminal may put echoed keys such as ^C before it). Commands
# typed into a shell spell their tags split ("R""C=") so that the echo of
# the typed line does not count.
line_of() { printf '%s\n' "$out" | sed -n "s/^.*$1//p" | head -n 1; }

# ------------------------------------------------- the sandbox's terminal

onpty -- 'echo "OUTER=$(tty)"; '"$KJC"' -- sh -c '\''
	echo "TTY=$(tty)"
	test -t 0 && echo "STDIN=tty"
	test -t 1 && echo "STDOUT=tty"
	echo "PTS=$(ls /dev/pts | tr "\n" " ")"'\'
like "$(line_of OUTER=)" '^/dev/pts/[1-9][0-9]*$' tty_fixture_outer_terminal_is_not_pts_0
is "$(line_of TTY=)" /dev/pts/0 command_sees_sandbox_pts_0_as_its_terminal
is "$(line_of STDIN=)" tty command_stdin_is_a_terminal
is "$(line_of STDOUT=)" tty command_stdout_is_a_terminal
# The host has at least two ptys open right now (the harness's and its spare).
is "$(line_of PTS=)" "0 ptmx " sandbox_devpts_holds_only_its_own_pty

onpty -- "$KJC"' -- sh -c '\''ps -o tty= -p $$; ps -o stat= -p $$'\'
like "$(printf '%s\n' "$out" | head -n 1)" '^pts/0 *$' command_has_sandbox_pty_as_controlling_terminal

onpty -- "$KJC"' -- sh -c '\''echo out; echo err >&2; exit 6'\''; echo "RC=$?"'
is "$(line_of RC=)" 6 pty_mode_keeps_exit_status
like "$out" $'out\nerr' pty_mode_shows_stdout_and_stderr

# init, kjail's one process inside the sandbox, lets go of the caller's
# terminal once COMMAND has its own: from the host, none of init's fds
# may lead to the harness's terminal while COMMAND runs.
onpty --timeout 20 -- 'me=$(tty); '"$KJC"' -- sleep 5 <&0 & k=$!
	for i in $(seq 100); do
		init=$(for c in $(pgrep -P $k); do grep -qx kjail-sweep /proc/$c/comm || echo $c; done)
		[ -n "$init" ] && [ -n "$(pgrep -P "$init")" ] && break
		sleep 0.05
	done
	echo "INIT=$(cat /proc/$init/comm 2>/dev/null) HELD=$(ls -l /proc/$init/fd 2>/dev/null | grep -c -- " $me\$")"
	kill $k; wait'
is "$(line_of INIT=)" "kjail HELD=0" sandbox_init_holds_no_fd_on_caller_terminal

# ------------------------------------------------------------ job control

# ^Z stops the foreground job, fg brings it back to the foreground, ^C
# interrupts it: only possible if the sandbox's pty is bash's controlling
# terminal and the line discipline signals the foreground process group.
# The job says RESUMED on its SIGCONT, which bash's fg sends only after it
# gave the job the terminal: ^C waits for that. (It waited for fg's echo
# of the job's name, which came first, and on a slow machine ^C then
# reached bash's own group and the job ran on: CI saw it in the VM.)
# The job ends on SIGINT through a trap: without one, bash that gets
# SIGINT while it waits for a child exits only if the child died of it
# too, and a ^C that came as a `sleep 0.1` was exiting found the child's
# status 0 and the loop went on (1 run in 15 with a parallel make lint,
# on the previous binary too; none in 20 with the trap).
onpty --timeout 30 \
	--step 'kjp> ' 0 'echo "FL""AGS=$-"; ( trap "echo RE""SUMED" CONT; trap "exit 130" INT; echo ST""ARTED; while :; do sleep 0.1; done )\n' \
	--step 'STARTED' 0.5 '\x1a' \
	--step 'Stopped' 0.3 'jobs -l; fg\n' \
	--step 'RESUMED' 0.2 '\x03' \
	--step 'kjp> ' 0 'echo "R""C=$?"\n' \
	--step 'RC=' 0.2 'exit\n' \
	-- "$KJC --setenv PS1='kjp> ' -- bash --norc --noprofile -i"
is "$rc" 0 job_control_session_completes
like "$(line_of FLAGS=)" m interactive_bash_has_job_control_enabled
like "$out" 'Stopped +\( trap ' ctrl_z_stops_foreground_job
is "$(line_of RC=)" 130 fg_resumes_job_in_foreground_and_ctrl_c_interrupts_it
unlike "$out" 'no job control|cannot set terminal process group' bash_reports_no_job_control_problem

# ^C typed on the caller's terminal reaches the command (through the pty).
onpty --timeout 20 \
	--step 'READY' 0.3 '\x03' \
	-- "$KJC"' -- sh -c '\''trap "echo CAUGHT-INT; exit 9" INT; echo READY; while :; do sleep 0.1; done'\''; echo "RC=$?"'
is "$(line_of RC=):$(line_of CAUGHT-)" 9:INT ctrl_c_typed_reaches_command

# ------------------------------------------ the caller's terminal settings

# stty_restored NAME KJAIL-ARGS: settings before and after kjail are equal.
stty_restored() {
	local name=$1
	shift
	onpty -- 'echo "BEFORE=$(stty -g)"; '"$KJC $*"'; echo "AFTER=$(stty -g)"'
	local b a
	b=$(line_of BEFORE=)
	a=$(line_of AFTER=)
	if [ -n "$b" ] && [ "$b" = "$a" ]; then
		_report 0 "$name"
	else
		_report 1 "$name" "before: $b
after:  $a
output: $out"
	fi
}
stty_restored caller_terminal_settings_restored_after_command '-- true'
stty_restored caller_terminal_settings_restored_after_command_changes_its_own \
	"-- sh -c 'stty raw -echo -isig; exit 3'"
stty_restored caller_terminal_settings_restored_after_timeout '--timeout 500ms -- sleep 10'
stty_restored caller_terminal_settings_restored_after_command_not_found \
	'-- kjail-no-such-command-xyz'
stty_restored caller_terminal_settings_restored_after_command_killed \
	"-- sh -c 'kill -9 \$\$'"

# kill -9 of kjail, which cannot restore anything itself, left the
# caller's terminal raw (no echo, no ^C). Its guardian puts the settings
# back: polled for, a bounded while, once kjail is dead. The guardian is
# no child of kjail's (kjail's one child is the sandbox's init; where
# limits are enforced, a cgroup sweeper too, not counted).
onpty --timeout 60 -- 'b=$(stty -g); echo "BEFORE=$b"; '"$KJC"' -- sleep 30 <&0 & k=$!
	for i in $(seq 400); do [ "$(stty -g)" != "$b" ] && break; sleep 0.05; done
	echo "RAW=$([ "$(stty -g)" != "$b" ] && echo yes) KIDS=$(for c in $(cat /proc/$k/task/$k/children); do grep -qx kjail-sweep /proc/$c/comm || echo $c; done | wc -w)"
	kill -9 $k; wait $k
	for i in $(seq 200); do [ "$(stty -g)" = "$b" ] && break; sleep 0.05; done
	echo "AFTER=$(stty -g)"'
is "$(line_of RAW=)" "yes KIDS=1" "kjail_made_the_terminal_raw_and_has_one_child ($out)"
is "$(line_of AFTER=)" "$(line_of BEFORE=)" caller_terminal_settings_restored_after_kill_9_of_kjail

# kill -9 of kjail's whole process group (kill -9 %1, kill -9 -PGID, a
# harness's os.killpg): the guardian was in it and died with kjail, and
# the terminal stayed raw. It leaves the group before kjail goes raw.
# (setsid: kjail leads a group of its own, the terminal still its stdin.)
onpty --timeout 60 -- 'b=$(stty -g); echo "BEFORE=$b"; setsid '"$KJC"' -- sleep 30 <&0 & k=$!
	for i in $(seq 400); do [ "$(stty -g)" != "$b" ] && break; sleep 0.05; done
	echo "RAW=$([ "$(stty -g)" != "$b" ] && echo yes) LEADER=$([ "$(ps -o pgid= -p $k | tr -d " ")" = $k ] && echo yes)"
	kill -9 -- -$k; wait $k
	for i in $(seq 200); do [ "$(stty -g)" = "$b" ] && break; sleep 0.05; done
	echo "AFTER=$(stty -g)"'
is "$(line_of RAW=)" "yes LEADER=yes" "kjail_made_the_terminal_raw_and_leads_its_group ($out)"
is "$(line_of AFTER=)" "$(line_of BEFORE=)" caller_terminal_settings_restored_after_kill_9_of_kjails_process_group

# The guardian's set-up (runtime/guardian.c, shared with kjail-git):
# kjail's grandchild, every signal blocked (all but SIGKILL, SIGSTOP and
# glibc's two), a session of its own (it was before kjail went raw), in
# /, holding the caller's terminal and its socket, nothing else.
export -f guardian_state
onpty --timeout 60 -- 'me=$(tty); b=$(stty -g); '"$KJC"' -- sleep 30 <&0 & k=$!
	for i in $(seq 400); do [ "$(stty -g)" != "$b" ] && break; sleep 0.05; done
	for i in $(seq 100); do
		g=$(for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = kjail-tty ] &&
			ls -l $p/fd 2>/dev/null | grep -q -- " $me\$" && echo ${p#/proc/}; done)
		[ -n "$g" ] && break; sleep 0.05
	done
	echo "GUARD=$(guardian_state $g | sed "s|$me|TERM|")"
	kill $k; wait'
like "$(line_of GUARD=)" '^blk=fffffffe7ffbfeff session=own cwd=/ fds=(0:TERM 1:socket|0:socket 1:TERM)$' \
	tty_guardian_blocks_signals_leads_its_session_holds_only_terminal_and_socket

# The guardian restores only a terminal still in kjail's raw settings:
# a program that set its own since (here while kjail was stopped with
# SIGSTOP, which kjail cannot catch; or the caller's shell, right after
# waitpid) keeps them. The guardian put the old settings back over them.
onpty --timeout 60 -- 'b=$(stty -g); '"$KJC"' -- sleep 30 <&0 & k=$!
	for i in $(seq 400); do [ "$(stty -g)" != "$b" ] && break; sleep 0.05; done
	kill -STOP $k; sleep 0.2
	stty sane -icanon -echo; later=$(stty -g)
	kill -9 $k; wait $k
	sleep 1
	now=$(stty -g)
	echo "LATER=$([ "$now" = "$later" ] && echo kept || { [ "$now" = "$b" ] && echo reset-to-before || echo other; })"
	stty "$b"'
is "$(line_of LATER=)" kept later_terminal_settings_kept_after_kill_9_of_stopped_kjail

# A kjail started in the background (job control: a group of its own) is
# stopped by SIGTTOU in its tcsetattr, the terminal untouched; its shell
# sets its own settings (readline's) meanwhile. kill -9 of that kjail:
# its guardian, told nothing yet, put the old settings back over the
# shell's, unconditionally.
onpty --timeout 60 -- 'set -m; b=$(stty -g); '"$KJC"' -- sleep 30 <&0 & k=$!
	for i in $(seq 200); do [ "$(ps -o stat= -p $k | cut -c1)" = T ] && break; sleep 0.05; done
	st=$(ps -o stat= -p $k | cut -c1)
	stty sane -icanon -echo; later=$(stty -g)
	kill -9 $k; wait $k 2>/dev/null
	sleep 1
	now=$(stty -g)
	echo "BGSTOP=$st $([ "$now" = "$later" ] && echo kept || { [ "$now" = "$b" ] && echo reset-to-before || echo other; })"
	stty "$b"'
is "$(line_of BGSTOP=)" "T kept" shell_settings_kept_after_kill_9_of_kjail_stopped_before_raw_mode

# The sandbox's terminal starts with the caller's settings.
onpty -- 'stty -echo intr ^X; echo "OUTER=$(stty -g)"; '"$KJC"' -- sh -c '\''echo "INNER=$(stty -g)"'\'
is "$(line_of INNER=)" "$(line_of OUTER=)" sandbox_terminal_starts_with_caller_settings

# ---------------------------------------------------------------- TIOCSTI

inj="echo kjail-injected-$$"
# tiocsti_case NAME KJAIL-ARGS-BEFORE-COMMAND PROBE-ARGS: after kjail
# returns, the caller's shell reads its terminal for a second; the
# injected line must not be there.
tiocsti_case() {
	onpty --timeout 20 -- "$KJC $2 -- $PROBES/tiocsti $3 '$inj'"'; read -r -t 1 line; echo "GOT[$line]"'
	if printf '%s\n' "$out" | grep -qx 'GOT\[\]'; then
		_report 0 "$1"
	else
		_report 1 "$1" "the caller's terminal delivered: $(line_of GOT)
output: $out"
	fi
}
# Control: the probe does inject when run on the caller's terminal, so the
# detection below can see an injection (root may always use TIOCSTI).
onpty --timeout 20 -- "$PROBES/tiocsti '$inj'"'; read -r -t 1 line; echo "GOT[$line]"'
is "$(line_of GOT)" "[$inj]" tiocsti_fixture_detects_injection_into_caller_terminal

tiocsti_case tiocsti_in_pty_mode_does_not_reach_caller_terminal "" ""
tiocsti_case tiocsti_on_dev_tty_does_not_reach_caller_terminal "" --dev-tty
tiocsti_case tiocsti_with_no_tty_does_not_reach_caller_terminal --no-tty ""
tiocsti_case tiocsti_on_dev_tty_with_no_tty_does_not_reach_caller_terminal --no-tty --dev-tty

onpty -- "$KJC -- $PROBES/tiocsti x"
like "$out" 'tiocsti: refused: Operation not permitted' tiocsti_refused_by_seccomp_in_sandbox

# --------------------------------------------------------- --tty, --no-tty

onpty -- "$KJC"' --no-tty -- sh -c '\''
	test -t 0 && echo "STDIN=tty" || echo "STDIN=none"
	test -t 1 && echo "STDOUT=tty" || echo "STDOUT=none"
	test -t 2 && echo "STDERR=tty" || echo "STDERR=none"
	echo "OUTPUT=arrives"'\'
is "$(line_of STDIN=)" none no_tty_command_stdin_is_not_a_terminal
is "$(line_of STDOUT=):$(line_of STDERR=)" none:none no_tty_command_stdout_stderr_are_not_terminals
is "$(line_of OUTPUT=)" arrives no_tty_output_still_arrives

onpty -- "$KJC"' --no-tty -- sh -c '\''tty; echo RC=$?'\'
is "$(line_of RC=)" 1 no_tty_command_has_no_terminal_at_all
# Nor a controlling one: /dev/tty would be the caller's terminal (its
# keystrokes to read, its screen to write) if the command stayed in
# kjail's session. `tty` above looks at stdin only.
onpty -- "$KJC"' --no-tty -- sh -c '\''(exec 3</dev/tty) 2>/dev/null && echo CTTY=caller || echo CTTY=none'\'
is "$(line_of CTTY=)" none no_tty_command_has_no_controlling_terminal

onpty --timeout 20 \
	--step 'READY' 0.3 'typed-line\n' \
	-- "$KJC"' --no-tty -- sh -c '\''echo READY; read -r x; echo "GOT<$x>"'\'
is "$(line_of GOT)" "<typed-line>" no_tty_typed_input_reaches_command

kj exec --tty -- sh -c 'test -t 0 && echo STDIN=tty; test -t 1 && echo STDOUT=tty; tty'
out=$(printf '%s' "$out" | tr -d '\r')
is "$rc:$out" "0:STDIN=tty
STDOUT=tty
/dev/pts/0" tty_flag_without_terminal_gives_command_a_terminal

kj exec --tty -- sh -c 'echo out; exit 4'
is "$rc:$(printf '%s' "$out" | tr -d '\r')" "4:out" tty_flag_without_terminal_keeps_output_and_status

# ------------------------------------------------------------ window size

onpty --size 40 100 -- "$KJC -- stty size"
is "$(printf '%s\n' "$out" | head -n 1)" "40 100" window_size_copied_into_sandbox

onpty --size 40 100 --timeout 20 \
	--step 'READY' 0.3 'resize:50x120' \
	--step '' 0.5 '\n' \
	-- "$KJC"' -- sh -c '\''echo "SIZE1=$(stty size)"; echo READY; read -r x; echo "SIZE2=$(stty size)"'\'
is "$(line_of SIZE1=)/$(line_of SIZE2=)" "40 100/50 120" window_resize_reaches_sandbox

# The command may read its size or change its terminal modes the moment it
# starts, before kjail has taken the pty's master (CI saw "0 0" once). A
# 0.3 s delay on each of kjail's recvmsg calls (strace fault injection)
# makes kjail late every time: the size and the caller's settings (erase
# set to ^H here) must already be on the sandbox's terminal.
if command -v strace >/dev/null; then
	onpty --size 40 100 --timeout 30 -- 'stty erase ^H; strace -qq -o /dev/null -e trace=recvmsg -e inject=recvmsg:delay_enter=300000 '"$KJC"' -- sh -c '\''echo "SIZE=$(stty size)"; stty -a | tr ";" "\n" | sed -n "s/^ *erase = /ERASE=/p"'\'
	is "$(line_of SIZE=)" "40 100" window_size_set_before_command_starts
	is "$(line_of ERASE=)" "^H" terminal_settings_set_before_command_starts
else
	skip window_size_set_before_command_starts "no strace to delay kjail"
	skip terminal_settings_set_before_command_starts "no strace to delay kjail"
fi

# A signal kjail passes on (its default would have killed kjail alone,
# leaving the caller's terminal raw): the terminal is restored after.
onpty --timeout 20 -- 'stty -g > '"$T"'/before; '"$KJC"' -- sleep 30 & k=$!; sleep 1; kill -PWR $k; wait $k; echo "R""C=$?"; stty -g > '"$T"'/after'
is "$(line_of RC=):$(cmp -s "$T/before" "$T/after" && echo restored)" "$((128 + $(kill -l PWR))):restored" \
	sigpwr_to_kjail_forwarded_and_terminal_restored

# A terminal stopped by ^S takes no more output: kjail's writes to it
# (the relay's, then its "timed out" note) blocked it, and the timeout's
# kill came only when ^Q let the output go, 6 s later. Now the run ends
# at the timeout (plus at most a second per note kjail cannot deliver).
onpty --timeout 30 --step '' 0.5 '\x13' --step '' 6 '\x11' -- \
	't0=$(date +%s%N); '"$KJC"' --no-tty --timeout 1 -- sh -c "sleep 0.2; yes" >/dev/tty; echo "R""C=$? MS=$((($(date +%s%N) - t0) / 1000000))"'
rcms=$(line_of RC=)
is "${rcms%% *}" 124 stopped_terminal_timeout_exits_124
ok stopped_terminal_does_not_hold_back_the_timeout test "${rcms##*MS=}" -lt $((4500 + KJ_TIME_SLACK_MS))

# ------------------------------------------------ kjail stopped from outside

# SIGTSTP (SIGTTIN, SIGTTOU) sent to kjail in raw mode stopped it with the
# caller's terminal raw: no echo, no ^C until it was continued. Now the
# settings go back while it is stopped, and once continued in the
# foreground the terminal is raw again and the window size, changed
# meanwhile, reaches the command. The caller's shell here has job control
# (set -m): kjail is a job of its own (a process group the shell leads
# no more than bash's own, so the kernel does not discard the stop), and
# the shell takes the terminal back while it is stopped. A helper stops
# kjail once the terminal is raw; $T/kpid gets kjail's pid (the
# terminal's foreground process group: kjail is its leader).
stopper='( for i in $(seq 400); do [ "$(stty -g)" != "$b" ] && break; sleep 0.05; done
	p=$(ps -o tpgid= -p $$ | tr -d " "); echo $p > '"$T"'/kpid; sleep 0.3; kill -$sig $p ) &'
state='$(awk "{print \$3}" /proc/$(cat '"$T"'/kpid)/stat)'
flags='$(stty -a | tr " " "\n" | grep -xE -- "-?(echo|icanon)" | tr "\n" " ")'
for sig in TSTP TTIN TTOU; do
	rm -f "$T/kpid"
	onpty --timeout 40 --step 'RESUMING' 1 'typed-after-fg\n' -- 'set -m; sig='"$sig"'
	b=$(stty -g); echo "BEFORE=$b"
	'"$stopper"'
	'"$KJC"' -- sh -c '\''read -r x; echo "G""OT<$x> SIZE=$(stty size)"; exit 7'\''
	echo "STOP=$? STATE='"$state"'"
	echo "DURING=$(stty -g) FLAGS='"$flags"'"
	stty rows 50 cols 120; echo "RESU""MING"; fg; echo "R""C=$?"; echo "AFTER=$(stty -g)"'
	n=$(kill -l "$sig")
	is "$(line_of STOP=)" "$((128 + n)) STATE=T" "sig${sig}_to_kjail_in_raw_mode_stops_it"
	is "$(line_of DURING=)" "$(line_of BEFORE=) FLAGS=icanon echo " \
		"sig${sig}_stopped_kjail_leaves_caller_terminal_settings"
	is "$(line_of GOT)" "<typed-after-fg> SIZE=50 120" \
		"sig${sig}_fg_input_and_window_size_changed_while_stopped_reach_command"
	is "$(line_of RC=):$(line_of AFTER=)" "7:$(line_of BEFORE=)" \
		"sig${sig}_fg_run_ends_with_command_status_and_settings_restored"
done

# bg after the stop: kjail continued in the background must not take the
# terminal from the shell (raw mode there): it stops again, as a
# background tcsetattr does (SIGTTOU), and fg resumes it.
rm -f "$T/kpid"
onpty --timeout 40 --step 'RESUMING' 1 'typed-after-bg-fg\n' -- 'set -m; sig=TSTP
	b=$(stty -g); echo "BEFORE=$b"
	'"$stopper"'
	'"$KJC"' -- sh -c '\''read -r x; echo "G""OT<$x>"; exit 8'\''
	bg >/dev/null; sleep 1
	echo "BG=$(awk "{print \$3}" /proc/$(cat '"$T"'/kpid)/stat) $([ "$(stty -g)" = "$b" ] && echo caller-settings)"
	echo "RESU""MING"; fg >/dev/null; echo "R""C=$?"; echo "AFTER=$(stty -g)"'
is "$(line_of BG=)" "T caller-settings" bg_after_stop_keeps_kjail_stopped_and_terminal_the_callers
is "$(line_of GOT):$(line_of RC=):$(line_of AFTER=)" "<typed-after-bg-fg>:8:$(line_of BEFORE=)" \
	bg_then_fg_resumes_kjail_with_input_and_status

# kill -CONT (no fg): a parent that keeps kjail's process group in the
# foreground while it is stopped (runner.py, no shell job control), as a
# terminal emulator or multiplexer running kjail directly would. Once
# continued the terminal is raw again, typed input reaches the command,
# the window size changed while it was stopped too, and the run ends
# with the command's status.
cat >"$T/runner.py" <<'EOF2'
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    os.tcsetpgrp(0, os.getpgrp())
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    os.execv(sys.argv[2], sys.argv[2:])
open(sys.argv[1], "w").write("%d\n" % pid)
_, st = os.waitpid(pid, 0)
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
os.tcsetpgrp(0, os.getpgrp())
sys.exit(os.waitstatus_to_exitcode(st))
EOF2
rm -f "$T/kpid"
onpty --timeout 40 --step 'PAUSED' 0 'resize:50x120' --step 'CONTINUED' 0.5 'typed-after-cont\n' -- '
	b=$(stty -g); echo "BEFORE=$b"
	( exec </dev/tty # (an asynchronous list without job control gets /dev/null)
	  for i in $(seq 400); do [ -s '"$T"'/kpid ] && [ "$(stty -g)" != "$b" ] && break; sleep 0.05; done
	  p=$(cat '"$T"'/kpid); sleep 0.3; kill -TSTP $p
	  for i in $(seq 200); do [ "'"$state"'" = T ] && break; sleep 0.05; done
	  echo "DURING='"$state"' $(stty -g) FLAGS='"$flags"'"; echo "PAU""SED"; sleep 1; kill -CONT $p
	  for i in $(seq 200); do [ "$(stty -g)" != "$b" ] && break; sleep 0.05; done
	  echo "CONT='"$state"' $([ "$(stty -g)" != "$b" ] && echo raw)"; echo "CONTIN""UED" ) &
	'"$PY $T/runner.py $T/kpid $KJC"' -- sh -c '\''read -r x; echo "G""OT<$x> SIZE=$(stty size)"; exit 5'\''
	echo "R""C=$?"; wait; echo "AFTER=$(stty -g)"'
is "$(line_of DURING=)" "T $(line_of BEFORE=) FLAGS=icanon echo " \
	sigtstp_stopped_kjail_gives_caller_terminal_back_while_foreground
like "$(line_of CONT=)" '^[RS] raw$' sigcont_makes_the_terminal_raw_again
is "$(line_of GOT)" "<typed-after-cont> SIZE=50 120" \
	sigcont_input_and_window_size_changed_while_stopped_reach_command
is "$(line_of RC=):$(line_of AFTER=)" "5:$(line_of BEFORE=)" \
	sigcont_run_ends_with_command_status_and_settings_restored

# The terminal taken from kjail while raw (another process of the
# caller's made its own group the foreground one), then a key typed:
# kjail's read in the background stopped it (SIGTTIN) with the terminal
# raw. Now it stops with the caller's settings back, and once it has the
# foreground again and SIGCONT, the line typed reaches the command.
rm -f "$T/kpid"
takefg="$PY"' -c "import os, signal, sys; signal.signal(signal.SIGTTOU, signal.SIG_IGN); os.tcsetpgrp(0, int(sys.argv[1]))"'
onpty --timeout 40 --step 'TAKEN' 0.3 'typed-in-background\n' -- '
	b=$(stty -g); echo "BEFORE=$b"
	( exec </dev/tty
	  for i in $(seq 400); do [ -s '"$T"'/kpid ] && [ "$(stty -g)" != "$b" ] && break; sleep 0.05; done
	  p=$(cat '"$T"'/kpid); sleep 0.3; '"$takefg"' $(ps -o pgid= -p $$); echo "TAK""EN"
	  for i in $(seq 200); do [ "'"$state"'" = T ] && break; sleep 0.05; done
	  echo "BGREAD='"$state"' $(stty -g) FLAGS='"$flags"'"
	  '"$takefg"' $p; kill -CONT $p ) &
	'"$PY $T/runner.py $T/kpid $KJC"' -- sh -c '\''read -r x; echo "G""OT<$x>"; exit 4'\''
	echo "R""C=$?"; wait; echo "AFTER=$(stty -g)"'
is "$(line_of BGREAD=)" "T $(line_of BEFORE=) FLAGS=icanon echo " \
	read_in_background_stops_kjail_with_caller_terminal_settings
is "$(line_of GOT):$(line_of RC=):$(line_of AFTER=)" "<typed-in-background>:4:$(line_of BEFORE=)" \
	read_in_background_then_foreground_and_cont_input_reaches_command

# kill -9 while stopped: nothing is left (the sandbox dies with kjail) and
# the terminal is the caller's.
rm -f "$T/kpid"
onpty --timeout 40 -- 'set -m; sig=TSTP
	b=$(stty -g); echo "BEFORE=$b"
	'"$stopper"'
	'"$KJC"' -- sleep 30
	p=$(cat '"$T"'/kpid); init=$(for c in $(cat /proc/$p/task/$p/children); do grep -qx kjail-sweep /proc/$c/comm || echo $c; done)
	kill -9 $p; wait $p 2>/dev/null
	for i in $(seq 200); do [ -e /proc/$init ] || break; sleep 0.05; done
	for i in $(seq 200); do [ "$(stty -g)" = "$b" ] && break; sleep 0.05; done
	echo "GONE=$([ -n "$init" ] && ! [ -e /proc/$init ] && echo yes) AFTER=$(stty -g)"'
is "$(line_of GONE=)" "yes AFTER=$(line_of BEFORE=)" kill_9_of_stopped_kjail_leaves_nothing_and_caller_settings

# ------------------------------------ control strings that act on the host

# The caller's terminal emulator is outside the sandbox. OSC 52 sets its
# clipboard (a command planted there runs when the user pastes it into a
# host shell), tmux passes a DCS on to the terminal outside it, DECUDK
# programs keys, kitty's APC reads host files: withheld, and said once on
# stderr; titles, colours and text pass (runtime/term_filter.h).
has() { [[ $1 == *"$2"* ]]; }

# The fixture: what is written outside kjail, the harness shows as is.
onpty -- 'printf "a\033]52;c;ZXZpbA==\007b\n"'
ok tty_fixture_terminal_shows_osc52_written_outside_kjail has "$out" $'a\e]52;c;ZXZpbA==\ab'

onpty -- "$KJC"' -- printf "a\033]52;c;ZXZpbA==\007b\033]0;kjt\007c\n"'
unlike "$out" '52;c;' osc52_clipboard_write_withheld_from_caller_terminal
ok text_and_title_around_withheld_osc52_pass has "$out" $'ab\e]0;kjt\ac'
like "$out" 'kjail: output: 1 terminal control string withheld \(the first: OSC 52\)' \
	withheld_osc52_named_once_on_stderr

# Written in two pieces, 0.3 s apart: two reads of the relay.
onpty -- "$KJC"' -- sh -c '\''printf "x\033]5"; sleep 0.3; printf "2;c;ZXZpbA==\007y\n"'\'
unlike "$out" '52;c;' osc52_split_across_writes_withheld
ok text_around_split_osc52_passes has "$out" 'xy'

onpty -- "$KJC"' --no-tty -- sh -c '\''printf "a\033]52;c;ZXZpbA==\007b\n" >&2'\'
unlike "$out" '52;c;' osc52_on_stderr_relayed_without_pty_withheld
ok text_around_osc52_on_stderr_passes has "$out" 'ab'

fmt='a\033Ptmux;\033\033]52;c;ZXZpbA==\007\033\\b\033P0;1|17/6c730a\033\\c\033_Gf=100,t=f;L2V0Yw==\033\\d\n'
onpty -- "$KJC -- printf '$fmt'"
unlike "$out" '52;c;|tmux|6c730a|Gf=100' tmux_passthrough_decudk_and_kitty_graphics_withheld
# Four: tmux's DCS, the OSC 52 it carried, DECUDK's DCS, kitty's APC.
like "$out" 'kjail: output: 4 terminal control strings withheld \(the first: DCS\)' \
	four_withheld_strings_counted

# A file is not a terminal: --tty output redirected to one keeps every byte.
onpty -- "$KJC"' --tty -- printf "a\033]52;c;ZXZpbA==\007b" > '"$T"'/tty-file'
ok tty_output_to_a_file_is_not_filtered has "$(cat "$T/tty-file")" $'a\e]52;c;ZXZpbA==\ab'

# A title left open at the end is closed, or it would swallow what the
# caller's shell writes next.
onpty -- "$KJC"' -- printf "\033]0;half"; echo "AFTER"'
ok unfinished_title_closed_before_caller_writes_again has "$out" $'\e]0;half\e\\AFTER'

# An exec into a session never makes the terminal raw (a terminal there
# becomes a pipe the client relays): SIGTSTP stops the client with the
# terminal as the caller had it, the command runs on, and fg resumes the
# relay, as for a one-shot run.
session_test_setup
S=kjtty-$$
trap 'as_caller "$KJAIL" rm "$S" >/dev/null 2>&1; _cleanup' EXIT
kj create $CREATE_ARGS "$S"
expect_rc session_for_stop_test_created 0
if [ "$KJ_AS" = user ]; then
	printf '#!/bin/sh\nexec setpriv --reuid=%s --regid=%s --clear-groups --reset-env -- env PATH="%s" HOME="%s" TERM=xterm XDG_RUNTIME_DIR="%s" "%s" exec -s "%s" "$@"\n' \
		"$KJ_USER" "$KJ_GID" "$PATH" "${KJ_HOME:-/nonexistent}" "$XDG_RUNTIME_DIR" "$KJAIL" "$S" >"$T/kjs"
else
	printf '#!/bin/sh\nexec env TERM=xterm "%s" exec -s "%s" "$@"\n' "$KJAIL" "$S" >"$T/kjs"
fi
chmod 0755 "$T/kjs"
rm -f "$T/kpid"
onpty --timeout 40 --step 'RESUMING' 1 'typed-after-fg\n' -- 'set -m; sig=TSTP
	b=$(stty -g); echo "BEFORE=$b"
	( for i in $(seq 400); do [ "$(ps -o tpgid= -p $$)" != "$(ps -o pgid= -p $$)" ] && break; sleep 0.05; done
	  p=$(ps -o tpgid= -p $$ | tr -d " "); echo $p > '"$T"'/kpid; sleep 1; kill -TSTP $p ) &
	'"$T"'/kjs -- sh -c '\''read -r x; echo "G""OT<$x>"; exit 6'\''
	echo "STOP=$? STATE='"$state"'"
	echo "DURING=$(stty -g) FLAGS='"$flags"'"
	echo "RESU""MING"; fg >/dev/null; echo "R""C=$?"; echo "AFTER=$(stty -g)"'
is "$(line_of STOP=)" "148 STATE=T" sigtstp_stops_session_exec_client
is "$(line_of DURING=)" "$(line_of BEFORE=) FLAGS=icanon echo " \
	sigtstp_stopped_session_exec_leaves_caller_terminal_settings
is "$(line_of GOT):$(line_of RC=):$(line_of AFTER=)" "<typed-after-fg>:6:$(line_of BEFORE=)" \
	session_exec_fg_input_reaches_command_and_status_kept

# An exec into a session from a terminal: the client's relay filters too.
onpty -- "$T/kjs"' -- printf "a\033]52;c;ZXZpbA==\007b\n"'
unlike "$out" '52;c;' session_exec_osc52_withheld_from_caller_terminal
ok session_exec_text_around_osc52_passes has "$out" 'ab'

# --tty with stdout a pipe whose reader leaves: a terminal cannot break as
# a pipe does, so kjail hangs it up and the command gets SIGHUP (129), as
# the README says; it does not write on for ever.
onpty --timeout 20 -- "$KJC"' --tty -- yes | head -n 1 >/dev/null; echo "RC=${PIPESTATUS[0]}"'
is "$(line_of RC=)" 129 tty_command_gets_sighup_when_stdout_reader_leaves

done_testing
