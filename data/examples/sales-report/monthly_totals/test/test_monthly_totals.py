# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests of the step "monthly totals", on a few made-up sales."""

import csv
import os
import sys
import tempfile
import unittest

# The step's script lives in the folder above; importing it must not leave
# compiled files in the workflow.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import monthly_totals  # noqa: E402


def sale(date, units, unit_price, region="North"):
    return {"date": date, "region": region, "product": "Notebook", "units": units,
            "unit_price": unit_price, "revenue": round(units * unit_price, 2)}


SALES = {
    "task_status": "success",
    "rows": [sale("2024-02-10", 2, 10.0), sale("2024-01-05", 3, 1.5), sale("2024-02-28", 1, 0.1),
             sale("2023-12-31", 4, 2.0)],
}


class MonthlyTotalsTest(unittest.TestCase):
    def setUp(self):
        # The step writes into its own folder, so the tests point it at a
        # temporary one to leave the workflow untouched.
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.folder = tmp.name
        self.addCleanup(setattr, monthly_totals, "FOLDER", monthly_totals.FOLDER)
        monthly_totals.FOLDER = self.folder
        monthly_totals.state.clear()

    def summary(self):
        path = os.path.join(self.folder, "monthly_totals_summary.txt")
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()

    def test_totals_per_month_in_order(self):
        self.assertTrue(monthly_totals.preprocess({"load_sales": SALES}))
        monthly_totals.compute()
        output = monthly_totals.state["output"]
        self.assertEqual(output["task_status"], "success")
        months = output["monthly_totals"]
        self.assertEqual([m["month"] for m in months], ["2023-12", "2024-01", "2024-02"])
        self.assertEqual([m["month_name"] for m in months], ["December", "January", "February"])
        self.assertEqual(months[2]["revenue"], 20.1)
        self.assertEqual(months[2]["units"], 3)
        self.assertEqual(months[2]["sales"], 2)
        self.assertEqual(output["total_revenue"], 32.6)
        self.assertEqual(output["total_units"], 10)
        self.assertEqual(self.summary()[-1], "Task completed successfully")

    def test_writes_csv(self):
        monthly_totals.preprocess({"load_sales": SALES})
        monthly_totals.compute()
        with open(os.path.join(self.folder, "monthly_totals.csv"), newline="",
                  encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 3)
        self.assertEqual(rows[1], {"month": "2024-01", "month_name": "January", "sales": "1",
                                   "units": "3", "revenue": "4.50"})

    def test_not_run_without_sales(self):
        self.assertFalse(monthly_totals.preprocess({"load_sales": {}}))
        self.assertFalse(monthly_totals.preprocess({}))
        self.assertFalse(monthly_totals.preprocess(
            {"load_sales": {"task_status": "failed", "error_log": "no file"}}))
        self.assertIn("load sales", self.summary()[-1])

    def test_bad_rows_fail(self):
        monthly_totals.preprocess({"load_sales": {"task_status": "success",
                                                  "rows": [{"date": "2024-01-01"}]}})
        monthly_totals.compute()
        self.assertEqual(monthly_totals.state["output"]["task_status"], "failed")
        self.assertTrue(self.summary()[-1].startswith("Task failed:"))


if __name__ == "__main__":
    unittest.main()
