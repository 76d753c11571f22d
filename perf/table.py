#!/usr/bin/env python3
"""Turns a package-benchmark JMH export of the Bond suite into ONE table.

Usage: perf/table.py RESULTS.jmh.json [--log RUN.log] [--markdown] [--csv FILE]

Rows are the scenarios of perf/scenarios.json (the suite's one registry: ids, titles, units,
which engines apply, notes), columns engines; a cell is
"ns/event  mallocs/event":
  ns/event      = median wall clock of one iteration / events per iteration
  mallocs/event = (mean mallocs of one iteration - the framework's own mallocs, measured by the
                  "S0 noop" benchmark) / events per iteration, i.e. the total over the run
                  divided by the events of the run.
The events per iteration come from each benchmark's `events` tag (Support.swift).
Three ratio columns follow, all from the same run:
  Bond/floor    = Bond's ns/event divided by the floor baseline's (the closure baseline's call
                  between the uncontended atomic pair any serialized send needs, one per event);
  Bond/closure  = Bond's ns/event divided by the closure baseline's (a bare closure call);
  peer/Bond     = the best peer's ns/event divided by Bond's (how many times faster Bond is than
                  the fastest of OpenCombine and swift-async-algorithms on that scenario).
"""

import argparse
import json
import math
import os
import re
import sys
import textwrap

# The one registry of the suite's scenarios (the benchmarks read it too: Support.swift).
REGISTRY_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios.json")
with open(REGISTRY_PATH) as _handle:
    REGISTRY = json.load(_handle)

ENGINES = REGISTRY["engines"]
PEERS = REGISTRY["peers"]
# (id, title, unit, engines, note) of every scenario, in table order; S0 (the calibration) has no
# engine column and never shows as a row.
SCENARIOS = [(s["id"], s["title"], s.get("unit", "event"), set(s["engines"]), s.get("note"))
             for s in REGISTRY["scenarios"]]

LEGEND = [
    "cell = ns and mallocs per event{units}; ns from the median iteration, mallocs = run total / events.",
    "floor: the closure baseline with each send between the uncontended atomic pair any serialized"
    " send needs (compare-exchange before, subtraction after: Floor.swift), one per event.",
    "Bond/floor, Bond/closure: Bond's time over the floor's, over the bare closure's (lower is better)."
    " peer/Bond: the best peer's time over Bond's (higher is better: Bond is that many times faster).",
]
FOOTER = "n/a: the engine has no natural equivalent (perf/scenarios.json lists no such cell).  —: filtered out (not run)."


def notes_for(rows):
    """The legend, the registry's general notes, then the notes of the scenarios in `rows`."""
    shown = {row[0].split(" ", 1)[0] for row in rows}
    units = {}
    for scenario, _, unit, _, _ in SCENARIOS:
        if scenario in shown and unit != "event":
            units.setdefault(unit, []).append(scenario)
    unit_text = "".join(f"; per {unit}: {', '.join(ids)}" for unit, ids in units.items())
    unit_text = f" ({unit_text[2:]})" if unit_text else ""
    notes = [LEGEND[0].format(units=unit_text)] + LEGEND[1:] + list(REGISTRY["notes"])
    notes += [f"{scenario}: {note}" for scenario, _, _, _, note in SCENARIOS if scenario in shown and note]
    return notes + [FOOTER]


LOG_NAME = re.compile(r"BondBenchmarks:(S\d+[a-z]?) \S+ \(engine: ([^,]+), events: \d+\)")
NAME = re.compile(r"\.(S\d+[a-z]?)_([^_]+)_\(engine:_([^,]+),_events:_(\d+)\)$")


def load(path):
    with open(path) as handle:
        elements = json.load(handle)
    results = {}
    for element in elements:
        match = NAME.search(element["benchmark"])
        if not match:
            continue
        scenario, _, engine, events = match.groups()
        metrics = element.get("secondaryMetrics") or {}
        wall = metrics.get("Time (wall clock)")
        if wall is None:
            continue
        mallocs = metrics.get("Malloc (total)")
        instructions = metrics.get("Instructions")
        # JMH export: times in microseconds (3 decimals), counts as they are.
        results[(scenario, engine)] = {
            "events": int(events),
            "iterations": element.get("measurementIterations"),
            "wall_ns_p50": wall["scorePercentiles"]["50.0"] * 1000.0,
            "wall_ns_mean": wall["score"] * 1000.0,
            "mallocs_mean": mallocs["score"] if mallocs else None,
            "instructions_mean": instructions["score"] if instructions else None,
        }
    return results


def per_event(results):
    overhead = 0.0
    calibration = results.get(("S0", "calibration"))
    if calibration and calibration["mallocs_mean"] is not None:
        overhead = calibration["mallocs_mean"]
    cells = {}
    for (scenario, engine), r in results.items():
        if engine == "calibration":
            continue
        events = r["events"]
        cell = {
            "ns": r["wall_ns_p50"] / events,
            "throughput": events * 1e9 / r["wall_ns_p50"] if r["wall_ns_p50"] > 0 else math.inf,
            "mallocs": None,
            "instructions": None,
            "iterations": r["iterations"],
            "events": events,
        }
        if r["mallocs_mean"] is not None:
            cell["mallocs"] = max(0.0, r["mallocs_mean"] - overhead) / events
        if r["instructions_mean"] is not None:
            cell["instructions"] = r["instructions_mean"] / events
        cells[(scenario, engine)] = cell
    return cells, overhead


def fmt_ns(value):
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def fmt_mallocs(value):
    if value is None:
        return "?"
    if value == 0:
        return "0"
    if value < 0.001:
        return "<.001"
    if value < 10:
        return f"{value:.3g}"
    return f"{value:.0f}"


def fmt_ratio(value):
    if value >= 100:
        return f"{value:.0f}x"
    if value >= 10:
        return f"{value:.1f}x"
    return f"{value:.2f}x"


def started_benchmarks(log_path):
    """(scenario, engine) of every benchmark the run log shows starting."""
    started = set()
    if log_path:
        with open(log_path, errors="replace") as handle:
            for match in LOG_NAME.finditer(handle.read()):
                started.add(match.groups())
    return started


def build_rows(cells, started=frozenset()):
    """Rows of [label, engine cells..., Bond/floor, Bond/closure, peer/Bond]; an engine cell is a
    (ns, mallocs) pair of strings, or one string (n/a, dropped, —)."""
    rows = []
    for scenario, name, _, engines, _ in SCENARIOS:
        row = [f"{scenario} {name}"]
        present = False
        for engine in ENGINES:
            cell = cells.get((scenario, engine))
            if cell:
                present = True
                row.append((fmt_ns(cell["ns"]), fmt_mallocs(cell["mallocs"])))
            elif (scenario, engine) in started:
                present = True
                row.append("dropped")
            elif engine not in engines:
                row.append("n/a")
            else:
                row.append("—")
        if not present:
            continue
        bond = cells.get((scenario, "Bond"))
        peers = [(cells[(scenario, p)]["ns"], p) for p in PEERS if (scenario, p) in cells]
        for baseline in ["floor", "closure"]:
            base = cells.get((scenario, baseline))
            row.append(fmt_ratio(bond["ns"] / base["ns"]) if bond and base and base["ns"] > 0 else "—")
        if bond and peers:
            best_ns, best = min(peers)
            row.append(f"{fmt_ratio(best_ns / bond['ns'])} {best}")
        else:
            row.append("—")
        rows.append(row)
    return rows


def render_text(header, rows):
    """Engine columns show "ns mallocs" with both parts aligned; the rest is right-aligned."""
    columns = len(header)
    ns_width = [0] * columns
    malloc_width = [0] * columns
    for row in rows:
        for i, cell in enumerate(row):
            if isinstance(cell, tuple):
                ns_width[i] = max(ns_width[i], len(cell[0]))
                malloc_width[i] = max(malloc_width[i], len(cell[1]))

    def text(i, cell):
        if isinstance(cell, tuple):
            return cell[0].rjust(ns_width[i]) + " " + cell[1].ljust(malloc_width[i])
        return cell

    sub = [""] + ["ns mallocs" if ns_width[i] else "" for i in range(1, columns)]
    table = [header, sub] + [[text(i, c) for i, c in enumerate(r)] for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(columns)]

    def line(cells):
        out = [cells[0].ljust(widths[0])]
        out += [cells[i].rjust(widths[i]) for i in range(1, columns)]
        return "  ".join(out).rstrip()

    rule = "-" * max(len(line(r)) for r in table)
    return "\n".join([line(header), line(sub), rule] + [line(r) for r in table[2:]])


def render_markdown(header, rows):
    def text(cell):
        return f"{cell[0]} ns · {cell[1]}" if isinstance(cell, tuple) else cell

    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    out += ["| " + " | ".join(text(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def write_csv(path, cells):
    with open(path, "w") as handle:
        handle.write("scenario,engine,events_per_iteration,iterations,ns_per_event,events_per_second,"
                     "mallocs_per_event,instructions_per_event\n")
        for scenario, *_ in SCENARIOS:
            for engine in ENGINES:
                cell = cells.get((scenario, engine))
                if not cell:
                    continue
                handle.write(",".join(str(x) for x in [
                    scenario, engine, cell["events"], cell["iterations"], f"{cell['ns']:.4f}",
                    f"{cell['throughput']:.0f}",
                    "" if cell["mallocs"] is None else f"{cell['mallocs']:.6f}",
                    "" if cell["instructions"] is None else f"{cell['instructions']:.2f}",
                ]) + "\n")


def stage_summary(cells):
    """S13's scaling line: the 2-lane/1-lane speed-up of Bond and of the hand-written partition, and
    the mallocs per event of the hand-written one over Bond's, with this machine's core count."""
    parts = []
    for engine, label in [("Bond", "Bond"), ("naive", "hand-written")]:
        one, two = cells.get(("S13a", engine)), cells.get(("S13b", engine))
        if one and two and two["ns"] > 0:
            parts.append(f"{label} {one['ns'] / two['ns']:.2f}x")
    if not parts:
        return ""
    line = f"S13 2-lane/1-lane speed-up on {os.cpu_count()} cores: " + ", ".join(parts)
    bond, naive = cells.get(("S13b", "Bond")), cells.get(("S13b", "naive"))
    if bond and naive and bond["mallocs"] is not None and naive["mallocs"] is not None:
        if bond["mallocs"] > 0:
            line += f"; hand-written mallocs/event {naive['mallocs'] / bond['mallocs']:.0f}x Bond's"
        else:
            line += f"; mallocs/event: Bond 0, hand-written {fmt_mallocs(naive['mallocs'])}"
    return line + "."


def concurrent_map_summary(cells):
    """S20b's targets: Bond's time at most half the TaskGroup window's, at most 1 malloc per event."""
    bond, window = cells.get(("S20b", "Bond")), cells.get(("S20b", "naive"))
    if not bond:
        return ""
    line = f"S20b map(maxConcurrent: 2), transform returning at once: {fmt_ns(bond['ns'])} ns/event"
    if window and window["ns"] > 0:
        ratio = bond["ns"] / window["ns"]
        line += (f", {ratio:.2f}x the TaskGroup window's {fmt_ns(window['ns'])} ns"
                 f" (target <= 0.5x: {'met' if ratio <= 0.5 else 'MISSED'})")
    if bond["mallocs"] is not None:
        line += (f"; {fmt_mallocs(bond['mallocs'])} mallocs/event"
                 f" (target <= 1: {'met' if bond['mallocs'] <= 1 else 'MISSED'})")
        if window and window["mallocs"] is not None:
            line += f", the window {fmt_mallocs(window['mallocs'])}"
    return line + "."


def ratio_summary(cells, label, numerator, denominator, target):
    """One line: `numerator`'s time over `denominator`'s (both (scenario, engine)), against `target`."""
    a, b = cells.get(numerator), cells.get(denominator)
    if not a or not b or b["ns"] <= 0:
        return ""
    ratio = a["ns"] / b["ns"]
    return (f"{label}: {fmt_ns(a['ns'])} against {fmt_ns(b['ns'])} ns/event, {ratio:.2f}x"
            f" (target <= {target}x: {'met' if ratio <= target else 'MISSED'}).")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="the JMH export (swift package benchmark --format jmh)")
    parser.add_argument("--log", help="the run's log: benchmarks that ran but are not in the export show as 'dropped'")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--csv", help="also write every figure (throughput, instructions) to this CSV file")
    args = parser.parse_args()

    results = load(args.results)
    if not results:
        sys.exit(f"table.py: no Bond suite results in {args.results}")
    cells, overhead = per_event(results)
    header = ["scenario"] + ENGINES + ["Bond/floor", "Bond/closure", "peer/Bond"]
    started = started_benchmarks(args.log)
    rows = build_rows(cells, started)
    print(render_markdown(header, rows) if args.markdown else render_text(header, rows))
    print()
    for note in notes_for(rows):
        if args.markdown:
            print("- " + note)
        else:
            print(textwrap.fill(note, width=110, initial_indent="  ", subsequent_indent="    "))
    if any(cell == "dropped" for row in rows for cell in row):
        print(("- " if args.markdown else "  ") + "dropped: an iteration took over 2 s, so package-benchmark"
              " recorded no throughput and its JMH export left the benchmark out; lower its events.")
    if any(c["instructions"] is not None for c in cells.values()):
        print("  instructions/event are in the CSV.")
    else:
        print(("- " if args.markdown else "  ") + "instructions: no hardware counters here"
              " (perf_event not supported); not measured.")
    print(("- " if args.markdown else "  ") + f"malloc overhead of the framework subtracted: {overhead:.0f} per iteration.")
    for summary in [stage_summary(cells), concurrent_map_summary(cells),
                    ratio_summary(cells, "S22 groupBy over the hand-written dictionary of producers",
                                  ("S22", "Bond"), ("S22", "naive"), 1.5),
                    ratio_summary(cells, "S23 timeout over debounce, both re-armed by every event",
                                  ("S23a", "Bond"), ("S23b", "Bond"), 1.0)]:
        if summary:
            print(("- " if args.markdown else "  ") + summary)
    if args.csv:
        write_csv(args.csv, cells)


if __name__ == "__main__":
    main()
