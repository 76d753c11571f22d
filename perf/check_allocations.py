#!/usr/bin/env python3
"""CI gate on Bond's allocations per event (deterministic, unlike times).

Usage: perf/check_allocations.py RESULTS.jmh.json [--thresholds perf/allocation-thresholds.json]

Reads a package-benchmark JMH export of the suite (perf/bench writes it to
Benchmarks/.build/bench-results/Current_run.jmh.json), takes Bond's mallocs per event for every
scenario that has a threshold for this Swift version, and
  - fails (exit 1) when a count is above its threshold: a regression;
  - prints a reminder when a count is well below its threshold: lower the threshold to record
    the improvement (thresholds are checked in both directions, as swift-nio does).
Times are never gated: they are noise on these machines.
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import table  # noqa: E402  (perf/table.py: the suite's parser)


def swift_version():
    out = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout
    match = re.search(r"Swift version (\d+\.\d+)", out)
    return match.group(1) if match else "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("--thresholds", default=os.path.join(os.path.dirname(__file__), "allocation-thresholds.json"))
    args = parser.parse_args()

    with open(args.thresholds) as handle:
        all_thresholds = json.load(handle)
    version = swift_version()
    thresholds = all_thresholds.get(version)
    # Counts that depend on thread timing (drain blocks, queue growth under contention): gated, but
    # no reminder to lower their thresholds when one run happens to allocate less.
    timing_dependent = set(all_thresholds.get("_timing_dependent", []))
    if thresholds is None:
        print(f"check_allocations: no thresholds for Swift {version} in {args.thresholds}; add a section for it")
        return 1

    cells, _ = table.per_event(table.load(args.results))
    failures, reminders = [], []
    print(f"Bond mallocs per event (Swift {version}), gate: measured <= threshold")
    for scenario, limit in sorted(thresholds.items(), key=lambda item: int(re.sub(r"\D", "", item[0]))):
        cell = cells.get((scenario, "Bond"))
        if cell is None or cell["mallocs"] is None:
            failures.append(f"{scenario}: not measured (did the benchmark run?)")
            print(f"  {scenario:4} not measured")
            continue
        measured = cell["mallocs"]
        verdict = "ok"
        if measured > limit:
            verdict = "REGRESSION"
            failures.append(f"{scenario}: {measured:.4g} mallocs/event > threshold {limit:g}")
        elif limit >= 0.01 and measured < limit / 2 and scenario not in timing_dependent:
            verdict = "improved"
            reminders.append(f"{scenario}: {measured:.4g} mallocs/event, threshold {limit:g}: lower it in {args.thresholds}")
        print(f"  {scenario:4} {measured:10.4g}  threshold {limit:<8g} {verdict}")
    for reminder in reminders:
        print(f"reminder: {reminder}")
    for failure in failures:
        print(f"check_allocations: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
