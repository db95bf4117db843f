# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests of the step "confirm balance", on a few made-up regional totals."""

import os
import sys
import tempfile
import unittest

# The step's script lives in the folder above; importing it must not leave
# compiled files in the workflow.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import confirm_balance  # noqa: E402

REGIONS = {
    "task_status": "success",
    "region_totals": [
        {"region": "North", "sales": 5, "units": 70, "revenue": 350.0, "share": 35.0},
        {"region": "South", "sales": 4, "units": 40, "revenue": 330.0, "share": 33.0},
        {"region": "East", "sales": 3, "units": 30, "revenue": 320.0, "share": 32.0},
    ],
}


class ConfirmBalanceTest(unittest.TestCase):
    def setUp(self):
        # The step writes into its own folder, so the tests point it at a
        # temporary one to leave the workflow untouched.
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.folder = tmp.name
        self.addCleanup(setattr, confirm_balance, "FOLDER", confirm_balance.FOLDER)
        confirm_balance.FOLDER = self.folder
        confirm_balance.state.clear()

    def summary(self):
        path = os.path.join(self.folder, "confirm_balance_summary.txt")
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()

    def test_confirms_the_spread(self):
        self.assertTrue(confirm_balance.preprocess({"revenue_by_region": REGIONS}))
        confirm_balance.compute()
        output = confirm_balance.state["output"]
        self.assertEqual(output["task_status"], "success")
        self.assertEqual(output["strongest_region"], "North")
        self.assertEqual(output["weakest_region"], "East")
        self.assertEqual(output["finding"], "The revenue is spread over all 3 regions: from "
                                            "35.0% in North to 32.0% in East.")
        self.assertEqual(self.summary()[1], output["finding"])
        self.assertEqual(self.summary()[-1], "Task completed successfully")

    def test_not_run_without_totals(self):
        self.assertFalse(confirm_balance.preprocess({"revenue_by_region": {}}))
        self.assertTrue(self.summary()[0].startswith("Confirm that the revenue is spread"))
        self.assertIn("revenue by region", self.summary()[-1])

    def test_bad_totals_fail(self):
        confirm_balance.preprocess({"revenue_by_region": {"task_status": "success",
                                                          "region_totals": [{"share": 1.0}]}})
        confirm_balance.compute()
        self.assertEqual(confirm_balance.state["output"]["task_status"], "failed")


if __name__ == "__main__":
    unittest.main()
