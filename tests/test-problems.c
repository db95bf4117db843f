/* test-problems.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A workflow with several problems in the window: the list that names them
 * and the step editor, which must accept a change that fixes one of them;
 * and conditions that are not Python, which Python finds without the
 * window waiting for it.
 */

#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "sk-problems-list.h"
#include "sk-properties-dialog.h"
#include "sk-test-window.h"

/* The workflow of issue 11: a cycle between “Totals” and “Chart”, a prior
 * that does not exist and two names that make the folder “load”. */
static const char three_problems_json[] =
  "{\"process_name\": \"three problems\", \"nodes\": {"
  "  \"1\": {\"name\": \"Load\", \"priors\": []},"
  "  \"2\": {\"name\": \"Totals\", \"priors\": [\"1\", \"3\"]},"
  "  \"3\": {\"name\": \"Chart\", \"priors\": [\"2\"]},"
  "  \"4\": {\"name\": \"Report\", \"priors\": [\"9\"]},"
  "  \"5\": {\"name\": \"LOAD\", \"priors\": []}}}";

static SkProject *
three_problems (void)
{
  g_autoptr(GError) error = NULL;
  SkProject *project;

  project = sk_project_load_from_data (three_problems_json, -1, NULL, &error);
  g_assert_no_error (error);

  return project;
}

/* The problems of the workflow, with a warning before the errors, which
 * the list shows last. */
static GPtrArray *
problems_with_warning (void)
{
  g_autoptr(SkProject) project = three_problems ();
  GPtrArray *problems = sk_project_validate (project);
  SkProblem *warning = g_new0 (SkProblem, 1);

  warning->kind = SK_PROBLEM_MISSING_SCRIPT;
  warning->is_warning = TRUE;
  warning->node_id = g_strdup ("1");
  warning->message = g_strdup ("There is no script yet for “Load” (load/load.py): the coding "
                               "agent writes it, or you can write it yourself.");
  warning->node_ids = g_strdupv ((char **) SK_TEST_STRV ("1"));
  warning->edge_pairs = g_new0 (char *, 1);
  g_ptr_array_insert (problems, 0, warning);

  return problems;
}

static GtkListBox *
list_box_of (SkProblemsList *list)
{
  GtkWidget *scrolled = adw_bin_get_child (ADW_BIN (list));
  GtkWidget *child = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled));

  if (GTK_IS_VIEWPORT (child))
    child = gtk_viewport_get_child (GTK_VIEWPORT (child));

  g_assert_true (GTK_IS_LIST_BOX (child));
  return GTK_LIST_BOX (child);
}

static guint
count_rows (GtkListBox *list_box)
{
  guint n = 0;

  while (gtk_list_box_get_row_at_index (list_box, n) != NULL)
    n++;

  return n;
}

static void
problem_activated_cb (SkProblemsList  *list,
                      SkProblem       *problem,
                      SkProblem      **activated)
{
  g_clear_pointer (activated, sk_problem_free);
  *activated = sk_problem_copy (problem);
}

static void
test_list_rows (void)
{
  g_autoptr(GPtrArray) problems = problems_with_warning ();
  SkProblemsList *list = SK_PROBLEMS_LIST (g_object_ref_sink (sk_problems_list_new ()));
  GtkListBox *list_box = list_box_of (list);
  GPtrArray *shown;
  g_autofree char *summary = NULL;

  g_assert_cmpuint (count_rows (list_box), ==, 0);

  sk_problems_list_set_problems (list, problems);
  g_assert_cmpuint (count_rows (list_box), ==, 4);

  /* Errors first, then the warning under a heading of its own. */
  shown = sk_problems_list_get_problems (list);
  g_assert_cmpuint (shown->len, ==, 4);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_false (((SkProblem *) g_ptr_array_index (shown, i))->is_warning);
      g_assert_null (gtk_list_box_row_get_header (gtk_list_box_get_row_at_index (list_box, i)));
    }
  g_assert_true (((SkProblem *) g_ptr_array_index (shown, 3))->is_warning);
  g_assert_nonnull (gtk_list_box_row_get_header (gtk_list_box_get_row_at_index (list_box, 3)));

  summary = sk_problems_summary (problems);
  g_assert_cmpstr (summary, ==, "This workflow has 3 problems");

  /* Setting the problems again replaces the rows. */
  g_ptr_array_remove_index (problems, 0);
  sk_problems_list_set_problems (list, problems);
  g_assert_cmpuint (count_rows (list_box), ==, 3);
  sk_problems_list_set_problems (list, NULL);
  g_assert_cmpuint (count_rows (list_box), ==, 0);

  g_object_unref (list);
}

static void
test_list_activate (void)
{
  g_autoptr(GPtrArray) problems = problems_with_warning ();
  GtkWidget *window = gtk_window_new ();
  SkProblemsList *list = SK_PROBLEMS_LIST (sk_problems_list_new ());
  GtkListBox *list_box = list_box_of (list);
  SkProblem *activated = NULL;

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (list));
  sk_problems_list_set_problems (list, problems);
  g_signal_connect (list, "problem-activated", G_CALLBACK (problem_activated_cb), &activated);
  gtk_window_present (GTK_WINDOW (window));
  drain ();

  /* As a click does. */
  for (guint i = 0; i < 4; i++)
    {
      SkProblem *expected = g_ptr_array_index (sk_problems_list_get_problems (list), i);

      gtk_widget_activate (GTK_WIDGET (gtk_list_box_get_row_at_index (list_box, i)));
      g_assert_nonnull (activated);
      g_assert_cmpint (activated->kind, ==, expected->kind);
      g_assert_cmpstr (activated->node_id, ==, expected->node_id);
      g_assert_cmpstr (activated->message, ==, expected->message);
    }

  g_assert_cmpint (activated->kind, ==, SK_PROBLEM_MISSING_SCRIPT);
  g_clear_pointer (&activated, sk_problem_free);

  gtk_window_destroy (GTK_WINDOW (window));
  drain ();
}

/* Return on a focused row activates it, as a click does. */
static void
test_list_keyboard (void)
{
  g_autoptr(GPtrArray) problems = problems_with_warning ();
  GtkWidget *window = gtk_window_new ();
  SkProblemsList *list = SK_PROBLEMS_LIST (sk_problems_list_new ());
  GtkListBox *list_box = list_box_of (list);
  GtkListBoxRow *row;
  SkProblem *activated = NULL;

  gtk_window_set_default_size (GTK_WINDOW (window), 360, 500);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (list));
  sk_problems_list_set_problems (list, problems);
  g_signal_connect (list, "problem-activated", G_CALLBACK (problem_activated_cb), &activated);
  gtk_window_present (GTK_WINDOW (window));
  drain ();

  row = gtk_list_box_get_row_at_index (list_box, 1);
  g_assert_true (gtk_widget_get_focusable (GTK_WIDGET (row)));
  g_assert_true (gtk_list_box_row_get_activatable (row));
  gtk_widget_grab_focus (GTK_WIDGET (row));
  drain ();

  /* The signal that GtkListBox binds to Return, Enter and Space. */
  g_signal_emit_by_name (list_box, "activate-cursor-row");
  g_assert_nonnull (activated);
  g_assert_true (activated->kind ==
                 ((SkProblem *) g_ptr_array_index (sk_problems_list_get_problems (list), 1))->kind);
  g_assert_cmpstr (activated->message, ==,
                   ((SkProblem *) g_ptr_array_index (sk_problems_list_get_problems (list), 1))->message);
  g_clear_pointer (&activated, sk_problem_free);

  gtk_window_destroy (GTK_WINDOW (window));
  drain ();
}

/* The step editor ------------------------------------------------------- */

static GtkWidget *
dialog_child (SkPropertiesDialog *dialog,
              const char         *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (dialog), SK_TYPE_PROPERTIES_DIALOG, name);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

/* Edits step @id of the three-problem workflow in the step editor, setting
 * @member to @json in its JSON, and returns whether Apply applied it. */
static gboolean
edit_step (const char  *id,
           const char  *member,
           const char  *json,
           GError     **error)
{
  g_autoptr(SkProject) project = three_problems ();
  SkNode *node = sk_project_get_node (project, id);
  g_autoptr(JsonObject) object = sk_node_to_json (node);
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *text = NULL;
  g_autofree char *before = sk_project_to_data (project, NULL);
  g_autofree char *after = NULL;
  SkPropertiesDialog *dialog;
  GtkTextBuffer *buffer;
  gboolean applied;

  json_object_set_member (object, member, json_from_string (json, NULL));
  json_node_set_object (root, object);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);

  dialog = sk_properties_dialog_new (project, node, NULL);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (dialog_child (dialog, "json_view")));
  gtk_text_buffer_set_text (buffer, text, -1);
  applied = sk_properties_dialog_apply (dialog, error);
  gtk_window_destroy (GTK_WINDOW (dialog));
  drain ();

  after = sk_project_to_data (project, NULL);
  if (applied)
    g_assert_cmpstr (after, !=, before);
  else
    g_assert_cmpstr (after, ==, before);

  return applied;
}

static void
test_dialog_keeps_old_problems (void)
{
  g_autoptr(GError) error = NULL;

  /* Each fix of one problem is applied, though two others remain. */
  g_assert_true (edit_step ("3", "priors", "[]", &error));
  g_assert_no_error (error);
  g_assert_true (edit_step ("4", "priors", "[\"1\"]", &error));
  g_assert_no_error (error);
  g_assert_true (edit_step ("5", "name", "\"Summary\"", &error));
  g_assert_no_error (error);

  /* A change with nothing to do with the problems is applied too. */
  g_assert_true (edit_step ("1", "description", "\"Reads the sales\"", &error));
  g_assert_no_error (error);

  /* A new circle is refused, and only it is named. */
  g_assert_false (edit_step ("1", "priors", "[\"2\"]", &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  sk_test_assert_contains (error->message, "circle");
  g_assert_null (strstr (error->message, "share the folder"));
  g_assert_null (strstr (error->message, "no step “9”"));
}

/* Conditions that are not Python ---------------------------------------- */

/* “High” and “Odd” have conditions that are not Python; “Middle”’s is, and
 * “Low” is the default branch, which Python does not read. */
static const char branches_json[] =
  "{\"process_name\": \"branches\", \"nodes\": {"
  "  \"1\": {\"name\": \"Score\", \"priors\": []},"
  "  \"2\": {\"name\": \"High\", \"priors\": [\"1\"], \"skele\": {\"when\": {\"1\": \"output['x'] >\"}}},"
  "  \"3\": {\"name\": \"Middle\", \"priors\": [\"1\"],"
  "         \"skele\": {\"when\": {\"1\": \"output['score'] >= 80\"}}},"
  "  \"4\": {\"name\": \"Low\", \"priors\": [\"1\"], \"skele\": {\"when\": {\"1\": \"default\"}}},"
  "  \"5\": {\"name\": \"Odd\", \"priors\": [\"3\"], \"skele\": {\"when\": {\"3\": \"output[[\"}}}}}";

static SkProject *
branches (void)
{
  g_autoptr(GError) error = NULL;
  SkProject *project;

  project = sk_project_load_from_data (branches_json, -1, NULL, &error);
  g_assert_no_error (error);

  return project;
}

/* Debian's interpreter, when there is one (see TESTING.md); any python3
 * otherwise. */
static char *
find_python3 (void)
{
  if (g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup ("/usr/bin/python3");

  return g_find_program_in_path ("python3");
}

typedef struct
{
  GPtrArray *problems;
  GError    *error;
  gboolean   done;
} Checked;

static void
checked_clear (Checked *checked)
{
  g_clear_pointer (&checked->problems, g_ptr_array_unref);
  g_clear_error (&checked->error);
  checked->done = FALSE;
}

static void
checked_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Checked *checked = user_data;

  g_assert_false (checked->done);
  checked->problems = sk_project_check_conditions_finish (SK_PROJECT (object), result, &checked->error);
  checked->done = TRUE;
}

static void
check_and_wait (SkProject  *project,
                const char *python,
                Checked    *checked)
{
  checked_clear (checked);
  sk_project_check_conditions_async (project, python, NULL, checked_cb, checked);
  g_assert_false (checked->done);
  SK_TEST_WAIT_UNTIL (checked->done, WAIT_MS);
}

static void
assert_condition_problem (SkProblem  *problem,
                          const char *prior_id,
                          const char *node_id,
                          const char *message)
{
  g_assert_cmpint (problem->kind, ==, SK_PROBLEM_CONTROL_FLOW);
  g_assert_false (problem->is_warning);
  g_assert_cmpstr (problem->node_id, ==, node_id);
  g_assert_cmpstrv (problem->edge_pairs, SK_TEST_STRV (prior_id, node_id));
  sk_test_assert_contains (problem->message, message);
}

/* The key changes exactly when what Python would say may change. */
static void
test_conditions_key (void)
{
  g_autoptr(SkProject) project = branches ();
  g_autoptr(SkProject) plain = three_problems ();
  SkNode *high = sk_project_get_node (project, "2");
  g_autofree char *key = sk_project_get_conditions_key (project);
  g_autofree char *moved = NULL;
  g_autofree char *renamed = NULL;
  g_autofree char *changed = NULL;
  g_autofree char *defaults = NULL;

  g_assert_nonnull (key);
  g_assert_null (sk_project_get_conditions_key (plain));

  sk_node_set_position (high, 300, 40);
  sk_node_set_input_text (high, "Say it is high.");
  moved = sk_project_get_conditions_key (project);
  g_assert_cmpstr (moved, ==, key);

  sk_node_set_name (sk_project_get_node (project, "1"), "Rating");
  renamed = sk_project_get_conditions_key (project);
  g_assert_cmpstr (renamed, !=, key);

  sk_node_set_condition (high, "1", "output['x'] > 1");
  changed = sk_project_get_conditions_key (project);
  g_assert_cmpstr (changed, !=, renamed);

  /* The default branch alone is nothing to check. */
  sk_node_set_condition (high, "1", NULL);
  sk_node_set_condition (sk_project_get_node (project, "3"), "1", NULL);
  sk_node_set_condition (sk_project_get_node (project, "5"), "3", NULL);
  defaults = sk_project_get_conditions_key (project);
  g_assert_null (defaults);
}

static void
test_conditions_async (void)
{
  g_autoptr(SkProject) project = branches ();
  g_autofree char *python = find_python3 ();
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  Checked checked = { 0 };

  if (python == NULL)
    {
      g_test_skip ("no Python interpreter");
      return;
    }

  check_and_wait (project, python, &checked);
  g_assert_no_error (checked.error);
  g_assert_nonnull (checked.problems);
  g_assert_cmpuint (checked.problems->len, ==, 2);
  assert_condition_problem (g_ptr_array_index (checked.problems, 0), "1", "2",
                            "The condition from “Score” to “High” is not Python: ");
  assert_condition_problem (g_ptr_array_index (checked.problems, 1), "3", "5",
                            "The condition from “Middle” to “Odd” is not Python: ");

  /* The same problems as the check that waits for Python. */
  problems = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free);
  g_assert_true (sk_project_check_conditions (project, python, problems, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (problems->len, ==, checked.problems->len);
  for (guint i = 0; i < problems->len; i++)
    g_assert_cmpstr (((SkProblem *) g_ptr_array_index (problems, i))->message, ==,
                     ((SkProblem *) g_ptr_array_index (checked.problems, i))->message);

  /* Fixed, they are no problem. */
  sk_node_set_condition (sk_project_get_node (project, "2"), "1", "output['x'] > 1");
  sk_node_set_condition (sk_project_get_node (project, "5"), "3", "len(output) == 0");
  check_and_wait (project, python, &checked);
  g_assert_no_error (checked.error);
  g_assert_nonnull (checked.problems);
  g_assert_cmpuint (checked.problems->len, ==, 0);

  checked_clear (&checked);
}

/* What changes while Python checks is not blamed on the old conditions. */
static void
test_conditions_async_changed (void)
{
  g_autoptr(SkProject) project = branches ();
  g_autofree char *python = find_python3 ();
  Checked checked = { 0 };

  if (python == NULL)
    {
      g_test_skip ("no Python interpreter");
      return;
    }

  sk_project_check_conditions_async (project, python, NULL, checked_cb, &checked);
  sk_project_remove_node (project, sk_project_get_node (project, "2"));
  sk_node_set_condition (sk_project_get_node (project, "5"), "3", "output['y'] <");
  SK_TEST_WAIT_UNTIL (checked.done, WAIT_MS);
  g_assert_no_error (checked.error);
  g_assert_nonnull (checked.problems);
  g_assert_cmpuint (checked.problems->len, ==, 0);

  /* Checked again, the new condition is named. */
  check_and_wait (project, python, &checked);
  g_assert_no_error (checked.error);
  g_assert_cmpuint (checked.problems->len, ==, 1);
  assert_condition_problem (g_ptr_array_index (checked.problems, 0), "3", "5", "is not Python");

  checked_clear (&checked);
}

static void
test_conditions_async_cancel (void)
{
  g_autoptr(SkProject) project = branches ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *python = find_python3 ();
  Checked checked = { 0 };

  if (python == NULL)
    {
      g_test_skip ("no Python interpreter");
      return;
    }

  sk_project_check_conditions_async (project, python, cancellable, checked_cb, &checked);
  g_cancellable_cancel (cancellable);
  SK_TEST_WAIT_UNTIL (checked.done, WAIT_MS);
  g_assert_error (checked.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (checked.problems);

  checked_clear (&checked);
}

/* Without a Python that answers, the check fails; without conditions it
 * needs none. */
static void
test_conditions_async_no_python (void)
{
  g_autoptr(SkProject) project = branches ();
  g_autoptr(SkProject) plain = three_problems ();
  g_autofree char *dir = sk_test_make_tmp_dir ("problems");
  g_autofree char *missing = g_build_filename (dir, "no-python3", NULL);
  g_autofree char *not_python = g_build_filename (dir, "not-python", NULL);
  Checked checked = { 0 };

  check_and_wait (project, missing, &checked);
  g_assert_nonnull (checked.error);
  g_assert_null (checked.problems);

  /* A program that reads the conditions but answers no JSON. */
  sk_test_write_text (dir, "not-python", "#!/bin/sh\ncat >/dev/null\necho 'no JSON'\n");
  g_assert_cmpint (g_chmod (not_python, 0755), ==, 0);
  check_and_wait (project, not_python, &checked);
  g_assert_error (checked.error, SK_CONTROL_FLOW_ERROR, SK_CONTROL_FLOW_ERROR_CHECK);
  g_assert_null (checked.problems);

  /* One that ends before reading them. */
  check_and_wait (project, "/bin/false", &checked);
  g_assert_nonnull (checked.error);
  g_assert_null (checked.problems);

  check_and_wait (plain, missing, &checked);
  g_assert_no_error (checked.error);
  g_assert_nonnull (checked.problems);
  g_assert_cmpuint (checked.problems->len, ==, 0);

  checked_clear (&checked);
  sk_test_remove_tree (dir);
}

/* The window ------------------------------------------------------------- */

static const char window_branches_json[] =
  "{\"process_name\": \"branches\", \"nodes\": {"
  "  \"1\": {\"name\": \"Score\", \"priors\": []},"
  "  \"2\": {\"name\": \"High\", \"priors\": [\"1\"], \"skele\": {\"when\": {\"1\": \"output['x'] >\"}}},"
  "  \"3\": {\"name\": \"Low\", \"priors\": [\"1\"], \"skele\": {\"when\": {\"1\": \"default\"}}}}}";

/* The problem the window lists about a condition, if any. */
static SkProblem *
listed_condition_problem (SkWindow *window)
{
  GPtrArray *problems = sk_problems_list_get_problems (window->problems_list);

  for (guint i = 0; problems != NULL && i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (strstr (problem->message, "is not Python") != NULL)
        return problem;
    }

  return NULL;
}

static const char *
problems_summary (SkWindow *window)
{
  return gtk_label_get_label (window->problems_label);
}

static void
set_python (const char *python)
{
  g_autoptr(GSettings) settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);

  g_settings_set_string (settings, "python", python);
}

/* A condition that is not Python is listed with the other problems once
 * Python has said so, and goes when it is fixed. */
static void
test_window_condition (Fixture       *f,
                       gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkProblem *problem;
  SkNode *high;
  SkNode *low;

  if (skip_without_python ())
    return;

  use_python ();
  sk_test_write_text (f->dir, "process.json", window_branches_json);
  window = new_window ();
  project = open_and_wait (window, f->folder);
  high = sk_project_get_node (project, "2");
  low = sk_project_get_node (project, "3");

  SK_TEST_WAIT_UNTIL (listed_condition_problem (window) != NULL, WAIT_MS);
  problem = listed_condition_problem (window);
  assert_condition_problem (problem, "1", "2", "The condition from “Score” to “High” is not Python: ");
  g_assert_true (gtk_revealer_get_reveal_child (window->problems_revealer));
  g_assert_cmpstr (problems_summary (window), ==, "This workflow has 1 problem");

  /* Merged with a problem that the window finds itself. */
  sk_node_set_priors (low, SK_TEST_STRV ("1", "9"));
  _sk_window_update_problems (window);
  g_assert_nonnull (listed_condition_problem (window));
  g_assert_cmpstr (problems_summary (window), ==, "This workflow has 2 problems");
  sk_node_set_priors (low, SK_TEST_STRV ("1"));

  /* A name in the message follows the step's. */
  sk_node_set_name (sk_project_get_node (project, "1"), "Rating");
  SK_TEST_WAIT_UNTIL (listed_condition_problem (window) != NULL &&
                      strstr (listed_condition_problem (window)->message, "“Rating”") != NULL, WAIT_MS);

  /* The fix: the bar goes once Python agrees. */
  sk_node_set_condition (high, "1", "output['x'] > 1");
  SK_TEST_WAIT_UNTIL (!gtk_revealer_get_reveal_child (window->problems_revealer), WAIT_MS);
  g_assert_null (listed_condition_problem (window));
  g_assert_null (window->conditions_cancellable);

  /* The window does not wait for Python: the problem comes after the
   * update that asked for it. */
  sk_node_set_condition (high, "1", "output['x'] >");
  _sk_window_update_problems (window);
  g_assert_nonnull (window->conditions_cancellable);
  g_assert_null (listed_condition_problem (window));
  SK_TEST_WAIT_UNTIL (listed_condition_problem (window) != NULL, WAIT_MS);

  /* Removing the condition takes its problem away without Python. */
  sk_node_set_condition (high, "1", NULL);
  _sk_window_update_problems (window);
  g_assert_null (window->conditions_cancellable);
  g_assert_null (listed_condition_problem (window));
  g_assert_false (gtk_revealer_get_reveal_child (window->problems_revealer));

  destroy_window (window);
  forget_python ();
}

/* A check still running when the window closes is stopped. */
static void
test_window_close_while_checking (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = NULL;
  SkWindow *window;
  SkProject *project;

  if (skip_without_python ())
    return;

  use_python ();
  sk_test_write_text (f->dir, "process.json", window_branches_json);
  window = new_window ();
  project = open_and_wait (window, f->folder);
  sk_node_set_condition (sk_project_get_node (project, "2"), "1", "output['y'] >");
  _sk_window_update_problems (window);
  g_assert_nonnull (window->conditions_cancellable);
  cancellable = g_object_ref (window->conditions_cancellable);

  destroy_window (window);
  g_assert_true (g_cancellable_is_cancelled (cancellable));
  forget_python ();
}

/* Without a Python to check them, the conditions add nothing to the
 * list, and nothing is said about it. */
static void
test_window_condition_no_python (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->dir, "no-python3", NULL);
  SkWindow *window;
  SkProject *project;

  sk_test_write_text (f->dir, "process.json", window_branches_json);

  /* None is found: no check starts. */
  set_python (missing);
  window = new_window ();
  project = open_and_wait (window, f->folder);
  g_assert_nonnull (window->conditions_key);
  g_assert_null (window->conditions_cancellable);
  g_assert_null (listed_condition_problem (window));
  g_assert_false (gtk_revealer_get_reveal_child (window->problems_revealer));
  destroy_window (window);

  /* One that cannot answer: the check ends with nothing to show. */
  set_python ("/bin/false");
  window = new_window ();
  project = open_and_wait (window, f->folder);
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
  SK_TEST_WAIT_UNTIL (window->conditions_cancellable == NULL, WAIT_MS);
  drain ();
  g_assert_null (listed_condition_problem (window));
  g_assert_false (gtk_revealer_get_reveal_child (window->problems_revealer));
  destroy_window (window);

  forget_python ();
}

int
main (int   argc,
      char *argv[])
{
  if (!sk_test_window_init (&argc, &argv))
    return 0;

  g_test_add_func ("/problems/list/rows", test_list_rows);
  g_test_add_func ("/problems/list/activate", test_list_activate);
  g_test_add_func ("/problems/list/keyboard", test_list_keyboard);
  g_test_add_func ("/problems/dialog/keeps-old-problems", test_dialog_keeps_old_problems);
  g_test_add_func ("/problems/conditions/key", test_conditions_key);
  g_test_add_func ("/problems/conditions/async", test_conditions_async);
  g_test_add_func ("/problems/conditions/async-changed", test_conditions_async_changed);
  g_test_add_func ("/problems/conditions/async-cancel", test_conditions_async_cancel);
  g_test_add_func ("/problems/conditions/async-no-python", test_conditions_async_no_python);
  g_test_add ("/problems/window/condition", Fixture, NULL,
              fixture_setup, test_window_condition, fixture_teardown);
  g_test_add ("/problems/window/close-while-checking", Fixture, NULL,
              fixture_setup, test_window_close_while_checking, fixture_teardown);
  g_test_add ("/problems/window/condition-no-python", Fixture, NULL,
              fixture_setup, test_window_condition_no_python, fixture_teardown);

  return sk_test_window_run ();
}
