/* bench-export.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Figures for export and import, not a test: how long a large workflow
 * takes to write as Mermaid and DOT, to read back from Mermaid and to draw
 * through Graphviz, against loading and saving its process.json and against
 * CPython's json.load of the same file, all measured in the same run.
 *
 * Environment: SKELE_BENCH_STEPS (steps of the workflow, default 10000),
 * SKELE_BENCH_PYTHON (the interpreter for the json.load baseline),
 * SKELE_BENCH_SKIP_GRAPHVIZ=1, SKELE_BENCH_GRAPHVIZ_LIMIT (seconds after
 * which one drawing is stopped, default 1800).
 */

#define G_LOG_DOMAIN "bench-export"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sk-control-flow.h"
#include "sk-export.h"
#include "sk-project.h"
#include "sk-test-util.h"

#define SEED 20260301
#define DEFAULT_STEPS 10000
#define MAX_PRIORS 3
#define REPEATS 5
#define GRAPHVIZ_SMALL 1000
/* The large drawing is only tried when the small one took less. */
#define GRAPHVIZ_BUDGET_S 60
#define DEFAULT_GRAPHVIZ_LIMIT_S 1800

typedef enum
{
  KIND_TASK,
  KIND_DECISION,
  KIND_FOREACH,
  KIND_GATE,
} Kind;

typedef struct
{
  guint   n_steps;
  guint   n_layers;
  guint   n_edges;
  guint   n_conditions;
  guint   n_foreach;
  guint   n_gates;
  guint   n_decisions;
  guint  *layer;
  guint  *n_priors;
  guint  *priors;
  char  **conditions;
  Kind   *kind;
} Flow;

typedef struct
{
  GMainLoop *loop;
  char      *output;
  gboolean   done;
  gboolean   timed_out;
  GError    *error;
} Child;

/* Helpers ---------------------------------------------------------------- */

static double
ms_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / 1000.0;
}

static double
ratio (double a,
       double b)
{
  return a > 0 && b > 0 ? a / b : 0;
}

/* The generated workflow ------------------------------------------------- */

static void
flow_free (Flow *flow)
{
  for (gsize i = 0; i < (gsize) flow->n_steps * MAX_PRIORS; i++)
    g_free (flow->conditions[i]);
  g_free (flow->conditions);
  g_free (flow->layer);
  g_free (flow->n_priors);
  g_free (flow->priors);
  g_free (flow->kind);
  g_free (flow);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Flow, flow_free)

/* A layered workflow as people draw them: layers of 10 to 90 steps, each
 * step after the first layer needing one to three earlier steps, mostly in
 * the layer just above, sometimes a few layers up and now and then anywhere
 * before. About one step in 40 is a decision whose links out carry
 * conditions, one in 100 a for-each over its first prior's files and one in
 * 250 an approval gate. Step i is "step i+1" with the identifier "i+1"; the
 * file order is topological.
 */
static Flow *
flow_new (guint n_steps)
{
  g_autoptr(GRand) rng = g_rand_new_with_seed (SEED);
  g_autofree guint *layer_start = g_new0 (guint, n_steps + 1);
  g_autofree guint *n_conditioned = g_new0 (guint, n_steps);
  Flow *flow = g_new0 (Flow, 1);
  guint in_layer = 0, width = 0;

  flow->n_steps = n_steps;
  flow->layer = g_new0 (guint, n_steps);
  flow->n_priors = g_new0 (guint, n_steps);
  flow->priors = g_new0 (guint, (gsize) n_steps * MAX_PRIORS);
  flow->conditions = g_new0 (char *, (gsize) n_steps * MAX_PRIORS);
  flow->kind = g_new0 (Kind, n_steps);

  for (guint i = 0; i < n_steps; i++)
    {
      guint *mine = flow->priors + (gsize) i * MAX_PRIORS;
      guint layer, wanted, roll;

      if (in_layer == width)
        {
          layer_start[flow->n_layers++] = i;
          width = (guint) g_rand_int_range (rng, 10, 91);
          in_layer = 0;
        }
      in_layer++;
      layer = flow->layer[i] = flow->n_layers - 1;

      roll = (guint) g_rand_int_range (rng, 0, 100);
      wanted = layer == 0 ? 0 : roll < 50 ? 1 : roll < 85 ? 2 : 3;

      while (flow->n_priors[i] < wanted)
        {
          guint from_layer, candidate;
          gboolean seen = FALSE;

          roll = (guint) g_rand_int_range (rng, 0, 100);
          if (roll < 70)
            from_layer = layer - 1;
          else if (roll < 90)
            from_layer = layer - 1 - (guint) g_rand_int_range (rng, 0, (gint32) MIN (layer, 4));
          else
            from_layer = (guint) g_rand_int_range (rng, 0, (gint32) layer);

          candidate = (guint) g_rand_int_range (rng, (gint32) layer_start[from_layer],
                                                (gint32) layer_start[from_layer + 1]);
          for (guint j = 0; j < flow->n_priors[i]; j++)
            seen = seen || mine[j] == candidate;
          if (seen)
            continue;

          if (flow->kind[candidate] == KIND_DECISION)
            {
              guint n = n_conditioned[candidate]++;
              char *condition;

              if (n == 0)
                condition = g_strdup ("output[\"score\"] >= 80");
              else if (n == 1)
                condition = g_strdup (SK_CONTROL_FLOW_DEFAULT);
              else
                condition = g_strdup_printf ("output[\"label\"] == \"kind %u\" and "
                                             "output[\"score\"] < %u", n, 80 - n * 5);
              flow->conditions[(gsize) i * MAX_PRIORS + flow->n_priors[i]] = condition;
              flow->n_conditions++;
            }

          mine[flow->n_priors[i]++] = candidate;
        }
      flow->n_edges += flow->n_priors[i];

      roll = (guint) g_rand_int_range (rng, 0, 1000);
      if (roll < 25)
        flow->kind[i] = KIND_DECISION;
      else if (roll < 35 && flow->n_priors[i] > 0)
        flow->kind[i] = KIND_FOREACH;
      else if (roll < 39)
        flow->kind[i] = KIND_GATE;
    }

  for (guint i = 0; i < n_steps; i++)
    {
      flow->n_foreach += flow->kind[i] == KIND_FOREACH;
      flow->n_gates += flow->kind[i] == KIND_GATE;
      flow->n_decisions += flow->kind[i] == KIND_DECISION && n_conditioned[i] > 0;
    }

  return flow;
}

static void
append_json_string (GString    *json,
                    const char *text)
{
  g_string_append_c (json, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (json, '\\');
      g_string_append_c (json, *p);
    }
  g_string_append_c (json, '"');
}

/* A process.json as the window would write it, with descriptions, input
 * files, canvas positions and the control flow under "skele". */
static char *
flow_to_json (const Flow *flow,
              gsize      *length)
{
  GString *json = g_string_new (NULL);
  guint column = 0;

  g_string_append (json,
                   "{\n"
                   "  \"process_name\": \"export benchmark\",\n"
                   "  \"process_description\": \"Generated by bench-export.\",\n"
                   "  \"nodes\": {\n");

  for (guint i = 0; i < flow->n_steps; i++)
    {
      const guint *mine = flow->priors + (gsize) i * MAX_PRIORS;
      char * const *conditions = flow->conditions + (gsize) i * MAX_PRIORS;
      gboolean has_when = FALSE;

      column = i > 0 && flow->layer[i] == flow->layer[i - 1] ? column + 1 : 0;

      g_string_append_printf (json, "    \"%u\": {\n      \"name\": \"step %u\",\n", i + 1, i + 1);
      if (i % 5 == 0)
        g_string_append_printf (json, "      \"description\": \"Guidance for step %u: keep "
                                "the report short.\",\n", i + 1);

      g_string_append (json, "      \"priors\": [");
      for (guint j = 0; j < flow->n_priors[i]; j++)
        g_string_append_printf (json, "%s\"%u\"", j > 0 ? ", " : "", mine[j] + 1);
      g_string_append (json, "],\n      \"run\": true,\n");

      g_string_append_printf (json, "      \"input\": {\"text\": \"Read the results of the "
                              "steps before step %u, combine them and report the total in "
                              "one sentence.\", \"files\": [", i + 1);
      if (i % 10 == 0)
        g_string_append_printf (json, "\"data_%u.csv\"", i + 1);
      g_string_append (json, "]},\n      \"output\": {\"text\": \"\", \"files\": []},\n");

      g_string_append_printf (json, "      \"skele\": {\"x\": %u.0, \"y\": %u.0",
                              column * 200, flow->layer[i] * 120);
      if (flow->kind[i] == KIND_GATE)
        g_string_append (json, ", \"approval\": true");
      if (flow->kind[i] == KIND_FOREACH)
        g_string_append_printf (json, ", \"foreach\": {\"prior\": \"%u\", \"path\": \"files\"}",
                                mine[0] + 1);
      for (guint j = 0; j < flow->n_priors[i]; j++)
        {
          if (conditions[j] == NULL)
            continue;
          g_string_append_printf (json, "%s\"%u\": ", has_when ? ", " : ", \"when\": {",
                                  mine[j] + 1);
          append_json_string (json, conditions[j]);
          has_when = TRUE;
        }
      g_string_append (json, has_when ? "}}" : "}");

      g_string_append (json, i + 1 < flow->n_steps ? "\n    },\n" : "\n    }\n");
    }

  g_string_append (json, "  }\n}\n");

  *length = json->len;
  return g_string_free (json, FALSE);
}

static SkProject *
load_flow (guint    n_steps,
           GError **error)
{
  g_autoptr(Flow) flow = flow_new (n_steps);
  g_autofree char *text = NULL;
  gsize length;

  text = flow_to_json (flow, &length);
  return sk_project_load_from_data (text, length, NULL, error);
}

/* Whether the import kept the workflow --------------------------------- */

typedef struct
{
  guint missing_steps;
  guint extra_steps;
  guint edges;
  guint lost_edges;
  guint extra_edges;
  guint conditions;
  guint wrong_conditions;
  guint extra_conditions;
  guint foreach;
  guint wrong_foreach;
  guint gates;
  guint wrong_gates;
  guint wrong_tasks;
} Survival;

static const char *
prior_name (SkProject  *project,
            const char *id)
{
  SkNode *prior = id != NULL ? sk_project_get_node (project, id) : NULL;

  return prior != NULL ? sk_node_get_name (prior) : "";
}

/* Steps are matched by name, which the generator keeps unique: the import
 * numbers the steps anew. */
static Survival
check_survival (SkProject *original,
                SkProject *imported)
{
  g_autoptr(GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  GListModel *before = G_LIST_MODEL (original);
  GListModel *after = G_LIST_MODEL (imported);
  Survival s = { 0 };

  for (guint i = 0; i < g_list_model_get_n_items (after); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (after, i);

      g_hash_table_insert (by_name, (gpointer) sk_node_get_name (node), node);
    }

  for (guint i = 0; i < g_list_model_get_n_items (before); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (before, i);
      SkNode *copy = g_hash_table_lookup (by_name, sk_node_get_name (node));
      const char * const *priors = sk_node_get_priors (node);
      const char *foreach_prior = NULL, *foreach_path = NULL;
      gboolean is_foreach = sk_node_get_foreach (node, &foreach_prior, &foreach_path);
      guint matched = 0;

      s.edges += g_strv_length ((char **) priors);
      s.gates += sk_node_get_approval (node);
      s.foreach += is_foreach;

      if (copy == NULL)
        {
          s.missing_steps++;
          continue;
        }
      g_hash_table_remove (by_name, sk_node_get_name (node));

      for (guint j = 0; priors[j] != NULL; j++)
        {
          const char *name = prior_name (original, priors[j]);
          const char *condition = sk_node_get_condition (node, priors[j]);
          const char * const *copy_priors = sk_node_get_priors (copy);
          const char *copy_condition = NULL;
          gboolean found = FALSE;

          for (guint k = 0; copy_priors[k] != NULL && !found; k++)
            if (g_str_equal (prior_name (imported, copy_priors[k]), name))
              {
                found = TRUE;
                copy_condition = sk_node_get_condition (copy, copy_priors[k]);
              }

          if (!found)
            s.lost_edges++;
          else
            matched++;

          s.conditions += condition != NULL;
          if (condition != NULL && g_strcmp0 (condition, copy_condition) != 0)
            s.wrong_conditions++;
          else if (condition == NULL && copy_condition != NULL)
            s.extra_conditions++;
        }
      s.extra_edges += g_strv_length ((char **) sk_node_get_priors (copy)) - matched;

      if (sk_node_get_approval (node) != sk_node_get_approval (copy))
        s.wrong_gates++;

      {
        const char *copy_prior = NULL, *copy_path = NULL;
        gboolean copy_is_foreach = sk_node_get_foreach (copy, &copy_prior, &copy_path);

        if (is_foreach != copy_is_foreach ||
            (is_foreach && (!g_str_equal (prior_name (original, foreach_prior),
                                          prior_name (imported, copy_prior)) ||
                            g_strcmp0 (foreach_path, copy_path) != 0)))
          s.wrong_foreach++;
      }

      if (g_strcmp0 (sk_node_get_input_text (node), sk_node_get_input_text (copy)) != 0)
        s.wrong_tasks++;
    }

  s.extra_steps = g_hash_table_size (by_name);
  return s;
}

/* Graphviz in a child process ------------------------------------------- */

/* `bench-export --graphviz N`: draws the generated workflow of N steps as
 * SVG and prints the time, the size and the process's peak memory. A child
 * can be stopped when it takes too long, which a call into Graphviz's
 * library cannot. */
static int
graphviz_child (guint n_steps)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) project = load_flow (n_steps, &error);
  g_autoptr(GBytes) svg = NULL;
  g_autofree char *status = NULL;
  const char *peak = NULL;
  long peak_kib = 0;
  gint64 start;
  double elapsed;

  if (project == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }

  start = g_get_monotonic_time ();
  svg = sk_export_graphviz (project, "svg", &error);
  elapsed = ms_since (start);
  if (svg == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }

  /* getrusage()'s peak would count the pages shared with the parent
   * before exec(); VmHWM is this program's own. */
  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL) &&
      (peak = strstr (status, "VmHWM:")) != NULL)
    peak_kib = strtol (peak + strlen ("VmHWM:"), NULL, 10);

  g_print ("%.1f %" G_GSIZE_FORMAT " %ld\n", elapsed, g_bytes_get_size (svg), peak_kib);
  return 0;
}

static void
child_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  Child *child = user_data;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &child->output, NULL,
                                        &child->error);
  child->done = TRUE;
  g_main_loop_quit (child->loop);
}

static gboolean
child_timeout_cb (gpointer user_data)
{
  GSubprocess *process = user_data;
  Child *child = g_object_get_data (G_OBJECT (process), "bench-child");

  child->timed_out = TRUE;
  g_subprocess_force_exit (process);
  return G_SOURCE_REMOVE;
}

/* Returns the drawing's time in ms, or -1 with @why set. */
static double
time_graphviz (guint    n_steps,
               guint    limit_s,
               gsize   *size,
               long    *max_rss_kib,
               char   **why)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *steps = g_strdup_printf ("%u", n_steps);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GError) error = NULL;
  g_autofree char *output = NULL;
  Child child = { loop, NULL, FALSE, FALSE, NULL };
  const char *argv[] = { self, "--graphviz", steps, NULL };
  double elapsed = -1;
  guint timeout;

  if (self == NULL)
    {
      *why = g_strdup ("/proc/self/exe cannot be read");
      return -1;
    }

  process = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                     G_SUBPROCESS_FLAGS_STDERR_MERGE, &error);
  if (process == NULL)
    {
      *why = g_strdup (error->message);
      return -1;
    }

  g_object_set_data (G_OBJECT (process), "bench-child", &child);
  timeout = g_timeout_add_seconds (limit_s, child_timeout_cb, process);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, child_done_cb, &child);
  while (!child.done)
    g_main_loop_run (loop);
  if (!child.timed_out)
    g_source_remove (timeout);

  output = g_steal_pointer (&child.output);
  if (child.timed_out)
    *why = g_strdup_printf ("stopped after the limit of %u s", limit_s);
  else if (child.error != NULL)
    *why = g_strdup (child.error->message);
  else if (g_subprocess_get_if_signaled (process))
    *why = g_strdup_printf ("stopped by signal %d", g_subprocess_get_term_sig (process));
  else if (!g_subprocess_get_successful (process) ||
           sscanf (output, "%lf %zu %ld", &elapsed, size, max_rss_kib) != 3)
    *why = g_strdup_printf ("failed: %s", output != NULL ? g_strstrip (output) : "");

  g_clear_error (&child.error);
  return *why == NULL ? elapsed : -1;
}

/* Python's json.load ----------------------------------------------------- */

static const char python_script[] =
  "import json, sys, time\n"
  "times = []\n"
  "for _ in range(int(sys.argv[2])):\n"
  "    start = time.perf_counter()\n"
  "    with open(sys.argv[1], 'rb') as f:\n"
  "        data = json.load(f)\n"
  "    times.append((time.perf_counter() - start) * 1000)\n"
  "times.sort()\n"
  "print('%.3f %d %s' % (times[len(times) // 2], len(data['nodes']),\n"
  "                      sys.version.split()[0]))\n";

/* The interpreter times itself, so its start-up (and a version manager's
 * shim) is not counted. Returns the median in ms, or -1. */
static double
time_python_json (const char  *path,
                  guint        expected,
                  char       **version,
                  char       **why)
{
  const char *chosen = g_getenv ("SKELE_BENCH_PYTHON");
  g_autofree char *python = NULL;
  g_autofree char *repeats = g_strdup_printf ("%u", REPEATS);
  g_autofree char *output = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  char version_text[64] = "";
  double median = -1;
  guint n = 0;

  python = chosen != NULL && chosen[0] != '\0' ? g_strdup (chosen) : g_find_program_in_path ("python3");
  if (python == NULL)
    {
      *why = g_strdup ("python3 is not installed");
      return -1;
    }

  {
    const char * const argv[] = { python, "-c", python_script, path, repeats, NULL };

    process = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                       G_SUBPROCESS_FLAGS_STDERR_MERGE, &error);
  }
  if (process == NULL ||
      !g_subprocess_communicate_utf8 (process, NULL, NULL, &output, NULL, &error))
    {
      *why = g_strdup (error->message);
      return -1;
    }

  if (!g_subprocess_get_successful (process) ||
      sscanf (output, "%lf %u %63s", &median, &n, version_text) != 3 || n != expected)
    {
      *why = g_strdup_printf ("%s failed: %s", python, g_strstrip (output));
      return -1;
    }

  *version = g_strdup_printf ("%s (Python %s)", python, version_text);
  return median;
}

/* Report ----------------------------------------------------------------- */

static void
print_row (const char *what,
           double      ms,
           gsize       size,
           double      load_ms,
           double      python_ms)
{
  g_print ("   %-46s %10.1f", what, ms);
  if (size > 0)
    g_print (" %10.1f", size / 1024.0);
  else
    g_print (" %10s", "");
  g_print (" %8.2f", ratio (ms, load_ms));
  if (python_ms > 0)
    g_print (" %8.2f", ratio (ms, python_ms));
  g_print ("\n");
}

static void
print_skipped (const char *what,
               const char *why)
{
  g_print ("   %-46s %10s   %s\n", what, "-", why);
}

int
main (int   argc,
      char *argv[])
{
  guint n_steps = sk_test_env_uint ("SKELE_BENCH_STEPS", DEFAULT_STEPS, 1000000);
  guint limit_s = sk_test_env_uint ("SKELE_BENCH_GRAPHVIZ_LIMIT", DEFAULT_GRAPHVIZ_LIMIT_S, 86400);
  gboolean skip_graphviz = g_strcmp0 (g_getenv ("SKELE_BENCH_SKIP_GRAPHVIZ"), "1") == 0;
  g_autoptr(GError) error = NULL;
  g_autoptr(Flow) flow = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkProject) imported = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *json_path = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *mermaid = NULL;
  g_autofree char *dot = NULL;
  g_autofree char *python_version = NULL;
  g_autofree char *python_why = NULL;
  double load[REPEATS], save[REPEATS], parse[REPEATS], export_mermaid[REPEATS];
  double import_mermaid[REPEATS], export_dot[REPEATS];
  double load_ms, save_ms, parse_ms, mermaid_ms, import_ms, dot_ms, python_ms;
  double small_ms = -1;
  gsize length, saved_length = 0, mermaid_length, dot_length;
  Survival s;

  if (argc == 3 && g_str_equal (argv[1], "--graphviz"))
    return graphviz_child ((guint) g_ascii_strtoull (argv[2], NULL, 10));

  flow = flow_new (n_steps);
  text = flow_to_json (flow, &length);

  if ((tmp = g_dir_make_tmp ("skele-bench-export-XXXXXX", &error)) == NULL)
    {
      g_printerr ("No temporary folder: %s\n", error->message);
      return 1;
    }
  json_path = g_build_filename (tmp, SK_PROJECT_FILE_NAME, NULL);
  if (!g_file_set_contents (json_path, text, length, &error))
    {
      g_printerr ("Could not write %s: %s\n", json_path, error->message);
      sk_test_remove_tree (tmp);
      return 1;
    }

  g_print ("Skele-Code export benchmark (%u processors)\n", g_get_num_processors ());
  sk_test_print_load_average ("   loadavg    ", "before");
  g_print ("   workflow   %u steps in %u layers, %u edges, %u conditions on the links out "
           "of %u decisions,\n              %u for-each steps, %u approval gates; "
           "process.json %.1f KiB\n\n",
           flow->n_steps, flow->n_layers, flow->n_edges, flow->n_conditions, flow->n_decisions,
           flow->n_foreach, flow->n_gates, length / 1024.0);

  /* The project's own JSON, and json-glib's parser alone, which loading
   * starts with. */
  for (guint rep = 0; rep < REPEATS; rep++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(SkProject) loaded = NULL;
      gint64 start;

      start = g_get_monotonic_time ();
      loaded = sk_project_load_from_data (text, length, NULL, &error);
      load[rep] = ms_since (start);
      if (loaded == NULL)
        {
          g_printerr ("The workflow could not be loaded: %s\n", error->message);
          sk_test_remove_tree (tmp);
          return 1;
        }

      start = g_get_monotonic_time ();
      g_clear_pointer (&saved, g_free);
      saved = sk_project_to_data (loaded, &saved_length);
      save[rep] = ms_since (start);

      start = g_get_monotonic_time ();
      json_parser_load_from_data (parser, text, length, NULL);
      parse[rep] = ms_since (start);

      if (rep == 0)
        project = g_steal_pointer (&loaded);
    }

  for (guint rep = 0; rep < REPEATS; rep++)
    {
      gint64 start = g_get_monotonic_time ();

      g_clear_pointer (&mermaid, g_free);
      mermaid = sk_export_mermaid (project);
      export_mermaid[rep] = ms_since (start);
    }
  mermaid_length = strlen (mermaid);

  for (guint rep = 0; rep < REPEATS; rep++)
    {
      gint64 start = g_get_monotonic_time ();

      g_clear_object (&imported);
      g_ptr_array_set_size (notes, 0);
      imported = sk_import_mermaid (mermaid, mermaid_length, notes, &error);
      import_mermaid[rep] = ms_since (start);
      if (imported == NULL)
        {
          g_printerr ("The Mermaid export could not be imported: %s\n", error->message);
          sk_test_remove_tree (tmp);
          return 1;
        }
    }

  for (guint rep = 0; rep < REPEATS; rep++)
    {
      gint64 start = g_get_monotonic_time ();

      g_clear_pointer (&dot, g_free);
      dot = sk_export_dot (project);
      export_dot[rep] = ms_since (start);
    }
  dot_length = strlen (dot);

  load_ms = sk_test_median (load, REPEATS);
  save_ms = sk_test_median (save, REPEATS);
  parse_ms = sk_test_median (parse, REPEATS);
  mermaid_ms = sk_test_median (export_mermaid, REPEATS);
  import_ms = sk_test_median (import_mermaid, REPEATS);
  dot_ms = sk_test_median (export_dot, REPEATS);
  python_ms = time_python_json (json_path, n_steps, &python_version, &python_why);

  g_print ("   %-46s %10s %10s %8s %8s\n", "what (median of 5; Graphviz once)", "ms", "KiB",
           "x load", "x python");
  print_row ("load process.json (sk_project_load_from_data)", load_ms, length, load_ms, python_ms);
  print_row ("save (sk_project_to_data)", save_ms, saved_length, load_ms, python_ms);
  print_row ("json-glib parse alone (JsonParser)", parse_ms, 0, load_ms, python_ms);
  if (python_ms > 0)
    print_row ("python json.load", python_ms, 0, load_ms, python_ms);
  else
    print_skipped ("python json.load", python_why);
  print_row ("sk_export_mermaid", mermaid_ms, mermaid_length, load_ms, python_ms);
  print_row ("sk_import_mermaid (its output)", import_ms, 0, load_ms, python_ms);
  print_row ("sk_export_dot", dot_ms, dot_length, load_ms, python_ms);

  if (skip_graphviz)
    print_skipped ("sk_export_graphviz svg", "skipped (SKELE_BENCH_SKIP_GRAPHVIZ=1)");
  else
    {
      guint sizes[] = { MIN (GRAPHVIZ_SMALL, n_steps), n_steps };

      for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
        {
          g_autofree char *what = g_strdup_printf ("sk_export_graphviz svg, %u steps", sizes[i]);
          g_autofree char *why = NULL;
          gsize size = 0;
          long max_rss = 0;
          double ms;

          if (i == 1 && sizes[1] == sizes[0])
            break;
          if (i == 1 && (small_ms < 0 || small_ms > GRAPHVIZ_BUDGET_S * 1000.0))
            {
              print_skipped (what, small_ms < 0
                             ? "skipped: the smaller drawing failed"
                             : "skipped: the 1,000-step drawing took more than 60 s");
              break;
            }

          ms = time_graphviz (sizes[i], limit_s, &size, &max_rss, &why);
          if (ms < 0)
            {
              print_skipped (what, why);
              continue;
            }
          if (i == 0)
            small_ms = ms;
          g_print ("   %-46s %10.1f %10.1f %8.2f %8s   (peak memory %.0f MiB)\n", what, ms,
                   size / 1024.0, ratio (ms, load_ms), "", max_rss / 1024.0);
        }
    }

  s = check_survival (project, imported);
  g_print ("\n   Mermaid round trip: %u of %u steps, %u of %u edges, %u of %u conditions, "
           "%u of %u for-each, %u of %u gates came back as they were\n",
           n_steps - s.missing_steps, n_steps, s.edges - s.lost_edges, s.edges,
           s.conditions - MIN (s.conditions, s.wrong_conditions), s.conditions,
           s.foreach - MIN (s.foreach, s.wrong_foreach), s.foreach,
           s.gates - MIN (s.gates, s.wrong_gates), s.gates);
  g_print ("   (imported: %u steps; %u steps and %u edges not in the workflow; "
           "%u conditions added; %u tasks differ; %u notes)\n",
           sk_project_get_n_nodes (imported), s.extra_steps, s.extra_edges,
           s.extra_conditions, s.wrong_tasks, notes->len);
  for (guint i = 0; i < notes->len && i < 3; i++)
    g_print ("   note: %s\n", (const char *) g_ptr_array_index (notes, i));

  g_print ("\n   Ratios: export Mermaid / load %.2f, import Mermaid / load %.2f, "
           "import Mermaid / python json.load ",
           ratio (mermaid_ms, load_ms), ratio (import_ms, load_ms));
  if (python_ms > 0)
    g_print ("%.2f\n   python     %s\n", ratio (import_ms, python_ms), python_version);
  else
    g_print ("n/a\n");
  sk_test_print_load_average ("   loadavg    ", "after");

  sk_test_remove_tree (tmp);
  return 0;
}
