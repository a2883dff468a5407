#!/bin/bash
# kjail reads the workspace's index after the run for the gitlinks host
# git enters (mounts/git_index.c). It must read them as host git does: an
# entry git takes for a gitlink that kjail does not is a nested
# repository of the command's whose core.fsmonitor the user's next `git
# status` runs, unchecked.
. "$(dirname "$0")/../lib.sh"

G=(-c user.email=k@j -c user.name=kj -c safe.directory='*')
# host_git ARGS...: git on the host, as the caller (whose repository it is).
host_git() { as_caller env HOME="$T" git "$@" >/dev/null 2>&1; }

git -C "$WS" "${G[@]}" init -q
git -C "$WS" "${G[@]}" commit -q --allow-empty -m init
chown -R "$KJ_UID:$KJ_GID" "$WS"
M=$T/markers
mkdir -p "$M" && chmod 1777 "$M"

# setmode INDEX NAME MODE [FLAGBITS]: rewrite one entry of a version 2
# index (mode, and bits ORed into its flags), with the trailing hash.
cat >"$WS/setmode.py" <<'PY'
import hashlib, struct, sys
p, target, mode = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3], 8)
b = bytearray(open(p, 'rb').read())
ver, n = struct.unpack('>II', b[4:12])
assert b[:4] == b'DIRC' and ver == 2
off = 12
for _ in range(n):
    nl = struct.unpack('>H', b[off + 60:off + 62])[0] & 0xfff
    if bytes(b[off + 62:off + 62 + nl]) == target:
        b[off + 24:off + 28] = struct.pack('>I', mode)
    off += (62 + nl + 8) & ~7
b[-20:] = hashlib.sha1(bytes(b[:-20])).digest()
open(p, 'wb').write(b)
PY
chmod 644 "$WS/setmode.py"

# A gitlink whose mode has permission bits too (0160644): host git tests
# the type bits only (S_ISGITLINK), enters it and runs its fsmonitor.
kj exec -- sh -c 'g="-c user.email=k@j -c user.name=kj"; git init -q sub && git -C sub $g commit -q --allow-empty -m x && git -C sub config core.fsmonitor "touch $1/PWNED_MODE; false #" && git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub && python3 "$2" .git/index sub 160644 && git ls-files -s sub | cut -c1-6' sh "$M" "$WS/setmode.py"
is "$rc:$out" "0:160644" gitlink_with_permission_bits_can_be_written_inside
like "$err" "kjail: git: the command made a submodule lead to $WS/sub/\.git \(host git would use its config when it enters that submodule\); renamed to config\.kjail-refused" \
	gitlink_with_permission_bits_config_set_aside
host_git -C "$WS" status
ok host_git_status_runs_no_fsmonitor_of_gitlink_with_permission_bits test ! -e "$M/PWNED_MODE"

# Offsets git reads the index by on threads (index.threads; its default
# on 2 cores and up): an EOIE trailer gives where the extensions start,
# an IEOT extension where each block of entries starts. Offsets that
# disagree with the entries read one after another would have git read
# entries kjail never saw; such an index is not read (125). One git
# wrote is read as before (20010 entries: git writes an IEOT from 20000).
cat >"$WS/ieot.py" <<'PY'
import hashlib, struct, sys
# ieot.py INDEX has | block | eoie: say whether it has an IEOT, or move
# the second IEOT block's offset, or EOIE's, by 8 bytes (hash redone).
p, what = sys.argv[1], sys.argv[2]
b = bytearray(open(p, 'rb').read())
i = b.find(b'IEOT')
if what == 'has':
    print('ieot' if i > 0 and b[-52:-48] == b'EOIE' else 'none')
    sys.exit(0)
at = i + 12 + 8 if what == 'block' else len(b) - 44
(off,) = struct.unpack('>I', b[at:at + 4])
b[at:at + 4] = struct.pack('>I', off + 8)
b[-20:] = hashlib.sha1(bytes(b[:-20])).digest()
open(p, 'wb').write(b)
PY
chmod 644 "$WS/ieot.py"
mkindex='e=$(git hash-object -w --stdin </dev/null) && rm -f .git/index && python3 -c "
for i in range(20010): print(\"100644 $e\tf/%06d\" % i)" | git -c index.threads=2 -c index.recordOffsetTable=true -c index.recordEndOfIndexEntries=true update-index --index-info'
kj exec -- sh -c "$mkindex && python3 ieot.py .git/index has"
is "$rc:$out" "0:ieot" index_with_offset_table_written_by_git_is_read
kj exec -- sh -c "$mkindex && git -c index.threads=2 -c index.recordOffsetTable=true -c index.recordEndOfIndexEntries=true update-index --index-version 4 && python3 ieot.py .git/index has"
is "$rc:$out" "0:ieot" index_v4_with_offset_table_written_by_git_is_read
for what in block eoie; do
	kj exec -- sh -c "$mkindex && python3 ieot.py .git/index $what"
	is "$rc" 125 "index_with_${what}_offset_off_its_entries_refused"
	like "$err" "kjail: git: cannot read $WS/\.git/index" "index_with_${what}_offset_off_its_entries_says_so"
done
kj exec -- sh -c "$mkindex"
is "$rc" 0 index_with_offset_table_rebuilt_is_read

done_testing
