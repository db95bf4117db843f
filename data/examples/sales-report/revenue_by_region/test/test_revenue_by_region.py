# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests of the step "revenue by region", on a few made-up sales."""

import os
import sys
import tempfile
import unittest

# The step's script lives in the folder above; importing it must not leave
# compiled files in the workflow.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import revenue_by_region  # noqa: E402


def sale(region, units, revenue):
    return {"date": "2024-05-01", "region": region, "product": "Backpack", "units": units,
            "unit_price": revenue / units, "revenue": revenue}


SALES = {
    "task_status": "success",
    "rows": [sale("West", 1, 25.0), sale("North", 2, 50.0), sale("East", 1, 25.0),
             sale("North", 3, 100.0)],
}


class RevenueByRegionTest(unittest.TestCase):
    def setUp(self):
        # The step writes into its own folder, so the tests point it at a
        # temporary one to leave the workflow untouched.
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.folder = tmp.name
        self.addCleanup(setattr, revenue_by_region, "FOLDER", revenue_by_region.FOLDER)
        revenue_by_region.FOLDER = self.folder
        revenue_by_region.state.clear()

    def summary(self):
        path = os.path.join(self.folder, "revenue_by_region_summary.txt")
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()

    def test_totals_and_shares(self):
        self.assertTrue(revenue_by_region.preprocess({"load_sales": SALES}))
        revenue_by_region.compute()
        output = revenue_by_region.state["output"]
        self.assertEqual(output["task_status"], "success")
        self.assertEqual(output["total_revenue"], 200.0)
        self.assertEqual(output["region_count"], 3)
        regions = output["region_totals"]
        # Best first; East and West tie and are then in alphabetical order.
        self.assertEqual([r["region"] for r in regions], ["North", "East", "West"])
        self.assertEqual(regions[0], {"region": "North", "sales": 2, "units": 5,
                                      "revenue": 150.0, "share": 75.0})
        self.assertEqual(regions[1]["share"], 12.5)
        self.assertIn("  North: 150.00 (75.0%)", self.summary())
        self.assertEqual(self.summary()[-1], "Task completed successfully")

    def test_zero_revenue_has_no_share(self):
        revenue_by_region.preprocess({"load_sales": {"task_status": "success",
                                                     "rows": [sale("North", 1, 0.0)]}})
        revenue_by_region.compute()
        self.assertEqual(revenue_by_region.state["output"]["region_totals"][0]["share"], 0.0)

    def test_not_run_without_sales(self):
        self.assertFalse(revenue_by_region.preprocess({}))
        self.assertFalse(revenue_by_region.preprocess(
            {"load_sales": {"task_status": "success", "rows": []}}))
        self.assertTrue(self.summary()[0].startswith("Add up the revenue"))

    def test_bad_rows_fail(self):
        revenue_by_region.preprocess({"load_sales": {"task_status": "success",
                                                     "rows": [{"region": "North"}]}})
        revenue_by_region.compute()
        self.assertEqual(revenue_by_region.state["output"]["task_status"], "failed")


if __name__ == "__main__":
    unittest.main()
