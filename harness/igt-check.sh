#!/usr/bin/env bash
# The IGT patches of igt-tests/ are well formed, as igt-dev expects: a
# 'git format-patch --cover-letter' series with the i-g-t prefix, numbered
# in order, each signed off by the project, and clean under checkpatch
# with the options IGT's own checkpatch configuration sets. Whether they
# apply to the IGT commit in igt-tests/base and build is shown on a
# machine that can reach IGT (see the README); CI cannot. Without an
# igt-tests/ there is nothing to check.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

IGT=${IGT_DIR:-$TOP/igt-tests}
CODESPELL=/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt
# IGT's checkpatch options: its lines are 100 columns, and these types do
# not apply to its C. Two more, for tests only: CAMELCASE (libdrm's API and
# the PRI* macros are camel case) and FILE_PATH_CHANGES (there is no
# MAINTAINERS entry per test in IGT).
CHECKPATCH_OPTS=(--no-tree --strict --show-types --max-line-length=100
	--ignore=BIT_MACRO,SPLIT_STRING,LONG_LINE_STRING,BOOL_MEMBER
	--ignore=PREFER_KERNEL_TYPES,CAMELCASE,FILE_PATH_CHANGES)

if [ ! -d "$IGT" ]; then
	note "igt-tests: no ${IGT#"$TOP"/}/, no IGT patches to check"
	exit 0
fi
require_tree
fail=0
bad() {
	echo "igt-tests: $*" >&2
	fail=1
}

grep -qE '^[0-9a-f]{40}$' "$IGT/base" || bad "base names no IGT commit"

mapfile -t mails < <(find "$IGT" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | sort)
total=$((${#mails[@]} - 1))
[ "$total" -ge 1 ] || die "igt-tests: no patches"
[ "$(basename "${mails[0]}")" = 0000-cover-letter.patch ] || bad "no cover letter"

n=0
for m in "${mails[@]}"; do
	name=$(basename "$m")
	head -n1 "$m" | grep -qE '^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$' ||
		bad "$name: not git format-patch output"
	grep -qxF "From: $PROJECT_NAME <$PROJECT_EMAIL>" "$m" ||
		bad "$name: not from $PROJECT_NAME"
	grep -qE '^Date: ' "$m" || bad "$name: no Date"
	grep -qE "^Subject: \[PATCH i-g-t $n/$total\] " "$m" ||
		bad "$name: subject is not '[PATCH i-g-t $n/$total] ...'"
	if [ "$n" -gt 0 ]; then
		grep -qxF "Signed-off-by: $PROJECT_NAME <$PROJECT_EMAIL>" "$m" ||
			bad "$name: no Signed-off-by"
		if ! out=$(cd "$TREE" && PATH=/usr/bin:$PATH scripts/checkpatch.pl \
				"${CHECKPATCH_OPTS[@]}" --codespell \
				--codespellfile="$CODESPELL" --summary-file \
				--quiet "$m" 2>&1); then
			printf '%s\n' "$out" >&2
			bad "$name: checkpatch is not clean"
		fi
	fi
	n=$((n + 1))
done

[ $fail -eq 0 ] || die "the IGT patches are not ready; see the messages above"
note "igt-tests: $total IGT patch(es) and a cover letter, well formed and checkpatch-clean"
