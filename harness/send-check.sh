#!/usr/bin/env bash
# Ready to send: what the list and the maintainers' tools will see, series
# by series (each series/<n>-<topic>/ is one thread under its own cover
# letter):
#  - scripts/get_maintainer.pl over the series' patches gives the To
#    (maintainers) and Cc (reviewers and lists) lines, written into its
#    cover letter;
#  - git send-email --dry-run renders every mail of the series into
#    build/send-email-<n>-<topic>.log, with the cover letter's To and Cc on
#    all of them;
#  - harness/sendcheck.py checks prefix, version, numbering and threading
#    of every mail, the cover letter's base-commit and prerequisite patch
#    ids, and Signed-off-by, subject prefix, a message that says why, and a
#    reason for size in every patch.
# Nothing leaves the machine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Over this many changed lines, a patch says in its message why it is
# that large: about what a reviewer reads in one sitting.
MAX_LINES=${SEND_MAX_LINES:-800}

require_tree
mapfile -t dirs < <(series_dirs)
[ ${#dirs[@]} -gt 0 ] || die "no series in series/; run 'make export'"
base=$(git -C "$TREE" rev-parse base)
self="$PROJECT_NAME <$PROJECT_EMAIL>"
mkdir -p "$BUILD"

maintainers() {
	# A fixed hash seed keeps the order, and so the cover letter, stable.
	# --no-fixes: the authors of a Fixes: commit come from git history,
	# which the base (a tarball) does not have; name them in the patch.
	(cd "$TREE" && PERL_HASH_SEED=0 perl scripts/get_maintainer.pl --no-git \
		--no-git-fallback --no-rolestats --no-fixes "$@" "${patches[@]}") |
		grep -vF "$PROJECT_EMAIL" || true
}

# write_recipients COVER TO CC: the To and Cc lines of the cover letter.
write_recipients() {
	python3 - "$@" <<'PY'
import sys
path, to, cc = sys.argv[1:]
text = open(path).read()
head, sep, body = text.partition('\n\n')
# Drop the old To/Cc (folded lines too), put the new ones before Subject,
# one address per line (as get_maintainer.pl prints them) so that no
# header line grows past what mail allows.
lines, skip = [], False
for line in head.split('\n'):
    if line.startswith(('To:', 'Cc:')):
        skip = True
    elif not line.startswith(' '):
        skip = False
    if not skip:
        lines.append(line)
def fold(name, value):
    return name + ': ' + ',\n '.join(a.strip() for a in value.split('\n') if a.strip())
at = next(i for i, l in enumerate(lines) if l.startswith('Subject:'))
lines[at:at] = [fold('To', to)] + ([fold('Cc', cc)] if cc else [])
open(path, 'w').write('\n'.join(lines) + sep + body)
PY
}

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

	to=$(maintainers --m --nor --nol)
	cc=$(maintainers --nom --r --l)
	[ -n "$to" ] || die "get_maintainer.pl found no maintainers for series/$name"
	write_recipients "$cover" "$to" "$cc"
	note "send-check: series/$name: To/Cc from get_maintainer.pl written into the cover letter"

	if grep -qE '^\*\*\* (SUBJECT|BLURB) HERE \*\*\*$|^Subject: .*\*\*\* SUBJECT HERE \*\*\*' "$cover"; then
		echo "series/$name: the cover letter has git's template subject or text; write them into series/$name/0000-cover-letter.patch" >&2
		fail=1
	elif ! (cd "$BUILD" && git send-email --dry-run --confirm=never --no-validate \
		--suppress-cc=self --to-cover --cc-cover --from="$self" \
		"$cover" "${patches[@]}") >"$log" 2>&1; then
		echo "series/$name: git send-email --dry-run failed; see $log" >&2
		fail=1
	# The series before this one are its prerequisites.
	elif ! python3 "$TOP/harness/sendcheck.py" --base "$base" \
		"${earlier[@]/#/--prerequisite=}" "$log" "$MAX_LINES" "$self" \
		"$cover" "${patches[@]}"; then
		echo "series/$name is not ready to send" >&2
		fail=1
	else
		note "send-check: series/$name: $((${#patches[@]} + 1)) mails threaded, prefixed and signed off; log in $log"
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
[ $fail -eq 0 ] || die "not every series is ready to send; see the messages above"
note "send-check: ${#dirs[@]} series, $mails mails, ready to send"
