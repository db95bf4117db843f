/* test-workspace.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "test-workspace"

#include "config.h"

#include <string.h>
#include <time.h>
#include <utime.h>

#include <json-glib/json-glib.h>

#include "sk-llm.h"
#include "sk-sandbox.h"
#include "sk-settings.h"
#include "sk-step-folder.h"
#include "sk-test-util.h"
#include "sk-workspace.h"

#define WAIT_MS 30000

/* A step that reports its own interpreter, so that a test can tell which
 * Python ran it. */
#define REPORT_PYTHON \
  "    report(\"ran \" + KEY)\n" \
  "    state[\"output\"] = {\"task_status\": \"success\", \"python\": sys.executable}"

static const char two_steps[] =
  "{\"process_name\": \"two steps\", \"nodes\": {"
  "\"1\": {\"name\": \"load data\", \"run\": true, \"input\": {\"text\": \"load\"}},"
  "\"2\": {\"name\": \"make chart\", \"priors\": [\"1\"], \"run\": true, \"input\": {\"text\": \"chart\"}}}}";

typedef struct
{
  char        *dir;
  GFile       *folder;
  GSettings   *settings;
  SkWorkspace *workspace;
  char        *python;

  /* The last run. */
  SkRunReport  report;
  GError      *error;
  gboolean     done;
  GPtrArray   *messages;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = sk_test_make_tmp_dir ("workspace");
  f->folder = g_file_new_for_path (f->dir);
  f->settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  f->python = sk_test_find_python ();
  f->messages = g_ptr_array_new_with_free_func (g_free);

  /* The settings are shared by every test of this program. */
  g_settings_reset (f->settings, "jobs");
  g_settings_reset (f->settings, "timeout");
  g_settings_set_string (f->settings, "python", f->python);
  g_settings_set_string (f->settings, "llm-model", "");
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  if (f->workspace != NULL)
    {
      sk_workspace_close (f->workspace);
      g_assert_finalize_object (f->workspace);
    }
  sk_test_remove_tree (f->dir);
  g_clear_object (&f->folder);
  g_clear_object (&f->settings);
  g_clear_error (&f->error);
  g_clear_pointer (&f->dir, g_free);
  g_clear_pointer (&f->python, g_free);
  g_clear_pointer (&f->messages, g_ptr_array_unref);
}

static void
message_cb (SkWorkspace *workspace,
            const char  *message,
            gboolean     about_agent,
            Fixture     *f)
{
  g_ptr_array_add (f->messages, g_strdup (message));
}

static void
open_workspace (Fixture    *f,
                const char *process)
{
  g_autoptr(GError) error = NULL;

  sk_test_write_text (f->dir, "process.json", process);
  f->workspace = sk_workspace_load (f->folder, f->settings, &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->workspace);
  g_signal_connect (f->workspace, "message", G_CALLBACK (message_cb), f);
}

static void
write_scripts (Fixture    *f,
               const char *compute)
{
  sk_test_write_script (f->dir, SK_TEST_SCRIPT_TEMPLATE, "load_data", NULL, compute);
  sk_test_write_script (f->dir, SK_TEST_SCRIPT_TEMPLATE, "make_chart", NULL, compute);
}

static void
run_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Fixture *f = user_data;

  g_clear_error (&f->error);
  sk_workspace_run_finish (SK_WORKSPACE (object), result, &f->report, &f->error);
  f->done = TRUE;
}

static void
run_and_wait (Fixture            *f,
              const SkRunOptions *options,
              gboolean            generate)
{
  f->done = FALSE;
  memset (&f->report, 0, sizeof f->report);
  sk_workspace_run_async (f->workspace, NULL, options, generate, NULL, run_done_cb, f);
  SK_TEST_WAIT_UNTIL (f->done, WAIT_MS);
}

static JsonObject *
read_process (Fixture *f)
{
  g_autofree char *text = sk_test_read_text (f->dir, "process.json");

  return sk_test_parse_object (text);
}

/* Opening --------------------------------------------------------------- */

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  SkWorkspace **workspace = user_data;
  g_autoptr(GError) error = NULL;

  *workspace = sk_workspace_load_finish (result, &error);
  g_assert_no_error (error);
}

static void
test_open (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(SkWorkspace) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) missing = g_file_get_child (f->folder, "nothing here");
  SkProject *project;

  sk_test_write_text (f->dir, "process.json", two_steps);
  sk_workspace_load_async (f->folder, f->settings, NULL, load_cb, &loaded);
  SK_TEST_WAIT_UNTIL (loaded != NULL, WAIT_MS);

  project = sk_workspace_get_project (loaded);
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 2);
  g_assert_true (g_file_equal (sk_workspace_get_folder (loaded), f->folder));
  g_assert_true (sk_workspace_get_settings (loaded) == f->settings);
  g_assert_nonnull (sk_workspace_get_history (loaded));
  g_assert_nonnull (sk_workspace_get_runner (loaded));
  g_assert_false (sk_workspace_get_running (loaded));
  g_assert_false (sk_workspace_get_autosave (loaded));
  g_assert_finalize_object (g_steal_pointer (&loaded));

  /* A folder without a workflow is an error, and nothing is written. */
  g_assert_null (sk_workspace_load (missing, f->settings, &error));
  g_assert_nonnull (error);
  g_assert_false (g_file_query_exists (missing, NULL));
}

static void
test_create (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GFile) folder = g_file_get_child (f->folder, "quarterly figures");
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  f->workspace = sk_workspace_create (folder, f->settings, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sk_project_get_name (sk_workspace_get_project (f->workspace)), ==, "quarterly figures");
  g_assert_false (sk_project_get_modified (sk_workspace_get_project (f->workspace)));
  text = sk_test_read_text (f->dir, "quarterly figures/process.json");
  sk_test_assert_contains (text, "\"quarterly figures\"");
}

/* Editing, autosave and recovery ---------------------------------------- */

static void
test_autosave_and_recovery (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GFile) recovery = sk_step_folder_get_recovery_file (f->folder);
  g_autoptr(SkWorkspace) reopened = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  SkProject *project;
  SkNode *node;

  open_workspace (f, two_steps);
  project = sk_workspace_get_project (f->workspace);
  sk_workspace_set_autosave_delay (f->workspace, 50);
  sk_workspace_set_autosave (f->workspace, TRUE);

  node = sk_project_get_node (project, "1");
  sk_node_set_input_text (node, "load the sales of the last year");
  g_assert_true (sk_project_get_modified (project));

  /* The copy comes a moment later, never in process.json. */
  SK_TEST_WAIT_UNTIL (g_file_query_exists (recovery, NULL), WAIT_MS);
  saved = sk_test_read_text (f->dir, "process.json");
  g_assert_null (strstr (saved, "last year"));

  /* As after a crash: a new workspace on the folder finds the changes. */
  reopened = sk_workspace_load (f->folder, f->settings, &error);
  g_assert_no_error (error);
  {
    g_autofree char *unsaved = sk_workspace_take_recovery (reopened);
    SkNode *again;

    g_assert_nonnull (unsaved);
    sk_test_assert_contains (unsaved, "last year");
    g_assert_true (sk_workspace_recover (reopened, unsaved, &error));
    g_assert_no_error (error);
    again = sk_project_get_node (sk_workspace_get_project (reopened), "1");
    g_assert_cmpstr (sk_node_get_input_text (again), ==, "load the sales of the last year");
    g_assert_true (sk_project_get_modified (sk_workspace_get_project (reopened)));
    g_assert_cmpstr (sk_history_get_undo_label (sk_workspace_get_history (reopened)), ==,
                     "Recover Unsaved Changes");
  }
  g_assert_finalize_object (g_steal_pointer (&reopened));

  /* Saving forgets the copy. */
  g_assert_true (sk_workspace_save (f->workspace, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_query_exists (recovery, NULL));
  g_assert_null (sk_workspace_take_recovery (f->workspace));

  /* Bad data is refused without a change, and so is a copy too deeply
   * nested for the parser. */
  g_assert_false (sk_workspace_recover (f->workspace, "{ not json", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_false (sk_project_get_modified (project));
  g_clear_error (&error);
  {
    g_autofree char *deep = g_strnfill (100000, '[');

    g_assert_false (sk_workspace_recover (f->workspace, deep, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_assert_false (sk_project_get_modified (project));
  }
}

/* Without autosave, as on the command line, nothing is written outside the
 * workflow. */
static void
test_no_autosave (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GFile) recovery = sk_step_folder_get_recovery_file (f->folder);
  SkNode *node;

  open_workspace (f, two_steps);
  sk_workspace_set_autosave_delay (f->workspace, 10);
  node = sk_project_get_node (sk_workspace_get_project (f->workspace), "2");
  sk_node_set_input_text (node, "a bar chart");

  g_usleep (100 * 1000);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_false (g_file_query_exists (recovery, NULL));
}

/* Renaming a step ------------------------------------------------------- */

static void
test_rename_with_files (Fixture       *f,
                        gconstpointer  data)
{
  SkHistory *history;
  SkNode *node;

  open_workspace (f, two_steps);
  history = sk_workspace_get_history (f->workspace);
  write_scripts (f, REPORT_PYTHON);
  sk_test_write_text (f->dir, "load_data/sales.csv", "a,b\n");

  node = sk_project_get_node (sk_workspace_get_project (f->workspace), "1");
  sk_history_begin (history, "Rename");
  sk_node_set_name (node, "read sales");
  sk_history_end (history);

  g_assert_false (sk_test_exists (f->dir, "load_data"));
  g_assert_true (sk_test_exists (f->dir, "read_sales/read_sales.py"));
  g_assert_true (sk_test_exists (f->dir, "read_sales/sales.csv"));
  /* The script names its step by key, so the user hears that it still
   * uses the old one. */
  g_assert_cmpuint (f->messages->len, ==, 1);
  sk_test_assert_contains (g_ptr_array_index (f->messages, 0), "old name “load_data”");

  /* Undo brings the folder back with the name. */
  sk_history_undo (history);
  g_assert_cmpstr (sk_node_get_name (node), ==, "load data");
  g_assert_true (sk_test_exists (f->dir, "load_data/load_data.py"));
  g_assert_true (sk_test_exists (f->dir, "load_data/sales.csv"));
  g_assert_false (sk_test_exists (f->dir, "read_sales"));

  sk_history_redo (history);
  g_assert_true (sk_test_exists (f->dir, "read_sales/read_sales.py"));
}

static void
test_rename_onto_existing_folder (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *kept = NULL;
  SkNode *node;

  open_workspace (f, two_steps);
  write_scripts (f, REPORT_PYTHON);
  sk_test_write_text (f->dir, "old_chart/old_chart.py", "print('someone else')\n");

  node = sk_project_get_node (sk_workspace_get_project (f->workspace), "2");
  sk_node_set_name (node, "old chart");

  /* Nothing is overwritten; the files stay where they were, and the user
   * is told. */
  g_assert_true (sk_test_exists (f->dir, "make_chart/make_chart.py"));
  kept = sk_test_read_text (f->dir, "old_chart/old_chart.py");
  g_assert_cmpstr (kept, ==, "print('someone else')\n");
  g_assert_cmpuint (f->messages->len, ==, 1);
  sk_test_assert_contains (g_ptr_array_index (f->messages, 0), "already exists");
}

/* Running ------------------------------------------------------------------ */

/* A run saves what is pending first, and the results after. */
static void
test_run_and_save (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(JsonObject) process = NULL;
  JsonObject *chart;
  SkProject *project;

  open_workspace (f, two_steps);
  project = sk_workspace_get_project (f->workspace);
  write_scripts (f, REPORT_PYTHON);

  sk_node_set_input_text (sk_project_get_node (project, "2"), "a line chart");
  g_assert_true (sk_project_get_modified (project));

  run_and_wait (f, NULL, FALSE);
  g_assert_no_error (f->error);
  g_assert_cmpuint (f->report.stats.succeeded, ==, 2);
  g_assert_cmpuint (f->report.stats.failed, ==, 0);
  g_assert_false (f->report.had_agent);
  g_assert_false (f->report.generated);
  g_assert_false (sk_workspace_get_running (f->workspace));

  g_assert_false (sk_project_get_modified (project));
  process = read_process (f);
  chart = json_object_get_object_member (json_object_get_object_member (process, "nodes"), "2");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (chart, "input"), "text"), ==,
                   "a line chart");
  sk_test_assert_contains (json_object_get_string_member (json_object_get_object_member (chart, "output"), "text"),
                           "ran make_chart");

  /* A second run finds both up to date. */
  run_and_wait (f, NULL, FALSE);
  g_assert_no_error (f->error);
  g_assert_cmpuint (f->report.stats.up_to_date, ==, 2);
}

/* The window and the command line read the same settings, and options given
 * to a run override them. */
static void
test_settings_as_command_line (Fixture       *f,
                               gconstpointer  data)
{
  SkRunOptions options;
  SkRunner *runner;

  open_workspace (f, two_steps);
  runner = sk_workspace_get_runner (f->workspace);
  write_scripts (f, REPORT_PYTHON);

  g_settings_set_uint (f->settings, "jobs", 3);
  g_settings_set_uint (f->settings, "timeout", 42);
  g_settings_set_string (f->settings, "python", "/nonexistent/python-from-settings");

  run_and_wait (f, NULL, FALSE);
  g_assert_nonnull (f->error);
  sk_test_assert_contains (f->error->message, "/nonexistent/python-from-settings");
  g_assert_cmpuint (sk_runner_get_jobs (runner), ==, 3);
  g_assert_cmpfloat (sk_runner_get_timeout (runner), ==, 42);

  sk_run_options_init (&options);
  options.jobs = 1;
  options.timeout = 0;
  options.python = f->python;
  options.force = TRUE;
  run_and_wait (f, &options, FALSE);
  g_assert_no_error (f->error);
  g_assert_cmpuint (f->report.stats.succeeded, ==, 2);
  g_assert_cmpuint (sk_runner_get_jobs (runner), ==, 1);
  g_assert_cmpfloat (sk_runner_get_timeout (runner), ==, 0);
  g_assert_true (sk_runner_get_force (runner));

  /* The time limit of the settings stops a step that takes too long. */
  g_settings_set_string (f->settings, "python", f->python);
  g_settings_set_uint (f->settings, "timeout", 1);
  sk_test_write_script (f->dir, SK_TEST_SCRIPT_TEMPLATE, "load_data", NULL, SK_TEST_SLEEP_LONG);
  run_and_wait (f, NULL, FALSE);
  g_assert_no_error (f->error);
  g_assert_cmpuint (f->report.stats.failed, >=, 1);
  g_assert_cmpint (sk_node_get_state (sk_project_get_node (sk_workspace_get_project (f->workspace), "1")),
                   ==, SK_NODE_STATE_FAILED);
}

/* Writing code needs a coding agent; without one nothing runs and the
 * caller can say what to do. */
static void
test_generate_without_agent (Fixture       *f,
                             gconstpointer  data)
{
  open_workspace (f, two_steps);

  run_and_wait (f, NULL, TRUE);
  g_assert_error (f->error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED);
  g_assert_true (f->report.generated);
  g_assert_cmpuint (f->report.missing_before, ==, 2);
  g_assert_cmpuint (f->report.missing_after, ==, 2);
  g_assert_false (sk_workspace_get_running (f->workspace));
}

static void
running_cb (SkWorkspace *workspace,
            GParamSpec  *pspec,
            guint       *count)
{
  (*count)++;
}

static void
busy_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GError **error = user_data;

  g_assert_false (sk_workspace_run_finish (SK_WORKSPACE (object), result, NULL, error));
}

/* Stop ends a run; only one run at a time. */
static void
test_stop_and_busy (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) busy = NULL;
  guint changes = 0;

  open_workspace (f, two_steps);
  write_scripts (f, SK_TEST_SLEEP_LONG);
  g_signal_connect (f->workspace, "notify::running", G_CALLBACK (running_cb), &changes);

  f->done = FALSE;
  sk_workspace_run_async (f->workspace, NULL, NULL, FALSE, NULL, run_done_cb, f);
  g_assert_true (sk_workspace_get_running (f->workspace));
  g_assert_cmpuint (changes, ==, 1);

  sk_workspace_run_async (f->workspace, NULL, NULL, FALSE, NULL, busy_cb, &busy);
  SK_TEST_WAIT_UNTIL (busy != NULL, WAIT_MS);
  g_assert_error (busy, SK_WORKSPACE_ERROR, SK_WORKSPACE_ERROR_BUSY);
  g_assert_true (sk_workspace_get_running (f->workspace));

  SK_TEST_WAIT_UNTIL (sk_node_get_state (sk_project_get_node (sk_workspace_get_project (f->workspace), "1"))
                      == SK_NODE_STATE_RUNNING, WAIT_MS);
  sk_workspace_stop (f->workspace);
  SK_TEST_WAIT_UNTIL (f->done, WAIT_MS);
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (sk_workspace_get_running (f->workspace));
  g_assert_cmpuint (changes, ==, 2);
}

/* What finished before a stop reaches process.json: the next run finds
 * the step up to date and shows its results again. */
static void
test_stop_keeps_finished (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(JsonObject) process = NULL;
  JsonObject *load;

  open_workspace (f, two_steps);
  sk_test_write_script (f->dir, SK_TEST_SCRIPT_TEMPLATE, "load_data", NULL, REPORT_PYTHON);
  sk_test_write_script (f->dir, SK_TEST_SCRIPT_TEMPLATE, "make_chart", NULL, SK_TEST_SLEEP_LONG);

  f->done = FALSE;
  sk_workspace_run_async (f->workspace, NULL, NULL, FALSE, NULL, run_done_cb, f);
  SK_TEST_WAIT_UNTIL (sk_node_get_state (sk_project_get_node (sk_workspace_get_project (f->workspace), "2"))
                      == SK_NODE_STATE_RUNNING, WAIT_MS);
  sk_workspace_stop (f->workspace);
  SK_TEST_WAIT_UNTIL (f->done, WAIT_MS);
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (f->report.stats.succeeded, ==, 1);

  g_assert_false (sk_project_get_modified (sk_workspace_get_project (f->workspace)));
  process = read_process (f);
  load = json_object_get_object_member (json_object_get_object_member (process, "nodes"), "1");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (load, "output"), "text"), ==,
                   "task load_data\nran load_data");

  /* The step that finished is up to date for the next run. */
  {
    g_autoptr(GPtrArray) nodes = sk_project_select_nodes (sk_workspace_get_project (f->workspace),
                                                          SK_TEST_STRV ("load_data"), NULL, NULL, NULL);

    f->done = FALSE;
    sk_workspace_run_async (f->workspace, nodes, NULL, FALSE, NULL, run_done_cb, f);
    SK_TEST_WAIT_UNTIL (f->done, WAIT_MS);
    g_assert_no_error (f->error);
    g_assert_cmpuint (f->report.stats.up_to_date, ==, 1);
  }
}

#define DELETE_PROCESS \
  "    os.remove(os.path.join(WORKFLOW, \"process.json\"))\n" \
  REPORT_PYTHON

/* A step that deletes the workflow file does not lose the workflow: it is
 * written again after the run, and the user is told. A sandbox would not
 * let the step delete it, so this run goes without one. */
static void
test_step_deletes_process (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(JsonObject) process = NULL;
  SkRunOptions options;

  open_workspace (f, two_steps);
  sk_test_write_script (f->dir, SK_TEST_SCRIPT_TEMPLATE, "load_data", NULL, DELETE_PROCESS);
  sk_test_write_script (f->dir, SK_TEST_SCRIPT_TEMPLATE, "make_chart", NULL, REPORT_PYTHON);

  sk_run_options_init (&options);
  options.sandbox = SK_SANDBOX_POLICY_OFF;
  run_and_wait (f, &options, FALSE);
  g_assert_no_error (f->error);
  g_assert_cmpuint (f->report.stats.succeeded, ==, 2);

  g_assert_true (sk_test_exists (f->dir, "process.json"));
  process = read_process (f);
  g_assert_cmpstr (json_object_get_string_member (process, "process_name"), ==, "two steps");
  g_assert_cmpuint (f->messages->len, ==, 1);
  sk_test_assert_contains (g_ptr_array_index (f->messages, 0), "deleted process.json");
}

/* In a sandbox, the workflow folder is read-only to a step: its attempt to
 * delete the workflow file fails the step, and the file stays as it was. */
static void
test_step_deletes_process_sandboxed (Fixture       *f,
                                     gconstpointer  data)
{
  g_autoptr(JsonObject) process = NULL;
  SkRunOptions options;
  SkNode *load;

  if (!sk_sandbox_probe (NULL, NULL))
    {
      g_test_skip ("No sandbox for the steps here");
      return;
    }

  open_workspace (f, two_steps);
  sk_test_write_script (f->dir, SK_TEST_SCRIPT_TEMPLATE, "load_data", NULL, DELETE_PROCESS);
  sk_test_write_script (f->dir, SK_TEST_SCRIPT_TEMPLATE, "make_chart", NULL, REPORT_PYTHON);

  sk_run_options_init (&options);
  options.sandbox = SK_SANDBOX_POLICY_REQUIRED;
  run_and_wait (f, &options, FALSE);
  g_assert_no_error (f->error);
  g_assert_cmpuint (f->report.stats.failed, ==, 1);
  g_assert_cmpuint (f->report.stats.succeeded, ==, 1);

  load = sk_project_get_node (sk_workspace_get_project (f->workspace), "1");
  g_assert_cmpint (sk_node_get_state (load), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (load), "Read-only file system");
  sk_test_assert_contains (sk_node_get_error_text (load), "process.json");

  /* The file was never gone, so there was nothing to tell. */
  process = read_process (f);
  g_assert_cmpstr (json_object_get_string_member (process, "process_name"), ==, "two steps");
  for (guint i = 0; i < f->messages->len; i++)
    g_assert_null (strstr (g_ptr_array_index (f->messages, i), "deleted process.json"));
}

/* Temporaries that a killed save left behind are removed when the workflow
 * is opened again, but not one a save may be writing right now. */
static void
test_stale_temporaries (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *stale = g_build_filename (f->dir, "process.json.Ab12Cd", NULL);
  struct utimbuf old = { 0 };

  sk_test_write_text (f->dir, "process.json.Ab12Cd", "{\"nodes\": {");
  sk_test_write_text (f->dir, "process.json.Zz98Yy", "{\"nodes\": {");
  sk_test_write_text (f->dir, "process.json.notes", "kept");
  old.actime = old.modtime = time (NULL) - 3600;
  g_assert_cmpint (utime (stale, &old), ==, 0);

  open_workspace (f, two_steps);

  g_assert_false (sk_test_exists (f->dir, "process.json.Ab12Cd"));
  g_assert_true (sk_test_exists (f->dir, "process.json.Zz98Yy"));
  g_assert_true (sk_test_exists (f->dir, "process.json.notes"));
}

/* Saving elsewhere goes on in the new folder: later saves and runs use it. */
static void
test_save_as (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *other_dir = sk_test_make_tmp_dir ("workspace-copy");
  g_autoptr(GFile) other = g_file_new_for_path (other_dir);
  g_autoptr(GFile) inside = g_file_get_child (f->folder, "inside");
  g_autoptr(GError) error = NULL;
  g_autofree char *original = NULL;
  g_autofree char *copied = NULL;
  SkProject *project;

  open_workspace (f, two_steps);
  project = sk_workspace_get_project (f->workspace);
  write_scripts (f, REPORT_PYTHON);

  g_assert_false (sk_workspace_save_as (f->workspace, inside, &error));
  g_assert_error (error, SK_WORKSPACE_ERROR, SK_WORKSPACE_ERROR_FOLDER);
  g_clear_error (&error);
  /* Its own folder is an ordinary save. */
  g_assert_true (sk_workspace_save_as (f->workspace, f->folder, &error));
  g_assert_no_error (error);

  g_assert_true (sk_workspace_save_as (f->workspace, other, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_equal (sk_workspace_get_folder (f->workspace), other));
  g_assert_true (sk_test_exists (other_dir, "load_data/load_data.py"));

  sk_node_set_input_text (sk_project_get_node (project, "1"), "only in the copy");
  g_assert_true (sk_workspace_save (f->workspace, &error));
  g_assert_no_error (error);
  original = sk_test_read_text (f->dir, "process.json");
  copied = sk_test_read_text (other_dir, "process.json");
  g_assert_null (strstr (original, "only in the copy"));
  sk_test_assert_contains (copied, "only in the copy");

  run_and_wait (f, NULL, FALSE);
  g_assert_no_error (f->error);
  g_assert_true (sk_test_exists (other_dir, "load_data/load_data.pkl"));
  g_assert_false (sk_test_exists (f->dir, "load_data/load_data.pkl"));

  /* A folder that holds a workflow already is refused. */
  g_assert_false (sk_workspace_save_as (f->workspace, f->folder, &error));
  g_assert_error (error, SK_WORKSPACE_ERROR, SK_WORKSPACE_ERROR_FOLDER);

  sk_test_remove_tree (other_dir);
}

static void
count_cb (gpointer  instance,
          SkNode   *node,
          guint    *count)
{
  (*count)++;
}

static void
step_output_cb (SkWorkspace *workspace,
                const char  *key,
                const char  *text,
                GString     *seen)
{
  g_string_append_printf (seen, "%s:%s", key, text);
}

/* The coding agent's passing lines, such as a request sent again, give way
 * to the next line, so that its log ends with what came of it; a step's
 * live output is passed on. */
static void
test_agent_transient_lines (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GString) seen = g_string_new (NULL);
  SkRunner *runner;
  SkNode *node;
  GPtrArray *log;
  guint changed = 0;

  open_workspace (f, two_steps);
  runner = sk_workspace_get_runner (f->workspace);
  node = sk_project_get_node (sk_workspace_get_project (f->workspace), "1");
  g_signal_connect (f->workspace, "agent-log-changed", G_CALLBACK (count_cb), &changed);
  g_signal_connect (f->workspace, "step-output", G_CALLBACK (step_output_cb), seen);
  sk_workspace_set_follow_output (f->workspace, TRUE);

  g_signal_emit_by_name (runner, "agent-progress", node, "Asking the model to write the script…");
  g_signal_emit_by_name (runner, "agent-transient", node, "No answer. Trying again in 0.9 s.");
  g_signal_emit_by_name (runner, "agent-transient", node, "No answer. Trying again in 1.8 s.");
  log = sk_workspace_get_agent_log (f->workspace, node);
  g_assert_cmpuint (log->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (log, 1), ==, "No answer. Trying again in 1.8 s.");
  g_assert_cmpuint (changed, ==, 1);

  g_signal_emit_by_name (runner, "agent-progress", node, "The coding agent could not write this step’s code.");
  log = sk_workspace_get_agent_log (f->workspace, node);
  g_assert_cmpuint (log->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (log, 0), ==, "Asking the model to write the script…");
  g_assert_cmpstr (g_ptr_array_index (log, 1), ==, "The coding agent could not write this step’s code.");
  g_assert_cmpuint (changed, ==, 2);

  g_signal_emit_by_name (runner, "step-output", "load_data", "a line\n");
  g_assert_cmpstr (seen->str, ==, "load_data:a line\n");

  /* Unasked, the workspace does not follow the output. */
  sk_workspace_set_follow_output (f->workspace, FALSE);
  g_assert_false (g_signal_has_handler_pending (runner, g_signal_lookup ("step-output", SK_TYPE_RUNNER), 0, TRUE));
}

/* Without a coding agent, steps without code, or with only spaces in
 * their script, have no code yet and are counted so; the steps after them
 * wait for it rather than fail. */
static void
test_run_without_code (Fixture       *f,
                       gconstpointer  data)
{
  SkProject *project;

  open_workspace (f, two_steps);
  project = sk_workspace_get_project (f->workspace);
  sk_test_write_text (f->dir, "load_data/load_data.py", "\n   \n");
  sk_test_write_script (f->dir, SK_TEST_SCRIPT_TEMPLATE, "make_chart", NULL, REPORT_PYTHON);

  run_and_wait (f, NULL, FALSE);
  g_assert_no_error (f->error);
  g_assert_false (f->report.had_agent);
  g_assert_cmpuint (f->report.missing_before, ==, 1);
  g_assert_cmpuint (f->report.missing_after, ==, 1);
  g_assert_cmpuint (f->report.stats.failed, ==, 0);
  g_assert_cmpuint (f->report.stats.no_code, ==, 1);
  g_assert_cmpuint (f->report.stats.waiting, ==, 1);
  g_assert_cmpint (sk_node_get_state (sk_project_get_node (project, "1")), ==, SK_NODE_STATE_NO_CODE);
  g_assert_cmpint (sk_node_get_state (sk_project_get_node (project, "2")), ==, SK_NODE_STATE_SKIPPED);
  sk_test_assert_contains (sk_node_get_error_text (sk_project_get_node (project, "2")), "“load data”");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("/workspace/open", test_open);
  ADD ("/workspace/create", test_create);
  ADD ("/workspace/autosave-and-recovery", test_autosave_and_recovery);
  ADD ("/workspace/no-autosave", test_no_autosave);
  ADD ("/workspace/rename-with-files", test_rename_with_files);
  ADD ("/workspace/rename-onto-existing-folder", test_rename_onto_existing_folder);
  ADD ("/workspace/run-and-save", test_run_and_save);
  ADD ("/workspace/settings-as-command-line", test_settings_as_command_line);
  ADD ("/workspace/generate-without-agent", test_generate_without_agent);
  ADD ("/workspace/stop-and-busy", test_stop_and_busy);
  ADD ("/workspace/stop-keeps-finished", test_stop_keeps_finished);
  ADD ("/workspace/step-deletes-process", test_step_deletes_process);
  ADD ("/workspace/step-deletes-process/sandboxed", test_step_deletes_process_sandboxed);
  ADD ("/workspace/stale-temporaries", test_stale_temporaries);
  ADD ("/workspace/save-as", test_save_as);
  ADD ("/workspace/agent-transient-lines", test_agent_transient_lines);
  ADD ("/workspace/run-without-code", test_run_without_code);

#undef ADD

  return g_test_run ();
}
