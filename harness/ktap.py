#!/usr/bin/env python3
"""Summarise KTAP output (KUnit results) from a log or a console.

Counts leaf tests per suite (parameterised cases count one each, as
kunit.py does), over one or more logs (boots of one kernel), prints one
line per suite and a last line of the form 'N passed, N failed, N skipped'.
Exits non-zero when a test failed, a suite did not finish, the top-level
plan was not met, or a suite named in the expectations file ran fewer
tests than it declares. Failures of the cases in the known-failures file
(those of the unmodified base) are counted and printed apart, not as
failed.
"""

import argparse
import re
import sys

RESULT = re.compile(r'^(\s*)(not ok|ok) (\d+)\s*-?\s*([^#]*?)\s*(?:#\s*(.*))?$')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)$')
# Console prefixes: printk timestamps and kunit.py's own time stamps.
PREFIX = re.compile(r'^(\[[ 0-9.:]+\] ?)+')


def strip(line):
    line = PREFIX.sub('', line.rstrip('\n'))
    return line.replace('\t', '    ')


SUBTEST = re.compile(r'^(\s*)# Subtest: (\S+)')


def parse(lines, known=()):
    """Return (suites, problems), suites as a list of (name, counts).

    A failed leaf below a '<suite> <case>' of @known counts as 'known'.
    """
    suites, problems = [], []
    leaves = {'pass': 0, 'fail': 0, 'skip': 0, 'known': 0}
    names = {}
    # The lines since the last result: a failed case's diagnostics.
    since = []
    deeper = {}
    top_plan, top_results = None, 0
    started = False
    for raw in lines:
        line = strip(raw)
        if 'KTAP version' in line or 'TAP version' in line:
            started = True
            continue
        if not started:
            continue
        m = SUBTEST.match(line)
        if m:
            names[len(m.group(1))] = m.group(2)
            continue
        m = PLAN.match(line)
        if m and len(m.group(1)) == 0 and top_plan is None:
            top_plan = int(m.group(2))
            continue
        m = RESULT.match(line)
        if not m:
            if not PLAN.match(line) and '# module:' not in line:
                since = (since + [line.strip()])[-12:]
            continue
        diag, since = since, []
        indent = len(m.group(1))
        ok = m.group(2) == 'ok'
        directive = (m.group(5) or '').strip().upper()
        leaf = not deeper.get(indent, False)
        for k in list(deeper):
            if k > indent:
                deeper[k] = False
        for k in range(0, indent):
            deeper[k] = True
        deeper[indent] = False
        if indent == 0:
            top_results += 1
            counts = dict(leaves)
            if leaf:
                # A suite that reports no cases (e.g. skipped whole).
                key = 'skip' if directive.startswith('SKIP') else \
                      ('pass' if ok else 'fail')
                counts[key] += 1
            elif not ok and counts['fail'] == 0 and counts['known'] == 0:
                counts['fail'] = 1
                problems.append(f'suite {m.group(4)} failed without a failing case')
            suites.append((m.group(4), counts))
            leaves = {'pass': 0, 'fail': 0, 'skip': 0, 'known': 0}
            names = {}
            continue
        if leaf:
            # Suites open with '# Subtest' at indent 4, their
            # parameterised cases at indent 8.
            case = m.group(4) if indent == 4 else names.get(8, '')
            if directive.startswith('SKIP'):
                leaves['skip'] += 1
            elif ok:
                leaves['pass'] += 1
            elif (names.get(4, ''), case) in known:
                leaves['known'] += 1
            else:
                leaves['fail'] += 1
                name = names.get(4, '?') + '.' + case
                if indent > 4:
                    name += ' [' + m.group(4) + ']'
                problems.append('FAILED ' + name + ''.join(
                    '\n    ' + d for d in diag if d))
    if not started:
        problems.append('no KTAP output found')
    if any(leaves.values()):
        problems.append('a suite did not finish (crash or timeout?)')
    if top_plan is not None and top_results < top_plan:
        problems.append(f'only {top_results} of {top_plan} suites reported')
    return suites, problems


def read_expect(path):
    expect = {}
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].split()
            if len(line) == 2:
                expect[line[0]] = int(line[1])
    return expect


def read_known(path):
    known = set()
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].split()
            if len(line) == 2:
                known.add((line[0], line[1]))
    return known


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('log', nargs='+')
    ap.add_argument('--expect', help="file of '<suite> <min tests>' lines")
    ap.add_argument('--known-failures',
                    help="file of '<suite> <case>' lines that fail on the base")
    args = ap.parse_args()
    known = read_known(args.known_failures) if args.known_failures else set()

    suites, problems = [], []
    for log in args.log:
        with open(log, errors='replace') as f:
            s, p = parse(f, known)
        suites += s
        problems += [f'{log}: {x}' for x in p]

    total = {'pass': 0, 'fail': 0, 'skip': 0, 'known': 0}
    for name, c in suites:
        extra = f' {c["known"]:3d} known failure(s) of the base' \
            if c['known'] else ''
        print(f'  {name:40s} {c["pass"]:5d} passed {c["fail"]:3d} failed '
              f'{c["skip"]:3d} skipped{extra}')
        for k in total:
            total[k] += c[k]

    if args.expect:
        ran = {}
        for n, c in suites:
            ran[n] = ran.get(n, 0) + sum(c.values())
        for name, want in read_expect(args.expect).items():
            if ran.get(name, 0) < want:
                problems.append(f'suite {name} ran {ran.get(name, 0)} tests, '
                                f'the series declares {want}')

    if total['known']:
        print(f'{total["known"]} known failure(s) of the unmodified base '
              '(kunit-configs/known-failures), not counted as failed')
    print(f'{total["pass"]} passed, {total["fail"]} failed, '
          f'{total["skip"]} skipped')
    # Last, so that a log's tail names what failed.
    sys.stdout.flush()
    for p in problems:
        print(f'error: {p}', file=sys.stderr)
    return 1 if problems or total['fail'] else 0


if __name__ == '__main__':
    sys.exit(main())
