#!/bin/sh
# Usage: check_lintian.sh ALLOWED DEB...
# Runs Debian's lintian on each package: no error, and every warning is listed in ALLOWED
# (packaging/lintian-warnings.txt: "package: tag", each with its reason).
set -eu
allowed=$1
shift
out=$(lintian --tag-display-limit 0 "$@" 2>&1 | grep -v 'running with root privileges' || true)
echo "$out"
status=0
echo "$out" | grep -q '^E: ' && { echo "FAIL: lintian errors"; status=1; }
for w in $(echo "$out" | sed -n 's/^W: \([^ ]*\) \([^ ]*\).*/\1\2/p' | sort -u); do
    grep -v '^#' "$allowed" | tr -d ' ' | grep -qx "$w" ||
        { echo "FAIL: warning '$w' is not in $allowed"; status=1; }
done
[ $status -eq 0 ] && echo "lintian: no errors, $(echo "$out" | grep -c '^W: ' || true) allowed warnings"
exit $status
