/* test-export-notebook.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `skele export --format ipynb` (DESIGN §11): a valid nbformat 4 notebook
 * with a Markdown cell and a code cell per step, in the runner's order,
 * that `jupyter nbconvert --execute` runs to the same files as `skele run`;
 * it stops before an approval gate with a message unless APPROVE in its
 * first cell names the gate, and at a failing step, naming it.
 *
 * The test needs jupyter-nbconvert and a Python kernel (on Debian,
 * jupyter-nbconvert and python3-ipykernel, which build-aux/install-deps.sh
 * installs). Without them it fails, so that CI cannot pass by skipping it,
 * unless SKELE_TESTS_ALLOW_MISSING_TOOLS=1 is set, which makes it skip.
 * Jupyter runs with a temporary HOME and Jupyter and IPython folders inside
 * the test's temporary folder, so that nothing is written outside it; the
 * kernel talks to nbconvert over the loopback interface only.
 */

#define G_LOG_DOMAIN "test-export-notebook"

#include <string.h>

#include <json-glib/json-glib.h>

#include "sk-export.h"
#include "sk-project.h"
#include "sk-test-util.h"

static const char *skele_bin;
static const char *examples_dir;
static char *nbconvert_path;
static char *nbconvert_python;

/* Runs @argv (NULL-terminated) in @cwd under a UTF-8 locale; with @home,
 * Jupyter keeps everything of its own below it. */
static void
run_argv (SkTestResult       *result,
          const char         *cwd,
          const char         *home,
          const char * const *argv)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;

  launcher = sk_test_new_launcher (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                   G_SUBPROCESS_FLAGS_STDERR_PIPE, SK_TEST_RUN_NO_PYTHONPATH);
  if (home != NULL)
    {
      const struct { const char *variable; const char *folder; } folders[] = {
        { "HOME", "" },
        { "JUPYTER_CONFIG_DIR", "jupyter-config" },
        { "JUPYTER_DATA_DIR", "jupyter-data" },
        { "JUPYTER_RUNTIME_DIR", "jupyter-runtime" },
        { "IPYTHONDIR", "ipython" },
        { "MPLCONFIGDIR", "matplotlib" },
        { "XDG_CACHE_HOME", "cache" },
        { "XDG_CONFIG_HOME", "config" },
        { "XDG_DATA_HOME", "data" },
      };

      for (guint i = 0; i < G_N_ELEMENTS (folders); i++)
        {
          g_autofree char *path = g_build_filename (home, folders[i].folder, NULL);

          g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
          g_subprocess_launcher_setenv (launcher, folders[i].variable, path, TRUE);
        }
      g_subprocess_launcher_setenv (launcher, "JUPYTER_PLATFORM_DIRS", "1", TRUE);
      g_subprocess_launcher_setenv (launcher, "PYDEVD_DISABLE_FILE_VALIDATION", "1", TRUE);
      g_subprocess_launcher_setenv (launcher, "PYTHONDONTWRITEBYTECODE", "1", TRUE);
    }
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  sk_test_run_launcher (result, launcher, SK_TEST_RUN_NO_PYTHONPATH, argv);
}

static void
export_to (const char *workflow,
           const char *notebook)
{
  g_auto(SkTestResult) result = { 0 };

  run_argv (&result, NULL, NULL, SK_TEST_STRV (skele_bin, "export", workflow, "--format",
                                               "ipynb", "-o", notebook));
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "Wrote “");
}

/* Runs the notebook @name in @folder with nbconvert, which writes the run
 * notebook as executed.ipynb beside it. */
static void
execute (SkTestResult *result,
         const char   *folder,
         const char   *name)
{
  g_autofree char *home = g_build_filename (folder, "home", NULL);

  run_argv (result, folder, home,
            SK_TEST_STRV (nbconvert_path, "--to", "notebook", "--execute",
                          "--ExecutePreprocessor.timeout=120", "--output", "executed.ipynb",
                          name));
}

static JsonObject *
read_notebook (const char *folder,
               const char *name)
{
  g_autofree char *text = sk_test_read_text (folder, name);

  return sk_test_parse_object (text);
}

static char *
cell_source (JsonObject *cell)
{
  JsonArray *lines = json_object_get_array_member (cell, "source");
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (lines); i++)
    g_string_append (text, json_array_get_string_element (lines, i));
  return g_string_free (text, FALSE);
}

static const char *
cell_key (JsonObject *cell)
{
  JsonObject *metadata = json_object_get_object_member (cell, "metadata");
  JsonObject *skele = json_object_has_member (metadata, "skele")
                      ? json_object_get_object_member (metadata, "skele") : NULL;

  return skele != NULL ? json_object_get_string_member (skele, "key") : NULL;
}

/* Validates the notebook against the nbformat schema with the Python that
 * runs nbconvert, which has nbformat. */
static void
assert_valid_notebook (const char *path)
{
  g_auto(SkTestResult) result = { 0 };

  run_argv (&result, NULL, NULL,
            SK_TEST_STRV (nbconvert_python, "-c",
                          "import sys, nbformat\n"
                          "nb = nbformat.read(sys.argv[1], as_version=nbformat.NO_CONVERT)\n"
                          "nbformat.validate(nb)\n"
                          "print('valid', nb.nbformat, nb.nbformat_minor)\n", path));
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "valid 4 ");
}

#define SUCCEED(value) \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": " value "}\n" \
  "    report(\"done \" + describe(state[\"local\"][\"priors\"]))"

/* The example, with conditions, a for-each and a join: the notebook has a
 * Markdown and a code cell per step in the runner's order, each code cell
 * with the step's script, and it runs to the same files as `skele run`. */
static void
test_sales_report (void)
{
  g_autofree char *example = g_build_filename (examples_dir, "sales-report", NULL);
  g_autofree char *dir = sk_test_make_tmp_dir ("export-notebook");
  g_autofree char *notebook = g_build_filename (dir, "sales.ipynb", NULL);
  g_autofree char *working = g_build_filename (dir, "sales-report-run", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy", NULL);
  g_autofree char *script = NULL;
  g_autofree char *expected_call = NULL;
  g_autofree char *run_text = NULL;
  g_autoptr(JsonObject) root = NULL;
  g_autoptr(JsonObject) ran = NULL;
  g_auto(SkTestResult) result = { 0 };
  JsonObject *metadata;
  JsonArray *cells;
  guint step = 0;
  const char * const order[] = {
    "load_sales", "monthly_totals", "revenue_by_region", "revenue_chart", "sales_report",
    "region_sheets", "flag_weak_region", "confirm_balance", "region_review",
  };
  const char * const outputs[] = {
    "sales_report/report.md",
    "region_review/region_review.md",
    "revenue_chart/revenue_chart.svg",
    "monthly_totals/monthly_totals.csv",
    "region_sheets/items/0/north_sales.csv",
    "region_sheets/items/3/west_sales.csv",
  };

  export_to (example, notebook);
  assert_valid_notebook (notebook);

  root = read_notebook (dir, "sales.ipynb");
  g_assert_cmpint (json_object_get_int_member (root, "nbformat"), ==, 4);
  metadata = json_object_get_object_member (root, "metadata");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (metadata,
                                                                                 "kernelspec"),
                                                  "name"), ==, "python3");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (metadata,
                                                                                 "language_info"),
                                                  "name"), ==, "python");

  /* Per step, in order, its Markdown cell and then its code cell. */
  cells = json_object_get_array_member (root, "cells");
  for (guint i = 0; i < json_array_get_length (cells); i++)
    {
      JsonObject *cell = json_array_get_object_element (cells, i);
      const char *key = cell_key (cell);
      const char *type = json_object_get_string_member (cell, "cell_type");
      g_autofree char *source = cell_source (cell);

      if (key == NULL)
        continue;
      g_assert_cmpuint (step / 2, <, G_N_ELEMENTS (order));
      g_assert_cmpstr (key, ==, order[step / 2]);
      g_assert_cmpstr (type, ==, step % 2 == 0 ? "markdown" : "code");
      if (g_str_equal (key, "region_sheets") && step % 2 == 0)
        sk_test_assert_contains (source, "**For each:** it runs once for each element of "
                                         "`region_totals` in the output of “revenue by region”");
      if (g_str_equal (key, "flag_weak_region") && step % 2 == 0)
        sk_test_assert_contains (source, "**Condition:** it runs when "
                                         "`output[\"region_totals\"][-1][\"share\"] < 20` is "
                                         "true of the output of “revenue by region”");
      if (g_str_equal (key, "load_sales"))
        {
          if (step % 2 == 0)
            {
              sk_test_assert_contains (source, "## 1. load sales\n\n> Read the sales records");
            }
          else
            {
              g_autofree char *folder = g_build_filename (example, "load_sales", NULL);

              /* The step's code reads in its cell as in its file. */
              script = sk_test_read_text (folder, "load_sales.py");
              expected_call = g_strconcat ("skele.run_step(\"load_sales\", r'''\n", script,
                                           "''')\n", NULL);
              sk_test_assert_contains (source, expected_call);
            }
        }
      step++;
    }
  g_assert_cmpuint (step, ==, 2 * G_N_ELEMENTS (order));

  execute (&result, dir, "sales.ipynb");
  sk_test_assert_status (&result, 0);
  run_text = sk_test_read_text (dir, "executed.ipynb");
  sk_test_assert_contains (run_text, "✓ “load sales” succeeded: Read 96 sales rows");
  sk_test_assert_contains (run_text, "– “confirm balance” skipped: Condition not met");
  ran = sk_test_parse_object (run_text);
  g_assert_nonnull (ran);
  g_assert_false (sk_test_exists (working, "confirm_balance/confirm_balance.pkl"));

  /* `skele run` on a copy of the example makes the same files. */
  sk_test_copy_folder (example, copy);
  run_argv (&result, NULL, NULL, SK_TEST_STRV (skele_bin, "run", copy));
  sk_test_assert_status (&result, 0);
  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    sk_test_assert_same_file (copy, working, outputs[i]);

  /* Without -o the notebook goes to the standard output. */
  run_argv (&result, NULL, NULL, SK_TEST_STRV (skele_bin, "export", example, "--format",
                                               "ipynb"));
  sk_test_assert_status (&result, 0);
  g_assert_true (g_str_has_prefix (result.out, "{"));
  sk_test_assert_contains (result.out, "\"nbformat\" : 4");

  sk_test_remove_tree (dir);
}

/* Replaces the first code cell's source with @code. */
static void
set_first_cell (const char *folder,
                const char *name,
                const char *code)
{
  g_autoptr(JsonObject) root = read_notebook (folder, name);
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  JsonArray *cells = json_object_get_array_member (root, "cells");

  for (guint i = 0; i < json_array_get_length (cells); i++)
    {
      JsonObject *cell = json_array_get_object_element (cells, i);
      g_autofree char *source = NULL;
      JsonArray *lines;

      if (!g_str_equal (json_object_get_string_member (cell, "cell_type"), "code"))
        continue;
      source = cell_source (cell);
      sk_test_assert_contains (source, "APPROVE = ");
      lines = json_array_new ();
      json_array_add_string_element (lines, code);
      json_object_set_array_member (cell, "source", lines);
      break;
    }

  node = json_node_init_object (json_node_alloc (), root);
  text = json_to_string (node, TRUE);
  sk_test_write_text (folder, name, text);
}

/* The notebook stops before a gate with a message that says how to go on;
 * APPROVE in the first cell goes through. */
static void
test_gate (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-notebook");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *nb = g_build_filename (dir, "nb", NULL);
  g_autofree char *notebook = g_build_filename (nb, "gate.ipynb", NULL);
  g_autofree char *working = g_build_filename (nb, "workflow-run", NULL);
  g_autofree char *text = NULL;
  g_autofree char *summary = NULL;
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_spec_process (workflow, "notebook test",
                              "1 prepare\n2 review 1 | {\"approval\": true}\n3 publish 2\n");
  sk_test_write_step (workflow, "prepare", SUCCEED ("1"));
  sk_test_write_step (workflow, "publish", SUCCEED ("3"));
  sk_test_write_script (workflow, SK_TEST_SCRIPT_TEMPLATE, "review",
                        "    state[\"got\"] = prior_outputs[\"prepare\"][\"value\"]",
                        "    state[\"output\"] = {\"task_status\": \"success\", "
                        "\"value\": state[\"got\"] + 1}\n"
                        "    report(\"reviewed \" + str(state[\"got\"]))");
  g_assert_cmpint (g_mkdir_with_parents (nb, 0755), ==, 0);
  export_to (workflow, notebook);
  text = sk_test_read_text (nb, "gate.ipynb");
  sk_test_assert_contains (text, "**Approval gate:** the notebook stops before this step "
                                 "unless `APPROVE` in the first code cell names `review`.");

  execute (&result, nb, "gate.ipynb");
  g_assert_cmpint (result.status, !=, 0);
  sk_test_assert_contains (result.err, "WaitsForApproval: “review” waits for approval, so the "
                                       "notebook stops here.");
  sk_test_assert_contains (result.err, "APPROVE = {\"review\"}");
  g_assert_true (sk_test_exists (working, "prepare/prepare.pkl"));
  g_assert_false (sk_test_exists (working, "review/review.pkl"));
  g_assert_false (sk_test_exists (working, "publish/publish.pkl"));

  /* Only a gate can be approved. */
  set_first_cell (nb, "gate.ipynb", "WORKFLOW_FOLDER = \"workflow-run\"\nAPPROVE = {\"publish\"}\n");
  execute (&result, nb, "gate.ipynb");
  g_assert_cmpint (result.status, !=, 0);
  sk_test_assert_contains (result.err, "APPROVE names “publish”, which is not the key of an "
                                       "approval gate");

  g_clear_pointer (&text, g_free);
  set_first_cell (nb, "gate.ipynb", "WORKFLOW_FOLDER = \"workflow-run\"\nAPPROVE = {\"review\"}\n");
  sk_test_remove_tree (working);
  execute (&result, nb, "gate.ipynb");
  sk_test_assert_status (&result, 0);
  text = sk_test_read_text (nb, "executed.ipynb");
  sk_test_assert_contains (text, "✓ “review” succeeded: reviewed 1");
  summary = sk_test_read_text (working, "publish/publish_summary.txt");
  sk_test_assert_contains (summary, "done review=2");

  sk_test_remove_tree (dir);
}

/* A failing step stops the notebook and names the step. */
static void
test_failing_step (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-notebook");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *nb = g_build_filename (dir, "nb", NULL);
  g_autofree char *notebook = g_build_filename (nb, "failing.ipynb", NULL);
  g_autofree char *working = g_build_filename (nb, "workflow-run", NULL);
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_spec_process (workflow, "notebook test", "1 first\n2 broken 1\n3 after 2\n");
  sk_test_write_step (workflow, "first", SUCCEED ("1"));
  sk_test_write_step (workflow, "broken", "    1 / 0");
  sk_test_write_step (workflow, "after", SUCCEED ("3"));
  g_assert_cmpint (g_mkdir_with_parents (nb, 0755), ==, 0);
  export_to (workflow, notebook);

  execute (&result, nb, "failing.ipynb");
  g_assert_cmpint (result.status, !=, 0);
  sk_test_assert_contains (result.err, "StepFailed: The step “broken” (broken) failed: "
                                       "ZeroDivisionError: division by zero in compute()");
  g_assert_true (sk_test_exists (working, "first/first.pkl"));
  g_assert_false (sk_test_exists (working, "broken/broken.pkl"));
  g_assert_false (sk_test_exists (working, "after/after.pkl"));

  sk_test_remove_tree (dir);
}

#define DOUBLE_COMPUTE \
  "    n = state[\"local\"][\"priors\"][\"inputs\"][\"src\"][\"value\"]\n" \
  "    report(\"doubled \" + str(n))\n" \
  "    state[\"output\"] = {\"task_status\": \"success\", \"n\": n * 2}"

#define USE_COMPUTE \
  "    flow = state[\"local\"][\"priors\"][\"flow\"]\n" \
  "    report(\"used \" + str(flow[\"double\"][\"n\"]))\n" \
  "    state[\"output\"] = {\"task_status\": \"success\"}"

/* A sub-workflow's step carries the scripts of the sub-workflow in its
 * cell and runs it; a gate inside it stops the notebook, named. */
static void
test_subworkflow (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-notebook");
  g_autofree char *workflow = g_build_filename (dir, "workflow", NULL);
  g_autofree char *inner = g_build_filename (workflow, "inner", NULL);
  g_autofree char *nb = g_build_filename (dir, "nb", NULL);
  g_autofree char *notebook = g_build_filename (nb, "sub.ipynb", NULL);
  g_autofree char *working = g_build_filename (nb, "workflow-run", NULL);
  g_autofree char *text = NULL;
  g_autofree char *summary = NULL;
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_spec_process (workflow, "notebook test",
                              "1 src\n2 flow 1 | {\"workflow\": \"inner\"}\n3 use 2\n");
  sk_test_write_step (workflow, "src", SUCCEED ("21"));
  sk_test_write_step (workflow, "use", USE_COMPUTE);
  sk_test_write_spec_process (inner, "notebook test", "1 double\n");
  sk_test_write_step (inner, "double", DOUBLE_COMPUTE);
  g_assert_cmpint (g_mkdir_with_parents (nb, 0755), ==, 0);
  export_to (workflow, notebook);
  /* The notebook's JSON escapes the quotes and line feeds of the code. */
  text = sk_test_read_text (nb, "sub.ipynb");
  sk_test_assert_contains (text, "skele.run_step(\\\"flow\\\", scripts={\\n");
  sk_test_assert_contains (text, "\\\"inner/double/double.py\\\": r'''\\n");
  sk_test_assert_contains (text, "**Sub-workflow:** it runs the workflow in `inner/`");

  execute (&result, nb, "sub.ipynb");
  sk_test_assert_status (&result, 0);
  summary = sk_test_read_text (working, "use/use_summary.txt");
  sk_test_assert_contains (summary, "used 42");

  /* A gate inside stops the notebook at the sub-workflow's step. */
  sk_test_write_spec_process (inner, "notebook test", "1 double | {\"approval\": true}\n");
  export_to (workflow, notebook);
  sk_test_remove_tree (working);
  execute (&result, nb, "sub.ipynb");
  g_assert_cmpint (result.status, !=, 0);
  sk_test_assert_contains (result.err, "WaitsForApproval: “double” waits for approval");
  sk_test_assert_contains (result.err, "APPROVE = {\"double\"}");
  g_assert_false (sk_test_exists (working, "use/use.pkl"));

  sk_test_remove_tree (dir);
}

/* The core replaces a file that is there, as export to a single file
 * does, and refuses a workflow without a folder, writing nothing. */
static void
test_core (void)
{
  g_autofree char *example = g_build_filename (examples_dir, "sales-report", NULL);
  g_autofree char *dir = sk_test_make_tmp_dir ("export-notebook");
  g_autofree char *path = g_build_filename (dir, "old.ipynb", NULL);
  g_autofree char *unsaved_path = g_build_filename (dir, "unsaved.ipynb", NULL);
  g_autoptr(GFile) example_file = g_file_new_for_path (example);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) unsaved_file = g_file_new_for_path (unsaved_path);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkProject) unsaved = sk_project_new (NULL);
  g_autoptr(JsonObject) root = NULL;
  g_autoptr(GError) error = NULL;

  project = sk_project_load (example_file, &error);
  g_assert_no_error (error);
  sk_test_write_text (dir, "old.ipynb", "old");
  g_assert_true (sk_export_notebook (project, file, &error));
  g_assert_no_error (error);
  root = read_notebook (dir, "old.ipynb");
  g_assert_cmpint (json_object_get_int_member (root, "nbformat_minor"), >=, 4);

  g_assert_false (sk_export_notebook (unsaved, unsaved_file, &error));
  g_assert_nonnull (error);
  g_assert_false (sk_test_exists (dir, "unsaved.ipynb"));

  sk_test_remove_tree (dir);
}

#define MISSING_TOOLS \
  "jupyter-nbconvert is not installed; run build-aux/install-deps.sh to install it and a " \
  "Python kernel, or set SKELE_TESTS_ALLOW_MISSING_TOOLS=1 to skip this test"

/* CI must not pass by skipping what it cannot run. */
static void
test_missing_tools (void)
{
  g_test_fail_printf ("%s.", MISSING_TOOLS);
}

/* The interpreter named on the first line of @script, or NULL. */
static char *
read_interpreter (const char *script)
{
  g_autofree char *text = NULL;
  char *end;

  if (!g_file_get_contents (script, &text, NULL, NULL) || !g_str_has_prefix (text, "#!"))
    return NULL;
  end = strchr (text, '\n');
  if (end != NULL)
    *end = '\0';
  return g_strdup (g_strstrip (text + 2));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);

  if (!sk_test_need_skele (&skele_bin, &examples_dir))
    return g_test_run ();

  nbconvert_path = g_find_program_in_path ("jupyter-nbconvert");
  if (nbconvert_path != NULL)
    nbconvert_python = read_interpreter (nbconvert_path);
  if (nbconvert_path == NULL || nbconvert_python == NULL)
    {
      if (g_strcmp0 (g_getenv ("SKELE_TESTS_ALLOW_MISSING_TOOLS"), "1") == 0)
        {
          g_test_skip (MISSING_TOOLS);
          g_free (nbconvert_path);
          return g_test_run ();
        }
      g_test_add_func ("/export-notebook/tools", test_missing_tools);
      g_test_add_func ("/export-notebook/core", test_core);
      status = g_test_run ();
      g_free (nbconvert_path);
      return status;
    }

  g_test_add_func ("/export-notebook/sales-report", test_sales_report);
  g_test_add_func ("/export-notebook/gate", test_gate);
  g_test_add_func ("/export-notebook/failing-step", test_failing_step);
  g_test_add_func ("/export-notebook/subworkflow", test_subworkflow);
  g_test_add_func ("/export-notebook/core", test_core);

  status = g_test_run ();
  g_free (nbconvert_path);
  g_free (nbconvert_python);
  return status;
}
