/* test-problems.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A workflow with several problems in the window: the list that names them
 * and the step editor, which must accept a change that fixes one of them.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <adwaita.h>

#include "sk-problems-list.h"
#include "sk-properties-dialog.h"
#include "sk-test-util.h"
#include "sk-widgets.h"

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
drain (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      printf ("1..0 # SKIP no display\n");
      return 0;
    }

  adw_init ();
  sk_widgets_init ();

  g_test_add_func ("/problems/list/rows", test_list_rows);
  g_test_add_func ("/problems/list/activate", test_list_activate);
  g_test_add_func ("/problems/list/keyboard", test_list_keyboard);
  g_test_add_func ("/problems/dialog/keeps-old-problems", test_dialog_keeps_old_problems);

  return g_test_run ();
}
