#!/usr/bin/env bash
# The sender's identity signs the mails: send-check and send refuse the
# project's placeholder and an unset identity in one line that says what to
# set, make send refuses CI, and a real identity ends up as the From: and
# the last Signed-off-by: of every mail they generate, with series/ and the
# tree left as they were. A scratch project: a copy of this harness, a tiny
# kernel tree (a stub get_maintainer.pl, no base tarball) with two series
# exported from it, a README.md with a send order, and HOME and git's
# global config in a temporary directory. Nothing is sent: make send runs
# without SEND=yes, and git send-email's only transport is a script that
# records any mail handed to it, which must stay unused.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

tmp=$(mktemp -d)
[ -z "${KEEP:-}" ] || echo "scratch: $tmp"
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
failures=0
ok() { echo "ok - $*"; }
not_ok() { failures=$((failures + 1)); echo "not ok - $*"; }

# Your git identity, and only that: none of the machine's configuration.
export HOME=$tmp/home GIT_CONFIG_GLOBAL=$tmp/home/.gitconfig GIT_CONFIG_NOSYSTEM=1
unset CI SEND GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT
mkdir -p "$HOME"
printf '#!/bin/sh\ncat >>"%s"\nexit 1\n' "$tmp/handed-to-mailer" >"$tmp/no-mailer"
chmod +x "$tmp/no-mailer"
identity() { # NAME EMAIL: the global identity; none if both are empty
	: >"$GIT_CONFIG_GLOBAL"
	git config --global sendemail.smtpServer "$tmp/no-mailer"
	[ -z "$1" ] || git config --global user.name "$1"
	[ -z "$2" ] || git config --global user.email "$2"
}
identity "" ""

# The scratch project and its kernel tree, as run.sh builds them, smaller.
proj=$tmp/proj
kernel=$tmp/build/linux
mkdir -p "$proj/series" "$kernel/scripts" "$kernel/drivers/gpu/drm/ttm"
cp -r "$TOP/harness" "$proj/"
cp "$TOP/series/base" "$proj/series/"
cat >"$kernel/scripts/get_maintainer.pl" <<'PL'
# A stub: one maintainer, one list.
my %a = map { $_ => 1 } @ARGV;
print "Ann Maintainer <ann\@example.org>\n" if $a{'--m'};
print "ttm-overcommit <ttm-overcommit\@lists.invalid>\n" if $a{'--m'};
print "dri-devel\@example.org\n" if $a{'--l'};
PL
echo "int ttm_scratch;" >"$kernel/drivers/gpu/drm/ttm/ttm_scratch.c"
git -C "$kernel" init -q -b master
git -C "$kernel" add -A
commit() { GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE git -C "$kernel" commit -q "$@"; }
commit -m "scratch base"
git -C "$kernel" tag base
why="This paragraph says why the change is needed, what it does and what it costs, in enough words that a reviewer does not have to guess at the reason behind it, nor ask for the design or for what was measured before it was sent."
wrapped=$(fold -s -w 72 <<<"$why" | sed 's/ *$//')
change() { # N SUBJECT [TRAILER...]: a clean commit signed off by the placeholder
	local n=$1 subject=$2
	shift 2
	echo "int ttm_scratch_$n;" >>"$kernel/drivers/gpu/drm/ttm/ttm_scratch.c"
	commit -a -s -m "$subject" -m "$wrapped" ${1:+-m "$(printf '%s\n' "$@")"}
}
change 1 "drm/ttm: a scratch fix" 'Fixes: 0123456789ab ("drm/ttm: scratch")' \
	"Cc: stable@vger.kernel.org"
change 2 "drm/ttm: scratch change 2"
git -C "$kernel" branch series/1-one HEAD
change 3 "drm/ttm: scratch change 3"
git -C "$kernel" branch series/2-two HEAD
run() { # SCRIPT: a script of the scratch harness, stdin closed
	env BUILD="$tmp/build" bash "$proj/harness/$1" </dev/null
}
run export.sh >/dev/null
for c in "$proj"/series/[12]-*/0000-cover-letter.patch; do
	sed -i 's/\*\*\* SUBJECT HERE \*\*\*/drm\/ttm: a scratch series/; s/^\*\*\* BLURB HERE \*\*\*$/Scratch text./' "$c"
done
cat >"$proj/README.md" <<'MD'
# scratch

## Sending

```send-order
1-one 1 drm/ttm: a scratch fix
1-one
2-two
```

## After
MD

# expect NAME STATUS PATTERN CMD...: CMD exits with STATUS (0 or 1) and
# prints PATTERN; a failure says it in its last line, which is one line.
expect() {
	local name=$1 status=$2 pattern=$3 out rc=0
	shift 3
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" -ne "$status" ]; then
		not_ok "$name: exit status $rc: $(tail -1 <<<"$out")"
	elif ! grep -q -- "$pattern" <<<"$out"; then
		not_ok "$name: no '$pattern' in: $(tail -1 <<<"$out")"
	elif [ "$status" -ne 0 ] && ! tail -1 <<<"$out" | grep -q -- "$pattern"; then
		not_ok "$name: '$pattern' is not the last line: $(tail -1 <<<"$out")"
	else
		ok "$name"
	fi
}
check() { # NAME CMD...: CMD, a test of state, holds
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

mails=$tmp/build/mail
# signed_by IDENTITY: every mail of both series is from IDENTITY, every patch
# has its Signed-off-by last, and no From: or Signed-off-by: of the
# placeholder is left in them or in the dry runs.
signed_by() {
	local f
	for f in "$mails"/[12]-*/*.patch; do
		grep -qxF "From: $1" "$f" || return 1
		case $f in */0000-*) continue ;; esac
		[ "$(grep '^Signed-off-by: ' "$f" | tail -1)" = "Signed-off-by: $1" ] || return 1
	done
	! grep -h '^\(From\|Signed-off-by\): ' "$mails"/[12]-*/*.patch "$tmp"/build/send-email-*.log |
		grep -qF "$PROJECT_EMAIL" &&
		[ "$(grep -h '^From: ' "$tmp"/build/send-email-*.log | sort -u)" = "From: $1" ]
}

# --- no identity ----------------------------------------------------------
expect "make send refuses an unset identity" 1 \
	"user.name/user.email is not set; set your own: git config --global" run send.sh
expect "send-check without an identity checks with the test identity, and says so" 0 \
	"no git identity set: mails signed by the test identity $TEST_SENDER" run send-check.sh
check "without an identity the mails are the test identity's" signed_by "$TEST_SENDER"
git config --global user.email jane@example.org
expect "half an identity is refused" 1 "user.name/user.email is not set" run send-check.sh

# --- the placeholder ------------------------------------------------------
identity "$PROJECT_NAME" "$PROJECT_EMAIL"
expect "make send refuses the placeholder" 1 \
	"is the project's placeholder ($PROJECT_EMAIL); set your own: git config --global user.email" \
	run send.sh
expect "send-check refuses the placeholder" 1 "is the project's placeholder" run send-check.sh
identity "Jane Sender" "$PROJECT_EMAIL"
expect "the placeholder's address under another name is refused" 1 "placeholder" run send.sh

# --- CI -------------------------------------------------------------------
expect "send-check in CI checks with the test identity, and says so" 0 \
	"CI: mails signed by the test identity" env CI=true BUILD="$tmp/build" \
	bash "$proj/harness/send-check.sh"
identity "Jane Sender" jane@example.org
expect "make send refuses to run in CI" 1 "never runs in CI" env CI=true SEND=yes \
	BUILD="$tmp/build" bash "$proj/harness/send.sh"
identity "Test Sender" sender@example.invalid
expect "make send refuses the test identity" 1 ".invalid address" run send.sh

# --- a real identity ------------------------------------------------------
identity "Jane Sender" jane@example.org
jane="Jane Sender <jane@example.org>"
head=$(git -C "$kernel" rev-parse HEAD)
expect "send-check signs with your identity" 0 "signed off by $jane" run send-check.sh
check "every mail is from you, and your Signed-off-by is the last one" signed_by "$jane"
check "the shortlog of each cover letter names you" \
	grep -q '^Jane Sender (1):$' "$mails/2-two/0000-cover-letter.patch"
cp -a "$proj/series" "$tmp/series.before"
check "series/ keeps the placeholder's Signed-off-by" \
	grep -q "^Signed-off-by: $PROJECT_NAME <$PROJECT_EMAIL>$" "$proj"/series/1-one/0001-*.patch
expect "make send without SEND=yes is a dry run that says how to send" 1 \
	"dry run only, nothing sent: 3 threads, 6 mails from $jane above; to send them: make send SEND=yes" \
	run send.sh
expect "SEND=no is a dry run too" 1 "make send SEND=yes" env SEND=no BUILD="$tmp/build" \
	bash "$proj/harness/send.sh"
untouched() {
	diff -r "$tmp/series.before" "$proj/series" >/dev/null &&
		[ "$(git -C "$kernel" rev-parse HEAD)" = "$head" ] &&
		[ -z "$(git -C "$kernel" status --porcelain)" ]
}
check "make send changes neither series/ nor the tree" untouched
subjects() { grep -h '^Subject: ' "$tmp/build/send-$1.log" | paste -sd '|' -; }
check "the fix goes first, alone and signed by you" \
	[ "$(subjects 1-fix-1-one-1)" = "Subject: [PATCH] drm/ttm: a scratch fix" ]
check "the fix is a thread of its own" \
	eval '! grep -q "^In-Reply-To: " "$tmp/build/send-1-fix-1-one-1.log" &&
	[ "$(grep "^Signed-off-by: " "$mails"/fix-1-one-1/*.patch | tail -1)" = "Signed-off-by: $jane" ]'
check "then each series under its own cover letter, in the apply order" \
	[ "$(subjects 2-1-one)" = "Subject: [PATCH 0/2] drm/ttm: a scratch series|Subject: [PATCH 1/2] drm/ttm: a scratch fix|Subject: [PATCH 2/2] drm/ttm: scratch change 2" ] &&
	[ "$(subjects 3-2-two)" = "Subject: [PATCH 0/1] drm/ttm: a scratch series|Subject: [PATCH 1/1] drm/ttm: scratch change 3" ]
check "the fix has its maintainers and stable, none of the placeholder" \
	eval 'grep -q "^To: Ann Maintainer <ann@example.org>" "$tmp/build/send-1-fix-1-one-1.log" &&
	grep -q "stable@vger.kernel.org$" "$tmp/build/send-1-fix-1-one-1.log" &&
	! grep -q "lists.invalid" "$tmp/build/send-1-fix-1-one-1.log"'

# --- what make send refuses before signing anything ------------------------
cp "$proj/README.md" "$tmp/README.md"
sed -i 's/^1-one 1 drm\/ttm: a scratch fix$/1-one 2 drm\/ttm: scratch change 2/' "$proj/README.md"
expect "a fix without a Fixes: tag is refused" 1 "has no Fixes: tag" run send.sh
sed -i 's/^1-one 2 .*/1-one 1 drm\/ttm: another subject/' "$proj/README.md"
expect "a fix line that names another patch is refused" 1 "not 'drm/ttm: another subject'" run send.sh
printf '## Sending\n\n```send-order\n2-two\n1-one\n```\n' >"$proj/README.md"
expect "series out of the apply order are refused" 1 "in the apply order" run send.sh
cp "$tmp/README.md" "$proj/README.md"
sed -i "s/^+int ttm_scratch_3;\$/&\n+M:\t$PROJECT_NAME <$PROJECT_EMAIL>/" "$proj"/series/2-two/0001-*.patch
expect "a patch that adds the placeholder (MAINTAINERS) is refused" 1 \
	"adds the placeholder $PROJECT_EMAIL" run send.sh
check "nothing was handed to a mailer" [ ! -e "$tmp/handed-to-mailer" ]

if [ "$failures" -eq 0 ]; then
	echo "send identity: all checks passed"
else
	echo "send identity: $failures check(s) failed" >&2
	exit 1
fi
