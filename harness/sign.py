#!/usr/bin/env python3
"""Sign the mails of a series with the sender's identity, in copies.

Usage: sign.py [--alone] IDENTITY PLACEHOLDER OUTDIR FILE...

IDENTITY and PLACEHOLDER are 'Name <email>'.

Writes each FILE ('git format-patch' output: a cover letter or a patch) to
OUTDIR under its own name, the FILE itself unchanged, with:
 - its From: header, where it is PLACEHOLDER's address, set to IDENTITY;
 - in a patch's message, the Signed-off-by of PLACEHOLDER and any earlier
   one of IDENTITY dropped, and IDENTITY's as the last trailer: whoever
   sends a patch signs it off last (the DCO);
 - in a cover letter, the shortlog's line of PLACEHOLDER's patches,
   'name (n):', naming IDENTITY.
With --alone, one patch sent as a thread of its own: '[PATCH n/N]' becomes
'[PATCH]' and its Message-Id, In-Reply-To and References go, so that
git send-email gives it a Message-Id of its own.
"""
import argparse
import email.utils
import os
import re
import sys

SOB = re.compile(r'^Signed-off-by:\s*(.*)$')
TRAILER = re.compile(r'^[A-Za-z0-9][\w-]*: \S')


def address(ident):
    return email.utils.parseaddr(ident)[1].lower()


def header_lines(head, drop):
    """The header lines, without the fields named in drop (folded lines too)."""
    out, skip = [], False
    for line in head.split('\n'):
        if not line.startswith((' ', '\t')):
            skip = line.split(':', 1)[0].lower() in drop
        if not skip:
            out.append(line)
    return out


def sign_message(msg, identity, placeholder):
    """msg with the Signed-off-by of identity as its last trailer, none of
    placeholder (an address)."""
    lines = msg.rstrip('\n').split('\n')
    start = max((i + 1 for i, l in enumerate(lines) if not l.strip()), default=0)
    last = lines[start:]
    trailers = any(SOB.match(l) for l in last) or \
        (last and all(TRAILER.match(l) or l.startswith(' ') for l in last))
    drop = {placeholder, address(identity)}
    if trailers:
        last = [l for l in last
                if not (SOB.match(l) and address(SOB.match(l).group(1)) in drop)]
        lines = lines[:start] + last
    else:
        lines.append('')
    return '\n'.join(lines + ['Signed-off-by: ' + identity]) + '\n'


def sign(text, cover, identity, placeholder, alone):
    """One mail, signed: placeholder is (name, address)."""
    head, sep, body = text.partition('\n\n')
    old_name, placeholder = placeholder
    name = email.utils.parseaddr(identity)[0]
    lines = header_lines(head, {'message-id', 'in-reply-to', 'references'}
                         if alone else set())
    for i, line in enumerate(lines):
        if line.startswith('From:') and address(line[5:]) == placeholder:
            lines[i] = 'From: ' + identity
        elif line.startswith('Subject:') and alone:
            lines[i] = re.sub(r'^Subject: \[((?:RFC )?PATCH(?: v\d+)?) \d+/\d+\]',
                              r'Subject: [\1]', line)
    if cover:
        body = re.sub(r'^%s(?= \(\d+\):$)' % re.escape(old_name),
                      lambda m: name, body, flags=re.M)
    else:
        msg, dashes, rest = body.partition('\n---\n')
        body = sign_message(msg, identity, placeholder) + dashes[1:] + rest
    return '\n'.join(lines) + sep + body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--alone', action='store_true')
    ap.add_argument('identity')
    ap.add_argument('placeholder')
    ap.add_argument('outdir')
    ap.add_argument('files', nargs='+')
    args = ap.parse_args()
    name, addr = email.utils.parseaddr(args.placeholder)
    placeholder = (name, addr.lower())
    for f in args.files:
        text = open(f, encoding='utf-8').read()
        cover = os.path.basename(f).startswith('0000-')
        out = os.path.join(args.outdir, os.path.basename(f))
        with open(out, 'w', encoding='utf-8') as o:
            o.write(sign(text, cover, args.identity, placeholder, args.alone))
    return 0


if __name__ == '__main__':
    sys.exit(main())
