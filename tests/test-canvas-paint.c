/* test-canvas-paint.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Widget tests for what the workflow canvas paints: where edges attach,
 * the text in a step's box at each level of detail, problem marks, what
 * flowed along an edge after a run, the run button on a box, a chat's
 * proposal drawn over the workflow in light and dark style, control
 * flow: conditions on edges and the badges of special steps, and the
 * picture the canvas keeps across frames, drawn again as it changes. The
 * canvas sits in a real window under a display; pictures are rendered with
 * the window's renderer and read back.
 */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <adwaita.h>

#include "sk-canvas-private.h"
#include "sk-project.h"
#include "sk-step-folder.h"
#include "sk-test-util.h"
#include "sk-widgets.h"

#define WINDOW_WIDTH 800
#define WINDOW_HEIGHT 600
#define WAIT_TIMEOUT_MS 20000
#define NODE_W SK_CANVAS_NODE_WIDTH
#define NODE_H SK_CANVAS_NODE_HEIGHT

typedef struct
{
  GtkWidget *window;
  SkCanvas  *canvas;
  SkProject *project;
  char      *folder;
  char      *run_node;
  guint      runs;
} Fixture;

static gboolean
flag_cb (gpointer data)
{
  gboolean *flag = data;

  *flag = TRUE;
  return G_SOURCE_REMOVE;
}

static void
run_node_cb (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  Fixture *f = user_data;

  f->runs++;
  g_free (f->run_node);
  f->run_node = g_variant_dup_string (parameter, NULL);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GSimpleAction) run_node = g_simple_action_new ("run-node", G_VARIANT_TYPE_STRING);
  gboolean timed_out = FALSE;
  guint timeout_id;

  f->folder = sk_test_make_tmp_dir ("canvas-paint");
  folder = g_file_new_for_path (f->folder);
  f->project = sk_project_new (folder);

  f->canvas = SK_CANVAS (g_object_ref_sink (sk_canvas_new ()));
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), WINDOW_WIDTH, WINDOW_HEIGHT);
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->canvas));

  /* The window's action that the run button activates. */
  g_signal_connect (run_node, "activate", G_CALLBACK (run_node_cb), f);
  g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (run_node));
  gtk_widget_insert_action_group (f->window, "win", G_ACTION_GROUP (group));
  gtk_window_present (GTK_WINDOW (f->window));

  timeout_id = g_timeout_add (WAIT_TIMEOUT_MS, flag_cb, &timed_out);
  while (!timed_out &&
         (!gtk_widget_get_mapped (GTK_WIDGET (f->canvas)) ||
          gtk_widget_get_width (GTK_WIDGET (f->canvas)) <= 0))
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (timed_out);
  g_source_remove (timeout_id);

  sk_canvas_set_project (f->canvas, f->project);
  while (g_main_context_iteration (NULL, FALSE));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  while (g_main_context_iteration (NULL, FALSE));

  g_assert_finalize_object (f->canvas);
  g_assert_finalize_object (f->project);

  sk_test_remove_tree (f->folder);
  g_free (f->folder);
  g_free (f->run_node);
}

static SkNode *
add_node (Fixture    *f,
          const char *name,
          double      x,
          double      y)
{
  g_autoptr(SkNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = sk_project_next_node_id (f->project);

  node = sk_node_new (id, name);
  sk_node_set_run (node, FALSE);
  sk_node_set_position (node, x, y);
  sk_project_add_node (f->project, node, &error);
  g_assert_no_error (error);

  return node;
}

static void
connect (SkNode *prior,
         SkNode *node)
{
  g_assert_true (sk_node_add_prior (node, sk_node_get_id (prior)));
}

/* Puts the model point (@mx, @my) at the widget point (@x, @y) at @zoom,
 * below any limit the canvas's own zooming keeps to. */
static void
set_view (Fixture *f,
          double   zoom,
          double   mx,
          double   my,
          double   x,
          double   y)
{
  f->canvas->zoom = zoom;
  f->canvas->offset_x = x - mx * zoom;
  f->canvas->offset_y = y - my * zoom;
  f->canvas->auto_fit = FALSE;
  f->canvas->fit_pending = FALSE;
  _sk_canvas_invalidate_edges (f->canvas);
}

static GdkTexture *
render_canvas (Fixture *f)
{
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (f->window));
  g_autoptr(GskRenderNode) node = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();

  g_assert_nonnull (renderer);
  _sk_canvas_snapshot (GTK_WIDGET (f->canvas), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);

  return gsk_renderer_render_texture (renderer, node,
                                      &GRAPHENE_RECT_INIT (0, 0, WINDOW_WIDTH, WINDOW_HEIGHT));
}

/* The colour at a model point, as 0xRRGGBB. */
static guint32
color_at (Fixture    *f,
          GdkTexture *texture,
          double      mx,
          double      my)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  gsize stride = (gsize) width * 4;
  g_autofree guchar *data = g_malloc (stride * height);
  double x, y;
  guchar *p;

  _sk_canvas_model_to_widget (f->canvas, mx, my, &x, &y);
  g_assert_cmpint ((int) x, >=, 0);
  g_assert_cmpint ((int) x, <, width);
  g_assert_cmpint ((int) y, >=, 0);
  g_assert_cmpint ((int) y, <, height);

  /* Downloads are cairo's ARGB32: B, G, R, A in memory here. */
  gdk_texture_download (texture, data, stride);
  p = data + (int) y * stride + (int) x * 4;

  return ((guint32) p[2] << 16) | ((guint32) p[1] << 8) | p[0];
}

static gboolean
is_error_red (guint32 color)
{
  return ((color >> 16) & 0xff) > 180 && ((color >> 8) & 0xff) < 90 && (color & 0xff) < 90;
}

/* Edges ------------------------------------------------------------------ */

static void
assert_outside_boxes (SkCanvasItem *a,
                      SkCanvasItem *b,
                      double        x,
                      double        y)
{
  g_assert_false (fabs (x - a->x) < NODE_W / 2 && fabs (y - a->y) < NODE_H / 2);
  g_assert_false (fabs (x - b->x) < NODE_W / 2 && fabs (y - b->y) < NODE_H / 2);
}

/* An edge leaves and enters on the sides of the boxes that face each
 * other, perpendicular to them, and never runs under a box. */
static void
test_edge_route (Fixture       *f,
                 gconstpointer  data)
{
  SkCanvasItem from = { .x = 0, .y = 0 };
  SkCanvasItem right = { .x = 300, .y = 20 };
  SkCanvasItem left = { .x = -300, .y = 0 };
  SkCanvasItem below = { .x = 40, .y = 200 };
  SkCanvasItem above = { .x = 0, .y = -200 };
  double p[8];

  _sk_canvas_edge_route (&from, &right, p);
  g_assert_cmpfloat (p[0], ==, NODE_W / 2);
  g_assert_cmpfloat (p[1], ==, 0);
  g_assert_cmpfloat (p[6], <, right.x - NODE_W / 2);
  g_assert_cmpfloat (p[6], >, right.x - NODE_W / 2 - 5);
  g_assert_cmpfloat (p[7], ==, right.y);
  g_assert_cmpfloat (p[3], ==, p[1]);
  g_assert_cmpfloat (p[5], ==, p[7]);
  for (int k = 0; k <= 16; k++)
    {
      double x, y;

      _sk_canvas_cubic_point (p, k / 16.0, &x, &y);
      assert_outside_boxes (&from, &right, x, y);
    }

  _sk_canvas_edge_route (&from, &left, p);
  g_assert_cmpfloat (p[0], ==, -NODE_W / 2);
  g_assert_cmpfloat (p[6], >, left.x + NODE_W / 2);
  g_assert_cmpfloat (p[2], <, p[0]);

  _sk_canvas_edge_route (&from, &below, p);
  g_assert_cmpfloat (p[0], ==, 0);
  g_assert_cmpfloat (p[1], ==, NODE_H / 2);
  g_assert_cmpfloat (p[6], ==, below.x);
  g_assert_cmpfloat (p[7], <, below.y - NODE_H / 2);
  g_assert_cmpfloat (p[2], ==, p[0]);
  g_assert_cmpfloat (p[4], ==, p[6]);

  _sk_canvas_edge_route (&from, &above, p);
  g_assert_cmpfloat (p[1], ==, -NODE_H / 2);
  g_assert_cmpfloat (p[7], >, above.y + NODE_H / 2);
  g_assert_cmpfloat (p[3], <, p[1]);
}

/* Clicking between two steps side by side selects the edge drawn there. */
static void
test_edge_hit (Fixture       *f,
               gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 300, 0);
  SkNode *prior = NULL;
  SkNode *node = NULL;
  double x, y;

  connect (a, b);
  set_view (f, 1.0, 150, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);

  _sk_canvas_model_to_widget (f->canvas, 150, 0, &x, &y);
  g_assert_true (_sk_canvas_edge_hit (f->canvas, x, y, &prior, &node));
  g_assert_true (prior == a);
  g_assert_true (node == b);

  /* Below the boxes, where edges used to run, there is none. */
  _sk_canvas_model_to_widget (f->canvas, 150, 60, &x, &y);
  g_assert_false (_sk_canvas_edge_hit (f->canvas, x, y, &prior, &node));
}

/* Text in the boxes ------------------------------------------------------ */

static void
test_task_line (Fixture       *f,
                gconstpointer  data)
{
  SkNode *a = add_node (f, "load", 0, 0);
  SkNode *b = add_node (f, "chart", 300, 0);
  SkCanvasItem *item;
  g_autoptr(GdkTexture) texture = NULL;

  sk_node_set_input_text (a, "  Read the sales.\nThen check them.");
  sk_node_set_input_text (b, "");
  set_view (f, 1.0, 0, 0, 200, 200);
  texture = render_canvas (f);

  item = _sk_canvas_lookup_item (f->canvas, a);
  g_assert_nonnull (item->task_layout);
  g_assert_cmpstr (pango_layout_get_text (item->task_layout), ==, "Read the sales.");
  g_assert_null (_sk_canvas_lookup_item (f->canvas, b)->task_layout);

  /* A new task replaces the line. */
  sk_node_set_input_text (a, "Count them");
  g_assert_null (item->task_layout);
  g_clear_object (&texture);
  texture = render_canvas (f);
  g_assert_cmpstr (pango_layout_get_text (item->task_layout), ==, "Count them");

  /* Zoomed out, where it could not be read, it is not laid out. */
  sk_node_set_input_text (a, "Count them again");
  set_view (f, 0.6, 0, 0, 200, 200);
  g_clear_object (&texture);
  texture = render_canvas (f);
  g_assert_null (item->task_layout);
}

/* At 100 % a usual name is read whole, and a long one takes two lines. */
static void
test_name_whole (Fixture       *f,
                 gconstpointer  data)
{
  SkNode *a = add_node (f, "revenue by region", 0, 0);
  SkNode *b = add_node (f, "add up the revenue of every region and product", 0, 200);
  g_autoptr(GdkTexture) texture = NULL;
  SkCanvasItem *item;

  set_view (f, 1.0, 0, 0, 200, 200);
  texture = render_canvas (f);

  item = _sk_canvas_lookup_item (f->canvas, a);
  g_assert_nonnull (item->layout);
  g_assert_false (pango_layout_is_ellipsized (item->layout));
  g_assert_cmpint (pango_layout_get_line_count (item->layout), ==, 1);

  item = _sk_canvas_lookup_item (f->canvas, b);
  g_assert_cmpint (pango_layout_get_line_count (item->layout), ==, 2);
}

/* Zoomed far out, a large workflow's names are still painted, as many as
 * there is room for; further out, only coloured boxes. */
static void
test_names_far (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GdkTexture) texture = NULL;
  guint columns = 20;

  for (guint i = 0; i < 300; i++)
    {
      g_autofree char *name = g_strdup_printf ("step number %u", i);

      add_node (f, name, (i % columns) * SK_CANVAS_GRID_DX, (i / columns) * SK_CANVAS_GRID_DY);
    }

  set_view (f, 0.1, 0, 0, 40, 40);
  texture = render_canvas (f);
  g_test_message ("%u names painted at 10 %%", f->canvas->names_painted);
  g_assert_cmpuint (f->canvas->names_painted, >=, 20);
  g_assert_cmpuint (f->canvas->names_painted, <, 300);

  set_view (f, 0.3, 0, 0, 40, 40);
  g_clear_object (&texture);
  texture = render_canvas (f);
  g_assert_cmpuint (f->canvas->names_painted, >=, 10);

  set_view (f, 0.01, 0, 0, 40, 40);
  g_clear_object (&texture);
  texture = render_canvas (f);
  g_assert_cmpuint (f->canvas->names_painted, ==, 0);
}

/* Problems --------------------------------------------------------------- */

static void
test_problem_marks (Fixture       *f,
                    gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 300, 0);
  const char *nodes[] = { sk_node_get_id (a), NULL };
  const char *edges[] = { sk_node_get_id (a), sk_node_get_id (b), NULL };
  g_autoptr(GdkTexture) plain = NULL;
  g_autoptr(GdkTexture) marked = NULL;
  g_autoptr(GdkTexture) cleared = NULL;
  /* The middle of a's top border, and a point on the edge. */
  double border_x = 20, border_y = -NODE_H / 2 + 1;
  double edge_x = 150, edge_y = 0;

  connect (a, b);
  set_view (f, 1.0, 150, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);

  plain = render_canvas (f);
  g_assert_false (is_error_red (color_at (f, plain, border_x, border_y)));
  g_assert_false (is_error_red (color_at (f, plain, edge_x, edge_y)));

  sk_canvas_set_problem_marks (f->canvas, nodes, edges);
  marked = render_canvas (f);
  g_assert_true (is_error_red (color_at (f, marked, border_x, border_y)));
  g_assert_true (is_error_red (color_at (f, marked, edge_x - 20, edge_y)));
  /* A badge sits on the edge's middle too. */
  g_assert_true (is_error_red (color_at (f, marked, edge_x + 3, edge_y + 3)));
  /* The badge sits on the box's top left corner. */
  g_assert_true (is_error_red (color_at (f, marked, -NODE_W / 2 + 3, -NODE_H / 2 - 3)));
  /* The other step is not marked. */
  g_assert_false (is_error_red (color_at (f, marked, 300 + 20, border_y)));

  sk_canvas_set_problem_marks (f->canvas, NULL, NULL);
  cleared = render_canvas (f);
  g_assert_false (is_error_red (color_at (f, cleared, border_x, border_y)));
  g_assert_false (is_error_red (color_at (f, cleared, -NODE_W / 2 + 3, -NODE_H / 2 - 3)));
}

/* A step without code is shown as not run, not as failed. */
static void
test_no_code_neutral (Fixture       *f,
                      gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  g_autoptr(GdkTexture) texture = NULL;

  sk_node_set_state (a, SK_NODE_STATE_NO_CODE);
  set_view (f, 1.0, 0, 0, 200, 200);
  texture = render_canvas (f);
  g_assert_false (is_error_red (color_at (f, texture, -NODE_W / 2 + 3, 0)));
  g_assert_cmpstr (sk_node_state_label (SK_NODE_STATE_NO_CODE), !=,
                   sk_node_state_label (SK_NODE_STATE_IDLE));
}

/* What flowed --------------------------------------------------------------- */

static void
test_flow_label (Fixture       *f,
                 gconstpointer  data)
{
  SkNode *a = add_node (f, "load sales", 0, 0);
  SkNode *b = add_node (f, "chart", 300, 0);
  const char *files[] = { "a.csv", "b.csv", "c.png", NULL };
  g_autoptr(GFile) folder = g_file_new_for_path (f->folder);
  g_autoptr(GFile) pickle = sk_step_folder_get_file (folder, sk_node_get_key (a), SK_STEP_FILE_PICKLE);
  g_autoptr(GFile) step_folder = g_file_get_parent (pickle);
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  char pickled[2048];
  SkCanvasItem *item = _sk_canvas_lookup_item (f->canvas, a);
  gboolean timed_out = FALSE;
  guint timeout_id;

  connect (a, b);
  memset (pickled, 'x', sizeof pickled);
  g_file_make_directory_with_parents (step_folder, NULL, NULL);
  g_assert_true (g_file_replace_contents (pickle, pickled, sizeof pickled, NULL, FALSE,
                                          G_FILE_CREATE_NONE, NULL, NULL, &error));
  g_assert_no_error (error);

  /* Nothing is known before the step has run. */
  sk_node_set_output_files (a, files);
  g_assert_null (item->flow_text);

  sk_node_set_state (a, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpstr (item->flow_text, ==, "3 files");

  /* The size of the saved output is asked for without blocking. */
  timeout_id = g_timeout_add (WAIT_TIMEOUT_MS, flag_cb, &timed_out);
  while (!timed_out && strstr (item->flow_text, "·") == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (timed_out);
  g_source_remove (timeout_id);
  g_assert_true (g_str_has_prefix (item->flow_text, "3 files · "));

  set_view (f, 1.0, 150, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  texture = render_canvas (f);
  g_assert_nonnull (item->flow_layout);

  /* Running again forgets it until it has run. */
  sk_node_set_state (a, SK_NODE_STATE_RUNNING);
  g_assert_null (item->flow_text);
}

/* The run button ----------------------------------------------------------- */

static void
test_run_button (Fixture       *f,
                 gconstpointer  data)
{
  SkNode *a = add_node (f, "revenue by region", 0, 0);
  SkNode *b = add_node (f, "chart", 300, 0);
  SkNode *hit = NULL;
  double x, y;

  set_view (f, 1.0, 150, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  sk_canvas_select_node (f->canvas, a);

  /* The button is at the right end of the selected box's state line. */
  _sk_canvas_model_to_widget (f->canvas, NODE_W / 2 - 8 - 11, NODE_H / 2 - 5 - 11, &x, &y);
  g_assert_true (_sk_canvas_run_button_at (f->canvas, x, y, &hit));
  g_assert_true (hit == a);

  _sk_canvas_click (f->canvas, x, y, GDK_BUTTON_PRIMARY, 0, 1);
  g_assert_cmpuint (f->runs, ==, 1);
  g_assert_cmpstr (f->run_node, ==, sk_node_get_key (a));

  /* Not on a step that is neither selected nor hovered. */
  _sk_canvas_model_to_widget (f->canvas, 300 + NODE_W / 2 - 8 - 11, NODE_H / 2 - 5 - 11, &x, &y);
  g_assert_false (_sk_canvas_run_button_at (f->canvas, x, y, &hit));

  /* Nor while a run is going: a click there selects as before. */
  sk_node_set_state (b, SK_NODE_STATE_RUNNING);
  _sk_canvas_model_to_widget (f->canvas, NODE_W / 2 - 8 - 11, NODE_H / 2 - 5 - 11, &x, &y);
  g_assert_false (_sk_canvas_run_button_at (f->canvas, x, y, &hit));
  _sk_canvas_click (f->canvas, x, y, GDK_BUTTON_PRIMARY, 0, 1);
  g_assert_cmpuint (f->runs, ==, 1);
  sk_node_set_state (b, SK_NODE_STATE_SUCCEEDED);

  /* Nor zoomed out. */
  set_view (f, 0.5, 150, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  _sk_canvas_model_to_widget (f->canvas, NODE_W / 2 - 8 - 11, NODE_H / 2 - 5 - 11, &x, &y);
  g_assert_false (_sk_canvas_run_button_at (f->canvas, x, y, &hit));
}

/* Proposals -------------------------------------------------------------- */

/* A rendered picture read back once, for looking at many points. */
typedef struct
{
  int     width;
  int     height;
  guchar *data;
} Pixels;

static void
pixels_clear (Pixels *pixels)
{
  g_clear_pointer (&pixels->data, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Pixels, pixels_clear)

static void
render_pixels (Fixture *f,
               Pixels  *pixels)
{
  g_autoptr(GdkTexture) texture = render_canvas (f);

  pixels_clear (pixels);
  pixels->width = gdk_texture_get_width (texture);
  pixels->height = gdk_texture_get_height (texture);
  pixels->data = g_malloc ((gsize) pixels->width * 4 * pixels->height);
  gdk_texture_download (texture, pixels->data, (gsize) pixels->width * 4);
}

static guint32
pixel_at (Fixture      *f,
          const Pixels *pixels,
          double        mx,
          double        my)
{
  double x, y;
  const guchar *p;

  _sk_canvas_model_to_widget (f->canvas, mx, my, &x, &y);
  g_assert_cmpint ((int) x, >=, 0);
  g_assert_cmpint ((int) x, <, pixels->width);
  g_assert_cmpint ((int) y, >=, 0);
  g_assert_cmpint ((int) y, <, pixels->height);
  p = pixels->data + (gsize) ((int) y * pixels->width + (int) x) * 4;

  return ((guint32) p[2] << 16) | ((guint32) p[1] << 8) | p[0];
}

static int
red_of (guint32 color)
{
  return (color >> 16) & 0xff;
}

static int
green_of (guint32 color)
{
  return (color >> 8) & 0xff;
}

static int
blue_of (guint32 color)
{
  return color & 0xff;
}

/* The accent colour, as a line is drawn in it: clearly blue. */
static gboolean
is_accent (guint32 color)
{
  return blue_of (color) > 200 && blue_of (color) - red_of (color) > 90;
}

/* How much bluer than grey a pixel is: above 0 for an accent tint. */
static int
blueness (guint32 color)
{
  return blue_of (color) - MAX (red_of (color), green_of (color) / 2 + red_of (color) / 2);
}

/* How many pixels match along the model line from (@x0, @y0) to
 * (@x1, @y1), sampled every model unit. */
static guint
count_along (Fixture      *f,
             const Pixels *pixels,
             double        x0,
             double        y0,
             double        x1,
             double        y1,
             gboolean    (*match) (guint32 color))
{
  double length = hypot (x1 - x0, y1 - y0);
  guint count = 0;

  for (double t = 0; t <= length; t += 1)
    {
      if (match (pixel_at (f, pixels, x0 + (x1 - x0) * t / length, y0 + (y1 - y0) * t / length)))
        count++;
    }

  return count;
}

typedef struct
{
  SkNode      *a;
  SkNode      *b;
  SkNode      *c;
  SkChangeset *changeset;
  char        *new_id;
} Proposal;

static void
proposal_clear (Proposal *proposal)
{
  g_clear_object (&proposal->changeset);
  g_clear_pointer (&proposal->new_id, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Proposal, proposal_clear)

/* Steps a → b side by side and c below a, connected a → c. The proposal
 * adds d below b with b as its prior, so at (300, 150), removes c, and
 * gives b a new task. */
static void
make_proposal (Fixture  *f,
               Proposal *proposal)
{
  const char *priors[] = { "b", NULL };
  g_autoptr(GError) error = NULL;

  proposal->a = add_node (f, "a", 0, 0);
  proposal->b = add_node (f, "b", 300, 0);
  proposal->c = add_node (f, "c", 0, 200);
  connect (proposal->a, proposal->b);
  connect (proposal->a, proposal->c);

  proposal->changeset = sk_changeset_new (f->project);
  g_assert_true (sk_changeset_add_step (proposal->changeset, "d", "Chart the totals.", NULL, priors,
                                        &proposal->new_id, &error));
  g_assert_no_error (error);
  g_assert_true (sk_changeset_remove_step (proposal->changeset, "c", &error));
  g_assert_no_error (error);
  g_assert_true (sk_changeset_set_task (proposal->changeset, "b", "Add them up.", &error));
  g_assert_no_error (error);

  set_view (f, 1.0, 150, 100, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
}

static guint
accent_on_box (Fixture      *f,
               const Pixels *pixels,
               double        x,
               double        y)
{
  /* Along the top and bottom borders, inside the box's edge, left of the
   * badge. */
  return count_along (f, pixels, x - NODE_W / 2 + 12, y - NODE_H / 2 + 1, x, y - NODE_H / 2 + 1, is_accent) +
         count_along (f, pixels, x - NODE_W / 2 + 12, y + NODE_H / 2 - 1, x + NODE_W / 2 - 12, y + NODE_H / 2 - 1, is_accent);
}

static guint
error_on_box (Fixture      *f,
              const Pixels *pixels,
              double        x,
              double        y)
{
  return count_along (f, pixels, x - NODE_W / 2 + 12, y + NODE_H / 2 - 1, x + NODE_W / 2 - 12, y + NODE_H / 2 - 1, is_error_red);
}

/* The view moves to a proposed step out of sight, and a click on one makes
 * no step: it is only a picture. */
static void
test_proposal_show_and_click (Fixture       *f,
                              gconstpointer  data)
{
  g_auto(Proposal) proposal = { NULL, };
  double x, y;
  guint n_before;

  make_proposal (f, &proposal);
  sk_canvas_set_proposal (f->canvas, proposal.changeset);

  /* d, at (300, 150), far left of the view. */
  set_view (f, 1.0, 300 + WINDOW_WIDTH, 150, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  _sk_canvas_model_to_widget (f->canvas, 300, 150, &x, &y);
  g_assert_cmpfloat (x, <, 0);

  sk_canvas_show_proposal (f->canvas);
  _sk_canvas_model_to_widget (f->canvas, 300, 150, &x, &y);
  g_assert_cmpfloat (x - NODE_W / 2, >=, 0);
  g_assert_cmpfloat (x + NODE_W / 2, <=, gtk_widget_get_width (GTK_WIDGET (f->canvas)));
  g_assert_cmpfloat (y - NODE_H / 2, >=, 0);
  g_assert_cmpfloat (y + NODE_H / 2, <=, gtk_widget_get_height (GTK_WIDGET (f->canvas)));

  n_before = sk_project_get_n_nodes (f->project);
  _sk_canvas_click (f->canvas, x, y, GDK_BUTTON_PRIMARY, 0, 1);
  g_assert_cmpuint (sk_project_get_n_nodes (f->project), ==, n_before);

  /* Without the proposal, a click there adds a step, as on any empty
   * place. */
  sk_canvas_set_proposal (f->canvas, NULL);
  _sk_canvas_click (f->canvas, x, y, GDK_BUTTON_PRIMARY, 0, 1);
  g_assert_cmpuint (sk_project_get_n_nodes (f->project), ==, n_before + 1);
}

static void
check_proposal_paint (Fixture *f)
{
  g_auto(Proposal) proposal = { NULL, };
  g_auto(Pixels) plain = { 0, };
  g_auto(Pixels) shown = { 0, };
  g_auto(Pixels) rejected = { 0, };
  g_auto(Pixels) cleared = { 0, };
  double x, y;
  /* A point inside d's box, clear of its text. */
  double inside_x = 300 + NODE_W / 2 - 20, inside_y = 150 + NODE_H / 2 - 8;
  int tint;

  make_proposal (f, &proposal);
  render_pixels (f, &plain);
  g_assert_cmpuint (accent_on_box (f, &plain, 300, 150), ==, 0);
  g_assert_cmpint (blueness (pixel_at (f, &plain, inside_x, inside_y)), <=, 2);
  g_assert_cmpuint (error_on_box (f, &plain, 0, 200), ==, 0);

  sk_canvas_set_proposal (f->canvas, proposal.changeset);
  g_assert_true (sk_canvas_get_proposal (f->canvas) == proposal.changeset);
  render_pixels (f, &shown);

  /* The new step: a dashed accent outline and a tinted box. */
  g_assert_cmpuint (accent_on_box (f, &shown, 300, 150), >, 40);
  tint = blueness (pixel_at (f, &shown, inside_x, inside_y));
  g_assert_cmpint (tint, >, 8);
  /* Its connection from b, dashed, down the middle. */
  g_assert_cmpuint (count_along (f, &shown, 300, NODE_H / 2 + 4, 300, 150 - NODE_H / 2 - 12, is_accent), >, 20);
  g_assert_cmpuint (count_along (f, &shown, 300, NODE_H / 2 + 4, 300, 150 - NODE_H / 2 - 12, is_accent), <,
                    (guint) (150 - NODE_H - 16));
  /* The changed step is outlined too. */
  g_assert_cmpuint (accent_on_box (f, &shown, 300, 0), >, 40);
  /* The removed step, and the connection that goes with it, in the error
   * colour. */
  g_assert_cmpuint (error_on_box (f, &shown, 0, 200), >, 40);
  g_assert_cmpuint (count_along (f, &shown, 0, NODE_H / 2 + 4, 0, 200 - NODE_H / 2 - 12, is_error_red), >, 20);
  /* The step not in the proposal is not marked. */
  g_assert_cmpuint (accent_on_box (f, &shown, 0, 0), ==, 0);
  g_assert_cmpuint (error_on_box (f, &shown, 0, 0), ==, 0);

  /* The new step is only a picture: there is no step there to select. */
  _sk_canvas_model_to_widget (f->canvas, 300, 150, &x, &y);
  g_assert_null (_sk_canvas_node_at (f->canvas, x, y));

  /* Rejected, the new step is fainter but still there, and the removed one
   * is drawn as it is. */
  sk_changeset_set_step_accepted (proposal.changeset, proposal.new_id, FALSE);
  sk_changeset_set_step_accepted (proposal.changeset, sk_node_get_id (proposal.c), FALSE);
  sk_canvas_proposal_changed (f->canvas);
  render_pixels (f, &rejected);
  g_assert_cmpuint (accent_on_box (f, &rejected, 300, 150), ==, 0);
  g_assert_cmpint (blueness (pixel_at (f, &rejected, inside_x, inside_y)), <, tint);
  g_assert_cmpint (blueness (pixel_at (f, &rejected, inside_x, inside_y)), >, 2);
  g_assert_cmpuint (count_along (f, &rejected, 300, NODE_H / 2 + 4, 300, 150 - NODE_H / 2 - 12, is_accent), ==, 0);
  g_assert_cmpuint (error_on_box (f, &rejected, 0, 200), ==, 0);
  g_assert_cmpuint (count_along (f, &rejected, 0, NODE_H / 2 + 4, 0, 200 - NODE_H / 2 - 12, is_error_red), ==, 0);
  g_assert_cmpuint (accent_on_box (f, &rejected, 300, 0), >, 40);

  /* Cleared, the workflow is drawn as before. */
  sk_canvas_set_proposal (f->canvas, NULL);
  g_assert_null (sk_canvas_get_proposal (f->canvas));
  render_pixels (f, &cleared);
  g_assert_cmpmem (cleared.data, (gsize) cleared.width * 4 * cleared.height,
                   plain.data, (gsize) plain.width * 4 * plain.height);
}

static void
test_proposal_light (Fixture       *f,
                     gconstpointer  data)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_LIGHT);
  g_assert_false (adw_style_manager_get_dark (manager));
  check_proposal_paint (f);
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_DEFAULT);
}

static void
test_proposal_dark (Fixture       *f,
                    gconstpointer  data)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_DARK);
  g_assert_true (adw_style_manager_get_dark (manager));
  check_proposal_paint (f);
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_DEFAULT);
}

/* A connection the chat removes is dashed in the error colour and crossed
 * out in its middle; one it adds between steps of the workflow is dashed
 * in the accent colour. Both follow the workflow when its steps move. */
static void
test_proposal_edges (Fixture       *f,
                     gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 300, 0);
  SkNode *c = add_node (f, "c", 300, 200);
  g_autoptr(SkChangeset) changeset = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(Pixels) plain = { 0, };
  g_auto(Pixels) shown = { 0, };
  g_auto(Pixels) moved = { 0, };

  connect (a, b);
  changeset = sk_changeset_new (f->project);
  g_assert_true (sk_changeset_disconnect (changeset, "a", "b", &error));
  g_assert_no_error (error);
  g_assert_true (sk_changeset_connect (changeset, "b", "c", &error));
  g_assert_no_error (error);
  set_view (f, 1.0, 150, 100, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);

  render_pixels (f, &plain);
  g_assert_false (is_error_red (pixel_at (f, &plain, 150, 0)));
  g_assert_cmpuint (count_along (f, &plain, 300, NODE_H / 2 + 4, 300, 200 - NODE_H / 2 - 12, is_accent), ==, 0);

  sk_canvas_set_proposal (f->canvas, changeset);
  render_pixels (f, &shown);
  /* The cross sits on the middle of the removed connection. */
  g_assert_true (is_error_red (pixel_at (f, &shown, 150, 0)));
  g_assert_true (is_error_red (pixel_at (f, &shown, 150 + 3, 3)));
  g_assert_cmpuint (count_along (f, &shown, NODE_W / 2 + 4, 0, 150 - 10, 0, is_error_red), >, 15);
  g_assert_cmpuint (count_along (f, &shown, 300, NODE_H / 2 + 4, 300, 200 - NODE_H / 2 - 12, is_accent), >, 20);

  /* Moving c takes its proposed connection along. */
  sk_node_set_position (c, 600, 200);
  set_view (f, 1.0, 300, 100, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  render_pixels (f, &moved);
  g_assert_cmpuint (count_along (f, &moved, 300, 80, 300, 200 - NODE_H / 2 - 12, is_accent), ==, 0);
  g_assert_cmpuint (count_along (f, &moved, 590, 200 - NODE_H / 2 - 8, 610, 200 - NODE_H / 2 - 8, is_accent), >, 0);

  /* Removing a step of the workflow under the proposal leaves no mark of
   * its connection. */
  sk_project_remove_node (f->project, a);
  g_clear_pointer (&moved.data, g_free);
  render_pixels (f, &moved);
  g_assert_false (is_error_red (pixel_at (f, &moved, 150, 0)));
  g_assert_false (is_error_red (pixel_at (f, &moved, 150 + 3, 3)));
}

/* A draft for an empty workflow has no places; its steps are shown in rows
 * by their priors, and Fit can show them. */
static void
test_proposal_draft (Fixture       *f,
                     gconstpointer  data)
{
  const char *second_priors[] = { "load", NULL };
  g_autoptr(SkChangeset) changeset = sk_changeset_new (f->project);
  g_autoptr(GError) error = NULL;
  graphene_rect_t bounds;

  g_assert_true (sk_changeset_add_step (changeset, "load", "Read the sales.", NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (sk_changeset_add_step (changeset, "sum", "Add them up.", NULL, second_priors, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (sk_changeset_add_step (changeset, "chart", "Draw them.", NULL, second_priors, NULL, &error));
  g_assert_no_error (error);

  g_assert_false (_sk_canvas_proposal_bounds (f->canvas, &bounds));
  sk_canvas_set_proposal (f->canvas, changeset);
  g_assert_true (_sk_canvas_proposal_bounds (f->canvas, &bounds));
  /* One step on the first row, two side by side below it. */
  g_assert_cmpfloat_with_epsilon (bounds.size.height, 150 + NODE_H, 0.01);
  g_assert_cmpfloat_with_epsilon (bounds.size.width, SK_CANVAS_GRID_DX + NODE_W, 0.01);

  /* Each is drawn in its place, zoomed in and far out. */
  for (guint k = 0; k < 2; k++)
    {
      g_auto(Pixels) shown = { 0, };
      double zoom = k == 0 ? 1.0 : 0.3;
      double left = bounds.origin.x + NODE_W / 2;
      double top = bounds.origin.y + NODE_H / 2;

      set_view (f, zoom, bounds.origin.x + bounds.size.width / 2, bounds.origin.y + bounds.size.height / 2,
                WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
      render_pixels (f, &shown);
      g_assert_cmpint (blueness (pixel_at (f, &shown, left + SK_CANVAS_GRID_DX / 2 + 70, top + 20)), >, 8);
      g_assert_cmpint (blueness (pixel_at (f, &shown, left + 70, top + 150 + 20)), >, 8);
      g_assert_cmpint (blueness (pixel_at (f, &shown, left + SK_CANVAS_GRID_DX + 70, top + 150 + 20)), >, 8);
      /* Between the rows there is only the connection. */
      g_assert_cmpint (blueness (pixel_at (f, &shown, left + 70, top + 150 / 2)), <=, 2);
    }
}

/* Control flow ----------------------------------------------------------- */

/* Sets the members of @node's "skele" object given in @members, a JSON
 * object, keeping the others. */
static void
set_skele (SkNode     *node,
           const char *members)
{
  g_autoptr(JsonObject) object = sk_node_to_json (node);
  g_autoptr(JsonNode) parsed = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GList) names = NULL;
  JsonObject *skele;

  parsed = json_from_string (members, &error);
  g_assert_no_error (error);
  if (!json_object_has_member (object, "skele"))
    json_object_set_object_member (object, "skele", json_object_new ());
  skele = json_object_get_object_member (object, "skele");
  names = json_object_get_members (json_node_get_object (parsed));
  for (GList *l = names; l != NULL; l = l->next)
    json_object_set_member (skele, l->data,
                            json_node_copy (json_object_get_member (json_node_get_object (parsed), l->data)));

  g_assert_true (sk_node_update_from_json (node, object, &error));
  g_assert_no_error (error);
}

/* How many pixels differ between @a and @b in the widget rectangle around
 * the model point (@mx, @my), @dx and @dy model units either side. */
static guint
count_changed (Fixture      *f,
               const Pixels *a,
               const Pixels *b,
               double        mx,
               double        my,
               double        dx,
               double        dy)
{
  double x0, y0, x1, y1;
  guint count = 0;

  _sk_canvas_model_to_widget (f->canvas, mx - dx, my - dy, &x0, &y0);
  _sk_canvas_model_to_widget (f->canvas, mx + dx, my + dy, &x1, &y1);
  for (int y = MAX (0, (int) y0); y <= MIN (a->height - 1, (int) y1); y++)
    for (int x = MAX (0, (int) x0); x <= MIN (a->width - 1, (int) x1); x++)
      {
        gsize at = ((gsize) y * a->width + x) * 4;

        if (memcmp (a->data + at, b->data + at, 4) != 0)
          count++;
      }

  return count;
}

static const char *
condition_label_text (SkCanvasItem *item,
                      SkNode       *prior)
{
  SkCanvasConditionLabel *label;

  g_assert_nonnull (item->condition_labels);
  label = g_hash_table_lookup (item->condition_labels, sk_node_get_id (prior));
  g_assert_nonnull (label);

  return pango_layout_get_text (label->layout);
}

/* A condition is drawn as the label on its edge, an expression
 * cut short and the default branch as "otherwise"; zoomed out it is drawn
 * as long as the names are, and no longer. */
static void
test_condition_label (Fixture       *f,
                      gconstpointer  data)
{
  SkNode *a = add_node (f, "score", 0, 0);
  SkNode *b = add_node (f, "report", 600, 0);
  SkCanvasItem *item = _sk_canvas_lookup_item (f->canvas, b);
  const double zooms[] = { 1.0, 0.5, 0.02 };
  g_auto(Pixels) plain_near = { 0, };
  g_auto(Pixels) plain_out = { 0, };
  g_auto(Pixels) plain_far = { 0, };
  Pixels *plain[] = { &plain_near, &plain_out, &plain_far };
  g_auto(Pixels) shown = { 0, };
  g_autofree char *when = NULL;

  double route[8];
  double lx, ly;

  connect (a, b);
  for (guint k = 0; k < G_N_ELEMENTS (zooms); k++)
    {
      set_view (f, zooms[k], 300, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
      render_pixels (f, plain[k]);
    }

  /* Where the label sits on the edge. */
  _sk_canvas_edge_route (_sk_canvas_lookup_item (f->canvas, a), item, route);
  _sk_canvas_cubic_point (route, SK_CANVAS_CONDITION_POSITION, &lx, &ly);

  when = g_strdup_printf ("{\"when\": {\"%s\": \"output['score'] >= 80\"}}", sk_node_get_id (a));
  set_skele (b, when);
  set_view (f, 1.0, 300, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  render_pixels (f, &shown);
  g_assert_cmpstr (condition_label_text (item, a), ==, "output['score'] >= 80");
  g_assert_cmpuint (count_changed (f, plain[0], &shown, lx, ly, 40, 8), >, 100);
  /* Only there: the boxes are as they were. */
  g_assert_cmpuint (count_changed (f, plain[0], &shown, 0, 0, NODE_W / 2, NODE_H / 2), ==, 0);
  g_assert_cmpuint (count_changed (f, plain[0], &shown, 600, 0, NODE_W / 2, NODE_H / 2), ==, 0);

  /* Zoomed out as far as names are drawn, it keeps its size on screen. */
  set_view (f, zooms[1], 300, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  render_pixels (f, &shown);
  g_assert_cmpuint (count_changed (f, plain[1], &shown, lx, ly, 40 / zooms[1], 8 / zooms[1]), >, 100);

  /* Farther out, where names are not drawn, it is not either. */
  set_view (f, zooms[2], 300, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  render_pixels (f, &shown);
  g_assert_cmpmem (shown.data, (gsize) shown.width * 4 * shown.height,
                   plain[2]->data, (gsize) plain[2]->width * 4 * plain[2]->height);

  /* A long expression is cut, on one line. */
  g_free (when);
  when = g_strdup_printf ("{\"when\": {\"%s\": \"len(output['rows'])\\n  > 1000 and output['ok']\"}}",
                          sk_node_get_id (a));
  set_skele (b, when);
  set_view (f, 1.0, 300, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  render_pixels (f, &shown);
  g_assert_cmpstr (condition_label_text (item, a), ==, "len(output['rows']) > 1…");
  g_assert_cmpuint (count_changed (f, plain[0], &shown, lx, ly, 40, 8), >, 100);

  /* The default branch is drawn too. */
  g_free (when);
  when = g_strdup_printf ("{\"when\": {\"%s\": \"default\"}}", sk_node_get_id (a));
  set_skele (b, when);
  render_pixels (f, &shown);
  g_assert_cmpstr (condition_label_text (item, a), ==, "otherwise");
  g_assert_cmpuint (count_changed (f, plain[0], &shown, lx, ly, 30, 8), >, 100);

  /* Without the condition, the edge is plain again. */
  g_free (when);
  when = g_strdup_printf ("{\"when\": {}}");
  set_skele (b, when);
  render_pixels (f, &shown);
  g_assert_cmpmem (shown.data, (gsize) shown.width * 4 * shown.height,
                   plain[0]->data, (gsize) plain[0]->width * 4 * plain[0]->height);
}

/* An approval gate, a for-each and a sub-workflow step each have a badge
 * on the left of the bottom edge of their box; a plain step has none. */
static void
test_control_badges (Fixture       *f,
                     gconstpointer  data)
{
  SkNode *plain_step = add_node (f, "load", 0, 0);
  SkNode *gate = add_node (f, "check", 300, 0);
  SkNode *each = add_node (f, "per file", 0, 200);
  SkNode *sub = add_node (f, "summarise", 300, 200);
  SkNode *steps[] = { plain_step, gate, each, sub };
  g_auto(Pixels) plain = { 0, };
  g_auto(Pixels) shown = { 0, };
  g_auto(Pixels) ungated = { 0, };
  g_autofree char *foreach = NULL;
  /* The badge's left half, relative to a step's centre. */
  double badge_x = -NODE_W / 2 + 30, badge_y = NODE_H / 2;

  connect (plain_step, each);
  set_view (f, 1.0, 150, 100, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  render_pixels (f, &plain);

  set_skele (gate, "{\"approval\": true}");
  foreach = g_strdup_printf ("{\"foreach\": {\"prior\": \"%s\", \"path\": \"files\"}}",
                             sk_node_get_id (plain_step));
  set_skele (each, foreach);
  set_skele (sub, "{\"workflow\": \"sub/summary\"}");
  render_pixels (f, &shown);

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      SkCanvasItem *item = _sk_canvas_lookup_item (f->canvas, steps[i]);
      guint changed = count_changed (f, &plain, &shown, item->x + badge_x, item->y + badge_y, 20, 6);

      if (steps[i] == plain_step)
        g_assert_cmpuint (changed, ==, 0);
      else
        g_assert_cmpuint (changed, >, 50);
    }
  g_assert_cmpstr (pango_layout_get_text (_sk_canvas_lookup_item (f->canvas, gate)->control_layout), ==, "Approval");
  g_assert_cmpstr (pango_layout_get_text (_sk_canvas_lookup_item (f->canvas, each)->control_layout), ==, "For each");
  g_assert_cmpstr (pango_layout_get_text (_sk_canvas_lookup_item (f->canvas, sub)->control_layout), ==, "Workflow");

  /* Kinds that go together share the badge. */
  set_skele (sub, "{\"approval\": true}");
  render_pixels (f, &ungated);
  g_assert_cmpstr (pango_layout_get_text (_sk_canvas_lookup_item (f->canvas, sub)->control_layout), ==,
                   "Approval · Workflow");

  /* A gate that is no longer one loses its badge. */
  set_skele (gate, "{\"approval\": false}");
  render_pixels (f, &ungated);
  g_assert_cmpuint (count_changed (f, &plain, &ungated, 300 + badge_x, badge_y, 20, 6), ==, 0);
  g_assert_null (_sk_canvas_lookup_item (f->canvas, gate)->control_layout);

  /* Zoomed out, where a step is a coloured box, there are no badges. */
  set_view (f, 0.3, 150, 100, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  g_clear_pointer (&plain.data, g_free);
  set_skele (each, "{\"foreach\": null}");
  set_skele (sub, "{\"approval\": false, \"workflow\": null}");
  render_pixels (f, &plain);
  set_skele (each, foreach);
  set_skele (sub, "{\"approval\": true, \"workflow\": \"sub/summary\"}");
  render_pixels (f, &shown);
  g_assert_cmpmem (shown.data, (gsize) shown.width * 4 * shown.height,
                   plain.data, (gsize) plain.width * 4 * plain.height);
}

/* The picture kept across frames ----------------------------------------- */

/* A frame drawn from what the canvas keeps must be the frame it would
 * draw from nothing: renders once as the canvas is, then again after
 * dropping its tiles, and compares the two. */
static void
assert_same_as_fresh (Fixture      *f,
                      const Pixels *kept)
{
  g_auto(Pixels) fresh = { 0, };

  _sk_canvas_tiles_invalidate (f->canvas);
  render_pixels (f, &fresh);
  g_assert_cmpint (fresh.width, ==, kept->width);
  g_assert_cmpint (fresh.height, ==, kept->height);
  g_assert_cmpmem (kept->data, (gsize) kept->width * 4 * kept->height,
                   fresh.data, (gsize) fresh.width * 4 * fresh.height);
}

/* A point in a step's box, in model units from its centre, between its
 * state's stripe and its text, where the box is plain. */
#define PLAIN_X (-NODE_W / 2 + 12)

static SkCanvasTile *
tile_at (Fixture *f,
         double   mx,
         double   my)
{
  return _sk_canvas_tiles_lookup (f->canvas,
                                  (int) floor (mx * f->canvas->zoom / 256),
                                  (int) floor (my * f->canvas->zoom / 256));
}

/* The canvas keeps its picture in tiles across frames. Panning draws none
 * again; each change the user makes, through the canvas's own tools or to
 * the workflow as the window makes it, shows in the next frame, which is
 * the frame the canvas would draw from nothing. */
static void
test_cache_invalidated (Fixture       *f,
                        gconstpointer  data)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  SkNode *a = add_node (f, "load the sales", 0, 0);
  SkNode *b = add_node (f, "chart", 300, 0);
  g_auto(Pixels) before = { 0, };
  g_auto(Pixels) after = { 0, };
  SkCanvasItem *item = _sk_canvas_lookup_item (f->canvas, a);
  SkCanvasTile *tile;
  GskRenderNode *kept;
  double x, y;
  guint32 color;

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_LIGHT);
  connect (a, b);
  set_view (f, 1.0, 150, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  render_pixels (f, &before);
  tile = tile_at (f, 0, 0);
  g_assert_nonnull (tile);
  kept = tile->node;
  g_assert_nonnull (kept);
  assert_same_as_fresh (f, &before);

  /* Panning keeps the tiles and moves them. */
  render_pixels (f, &before);
  kept = tile_at (f, 0, 0)->node;
  color = pixel_at (f, &before, -NODE_W / 2 + 3, 0);
  _sk_canvas_scroll (f->canvas, 0, 0, 7, -5, 0);
  render_pixels (f, &after);
  g_assert_true (tile_at (f, 0, 0)->node == kept);
  g_assert_cmphex (pixel_at (f, &after, PLAIN_X, 0), ==, 0xffffff);
  g_assert_cmphex (pixel_at (f, &after, -NODE_W / 2 + 3, 0), ==, color);
  assert_same_as_fresh (f, &after);

  /* A run changes the step's state: its stripe turns red. */
  sk_node_set_state (a, SK_NODE_STATE_FAILED);
  render_pixels (f, &after);
  g_assert_true (is_error_red (pixel_at (f, &after, -NODE_W / 2 + 3, 0)));
  assert_same_as_fresh (f, &after);

  /* Selecting it with a click outlines it in the accent colour. */
  _sk_canvas_model_to_widget (f->canvas, 0, 0, &x, &y);
  _sk_canvas_click (f->canvas, x, y, GDK_BUTTON_PRIMARY, 0, 1);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  render_pixels (f, &after);
  color = pixel_at (f, &after, 0, -NODE_H / 2 + 1);
  g_assert_cmpint (blue_of (color), >, red_of (color) + 80);
  assert_same_as_fresh (f, &after);

  /* Marking it to run, with a right-click, rings it in green. */
  render_pixels (f, &before);
  _sk_canvas_click (f->canvas, x, y, GDK_BUTTON_SECONDARY, 0, 1);
  g_assert_true (sk_node_get_run (a));
  render_pixels (f, &after);
  color = pixel_at (f, &after, -NODE_W / 2 - 5.5, 0);
  g_assert_cmpint (green_of (color), >, red_of (color) + 80);
  assert_same_as_fresh (f, &after);

  /* Renaming it changes its box. */
  render_pixels (f, &before);
  sk_node_set_name (a, "load the sales of every region");
  render_pixels (f, &after);
  g_assert_cmpuint (count_changed (f, &before, &after, 0, 0, NODE_W / 2, NODE_H / 2), >, 20);
  assert_same_as_fresh (f, &after);

  /* Dragged, it follows the pointer, and its tiles are drawn without it;
   * dropped, it is in the tiles where it was dropped. */
  render_pixels (f, &before);
  g_assert_true (_sk_canvas_drag_begin (f->canvas, x, y, 0));
  _sk_canvas_drag_update (f->canvas, 0, 150);
  g_assert_true (item->moving);
  render_pixels (f, &after);
  g_assert_cmphex (pixel_at (f, &after, PLAIN_X, 150), ==, 0xffffff);
  g_assert_cmphex (pixel_at (f, &after, PLAIN_X, 0), !=, 0xffffff);
  assert_same_as_fresh (f, &after);
  _sk_canvas_drag_update (f->canvas, 0, 200);
  render_pixels (f, &after);
  g_assert_cmphex (pixel_at (f, &after, PLAIN_X, 200), ==, 0xffffff);
  g_assert_cmphex (pixel_at (f, &after, PLAIN_X, 150), !=, 0xffffff);
  _sk_canvas_drag_end (f->canvas, 0, 200);
  g_assert_false (item->moving);
  render_pixels (f, &after);
  g_assert_cmphex (pixel_at (f, &after, PLAIN_X, 200), ==, 0xffffff);
  g_assert_cmphex (pixel_at (f, &after, PLAIN_X, 0), !=, 0xffffff);
  assert_same_as_fresh (f, &after);

  /* A condition on the connection is drawn along it, outside both boxes. */
  render_pixels (f, &before);
  sk_node_set_condition (b, sk_node_get_id (a), "output[\"n\"] > 3");
  render_pixels (f, &after);
  g_assert_false (memcmp (before.data, after.data, (gsize) after.width * 4 * after.height) == 0);
  assert_same_as_fresh (f, &after);

  /* Zoomed out, names are drawn unscaled over the boxes; a new name shows. */
  set_view (f, 0.3, 150, 100, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  render_pixels (f, &before);
  sk_node_set_name (b, "a chart of the sales by region and year");
  render_pixels (f, &after);
  g_assert_cmpuint (count_changed (f, &before, &after, 300, 0, NODE_W / 2, NODE_H / 2), >, 20);
  assert_same_as_fresh (f, &after);

  /* The dark style draws everything again in its colours. */
  set_view (f, 1.0, 150, 100, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  render_pixels (f, &before);
  g_assert_cmpint (red_of (pixel_at (f, &before, 150, -150)), >, 0xe0);
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_DARK);
  render_pixels (f, &after);
  g_assert_cmpint (red_of (pixel_at (f, &after, 150, -150)), <, 0x40);
  g_assert_cmpint (red_of (pixel_at (f, &after, 0, 200)), <, 0x80);
  assert_same_as_fresh (f, &after);

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_DEFAULT);
}

/* During a run, a step's new state is drawn into the pictures of its
 * tiles around the step only, with all that the tiles draw there; each
 * state shows, and the frame is the one the canvas would draw from
 * nothing. */
static void
test_cache_patched (Fixture       *f,
                    gconstpointer  data)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  SkNode *steps[6];
  g_auto(Pixels) after = { 0, };
  SkCanvasTile *tile;
  cairo_surface_t *picture;

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_LIGHT);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_autofree char *name = g_strdup_printf ("step %u", i + 1);

      steps[i] = add_node (f, name, (i % 3) * 220.0, (i / 3) * 110.0);
    }
  connect (steps[0], steps[3]);
  connect (steps[1], steps[4]);
  connect (steps[0], steps[5]);
  set_view (f, 1.0, 150, 0, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  render_pixels (f, &after);

  /* A change draws the part of the tile around the step into its picture,
   * not a new picture. */
  tile = tile_at (f, 0, 0);
  picture = tile->picture;
  g_assert_nonnull (picture);
  sk_node_set_state (steps[0], SK_NODE_STATE_FAILED);
  render_pixels (f, &after);
  g_assert_true (tile_at (f, 0, 0) == tile);
  g_assert_true (tile->picture == picture);
  g_assert_true (is_error_red (pixel_at (f, &after, -NODE_W / 2 + 3, 0)));
  assert_same_as_fresh (f, &after);

  /* Steps start and finish, one at a time, as in a run. */
  render_pixels (f, &after);
  for (guint round = 0; round < 4; round++)
    for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
      {
        SkNodeState state = round % 2 == 0 ? SK_NODE_STATE_RUNNING : SK_NODE_STATE_SUCCEEDED;

        sk_node_set_state (steps[i], i == 0 && round == 3 ? SK_NODE_STATE_FAILED : state);
        render_pixels (f, &after);
      }
  g_assert_true (is_error_red (pixel_at (f, &after, -NODE_W / 2 + 3, 0)));
  assert_same_as_fresh (f, &after);

  /* The same when a click selects a step, which outlines it. */
  render_pixels (f, &after);
  _sk_canvas_select_only (f->canvas, steps[4]);
  render_pixels (f, &after);
  assert_same_as_fresh (f, &after);

  /* Zoomed out, where steps are coloured boxes under their names. */
  set_view (f, 0.3, 150, 100, WINDOW_WIDTH / 2.0, WINDOW_HEIGHT / 2.0);
  render_pixels (f, &after);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      sk_node_set_state (steps[i], SK_NODE_STATE_QUEUED);
      render_pixels (f, &after);
    }
  assert_same_as_fresh (f, &after);

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_DEFAULT);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      printf ("1..0 # SKIP no display\n");
      return 0;
    }

  adw_init ();
  sk_widgets_init ();

#define ADD(path, func) \
  g_test_add ("/canvas-paint/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("edge-route", test_edge_route);
  ADD ("edge-hit", test_edge_hit);
  ADD ("task-line", test_task_line);
  ADD ("name-whole", test_name_whole);
  ADD ("names-far", test_names_far);
  ADD ("problem-marks", test_problem_marks);
  ADD ("no-code-neutral", test_no_code_neutral);
  ADD ("flow-label", test_flow_label);
  ADD ("run-button", test_run_button);
  ADD ("proposal-light", test_proposal_light);
  ADD ("proposal-dark", test_proposal_dark);
  ADD ("proposal-edges", test_proposal_edges);
  ADD ("proposal-draft", test_proposal_draft);
  ADD ("proposal-show-and-click", test_proposal_show_and_click);
  ADD ("condition-label", test_condition_label);
  ADD ("control-badges", test_control_badges);
  ADD ("cache-invalidated", test_cache_invalidated);
  ADD ("cache-patched", test_cache_patched);

  return g_test_run ();
}
