#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plot vttm-bench's figures per frame as an SVG: for each scenario a row of
panels of migrated MiB per frame and a row of modelled frame time, one
panel per phase, each mode's distribution over the frames as a CDF. The
migration rows draw MIN's schedule (Belady's MIN on the first mode's trace,
the whole run's lower bound cut up by frame) as a dashed black line; no
frame time of the optimum is drawn, as MIN bounds none. Modes whose
figures are identical in a panel are drawn as one line, and the panel
names them. With --runs, only each mode's first run is drawn.

usage: plot.py INPUT OUTPUT.svg

INPUT is the CSV that vttm-bench --csv writes, or a console or serial log
holding the lines vttm-bench --csv-stdout prints ("vttm-bench-csv: ...").
The per-frame series stay in the CSV. Python 3 standard library only.
"""

import csv
import math
import sys
from xml.sax.saxutils import escape

CSV_PREFIX = "vttm-bench-csv: "
FIELDS = ("scenario", "mode", "run", "phase", "frame", "migrated_bytes")
MIB = 1024.0 * 1024.0
OPTIMUM = "MIN's schedule"
# The rows of each scenario: CSV column, scale, axis label.
METRICS = (("migrated_bytes", 1 / MIB, "migrated MiB per frame (all clients)"),
           ("frame_time_us", 1 / 1000.0, "model frame time, ms (GTT use charged)"))

PANEL_W, PANEL_H = 380, 320
LEFT, GAP, RIGHT, TOP, BOTTOM = 70, 60, 170, 60, 60
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
    """(scenario, metric) -> phase -> {mode or OPTIMUM: [values]}, in CSV
    order.

    The optimum drawn is the first mode's: each mode's trace can differ a
    little, as the kernel fails different jobs."""
    scenarios = {}
    opt_mode = {}
    for row in rows:
        if row["mode"] == "mode" or row["run"] != "0":
            continue
        try:
            phase = int(row["phase"])
        except (TypeError, ValueError):
            continue
        name = row["scenario"]
        for column, scale, label in METRICS:
            try:
                value = float(row[column]) * scale
            except (KeyError, TypeError, ValueError):
                continue
            series = scenarios.setdefault((name, label), {}).setdefault(phase, {})
            series.setdefault(row["mode"], []).append(value)
        series = scenarios.setdefault((name, METRICS[0][2]), {}).setdefault(phase, {})
        opt = (row.get("optimum_bytes") or "").strip()
        if opt and opt_mode.setdefault(name, row["mode"]) == row["mode"]:
            series.setdefault(OPTIMUM, []).append(int(opt) / MIB)
    if not scenarios:
        raise ValueError("no data rows")
    return {name: dict(sorted(phases.items()))
            for name, phases in scenarios.items()}


def nice_step(span, ticks=5):
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
    return f"{value:g}"


def cdf_points(values):
    """The steps of the empirical CDF of values: (x, fraction) pairs."""
    values = sorted(values)
    n = len(values)
    points = [(values[0], 0.0)]
    for i, v in enumerate(values):
        points.append((v, i / n))
        points.append((v, (i + 1) / n))
    return points


def panel(out, x0, y0, title, xlabel, series, colours, x_max):
    """One phase's CDFs in the panel whose top left corner is x0, y0."""
    step = nice_step(x_max)
    x_max = step * math.ceil(x_max / step)

    def px(x):
        return x0 + x / x_max * PANEL_W

    top = y0 + TOP

    def py(y):
        return top + PANEL_H - y * PANEL_H

    out.append(f'<text x="{x0 + PANEL_W / 2}" y="{top - 12}" '
               f'text-anchor="middle" font-size="14">{escape(title)}</text>')
    for i in range(6):
        y = i / 5
        out.append(f'<line x1="{x0}" y1="{py(y):.1f}" x2="{x0 + PANEL_W}" '
                   f'y2="{py(y):.1f}" stroke="#e0e0e0"/>')
        out.append(f'<text x="{x0 - 6}" y="{py(y) + 4:.1f}" '
                   f'text-anchor="end">{fmt(round(y, 1))}</text>')
    x = 0.0
    while x <= x_max + step / 2:
        out.append(f'<line x1="{px(x):.1f}" y1="{top + PANEL_H}" '
                   f'x2="{px(x):.1f}" y2="{top + PANEL_H + 5}" '
                   'stroke="black"/>')
        out.append(f'<text x="{px(x):.1f}" y="{top + PANEL_H + 18}" '
                   f'text-anchor="middle">{fmt(x)}</text>')
        x += step
    out.append(f'<polyline fill="none" stroke="black" points="{x0},{top} '
               f'{x0},{top + PANEL_H} {x0 + PANEL_W},{top + PANEL_H}"/>')
    out.append(f'<text x="{x0 + PANEL_W / 2}" y="{top + PANEL_H + 40}" '
               f'text-anchor="middle">{escape(xlabel)}</text>')
    # Modes with the same figures would hide each other: draw one line
    # for them, in the first one's colour, and name them in the panel.
    groups = {}
    for name, values in series.items():
        groups.setdefault(tuple(values), []).append(name)
    notes = [" = ".join(g) for g in groups.values() if len(g) > 1]
    for i, note in enumerate(notes):
        out.append(f'<text x="{x0 + PANEL_W - 6}" '
                   f'y="{top + PANEL_H - 10 - 14 * i}" text-anchor="end" '
                   f'font-size="11">same: {escape(note)}</text>')
    for group in groups.values():
        name, values = group[0], series[group[0]]
        coords = " ".join(f"{px(x):.1f},{py(y):.1f}"
                          for x, y in cdf_points(values))
        dash = ' stroke-dasharray="6,4"' if name == OPTIMUM else ""
        out.append(f'<polyline fill="none" stroke="{colours[name]}" '
                   f'stroke-width="1.8"{dash} points="{coords}"/>')


def render(scenarios):
    all_series = [s for phases in scenarios.values() for s in phases.values()]
    names = []
    for series in all_series:
        for name in series:
            if name not in names and name != OPTIMUM:
                names.append(name)
    colours = {n: COLOURS[i % len(COLOURS)] for i, n in enumerate(names)}
    colours[OPTIMUM] = "black"
    if any(OPTIMUM in s for s in all_series):
        names.append(OPTIMUM)

    cols = max(len(phases) for phases in scenarios.values())
    row_h = TOP + PANEL_H + BOTTOM
    width = LEFT + cols * PANEL_W + (cols - 1) * GAP + RIGHT
    height = len(scenarios) * row_h
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{LEFT}" y="22" font-size="15">vttm-bench: share of '
        'frames at most x (higher and further left is better)</text>',
    ]
    for row, ((scenario, xlabel), phases) in enumerate(scenarios.items()):
        y0 = row * row_h
        mid = y0 + TOP + PANEL_H / 2
        out.append(f'<text x="22" y="{mid}" text-anchor="middle" '
                   f'transform="rotate(-90 22 {mid})">share of frames</text>')
        x_max = max(max(v) for s in phases.values() for v in s.values())
        for i, (phase, series) in enumerate(phases.items()):
            x0 = LEFT + i * (PANEL_W + GAP)
            panel(out, x0, y0, f"{scenario}, phase {phase}", xlabel, series,
                  colours, x_max if x_max > 0 else 1)

    legend_x = width - RIGHT + 20
    out.append(f'<rect x="{legend_x - 10}" y="{TOP}" width="{RIGHT - 30}" '
               f'height="{20 * len(names) + 10}" fill="white" '
               'stroke="#aaaaaa"/>')
    for i, name in enumerate(names):
        ly = TOP + 20 * i + 20
        dash = ' stroke-dasharray="6,4"' if name == OPTIMUM else ""
        out.append(f'<line x1="{legend_x}" y1="{ly - 4}" '
                   f'x2="{legend_x + 25}" y2="{ly - 4}" '
                   f'stroke="{colours[name]}" stroke-width="3"{dash}/>')
        out.append(f'<text x="{legend_x + 32}" y="{ly}">'
                   f'{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3:
        print(f"usage: {argv[0]} INPUT OUTPUT.svg", file=sys.stderr)
        return 2
    try:
        scenarios = collect(read_rows(argv[1]))
    except (OSError, ValueError) as exc:
        print(f"plot.py: {exc}", file=sys.stderr)
        return 1
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(render(scenarios))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
