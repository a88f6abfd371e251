#!/usr/bin/env bash
# Feed harness/boot-check.sh synthetic console logs and check its verdicts:
# a clean boot passes with the right summary, and each kind of breakage
# fails with a message naming it.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

check=$TOP/harness/boot-check.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# A clean console as the serial port prints it: printk timestamps, CR LF.
# KUnit: one suite, one pass and one skip. Selftests: one pass, one skip.
# Each argument 'after=<regex>:<text>' inserts <text> after the line
# matching <regex>; 'drop=<regex>' deletes matching lines.
mklog() {
	local out=$1
	shift
	cat >"$out" <<'EOF'
[    0.000000] Linux version 7.3.4 (root@host) #1 SMP
[    1.000000] KTAP version 1
[    1.000001] 1..1
[    1.000002]     KTAP version 1
[    1.000003]     # Subtest: ttm_device
[    1.000004]     # module: ttm_device_test
[    1.000005]     1..2
[    1.100000]     ok 1 ttm_device_init_basic
[    1.200000]     ok 2 ttm_device_init_pools # SKIP no dma
[    1.300000] # ttm_device: pass:1 fail:0 skip:1 total:2
[    1.300001] ok 1 ttm_device
[    2.000000] Run /init as init process
BOOT-INIT 7.3.4
BOOT-SELFTESTS n=2
BOOT-SELFTEST-START cgroup/test_a
ok 1 test_a
BOOT-SELFTEST cgroup/test_a rc=0
BOOT-SELFTEST-START cgroup/test_b
BOOT-SELFTEST cgroup/test_b rc=4
BOOT-DONE
[    9.000000] reboot: Restarting system
EOF
	local a re text
	for a in "$@"; do
		case $a in
		after=*) re=${a#after=}; text=${re#*:}; re=${re%%:*}
			 awk -v re="$re" -v t="$text" \
				'{print} $0 ~ re {n=split(t, l, "|"); for (i=1;i<=n;i++) print l[i]}' \
				"$out" >"$out.new" ;;
		drop=*)  grep -vE "${a#drop=}" "$out" >"$out.new" || true ;;
		esac
		mv "$out.new" "$out"
	done
	sed -i 's/$/\r/' "$out"
}

# expect <name> pass|fail <text the output must contain> [mklog args...]
expect() {
	local name=$1 want=$2 text=$3 got=pass
	shift 3
	mklog "$tmp/$name.log" "$@"
	bash "$check" "$tmp/$name.log" >"$tmp/$name.out" 2>&1 || got=fail
	if [ "$got" != "$want" ] || ! grep -qF -- "$text" "$tmp/$name.out"; then
		echo "FAIL $name: wanted $want with '$text', got $got:"
		sed 's/^/    /' "$tmp/$name.out"
		failures=$((failures + 1))
	else
		echo "ok   $name ($want)"
	fi
}

expect clean pass '2 passed, 0 failed, 2 skipped'
# The summary must be the last line, in exactly this form.
[ "$(tail -n1 "$tmp/clean.out")" = '2 passed, 0 failed, 2 skipped' ] || {
	echo "FAIL clean: the last line is not the summary"
	failures=$((failures + 1))
}
# A kselftest_harness program that passes with one test skipped inside:
# its tests count one by one, and the skip as a skip, not as a pass.
expect selftest-skips-inside pass '4 passed, 0 failed, 3 skipped' \
	'after=^ok 1 test_a:# Totals: pass:3 fail:0 xfail:0 xpass:0 skip:1 error:0'
expect panic fail 'splat line(s)' \
	'drop=BOOT-DONE|reboot:' \
	'after=test_a rc=0:[    5.0] Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b'
expect warning fail 'Call Trace:' \
	'after=ok 1 ttm_device_init_basic:[    1.1] ------------[ cut here ]------------|[    1.1] WARNING: CPU: 1 PID: 42 at drivers/gpu/drm/ttm/ttm_bo.c:123 ttm_bo_validate+0x10/0x20|[    1.1] Call Trace:|[    1.1]  <TASK>|[    1.1]  ttm_bo_validate+0x10/0x20|[    1.1]  </TASK>|[    1.1] ---[ end trace 0000000000000000 ]---'
expect lockdep fail 'inconsistent lock state' \
	'after=ok 1 ttm_device_init_basic:[    1.1] ================================|[    1.1] WARNING: inconsistent lock state|[    1.1] 7.3.4 #1 Not tainted|[    1.1] inconsistent {HARDIRQ-ON-W} -> {IN-HARDIRQ-W} usage.'
expect circular fail 'possible circular locking' \
	'after=ok 1 ttm_device_init_basic:[    1.1] ======================================================|[    1.1] WARNING: possible circular locking dependency detected'
expect kasan fail 'BUG: KASAN' \
	'after=ok 1 ttm_device_init_basic:[    1.1] BUG: KASAN: slab-use-after-free in ttm_bo_put+0x1/0x2'
expect no-done fail 'never printed BOOT-DONE' 'drop=BOOT-DONE|reboot:'
expect timeout fail 'BOOT-TIMEOUT' 'drop=BOOT-DONE|reboot:' \
	'after=BOOT-SELFTEST-START cgroup/test_b:BOOT-TIMEOUT after 600 s'
expect selftest-fails fail 'selftest cgroup/test_a failed with rc=1' \
	'drop=test_a rc=0' 'after=ok 1 test_a:BOOT-SELFTEST cgroup/test_a rc=1'
expect selftest-missing fail 'only 1 of 2 selftests' 'drop=test_b rc=4'
expect kunit-fails fail 'KUnit results are not clean' \
	'drop=ok 1 ttm_device_init_basic' \
	'after=1[.][.]2$:[    1.1]     not ok 1 ttm_device_init_basic'
expect kunit-missing fail 'no KTAP output found' 'drop=KTAP|1\.\.|ok |#'
expect init-error fail 'BOOT-ERROR' \
	'after=BOOT-INIT:BOOT-ERROR cannot mount tracefs on /sys/kernel/tracing'

[ "$failures" -eq 0 ] || die "$failures boot-check case(s) gave the wrong verdict; fix harness/boot-check.sh"
note "boot-check: all cases gave the expected verdict"
