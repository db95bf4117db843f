/* sk-window-actions.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-window-actions"

#include "config.h"

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "sk-code-cell-private.h"
#include "skele.h"
#include "sk-window-private.h"

/* Saving */

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);

  if (sk_window_save (self))
    sk_window_show_toast (self, _("Saved"));
}

static void
save_as_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  _sk_window_choose_folder (SK_WINDOW (widget), _("Save Workflow As"), _("_Save"), TRUE, _sk_window_save_as);
}

static void
close_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  gtk_window_close (GTK_WINDOW (widget));
}

/* Undo */

static gboolean
text_widget_undo (GtkWidget *focus,
                  gboolean   redo)
{
  GtkTextBuffer *buffer;

  /* The code editor keeps its own undo history, because code is a file and
   * not part of the workflow model. */
  if (!GTK_SOURCE_IS_VIEW (focus))
    return FALSE;

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (focus));
  if (redo && gtk_text_buffer_get_can_redo (buffer))
    gtk_text_buffer_redo (buffer);
  else if (!redo && gtk_text_buffer_get_can_undo (buffer))
    gtk_text_buffer_undo (buffer);

  return TRUE;
}

/* An undo the user cannot see is no undo to them: the step it changed is
 * selected and scrolled to, unless one it changed is selected already, and
 * a change of something not on the canvas is named. */
static void
show_undone (SkWindow    *self,
             char       **ids,
             const char  *label,
             gboolean     redo)
{
  SkProject *project = _sk_window_project (self);
  g_autoptr(GPtrArray) selected = sk_canvas_get_selected_nodes (self->canvas);
  SkNode *first = NULL;

  for (guint i = 0; ids[i] != NULL; i++)
    {
      SkNode *node = sk_project_get_node (project, ids[i]);

      if (node == NULL)
        continue;
      if (g_ptr_array_find (selected, node, NULL))
        return;
      if (first == NULL)
        first = node;
    }

  if (first != NULL)
    {
      sk_canvas_select_node (self->canvas, first);
      sk_canvas_scroll_to_node (self->canvas, first);
    }
  else if (label != NULL)
    {
      g_autofree char *message = NULL;

      /* Translators: the argument is what was undone, such as "Delete Step". */
      message = g_strdup_printf (redo ? _("Redone: %s") : _("Undone: %s"), label);
      sk_window_show_toast (self, message);
    }
}

static void
undo_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  gboolean redo = g_str_equal (action_name, "win.redo");
  g_autofree char *label = NULL;
  g_auto(GStrv) ids = NULL;
  SkHistory *history;

  if (text_widget_undo (gtk_root_get_focus (GTK_ROOT (self)), redo))
    return;

  if (_sk_window_history (self) == NULL)
    return;

  history = _sk_window_history (self);
  sk_history_flush (history);
  label = g_strdup (redo ? sk_history_get_redo_label (history) : sk_history_get_undo_label (history));
  ids = sk_history_get_node_ids (history, redo);

  if (!(redo ? sk_history_redo (history) : sk_history_undo (history)))
    return;

  /* Steps that come back, deleted or made into a sub-workflow before, have
   * their folders still: they show what their last run left. */
  for (guint i = 0; ids != NULL && ids[i] != NULL; i++)
    {
      SkNode *node = sk_project_get_node (_sk_window_project (self), ids[i]);

      if (node != NULL && sk_node_get_state (node) == SK_NODE_STATE_IDLE)
        {
          sk_workspace_restore_states (self->workspace);
          break;
        }
    }

  show_undone (self, ids, label, redo);
}

/* Running and writing code */

/**
 * _sk_window_update_progress:
 * @self: a #SkWindow
 *
 * Says in the progress bar how far the run under way is.
 */
void
_sk_window_update_progress (SkWindow *self)
{
  GPtrArray *nodes = self->workspace != NULL ? sk_workspace_get_run_nodes (self->workspace) : NULL;
  gboolean generating = self->workspace != NULL && sk_workspace_get_generating (self->workspace);
  guint done = 0;
  SkNode *running = NULL;
  SkNode *writing = NULL;
  g_autofree char *text = NULL;

  if (nodes == NULL || nodes->len == 0)
    return;

  for (guint i = 0; i < nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (nodes, i);
      SkNodeState state = sk_node_get_state (node);
      gboolean finished;

      /* Writing code leaves a step as it was, not in a finished state. */
      if (generating)
        finished = state != SK_NODE_STATE_QUEUED && state != SK_NODE_STATE_WRITING_CODE;
      else
        finished = sk_node_state_is_finished (state);

      if (finished)
        done++;
      else if (state == SK_NODE_STATE_WRITING_CODE && writing == NULL)
        writing = node;
      else if (state == SK_NODE_STATE_RUNNING && running == NULL)
        running = node;
    }

  if (writing != NULL)
    text = g_strdup_printf (_("Writing the code of “%s”… %u of %u steps done"),
                            sk_node_get_name (writing), done, nodes->len);
  else if (running != NULL)
    text = g_strdup_printf (_("Running “%s” — %u of %u steps done"),
                            sk_node_get_name (running), done, nodes->len);
  else
    text = g_strdup_printf (_("%u of %u steps done"), done, nodes->len);

  gtk_progress_bar_set_fraction (self->progress_bar, (double) done / nodes->len);
  gtk_progress_bar_set_text (self->progress_bar, text);
}

static void
agent_setup_response_cb (AdwMessageDialog *dialog,
                         const char       *response,
                         SkWindow         *self)
{
  if (g_str_equal (response, "set-up"))
    gtk_widget_activate_action (GTK_WIDGET (self), "app.agent-preferences", NULL);
}

static void
show_agent_setup (SkWindow *self,
                  guint     missing)
{
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  body = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%u step has no code yet, so it did not run. A coding agent writes a step’s code from its task: choose a provider and a model in Preferences, and Run again. You can also write the code yourself in the step’s Code cell.",
                                       "%u steps have no code yet, so they did not run. A coding agent writes a step’s code from its task: choose a provider and a model in Preferences, and Run again. You can also write the code yourself in each step’s Code cell.",
                                       missing),
                          missing);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("No Coding Agent Is Set Up"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "later", _("_Not Now"),
                                    "set-up", _("_Set Up Coding Agent…"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "set-up", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "set-up");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "later");
  g_signal_connect_object (dialog, "response", G_CALLBACK (agent_setup_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
report_run (SkWindow          *self,
            const SkRunReport *report,
            gboolean           stopped)
{
  const SkRunStats *stats = &report->stats;
  g_autoptr(GString) message = g_string_new (NULL);
  guint missing = report->missing_before;
  gboolean offer_agent = FALSE;

  if (stats->cancelled > 0 || stopped)
    g_string_append (message, _("Run stopped"));
  else if (stats->failed > 0)
    g_string_append (message, _("Run finished with failures"));
  else if (stats->awaiting_approval > 0)
    g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE,
                                                  "Run waits for %u approval",
                                                  "Run waits for %u approvals",
                                                  stats->awaiting_approval),
                            stats->awaiting_approval);
  else
    g_string_append (message, _("Run finished"));

  /* What ran and what was already up to date are told apart: "5 steps
   * succeeded" after a run that ran nothing would not be true. */
  g_string_append_printf (message, ": ");
  if (stats->succeeded > 0 || stats->up_to_date == 0)
    g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE, "%u step succeeded", "%u steps succeeded", stats->succeeded),
                            stats->succeeded);
  if (stats->up_to_date > 0)
    {
      if (stats->succeeded > 0)
        g_string_append (message, ", ");
      g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE, "%u step was up to date", "%u steps were up to date", stats->up_to_date),
                              stats->up_to_date);
    }
  if (stats->failed > 0)
    {
      g_string_append (message, ", ");
      g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE, "%u failed", "%u failed", stats->failed), stats->failed);
    }
  if (stats->skipped > 0)
    {
      g_string_append (message, ", ");
      g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE, "%u skipped", "%u skipped", stats->skipped), stats->skipped);
    }
  if (stats->waiting > 0)
    {
      g_string_append (message, ", ");
      g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE,
                                                    "%u waits for code",
                                                    "%u wait for code",
                                                    stats->waiting),
                              stats->waiting);
    }

  if (stats->no_code > 0 && !report->had_agent)
    {
      missing = stats->no_code;
      g_string_append (message, ". ");
      g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE,
                                                    "%u step has no code yet",
                                                    "%u steps have no code yet",
                                                    missing),
                              missing);
      offer_agent = TRUE;
      /* The first time, the whole story in a dialog; after that a toast
       * with a button is enough. */
      if (!self->agent_setup_shown)
        {
          self->agent_setup_shown = TRUE;
          show_agent_setup (self, missing);
        }
    }
  else if (missing > 0)
    {
      guint written = missing > report->missing_after ? missing - report->missing_after : 0;

      if (written > 0)
        {
          g_string_append (message, ". ");
          g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE,
                                                        "The coding agent wrote the code of %u step",
                                                        "The coding agent wrote the code of %u steps",
                                                        written),
                                  written);
        }
    }

  _sk_window_add_toast (self, message->str, offer_agent);
}

static void
report_generation (SkWindow          *self,
                   const SkRunReport *report,
                   gboolean           stopped)
{
  const SkRunStats *stats = &report->stats;
  g_autoptr(GString) message = g_string_new (NULL);

  if (stats->cancelled > 0 || stopped)
    g_string_append (message, _("Writing code stopped"));
  else if (stats->failed > 0)
    g_string_append (message, _("Writing code finished with failures"));
  else
    g_string_append (message, _("Code written"));

  g_string_append (message, ": ");
  g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE, "%u step got new code", "%u steps got new code", stats->succeeded),
                          stats->succeeded);
  if (stats->failed > 0)
    {
      g_string_append (message, ", ");
      g_string_append_printf (message, g_dngettext (GETTEXT_PACKAGE, "%u failed", "%u failed", stats->failed), stats->failed);
    }

  sk_window_show_toast (self, message->str);
}

/* What a run's callback needs: the window and the steps it ran. */
typedef struct
{
  SkWindow  *self;
  GPtrArray *nodes;
} RunCall;

static void
run_call_free (RunCall *call)
{
  g_clear_object (&call->self);
  g_clear_pointer (&call->nodes, g_ptr_array_unref);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RunCall, run_call_free)

static void
no_sandbox_response_cb (AdwMessageDialog *dialog,
                        const char       *response,
                        SkWindow         *self)
{
  if (g_str_equal (response, "preferences"))
    gtk_widget_activate_action (GTK_WIDGET (self), "app.preferences", NULL);
}

static void
show_no_sandbox (SkWindow   *self,
                 const char *message)
{
  GtkWidget *dialog;

  g_free (self->last_toast);
  self->last_toast = g_strdup (message);

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Steps Cannot Run Safely Here"), message);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "close", _("_Close"),
                                    "preferences", _("Open _Preferences"),
                                    NULL);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "close");
  g_signal_connect_object (dialog, "response", G_CALLBACK (no_sandbox_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
run_cb (GObject      *object,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autoptr(RunCall) call = user_data;
  SkWindow *self = call->self;
  GPtrArray *nodes = call->nodes;
  SkWorkspace *workspace = SK_WORKSPACE (object);
  g_autoptr(GError) error = NULL;
  SkRunReport report = { 0 };
  SkNode *first_failed = NULL;
  gboolean finished;

  finished = sk_workspace_run_finish (workspace, result, &report, &error);

  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), FALSE);
  _sk_window_update_actions (self);

  /* A window closed, or showing another workflow, has nothing to report. */
  if (self->workspace != workspace || gtk_widget_in_destruction (GTK_WIDGET (self)))
    return;

  if (g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED) && report.generated)
    {
      _sk_window_add_toast (self, _("No coding agent is set up yet. Choose its model in Preferences, and it writes the code."), TRUE);
      return;
    }

  /* Too long for a toast, and something to act on, not to glance at. */
  if (g_error_matches (error, SK_RUNNER_ERROR, SK_RUNNER_ERROR_NO_SANDBOX))
    {
      show_no_sandbox (self, error->message);
      return;
    }

  if (!finished && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = NULL;

      if (g_error_matches (error, SK_WORKSPACE_ERROR, SK_WORKSPACE_ERROR_SAVE))
        text = g_strdup (error->message);
      else if (report.generated)
        text = g_strdup_printf (_("The coding agent could not start: %s"), error->message);
      else
        text = g_strdup_printf (_("The workflow could not run: %s"), error->message);
      _sk_window_add_toast (self, text, g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED));
      return;
    }

  /* Stopped while the keyring was asked: nothing ran. */
  if (report.stats.succeeded + report.stats.failed + report.stats.skipped +
      report.stats.up_to_date + report.stats.cancelled == 0 && error != NULL)
    {
      sk_window_show_toast (self, report.generated ? _("Writing code stopped") : _("Run stopped"));
      return;
    }

  if (report.generated)
    report_generation (self, &report, error != NULL);
  else
    report_run (self, &report, error != NULL);

  /* Showing the first failure saves the user a search; without one, the
   * first step that still needs its code. */
  for (guint i = 0; i < nodes->len && first_failed == NULL; i++)
    if (sk_node_get_state (g_ptr_array_index (nodes, i)) == SK_NODE_STATE_FAILED)
      first_failed = g_ptr_array_index (nodes, i);
  for (guint i = 0; i < nodes->len && first_failed == NULL; i++)
    if (sk_node_get_state (g_ptr_array_index (nodes, i)) == SK_NODE_STATE_NO_CODE)
      first_failed = g_ptr_array_index (nodes, i);
  if (first_failed != NULL)
    {
      sk_canvas_select_node (self->canvas, first_failed);
      sk_canvas_scroll_to_node (self->canvas, first_failed);
    }

  _sk_window_update_title (self);
}

static void
code_saved_cb (SkWindow *self)
{
  g_autoptr(GPtrArray) nodes = g_steal_pointer (&self->pending_run);

  g_signal_handlers_disconnect_by_func (self->code_cell, code_saved_cb, self);
  if (nodes != NULL && !sk_code_cell_get_modified (self->code_cell))
    _sk_window_start_work (self, nodes, self->pending_generate);
}

/**
 * _sk_window_start_work:
 * @self: a #SkWindow
 * @nodes: (element-type SkNode): the steps
 * @generate: only write the code of those that have none
 *
 * Runs @nodes through the workspace, which reads the settings anew each
 * time, so that a change in Preferences counts from the next run on.
 */
void
_sk_window_start_work (SkWindow  *self,
                       GPtrArray *nodes,
                       gboolean   generate)
{
  RunCall *call;

  if (self->workspace == NULL || _sk_window_is_running (self))
    return;

  if (nodes->len == 0)
    {
      if (generate)
        sk_window_show_toast (self, _("Every step has code already"));
      else
        sk_window_show_toast (self, _("No step is marked to run. Right-click a step to mark it."));
      return;
    }

  /* A code edit still waiting for its save would not be what runs; write it
   * first and start once it is on disk. */
  if (sk_code_cell_get_modified (self->code_cell))
    {
      if (self->pending_run == NULL)
        g_signal_connect_object (self->code_cell, "saved", G_CALLBACK (code_saved_cb), self, G_CONNECT_SWAPPED);
      g_clear_pointer (&self->pending_run, g_ptr_array_unref);
      self->pending_run = g_ptr_array_ref (nodes);
      self->pending_generate = !!generate;
      sk_code_cell_save (self->code_cell);
      return;
    }

  if (!generate && !_sk_window_check_permissions (self, nodes))
    return;

  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_progress_bar_set_text (self->progress_bar, _("Preparing…"));
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), TRUE);

  call = g_new0 (RunCall, 1);
  call->self = g_object_ref (self);
  call->nodes = g_ptr_array_ref (nodes);
  sk_workspace_run_async (self->workspace, nodes, NULL, generate, self->cancellable, run_cb, call);

  if (!_sk_window_is_running (self))
    return;

  if (sk_workspace_get_run_nodes (self->workspace) != NULL)
    _sk_window_update_progress (self);
  _sk_window_update_actions (self);
}

/**
 * sk_window_run_nodes:
 * @self: a #SkWindow
 * @nodes: (element-type SkNode): the steps to run
 *
 * Saves the workflow, then runs @nodes in dependency order without blocking
 * the window. When a coding agent is set up in Preferences, it writes the
 * missing scripts first and repairs the scripts that fail.
 */
void
sk_window_run_nodes (SkWindow  *self,
                     GPtrArray *nodes)
{
  g_return_if_fail (SK_IS_WINDOW (self));
  g_return_if_fail (nodes != NULL);

  _sk_window_start_work (self, nodes, FALSE);
}

static void
run_selected (SkWindow           *self,
              const char * const *only,
              const char         *from,
              const char         *to)
{
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GError) error = NULL;

  if (self->workspace == NULL)
    return;

  nodes = sk_project_select_nodes (_sk_window_project (self), only, from, to, &error);
  if (nodes == NULL)
    {
      sk_window_show_toast (self, error->message);
      return;
    }

  sk_window_run_nodes (self, nodes);
}

static void
run_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  run_selected (SK_WINDOW (widget), NULL, NULL, NULL);
}

static void
run_node_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  const char *id = g_variant_get_string (parameter, NULL);
  const char *only[] = { id, NULL };

  if (g_str_equal (action_name, "win.run-node"))
    run_selected (self, only, NULL, NULL);
  else if (g_str_equal (action_name, "win.run-from"))
    run_selected (self, NULL, id, NULL);
  else
    run_selected (self, NULL, NULL, id);
}

static void
stop_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);

  if (self->workspace != NULL)
    sk_workspace_stop (self->workspace);
}

/* Says what to do when no coding agent is set up: @missing_agent when none
 * is chosen, the settings' own words when they are wrong. */
static gboolean
agent_is_set_up (SkWindow   *self,
                 const char *missing_agent)
{
  g_autoptr(GError) error = NULL;

  if (sk_workspace_check_agent (self->workspace, NULL, &error))
    return TRUE;

  if (g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED))
    _sk_window_add_toast (self, missing_agent, TRUE);
  else
    sk_window_show_toast (self, error->message);
  return FALSE;
}

static void
generate_code_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  g_autoptr(GPtrArray) nodes = NULL;

  if (self->workspace == NULL)
    return;

  nodes = sk_workspace_get_nodes_without_code (self->workspace);
  if (nodes->len > 0 && !agent_is_set_up (self,
                                          _("No coding agent is set up yet. Choose its model in Preferences, and it writes the code.")))
    return;

  _sk_window_start_work (self, nodes, TRUE);
}

/* Clear and Regenerate */


typedef struct
{
  SkWindow *self;
  SkNode   *node;
} Regeneration;

static void
regeneration_free (Regeneration *regeneration)
{
  g_clear_object (&regeneration->self);
  g_clear_object (&regeneration->node);
  g_free (regeneration);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Regeneration, regeneration_free)

static void
put_aside_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(Regeneration) regeneration = user_data;
  SkWindow *self = regeneration->self;
  SkProject *project = _sk_window_project (self);
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GError) error = NULL;

  if (!_sk_code_cell_put_aside_finish (SK_CODE_CELL (object), result, &error))
    {
      g_autofree char *message = NULL;

      if (project == NULL)
        return;

      message = g_strdup_printf (_("The script could not be put aside, so it was left as it is: %s"),
                                 error->message);
      sk_window_show_toast (self, message);
      return;
    }

  if (project == NULL ||
      sk_project_get_node (project, sk_node_get_id (regeneration->node)) != regeneration->node)
    return;

  nodes = g_ptr_array_new ();
  g_ptr_array_add (nodes, regeneration->node);
  _sk_window_start_work (self, nodes, TRUE);
}

static void
regenerate_response_cb (AdwMessageDialog *dialog,
                        const char       *response,
                        SkWindow         *self)
{
  SkNode *node = g_object_get_data (G_OBJECT (dialog), "sk-node");
  SkProject *project = _sk_window_project (self);
  Regeneration *regeneration;
  g_autoptr(GFile) script = NULL;

  if (g_strcmp0 (response, "regenerate") != 0 || project == NULL)
    return;

  /* The step may have gone, or a run started, while the dialog was open. */
  if (sk_project_get_node (project, sk_node_get_id (node)) != node)
    return;
  if (_sk_window_is_running (self))
    {
      sk_window_show_toast (self, _("The code was left as it is: stop the run, or wait for it to finish, then regenerate the code"));
      return;
    }

  script = sk_project_get_node_script (project, node);
  if (script == NULL)
    return;

  regeneration = g_new0 (Regeneration, 1);
  regeneration->self = g_object_ref (self);
  regeneration->node = g_object_ref (node);
  _sk_code_cell_put_aside_async (self->code_cell, script, put_aside_cb, regeneration);
}

static void
regenerate_code_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  SkNode *node = sk_canvas_get_selected_node (self->canvas);
  GFile *folder = sk_window_get_folder (self);
  g_autoptr(GFile) previous = NULL;
  g_autofree char *kept = NULL;
  AdwMessageDialog *dialog;

  if (self->workspace == NULL || node == NULL || folder == NULL || _sk_window_is_running (self))
    return;

  if (!agent_is_set_up (self, _("No coding agent is set up yet. Choose its model in Preferences, and it writes new code for this step.")))
    return;

  previous = sk_step_folder_get_file (folder, sk_node_get_key (node), SK_STEP_FILE_PREVIOUS_SCRIPT);
  kept = g_file_get_relative_path (folder, previous);
  if (kept == NULL)
    kept = g_file_get_path (previous);

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Clear and Regenerate the Code?"), NULL));
  adw_message_dialog_format_body (dialog,
                                  _("The coding agent writes new code for “%s” now. The current "
                                    "script is kept as %s, so nothing is lost."),
                                  sk_node_get_name (node), kept);
  adw_message_dialog_add_responses (dialog,
                                    "cancel", _("_Cancel"),
                                    "regenerate", _("_Regenerate"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "regenerate", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "regenerate");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "sk-node", g_object_ref (node), g_object_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (regenerate_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The canvas */

static void
arrange_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  sk_canvas_arrange (SK_WINDOW (widget)->canvas);
}

static void
edit_process_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  _sk_window_show_properties (SK_WINDOW (widget), NULL);
}

/* A sub-workflow step opens the workflow it stands for in a window of its
 * own, through the application's own way of opening a folder, so that a
 * workflow already open is brought forward rather than opened twice. */
static void
open_subworkflow_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  SkProject *project = _sk_window_project (self);
  const char *id = g_variant_get_string (parameter, NULL);
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GFile) process = NULL;
  g_autofree char *message = NULL;
  GtkApplication *app;
  const char *relative;
  SkNode *node;

  if (project == NULL || sk_project_get_folder (project) == NULL)
    return;

  node = sk_project_get_node (project, id);
  relative = node != NULL ? sk_node_get_workflow (node) : NULL;
  if (relative == NULL)
    {
      sk_window_show_toast (self, _("This step is not a sub-workflow: it names no workflow folder."));
      return;
    }

  folder = g_file_resolve_relative_path (sk_project_get_folder (project), relative);
  process = g_file_get_child (folder, SK_PROJECT_FILE_NAME);
  if (g_file_query_file_type (folder, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_DIRECTORY)
    {
      /* Translators: %s is a folder, relative to the workflow's. */
      message = g_strdup_printf (_("The sub-workflow folder “%s” does not exist. Create a workflow "
                                   "there, or change “workflow” in the step’s Properties to the "
                                   "folder of one."), relative);
      sk_window_show_toast (self, message);
      return;
    }
  if (!g_file_query_exists (process, NULL))
    {
      /* Translators: the first %s is a folder, relative to the workflow's. */
      message = g_strdup_printf (_("The folder “%s” holds no workflow (it has no %s). Save a "
                                   "workflow there, or change “workflow” in the step’s Properties "
                                   "to the folder of one."), relative, SK_PROJECT_FILE_NAME);
      sk_window_show_toast (self, message);
      return;
    }

  app = gtk_window_get_application (GTK_WINDOW (self));
  if (app == NULL)
    return;
  g_application_open (G_APPLICATION (app), &folder, 1, "");
}

/* Making a sub-workflow from the selected steps asks for its name first:
 * it names the new step and the folder the steps go into. */
typedef struct
{
  SkWindow  *self;
  GtkEntry  *entry;
  GPtrArray *node_ids;
} SubworkflowRequest;

static void
subworkflow_request_free (gpointer  data,
                          GClosure *closure)
{
  SubworkflowRequest *request = data;

  g_clear_weak_pointer (&request->self);
  g_clear_pointer (&request->node_ids, g_ptr_array_unref);
  g_free (request);
}

static void
show_subworkflow_error (SkWindow   *self,
                        const char *message)
{
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("No Sub-workflow Was Made"), message);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
make_subworkflow_response_cb (AdwMessageDialog   *dialog,
                              const char         *response,
                              SubworkflowRequest *request)
{
  SkWindow *self = request->self;
  SkProject *project;
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();
  g_auto(GStrv) to_check = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  SkNode *node;

  if (self == NULL || !g_str_equal (response, "make"))
    return;

  project = _sk_window_project (self);
  if (project == NULL)
    return;

  /* The workflow may have changed while the dialog was open. */
  for (guint i = 0; i < request->node_ids->len; i++)
    {
      SkNode *chosen = sk_project_get_node (project, g_ptr_array_index (request->node_ids, i));

      if (chosen != NULL)
        g_ptr_array_add (nodes, chosen);
    }

  node = sk_project_make_subworkflow (project, nodes, gtk_editable_get_text (GTK_EDITABLE (request->entry)),
                                      _sk_window_history (self), &to_check, &error);
  if (node == NULL)
    {
      show_subworkflow_error (self, error->message);
      return;
    }

  sk_canvas_select_node (self->canvas, node);
  sk_canvas_scroll_to_node (self->canvas, node);

  if (to_check != NULL && to_check[0] != NULL)
    {
      g_autofree char *names = g_strjoinv (_("”, “"), to_check);

      /* Translators: %s is a list of step names. */
      message = g_strdup_printf (ngettext ("Made “%s”. Check the code of “%s”: it may read results "
                                           "the old way.",
                                           "Made “%s”. Check the code of “%s”: they may read results "
                                           "the old way.", g_strv_length (to_check)),
                                 sk_node_get_name (node), names);
    }
  else
    message = g_strdup_printf (ngettext ("Made “%s” from %u step", "Made “%s” from %u steps",
                                         nodes->len),
                               sk_node_get_name (node), nodes->len);

  _sk_window_add_undo_toast (self, message);
}

static void
make_subworkflow_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  SkProject *project = _sk_window_project (self);
  g_autoptr(GPtrArray) nodes = NULL;
  g_autofree char *body = NULL;
  SubworkflowRequest *request;
  GtkWidget *dialog;
  GtkWidget *entry;

  if (project == NULL)
    return;

  if (sk_workspace_get_running (self->workspace) || sk_workspace_get_generating (self->workspace))
    {
      sk_window_show_toast (self, _("Wait for the run to finish, or stop it, before making a sub-workflow."));
      return;
    }

  if (sk_project_get_folder (project) == NULL)
    {
      show_subworkflow_error (self, _("Save the workflow first: a sub-workflow is a folder inside its folder."));
      return;
    }

  nodes = sk_canvas_get_selected_nodes (self->canvas);
  if (nodes->len == 0)
    {
      sk_window_show_toast (self, _("Select the steps to make into a sub-workflow first."));
      return;
    }

  body = g_strdup_printf (ngettext ("The selected step goes into a workflow of its own, in a folder "
                                    "inside this workflow’s folder. One step stands for it here; "
                                    "open it to edit it.",
                                    "The %u selected steps go into a workflow of their own, in a "
                                    "folder inside this workflow’s folder. One step stands for them "
                                    "here; open it to edit them.", nodes->len),
                          nodes->len);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Make Sub-workflow"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "make", _("_Make Sub-workflow"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "make", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "make");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  entry = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (entry), _("Sub-workflow"));
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Name of the sub-workflow"), -1);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);

  request = g_new0 (SubworkflowRequest, 1);
  g_set_weak_pointer (&request->self, self);
  request->entry = GTK_ENTRY (entry);
  request->node_ids = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < nodes->len; i++)
    g_ptr_array_add (request->node_ids, g_strdup (sk_node_get_id (g_ptr_array_index (nodes, i))));
  g_signal_connect_data (dialog, "response", G_CALLBACK (make_subworkflow_response_cb), request,
                         subworkflow_request_free, 0);

  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (entry);
}

/* The zoom buttons float over the canvas but are not inside it, so they
 * reach its actions through these. */
static void
zoom_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  g_autofree char *name = g_strconcat ("canvas.", action_name + strlen ("win."), NULL);

  gtk_widget_activate_action (GTK_WIDGET (self->canvas), name, NULL);
}

/* Escape in any cell comes back here, so that the keyboard is never
 * caught in a text field with the canvas out of reach. */
static void
focus_canvas_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);

  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

/* The code view inside the code cell, wherever its template puts it. */
static GtkWidget *
find_source_view (GtkWidget *widget)
{
  if (GTK_SOURCE_IS_VIEW (widget))
    return widget;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *view = find_source_view (child);

      if (view != NULL)
        return view;
    }

  return NULL;
}

/* “Show Code” on a gate: the code cell, brought forward where the cells
 * are folded, with the keyboard in its code. */
static void
show_code_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  GtkWidget *view;

  adw_leaflet_set_visible_child (self->cells_leaflet, GTK_WIDGET (self->code_cell));
  view = find_source_view (GTK_WIDGET (self->code_cell));
  if (view != NULL)
    gtk_widget_grab_focus (view);
  else
    gtk_widget_child_focus (GTK_WIDGET (self->code_cell), GTK_DIR_TAB_FORWARD);
}

/**
 * _sk_window_class_actions_init:
 * @widget_class: the window's class
 *
 * Installs the window's actions. Their accelerators are the application's
 * (sk-application.c), so that menus and the shortcuts window show them.
 */
void
_sk_window_class_actions_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "win.close", NULL, close_action);
  gtk_widget_class_install_action (widget_class, "win.undo", NULL, undo_action);
  gtk_widget_class_install_action (widget_class, "win.redo", NULL, undo_action);
  gtk_widget_class_install_action (widget_class, "win.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "win.run-node", "s", run_node_action);
  gtk_widget_class_install_action (widget_class, "win.run-from", "s", run_node_action);
  gtk_widget_class_install_action (widget_class, "win.run-to", "s", run_node_action);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "win.generate-code", NULL, generate_code_action);
  gtk_widget_class_install_action (widget_class, "win.regenerate-code", NULL, regenerate_code_action);
  gtk_widget_class_install_action (widget_class, "win.arrange", NULL, arrange_action);
  gtk_widget_class_install_action (widget_class, "win.edit-process", NULL, edit_process_action);
  gtk_widget_class_install_action (widget_class, "win.open-subworkflow", "s", open_subworkflow_action);
  gtk_widget_class_install_action (widget_class, "win.make-subworkflow", NULL, make_subworkflow_action);
  gtk_widget_class_install_action (widget_class, "win.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "win.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "win.zoom-reset", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "win.zoom-fit", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "win.focus-canvas", NULL, focus_canvas_action);
  gtk_widget_class_install_action (widget_class, "win.show-code", NULL, show_code_action);
}
