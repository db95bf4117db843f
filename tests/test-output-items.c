/* test-output-items.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The output cell's item picker for a for-each step, checked against item
 * folders and records written as the runner writes them (DESIGN §10).
 */

#include "config.h"

#include <string.h>

#include "sk-output-cell.h"
#include "sk-test-cells.h"

#define WAIT_MSEC 5000

#define STEP_REPORT \
  "Ran for each of 2 items: 1 ran, 0 up to date, 0 skipped, 1 failed.\n" \
  "Item 1: Counted 12 rows in north.csv and wrote their total\n" \
  "Item 2: failed\n"

static const char item_0_record[] =
  "{\n"
  "  \"status\": \"success\",\n"
  "  \"fingerprint\": \"5f1c0e0d2b4a\",\n"
  "  \"worker\": \"isolated\",\n"
  "  \"finished\": \"2026-11-24T18:30:02Z\",\n"
  "  \"seconds\": 0.41,\n"
  "  \"output_text\": \"Summed the amounts of one sales file.\\n"
  "Counted 12 rows in north.csv and wrote their total\",\n"
  "  \"output_files\": [\"north_total.txt\"]\n"
  "}\n";

static const char item_1_record[] =
  "{\n"
  "  \"status\": \"failed\",\n"
  "  \"fingerprint\": \"9ad3371e8c20\",\n"
  "  \"worker\": \"isolated\",\n"
  "  \"finished\": \"2026-11-24T18:30:02Z\",\n"
  "  \"seconds\": 0.38,\n"
  "  \"error\": \"south.csv has no column “amount”\",\n"
  "  \"detail\": \"Traceback (most recent call last):\\n  KeyError: 'amount'\",\n"
  "  \"output_text\": \"\",\n"
  "  \"output_files\": [\"columns.txt\"]\n"
  "}\n";

static const char item_2_record[] =
  "{\n"
  "  \"status\": \"success\",\n"
  "  \"seconds\": 0.2,\n"
  "  \"output_text\": \"Summed the amounts of one sales file.\\n"
  "Counted 3 rows in east.csv and wrote their total and some more words\",\n"
  "  \"output_files\": [\"east_total.txt\"]\n"
  "}\n";

static void
set_foreach (SkNode *node)
{
  g_autoptr(JsonObject) object = sk_node_to_json (node);
  g_autoptr(JsonNode) parsed = NULL;
  g_autoptr(GError) error = NULL;

  parsed = json_from_string ("{\"foreach\": {\"prior\": \"1\", \"path\": \"files\"}}", &error);
  g_assert_no_error (error);
  json_object_set_member (object, "skele", g_steal_pointer (&parsed));
  g_assert_true (sk_node_update_from_json (node, object, &error));
  g_assert_no_error (error);
}

static GStrv
list_strings (GListModel *model)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  guint n = g_list_model_get_n_items (model);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkStringObject) item = g_list_model_get_item (model, i);

      g_strv_builder_add (builder, gtk_string_object_get_string (item));
    }

  return g_strv_builder_end (builder);
}

static GStrv
listed_files (GtkWidget *cell)
{
  return list_strings (gtk_drop_down_get_model (child (cell, "files_drop_down")));
}

static GStrv
listed_items (GtkWidget *cell)
{
  return list_strings (gtk_drop_down_get_model (child (cell, "items_drop_down")));
}

/* Chooses the item at @position as the user would and waits until the
 * preview shows one of its files, or nothing. */
static void
pick_item (GtkWidget *cell,
           guint     *loaded,
           guint      position)
{
  guint before = *loaded;

  gtk_drop_down_set_selected (child (cell, "items_drop_down"), position);
  SK_TEST_WAIT_UNTIL (*loaded > before, WAIT_MSEC);
}

static char *
preview_text (GtkWidget *cell)
{
  return buffer_text (gtk_text_view_get_buffer (child (cell, "text_preview")));
}

static void
test_output_items (Fixture       *fixture,
                   gconstpointer  data)
{
  GtkWidget *cell = sk_output_cell_new ();
  g_autofree char *folder = g_build_filename (fixture->dir, sk_node_get_key (fixture->b), NULL);
  g_auto(GStrv) items = NULL;
  g_auto(GStrv) files = NULL;
  g_autofree char *text = NULL;
  GtkWidget *window;
  GtkWidget *item_label;
  GtkWidget *focus;
  GtkWidget *popover;
  guint loaded = 0;

  set_foreach (fixture->b);
  sk_test_write_text (folder, "items/0/.skele/record.json", item_0_record);
  sk_test_write_text (folder, "items/0/north_total.txt", "12 rows, 4 310.50 in total\n");
  sk_test_write_text (folder, "items/1/.skele/record.json", item_1_record);
  sk_test_write_text (folder, "items/1/columns.txt", "region,total\n");
  sk_node_set_output_text (fixture->b, STEP_REPORT);
  sk_node_set_output_files (fixture->b, SK_TEST_STRV ("items/0/north_total.txt",
                                                      "items/1/columns.txt"));
  sk_node_set_error (fixture->b, "1 of 2 items failed: south.csv has no column “amount”", NULL);
  sk_node_set_state (fixture->b, SK_NODE_STATE_FAILED);

  g_object_set (cell, "project", fixture->project, NULL);
  g_signal_connect_swapped (cell, "preview-loaded", G_CALLBACK (count_cb), &loaded);
  window = present (cell);

  /* An ordinary step has no items to pick. */
  sk_cell_set_node (SK_CELL (cell), fixture->a);
  g_assert_false (shown (cell, "items_box"));

  sk_cell_set_node (SK_CELL (cell), fixture->b);
  g_assert_true (shown (cell, "items_box"));
  items = listed_items (cell);
  g_assert_cmpuint (g_strv_length (items), ==, 3);
  g_assert_cmpstr (items[0], ==, "All items");
  g_assert_cmpstr (items[1], ==, "Item 1 — Counted 12 rows in north.csv and…");
  g_assert_cmpstr (items[2], ==, "Item 2 — failed");
  g_clear_pointer (&items, g_strfreev);
  g_assert_cmpuint (gtk_drop_down_get_selected (child (cell, "items_drop_down")), ==, 0);
  g_assert_cmpstr (label (cell, "output_label"), ==, STEP_REPORT);

  /* The row is reached from the keyboard by its label's mnemonic. */
  item_label = gtk_widget_get_first_child (child (cell, "items_box"));
  g_assert_true (GTK_IS_LABEL (item_label));
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (item_label)), ==, "_Item");
  g_assert_true (gtk_label_get_use_underline (GTK_LABEL (item_label)));
  g_assert_true (gtk_label_get_mnemonic_widget (GTK_LABEL (item_label)) ==
                 child (cell, "items_drop_down"));
  g_assert_cmpuint (gdk_keyval_to_lower (gtk_label_get_mnemonic_keyval (GTK_LABEL (item_label))), ==,
                    GDK_KEY_i);
  /* Like Alt+I, it opens the list of items, with the focus in it. */
  g_assert_true (gtk_widget_mnemonic_activate (item_label, FALSE));
  SK_TEST_WAIT_UNTIL ((focus = gtk_root_get_focus (GTK_ROOT (window))) != NULL &&
                      gtk_widget_is_ancestor (focus, child (cell, "items_drop_down")),
                      WAIT_MSEC);
  popover = gtk_widget_get_ancestor (focus, GTK_TYPE_POPOVER);
  g_assert_nonnull (popover);
  gtk_popover_popdown (GTK_POPOVER (popover));

  /* The failed item: its error, and only its files. */
  pick_item (cell, &loaded, 2);
  g_assert_true (shown (cell, "error_box"));
  g_assert_cmpstr (label (cell, "error_label"), ==, "South.csv has no column “amount”.");
  g_assert_true (shown (cell, "details_expander"));
  text = buffer_text (gtk_text_view_get_buffer (child (cell, "detail_view")));
  g_assert_cmpstr (text, ==, "Traceback (most recent call last):\n  KeyError: 'amount'");
  g_clear_pointer (&text, g_free);
  g_assert_false (shown (cell, "explain_button"));
  g_assert_false (shown (cell, "output_label"));
  g_assert_false (shown (cell, "no_output_label"));
  files = listed_files (cell);
  g_assert_cmpstrv (files, SK_TEST_STRV ("items/1/columns.txt"));
  g_clear_pointer (&files, g_strfreev);
  g_assert_cmpstr (sk_output_cell_get_selected_file (SK_OUTPUT_CELL (cell)), ==,
                   "items/1/columns.txt");
  g_assert_cmpstr (sk_output_cell_get_preview_kind (SK_OUTPUT_CELL (cell)), ==, "text");
  text = preview_text (cell);
  g_assert_cmpstr (text, ==, "region,total\n");
  g_clear_pointer (&text, g_free);

  /* The item that ran: its own report and file, no error. */
  pick_item (cell, &loaded, 1);
  g_assert_false (shown (cell, "error_box"));
  g_assert_true (shown (cell, "output_label"));
  g_assert_cmpstr (label (cell, "output_label"), ==,
                   "Summed the amounts of one sales file.\n"
                   "Counted 12 rows in north.csv and wrote their total");
  files = listed_files (cell);
  g_assert_cmpstrv (files, SK_TEST_STRV ("items/0/north_total.txt"));
  g_clear_pointer (&files, g_strfreev);
  g_assert_cmpstr (sk_output_cell_get_preview_kind (SK_OUTPUT_CELL (cell)), ==, "text");
  text = preview_text (cell);
  g_assert_cmpstr (text, ==, "12 rows, 4 310.50 in total\n");
  g_clear_pointer (&text, g_free);

  /* All items: the step's own report, error and files again. */
  pick_item (cell, &loaded, 0);
  g_assert_cmpstr (label (cell, "output_label"), ==, STEP_REPORT);
  g_assert_cmpstr (label (cell, "error_label"), ==,
                   "1 of 2 items failed: south.csv has no column “amount”.");
  g_assert_true (shown (cell, "explain_button"));
  files = listed_files (cell);
  g_assert_cmpstrv (files, SK_TEST_STRV ("items/0/north_total.txt", "items/1/columns.txt"));
  g_clear_pointer (&files, g_strfreev);

  /* Another run adds an item; the chosen one stays chosen. */
  pick_item (cell, &loaded, 2);
  sk_node_set_state (fixture->b, SK_NODE_STATE_RUNNING);
  sk_test_write_text (folder, "items/2/.skele/record.json", item_2_record);
  sk_test_write_text (folder, "items/2/east_total.txt", "3 rows\n");
  sk_node_set_state (fixture->b, SK_NODE_STATE_SUCCEEDED);
  items = listed_items (cell);
  g_assert_cmpuint (g_strv_length (items), ==, 4);
  g_assert_cmpstr (items[3], ==, "Item 3 — Counted 3 rows in east.csv and…");
  g_clear_pointer (&items, g_strfreev);
  g_assert_cmpuint (gtk_drop_down_get_selected (child (cell, "items_drop_down")), ==, 2);
  g_assert_cmpstr (label (cell, "error_label"), ==, "South.csv has no column “amount”.");

  /* Another step shows all of its own, and an ordinary one hides the row. */
  sk_cell_set_node (SK_CELL (cell), fixture->a);
  g_assert_false (shown (cell, "items_box"));
  sk_cell_set_node (SK_CELL (cell), fixture->b);
  g_assert_true (shown (cell, "items_box"));
  g_assert_cmpuint (gtk_drop_down_get_selected (child (cell, "items_drop_down")), ==, 0);

  dismiss (window, cell);
}

int
main (int   argc,
      char *argv[])
{
  if (!sk_test_cells_init (&argc, &argv))
    return 0;

  g_test_add ("/output-cell/items", Fixture, NULL,
              fixture_setup, test_output_items, fixture_teardown);

  return g_test_run ();
}
