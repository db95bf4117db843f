# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests of the step "load sales", on small files in a temporary folder."""

import os
import pickle
import sys
import tempfile
import unittest

# The step's script lives in the folder above; importing it must not leave
# compiled files in the workflow.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import load_sales  # noqa: E402

GOOD_CSV = """date,region,product,units,unit_price
2024-03-02,North,Notebook,10,4.50
2024-01-15,South,Desk lamp,2,39.90
2024-02-20,North,Backpack,1,49.00
"""


class LoadSalesTest(unittest.TestCase):
    def setUp(self):
        # The step writes into its own folder, so the tests point it at a
        # temporary one to leave the workflow untouched.
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.folder = tmp.name
        self.addCleanup(setattr, load_sales, "FOLDER", load_sales.FOLDER)
        load_sales.FOLDER = self.folder
        load_sales.state.clear()

    def write_csv(self, text):
        with open(os.path.join(self.folder, "sales.csv"), "w", encoding="utf-8") as f:
            f.write(text)

    def summary(self):
        with open(os.path.join(self.folder, "load_sales_summary.txt"), encoding="utf-8") as f:
            return f.read().splitlines()

    def run_step(self):
        self.assertTrue(load_sales.preprocess({}))
        load_sales.compute()
        return load_sales.state["output"]

    def test_reads_valid_rows(self):
        self.write_csv(GOOD_CSV)
        output = self.run_step()
        self.assertEqual(output["task_status"], "success")
        self.assertEqual(output["row_count"], 3)
        self.assertEqual(output["skipped_count"], 0)
        self.assertEqual(output["regions"], ["North", "South"])
        self.assertEqual(output["first_date"], "2024-01-15")
        self.assertEqual(output["last_date"], "2024-03-02")
        first = output["rows"][0]
        self.assertEqual(first, {"date": "2024-03-02", "region": "North", "product": "Notebook",
                                 "units": 10, "unit_price": 4.5, "revenue": 45.0})
        lines = self.summary()
        self.assertIn("sales.csv", lines[0])
        self.assertIn("Read 3 sales rows from sales.csv", lines[1])
        self.assertEqual(lines[-1], "Task completed successfully")

    def test_skips_invalid_rows(self):
        self.write_csv(GOOD_CSV + "2024-04-01,East,Notebook,ten,4.50\n"
                       "\n"
                       "2024-13-01,East,Notebook,3,4.50\n"
                       "2024-04-02,,Notebook,3,4.50\n")
        output = self.run_step()
        self.assertEqual(output["task_status"], "success")
        self.assertEqual(output["row_count"], 3)
        self.assertEqual(output["skipped_count"], 3)
        self.assertIn("line 5", output["problems"][0])
        self.assertIn("line 7", output["problems"][1])
        self.assertIn("region is empty", output["problems"][2])
        self.assertIn("Skipped 3 invalid rows:", self.summary())

    def test_missing_column_fails(self):
        self.write_csv("date,region,product,units\n2024-01-01,North,Notebook,3\n")
        output = self.run_step()
        self.assertEqual(output["task_status"], "failed")
        self.assertIn("unit_price", output["error_log"])
        self.assertTrue(self.summary()[-1].startswith("Task failed:"))

    def test_no_valid_rows_fails(self):
        self.write_csv("date,region,product,units,unit_price\n")
        output = self.run_step()
        self.assertEqual(output["task_status"], "failed")

    def test_missing_file_is_not_run(self):
        self.assertFalse(load_sales.preprocess({}))
        self.assertIn("missing", self.summary()[-1])

    def test_save_writes_pickle(self):
        self.write_csv(GOOD_CSV)
        self.run_step()
        load_sales.save()
        with open(os.path.join(self.folder, "load_sales.pkl"), "rb") as f:
            self.assertEqual(pickle.load(f), load_sales.state["output"])


if __name__ == "__main__":
    unittest.main()
