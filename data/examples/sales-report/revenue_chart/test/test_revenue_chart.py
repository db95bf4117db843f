# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests of the step "revenue chart", on a few made-up monthly totals."""

import os
import sys
import tempfile
import unittest
import xml.dom.minidom

# The step's script lives in the folder above; importing it must not leave
# compiled files in the workflow.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import revenue_chart  # noqa: E402

NAMES = ("January", "February", "March")
MONTHLY = {
    "task_status": "success",
    "monthly_totals": [
        {"month": f"2024-0{i + 1}", "month_name": name, "year": 2024, "sales": 2, "units": 10,
         "revenue": revenue}
        for i, (name, revenue) in enumerate(zip(NAMES, (1200.0, 3427.25, 950.5)))
    ],
}


class RevenueChartTest(unittest.TestCase):
    def setUp(self):
        # The step writes into its own folder, so the tests point it at a
        # temporary one to leave the workflow untouched.
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.folder = tmp.name
        self.addCleanup(setattr, revenue_chart, "FOLDER", revenue_chart.FOLDER)
        revenue_chart.FOLDER = self.folder
        revenue_chart.state.clear()

    def summary(self):
        with open(os.path.join(self.folder, "revenue_chart_summary.txt"), encoding="utf-8") as f:
            return f.read().splitlines()

    def test_draws_valid_svg(self):
        self.assertTrue(revenue_chart.preprocess({"monthly_totals": MONTHLY}))
        revenue_chart.compute()
        output = revenue_chart.state["output"]
        self.assertEqual(output["task_status"], "success")
        self.assertEqual(output["chart_file"], "revenue_chart.svg")
        document = xml.dom.minidom.parse(os.path.join(self.folder, "revenue_chart.svg"))
        svg = document.documentElement
        self.assertEqual(svg.tagName, "svg")
        self.assertEqual(svg.getAttribute("xmlns"), "http://www.w3.org/2000/svg")
        self.assertEqual(svg.getAttribute("version"), "1.1")
        texts = [node.firstChild.data for node in svg.getElementsByTagName("text")]
        self.assertIn("Monthly revenue, 2024", texts)
        self.assertTrue({"Jan", "Feb", "Mar", "3,427", "Revenue"} <= set(texts))
        # One background rectangle and one bar per month.
        self.assertEqual(len(svg.getElementsByTagName("rect")), 1 + 3)
        self.assertIn("revenue_chart.svg created", self.summary())
        self.assertEqual(self.summary()[-1], "Task completed successfully")

    def test_bars_fit_inside_chart(self):
        svg = xml.dom.minidom.parseString(
            revenue_chart.draw_chart(MONTHLY["monthly_totals"])).documentElement
        for bar in svg.getElementsByTagName("rect")[1:]:
            self.assertGreaterEqual(float(bar.getAttribute("y")), revenue_chart.TOP)
            self.assertLessEqual(float(bar.getAttribute("y")) + float(bar.getAttribute("height")),
                                 revenue_chart.HEIGHT - revenue_chart.BOTTOM + 0.1)

    def test_nice_step(self):
        self.assertEqual(revenue_chart.nice_step(3600), 1000)
        self.assertEqual(revenue_chart.nice_step(1000), 200)
        self.assertEqual(revenue_chart.nice_step(12), 2.5)
        self.assertEqual(revenue_chart.nice_step(0), 1.0)

    def test_short_amount(self):
        self.assertEqual(revenue_chart.short_amount(3427.25), "3.4k")
        self.assertEqual(revenue_chart.short_amount(2000), "2k")
        self.assertEqual(revenue_chart.short_amount(1500000), "1.5M")
        self.assertEqual(revenue_chart.short_amount(950.5), "950")

    def test_not_run_without_totals(self):
        self.assertFalse(revenue_chart.preprocess({}))
        self.assertFalse(revenue_chart.preprocess({"monthly_totals": {"task_status": "failed"}}))
        self.assertIn("monthly totals", self.summary()[-1])


if __name__ == "__main__":
    unittest.main()
