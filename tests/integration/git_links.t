#!/bin/bash
# Host git enters submodules and nested repositories from the workspace's
# repository (`git status` runs a status in each), reading their config
# and running their hooks. The command can write all of them, and add a
# gitlink to the index, so what it changed there is set aside after the
# run (mounts/git_links.c): a core.fsmonitor planted in a submodule must
# not run on the host at the user's next `git status`.
. "$(dirname "$0")/../lib.sh"

G=(-c user.email=k@j -c user.name=kj -c protocol.file.allow=always -c safe.directory='*')
# host_git ARGS...: git on the host, as the caller (whose repository it is).
host_git() { as_caller env HOME="$T" git "$@" >/dev/null 2>&1; }

git init -q "$T/lib" && git -C "$T/lib" "${G[@]}" commit -q --allow-empty -m lib
git -C "$WS" "${G[@]}" init -q
git -C "$WS" "${G[@]}" submodule add -q "$T/lib" lib
git -C "$WS" "${G[@]}" commit -q -m sub
chown -R "$KJ_UID:$KJ_GID" "$WS" "$T/lib"

# A run that only uses git (status, add, commit) changes none of it.
kj exec -- sh -c 'echo a > a && git add a && git -c user.email=k@j -c user.name=kj commit -q -m a && git -C lib status --short && echo done'
is "$rc:$out:$err" "0:done:" git_commit_and_submodule_status_leave_no_note

# Changed on the host just before the run (most often in the same clock
# tick as the run's start, which file times cannot tell apart): judged by
# the state the run found, not by the clock, so not set aside.
touch "$WS/.git/modules/lib/config" "$WS/.git/modules/lib/hooks"
kj exec -- true
is "$rc:$err" "0:" submodule_changed_just_before_the_run_left_alone

# A submodule's config and hooks, in .git/modules/lib.
kj exec -- sh -c 'git -C lib config core.fsmonitor "touch $1/PWNED1; false #" && touch .git/modules/lib/hooks/post-checkout && echo planted' sh "$T"
is "$rc:$out" "0:planted" submodule_config_writable_inside
like "$err" "kjail: git: the command changed $WS/\.git/modules/lib/config \(host git would use it when it enters that repository\); renamed to config\.kjail-refused" \
	submodule_config_set_aside_and_said
ok submodule_hooks_set_aside test -d "$WS/.git/modules/lib/hooks.kjail-refused" -a ! -e "$WS/.git/modules/lib/hooks"
host_git -C "$WS" status
ok host_git_status_runs_no_planted_fsmonitor_of_submodule test ! -e "$T/PWNED1"

# A nested repository of the command's, registered as a gitlink.
kj exec -- sh -c 'git init -q sub && git -C sub -c user.email=k@j -c user.name=kj commit -q --allow-empty -m x && git -C sub config core.fsmonitor "touch $1/PWNED2; false #" && git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub && echo linked' sh "$T"
is "$rc:$out" "0:linked" nested_repository_gitlink_can_be_added_inside
ok nested_repository_config_set_aside test -e "$WS/sub/.git/config.kjail-refused" -a ! -e "$WS/sub/.git/config"
host_git -C "$WS" status
ok host_git_status_runs_no_planted_fsmonitor_of_nested_repository test ! -e "$T/PWNED2"

# The same through an index in version 4 (prefix-compressed names).
git -C "$WS" "${G[@]}" update-index --index-version 4
chown "$KJ_UID:$KJ_GID" "$WS/.git/index"
kj exec -- sh -c 'git -C sub config core.fsmonitor "touch $1/PWNED3; false #"' sh "$T"
ok index_v4_nested_config_set_aside test ! -e "$WS/sub/.git/config"
host_git -C "$WS" status
ok host_git_status_runs_nothing_with_index_v4 test ! -e "$T/PWNED3"

# An index kjail cannot read is kjail's failure (125), not a skipped check.
printf 'DIRC\0\0\0\011garbage' >"$WS/.git/index"
chown "$KJ_UID:$KJ_GID" "$WS/.git/index"
kj exec -- true
like "$rc:$err" "^125:kjail: git: cannot read $WS/\.git/index for the submodules host git would enter" \
	unreadable_index_fails_closed

done_testing
