/* test-window-export.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Export… and Import… in the window (DESIGN §11): the dialog offers the
 * formats; the workflow is written in a thread, from a copy taken when
 * asked, as a flowchart, a graph, a picture, a report, or a folder that
 * Snakemake runs; a flowchart becomes a workflow that opens, with what
 * was left out said, and bad input writes nothing.
 */

#define G_LOG_DOMAIN "test-window-export"

#include "sk-test-window.h"

static const guint8 png_signature[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

static char *
read_file (GFile *file,
           gsize *length)
{
  char *contents = NULL;

  g_assert_true (g_file_load_contents (file, NULL, &contents, length, NULL, NULL));
  return contents;
}

static void
test_export (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GFile) chart = g_file_new_build_filename (f->dir, "out", "sales.mmd", NULL);
  g_autoptr(GFile) svg = g_file_new_build_filename (f->dir, "out", "sales.svg", NULL);
  g_autoptr(GFile) png = g_file_new_build_filename (f->dir, "out", "sales.png", NULL);
  g_autoptr(GFile) out = g_file_new_build_filename (f->dir, "out", NULL);
  g_autofree char *text = NULL;
  SkWindow *window = new_window ();
  AdwMessageDialog *dialog;
  GtkWidget *formats;
  gsize length;

  copy_example (f);
  g_assert_true (g_file_make_directory (out, NULL, NULL));
  open_and_wait (window, f->folder);

  /* The dialog offers the eight formats, and cancelling writes nothing. */
  g_assert_true (action_enabled (window, "export"));
  activate (window, "export");
  dialog = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  formats = adw_message_dialog_get_extra_child (dialog);
  g_assert_true (GTK_IS_DROP_DOWN (formats));
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (GTK_DROP_DOWN (formats))), ==, 8);
  respond (dialog, "_Cancel");

  /* A flowchart is quick, and says so when written. */
  _sk_window_export_to (window, "mermaid", chart);
  SK_TEST_WAIT_UNTIL (!window->exporting, WAIT_MS);
  text = read_file (chart, &length);
  g_assert_true (g_str_has_prefix (text, "flowchart TD\n"));
  sk_test_assert_contains (text, "%% === WORKFLOW_CONFIG ===");
  sk_test_assert_contains (_sk_window_get_last_toast (window), "Exported “sales report” to sales.mmd");
  g_clear_pointer (&text, g_free);

  /* A picture is drawn in a thread, while a notification says so. */
  _sk_window_export_to (window, "svg", svg);
  sk_test_assert_contains (_sk_window_get_last_toast (window), "Drawing “sales report”");
  SK_TEST_WAIT_UNTIL (g_strcmp0 (_sk_window_get_last_toast (window), "Exported “sales report” to sales.svg") == 0,
                      WAIT_MS);
  text = read_file (svg, &length);
  sk_test_assert_contains (text, "<svg");
  sk_test_assert_contains (text, "load sales");
  g_clear_pointer (&text, g_free);

  _sk_window_export_to (window, "png", png);
  SK_TEST_WAIT_UNTIL (g_strcmp0 (_sk_window_get_last_toast (window), "Exported “sales report” to sales.png") == 0,
                      WAIT_MS);
  text = read_file (png, &length);
  g_assert_cmpuint (length, >, sizeof png_signature);
  g_assert_cmpmem (text, sizeof png_signature, png_signature, sizeof png_signature);

  g_clear_pointer (&text, g_free);

  /* A report is one page. */
  {
    g_autoptr(GFile) html = g_file_new_build_filename (f->dir, "out", "sales.html", NULL);

    _sk_window_export_to (window, "html", html);
    sk_test_assert_contains (_sk_window_get_last_toast (window), "Exporting “sales report”");
    SK_TEST_WAIT_UNTIL (g_strcmp0 (_sk_window_get_last_toast (window), "Exported “sales report” to sales.html") == 0,
                        WAIT_MS);
    text = read_file (html, &length);
    sk_test_assert_contains (text, "<html");
    sk_test_assert_contains (text, "load sales");
    g_clear_pointer (&text, g_free);
  }

  /* A Snakemake workflow is a folder, which must be empty; an edit made
   * while it is written does not reach it. */
  {
    g_autoptr(GFile) cluster = g_file_new_build_filename (f->dir, "out", "cluster", NULL);
    g_autoptr(GFile) snakefile = g_file_get_child (cluster, "Snakefile");
    SkProject *project = sk_window_get_project (window);
    g_autoptr(SkNode) first = g_list_model_get_item (G_LIST_MODEL (project), 0);
    AdwMessageDialog *refusal;

    _sk_window_export_to (window, "snakemake", cluster);
    sk_node_set_name (first, "renamed while exporting");
    SK_TEST_WAIT_UNTIL (!window->exporting, WAIT_MS);
    sk_test_assert_contains (_sk_window_get_last_toast (window),
                             "Exported “sales report” to cluster; its README.md says how to run it");
    text = read_file (snakefile, &length);
    sk_test_assert_contains (text, "rule load_sales:");
    g_assert_null (strstr (text, "renamed"));
    g_clear_pointer (&text, g_free);

    _sk_window_export_to (window, "python", cluster);
    SK_TEST_WAIT_UNTIL (!window->exporting, WAIT_MS);
    refusal = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
    g_assert_nonnull (refusal);
    g_assert_cmpstr (adw_message_dialog_get_heading (refusal), ==, "Could Not Export the Workflow");
    sk_test_assert_contains (adw_message_dialog_get_body (refusal), "holds files already");
    respond (refusal, "_Close");
  }

  destroy_window (window);
}

static void
test_import (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GFile) chart = g_file_new_build_filename (f->dir, "chart.mmd", NULL);
  g_autoptr(GFile) bad = g_file_new_build_filename (f->dir, "bad.mmd", NULL);
  g_autoptr(GFile) cyclic = g_file_new_build_filename (f->dir, "cyclic.mmd", NULL);
  g_autoptr(GFile) fresh = g_file_new_build_filename (f->dir, "fresh", NULL);
  g_autoptr(GFile) second = g_file_new_build_filename (f->dir, "second", NULL);
  g_autoptr(GFile) nowhere = g_file_new_build_filename (f->dir, "nowhere", NULL);
  SkWindow *window = new_window ();
  SkWindow *other;
  SkProject *project;
  AdwMessageDialog *dialog;

  sk_test_write_text (f->dir, "chart.mmd",
                      "flowchart LR\n  A[Load orders] --> B{Big order?}\n"
                      "  B -->|yes| C[Call the customer]\n");
  sk_test_write_text (f->dir, "bad.mmd", "pie title Pets\n  \"Dogs\" : 386\n");
  sk_test_write_text (f->dir, "cyclic.mmd", "graph TD\n  A[Ask] --> B[Answer]\n  B --> A\n");
  g_assert_true (g_file_make_directory (fresh, NULL, NULL));

  /* A window without a workflow opens the imported one itself. */
  _sk_window_import_into (window, chart, fresh);
  SK_TEST_WAIT_UNTIL (sk_window_get_project (window) != NULL &&
                      g_strcmp0 (visible_page (window), "workflow") == 0, WAIT_MS);
  project = sk_window_get_project (window);
  g_assert_true (g_file_equal (sk_project_get_folder (project), fresh));
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
  g_assert_nonnull (sk_project_get_node_by_key (project, "call_the_customer"));
  g_assert_true (exists_in (f, "fresh/process.json"));

  /* A folder that holds a workflow is not overwritten. */
  _sk_window_import_into (window, bad, fresh);
  dialog = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  sk_test_assert_contains (adw_message_dialog_get_body (dialog), "holds a workflow already");
  respond (dialog, "_Close");

  /* What is not a flowchart says so, and writes nothing. */
  _sk_window_import_into (window, bad, nowhere);
  dialog = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Could Not Import the Flowchart");
  sk_test_assert_contains (adw_message_dialog_get_body (dialog), "Nothing was written.");
  respond (dialog, "_Close");
  g_assert_false (exists_in (f, "nowhere/process.json"));

  /* A window with a workflow opens the import in a new one, and says
   * what was left out. */
  _sk_window_import_into (window, cyclic, second);
  SK_TEST_WAIT_UNTIL (g_list_length (gtk_application_get_windows (GTK_APPLICATION (sk_test_window_app ()))) == 2,
                      WAIT_MS);
  other = SK_WINDOW (gtk_application_get_windows (GTK_APPLICATION (sk_test_window_app ()))->data);
  if (other == window)
    other = SK_WINDOW (gtk_application_get_windows (GTK_APPLICATION (sk_test_window_app ()))->next->data);
  SK_TEST_WAIT_UNTIL (sk_window_get_project (other) != NULL, WAIT_MS);
  g_assert_cmpuint (sk_project_get_n_nodes (sk_window_get_project (other)), ==, 2);
  dialog = ADW_MESSAGE_DIALOG (find_dialog (other, ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Some of the Flowchart Was Left Out");
  sk_test_assert_contains (adw_message_dialog_get_body (dialog), "cycle");
  respond (dialog, "_Close");
  g_assert_true (sk_window_get_project (window) == project);

  destroy_window (other);
  destroy_window (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!sk_test_window_init (&argc, &argv))
    return 0;

  SK_TEST_WINDOW_ADD ("export/export", test_export);
  SK_TEST_WINDOW_ADD ("export/import", test_import);

  return sk_test_window_run ();
}
