/* test-export-snakemake.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `skele export --format snakemake` (DESIGN §11): Snakemake runs the
 * exported workflow, one rule per step through `run_workflow.py --step`,
 * to the same files as `skele run`, with its control flow: conditions,
 * for-each steps, approval gates and sub-workflows. A second run does
 * nothing, and a changed script runs its step and the steps after it
 * again; a failing step and a step without code stop the steps that need
 * them; keys that are no rule names still give rules; quick steps of an
 * earlier run become local rules; a folder that holds files is refused.
 *
 * Snakemake is Debian's `snakemake`, which build-aux/install-deps.sh
 * installs. Without it the test fails and says so; with
 * SKELE_TESTS_ALLOW_MISSING_TOOLS=1 in the environment it skips instead.
 * The steps run with the Python that runs Snakemake, Debian's, and
 * `skele run` is given the same one.
 */

#define G_LOG_DOMAIN "test-export-snakemake"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-glib/json-glib.h>

#include "sk-export.h"
#include "sk-node.h"
#include "sk-project.h"
#include "sk-test-util.h"

static const char *skele_bin;
static const char *examples_dir;
static char *snakemake_path;
static char *python_path;

/* Runs `snakemake ARGS…` in the exported @folder. Snakemake, like skele,
 * runs without PYTHONPATH: the exported workflow must not need anything of
 * the build's. */
static void
run_snakemake (SkTestResult *result,
               const char   *folder,
               ...)
{
  va_list args;

  va_start (args, folder);
  sk_test_run_valist (result, SK_TEST_RUN_NO_PYTHONPATH, folder,
                      SK_TEST_STRV (snakemake_path), args);
  va_end (args);
}

static void
assert_failed (SkTestResult *result)
{
  if (result->status <= 0)
    g_error ("The command exited with %d instead of failing.\nstdout:\n%s\nstderr:\n%s",
             result->status, result->out, result->err);
}

/* What Snakemake printed: it logs to the standard error, and the rules'
 * commands print to the standard output. */
static char *
output_of (SkTestResult *result)
{
  return g_strconcat (result->out, result->err, NULL);
}

static void
export_to (const char *workflow,
           const char *folder)
{
  g_auto(SkTestResult) result = { 0 };

  sk_test_run_skele (&result, SK_TEST_RUN_NO_PYTHONPATH,
                     "export", workflow, "--format", "snakemake", "-o", folder, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "snakemake --cores 4");
  g_assert_true (sk_test_exists (folder, "Snakefile"));
}

/* Runs `skele run FOLDER ARGS…` with the Python that Snakemake runs steps
 * with, and asserts that it succeeded. */
static void
skele_run (const char *folder,
           ...)
{
  g_auto(SkTestResult) result = { 0 };
  const char * const prefix[] = {
    skele_bin, "run", folder, "--python", python_path, NULL
  };
  va_list args;

  va_start (args, folder);
  sk_test_run_valist (&result, SK_TEST_RUN_NO_PYTHONPATH, NULL, prefix, args);
  va_end (args);
  sk_test_assert_status (&result, 0);
}

/* The state that run_workflow.py recorded for the step @key. */
static char *
recorded_state (const char *folder,
                const char *key)
{
  g_autofree char *relative = g_build_filename (key, ".skele", "state.json", NULL);
  g_autofree char *text = sk_test_read_text (folder, relative);
  g_autoptr(JsonObject) state = sk_test_parse_object (text);

  return g_strdup (json_object_get_string_member (state, "state"));
}

static gint64
modified_ns (const char *path)
{
  struct stat st;

  g_assert_cmpint (stat (path, &st), ==, 0);
  return (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
}

/* Snakemake logs every run in its own folder. */
static gboolean
is_snakemake_folder (const char *folder,
                     const char *name)
{
  return g_str_equal (name, ".snakemake");
}

/* Every file below @root with its time of modification, one a line. */
static char *
file_times (const char *root)
{
  g_autoptr(GPtrArray) files = sk_test_list_files (root, is_snakemake_folder);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < files->len; i++)
    {
      const char *relative = g_ptr_array_index (files, i);
      g_autofree char *path = g_build_filename (root, relative, NULL);

      g_string_append_printf (out, "%s %" G_GINT64_FORMAT "\n", relative, modified_ns (path));
    }
  return g_string_free (out, FALSE);
}

/* The rules that Snakemake ran, sorted and joined by commas. */
static char *
rules_run (SkTestResult *result)
{
  g_autofree char *output = output_of (result);
  g_auto(GStrv) lines = g_strsplit (output, "\n", -1);
  g_autoptr(GPtrArray) rules = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (g_str_has_prefix (line, "localrule "))
        line += strlen ("localrule ");
      else if (g_str_has_prefix (line, "rule "))
        line += strlen ("rule ");
      else
        continue;
      if (g_str_has_suffix (line, ":"))
        g_ptr_array_add (rules, g_strndup (line, strlen (line) - 1));
    }
  g_ptr_array_sort (rules, sk_test_compare_strings);
  g_ptr_array_add (rules, NULL);
  return g_strjoinv (",", (char **) rules->pdata);
}

/* The body of compute() for a step that succeeds with "value" @value and
 * leaves a file KEY.txt beside its report. */
#define SUCCEED(value) \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": " value "}\n" \
  "    with open(os.path.join(FOLDER, KEY + \".txt\"), \"w\") as f:\n" \
  "        f.write(KEY + \" \" + describe(state[\"local\"][\"priors\"]) + \"\\n\")\n" \
  "    report(\"done \" + describe(state[\"local\"][\"priors\"]))"

/* Snakemake as well as `skele run` needs them; %FALSE when the test was
 * failed or skipped. */
static gboolean
need_snakemake (void)
{
  if (snakemake_path != NULL)
    return TRUE;

  sk_test_missing_tool ("snakemake");
  return FALSE;
}

static const char * const example_outputs[] = {
  "load_sales/load_sales.pkl",
  "load_sales/load_sales_summary.txt",
  "sales_report/report.md",
  "region_review/region_review.md",
  "revenue_chart/revenue_chart.svg",
  "monthly_totals/monthly_totals.csv",
  "region_sheets/region_sheets.pkl",
  "region_sheets/items/0/north_sales.csv",
  "region_sheets/items/3/west_sales.csv",
  "flag_weak_region/flag_weak_region.pkl",
  NULL
};

/* The example, with a condition, a for-each and a join, runs under
 * Snakemake to the files of `skele run`; a second run does nothing, and a
 * changed script runs its step and the steps after it again. */
static void
test_sales_report (void)
{
  g_autofree char *example = g_build_filename (examples_dir, "sales-report", NULL);
  g_autofree char *dir = sk_test_make_tmp_dir ("export-snakemake");
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy", NULL);
  g_autofree char *state = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *output = NULL;
  g_autofree char *rules = NULL;
  g_autofree char *script = NULL;
  g_autofree char *edited = NULL;
  g_auto(SkTestResult) result = { 0 };
  const char * const *unchanged = SK_TEST_STRV ("load_sales", "revenue_by_region",
                                                "region_sheets", "flag_weak_region",
                                                "confirm_balance", "region_review");
  const char * const *changed = SK_TEST_STRV ("monthly_totals", "revenue_chart",
                                              "sales_report");
  g_autoptr(GHashTable) state_times = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                             NULL, g_free);

  if (!need_snakemake ())
    return;

  export_to (example, out);
  sk_test_copy_folder (example, copy);
  skele_run (copy, NULL);

  run_snakemake (&result, out, "--cores", "2", NULL);
  sk_test_assert_status (&result, 0);
  rules = rules_run (&result);
  g_assert_cmpstr (rules, ==, "all,confirm_balance,flag_weak_region,load_sales,monthly_totals,"
                              "region_review,region_sheets,revenue_by_region,revenue_chart,"
                              "sales_report");
  sk_test_assert_same_outputs (copy, out, example_outputs);

  /* The step whose condition is not met is recorded as skipped, and has no
   * output, as in Skele-Code. */
  state = recorded_state (out, "confirm_balance");
  g_assert_cmpstr (state, ==, "skipped");
  g_assert_false (sk_test_exists (out, "confirm_balance/confirm_balance.pkl"));
  g_assert_false (sk_test_exists (copy, "confirm_balance/confirm_balance.pkl"));
  g_clear_pointer (&state, g_free);
  state = recorded_state (out, "region_review");
  g_assert_cmpstr (state, ==, "succeeded");

  /* Nothing to do, and nothing touched. */
  before = file_times (out);
  run_snakemake (&result, out, "--cores", "2", NULL);
  sk_test_assert_status (&result, 0);
  output = output_of (&result);
  sk_test_assert_contains (output, "Nothing to be done");
  g_clear_pointer (&rules, g_free);
  rules = rules_run (&result);
  g_assert_cmpstr (rules, ==, "");
  after = file_times (out);
  g_assert_cmpstr (after, ==, before);

  /* A changed script runs its step and the steps after it again, no other. */
  for (guint i = 0; unchanged[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (out, unchanged[i], ".skele", "state.json",
                                                NULL);

      g_hash_table_insert (state_times, (gpointer) unchanged[i],
                           g_strdup_printf ("%" G_GINT64_FORMAT, modified_ns (path)));
    }
  script = sk_test_read_text (out, "monthly_totals/monthly_totals.py");
  edited = g_strconcat (script, "\n# Changed after the first run.\n", NULL);
  sk_test_write_text (out, "monthly_totals/monthly_totals.py", edited);
  run_snakemake (&result, out, "--cores", "2", NULL);
  sk_test_assert_status (&result, 0);
  g_clear_pointer (&rules, g_free);
  rules = rules_run (&result);
  g_assert_cmpstr (rules, ==, "all,monthly_totals,revenue_chart,sales_report");
  g_clear_pointer (&output, g_free);
  output = output_of (&result);
  sk_test_assert_contains (output, "reason: Updated input files: "
                                   "monthly_totals/monthly_totals.py");
  for (guint i = 0; unchanged[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (out, unchanged[i], ".skele", "state.json",
                                                NULL);
      g_autofree char *time = g_strdup_printf ("%" G_GINT64_FORMAT, modified_ns (path));

      g_assert_cmpstr (time, ==, g_hash_table_lookup (state_times, unchanged[i]));
    }
  for (guint i = 0; changed[i] != NULL; i++)
    {
      g_autofree char *script_path = g_strdup_printf ("%s/monthly_totals/monthly_totals.py",
                                                      out);
      g_autofree char *path = g_build_filename (out, changed[i], ".skele", "state.json",
                                                NULL);

      g_assert_cmpint (modified_ns (path), >, modified_ns (script_path));
    }
  /* The comment changes nothing that the steps make. */
  sk_test_write_text (copy, "monthly_totals/monthly_totals.py", edited);
  sk_test_assert_same_outputs (copy, out, example_outputs);

  sk_test_remove_tree (dir);
}

static const char gate_spec[] =
  "1 prepare\n"
  "2 review 1 | {\"approval\": true}\n"
  "3 publish 2\n"
  "4 side 1\n";

/* The rule of a gate fails and says how to approve it; the steps after it
 * do not run, the others do with --keep-going, and with the gate approved
 * the run finishes as `skele run --approve` does. */
static void
test_gate (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-snakemake");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *output = NULL;
  g_autofree char *snakefile = NULL;
  g_autofree char *state = NULL;
  g_auto(SkTestResult) result = { 0 };

  if (!need_snakemake ())
    return;

  sk_test_write_spec_process (workflow, "snakemake test", gate_spec);
  sk_test_write_step (workflow, "prepare", SUCCEED ("1"));
  sk_test_write_step (workflow, "review", SUCCEED ("2"));
  sk_test_write_step (workflow, "publish", SUCCEED ("3"));
  sk_test_write_step (workflow, "side", SUCCEED ("4"));
  sk_test_copy_folder (workflow, copy);
  export_to (workflow, out);
  snakefile = sk_test_read_text (out, "Snakefile");
  sk_test_assert_contains (snakefile, "# review (an approval gate: --config approve=review)\n"
                                      "rule review:\n");

  run_snakemake (&result, out, "--cores", "2", NULL);
  assert_failed (&result);
  output = output_of (&result);
  sk_test_assert_contains (output, "Error in rule review:");
  sk_test_assert_contains (output, "‖ “review” waits for approval; the steps after it were "
                                   "not run.");
  sk_test_assert_contains (output, "snakemake --config approve=review");
  g_assert_true (sk_test_exists (out, "prepare/prepare.pkl"));
  g_assert_false (sk_test_exists (out, "review/review.pkl"));
  /* Snakemake removes the output of a failed rule, so the gate runs again. */
  g_assert_false (sk_test_exists (out, "review/.skele/state.json"));
  g_assert_false (sk_test_exists (out, "publish/.skele/state.json"));
  g_assert_false (sk_test_exists (out, "publish/publish.pkl"));

  /* The step that does not need the gate runs with --keep-going. */
  run_snakemake (&result, out, "--cores", "2", "--keep-going", NULL);
  assert_failed (&result);
  g_clear_pointer (&output, g_free);
  output = output_of (&result);
  sk_test_assert_contains (output, "Error in rule review:");
  g_assert_true (sk_test_exists (out, "side/side.pkl"));
  state = recorded_state (out, "side");
  g_assert_cmpstr (state, ==, "succeeded");
  g_assert_false (sk_test_exists (out, "review/review.pkl"));
  g_assert_false (sk_test_exists (out, "publish/.skele/state.json"));
  g_assert_false (sk_test_exists (out, "publish/publish.pkl"));

  run_snakemake (&result, out, "--cores", "2", "--config", "approve=review", NULL);
  sk_test_assert_status (&result, 0);
  g_clear_pointer (&output, g_free);
  output = output_of (&result);
  sk_test_assert_contains (output, "✓ “review” succeeded: done prepare=1");
  sk_test_assert_contains (output, "✓ “publish” succeeded: done review=2");

  skele_run (copy, "--approve", "review", NULL);
  sk_test_assert_same_outputs (copy, out, SK_TEST_STRV ("review/review.pkl",
                                                        "publish/publish.txt",
                                                        "side/side_summary.txt"));

  sk_test_remove_tree (dir);
}

#define NUMBERS_COMPUTE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"values\": [3, 5, 8]}\n" \
  "    report(\"three numbers\")"

/* A for-each step's script: each item runs in its own folder, the working
 * folder, and leaves its report, file and output there. */
static const char each_script[] =
  "import os\n"
  "import pickle\n"
  "\n"
  "state = {}\n"
  "\n"
  "\n"
  "def preprocess(prior_outputs):\n"
  "    state[\"n\"] = state[\"item\"]\n"
  "    return True\n"
  "\n"
  "\n"
  "def compute():\n"
  "    with open(\"each_summary.txt\", \"w\") as f:\n"
  "        f.write(\"item\\nsquared \" + str(state[\"n\"]) + \"\\n\")\n"
  "    with open(\"square.txt\", \"w\") as f:\n"
  "        f.write(str(state[\"n\"] ** 2) + \"\\n\")\n"
  "    state[\"output\"] = {\"task_status\": \"success\", \"square\": state[\"n\"] ** 2}\n"
  "\n"
  "\n"
  "def save():\n"
  "    with open(\"each.pkl\", \"wb\") as f:\n"
  "        pickle.dump(state[\"output\"], f)\n";

#define TOTAL_COMPUTE \
  "    items = state[\"local\"][\"priors\"][\"inputs\"][\"each\"][\"items\"]\n" \
  "    n = sum(item[\"square\"] for item in items)\n" \
  "    report(\"total \" + str(n))\n" \
  "    state[\"output\"] = {\"task_status\": \"success\", \"n\": n}"

#define ANSWER_COMPUTE \
  "    n = state[\"local\"][\"priors\"][\"total\"][\"n\"]\n" \
  "    with open(os.path.join(FOLDER, \"answer.txt\"), \"w\") as f:\n" \
  "        f.write(str(n + 1) + \"\\n\")\n" \
  "    report(\"answer \" + str(n + 1))\n" \
  "    state[\"output\"] = {\"task_status\": \"success\", \"answer\": n + 1}"

#define USE_COMPUTE \
  "    flow = state[\"local\"][\"priors\"][\"flow\"]\n" \
  "    with open(os.path.join(FOLDER, \"use.txt\"), \"w\") as f:\n" \
  "        f.write(\"used \" + str(flow[\"answer\"][\"answer\"]) + \"\\n\")\n" \
  "    report(\"used \" + str(flow[\"answer\"][\"answer\"]) + \" \" + flow[\"task_status\"])\n" \
  "    state[\"output\"] = {\"task_status\": \"success\"}"

/* A for-each step and a sub-workflow that receives its items run inside
 * their rules as `skele run` runs them, to the same files. */
static void
test_foreach_subworkflow (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-snakemake");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *inner = g_build_filename (workflow, "inner", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *inner_out = g_build_filename (out, "inner", NULL);
  g_autofree char *rules = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *state = NULL;
  g_auto(SkTestResult) result = { 0 };

  if (!need_snakemake ())
    return;

  sk_test_write_spec_process (workflow, "snakemake test",
                              "1 numbers\n"
                              "2 each 1 | {\"foreach\": {\"prior\": \"1\", \"path\": \"values\"}}\n"
                              "3 flow 2 | {\"workflow\": \"inner\"}\n"
                              "4 use 3\n");
  sk_test_write_step (workflow, "numbers", NUMBERS_COMPUTE);
  sk_test_write_text (workflow, "each/each.py", each_script);
  sk_test_write_step (workflow, "use", USE_COMPUTE);
  sk_test_write_spec_process (inner, "snakemake test", "1 total\n2 answer 1\n");
  sk_test_write_step (inner, "total", TOTAL_COMPUTE);
  sk_test_write_step (inner, "answer", ANSWER_COMPUTE);
  sk_test_copy_folder (workflow, copy);
  export_to (workflow, out);

  run_snakemake (&result, out, "--cores", "2", NULL);
  sk_test_assert_status (&result, 0);
  rules = rules_run (&result);
  g_assert_cmpstr (rules, ==, "all,each,flow,numbers,use");
  summary = sk_test_read_text (out, "use/use_summary.txt");
  sk_test_assert_contains (summary, "used 99 success");
  g_assert_true (sk_test_exists (out, "each/items/2/square.txt"));
  state = recorded_state (out, "flow");
  g_assert_cmpstr (state, ==, "succeeded");

  skele_run (copy, NULL);
  sk_test_assert_same_outputs (copy, out, SK_TEST_STRV ("each/items/0/square.txt",
                                                        "each/items/2/each.pkl",
                                                        "each/each.pkl",
                                                        "inner/total/total.pkl",
                                                        "inner/answer/answer.txt",
                                                        "flow/flow.pkl",
                                                        "use/use.txt"));

  /* A changed script in the sub-workflow runs its step and the steps after
   * it again. */
  sk_test_write_script (inner_out, SK_TEST_SCRIPT_TEMPLATE, "answer", NULL,
                        ANSWER_COMPUTE "\n    # Changed after the first run.");
  run_snakemake (&result, out, "--cores", "2", NULL);
  sk_test_assert_status (&result, 0);
  g_clear_pointer (&rules, g_free);
  rules = rules_run (&result);
  g_assert_cmpstr (rules, ==, "all,flow,use");

  sk_test_remove_tree (dir);
}

/* A failing step fails its rule, with its error shown, and the steps that
 * need it do not run; a step without code fails its rule saying so. */
static void
test_failing_step (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-snakemake");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *output = NULL;
  g_autofree char *state = NULL;
  g_auto(SkTestResult) result = { 0 };

  if (!need_snakemake ())
    return;

  sk_test_write_spec_process (workflow, "snakemake test",
                              "1 first\n2 broken 1\n3 after 2\n4 empty 1\n5 later 4\n");
  sk_test_write_step (workflow, "first", SUCCEED ("1"));
  sk_test_write_step (workflow, "broken", "    1 / 0");
  sk_test_write_step (workflow, "after", SUCCEED ("3"));
  sk_test_write_step (workflow, "later", SUCCEED ("5"));
  export_to (workflow, out);

  run_snakemake (&result, out, "--cores", "2", "--keep-going", NULL);
  assert_failed (&result);
  output = output_of (&result);
  sk_test_assert_contains (output, "Error in rule broken:");
  sk_test_assert_contains (output, "✗ “broken” failed: ZeroDivisionError: division by zero "
                                   "in compute()");
  /* The traceback, and where the step's logs are. */
  sk_test_assert_contains (output, "1 / 0");
  sk_test_assert_contains (output, "Its full output is in broken/.skele/.");
  g_assert_false (sk_test_exists (out, "broken/broken.pkl"));
  g_assert_false (sk_test_exists (out, "broken/.skele/state.json"));
  g_assert_false (sk_test_exists (out, "after/.skele"));
  g_assert_false (sk_test_exists (out, "after/after.pkl"));

  sk_test_assert_contains (output, "Error in rule empty:");
  sk_test_assert_contains (output, "✗ “empty” has no code: This step has no code yet: "
                                   "empty/empty.py does not exist.");
  g_assert_false (sk_test_exists (out, "later/.skele"));
  g_assert_false (sk_test_exists (out, "later/later.pkl"));

  state = recorded_state (out, "first");
  g_assert_cmpstr (state, ==, "succeeded");

  sk_test_remove_tree (dir);
}

/* Names that are Python keywords, "all", a name with a space that starts
 * with a digit and a name that the others' rules could take. */
static const char names_process[] =
  "{\n"
  "  \"process_name\": \"names\",\n"
  "  \"nodes\": {\n"
  "    \"1\": {\"name\": \"class\", \"priors\": [], \"run\": true},\n"
  "    \"2\": {\"name\": \"all\", \"priors\": [\"1\"], \"run\": true},\n"
  "    \"3\": {\"name\": \"3 totals\", \"priors\": [\"2\"], \"run\": true},\n"
  "    \"4\": {\"name\": \"step_all\", \"priors\": [\"1\"], \"run\": true},\n"
  "    \"5\": {\"name\": \"lambda\", \"priors\": [\"3\", \"4\"], \"run\": true}\n"
  "  }\n"
  "}\n";

/* Steps whose keys are no names of rules still have rules, which Snakemake
 * accepts and runs. */
static void
test_rule_names (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-snakemake");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *digit_key = sk_node_key_from_name ("3 totals");
  const char *keys[] = { "class", "all", digit_key, "step_all", "lambda" };
  g_autofree char *rules = NULL;
  g_autofree char *summary = NULL;
  g_auto(SkTestResult) result = { 0 };
  g_auto(GStrv) names = NULL;

  if (!need_snakemake ())
    return;

  sk_test_write_text (workflow, "process.json", names_process);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    sk_test_write_step (workflow, keys[i], SUCCEED ("1"));
  sk_test_copy_folder (workflow, copy);
  export_to (workflow, out);

  run_snakemake (&result, out, "-n", NULL);
  sk_test_assert_status (&result, 0);

  run_snakemake (&result, out, "--cores", "2", NULL);
  sk_test_assert_status (&result, 0);
  rules = rules_run (&result);
  names = g_strsplit (rules, ",", -1);
  /* A rule for each step and "all", each of its own. */
  g_assert_cmpuint (g_strv_length (names), ==, G_N_ELEMENTS (keys) + 1);
  g_assert_true (g_strv_contains ((const char * const *) names, "all"));
  for (guint i = 0; names[i] != NULL; i++)
    for (guint j = i + 1; names[j] != NULL; j++)
      g_assert_cmpstr (names[i], !=, names[j]);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autofree char *state = recorded_state (out, keys[i]);

      g_assert_cmpstr (state, ==, "succeeded");
    }
  summary = sk_test_read_text (out, "lambda/lambda_summary.txt");
  sk_test_assert_contains (summary, "done 3_totals=1 step_all=1");

  skele_run (copy, NULL);
  sk_test_assert_same_outputs (copy, out, SK_TEST_STRV ("lambda/lambda.pkl", "all/all.txt"));

  sk_test_remove_tree (dir);
}

/* Nothing is overwritten: a folder that holds a file is refused and keeps
 * it alone, and the folder is needed. */
static void
test_refused (void)
{
  g_autofree char *example = g_build_filename (examples_dir, "sales-report", NULL);
  g_autofree char *dir = sk_test_make_tmp_dir ("export-snakemake");
  g_autofree char *full = g_build_filename (dir, "full", NULL);
  g_autofree char *notes = NULL;
  g_autoptr(GDir) listing = NULL;
  g_auto(SkTestResult) result = { 0 };
  guint count = 0;

  sk_test_write_text (full, "notes.txt", "mine");
  sk_test_run_skele (&result, SK_TEST_RUN_NO_PYTHONPATH,
                     "export", example, "--format", "snakemake", "-o", full, NULL);
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
                     "export", example, "--format", "snakemake", NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "give a new or empty one with -o FOLDER");

  sk_test_remove_tree (dir);
}

/* The core refuses as the command line does, with its own error code. */
static void
test_refused_core (void)
{
  g_autofree char *example = g_build_filename (examples_dir, "sales-report", NULL);
  g_autofree char *dir = sk_test_make_tmp_dir ("export-snakemake");
  g_autoptr(GFile) example_file = g_file_new_for_path (example);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;

  project = sk_project_load (example_file, &error);
  g_assert_no_error (error);
  sk_test_write_text (dir, "keep.txt", "keep");
  g_assert_false (sk_export_snakemake (project, folder, &error));
  g_assert_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_EXISTS);
  g_assert_false (sk_test_exists (dir, "Snakefile"));
  g_assert_false (sk_test_exists (dir, "run_workflow.py"));

  sk_test_remove_tree (dir);
}

/* The rules listed under localrules: in the Snakefile, one a line. */
static char *
local_rules (const char *folder)
{
  g_autofree char *snakefile = sk_test_read_text (folder, "Snakefile");
  const char *start = strstr (snakefile, "\nlocalrules:\n");
  const char *end = NULL;

  g_assert_nonnull (start);
  start += strlen ("\nlocalrules:\n");
  end = strstr (start, "\n\n");
  g_assert_nonnull (end);
  return g_strndup (start, end - start);
}

/* Sets the time that the last run of the step @key took, in its record. */
static void
set_recorded_seconds (const char *workflow,
                      const char *key,
                      double      seconds)
{
  g_autofree char *relative = g_build_filename (key, ".skele", "record.json", NULL);
  g_autofree char *text = sk_test_read_text (workflow, relative);
  g_autoptr(JsonObject) record = sk_test_parse_object (text);
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *changed = NULL;

  g_assert_true (json_object_has_member (record, "seconds"));
  json_object_set_double_member (record, "seconds", seconds);
  json_node_set_object (root, record);
  changed = json_to_string (root, TRUE);
  sk_test_write_text (workflow, relative, changed);
}

/* A workflow that never ran has only "all" as a local rule; after a run,
 * the steps that succeeded in less than ten seconds are local rules too,
 * and a step that took longer is not, nor one that was skipped. */
static void
test_local_rules (void)
{
  g_autofree char *example = g_build_filename (examples_dir, "sales-report", NULL);
  g_autofree char *dir = sk_test_make_tmp_dir ("export-snakemake");
  g_autofree char *fresh = g_build_filename (dir, "fresh", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy", NULL);
  g_autofree char *ran = g_build_filename (dir, "ran", NULL);
  g_autofree char *fresh_rules = NULL;
  g_autofree char *ran_rules = NULL;

  export_to (example, fresh);
  fresh_rules = local_rules (fresh);
  g_assert_cmpstr (fresh_rules, ==, "    all");

  sk_test_copy_folder (example, copy);
  skele_run (copy, NULL);
  set_recorded_seconds (copy, "revenue_chart", 10.5);
  export_to (copy, ran);
  ran_rules = local_rules (ran);
  g_assert_cmpstr (ran_rules, ==, "    all,\n"
                                  "    load_sales,\n"
                                  "    monthly_totals,\n"
                                  "    revenue_by_region,\n"
                                  "    sales_report,\n"
                                  "    region_sheets,\n"
                                  "    flag_weak_region,\n"
                                  "    region_review");

  sk_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);

  if (!sk_test_need_skele (&skele_bin, &examples_dir))
    return g_test_run ();

  /* Debian's snakemake runs with Debian's Python, which runs the steps
   * unless the Snakefile is told another; `skele run` is given the same. */
  snakemake_path = g_find_program_in_path ("snakemake");
  python_path = g_find_program_in_path ("/usr/bin/python3");
  if (python_path == NULL)
    {
      g_test_skip ("/usr/bin/python3 is not installed");
      return g_test_run ();
    }

  g_test_add_func ("/export-snakemake/sales-report", test_sales_report);
  g_test_add_func ("/export-snakemake/gate", test_gate);
  g_test_add_func ("/export-snakemake/foreach-subworkflow", test_foreach_subworkflow);
  g_test_add_func ("/export-snakemake/failing-step", test_failing_step);
  g_test_add_func ("/export-snakemake/rule-names", test_rule_names);
  g_test_add_func ("/export-snakemake/refused", test_refused);
  g_test_add_func ("/export-snakemake/refused-core", test_refused_core);
  g_test_add_func ("/export-snakemake/local-rules", test_local_rules);

  status = g_test_run ();
  g_free (snakemake_path);
  g_free (python_path);
  return status;
}
