#!/usr/bin/env bash
# Check the console log of a boot test (harness/boot.sh): no kernel splat of
# any kind, /init reached BOOT-DONE, every selftest passed or skipped, and
# the KUnit KTAP is complete with no failure. Prints the offending lines,
# then 'N passed, N failed, N skipped' over KUnit tests and selftests.
# Usage: boot-check.sh <console log>. Needs no kernel and no qemu.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: $(basename "$0") <console log>"
log=$1
[ -r "$log" ] || die "cannot read $log; run 'make boot' to produce it"

# The serial console ends lines with CR LF; work on a clean copy.
clean=$(mktemp)
trap 'rm -f "$clean"' EXIT
tr -d '\r' <"$log" >"$clean"

# Kernel splats. Any one fails the boot: WARN, BUG, oops, panic, lockdep,
# KASAN and UBSAN reports all print one of these, and none belongs in a
# clean run. BOOT-ERROR comes from /init.
splat='Kernel panic|kernel BUG at|\<Oops\>|BUG:|WARNING:|UBSAN:'
splat+='|possible circular locking|inconsistent lock state'
splat+='|possible recursive locking|INFO: |Call Trace:'
splat+='|general protection fault|Unable to handle kernel|BOOT-ERROR'

problems=()
if grep -qE "$splat" "$clean"; then
	echo "--- kernel splats in $log (first 5, with context):"
	grep -nE -B3 -A12 -m5 "$splat" "$clean" || true
	echo "---"
	problems+=("$(grep -cE "$splat" "$clean") splat line(s) on the console")
fi

if grep -q '^BOOT-TIMEOUT' "$clean"; then
	problems+=("$(grep -m1 '^BOOT-TIMEOUT' "$clean")")
fi
if ! grep -q '^BOOT-DONE' "$clean"; then
	echo "--- last lines of $log:"
	tail -n 15 "$clean"
	echo "---"
	problems+=("/init never printed BOOT-DONE (hang, crash or timeout)")
fi

# Selftests: rc 0 passes, rc 4 is kselftest's SKIP, anything else fails.
# A kselftest_harness program prints '# Totals: pass:N fail:N ... skip:N';
# its tests are counted one by one then, so that a test that skipped
# inside a passing program is counted as skipped, not as passed.
totals() {
	awk -v t="$1" '$0 == "BOOT-SELFTEST-START " t { on = 1; next }
		on && index($0, "BOOT-SELFTEST " t " rc=") == 1 { on = 0 }
		on && /^# Totals: pass:/ { p = $3; s = $0
			sub(/.*skip:/, "", s); sub(/ .*/, "", s)
			sub(/pass:/, "", p); line = p " " s }
		END { if (line != "") print line }' "$clean"
}
st_pass=0 st_fail=0 st_skip=0 programs=0
while read -r _ name rc; do
	programs=$((programs + 1))
	read -r t_pass t_skip < <(totals "$name"; echo)
	case ${rc#rc=} in
	0) if [ -n "$t_pass" ]; then
		st_pass=$((st_pass + t_pass)) st_skip=$((st_skip + t_skip))
		[ "$t_skip" -eq 0 ] || echo "  selftest $name: $t_skip test(s) skipped"
	   else
		st_pass=$((st_pass + 1))
	   fi ;;
	4) st_skip=$((st_skip + 1)); echo "  selftest $name skipped (rc=4)" ;;
	*) st_fail=$((st_fail + 1)); echo "  selftest $name FAILED ($rc)"
	   problems+=("selftest $name failed with $rc") ;;
	esac
done < <(grep -E '^BOOT-SELFTEST [^ ]+ rc=[0-9]+$' "$clean" || true)
want=$(sed -n 's/^BOOT-SELFTESTS n=\([0-9]*\)$/\1/p' "$clean" | head -n1)
ran=$programs
if [ -n "$want" ] && [ "$ran" -ne "$want" ]; then
	problems+=("only $ran of $want selftests reported a result")
fi

# KUnit: ktap.py prints one line per suite and a summary; it fails on a
# failed test, an unfinished suite or a missing KTAP block. The built-in
# suites finish before /init starts; cut the log there, so that the TAP
# the selftests print is not counted as KUnit's.
kunit=$clean.kunit
trap 'rm -f "$clean" "$kunit"' EXIT
sed '/^BOOT-/,$d' "$clean" >"$kunit"
kt_rc=0
ktap_out=$(python3 "$TOP/harness/ktap.py" "$kunit" 2>&1) || kt_rc=$?
# The summary line, then the names of failed cases, which ktap.py prints last.
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' <<<"$ktap_out" |
	tail -n1) || true
grep -vxF -e "$summary" <<<"$ktap_out" || true
read -r k_pass _ k_fail _ k_skip _ <<<"${summary:-none}"
[[ "$k_pass$k_fail$k_skip" =~ ^[0-9]+$ ]] ||
	die "ktap.py printed no summary on $log; run python3 harness/ktap.py $log"
[ "$kt_rc" -eq 0 ] || problems+=("KUnit results are not clean (see ktap.py above)")

echo "selftests: $st_pass passed, $st_fail failed, $st_skip skipped"
echo "$((k_pass + st_pass)) passed, $((k_fail + st_fail)) failed, $((k_skip + st_skip)) skipped"

[ ${#problems[@]} -eq 0 ] || {
	msg=$(printf '%s; ' "${problems[@]}")
	die "boot test failed: ${msg%; }; read $log around the lines above"
}
