/* test-window-edit.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Editing a workflow in the main window: undo and redo, a renamed step
 * taking its folder along, and the properties dialog of a step or of the
 * whole workflow.
 */

#define G_LOG_DOMAIN "test-window-edit"

#include <string.h>

#include <gtksourceview/gtksource.h>
#include <json-glib/json-glib.h>

#include "sk-properties-dialog.h"
#include "sk-test-window.h"

/* Undo and redo ---------------------------------------------------------- */

static void
test_undo_redo (Fixture       *f,
                gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project = create_and_open (window, f, "flow");
  g_autofree char *id = NULL;
  SkNode *node;

  g_assert_false (action_enabled (window, "undo"));
  g_assert_false (action_enabled (window, "redo"));

  _sk_canvas_click (_sk_window_get_canvas (window), 150, 120, GDK_BUTTON_PRIMARY, 0, 1);
  flush_history (window);

  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 1);
  node = sk_canvas_get_selected_node (_sk_window_get_canvas (window));
  id = g_strdup (sk_node_get_id (node));
  g_assert_true (action_enabled (window, "undo"));
  g_assert_false (action_enabled (window, "redo"));

  activate (window, "undo");
  drain ();
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 0);
  g_assert_false (action_enabled (window, "undo"));
  g_assert_true (action_enabled (window, "redo"));

  activate (window, "redo");
  drain ();
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 1);
  node = sk_project_get_node (project, id);
  g_assert_nonnull (node);
  g_assert_cmpstr (sk_node_get_name (node), ==, "step");
  g_assert_true (action_enabled (window, "undo"));
  g_assert_false (action_enabled (window, "redo"));

  /* A second edit is a second step. */
  sk_node_set_name (node, "load data");
  flush_history (window);
  activate (window, "undo");
  drain ();
  g_assert_cmpstr (sk_node_get_name (node), ==, "step");
  g_assert_true (action_enabled (window, "undo"));
  g_assert_true (action_enabled (window, "redo"));

  destroy_window (window);
}

/* An undo of a step that is not selected selects it; one of something not
 * on the canvas says what it undid. */
static void
test_undo_shows_what (Fixture       *f,
                      gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project = create_and_open (window, f, "flow");
  SkCanvas *canvas = _sk_window_get_canvas (window);
  SkNode *load = add_step (project, "1", "load");
  SkNode *chart = add_step (project, "2", "chart");

  flush_history (window);
  sk_canvas_select_node (canvas, chart);
  sk_node_set_name (load, "load sales");
  flush_history (window);
  g_assert_true (sk_canvas_get_selected_node (canvas) == chart);

  activate (window, "undo");
  drain ();
  g_assert_cmpstr (sk_node_get_name (load), ==, "load");
  g_assert_true (sk_canvas_get_selected_node (canvas) == load);

  activate (window, "redo");
  drain ();
  g_assert_cmpstr (sk_node_get_name (load), ==, "load sales");
  g_assert_true (sk_canvas_get_selected_node (canvas) == load);

  sk_project_set_name (project, "Sales");
  flush_history (window);
  activate (window, "undo");
  drain ();
  g_assert_cmpstr (_sk_window_get_last_toast (window), ==, "Undone: Rename Workflow");

  destroy_window (window);
}

/* Undoing back to what was saved takes the unsaved mark off the title. */
static void
test_undo_to_saved (Fixture       *f,
                    gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project = create_and_open (window, f, "flow");
  AdwWindowTitle *title = ADW_WINDOW_TITLE (template_child (window, "window_title"));
  SkNode *load = add_step (project, "1", "load");

  flush_history (window);
  activate (window, "save");
  drain ();
  g_assert_false (g_str_has_prefix (adw_window_title_get_title (title), "•"));

  sk_node_set_name (load, "load sales");
  flush_history (window);
  g_assert_true (g_str_has_prefix (adw_window_title_get_title (title), "•"));

  activate (window, "undo");
  drain ();
  g_assert_false (g_str_has_prefix (adw_window_title_get_title (title), "•"));

  destroy_window (window);
}

static GtkWidget *
find_source_view (GtkWidget *widget)
{
  if (GTK_SOURCE_IS_VIEW (widget))
    return widget;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_source_view (child);

      if (found != NULL)
        return found;
    }

  return NULL;
}

/* Typing in the code view enables the header's Undo, which undoes that
 * typing; back on the canvas, Undo is the workflow's again. */
static void
test_code_undo_in_header (Fixture       *f,
                          gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project;
  GtkWidget *view;
  GtkTextBuffer *buffer;
  GtkTextIter end;

  copy_example (f);
  project = open_and_wait (window, f->folder);
  gtk_window_present (GTK_WINDOW (window));
  sk_canvas_select_node (_sk_window_get_canvas (window), sk_project_get_node_by_key (project, "load_sales"));
  SK_TEST_WAIT_UNTIL (sk_code_cell_get_has_script (_sk_window_get_code_cell (window)), WAIT_MS);
  g_assert_false (action_enabled (window, "undo"));

  view = find_source_view (GTK_WIDGET (_sk_window_get_code_cell (window)));
  g_assert_nonnull (view);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  g_assert_true (gtk_widget_grab_focus (view));
  drain ();
  g_assert_false (action_enabled (window, "undo"));

  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_insert_interactive (buffer, &end, "# checked\n", -1, TRUE);
  gtk_text_buffer_end_user_action (buffer);
  drain ();
  g_assert_true (action_enabled (window, "undo"));

  activate (window, "undo");
  drain ();
  {
    GtkTextIter start;
    g_autofree char *text = NULL;

    gtk_text_buffer_get_bounds (buffer, &start, &end);
    text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
    g_assert_null (strstr (text, "# checked"));
  }
  g_assert_true (action_enabled (window, "redo"));

  gtk_widget_grab_focus (GTK_WIDGET (_sk_window_get_canvas (window)));
  drain ();
  g_assert_false (action_enabled (window, "undo"));
  g_assert_false (action_enabled (window, "redo"));

  destroy_window (window);
}

/* A renamed step takes its folder along ---------------------------------- */

static void
assert_step_files (Fixture    *f,
                   const char *key,
                   const char *gone)
{
  g_autofree char *script = g_strdup_printf ("%s/%s.py", key, key);
  g_autofree char *test = g_strdup_printf ("%s/test/test_%s.py", key, key);
  g_autofree char *old_test = g_strdup_printf ("%s/test/test_%s.py", key, gone);
  g_autofree char *old_script = g_strdup_printf ("%s/%s.py", key, gone);

  g_assert_true (exists_in (f, script));
  g_assert_true (exists_in (f, test));
  g_assert_false (exists_in (f, gone));
  g_assert_false (exists_in (f, old_script));
  g_assert_false (exists_in (f, old_test));
}

static void
test_rename_moves_folder (Fixture       *f,
                          gconstpointer  data)
{
  SkWindow *window = new_window ();
  g_autofree char *original = NULL;
  g_autofree char *moved = NULL;
  SkNode *node;

  copy_example (f);
  open_and_wait (window, f->folder);
  original = sk_test_read_text (f->dir, "revenue_chart/revenue_chart.py");
  g_assert_nonnull (original);

  node = node_by_key (window, "revenue_chart");
  sk_node_set_name (node, "bar chart");
  g_assert_cmpstr (sk_node_get_key (node), ==, "bar_chart");

  assert_step_files (f, "bar_chart", "revenue_chart");
  moved = sk_test_read_text (f->dir, "bar_chart/bar_chart.py");
  g_assert_cmpstr (moved, ==, original);

  /* The example's script names its own step by key, so the user is told. */
  sk_test_assert_contains (_sk_window_get_last_toast (window), "old name “revenue_chart”");

  flush_history (window);
  activate (window, "undo");
  drain ();
  g_assert_cmpstr (sk_node_get_name (node), ==, "revenue chart");
  assert_step_files (f, "revenue_chart", "bar_chart");

  activate (window, "redo");
  drain ();
  g_assert_cmpstr (sk_node_get_key (node), ==, "bar_chart");
  assert_step_files (f, "bar_chart", "revenue_chart");

  /* A name whose folder is taken leaves the files where they are. */
  sk_test_write_text (f->dir, "chart/keep.txt", "someone else's");
  sk_node_set_name (node, "chart");
  g_assert_true (exists_in (f, "bar_chart/bar_chart.py"));
  g_assert_false (exists_in (f, "chart/chart.py"));
  sk_test_assert_contains (_sk_window_get_last_toast (window), "already exists");

  destroy_window (window);
}

/* The properties dialog -------------------------------------------------- */

static GtkWidget *
dialog_child (SkPropertiesDialog *dialog,
              const char         *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (dialog), SK_TYPE_PROPERTIES_DIALOG, name);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

static GtkTextBuffer *
dialog_buffer (SkPropertiesDialog *dialog)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (dialog_child (dialog, "json_view")));
}

static char *
dialog_text (SkPropertiesDialog *dialog)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (dialog_buffer (dialog), &start, &end);
  return gtk_text_buffer_get_text (dialog_buffer (dialog), &start, &end, FALSE);
}

static JsonObject *
dialog_json (SkPropertiesDialog *dialog)
{
  g_autofree char *text = dialog_text (dialog);

  return sk_test_parse_object (text);
}

static void
set_dialog_json (SkPropertiesDialog *dialog,
                 JsonObject         *object)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *text = NULL;

  json_node_set_object (root, object);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  gtk_text_buffer_set_text (dialog_buffer (dialog), text, -1);
}

static void
set_name (SkPropertiesDialog *dialog,
          const char         *name)
{
  gtk_editable_set_text (GTK_EDITABLE (dialog_child (dialog, "name_entry")), name);
}

static const char *
error_shown (SkPropertiesDialog *dialog)
{
  GtkWidget *label = dialog_child (dialog, "error_label");

  return gtk_widget_get_visible (label) ? gtk_label_get_text (GTK_LABEL (label)) : NULL;
}

static SkPropertiesDialog *
step_dialog (SkWindow   *window,
             const char *key)
{
  return sk_properties_dialog_new (sk_window_get_project (window),
                                   key != NULL ? node_by_key (window, key) : NULL,
                                   _sk_window_get_history (window));
}

/* Checks that a refused edit changed nothing. */
static void
assert_untouched (SkWindow *window)
{
  SkProject *project = sk_window_get_project (window);
  SkNode *node = node_by_key (window, "load_sales");

  g_assert_false (sk_project_get_modified (project));
  g_assert_false (action_enabled (window, "undo"));
  g_assert_cmpstr (sk_node_get_name (node), ==, "load sales");
  g_assert_cmpuint (g_strv_length ((char **) sk_node_get_priors (node)), ==, 0);
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, EXAMPLE_N_STEPS);
}

static void
test_properties_rename (Fixture       *f,
                        gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkPropertiesDialog *dialog;
  g_autoptr(GError) error = NULL;
  SkHistory *history;
  SkNode *node;

  copy_example (f);
  open_and_wait (window, f->folder);
  history = _sk_window_get_history (window);
  node = node_by_key (window, "load_sales");

  dialog = step_dialog (window, "load_sales");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (dialog)), ==, "Step “load sales”");
  set_name (dialog, "read sales");
  /* Nothing changes before Apply. */
  g_assert_cmpstr (sk_node_get_name (node), ==, "load sales");

  g_assert_true (sk_properties_dialog_apply (dialog, &error));
  g_assert_no_error (error);
  gtk_window_destroy (GTK_WINDOW (dialog));
  drain ();

  g_assert_cmpstr (sk_node_get_name (node), ==, "read sales");
  g_assert_true (exists_in (f, "read_sales/read_sales.py"));
  g_assert_true (exists_in (f, "read_sales/sales.csv"));
  g_assert_false (exists_in (f, "load_sales"));
  g_assert_cmpstr (sk_history_get_undo_label (history), ==, "Edit Step Properties");

  /* One step undoes it all. */
  activate (window, "undo");
  drain ();
  g_assert_cmpstr (sk_node_get_name (node), ==, "load sales");
  g_assert_true (exists_in (f, "load_sales/load_sales.py"));
  g_assert_false (exists_in (f, "read_sales"));
  g_assert_false (action_enabled (window, "undo"));

  destroy_window (window);
}

static void
test_properties_invalid_json (Fixture       *f,
                              gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkPropertiesDialog *dialog;
  g_autoptr(GError) error = NULL;

  copy_example (f);
  open_and_wait (window, f->folder);
  dialog = step_dialog (window, "load_sales");
  g_assert_null (error_shown (dialog));
  g_assert_true (gtk_widget_get_sensitive (dialog_child (dialog, "apply_button")));

  gtk_text_buffer_set_text (dialog_buffer (dialog), "{ \"name\": \"x\", ", -1);

  g_assert_nonnull (error_shown (dialog));
  g_assert_cmpstr (error_shown (dialog), !=, "");
  g_assert_false (gtk_widget_get_sensitive (dialog_child (dialog, "apply_button")));
  g_assert_false (sk_properties_dialog_apply (dialog, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  /* JSON that is not one object is refused too. */
  gtk_text_buffer_set_text (dialog_buffer (dialog), "[1, 2]", -1);
  g_assert_nonnull (error_shown (dialog));
  g_assert_false (sk_properties_dialog_apply (dialog, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);

  drain ();
  assert_untouched (window);
  gtk_window_destroy (GTK_WINDOW (dialog));
  destroy_window (window);
}

static void
test_properties_cycle (Fixture       *f,
                       gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkPropertiesDialog *dialog;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *priors = json_array_new ();

  copy_example (f);
  open_and_wait (window, f->folder);

  /* "sales report" (5) needs "monthly totals" (2), which needs "load
   * sales" (1): making 1 need 5 closes a circle. */
  dialog = step_dialog (window, "load_sales");
  object = dialog_json (dialog);
  json_array_add_string_element (priors, "5");
  json_object_set_array_member (object, "priors", priors);
  set_dialog_json (dialog, object);
  g_assert_null (error_shown (dialog));

  g_assert_false (sk_properties_dialog_apply (dialog, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  sk_test_assert_contains (error->message, "circle");
  sk_test_assert_contains (error->message, "load sales");
  sk_test_assert_contains (error->message, "sales report");
  sk_test_assert_contains (error->message, "monthly totals");

  drain ();
  assert_untouched (window);
  gtk_window_destroy (GTK_WINDOW (dialog));
  destroy_window (window);
}

static void
test_properties_duplicate_name (Fixture       *f,
                                gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkPropertiesDialog *dialog;
  g_autoptr(GError) error = NULL;

  copy_example (f);
  open_and_wait (window, f->folder);

  dialog = step_dialog (window, "load_sales");
  set_name (dialog, "Monthly Totals");
  g_assert_false (sk_properties_dialog_apply (dialog, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  sk_test_assert_contains (error->message, "monthly_totals");

  drain ();
  assert_untouched (window);
  g_assert_true (exists_in (f, "load_sales/load_sales.py"));
  g_assert_true (exists_in (f, "monthly_totals/monthly_totals.py"));
  gtk_window_destroy (GTK_WINDOW (dialog));
  destroy_window (window);
}

static void
test_properties_process (Fixture       *f,
                         gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkPropertiesDialog *dialog;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) error = NULL;
  SkProject *project;
  SkNode *node;

  copy_example (f);
  project = open_and_wait (window, f->folder);
  node = node_by_key (window, "load_sales");

  dialog = step_dialog (window, NULL);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (dialog)), ==, "Workflow Properties");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (dialog_child (dialog, "name_entry"))), ==,
                   "sales report");
  object = dialog_json (dialog);
  g_assert_cmpstr (json_object_get_string_member (object, "process_name"), ==, "sales report");
  g_assert_true (json_object_has_member (object, "nodes"));

  set_name (dialog, "yearly sales");
  g_assert_true (sk_properties_dialog_apply (dialog, &error));
  g_assert_no_error (error);
  gtk_window_destroy (GTK_WINDOW (dialog));
  drain ();

  g_assert_cmpstr (sk_project_get_name (project), ==, "yearly sales");
  g_assert_true (sk_project_get_modified (project));
  sk_test_assert_contains (gtk_window_get_title (GTK_WINDOW (window)), "yearly sales");
  /* The steps are the same objects, untouched. */
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, EXAMPLE_N_STEPS);
  g_assert_true (node_by_key (window, "load_sales") == node);
  g_assert_cmpstr (sk_history_get_undo_label (_sk_window_get_history (window)), ==, "Edit Workflow Properties");

  activate (window, "undo");
  drain ();
  g_assert_cmpstr (sk_project_get_name (project), ==, "sales report");

  destroy_window (window);
}

static void
test_properties_sync (Fixture       *f,
                      gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkPropertiesDialog *dialog;
  g_autoptr(JsonObject) object = NULL;
  GtkWidget *name_entry;
  GtkWidget *description_entry;

  copy_example (f);
  open_and_wait (window, f->folder);
  dialog = step_dialog (window, "monthly_totals");
  name_entry = dialog_child (dialog, "name_entry");
  description_entry = dialog_child (dialog, "description_entry");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (name_entry)), ==, "monthly totals");

  /* The entries write into the JSON... */
  set_name (dialog, "totals per month");
  gtk_editable_set_text (GTK_EDITABLE (description_entry), "use calendar months");
  object = dialog_json (dialog);
  g_assert_cmpstr (json_object_get_string_member (object, "name"), ==, "totals per month");
  g_assert_cmpstr (json_object_get_string_member (object, "description"), ==, "use calendar months");
  /* ...and keep what else it says. */
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (object, "priors"), 0), ==, "1");

  /* The JSON writes into the entries. */
  json_object_set_string_member (object, "name", "sum by month");
  json_object_set_string_member (object, "description", "");
  set_dialog_json (dialog, object);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (name_entry)), ==, "sum by month");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (description_entry)), ==, "");
  g_assert_null (error_shown (dialog));

  /* A broken text leaves the entries alone; a mended one enables Apply. */
  gtk_text_buffer_set_text (dialog_buffer (dialog), "{ \"name\": ", -1);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (name_entry)), ==, "sum by month");
  g_assert_false (gtk_widget_get_sensitive (dialog_child (dialog, "apply_button")));
  gtk_text_buffer_set_text (dialog_buffer (dialog), "{ \"name\": \"monthly sums\", \"priors\": [\"1\"] }", -1);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (name_entry)), ==, "monthly sums");
  g_assert_true (gtk_widget_get_sensitive (dialog_child (dialog, "apply_button")));
  g_assert_null (error_shown (dialog));

  /* Nothing reached the step. */
  g_assert_cmpstr (sk_node_get_name (node_by_key (window, "monthly_totals")), ==, "monthly totals");
  g_assert_false (sk_project_get_modified (sk_window_get_project (window)));

  gtk_window_destroy (GTK_WINDOW (dialog));
  destroy_window (window);
}

/* Clicks @node on the canvas, with the Alt key for its properties. */
static void
alt_click_node (SkWindow *window,
                SkNode   *node)
{
  SkCanvas *canvas = _sk_window_get_canvas (window);
  double mx, my, x, y;

  g_assert_true (sk_node_get_position (node, &mx, &my));
  _sk_canvas_model_to_widget (canvas, mx, my, &x, &y);
  g_assert_true (_sk_canvas_node_at (canvas, x, y) == node);
  _sk_canvas_click (canvas, x, y, GDK_BUTTON_PRIMARY, GDK_ALT_MASK, 1);
}

static void
test_properties_from_canvas (Fixture       *f,
                             gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkPropertiesDialog *dialog;
  SkProject *project;
  SkNode *node;

  copy_example (f);
  project = open_and_wait (window, f->folder);
  node = node_by_key (window, "sales_report");

  alt_click_node (window, node);
  dialog = SK_PROPERTIES_DIALOG (find_dialog (window, SK_TYPE_PROPERTIES_DIALOG));
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (dialog)));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (dialog)), ==, "Step “sales report”");
  g_assert_true (sk_canvas_get_selected_node (_sk_window_get_canvas (window)) == node);

  set_name (dialog, "management report");
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_signal_emit_by_name (dialog_child (dialog, "apply_button"), "clicked");
  /* Applied, the dialog closes. */
  SK_TEST_WAIT_UNTIL (dialog == NULL, WAIT_MS);

  g_assert_cmpstr (sk_node_get_name (node), ==, "management report");
  g_assert_true (exists_in (f, "management_report/management_report.py"));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (template_child (window, "step_title"))), ==,
                   "management report");

  /* A refused edit keeps the dialog open and says why. */
  alt_click_node (window, node);
  dialog = SK_PROPERTIES_DIALOG (find_dialog (window, SK_TYPE_PROPERTIES_DIALOG));
  g_assert_nonnull (dialog);
  set_name (dialog, "load sales");
  g_signal_emit_by_name (dialog_child (dialog, "apply_button"), "clicked");
  drain ();
  g_assert_true (find_dialog (window, SK_TYPE_PROPERTIES_DIALOG) == GTK_WINDOW (dialog));
  g_assert_nonnull (error_shown (dialog));
  sk_test_assert_contains (error_shown (dialog), "load_sales");
  g_assert_cmpstr (sk_node_get_name (node), ==, "management report");
  gtk_window_destroy (GTK_WINDOW (dialog));
  drain ();

  /* On empty space, Alt-click edits the workflow. */
  _sk_canvas_click (_sk_window_get_canvas (window), 2, 2, GDK_BUTTON_PRIMARY, GDK_ALT_MASK, 1);
  dialog = SK_PROPERTIES_DIALOG (find_dialog (window, SK_TYPE_PROPERTIES_DIALOG));
  g_assert_nonnull (dialog);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (dialog)), ==, "Workflow Properties");
  gtk_window_destroy (GTK_WINDOW (dialog));

  /* So does the menu's action. */
  activate (window, "edit-process");
  dialog = SK_PROPERTIES_DIALOG (find_dialog (window, SK_TYPE_PROPERTIES_DIALOG));
  g_assert_nonnull (dialog);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (dialog)), ==, "Workflow Properties");
  gtk_window_destroy (GTK_WINDOW (dialog));
  drain ();

  g_assert_cmpstr (sk_project_get_name (project), ==, "sales report");
  destroy_window (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!sk_test_window_init (&argc, &argv))
    return 0;

  SK_TEST_WINDOW_ADD ("undo-redo", test_undo_redo);
  SK_TEST_WINDOW_ADD ("undo-shows-what", test_undo_shows_what);
  SK_TEST_WINDOW_ADD ("undo-to-saved", test_undo_to_saved);
  SK_TEST_WINDOW_ADD ("code-undo-in-header", test_code_undo_in_header);
  SK_TEST_WINDOW_ADD ("rename-moves-folder", test_rename_moves_folder);
  SK_TEST_WINDOW_ADD ("properties/rename", test_properties_rename);
  SK_TEST_WINDOW_ADD ("properties/invalid-json", test_properties_invalid_json);
  SK_TEST_WINDOW_ADD ("properties/cycle", test_properties_cycle);
  SK_TEST_WINDOW_ADD ("properties/duplicate-name", test_properties_duplicate_name);
  SK_TEST_WINDOW_ADD ("properties/process", test_properties_process);
  SK_TEST_WINDOW_ADD ("properties/sync", test_properties_sync);
  SK_TEST_WINDOW_ADD ("properties/from-canvas", test_properties_from_canvas);

  return sk_test_window_run ();
}
