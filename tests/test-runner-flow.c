/* test-runner-flow.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The control flow of DESIGN §10 as the runner carries it out, with real
 * Python processes: approval gates and conditions on edges, and the
 * "Failed: …" line that a failed step leaves in its output text (DESIGN §4).
 * Every test runs in both execution modes, isolated and in-memory.
 */

#define G_LOG_DOMAIN "test-runner-flow"

#include <string.h>

#include "sk-control-flow.h"
#include "sk-project.h"
#include "sk-runner.h"
#include "sk-test-util.h"

/* The absolute path of `python3` from PATH, looked up once: a pyenv shim
 * costs most of a second at every start. */
static char *python_path;

/* Every script appends its key to its journal runs.log, which tells the
 * tests which scripts ran, and reports what it received from its priors. */
static const char script_template[] =
  SK_TEST_SCRIPT_HEAD
  SK_TEST_SCRIPT_PREPROCESS
  "    report(\"received \" + describe(prior_outputs))\n"
  SK_TEST_SCRIPT_TAIL;

#define DEFAULT_COMPUTE \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": KEY + \"-value\"}\n" \
  "    report(\"done\")"
#define SCORE_IS(n) \
  "    state[\"output\"] = {\"task_status\": \"success\", \"value\": KEY + \"-value\", \"score\": " \
  #n "}\n" \
  "    report(\"done\")"

typedef enum
{
  MODE_ISOLATED,
  MODE_IN_MEMORY,
} Mode;

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
} Outcome;

/* Helpers ----------------------------------------------------------------- */

/* Writes process.json with the nodes in @spec, one "ID NAME [PRIOR…]" per
 * line, optionally followed by " | " and the node's "skele" member as JSON.
 * Every node is marked to run, its key is its name, and so is its task.
 * The control flow has no setter, so the workflow is read from the file
 * like a user's.
 */
static void
write_process (const char *folder,
               const char *spec)
{
  sk_test_write_spec_process_full (folder, "flow test", spec, TRUE);
}

static Workflow *
workflow_new (const char *spec)
{
  Workflow *wf = g_new0 (Workflow, 1);
  g_autoptr(GError) error = NULL;

  wf->folder = sk_test_make_tmp_dir ("runner-flow");
  wf->file = g_file_new_for_path (wf->folder);
  write_process (wf->folder, spec);
  wf->project = sk_project_load (wf->file, &error);
  g_assert_no_error (error);
  g_assert_nonnull (wf->project);

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

static void
write_script (Workflow   *wf,
              const char *key,
              const char *pre,
              const char *compute)
{
  sk_test_write_script (wf->folder, script_template, key,
                        pre != NULL ? pre : "    pass",
                        compute != NULL ? compute : DEFAULT_COMPUTE);
}

/* Writes the default script for each key in @keys, separated by spaces. */
static void
write_scripts (Workflow   *wf,
               const char *keys)
{
  g_auto(GStrv) list = g_strsplit (keys, " ", -1);

  for (guint i = 0; list[i] != NULL; i++)
    write_script (wf, list[i], NULL, NULL);
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

static const char *
error_of (Workflow   *wf,
          const char *key)
{
  return sk_node_get_error_text (node (wf, key));
}

static const char *
output_of (Workflow   *wf,
           const char *key)
{
  return sk_node_get_output_text (node (wf, key));
}

static void
assert_runs (Workflow   *wf,
             const char *expected)
{
  g_autofree char *runs = sk_test_take_runs (wf->folder);

  g_assert_cmpstr (runs, ==, expected);
}

/* The steps run in a sandbox, as they do for users, unless SKELE_SANDBOX
 * says otherwise, as it may where there can be none. */
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
new_runner (gconstpointer data)
{
  SkRunner *runner = sk_runner_new ();

  sk_runner_set_python (runner, python_path);
  sk_runner_set_in_memory (runner, GPOINTER_TO_INT (data) == MODE_IN_MEMORY);
  set_sandbox_policy (runner);
  return runner;
}

/* The gate's fingerprint that the record of a run waiting there keeps. */
static char *
waiting_fingerprint (Workflow   *wf,
                     const char *key)
{
  g_autofree char *folder = g_build_filename (wf->folder, key, NULL);

  return sk_approval_get_waiting (folder, key);
}

static SkApproval *
read_approval (Workflow   *wf,
               const char *key)
{
  g_autofree char *folder = g_build_filename (wf->folder, key, NULL);

  return sk_approval_read (folder, key);
}

static void
decide (Workflow   *wf,
        const char *key,
        gboolean    approved,
        const char *note)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (sk_project_decide_gate (wf->project, node (wf, key), approved, note, &error));
  g_assert_no_error (error);
}

/* A failed step's output text keeps its report and ends with a line that
 * says why it failed, so that process.json alone tells what happened. */
static void
assert_failed_text (Workflow   *wf,
                    const char *key,
                    const char *reason)
{
  const char *error_text = error_of (wf, key);
  g_autofree char *text = g_strdup (output_of (wf, key));
  g_autofree char *last = NULL;

  g_assert_cmpint (state_of (wf, key), ==, SK_NODE_STATE_FAILED);
  g_assert_nonnull (error_text);
  sk_test_assert_contains (error_text, reason);

  g_assert_nonnull (text);
  g_strchomp (text);
  last = g_strconcat ("Failed: ", error_text, NULL);
  g_strchomp (last);
  if (!g_str_has_suffix (text, last))
    g_error ("The output text of “%s” does not end with “%s”:\n%s", key, last, text);
  g_assert_true (strlen (text) == strlen (last) || text[strlen (text) - strlen (last) - 1] == '\n');
}

static void
assert_no_output (Workflow   *wf,
                  const char *key)
{
  const char * const *files = sk_node_get_output_files (node (wf, key));

  g_assert_cmpstr (output_of (wf, key), ==, "");
  g_assert_true (files == NULL || files[0] == NULL);
}

/* Running ----------------------------------------------------------------- */

static void
outcome_clear (Outcome *outcome)
{
  g_clear_pointer (&outcome->loop, g_main_loop_unref);
  g_clear_pointer (&outcome->events, g_ptr_array_unref);
  g_clear_error (&outcome->error);
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

/* Runs the marked nodes and waits for the end of the run, which must
 * finish without an error of its own: a gate, a condition or a failed step
 * is an outcome of the steps, not of the run. */
static void
run_workflow (SkRunner *runner,
              Workflow *wf,
              Outcome  *outcome)
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
  watchdog = g_timeout_add_seconds (60 * SK_TEST_WAIT_SCALE, watchdog_cb, NULL);

  sk_runner_run_async (runner, wf->project, NULL, NULL, run_done_cb, outcome);
  if (!outcome->done)
    g_main_loop_run (outcome->loop);

  g_source_remove (watchdog);
  g_signal_handler_disconnect (runner, handler);

  g_assert_no_error (outcome->error);
  g_assert_true (outcome->ok);
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
              guint             up_to_date)
{
  g_assert_cmpuint (stats->succeeded, ==, succeeded);
  g_assert_cmpuint (stats->failed, ==, failed);
  g_assert_cmpuint (stats->skipped, ==, skipped);
  g_assert_cmpuint (stats->up_to_date, ==, up_to_date);
  g_assert_cmpuint (stats->cancelled, ==, 0);
}

static void
assert_gate_stats (const SkRunStats *stats,
                   guint             awaiting_approval,
                   guint             held)
{
  g_assert_cmpuint (stats->awaiting_approval, ==, awaiting_approval);
  g_assert_cmpuint (stats->held, ==, held);
  g_assert_cmpuint (stats->no_code, ==, 0);
  g_assert_cmpuint (stats->waiting, ==, 0);
}

/* Approval gates ---------------------------------------------------------- */

/* The gate needs "prepare"; "publish" needs the gate and "archive" needs
 * it through "publish"; "side" and "side after" are another branch. */
static const char gate_spec[] =
  "1 prepare\n"
  "2 gate 1 | {\"approval\": true}\n"
  "3 publish 2\n"
  "4 archive 3\n"
  "5 side\n"
  "6 side_after 5";

#define HELD_BY_GATE "Not run yet: it needs “gate”, which waits for approval."

static void
test_gate_stop (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new (gate_spec);
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) record = NULL;
  g_autofree char *record_text = NULL;
  g_autofree char *fingerprint = NULL;
  g_autofree char *waiting = NULL;
  g_autoptr(SkApproval) approval = NULL;

  write_scripts (wf, "prepare gate publish archive side side_after");

  /* Before any run there is nothing to decide on, and a step that is no
   * gate is never decided on. */
  g_assert_false (sk_project_decide_gate (wf->project, node (wf, "gate"), TRUE, NULL, &error));
  g_assert_error (error, SK_CONTROL_FLOW_ERROR, SK_CONTROL_FLOW_ERROR_NOT_WAITING);
  g_clear_error (&error);
  g_assert_false (sk_project_decide_gate (wf->project, node (wf, "prepare"), TRUE, NULL, &error));
  g_assert_error (error, SK_CONTROL_FLOW_ERROR, SK_CONTROL_FLOW_ERROR_NOT_A_GATE);
  g_clear_error (&error);

  /* What an earlier run left in the gate's output is not this run's. */
  sk_node_set_output_text (node (wf, "gate"), "an old report");

  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 3, 0, 0, 0);
  assert_gate_stats (&outcome.stats, 1, 2);

  g_assert_cmpint (state_of (wf, "prepare"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (state_of (wf, "gate"), ==, SK_NODE_STATE_AWAITING_APPROVAL);
  assert_states (&outcome, "gate", "queued awaiting-approval");
  g_assert_true (sk_node_state_is_finished (SK_NODE_STATE_AWAITING_APPROVAL));
  assert_no_output (wf, "gate");
  g_assert_false (sk_test_exists (wf->folder, "gate/gate.pkl"));

  /* What needs the gate, directly or through another step, is held. */
  g_assert_cmpint (state_of (wf, "publish"), ==, SK_NODE_STATE_SKIPPED);
  g_assert_cmpint (state_of (wf, "archive"), ==, SK_NODE_STATE_SKIPPED);
  assert_states (&outcome, "publish", "queued skipped");
  g_assert_cmpstr (error_of (wf, "publish"), ==, HELD_BY_GATE);
  g_assert_cmpstr (error_of (wf, "archive"), ==, HELD_BY_GATE);
  assert_no_output (wf, "publish");

  /* The other branch went on. */
  g_assert_cmpint (state_of (wf, "side"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (state_of (wf, "side_after"), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (output_of (wf, "side_after"), "received side=side-value");
  assert_runs (wf, "prepare side side_after");

  /* The record says what the gate waits for: its fingerprint now. */
  record_text = sk_test_read_text (wf->folder, "gate/.skele/record.json");
  g_assert_nonnull (record_text);
  record = sk_test_parse_object (record_text);
  g_assert_cmpstr (json_object_get_string_member (record, "status"), ==, "waiting");
  fingerprint = sk_runner_fingerprint (runner, wf->project, node (wf, "gate"));
  g_assert_cmpstr (json_object_get_string_member (record, "fingerprint"), ==, fingerprint);
  waiting = waiting_fingerprint (wf, "gate");
  g_assert_cmpstr (waiting, ==, fingerprint);
  approval = read_approval (wf, "gate");
  g_assert_null (approval);

  /* The outputs before the gate are kept where the next run finds them,
   * also when they lived in the in-memory worker. */
  g_assert_true (sk_test_exists (wf->folder, "prepare/prepare.pkl"));

  /* Without a decision, running again stops at the gate again, and runs
   * nothing before it. */
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 0, 0, 0, 3);
  assert_gate_stats (&outcome.stats, 1, 2);
  g_assert_cmpint (state_of (wf, "gate"), ==, SK_NODE_STATE_AWAITING_APPROVAL);
  assert_runs (wf, "");
}

static void
test_gate_resume (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new (gate_spec);
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *waiting = NULL;
  g_autoptr(SkApproval) approval = NULL;
  g_autoptr(GDateTime) at = NULL;

  write_scripts (wf, "prepare gate publish archive side side_after");

  run_workflow (runner, wf, &outcome);
  assert_gate_stats (&outcome.stats, 1, 2);
  assert_runs (wf, "prepare side side_after");
  waiting = waiting_fingerprint (wf, "gate");
  g_assert_nonnull (waiting);

  decide (wf, "gate", TRUE, "the totals look right");
  approval = read_approval (wf, "gate");
  g_assert_nonnull (approval);
  g_assert_true (approval->approved);
  g_assert_cmpstr (approval->fingerprint, ==, waiting);
  g_assert_cmpstr (approval->note, ==, "the totals look right");
  g_assert_cmpstr (approval->by, !=, "");
  at = g_date_time_new_from_iso8601 (approval->at, NULL);
  g_assert_nonnull (at);

  /* The run goes on from the gate: nothing before it runs again. */
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 3, 0, 0, 3);
  assert_gate_stats (&outcome.stats, 0, 0);
  assert_runs (wf, "archive gate publish");
  assert_states (&outcome, "prepare", "queued up-to-date");
  assert_states (&outcome, "gate", "queued running succeeded");
  g_assert_cmpint (state_of (wf, "publish"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (state_of (wf, "archive"), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (output_of (wf, "gate"), "received prepare=prepare-value");
  sk_test_assert_contains (output_of (wf, "publish"), "received gate=gate-value");
  sk_test_assert_contains (output_of (wf, "archive"), "received publish=publish-value");
  g_assert_null (error_of (wf, "publish"));

  /* The decision still holds: the gate does not ask again. Everything is
   * up to date now, but for what ran in the in-memory worker after the
   * gate, which saved nothing (see test-runner's /runner/in-memory/chain). */
  run_workflow (runner, wf, &outcome);
  assert_gate_stats (&outcome.stats, 0, 0);
  if (GPOINTER_TO_INT (data) == MODE_IN_MEMORY)
    {
      assert_stats (&outcome.stats, 3, 0, 0, 3);
      assert_runs (wf, "archive gate publish");
    }
  else
    {
      assert_stats (&outcome.stats, 0, 0, 0, 6);
      assert_runs (wf, "");
    }
}

static void
test_gate_reask (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ("1 prepare\n"
                                         "2 gate 1 | {\"approval\": true}\n"
                                         "3 publish 2");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autoptr(SkApproval) approval = NULL;

  write_scripts (wf, "prepare gate publish");

  run_workflow (runner, wf, &outcome);
  assert_gate_stats (&outcome.stats, 1, 1);
  first = waiting_fingerprint (wf, "gate");
  decide (wf, "gate", TRUE, NULL);
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 2, 0, 0, 1);
  assert_runs (wf, "gate prepare publish");
  sk_test_assert_contains (output_of (wf, "gate"), "received prepare=prepare-value");

  /* A change upstream changes what the gate would receive: it asks again,
   * and what comes after it waits. */
  write_script (wf, "prepare", NULL,
                "    state[\"output\"] = {\"task_status\": \"success\", \"value\": \"changed\"}");
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 1, 0, 0, 0);
  assert_gate_stats (&outcome.stats, 1, 1);
  assert_runs (wf, "prepare");
  g_assert_cmpint (state_of (wf, "gate"), ==, SK_NODE_STATE_AWAITING_APPROVAL);
  g_assert_cmpint (state_of (wf, "publish"), ==, SK_NODE_STATE_SKIPPED);
  g_assert_cmpstr (error_of (wf, "publish"), ==, HELD_BY_GATE);
  assert_no_output (wf, "gate");
  assert_no_output (wf, "publish");

  second = waiting_fingerprint (wf, "gate");
  g_assert_nonnull (second);
  g_assert_cmpstr (second, !=, first);
  approval = read_approval (wf, "gate");
  g_assert_nonnull (approval);
  g_assert_cmpstr (approval->fingerprint, ==, first);

  decide (wf, "gate", TRUE, NULL);
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 2, 0, 0, 1);
  assert_gate_stats (&outcome.stats, 0, 0);
  assert_runs (wf, "gate publish");
  sk_test_assert_contains (output_of (wf, "gate"), "received prepare=changed");
}

static void
test_gate_deny (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ("1 prepare\n"
                                         "2 gate 1 | {\"approval\": true}\n"
                                         "3 only_gate 2\n"
                                         "4 after_only 3\n"
                                         "5 other 1\n"
                                         "6 join 2 5");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  g_autoptr(SkApproval) approval = NULL;

  write_scripts (wf, "prepare gate only_gate after_only other join");

  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 2, 0, 0, 0);
  assert_gate_stats (&outcome.stats, 1, 3);
  g_assert_cmpstr (error_of (wf, "join"), ==, HELD_BY_GATE);
  assert_runs (wf, "other prepare");

  decide (wf, "gate", FALSE, "not this month");
  approval = read_approval (wf, "gate");
  g_assert_nonnull (approval);
  g_assert_false (approval->approved);
  g_assert_cmpstr (approval->note, ==, "not this month");

  /* Denied, the gate is skipped, and so is what depends only on it; the
   * join has another prior that ran, so it runs with {} for the gate. */
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 1, 0, 3, 2);
  assert_gate_stats (&outcome.stats, 0, 0);
  assert_runs (wf, "join");

  g_assert_cmpint (state_of (wf, "gate"), ==, SK_NODE_STATE_SKIPPED);
  assert_states (&outcome, "gate", "queued skipped");
  g_assert_true (g_str_has_prefix (error_of (wf, "gate"), "Denied by "));
  sk_test_assert_contains (error_of (wf, "gate"), "not this month");
  assert_no_output (wf, "gate");
  g_assert_false (sk_test_exists (wf->folder, "gate/gate.pkl"));

  g_assert_cmpint (state_of (wf, "only_gate"), ==, SK_NODE_STATE_SKIPPED);
  g_assert_cmpint (state_of (wf, "after_only"), ==, SK_NODE_STATE_SKIPPED);
  g_assert_cmpstr (error_of (wf, "only_gate"), ==, "Skipped: every step before it was skipped.");
  g_assert_cmpstr (error_of (wf, "after_only"), ==, "Skipped: every step before it was skipped.");

  g_assert_cmpint (state_of (wf, "join"), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (output_of (wf, "join"), "received gate={} other=other-value");
}

static void
test_gate_approve_up_front (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ("1 prepare\n"
                                         "2 gate 1 | {\"approval\": true}\n"
                                         "3 publish 2");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  g_autoptr(SkApproval) approval = NULL;
  g_autofree char *fingerprint = NULL;
  const char *not_gates[] = { "publish", "nowhere", NULL };
  const char *gates[] = { "gate", NULL };

  write_scripts (wf, "prepare gate publish");

  /* Naming steps that are no gates approves nothing. */
  g_assert_null (sk_runner_get_approve (runner));
  sk_runner_set_approve (runner, not_gates);
  g_assert_cmpstrv (sk_runner_get_approve (runner), not_gates);
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 1, 0, 0, 0);
  assert_gate_stats (&outcome.stats, 1, 1);
  assert_runs (wf, "prepare");
  g_assert_null (read_approval (wf, "gate"));

  /* Naming the gate approves it when the run reaches it, and keeps the
   * decision. */
  sk_runner_set_approve (runner, gates);
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 2, 0, 0, 1);
  assert_gate_stats (&outcome.stats, 0, 0);
  assert_runs (wf, "gate publish");
  sk_test_assert_contains (output_of (wf, "publish"), "received gate=gate-value");

  approval = read_approval (wf, "gate");
  g_assert_nonnull (approval);
  g_assert_true (approval->approved);
  fingerprint = sk_runner_fingerprint (runner, wf->project, node (wf, "gate"));
  g_assert_cmpstr (approval->fingerprint, ==, fingerprint);

  /* The kept decision is enough for a runner that approves nothing. */
  sk_runner_set_approve (runner, NULL);
  g_assert_null (sk_runner_get_approve (runner));
  run_workflow (runner, wf, &outcome);
  assert_gate_stats (&outcome.stats, 0, 0);
  if (GPOINTER_TO_INT (data) == MODE_IN_MEMORY)
    {
      assert_stats (&outcome.stats, 2, 0, 0, 1);
      assert_runs (wf, "gate publish");
    }
  else
    {
      assert_stats (&outcome.stats, 0, 0, 0, 3);
      assert_runs (wf, "");
    }
}

/* A gate approved up front on a workflow that never ran: one run does it
 * all. */
static void
test_gate_approve_one_go (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ("1 prepare\n"
                                         "2 gate 1 | {\"approval\": true}\n"
                                         "3 publish 2");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  g_autoptr(SkApproval) approval = NULL;
  const char *gates[] = { "gate", NULL };

  write_scripts (wf, "prepare gate publish");
  sk_runner_set_approve (runner, gates);
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 3, 0, 0, 0);
  assert_gate_stats (&outcome.stats, 0, 0);
  assert_runs (wf, "gate prepare publish");
  sk_test_assert_contains (output_of (wf, "gate"), "received prepare=prepare-value");
  approval = read_approval (wf, "gate");
  g_assert_nonnull (approval);
  g_assert_true (approval->approved);
}

/* Conditions on edges ----------------------------------------------------- */

/* The successors of "score" in the order of the workflow's nodes: the
 * default first, then "more" and "less", which are both true for a score
 * of 7, in the opposite of their alphabetical order. */
static const char branches_spec[] =
  "1 score\n"
  "2 fallback 1 | {\"when\": {\"1\": \"default\"}}\n"
  "3 more 1 | {\"when\": {\"1\": \"output['score'] > 5\"}}\n"
  "4 less 1 | {\"when\": {\"1\": \"output['score'] > 1\"}}\n"
  "5 never 1 | {\"when\": {\"1\": \"output['score'] > 100\"}}";

static void
test_when_first_true (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new (branches_spec);
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  const char *others[] = { "fallback", "less", "never" };

  write_scripts (wf, "fallback more less never");
  write_script (wf, "score", NULL, SCORE_IS (7));

  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 2, 0, 3, 0);
  assert_runs (wf, "more score");
  g_assert_cmpint (state_of (wf, "more"), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (output_of (wf, "more"), "received score=score-value");
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      g_assert_cmpint (state_of (wf, others[i]), ==, SK_NODE_STATE_SKIPPED);
      g_assert_cmpstr (error_of (wf, others[i]), ==,
                       "Condition not met: after “score”, “more” was taken.");
      assert_no_output (wf, others[i]);
      assert_states (&outcome, others[i], "queued skipped");
    }

  /* The record says so too, so that the workflow opened again shows it. */
  {
    g_autofree char *record = sk_test_read_text (wf->folder, "less/.skele/record.json");

    sk_test_assert_contains (record, "\"skipped\"");
    sk_test_assert_contains (record, "Condition not met");
  }

  /* With 3 only "less" is true; the branch that ran before is skipped
   * now, and what it reported is gone. */
  write_script (wf, "score", NULL, SCORE_IS (3));
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 2, 0, 3, 0);
  assert_runs (wf, "less score");
  g_assert_cmpint (state_of (wf, "less"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (state_of (wf, "more"), ==, SK_NODE_STATE_SKIPPED);
  g_assert_cmpstr (error_of (wf, "more"), ==,
                   "Condition not met: after “score”, “less” was taken.");
  assert_no_output (wf, "more");
}

static void
test_when_default (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new (branches_spec);
  g_autoptr(SkRunner) runner = new_runner (data);
  g_autoptr(Workflow) none = NULL;
  g_auto(Outcome) outcome = { 0 };
  const char *others[] = { "more", "less", "never" };

  write_scripts (wf, "fallback more less never");
  write_script (wf, "score", NULL, SCORE_IS (0));

  /* No condition is true: the default is taken, and only it. */
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 2, 0, 3, 0);
  assert_runs (wf, "fallback score");
  g_assert_cmpint (state_of (wf, "fallback"), ==, SK_NODE_STATE_SUCCEEDED);
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      g_assert_cmpint (state_of (wf, others[i]), ==, SK_NODE_STATE_SKIPPED);
      g_assert_cmpstr (error_of (wf, others[i]), ==,
                       "Condition not met: after “score”, “fallback” was taken.");
    }

  /* Without a default, none runs, nor what needs only them. */
  none = workflow_new ("1 score\n"
                       "2 high 1 | {\"when\": {\"1\": \"output['score'] > 5\"}}\n"
                       "3 low 1 | {\"when\": {\"1\": \"output['score'] < 0\"}}\n"
                       "4 after_any 2 3");
  write_scripts (none, "high low after_any");
  write_script (none, "score", NULL, SCORE_IS (3));
  run_workflow (runner, none, &outcome);
  assert_stats (&outcome.stats, 1, 0, 3, 0);
  assert_runs (none, "score");
  g_assert_cmpstr (error_of (none, "high"), ==,
                   "Condition not met: no condition after “score” is true.");
  g_assert_cmpstr (error_of (none, "low"), ==,
                   "Condition not met: no condition after “score” is true.");
  g_assert_cmpint (state_of (none, "after_any"), ==, SK_NODE_STATE_SKIPPED);
  g_assert_cmpstr (error_of (none, "after_any"), ==, "Skipped: every step before it was skipped.");
}

/* A condition that raises fails its own step, which says which condition
 * it was; for the others it counts as not true. */
static void
test_when_raising (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ("1 score\n"
                                         "2 broken 1 | {\"when\": {\"1\": \"output['x'] > 1\"}}\n"
                                         "3 fine 1 | {\"when\": {\"1\": \"output['score'] > 1\"}}\n"
                                         "4 otherwise 1 | {\"when\": {\"1\": \"default\"}}\n"
                                         "5 after_broken 2");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };

  write_scripts (wf, "broken fine otherwise after_broken");
  write_script (wf, "score", NULL, SCORE_IS (7));

  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 3, 1, 1, 0);
  assert_runs (wf, "after_broken fine score");

  g_assert_cmpstr (error_of (wf, "broken"), ==,
                   "The condition output['x'] > 1 on the connection from “score” could not be "
                   "evaluated: KeyError: 'x'");
  assert_failed_text (wf, "broken", "output['x'] > 1");
  assert_states (&outcome, "broken", "queued failed");

  g_assert_cmpint (state_of (wf, "fine"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (state_of (wf, "otherwise"), ==, SK_NODE_STATE_SKIPPED);
  g_assert_cmpstr (error_of (wf, "otherwise"), ==,
                   "Condition not met: after “score”, “fine” was taken.");

  /* A failed prior is not a skipped one: its successor runs with {}. */
  g_assert_cmpint (state_of (wf, "after_broken"), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (output_of (wf, "after_broken"), "received broken={}");
}

/* A branch not taken skips the chain that needs only it; a join with a
 * prior that ran runs, with {} for the skipped one. */
static void
test_when_skip_propagation (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ("1 score\n"
                                         "2 yes 1 | {\"when\": {\"1\": \"output['score'] > 5\"}}\n"
                                         "3 no 1 | {\"when\": {\"1\": \"default\"}}\n"
                                         "4 yes_next 2\n"
                                         "5 yes_last 4\n"
                                         "6 join 2 3\n"
                                         "7 tail_join 5 3");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  const char *chain[] = { "yes_next", "yes_last" };

  write_scripts (wf, "yes no yes_next yes_last join tail_join");
  write_script (wf, "score", NULL, SCORE_IS (7));

  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 6, 0, 1, 0);
  assert_runs (wf, "join score tail_join yes yes_last yes_next");
  sk_test_assert_contains (output_of (wf, "join"), "received no={} yes=yes-value");
  sk_test_assert_contains (output_of (wf, "tail_join"), "received no={} yes_last=yes_last-value");

  /* The other way: the chain is skipped, though its pickles from the run
   * before are still on disk, and the joins get {} for it. */
  write_script (wf, "score", NULL, SCORE_IS (0));
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 4, 0, 3, 0);
  assert_runs (wf, "join no score tail_join");
  g_assert_cmpint (state_of (wf, "yes"), ==, SK_NODE_STATE_SKIPPED);
  sk_test_assert_contains (error_of (wf, "yes"), "Condition not met");
  assert_no_output (wf, "yes");
  for (guint i = 0; i < G_N_ELEMENTS (chain); i++)
    {
      g_assert_cmpint (state_of (wf, chain[i]), ==, SK_NODE_STATE_SKIPPED);
      g_assert_cmpstr (error_of (wf, chain[i]), ==, "Skipped: every step before it was skipped.");
      assert_no_output (wf, chain[i]);
    }
  g_assert_true (sk_test_exists (wf->folder, "yes_last/yes_last.pkl") ||
                 GPOINTER_TO_INT (data) == MODE_IN_MEMORY);
  sk_test_assert_contains (output_of (wf, "join"), "received no=no-value yes={}");
  sk_test_assert_contains (output_of (wf, "tail_join"), "received no=no-value yes_last={}");
}

/* Conditions on a prior that failed, or that declined in its preprocess(),
 * are not tried; their steps are skipped, and so is what needs only them. */
static void
test_when_failed_prior (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ("1 broken\n"
                                         "2 a 1 | {\"when\": {\"1\": \"output['score'] > 1\"}}\n"
                                         "3 b 1 | {\"when\": {\"1\": \"default\"}}\n"
                                         "4 after_a 2\n"
                                         "5 declines\n"
                                         "6 c 5 | {\"when\": {\"5\": \"default\"}}");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  const char *after_broken[] = { "a", "b" };

  write_scripts (wf, "a b after_a c");
  write_script (wf, "broken", NULL, "    raise RuntimeError(\"no data today\")");
  write_script (wf, "declines", "    return False", NULL);

  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 0, 1, 5, 0);
  assert_runs (wf, "broken declines");

  for (guint i = 0; i < G_N_ELEMENTS (after_broken); i++)
    {
      g_assert_cmpint (state_of (wf, after_broken[i]), ==, SK_NODE_STATE_SKIPPED);
      g_assert_true (g_str_has_prefix (error_of (wf, after_broken[i]), "Not run: the condition"));
      sk_test_assert_contains (error_of (wf, after_broken[i]), "“broken”");
      assert_no_output (wf, after_broken[i]);
    }
  g_assert_cmpstr (error_of (wf, "after_a"), ==, "Skipped: every step before it was skipped.");
  /* A step whose only prior declined is skipped as any such step is. */
  g_assert_cmpint (state_of (wf, "c"), ==, SK_NODE_STATE_SKIPPED);
  g_assert_cmpstr (error_of (wf, "c"), ==, "Skipped: every step before it was skipped.");
}

/* "Failed: …" in the output text ------------------------------------------ */

static void
test_failed_text (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ("1 divides\n"
                                         "2 prepares\n"
                                         "3 exits\n"
                                         "4 refuses\n"
                                         "5 missing\n"
                                         "6 score\n"
                                         "7 bad_condition 6 | {\"when\": {\"6\": \"output['x'] > 1\"}}\n"
                                         "8 unpicklable");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *saved = NULL;
  g_autofree char *missing = NULL;
  gboolean in_memory = GPOINTER_TO_INT (data) == MODE_IN_MEMORY;

  write_script (wf, "divides", NULL,
                "    report(\"dividing the totals\")\n"
                "    state[\"output\"] = {\"task_status\": \"success\", \"value\": 1 / 0}");
  write_script (wf, "prepares", "    raise ValueError(\"no input file\")", NULL);
  write_script (wf, "exits", NULL, "    sys.exit(3)");
  write_script (wf, "refuses", NULL,
                "    state[\"output\"] = {\"task_status\": \"failed\",\n"
                "                       \"error_log\": \"sales.csv has no column units\"}\n"
                "    report(\"Task failed\")");
  write_script (wf, "score", NULL, SCORE_IS (7));
  write_script (wf, "bad_condition", NULL, NULL);
  write_script (wf, "unpicklable", NULL,
                "    state[\"output\"] = {\"task_status\": \"success\", \"double\": lambda x: x * 2}");

  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, in_memory ? 2 : 1, in_memory ? 5 : 6, 0, 0);
  g_assert_cmpuint (outcome.stats.no_code, ==, 1);

  assert_failed_text (wf, "divides", "ZeroDivisionError: division by zero in compute()");
  g_assert_true (g_str_has_prefix (output_of (wf, "divides"),
                                   "task divides\nreceived \ndividing the totals\nFailed: "));
  assert_failed_text (wf, "prepares", "ValueError: no input file in preprocess()");
  assert_failed_text (wf, "exits", "exit(3)");
  assert_failed_text (wf, "refuses", "sales.csv has no column units");
  sk_test_assert_contains (output_of (wf, "refuses"), "Task failed\nFailed: ");
  assert_failed_text (wf, "bad_condition", "KeyError: 'x'");

  /* The in-memory mode does not pickle, so only the isolated one fails in
   * save(). */
  if (in_memory)
    g_assert_cmpint (state_of (wf, "unpicklable"), ==, SK_NODE_STATE_SUCCEEDED);
  else
    assert_failed_text (wf, "unpicklable", " in save()");

  /* A step without code says so, without "Failed:". */
  g_assert_cmpint (state_of (wf, "missing"), ==, SK_NODE_STATE_NO_CODE);
  missing = g_strdup (output_of (wf, "missing"));
  g_strchomp (missing);
  g_assert_cmpstr (missing, ==, error_of (wf, "missing"));
  sk_test_assert_contains (missing, "no code");
  g_assert_false (g_str_has_prefix (missing, "Failed:"));

  /* The texts are what process.json keeps. */
  saved = sk_project_to_data (wf->project, NULL);
  sk_test_assert_contains (saved, "Failed: ZeroDivisionError: division by zero in compute()");
  sk_test_assert_contains (saved, "Failed: ValueError: no input file in preprocess()");
}

static void
test_failed_text_timeout (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ("1 hang");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };

  write_script (wf, "hang", NULL, SK_TEST_HANG);
  sk_runner_set_timeout (runner, 1);
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 0, 1, 0, 0);
  assert_failed_text (wf, "hang", "longer than 1 second");
  g_assert_true (g_str_has_prefix (output_of (wf, "hang"), "task hang\n"));
  g_assert_true (sk_test_processes_gone_in (wf->folder));
}

static void
test_failed_text_exit_process (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new ("1 quits");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };

  write_script (wf, "quits", NULL, "    os._exit(3)");
  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 0, 1, 0, 0);
  assert_failed_text (wf, "quits", "");
  g_assert_true (g_str_has_prefix (output_of (wf, "quits"), "task quits\n"));
}

/* For each ----------------------------------------------------------------- */

static const char foreach_spec[] =
  "1 src\n"
  "2 each 1 | {\"foreach\": {\"prior\": \"1\", \"path\": \"data.files\"}}\n"
  "3 join 2\n";

/* Each item works in its own folder, KEY/items/N, which is all it may
 * change in a sandbox: it counts its runs there. */
static const char foreach_script[] =
  "import os\n"
  "import pickle\n"
  "\n"
  "state = {}\n"
  "\n"
  "\n"
  "def preprocess(prior_outputs):\n"
  "    with open(\"each_summary.txt\", \"w\") as f:\n"
  "        f.write(\"do one item\\nitem %s at %d\\n\" % (state[\"item\"], state[\"item_index\"]))\n"
  "    with open(\"runs.txt\", \"a\") as f:\n"
  "        f.write(\"ran\\n\")\n"
  "    return True\n"
  "\n"
  "\n"
  "def compute():\n"
  "    if state[\"item\"] == \"bad\":\n"
  "        raise ValueError(\"bad item\")\n"
  "    state[\"output\"] = {\"task_status\": \"success\", \"up\": state[\"item\"].upper()}\n"
  "\n"
  "\n"
  "def save():\n"
  "    with open(\"each.pkl\", \"wb\") as f:\n"
  "        pickle.dump(state[\"output\"], f)\n";

/* The list is in the script, so that changing it changes the step. */
static void
set_list (Workflow   *wf,
          const char *list)
{
  g_autofree char *compute = g_strdup_printf ("    state[\"output\"] = {\"task_status\": \"success\", "
                                              "\"data\": {\"files\": %s}}\n"
                                              "    report(\"listed\")", list);

  write_script (wf, "src", NULL, compute);
}

#define JOIN_COMPUTE \
  "    each = state[\"local\"][\"priors\"][\"each\"]\n" \
  "    report(\"joined \" + \",\".join(i.get(\"up\", \"{}\") for i in each.get(\"items\", [])))\n" \
  "    state[\"output\"] = {\"task_status\": \"success\"}"

static Workflow *
foreach_workflow (const char *list)
{
  Workflow *wf = workflow_new (foreach_spec);

  set_list (wf, list);
  sk_test_write_text (wf->folder, "each/each.py", foreach_script);
  write_script (wf, "join", NULL, JOIN_COMPUTE);
  return wf;
}

static guint
item_runs (Workflow *wf,
           guint     index)
{
  g_autofree char *relative = g_strdup_printf ("each/items/%u/runs.txt", index);
  g_autofree char *text = NULL;
  guint count = 0;

  if (!sk_test_exists (wf->folder, relative))
    return 0;

  text = sk_test_read_text (wf->folder, relative);
  for (const char *p = text; (p = strstr (p, "ran\n")) != NULL; p++)
    count++;
  return count;
}

static void
assert_output_ends_with (Workflow   *wf,
                         const char *key,
                         const char *end)
{
  g_autofree char *text = g_strchomp (g_strdup (output_of (wf, key)));

  if (!g_str_has_suffix (text, end))
    g_error ("The output text of “%s” does not end with “%s”:\n%s", key, end, text);
}

static void
test_foreach_items (gconstpointer data)
{
  g_autoptr(Workflow) wf = foreach_workflow ("[\"a\", \"b\", \"c\"]");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  gboolean isolated = GPOINTER_TO_INT (data) == MODE_ISOLATED;

  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 3, 0, 0, 0);
  g_assert_cmpint (state_of (wf, "each"), ==, SK_NODE_STATE_SUCCEEDED);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpuint (item_runs (wf, i), ==, 1);
  sk_test_assert_contains (output_of (wf, "each"), "Ran for each of 3 items: 3 ran");
  sk_test_assert_contains (output_of (wf, "each"), "Item 2: item b at 1");
  sk_test_assert_contains (output_of (wf, "join"), "joined A,B,C");
  g_assert_true (sk_test_exists (wf->folder, "each/items/2/runs.txt"));
  g_assert_true (g_strv_contains (sk_node_get_output_files (node (wf, "each")), "items/0/runs.txt"));

  /* Adding an item runs that item only; the others keep their results,
   * which only the isolated mode saves. */
  set_list (wf, "[\"a\", \"b\", \"c\", \"d\"]");
  run_workflow (runner, wf, &outcome);
  g_assert_cmpint (state_of (wf, "each"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpuint (item_runs (wf, 3), ==, 1);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpuint (item_runs (wf, i), ==, isolated ? 1 : 2);
  if (isolated)
    sk_test_assert_contains (output_of (wf, "each"), "Ran for each of 4 items: 1 ran, 3 up to date");
  sk_test_assert_contains (output_of (wf, "join"), "joined A,B,C,D");

  /* Nothing changed: the step and its successor are up to date. */
  if (isolated)
    {
      run_workflow (runner, wf, &outcome);
      g_assert_cmpint (state_of (wf, "each"), ==, SK_NODE_STATE_UP_TO_DATE);
      g_assert_cmpint (state_of (wf, "join"), ==, SK_NODE_STATE_UP_TO_DATE);
      for (guint i = 0; i < 4; i++)
        g_assert_cmpuint (item_runs (wf, i), ==, 1);
    }

  /* Removing items removes their outputs. */
  set_list (wf, "[\"a\", \"b\"]");
  run_workflow (runner, wf, &outcome);
  g_assert_cmpint (state_of (wf, "each"), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_false (sk_test_exists (wf->folder, "each/items/2"));
  g_assert_false (sk_test_exists (wf->folder, "each/items/3"));
  sk_test_assert_contains (output_of (wf, "join"), "joined A,B");
  g_assert_null (strstr (output_of (wf, "join"), "joined A,B,"));
}

static void
test_foreach_failed_item (gconstpointer data)
{
  g_autoptr(Workflow) wf = foreach_workflow ("[\"a\", \"bad\", \"c\"]");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };

  run_workflow (runner, wf, &outcome);
  g_assert_cmpint (state_of (wf, "each"), ==, SK_NODE_STATE_FAILED);
  g_assert_cmpstr (error_of (wf, "each"), ==,
                   "Item 2 of 3 failed: ValueError: bad item in compute()");
  assert_failed_text (wf, "each", "Item 2 of 3 failed: ValueError: bad item in compute()");
  sk_test_assert_contains (output_of (wf, "each"), "2 ran, 0 up to date, 0 skipped, 1 failed.");

  /* A failed prior reaches its successor as {}, as any failed step does. */
  g_assert_cmpint (state_of (wf, "join"), ==, SK_NODE_STATE_SUCCEEDED);
  assert_output_ends_with (wf, "join", "joined");
}

static void
test_foreach_not_a_list (gconstpointer data)
{
  g_autoptr(Workflow) wf = foreach_workflow ("\"just one\"");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };

  run_workflow (runner, wf, &outcome);
  g_assert_cmpint (state_of (wf, "each"), ==, SK_NODE_STATE_FAILED);
  g_assert_cmpstr (error_of (wf, "each"), ==,
                   "“data.files” in the output of “src” is a str, not a list, so there is "
                   "nothing to run this step for each of.");
  g_assert_false (sk_test_exists (wf->folder, "each/items"));
}

static void
test_foreach_empty (gconstpointer data)
{
  g_autoptr(Workflow) wf = foreach_workflow ("[]");
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };

  run_workflow (runner, wf, &outcome);
  g_assert_cmpint (state_of (wf, "each"), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (output_of (wf, "each"), "Ran for each of 0 items");
  assert_output_ends_with (wf, "join", "joined");
}

/* Sub-workflows ------------------------------------------------------------ */

static const char subflow_spec[] =
  "1 src\n"
  "2 flow 1 | {\"workflow\": \"inner\"}\n"
  "3 use 2\n";

#define DOUBLE_COMPUTE \
  "    n = state[\"local\"][\"priors\"][\"inputs\"][\"src\"][\"n\"]\n" \
  "    report(\"doubled \" + str(n))\n" \
  "    state[\"output\"] = {\"task_status\": \"success\", \"n\": n * 2}"

#define ANSWER_COMPUTE \
  "    n = state[\"local\"][\"priors\"][\"double\"][\"n\"]\n" \
  "    report(\"answer \" + str(n))\n" \
  "    state[\"output\"] = {\"task_status\": \"success\", \"answer\": n}"

#define USE_COMPUTE \
  "    flow = state[\"local\"][\"priors\"][\"flow\"]\n" \
  "    report(\"used \" + str(flow[\"answer\"][\"answer\"]) + \" \" + flow[\"task_status\"])\n" \
  "    state[\"output\"] = {\"task_status\": \"success\"}"

static void
set_number (Workflow *wf,
            int       n)
{
  g_autofree char *compute = g_strdup_printf ("    state[\"output\"] = {\"task_status\": \"success\", "
                                              "\"n\": %d}\n    report(\"gave\")", n);

  write_script (wf, "src", NULL, compute);
}

static void
test_subflow (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new (subflow_spec);
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *inner = g_build_filename (wf->folder, "inner", NULL);
  g_autofree char *inner_runs = NULL;
  gboolean isolated = GPOINTER_TO_INT (data) == MODE_ISOLATED;

  g_mkdir_with_parents (inner, 0755);
  write_process (inner, "1 double\n2 answer 1\n");
  sk_test_write_script (inner, script_template, "double", "    pass", DOUBLE_COMPUTE);
  sk_test_write_script (inner, script_template, "answer", "    pass", ANSWER_COMPUTE);
  set_number (wf, 21);
  write_script (wf, "use", NULL, USE_COMPUTE);

  run_workflow (runner, wf, &outcome);
  assert_stats (&outcome.stats, 3, 0, 0, 0);
  sk_test_assert_contains (output_of (wf, "flow"), "Ran the workflow in “inner”: 2 succeeded");
  sk_test_assert_contains (output_of (wf, "flow"), "\nanswer: ");
  sk_test_assert_contains (output_of (wf, "use"), "used 42 success");
  inner_runs = sk_test_take_runs (inner);
  g_assert_cmpstr (inner_runs, ==, "answer double");

  /* Nothing changed: nothing runs inside either. */
  if (isolated)
    {
      g_autofree char *again = NULL;

      run_workflow (runner, wf, &outcome);
      assert_stats (&outcome.stats, 0, 0, 0, 3);
      again = sk_test_take_runs (inner);
      g_assert_cmpstr (again, ==, "");
    }

  /* A change before the step reaches the steps inside. */
  set_number (wf, 5);
  run_workflow (runner, wf, &outcome);
  g_assert_cmpint (state_of (wf, "flow"), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (output_of (wf, "use"), "used 10 success");
}

static void
test_subflow_failure (gconstpointer data)
{
  g_autoptr(Workflow) wf = workflow_new (subflow_spec);
  g_autoptr(SkRunner) runner = new_runner (data);
  g_auto(Outcome) outcome = { 0 };
  g_autofree char *inner = g_build_filename (wf->folder, "inner", NULL);

  g_mkdir_with_parents (inner, 0755);
  write_process (inner, "1 double\n2 answer 1\n");
  sk_test_write_script (inner, script_template, "double", "    pass", DOUBLE_COMPUTE);
  sk_test_write_script (inner, script_template, "answer", "    pass", "    1 / 0");
  set_number (wf, 21);
  write_script (wf, "use", NULL, USE_COMPUTE);

  run_workflow (runner, wf, &outcome);
  assert_failed_text (wf, "flow", "“answer” in the workflow “inner” failed: ZeroDivisionError: "
                                  "division by zero in compute()");

  /* A workflow that cannot be read is a clear failure too. */
  sk_test_write_text (inner, "process.json", "{\"nodes\": ");
  run_workflow (runner, wf, &outcome);
  assert_failed_text (wf, "flow", "The workflow in “inner” could not be read");
}

static void
add_test (const char *path,
          GTestDataFunc test)
{
  g_autofree char *isolated = g_strconcat ("/runner-flow/", path, "/isolated", NULL);
  g_autofree char *in_memory = g_strconcat ("/runner-flow/", path, "/in-memory", NULL);

  g_test_add_data_func (isolated, GINT_TO_POINTER (MODE_ISOLATED), test);
  g_test_add_data_func (in_memory, GINT_TO_POINTER (MODE_IN_MEMORY), test);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *python3 = g_find_program_in_path ("python3");
  int status;

  g_test_init (&argc, &argv, NULL);

  if (python3 == NULL)
    {
      g_test_skip ("python3 is not installed");
      return g_test_run ();
    }
  python_path = sk_test_find_python ();

  add_test ("gate/stop", test_gate_stop);
  add_test ("gate/resume", test_gate_resume);
  add_test ("gate/re-ask", test_gate_reask);
  add_test ("gate/deny", test_gate_deny);
  add_test ("gate/approve-up-front", test_gate_approve_up_front);
  add_test ("gate/approve-one-go", test_gate_approve_one_go);
  add_test ("when/first-true", test_when_first_true);
  add_test ("when/default", test_when_default);
  add_test ("when/raising", test_when_raising);
  add_test ("when/skip-propagation", test_when_skip_propagation);
  add_test ("when/failed-prior", test_when_failed_prior);
  add_test ("failed-text/kinds", test_failed_text);
  add_test ("failed-text/timeout", test_failed_text_timeout);
  add_test ("failed-text/exit-process", test_failed_text_exit_process);
  add_test ("foreach/items", test_foreach_items);
  add_test ("foreach/failed-item", test_foreach_failed_item);
  add_test ("foreach/not-a-list", test_foreach_not_a_list);
  add_test ("foreach/empty", test_foreach_empty);
  add_test ("subflow/inputs-outputs", test_subflow);
  add_test ("subflow/failure", test_subflow_failure);

  status = g_test_run ();
  g_free (python_path);
  return status;
}
