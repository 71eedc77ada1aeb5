"""Turns one bench/run.sh run into its report: prints each goal of issue 13 beside its figure and
whether it was met, and writes every case and goal as JSON. Exits 3 when a goal was missed.

Usage: results.py CASES.tsv GOALS.tsv RESULTS.json --machine TEXT --label TEXT --wrk TEXT
CASES.tsv: label, req/s, p50, p99, max (ms), errors. GOALS.tsv: key, case, figure (empty: not measured),
comparison (>=, <, <=), goal, unit."""

from __future__ import annotations

import argparse
import datetime
import json
import operator
import sys

COMPARE = {">=": operator.ge, "<": operator.lt, "<=": operator.le}


def read_tsv(path: str) -> list[list[str]]:
    with open(path, encoding="utf-8") as file:
        return [line.rstrip("\n").split("\t") for line in file if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("cases")
    parser.add_argument("goals")
    parser.add_argument("results")
    parser.add_argument("--machine", required=True)
    parser.add_argument("--label", required=True)
    parser.add_argument("--wrk", required=True)
    args = parser.parse_args()

    cases = [
        {"case": label, "rps": float(rps), "p50_ms": float(p50), "p99_ms": float(p99), "max_ms": float(peak),
         "errors": int(errors)}
        for label, rps, p50, p99, peak, errors in read_tsv(args.cases)
    ]
    goals = []
    for key, case, figure, comparison, goal, unit in read_tsv(args.goals):
        value = float(figure) if figure else None
        met = None if value is None else COMPARE[comparison](value, float(goal))
        goals.append({"key": key, "case": case, "value": value, "comparison": comparison, "goal": float(goal),
                      "unit": unit, "met": met})

    print(f"{'goal (issue 13)':<72} {'figure':>10} {'goal':>10}  met")
    for goal in goals:
        figure = "—" if goal["value"] is None else f"{goal['value']:.2f}{goal['unit']}"
        target = f"{goal['comparison']} {goal['goal']:g}{goal['unit']}"
        verdict = "not measured" if goal["met"] is None else ("yes" if goal["met"] else "MISSED")
        print(f"{goal['case']:<72} {figure:>10} {target:>10}  {verdict}")
    met = sum(1 for goal in goals if goal["met"])
    measured = sum(1 for goal in goals if goal["met"] is not None)
    print(f"{met} of {measured} measured goals met")

    with open(args.results, "w", encoding="utf-8") as file:
        json.dump({
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": args.machine, "build": args.label, "wrk": args.wrk, "cases": cases, "goals": goals,
        }, file, indent=2, ensure_ascii=False)
        file.write("\n")
    return 0 if met == measured else 3


if __name__ == "__main__":
    sys.exit(main())
