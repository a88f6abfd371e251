#!/usr/bin/env bash
# Tests of the harness itself: each check must fail on the input it exists
# to catch, with a one-line error, and change nothing. Kernel builds are
# not repeated here; each checker is fed a small broken input instead.
# Everything runs in a scratch directory: a copy of the harness with series
# of its own, and a small kernel tree cut from the base tarball (the
# scripts, MAINTAINERS and TTM), so build/ is never read or written.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

pass=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }

# expect_fail NAME PATTERN CMD...: CMD fails and says PATTERN in one line.
expect_fail() {
	local name=$1 pattern=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		not_ok "$name: succeeded"
	elif ! grep -q -- "$pattern" <<<"$out"; then
		not_ok "$name: no '$pattern' in: $(tail -1 <<<"$out")"
	else
		ok "$name"
	fi
}

expect_pass() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$name"; else not_ok "$name: failed"; fi
}

# check NAME CMD...: CMD, a test of state, holds.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# --- the base pin -----------------------------------------------------------
apt_files=(/etc/apt/sources.list.d/ttm-overcommit-base.sources
	   /etc/apt/preferences.d/ttm-overcommit-base)
installed() {
	dpkg-query -W -f='${Version} ' "$BASE_PACKAGE" "$DEB_CONFIG_PACKAGE" 2>/dev/null || true
	stat -c '%y %n' "${apt_files[@]}" 2>/dev/null || true
}
before=$(installed)
expect_fail "a wrong base version is refused" "BASE_VERSION" \
	env BASE_VERSION=0.0-bogus bash "$TOP/harness/base.sh"
[ "$before" = "$(installed)" ] && ok "a wrong base version changes nothing" ||
	not_ok "a wrong base version changed $BASE_PACKAGE, $DEB_CONFIG_PACKAGE or the apt source"
expect_pass "the base, Debian's config and the apt source are as pinned" \
	bash "$TOP/harness/base.sh"
[ "$before" = "$(installed)" ] && ok "a second make base changes nothing" ||
	not_ok "make base rewrote the apt source or reinstalled a package"
symvers() { env BUILD="$tmp/build" bash -c '. "$0"; deb_symvers && deb_symvers && [ -s "$DEB_SYMVERS" ]' \
	"$TOP/harness/lib.sh"; }
expect_pass "deb_symvers unpacks Debian's Module.symvers of the base" symvers

# --- KTAP summaries ---------------------------------------------------------
ktap() { python3 "$TOP/harness/ktap.py" "$@"; }
printf '%s\n' 'KTAP version 1' '1..1' '    KTAP version 1' '    # Subtest: s' \
	'    1..2' '    ok 1 a' '    ok 2 b # SKIP no hw' 'ok 1 s' >"$tmp/good.ktap"
expect_pass "passing KTAP passes" ktap "$tmp/good.ktap"
[ "$(ktap "$tmp/good.ktap" | tail -1)" = "1 passed, 0 failed, 1 skipped" ] &&
	ok "a skip is counted as skipped" || not_ok "a skip is not counted as skipped"
sed 's/    ok 1 a/    not ok 1 a/; s/^ok 1 s/not ok 1 s/' "$tmp/good.ktap" >"$tmp/fail.ktap"
expect_fail "a failing test fails" "1 failed" ktap "$tmp/fail.ktap"
head -6 "$tmp/good.ktap" >"$tmp/crash.ktap"
expect_fail "a crash inside a suite fails" "did not finish" ktap "$tmp/crash.ktap"
echo "s 3" >"$tmp/expect"
expect_fail "fewer tests than declared fails" "declares 3" \
	ktap --expect "$tmp/expect" "$tmp/good.ktap"

printf '%s\n' 'KTAP version 1' '1..1' '    KTAP version 1' '    # Subtest: s' \
	'    1..2' '    ok 1 a' '        KTAP version 1' '        # Subtest: b' \
	'        1..2' '        ok 1 p' '        not ok 2 q' '    not ok 2 b' \
	'not ok 1 s' >"$tmp/known.ktap"
echo "s b  # fails on the base" >"$tmp/known"
expect_pass "a failure listed in known-failures is not counted as failed" \
	ktap --known-failures "$tmp/known" "$tmp/known.ktap"
echo "s a  # another case" >"$tmp/known-other"
expect_fail "a failure not listed in known-failures fails" "1 failed" \
	ktap --known-failures "$tmp/known-other" "$tmp/known.ktap"

# --- lockdep stays on -------------------------------------------------------
lockdep() { bash "$TOP/harness/lockdep-check.sh" "$@"; }
echo 'CONFIG_PROVE_LOCKING=y' >"$tmp/lockdep.config"
echo '# CONFIG_PROVE_LOCKING is not set' >"$tmp/nolockdep.config"
cp "$tmp/good.ktap" "$tmp/lockdep-good.log"
expect_pass "a boot with lockdep on passes" lockdep "$tmp/lockdep.config" "$tmp/lockdep-good.log"
expect_fail "a kernel without lockdep fails" "PROVE_LOCKING is off" \
	lockdep "$tmp/nolockdep.config" "$tmp/lockdep-good.log"
for report in 'DEBUG_LOCKS_WARN_ON(__owner_task(owner) != get_current())' \
	      'WARNING: possible recursive locking detected' \
	      'WARNING: possible circular locking dependency detected' \
	      'turning off the locking correctness validator.'; do
	{ head -5 "$tmp/good.ktap"; echo "$report"; tail -3 "$tmp/good.ktap"; } >"$tmp/lockdep-off.log"
	expect_fail "lockdep going off fails: $report" "lockdep went off" \
		lockdep "$tmp/lockdep.config" "$tmp/lockdep-off.log"
done

# --- the order of the series ------------------------------------------------
order=$tmp/order
mkdir -p "$order/harness" "$order/series/notes"
cp "$TOP/harness/lib.sh" "$order/harness/"
cp "$TOP/series/base" "$order/series/"
for d in 10-c 2-b 1-a; do
	mkdir "$order/series/$d"
	touch "$order/series/$d/0000-cover-letter.patch" "$order/series/$d/0001-$d.patch" \
		"$order/series/$d/0002-$d.patch"
done
in_order() { bash -c '. "$0"; "$@" | sed "s|^$TOP/series/||" | paste -sd " " -' \
	"$order/harness/lib.sh" "$@"; }
check "series are taken in the order of their number" \
	[ "$(in_order series_dirs)" = "1-a 2-b 10-c" ]
check "series_patches lists every series' patches in order, without cover letters" \
	[ "$(in_order series_patches)" = "1-a/0001-1-a.patch 1-a/0002-1-a.patch 2-b/0001-2-b.patch 2-b/0002-2-b.patch 10-c/0001-10-c.patch 10-c/0002-10-c.patch" ]
check "series_patches DIR lists the patches of one series" \
	[ "$(in_order series_patches "$order/series/2-b")" = "2-b/0001-2-b.patch 2-b/0002-2-b.patch" ]

# --- a scratch project and kernel tree --------------------------------------
# proj: this harness with series/ of its own. build/linux: the files of the
# base that checkpatch.pl and get_maintainer.pl need, and TTM, committed and
# tagged 'base' as tree.sh does; the directories they look for, empty.
[ -f "$BASE_TARBALL" ] || die "no $BASE_TARBALL; run 'make base'"
proj=$tmp/proj
mkdir -p "$proj/series" "$tmp/build/linux"
cp -r "$TOP/harness" "$proj/"
cp "$TOP/series/base" "$proj/series/"
kernel=$tmp/build/linux
tar -C "$kernel" --strip-components=1 -xf "$BASE_TARBALL" \
	"$BASE_PACKAGE"/{COPYING,CREDITS,Kbuild,MAINTAINERS,Makefile,README,LICENSES,scripts} \
	"$BASE_PACKAGE"/drivers/gpu/drm/ttm "$BASE_PACKAGE"/include/drm/ttm
mkdir -p "$kernel"/{Documentation,arch,fs,init,ipc,kernel,lib}
git -C "$kernel" init -q -b master
git -C "$kernel" add -A
# Fixed dates, as tree.sh's: a tree rebuilt from series/ has the same hashes.
commit() { GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE git -C "$kernel" commit -q "$@"; }
commit -m "scratch base"
git -C "$kernel" tag base

why="This paragraph says why the change is needed, what it does and what it costs, in enough words that a reviewer does not have to guess at the reason behind it, nor ask for the design or for what was measured before it was sent."
wrapped=$(fold -s -w 72 <<<"$why" | sed 's/ *$//')
# change N: a commit that is clean, signed off and says why.
change() {
	sed -i "/^ \* TODO: Add more design/a\\ * Scratch change $1." \
		"$kernel/drivers/gpu/drm/ttm/ttm_module.c"
	commit -a -s -m "drm/ttm: scratch change $1" -m "$wrapped"
}
change 1
change 2
change 3
git -C "$kernel" branch series/1-one HEAD~1
git -C "$kernel" branch series/2-two HEAD

# run SCRIPT ARG...: a script of the scratch harness on the scratch tree.
run() {
	local script=$1
	shift
	env BUILD="$tmp/build" bash "$proj/harness/$script" "$@"
}
cover1=$proj/series/1-one/0000-cover-letter.patch
cover2=$proj/series/2-two/0000-cover-letter.patch

# --- make export ------------------------------------------------------------
expect_pass "export writes the series" run export.sh
check "export writes one folder per series branch" \
	[ "$(cd "$proj/series" && ls -d [0-9]*/*.patch | paste -sd ' ' -)" = "1-one/0000-cover-letter.patch 1-one/0001-drm-ttm-scratch-change-1.patch 1-one/0002-drm-ttm-scratch-change-2.patch 2-two/0000-cover-letter.patch 2-two/0001-drm-ttm-scratch-change-3.patch" ]
check "each cover letter names the base commit" \
	[ "$(grep -h '^base-commit: ' "$cover1" "$cover2" | sort -u)" = "base-commit: $(git -C "$kernel" rev-parse base)" ]
check "a later series names the patches of the series before it" \
	[ "$(grep -c '^prerequisite-patch-id: ' "$cover1" "$cover2" | paste -sd ' ' -)" = "$cover1:0 $cover2:2" ]
check "each series is numbered on its own" \
	grep -q '^Subject: \[PATCH 1/1\] drm/ttm: scratch change 3' "$proj/series/2-two/0001-drm-ttm-scratch-change-3.patch"
check "two cover letters have two Message-Ids" \
	[ "$(grep -h '^Message-Id: ' "$cover1" "$cover2" | sort -u | wc -l)" = 2 ]
for c in "$cover1" "$cover2"; do
	n=$(basename "$(dirname "$c")")
	sed -i "s/\*\*\* SUBJECT HERE \*\*\*/drm\/ttm: the scratch series $n/; s/^\*\*\* BLURB HERE \*\*\*$/Scratch text of $n./" "$c"
done
expect_pass "export again" run export.sh
check "export keeps each cover letter's subject and text" \
	grep -q '^Scratch text of 2-two\.$' "$cover2"

cp -a "$proj/series" "$tmp/series.exported"
unchanged() { diff -r "$tmp/series.exported" "$proj/series" >/dev/null; }
sed -i '/^ \* Scratch change 3\./a\ * Scratch change 4.' "$kernel/drivers/gpu/drm/ttm/ttm_module.c"
commit -a -s -m "drm/ttm: scratch change 4" -m "$wrapped"
expect_fail "export refuses when the last series branch is not HEAD" \
	"branch -f series/2-two HEAD" run export.sh
check "an export refused changes nothing" unchanged
expect_fail "tree refuses unexported commits" "make export" run tree.sh
git -C "$kernel" reset -q --hard series/2-two

# --- send-check -------------------------------------------------------------
expect_pass "two series ready to send pass" run send-check.sh
logs() { [ -s "$tmp/build/send-email-1-one.log" ] && [ -s "$tmp/build/send-email-2-two.log" ]; }
check "send-check renders each series into a log of its own" logs
check "send-check writes the maintainers of TTM into each cover letter" \
	grep -q '^To: Christian Koenig' "$cover1" "$cover2"
cp -a "$proj/series" "$tmp/series.sent"
restore() { rm -rf "$proj/series" && cp -a "$tmp/series.sent" "$proj/series"; }
sed -i 's/^Scratch text of 2-two\.$/&\n\nChanges in v2:\n- none/' "$cover2"
expect_fail "a series whose cover letter is at v2, sent as v1, fails" \
	"series/2-two is not ready to send" run send-check.sh
restore
sed -i '0,/^prerequisite-patch-id: /{/^prerequisite-patch-id: /d}' "$cover2"
expect_fail "a cover letter that misses a prerequisite fails" \
	"prerequisite-patch-id" run send-check.sh
restore
sed -i "s/^base-commit: .*/base-commit: $(printf '%040d' 0)/" "$cover1"
expect_fail "a cover letter on another base fails" "base-commit" run send-check.sh
restore
sed -i 's/^Subject: \[PATCH 0\/1\] .*/Subject: [PATCH 0\/1] *** SUBJECT HERE ***/' "$cover2"
expect_fail "a cover letter with git's template subject fails" "template" run send-check.sh
restore

# --- make tree, on a second tree built from the series ----------------------
second=$tmp/build2/linux
git clone -q "$kernel" "$second"
git -C "$second" reset -q --hard base
run2() {
	local script=$1
	shift
	env BUILD="$tmp/build2" bash "$proj/harness/$script" "$@"
}
expect_pass "tree applies every series to the base" run2 tree.sh
same_as_first() {
	local r
	for r in HEAD series/1-one series/2-two; do
		[ "$(git -C "$second" rev-parse "$r")" = "$(git -C "$kernel" rev-parse "$r")" ] || return 1
	done
	[ "$(git -C "$second" symbolic-ref --short HEAD)" = master ]
}
check "tree puts each series branch where export found it, master checked out" same_as_first
expect_pass "export from the rebuilt tree" run2 export.sh
check "export of the rebuilt tree changes no more than Message-Ids" \
	diff -r -I '^Message-Id: ' -I '^In-Reply-To: ' -I '^References: ' \
	"$tmp/series.sent" "$proj/series"
restore

mkdir "$proj/series/3-bad"
cat >"$proj/series/3-bad/0001-bad.patch" <<PATCH
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: $PROJECT_NAME <$PROJECT_EMAIL>
Subject: [PATCH] drm/ttm: a patch that does not apply

Signed-off-by: $PROJECT_NAME <$PROJECT_EMAIL>
---
diff --git a/drivers/gpu/drm/ttm/ttm_module.c b/drivers/gpu/drm/ttm/ttm_module.c
--- a/drivers/gpu/drm/ttm/ttm_module.c
+++ b/drivers/gpu/drm/ttm/ttm_module.c
@@ -9999,1 +9999,2 @@
 no such line here
+ttm_no_such_context();
PATCH
head=$(git -C "$second" rev-parse HEAD)
expect_fail "a patch that does not apply is refused" "3-bad/0001-bad.patch does not apply" run2 tree.sh
[ "$(git -C "$second" rev-parse HEAD)" = "$head" ] &&
	ok "a patch that does not apply changes nothing" ||
	not_ok "a patch that does not apply left commits behind"
rm -r "$proj/series/3-bad"

echo "/* local */" >>"$second/drivers/gpu/drm/ttm/ttm_module.c"
expect_fail "uncommitted edits are refused" "uncommitted edits" run2 tree.sh
git -C "$second" commit -q -a -m "local work"
head=$(git -C "$second" rev-parse HEAD)
expect_fail "unexported commits are refused" "make export" run2 tree.sh
[ "$(git -C "$second" rev-parse HEAD)" = "$head" ] &&
	ok "unexported commits are kept" || not_ok "unexported commits were lost"
expect_pass "FORCE=1 resets the tree to series/" env FORCE=1 BUILD="$tmp/build2" \
	bash "$proj/harness/tree.sh"
check "FORCE=1 leaves the tree as series/ says" same_as_first
git -C "$second" branch series/3-new HEAD~1
expect_fail "a series branch that is not in series/ is refused" "series/3-new" run2 tree.sh
git -C "$second" branch -D -q series/3-new
git -C "$second" branch -f series/1-one HEAD~2
expect_fail "a series branch moved and not exported is refused" "series/1-one" run2 tree.sh
expect_pass "FORCE=1 puts the branches back" env FORCE=1 BUILD="$tmp/build2" \
	bash "$proj/harness/tree.sh"
check "FORCE=1 leaves the branches as series/ says" same_as_first

# --- checkpatch -------------------------------------------------------------
checkpatch() { run checkpatch.sh "$@"; }
expect_pass "checkpatch passes the clean series" checkpatch
cat >"$tmp/0001-bad.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: ttm-overcommit <ttm-overcommit@lists.invalid>
Subject: [PATCH] drm/ttm: a broken patch

Signed-off-by: ttm-overcommit <ttm-overcommit@lists.invalid>
---
 drivers/gpu/drm/ttm/ttm_module.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/drivers/gpu/drm/ttm/ttm_module.c b/drivers/gpu/drm/ttm/ttm_module.c
--- a/drivers/gpu/drm/ttm/ttm_module.c
+++ b/drivers/gpu/drm/ttm/ttm_module.c
@@ -35,0 +36 @@
+int ttm_broken( void ) { return 0 ;}
PATCH
expect_fail "a checkpatch error fails" "not clean" checkpatch "$tmp/0001-bad.patch"
mkdir "$proj/series/3-bad"
cp "$tmp/0001-bad.patch" "$proj/series/3-bad/"
expect_fail "checkpatch checks the patches of every series" "0001-bad.patch is not clean" checkpatch
rm -r "$proj/series/3-bad"

# --- the IGT patches --------------------------------------------------------
igt_check() { env BUILD="$tmp/build" IGT_DIR="$tmp/igt" bash "$proj/harness/igt-check.sh"; }
expect_pass "no igt-tests/ is no failure" igt_check
# A small IGT series: one library file, as igt-dev would get it.
igt=$tmp/igt-src
mkdir -p "$igt/lib"
git -C "$igt" init -q -b master
printf '%s\n' '// SPDX-License-Identifier: MIT' '/*' ' * Copyright 2026 ttm-overcommit' ' */' '' \
	'#include <stdint.h>' '' '#include "igt_scratch.h"' '' \
	'uint64_t igt_scratch_double(uint64_t size)' '{' '	return size * 2;' '}' >"$igt/lib/igt_scratch.c"
git -C "$igt" add -A
GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE git -C "$igt" commit -q -s \
	-m "lib/igt_scratch: double a size" -m "$wrapped"
igt_case() {
	rm -rf "$tmp/igt"
	git -C "$igt" format-patch -q --cover-letter --subject-prefix='PATCH i-g-t' \
		-o "$tmp/igt" --root HEAD
	printf '%040d\n' 0 >"$tmp/igt/base"
	first=$(find "$tmp/igt" -name '0001-*.patch')
}
igt_case
expect_pass "the IGT patches pass" igt_check
igt_case
sed -i '/^Signed-off-by:/d' "$first"
expect_fail "an IGT patch without Signed-off-by fails" "no Signed-off-by" igt_check
igt_case
sed -i 's/^Subject: \[PATCH i-g-t /Subject: [PATCH /' "$first"
expect_fail "an IGT patch without the i-g-t prefix fails" "subject is not" igt_check
igt_case
sed -i '0,/^+#include \(.*\)$/s//+#include \1 /' "$first"
expect_fail "an IGT patch checkpatch flags fails" "checkpatch is not clean" igt_check

# --- the mails of one series (sendcheck.py) ---------------------------------
# A series of a cover letter and two patches, and the dry run of sending it.
why="This paragraph says why the change is needed, what it does and what it costs, in enough words that a reviewer does not have to guess at the reason behind it, nor ask for the design or for what was measured before it was sent."
sender="Jane Sender <jane@example.org>"
sob="Signed-off-by: $sender"
mkpatch() { # FILE SUBJECT BODY [LINES]
	{
		printf 'From: x\nSubject: %s\n\n%s\n\n---\ndiff --git a/f b/f\n' "$2" "$3"
		for _ in $(seq "${4:-3}"); do echo "+line"; done
	} >"$1"
}
mkseries() { # VERSION-TAG PATCH1-BODY
	printf 'Subject: [%s 0/2] cover\n\ntext\n%s\n' "$1" "${3:-}" >"$tmp/s0"
	mkpatch "$tmp/s1" "[$1 1/2] drm/ttm: one" "$2"
	mkpatch "$tmp/s2" "[$1 2/2] drm/ttm: two" "$why

$sob"
}
mklog() { # VERSION-TAG IN-REPLY-TO-OF-MAIL-2
	{
		printf 'Dry-OK. Log says:\nFrom: %s\nTo: a@b\nSubject: [%s 0/2] cover\nMessage-Id: <c>\n\nResult: OK\n' "$sender" "$1"
		printf 'Dry-OK. Log says:\nFrom: %s\nTo: a@b\nSubject: [%s 1/2] drm/ttm: one\nMessage-Id: <1>\nIn-Reply-To: <c>\nReferences: <c>\n\nResult: OK\n' "$sender" "$1"
		printf 'Dry-OK. Log says:\nFrom: %s\nTo: a@b\nSubject: [%s 2/2] drm/ttm: two\nMessage-Id: <2>\nIn-Reply-To: %s\nReferences: %s\n\nResult: OK\n' "$sender" "$1" "$2" "$2"
	} >"$tmp/send.log"
}
sendcheck() {
	python3 "$TOP/harness/sendcheck.py" --placeholder="$PROJECT_EMAIL" \
		"$tmp/send.log" "${MAX:-10}" "$sender" "$tmp/s0" "$tmp/s1" "$tmp/s2"
}
mkseries PATCH "$why

$sob"
mklog PATCH "<c>"
expect_pass "a series ready to send passes" sendcheck
mkseries PATCH "$why"
expect_fail "a patch without Signed-off-by fails" "no Signed-off-by" sendcheck
mkseries PATCH "Fix it.

$sob"
expect_fail "a message that does not say why fails" "does not say why" sendcheck
mkseries PATCH "$why

$sob"
mklog PATCH "<1>"
expect_fail "a patch threaded under another fails" "not threaded" sendcheck
mkseries PATCH "$why

$sob" "Changes in v2:"
mklog PATCH "<c>"
expect_fail "a v2 sent without its version fails" "does not start with" sendcheck
mkseries PATCH "$why

$sob"
mkpatch "$tmp/s1" "[PATCH 1/2] drm/ttm: one" "$why

$sob" 20
expect_fail "a large patch that does not say why fails" "how many lines" sendcheck
mkpatch "$tmp/s1" "[PATCH 1/2] drm/ttm: one" "$why It is 20 lines because it must be.

$sob" 20
expect_pass "a large patch that says why passes" sendcheck
mkseries PATCH "$why

$sob

Signed-off-by: $PROJECT_NAME <$PROJECT_EMAIL>"
expect_fail "a patch whose last Signed-off-by is not the sender's fails" "as the last one" sendcheck
mkseries PATCH "$why

Signed-off-by: $PROJECT_NAME <$PROJECT_EMAIL>
$sob"
expect_fail "a patch still signed off by the placeholder fails" "placeholder" sendcheck
mkseries PATCH "$why

$sob"
sed -i "s/^From: .*/From: $PROJECT_NAME <$PROJECT_EMAIL>/" "$tmp/send.log"
expect_fail "a mail from anyone but the sender fails" "not the sender" sendcheck

# --- the lab ----------------------------------------------------------------
# A commit after the last series, on branch lab: export writes it to
# lab/patches/ and its file to lab/'s view, never to a series; send-check
# does not mail it; tree applies it after the series.
git -C "$kernel" checkout -q master
git -C "$kernel" reset -q --hard series/2-two
sed -i '/^ \* Scratch change 3\./a\ * Scratch lab change.' "$kernel/drivers/gpu/drm/ttm/ttm_module.c"
commit -a -s -m "drm/ttm: scratch lab change" -m "$wrapped"
git -C "$kernel" branch lab HEAD
expect_pass "export writes the lab" run export.sh
check "the lab's commit is in lab/patches/ and in no series" \
	eval '[ "$(ls "$proj/lab/patches")" = 0001-drm-ttm-scratch-lab-change.patch ] &&
	      ! grep -rq "scratch lab change" "$proj/series"'
check "the lab's view is under lab/, the series' view without it" \
	eval 'grep -q "Scratch lab change" "$proj/lab/drivers/gpu/drm/ttm/ttm_module.c" &&
	      ! grep -q "Scratch lab change" "$proj/drivers/gpu/drm/ttm/ttm_module.c"'
expect_pass "the views match the tree with a lab" run view.sh check
expect_pass "send-check passes with a lab" run send-check.sh
check "send-check mails no lab patch" \
	eval '! grep -rq "scratch lab change" "$tmp/build/mail"'
cp "$proj/lab/patches/0001-drm-ttm-scratch-lab-change.patch" \
	"$proj/series/2-two/0002-drm-ttm-scratch-lab-change.patch"
expect_fail "a lab patch put into a series is refused" \
	"a lab patch is among the mails" run send-check.sh
rm "$proj/series/2-two/0002-drm-ttm-scratch-lab-change.patch"
expect_pass "tree applies the lab after the series" run2 tree.sh
check "tree puts branch lab at HEAD, where export found it" \
	eval '[ "$(git -C "$second" rev-parse lab HEAD | sort -u)" = "$(git -C "$kernel" rev-parse lab)" ] &&
	      [ "$(git -C "$second" rev-parse series/2-two)" = "$(git -C "$kernel" rev-parse series/2-two)" ]'
git -C "$kernel" branch -f lab series/2-two
expect_fail "export refuses a lab that is not HEAD" "branch -f lab HEAD" run export.sh

# --- the sender's identity (send-check, make send) -------------------------
if [ -f "$TOP/harness/tests/send-identity-test.sh" ]; then
	expect_pass "the sender's identity signs the mails, the placeholder never" \
		bash "$TOP/harness/tests/send-identity-test.sh"
fi

# --- the boot console checker -----------------------------------------------
if [ -f "$TOP/harness/tests/boot-check-test.sh" ]; then
	expect_pass "the boot console checker catches every failure" \
		bash "$TOP/harness/tests/boot-check-test.sh"
fi

echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
