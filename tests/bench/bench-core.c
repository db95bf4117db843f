/* bench-core.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Figures for the core, not a test: how long a large workflow takes to load,
 * validate and save, and what the runner costs per node compared with a
 * plain loop of `python3 KEY.py` and with Snakemake running the same graph,
 * from a Snakefile written here and from the Snakemake export.
 *
 * Environment: SKELE_BENCH_NODES (nodes of the run benchmarks, default
 * 1000), SKELE_BENCH_PYTHON (the interpreter for everything),
 * SKELE_BENCH_SKIP_SNAKEMAKE=1. The runner writes its harness under
 * XDG_CACHE_HOME, which is taken from the environment as it is.
 */

#define G_LOG_DOMAIN "bench-core"

#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sk-export.h"
#include "sk-harness.h"
#include "sk-project.h"
#include "sk-runner.h"
#include "sk-test-util.h"

#define MAX_PRIORS 3
#define DEFAULT_LOAD_NODES 10000
#define LOAD_REPEATS 5
#define DEFAULT_RUN_NODES 1000
#define RUN_PRIORS 2
#define STARTUP_REPEATS 10
#define WRAPPER_REPEATS 3
#define CLI_REPEATS 15

typedef struct
{
  guint   n_nodes;
  guint   n_edges;
  guint   depth;
  guint  *n_priors;
  guint  *priors;
  char  **keys;
} Dag;

typedef struct
{
  Dag   *dag;
  char  *folder;
  char  *python;
  char  *process_json;
  gsize  process_json_length;
} Workflow;

typedef struct
{
  GMainLoop    *loop;
  GAsyncResult *result;
} Waiter;

/* Helpers ---------------------------------------------------------------- */

static double
ms_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / 1000.0;
}

/* Runs a command to its end, failing unless it exits with status 0. */
static gboolean
spawn_and_wait (GSubprocessLauncher  *launcher,
                const char * const   *argv,
                GError              **error)
{
  g_autoptr(GSubprocess) process = NULL;

  process = g_subprocess_launcher_spawnv (launcher, argv, error);
  return process != NULL && g_subprocess_wait_check (process, NULL, error);
}

static char *
capture_output (const char * const  *argv,
                GError             **error)
{
  g_autoptr(GSubprocess) process = NULL;
  char *output = NULL;

  process = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                     G_SUBPROCESS_FLAGS_STDERR_SILENCE, error);
  if (process == NULL ||
      !g_subprocess_communicate_utf8 (process, NULL, NULL, &output, NULL, error))
    return NULL;

  if (!g_subprocess_get_successful (process))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s failed", argv[0]);
      g_free (output);
      return NULL;
    }

  return output != NULL ? g_strstrip (output) : g_strdup ("");
}

/* Graphs ----------------------------------------------------------------- */

static void
dag_free (Dag *dag)
{
  g_strfreev (dag->keys);
  g_free (dag->n_priors);
  g_free (dag->priors);
  g_free (dag);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Dag, dag_free)

static const guint *
dag_priors (const Dag *dag,
            guint      node)
{
  return dag->priors + (gsize) node * MAX_PRIORS;
}

/* Each node reads 0 to @max_priors earlier nodes, mostly recent ones and
 * sometimes early ones, so the graph has long chains as well as wide stretches
 * that can run in parallel. Node i is "step i+1"; file order is topological.
 */
static Dag *
dag_new (guint  n_nodes,
         guint  max_priors,
         GRand *rng)
{
  Dag *dag = g_new0 (Dag, 1);
  g_autofree guint *level = g_new0 (guint, n_nodes);

  dag->n_nodes = n_nodes;
  dag->n_priors = g_new0 (guint, n_nodes);
  dag->priors = g_new0 (guint, (gsize) n_nodes * MAX_PRIORS);
  dag->keys = g_new0 (char *, n_nodes + 1);

  for (guint i = 0; i < n_nodes; i++)
    {
      g_autofree char *name = g_strdup_printf ("step %u", i + 1);
      guint *mine = dag->priors + (gsize) i * MAX_PRIORS;
      guint wanted = (guint) g_rand_int_range (rng, 0, (gint32) max_priors + 1);

      /* The first nodes have fewer earlier nodes to choose from. */
      wanted = MIN (wanted, i);
      dag->keys[i] = sk_node_key_from_name (name);
      level[i] = 1;

      while (dag->n_priors[i] < wanted)
        {
          gboolean seen = FALSE;
          guint candidate;

          if (g_rand_int_range (rng, 0, 10) < 7)
            candidate = i - 1 - (guint) g_rand_int_range (rng, 0, (gint32) MIN (i, 50));
          else
            candidate = (guint) g_rand_int_range (rng, 0, (gint32) i);

          for (guint j = 0; j < dag->n_priors[i]; j++)
            seen = seen || mine[j] == candidate;

          if (!seen)
            {
              mine[dag->n_priors[i]++] = candidate;
              level[i] = MAX (level[i], level[candidate] + 1);
            }
        }

      dag->n_edges += dag->n_priors[i];
      dag->depth = MAX (dag->depth, level[i]);
    }

  return dag;
}

/* A process.json as the window would write it. With @rich, some nodes have
 * a description, input files, the nested priors form, unknown members (kept
 * on saving) and every node has a canvas position.
 */
static char *
dag_to_json (const Dag *dag,
             gboolean   rich,
             gsize     *length)
{
  GString *json = g_string_new (NULL);

  g_string_append (json,
                   "{\n"
                   "  \"process_name\": \"benchmark workflow\",\n"
                   "  \"process_description\": \"Generated by bench-core.\",\n"
                   "  \"nodes\": {\n");

  for (guint i = 0; i < dag->n_nodes; i++)
    {
      const guint *mine = dag_priors (dag, i);
      gboolean nested = rich && i % 7 == 3;

      g_string_append_printf (json, "    \"%u\": {\n      \"name\": \"step %u\",\n", i + 1, i + 1);
      if (rich && i % 5 == 0)
        g_string_append_printf (json, "      \"description\": \"Guidance for step %u: keep "
                                "the report short.\",\n", i + 1);

      g_string_append (json, "      \"priors\": [");
      for (guint j = 0; j < dag->n_priors[i]; j++)
        {
          if (j > 0)
            g_string_append (json, ", ");
          if (nested)
            g_string_append_printf (json, "[\"%u\"]", mine[j] + 1);
          else
            g_string_append_printf (json, "\"%u\"", mine[j] + 1);
        }
      g_string_append (json, "],\n      \"run\": true,\n");

      g_string_append_printf (json, "      \"input\": {\"text\": \"Read the values of the steps "
                              "before step %u, add them up and report the total in one "
                              "sentence.\", \"files\": [", i + 1);
      if (rich && i % 10 == 0)
        g_string_append_printf (json, "\"data_%u.csv\"", i + 1);
      g_string_append (json, "]},\n      \"output\": {\"text\": \"\", \"files\": []}");

      if (rich)
        g_string_append_printf (json, ",\n      \"skele\": {\"x\": %u.5, \"y\": %u.0}",
                                (i % 100) * 180, (i / 100) * 120);
      if (rich && i % 11 == 0)
        g_string_append_printf (json, ",\n      \"owner\": \"team %u\"", i % 4);

      g_string_append (json, i + 1 < dag->n_nodes ? "\n    },\n" : "\n    }\n");
    }

  g_string_append (json, "  }\n}\n");

  *length = json->len;
  return g_string_free (json, FALSE);
}

/* Interpreter ------------------------------------------------------------ */

/* SKELE_BENCH_PYTHON is used as given. Otherwise `python3` from PATH is
 * asked for its own executable, which is run directly: a version manager's
 * shim (pyenv's is a shell script) can cost several times the interpreter's
 * own start-up and would drown what is being measured.
 */
static char *
find_python (char  **wrapper,
             char  **version,
             GError **error)
{
  const char *chosen = g_getenv ("SKELE_BENCH_PYTHON");
  const char *name;
  g_autofree char *path = NULL;
  g_autofree char *output = NULL;
  g_auto(GStrv) lines = NULL;
  const char *argv[4];

  *wrapper = NULL;
  *version = NULL;

  if (chosen != NULL && chosen[0] == '\0')
    chosen = NULL;
  name = chosen != NULL ? chosen : "python3";

  path = g_path_is_absolute (name) ? g_strdup (name) : g_find_program_in_path (name);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s was not found", name);
      return NULL;
    }

  argv[0] = path;
  argv[1] = "-c";
  argv[2] = "import sys; print(sys.executable); print(sys.version.split()[0])";
  argv[3] = NULL;
  if ((output = capture_output (argv, error)) == NULL)
    return NULL;

  lines = g_strsplit (output, "\n", 2);
  *version = g_strdup (lines[0] != NULL && lines[1] != NULL ? g_strstrip (lines[1]) : "?");

  if (chosen == NULL && lines[0] != NULL && g_path_is_absolute (lines[0]) &&
      g_file_test (lines[0], G_FILE_TEST_IS_EXECUTABLE))
    {
      g_autofree char *real_path = realpath (path, NULL);
      g_autofree char *real_executable = realpath (lines[0], NULL);

      if (real_path != NULL && real_executable != NULL &&
          !g_str_equal (real_path, real_executable))
        {
          *wrapper = g_steal_pointer (&path);
          return g_strdup (lines[0]);
        }
    }

  return g_steal_pointer (&path);
}

/* The median wall time of @repeats runs of @argv, with what it prints
 * thrown away, and the fastest in @fastest; -1 when a run fails.
 */
static double
time_command (const char * const *argv,
              guint               repeats,
              double             *fastest)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autofree double *times = g_new0 (double, repeats);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  for (guint i = 0; i < repeats; i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 start = g_get_monotonic_time ();

      if (!spawn_and_wait (launcher, argv, &error))
        {
          g_print ("   %s failed: %s\n", argv[0], error->message);
          return -1;
        }
      times[i] = ms_since (start);
    }

  if (fastest != NULL)
    {
      *fastest = times[0];
      for (guint i = 1; i < repeats; i++)
        *fastest = MIN (*fastest, times[i]);
    }

  return sk_test_median (times, repeats);
}

static double
time_startup (const char *python,
              guint       repeats)
{
  const char * const argv[] = { python, "-c", "pass", NULL };

  return time_command (argv, repeats, NULL);
}

/* 1. Loading, validating and saving ------------------------------------- */

static double
bench_load (const char *tmp,
            guint       n_nodes,
            GRand      *rng)
{
  g_autoptr(Dag) dag = dag_new (n_nodes, MAX_PRIORS, rng);
  g_autofree char *text = NULL;
  g_autofree char *empty_path = g_build_filename (tmp, "empty-workflow", NULL);
  g_autoptr(GFile) empty = g_file_new_for_path (empty_path);
  double load[LOAD_REPEATS], validate[LOAD_REPEATS], both[LOAD_REPEATS];
  double folder_validate[LOAD_REPEATS], save[LOAD_REPEATS];
  gsize length, saved_length = 0;
  guint errors = 0, warnings = 0, folder_warnings = 0, reloaded = 0;

  text = dag_to_json (dag, TRUE, &length);
  g_mkdir_with_parents (empty_path, 0755);

  for (guint rep = 0; rep < LOAD_REPEATS; rep++)
    {
      g_autoptr(SkProject) project = NULL;
      g_autoptr(SkProject) again = NULL;
      g_autoptr(GPtrArray) problems = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *data = NULL;
      gint64 start;

      start = g_get_monotonic_time ();
      project = sk_project_load_from_data (text, length, NULL, &error);
      load[rep] = ms_since (start);
      if (project == NULL)
        {
          g_print ("   loading failed: %s\n", error->message);
          return -1;
        }

      start = g_get_monotonic_time ();
      problems = sk_project_validate (project);
      validate[rep] = ms_since (start);
      both[rep] = load[rep] + validate[rep];

      start = g_get_monotonic_time ();
      data = sk_project_to_data (project, &saved_length);
      save[rep] = ms_since (start);

      if (rep == 0)
        {
          for (guint i = 0; i < problems->len; i++)
            {
              SkProblem *problem = g_ptr_array_index (problems, i);

              if (problem->is_warning)
                warnings++;
              else if (errors++ == 0)
                g_print ("   unexpected problem: %s\n", problem->message);
            }

          again = sk_project_load_from_data (data, saved_length, NULL, NULL);
          reloaded = again != NULL ? sk_project_get_n_nodes (again) : 0;
        }
    }

  /* With a folder, validation also looks for each node's script. */
  for (guint rep = 0; rep < LOAD_REPEATS; rep++)
    {
      g_autoptr(SkProject) project = sk_project_load_from_data (text, length, empty, NULL);
      g_autoptr(GPtrArray) problems = NULL;
      gint64 start;

      if (project == NULL)
        return -1;

      start = g_get_monotonic_time ();
      problems = sk_project_validate (project);
      folder_validate[rep] = ms_since (start);
      folder_warnings = problems->len;
    }

  g_print ("1. process.json with %u nodes, %u edges, longest chain %u; %.1f KiB; "
           "median of %u\n",
           dag->n_nodes, dag->n_edges, dag->depth, length / 1024.0, LOAD_REPEATS);
  g_print ("   %-52s %9.1f ms\n", "load (sk_project_load_from_data)", sk_test_median (load, LOAD_REPEATS));
  g_print ("   %-52s %9.1f ms\n", "validate (sk_project_validate, no folder)",
           sk_test_median (validate, LOAD_REPEATS));
  g_print ("   %-52s %9.1f ms   (%u errors, %u warnings)\n", "load + validate",
           sk_test_median (both, LOAD_REPEATS), errors, warnings);
  g_print ("   %-52s %9.1f ms   (%u missing-script warnings)\n",
           "validate with a folder (looks for each script)",
           sk_test_median (folder_validate, LOAD_REPEATS), folder_warnings);
  g_print ("   %-52s %9.1f ms   (%.1f KiB, reloads as %u nodes)\n",
           "save (sk_project_to_data)", sk_test_median (save, LOAD_REPEATS),
           saved_length / 1024.0, reloaded);

  return sk_test_median (both, LOAD_REPEATS);
}

/* 2. The workflow the runs share ----------------------------------------- */

static void
workflow_free (Workflow *workflow)
{
  g_clear_pointer (&workflow->dag, dag_free);
  g_free (workflow->folder);
  g_free (workflow->python);
  g_free (workflow->process_json);
  g_free (workflow);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Workflow, workflow_free)

/* A trivial node that follows the script contract; its __main__ block is what
 * the plain loop and Snakemake run.
 */
static char *
node_script (const Dag *dag,
             guint      node)
{
  g_autoptr(GPtrArray) priors = g_ptr_array_new ();
  const guint *mine = dag_priors (dag, node);

  for (guint j = 0; j < dag->n_priors[node]; j++)
    g_ptr_array_add (priors, (gpointer) dag->keys[mine[j]]);
  g_ptr_array_add (priors, NULL);

  return sk_test_bench_script (node + 1, dag->keys[node], (const char * const *) priors->pdata);
}

static Workflow *
workflow_new (const char *tmp,
              const char *python,
              guint       n_nodes,
              GRand      *rng)
{
  g_autoptr(Workflow) workflow = g_new0 (Workflow, 1);
  g_autofree char *json_path = NULL;

  workflow->dag = dag_new (n_nodes, RUN_PRIORS, rng);
  workflow->folder = g_build_filename (tmp, "workflow", NULL);
  workflow->python = g_strdup (python);
  workflow->process_json = dag_to_json (workflow->dag, FALSE, &workflow->process_json_length);

  json_path = g_build_filename (workflow->folder, SK_PROJECT_FILE_NAME, NULL);
  if (g_mkdir_with_parents (workflow->folder, 0755) != 0 ||
      !sk_test_bench_write_file (json_path, workflow->process_json,
                                 workflow->process_json_length))
    return NULL;

  for (guint i = 0; i < n_nodes; i++)
    {
      const char *key = workflow->dag->keys[i];
      g_autofree char *folder = g_build_filename (workflow->folder, key, NULL);
      g_autofree char *basename = g_strconcat (key, ".py", NULL);
      g_autofree char *path = g_build_filename (folder, basename, NULL);
      g_autofree char *script = node_script (workflow->dag, i);

      if (g_mkdir_with_parents (folder, 0755) != 0 ||
          !sk_test_bench_write_file (path, script, -1))
        return NULL;
    }

  return g_steal_pointer (&workflow);
}

/* Every timed run starts from the same files: no outputs, the original
 * process.json (a run writes its results into it).
 */
static void
workflow_reset (Workflow *workflow)
{
  g_autofree char *json_path = g_build_filename (workflow->folder, SK_PROJECT_FILE_NAME, NULL);

  for (guint i = 0; i < workflow->dag->n_nodes; i++)
    {
      const char *key = workflow->dag->keys[i];
      g_autofree char *pickle = g_strdup_printf ("%s/%s/%s.pkl", workflow->folder, key, key);
      g_autofree char *summary = g_strdup_printf ("%s/%s/%s_summary.txt",
                                                  workflow->folder, key, key);

      g_unlink (pickle);
      g_unlink (summary);
    }

  sk_test_bench_write_file (json_path, workflow->process_json, workflow->process_json_length);
}

static guint
workflow_count_pickles (Workflow *workflow)
{
  guint count = 0;

  for (guint i = 0; i < workflow->dag->n_nodes; i++)
    {
      const char *key = workflow->dag->keys[i];
      g_autofree char *pickle = g_strdup_printf ("%s/%s/%s.pkl", workflow->folder, key, key);

      if (g_file_test (pickle, G_FILE_TEST_IS_REGULAR))
        count++;
    }

  return count;
}

/* The peer: a plain sequential loop, as a person would run the scripts. */
static double
time_baseline (Workflow *workflow,
               guint    *succeeded)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autofree char *first_error = NULL;
  gint64 start;
  double elapsed;

  workflow_reset (workflow);
  *succeeded = 0;

  start = g_get_monotonic_time ();
  for (guint i = 0; i < workflow->dag->n_nodes; i++)
    {
      const char *key = workflow->dag->keys[i];
      g_autofree char *folder = g_build_filename (workflow->folder, key, NULL);
      g_autofree char *script = g_strconcat (key, ".py", NULL);
      const char * const argv[] = { workflow->python, script, NULL };
      g_autoptr(GError) error = NULL;

      g_subprocess_launcher_set_cwd (launcher, folder);
      if (spawn_and_wait (launcher, argv, &error))
        (*succeeded)++;
      else if (first_error == NULL)
        first_error = g_strdup_printf ("%s: %s", key, error->message);
    }
  elapsed = ms_since (start);

  if (first_error != NULL)
    g_print ("   baseline: first failure: %s\n", first_error);

  return elapsed;
}

static void
run_ready_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Waiter *waiter = user_data;

  waiter->result = g_object_ref (result);
  g_main_loop_quit (waiter->loop);
}

/* Times what `skele run --force` does once the workflow is loaded: the run
 * and writing its results into process.json. Without @force the files are
 * left as the last run left them, as for `skele run` after a run; then
 * @done counts the nodes that were up to date as well as those that ran.
 */
static double
time_runner (Workflow *workflow,
             gboolean  in_memory,
             gboolean  fork_server,
             guint     jobs,
             gboolean  force,
             guint    *done)
{
  g_autoptr(GFile) folder = g_file_new_for_path (workflow->folder);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkRunner) runner = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GError) error = NULL;
  SkRunStats stats = { 0 };
  Waiter waiter = { NULL, NULL };
  gboolean ok;
  gint64 start;
  double elapsed;

  if (force)
    workflow_reset (workflow);
  *done = 0;

  if ((project = sk_project_load (folder, &error)) == NULL)
    {
      g_print ("   runner: the workflow could not be loaded: %s\n", error->message);
      return -1;
    }

  runner = sk_runner_new ();
  sk_runner_set_python (runner, workflow->python);
  sk_runner_set_jobs (runner, jobs);
  sk_runner_set_in_memory (runner, in_memory);
  sk_runner_set_fork_server (runner, fork_server);
  sk_runner_set_force (runner, force);

  loop = g_main_loop_new (NULL, FALSE);
  waiter.loop = loop;

  start = g_get_monotonic_time ();
  sk_runner_run_async (runner, project, NULL, NULL, run_ready_cb, &waiter);
  g_main_loop_run (loop);
  ok = sk_runner_run_finish (runner, waiter.result, &stats, &error);
  elapsed = ms_since (start);
  g_clear_object (&waiter.result);

  *done = stats.succeeded + stats.up_to_date;
  if (!ok)
    g_print ("   runner: the run failed: %s\n", error->message);

  if (*done != workflow->dag->n_nodes)
    {
      for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (project)); i++)
        {
          g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

          if (sk_node_get_state (node) == SK_NODE_STATE_FAILED)
            {
              g_print ("   runner: first failure: %s: %s\n", sk_node_get_key (node),
                       sk_node_get_error_text (node));
              break;
            }
        }
    }

  return ok ? elapsed : -1;
}

/* What a person waits for when `skele run` has nothing to do: the whole
 * command, from its start to its exit, loading, checking and the runner
 * included. Against the same binary printing its version, which is what
 * starting it costs. Returns the median, -1 when it cannot be measured.
 */
static double
time_cli_nothing_to_do (Workflow *workflow,
                        double   *fastest,
                        double   *version_ms)
{
  const char *skele = g_getenv ("SKELE_BIN");
  /* The last slot but one takes --events=json for the check. */
  const char *run_argv[] = { NULL, "run", workflow->folder, "--python", workflow->python,
                             "--jobs", "2", "--no-agent", NULL, NULL };
  const char *version_argv[] = { NULL, "--version", NULL };
  g_autofree char *expected = NULL;
  g_autofree char *events = NULL;
  g_autoptr(GError) error = NULL;
  double median;

  if (skele == NULL)
    skele = SKELE_BENCH_CLI;
  if (!g_file_test (skele, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_print ("   skele run, nothing to do: skipped, %s is not built "
               "(build src/cli/skele or set SKELE_BIN)\n", skele);
      return -1;
    }

  run_argv[0] = version_argv[0] = skele;
  *version_ms = time_command (version_argv, CLI_REPEATS, NULL);
  median = time_command (run_argv, CLI_REPEATS, fastest);

  /* The row stands only if every step was up to date. */
  expected = g_strdup_printf ("\"succeeded\":0,\"failed\":0,\"skipped\":0,\"up_to_date\":%u,",
                              workflow->dag->n_nodes);
  run_argv[G_N_ELEMENTS (run_argv) - 2] = "--events=json";
  if (median > 0 && ((events = capture_output (run_argv, &error)) == NULL ||
                     strstr (events, expected) == NULL))
    {
      g_print ("   skele run, nothing to do: not up to date: %s\n",
               error != NULL ? error->message : "some step ran");
      return -1;
    }

  return median;
}

/* 3. Snakemake ------------------------------------------------------------ */

/* Quotes @text for a Python string literal that Snakemake then formats. */
static void
append_snake_string (GString    *out,
                     const char *text)
{
  g_string_append_c (out, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (out, '\\');
      else if (*p == '{' || *p == '}')
        g_string_append_c (out, *p);
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static gboolean
write_snakefile (Workflow *workflow)
{
  const Dag *dag = workflow->dag;
  GString *snakefile = g_string_new ("# One rule per node, generated by bench-core.\n\n"
                                     "rule all:\n    input:\n");
  g_autofree char *quoted_python = g_shell_quote (workflow->python);
  g_autofree char *path = g_build_filename (workflow->folder, "Snakefile", NULL);
  g_autofree char *text = NULL;

  for (guint i = 0; i < dag->n_nodes; i++)
    g_string_append_printf (snakefile, "        \"%s/%s.pkl\",\n", dag->keys[i], dag->keys[i]);

  for (guint i = 0; i < dag->n_nodes; i++)
    {
      const char *key = dag->keys[i];
      const guint *mine = dag_priors (dag, i);
      g_autofree char *command = g_strdup_printf ("cd %s && %s %s.py", key, quoted_python, key);

      g_string_append_printf (snakefile, "\nrule %s:\n", key);
      if (dag->n_priors[i] > 0)
        {
          g_string_append (snakefile, "    input:\n");
          for (guint j = 0; j < dag->n_priors[i]; j++)
            g_string_append_printf (snakefile, "        \"%s/%s.pkl\",\n",
                                    dag->keys[mine[j]], dag->keys[mine[j]]);
        }
      g_string_append_printf (snakefile, "    output:\n        \"%s/%s.pkl\"\n"
                              "    shell:\n        ", key, key);
      append_snake_string (snakefile, command);
      g_string_append_c (snakefile, '\n');
    }

  text = g_string_free (snakefile, FALSE);
  return sk_test_bench_write_file (path, text, -1);
}

/* Runs Snakemake with @args in @folder, its output going to
 * @folder/@log_name, and returns its wall time, or -1 after printing the end
 * of its output when it failed.
 */
static double
run_snakemake (const char         *folder,
               const char * const *args,
               const char         *log_name)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *log_path = g_build_filename (folder, log_name, NULL);
  gboolean ok;
  gint64 start;
  double elapsed;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_subprocess_launcher_set_cwd (launcher, folder);
  g_subprocess_launcher_set_stdout_file_path (launcher, log_path);

  start = g_get_monotonic_time ();
  ok = spawn_and_wait (launcher, args, &error);
  elapsed = ms_since (start);

  if (!ok)
    {
      g_autofree char *output = NULL;
      gsize length = 0;

      g_print ("   snakemake failed: %s\n", error->message);
      if (g_file_get_contents (log_path, &output, &length, NULL))
        g_print ("   end of its output:\n%s\n", output + (length > 2000 ? length - 2000 : 0));
      return -1;
    }

  return elapsed;
}

static double
time_snakemake (Workflow   *workflow,
                const char *snakemake,
                guint       jobs,
                guint      *succeeded)
{
  g_autofree char *cores = g_strdup_printf ("%u", jobs);
  const char * const argv[] = { snakemake, "--cores", cores, "--forceall", "--quiet",
                                "-s", "Snakefile", NULL };
  double elapsed;

  workflow_reset (workflow);
  elapsed = run_snakemake (workflow->folder, argv, "snakemake.log");
  *succeeded = workflow_count_pickles (workflow);

  return elapsed;
}

/* Writes the workflow with sk_export_snakemake() into @export_folder, which
 * must not exist yet, and returns the time the export took; loading the
 * workflow is not counted, as for the other exports.
 */
static double
time_export (Workflow   *workflow,
             const char *export_folder)
{
  g_autoptr(GFile) folder = g_file_new_for_path (workflow->folder);
  g_autoptr(GFile) destination = g_file_new_for_path (export_folder);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;
  gboolean ok;
  gint64 start;
  double elapsed;

  if ((project = sk_project_load (folder, &error)) == NULL)
    {
      g_print ("   export: the workflow could not be loaded: %s\n", error->message);
      return -1;
    }

  start = g_get_monotonic_time ();
  ok = sk_export_snakemake (project, destination, &error);
  elapsed = ms_since (start);

  if (!ok)
    {
      g_print ("   sk_export_snakemake failed: %s\n", error->message);
      return -1;
    }

  return elapsed;
}

/* Counts the steps of the exported workflow whose record,
 * KEY/.skele/state.json, says that they succeeded, and names the first that
 * did not.
 */
static guint
export_count_succeeded (Workflow   *workflow,
                        const char *export_folder)
{
  guint count = 0;
  gboolean told = FALSE;

  for (guint i = 0; i < workflow->dag->n_nodes; i++)
    {
      const char *key = workflow->dag->keys[i];
      g_autofree char *path = g_build_filename (export_folder, key, ".skele", "state.json", NULL);
      g_autoptr(JsonParser) parser = json_parser_new ();
      const char *state = NULL;
      JsonNode *root;

      if (json_parser_load_from_file (parser, path, NULL) &&
          (root = json_parser_get_root (parser)) != NULL && JSON_NODE_HOLDS_OBJECT (root))
        state = json_object_get_string_member_with_default (json_node_get_object (root),
                                                            "state", NULL);

      if (g_strcmp0 (state, "succeeded") == 0)
        count++;
      else if (!told)
        {
          g_print ("   exported: first step that did not succeed: %s: %s\n", key,
                   state != NULL ? state : "no state.json");
          told = TRUE;
        }
    }

  return count;
}

/* Report ----------------------------------------------------------------- */

static void
print_row (const char *what,
           const char *jobs,
           double      ms,
           guint       n_nodes,
           guint       succeeded,
           double      reference_ms)
{
  if (ms < 0)
    {
      g_print ("   %-40s %4s   %9s %9s %9s   failed\n", what, jobs, "-", "-", "-");
      return;
    }

  g_print ("   %-40s %4s   %9.2f %9.2f %9.2f", what, jobs, ms / 1000, ms / n_nodes,
           reference_ms > 0 ? ms / reference_ms : 0);
  if (succeeded != n_nodes)
    g_print ("   only %u of %u nodes succeeded", succeeded, n_nodes);
  g_print ("\n");
}

/* Other work on the machine skews the figures; say how busy it was. */
static double
ratio (double a,
       double b)
{
  return a > 0 && b > 0 ? a / b : 0;
}

/* The workflow as sk_export_snakemake() writes it, run by Snakemake with the
 * bench's interpreter: once with --forceall, then again with nothing to do.
 */
static void
bench_exported (Workflow   *workflow,
                const char *snakemake,
                const char *tmp,
                double      base_ms,
                double      iso2_ms,
                double      again_ms,
                double      snake_ms,
                double     *export_ms,
                double     *exported_ms,
                double     *exported_again_ms)
{
  g_autofree char *export_folder = g_build_filename (tmp, "snakemake-export", NULL);
  g_autofree char *python_config = g_strconcat ("python=", workflow->python, NULL);
  g_autofree char *log_path = NULL;
  g_autofree char *log = NULL;
  guint n_nodes = workflow->dag->n_nodes;
  guint succeeded;
  const char * const forceall_argv[] = { snakemake, "--cores", "2", "--forceall", "--quiet",
                                         "--config", python_config, NULL };
  /* Even with --quiet, Snakemake 7 says when it found nothing to do. */
  const char * const again_argv[] = { snakemake, "--cores", "2", "--quiet",
                                      "--config", python_config, NULL };

  *export_ms = time_export (workflow, export_folder);
  if (*export_ms < 0)
    return;
  g_print ("   %-40s %4s   %9.2f %9.2f\n", "sk_export_snakemake (writing the folder)", "",
           *export_ms / 1000, *export_ms / n_nodes);

  *exported_ms = run_snakemake (export_folder, forceall_argv, "snakemake.log");
  succeeded = export_count_succeeded (workflow, export_folder);
  print_row ("exported Snakefile --cores 2 --forceall", "2", *exported_ms, n_nodes,
             succeeded, base_ms);
  if (*exported_ms < 0)
    return;
  g_print ("   %-40s %4s   %9s %9s %9.2f\n", "exported / skele isolated", "2", "", "",
           ratio (*exported_ms, iso2_ms));
  g_print ("   %-40s %4s   %9s %9s %9.2f\n", "exported / hand-written Snakefile", "2", "", "",
           ratio (*exported_ms, snake_ms));

  *exported_again_ms = run_snakemake (export_folder, again_argv, "snakemake-again.log");
  succeeded = export_count_succeeded (workflow, export_folder);
  print_row ("exported Snakefile, nothing to do", "2", *exported_again_ms, n_nodes,
             succeeded, base_ms);
  if (*exported_again_ms < 0)
    return;

  log_path = g_build_filename (export_folder, "snakemake-again.log", NULL);
  if (g_file_get_contents (log_path, &log, NULL, NULL) &&
      strstr (log, "Nothing to be done") == NULL)
    g_print ("   (the second run did not say “Nothing to be done”)\n");
  g_print ("   %-40s %4s   %9s %9s %9.2f\n", "nothing to do: exported / skele", "2", "", "",
           ratio (*exported_again_ms, again_ms));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GRand) rng = g_rand_new_with_seed (20260101);
  g_autoptr(Workflow) workflow = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *python = NULL;
  g_autofree char *wrapper = NULL;
  g_autofree char *version = NULL;
  g_autofree char *harness = NULL;
  g_autofree char *snakemake = NULL;
  g_autofree char *snakemake_version = NULL;
  const char *skip_reason = NULL;
  guint n_nodes = sk_test_env_uint ("SKELE_BENCH_NODES", DEFAULT_RUN_NODES, G_MAXUINT / 2);
  guint n_load_nodes = sk_test_env_uint ("SKELE_BENCH_LOAD_NODES", DEFAULT_LOAD_NODES, 10000000);
  guint ok_base = 0, ok_spawn1 = 0, ok_spawn2 = 0, ok_iso1 = 0, ok_iso2 = 0;
  guint ok_again = 0, ok_mem = 0, ok_snake = 0;
  double base_ms, iso1_ms, spawn1_ms, spawn2_ms, iso2_ms, again_ms, mem_ms, snake_ms = -1;
  double export_ms = -1, exported_ms = -1, exported_again_ms = -1;
  double startup_ms, wrapper_ms = -1, load_ms;
  double cli_ms, cli_fastest_ms = -1, cli_version_ms = -1;

  if ((tmp = g_dir_make_tmp ("skele-bench-XXXXXX", &error)) == NULL)
    {
      g_printerr ("No temporary folder: %s\n", error->message);
      return 1;
    }

  if ((python = find_python (&wrapper, &version, &error)) == NULL)
    {
      g_printerr ("No Python interpreter: %s\n", error->message);
      sk_test_remove_tree (tmp);
      return 1;
    }

  /* The harness is written once into the cache; that is not part of a run. */
  if ((harness = sk_harness_get_path (&error)) == NULL)
    {
      g_printerr ("No harness: %s\n", error->message);
      sk_test_remove_tree (tmp);
      return 1;
    }

  startup_ms = time_startup (python, STARTUP_REPEATS);
  if (wrapper != NULL)
    wrapper_ms = time_startup (wrapper, WRAPPER_REPEATS);

  g_print ("Skele-Code core benchmark (%u processors)\n", g_get_num_processors ());
  g_print ("   python     %s (Python %s)\n", python, version);
  if (wrapper != NULL)
    g_print ("              run directly: python3 on PATH is the wrapper %s\n"
             "              (set SKELE_BENCH_PYTHON to run the wrapper instead)\n",
             wrapper);
  g_print ("   start-up   `python -c pass`: %.1f ms", startup_ms);
  if (wrapper != NULL)
    g_print ("; through the wrapper: %.1f ms", wrapper_ms);
  g_print ("\n   harness    %s\n", harness);
  sk_test_print_load_average ("   loadavg    ", "before");
  g_print ("\n");

  load_ms = bench_load (tmp, n_load_nodes, rng);

  workflow = workflow_new (tmp, python, n_nodes, rng);
  if (workflow == NULL)
    {
      sk_test_remove_tree (tmp);
      return 1;
    }

  g_print ("\n2. Per-node overhead: %u trivial nodes, %u edges, longest chain %u; "
           "one run each, runner re-runs with force\n",
           n_nodes, workflow->dag->n_edges, workflow->dag->depth);
  g_print ("   %-40s %4s   %9s %9s %9s\n", "what", "jobs", "total s", "ms/node", "x base");

  /* An untimed run leaves each node's record behind, so that every timed
   * run of the runner is a re-run, as with "Run again" or --force.
   */
  time_runner (workflow, TRUE, TRUE, 1, TRUE, &ok_mem);

  base_ms = time_baseline (workflow, &ok_base);
  print_row ("baseline: loop of `python KEY.py`", "1", base_ms, n_nodes, ok_base, base_ms);
  spawn1_ms = time_runner (workflow, FALSE, FALSE, 1, TRUE, &ok_spawn1);
  print_row ("skele isolated, spawned", "1", spawn1_ms, n_nodes, ok_spawn1, base_ms);
  spawn2_ms = time_runner (workflow, FALSE, FALSE, 2, TRUE, &ok_spawn2);
  print_row ("skele isolated, spawned", "2", spawn2_ms, n_nodes, ok_spawn2, base_ms);
  iso1_ms = time_runner (workflow, FALSE, TRUE, 1, TRUE, &ok_iso1);
  print_row ("skele isolated, forked (default)", "1", iso1_ms, n_nodes, ok_iso1, base_ms);
  iso2_ms = time_runner (workflow, FALSE, TRUE, 2, TRUE, &ok_iso2);
  print_row ("skele isolated, forked (default)", "2", iso2_ms, n_nodes, ok_iso2, base_ms);
  /* Right after a run every node is up to date: what `skele run` costs
   * when there is nothing to do.
   */
  again_ms = time_runner (workflow, FALSE, TRUE, 2, FALSE, &ok_again);
  print_row ("skele isolated, nothing to do (no force)", "2", again_ms, n_nodes, ok_again,
             base_ms);
  cli_ms = time_cli_nothing_to_do (workflow, &cli_fastest_ms, &cli_version_ms);
  if (cli_ms > 0)
    g_print ("   %-40s %4s   %9.3f %9s %9s (median of %u, fastest %.1f ms; "
             "`skele --version` %.1f ms)\n",
             "`skele run`, nothing to do (command)", "2", cli_ms / 1000, "", "",
             CLI_REPEATS, cli_fastest_ms, cli_version_ms);
  mem_ms = time_runner (workflow, TRUE, TRUE, 2, TRUE, &ok_mem);
  print_row ("skele in-memory (one worker, serial)", "2", mem_ms, n_nodes, ok_mem, base_ms);
  if (iso1_ms > 0 && spawn1_ms > 0 && mem_ms > 0)
    g_print ("   forked j1 / spawned j1 %.2f; forked j2 / spawned j2 %.2f; a process of its "
             "own costs a step %.2f ms more than the in-memory mode (forked j1)\n",
             ratio (iso1_ms, spawn1_ms), ratio (iso2_ms, spawn2_ms),
             (iso1_ms - mem_ms) / n_nodes);

  g_print ("\n3. Peer: Snakemake, one rule per node, same scripts and interpreter\n");
  if (g_strcmp0 (g_getenv ("SKELE_BENCH_SKIP_SNAKEMAKE"), "1") == 0)
    skip_reason = "skipped (SKELE_BENCH_SKIP_SNAKEMAKE=1)";
  else if ((snakemake = g_find_program_in_path ("snakemake")) == NULL)
    skip_reason = "skipped: snakemake is not installed";
  else if (!write_snakefile (workflow))
    skip_reason = "skipped: the Snakefile could not be written";

  if (skip_reason != NULL)
    {
      g_print ("   %s\n", skip_reason);
    }
  else
    {
      const char * const version_argv[] = { snakemake, "--version", NULL };
      g_autoptr(GError) version_error = NULL;
      g_autofree char *label = NULL;

      snakemake_version = capture_output (version_argv, &version_error);
      label = g_strdup_printf ("snakemake %s --cores 2 --forceall",
                               snakemake_version != NULL ? snakemake_version : "?");
      snake_ms = time_snakemake (workflow, snakemake, 2, &ok_snake);
      print_row (label, "2", snake_ms, n_nodes, ok_snake, base_ms);
      if (snake_ms > 0 && iso2_ms > 0)
        g_print ("   %-40s %4s   %9s %9s %9.2f (%.1f times faster)\n",
                 "skele isolated, forked / snakemake", "2", "", "",
                 iso2_ms / snake_ms, snake_ms / iso2_ms);
      if (snake_ms > 0 && spawn2_ms > 0)
        g_print ("   %-40s %4s   %9s %9s %9.2f\n", "skele isolated, spawned / snakemake", "2",
                 "", "", spawn2_ms / snake_ms);

      bench_exported (workflow, snakemake, tmp, base_ms, iso2_ms, again_ms, snake_ms,
                      &export_ms, &exported_ms, &exported_again_ms);
    }

  g_print ("\n");
  sk_test_print_load_average ("   loadavg    ", "after");
  g_print ("Summary: load+validate %u nodes %.0f ms; %u-node run, skele/baseline: "
           "spawned j2 %.2f, forked j1 %.2f, forked j2 %.2f, in-memory %.2f; "
           "`skele run` with nothing to do %.0f ms; skele forked j2/snakemake ",
           n_load_nodes, load_ms, n_nodes, ratio (spawn2_ms, base_ms), ratio (iso1_ms, base_ms),
           ratio (iso2_ms, base_ms), ratio (mem_ms, base_ms), cli_ms);
  if (snake_ms > 0)
    g_print ("%.2f", ratio (iso2_ms, snake_ms));
  else
    g_print ("n/a");
  if (exported_ms > 0)
    g_print ("; Snakemake export: writing it %.0f ms, exported/skele isolated j2 %.2f, "
             "exported/hand-written %.2f, nothing to do exported/skele %.2f\n",
             export_ms, ratio (exported_ms, iso2_ms), ratio (exported_ms, snake_ms),
             ratio (exported_again_ms, again_ms));
  else
    g_print ("; Snakemake export n/a\n");

  if (g_getenv ("SKELE_BENCH_KEEP") != NULL)
    g_print ("Kept: %s\n", tmp);
  else
    sk_test_remove_tree (tmp);
  return 0;
}
