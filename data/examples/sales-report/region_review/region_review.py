# SPDX-License-Identifier: GPL-3.0-or-later
"""Step "region review": a short note on the regions, with a link to each region's sheet.

It brings the two paths of the workflow together: the sheets that "region
sheets" made, one per region, and the finding of whichever of "flag weak
region" and "confirm balance" ran. The one that did not run reaches this step
as an empty dictionary.
"""

import os
import pickle
import sys

KEY = "region_review"
PRIORS = ["region_sheets", "flag_weak_region", "confirm_balance"]
OUTPUT_FILE = "region_review.md"

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
    _report(f"Write a short note on the regions, {OUTPUT_FILE}, with the finding about "
            "their balance and a link to each region's sheet.", fresh=True)
    sheets = prior_outputs.get("region_sheets") or {}
    if sheets.get("task_status") != "success" or not sheets.get("items"):
        _report('Cannot run: the step "region sheets" made no sheets.')
        return False
    # Only one of the two branches ran; the other one passed on nothing.
    branches = [prior_outputs.get(key) or {} for key in ("flag_weak_region", "confirm_balance")]
    findings = [branch["finding"] for branch in branches
                if branch.get("task_status") == "success" and branch.get("finding")]
    if not findings:
        _report('Cannot run: neither "flag weak region" nor "confirm balance" gave a finding.')
        return False
    state["local"]["items"] = sheets["items"]
    state["local"]["finding"] = findings[0]
    return True


def compute():
    items, finding = state["local"]["items"], state["local"]["finding"]
    lines = ["# Regions", "", finding, "", "| Region | Sales | Revenue | Share | Sheet |",
             "|:--|--:|--:|--:|:--|"]
    try:
        for index, item in enumerate(items):
            # Each region's sheet is in its own folder of the step "region sheets".
            sheet = f"../region_sheets/items/{index}/{item['sheet_file']}"
            lines.append(f"| {item['region']} | {item['sales']} | {item['revenue']:,.2f} "
                         f"| {item['share']:.1f}% | [{item['sheet_file']}]({sheet}) |")
        with open(_path(OUTPUT_FILE), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    except (KeyError, TypeError, ValueError) as error:
        state["output"] = {"task_status": "failed",
                           "error_log": f"a region's sheet is not described in the expected "
                                        f"form ({error!r})"}
        _report("Task failed: a region's sheet is not described in the expected form")
        return
    except OSError as error:
        state["output"] = {"task_status": "failed", "error_log": str(error)}
        _report(f"Task failed: could not write {OUTPUT_FILE} ({error.strerror})")
        return

    state["output"] = {
        "task_status": "success",
        "review_file": OUTPUT_FILE,
        "region_count": len(items),
        "finding": finding,
    }
    _report(f"Listed {len(items)} regions with their sheets")
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
