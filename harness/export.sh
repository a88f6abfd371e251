#!/usr/bin/env bash
# Export the commits base..HEAD of build/linux as series/*.patch, keeping the
# cover letter's subject and text, and regenerate the browsable view: every
# file the series adds or changes, at its kernel path in this repository.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

require_tree
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted edits; commit them first"

cover=$TOP/series/0000-cover-letter.patch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# SERIES_VERSION=2 (and so on) numbers a resend '[PATCH v2 n/N]'.
version=()
if [ "${SERIES_VERSION:-1}" -gt 1 ]; then
	version=(-v"$SERIES_VERSION")
fi
git -C "$TREE" format-patch -q --zero-commit --no-signature --cover-letter \
	--thread=shallow "${version[@]}" -o "$tmp" base..HEAD
# The file names stay those of v1: the version is in the subjects.
for f in "$tmp"/v[0-9]*-*.patch; do
	if [ -e "$f" ]; then
		mv "$f" "$tmp/$(basename "$f" | sed 's/^v[0-9]*-//')"
	fi
done

# Carry the cover letter's subject and text over; git writes the shortlog
# and diffstat anew.
if [ -f "$cover" ] && [ -f "$tmp/0000-cover-letter.patch" ]; then
	python3 "$TOP/harness/cover.py" "$cover" "$tmp/0000-cover-letter.patch"
fi

find "$TOP/series" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
[ -n "$(ls "$tmp")" ] && cp "$tmp"/*.patch "$TOP/series/"

bash "$TOP/harness/view.sh" write
note "exported $(series_patches | wc -l) patch(es) to series/"
