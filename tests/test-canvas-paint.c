/* test-canvas-paint.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Widget tests for what the workflow canvas paints: where edges attach,
 * the text in a step's box at each level of detail, problem marks, what
 * flowed along an edge after a run, and the run button on a box. The
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
  g_assert_cmpstr (_sk_canvas_state_label (SK_NODE_STATE_NO_CODE), !=,
                   _sk_canvas_state_label (SK_NODE_STATE_IDLE));
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

  return g_test_run ();
}
