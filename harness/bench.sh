#!/usr/bin/env bash
# The overcommit benchmark: boot the test kernel with only vttm_bench to
# run (KUnit off), then take its table and per-frame CSV from the console
# and plot the migration per frame; then run TTM's microbenchmarks in
# the UML KUnit kernel. Results go to build/bench/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/bench
require_tree
[ -d "$TREE/tools/testing/selftests/drivers/gpu/vttm" ] ||
	die "vttm and vttm_bench are not in the 7.3 series yet (README, \"Status\"); the benchmark runs only in backports/6.12"
mkdir -p "$OUT"
BOOT_LIST=$TOP/harness/boot/bench.list BOOT_APPEND=kunit.enable=0 \
	BOOT_CHECK=0 BOOT_TIMEOUT=${BOOT_TIMEOUT:-3600} \
	bash "$TOP/harness/boot.sh"

log=$BUILD/boot.log
tr -d '\r' <"$log" | sed -n 's/^vttm-bench-csv: //p' >"$OUT/bench.csv"
tr -d '\r' <"$log" | grep '^vttm-bench: ' >"$OUT/table.txt" ||
	die "no benchmark output in $log"
# Every line of the list ran to the end.
runs=$(grep -c '^tools/' "$TOP/harness/boot/bench.list")
ok=$(tr -d '\r' <"$log" | grep -c '^BOOT-SELFTEST .*vttm_bench rc=0$' || true)
[ "$ok" -eq "$runs" ] ||
	die "vttm_bench finished cleanly $ok time(s) of $runs; see $log"
[ -s "$OUT/bench.csv" ] || die "no per-frame CSV in $log"
python3 "$TOP/harness/bench/plot.py" "$OUT/bench.csv" "$OUT/migration.svg"

# TTM's microbenchmarks are KUnit suites: they run in the UML KUnit
# kernel of harness/kunit.sh (same kunitconfig and build directory).
ttm_log=$OUT/ttm-kunit.log
cat "$TOP"/kunit-configs/*.config >"$BUILD/kunit.kunitconfig"
note "TTM microbenchmarks in the UML KUnit kernel ($BUILD/kunit)"
(cd "$TREE" && build_locked python3 tools/testing/kunit/kunit.py run \
	--arch=um --kunitconfig="$BUILD/kunit.kunitconfig" \
	--build_dir="$BUILD/kunit" --jobs="$JOBS" --raw_output=all \
	'ttm_*_bench') >"$ttm_log" 2>&1 ||
	die "the TTM microbenchmarks failed; see $ttm_log"
tr -d '\r' <"$ttm_log" |
	sed -n 's/^.*# \(ttm_[a-z_]*_bench\): /\1: /p' >"$OUT/ttm.txt"
[ -s "$OUT/ttm.txt" ] || die "no TTM benchmark output in $ttm_log"

{
	echo "machine: $(uname -m), $(nproc) CPUs, QEMU TCG; $(date -u +%F)"
	cat "$OUT/table.txt"
	echo "TTM, UML with lockdep and KASAN:"
	cat "$OUT/ttm.txt"
} | tee "$OUT/summary.txt"
note "table in $OUT/summary.txt, CSV in $OUT/bench.csv, plot in $OUT/migration.svg"
