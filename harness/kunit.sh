#!/usr/bin/env bash
# Merge kunit-configs/*.config into one UML kunitconfig, build it in the
# persistent build/kunit, and run it in several boots of the same kernel:
#  1. every suite except the modules of kunit-configs/lockdep-off, which
#     switch lockdep off on the unmodified base. Lockdep must stay on for
#     the whole boot: any lockdep report, or lockdep going off, fails.
#  2. each module of kunit-configs/lockdep-off in a boot of its own, with
#     the splats kunit-configs/known-splats allows it.
# Then summarise per suite, against kunit-configs/expected and
# kunit-configs/known-failures.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

require_tree
KDIR=$BUILD/kunit
CFG=$TOP/kunit-configs
mkdir -p "$KDIR"
cat "$CFG"/*.config >"$BUILD/kunit.kunitconfig"

# Modules that switch lockdep off, one per line ('<module>  # reason').
mapfile -t apart < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$CFG/lockdep-off" |
	awk '{ print $1 }')
not_apart=$(printf 'module!=%s,' "${apart[@]}")
not_apart=${not_apart%,}

kunit() {
	(cd "$TREE" && build_locked python3 tools/testing/kunit/kunit.py "$@" \
		--build_dir="$KDIR" --timeout="${KUNIT_TIMEOUT:-1800}" \
		--raw_output=all)
}

logs=()
log=$BUILD/kunit.log
note "building the UML KUnit kernel in $KDIR; boot 1: all but ${apart[*]}"
if ! kunit run --arch=um --kunitconfig="$BUILD/kunit.kunitconfig" \
		--jobs="$JOBS" --filter "$not_apart" \
		${KUNIT_GLOB:+"$KUNIT_GLOB"} >"$log" 2>&1; then
	tail -40 "$log" >&2
	die "kunit.py failed (build error, crash or timeout); full log in $log"
fi
logs+=("$log")

# Lockdep must be built in and stay on for boot 1, where our suites run.
bash "$TOP/harness/lockdep-check.sh" "$KDIR/.config" "$log"
note "boot 1: lockdep stayed on"

for m in "${apart[@]}"; do
	mlog=$BUILD/kunit-$m.log
	note "boot of its own: $m"
	kunit exec --filter "module=$m" >"$mlog" 2>&1 || {
		tail -40 "$mlog" >&2
		die "kunit.py failed on $m (crash or timeout); full log in $mlog"
	}
	logs+=("$mlog")
done

splats=0
for l in "${logs[@]}"; do
	python3 "$TOP/harness/splats.py" --allow "$CFG/known-splats" "$l" || splats=1
done
python3 "$TOP/harness/ktap.py" --expect "$CFG/expected" \
	--known-failures "$CFG/known-failures" "${logs[@]}"
[ $splats -eq 0 ] || die "kernel splats during KUnit; see above and ${logs[*]}"
