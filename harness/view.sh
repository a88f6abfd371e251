#!/usr/bin/env bash
# The browsable view: the files the series adds or changes, copied from
# build/linux at HEAD to the same paths here. 'write' regenerates it and
# removes stale files; 'check' fails if it differs from the tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

manifest=$TOP/series/view.list
mode=${1:-check}
require_tree

# Files present after the series that differ from the base.
git -C "$TREE" diff --name-only --diff-filter=d base HEAD | sort >"$BUILD/view.want"

for f in $(cat "$BUILD/view.want"); do
	case ${f%%/*} in
	harness|series|kunit-configs|igt-tests|backports|build|.ci)
		die "the series touches $f, which collides with the harness";;
	esac
done

case $mode in
write)
	if [ -f "$manifest" ]; then
		comm -23 <(sort "$manifest") "$BUILD/view.want" | while read -r f; do
			rm -f "$TOP/$f"
			rmdir -p --ignore-fail-on-non-empty "$(dirname "$TOP/$f")" 2>/dev/null || true
		done
	fi
	while read -r f; do
		mkdir -p "$(dirname "$TOP/$f")"
		git -C "$TREE" show "HEAD:$f" >"$TOP/$f"
	done <"$BUILD/view.want"
	cp "$BUILD/view.want" "$manifest"
	;;
check)
	[ -f "$manifest" ] || die "series/view.list is missing; run 'make export'"
	cmp -s <(sort "$manifest") "$BUILD/view.want" ||
		die "series/view.list does not list the files the series changes; run 'make export'"
	bad=0
	while read -r f; do
		if ! git -C "$TREE" show "HEAD:$f" | cmp -s - "$TOP/$f"; then
			echo "view differs from the tree: $f" >&2
			bad=1
		fi
	done <"$BUILD/view.want"
	[ $bad -eq 0 ] || die "the browsable view is stale; run 'make export'"
	note "view: $(wc -l <"$BUILD/view.want") file(s) match the tree"
	;;
*)
	die "usage: view.sh write|check";;
esac
