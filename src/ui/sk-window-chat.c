/* sk-window-chat.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's side of chat mode: the pane beside the canvas, shown and
 * hidden from the header bar or with Shift+Ctrl+C; the proposal drawn on
 * the canvas while it waits; "Explain This Failure" on a failed step; and
 * "Describe Your Workflow" on an empty one, whose accepted draft is
 * arranged.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sk-window-private.h"

static void
show_chat (SkWindow *self,
           gboolean  visible)
{
  gtk_widget_set_visible (GTK_WIDGET (self->chat_pane), visible);
  if (visible)
    sk_chat_pane_focus_entry (self->chat_pane);
  else if (gtk_widget_get_visible (GTK_WIDGET (self->canvas)))
    gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

static void
toggle_chat_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  gboolean visible = gtk_widget_get_visible (GTK_WIDGET (self->chat_pane));
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  if (self->chat_session == NULL)
    return;

  /* From elsewhere in the window, the shortcut goes to the open chat
   * rather than closing it. */
  if (visible && focus != NULL && !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->chat_pane)))
    {
      sk_chat_pane_focus_entry (self->chat_pane);
      return;
    }

  show_chat (self, !visible);
}

static void
describe_workflow_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);

  if (self->chat_session == NULL)
    return;

  show_chat (self, TRUE);
}

static void
explain_failure_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  SkProject *project = _sk_window_project (self);
  SkNode *node = project != NULL ? sk_project_get_node (project, g_variant_get_string (parameter, NULL)) : NULL;
  g_autofree char *message = NULL;

  if (node == NULL || self->chat_session == NULL)
    return;

  if (sk_chat_session_get_busy (self->chat_session))
    {
      show_chat (self, TRUE);
      sk_window_show_toast (self, _("The chat agent is still answering. Ask again when it is done."));
      return;
    }

  sk_canvas_select_node (self->canvas, node);
  sk_canvas_scroll_to_node (self->canvas, node);
  show_chat (self, TRUE);
  message = g_strdup_printf (_("Why did the step “%s” fail, and how can I fix it?"), sk_node_get_name (node));
  sk_chat_pane_send (self->chat_pane, message);
}

static void
update_draft_mode (SkWindow *self)
{
  SkProject *project = _sk_window_project (self);

  sk_chat_pane_set_draft_mode (self->chat_pane,
                               project != NULL && g_list_model_get_n_items (G_LIST_MODEL (project)) == 0);
}

static void
changeset_cb (SkWindow *self)
{
  SkChangeset *changeset = self->chat_session != NULL ? sk_chat_session_get_changeset (self->chat_session) : NULL;

  /* While the agent works its proposal grows; it is drawn once whole. */
  if (self->chat_session != NULL && sk_chat_session_get_busy (self->chat_session))
    return;

  /* A proposal continued over several turns is the same changeset, with
   * more in it. */
  sk_canvas_set_proposal (self->canvas, changeset);
  sk_canvas_proposal_changed (self->canvas);

  /* A draft on an empty workflow is shown whole, in place of the hint to
   * start one. */
  if (sk_project_get_n_nodes (_sk_window_project (self)) == 0)
    {
      gtk_widget_set_visible (self->canvas_hint, changeset == NULL);
      if (changeset != NULL)
        gtk_widget_activate_action (GTK_WIDGET (self->canvas), "canvas.zoom-fit", NULL);
    }
  else if (changeset != NULL)
    sk_canvas_show_proposal (self->canvas);
}

static void
proposal_changed_cb (SkWindow *self)
{
  sk_canvas_proposal_changed (self->canvas);
}

static void
proposal_accepted_cb (SkWindow *self,
                      gboolean  was_empty)
{
  /* The person looks at the result next, and Ctrl+Z there undoes it; a
   * draft, arranged before it was applied, is shown whole. */
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
  if (was_empty)
    {
      gtk_widget_activate_action (GTK_WIDGET (self->canvas), "canvas.zoom-fit", NULL);
      sk_window_show_toast (self, _("Draft accepted. Press Ctrl+Z to undo it."));
    }
  else
    sk_window_show_toast (self, _("Proposal accepted. Press Ctrl+Z to undo it."));
}

/**
 * _sk_window_chat_set_workspace:
 *
 * Opens the chat of @workspace in the pane.
 */
void
_sk_window_chat_set_workspace (SkWindow    *self,
                               SkWorkspace *workspace)
{
  SkProject *project = sk_workspace_get_project (workspace);

  _sk_window_chat_dispose (self);
  self->chat_session = sk_chat_session_new (workspace);
  g_signal_connect_object (self->chat_session, "notify::changeset", G_CALLBACK (changeset_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->chat_session, "notify::busy", G_CALLBACK (changeset_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "items-changed", G_CALLBACK (update_draft_mode), self, G_CONNECT_SWAPPED);

  sk_chat_pane_set_session (self->chat_pane, self->chat_session);
  gtk_widget_set_visible (GTK_WIDGET (self->chat_button), TRUE);
  update_draft_mode (self);
  changeset_cb (self);
}

void
_sk_window_chat_dispose (SkWindow *self)
{
  if (self->chat_session == NULL)
    return;

  if (self->chat_pane != NULL)
    sk_chat_pane_set_session (self->chat_pane, NULL);
  if (self->canvas != NULL)
    sk_canvas_set_proposal (self->canvas, NULL);
  g_signal_handlers_disconnect_by_data (self->chat_session, self);
  if (self->workspace != NULL)
    g_signal_handlers_disconnect_by_func (sk_workspace_get_project (self->workspace), update_draft_mode, self);
  g_clear_object (&self->chat_session);
}

void
_sk_window_chat_init (SkWindow *self)
{
  g_object_bind_property (self->chat_button, "active", self->chat_pane, "visible",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  /* A new window opens the chat as the last one left it; windows open at
   * the same time do not follow each other. */
  g_settings_bind (self->settings, "show-chat", self->chat_pane, "visible",
                   G_SETTINGS_BIND_DEFAULT | G_SETTINGS_BIND_GET_NO_CHANGES);
  sk_chat_pane_set_canvas (self->chat_pane, self->canvas);
  g_signal_connect_object (self->chat_pane, "proposal-changed", G_CALLBACK (proposal_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->chat_pane, "proposal-accepted", G_CALLBACK (proposal_accepted_cb), self,
                           G_CONNECT_SWAPPED);
}

void
_sk_window_chat_class_init (GtkWidgetClass *widget_class)
{
  g_type_ensure (SK_TYPE_CHAT_PANE);

  gtk_widget_class_bind_template_child (widget_class, SkWindow, chat_paned);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, chat_pane);
  gtk_widget_class_bind_template_child (widget_class, SkWindow, chat_button);

  gtk_widget_class_install_action (widget_class, "win.toggle-chat", NULL, toggle_chat_action);
  gtk_widget_class_install_action (widget_class, "win.describe-workflow", NULL, describe_workflow_action);
  gtk_widget_class_install_action (widget_class, "win.explain-failure", "s", explain_failure_action);
}
