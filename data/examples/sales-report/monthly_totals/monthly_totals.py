# SPDX-License-Identifier: GPL-3.0-or-later
"""Step "monthly totals": add up the revenue and units sold in every month."""

import csv
import os
import pickle
import sys

KEY = "monthly_totals"
PRIORS = ["load_sales"]
OUTPUT_FILE = "monthly_totals.csv"
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July",
               "August", "September", "October", "November", "December")

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
    _report("Add up the revenue and the units sold in every month, and save the totals "
            f"as {OUTPUT_FILE}.", fresh=True)
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
            # The month is the "2024-01" part of the date, so that months of
            # different years are never mixed up.
            month = row["date"][:7]
            entry = totals.setdefault(month, {"revenue": 0.0, "units": 0, "sales": 0})
            entry["revenue"] += row["revenue"]
            entry["units"] += row["units"]
            entry["sales"] += 1

        monthly = []
        for month in sorted(totals):
            monthly.append({
                "month": month,
                "month_name": MONTH_NAMES[int(month[5:7]) - 1],
                "year": int(month[:4]),
                "sales": totals[month]["sales"],
                "units": totals[month]["units"],
                "revenue": round(totals[month]["revenue"], 2),
            })

        with open(_path(OUTPUT_FILE), "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(["month", "month_name", "sales", "units", "revenue"])
            for entry in monthly:
                writer.writerow([entry["month"], entry["month_name"], entry["sales"],
                                 entry["units"], f"{entry['revenue']:.2f}"])
    except (KeyError, TypeError, ValueError, IndexError) as error:
        state["output"] = {"task_status": "failed",
                           "error_log": f"a sales row is not in the expected form ({error!r})"}
        _report("Task failed: a sales row is not in the expected form")
        return
    except OSError as error:
        state["output"] = {"task_status": "failed", "error_log": str(error)}
        _report(f"Task failed: could not write {OUTPUT_FILE} ({error.strerror})")
        return

    total_revenue = round(sum(entry["revenue"] for entry in monthly), 2)
    state["output"] = {
        "task_status": "success",
        "monthly_totals": monthly,
        "month_count": len(monthly),
        "total_revenue": total_revenue,
        "total_units": sum(entry["units"] for entry in monthly),
        "csv_file": OUTPUT_FILE,
    }
    _report(f"Computed {len(monthly)} monthly totals, {total_revenue:,.2f} in all")
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
