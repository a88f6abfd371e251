#!/usr/bin/env bash
# The browsable views, copied from build/linux:
#  - the series': every file the series add or change, as it stands after
#    the last series, at the same path here (listed in series/view.list);
#  - the lab's: every file the lab adds or changes after the series, as it
#    stands at HEAD, under lab/ (listed in lab/view.list).
# 'write' regenerates them and removes stale files; 'check' fails if they
# differ from the tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-check}
require_tree
end=$(series_end)

# view MODE FROM TO DIR MANIFEST: the files present at TO that differ from
# FROM, at DIR/<path>, listed in MANIFEST.
view() {
	local mode=$1 from=$2 to=$3 dir=$4 manifest=$5 want f bad=0
	want=$BUILD/view.want.${manifest//\//_}
	git -C "$TREE" diff --name-only --diff-filter=d "$from" "$to" | sort >"$want"
	case $mode in
	write)
		if [ -f "$manifest" ]; then
			comm -23 <(sort "$manifest") "$want" | while read -r f; do
				rm -f "$dir/$f"
				rmdir -p --ignore-fail-on-non-empty "$(dirname "$dir/$f")" 2>/dev/null || true
			done
		fi
		if [ -s "$want" ]; then
			while read -r f; do
				mkdir -p "$(dirname "$dir/$f")"
				git -C "$TREE" show "$to:$f" >"$dir/$f"
			done <"$want"
			cp "$want" "$manifest"
		else
			rm -f "$manifest"
		fi
		;;
	check)
		if [ ! -s "$want" ]; then
			[ ! -f "$manifest" ] ||
				die "${manifest#"$TOP"/} lists files, but nothing changes there; run 'make export'"
			return 0
		fi
		[ -f "$manifest" ] || die "${manifest#"$TOP"/} is missing; run 'make export'"
		cmp -s <(sort "$manifest") "$want" ||
			die "${manifest#"$TOP"/} does not list the files changed there; run 'make export'"
		while read -r f; do
			if ! git -C "$TREE" show "$to:$f" | cmp -s - "$dir/$f"; then
				echo "view differs from the tree: ${dir#"$TOP"}/$f" >&2
				bad=1
			fi
		done <"$want"
		[ $bad -eq 0 ] || die "the browsable view is stale; run 'make export'"
		note "view: $(wc -l <"$want") file(s) of ${manifest#"$TOP"/} match the tree"
		;;
	*)
		die "usage: view.sh write|check";;
	esac
}

for f in $(git -C "$TREE" diff --name-only --diff-filter=d base "$end"); do
	case ${f%%/*} in
	harness|series|lab|kunit-configs|igt-tests|backports|build|.ci)
		die "the series touches $f, which collides with the harness";;
	esac
done

view "$mode" base "$end" "$TOP" "$TOP/series/view.list"
mkdir -p "$LAB"
view "$mode" "$end" HEAD "$LAB" "$LAB/view.list"
