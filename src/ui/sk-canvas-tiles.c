/* sk-canvas-tiles.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-canvas"

#include "config.h"

#include <math.h>
#include <string.h>

#include "sk-canvas-private.h"

/* What keeps a frame's cost to what is in view: a uniform grid over the
 * workflow that says which steps and connections lie near a rectangle, and
 * the tiles that sk-canvas-paint.c draws the workflow into, kept across
 * frames.
 *
 * The grid is built when first asked after the workflow's geometry
 * changes; a frame or a click then looks at a few cells, not at every step.
 * Connections are put in each cell their curve's box meets, unless that box
 * is large, as for a connection across the workflow: those few are kept
 * aside and tested one by one.
 *
 * Tiles are squares of the view at one zoom, numbered from the model's
 * origin, so that panning moves them without drawing them again. */

#define NODE_W SK_CANVAS_NODE_WIDTH
#define NODE_H SK_CANVAS_NODE_HEIGHT
/* A cell holds a few steps of the default grid at 1:1. */
#define MIN_CELL 256.0
#define MAX_CELLS 4096
/* A connection whose box meets more cells than this is tested alone. */
#define MAX_EDGE_CELLS 64

static void
tile_free (gpointer data)
{
  SkCanvasTile *tile = data;

  g_clear_pointer (&tile->base, cairo_surface_destroy);
  g_clear_pointer (&tile->picture, cairo_surface_destroy);
  g_clear_pointer (&tile->node, gsk_render_node_unref);
  g_clear_pointer (&tile->signatures, g_array_unref);
  g_free (tile);
}

SkCanvasTiles *
_sk_canvas_tiles_new (void)
{
  SkCanvasTiles *tiles = g_new0 (SkCanvasTiles, 1);

  tiles->edges = g_array_new (FALSE, FALSE, sizeof (SkCanvasEdge));
  tiles->long_edges = g_array_new (FALSE, FALSE, sizeof (guint));
  tiles->item_stamps = g_array_new (FALSE, TRUE, sizeof (guint));
  tiles->edge_stamps = g_array_new (FALSE, TRUE, sizeof (guint));
  tiles->tiles = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, tile_free);
  tiles->placed = g_array_new (FALSE, FALSE, sizeof (SkCanvasPlaced));

  return tiles;
}

static void
clear_cells (SkCanvasTiles *tiles)
{
  for (guint i = 0; tiles->item_cells != NULL && i < tiles->n_cells; i++)
    {
      g_clear_pointer (&tiles->item_cells[i], g_array_unref);
      g_clear_pointer (&tiles->edge_cells[i], g_array_unref);
    }
  g_clear_pointer (&tiles->item_cells, g_free);
  g_clear_pointer (&tiles->edge_cells, g_free);
  tiles->n_cells = 0;
}

void
_sk_canvas_tiles_free (SkCanvasTiles *tiles)
{
  clear_cells (tiles);
  g_array_unref (tiles->edges);
  g_array_unref (tiles->long_edges);
  g_array_unref (tiles->item_stamps);
  g_array_unref (tiles->edge_stamps);
  g_hash_table_unref (tiles->tiles);
  g_array_unref (tiles->placed);
  g_clear_pointer (&tiles->moving_edges, g_ptr_array_unref);
  g_free (tiles);
}

/* The workflow's geometry changed: where its steps are, which connections
 * it has, or how they are drawn. */
void
_sk_canvas_tiles_invalidate (SkCanvas *self)
{
  SkCanvasTiles *tiles = self->tiles;

  if (tiles == NULL)
    return;

  tiles->index_valid = FALSE;
  tiles->placement_valid = FALSE;
  g_clear_pointer (&tiles->moving_edges, g_ptr_array_unref);
  g_hash_table_remove_all (tiles->tiles);
}

/* Forgets the tiles only, for a change of how the steps look that the
 * steps' signatures do not show. */
void
_sk_canvas_tiles_drop (SkCanvas *self)
{
  if (self->tiles != NULL)
    g_hash_table_remove_all (self->tiles->tiles);
}

/* A step moved on its own, as a dragged one does: the grid no longer says
 * where it is, but the tiles stay, since they leave a moving step out. */
void
_sk_canvas_tiles_index_stale (SkCanvas *self)
{
  if (self->tiles != NULL)
    self->tiles->index_valid = FALSE;
}

/* The box around a step that anything drawn for it stays inside, at any
 * zoom: its ring, its badge below the box, and zoomed out its outline of
 * one pixel. */
void
_sk_canvas_item_bounds (SkCanvas        *self,
                        SkCanvasItem    *item,
                        graphene_rect_t *rect)
{
  double margin = MAX (14.0, 2.0 / self->zoom);

  graphene_rect_init (rect, item->x - NODE_W / 2 - margin, item->y - NODE_H / 2 - margin,
                      NODE_W + 2 * margin, NODE_H + 2 * margin);
}

static void
cell_range (SkCanvasTiles         *tiles,
            const graphene_rect_t *rect,
            int                   *c0,
            int                   *r0,
            int                   *c1,
            int                   *r1)
{
  *c0 = CLAMP ((int) floor ((rect->origin.x - tiles->x0) / tiles->cell), 0, tiles->cols - 1);
  *r0 = CLAMP ((int) floor ((rect->origin.y - tiles->y0) / tiles->cell), 0, tiles->rows - 1);
  *c1 = CLAMP ((int) floor ((rect->origin.x + rect->size.width - tiles->x0) / tiles->cell), 0, tiles->cols - 1);
  *r1 = CLAMP ((int) floor ((rect->origin.y + rect->size.height - tiles->y0) / tiles->cell), 0, tiles->rows - 1);
}

static void
edge_bounds (const double     p[8],
             graphene_rect_t *rect)
{
  double x0 = MIN (MIN (p[0], p[2]), MIN (p[4], p[6]));
  double x1 = MAX (MAX (p[0], p[2]), MAX (p[4], p[6]));
  double y0 = MIN (MIN (p[1], p[3]), MIN (p[5], p[7]));
  double y1 = MAX (MAX (p[1], p[3]), MAX (p[5], p[7]));

  /* As _sk_canvas_edge_visible() pads it, for the arrowhead. */
  graphene_rect_init (rect, x0 - 10, y0 - 10, x1 - x0 + 20, y1 - y0 + 20);
}

static void
index_build (SkCanvas *self)
{
  SkCanvasTiles *tiles = self->tiles;
  graphene_rect_t content = GRAPHENE_RECT_INIT (0, 0, 1, 1);
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;

  g_autoptr(GHashTable) positions = g_hash_table_new (NULL, NULL);

  clear_cells (tiles);
  g_array_set_size (tiles->edges, 0);
  g_array_set_size (tiles->long_edges, 0);

  /* Positions by step, one past, so that none is zero. */
  for (guint i = 0; i < self->items->len; i++)
    g_hash_table_insert (positions, ((SkCanvasItem *) g_ptr_array_index (self->items, i))->node,
                         GUINT_TO_POINTER (i + 1));

  /* The connections, routed once for every use until the geometry
   * changes. */
  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *to = g_ptr_array_index (self->items, i);
      const char * const *priors = sk_node_get_priors (to->node);

      for (guint j = 0; priors != NULL && priors[j] != NULL; j++)
        {
          SkNode *prior = sk_project_get_node (self->project, priors[j]);
          guint position = GPOINTER_TO_UINT (g_hash_table_lookup (positions, prior));
          SkCanvasItem *from;
          SkCanvasEdge edge;

          if (prior == NULL || position == 0)
            continue;
          from = g_ptr_array_index (self->items, position - 1);
          edge.from = position - 1;
          edge.to = i;
          edge.prior = j;
          _sk_canvas_edge_route (from, to, edge.p);
          edge_bounds (edge.p, &edge.bounds);
          g_array_append_val (tiles->edges, edge);
        }

      x0 = MIN (x0, to->x);
      y0 = MIN (y0, to->y);
      x1 = MAX (x1, to->x);
      y1 = MAX (y1, to->y);
    }

  if (self->items->len > 0)
    graphene_rect_init (&content, x0, y0, MAX (1, x1 - x0), MAX (1, y1 - y0));

  /* Cells of at least MIN_CELL, and no more than MAX_CELLS of them. */
  tiles->cell = MAX (MIN_CELL, sqrt (content.size.width * content.size.height / MAX_CELLS));
  tiles->cell = MAX (tiles->cell, MAX (content.size.width, content.size.height) / 256);
  tiles->x0 = content.origin.x;
  tiles->y0 = content.origin.y;
  tiles->cols = (int) ceil (content.size.width / tiles->cell) + 1;
  tiles->rows = (int) ceil (content.size.height / tiles->cell) + 1;
  tiles->n_cells = (guint) (tiles->cols * tiles->rows);
  tiles->item_cells = g_new0 (GArray *, tiles->n_cells);
  tiles->edge_cells = g_new0 (GArray *, tiles->n_cells);

  /* A step is put in the cell of its centre only; queries widen their
   * rectangle by half a box and the margin instead. */
  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *item = g_ptr_array_index (self->items, i);
      guint c = (guint) CLAMP ((int) floor ((item->x - tiles->x0) / tiles->cell), 0, tiles->cols - 1);
      guint r = (guint) CLAMP ((int) floor ((item->y - tiles->y0) / tiles->cell), 0, tiles->rows - 1);
      GArray **cell = &tiles->item_cells[r * tiles->cols + c];

      if (*cell == NULL)
        *cell = g_array_new (FALSE, FALSE, sizeof (guint));
      g_array_append_val (*cell, i);
    }

  for (guint i = 0; i < tiles->edges->len; i++)
    {
      SkCanvasEdge *edge = &g_array_index (tiles->edges, SkCanvasEdge, i);
      int c0, r0, c1, r1;

      cell_range (tiles, &edge->bounds, &c0, &r0, &c1, &r1);
      if ((c1 - c0 + 1) * (r1 - r0 + 1) > MAX_EDGE_CELLS)
        {
          g_array_append_val (tiles->long_edges, i);
          continue;
        }

      for (int r = r0; r <= r1; r++)
        for (int c = c0; c <= c1; c++)
          {
            GArray **cell = &tiles->edge_cells[r * tiles->cols + c];

            if (*cell == NULL)
              *cell = g_array_new (FALSE, FALSE, sizeof (guint));
            g_array_append_val (*cell, i);
          }
    }

  g_array_set_size (tiles->item_stamps, 0);
  g_array_set_size (tiles->item_stamps, self->items->len);
  g_array_set_size (tiles->edge_stamps, 0);
  g_array_set_size (tiles->edge_stamps, tiles->edges->len);
  tiles->stamp = 0;
  tiles->index_valid = TRUE;
}

void
_sk_canvas_index_ensure (SkCanvas *self)
{
  if (!self->tiles->index_valid)
    index_build (self);
}

static int
compare_guint (gconstpointer a,
               gconstpointer b)
{
  guint x = *(const guint *) a;
  guint y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

static guint
next_stamp (SkCanvasTiles *tiles)
{
  if (++tiles->stamp == 0)
    {
      guint n_items = tiles->item_stamps->len;
      guint n_edges = tiles->edge_stamps->len;

      /* The arrays are cleared to zero when they grow. */
      g_array_set_size (tiles->item_stamps, 0);
      g_array_set_size (tiles->item_stamps, n_items);
      g_array_set_size (tiles->edge_stamps, 0);
      g_array_set_size (tiles->edge_stamps, n_edges);
      tiles->stamp = 1;
    }

  return tiles->stamp;
}

/* Appends to @out the positions of the steps whose bounds meet @rect, in
 * the workflow's order, which is the order they are drawn in. */
void
_sk_canvas_index_items (SkCanvas              *self,
                        const graphene_rect_t *rect,
                        GArray                *out)
{
  SkCanvasTiles *tiles = self->tiles;
  graphene_rect_t wide;
  double margin = MAX (14.0, 2.0 / self->zoom);
  int c0, r0, c1, r1;

  _sk_canvas_index_ensure (self);
  if (self->items->len == 0)
    return;

  graphene_rect_inset_r (rect, -(NODE_W / 2 + margin), -(NODE_H / 2 + margin), &wide);
  cell_range (tiles, &wide, &c0, &r0, &c1, &r1);

  for (int r = r0; r <= r1; r++)
    for (int c = c0; c <= c1; c++)
      {
        GArray *cell = tiles->item_cells[r * tiles->cols + c];

        for (guint k = 0; cell != NULL && k < cell->len; k++)
          {
            guint i = g_array_index (cell, guint, k);
            SkCanvasItem *item = g_ptr_array_index (self->items, i);
            graphene_rect_t bounds;

            _sk_canvas_item_bounds (self, item, &bounds);
            if (graphene_rect_intersection (&bounds, rect, NULL))
              g_array_append_val (out, i);
          }
      }

  g_array_sort (out, compare_guint);
}

/* Appends to @out the connections (indices into tiles->edges) whose box
 * meets @rect, each once, in the workflow's order. */
void
_sk_canvas_index_edges (SkCanvas              *self,
                        const graphene_rect_t *rect,
                        GArray                *out)
{
  SkCanvasTiles *tiles = self->tiles;
  guint stamp;
  int c0, r0, c1, r1;

  _sk_canvas_index_ensure (self);
  if (tiles->edges->len == 0)
    return;

  stamp = next_stamp (tiles);
  cell_range (tiles, rect, &c0, &r0, &c1, &r1);

  for (int r = r0; r <= r1; r++)
    for (int c = c0; c <= c1; c++)
      {
        GArray *cell = tiles->edge_cells[r * tiles->cols + c];

        for (guint k = 0; cell != NULL && k < cell->len; k++)
          {
            guint i = g_array_index (cell, guint, k);
            guint *seen = &g_array_index (tiles->edge_stamps, guint, i);

            if (*seen == stamp)
              continue;
            *seen = stamp;
            if (graphene_rect_intersection (&g_array_index (tiles->edges, SkCanvasEdge, i).bounds, rect, NULL))
              g_array_append_val (out, i);
          }
      }

  for (guint k = 0; k < tiles->long_edges->len; k++)
    {
      guint i = g_array_index (tiles->long_edges, guint, k);

      if (graphene_rect_intersection (&g_array_index (tiles->edges, SkCanvasEdge, i).bounds, rect, NULL))
        g_array_append_val (out, i);
    }

  g_array_sort (out, compare_guint);
}

/* The step whose box holds the model point (@mx, @my), the last drawn one
 * where boxes overlap, from the grid, or %NULL. */
SkCanvasItem *
_sk_canvas_index_item_at (SkCanvas *self,
                          double    mx,
                          double    my)
{
  SkCanvasTiles *tiles = self->tiles;
  SkCanvasItem *found = NULL;
  guint found_index = 0;
  graphene_rect_t wide = GRAPHENE_RECT_INIT (mx - NODE_W / 2, my - NODE_H / 2, NODE_W, NODE_H);
  int c0, r0, c1, r1;

  _sk_canvas_index_ensure (self);
  if (self->items->len == 0)
    return NULL;

  cell_range (tiles, &wide, &c0, &r0, &c1, &r1);
  for (int r = r0; r <= r1; r++)
    for (int c = c0; c <= c1; c++)
      {
        GArray *cell = tiles->item_cells[r * tiles->cols + c];

        for (guint k = 0; cell != NULL && k < cell->len; k++)
          {
            guint i = g_array_index (cell, guint, k);
            SkCanvasItem *item = g_ptr_array_index (self->items, i);

            if (fabs (mx - item->x) <= NODE_W / 2 && fabs (my - item->y) <= NODE_H / 2 &&
                (found == NULL || i > found_index))
              {
                found = item;
                found_index = i;
              }
          }
      }

  return found;
}

/* Tiles ------------------------------------------------------------------- */

static int
compare_guint64 (gconstpointer a,
                 gconstpointer b)
{
  guint64 x = *(const guint64 *) a;
  guint64 y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static gint64
tile_key (int tx,
          int ty)
{
  return (gint64) (((guint64) (guint32) tx << 32) | (guint32) ty);
}

SkCanvasTile *
_sk_canvas_tiles_lookup (SkCanvas *self,
                         int       tx,
                         int       ty)
{
  gint64 key = tile_key (tx, ty);

  return g_hash_table_lookup (self->tiles->tiles, &key);
}

void
_sk_canvas_tiles_insert (SkCanvas     *self,
                         SkCanvasTile *tile)
{
  tile->key = tile_key (tile->tx, tile->ty);
  g_hash_table_replace (self->tiles->tiles, &tile->key, tile);
}

/* Keeps the tiles in view and those used lately, up to @keep of them, so
 * that panning back and forth finds its tiles and a long pan does not
 * keep the whole workflow in memory. */
void
_sk_canvas_tiles_trim (SkCanvas *self,
                       guint     keep)
{
  SkCanvasTiles *tiles = self->tiles;
  g_autoptr(GArray) ages = NULL;
  GHashTableIter iter;
  gpointer value;
  guint64 cutoff;

  if (g_hash_table_size (tiles->tiles) <= keep)
    return;

  ages = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_hash_table_iter_init (&iter, tiles->tiles);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_array_append_val (ages, ((SkCanvasTile *) value)->used);

  g_array_sort (ages, compare_guint64);
  cutoff = g_array_index (ages, guint64, ages->len - keep);

  g_hash_table_iter_init (&iter, tiles->tiles);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (((SkCanvasTile *) value)->used < cutoff)
      g_hash_table_iter_remove (&iter);
}

/* A picture drawn with cairo into @surface, @width by @height in widget
 * units, as a render node that costs the renderer little to draw again:
 * for the GL renderer a texture, which it uploads once and keeps; for the
 * cairo renderer a cairo node that paints the surface, since GTK 4.8's
 * cairo renderer converts a texture's pixels anew in every frame. */
gboolean
_sk_canvas_cairo_renderer (SkCanvas *self)
{
  GtkNative *native = gtk_widget_get_native (GTK_WIDGET (self));
  GskRenderer *renderer = native != NULL ? gtk_native_get_renderer (native) : NULL;

  return renderer == NULL || GSK_IS_CAIRO_RENDERER (renderer);
}

GskRenderNode *
_sk_canvas_picture_node (SkCanvas        *self,
                         cairo_surface_t *surface,
                         int              width,
                         int              height)
{
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  g_autoptr(GdkTexture) texture = NULL;
  GBytes *bytes;

  cairo_surface_flush (surface);

  /* An opaque surface (CAIRO_FORMAT_RGB24) is copied, not blended. */
  if (_sk_canvas_cairo_renderer (self))
    {
      GskRenderNode *node = gsk_cairo_node_new (&GRAPHENE_RECT_INIT (0, 0, width, height));
      cairo_t *cr = gsk_cairo_node_get_draw_context (node);

      cairo_set_source_surface (cr, surface, 0, 0);
      cairo_paint (cr);
      cairo_destroy (cr);

      return node;
    }

  g_return_val_if_fail (cairo_image_surface_get_format (surface) == CAIRO_FORMAT_ARGB32, NULL);

  /* Cairo's ARGB32 is GDK_MEMORY_DEFAULT; the texture keeps the surface. */
  bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface),
                                      (gsize) cairo_image_surface_get_stride (surface) * height * scale,
                                      (GDestroyNotify) cairo_surface_destroy,
                                      cairo_surface_reference (surface));
  texture = gdk_memory_texture_new (width * scale, height * scale, GDK_MEMORY_DEFAULT,
                                    bytes, cairo_image_surface_get_stride (surface));
  g_bytes_unref (bytes);

  return gsk_texture_node_new (texture, &GRAPHENE_RECT_INIT (0, 0, width, height));
}
