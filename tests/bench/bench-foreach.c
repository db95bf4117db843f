/* bench-foreach.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Figures for the for-each step (DESIGN §10), not a test: what the runner
 * costs per item of "src → each (for each of N trivial items) → join" in
 * both modes, how little a second run does after one item is added, and a
 * plain loop of `python each.py` over as many items to compare with.
 *
 * Environment: SKELE_BENCH_ITEMS (items, default 1000), SKELE_BENCH_PYTHON
 * (the interpreter for everything). The sandbox policy is the runner's
 * default, as in bench-core. The runner writes its harness under
 * XDG_CACHE_HOME, which is taken from the environment as it is.
 */

#define G_LOG_DOMAIN "bench-foreach"

#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gio/gio.h>

#include "sk-harness.h"
#include "sk-project.h"
#include "sk-runner.h"
#include "sk-test-util.h"

#define DEFAULT_ITEMS 1000
#define STARTUP_REPEATS 10
#define WRAPPER_REPEATS 3

/* The three steps, in the order of process.json. */
enum
{
  STEP_SRC,
  STEP_EACH,
  STEP_JOIN,
  N_STEPS
};

static const char * const step_keys[N_STEPS] = { "src", "each", "join" };

typedef struct
{
  GMainLoop    *loop;
  GAsyncResult *result;
  SkNode       *nodes[N_STEPS];
  gint64        start;
  gint64        began[N_STEPS];
  gint64        ended[N_STEPS];
} Waiter;

typedef struct
{
  double     ms;
  gboolean   ok;
  int        each_state;
  SkRunStats stats;
  double     began[N_STEPS];
  double     ended[N_STEPS];
  char      *each_line;
  char      *join_line;
} Outcome;

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

static char *
first_line (const char *text)
{
  const char *end;

  if (text == NULL)
    return g_strdup ("(no output text)");

  end = strchr (text, '\n');
  return end != NULL ? g_strndup (text, end - text) : g_strdup (text);
}

static double
ratio (double a,
       double b)
{
  return a > 0 && b > 0 ? a / b : 0;
}

/* Interpreter, as bench-core finds it ------------------------------------ */

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

static double
time_startup (const char *python,
              guint       repeats)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autofree double *times = g_new0 (double, repeats);
  const char * const argv[] = { python, "-c", "pass", NULL };

  for (guint i = 0; i < repeats; i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 start = g_get_monotonic_time ();

      if (!spawn_and_wait (launcher, argv, &error))
        return -1;
      times[i] = ms_since (start);
    }

  return sk_test_median (times, repeats);
}

/* The workflow ----------------------------------------------------------- */

static const char process_json[] =
  "{\n"
  "  \"process_name\": \"for-each benchmark\",\n"
  "  \"process_description\": \"Generated by bench-foreach.\",\n"
  "  \"nodes\": {\n"
  "    \"1\": {\"name\": \"src\", \"priors\": [], \"run\": true,\n"
  "           \"input\": {\"text\": \"List the items.\", \"files\": []}},\n"
  "    \"2\": {\"name\": \"each\", \"priors\": [\"1\"], \"run\": true,\n"
  "           \"input\": {\"text\": \"Do one item.\", \"files\": []},\n"
  "           \"skele\": {\"foreach\": {\"prior\": \"1\", \"path\": \"data.items\"}}},\n"
  "    \"3\": {\"name\": \"join\", \"priors\": [\"2\"], \"run\": true,\n"
  "           \"input\": {\"text\": \"Count the items' outputs.\", \"files\": []}}\n"
  "  }\n"
  "}\n";

/* The list is in the script, so that a longer list changes the step. */
static const char src_script[] =
  "\"\"\"The source of the list.\"\"\"\n"
  "import pickle\n"
  "\n"
  "KEY = \"src\"\n"
  "N_ITEMS = %u\n"
  "\n"
  "state = {}\n"
  "\n"
  "\n"
  "def preprocess(prior_outputs):\n"
  "    with open(KEY + \"_summary.txt\", \"w\", encoding=\"utf-8\") as handle:\n"
  "        handle.write(\"List the items.\\n\")\n"
  "    return True\n"
  "\n"
  "\n"
  "def compute():\n"
  "    items = [\"item %%d\" %% i for i in range(N_ITEMS)]\n"
  "    state[\"output\"] = {\"task_status\": \"success\", \"data\": {\"items\": items}}\n"
  "    with open(KEY + \"_summary.txt\", \"a\", encoding=\"utf-8\") as handle:\n"
  "        handle.write(\"Listed %%d items.\\n\" %% len(items))\n"
  "\n"
  "\n"
  "def save():\n"
  "    with open(KEY + \".pkl\", \"wb\") as handle:\n"
  "        pickle.dump(state[\"output\"], handle)\n";

/* A trivial item in the shape of bench-core's nodes. The runner runs it in
 * KEY/items/N with state["item"] and state["item_index"] set; its __main__
 * block is what the plain loop runs, with the index as its argument.
 */
static const char each_script[] =
  "\"\"\"One item of the for-each step.\"\"\"\n"
  "import pickle\n"
  "import sys\n"
  "\n"
  "KEY = \"each\"\n"
  "SUMMARY = KEY + \"_summary.txt\"\n"
  "\n"
  "state = {}\n"
  "\n"
  "\n"
  "def preprocess(prior_outputs):\n"
  "    state[\"local\"] = {\"priors\": sorted(prior_outputs)}\n"
  "    with open(SUMMARY, \"w\", encoding=\"utf-8\") as handle:\n"
  "        handle.write(\"Do one item.\\n%s at %d\\n\" % (state[\"item\"], state[\"item_index\"]))\n"
  "    return True\n"
  "\n"
  "\n"
  "def compute():\n"
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": state[\"item_index\"]}\n"
  "    with open(SUMMARY, \"a\", encoding=\"utf-8\") as handle:\n"
  "        handle.write(\"Done: success.\\n\")\n"
  "\n"
  "\n"
  "def save():\n"
  "    with open(KEY + \".pkl\", \"wb\") as handle:\n"
  "        pickle.dump(state[\"output\"], handle)\n"
  "\n"
  "\n"
  "if __name__ == \"__main__\":\n"
  "    state[\"item_index\"] = int(sys.argv[1])\n"
  "    state[\"item\"] = \"item %d\" % state[\"item_index\"]\n"
  "    if preprocess({}):\n"
  "        compute()\n"
  "        save()\n";

static const char join_script[] =
  "\"\"\"The join: counts what the items gave.\"\"\"\n"
  "import pickle\n"
  "\n"
  "KEY = \"join\"\n"
  "\n"
  "state = {}\n"
  "\n"
  "\n"
  "def preprocess(prior_outputs):\n"
  "    state[\"local\"] = {\"items\": prior_outputs.get(\"each\", {}).get(\"items\", [])}\n"
  "    with open(KEY + \"_summary.txt\", \"w\", encoding=\"utf-8\") as handle:\n"
  "        handle.write(\"Count the items' outputs.\\n\")\n"
  "    return True\n"
  "\n"
  "\n"
  "def compute():\n"
  "    items = state[\"local\"][\"items\"]\n"
  "    total = sum(item.get(\"value\", 0) for item in items)\n"
  "    state[\"output\"] = {\"task_status\": \"success\", \"count\": len(items), \"total\": total}\n"
  "    with open(KEY + \"_summary.txt\", \"a\", encoding=\"utf-8\") as handle:\n"
  "        handle.write(\"Joined %d items, values adding up to %d.\\n\" % (len(items), total))\n"
  "\n"
  "\n"
  "def save():\n"
  "    with open(KEY + \".pkl\", \"wb\") as handle:\n"
  "        pickle.dump(state[\"output\"], handle)\n";

static gboolean
write_script (const char *workflow,
              const char *key,
              const char *script)
{
  g_autofree char *folder = g_build_filename (workflow, key, NULL);
  g_autofree char *basename = g_strconcat (key, ".py", NULL);
  g_autofree char *path = g_build_filename (folder, basename, NULL);

  return g_mkdir_with_parents (folder, 0755) == 0 && sk_test_bench_write_file (path, script, -1);
}

static gboolean
set_item_count (const char *workflow,
                guint       n_items)
{
  g_autofree char *script = g_strdup_printf (src_script, n_items);

  return write_script (workflow, "src", script);
}

static char *
workflow_new (const char *tmp,
              const char *name,
              guint       n_items)
{
  g_autofree char *folder = g_build_filename (tmp, name, NULL);
  g_autofree char *json_path = g_build_filename (folder, SK_PROJECT_FILE_NAME, NULL);

  if (g_mkdir_with_parents (folder, 0755) != 0 ||
      !sk_test_bench_write_file (json_path, process_json, -1) ||
      !set_item_count (folder, n_items) ||
      !write_script (folder, "each", each_script) ||
      !write_script (folder, "join", join_script))
    return NULL;

  return g_steal_pointer (&folder);
}

/* Running ----------------------------------------------------------------- */

static void
outcome_clear (Outcome *outcome)
{
  g_clear_pointer (&outcome->each_line, g_free);
  g_clear_pointer (&outcome->join_line, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Outcome, outcome_clear)

/* When each of the three steps started and ended; the items are nodes of
 * their own and are not among them.
 */
static void
node_state_changed_cb (SkRunner *runner,
                       SkNode   *node,
                       int       state,
                       Waiter   *waiter)
{
  for (guint i = 0; i < N_STEPS; i++)
    {
      if (node != waiter->nodes[i])
        continue;

      if (state == SK_NODE_STATE_RUNNING && waiter->began[i] == 0)
        waiter->began[i] = g_get_monotonic_time ();
      else if (state >= SK_NODE_STATE_SUCCEEDED && state <= SK_NODE_STATE_UP_TO_DATE)
        waiter->ended[i] = g_get_monotonic_time ();
    }
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

/* Times one run of the marked steps, as `skele run` does it once the
 * workflow is loaded (the load is not timed): without force, so that only
 * what changed runs.
 */
static void
time_runner (const char *workflow,
             const char *python,
             gboolean    in_memory,
             guint       jobs,
             Outcome    *outcome)
{
  g_autoptr(GFile) folder = g_file_new_for_path (workflow);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkRunner) runner = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GError) error = NULL;
  Waiter waiter = { 0 };
  gulong handler;

  outcome_clear (outcome);
  memset (outcome, 0, sizeof *outcome);
  outcome->ms = -1;

  if ((project = sk_project_load (folder, &error)) == NULL)
    {
      g_print ("   runner: the workflow could not be loaded: %s\n", error->message);
      return;
    }

  for (guint i = 0; i < N_STEPS; i++)
    waiter.nodes[i] = sk_project_get_node_by_key (project, step_keys[i]);

  runner = sk_runner_new ();
  sk_runner_set_python (runner, python);
  sk_runner_set_jobs (runner, jobs);
  sk_runner_set_in_memory (runner, in_memory);

  loop = g_main_loop_new (NULL, FALSE);
  waiter.loop = loop;
  handler = g_signal_connect (runner, "node-state-changed",
                              G_CALLBACK (node_state_changed_cb), &waiter);

  waiter.start = g_get_monotonic_time ();
  sk_runner_run_async (runner, project, NULL, NULL, run_ready_cb, &waiter);
  g_main_loop_run (loop);
  outcome->ok = sk_runner_run_finish (runner, waiter.result, &outcome->stats, &error);
  outcome->ms = ms_since (waiter.start);
  g_clear_object (&waiter.result);
  g_signal_handler_disconnect (runner, handler);

  if (!outcome->ok)
    g_print ("   runner: the run failed: %s\n", error->message);

  for (guint i = 0; i < N_STEPS; i++)
    {
      SkNode *node = waiter.nodes[i];

      outcome->began[i] = waiter.began[i] > 0 ? (waiter.began[i] - waiter.start) / 1000.0 : -1;
      outcome->ended[i] = waiter.ended[i] > 0 ? (waiter.ended[i] - waiter.start) / 1000.0 : -1;
      if (node != NULL && sk_node_get_state (node) == SK_NODE_STATE_FAILED)
        g_print ("   runner: %s failed: %s\n", step_keys[i], sk_node_get_error_text (node));
    }

  outcome->each_state = waiter.nodes[STEP_EACH] != NULL
                        ? (int) sk_node_get_state (waiter.nodes[STEP_EACH]) : -1;
  if (waiter.nodes[STEP_EACH] != NULL)
    outcome->each_line = first_line (sk_node_get_output_text (waiter.nodes[STEP_EACH]));
  if (waiter.nodes[STEP_JOIN] != NULL)
    {
      const char *text = sk_node_get_output_text (waiter.nodes[STEP_JOIN]);
      const char *second = text != NULL ? strchr (text, '\n') : NULL;

      outcome->join_line = first_line (second != NULL ? second + 1 : text);
    }
}

/* The peer: a plain sequential loop over the items, as bench-core runs its
 * nodes, each in a folder of its own laid out as the runner's items are.
 */
static double
time_baseline (const char *tmp,
               const char *python,
               guint       n_items,
               guint      *succeeded)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autofree char *workflow = g_build_filename (tmp, "baseline", NULL);
  g_autofree char *first_error = NULL;
  gint64 start;
  double elapsed;

  *succeeded = 0;
  if (!write_script (workflow, "each", each_script))
    return -1;

  for (guint i = 0; i < n_items; i++)
    {
      g_autofree char *name = g_strdup_printf ("%u", i);
      g_autofree char *folder = g_build_filename (workflow, "each", "items", name, NULL);

      if (g_mkdir_with_parents (folder, 0755) != 0)
        return -1;
    }

  start = g_get_monotonic_time ();
  for (guint i = 0; i < n_items; i++)
    {
      g_autofree char *name = g_strdup_printf ("%u", i);
      g_autofree char *folder = g_build_filename (workflow, "each", "items", name, NULL);
      const char * const argv[] = { python, "../../each.py", name, NULL };
      g_autoptr(GError) error = NULL;

      g_subprocess_launcher_set_cwd (launcher, folder);
      if (spawn_and_wait (launcher, argv, &error))
        (*succeeded)++;
      else if (first_error == NULL)
        first_error = g_strdup_printf ("item %u: %s", i, error->message);
    }
  elapsed = ms_since (start);

  if (first_error != NULL)
    g_print ("   baseline: first failure: %s\n", first_error);

  return elapsed;
}

/* Report ----------------------------------------------------------------- */

/* One line of figures, then when the steps ended and what the for-each
 * step and the join reported. @per_item is whether the run did every item,
 * so that a figure per item means something.
 */
static void
print_row (const char    *what,
           guint          jobs,
           const Outcome *outcome,
           guint          n_items,
           gboolean       per_item,
           double         base_ms,
           double         first_ms)
{
  g_autofree char *ms_item = NULL;
  g_autofree char *x_base = NULL;
  g_autofree char *x_first = NULL;

  if (!outcome->ok || outcome->ms < 0)
    {
      g_print ("   %-42s %4u   %8s   failed\n", what, jobs, "-");
      return;
    }

  ms_item = per_item ? g_strdup_printf ("%.2f", outcome->ms / n_items) : g_strdup ("");
  x_base = per_item && base_ms > 0 ? g_strdup_printf ("%.2f", outcome->ms / base_ms)
                                   : g_strdup ("");
  x_first = first_ms > 0 ? g_strdup_printf ("%.4f", outcome->ms / first_ms) : g_strdup ("");

  g_print ("   %-42s %4u   %8.3f %8s %7s %8s\n", what, jobs, outcome->ms / 1000, ms_item,
           x_base, x_first);
  g_print ("        src ended at %.0f ms; each listed from %.0f ms, ended at %.0f ms; "
           "join ended at %.0f ms (%u steps ran, %u up to date, %u failed)\n",
           outcome->ended[STEP_SRC], outcome->began[STEP_EACH], outcome->ended[STEP_EACH],
           outcome->ended[STEP_JOIN], outcome->stats.succeeded, outcome->stats.up_to_date,
           outcome->stats.failed);
  g_print ("        each: %s%s\n", outcome->each_line,
           outcome->each_state == SK_NODE_STATE_UP_TO_DATE ? " (its report of the run before)"
                                                           : "");
  g_print ("        join: %s\n", outcome->join_line);
}

/* Other work on the machine skews the figures; say how busy it was. */
int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkRunner) defaults = sk_runner_new ();
  g_auto(Outcome) iso_first = { 0 };
  g_auto(Outcome) mem_first = { 0 };
  g_auto(Outcome) iso_added = { 0 };
  g_auto(Outcome) iso_same = { 0 };
  g_autofree char *tmp = NULL;
  g_autofree char *python = NULL;
  g_autofree char *wrapper = NULL;
  g_autofree char *version = NULL;
  g_autofree char *harness = NULL;
  g_autofree char *isolated = NULL;
  g_autofree char *in_memory = NULL;
  g_autofree char *added_label = NULL;
  guint n_items = sk_test_env_uint ("SKELE_BENCH_ITEMS", DEFAULT_ITEMS, G_MAXUINT / 4);
  guint jobs = g_get_num_processors ();
  guint ok_base = 0;
  double base_ms, startup_ms, wrapper_ms = -1;

  if ((tmp = g_dir_make_tmp ("skele-bench-foreach-XXXXXX", &error)) == NULL)
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

  isolated = workflow_new (tmp, "isolated", n_items);
  in_memory = workflow_new (tmp, "in-memory", n_items);
  if (isolated == NULL || in_memory == NULL)
    {
      sk_test_remove_tree (tmp);
      return 1;
    }

  startup_ms = time_startup (python, STARTUP_REPEATS);
  if (wrapper != NULL)
    wrapper_ms = time_startup (wrapper, WRAPPER_REPEATS);

  g_print ("Skele-Code for-each benchmark (%u processors)\n", g_get_num_processors ());
  g_print ("   python     %s (Python %s)\n", python, version);
  if (wrapper != NULL)
    g_print ("              run directly: python3 on PATH is the wrapper %s\n"
             "              (set SKELE_BENCH_PYTHON to run the wrapper instead)\n",
             wrapper);
  g_print ("   start-up   `python -c pass`: %.1f ms", startup_ms);
  if (wrapper != NULL)
    g_print ("; through the wrapper: %.1f ms", wrapper_ms);
  g_print ("\n   harness    %s\n", harness);
  g_print ("   sandbox    %s (the runner's default, as in bench-core)\n",
           sk_sandbox_policy_to_string (sk_runner_get_sandbox_policy (defaults)));
  sk_test_print_load_average ("   loadavg    ", "before");

  g_print ("\nsrc -> each (for each of %u trivial items) -> join; one run each, without force\n",
           n_items);
  g_print ("   %-42s %4s   %8s %8s %7s %8s\n", "what", "jobs", "total s", "ms/item",
           "x base", "x run 1");

  /* Every run is timed before anything is printed, so that printing does
   * not fall between them; the baseline goes last.
   */
  time_runner (isolated, python, FALSE, jobs, &iso_first);
  time_runner (in_memory, python, TRUE, jobs, &mem_first);
  if (set_item_count (isolated, n_items + 1))
    time_runner (isolated, python, FALSE, jobs, &iso_added);
  time_runner (isolated, python, FALSE, jobs, &iso_same);
  base_ms = time_baseline (tmp, python, n_items, &ok_base);

  print_row ("1. isolated, first full run", jobs, &iso_first, n_items, TRUE, base_ms, 0);
  print_row ("2. in-memory, first full run", jobs, &mem_first, n_items, TRUE, base_ms, 0);
  added_label = g_strdup_printf ("3. isolated, again after adding item %u", n_items + 1);
  print_row (added_label, jobs, &iso_added, n_items + 1, FALSE, base_ms, iso_first.ms);
  print_row ("4. isolated, again, nothing changed", jobs, &iso_same, n_items + 1, FALSE, base_ms,
             iso_first.ms);

  if (base_ms < 0)
    g_print ("   %-42s %4u   %8s   failed\n", "5. baseline: loop of `python each.py N`", 1, "-");
  else
    g_print ("   %-42s %4u   %8.3f %8.2f %7.2f %8s%s\n",
             "5. baseline: loop of `python each.py N`", 1, base_ms / 1000, base_ms / n_items,
             1.0, "",
             ok_base == n_items ? "" : "   some items failed");

  g_print ("\n");
  sk_test_print_load_average ("   loadavg    ", "after");
  g_print ("Summary: %u items; wall ms per item: isolated with %u jobs %.2f, in-memory %.2f, "
           "plain loop %.2f; adding item %u: %.0f ms, %.4f of the first run; nothing changed: "
           "%.0f ms\n",
           n_items, jobs, iso_first.ms / n_items, mem_first.ms / n_items, base_ms / n_items,
           n_items + 1, iso_added.ms, ratio (iso_added.ms, iso_first.ms), iso_same.ms);

  sk_test_remove_tree (tmp);
  return 0;
}
