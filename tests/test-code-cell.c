/* test-code-cell.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The code cell, driven the way the user drives it and checked against
 * the files on disk.
 */

#include "config.h"

#include <string.h>
#include <utime.h>

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>

#include "sk-code-cell-private.h"
#include "sk-step-folder.h"
#include "sk-test-cells.h"

#define WAIT_MSEC 5000

static void
saved_cb (SkCodeCell *cell,
          GFile      *file,
          GPtrArray  *saved)
{
  g_ptr_array_add (saved, g_file_get_path (file));
}

static GtkTextBuffer *
code_buffer (GtkWidget *cell)
{
  return gtk_text_view_get_buffer (child (cell, "view"));
}

/* What the user's typing does to the buffer: an insertion inside a user
 * action. Changes made outside one are not the user's and not saved. */
static void
user_insert (GtkTextBuffer *buffer,
             GtkTextIter   *iter,
             const char    *text)
{
  gtk_text_buffer_begin_user_action (buffer);
  if (iter != NULL)
    gtk_text_buffer_insert (buffer, iter, text, -1);
  else
    gtk_text_buffer_insert_at_cursor (buffer, text, -1);
  gtk_text_buffer_end_user_action (buffer);
}

static void
test_code_edit (Fixture       *fixture,
                gconstpointer  data)
{
  GtkWidget *cell = sk_code_cell_new ();
  g_autofree char *folder_a = g_build_filename (fixture->dir, sk_node_get_key (fixture->a), NULL);
  g_autofree char *script_a = NULL;
  g_autofree char *script_b = NULL;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GPtrArray) saved = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func (g_free);
  GtkSourceBuffer *buffer;
  GtkWidget *window;
  GtkWidget *placeholder;
  GtkTextIter end;
  gint64 start;
  guint loaded = 0;

  g_assert_cmpint (g_mkdir (folder_a, 0700), ==, 0);
  sk_test_write_text (folder_a, "load_sales.py", "state = {}\n\ndef compute():\n    pass\n");
  script_a = node_path (fixture, fixture->a, "load_sales.py");
  script_b = node_path (fixture, fixture->b, "make_chart.py");

  g_signal_connect_swapped (cell, "loaded", G_CALLBACK (count_cb), &loaded);
  g_signal_connect (cell, "saved", G_CALLBACK (saved_cb), saved);
  g_signal_connect (cell, "message", G_CALLBACK (message_cb), messages);
  g_object_set (cell, "project", fixture->project, NULL);
  window = present (cell);
  placeholder = child (cell, "placeholder_label");
  g_assert_cmpstr (page (cell, "stack"), ==, "empty");

  /* The script is loaded, highlighted as Python, and named in the heading. */
  sk_cell_set_node (SK_CELL (cell), fixture->a);
  SK_TEST_WAIT_UNTIL (loaded == 1, WAIT_MSEC);
  buffer = GTK_SOURCE_BUFFER (code_buffer (cell));
  text = buffer_text (GTK_TEXT_BUFFER (buffer));
  g_assert_cmpstr (text, ==, "state = {}\n\ndef compute():\n    pass");
  g_clear_pointer (&text, g_free);
  g_assert_cmpstr (gtk_source_language_get_id (gtk_source_buffer_get_language (buffer)),
                   ==, "python3");
  g_assert_nonnull (gtk_source_buffer_get_style_scheme (buffer));
  g_assert_cmpstr (label (cell, "file_label"), ==, "load_sales.py");
  g_assert_true (sk_code_cell_get_has_script (SK_CODE_CELL (cell)));
  g_assert_true (gtk_widget_get_sensitive (child (cell, "clear_button")));
  g_assert_false (gtk_widget_get_visible (placeholder));
  g_assert_false (sk_code_cell_get_modified (SK_CODE_CELL (cell)));
  path = g_file_get_path (sk_code_cell_get_file (SK_CODE_CELL (cell)));
  g_assert_cmpstr (path, ==, script_a);

  /* An edit is written after a short pause, not at once. */
  start = g_get_monotonic_time ();
  gtk_text_buffer_get_end_iter (GTK_TEXT_BUFFER (buffer), &end);
  user_insert (GTK_TEXT_BUFFER (buffer), &end, "\n\nprint ('done')");
  g_assert_true (sk_code_cell_get_modified (SK_CODE_CELL (cell)));
  g_assert_true (g_file_get_contents (script_a, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "state = {}\n\ndef compute():\n    pass\n");
  g_clear_pointer (&contents, g_free);
  SK_TEST_WAIT_UNTIL (saved->len == 1, WAIT_MSEC);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 900 * 1000);
  g_assert_cmpstr (g_ptr_array_index (saved, 0), ==, script_a);
  g_assert_true (g_file_get_contents (script_a, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "state = {}\n\ndef compute():\n    pass\n\nprint ('done')\n");
  g_clear_pointer (&contents, g_free);
  g_assert_false (sk_code_cell_get_modified (SK_CODE_CELL (cell)));

  /* Switching steps saves at once, and a step without code shows the
   * placeholder. */
  gtk_text_buffer_get_end_iter (GTK_TEXT_BUFFER (buffer), &end);
  user_insert (GTK_TEXT_BUFFER (buffer), &end, "\n# switched");
  start = g_get_monotonic_time ();
  loaded = 0;
  sk_cell_set_node (SK_CELL (cell), fixture->b);
  SK_TEST_WAIT_UNTIL (saved->len == 2 && loaded == 1, WAIT_MSEC);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 900 * 1000);
  g_assert_cmpstr (g_ptr_array_index (saved, 1), ==, script_a);
  g_assert_true (g_file_get_contents (script_a, &contents, NULL, NULL));
  g_assert_true (g_str_has_suffix (contents, "print ('done')\n# switched\n"));
  g_clear_pointer (&contents, g_free);

  g_assert_false (sk_code_cell_get_has_script (SK_CODE_CELL (cell)));
  g_assert_true (gtk_widget_get_visible (placeholder));
  g_assert_false (gtk_widget_get_sensitive (child (cell, "clear_button")));
  g_assert_cmpstr (label (cell, "file_label"), ==, "make_chart.py");
  g_assert_false (g_file_test (script_b, G_FILE_TEST_EXISTS));

  /* Writing code by hand creates the script and its folder. */
  buffer = GTK_SOURCE_BUFFER (code_buffer (cell));
  user_insert (GTK_TEXT_BUFFER (buffer), NULL, "state = {}");
  g_assert_false (gtk_widget_get_visible (placeholder));
  sk_code_cell_save (SK_CODE_CELL (cell));
  SK_TEST_WAIT_UNTIL (saved->len == 3, WAIT_MSEC);
  g_assert_cmpstr (g_ptr_array_index (saved, 2), ==, script_b);
  g_assert_true (g_file_get_contents (script_b, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "state = {}\n");
  g_clear_pointer (&contents, g_free);
  g_assert_true (sk_code_cell_get_has_script (SK_CODE_CELL (cell)));

  /* Going back shows what was saved. */
  loaded = 0;
  sk_cell_set_node (SK_CELL (cell), fixture->a);
  SK_TEST_WAIT_UNTIL (loaded == 1, WAIT_MSEC);
  text = buffer_text (code_buffer (cell));
  g_assert_true (g_str_has_suffix (text, "print ('done')\n# switched"));
  g_clear_pointer (&text, g_free);

  /* An edit pending when the cell goes away is saved all the same. */
  user_insert (code_buffer (cell), NULL, "# last words\n");
  gtk_window_destroy (GTK_WINDOW (window));
  SK_TEST_WAIT_UNTIL (saved->len == 4, WAIT_MSEC);
  g_assert_true (g_file_get_contents (script_a, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (contents, "# last words\n"));
  g_clear_pointer (&contents, g_free);

  g_assert_cmpuint (messages->len, ==, 0);
  g_assert_finalize_object (cell);
}

static void
test_code_reload (Fixture       *fixture,
                  gconstpointer  data)
{
  GtkWidget *cell = sk_code_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->b), NULL);
  g_autofree char *script = NULL;
  g_autofree char *text = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GPtrArray) saved = g_ptr_array_new_with_free_func (g_free);
  GtkWidget *window;
  guint loaded = 0;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  sk_test_write_text (folder, "make_chart.py", "print (1)\n");
  script = g_build_filename (folder, "make_chart.py", NULL);

  g_signal_connect_swapped (cell, "loaded", G_CALLBACK (count_cb), &loaded);
  g_signal_connect (cell, "saved", G_CALLBACK (saved_cb), saved);
  g_object_set (cell, "project", fixture->project, "node", fixture->b, NULL);
  window = present (cell);
  SK_TEST_WAIT_UNTIL (loaded == 1, WAIT_MSEC);

  /* The coding agent (or another editor) rewrites the script. */
  sk_test_write_text (folder, "make_chart.py", "print (2)\n");
  SK_TEST_WAIT_UNTIL (loaded == 2, WAIT_MSEC);
  text = buffer_text (code_buffer (cell));
  g_assert_cmpstr (text, ==, "print (2)");
  g_clear_pointer (&text, g_free);

  /* The script disappears: the placeholder comes back. */
  g_assert_cmpint (g_unlink (script), ==, 0);
  SK_TEST_WAIT_UNTIL (loaded == 3, WAIT_MSEC);
  g_assert_false (sk_code_cell_get_has_script (SK_CODE_CELL (cell)));
  g_assert_true (shown (cell, "placeholder_label"));

  sk_test_write_text (folder, "make_chart.py", "print (3)\n");
  SK_TEST_WAIT_UNTIL (loaded == 4, WAIT_MSEC);
  g_assert_true (sk_code_cell_get_has_script (SK_CODE_CELL (cell)));

  /* Unsaved edits are not replaced by the file; they are saved over it. */
  user_insert (code_buffer (cell), NULL, "# mine\n");
  sk_test_write_text (folder, "make_chart.py", "print (4)\n");
  SK_TEST_WAIT_UNTIL (saved->len == 1, WAIT_MSEC);
  g_assert_true (g_file_get_contents (script, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "# mine\nprint (3)\n");
  g_clear_pointer (&contents, g_free);
  text = buffer_text (code_buffer (cell));
  g_assert_cmpstr (text, ==, "# mine\nprint (3)");
  g_clear_pointer (&text, g_free);
  g_assert_cmpuint (loaded, ==, 4);

  dismiss (window, cell);
}

static void
test_code_clear (Fixture       *fixture,
                 gconstpointer  data)
{
  GtkWidget *cell = sk_code_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->a), NULL);
  g_autofree char *script = NULL;
  g_autofree char *text = NULL;
  GtkWidget *window;
  guint loaded = 0;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  sk_test_write_text (folder, "load_sales.py", "print ('old')\n");
  script = g_build_filename (folder, "load_sales.py", NULL);

  g_signal_connect_swapped (cell, "loaded", G_CALLBACK (count_cb), &loaded);
  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  SK_TEST_WAIT_UNTIL (loaded == 1, WAIT_MSEC);
  g_assert_true (sk_code_cell_get_has_script (SK_CODE_CELL (cell)));

  /* Clearing drops unsaved edits with the file. */
  user_insert (code_buffer (cell), NULL, "# edit\n");
  _sk_code_cell_clear_code (SK_CODE_CELL (cell));
  SK_TEST_WAIT_UNTIL (loaded == 2, WAIT_MSEC);
  g_assert_false (g_file_test (script, G_FILE_TEST_EXISTS));
  text = buffer_text (code_buffer (cell));
  g_assert_cmpstr (text, ==, "");
  g_assert_false (sk_code_cell_get_has_script (SK_CODE_CELL (cell)));
  g_assert_false (sk_code_cell_get_modified (SK_CODE_CELL (cell)));
  g_assert_true (shown (cell, "placeholder_label"));
  g_assert_false (gtk_widget_get_sensitive (child (cell, "clear_button")));

  /* Nothing brings it back later. */
  g_usleep (G_USEC_PER_SEC / 10);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_false (g_file_test (script, G_FILE_TEST_EXISTS));

  dismiss (window, cell);
}

static void
put_aside_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  guint *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (_sk_code_cell_put_aside_finish (SK_CODE_CELL (object), result, &error));
  g_assert_no_error (error);
  (*done)++;
}

/* "Clear and Regenerate" puts the script aside, with the edits still
 * waiting to be saved, then shows what the coding agent writes. */
static void
test_code_regenerate (Fixture       *fixture,
                      gconstpointer  data)
{
  GtkWidget *cell = sk_code_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->a), NULL);
  g_autofree char *script = NULL;
  g_autofree char *previous = NULL;
  g_autofree char *kept = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GFile) script_file = NULL;
  g_autoptr(GFile) previous_file = NULL;
  GtkWidget *window;
  GtkWidget *placeholder;
  GtkTextView *view;
  guint loaded = 0;
  guint done = 0;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  sk_test_write_text (folder, "load_sales.py", "print ('old')\n");
  script = g_build_filename (folder, "load_sales.py", NULL);
  previous = g_build_filename (folder, ".skele", "previous", "load_sales.py", NULL);
  script_file = g_file_new_for_path (script);
  {
    g_autoptr(GFile) workflow = g_file_new_for_path (fixture->dir);

    previous_file = sk_step_folder_get_file (workflow, sk_node_get_key (fixture->a),
                                             SK_STEP_FILE_PREVIOUS_SCRIPT);
  }
  kept = g_file_get_path (previous_file);
  g_assert_cmpstr (kept, ==, previous);

  g_signal_connect_swapped (cell, "loaded", G_CALLBACK (count_cb), &loaded);
  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  placeholder = child (cell, "placeholder_label");
  view = child (cell, "view");
  SK_TEST_WAIT_UNTIL (loaded == 1, WAIT_MSEC);

  /* Without the window, the button has no action to ask. */
  g_assert_false (gtk_widget_get_sensitive (child (cell, "regenerate_button")));

  /* The user edits the code. */
  gtk_widget_grab_focus (GTK_WIDGET (view));
  g_assert_true (send_key (window, GDK_KEY_Return, 0));
  g_assert_true (gtk_text_view_get_editable (view));

  /* The edit not yet saved goes aside with the script, which is no longer
   * shown; nothing can be typed while it moves. */
  user_insert (code_buffer (cell), NULL, "# mine\n");
  _sk_code_cell_put_aside_async (SK_CODE_CELL (cell), script_file, put_aside_cb, &done);
  g_assert_false (gtk_text_view_get_editable (view));
  SK_TEST_WAIT_UNTIL (done == 1, WAIT_MSEC);
  g_assert_false (g_file_test (script, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_get_contents (previous, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "# mine\nprint ('old')\n");
  g_clear_pointer (&text, g_free);
  g_assert_false (sk_code_cell_get_has_script (SK_CODE_CELL (cell)));
  g_assert_false (sk_code_cell_get_modified (SK_CODE_CELL (cell)));
  g_assert_true (gtk_text_view_get_editable (view));
  g_assert_true (shown (cell, "placeholder_label"));

  /* While the agent writes, the code is read-only and says so. */
  sk_node_set_state (fixture->a, SK_NODE_STATE_WRITING_CODE);
  g_assert_false (gtk_text_view_get_editable (view));
  g_assert_true (gtk_widget_get_visible (placeholder));
  g_assert_cmpstr (label (cell, "placeholder_label"), ==,
                   "The coding agent is writing this step’s code…");

  /* The new script shows once the agent is done. */
  loaded = 0;
  sk_test_write_text (folder, "load_sales.py", "print ('new')\n");
  sk_node_set_state (fixture->a, SK_NODE_STATE_IDLE);
  g_assert_true (gtk_text_view_get_editable (view));
  SK_TEST_WAIT_UNTIL (sk_code_cell_get_has_script (SK_CODE_CELL (cell)) && loaded > 0, WAIT_MSEC);
  text = buffer_text (code_buffer (cell));
  g_assert_cmpstr (text, ==, "print ('new')");
  g_clear_pointer (&text, g_free);
  g_assert_false (gtk_widget_get_visible (placeholder));

  /* A second time replaces what was put aside before. */
  _sk_code_cell_put_aside_async (SK_CODE_CELL (cell), script_file, put_aside_cb, &done);
  SK_TEST_WAIT_UNTIL (done == 2, WAIT_MSEC);
  g_assert_true (g_file_get_contents (previous, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "print ('new')\n");

  dismiss (window, cell);
}

static void
test_code_style (Fixture       *fixture,
                 gconstpointer  data)
{
  GtkWidget *cell = sk_code_cell_new ();
  AdwStyleManager *manager = adw_style_manager_get_default ();
  GtkSourceStyleScheme *scheme;
  GtkWidget *window;

  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_LIGHT);
  scheme = gtk_source_buffer_get_style_scheme (GTK_SOURCE_BUFFER (code_buffer (cell)));
  g_assert_cmpstr (gtk_source_style_scheme_get_id (scheme), ==, "Adwaita");

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_DARK);
  scheme = gtk_source_buffer_get_style_scheme (GTK_SOURCE_BUFFER (code_buffer (cell)));
  g_assert_cmpstr (gtk_source_style_scheme_get_id (scheme), ==, "Adwaita-dark");

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_DEFAULT);

  dismiss (window, cell);
}

/* The cell shows an SkScriptFile; it is the base cell that is abstract. */
static void
test_code_script_file (Fixture       *fixture,
                       gconstpointer  data)
{
  GtkWidget *cell = sk_code_cell_new ();
  g_autofree char *script = node_path (fixture, fixture->a, "load_sales.py");
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  SkScriptFile *script_file;
  GtkWidget *window;
  guint loaded = 0;

  g_assert_true (G_TYPE_IS_ABSTRACT (SK_TYPE_CELL));
  g_assert_null (sk_code_cell_get_script_file (SK_CODE_CELL (cell)));

  g_signal_connect_swapped (cell, "loaded", G_CALLBACK (count_cb), &loaded);
  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  SK_TEST_WAIT_UNTIL (loaded == 1, WAIT_MSEC);

  script_file = sk_code_cell_get_script_file (SK_CODE_CELL (cell));
  g_assert_nonnull (script_file);
  g_assert_cmpstr (sk_script_file_get_key (script_file), ==, sk_node_get_key (fixture->a));
  path = g_file_get_path (sk_script_file_get_file (script_file));
  g_assert_cmpstr (path, ==, script);
  g_assert_true (sk_script_file_get_file (script_file) == sk_code_cell_get_file (SK_CODE_CELL (cell)));

  /* What is typed is the script file's text. */
  user_insert (code_buffer (cell), NULL, "print (1)");
  g_assert_cmpstr (sk_script_file_get_text (script_file), ==, "print (1)");
  g_assert_true (sk_script_file_get_modified (script_file));
  g_assert_true (sk_code_cell_get_modified (SK_CODE_CELL (cell)));

  /* Another step, another script file; the edit goes to the one it was
   * made in. */
  g_object_ref (script_file);
  sk_cell_set_node (SK_CELL (cell), fixture->b);
  g_assert_true (sk_code_cell_get_script_file (SK_CODE_CELL (cell)) != script_file);
  sk_cell_set_node (SK_CELL (cell), NULL);
  g_assert_null (sk_code_cell_get_script_file (SK_CODE_CELL (cell)));

  dismiss (window, cell);
  SK_TEST_WAIT_UNTIL (!sk_script_file_get_busy (script_file), WAIT_MSEC);
  g_assert_true (g_file_get_contents (script, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "print (1)\n");
  g_assert_finalize_object (script_file);
}

static gint64
file_mtime (const char *path)
{
  GStatBuf buf;

  g_assert_cmpint (g_stat (path, &buf), ==, 0);
  return buf.st_mtime;
}

/* Reached from the keyboard, the code view hands the keyboard on: Tab
 * moves on and nothing typed changes the script; Return starts editing,
 * Escape ends it, and a second Escape goes to the canvas. */
static void
test_code_handover (Fixture       *fixture,
                    gconstpointer  data)
{
  const char *code = "def compute():\n    pass\n";
  GtkWidget *cell = sk_code_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->a), NULL);
  g_autofree char *script = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GPtrArray) saved = g_ptr_array_new_with_free_func (g_free);
  struct utimbuf times = { 1000000000, 1000000000 };
  const guint keys[] = {
    GDK_KEY_Down, GDK_KEY_Right, GDK_KEY_End, GDK_KEY_Page_Down, GDK_KEY_BackSpace,
    GDK_KEY_Delete, GDK_KEY_Insert, GDK_KEY_space, GDK_KEY_a,
  };
  GtkTextView *view;
  GtkWidget *window;
  guint loaded = 0;
  guint to_canvas = 0;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  sk_test_write_text (folder, "load_sales.py", code);
  script = node_path (fixture, fixture->a, "load_sales.py");
  g_assert_cmpint (g_utime (script, &times), ==, 0);

  g_signal_connect_swapped (cell, "loaded", G_CALLBACK (count_cb), &loaded);
  g_signal_connect (cell, "saved", G_CALLBACK (saved_cb), saved);
  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  add_focus_canvas_action (window, &to_canvas);
  view = child (cell, "view");
  SK_TEST_WAIT_UNTIL (loaded == 1, WAIT_MSEC);

  /* Tab from the header reaches the code, which only shows it and says
   * how to edit it. */
  gtk_widget_grab_focus (child (cell, "clear_button"));
  g_assert_true (send_key (window, GDK_KEY_Tab, 0));
  g_assert_true (gtk_widget_is_focus (GTK_WIDGET (view)));
  g_assert_false (gtk_text_view_get_editable (view));
  g_assert_false (gtk_text_view_get_cursor_visible (view));
  g_assert_true (shown (cell, "edit_hint"));

  /* Tab moves on rather than indenting, and Shift+Tab comes back. */
  send_key (window, GDK_KEY_Tab, 0);
  g_assert_false (gtk_widget_is_focus (GTK_WIDGET (view)));
  g_assert_false (shown (cell, "edit_hint"));
  send_key (window, GDK_KEY_Tab, GDK_SHIFT_MASK);
  g_assert_true (gtk_widget_is_focus (GTK_WIDGET (view)));

  /* Other keys move about or do nothing. */
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    send_key (window, keys[i], 0);
  type_text (view, "    ");
  g_assert_false (gtk_text_view_get_overwrite (view));
  text = buffer_text (code_buffer (cell));
  g_assert_cmpstr (text, ==, "def compute():\n    pass");
  g_clear_pointer (&text, g_free);

  /* Nothing was written: the file is as it was, not even touched. */
  wait_msec (1500);
  g_assert_cmpuint (saved->len, ==, 0);
  g_assert_false (sk_code_cell_get_modified (SK_CODE_CELL (cell)));
  g_assert_true (g_file_get_contents (script, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, code);
  g_clear_pointer (&contents, g_free);
  g_assert_cmpint (file_mtime (script), ==, 1000000000);

  /* Return starts editing, with the cursor, and typing is written. */
  g_assert_true (send_key (window, GDK_KEY_Return, 0));
  g_assert_true (gtk_text_view_get_editable (view));
  g_assert_true (gtk_text_view_get_cursor_visible (view));
  g_assert_false (shown (cell, "edit_hint"));
  g_assert_cmpuint (to_canvas, ==, 0);
  type_text (view, "# mine\n");
  g_assert_true (sk_code_cell_get_modified (SK_CODE_CELL (cell)));

  /* Escape ends editing; a second one goes to the canvas. */
  g_assert_true (send_key (window, GDK_KEY_Escape, 0));
  g_assert_false (gtk_text_view_get_editable (view));
  g_assert_true (gtk_widget_is_focus (GTK_WIDGET (view)));
  g_assert_cmpuint (to_canvas, ==, 0);
  g_assert_true (send_key (window, GDK_KEY_Escape, 0));
  g_assert_cmpuint (to_canvas, ==, 1);

  sk_code_cell_save (SK_CODE_CELL (cell));
  SK_TEST_WAIT_UNTIL (saved->len == 1, WAIT_MSEC);
  g_assert_true (g_file_get_contents (script, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "# mine\ndef compute():\n    pass\n");
  g_clear_pointer (&contents, g_free);

  /* Leaving the view ends editing too. */
  g_assert_true (send_key (window, GDK_KEY_Return, 0));
  g_assert_true (gtk_text_view_get_editable (view));
  g_assert_true (gtk_widget_grab_focus (child (cell, "clear_button")));
  g_assert_false (gtk_text_view_get_editable (view));

  dismiss (window, cell);
}

/* Only the user's edits are written: not a change made by code. */
static void
test_code_user_edits (Fixture       *fixture,
                      gconstpointer  data)
{
  GtkWidget *cell = sk_code_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->a), NULL);
  g_autofree char *script = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GPtrArray) saved = g_ptr_array_new_with_free_func (g_free);
  struct utimbuf times = { 1000000000, 1000000000 };
  GtkTextBuffer *buffer;
  GtkWidget *window;
  GtkTextIter end;
  guint loaded = 0;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  sk_test_write_text (folder, "load_sales.py", "x = 1\n");
  script = node_path (fixture, fixture->a, "load_sales.py");
  g_assert_cmpint (g_utime (script, &times), ==, 0);

  g_signal_connect_swapped (cell, "loaded", G_CALLBACK (count_cb), &loaded);
  g_signal_connect (cell, "saved", G_CALLBACK (saved_cb), saved);
  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  SK_TEST_WAIT_UNTIL (loaded == 1, WAIT_MSEC);
  buffer = code_buffer (cell);

  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, "\n# not the user's", -1);
  g_assert_false (sk_code_cell_get_modified (SK_CODE_CELL (cell)));
  sk_code_cell_save (SK_CODE_CELL (cell));
  wait_msec (1500);
  g_assert_cmpuint (saved->len, ==, 0);
  g_assert_cmpint (file_mtime (script), ==, 1000000000);

  /* An edit the user undoes leaves the file alone. */
  gtk_text_buffer_set_text (buffer, "x = 1", -1);
  gtk_text_buffer_get_start_iter (buffer, &end);
  gtk_text_buffer_place_cursor (buffer, &end);
  user_insert (buffer, NULL, "# typed\n");
  g_assert_true (sk_code_cell_get_modified (SK_CODE_CELL (cell)));
  gtk_text_buffer_undo (buffer);
  sk_code_cell_save (SK_CODE_CELL (cell));
  g_assert_cmpuint (saved->len, ==, 1);
  g_assert_false (sk_code_cell_get_modified (SK_CODE_CELL (cell)));
  wait_msec (500);
  g_assert_cmpint (file_mtime (script), ==, 1000000000);

  /* Redoing it is the user's edit again. */
  gtk_text_buffer_redo (buffer);
  sk_code_cell_save (SK_CODE_CELL (cell));
  SK_TEST_WAIT_UNTIL (saved->len == 2, WAIT_MSEC);
  g_assert_true (g_file_get_contents (script, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "# typed\nx = 1\n");

  dismiss (window, cell);
}

/* The window's Undo and Redo follow the code's. */
static void
test_code_can_undo (Fixture       *fixture,
                    gconstpointer  data)
{
  GtkWidget *cell = sk_code_cell_new ();
  GtkTextBuffer *buffer;
  GtkWidget *window;
  guint loaded = 0;
  guint undo_notified = 0;
  guint redo_notified = 0;
  gboolean can_undo;

  g_signal_connect_swapped (cell, "loaded", G_CALLBACK (count_cb), &loaded);
  g_signal_connect_swapped (cell, "notify::can-undo", G_CALLBACK (count_cb), &undo_notified);
  g_signal_connect_swapped (cell, "notify::can-redo", G_CALLBACK (count_cb), &redo_notified);
  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  SK_TEST_WAIT_UNTIL (loaded == 1, WAIT_MSEC);
  buffer = code_buffer (cell);
  g_assert_false (sk_code_cell_get_can_undo (SK_CODE_CELL (cell)));
  g_assert_false (sk_code_cell_get_can_redo (SK_CODE_CELL (cell)));

  undo_notified = 0;
  user_insert (buffer, NULL, "x = 1");
  g_object_get (cell, "can-undo", &can_undo, NULL);
  g_assert_true (can_undo);
  g_assert_cmpuint (undo_notified, >, 0);

  redo_notified = 0;
  gtk_text_buffer_undo (buffer);
  g_assert_false (sk_code_cell_get_can_undo (SK_CODE_CELL (cell)));
  g_assert_true (sk_code_cell_get_can_redo (SK_CODE_CELL (cell)));
  g_assert_cmpuint (redo_notified, >, 0);

  /* Another step has an undo history of its own. */
  gtk_text_buffer_redo (buffer);
  g_assert_true (sk_code_cell_get_can_undo (SK_CODE_CELL (cell)));
  undo_notified = 0;
  sk_cell_set_node (SK_CELL (cell), fixture->b);
  g_assert_false (sk_code_cell_get_can_undo (SK_CODE_CELL (cell)));
  g_assert_cmpuint (undo_notified, >, 0);

  dismiss (window, cell);
}

/* A script of white space only is no code, and without a coding agent the
 * cell does not promise one. */
static void
test_code_no_code (Fixture       *fixture,
                   gconstpointer  data)
{
  GtkWidget *cell = sk_code_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->a), NULL);
  GtkWidget *window;
  GtkWidget *button;
  guint loaded = 0;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  sk_test_write_text (folder, "load_sales.py", "    \n\t\n");

  g_signal_connect_swapped (cell, "loaded", G_CALLBACK (count_cb), &loaded);
  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  SK_TEST_WAIT_UNTIL (loaded == 1, WAIT_MSEC);
  button = child (cell, "agent_button");

  g_assert_false (sk_code_cell_get_has_script (SK_CODE_CELL (cell)));
  g_assert_false (gtk_widget_get_sensitive (child (cell, "clear_button")));
  g_assert_true (shown (cell, "placeholder_label"));
  g_assert_true (sk_code_cell_get_agent_ready (SK_CODE_CELL (cell)));
  g_assert_cmpstr (label (cell, "placeholder_label"), ==,
                   "This step has no code yet. Run the workflow to have the coding agent write it.");
  g_assert_false (gtk_widget_get_visible (button));

  g_object_set (cell, "agent-ready", FALSE, NULL);
  g_assert_cmpstr (label (cell, "placeholder_label"), ==,
                   "This step has no code yet. Set up a coding agent in Preferences to have it "
                   "written, or write the code here.");
  g_assert_true (gtk_widget_get_visible (button));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "Set Up Coding _Agent…");
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==,
                   "app.agent-preferences");

  /* The user's code hides it. */
  user_insert (code_buffer (cell), NULL, "x = 1\n");
  g_assert_false (shown (cell, "placeholder_label"));
  g_assert_false (gtk_widget_get_visible (button));

  gtk_text_buffer_undo (code_buffer (cell));
  g_assert_true (gtk_widget_get_visible (button));
  sk_code_cell_set_agent_ready (SK_CODE_CELL (cell), TRUE);
  g_assert_false (gtk_widget_get_visible (button));

  dismiss (window, cell);
}

/* Scrolling a long line sideways draws the scroll bars after they have
 * their place: under fatal warnings, a snapshot without an allocation
 * fails the test. */
static void
test_code_scroll_sideways (Fixture       *fixture,
                           gconstpointer  data)
{
  GtkWidget *cell = sk_code_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->a), NULL);
  g_autoptr(GString) code = g_string_new ("x = '");
  GtkAdjustment *hadjustment;
  GtkWidget *window;
  guint loaded = 0;

  for (guint i = 0; i < 40; i++)
    g_string_append (code, "a long line that is wider than the cell ");
  g_string_append (code, "'\n");
  for (guint i = 0; i < 30; i++)
    g_string_append_printf (code, "y%u = %u\n", i, i);

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  sk_test_write_text (folder, "load_sales.py", code->str);

  g_signal_connect_swapped (cell, "loaded", G_CALLBACK (count_cb), &loaded);
  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  gtk_window_set_default_size (GTK_WINDOW (window), 320, 300);
  SK_TEST_WAIT_UNTIL (loaded == 1, WAIT_MSEC);
  wait_msec (200);

  hadjustment = gtk_scrollable_get_hadjustment (child (cell, "view"));
  SK_TEST_WAIT_UNTIL (gtk_adjustment_get_upper (hadjustment) >
                      gtk_adjustment_get_page_size (hadjustment), WAIT_MSEC);
  for (guint i = 0; i < 20; i++)
    {
      gtk_adjustment_set_value (hadjustment, gtk_adjustment_get_value (hadjustment) + 40);
      wait_msec (20);
    }
  g_assert_cmpfloat (gtk_adjustment_get_value (hadjustment), >, 0);

  /* The long line going away and coming back while scrolled, so that the
   * scroll bar goes and comes back. */
  for (guint i = 0; i < 6; i++)
    {
      GtkTextBuffer *buffer = code_buffer (cell);
      GtkTextIter start, end;

      gtk_text_buffer_get_iter_at_line (buffer, &start, 0);
      end = start;
      gtk_text_iter_forward_to_line_end (&end);
      if (i % 2 == 0)
        {
          gtk_text_buffer_delete (buffer, &start, &end);
        }
      else
        {
          gtk_text_buffer_insert (buffer, &start, code->str, strchr (code->str, '\n') - code->str);
          gtk_adjustment_set_value (hadjustment, 400);
        }
      wait_msec (50);
      gtk_adjustment_set_value (hadjustment, gtk_adjustment_get_value (hadjustment) + 10);
      wait_msec (50);
    }

  /* The cell getting narrower while scrolled. */
  gtk_window_set_default_size (GTK_WINDOW (window), 200, 300);
  wait_msec (200);
  for (guint i = 0; i < 20; i++)
    {
      gtk_adjustment_set_value (hadjustment, gtk_adjustment_get_value (hadjustment) - 40);
      wait_msec (20);
    }

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

  ADD ("/cells/code/edit", test_code_edit);
  ADD ("/cells/code/reload", test_code_reload);
  ADD ("/cells/code/clear", test_code_clear);
  ADD ("/cells/code/regenerate", test_code_regenerate);
  ADD ("/cells/code/style", test_code_style);
  ADD ("/cells/code/script-file", test_code_script_file);
  ADD ("/cells/code/handover", test_code_handover);
  ADD ("/cells/code/user-edits", test_code_user_edits);
  ADD ("/cells/code/can-undo", test_code_can_undo);
  ADD ("/cells/code/no-code", test_code_no_code);
  ADD ("/cells/code/scroll-sideways", test_code_scroll_sideways);

#undef ADD

  return g_test_run ();
}
