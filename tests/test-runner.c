/* test-runner.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs real node scripts with real Python processes through SkRunner.
 */

#define G_LOG_DOMAIN "test-runner"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sk-project.h"
#include "sk-runner.h"
#include "sk-test-util.h"

/* The absolute path of `python3` from PATH, looked up once: on machines
 * where it is a pyenv shim, every start through the shim costs most of a
 * second, which would make this test slow without testing anything more.
 */
static char *python_path;
static gboolean spawn_steps;

/* A node script that follows the contract. Every script appends its key to
 * its journal runs.log, which tells the tests which scripts ran, and writes
 * what it received from its priors into its summary.
 */
static const char script_template[] =
  SK_TEST_SCRIPT_HEAD
  SK_TEST_SCRIPT_PREPROCESS
  "    report(\"received \" + describe(prior_outputs))\n"
  SK_TEST_SCRIPT_TAIL;

#define DEFAULT_PRE "    pass"
#define DEFAULT_COMPUTE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": KEY + \"-value\"}\n" \
  "    report(\"done\")"
#define SUCCEED_WITH(extra) \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": KEY + \"-value\"" extra "}\n" \
  "    report(\"done\")"

typedef struct
{
  char      *folder;
  GFile     *file;
  SkProject *project;
} Workflow;

typedef struct
{
  GMainLoop  *loop;
  GPtrArray  *events;
  SkRunStats  stats;
  GError     *error;
  gboolean    ok;
  gboolean    done;

  /* For the cancellation tests: once this file exists, cancel after a delay. */
  GCancellable *cancel;
  char         *cancel_when;
  guint         cancel_delay_ms;
  guint         poll_id;
  guint         cancel_id;
} Outcome;

/* Helpers ----------------------------------------------------------------- */

static Workflow *
workflow_new (void)
{
  Workflow *wf = g_new0 (Workflow, 1);

  wf->folder = sk_test_make_tmp_dir ("runner");
  wf->file = g_file_new_for_path (wf->folder);
  wf->project = sk_project_new (wf->file);
  sk_project_set_name (wf->project, "runner test");

  return wf;
}

static void
workflow_free (Workflow *wf)
{
  sk_test_remove_tree (wf->folder);
  g_clear_object (&wf->project);
  g_clear_object (&wf->file);
  g_free (wf->folder);
  g_free (wf);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Workflow, workflow_free)

/* Adds a node named @name (its key is the same) needing the nodes whose
 * identifiers are listed in @priors, separated by spaces.
 */
static SkNode *
workflow_add (Workflow   *wf,
              const char *id,
              const char *name,
              const char *priors)
{
  g_autoptr(SkNode) node = sk_node_new (id, name);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) prior_ids = NULL;

  if (priors != NULL)
    {
      prior_ids = g_strsplit (priors, " ", -1);
      sk_node_set_priors (node, (const char * const *) prior_ids);
    }
  sk_node_set_input_text (node, name);

  sk_project_add_node (wf->project, node, &error);
  g_assert_no_error (error);

  return node;
}

static void
workflow_save (Workflow *wf)
{
  g_autoptr(GError) error = NULL;

  sk_project_save (wf->project, &error);
  g_assert_no_error (error);
}

static char *
workflow_path (Workflow   *wf,
               const char *relative)
{
  return g_build_filename (wf->folder, relative, NULL);
}

/* Writes KEY/KEY.py. @pre is added to the end of preprocess() and may
 * return False; @compute is the whole body of compute(). Both are indented
 * by four spaces.
 */
static void
write_script (Workflow   *wf,
              const char *key,
              const char *pre,
              const char *compute)
{
  sk_test_write_script (wf->folder, script_template, key,
                        pre != NULL ? pre : DEFAULT_PRE,
                        compute != NULL ? compute : DEFAULT_COMPUTE);
}

static char *
keys_of (GPtrArray *nodes)
{
  GString *keys = g_string_new (NULL);

  for (guint i = 0; i < nodes->len; i++)
    {
      if (i > 0)
        g_string_append_c (keys, ' ');
      g_string_append (keys, sk_node_get_key (g_ptr_array_index (nodes, i)));
    }

  return g_string_free (keys, FALSE);
}

static SkNode *
node (Workflow   *wf,
      const char *key)
{
  SkNode *found = sk_project_get_node_by_key (wf->project, key);

  g_assert_nonnull (found);
  return found;
}

static SkNodeState
state_of (Workflow   *wf,
          const char *key)
{
  return sk_node_get_state (node (wf, key));
}

/* The steps run in a sandbox, as they do for users, unless SKELE_SANDBOX
 * says otherwise, as it may where there can be none; the tests hold with
 * and without one.
 */
static void
set_sandbox_policy (SkRunner *runner)
{
  const char *variable = g_getenv ("SKELE_SANDBOX");
  SkSandboxPolicy policy;

  if (variable == NULL || variable[0] == '\0')
    return;

  g_assert_true (sk_sandbox_policy_from_string (variable, &policy));
  sk_runner_set_sandbox_policy (runner, policy);
}

static SkRunner *
new_runner (void)
{
  SkRunner *runner = sk_runner_new ();

  sk_runner_set_python (runner, python_path);
  set_sandbox_policy (runner);
  sk_runner_set_fork_server (runner, !spawn_steps);
  return runner;
}

/* Running ----------------------------------------------------------------- */

static void
outcome_clear (Outcome *outcome)
{
  g_clear_pointer (&outcome->loop, g_main_loop_unref);
  g_clear_pointer (&outcome->events, g_ptr_array_unref);
  g_clear_error (&outcome->error);
  g_clear_object (&outcome->cancel);
  g_clear_pointer (&outcome->cancel_when, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Outcome, outcome_clear)

static void
node_state_changed_cb (SkRunner *runner,
                       SkNode   *changed,
                       int       state,
                       Outcome  *outcome)
{
  g_assert_cmpint (sk_node_get_state (changed), ==, state);
  g_ptr_array_add (outcome->events,
                   g_strdup_printf ("%s:%s", sk_node_get_key (changed),
                                    sk_node_state_to_string (state)));
}

static void
run_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Outcome *outcome = user_data;

  outcome->ok = sk_runner_run_finish (SK_RUNNER (object), result, &outcome->stats,
                                      &outcome->error);
  outcome->done = TRUE;
  g_main_loop_quit (outcome->loop);
}

static gboolean
watchdog_cb (gpointer user_data)
{
  g_error ("The run did not finish within a minute.");
  return G_SOURCE_REMOVE;
}

static gboolean
cancel_cb (gpointer user_data)
{
  Outcome *outcome = user_data;

  outcome->cancel_id = 0;
  g_cancellable_cancel (outcome->cancel);
  return G_SOURCE_REMOVE;
}

static gboolean
wait_for_file_cb (gpointer user_data)
{
  Outcome *outcome = user_data;

  if (!g_file_test (outcome->cancel_when, G_FILE_TEST_EXISTS))
    return G_SOURCE_CONTINUE;

  outcome->poll_id = 0;
  outcome->cancel_id = g_timeout_add (outcome->cancel_delay_ms, cancel_cb, outcome);
  return G_SOURCE_REMOVE;
}

/* Runs @nodes (or the marked nodes) and waits for the end of the run. */
static gboolean
run_workflow (SkRunner  *runner,
              Workflow  *wf,
              GPtrArray *nodes,
              Outcome   *outcome)
{
  gulong handler;
  guint watchdog;

  g_clear_pointer (&outcome->events, g_ptr_array_unref);
  g_clear_error (&outcome->error);
  if (outcome->loop == NULL)
    outcome->loop = g_main_loop_new (NULL, FALSE);
  outcome->events = g_ptr_array_new_with_free_func (g_free);
  outcome->done = FALSE;
  outcome->ok = FALSE;
  memset (&outcome->stats, 0xff, sizeof outcome->stats);

  handler = g_signal_connect (runner, "node-state-changed",
                              G_CALLBACK (node_state_changed_cb), outcome);
  watchdog = g_timeout_add_seconds (60, watchdog_cb, NULL);
  if (outcome->cancel_when != NULL)
    outcome->poll_id = g_timeout_add (20, wait_for_file_cb, outcome);

  sk_runner_run_async (runner, wf->project, nodes, outcome->cancel, run_done_cb, outcome);
  if (!outcome->done)
    g_main_loop_run (outcome->loop);

  g_source_remove (watchdog);
  g_clear_handle_id (&outcome->poll_id, g_source_remove);
  g_clear_handle_id (&outcome->cancel_id, g_source_remove);
  g_signal_handler_disconnect (runner, handler);

  return outcome->ok;
}

/* The states @key went through in the last run, separated by spaces. */
static char *
states_of (Outcome    *outcome,
           const char *key)
{
  g_autofree char *prefix = g_strconcat (key, ":", NULL);
  GString *states = g_string_new (NULL);

  for (guint i = 0; i < outcome->events->len; i++)
    {
      const char *event = g_ptr_array_index (outcome->events, i);

      if (g_str_has_prefix (event, prefix))
        {
          if (states->len > 0)
            g_string_append_c (states, ' ');
          g_string_append (states, event + strlen (prefix));
        }
    }

  return g_string_free (states, FALSE);
}

static void
assert_states (Outcome    *outcome,
               const char *key,
               const char *expected)
{
  g_autofree char *states = states_of (outcome, key);

  g_assert_cmpstr (states, ==, expected);
}

static void
assert_stats (const SkRunStats *stats,
              guint             succeeded,
              guint             failed,
              guint             skipped,
              guint             up_to_date,
              guint             cancelled)
{
  g_assert_cmpuint (stats->succeeded, ==, succeeded);
  g_assert_cmpuint (stats->failed, ==, failed);
  g_assert_cmpuint (stats->skipped, ==, skipped);
  g_assert_cmpuint (stats->up_to_date, ==, up_to_date);
  g_assert_cmpuint (stats->cancelled, ==, cancelled);
}

/* Tests ------------------------------------------------------------------- */

static void
test_success (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = sk_runner_new ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *summary = NULL;
  g_autofree char *log = NULL;
  g_autofree char *runs = NULL;
  const char *inputs[] = { "input.csv", NULL };
  const char *expected_files[] = { "chart.svg", "tables/totals.csv", NULL };

  /* The default interpreter, python3 from PATH, runs this one. */
  g_assert_null (sk_runner_get_python (runner));
  set_sandbox_policy (runner);

  sk_node_set_input_files (workflow_add (wf, "1", "make chart", NULL), inputs);
  workflow_add (wf, "2", "use chart", "1");
  workflow_save (wf);

  sk_test_write_text (wf->folder, "make_chart/input.csv", "month,total\n1,10\n");
  sk_test_write_text (wf->folder, "make_chart/notes.txt",
                      "present before the run and left alone\n");
  write_script (wf, "make_chart", NULL,
                "    print(\"hello from make_chart\")\n"
                "    print(\"a warning\", file=sys.stderr)\n"
                "    with open(os.path.join(FOLDER, \"chart.svg\"), \"w\") as f:\n"
                "        f.write(\"<svg></svg>\")\n"
                "    os.makedirs(os.path.join(FOLDER, \"tables\"), exist_ok=True)\n"
                "    with open(os.path.join(FOLDER, \"tables\", \"totals.csv\"), \"w\") as f:\n"
                "        f.write(\"1,10\\n\")\n"
                "    state[\"output\"] = {\"task_status\": \"success\",\n"
                "                       \"value\": \"chart-made\"}\n"
                "    report(\"chart.svg created\")");
  write_script (wf, "use_chart", NULL, NULL);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  g_assert_no_error (outcome.error);
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  g_assert_cmpfloat (outcome.stats.seconds, >, 0);

  g_assert_cmpint (state_of (wf, "make_chart"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (state_of (wf, "use_chart"), ==, SK_NODE_STATE_SUCCEEDED);
  assert_states (&outcome, "make_chart", "queued running succeeded");
  assert_states (&outcome, "use_chart", "queued running succeeded");

  /* Every node is queued before any starts, and a successor starts only
   * after its prior finished.
   */
  g_assert_cmpstr (g_ptr_array_index (outcome.events, 0), ==, "make_chart:queued");
  g_assert_cmpstr (g_ptr_array_index (outcome.events, 1), ==, "use_chart:queued");
  g_assert_cmpstr (g_ptr_array_index (outcome.events, 2), ==, "make_chart:running");
  g_assert_cmpstr (g_ptr_array_index (outcome.events, 3), ==, "make_chart:succeeded");
  g_assert_cmpstr (g_ptr_array_index (outcome.events, 4), ==, "use_chart:running");

  summary = sk_test_read_text (wf->folder, "make_chart/make_chart_summary.txt");
  g_assert_nonnull (summary);
  g_strchomp (summary);
  g_assert_cmpstr (sk_node_get_output_text (node (wf, "make_chart")), ==, summary);
  g_assert_cmpstr (summary, ==, "task make_chart\nreceived \nchart.svg created");
  g_assert_cmpstrv (sk_node_get_output_files (node (wf, "make_chart")), expected_files);
  g_assert_null (sk_node_get_error_text (node (wf, "make_chart")));

  /* The successor got the prior's output through its pickle. */
  g_assert_true (sk_test_exists (wf->folder, "make_chart/make_chart.pkl"));
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "use_chart")),
                           "received make_chart=chart-made");
  g_assert_cmpuint (g_strv_length ((char **) sk_node_get_output_files (node (wf, "use_chart"))),
                    ==, 0);

  log = sk_test_read_text (wf->folder, "make_chart/.skele/stdout.log");
  sk_test_assert_contains (log, "hello from make_chart");
  g_free (log);
  log = sk_test_read_text (wf->folder, "make_chart/.skele/stderr.log");
  sk_test_assert_contains (log, "a warning");

  /* Saving the results into process.json is the workspace's; see
   * test-workspace.c. The runner leaves the workflow file alone. */
  g_assert_true (sk_project_get_modified (wf->project));

  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "make_chart use_chart");
}

static void
test_skipped (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };

  workflow_add (wf, "1", "branch", NULL);
  workflow_add (wf, "2", "after", "1");
  workflow_add (wf, "3", "other", NULL);
  workflow_add (wf, "4", "join", "1 3");
  workflow_save (wf);
  write_script (wf, "branch", "    report(\"not my answer\")\n    return False", NULL);
  write_script (wf, "after", NULL, NULL);
  write_script (wf, "other", NULL, NULL);
  write_script (wf, "join", NULL, NULL);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 2, 0, 0);
  g_assert_cmpint (state_of (wf, "branch"), ==, SK_NODE_STATE_SKIPPED);
  assert_states (&outcome, "branch", "queued running skipped");
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "branch")), "not my answer");
  g_assert_false (sk_test_exists (wf->folder, "branch/branch.pkl"));

  /* A step whose only prior was skipped has nothing to work on (DESIGN
   * §10); one with another prior runs and receives {} for the skipped one. */
  g_assert_cmpint (state_of (wf, "after"), ==, SK_NODE_STATE_SKIPPED);
  assert_states (&outcome, "after", "queued skipped");
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "after")), "every step before it was skipped");
  g_assert_cmpint (state_of (wf, "join"), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "join")),
                           "received branch={} other=other-value");
}

static void
test_failed_exception (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  SkNode *broken;

  workflow_add (wf, "1", "broken", NULL);
  workflow_add (wf, "2", "after", "1");
  workflow_save (wf);
  write_script (wf, "broken", NULL,
                "    report(\"about to divide\")\n"
                "    raise ValueError(\"the totals do not add up\")");
  write_script (wf, "after", NULL, NULL);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 1, 0, 0, 0);

  broken = node (wf, "broken");
  g_assert_cmpint (sk_node_get_state (broken), ==, SK_NODE_STATE_FAILED);
  assert_states (&outcome, "broken", "queued running failed");
  sk_test_assert_contains (sk_node_get_error_text (broken), "ValueError");
  sk_test_assert_contains (sk_node_get_error_text (broken), "the totals do not add up");
  sk_test_assert_contains (sk_node_get_error_detail (broken), "Traceback");
  sk_test_assert_contains (sk_node_get_error_detail (broken), "broken.py");
  g_assert_null (strstr (sk_node_get_error_detail (broken), "skele_harness"));
  sk_test_assert_contains (sk_node_get_output_text (broken), "about to divide");
  g_assert_false (sk_test_exists (wf->folder, "broken/broken.pkl"));

  /* A failed prior reaches its successor as {}. */
  g_assert_cmpint (state_of (wf, "after"), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "after")), "received broken={}");
}

static void
test_failed_status (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  SkNode *refused;

  workflow_add (wf, "1", "refused", NULL);
  workflow_save (wf);
  write_script (wf, "refused", NULL,
                "    state[\"output\"] = {\"task_status\": \"failed\",\n"
                "                       \"error_log\": \"sales.csv has no column units\"}\n"
                "    report(\"Task failed\")");

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 0, 1, 0, 0, 0);

  refused = node (wf, "refused");
  g_assert_cmpint (sk_node_get_state (refused), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (refused), "sales.csv has no column units");
  sk_test_assert_contains (sk_node_get_output_text (refused), "Task failed");
  g_assert_false (sk_test_exists (wf->folder, "refused/refused.pkl"));
}

static void
test_failed_prior_old_pickle (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };

  workflow_add (wf, "1", "first", NULL);
  workflow_add (wf, "2", "second", "1");
  workflow_save (wf);
  write_script (wf, "first", NULL, NULL);
  write_script (wf, "second", NULL, NULL);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "second")),
                           "received first=first-value");

  /* Now the prior fails; its pickle from the first run stays on disk. */
  write_script (wf, "first", NULL, "    raise RuntimeError(\"no data today\")");
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 1, 0, 0, 0);
  g_assert_true (sk_test_exists (wf->folder, "first/first.pkl"));
  g_assert_cmpint (state_of (wf, "first"), ==, SK_NODE_STATE_FAILED);
  g_assert_cmpint (state_of (wf, "second"), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "second")), "received first={}");

  /* The same when only the successor is asked to run: the prior's last
   * result is a failure, so its old pickle does not count.
   */
  {
    g_autoptr(GPtrArray) only = NULL;
    g_autoptr(GError) error = NULL;
    const char *keys[] = { "second", NULL };

    only = sk_project_select_nodes (wf->project, keys, NULL, NULL, &error);
    g_assert_no_error (error);
    sk_runner_set_force (runner, TRUE);
    g_assert_true (run_workflow (runner, wf, only, &outcome));
    assert_stats (&outcome.stats, 1, 0, 0, 0, 0);
    assert_states (&outcome, "first", "");
    sk_test_assert_contains (sk_node_get_output_text (node (wf, "second")), "received first={}");
  }
}

static void
test_timeout (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  SkNode *hang;

  workflow_add (wf, "1", "hang", NULL);
  workflow_save (wf);
  write_script (wf, "hang", NULL,
                SK_TEST_HANG);

  sk_runner_set_timeout (runner, 1);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 0, 1, 0, 0, 0);

  hang = node (wf, "hang");
  g_assert_cmpint (sk_node_get_state (hang), ==, SK_NODE_STATE_FAILED);
  assert_states (&outcome, "hang", "queued running failed");
  sk_test_assert_contains (sk_node_get_error_text (hang), "longer than 1 second");

  g_assert_true (sk_test_exists (wf->folder, "hang/" SK_TEST_JOURNAL "/hang.started"));
  g_assert_true (sk_test_processes_gone_in (wf->folder));
}

/* A limit too long for a GLib timeout is no limit, not an immediate one. */
static void
test_timeout_unlimited (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  const double limits[] = { INFINITY, 1e12, 5e6 };

  workflow_add (wf, "1", "quick", NULL);
  workflow_save (wf);
  write_script (wf, "quick", NULL, "    time.sleep(0.2)\n" DEFAULT_COMPUTE);

  sk_runner_set_force (runner, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      sk_runner_set_timeout (runner, limits[i]);
      g_assert_true (run_workflow (runner, wf, NULL, &outcome));
      assert_stats (&outcome.stats, 1, 0, 0, 0, 0);
      g_assert_null (sk_node_get_error_text (node (wf, "quick")));
    }
}

static void
test_timeout_child (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };

  workflow_add (wf, "1", "spawner", NULL);
  workflow_save (wf);
  write_script (wf, "spawner", NULL,
                "    child = sleeper(60, \"child\")\n"
                "    note(\"started\", KEY)\n"
                "    child.wait()\n"
                "    state[\"output\"] = {\"task_status\": \"success\"}");

  sk_runner_set_timeout (runner, 1);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 0, 1, 0, 0, 0);
  g_assert_cmpint (state_of (wf, "spawner"), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "spawner")), "longer than");

  /* Neither the step nor its child is left. */
  g_assert_true (sk_test_has_note (wf->folder, "started"));
  g_assert_true (sk_test_processes_gone_in (wf->folder));
}

/* A process that a successful script leaves running is part of its node:
 * it must neither keep the node running nor outlive it.
 */
static void
test_leftover_process (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *child_file = NULL;

  workflow_add (wf, "1", "spawner", NULL);
  workflow_save (wf);
  write_script (wf, "spawner", NULL,
                "    sleeper(60, \"child\")\n"
                "    note(\"child\", KEY)\n"
                DEFAULT_COMPUTE);

  /* Without the timeout, a runner that waits for the child would hang. */
  sk_runner_set_timeout (runner, 10);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 0, 0);
  g_assert_cmpint (state_of (wf, "spawner"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_null (sk_node_get_error_text (node (wf, "spawner")));

  g_assert_true (sk_test_has_note (wf->folder, "child"));
  g_assert_true (sk_test_processes_gone_in (wf->folder));

  /* Nor does it outlive the in-memory worker. */
  child_file = sk_test_note_path (wf->folder, "spawner", "child");
  g_unlink (child_file);
  sk_runner_set_in_memory (runner, TRUE);
  sk_runner_set_force (runner, TRUE);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 0, 0);
  g_assert_true (sk_test_has_note (wf->folder, "child"));
  g_assert_true (sk_test_processes_gone_in (wf->folder));
}

static void
test_cancel (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *runs = NULL;

  workflow_add (wf, "1", "quick", NULL);
  workflow_add (wf, "2", "sleeper", "1");
  workflow_add (wf, "3", "next", "2");
  workflow_add (wf, "4", "last", "3");
  workflow_save (wf);
  write_script (wf, "quick", NULL, NULL);
  write_script (wf, "sleeper", NULL,
                SK_TEST_HANG);
  write_script (wf, "next", NULL, NULL);
  write_script (wf, "last", NULL, NULL);

  outcome.cancel = g_cancellable_new ();
  outcome.cancel_when = sk_test_note_path (wf->folder, "sleeper", "sleeper.started");
  outcome.cancel_delay_ms = 500;

  g_assert_false (run_workflow (runner, wf, NULL, &outcome));
  g_assert_error (outcome.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  assert_stats (&outcome.stats, 1, 0, 0, 0, 3);

  g_assert_cmpint (state_of (wf, "quick"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (state_of (wf, "sleeper"), ==, SK_NODE_STATE_CANCELLED);
  g_assert_cmpint (state_of (wf, "next"), ==, SK_NODE_STATE_CANCELLED);
  g_assert_cmpint (state_of (wf, "last"), ==, SK_NODE_STATE_CANCELLED);
  assert_states (&outcome, "sleeper", "queued running cancelled");
  assert_states (&outcome, "next", "queued cancelled");
  assert_states (&outcome, "last", "queued cancelled");
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "sleeper")), "stopped");

  g_assert_true (sk_test_processes_gone_in (wf->folder));

  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "quick sleeper");

  /* What finished before the stop stays in the node, for the workspace to
   * save (test-workspace.c checks that it reaches process.json). */
  g_assert_cmpstr (sk_node_get_output_text (node (wf, "quick")), ==, "task quick\nreceived \ndone");
}

/* Reads "START END" from the file a sleeping node wrote. The runner's
 * tests also check that the start is a real time.
 */
static void
read_interval (Workflow   *wf,
               const char *key,
               double     *start,
               double     *end)
{
  sk_test_read_interval (wf->folder, key, start, end);
  g_assert_cmpfloat (*start, >, 0);
}

static void
test_parallel (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  double start_a, end_a, start_b, end_b;

  workflow_add (wf, "1", "left", NULL);
  workflow_add (wf, "2", "right", NULL);
  workflow_save (wf);
  write_script (wf, "left", NULL, SK_TEST_SLEEP_ONE_SECOND);
  write_script (wf, "right", NULL, SK_TEST_SLEEP_ONE_SECOND);

  sk_runner_set_jobs (runner, 2);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  read_interval (wf, "left", &start_a, &end_a);
  read_interval (wf, "right", &start_b, &end_b);
  g_assert_cmpfloat (start_a, <, end_b);
  g_assert_cmpfloat (start_b, <, end_a);

  sk_runner_set_jobs (runner, 1);
  sk_runner_set_force (runner, TRUE);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  read_interval (wf, "left", &start_a, &end_a);
  read_interval (wf, "right", &start_b, &end_b);
  g_assert_true (end_a <= start_b || end_b <= start_a);
}

static void
test_incremental (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  const char *inputs[] = { "data.txt", NULL };
  const char *keys[] = { "a", "b", "c", "d" };
  char *runs;

  sk_node_set_input_files (workflow_add (wf, "1", "a", NULL), inputs);
  workflow_add (wf, "2", "b", "1");
  workflow_add (wf, "3", "c", "2");
  workflow_add (wf, "4", "d", NULL);
  workflow_save (wf);
  sk_test_write_text (wf->folder, "a/data.txt", "first version\n");
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    write_script (wf, keys[i], NULL, NULL);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 4, 0, 0, 0, 0);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "a b c d");
  g_free (runs);

  /* Nothing changed. */
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 0, 0, 0, 4, 0);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_assert_cmpint (state_of (wf, keys[i]), ==, SK_NODE_STATE_UP_TO_DATE);
      assert_states (&outcome, keys[i], "queued up-to-date");
    }
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "b")), "received a=a-value");
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "");
  g_free (runs);

  /* The contents of an input file changed, not its name. */
  sk_test_write_text (wf->folder, "a/data.txt", "second version\n");
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 3, 0, 0, 1, 0);
  g_assert_cmpint (state_of (wf, "d"), ==, SK_NODE_STATE_UP_TO_DATE);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "a b c");
  g_free (runs);

  /* The input file is not among the node's output files. */
  g_assert_cmpuint (g_strv_length ((char **) sk_node_get_output_files (node (wf, "a"))), ==, 0);

  /* A script changed. */
  write_script (wf, "b", NULL, SUCCEED_WITH (", \"version\": 2"));
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 2, 0);
  assert_states (&outcome, "a", "queued up-to-date");

  /* An up-to-date prior reaches its successor through its pickle. */
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "b")), "received a=a-value");
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "b c");
  g_free (runs);

  /* The input text changed. */
  sk_node_set_input_text (node (wf, "c"), "another task");
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 3, 0);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "c");
  g_free (runs);

  sk_runner_set_force (runner, TRUE);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 4, 0, 0, 0, 0);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "a b c d");
  g_free (runs);
}

/* A run whose results never reached process.json, because the program was
 * killed before saving it, still shows them the next time: the steps are up
 * to date and their records hold what they reported.
 */
static void
test_outputs_restored (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autoptr(SkProject) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  SkNode *chart;

  workflow_add (wf, "1", "chart", NULL);
  workflow_save (wf);
  write_script (wf, "chart", NULL,
                "    open(os.path.join(FOLDER, \"chart.svg\"), \"w\").write(\"<svg/>\")\n"
                DEFAULT_COMPUTE);

  /* The runner never saves process.json, so the results are kept in
   * memory only, as after a crash. */
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 0, 0);

  reloaded = sk_project_load (wf->file, &error);
  g_assert_no_error (error);
  chart = sk_project_get_node_by_key (reloaded, "chart");
  g_assert_cmpstr (sk_node_get_output_text (chart), ==, "");

  g_clear_object (&wf->project);
  wf->project = g_object_ref (reloaded);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 0, 0, 0, 1, 0);
  sk_test_assert_contains (sk_node_get_output_text (chart), "done");
  g_assert_cmpstr (sk_node_get_output_files (chart)[0], ==, "chart.svg");
  g_assert_null (sk_node_get_output_files (chart)[1]);
}

static void
test_run_false (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_autoptr(GPtrArray) marked = NULL;
  g_autoptr(GPtrArray) only = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *keys = NULL;
  const char *first[] = { "source", NULL };
  char *runs;

  sk_node_set_run (workflow_add (wf, "1", "source", NULL), FALSE);
  workflow_add (wf, "2", "consumer", "1");
  sk_node_set_run (workflow_add (wf, "3", "never run", NULL), FALSE);
  workflow_add (wf, "4", "orphan", "3");
  workflow_save (wf);
  write_script (wf, "source", NULL, NULL);
  write_script (wf, "consumer", NULL, NULL);
  write_script (wf, "never_run", NULL, NULL);
  write_script (wf, "orphan", NULL, NULL);

  marked = sk_project_select_nodes (wf->project, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  keys = keys_of (marked);
  g_assert_cmpstr (keys, ==, "consumer orphan");

  /* The source ran once, earlier, on its own. */
  only = sk_project_select_nodes (wf->project, first, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (run_workflow (runner, wf, only, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 0, 0);
  g_assert_true (sk_test_exists (wf->folder, "source/source.pkl"));
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "source");
  g_free (runs);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "consumer orphan");
  g_free (runs);
  assert_states (&outcome, "source", "");
  assert_states (&outcome, "never_run", "");
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "consumer")),
                           "received source=source-value");
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "orphan")), "received never_run={}");

  /* NULL nodes means the marked ones. */
  sk_runner_set_force (runner, TRUE);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "consumer orphan");
  g_free (runs);
}

static void
assert_selection (SkProject          *project,
                  const char * const *only,
                  const char         *from,
                  const char         *to,
                  const char         *expected)
{
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *keys = NULL;

  nodes = sk_project_select_nodes (project, only, from, to, &error);
  g_assert_no_error (error);
  g_assert_nonnull (nodes);
  keys = keys_of (nodes);
  g_assert_cmpstr (keys, ==, expected);
}

static void
assert_selection_fails (SkProject          *project,
                        const char * const *only,
                        const char         *from,
                        const char         *to)
{
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GError) error = NULL;

  nodes = sk_project_select_nodes (project, only, from, to, &error);
  g_assert_null (nodes);
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  sk_test_assert_contains (error->message, "nowhere");
}

static void
test_select (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  const char *only_b_e[] = { "b", "e", NULL };
  const char *only_by_id[] = { "3", NULL };
  const char *only_by_name[] = { "E", NULL };
  const char *unknown[] = { "a", "nowhere", NULL };
  const char *empty[] = { NULL };

  /* a → b → c, a → d, e alone; e is not marked to run. */
  workflow_add (wf, "1", "a", NULL);
  workflow_add (wf, "2", "b", "1");
  workflow_add (wf, "3", "c", "2");
  workflow_add (wf, "4", "d", "1");
  sk_node_set_run (workflow_add (wf, "5", "e", NULL), FALSE);

  assert_selection (wf->project, NULL, NULL, NULL, "a b c d");
  assert_selection (wf->project, empty, NULL, NULL, "a b c d");
  assert_selection (wf->project, only_b_e, NULL, NULL, "b e");
  assert_selection (wf->project, only_by_id, NULL, NULL, "c");
  assert_selection (wf->project, only_by_name, NULL, NULL, "e");
  assert_selection (wf->project, NULL, "b", NULL, "b c");
  assert_selection (wf->project, NULL, "a", NULL, "a b c d");
  assert_selection (wf->project, NULL, NULL, "c", "a b c");
  assert_selection (wf->project, NULL, NULL, "d", "a d");
  assert_selection (wf->project, NULL, NULL, "e", "e");
  assert_selection (wf->project, NULL, "b", "c", "b c");
  assert_selection (wf->project, NULL, "a", "c", "a b c");
  assert_selection (wf->project, NULL, "b", "d", "");

  assert_selection_fails (wf->project, unknown, NULL, NULL);
  assert_selection_fails (wf->project, NULL, "nowhere", NULL);
  assert_selection_fails (wf->project, NULL, NULL, "nowhere");
  assert_selection_fails (wf->project, NULL, "a", "nowhere");
}

static void
test_in_memory (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  char *runs;

  workflow_add (wf, "1", "a", NULL);
  workflow_add (wf, "2", "b", "1");
  workflow_add (wf, "3", "c", "2");
  workflow_save (wf);

  /* Neither a lambda nor a generator can be pickled. */
  write_script (wf, "a", NULL,
                SUCCEED_WITH (", \"double\": lambda x: x * 2, \"counter\": (i for i in range(3))"));
  write_script (wf, "b", NULL,
                "    prior = state[\"local\"][\"priors\"][\"a\"]\n"
                "    report(\"double gives \" + str(prior[\"double\"](21)))\n"
                "    report(\"counter gives \" + str(list(prior[\"counter\"])))\n"
                "    print(\"b prints to its log\")\n"
                "    state[\"output\"] = {\"task_status\": \"success\", \"value\": \"b-value\",\n"
                "                       \"again\": prior[\"double\"]}");
  write_script (wf, "c", NULL, NULL);

  sk_runner_set_in_memory (runner, TRUE);
  g_assert_true (sk_runner_get_in_memory (runner));
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  g_assert_no_error (outcome.error);
  assert_stats (&outcome.stats, 3, 0, 0, 0, 0);
  assert_states (&outcome, "a", "queued running succeeded");
  assert_states (&outcome, "b", "queued running succeeded");
  assert_states (&outcome, "c", "queued running succeeded");

  sk_test_assert_contains (sk_node_get_output_text (node (wf, "b")), "received a=a-value");
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "b")), "double gives 42");
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "b")), "counter gives [0, 1, 2]");
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "c")), "received b=b-value");
  g_assert_false (sk_test_exists (wf->folder, "a/a.pkl"));
  g_assert_false (sk_test_exists (wf->folder, "b/b.pkl"));
  g_assert_false (sk_test_exists (wf->folder, "c/c.pkl"));
  {
    g_autofree char *log = sk_test_read_text (wf->folder, "b/.skele/stdout.log");

    sk_test_assert_contains (log, "b prints to its log");
  }
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "a b c");
  g_free (runs);

  /* Nothing was saved, so nothing is up to date. */
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 3, 0, 0, 0, 0);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "a b c");
  g_free (runs);

  /* Nor does an isolated run after it trust the in-memory results; this
   * time save() has to pickle the lambda, which fails, and b gets {}.
   */
  sk_runner_set_in_memory (runner, FALSE);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 2, 0, 0, 0);
  g_assert_cmpint (state_of (wf, "a"), ==, SK_NODE_STATE_FAILED);
  g_assert_cmpint (state_of (wf, "b"), ==, SK_NODE_STATE_FAILED);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "a b c");
  g_free (runs);
}

/* Pickles from an earlier isolated run do not make the results of an
 * in-memory run reusable: the in-memory run did not write them.
 */
static void
test_in_memory_not_reused (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  char *runs;

  workflow_add (wf, "1", "a", NULL);
  workflow_add (wf, "2", "b", "1");
  workflow_save (wf);
  write_script (wf, "a", NULL, NULL);
  write_script (wf, "b", NULL, NULL);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  g_assert_true (sk_test_exists (wf->folder, "a/a.pkl"));

  sk_runner_set_in_memory (runner, TRUE);
  sk_runner_set_force (runner, TRUE);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  g_free (sk_test_take_runs (wf->folder));

  sk_runner_set_force (runner, FALSE);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "a b");
  g_free (runs);
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "b")), "received a=a-value");
}

static void
test_in_memory_failure (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  char *runs;

  workflow_add (wf, "1", "a", NULL);
  workflow_add (wf, "2", "b", NULL);
  workflow_add (wf, "3", "c", "1 2");
  workflow_save (wf);
  write_script (wf, "a", NULL, "    raise KeyError(\"region\")");
  write_script (wf, "b", NULL, NULL);
  write_script (wf, "c", NULL, NULL);

  sk_runner_set_in_memory (runner, TRUE);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 1, 0, 0, 0);
  g_assert_cmpint (state_of (wf, "a"), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "a")), "KeyError");
  sk_test_assert_contains (sk_node_get_error_detail (node (wf, "a")), "Traceback");
  g_assert_cmpint (state_of (wf, "b"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (state_of (wf, "c"), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "c")), "received a={} b=b-value");
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "a b c");
  g_free (runs);
}

/* Notes in the journal KEY.interpreter which interpreter runs the step:
 * its process id would not tell, as every sandbox counts from 1 again.
 */
#define NOTE_INTERPRETER \
  "    import builtins\n" \
  "    if not hasattr(builtins, \"sk_test_interpreter\"):\n" \
  "        builtins.sk_test_interpreter = os.urandom(8).hex()\n" \
  "    note(KEY + \".interpreter\", builtins.sk_test_interpreter)\n"

/* @data is whether the run goes without a sandbox. */
static void
test_in_memory_timeout (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *worker = NULL;
  g_autofree char *later = NULL;

  if (GPOINTER_TO_INT (data))
    sk_runner_set_sandbox_policy (runner, SK_SANDBOX_POLICY_OFF);

  workflow_add (wf, "1", "hang", NULL);
  workflow_add (wf, "2", "later", NULL);
  workflow_save (wf);
  write_script (wf, "hang", NULL,
                NOTE_INTERPRETER
                SK_TEST_HANG);
  write_script (wf, "later", NULL,
                NOTE_INTERPRETER
                DEFAULT_COMPUTE);

  sk_runner_set_in_memory (runner, TRUE);
  sk_runner_set_timeout (runner, 1);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));

  /* The interruption is SIGINT to the worker's process group, in which
   * bubblewrap itself is: bubblewrap must ignore it, so that the worker
   * survives in the sandbox too. */
  assert_stats (&outcome.stats, 1, 1, 0, 0, 0);
  g_assert_cmpint (state_of (wf, "hang"), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "hang")), "longer than");
  g_assert_cmpint (state_of (wf, "later"), ==, SK_NODE_STATE_SUCCEEDED);

  /* The same worker ran both: it survived the interruption. */
  worker = sk_test_read_note (wf->folder, "hang.interpreter");
  later = sk_test_read_note (wf->folder, "later.interpreter");
  g_assert_nonnull (worker);
  g_assert_cmpstr (worker, ==, later);
  g_assert_true (sk_test_processes_gone_in (wf->folder));
}

/* Node code that swallows the interruption is stopped with the worker.
 * @data is whether the run goes without a sandbox.
 */
static void
test_in_memory_stubborn (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *interrupted = NULL;
  g_autofree char *runs = NULL;

  if (GPOINTER_TO_INT (data))
    sk_runner_set_sandbox_policy (runner, SK_SANDBOX_POLICY_OFF);

  workflow_add (wf, "1", "stubborn", NULL);
  workflow_add (wf, "2", "later", NULL);
  workflow_save (wf);
  write_script (wf, "stubborn", NULL,
                "    while True:\n"
                "        try:\n"
                "            time.sleep(60)\n"
                "        except KeyboardInterrupt:\n"
                "            note(\"interrupted\", KEY)");
  write_script (wf, "later", NULL, NULL);

  sk_runner_set_in_memory (runner, TRUE);
  sk_runner_set_timeout (runner, 1);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 0, 1, 0, 0, 1);
  g_assert_cmpint (state_of (wf, "stubborn"), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "stubborn")), "longer than");

  /* The next step did not fail; it could not run once the worker was gone. */
  g_assert_cmpint (state_of (wf, "later"), ==, SK_NODE_STATE_CANCELLED);
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "later")), "worker");

  g_assert_true (sk_test_processes_gone_in (wf->folder));
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "stubborn");

  /* The worker was asked first, then stopped. */
  interrupted = sk_test_read_note (wf->folder, "interrupted");
  sk_test_assert_contains (interrupted, "stubborn");
}

static void
test_in_memory_cancel (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *runs = NULL;

  workflow_add (wf, "1", "first", NULL);
  workflow_add (wf, "2", "sleeper", "1");
  workflow_add (wf, "3", "last", "2");
  workflow_add (wf, "4", "other", NULL);
  workflow_save (wf);
  write_script (wf, "first", NULL, NULL);
  write_script (wf, "sleeper", NULL,
                SK_TEST_HANG);
  write_script (wf, "last", NULL, NULL);
  write_script (wf, "other", NULL, NULL);

  outcome.cancel = g_cancellable_new ();
  outcome.cancel_when = sk_test_note_path (wf->folder, "sleeper", "sleeper.started");
  outcome.cancel_delay_ms = 500;

  sk_runner_set_in_memory (runner, TRUE);
  g_assert_false (run_workflow (runner, wf, NULL, &outcome));
  g_assert_error (outcome.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  /* One node at a time, in file order where the graph allows it. */
  assert_stats (&outcome.stats, 2, 0, 0, 0, 2);
  g_assert_cmpint (state_of (wf, "first"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (state_of (wf, "other"), ==, SK_NODE_STATE_SUCCEEDED);
  assert_states (&outcome, "sleeper", "queued running cancelled");
  assert_states (&outcome, "last", "queued cancelled");

  g_assert_true (sk_test_processes_gone_in (wf->folder));
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "first other sleeper");
}

static void
test_missing_script (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };

  workflow_add (wf, "1", "no code", NULL);
  workflow_add (wf, "2", "bad code", NULL);
  workflow_save (wf);
  sk_test_write_text (wf->folder, "bad_code/bad_code.py",
                      "state = {}\n\ndef preprocess(prior_outputs:\n    return True\n");

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 0, 1, 0, 0, 0);
  g_assert_cmpuint (outcome.stats.no_code, ==, 1);
  g_assert_cmpuint (outcome.stats.waiting, ==, 0);

  g_assert_cmpint (state_of (wf, "no_code"), ==, SK_NODE_STATE_NO_CODE);
  assert_states (&outcome, "no_code", "queued no-code");
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "no_code")), "no code");

  g_assert_cmpint (state_of (wf, "bad_code"), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "bad_code")), "syntax error");
}

/* A step whose script went missing no longer counts as succeeded, so its
 * old pickle does not reach a successor that runs on its own.
 */
static void
test_missing_script_record (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autoptr(GPtrArray) only = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *script = NULL;
  const char *keys[] = { "second", NULL };

  workflow_add (wf, "1", "first", NULL);
  workflow_add (wf, "2", "second", "1");
  workflow_save (wf);
  write_script (wf, "first", NULL, NULL);
  write_script (wf, "second", NULL, NULL);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);

  script = workflow_path (wf, "first/first.py");
  g_assert_cmpint (g_unlink (script), ==, 0);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  g_assert_cmpint (state_of (wf, "first"), ==, SK_NODE_STATE_NO_CODE);
  g_assert_cmpint (state_of (wf, "second"), ==, SK_NODE_STATE_SKIPPED);
  g_assert_true (sk_test_exists (wf->folder, "first/first.pkl"));

  only = sk_project_select_nodes (wf->project, keys, NULL, NULL, &error);
  g_assert_no_error (error);
  sk_runner_set_force (runner, TRUE);
  g_assert_true (run_workflow (runner, wf, only, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 0, 0);
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "second")), "received first={}");
}

/* Without a coding agent, a step whose script is missing, empty or only
 * spaces has no code yet, which is not a failure; the steps that need it,
 * directly or through others, wait for it instead of failing in its place,
 * and a step beside them still runs.
 */
static void
test_no_code (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *runs = NULL;

  workflow_add (wf, "1", "blank", NULL);
  workflow_add (wf, "2", "after blank", "1");
  workflow_add (wf, "3", "last", "2");
  workflow_add (wf, "4", "beside", NULL);
  workflow_save (wf);
  sk_test_write_text (wf->folder, "blank/blank.py", "  \n\n\t\n");
  write_script (wf, "after_blank", NULL, NULL);
  write_script (wf, "last", NULL, NULL);
  write_script (wf, "beside", NULL, NULL);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 0, 0);
  g_assert_cmpuint (outcome.stats.no_code, ==, 1);
  g_assert_cmpuint (outcome.stats.waiting, ==, 2);

  assert_states (&outcome, "blank", "queued no-code");
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "blank")), "is empty");
  assert_states (&outcome, "after_blank", "queued skipped");
  assert_states (&outcome, "last", "queued skipped");
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "after_blank")), "“blank”");
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "last")), "“blank”");
  g_assert_true (sk_node_state_is_finished (SK_NODE_STATE_NO_CODE));
  g_assert_cmpstr (sk_node_state_describe (SK_NODE_STATE_NO_CODE), ==, "No code yet");

  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "beside");

  g_assert_false (sk_runner_script_has_code (NULL));
  {
    g_autofree char *path = workflow_path (wf, "blank/blank.py");
    g_autoptr(GFile) file = g_file_new_for_path (path);

    g_assert_false (sk_runner_script_has_code (file));
    sk_test_write_text (wf->folder, "blank/blank.py", "\n  pass\n");
    g_assert_true (sk_runner_script_has_code (file));
    g_assert_cmpint (g_unlink (path), ==, 0);
    g_assert_false (sk_runner_script_has_code (file));
  }
}

/* A step is up to date only when its priors gave it their outputs in this
 * run: after a prior that failed again, its last result, made without that
 * prior, is not shown as up to date; the step runs again and decides itself.
 */
static void
test_up_to_date_after_failed_prior (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };

  workflow_add (wf, "1", "declines", NULL);
  workflow_add (wf, "2", "breaks", NULL);
  workflow_add (wf, "3", "after", "1 2");
  workflow_save (wf);
  write_script (wf, "declines", "    return False", NULL);
  write_script (wf, "breaks", NULL, "    raise RuntimeError(\"broken\")");
  write_script (wf, "after", NULL, NULL);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_states (&outcome, "after", "queued running succeeded");

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_states (&outcome, "declines", "queued running skipped");
  assert_states (&outcome, "breaks", "queued running failed");
  assert_states (&outcome, "after", "queued running succeeded");
  assert_stats (&outcome.stats, 1, 1, 1, 0, 0);
}

/* What the live output test saw: the text, and whether the first line came
 * while its step was still running. */
typedef struct
{
  Workflow *wf;
  GString  *text;
  gboolean  first_line_while_running;
} LiveOutput;

static void
step_output_cb (SkRunner   *runner,
                const char *key,
                const char *text,
                LiveOutput *live)
{
  g_assert_cmpstr (key, ==, "talker");
  g_assert_true (g_utf8_validate (text, -1, NULL));

  g_string_append (live->text, text);
  if (strstr (live->text->str, "first line\n") != NULL && !live->first_line_while_running &&
      strstr (live->text->str, "second line") == NULL)
    live->first_line_while_running = state_of (live->wf, "talker") == SK_NODE_STATE_RUNNING;
}

/* A running step's output comes as it is printed, not only at its end, and
 * still goes whole into its logs.
 */
static void
test_live_output (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *log = NULL;
  LiveOutput live = { wf, g_string_new (NULL), FALSE };
  gulong handler;

  workflow_add (wf, "1", "talker", NULL);
  workflow_save (wf);
  write_script (wf, "talker", NULL,
                "    print(\"first line\", flush=True)\n"
                "    time.sleep(2)\n"
                "    print(\"second line é\", flush=True)\n"
                "    print(\"to stderr\", file=sys.stderr, flush=True)\n"
                DEFAULT_COMPUTE);

  handler = g_signal_connect (runner, "step-output", G_CALLBACK (step_output_cb), &live);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  g_signal_handler_disconnect (runner, handler);
  assert_stats (&outcome.stats, 1, 0, 0, 0, 0);

  g_assert_true (live.first_line_while_running);
  /* The two outputs come through two pipes, in no set order. */
  sk_test_assert_contains (live.text->str, "second line é");
  sk_test_assert_contains (live.text->str, "to stderr\n");

  log = sk_test_read_text (wf->folder, "talker/.skele/stdout.log");
  g_assert_cmpstr (log, ==, "first line\nsecond line é\n");

  g_string_free (live.text, TRUE);
}

static void
agent_line_cb (SkRunner   *runner,
               SkNode     *changed,
               const char *message,
               GPtrArray  *lines)
{
  g_ptr_array_add (lines, g_strdup (message));
}

static void
agent_transient_cb (SkRunner   *runner,
                    SkNode     *changed,
                    const char *message,
                    GPtrArray  *lines)
{
  g_ptr_array_add (lines, g_strconcat ("transient: ", message, NULL));
}

/* A request that is sent again is told as a passing line; when the agent
 * finally fails, its last line says so, rather than that it tries again.
 */
static void
test_agent_outcome_line (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_autoptr(SkLlmClient) client = NULL;
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_auto(Outcome) outcome = { 0 };
  const char *last;
  gboolean retried = FALSE;

  workflow_add (wf, "1", "unwritten", NULL);
  workflow_save (wf);

  /* Nothing listens on port 1, so each request fails to connect. */
  client = sk_llm_client_new (SK_LLM_PROVIDER_OLLAMA, "http://127.0.0.1:1", "some-model", NULL);
  sk_llm_client_set_max_retries (client, 1);
  sk_runner_set_agent (runner, client);
  g_signal_connect (runner, "agent-progress", G_CALLBACK (agent_line_cb), lines);
  g_signal_connect (runner, "agent-transient", G_CALLBACK (agent_transient_cb), lines);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  g_signal_handlers_disconnect_by_data (runner, lines);
  g_assert_cmpint (state_of (wf, "unwritten"), ==, SK_NODE_STATE_FAILED);

  for (guint i = 0; i < lines->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (lines, i), "transient: "))
      {
        retried = TRUE;
        sk_test_assert_contains (g_ptr_array_index (lines, i), "Trying again");
      }
  g_assert_true (retried);

  g_assert_cmpuint (lines->len, >, 0);
  last = g_ptr_array_index (lines, lines->len - 1);
  sk_test_assert_contains (last, "could not write");
  g_assert_null (strstr (last, "Trying again"));
}

/* Node code that reads standard input gets nothing: it neither waits for a
 * terminal nor, in the in-memory mode, eats the worker's commands.
 */
static void
test_stdin (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };

  workflow_add (wf, "1", "reader", NULL);
  workflow_add (wf, "2", "after", "1");
  workflow_save (wf);
  write_script (wf, "reader", NULL,
                "    report(\"read \" + repr(sys.stdin.read()))\n"
                DEFAULT_COMPUTE);
  write_script (wf, "after", NULL, NULL);

  sk_runner_set_timeout (runner, 20);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "reader")), "read ''");

  sk_runner_set_in_memory (runner, TRUE);
  sk_runner_set_force (runner, TRUE);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "reader")), "read ''");
  sk_test_assert_contains (sk_node_get_output_text (node (wf, "after")),
                           "received reader=reader-value");
}

/* A process that left the step's process group, holding its output open,
 * is not waited for: the step finishes, and the process does not outlive
 * it. A sandbox ends with everything in it; without one, the runner finds
 * the process by the mark in its environment. @data is whether the run
 * goes without a sandbox.
 */
static void
test_detached_process (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  gboolean gone;
  pid_t child;

  if (GPOINTER_TO_INT (data))
    sk_runner_set_sandbox_policy (runner, SK_SANDBOX_POLICY_OFF);

  workflow_add (wf, "1", "daemon", NULL);
  workflow_save (wf);
  write_script (wf, "daemon", NULL,
                "    sleeper(30, \"daemon\", start_new_session=True)\n"
                "    note(\"daemon\", KEY)\n"
                DEFAULT_COMPUTE);

  /* A runner that waited for the open output would reach this timeout. */
  sk_runner_set_timeout (runner, 15);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 0, 0);
  g_assert_cmpint (state_of (wf, "daemon"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_true (sk_test_has_note (wf->folder, "daemon"));

  gone = sk_test_processes_gone_in (wf->folder);
  child = sk_test_find_process (wf->folder, "daemon");
  if (child > 0)
    kill (child, SIGKILL);
  g_assert_true (gone);
}

static void
test_cycle (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_autoptr(SkProject) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *runs = NULL;

  sk_test_write_text (wf->folder, "process.json",
                      "{\"process_name\": \"circle\", \"nodes\": {"
                      " \"1\": {\"name\": \"a\", \"priors\": [\"2\"], \"run\": true,"
                      "         \"input\": {\"text\": \"a\", \"files\": []}},"
                      " \"2\": {\"name\": \"b\", \"priors\": [[\"1\"]], \"run\": true,"
                      "         \"input\": {\"text\": \"b\", \"files\": []}}}}");
  write_script (wf, "a", NULL, NULL);
  write_script (wf, "b", NULL, NULL);

  loaded = sk_project_load (wf->file, &error);
  g_assert_no_error (error);
  g_set_object (&wf->project, loaded);

  g_assert_false (run_workflow (runner, wf, NULL, &outcome));
  g_assert_error (outcome.error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE);
  g_assert_cmpuint (outcome.events->len, ==, 0);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "");
}

/* A pickle that is not the one the step's record vouches for, cut short or
 * changed since, means the step runs again.
 */
static void
test_truncated_pickle (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *pickle = NULL;
  g_autofree char *contents = NULL;
  gsize length;
  char *runs;

  workflow_add (wf, "1", "a", NULL);
  workflow_add (wf, "2", "b", "1");
  workflow_save (wf);
  write_script (wf, "a", NULL, NULL);
  write_script (wf, "b", NULL, NULL);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 2, 0, 0, 0, 0);
  g_free (sk_test_take_runs (wf->folder));

  /* Cut short, as by a full disk or a run killed while it saved. */
  pickle = workflow_path (wf, "a/a.pkl");
  g_assert_true (g_file_get_contents (pickle, &contents, &length, NULL));
  g_assert_cmpuint (length, >, 4);
  g_assert_true (g_file_set_contents (pickle, contents, length / 2, NULL));

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 1, 0);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "a");
  g_free (runs);

  /* Changed, at the same size. */
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (pickle, &contents, &length, NULL));
  contents[length - 2] ^= 1;
  g_assert_true (g_file_set_contents (pickle, contents, length, NULL));

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 1, 0);
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "a");
  g_free (runs);

  /* Untouched, it is up to date. */
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 0, 0, 0, 2, 0);
}

/* While a step runs, no record vouches for the outputs it is replacing:
 * the step notes whether it sees one.
 */
#define NOTE_RECORD \
  "    note(\"record.log\", str(os.path.exists(os.path.join(FOLDER, \".skele\", " \
  "\"record.json\"))))\n" \
  DEFAULT_COMPUTE

static void
test_record_withdrawn (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *log = NULL;
  g_autofree char *record = NULL;

  workflow_add (wf, "1", "a", NULL);
  workflow_save (wf);
  write_script (wf, "a", NULL, NOTE_RECORD);
  record = workflow_path (wf, "a/.skele/record.json");

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 0, 0);
  g_assert_true (g_file_test (record, G_FILE_TEST_IS_REGULAR));

  sk_runner_set_force (runner, TRUE);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 0, 0);
  g_assert_true (g_file_test (record, G_FILE_TEST_IS_REGULAR));

  sk_runner_set_in_memory (runner, TRUE);
  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 0, 0, 0, 0);
  g_assert_true (g_file_test (record, G_FILE_TEST_IS_REGULAR));

  log = sk_test_read_note (wf->folder, "record.log");
  g_assert_cmpstr (log, ==, "False\nFalse\nFalse\n");
}

/* A record that cannot be written is the step's failure. */
static void
test_record_unwritable (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *runs = NULL;
  const char *error;

  workflow_add (wf, "1", "a", NULL);
  workflow_add (wf, "2", "b", NULL);
  workflow_save (wf);

  /* The step puts a folder where its record goes, while it runs. */
  write_script (wf, "a", NULL,
                "    os.makedirs(os.path.join(FOLDER, \".skele\", \"record.json\", \"x\"))\n"
                DEFAULT_COMPUTE);
  write_script (wf, "b", NULL, NULL);

  /* One that was there before the run cannot be withdrawn: the step does
   * not run. */
  sk_test_write_text (wf->folder, "b/.skele/record.json/x", "");

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 0, 2, 0, 0, 0);
  g_assert_cmpint (state_of (wf, "a"), ==, SK_NODE_STATE_FAILED);
  error = sk_node_get_error_text (node (wf, "a"));
  sk_test_assert_contains (error, "The step ran, but its result could not be recorded");
  error = sk_node_get_error_text (node (wf, "b"));
  sk_test_assert_contains (error, "The step was not run");
  sk_test_assert_contains (error, "record.json");
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "a");
}

/* An input that is not a regular file would be read for ever: the step
 * fails at once, and says which file.
 */
static void
test_input_not_regular (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *fifo = NULL;
  g_autofree char *zero = NULL;
  g_autofree char *runs = NULL;

  sk_node_set_input_files (workflow_add (wf, "1", "a", NULL), SK_TEST_STRV ("pipe"));
  sk_node_set_input_files (workflow_add (wf, "2", "b", NULL), SK_TEST_STRV ("zero"));
  workflow_save (wf);
  write_script (wf, "a", NULL, NULL);
  write_script (wf, "b", NULL, NULL);

  fifo = workflow_path (wf, "a/pipe");
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  zero = workflow_path (wf, "b/zero");
  g_assert_cmpint (symlink ("/dev/zero", zero), ==, 0);

  /* The workflow's validation may refuse the run, or the steps fail on
   * their fingerprints; either way the run ends and names the file.
   */
  if (!run_workflow (runner, wf, NULL, &outcome))
    {
      g_assert_nonnull (outcome.error);
      sk_test_assert_contains (outcome.error->message, "“pipe”");
    }
  else
    {
      assert_stats (&outcome.stats, 0, 2, 0, 0, 0);
      sk_test_assert_contains (sk_node_get_error_text (node (wf, "a")),
                               "“pipe” is not a regular file");
      sk_test_assert_contains (sk_node_get_error_text (node (wf, "b")),
                               "“zero” is not a regular file");
    }
  runs = sk_test_take_runs (wf->folder);
  g_assert_cmpstr (runs, ==, "");
}

/* The runner never follows a link out of a step's folder: a log that is a
 * link is replaced, a summary that is a link is refused and fails the step,
 * and so does a bookkeeping folder that is a link.
 */
static void
test_links (void)
{
  g_autoptr(Workflow) wf = workflow_new ();
  g_autoptr(SkRunner) runner = new_runner ();
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *outside = sk_test_make_tmp_dir ("runner-outside");
  g_autofree char *secret = g_build_filename (outside, "secret.txt", NULL);
  g_autofree char *target = g_build_filename (outside, "target.txt", NULL);
  g_autofree char *link = NULL;
  g_autofree char *text = NULL;
  g_autofree char *summary = NULL;
  g_autoptr(GDir) dir = NULL;
  guint count = 0;

  workflow_add (wf, "1", "logs", NULL);
  workflow_add (wf, "2", "summary", NULL);
  workflow_add (wf, "3", "bookkeeping", NULL);
  workflow_save (wf);
  write_script (wf, "logs", NULL, "    print(\"printed\")\n" DEFAULT_COMPUTE);
  summary = g_strdup_printf ("    os.unlink(os.path.join(FOLDER, KEY + \"_summary.txt\"))\n"
                             "    os.symlink(\"%s\", os.path.join(FOLDER, KEY + \"_summary.txt\"))\n"
                             "    state[\"output\"] = {\"task_status\": \"success\"}",
                             secret);
  write_script (wf, "summary", NULL, summary);
  write_script (wf, "bookkeeping", NULL, NULL);

  sk_test_write_text (outside, "secret.txt", "the secret\n");
  sk_test_write_text (outside, "target.txt", "keep me\n");
  sk_test_write_text (wf->folder, "logs/.skele/keep", "");
  link = workflow_path (wf, "logs/.skele/stdout.log");
  g_assert_cmpint (symlink (target, link), ==, 0);
  g_clear_pointer (&link, g_free);
  link = workflow_path (wf, "bookkeeping/.skele");
  g_assert_cmpint (symlink (outside, link), ==, 0);

  g_assert_true (run_workflow (runner, wf, NULL, &outcome));
  assert_stats (&outcome.stats, 1, 2, 0, 0, 0);

  /* The log link was replaced by the log. */
  text = sk_test_read_text (outside, "target.txt");
  g_assert_cmpstr (text, ==, "keep me\n");
  g_clear_pointer (&text, g_free);
  g_clear_pointer (&link, g_free);
  link = workflow_path (wf, "logs/.skele/stdout.log");
  g_assert_false (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  text = sk_test_read_text (wf->folder, "logs/.skele/stdout.log");
  g_assert_cmpstr (text, ==, "printed\n");
  g_clear_pointer (&text, g_free);

  /* The summary was not read. */
  g_assert_cmpint (state_of (wf, "summary"), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "summary")), "is a link");
  g_assert_null (strstr (sk_node_get_output_text (node (wf, "summary")), "secret"));
  text = sk_test_read_text (outside, "secret.txt");
  g_assert_cmpstr (text, ==, "the secret\n");

  /* Nothing was written through the bookkeeping link. */
  g_assert_cmpint (state_of (wf, "bookkeeping"), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (node (wf, "bookkeeping")), "is a link");
  dir = g_dir_open (outside, 0, NULL);
  while (g_dir_read_name (dir) != NULL)
    count++;
  g_assert_cmpuint (count, ==, 2);

  sk_test_remove_tree (outside);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *python3 = g_find_program_in_path ("python3");
  int status;

  /* The suite runs these tests a second time with steps spawned, the way
   * they are started where they cannot be forked. */
  spawn_steps = sk_test_take_option (&argc, argv, "--spawn-steps");
  g_test_init (&argc, &argv, NULL);

  if (python3 == NULL)
    {
      g_test_skip ("python3 is not installed");
      return g_test_run ();
    }
  python_path = sk_test_find_python ();

  g_test_add_func ("/runner/success", test_success);
  g_test_add_func ("/runner/skipped", test_skipped);
  g_test_add_func ("/runner/failed/exception", test_failed_exception);
  g_test_add_func ("/runner/failed/status", test_failed_status);
  g_test_add_func ("/runner/failed/prior-with-old-pickle", test_failed_prior_old_pickle);
  g_test_add_func ("/runner/timeout/hang", test_timeout);
  g_test_add_func ("/runner/timeout/unlimited", test_timeout_unlimited);
  g_test_add_func ("/runner/timeout/child-process", test_timeout_child);
  g_test_add_func ("/runner/leftover-process", test_leftover_process);
  g_test_add_func ("/runner/cancel", test_cancel);
  g_test_add_func ("/runner/parallel", test_parallel);
  g_test_add_func ("/runner/incremental", test_incremental);
  g_test_add_func ("/runner/outputs-restored", test_outputs_restored);
  g_test_add_func ("/runner/run-false", test_run_false);
  g_test_add_func ("/runner/select", test_select);
  g_test_add_func ("/runner/in-memory/chain", test_in_memory);
  g_test_add_func ("/runner/in-memory/not-reused", test_in_memory_not_reused);
  g_test_add_func ("/runner/in-memory/failure", test_in_memory_failure);
  g_test_add_data_func ("/runner/in-memory/timeout/default", GINT_TO_POINTER (FALSE),
                        test_in_memory_timeout);
  g_test_add_data_func ("/runner/in-memory/timeout/unsandboxed", GINT_TO_POINTER (TRUE),
                        test_in_memory_timeout);
  g_test_add_data_func ("/runner/in-memory/stubborn/default", GINT_TO_POINTER (FALSE),
                        test_in_memory_stubborn);
  g_test_add_data_func ("/runner/in-memory/stubborn/unsandboxed", GINT_TO_POINTER (TRUE),
                        test_in_memory_stubborn);
  g_test_add_func ("/runner/in-memory/cancel", test_in_memory_cancel);
  g_test_add_func ("/runner/missing-and-broken-script", test_missing_script);
  g_test_add_func ("/runner/missing-script-record", test_missing_script_record);
  g_test_add_func ("/runner/no-code", test_no_code);
  g_test_add_func ("/runner/live-output", test_live_output);
  g_test_add_func ("/runner/agent/outcome-line", test_agent_outcome_line);
  g_test_add_func ("/runner/up-to-date/failed-prior", test_up_to_date_after_failed_prior);
  g_test_add_func ("/runner/stdin", test_stdin);
  g_test_add_data_func ("/runner/detached-process/default", GINT_TO_POINTER (FALSE),
                        test_detached_process);
  g_test_add_data_func ("/runner/detached-process/unsandboxed", GINT_TO_POINTER (TRUE),
                        test_detached_process);
  g_test_add_func ("/runner/cycle", test_cycle);
  g_test_add_func ("/runner/record/truncated-pickle", test_truncated_pickle);
  g_test_add_func ("/runner/record/withdrawn", test_record_withdrawn);
  g_test_add_func ("/runner/record/unwritable", test_record_unwritable);
  g_test_add_func ("/runner/input-not-regular", test_input_not_regular);
  g_test_add_func ("/runner/links", test_links);

  status = g_test_run ();
  g_free (python_path);
  return status;
}
