/* test-input-cell.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input cell, driven the way the user drives it and checked against
 * the model and the files on disk.
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "sk-history.h"
#include "sk-input-cell.h"
#include "sk-test-cells.h"

#define WAIT_MSEC 5000

static int
cursor_offset (GtkTextBuffer *buffer)
{
  GtkTextIter iter;

  gtk_text_buffer_get_iter_at_mark (buffer, &iter, gtk_text_buffer_get_insert (buffer));
  return gtk_text_iter_get_offset (&iter);
}

static GtkWidget *
find_descendant (GtkWidget *widget,
                 GType      type)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type))
        return child;

      found = find_descendant (child, type);
      if (found != NULL)
        return found;
    }

  return NULL;
}

static void
assert_files (SkNode             *node,
              const char * const *expected)
{
  const char * const *files = sk_node_get_input_files (node);

  g_assert_cmpuint (g_strv_length ((char **) files), ==, g_strv_length ((char **) expected));
  for (guint i = 0; expected[i] != NULL; i++)
    g_assert_cmpstr (files[i], ==, expected[i]);
}

static void
test_input_text (Fixture       *fixture,
                 gconstpointer  data)
{
  GtkWidget *cell = sk_input_cell_new ();
  GtkWidget *window;
  GtkWidget *view;
  GtkWidget *hint;
  GtkTextBuffer *buffer;
  g_autofree char *text = NULL;
  guint notifies = 0;

  sk_cell_set_project (SK_CELL (cell), fixture->project);
  window = present (cell);

  g_assert_cmpstr (page (cell, "stack"), ==, "empty");

  sk_cell_set_node (SK_CELL (cell), fixture->a);
  g_assert_true (sk_cell_get_node (SK_CELL (cell)) == fixture->a);
  g_assert_cmpstr (page (cell, "stack"), ==, "node");

  view = child (cell, "text_view");
  hint = child (cell, "hint_label");
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  g_assert_true (gtk_widget_get_visible (hint));

  g_signal_connect_swapped (fixture->a, "notify::input-text", G_CALLBACK (count_cb), &notifies);

  /* Typing changes the model once per edit. */
  gtk_text_buffer_insert_at_cursor (buffer, "Sum the sales", -1);
  g_assert_cmpstr (sk_node_get_input_text (fixture->a), ==, "Sum the sales");
  g_assert_cmpuint (notifies, ==, 1);
  g_assert_false (gtk_widget_get_visible (hint));

  /* A change from elsewhere shows at once, is not echoed back, and keeps
   * the cursor where it was. */
  sk_node_set_input_text (fixture->a, "Sum the sales by month");
  g_assert_cmpuint (notifies, ==, 2);
  text = buffer_text (buffer);
  g_assert_cmpstr (text, ==, "Sum the sales by month");
  g_assert_cmpint (cursor_offset (buffer), ==, 13);
  g_clear_pointer (&text, g_free);

  /* A shorter text puts the cursor at its end. */
  sk_node_set_input_text (fixture->a, "Sum");
  g_assert_cmpint (cursor_offset (buffer), ==, 3);
  sk_node_set_input_text (fixture->a, "Sum the sales by month");

  /* Switching the node rebinds: edits go to the new node only. */
  sk_node_set_input_text (fixture->b, "Draw a chart");
  sk_cell_set_node (SK_CELL (cell), fixture->b);
  text = buffer_text (buffer);
  g_assert_cmpstr (text, ==, "Draw a chart");
  g_clear_pointer (&text, g_free);
  gtk_text_buffer_insert_at_cursor (buffer, " of the totals", -1);
  g_assert_cmpstr (sk_node_get_input_text (fixture->b), ==, "Draw a chart of the totals");
  g_assert_cmpstr (sk_node_get_input_text (fixture->a), ==, "Sum the sales by month");

  /* The old node no longer reaches the cell. */
  sk_node_set_input_text (fixture->a, "Changed elsewhere");
  text = buffer_text (buffer);
  g_assert_cmpstr (text, ==, "Draw a chart of the totals");
  g_clear_pointer (&text, g_free);

  /* Emptying the task brings back the hint. */
  gtk_text_buffer_set_text (buffer, "", -1);
  g_assert_cmpstr (sk_node_get_input_text (fixture->b), ==, "");
  g_assert_true (gtk_widget_get_visible (hint));

  sk_input_cell_focus_task (SK_INPUT_CELL (cell));
  g_assert_true (gtk_widget_is_focus (view));

  sk_cell_set_node (SK_CELL (cell), NULL);
  g_assert_cmpstr (page (cell, "stack"), ==, "empty");
  sk_node_set_input_text (fixture->b, "still fine");

  g_signal_handlers_disconnect_by_data (fixture->a, &notifies);
  dismiss (window, cell);
}

static void
attach_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static gboolean
attach (GtkWidget  *cell,
        const char *path,
        GError    **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GAsyncResult) result = NULL;

  sk_input_cell_attach_files_async (SK_INPUT_CELL (cell), &file, 1, NULL, attach_done_cb, &result);
  SK_TEST_WAIT_UNTIL (result != NULL, WAIT_MSEC);

  return sk_input_cell_attach_files_finish (SK_INPUT_CELL (cell), result, error);
}

static void
test_input_attach (Fixture       *fixture,
                   gconstpointer  data)
{
  GtkWidget *cell = sk_input_cell_new ();
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *source = NULL;
  g_autofree char *other_dir = NULL;
  g_autofree char *other = NULL;
  g_autofree char *missing = NULL;
  g_autofree char *copied = NULL;
  g_autofree char *copied2 = NULL;
  g_autofree char *inside = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *key_folder = NULL;
  GtkWidget *window;
  GtkListBox *list;
  GtkListBoxRow *row;
  GtkWidget *button;

  sk_cell_set_project (SK_CELL (cell), fixture->project);
  sk_cell_set_node (SK_CELL (cell), fixture->a);
  g_signal_connect (cell, "message", G_CALLBACK (message_cb), messages);
  window = present (cell);
  list = child (cell, "files_list");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (list)));

  /* The node's folder does not exist yet: attaching creates it. */
  sk_test_write_text (fixture->outside, "sales.csv", "month,total\njan,12\n");
  source = g_build_filename (fixture->outside, "sales.csv", NULL);
  g_assert_true (attach (cell, source, &error));
  g_assert_no_error (error);

  copied = node_path (fixture, fixture->a, "sales.csv");
  g_assert_true (g_file_get_contents (copied, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "month,total\njan,12\n");
  g_clear_pointer (&contents, g_free);
  assert_files (fixture->a, SK_TEST_STRV ("sales.csv"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (list)));
  g_assert_nonnull (gtk_list_box_get_row_at_index (list, 0));
  g_assert_null (gtk_list_box_get_row_at_index (list, 1));

  /* The same file again is attached once. */
  g_assert_true (attach (cell, source, &error));
  assert_files (fixture->a, SK_TEST_STRV ("sales.csv"));
  key_folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->a), NULL);
  g_assert_false (sk_test_exists (key_folder, "sales (2).csv"));

  /* A different file with the same name gets a new name. */
  other_dir = g_build_filename (fixture->outside, "other", NULL);
  g_assert_cmpint (g_mkdir (other_dir, 0700), ==, 0);
  sk_test_write_text (other_dir, "sales.csv", "month,total\nfeb,30\n");
  other = g_build_filename (other_dir, "sales.csv", NULL);
  g_assert_true (attach (cell, other, &error));
  g_assert_no_error (error);
  copied2 = node_path (fixture, fixture->a, "sales (2).csv");
  g_assert_true (g_file_get_contents (copied2, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "month,total\nfeb,30\n");
  g_clear_pointer (&contents, g_free);
  assert_files (fixture->a, SK_TEST_STRV ("sales.csv", "sales (2).csv"));

  /* A file already in the node's folder is only referenced. */
  sk_test_write_text (key_folder, "notes.txt", "remember\n");
  inside = node_path (fixture, fixture->a, "notes.txt");
  g_assert_true (attach (cell, inside, &error));
  g_assert_no_error (error);
  g_assert_false (sk_test_exists (key_folder, "notes (2).txt"));
  assert_files (fixture->a, SK_TEST_STRV ("sales.csv", "sales (2).csv", "notes.txt"));
  g_assert_cmpuint (messages->len, ==, 0);

  /* A file that cannot be read is reported in a sentence and changes
   * nothing. */
  missing = g_build_filename (fixture->outside, "gone.csv", NULL);
  g_assert_false (attach (cell, missing, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_cmpuint (messages->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (messages, 0), "gone.csv"));
  assert_files (fixture->a, SK_TEST_STRV ("sales.csv", "sales (2).csv", "notes.txt"));

  /* A folder is not attached either. */
  g_assert_false (attach (cell, other_dir, &error));
  g_clear_error (&error);
  g_assert_cmpuint (messages->len, ==, 2);

  /* The row's remove button detaches the file and leaves it on disk. */
  row = gtk_list_box_get_row_at_index (list, 0);
  g_assert_nonnull (row);
  button = find_descendant (GTK_WIDGET (row), GTK_TYPE_BUTTON);
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  assert_files (fixture->a, SK_TEST_STRV ("sales (2).csv", "notes.txt"));
  g_assert_true (g_file_test (copied, G_FILE_TEST_EXISTS));
  g_assert_null (gtk_list_box_get_row_at_index (list, 2));

  /* A change from elsewhere shows in the list. */
  sk_node_set_input_files (fixture->a, NULL);
  g_assert_null (gtk_list_box_get_row_at_index (list, 0));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (list)));

  /* Without a node nothing can be attached. */
  sk_cell_set_node (SK_CELL (cell), NULL);
  g_assert_false (attach (cell, source, &error));
  g_clear_error (&error);

  dismiss (window, cell);
}

static void
test_input_attach_history (Fixture       *fixture,
                           gconstpointer  data)
{
  GtkWidget *cell = sk_input_cell_new ();
  g_autoptr(SkHistory) history = sk_history_new (fixture->project);
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) first = NULL;
  g_autoptr(GFile) second = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  GFile *files[2];
  GtkWidget *window;

  sk_test_write_text (fixture->outside, "a.txt", "a\n");
  sk_test_write_text (fixture->outside, "b.txt", "b\n");
  first = g_file_new_build_filename (fixture->outside, "a.txt", NULL);
  second = g_file_new_build_filename (fixture->outside, "b.txt", NULL);
  files[0] = first;
  files[1] = second;

  g_object_set (cell,
                "project", fixture->project,
                "node", fixture->b,
                "history", history,
                NULL);
  g_assert_true (sk_input_cell_get_history (SK_INPUT_CELL (cell)) == history);
  window = present (cell);

  sk_input_cell_attach_files_async (SK_INPUT_CELL (cell), files, 2, NULL, attach_done_cb, &result);
  SK_TEST_WAIT_UNTIL (result != NULL, WAIT_MSEC);
  g_assert_true (sk_input_cell_attach_files_finish (SK_INPUT_CELL (cell), result, &error));
  g_assert_no_error (error);
  assert_files (fixture->b, SK_TEST_STRV ("a.txt", "b.txt"));

  /* Two files, one undo step. */
  g_assert_true (sk_history_get_can_undo (history));
  g_assert_true (sk_history_undo (history));
  assert_files (fixture->b, (const char * const[]) { NULL });
  g_assert_false (sk_history_get_can_undo (history));
  g_assert_true (sk_history_redo (history));
  assert_files (fixture->b, SK_TEST_STRV ("a.txt", "b.txt"));

  /* The result holds the cell. */
  g_clear_object (&result);
  dismiss (window, cell);
}

/* The step's access beyond the sandbox: shown, changed from the cell as
 * one undo step each, and written into the step's "skele" member. */
static void
test_input_permissions (Fixture       *fixture,
                        gconstpointer  data)
{
  GtkWidget *cell = sk_input_cell_new ();
  g_autoptr(SkHistory) history = sk_history_new (fixture->project);
  g_autoptr(JsonObject) saved = NULL;
  g_auto(GStrv) reads = NULL;
  GtkSwitch *network_switch;
  AdwExpanderRow *access_row;
  GtkWidget *window;
  JsonObject *skele;

  g_object_set (cell,
                "project", fixture->project,
                "node", fixture->b,
                "history", history,
                NULL);
  window = present (cell);
  network_switch = child (cell, "network_switch");
  access_row = child (cell, "access_row");

  g_assert_false (gtk_switch_get_active (network_switch));
  g_assert_cmpstr (adw_expander_row_get_subtitle (access_row), ==, "Only this workflow, no network");

  gtk_switch_set_active (network_switch, TRUE);
  g_assert_true (sk_node_get_network (fixture->b));
  g_assert_cmpstr (adw_expander_row_get_subtitle (access_row), ==, "This workflow and the network");
  saved = sk_node_to_json (fixture->b);
  skele = json_object_get_object_member (saved, "skele");
  g_assert_true (json_object_get_boolean_member (skele, "network"));

  /* A folder granted from elsewhere (the JSON editor, a file) shows. */
  sk_node_set_permissions (fixture->b, TRUE, SK_TEST_STRV ("/srv/data"));
  g_assert_cmpstr (adw_expander_row_get_subtitle (access_row), ==,
                   "This workflow, 1 more folder and the network");

  /* Each change is undone on its own. */
  g_assert_true (sk_history_undo (history));
  reads = sk_node_get_read_paths (fixture->b);
  g_assert_cmpuint (g_strv_length (reads), ==, 0);
  g_assert_true (sk_node_get_network (fixture->b));
  g_assert_true (sk_history_undo (history));
  g_assert_false (sk_node_get_network (fixture->b));
  g_assert_false (gtk_switch_get_active (network_switch));
  g_assert_true (sk_history_redo (history));
  g_assert_true (gtk_switch_get_active (network_switch));

  /* The workflow's own permission covers every step, and is changed in
   * the workflow's settings, not here. */
  dismiss (window, cell);
}

/* Escape in the task gives the canvas the keyboard. */
static void
test_input_escape (Fixture       *fixture,
                   gconstpointer  data)
{
  GtkWidget *cell = sk_input_cell_new ();
  GtkWidget *window;
  GtkWidget *view;
  guint to_canvas = 0;

  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  add_focus_canvas_action (window, &to_canvas);
  view = child (cell, "text_view");

  gtk_widget_grab_focus (view);
  type_text (GTK_TEXT_VIEW (view), "Sum");
  g_assert_true (send_key (window, GDK_KEY_Escape, 0));
  g_assert_cmpuint (to_canvas, ==, 1);
  g_assert_cmpstr (sk_node_get_input_text (fixture->a), ==, "Sum");

  /* Escape with a modifier is not for the cell. */
  g_assert_false (send_key (window, GDK_KEY_Escape, GDK_CONTROL_MASK));
  g_assert_cmpuint (to_canvas, ==, 1);

  dismiss (window, cell);
}

static SkNode *
add_new_step (Fixture *fixture)
{
  g_autofree char *id = sk_project_next_node_id (fixture->project);
  g_autofree char *name = sk_project_unique_name (fixture->project, "step");
  g_autoptr(SkNode) node = sk_node_new (id, name);
  g_autoptr(GError) error = NULL;

  sk_project_add_node (fixture->project, node, &error);
  g_assert_no_error (error);

  return node;
}

/* A new step is named from its task when the task is committed, until
 * the user names it. */
static void
test_input_name_from_task (Fixture       *fixture,
                           gconstpointer  data)
{
  GtkWidget *cell = sk_input_cell_new ();
  g_autoptr(SkHistory) history = NULL;
  SkNode *node;
  SkNode *second;
  GtkTextBuffer *buffer;
  GtkWidget *window;
  GtkWidget *view;
  GtkWidget *elsewhere;
  guint renamed = 0;

  node = add_new_step (fixture);
  second = add_new_step (fixture);
  g_assert_cmpstr (sk_node_get_name (node), ==, "step");
  g_assert_cmpstr (sk_node_get_name (second), ==, "step 2");
  history = sk_history_new (fixture->project);

  g_signal_connect_swapped (node, "notify::name", G_CALLBACK (count_cb), &renamed);
  g_object_set (cell, "project", fixture->project, "node", node, "history", history, NULL);
  window = present (cell);
  view = child (cell, "text_view");
  elsewhere = child (cell, "attach_button");
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));

  /* Typing does not rename the step, key after key. */
  gtk_widget_grab_focus (view);
  type_text (GTK_TEXT_VIEW (view), "Load the monthly sales figures from the CSV files.\nThen more.");
  g_assert_cmpuint (renamed, ==, 0);

  /* Leaving the task does, with its first words. */
  gtk_widget_grab_focus (elsewhere);
  g_assert_cmpstr (sk_node_get_name (node), ==, "Load the monthly sales figures");
  g_assert_cmpstr (sk_node_get_key (node), ==, "load_the_monthly_sales_figures");
  g_assert_cmpuint (renamed, ==, 1);

  /* A name it got from its task follows the task. */
  gtk_widget_grab_focus (view);
  gtk_text_buffer_set_text (buffer, "  \n Sum sales by region...", -1);
  gtk_widget_grab_focus (elsewhere);
  g_assert_cmpstr (sk_node_get_name (node), ==, "Sum sales by region");

  /* Undo takes the name back and leaves the task; the name stays undone. */
  g_assert_true (sk_history_undo (history));
  g_assert_cmpstr (sk_node_get_name (node), ==, "Load the monthly sales figures");
  g_assert_cmpstr (sk_node_get_input_text (node), ==, "  \n Sum sales by region...");
  gtk_widget_grab_focus (view);
  gtk_widget_grab_focus (elsewhere);
  g_assert_cmpstr (sk_node_get_name (node), ==, "Load the monthly sales figures");

  /* A name the user gave stays. */
  sk_node_set_name (node, "Regional totals");
  gtk_widget_grab_focus (view);
  type_text (GTK_TEXT_VIEW (view), " Quickly.");
  gtk_widget_grab_focus (elsewhere);
  g_assert_cmpstr (sk_node_get_name (node), ==, "Regional totals");

  /* Another step's name is not taken; a long word is cut. Switching steps
   * commits the task too. */
  sk_cell_set_node (SK_CELL (cell), second);
  gtk_widget_grab_focus (view);
  type_text (GTK_TEXT_VIEW (view), "Load sales!");
  sk_cell_set_node (SK_CELL (cell), fixture->a);
  g_assert_cmpstr (sk_node_get_name (second), ==, "Load sales 2");
  sk_cell_set_node (SK_CELL (cell), second);
  gtk_widget_grab_focus (view);
  gtk_text_buffer_set_text (buffer, "Supercalifragilisticexpialidocious-and-more things", -1);
  gtk_widget_grab_focus (elsewhere);
  g_assert_cmpstr (sk_node_get_name (second), ==, "Supercalifragilisticexpialidocio");

  g_signal_handlers_disconnect_by_data (node, &renamed);
  dismiss (window, cell);
}

int
main (int   argc,
      char *argv[])
{
  if (!sk_test_cells_init (&argc, &argv))
    return 0;

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("/cells/input/text", test_input_text);
  ADD ("/cells/input/attach", test_input_attach);
  ADD ("/cells/input/attach-history", test_input_attach_history);
  ADD ("/cells/input/permissions", test_input_permissions);
  ADD ("/cells/input/escape", test_input_escape);
  ADD ("/cells/input/name-from-task", test_input_name_from_task);

#undef ADD

  return g_test_run ();
}
