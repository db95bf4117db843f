# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests of the step "region sheets", on a few made-up sales."""

import csv
import os
import sys
import tempfile
import unittest

# The step's script lives in the folder above; importing it must not leave
# compiled files in the workflow.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import region_sheets  # noqa: E402


def sale(date, region, product, units, unit_price):
    return {"date": date, "region": region, "product": product, "units": units,
            "unit_price": unit_price, "revenue": round(units * unit_price, 2)}


SALES = {
    "task_status": "success",
    "rows": [sale("2024-03-02", "North East", "Notebook", 4, 2.5),
             sale("2024-01-15", "North East", "Backpack", 1, 49.0),
             sale("2024-02-01", "South", "Notebook", 10, 2.5),
             sale("2024-01-03", "North East", "Notebook", 2, 2.5)],
}
NORTH_EAST = {"region": "North East", "sales": 3, "units": 7, "revenue": 64.0, "share": 71.9}


class RegionSheetsTest(unittest.TestCase):
    def setUp(self):
        # Each region runs in its own folder, the current directory, so the
        # tests run it in a temporary one to leave the workflow untouched.
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.folder = tmp.name
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(self.folder)
        region_sheets.state.clear()

    def summary(self):
        with open(os.path.join(self.folder, "region_sheets_summary.txt"), encoding="utf-8") as f:
            return f.read().splitlines()

    def test_one_region_in_its_own_sheet(self):
        region_sheets.state["item"], region_sheets.state["item_index"] = NORTH_EAST, 1
        self.assertTrue(region_sheets.preprocess({"load_sales": SALES,
                                                  "revenue_by_region": {}}))
        region_sheets.compute()
        output = region_sheets.state["output"]
        self.assertEqual(output, {"task_status": "success", "region": "North East",
                                  "sheet_file": "north_east_sales.csv", "sales": 3,
                                  "revenue": 64.0, "share": 71.9, "best_product": "Backpack"})
        with open(os.path.join(self.folder, "north_east_sales.csv"), encoding="utf-8") as f:
            rows = list(csv.reader(f))
        # The header, then the region's sales only, oldest first.
        self.assertEqual(rows[0], ["date", "product", "units", "unit_price", "revenue"])
        self.assertEqual([row[0] for row in rows[1:]], ["2024-01-03", "2024-01-15", "2024-03-02"])
        lines = self.summary()
        self.assertEqual(lines[1], "Region North East (number 2 in the list of regions)")
        self.assertIn("Wrote 3 sales to north_east_sales.csv", lines)
        self.assertEqual(lines[-1], "Task completed successfully")
        region_sheets.save()
        self.assertTrue(os.path.isfile(os.path.join(self.folder, "region_sheets.pkl")))

    def test_sheet_names(self):
        self.assertEqual(region_sheets.sheet_name("West"), "west_sales.csv")
        self.assertEqual(region_sheets.sheet_name("Île-de-France"), "île_de_france_sales.csv")
        self.assertEqual(region_sheets.sheet_name("--"), "region_sales.csv")

    def test_not_run_without_a_region(self):
        self.assertFalse(region_sheets.preprocess({"load_sales": SALES}))
        self.assertIn("no region was given", self.summary()[-1])
        region_sheets.state["item"] = NORTH_EAST
        self.assertFalse(region_sheets.preprocess({"load_sales": {}}))
        self.assertIn("load sales", self.summary()[-1])
        self.assertTrue(self.summary()[0].startswith("Save the sales of one region"))

    def test_bad_rows_fail(self):
        region_sheets.state["item"] = NORTH_EAST
        region_sheets.preprocess({"load_sales": {"task_status": "success",
                                                 "rows": [{"region": "North East"}]}})
        region_sheets.compute()
        self.assertEqual(region_sheets.state["output"]["task_status"], "failed")


if __name__ == "__main__":
    unittest.main()
