/* test-cells.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The notebook cells above the canvas: the input, output and code cells,
 * driven the way the user drives them and checked against the model and the
 * files on disk.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <adwaita.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>

#include "sk-code-cell-private.h"
#include "sk-history.h"
#include "sk-input-cell.h"
#include "sk-output-cell.h"
#include "sk-test-util.h"
#include "sk-widgets.h"

#define WAIT_MSEC 5000

typedef struct
{
  char      *dir;
  GFile     *folder;
  SkProject *project;
  SkNode    *a;
  SkNode    *b;
  char      *outside;
} Fixture;

/* Connected swapped, so the counter comes first whatever the signal. */
static void
count_cb (guint *count)
{
  (*count)++;
}

static void
saved_cb (SkCodeCell *cell,
          GFile      *file,
          GPtrArray  *saved)
{
  g_ptr_array_add (saved, g_file_get_path (file));
}

static void
message_cb (GtkWidget *cell,
            const char *text,
            GPtrArray  *messages)
{
  g_assert_nonnull (text);
  g_assert_cmpstr (text, !=, "");
  g_ptr_array_add (messages, g_strdup (text));
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("skele-cells-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->folder = g_file_new_for_path (fixture->dir);
  fixture->project = sk_project_new (fixture->folder);

  fixture->a = sk_node_new ("1", "load sales");
  sk_project_add_node (fixture->project, fixture->a, &error);
  g_assert_no_error (error);
  fixture->b = sk_node_new ("2", "make chart");
  sk_project_add_node (fixture->project, fixture->b, &error);
  g_assert_no_error (error);

  /* Files the user attaches live elsewhere. */
  fixture->outside = g_dir_make_tmp ("skele-cells-outside-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->a);
  g_clear_object (&fixture->b);
  g_assert_finalize_object (fixture->project);
  g_clear_object (&fixture->folder);
  sk_test_remove_tree (fixture->dir);
  sk_test_remove_tree (fixture->outside);
  g_free (fixture->dir);
  g_free (fixture->outside);
}

static char *
node_path (Fixture    *fixture,
           SkNode     *node,
           const char *name)
{
  return g_build_filename (fixture->dir, sk_node_get_key (node), name, NULL);
}

static GtkWidget *
present (GtkWidget *cell)
{
  GtkWidget *window = gtk_window_new ();

  g_object_ref_sink (cell);
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 600);
  gtk_window_set_child (GTK_WINDOW (window), cell);
  gtk_window_present (GTK_WINDOW (window));
  SK_TEST_WAIT_UNTIL (gtk_widget_get_mapped (cell), WAIT_MSEC);

  return window;
}

/* Destroys the window and checks that nothing else holds the cell. */
static void
dismiss (GtkWidget *window,
         GtkWidget *cell)
{
  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (cell);
}

/* The cells are final types, so their own type finds their template. */
static gpointer
child (GtkWidget  *cell,
       const char *name)
{
  GObject *object = gtk_widget_get_template_child (cell, G_OBJECT_TYPE (cell), name);

  g_assert_nonnull (object);
  return object;
}

static const char *
page (GtkWidget  *cell,
      const char *stack)
{
  return gtk_stack_get_visible_child_name (child (cell, stack));
}

static const char *
label (GtkWidget  *cell,
       const char *name)
{
  return gtk_label_get_label (child (cell, name));
}

static const char *
preview_kind (GtkWidget *cell)
{
  return sk_output_cell_get_preview_kind (SK_OUTPUT_CELL (cell));
}

static int
picture_width (GtkWidget *cell)
{
  GdkPaintable *paintable = gtk_picture_get_paintable (child (cell, "picture"));

  return paintable != NULL ? gdk_paintable_get_intrinsic_width (paintable) : 0;
}

static gboolean
shown (GtkWidget  *cell,
       const char *name)
{
  return gtk_widget_get_visible (child (cell, name));
}

static char *
buffer_text (GtkTextBuffer *buffer)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
}

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

/* Input cell */

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

/* Output cell */

static void
write_png (const char *path,
           int         width,
           int         height)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  guchar *pixels = g_malloc (width * height * 4);

  for (int i = 0; i < width * height; i++)
    {
      pixels[i * 4 + 0] = 200;
      pixels[i * 4 + 1] = (guchar) (i % 256);
      pixels[i * 4 + 2] = 40;
      pixels[i * 4 + 3] = 255;
    }
  bytes = g_bytes_new_take (pixels, width * height * 4);
  texture = gdk_memory_texture_new (width, height, GDK_MEMORY_R8G8B8A8, bytes, width * 4);
  g_assert_true (gdk_texture_save_to_png (texture, path));
}

static gboolean
have_svg_loader (void)
{
  g_autoptr(GSList) formats = gdk_pixbuf_get_formats ();

  for (GSList *l = formats; l != NULL; l = l->next)
    {
      g_autofree char *name = gdk_pixbuf_format_get_name (l->data);

      if (g_strcmp0 (name, "svg") == 0)
        return TRUE;
    }

  return FALSE;
}

/* Chooses @name as the user would and waits until its preview is loaded. */
static void
show_output (GtkWidget  *cell,
             guint      *loaded,
             const char *name,
             const char *kind)
{
  guint before = *loaded;

  sk_output_cell_select_file (SK_OUTPUT_CELL (cell), name);
  g_assert_cmpstr (sk_output_cell_get_selected_file (SK_OUTPUT_CELL (cell)), ==, name);
  SK_TEST_WAIT_UNTIL (*loaded > before, WAIT_MSEC);
  g_assert_cmpstr (preview_kind (cell), ==, kind);
}

static void
test_output_previews (Fixture       *fixture,
                      gconstpointer  data)
{
  GtkWidget *cell = sk_output_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->a), NULL);
  g_autofree char *png = NULL;
  g_autofree char *text = NULL;
  g_autofree char *kind = NULL;
  g_autoptr(GString) big = g_string_new (NULL);
  GtkWidget *window;
  GtkPicture *picture;
  GdkPaintable *paintable;
  GtkTextBuffer *preview;
  GtkLabel *output_label;
  guint loaded = 0;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  png = g_build_filename (folder, "plot.png", NULL);
  write_png (png, 40, 30);
  sk_test_write_text (folder, "chart.svg",
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"120\" height=\"80\">"
                      "<rect width=\"120\" height=\"80\" fill=\"#3584e4\"/></svg>\n");
  sk_test_write_text (folder, "summary.txt", "12 monthly totals\n");
  sk_test_write_text (folder, "broken.png", "this is not a PNG file");
  sk_test_write_text (folder, "model.bin", "\x01\x02\x03 binary");
  for (guint i = 0; big->len <= 70 * 1024; i++)
    g_string_append_printf (big, "line %u of a long log\n", i);
  sk_test_write_text (folder, "run.log", big->str);

  sk_node_set_output_text (fixture->a, "Computed 12 monthly totals.\nchart.svg created");
  sk_node_set_output_files (fixture->a, SK_TEST_STRV ("summary.txt", "plot.png", "chart.svg",
                            "broken.png", "model.bin", "run.log"));

  g_object_set (cell, "project", fixture->project, NULL);
  g_signal_connect_swapped (cell, "preview-loaded", G_CALLBACK (count_cb), &loaded);
  window = present (cell);
  g_assert_cmpstr (preview_kind (cell), ==, "none");

  /* The first image is chosen by default. */
  sk_cell_set_node (SK_CELL (cell), fixture->a);
  g_assert_cmpstr (sk_output_cell_get_selected_file (SK_OUTPUT_CELL (cell)), ==, "plot.png");
  SK_TEST_WAIT_UNTIL (g_strcmp0 (preview_kind (cell), "image") == 0, WAIT_MSEC);
  g_object_get (cell, "preview-kind", &kind, NULL);
  g_assert_cmpstr (kind, ==, "image");
  g_assert_cmpuint (loaded, >=, 1);

  picture = child (cell, "picture");
  paintable = gtk_picture_get_paintable (picture);
  g_assert_nonnull (paintable);
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (paintable), ==, 40);
  g_assert_cmpint (gdk_paintable_get_intrinsic_height (paintable), ==, 30);
  g_assert_true (shown (cell, "files_box"));

  output_label = child (cell, "output_label");
  g_assert_cmpstr (gtk_label_get_text (output_label), ==,
                   "Computed 12 monthly totals.\nchart.svg created");
  g_assert_true (gtk_label_get_selectable (output_label));
  g_assert_false (shown (cell, "no_output_label"));

  /* Text files show as text. */
  show_output (cell, &loaded, "summary.txt", "text");
  preview = gtk_text_view_get_buffer (child (cell, "text_preview"));
  text = buffer_text (preview);
  g_assert_cmpstr (text, ==, "12 monthly totals\n");
  g_clear_pointer (&text, g_free);
  g_assert_false (shown (cell, "truncated_label"));
  g_assert_null (gtk_picture_get_paintable (picture));

  /* Only the first 64 KiB of a long file. */
  show_output (cell, &loaded, "run.log", "text");
  text = buffer_text (preview);
  g_assert_cmpuint (strlen (text), ==, 64 * 1024);
  g_assert_true (g_str_has_prefix (text, "line 0 of a long log\n"));
  g_clear_pointer (&text, g_free);
  g_assert_true (shown (cell, "truncated_label"));

  show_output (cell, &loaded, "model.bin", "unsupported");
  show_output (cell, &loaded, "broken.png", "error");
  g_assert_cmpstr (label (cell, "preview_error_label"), ==, "This image could not be shown");

  if (have_svg_loader ())
    {
      show_output (cell, &loaded, "chart.svg", "image");
      paintable = gtk_picture_get_paintable (picture);
      g_assert_cmpint (gdk_paintable_get_intrinsic_width (paintable), ==, 120);
      g_assert_cmpint (gdk_paintable_get_intrinsic_height (paintable), ==, 80);
    }

  dismiss (window, cell);

  if (!have_svg_loader ())
    g_test_skip ("the gdk-pixbuf SVG loader (librsvg2-common) is not installed");
}

static void
test_output_files (Fixture       *fixture,
                   gconstpointer  data)
{
  GtkWidget *cell = sk_output_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->b), NULL);
  g_autofree char *png = NULL;
  GtkWidget *window;
  GListModel *model;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  sk_test_write_text (folder, "a.txt", "first\n");
  sk_test_write_text (folder, "b.txt", "second\n");
  png = g_build_filename (folder, "dot.png", NULL);
  write_png (png, 2, 3);

  g_object_set (cell, "project", fixture->project, "node", fixture->b, NULL);
  window = present (cell);
  g_assert_false (shown (cell, "files_box"));
  g_assert_true (shown (cell, "no_output_label"));
  g_assert_cmpstr (preview_kind (cell), ==, "none");

  model = gtk_drop_down_get_model (child (cell, "files_drop_down"));

  /* A run that made files fills the drop-down. */
  sk_node_set_output_files (fixture->b, SK_TEST_STRV ("a.txt"));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  g_assert_true (shown (cell, "files_box"));
  SK_TEST_WAIT_UNTIL (g_strcmp0 (preview_kind (cell), "text") == 0, WAIT_MSEC);

  /* The chosen file stays chosen while it is still there. */
  sk_node_set_output_files (fixture->b, SK_TEST_STRV ("b.txt", "a.txt"));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (model), 0), ==, "b.txt");
  g_assert_cmpstr (sk_output_cell_get_selected_file (SK_OUTPUT_CELL (cell)), ==, "a.txt");

  /* A new image is chosen only when the chosen file went away. */
  sk_node_set_output_files (fixture->b, SK_TEST_STRV ("b.txt", "a.txt", "dot.png"));
  g_assert_cmpstr (sk_output_cell_get_selected_file (SK_OUTPUT_CELL (cell)), ==, "a.txt");
  sk_node_set_output_files (fixture->b, SK_TEST_STRV ("b.txt", "dot.png"));
  g_assert_cmpstr (sk_output_cell_get_selected_file (SK_OUTPUT_CELL (cell)), ==, "dot.png");
  SK_TEST_WAIT_UNTIL (g_strcmp0 (preview_kind (cell), "image") == 0, WAIT_MSEC);

  /* A new run rewrites the image under the same name: the preview follows. */
  write_png (png, 5, 4);
  sk_node_set_output_text (fixture->b, "drew a bigger dot");
  SK_TEST_WAIT_UNTIL (picture_width (cell) == 5, WAIT_MSEC);

  sk_node_set_output_files (fixture->b, NULL);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 0);
  g_assert_null (sk_output_cell_get_selected_file (SK_OUTPUT_CELL (cell)));
  g_assert_cmpstr (preview_kind (cell), ==, "none");
  g_assert_false (shown (cell, "files_box"));

  sk_cell_set_node (SK_CELL (cell), NULL);
  g_assert_cmpstr (page (cell, "stack"), ==, "empty");

  dismiss (window, cell);
}

static void
test_output_state (Fixture       *fixture,
                   gconstpointer  data)
{
  GtkWidget *cell = sk_output_cell_new ();
  GtkWidget *window;
  GtkWidget *error_box;
  GtkExpander *expander;
  GtkTextBuffer *detail;
  g_autofree char *text = NULL;
  const char *traceback = "Traceback (most recent call last):\n"
                          "  File \"load_sales.py\", line 3\n"
                          "ValueError: bad month";

  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  error_box = child (cell, "error_box");
  expander = child (cell, "details_expander");
  detail = gtk_text_view_get_buffer (child (cell, "detail_view"));

  g_assert_false (gtk_widget_get_visible (error_box));
  g_assert_cmpstr (label (cell, "state_label"), ==, sk_node_state_describe (SK_NODE_STATE_IDLE));

  sk_node_set_state (fixture->a, SK_NODE_STATE_RUNNING);
  g_assert_cmpstr (label (cell, "state_label"), ==, sk_node_state_describe (SK_NODE_STATE_RUNNING));
  g_assert_true (shown (cell, "state_spinner"));
  g_assert_true (gtk_spinner_get_spinning (child (cell, "state_spinner")));
  g_assert_cmpstr (page (cell, "state_icon_stack"), ==, "spinner");

  /* A failure shows the error as a sentence and the end of stderr. */
  sk_node_set_error (fixture->a, "the script stopped with an error", traceback);
  sk_node_set_state (fixture->a, SK_NODE_STATE_FAILED);
  g_assert_true (gtk_widget_get_visible (error_box));
  g_assert_true (gtk_widget_has_css_class (error_box, "error"));
  g_assert_cmpstr (label (cell, "error_label"), ==, "The script stopped with an error.");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (expander)));
  g_assert_true (gtk_expander_get_expanded (expander));
  text = buffer_text (detail);
  g_assert_cmpstr (text, ==, traceback);
  g_clear_pointer (&text, g_free);
  g_assert_cmpstr (page (cell, "state_icon_stack"), ==, "icon");
  g_assert_false (gtk_spinner_get_spinning (child (cell, "state_spinner")));

  /* Failed without a reason still says so. */
  sk_node_set_error (fixture->a, NULL, NULL);
  g_assert_true (gtk_widget_get_visible (error_box));
  g_assert_cmpstr (label (cell, "error_label"), ==, "This step failed.");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (expander)));

  /* The next successful run clears it. */
  sk_node_set_state (fixture->a, SK_NODE_STATE_SUCCEEDED);
  g_assert_false (gtk_widget_get_visible (error_box));
  g_assert_cmpstr (label (cell, "state_label"), ==,
                   sk_node_state_describe (SK_NODE_STATE_SUCCEEDED));

  /* Switching steps shows the other step's state. */
  sk_node_set_error (fixture->b, "no output", NULL);
  sk_cell_set_node (SK_CELL (cell), fixture->b);
  g_assert_true (gtk_widget_get_visible (error_box));
  g_assert_cmpstr (label (cell, "error_label"), ==, "No output.");
  sk_node_set_state (fixture->a, SK_NODE_STATE_FAILED);
  g_assert_cmpstr (label (cell, "state_label"), ==, sk_node_state_describe (SK_NODE_STATE_IDLE));

  dismiss (window, cell);
}

/* The coding agent's progress, which the window keeps per step, shows in the
 * output cell of that step: the newest line, a spinner while the code is
 * being written, and all the lines on request. */
static void
test_output_agent (Fixture       *fixture,
                   gconstpointer  data)
{
  GtkWidget *cell = sk_output_cell_new ();
  g_autoptr(GtkStringList) log_a = gtk_string_list_new (NULL);
  g_autoptr(GtkStringList) log_b = gtk_string_list_new (NULL);
  GtkWidget *window;
  GtkWidget *agent_box;
  GtkWidget *rows;

  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  sk_output_cell_set_agent_log (SK_OUTPUT_CELL (cell), G_LIST_MODEL (log_a));
  window = present (cell);
  agent_box = child (cell, "agent_box");
  rows = child (cell, "agent_list");

  /* Nothing said, nothing shown. */
  g_assert_false (gtk_widget_get_visible (agent_box));

  sk_node_set_state (fixture->a, SK_NODE_STATE_WRITING_CODE);
  g_assert_cmpstr (label (cell, "state_label"), ==, sk_node_state_describe (SK_NODE_STATE_WRITING_CODE));
  g_assert_cmpstr (page (cell, "state_icon_stack"), ==, "spinner");
  gtk_string_list_append (log_a, "Asking the model to write the script…");
  g_assert_true (gtk_widget_get_visible (agent_box));
  g_assert_cmpstr (label (cell, "agent_latest_label"), ==, "Asking the model to write the script…");
  g_assert_cmpstr (page (cell, "agent_icon_stack"), ==, "spinner");
  g_assert_true (gtk_spinner_get_spinning (child (cell, "agent_spinner")));

  gtk_string_list_append (log_a, "Writing load_sales.py");
  g_assert_cmpstr (label (cell, "agent_latest_label"), ==, "Writing load_sales.py");
  g_assert_nonnull (gtk_list_box_get_row_at_index (GTK_LIST_BOX (rows), 1));
  g_assert_null (gtk_list_box_get_row_at_index (GTK_LIST_BOX (rows), 2));

  /* The summary stays once the agent is done. */
  gtk_string_list_append (log_a, "The step loads the sales.");
  sk_node_set_state (fixture->a, SK_NODE_STATE_RUNNING);
  g_assert_cmpstr (label (cell, "agent_latest_label"), ==, "The step loads the sales.");
  g_assert_cmpstr (page (cell, "agent_icon_stack"), ==, "icon");
  g_assert_false (gtk_spinner_get_spinning (child (cell, "agent_spinner")));
  sk_node_set_state (fixture->a, SK_NODE_STATE_SUCCEEDED);
  g_assert_true (gtk_widget_get_visible (agent_box));

  /* Another step, another log; an emptied log hides the section. */
  sk_cell_set_node (SK_CELL (cell), fixture->b);
  sk_output_cell_set_agent_log (SK_OUTPUT_CELL (cell), G_LIST_MODEL (log_b));
  g_assert_false (gtk_widget_get_visible (agent_box));
  g_assert_null (gtk_list_box_get_row_at_index (GTK_LIST_BOX (rows), 0));
  sk_cell_set_node (SK_CELL (cell), fixture->a);
  sk_output_cell_set_agent_log (SK_OUTPUT_CELL (cell), G_LIST_MODEL (log_a));
  g_assert_true (gtk_widget_get_visible (agent_box));
  gtk_string_list_splice (log_a, 0, 3, NULL);
  g_assert_false (gtk_widget_get_visible (agent_box));

  sk_output_cell_set_agent_log (SK_OUTPUT_CELL (cell), NULL);
  dismiss (window, cell);
}

static char *
digits_of (const char *text)
{
  GString *digits = g_string_new (NULL);

  for (const char *p = text; *p != '\0' && *p != 't'; p++)
    if (g_ascii_isdigit (*p))
      g_string_append_c (digits, *p);

  return g_string_free (digits, FALSE);
}

static void
test_output_tokens (Fixture       *fixture,
                    gconstpointer  data)
{
  GtkWidget *cell = sk_output_cell_new ();
  GtkWidget *window;
  g_autofree char *big = NULL;
  g_autofree char *big_digits = NULL;

  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  g_assert_false (shown (cell, "tokens_label"));

  /* Counts grow while the agent works, with their plural forms. */
  sk_node_add_tokens (fixture->a, 1, 1);
  g_assert_true (shown (cell, "tokens_label"));
  g_assert_cmpstr (label (cell, "tokens_label"), ==, "1 token read, 1 written");
  sk_node_add_tokens (fixture->a, 99, 566);
  g_assert_cmpstr (label (cell, "tokens_label"), ==, "100 tokens read, 567 written");

  /* Each step has its own. */
  sk_cell_set_node (SK_CELL (cell), fixture->b);
  g_assert_false (shown (cell, "tokens_label"));
  sk_cell_set_node (SK_CELL (cell), fixture->a);
  g_assert_true (shown (cell, "tokens_label"));

  /* Large counts are grouped the locale's way, with every digit kept. */
  big = sk_output_cell_describe_tokens (G_GUINT64_CONSTANT (12345678901), 2);
  big_digits = digits_of (big);
  g_assert_cmpstr (big_digits, ==, "12345678901");
  g_assert_true (g_str_has_suffix (big, "tokens read, 2 written"));

  dismiss (window, cell);
}

/* Code cell */

static GtkTextBuffer *
code_buffer (GtkWidget *cell)
{
  return gtk_text_view_get_buffer (child (cell, "view"));
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
  gtk_text_buffer_insert (GTK_TEXT_BUFFER (buffer), &end, "\n\nprint ('done')", -1);
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
  gtk_text_buffer_insert (GTK_TEXT_BUFFER (buffer), &end, "\n# switched", -1);
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
  gtk_text_buffer_insert_at_cursor (GTK_TEXT_BUFFER (buffer), "state = {}", -1);
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
  gtk_text_buffer_insert_at_cursor (code_buffer (cell), "# last words\n", -1);
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
  gtk_text_buffer_insert_at_cursor (code_buffer (cell), "# mine\n", -1);
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
  gtk_text_buffer_insert_at_cursor (code_buffer (cell), "# edit\n", -1);
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
  previous_file = sk_project_get_previous_script (script_file);
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

  /* The edit not yet saved goes aside with the script, which is no longer
   * shown; nothing can be typed while it moves. */
  gtk_text_buffer_insert_at_cursor (code_buffer (cell), "# mine\n", -1);
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
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (placeholder)), ==,
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

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("/cells/input/text", test_input_text);
  ADD ("/cells/input/attach", test_input_attach);
  ADD ("/cells/input/attach-history", test_input_attach_history);
  ADD ("/cells/output/previews", test_output_previews);
  ADD ("/cells/output/files", test_output_files);
  ADD ("/cells/output/state", test_output_state);
  ADD ("/cells/output/agent", test_output_agent);
  ADD ("/cells/output/tokens", test_output_tokens);
  ADD ("/cells/code/edit", test_code_edit);
  ADD ("/cells/code/reload", test_code_reload);
  ADD ("/cells/code/clear", test_code_clear);
  ADD ("/cells/code/regenerate", test_code_regenerate);
  ADD ("/cells/code/style", test_code_style);

#undef ADD

  return g_test_run ();
}
