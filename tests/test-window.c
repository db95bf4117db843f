/* test-window.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window opening, creating and saving workflows, recovering
 * unsaved changes after a crash, and closing with unsaved changes.
 */

#define G_LOG_DOMAIN "test-window"

#include <string.h>

#include "sk-test-window.h"

/* Layout ----------------------------------------------------------------- */

static SkWindow *
sized_window (int width,
              int height)
{
  SkWindow *window = sk_window_new (sk_test_window_app ());

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

/* Where the cells do not fit side by side they fold into one at a time,
 * with a switcher; the canvas keeps a third of the height or more. */
static void
test_layout_narrow (Fixture       *f,
                    gconstpointer  data)
{
  SkWindow *window = sized_window (800, 600);
  AdwLeaflet *leaflet;
  GtkWidget *canvas;
  SkProject *project;

  copy_example (f);
  project = open_and_wait (window, f->folder);
  sk_canvas_select_node (_sk_window_get_canvas (window), sk_project_get_node_by_key (project, "load_sales"));
  leaflet = ADW_LEAFLET (template_child (window, "cells_leaflet"));
  canvas = GTK_WIDGET (_sk_window_get_canvas (window));
  SK_TEST_WAIT_UNTIL (gtk_widget_get_height (canvas) > 0 && adw_leaflet_get_folded (leaflet), WAIT_MS);
  drain ();

  g_assert_true (gtk_widget_get_visible (template_child (window, "cells_switcher")));
  g_assert_true (adw_leaflet_get_visible_child (leaflet) == GTK_WIDGET (_sk_window_get_input_cell (window)));
  /* A button activated from the keyboard clicks after its press shows. */
  gtk_widget_activate (template_child (window, "code_toggle"));
  SK_TEST_WAIT_UNTIL (adw_leaflet_get_visible_child (leaflet) == GTK_WIDGET (_sk_window_get_code_cell (window)), WAIT_MS);
  g_assert_cmpint (gtk_widget_get_height (canvas), >=, gtk_widget_get_height (GTK_WIDGET (window)) / 3);

  destroy_window (window);
}

static void
test_layout_wide (Fixture       *f,
                  gconstpointer  data)
{
  SkWindow *window = sized_window (1280, 800);
  AdwLeaflet *leaflet;
  SkProject *project;

  copy_example (f);
  project = open_and_wait (window, f->folder);
  sk_canvas_select_node (_sk_window_get_canvas (window), sk_project_get_node_by_key (project, "load_sales"));
  leaflet = ADW_LEAFLET (template_child (window, "cells_leaflet"));
  SK_TEST_WAIT_UNTIL (gtk_widget_get_width (GTK_WIDGET (leaflet)) > 0, WAIT_MS);
  drain ();

  g_assert_false (adw_leaflet_get_folded (leaflet));
  g_assert_false (gtk_widget_get_visible (template_child (window, "cells_switcher")));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (_sk_window_get_code_cell (window))));

  destroy_window (window);
}

/* A step selected on the canvas, as by Find, is scrolled to in the list. */
static void
test_step_list_follows (Fixture       *f,
                        gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project = create_and_open (window, f, "long");
  GtkWidget *list = step_list_child (window, "list_view");
  GtkAdjustment *adjustment;
  SkNode *last = NULL;

  for (guint i = 1; i <= 120; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_autofree char *name = g_strdup_printf ("step %u", i);

      last = add_step (project, id, name);
    }
  drain ();
  adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (list));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, 0);

  sk_canvas_select_node (_sk_window_get_canvas (window), last);
  SK_TEST_WAIT_UNTIL (gtk_adjustment_get_value (adjustment) > 0, WAIT_MS);

  destroy_window (window);
}

/* The welcome page's icon comes with the program, so that it shows before
 * the icon is installed too. */
static void
test_start_icon (Fixture       *f,
                 gconstpointer  data)
{
  SkWindow *window = new_window ();
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gtk_widget_get_display (GTK_WIDGET (window)));

  g_assert_true (gtk_icon_theme_has_icon (theme, "io.github.skelecode.SkeleCode"));

  destroy_window (window);
}

/* Opening ---------------------------------------------------------------- */

static void
test_open_example (Fixture       *f,
                   gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project;
  const char *title;

  copy_example (f);

  g_assert_null (sk_window_get_project (window));
  g_assert_cmpstr (visible_page (window), ==, "start");
  g_assert_false (action_enabled (window, "save"));
  g_assert_false (action_enabled (window, "run"));

  project = open_and_wait (window, f->folder);

  g_assert_nonnull (project);
  g_assert_true (g_file_equal (sk_window_get_folder (window), f->folder));
  g_assert_true (sk_canvas_get_project (_sk_window_get_canvas (window)) == project);
  g_assert_true (sk_canvas_get_history (_sk_window_get_canvas (window)) == _sk_window_get_history (window));
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, EXAMPLE_N_STEPS);
  g_assert_cmpstr (sk_project_get_name (project), ==, "sales report");
  g_assert_false (sk_project_get_modified (project));

  /* Arranging on opening is not an edit. */
  g_assert_false (action_enabled (window, "undo"));
  g_assert_false (action_enabled (window, "redo"));
  g_assert_true (action_enabled (window, "save"));
  g_assert_true (action_enabled (window, "run"));
  g_assert_false (action_enabled (window, "stop"));

  title = gtk_window_get_title (GTK_WINDOW (window));
  sk_test_assert_contains (title, "sales report");
  g_assert_false (g_str_has_prefix (title, "•"));
  g_assert_cmpstr (adw_window_title_get_title (ADW_WINDOW_TITLE (template_child (window, "window_title"))),
                   ==, "sales report");

  destroy_window (window);
}

static void
test_open_malformed (Fixture       *f,
                     gconstpointer  data)
{
  static const char malformed[] = "{ nodes: ";
  SkWindow *window = new_window ();
  g_autofree char *after = NULL;
  const char *description;
  gsize length = 0;

  sk_test_write_text (f->dir, "process.json", malformed);

  sk_window_open (window, f->folder, FALSE);
  SK_TEST_WAIT_UNTIL (g_strcmp0 (visible_page (window), "error") == 0, WAIT_MS);

  g_assert_null (sk_window_get_project (window));
  description = adw_status_page_get_description (ADW_STATUS_PAGE (template_child (window, "error_page")));
  g_assert_nonnull (description);
  g_assert_cmpstr (description, !=, "");
  g_assert_false (action_enabled (window, "save"));
  g_assert_false (action_enabled (window, "run"));

  /* Nothing writes over the file the user has to repair. */
  drain ();
  destroy_window (window);
  {
    g_autofree char *path = g_build_filename (f->dir, "process.json", NULL);

    g_assert_true (g_file_get_contents (path, &after, &length, NULL));
  }
  g_assert_cmpuint (length, ==, strlen (malformed));
  g_assert_cmpmem (after, length, malformed, strlen (malformed));
  g_assert_false (recovery_exists (f->folder));
}

/* A workflow with a cycle and a missing prior still opens, and the user is
 * told about its first problem at once. */
static void
test_open_problems (Fixture       *f,
                    gconstpointer  data)
{
  SkWindow *window = new_window ();
  g_autoptr(GPtrArray) selected = NULL;
  GtkRevealer *revealer;
  GPtrArray *problems;
  SkProject *project;

  sk_test_write_text (f->dir, "process.json",
                      "{\"process_name\": \"loop\", \"nodes\": {"
                      "\"1\": {\"name\": \"a\", \"priors\": [\"2\"]},"
                      "\"2\": {\"name\": \"b\", \"priors\": [\"1\"]},"
                      "\"3\": {\"name\": \"c\", \"priors\": [\"9\"]}}}");

  project = open_and_wait (window, f->folder);
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
  g_assert_cmpstr (visible_page (window), ==, "workflow");

  /* The bar over the canvas counts the problems and lists each. */
  revealer = GTK_REVEALER (window->problems_revealer);
  g_assert_true (gtk_revealer_get_reveal_child (revealer));
  g_assert_cmpstr (gtk_label_get_label (window->problems_label), ==, "This workflow has 2 problems");
  problems = sk_problems_list_get_problems (window->problems_list);
  g_assert_cmpuint (sk_problems_count_errors (problems), ==, 2);

  /* Choosing the circle selects both of its steps. */
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (problem->kind == SK_PROBLEM_CYCLE)
        g_signal_emit_by_name (window->problems_list, "problem-activated", problem);
    }
  selected = sk_canvas_get_selected_nodes (_sk_window_get_canvas (window));
  g_assert_cmpuint (selected->len, ==, 2);
  g_assert_true (g_ptr_array_find (selected, sk_project_get_node (project, "1"), NULL));
  g_assert_true (g_ptr_array_find (selected, sk_project_get_node (project, "2"), NULL));

  /* A fix takes its problem away; the last one hides the bar. */
  sk_node_set_priors (sk_project_get_node (project, "3"), NULL);
  SK_TEST_WAIT_UNTIL (g_strcmp0 (gtk_label_get_label (window->problems_label), "This workflow has 1 problem") == 0, WAIT_MS);
  sk_node_set_priors (sk_project_get_node (project, "1"), NULL);
  SK_TEST_WAIT_UNTIL (!gtk_revealer_get_reveal_child (revealer), WAIT_MS);

  destroy_window (window);
}

/* Opening a folder the user already has writes nothing into it until a
 * workflow is made there. */
static void
test_open_empty_folder (Fixture       *f,
                        gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project;

  sk_window_open (window, f->folder, TRUE);
  project = sk_window_get_project (window);
  g_assert_nonnull (project);
  g_assert_cmpstr (visible_page (window), ==, "workflow");
  g_assert_false (sk_project_get_modified (project));
  drain ();
  g_assert_false (exists_in (f, "process.json"));

  add_step (project, "1", "load");
  flush_history (window);
  activate (window, "save");
  drain ();
  g_assert_true (exists_in (f, "process.json"));

  destroy_window (window);
}

static void
test_open_create (Fixture       *f,
                  gconstpointer  data)
{
  SkWindow *window = new_window ();
  g_autoptr(GFile) folder = g_file_get_child (f->folder, "quarterly figures");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  JsonObject *root;
  SkProject *project;

  g_assert_false (g_file_query_exists (folder, NULL));

  sk_window_open (window, folder, TRUE);

  project = sk_window_get_project (window);
  g_assert_nonnull (project);
  g_assert_cmpstr (visible_page (window), ==, "workflow");
  g_assert_true (g_file_equal (sk_window_get_folder (window), folder));
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 0);
  g_assert_false (sk_project_get_modified (project));
  sk_test_assert_contains (gtk_window_get_title (GTK_WINDOW (window)), "quarterly figures");

  path = g_build_filename (f->dir, "quarterly figures", "process.json", NULL);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "process_name"), ==, "quarterly figures");

  destroy_window (window);
}

/* Saving ----------------------------------------------------------------- */

static void
test_save (Fixture       *f,
           gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project = create_and_open (window, f, "flow");
  g_autoptr(GFile) folder = g_file_get_child (f->folder, "flow");
  g_autoptr(SkProject) saved = NULL;
  SkNode *node;
  SkNode *on_disk;

  _sk_canvas_click (_sk_window_get_canvas (window), 150, 120, GDK_BUTTON_PRIMARY, 0, 1);
  flush_history (window);

  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 1);
  node = sk_canvas_get_selected_node (_sk_window_get_canvas (window));
  g_assert_nonnull (node);
  g_assert_true (sk_project_get_modified (project));
  g_assert_true (g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (window)), "• "));

  /* Not on disk yet. */
  saved = load_from_disk (folder);
  g_assert_cmpuint (sk_project_get_n_nodes (saved), ==, 0);
  g_clear_object (&saved);

  activate (window, "save");

  g_assert_false (sk_project_get_modified (project));
  g_assert_cmpstr (_sk_window_get_last_toast (window), ==, "Saved");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "flow");

  saved = load_from_disk (folder);
  g_assert_cmpuint (sk_project_get_n_nodes (saved), ==, 1);
  on_disk = sk_project_get_node (saved, sk_node_get_id (node));
  g_assert_nonnull (on_disk);
  g_assert_cmpstr (sk_node_get_name (on_disk), ==, sk_node_get_name (node));
  g_assert_true (sk_node_get_run (on_disk));

  destroy_window (window);
}

/* Save As copies the steps' folders with the workflow, refuses a folder that
 * holds another workflow or lies inside this one, and the window then works
 * on the copy. */
static void
test_save_as (Fixture       *f,
              gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project;
  g_autofree char *copy_path = g_strconcat (f->dir, "-copy", NULL);
  g_autoptr(GFile) copy = g_file_new_for_path (copy_path);
  g_autoptr(GFile) inside = g_file_get_child (f->folder, "inside");
  g_autoptr(GFile) script = NULL;
  g_autoptr(SkProject) saved = NULL;

  copy_example (f);
  project = open_and_wait (window, f->folder);
  sk_project_set_name (project, "copied report");
  flush_history (window);

  _sk_window_save_as (window, inside);
  sk_test_assert_contains (_sk_window_get_last_toast (window), "inside its own folder");
  g_assert_false (g_file_query_exists (inside, NULL));
  g_assert_true (g_file_equal (sk_window_get_folder (window), f->folder));

  _sk_window_save_as (window, copy);
  g_assert_cmpstr (_sk_window_get_last_toast (window), ==, "Saved");
  g_assert_true (g_file_equal (sk_window_get_folder (window), copy));
  g_assert_false (sk_project_get_modified (project));

  script = g_file_new_build_filename (g_file_peek_path (copy), "revenue_chart", "revenue_chart.py", NULL);
  g_assert_true (g_file_query_exists (script, NULL));
  saved = load_from_disk (copy);
  g_assert_cmpstr (sk_project_get_name (saved), ==, "copied report");
  g_assert_cmpuint (sk_project_get_n_nodes (saved), ==, EXAMPLE_N_STEPS);

  /* The original keeps its saved name: the edit went to the copy. */
  g_clear_object (&saved);
  saved = load_from_disk (f->folder);
  g_assert_cmpstr (sk_project_get_name (saved), ==, "sales report");

  /* Saving as the original folder now would overwrite another workflow. */
  _sk_window_save_as (window, f->folder);
  sk_test_assert_contains (_sk_window_get_last_toast (window), "already holds a workflow");

  destroy_window (window);
  sk_test_remove_tree (copy_path);
}

/* Recovery --------------------------------------------------------------- */

static void
test_recovery_written (Fixture       *f,
                       gconstpointer  data)
{
  SkWindow *window = new_window ();
  g_autoptr(SkProject) recovered = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = recovery_path (f->folder);
  g_autofree char *contents = NULL;
  SkProject *project;

  copy_example (f);
  project = open_and_wait (window, f->folder);
  g_assert_false (recovery_exists (f->folder));

  sk_project_set_name (project, "sales report, edited");
  g_assert_true (sk_project_get_modified (project));
  g_assert_false (recovery_exists (f->folder));

  /* Written two seconds after the change. */
  SK_TEST_WAIT_UNTIL (recovery_exists (f->folder), WAIT_MS);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  recovered = sk_project_load_from_data (contents, -1, f->folder, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sk_project_get_name (recovered), ==, "sales report, edited");
  g_assert_cmpuint (sk_project_get_n_nodes (recovered), ==, EXAMPLE_N_STEPS);

  /* The workflow itself is still the saved one. */
  {
    g_autoptr(SkProject) on_disk = load_from_disk (f->folder);

    g_assert_cmpstr (sk_project_get_name (on_disk), ==, "sales report");
  }

  activate (window, "save");
  g_assert_false (recovery_exists (f->folder));
  {
    g_autoptr(SkProject) on_disk = load_from_disk (f->folder);

    g_assert_cmpstr (sk_project_get_name (on_disk), ==, "sales report, edited");
  }

  destroy_window (window);
}

/* Saves the example with the positions it gets on opening, as a workflow
 * that the user has saved before, then writes a recovery file for it that
 * names the workflow @name, as a crash would leave it.
 */
static void
prepare_crash (Fixture    *f,
               const char *name)
{
  SkWindow *window = new_window ();
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) recovery = sk_step_folder_get_recovery_file (f->folder);
  g_autoptr(GFile) parent = g_file_get_parent (recovery);
  g_autofree char *path = g_file_get_path (recovery);
  g_autofree char *contents = NULL;
  gsize length;

  copy_example (f);
  open_and_wait (window, f->folder);
  activate (window, "save");
  destroy_window (window);

  project = load_from_disk (f->folder);
  sk_project_set_name (project, name);
  contents = sk_project_to_data (project, &length);
  g_file_make_directory_with_parents (parent, NULL, NULL);
  g_file_set_contents (path, contents, length, &error);
  g_assert_no_error (error);
}

static AdwMessageDialog *
wait_for_recovery_dialog (SkWindow *window)
{
  AdwMessageDialog *dialog;

  SK_TEST_WAIT_UNTIL (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG) != NULL, WAIT_MS);
  dialog = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Recover Unsaved Changes?");
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (dialog)));
  g_assert_cmpuint (count_dialogs (window, ADW_TYPE_MESSAGE_DIALOG), ==, 1);

  return dialog;
}

static void
test_recovery_recover (Fixture       *f,
                       gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;

  prepare_crash (f, "sales report before the crash");

  window = new_window ();
  project = open_and_wait (window, f->folder);
  g_assert_cmpstr (sk_project_get_name (project), ==, "sales report");

  respond (wait_for_recovery_dialog (window), "_Recover");

  g_assert_cmpstr (sk_project_get_name (project), ==, "sales report before the crash");
  g_assert_true (sk_project_get_modified (project));
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, EXAMPLE_N_STEPS);
  sk_test_assert_contains (gtk_window_get_title (GTK_WINDOW (window)), "sales report before the crash");
  g_assert_true (action_enabled (window, "undo"));
  g_assert_cmpstr (sk_history_get_undo_label (_sk_window_get_history (window)), ==, "Recover Unsaved Changes");

  /* Until they are saved, the recovered changes stay recoverable. */
  g_assert_true (recovery_exists (f->folder));

  activate (window, "undo");
  drain ();
  g_assert_cmpstr (sk_project_get_name (project), ==, "sales report");

  destroy_window (window);
}

static void
test_recovery_discard (Fixture       *f,
                       gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;

  prepare_crash (f, "sales report before the crash");

  window = new_window ();
  project = open_and_wait (window, f->folder);
  g_assert_true (recovery_exists (f->folder));

  respond (wait_for_recovery_dialog (window), "_Discard");

  g_assert_false (recovery_exists (f->folder));
  g_assert_cmpstr (sk_project_get_name (project), ==, "sales report");
  g_assert_false (sk_project_get_modified (project));
  g_assert_false (action_enabled (window, "undo"));

  destroy_window (window);

  /* Nothing is offered the next time. */
  window = new_window ();
  open_and_wait (window, f->folder);
  drain ();
  g_assert_null (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  destroy_window (window);
}

/* Closing ---------------------------------------------------------------- */

static void
test_close_unsaved (Fixture       *f,
                    gconstpointer  data)
{
  SkWindow *window = new_window ();
  AdwMessageDialog *dialog;
  SkProject *project;

  copy_example (f);
  project = open_and_wait (window, f->folder);
  sk_project_set_name (project, "never saved");
  SK_TEST_WAIT_UNTIL (recovery_exists (f->folder), WAIT_MS);

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);

  /* Cancel keeps everything as it was. */
  gtk_window_close (GTK_WINDOW (window));
  drain ();
  g_assert_nonnull (window);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  dialog = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Save Changes?");
  sk_test_assert_contains (adw_message_dialog_get_body (dialog), "never saved");
  respond (dialog, "_Cancel");
  drain ();
  g_assert_nonnull (window);
  g_assert_true (sk_project_get_modified (project));
  g_assert_true (recovery_exists (f->folder));

  /* Discard closes without saving, and the changes are gone for good. */
  gtk_window_close (GTK_WINDOW (window));
  drain ();
  g_assert_nonnull (window);
  dialog = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  g_assert_cmpuint (count_dialogs (window, ADW_TYPE_MESSAGE_DIALOG), ==, 1);
  respond (dialog, "_Discard");
  SK_TEST_WAIT_UNTIL (window == NULL, WAIT_MS);

  g_assert_false (recovery_exists (f->folder));
  {
    g_autoptr(SkProject) on_disk = load_from_disk (f->folder);

    g_assert_cmpstr (sk_project_get_name (on_disk), ==, "sales report");
  }
}

static void
test_close_save (Fixture       *f,
                 gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project;

  copy_example (f);
  project = open_and_wait (window, f->folder);
  sk_project_set_name (project, "saved on closing");

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_close (GTK_WINDOW (window));
  drain ();
  respond (ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG)), "_Save");
  SK_TEST_WAIT_UNTIL (window == NULL, WAIT_MS);

  g_assert_false (recovery_exists (f->folder));
  {
    g_autoptr(SkProject) on_disk = load_from_disk (f->folder);

    g_assert_cmpstr (sk_project_get_name (on_disk), ==, "saved on closing");
  }
}

static void
test_close_saved (Fixture       *f,
                  gconstpointer  data)
{
  SkWindow *window = new_window ();

  copy_example (f);
  open_and_wait (window, f->folder);

  /* Nothing to ask about. */
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_close (GTK_WINDOW (window));
  SK_TEST_WAIT_UNTIL (window == NULL, WAIT_MS);
}

int
main (int   argc,
      char *argv[])
{
  if (!sk_test_window_init (&argc, &argv))
    return 0;

  SK_TEST_WINDOW_ADD ("layout/narrow", test_layout_narrow);
  SK_TEST_WINDOW_ADD ("layout/wide", test_layout_wide);
  SK_TEST_WINDOW_ADD ("start/icon", test_start_icon);
  SK_TEST_WINDOW_ADD ("step-list/follows-selection", test_step_list_follows);
  SK_TEST_WINDOW_ADD ("open/example", test_open_example);
  SK_TEST_WINDOW_ADD ("open/malformed", test_open_malformed);
  SK_TEST_WINDOW_ADD ("open/problems", test_open_problems);
  SK_TEST_WINDOW_ADD ("open/create", test_open_create);
  SK_TEST_WINDOW_ADD ("open/empty-folder", test_open_empty_folder);
  SK_TEST_WINDOW_ADD ("save", test_save);
  SK_TEST_WINDOW_ADD ("save-as", test_save_as);
  SK_TEST_WINDOW_ADD ("recovery/written", test_recovery_written);
  SK_TEST_WINDOW_ADD ("recovery/recover", test_recovery_recover);
  SK_TEST_WINDOW_ADD ("recovery/discard", test_recovery_discard);
  SK_TEST_WINDOW_ADD ("close/unsaved", test_close_unsaved);
  SK_TEST_WINDOW_ADD ("close/save", test_close_save);
  SK_TEST_WINDOW_ADD ("close/saved", test_close_saved);

  return sk_test_window_run ();
}
