# SPDX-License-Identifier: GPL-3.0-or-later
"""Step "flag weak region": point out the region that lags well behind the others.

The workflow runs this step only when the weakest region's share of the
revenue is below the threshold set on its connection from "revenue by region";
otherwise it runs "confirm balance" instead.
"""

import os
import pickle
import sys

KEY = "flag_weak_region"
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
    _report("Point out the weakest region and how far it is behind an even share of the "
            "revenue.", fresh=True)
    regions = prior_outputs.get("revenue_by_region") or {}
    if regions.get("task_status") != "success" or not regions.get("region_totals"):
        _report('Cannot run: the step "revenue by region" passed on no regional totals.')
        return False
    state["local"]["regions"] = regions["region_totals"]
    return True


def compute():
    regions = state["local"]["regions"]
    try:
        # The regions come best first, so the weakest is the last one.
        weakest = regions[-1]
        even_share = round(100.0 / len(regions), 1)
        gap = round(even_share - weakest["share"], 1)
        finding = (f"{weakest['region']} is the weak region: it brought in "
                   f"{weakest['share']:.1f}% of the revenue, {gap:.1f} points below an even "
                   f"share of {even_share:.1f}%.")
    except (KeyError, TypeError, IndexError) as error:
        state["output"] = {"task_status": "failed",
                           "error_log": f"the regional totals are not in the expected form "
                                        f"({error!r})"}
        _report("Task failed: the regional totals are not in the expected form")
        return

    state["output"] = {
        "task_status": "success",
        "verdict": "weak region",
        "region": weakest["region"],
        "share": weakest["share"],
        "even_share": even_share,
        "gap": gap,
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
