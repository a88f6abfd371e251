#!/usr/bin/env python3
"""Carry a cover letter's subject and text into a fresh format-patch one.

git format-patch --cover-letter writes '*** SUBJECT HERE ***' and
'*** BLURB HERE ***' placeholders followed by the shortlog and diffstat.
Keep our subject, text and To/Cc headers (harness/send-check.sh writes
those), take git's new shortlog and diffstat.
"""
import re
import sys


def split(text):
    """Return (subject, blurb, tail) of a cover letter."""
    head, _, body = text.partition('\n\n')
    m = re.search(r'^Subject: (.*(?:\n [^\n]*)*)', head, re.M)
    subject = m.group(1) if m else ''
    # The tail starts at git's shortlog: the first '<author> (<n>):' line.
    t = re.search(r'^\S.* \(\d+\):$', body, re.M)
    if t:
        return subject, body[:t.start()], body[t.start():]
    return subject, body, ''


def recipients(text):
    """The To: and Cc: header lines of a mail head, folded lines included."""
    out, keep = [], False
    for line in text.partition('\n\n')[0].split('\n'):
        if line.startswith(('To:', 'Cc:')):
            keep = True
        elif not line.startswith(' '):
            keep = False
        if keep:
            out.append(line)
    return out


old = open(sys.argv[1]).read()
old_subject, old_blurb, _ = split(old)
new = open(sys.argv[2]).read()
new_subject, _, new_tail = split(new)
head = new.partition('\n\n')[0]
# Keep the '[PATCH 0/N]' prefix git computed, with our title behind it.
prefix = re.match(r'(\[[^\]]*\] )?', new_subject).group(0)
title = re.sub(r'^\[[^\]]*\] ', '', old_subject)
head = head.replace('Subject: ' + new_subject,
                    '\n'.join(recipients(old) + ['Subject: ' + prefix + title]))
open(sys.argv[2], 'w').write(head + '\n\n' + old_blurb + new_tail)
