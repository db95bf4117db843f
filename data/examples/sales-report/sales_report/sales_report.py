# SPDX-License-Identifier: GPL-3.0-or-later
"""Step "sales report": write a short plain-language report of the year's sales."""

import os
import pickle
import sys

KEY = "sales_report"
PRIORS = ["monthly_totals", "revenue_by_region"]
OUTPUT_FILE = "report.md"

# Every path is taken relative to this script's folder, so that the step works
# whatever the current directory is.
FOLDER = os.path.dirname(os.path.abspath(__file__))

state = {}


def _path(name):
    return os.path.join(FOLDER, name)


def _report(line, fresh=False):
    with open(_path(KEY + "_summary.txt"), "w" if fresh else "a", encoding="utf-8") as f:
        f.write(line + "\n")


def _money(value):
    return f"{value:,.2f}"


def write_report(monthly, regions):
    """Return the report as Markdown text, and the facts it highlights."""
    years = sorted({entry["year"] for entry in monthly})
    period = str(years[0]) if len(years) == 1 else f"{years[0]} to {years[-1]}"
    total = round(sum(entry["revenue"] for entry in monthly), 2)
    units = sum(entry["units"] for entry in monthly)
    # max() and min() keep the first of equal months, which is the earlier one.
    best = max(monthly, key=lambda entry: entry["revenue"])
    weakest = min(monthly, key=lambda entry: entry["revenue"])
    top = regions[0]

    def month_label(entry):
        return entry["month_name"] if len(years) == 1 else f"{entry['month_name']} {entry['year']}"

    lines = [
        f"# Sales report {period}",
        "",
        f"Total revenue was **{_money(total)}** from {units:,} units sold "
        f"over {len(monthly)} months, an average of {_money(total / len(monthly))} a month.",
        "",
        "## Highlights",
        "",
        f"- The best month was **{month_label(best)}**, with {_money(best['revenue'])}.",
        f"- The weakest month was **{month_label(weakest)}**, with {_money(weakest['revenue'])}.",
        f"- The best region was **{top['region']}**, with {_money(top['revenue'])} "
        f"({top['share']:.0f}% of all revenue).",
        "",
        "## Revenue by region",
        "",
        "| Region | Units | Revenue | Share |",
        "|:--|--:|--:|--:|",
    ]
    for entry in regions:
        lines.append(f"| {entry['region']} | {entry['units']:,} | {_money(entry['revenue'])} "
                     f"| {entry['share']:.1f}% |")
    lines += [
        "",
        "## Revenue by month",
        "",
        "| Month | Units | Revenue |",
        "|:--|--:|--:|",
    ]
    for entry in monthly:
        lines.append(f"| {month_label(entry)} | {entry['units']:,} "
                     f"| {_money(entry['revenue'])} |")
    facts = {
        "period": period,
        "total_revenue": total,
        "total_units": units,
        "best_month": month_label(best),
        "best_month_revenue": best["revenue"],
        "weakest_month": month_label(weakest),
        "best_region": top["region"],
        "best_region_share": top["share"],
    }
    return "\n".join(lines) + "\n", facts


def preprocess(prior_outputs):
    state["local"] = {}
    state.pop("output", None)
    _report(f"Write a short sales report, {OUTPUT_FILE}: the total revenue, the best and "
            "the weakest month, and the best region.", fresh=True)
    months = prior_outputs.get("monthly_totals") or {}
    regions = prior_outputs.get("revenue_by_region") or {}
    if months.get("task_status") != "success":
        _report('Cannot run: the step "monthly totals" did not finish successfully.')
        return False
    if regions.get("task_status") != "success":
        _report('Cannot run: the step "revenue by region" did not finish successfully.')
        return False
    if not months.get("monthly_totals") or not regions.get("region_totals"):
        _report("Cannot run: there are no monthly or regional totals to report on.")
        return False
    state["local"]["monthly"] = months["monthly_totals"]
    state["local"]["regions"] = regions["region_totals"]
    return True


def compute():
    monthly, regions = state["local"]["monthly"], state["local"]["regions"]
    try:
        text, facts = write_report(monthly, regions)
        with open(_path(OUTPUT_FILE), "w", encoding="utf-8") as f:
            f.write(text)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        state["output"] = {"task_status": "failed",
                           "error_log": f"the totals are not in the expected form ({error!r})"}
        _report("Task failed: the totals are not in the expected form")
        return
    except OSError as error:
        state["output"] = {"task_status": "failed", "error_log": str(error)}
        _report(f"Task failed: could not write {OUTPUT_FILE} ({error.strerror})")
        return

    state["output"] = {"task_status": "success", "report_file": OUTPUT_FILE, **facts}
    _report(f"Total revenue {facts['period']}: {_money(facts['total_revenue'])}")
    _report(f"Best month: {facts['best_month']} ({_money(facts['best_month_revenue'])})")
    _report(f"Best region: {facts['best_region']} "
            f"({facts['best_region_share']:.0f}% of all revenue)")
    # Both totals come from the same sales, so a difference means something went wrong.
    region_total = sum(entry["revenue"] for entry in regions)
    if abs(region_total - facts["total_revenue"]) > 0.01:
        _report(f"Warning: the regions add up to {_money(region_total)}, not "
                f"{_money(facts['total_revenue'])}")
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
