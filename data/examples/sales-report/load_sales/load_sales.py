# SPDX-License-Identifier: GPL-3.0-or-later
"""Step "load sales": read sales.csv, check every row and pass the sales on."""

import csv
import datetime
import os
import pickle
import sys

KEY = "load_sales"
PRIORS = []
INPUT_FILE = "sales.csv"
COLUMNS = ("date", "region", "product", "units", "unit_price")

# Every path is taken relative to this script's folder, so that the step works
# whatever the current directory is.
FOLDER = os.path.dirname(os.path.abspath(__file__))

state = {}


def _path(name):
    return os.path.join(FOLDER, name)


def _report(line, fresh=False):
    with open(_path(KEY + "_summary.txt"), "w" if fresh else "a", encoding="utf-8") as f:
        f.write(line + "\n")


def _parse_row(row):
    """Return the cleaned-up sale, or raise ValueError saying what is wrong."""
    values = {name: (row.get(name) or "").strip() for name in COLUMNS}
    for name in COLUMNS:
        if not values[name]:
            raise ValueError(f"{name} is empty")
    try:
        date = datetime.date.fromisoformat(values["date"])
    except ValueError:
        raise ValueError(f"date '{values['date']}' is not a date like 2024-01-31") from None
    try:
        units = int(values["units"])
    except ValueError:
        raise ValueError(f"units '{values['units']}' is not a whole number") from None
    try:
        unit_price = float(values["unit_price"])
    except ValueError:
        raise ValueError(f"unit price '{values['unit_price']}' is not a number") from None
    if units < 0 or unit_price < 0:
        raise ValueError("units and unit price cannot be negative")
    return {
        "date": date.isoformat(),
        "region": values["region"],
        "product": values["product"],
        "units": units,
        "unit_price": unit_price,
        "revenue": round(units * unit_price, 2),
    }


def preprocess(prior_outputs):
    state["local"] = {}
    state.pop("output", None)
    _report("Read the sales records in sales.csv, check every row and pass the sales on.",
            fresh=True)
    csv_path = _path(INPUT_FILE)
    if not os.path.isfile(csv_path):
        _report(f"Cannot run: the input file {INPUT_FILE} is missing from this step's folder.")
        return False
    state["local"]["csv_path"] = csv_path
    return True


def compute():
    try:
        with open(state["local"]["csv_path"], newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            header = [name.strip() for name in (reader.fieldnames or [])]
            missing = [name for name in COLUMNS if name not in header]
            if missing:
                raise ValueError(f"{INPUT_FILE} has no column {', '.join(missing)}")
            reader.fieldnames = header
            rows, problems = [], []
            for row in reader:
                # A row of empty cells, as spreadsheets sometimes leave at the end, is no sale.
                if not any(isinstance(value, str) and value.strip() for value in row.values()):
                    continue
                try:
                    rows.append(_parse_row(row))
                except ValueError as error:
                    # line_num counts the lines read, so blank lines are not miscounted.
                    problems.append(f"line {reader.line_num}: {error}")
        if not rows:
            raise ValueError(f"{INPUT_FILE} contains no valid sales rows")
    except (OSError, UnicodeDecodeError, csv.Error, ValueError) as error:
        state["output"] = {"task_status": "failed", "error_log": str(error)}
        _report(f"Task failed: {error}")
        return

    dates = sorted(row["date"] for row in rows)
    state["output"] = {
        "task_status": "success",
        "rows": rows,
        "row_count": len(rows),
        "skipped_count": len(problems),
        "problems": problems,
        "regions": sorted({row["region"] for row in rows}),
        "products": sorted({row["product"] for row in rows}),
        "first_date": dates[0],
        "last_date": dates[-1],
    }
    _report(f"Read {len(rows)} sales rows from {INPUT_FILE}, from {dates[0]} to {dates[-1]}")
    if problems:
        _report(f"Skipped {len(problems)} invalid rows:")
        # A long list would drown the summary, so only the first few are shown.
        for problem in problems[:5]:
            _report(f"  {problem}")
        if len(problems) > 5:
            _report(f"  ... and {len(problems) - 5} more")
    _report(f"Found {len(state['output']['regions'])} regions and "
            f"{len(state['output']['products'])} products")
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
