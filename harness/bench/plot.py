#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plot vttm-bench's per-frame migrated MiB as an SVG, one line per mode.

usage: plot.py INPUT OUTPUT.svg

INPUT is the CSV that vttm-bench --csv writes, or a console or serial log
holding the lines vttm-bench --csv-stdout prints ("vttm-bench-csv: ...").
Python 3 standard library only.
"""

import csv
import math
import sys
from xml.sax.saxutils import escape

CSV_PREFIX = "vttm-bench-csv: "
FIELDS = ("mode", "phase", "frame", "migrated_bytes")
MIB = 1024.0 * 1024.0

WIDTH, HEIGHT = 900, 500
LEFT, RIGHT, TOP, BOTTOM = 80, 170, 50, 60
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f")


def read_rows(path):
    """Return the CSV rows of path, from a plain CSV or from a log."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [line.rstrip("\r\n") for line in f]
    tagged = [line.split(CSV_PREFIX, 1)[1] for line in lines
              if CSV_PREFIX in line]
    if tagged:
        lines = tagged
    lines = [line.strip("\r") for line in lines if line.strip()]
    if not lines:
        raise ValueError(f"{path}: no CSV lines")
    reader = csv.DictReader(lines)
    missing = [f for f in FIELDS if f not in (reader.fieldnames or ())]
    if missing:
        raise ValueError(f"{path}: CSV lacks columns {', '.join(missing)}")
    return list(reader)


def collect(rows):
    """Group rows by mode, in order of appearance: mode -> [(frame, MiB)]."""
    series = {}
    phase_starts = set()
    for row in rows:
        if row["mode"] == "mode":  # a repeated header
            continue
        try:
            frame = int(row["frame"])
            mib = int(row["migrated_bytes"]) / MIB
            phase = int(row["phase"])
        except (TypeError, ValueError):
            continue
        points = series.setdefault(row["mode"], [])
        if points and phase != points[-1][2]:
            phase_starts.add(frame)
        points.append((frame, mib, phase))
    if not series:
        raise ValueError("no data rows")
    return series, sorted(phase_starts)


def nice_step(span, ticks=6):
    """A round tick step, 1, 2 or 5 times a power of ten, for span."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    mag = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 5, 10):
        if raw <= mult * mag:
            return mult * mag
    return 10 * mag


def fmt(value):
    return f"{value:g}" if abs(value) < 1e6 else f"{value:.3g}"


def render(series, phase_starts):
    xs = [p[0] for pts in series.values() for p in pts]
    ys = [p[1] for pts in series.values() for p in pts]
    x_min, x_max = min(xs), max(xs)
    if x_max == x_min:
        x_max = x_min + 1
    y_step = nice_step(max(ys) if max(ys) > 0 else 1)
    y_max = y_step * math.ceil(max(ys) / y_step) if max(ys) > 0 else 1
    x_step = max(1, int(nice_step(x_max - x_min)))

    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM

    def px(x):
        return LEFT + (x - x_min) / (x_max - x_min) * plot_w

    def py(y):
        return TOP + plot_h - y / y_max * plot_h

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
        f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT + plot_w / 2}" y="{TOP - 20}" '
        'text-anchor="middle" font-size="15">'
        'vttm-bench: VRAM migrated per game frame</text>',
    ]

    # Grid and tick labels.
    y = 0.0
    while y <= y_max + y_step / 2:
        out.append(f'<line x1="{LEFT}" y1="{py(y):.1f}" '
                   f'x2="{LEFT + plot_w}" y2="{py(y):.1f}" '
                   'stroke="#e0e0e0"/>')
        out.append(f'<text x="{LEFT - 8}" y="{py(y) + 4:.1f}" '
                   f'text-anchor="end">{fmt(y)}</text>')
        y += y_step
    x = math.ceil(x_min / x_step) * x_step
    while x <= x_max:
        out.append(f'<line x1="{px(x):.1f}" y1="{TOP + plot_h}" '
                   f'x2="{px(x):.1f}" y2="{TOP + plot_h + 5}" '
                   'stroke="black"/>')
        out.append(f'<text x="{px(x):.1f}" y="{TOP + plot_h + 20}" '
                   f'text-anchor="middle">{x}</text>')
        x += x_step

    # Phase boundaries.
    for start in phase_starts:
        out.append(f'<line x1="{px(start - 0.5):.1f}" y1="{TOP}" '
                   f'x2="{px(start - 0.5):.1f}" y2="{TOP + plot_h}" '
                   'stroke="#888888" stroke-dasharray="4,4"/>')
        out.append(f'<text x="{px(start - 0.5) + 4:.1f}" y="{TOP + 14}" '
                   f'fill="#555555">phase change (frame {start})</text>')

    # Axes and their labels.
    out.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" '
               f'y2="{TOP + plot_h}" stroke="black"/>')
    out.append(f'<line x1="{LEFT}" y1="{TOP + plot_h}" '
               f'x2="{LEFT + plot_w}" y2="{TOP + plot_h}" stroke="black"/>')
    out.append(f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 15}" '
               'text-anchor="middle">game frame</text>')
    out.append(f'<text x="20" y="{TOP + plot_h / 2}" text-anchor="middle" '
               f'transform="rotate(-90 20 {TOP + plot_h / 2})">'
               'migrated MiB per frame (game + compositor)</text>')

    # One polyline per mode, and the legend.
    legend_x = LEFT + plot_w + 20
    out.append(f'<rect x="{legend_x - 10}" y="{TOP}" width="{RIGHT - 20}" '
               f'height="{20 * len(series) + 10}" fill="white" '
               'stroke="#aaaaaa"/>')
    for i, (mode, points) in enumerate(series.items()):
        colour = COLOURS[i % len(COLOURS)]
        coords = " ".join(f"{px(fx):.1f},{py(fy):.1f}"
                          for fx, fy, _ in points)
        out.append(f'<polyline fill="none" stroke="{colour}" '
                   f'stroke-width="1.5" points="{coords}"/>')
        ly = TOP + 20 * i + 20
        out.append(f'<line x1="{legend_x}" y1="{ly - 4}" '
                   f'x2="{legend_x + 25}" y2="{ly - 4}" stroke="{colour}" '
                   'stroke-width="3"/>')
        out.append(f'<text x="{legend_x + 32}" y="{ly}">'
                   f'{escape(mode)}</text>')

    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3:
        print(f"usage: {argv[0]} INPUT OUTPUT.svg", file=sys.stderr)
        return 2
    try:
        series, phase_starts = collect(read_rows(argv[1]))
    except (OSError, ValueError) as exc:
        print(f"plot.py: {exc}", file=sys.stderr)
        return 1
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(render(series, phase_starts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
