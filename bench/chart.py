"""Draws bench/run.sh's results.json as a plain SVG bar chart (no dependencies): one bar per goal of
issue 13, as its figure relative to the goal (for "lower is better" goals, the goal over the figure),
so every bar that reaches the goal line met its goal. The date and machine are in the title.

Usage: chart.py RESULTS.json CHART.svg"""

from __future__ import annotations

import json
import sys
from html import escape

WIDTH = 900
LABEL_WIDTH = 430
BAR_LEFT = LABEL_WIDTH + 10
BAR_WIDTH = WIDTH - BAR_LEFT - 150
ROW = 30
TOP = 70
SCALE_MAX = 2.0  # the axis runs to twice the goal
SIGNS = {">=": "≥", "<=": "≤", "<": "<"}


def score(goal: dict) -> float | None:
    value, target = goal["value"], goal["goal"]
    if value is None:
        return None
    if goal["comparison"] == ">=":
        return value / target if target else 0.0
    return target / value if value > 0 else SCALE_MAX


def figure(goal: dict) -> str:
    if goal["value"] is None:
        return "not measured"
    unit = goal["unit"]
    number = f"{goal['value']:.2f}" if unit == "×" else f"{goal['value']:.1f}"
    return f"{number}{unit if unit == '×' else ' ' + unit} (goal {SIGNS[goal['comparison']]} {goal['goal']:g}{'' if unit == '×' else ' ' + unit})"


def draw(results: dict) -> str:
    goals = results["goals"]
    height = TOP + ROW * len(goals) + 40
    met = sum(1 for goal in goals if goal["met"])
    measured = sum(1 for goal in goals if goal["met"] is not None)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" '
        'font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        f'<text x="12" y="22" font-size="15" font-weight="600">Gatehouse benchmark: issue 13 goals, {met} of {measured} met</text>',
        f'<text x="12" y="40" fill="#555">{escape(results["date"][:10])} · {escape(results["machine"])} · '
        f'{escape(results["build"])} build · {escape(results["wrk"])}</text>',
        f'<text x="12" y="56" fill="#777">Bar: the figure as a share of its goal (lower-is-better goals inverted); '
        f'reaching the line meets the goal. Axis to {SCALE_MAX:g}× the goal.</text>',
    ]
    goal_x = BAR_LEFT + BAR_WIDTH / SCALE_MAX
    for index, goal in enumerate(goals):
        y = TOP + index * ROW
        value = score(goal)
        colour = "#bbbbbb" if goal["met"] is None else ("#2e7d32" if goal["met"] else "#c62828")
        if index % 2 == 0:
            parts.append(f'<rect x="0" y="{y - 4}" width="{WIDTH}" height="{ROW}" fill="#f6f6f6"/>')
        parts.append(f'<text x="12" y="{y + 15}">{escape(goal["case"] if len(goal["case"]) <= 62 else goal["case"][:61] + "…")}</text>')
        if value is not None:
            length = max(1.0, min(value, SCALE_MAX) / SCALE_MAX * BAR_WIDTH)
            parts.append(f'<rect x="{BAR_LEFT}" y="{y + 3}" width="{length:.1f}" height="16" fill="{colour}" rx="2"/>')
        parts.append(f'<text x="{BAR_LEFT + BAR_WIDTH + 8}" y="{y + 15}" fill="{colour}" font-size="11">'
                     f'{escape(figure(goal))}</text>')
    bottom = TOP + ROW * len(goals)
    parts.append(f'<line x1="{goal_x:.1f}" y1="{TOP - 6}" x2="{goal_x:.1f}" y2="{bottom}" stroke="#222" '
                 'stroke-dasharray="4 3"/>')
    parts.append(f'<text x="{goal_x:.1f}" y="{bottom + 16}" text-anchor="middle" fill="#222">goal</text>')
    parts.append(f'<text x="{BAR_LEFT}" y="{bottom + 16}" fill="#777">0</text>')
    parts.append(f'<text x="{BAR_LEFT + BAR_WIDTH}" y="{bottom + 16}" text-anchor="end" fill="#777">{SCALE_MAX:g}×</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as file:
        results = json.load(file)
    with open(sys.argv[2], "w", encoding="utf-8") as file:
        file.write(draw(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
