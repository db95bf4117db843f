# SPDX-License-Identifier: GPL-3.0-or-later
"""Step "revenue by region": add up the revenue of each sales region."""

import os
import pickle
import sys

KEY = "revenue_by_region"
PRIORS = ["load_sales"]

# Every path is taken relative to this script's folder, so that the step works
# whatever the current directory is.
FOLDER = os.path.dirname(os.path.abspath(__file__))

state = {}


def _path(name):
    return os.path.join(FOLDER, name)


def _report(line, fresh=False):
    with open(_path(KEY + "_summary.txt"), "w" if fresh else "a", encoding="utf-8") as f:
        f.write(line + "\n")


def preprocess(prior_outputs):
    state["local"] = {}
    state.pop("output", None)
    _report("Add up the revenue of each sales region and work out its share of the total.",
            fresh=True)
    sales = prior_outputs.get("load_sales") or {}
    if sales.get("task_status") != "success":
        _report('Cannot run: the step "load sales" did not finish successfully.')
        return False
    if not isinstance(sales.get("rows"), list) or not sales["rows"]:
        _report('Cannot run: the step "load sales" passed on no sales rows.')
        return False
    state["local"]["rows"] = sales["rows"]
    return True


def compute():
    try:
        totals = {}
        for row in state["local"]["rows"]:
            entry = totals.setdefault(row["region"], {"revenue": 0.0, "units": 0, "sales": 0})
            entry["revenue"] += row["revenue"]
            entry["units"] += row["units"]
            entry["sales"] += 1
    except (KeyError, TypeError) as error:
        state["output"] = {"task_status": "failed",
                           "error_log": f"a sales row is not in the expected form ({error!r})"}
        _report("Task failed: a sales row is not in the expected form")
        return

    total_revenue = round(sum(entry["revenue"] for entry in totals.values()), 2)
    regions = []
    for region, entry in totals.items():
        regions.append({
            "region": region,
            "sales": entry["sales"],
            "units": entry["units"],
            "revenue": round(entry["revenue"], 2),
            # The share is a percentage; a year without revenue has no shares.
            "share": round(100.0 * entry["revenue"] / total_revenue, 1) if total_revenue else 0.0,
        })
    # The best region first, and ties in alphabetical order so the result never varies.
    regions.sort(key=lambda entry: (-entry["revenue"], entry["region"]))

    state["output"] = {
        "task_status": "success",
        "region_totals": regions,
        "region_count": len(regions),
        "total_revenue": total_revenue,
    }
    _report(f"Computed the revenue of {len(regions)} regions, {total_revenue:,.2f} in all")
    for entry in regions:
        _report(f"  {entry['region']}: {entry['revenue']:,.2f} ({entry['share']:.1f}%)")
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
