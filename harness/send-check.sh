#!/usr/bin/env bash
# Ready to send: what the list and the maintainers' tools will see, series
# by series (each series/<n>-<topic>/ is one thread under its own cover
# letter):
#  - scripts/get_maintainer.pl over the series' patches gives the To
#    (maintainers) and Cc (reviewers and lists) lines, written into its
#    cover letter;
#  - the mails are signed, in copies under build/mail/<n>-<topic>/, with
#    the sender's identity (git config user.name/user.email): it replaces
#    the project's placeholder as From: and Signed-off-by:, and its
#    Signed-off-by is the last one (harness/sign.py). In CI, and where no
#    identity is set, TEST_SENDER signs them for this dry run; the
#    placeholder is always refused;
#  - git send-email --dry-run renders every mail of the series into
#    build/send-email-<n>-<topic>.log, with the cover letter's To and Cc on
#    all of them;
#  - harness/sendcheck.py checks prefix, version, numbering and threading
#    of every mail, the cover letter's base-commit and prerequisite patch
#    ids, the sender as From: and last Signed-off-by, subject prefix, a
#    message that says why, and a reason for size in every patch.
# Nothing leaves the machine, and series/ gets only the cover letters'
# To and Cc.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Over this many changed lines, a patch says in its message why it is
# that large: about what a reviewer reads in one sitting.
MAX_LINES=${SEND_MAX_LINES:-800}

require_tree
mapfile -t dirs < <(series_dirs)
[ ${#dirs[@]} -gt 0 ] || die "no series in series/; run 'make export'"
base=$(git -C "$TREE" rev-parse base)
placeholder="$PROJECT_NAME <$PROJECT_EMAIL>"
if in_ci || ! identity_set; then
	sender=$TEST_SENDER
	note "send-check: $(in_ci && echo "CI" || echo "no git identity set"): mails signed by the test identity $sender for this dry run; make send needs your own"
else
	sender=$(sender_identity)
	note "send-check: mails signed by $sender (git config user.name/user.email)"
fi
mkdir -p "$BUILD"

fail=0
mails=0
earlier=()
for dir in "${dirs[@]}"; do
	name=${dir##*/}
	cover=$dir/0000-cover-letter.patch
	log=$BUILD/send-email-$name.log
	mapfile -t patches < <(series_patches "$dir")
	[ ${#patches[@]} -gt 0 ] || die "no patches in series/$name; run 'make export'"
	[ -f "$cover" ] || die "no cover letter in series/$name; run 'make export'"

	to=$(maintainers --m --nor --nol -- "${patches[@]}")
	cc=$(maintainers --nom --r --l -- "${patches[@]}")
	[ -n "$to" ] || die "get_maintainer.pl found no maintainers for series/$name"
	write_recipients "$cover" "$to" "$cc"
	note "send-check: series/$name: To/Cc from get_maintainer.pl written into the cover letter"
	mail=$BUILD/mail/$name
	rm -rf "$mail"
	mkdir -p "$mail"
	python3 "$TOP/harness/sign.py" "$sender" "$placeholder" "$mail" "$cover" "${patches[@]}"
	signed=("${patches[@]/#"$dir"/"$mail"}")
	for p in $(adds_placeholder "${patches[@]}"); do
		note "send-check: warning: ${p#"$TOP"/} adds $PROJECT_EMAIL (MAINTAINERS?); make send refuses it until a person is named there"
	done

	if grep -qE '^\*\*\* (SUBJECT|BLURB) HERE \*\*\*$|^Subject: .*\*\*\* SUBJECT HERE \*\*\*' "$cover"; then
		echo "series/$name: the cover letter has git's template subject or text; write them into series/$name/0000-cover-letter.patch" >&2
		fail=1
	elif ! (cd "$BUILD" && git send-email --dry-run --confirm=never --no-validate \
		--suppress-cc=self --to-cover --cc-cover --from="$sender" \
		"$mail/${cover##*/}" "${signed[@]}") >"$log" 2>&1 </dev/null; then
		echo "series/$name: git send-email --dry-run failed; see $log" >&2
		fail=1
	# The series before this one are its prerequisites.
	elif ! python3 "$TOP/harness/sendcheck.py" --base "$base" \
		--placeholder="$PROJECT_EMAIL" "${earlier[@]/#/--prerequisite=}" \
		"$log" "$MAX_LINES" "$sender" "$mail/${cover##*/}" "${signed[@]}"; then
		echo "series/$name is not ready to send" >&2
		fail=1
	else
		note "send-check: series/$name: $((${#patches[@]} + 1)) mails threaded, prefixed and signed off by $sender; mails in $mail, log in $log"
	fi
	mails=$((mails + ${#patches[@]} + 1))
	earlier+=("${patches[@]}")
done
dup=$(for dir in "${dirs[@]}"; do grep -m1 '^Message-Id:' "$dir/0000-cover-letter.patch" || true; done |
	sort | uniq -d)
if [ -n "$dup" ]; then
	echo "two cover letters share $dup" >&2
	fail=1
fi
# The lab is never mailed: no mail of build/mail/ carries the subject of
# a lab patch.
subjects() {
	awk '/^Subject: / { s = $0; getline
			    while (/^[ \t]/) { s = s $0; getline }
			    sub(/^Subject: (\[[^]]*\] )?/, "", s); gsub(/[ \t]+/, " ", s)
			    print s; exit }' "$1"
}
if [ -n "$(lab_patches)" ]; then
	for p in $(lab_patches); do subjects "$p"; done | sort -u >"$BUILD/lab.subjects"
	for dir in "${dirs[@]}"; do
		for m in "$BUILD/mail/${dir##*/}"/*.patch; do subjects "$m"; done
	done | sort -u >"$BUILD/mail.subjects"
	if in_lab=$(comm -12 "$BUILD/lab.subjects" "$BUILD/mail.subjects") && [ -n "$in_lab" ]; then
		printf 'a lab patch is among the mails: %s\n' "$in_lab" >&2
		fail=1
	fi
fi
[ $fail -eq 0 ] || die "not every series is ready to send; see the messages above"
note "send-check: ${#dirs[@]} series, $mails mails, ready to send; the lab's $(lab_patches | wc -l) patch(es) are not mailed"
