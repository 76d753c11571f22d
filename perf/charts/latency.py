#!/usr/bin/env python3
"""Draws perf/latency's percentiles (latency.json) as grouped bars on a log scale.

Usage: perf/charts/latency.py LATENCY.json OUT.png   (perf/latency --chart runs it)
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PERCENTILES = ["p50", "p90", "p99", "p99.9"]


def main():
    rows = json.load(open(sys.argv[1]))
    figure, axes = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(rows)
    for index, row in enumerate(rows):
        xs = [i + index * width for i in range(len(PERCENTILES))]
        axes.bar(xs, [row[f"{p}_us"] for p in PERCENTILES], width, label=row["engine"])
    axes.set_xticks([i + 0.4 - width / 2 for i in range(len(PERCENTILES))], PERCENTILES)
    axes.set_yscale("log")
    axes.set_ylabel("µs from next() to the observer (log)")
    axes.set_title(f"S7 latency: {rows[0]['events']:,} events at {rows[0]['rate']:,}/s")
    axes.grid(True, axis="y", which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(sys.argv[2], dpi=100)
    print(f"chart: {sys.argv[2]}")


if __name__ == "__main__":
    main()
