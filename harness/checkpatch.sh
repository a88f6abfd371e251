#!/usr/bin/env bash
# checkpatch --strict --codespell on the given patches (default: the series
# and the lab), ignoring only the types listed, with reasons, in
# harness/checkpatch.ignore.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

require_tree
CODESPELL=/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt
ignore=$(grep -v '^#' "$TOP/harness/checkpatch.ignore" | paste -sd, -)

if [ $# -eq 0 ]; then
	mapfile -t patches < <(all_patches)
else
	patches=("$@")
fi

fail=0
for p in "${patches[@]}"; do
	p=$(realpath "$p")
	# Debian's python3 has the ply and git modules spdxcheck.py needs.
	if ! out=$(cd "$TREE" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --codespell \
			--codespellfile="$CODESPELL" --ignore "$ignore" \
			--summary-file --quiet "$p" 2>&1); then
		printf '%s\n' "$out" >&2
		echo "checkpatch: $(basename "$p") is not clean" >&2
		fail=1
	fi
done
[ $fail -eq 0 ] || die "checkpatch found problems; fix the patches in $TREE and export"
note "checkpatch --strict --codespell: ${#patches[@]} patch(es) clean"
