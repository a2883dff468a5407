#!/bin/bash
# A symbolic link in .git/modules (or .git/modules itself as one): git
# makes directories there, never links, but follows one. The user's next
# `git submodule update --init` of a submodule not yet checked out takes
# .git/modules/NAME as its git directory, wherever it leads, and runs its
# post-checkout hook. kjail's checks open those entries through no
# symlink and passed the link by, so one the command made during the run
# is set aside after it (mounts/git_links.c).
. "$(dirname "$0")/../lib.sh"

G=(-c user.email=k@j -c user.name=kj -c protocol.file.allow=always -c safe.directory='*')
# host_git ARGS...: git on the host, as the caller (whose repository it is).
host_git() { as_caller env HOME="$T" git "$@" >/dev/null 2>&1; }

git init -q "$T/up/lib" && git -C "$T/up/lib" "${G[@]}" commit -q --allow-empty -m lib
git init -q "$T/up/main" && git -C "$T/up/main" "${G[@]}" submodule add -q "$T/up/lib" lib &&
	git -C "$T/up/main" "${G[@]}" commit -q -m sub
chmod -R a+rX "$T/up"
M=$T/markers
mkdir -p "$M" && chmod 1777 "$M"

# fresh: the workspace a clone without --recursive (lib not checked out).
fresh() {
	cd "$T" && rm -rf "$WS" && git clone -q "$T/up/main" "$WS" && chown -R "$KJ_UID:$KJ_GID" "$WS" && cd "$WS"
}
# The command's own repository with the submodule's commit and a hook.
EVIL='mkdir -p junk && cp -r "$2/up/lib/.git" junk/evil && printf "#!/bin/sh\ntouch $1/$3\n" >junk/evil/hooks/post-checkout && chmod +x junk/evil/hooks/post-checkout'

fresh
kj exec --ro "$T/up" -- sh -c "$EVIL"' && mkdir -p .git/modules && ln -s ../../junk/evil .git/modules/lib && echo planted' sh "$M" "$T" PWNED_ENTRY
is "$rc:$out" "0:planted" modules_entry_link_can_be_made_inside
like "$err" "kjail: git: the command made $WS/\.git/modules/lib a symbolic link \(host git would take a submodule's config and hooks from where it leads\); renamed to lib\.kjail-refused" \
	modules_entry_link_set_aside_and_said
host_git "${G[@]}" -C "$WS" submodule update --init
ok host_submodule_update_runs_no_hook_through_modules_entry_link test ! -e "$M/PWNED_ENTRY"

fresh
kj exec --ro "$T/up" -- sh -c "$EVIL"' && mkdir -p junk/mods && mv junk/evil junk/mods/lib && ln -s ../junk/mods .git/modules && echo planted' sh "$M" "$T" PWNED_DIR
is "$rc:$out" "0:planted" modules_dir_link_can_be_made_inside
like "$err" "kjail: git: the command made $WS/\.git/modules a symbolic link" modules_dir_link_set_aside_and_said
host_git "${G[@]}" -C "$WS" submodule update --init
ok host_submodule_update_runs_no_hook_through_modules_dir_link test ! -e "$M/PWNED_DIR"

# The same done with a directory was already set aside (a new entry).
fresh
kj exec --ro "$T/up" -- sh -c "$EVIL"' && mkdir -p .git/modules && mv junk/evil .git/modules/lib && echo planted' sh "$M" "$T" PWNED_REAL
host_git "${G[@]}" -C "$WS" submodule update --init
ok host_submodule_update_runs_no_hook_of_new_modules_entry test ! -e "$M/PWNED_REAL"

# A run that only uses git leaves a real checkout alone.
host_git "${G[@]}" -C "$WS" submodule update --init
kj exec -- sh -c 'git status --short && git -C lib status --short && echo done'
is "$rc:$out:$err" "0:done:" git_status_in_submodule_leaves_no_note

done_testing
