#!/usr/bin/env bash
# Build the working tree build/linux: the pinned base committed and tagged
# 'base', with series/*.patch applied by git am. Idempotent, and it never
# throws away commits that were not exported (FORCE=1 resets to the series).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Patch-ids, one per line in order, of the commits base..HEAD.
tree_ids() {
	git -C "$TREE" rev-list --reverse base..HEAD | while read -r c; do
		git -C "$TREE" show --format=email "$c" | git patch-id --stable |
			cut -d' ' -f1
	done
}

# Patch-ids, one per line in order, of the patches in series/.
series_ids() {
	series_patches | while read -r p; do
		git patch-id --stable <"$p" | cut -d' ' -f1
	done
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
			die "$(basename "$p") does not apply cleanly to base + earlier patches"
		}
	done < <(series_patches)
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

mapfile -t have < <(tree_ids)
mapfile -t want < <(series_ids)

prefix=yes
for i in "${!have[@]}"; do
	[ "${have[$i]}" = "${want[$i]:-}" ] || { prefix=no; break; }
done

if [ "$prefix" = no ]; then
	if [ "${FORCE:-0}" != 1 ]; then
		die "$TREE holds commits that are not in series/ (run 'make export' to keep them, or FORCE=1 make tree to reset to series/)"
	fi
	note "FORCE=1: resetting $TREE to base (old HEAD $(git -C "$TREE" rev-parse --short HEAD))"
	git -C "$TREE" reset -q --hard base
	have=()
fi

if [ "${#have[@]}" -lt "${#want[@]}" ]; then
	note "applying $(( ${#want[@]} - ${#have[@]} )) patch(es) to $TREE"
	apply_from "${#have[@]}"
fi
note "$TREE: base + $(git -C "$TREE" rev-list --count base..HEAD) patch(es), matches series/"
