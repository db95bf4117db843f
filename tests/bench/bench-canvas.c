/* bench-canvas.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Figures for the workflow canvas, not a test: how long the canvas takes to
 * build and render one frame of workflows of 100, 1,000 and 5,000 steps
 * with about twice as many edges, and how long it takes from launching the
 * process to the first frame that shows a 1,000-step workflow.
 *
 * Frames are built by calling the canvas's snapshot function, as the window
 * does, and rendered offscreen with the window's renderer. In GTK 4.8 a
 * GtkWidgetPaintable outside a widget's snapshot only replays the last frame
 * the window drew, so it would not measure the canvas at all.
 *
 * Environment: SKELE_BENCH_FRAMES (frames per median, default 20) and
 * SKELE_BENCH_SIZES (the workflows' sizes to measure, such as "0,5000";
 * default all), SKELE_BENCH_PICTURES (a folder to save a frame of each
 * row in).
 */

#define G_LOG_DOMAIN "bench-canvas"

#include <math.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <adwaita.h>

#include "sk-canvas-private.h"
#include "sk-test-util.h"
#include "sk-project.h"
#include "sk-widgets.h"

#define WINDOW_WIDTH 1280
#define WINDOW_HEIGHT 800
#define WARM_UP_FRAMES 3
#define DEFAULT_FRAMES 20
#define WINDOW_FRAMES 30
#define LAUNCH_NODES 1000
#define SPACING_X 220.0
#define SPACING_Y 110.0
#define TIMEOUT_MS 60000

typedef struct
{
  double build;
  double render;
  double total;
} Frame;

typedef struct
{
  GtkWidget *window;
  SkCanvas  *canvas;
  GtkWidget *probe;
  gint64     probe_time;
  gint64     paint_time;
  guint      painted;
  int        pan;

  /* What the window rows do each frame: the drag's offset, and the steps
   * of a live run, which take turns at running. */
  double     drag_x;
  double     drag_y;
  int        drag_dir;
  GPtrArray *run_nodes;
  guint      run_next;

  /* The process's processor time per frame in the last window_frame_ms(),
   * which the load of other processes changes less than the interval. */
  double     cpu_ms;
} Bench;

/* What the window's rows do before each frame. */
typedef void (*FrameAction) (Bench *bench);

/* Helpers ---------------------------------------------------------------- */

static double
ms_between (gint64 start,
            gint64 end)
{
  return (end - start) / 1000.0;
}

/* How long ago the kernel started this process, in milliseconds, from the
 * start time in /proc/self/stat (in clock ticks since boot, so with a
 * resolution of 10 ms), or -1 where that cannot be read.
 */
static double
process_age_ms (void)
{
  g_autofree char *stat = NULL;
  g_auto(GStrv) fields = NULL;
  struct timespec now;
  const char *end;
  long ticks = sysconf (_SC_CLK_TCK);
  double start_s;

  if (ticks <= 0 ||
      clock_gettime (CLOCK_BOOTTIME, &now) != 0 ||
      !g_file_get_contents ("/proc/self/stat", &stat, NULL, NULL))
    return -1;

  /* The command name may contain spaces; the fields after it do not. The
   * start time is field 22, the 20th after the name. */
  end = strrchr (stat, ')');
  if (end == NULL)
    return -1;
  fields = g_strsplit (end + 2, " ", 0);
  if (g_strv_length (fields) < 20)
    return -1;

  start_s = g_ascii_strtoull (fields[19], NULL, 10) / (double) ticks;
  return (now.tv_sec + now.tv_nsec / 1e9 - start_s) * 1000.0;
}

/* Whether SKELE_BENCH_SIZES, a list such as "0,5000", names @n_nodes; all
 * sizes are measured without it. The empty canvas is always measured,
 * since the other rows are given as multiples of it. */
static gboolean
wanted_size (guint n_nodes)
{
  const char *sizes = g_getenv ("SKELE_BENCH_SIZES");
  g_auto(GStrv) list = NULL;

  if (sizes == NULL || *sizes == '\0' || n_nodes == 0)
    return TRUE;

  list = g_strsplit (sizes, ",", 0);
  for (guint i = 0; list[i] != NULL; i++)
    if (g_ascii_strtoull (list[i], NULL, 10) == n_nodes)
      return TRUE;

  return FALSE;
}

/* Workflows -------------------------------------------------------------- */

/* A workflow of @n_nodes steps on a grid of about square shape, each step
 * after the first two needing two earlier ones: mostly steps of the row
 * above and near its column, sometimes any earlier step, so that some edges
 * are long and cross the view. The same seed gives the same workflow.
 */
static SkProject *
make_workflow (guint  n_nodes,
               guint *n_edges)
{
  g_autoptr(GRand) rng = g_rand_new_with_seed (20260101 + n_nodes);
  SkProject *project = sk_project_new (NULL);
  guint columns = MAX (1, (guint) ceil (sqrt (n_nodes)));

  *n_edges = 0;

  for (guint i = 0; i < n_nodes; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i + 1);
      g_autofree char *name = g_strdup_printf ("step %u", i + 1);
      g_autoptr(SkNode) node = sk_node_new (id, name);
      g_autoptr(GError) error = NULL;
      guint wanted = MIN (2, i);
      guint chosen[2] = { 0, 0 };
      guint n_chosen = 0;

      while (n_chosen < wanted)
        {
          guint candidate;
          g_autofree char *prior = NULL;

          if (i >= columns && g_rand_int_range (rng, 0, 10) < 8)
            {
              int near = (int) (i - columns) + g_rand_int_range (rng, -3, 4);

              candidate = (guint) CLAMP (near, 0, (int) i - 1);
            }
          else
            candidate = (guint) g_rand_int_range (rng, 0, (gint32) i);

          if (n_chosen == 1 && chosen[0] == candidate)
            continue;

          chosen[n_chosen++] = candidate;
          prior = g_strdup_printf ("%u", candidate + 1);
          sk_node_add_prior (node, prior);
        }

      *n_edges += n_chosen;
      sk_node_set_position (node, (i % columns) * SPACING_X, (i / columns) * SPACING_Y);
      if (!sk_project_add_node (project, node, &error))
        g_error ("Could not add step %u: %s", i + 1, error->message);
    }

  sk_project_set_modified (project, FALSE);
  return project;
}

/* Main loop -------------------------------------------------------------- */

static gboolean
timeout_cb (gpointer data)
{
  g_error ("The window drew no frame within %d s", TIMEOUT_MS / 1000);
  return G_SOURCE_REMOVE;
}

static void
after_paint_cb (GdkFrameClock *clock,
                Bench         *bench)
{
  bench->painted++;
  if (bench->paint_time == 0 && bench->probe_time != 0)
    bench->paint_time = g_get_monotonic_time ();
}

/* The probe is a pixel drawn over the canvas, so its drawing function runs
 * in the window's snapshot right after the canvas's. */
static void
probe_draw (GtkDrawingArea *area,
            cairo_t        *cr,
            int             width,
            int             height,
            gpointer        user_data)
{
  Bench *bench = user_data;

  if (bench->probe_time == 0)
    bench->probe_time = g_get_monotonic_time ();
}

static void
wait_for_frames (Bench *bench,
                 guint  n)
{
  guint target = bench->painted + n;
  guint timeout_id = g_timeout_add (TIMEOUT_MS, timeout_cb, NULL);

  while (bench->painted < target)
    {
      gtk_widget_queue_draw (GTK_WIDGET (bench->canvas));
      g_main_context_iteration (NULL, TRUE);
    }

  g_source_remove (timeout_id);
}

static Bench *
bench_new (SkProject *project)
{
  Bench *bench = g_new0 (Bench, 1);
  GtkWidget *overlay = gtk_overlay_new ();

  bench->window = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (bench->window), "Canvas benchmark");
  gtk_window_set_default_size (GTK_WINDOW (bench->window), WINDOW_WIDTH, WINDOW_HEIGHT);
  gtk_window_set_decorated (GTK_WINDOW (bench->window), FALSE);

  bench->canvas = SK_CANVAS (sk_canvas_new ());
  bench->probe = gtk_drawing_area_new ();
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (bench->probe), probe_draw, bench, NULL);
  gtk_widget_set_size_request (bench->probe, 1, 1);
  gtk_widget_set_halign (bench->probe, GTK_ALIGN_START);
  gtk_widget_set_valign (bench->probe, GTK_ALIGN_START);
  gtk_widget_set_can_target (bench->probe, FALSE);

  gtk_overlay_set_child (GTK_OVERLAY (overlay), GTK_WIDGET (bench->canvas));
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), bench->probe);
  gtk_window_set_child (GTK_WINDOW (bench->window), overlay);

  sk_canvas_set_project (bench->canvas, project);
  gtk_window_present (GTK_WINDOW (bench->window));
  g_signal_connect (gtk_widget_get_frame_clock (bench->window), "after-paint",
                    G_CALLBACK (after_paint_cb), bench);

  return bench;
}

static void
bench_free (Bench *bench)
{
  g_signal_handlers_disconnect_by_data (gtk_widget_get_frame_clock (bench->window), bench);
  gtk_window_destroy (GTK_WINDOW (bench->window));
  while (g_main_context_iteration (NULL, FALSE));
  g_free (bench);
}

/* Frames ----------------------------------------------------------------- */

/* Moves the view one pixel, back and forth, so the canvas must draw its
 * edges again but shows the same steps. */
static void
nudge_view (Bench *bench)
{
  bench->pan = bench->pan == 0 ? 1 : -bench->pan;
  _sk_canvas_scroll (bench->canvas, 0, 0, bench->pan, 0, 0);
}

static Frame
time_frame (Bench    *bench,
            gboolean  redraw)
{
  GtkWidget *widget = GTK_WIDGET (bench->canvas);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (bench->window));
  graphene_rect_t viewport = GRAPHENE_RECT_INIT (0, 0,
                                                 gtk_widget_get_width (widget),
                                                 gtk_widget_get_height (widget));
  gsize stride = (gsize) viewport.size.width * 4;
  g_autofree guchar *pixels = g_malloc (stride * (gsize) viewport.size.height);
  GskRenderNode *node;
  GdkTexture *texture;
  GtkSnapshot *snapshot;
  gint64 start, built, rendered;
  Frame frame;

  if (redraw)
    nudge_view (bench);

  start = g_get_monotonic_time ();
  snapshot = gtk_snapshot_new ();
  GTK_WIDGET_GET_CLASS (widget)->snapshot (widget, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  built = g_get_monotonic_time ();

  /* Downloading waits for the renderer to finish; the GL renderer would
   * otherwise return before the GPU (here llvmpipe) has drawn anything. */
  texture = gsk_renderer_render_texture (renderer, node, &viewport);
  gdk_texture_download (texture, pixels, stride);
  rendered = g_get_monotonic_time ();

  g_object_unref (texture);
  gsk_render_node_unref (node);

  frame.build = ms_between (start, built);
  frame.render = ms_between (built, rendered);
  frame.total = ms_between (start, rendered);
  return frame;
}

/* With SKELE_BENCH_PICTURES set to a folder, saves the frame there as
 * canvas-N-VIEW.png, to look at what was measured. */
static void
save_frame (Bench      *bench,
            guint       n_nodes,
            const char *view)
{
  const char *folder = g_getenv ("SKELE_BENCH_PICTURES");
  GtkWidget *widget = GTK_WIDGET (bench->canvas);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (bench->window));
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  GtkSnapshot *snapshot;

  if (folder == NULL)
    return;

  snapshot = gtk_snapshot_new ();
  GTK_WIDGET_GET_CLASS (widget)->snapshot (widget, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0,
                                                              gtk_widget_get_width (widget),
                                                              gtk_widget_get_height (widget)));
  name = g_strdup_printf ("canvas-%u-%s.png", n_nodes, view);
  path = g_build_filename (folder, name, NULL);
  gdk_texture_save_to_png (texture, path);
}

static Frame
median_frame (Bench    *bench,
              gboolean  redraw,
              guint     n_frames)
{
  g_autofree double *build = g_new0 (double, n_frames);
  g_autofree double *render = g_new0 (double, n_frames);
  g_autofree double *total = g_new0 (double, n_frames);
  Frame result;

  for (guint i = 0; i < WARM_UP_FRAMES; i++)
    time_frame (bench, redraw);

  for (guint i = 0; i < n_frames; i++)
    {
      Frame frame = time_frame (bench, redraw);

      build[i] = frame.build;
      render[i] = frame.render;
      total[i] = frame.total;
    }

  result.build = sk_test_median (build, n_frames);
  result.render = sk_test_median (render, n_frames);
  result.total = sk_test_median (total, n_frames);
  return result;
}

/* Frames drawn in the window while something changes each frame: the
 * interval between painted frames, which the frame clock holds at about
 * 16.7 ms or more. */
static gboolean
action_tick_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  FrameAction action = user_data;
  Bench *bench = g_object_get_data (G_OBJECT (widget), "bench");

  action (bench);
  return G_SOURCE_CONTINUE;
}

/* The processor time this process has used, its threads' (llvmpipe's
 * for the GL renderer) included, in milliseconds. */
static double
cpu_time_ms (void)
{
  struct rusage usage;

  if (getrusage (RUSAGE_SELF, &usage) != 0)
    return 0;

  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000.0 +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000.0;
}

static double
window_frame_ms (Bench       *bench,
                 FrameAction  action)
{
  double intervals[WINDOW_FRAMES];
  double cpu_start;
  gint64 last;
  guint tick_id;

  g_object_set_data (G_OBJECT (bench->canvas), "bench", bench);
  tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (bench->canvas), action_tick_cb, action, NULL);
  wait_for_frames (bench, WARM_UP_FRAMES);
  cpu_start = cpu_time_ms ();
  last = g_get_monotonic_time ();
  for (guint i = 0; i < WINDOW_FRAMES; i++)
    {
      gint64 now;

      wait_for_frames (bench, 1);
      now = g_get_monotonic_time ();
      intervals[i] = ms_between (last, now);
      last = now;
    }
  bench->cpu_ms = (cpu_time_ms () - cpu_start) / WINDOW_FRAMES;
  gtk_widget_remove_tick_callback (GTK_WIDGET (bench->canvas), tick_id);

  return sk_test_median (intervals, WINDOW_FRAMES);
}

/* Panning: the view moves a pixel every frame. */
static void
pan_action (Bench *bench)
{
  nudge_view (bench);
}

/* Dragging a step: the step moves a pixel every frame, through the
 * canvas's drag tool as the pointer would move it. */
static void
drag_action (Bench *bench)
{
  bench->drag_dir = bench->drag_dir == 1 ? -1 : 1;
  bench->drag_x += bench->drag_dir;
  _sk_canvas_drag_update (bench->canvas, bench->drag_x, bench->drag_y);
}

/* Rubber-band selection: the band grows and shrinks a pixel every frame. */
static void
rubber_action (Bench *bench)
{
  drag_action (bench);
}

/* A live run: every frame one step starts running and the one that
 * started a few frames before succeeds, so that about ten steps are busy
 * (and animated) at a time. */
#define RUN_BUSY 10

static void
run_action (Bench *bench)
{
  guint n = bench->run_nodes->len;

  if (n == 0)
    return;
  sk_node_set_state (g_ptr_array_index (bench->run_nodes, bench->run_next % n),
                     SK_NODE_STATE_RUNNING);
  if (bench->run_next >= RUN_BUSY)
    sk_node_set_state (g_ptr_array_index (bench->run_nodes, (bench->run_next - RUN_BUSY) % n),
                       SK_NODE_STATE_SUCCEEDED);
  bench->run_next++;
}

/* The step nearest to the middle of the view, where a person would grab
 * one. */
static SkNode *
middle_node (Bench *bench)
{
  SkProject *project = sk_canvas_get_project (bench->canvas);
  guint n = project != NULL ? g_list_model_get_n_items (G_LIST_MODEL (project)) : 0;
  graphene_rect_t view;
  graphene_point_t centre;
  SkNode *best = NULL;
  double best_distance = G_MAXDOUBLE;

  _sk_canvas_visible_model_rect (bench->canvas, &view);
  graphene_rect_get_center (&view, &centre);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      double mx, my;

      sk_node_get_position (node, &mx, &my);
      if (hypot (mx - centre.x, my - centre.y) < best_distance)
        {
          best_distance = hypot (mx - centre.x, my - centre.y);
          best = node;
        }
    }

  return best;
}

static double
window_drag_ms (Bench *bench,
                guint  n_nodes)
{
  SkNode *node = middle_node (bench);
  double mx, my, x, y, ms;

  if (node == NULL)
    return -1;

  sk_node_get_position (node, &mx, &my);
  _sk_canvas_model_to_widget (bench->canvas, mx, my, &x, &y);
  if (!_sk_canvas_drag_begin (bench->canvas, x, y, 0))
    return -1;
  /* Past the threshold, so that the step moves from the first frame. */
  bench->drag_x = 10;
  bench->drag_y = 0;
  _sk_canvas_drag_update (bench->canvas, bench->drag_x, bench->drag_y);
  save_frame (bench, n_nodes, sk_canvas_get_zoom (bench->canvas) == 1.0 ? "1to1-drag" : "fit-drag");
  ms = window_frame_ms (bench, drag_action);
  _sk_canvas_drag_end (bench->canvas, bench->drag_x, bench->drag_y);

  return ms;
}

/* The band starts in empty space, the first found from the top left
 * corner, and spans a third of the view. */
static double
window_rubber_ms (Bench *bench)
{
  int width = gtk_widget_get_width (GTK_WIDGET (bench->canvas));
  int height = gtk_widget_get_height (GTK_WIDGET (bench->canvas));
  double x = -1, y = -1, ms;
  g_autoptr(GtkBitset) none = gtk_bitset_new_empty ();

  /* From the top left corner, where zoomed to fit there is the margin
   * around the workflow. */
  for (int row = 2; row < height / 2 && x < 0; row += 3)
    for (int col = 2; col < width / 2 && x < 0; col += 3)
      {
        SkNode *prior, *node;

        if (_sk_canvas_node_at (bench->canvas, col, row) == NULL &&
            !_sk_canvas_edge_hit (bench->canvas, col, row, &prior, &node))
          {
            x = col;
            y = row;
          }
      }

  if (x < 0 || !_sk_canvas_drag_begin (bench->canvas, x, y, 0) ||
      bench->canvas->drag != SK_CANVAS_DRAG_RUBBER)
    {
      _sk_canvas_abandon_drag (bench->canvas);
      return -1;
    }

  bench->drag_x = width / 3.0;
  bench->drag_y = height / 3.0;
  _sk_canvas_drag_update (bench->canvas, bench->drag_x, bench->drag_y);
  ms = window_frame_ms (bench, rubber_action);
  _sk_canvas_drag_end (bench->canvas, bench->drag_x, bench->drag_y);
  _sk_canvas_select_items (bench->canvas, none, FALSE);

  return ms;
}

/* The steps that take turns at running are those in view, or a hundred of
 * them when more are. */
static double
window_run_ms (Bench *bench)
{
  SkProject *project = sk_canvas_get_project (bench->canvas);
  guint n = project != NULL ? g_list_model_get_n_items (G_LIST_MODEL (project)) : 0;
  graphene_rect_t view;
  double ms;

  _sk_canvas_visible_model_rect (bench->canvas, &view);
  bench->run_nodes = g_ptr_array_new_with_free_func (g_object_unref);
  bench->run_next = 0;
  for (guint i = 0; i < n && bench->run_nodes->len < 100; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      double mx, my;

      sk_node_get_position (node, &mx, &my);
      if (graphene_rect_contains_point (&view, &GRAPHENE_POINT_INIT (mx, my)))
        g_ptr_array_add (bench->run_nodes, g_steal_pointer (&node));
    }

  if (bench->run_nodes->len == 0)
    {
      g_clear_pointer (&bench->run_nodes, g_ptr_array_unref);
      return -1;
    }

  ms = window_frame_ms (bench, run_action);

  for (guint i = 0; i < bench->run_nodes->len; i++)
    sk_node_set_state (g_ptr_array_index (bench->run_nodes, i), SK_NODE_STATE_IDLE);
  g_clear_pointer (&bench->run_nodes, g_ptr_array_unref);

  return ms;
}

/* What the frame shows: steps whose box meets the view, edges whose
 * bounding box meets it (what the canvas strokes, by the same geometry), and
 * of those the edges whose curve really passes through the view.
 */
static void
count_visible (SkCanvas *canvas,
               guint    *nodes,
               guint    *edges_boxed,
               guint    *edges_crossing)
{
  SkProject *project = sk_canvas_get_project (canvas);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (project));
  double vx0, vy0, vx1, vy1;

  *nodes = *edges_boxed = *edges_crossing = 0;
  _sk_canvas_widget_to_model (canvas, 0, 0, &vx0, &vy0);
  _sk_canvas_widget_to_model (canvas,
                              gtk_widget_get_width (GTK_WIDGET (canvas)),
                              gtk_widget_get_height (GTK_WIDGET (canvas)),
                              &vx1, &vy1);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      const char * const *priors = sk_node_get_priors (node);
      double mx, my;

      sk_node_get_position (node, &mx, &my);
      if (mx + SK_CANVAS_NODE_WIDTH / 2 > vx0 && mx - SK_CANVAS_NODE_WIDTH / 2 < vx1 &&
          my + SK_CANVAS_NODE_HEIGHT / 2 > vy0 && my - SK_CANVAS_NODE_HEIGHT / 2 < vy1)
        (*nodes)++;

      for (guint j = 0; priors != NULL && priors[j] != NULL; j++)
        {
          SkNode *prior = sk_project_get_node (project, priors[j]);
          double p[8], dy, x0, x1, y0, y1, last_x, last_y;
          gboolean crossing = FALSE;

          sk_node_get_position (prior, &p[0], &p[1]);
          p[1] += SK_CANVAS_NODE_HEIGHT / 2;
          p[6] = mx;
          p[7] = my - SK_CANVAS_NODE_HEIGHT / 2 - 2;
          dy = MAX (40.0, fabs (p[7] - p[1]) / 2);
          p[2] = p[0];
          p[3] = p[1] + dy;
          p[4] = p[6];
          p[5] = p[7] - dy;

          x0 = MIN (MIN (p[0], p[2]), MIN (p[4], p[6])) - 10;
          x1 = MAX (MAX (p[0], p[2]), MAX (p[4], p[6])) + 10;
          y0 = MIN (MIN (p[1], p[3]), MIN (p[5], p[7])) - 10;
          y1 = MAX (MAX (p[1], p[3]), MAX (p[5], p[7])) + 10;
          if (x1 <= vx0 || x0 >= vx1 || y1 <= vy0 || y0 >= vy1)
            continue;
          (*edges_boxed)++;

          last_x = p[0];
          last_y = p[1];
          for (int k = 1; k <= 32 && !crossing; k++)
            {
              double t = k / 32.0;
              double u = 1 - t;
              double bx = u * u * u * p[0] + 3 * u * u * t * p[2] +
                          3 * u * t * t * p[4] + t * t * t * p[6];
              double by = u * u * u * p[1] + 3 * u * u * t * p[3] +
                          3 * u * t * t * p[5] + t * t * t * p[7];

              crossing = MAX (bx, last_x) + 10 > vx0 && MIN (bx, last_x) - 10 < vx1 &&
                         MAX (by, last_y) + 10 > vy0 && MIN (by, last_y) - 10 < vy1;
              last_x = bx;
              last_y = by;
            }
          if (crossing)
            (*edges_crossing)++;
        }
    }
}

static void
print_header (void)
{
  g_print ("%5s %5s %4s %4s %15s | %-27s | %-27s | %6s\n",
           "", "", "", "", "in view",
           "  panned 1 px", "  unchanged", "window");
  g_print ("%5s %5s %4s %4s %4s %5s %5s | %6s %6s %6s %6s | %6s %6s %6s %6s | %6s\n",
           "nodes", "edges", "view", "zoom", "node", "edge", "cross",
           "build", "render", "total", "xempty",
           "build", "render", "total", "xempty", "ms");
}

static void
print_row (guint        n_nodes,
           guint        n_edges,
           const char  *view,
           double       zoom,
           guint        visible,
           guint        edges_boxed,
           guint        edges_crossing,
           const Frame *redraw,
           const Frame *cached,
           const Frame *empty,
           double       window_ms)
{
  g_print ("%5u %5u %4s %4.2f %4u %5u %5u | %6.2f %6.2f %6.2f %6.1f | "
           "%6.2f %6.2f %6.2f %6.1f | %6.1f\n",
           n_nodes, n_edges, view, zoom, visible, edges_boxed, edges_crossing,
           redraw->build, redraw->render, redraw->total,
           empty != NULL ? redraw->total / empty->total : 1.0,
           cached->build, cached->render, cached->total,
           empty != NULL ? cached->total / empty->total : 1.0,
           window_ms);
}

/* The window's rows: the interval between frames while panning, dragging
 * a step, drawing a rubber band and during a live run, and each as a
 * multiple of the interval while panning the empty canvas. */
typedef struct
{
  guint  n_nodes;
  char   view[4];
  double zoom;
  /* Interval and processor time per frame: pan, drag, rubber band, run. */
  double ms[4];
  double cpu[4];
} WindowRow;

static void
print_window_cell (double ms,
                   double cpu,
                   double empty_ms,
                   double empty_cpu)
{
  if (ms < 0)
    g_print (" | %5s %5s %5s %5s", "-", "-", "-", "-");
  else
    g_print (" | %5.1f %5.2f %5.1f %5.2f", ms, ms / empty_ms, cpu, cpu / empty_cpu);
}

static void
print_window_rows (GArray *rows)
{
  double empty_ms = 0, empty_cpu = 0;

  for (guint i = 0; i < rows->len; i++)
    if (g_array_index (rows, WindowRow, i).n_nodes == 0)
      {
        empty_ms = g_array_index (rows, WindowRow, i).ms[0];
        empty_cpu = g_array_index (rows, WindowRow, i).cpu[0];
      }
  if (empty_ms <= 0 || empty_cpu <= 0)
    return;

  g_print ("%5s %4s %5s | %-23s | %-23s | %-23s | %-23s\n",
           "", "", "", "          pan", "       drag step", "      rubber band", "        live run");
  g_print ("%5s %4s %5s", "nodes", "view", "zoom");
  for (guint k = 0; k < 4; k++)
    g_print (" | %5s %5s %5s %5s", "ms", "x", "cpu", "x");
  g_print ("\n");
  for (guint i = 0; i < rows->len; i++)
    {
      const WindowRow *row = &g_array_index (rows, WindowRow, i);

      g_print ("%5u %4s %5.3f", row->n_nodes, row->view, row->zoom);
      for (guint k = 0; k < 4; k++)
        print_window_cell (row->ms[k], row->cpu[k], empty_ms, empty_cpu);
      g_print ("\n");
    }
}

static void
measure_workflow (Bench       *bench,
                  guint        n_nodes,
                  guint        n_frames,
                  Frame       *empty,
                  GArray      *window_rows)
{
  g_autoptr(SkProject) project = NULL;
  guint n_edges;

  project = make_workflow (n_nodes, &n_edges);
  sk_canvas_set_project (bench->canvas, project);
  /* The canvas fits a new workflow into the view on its next frame. */
  wait_for_frames (bench, 2);

  for (guint view = 0; view < 2; view++)
    {
      Frame redraw, cached;
      double window_ms;
      guint visible, edges_boxed, edges_crossing;

      if (view == 0)
        sk_canvas_set_zoom (bench->canvas, 1.0);
      else if (n_nodes > 0)
        gtk_widget_activate_action (GTK_WIDGET (bench->canvas), "canvas.zoom-fit", NULL);
      else
        break;
      wait_for_frames (bench, 2);

      save_frame (bench, n_nodes, view == 0 ? "1to1" : "fit");
      redraw = median_frame (bench, TRUE, n_frames);
      cached = median_frame (bench, FALSE, n_frames);
      window_ms = window_frame_ms (bench, pan_action);

      {
        WindowRow row = { n_nodes, "", sk_canvas_get_zoom (bench->canvas), { 0, }, { 0, } };

        g_strlcpy (row.view, view == 0 ? "1:1" : "fit", sizeof row.view);
        row.ms[0] = window_ms;
        row.cpu[0] = bench->cpu_ms;
        row.ms[1] = window_drag_ms (bench, n_nodes);
        row.cpu[1] = bench->cpu_ms;
        row.ms[2] = window_rubber_ms (bench);
        row.cpu[2] = bench->cpu_ms;
        row.ms[3] = window_run_ms (bench);
        row.cpu[3] = bench->cpu_ms;
        g_array_append_val (window_rows, row);
      }

      if (n_nodes == 0)
        *empty = redraw;

      count_visible (bench->canvas, &visible, &edges_boxed, &edges_crossing);
      print_row (n_nodes, n_edges, view == 0 ? "1:1" : "fit",
                 sk_canvas_get_zoom (bench->canvas), visible, edges_boxed, edges_crossing,
                 &redraw, &cached, n_nodes == 0 ? NULL : empty, window_ms);
    }

  sk_canvas_set_project (bench->canvas, NULL);
}

int
main (int   argc,
      char *argv[])
{
  gint64 t_main = g_get_monotonic_time ();
  double age_at_main = process_age_ms ();
  const guint sizes[] = { 0, 100, 1000, 5000 };
  guint n_frames = sk_test_env_uint ("SKELE_BENCH_FRAMES", DEFAULT_FRAMES, 10000);
  g_autoptr(SkProject) launch_project = NULL;
  const char *renderer_env = g_getenv ("GSK_RENDERER");
  gint64 t_init, t_built, t_presented;
  guint launch_edges;
  Bench *bench;
  Frame empty = { 0, 0, 1 };
  g_autoptr(GArray) window_rows = g_array_new (FALSE, FALSE, sizeof (WindowRow));
  guint timeout_id;

  if (!gtk_init_check ())
    {
      g_printerr ("bench-canvas needs a display; run it under xvfb-run.\n");
      return 1;
    }
  adw_init ();
  sk_widgets_init ();
  t_init = g_get_monotonic_time ();

  /* 1. Launch to the first frame, as opening a 1,000-step workflow. */
  launch_project = make_workflow (LAUNCH_NODES, &launch_edges);
  t_built = g_get_monotonic_time ();
  bench = bench_new (launch_project);
  t_presented = g_get_monotonic_time ();

  timeout_id = g_timeout_add (TIMEOUT_MS, timeout_cb, NULL);
  while (bench->paint_time == 0)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout_id);

  g_print ("Skele-Code canvas benchmark (GTK %u.%u.%u, libadwaita %u.%u.%u, %u processors)\n",
           gtk_get_major_version (), gtk_get_minor_version (), gtk_get_micro_version (),
           adw_get_major_version (), adw_get_minor_version (), adw_get_micro_version (),
           g_get_num_processors ());
  g_print ("  renderer    %s (GSK_RENDERER=%s)\n",
           G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (bench->window))),
           renderer_env != NULL ? renderer_env : "unset");
  g_print ("  window      %dx%d, scale %d\n",
           gtk_widget_get_width (GTK_WIDGET (bench->canvas)),
           gtk_widget_get_height (GTK_WIDGET (bench->canvas)),
           gtk_widget_get_scale_factor (bench->window));
  sk_test_print_load_average ("  loadavg     ", "before");

  g_print ("\n1. Launch to first frame, %u steps and %u edges, zoomed to fit (%.2f)\n",
           LAUNCH_NODES, launch_edges, sk_canvas_get_zoom (bench->canvas));
  if (age_at_main >= 0)
    g_print ("   %-46s %8.1f ms  (10 ms resolution)\n",
             "kernel started process -> main()", age_at_main);
  g_print ("   %-46s %8.1f ms\n", "main() -> GTK, libadwaita and styles ready",
           ms_between (t_main, t_init));
  g_print ("   %-46s %8.1f ms\n", "  -> workflow built", ms_between (t_init, t_built));
  g_print ("   %-46s %8.1f ms\n", "  -> window presented", ms_between (t_built, t_presented));
  g_print ("   %-46s %8.1f ms\n", "  -> canvas drawn in the first frame",
           ms_between (t_presented, bench->probe_time));
  g_print ("   %-46s %8.1f ms\n", "  -> first frame painted (after-paint)",
           ms_between (bench->probe_time, bench->paint_time));
  g_print ("   %-46s %8.1f ms\n", "main() -> first frame painted",
           ms_between (t_main, bench->paint_time));
  if (age_at_main >= 0)
    g_print ("   %-46s %8.1f ms\n", "process start -> first frame painted",
             age_at_main + ms_between (t_main, bench->paint_time));

  /* 2. Frames of each size. */
  sk_canvas_set_project (bench->canvas, NULL);
  g_clear_object (&launch_project);

  g_print ("\n2. Frames offscreen with the window's renderer, median of %u after %u warm-up "
           "frames (ms);\n"
           "   panned: the view moved 1 px since the last frame; in view: steps, edges whose\n"
           "   bounding box meets the view, and edges\n"
           "   whose curve crosses the view; xempty = total / total of the empty canvas;\n"
           "   window = interval between frames painted in the window while the view moves\n"
           "   1 px a frame\n\n",
           n_frames, WARM_UP_FRAMES);
  print_header ();
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (wanted_size (sizes[i]))
      measure_workflow (bench, sizes[i], n_frames, &empty, window_rows);

  g_print ("\n3. Frames painted in the window (%dx%d) while something changes each frame,\n"
           "   median interval of %u after %u warm-up frames (ms), and this process's processor\n"
           "   time per frame (cpu, ms, llvmpipe's threads included); x = each / the same for\n"
           "   panning the empty canvas in the same run. pan: the view moves 1 px;\n"
           "   drag step: the step nearest the middle moves 1 px through the drag tool;\n"
           "   rubber band: a band over a third of the view grows or shrinks 1 px; live\n"
           "   run: one step in view starts running and one succeeds, ~%u busy\n\n",
           gtk_widget_get_width (GTK_WIDGET (bench->canvas)),
           gtk_widget_get_height (GTK_WIDGET (bench->canvas)),
           WINDOW_FRAMES, WARM_UP_FRAMES, RUN_BUSY);
  print_window_rows (window_rows);

  g_print ("\n");
  sk_test_print_load_average ("  loadavg     ", "after");

  bench_free (bench);
  return 0;
}
