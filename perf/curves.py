#!/usr/bin/env python3
"""Turns BondCurves' JSON lines into perf/curves.md (tables) and perf/charts/<curve>.png (log-log)."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TITLES = {
    "observers": ("observers of one producer", "ns per event"),
    "replay": ("replay length (events replayed on subscribe)", "ns per subscribe + dispose"),
    "chain": ("map stages in the chain", "ns per event"),
    "combineLatest": ("combineLatest arity", "ns per event"),
    "lanes": ("partition lanes (~1 µs of work per event)", "ns per event"),
    "concurrentMap": ("map(maxConcurrent:) (~1 µs of work per event)", "ns per event"),
}


def main():
    source = sys.argv[1]
    here = os.path.dirname(os.path.abspath(source))
    points = [json.loads(line) for line in open(source) if line.strip()]
    curves = {}
    for p in points:
        curves.setdefault(p["curve"], {}).setdefault(p["engine"], []).append((p["x"], p["ns"]))
    os.makedirs(os.path.join(here, "charts"), exist_ok=True)
    lines = ["# Scale curves", "", "Made by `perf/curves` (wall clock, best of 3 per point, one run: compare within a table).", ""]
    for curve, engines in curves.items():
        xlabel, ylabel = TITLES.get(curve, (curve, "ns"))
        xs = sorted({x for series in engines.values() for x, _ in series})
        lines += [f"## {curve}", "", f"{ylabel} by {xlabel}", "",
                  "| " + xlabel + " | " + " | ".join(engines) + " |",
                  "|---:|" + "---:|" * len(engines)]
        for x in xs:
            cells = []
            for series in engines.values():
                value = dict(series).get(x)
                cells.append(f"{value:,.1f}" if value is not None else "n/a")
            lines.append(f"| {x:,} | " + " | ".join(cells) + " |")
        lines += ["", f"![{curve}](charts/{curve}.png)", ""]
        figure, axes = plt.subplots(figsize=(6, 4))
        for engine, series in engines.items():
            series = sorted(series)
            axes.plot([x for x, _ in series], [y for _, y in series], marker="o", label=engine)
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xlabel(xlabel)
        axes.set_ylabel(ylabel + " (log)")
        axes.set_title(f"Bond scale curve: {curve}")
        axes.grid(True, which="both", alpha=0.3)
        axes.legend()
        figure.tight_layout()
        figure.savefig(os.path.join(here, "charts", f"{curve}.png"), dpi=100)
        plt.close(figure)
    with open(os.path.join(here, "curves.md"), "w") as handle:
        handle.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
