#!/usr/bin/env bash
# Ready to send: what the list and the maintainers' tools will see.
#  - scripts/get_maintainer.pl over the patches gives the To (maintainers)
#    and Cc (reviewers and lists) lines, written into the cover letter;
#  - git send-email --dry-run renders every mail into build/send-email.log,
#    with the cover letter's To and Cc on all of them;
#  - harness/sendcheck.py checks prefix, version, numbering and threading
#    of every mail, and Signed-off-by, subject prefix, a message that says
#    why, and a reason for size in every patch.
# Nothing leaves the machine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LOG=$BUILD/send-email.log
COVER=$TOP/series/0000-cover-letter.patch
# Over this many changed lines, a patch says in its message why it is
# that large: about what a reviewer reads in one sitting.
MAX_LINES=${SEND_MAX_LINES:-800}

require_tree
mapfile -t patches < <(series_patches)
[ ${#patches[@]} -gt 0 ] || die "no patches in series/"
[ -f "$COVER" ] || die "no cover letter in series/"

self="$PROJECT_NAME <$PROJECT_EMAIL>"
maintainers() {
	# A fixed hash seed keeps the order, and so the cover letter, stable.
	(cd "$TREE" && PERL_HASH_SEED=0 perl scripts/get_maintainer.pl --no-git \
		--no-git-fallback --no-rolestats "$@" "${patches[@]}") |
		grep -vF "$PROJECT_EMAIL" || true
}
to=$(maintainers --m --nor --nol)
cc=$(maintainers --nom --r --l)
[ -n "$to" ] || die "get_maintainer.pl found no maintainers"
python3 - "$COVER" "$to" "$cc" <<'PY'
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
note "send-check: To/Cc from get_maintainer.pl written into the cover letter"

mkdir -p "$BUILD"
(cd "$BUILD" && git send-email --dry-run --confirm=never --no-validate \
	--suppress-cc=all --to-cover --cc-cover --from="$self" \
	"$COVER" "${patches[@]}") >"$LOG" 2>&1 ||
	die "git send-email --dry-run failed; see $LOG"

python3 "$TOP/harness/sendcheck.py" "$LOG" "$MAX_LINES" "$self" \
	"$COVER" "${patches[@]}" || die "the series is not ready to send"
note "send-check: $((${#patches[@]} + 1)) mails threaded, prefixed and signed off; log in $LOG"
