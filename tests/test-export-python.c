/* test-export-python.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `skele export --format python` (DESIGN §11): the exported folder runs
 * the workflow with the system's Python alone, giving the same files as
 * `skele run`, with its control flow: conditions, for-each, approval
 * gates and sub-workflows; a failing step, a step without code and a
 * folder that holds files already say what is wrong.
 */

#define G_LOG_DOMAIN "test-export-python"

#include <string.h>

#include <json-glib/json-glib.h>

#include "sk-export.h"
#include "sk-project.h"
#include "sk-test-util.h"

static const char *examples_dir;
static char *python_path;

/* Runs `python3 run_workflow.py ARGS…` in the exported @folder. The
 * exported program, like skele, runs without PYTHONPATH: it must not need
 * anything of the build's. */
static void
run_exported (SkTestResult *result,
              const char   *folder,
              ...)
{
  const char * const prefix[] = { python_path, "run_workflow.py", NULL };
  va_list args;

  va_start (args, folder);
  sk_test_run_valist (result, SK_TEST_RUN_NO_PYTHONPATH, folder, prefix, args);
  va_end (args);
}

static void
export_to (const char *workflow,
           const char *folder)
{
  g_auto(SkTestResult) result = { 0 };

  sk_test_run_skele (&result, SK_TEST_RUN_NO_PYTHONPATH,
                     "export", workflow, "--format", "python", "-o", folder, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "python3 run_workflow.py");
}

#define SUCCEED(value) \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": " value "}\n" \
  "    report(\"done \" + describe(state[\"local\"][\"priors\"]))"

/* The example, with conditions, a for-each and a join, runs from its
 * export as it runs in Skele-Code, and again. */
static void
test_sales_report (void)
{
  g_autofree char *example = g_build_filename (examples_dir, "sales-report", NULL);
  g_autofree char *dir = sk_test_make_tmp_dir ("export-python");
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy", NULL);
  g_autofree char *readme = NULL;
  g_autofree char *workflow = NULL;
  g_auto(SkTestResult) result = { 0 };
  const char * const outputs[] = {
    "sales_report/report.md",
    "region_review/region_review.md",
    "revenue_chart/revenue_chart.svg",
    "monthly_totals/monthly_totals.csv",
    "region_sheets/items/0/north_sales.csv",
    "region_sheets/items/1/south_sales.csv",
    "region_sheets/items/2/east_sales.csv",
    "region_sheets/items/3/west_sales.csv",
  };

  export_to (example, out);

  /* The program, the scripts and the input, and nothing a run left. */
  g_assert_true (g_file_test (out, G_FILE_TEST_IS_DIR));
  g_assert_true (sk_test_exists (out, "skele_harness.py"));
  g_assert_true (sk_test_exists (out, "plan.json"));
  g_assert_true (sk_test_exists (out, "load_sales/load_sales.py"));
  g_assert_true (sk_test_exists (out, "region_sheets/region_sheets.py"));
  g_assert_true (sk_test_exists (out, "load_sales/sales.csv"));
  g_assert_false (sk_test_exists (out, "load_sales/load_sales.pkl"));
  g_assert_false (sk_test_exists (out, "load_sales/test"));
  {
    g_autofree char *driver = g_build_filename (out, "run_workflow.py", NULL);

    g_assert_true (g_file_test (driver, G_FILE_TEST_IS_EXECUTABLE));
  }
  workflow = sk_test_read_text (out, "workflow.json");
  sk_test_assert_contains (workflow, "\"process_name\" : \"sales report\"");
  readme = sk_test_read_text (out, "README.md");
  sk_test_assert_contains (readme, "# sales report\n");
  sk_test_assert_contains (readme, "    python3 run_workflow.py\n");
  sk_test_assert_contains (readme, "Every module the steps import is in Python’s standard "
                                   "library.");
  sk_test_assert_contains (readme, "`csv`, `datetime`");
  sk_test_assert_contains (readme, "The results of earlier runs");
  sk_test_assert_contains (readme, "every run runs every step again");

  run_exported (&result, out, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "✓ “load sales” succeeded: Read 96 sales rows");
  sk_test_assert_contains (result.out, "✓ “region sheets” succeeded: Ran for each of 4 items: "
                                       "4 ran, 0 skipped, 0 failed.");
  sk_test_assert_contains (result.out, "✓ “flag weak region” succeeded");
  sk_test_assert_contains (result.out, "– “confirm balance” skipped: Condition not met: after "
                                       "“revenue by region”, “flag weak region” was taken.");
  sk_test_assert_contains (result.out, "✓ “region review” succeeded");
  sk_test_assert_contains (result.out, "8 succeeded, 0 failed, 1 skipped");
  g_assert_false (sk_test_exists (out, "confirm_balance/confirm_balance.pkl"));

  /* `skele run` on a copy of the example makes the same files. */
  sk_test_copy_folder (example, copy);
  sk_test_run_skele (&result, SK_TEST_RUN_NO_PYTHONPATH, "run", copy, NULL);
  sk_test_assert_status (&result, 0);
  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    sk_test_assert_same_file (copy, out, outputs[i]);

  /* Running it again runs everything again, to the same files. */
  run_exported (&result, out, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "8 succeeded, 0 failed, 1 skipped");
  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    sk_test_assert_same_file (copy, out, outputs[i]);

  /* One step alone reads the others' results of the last run. */
  run_exported (&result, out, "--only", "sales_report", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "Running 1 step of “sales report”.");
  sk_test_assert_contains (result.out, "✓ “sales report” succeeded");
  sk_test_assert_same_file (copy, out, "sales_report/report.md");

  sk_test_remove_tree (dir);
}

static const char gate_spec[] =
  "1 prepare\n"
  "2 review 1 | {\"approval\": true}\n"
  "3 publish 2\n";

/* The run stops before a gate with exit status 3 and says how to go on;
 * --approve goes through. */
static void
test_gate (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-python");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *summary = NULL;
  g_autofree char *readme = NULL;
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_spec_process (workflow, "export test", gate_spec);
  sk_test_write_step (workflow, "prepare", SUCCEED ("1"));
  sk_test_write_step (workflow, "publish", SUCCEED ("3"));
  /* The gate's script uses what it received. */
  sk_test_write_script (workflow, SK_TEST_SCRIPT_TEMPLATE, "review",
                        "    state[\"got\"] = prior_outputs[\"prepare\"][\"value\"]",
                        "    state[\"output\"] = {\"task_status\": \"success\", "
                        "\"value\": state[\"got\"] + 1}\n"
                        "    report(\"reviewed \" + str(state[\"got\"]))");
  export_to (workflow, out);
  readme = sk_test_read_text (out, "README.md");
  sk_test_assert_contains (readme, "- **review** (`review/`), an approval gate\n");

  run_exported (&result, out, NULL);
  sk_test_assert_status (&result, 3);
  sk_test_assert_contains (result.out, "✓ “prepare” succeeded");
  sk_test_assert_contains (result.out, "‖ “review” waits for approval; the steps after it were "
                                       "not run.");
  sk_test_assert_contains (result.out, "– “publish” skipped: Not run yet: it needs “review”, "
                                       "which waits for approval.");
  sk_test_assert_contains (result.out, "python3 run_workflow.py --approve review");
  g_assert_false (sk_test_exists (out, "review/review.pkl"));
  g_assert_false (sk_test_exists (out, "publish/publish.pkl"));

  /* Only a gate can be approved. */
  run_exported (&result, out, "--approve", "publish", NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "“publish”, which is not the key of an approval gate");

  run_exported (&result, out, "--approve", "review", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "✓ “review” succeeded: reviewed 1");
  sk_test_assert_contains (result.out, "✓ “publish” succeeded: done review=2");
  summary = sk_test_read_text (out, "publish/publish_summary.txt");
  sk_test_assert_contains (summary, "done review=2");

  sk_test_remove_tree (dir);
}

/* A failing step fails the run with exit status 1 and names the step; the
 * step after it receives {} for it, as in Skele-Code. */
static void
test_failing_step (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-python");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_spec_process (workflow, "export test", "1 first\n2 broken 1\n3 after 2\n");
  sk_test_write_step (workflow, "first", SUCCEED ("1"));
  sk_test_write_step (workflow, "broken", "    1 / 0");
  sk_test_write_step (workflow, "after", SUCCEED ("3"));
  export_to (workflow, out);

  run_exported (&result, out, NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.out, "✓ “first” succeeded");
  sk_test_assert_contains (result.out, "✗ “broken” failed: ZeroDivisionError: division by zero "
                                       "in compute()");
  sk_test_assert_contains (result.out, "✓ “after” succeeded: done broken={}");
  sk_test_assert_contains (result.out, "2 succeeded, 1 failed");
  /* The traceback and where the logs are go to the standard error. */
  sk_test_assert_contains (result.err, "1 / 0");
  sk_test_assert_contains (result.err, "Its full output is in broken/.skele/.");
  g_assert_false (sk_test_exists (out, "broken/broken.pkl"));

  sk_test_remove_tree (dir);
}

/* Each step runs in a process forked from the driver's, which has the
 * harness imported already; a crash in it and a step that takes too long
 * end that process only, as when Python is started for each step. */
static void
test_step_processes (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-python");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_spec_process (workflow, "export test", "1 crash\n2 slow\n3 where\n");
  sk_test_write_step (workflow, "crash", "    import os\n    os.abort()");
  sk_test_write_step (workflow, "slow", "    import time\n    time.sleep(60)");
  sk_test_write_step (workflow, "where",
                      "    import os, sys\n"
                      "    main = os.path.basename(sys.modules[\"__main__\"].__file__)\n"
                      "    state[\"output\"] = {\"task_status\": \"success\", "
                      "\"pid\": os.getpid()}\n"
                      "    report(\"main \" + main)");
  export_to (workflow, out);

  run_exported (&result, out, "--timeout", "2", NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.out, "✗ “crash” failed: The step was ended by signal 6.");
  sk_test_assert_contains (result.out, "✗ “slow” failed: The step took longer than 2 seconds "
                                       "and was stopped.");
  sk_test_assert_contains (result.out, "✓ “where” succeeded: main run_workflow.py");
  sk_test_assert_contains (result.out, "1 succeeded, 2 failed");

  sk_test_remove_tree (dir);
}

/* A step without code is exported, named in the README, and stops the run
 * clearly there; the steps that need it wait. */
static void
test_no_code (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-python");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *readme = NULL;
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_spec_process (workflow, "export test",
                              "1 first\n2 empty 1\n3 after 2\n4 other 1\n");
  sk_test_write_step (workflow, "first", SUCCEED ("1"));
  sk_test_write_step (workflow, "after", SUCCEED ("3"));
  sk_test_write_step (workflow, "other", SUCCEED ("4"));
  export_to (workflow, out);
  readme = sk_test_read_text (out, "README.md");
  sk_test_assert_contains (readme, "These steps have no code yet, so the run fails at them: "
                                   "“empty” (empty/empty.py).");

  run_exported (&result, out, NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.out, "✗ “empty” has no code: This step has no code yet: "
                                       "empty/empty.py does not exist.");
  sk_test_assert_contains (result.out, "– “after” skipped: Not run: it needs “empty”, which has "
                                       "no code yet.");
  sk_test_assert_contains (result.out, "✓ “other” succeeded");

  sk_test_remove_tree (dir);
}

/* Nothing is overwritten: a folder that holds a file, or a file, is
 * refused, and the folder is needed. */
static void
test_refused (void)
{
  g_autofree char *example = g_build_filename (examples_dir, "sales-report", NULL);
  g_autofree char *dir = sk_test_make_tmp_dir ("export-python");
  g_autofree char *full = g_build_filename (dir, "full", NULL);
  g_autofree char *file = g_build_filename (full, "notes.txt", NULL);
  g_autofree char *empty = g_build_filename (dir, "empty", NULL);
  g_autofree char *notes = NULL;
  g_autoptr(GDir) listing = NULL;
  g_auto(SkTestResult) result = { 0 };
  guint count = 0;

  sk_test_write_text (full, "notes.txt", "mine");
  sk_test_run_skele (&result, SK_TEST_RUN_NO_PYTHONPATH,
                     "export", example, "--format", "python", "-o", full, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "holds files already. Choose an empty or new folder, so "
                                       "that nothing is overwritten.");
  notes = sk_test_read_text (full, "notes.txt");
  g_assert_cmpstr (notes, ==, "mine");
  listing = g_dir_open (full, 0, NULL);
  while (g_dir_read_name (listing) != NULL)
    count++;
  g_assert_cmpuint (count, ==, 1);

  sk_test_run_skele (&result, SK_TEST_RUN_NO_PYTHONPATH,
                     "export", example, "--format", "python", "-o", file, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "is a file, not a folder");

  sk_test_run_skele (&result, SK_TEST_RUN_NO_PYTHONPATH,
                     "export", example, "--format", "python", NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "give a new or empty one with -o FOLDER");

  /* An empty folder is fine. */
  g_assert_cmpint (g_mkdir_with_parents (empty, 0755), ==, 0);
  export_to (example, empty);
  g_assert_true (sk_test_exists (empty, "run_workflow.py"));

  sk_test_remove_tree (dir);
}

/* The core refuses as the command line does, with its own error code. */
static void
test_refused_core (void)
{
  g_autofree char *example = g_build_filename (examples_dir, "sales-report", NULL);
  g_autofree char *dir = sk_test_make_tmp_dir ("export-python");
  g_autoptr(GFile) example_file = g_file_new_for_path (example);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;

  project = sk_project_load (example_file, &error);
  g_assert_no_error (error);
  sk_test_write_text (dir, "keep.txt", "keep");
  g_assert_false (sk_export_python (project, folder, &error));
  g_assert_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_EXISTS);
  g_assert_false (sk_test_exists (dir, "run_workflow.py"));

  sk_test_remove_tree (dir);
}

static const char conditions_spec[] =
  "1 score\n"
  "2 high 1 | {\"when\": {\"1\": \"output['value'] > 5\"}}\n"
  "3 low 1 | {\"when\": {\"1\": \"default\"}}\n"
  "4 after_low 3\n"
  "5 both 2 3\n"
  "6 odd 1 | {\"when\": {\"1\": \"output['missing'] > 1\"}}\n";

/* Conditions on connections: the first true one is taken, the others are
 * skipped, and so is a step whose steps before it were all skipped, but
 * not one that has another; a condition that raises fails its step. The
 * README names the modules to install. */
static void
test_conditions (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-python");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *readme = NULL;
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_spec_process (workflow, "export test", conditions_spec);
  sk_test_write_step (workflow, "score", SUCCEED ("7"));
  /* Imports that are never run still tell what to install. */
  sk_test_write_step (workflow, "high", "    if False:\n"
                                        "        import numpy.linalg as la, json  # two modules\n"
                                        "        from requests import get\n"
                                        "        from . import sibling\n"
                                        SUCCEED ("2"));
  sk_test_write_step (workflow, "low", SUCCEED ("3"));
  sk_test_write_step (workflow, "after_low", SUCCEED ("4"));
  sk_test_write_step (workflow, "both", SUCCEED ("5"));
  sk_test_write_step (workflow, "odd", SUCCEED ("6"));
  export_to (workflow, out);
  readme = sk_test_read_text (out, "README.md");
  sk_test_assert_contains (readme, "install them first, for example with pip: `numpy`, "
                                   "`requests`.");
  sk_test_assert_contains (readme, "From the standard library they import `json`, `os`, "
                                   "`pickle`, `subprocess`, `sys`, `time`.");
  sk_test_assert_contains (readme, "- **high** (`high/`), after “score” when "
                                   "`output['value'] > 5`\n");

  run_exported (&result, out, NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.out, "✓ “high” succeeded");
  sk_test_assert_contains (result.out, "– “low” skipped: Condition not met: after “score”, "
                                       "“high” was taken.");
  sk_test_assert_contains (result.out, "– “after_low” skipped: Skipped: every step before it "
                                       "was skipped.");
  sk_test_assert_contains (result.out, "✓ “both” succeeded: done high=2 low={}");
  sk_test_assert_contains (result.out, "✗ “odd” failed: The condition output['missing'] > 1 on "
                                       "the connection from “score” could not be evaluated: "
                                       "KeyError: 'missing'");

  sk_test_remove_tree (dir);
}

#define DOUBLE_COMPUTE \
  "    n = state[\"local\"][\"priors\"][\"inputs\"][\"src\"][\"value\"]\n" \
  "    report(\"doubled \" + str(n))\n" \
  "    state[\"output\"] = {\"task_status\": \"success\", \"n\": n * 2}"

#define ANSWER_COMPUTE \
  "    n = state[\"local\"][\"priors\"][\"double\"][\"n\"]\n" \
  "    report(\"answer \" + str(n))\n" \
  "    state[\"output\"] = {\"task_status\": \"success\", \"answer\": n}"

#define USE_COMPUTE \
  "    flow = state[\"local\"][\"priors\"][\"flow\"]\n" \
  "    report(\"used \" + str(flow[\"answer\"][\"answer\"]) + \" \" + flow[\"task_status\"])\n" \
  "    state[\"output\"] = {\"task_status\": \"success\"}"

/* A sub-workflow is exported into its folder and runs with the outputs of
 * the steps before it as prior_outputs["inputs"]; the step after it
 * receives the outputs of its last steps. */
static void
test_subworkflow (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-python");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *inner = g_build_filename (workflow, "inner", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *inner_out = g_build_filename (out, "inner", NULL);
  g_autofree char *summary = NULL;
  g_autofree char *readme = NULL;
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_spec_process (workflow, "export test",
                              "1 src\n2 flow 1 | {\"workflow\": \"inner\"}\n3 use 2\n");
  sk_test_write_step (workflow, "src", SUCCEED ("21"));
  sk_test_write_step (workflow, "use", USE_COMPUTE);
  sk_test_write_spec_process (inner, "export test", "1 double\n2 answer 1\n");
  sk_test_write_step (inner, "double", DOUBLE_COMPUTE);
  sk_test_write_step (inner, "answer", ANSWER_COMPUTE);
  export_to (workflow, out);
  g_assert_true (sk_test_exists (out, "inner/plan.json"));
  g_assert_true (sk_test_exists (out, "inner/workflow.json"));
  g_assert_true (sk_test_exists (out, "inner/double/double.py"));
  readme = sk_test_read_text (out, "README.md");
  sk_test_assert_contains (readme, "In the sub-workflow `inner/`:\n\n"
                                   "- **double** (`inner/double/`)");

  run_exported (&result, out, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "  ✓ “double” succeeded: doubled 21");
  sk_test_assert_contains (result.out, "  ✓ “answer” succeeded: answer 42");
  sk_test_assert_contains (result.out, "✓ “flow” succeeded: Ran the workflow in “inner”: "
                                       "2 succeeded, 0 skipped, 0 failed.");
  summary = sk_test_read_text (out, "use/use_summary.txt");
  sk_test_assert_contains (summary, "used 42 success");

  /* A failure inside fails the step, named. */
  sk_test_write_script (inner_out, SK_TEST_SCRIPT_TEMPLATE, "answer", NULL, "    1 / 0");
  run_exported (&result, out, NULL);
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.out, "✗ “flow” failed: “answer” in the workflow “inner” "
                                       "failed: ZeroDivisionError: division by zero in compute()");

  sk_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *python3 = g_find_program_in_path ("python3");
  int status;

  g_test_init (&argc, &argv, NULL);

  if (!sk_test_need_skele (NULL, &examples_dir))
    return g_test_run ();

  if (python3 == NULL)
    {
      g_test_skip ("python3 is not installed");
      return g_test_run ();
    }
  python_path = sk_test_find_python ();

  g_test_add_func ("/export-python/sales-report", test_sales_report);
  g_test_add_func ("/export-python/conditions", test_conditions);
  g_test_add_func ("/export-python/gate", test_gate);
  g_test_add_func ("/export-python/failing-step", test_failing_step);
  g_test_add_func ("/export-python/no-code", test_no_code);
  g_test_add_func ("/export-python/step-processes", test_step_processes);
  g_test_add_func ("/export-python/refused", test_refused);
  g_test_add_func ("/export-python/refused-core", test_refused_core);
  g_test_add_func ("/export-python/subworkflow", test_subworkflow);

  status = g_test_run ();
  g_free (python_path);
  return status;
}
