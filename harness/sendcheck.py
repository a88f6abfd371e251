#!/usr/bin/env python3
"""Check one series the way it will reach the list.

Usage: sendcheck.py [--base COMMIT] [--prerequisite=PATCH]...
                    [--placeholder=EMAIL] DRY_RUN_LOG MAX_LINES IDENTITY
                    COVER PATCH...

DRY_RUN_LOG is the output of 'git send-email --dry-run' over COVER and
PATCH..., in order: one series, one thread. Every mail must carry
'[PATCH<v> n/N]', or '[RFC PATCH<v> n/N]' when the cover letter is an RFC,
with one version for all (the highest 'Changes in vN' of the cover
letter; v1 has none), number n of N, and thread under the cover letter. With --base, the cover letter names COMMIT as 'base-commit:', and
lists as 'prerequisite-patch-id:' the patch-ids of exactly the
--prerequisite patches (those of the series before it), so that b4 and
the list's CI can rebuild the tree it applies to. Every mail must be from
IDENTITY (the sender), and every patch must have IDENTITY's Signed-off-by
as its last one, none of the --placeholder address (the project's, which
nobody can sign the DCO with) in a From: or Signed-off-by:, a subject
'<prefix>: <summary>', say why in
its message (40 words or more before the trailers), and, when it changes
more than MAX_LINES lines, say how many lines and why ('<n> lines' in its
message). Prints one line per problem; exits 1 if any.
"""
import argparse
import email.utils
import re
import subprocess
import sys


def mails(log):
    """The header blocks of the dry run, one dict per mail."""
    out = []
    for block in log.split('Dry-OK. Log says:')[1:]:
        head = {}
        for line in block.splitlines():
            if line.startswith('Result:'):
                break
            m = re.match(r'^([A-Za-z-]+): (.*)$', line)
            if m:
                head.setdefault(m.group(1).lower(), m.group(2))
        out.append(head)
    return out


def message(patch):
    """Subject and commit message body of a format-patch file."""
    text = open(patch).read()
    head, _, body = text.partition('\n\n')
    subj = re.search(r'^Subject: (.*(?:\n [^\n]*)*)', head, re.M).group(1)
    subj = re.sub(r'\n ', ' ', subj)
    return subj, body.split('\n---\n')[0]


def address(ident):
    return email.utils.parseaddr(ident)[1].lower()


def author(patch):
    """The From: header of a format-patch file."""
    head = open(patch).read().partition('\n\n')[0]
    m = re.search(r'^From: (.*)$', head, re.M)
    return m.group(1) if m else ''


def changed_lines(patch):
    n, in_diff = 0, False
    for line in open(patch):
        if line.startswith('diff --git'):
            in_diff = True
        elif in_diff and line[:1] in '+-' and not line.startswith(('+++ ', '--- ')):
            n += 1
    return n


def patch_id(patch):
    """The stable patch-id of a patch file, as git format-patch --base writes it."""
    out = subprocess.run(['git', 'patch-id', '--stable'], stdin=open(patch),
                         capture_output=True, text=True, check=True).stdout
    return out.split()[0] if out else None


def base_problems(cover, base, prerequisites):
    """What the cover letter's base trailers get wrong, one line each."""
    out = []
    named = re.findall(r'^base-commit: (\S+)$', cover, re.M)
    if named != [base]:
        out.append('cover letter: base-commit %s, the tree\'s base is %s' %
                   (' '.join(named) or 'missing', base))
    have = sorted(re.findall(r'^prerequisite-patch-id: (\S+)$', cover, re.M))
    want = sorted(patch_id(p) for p in prerequisites)
    if have != want:
        out.append('cover letter: %d prerequisite-patch-id line(s), the series '
                   'before it have %d patch(es) (or other ones)' %
                   (len(have), len(want)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--base')
    ap.add_argument('--prerequisite', action='append', default=[])
    ap.add_argument('--placeholder')
    ap.add_argument('log')
    ap.add_argument('max_lines', type=int)
    ap.add_argument('identity')
    ap.add_argument('patches', nargs='+')
    args = ap.parse_args()
    log, max_lines, identity, patches = args.log, args.max_lines, args.identity, args.patches
    problems = []
    cover = open(patches[0]).read()
    if args.base:
        problems += base_problems(cover, args.base, args.prerequisite)
    versions = [int(v) for v in re.findall(r'^Changes in v(\d+)', cover, re.M)]
    version = max(versions) if versions else 1
    tag = 'PATCH' if version == 1 else 'PATCH v%d' % version
    # An RFC series is one in every mail: '[RFC PATCH n/N]'.
    if re.search(r'^Subject: \[RFC PATCH', cover, re.M):
        tag = 'RFC ' + tag
    total = len(patches) - 1

    heads = mails(open(log).read())
    if len(heads) != len(patches):
        problems.append('dry run: %d mails for %d files' % (len(heads), len(patches)))
    cover_id = heads[0].get('message-id') if heads else None
    width = len(str(total))
    for i, head in enumerate(heads):
        want = '[%s %0*d/%d] ' % (tag, width, i, total)
        if not head.get('subject', '').startswith(want):
            problems.append('mail %d: subject %r does not start with %r' %
                            (i, head.get('subject'), want))
        if not head.get('to'):
            problems.append('mail %d: no To:' % i)
        if address(head.get('from', '')) != address(identity):
            problems.append('mail %d: from %r, not the sender %r' %
                            (i, head.get('from'), identity))
        if i and (head.get('in-reply-to') != cover_id or
                  head.get('references') != cover_id):
            problems.append('mail %d: not threaded under the cover letter' % i)

    if args.placeholder and address(author(patches[0])) == args.placeholder.lower():
        problems.append('cover letter: From: the project\'s placeholder %s' %
                        args.placeholder)
    for patch in patches[1:]:
        name = patch.rsplit('/', 1)[-1]
        subj, msg = message(patch)
        title = re.sub(r'^\[[^\]]*\] ', '', subj)
        if not re.match(r'^[a-z0-9][\w./-]*: \S', title):
            problems.append('%s: subject %r lacks a "<prefix>: " prefix' % (name, title))
        sobs = re.findall(r'^Signed-off-by: (.*)$', msg, re.M)
        if not sobs or sobs[-1].strip() != identity:
            problems.append('%s: no Signed-off-by: %s as the last one' % (name, identity))
        if args.placeholder and args.placeholder.lower() in \
                [address(a) for a in sobs + [author(patch)]]:
            problems.append('%s: From: or Signed-off-by: the project\'s placeholder %s' %
                            (name, args.placeholder))
        text = '\n'.join(l for l in msg.splitlines()
                         if not re.match(r'^[A-Z][\w-]*: ', l))
        if len(text.split()) < 40:
            problems.append('%s: the message does not say why (%d words)' %
                            (name, len(text.split())))
        n = changed_lines(patch)
        if n > max_lines and not re.search(r'\b\d[\d,]* lines\b', msg):
            problems.append('%s: %d changed lines, over %d, and the message '
                            'does not say how many lines and why' %
                            (name, n, max_lines))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
