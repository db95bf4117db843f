/* test-window.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window with a real application: opening, saving, undo, step
 * folders that follow their names, crash recovery, running, the properties
 * dialog, closing with unsaved changes, and the coding agent (played by the
 * fake LLM server) writing and rewriting code. Every test works on its own
 * temporary workflow folder and checks the files on disk as well as the
 * model.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>

#include "sk-application.h"
#include "sk-canvas-private.h"
#include "sk-code-cell-private.h"
#include "sk-fake-llm.h"
#include "sk-step-folder.h"
#include "sk-properties-dialog.h"
#include "sk-test-util.h"
#include "sk-widgets.h"
#include "sk-window-private.h"

/* Long enough for a loaded machine; the waits end as soon as they can. */
#define WAIT_MS 20000
#define RUN_WAIT_MS 90000
#define EXAMPLE_NAME "sales-report"

static SkApplication *app;
static char *python_path;

typedef struct
{
  char  *dir;
  GFile *folder;
} Fixture;

/* Main loop helpers ------------------------------------------------------ */

/* Dispatches whatever is ready, without waiting. */
static void
drain (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Closes the history's open step, as the next main loop dispatch would. */
static void
flush_history (SkWindow *window)
{
  sk_history_flush (_sk_window_get_history (window));
  drain ();
}

/* Files ------------------------------------------------------------------ */

static gboolean
exists_in (Fixture    *f,
           const char *relative)
{
  return sk_test_exists (f->dir, relative);
}

static char *
recovery_path (GFile *folder)
{
  g_autoptr(GFile) recovery = sk_step_folder_get_recovery_file (folder);

  return g_file_get_path (recovery);
}

static gboolean
recovery_exists (GFile *folder)
{
  g_autofree char *path = recovery_path (folder);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static void
copy_example (Fixture *f)
{
  const char *examples = g_getenv ("SKELE_EXAMPLES_DIR");
  g_autoptr(GFile) source = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (examples);
  source = g_file_new_build_filename (examples, EXAMPLE_NAME, NULL);
  sk_step_folder_copy_workflow (source, f->folder, &error);
  g_assert_no_error (error);
  g_assert_true (exists_in (f, "process.json"));
}

static SkProject *
load_from_disk (GFile *folder)
{
  g_autoptr(GError) error = NULL;
  SkProject *project = sk_project_load (folder, &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  return project;
}

/* Windows and dialogs ---------------------------------------------------- */

static GtkWidget *
template_child (SkWindow   *window,
                const char *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (window), SK_TYPE_WINDOW, name);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

static GtkWidget *
step_list_child (SkWindow   *window,
                 const char *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (_sk_window_get_step_list (window)),
                                                  SK_TYPE_STEP_LIST, name);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

static const char *
visible_page (SkWindow *window)
{
  return gtk_stack_get_visible_child_name (GTK_STACK (template_child (window, "stack")));
}

static SkWindow *
new_window (void)
{
  SkWindow *window = sk_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static gboolean
loaded (SkWindow *window)
{
  return (sk_window_get_project (window) != NULL &&
          !_sk_canvas_is_arranging (_sk_window_get_canvas (window))) ||
         g_strcmp0 (visible_page (window), "error") == 0;
}

/* Opens @folder and waits until it is shown, including the layout that a
 * workflow without positions gets on opening.
 */
static SkProject *
open_and_wait (SkWindow *window,
               GFile    *folder)
{
  sk_window_open (window, folder, FALSE);
  g_assert_cmpstr (visible_page (window), ==, "loading");
  SK_TEST_WAIT_UNTIL (loaded (window), WAIT_MS);
  g_assert_cmpstr (visible_page (window), ==, "workflow");
  drain ();

  return sk_window_get_project (window);
}

static SkProject *
create_and_open (SkWindow   *window,
                 Fixture    *f,
                 const char *name)
{
  g_autoptr(GFile) folder = g_file_get_child (f->folder, name);

  sk_window_open (window, folder, TRUE);
  g_assert_nonnull (sk_window_get_project (window));
  g_assert_cmpstr (visible_page (window), ==, "workflow");
  drain ();

  return sk_window_get_project (window);
}

static gboolean
action_enabled (SkWindow   *window,
                const char *name)
{
  return _sk_window_get_action_enabled (window, name);
}

static void
activate (SkWindow   *window,
          const char *name)
{
  g_autofree char *action = g_strconcat ("win.", name, NULL);

  g_assert_true (action_enabled (window, name));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), action, NULL));
}

/* Returns the visible window of @type that is transient for @parent. */
static GtkWindow *
find_dialog (SkWindow *parent,
             GType     type)
{
  GList *toplevels = gtk_window_list_toplevels ();
  GtkWindow *found = NULL;

  for (GList *l = toplevels; l != NULL; l = l->next)
    {
      if (G_TYPE_CHECK_INSTANCE_TYPE (l->data, type) &&
          gtk_window_get_transient_for (l->data) == GTK_WINDOW (parent) &&
          gtk_widget_get_visible (l->data))
        {
          found = l->data;
          break;
        }
    }
  g_list_free (toplevels);

  return found;
}

static guint
count_dialogs (SkWindow *parent,
               GType     type)
{
  GList *toplevels = gtk_window_list_toplevels ();
  guint n = 0;

  for (GList *l = toplevels; l != NULL; l = l->next)
    if (G_TYPE_CHECK_INSTANCE_TYPE (l->data, type) &&
        gtk_window_get_transient_for (l->data) == GTK_WINDOW (parent))
      n++;
  g_list_free (toplevels);

  return n;
}

static GtkWidget *
find_button (GtkWidget  *widget,
             const char *label)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    return widget;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, label);

      if (found != NULL)
        return found;
    }

  return NULL;
}

/* Answers a message dialog by clicking the button labelled @label, the way
 * a person does, and waits until the dialog is gone.
 */
static void
respond (AdwMessageDialog *dialog,
         const char       *label)
{
  GtkWidget *button = find_button (GTK_WIDGET (dialog), label);

  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_signal_emit_by_name (button, "clicked");
  SK_TEST_WAIT_UNTIL (dialog == NULL, WAIT_MS);
}

/* Destroys @window without asking about unsaved changes, and checks that
 * nothing keeps it alive.
 */
static void
destroy_window (SkWindow *window)
{
  GList *toplevels = gtk_window_list_toplevels ();

  for (GList *l = toplevels; l != NULL; l = l->next)
    if (gtk_window_get_transient_for (l->data) == GTK_WINDOW (window))
      gtk_window_destroy (l->data);
  g_list_free (toplevels);

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_destroy (GTK_WINDOW (window));
  SK_TEST_WAIT_UNTIL (window == NULL, WAIT_MS);
}

static SkNode *
node_by_key (SkWindow   *window,
             const char *key)
{
  SkNode *node = sk_project_get_node_by_key (sk_window_get_project (window), key);

  g_assert_nonnull (node);
  return node;
}

/* Fixture ----------------------------------------------------------------- */

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("skele-window-XXXXXX", &error);
  g_assert_no_error (error);
  f->folder = g_file_new_for_path (f->dir);
}

static void
remove_recovery (GFile *folder)
{
  g_autofree char *path = recovery_path (folder);

  g_unlink (path);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (app)));
  g_autoptr(GDir) dir = NULL;
  const char *name;

  for (GList *l = windows; l != NULL; l = l->next)
    if (SK_IS_WINDOW (l->data))
      destroy_window (l->data);
  g_list_free (windows);
  g_assert_null (gtk_application_get_windows (GTK_APPLICATION (app)));

  /* No test leaves a recovery file behind, neither for the workflow nor for
   * one created inside its folder. */
  remove_recovery (f->folder);
  dir = g_dir_open (f->dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autoptr(GFile) child = g_file_get_child (f->folder, name);

      remove_recovery (child);
    }

  sk_test_remove_tree (f->dir);
  g_clear_object (&f->folder);
  g_free (f->dir);
}

/* 1. Opening ------------------------------------------------------------- */

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
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 5);
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
  SkProject *project;

  sk_test_write_text (f->dir, "process.json",
                      "{\"process_name\": \"loop\", \"nodes\": {"
                      "\"1\": {\"name\": \"a\", \"priors\": [\"2\"]},"
                      "\"2\": {\"name\": \"b\", \"priors\": [\"1\"]},"
                      "\"3\": {\"name\": \"c\", \"priors\": [\"9\"]}}}");

  project = open_and_wait (window, f->folder);
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
  g_assert_cmpstr (visible_page (window), ==, "workflow");
  sk_test_assert_contains (_sk_window_get_last_toast (window), "(and 1 more problem)");

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

/* 2. Saving -------------------------------------------------------------- */

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

/* 3. Undo and redo -------------------------------------------------------- */

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
  g_assert_cmpuint (sk_project_get_n_nodes (saved), ==, 5);

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

/* 4. A renamed step takes its folder along -------------------------------- */

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

/* 5. Recovery ------------------------------------------------------------ */

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
  g_assert_cmpuint (sk_project_get_n_nodes (recovered), ==, 5);

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
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 5);
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

/* 6. Running ------------------------------------------------------------- */

static void
use_python (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  g_settings_set_string (settings, "python", python_path);
}

static void
forget_python (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  g_settings_reset (settings, "python");
}

static gboolean
skip_without_python (void)
{
  if (python_path != NULL)
    return FALSE;

  g_test_skip ("no Python interpreter");
  return TRUE;
}

static void
test_run_example (Fixture       *f,
                  gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkOutputCell *output;
  GtkWidget *stop_button;
  GtkWidget *run_button;
  SkNode *chart;

  if (skip_without_python ())
    return;

  use_python ();
  window = new_window ();
  copy_example (f);
  project = open_and_wait (window, f->folder);
  stop_button = template_child (window, "stop_button");
  run_button = template_child (window, "run_button");
  g_assert_false (gtk_widget_get_visible (stop_button));
  g_assert_true (gtk_widget_get_visible (run_button));

  activate (window, "run");

  g_assert_true (_sk_window_is_running (window));
  g_assert_true (gtk_widget_get_visible (stop_button));
  g_assert_false (gtk_widget_get_visible (run_button));
  g_assert_true (action_enabled (window, "stop"));
  g_assert_false (action_enabled (window, "run"));
  g_assert_true (gtk_widget_get_visible (template_child (window, "progress_bar")));

  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);

  g_assert_false (gtk_widget_get_visible (stop_button));
  g_assert_true (gtk_widget_get_visible (run_button));
  g_assert_false (gtk_widget_get_visible (template_child (window, "progress_bar")));
  g_assert_true (action_enabled (window, "run"));
  g_assert_false (action_enabled (window, "stop"));
  g_assert_true (g_str_has_prefix (_sk_window_get_last_toast (window), "Run finished: 5 steps succeeded"));

  for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (sk_node_get_state (node) != SK_NODE_STATE_SUCCEEDED)
        g_error ("%s ended %s: %s", sk_node_get_name (node),
                 sk_node_state_to_string (sk_node_get_state (node)),
                 sk_node_get_error_text (node));
    }
  g_assert_true (exists_in (f, "revenue_chart/revenue_chart.svg"));
  g_assert_true (exists_in (f, "sales_report/report.md"));

  chart = node_by_key (window, "revenue_chart");
  sk_canvas_select_node (_sk_window_get_canvas (window), chart);
  output = _sk_window_get_output_cell (window);
  g_assert_true (sk_cell_get_node (SK_CELL (output)) == chart);
  g_assert_cmpstr (sk_output_cell_get_selected_file (output), ==, "revenue_chart.svg");
  SK_TEST_WAIT_UNTIL (g_strcmp0 (sk_output_cell_get_preview_kind (output), "image") == 0, WAIT_MS);

  destroy_window (window);
  forget_python ();
}

static const char slow_script[] =
  "import os\n"
  "import pickle\n"
  "import time\n"
  "\n"
  "KEY = \"sleeper\"\n"
  "FOLDER = os.path.dirname(os.path.abspath(__file__))\n"
  "state = {}\n"
  "\n"
  "\n"
  "def preprocess(prior_outputs):\n"
  "    with open(os.path.join(FOLDER, \"started\"), \"w\") as f:\n"
  "        f.write(str(os.getpid()))\n"
  "    return True\n"
  "\n"
  "\n"
  "def compute():\n"
  "    time.sleep(30)\n"
  "    state[\"output\"] = {\"task_status\": \"success\"}\n"
  "\n"
  "\n"
  "def save():\n"
  "    with open(os.path.join(FOLDER, KEY + \".pkl\"), \"wb\") as f:\n"
  "        pickle.dump(state[\"output\"], f)\n";

static SkNode *
add_step (SkProject  *project,
          const char *id,
          const char *name)
{
  g_autoptr(SkNode) node = sk_node_new (id, name);
  g_autoptr(GError) error = NULL;

  sk_node_set_run (node, TRUE);
  sk_node_set_position (node, 100, 100);
  sk_project_add_node (project, node, &error);
  g_assert_no_error (error);

  return node;
}

static void
test_run_stop (Fixture       *f,
               gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *node;
  g_autofree char *pid_text = NULL;
  gint64 stopped_at;
  double seconds;

  if (skip_without_python ())
    return;

  use_python ();
  window = new_window ();
  project = create_and_open (window, f, "slow");
  node = add_step (project, "1", "sleeper");
  sk_test_write_text (f->dir, "slow/sleeper/sleeper.py", slow_script);

  activate (window, "run");
  g_assert_true (_sk_window_is_running (window));
  /* Running saves first, because the runner reads the workflow from disk. */
  g_assert_false (sk_project_get_modified (project));

  SK_TEST_WAIT_UNTIL (exists_in (f, "slow/sleeper/started") &&
              sk_node_get_state (node) == SK_NODE_STATE_RUNNING, WAIT_MS);

  stopped_at = g_get_monotonic_time ();
  activate (window, "stop");
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), 10000);
  seconds = (g_get_monotonic_time () - stopped_at) / (double) G_USEC_PER_SEC;
  g_assert_cmpfloat (seconds, <, 10);

  g_assert_cmpint (sk_node_get_state (node), ==, SK_NODE_STATE_CANCELLED);
  g_assert_false (exists_in (f, "slow/sleeper/sleeper.pkl"));
  g_assert_true (g_str_has_prefix (_sk_window_get_last_toast (window), "Run stopped"));
  g_assert_false (gtk_widget_get_visible (template_child (window, "stop_button")));
  g_assert_true (action_enabled (window, "run"));

  pid_text = sk_test_read_text (f->dir, "slow/sleeper/started");
  g_assert_true (sk_test_process_gone ((pid_t) g_ascii_strtoll (pid_text, NULL, 10)));

  destroy_window (window);
  forget_python ();
}

static void
test_run_nothing_marked (Fixture       *f,
                         gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project;

  copy_example (f);
  project = open_and_wait (window, f->folder);

  for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      sk_node_set_run (node, FALSE);
    }
  g_assert_true (sk_project_get_modified (project));

  activate (window, "run");

  g_assert_false (_sk_window_is_running (window));
  g_assert_cmpstr (_sk_window_get_last_toast (window), ==,
                   "No step is marked to run. Right-click a step to mark it.");
  drain ();
  for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      g_assert_cmpint (sk_node_get_state (node), ==, SK_NODE_STATE_IDLE);
    }
  /* Nothing was saved or run. */
  g_assert_true (sk_project_get_modified (project));
  g_assert_false (exists_in (f, ".skele"));
  g_assert_false (exists_in (f, "load_sales/load_sales.pkl"));
  g_assert_false (exists_in (f, "revenue_chart/revenue_chart.svg"));

  destroy_window (window);
}

static void
test_run_no_script (Fixture       *f,
                    gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *node;

  if (skip_without_python ())
    return;

  use_python ();
  window = new_window ();
  project = create_and_open (window, f, "empty");
  node = add_step (project, "1", "empty step");

  activate (window, "run");
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);

  g_assert_cmpint (sk_node_get_state (node), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (node), "no code");
  sk_test_assert_contains (_sk_window_get_last_toast (window), "1 step has no code yet");
  /* No model is set up, so the toast says what one would do and offers
   * Preferences. */
  sk_test_assert_contains (_sk_window_get_last_toast (window), "a coding agent can write it");
  g_assert_cmpstr (_sk_window_get_last_toast_action (window), ==, "app.agent-preferences");
  /* The failure is shown. */
  g_assert_true (sk_canvas_get_selected_node (_sk_window_get_canvas (window)) == node);

  destroy_window (window);
  forget_python ();
}

/* 7. The coding agent ----------------------------------------------------- */

#define HELLO_SCRIPT \
  "import os\n" \
  "import pickle\n" \
  "\n" \
  "state = {}\n" \
  "HERE = os.path.dirname(os.path.abspath(__file__))\n" \
  "\n" \
  "def preprocess(prior_outputs):\n" \
  "    with open(os.path.join(HERE, 'hello_summary.txt'), 'w') as f:\n" \
  "        f.write('Says hello.\\n')\n" \
  "    return True\n" \
  "\n" \
  "def compute():\n" \
  "    state['output'] = {'task_status': 'success', 'greeting': 'hello'}\n" \
  "    with open(os.path.join(HERE, 'hello_summary.txt'), 'a') as f:\n" \
  "        f.write('Task completed successfully\\n')\n" \
  "\n" \
  "def save():\n" \
  "    with open(os.path.join(HERE, 'hello.pkl'), 'wb') as f:\n" \
  "        pickle.dump(state['output'], f)\n"

/* One reply of the model: a sentence and one tool call, reading 100 tokens
 * and writing 20. */
static void
push_call (SkFakeLlm  *fake,
           const char *said,
           const char *tool,
           const char *first_member,
           const char *first_value,
           const char *second_member,
           const char *second_value)
{
  g_autoptr(GError) error = NULL;

  sk_fake_llm_push_tool_call (fake, said, tool, first_member, first_value,
                              second_member, second_value, &error);
  g_assert_no_error (error);
}

static void
push_write (SkFakeLlm  *fake,
            const char *path,
            const char *content)
{
  push_call (fake, "I am writing the script.", "write_file", "path", path, "content", content);
}

static void
push_complete (SkFakeLlm  *fake,
               const char *summary)
{
  push_call (fake, "Everything works.", "task_complete", "summary", summary, NULL, NULL);
}

/* Points the coding agent at a new fake server, through the settings that
 * Preferences keeps; the key comes from the environment (see main()), so
 * that no keyring is needed. */
static SkFakeLlm *
use_agent (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  SkFakeLlm *fake = sk_fake_llm_new ();

  sk_fake_llm_set_recycle (fake, FALSE);
  g_settings_set_string (settings, "llm-provider", "openai");
  g_settings_set_string (settings, "llm-base-url", sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_OPENAI));
  g_settings_set_string (settings, "llm-model", "fake-coder");

  return fake;
}

static void
forget_agent (SkFakeLlm *fake)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  g_settings_reset (settings, "llm-provider");
  g_settings_reset (settings, "llm-base-url");
  g_settings_reset (settings, "llm-model");
  if (fake != NULL)
    sk_fake_llm_free (fake);
}

static gpointer
output_child (SkWindow   *window,
              const char *name)
{
  GtkWidget *cell = GTK_WIDGET (_sk_window_get_output_cell (window));
  GObject *child = gtk_widget_get_template_child (cell, SK_TYPE_OUTPUT_CELL, name);

  g_assert_nonnull (child);
  return child;
}

static guint
count_children (GtkWidget *widget)
{
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n++;

  return n;
}

/* What the window showed while a step's code was being written. */
typedef struct
{
  SkWindow *window;
  SkNode   *node;
  GArray   *states;
  GPtrArray *lines_while_writing;
  gboolean  spinner_while_writing;
  gboolean  progress_named_step;
} Watch;

static void
watch_state_cb (SkNode     *node,
                GParamSpec *pspec,
                Watch      *watch)
{
  SkNodeState state = sk_node_get_state (node);

  g_array_append_val (watch->states, state);
}

static void
watch_line_cb (GtkLabel   *label,
               GParamSpec *pspec,
               Watch      *watch)
{
  const char *text = gtk_label_get_label (label);

  if (sk_node_get_state (watch->node) != SK_NODE_STATE_WRITING_CODE || text[0] == '\0')
    return;

  g_ptr_array_add (watch->lines_while_writing, g_strdup (text));
  if (gtk_spinner_get_spinning (output_child (watch->window, "agent_spinner")) &&
      gtk_widget_get_visible (output_child (watch->window, "agent_box")))
    watch->spinner_while_writing = TRUE;
}

static void
watch_progress_cb (GtkProgressBar *bar,
                   GParamSpec     *pspec,
                   Watch          *watch)
{
  g_autofree char *expected = g_strdup_printf ("Writing the code of “%s”", sk_node_get_name (watch->node));

  if (gtk_progress_bar_get_text (bar) != NULL &&
      strstr (gtk_progress_bar_get_text (bar), expected) != NULL)
    watch->progress_named_step = TRUE;
}

static void
watch_start (Watch    *watch,
             SkWindow *window,
             SkNode   *node)
{
  watch->window = window;
  watch->node = node;
  watch->states = g_array_new (FALSE, FALSE, sizeof (SkNodeState));
  watch->lines_while_writing = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (node, "notify::state", G_CALLBACK (watch_state_cb), watch);
  g_signal_connect (output_child (window, "agent_latest_label"), "notify::label",
                    G_CALLBACK (watch_line_cb), watch);
  g_signal_connect (template_child (window, "progress_bar"), "notify::text",
                    G_CALLBACK (watch_progress_cb), watch);
}

static gboolean
watch_saw (Watch       *watch,
           SkNodeState  state)
{
  for (guint i = 0; i < watch->states->len; i++)
    if (g_array_index (watch->states, SkNodeState, i) == state)
      return TRUE;

  return FALSE;
}

static void
watch_stop (Watch *watch)
{
  g_signal_handlers_disconnect_by_data (watch->node, watch);
  g_signal_handlers_disconnect_by_data (output_child (watch->window, "agent_latest_label"), watch);
  g_signal_handlers_disconnect_by_data (template_child (watch->window, "progress_bar"), watch);
  g_array_unref (watch->states);
  g_ptr_array_unref (watch->lines_while_writing);
}

static void
test_agent_run (Fixture       *f,
                gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *node;
  SkFakeLlm *fake;
  Watch watch = { 0 };
  g_autofree char *script = NULL;
  g_autoptr(SkProject) saved = NULL;
  guint64 read, written;

  if (skip_without_python ())
    return;

  use_python ();
  fake = use_agent ();
  window = new_window ();
  project = create_and_open (window, f, "agent");
  node = add_step (project, "1", "hello");
  sk_node_set_input_text (node, "Say hello.");
  sk_canvas_select_node (_sk_window_get_canvas (window), node);
  g_assert_false (gtk_widget_get_visible (output_child (window, "agent_box")));
  g_assert_false (gtk_widget_get_visible (output_child (window, "tokens_label")));
  g_assert_false (gtk_widget_get_visible (step_list_child (window, "tokens_label")));

  push_write (fake, "hello.py", HELLO_SCRIPT);
  push_complete (fake, "The step says hello.");
  watch_start (&watch, window, node);

  activate (window, "run");
  g_assert_true (_sk_window_is_running (window));
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);

  /* The agent wrote the script, then the step ran. */
  if (sk_node_get_state (node) != SK_NODE_STATE_SUCCEEDED)
    g_error ("hello ended %s: %s", sk_node_state_to_string (sk_node_get_state (node)),
             sk_node_get_error_text (node));
  g_assert_true (watch_saw (&watch, SK_NODE_STATE_WRITING_CODE));
  g_assert_true (watch_saw (&watch, SK_NODE_STATE_RUNNING));
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 2);
  script = sk_test_read_text (f->dir, "agent/hello/hello.py");
  g_assert_cmpstr (script, ==, HELLO_SCRIPT);
  sk_test_assert_contains (_sk_window_get_last_toast (window), "Run finished: 1 step succeeded");
  sk_test_assert_contains (_sk_window_get_last_toast (window), "The coding agent wrote the code of 1 step");
  g_assert_null (_sk_window_get_last_toast_action (window));

  /* Its progress showed live in the output cell, and what it said last
   * stays there. */
  g_assert_true (watch.progress_named_step);
  g_assert_true (watch.spinner_while_writing);
  g_assert_cmpuint (watch.lines_while_writing->len, >=, 2);
  g_assert_true (g_ptr_array_find_with_equal_func (watch.lines_while_writing, "I am writing the script.",
                                                   g_str_equal, NULL));
  g_assert_true (gtk_widget_get_visible (output_child (window, "agent_box")));
  g_assert_cmpstr (gtk_label_get_label (output_child (window, "agent_latest_label")), ==,
                   "The step says hello.");
  g_assert_false (gtk_spinner_get_spinning (output_child (window, "agent_spinner")));
  /* Every line is in the list, however fast they came. */
  g_assert_cmpuint (count_children (output_child (window, "agent_list")), >=,
                    watch.lines_while_writing->len);

  /* Two replies of 100 tokens read and 20 written, for the step and the
   * whole workflow, kept in process.json. */
  sk_node_get_tokens (node, &read, &written);
  g_assert_cmpuint (read, ==, 200);
  g_assert_cmpuint (written, ==, 40);
  g_assert_true (gtk_widget_get_visible (output_child (window, "tokens_label")));
  g_assert_cmpstr (gtk_label_get_label (output_child (window, "tokens_label")), ==,
                   "200 tokens read, 40 written");
  g_assert_true (gtk_widget_get_visible (step_list_child (window, "tokens_label")));
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (step_list_child (window, "tokens_label"))), ==,
                   "All steps: 200 tokens read, 40 written");
  saved = load_from_disk (sk_project_get_folder (project));
  sk_node_get_tokens (sk_project_get_node (saved, "1"), &read, &written);
  g_assert_cmpuint (read, ==, 200);

  /* The next run clears the log; the step is up to date, so the agent
   * is not asked again. */
  activate (window, "run");
  g_assert_false (gtk_widget_get_visible (output_child (window, "agent_box")));
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);
  g_assert_cmpint (sk_node_get_state (node), ==, SK_NODE_STATE_UP_TO_DATE);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 2);
  g_assert_false (gtk_widget_get_visible (output_child (window, "agent_box")));
  g_assert_true (gtk_widget_get_visible (output_child (window, "tokens_label")));

  watch_stop (&watch);
  destroy_window (window);
  forget_agent (fake);
  forget_python ();
}

static gboolean
code_cell_shows (SkWindow   *window,
                 const char *expected)
{
  SkCodeCell *cell = _sk_window_get_code_cell (window);
  GObject *view = gtk_widget_get_template_child (GTK_WIDGET (cell), SK_TYPE_CODE_CELL, "view");
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  g_autofree char *text = NULL;
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);

  /* The buffer leaves out the file's last newline, and fills up while the
   * file loads, before the cell knows that there is a script. */
  return sk_code_cell_get_has_script (cell) &&
         g_str_has_prefix (expected, text) && strlen (expected) - strlen (text) <= 1 &&
         !sk_code_cell_get_modified (cell);
}

static void
test_agent_regenerate (Fixture       *f,
                       gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *node;
  SkFakeLlm *fake;
  AdwMessageDialog *dialog;
  Watch watch = { 0 };
  g_autofree char *script = NULL;
  g_autofree char *previous = NULL;
  const char *old_script = "print ('the old script')\n";

  if (skip_without_python ())
    return;

  use_python ();
  fake = use_agent ();
  window = new_window ();
  project = create_and_open (window, f, "agent");
  node = add_step (project, "1", "hello");
  sk_test_write_text (f->dir, "agent/hello/hello.py", old_script);
  sk_canvas_select_node (_sk_window_get_canvas (window), node);
  SK_TEST_WAIT_UNTIL (code_cell_shows (window, old_script), WAIT_MS);
  g_assert_true (action_enabled (window, "regenerate-code"));

  /* The code cell's button asks the window. */
  {
    GObject *button = gtk_widget_get_template_child (GTK_WIDGET (_sk_window_get_code_cell (window)),
                                                     SK_TYPE_CODE_CELL, "regenerate_button");

    g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (button)));
    g_signal_emit_by_name (button, "clicked");
  }
  dialog = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  sk_test_assert_contains (adw_message_dialog_get_body (dialog), "hello/.skele/previous/hello.py");
  sk_test_assert_contains (adw_message_dialog_get_body (dialog), "nothing is lost");

  /* Cancelling changes nothing. */
  respond (dialog, "_Cancel");
  drain ();
  g_assert_false (_sk_window_is_running (window));
  g_assert_false (exists_in (f, "agent/hello/.skele/previous/hello.py"));
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 0);

  push_write (fake, "hello.py", HELLO_SCRIPT);
  push_complete (fake, "The step now says hello properly.");
  watch_start (&watch, window, node);

  activate (window, "regenerate-code");
  dialog = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  respond (dialog, "_Regenerate");
  SK_TEST_WAIT_UNTIL (_sk_window_get_last_toast (window) != NULL &&
                      g_str_has_prefix (_sk_window_get_last_toast (window), "Code written"), RUN_WAIT_MS);
  g_assert_false (_sk_window_is_running (window));
  sk_test_assert_contains (_sk_window_get_last_toast (window), "1 step got new code");

  /* The old script is kept; the new one is in its place and shown. */
  previous = sk_test_read_text (f->dir, "agent/hello/.skele/previous/hello.py");
  g_assert_cmpstr (previous, ==, old_script);
  script = sk_test_read_text (f->dir, "agent/hello/hello.py");
  g_assert_cmpstr (script, ==, HELLO_SCRIPT);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 2);
  SK_TEST_WAIT_UNTIL (code_cell_shows (window, HELLO_SCRIPT), WAIT_MS);

  /* Writing code runs nothing. */
  g_assert_true (watch_saw (&watch, SK_NODE_STATE_WRITING_CODE));
  g_assert_false (watch_saw (&watch, SK_NODE_STATE_RUNNING));
  g_assert_false (exists_in (f, "agent/hello/hello.pkl"));
  g_assert_cmpuint (watch.lines_while_writing->len, >=, 2);
  g_assert_cmpstr (gtk_label_get_label (output_child (window, "agent_latest_label")), ==,
                   "The step now says hello properly.");

  watch_stop (&watch);
  destroy_window (window);
  forget_agent (fake);
  forget_python ();
}

static void
test_agent_write_missing (Fixture       *f,
                          gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *hello;
  SkNode *done;
  SkFakeLlm *fake;
  g_autofree char *script = NULL;
  g_autofree char *kept = NULL;

  if (skip_without_python ())
    return;

  use_python ();
  fake = use_agent ();
  window = new_window ();
  project = create_and_open (window, f, "agent");
  hello = add_step (project, "1", "hello");
  done = add_step (project, "2", "done");
  sk_test_write_text (f->dir, "agent/done/done.py", "print ('done')\n");

  push_write (fake, "hello.py", HELLO_SCRIPT);
  push_complete (fake, "The step says hello.");

  /* The way the shortcut reaches the action. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.generate-code", NULL));
  g_assert_true (_sk_window_is_running (window));
  g_assert_false (action_enabled (window, "generate-code"));
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);

  g_assert_cmpstr (_sk_window_get_last_toast (window), ==, "Code written: 1 step got new code");
  script = sk_test_read_text (f->dir, "agent/hello/hello.py");
  g_assert_cmpstr (script, ==, HELLO_SCRIPT);
  kept = sk_test_read_text (f->dir, "agent/done/done.py");
  g_assert_cmpstr (kept, ==, "print ('done')\n");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 2);
  g_assert_cmpint (sk_node_get_state (hello), ==, SK_NODE_STATE_IDLE);
  g_assert_cmpint (sk_node_get_state (done), ==, SK_NODE_STATE_IDLE);
  g_assert_false (exists_in (f, "agent/hello/hello.pkl"));

  /* Nothing is missing any more. */
  activate (window, "generate-code");
  g_assert_false (_sk_window_is_running (window));
  g_assert_cmpstr (_sk_window_get_last_toast (window), ==, "Every step has code already");

  destroy_window (window);
  forget_agent (fake);
  forget_python ();
}

static void
test_agent_stop (Fixture       *f,
                 gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *node;
  SkFakeLlm *fake;
  g_autoptr(GError) error = NULL;
  gint64 stopped_at;

  if (skip_without_python ())
    return;

  use_python ();
  fake = use_agent ();
  window = new_window ();
  project = create_and_open (window, f, "agent");
  node = add_step (project, "1", "hello");

  /* A model that takes its time. */
  sk_fake_llm_push_json (fake, "{\"parts\": [{\"text\": \"Hm\", \"delay_ms\": 30000}]}", &error);
  g_assert_no_error (error);

  activate (window, "generate-code");
  SK_TEST_WAIT_UNTIL (sk_node_get_state (node) == SK_NODE_STATE_WRITING_CODE &&
                      sk_fake_llm_get_n_requests (fake) == 1, WAIT_MS);
  g_assert_true (action_enabled (window, "stop"));
  g_assert_false (action_enabled (window, "regenerate-code"));

  stopped_at = g_get_monotonic_time ();
  activate (window, "stop");
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), 10000);
  g_assert_cmpint (g_get_monotonic_time () - stopped_at, <, 10 * G_USEC_PER_SEC);

  g_assert_cmpint (sk_node_get_state (node), ==, SK_NODE_STATE_CANCELLED);
  g_assert_true (g_str_has_prefix (_sk_window_get_last_toast (window), "Writing code stopped"));
  g_assert_false (exists_in (f, "agent/hello/hello.py"));
  g_assert_true (action_enabled (window, "run"));

  destroy_window (window);
  forget_agent (fake);
  forget_python ();
}

/* Without a model the window says what a coding agent would do, and how to
 * set one up, instead of trying. */
static void
test_agent_not_set_up (Fixture       *f,
                       gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *node;
  g_autofree char *script = NULL;

  forget_agent (NULL);
  window = new_window ();
  project = create_and_open (window, f, "agent");
  node = add_step (project, "1", "hello");
  sk_test_write_text (f->dir, "agent/hello/hello.py", "print ('old')\n");
  add_step (project, "2", "no code");
  sk_canvas_select_node (_sk_window_get_canvas (window), node);
  SK_TEST_WAIT_UNTIL (code_cell_shows (window, "print ('old')\n"), WAIT_MS);

  activate (window, "regenerate-code");
  g_assert_null (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  sk_test_assert_contains (_sk_window_get_last_toast (window), "No coding agent is set up");
  g_assert_cmpstr (_sk_window_get_last_toast_action (window), ==, "app.agent-preferences");
  drain ();
  script = sk_test_read_text (f->dir, "agent/hello/hello.py");
  g_assert_cmpstr (script, ==, "print ('old')\n");
  g_assert_false (exists_in (f, "agent/hello/.skele/previous/hello.py"));

  sk_window_show_toast (window, "something else");
  g_assert_null (_sk_window_get_last_toast_action (window));

  activate (window, "generate-code");
  g_assert_false (_sk_window_is_running (window));
  sk_test_assert_contains (_sk_window_get_last_toast (window), "No coding agent is set up");
  g_assert_cmpstr (_sk_window_get_last_toast_action (window), ==, "app.agent-preferences");

  destroy_window (window);
}

/* 8. The properties dialog ------------------------------------------------ */

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
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = dialog_text (dialog);

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));

  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
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
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 5);
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
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 5);
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

/* 8. Closing ------------------------------------------------------------- */

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

/* Setup ------------------------------------------------------------------- */

static char *
find_python (void)
{
  g_autofree char *python3 = NULL;

  /* Debian's interpreter, when there is one; see TESTING.md. */
  if (g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup ("/usr/bin/python3");

  python3 = g_find_program_in_path ("python3");
  if (python3 == NULL)
    return NULL;

  return sk_test_find_python ();
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  /* The coding agent is whatever a test sets up in the settings, never one
   * from the environment of whoever runs the tests; its key comes from here,
   * set before any thread starts, so that no keyring is needed. */
  g_unsetenv ("SKELE_LLM_PROVIDER");
  g_unsetenv ("SKELE_LLM_BASE_URL");
  g_unsetenv ("SKELE_LLM_MODEL");
  g_setenv ("SKELE_LLM_API_KEY", "test-key", TRUE);

  if (!gtk_init_check ())
    {
      printf ("1..0 # SKIP no display\n");
      return 0;
    }
  adw_init ();
  sk_widgets_init ();

  python_path = find_python ();

  /* A real application, so that windows get its actions, accelerators and
   * settings; non-unique, so that tests never find each other. */
  app = sk_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sk_application_get_settings (app));

#define ADD(path, func) \
  g_test_add ("/window/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("open/example", test_open_example);
  ADD ("open/malformed", test_open_malformed);
  ADD ("open/problems", test_open_problems);
  ADD ("open/create", test_open_create);
  ADD ("save", test_save);
  ADD ("save-as", test_save_as);
  ADD ("undo-redo", test_undo_redo);
  ADD ("rename-moves-folder", test_rename_moves_folder);
  ADD ("recovery/written", test_recovery_written);
  ADD ("recovery/recover", test_recovery_recover);
  ADD ("recovery/discard", test_recovery_discard);
  ADD ("run/example", test_run_example);
  ADD ("run/stop", test_run_stop);
  ADD ("run/nothing-marked", test_run_nothing_marked);
  ADD ("run/no-script", test_run_no_script);
  ADD ("agent/run", test_agent_run);
  ADD ("agent/regenerate", test_agent_regenerate);
  ADD ("agent/write-missing", test_agent_write_missing);
  ADD ("agent/stop", test_agent_stop);
  ADD ("agent/not-set-up", test_agent_not_set_up);
  ADD ("properties/rename", test_properties_rename);
  ADD ("properties/invalid-json", test_properties_invalid_json);
  ADD ("properties/cycle", test_properties_cycle);
  ADD ("properties/duplicate-name", test_properties_duplicate_name);
  ADD ("properties/process", test_properties_process);
  ADD ("properties/sync", test_properties_sync);
  ADD ("properties/from-canvas", test_properties_from_canvas);
  ADD ("close/unsaved", test_close_unsaved);
  ADD ("close/save", test_close_save);
  ADD ("close/saved", test_close_saved);

#undef ADD

  status = g_test_run ();

  /* A registered GtkApplication keeps a reference to itself (a plain
   * gtk_application_new() one does too), so it cannot be checked for
   * leaks; the windows are, one by one. */
  g_object_unref (app);
  g_free (python_path);

  return status;
}
