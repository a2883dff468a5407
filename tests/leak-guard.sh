#!/bin/bash
# leak-guard.sh FILE: prove's interpreter for every test file (tests/run.sh).
# Runs FILE, then proves it left none of kjail's processes or session
# records behind (principle 4), whatever its own checks said: a test whose
# cleanup leaks a session (a supervisor running on until its idle timeout,
# a record in /run/kjail) fails here even when each of its checks passed.
# A leftover makes FILE fail (exit 1, prove: "Non-zero exit status") and is
# named on stderr.
#
# Processes: every live process whose executable is this suite's staged
# kjail ($KJAIL, a copy tests/run.sh makes for this run alone, so no other
# kjail on the host is counted), and every process that inherited this
# run's token (below) from the file, after up to 5 s for sandboxes still
# being torn down. Records: entries of root's session directory /run/kjail whose
# name carries the file's pid, as the session suites name theirs (NAME-$$),
# made while it ran;
# the unprivileged lane keeps its records under the file's own $T.
set -u
file=$1
KJAIL=${KJAIL:?KJAIL must name the staged kjail binary}

pidf=$(mktemp /tmp/kjail-guard.XXXXXX) || exit 1
# Gone also when a signal (a CI timeout, ^C) ends the guard early: bash
# runs the EXIT trap then too.
trap 'rm -f "$pidf"' EXIT
# Every process the file starts inherits this token in its environment
# (a sandbox's command does not: kjail scrubs it, and the sandbox dies
# with its kjail, which is counted by executable): whatever the file left
# running, a fixture's server too, is found by it, even when it was
# re-parented (setsid, a killed subshell around it).
token=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
export KJ_LEAK_GUARD=$token
# The file runs in the foreground (signals and stdin as prove gave them);
# its pid is taken from the shell that execs it.
bash -c 'echo $$ >&3; exec 3>&-; exec bash "$1"' leak-guard "$file" 3>"$pidf"
rc=$?
pid=$(cat "$pidf")
unset KJ_LEAK_GUARD

left_procs() {
	find /proc -mindepth 2 -maxdepth 2 -name exe -lname "$KJAIL" 2>/dev/null |
		cut -d/ -f3
	grep -lsz "^KJ_LEAK_GUARD=$token\$" /proc/[0-9]*/environ | cut -d/ -f3
}

left=$(left_procs | sort -u)
for _ in $(seq 50); do
	[ -z "$left" ] && break
	sleep 0.1
	left=$(left_procs | sort -u)
done
leaked=0
for p in $left; do
	echo "leak-guard: $file left process $p running: $(tr '\0\n' '  ' <"/proc/$p/cmdline" 2>/dev/null)" >&2
	leaked=1
done
if [ -n "$pid" ] && [ -d /run/kjail ]; then
	for r in $(find /run/kjail -mindepth 1 -maxdepth 1 -newer "$pidf" \
		-regextype egrep -regex ".*-$pid([^0-9].*)?" 2>/dev/null); do
		echo "leak-guard: $file left session record $r" >&2
		rm -f "$r"
		leaked=1
	done
fi
rm -f "$pidf"
if [ "$leaked" = 1 ]; then
	# Its own processes and records (removed above) go, so the next file
	# starts clean: only PIDs running this suite's staged binary or
	# holding the file's token are killed.
	for p in $left; do kill -KILL "$p" 2>/dev/null; done
	[ "$rc" = 0 ] && rc=1
fi
exit "$rc"
