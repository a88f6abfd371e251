#!/usr/bin/env bash
# make deb: installable linux-image and linux-headers packages of the
# patched kernel, built with 'make bindeb-pkg' in Debian's amd64 config
# plus harness/distro/series.config. The release is the base's with the
# suffix -ttm-overcommit, so it installs beside Debian's own kernel.
#
# TRIM=1 cuts Debian's config down, the way localmodconfig does for a
# running machine, to the modules of harness/distro/trim.modules and what
# is built in, and leaves out debug info. That is a few hours less on 2
# cores; what it keeps is compiled with Debian's options unchanged.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SUFFIX=-ttm-overcommit
TRIM=${TRIM:-0}

require_tree
[ -f "$DEB_CONFIG" ] || die "no $DEB_CONFIG; run 'make base'"

if [ "$TRIM" = 1 ]; then
	OUT=$BUILD/deb-trim
else
	OUT=$BUILD/deb
fi
OBJ=$OUT/obj
SRC=$OUT/src
mkdir -p "$OBJ"

# Build from a worktree at build/linux's HEAD, so that work on the tree
# during the hours of a build changes nothing in the packages.
if [ ! -e "$SRC/.git" ]; then
	git -C "$TREE" worktree add -q --detach "$SRC" HEAD
fi
git -C "$SRC" checkout -q -f --detach "$(git -C "$TREE" rev-parse HEAD)"

kmake() {
	build_locked make -s -C "$SRC" O="$OBJ" -j"$JOBS" "$@"
}

# What a running machine's lsmod would print, for localmodconfig.
lsmod_of_trim_list() {
	echo "Module                  Size  Used by"
	grep -v '^#' "$DISTRO/trim.modules" | tr ' ' '\n' | sed '/^$/d' |
		awk '{ print $1, 0, 0 }'
}

start=$(date +%s)
xz -dc "$DEB_CONFIG" >"$OUT/debian.config"
frags=("$DISTRO/series.config")
if [ "$TRIM" = 1 ]; then
	cp "$OUT/debian.config" "$OBJ/.config"
	kmake olddefconfig >/dev/null
	lsmod_of_trim_list >"$OUT/lsmod"
	kmake LSMOD="$OUT/lsmod" localmodconfig >/dev/null 2>"$OUT/localmodconfig.log"
	cp "$OBJ/.config" "$OUT/trimmed.config"
	frags+=("$DISTRO/check.config")
	base_config=$OUT/trimmed.config
else
	base_config=$OUT/debian.config
fi
merge_config "$SRC" "$OBJ" "$base_config" "${frags[@]}" ||
	die "the series' options do not resolve in Debian's config"
note "config: $(grep -c '=m$' "$OBJ/.config") module(s), $(grep -c '=y$' "$OBJ/.config") built-in option(s)"

rm -f "$OUT"/*.deb "$OUT"/*.buildinfo "$OUT"/*.changes
note "make bindeb-pkg in $OBJ (log in $OUT/build.log)"
kmake LOCALVERSION="$SUFFIX" KDEB_PKGVERSION="$BASE_UPSTREAM-1" \
	bindeb-pkg >"$OUT/build.log" 2>&1 ||
	{ tail -n 40 "$OUT/build.log"; die "bindeb-pkg failed"; }

note "packages:"
ls -1 "$OUT"/*.deb
note "deb: built in $(($(date +%s) - start)) s"
