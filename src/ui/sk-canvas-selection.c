/* sk-canvas-selection.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-canvas"

#include "config.h"

#include <math.h>

#include "sk-canvas-private.h"

/* Selection
 *
 * The selection model says which steps are selected. The canvas adds the
 * focus, the selected step clicked last, whose cells the window shows, and
 * a selected connection, which is not a step. When the canvas changes the
 * model itself, it sets the focus as the gesture means; when someone else
 * changes a shared model, the focus follows as well as it can. */

gboolean
_sk_canvas_is_selected (SkCanvas *self,
                        SkNode   *node)
{
  guint position;

  return self->selection != NULL &&
         _sk_canvas_item_position (self, node, &position) &&
         gtk_selection_model_is_selected (self->selection, position);
}

gboolean
_sk_canvas_has_selection (SkCanvas *self)
{
  g_autoptr(GtkBitset) selected = NULL;

  if (self->selection == NULL)
    return FALSE;

  selected = gtk_selection_model_get_selection (self->selection);

  return !gtk_bitset_is_empty (selected);
}

guint
_sk_canvas_count_selected (SkCanvas *self)
{
  g_autoptr(GtkBitset) selected = NULL;

  if (self->selection == NULL)
    return 0;

  selected = gtk_selection_model_get_selection (self->selection);

  return (guint) gtk_bitset_get_size (selected);
}

void
_sk_canvas_clear_edge_selection (SkCanvas *self)
{
  self->edge_prior = NULL;
  self->edge_node = NULL;
}

/* Sets the items of @mask to be selected if they are in @selected and not
 * otherwise, without reacting to it as to someone else's change. */
static void
change_selection (SkCanvas  *self,
                  GtkBitset *selected,
                  GtkBitset *mask)
{
  if (self->selection == NULL)
    return;

  self->changing_selection++;

  /* Models such as GtkSingleSelection only select and unselect items one
   * by one. */
  if (!gtk_selection_model_set_selection (self->selection, selected, mask))
    {
      g_autoptr(GtkBitset) current = gtk_selection_model_get_selection (self->selection);
      g_autoptr(GtkBitset) to_unselect = gtk_bitset_copy (current);
      g_autoptr(GtkBitset) to_select = gtk_bitset_copy (selected);
      GtkBitsetIter iter;
      guint position;

      gtk_bitset_intersect (to_unselect, mask);
      gtk_bitset_subtract (to_unselect, selected);
      gtk_bitset_intersect (to_select, mask);
      gtk_bitset_subtract (to_select, current);

      for (gboolean more = gtk_bitset_iter_init_first (&iter, to_unselect, &position);
           more;
           more = gtk_bitset_iter_next (&iter, &position))
        gtk_selection_model_unselect_item (self->selection, position);
      for (gboolean more = gtk_bitset_iter_init_first (&iter, to_select, &position);
           more;
           more = gtk_bitset_iter_next (&iter, &position))
        gtk_selection_model_select_item (self->selection, position, FALSE);
    }

  self->changing_selection--;
}

static GtkBitset *
all_items (SkCanvas *self)
{
  return gtk_bitset_new_range (0, self->items->len);
}

static void
unselect_all (SkCanvas *self)
{
  g_autoptr(GtkBitset) none = gtk_bitset_new_empty ();
  g_autoptr(GtkBitset) all = all_items (self);

  change_selection (self, none, all);
}

static void
select_only (SkCanvas *self,
             SkNode   *node)
{
  g_autoptr(GtkBitset) selected = gtk_bitset_new_empty ();
  g_autoptr(GtkBitset) all = all_items (self);
  guint position;

  if (_sk_canvas_item_position (self, node, &position))
    gtk_bitset_add (selected, position);
  change_selection (self, selected, all);
}

/* Whether the canvas's items and the selection model's positions agree.
 * While the workflow emits items-changed, the canvas catches up last (its
 * handler runs after the others), so a handler that selects a step in
 * between finds them apart. The workflow adds or removes one step at a
 * time, so the counts tell. */
static gboolean
in_step (SkCanvas *self)
{
  return self->selection == NULL ||
         g_list_model_get_n_items (G_LIST_MODEL (self->selection)) == self->items->len;
}

void
_sk_canvas_select_only (SkCanvas *self,
                        SkNode   *node)
{
  if (in_step (self))
    select_only (self, node);
  else
    {
      self->deferred_select = TRUE;
      self->deferred_node = node;
    }

  _sk_canvas_clear_edge_selection (self);
  _sk_canvas_set_focus_node (self, node);
  _sk_canvas_selection_changed (self);
}

/* Applies what was selected while the canvas was catching up with a change
 * of the workflow, now that it has. */
void
_sk_canvas_apply_deferred_selection (SkCanvas *self)
{
  if (!in_step (self))
    return;

  if (self->deferred_select)
    {
      SkNode *node = self->deferred_node;

      self->deferred_select = FALSE;
      self->deferred_node = NULL;
      select_only (self, node);
    }

  if (self->deferred_follow)
    {
      self->deferred_follow = FALSE;
      _sk_canvas_follow_selection (self, 0, self->items->len);
    }
}

/* Shift+click: adds @node to the selection, or takes it out. */
void
_sk_canvas_toggle_selected (SkCanvas *self,
                            SkNode   *node)
{
  g_autoptr(GtkBitset) selected = gtk_bitset_new_empty ();
  g_autoptr(GtkBitset) mask = NULL;
  guint position;

  if (self->selection == NULL || !_sk_canvas_item_position (self, node, &position))
    return;

  mask = gtk_bitset_new_range (position, 1);
  if (gtk_selection_model_is_selected (self->selection, position))
    {
      change_selection (self, selected, mask);
      if (self->focus == node)
        _sk_canvas_set_focus_node (self, NULL);
    }
  else
    {
      gtk_bitset_add (selected, position);
      change_selection (self, selected, mask);
      _sk_canvas_set_focus_node (self, node);
    }

  _sk_canvas_clear_edge_selection (self);
  _sk_canvas_selection_changed (self);
}

void
_sk_canvas_select_all (SkCanvas *self)
{
  g_autoptr(GtkBitset) all = all_items (self);

  change_selection (self, all, all);

  if (self->focus == NULL && self->items->len > 0)
    _sk_canvas_set_focus_node (self, ((SkCanvasItem *) g_ptr_array_index (self->items, 0))->node);
  _sk_canvas_selection_changed (self);
}

/* Selects the items in @items, their positions; with @extend, in addition
 * to those already selected. The focus moves to the first of them. */
void
_sk_canvas_select_items (SkCanvas  *self,
                         GtkBitset *items,
                         gboolean   extend)
{
  g_autoptr(GtkBitset) mask = extend ? gtk_bitset_ref (items) : all_items (self);

  change_selection (self, items, mask);

  _sk_canvas_clear_edge_selection (self);
  _sk_canvas_set_focus_node (self, NULL);
  if (!gtk_bitset_is_empty (items))
    {
      SkCanvasItem *first = g_ptr_array_index (self->items, gtk_bitset_get_minimum (items));

      _sk_canvas_set_focus_node (self, first->node);
    }
  _sk_canvas_selection_changed (self);
}

/* The first selected step in [@position, @position + @n_items), or else
 * the first selected step. */
static SkNode *
first_selected (SkCanvas *self,
                guint     position,
                guint     n_items)
{
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (self->selection);
  g_autoptr(GtkBitset) changed = gtk_bitset_new_range (position, n_items);
  guint first = GTK_INVALID_LIST_POSITION;

  gtk_bitset_intersect (changed, selected);
  if (!gtk_bitset_is_empty (changed))
    first = gtk_bitset_get_minimum (changed);
  else if (!gtk_bitset_is_empty (selected))
    first = gtk_bitset_get_minimum (selected);

  if (first >= self->items->len)
    return NULL;

  return ((SkCanvasItem *) g_ptr_array_index (self->items, first))->node;
}

/* After someone else changed the selection model in the range given, the
 * focus stays if it is still selected, and otherwise moves to a step they
 * selected, so that a single selection model's item is the focus. */
void
_sk_canvas_follow_selection (SkCanvas *self,
                             guint     position,
                             guint     n_items)
{
  if (self->selection == NULL)
    _sk_canvas_set_focus_node (self, NULL);
  else if (self->focus == NULL || !_sk_canvas_is_selected (self, self->focus))
    _sk_canvas_set_focus_node (self, first_selected (self, position, n_items));
  if (_sk_canvas_has_selection (self))
    _sk_canvas_clear_edge_selection (self);
}

/* Someone else changed the selection model. */
static void
selection_model_changed_cb (SkCanvas          *self,
                            guint              position,
                            guint              n_items,
                            GtkSelectionModel *model)
{
  g_assert (model == self->selection);

  if (self->changing_selection > 0)
    return;

  /* A model that selects an item when the one selected is removed does so
   * before the canvas has caught up with the removal. */
  if (!in_step (self))
    {
      self->deferred_follow = TRUE;
      return;
    }

  _sk_canvas_follow_selection (self, position, n_items);
  _sk_canvas_selection_changed (self);
}

/* Uses @selection, or, when %NULL, a GtkMultiSelection of the canvas's own
 * over the workflow. */
void
_sk_canvas_replace_selection (SkCanvas          *self,
                              GtkSelectionModel *selection)
{
  g_autoptr(GtkSelectionModel) own = NULL;

  if (selection == NULL && self->project != NULL)
    {
      GListModel *steps = g_object_ref (G_LIST_MODEL (self->project));

      selection = own = GTK_SELECTION_MODEL (gtk_multi_selection_new (steps));
    }

  self->owns_selection = selection == NULL || own != NULL;
  if (self->selection == selection)
    return;

  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_func (self->selection, selection_model_changed_cb, self);

  g_set_object (&self->selection, selection);
  if (selection != NULL)
    g_signal_connect_object (selection, "selection-changed",
                             G_CALLBACK (selection_model_changed_cb), self, G_CONNECT_SWAPPED);

  _sk_canvas_notify_selection (self);
}

/* Lets go of the selection model. */
void
_sk_canvas_drop_selection (SkCanvas *self)
{
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_func (self->selection, selection_model_changed_cb, self);
  g_clear_object (&self->selection);
}

/* The selected connection, which the selection model cannot hold since it
 * is not a step. */
gboolean
_sk_canvas_get_selected_edge (SkCanvas  *self,
                              SkNode   **prior,
                              SkNode   **node)
{
  if (prior != NULL)
    *prior = self->edge_prior;
  if (node != NULL)
    *node = self->edge_node;

  return self->edge_prior != NULL;
}

void
_sk_canvas_select_edge (SkCanvas *self,
                        SkNode   *prior,
                        SkNode   *node)
{
  unselect_all (self);
  _sk_canvas_set_focus_node (self, NULL);
  self->edge_prior = prior;
  self->edge_node = node;
  _sk_canvas_selection_changed (self);
}

/* Hit testing of connections, along the curves sk-canvas-paint.c draws */

#define EDGE_TOLERANCE 6.0
#define EDGE_HIT_SAMPLES 24

static double
distance_to_segment (double px,
                     double py,
                     double ax,
                     double ay,
                     double bx,
                     double by)
{
  double dx = bx - ax;
  double dy = by - ay;
  double length2 = dx * dx + dy * dy;
  double t = length2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / length2 : 0;

  t = CLAMP (t, 0, 1);

  return hypot (px - (ax + t * dx), py - (ay + t * dy));
}

/**
 * _sk_canvas_edge_hit:
 * @self: a #SkCanvas
 * @x: widget x
 * @y: widget y
 * @prior: (out): the prior of the connection at (@x, @y)
 * @node: (out): its step
 *
 * Finds the connection drawn at (@x, @y), within a few pixels, the one
 * drawn last first.
 *
 * Returns: whether there is one
 */
gboolean
_sk_canvas_edge_hit (SkCanvas  *self,
                     double     x,
                     double     y,
                     SkNode   **prior,
                     SkNode   **node)
{
  g_autoptr(GArray) edges = NULL;
  double mx, my;
  double tolerance = EDGE_TOLERANCE / self->zoom;
  graphene_rect_t near;

  if (self->project == NULL)
    return FALSE;

  _sk_canvas_widget_to_model (self, x, y, &mx, &my);
  near = GRAPHENE_RECT_INIT (mx - tolerance, my - tolerance, 2 * tolerance, 2 * tolerance);

  /* The grid gives the connections near the point, in the order they are
   * drawn. */
  edges = g_array_new (FALSE, FALSE, sizeof (guint));
  _sk_canvas_index_edges (self, &near, edges);

  for (guint i = edges->len; i > 0; i--)
    {
      const SkCanvasEdge *edge = &g_array_index (self->tiles->edges, SkCanvasEdge,
                                                 g_array_index (edges, guint, i - 1));
      SkCanvasItem *from = g_ptr_array_index (self->items, edge->from);
      SkCanvasItem *to = g_ptr_array_index (self->items, edge->to);
      double p[8];
      double last_x, last_y;

      /* A dragged step's connections are routed where it is now. */
      _sk_canvas_edge_route (from, to, p);
      if (!_sk_canvas_edge_visible (p, &near))
        continue;

      last_x = p[0];
      last_y = p[1];
      for (int k = 1; k <= EDGE_HIT_SAMPLES; k++)
        {
          double bx, by;

          _sk_canvas_cubic_point (p, (double) k / EDGE_HIT_SAMPLES, &bx, &by);
          if (distance_to_segment (mx, my, last_x, last_y, bx, by) <= tolerance)
            {
              *prior = from->node;
              *node = to->node;
              return TRUE;
            }
          last_x = bx;
          last_y = by;
        }
    }

  return FALSE;
}
