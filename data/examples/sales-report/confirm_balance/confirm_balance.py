# SPDX-License-Identifier: GPL-3.0-or-later
"""Step "confirm balance": confirm that the revenue is spread over all the regions.

The workflow runs this step when no region lags behind (it is the default
branch after "revenue by region"); otherwise it runs "flag weak region" instead.
"""

import os
import pickle
import sys

KEY = "confirm_balance"
PRIORS = ["revenue_by_region"]

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
    _report("Confirm that the revenue is spread over all the regions, from the strongest "
            "to the weakest.", fresh=True)
    regions = prior_outputs.get("revenue_by_region") or {}
    if regions.get("task_status") != "success" or not regions.get("region_totals"):
        _report('Cannot run: the step "revenue by region" passed on no regional totals.')
        return False
    state["local"]["regions"] = regions["region_totals"]
    return True


def compute():
    regions = state["local"]["regions"]
    try:
        # The regions come best first.
        strongest, weakest = regions[0], regions[-1]
        finding = (f"The revenue is spread over all {len(regions)} regions: from "
                   f"{strongest['share']:.1f}% in {strongest['region']} to "
                   f"{weakest['share']:.1f}% in {weakest['region']}.")
    except (KeyError, TypeError, IndexError) as error:
        state["output"] = {"task_status": "failed",
                           "error_log": f"the regional totals are not in the expected form "
                                        f"({error!r})"}
        _report("Task failed: the regional totals are not in the expected form")
        return

    state["output"] = {
        "task_status": "success",
        "verdict": "balanced",
        "strongest_region": strongest["region"],
        "weakest_region": weakest["region"],
        "finding": finding,
    }
    _report(finding)
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
