/* sk-canvas-tools.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-canvas"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sk-canvas-private.h"

/* The gestures, one tool each, as Gaphas cuts them: a click selects,
 * connects (Ctrl), edits (Alt) or marks to run (secondary button); a
 * primary drag moves the selected steps or, from empty space, draws a
 * rubber band; a middle drag pans; the wheel scrolls and, with Ctrl, zooms;
 * the pointer hovers. Each tool keeps its own state in SkCanvas. */

#define NODE_W SK_CANVAS_NODE_WIDTH
#define NODE_H SK_CANVAS_NODE_HEIGHT
#define DRAG_THRESHOLD 3.0
#define WHEEL_STEP 48.0

typedef struct
{
  SkNode *node;
  double  x;
  double  y;
} Origin;

/* Whether a drag is under way, during which hovering leaves the cursor
 * alone. */
gboolean
_sk_canvas_tools_busy (SkCanvas *self)
{
  return self->drag != SK_CANVAS_DRAG_NONE || self->pan.active;
}

/* Connect tool */

void
_sk_canvas_connect_tool_cancel (SkCanvas *self)
{
  if (self->connect.source == NULL)
    return;

  self->connect.source = NULL;
  _sk_canvas_connect_hint_update (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The first step given becomes the source, the second is connected to it;
 * the source again cancels. */
void
_sk_canvas_connect_tool_use (SkCanvas *self,
                             SkNode   *node)
{
  if (self->connect.source == NULL)
    {
      self->connect.source = node;
      _sk_canvas_select_only (self, node);
      _sk_canvas_connect_hint_update (self);
      return;
    }

  if (self->connect.source == node)
    {
      _sk_canvas_connect_tool_cancel (self);
      return;
    }

  _sk_canvas_connect_steps (self, self->connect.source, node);
  self->connect.source = NULL;
  _sk_canvas_connect_hint_update (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

SkNode *
_sk_canvas_get_connect_source (SkCanvas *self)
{
  return self->connect.source;
}

/* Click tool */

static void
click_node (SkCanvas        *self,
            SkNode          *node,
            GdkModifierType  state,
            int              n_press)
{
  if (state & GDK_SHIFT_MASK)
    _sk_canvas_toggle_selected (self, node);
  else
    {
      _sk_canvas_select_only (self, node);
      if (n_press == 2)
        _sk_canvas_emit_node_activated (self, node);
    }
}

void
_sk_canvas_click (SkCanvas        *self,
                  double           x,
                  double           y,
                  guint            button,
                  GdkModifierType  state,
                  int              n_press)
{
  SkNode *node;
  SkNode *edge_prior = NULL;
  SkNode *edge_node = NULL;
  SkNode *run_node = NULL;
  double mx, my;

  if (self->project == NULL)
    return;

  gtk_widget_grab_focus (GTK_WIDGET (self));
  self->auto_fit = FALSE;
  node = _sk_canvas_node_at (self, x, y);
  _sk_canvas_widget_to_model (self, x, y, &mx, &my);

  /* Run mark tool */
  if (button == GDK_BUTTON_SECONDARY)
    {
      if (node != NULL)
        _sk_canvas_toggle_run (self, node);
      else
        _sk_canvas_toggle_all (self);
      return;
    }

  if (button != GDK_BUTTON_PRIMARY)
    return;

  /* Run button tool */
  if ((state & (GDK_ALT_MASK | GDK_CONTROL_MASK | GDK_SHIFT_MASK)) == 0 && n_press == 1 &&
      _sk_canvas_run_button_at (self, x, y, &run_node))
    {
      gtk_widget_activate_action (GTK_WIDGET (self), "win.run-node", "s", sk_node_get_key (run_node));
      return;
    }

  /* Edit tool */
  if (state & GDK_ALT_MASK)
    {
      if (node != NULL)
        {
          _sk_canvas_select_only (self, node);
          _sk_canvas_emit_edit_node (self, node);
        }
      else
        _sk_canvas_emit_edit_process (self);
      return;
    }

  if (state & GDK_CONTROL_MASK)
    {
      if (node != NULL)
        _sk_canvas_connect_tool_use (self, node);
      else
        _sk_canvas_connect_tool_cancel (self);
      return;
    }

  if (node != NULL)
    {
      click_node (self, node, state, n_press);
      return;
    }

  if (_sk_canvas_proposal_step_at (self, mx, my))
    return;

  if (_sk_canvas_edge_hit (self, x, y, &edge_prior, &edge_node))
    {
      _sk_canvas_select_edge (self, edge_prior, edge_node);
      /* A double click edits the condition on the connection. */
      if (n_press == 2)
        gtk_widget_activate_action (GTK_WIDGET (self), "canvas.edit-condition", NULL);
      return;
    }

  if (self->connect.source != NULL)
    {
      _sk_canvas_connect_tool_cancel (self);
      return;
    }

  _sk_canvas_add_step_at (self, mx, my);
}

static void
click_pressed_cb (SkCanvas        *self,
                  int              n_press,
                  double           x,
                  double           y,
                  GtkGestureClick *gesture)
{
  self->press_x = x;
  self->press_y = y;
}

static void
click_released_cb (SkCanvas        *self,
                   int              n_press,
                   double           x,
                   double           y,
                   GtkGestureClick *gesture)
{
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  /* The click gesture does not always give way to a drag whose pointer
   * jumped far in one motion event, as it does under Xvfb or a slow
   * machine; a rubber band ending on empty space would then add a step. */
  if (hypot (x - self->press_x, y - self->press_y) >= DRAG_THRESHOLD)
    return;

  _sk_canvas_click (self, x, y, button, state, n_press);
}

/* Move tool */

static void
move_begin (SkCanvas *self,
            SkNode   *node)
{
  g_autoptr(GtkBitset) selected = NULL;
  GtkBitsetIter iter;
  guint position;

  if (!_sk_canvas_is_selected (self, node))
    _sk_canvas_select_only (self, node);
  else if (self->focus != node)
    {
      _sk_canvas_set_focus_node (self, node);
      _sk_canvas_selection_changed (self);
    }

  g_array_set_size (self->move.origins, 0);
  selected = gtk_selection_model_get_selection (self->selection);
  for (gboolean more = gtk_bitset_iter_init_first (&iter, selected, &position);
       more && position < self->items->len;
       more = gtk_bitset_iter_next (&iter, &position))
    {
      SkCanvasItem *item = g_ptr_array_index (self->items, position);
      Origin origin = { item->node, item->x, item->y };

      g_array_append_val (self->move.origins, origin);
    }

  self->drag = SK_CANVAS_DRAG_PENDING_MOVE;
}

/* Dragged steps are left out of the tiles and drawn over them, so that
 * moving them costs what drawing them does; the tiles are drawn again
 * without them when the drag begins, and with them when it ends. */
static void
set_moving (SkCanvas *self,
            gboolean  moving)
{
  for (guint i = 0; i < self->move.origins->len; i++)
    {
      SkCanvasItem *item = _sk_canvas_lookup_item (self, g_array_index (self->move.origins, Origin, i).node);

      if (item != NULL)
        item->moving = moving;
    }

  _sk_canvas_invalidate_edges (self);
}

static void
move_update (SkCanvas *self,
             double    offset_x,
             double    offset_y)
{
  if (self->drag == SK_CANVAS_DRAG_PENDING_MOVE)
    {
      if (hypot (offset_x, offset_y) < DRAG_THRESHOLD)
        return;
      _sk_canvas_history_begin (self, self->move.origins->len == 1 ? _("Move Step") : _("Move Steps"));
      self->drag = SK_CANVAS_DRAG_MOVE;
      set_moving (self, TRUE);
    }

  for (guint i = 0; i < self->move.origins->len; i++)
    {
      Origin *origin = &g_array_index (self->move.origins, Origin, i);

      if (origin->node != NULL)
        sk_node_set_position (origin->node,
                              origin->x + offset_x / self->zoom,
                              origin->y + offset_y / self->zoom);
    }
}

/* Rubber band tool */

static void
rubber_band_begin (SkCanvas        *self,
                   double           x,
                   double           y,
                   GdkModifierType  state)
{
  self->drag = SK_CANVAS_DRAG_RUBBER;
  self->rubber.x0 = x;
  self->rubber.y0 = y;
  self->rubber.x1 = x;
  self->rubber.y1 = y;
  self->rubber.extend = (state & GDK_SHIFT_MASK) != 0;
}

static void
rubber_band_update (SkCanvas *self,
                    double    offset_x,
                    double    offset_y)
{
  self->rubber.x1 = self->rubber.x0 + offset_x;
  self->rubber.y1 = self->rubber.y0 + offset_y;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Selects the steps fully inside the band. */
static void
rubber_band_end (SkCanvas *self)
{
  const SkCanvasRubberBand *rubber = &self->rubber;
  g_autoptr(GtkBitset) inside = gtk_bitset_new_empty ();
  double x0, y0, x1, y1;

  _sk_canvas_widget_to_model (self,
                              MIN (rubber->x0, rubber->x1), MIN (rubber->y0, rubber->y1),
                              &x0, &y0);
  _sk_canvas_widget_to_model (self,
                              MAX (rubber->x0, rubber->x1), MAX (rubber->y0, rubber->y1),
                              &x1, &y1);

  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *item = g_ptr_array_index (self->items, i);

      if (item->x - NODE_W / 2 >= x0 && item->x + NODE_W / 2 <= x1 &&
          item->y - NODE_H / 2 >= y0 && item->y + NODE_H / 2 <= y1)
        gtk_bitset_add (inside, i);
    }

  _sk_canvas_select_items (self, inside, rubber->extend);
}

/* The item tool: the primary drag, on a step or on empty space. */

gboolean
_sk_canvas_drag_begin (SkCanvas        *self,
                       double           x,
                       double           y,
                       GdkModifierType  state)
{
  SkNode *node;

  if (self->project == NULL || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return FALSE;

  node = _sk_canvas_node_at (self, x, y);

  if (node == NULL)
    {
      SkNode *prior, *child;

      /* A press on an edge is a click that selects it. */
      if (_sk_canvas_edge_hit (self, x, y, &prior, &child))
        return FALSE;

      rubber_band_begin (self, x, y, state);
      return TRUE;
    }

  /* Shift+click toggles the step in the selection. */
  if (state & GDK_SHIFT_MASK)
    return FALSE;

  move_begin (self, node);

  return TRUE;
}

void
_sk_canvas_drag_update (SkCanvas *self,
                        double    offset_x,
                        double    offset_y)
{
  switch (self->drag)
    {
    case SK_CANVAS_DRAG_PENDING_MOVE:
    case SK_CANVAS_DRAG_MOVE:
      move_update (self, offset_x, offset_y);
      break;

    case SK_CANVAS_DRAG_RUBBER:
      rubber_band_update (self, offset_x, offset_y);
      break;

    case SK_CANVAS_DRAG_NONE:
    default:
      break;
    }
}

void
_sk_canvas_drag_end (SkCanvas *self,
                     double    offset_x,
                     double    offset_y)
{
  _sk_canvas_drag_update (self, offset_x, offset_y);

  if (self->drag == SK_CANVAS_DRAG_MOVE)
    {
      set_moving (self, FALSE);
      _sk_canvas_history_end (self);
    }
  else if (self->drag == SK_CANVAS_DRAG_RUBBER && hypot (offset_x, offset_y) >= DRAG_THRESHOLD)
    rubber_band_end (self);

  self->drag = SK_CANVAS_DRAG_NONE;
  g_array_set_size (self->move.origins, 0);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Stops a drag without finishing it. Moving steps keeps a history group
 * open until the drag ends; when the workflow or the history is replaced
 * first, the group must be closed on the history that opened it, not on the
 * next one. */
void
_sk_canvas_abandon_drag (SkCanvas *self)
{
  if (self->drag == SK_CANVAS_DRAG_MOVE)
    {
      set_moving (self, FALSE);
      _sk_canvas_history_end (self);
    }
  self->drag = SK_CANVAS_DRAG_NONE;
  g_array_set_size (self->move.origins, 0);
}

static void
item_drag_begin_cb (SkCanvas       *self,
                    double          x,
                    double          y,
                    GtkGestureDrag *gesture)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  if (!_sk_canvas_drag_begin (self, x, y, state))
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
}

static void
item_drag_update_cb (SkCanvas       *self,
                     double          offset_x,
                     double          offset_y,
                     GtkGestureDrag *gesture)
{
  _sk_canvas_drag_update (self, offset_x, offset_y);
  if (self->drag == SK_CANVAS_DRAG_MOVE)
    gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
}

static void
item_drag_end_cb (SkCanvas       *self,
                  double          offset_x,
                  double          offset_y,
                  GtkGestureDrag *gesture)
{
  _sk_canvas_drag_end (self, offset_x, offset_y);
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), self->hover.node != NULL ? "pointer" : NULL);
}

/* Pan tool */

static void
pan_begin_cb (SkCanvas       *self,
              double          x,
              double          y,
              GtkGestureDrag *gesture)
{
  self->pan.active = TRUE;
  self->pan.offset_x = self->offset_x;
  self->pan.offset_y = self->offset_y;
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
}

static void
pan_update_cb (SkCanvas       *self,
               double          offset_x,
               double          offset_y,
               GtkGestureDrag *gesture)
{
  if (self->pan.active)
    _sk_canvas_pan_to (self, self->pan.offset_x + offset_x, self->pan.offset_y + offset_y);
}

static void
pan_end_cb (SkCanvas       *self,
            double          offset_x,
            double          offset_y,
            GtkGestureDrag *gesture)
{
  pan_update_cb (self, offset_x, offset_y, gesture);
  self->pan.active = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), self->hover.node != NULL ? "pointer" : NULL);
}

/* Scroll tool: the wheel pans, Shift+wheel pans sideways, Ctrl+wheel zooms
 * around the pointer. */

void
_sk_canvas_scroll (SkCanvas        *self,
                   double           x,
                   double           y,
                   double           dx,
                   double           dy,
                   GdkModifierType  state)
{
  if (state & GDK_CONTROL_MASK)
    {
      _sk_canvas_zoom_around (self, self->zoom * pow (SK_CANVAS_ZOOM_STEP, -dy), x, y);
      return;
    }

  if (state & GDK_SHIFT_MASK)
    {
      double t = dx;

      dx = dy;
      dy = t;
    }

  _sk_canvas_pan_to (self, self->offset_x - dx, self->offset_y - dy);
}

static gboolean
scroll_cb (SkCanvas                 *self,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *controller)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  gboolean wheel = gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_WHEEL;

  if (!(state & GDK_CONTROL_MASK) && wheel)
    {
      dx *= WHEEL_STEP;
      dy *= WHEEL_STEP;
    }
  else if ((state & GDK_CONTROL_MASK) && !wheel)
    dy /= 20.0;

  _sk_canvas_scroll (self, self->hover.x, self->hover.y, dx, dy, state);

  return TRUE;
}

/* Hover tool */

static void
motion_cb (SkCanvas                 *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *controller)
{
  SkNode *node = _sk_canvas_node_at (self, x, y);

  self->hover.x = x;
  self->hover.y = y;
  self->hover.inside = TRUE;

  /* The connection being made follows the pointer. */
  if (self->connect.source != NULL)
    gtk_widget_queue_draw (GTK_WIDGET (self));

  if (node != self->hover.node)
    {
      self->hover.node = node;
      if (!_sk_canvas_tools_busy (self))
        gtk_widget_set_cursor_from_name (GTK_WIDGET (self), node != NULL ? "pointer" : NULL);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
leave_cb (SkCanvas                 *self,
          GtkEventControllerMotion *controller)
{
  self->hover.inside = FALSE;
  if (self->hover.node != NULL || self->connect.source != NULL)
    {
      self->hover.node = NULL;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static gboolean
query_tooltip_cb (SkCanvas   *self,
                  int         x,
                  int         y,
                  gboolean    keyboard,
                  GtkTooltip *tooltip)
{
  SkNode *node = keyboard ? self->focus : _sk_canvas_node_at (self, x, y);
  const char *task;
  g_autofree char *text = NULL;
  SkNode *run_node = NULL;

  if (!keyboard && _sk_canvas_run_button_at (self, x, y, &run_node))
    {
      gtk_tooltip_set_text (tooltip, _("Run This Step"));
      return TRUE;
    }

  if (node == NULL)
    return FALSE;

  task = sk_node_get_input_text (node);
  if (task != NULL && task[0] != '\0')
    text = g_strdup_printf ("%s\n%s", sk_node_get_name (node), task);
  else
    text = g_strdup (sk_node_get_name (node));
  gtk_tooltip_set_text (tooltip, text);

  return TRUE;
}

/* A step is leaving the workflow: no tool may keep pointing at it. */
void
_sk_canvas_forget_node (SkCanvas *self,
                        SkNode   *node)
{
  if (self->hover.node == node)
    self->hover.node = NULL;
  if (self->connect.source == node)
    {
      self->connect.source = NULL;
      _sk_canvas_connect_hint_update (self);
    }
  if (self->drag == SK_CANVAS_DRAG_MOVE || self->drag == SK_CANVAS_DRAG_PENDING_MOVE)
    {
      for (guint i = 0; i < self->move.origins->len; i++)
        if (g_array_index (self->move.origins, Origin, i).node == node)
          g_array_index (self->move.origins, Origin, i).node = NULL;
    }
}

void
_sk_canvas_tools_init (SkCanvas *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GtkGesture *click;
  GtkGesture *item_drag;
  GtkGesture *pan;
  GtkEventController *scroll;
  GtkEventController *motion;

  self->move.origins = g_array_new (FALSE, FALSE, sizeof (Origin));

  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), 0);
  g_signal_connect_object (click, "pressed", G_CALLBACK (click_pressed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (click, "released", G_CALLBACK (click_released_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (click));

  item_drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (item_drag), GDK_BUTTON_PRIMARY);
  g_signal_connect_object (item_drag, "drag-begin", G_CALLBACK (item_drag_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (item_drag, "drag-update", G_CALLBACK (item_drag_update_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (item_drag, "drag-end", G_CALLBACK (item_drag_end_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (item_drag));

  pan = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (pan), GDK_BUTTON_MIDDLE);
  g_signal_connect_object (pan, "drag-begin", G_CALLBACK (pan_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (pan, "drag-update", G_CALLBACK (pan_update_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (pan, "drag-end", G_CALLBACK (pan_end_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (pan));

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect_object (scroll, "scroll", G_CALLBACK (scroll_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (widget, scroll);

  motion = gtk_event_controller_motion_new ();
  g_signal_connect_object (motion, "motion", G_CALLBACK (motion_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (motion, "leave", G_CALLBACK (leave_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (widget, motion);

  g_signal_connect_object (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), self, G_CONNECT_SWAPPED);
}

void
_sk_canvas_tools_finalize (SkCanvas *self)
{
  g_clear_pointer (&self->move.origins, g_array_unref);
}
