/* sk-window.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "sk-properties-dialog.h"
#include "skele.h"
#include "sk-window-private.h"

G_DEFINE_FINAL_TYPE (SkWindow, sk_window, ADW_TYPE_APPLICATION_WINDOW)

/* Toasts */

/**
 * _sk_window_add_toast:
 * @self: a #SkWindow
 * @message: a sentence for the user
 * @offer_preferences: whether to offer the coding agent's preferences, for
 *   a message that says the agent is not set up
 *
 * Returns: (transfer none): the toast, shown or waiting for its turn
 */
AdwToast *
_sk_window_add_toast (SkWindow   *self,
                      const char *message,
                      gboolean    offer_preferences)
{
  const char *action_name = offer_preferences ? "app.agent-preferences" : NULL;
  g_autofree char *escaped = NULL;
  AdwToast *toast;

  g_free (self->last_toast);
  self->last_toast = g_strdup (message);
  g_free (self->last_toast_action);
  self->last_toast_action = g_strdup (action_name);

  /* A toast's title is markup; messages are plain text, and may hold a
   * web address in angle brackets or an ampersand. */
  escaped = g_markup_escape_text (message, -1);
  toast = adw_toast_new (escaped);
  adw_toast_set_timeout (toast, 5);
  if (action_name != NULL)
    {
      adw_toast_set_button_label (toast, _("_Preferences"));
      adw_toast_set_action_name (toast, action_name);
      /* A toast with a button stays longer: it asks for a decision. */
      adw_toast_set_timeout (toast, 10);
    }
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
  return toast;
}

/**
 * _sk_window_add_undo_toast:
 * @self: a #SkWindow
 * @message: a sentence for the user
 *
 * Says what an edit that changed much at once did, with a button that
 * undoes it.
 */
void
_sk_window_add_undo_toast (SkWindow   *self,
                           const char *message)
{
  g_autofree char *escaped = g_markup_escape_text (message, -1);
  AdwToast *toast;

  g_free (self->last_toast);
  self->last_toast = g_strdup (message);
  g_free (self->last_toast_action);
  self->last_toast_action = g_strdup ("win.undo");

  toast = adw_toast_new (escaped);
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_action_name (toast, "win.undo");
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  adw_toast_set_timeout (toast, 10);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/**
 * sk_window_show_toast:
 * @self: a #SkWindow
 * @message: a sentence for the user
 *
 * Shows @message briefly over the window.
 */
void
sk_window_show_toast (SkWindow   *self,
                      const char *message)
{
  g_return_if_fail (SK_IS_WINDOW (self));

  _sk_window_add_toast (self, message, FALSE);
}

static void
show_message_cb (SkWindow   *self,
                 const char *message)
{
  sk_window_show_toast (self, message);
}

static void
workspace_message_cb (SkWindow   *self,
                      const char *message,
                      gboolean    about_agent)
{
  _sk_window_add_toast (self, message, about_agent);
}

/* Title and actions */

void
_sk_window_update_title (SkWindow *self)
{
  SkProject *project = _sk_window_project (self);
  g_autofree char *title = NULL;
  g_autofree char *path = NULL;

  if (project == NULL)
    {
      adw_window_title_set_title (self->window_title, _("Skele-Code"));
      adw_window_title_set_subtitle (self->window_title, NULL);
      gtk_window_set_title (GTK_WINDOW (self), _("Skele-Code"));
      return;
    }

  if (sk_project_get_modified (project))
    title = g_strdup_printf ("• %s", sk_project_get_name (project));
  else
    title = g_strdup (sk_project_get_name (project));

  path = g_file_get_path (sk_workspace_get_folder (self->workspace));
  if (path != NULL)
    {
      const char *home = g_get_home_dir ();

      if (g_str_has_prefix (path, home) && path[strlen (home)] == '/')
        {
          char *shorter = g_strconcat ("~", path + strlen (home), NULL);

          g_free (path);
          path = shorter;
        }
    }

  adw_window_title_set_title (self->window_title, title);
  adw_window_title_set_subtitle (self->window_title, path);
  gtk_window_set_title (GTK_WINDOW (self), title);
}

static const char * const window_actions[] = {
  "save", "save-as", "undo", "redo", "run", "run-node", "run-from", "run-to", "stop",
  "generate-code", "regenerate-code", "arrange", "edit-process", "make-subworkflow", "export",
  "zoom-in", "zoom-out", "zoom-reset", "zoom-fit",
};

/**
 * _sk_window_get_action_enabled:
 * @self: a #SkWindow
 * @name: an action of the window, without the `win.` prefix
 *
 * Returns: whether @name can be used now
 */
gboolean
_sk_window_get_action_enabled (SkWindow   *self,
                               const char *name)
{
  SkHistory *history = _sk_window_history (self);
  SkProject *project = _sk_window_project (self);
  gboolean has_project = self->workspace != NULL;
  gboolean has_steps = project != NULL && g_list_model_get_n_items (G_LIST_MODEL (project)) > 0;
  gboolean running = _sk_window_is_running (self);

  if (g_str_equal (name, "undo") || g_str_equal (name, "redo"))
    {
      gboolean redo = g_str_equal (name, "redo");
      g_autoptr(GtkTextBuffer) buffer = NULL;

      if (self->code_buffer_signals != NULL)
        buffer = g_signal_group_dup_target (self->code_buffer_signals);

      if (!has_project)
        return FALSE;
      /* Undo in the code view undoes typing there (sk-window-actions.c). */
      if (buffer != NULL)
        return redo ? gtk_text_buffer_get_can_redo (buffer) : gtk_text_buffer_get_can_undo (buffer);
      return redo ? sk_history_get_can_redo (history) : sk_history_get_can_undo (history);
    }
  if (g_str_equal (name, "stop"))
    return running;
  /* An empty workflow has nothing to run, write or arrange. */
  if (g_str_has_prefix (name, "run") || g_str_equal (name, "generate-code"))
    return has_steps && !running;
  if (g_str_equal (name, "arrange"))
    return has_steps;
  if (g_str_equal (name, "make-subworkflow"))
    {
      g_autoptr(GtkBitset) selected = NULL;

      if (!has_steps || running || self->selection == NULL)
        return FALSE;
      selected = gtk_selection_model_get_selection (self->selection);
      return !gtk_bitset_is_empty (selected);
    }
  if (g_str_equal (name, "regenerate-code"))
    return has_project && !running &&
           sk_canvas_get_selected_node (self->canvas) != NULL &&
           sk_code_cell_get_has_script (self->code_cell);
  if (g_str_equal (name, "close"))
    return TRUE;

  return has_project;
}

void
_sk_window_update_actions (SkWindow *self)
{
  gboolean running = _sk_window_is_running (self);

  for (guint i = 0; i < G_N_ELEMENTS (window_actions); i++)
    {
      g_autofree char *name = g_strconcat ("win.", window_actions[i], NULL);

      gtk_widget_action_set_enabled (GTK_WIDGET (self), name,
                                     _sk_window_get_action_enabled (self, window_actions[i]));
    }

  gtk_widget_set_visible (GTK_WIDGET (self->run_button), !running);
  gtk_widget_set_visible (GTK_WIDGET (self->stop_button), running);
}

static void
update_hint (SkWindow *self)
{
  SkProject *project = _sk_window_project (self);
  gboolean empty = project == NULL || g_list_model_get_n_items (G_LIST_MODEL (project)) == 0;

  gtk_widget_set_visible (self->canvas_hint, empty);
}

static void
project_items_changed_cb (SkWindow *self)
{
  update_hint (self);
  _sk_window_update_actions (self);
}

/* The coding agent's lines for the step shown. The workspace keeps every
 * step's; the list shown mirrors the selected step's. */

static void
show_agent_log (SkWindow *self,
                SkNode   *node)
{
  GPtrArray *lines = node != NULL && self->workspace != NULL
                     ? sk_workspace_get_agent_log (self->workspace, node) : NULL;
  guint n_shown = g_list_model_get_n_items (G_LIST_MODEL (self->agent_log));

  /* Another step's log starts at its newest line. */
  if (node != self->shown_node)
    sk_output_cell_set_agent_log (self->output_cell, NULL);

  self->shown_node = node;
  if (lines != NULL)
    {
      g_ptr_array_add (lines, NULL);
      gtk_string_list_splice (self->agent_log, 0, n_shown, (const char * const *) lines->pdata);
      g_ptr_array_remove_index (lines, lines->len - 1);
    }
  else
    gtk_string_list_splice (self->agent_log, 0, n_shown, NULL);

  sk_output_cell_set_agent_log (self->output_cell, G_LIST_MODEL (self->agent_log));
}

static void
workspace_agent_progress_cb (SkWindow   *self,
                             SkNode     *node,
                             const char *line)
{
  guint n_lines;

  if (node != self->shown_node)
    return;

  gtk_string_list_append (self->agent_log, line);
  n_lines = g_list_model_get_n_items (G_LIST_MODEL (self->agent_log));
  if (n_lines > SK_WORKSPACE_MAX_AGENT_LINES)
    gtk_string_list_splice (self->agent_log, 0, n_lines - SK_WORKSPACE_MAX_AGENT_LINES, NULL);
}

static void
workspace_agent_log_cleared_cb (SkWindow *self,
                                SkNode   *node)
{
  if (node == self->shown_node)
    show_agent_log (self, node);
}

/* What running steps print, as it comes; kept per step for the run so that
 * selecting a step shows what it printed so far. */

#define LIVE_OUTPUT_KEPT (32 * 1024)

static void
string_free (gpointer data)
{
  g_string_free (data, TRUE);
}

static void
show_live_output (SkWindow *self,
                  SkNode   *node)
{
  GString *kept = node != NULL ? g_hash_table_lookup (self->live_output, sk_node_get_key (node)) : NULL;

  sk_output_cell_clear_live_output (self->output_cell);
  if (kept != NULL)
    sk_output_cell_append_live_output (self->output_cell, kept->str);
}

static void
workspace_step_output_cb (SkWindow   *self,
                          const char *key,
                          const char *text)
{
  GString *kept = g_hash_table_lookup (self->live_output, key);

  if (kept == NULL)
    {
      kept = g_string_new (NULL);
      g_hash_table_insert (self->live_output, g_strdup (key), kept);
    }
  g_string_append (kept, text);
  if (kept->len > LIVE_OUTPUT_KEPT)
    {
      const char *start = kept->str + kept->len - LIVE_OUTPUT_KEPT;

      /* Keep whole characters. */
      while (*start != '\0' && (*start & 0xc0) == 0x80)
        start++;
      g_string_erase (kept, 0, start - kept->str);
    }

  if (self->shown_node != NULL && g_strcmp0 (sk_node_get_key (self->shown_node), key) == 0)
    sk_output_cell_append_live_output (self->output_cell, text);
}

static void
workspace_run_started_cb (SkWindow *self)
{
  g_hash_table_remove_all (self->live_output);
}

/* The selected step */

static void
update_step_header (SkWindow *self)
{
  SkNode *node = sk_canvas_get_selected_node (self->canvas);
  g_autoptr(GMenu) menu = NULL;

  gtk_widget_set_sensitive (self->step_properties_button, node != NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->step_menu_button), node != NULL);

  if (node == NULL)
    {
      gtk_label_set_text (self->step_title, _("No step selected"));
      gtk_menu_button_set_menu_model (self->step_menu_button, NULL);
      return;
    }

  gtk_label_set_text (self->step_title, sk_node_get_name (node));

  menu = g_menu_new ();
  {
    g_autoptr(GMenuItem) run_node = g_menu_item_new (_("_Run This Step"), NULL);
    g_autoptr(GMenuItem) run_from = g_menu_item_new (_("Run _From Here"), NULL);
    g_autoptr(GMenuItem) run_to = g_menu_item_new (_("Run _To Here"), NULL);
    const char *id = sk_node_get_id (node);

    g_menu_item_set_action_and_target (run_node, "win.run-node", "s", id);
    g_menu_item_set_action_and_target (run_from, "win.run-from", "s", id);
    g_menu_item_set_action_and_target (run_to, "win.run-to", "s", id);
    g_menu_append_item (menu, run_node);
    g_menu_append_item (menu, run_from);
    g_menu_append_item (menu, run_to);
  }
  gtk_menu_button_set_menu_model (self->step_menu_button, G_MENU_MODEL (menu));
}

static void
selected_name_cb (SkWindow *self)
{
  update_step_header (self);
}

static void
canvas_selected_node_cb (SkWindow *self)
{
  SkNode *node = sk_canvas_get_selected_node (self->canvas);

  if (self->watched_node != NULL)
    g_signal_handlers_disconnect_by_func (self->watched_node, selected_name_cb, self);
  g_set_object (&self->watched_node, node);
  if (node != NULL)
    g_signal_connect_object (node, "notify::name", G_CALLBACK (selected_name_cb), self, G_CONNECT_SWAPPED);

  g_object_set (self->input_cell, "node", node, NULL);
  g_object_set (self->output_cell, "node", node, NULL);
  show_agent_log (self, node);
  show_live_output (self, node);
  g_object_set (self->code_cell, "node", node, NULL);
  gtk_stack_set_visible_child_name (self->cells_stack, node != NULL ? "cells" : "empty");
  update_step_header (self);
  _sk_window_update_actions (self);
}

/* A step chosen in the list is brought into view on the canvas. */
static void
selection_changed_cb (SkWindow *self)
{
  SkNode *node;

  _sk_window_update_actions (self);

  if (!sk_step_list_has_focus (self->step_list))
    return;

  node = sk_canvas_get_selected_node (self->canvas);
  if (node != NULL)
    sk_canvas_scroll_to_node (self->canvas, node);
}

static void
step_list_activate_cb (SkWindow *self,
                       SkNode   *node)
{
  sk_canvas_select_node (self->canvas, node);
  sk_canvas_scroll_to_node (self->canvas, node);
  sk_input_cell_focus_task (self->input_cell);
}

/* Canvas callbacks */

static void
canvas_node_created_cb (SkWindow *self,
                        SkNode   *node)
{
  sk_input_cell_focus_task (self->input_cell);
}

static void
canvas_node_activated_cb (SkWindow *self,
                          SkNode   *node)
{
  sk_input_cell_focus_task (self->input_cell);
}

void
_sk_window_show_properties (SkWindow *self,
                            SkNode   *node)
{
  SkPropertiesDialog *dialog;

  if (self->workspace == NULL)
    return;

  dialog = sk_properties_dialog_new (_sk_window_project (self), node, _sk_window_history (self));
  gtk_window_set_transient_for (GTK_WINDOW (dialog), GTK_WINDOW (self));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
canvas_edit_node_cb (SkWindow *self,
                     SkNode   *node)
{
  _sk_window_show_properties (self, node);
}

static void
canvas_edit_process_cb (SkWindow *self)
{
  _sk_window_show_properties (self, NULL);
}

static void
step_properties_clicked_cb (SkWindow *self)
{
  SkNode *node = sk_canvas_get_selected_node (self->canvas);

  if (node != NULL)
    _sk_window_show_properties (self, node);
}

static void
zoom_changed_cb (SkWindow *self)
{
  double percent = sk_canvas_get_zoom (self->canvas) * 100;
  g_autofree char *label = NULL;

  /* Fit goes far below 10 % on a large workflow, where "0 %" would be wrong. */
  if (percent >= 9.95)
    label = g_strdup_printf ("%.0f%%", percent);
  else if (percent >= 0.95)
    label = g_strdup_printf ("%.1f%%", percent);
  else
    label = g_strdup ("<1%");

  gtk_button_set_label (self->zoom_button, label);
}

/* Binding the workspace */

static void
runner_state_cb (SkWindow *self)
{
  _sk_window_update_progress (self);
}

static void
workspace_running_cb (SkWindow *self)
{
  _sk_window_update_actions (self);
}

static void
disconnect_workspace (SkWindow *self)
{
  SkProject *project = _sk_window_project (self);

  if (self->workspace == NULL)
    return;

  g_signal_handlers_disconnect_by_data (self->workspace, self);
  g_signal_handlers_disconnect_by_data (project, self);
  g_signal_handlers_disconnect_by_data (sk_workspace_get_history (self->workspace), self);
  g_signal_handlers_disconnect_by_data (sk_workspace_get_runner (self->workspace), self);
}

/**
 * _sk_window_set_workspace:
 * @self: a #SkWindow
 * @workspace: the open workflow to show
 *
 * Binds @workspace to the canvas, the step list and the cells. The window
 * keeps unsaved changes in a recovery copy.
 */
void
_sk_window_set_workspace (SkWindow    *self,
                          SkWorkspace *workspace)
{
  SkProject *project = sk_workspace_get_project (workspace);
  SkHistory *history = sk_workspace_get_history (workspace);
  SkRunner *runner = sk_workspace_get_runner (workspace);

  _sk_window_chat_dispose (self);
  disconnect_workspace (self);
  if (self->workspace != NULL)
    sk_workspace_close (self->workspace);
  sk_canvas_set_project (self->canvas, NULL);
  g_set_object (&self->workspace, workspace);

  sk_workspace_set_autosave (workspace, TRUE);
  g_signal_connect_object (workspace, "message", G_CALLBACK (workspace_message_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (workspace, "agent-progress", G_CALLBACK (workspace_agent_progress_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (workspace, "agent-log-cleared", G_CALLBACK (workspace_agent_log_cleared_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (workspace, "agent-log-changed", G_CALLBACK (workspace_agent_log_cleared_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (workspace, "step-output", G_CALLBACK (workspace_step_output_cb), self, G_CONNECT_SWAPPED);
  sk_workspace_set_follow_output (workspace, TRUE);
  g_signal_connect_object (workspace, "run-started", G_CALLBACK (workspace_run_started_cb), self, G_CONNECT_SWAPPED);
  g_hash_table_remove_all (self->live_output);
  g_signal_connect_object (workspace, "notify::running", G_CALLBACK (workspace_running_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (workspace, "notify::folder", G_CALLBACK (_sk_window_update_title), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "notify::modified", G_CALLBACK (_sk_window_update_title), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "notify::name", G_CALLBACK (_sk_window_update_title), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "items-changed", G_CALLBACK (project_items_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "changed", G_CALLBACK (_sk_window_queue_problems), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (history, "notify::can-undo", G_CALLBACK (_sk_window_update_actions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (history, "notify::can-redo", G_CALLBACK (_sk_window_update_actions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runner, "node-state-changed", G_CALLBACK (runner_state_cb), self, G_CONNECT_SWAPPED);

  g_object_set (self->input_cell, "project", project, "history", history, NULL);
  g_object_set (self->output_cell, "project", project, NULL);
  g_object_set (self->code_cell, "project", project, NULL);

  /* The canvas and the step list show one selection. */
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  g_clear_object (&self->selection);
  self->selection = GTK_SELECTION_MODEL (gtk_multi_selection_new (g_object_ref (G_LIST_MODEL (project))));
  g_signal_connect_object (self->selection, "selection-changed", G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
  sk_step_list_set_project (self->step_list, project);
  sk_step_list_set_selection (self->step_list, self->selection);

  sk_canvas_set_history (self->canvas, history);
  sk_canvas_set_selection (self->canvas, self->selection);
  sk_canvas_set_project (self->canvas, project);

  gtk_spinner_stop (self->loading_spinner);
  gtk_stack_set_visible_child_name (self->stack, "workflow");
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));

  _sk_window_add_to_recent (self);
  _sk_window_update_title (self);
  _sk_window_update_problems (self);
  _sk_window_chat_set_workspace (self, workspace);
  update_hint (self);
  _sk_window_update_actions (self);
}

/* Construction */

SkWindow *
sk_window_new (SkApplication *application)
{
  return g_object_new (SK_TYPE_WINDOW, "application", application, NULL);
}

/**
 * sk_window_get_folder:
 * @self: a #SkWindow
 *
 * Returns: (transfer none) (nullable): the folder of the workflow shown,
 *   or of the one being opened
 */
GFile *
sk_window_get_folder (SkWindow *self)
{
  g_return_val_if_fail (SK_IS_WINDOW (self), NULL);

  return self->workspace != NULL ? sk_workspace_get_folder (self->workspace) : self->opening;
}

/**
 * sk_window_get_project:
 * @self: a #SkWindow
 *
 * Returns: (transfer none) (nullable): the workflow shown
 */
SkProject *
sk_window_get_project (SkWindow *self)
{
  g_return_val_if_fail (SK_IS_WINDOW (self), NULL);

  return _sk_window_project (self);
}

SkCanvas *
_sk_window_get_canvas (SkWindow *self)
{
  return self->canvas;
}

SkHistory *
_sk_window_get_history (SkWindow *self)
{
  return _sk_window_history (self);
}

SkWorkspace *
_sk_window_get_workspace (SkWindow *self)
{
  return self->workspace;
}

SkOutputCell *
_sk_window_get_output_cell (SkWindow *self)
{
  return self->output_cell;
}

SkInputCell *
_sk_window_get_input_cell (SkWindow *self)
{
  return self->input_cell;
}

SkCodeCell *
_sk_window_get_code_cell (SkWindow *self)
{
  return self->code_cell;
}

SkStepList *
_sk_window_get_step_list (SkWindow *self)
{
  return self->step_list;
}

gboolean
_sk_window_is_running (SkWindow *self)
{
  return self->workspace != NULL && sk_workspace_get_running (self->workspace);
}

const char *
_sk_window_get_last_toast (SkWindow *self)
{
  return self->last_toast;
}

const char *
_sk_window_get_last_toast_action (SkWindow *self)
{
  return self->last_toast_action;
}

static gboolean
sk_window_close_request (GtkWindow *window)
{
  SkWindow *self = SK_WINDOW (window);
  int width, height;

  if (!_sk_window_confirm_close (self))
    return TRUE;

  if (self->workspace != NULL)
    sk_workspace_close (self->workspace);
  g_cancellable_cancel (self->cancellable);

  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (GTK_WINDOW (self)));
  if (!gtk_window_is_maximized (GTK_WINDOW (self)))
    {
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
    }

  return GTK_WINDOW_CLASS (sk_window_parent_class)->close_request (window);
}

/* Where the three cells do not fit side by side, as at 1024 pixels with the
 * step list shown, they fold into one at a time with a switcher. */
static gboolean
show_cells_switcher_cb (gpointer data)
{
  SkWindow *self = data;

  self->cells_switcher_id = 0;
  gtk_widget_set_visible (self->cells_switcher, adw_leaflet_get_folded (self->cells_leaflet));
  return G_SOURCE_REMOVE;
}

/* The leaflet folds while it is being allocated, when the switcher beside
 * it cannot be shown or hidden yet. */
static void
cells_folded_cb (SkWindow *self)
{
  if (self->cells_switcher_id == 0)
    self->cells_switcher_id = g_idle_add (show_cells_switcher_cb, self);
}

static void
cells_visible_child_cb (SkWindow *self)
{
  GtkWidget *child = adw_leaflet_get_visible_child (self->cells_leaflet);

  if (child == GTK_WIDGET (self->input_cell))
    gtk_toggle_button_set_active (self->task_toggle, TRUE);
  else if (child == GTK_WIDGET (self->output_cell))
    gtk_toggle_button_set_active (self->result_toggle, TRUE);
  else if (child == GTK_WIDGET (self->code_cell))
    gtk_toggle_button_set_active (self->code_toggle, TRUE);
}

static void
cells_toggle_cb (SkWindow        *self,
                 GtkToggleButton *toggle)
{
  GtkWidget *cell;

  if (!gtk_toggle_button_get_active (toggle))
    return;

  if (toggle == self->task_toggle)
    cell = GTK_WIDGET (self->input_cell);
  else if (toggle == self->result_toggle)
    cell = GTK_WIDGET (self->output_cell);
  else
    cell = GTK_WIDGET (self->code_cell);

  if (cell != NULL && adw_leaflet_get_visible_child (self->cells_leaflet) != cell)
    adw_leaflet_set_visible_child (self->cells_leaflet, cell);
}

/* The cells take a share of the height, a little more than half at first,
 * that stays when the window is resized; the canvas keeps at least a third
 * of it. Dragging the divider changes the share. */
static void
main_paned_size_cb (SkWindow *self)
{
  int height = gtk_widget_get_height (GTK_WIDGET (self->main_paned));
  int max = 0;
  int position;

  g_object_get (self->main_paned, "max-position", &max, NULL);
  if (max <= 0 || height <= 0)
    return;

  position = MIN ((int) (height * self->cells_share), height - height / 3);
  position = CLAMP (position, MIN (200, max), max);
  self->paned_placing = TRUE;
  gtk_paned_set_position (self->main_paned, position);
  self->paned_placing = FALSE;
}

static void
main_paned_moved_cb (SkWindow *self)
{
  int height = gtk_widget_get_height (GTK_WIDGET (self->main_paned));

  if (!self->paned_placing && height > 0 && gtk_widget_get_mapped (GTK_WIDGET (self->main_paned)))
    self->cells_share = (double) gtk_paned_get_position (self->main_paned) / height;
}

/* The code cell offers to set up a coding agent where none is, instead of
 * promising one that will write the code. */
static void
update_agent_ready (SkWindow *self)
{
  g_autoptr(SkAgentSettings) agent = sk_agent_settings_load (self->settings, FALSE, NULL);

  g_object_set (self->code_cell,
                "agent-ready", agent != NULL && sk_agent_settings_is_ready (agent),
                NULL);
}

static void
focus_widget_cb (SkWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkTextBuffer *buffer = NULL;
  GtkWidget *view = NULL;

  if (self->code_buffer_signals == NULL)
    return;
  if (focus != NULL && GTK_SOURCE_IS_VIEW (focus))
    {
      view = focus;
      buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (focus));
    }

  /* The code cell gives each script a buffer of its own. */
  g_signal_group_set_target (self->code_view_signals, view);
  g_signal_group_set_target (self->code_buffer_signals, buffer);
  _sk_window_update_actions (self);
}

static void
sk_window_dispose (GObject *object)
{
  SkWindow *self = SK_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  if (self->workspace != NULL)
    sk_workspace_close (self->workspace);
  disconnect_workspace (self);

  g_signal_handlers_disconnect_by_func (self, focus_widget_cb, NULL);
  g_clear_handle_id (&self->cells_switcher_id, g_source_remove);
  g_clear_handle_id (&self->problems_id, g_source_remove);
  g_cancellable_cancel (self->conditions_cancellable);
  g_clear_object (&self->conditions_cancellable);
  g_clear_pointer (&self->conditions_key, g_free);
  g_clear_pointer (&self->condition_problems, g_ptr_array_unref);
  _sk_window_chat_dispose (self);
  if (self->code_buffer_signals != NULL)
    {
      g_signal_group_set_target (self->code_buffer_signals, NULL);
      g_signal_group_set_target (self->code_view_signals, NULL);
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), SK_TYPE_WINDOW);
  g_clear_object (&self->code_buffer_signals);
  g_clear_object (&self->code_view_signals);

  if (self->watched_node != NULL)
    g_signal_handlers_disconnect_by_func (self->watched_node, selected_name_cb, self);
  g_clear_object (&self->watched_node);
  self->shown_node = NULL;
  g_clear_object (&self->workspace);
  g_clear_object (&self->opening);
  g_clear_object (&self->selection);
  g_clear_object (&self->agent_log);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->pending_run, g_ptr_array_unref);
  g_clear_pointer (&self->last_toast, g_free);
  g_clear_pointer (&self->last_toast_action, g_free);
  g_clear_pointer (&self->live_output, g_hash_table_unref);

  G_OBJECT_CLASS (sk_window_parent_class)->dispose (object);
}

static void
sk_window_class_init (SkWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = sk_window_dispose;
  window_class->close_request = sk_window_close_request;

  g_type_ensure (SK_TYPE_CANVAS);
  g_type_ensure (SK_TYPE_STEP_LIST);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/skelecode/SkeleCode/sk-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SkWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, run_button);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, stop_button);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, loading_spinner);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, recent_list);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, outer_paned);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, step_list);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, step_title);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, step_properties_button);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, step_menu_button);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, cells_stack);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, cells_leaflet);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, cells_switcher);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, task_toggle);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, result_toggle);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, code_toggle);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, main_paned);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, canvas);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, zoom_button);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, canvas_hint);
  gtk_widget_class_bind_template_callback (widget_class, show_message_cb);
  gtk_widget_class_bind_template_callback_full (widget_class, "recent_row_activated_cb",
                                                G_CALLBACK (_sk_window_recent_row_activated_cb));
  gtk_widget_class_bind_template_callback (widget_class, step_list_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, step_properties_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, canvas_node_created_cb);
  gtk_widget_class_bind_template_callback (widget_class, canvas_node_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, canvas_edit_node_cb);
  gtk_widget_class_bind_template_callback (widget_class, canvas_edit_process_cb);
  gtk_widget_class_bind_template_callback (widget_class, canvas_selected_node_cb);
  gtk_widget_class_bind_template_callback (widget_class, cells_folded_cb);
  gtk_widget_class_bind_template_callback (widget_class, cells_visible_child_cb);
  gtk_widget_class_bind_template_callback (widget_class, cells_toggle_cb);
  gtk_widget_class_bind_template_callback (widget_class, main_paned_size_cb);

  _sk_window_chat_class_init (widget_class);
  _sk_window_class_actions_init (widget_class);
  _sk_window_export_class_init (widget_class);
}

static void
sk_window_init (SkWindow *self)
{
  g_autoptr(GAction) step_list_action = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  self->cancellable = g_cancellable_new ();
  self->agent_log = gtk_string_list_new (NULL);
  self->cells_share = 0.55;
  self->live_output = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, string_free);
  self->code_buffer_signals = g_signal_group_new (GTK_TYPE_TEXT_BUFFER);
  g_signal_group_connect_object (self->code_buffer_signals, "notify::can-undo",
                                 G_CALLBACK (_sk_window_update_actions), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->code_buffer_signals, "notify::can-redo",
                                 G_CALLBACK (_sk_window_update_actions), self, G_CONNECT_SWAPPED);
  self->code_view_signals = g_signal_group_new (GTK_TYPE_TEXT_VIEW);
  g_signal_group_connect_object (self->code_view_signals, "notify::buffer",
                                 G_CALLBACK (focus_widget_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect (self, "notify::focus-widget", G_CALLBACK (focus_widget_cb), NULL);

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  step_list_action = g_settings_create_action (self->settings, "show-step-list");
  g_action_map_add_action (G_ACTION_MAP (self), step_list_action);
  g_settings_bind (self->settings, "show-step-list", self->step_list, "visible", G_SETTINGS_BIND_GET);

  self->input_cell = g_object_new (SK_TYPE_INPUT_CELL, NULL);
  self->output_cell = g_object_new (SK_TYPE_OUTPUT_CELL, NULL);
  self->code_cell = g_object_new (SK_TYPE_CODE_CELL, NULL);
  /* Side by side, the cells share the width between them. */
  gtk_widget_set_hexpand (GTK_WIDGET (self->input_cell), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->output_cell), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->code_cell), TRUE);
  adw_leaflet_append (self->cells_leaflet, GTK_WIDGET (self->input_cell));
  adw_leaflet_append (self->cells_leaflet, GTK_WIDGET (self->output_cell));
  adw_leaflet_append (self->cells_leaflet, GTK_WIDGET (self->code_cell));
  g_signal_connect_swapped (self->main_paned, "notify::position", G_CALLBACK (main_paned_moved_cb), self);
  sk_output_cell_set_agent_log (self->output_cell, G_LIST_MODEL (self->agent_log));
  g_signal_connect_object (self->input_cell, "message", G_CALLBACK (show_message_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->output_cell, "message", G_CALLBACK (show_message_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->code_cell, "message", G_CALLBACK (show_message_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->code_cell, "notify::has-script", G_CALLBACK (_sk_window_update_actions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed", G_CALLBACK (update_agent_ready), self, G_CONNECT_SWAPPED);
  update_agent_ready (self);

  g_signal_connect_object (self->canvas, "notify::zoom", G_CALLBACK (zoom_changed_cb), self, G_CONNECT_SWAPPED);
  _sk_window_problems_init (self, GTK_OVERLAY (gtk_widget_get_parent (GTK_WIDGET (self->canvas))));
  _sk_window_chat_init (self);
  zoom_changed_cb (self);

  _sk_window_fill_recent_list (self);
  gtk_stack_set_visible_child_name (self->stack, "start");
  _sk_window_update_title (self);
  _sk_window_update_actions (self);

#if DEVELOPMENT_BUILD
  gtk_widget_add_css_class (GTK_WIDGET (self), "devel");
#endif
}
