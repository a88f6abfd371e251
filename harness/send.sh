#!/usr/bin/env bash
# make send: mail the series, signed by you, in the order of README.md's
# Sending section (its send-order block), each thread on its own:
#  - '<n>-<topic> <k> <subject>': patch k of that series alone, a fix for
#    stable, as '[PATCH] <subject>' with To/Cc from get_maintainer.pl; it
#    must carry Fixes: and Cc: stable;
#  - '<n>-<topic>': the whole series under its cover letter, as
#    send-check prepared and checked it.
# The fixes come first, then every series once, in the apply order.
#
# It refuses to run in CI and needs your own identity (git config
# user.name/user.email, not the placeholder, not .invalid). It runs
# send-check, which signs the mails with that identity in copies under
# build/mail/, then git send-email --dry-run over every thread. Only
# SEND=yes sends, with the same options and nothing asked on stdin; without
# it, it prints what it would send and fails. Threads sent are listed in
# build/mail/sent and skipped when it is run again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

! in_ci || die "make send never runs in CI (CI=$CI); send from your own machine"
sender=$(sender_identity)
[[ ${sender,,} != *.invalid\> ]] ||
	die "git config user.email of $sender is an .invalid address, which cannot send; set your own: git config --global user.email you@example.org"
require_tree

# The lines of the send-order block of README.md's Sending section.
send_order() {
	awk '/^## / { s = $0 == "## Sending" }
	     s && /^```send-order$/ { b = 1; next }
	     b && /^```/ { exit }
	     b && NF' "$TOP/README.md"
}

# subject FILE: the patch's subject without its '[PATCH ...]' prefix.
subject() {
	awk '/^Subject: / { s = $0; f = 1; next } f && /^ / { s = s $0; next }
	     f { exit } END { print s }' "$1" | sed 's/^Subject: \(\[[^]]*\] \)\{0,1\}//'
}

mapfile -t order < <(send_order)
[ ${#order[@]} -gt 0 ] ||
	die "README.md's Sending section has no send-order block; add one (README.md shows its form)"
mapfile -t names < <(series_dirs | sed 's|.*/||')

# Check the order before anything is signed: fixes first, each a patch
# that says what it fixes, then every series once in the apply order.
fixes=() wholes=()
for line in "${order[@]}"; do
	read -r name k title <<<"$line"
	[ -d "$TOP/series/$name" ] ||
		die "send order: no series/$name; fix the send-order block of README.md"
	if [ -z "$k" ]; then
		wholes+=("$name")
		continue
	fi
	[ ${#wholes[@]} -eq 0 ] ||
		die "send order: the fix '$line' comes after a whole series; put the fixes first in README.md's send-order block"
	[[ $k =~ ^[0-9]+$ ]] && patch=$(compgen -G "$TOP/series/$name/$(printf %04d "$k")-*.patch") ||
		die "send order: series/$name has no patch $k; fix the send-order block of README.md"
	[ "$(subject "$patch")" = "$title" ] ||
		die "send order: patch $k of series/$name is '$(subject "$patch")', not '$title'; fix the send-order block of README.md"
	grep -q '^Fixes: [0-9a-f]\{12,\} ("' "$patch" ||
		die "series/$name patch $k is sent as a fix but has no Fixes: tag; add it (and Cc: stable) in build/linux and make export, or take its line out of README.md's send order"
	grep -qi '^Cc: stable@vger\.kernel\.org' "$patch" ||
		die "series/$name patch $k is sent as a fix for stable but has no Cc: stable@vger.kernel.org; add it in build/linux and make export"
	fixes+=("$patch")
done
[ "${wholes[*]}" = "${names[*]}" ] ||
	die "send order: after the fixes, every series once in the apply order (${names[*]}), not (${wholes[*]}); fix the send-order block of README.md"

# Nobody can be reached at the placeholder: a patch that adds it (vttm's
# MAINTAINERS entry) waits for a person to be named there.
bad=$(adds_placeholder "$TOP"/series/[0-9]*/*.patch | sed "s|^$TOP/||" | paste -sd ' ' -)
[ -z "$bad" ] ||
	die "$bad adds the placeholder $PROJECT_EMAIL (MAINTAINERS); name a real maintainer in build/linux, make export, then send"

# Sign and check every series as send-check does, with your identity.
bash "$TOP/harness/send-check.sh"

# The threads, in order: units[i] is a folder of build/mail/, keys[i] the
# first mail's Message-Id as exported.
mail=$BUILD/mail
units=() keys=()
for patch in "${fixes[@]}"; do
	name=$(basename "$(dirname "$patch")")
	k=$((10#$(basename "$patch" | cut -c1-4)))
	alone=$mail/fix-$name-$k
	rm -rf "$alone"
	mkdir -p "$alone"
	python3 "$TOP/harness/sign.py" --alone "$sender" "$PROJECT_NAME <$PROJECT_EMAIL>" \
		"$alone" "$mail/$name/${patch##*/}"
	to=$(maintainers --m --nor --nol -- "$patch")
	[ -n "$to" ] || die "get_maintainer.pl found no maintainers for patch $k of series/$name"
	write_recipients "$alone/${patch##*/}" "$to" "$(maintainers --nom --r --l -- "$patch")"
	units+=("fix-$name-$k")
	keys+=("fix $(grep -m1 '^Message-Id: ' "$patch")")
done
for name in "${wholes[@]}"; do
	units+=("$name")
	keys+=("$(grep -m1 '^Message-Id: ' "$TOP/series/$name/0000-cover-letter.patch")")
done

# send_thread UNIT [--dry-run]: git send-email over one thread.
send_thread() {
	local unit=$1 files
	shift
	files=("$mail/$unit"/*.patch)
	cover=()
	[ "${unit#fix-}" != "$unit" ] || cover=(--to-cover --cc-cover)
	(cd "$BUILD" && git send-email "$@" --confirm=never --suppress-cc=self \
		--8bit-encoding=UTF-8 --no-annotate --no-format-patch \
		--from="$sender" "${cover[@]}" "${files[@]}") </dev/null
}

# The dry run of every thread, with the options of the real one.
total=0
for i in "${!units[@]}"; do
	unit=${units[$i]}
	log=$BUILD/send-$((i + 1))-$unit.log
	send_thread "$unit" --dry-run >"$log" 2>&1 ||
		die "git send-email --dry-run of $unit failed; see $log"
	n=$(grep -c '^Dry-OK\. Log says:' "$log" || true)
	total=$((total + n))
	note "send: thread $((i + 1))/${#units[@]}: $unit, $n mail(s) from $sender; log in $log"
	grep '^Subject: ' "$log" | sed 's/^/      /'
done

if [ "${SEND:-}" != yes ]; then
	die "dry run only, nothing sent: ${#units[@]} threads, $total mails from $sender above; to send them: make send SEND=yes"
fi

git config sendemail.smtpServer >/dev/null || [ -x /usr/sbin/sendmail ] || [ -x /usr/lib/sendmail ] ||
	die "git send-email has no way to send: set git config --global sendemail.smtpServer (see git help send-email)"
sent=$mail/sent
touch "$sent"
done_now=0
for i in "${!units[@]}"; do
	unit=${units[$i]}
	if grep -qxF "${keys[$i]}" "$sent"; then
		note "send: thread $((i + 1)): $unit was sent before (listed in $sent); skipped"
		continue
	fi
	log=$BUILD/send-$((i + 1))-$unit.log
	send_thread "$unit" >"$log" 2>&1 ||
		die "sending $unit failed, the threads before it were sent; see $log, then make send SEND=yes again (it skips those in $sent)"
	echo "${keys[$i]}" >>"$sent"
	done_now=$((done_now + 1))
	note "send: thread $((i + 1))/${#units[@]}: $unit sent"
done
note "send: $done_now thread(s) sent as $sender, $((${#units[@]} - done_now)) sent before"
