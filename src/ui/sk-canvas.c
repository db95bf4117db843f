/* sk-canvas.c
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
#include "sk-layout.h"

#define NODE_W SK_CANVAS_NODE_WIDTH
#define NODE_H SK_CANVAS_NODE_HEIGHT
#define NODE_RADIUS 10.0
#define RING_GAP 4.0
#define RING_WIDTH 3.0
#define STRIPE_WIDTH 6.0
#define LABEL_PAD 16.0
#define MIN_ZOOM 0.2
#define MAX_ZOOM 4.0
#define ZOOM_STEP 1.2
#define LABEL_MIN_ZOOM 0.4
#define DRAG_THRESHOLD 3.0
#define EDGE_TOLERANCE 6.0
#define NUDGE 16.0
#define WHEEL_STEP 48.0
#define GRID_COLUMNS 6
#define GRID_DX 220.0
#define GRID_DY 110.0

typedef struct
{
  SkNode      *node;
  double       x;
  double       y;
  PangoLayout *layout;
  gboolean     busy;
} Item;

typedef enum
{
  DRAG_NONE,
  DRAG_PENDING_MOVE,
  DRAG_MOVE,
  DRAG_RUBBER,
  DRAG_PAN,
} DragMode;

typedef struct
{
  SkNode *node;
  double  x;
  double  y;
} Origin;

struct _SkCanvas
{
  GtkWidget      parent_instance;

  SkProject     *project;
  SkHistory     *history;

  GPtrArray     *items;
  GHashTable    *by_node;
  GHashTable    *selection;
  SkNode        *focus;
  SkNode        *hover;
  SkNode        *connect_source;
  SkNode        *edge_prior;
  SkNode        *edge_node;

  double         zoom;
  double         offset_x;
  double         offset_y;
  gboolean       fit_pending;
  gboolean       auto_fit;

  DragMode       drag_mode;
  double         drag_x;
  double         drag_y;
  double         pan_offset_x;
  double         pan_offset_y;
  GArray        *origins;
  double         rubber_x1;
  double         rubber_y1;
  gboolean       rubber_extend;

  double         pointer_x;
  double         pointer_y;
  gboolean       pointer_inside;

  GskRenderNode *edge_cache;
  PangoLayout   *state_layouts[SK_NODE_STATE_WRITING_CODE + 1];

  guint          tick_id;
  guint          n_busy;
  gint64         frame_time;

  GtkWidget     *popover;
  double         popover_x;
  double         popover_y;

  GCancellable  *layout_cancellable;
  gboolean       arranging;
};

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_HISTORY,
  PROP_SELECTED_NODE,
  PROP_ZOOM,
  N_PROPS
};

enum {
  NODE_CREATED,
  NODE_ACTIVATED,
  EDIT_NODE,
  EDIT_PROCESS,
  MESSAGE,
  SELECTION_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (SkCanvas, sk_canvas, GTK_TYPE_WIDGET)

static void arrange     (SkCanvas *self,
                         gboolean  record);
static void request_fit (SkCanvas *self);

static void
item_free (gpointer data)
{
  Item *item = data;

  g_clear_object (&item->layout);
  g_clear_object (&item->node);
  g_free (item);
}

static Item *
lookup_item (SkCanvas *self,
             SkNode   *node)
{
  if (node == NULL)
    return NULL;

  return g_hash_table_lookup (self->by_node, node);
}

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

static const char *
state_label (SkNodeState state)
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

/* Steps that are at work, running or having their code written, are
 * animated. */
static gboolean
state_is_busy (SkNodeState state)
{
  return state == SK_NODE_STATE_RUNNING || state == SK_NODE_STATE_WRITING_CODE;
}

/* View transform: widget = model × zoom + offset. */

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

static void
visible_model_rect (SkCanvas        *self,
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

static void
invalidate_edges (SkCanvas *self)
{
  g_clear_pointer (&self->edge_cache, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
update_actions (SkCanvas *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean has_project = self->project != NULL;
  gboolean has_focus = self->focus != NULL;
  gboolean has_selection = g_hash_table_size (self->selection) > 0 || self->edge_prior != NULL;

  gtk_widget_action_set_enabled (widget, "canvas.add-step", has_project);
  gtk_widget_action_set_enabled (widget, "canvas.delete", has_selection);
  gtk_widget_action_set_enabled (widget, "canvas.connect", has_focus);
  gtk_widget_action_set_enabled (widget, "canvas.toggle-run", has_selection);
  gtk_widget_action_set_enabled (widget, "canvas.toggle-all", has_project && self->items->len > 0);
  gtk_widget_action_set_enabled (widget, "canvas.select-all", has_project && self->items->len > 0);
  gtk_widget_action_set_enabled (widget, "canvas.activate", has_focus);
  gtk_widget_action_set_enabled (widget, "canvas.properties", has_focus);
  gtk_widget_action_set_enabled (widget, "canvas.menu", has_focus);
  gtk_widget_action_set_enabled (widget, "canvas.zoom-in", self->zoom < MAX_ZOOM - 1e-6);
  gtk_widget_action_set_enabled (widget, "canvas.zoom-out", self->zoom > MIN_ZOOM + 1e-6);
  gtk_widget_action_set_enabled (widget, "canvas.zoom-reset", fabs (self->zoom - 1.0) > 1e-6);
  gtk_widget_action_set_enabled (widget, "canvas.zoom-fit", has_project && self->items->len > 0);
}

static void
update_accessible (SkCanvas *self)
{
  g_autofree char *description = NULL;

  if (self->focus != NULL)
    description = g_strdup_printf (_("Selected step: %s, %s"),
                                   sk_node_get_name (self->focus),
                                   state_label (sk_node_get_state (self->focus)));
  else
    description = g_strdup (_("No step selected"));

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
}

static void
selection_changed (SkCanvas *self)
{
  update_actions (self);
  update_accessible (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals [SELECTION_CHANGED], 0);
}

static void
set_focus_node (SkCanvas *self,
                SkNode   *node)
{
  if (self->focus == node)
    return;

  self->focus = node;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SELECTED_NODE]);
}

static void
clear_edge_selection (SkCanvas *self)
{
  self->edge_prior = NULL;
  self->edge_node = NULL;
}

static void
select_only (SkCanvas *self,
             SkNode   *node)
{
  g_hash_table_remove_all (self->selection);
  clear_edge_selection (self);
  if (node != NULL)
    g_hash_table_add (self->selection, node);
  set_focus_node (self, node);
  selection_changed (self);
}

static void
history_begin (SkCanvas   *self,
               const char *label)
{
  if (self->history != NULL)
    sk_history_begin (self->history, label);
}

static void
history_end (SkCanvas *self)
{
  if (self->history != NULL)
    sk_history_end (self->history);
}

static void
emit_message (SkCanvas   *self,
              const char *message)
{
  g_signal_emit (self, signals [MESSAGE], 0, message);
}

/* Model observation */

static void
grid_position (guint   index,
               double *x,
               double *y)
{
  *x = (index % GRID_COLUMNS) * GRID_DX;
  *y = (index / GRID_COLUMNS) * GRID_DY;
}

static void
sync_item_position (SkCanvas *self,
                    Item     *item,
                    guint     index)
{
  if (!sk_node_get_position (item->node, &item->x, &item->y))
    grid_position (index, &item->x, &item->y);
}

static void set_item_busy (SkCanvas *self,
                           Item     *item,
                           gboolean  busy);

static void
node_notify_cb (SkCanvas   *self,
                GParamSpec *pspec,
                SkNode     *node)
{
  Item *item = lookup_item (self, node);
  const char *name = pspec->name;

  if (item == NULL)
    return;

  if (g_str_equal (name, "x") || g_str_equal (name, "y") || g_str_equal (name, "has-position"))
    {
      guint index = 0;

      if (!sk_node_get_position (node, &item->x, &item->y))
        {
          g_ptr_array_find (self->items, item, &index);
          grid_position (index, &item->x, &item->y);
        }
      invalidate_edges (self);
    }
  else if (g_str_equal (name, "name"))
    {
      g_clear_object (&item->layout);
      if (node == self->focus)
        update_accessible (self);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  else if (g_str_equal (name, "priors"))
    {
      if (self->edge_node == node && !sk_node_has_prior (node, sk_node_get_id (self->edge_prior)))
        {
          clear_edge_selection (self);
          update_actions (self);
        }
      invalidate_edges (self);
    }
  else if (g_str_equal (name, "state") || g_str_equal (name, "run"))
    {
      set_item_busy (self, item, state_is_busy (sk_node_get_state (node)));
      if (node == self->focus)
        update_accessible (self);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *frame_clock,
         gpointer       user_data)
{
  SkCanvas *self = SK_CANVAS (widget);

  self->frame_time = gdk_frame_clock_get_frame_time (frame_clock);
  gtk_widget_queue_draw (widget);

  return G_SOURCE_CONTINUE;
}

static void
set_item_busy (SkCanvas *self,
               Item     *item,
               gboolean  busy)
{
  if (item->busy == busy)
    return;

  item->busy = busy;
  if (busy)
    self->n_busy++;
  else
    self->n_busy--;

  /* Running steps are animated only while there are any, so an idle canvas
   * draws nothing between events. */
  if (self->n_busy > 0 && self->tick_id == 0)
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), tick_cb, NULL, NULL);
  else if (self->n_busy == 0 && self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
}

static void
add_item (SkCanvas *self,
          SkNode   *node,
          guint     index)
{
  Item *item = g_new0 (Item, 1);

  item->node = g_object_ref (node);
  sync_item_position (self, item, index);
  g_ptr_array_insert (self->items, index, item);
  g_hash_table_insert (self->by_node, node, item);

  g_signal_connect_object (node, "notify", G_CALLBACK (node_notify_cb), self, G_CONNECT_SWAPPED);
  set_item_busy (self, item, state_is_busy (sk_node_get_state (node)));
}

static void
remove_item (SkCanvas *self,
             Item     *item)
{
  SkNode *node = item->node;

  set_item_busy (self, item, FALSE);
  g_signal_handlers_disconnect_by_data (node, self);

  g_hash_table_remove (self->selection, node);
  if (self->hover == node)
    self->hover = NULL;
  if (self->connect_source == node)
    self->connect_source = NULL;
  if (self->edge_prior == node || self->edge_node == node)
    clear_edge_selection (self);
  if (self->drag_mode == DRAG_MOVE || self->drag_mode == DRAG_PENDING_MOVE)
    {
      for (guint i = 0; i < self->origins->len; i++)
        if (g_array_index (self->origins, Origin, i).node == node)
          g_array_index (self->origins, Origin, i).node = NULL;
    }
  if (self->focus == node)
    set_focus_node (self, NULL);

  g_hash_table_remove (self->by_node, node);
  g_ptr_array_remove (self->items, item);
}

static void
items_changed_cb (SkCanvas   *self,
                  guint       position,
                  guint       removed,
                  guint       added,
                  GListModel *model)
{
  for (guint i = 0; i < removed; i++)
    remove_item (self, g_ptr_array_index (self->items, position));

  for (guint i = 0; i < added; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (model, position + i);

      add_item (self, node, position + i);
    }

  invalidate_edges (self);
  selection_changed (self);
}

/* Stops a drag without finishing it. Moving steps keeps a history group
 * open until the drag ends; when the workflow or the history is replaced
 * first, the group must be closed on the history that opened it, not on the
 * next one. */
static void
abandon_drag (SkCanvas *self)
{
  if (self->drag_mode == DRAG_MOVE)
    history_end (self);
  self->drag_mode = DRAG_NONE;
  g_array_set_size (self->origins, 0);
}

static void
disconnect_project (SkCanvas *self)
{
  if (self->project == NULL)
    return;

  abandon_drag (self);

  g_cancellable_cancel (self->layout_cancellable);
  g_clear_object (&self->layout_cancellable);
  self->arranging = FALSE;

  g_signal_handlers_disconnect_by_data (self->project, self);
  while (self->items->len > 0)
    remove_item (self, g_ptr_array_index (self->items, self->items->len - 1));
  g_clear_object (&self->project);
}

static gboolean
project_needs_layout (SkProject *project)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (project));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (!sk_node_get_position (node, NULL, NULL))
        return TRUE;
    }

  return FALSE;
}

/* Drawing */

static PangoLayout *
item_layout (SkCanvas *self,
             Item     *item)
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
      self->state_layouts[state] = gtk_widget_create_pango_layout (GTK_WIDGET (self), state_label (state));
      pango_layout_set_attributes (self->state_layouts[state], attrs);
      pango_layout_set_width (self->state_layouts[state], (int) ((NODE_W - STRIPE_WIDTH - 2 * LABEL_PAD) * PANGO_SCALE));
      pango_layout_set_ellipsize (self->state_layouts[state], PANGO_ELLIPSIZE_END);
      pango_attr_list_unref (attrs);
    }

  return self->state_layouts[state];
}

static void
clear_text_caches (SkCanvas *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->state_layouts); i++)
    g_clear_object (&self->state_layouts[i]);
  for (guint i = 0; i < self->items->len; i++)
    g_clear_object (&((Item *) g_ptr_array_index (self->items, i))->layout);
}

static void
edge_points (Item   *from,
             Item   *to,
             double  p[8])
{
  double dy;

  p[0] = from->x;
  p[1] = from->y + NODE_H / 2;
  p[6] = to->x;
  p[7] = to->y - NODE_H / 2 - 2;
  dy = MAX (40.0, fabs (p[7] - p[1]) / 2);
  p[2] = p[0];
  p[3] = p[1] + dy;
  p[4] = p[6];
  p[5] = p[7] - dy;
}

static gboolean
edge_visible (const double           p[8],
              const graphene_rect_t *view)
{
  double x0 = MIN (MIN (p[0], p[2]), MIN (p[4], p[6]));
  double x1 = MAX (MAX (p[0], p[2]), MAX (p[4], p[6]));
  double y0 = MIN (MIN (p[1], p[3]), MIN (p[5], p[7]));
  double y1 = MAX (MAX (p[1], p[3]), MAX (p[5], p[7]));
  graphene_rect_t box = GRAPHENE_RECT_INIT (x0 - 10, y0 - 10, x1 - x0 + 20, y1 - y0 + 20);

  return graphene_rect_intersection (&box, view, NULL);
}

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

#define EDGE_SAMPLES 32

static void
cubic_point (const double  p[8],
             double        t,
             double       *x,
             double       *y)
{
  double u = 1 - t;

  *x = u * u * u * p[0] + 3 * u * u * t * p[2] + 3 * u * t * t * p[4] + t * t * t * p[6];
  *y = u * u * u * p[1] + 3 * u * u * t * p[3] + 3 * u * t * t * p[5] + t * t * t * p[7];
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

      cubic_point (p, (double) k / EDGE_SAMPLES, &x, &y);
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
      Item *to = g_ptr_array_index (self->items, i);
      const char * const *priors = sk_node_get_priors (to->node);

      for (guint j = 0; priors != NULL && priors[j] != NULL; j++)
        {
          Item *from = lookup_item (self, sk_project_get_node (self->project, priors[j]));
          double p[8];

          if (from == NULL)
            continue;
          edge_points (from, to, p);
          if (!edge_visible (p, &near))
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

static void
draw_overlay_edges (SkCanvas    *self,
                    GtkSnapshot *snapshot)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  GdkRGBA accent = rgba (0x3584e4, 1);
  Item *source = lookup_item (self, self->connect_source);
  Item *edge_from = lookup_item (self, self->edge_prior);
  Item *edge_to = lookup_item (self, self->edge_node);
  cairo_t *cr;

  if ((source == NULL || !self->pointer_inside) && (edge_from == NULL || edge_to == NULL))
    return;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  cairo_translate (cr, self->offset_x, self->offset_y);
  cairo_scale (cr, self->zoom, self->zoom);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  gdk_cairo_set_source_rgba (cr, &accent);

  if (edge_from != NULL && edge_to != NULL)
    {
      double p[8];

      edge_points (edge_from, edge_to, p);
      cairo_set_line_width (cr, MAX (3.5, 2.0 / self->zoom));
      path_edge (cr, p);
      cairo_stroke (cr);
    }

  if (source != NULL && self->pointer_inside)
    {
      double mx, my;
      double dashes[] = { 6.0, 4.0 };

      _sk_canvas_widget_to_model (self, self->pointer_x, self->pointer_y, &mx, &my);
      cairo_set_line_width (cr, MAX (2.0, 1.0 / self->zoom));
      cairo_set_dash (cr, dashes, 2, 0);
      cairo_move_to (cr, source->x, source->y + NODE_H / 2);
      cairo_line_to (cr, mx, my);
      cairo_stroke (cr);
    }

  cairo_destroy (cr);
}

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
draw_node_flat (SkCanvas    *self,
                GtkSnapshot *snapshot,
                Item        *item)
{
  gboolean dark = is_dark ();
  graphene_rect_t rect = GRAPHENE_RECT_INIT (item->x - NODE_W / 2, item->y - NODE_H / 2, NODE_W, NODE_H);
  GdkRGBA fill = dark ? rgba (0x3a3a3a, 1) : rgba (0xffffff, 1);
  GdkRGBA stripe = state_color (sk_node_get_state (item->node));
  GdkRGBA outline;
  graphene_rect_t outer;
  double grow = 0;

  if (g_hash_table_contains (self->selection, item->node) || item->node == self->connect_source)
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
draw_node (SkCanvas    *self,
           GtkSnapshot *snapshot,
           Item        *item,
           gboolean     labels)
{
  SkNodeState state = sk_node_get_state (item->node);
  gboolean dark = is_dark ();
  gboolean selected = g_hash_table_contains (self->selection, item->node);
  graphene_rect_t rect = GRAPHENE_RECT_INIT (item->x - NODE_W / 2, item->y - NODE_H / 2, NODE_W, NODE_H);
  GdkRGBA fill = dark ? rgba (0x3a3a3a, 1) : rgba (0xffffff, 1);
  GdkRGBA border = dark ? rgba (0x5e5c64, 1) : rgba (0xc0bfbc, 1);
  GdkRGBA text = dark ? rgba (0xffffff, 1) : rgba (0x241f31, 1);
  GdkRGBA dim = dark ? rgba (0xffffff, 0.7f) : rgba (0x241f31, 0.7f);
  GdkRGBA accent = rgba (0x3584e4, 1);
  GdkRGBA stripe = state_color (state);
  GskRoundedRect rounded;

  if (item->node == self->hover && !selected)
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

  if (state_is_busy (state))
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

  if (item->node == self->connect_source)
    {
      graphene_rect_t outer;

      graphene_rect_inset_r (&rect, -2, -2, &outer);
      append_rounded_border (snapshot, &outer, NODE_RADIUS + 2, 2, &accent);
    }

  if (labels)
    {
      PangoLayout *name = item_layout (self, item);
      PangoLayout *status = state_layout (self, state);

      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot,
                              &GRAPHENE_POINT_INIT (rect.origin.x + STRIPE_WIDTH + LABEL_PAD,
                                                    rect.origin.y + 10));
      gtk_snapshot_append_layout (snapshot, name, &text);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (0, 22));
      gtk_snapshot_append_layout (snapshot, status, &dim);
      gtk_snapshot_restore (snapshot);
    }
}

static void
sk_canvas_snapshot (GtkWidget   *widget,
                    GtkSnapshot *snapshot)
{
  SkCanvas *self = SK_CANVAS (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  gboolean dark = is_dark ();
  GdkRGBA background = dark ? rgba (0x242424, 1) : rgba (0xfafafa, 1);
  GdkRGBA dot = dark ? rgba (0xffffff, 0.08f) : rgba (0x000000, 0.08f);
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

  visible_model_rect (self, &view);

  if (self->edge_cache == NULL)
    self->edge_cache = build_edge_layer (self, &view);
  gtk_snapshot_append_node (snapshot, self->edge_cache);
  draw_overlay_edges (self, snapshot);

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (self->offset_x, self->offset_y));
  gtk_snapshot_scale (snapshot, self->zoom, self->zoom);

  for (guint i = 0; i < self->items->len; i++)
    {
      Item *item = g_ptr_array_index (self->items, i);
      double margin = RING_GAP + RING_WIDTH;
      graphene_rect_t box = GRAPHENE_RECT_INIT (item->x - NODE_W / 2 - margin,
                                                item->y - NODE_H / 2 - margin,
                                                NODE_W + 2 * margin,
                                                NODE_H + 2 * margin);

      if (graphene_rect_intersection (&box, &view, NULL))
        {
          if (labels)
            draw_node (self, snapshot, item, labels);
          else
            draw_node_flat (self, snapshot, item);
        }
    }

  if (self->drag_mode == DRAG_RUBBER)
    {
      double x0 = MIN (self->drag_x, self->rubber_x1);
      double y0 = MIN (self->drag_y, self->rubber_y1);
      double mx0, my0;
      GdkRGBA fill = rgba (0x3584e4, 0.15f);
      GdkRGBA edge = rgba (0x3584e4, 0.8f);
      graphene_rect_t rect;

      _sk_canvas_widget_to_model (self, x0, y0, &mx0, &my0);
      rect = GRAPHENE_RECT_INIT (mx0, my0,
                                 fabs (self->rubber_x1 - self->drag_x) / self->zoom,
                                 fabs (self->rubber_y1 - self->drag_y) / self->zoom);
      gtk_snapshot_append_color (snapshot, &fill, &rect);
      append_rounded_border (snapshot, &rect, 0, 1 / self->zoom, &edge);
    }

  gtk_snapshot_restore (snapshot);
  gtk_snapshot_pop (snapshot);
}

/* Hit testing */

SkNode *
_sk_canvas_node_at (SkCanvas *self,
                    double    x,
                    double    y)
{
  double mx, my;

  _sk_canvas_widget_to_model (self, x, y, &mx, &my);

  /* The last item is drawn on top, so it is hit first. */
  for (guint i = self->items->len; i > 0; i--)
    {
      Item *item = g_ptr_array_index (self->items, i - 1);

      if (fabs (mx - item->x) <= NODE_W / 2 && fabs (my - item->y) <= NODE_H / 2)
        return item->node;
    }

  return NULL;
}

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

static gboolean
edge_at (SkCanvas  *self,
         double     x,
         double     y,
         SkNode   **prior,
         SkNode   **node)
{
  double mx, my;
  double tolerance = EDGE_TOLERANCE / self->zoom;

  _sk_canvas_widget_to_model (self, x, y, &mx, &my);

  for (guint i = self->items->len; i > 0; i--)
    {
      Item *to = g_ptr_array_index (self->items, i - 1);
      const char * const *priors = sk_node_get_priors (to->node);

      for (guint j = 0; priors != NULL && priors[j] != NULL; j++)
        {
          Item *from = lookup_item (self, sk_project_get_node (self->project, priors[j]));
          double p[8];
          double last_x, last_y;
          graphene_rect_t near = GRAPHENE_RECT_INIT (mx - tolerance, my - tolerance, 2 * tolerance, 2 * tolerance);

          if (from == NULL)
            continue;
          edge_points (from, to, p);
          if (!edge_visible (p, &near))
            continue;

          last_x = p[0];
          last_y = p[1];
          for (int k = 1; k <= 24; k++)
            {
              double bx, by;

              cubic_point (p, k / 24.0, &bx, &by);

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
    }

  return FALSE;
}

/* Editing */

static SkNode *
add_step_at (SkCanvas *self,
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

  history_begin (self, _("Add Step"));
  if (!sk_project_add_node (self->project, node, &error))
    {
      history_end (self);
      emit_message (self, error->message);
      return NULL;
    }
  history_end (self);

  select_only (self, node);
  g_signal_emit (self, signals [NODE_CREATED], 0, node);

  return node;
}

static void
connect_steps (SkCanvas *self,
               SkNode   *prior,
               SkNode   *node)
{
  g_autoptr(GError) error = NULL;

  if (!sk_project_can_connect (self->project, prior, node, &error))
    {
      emit_message (self, error->message);
      return;
    }

  history_begin (self, _("Connect Steps"));
  sk_node_add_prior (node, sk_node_get_id (prior));
  history_end (self);

  select_only (self, node);
}

static void
toggle_run (SkCanvas *self,
            SkNode   *node)
{
  history_begin (self, sk_node_get_run (node) ? _("Unmark Step") : _("Mark Step to Run"));
  sk_node_set_run (node, !sk_node_get_run (node));
  history_end (self);
}

static void
toggle_all (SkCanvas *self)
{
  gboolean all = TRUE;

  for (guint i = 0; i < self->items->len && all; i++)
    all = sk_node_get_run (((Item *) g_ptr_array_index (self->items, i))->node);

  /* When every step is marked the click clears the marks, otherwise it marks
   * them all, so two clicks always return to a uniform state. */
  history_begin (self, all ? _("Unmark All Steps") : _("Mark All Steps to Run"));
  for (guint i = 0; i < self->items->len; i++)
    sk_node_set_run (((Item *) g_ptr_array_index (self->items, i))->node, !all);
  history_end (self);
}

static void
delete_selection (SkCanvas *self)
{
  g_autoptr(GPtrArray) doomed = NULL;

  if (self->project == NULL)
    return;

  doomed = sk_canvas_get_selection (self);

  if (doomed->len == 0 && self->edge_prior != NULL)
    {
      history_begin (self, _("Remove Connection"));
      sk_node_remove_prior (self->edge_node, sk_node_get_id (self->edge_prior));
      history_end (self);
      clear_edge_selection (self);
      selection_changed (self);
      return;
    }

  if (doomed->len == 0)
    return;

  history_begin (self, doomed->len == 1 ? _("Delete Step") : _("Delete Steps"));
  for (guint i = 0; i < doomed->len; i++)
    sk_project_remove_node (self->project, g_ptr_array_index (doomed, i));
  history_end (self);

  clear_edge_selection (self);
  selection_changed (self);
}

static void
cancel_connect (SkCanvas *self)
{
  if (self->connect_source == NULL)
    return;

  self->connect_source = NULL;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
start_or_finish_connect (SkCanvas *self,
                         SkNode   *node)
{
  if (self->connect_source == NULL)
    {
      self->connect_source = node;
      select_only (self, node);
      return;
    }

  if (self->connect_source == node)
    {
      cancel_connect (self);
      return;
    }

  connect_steps (self, self->connect_source, node);
  self->connect_source = NULL;
  gtk_widget_queue_draw (GTK_WIDGET (self));
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

  g_menu_append (edit_section, sk_node_get_run (node) ? _("_Unmark") : _("_Mark to Run"), "canvas.toggle-run");
  g_menu_append (edit_section, _("_Properties…"), "canvas.properties");
  g_menu_append (edit_section, _("_Delete"), "canvas.delete");

  g_menu_append_section (menu, NULL, G_MENU_MODEL (run_section));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (edit_section));

  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->popover), G_MENU_MODEL (menu));
  self->popover_x = x;
  self->popover_y = y;
  gtk_popover_set_pointing_to (GTK_POPOVER (self->popover),
                               &(GdkRectangle) { (int) x, (int) y, 1, 1 });
  gtk_popover_popup (GTK_POPOVER (self->popover));
}

/* Input */

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
  double mx, my;

  if (self->project == NULL)
    return;

  gtk_widget_grab_focus (GTK_WIDGET (self));
  self->auto_fit = FALSE;
  node = _sk_canvas_node_at (self, x, y);
  _sk_canvas_widget_to_model (self, x, y, &mx, &my);

  if (button == GDK_BUTTON_SECONDARY)
    {
      if (node != NULL)
        toggle_run (self, node);
      else
        toggle_all (self);
      return;
    }

  if (button != GDK_BUTTON_PRIMARY)
    return;

  if (state & GDK_ALT_MASK)
    {
      if (node != NULL)
        {
          select_only (self, node);
          g_signal_emit (self, signals [EDIT_NODE], 0, node);
        }
      else
        g_signal_emit (self, signals [EDIT_PROCESS], 0);
      return;
    }

  if (state & GDK_CONTROL_MASK)
    {
      if (node != NULL)
        start_or_finish_connect (self, node);
      else
        cancel_connect (self);
      return;
    }

  if (node != NULL)
    {
      if (state & GDK_SHIFT_MASK)
        {
          if (g_hash_table_contains (self->selection, node))
            {
              g_hash_table_remove (self->selection, node);
              if (self->focus == node)
                set_focus_node (self, NULL);
            }
          else
            {
              g_hash_table_add (self->selection, node);
              set_focus_node (self, node);
            }
          clear_edge_selection (self);
          selection_changed (self);
        }
      else
        {
          select_only (self, node);
          if (n_press == 2)
            g_signal_emit (self, signals [NODE_ACTIVATED], 0, node);
        }
      return;
    }

  if (edge_at (self, x, y, &edge_prior, &edge_node))
    {
      _sk_canvas_select_edge (self, edge_prior, edge_node);
      return;
    }

  if (self->connect_source != NULL)
    {
      cancel_connect (self);
      return;
    }

  add_step_at (self, mx, my);
}

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
  self->drag_x = x;
  self->drag_y = y;

  if (node == NULL)
    {
      SkNode *prior, *child;

      if (edge_at (self, x, y, &prior, &child))
        return FALSE;

      self->drag_mode = DRAG_RUBBER;
      self->rubber_x1 = x;
      self->rubber_y1 = y;
      self->rubber_extend = (state & GDK_SHIFT_MASK) != 0;
      return TRUE;
    }

  if (state & GDK_SHIFT_MASK)
    return FALSE;

  if (!g_hash_table_contains (self->selection, node))
    select_only (self, node);
  else if (self->focus != node)
    {
      set_focus_node (self, node);
      selection_changed (self);
    }

  g_array_set_size (self->origins, 0);
  {
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, self->selection);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      {
        Item *item = lookup_item (self, key);
        Origin origin = { key, item->x, item->y };

        g_array_append_val (self->origins, origin);
      }
  }
  self->drag_mode = DRAG_PENDING_MOVE;

  return TRUE;
}

void
_sk_canvas_drag_update (SkCanvas *self,
                        double    offset_x,
                        double    offset_y)
{
  switch (self->drag_mode)
    {
    case DRAG_PENDING_MOVE:
      if (hypot (offset_x, offset_y) < DRAG_THRESHOLD)
        return;
      history_begin (self, self->origins->len == 1 ? _("Move Step") : _("Move Steps"));
      self->drag_mode = DRAG_MOVE;
      G_GNUC_FALLTHROUGH;

    case DRAG_MOVE:
      for (guint i = 0; i < self->origins->len; i++)
        {
          Origin *origin = &g_array_index (self->origins, Origin, i);

          if (origin->node != NULL)
            sk_node_set_position (origin->node,
                                  origin->x + offset_x / self->zoom,
                                  origin->y + offset_y / self->zoom);
        }
      break;

    case DRAG_RUBBER:
      self->rubber_x1 = self->drag_x + offset_x;
      self->rubber_y1 = self->drag_y + offset_y;
      gtk_widget_queue_draw (GTK_WIDGET (self));
      break;

    case DRAG_PAN:
      self->auto_fit = FALSE;
      self->offset_x = self->pan_offset_x + offset_x;
      self->offset_y = self->pan_offset_y + offset_y;
      invalidate_edges (self);
      break;

    case DRAG_NONE:
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

  if (self->drag_mode == DRAG_MOVE)
    history_end (self);
  else if (self->drag_mode == DRAG_RUBBER && hypot (offset_x, offset_y) >= DRAG_THRESHOLD)
    {
      double x0, y0, x1, y1;

      _sk_canvas_widget_to_model (self, MIN (self->drag_x, self->rubber_x1), MIN (self->drag_y, self->rubber_y1), &x0, &y0);
      _sk_canvas_widget_to_model (self, MAX (self->drag_x, self->rubber_x1), MAX (self->drag_y, self->rubber_y1), &x1, &y1);

      if (!self->rubber_extend)
        g_hash_table_remove_all (self->selection);
      clear_edge_selection (self);
      set_focus_node (self, NULL);

      for (guint i = 0; i < self->items->len; i++)
        {
          Item *item = g_ptr_array_index (self->items, i);

          if (item->x - NODE_W / 2 >= x0 && item->x + NODE_W / 2 <= x1 &&
              item->y - NODE_H / 2 >= y0 && item->y + NODE_H / 2 <= y1)
            {
              g_hash_table_add (self->selection, item->node);
              if (self->focus == NULL)
                set_focus_node (self, item->node);
            }
        }
      selection_changed (self);
    }

  self->drag_mode = DRAG_NONE;
  g_array_set_size (self->origins, 0);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
zoom_around (SkCanvas *self,
             double    zoom,
             double    x,
             double    y)
{
  double mx, my;

  zoom = CLAMP (zoom, MIN_ZOOM, MAX_ZOOM);
  self->auto_fit = FALSE;
  if (zoom == self->zoom)
    return;

  _sk_canvas_widget_to_model (self, x, y, &mx, &my);
  self->zoom = zoom;
  self->offset_x = x - mx * zoom;
  self->offset_y = y - my * zoom;

  invalidate_edges (self);
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_ZOOM]);
}

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
      zoom_around (self, self->zoom * pow (ZOOM_STEP, -dy), x, y);
      return;
    }

  if (state & GDK_SHIFT_MASK)
    {
      double t = dx;

      dx = dy;
      dy = t;
    }

  self->auto_fit = FALSE;
  self->offset_x -= dx;
  self->offset_y -= dy;
  invalidate_edges (self);
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

  _sk_canvas_scroll (self, self->pointer_x, self->pointer_y, dx, dy, state);

  return TRUE;
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

  _sk_canvas_click (self, x, y, button, state, n_press);
}

static void
drag_begin_cb (SkCanvas       *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));

  if (button == GDK_BUTTON_MIDDLE)
    {
      self->drag_mode = DRAG_PAN;
      self->pan_offset_x = self->offset_x;
      self->pan_offset_y = self->offset_y;
      gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
      return;
    }

  if (button != GDK_BUTTON_PRIMARY || !_sk_canvas_drag_begin (self, x, y, state))
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
}

static void
drag_update_cb (SkCanvas       *self,
                double          offset_x,
                double          offset_y,
                GtkGestureDrag *gesture)
{
  _sk_canvas_drag_update (self, offset_x, offset_y);
  if (self->drag_mode == DRAG_MOVE)
    gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
}

static void
drag_end_cb (SkCanvas       *self,
             double          offset_x,
             double          offset_y,
             GtkGestureDrag *gesture)
{
  _sk_canvas_drag_end (self, offset_x, offset_y);
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), self->hover != NULL ? "pointer" : NULL);
}

static void
motion_cb (SkCanvas                 *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *controller)
{
  SkNode *hover = _sk_canvas_node_at (self, x, y);

  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;

  if (self->connect_source != NULL)
    gtk_widget_queue_draw (GTK_WIDGET (self));

  if (hover != self->hover)
    {
      self->hover = hover;
      if (self->drag_mode == DRAG_NONE)
        gtk_widget_set_cursor_from_name (GTK_WIDGET (self), hover != NULL ? "pointer" : NULL);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
leave_cb (SkCanvas                 *self,
          GtkEventControllerMotion *controller)
{
  self->pointer_inside = FALSE;
  if (self->hover != NULL || self->connect_source != NULL)
    {
      self->hover = NULL;
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

/* Keyboard */

static SkNode *
neighbour_in_direction (SkCanvas   *self,
                        SkNode     *from,
                        const char *direction)
{
  Item *origin = lookup_item (self, from);
  SkNode *best = NULL;
  double best_score = G_MAXDOUBLE;

  for (guint i = 0; i < self->items->len; i++)
    {
      Item *item = g_ptr_array_index (self->items, i);
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
    target = ((Item *) g_ptr_array_index (self->items, 0))->node;
  else if (g_str_equal (direction, "next") || g_str_equal (direction, "previous"))
    {
      guint index = 0;
      gboolean next = g_str_equal (direction, "next");

      g_ptr_array_find (self->items, lookup_item (self, self->focus), &index);
      if (next && index + 1 < self->items->len)
        target = ((Item *) g_ptr_array_index (self->items, index + 1))->node;
      else if (!next && index > 0)
        target = ((Item *) g_ptr_array_index (self->items, index - 1))->node;
      else
        return FALSE;
    }
  else
    target = neighbour_in_direction (self, self->focus, direction);

  if (target == NULL)
    return TRUE;

  select_only (self, target);
  sk_canvas_scroll_to_node (self, target);

  return TRUE;
}

static gboolean
tab_cb (GtkWidget *widget,
        GVariant  *args,
        gpointer   user_data)
{
  /* Tab walks through the steps and leaves the canvas after the last one,
   * so keyboard users can still reach the rest of the window. */
  return move_focus (SK_CANVAS (widget), g_variant_get_string (args, NULL));
}

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
  g_autoptr(GPtrArray) nodes = sk_canvas_get_selection (self);
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

  history_begin (self, nodes->len == 1 ? _("Move Step") : _("Move Steps"));
  for (guint i = 0; i < nodes->len; i++)
    {
      Item *item = lookup_item (self, g_ptr_array_index (nodes, i));

      sk_node_set_position (item->node, item->x + dx, item->y + dy);
    }
  history_end (self);
}

static void
add_step_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);
  Item *focus = lookup_item (self, self->focus);
  double mx, my;

  /* A step added from the keyboard goes below the selected step, ready to
   * be connected to it, or to the middle of the view. */
  if (focus != NULL)
    {
      mx = focus->x;
      my = focus->y + GRID_DY;
      while (_sk_canvas_node_at (self, mx * self->zoom + self->offset_x, my * self->zoom + self->offset_y) != NULL)
        mx += GRID_DX;
    }
  else
    _sk_canvas_widget_to_model (self,
                                gtk_widget_get_width (widget) / 2.0,
                                gtk_widget_get_height (widget) / 2.0,
                                &mx, &my);

  if (add_step_at (self, mx, my) != NULL)
    sk_canvas_scroll_to_node (self, self->focus);
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
    start_or_finish_connect (self, self->focus);
}

static void
toggle_run_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);
  g_autoptr(GPtrArray) nodes = sk_canvas_get_selection (self);
  gboolean run;

  if (nodes->len == 0)
    return;

  run = !sk_node_get_run (self->focus != NULL ? self->focus : g_ptr_array_index (nodes, 0));
  history_begin (self, run ? _("Mark Step to Run") : _("Unmark Step"));
  for (guint i = 0; i < nodes->len; i++)
    sk_node_set_run (g_ptr_array_index (nodes, i), run);
  history_end (self);
}

static void
toggle_all_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  toggle_all (SK_CANVAS (widget));
}

static void
select_all_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);

  for (guint i = 0; i < self->items->len; i++)
    g_hash_table_add (self->selection, ((Item *) g_ptr_array_index (self->items, i))->node);
  if (self->focus == NULL && self->items->len > 0)
    set_focus_node (self, ((Item *) g_ptr_array_index (self->items, 0))->node);
  selection_changed (self);
}

static void
escape_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);

  if (self->connect_source != NULL)
    cancel_connect (self);
  else
    select_only (self, NULL);
}

static void
activate_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);

  if (self->focus == NULL)
    return;

  if (self->connect_source != NULL)
    start_or_finish_connect (self, self->focus);
  else
    g_signal_emit (self, signals [NODE_ACTIVATED], 0, self->focus);
}

static void
properties_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);

  if (self->focus != NULL)
    g_signal_emit (self, signals [EDIT_NODE], 0, self->focus);
}

static void
menu_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  SkCanvas *self = SK_CANVAS (widget);
  Item *item = lookup_item (self, self->focus);
  double x, y;

  if (item == NULL)
    return;

  sk_canvas_scroll_to_node (self, item->node);
  _sk_canvas_model_to_widget (self, item->x, item->y + NODE_H / 2, &x, &y);
  show_node_menu (self, item->node, x, y);
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
    zoom_around (self, self->zoom * ZOOM_STEP, x, y);
  else if (g_str_equal (action_name, "canvas.zoom-out"))
    zoom_around (self, self->zoom / ZOOM_STEP, x, y);
  else if (g_str_equal (action_name, "canvas.zoom-reset"))
    zoom_around (self, 1.0, x, y);
  else
    request_fit (self);
}

/* Layout */

static void
fit_to_view (SkCanvas *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;
  double zoom;
  const double margin = 48;

  if (width <= 0 || height <= 0 || self->items->len == 0)
    return;

  for (guint i = 0; i < self->items->len; i++)
    {
      Item *item = g_ptr_array_index (self->items, i);

      x0 = MIN (x0, item->x - NODE_W / 2);
      y0 = MIN (y0, item->y - NODE_H / 2);
      x1 = MAX (x1, item->x + NODE_W / 2);
      y1 = MAX (y1, item->y + NODE_H / 2);
    }

  zoom = MIN ((width - 2 * margin) / (x1 - x0), (height - 2 * margin) / (y1 - y0));
  zoom = CLAMP (zoom, MIN_ZOOM, 1.0);
  self->zoom = zoom;
  self->offset_x = width / 2.0 - (x0 + x1) / 2 * zoom;
  self->offset_y = height / 2.0 - (y0 + y1) / 2 * zoom;

  invalidate_edges (self);
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_ZOOM]);
}

static void
request_fit (SkCanvas *self)
{
  if (gtk_widget_get_width (GTK_WIDGET (self)) > 0 && !self->arranging)
    fit_to_view (self);
  else
    self->fit_pending = TRUE;
}

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

  positions = sk_layout_arrange_finish (SK_PROJECT (object), result, &error);
  if (positions == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *message = g_strdup_printf (_("The workflow could not be arranged: %s"), error->message);

          self->arranging = FALSE;
          emit_message (self, message);
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
    history_begin (self, _("Arrange"));
  sk_layout_apply (self->project, positions);
  if (record)
    history_end (self);
  else
    {
      /* Arranging a workflow that had no positions is part of opening it;
       * it must not make the history think the user changed something. */
      if (self->history != NULL)
        sk_history_clear (self->history);
      sk_project_set_modified (self->project, FALSE);
    }

  request_fit (self);
}

static void
arrange (SkCanvas *self,
         gboolean  record)
{
  ArrangeData *data;

  if (self->project == NULL)
    return;

  g_cancellable_cancel (self->layout_cancellable);
  g_clear_object (&self->layout_cancellable);
  self->layout_cancellable = g_cancellable_new ();
  self->arranging = TRUE;

  data = g_new0 (ArrangeData, 1);
  data->self = g_object_ref (self);
  data->record = record;

  sk_layout_arrange_async (self->project, NODE_W, NODE_H,
                           self->layout_cancellable, arrange_cb, data);
}

/**
 * sk_canvas_arrange:
 * @self: a #SkCanvas
 *
 * Lays the workflow out with Graphviz in a worker thread, then moves every
 * step in one undoable step.
 */
void
sk_canvas_arrange (SkCanvas *self)
{
  g_return_if_fail (SK_IS_CANVAS (self));

  arrange (self, TRUE);
}

gboolean
_sk_canvas_is_arranging (SkCanvas *self)
{
  return self->arranging;
}

/* GtkWidget */

static void
sk_canvas_measure (GtkWidget      *widget,
                   GtkOrientation  orientation,
                   int             for_size,
                   int            *minimum,
                   int            *natural,
                   int            *minimum_baseline,
                   int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 240 : 160;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 800 : 480;
}

static void
sk_canvas_size_allocate (GtkWidget *widget,
                         int        width,
                         int        height,
                         int        baseline)
{
  SkCanvas *self = SK_CANVAS (widget);

  /* Until the user moves the view, it follows the window's size, so that a
   * freshly opened workflow is shown whole once the panes settle. */
  if ((self->fit_pending || self->auto_fit) && width > 0 && height > 0 && !self->arranging)
    {
      self->fit_pending = FALSE;
      fit_to_view (self);
    }

  invalidate_edges (self);

  if (self->popover != NULL)
    gtk_popover_present (GTK_POPOVER (self->popover));
}

static void
sk_canvas_css_changed (GtkWidget         *widget,
                       GtkCssStyleChange *change)
{
  SkCanvas *self = SK_CANVAS (widget);

  GTK_WIDGET_CLASS (sk_canvas_parent_class)->css_changed (widget, change);

  clear_text_caches (self);
  invalidate_edges (self);
}

static void
dark_changed_cb (SkCanvas *self)
{
  invalidate_edges (self);
}

/* Public API */

GtkWidget *
sk_canvas_new (void)
{
  return g_object_new (SK_TYPE_CANVAS, NULL);
}

/**
 * sk_canvas_get_project:
 * @self: a #SkCanvas
 *
 * Returns: (transfer none) (nullable): the workflow shown
 */
SkProject *
sk_canvas_get_project (SkCanvas *self)
{
  g_return_val_if_fail (SK_IS_CANVAS (self), NULL);

  return self->project;
}

/**
 * sk_canvas_set_project:
 * @self: a #SkCanvas
 * @project: (nullable): the workflow to show
 *
 * Shows @project and fits it into the view. A workflow whose steps have no
 * positions yet is arranged with Graphviz first.
 */
void
sk_canvas_set_project (SkCanvas  *self,
                       SkProject *project)
{
  g_return_if_fail (SK_IS_CANVAS (self));
  g_return_if_fail (project == NULL || SK_IS_PROJECT (project));

  if (self->project == project)
    return;

  cancel_connect (self);
  disconnect_project (self);
  g_hash_table_remove_all (self->selection);
  clear_edge_selection (self);
  set_focus_node (self, NULL);

  if (project != NULL)
    {
      self->project = g_object_ref (project);
      g_signal_connect_object (project, "items-changed", G_CALLBACK (items_changed_cb), self, G_CONNECT_SWAPPED);
      items_changed_cb (self, 0, 0, g_list_model_get_n_items (G_LIST_MODEL (project)), G_LIST_MODEL (project));

      if (project_needs_layout (project))
        arrange (self, FALSE);
      self->fit_pending = TRUE;
      self->auto_fit = TRUE;
      gtk_widget_queue_allocate (GTK_WIDGET (self));
    }

  invalidate_edges (self);
  selection_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_PROJECT]);
}

/**
 * sk_canvas_get_history:
 * @self: a #SkCanvas
 *
 * Returns: (transfer none) (nullable): the history the canvas groups its
 *   edits in
 */
SkHistory *
sk_canvas_get_history (SkCanvas *self)
{
  g_return_val_if_fail (SK_IS_CANVAS (self), NULL);

  return self->history;
}

void
sk_canvas_set_history (SkCanvas  *self,
                       SkHistory *history)
{
  g_return_if_fail (SK_IS_CANVAS (self));

  if (self->history != history)
    abandon_drag (self);

  if (g_set_object (&self->history, history))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_HISTORY]);
}

/**
 * sk_canvas_get_selected_node:
 * @self: a #SkCanvas
 *
 * Returns: (transfer none) (nullable): the step whose cells are shown: the
 *   one clicked last among the selected steps
 */
SkNode *
sk_canvas_get_selected_node (SkCanvas *self)
{
  g_return_val_if_fail (SK_IS_CANVAS (self), NULL);

  return self->focus;
}

/**
 * sk_canvas_select_node:
 * @self: a #SkCanvas
 * @node: (nullable): a step of the workflow, or %NULL to clear the selection
 *
 * Selects only @node.
 */
void
sk_canvas_select_node (SkCanvas *self,
                       SkNode   *node)
{
  g_return_if_fail (SK_IS_CANVAS (self));

  if (node != NULL && lookup_item (self, node) == NULL)
    return;

  if (self->focus == node && g_hash_table_size (self->selection) == (node != NULL ? 1u : 0u))
    return;

  select_only (self, node);
}

/**
 * sk_canvas_get_selection:
 * @self: a #SkCanvas
 *
 * Returns: (transfer container) (element-type SkNode): the selected steps,
 *   in the workflow's order
 */
GPtrArray *
sk_canvas_get_selection (SkCanvas *self)
{
  GPtrArray *nodes = g_ptr_array_new ();

  g_return_val_if_fail (SK_IS_CANVAS (self), nodes);

  for (guint i = 0; i < self->items->len; i++)
    {
      Item *item = g_ptr_array_index (self->items, i);

      if (g_hash_table_contains (self->selection, item->node))
        g_ptr_array_add (nodes, item->node);
    }

  return nodes;
}

double
sk_canvas_get_zoom (SkCanvas *self)
{
  g_return_val_if_fail (SK_IS_CANVAS (self), 1.0);

  return self->zoom;
}

void
sk_canvas_set_zoom (SkCanvas *self,
                    double    zoom)
{
  g_return_if_fail (SK_IS_CANVAS (self));

  zoom_around (self, zoom,
               gtk_widget_get_width (GTK_WIDGET (self)) / 2.0,
               gtk_widget_get_height (GTK_WIDGET (self)) / 2.0);
}

/**
 * sk_canvas_scroll_to_node:
 * @self: a #SkCanvas
 * @node: a step of the workflow
 *
 * Pans the view, if needed, so that @node is fully visible.
 */
void
sk_canvas_scroll_to_node (SkCanvas *self,
                          SkNode   *node)
{
  Item *item;
  double x0, y0, x1, y1;
  int width, height;
  double dx = 0, dy = 0;
  const double margin = 24;

  g_return_if_fail (SK_IS_CANVAS (self));

  item = lookup_item (self, node);
  width = gtk_widget_get_width (GTK_WIDGET (self));
  height = gtk_widget_get_height (GTK_WIDGET (self));
  if (item == NULL || width <= 0 || height <= 0)
    return;

  _sk_canvas_model_to_widget (self, item->x - NODE_W / 2, item->y - NODE_H / 2, &x0, &y0);
  _sk_canvas_model_to_widget (self, item->x + NODE_W / 2, item->y + NODE_H / 2, &x1, &y1);

  if (x0 < margin)
    dx = margin - x0;
  else if (x1 > width - margin)
    dx = (width - margin) - x1;
  if (y0 < margin)
    dy = margin - y0;
  else if (y1 > height - margin)
    dy = (height - margin) - y1;

  if (dx != 0 || dy != 0)
    {
      self->auto_fit = FALSE;
      self->offset_x += dx;
      self->offset_y += dy;
      invalidate_edges (self);
    }
}

SkNode *
_sk_canvas_get_connect_source (SkCanvas *self)
{
  return self->connect_source;
}

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
  g_hash_table_remove_all (self->selection);
  set_focus_node (self, NULL);
  self->edge_prior = prior;
  self->edge_node = node;
  selection_changed (self);
}

/* GObject */

static void
sk_canvas_dispose (GObject *object)
{
  SkCanvas *self = SK_CANVAS (object);

  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  disconnect_project (self);
  g_clear_object (&self->history);
  g_clear_pointer (&self->popover, gtk_widget_unparent);
  g_clear_pointer (&self->edge_cache, gsk_render_node_unref);
  clear_text_caches (self);

  G_OBJECT_CLASS (sk_canvas_parent_class)->dispose (object);
}

static void
sk_canvas_finalize (GObject *object)
{
  SkCanvas *self = SK_CANVAS (object);

  g_ptr_array_unref (self->items);
  g_hash_table_unref (self->by_node);
  g_hash_table_unref (self->selection);
  g_array_unref (self->origins);

  G_OBJECT_CLASS (sk_canvas_parent_class)->finalize (object);
}

static void
sk_canvas_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  SkCanvas *self = SK_CANVAS (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;

    case PROP_HISTORY:
      g_value_set_object (value, self->history);
      break;

    case PROP_SELECTED_NODE:
      g_value_set_object (value, self->focus);
      break;

    case PROP_ZOOM:
      g_value_set_double (value, self->zoom);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_canvas_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  SkCanvas *self = SK_CANVAS (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      sk_canvas_set_project (self, g_value_get_object (value));
      break;

    case PROP_HISTORY:
      sk_canvas_set_history (self, g_value_get_object (value));
      break;

    case PROP_SELECTED_NODE:
      sk_canvas_select_node (self, g_value_get_object (value));
      break;

    case PROP_ZOOM:
      sk_canvas_set_zoom (self, g_value_get_double (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

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

static void
sk_canvas_class_init (SkCanvasClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sk_canvas_dispose;
  object_class->finalize = sk_canvas_finalize;
  object_class->get_property = sk_canvas_get_property;
  object_class->set_property = sk_canvas_set_property;

  widget_class->snapshot = sk_canvas_snapshot;
  widget_class->measure = sk_canvas_measure;
  widget_class->size_allocate = sk_canvas_size_allocate;
  widget_class->css_changed = sk_canvas_css_changed;

  properties [PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL,
                         SK_TYPE_PROJECT,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties [PROP_HISTORY] =
    g_param_spec_object ("history", NULL, NULL,
                         SK_TYPE_HISTORY,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties [PROP_SELECTED_NODE] =
    g_param_spec_object ("selected-node", NULL, NULL,
                         SK_TYPE_NODE,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties [PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL,
                         MIN_ZOOM, MAX_ZOOM, 1.0,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkCanvas::node-created:
   * @self: a #SkCanvas
   * @node: the new step
   *
   * Emitted when the user adds a step, so that its task can be typed at once.
   */
  signals [NODE_CREATED] =
    g_signal_new ("node-created", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, SK_TYPE_NODE);

  signals [NODE_ACTIVATED] =
    g_signal_new ("node-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, SK_TYPE_NODE);

  signals [EDIT_NODE] =
    g_signal_new ("edit-node", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, SK_TYPE_NODE);

  signals [EDIT_PROCESS] =
    g_signal_new ("edit-process", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * SkCanvas::message:
   * @self: a #SkCanvas
   * @message: a sentence for the user, such as why an edge was refused
   */
  signals [MESSAGE] =
    g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  signals [SELECTION_CHANGED] =
    g_signal_new ("selection-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

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
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_space, 0, "canvas.toggle-run", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.toggle-all", NULL, toggle_all_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_space, GDK_SHIFT_MASK, "canvas.toggle-all", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.select-all", NULL, select_all_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a, GDK_CONTROL_MASK, "canvas.select-all", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.escape", NULL, escape_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "canvas.escape", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.activate", NULL, activate_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, 0, "canvas.activate", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Enter, 0, "canvas.activate", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.properties", NULL, properties_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, GDK_ALT_MASK, "canvas.properties", NULL);

  gtk_widget_class_install_action (widget_class, "canvas.menu", NULL, menu_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Menu, 0, "canvas.menu", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F10, GDK_SHIFT_MASK, "canvas.menu", NULL);

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

  gtk_widget_class_set_css_name (widget_class, "workflowcanvas");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sk_canvas_init (SkCanvas *self)
{
  GtkGesture *click;
  GtkGesture *drag;
  GtkEventController *scroll;
  GtkEventController *motion;

  self->items = g_ptr_array_new_with_free_func (item_free);
  self->by_node = g_hash_table_new (NULL, NULL);
  self->selection = g_hash_table_new (NULL, NULL);
  self->origins = g_array_new (FALSE, FALSE, sizeof (Origin));
  self->zoom = 1.0;
  self->offset_x = 120;
  self->offset_y = 80;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_focus_on_click (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);

  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), 0);
  g_signal_connect_object (click, "released", G_CALLBACK (click_released_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), 0);
  g_signal_connect_object (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-update", G_CALLBACK (drag_update_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-end", G_CALLBACK (drag_end_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect_object (scroll, "scroll", G_CALLBACK (scroll_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);

  motion = gtk_event_controller_motion_new ();
  g_signal_connect_object (motion, "motion", G_CALLBACK (motion_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (motion, "leave", G_CALLBACK (leave_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);

  g_signal_connect_object (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark", G_CALLBACK (dark_changed_cb), self, G_CONNECT_SWAPPED);

  self->popover = gtk_popover_menu_new_from_model (NULL);
  gtk_widget_set_parent (self->popover, GTK_WIDGET (self));
  gtk_popover_set_has_arrow (GTK_POPOVER (self->popover), TRUE);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Workflow canvas"),
                                  -1);
  update_actions (self);
}
