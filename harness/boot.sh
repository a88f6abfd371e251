#!/usr/bin/env bash
# Boot test: build an x86_64 kernel (tinyconfig + harness/boot/x86_64.config)
# in $BUILD/boot, pack a busybox initramfs with harness/boot/init and the
# selftests named in harness/boot/selftests.list, boot it in qemu (TCG), and
# check the console with harness/boot-check.sh. The build directory is kept,
# so a re-run rebuilds incrementally.
# Environment: BOOT_TIMEOUT (seconds, default 600), BOOT_APPEND (extra
# kernel command line, e.g. kunit.filter_glob=ttm*), BOOT_LIST (another
# selftests list, as harness/bench.sh uses), BOOT_CHECK=0 (boot and keep
# the console log, without checking it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/boot
LOG=$BUILD/boot.log
FRAG=$TOP/harness/boot/x86_64.config
LIST=${BOOT_LIST:-$TOP/harness/boot/selftests.list}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-600}
# Skip (and report as skipped) the KUnit modules that switch lockdep off
# on the base, so that it stays on for ours; see kunit-configs/lockdep-off.
skip=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/kunit-configs/lockdep-off" |
	awk '{ printf "%smodule!=%s", (NR > 1 ? "," : ""), $1 }')
KUNIT_ARGS="kunit.filter=$skip kunit.filter_action=skip"
KMAKE=(make -C "$TREE" O="$OUT" ARCH=x86_64)

require_tree
bash "$TOP/harness/deps.sh"
[ -x /bin/busybox ] || die "/bin/busybox missing; run 'apt-get install busybox-static'"
mkdir -p "$OUT"

# Builds share the machine with other kernel builds: say so when we wait.
lock() {
	flock -n "$BUILD/.build-lock" true ||
		note "waiting for the kernel build lock $BUILD/.build-lock"
	build_locked "$@"
}

# The .config depends on the fragment and on the tree's Kconfig files
# (committed or not); regenerate it only when one of them changed.
config_key() {
	{
		cat "$FRAG"
		git -C "$TREE" rev-parse HEAD
		git -C "$TREE" diff HEAD -- '*Kconfig*' 'kernel/configs' 'arch/x86/configs'
	} | sha256sum | cut -d' ' -f1
}

gen_config() {
	note "generating $OUT/.config (tinyconfig + $(basename "$FRAG"))"
	lock "${KMAKE[@]}" -s tinyconfig
	# -m: merge only; olddefconfig then resolves the dependencies.
	(cd "$OUT" && "$TREE/scripts/kconfig/merge_config.sh" -m -O "$OUT" \
		"$OUT/.config" "$FRAG" >/dev/null)
	lock "${KMAKE[@]}" -s olddefconfig
	# A fragment value that olddefconfig changed means an unmet
	# dependency. ('is not set' also holds when the option is hidden.)
	local bad
	bad=$( { grep -E '^CONFIG_' "$FRAG" | grep -vxFf "$OUT/.config"
		sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/^\1=/p' "$FRAG" |
			grep -of - "$OUT/.config"; } || true)
	[ -z "$bad" ] || die "olddefconfig did not keep: $(echo "$bad" | paste -sd' ' -); fix their dependencies in $FRAG"
}

key=$(config_key)
if [ ! -f "$OUT/.config" ] || [ "$(cat "$OUT/.config-key" 2>/dev/null)" != "$key" ]; then
	rm -f "$OUT/.config-key"
	gen_config
	echo "$key" >"$OUT/.config-key"
fi

note "building $OUT/arch/x86/boot/bzImage (make -j$JOBS)"
# Time the build inside the lock, so the figure leaves out the wait.
# shellcheck disable=SC2016
lock bash -c 'SECONDS=0; "$@" && echo "==> kernel built in $SECONDS s"' _ \
	"${KMAKE[@]}" -s -j"$JOBS" bzImage modules headers ||
	die "kernel build failed; rerun '${KMAKE[*]} bzImage' to see the error"

# Selftests, statically linked with the host gcc through their own
# Makefiles (which know each test's extra sources), against the uapi
# headers of this tree. A list line is a path under the kernel tree:
# 'dir/prog' builds dir/prog.c; a script that exists as is gets copied.
root=$OUT/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,selftests}
: >"$root/selftests/list"
if [ -f "$LIST" ]; then
	while read -r path args; do
		case $path in ''|'#'*) continue ;; esac
		dir=$(dirname "$path") name=$(basename "$path")
		rel=${dir#tools/testing/selftests/}
		mkdir -p "$root/selftests/$rel" "$OUT/selftests/$rel"
		if [ -f "$TREE/$path.c" ]; then
			note "building selftest $path"
			make -s -C "$TREE/$dir" OUTPUT="$OUT/selftests/$rel" \
				KHDR_INCLUDES="-isystem $OUT/usr/include" \
				USERCFLAGS="-O2 -isystem $OUT/usr/include" \
				USERLDFLAGS=-static "$OUT/selftests/$rel/$name" ||
				die "selftest $path does not build statically; fix it or drop it from $LIST"
			cp "$OUT/selftests/$rel/$name" "$root/selftests/$rel/"
			# Data a test reads beside itself (vttm_bench's
			# scenarios) is a 'scenarios' directory there.
			if [ -d "$TREE/$dir/scenarios" ]; then
				cp -r "$TREE/$dir/scenarios" "$root/selftests/$rel/"
			fi
		elif [ -f "$TREE/$path" ]; then
			cp "$TREE/$path" "$root/selftests/$rel/"
		else
			die "selftest $path is not in $TREE (no $path.c or $path); fix $LIST"
		fi
		chmod 755 "$root/selftests/$rel/$name"
		echo "$rel/$name${args:+ $args}" >>"$root/selftests/list"
	done <"$LIST"
fi

# Busybox with all its applets as symlinks. The kernel's built-in default
# initramfs already provides /dev/console, which init needs for its stdio.
cp /bin/busybox "$root/bin/busybox"
for a in $(/bin/busybox --list-full); do
	[ -e "$root/$a" ] || ln -s /bin/busybox "$root/$a"
done
install -m 755 "$TOP/harness/boot/init" "$root/init"
# The modules the config builds (vttm), for /init to load.
mkdir -p "$root/lib/modules"
find "$OUT" -name '*.ko' -not -path "$root/*" -exec cp {} "$root/lib/modules/" \;
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$OUT/initramfs.cpio.gz"

note "booting in qemu (TCG, timeout ${BOOT_TIMEOUT} s), console in $LOG"
start=$(date +%s)
rc=0
timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -accel tcg -m 1G -smp 2 \
	-nographic -no-reboot \
	-kernel "$OUT/arch/x86/boot/bzImage" -initrd "$OUT/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 $KUNIT_ARGS ${BOOT_APPEND:-}" \
	</dev/null >"$LOG" 2>&1 || rc=$?
# timeout exits 124; mark it so the checker names the cause.
[ "$rc" -ne 124 ] || echo "BOOT-TIMEOUT after $BOOT_TIMEOUT s" >>"$LOG"
note "qemu exited with $rc after $(($(date +%s) - start)) s"

[ "${BOOT_CHECK:-1}" = 0 ] && exit 0
exec bash "$TOP/harness/boot-check.sh" "$LOG"
