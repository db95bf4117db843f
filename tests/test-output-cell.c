/* test-output-cell.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The output cell, driven the way the user drives it and checked against
 * the model and the files on disk.
 */

#include "config.h"

#include <string.h>

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>

#include "sk-image-viewer.h"
#include "sk-output-cell.h"
#include "sk-test-cells.h"

#define WAIT_MSEC 5000

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

  /* A running or failed step does not claim that nothing happened. */
  sk_node_set_state (fixture->b, SK_NODE_STATE_RUNNING);
  g_assert_false (shown (cell, "no_output_label"));
  sk_node_set_state (fixture->b, SK_NODE_STATE_FAILED);
  g_assert_false (shown (cell, "no_output_label"));
  sk_node_set_state (fixture->b, SK_NODE_STATE_IDLE);
  g_assert_true (shown (cell, "no_output_label"));

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

static GtkWidget *
find_viewer (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (SK_IS_IMAGE_VIEWER (window) && gtk_widget_get_visible (window))
        return window;
    }

  return NULL;
}

static void
close_viewer (GtkWidget *viewer)
{
  gtk_widget_activate_action (viewer, "window.close", NULL);
  SK_TEST_WAIT_UNTIL (find_viewer () == NULL, WAIT_MSEC);
}

/* The preview of an image is a button that opens the image large, by a
 * click or by the keyboard, over the window the cell is in. */
static void
test_output_viewer (Fixture       *fixture,
                    gconstpointer  data)
{
  GtkWidget *cell = sk_output_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->a), NULL);
  g_autofree char *png = NULL;
  g_autofree char *second = NULL;
  GtkWidget *window;
  GtkWidget *button;
  GtkWidget *viewer;
  double zoom;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  png = g_build_filename (folder, "plot.png", NULL);
  write_png (png, 1600, 1200);
  second = g_build_filename (folder, "other.png", NULL);
  write_png (second, 30, 20);
  sk_test_write_text (folder, "notes.txt", "notes\n");
  sk_node_set_output_files (fixture->a, SK_TEST_STRV ("notes.txt", "plot.png", "other.png"));

  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  SK_TEST_WAIT_UNTIL (g_strcmp0 (preview_kind (cell), "image") == 0, WAIT_MSEC);

  /* The preview takes the cell's width. */
  button = child (cell, "picture_button");
  SK_TEST_WAIT_UNTIL (gtk_widget_get_width (button) > 0, WAIT_MSEC);
  g_assert_cmpint (gtk_widget_get_width (button), >=, gtk_widget_get_width (child (cell, "files_box")) - 2);
  g_assert_true (gtk_widget_get_focusable (button));
  g_assert_null (find_viewer ());

  /* A click. */
  g_signal_emit_by_name (button, "clicked");
  viewer = find_viewer ();
  g_assert_nonnull (viewer);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (viewer)) == GTK_WINDOW (window));
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (viewer)));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (viewer)), ==, "plot.png");

  /* Zooming changes the scale, and fitting comes back. */
  SK_TEST_WAIT_UNTIL (sk_image_viewer_get_zoom (SK_IMAGE_VIEWER (viewer)) < 1.0, WAIT_MSEC);
  zoom = sk_image_viewer_get_zoom (SK_IMAGE_VIEWER (viewer));
  gtk_widget_activate_action (viewer, "viewer.zoom-in", NULL);
  g_assert_cmpfloat (sk_image_viewer_get_zoom (SK_IMAGE_VIEWER (viewer)), >, zoom);
  gtk_widget_activate_action (viewer, "viewer.best-fit", NULL);
  g_assert_true (sk_image_viewer_get_best_fit (SK_IMAGE_VIEWER (viewer)));

  /* The other images of the step are next, in the drop-down's order. */
  gtk_widget_activate_action (viewer, "viewer.next", NULL);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (viewer)), ==, "other.png");
  close_viewer (viewer);

  /* Return or Space on the focused preview activate it as a click does. */
  gtk_widget_grab_focus (button);
  g_assert_true (gtk_widget_has_focus (button));
  gtk_widget_activate (button);
  SK_TEST_WAIT_UNTIL ((viewer = find_viewer ()) != NULL, WAIT_MSEC);
  close_viewer (viewer);

  dismiss (window, cell);
}

static void
test_output_documents (Fixture       *fixture,
                       gconstpointer  data)
{
  GtkWidget *cell = sk_output_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->a), NULL);
  g_autoptr(GString) csv = g_string_new ("month,total\n");
  GtkWidget *window;
  GtkTextBuffer *markdown;
  GtkTextTag *h1;
  GtkTextIter start;
  GtkWidget *table;
  guint loaded = 0;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  sk_test_write_text (folder, "report.md", "# Sales\n\nThe **best** month was March.\n");
  for (guint i = 0; i < 1234; i++)
    g_string_append_printf (csv, "\"2024-%02u, late\",%u\n", i % 12 + 1, i);
  sk_test_write_text (folder, "totals.csv", csv->str);
  sk_test_write_text (folder, "small.tsv", "a\tb\n1\t2\n");
  sk_node_set_output_files (fixture->a, SK_TEST_STRV ("report.md", "totals.csv", "small.tsv"));

  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  g_signal_connect_swapped (cell, "preview-loaded", G_CALLBACK (count_cb), &loaded);
  window = present (cell);

  /* Markdown is rendered. */
  show_output (cell, &loaded, "report.md", "markdown");
  markdown = gtk_text_view_get_buffer (child (cell, "markdown_view"));
  {
    g_autofree char *text = buffer_text (markdown);

    g_assert_cmpstr (text, ==, "Sales\nThe best month was March.");
  }
  h1 = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (markdown), "sk-md-h1");
  g_assert_nonnull (h1);
  gtk_text_buffer_get_start_iter (markdown, &start);
  g_assert_true (gtk_text_iter_has_tag (&start, h1));

  /* A CSV file is a table of its first 500 rows. */
  show_output (cell, &loaded, "totals.csv", "table");
  table = gtk_scrolled_window_get_child (child (cell, "table_scroller"));
  if (GTK_IS_VIEWPORT (table))
    table = gtk_viewport_get_child (GTK_VIEWPORT (table));
  g_assert_true (GTK_IS_COLUMN_VIEW (table));
  g_assert_cmpuint (g_list_model_get_n_items (gtk_column_view_get_columns (GTK_COLUMN_VIEW (table))), ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (table)))), ==, 500);
  g_assert_true (g_str_has_prefix (label (cell, "table_rows_label"), "First 500 of 1"));
  g_assert_true (g_str_has_suffix (label (cell, "table_rows_label"), "234 rows"));

  show_output (cell, &loaded, "small.tsv", "table");
  g_assert_cmpstr (label (cell, "table_rows_label"), ==, "1 row");

  /* A report in Markdown is rendered too; plain reports stay labels. */
  sk_node_set_output_text (fixture->a, "## Done\n\n- 12 months\n- 3 regions\n");
  g_assert_true (shown (cell, "report_view"));
  g_assert_false (shown (cell, "output_label"));
  {
    g_autofree char *text = buffer_text (gtk_text_view_get_buffer (child (cell, "report_view")));

    g_assert_cmpstr (text, ==, "Done\n• 12 months\n• 3 regions");
  }
  sk_node_set_output_text (fixture->a, "Computed 12 monthly totals.");
  g_assert_false (shown (cell, "report_view"));
  g_assert_true (shown (cell, "output_label"));

  dismiss (window, cell);
}

/* The cell as the window shows it: in a scrolled window shorter than the
 * cell's content. */
static GtkWidget *
present_scrolled (GtkWidget *cell)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();

  g_object_ref_sink (cell);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), cell);
  gtk_window_set_child (GTK_WINDOW (window), scroller);
  gtk_window_set_default_size (GTK_WINDOW (window), 500, 300);
  gtk_window_present (GTK_WINDOW (window));
  SK_TEST_WAIT_UNTIL (gtk_widget_get_mapped (cell), WAIT_MSEC);

  return window;
}

/* A long traceback takes the room it needs, up to a limit past which it
 * scrolls; it is never squeezed below its content. */
static void
test_output_traceback (Fixture       *fixture,
                       gconstpointer  data)
{
  GtkWidget *cell = sk_output_cell_new ();
  g_autoptr(GString) traceback = g_string_new ("Traceback (most recent call last):\n");
  GtkWidget *window;
  GtkScrolledWindow *scroller;
  GtkAdjustment *adjustment;

  for (guint i = 0; i < 14; i++)
    g_string_append_printf (traceback, "  File \"step.py\", line %u, in compute\n", i + 1);
  g_string_append (traceback, "ValueError: bad month");

  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present_scrolled (cell);
  scroller = child (cell, "detail_scroller");
  adjustment = gtk_scrolled_window_get_vadjustment (scroller);

  sk_node_set_error (fixture->a, "the script stopped with an error", traceback->str);
  sk_node_set_state (fixture->a, SK_NODE_STATE_FAILED);
  SK_TEST_WAIT_UNTIL (gtk_adjustment_get_upper (adjustment) > 100, WAIT_MSEC);
  SK_TEST_WAIT_UNTIL (gtk_adjustment_get_page_size (adjustment) >= gtk_adjustment_get_upper (adjustment),
                      WAIT_MSEC);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (scroller)), >=,
                   (int) gtk_adjustment_get_upper (adjustment));
  g_assert_true (gtk_text_view_get_monospace (child (cell, "detail_view")));
  g_assert_true (shown (cell, "copy_error_button"));

  /* Longer than the limit: as tall as the limit, and scrollable. */
  for (guint i = 0; i < 100; i++)
    g_string_append_printf (traceback, "\nmore line %u", i);
  sk_node_set_error (fixture->a, "the script stopped with an error", traceback->str);
  SK_TEST_WAIT_UNTIL (gtk_adjustment_get_upper (adjustment) > 1000, WAIT_MSEC);
  SK_TEST_WAIT_UNTIL (gtk_widget_get_height (GTK_WIDGET (scroller)) >= 400, WAIT_MSEC);
  g_assert_cmpfloat (gtk_adjustment_get_page_size (adjustment), <, gtk_adjustment_get_upper (adjustment));

  /* A short one again takes little room. */
  sk_node_set_error (fixture->a, "the script stopped with an error", "one line");
  SK_TEST_WAIT_UNTIL (gtk_widget_get_height (GTK_WIDGET (scroller)) < 100, WAIT_MSEC);

  dismiss (window, cell);
}

static void
test_output_elapsed (Fixture       *fixture,
                     gconstpointer  data)
{
  GtkWidget *cell = sk_output_cell_new ();
  GtkWidget *window;

  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  g_assert_false (shown (cell, "elapsed_label"));

  sk_node_set_state (fixture->a, SK_NODE_STATE_RUNNING);
  g_assert_true (shown (cell, "elapsed_label"));
  g_assert_cmpstr (label (cell, "elapsed_label"), ==, "Running for 0 s");
  SK_TEST_WAIT_UNTIL (g_strcmp0 (label (cell, "elapsed_label"), "Running for 1 s") == 0, WAIT_MSEC);

  /* The end says how long it took. */
  sk_node_set_state (fixture->a, SK_NODE_STATE_SUCCEEDED);
  g_assert_true (shown (cell, "elapsed_label"));
  g_assert_true (g_str_has_prefix (label (cell, "elapsed_label"), "Took "));

  /* Another step was not seen running; coming back shows the time again. */
  sk_cell_set_node (SK_CELL (cell), fixture->b);
  g_assert_false (shown (cell, "elapsed_label"));
  sk_node_set_state (fixture->b, SK_NODE_STATE_RUNNING);
  sk_cell_set_node (SK_CELL (cell), fixture->a);
  g_assert_true (g_str_has_prefix (label (cell, "elapsed_label"), "Took "));

  /* A new run counts from zero; the cell goes away while it runs. */
  sk_node_set_state (fixture->a, SK_NODE_STATE_RUNNING);
  g_assert_cmpstr (label (cell, "elapsed_label"), ==, "Running for 0 s");

  dismiss (window, cell);
}

static void
test_output_live (Fixture       *fixture,
                  gconstpointer  data)
{
  GtkWidget *cell = sk_output_cell_new ();
  GtkWidget *window;
  GtkTextBuffer *buffer;
  g_autofree char *text = NULL;

  g_object_set (cell, "project", fixture->project, "node", fixture->a, NULL);
  window = present (cell);
  buffer = gtk_text_view_get_buffer (child (cell, "live_view"));
  g_assert_false (shown (cell, "live_box"));

  sk_node_set_state (fixture->a, SK_NODE_STATE_RUNNING);

  /* Pieces may end within a line. */
  sk_output_cell_append_live_output (SK_OUTPUT_CELL (cell), "loading sa");
  sk_output_cell_append_live_output (SK_OUTPUT_CELL (cell), "les.csv\n12 rows");
  g_assert_true (shown (cell, "live_box"));
  text = buffer_text (buffer);
  g_assert_cmpstr (text, ==, "loading sales.csv\n12 rows");
  g_clear_pointer (&text, g_free);
  g_assert_true (gtk_text_view_get_monospace (child (cell, "live_view")));

  /* Only the last 200 lines are kept. */
  for (guint i = 0; i < 500; i++)
    {
      g_autofree char *line = g_strdup_printf ("\nline %u", i);

      sk_output_cell_append_live_output (SK_OUTPUT_CELL (cell), line);
    }
  g_assert_cmpint (gtk_text_buffer_get_line_count (buffer), ==, 201);
  text = buffer_text (buffer);
  g_assert_true (g_str_has_prefix (text, "line 299\nline 300\n"));
  g_assert_true (g_str_has_suffix (text, "\nline 499"));
  g_clear_pointer (&text, g_free);

  /* Kept when the run ends, cleared when the next starts. */
  sk_node_set_state (fixture->a, SK_NODE_STATE_SUCCEEDED);
  g_assert_true (shown (cell, "live_box"));
  sk_node_set_state (fixture->a, SK_NODE_STATE_RUNNING);
  g_assert_false (shown (cell, "live_box"));
  g_assert_cmpint (gtk_text_buffer_get_char_count (buffer), ==, 0);

  /* Another step's output is not this one's. */
  sk_output_cell_append_live_output (SK_OUTPUT_CELL (cell), "partial");
  sk_cell_set_node (SK_CELL (cell), fixture->b);
  g_assert_false (shown (cell, "live_box"));

  sk_output_cell_append_live_output (SK_OUTPUT_CELL (cell), "x\n");
  sk_output_cell_clear_live_output (SK_OUTPUT_CELL (cell));
  g_assert_false (shown (cell, "live_box"));

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

  ADD ("/cells/output/previews", test_output_previews);
  ADD ("/cells/output/files", test_output_files);
  ADD ("/cells/output/state", test_output_state);
  ADD ("/cells/output/agent", test_output_agent);
  ADD ("/cells/output/tokens", test_output_tokens);
  ADD ("/cells/output/viewer", test_output_viewer);
  ADD ("/cells/output/documents", test_output_documents);
  ADD ("/cells/output/traceback", test_output_traceback);
  ADD ("/cells/output/elapsed", test_output_elapsed);
  ADD ("/cells/output/live", test_output_live);

#undef ADD

  return g_test_run ();
}
