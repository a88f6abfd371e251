#!/usr/bin/env bash
# Export each series of build/linux into series/: the branch
# series/<n>-<topic> ends the series, the branch before it (or base) starts
# it, and its commits become series/<n>-<topic>/, keeping the cover letter's
# subject and text. Folders and patches of series that are gone are
# removed. The branch 'lab', if there is one, is HEAD and follows the last
# series: its commits become lab/patches/, without a cover letter, as they
# are never mailed. Then regenerate the browsable views: every file the
# series add or change, at its kernel path in this repository, and what
# the lab adds or changes after them, under lab/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

require_tree
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted edits; commit them first"
tree=${TREE#"$TOP"/}

# The series branches, in the order of series_dirs.
mapfile -t names < <(git -C "$TREE" for-each-ref --format='%(refname:strip=3)' \
	refs/heads/series/ | series_sort)
for n in "${names[@]}"; do
	[[ $n =~ ^[0-9]+-[A-Za-z0-9._-]+$ ]] ||
		die "branch series/$n is not named series/<n>-<topic>; rename it: git -C $tree branch -m series/$n series/<n>-<topic>"
done
if [ ${#names[@]} -eq 0 ]; then
	[ "$(git -C "$TREE" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse base)" ] ||
		die "$tree has no series branch; name the series: git -C $tree branch series/1-<topic> HEAD"
elif git -C "$TREE" rev-parse -q --verify refs/heads/lab >/dev/null; then
	last=${names[${#names[@]} - 1]}
	[ "$(git -C "$TREE" rev-parse lab)" = "$(git -C "$TREE" rev-parse HEAD)" ] ||
		die "lab, which follows the series, is not HEAD; move it there: git -C $tree branch -f lab HEAD"
	git -C "$TREE" merge-base --is-ancestor "series/$last" lab ||
		die "lab does not build on series/$last; rebase it: git -C $tree rebase series/$last lab"
	[ "$(git -C "$TREE" rev-list --count "series/$last..lab")" -gt 0 ] ||
		die "lab holds no commits after series/$last; delete it: git -C $tree branch -D lab"
else
	last=${names[${#names[@]} - 1]}
	[ "$(git -C "$TREE" rev-parse "series/$last")" = "$(git -C "$TREE" rev-parse HEAD)" ] ||
		die "series/$last, the last series, is not HEAD; move it there: git -C $tree branch -f series/$last HEAD"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# SERIES_VERSION=2 (and so on) numbers a resend '[PATCH v2 n/N]'.
version=()
if [ "${SERIES_VERSION:-1}" -gt 1 ]; then
	version=(-v"$SERIES_VERSION")
fi

from=base
for n in "${names[@]}"; do
	to=series/$n
	git -C "$TREE" merge-base --is-ancestor "$from" "$to" ||
		die "$to does not build on $from; rebase it: git -C $tree rebase $from $to"
	[ "$(git -C "$TREE" rev-list --count "$from..$to")" -gt 0 ] ||
		die "$to holds no commits after $from; delete it: git -C $tree branch -D $to"
	# --base: the cover letter names the base commit and the patch-ids of
	# the series before (b4's base-commit and prerequisite-patch-id).
	# --abbrev: git sizes abbreviated hashes by the objects it has packed,
	# so a fresh tree and a packed one would write other index lines; 9 is
	# what a packed kernel tree gets, and what series/ has always had.
	# A series whose cover letter is an RFC stays one: '[RFC PATCH n/N]'.
	rfc=()
	if grep -qs '^Subject: \[RFC PATCH' "$TOP/series/$n/0000-cover-letter.patch"; then
		rfc=(--rfc)
	fi
	git -C "$TREE" format-patch -q --zero-commit --no-signature --cover-letter \
		--thread=shallow --base=base --abbrev=9 "${version[@]}" "${rfc[@]}" \
		-o "$tmp/$n" "$from..$to"
	# The file names stay those of v1: the version is in the subjects.
	for f in "$tmp/$n"/v[0-9]*-*.patch; do
		if [ -e "$f" ]; then
			mv "$f" "$tmp/$n/$(basename "$f" | sed 's/^v[0-9]*-//')"
		fi
	done
	# git's --base can hash a prerequisite of several files in another
	# order than 'git patch-id --stable', which b4 computes from the
	# mails: write the stable ids.
	if [ "$from" != base ]; then
		git -C "$TREE" rev-list --reverse "base..$from" | while read -r c; do
			git -C "$TREE" show "$c" | git patch-id --stable | cut -d' ' -f1
		done >"$tmp/prerequisites"
		python3 - "$tmp/$n/0000-cover-letter.patch" "$tmp/prerequisites" <<'PY'
import sys
cover, ids = sys.argv[1], open(sys.argv[2]).read().split()
lines = [l for l in open(cover).read().split('\n')
         if not l.startswith('prerequisite-patch-id: ')]
at = next(i for i, l in enumerate(lines) if l.startswith('base-commit: ')) + 1
lines[at:at] = ['prerequisite-patch-id: ' + i for i in ids]
open(cover, 'w').write('\n'.join(lines))
PY
	fi
	# git names every cover letter <cover.<time>.git...>: two series
	# exported in the same second would share a Message-Id. Name the
	# series in it.
	sed -i -E "1,/^\$/ s/^(Message-Id|In-Reply-To|References): <cover\./\1: <cover.$n./" \
		"$tmp/$n"/*.patch
	# Carry the cover letter's subject and text over; git writes the
	# shortlog, diffstat and base trailers anew.
	cover=$TOP/series/$n/0000-cover-letter.patch
	if [ -f "$cover" ]; then
		python3 "$TOP/harness/cover.py" "$cover" "$tmp/$n/0000-cover-letter.patch"
	fi
	from=$to
done

# Replace the patches of every series folder; folders of series that are
# gone must hold nothing else.
while read -r d; do
	n=${d##*/}
	[ -d "$tmp/$n" ] && continue
	if find "$d" -mindepth 1 ! -name '[0-9][0-9][0-9][0-9]-*.patch' | grep -q .; then
		die "series/$n has no branch any more but holds more than patches; move those files away"
	fi
done < <(series_dirs)
while read -r d; do
	find "$d" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
	[ -d "$tmp/${d##*/}" ] || rmdir "$d"
done < <(series_dirs)
for n in "${names[@]}"; do
	mkdir -p "$TOP/series/$n"
	cp "$tmp/$n"/*.patch "$TOP/series/$n/"
done

# The lab: its commits after the last series, plain patches.
find "$LAB/patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete 2>/dev/null || true
if git -C "$TREE" rev-parse -q --verify refs/heads/lab >/dev/null; then
	git -C "$TREE" format-patch -q --zero-commit --no-signature --abbrev=9 \
		-o "$tmp/lab" "$from..lab"
	mkdir -p "$LAB/patches"
	cp "$tmp/lab"/*.patch "$LAB/patches/"
elif [ -d "$LAB/patches" ]; then
	rmdir "$LAB/patches" 2>/dev/null ||
		die "lab/patches/ holds more than patches, and build/linux has no branch lab; move those files away"
fi

bash "$TOP/harness/view.sh" write
note "exported $(series_patches | wc -l) patch(es) in ${#names[@]} series to series/, $(lab_patches | wc -l) of the lab to lab/patches/"
