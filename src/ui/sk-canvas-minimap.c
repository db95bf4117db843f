/* sk-canvas-minimap.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-canvas"

#include "config.h"

#include <glib/gi18n.h>

#include "sk-canvas-private.h"

/* The minimap: the whole workflow in a corner, each step a rectangle in
 * its state's colour, with a frame around what the view shows. It is shown
 * only while some of the workflow is out of view; a click or a drag in it
 * moves the view there.
 *
 * The canvas draws the map itself, in its own snapshot, since the map
 * changes whenever the view or the workflow does, and the canvas redraws
 * then anyway; the widget only takes the pointer. The rectangles are
 * kept as a picture until a step moves, and painted again only where a
 * step changes its state, so a frame of a 5,000-step workflow costs a loop
 * or two over the steps. */

#define MINIMAP_WIDTH  200
#define MINIMAP_HEIGHT 140
#define MINIMAP_PADDING 8.0
#define MINIMAP_MIN_BOX 1.5

#define SK_TYPE_CANVAS_MINIMAP (sk_canvas_minimap_get_type ())
G_DECLARE_FINAL_TYPE (SkCanvasMinimap, sk_canvas_minimap, SK, CANVAS_MINIMAP, GtkWidget)

struct _SkCanvasMinimap
{
  GtkWidget  parent_instance;

  SkCanvas  *canvas;
};

G_DEFINE_FINAL_TYPE (SkCanvasMinimap, sk_canvas_minimap, GTK_TYPE_WIDGET)

/* The map's transform: minimap = model × scale + offset. */
typedef struct
{
  double scale;
  double offset_x;
  double offset_y;
} MapTransform;

static gboolean
map_transform (SkCanvas     *self,
               MapTransform *transform)
{
  graphene_rect_t content;
  int width = gtk_widget_get_width (self->minimap);
  int height = gtk_widget_get_height (self->minimap);
  double scale;

  if (width <= 0 || height <= 0 || !_sk_canvas_content_rect (self, &content))
    return FALSE;

  scale = MIN ((width - 2 * MINIMAP_PADDING) / content.size.width,
               (height - 2 * MINIMAP_PADDING) / content.size.height);
  transform->scale = scale;
  transform->offset_x = width / 2.0 - (content.origin.x + content.size.width / 2) * scale;
  transform->offset_y = height / 2.0 - (content.origin.y + content.size.height / 2) * scale;

  return TRUE;
}

/* Whether some step is out of view, which is when the map is shown. */
gboolean
_sk_canvas_minimap_shown (SkCanvas *self)
{
  graphene_rect_t content;
  graphene_rect_t view;

  if (self->minimap == NULL || self->project == NULL ||
      !_sk_canvas_content_rect (self, &content))
    return FALSE;

  _sk_canvas_visible_model_rect (self, &view);

  /* The sides are compared one by one: in the window, with graphene 1.10.8,
   * graphene_rect_contains_rect() said no for a workflow well inside the
   * view, and the map showed over a workflow that fitted. */
  return content.origin.x < view.origin.x ||
         content.origin.y < view.origin.y ||
         content.origin.x + content.size.width > view.origin.x + view.size.width ||
         content.origin.y + content.size.height > view.origin.y + view.size.height;
}

static void
state_colour (SkNodeState  state,
              GdkRGBA     *colour)
{
  guint32 rgb;

  switch ((int) state)
    {
    case SK_NODE_STATE_SUCCEEDED:
    case SK_NODE_STATE_UP_TO_DATE:
      rgb = 0x2ec27e;
      break;
    case SK_NODE_STATE_FAILED:
      rgb = 0xe01b24;
      break;
    case SK_NODE_STATE_RUNNING:
    case SK_NODE_STATE_QUEUED:
      rgb = 0x3584e4;
      break;
    case SK_NODE_STATE_WRITING_CODE:
      rgb = 0x9141ac;
      break;
    case SK_NODE_STATE_STALE:
    case SK_NODE_STATE_CANCELLED:
      rgb = 0xe5a50a;
      break;
    default:
      rgb = 0x9a9996;
      break;
    }

  colour->red = ((rgb >> 16) & 0xff) / 255.f;
  colour->green = ((rgb >> 8) & 0xff) / 255.f;
  colour->blue = (rgb & 0xff) / 255.f;
  colour->alpha = 1;
}

/* A key that changes when where the rectangles are does: the map's
 * transform and the places of the steps, but not of those being dragged,
 * which are drawn over the map. */
static guint64
map_key (SkCanvas           *self,
         const MapTransform *transform)
{
  guint64 key = 14695981039346656037ull;
  double values[3] = { transform->scale, transform->offset_x, transform->offset_y };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    key = (key ^ (guint64) (values[i] * 1024)) * 1099511628211ull;

  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *item = g_ptr_array_index (self->items, i);

      if (item->moving)
        {
          key = (key ^ 0x9e3779b9u) * 1099511628211ull;
          continue;
        }
      key = (key ^ (guint64) (gint64) (item->x * 4)) * 1099511628211ull;
      key = (key ^ (guint64) (gint64) (item->y * 4)) * 1099511628211ull;
    }

  key = (key ^ (guint64) gtk_widget_get_scale_factor (GTK_WIDGET (self))) * 1099511628211ull;

  return key ^ self->items->len;
}

static graphene_rect_t
map_box (SkCanvasItem       *item,
         const MapTransform *transform)
{
  double w = MAX (MINIMAP_MIN_BOX, SK_CANVAS_NODE_WIDTH * transform->scale);
  double h = MAX (MINIMAP_MIN_BOX, SK_CANVAS_NODE_HEIGHT * transform->scale);

  return GRAPHENE_RECT_INIT (item->x * transform->scale + transform->offset_x - w / 2,
                             item->y * transform->scale + transform->offset_y - h / 2,
                             w, h);
}

static void
paint_box (cairo_t               *cr,
           SkCanvasItem          *item,
           const graphene_rect_t *box)
{
  GdkRGBA colour;

  state_colour (sk_node_get_state (item->node), &colour);
  gdk_cairo_set_source_rgba (cr, &colour);
  cairo_rectangle (cr, box->origin.x, box->origin.y, box->size.width, box->size.height);
  cairo_fill (cr);
}

static cairo_surface_t *
new_map_surface (SkCanvas *self,
                 int       width,
                 int       height)
{
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width * scale, height * scale);

  cairo_surface_set_device_scale (surface, scale, scale);
  return surface;
}

/* The map's rectangles are drawn with cairo into an image kept with the
 * state each step had, so that when steps change their state, as they do
 * in every frame of a run, only theirs are painted again, over a copy, and
 * those drawn after them that they overlap. */
static void
update_map (SkCanvas           *self,
            const MapTransform *transform,
            gboolean            rebuild)
{
  int width = gtk_widget_get_width (self->minimap);
  int height = gtk_widget_get_height (self->minimap);
  g_autoptr(GArray) changed = g_array_new (FALSE, FALSE, sizeof (guint));
  cairo_surface_t *surface;
  cairo_t *cr;

  if (self->minimap_states == NULL || self->minimap_states->len != self->items->len)
    rebuild = TRUE;

  if (!rebuild)
    {
      for (guint i = 0; i < self->items->len; i++)
        {
          SkCanvasItem *item = g_ptr_array_index (self->items, i);

          if (!item->moving && (SkNodeState) g_array_index (self->minimap_states, int, i) != sk_node_get_state (item->node))
            g_array_append_val (changed, i);
        }
      if (changed->len == 0 && self->minimap_cache != NULL)
        return;
    }

  surface = new_map_surface (self, width, height);
  cr = cairo_create (surface);

  if (rebuild || self->minimap_surface == NULL)
    {
      g_autoptr(GArray) states = g_array_sized_new (FALSE, FALSE, sizeof (int), self->items->len);

      for (guint i = 0; i < self->items->len; i++)
        {
          SkCanvasItem *item = g_ptr_array_index (self->items, i);
          graphene_rect_t box = map_box (item, transform);
          int state = sk_node_get_state (item->node);

          g_array_append_val (states, state);
          if (!item->moving)
            paint_box (cr, item, &box);
        }
      g_clear_pointer (&self->minimap_states, g_array_unref);
      self->minimap_states = g_steal_pointer (&states);
    }
  else
    {
      cairo_set_source_surface (cr, self->minimap_surface, 0, 0);
      cairo_set_operator (cr, CAIRO_OPERATOR_SOURCE);
      cairo_paint (cr);
      cairo_set_operator (cr, CAIRO_OPERATOR_OVER);

      for (guint k = 0; k < changed->len; k++)
        {
          guint i = g_array_index (changed, guint, k);
          SkCanvasItem *item = g_ptr_array_index (self->items, i);
          graphene_rect_t box = map_box (item, transform);

          g_array_index (self->minimap_states, int, i) = sk_node_get_state (item->node);
          paint_box (cr, item, &box);
          for (guint j = i + 1; j < self->items->len; j++)
            {
              SkCanvasItem *above = g_ptr_array_index (self->items, j);
              graphene_rect_t above_box = map_box (above, transform);

              if (!above->moving && graphene_rect_intersection (&box, &above_box, NULL))
                paint_box (cr, above, &above_box);
            }
        }
    }

  cairo_destroy (cr);
  g_clear_pointer (&self->minimap_surface, cairo_surface_destroy);
  self->minimap_surface = surface;
  g_clear_pointer (&self->minimap_cache, gsk_render_node_unref);
  self->minimap_cache = _sk_canvas_picture_node (self, surface, width, height);
}

/* The steps being dragged, over the map. */
static void
draw_moving (SkCanvas           *self,
             GtkSnapshot        *snapshot,
             const MapTransform *transform)
{
  if (self->drag != SK_CANVAS_DRAG_MOVE)
    return;

  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *item = g_ptr_array_index (self->items, i);
      graphene_rect_t box;
      GdkRGBA colour;

      if (!item->moving)
        continue;
      box = map_box (item, transform);
      state_colour (sk_node_get_state (item->node), &colour);
      gtk_snapshot_append_color (snapshot, &colour, &box);
    }
}

/* Draws the map where its widget is, in the canvas's coordinates. */
void
_sk_canvas_minimap_snapshot (SkCanvas    *self,
                             GtkSnapshot *snapshot)
{
  int width = gtk_widget_get_width (self->minimap);
  int height = gtk_widget_get_height (self->minimap);
  graphene_point_t origin;
  graphene_rect_t view;
  graphene_rect_t bounds = GRAPHENE_RECT_INIT (0, 0, width, height);
  GskRoundedRect outline;
  GdkRGBA background = { 0.5f, 0.5f, 0.5f, 0.18f };
  GdkRGBA frame = { 0x35 / 255.f, 0x84 / 255.f, 0xe4 / 255.f, 1 };
  GdkRGBA frame_fill = { 0x35 / 255.f, 0x84 / 255.f, 0xe4 / 255.f, 0.12f };
  const float frame_widths[4] = { 1.5f, 1.5f, 1.5f, 1.5f };
  const GdkRGBA frame_colours[4] = { frame, frame, frame, frame };
  MapTransform transform;
  guint64 key;

  if (!map_transform (self, &transform) ||
      !gtk_widget_compute_point (self->minimap, GTK_WIDGET (self), &GRAPHENE_POINT_INIT (0, 0), &origin))
    return;

  key = map_key (self, &transform);
  update_map (self, &transform, self->minimap_cache == NULL || key != self->minimap_key);
  self->minimap_key = key;

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &origin);

  gsk_rounded_rect_init_from_rect (&outline, &bounds, 8);
  gtk_snapshot_push_rounded_clip (snapshot, &outline);
  gtk_snapshot_append_color (snapshot, &background, &bounds);
  if (self->minimap_cache != NULL)
    gtk_snapshot_append_node (snapshot, self->minimap_cache);
  draw_moving (self, snapshot, &transform);

  _sk_canvas_visible_model_rect (self, &view);
  gsk_rounded_rect_init_from_rect (&outline,
                                   &GRAPHENE_RECT_INIT (view.origin.x * transform.scale + transform.offset_x,
                                                        view.origin.y * transform.scale + transform.offset_y,
                                                        view.size.width * transform.scale,
                                                        view.size.height * transform.scale),
                                   2);
  gtk_snapshot_append_color (snapshot, &frame_fill, &outline.bounds);
  gtk_snapshot_append_border (snapshot, &outline, frame_widths, frame_colours);

  gtk_snapshot_pop (snapshot);
  gtk_snapshot_restore (snapshot);
}

/* Centres the view on the point of the map at (@x, @y), in the map's
 * coordinates. */
void
_sk_canvas_minimap_move_view (SkCanvas *self,
                              double    x,
                              double    y)
{
  MapTransform transform;
  double mx, my;

  if (!map_transform (self, &transform))
    return;

  mx = (x - transform.offset_x) / transform.scale;
  my = (y - transform.offset_y) / transform.scale;
  _sk_canvas_pan_to (self,
                     gtk_widget_get_width (GTK_WIDGET (self)) / 2.0 - mx * self->zoom,
                     gtk_widget_get_height (GTK_WIDGET (self)) / 2.0 - my * self->zoom);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The widget */

static void
drag_begin_cb (SkCanvasMinimap *self,
               double           x,
               double           y,
               GtkGestureDrag  *gesture)
{
  /* The canvas below must not take the press for a click on it. */
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  _sk_canvas_minimap_move_view (self->canvas, x, y);
}

static void
drag_update_cb (SkCanvasMinimap *self,
                double           offset_x,
                double           offset_y,
                GtkGestureDrag  *gesture)
{
  double x, y;

  gtk_gesture_drag_get_start_point (gesture, &x, &y);
  _sk_canvas_minimap_move_view (self->canvas, x + offset_x, y + offset_y);
}

static gboolean
sk_canvas_minimap_contains (GtkWidget *widget,
                            double     x,
                            double     y)
{
  SkCanvasMinimap *self = SK_CANVAS_MINIMAP (widget);

  /* A hidden map lets the pointer through to the canvas. */
  return _sk_canvas_minimap_shown (self->canvas) &&
         GTK_WIDGET_CLASS (sk_canvas_minimap_parent_class)->contains (widget, x, y);
}

static void
sk_canvas_minimap_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  /* As wide as the canvas lets it be, up to its natural size, and always
   * of the same shape. */
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = MINIMAP_WIDTH / 3;
      *natural = MINIMAP_WIDTH;
    }
  else
    {
      int width = for_size > 0 ? for_size : MINIMAP_WIDTH;

      *minimum = *natural = width * MINIMAP_HEIGHT / MINIMAP_WIDTH;
    }
}

static GtkSizeRequestMode
sk_canvas_minimap_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
sk_canvas_minimap_class_init (SkCanvasMinimapClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  widget_class->get_request_mode = sk_canvas_minimap_get_request_mode;
  widget_class->contains = sk_canvas_minimap_contains;
  widget_class->measure = sk_canvas_minimap_measure;
  gtk_widget_class_set_css_name (widget_class, "minimap");
}

static void
sk_canvas_minimap_init (SkCanvasMinimap *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect_object (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-update", G_CALLBACK (drag_update_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "move");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), _("Click or drag to move the view"));
}

GtkWidget *
_sk_canvas_minimap_new (SkCanvas *canvas)
{
  SkCanvasMinimap *self = g_object_new (SK_TYPE_CANVAS_MINIMAP, NULL);

  self->canvas = canvas;

  return GTK_WIDGET (self);
}
