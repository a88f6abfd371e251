#!/usr/bin/env bash
# make distro-check: the series is sound in the configuration Debian ships.
#  - Debian's amd64 config plus harness/distro/series.config resolves with
#    every option of the fragment as asked;
#  - the modules the series touches (drm, drm_exec, ttm, xe, vttm) build and link
#    as modules, without a compiler warning or a modpost complaint, and
#    every symbol they use is exported: by the modules built here, by the
#    built-in objects the series adds or its options turn on, or by
#    Debian's own kernel of the same version (its Module.symvers);
#  - the rest of what the series touches (the amdgpu files) compiles;
#  - with CONFIG_CGROUP_DMEM=n every touched object still builds.
# amdgpu is compile-tested here, and only here. Linking amdgpu.ko would
# cost 15-20 min on 2 cores, so its touched objects are compiled and the
# symbols they use are not checked.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/distro
OUT_NODMEM=$BUILD/distro-nodmem

# Modules built whole and linked, because the series changes them. Keep
# in step with the series (the check below fails otherwise).
MODULES=(drivers/gpu/drm/drm.ko drivers/gpu/drm/drm_exec.ko
	 drivers/gpu/drm/ttm/ttm.ko drivers/gpu/drm/xe/xe.ko
	 drivers/gpu/drm/vttm/vttm.ko)
# Built-in code that series.config turns on, which Debian's kernel lacks,
# and which the modules call.
ENABLED_OBJECTS=(kernel/cgroup/dmem.o)

require_tree
[ -f "$DEB_CONFIG" ] || die "no $DEB_CONFIG; run 'make base'"
deb_symvers

kmake() {
	local out=$1
	shift
	build_locked make -s -C "$TREE" O="$out" -j"$JOBS" "$@"
}

# config_for DIR FRAGMENT...: Debian's config with the fragments merged,
# resolved by olddefconfig. DIR/.config is only replaced when it changes,
# so a second run rebuilds nothing.
config_for() {
	local out=$1 new
	shift
	mkdir -p "$out"
	new=$(mktemp -d)
	xz -dc "$DEB_CONFIG" >"$new/debian.config"
	merge_config "$TREE" "$new" "$new/debian.config" "$@" || {
		rm -rf "$new"
		return 1
	}
	cmp -s "$new/.config" "$out/.config" || cp "$new/.config" "$out/.config"
	rm -rf "$new"
	kmake "$out" olddefconfig >/dev/null
}

# The kernel objects the series changes, tests aside (KUnit is off in
# Debian's config).
touched_objects() {
	git -C "$TREE" diff --name-only base HEAD -- '*.c' |
		grep -v -e '/tests/' -e '_test\.c$' -e '^tools/' |
		sed 's/\.c$/.o/'
}

# Those outside the modules built whole.
loose_objects() {
	local mods
	mods=$(printf '%s\n' "${MODULES[@]%/*}" | sed 's|$|/(display/)?[^/]*$|' | paste -sd'|')
	touched_objects | grep -Ev "^($mods)" || true
}

# Every module whose source the series changes must be in MODULES, or be
# amdgpu, or built-in code (the GPU buddy allocator, a bool option): those
# are compiled object by object, and their exports counted.
modules_cover_series() {
	local f dir ok=0
	for f in $(git -C "$TREE" diff --name-only base HEAD -- 'drivers/*.c'); do
		case $f in
		*/tests/* | drivers/gpu/drm/amd/amdgpu/* | drivers/gpu/buddy.c) continue ;;
		esac
		# xe builds its display/ directory into xe.ko.
		dir=$(dirname "$f")
		dir=${dir%/display}
		printf '%s\n' "${MODULES[@]}" | grep -q "^$dir/[^/]*\.ko$" || {
			echo "  $f: its module is not in MODULES" >&2
			ok=1
		}
	done
	return $ok
}

# Symbols the modules built here may use: Debian's exports, less those of
# the modules rebuilt here (the series may change them), plus what the
# rebuilt modules and built-in objects export.
provided_symbols() {
	local mods o
	mods=$(printf '%s\n' "${MODULES[@]%.ko}" | paste -sd'|')
	awk -F'\t' -v m="^($mods)\$" '$3 !~ m { print $2 }' "$DEB_SYMVERS"
	cut -f2 "$OUT/modules-only.symvers"
	for o in $(loose_objects) "${ENABLED_OBJECTS[@]}"; do
		[ -f "$OUT/$o" ] || continue
		nm "$OUT/$o" | sed -n 's/.* __export_symbol_//p'
	done
}

# Symbols the linked modules leave undefined, with the module using each.
used_symbols() {
	local m
	for m in "${MODULES[@]}"; do
		nm -u "$OUT/$m" | awk -v m="$m" '{ print $2, m }'
	done
}

start=$(date +%s)
modules_cover_series || die "MODULES does not cover the modules the series changes"

note "distro config: Debian's amd64 config + series.config"
config_for "$OUT" "$DISTRO/series.config" "$DISTRO/check.config" ||
	die "the series' options do not resolve in Debian's config"

note "building ${MODULES[*]##*/}, kernel/cgroup/ and $(($(loose_objects | wc -l) + ${#ENABLED_OBJECTS[@]})) more object(s) in $OUT"
log=$OUT/build.log
# Without vmlinux.o (hours to build here) modpost cannot place the
# symbols the modules use, and stops listing them after ten; it is told to
# warn, and the symbols are settled below against Debian's exports.
kmake "$OUT" KBUILD_MODPOST_WARN=1 "${MODULES[@]}" kernel/cgroup/ \
	$(loose_objects) "${ENABLED_OBJECTS[@]}" >"$log" 2>&1 ||
	{ tail -n 40 "$log"; die "build failed; log in $log"; }
if grep -E 'warning:|error:' "$log" >&2; then
	die "compiler warnings in the distro build; log in $log"
fi
if grep -E 'modpost: .*(exported twice|mismatch|GPL-incompatible|[Nn]amespace)' "$log" >&2; then
	die "modpost complained; log in $log"
fi

used_symbols | LC_ALL=C sort -u >"$OUT/used"
provided_symbols | LC_ALL=C sort -u >"$OUT/provided"
missing=$(LC_ALL=C join -v1 "$OUT/used" "$OUT/provided" || true)
[ -z "$missing" ] || { echo "$missing" >&2; die "symbol(s) used but exported by nothing"; }
note "modpost: $(cut -d' ' -f1 "$OUT/used" | sort -u | wc -l) symbol(s) the modules use, all exported"

note "CONFIG_CGROUP_DMEM=n: the touched objects build with the stubs"
config_for "$OUT_NODMEM" "$DISTRO/series.config" "$DISTRO/check.config" \
	"$DISTRO/nodmem.config" || die "CONFIG_CGROUP_DMEM=n does not resolve"
log=$OUT_NODMEM/build.log
kmake "$OUT_NODMEM" $(touched_objects | grep -v '^kernel/cgroup/dmem') >"$log" 2>&1 ||
	{ tail -n 40 "$log"; die "build without dmem failed; log in $log"; }
if grep -E 'warning:|error:' "$log" >&2; then
	die "compiler warnings in the build without dmem; log in $log"
fi

note "distro-check: passed in $(($(date +%s) - start)) s"
