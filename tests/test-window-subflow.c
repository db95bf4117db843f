/* test-window-subflow.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Opening a sub-workflow (DESIGN §10) from the main window: the step's
 * menu and the output cell's button open the inner workflow in a second
 * window, once, and a step whose folder holds no workflow says what to do
 * and opens nothing. Making a sub-workflow from selected steps, undoing it
 * and redoing it, and a selection that cannot become one.
 */

#define G_LOG_DOMAIN "test-window-subflow"

#include <glib/gstdio.h>

#include "sk-test-window.h"

#define OUTER_JSON \
  "{\"process_name\": \"outer\", \"nodes\": {" \
  " \"1\": {\"name\": \"load\", \"priors\": [], \"run\": true," \
  "         \"input\": {\"text\": \"Load the list.\", \"files\": []}," \
  "         \"skele\": {\"x\": 100, \"y\": 100}}," \
  " \"2\": {\"name\": \"clean\", \"priors\": [\"1\"], \"run\": true," \
  "         \"input\": {\"text\": \"\", \"files\": []}," \
  "         \"skele\": {\"x\": 100, \"y\": 260, \"workflow\": \"%s\"}}," \
  " \"3\": {\"name\": \"check\", \"priors\": [\"1\"], \"run\": true," \
  "         \"input\": {\"text\": \"\", \"files\": []}," \
  "         \"skele\": {\"x\": 360, \"y\": 260, \"workflow\": \"%s\"}}}}"

#define INNER_JSON \
  "{\"process_name\": \"inner\", \"nodes\": {" \
  " \"1\": {\"name\": \"tidy addresses\", \"priors\": [], \"run\": true," \
  "         \"input\": {\"text\": \"Tidy the addresses.\", \"files\": []}," \
  "         \"skele\": {\"x\": 100, \"y\": 100}}}}"

/* Writes "outer", whose steps 2 and 3 stand for the workflows in
 * @workflow_2 and @workflow_3, and returns its folder. */
static GFile *
write_outer (Fixture    *f,
             const char *workflow_2,
             const char *workflow_3)
{
  g_autofree char *json = g_strdup_printf (OUTER_JSON, workflow_2, workflow_3);

  sk_test_write_text (f->dir, "outer/process.json", json);
  return g_file_get_child (f->folder, "outer");
}

static GtkWidget *
find_popover_menu (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_POPOVER_MENU (child))
      return child;

  return NULL;
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

/* Clicks @button, as a person does: it must be shown and sensitive. */
static void
click (GtkWidget *button)
{
  g_assert_true (gtk_widget_get_visible (button));
  g_assert_true (gtk_widget_is_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
}

/* The output cell's "Open Sub-workflow" button, shown or not. */
static GtkWidget *
subworkflow_button (SkWindow *window)
{
  GtkWidget *button = find_button (GTK_WIDGET (_sk_window_get_output_cell (window)), "Open Sub-workflow");

  g_assert_nonnull (button);
  return button;
}

/* Opens the menu of @node, as Shift+F10 on the selected step does, and
 * returns the action and target of its item labelled @label, or FALSE when
 * it has none. */
static gboolean
menu_item (SkWindow    *window,
           SkNode      *node,
           const char  *label,
           char       **action,
           GVariant   **target)
{
  SkCanvas *canvas = _sk_window_get_canvas (window);
  GtkWidget *popover;
  GMenuModel *model;
  gboolean found = FALSE;

  sk_canvas_select_node (canvas, node);
  drain ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (canvas), "canvas.menu", NULL));
  popover = find_popover_menu (GTK_WIDGET (canvas));
  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_visible (popover));

  model = gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (popover));
  for (int i = 0; !found && i < g_menu_model_get_n_items (model); i++)
    {
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);

      for (int j = 0; section != NULL && j < g_menu_model_get_n_items (section); j++)
        {
          g_autofree char *text = NULL;

          if (!g_menu_model_get_item_attribute (section, j, G_MENU_ATTRIBUTE_LABEL, "s", &text) ||
              !g_str_equal (text, label))
            continue;

          g_assert_true (g_menu_model_get_item_attribute (section, j, G_MENU_ATTRIBUTE_ACTION, "s", action));
          *target = g_menu_model_get_item_attribute_value (section, j, G_MENU_ATTRIBUTE_TARGET, NULL);
          found = TRUE;
          break;
        }
    }

  gtk_popover_popdown (GTK_POPOVER (popover));
  drain ();

  return found;
}

/* Chooses "Open Sub-workflow" in @node's menu, as a person would. */
static void
choose_open_subworkflow (SkWindow *window,
                         SkNode   *node)
{
  g_autofree char *action = NULL;
  g_autoptr(GVariant) target = NULL;

  g_assert_true (menu_item (window, node, "Open _Sub-workflow", &action, &target));
  g_assert_cmpstr (action, ==, "win.open-subworkflow");
  g_assert_nonnull (target);
  g_assert_cmpstr (g_variant_get_string (target, NULL), ==, sk_node_get_id (node));
  g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (_sk_window_get_canvas (window)),
                                                     action, target));
}

static guint
count_windows (void)
{
  return g_list_length (gtk_application_get_windows (GTK_APPLICATION (sk_test_window_app ())));
}

/* The window other than @outer, when there is one. */
static SkWindow *
other_window (SkWindow *outer)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (sk_test_window_app ())); l != NULL; l = l->next)
    if (SK_IS_WINDOW (l->data) && l->data != (gpointer) outer)
      return l->data;

  return NULL;
}

static gboolean
shown (SkWindow *window)
{
  return sk_window_get_project (window) != NULL &&
         !_sk_canvas_is_arranging (_sk_window_get_canvas (window)) &&
         g_strcmp0 (visible_page (window), "loading") != 0;
}

static void
test_open (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(GFile) outer_folder = write_outer (f, "inner", "inner");
  g_autoptr(GFile) inner_folder = g_file_get_child (outer_folder, "inner");
  g_autofree char *inner_recovery = recovery_path (inner_folder);
  SkWindow *outer = new_window ();
  SkProject *project;
  SkProject *inner_project;
  SkWindow *inner;
  SkNode *load, *clean;
  g_autofree char *action = NULL;
  g_autoptr(GVariant) target = NULL;

  sk_test_write_text (f->dir, "outer/inner/process.json", INNER_JSON);
  project = open_and_wait (outer, outer_folder);
  load = sk_project_get_node (project, "1");
  clean = sk_project_get_node (project, "2");
  g_assert_cmpstr (sk_node_get_workflow (clean), ==, "inner");
  g_assert_cmpuint (count_windows (), ==, 1);

  /* An ordinary step offers neither the menu item nor the button. */
  g_assert_false (menu_item (outer, load, "Open _Sub-workflow", &action, &target));
  g_assert_false (gtk_widget_get_visible (subworkflow_button (outer)));

  /* The sub-workflow step offers both; its menu item opens the inner
   * workflow in a second window. */
  choose_open_subworkflow (outer, clean);
  g_assert_true (gtk_widget_get_visible (subworkflow_button (outer)));
  SK_TEST_WAIT_UNTIL (other_window (outer) != NULL, WAIT_MS);
  inner = other_window (outer);
  SK_TEST_WAIT_UNTIL (shown (inner), WAIT_MS);
  g_assert_cmpstr (visible_page (inner), ==, "workflow");
  g_assert_true (g_file_equal (sk_window_get_folder (inner), inner_folder));
  inner_project = sk_window_get_project (inner);
  g_assert_true (g_file_equal (sk_project_get_folder (inner_project), inner_folder));
  g_assert_nonnull (sk_project_get_node (inner_project, "1"));
  g_assert_cmpstr (sk_node_get_name (sk_project_get_node (inner_project, "1")), ==, "tidy addresses");
  g_assert_cmpuint (count_windows (), ==, 2);

  /* The outer workflow is as it was. */
  g_assert_true (sk_window_get_project (outer) == project);
  g_assert_true (g_file_equal (sk_window_get_folder (outer), outer_folder));

  /* Opening it again, from the menu or from the output cell's button,
   * brings the same window forward rather than opening a third. */
  choose_open_subworkflow (outer, clean);
  drain ();
  g_assert_cmpuint (count_windows (), ==, 2);
  g_assert_true (other_window (outer) == inner);

  sk_canvas_select_node (_sk_window_get_canvas (outer), clean);
  drain ();
  g_assert_true (gtk_widget_get_visible (subworkflow_button (outer)));
  click (subworkflow_button (outer));
  drain ();
  g_assert_cmpuint (count_windows (), ==, 2);
  g_assert_true (other_window (outer) == inner);
  g_assert_true (sk_window_get_project (inner) == inner_project);

  destroy_window (inner);
  destroy_window (outer);
  g_unlink (inner_recovery);
}

static void
test_missing (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GFile) outer_folder = write_outer (f, "missing", "empty");
  SkWindow *outer = new_window ();
  SkProject *project;
  SkNode *missing, *empty;
  const char *toast;

  sk_test_write_text (f->dir, "outer/empty/notes.txt", "Not a workflow.\n");
  project = open_and_wait (outer, outer_folder);
  missing = sk_project_get_node (project, "2");
  empty = sk_project_get_node (project, "3");

  /* A folder that does not exist is not created as a new workflow: the
   * toast says what to do, and no window opens. */
  choose_open_subworkflow (outer, missing);
  drain ();
  toast = _sk_window_get_last_toast (outer);
  g_assert_nonnull (toast);
  sk_test_assert_contains (toast, "“missing” does not exist");
  sk_test_assert_contains (toast, "Create a workflow there");
  g_assert_cmpuint (count_windows (), ==, 1);
  g_assert_false (exists_in (f, "outer/missing"));

  /* Nor is a folder without a workflow made into one. */
  choose_open_subworkflow (outer, empty);
  drain ();
  toast = _sk_window_get_last_toast (outer);
  g_assert_nonnull (toast);
  sk_test_assert_contains (toast, "“empty” holds no workflow");
  sk_test_assert_contains (toast, "Save a workflow there");
  g_assert_cmpuint (count_windows (), ==, 1);
  g_assert_false (exists_in (f, "outer/empty/process.json"));

  /* The button takes the same way. */
  sk_canvas_select_node (_sk_window_get_canvas (outer), missing);
  drain ();
  click (subworkflow_button (outer));
  drain ();
  sk_test_assert_contains (_sk_window_get_last_toast (outer), "“missing” does not exist");
  g_assert_cmpuint (count_windows (), ==, 1);
  g_assert_false (exists_in (f, "outer/missing"));

  /* The outer workflow is still shown. */
  g_assert_true (sk_window_get_project (outer) == project);
  g_assert_cmpstr (visible_page (outer), ==, "workflow");

  destroy_window (outer);
}

#define CHAIN_JSON \
  "{\"process_name\": \"chain\", \"nodes\": {" \
  " \"1\": {\"name\": \"load\", \"priors\": [], \"input\": {\"text\": \"Load.\", \"files\": []}," \
  "         \"skele\": {\"x\": 100, \"y\": 100}}," \
  " \"2\": {\"name\": \"double\", \"priors\": [\"1\"], \"input\": {\"text\": \"Double.\", \"files\": []}," \
  "         \"skele\": {\"x\": 100, \"y\": 220}}," \
  " \"3\": {\"name\": \"add ten\", \"priors\": [\"2\"], \"input\": {\"text\": \"Add ten.\", \"files\": []}," \
  "         \"skele\": {\"x\": 100, \"y\": 340}}," \
  " \"4\": {\"name\": \"report\", \"priors\": [\"3\", \"1\"], \"input\": {\"text\": \"Report.\", \"files\": []}," \
  "         \"skele\": {\"x\": 100, \"y\": 460}}}}"

#define REPORT_PY \
  "def compute():\n" \
  "    total = prior_outputs[\"add_ten\"][\"value\"] + prior_outputs['load'][\"value\"]\n"

/* Selects @nodes on the canvas, as Shift+click on each does. */
static void
select_nodes (SkWindow *window,
              SkNode   *first,
              SkNode   *second)
{
  SkCanvas *canvas = _sk_window_get_canvas (window);
  GtkSelectionModel *selection = sk_canvas_get_selection (canvas);
  SkProject *project = sk_window_get_project (window);

  gtk_selection_model_unselect_all (selection);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (project)); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (node == first || node == second)
        gtk_selection_model_select_item (selection, i, FALSE);
    }
  drain ();
}

static AdwMessageDialog *
make_dialog (SkWindow *window)
{
  GtkWindow *dialog = find_dialog (window, ADW_TYPE_MESSAGE_DIALOG);

  g_assert_nonnull (dialog);
  return ADW_MESSAGE_DIALOG (dialog);
}

static void
test_make (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(GFile) folder = NULL;
  g_autofree char *before = NULL;
  g_autofree char *report_path = NULL;
  g_autofree char *report_text = NULL;
  g_autofree char *action = NULL;
  g_autoptr(GVariant) target = NULL;
  SkWindow *window = new_window ();
  AdwMessageDialog *dialog;
  GtkWidget *entry;
  SkProject *project;
  SkNode *sub, *report;

  sk_test_write_text (f->dir, "chain/process.json", CHAIN_JSON);
  sk_test_write_text (f->dir, "chain/report/report.py", REPORT_PY);
  sk_test_write_text (f->dir, "chain/add_ten/add_ten.py", "def compute():\n    pass\n");
  folder = g_file_get_child (f->folder, "chain");
  project = open_and_wait (window, folder);
  before = sk_project_to_data (project, NULL);
  report_path = g_build_filename (f->dir, "chain", "report", "report.py", NULL);

  /* The step's menu offers it. */
  g_assert_true (menu_item (window, sk_project_get_node (project, "2"), "Make Sub-_workflow…", &action, &target));
  g_assert_cmpstr (action, ==, "win.make-subworkflow");
  g_assert_null (target);

  /* Cancelling the dialog changes nothing. */
  select_nodes (window, sk_project_get_node (project, "2"), sk_project_get_node (project, "3"));
  activate (window, "make-subworkflow");
  dialog = make_dialog (window);
  respond (dialog, "_Cancel");
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 4);
  g_assert_false (exists_in (f, "chain/sub_workflow"));

  /* Making it with a name of the user's. */
  activate (window, "make-subworkflow");
  dialog = make_dialog (window);
  entry = adw_message_dialog_get_extra_child (dialog);
  g_assert_true (GTK_IS_ENTRY (entry));
  gtk_editable_set_text (GTK_EDITABLE (entry), "Number block");
  respond (dialog, "_Make Sub-workflow");
  flush_history (window);

  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
  g_assert_null (sk_project_get_node (project, "2"));
  g_assert_null (sk_project_get_node (project, "3"));
  sub = sk_project_get_node_by_key (project, "number_block");
  g_assert_nonnull (sub);
  g_assert_cmpstr (sk_node_get_workflow (sub), ==, "number_block");
  g_assert_true (sk_canvas_get_selected_node (_sk_window_get_canvas (window)) == sub);
  report = sk_project_get_node (project, "4");
  g_assert_cmpstr (sk_node_get_priors (report)[0], ==, sk_node_get_id (sub));
  g_assert_cmpstr (sk_node_get_priors (report)[1], ==, "1");
  g_assert_true (exists_in (f, "chain/number_block/process.json"));
  g_assert_true (exists_in (f, "chain/number_block/add_ten/add_ten.py"));
  g_assert_true (g_file_get_contents (report_path, &report_text, NULL, NULL));
  sk_test_assert_contains (report_text, "prior_outputs[\"number_block\"][\"add_ten\"]");
  sk_test_assert_contains (report_text, "prior_outputs['load']");
  sk_test_assert_contains (_sk_window_get_last_toast (window), "Made “Number block” from 2 steps");
  g_clear_pointer (&report_text, g_free);

  /* Undo puts everything back, the script too; redo makes it again. */
  g_assert_cmpstr (sk_history_get_undo_label (_sk_window_get_history (window)), ==, "Make Sub-workflow");
  activate (window, "undo");
  drain ();
  {
    g_autofree char *after_undo = sk_project_to_data (project, NULL);

    g_assert_cmpstr (after_undo, ==, before);
  }
  g_assert_true (g_file_get_contents (report_path, &report_text, NULL, NULL));
  g_assert_cmpstr (report_text, ==, REPORT_PY);
  g_clear_pointer (&report_text, g_free);
  g_assert_false (exists_in (f, "chain/number_block/process.json"));

  activate (window, "redo");
  drain ();
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
  g_assert_nonnull (sk_project_get_node_by_key (project, "number_block"));
  g_assert_true (exists_in (f, "chain/number_block/process.json"));
  g_assert_true (g_file_get_contents (report_path, &report_text, NULL, NULL));
  sk_test_assert_contains (report_text, "prior_outputs[\"number_block\"][\"add_ten\"]");

  destroy_window (window);
}

/* A selection that cannot become one step says why, and changes nothing. */
static void
test_make_refused (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GFile) folder = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  SkWindow *window = new_window ();
  AdwMessageDialog *dialog;
  SkProject *project;

  sk_test_write_text (f->dir, "chain/process.json", CHAIN_JSON);
  folder = g_file_get_child (f->folder, "chain");
  project = open_and_wait (window, folder);
  before = sk_project_to_data (project, NULL);

  /* “load” feeds “double” and “report”: taking “load” and “report” leaves
   * a way out of the selection and back. */
  select_nodes (window, sk_project_get_node (project, "1"), sk_project_get_node (project, "4"));
  activate (window, "make-subworkflow");
  respond (make_dialog (window), "_Make Sub-workflow");
  dialog = make_dialog (window);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "No Sub-workflow Was Made");
  sk_test_assert_contains (adw_message_dialog_get_body (dialog), "would wait for itself");
  respond (dialog, "_Close");

  after = sk_project_to_data (project, NULL);
  g_assert_cmpstr (after, ==, before);
  g_assert_false (exists_in (f, "chain/sub_workflow"));
  g_assert_false (sk_history_get_can_undo (_sk_window_get_history (window)));

  destroy_window (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!sk_test_window_init (&argc, &argv))
    return 0;

  SK_TEST_WINDOW_ADD ("subflow/open", test_open);
  SK_TEST_WINDOW_ADD ("subflow/missing", test_missing);
  SK_TEST_WINDOW_ADD ("subflow/make", test_make);
  SK_TEST_WINDOW_ADD ("subflow/make-refused", test_make_refused);

  return sk_test_window_run ();
}
