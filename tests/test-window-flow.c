/* test-window-flow.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Control flow in the main window (DESIGN §10): approving and denying a
 * gate from the output cell with real Python, editing the condition on a
 * connection from the canvas, and making a step a gate.
 */

#define G_LOG_DOMAIN "test-window-flow"

#include "sk-test-window.h"

#define VALUE_ONE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": 1}"

static GtkWidget *
find_widget (GtkWidget *widget,
             GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type);

      if (found != NULL)
        return found;
    }

  return NULL;
}

static GtkWidget *
output_child (SkWindow   *window,
              const char *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (_sk_window_get_output_cell (window)),
                                                  SK_TYPE_OUTPUT_CELL, name);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

/* Whether @widget or one of its descendants is a label that says @text. */
static gboolean
shows_label (GtkWidget  *widget,
             const char *text)
{
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return TRUE;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_label (child, text))
      return TRUE;

  return FALSE;
}

static SkApproval *
read_approval (SkProject *project,
               SkNode    *node)
{
  g_autoptr(GFile) folder = sk_project_get_node_folder (project, node);
  g_autofree char *path = g_file_get_path (folder);

  return sk_approval_read (path, sk_node_get_key (node));
}

/* "source" → "check" (a gate) → "after", run until the gate waits, with
 * the gate selected. */
static void
log_message_cb (SkCell     *cell,
                const char *message)
{
  g_test_message ("The Result cell said: %s", message);
}

static SkProject *
run_to_gate (SkWindow *window,
             Fixture  *f)
{
  g_autofree char *workflow = g_build_filename (f->dir, "gate", NULL);
  SkProject *project = create_and_open (window, f, "gate");
  SkNode *source = add_step (project, "1", "source");
  SkNode *check = add_step (project, "2", "check");
  SkNode *after = add_step (project, "3", "after");
  SkOutputCell *output = _sk_window_get_output_cell (window);

  sk_node_add_prior (check, "1");
  sk_node_add_prior (after, "2");
  sk_node_set_approval (check, TRUE);
  sk_node_set_position (check, 100, 220);
  sk_node_set_position (after, 100, 340);
  sk_test_write_script (workflow, SK_TEST_SCRIPT_TEMPLATE, "source", "", VALUE_ONE);
  sk_test_write_script (workflow, SK_TEST_SCRIPT_TEMPLATE, "check", "", VALUE_ONE);
  sk_test_write_script (workflow, SK_TEST_SCRIPT_TEMPLATE, "after", "", VALUE_ONE);

  activate (window, "run");
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);

  g_assert_cmpint (sk_node_get_state (source), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (sk_node_get_state (check), ==, SK_NODE_STATE_AWAITING_APPROVAL);
  g_assert_cmpint (sk_node_get_state (after), !=, SK_NODE_STATE_SUCCEEDED);
  g_assert_false (exists_in (f, "gate/check/check.pkl"));

  sk_canvas_select_node (_sk_window_get_canvas (window), check);
  drain ();
  g_assert_true (sk_cell_get_node (SK_CELL (output)) == check);

  /* The panel says the gate waits, and shows what it receives: the prior's
   * name and its report; the error box does not say it a second time. */
  g_assert_true (gtk_widget_get_visible (output_child (window, "gate_box")));
  g_assert_false (gtk_widget_get_visible (output_child (window, "error_box")));
  g_assert_true (shows_label (output_child (window, "gate_priors_box"), "source"));
  g_assert_true (shows_label (output_child (window, "gate_priors_box"), "task source\n") ||
                 shows_label (output_child (window, "gate_priors_box"), "task source"));
  g_assert_false (gtk_widget_get_visible (output_child (window, "decision_label")));

  /* What a decision is taken on: the run that stopped there. */
  {
    g_autoptr(GFile) folder = sk_project_get_node_folder (project, check);
    g_autofree char *path = g_file_get_path (folder);
    g_autofree char *waiting = sk_approval_get_waiting (path, sk_node_get_key (check));

    g_assert_nonnull (waiting);
  }

  /* A decision that cannot be kept is told in the window; the test log
   * says what. */
  g_signal_connect (output, "message", G_CALLBACK (log_message_cb), NULL);

  return project;
}

static void
test_gate_approve (Fixture       *f,
                   gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  g_autoptr(SkApproval) approval = NULL;
  GtkWidget *decision;
  SkNode *check, *after;

  if (skip_without_python ())
    return;

  use_python ();
  window = new_window ();
  project = run_to_gate (window, f);
  check = node_by_key (window, "check");
  after = node_by_key (window, "after");

  gtk_editable_set_text (GTK_EDITABLE (output_child (window, "note_entry")), "Totals match the ledger");
  /* A click, as the end-to-end test makes with the mouse; activating the
   * button would wait for its animation, on a window that may not be
   * active when other tests run. */
  g_assert_true (gtk_widget_is_sensitive (output_child (window, "approve_button")));
  g_signal_emit_by_name (output_child (window, "approve_button"), "clicked");

  /* A button's activation clicks it a moment later. The decision starts
   * the run again, which goes on from the gate. */
  SK_TEST_WAIT_UNTIL (exists_in (f, "gate/check/.skele/approval.json"), WAIT_MS);
  g_assert_true (_sk_window_is_running (window));
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);

  g_assert_cmpint (sk_node_get_state (check), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (sk_node_get_state (after), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_true (exists_in (f, "gate/check/check.pkl"));
  g_assert_true (exists_in (f, "gate/after/after.pkl"));

  approval = read_approval (project, check);
  g_assert_nonnull (approval);
  g_assert_true (approval->approved);
  g_assert_cmpstr (approval->note, ==, "Totals match the ledger");

  /* The panel is gone and the decision is told instead. */
  drain ();
  g_assert_false (gtk_widget_get_visible (output_child (window, "gate_box")));
  decision = output_child (window, "decision_label");
  g_assert_true (gtk_widget_get_visible (decision));
  g_assert_true (g_str_has_prefix (gtk_label_get_text (GTK_LABEL (decision)), "Approved by "));
  sk_test_assert_contains (gtk_label_get_text (GTK_LABEL (decision)), "Note: Totals match the ledger");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (output_child (window, "note_entry"))), ==, "");

  destroy_window (window);
  forget_python ();
}

static void
test_gate_deny (Fixture       *f,
                gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  g_autoptr(SkApproval) approval = NULL;
  GtkWidget *decision;
  SkNode *check, *after;

  if (skip_without_python ())
    return;

  use_python ();
  window = new_window ();
  project = run_to_gate (window, f);
  check = node_by_key (window, "check");
  after = node_by_key (window, "after");

  /* A click, as the end-to-end test makes with the mouse; activating the
   * button would wait for its animation, on a window that may not be
   * active when other tests run. */
  g_assert_true (gtk_widget_is_sensitive (output_child (window, "deny_button")));
  g_signal_emit_by_name (output_child (window, "deny_button"), "clicked");
  SK_TEST_WAIT_UNTIL (exists_in (f, "gate/check/.skele/approval.json"), WAIT_MS);
  g_assert_true (_sk_window_is_running (window));
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);

  /* Denied, the gate is skipped and so is the step that needs it. */
  g_assert_cmpint (sk_node_get_state (check), ==, SK_NODE_STATE_SKIPPED);
  g_assert_cmpint (sk_node_get_state (after), ==, SK_NODE_STATE_SKIPPED);
  g_assert_false (exists_in (f, "gate/check/check.pkl"));
  g_assert_false (exists_in (f, "gate/after/after.pkl"));

  approval = read_approval (project, check);
  g_assert_nonnull (approval);
  g_assert_false (approval->approved);
  g_assert_null (approval->note);

  drain ();
  g_assert_false (gtk_widget_get_visible (output_child (window, "gate_box")));
  /* The denial is the skipped gate's reason, shown once, in its error box. */
  decision = output_child (window, "decision_label");
  g_assert_false (gtk_widget_get_visible (decision));
  g_assert_true (g_str_has_prefix (sk_node_get_error_text (check), "Denied by "));

  /* The denial can be taken back: approving instead runs the gate and
   * the step after it. */
  g_assert_true (gtk_widget_get_visible (output_child (window, "reverse_button")));
  g_signal_emit_by_name (output_child (window, "reverse_button"), "clicked");
  SK_TEST_WAIT_UNTIL (exists_in (f, "gate/after/after.pkl"), RUN_WAIT_MS);
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);
  g_assert_cmpint (sk_node_get_state (check), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (sk_node_get_state (after), ==, SK_NODE_STATE_SUCCEEDED);
  g_clear_pointer (&approval, sk_approval_free);
  approval = read_approval (project, check);
  g_assert_true (approval->approved);
  drain ();
  g_assert_false (gtk_widget_get_visible (output_child (window, "reverse_button")));

  destroy_window (window);
  forget_python ();
}

/* The middle of the connection from @prior to @node, in the canvas's
 * widget coordinates. */
static void
edge_middle (SkCanvas *canvas,
             SkNode   *prior,
             SkNode   *node,
             double   *x,
             double   *y)
{
  double p[8];
  double mx, my;

  _sk_canvas_edge_route (_sk_canvas_lookup_item (canvas, prior), _sk_canvas_lookup_item (canvas, node), p);
  _sk_canvas_cubic_point (p, 0.5, &mx, &my);
  _sk_canvas_model_to_widget (canvas, mx, my, x, y);
}

/* Types @text into the condition dialog and applies it. */
static void
answer_condition (SkWindow   *window,
                  const char *text,
                  const char *response)
{
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  GtkWidget *entry;

  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Edit Condition");
  entry = find_widget (adw_message_dialog_get_extra_child (dialog), GTK_TYPE_ENTRY);
  g_assert_nonnull (entry);
  g_assert_true (gtk_widget_has_css_class (entry, "monospace"));
  if (text != NULL)
    gtk_editable_set_text (GTK_EDITABLE (entry), text);
  respond (dialog, response);
}

static void
test_edge_condition (Fixture       *f,
                     gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project = create_and_open (window, f, "branch");
  SkCanvas *canvas = _sk_window_get_canvas (window);
  SkNode *score = add_step (project, "1", "score");
  SkNode *pass = add_step (project, "2", "pass");
  g_autoptr(SkProject) saved = NULL;
  g_autoptr(GFile) folder = g_file_get_child (f->folder, "branch");
  SkNode *prior = NULL, *child = NULL;
  double x, y;

  sk_node_set_position (score, 200, 100);
  sk_node_set_position (pass, 200, 400);
  sk_node_add_prior (pass, "1");
  flush_history (window);
  sk_canvas_set_zoom (canvas, 1.0);
  sk_canvas_scroll_to_node (canvas, score);
  drain ();

  /* A double click on the connection selects it and asks for its
   * condition. */
  edge_middle (canvas, score, pass, &x, &y);
  _sk_canvas_click (canvas, x, y, GDK_BUTTON_PRIMARY, 0, 1);
  _sk_canvas_click (canvas, x, y, GDK_BUTTON_PRIMARY, 0, 2);
  g_assert_true (_sk_canvas_get_selected_edge (canvas, &prior, &child));
  g_assert_true (prior == score && child == pass);
  answer_condition (window, "output[\"score\"] >= 80", "_Apply");
  g_assert_cmpstr (sk_node_get_condition (pass, "1"), ==, "output[\"score\"] >= 80");

  activate (window, "save");
  SK_TEST_WAIT_UNTIL (!sk_project_get_modified (project), WAIT_MS);
  saved = load_from_disk (folder);
  g_assert_cmpstr (sk_node_get_condition (sk_project_get_node (saved, "2"), "1"), ==,
                   "output[\"score\"] >= 80");

  /* One undo step takes it back. */
  flush_history (window);
  g_assert_cmpstr (sk_history_get_undo_label (_sk_window_get_history (window)), ==, "Edit Condition");
  activate (window, "undo");
  g_assert_null (sk_node_get_condition (pass, "1"));
  activate (window, "redo");
  g_assert_cmpstr (sk_node_get_condition (pass, "1"), ==, "output[\"score\"] >= 80");

  /* From the keyboard: Return on the selected connection, then Cancel. */
  _sk_canvas_select_edge (canvas, score, pass);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (canvas), "canvas.activate", NULL));
  answer_condition (window, "default", "_Cancel");
  g_assert_cmpstr (sk_node_get_condition (pass, "1"), ==, "output[\"score\"] >= 80");

  /* F2's action, and an empty condition removes it. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (canvas), "canvas.edit-condition", NULL));
  answer_condition (window, "  ", "_Apply");
  g_assert_null (sk_node_get_condition (pass, "1"));
  flush_history (window);
  activate (window, "undo");
  g_assert_cmpstr (sk_node_get_condition (pass, "1"), ==, "output[\"score\"] >= 80");

  /* Removing the connection removes its condition in the same step. */
  flush_history (window);
  _sk_canvas_select_edge (canvas, score, pass);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (canvas), "canvas.delete", NULL));
  g_assert_false (sk_node_has_prior (pass, "1"));
  g_assert_null (sk_node_get_condition (pass, "1"));
  flush_history (window);
  activate (window, "undo");
  g_assert_true (sk_node_has_prior (pass, "1"));
  g_assert_cmpstr (sk_node_get_condition (pass, "1"), ==, "output[\"score\"] >= 80");

  destroy_window (window);
}

static void
test_needs_approval (Fixture       *f,
                     gconstpointer  data)
{
  SkWindow *window = new_window ();
  SkProject *project = create_and_open (window, f, "approval");
  SkNode *node = add_step (project, "1", "publish");
  GtkWidget *input = GTK_WIDGET (_sk_window_get_input_cell (window));
  GtkSwitch *toggle;

  flush_history (window);
  sk_canvas_select_node (_sk_window_get_canvas (window), node);
  drain ();
  toggle = GTK_SWITCH (gtk_widget_get_template_child (input, SK_TYPE_INPUT_CELL, "approval_switch"));
  g_assert_false (gtk_switch_get_active (toggle));

  /* Activating the row, as a click on it does, flips its switch. */
  adw_action_row_activate (ADW_ACTION_ROW (gtk_widget_get_template_child (input, SK_TYPE_INPUT_CELL,
                                                                          "approval_row")));
  /* The switch moves at the end of its animation. */
  SK_TEST_WAIT_UNTIL (gtk_switch_get_active (toggle), WAIT_MS);
  g_assert_true (sk_node_get_approval (node));

  flush_history (window);
  g_assert_cmpstr (sk_history_get_undo_label (_sk_window_get_history (window)), ==, "Ask for Approval");
  activate (window, "undo");
  g_assert_false (sk_node_get_approval (node));
  g_assert_false (gtk_switch_get_active (toggle));
  activate (window, "redo");
  g_assert_true (sk_node_get_approval (node));
  g_assert_true (gtk_switch_get_active (toggle));

  destroy_window (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!sk_test_window_init (&argc, &argv))
    return 0;

  SK_TEST_WINDOW_ADD ("flow/gate-approve", test_gate_approve);
  SK_TEST_WINDOW_ADD ("flow/gate-deny", test_gate_deny);
  SK_TEST_WINDOW_ADD ("flow/edge-condition", test_edge_condition);
  SK_TEST_WINDOW_ADD ("flow/needs-approval", test_needs_approval);

  return sk_test_window_run ();
}
