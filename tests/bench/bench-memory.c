/* bench-memory.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Figures for the window's memory, not a test: the resident size of the
 * window with workflows of 1,000, 10,000 and 100,000 steps open, each in a
 * process of its own, against the empty window in the same process; then
 * whether the resident size grows over a loop of run, edit, undo and redo
 * on a 50-step workflow.
 *
 * The bench runs itself again for each measurement ("--open FOLDER" and
 * "--loop FOLDER SECONDS"), so that every size starts from a fresh process
 * and nothing the parent allocated (such as the generated workflow) counts.
 * The parent writes the workflows; it never starts GTK.
 *
 * Environment: SKELE_BENCH_MEMORY_SIZES (steps, comma-separated, default
 * "1000,10000,100000"), SKELE_BENCH_MEMORY_LOOP_SECONDS (default 120),
 * SKELE_BENCH_MEMORY_SCRIPTS (the largest workflow whose steps get
 * scripts, default 1000), SKELE_BENCH_PYTHON (the loop's interpreter,
 * /usr/bin/python3 when unset).
 */

#define G_LOG_DOMAIN "bench-memory"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __GLIBC__
# include <malloc.h>
#endif

#include <adwaita.h>

#include "sk-application.h"
#include "sk-canvas-private.h"
#include "sk-project.h"
#include "sk-test-util.h"
#include "sk-widgets.h"
#include "sk-window-private.h"

#define DEFAULT_SIZES "1000,10000,100000"
#define DEFAULT_LOOP_SECONDS 120
#define DEFAULT_SCRIPTS_UP_TO 1000
#define LOOP_STEPS 50
#define LOOP_SAMPLES 5
#define LOOP_SAMPLE_MAX_S 60.0
#define LOOP_WARM_S 60.0
#define SPACING_X 220.0
#define SPACING_Y 110.0
#define IDLE_MS 1000
#define IDLE_MAX_MS 15000
#define OPEN_TIMEOUT_S 1200
#define RUN_TIMEOUT_S 300

/* What /proc/self/status and the allocator say, in KiB. */
typedef struct
{
  gint64 rss;
  gint64 hwm;
  gint64 anon;
  gint64 heap;
} Memory;

typedef struct
{
  SkWindow *window;
  guint     painted;
  guint     painted_canvas;
} Child;

typedef struct
{
  gboolean     done;
  gboolean     finished;
  SkRunReport  report;
  char        *error;
} RunWait;

/* Helpers ---------------------------------------------------------------- */

static double
seconds_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
}

static double
mib (gint64 kib)
{
  return kib / 1024.0;
}

static gint64
status_field (const char *status,
              const char *name)
{
  g_autofree char *prefix = g_strconcat ("\n", name, ":", NULL);
  const char *found = strstr (status, prefix);

  if (found == NULL)
    return -1;
  return g_ascii_strtoll (found + strlen (prefix), NULL, 10);
}

/* The resident size now and at its peak, the anonymous part of it, and
 * the bytes the allocator has handed out and not been given back: what is
 * resident beyond those is held by the allocator or is mapped files.
 */
static Memory
read_memory (void)
{
  g_autofree char *contents = NULL;
  g_autofree char *status = NULL;
  Memory memory = { -1, -1, -1, -1 };

  if (g_file_get_contents ("/proc/self/status", &contents, NULL, NULL))
    {
      status = g_strconcat ("\n", contents, NULL);
      memory.rss = status_field (status, "VmRSS");
      memory.hwm = status_field (status, "VmHWM");
      memory.anon = status_field (status, "RssAnon");
    }

#ifdef __GLIBC__
  {
    struct mallinfo2 info = mallinfo2 ();

    /* Small blocks in the arenas and large ones mapped on their own. */
    memory.heap = (gint64) ((info.uordblks + info.hblkhd) / 1024);
  }
#endif

  return memory;
}

static void
print_load_average (const char *when)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) fields = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &contents, NULL, NULL))
    return;

  fields = g_strsplit (g_strstrip (contents), " ", 4);
  if (g_strv_length (fields) >= 3)
    g_print ("   loadavg    %s %s %s (1, 5, 15 min, %s)\n",
             fields[0], fields[1], fields[2], when);
}

static gboolean
write_file (const char *path,
            const char *contents,
            gssize      length)
{
  g_autoptr(GError) error = NULL;

  if (!g_file_set_contents (path, contents, length, &error))
    {
      g_printerr ("Could not write %s: %s\n", path, error->message);
      return FALSE;
    }

  return TRUE;
}

/* Workflows -------------------------------------------------------------- */


/* Writes a workflow of @n_nodes steps into @folder, laid out on a square
 * grid as bench-canvas's: each step after the first two needs two earlier
 * ones, mostly from the row above, one in five anywhere before. Every step
 * has a task and a position, so opening it lays nothing out; with
 * @scripts, each has a script too.
 */
static gboolean
write_workflow (const char *folder,
                guint       n_nodes,
                gboolean    scripts,
                guint      *n_edges)
{
  g_autoptr(GRand) rng = g_rand_new_with_seed (20260101 + n_nodes);
  g_autoptr(GString) json = g_string_new (NULL);
  g_autofree char *json_path = g_build_filename (folder, SK_PROJECT_FILE_NAME, NULL);
  guint columns = MAX (1, (guint) ceil (sqrt (n_nodes)));

  *n_edges = 0;
  if (g_mkdir_with_parents (folder, 0755) != 0)
    {
      g_printerr ("Could not create %s\n", folder);
      return FALSE;
    }

  g_string_append (json,
                   "{\n"
                   "  \"process_name\": \"memory benchmark\",\n"
                   "  \"process_description\": \"Generated by bench-memory.\",\n"
                   "  \"nodes\": {\n");

  for (guint i = 0; i < n_nodes; i++)
    {
      guint wanted = MIN (2, i);
      guint chosen[2] = { 0, 0 };
      guint n_chosen = 0;

      while (n_chosen < wanted)
        {
          guint candidate;

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
        }
      *n_edges += n_chosen;

      g_string_append_printf (json, "    \"%u\": {\n      \"name\": \"step %u\",\n"
                              "      \"priors\": [", i + 1, i + 1);
      for (guint j = 0; j < n_chosen; j++)
        g_string_append_printf (json, "%s\"%u\"", j > 0 ? ", " : "", chosen[j] + 1);
      g_string_append_printf (json, "],\n      \"run\": true,\n"
                              "      \"input\": {\"text\": \"Add up the values of the steps "
                              "before step %u and report the total in one sentence.\", "
                              "\"files\": []},\n"
                              "      \"output\": {\"text\": \"\", \"files\": []},\n"
                              "      \"skele\": {\"x\": %.1f, \"y\": %.1f}\n    }%s\n",
                              i + 1, (i % columns) * SPACING_X, (i / columns) * SPACING_Y,
                              i + 1 < n_nodes ? "," : "");

      if (scripts)
        {
          g_autofree char *key = g_strdup_printf ("step_%u", i + 1);
          g_autofree char *step_folder = g_build_filename (folder, key, NULL);
          g_autofree char *basename = g_strconcat (key, ".py", NULL);
          g_autofree char *path = g_build_filename (step_folder, basename, NULL);
          g_autofree char *script = sk_test_bench_script (i + 1, key, NULL);

          if (g_mkdir_with_parents (step_folder, 0755) != 0 || !write_file (path, script, -1))
            return FALSE;
        }
    }

  g_string_append (json, "  }\n}\n");
  return write_file (json_path, json->str, json->len);
}

/* The child: one window -------------------------------------------------- */

static gboolean
give_up_cb (gpointer data)
{
  g_printerr ("bench-memory: %s\n", (const char *) data);
  exit (1);
  return G_SOURCE_REMOVE;
}

static void
after_paint_cb (GdkFrameClock *clock,
                Child         *child)
{
  SkCanvas *canvas = _sk_window_get_canvas (child->window);

  child->painted++;
  /* child_open() queues a draw of the canvas before every frame, so a frame
   * painted with the workflow on the canvas and the canvas on screen drew
   * it, whatever the canvas builds to do so. */
  if (canvas->project != NULL && gtk_widget_get_mapped (GTK_WIDGET (canvas)))
    child->painted_canvas++;
}

static const char *
visible_page (SkWindow *window)
{
  GObject *stack = gtk_widget_get_template_child (GTK_WIDGET (window), SK_TYPE_WINDOW, "stack");

  return gtk_stack_get_visible_child_name (GTK_STACK (stack));
}

static gboolean
loaded (SkWindow *window)
{
  return (sk_window_get_project (window) != NULL &&
          !_sk_canvas_is_arranging (_sk_window_get_canvas (window)) &&
          g_strcmp0 (visible_page (window), "workflow") == 0) ||
         g_strcmp0 (visible_page (window), "error") == 0;
}

/* Runs the main loop until nothing has been dispatched for IDLE_MS, or
 * IDLE_MAX_MS have passed; returns whether it got quiet. */
static gboolean
wait_idle (void)
{
  gint64 start = g_get_monotonic_time ();
  gint64 quiet_since = start;

  while (g_get_monotonic_time () - quiet_since < IDLE_MS * 1000)
    {
      if (g_get_monotonic_time () - start > IDLE_MAX_MS * 1000)
        return FALSE;
      if (g_main_context_iteration (NULL, FALSE))
        quiet_since = g_get_monotonic_time ();
      else
        g_usleep (5000);
    }

  return TRUE;
}

static SkApplication *
child_app_new (void)
{
  g_autoptr(GError) error = NULL;
  SkApplication *app;

  if (!gtk_init_check ())
    {
      g_printerr ("bench-memory needs a display; run it under xvfb-run.\n");
      exit (1);
    }
  adw_init ();
  sk_widgets_init ();

  /* A real application, as the tests of the window have: its actions,
   * accelerators and settings; non-unique, so that no other instance is
   * found. */
  app = sk_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    {
      g_printerr ("Could not register the application: %s\n", error->message);
      exit (1);
    }

  return app;
}

/* Presents a new window and waits for its first frame and for it to be
 * idle. */
static void
child_present (Child         *child,
               SkApplication *app,
               gboolean      *idle)
{
  guint timeout_id;

  child->window = sk_window_new (app);
  gtk_window_present (GTK_WINDOW (child->window));
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (child->window)), "after-paint",
                    G_CALLBACK (after_paint_cb), child);

  timeout_id = g_timeout_add_seconds (60, give_up_cb, (gpointer) "the window drew no frame");
  while (child->painted == 0)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout_id);
  *idle = wait_idle ();
}

/* Opens @folder in the window, as the window's Open does, and waits until
 * the canvas has painted it and the window is idle; returns the seconds to
 * the first frame that showed it. */
static double
child_open (Child      *child,
            const char *folder,
            gboolean   *idle)
{
  g_autoptr(GFile) file = g_file_new_for_path (folder);
  gint64 start = g_get_monotonic_time ();
  guint timeout_id;
  double seconds;

  timeout_id = g_timeout_add_seconds (OPEN_TIMEOUT_S, give_up_cb,
                                      (gpointer) "the workflow was not shown in time");
  sk_window_open (child->window, file, FALSE);
  while (!loaded (child->window))
    g_main_context_iteration (NULL, TRUE);
  if (g_strcmp0 (visible_page (child->window), "error") == 0)
    {
      g_printerr ("bench-memory: %s could not be opened\n", folder);
      exit (1);
    }

  child->painted_canvas = 0;
  while (child->painted_canvas == 0)
    {
      gtk_widget_queue_draw (GTK_WIDGET (_sk_window_get_canvas (child->window)));
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (timeout_id);
  seconds = seconds_since (start);

  *idle = wait_idle ();
  return seconds;
}

/* Destroys the window and waits, for a while, until it is gone. */
static void
child_destroy (Child *child)
{
  gint64 start = g_get_monotonic_time ();

  g_signal_handlers_disconnect_by_data (gtk_widget_get_frame_clock (GTK_WIDGET (child->window)),
                                        child);
  g_object_add_weak_pointer (G_OBJECT (child->window), (gpointer *) &child->window);
  gtk_window_destroy (GTK_WINDOW (child->window));
  while (child->window != NULL && seconds_since (start) < 10)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (5000);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* "--open FOLDER": the empty window, then FOLDER open in it. Prints one
 * line of NAME=VALUE pairs for the parent. */
static int
run_open (const char *folder)
{
  g_autoptr(SkApplication) app = child_app_new ();
  Child child = { NULL, 0, 0 };
  gboolean idle_empty, idle_open;
  Memory empty, shown;
  double open_s;

  child_present (&child, app, &idle_empty);
  empty = read_memory ();

  open_s = child_open (&child, folder, &idle_open);
  shown = read_memory ();

  g_print ("renderer=%s zoom=%.3f open_s=%.3f idle=%d "
           "empty_rss=%" G_GINT64_FORMAT " empty_hwm=%" G_GINT64_FORMAT
           " empty_anon=%" G_GINT64_FORMAT " empty_heap=%" G_GINT64_FORMAT
           " rss=%" G_GINT64_FORMAT " hwm=%" G_GINT64_FORMAT
           " anon=%" G_GINT64_FORMAT " heap=%" G_GINT64_FORMAT "\n",
           G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (child.window))),
           sk_canvas_get_zoom (_sk_window_get_canvas (child.window)), open_s,
           idle_empty && idle_open,
           empty.rss, empty.hwm, empty.anon, empty.heap,
           shown.rss, shown.hwm, shown.anon, shown.heap);
  fflush (stdout);

  child_destroy (&child);
  return 0;
}

/* The loop ----------------------------------------------------------------- */

static void
run_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  RunWait *wait = user_data;
  g_autoptr(GError) error = NULL;

  wait->finished = sk_workspace_run_finish (SK_WORKSPACE (object), result, &wait->report, &error);
  if (error != NULL && wait->error == NULL)
    wait->error = g_strdup (error->message);
  wait->done = TRUE;
}

/* Runs every step again, with force, through the window's workspace as the
 * window's Run does (which cannot force), and waits for the end. */
static gboolean
loop_run (SkWindow *window,
          guint    *succeeded,
          char    **error_message)
{
  SkWorkspace *workspace = _sk_window_get_workspace (window);
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GError) error = NULL;
  RunWait wait;
  SkRunOptions options;
  guint timeout_id;

  memset (&wait, 0, sizeof wait);
  nodes = sk_project_select_nodes (sk_window_get_project (window), NULL, NULL, NULL, &error);
  if (nodes == NULL)
    {
      *error_message = g_strdup (error->message);
      return FALSE;
    }

  sk_run_options_init (&options);
  options.force = TRUE;
  options.no_agent = TRUE;

  timeout_id = g_timeout_add_seconds (RUN_TIMEOUT_S, give_up_cb, (gpointer) "a run did not end in time");
  sk_workspace_run_async (workspace, nodes, &options, FALSE, NULL, run_done_cb, &wait);
  while (!wait.done)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout_id);

  *succeeded = wait.report.stats.succeeded;
  if (wait.error != NULL)
    *error_message = g_steal_pointer (&wait.error);
  return wait.finished;
}

/* Moves one step, then undoes and redoes the move with the window's
 * actions, as Ctrl+Z and Shift+Ctrl+Z do; returns whether both took. */
static gboolean
loop_edit (SkWindow *window,
           guint     cycle)
{
  SkProject *project = sk_window_get_project (window);
  SkHistory *history = _sk_window_get_history (window);
  g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project),
                                                  cycle % sk_project_get_n_nodes (project));
  double x, y, moved_x, moved_y, undone_x, undone_y, redone_x, redone_y;
  double dx = cycle % 2 == 0 ? 20 : -20;

  sk_node_get_position (node, &x, &y);
  sk_node_set_position (node, x + dx, y);
  sk_history_flush (history);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  sk_node_get_position (node, &moved_x, &moved_y);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.undo", NULL);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  sk_node_get_position (node, &undone_x, &undone_y);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.redo", NULL);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  sk_node_get_position (node, &redone_x, &redone_y);

  return undone_x == x && redone_x == moved_x;
}

static void
print_loop_row (double        elapsed,
                guint         cycles,
                const Memory *memory,
                const Memory *start)
{
  g_print ("   %8.0f %7u   %8.1f %8.1f %8.1f %8.1f   %+9.1f %+9.1f\n",
           elapsed, cycles, mib (memory->rss), mib (memory->hwm), mib (memory->anon),
           mib (memory->heap), mib (memory->rss - start->rss), mib (memory->heap - start->heap));
  fflush (stdout);
}

/* The slope of @values over @times by least squares, per minute, from the
 * first sample at @from seconds or later. */
static double
slope_per_minute (const GArray *times,
                  const GArray *values,
                  double        from)
{
  double mean_t = 0, mean_v = 0, cov = 0, var = 0;
  guint first = 0, n;

  while (first < times->len && g_array_index (times, double, first) < from)
    first++;
  n = times->len - first;
  if (n < 2)
    return 0;
  for (guint i = first; i < times->len; i++)
    {
      mean_t += g_array_index (times, double, i) / n;
      mean_v += g_array_index (values, double, i) / n;
    }
  for (guint i = first; i < times->len; i++)
    {
      double dt = g_array_index (times, double, i) - mean_t;

      cov += dt * (g_array_index (values, double, i) - mean_v);
      var += dt * dt;
    }

  return var > 0 ? cov / var * 60 : 0;
}

/* "--loop FOLDER SECONDS PYTHON": run, edit, undo, redo until SECONDS
 * have passed, printing the memory at the start and every fifth of the
 * time, or every minute if that is sooner; then the growth over the whole
 * loop, its second half and all but its first minute. */
static int
run_loop (const char *folder,
          guint       seconds,
          const char *python)
{
  g_autoptr(SkApplication) app = child_app_new ();
  GSettings *settings = sk_application_get_settings (app);
  g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) rss = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) heap = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree char *first_error = NULL;
  g_autofree char *sandbox = NULL;
  Child child = { NULL, 0, 0 };
  Memory opened, warm, start, memory, after_warm = { -1, -1, -1, -1 };
  guint cycles = 0, runs_ok = 0, steps_ok = 0, edits_ok = 0, next_sample = 1;
  double interval = MIN (LOOP_SAMPLE_MAX_S, seconds / (double) LOOP_SAMPLES);
  guint n_samples = seconds > 0 ? MAX (1, (guint) ceil (seconds / interval - 1e-9)) : 1;
  double after_warm_s = 0;
  gboolean idle;
  gint64 t0;
  double open_s, minutes_per_cycle;

  g_settings_set_string (settings, "python", python);
  g_settings_set_string (settings, "sandbox", "off");
  sandbox = g_settings_get_string (settings, "sandbox");

  child_present (&child, app, &idle);
  open_s = child_open (&child, folder, &idle);
  gtk_widget_activate_action (GTK_WIDGET (child.window), "win.focus-canvas", NULL);
  opened = read_memory ();

  /* One cycle first: the first run starts what every later run reuses
   * (the harness on disk, the runner, the cells' views of a step). */
  {
    g_autofree char *error = NULL;
    guint succeeded = 0;

    loop_run (child.window, &succeeded, &error);
    loop_edit (child.window, 0);
    wait_idle ();
    warm = read_memory ();
    g_print ("   python %s, sandbox %s%s, jobs %u; opened in %.2f s; "
             "first run: %u of %u steps succeeded%s%s\n",
             python, sandbox,
             g_getenv ("SKELE_SANDBOX") != NULL ? " (SKELE_SANDBOX is set and wins)" : "",
             g_settings_get_uint (settings, "jobs"), open_s, succeeded, LOOP_STEPS,
             error != NULL ? ": " : "", error != NULL ? error : "");
    g_print ("   after opening: RSS %.1f MiB, heap %.1f MiB; after the first cycle: "
             "RSS %.1f MiB, heap %.1f MiB\n\n",
             mib (opened.rss), mib (opened.heap), mib (warm.rss), mib (warm.heap));
  }

  g_print ("   %8s %7s   %8s %8s %8s %8s   %9s %9s\n",
           "time s", "cycles", "RSS MiB", "HWM MiB", "anon MiB", "heap MiB", "dRSS MiB", "dheap MiB");

  t0 = g_get_monotonic_time ();
  start = read_memory ();
  memory = start;
  print_loop_row (0, 0, &start, &start);

  while (next_sample <= n_samples)
    {
      g_autofree char *error = NULL;
      guint succeeded = 0;
      double elapsed;

      if (loop_run (child.window, &succeeded, &error))
        runs_ok++;
      else if (first_error == NULL)
        first_error = g_strdup (error != NULL ? error : "the run did not finish");
      steps_ok += succeeded;
      if (loop_edit (child.window, cycles + 1))
        edits_ok++;
      cycles++;

      elapsed = seconds_since (t0);
      memory = read_memory ();
      g_array_append_val (times, elapsed);
      {
        double value = (double) memory.rss;

        g_array_append_val (rss, value);
        value = (double) memory.heap;
        g_array_append_val (heap, value);
      }

      if (after_warm.rss < 0 && elapsed >= LOOP_WARM_S && seconds > LOOP_WARM_S)
        {
          after_warm = memory;
          after_warm_s = elapsed;
        }

      if (elapsed >= MIN (seconds, interval * next_sample))
        {
          print_loop_row (elapsed, cycles, &memory, &start);
          next_sample++;
        }
    }

  g_print ("\n   %u cycles in %.0f s: %u runs finished, %u of %u steps succeeded, "
           "%u of %u undo/redo pairs took\n",
           cycles, seconds_since (t0), runs_ok, steps_ok, cycles * LOOP_STEPS, edits_ok, cycles);
  if (first_error != NULL)
    g_print ("   first error: %s\n", first_error);
  g_print ("   end - start: RSS %+.1f MiB, heap %+.1f MiB\n",
           mib (memory.rss - start.rss), mib (memory.heap - start.heap));
  if (after_warm.rss >= 0)
    g_print ("   end - after the first minute (%.0f s): RSS %+.1f MiB, heap %+.1f MiB "
             "(%+.0f KiB, %+.0f KiB)\n",
             after_warm_s, mib (memory.rss - after_warm.rss), mib (memory.heap - after_warm.heap),
             (double) (memory.rss - after_warm.rss), (double) (memory.heap - after_warm.heap));
  /* Least squares over the memory after every cycle; the second half
   * leaves out what the first cycles still add once (caches filling). */
  minutes_per_cycle = seconds_since (t0) / 60 / MAX (cycles, 1);
  for (guint part = 0; part < 3; part++)
    {
      double from = part == 0 ? 0 : part == 1 ? seconds / 2.0 : LOOP_WARM_S;
      double rss_slope = slope_per_minute (times, rss, from);

      if (part == 2 && seconds <= LOOP_WARM_S)
        break;
      g_print ("   growth over %-22s RSS %+8.1f KiB/min (%+6.2f KiB/cycle), heap %+8.1f KiB/min "
               "(%+6.2f KiB/cycle)\n",
               part == 0 ? "the whole loop:" : part == 1 ? "its second half:"
                                                        : "all but the first min:",
               rss_slope, rss_slope * minutes_per_cycle,
               slope_per_minute (times, heap, from),
               slope_per_minute (times, heap, from) * minutes_per_cycle);
    }
  fflush (stdout);

  child_destroy (&child);
  return 0;
}

/* The parent --------------------------------------------------------------- */

/* Runs this program again with @args, its environment's XDG folders in
 * @tmp and the settings in memory, so that it changes nothing of the
 * user's. Returns its standard output when @capture, "" otherwise, or
 * %NULL when it failed. */
static char *
run_child (const char         *tmp,
           const char * const *args,
           gboolean            capture)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *data = g_build_filename (tmp, "xdg-data", NULL);
  g_autofree char *config = g_build_filename (tmp, "xdg-config", NULL);
  g_autofree char *state = g_build_filename (tmp, "xdg-state", NULL);
  char *output = NULL;

  launcher = g_subprocess_launcher_new (capture ? G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                : G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_setenv (launcher, "XDG_DATA_HOME", data, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", config, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_STATE_HOME", state, TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "memory", TRUE);

  g_ptr_array_add (argv, self != NULL ? self : (char *) "/proc/self/exe");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);

  fflush (stdout);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  if (process == NULL ||
      !g_subprocess_communicate_utf8 (process, NULL, NULL, capture ? &output : NULL, NULL, &error))
    {
      g_printerr ("bench-memory: %s\n", error->message);
      return NULL;
    }
  if (!g_subprocess_get_if_exited (process) || g_subprocess_get_exit_status (process) != 0)
    {
      g_free (output);
      return NULL;
    }

  return output != NULL ? output : g_strdup ("");
}

static gint64
field (GHashTable *fields,
       const char *name)
{
  const char *value = g_hash_table_lookup (fields, name);

  return value != NULL ? g_ascii_strtoll (value, NULL, 10) : -1;
}

static GHashTable *
parse_fields (const char *line)
{
  GHashTable *fields = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) words = g_strsplit (g_strstrip ((char *) line), " ", -1);

  for (guint i = 0; words[i] != NULL; i++)
    {
      char *equals = strchr (words[i], '=');

      if (equals != NULL)
        g_hash_table_insert (fields, g_strndup (words[i], equals - words[i]), g_strdup (equals + 1));
    }

  return fields;
}

static GArray *
parse_sizes (void)
{
  const char *value = g_getenv ("SKELE_BENCH_MEMORY_SIZES");
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint));
  g_auto(GStrv) words = g_strsplit (value != NULL && value[0] != '\0' ? value : DEFAULT_SIZES,
                                    ",", -1);

  for (guint i = 0; words[i] != NULL; i++)
    {
      guint64 size;
      guint n_nodes;

      if (!g_ascii_string_to_unsigned (g_strstrip (words[i]), 10, 1, 10000000, &size, NULL))
        {
          g_printerr ("Ignoring “%s” in SKELE_BENCH_MEMORY_SIZES: expected a number of steps.\n",
                      words[i]);
          continue;
        }
      n_nodes = (guint) size;
      g_array_append_val (sizes, n_nodes);
    }

  return sizes;
}

static char *
find_python (void)
{
  const char *chosen = g_getenv ("SKELE_BENCH_PYTHON");

  if (chosen != NULL && chosen[0] != '\0')
    return g_strdup (chosen);
  /* Debian's interpreter, as the tests of the window use; see TESTING.md. */
  if (g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup ("/usr/bin/python3");
  return g_find_program_in_path ("python3");
}

static void
measure_size (const char *tmp,
              guint       n_nodes,
              guint       scripts_up_to,
              gboolean   *printed_renderer)
{
  g_autofree char *folder = g_strdup_printf ("%s/workflow-%u", tmp, n_nodes);
  g_autofree char *output = NULL;
  g_autoptr(GHashTable) fields = NULL;
  gboolean scripts = n_nodes <= scripts_up_to;
  gint64 start = g_get_monotonic_time ();
  double write_s;
  guint n_edges;
  gint64 rss, empty_rss;

  if (!write_workflow (folder, n_nodes, scripts, &n_edges))
    return;
  write_s = seconds_since (start);

  output = run_child (tmp, SK_TEST_STRV ("--open", folder), TRUE);
  sk_test_remove_tree (folder);
  if (output == NULL)
    {
      g_print ("   %7u %7u %7s   failed\n", n_nodes, n_edges, scripts ? "yes" : "no");
      return;
    }

  fields = parse_fields (output);
  if (!*printed_renderer)
    {
      g_print ("   (renderer %s)\n", (const char *) g_hash_table_lookup (fields, "renderer"));
      *printed_renderer = TRUE;
    }

  rss = field (fields, "rss");
  empty_rss = field (fields, "empty_rss");
  g_print ("   %7u %7u %7s %7.1f %7.2f   %8.1f %8.1f %8.1f %8.1f %8.1f   %8.1f %8.2f %5s%s\n",
           n_nodes, n_edges, scripts ? "yes" : "no", write_s,
           g_ascii_strtod (g_hash_table_lookup (fields, "open_s"), NULL),
           mib (empty_rss), mib (rss), mib (field (fields, "hwm")),
           mib (field (fields, "anon")), mib (field (fields, "heap")),
           mib (rss - empty_rss), (rss - empty_rss) / (double) n_nodes,
           (const char *) g_hash_table_lookup (fields, "zoom"),
           field (fields, "idle") == 1 ? "" : "  (never idle for 1 s)");
  g_print ("   %7s %7s %7s %7s %7s   %8s %8.1f %8.1f %8.1f %8.1f   (the empty window before opening)\n",
           "", "", "", "", "", "", mib (empty_rss), mib (field (fields, "empty_hwm")),
           mib (field (fields, "empty_anon")), mib (field (fields, "empty_heap")));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GArray) sizes = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *python = NULL;
  g_autofree char *loop_folder = NULL;
  g_autofree char *loop_seconds = NULL;
  g_autofree char *output = NULL;
  guint seconds = sk_test_env_uint ("SKELE_BENCH_MEMORY_LOOP_SECONDS", DEFAULT_LOOP_SECONDS, 86400);
  guint scripts_up_to = DEFAULT_SCRIPTS_UP_TO;
  const char *scripts_env = g_getenv ("SKELE_BENCH_MEMORY_SCRIPTS");
  gboolean printed_renderer = FALSE;
  guint n_edges;

  /* As g_application_run() does in the application; GTK's list of recent
   * files names the program that opened a file by it. */
  g_set_prgname ("bench-memory");

  if (argc == 3 && g_str_equal (argv[1], "--open"))
    return run_open (argv[2]);
  if (argc == 5 && g_str_equal (argv[1], "--loop"))
    return run_loop (argv[2], (guint) g_ascii_strtoull (argv[3], NULL, 10), argv[4]);

  if (scripts_env != NULL && scripts_env[0] != '\0')
    scripts_up_to = (guint) g_ascii_strtoull (scripts_env, NULL, 10);
  sizes = parse_sizes ();

  if ((tmp = g_dir_make_tmp ("skele-bench-memory-XXXXXX", &error)) == NULL)
    {
      g_printerr ("No temporary folder: %s\n", error->message);
      return 1;
    }
  if ((python = find_python ()) == NULL)
    {
      g_printerr ("No Python interpreter: set SKELE_BENCH_PYTHON.\n");
      sk_test_remove_tree (tmp);
      return 1;
    }

  g_print ("Skele-Code memory benchmark (GTK %u.%u.%u, libadwaita %u.%u.%u, %u processors)\n",
           gtk_get_major_version (), gtk_get_minor_version (), gtk_get_micro_version (),
           adw_get_major_version (), adw_get_minor_version (), adw_get_micro_version (),
           g_get_num_processors ());
  print_load_average ("before");

  g_print ("\n1. Resident size with a workflow open, each size in a fresh process (MiB):\n"
           "   the empty window first (its start page), then the workflow opened in it and\n"
           "   shown on the canvas (zoomed to fit), each once the window was idle for %d s;\n"
           "   anon = RssAnon, heap = bytes malloc has handed out (mallinfo2);\n"
           "   +RSS = RSS - the empty window's, and per step in KiB\n",
           IDLE_MS / 1000);
  g_print ("   %7s %7s %7s %7s %7s   %8s %8s %8s %8s %8s   %8s %8s %5s\n",
           "steps", "edges", "scripts", "write s", "open s",
           "empty", "RSS", "HWM", "anon", "heap", "+RSS", "KiB/step", "zoom");
  for (guint i = 0; i < sizes->len; i++)
    measure_size (tmp, g_array_index (sizes, guint, i), scripts_up_to, &printed_renderer);

  g_print ("\n2. Run (force) / move a step / undo / redo on %u steps with scripts, for %u s\n",
           LOOP_STEPS, seconds);
  loop_folder = g_build_filename (tmp, "loop", NULL);
  loop_seconds = g_strdup_printf ("%u", seconds);
  if (write_workflow (loop_folder, LOOP_STEPS, TRUE, &n_edges))
    {
      output = run_child (tmp, SK_TEST_STRV ("--loop", loop_folder, loop_seconds, python), FALSE);
      if (output == NULL)
        g_print ("   failed\n");
    }

  g_print ("\n");
  print_load_average ("after");

  sk_test_remove_tree (tmp);
  return 0;
}
