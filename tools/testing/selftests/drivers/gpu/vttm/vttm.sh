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

# Every test program; one that skips entirely is no failure.
rc=0
for t in ./*_test; do
	"$t"
	r=$?
	[ $r -eq 0 ] || [ $r -eq $ksft_skip ] || rc=1
done

if [ -n "$loaded_here" ] && ! modprobe -q -r vttm; then
	echo "vttm.sh: cannot unload vttm"
	[ $rc -ne 0 ] || rc=1
fi
exit $rc
