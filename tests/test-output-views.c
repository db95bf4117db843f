/* test-output-views.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the output cell shows files with: the Markdown renderer, the CSV
 * parser and its table, and the image viewer.
 */

#include "config.h"

#include <string.h>

#include "sk-image-viewer.h"
#include "sk-markdown.h"
#include "sk-table-view.h"
#include "sk-test-cells.h"

#define WAIT_MSEC 5000

/* Markdown */

static char *
render (GtkTextBuffer *buffer,
        const char    *markdown)
{
  sk_markdown_render (buffer, markdown);
  return buffer_text (buffer);
}

/* Whether the first occurrence of @needle in the buffer has the tag @name
 * over all of it. */
static gboolean
has_tag (GtkTextBuffer *buffer,
         const char    *needle,
         const char    *name)
{
  GtkTextTag *tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer), name);
  GtkTextIter start, match_start, match_end;

  g_assert_nonnull (tag);
  gtk_text_buffer_get_start_iter (buffer, &start);
  g_assert_true (gtk_text_iter_forward_search (&start, needle, 0, &match_start, &match_end, NULL));

  for (GtkTextIter iter = match_start; !gtk_text_iter_equal (&iter, &match_end);
       gtk_text_iter_forward_char (&iter))
    if (!gtk_text_iter_has_tag (&iter, tag))
      return FALSE;

  return TRUE;
}

static gboolean
tag_anywhere (GtkTextBuffer *buffer,
              const char    *needle,
              const char    *name)
{
  GtkTextTag *tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer), name);
  GtkTextIter start, match_start, match_end;

  if (tag == NULL)
    return FALSE;
  gtk_text_buffer_get_start_iter (buffer, &start);
  g_assert_true (gtk_text_iter_forward_search (&start, needle, 0, &match_start, &match_end, NULL));
  return gtk_text_iter_has_tag (&match_start, tag);
}

static const char *
link_at (GtkTextBuffer *buffer,
         const char    *needle)
{
  GtkTextIter start, match_start, match_end;

  gtk_text_buffer_get_start_iter (buffer, &start);
  g_assert_true (gtk_text_iter_forward_search (&start, needle, 0, &match_start, &match_end, NULL));
  return sk_markdown_get_link_at (&match_start);
}

static void
test_markdown_blocks (void)
{
  g_autoptr(GtkTextBuffer) buffer = gtk_text_buffer_new (NULL);
  g_autofree char *text = NULL;

  text = render (buffer,
                 "# Monthly sales\n"
                 "\n"
                 "Revenue grew by **12 %** in *March*, see `sales.csv`\n"
                 "and the [chart](https://example.com/chart).\n"
                 "\n"
                 "## Steps\n"
                 "\n"
                 "- loaded the file\n"
                 "- summed by month_total\n"
                 "  over all regions\n"
                 "\n"
                 "1. first\n"
                 "2. second\n"
                 "\n"
                 "> A quote here\n"
                 "\n"
                 "```python\n"
                 "print(\"**not bold**\")\n"
                 "```\n"
                 "\n"
                 "| Month | Total |\n"
                 "|-------|------:|\n"
                 "| Jan   | 10    |\n"
                 "| February | 200 |\n"
                 "\n"
                 "Plain snake_case_name and 2 * 3 * 4 stay as they are.\n");

  /* The marks are gone, the words stay. */
  g_assert_null (strstr (text, "# Monthly"));
  g_assert_null (strstr (text, "**12"));
  g_assert_null (strstr (text, "](https"));
  g_assert_nonnull (strstr (text, "Monthly sales\n"));
  g_assert_nonnull (strstr (text, "• loaded the file\n"));
  g_assert_nonnull (strstr (text, "• summed by month_total over all regions\n"));
  g_assert_nonnull (strstr (text, "1. first\n2. second\n"));
  g_assert_nonnull (strstr (text, "print(\"**not bold**\")\n"));
  g_assert_nonnull (strstr (text, "snake_case_name and 2 * 3 * 4 stay"));

  g_assert_true (has_tag (buffer, "Monthly sales", "sk-md-h1"));
  g_assert_true (has_tag (buffer, "Steps", "sk-md-h2"));
  g_assert_true (has_tag (buffer, "12 %", "sk-md-bold"));
  g_assert_true (has_tag (buffer, "March", "sk-md-italic"));
  g_assert_true (has_tag (buffer, "sales.csv", "sk-md-code"));
  g_assert_true (has_tag (buffer, "chart", "sk-md-link"));
  g_assert_cmpstr (link_at (buffer, "chart"), ==, "https://example.com/chart");
  g_assert_null (link_at (buffer, "Revenue"));
  g_assert_true (has_tag (buffer, "loaded the file", "sk-md-list-1"));
  g_assert_true (has_tag (buffer, "A quote here", "sk-md-quote"));
  g_assert_true (has_tag (buffer, "print(", "sk-md-code-block"));
  g_assert_false (tag_anywhere (buffer, "not bold", "sk-md-bold"));
  g_assert_false (tag_anywhere (buffer, "case_name", "sk-md-italic"));

  /* The table's columns line up, its header in bold. */
  g_assert_true (has_tag (buffer, "Month     Total", "sk-md-bold"));
  g_assert_true (has_tag (buffer, "February", "sk-md-table"));
  g_assert_nonnull (strstr (text, "Jan       10"));
  g_assert_nonnull (strstr (text, "February  200"));
  g_clear_pointer (&text, g_free);

  /* Rendering again replaces everything, link tags included. */
  text = render (buffer, "Bare https://gnome.org, and <mailto:a@b.org>.");
  g_assert_cmpstr (text, ==, "Bare https://gnome.org, and mailto:a@b.org.");
  g_assert_cmpstr (link_at (buffer, "https://gnome.org"), ==, "https://gnome.org");
  g_assert_cmpstr (link_at (buffer, "mailto:"), ==, "mailto:a@b.org");
  g_clear_pointer (&text, g_free);

  text = render (buffer, NULL);
  g_assert_cmpstr (text, ==, "");
}

static void
test_markdown_looks_like (void)
{
  g_assert_false (sk_markdown_looks_like (NULL));
  g_assert_false (sk_markdown_looks_like (""));
  g_assert_false (sk_markdown_looks_like ("Computed 12 monthly totals.\nchart.svg created"));
  g_assert_false (sk_markdown_looks_like ("- just one dash"));
  g_assert_false (sk_markdown_looks_like ("total_sales_by_month written"));
  g_assert_true (sk_markdown_looks_like ("# Report\nAll good."));
  g_assert_true (sk_markdown_looks_like ("Totals:\n- Jan 10\n- Feb 20\n"));
  g_assert_true (sk_markdown_looks_like ("The **best** month"));
  g_assert_true (sk_markdown_looks_like ("a | b\n--|--\n1 | 2\n"));
}

/* Whatever comes in, the renderer returns, with text that is valid UTF-8. */
static void
test_markdown_fuzz (void)
{
  static const char alphabet[] = "*_`~[]()#>-+|!\\<>: \n\n\t1.ahttps/\"";
  g_autoptr(GtkTextBuffer) buffer = gtk_text_buffer_new (NULL);
  g_autoptr(GString) big = g_string_new (NULL);
  GRand *rand = g_rand_new_with_seed (11);

  for (guint round = 0; round < 1500; round++)
    {
      guint len = g_rand_int_range (rand, 0, 300);
      g_autofree char *input = g_malloc (len + 1);
      g_autofree char *text = NULL;

      for (guint i = 0; i < len; i++)
        input[i] = round % 5 == 0 ? (char) g_rand_int_range (rand, 1, 256)
                                  : alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
      input[len] = '\0';

      text = render (buffer, input);
      g_assert_true (g_utf8_validate (text, -1, NULL));
    }
  g_rand_free (rand);

  /* Unclosed marks by the thousand, deep nesting and an endless fence. */
  for (guint i = 0; i < 2000; i++)
    g_string_append (big, i % 50 == 49 ? "\n\n" : "**a *b _c `d [e](");
  g_string_append (big, "\n> > > > > > > > > > > > > > > > > deep\n```\nno end");
  {
    g_autofree char *text = render (GTK_TEXT_BUFFER (buffer), big->str);

    g_assert_true (g_str_has_suffix (text, "no end"));
  }
}

/* CSV */

static void
test_csv_edge_cases (void)
{
  g_autoptr(SkTable) table = NULL;

  table = sk_table_parse_text ("\xef\xbb\xbfname,note,amount\r\n"
                               "\"Smith, Jane\",\"said \"\"hi\"\"\",12.5\r\n"
                               "\r\n"
                               "Bob,\"two\nlines\",-3\r\n"
                               "short\r\n"
                               "\"\",,1e3\r\n"
                               "last,\"unterminated",
                               '\0', 100);
  g_assert_cmpuint (sk_table_get_n_columns (table), ==, 3);
  g_assert_cmpstr (sk_table_get_header (table, 0), ==, "name");
  g_assert_cmpstr (sk_table_get_header (table, 2), ==, "amount");
  g_assert_cmpstr (sk_table_get_header (table, 7), ==, "");
  /* The blank line is no row. */
  g_assert_cmpuint (sk_table_get_n_rows (table), ==, 5);
  g_assert_cmpuint (sk_table_get_n_kept_rows (table), ==, 5);
  g_assert_cmpstr (sk_table_get_cell (table, 0, 0), ==, "Smith, Jane");
  g_assert_cmpstr (sk_table_get_cell (table, 0, 1), ==, "said \"hi\"");
  g_assert_cmpstr (sk_table_get_cell (table, 1, 1), ==, "two\nlines");
  g_assert_cmpstr (sk_table_get_cell (table, 2, 0), ==, "short");
  g_assert_null (sk_table_get_cell (table, 2, 1));
  g_assert_cmpstr (sk_table_get_cell (table, 3, 0), ==, "");
  g_assert_cmpstr (sk_table_get_cell (table, 4, 1), ==, "unterminated");
  g_assert_null (sk_table_get_cell (table, 5, 0));
  g_assert_false (sk_table_column_is_numeric (table, 0));
  g_assert_true (sk_table_column_is_numeric (table, 2));
  g_clear_pointer (&table, sk_table_free);

  /* Tabs and semicolons are found in the first line, commas in quotes are
   * not separators there. */
  table = sk_table_parse_text ("a\tb, c\n1\t2\n", '\0', 10);
  g_assert_cmpuint (sk_table_get_n_columns (table), ==, 2);
  g_assert_cmpstr (sk_table_get_cell (table, 0, 1), ==, "2");
  g_clear_pointer (&table, sk_table_free);

  table = sk_table_parse_text ("\"x,y\";z\n1,5;2\n", '\0', 10);
  g_assert_cmpstr (sk_table_get_header (table, 0), ==, "x,y");
  g_assert_cmpstr (sk_table_get_cell (table, 0, 0), ==, "1,5");
  g_clear_pointer (&table, sk_table_free);

  table = sk_table_parse_text ("", '\0', 10);
  g_assert_cmpuint (sk_table_get_n_columns (table), ==, 0);
  g_assert_cmpuint (sk_table_get_n_rows (table), ==, 0);
  g_clear_pointer (&table, sk_table_free);

  /* Invalid UTF-8 is replaced, not passed on. */
  table = sk_table_parse_text ("h\n\xff\xfe ok\n", ',', 10);
  g_assert_true (g_utf8_validate (sk_table_get_cell (table, 0, 0), -1, NULL));
}

static void
test_csv_cap (void)
{
  g_autoptr(GString) csv = g_string_new ("month,total\n");
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(SkTable) table = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *rows = NULL;

  for (guint i = 0; i < 12345; i++)
    g_string_append_printf (csv, "\"m,%u\",%u\n", i, i * 7);

  stream = g_memory_input_stream_new_from_data (g_strdup (csv->str), csv->len, g_free);
  table = sk_table_parse (stream, '\0', 500, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_table_get_n_kept_rows (table), ==, 500);
  g_assert_cmpuint (sk_table_get_n_rows (table), ==, 12345);
  g_assert_true (sk_table_get_counted_all (table));
  g_assert_cmpstr (sk_table_get_cell (table, 499, 0), ==, "m,499");
  g_assert_null (sk_table_get_cell (table, 500, 0));

  rows = sk_table_describe_rows (table);
  g_assert_true (g_str_has_prefix (rows, "First 500 of 12"));
  g_assert_true (g_str_has_suffix (rows, "345 rows"));
  g_clear_pointer (&rows, g_free);
  g_clear_pointer (&table, sk_table_free);

  table = sk_table_parse_text ("a\n1\n", ',', 500);
  rows = sk_table_describe_rows (table);
  g_assert_cmpstr (rows, ==, "1 row");
}

static void
test_csv_view (void)
{
  SkTable *table = sk_table_parse_text ("city,people\nOslo,709000\nBergen,291000\n", '\0', 10);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *view = sk_table_view_new (table);
  GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (view));
  g_autoptr(GtkColumnViewColumn) first = g_list_model_get_item (columns, 0);
  g_autoptr(GtkColumnViewColumn) second = g_list_model_get_item (columns, 1);

  g_assert_cmpuint (g_list_model_get_n_items (columns), ==, 2);
  g_assert_cmpstr (gtk_column_view_column_get_title (first), ==, "city");
  g_assert_cmpstr (gtk_column_view_column_get_title (second), ==, "people");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)))), ==, 2);

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_window_set_child (GTK_WINDOW (window), scroller);
  gtk_window_set_default_size (GTK_WINDOW (window), 400, 300);
  gtk_window_present (GTK_WINDOW (window));
  SK_TEST_WAIT_UNTIL (gtk_widget_get_mapped (view), WAIT_MSEC);

  /* Numbers are right-aligned; their labels show the fields. */
  {
    gboolean found_number = FALSE;

    for (GtkWidget *w = gtk_widget_get_first_child (view); w != NULL; w = gtk_widget_get_next_sibling (w))
      {
        GtkWidget *row = w;

        /* columnview > listview > row > cell > label */
        for (GtkWidget *r = gtk_widget_get_first_child (row); r != NULL; r = gtk_widget_get_next_sibling (r))
          for (GtkWidget *cell = gtk_widget_get_first_child (r); cell != NULL; cell = gtk_widget_get_next_sibling (cell))
            {
              GtkWidget *label = gtk_widget_get_first_child (cell);

              if (GTK_IS_LABEL (label) && g_strcmp0 (gtk_label_get_label (GTK_LABEL (label)), "709000") == 0)
                {
                  g_assert_cmpfloat (gtk_label_get_xalign (GTK_LABEL (label)), ==, 1.0);
                  found_number = TRUE;
                }
            }
      }
    g_assert_true (found_number);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The image viewer */

static GtkWidget *
find_widget (GtkWidget *root,
             GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    return root;

  for (GtkWidget *w = gtk_widget_get_first_child (root); w != NULL; w = gtk_widget_get_next_sibling (w))
    {
      GtkWidget *found = find_widget (w, type);

      if (found != NULL)
        return found;
    }

  return NULL;
}

static GdkTexture *
make_texture (int width,
              int height)
{
  g_autoptr(GBytes) bytes = NULL;
  guchar *pixels = g_malloc0 (width * height * 4);

  for (int i = 0; i < width * height; i++)
    pixels[i * 4 + 3] = 255;
  bytes = g_bytes_new_take (pixels, width * height * 4);
  return gdk_memory_texture_new (width, height, GDK_MEMORY_R8G8B8A8, bytes, width * 4);
}

static void
test_viewer_zoom (void)
{
  g_autofree char *dir = g_dir_make_tmp ("skele-viewer-XXXXXX", NULL);
  g_autofree char *first_path = g_build_filename (dir, "big.png", NULL);
  g_autofree char *second_path = g_build_filename (dir, "small.png", NULL);
  g_autoptr(GdkTexture) big = make_texture (2000, 1500);
  g_autoptr(GdkTexture) small = make_texture (50, 40);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  GtkWidget *parent = gtk_window_new ();
  SkImageViewer *viewer;
  GtkWidget *scroller;
  GtkAdjustment *hadjustment;
  double zoom;

  g_assert_true (gdk_texture_save_to_png (big, first_path));
  g_assert_true (gdk_texture_save_to_png (small, second_path));
  g_ptr_array_add (files, g_file_new_for_path (first_path));
  g_ptr_array_add (files, g_file_new_for_path (second_path));

  gtk_window_set_default_size (GTK_WINDOW (parent), 800, 600);
  gtk_window_present (GTK_WINDOW (parent));
  SK_TEST_WAIT_UNTIL (gtk_widget_get_mapped (parent), WAIT_MSEC);

  viewer = SK_IMAGE_VIEWER (sk_image_viewer_new (GTK_WINDOW (parent), files, 0, big));
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (viewer)));
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (viewer)) == GTK_WINDOW (parent));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (viewer)), ==, "big.png");
  gtk_window_present (GTK_WINDOW (viewer));

  /* A large image is fitted to the window at first. */
  SK_TEST_WAIT_UNTIL (sk_image_viewer_get_zoom (viewer) < 0.9, WAIT_MSEC);
  g_assert_true (sk_image_viewer_get_best_fit (viewer));
  zoom = sk_image_viewer_get_zoom (viewer);

  gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.zoom-in", NULL);
  g_assert_false (sk_image_viewer_get_best_fit (viewer));
  g_assert_cmpfloat_with_epsilon (sk_image_viewer_get_zoom (viewer), zoom * 1.25, 0.001);
  gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.zoom-out", NULL);
  gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.zoom-out", NULL);
  g_assert_cmpfloat_with_epsilon (sk_image_viewer_get_zoom (viewer), zoom / 1.25, 0.001);

  /* At its own size it is larger than the window, and scrolls. */
  gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.original-size", NULL);
  g_assert_cmpfloat (sk_image_viewer_get_zoom (viewer), ==, 1.0);
  scroller = find_widget (GTK_WIDGET (viewer), GTK_TYPE_SCROLLED_WINDOW);
  g_assert_nonnull (scroller);
  hadjustment = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scroller));
  SK_TEST_WAIT_UNTIL (gtk_adjustment_get_upper (hadjustment) >= 2000, WAIT_MSEC);
  g_assert_cmpfloat (gtk_adjustment_get_page_size (hadjustment), <, 2000);

  gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.best-fit", NULL);
  g_assert_true (sk_image_viewer_get_best_fit (viewer));
  SK_TEST_WAIT_UNTIL (sk_image_viewer_get_zoom (viewer) < 0.9, WAIT_MSEC);

  /* The next image; a small one is not enlarged to fit. */
  gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.next", NULL);
  g_assert_true (g_file_equal (sk_image_viewer_get_file (viewer), g_ptr_array_index (files, 1)));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (viewer)), ==, "small.png");
  SK_TEST_WAIT_UNTIL (sk_image_viewer_get_zoom (viewer) == 1.0, WAIT_MSEC);
  gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.previous", NULL);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (viewer)), ==, "big.png");

  /* Escape closes it. */
  g_object_ref (viewer);
  gtk_widget_activate_action (GTK_WIDGET (viewer), "window.close", NULL);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (viewer)));
  g_object_unref (viewer);

  gtk_window_destroy (GTK_WINDOW (parent));
  sk_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  if (!sk_test_cells_init (&argc, &argv))
    return 0;

  g_test_add_func ("/output-views/markdown/blocks", test_markdown_blocks);
  g_test_add_func ("/output-views/markdown/looks-like", test_markdown_looks_like);
  g_test_add_func ("/output-views/markdown/fuzz", test_markdown_fuzz);
  g_test_add_func ("/output-views/csv/edge-cases", test_csv_edge_cases);
  g_test_add_func ("/output-views/csv/cap", test_csv_cap);
  g_test_add_func ("/output-views/csv/view", test_csv_view);
  g_test_add_func ("/output-views/viewer/zoom", test_viewer_zoom);

  return g_test_run ();
}
