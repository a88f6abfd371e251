#!/usr/bin/env bash
# Lockdep was on for a whole KUnit boot: the kernel was built with
# CONFIG_PROVE_LOCKING, and the log shows no lockdep report and no sign of
# lockdep going off (after which every later test runs without it).
# Usage: lockdep-check.sh <kernel .config> <console log>
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: $(basename "$0") <kernel .config> <console log>"
config=$1 log=$2
grep -qx 'CONFIG_PROVE_LOCKING=y' "$config" ||
	die "CONFIG_PROVE_LOCKING is off in $config; fix kunit-configs/00-debug.config"
off='turning off the locking correctness validator|lockdep is turned off'
off+='|DEBUG_LOCKS_WARN_ON|possible recursive locking|possible circular locking'
off+='|inconsistent lock state|MAX_LOCKDEP_[A-Z]* too low'
if line=$(grep -nE -m1 "$off" "$log"); then
	die "lockdep went off in $log at line ${line%%:*}, so the tests after it ran without it; run the module that did it in a boot of its own (kunit-configs/lockdep-off)"
fi
