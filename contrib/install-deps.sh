#!/bin/sh
# Install the Debian/Ubuntu packages named as arguments if any is missing.
# As root: apt-get installs them. Otherwise: print the exact line and fail.
set -u
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "kjail: missing packages:$missing" >&2
	echo "kjail: run: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "kjail: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null ||
	{ echo "kjail: apt-get install failed for:$missing" >&2; exit 1; }
