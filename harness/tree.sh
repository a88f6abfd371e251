#!/usr/bin/env bash
# Build the working tree build/linux: the pinned base committed and tagged
# 'base', with the patches of every series/<n>-<topic>/ applied by git am
# in order, and a branch series/<n>-<topic> at the last commit of each
# series; then the lab's patches (lab/patches/), and a branch 'lab' at
# their end (master, checked out, is at the last). Idempotent, and it never
# throws away commits or series branches that were not exported (FORCE=1
# resets to series/).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Patch-ids, one per line in order, of the commits base..HEAD.
tree_ids() {
	git -C "$TREE" rev-list --reverse base..HEAD | while read -r c; do
		git -C "$TREE" show --format=email "$c" | git patch-id --stable |
			cut -d' ' -f1
	done
}

# Patch-ids, one per line in order, of the patches of every series and
# then of the lab.
series_ids() {
	all_patches | while read -r p; do
		git patch-id --stable <"$p" | cut -d' ' -f1
	done
}

# Where each series ends: 'series/<folder> <patches up to its last>', in
# order.
series_ends() {
	local d k n=0
	while read -r d; do
		k=$(series_patches "$d" | wc -l)
		[ "$k" -gt 0 ] ||
			die "${d#"$TOP"/} holds no patches; remove it, or add its commits and run 'make export'"
		n=$((n + k))
		echo "series/${d##*/} $n"
	done < <(series_dirs)
}

# commit_at N: the Nth commit after base.
commit_at() {
	git -C "$TREE" rev-list --reverse base..HEAD | sed -n "${1}p"
}

# Series branches that series/ does not hold: one naming no folder, or,
# when every patch is applied, one that ends its series elsewhere.
stray_branches() {
	local b n
	while read -r b; do
		n=$(awk -v b="$b" '$1 == b { print $2 }' <<<"$ends")
		if [ -z "$n" ]; then
			echo "$b"
		elif [ "${#have[@]}" -eq "${#want[@]}" ] &&
		     [ "$(git -C "$TREE" rev-parse "refs/heads/$b")" != "$(commit_at "$n")" ]; then
			echo "$b"
		fi
	done < <(git -C "$TREE" for-each-ref --format='%(refname:strip=2)' refs/heads/series/)
}

create_base() {
	bash "$TOP/harness/base.sh"
	note "unpacking $BASE_TARBALL into $TREE"
	local tmp=$BUILD/unpack.$$
	rm -rf "$tmp" && mkdir -p "$tmp"
	tar -C "$tmp" -xf "$BASE_TARBALL"
	mv "$tmp"/linux-source-* "$TREE"
	rmdir "$tmp"
	# Debian's tarball ends .gitignore with a packaging block ('/*' then
	# '!/debian/') that ignores the whole top level. Drop those two lines
	# so the base commit holds the tree; the series never touches them.
	sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$TREE/.gitignore"
	git -C "$TREE" init -q -b master
	git -C "$TREE" add -A
	# The project's identity and fixed dates: the base commit, which the
	# cover letters name as base-commit, has the same hash everywhere.
	GIT_AUTHOR_NAME=$PROJECT_NAME GIT_AUTHOR_EMAIL=$PROJECT_EMAIL \
	GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE \
		git -C "$TREE" commit -q -m "Debian $BASE_PACKAGE $BASE_VERSION" \
		-m "Unpacked from $BASE_TARBALL (sha256 $BASE_SHA256)."
	git -C "$TREE" tag base
}

apply_from() {
	local skip=$1 n=0 p
	while read -r p; do
		n=$((n + 1))
		[ "$n" -le "$skip" ] && continue
		git -C "$TREE" am -q --whitespace=error-all "$p" || {
			git -C "$TREE" am --abort 2>/dev/null || true
			die "${p#"$TOP"/} does not apply cleanly to base + earlier patches"
		}
	done < <(all_patches)
}

mkdir -p "$BUILD"
if [ ! -e "$TREE/.git" ]; then
	[ -e "$TREE" ] && die "$TREE exists but is not a git tree; move it away"
	create_base
fi
git -C "$TREE" rev-parse -q --verify base >/dev/null ||
	die "$TREE has no 'base' tag; move it away and run 'make tree' again"

if [ -d "$(git -C "$TREE" rev-parse --git-path rebase-apply)" ] ||
   [ -d "$(git -C "$TREE" rev-parse --git-path rebase-merge)" ]; then
	die "$TREE is in the middle of a git am or rebase; finish or abort it first"
fi

if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
	die "$TREE has uncommitted edits; commit them and run 'make export', or discard them"
fi

case $(git -C "$TREE" symbolic-ref -q --short HEAD || true) in
series/*) die "$TREE has a series branch checked out; run 'git -C $TREE checkout master' first" ;;
esac

ends=$(series_ends)
mapfile -t have < <(tree_ids)
mapfile -t want < <(series_ids)

prefix=yes
for i in "${!have[@]}"; do
	[ "${have[$i]}" = "${want[$i]:-}" ] || { prefix=no; break; }
done
stray=$(stray_branches | paste -sd ' ' -)

if [ "$prefix" = no ] || [ -n "$stray" ]; then
	if [ "${FORCE:-0}" != 1 ]; then
		[ "$prefix" = yes ] ||
			die "$TREE holds commits that are not in series/ (run 'make export' to keep them, or FORCE=1 make tree to reset to series/)"
		die "$TREE has series branches that series/ does not hold: $stray (run 'make export' to keep them, or FORCE=1 make tree to reset to series/)"
	fi
	if [ "$prefix" = no ]; then
		note "FORCE=1: resetting $TREE to base (old HEAD $(git -C "$TREE" rev-parse --short HEAD))"
		git -C "$TREE" reset -q --hard base
		have=()
	fi
	for b in $stray; do
		note "FORCE=1: deleting branch $b (was $(git -C "$TREE" rev-parse --short "refs/heads/$b"))"
		git -C "$TREE" branch -q -D "$b"
	done
fi

if [ "${#have[@]}" -lt "${#want[@]}" ]; then
	note "applying $(( ${#want[@]} - ${#have[@]} )) patch(es) to $TREE"
	apply_from "${#have[@]}"
fi

# A branch at the end of each series; the last is HEAD.
while read -r b n; do
	[ -n "$b" ] || continue
	git -C "$TREE" branch -f "$b" "$(commit_at "$n")" ||
		die "could not move branch $b; is it checked out in a worktree of $TREE?"
done <<<"$ends"
nlab=$(lab_patches | wc -l)
if [ "$nlab" -gt 0 ]; then
	git -C "$TREE" branch -f lab HEAD ||
		die "could not move branch lab; is it checked out in a worktree of $TREE?"
elif git -C "$TREE" rev-parse -q --verify refs/heads/lab >/dev/null; then
	git -C "$TREE" branch -q -D lab
fi
note "$TREE: base + $(($(git -C "$TREE" rev-list --count base..HEAD) - nlab)) patch(es) in $(series_dirs | wc -l) series, then $nlab of the lab; matches series/ and lab/"
