#!/usr/bin/env python3
"""Fail on kernel splats in a console log, except those the base tree's own
tests provoke on purpose, as listed with a reason in an allowlist.

A splat is a WARN, BUG, oops, panic, lockdep, KASAN or UBSAN report. Each
is attributed to the KUnit suite running when it was printed. Allowlist
lines read '<suite regex> <message regex>  # reason'.
"""
import argparse
import re
import sys

SPLAT = re.compile(
    r'Kernel panic|kernel BUG at|\bOops\b|BUG:|WARNING:|UBSAN:'
    r'|possible circular locking|inconsistent lock state'
    r'|possible recursive locking|general protection fault'
    r'|Unable to handle kernel')
SUITE = re.compile(r'^    # Subtest: (\S+)')
PREFIX = re.compile(r'^(\[[ 0-9.:]+\] ?)+')


def load(path):
    rules = []
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                suite, msg = line.split(None, 1)
                rules.append((re.compile(suite), re.compile(msg)))
    return rules


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('log')
    ap.add_argument('--allow', help='allowlist file')
    args = ap.parse_args()
    rules = load(args.allow) if args.allow else []

    suite = '-'
    lines = open(args.log, errors='replace').read().splitlines()
    bad = 0
    for i, raw in enumerate(lines):
        line = PREFIX.sub('', raw)
        m = SUITE.match(line)
        if m:
            suite = m.group(1)
            continue
        if not SPLAT.search(line):
            continue
        if any(s.fullmatch(suite) and r.search(line) for s, r in rules):
            continue
        bad += 1
        print(f'splat in suite {suite}, {args.log}:{i + 1}:', file=sys.stderr)
        for ctx in lines[i:i + 15]:
            print('    ' + ctx, file=sys.stderr)
    if bad:
        print(f'error: {bad} kernel splat(s) not in the allowlist',
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
