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

# A commondir in a nested repository or a submodule's git directory sends
# host git to a git directory of the command's (config, hooks and all).
M=$T/markers
mkdir -p "$M" && chmod 1777 "$M"
MKEVIL='mkevil() { mkdir -p "$1/hooks" && cp -r "$2/objects" "$2/refs" "$2/HEAD" "$1/" && printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"echo PWNED >%s; false\"\n" "$3" >"$1/config"; }'
kj exec -- sh -c "$MKEVIL; mkevil evil sub/.git $M/nested_cd && echo ../../evil >sub/.git/commondir && echo planted"
is "$rc:$out" "0:planted" nested_repository_commondir_can_be_written_inside
like "$err" "kjail: git: the command changed $WS/sub/\.git/commondir \(host git would use it when it enters that repository\); renamed to commondir\.kjail-refused" \
	nested_repository_commondir_set_aside_and_said
host_git -C "$WS" status
ok host_git_status_follows_no_planted_commondir_of_nested_repository test ! -e "$M/nested_cd"
kj exec -- sh -c "$MKEVIL; mkevil evil2 .git/modules/lib $M/module_cd && echo ../../../evil2 >.git/modules/lib/commondir && printf '[core]\n\tfsmonitor = \"echo PWNED >$M/module_wt; false\"\n' >.git/modules/lib/config.worktree && echo planted"
is "$rc:$out" "0:planted" submodule_commondir_can_be_written_inside
ok submodule_commondir_and_config_worktree_set_aside \
	test -e "$WS/.git/modules/lib/commondir.kjail-refused" -a ! -e "$WS/.git/modules/lib/commondir" \
	-a -e "$WS/.git/modules/lib/config.worktree.kjail-refused" -a ! -e "$WS/.git/modules/lib/config.worktree"
host_git -C "$WS" status
ok host_git_status_follows_no_planted_commondir_of_submodule test ! -e "$M/module_cd"

# A gitlink made to lead elsewhere: a .git file naming a directory of the
# command's, a symlinked .git, an existing submodule's .git rewritten, a
# directory whose files are older than the run (the workspace's own, not
# written during the run): all of its config and hooks set aside,
# whatever their times. One out of the sandbox's reach is left alone.
ADD='git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),'
kj exec -- sh -c "$MKEVIL; mkevil evil3 .git $M/gitfile && mkdir sub3 && echo 'gitdir: ../evil3' >sub3/.git && ${ADD}sub3 && echo planted"
is "$rc:$out" "0:planted" gitfile_to_command_dir_can_be_made_inside
like "$err" "kjail: git: the command made a submodule lead to $WS/evil3 \(host git would use its config when it enters that submodule\); renamed to config\.kjail-refused" \
	gitfile_to_command_dir_config_set_aside_and_said
ok gitfile_to_command_dir_hooks_set_aside test -d "$WS/evil3/hooks.kjail-refused" -a ! -e "$WS/evil3/hooks"
host_git -C "$WS" status
ok host_git_status_follows_no_gitfile_to_command_dir test ! -e "$M/gitfile"

kj exec -- sh -c "$MKEVIL; mkevil evil4 .git $M/symlink && mkdir sub4 && ln -s ../evil4 sub4/.git && ${ADD}sub4 && echo planted"
is "$rc:$out" "0:planted" symlinked_dotgit_can_be_made_inside
like "$err" "kjail: git: the command made a submodule lead to $WS/evil4 \(host git would use its config" \
	symlinked_dotgit_target_config_set_aside_and_said
host_git -C "$WS" status
ok host_git_status_follows_no_symlinked_dotgit test ! -e "$M/symlink"

bash -c "$MKEVIL; mkevil '$WS/old5' '$WS/.git' '$M/oldfiles'" && chown -R "$KJ_UID:$KJ_GID" "$WS/old5"
sleep 0.1 # the files are older than the run, beyond the clock's tick
kj exec -- sh -c "mkdir sub5 && echo 'gitdir: ../old5' >sub5/.git && ${ADD}sub5 && echo planted"
is "$rc:$out" "0:planted" gitfile_to_older_dir_can_be_made_inside
ok gitfile_to_older_dir_config_set_aside test -e "$WS/old5/config.kjail-refused" -a ! -e "$WS/old5/config"
host_git -C "$WS" status
ok host_git_status_follows_no_gitfile_to_older_dir test ! -e "$M/oldfiles"

kj exec -- sh -c "$MKEVIL; mkevil evil6 .git $M/rewritten && echo 'gitdir: ../evil6' >lib/.git && echo planted"
is "$rc:$out" "0:planted" existing_submodule_gitfile_can_be_rewritten_inside
like "$err" "kjail: git: the command made a submodule lead to $WS/evil6 \(host git would use its config" \
	existing_submodule_rewritten_target_config_set_aside_and_said
host_git -C "$WS" status
ok host_git_status_follows_no_rewritten_submodule_gitfile test ! -e "$M/rewritten"
echo 'gitdir: ../.git/modules/lib' >"$WS/lib/.git"

git init -q "$T/outside7"
chown -R "$KJ_UID:$KJ_GID" "$T/outside7"
kj exec -- sh -c "mkdir sub7 && echo 'gitdir: $T/outside7/.git' >sub7/.git && ${ADD}sub7 && echo planted"
is "$rc:$out:$err" "0:planted:" gitlink_out_of_reach_not_said
ok gitlink_out_of_reach_left_alone test -e "$T/outside7/.git/config" -a -d "$T/outside7/.git/hooks"

# A gitlink that leads to the repository's own git directory: its config
# and hooks were read-only during the run, and stay where they are.
kj exec -- sh -c "mkdir sub9 && echo 'gitdir: ../.git' >sub9/.git && ${ADD}sub9 && echo planted"
is "$rc:$out:$err" "0:planted:" gitlink_to_own_git_dir_not_said
ok gitlink_to_own_git_dir_config_kept test -e "$WS/.git/config" -a -d "$WS/.git/hooks"

# Hundreds of gitlinks ahead of the one that matters: every one is still
# checked (a limit used to end the walk silently at 256).
kj exec -- sh -c "$MKEVIL; mkevil evil8 .git $M/many && H=\$(git rev-parse HEAD) && mkevil tmpl8 .git $M/tmpl && for i in \$(seq 100 400); do mkdir m\$i && echo 'gitdir: ../tmpl8' >m\$i/.git && printf '160000 %s\tm%s\n' \$H \$i; done | git update-index --index-info && mkdir zz8 && echo 'gitdir: ../evil8' >zz8/.git && ${ADD}zz8 && echo planted"
is "$rc:$out" "0:planted" many_gitlinks_can_be_made_inside
ok last_of_many_gitlinks_config_set_aside test -e "$WS/evil8/config.kjail-refused" -a ! -e "$WS/evil8/config"
host_git -C "$WS" status
ok host_git_status_runs_nothing_behind_many_gitlinks test ! -e "$M/many"

# An index the command replaced with a FIFO: kjail neither hangs on it
# after the run nor skips the check.
mv "$WS/.git/index" "$T/index.saved"
KJ_KILL_AFTER=60 kj exec -- sh -c 'mkfifo .git/index && echo planted'
like "$rc:$out:$err" "^125:planted:kjail: git: cannot read $WS/\.git/index for the submodules" \
	fifo_index_fails_closed_without_hanging
rm -f "$WS/.git/index"
mv "$T/index.saved" "$WS/.git/index"

# An index kjail cannot read is kjail's failure (125), not a skipped check.
printf 'DIRC\0\0\0\011garbage' >"$WS/.git/index"
chown "$KJ_UID:$KJ_GID" "$WS/.git/index"
kj exec -- true
like "$rc:$err" "^125:kjail: git: cannot read $WS/\.git/index for the submodules host git would enter" \
	unreadable_index_fails_closed

# A v3 entry whose extended flags run past the end of the index: refused
# the same way, without reading beyond it (an ASan build fails on that).
printf 'DIRC\0\0\0\003\0\0\0\001' >"$WS/.git/index"
head -c 60 /dev/zero >>"$WS/.git/index"
printf '\117\377' >>"$WS/.git/index"
chown "$KJ_UID:$KJ_GID" "$WS/.git/index"
kj exec -- true
like "$rc:$err" "^125:kjail: git: cannot read $WS/\.git/index" truncated_extended_entry_fails_closed
rm -f "$WS/.git/index"
git -C "$WS" "${G[@]}" reset -q
chown -R "$KJ_UID:$KJ_GID" "$WS"

# A split index keeps entries in sharedindex.*, which kjail does not read:
# the run says it could not check (125), never "no gitlinks".
kj exec -- sh -c 'git update-index --split-index && echo split'
like "$rc:$out:$err" "^125:split:kjail: git: cannot read $WS/\.git/index for the submodules host git would enter \(check the repository with git fsck; a split index is not read: git update-index --no-split-index; one whose offsets disagree with its entries neither: rm \.git/index && git reset\)" \
	split_index_fails_closed
as_caller git -C "$WS" update-index --no-split-index
kj exec -- true
is "$rc:$err" "0:" unsplit_index_read_again

# A commondir the command writes must not make its own repository "the
# user's": the gitlink's config is still set aside.
kj exec -- sh -c 'git init -q own && git -C own -c user.email=k@j -c user.name=kj commit -q --allow-empty -m x && git -C own config core.fsmonitor "touch $1/PWNED_CD; false #" && git update-index --add --cacheinfo 160000,$(git -C own rev-parse HEAD),own && echo ../own/.git >.git/commondir && echo planted' sh "$M"
is "$rc:$out" "0:planted" planted_commondir_and_gitlink_made_inside
ok gitlink_config_set_aside_despite_planted_commondir test ! -e "$WS/own/.git/config"
host_git -C "$WS" status
ok host_git_status_runs_nothing_with_planted_commondir test ! -e "$M/PWNED_CD"

# A submodule whose name holds a slash keeps its git directory in
# .git/modules/x/y: checked like any other.
kj exec -- sh -c 'git init -q s && git -C s -c user.email=k@j -c user.name=kj commit -q --allow-empty -m s && mkdir -p .git/modules/x && mv s/.git .git/modules/x/y && rm -rf s && printf "#!/bin/sh\ntouch %s/PWNED_XY\n" "$1" >.git/modules/x/y/hooks/post-checkout && chmod +x .git/modules/x/y/hooks/post-checkout && echo planted' sh "$M"
is "$rc:$out" "0:planted" slashed_submodule_git_dir_made_inside
ok slashed_submodule_hooks_set_aside test -e "$WS/.git/modules/x/y/hooks.kjail-refused" -a ! -e "$WS/.git/modules/x/y/hooks"

# Staged in .git in one run, moved into .git/modules in the next: its
# files keep the first run's times, but it was not there when the second
# began, so it is the command's.
kj exec -- sh -c 'git init -q t && git -C t -c user.email=k@j -c user.name=kj commit -q --allow-empty -m t && mv t/.git .git/stash && rm -rf t && printf "#!/bin/sh\ntouch %s/PWNED_ST\n" "$1" >.git/stash/hooks/post-checkout && chmod +x .git/stash/hooks/post-checkout' sh "$M"
sleep 0.1
kj exec -- sh -c 'mkdir -p .git/modules && mv .git/stash .git/modules/z && echo moved'
is "$rc:$out" "0:moved" staged_git_dir_moved_into_modules_inside
ok staged_git_dir_hooks_set_aside test -e "$WS/.git/modules/z/hooks.kjail-refused" -a ! -e "$WS/.git/modules/z/hooks"

# A worktrees/ entry that is a symlink leads nowhere kjail renames: a host
# file outside the workspace, changed during the run, stays as it is.
mkdir -p "$T/victim-wt" && echo old >"$T/victim-wt/commondir" && chown -R "$KJ_UID:$KJ_GID" "$T/victim-wt"
( sleep 1; echo changed >"$T/victim-wt/commondir" ) &
kj exec -- sh -c 'mkdir -p .git/worktrees && ln -s "$1" .git/worktrees/evil && sleep 2' sh "$T/victim-wt"
wait
ok worktree_symlink_not_followed_by_the_check test -e "$T/victim-wt/commondir" -a ! -e "$T/victim-wt/commondir.kjail-refused"
rm -f "$WS/.git/worktrees/evil"

# The same symlink put there by another process that writes the workspace
# (a second sandbox on it), between kjail's look at worktrees/NAME and its
# use of it. strace holds kjail just after the system call that names the
# entry (the old check's stat, the new one's open) while the test, as
# that process, moves the directory aside and puts there a symlink to a
# host directory outside the workspace, whose commondir it changes. The
# directory kjail looked at is the one it checks: the command's commondir
# there is set aside, the host file is not touched.
if command -v strace >/dev/null; then
	V=$T/victim-race
	mkdir -p "$V" "$T/race" && echo old >"$V/commondir" && chown -R "$KJ_UID:$KJ_GID" "$V" "$T/race"
	# shellcheck disable=SC2086 # KJ_EXEC_ARGS is meant to split
	as_caller timeout -s KILL 30 strace -qq -o "$T/race/trace" -P kjrace \
		-e trace=newfstatat,openat,openat2 -e inject=newfstatat,openat,openat2:delay_exit=2000000 \
		"$KJAIL" exec $KJ_EXEC_ARGS -- sh -c 'mkdir -p .git/worktrees/kjrace && echo ../.. >.git/worktrees/kjrace/commondir' \
		>/dev/null 2>"$T/race/err" </dev/null &
	bg=$!
	held=no
	if settles 10 grep -qs kjrace "$T/race/trace"; then
		held=yes
		as_caller sh -c 'mv .git/worktrees/kjrace kjrace-aside && ln -s "$1" .git/worktrees/kjrace && echo changed >"$1/commondir"' sh "$V"
	fi
	wait $bg
	is "$held:$?" "yes:0" worktree_swapped_after_the_look_kjail_held_there
	ok worktree_swapped_for_symlink_after_the_look_not_followed \
		test -e "$V/commondir" -a ! -e "$V/commondir.kjail-refused"
	ok worktree_swapped_after_the_look_checked_dir_set_aside \
		test -e "$WS/kjrace-aside/commondir.kjail-refused" -a ! -e "$WS/kjrace-aside/commondir"
	rm -rf "$WS/.git/worktrees/kjrace" "$WS/kjrace-aside"
else
	skip worktree_swapped_for_symlink_after_the_look_not_followed "no strace"
fi

# A submodule's own index: a recursive `git status` runs a status in
# each submodule, which enters the submodules of its own index in turn.
# A repository the command nests in a submodule and links from that
# submodule's index, or a nested submodule's .git file it rewrites, is
# checked as one of the top index's is (it ran on the host before).
N=$T/nest
git init -q "$T/n-inner" && git -C "$T/n-inner" "${G[@]}" commit -q --allow-empty -m inner
git init -q "$T/n-mid" && git -C "$T/n-mid" "${G[@]}" submodule add -q "$T/n-inner" inner &&
	git -C "$T/n-mid" "${G[@]}" commit -q -m mid
git init -q "$N" && git -C "$N" "${G[@]}" submodule add -q "$T/n-mid" mid &&
	git -C "$N" "${G[@]}" submodule update -q --init --recursive && git -C "$N" "${G[@]}" commit -q -m top
chown -R "$KJ_UID:$KJ_GID" "$N"
# (the modules of a submodule's git directory are judged by the clock:
# older than the run's clock tick)
sleep 0.1
kj exec --workspace "$N" -- sh -c 'git -C mid status --short && git -C mid/inner status --short && echo done'
is "$rc:$out:$err" "0:done:" nested_submodules_untouched_leave_no_note
kj exec --workspace "$N" -- sh -c 'cd mid && git init -q deep && git -C deep -c user.email=k@j -c user.name=kj commit -q --allow-empty -m x && git -C deep config core.fsmonitor "echo PWNED >$1/nested_link; false #" && git update-index --add --cacheinfo 160000,$(git -C deep rev-parse HEAD),deep && echo linked' sh "$M"
is "$rc:$out" "0:linked" gitlink_in_submodule_index_can_be_added_inside
like "$err" "kjail: git: the command made a submodule lead to $N/mid/deep/\.git \(host git would use its config when it enters that submodule\); renamed to config\.kjail-refused" \
	gitlink_in_submodule_index_config_set_aside_and_said
ok gitlink_in_submodule_index_config_gone test ! -e "$N/mid/deep/.git/config"
host_git -C "$N" status
ok host_git_status_runs_no_fsmonitor_nested_in_submodule test ! -e "$M/nested_link"
kj exec --workspace "$N" -- sh -c "$MKEVIL; mkevil evil9 .git/modules/mid/modules/inner $M/nested_gitfile && echo 'gitdir: ../../evil9' >mid/inner/.git && echo planted"
is "$rc:$out" "0:planted" nested_submodule_gitfile_can_be_rewritten_inside
like "$err" "kjail: git: the command made a submodule lead to $N/evil9 \(host git would use its config when it enters that submodule\); renamed to config\.kjail-refused" \
	nested_submodule_rewritten_target_config_set_aside_and_said
host_git -C "$N" status
ok host_git_status_follows_no_rewritten_nested_submodule_gitfile test ! -e "$M/nested_gitfile"

done_testing
