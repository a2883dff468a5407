#!/bin/bash
# More ways a command could leave git config or hooks that host git runs
# later (mounts/binds.c, git_after.c, git_links.c): through a symlink in
# .git, a config.worktree, a commondir in a git directory named by a .git
# file or in another worktree's directory, a commondir in a submodule.
# Each test plants a core.fsmonitor or a hook that would write to $M,
# runs host git as the caller, and checks that nothing was written.
. "$(dirname "$0")/../lib.sh"

G=(-c user.email=k@j -c user.name=kj -c protocol.file.allow=always -c safe.directory='*'
	-c init.defaultBranch=main)
# host_git ARGS...: git on the host, as the caller (whose repository it is).
host_git() { as_caller env HOME="$T" git "${G[@]}" "$@" >/dev/null 2>&1; }
# Markers: anyone may write here (the caller runs host git).
M=$T/markers
mkdir -p "$M" && chmod 1777 "$M"
FSMON='[core]\n\tfsmonitor = "echo PWNED >'"$M"'/%s; false"\n'
# repo DIR [git init args]: a repository with one commit, the caller's.
repo() {
	local d=$1
	shift
	git "${G[@]}" init -q "$@" "$d" && git -C "$d" "${G[@]}" commit -q --allow-empty -m init
}
give() { chown -R "$KJ_UID:$KJ_GID" "$@"; }
# not_pwned NAME: no planted hook or fsmonitor wrote marker NAME.
not_pwned() { test ! -e "$M/$1"; }

# ---------------------------------------------- 1: symlinked hooks, config

R=$T/g1
repo "$R" && mkdir "$R/myhooks" && rm -rf "$R/.git/hooks" && ln -s ../myhooks "$R/.git/hooks"
give "$R"
kj exec --workspace "$R" -- sh -c 'printf "#!/bin/sh\necho PWNED >$1/hooks_link\n" >.git/hooks/pre-commit; chmod +x .git/hooks/pre-commit' sh "$M"
like "$rc:$err" "^125:kjail: workspace: cannot protect \.git/hooks: it is a symbolic link \(replace the symlink \.git/hooks with what it points to\)$" \
	symlinked_git_hooks_refused
host_git -C "$R" commit -q --allow-empty -m x
ok symlinked_git_hooks_no_hook_runs_on_host not_pwned hooks_link

R=$T/g1c
repo "$R" && mv "$R/.git/config" "$R/cfg" && ln -s ../cfg "$R/.git/config"
give "$R"
kj exec --workspace "$R" -- sh -c "printf '$FSMON' config_link >>.git/config" sh
like "$rc:$err" "^125:kjail: workspace: cannot protect \.git/config: it is a symbolic link" \
	symlinked_git_config_refused
host_git -C "$R" status
ok symlinked_git_config_no_fsmonitor_runs_on_host not_pwned config_link

# The same in a worktree's common directory (.git is a file there).
R=$T/g1w W=$T/g1w-wt
repo "$R" && git -C "$R" "${G[@]}" worktree add -q "$W" 2>/dev/null
mkdir "$R/myhooks" && rm -rf "$R/.git/hooks" && ln -s ../myhooks "$R/.git/hooks"
give "$R" "$W"
kj exec --workspace "$W" --rw "$R/.git" -- sh -c "printf '#!/bin/sh\necho PWNED >$M/hooks_link_wt\n' >$R/.git/hooks/pre-commit; chmod +x $R/.git/hooks/pre-commit"
like "$rc:$err" "^125:kjail: workspace: cannot protect $R/\.git/hooks: it is a symbolic link" \
	symlinked_common_hooks_refused
host_git -C "$W" commit -q --allow-empty -m x
ok symlinked_common_hooks_no_hook_runs_on_host not_pwned hooks_link_wt

# A .git without config: refused with a fix, not a bare errno.
R=$T/g1n
repo "$R" && rm "$R/.git/config"
give "$R"
kj exec --workspace "$R" -- true
like "$rc:$err" "^125:kjail: workspace: open \.git/config: No such file or directory \(create it on the host" \
	git_without_config_refused_with_fix

# mkevil DIR GITDIR MARKER (inside): a git directory of the command's,
# sharing GITDIR's objects, whose config runs a core.fsmonitor.
MKEVIL='mkevil() { mkdir -p "$1/hooks" && cp -r "$2/objects" "$2/refs" "$2/HEAD" "$1/" && printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"echo PWNED >%s; false\"\n" "$3" >"$1/config"; }'

# ---------------------------------------------- 2: config.worktree

# Present (git sparse-checkout turns on extensions.worktreeConfig): pinned.
R=$T/g2
repo "$R" && git -C "$R" "${G[@]}" sparse-checkout set --no-cone foo
give "$R"
kj exec --workspace "$R" -- sh -c "(printf '$FSMON' wtconfig >>.git/config.worktree) 2>&1; echo rc=\$?"
like "$out" "config\.worktree: Read-only file system" git_config_worktree_read_only
host_git -C "$R" status
ok git_config_worktree_no_fsmonitor_runs_on_host not_pwned wtconfig

# Absent (extensions.worktreeConfig set, no file yet): made by the
# command, set aside after the run.
rm "$R/.git/config.worktree"
kj exec --workspace "$R" -- sh -c "printf '$FSMON' wtconfig_new >.git/config.worktree && echo planted"
is "$rc:$out" "0:planted" git_config_worktree_can_be_created_inside
like "$err" "kjail: git: the command created \.git/config\.worktree \(host git would read it as config\); renamed to \.git/config\.worktree\.kjail-refused" \
	git_config_worktree_set_aside_and_said
host_git -C "$R" status
ok git_new_config_worktree_no_fsmonitor_runs_on_host not_pwned wtconfig_new

# ---------------------------------------------- 3: a .git file's git directory

R=$T/g3
git "${G[@]}" init -q --separate-git-dir="$R/.realgit" "$R" && git -C "$R" "${G[@]}" commit -q --allow-empty -m init
give "$R"
kj exec --workspace "$R" -- sh -c "$MKEVIL; mkevil evil .realgit $M/sepdir && echo ../evil >.realgit/commondir && echo planted"
is "$rc:$out" "0:planted" separate_gitdir_commondir_can_be_created_inside
like "$err" "kjail: git: the command created \.realgit/commondir \(host git would take hooks and config from the directory it names\); renamed to \.realgit/commondir\.kjail-refused" \
	separate_gitdir_commondir_set_aside_and_said
host_git -C "$R" status
ok separate_gitdir_no_fsmonitor_runs_on_host not_pwned sepdir

# ---------------------------------------------- 4: other worktrees, --rw .git

R=$T/g4 W=$T/g4-w1 W2=$T/g4-w2
repo "$R" && git -C "$R" "${G[@]}" worktree add -q "$W" 2>/dev/null &&
	git -C "$R" "${G[@]}" worktree add -q "$W2" 2>/dev/null &&
	git -C "$R" config extensions.worktreeConfig true
give "$R" "$W" "$W2"
# Another worktree's commondir: read-only.
kj exec --workspace "$W" --rw "$R/.git" -- sh -c "$MKEVIL; mkevil $R/.git/evil $R/.git $M/otherwt; (echo ../../evil >$R/.git/worktrees/g4-w2/commondir) 2>&1; (echo x >$R/.git/worktrees/g4-w2/gitdir) 2>&1"
like "$out" "commondir: Read-only file system" other_worktree_commondir_read_only
like "$out" "gitdir: Read-only file system" other_worktree_gitdir_read_only
host_git -C "$W2" status
ok other_worktree_no_fsmonitor_runs_on_host not_pwned otherwt
# The common directory's own commondir and another worktree's
# config.worktree, made during the run: set aside.
kj exec --workspace "$W" --rw "$R/.git" -- sh -c "echo evil >$R/.git/commondir && printf '$FSMON' otherwtcfg >$R/.git/worktrees/g4-w2/config.worktree && echo planted"
is "$rc:$out" "0:planted" common_commondir_can_be_created_inside
like "$err" "kjail: git: the command created $R/\.git/commondir .*renamed to $R/\.git/commondir\.kjail-refused" \
	common_commondir_set_aside_and_said
like "$err" "kjail: git: the command created $R/\.git/worktrees/g4-w2/config\.worktree .*renamed to" \
	other_worktree_config_worktree_set_aside_and_said
host_git -C "$R" status
host_git -C "$W2" status
ok common_commondir_no_fsmonitor_runs_on_host not_pwned otherwt
ok other_worktree_config_worktree_no_fsmonitor_runs_on_host not_pwned otherwtcfg
# A worktrees/ entry the command made, with a commondir: set aside.
kj exec --workspace "$W" --rw "$R/.git" -- sh -c "mkdir $R/.git/worktrees/new && echo ../../evil >$R/.git/worktrees/new/commondir && echo planted"
like "$err" "kjail: git: the command created $R/\.git/worktrees/new/commondir .*renamed to" \
	new_worktree_entry_commondir_set_aside
# A run that uses git in a worktree leaves no note.
kj exec --workspace "$W" --rw "$R/.git" -- sh -c "echo a >a && git add a && git -c user.email=k@j -c user.name=kj commit -q -m a && git status --short && echo done"
is "$rc:$out:$err" "0:done:" worktree_commit_leaves_no_note
# A gitlink in a worktree's own index (worktrees/NAME/index), leading to
# a git directory of the command's: set aside as in the main worktree.
kj exec --workspace "$W" --rw "$R/.git" -- sh -c "$MKEVIL; mkevil evilw $R/.git $M/wtlink && mkdir subw && echo 'gitdir: ../evilw' >subw/.git && git update-index --add --cacheinfo 160000,\$(git rev-parse HEAD),subw && echo planted"
is "$rc:$out" "0:planted" worktree_gitlink_can_be_added_inside
like "$err" "kjail: git: the command made a submodule lead to $W/evilw \(host git would use its config" \
	worktree_gitlink_target_config_set_aside_and_said
host_git -C "$W" status
ok worktree_gitlink_no_fsmonitor_runs_on_host not_pwned wtlink
# The common directory swapped during the run, by another process that
# writes it (a second sandbox on it), for a symlink to a host directory
# outside: said, and its worktrees/ not walked, so nothing there is
# renamed (its worktrees/x/commondir changed during the run).
R=$T/g4s W=$T/g4s-w V=$T/g4s-victim
repo "$R" && git -C "$R" "${G[@]}" worktree add -q "$W" 2>/dev/null &&
	mkdir -p "$V/worktrees/g4s-w" "$V/worktrees/x" && echo old >"$V/worktrees/x/commondir"
give "$R" "$W" "$V"
(settles 10 test -e "$W/started" &&
	as_caller sh -c 'mv "$1/.git" "$1/.git-moved" && ln -s "$2" "$1/.git" && echo changed >"$2/worktrees/x/commondir" && touch "$3/swapped"' sh "$R" "$V" "$W") &
KJ_KILL_AFTER=30 kj exec --workspace "$W" --rw "$R/.git" -- sh -c 'touch started; for i in $(seq 100); do [ -e swapped ] && exit 0; sleep 0.1; done; exit 9'
wait
like "$rc:$err" "^125:.*kjail: git: $V is not the directory it was before the run" \
	swapped_common_dir_said
ok swapped_common_dir_worktrees_not_walked \
	test -e "$V/worktrees/x/commondir" -a ! -e "$V/worktrees/x/commondir.kjail-refused"

# A worktrees directory kjail cannot open (a symlink loop here): an
# error, never "no linked worktree" (which would leave every other
# worktree's commondir writable).
R=$T/g5
repo "$R" && ln -s worktrees "$R/.git/worktrees"
give "$R"
kj exec --workspace "$R" -- true
like "$rc:$err" "^125:kjail: workspace: cannot protect linked worktrees: open $R/\.git/worktrees: Too many levels of symbolic links \(repair it" \
	unopenable_worktrees_dir_refused

# ------------------------------------ 6: core.hooksPath and include.path
# A read-only .git/config that sends host git into the workspace
# (husky's core.hooksPath = .husky, include.path = ../shared.gitconfig):
# the targets are kept read-only too (mounts/git_config.c).
R=$T/g6
repo "$R" && mkdir "$R/.husky" && git -C "$R" config core.hooksPath .husky
printf '[core]\n' >"$R/shared.gitconfig"
git -C "$R" config include.path ../shared.gitconfig
give "$R"
kj exec --workspace "$R" -- sh -c 'printf "#!/bin/sh\necho PWNED >$1/hookspath\n" >.husky/pre-commit; chmod +x .husky/pre-commit' sh "$M"
like "$err" "\.husky/pre-commit: Read-only file system" hooks_path_target_read_only
host_git -C "$R" commit -q --allow-empty -m x
ok hooks_path_no_hook_runs_on_host not_pwned hookspath
kj exec --workspace "$R" -- sh -c "printf '\tfsmonitor = \"echo PWNED >$M/include; false\"\n' >>shared.gitconfig"
like "$err" "shared\.gitconfig: Read-only file system" included_config_read_only
host_git -C "$R" status
ok included_config_no_fsmonitor_runs_on_host not_pwned include
kj exec --workspace "$R" -- sh -c 'touch elsewhere && echo ok'
is "$rc:$out" "0:ok" rest_of_workspace_still_writable
# kjail reads such a config with host git, found on the caller's PATH:
# never a git the command could have put there (the project's bin, as
# direnv adds it, or a relative entry), which ran on the host, as the
# caller, at the next run. The next git on PATH reads the config.
kj exec --workspace "$R" -- sh -c 'mkdir -p bin && printf "#!/bin/sh\necho PWNED >$1/path_git\n" >bin/git && chmod +x bin/git' sh "$M"
PATH="$R/bin:$PATH" kj exec --workspace "$R" -- true
is "$rc" 0 git_planted_on_path_skipped
cd "$R" && PATH="bin:$PATH" kj exec -- true
is "$rc" 0 git_planted_on_relative_path_skipped
cd "$WS" || exit 1
ok git_planted_on_path_never_runs_on_host not_pwned path_git
rm -rf "$R/bin"
# A directory above the target cannot be moved away either: the pin went
# with it, and a fresh tools/hooks (or conf/) under the old name took the
# command's hook (or core.fsmonitor), which host git ran.
RP=$T/g6p
repo "$RP" && mkdir -p "$RP/tools/hooks" "$RP/conf" && git -C "$RP" config core.hooksPath tools/hooks
printf '[core]\n' >"$RP/conf/extra.gitconfig"
git -C "$RP" config include.path ../conf/extra.gitconfig
give "$RP"
kj exec --workspace "$RP" -- sh -c 'mv tools tools.old 2>&1; mkdir -p tools/hooks; printf "#!/bin/sh\necho PWNED >$1/hooks_parent\n" >tools/hooks/pre-commit; chmod +x tools/hooks/pre-commit' sh "$M"
like "$out" "Device or resource busy" hooks_path_parent_cannot_be_moved
host_git -C "$RP" commit -q --allow-empty -m x
ok hooks_path_parent_move_no_hook_runs_on_host not_pwned hooks_parent
kj exec --workspace "$RP" -- sh -c "mv conf conf.old 2>&1; mkdir -p conf; printf '[core]\n\tfsmonitor = \"echo PWNED >$M/include_parent; false\"\n' >conf/extra.gitconfig"
like "$out" "Device or resource busy" include_parent_cannot_be_moved
host_git -C "$RP" status
ok include_parent_move_no_fsmonitor_runs_on_host not_pwned include_parent

# include.path = ~USER/...: git expands it to USER's home, so a target in
# the workspace named that way is kept read-only too (it read as a
# relative name and was left writable). Root's lane only: the test needs
# an account whose home can hold a workspace of its own, and root's
# does (a temporary directory, removed at exit); nobody's is
# /nonexistent.
if [ "$KJ_AS" = root ]; then
	RH=$(mktemp -d "$(getent passwd root | cut -d: -f6)/kjail-test.XXXXXX")
	trap 'rm -rf "$RH"; _cleanup' EXIT
	RT=$RH/r
	repo "$RT" && printf '[core]\n' >"$RT/tilde.gitconfig"
	git -C "$RT" config include.path "~root/${RT#"$(getent passwd root | cut -d: -f6)"/}/tilde.gitconfig"
	kj exec --workspace "$RT" -- sh -c "printf '\tfsmonitor = \"echo PWNED >$M/tilde; false\"\n' >>tilde.gitconfig"
	like "$err" "tilde\.gitconfig: Read-only file system" tilde_user_included_config_read_only
	host_git -C "$RT" status
	ok tilde_user_included_config_no_fsmonitor_runs_on_host not_pwned tilde
	rm -rf "$RH"
else
	skip tilde_user_included_config_read_only "needs an account whose home holds a workspace (the root lane has it)"
fi

# Missing (the command could make it), the workspace itself, or reached
# through a symlink the command could replace: refused.
rmdir "$R/.husky"
kj exec --workspace "$R" -- true
like "$rc:$err" "^125:kjail: workspace: core\.hooksPath in .* names .*/\.husky, which the command could create" \
	hooks_path_missing_refused
mkdir "$R/hk" && ln -s hk "$R/.husky" && give "$R"
kj exec --workspace "$R" -- true
like "$rc:$err" "^125:kjail: workspace: core\.hooksPath .*cannot protect .*/\.husky" \
	hooks_path_through_symlink_refused
git "${G[@]}" -C "$R" config core.hooksPath .
kj exec --workspace "$R" -- true
like "$rc:$err" "^125:.*names the workspace itself" hooks_path_workspace_itself_refused
git "${G[@]}" -C "$R" config core.hooksPath "$T/outside-hooks"
kj exec --workspace "$R" -- true
is "$rc" 0 hooks_path_outside_workspace_needs_nothing

# In a worktree the shared config (where husky writes core.hooksPath) is
# in the common directory, not in the worktree's own git directory.
R=$T/g6w W=$T/g6w-wt
repo "$R" && git -C "$R" "${G[@]}" worktree add -q "$W" 2>/dev/null
git -C "$R" "${G[@]}" config core.hooksPath .husky && mkdir "$W/.husky"
give "$R" "$W"
kj exec --workspace "$W" -- sh -c 'printf "#!/bin/sh\necho PWNED >$1/wt_hookspath\n" >.husky/pre-commit; chmod +x .husky/pre-commit' sh "$M"
like "$err" "\.husky/pre-commit: Read-only file system" worktree_common_hooks_path_target_read_only
host_git -C "$W" commit -q --allow-empty -m x
ok worktree_common_hooks_path_no_hook_runs_on_host not_pwned wt_hookspath

# A submodule's own config, which host git reads when it enters the
# submodule (`git status` runs one there; so does `git submodule foreach
# --recursive git commit`): its core.hooksPath (relative to the
# submodule's worktree) and include.path targets in the workspace are
# kept read-only as the top repository's are, at any depth, whoever
# could write the config itself.
R=$T/g7
repo "$T/g7-inner" && repo "$T/g7-mid" &&
	git -C "$T/g7-mid" "${G[@]}" submodule add -q "$T/g7-inner" inner && git -C "$T/g7-mid" "${G[@]}" commit -q -m mid
repo "$R" && git -C "$R" "${G[@]}" submodule add -q "$T/g7-mid" mid &&
	git -C "$R" "${G[@]}" submodule update -q --init --recursive && git -C "$R" "${G[@]}" commit -q -m top
mkdir "$R/mid/.husky" && git -C "$R/mid" config core.hooksPath .husky
printf '[core]\n' >"$R/mid/inner/sub.gitconfig"
git -C "$R/mid/inner" config include.path ../../../../../mid/inner/sub.gitconfig
give "$R"
kj exec --workspace "$R" -- sh -c 'printf "#!/bin/sh\necho PWNED >$1/sub_hookspath\n" >mid/.husky/pre-commit; chmod +x mid/.husky/pre-commit' sh "$M"
like "$err" "mid/\.husky/pre-commit: Read-only file system" submodule_hooks_path_target_read_only
host_git -C "$R" submodule foreach -q --recursive 'git -c user.email=k@j -c user.name=kj commit -q --allow-empty -m x'
ok submodule_hooks_path_no_hook_runs_on_host not_pwned sub_hookspath
kj exec --workspace "$R" -- sh -c "printf '\tfsmonitor = \"echo PWNED >$M/sub_include; false\"\n' >>mid/inner/sub.gitconfig"
like "$err" "mid/inner/sub\.gitconfig: Read-only file system" nested_submodule_included_config_read_only
host_git -C "$R" status
ok nested_submodule_included_config_no_fsmonitor_runs_on_host not_pwned sub_include
kj exec --workspace "$R" -- sh -c 'touch mid/elsewhere && echo ok'
is "$rc:$out:$err" "0:ok:" submodule_worktree_still_writable
# A submodule git directory out of the sandbox's reach: its config was
# not the command's choice, but what it includes from the workspace is.
repo "$T/g7-out" && git -C "$T/g7-out" config include.path "$R/out.gitconfig"
printf '[core]\n' >"$R/out.gitconfig" && mkdir "$R/outsub" && echo "gitdir: $T/g7-out/.git" >"$R/outsub/.git"
git -C "$R" "${G[@]}" update-index --add --cacheinfo "160000,$(git -C "$T/g7-out" "${G[@]}" rev-parse HEAD),outsub"
give "$R" "$T/g7-out"
kj exec --workspace "$R" -- sh -c "printf '\tfsmonitor = \"echo PWNED >$M/out_include; false\"\n' >>out.gitconfig"
like "$err" "out\.gitconfig: Read-only file system" out_of_reach_submodule_included_config_read_only
host_git -C "$R" status
ok out_of_reach_submodule_included_config_no_fsmonitor_runs_on_host not_pwned out_include
# Missing (the command could make it): refused, as for the top repository.
rmdir "$R/mid/.husky"
kj exec --workspace "$R" -- true
like "$rc:$err" "^125:kjail: workspace: core\.hooksPath in .*/modules/mid/config names $R/mid/\.husky, which the command could create" \
	submodule_hooks_path_missing_refused

# Many submodules, each with its own core.hooksPath (husky in each): more
# than --protect's 16, each kept read-only; above 256 such places, 125.
R=$T/g8
repo "$R"
head=$(git -C "$R" rev-parse HEAD)
many_submodules() { # FROM TO: submodules sFROM..sTO, each with .hk hooks
	for i in $(seq "$1" "$2"); do
		git "${G[@]}" init -q "$R/s$i" && mkdir "$R/s$i/.hk" && git -C "$R/s$i" config core.hooksPath .hk &&
			git -C "$R" "${G[@]}" update-index --add --cacheinfo "160000,$head,s$i" || return 1
	done
}
many_submodules 1 20
give "$R"
kj exec --workspace "$R" -- sh -c 'touch s20/.hk/pre-commit s1/.hk/pre-commit; touch s20/free && echo ok'
like "$rc:$out:$(echo $err)" "^0:ok:.*s20/\.hk/pre-commit.: Read-only file system.*s1/\.hk/pre-commit.: Read-only file system" \
	twenty_submodule_hooks_paths_all_read_only
many_submodules 21 257
give "$R"
kj exec --workspace "$R" -- true
like "$rc:$err" "^125:kjail: workspace: core\.hooksPath in .*: more than 256 protected paths" \
	more_than_256_hooks_paths_refused

done_testing
