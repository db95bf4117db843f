# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests of the step "flag weak region", on a few made-up regional totals."""

import os
import sys
import tempfile
import unittest

# The step's script lives in the folder above; importing it must not leave
# compiled files in the workflow.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import flag_weak_region  # noqa: E402

REGIONS = {
    "task_status": "success",
    "region_totals": [
        {"region": "North", "sales": 5, "units": 70, "revenue": 500.0, "share": 50.0},
        {"region": "South", "sales": 4, "units": 40, "revenue": 380.0, "share": 38.0},
        {"region": "East", "sales": 1, "units": 4, "revenue": 120.0, "share": 12.0},
    ],
}


class FlagWeakRegionTest(unittest.TestCase):
    def setUp(self):
        # The step writes into its own folder, so the tests point it at a
        # temporary one to leave the workflow untouched.
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.folder = tmp.name
        self.addCleanup(setattr, flag_weak_region, "FOLDER", flag_weak_region.FOLDER)
        flag_weak_region.FOLDER = self.folder
        flag_weak_region.state.clear()

    def summary(self):
        path = os.path.join(self.folder, "flag_weak_region_summary.txt")
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()

    def test_names_the_weakest_region(self):
        self.assertTrue(flag_weak_region.preprocess({"revenue_by_region": REGIONS}))
        flag_weak_region.compute()
        output = flag_weak_region.state["output"]
        self.assertEqual(output["task_status"], "success")
        self.assertEqual(output["region"], "East")
        self.assertEqual(output["share"], 12.0)
        self.assertEqual(output["even_share"], 33.3)
        self.assertEqual(output["gap"], 21.3)
        self.assertEqual(output["finding"], "East is the weak region: it brought in 12.0% of the "
                                            "revenue, 21.3 points below an even share of 33.3%.")
        self.assertEqual(self.summary()[1], output["finding"])
        self.assertEqual(self.summary()[-1], "Task completed successfully")

    def test_not_run_without_totals(self):
        self.assertFalse(flag_weak_region.preprocess({}))
        self.assertFalse(flag_weak_region.preprocess(
            {"revenue_by_region": {"task_status": "success", "region_totals": []}}))
        self.assertTrue(self.summary()[0].startswith("Point out the weakest region"))
        self.assertIn("revenue by region", self.summary()[-1])

    def test_bad_totals_fail(self):
        flag_weak_region.preprocess({"revenue_by_region": {"task_status": "success",
                                                           "region_totals": [{"region": "N"}]}})
        flag_weak_region.compute()
        self.assertEqual(flag_weak_region.state["output"]["task_status"], "failed")


if __name__ == "__main__":
    unittest.main()
