#!/usr/bin/env bash
# make check: tree, kunit, verify, distro-check, send-check, boot and the harness' own
# tests, in that order, stopping at the first failure. Ends with the time
# taken and one line that adds up the tests of every step.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
sums=$(mktemp)
trap 'rm -f "$sums"' EXIT

for step in tree kunit verify distro-check send-check boot harness-test; do
	note "make $step"
	mkdir -p "$BUILD"
	make --no-print-directory -C "$TOP" "$step" 2>&1 | tee "$BUILD/check-$step.log" ||
		die "make $step failed; its output is in $BUILD/check-$step.log"
	grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' \
		"$BUILD/check-$step.log" | tail -n1 >>"$sums" || true
done

note "make check passed in $(( $(date +%s) - start )) s"
awk '{ p += $1; f += $3; s += $5 }
     END { printf "check: %d passed, %d failed, %d skipped\n", p, f, s }' "$sums"
