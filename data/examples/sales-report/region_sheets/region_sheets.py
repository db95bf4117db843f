# SPDX-License-Identifier: GPL-3.0-or-later
"""Step "region sheets": for each region, save its own sales as a small CSV sheet.

The step runs once per region: the runner puts the region in state["item"] and
its position in state["item_index"], and runs each one in its own folder,
items/N/ beside this script.
"""

import csv
import os
import pickle
import sys

KEY = "region_sheets"
PRIORS = ["load_sales", "revenue_by_region"]
COLUMNS = ("date", "product", "units", "unit_price", "revenue")

# The script's own folder; each region's files go to the current directory,
# which is that region's folder items/N/.
FOLDER = os.path.dirname(os.path.abspath(__file__))

state = {}


def _path(name):
    return os.path.join(os.getcwd(), name)


def _report(line, fresh=False):
    with open(_path(KEY + "_summary.txt"), "w" if fresh else "a", encoding="utf-8") as f:
        f.write(line + "\n")


def sheet_name(region):
    """Name the sheet after the region: "North East" gives north_east_sales.csv."""
    words = "".join(c if c.isalnum() else " " for c in region.lower()).split()
    return "_".join(words or ["region"]) + "_sales.csv"


def preprocess(prior_outputs):
    state["local"] = {}
    state.pop("output", None)
    _report("Save the sales of one region as a CSV sheet of its own.", fresh=True)
    region = state.get("item")
    if not isinstance(region, dict) or not region.get("region"):
        _report("Cannot run: no region was given; this step runs once for each region.")
        return False
    sales = prior_outputs.get("load_sales") or {}
    if sales.get("task_status") != "success" or not isinstance(sales.get("rows"), list):
        _report('Cannot run: the step "load sales" did not finish successfully.')
        return False
    state["local"]["region"] = region
    state["local"]["rows"] = [row for row in sales["rows"]
                              if row.get("region") == region["region"]]
    return True


def compute():
    region = state["local"]["region"]
    rows = sorted(state["local"]["rows"], key=lambda row: row.get("date", ""))
    name = sheet_name(region["region"])
    _report(f"Region {region['region']} (number {state.get('item_index', 0) + 1} "
            "in the list of regions)")
    try:
        with open(_path(name), "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(COLUMNS)
            for row in rows:
                writer.writerow([row[column] for column in COLUMNS])
        products = {}
        for row in rows:
            products[row["product"]] = products.get(row["product"], 0.0) + row["revenue"]
    except (KeyError, TypeError) as error:
        state["output"] = {"task_status": "failed",
                           "error_log": f"a sales row is not in the expected form ({error!r})"}
        _report("Task failed: a sales row is not in the expected form")
        return
    except OSError as error:
        state["output"] = {"task_status": "failed", "error_log": str(error)}
        _report(f"Task failed: could not write {name} ({error.strerror})")
        return

    # The best-selling product by revenue, and the first in alphabetical order on a tie.
    best = min(products, key=lambda product: (-products[product], product)) if products else ""
    state["output"] = {
        "task_status": "success",
        "region": region["region"],
        "sheet_file": name,
        "sales": len(rows),
        "revenue": round(sum(row["revenue"] for row in rows), 2),
        "share": region.get("share", 0.0),
        "best_product": best,
    }
    _report(f"Wrote {len(rows)} sales to {name}")
    if best:
        _report(f"Best-selling product: {best} ({products[best]:,.2f})")
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
    # On its own, the step does what the runner does: it runs once for each
    # region, in the region's own folder items/N/.
    regions = (prior_outputs.get("revenue_by_region") or {}).get("region_totals") or []
    if not regions:
        sys.exit('No regions to go through: run the step "revenue by region" first.')
    items = []
    for index, region in enumerate(regions):
        item_folder = os.path.join(FOLDER, "items", str(index))
        os.makedirs(item_folder, exist_ok=True)
        os.chdir(item_folder)
        state.clear()
        state["item"], state["item_index"] = region, index
        if not preprocess(prior_outputs):
            sys.exit(0)
        compute()
        save()
        if state["output"]["task_status"] != "success":
            sys.exit(1)
        items.append(state["output"])
    # What the successors receive: the outputs of all the regions, in order.
    with open(os.path.join(FOLDER, KEY + ".pkl"), "wb") as f:
        pickle.dump({"task_status": "success", "items": items}, f)
