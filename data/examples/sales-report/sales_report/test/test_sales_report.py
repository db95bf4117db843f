# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests of the step "sales report", on a few made-up totals."""

import os
import sys
import tempfile
import unittest

# The step's script lives in the folder above; importing it must not leave
# compiled files in the workflow.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sales_report  # noqa: E402

MONTHLY = {
    "task_status": "success",
    "monthly_totals": [
        {"month": "2024-01", "month_name": "January", "year": 2024, "sales": 3, "units": 40,
         "revenue": 1000.0},
        {"month": "2024-02", "month_name": "February", "year": 2024, "sales": 4, "units": 60,
         "revenue": 3000.0},
        {"month": "2024-03", "month_name": "March", "year": 2024, "sales": 2, "units": 10,
         "revenue": 500.0},
    ],
}
REGIONS = {
    "task_status": "success",
    "region_totals": [
        {"region": "North", "sales": 5, "units": 70, "revenue": 3150.0, "share": 70.0},
        {"region": "South", "sales": 4, "units": 40, "revenue": 1350.0, "share": 30.0},
    ],
}


class SalesReportTest(unittest.TestCase):
    def setUp(self):
        # The step writes into its own folder, so the tests point it at a
        # temporary one to leave the workflow untouched.
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.folder = tmp.name
        self.addCleanup(setattr, sales_report, "FOLDER", sales_report.FOLDER)
        sales_report.FOLDER = self.folder
        sales_report.state.clear()

    def summary(self):
        with open(os.path.join(self.folder, "sales_report_summary.txt"), encoding="utf-8") as f:
            return f.read().splitlines()

    def test_writes_report(self):
        self.assertTrue(sales_report.preprocess({"monthly_totals": MONTHLY,
                                                 "revenue_by_region": REGIONS}))
        sales_report.compute()
        output = sales_report.state["output"]
        self.assertEqual(output["task_status"], "success")
        self.assertEqual(output["report_file"], "report.md")
        self.assertEqual(output["total_revenue"], 4500.0)
        self.assertEqual(output["best_month"], "February")
        self.assertEqual(output["weakest_month"], "March")
        self.assertEqual(output["best_region"], "North")
        with open(os.path.join(self.folder, "report.md"), encoding="utf-8") as f:
            report = f.read()
        self.assertTrue(report.startswith("# Sales report 2024\n"))
        self.assertIn("**4,500.00**", report)
        self.assertIn("The best month was **February**, with 3,000.00.", report)
        self.assertIn("The best region was **North**, with 3,150.00 (70% of all revenue).",
                      report)
        self.assertIn("| South | 40 | 1,350.00 | 30.0% |", report)
        lines = self.summary()
        self.assertIn("Total revenue 2024: 4,500.00", lines)
        self.assertIn("Best month: February (3,000.00)", lines)
        self.assertEqual(lines[-1], "Task completed successfully")

    def test_warns_when_totals_disagree(self):
        regions = {"task_status": "success",
                   "region_totals": [{"region": "North", "sales": 1, "units": 1,
                                      "revenue": 10.0, "share": 100.0}]}
        sales_report.preprocess({"monthly_totals": MONTHLY, "revenue_by_region": regions})
        sales_report.compute()
        self.assertTrue(any(line.startswith("Warning:") for line in self.summary()))

    def test_several_years_name_them(self):
        monthly = {"task_status": "success", "monthly_totals": [
            dict(MONTHLY["monthly_totals"][0], month="2023-12", month_name="December",
                 year=2023),
            MONTHLY["monthly_totals"][1]]}
        text, facts = sales_report.write_report(monthly["monthly_totals"],
                                                REGIONS["region_totals"])
        self.assertTrue(text.startswith("# Sales report 2023 to 2024\n"))
        self.assertEqual(facts["best_month"], "February 2024")

    def test_not_run_when_a_prior_failed(self):
        self.assertFalse(sales_report.preprocess({"monthly_totals": MONTHLY,
                                                  "revenue_by_region": {}}))
        self.assertIn("revenue by region", self.summary()[-1])
        self.assertFalse(sales_report.preprocess({"monthly_totals": {},
                                                  "revenue_by_region": REGIONS}))
        self.assertIn("monthly totals", self.summary()[-1])


if __name__ == "__main__":
    unittest.main()
