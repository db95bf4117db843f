/* test-subworkflow.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Making a sub-workflow from steps of a saved workflow (DESIGN §10), with
 * real folders and scripts: the new folder and its process.json, the
 * rewritten scripts, the step that takes the chosen steps' place, one undo
 * step for all of it, and the selections that cannot become a
 * sub-workflow. The workflow made runs with real Python processes, in
 * both execution modes, and gives the same result as before.
 */

#define G_LOG_DOMAIN "test-subworkflow"

#include <string.h>

#include "sk-control-flow.h"
#include "sk-history.h"
#include "sk-project.h"
#include "sk-runner.h"
#include "sk-subworkflow.h"
#include "sk-test-util.h"

/* The absolute path of `python3` from PATH, looked up once: a pyenv shim
 * costs most of a second at every start. */
static char *python_path;

typedef enum
{
  MODE_ISOLATED,
  MODE_IN_MEMORY,
} Mode;

typedef struct
{
  char      *folder;
  GFile     *file;
  SkProject *project;
} Workflow;

typedef struct
{
  SkRunStats  stats;
  GError     *error;
  gboolean    ok;
  gboolean    done;
} Outcome;

/* Helpers ----------------------------------------------------------------- */

/* Writes process.json with @nodes, the members of its "nodes" object, into
 * a new temporary folder and reads it back as a user's workflow. */
static Workflow *
workflow_new (const char *nodes)
{
  Workflow *wf = g_new0 (Workflow, 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strdup_printf ("{\"process_name\": \"Numbers\", \"nodes\": {%s}}\n", nodes);

  wf->folder = sk_test_make_tmp_dir ("subworkflow");
  wf->file = g_file_new_for_path (wf->folder);
  sk_test_write_text (wf->folder, "process.json", text);
  wf->project = sk_project_load (wf->file, &error);
  g_assert_no_error (error);
  g_assert_nonnull (wf->project);

  return wf;
}

static void
workflow_free (Workflow *wf)
{
  sk_test_remove_tree (wf->folder);
  g_clear_object (&wf->project);
  g_clear_object (&wf->file);
  g_free (wf->folder);
  g_free (wf);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Workflow, workflow_free)

/* Reads the saved workflow again, as a user who opens it does. */
static void
workflow_reopen (Workflow *wf)
{
  g_autoptr(GError) error = NULL;

  g_clear_object (&wf->project);
  wf->project = sk_project_load (wf->file, &error);
  g_assert_no_error (error);
  g_assert_nonnull (wf->project);
}

static SkNode *
node (SkProject  *project,
      const char *key)
{
  SkNode *found = sk_project_get_node_by_key (project, key);

  if (found == NULL)
    g_error ("The workflow has no step “%s”.", key);
  return found;
}

/* The steps @keys (separated by spaces) of @project, to choose. */
static GPtrArray *
choose (SkProject  *project,
        const char *keys)
{
  g_auto(GStrv) list = g_strsplit (keys, " ", -1);
  GPtrArray *nodes = g_ptr_array_new ();

  for (guint i = 0; list[i] != NULL; i++)
    if (list[i][0] != '\0')
      g_ptr_array_add (nodes, node (project, list[i]));

  return nodes;
}

static void
assert_priors (SkNode             *step,
               const char * const *expected)
{
  g_autofree char *priors = g_strjoinv (" ", (char **) sk_node_get_priors (step));
  g_autofree char *wanted = g_strjoinv (" ", (char **) expected);

  g_assert_cmpstr (priors, ==, wanted);
}

/* The keys of @project's steps in its order, separated by spaces. */
static char *
keys_of (SkProject *project)
{
  GString *keys = g_string_new (NULL);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (project));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) step = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (keys->len > 0)
        g_string_append_c (keys, ' ');
      g_string_append (keys, sk_node_get_key (step));
    }

  return g_string_free (keys, FALSE);
}

/* Every file and folder below @folder, relative to @base, sorted and one a
 * line, to tell that nothing was written. */
static void
list_tree (const char *base,
           const char *folder,
           GPtrArray  *paths)
{
  g_autoptr(GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (folder, name, NULL);

      g_ptr_array_add (paths, g_strdup (path + strlen (base)));
      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        list_tree (base, path, paths);
    }
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static char *
tree_of (const char *folder)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  list_tree (folder, folder, paths);
  g_ptr_array_sort (paths, compare_strings);
  g_ptr_array_add (paths, NULL);
  return g_strjoinv ("\n", (char **) paths->pdata);
}

/* Running ----------------------------------------------------------------- */

/* The steps run in a sandbox, as they do for users, unless SKELE_SANDBOX
 * says otherwise, as it may where there can be none. */
static void
set_sandbox_policy (SkRunner *runner)
{
  const char *variable = g_getenv ("SKELE_SANDBOX");
  SkSandboxPolicy policy;

  if (variable == NULL || variable[0] == '\0')
    return;

  g_assert_true (sk_sandbox_policy_from_string (variable, &policy));
  sk_runner_set_sandbox_policy (runner, policy);
}

static void
run_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Outcome *outcome = user_data;

  outcome->ok = sk_runner_run_finish (SK_RUNNER (object), result, &outcome->stats,
                                      &outcome->error);
  outcome->done = TRUE;
}

/* Runs the steps marked to run, with a runner of its own as a user who
 * opened the workflow has, and asserts that every step succeeded. */
static void
run_workflow (Workflow      *wf,
              gconstpointer  mode)
{
  g_autoptr(SkRunner) runner = sk_runner_new ();
  Outcome outcome = { 0 };

  sk_runner_set_python (runner, python_path);
  sk_runner_set_in_memory (runner, GPOINTER_TO_INT (mode) == MODE_IN_MEMORY);
  set_sandbox_policy (runner);

  sk_runner_run_async (runner, wf->project, NULL, NULL, run_done_cb, &outcome);
  SK_TEST_WAIT_UNTIL (outcome.done, 60000);

  g_assert_no_error (outcome.error);
  g_assert_true (outcome.ok);
  g_assert_cmpuint (outcome.stats.failed, ==, 0);
  g_assert_cmpuint (outcome.stats.skipped, ==, 0);
  g_assert_cmpuint (outcome.stats.cancelled, ==, 0);
}

/* The workflow of numbers ------------------------------------------------- */

/* Load gives 5; Double and Add ten make 20 of it; Report needs Add ten and
 * Side, which stands apart. Double and Add ten have places on the canvas. */
static const char numbers_nodes[] =
  "\"1\": {\"name\": \"load\", \"priors\": []},"
  "\"2\": {\"name\": \"double\", \"priors\": [\"1\"], \"skele\": {\"x\": 100, \"y\": 40}},"
  "\"3\": {\"name\": \"add_ten\", \"priors\": [\"2\"], \"skele\": {\"x\": 300, \"y\": 80}},"
  "\"4\": {\"name\": \"report\", \"priors\": [\"3\", \"5\"]},"
  "\"5\": {\"name\": \"side\", \"priors\": []}";

/* Each script reads its priors' results by key, as the node contract
 * says: prior_outputs["key"]. */
#define LOAD_COMPUTE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"n\": 5}"
#define DOUBLE_PRE \
  "    state[\"n\"] = prior_outputs[\"load\"][\"n\"]"
#define DOUBLE_COMPUTE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"n\": state[\"n\"] * 2}"
#define ADD_TEN_PRE \
  "    state[\"n\"] = prior_outputs[\"double\"][\"n\"]"
#define ADD_TEN_COMPUTE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"n\": state[\"n\"] + 10}"
#define SIDE_COMPUTE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"word\": \"aside\"}"
#define REPORT_PRE \
  "    state[\"n\"] = prior_outputs[\"add_ten\"][\"n\"]\n" \
  "    state[\"word\"] = prior_outputs.get('side', {})[\"word\"]"
#define REPORT_COMPUTE \
  "    report(\"result \" + str(state[\"n\"]) + \" \" + state[\"word\"])\n" \
  "    state[\"output\"] = {\"task_status\": \"success\", \"n\": state[\"n\"]}"

static Workflow *
numbers_new (void)
{
  Workflow *wf = workflow_new (numbers_nodes);

  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "load", NULL, LOAD_COMPUTE);
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "double", DOUBLE_PRE, DOUBLE_COMPUTE);
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "add_ten", ADD_TEN_PRE, ADD_TEN_COMPUTE);
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "side", NULL, SIDE_COMPUTE);
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "report", REPORT_PRE, REPORT_COMPUTE);

  return wf;
}

static SkNode *
make_sub (Workflow   *wf,
          const char *keys,
          const char *name,
          SkHistory  *history,
          char     ***to_check)
{
  g_autoptr(GPtrArray) nodes = choose (wf->project, keys);
  g_autoptr(GError) error = NULL;
  SkNode *sub = sk_project_make_subworkflow (wf->project, nodes, name, history, to_check, &error);

  g_assert_no_error (error);
  g_assert_nonnull (sub);
  return sub;
}

/* The files and the workflow after Double and Add ten became “Sub”. */
static void
assert_numbers_made (Workflow *wf,
                     SkNode   *sub)
{
  g_autofree char *inner_folder = g_build_filename (wf->folder, "sub", NULL);
  g_autoptr(GFile) inner_file = g_file_new_for_path (inner_folder);
  g_autoptr(SkProject) inner = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autofree char *keys = NULL;
  g_autofree char *double_script = NULL;
  g_autofree char *add_ten_script = NULL;
  g_autofree char *old_add_ten_script = NULL;
  g_autofree char *report_script = NULL;
  double x, y;

  /* The step that stands for them, where they were. */
  g_assert_true (sk_project_get_node (wf->project, sk_node_get_id (sub)) == sub);
  g_assert_cmpstr (sk_node_get_name (sub), ==, "Sub");
  g_assert_cmpstr (sk_node_get_key (sub), ==, "sub");
  g_assert_cmpstr (sk_node_get_workflow (sub), ==, "sub");
  g_assert_cmpstr (sk_node_get_id (sub), !=, "2");
  g_assert_cmpstr (sk_node_get_id (sub), !=, "3");
  assert_priors (sub, SK_TEST_STRV ("1"));
  g_assert_true (sk_node_get_position (sub, &x, &y));
  g_assert_cmpfloat_with_epsilon (x, 200, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, 60, 1e-9);
  keys = keys_of (wf->project);
  g_assert_cmpstr (keys, ==, "load sub report side");
  g_assert_null (sk_project_get_node (wf->project, "2"));
  g_assert_null (sk_project_get_node (wf->project, "3"));
  assert_priors (node (wf->project, "report"), SK_TEST_STRV (sk_node_get_id (sub), "5"));
  problems = sk_project_validate (wf->project);
  g_assert_cmpuint (sk_problems_count_errors (problems), ==, 0);
  g_clear_pointer (&problems, g_ptr_array_unref);

  /* The sub-workflow's own file holds the chosen steps, connected as they
   * were among themselves only. */
  inner = sk_project_load (inner_file, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sk_project_get_name (inner), ==, "Sub");
  g_clear_pointer (&keys, g_free);
  keys = keys_of (inner);
  g_assert_cmpstr (keys, ==, "double add_ten");
  assert_priors (node (inner, "double"), SK_TEST_STRV (NULL));
  assert_priors (node (inner, "add_ten"), SK_TEST_STRV (sk_node_get_id (node (inner, "double"))));
  problems = sk_project_validate (inner);
  g_assert_cmpuint (sk_problems_count_errors (problems), ==, 0);

  /* Their folders are copied, without the runner's bookkeeping; a first
   * step reads the results from outside as inputs; the others are as they
   * were. */
  double_script = sk_test_read_text (inner_folder, "double/double.py");
  g_assert_nonnull (double_script);
  sk_test_assert_contains (double_script, "state[\"n\"] = prior_outputs[\"inputs\"][\"load\"][\"n\"]\n");
  g_assert_null (strstr (double_script, "prior_outputs[\"load\"]"));
  add_ten_script = sk_test_read_text (inner_folder, "add_ten/add_ten.py");
  old_add_ten_script = sk_test_read_text (wf->folder, "add_ten/add_ten.py");
  g_assert_cmpstr (add_ten_script, ==, old_add_ten_script);
  g_assert_false (sk_test_exists (inner_folder, "double/.skele"));
  g_assert_false (sk_test_exists (inner_folder, "load"));
  g_assert_false (sk_test_exists (inner_folder, "report"));

  /* The step after them reads Add ten's results inside the new step's. */
  report_script = sk_test_read_text (wf->folder, "report/report.py");
  sk_test_assert_contains (report_script, "state[\"n\"] = prior_outputs[\"sub\"][\"add_ten\"][\"n\"]\n");
  sk_test_assert_contains (report_script, "prior_outputs.get('side', {})");
  g_assert_null (strstr (report_script, "prior_outputs[\"add_ten\"]"));
}

/* The user's path, end to end: run, make the sub-workflow, save, open
 * again and run: the result is the same. */
static void
test_end_to_end (gconstpointer mode)
{
  g_autoptr(Workflow) wf = numbers_new ();
  g_autofree char *inner_folder = g_build_filename (wf->folder, "sub", NULL);
  g_autofree char *before = NULL;
  g_autofree char *runs = NULL;
  g_autofree char *inner_runs = NULL;
  g_autofree char *old_double_script = NULL;
  g_autofree char *double_script = NULL;
  g_autofree char *sub_id = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) to_check = NULL;
  SkNode *sub;

  run_workflow (wf, mode);
  before = g_strdup (sk_node_get_output_text (node (wf->project, "report")));
  sk_test_assert_contains (before, "result 20 aside");
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "add_ten double load report side");
  g_assert_true (sk_project_save (wf->project, &error));
  g_assert_no_error (error);
  old_double_script = sk_test_read_text (wf->folder, "double/double.py");

  sub = make_sub (wf, "add_ten double", "Sub", NULL, &to_check);
  g_assert_nonnull (to_check);
  g_assert_cmpuint (g_strv_length (to_check), ==, 0);
  sub_id = g_strdup (sk_node_get_id (sub));
  assert_numbers_made (wf, sub);

  /* The chosen steps' own folders are left as they were. */
  double_script = sk_test_read_text (wf->folder, "double/double.py");
  g_assert_cmpstr (double_script, ==, old_double_script);

  g_assert_true (sk_project_save (wf->project, &error));
  g_assert_no_error (error);
  workflow_reopen (wf);
  g_assert_nonnull (sk_project_get_node (wf->project, sub_id));
  g_assert_cmpstr (sk_node_get_workflow (sk_project_get_node (wf->project, sub_id)), ==, "sub");

  run_workflow (wf, mode);
  g_assert_cmpint (sk_node_get_state (node (wf->project, "report")), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpstr (sk_node_get_output_text (node (wf->project, "report")), ==, before);

  /* The steps ran where they are now: report again, as its prior changed,
   * Double and Add ten inside the sub-workflow. */
  g_clear_pointer (&runs, g_free);
  runs = sk_test_take_runs (wf->folder);
  sk_test_assert_contains (runs, "report");
  g_assert_null (strstr (runs, "double"));
  g_assert_null (strstr (runs, "add_ten"));
  inner_runs = sk_test_take_runs (inner_folder);
  g_assert_cmpstr (inner_runs, ==, "add_ten double");
}

/* Two first steps and two last steps: the new step needs every step
 * outside that one of them needed, once, and the step after them reads
 * both inside the new step's results. */
static void
test_fan (gconstpointer mode)
{
  g_autoptr(Workflow) wf = workflow_new ("\"1\": {\"name\": \"load\", \"priors\": []},"
                                         "\"2\": {\"name\": \"side\", \"priors\": []},"
                                         "\"3\": {\"name\": \"a\", \"priors\": [\"1\"]},"
                                         "\"4\": {\"name\": \"b\", \"priors\": [\"1\", \"2\"]},"
                                         "\"5\": {\"name\": \"report\", \"priors\": [\"3\", \"4\"]}");
  g_autofree char *before = NULL;
  g_autofree char *b_script = NULL;
  g_autofree char *report_script = NULL;
  g_autoptr(GError) error = NULL;
  SkNode *sub;

  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "load", NULL, LOAD_COMPUTE);
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "side", NULL,
                        "    state[\"output\"] = {\"task_status\": \"success\", \"m\": 3}");
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "a",
                        "    state[\"n\"] = prior_outputs[\"load\"][\"n\"] * 2",
                        "    state[\"output\"] = {\"task_status\": \"success\", \"n\": state[\"n\"]}");
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "b",
                        "    state[\"n\"] = prior_outputs[\"load\"][\"n\"] + prior_outputs[\"side\"][\"m\"]",
                        "    state[\"output\"] = {\"task_status\": \"success\", \"n\": state[\"n\"]}");
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "report",
                        "    state[\"n\"] = prior_outputs[\"a\"][\"n\"] + prior_outputs[\"b\"][\"n\"]",
                        "    report(\"sum \" + str(state[\"n\"]))\n"
                        "    state[\"output\"] = {\"task_status\": \"success\"}");

  run_workflow (wf, mode);
  before = g_strdup (sk_node_get_output_text (node (wf->project, "report")));
  sk_test_assert_contains (before, "sum 18");

  sub = make_sub (wf, "b a", "Both", NULL, NULL);
  assert_priors (sub, SK_TEST_STRV ("1", "2"));
  assert_priors (node (wf->project, "report"), SK_TEST_STRV (sk_node_get_id (sub)));
  b_script = sk_test_read_text (wf->folder, "both/b/b.py");
  sk_test_assert_contains (b_script, "prior_outputs[\"inputs\"][\"load\"][\"n\"] + "
                                     "prior_outputs[\"inputs\"][\"side\"][\"m\"]\n");
  report_script = sk_test_read_text (wf->folder, "report/report.py");
  sk_test_assert_contains (report_script, "prior_outputs[\"both\"][\"a\"][\"n\"] + "
                                          "prior_outputs[\"both\"][\"b\"][\"n\"]\n");

  g_assert_true (sk_project_save (wf->project, &error));
  g_assert_no_error (error);
  workflow_reopen (wf);
  run_workflow (wf, mode);
  g_assert_cmpstr (sk_node_get_output_text (node (wf->project, "report")), ==, before);
}

/* Undo and redo --------------------------------------------------------- */

static char *
read_bytes (const char *folder,
            const char *relative,
            gsize      *length)
{
  g_autofree char *path = g_build_filename (folder, relative, NULL);
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, length, &error);
  g_assert_no_error (error);
  return contents;
}

static void
test_undo_redo (void)
{
  g_autoptr(Workflow) wf = numbers_new ();
  g_autoptr(SkHistory) history = sk_history_new (wf->project);
  g_autofree char *original = NULL;
  g_autofree char *made = NULL;
  g_autofree char *undone = NULL;
  g_autofree char *redone = NULL;
  g_autofree char *report_before = NULL;
  g_autofree char *report_made = NULL;
  g_autofree char *report_undone = NULL;
  g_autofree char *report_redone = NULL;
  g_autofree char *process_made = NULL;
  g_autofree char *process_redone = NULL;
  g_autofree char *inner_folder = g_build_filename (wf->folder, "sub", NULL);
  gsize before_length, made_length, undone_length, redone_length;
  SkNode *sub;

  original = sk_project_to_data (wf->project, NULL);
  report_before = read_bytes (wf->folder, "report/report.py", &before_length);
  g_assert_false (sk_history_get_can_undo (history));

  sub = make_sub (wf, "double add_ten", "Sub", history, NULL);
  assert_numbers_made (wf, sub);
  made = sk_project_to_data (wf->project, NULL);
  report_made = read_bytes (wf->folder, "report/report.py", &made_length);
  process_made = sk_test_read_text (inner_folder, "process.json");
  g_assert_nonnull (process_made);

  /* One undo step for all of it. */
  g_assert_true (sk_history_get_can_undo (history));
  g_assert_cmpstr (sk_history_get_undo_label (history), ==, "Make Sub-workflow");
  g_assert_true (sk_history_undo (history));
  g_assert_false (sk_history_get_can_undo (history));

  undone = sk_project_to_data (wf->project, NULL);
  g_assert_cmpstr (undone, ==, original);
  report_undone = read_bytes (wf->folder, "report/report.py", &undone_length);
  g_assert_cmpmem (report_undone, undone_length, report_before, before_length);
  g_assert_false (sk_test_exists (inner_folder, "process.json"));
  g_assert_nonnull (sk_project_get_node (wf->project, "2"));
  g_assert_nonnull (sk_project_get_node (wf->project, "3"));
  g_assert_null (sk_project_get_node_by_key (wf->project, "sub"));

  g_assert_true (sk_history_get_can_redo (history));
  g_assert_cmpstr (sk_history_get_redo_label (history), ==, "Make Sub-workflow");
  g_assert_true (sk_history_redo (history));

  redone = sk_project_to_data (wf->project, NULL);
  g_assert_cmpstr (redone, ==, made);
  report_redone = read_bytes (wf->folder, "report/report.py", &redone_length);
  g_assert_cmpmem (report_redone, redone_length, report_made, made_length);
  process_redone = sk_test_read_text (inner_folder, "process.json");
  g_assert_cmpstr (process_redone, ==, process_made);
  assert_numbers_made (wf, node (wf->project, "sub"));

  /* And undone once more, it is gone again. */
  g_assert_true (sk_history_undo (history));
  g_clear_pointer (&undone, g_free);
  undone = sk_project_to_data (wf->project, NULL);
  g_assert_cmpstr (undone, ==, original);
  g_assert_false (sk_test_exists (inner_folder, "process.json"));
}

/* Refusals ----------------------------------------------------------------- */

typedef struct
{
  const char *name;
  const char *nodes;    /* the members of "nodes" */
  const char *chosen;   /* the keys of the chosen steps */
  int         code;
  const char *message;  /* part of the message */
} Refusal;

static const Refusal refusals[] = {
  { "empty", "\"1\": {\"name\": \"a\", \"priors\": []}", "",
    SK_SUBWORKFLOW_ERROR_EMPTY, "Select the steps" },
  /* A→X→C with A and C chosen: the new step would wait for itself. */
  { "detour",
    "\"1\": {\"name\": \"a\", \"priors\": []},"
    "\"2\": {\"name\": \"x\", \"priors\": [\"1\"]},"
    "\"3\": {\"name\": \"c\", \"priors\": [\"2\"]}",
    "a c", SK_SUBWORKFLOW_ERROR_SHAPE, "would wait for itself" },
  /* The same through two steps outside. */
  { "long-detour",
    "\"1\": {\"name\": \"a\", \"priors\": []},"
    "\"2\": {\"name\": \"x\", \"priors\": [\"1\"]},"
    "\"3\": {\"name\": \"y\", \"priors\": [\"2\"]},"
    "\"4\": {\"name\": \"c\", \"priors\": [\"3\"]}",
    "a c", SK_SUBWORKFLOW_ERROR_SHAPE, "“x” needs results of the selection" },
  { "priors-inside-and-outside",
    "\"1\": {\"name\": \"a\", \"priors\": []},"
    "\"2\": {\"name\": \"b\", \"priors\": []},"
    "\"3\": {\"name\": \"c\", \"priors\": [\"1\", \"2\"]}",
    "a c", SK_SUBWORKFLOW_ERROR_SHAPE, "“c” needs “b” from outside the selection and “a” inside it" },
  { "successors-inside-and-outside",
    "\"1\": {\"name\": \"a\", \"priors\": []},"
    "\"2\": {\"name\": \"b\", \"priors\": [\"1\"]},"
    "\"3\": {\"name\": \"c\", \"priors\": [\"1\"]}",
    "a b", SK_SUBWORKFLOW_ERROR_SHAPE, "“a” gives its results to “b” inside the selection and to “c”" },
  { "gate",
    "\"1\": {\"name\": \"a\", \"priors\": []},"
    "\"2\": {\"name\": \"gate\", \"priors\": [\"1\"], \"skele\": {\"approval\": true}},"
    "\"3\": {\"name\": \"c\", \"priors\": [\"2\"]}",
    "gate c", SK_SUBWORKFLOW_ERROR_CONTROL_FLOW, "“gate” waits for approval" },
  { "condition-into",
    "\"1\": {\"name\": \"a\", \"priors\": []},"
    "\"2\": {\"name\": \"b\", \"priors\": [\"1\"], \"skele\": {\"when\": {\"1\": \"output['n'] > 1\"}}},"
    "\"3\": {\"name\": \"c\", \"priors\": [\"2\"]}",
    "b c", SK_SUBWORKFLOW_ERROR_CONTROL_FLOW, "cannot lead into a sub-workflow" },
  { "condition-out-of",
    "\"1\": {\"name\": \"a\", \"priors\": []},"
    "\"2\": {\"name\": \"b\", \"priors\": [\"1\"]},"
    "\"3\": {\"name\": \"c\", \"priors\": [\"2\"], \"skele\": {\"when\": {\"2\": \"default\"}}}",
    "a b", SK_SUBWORKFLOW_ERROR_CONTROL_FLOW, "cannot lead out of a sub-workflow" },
  { "foreach-from-outside",
    "\"1\": {\"name\": \"a\", \"priors\": []},"
    "\"2\": {\"name\": \"each\", \"priors\": [\"1\"], \"skele\": {\"foreach\": {\"prior\": \"1\", \"path\": \"items\"}}},"
    "\"3\": {\"name\": \"c\", \"priors\": [\"2\"]}",
    "each c", SK_SUBWORKFLOW_ERROR_CONTROL_FLOW, "“each” runs for each item of “a”, which stays outside" },
  { "foreach-of-inside",
    "\"1\": {\"name\": \"a\", \"priors\": []},"
    "\"2\": {\"name\": \"b\", \"priors\": [\"1\"]},"
    "\"3\": {\"name\": \"each\", \"priors\": [\"2\"], \"skele\": {\"foreach\": {\"prior\": \"2\", \"path\": \"items\"}}}",
    "a b", SK_SUBWORKFLOW_ERROR_CONTROL_FLOW, "“each” runs for each item of “b”" },
  { "sub-workflow-inside",
    "\"1\": {\"name\": \"a\", \"priors\": []},"
    "\"2\": {\"name\": \"flow\", \"priors\": [\"1\"], \"skele\": {\"workflow\": \"inner\"}}",
    "a flow", SK_SUBWORKFLOW_ERROR_CONTROL_FLOW, "“flow” is a sub-workflow already" },
};

/* Refuses to make "Sub" of @chosen, and writes nothing: no folder, no
 * file, no change to the workflow, no undo step. */
static void
assert_refused (Workflow   *wf,
                const char *chosen,
                const char *name,
                int         code,
                const char *message)
{
  g_autoptr(SkHistory) history = sk_history_new (wf->project);
  g_autoptr(GPtrArray) nodes = choose (wf->project, chosen);
  g_autoptr(GError) error = NULL;
  g_autofree char *data = sk_project_to_data (wf->project, NULL);
  g_autofree char *tree = tree_of (wf->folder);
  g_autofree char *data_after = NULL;
  g_autofree char *tree_after = NULL;
  char **to_check = NULL;

  g_assert_null (sk_project_make_subworkflow (wf->project, nodes, name, history, &to_check, &error));
  g_assert_error (error, SK_SUBWORKFLOW_ERROR, code);
  if (message != NULL)
    sk_test_assert_contains (error->message, message);
  g_assert_null (to_check);

  data_after = sk_project_to_data (wf->project, NULL);
  g_assert_cmpstr (data_after, ==, data);
  tree_after = tree_of (wf->folder);
  g_assert_cmpstr (tree_after, ==, tree);
  sk_history_flush (history);
  g_assert_false (sk_history_get_can_undo (history));
}

static void
test_refusal (gconstpointer data)
{
  const Refusal *refusal = data;
  g_autoptr(Workflow) wf = workflow_new (refusal->nodes);
  g_auto(GStrv) keys = g_strsplit (refusal->chosen, " ", -1);

  /* The chosen steps have folders and scripts, to see that none is copied
   * or rewritten. */
  for (guint i = 0; keys[i] != NULL; i++)
    if (keys[i][0] != '\0')
      sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, keys[i], NULL,
                            "    state[\"output\"] = {\"task_status\": \"success\"}");
  sk_test_write_text (wf->folder, "inner/process.json", "{\"process_name\": \"Inner\", \"nodes\": {}}\n");

  assert_refused (wf, refusal->chosen, "Sub", refusal->code, refusal->message);
}

/* A workflow that was never saved has no folder to hold the sub-workflow. */
static void
test_refusal_unsaved (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) project = sk_project_load_from_data ("{\"process_name\": \"New\", \"nodes\": {"
                                                            "\"1\": {\"name\": \"a\", \"priors\": []},"
                                                            "\"2\": {\"name\": \"b\", \"priors\": [\"1\"]}}}",
                                                            -1, NULL, &error);
  g_autoptr(GPtrArray) nodes = NULL;
  g_autofree char *data = NULL;
  g_autofree char *data_after = NULL;

  g_assert_no_error (error);
  g_assert_null (sk_project_get_folder (project));
  nodes = choose (project, "b");
  data = sk_project_to_data (project, NULL);

  g_assert_null (sk_project_make_subworkflow (project, nodes, "Sub", NULL, NULL, &error));
  g_assert_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_UNSAVED);

  data_after = sk_project_to_data (project, NULL);
  g_assert_cmpstr (data_after, ==, data);
}

/* Names --------------------------------------------------------------------- */

static const char chain_nodes[] =
  "\"1\": {\"name\": \"load\", \"priors\": []},"
  "\"2\": {\"name\": \"double\", \"priors\": [\"1\"]},"
  "\"3\": {\"name\": \"report\", \"priors\": [\"2\"]}";

static void
write_chain_scripts (Workflow *wf)
{
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "load", NULL, LOAD_COMPUTE);
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "double", DOUBLE_PRE, DOUBLE_COMPUTE);
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "report",
                        "    state[\"n\"] = prior_outputs[\"double\"][\"n\"]",
                        "    state[\"output\"] = {\"task_status\": \"success\"}");
}

/* A step's key or a folder that is there already gives the name a number. */
static void
test_name_taken (void)
{
  g_autoptr(Workflow) wf = workflow_new ("\"1\": {\"name\": \"load\", \"priors\": []},"
                                         "\"2\": {\"name\": \"double\", \"priors\": [\"1\"]},"
                                         "\"3\": {\"name\": \"Sub\", \"priors\": [\"2\"]},"
                                         "\"4\": {\"name\": \"half\", \"priors\": [\"1\"]}");
  g_autofree char *script = NULL;
  g_autofree char *file = NULL;
  SkNode *sub;

  write_chain_scripts (wf);
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "sub",
                        "    state[\"n\"] = prior_outputs[\"double\"][\"n\"]",
                        "    state[\"output\"] = {\"task_status\": \"success\"}");

  /* A step is called Sub. */
  sub = make_sub (wf, "double", "Sub", NULL, NULL);
  g_assert_cmpstr (sk_node_get_name (sub), ==, "Sub 2");
  g_assert_cmpstr (sk_node_get_key (sub), ==, "sub_2");
  g_assert_cmpstr (sk_node_get_workflow (sub), ==, "sub_2");
  g_assert_true (sk_test_exists (wf->folder, "sub_2/process.json"));
  g_assert_true (sk_test_exists (wf->folder, "sub_2/double/double.py"));
  g_assert_false (sk_test_exists (wf->folder, "sub/process.json"));
  script = sk_test_read_text (wf->folder, "sub/sub.py");
  sk_test_assert_contains (script, "prior_outputs[\"sub_2\"][\"double\"][\"n\"]");

  /* A folder is called sub_3, and a file sub_4: the next free name is
   * “Sub 5”. The folder and the file are left alone. */
  sk_test_write_text (wf->folder, "sub_3/notes.txt", "mine");
  sk_test_write_text (wf->folder, "sub_4", "mine too");
  sub = make_sub (wf, "half", "Sub", NULL, NULL);
  g_assert_cmpstr (sk_node_get_name (sub), ==, "Sub 5");
  g_assert_cmpstr (sk_node_get_workflow (sub), ==, "sub_5");
  g_assert_true (sk_test_exists (wf->folder, "sub_5/process.json"));
  g_assert_false (sk_test_exists (wf->folder, "sub_3/process.json"));
  g_assert_false (sk_test_exists (wf->folder, "sub_3/half"));
  file = sk_test_read_text (wf->folder, "sub_4");
  g_assert_cmpstr (file, ==, "mine too");
}

/* A folder that is there, without a step of that name, gives the name a
 * number too. */
static void
test_name_folder (void)
{
  g_autoptr(Workflow) wf = workflow_new (chain_nodes);
  g_autofree char *notes = NULL;
  SkNode *sub;

  write_chain_scripts (wf);
  sk_test_write_text (wf->folder, "sub/notes.txt", "mine");

  sub = make_sub (wf, "double", "Sub", NULL, NULL);
  g_assert_cmpstr (sk_node_get_name (sub), ==, "Sub 2");
  g_assert_cmpstr (sk_node_get_workflow (sub), ==, "sub_2");
  g_assert_true (sk_test_exists (wf->folder, "sub_2/process.json"));
  g_assert_false (sk_test_exists (wf->folder, "sub/process.json"));
  g_assert_false (sk_test_exists (wf->folder, "sub/double"));
  notes = sk_test_read_text (wf->folder, "sub/notes.txt");
  g_assert_cmpstr (notes, ==, "mine");
}

static void
test_name_blank (void)
{
  g_autoptr(Workflow) wf = workflow_new (chain_nodes);

  write_chain_scripts (wf);
  assert_refused (wf, "double", "", SK_SUBWORKFLOW_ERROR_NAME, "Give the sub-workflow a name");
  assert_refused (wf, "double", "  \t ", SK_SUBWORKFLOW_ERROR_NAME, "Give the sub-workflow a name");
  /* Punctuation alone gives no key, so no folder. */
  assert_refused (wf, "double", "!!!", SK_SUBWORKFLOW_ERROR_NAME, "Give the sub-workflow a name");
}

/* A script edited by hand after the change is the user's: undoing the
 * change leaves it as it is, and so does redoing it. */
static void
test_undo_keeps_edits (void)
{
  g_autoptr(Workflow) wf = numbers_new ();
  g_autoptr(SkHistory) history = sk_history_new (wf->project);
  g_autofree char *inner_folder = g_build_filename (wf->folder, "sub", NULL);
  g_autofree char *edited = NULL;
  g_autofree char *process = NULL;
  g_autofree char *mine = g_strdup ("def compute():\n    pass  # mine\n");

  make_sub (wf, "double add_ten", "Sub", history, NULL);
  sk_test_write_text (wf->folder, "report/report.py", mine);
  sk_test_write_text (inner_folder, "process.json", "{\"process_name\": \"edited\", \"nodes\": {}}");

  g_assert_true (sk_history_undo (history));
  edited = sk_test_read_text (wf->folder, "report/report.py");
  g_assert_cmpstr (edited, ==, mine);
  process = sk_test_read_text (inner_folder, "process.json");
  sk_test_assert_contains (process, "edited");
  g_assert_nonnull (sk_project_get_node (wf->project, "2"));

  g_assert_true (sk_history_redo (history));
  g_clear_pointer (&edited, g_free);
  edited = sk_test_read_text (wf->folder, "report/report.py");
  g_assert_cmpstr (edited, ==, mine);
}

/* A prior that does not exist, which validation reports, is no reason for
 * the change to go wrong: it stays with the new step. */
static void
test_dangling_prior (void)
{
  g_autoptr(Workflow) wf = workflow_new ("\"1\": {\"name\": \"load\", \"priors\": []},"
                                         "\"2\": {\"name\": \"double\", \"priors\": [\"1\", \"9\"]},"
                                         "\"3\": {\"name\": \"report\", \"priors\": [\"2\"]}");
  g_autofree char *script = NULL;
  SkNode *sub;

  write_chain_scripts (wf);
  sub = make_sub (wf, "double", "Sub", NULL, NULL);
  g_assert_cmpuint (g_strv_length ((char **) sk_node_get_priors (sub)), ==, 2);
  g_assert_cmpstr (sk_node_get_priors (sub)[0], ==, "1");
  g_assert_cmpstr (sk_node_get_priors (sub)[1], ==, "9");
  script = sk_test_read_text (wf->folder, "sub/double/double.py");
  g_assert_nonnull (script);
}

/* Scripts to look at --------------------------------------------------------- */

/* A script that names a moved step otherwise than by reading its results
 * is for a person to look at; one that only reads them is not. */
static void
test_to_check (void)
{
  g_autoptr(Workflow) wf = workflow_new ("\"1\": {\"name\": \"load\", \"priors\": []},"
                                         "\"2\": {\"name\": \"double\", \"priors\": [\"1\"]},"
                                         "\"3\": {\"name\": \"report\", \"priors\": [\"2\"]},"
                                         "\"4\": {\"name\": \"label\", \"priors\": [\"2\"]},"
                                         "\"5\": {\"name\": \"count\", \"priors\": [\"1\"]},"
                                         "\"6\": {\"name\": \"total\", \"priors\": [\"5\"]}");
  g_auto(GStrv) to_check = NULL;
  g_autofree char *report_script = NULL;
  g_autofree char *label_script = NULL;
  g_autofree char *count_script = NULL;

  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "load", NULL, LOAD_COMPUTE);
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "double", DOUBLE_PRE, DOUBLE_COMPUTE);
  /* Only reads, in each form the node contract allows. */
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "report",
                        "    state[\"n\"] = prior_outputs[\"double\"][\"n\"]\n"
                        "    state[\"m\"] = prior_outputs [ 'double' ][\"n\"]\n"
                        "    state[\"o\"] = prior_outputs.get(\"double\", {})",
                        "    state[\"output\"] = {\"task_status\": \"success\"}");
  /* Names the step otherwise too. */
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "label",
                        "    state[\"n\"] = prior_outputs[\"double\"][\"n\"]\n"
                        "    name = \"double\"",
                        "    state[\"output\"] = {\"task_status\": \"success\"}");
  /* A first step inside that names its prior from outside otherwise. */
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "count",
                        "    state[\"n\"] = prior_outputs['load'][\"n\"]\n"
                        "    source = 'load'",
                        "    state[\"output\"] = {\"task_status\": \"success\"}");
  /* A last step inside: nothing it reads comes from outside. */
  sk_test_write_script (wf->folder, SK_TEST_SCRIPT_TEMPLATE, "total",
                        "    state[\"n\"] = 0",
                        "    state[\"output\"] = {\"task_status\": \"success\", \"n\": 1}");

  make_sub (wf, "double count total", "Sub", NULL, &to_check);
  g_assert_nonnull (to_check);
  g_assert_cmpuint (g_strv_length (to_check), ==, 2);
  g_assert_true (g_strv_contains ((const char * const *) to_check, "label"));
  g_assert_true (g_strv_contains ((const char * const *) to_check, "count"));

  report_script = sk_test_read_text (wf->folder, "report/report.py");
  sk_test_assert_contains (report_script, "state[\"n\"] = prior_outputs[\"sub\"][\"double\"][\"n\"]\n");
  sk_test_assert_contains (report_script, "state[\"m\"] = prior_outputs[\"sub\"] [ 'double' ][\"n\"]\n");
  sk_test_assert_contains (report_script, "state[\"o\"] = prior_outputs[\"sub\"].get(\"double\", {})\n");
  label_script = sk_test_read_text (wf->folder, "label/label.py");
  sk_test_assert_contains (label_script, "prior_outputs[\"sub\"][\"double\"][\"n\"]\n    name = \"double\"\n");
  count_script = sk_test_read_text (wf->folder, "sub/count/count.py");
  sk_test_assert_contains (count_script, "prior_outputs[\"inputs\"]['load'][\"n\"]\n    source = 'load'\n");
}

/* Input files ----------------------------------------------------------------- */

/* Paths that leave a step's folder leave the sub-workflow's too. */
static void
test_input_files (void)
{
  g_autoptr(Workflow) wf = workflow_new ("\"1\": {\"name\": \"load\", \"priors\": []},"
                                         "\"2\": {\"name\": \"double\", \"priors\": [\"1\"],"
                                         " \"input\": {\"text\": \"twice\", \"files\": ["
                                         "\"../factor.txt\", \"local.txt\", \"/etc/hostname\","
                                         " \"../../up.txt\", \"../load/load.pkl\", \"..\","
                                         " \"..hidden/x\", \"../report/out.txt\"]}},"
                                         "\"3\": {\"name\": \"report\", \"priors\": [\"2\"]},"
                                         "\"4\": {\"name\": \"add\", \"priors\": [\"1\"],"
                                         " \"input\": {\"text\": \"\", \"files\": [\"../double/n.txt\"]}}");
  g_autofree char *inner_folder = g_build_filename (wf->folder, "sub", NULL);
  g_autoptr(GFile) inner_file = g_file_new_for_path (inner_folder);
  g_autoptr(SkProject) inner = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *files;

  write_chain_scripts (wf);
  sk_test_write_text (wf->folder, "factor.txt", "2");
  sk_test_write_text (wf->folder, "double/local.txt", "here");

  make_sub (wf, "double add", "Sub", NULL, NULL);
  inner = sk_project_load (inner_file, &error);
  g_assert_no_error (error);
  files = sk_node_get_input_files (node (inner, "double"));
  g_assert_cmpuint (g_strv_length ((char **) files), ==, 8);
  g_assert_cmpstr (files[0], ==, "../../factor.txt");
  g_assert_cmpstr (files[1], ==, "local.txt");
  g_assert_cmpstr (files[2], ==, "/etc/hostname");
  g_assert_cmpstr (files[3], ==, "../../../up.txt");
  g_assert_cmpstr (files[4], ==, "../../load/load.pkl");
  g_assert_cmpstr (files[5], ==, "../..");
  /* A name that starts with two dots is inside the step's folder. */
  g_assert_cmpstr (files[6], ==, "..hidden/x");
  /* "report" stays behind, so the path goes one level further up. */
  g_assert_cmpstr (files[7], ==, "../../report/out.txt");
  /* The folder of another chosen step moves along: the path stays. */
  files = sk_node_get_input_files (node (inner, "add"));
  g_assert_cmpstr (files[0], ==, "../double/n.txt");
  g_assert_cmpstr (sk_node_get_input_text (node (inner, "double")), ==, "twice");
  g_assert_true (sk_test_exists (inner_folder, "double/local.txt"));
}

static void
add_mode_test (const char    *path,
               GTestDataFunc  test)
{
  g_autofree char *isolated = g_strconcat ("/subworkflow/", path, "/isolated", NULL);
  g_autofree char *in_memory = g_strconcat ("/subworkflow/", path, "/in-memory", NULL);

  g_test_add_data_func (isolated, GINT_TO_POINTER (MODE_ISOLATED), test);
  g_test_add_data_func (in_memory, GINT_TO_POINTER (MODE_IN_MEMORY), test);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *python3 = g_find_program_in_path ("python3");
  int status;

  g_test_init (&argc, &argv, NULL);

  if (python3 != NULL)
    {
      python_path = sk_test_find_python ();
      add_mode_test ("end-to-end", test_end_to_end);
      add_mode_test ("fan", test_fan);
    }
  g_test_add_func ("/subworkflow/undo-redo", test_undo_redo);
  g_test_add_func ("/subworkflow/refusal/unsaved", test_refusal_unsaved);
  for (guint i = 0; i < G_N_ELEMENTS (refusals); i++)
    {
      g_autofree char *path = g_strconcat ("/subworkflow/refusal/", refusals[i].name, NULL);

      g_test_add_data_func (path, &refusals[i], test_refusal);
    }
  g_test_add_func ("/subworkflow/name/taken", test_name_taken);
  g_test_add_func ("/subworkflow/name/folder", test_name_folder);
  g_test_add_func ("/subworkflow/name/blank", test_name_blank);
  g_test_add_func ("/subworkflow/to-check", test_to_check);
  g_test_add_func ("/subworkflow/input-files", test_input_files);
  g_test_add_func ("/subworkflow/undo-keeps-edits", test_undo_keeps_edits);
  g_test_add_func ("/subworkflow/dangling-prior", test_dangling_prior);

  status = g_test_run ();
  g_free (python_path);
  return status;
}
