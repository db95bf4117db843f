/* sk-canvas-actions.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-canvas"

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sk-canvas-private.h"
#include "skele.h"

/* The canvas's actions and their keys, which give every mouse operation a
 * keyboard path; the edits that actions and tools share; the popover with
 * a step's run commands; arranging with Graphviz. */

#define NODE_W SK_CANVAS_NODE_WIDTH
#define NODE_H SK_CANVAS_NODE_HEIGHT
#define NUDGE 16.0

void
_sk_canvas_update_actions (SkCanvas *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean has_project = self->project != NULL;
  gboolean has_focus = self->focus != NULL;
  gboolean has_edge = self->edge_prior != NULL;
  gboolean has_selection = _sk_canvas_has_selection (self) || self->edge_prior != NULL;
  gboolean has_steps = has_project && self->items->len > 0;

  gtk_widget_action_set_enabled (widget, "canvas.add-step", has_project);
  gtk_widget_action_set_enabled (widget, "canvas.delete", has_selection);
  gtk_widget_action_set_enabled (widget, "canvas.connect", has_focus);
  gtk_widget_action_set_enabled (widget, "canvas.toggle-run", has_selection);
  gtk_widget_action_set_enabled (widget, "canvas.toggle-all", has_steps);
  gtk_widget_action_set_enabled (widget, "canvas.select-all", has_steps);
  gtk_widget_action_set_enabled (widget, "canvas.activate", has_focus || has_edge);
  gtk_widget_action_set_enabled (widget, "canvas.properties", has_focus);
  gtk_widget_action_set_enabled (widget, "canvas.menu", has_focus || has_edge);
  gtk_widget_action_set_enabled (widget, "canvas.edit-condition", has_edge);
  gtk_widget_action_set_enabled (widget, "canvas.zoom-in", self->zoom < SK_CANVAS_MAX_ZOOM - 1e-6);
  gtk_widget_action_set_enabled (widget, "canvas.zoom-out", self->zoom > _sk_canvas_min_zoom (self) + 1e-6);
  gtk_widget_action_set_enabled (widget, "canvas.zoom-reset", fabs (self->zoom - 1.0) > 1e-6);
  {
    graphene_rect_t proposed;

    /* A chat's draft on an empty workflow can be shown whole. */
    gtk_widget_action_set_enabled (widget, "canvas.zoom-fit",
                                   has_steps || _sk_canvas_proposal_bounds (self, &proposed));
  }
  gtk_widget_action_set_enabled (widget, "canvas.find", has_steps);
  gtk_widget_action_set_enabled (widget, "canvas.arrange", has_steps);
  gtk_widget_action_set_enabled (widget, "canvas.arrange-down", has_steps);
  gtk_widget_action_set_enabled (widget, "canvas.arrange-right", has_steps);
}

/* Says what an edit did, in a toast with Undo when the canvas is inside
 * the window's toast overlay: edits that are easy to make by accident, or
 * that change more than the user can see, are easy to take back. Without
 * an overlay the message goes out as the canvas's other messages do. */
static void
offer_undo (SkCanvas   *self,
            const char *message)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_TOAST_OVERLAY);
  g_autofree char *escaped = NULL;
  AdwToast *toast;

  if (overlay == NULL || self->history == NULL)
    {
      _sk_canvas_emit_message (self, message);
      return;
    }

  if (self->undo_toast != NULL)
    adw_toast_dismiss (self->undo_toast);

  /* A toast's title is markup; step names are plain text. */
  escaped = g_markup_escape_text (message, -1);
  toast = adw_toast_new (escaped);
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_action_name (toast, "win.undo");
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  adw_toast_set_timeout (toast, 10);
  g_set_weak_pointer (&self->undo_toast, toast);
  adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), toast);
}

/* Edits */

SkNode *
_sk_canvas_add_step_at (SkCanvas *self,
                        double    mx,
                        double    my)
{
  g_autoptr(SkNode) node = NULL;
  g_autofree char *id = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;

  if (self->project == NULL)
    return NULL;

  id = sk_project_next_node_id (self->project);
  /* Translators: the name of a new step; a number is added to make it unique. */
  name = sk_project_unique_name (self->project, _("step"));
  node = sk_node_new (id, name);
  sk_node_set_run (node, TRUE);
  sk_node_set_position (node, mx, my);

  _sk_canvas_history_begin (self, _("Add Step"));
  if (!sk_project_add_node (self->project, node, &error))
    {
      _sk_canvas_history_end (self);
      _sk_canvas_emit_message (self, error->message);
      return NULL;
    }
  _sk_canvas_history_end (self);

  _sk_canvas_select_only (self, node);
  _sk_canvas_emit_node_created (self, node);

  return node;
}

void
_sk_canvas_connect_steps (SkCanvas *self,
                          SkNode   *prior,
                          SkNode   *node)
{
  g_autoptr(GError) error = NULL;

  if (!sk_project_can_connect (self->project, prior, node, &error))
    {
      _sk_canvas_emit_message (self, error->message);
      return;
    }

  _sk_canvas_history_begin (self, _("Connect Steps"));
  sk_node_add_prior (node, sk_node_get_id (prior));
  _sk_canvas_history_end (self);

  _sk_canvas_select_only (self, node);
}

void
_sk_canvas_toggle_run (SkCanvas *self,
                       SkNode   *node)
{
  _sk_canvas_history_begin (self, sk_node_get_run (node) ? _("Unmark Step") : _("Mark Step to Run"));
  sk_node_set_run (node, !sk_node_get_run (node));
  _sk_canvas_history_end (self);
}

void
_sk_canvas_toggle_all (SkCanvas *self)
{
  gboolean all = TRUE;

  for (guint i = 0; i < self->items->len && all; i++)
    all = sk_node_get_run (((SkCanvasItem *) g_ptr_array_index (self->items, i))->node);

  /* When every step is marked the click clears the marks, otherwise it marks
   * them all, so two clicks always return to a uniform state. */
  _sk_canvas_history_begin (self, all ? _("Unmark All Steps") : _("Mark All Steps to Run"));
  for (guint i = 0; i < self->items->len; i++)
    sk_node_set_run (((SkCanvasItem *) g_ptr_array_index (self->items, i))->node, !all);
  _sk_canvas_history_end (self);

  /* A right-click on empty space changes every step at once. */
  if (self->items->len > 0)
    offer_undo (self, all ? _("No step is marked to run now") : _("Every step is marked to run now"));
}

/* What deleting @doomed did, said before it is done: the steps' names
 * and how many other steps lose results they needed. */
static char *
describe_deletion (SkCanvas  *self,
                   GPtrArray *doomed)
{
  g_autoptr(GHashTable) gone = g_hash_table_new (NULL, NULL);
  g_autofree char *what = NULL;
  guint n_cut = 0;

  for (guint i = 0; i < doomed->len; i++)
    g_hash_table_add (gone, g_ptr_array_index (doomed, i));

  for (guint i = 0; i < self->items->len; i++)
    {
      SkNode *node = ((SkCanvasItem *) g_ptr_array_index (self->items, i))->node;
      const char * const *priors = sk_node_get_priors (node);

      if (g_hash_table_contains (gone, node))
        continue;
      for (guint j = 0; priors != NULL && priors[j] != NULL; j++)
        if (g_hash_table_contains (gone, sk_project_get_node (self->project, priors[j])))
          {
            n_cut++;
            break;
          }
    }

  if (doomed->len == 1)
    /* Translators: the argument is a step's name. */
    what = g_strdup_printf (_("“%s” deleted"), sk_node_get_name (g_ptr_array_index (doomed, 0)));
  else
    what = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u step deleted", "%u steps deleted", doomed->len),
                            doomed->len);

  if (n_cut == 0)
    return g_steal_pointer (&what);

  /* Translators: the first argument says which steps were deleted, such as
   * "“load” deleted"; then how many other steps needed their results. */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%s. %u step no longer gets the results it needed",
                                       "%s. %u steps no longer get the results they needed",
                                       n_cut),
                          what, n_cut);
}

static void
delete_selection (SkCanvas *self)
{
  g_autoptr(GPtrArray) doomed = NULL;
  g_autofree char *message = NULL;

  if (self->project == NULL)
    return;

  doomed = sk_canvas_get_selected_nodes (self);

  if (doomed->len == 0 && self->edge_prior != NULL)
    {
      /* A condition on a connection that is gone would come back with it
       * only by undo, so it goes in the same step. */
      _sk_canvas_history_begin (self, _("Remove Connection"));
      sk_node_set_condition (self->edge_node, sk_node_get_id (self->edge_prior), NULL);
      sk_node_remove_prior (self->edge_node, sk_node_get_id (self->edge_prior));
      _sk_canvas_history_end (self);
      _sk_canvas_clear_edge_selection (self);
      _sk_canvas_selection_changed (self);
      return;
    }

  if (doomed->len == 0)
    return;

  message = describe_deletion (self, doomed);

  /* Each removal shifts the positions after it, so the steps are removed
   * by identity, not by position. */
  _sk_canvas_history_begin (self, doomed->len == 1 ? _("Delete Step") : _("Delete Steps"));
  for (guint i = 0; i < doomed->len; i++)
    sk_project_remove_node (self->project, g_ptr_array_index (doomed, i));
  _sk_canvas_history_end (self);

  _sk_canvas_clear_edge_selection (self);
  _sk_canvas_selection_changed (self);
  offer_undo (self, message);
}

/* Popover with the step's run commands. */

static void
show_node_menu (SkCanvas *self,
                SkNode   *node,
                double    x,
                double    y)
{
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) run_section = g_menu_new ();
  g_autoptr(GMenu) edit_section = g_menu_new ();
  g_autoptr(GMenuItem) item = NULL;
  const char *id = sk_node_get_id (node);

  item = g_menu_item_new (_("_Run This Step"), NULL);
  g_menu_item_set_action_and_target (item, "win.run-node", "s", id);
  g_menu_append_item (run_section, item);
  g_clear_object (&item);

  item = g_menu_item_new (_("Run _From Here"), NULL);
  g_menu_item_set_action_and_target (item, "win.run-from", "s", id);
  g_menu_append_item (run_section, item);
  g_clear_object (&item);

  item = g_menu_item_new (_("Run _To Here"), NULL);
  g_menu_item_set_action_and_target (item, "win.run-to", "s", id);
  g_menu_append_item (run_section, item);
  g_clear_object (&item);

  /* A failed step can be explained by the chat, from the keyboard too. */
  if (sk_node_get_state (node) == SK_NODE_STATE_FAILED)
    {
      item = g_menu_item_new (_("_Explain This Failure"), NULL);
      g_menu_item_set_action_and_target (item, "win.explain-failure", "s", id);
      g_menu_append_item (run_section, item);
      g_clear_object (&item);
    }

  g_menu_append (edit_section, sk_node_get_run (node) ? _("_Unmark") : _("_Mark to Run"), "canvas.toggle-run");
  g_menu_append (edit_section, _("_Properties…"), "canvas.properties");
  g_menu_append (edit_section, _("_Delete"), "canvas.delete");
  g_menu_append (edit_section, _("Make Sub-_workflow…"), "win.make-subworkflow");

  /* A step that stands for another workflow is edited there. */
  if (sk_node_get_workflow (node) != NULL)
    {
      g_autoptr(GMenu) workflow_section = g_menu_new ();

      item = g_menu_item_new (_("Open _Sub-workflow"), NULL);
      g_menu_item_set_action_and_target (item, "win.open-subworkflow", "s", id);
      g_menu_append_item (workflow_section, item);
      g_clear_object (&item);
      g_menu_append_section (menu, NULL, G_MENU_MODEL (workflow_section));
    }

  g_menu_append_section (menu, NULL, G_MENU_MODEL (run_section));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (edit_section));

  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->popover), G_MENU_MODEL (menu));
  gtk_popover_set_pointing_to (GTK_POPOVER (self->popover),
                               &(GdkRectangle) { (int) x, (int) y, 1, 1 });
  gtk_popover_popup (GTK_POPOVER (self->popover));
}

/* The menu of a selected connection, from the keyboard. */
static void
show_edge_menu (SkCanvas *self,
                double    x,
                double    y)
{
  g_autoptr(GMenu) menu = g_menu_new ();

  g_menu_append (menu, _("Edit _Condition…"), "canvas.edit-condition");
  g_menu_append (menu, _("_Remove Connection"), "canvas.delete");

  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->popover), G_MENU_MODEL (menu));
  gtk_popover_set_pointing_to (GTK_POPOVER (self->popover),
                               &(GdkRectangle) { (int) x, (int) y, 1, 1 });
  gtk_popover_popup (GTK_POPOVER (self->popover));
}

/* Editing the condition on a connection */

typedef struct
{
  SkCanvas  *self;
  char      *prior_id;
  char      *node_id;
  GtkEntry  *entry;
} ConditionEdit;

static void
condition_edit_free (gpointer  data,
                     GClosure *closure)
{
  ConditionEdit *edit = data;

  g_clear_weak_pointer (&edit->self);
  g_free (edit->prior_id);
  g_free (edit->node_id);
  g_free (edit);
}

static void
condition_response_cb (AdwMessageDialog *dialog,
                       const char       *response,
                       ConditionEdit    *edit)
{
  SkCanvas *self = edit->self;
  SkNode *node;

  if (!g_str_equal (response, "apply") || self == NULL || self->project == NULL)
    return;

  /* The workflow may have changed while the dialog was open. */
  node = sk_project_get_node (self->project, edit->node_id);
  if (node == NULL || !sk_node_has_prior (node, edit->prior_id))
    {
      _sk_canvas_emit_message (self, _("The connection is gone, so its condition was not changed."));
      return;
    }

  _sk_canvas_history_begin (self, _("Edit Condition"));
  sk_node_set_condition (node, edit->prior_id, gtk_editable_get_text (GTK_EDITABLE (edit->entry)));
  _sk_canvas_history_end (self);

  _sk_canvas_invalidate_edges (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Asks for the condition on the selected connection, in a small dialog:
 * the expression wants room and a monospace font, more than a label on
 * the canvas could give it. */
static void
edit_condition (SkCanvas *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  const char *condition;
  g_autofree char *body = NULL;
  ConditionEdit *edit;
  GtkWidget *dialog;
  GtkWidget *box;
  GtkWidget *entry;
  GtkWidget *hint;

  if (self->project == NULL || self->edge_prior == NULL)
    return;

  condition = sk_node_get_condition (self->edge_node, sk_node_get_id (self->edge_prior));
  /* Translators: the arguments are the names of two connected steps. */
  body = g_strdup_printf (_("On the connection from “%s” to “%s”. The step after it runs only when "
                            "the condition holds."),
                          sk_node_get_name (self->edge_prior), sk_node_get_name (self->edge_node));

  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                   _("Edit Condition"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "apply", _("_Apply"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "apply",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "apply");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  entry = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (entry), condition != NULL ? condition : "");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_widget_add_css_class (entry, "monospace");
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Condition"), -1);
  hint = gtk_label_new (_("A Python expression over output, for example "
                          "output[\"score\"] >= 80, or default. Leave it empty to remove "
                          "the condition."));
  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_label_set_xalign (GTK_LABEL (hint), 0);
  gtk_widget_add_css_class (hint, "dim-label");
  gtk_widget_add_css_class (hint, "caption");
  gtk_accessible_update_relation (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_RELATION_DESCRIBED_BY,
                                  hint, NULL, -1);
  gtk_box_append (GTK_BOX (box), entry);
  gtk_box_append (GTK_BOX (box), hint);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), box);

  edit = g_new0 (ConditionEdit, 1);
  g_set_weak_pointer (&edit->self, self);
  edit->prior_id = g_strdup (sk_node_get_id (self->edge_prior));
  edit->node_id = g_strdup (sk_node_get_id (self->edge_node));
  edit->entry = GTK_ENTRY (entry);
  g_signal_connect_data (dialog, "response", G_CALLBACK (condition_response_cb), edit,
                         condition_edit_free, 0);

  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (entry);
}

/* Keyboard navigation */

static SkNode *
neighbour_in_direction (SkCanvas   *self,
                        SkNode     *from,
                        const char *direction)
{
  SkCanvasItem *origin = _sk_canvas_lookup_item (self, from);
  SkNode *best = NULL;
  double best_score = G_MAXDOUBLE;

  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *item = g_ptr_array_index (self->items, i);
      double dx, dy, along, across;

      if (item == origin)
        continue;

      dx = item->x - origin->x;
      dy = item->y - origin->y;

      if (g_str_equal (direction, "left"))
        along = -dx, across = dy;
      else if (g_str_equal (direction, "right"))
        along = dx, across = dy;
      else if (g_str_equal (direction, "up"))
        along = -dy, across = dx;
      else
        along = dy, across = dx;

      if (along <= 1)
        continue;

      /* Prefer steps straight ahead over steps far to the side. */
      if (along + 2 * fabs (across) < best_score)
        {
          best_score = along + 2 * fabs (across);
          best = item->node;
        }
    }

  return best;
}

static gboolean
move_focus (SkCanvas   *self,
            const char *direction)
{
  SkNode *target = NULL;

  if (self->items->len == 0)
    return FALSE;

  if (self->focus == NULL)
    {
      guint first = g_str_equal (direction, "previous") ? self->items->len - 1 : 0;

      target = ((SkCanvasItem *) g_ptr_array_index (self->items, first))->node;
    }
  else if (g_str_equal (direction, "next") || g_str_equal (direction, "previous"))
    {
      guint index = 0;
      guint n = self->items->len;
      gboolean next = g_str_equal (direction, "next");

      /* Round from the last step to the first and back, as the steps of a
       * list would be: leaving the canvas at the end would send the next
       * Space or Return to whatever comes after it. Ctrl+Tab leaves. */
      _sk_canvas_item_position (self, self->focus, &index);
      index = next ? (index + 1) % n : (index + n - 1) % n;
      target = ((SkCanvasItem *) g_ptr_array_index (self->items, index))->node;
    }
  else
    target = neighbour_in_direction (self, self->focus, direction);

  if (target == NULL)
    return TRUE;

  _sk_canvas_select_only (self, target);
  _sk_canvas_scroll_to_item (self, _sk_canvas_lookup_item (self, target));

  return TRUE;
}

static gboolean
tab_cb (GtkWidget *widget,
        GVariant  *args,
        gpointer   user_data)
{
  /* Tab walks round the steps; Ctrl+Tab, which GtkWindow binds to moving
   * the focus on, leaves the canvas, as it leaves a text view. In the find
   * bar, Tab moves between its own widgets. */
  if (gtk_widget_get_focus_child (widget) != NULL)
    return FALSE;

  return move_focus (SK_CANVAS (widget), g_variant_get_string (args, NULL));
}

/* Space marks the selected steps to run and Return opens the selected
 * step's task; with no step selected they do nothing, but they are still
 * the canvas's keys and go no further up to the window. */
static gboolean
key_activate_cb (GtkWidget *widget,
                 GVariant  *args,
                 gpointer   user_data)
{
  const char *action = g_variant_get_string (args, NULL);

  if (gtk_widget_get_focus_child (widget) != NULL)
    return FALSE;

  gtk_widget_activate_action (widget, action, NULL);
  return TRUE;
}

/* Actions */

static void
move_focus_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  move_focus (SK_CANVAS (widget), g_variant_get_string (parameter, NULL));
}

static void
nudge_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);
  const char *direction = g_variant_get_string (parameter, NULL);
  g_autoptr(GPtrArray) nodes = sk_canvas_get_selected_nodes (self);
  double dx = 0, dy = 0;

  if (nodes->len == 0)
    return;

  if (g_str_equal (direction, "left"))
    dx = -NUDGE;
  else if (g_str_equal (direction, "right"))
    dx = NUDGE;
  else if (g_str_equal (direction, "up"))
    dy = -NUDGE;
  else
    dy = NUDGE;

  _sk_canvas_history_begin (self, nodes->len == 1 ? _("Move Step") : _("Move Steps"));
  for (guint i = 0; i < nodes->len; i++)
    {
      SkCanvasItem *item = _sk_canvas_lookup_item (self, g_ptr_array_index (nodes, i));

      sk_node_set_position (item->node, item->x + dx, item->y + dy);
    }
  _sk_canvas_history_end (self);
}

static void
add_step_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);
  SkCanvasItem *focus = _sk_canvas_lookup_item (self, self->focus);
  double mx, my;

  /* A step added from the keyboard goes below the selected step, ready to
   * be connected to it, or to the middle of the view. */
  if (focus != NULL)
    {
      double x, y;

      mx = focus->x;
      my = focus->y + SK_CANVAS_GRID_DY;
      _sk_canvas_model_to_widget (self, mx, my, &x, &y);
      while (_sk_canvas_node_at (self, x, y) != NULL)
        {
          mx += SK_CANVAS_GRID_DX;
          _sk_canvas_model_to_widget (self, mx, my, &x, &y);
        }
    }
  else
    _sk_canvas_widget_to_model (self,
                                gtk_widget_get_width (widget) / 2.0,
                                gtk_widget_get_height (widget) / 2.0,
                                &mx, &my);

  if (_sk_canvas_add_step_at (self, mx, my) != NULL)
    _sk_canvas_scroll_to_item (self, _sk_canvas_lookup_item (self, self->focus));
}

static void
delete_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  delete_selection (SK_CANVAS (widget));
}

static void
connect_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);

  if (self->focus != NULL)
    _sk_canvas_connect_tool_use (self, self->focus);
}

static void
toggle_run_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);
  g_autoptr(GPtrArray) nodes = sk_canvas_get_selected_nodes (self);
  gboolean run;

  if (nodes->len == 0)
    return;

  run = !sk_node_get_run (self->focus != NULL ? self->focus : g_ptr_array_index (nodes, 0));
  _sk_canvas_history_begin (self, run ? _("Mark Step to Run") : _("Unmark Step"));
  for (guint i = 0; i < nodes->len; i++)
    sk_node_set_run (g_ptr_array_index (nodes, i), run);
  _sk_canvas_history_end (self);
}

static void
toggle_all_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  _sk_canvas_toggle_all (SK_CANVAS (widget));
}

static void
select_all_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  _sk_canvas_select_all (SK_CANVAS (widget));
}

static void
escape_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);

  if (self->connect.source != NULL)
    _sk_canvas_connect_tool_cancel (self);
  else
    _sk_canvas_select_only (self, NULL);
}

static void
activate_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);

  /* Return on a selected connection edits its condition. */
  if (self->focus == NULL)
    {
      if (self->edge_prior != NULL)
        edit_condition (self);
      return;
    }

  if (self->connect.source != NULL)
    _sk_canvas_connect_tool_use (self, self->focus);
  else
    _sk_canvas_emit_node_activated (self, self->focus);
}

static void
properties_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);

  if (self->focus != NULL)
    _sk_canvas_emit_edit_node (self, self->focus);
}

static void
menu_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);
  SkCanvasItem *item = _sk_canvas_lookup_item (self, self->focus);
  double x, y;

  if (item == NULL && self->edge_prior != NULL)
    {
      SkCanvasItem *from = _sk_canvas_lookup_item (self, self->edge_prior);
      SkCanvasItem *to = _sk_canvas_lookup_item (self, self->edge_node);
      double p[8];

      if (from == NULL || to == NULL)
        return;
      /* The menu points at the middle of the connection. */
      _sk_canvas_edge_route (from, to, p);
      _sk_canvas_cubic_point (p, 0.5, &x, &y);
      _sk_canvas_model_to_widget (self, x, y, &x, &y);
      show_edge_menu (self, x, y);
      return;
    }

  if (item == NULL)
    return;

  _sk_canvas_scroll_to_item (self, item);
  _sk_canvas_model_to_widget (self, item->x, item->y + NODE_H / 2, &x, &y);
  show_node_menu (self, item->node, x, y);
}

static void
edit_condition_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  edit_condition (SK_CANVAS (widget));
}

static void
zoom_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);
  double x = gtk_widget_get_width (widget) / 2.0;
  double y = gtk_widget_get_height (widget) / 2.0;

  if (g_str_equal (action_name, "canvas.zoom-in"))
    _sk_canvas_zoom_around (self, self->zoom * SK_CANVAS_ZOOM_STEP, x, y);
  else if (g_str_equal (action_name, "canvas.zoom-out"))
    _sk_canvas_zoom_around (self, self->zoom / SK_CANVAS_ZOOM_STEP, x, y);
  else if (g_str_equal (action_name, "canvas.zoom-reset"))
    _sk_canvas_zoom_around (self, 1.0, x, y);
  else
    _sk_canvas_request_fit (self);
}

static void
find_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  _sk_canvas_find_open (SK_CANVAS (widget));
}

/* Arrange */

/* How arranging chooses its direction. */
typedef enum
{
  ARRANGE_TO_FIT,
  ARRANGE_DOWN,
  ARRANGE_RIGHT,
} ArrangeHow;

typedef struct
{
  SkCanvas *self;
  gboolean  record;
} ArrangeData;

static void
arrange_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  ArrangeData *data = user_data;
  g_autoptr(SkCanvas) self = data->self;
  g_autoptr(GHashTable) positions = NULL;
  g_autoptr(GError) error = NULL;
  gboolean record = data->record;

  g_free (data);

  positions = sk_layout_arrange_finish (SK_PROJECT (object), result, NULL, &error);
  if (positions == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *message = g_strdup_printf (_("The workflow could not be arranged: %s"), error->message);

          self->arranging = FALSE;
          _sk_canvas_emit_message (self, message);
        }
      return;
    }

  self->arranging = FALSE;
  if (SK_PROJECT (object) != self->project)
    return;

  /* If the user changed the workflow while it was being laid out (recovered
   * unsaved changes, say), the layout is an edit like any other. */
  if (!record &&
      (sk_project_get_modified (self->project) ||
       (self->history != NULL && sk_history_get_can_undo (self->history))))
    record = TRUE;

  if (record)
    _sk_canvas_history_begin (self, _("Arrange"));
  sk_layout_apply (self->project, positions);
  if (record)
    _sk_canvas_history_end (self);
  else
    {
      /* Arranging a workflow that had no positions is part of opening it;
       * it must not make the history think the user changed something. */
      if (self->history != NULL)
        sk_history_clear (self->history);
      sk_project_set_modified (self->project, FALSE);
    }

  _sk_canvas_request_fit (self);
}

/* Lays the workflow out in a worker thread. @record makes the layout an
 * undoable edit; without it, it is part of opening the workflow. */
static void
arrange (SkCanvas   *self,
         gboolean    record,
         ArrangeHow  how)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  ArrangeData *data;

  if (self->project == NULL)
    return;

  _sk_canvas_cancel_arrange (self);
  self->layout_cancellable = g_cancellable_new ();
  self->arranging = TRUE;

  data = g_new0 (ArrangeData, 1);
  data->self = g_object_ref (self);
  data->record = record;

  /* Both directions are tried, and the one that shows the steps larger
   * once fitted into the canvas is kept; until the canvas has a size, top
   * to bottom. */
  if (how == ARRANGE_TO_FIT && width > 0 && height > 0)
    sk_layout_arrange_to_fit_async (self->project, NODE_W, NODE_H, width, height,
                                    self->layout_cancellable, arrange_cb, data);
  else
    sk_layout_arrange_async (self->project, NODE_W, NODE_H,
                             how == ARRANGE_RIGHT ? SK_LAYOUT_DIRECTION_RIGHT : SK_LAYOUT_DIRECTION_DOWN,
                             self->layout_cancellable, arrange_cb, data);
}

void
_sk_canvas_arrange (SkCanvas *self,
                    gboolean  record)
{
  arrange (self, record, ARRANGE_TO_FIT);
}

static void
arrange_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);

  if (g_str_equal (action_name, "canvas.arrange-down"))
    arrange (self, TRUE, ARRANGE_DOWN);
  else if (g_str_equal (action_name, "canvas.arrange-right"))
    arrange (self, TRUE, ARRANGE_RIGHT);
  else
    arrange (self, TRUE, ARRANGE_TO_FIT);
}

void
_sk_canvas_cancel_arrange (SkCanvas *self)
{
  g_cancellable_cancel (self->layout_cancellable);
  g_clear_object (&self->layout_cancellable);
  self->arranging = FALSE;
}

gboolean
_sk_canvas_is_arranging (SkCanvas *self)
{
  return self->arranging;
}

/* Key bindings */

static void
add_direction_bindings (GtkWidgetClass  *widget_class,
                        GdkModifierType  modifiers,
                        const char      *action)
{
  static const struct {
    guint keyval;
    guint keypad;
    const char *direction;
  } keys[] = {
    { GDK_KEY_Left, GDK_KEY_KP_Left, "left" },
    { GDK_KEY_Right, GDK_KEY_KP_Right, "right" },
    { GDK_KEY_Up, GDK_KEY_KP_Up, "up" },
    { GDK_KEY_Down, GDK_KEY_KP_Down, "down" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      gtk_widget_class_add_binding_action (widget_class, keys[i].keyval, modifiers, action, "s", keys[i].direction);
      gtk_widget_class_add_binding_action (widget_class, keys[i].keypad, modifiers, action, "s", keys[i].direction);
    }
}

void
_sk_canvas_class_actions_init (SkCanvasClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "canvas.add-step", NULL, add_step_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Insert, 0, "canvas.add-step", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Insert, 0, "canvas.add-step", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_n, 0, "canvas.add-step", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.delete", NULL, delete_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete, 0, "canvas.delete", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Delete, 0, "canvas.delete", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_BackSpace, 0, "canvas.delete", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.connect", NULL, connect_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, 0, "canvas.connect", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.toggle-run", NULL, toggle_run_action);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_space, 0, key_activate_cb, "s", "canvas.toggle-run");

  gtk_widget_class_install_action (widget_class, "canvas.toggle-all", NULL, toggle_all_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_space, GDK_SHIFT_MASK, "canvas.toggle-all", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.select-all", NULL, select_all_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a, GDK_CONTROL_MASK, "canvas.select-all", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.escape", NULL, escape_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "canvas.escape", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.activate", NULL, activate_action);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_Return, 0, key_activate_cb, "s", "canvas.activate");
  gtk_widget_class_add_binding (widget_class, GDK_KEY_KP_Enter, 0, key_activate_cb, "s", "canvas.activate");

  gtk_widget_class_install_action (widget_class, "canvas.properties", NULL, properties_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, GDK_ALT_MASK, "canvas.properties", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.menu", NULL, menu_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Menu, 0, "canvas.menu", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F10, GDK_SHIFT_MASK, "canvas.menu", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.edit-condition", NULL, edit_condition_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F2, 0, "canvas.edit-condition", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.move-focus", "s", move_focus_action);
  add_direction_bindings (widget_class, 0, "canvas.move-focus");
  gtk_widget_class_add_binding (widget_class, GDK_KEY_Tab, 0, tab_cb, "s", "next");
  gtk_widget_class_add_binding (widget_class, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK, tab_cb, "s", "previous");

  gtk_widget_class_install_action (widget_class, "canvas.nudge", "s", nudge_action);
  add_direction_bindings (widget_class, GDK_SHIFT_MASK, "canvas.nudge");

  gtk_widget_class_install_action (widget_class, "canvas.zoom-in", NULL, zoom_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "canvas.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "canvas.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, GDK_CONTROL_MASK, "canvas.zoom-in", NULL);
  gtk_widget_class_install_action (widget_class, "canvas.zoom-out", NULL, zoom_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "canvas.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, GDK_CONTROL_MASK, "canvas.zoom-out", NULL);
  gtk_widget_class_install_action (widget_class, "canvas.zoom-reset", NULL, zoom_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "canvas.zoom-reset", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_0, GDK_CONTROL_MASK, "canvas.zoom-reset", NULL);
  gtk_widget_class_install_action (widget_class, "canvas.zoom-fit", NULL, zoom_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1, GDK_CONTROL_MASK, "canvas.zoom-fit", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.find", NULL, find_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "canvas.find", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.arrange", NULL, arrange_action);
  gtk_widget_class_install_action (widget_class, "canvas.arrange-down", NULL, arrange_action);
  gtk_widget_class_install_action (widget_class, "canvas.arrange-right", NULL, arrange_action);
}
