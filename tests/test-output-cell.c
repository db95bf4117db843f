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

#undef ADD

  return g_test_run ();
}
