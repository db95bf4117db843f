# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests of the step "region review", on a few made-up sheets and findings."""

import os
import sys
import tempfile
import unittest

# The step's script lives in the folder above; importing it must not leave
# compiled files in the workflow.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import region_review  # noqa: E402

SHEETS = {
    "task_status": "success",
    "items": [
        {"task_status": "success", "region": "North", "sheet_file": "north_sales.csv",
         "sales": 5, "revenue": 3150.0, "share": 70.0, "best_product": "Backpack"},
        {"task_status": "success", "region": "South", "sheet_file": "south_sales.csv",
         "sales": 4, "revenue": 1350.0, "share": 30.0, "best_product": "Notebook"},
    ],
}
WEAK = {"task_status": "success", "verdict": "weak region",
        "finding": "South is the weak region."}


class RegionReviewTest(unittest.TestCase):
    def setUp(self):
        # The step writes into its own folder, so the tests point it at a
        # temporary one to leave the workflow untouched.
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.folder = tmp.name
        self.addCleanup(setattr, region_review, "FOLDER", region_review.FOLDER)
        region_review.FOLDER = self.folder
        region_review.state.clear()

    def summary(self):
        path = os.path.join(self.folder, "region_review_summary.txt")
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()

    def test_joins_the_sheets_and_the_branch_that_ran(self):
        # The branch that did not run passes on an empty dictionary.
        self.assertTrue(region_review.preprocess({"region_sheets": SHEETS,
                                                  "flag_weak_region": WEAK,
                                                  "confirm_balance": {}}))
        region_review.compute()
        output = region_review.state["output"]
        self.assertEqual(output, {"task_status": "success", "review_file": "region_review.md",
                                  "region_count": 2, "finding": "South is the weak region."})
        with open(os.path.join(self.folder, "region_review.md"), encoding="utf-8") as f:
            note = f.read()
        self.assertTrue(note.startswith("# Regions\n\nSouth is the weak region.\n"))
        self.assertIn("| South | 4 | 1,350.00 | 30.0% "
                      "| [south_sales.csv](../region_sheets/items/1/south_sales.csv) |", note)
        self.assertIn("Listed 2 regions with their sheets", self.summary())
        self.assertEqual(self.summary()[-1], "Task completed successfully")

    def test_the_other_branch_will_do(self):
        balanced = {"task_status": "success", "finding": "The revenue is spread evenly."}
        self.assertTrue(region_review.preprocess({"region_sheets": SHEETS,
                                                  "flag_weak_region": {},
                                                  "confirm_balance": balanced}))
        self.assertEqual(region_review.state["local"]["finding"], "The revenue is spread evenly.")

    def test_not_run_without_sheets_or_finding(self):
        self.assertFalse(region_review.preprocess({"region_sheets": {},
                                                   "flag_weak_region": WEAK}))
        self.assertIn("region sheets", self.summary()[-1])
        self.assertFalse(region_review.preprocess({"region_sheets": SHEETS,
                                                   "flag_weak_region": {},
                                                   "confirm_balance": {}}))
        self.assertIn("neither", self.summary()[-1])
        self.assertTrue(self.summary()[0].startswith("Write a short note on the regions"))


if __name__ == "__main__":
    unittest.main()
