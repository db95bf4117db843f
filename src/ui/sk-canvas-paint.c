/* sk-canvas-paint.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-canvas"

#include "config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sk-canvas-private.h"

/* Painting, in layers: background and dot grid, the edges (kept as a
 * texture until the view or the graph changes), the connection being made
 * or selected, the steps culled to the view, with a plainer level of detail
 * when zoomed out, and the rubber band. */

#define NODE_W SK_CANVAS_NODE_WIDTH
#define NODE_H SK_CANVAS_NODE_HEIGHT
#define NODE_RADIUS 10.0
#define RING_GAP 4.0
#define RING_WIDTH 3.0
#define STRIPE_WIDTH 6.0
#define LABEL_PAD 16.0
#define LABEL_MIN_ZOOM 0.4
#define EDGE_SAMPLES 32

static gboolean
is_dark (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

static GdkRGBA
rgba (guint32 hex,
      float   alpha)
{
  GdkRGBA color = {
    ((hex >> 16) & 0xff) / 255.f,
    ((hex >> 8) & 0xff) / 255.f,
    (hex & 0xff) / 255.f,
    alpha,
  };

  return color;
}

/* The palette follows the GNOME human interface guidelines' named colours,
 * since GTK 4.8 offers no way to read a CSS colour for drawn content. */
static GdkRGBA
state_color (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_STALE:
      return rgba (0xe5a50a, 1);
    case SK_NODE_STATE_QUEUED:
      return rgba (0x99c1f1, 1);
    case SK_NODE_STATE_RUNNING:
      return rgba (0x3584e4, 1);
    case SK_NODE_STATE_WRITING_CODE:
      return rgba (0x9141ac, 1);
    case SK_NODE_STATE_SUCCEEDED:
      return rgba (0x2ec27e, 1);
    case SK_NODE_STATE_FAILED:
      return rgba (0xe01b24, 1);
    case SK_NODE_STATE_SKIPPED:
    case SK_NODE_STATE_CANCELLED:
      return rgba (0x9a9996, 1);
    case SK_NODE_STATE_UP_TO_DATE:
      return rgba (0x8ff0a4, 1);
    case SK_NODE_STATE_IDLE:
    default:
      return is_dark () ? rgba (0x5e5c64, 1) : rgba (0xc0bfbc, 1);
    }
}

const char *
_sk_canvas_state_label (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_STALE:
      return _("Needs to run again");
    case SK_NODE_STATE_QUEUED:
      return _("Waiting");
    case SK_NODE_STATE_RUNNING:
      return _("Running…");
    case SK_NODE_STATE_WRITING_CODE:
      return _("Writing code…");
    case SK_NODE_STATE_SUCCEEDED:
      return _("Succeeded");
    case SK_NODE_STATE_FAILED:
      return _("Failed");
    case SK_NODE_STATE_SKIPPED:
      return _("Skipped");
    case SK_NODE_STATE_CANCELLED:
      return _("Stopped");
    case SK_NODE_STATE_UP_TO_DATE:
      return _("Up to date");
    case SK_NODE_STATE_IDLE:
    default:
      return _("Not run yet");
    }
}

void
_sk_canvas_invalidate_edges (SkCanvas *self)
{
  g_clear_pointer (&self->edge_cache, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Labels: one layout per step, and one per state shared by all steps. */

static PangoLayout *
item_layout (SkCanvas     *self,
             SkCanvasItem *item)
{
  if (item->layout == NULL)
    {
      PangoAttrList *attrs = pango_attr_list_new ();

      pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
      item->layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), sk_node_get_name (item->node));
      pango_layout_set_attributes (item->layout, attrs);
      pango_layout_set_width (item->layout, (int) ((NODE_W - STRIPE_WIDTH - 2 * LABEL_PAD) * PANGO_SCALE));
      pango_layout_set_ellipsize (item->layout, PANGO_ELLIPSIZE_END);
      pango_attr_list_unref (attrs);
    }

  return item->layout;
}

static PangoLayout *
state_layout (SkCanvas    *self,
              SkNodeState  state)
{
  if (self->state_layouts[state] == NULL)
    {
      PangoAttrList *attrs = pango_attr_list_new ();

      pango_attr_list_insert (attrs, pango_attr_scale_new (PANGO_SCALE_SMALL));
      self->state_layouts[state] = gtk_widget_create_pango_layout (GTK_WIDGET (self), _sk_canvas_state_label (state));
      pango_layout_set_attributes (self->state_layouts[state], attrs);
      pango_layout_set_width (self->state_layouts[state], (int) ((NODE_W - STRIPE_WIDTH - 2 * LABEL_PAD) * PANGO_SCALE));
      pango_layout_set_ellipsize (self->state_layouts[state], PANGO_ELLIPSIZE_END);
      pango_attr_list_unref (attrs);
    }

  return self->state_layouts[state];
}

void
_sk_canvas_clear_text_caches (SkCanvas *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->state_layouts); i++)
    g_clear_object (&self->state_layouts[i]);
  for (guint i = 0; i < self->items->len; i++)
    g_clear_object (&((SkCanvasItem *) g_ptr_array_index (self->items, i))->layout);
}

/* Edges */

static void
path_edge (cairo_t      *cr,
           const double  p[8])
{
  double angle;
  const double size = 9;

  cairo_move_to (cr, p[0], p[1]);
  cairo_curve_to (cr, p[2], p[3], p[4], p[5], p[6], p[7]);

  angle = atan2 (p[7] - p[5], p[6] - p[4]);
  cairo_move_to (cr, p[6], p[7]);
  cairo_line_to (cr, p[6] - size * cos (angle - 0.45), p[7] - size * sin (angle - 0.45));
  cairo_move_to (cr, p[6], p[7]);
  cairo_line_to (cr, p[6] - size * cos (angle + 0.45), p[7] - size * sin (angle + 0.45));
}

/* Splits a cubic Bézier curve with de Casteljau's construction and keeps the
 * part before @t (@left) or after it. */
static void
cubic_split (const double  p[8],
             double        t,
             gboolean      left,
             double        out[8])
{
  for (guint c = 0; c < 2; c++)
    {
      double ab = p[c] + (p[2 + c] - p[c]) * t;
      double bc = p[2 + c] + (p[4 + c] - p[2 + c]) * t;
      double cd = p[4 + c] + (p[6 + c] - p[4 + c]) * t;
      double abc = ab + (bc - ab) * t;
      double bcd = bc + (cd - bc) * t;
      double mid = abc + (bcd - abc) * t;

      if (left)
        {
          out[c] = p[c];
          out[2 + c] = ab;
          out[4 + c] = abc;
          out[6 + c] = mid;
        }
      else
        {
          out[c] = mid;
          out[2 + c] = bcd;
          out[4 + c] = cd;
          out[6 + c] = p[6 + c];
        }
    }
}

/* Adds only the part of an edge that crosses @view. Cairo flattens and
 * strokes a curve over its whole length, so a long edge that merely passes
 * through the view would otherwise cost as much as if all of it were seen. */
static void
path_visible_edge (cairo_t               *cr,
                   const double           p[8],
                   const graphene_rect_t *view)
{
  int first = -1;
  int last = -1;
  double last_x = p[0];
  double last_y = p[1];
  double t0, t1;
  double part[8];
  double head[8];

  for (int k = 1; k <= EDGE_SAMPLES; k++)
    {
      double x, y;
      graphene_rect_t segment;

      _sk_canvas_cubic_point (p, (double) k / EDGE_SAMPLES, &x, &y);
      graphene_rect_init (&segment, MIN (x, last_x), MIN (y, last_y),
                          fabs (x - last_x) + 1, fabs (y - last_y) + 1);
      if (graphene_rect_intersection (&segment, view, NULL))
        {
          if (first < 0)
            first = k;
          last = k;
        }
      last_x = x;
      last_y = y;
    }

  if (first < 0)
    return;

  if (first == 1 && last == EDGE_SAMPLES)
    {
      path_edge (cr, p);
      return;
    }

  t0 = (double) (first - 1) / EDGE_SAMPLES;
  t1 = (double) last / EDGE_SAMPLES;
  cubic_split (p, t1, TRUE, head);
  if (t0 > 0)
    cubic_split (head, t0 / t1, FALSE, part);
  else
    memcpy (part, head, sizeof part);

  /* The arrowhead belongs to the end of the whole edge. */
  if (last == EDGE_SAMPLES)
    {
      path_edge (cr, part);
      return;
    }

  cairo_move_to (cr, part[0], part[1]);
  cairo_curve_to (cr, part[2], part[3], part[4], part[5], part[6], part[7]);
}

/* Edges are drawn in widget coordinates, with the zoom applied to the
 * cairo context, because GTK 4.8 misplaces cairo content on a snapshot that
 * is both scaled and translated. They are drawn into an image once and kept
 * as a texture: a cairo node only records the drawing, and the cairo
 * renderer would stroke every edge again in each frame. */
static GskRenderNode *
build_edge_layer (SkCanvas              *self,
                  const graphene_rect_t *view)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  GdkRGBA color = is_dark () ? rgba (0x9a9996, 1) : rgba (0x77767b, 1);
  g_autoptr(GdkTexture) texture = NULL;
  GBytes *bytes;
  cairo_surface_t *surface;
  cairo_t *cr;
  graphene_rect_t near;
  double margin;

  if (width <= 0 || height <= 0)
    return gsk_container_node_new (NULL, 0);

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width * scale, height * scale);
  cairo_surface_set_device_scale (surface, scale, scale);
  cr = cairo_create (surface);
  cairo_translate (cr, self->offset_x, self->offset_y);
  cairo_scale (cr, self->zoom, self->zoom);
  cairo_set_line_width (cr, MAX (1.5, 1.0 / self->zoom));
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  gdk_cairo_set_source_rgba (cr, &color);

  /* The margin keeps arrowheads and line ends just outside the view whole. */
  margin = 12 + 2 / self->zoom;
  graphene_rect_inset_r (view, -margin, -margin, &near);

  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *to = g_ptr_array_index (self->items, i);
      const char * const *priors = sk_node_get_priors (to->node);

      for (guint j = 0; priors != NULL && priors[j] != NULL; j++)
        {
          SkCanvasItem *from = _sk_canvas_lookup_item (self, sk_project_get_node (self->project, priors[j]));
          double p[8];

          if (from == NULL)
            continue;
          _sk_canvas_edge_points (from, to, p);
          if (!_sk_canvas_edge_visible (p, &near))
            continue;

          /* Zoomed far out, where curves and arrowheads are a few pixels
           * long, straight lines show the same and cost far less. */
          if (self->zoom < LABEL_MIN_ZOOM)
            {
              cairo_move_to (cr, p[0], p[1]);
              cairo_line_to (cr, p[6], p[7]);
            }
          else
            path_visible_edge (cr, p, &near);

          /* One stroke per edge: cairo rasterises many small paths faster
           * than one path made of thousands of crossing pieces. */
          cairo_stroke (cr);
        }
    }

  cairo_stroke (cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  /* Cairo's ARGB32 is GDK_MEMORY_DEFAULT; the texture keeps the surface. */
  bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface),
                                      (gsize) cairo_image_surface_get_stride (surface) * height * scale,
                                      (GDestroyNotify) cairo_surface_destroy,
                                      surface);
  texture = gdk_memory_texture_new (width * scale, height * scale, GDK_MEMORY_DEFAULT,
                                    bytes, cairo_image_surface_get_stride (surface));
  g_bytes_unref (bytes);

  return gsk_texture_node_new (texture, &GRAPHENE_RECT_INIT (0, 0, width, height));
}

/* The selected connection, and the one being made, which follows the
 * pointer. */
static void
draw_overlay_edges (SkCanvas    *self,
                    GtkSnapshot *snapshot)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  GdkRGBA accent = rgba (0x3584e4, 1);
  SkCanvasItem *source = _sk_canvas_lookup_item (self, self->connect.source);
  SkCanvasItem *edge_from = _sk_canvas_lookup_item (self, self->edge_prior);
  SkCanvasItem *edge_to = _sk_canvas_lookup_item (self, self->edge_node);
  gboolean pointer_inside = self->hover.inside;
  cairo_t *cr;

  if ((source == NULL || !pointer_inside) && (edge_from == NULL || edge_to == NULL))
    return;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  cairo_translate (cr, self->offset_x, self->offset_y);
  cairo_scale (cr, self->zoom, self->zoom);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  gdk_cairo_set_source_rgba (cr, &accent);

  if (edge_from != NULL && edge_to != NULL)
    {
      double p[8];

      _sk_canvas_edge_points (edge_from, edge_to, p);
      cairo_set_line_width (cr, MAX (3.5, 2.0 / self->zoom));
      path_edge (cr, p);
      cairo_stroke (cr);
    }

  if (source != NULL && pointer_inside)
    {
      double mx, my;
      double dashes[] = { 6.0, 4.0 };

      _sk_canvas_widget_to_model (self, self->hover.x, self->hover.y, &mx, &my);
      cairo_set_line_width (cr, MAX (2.0, 1.0 / self->zoom));
      cairo_set_dash (cr, dashes, 2, 0);
      cairo_move_to (cr, source->x, source->y + NODE_H / 2);
      cairo_line_to (cr, mx, my);
      cairo_stroke (cr);
    }

  cairo_destroy (cr);
}

/* Steps */

static void
append_rounded_border (GtkSnapshot           *snapshot,
                       const graphene_rect_t *rect,
                       double                 radius,
                       double                 width,
                       const GdkRGBA         *color)
{
  GskRoundedRect rounded;
  const float widths[4] = { width, width, width, width };
  const GdkRGBA colors[4] = { *color, *color, *color, *color };

  gsk_rounded_rect_init_from_rect (&rounded, rect, radius);
  gtk_snapshot_append_border (snapshot, &rounded, widths, colors);
}

/* Zoomed far out a step is a few pixels wide: flat rectangles show its state,
 * run mark and selection as well as rounded, clipped and bordered ones, at a
 * fraction of the cost. */
static void
draw_node_flat (SkCanvas     *self,
                GtkSnapshot  *snapshot,
                SkCanvasItem *item,
                gboolean      selected)
{
  gboolean dark = is_dark ();
  graphene_rect_t rect = GRAPHENE_RECT_INIT (item->x - NODE_W / 2, item->y - NODE_H / 2, NODE_W, NODE_H);
  GdkRGBA fill = dark ? rgba (0x3a3a3a, 1) : rgba (0xffffff, 1);
  GdkRGBA stripe = state_color (sk_node_get_state (item->node));
  GdkRGBA outline;
  graphene_rect_t outer;
  double grow = 0;

  if (selected || item->node == self->connect.source)
    {
      outline = rgba (0x3584e4, 1);
      grow = RING_GAP + RING_WIDTH;
    }
  else if (sk_node_get_run (item->node))
    {
      outline = rgba (0x2ec27e, 1);
      grow = RING_GAP + RING_WIDTH;
    }
  else
    {
      outline = dark ? rgba (0x5e5c64, 1) : rgba (0xc0bfbc, 1);
      grow = 1 / self->zoom;
    }

  graphene_rect_inset_r (&rect, -grow, -grow, &outer);
  gtk_snapshot_append_color (snapshot, &outline, &outer);
  gtk_snapshot_append_color (snapshot, &fill, &rect);
  gtk_snapshot_append_color (snapshot, &stripe,
                             &GRAPHENE_RECT_INIT (rect.origin.x, rect.origin.y, STRIPE_WIDTH * 3, NODE_H));
}

static void
draw_node (SkCanvas     *self,
           GtkSnapshot  *snapshot,
           SkCanvasItem *item,
           gboolean      selected)
{
  SkNodeState state = sk_node_get_state (item->node);
  gboolean dark = is_dark ();
  graphene_rect_t rect = GRAPHENE_RECT_INIT (item->x - NODE_W / 2, item->y - NODE_H / 2, NODE_W, NODE_H);
  GdkRGBA fill = dark ? rgba (0x3a3a3a, 1) : rgba (0xffffff, 1);
  GdkRGBA border = dark ? rgba (0x5e5c64, 1) : rgba (0xc0bfbc, 1);
  GdkRGBA text = dark ? rgba (0xffffff, 1) : rgba (0x241f31, 1);
  GdkRGBA dim = dark ? rgba (0xffffff, 0.7f) : rgba (0x241f31, 0.7f);
  GdkRGBA accent = rgba (0x3584e4, 1);
  GdkRGBA stripe = state_color (state);
  GskRoundedRect rounded;
  PangoLayout *name;
  PangoLayout *status;

  if (item->node == self->hover.node && !selected)
    fill = dark ? rgba (0x454545, 1) : rgba (0xf6f5f4, 1);

  if (sk_node_get_run (item->node))
    {
      GdkRGBA ring = rgba (0x2ec27e, 1);
      graphene_rect_t outer;

      graphene_rect_inset_r (&rect, -(RING_GAP + RING_WIDTH), -(RING_GAP + RING_WIDTH), &outer);
      append_rounded_border (snapshot, &outer, NODE_RADIUS + RING_GAP + RING_WIDTH, RING_WIDTH, &ring);
    }

  gsk_rounded_rect_init_from_rect (&rounded, &rect, NODE_RADIUS);
  gtk_snapshot_push_rounded_clip (snapshot, &rounded);
  gtk_snapshot_append_color (snapshot, &fill, &rect);
  gtk_snapshot_append_color (snapshot, &stripe,
                             &GRAPHENE_RECT_INIT (rect.origin.x, rect.origin.y, STRIPE_WIDTH, NODE_H));

  if (_sk_canvas_state_is_busy (state))
    {
      /* A segment sliding along the bottom edge shows that the step works. */
      double phase = fmod (self->frame_time / 1e6, 1.2) / 1.2;
      double bar = NODE_W * 0.3;
      double x = rect.origin.x - bar + phase * (NODE_W + bar);

      gtk_snapshot_append_color (snapshot, &stripe,
                                 &GRAPHENE_RECT_INIT (x, rect.origin.y + NODE_H - 4, bar, 4));
    }
  gtk_snapshot_pop (snapshot);

  if (selected)
    append_rounded_border (snapshot, &rect, NODE_RADIUS, 2.5, &accent);
  else
    append_rounded_border (snapshot, &rect, NODE_RADIUS, 1, &border);

  if (item->node == self->connect.source)
    {
      graphene_rect_t outer;

      graphene_rect_inset_r (&rect, -2, -2, &outer);
      append_rounded_border (snapshot, &outer, NODE_RADIUS + 2, 2, &accent);
    }

  name = item_layout (self, item);
  status = state_layout (self, state);

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot,
                          &GRAPHENE_POINT_INIT (rect.origin.x + STRIPE_WIDTH + LABEL_PAD,
                                                rect.origin.y + 10));
  gtk_snapshot_append_layout (snapshot, name, &text);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (0, 22));
  gtk_snapshot_append_layout (snapshot, status, &dim);
  gtk_snapshot_restore (snapshot);
}

static void
draw_rubber_band (SkCanvas    *self,
                  GtkSnapshot *snapshot)
{
  const SkCanvasRubberBand *rubber = &self->rubber;
  double mx0, my0;
  GdkRGBA fill = rgba (0x3584e4, 0.15f);
  GdkRGBA edge = rgba (0x3584e4, 0.8f);
  graphene_rect_t rect;

  _sk_canvas_widget_to_model (self,
                              MIN (rubber->x0, rubber->x1), MIN (rubber->y0, rubber->y1),
                              &mx0, &my0);
  rect = GRAPHENE_RECT_INIT (mx0, my0,
                             fabs (rubber->x1 - rubber->x0) / self->zoom,
                             fabs (rubber->y1 - rubber->y0) / self->zoom);
  gtk_snapshot_append_color (snapshot, &fill, &rect);
  append_rounded_border (snapshot, &rect, 0, 1 / self->zoom, &edge);
}

void
_sk_canvas_snapshot (GtkWidget   *widget,
                     GtkSnapshot *snapshot)
{
  SkCanvas *self = SK_CANVAS (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  gboolean dark = is_dark ();
  GdkRGBA background = dark ? rgba (0x242424, 1) : rgba (0xfafafa, 1);
  GdkRGBA dot = dark ? rgba (0xffffff, 0.08f) : rgba (0x000000, 0.08f);
  g_autoptr(GtkBitset) selected = NULL;
  graphene_rect_t view;
  gboolean labels = self->zoom >= LABEL_MIN_ZOOM;

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gtk_snapshot_append_color (snapshot, &background, &GRAPHENE_RECT_INIT (0, 0, width, height));

  /* A sparse dot grid gives panning and zooming something to follow. */
  if (self->zoom >= 0.5)
    {
      double step = 40 * self->zoom;
      double x0 = fmod (self->offset_x, step);
      double y0 = fmod (self->offset_y, step);

      if (x0 < 0)
        x0 += step;
      if (y0 < 0)
        y0 += step;
      for (double x = x0; x < width; x += step)
        for (double y = y0; y < height; y += step)
          gtk_snapshot_append_color (snapshot, &dot, &GRAPHENE_RECT_INIT (x - 1, y - 1, 2, 2));
    }

  if (self->project == NULL)
    {
      gtk_snapshot_pop (snapshot);
      return;
    }

  _sk_canvas_visible_model_rect (self, &view);

  if (self->edge_cache == NULL)
    self->edge_cache = build_edge_layer (self, &view);
  gtk_snapshot_append_node (snapshot, self->edge_cache);
  draw_overlay_edges (self, snapshot);

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (self->offset_x, self->offset_y));
  gtk_snapshot_scale (snapshot, self->zoom, self->zoom);

  /* Item i is the selection model's item i. */
  if (self->selection != NULL)
    selected = gtk_selection_model_get_selection (self->selection);
  else
    selected = gtk_bitset_new_empty ();

  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *item = g_ptr_array_index (self->items, i);
      double margin = RING_GAP + RING_WIDTH;
      graphene_rect_t box = GRAPHENE_RECT_INIT (item->x - NODE_W / 2 - margin,
                                                item->y - NODE_H / 2 - margin,
                                                NODE_W + 2 * margin,
                                                NODE_H + 2 * margin);

      if (graphene_rect_intersection (&box, &view, NULL))
        {
          if (labels)
            draw_node (self, snapshot, item, gtk_bitset_contains (selected, i));
          else
            draw_node_flat (self, snapshot, item, gtk_bitset_contains (selected, i));
        }
    }

  if (self->drag == SK_CANVAS_DRAG_RUBBER)
    draw_rubber_band (self, snapshot);

  gtk_snapshot_restore (snapshot);
  gtk_snapshot_pop (snapshot);
}
