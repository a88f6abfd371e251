#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run vttm's test programs with the vttm module loaded at sizes a test machine or a
# small virtual machine can hold, then unload it again. A vttm that is
# already loaded (built in, or loaded by a harness) is used as it is.
#
# Usage: vttm.sh [vram_size [gtt_size]]
#   sizes in bytes; 64 MiB of VRAM and 128 MiB of GTT by default.

ksft_skip=4
vram_size=${1:-67108864}
gtt_size=${2:-134217728}
loaded_here=

if [ ! -d /sys/module/vttm ]; then
	if ! modinfo vttm >/dev/null 2>&1; then
		echo "vttm.sh: no vttm module; is CONFIG_DRM_VTTM=m set?"
		exit $ksft_skip
	fi
	# The module is there: failing to load or probe is vttm's failure.
	if ! modprobe -q vttm vram_size="$vram_size" gtt_size="$gtt_size"; then
		echo "vttm.sh: vttm failed to load"
		exit 1
	fi
	loaded_here=1
fi

# The test programs, one per topic, as the Makefile builds them.
tests=
tests="$tests uapi_test"
tests="$tests eviction_test"
tests="$tests contention_test"
tests="$tests export_test"
tests="$tests dmem_test"
tests="$tests residency_test"
tests="$tests throttle_test"
tests="$tests window_test"

# A program that skips entirely is no failure; all of them skipping is a skip.
rc=0
passed=
out=${TMPDIR:-/tmp}/vttm.sh.$$
for t in $tests; do
	if [ ! -x "./$t" ]; then
		echo "vttm.sh: $t is missing"
		rc=1
		continue
	fi
	# A program whose every test skipped still exits 0: its totals say.
	"./$t" >"$out" 2>&1
	r=$?
	cat "$out"
	if [ $r -ne 0 ] && [ $r -ne $ksft_skip ]; then
		rc=1
	elif [ $r -eq 0 ] && ! grep -q '^# Totals: pass:0 ' "$out"; then
		passed=1
	fi
done
rm -f "$out"
[ $rc -ne 0 ] || [ -n "$passed" ] || rc=$ksft_skip

if [ -n "$loaded_here" ] && ! modprobe -q -r vttm; then
	echo "vttm.sh: cannot unload vttm"
	rc=1
fi
exit $rc
