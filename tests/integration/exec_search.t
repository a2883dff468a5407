#!/bin/bash
# How COMMAND is found and started (runtime/child.c, exec_search): an
# empty PATH entry is the current directory, and a text file without
# "#!" runs under /bin/sh, as execvp(3) and the shells do; a binary for
# another machine stays 126.
. "$(dirname "$0")/../lib.sh"

mkdir "$WS/d"
cp /bin/true "$WS/d/mytrue"
printf 'echo noshebang "$@"\nexit 7\n' >"$WS/d/plain.sh"
printf '\177ELF\000\000\001junk\n' >"$WS/d/foreign"
chmod 0755 "$WS/d" "$WS/d/mytrue" "$WS/d/plain.sh" "$WS/d/foreign"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$WS/d"
cd "$WS/d"

# Before: the empty entry printed as "", so PATH=/usr/bin: looked for
# /mytrue (and PATH=: ran /.dockerenv, a file at the root of this host).
kj exec --setenv PATH=/usr/bin: -- mytrue
is "$rc" 0 path_trailing_empty_entry_is_current_directory
kj exec --setenv PATH=:/usr/bin -- mytrue
is "$rc" 0 path_leading_empty_entry_is_current_directory
kj exec --setenv PATH=/usr/bin::/bin -- mytrue
is "$rc" 0 path_middle_empty_entry_is_current_directory

kj exec -- ./plain.sh a b
is "$rc:$out" "7:noshebang a b" script_without_shebang_runs_under_sh
kj exec --setenv PATH="$WS/d:/usr/bin:/bin" -- plain.sh c
is "$rc:$out" "7:noshebang c" script_without_shebang_found_in_path_runs
# Its argument array is built on the stack init starts COMMAND on (not
# init's heap, which a session's init would keep); past 4094 arguments
# in a mapping of its own: 5000 still run.
kj exec -- ./plain.sh $(seq 5000)
is "$rc:$(printf '%s' "$out" | wc -w)" "7:5001" script_without_shebang_many_arguments_runs
kj exec -- ./foreign
is "$rc" 126 binary_for_another_machine_exits_126
like "$err" "Exec format error" binary_for_another_machine_says_why

# A PATH directory the caller cannot search is nowhere, under the host
# profile too: execvp there answered EACCES, so a command found nowhere
# was 126 "Permission denied" for a user whose PATH held one (root's
# ~/.cargo/bin, say), and 127 in the sandbox.
mkdir "$WS/locked"
chmod 0 "$WS/locked"
kj exec --isolation none --net host --setenv PATH="$WS/locked:/usr/bin:/bin" -- no-such-command-kj
is "$rc" 127 host_profile_unsearchable_path_dir_is_not_found
kj exec --setenv PATH="$WS/locked:/usr/bin:/bin" -- no-such-command-kj
is "$rc" 127 sandbox_unsearchable_path_dir_is_not_found
chmod 700 "$WS/locked"

done_testing
