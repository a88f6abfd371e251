#!/usr/bin/env bash
# Tests of the harness itself: each check must fail on the input it exists
# to catch, with a one-line error, and change nothing. Kernel builds are
# not repeated here; each checker is fed a small broken input instead.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

pass=0
failed=0
tmp=$(mktemp -d)
trap 'git -C "$TREE" worktree remove --force "$tmp/build/linux" 2>/dev/null || true; rm -rf "$tmp"' EXIT

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

# --- the base pin --------------------------------------------------------
before=$(dpkg-query -W -f='${Version}' "$BASE_PACKAGE" 2>/dev/null || true)
expect_fail "a wrong base version is refused" "BASE_VERSION" \
	env BASE_VERSION=0.0-bogus bash "$TOP/harness/base.sh"
after=$(dpkg-query -W -f='${Version}' "$BASE_PACKAGE" 2>/dev/null || true)
[ "$before" = "$after" ] && ok "a wrong base version changes nothing" ||
	not_ok "a wrong base version changed $BASE_PACKAGE"

# --- KTAP summaries ------------------------------------------------------
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

# --- checkpatch ----------------------------------------------------------
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
expect_fail "a checkpatch error fails" "not clean" \
	bash "$TOP/harness/checkpatch.sh" "$tmp/0001-bad.patch"

# --- the IGT patches -------------------------------------------------------
igt_case() {
	rm -rf "$tmp/igt" && cp -r "$TOP/igt-tests" "$tmp/igt"
	first=$(find "$tmp/igt" -name '0001-*.patch')
}
igt_check() { IGT_DIR=$tmp/igt bash "$TOP/harness/igt-check.sh"; }
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

# --- make tree refusals, on a throw-away worktree at base ------------------
proj=$tmp/proj
mkdir -p "$proj/series" "$tmp/build"
cp -r "$TOP/harness" "$proj/"
cp "$TOP/series/base" "$proj/series/"
git -C "$TREE" worktree add -q --detach "$tmp/build/linux" base
run_tree() { env BUILD="$tmp/build" bash "$proj/harness/tree.sh"; }

cp "$tmp/0001-bad.patch" "$proj/series/"
sed -i 's/^@@ -35,0 +36 @@$/@@ -35,0 +9999 @@/; s/^+int ttm_broken.*/+ttm_no_such_context();/' \
	"$proj/series/0001-bad.patch"
sed -i '/^+ttm_no_such_context/i\ no such line here' "$proj/series/0001-bad.patch"
expect_fail "a patch that does not apply is refused" "does not apply" run_tree
[ "$(git -C "$tmp/build/linux" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse base)" ] &&
	ok "a patch that does not apply changes nothing" ||
	not_ok "a patch that does not apply left commits behind"
rm "$proj/series/0001-bad.patch"

echo "/* local */" >>"$tmp/build/linux/drivers/gpu/drm/ttm/ttm_module.c"
expect_fail "uncommitted edits are refused" "uncommitted edits" run_tree
git -C "$tmp/build/linux" commit -q -a -m "local work"
head=$(git -C "$tmp/build/linux" rev-parse HEAD)
expect_fail "unexported commits are refused" "make export" run_tree
[ "$(git -C "$tmp/build/linux" rev-parse HEAD)" = "$head" ] &&
	ok "unexported commits are kept" || not_ok "unexported commits were lost"

# --- send-check ------------------------------------------------------------
# A series of a cover letter and two patches, and the dry run of sending it.
why="This paragraph says why the change is needed, what it does and what it costs, in enough words that a reviewer does not have to guess at the reason behind it, nor ask for the design or for what was measured before it was sent."
sob="Signed-off-by: $PROJECT_NAME <$PROJECT_EMAIL>"
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
		printf 'Dry-OK. Log says:\nTo: a@b\nSubject: [%s 0/2] cover\nMessage-Id: <c>\n\nResult: OK\n' "$1"
		printf 'Dry-OK. Log says:\nTo: a@b\nSubject: [%s 1/2] drm/ttm: one\nMessage-Id: <1>\nIn-Reply-To: <c>\nReferences: <c>\n\nResult: OK\n' "$1"
		printf 'Dry-OK. Log says:\nTo: a@b\nSubject: [%s 2/2] drm/ttm: two\nMessage-Id: <2>\nIn-Reply-To: %s\nReferences: %s\n\nResult: OK\n' "$1" "$2" "$2"
	} >"$tmp/send.log"
}
sendcheck() {
	python3 "$TOP/harness/sendcheck.py" "$tmp/send.log" "${MAX:-10}" \
		"$PROJECT_NAME <$PROJECT_EMAIL>" "$tmp/s0" "$tmp/s1" "$tmp/s2"
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

# --- the boot console checker -----------------------------------------------
if [ -f "$TOP/harness/tests/boot-check-test.sh" ]; then
	expect_pass "the boot console checker catches every failure" \
		bash "$TOP/harness/tests/boot-check-test.sh"
fi

echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
