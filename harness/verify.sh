#!/usr/bin/env bash
# The checks a reviewer runs on the series:
#  - every series applies, in order, to a fresh base, then the lab, and
#    every patch builds the objects it touches (bisectability, incremental
#    in one build directory);
#  - the browsable view matches the tree;
#  - checkpatch --strict --codespell is clean on every patch;
#  - sparse (C=2) and W=1 add no warnings on the objects the series touches;
#  - kernel-doc adds no warnings on the files the series touches;
#  - the uAPI headers it touches are self-contained, as headers_check wants;
#  - the IGT patches of igt-tests/ are well formed (harness/igt-check.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VTREE=$BUILD/verify
OBJ=$BUILD/bisect
fail=0

require_tree
bash "$TOP/harness/view.sh" check

bash "$TOP/harness/checkpatch.sh" || fail=1
bash "$TOP/harness/igt-check.sh" || fail=1

# --- a fresh base, patch by patch ------------------------------------------
if [ ! -d "$VTREE" ]; then
	git -C "$TREE" worktree add -q --detach "$VTREE" base
fi
git -C "$VTREE" am --abort >/dev/null 2>&1 || true
git -C "$VTREE" checkout -q -f --detach base
git -C "$VTREE" clean -q -fdx

# Objects a set of changed files builds: changed .c files and the direct
# includers of changed headers, limited to what the test kernel builds.
objects_for() {
	local f inc
	for f in "$@"; do
		case $f in
		*.c) echo "${f%.c}.o" ;;
		*.h)
			inc=${f#include/}
			# A header nothing includes yet (one the series adds
			# later) must not end the list under 'set -e'.
			{ git -C "$VTREE" grep -l -e "#include [<\"]$inc[>\"]" \
				-e "#include \"$(basename "$f")\"" -- '*.c' ||
				true; } | sed 's/\.c$/.o/'
			;;
		esac
	done | sort -u | while read -r o; do
		[ -f "$BUILD/kunit/$o" ] && echo "$o"
	done
}

[ -f "$BUILD/kunit/.config" ] ||
	die "no UML test kernel config in $BUILD/kunit; run 'make kunit' first"
mkdir -p "$OBJ"
cmp -s "$BUILD/kunit/.config" "$OBJ/.config" || cp "$BUILD/kunit/.config" "$OBJ/.config"

kmake() {
	build_locked make -s -C "$VTREE" O="$OBJ" ARCH=um -j"$JOBS" "$@"
}

# Warnings of sparse and W=1, without line numbers so that patches that
# move code do not count as new warnings. -k: an object that does not build
# in one configuration must not hide the warnings of the others.
warnings() {
	kmake -k C=2 CHECK="$TOP/harness/sparse" W=1 "$@" 2>&1 |
		tee "$BUILD/warn.raw" |
		grep -E 'warning:|error:|\*\*\*|is not available or not up to date' |
		sed -E 's/:[0-9]+(:[0-9]+)?:/:/' | sort
}

mapfile -t all_files < <(git -C "$TREE" diff --name-only base HEAD)
kmake olddefconfig >/dev/null
kmake prepare >/dev/null

# Baseline warnings on the objects the series touches that exist in base.
mapfile -t base_objs < <(objects_for "${all_files[@]}" |
	while read -r o; do [ -f "$VTREE/${o%.o}.c" ] && echo "$o"; done)
[ ${#base_objs[@]} -gt 0 ] && warnings "${base_objs[@]}" >"$BUILD/warn.base" || : >"$BUILD/warn.base"
cp "$BUILD/warn.raw" "$BUILD/warn.base.raw" 2>/dev/null || true
for f in "${all_files[@]}"; do
	[ -f "$VTREE/$f" ] && [[ $f == *.[ch] ]] &&
		(cd "$VTREE" && scripts/kernel-doc -none -Wall "$f" 2>&1 |
			sed -E 's/:[0-9]+(:| )/:\1/') || true
done | sort >"$BUILD/kdoc.base"

n=0
while read -r p; do
	n=$((n + 1))
	git -C "$VTREE" am -q --whitespace=error-all "$p" </dev/null || {
		git -C "$VTREE" am --abort || true
		die "${p#"$TOP"/} does not apply to base + the patches before it"
	}
	mapfile -t files < <(git -C "$VTREE" diff --name-only HEAD~1 HEAD)
	# A patch that adds a Kconfig symbol: take the test config again, so
	# the symbols the base's olddefconfig dropped come back from here on.
	if printf '%s\n' "${files[@]}" | grep -q 'Kconfig'; then
		cp "$BUILD/kunit/.config" "$OBJ/.config"
		kmake olddefconfig >/dev/null </dev/null
	fi
	mapfile -t objs < <(objects_for "${files[@]}")
	if [ ${#objs[@]} -gt 0 ] && ! kmake "${objs[@]}" >"$BUILD/bisect.log" 2>&1 </dev/null; then
		cat "$BUILD/bisect.log" >&2
		echo "bisect: $(basename "$p") does not build" >&2
		fail=1
	fi
done < <(all_patches)
note "series: $n patch(es) of $(series_dirs | wc -l) series and the lab apply to a fresh base and build one by one"

[ "$(git -C "$VTREE" rev-parse HEAD^{tree})" = "$(git -C "$TREE" rev-parse HEAD^{tree})" ] ||
	die "series/ and lab/ applied to base differ from $TREE; run 'make export' or 'make tree'"

if grep -q 'is not available or not up to date' "$BUILD/warn.base.raw" 2>/dev/null; then
	die "sparse did not run (C=2 found it unusable); see $BUILD/warn.base.raw"
fi

mapfile -t objs < <(objects_for "${all_files[@]}")
[ ${#objs[@]} -gt 0 ] && warnings "${objs[@]}" >"$BUILD/warn.series" || : >"$BUILD/warn.series"
if new=$(comm -13 "$BUILD/warn.base" "$BUILD/warn.series") && [ -n "$new" ]; then
	printf '%s\n' "$new" >&2
	echo "sparse/W=1: the series adds warnings" >&2
	fail=1
else
	note "sparse (C=2) and W=1: no new warnings on ${#objs[@]} object(s)"
fi

for f in "${all_files[@]}"; do
	[ -f "$VTREE/$f" ] && [[ $f == *.[ch] ]] &&
		(cd "$VTREE" && scripts/kernel-doc -none -Wall "$f" 2>&1 |
			sed -E 's/:[0-9]+(:| )/:\1/') || true
done | sort >"$BUILD/kdoc.series"
if new=$(comm -13 "$BUILD/kdoc.base" "$BUILD/kdoc.series") && [ -n "$new" ]; then
	printf '%s\n' "$new" >&2
	echo "kernel-doc: the series adds warnings" >&2
	fail=1
else
	note "kernel-doc: no new warnings"
fi

# Each uAPI header the series touches, installed as userspace sees it,
# must pass headers_check and compile on its own, in C and in C++.
mapfile -t uapi < <(printf '%s\n' "${all_files[@]}" | grep '^include/uapi/.*\.h$' || true)
if [ ${#uapi[@]} -gt 0 ]; then
	# UML exports no headers: install x86's, which userspace gets.
	hdr=$BUILD/uapi/usr/include
	build_locked make -s -C "$VTREE" O="$BUILD/uapi" ARCH=x86 -j"$JOBS" \
		headers >/dev/null
	# 6.12's headers_check.pl takes the architecture after the directory;
	# 7.3's takes files only.
	check=$VTREE/usr/include/headers_check.pl
	arch=()
	if grep -q 'my (\$dir, \$arch' "$check"; then
		arch=(x86)
	fi
	for f in "${uapi[@]}"; do
		h=${f#include/uapi/}
		if ! perl "$check" "$hdr" "${arch[@]}" "$hdr/$h" ||
		   ! gcc -fsyntax-only -Wall -Werror -I"$hdr" -include "$hdr/$h" \
			-x c /dev/null ||
		   ! g++ -fsyntax-only -Wall -Werror -I"$hdr" -include "$hdr/$h" \
			-x c++ /dev/null; then
			echo "uapi: $h is not self-contained" >&2
			fail=1
		fi
	done
	note "uapi: ${#uapi[@]} header(s) self-contained"
fi

[ $fail -eq 0 ] || die "verify failed; see the messages above"
note "verify: passed"
