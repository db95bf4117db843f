# SPDX-License-Identifier: GPL-3.0-or-later
"""Step "revenue chart": draw the revenue of every month as an SVG bar chart."""

import math
import os
import pickle
import sys
from xml.sax.saxutils import escape

KEY = "revenue_chart"
PRIORS = ["monthly_totals"]
OUTPUT_FILE = "revenue_chart.svg"

# The chart's size and margins, in pixels.
WIDTH, HEIGHT = 800, 450
LEFT, RIGHT, TOP, BOTTOM = 90, 30, 84, 50
FONT = "Cantarell, 'Noto Sans', 'DejaVu Sans', Arial, sans-serif"
BAR_COLOUR, BEST_COLOUR = "#62a0ea", "#1c71d8"

# Every path is taken relative to this script's folder, so that the step works
# whatever the current directory is.
FOLDER = os.path.dirname(os.path.abspath(__file__))

state = {}


def _path(name):
    return os.path.join(FOLDER, name)


def _report(line, fresh=False):
    with open(_path(KEY + "_summary.txt"), "w" if fresh else "a", encoding="utf-8") as f:
        f.write(line + "\n")


def nice_step(largest, count=5):
    """Return a round tick spacing (1, 2, 2.5 or 5 times a power of ten) for about count ticks."""
    if largest <= 0:
        return 1.0
    raw = largest / count
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * power >= raw:
            return factor * power
    return 10 * power


def short_amount(value):
    """Write 3427.25 as "3.4k", short enough to fit above a bar."""
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= limit:
            return f"{value / limit:.1f}".rstrip("0").rstrip(".") + suffix
    return f"{value:.0f}"


def _text(x, y, content, size=12, anchor="middle", colour="#3d3846", extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'fill="{colour}"{extra}>{escape(content)}</text>')


def draw_chart(monthly):
    """Return the SVG document, as text, for a list of monthly totals."""
    years = sorted({entry["year"] for entry in monthly})
    period = str(years[0]) if len(years) == 1 else f"{years[0]}\u2013{years[-1]}"
    values = [entry["revenue"] for entry in monthly]
    best = values.index(max(values))
    total = sum(values)
    best_name = monthly[best]["month_name"]
    if len(years) > 1:
        best_name += f" {monthly[best]['year']}"

    step = nice_step(max(values) * 1.05)
    # The top of the scale leaves a little room above the tallest bar for its label.
    top = step * max(1, math.ceil(max(values) * 1.05 / step))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    base = TOP + plot_h

    def y_of(value):
        return base - plot_h * value / top

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{WIDTH}" '
        f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}">',
        f"<title>Monthly revenue, {escape(period)}</title>",
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<g font-family="{escape(FONT)}">',
        _text(LEFT, 36, f"Monthly revenue, {period}", size=20, anchor="start",
              colour="#241f31", extra=' font-weight="bold"'),
        _text(LEFT, 60, f"Total {total:,.2f} \u2014 the darker bar is the best month, "
              f"{best_name}", size=13, anchor="start", colour="#5e5c64"),
    ]

    # Horizontal grid lines with their amounts on the left.
    tick_count = round(top / step)
    for i in range(tick_count + 1):
        value = i * step
        y = y_of(value)
        label = f"{value:,.0f}" if step >= 1 else f"{value:,.2f}"
        if i > 0:
            out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" '
                       'stroke="#deddda" stroke-width="1"/>')
        out.append(_text(LEFT - 10, y + 4, label, anchor="end", colour="#5e5c64"))
    out.append(_text(26, TOP + plot_h / 2, "Revenue", size=13, colour="#3d3846",
                     extra=f' transform="rotate(-90 26 {TOP + plot_h / 2:.1f})"'))

    band = plot_w / len(monthly)
    bar_w = min(band * 0.64, 64)
    # All amounts above the bars are written the same way: in full when they
    # fit, shortened when they do not, and left out when the bars are too narrow.
    amounts = [f"{value:,.0f}" for value in values]
    if max(len(amount) for amount in amounts) * 6.5 > band - 4:
        amounts = [short_amount(value) for value in values]
    if max(len(amount) for amount in amounts) * 6.5 > band - 4:
        amounts = None
    for i, entry in enumerate(monthly):
        x = LEFT + i * band + (band - bar_w) / 2
        y = y_of(entry["revenue"])
        colour = BEST_COLOUR if i == best else BAR_COLOUR
        out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" '
                   f'height="{base - y:.1f}" fill="{colour}">'
                   f"<title>{escape(entry['month_name'])} {entry['year']}: "
                   f"{entry['revenue']:,.2f}</title></rect>")
        centre = x + bar_w / 2
        if amounts:
            out.append(_text(centre, y - 6, amounts[i], size=11))
        label = entry["month_name"][:3] if band >= 28 else entry["month_name"][0]
        out.append(_text(centre, base + 20, label, size=12))
        # Over several years, the year is written under the first month of each.
        if len(years) > 1 and (i == 0 or entry["year"] != monthly[i - 1]["year"]):
            out.append(_text(centre, base + 36, str(entry["year"]), size=11,
                             colour="#5e5c64"))

    out.append(f'<line x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}" '
               'stroke="#77767b" stroke-width="1.5"/>')
    out.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}" '
               'stroke="#77767b" stroke-width="1.5"/>')
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def preprocess(prior_outputs):
    state["local"] = {}
    state.pop("output", None)
    _report(f"Draw a bar chart of the revenue of every month as {OUTPUT_FILE}.", fresh=True)
    totals = prior_outputs.get("monthly_totals") or {}
    if totals.get("task_status") != "success":
        _report('Cannot run: the step "monthly totals" did not finish successfully.')
        return False
    if not isinstance(totals.get("monthly_totals"), list) or not totals["monthly_totals"]:
        _report('Cannot run: the step "monthly totals" passed on no monthly totals.')
        return False
    state["local"]["monthly"] = totals["monthly_totals"]
    return True


def compute():
    monthly = state["local"]["monthly"]
    try:
        svg = draw_chart(monthly)
        with open(_path(OUTPUT_FILE), "w", encoding="utf-8") as f:
            f.write(svg)
    except (KeyError, TypeError, ValueError) as error:
        state["output"] = {"task_status": "failed",
                           "error_log": f"the monthly totals are not in the expected form "
                                        f"({error!r})"}
        _report("Task failed: the monthly totals are not in the expected form")
        return
    except OSError as error:
        state["output"] = {"task_status": "failed", "error_log": str(error)}
        _report(f"Task failed: could not write {OUTPUT_FILE} ({error.strerror})")
        return

    state["output"] = {
        "task_status": "success",
        "chart_file": OUTPUT_FILE,
        "bar_count": len(monthly),
    }
    _report(f"Drew {len(monthly)} bars, one per month")
    _report(f"{OUTPUT_FILE} created")
    _report("Task completed successfully")


def save():
    with open(_path(KEY + ".pkl"), "wb") as f:
        pickle.dump(state["output"], f)


if __name__ == "__main__":
    prior_outputs = {}
    for prior_key in PRIORS:
        try:
            with open(os.path.join(FOLDER, os.pardir, prior_key, prior_key + ".pkl"), "rb") as f:
                prior_outputs[prior_key] = pickle.load(f)
        except (OSError, EOFError, pickle.UnpicklingError):
            prior_outputs[prior_key] = {}
    if preprocess(prior_outputs):
        compute()
        save()
        sys.exit(0 if state["output"]["task_status"] == "success" else 1)
