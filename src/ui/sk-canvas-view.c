/* sk-canvas-view.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-canvas"

#include "config.h"

#include <math.h>

#include "sk-canvas-private.h"

/* The view transform, widget = model × zoom + offset, what changes it, and
 * hit testing, which maps the pointer back through it. */

#define NODE_W SK_CANVAS_NODE_WIDTH
#define NODE_H SK_CANVAS_NODE_HEIGHT

void
_sk_canvas_model_to_widget (SkCanvas *self,
                            double    mx,
                            double    my,
                            double   *wx,
                            double   *wy)
{
  *wx = mx * self->zoom + self->offset_x;
  *wy = my * self->zoom + self->offset_y;
}

void
_sk_canvas_widget_to_model (SkCanvas *self,
                            double    wx,
                            double    wy,
                            double   *mx,
                            double   *my)
{
  *mx = (wx - self->offset_x) / self->zoom;
  *my = (wy - self->offset_y) / self->zoom;
}

void
_sk_canvas_visible_model_rect (SkCanvas        *self,
                               graphene_rect_t *rect)
{
  double x0, y0, x1, y1;

  _sk_canvas_widget_to_model (self, 0, 0, &x0, &y0);
  _sk_canvas_widget_to_model (self,
                              gtk_widget_get_width (GTK_WIDGET (self)),
                              gtk_widget_get_height (GTK_WIDGET (self)),
                              &x1, &y1);
  graphene_rect_init (rect, x0, y0, x1 - x0, y1 - y0);
}

#define FIT_MARGIN 48.0

/* The box around every step, in model coordinates; %FALSE without steps. */
gboolean
_sk_canvas_content_rect (SkCanvas        *self,
                         graphene_rect_t *rect)
{
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;
  graphene_rect_t proposed;

  /* A chat's proposal counts as content, so that a draft on an empty
   * workflow can be shown whole. */
  if (self->items->len == 0)
    return _sk_canvas_proposal_bounds (self, rect);

  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *item = g_ptr_array_index (self->items, i);

      x0 = MIN (x0, item->x - NODE_W / 2);
      y0 = MIN (y0, item->y - NODE_H / 2);
      x1 = MAX (x1, item->x + NODE_W / 2);
      y1 = MAX (y1, item->y + NODE_H / 2);
    }

  graphene_rect_init (rect, x0, y0, x1 - x0, y1 - y0);
  if (_sk_canvas_proposal_bounds (self, &proposed))
    graphene_rect_union (rect, &proposed, rect);
  return TRUE;
}

/* The zoom at which the whole workflow fits into the view, or 0 when that
 * is not known yet. */
static double
fit_zoom (SkCanvas              *self,
          const graphene_rect_t *content)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));

  if (width <= 0 || height <= 0)
    return 0;

  return MIN (MAX (1.0, width - 2 * FIT_MARGIN) / content->size.width,
              MAX (1.0, height - 2 * FIT_MARGIN) / content->size.height);
}

/* How far the user may zoom out: SK_CANVAS_MIN_ZOOM, or further when the
 * workflow is too large to fit at it, so that zooming out can always show
 * all of it, as Fit does. Level of detail keeps drawing it cheap. */
double
_sk_canvas_min_zoom (SkCanvas *self)
{
  graphene_rect_t content;
  double zoom;

  if (!_sk_canvas_content_rect (self, &content))
    return SK_CANVAS_MIN_ZOOM;

  zoom = fit_zoom (self, &content);
  if (zoom <= 0)
    return SK_CANVAS_MIN_ZOOM;

  return CLAMP (zoom, SK_CANVAS_LEAST_ZOOM, SK_CANVAS_MIN_ZOOM);
}

/* Zooms keeping the model point under (@x, @y) in place. */
void
_sk_canvas_zoom_around (SkCanvas *self,
                        double    zoom,
                        double    x,
                        double    y)
{
  double mx, my;

  zoom = CLAMP (zoom, MIN (self->zoom, _sk_canvas_min_zoom (self)), SK_CANVAS_MAX_ZOOM);
  self->auto_fit = FALSE;
  if (zoom == self->zoom)
    return;

  _sk_canvas_widget_to_model (self, x, y, &mx, &my);
  self->zoom = zoom;
  self->offset_x = x - mx * zoom;
  self->offset_y = y - my * zoom;

  _sk_canvas_invalidate_edges (self);
  _sk_canvas_update_actions (self);
  _sk_canvas_notify_zoom (self);
}

/* Moves the view; the user moved it, so it no longer follows the window's
 * size. */
void
_sk_canvas_pan_to (SkCanvas *self,
                   double    offset_x,
                   double    offset_y)
{
  self->auto_fit = FALSE;
  self->offset_x = offset_x;
  self->offset_y = offset_y;

  /* The tiles stay: they are drawn where the view puts them. */
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
_sk_canvas_fit_to_view (SkCanvas *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  graphene_rect_t content;
  graphene_point_t centre;
  double zoom;

  if (width <= 0 || height <= 0 || !_sk_canvas_content_rect (self, &content))
    return;

  /* However large the workflow, Fit shows all of it. */
  zoom = CLAMP (fit_zoom (self, &content), SK_CANVAS_LEAST_ZOOM, 1.0);
  graphene_rect_get_center (&content, &centre);
  self->zoom = zoom;
  self->offset_x = width / 2.0 - centre.x * zoom;
  self->offset_y = height / 2.0 - centre.y * zoom;

  _sk_canvas_invalidate_edges (self);
  _sk_canvas_update_actions (self);
  _sk_canvas_notify_zoom (self);
}

/* Fits now, or once the canvas has a size and the layout is done. */
void
_sk_canvas_request_fit (SkCanvas *self)
{
  if (gtk_widget_get_width (GTK_WIDGET (self)) > 0 && !self->arranging)
    _sk_canvas_fit_to_view (self);
  else
    self->fit_pending = TRUE;
}

/* Pans the view, if needed, so that @rect, in model coordinates, is fully
 * visible. */
void
_sk_canvas_scroll_to_rect (SkCanvas              *self,
                           const graphene_rect_t *rect)
{
  double x0, y0, x1, y1;
  int width, height;
  double dx = 0, dy = 0;
  const double margin = 24;

  width = gtk_widget_get_width (GTK_WIDGET (self));
  height = gtk_widget_get_height (GTK_WIDGET (self));
  if (width <= 0 || height <= 0)
    return;

  _sk_canvas_model_to_widget (self, rect->origin.x, rect->origin.y, &x0, &y0);
  _sk_canvas_model_to_widget (self, rect->origin.x + rect->size.width,
                              rect->origin.y + rect->size.height, &x1, &y1);

  /* What does not fit is shown from its top left corner. */
  if (x0 < margin || x1 - x0 > width - 2 * margin)
    dx = margin - x0;
  else if (x1 > width - margin)
    dx = (width - margin) - x1;
  if (y0 < margin || y1 - y0 > height - 2 * margin)
    dy = margin - y0;
  else if (y1 > height - margin)
    dy = (height - margin) - y1;

  if (dx != 0 || dy != 0)
    _sk_canvas_pan_to (self, self->offset_x + dx, self->offset_y + dy);
}

/* Pans the view, if needed, so that @item is fully visible. */
void
_sk_canvas_scroll_to_item (SkCanvas     *self,
                           SkCanvasItem *item)
{
  graphene_rect_t box;

  if (item == NULL)
    return;

  box = GRAPHENE_RECT_INIT (item->x - NODE_W / 2, item->y - NODE_H / 2, NODE_W, NODE_H);
  _sk_canvas_scroll_to_rect (self, &box);
}

/* Whether the box around the curve's control points, which holds the whole
 * curve, meets @view. */
gboolean
_sk_canvas_edge_visible (const double           p[8],
                         const graphene_rect_t *view)
{
  double x0 = MIN (MIN (p[0], p[2]), MIN (p[4], p[6]));
  double x1 = MAX (MAX (p[0], p[2]), MAX (p[4], p[6]));
  double y0 = MIN (MIN (p[1], p[3]), MIN (p[5], p[7]));
  double y1 = MAX (MAX (p[1], p[3]), MAX (p[5], p[7]));
  graphene_rect_t box = GRAPHENE_RECT_INIT (x0 - 10, y0 - 10, x1 - x0 + 20, y1 - y0 + 20);

  return graphene_rect_intersection (&box, view, NULL);
}

void
_sk_canvas_cubic_point (const double  p[8],
                        double        t,
                        double       *x,
                        double       *y)
{
  double u = 1 - t;

  *x = u * u * u * p[0] + 3 * u * u * t * p[2] + 3 * u * t * t * p[4] + t * t * t * p[6];
  *y = u * u * u * p[1] + 3 * u * u * t * p[3] + 3 * u * t * t * p[5] + t * t * t * p[7];
}

/* Hit testing */

SkNode *
_sk_canvas_node_at (SkCanvas *self,
                    double    x,
                    double    y)
{
  SkCanvasItem *item;
  double mx, my;

  _sk_canvas_widget_to_model (self, x, y, &mx, &my);

  /* While steps are dragged the grid would be made again for every move;
   * looking at all steps costs less then. The last drawn, which is on
   * top, is hit first. */
  if (self->drag == SK_CANVAS_DRAG_MOVE)
    {
      for (guint i = self->items->len; i > 0; i--)
        {
          item = g_ptr_array_index (self->items, i - 1);

          if (fabs (mx - item->x) <= NODE_W / 2 && fabs (my - item->y) <= NODE_H / 2)
            return item->node;
        }

      return NULL;
    }

  item = _sk_canvas_index_item_at (self, mx, my);

  return item != NULL ? item->node : NULL;
}
