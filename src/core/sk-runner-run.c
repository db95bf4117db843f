/* sk-runner-run.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-runner"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#include "sk-agent.h"
#include "sk-control-flow.h"
#include "sk-harness.h"
#include "sk-json.h"
#include "sk-process.h"
#include "sk-run-record.h"
#include "sk-runner-private.h"
#include "sk-sandbox.h"
#include "sk-step-folder.h"
#include "sk-util.h"

/* One run in progress: it schedules the nodes, lets the coding agent write
 * and repair their scripts, and turns what the harness reports into the
 * nodes' states. What a run leaves on disk is sk-run-record's; starting
 * Python and talking to it is sk-harness's; SkRunner's own file holds the
 * object and its API.
 */

#define WORKER_GRACE_SECONDS 3

typedef struct _Run Run;
typedef struct _NodeRun NodeRun;

struct _NodeRun
{
  Run             *run;
  SkNode          *node;
  char            *folder_path;
  char            *fingerprint;
  char            *missing_priors;
  char            *blocked_by;

  /* The gate waiting for approval that the node needs, through its priors. */
  char            *held_by;

  /* Of a node whose successors carry conditions on it: the successor
   * taken, the conditions that raised, by successor key, and why none
   * could be tried. */
  char            *branch_taken;
  JsonObject      *branch_errors;
  char            *branch_failure;

  /* A for-each step's items, each run as a NodeRun of its own in the
   * folder KEY/items/N with a node of its own (DESIGN §10). */
  NodeRun         *parent;
  guint            item_index;
  GPtrArray       *items;
  char            *item_fingerprint_base;
  guint            item_count;
  guint            items_pending;
  guint            items_ran;
  guint            items_skipped;
  guint            items_failed;
  char            *item_failure;
  char            *report;

  /* A command of the harness other than running the node (DESIGN §10). */
  SkHarnessLaunch *aux_launch;

  /* Of a step that stands for a sub-workflow: the workflow and the runner
   * that runs it. */
  SkProject       *subflow;
  SkRunner        *subflow_runner;
  SkRunStats       subflow_stats;
  void           (*aux_done) (NodeRun    *node_run,
                              JsonObject *report);
  SkHarnessSpec   *spec;
  char            *input_problem;
  GPtrArray       *successors;
  GHashTable      *snapshot;

  /* The record of the node's last run, read while the run got ready, for
   * the node's first start only. */
  JsonObject      *record;

  SkHarnessLaunch *launch;
  JsonObject      *result;
  char            *stderr_tail;
  gint64           started;
  gint64           ended;
  guint            timeout_id;
  guint            pending_priors;
  SkNodeState      final_state;

  /* The start of a character cut at the end of the last piece of each
   * output, which the next piece completes. */
  guint8           partial[2][4];
  guint            partial_len[2];

  /* The coding agent at work on the node, and the failure it repairs. */
  SkAgent         *agent;
  guint            repairs;
  char            *failure_text;
  char            *failure_detail;

  guint            selected : 1;
  guint            started_running : 1;
  guint            timed_out : 1;
  guint            finished : 1;
  guint            code_changed : 1;
  guint            upstream_changed : 1;
  guint            waiting : 1;
  guint            held : 1;
  guint            missing_unsettled : 1;
  guint            record_read : 1;
};

struct _Run
{
  SkRunner     *runner;
  SkProject    *project;
  GTask        *task;
  GCancellable *cancellable;
  GHashTable   *node_runs;
  GPtrArray    *order;
  GQueue        ready;
  char         *python;
  char         *harness;
  SkSandbox    *sandbox;
  SkRunStats    stats;
  gint64        started;
  gulong        cancelled_id;
  guint         running;
  guint         remaining;
  guint         jobs;

  /* The in-memory worker and the node it is running. */
  SkHarnessWorker *worker;
  NodeRun         *worker_node;
  NodeRun         *worker_aux;
  guint            worker_kill_id;
  char            *worker_failure;

  /* The fork server of the isolated mode, started with the first step. */
  SkHarnessServer *server;

  /* What the run waits for before its first step: the fingerprints and
   * the nodes' records, each read in a thread of its own. */
  SkFingerprints  *fingerprints;
  guint            getting_ready;

  guint         in_memory : 1;
  guint         saved : 1;
  guint         force : 1;
  guint         completing : 1;
  guint         generate_only : 1;
  guint         server_tried : 1;
};

static void schedule (Run *run);
static void complete_item (NodeRun     *item,
                           SkNodeState  state,
                           const char  *error_text,
                           const char  *detail);
static gboolean start_item (NodeRun *item);
static gboolean start_foreach (NodeRun *node_run);
static gboolean start_subflow (NodeRun *node_run);
static gboolean needs_branches (NodeRun *node_run);
static void start_branches (NodeRun *node_run);
static void finish_node (NodeRun *node_run);
static gboolean start_node (NodeRun *node_run);
static void start_agent (NodeRun    *node_run,
                         const char *traceback,
                         const char *stderr_tail);

static void
set_state (Run         *run,
           SkNode      *node,
           SkNodeState  state)
{
  sk_node_set_state (node, state);
  _sk_runner_emit_node_state_changed (run->runner, node, state);
}

/* Clears what one run of the node's script left: its process, logs and
 * result. */
static void
node_run_clear_process (NodeRun *node_run)
{
  g_clear_handle_id (&node_run->timeout_id, g_source_remove);
  if (node_run->launch != NULL)
    sk_harness_launch_set_output_func (node_run->launch, NULL, NULL, NULL);
  g_clear_object (&node_run->launch);
  memset (node_run->partial_len, 0, sizeof node_run->partial_len);
  g_clear_pointer (&node_run->snapshot, g_hash_table_unref);
  g_clear_pointer (&node_run->result, json_object_unref);
  g_clear_pointer (&node_run->stderr_tail, g_free);
}

static void
node_run_free (NodeRun *node_run)
{
  node_run_clear_process (node_run);
  g_clear_object (&node_run->node);
  g_clear_pointer (&node_run->folder_path, g_free);
  g_clear_pointer (&node_run->record, json_object_unref);
  g_clear_pointer (&node_run->fingerprint, g_free);
  g_clear_pointer (&node_run->missing_priors, g_free);
  g_clear_pointer (&node_run->blocked_by, g_free);
  g_clear_pointer (&node_run->held_by, g_free);
  g_clear_pointer (&node_run->branch_taken, g_free);
  g_clear_pointer (&node_run->branch_errors, json_object_unref);
  g_clear_pointer (&node_run->branch_failure, g_free);
  g_clear_object (&node_run->aux_launch);
  g_clear_object (&node_run->subflow);
  g_clear_object (&node_run->subflow_runner);
  g_clear_pointer (&node_run->items, g_ptr_array_unref);
  g_clear_pointer (&node_run->item_fingerprint_base, g_free);
  g_clear_pointer (&node_run->item_failure, g_free);
  g_clear_pointer (&node_run->report, g_free);
  g_clear_pointer (&node_run->spec, sk_harness_spec_free);
  g_clear_pointer (&node_run->input_problem, g_free);
  g_clear_pointer (&node_run->successors, g_ptr_array_unref);
  if (node_run->agent != NULL)
    g_signal_handlers_disconnect_by_data (node_run->agent, node_run);
  g_clear_object (&node_run->agent);
  g_clear_pointer (&node_run->failure_text, g_free);
  g_clear_pointer (&node_run->failure_detail, g_free);
  g_free (node_run);
}

static void
run_free (Run *run)
{
  g_clear_handle_id (&run->worker_kill_id, g_source_remove);
  if (run->cancelled_id != 0)
    g_cancellable_disconnect (run->cancellable, run->cancelled_id);
  g_queue_clear (&run->ready);
  g_clear_pointer (&run->node_runs, g_hash_table_unref);
  g_clear_pointer (&run->order, g_ptr_array_unref);
  g_clear_object (&run->worker);
  g_clear_object (&run->server);
  g_clear_pointer (&run->fingerprints, sk_fingerprints_free);
  g_clear_object (&run->cancellable);
  g_clear_object (&run->project);
  g_clear_object (&run->runner);
  g_clear_pointer (&run->python, g_free);
  g_clear_pointer (&run->harness, g_free);
  g_clear_pointer (&run->sandbox, sk_sandbox_unref);
  g_clear_pointer (&run->worker_failure, g_free);
  g_free (run);
}

/* Finishing a node ------------------------------------------------------- */

static const char *
state_status (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_SUCCEEDED: return "success";
    case SK_NODE_STATE_SKIPPED: return "skipped";
    case SK_NODE_STATE_CANCELLED: return "cancelled";
    default: return "failed";
    }
}

static char *
compose_detail (const char *traceback,
                const char *stderr_tail)
{
  GString *detail = g_string_new (NULL);

  if (traceback != NULL && traceback[0] != '\0')
    g_string_append (detail, traceback);

  if (stderr_tail != NULL && stderr_tail[0] != '\0')
    {
      if (detail->len > 0)
        g_string_append (detail, "\n");
      g_string_append (detail, _("End of the error output:"));
      g_string_append_c (detail, '\n');
      g_string_append (detail, stderr_tail);
    }

  if (detail->len == 0)
    {
      g_string_free (detail, TRUE);
      return NULL;
    }

  if (!g_utf8_validate (detail->str, detail->len, NULL))
    {
      char *valid = g_utf8_make_valid (detail->str, detail->len);

      g_string_free (detail, TRUE);
      return valid;
    }

  return g_string_free (detail, FALSE);
}

/* A result made without some of the priors' outputs is not the one the
 * step gives once they are there, though its inputs have not changed: its
 * fingerprint says which were missing, so that it is up to date only while
 * they still are.
 */
static char *
expected_fingerprint (NodeRun *node_run)
{
  if (node_run->fingerprint == NULL || node_run->missing_priors == NULL)
    return g_strdup (node_run->fingerprint);

  return g_strconcat (node_run->fingerprint, " without ", node_run->missing_priors, NULL);
}

static gboolean
write_record_full (NodeRun     *node_run,
                   const char  *status,
                   gboolean     in_memory,
                   const char  *error_text,
                   const char  *detail,
                   GError     **error)
{
  g_autofree char *fingerprint = NULL;
  gint64 ended = node_run->ended != 0 ? node_run->ended : g_get_monotonic_time ();
  SkRunRecord record = {
    .status = status,
    .fingerprint = node_run->fingerprint,
    .in_memory = in_memory,
    .seconds = (ended - node_run->started) / (double) G_USEC_PER_SEC,
    .error = error_text,
    .detail = detail,
    .output_keys = sk_json_get_member (node_run->result, "output_keys"),
  };

  record.fingerprint = fingerprint = expected_fingerprint (node_run);

  return sk_run_record_write (node_run->folder_path, node_run->node, &record, error);
}

static gboolean
write_record (NodeRun     *node_run,
              const char  *status,
              const char  *error_text,
              const char  *detail,
              GError     **error)
{
  return write_record_full (node_run, status, node_run->run->in_memory, error_text, detail, error);
}

/* Lets the successors of @node_run go on once it is over, and what it
 * says of the run, a step without code or a gate that waits, reach them.
 */
static void
release_successors (NodeRun *node_run)
{
  Run *run = node_run->run;
  SkNodeState state = node_run->final_state;

  for (guint i = 0; i < node_run->successors->len; i++)
    {
      NodeRun *next = g_ptr_array_index (node_run->successors, i);

      if (node_run->code_changed || node_run->upstream_changed)
        next->upstream_changed = TRUE;

      /* Running a step without the outputs of one that has no code yet
       * would only fail in its place; it waits for that code. */
      if (next->blocked_by == NULL && state == SK_NODE_STATE_NO_CODE)
        next->blocked_by = g_strdup (sk_node_get_name (node_run->node));
      else if (next->blocked_by == NULL && node_run->blocked_by != NULL)
        next->blocked_by = g_strdup (node_run->blocked_by);

      /* Nothing after a gate runs before someone decides on it. */
      if (next->held_by == NULL && state == SK_NODE_STATE_AWAITING_APPROVAL)
        next->held_by = g_strdup (sk_node_get_name (node_run->node));
      else if (next->held_by == NULL && node_run->held_by != NULL)
        next->held_by = g_strdup (node_run->held_by);

      g_assert (next->pending_priors > 0);
      if (--next->pending_priors == 0)
        g_queue_push_tail (&run->ready, next);
    }
}

/* A step's output text is its report; one that failed says why at its
 * end, so that the workflow's file alone tells a reader what happened
 * (DESIGN §4). */
static void
set_output_text (NodeRun     *node_run,
                 SkNodeState  state,
                 const char  *summary,
                 const char  *error_text)
{
  g_autoptr(GString) text = g_string_new (summary);

  if ((state == SK_NODE_STATE_FAILED || state == SK_NODE_STATE_NO_CODE) && error_text != NULL)
    {
      while (text->len > 0 && g_ascii_isspace (text->str[text->len - 1]))
        g_string_truncate (text, text->len - 1);
      if (text->len > 0)
        g_string_append_c (text, '\n');
      if (state == SK_NODE_STATE_FAILED)
        /* Translators: %s says why a step failed. */
        g_string_append_printf (text, _("Failed: %s"), error_text);
      else
        g_string_append (text, error_text);
      g_string_append_c (text, '\n');
    }

  sk_node_set_output_text (node_run->node, text->str);
}

static void
complete_node (NodeRun     *node_run,
               SkNodeState  state,
               const char  *error_text,
               const char  *detail)
{
  Run *run = node_run->run;
  const char *key = sk_node_get_key (node_run->node);
  g_autofree char *own_error = NULL;

  g_assert (!node_run->finished);

  node_run->finished = TRUE;
  node_run->ended = g_get_monotonic_time ();

  if (node_run->started_running)
    {
      g_autoptr(GError) summary_error = NULL;
      g_autoptr(GError) record_error = NULL;
      g_auto(GStrv) files = NULL;
      g_autofree char *summary = NULL;

      files = sk_run_record_changed_files (node_run->folder_path, key,
                                           sk_node_get_input_files (node_run->node),
                                           node_run->snapshot);
      summary = sk_run_record_read_summary (node_run->folder_path, key, node_run->snapshot,
                                            &summary_error);

      /* A summary that is a link is refused rather than followed. */
      if (summary_error != NULL && state != SK_NODE_STATE_FAILED &&
          state != SK_NODE_STATE_CANCELLED)
        {
          state = SK_NODE_STATE_FAILED;
          error_text = own_error = g_strdup (summary_error->message);
        }

      sk_node_set_output_files (node_run->node, (const char * const *) files);
      set_output_text (node_run, state, summary, error_text);

      /* The record is written once the outputs are complete, and only a
       * record vouches for them: a step whose result could not be recorded
       * has failed, since its successors could not tell its outputs from
       * half-written ones.
       */
      if (!write_record (node_run, state_status (state), error_text, detail, &record_error) &&
          state != SK_NODE_STATE_FAILED && state != SK_NODE_STATE_CANCELLED)
        {
          state = SK_NODE_STATE_FAILED;
          g_free (own_error);
          error_text = own_error = g_strdup_printf (_("The step ran, but its result could not "
                                                      "be recorded: %s"),
                                                    record_error->message);
        }
    }
  else if (state == SK_NODE_STATE_NO_CODE)
    {
      /* The outputs an earlier script left are not this step's any more. */
      set_output_text (node_run, state, node_run->report, error_text);
      sk_run_record_withdraw (node_run->folder_path, key, NULL);
    }
  else if (state == SK_NODE_STATE_SKIPPED && error_text != NULL)
    {
      /* A step the control flow or a gate kept from running has no output
       * of this run; what an earlier run left would pass for it. One that
       * only waits, for code or for a decision, keeps its last result
       * on disk until it runs, and a denied gate what it waited for, so
       * that the decision can be taken again. */
      sk_node_set_output_text (node_run->node, "");
      sk_node_set_output_files (node_run->node, NULL);
      if (!node_run->waiting && !node_run->held && !run->generate_only &&
          !sk_node_get_approval (node_run->node) &&
          !write_record (node_run, state_status (state), error_text, NULL, NULL))
        sk_run_record_withdraw (node_run->folder_path, key, NULL);
    }
  else if (state == SK_NODE_STATE_FAILED)
    {
      set_output_text (node_run, state, node_run->report, error_text);
      /* An earlier successful record would let successors read a pickle
       * that no longer matches this node; one that cannot be replaced is
       * withdrawn.
       */
      if (!write_record (node_run, state_status (state), error_text, detail, NULL))
        sk_run_record_withdraw (node_run->folder_path, key, NULL);
    }

  node_run->final_state = state;
  sk_node_set_error (node_run->node, error_text, detail);

  switch (state)
    {
    case SK_NODE_STATE_SUCCEEDED: run->stats.succeeded++; break;
    case SK_NODE_STATE_SKIPPED:
      if (node_run->waiting)
        run->stats.waiting++;
      else if (node_run->held)
        run->stats.held++;
      else
        run->stats.skipped++;
      break;
    case SK_NODE_STATE_AWAITING_APPROVAL: run->stats.awaiting_approval++; break;
    case SK_NODE_STATE_NO_CODE: run->stats.no_code++; break;
    case SK_NODE_STATE_UP_TO_DATE: run->stats.up_to_date++; break;
    case SK_NODE_STATE_CANCELLED: run->stats.cancelled++; break;
    default: run->stats.failed++; break;
    }

  /* Writing code runs nothing: a node keeps showing whether it ran. */
  if (!run->generate_only)
    set_state (run, node_run->node, state);
  else if (state == SK_NODE_STATE_SUCCEEDED)
    set_state (run, node_run->node, SK_NODE_STATE_IDLE);
  else if (state != SK_NODE_STATE_UP_TO_DATE)
    set_state (run, node_run->node, state);

  /* The successors that carry conditions on the node wait until they are
   * tried on its output. */
  if (needs_branches (node_run))
    start_branches (node_run);
  else
    release_successors (node_run);

  g_assert (run->remaining > 0);
  run->remaining--;
}

/* The coding agent ---------------------------------------------------- */

static void
agent_progress_cb (SkAgent    *agent,
                   const char *message,
                   NodeRun    *node_run)
{
  _sk_runner_emit_agent_progress (node_run->run->runner, node_run->node, message);
}

static void
agent_transient_cb (SkAgent    *agent,
                    const char *message,
                    NodeRun    *node_run)
{
  _sk_runner_emit_agent_transient (node_run->run->runner, node_run->node, message);
}

/* An error that tells the user to check the model's name in Preferences
 * says which model was asked for, and where its name came from when that
 * was not Preferences. */
static char *
describe_agent_error (Run          *run,
                      const GError *error)
{
  SkRunner *self = run->runner;
  const char *model = sk_llm_client_get_model (self->agent);

  if (!g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_MODEL_NOT_FOUND))
    return g_strdup (error->message);

  if (self->model_source == SK_SETTING_SOURCE_ENVIRONMENT)
    /* Translators: the first %s is an error message, the second a model's
     * name and the third an environment variable, such as SKELE_LLM_MODEL. */
    return g_strdup_printf (_("%s The model “%s” is set by the environment variable %s, "
                              "which wins over Preferences: change or unset it."),
                            error->message, model,
                            sk_agent_setting_get_variable (SK_AGENT_SETTING_MODEL));

  if (self->model_source == SK_SETTING_SOURCE_COMMAND_LINE)
    /* Translators: the first %s is an error message, the second a model's name. */
    return g_strdup_printf (_("%s The model “%s” was given on the command line."),
                            error->message, model);

  return g_strdup (error->message);
}

static void
agent_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  NodeRun *node_run = user_data;
  Run *run = node_run->run;
  g_autoptr(GError) error = NULL;
  g_autofree char *summary = NULL;

  summary = sk_agent_run_finish (SK_AGENT (object), result, &error);
  g_signal_handlers_disconnect_by_data (object, node_run);
  g_clear_object (&node_run->agent);
  run->running--;

  if (summary == NULL)
    {
      g_autofree char *message = NULL;
      SkNodeState state = SK_NODE_STATE_FAILED;

      g_autofree char *reason = describe_agent_error (run, error);
      g_autofree char *outcome = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          state = SK_NODE_STATE_CANCELLED;
          message = g_strdup (_("The run was stopped while the coding agent was at work."));
          outcome = g_strdup (message);
        }
      else if (node_run->failure_text != NULL)
        {
          message = g_strdup_printf (_("%s The coding agent could not repair it: %s"),
                                     node_run->failure_text, reason);
          outcome = g_strdup_printf (_("The coding agent could not repair the script: %s"), reason);
        }
      else
        {
          message = g_strdup_printf (_("The coding agent could not write this step’s code: %s"),
                                     reason);
          outcome = g_strdup (message);
        }

      /* The agent's lines end with its outcome, not with a wait it was in. */
      _sk_runner_emit_agent_progress (run->runner, node_run->node, outcome);
      complete_node (node_run, state, message, node_run->failure_detail);
      schedule (run);
      return;
    }

  _sk_runner_emit_agent_progress (run->runner, node_run->node, summary);

  node_run->code_changed = TRUE;
  g_free (node_run->fingerprint);
  node_run->fingerprint = sk_runner_fingerprint (run->runner, run->project, node_run->node);

  if (run->generate_only)
    complete_node (node_run, SK_NODE_STATE_SUCCEEDED, NULL, NULL);
  else
    start_node (node_run);

  schedule (run);
}

static void
start_agent (NodeRun    *node_run,
             const char *traceback,
             const char *stderr_tail)
{
  Run *run = node_run->run;
  SkRunner *self = run->runner;
  g_autoptr(SkAgent) agent = sk_agent_new (self->agent, run->project, node_run->node);

  sk_agent_set_python (agent, run->python);
  sk_agent_set_max_steps (agent, self->agent_max_steps);
  sk_agent_set_sandbox (agent, SK_SANDBOX_AUTO, !self->require_sandbox, self->allow_network);
  if (self->review_commands)
    sk_agent_set_reviewer (agent, self->agent);
  if (node_run->repairs > 0)
    sk_agent_set_failure (agent, node_run->failure_text, traceback, stderr_tail,
                          node_run->repairs, self->repair_attempts);

  node_run->agent = g_object_ref (agent);
  g_signal_connect (agent, "progress", G_CALLBACK (agent_progress_cb), node_run);
  g_signal_connect (agent, "transient", G_CALLBACK (agent_transient_cb), node_run);

  run->running++;
  sk_node_set_error (node_run->node, NULL, NULL);
  set_state (run, node_run->node, SK_NODE_STATE_WRITING_CODE);
  sk_agent_run_async (agent, run->cancellable, agent_done_cb, node_run);
}

/* Clears what the failed run of @node_run left, and lets the agent repair
 * the script; the slot of the run stays taken.
 */
static void
start_repair (NodeRun    *node_run,
              const char *traceback_text,
              const char *stderr_tail)
{
  Run *run = node_run->run;
  /* The traceback lives in the result that is cleared below. */
  g_autofree char *traceback = g_strdup (traceback_text);

  node_run_clear_process (node_run);
  node_run->started_running = FALSE;
  node_run->timed_out = FALSE;

  run->running--;
  start_agent (node_run, traceback, stderr_tail);
}

/* Turns the harness's report, or its absence, into the node's state. */
static void
finish_node (NodeRun *node_run)
{
  Run *run = node_run->run;
  g_autofree char *error_text = NULL;
  g_autofree char *detail = NULL;
  const char *status = sk_json_get_string (node_run->result, "status");
  const char *traceback = sk_json_get_string (node_run->result, "traceback");
  SkNodeState state;

  g_clear_handle_id (&node_run->timeout_id, g_source_remove);

  if (node_run->timed_out)
    {
      state = SK_NODE_STATE_FAILED;
      error_text = g_strdup_printf (_("The step took longer than %g seconds and was stopped."),
                                    sk_runner_get_timeout (run->runner));
    }
  else if (g_cancellable_is_cancelled (run->cancellable))
    {
      state = SK_NODE_STATE_CANCELLED;
      error_text = g_strdup (_("The run was stopped before this step finished."));
    }
  else if (g_strcmp0 (status, "success") == 0)
    {
      state = SK_NODE_STATE_SUCCEEDED;
    }
  else if (g_strcmp0 (status, "skipped") == 0)
    {
      state = SK_NODE_STATE_SKIPPED;
    }
  else if (status != NULL)
    {
      const char *message = sk_json_get_string (node_run->result, "error");

      state = SK_NODE_STATE_FAILED;
      error_text = g_strdup (message != NULL ? message : _("The step failed."));
    }
  else if (run->in_memory && run->worker_failure != NULL)
    {
      state = SK_NODE_STATE_FAILED;
      error_text = g_strdup (run->worker_failure);
    }
  else
    {
      state = SK_NODE_STATE_FAILED;
      if (node_run->launch != NULL)
        error_text = sk_harness_launch_describe_end (node_run->launch);
      else
        error_text = g_strdup (_("The step ended without reporting a result."));

      /* With the disk full, the harness cannot even write its report; the
       * cause is in what Python said last. */
      if (node_run->stderr_tail != NULL &&
          strstr (node_run->stderr_tail, "No space left on device") != NULL)
        {
          g_autofree char *end = g_steal_pointer (&error_text);

          error_text = g_strdup_printf (_("The disk is full, so the step could not write its "
                                          "results. Free some space and run it again. %s"), end);
        }
    }

  if (state == SK_NODE_STATE_FAILED)
    detail = compose_detail (traceback, node_run->stderr_tail);

  if (node_run->parent != NULL)
    {
      run->running--;
      complete_item (node_run, state, error_text, detail);
      schedule (run);
      return;
    }

  if (state == SK_NODE_STATE_FAILED && run->runner->agent != NULL &&
      node_run->repairs < run->runner->repair_attempts &&
      !g_cancellable_is_cancelled (run->cancellable))
    {
      g_autofree char *stderr_tail = NULL;

      if (node_run->stderr_tail != NULL && node_run->stderr_tail[0] != '\0')
        stderr_tail = g_utf8_make_valid (node_run->stderr_tail, -1);

      /* The repaired script runs again in the same slot. */
      node_run->repairs++;
      g_free (node_run->failure_text);
      node_run->failure_text = g_strdup (error_text);
      g_free (node_run->failure_detail);
      node_run->failure_detail = g_strdup (detail);
      start_repair (node_run, traceback, stderr_tail);
      return;
    }

  run->running--;
  complete_node (node_run, state, error_text, detail);
  schedule (run);
}

/* Starting a node -------------------------------------------------------- */

/* Tells the harness where each prior's outputs are. */
static SkHarnessSpec *
build_spec_in (NodeRun    *node_run,
               const char *spec_folder)
{
  Run *run = node_run->run;
  g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (run->project, node_run->node);
  g_autofree char *workflow_path = g_file_get_path (sk_project_get_folder (run->project));
  SkHarnessSpec *spec;

  g_clear_pointer (&node_run->missing_priors, g_free);
  node_run->missing_unsettled = FALSE;
  spec = sk_harness_spec_new (workflow_path, spec_folder,
                              sk_node_get_key (node_run->node),
                              sk_runner_get_log_limit (run->runner));

  if (priors->len == 0 && run->runner->inputs != NULL)
    sk_harness_spec_set_member (spec, "inputs",
                                json_node_init_array (json_node_alloc (), run->runner->inputs));

  for (guint i = 0; i < priors->len; i++)
    {
      SkNode *prior = g_ptr_array_index (priors, i);
      NodeRun *prior_run = g_hash_table_lookup (run->node_runs, prior);
      SkHarnessPrior source = SK_HARNESS_PRIOR_NONE;

      /* A prior that did not complete in this run reaches the node as {},
       * even when an older pickle of it exists.
       */
      if (prior_run != NULL && prior_run->selected)
        {
          if (prior_run->final_state == SK_NODE_STATE_SUCCEEDED)
            source = run->in_memory ? SK_HARNESS_PRIOR_MEMORY : SK_HARNESS_PRIOR_FILE;
          else if (prior_run->final_state == SK_NODE_STATE_UP_TO_DATE)
            source = SK_HARNESS_PRIOR_FILE;
        }
      else
        {
          g_autoptr(GFile) folder = sk_project_get_node_folder (run->project, prior);
          g_autofree char *folder_path = folder != NULL ? g_file_get_path (folder) : NULL;
          g_autoptr(JsonObject) record = NULL;

          if (folder_path != NULL)
            record = sk_run_record_read (folder_path, sk_node_get_key (prior));
          if (folder_path != NULL &&
              sk_run_record_is_usable (record, folder_path, sk_node_get_key (prior), NULL))
            source = SK_HARNESS_PRIOR_FILE;
        }

      sk_harness_spec_add_prior (spec, sk_node_get_key (prior), source);

      if (source == SK_HARNESS_PRIOR_NONE)
        {
          g_autofree char *missing = node_run->missing_priors;

          /* A prior that was skipped, by its own choice, a condition or a
           * decision, would be skipped again with the same inputs; one that
           * failed or was stopped may give its outputs next time. */
          if (prior_run == NULL || !prior_run->selected ||
              prior_run->final_state != SK_NODE_STATE_SKIPPED ||
              prior_run->waiting || prior_run->held)
            node_run->missing_unsettled = TRUE;

          node_run->missing_priors = missing != NULL
            ? g_strconcat (missing, " ", sk_node_get_key (prior), NULL)
            : g_strdup (sk_node_get_key (prior));
        }
    }

  return spec;
}

static SkHarnessSpec *
build_spec (NodeRun *node_run)
{
  return build_spec_in (node_run, node_run->folder_path);
}

static void
launch_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  SkHarnessLaunch *launch = SK_HARNESS_LAUNCH (object);
  NodeRun *node_run = user_data;

  /* A stopped launch is done all the same; finish_node() tells the stop. */
  sk_harness_launch_wait_finish (launch, result, NULL);

  if (node_run->finished)
    return;

  node_run->result = sk_harness_launch_get_report (launch);
  node_run->stderr_tail = sk_harness_launch_get_stderr_tail (launch);
  finish_node (node_run);
}

/* What of the user's files outside the workflow a step may read: what its
 * permissions name, and the input files it lists there.
 */
static void
add_step_reads (NodeRun    *node_run,
                const char *workflow_path,
                GPtrArray  *read_only)
{
  SkNode *node = node_run->parent != NULL ? node_run->parent->node : node_run->node;
  g_auto(GStrv) reads = sk_node_get_read_paths (node);
  const char * const *inputs = sk_node_get_input_files (node);
  g_autofree char *workflow_real = realpath (workflow_path, NULL);
  g_autofree char *workflow_prefix = g_strconcat (workflow_real != NULL ? workflow_real : workflow_path,
                                                  "/", NULL);

  for (guint i = 0; reads[i] != NULL; i++)
    g_ptr_array_add (read_only, g_canonicalize_filename (reads[i], NULL));

  for (guint i = 0; inputs != NULL && inputs[i] != NULL; i++)
    {
      g_autofree char *path = g_canonicalize_filename (inputs[i], node_run->folder_path);
      g_autofree char *real = realpath (path, NULL);

      if (real != NULL && !g_str_has_prefix (real, workflow_prefix))
        g_ptr_array_add (read_only, g_steal_pointer (&real));
    }
}

/* What the sandbox shows: the workflow, read-only, the harness, and what
 * the steps added with run_mounts_add_step() may change and read. */
typedef struct
{
  SkSandboxMounts  mounts;
  char            *workflow_path;
} RunMounts;

static void
run_mounts_init (RunMounts *self,
                 Run       *run)
{
  self->workflow_path = g_file_get_path (sk_project_get_folder (run->project));
  self->mounts = (SkSandboxMounts) {
    .workflow_dir = self->workflow_path,
    .writable = g_ptr_array_new (),
    .read_only = g_ptr_array_new_with_free_func (g_free),
    .cwd = self->workflow_path,
    .network = sk_project_get_network (run->project),
  };
  g_ptr_array_add (self->mounts.read_only, g_strdup (run->harness));
  /* The harness's compiled form, from sk_harness_precompile(). */
  {
    g_autofree char *harness_folder = g_path_get_dirname (run->harness);
    g_autofree char *compiled = g_build_filename (harness_folder, "__pycache__", NULL);

    if (g_file_test (compiled, G_FILE_TEST_IS_DIR))
      g_ptr_array_add (self->mounts.read_only, g_steal_pointer (&compiled));
  }
  for (guint i = 0; run->runner->input_reads != NULL && run->runner->input_reads[i] != NULL; i++)
    g_ptr_array_add (self->mounts.read_only, g_strdup (run->runner->input_reads[i]));
}

static void
run_mounts_add_step (RunMounts *self,
                     NodeRun   *node_run)
{
  /* An item of a for-each has the permissions of its step. */
  SkNode *node = node_run->parent != NULL ? node_run->parent->node : node_run->node;

  g_ptr_array_add (self->mounts.writable, node_run->folder_path);
  self->mounts.network |= sk_node_get_network (node);
  add_step_reads (node_run, self->workflow_path, self->mounts.read_only);
}

static void
run_mounts_clear (RunMounts *self)
{
  g_clear_pointer (&self->mounts.writable, g_ptr_array_unref);
  g_clear_pointer (&self->mounts.read_only, g_ptr_array_unref);
  g_clear_pointer (&self->workflow_path, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RunMounts, run_mounts_clear)

/* Passes the step's output on as it comes, in valid UTF-8: a character cut
 * between two reads waits for its end, which is at most three bytes. */
static void
step_output_cb (SkProcess       *process,
                SkProcessOutput  output,
                const guint8    *data,
                gsize            size,
                gpointer         user_data)
{
  NodeRun *node_run = user_data;
  g_autoptr(GByteArray) bytes = g_byte_array_sized_new (size + 4);
  g_autofree char *text = NULL;
  const char *end = NULL;
  gsize rest;

  g_byte_array_append (bytes, node_run->partial[output], node_run->partial_len[output]);
  g_byte_array_append (bytes, data, size);
  node_run->partial_len[output] = 0;

  g_utf8_validate_len ((const char *) bytes->data, bytes->len, &end);
  rest = bytes->len - (gsize) ((const guint8 *) end - bytes->data);
  if (rest > 0 && rest < 4 &&
      g_utf8_get_char_validated (end, rest) == (gunichar) -2)
    {
      memcpy (node_run->partial[output], end, rest);
      node_run->partial_len[output] = rest;
      g_byte_array_set_size (bytes, bytes->len - rest);
    }

  if (bytes->len == 0)
    return;

  text = g_utf8_make_valid ((const char *) bytes->data, bytes->len);
  _sk_runner_emit_step_output (node_run->run->runner, sk_node_get_key (node_run->node), text);
}

/* Starts the fork server when the first step needs a process of its own.
 * Like the in-memory worker it gets what all the run's steps may do, and
 * each forked step takes back what it may not. */
static void
ensure_server (Run *run)
{
  g_auto(RunMounts) mounts = { 0 };
  g_autoptr(GError) error = NULL;
  GHashTableIter iter;
  NodeRun *other;

  if (run->server_tried)
    return;
  run->server_tried = TRUE;

  if (!sk_runner_get_fork_server (run->runner))
    {
      _sk_runner_emit_processes (run->runner, "spawn", _("Forking steps was turned off."));
      return;
    }

  /* The server may change the whole workflow, so that each child makes
   * one folder read-only and keeps its own step's writable: two mounts
   * however many steps the run has. The server runs no step's code. */
  run_mounts_init (&mounts, run);
  g_ptr_array_add (mounts.mounts.writable, mounts.workflow_path);
  g_hash_table_iter_init (&iter, run->node_runs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
    if (other->selected)
      {
        mounts.mounts.network |= sk_node_get_network (other->node);
        add_step_reads (other, mounts.workflow_path, mounts.mounts.read_only);
      }

  run->server = sk_harness_server_spawn (run->sandbox, &mounts.mounts, run->harness, &error);
  if (run->server == NULL)
    {
      g_autofree char *reason = g_strdup_printf (_("Each step starts its own Python: %s."),
                                                 error->message);

      g_debug ("%s", reason);
      _sk_runner_emit_processes (run->runner, "spawn", reason);
      return;
    }

  _sk_runner_emit_processes (run->runner, "fork-server", NULL);
}

/* Runs the harness in a process of the node's own: forked by the run's
 * server where it can give the node its permissions, spawned otherwise. */
static SkHarnessLaunch *
launch_harness (NodeRun          *node_run,
                SkSandboxMounts  *mounts,
                SkHarnessSpec    *spec,
                GError          **error)
{
  Run *run = node_run->run;

  ensure_server (run);
  if (run->server != NULL)
    {
      g_autoptr(GError) local_error = NULL;
      SkHarnessLaunch *launch;

      launch = sk_harness_launch_fork (run->server, mounts, spec, &local_error);
      if (launch != NULL)
        return launch;
      if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      g_debug ("%s: %s", sk_node_get_key (node_run->node), local_error->message);
    }

  return sk_harness_launch_spawn (run->sandbox, mounts, run->harness, spec, error);
}

static gboolean
start_isolated (NodeRun  *node_run,
                GError  **error)
{
  Run *run = node_run->run;
  g_autoptr(SkHarnessSpec) spec = g_steal_pointer (&node_run->spec);
  g_auto(RunMounts) mounts = { 0 };

  /* The step's own folder is the only one it may change. */
  run_mounts_init (&mounts, run);
  run_mounts_add_step (&mounts, node_run);
  mounts.mounts.cwd = node_run->folder_path;

  node_run->launch = launch_harness (node_run, &mounts.mounts, spec, error);
  if (node_run->launch == NULL)
    return FALSE;

  /* Nothing was read yet: the reads come back on this context. */
  if (_sk_runner_follows_output (run->runner))
    sk_harness_launch_set_output_func (node_run->launch, step_output_cb, node_run, NULL);

  sk_harness_launch_wait_async (node_run->launch, run->cancellable, launch_done_cb, node_run);
  return TRUE;
}

static void
worker_fail (Run        *run,
             const char *message)
{
  if (run->worker_failure == NULL)
    run->worker_failure = g_strdup (message);

  sk_harness_worker_kill (run->worker);
}

static void
worker_reply_cb (SkHarnessWorker *worker,
                 JsonObject      *reply,
                 gpointer         user_data)
{
  Run *run = user_data;
  NodeRun *node_run = run->worker_node;
  g_autofree char *stderr_path = NULL;

  g_clear_handle_id (&run->worker_kill_id, g_source_remove);

  /* The worker died: whatever it held in memory is gone. */
  if (reply == NULL)
    worker_fail (run, _("The Python worker of the in-memory mode stopped unexpectedly."));

  if (run->worker_aux != NULL)
    {
      NodeRun *aux = g_steal_pointer (&run->worker_aux);

      aux->aux_done (aux, reply);
      return;
    }

  if (node_run == NULL)
    return;

  run->worker_node = NULL;
  if (reply != NULL)
    node_run->result = json_object_ref (reply);

  stderr_path = sk_step_folder_build_path (node_run->folder_path, sk_node_get_key (node_run->node),
                                           SK_STEP_FILE_STDERR);
  node_run->stderr_tail = sk_harness_read_tail (stderr_path);
  finish_node (node_run);
}

/* Node code that ignores KeyboardInterrupt, or is stuck outside Python, has
 * to be stopped with the worker; the outputs the worker held are lost.
 */
static gboolean
worker_kill_cb (gpointer user_data)
{
  Run *run = user_data;

  run->worker_kill_id = 0;
  worker_fail (run, _("A step did not stop when its time was up, so the in-memory worker was "
                      "stopped; the steps after it could not run."));
  return G_SOURCE_REMOVE;
}

static gboolean
ensure_worker (Run     *run,
               GError **error)
{
  if (run->worker_failure != NULL)
    {
      g_set_error_literal (error, SK_RUNNER_ERROR, SK_RUNNER_ERROR_WORKER, run->worker_failure);
      return FALSE;
    }

  if (run->worker == NULL)
    {
      g_auto(RunMounts) mounts = { 0 };
      GHashTableIter iter;
      NodeRun *other;

      /* The steps share one process, and so one sandbox: it lets each do
       * what any of them may. Their folders are made now, as the coding
       * agent may write the code of later ones while the worker runs.
       */
      run_mounts_init (&mounts, run);
      g_hash_table_iter_init (&iter, run->node_runs);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
        if (other->selected && g_mkdir_with_parents (other->folder_path, 0755) == 0)
          run_mounts_add_step (&mounts, other);

      run->worker = sk_harness_worker_spawn (run->sandbox, &mounts.mounts, run->harness,
                                             sk_project_get_folder (run->project),
                                             worker_reply_cb, run, error);
      if (run->worker == NULL)
        return FALSE;
    }

  return TRUE;
}

static gboolean
start_in_memory (NodeRun  *node_run,
                 GError  **error)
{
  Run *run = node_run->run;
  g_autoptr(SkHarnessSpec) spec = NULL;

  if (!ensure_worker (run, error))
    return FALSE;

  spec = g_steal_pointer (&node_run->spec);
  run->worker_node = node_run;

  if (!sk_harness_worker_send (run->worker, spec, error))
    {
      run->worker_node = NULL;
      worker_fail (run, _("The Python worker of the in-memory mode stopped unexpectedly."));
      return FALSE;
    }

  return TRUE;
}

static gboolean
node_timeout_cb (gpointer user_data)
{
  NodeRun *node_run = user_data;
  Run *run = node_run->run;

  node_run->timeout_id = 0;
  node_run->timed_out = TRUE;

  if (run->in_memory)
    {
      /* The harness turns the interruption into KeyboardInterrupt inside
       * the node's code, which keeps the worker and the outputs it holds
       * alive.
       */
      sk_harness_worker_interrupt (run->worker);
      if (run->worker_kill_id == 0)
        run->worker_kill_id = g_timeout_add_seconds (WORKER_GRACE_SECONDS, worker_kill_cb, run);
    }
  else
    {
      sk_harness_launch_kill (node_run->launch);
    }

  return G_SOURCE_REMOVE;
}

/* Control flow ------------------------------------------------------------ */

static void
aux_launch_done_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  NodeRun *node_run = user_data;
  g_autoptr(JsonObject) report = NULL;

  sk_harness_launch_wait_finish (SK_HARNESS_LAUNCH (object), result, NULL);
  report = sk_harness_launch_get_report (SK_HARNESS_LAUNCH (object));
  g_clear_object (&node_run->aux_launch);
  node_run->aux_done (node_run, report);
}

/* Asks the harness for a command of the control flow about @node_run, in
 * its own process or in the in-memory worker, which holds the outputs;
 * @command is taken, and @done receives the report, or %NULL when there
 * is none. The caller counts the command as running. */
static void
start_aux (NodeRun        *node_run,
           SkHarnessSpec  *command,
           void          (*done) (NodeRun    *node_run,
                                  JsonObject *report))
{
  Run *run = node_run->run;
  g_autoptr(SkHarnessSpec) spec = command;
  g_autoptr(GError) error = NULL;

  node_run->aux_done = done;

  if (run->in_memory)
    {
      /* The worker runs one thing at a time, and nothing else runs while
       * a command of the control flow does. */
      g_assert (run->worker_node == NULL && run->worker_aux == NULL);
      if (ensure_worker (run, NULL))
        {
          run->worker_aux = node_run;
          if (sk_harness_worker_send (run->worker, spec, &error))
            return;
          run->worker_aux = NULL;
          worker_fail (run, _("The Python worker of the in-memory mode stopped unexpectedly."));
        }
    }
  else
    {
      g_auto(RunMounts) mounts = { 0 };

      run_mounts_init (&mounts, run);
      run_mounts_add_step (&mounts, node_run);
      mounts.mounts.cwd = node_run->folder_path;
      /* The commands of the control flow are spawned: forking the one that
       * collects a sub-workflow's outputs, right after the sub-workflow's
       * own run, was seen to leave its end untold now and then (a run
       * waiting for ever under the sanitizers), and they are few. */
      node_run->aux_launch = sk_harness_launch_spawn (run->sandbox, &mounts.mounts, run->harness,
                                                      spec, &error);
      if (node_run->aux_launch != NULL)
        {
          sk_harness_launch_wait_async (node_run->aux_launch, run->cancellable,
                                        aux_launch_done_cb, node_run);
          return;
        }
    }

  done (node_run, NULL);
}

static gboolean
has_output (NodeRun *node_run)
{
  return node_run->final_state == SK_NODE_STATE_SUCCEEDED ||
         node_run->final_state == SK_NODE_STATE_UP_TO_DATE;
}

/* Whether successors in this run carry conditions on @node_run's output,
 * which must be tried before they go on. */
static gboolean
needs_branches (NodeRun *node_run)
{
  const char *id = sk_node_get_id (node_run->node);

  if (node_run->run->generate_only || !has_output (node_run))
    return FALSE;

  for (guint i = 0; i < node_run->successors->len; i++)
    {
      NodeRun *next = g_ptr_array_index (node_run->successors, i);

      if (sk_node_get_condition (next->node, id) != NULL)
        return TRUE;
    }

  return FALSE;
}

static void
branches_done (NodeRun    *node_run,
               JsonObject *report)
{
  Run *run = node_run->run;
  JsonNode *errors = sk_json_get_member (report, "errors");

  run->running--;

  if (g_strcmp0 (sk_json_get_string (report, "status"), "success") == 0)
    {
      node_run->branch_taken = g_strdup (sk_json_get_string (report, "taken"));
      if (errors != NULL && JSON_NODE_HOLDS_OBJECT (errors))
        node_run->branch_errors = json_object_ref (json_node_get_object (errors));
    }
  else if (g_cancellable_is_cancelled (run->cancellable))
    {
      node_run->branch_failure = g_strdup (_("The run was stopped before the conditions were "
                                             "tried."));
    }
  else
    {
      const char *message = sk_json_get_string (report, "error");

      node_run->branch_failure = message != NULL
        ? g_strdup (message)
        : g_strdup (run->worker_failure != NULL ? run->worker_failure
                                                : _("Python ended without trying them."));
    }

  release_successors (node_run);
  schedule (run);
}

static void
start_branches (NodeRun *node_run)
{
  Run *run = node_run->run;
  g_autoptr(GPtrArray) branches = sk_project_get_branches (run->project, node_run->node);
  g_autoptr(JsonArray) list = json_array_new ();
  g_autofree char *workflow_path = g_file_get_path (sk_project_get_folder (run->project));
  const char *key = sk_node_get_key (node_run->node);
  SkHarnessSpec *spec;

  for (guint i = 0; i < branches->len; i++)
    {
      SkNode *next = g_ptr_array_index (branches, i);
      JsonObject *branch = json_object_new ();

      json_object_set_string_member (branch, "key", sk_node_get_key (next));
      json_object_set_string_member (branch, "expr",
                                     sk_node_get_condition (next, sk_node_get_id (node_run->node)));
      json_array_add_object_element (list, branch);
    }

  spec = sk_harness_spec_new (workflow_path, node_run->folder_path, key,
                              sk_runner_get_log_limit (run->runner));
  sk_harness_spec_set_command (spec, "branch");
  sk_harness_spec_set_member (spec, "prior", json_node_init_string (json_node_alloc (), key));
  sk_harness_spec_set_member (spec, "source",
                              json_node_init_string (json_node_alloc (),
                                                     run->in_memory &&
                                                     node_run->final_state == SK_NODE_STATE_SUCCEEDED
                                                     ? "memory" : "file"));
  sk_harness_spec_set_member (spec, "branches", json_node_init_array (json_node_alloc (), list));

  run->running++;
  start_aux (node_run, spec, branches_done);
}

/* Whether the conditions on the connections into @node_run let it run;
 * if not, completes it with the reason. Conditions are tried only among
 * steps that run together: a prior outside the run is read as it is. */
static gboolean
conditions_allow (NodeRun *node_run)
{
  Run *run = node_run->run;
  g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (run->project, node_run->node);
  const char *key = sk_node_get_key (node_run->node);

  for (guint i = 0; i < priors->len; i++)
    {
      SkNode *prior = g_ptr_array_index (priors, i);
      const char *expr = sk_node_get_condition (node_run->node, sk_node_get_id (prior));
      NodeRun *prior_run = g_hash_table_lookup (run->node_runs, prior);
      g_autofree char *message = NULL;
      JsonNode *raised;

      if (expr == NULL || prior_run == NULL || !prior_run->selected)
        continue;

      if (!has_output (prior_run))
        {
          /* Translators: %s is a step's name. */
          message = g_strdup_printf (_("Not run: the condition on its connection from “%s” was "
                                       "not tried, as “%s” gave no output."),
                                     sk_node_get_name (prior), sk_node_get_name (prior));
          complete_node (node_run, SK_NODE_STATE_SKIPPED, message, NULL);
          return FALSE;
        }

      if (prior_run->branch_failure != NULL)
        {
          /* Translators: the first %s is a step's name, the second why. */
          message = g_strdup_printf (_("The conditions after “%s” could not be tried: %s"),
                                     sk_node_get_name (prior), prior_run->branch_failure);
          complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
          return FALSE;
        }

      raised = prior_run->branch_errors != NULL
               ? json_object_get_member (prior_run->branch_errors, key) : NULL;
      if (raised != NULL && JSON_NODE_HOLDS_VALUE (raised))
        {
          /* Translators: the first %s is a Python expression, the second a
           * step's name, the third the error it raised. */
          message = g_strdup_printf (_("The condition %s on the connection from “%s” could not "
                                       "be evaluated: %s"),
                                     expr, sk_node_get_name (prior), json_node_get_string (raised));
          complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
          return FALSE;
        }

      if (g_strcmp0 (prior_run->branch_taken, key) != 0)
        {
          SkNode *taken = prior_run->branch_taken != NULL
                          ? sk_project_get_node_by_key (run->project, prior_run->branch_taken)
                          : NULL;

          if (taken != NULL)
            /* Translators: both %s are steps' names. */
            message = g_strdup_printf (_("Condition not met: after “%s”, “%s” was taken."),
                                       sk_node_get_name (prior), sk_node_get_name (taken));
          else
            /* Translators: %s is a step's name. */
            message = g_strdup_printf (_("Condition not met: no condition after “%s” is true."),
                                       sk_node_get_name (prior));
          complete_node (node_run, SK_NODE_STATE_SKIPPED, message, NULL);
          return FALSE;
        }
    }

  return TRUE;
}

/* A step whose priors were all skipped in this run has nothing to work on:
 * it is skipped too, which is how a branch not taken or a denied gate
 * skips what depends only on it. */
static gboolean
all_priors_skipped (NodeRun *node_run)
{
  Run *run = node_run->run;
  g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (run->project, node_run->node);

  if (priors->len == 0)
    return FALSE;

  for (guint i = 0; i < priors->len; i++)
    {
      NodeRun *prior_run = g_hash_table_lookup (run->node_runs, g_ptr_array_index (priors, i));

      if (prior_run == NULL || !prior_run->selected ||
          prior_run->final_state != SK_NODE_STATE_SKIPPED ||
          prior_run->waiting || prior_run->held)
        return FALSE;
    }

  return TRUE;
}

/* Whether an approval gate lets @node_run run: it does once approved for
 * what it receives now. Otherwise the gate is completed, skipped when
 * denied, or waiting, and the run stops before it. */
static gboolean
gate_allows (NodeRun *node_run)
{
  Run *run = node_run->run;
  const char *key = sk_node_get_key (node_run->node);
  const char * const *approve = sk_runner_get_approve (run->runner);
  g_autoptr(SkApproval) approval = NULL;
  g_autoptr(GError) error = NULL;
  SkRunRecord record = { .status = "waiting", .in_memory = run->in_memory };

  if (run->generate_only || !sk_node_get_approval (node_run->node))
    return TRUE;

  approval = sk_approval_read (node_run->folder_path, key);
  if (approval != NULL && g_strcmp0 (approval->fingerprint, node_run->fingerprint) == 0)
    {
      g_autofree char *decision = sk_approval_describe (approval);

      if (approval->approved)
        return TRUE;

      complete_node (node_run, SK_NODE_STATE_SKIPPED, decision, NULL);
      return FALSE;
    }

  if (approve != NULL && g_strv_contains (approve, key) && node_run->fingerprint != NULL)
    {
      if (sk_approval_write (node_run->folder_path, key, TRUE, node_run->fingerprint,
                             _("Approved up front when the run was started."), &error))
        return TRUE;

      complete_node (node_run, SK_NODE_STATE_FAILED, error->message, NULL);
      return FALSE;
    }

  /* The record keeps what the gate waits for, for a decision taken after
   * the run, from the window or the command line; until then no earlier
   * result of the gate may reach its successors. */
  sk_node_set_output_text (node_run->node, "");
  sk_node_set_output_files (node_run->node, NULL);
  record.fingerprint = node_run->fingerprint;
  if (record.fingerprint == NULL ||
      !sk_run_record_write (node_run->folder_path, node_run->node, &record, &error))
    sk_run_record_withdraw (node_run->folder_path, key, NULL);

  complete_node (node_run, SK_NODE_STATE_AWAITING_APPROVAL,
                 _("This step needs approval before it runs. Look at what it receives and at its "
                   "code, then approve or deny it."), NULL);
  return FALSE;
}

/* For each ------------------------------------------------------------------ */

#define MAX_ITEMS_IN_REPORT 50

/* Removes a folder an item no longer in the list left, without following
 * any link out of it. */
static void
remove_tree (GFile *file)
{
  g_autoptr(GFileEnumerator) children = NULL;

  children = g_file_enumerate_children (file, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  while (children != NULL)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;

      if (!g_file_enumerator_iterate (children, &info, &child, NULL, NULL) || info == NULL)
        break;
      if (g_file_query_file_type (child, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL) == G_FILE_TYPE_DIRECTORY)
        remove_tree (child);
      else
        g_file_delete (child, NULL, NULL);
    }

  g_file_delete (file, NULL, NULL);
}

static void
remove_items_from (NodeRun *node_run,
                   guint    count)
{
  g_autofree char *items_path = g_build_filename (node_run->folder_path, "items", NULL);
  g_autoptr(GDir) dir = g_dir_open (items_path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      guint64 index;

      if (g_ascii_string_to_unsigned (name, 10, 0, G_MAXUINT, &index, NULL) && index >= count)
        {
          g_autofree char *path = g_build_filename (items_path, name, NULL);
          g_autoptr(GFile) file = g_file_new_for_path (path);

          remove_tree (file);
        }
    }
}

static char *
item_folder (NodeRun *node_run,
             guint    index)
{
  g_autofree char *name = g_strdup_printf ("%u", index);

  return g_build_filename (node_run->folder_path, "items", name, NULL);
}

/* An item runs again when the step, what it receives, or its own element
 * of the list changed; the others keep their results. */
static char *
item_fingerprint (NodeRun    *node_run,
                  guint       index,
                  const char *checksum)
{
  g_autofree char *text = g_strdup_printf ("%s\nwithout %s\nitem %u %s",
                                           node_run->item_fingerprint_base != NULL
                                           ? node_run->item_fingerprint_base : "",
                                           node_run->missing_priors != NULL
                                           ? node_run->missing_priors : "",
                                           index, checksum);

  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

/* The line of an item's report that tells it from the others: the first
 * line describes the task, the same for every item, so the next one. */
static char *
item_line (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text != NULL ? text : "", "\n", -1);
  const char *first = NULL;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (sk_util_is_blank (lines[i]))
        continue;
      if (first != NULL)
        return g_strstrip (g_strdup (lines[i]));
      first = lines[i];
    }

  return g_strstrip (g_strdup (first != NULL ? first : ""));
}

/* The step's report: how its items went, and the last line of each item's
 * own report, and its files, as paths in the step's folder. */
static void
compose_foreach_outputs (NodeRun *node_run)
{
  const char *key = sk_node_get_key (node_run->node);
  g_autoptr(GString) report = g_string_new (NULL);
  g_autoptr(GStrvBuilder) files = g_strv_builder_new ();
  g_auto(GStrv) all_files = NULL;
  guint up_to_date = node_run->item_count - node_run->items_ran - node_run->items_skipped -
                     node_run->items_failed;

  g_string_append_printf (report,
                          g_dngettext (GETTEXT_PACKAGE, "Ran for each of %u item: ",
                                       "Ran for each of %u items: ", node_run->item_count),
                          node_run->item_count);
  g_string_append_printf (report, _("%u ran, %u up to date, %u skipped, %u failed."),
                          node_run->items_ran, up_to_date, node_run->items_skipped,
                          node_run->items_failed);
  g_string_append_c (report, '\n');

  for (guint i = 0; i < node_run->item_count; i++)
    {
      g_autofree char *folder = item_folder (node_run, i);
      g_autoptr(JsonObject) record = sk_run_record_read (folder, key);
      g_autofree char *line = NULL;
      JsonArray *item_files = sk_json_get_array (record, "output_files");

      if (i < MAX_ITEMS_IN_REPORT)
        {
          line = item_line (sk_json_get_string (record, "output_text"));
          /* Translators: %u counts items from 1, %s is the end of its report. */
          g_string_append_printf (report, _("Item %u: %s"), i + 1,
                                  line[0] != '\0' ? line : sk_json_get_string (record, "status"));
          g_string_append_c (report, '\n');
        }
      else if (i == MAX_ITEMS_IN_REPORT)
        {
          g_string_append_printf (report, _("… and %u more items."), node_run->item_count - i);
          g_string_append_c (report, '\n');
        }

      for (guint j = 0; item_files != NULL && j < json_array_get_length (item_files); j++)
        {
          g_autofree char *path = g_strdup_printf ("items/%u/%s", i,
                                                   json_array_get_string_element (item_files, j));

          g_strv_builder_add (files, path);
        }
    }

  g_free (node_run->report);
  node_run->report = g_strdup (report->str);
  sk_node_set_output_text (node_run->node, report->str);
  all_files = g_strv_builder_end (files);
  sk_node_set_output_files (node_run->node, (const char * const *) all_files);
}

/* Completes a step whose output the harness put together from others:
 * its items', or its sub-workflow's last steps'. @failure says that they
 * could not be put together, before why. */
static void
complete_combined (NodeRun    *node_run,
                   JsonObject *report,
                   const char *failure)
{
  Run *run = node_run->run;
  g_autoptr(GError) error = NULL;

  run->running--;

  if (g_strcmp0 (sk_json_get_string (report, "status"), "success") != 0)
    {
      const char *message = sk_json_get_string (report, "error");
      g_autofree char *text = NULL;

      text = g_strdup_printf ("%s %s", failure,
                              message != NULL ? message : _("Python ended without a report."));
      complete_node (node_run, g_cancellable_is_cancelled (run->cancellable)
                               ? SK_NODE_STATE_CANCELLED : SK_NODE_STATE_FAILED, text, NULL);
      schedule (run);
      return;
    }

  g_clear_pointer (&node_run->result, json_object_unref);
  node_run->result = json_object_ref (report);
  if (!write_record (node_run, "success", NULL, NULL, &error))
    {
      g_autofree char *text = g_strdup_printf (_("The step ran, but its result could not "
                                                 "be recorded: %s"), error->message);

      complete_node (node_run, SK_NODE_STATE_FAILED, text, NULL);
      schedule (run);
      return;
    }

  complete_node (node_run, SK_NODE_STATE_SUCCEEDED, NULL, NULL);
  schedule (run);
}

static void
foreach_joined (NodeRun    *node_run,
                JsonObject *report)
{
  complete_combined (node_run, report, _("The items’ outputs could not be put together:"));
}

/* Once every item is over: the step failed with its first failed item, or
 * its output is the list of its items' outputs. */
static void
finish_foreach (NodeRun *node_run)
{
  Run *run = node_run->run;
  const char *key = sk_node_get_key (node_run->node);
  g_autofree char *workflow_path = g_file_get_path (sk_project_get_folder (run->project));
  g_autofree char *expected = expected_fingerprint (node_run);
  g_autoptr(JsonObject) record = NULL;
  SkHarnessSpec *spec;

  compose_foreach_outputs (node_run);

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      complete_node (node_run, SK_NODE_STATE_CANCELLED,
                     _("The run was stopped before every item had run."), NULL);
      return;
    }

  if (node_run->items_failed > 0)
    {
      complete_node (node_run, SK_NODE_STATE_FAILED, node_run->item_failure, NULL);
      return;
    }

  record = sk_run_record_read (node_run->folder_path, key);
  if (node_run->items_ran == 0 && node_run->items_skipped == 0 && !run->force &&
      !node_run->missing_unsettled &&
      sk_run_record_is_usable (record, node_run->folder_path, key, expected))
    {
      sk_run_record_restore_outputs (record, node_run->node);
      complete_node (node_run, SK_NODE_STATE_UP_TO_DATE, NULL, NULL);
      return;
    }

  sk_run_record_withdraw (node_run->folder_path, key, NULL);
  spec = sk_harness_spec_new (workflow_path, node_run->folder_path, key,
                              sk_runner_get_log_limit (run->runner));
  sk_harness_spec_set_command (spec, "join");
  sk_harness_spec_set_member (spec, "count",
                              json_node_init_int (json_node_alloc (), node_run->item_count));
  run->running++;
  start_aux (node_run, spec, foreach_joined);
}

static void
complete_item (NodeRun     *item,
               SkNodeState  state,
               const char  *error_text,
               const char  *detail)
{
  NodeRun *parent = item->parent;
  const char *key = sk_node_get_key (item->node);

  g_assert (!item->finished);
  item->finished = TRUE;
  item->ended = g_get_monotonic_time ();
  item->final_state = state;

  if (item->started_running)
    {
      g_auto(GStrv) files = sk_run_record_changed_files (item->folder_path, key,
                                                         sk_node_get_input_files (parent->node),
                                                         item->snapshot);
      g_autofree char *summary = sk_run_record_read_summary (item->folder_path, key,
                                                             item->snapshot, NULL);

      sk_node_set_output_files (item->node, (const char * const *) files);
      set_output_text (item, state, summary, error_text);
      if (!write_record (item, state_status (state), error_text, detail, NULL))
        sk_run_record_withdraw (item->folder_path, key, NULL);
    }

  switch (state)
    {
    case SK_NODE_STATE_SUCCEEDED:
      parent->items_ran++;
      break;
    case SK_NODE_STATE_SKIPPED:
      parent->items_skipped++;
      break;
    default:
      parent->items_failed++;
      if (parent->item_failure == NULL)
        /* Translators: the first two %u count items, %s says why one failed. */
        parent->item_failure = g_strdup_printf (_("Item %u of %u failed: %s"),
                                                item->item_index + 1, parent->item_count,
                                                error_text != NULL ? error_text : _("it failed."));
      break;
    }

  g_assert (parent->items_pending > 0);
  if (--parent->items_pending == 0)
    finish_foreach (parent);
}

static gboolean
start_item (NodeRun *item)
{
  Run *run = item->run;
  NodeRun *parent = item->parent;
  g_autoptr(GError) error = NULL;
  const char *prior_id = NULL;
  const char *path = NULL;
  SkNode *prior;
  JsonObject *spec_item;
  double milliseconds;
  gboolean started;

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      complete_item (item, SK_NODE_STATE_CANCELLED, _("The run was stopped before this item started."), NULL);
      return FALSE;
    }

  if (run->in_memory && run->worker_failure != NULL)
    {
      complete_item (item, SK_NODE_STATE_CANCELLED, run->worker_failure, NULL);
      return FALSE;
    }

  g_mkdir_with_parents (item->folder_path, 0755);
  if (!sk_run_record_withdraw (item->folder_path, sk_node_get_key (item->node), &error))
    {
      complete_item (item, SK_NODE_STATE_FAILED, error->message, NULL);
      return FALSE;
    }

  sk_node_get_foreach (parent->node, &prior_id, &path);
  prior = sk_project_get_node (run->project, prior_id);

  item->snapshot = sk_run_record_snapshot_folder (item->folder_path);
  item->started_running = TRUE;
  item->spec = build_spec_in (parent, item->folder_path);
  spec_item = json_object_new ();
  json_object_set_string_member (spec_item, "prior", sk_node_get_key (prior));
  json_object_set_string_member (spec_item, "path", path);
  json_object_set_int_member (spec_item, "index", item->item_index);
  sk_harness_spec_set_member (item->spec, "item", json_node_init_object (json_node_alloc (), spec_item));
  json_object_unref (spec_item);
  run->running++;

  started = run->in_memory ? start_in_memory (item, &error) : start_isolated (item, &error);
  if (!started)
    {
      g_autofree char *message = g_strdup_printf (_("Python could not be started: %s"),
                                                  error->message);

      run->running--;
      complete_item (item, SK_NODE_STATE_FAILED, message, NULL);
      return FALSE;
    }

  milliseconds = sk_runner_get_timeout (run->runner) * 1000;
  if (milliseconds > 0 && milliseconds < G_MAXUINT)
    item->timeout_id = g_timeout_add ((guint) milliseconds, node_timeout_cb, item);

  return TRUE;
}

static void
foreach_listed (NodeRun    *node_run,
                JsonObject *report)
{
  Run *run = node_run->run;
  const char *key = sk_node_get_key (node_run->node);
  JsonArray *checksums = sk_json_get_array (report, "checksums");

  run->running--;

  if (g_strcmp0 (sk_json_get_string (report, "status"), "success") != 0 || checksums == NULL)
    {
      const char *message = sk_json_get_string (report, "error");

      complete_node (node_run, g_cancellable_is_cancelled (run->cancellable)
                               ? SK_NODE_STATE_CANCELLED : SK_NODE_STATE_FAILED,
                     message != NULL ? message : _("Python ended without listing the items."),
                     NULL);
      schedule (run);
      return;
    }

  node_run->item_count = json_array_get_length (checksums);
  node_run->items = g_ptr_array_new_with_free_func ((GDestroyNotify) node_run_free);
  remove_items_from (node_run, node_run->item_count);

  for (guint i = 0; i < node_run->item_count; i++)
    {
      const char *checksum = json_array_get_string_element (checksums, i);
      g_autofree char *fingerprint = item_fingerprint (node_run, i, checksum != NULL ? checksum : "");
      g_autofree char *folder = item_folder (node_run, i);
      g_autoptr(JsonObject) record = sk_run_record_read (folder, key);
      NodeRun *item;

      if (!run->force && !node_run->upstream_changed && !node_run->code_changed &&
          sk_run_record_is_usable (record, folder, key, fingerprint))
        continue;

      item = g_new0 (NodeRun, 1);
      item->run = run;
      item->parent = node_run;
      item->item_index = i;
      item->node = sk_node_new (sk_node_get_id (node_run->node), sk_node_get_name (node_run->node));
      item->folder_path = g_steal_pointer (&folder);
      item->fingerprint = g_steal_pointer (&fingerprint);
      item->successors = g_ptr_array_new ();
      item->final_state = SK_NODE_STATE_QUEUED;
      g_ptr_array_add (node_run->items, item);
      g_queue_push_tail (&run->ready, item);
    }

  node_run->items_pending = node_run->items->len;
  if (node_run->items_pending == 0)
    finish_foreach (node_run);

  schedule (run);
}

/* A for-each step first asks which items its list holds, then runs those
 * that changed, each like a step of its own, up to the run's jobs at once. */
static gboolean
start_foreach (NodeRun *node_run)
{
  Run *run = node_run->run;
  const char *prior_id = NULL;
  const char *path = NULL;
  g_autofree char *workflow_path = g_file_get_path (sk_project_get_folder (run->project));
  SkHarnessSpec *spec;
  SkNode *prior;
  NodeRun *prior_run;
  const char *source = "none";

  sk_node_get_foreach (node_run->node, &prior_id, &path);
  prior = sk_project_get_node (run->project, prior_id);
  prior_run = prior != NULL ? g_hash_table_lookup (run->node_runs, prior) : NULL;

  if (prior_run != NULL && prior_run->selected)
    {
      if (prior_run->final_state == SK_NODE_STATE_SUCCEEDED)
        source = run->in_memory ? "memory" : "file";
      else if (prior_run->final_state == SK_NODE_STATE_UP_TO_DATE)
        source = "file";
    }
  else if (prior != NULL)
    {
      g_autoptr(GFile) folder = sk_project_get_node_folder (run->project, prior);
      g_autofree char *folder_path = g_file_get_path (folder);
      g_autoptr(JsonObject) record = sk_run_record_read (folder_path, sk_node_get_key (prior));

      if (sk_run_record_is_usable (record, folder_path, sk_node_get_key (prior), NULL))
        source = "file";
    }

  if (prior == NULL || g_str_equal (source, "none"))
    {
      g_autofree char *message = NULL;

      /* Translators: %s is a step's name. */
      message = g_strdup_printf (_("There is no list to run this step for: “%s” gave no output."),
                                 prior != NULL ? sk_node_get_name (prior) : prior_id);
      complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
      return FALSE;
    }

  g_clear_pointer (&node_run->spec, sk_harness_spec_free);
  sk_node_set_error (node_run->node, NULL, NULL);
  set_state (run, node_run->node, SK_NODE_STATE_RUNNING);

  spec = sk_harness_spec_new (workflow_path, node_run->folder_path, sk_node_get_key (node_run->node),
                              sk_runner_get_log_limit (run->runner));
  sk_harness_spec_set_command (spec, "items");
  sk_harness_spec_set_member (spec, "prior",
                              json_node_init_string (json_node_alloc (), sk_node_get_key (prior)));
  sk_harness_spec_set_member (spec, "source", json_node_init_string (json_node_alloc (), source));
  sk_harness_spec_set_member (spec, "path", json_node_init_string (json_node_alloc (), path));

  run->running++;
  start_aux (node_run, spec, foreach_listed);
  return TRUE;
}

/* Sub-workflows ------------------------------------------------------------ */

static void
subflow_collected (NodeRun    *node_run,
                   JsonObject *report)
{
  complete_combined (node_run, report,
                     _("The outputs of the sub-workflow could not be put together:"));
}

/* The report of the step: how the inner run went, and the end of the
 * report of each last step. */
static void
compose_subflow_outputs (NodeRun   *node_run,
                         GPtrArray *exits)
{
  const SkRunStats *stats = &node_run->subflow_stats;
  g_autoptr(GString) report = g_string_new (NULL);

  /* Translators: %s is a folder, the numbers count steps. */
  g_string_append_printf (report, _("Ran the workflow in “%s”: %u succeeded, %u up to date, "
                                    "%u skipped, %u failed."),
                          sk_node_get_workflow (node_run->node), stats->succeeded,
                          stats->up_to_date, stats->skipped + stats->waiting + stats->held,
                          stats->failed + stats->no_code + stats->cancelled);
  g_string_append_c (report, '\n');

  for (guint i = 0; i < exits->len; i++)
    {
      SkNode *exit = g_ptr_array_index (exits, i);
      g_autofree char *line = item_line (sk_node_get_output_text (exit));

      g_string_append_printf (report, "%s: %s\n", sk_node_get_name (exit),
                              line[0] != '\0' ? line : sk_node_state_describe (sk_node_get_state (exit)));
    }

  g_free (node_run->report);
  node_run->report = g_strdup (report->str);
  sk_node_set_output_text (node_run->node, report->str);
  sk_node_set_output_files (node_run->node, NULL);
}

static SkNode *
first_in_state (SkProject   *project,
                SkNodeState  state)
{
  for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (sk_node_get_state (node) == state)
        return node;
    }

  return NULL;
}

static void
subflow_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  NodeRun *node_run = user_data;
  Run *run = node_run->run;
  SkProject *inner = node_run->subflow;
  const char *folder = sk_node_get_workflow (node_run->node);
  const SkRunStats *stats = &node_run->subflow_stats;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) exits = g_ptr_array_new ();
  g_autoptr(JsonArray) outputs = json_array_new ();
  g_autoptr(JsonObject) record = NULL;
  g_autofree char *expected = expected_fingerprint (node_run);
  g_autofree char *workflow_path = g_file_get_path (sk_project_get_folder (run->project));
  g_autofree char *message = NULL;
  const char *key = sk_node_get_key (node_run->node);
  SkNode *failed;
  SkNode *gate;
  SkHarnessSpec *spec;
  gboolean ok;

  ok = sk_runner_run_finish (SK_RUNNER (object), result, &node_run->subflow_stats, &error);
  run->running--;

  /* What the inner steps reported is kept in the inner workflow's file. */
  sk_project_save (inner, NULL);

  failed = first_in_state (inner, SK_NODE_STATE_FAILED);
  gate = first_in_state (inner, SK_NODE_STATE_AWAITING_APPROVAL);

  if (!ok || g_cancellable_is_cancelled (run->cancellable))
    {
      SkNodeState state = g_cancellable_is_cancelled (run->cancellable)
                          ? SK_NODE_STATE_CANCELLED : SK_NODE_STATE_FAILED;

      /* Translators: the first %s is a folder, the second why. */
      message = g_strdup_printf (_("The workflow in “%s” could not run: %s"), folder,
                                 error != NULL ? error->message : _("the run was stopped."));
      complete_node (node_run, state, message, NULL);
      schedule (run);
      return;
    }

  if (failed != NULL || stats->failed + stats->no_code + stats->cancelled + stats->waiting > 0)
    {
      if (failed != NULL)
        /* Translators: the first %s is a step, the second a folder, the third why. */
        message = g_strdup_printf (_("“%s” in the workflow “%s” failed: %s"),
                                   sk_node_get_name (failed), folder,
                                   sk_node_get_error_text (failed) != NULL
                                   ? sk_node_get_error_text (failed) : _("it failed."));
      else
        /* Translators: %s is a folder. */
        message = g_strdup_printf (_("Not every step of the workflow “%s” could run: some have "
                                     "no code yet or were stopped. Open it to see which."),
                                   folder);
      complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
      schedule (run);
      return;
    }

  if (gate != NULL)
    {
      /* Translators: the first %s is a step, the others make a command. */
      message = g_strdup_printf (_("“%s” in the workflow “%s” waits for approval. Decide it there, "
                                   "for example with skele approve %s/%s %s, then run again."),
                                 sk_node_get_name (gate), folder, workflow_path, folder,
                                 sk_node_get_key (gate));
      complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
      schedule (run);
      return;
    }

  for (guint i = 0; i < sk_project_get_n_nodes (inner); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (inner), i);
      g_autoptr(GPtrArray) successors = sk_project_get_successors (inner, node);
      g_autoptr(GFile) inner_folder = sk_project_get_node_folder (inner, node);
      g_autofree char *inner_path = g_file_get_path (inner_folder);
      g_autoptr(JsonObject) inner_record = sk_run_record_read (inner_path, sk_node_get_key (node));
      JsonObject *entry;

      if (successors->len > 0)
        continue;

      g_ptr_array_add (exits, node);
      entry = json_object_new ();
      json_object_set_string_member (entry, "key", sk_node_get_key (node));
      if (sk_run_record_is_usable (inner_record, inner_path, sk_node_get_key (node), NULL))
        {
          g_autofree char *pickle = sk_step_folder_build_path (inner_path, sk_node_get_key (node),
                                                               SK_STEP_FILE_PICKLE);

          json_object_set_string_member (entry, "path", pickle);
        }
      json_array_add_object_element (outputs, entry);
    }

  compose_subflow_outputs (node_run, exits);

  record = sk_run_record_read (node_run->folder_path, key);
  if (stats->succeeded == 0 && !run->force && !node_run->missing_unsettled &&
      sk_run_record_is_usable (record, node_run->folder_path, key, expected))
    {
      sk_run_record_restore_outputs (record, node_run->node);
      complete_node (node_run, SK_NODE_STATE_UP_TO_DATE, NULL, NULL);
      schedule (run);
      return;
    }

  sk_run_record_withdraw (node_run->folder_path, key, NULL);
  g_mkdir_with_parents (node_run->folder_path, 0755);
  spec = sk_harness_spec_new (workflow_path, node_run->folder_path, key,
                              sk_runner_get_log_limit (run->runner));
  sk_harness_spec_set_command (spec, "collect");
  sk_harness_spec_set_member (spec, "outputs", json_node_init_array (json_node_alloc (), outputs));
  run->running++;
  start_aux (node_run, spec, subflow_collected);
  schedule (run);
}

/* Runs the inner workflow with a runner of its own, set up like this
 * one; its first steps read the outputs of this step's priors. */
static void
run_subflow (NodeRun *node_run)
{
  Run *run = node_run->run;
  SkRunner *self = run->runner;
  g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (run->project, node_run->node);
  g_autoptr(GStrvBuilder) reads = g_strv_builder_new ();
  g_autofree char *expected = NULL;
  JsonArray *inputs = json_array_new ();
  SkRunner *inner;

  g_clear_pointer (&node_run->spec, sk_harness_spec_free);
  node_run->spec = build_spec (node_run);
  expected = expected_fingerprint (node_run);

  for (guint i = 0; i < priors->len; i++)
    {
      SkNode *prior = g_ptr_array_index (priors, i);
      NodeRun *prior_run = g_hash_table_lookup (run->node_runs, prior);
      g_autoptr(GFile) folder = sk_project_get_node_folder (run->project, prior);
      g_autofree char *folder_path = g_file_get_path (folder);
      g_autoptr(JsonObject) record = sk_run_record_read (folder_path, sk_node_get_key (prior));
      JsonObject *entry = json_object_new ();
      gboolean usable;

      usable = prior_run != NULL && prior_run->selected
               ? has_output (prior_run)
               : sk_run_record_is_usable (record, folder_path, sk_node_get_key (prior), NULL);

      json_object_set_string_member (entry, "key", sk_node_get_key (prior));
      if (usable)
        {
          g_autofree char *pickle = sk_step_folder_build_path (folder_path, sk_node_get_key (prior),
                                                               SK_STEP_FILE_PICKLE);

          json_object_set_string_member (entry, "path", pickle);
          g_strv_builder_add (reads, folder_path);
        }
      json_array_add_object_element (inputs, entry);
    }

  inner = sk_runner_new ();
  sk_runner_set_python (inner, run->python);
  sk_runner_set_jobs (inner, run->jobs);
  sk_runner_set_timeout (inner, sk_runner_get_timeout (self));
  sk_runner_set_log_limit (inner, sk_runner_get_log_limit (self));
  sk_runner_set_sandbox_policy (inner, sk_runner_get_sandbox_policy (self));
  sk_runner_set_fork_server (inner, sk_runner_get_fork_server (self));
  sk_runner_set_force (inner, run->force);
  sk_runner_set_approve (inner, sk_runner_get_approve (self));
  _sk_runner_set_inputs (inner, inputs, expected, g_strv_builder_end (reads));
  node_run->subflow_runner = inner;

  sk_runner_run_async (inner, node_run->subflow, NULL, run->cancellable, subflow_done_cb, node_run);
}

static void
subflow_inputs_saved (NodeRun    *node_run,
                      JsonObject *report)
{
  node_run->run->running--;
  run_subflow (node_run);
}

static gboolean
start_subflow (NodeRun *node_run)
{
  Run *run = node_run->run;
  const char *relative = sk_node_get_workflow (node_run->node);
  g_autoptr(GFile) folder = g_file_resolve_relative_path (sk_project_get_folder (run->project), relative);
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GPtrArray) priors = NULL;
  g_autoptr(JsonArray) keys = json_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  if (!gate_allows (node_run))
    return FALSE;

  node_run->subflow = sk_project_load (folder, &error);
  if (node_run->subflow == NULL)
    {
      /* Translators: the first %s is a folder, the second why. */
      message = g_strdup_printf (_("The workflow in “%s” could not be read: %s"), relative,
                                 error->message);
      complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
      return FALSE;
    }

  problems = sk_project_validate (node_run->subflow);
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (problem->is_warning)
        continue;
      /* Translators: the first %s is a folder, the second the problem. */
      message = g_strdup_printf (_("The workflow in “%s” has a problem to correct first: %s"),
                                 relative, problem->message);
      complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
      return FALSE;
    }

  sk_node_set_error (node_run->node, NULL, NULL);
  set_state (run, node_run->node, SK_NODE_STATE_RUNNING);
  run->running++;

  /* In the in-memory mode the priors' outputs are in the worker; the inner
   * run reads them from their pickles. */
  priors = sk_project_get_prior_nodes (run->project, node_run->node);
  for (guint i = 0; run->in_memory && i < priors->len; i++)
    {
      NodeRun *prior_run = g_hash_table_lookup (run->node_runs, g_ptr_array_index (priors, i));

      if (prior_run != NULL && prior_run->final_state == SK_NODE_STATE_SUCCEEDED)
        json_array_add_string_element (keys, sk_node_get_key (prior_run->node));
    }

  if (json_array_get_length (keys) > 0)
    {
      g_autofree char *workflow_path = g_file_get_path (sk_project_get_folder (run->project));
      SkHarnessSpec *spec = sk_harness_spec_new (workflow_path, node_run->folder_path,
                                                 sk_node_get_key (node_run->node),
                                                 sk_runner_get_log_limit (run->runner));

      g_mkdir_with_parents (node_run->folder_path, 0755);
      sk_harness_spec_set_command (spec, "save");
      sk_harness_spec_set_member (spec, "keys", json_node_init_array (json_node_alloc (), keys));
      run->running++;
      start_aux (node_run, spec, subflow_inputs_saved);
      return TRUE;
    }

  run_subflow (node_run);
  return TRUE;
}

/* Scheduling ------------------------------------------------------------- */

static gboolean
start_node (NodeRun *node_run)
{
  Run *run = node_run->run;
  g_autofree char *script = sk_project_get_node_script_path (run->project, node_run->node);
  g_autoptr(JsonObject) record = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  const char *key = sk_node_get_key (node_run->node);
  gboolean record_read = node_run->record_read;
  double milliseconds;
  gboolean started;
  gboolean has_code;

  /* The record read while the run got ready stands for the node's first
   * start only: a start after the coding agent wrote the code, or after a
   * repair, reads it again. */
  record = g_steal_pointer (&node_run->record);
  node_run->record_read = FALSE;
  node_run->started = g_get_monotonic_time ();

  if (node_run->parent != NULL)
    return start_item (node_run);

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      complete_node (node_run, SK_NODE_STATE_CANCELLED,
                     _("The run was stopped before this step started."), NULL);
      return FALSE;
    }

  if (run->in_memory && run->worker_failure != NULL)
    {
      complete_node (node_run, SK_NODE_STATE_CANCELLED, run->worker_failure, NULL);
      return FALSE;
    }

  has_code = sk_runner_script_path_has_code (script);

  if (run->generate_only)
    {
      if (run->runner->agent != NULL && script != NULL && !has_code)
        {
          start_agent (node_run, NULL, NULL);
          return TRUE;
        }
      complete_node (node_run, SK_NODE_STATE_UP_TO_DATE, NULL, NULL);
      return FALSE;
    }

  if (node_run->held_by != NULL)
    {
      g_autofree char *message = NULL;

      /* Translators: %s is the name of an approval gate. */
      message = g_strdup_printf (_("Not run yet: it needs “%s”, which waits for approval."),
                                 node_run->held_by);
      node_run->held = TRUE;
      complete_node (node_run, SK_NODE_STATE_SKIPPED, message, NULL);
      return FALSE;
    }

  if (all_priors_skipped (node_run))
    {
      complete_node (node_run, SK_NODE_STATE_SKIPPED,
                     _("Skipped: every step before it was skipped."), NULL);
      return FALSE;
    }

  if (!conditions_allow (node_run))
    return FALSE;

  if (sk_node_get_workflow (node_run->node) != NULL)
    return start_subflow (node_run);

  if (node_run->blocked_by != NULL)
    {
      g_autofree char *message = NULL;

      /* Translators: %s is the name of a step. */
      message = g_strdup_printf (_("Not run: it needs “%s”, which has no code yet."),
                                 node_run->blocked_by);
      node_run->waiting = TRUE;
      complete_node (node_run, SK_NODE_STATE_SKIPPED, message, NULL);
      return FALSE;
    }

  if (script != NULL && !has_code && run->runner->agent != NULL && !node_run->code_changed)
    {
      start_agent (node_run, NULL, NULL);
      return TRUE;
    }

  if (!has_code)
    {
      g_autofree char *relative = sk_step_folder_relative_path (key, SK_STEP_FILE_SCRIPT);
      g_autofree char *message = NULL;
      gboolean exists = script != NULL && g_file_test (script, G_FILE_TEST_EXISTS);

      /* Without a coding agent, a step without code is not a failure of
       * its code: it waits for someone to write it. */
      if (run->runner->agent == NULL)
        {
          message = exists
            ? g_strdup_printf (_("This step has no code yet: %s/%s is empty. Write its code in "
                                 "the Code cell, or choose a coding agent’s model in Preferences "
                                 "to have it written."), key, relative)
            : g_strdup_printf (_("This step has no code yet: %s/%s does not exist. Write its "
                                 "code in the Code cell, or choose a coding agent’s model in "
                                 "Preferences to have it written."), key, relative);
          complete_node (node_run, SK_NODE_STATE_NO_CODE, message, NULL);
          return FALSE;
        }

      message = exists
        ? g_strdup_printf (_("This step has no code yet: the coding agent left %s/%s empty."),
                           key, relative)
        : g_strdup_printf (_("This step has no code yet: %s/%s does not exist."), key, relative);
      complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
      return FALSE;
    }

  if (node_run->input_problem != NULL)
    {
      complete_node (node_run, SK_NODE_STATE_FAILED, node_run->input_problem, NULL);
      return FALSE;
    }

  if (!gate_allows (node_run))
    return FALSE;

  /* Where the priors' outputs come from decides whether the last result
   * still stands. */
  g_clear_pointer (&node_run->spec, sk_harness_spec_free);
  node_run->spec = build_spec (node_run);

  if (sk_node_get_foreach (node_run->node, NULL, NULL))
    return start_foreach (node_run);

  expected = expected_fingerprint (node_run);

  /* A step whose priors did not all give it their outputs in this run is
   * run again, so that it decides anew whether it can do without them,
   * rather than shown up to date beside a prior that failed. */
  if (!record_read && !run->force)
    record = sk_run_record_read (node_run->folder_path, key);
  if (!run->force && !node_run->upstream_changed && !node_run->missing_unsettled &&
      sk_run_record_is_usable (record, node_run->folder_path, key, expected))
    {
      sk_run_record_restore_outputs (record, node_run->node);
      complete_node (node_run, SK_NODE_STATE_UP_TO_DATE, NULL, NULL);
      return FALSE;
    }

  /* The step is about to replace its outputs: until it has finished and its
   * new record is written, no record may vouch for them.
   */
  if (!sk_run_record_withdraw (node_run->folder_path, key, &error))
    {
      g_autofree char *message = g_strdup_printf (_("The step was not run: %s"), error->message);

      complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
      return FALSE;
    }

  node_run->snapshot = sk_run_record_snapshot_folder (node_run->folder_path);
  node_run->started_running = TRUE;

  sk_node_set_error (node_run->node, NULL, NULL);
  set_state (run, node_run->node, SK_NODE_STATE_RUNNING);
  run->running++;

  if (run->in_memory)
    started = start_in_memory (node_run, &error);
  else
    started = start_isolated (node_run, &error);

  if (!started)
    {
      g_autofree char *message = g_strdup_printf (_("Python could not be started: %s"),
                                                  error->message);

      run->running--;
      complete_node (node_run, SK_NODE_STATE_FAILED, message, NULL);
      return FALSE;
    }

  /* GLib counts the delay in milliseconds in a guint, about 49 days; a
   * longer limit, infinity included, is no limit in practice, and converting
   * it would overflow into a tiny one.
   */
  milliseconds = sk_runner_get_timeout (run->runner) * 1000;
  if (milliseconds > 0 && milliseconds < G_MAXUINT)
    node_run->timeout_id = g_timeout_add ((guint) milliseconds, node_timeout_cb, node_run);

  return TRUE;
}

static void
return_run (GTask *task)
{
  Run *run = g_task_get_task_data (task);

  if (g_cancellable_is_cancelled (run->cancellable))
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The run was stopped."));
  else
    g_task_return_boolean (task, TRUE);
}

static void
worker_closed_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  sk_harness_worker_close_finish (SK_HARNESS_WORKER (object), result, NULL);
  return_run (task);
}

static void complete_run (Run *run);

static void
outputs_saved (NodeRun    *carrier,
               JsonObject *report)
{
  Run *run = carrier->run;
  JsonNode *saved = sk_json_get_member (report, "saved");
  JsonArray *keys = saved != NULL && JSON_NODE_HOLDS_ARRAY (saved) ? json_node_get_array (saved) : NULL;

  for (guint i = 0; keys != NULL && i < json_array_get_length (keys); i++)
    {
      SkNode *node = sk_project_get_node_by_key (run->project,
                                                 json_array_get_string_element (keys, i));
      NodeRun *node_run = node != NULL ? g_hash_table_lookup (run->node_runs, node) : NULL;

      /* A record that says the outputs are saved lets the next run find
       * them up to date. */
      if (node_run != NULL && node_run->final_state == SK_NODE_STATE_SUCCEEDED)
        write_record_full (node_run, "success", FALSE, NULL, NULL, NULL);
    }

  run->running--;
  complete_run (run);
}

/* In the in-memory mode the outputs live in the worker only. A run that
 * stops at an approval gate saves them, so that the next one goes on from
 * the gate without running again what came before it. */
static gboolean
save_outputs_at_gate (Run *run)
{
  g_autoptr(JsonArray) keys = json_array_new ();
  g_autofree char *workflow_path = NULL;
  NodeRun *carrier = NULL;
  GHashTableIter iter;
  NodeRun *node_run;
  SkHarnessSpec *spec;

  if (!run->in_memory || run->saved || run->worker == NULL || run->worker_failure != NULL ||
      run->stats.awaiting_approval == 0 || g_cancellable_is_cancelled (run->cancellable))
    return FALSE;

  run->saved = TRUE;
  g_hash_table_iter_init (&iter, run->node_runs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &node_run))
    {
      if (node_run->final_state == SK_NODE_STATE_SUCCEEDED && node_run->started_running)
        json_array_add_string_element (keys, sk_node_get_key (node_run->node));
      else if (node_run->final_state == SK_NODE_STATE_AWAITING_APPROVAL)
        carrier = node_run;
    }

  if (carrier == NULL || json_array_get_length (keys) == 0)
    return FALSE;

  workflow_path = g_file_get_path (sk_project_get_folder (run->project));
  spec = sk_harness_spec_new (workflow_path, carrier->folder_path, sk_node_get_key (carrier->node),
                              sk_runner_get_log_limit (run->runner));
  sk_harness_spec_set_command (spec, "save");
  sk_harness_spec_set_member (spec, "keys", json_node_init_array (json_node_alloc (), keys));

  run->running++;
  start_aux (carrier, spec, outputs_saved);
  return TRUE;
}

static void
complete_run (Run *run)
{
  g_autoptr(GTask) task = NULL;

  if (save_outputs_at_gate (run))
    return;

  task = g_steal_pointer (&run->task);
  run->completing = TRUE;
  run->stats.seconds = (g_get_monotonic_time () - run->started) / (double) G_USEC_PER_SEC;

  /* No step of the server's still runs. */
  if (run->server != NULL)
    sk_harness_server_stop (run->server);
  g_clear_object (&run->server);

  /* Wait for the worker, so that no process outlives the run. */
  if (run->worker != NULL)
    {
      sk_harness_worker_close_async (run->worker, worker_closed_cb, g_steal_pointer (&task));
      return;
    }

  return_run (task);
}

static void
schedule (Run *run)
{
  if (run->completing)
    return;

  for (;;)
    {
      NodeRun *node_run;

      /* The in-memory worker runs one node at a time. */
      if (run->running >= (run->in_memory ? 1 : run->jobs))
        break;

      node_run = g_queue_pop_head (&run->ready);
      if (node_run == NULL)
        break;

      start_node (node_run);
    }

  if (run->remaining == 0 && run->running == 0)
    complete_run (run);
}

/* Called from the thread that cancelled; signals are safe to send from any
 * thread, and the worker's exit comes back on the main context. Each
 * launch in isolated mode watches the cancellable itself.
 */
static void
cancelled_cb (GCancellable *cancellable,
              Run          *run)
{
  if (run->worker != NULL)
    sk_harness_worker_kill (run->worker);
}

/* Starting a run -------------------------------------------------------- */

/* Once the fingerprints and the records are there, the nodes that need no
 * other node's result can start. */
static void
got_ready (Run *run)
{
  g_autoptr(SkFingerprints) fingerprints = NULL;

  g_assert (run->getting_ready > 0);
  if (--run->getting_ready > 0)
    return;

  /* Without fingerprints the run was stopped; the nodes are scheduled all
   * the same, and each reports that it did not start.
   */
  fingerprints = g_steal_pointer (&run->fingerprints);
  for (guint i = 0; i < run->order->len; i++)
    {
      NodeRun *node_run = g_hash_table_lookup (run->node_runs, g_ptr_array_index (run->order, i));

      if (node_run == NULL)
        continue;

      if (fingerprints != NULL)
        {
          node_run->fingerprint = g_strdup (sk_fingerprints_get (fingerprints, i));
          node_run->item_fingerprint_base = g_strdup (sk_fingerprints_get_item_base (fingerprints, i));
          node_run->input_problem = g_strdup (sk_fingerprints_get_problem (fingerprints, i));
        }
      if (node_run->pending_priors == 0)
        g_queue_push_tail (&run->ready, node_run);
    }

  schedule (run);
}

static void
fingerprints_ready_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Run *run = user_data;

  run->fingerprints = sk_fingerprints_compute_finish (result, NULL);
  got_ready (run);
}

/* The records of the nodes a run may find up to date: reading a thousand
 * small files takes a while, which the hashing of the fingerprints, in a
 * thread of its own, hides. */
typedef struct
{
  GPtrArray  *node_runs;
  GStrv       folders;
  GStrv       keys;
  JsonObject **records;
  guint       n_read;
} RecordReads;

static void
record_reads_free (RecordReads *reads)
{
  for (guint i = 0; i < reads->node_runs->len; i++)
    g_clear_pointer (&reads->records[i], json_object_unref);
  g_free (reads->records);
  g_strfreev (reads->folders);
  g_strfreev (reads->keys);
  g_ptr_array_unref (reads->node_runs);
  g_free (reads);
}

static void
read_records_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  RecordReads *reads = task_data;

  for (; reads->n_read < reads->node_runs->len && !g_cancellable_is_cancelled (cancellable);
       reads->n_read++)
    reads->records[reads->n_read] = sk_run_record_read (reads->folders[reads->n_read],
                                                        reads->keys[reads->n_read]);
  g_task_return_boolean (task, TRUE);
}

static void
records_read_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Run *run = user_data;
  RecordReads *reads = g_task_get_task_data (G_TASK (result));

  /* A stopped run may not have read them all; the others are read when
   * their nodes start. */
  for (guint i = 0; i < reads->n_read; i++)
    {
      NodeRun *node_run = g_ptr_array_index (reads->node_runs, i);

      node_run->record = g_steal_pointer (&reads->records[i]);
      node_run->record_read = TRUE;
    }

  got_ready (run);
}

/* Reads the records of @run's nodes in a thread; got_ready() is called
 * when they are there. */
static void
read_records_async (Run *run)
{
  g_autoptr(GTask) task = NULL;
  RecordReads *reads = g_new0 (RecordReads, 1);
  GStrvBuilder *folders = g_strv_builder_new ();
  GStrvBuilder *keys = g_strv_builder_new ();

  reads->node_runs = g_ptr_array_new ();
  for (guint i = 0; i < run->order->len; i++)
    {
      NodeRun *node_run = g_hash_table_lookup (run->node_runs, g_ptr_array_index (run->order, i));

      if (node_run == NULL || node_run->folder_path == NULL)
        continue;

      g_ptr_array_add (reads->node_runs, node_run);
      g_strv_builder_add (folders, node_run->folder_path);
      g_strv_builder_add (keys, sk_node_get_key (node_run->node));
    }
  reads->folders = g_strv_builder_end (folders);
  reads->keys = g_strv_builder_end (keys);
  reads->records = g_new0 (JsonObject *, reads->node_runs->len);
  g_strv_builder_unref (folders);
  g_strv_builder_unref (keys);

  run->getting_ready++;
  task = g_task_new (NULL, run->cancellable, records_read_cb, run);
  g_task_set_source_tag (task, read_records_async);
  g_task_set_task_data (task, reads, (GDestroyNotify) record_reads_free);
  g_task_run_in_thread (task, read_records_thread);
}

static void
run_start (SkRunner     *self,
           SkProject    *project,
           GPtrArray    *nodes,
           gboolean      generate_only,
           GCancellable *cancellable,
           GTask        *task)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) selection = NULL;
  g_autoptr(GHashTable) selected = NULL;
  SkFingerprints *fingerprints;
  Run *run;

  run = g_new0 (Run, 1);
  run->generate_only = !!generate_only;
  run->runner = g_object_ref (self);
  run->project = g_object_ref (project);
  run->cancellable = cancellable != NULL ? g_object_ref (cancellable) : g_cancellable_new ();
  run->node_runs = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) node_run_free);
  run->started = g_get_monotonic_time ();
  run->in_memory = self->in_memory;
  run->force = self->force;
  run->jobs = self->jobs > 0 ? self->jobs : MAX (1, g_get_num_processors ());
  g_queue_init (&run->ready);
  g_task_set_task_data (task, run, (GDestroyNotify) run_free);

  if ((run->python = _sk_runner_find_python (self, project, &error)) == NULL ||
      (run->harness = sk_harness_get_path (&error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }

  if (!generate_only)
    sk_harness_precompile (run->harness, run->python);

  /* A run killed outright may have left a step running, holding its
   * folder; it is stopped before its step runs again. */
  sk_process_kill_orphans ();

  if (!generate_only)
    {
      g_autofree char *warning = NULL;

      run->sandbox = sk_sandbox_new_for_steps (self->sandbox_policy, run->python, &warning, &error);
      if (run->sandbox == NULL)
        {
          g_task_return_new_error (task, SK_RUNNER_ERROR, SK_RUNNER_ERROR_NO_SANDBOX,
                                   "%s", error->message);
          g_object_unref (task);
          return;
        }
      if (warning != NULL)
        _sk_runner_emit_notice (self, warning);
      else if (run->in_memory && sk_sandbox_is_confined (run->sandbox))
        _sk_runner_emit_notice (self, _("In the in-memory mode the steps run in one process, and "
                                        "so share one sandbox: each may change the folders of the "
                                        "others that run with it. Run them one process each to "
                                        "keep them apart."));
    }

  run->order = sk_project_topological_order (project, &error);
  if (run->order == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }

  /* A condition that is not Python would fail its step only once the run
   * reaches it; it is refused before anything runs. When Python cannot
   * check, the run tells it at the condition. */
  if (!generate_only)
    {
      g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free);

      if (sk_project_check_conditions (project, run->python, problems, NULL) && problems->len > 0)
        {
          SkProblem *problem = g_ptr_array_index (problems, 0);

          g_task_return_new_error (task, SK_CONTROL_FLOW_ERROR, SK_CONTROL_FLOW_ERROR_CHECK,
                                   "%s", problem->message);
          g_object_unref (task);
          return;
        }
    }

  if (nodes != NULL)
    selection = g_ptr_array_ref (nodes);
  else if (generate_only)
    selection = g_ptr_array_ref (run->order);
  else
    selection = sk_project_select_nodes (project, NULL, NULL, NULL, NULL);

  selected = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < selection->len; i++)
    g_hash_table_add (selected, g_ptr_array_index (selection, i));

  for (guint i = 0; i < run->order->len; i++)
    {
      SkNode *node = g_ptr_array_index (run->order, i);
      g_autoptr(GFile) folder = sk_project_get_node_folder (project, node);
      NodeRun *node_run;

      if (!g_hash_table_contains (selected, node))
        continue;

      node_run = g_new0 (NodeRun, 1);
      node_run->run = run;
      node_run->node = g_object_ref (node);
      node_run->folder_path = g_file_get_path (folder);
      node_run->successors = g_ptr_array_new ();
      node_run->selected = TRUE;
      node_run->final_state = SK_NODE_STATE_QUEUED;
      g_hash_table_insert (run->node_runs, node, node_run);
      run->remaining++;
    }

  /* Link each selected node to its selected priors; the others are read
   * from their last saved results.
   */
  for (guint i = 0; i < run->order->len; i++)
    {
      SkNode *node = g_ptr_array_index (run->order, i);
      NodeRun *node_run = g_hash_table_lookup (run->node_runs, node);
      g_autoptr(GPtrArray) priors = NULL;

      if (node_run == NULL)
        continue;

      priors = sk_project_get_prior_nodes (project, node);
      for (guint j = 0; j < priors->len; j++)
        {
          NodeRun *prior_run = g_hash_table_lookup (run->node_runs, g_ptr_array_index (priors, j));

          if (prior_run != NULL)
            {
              g_ptr_array_add (prior_run->successors, node_run);
              node_run->pending_priors++;
            }
        }

      if (generate_only)
        {
          g_autofree char *script = sk_project_get_node_script_path (project, node);

          if (sk_runner_script_path_has_code (script))
            continue;
        }

      sk_node_set_error (node, NULL, NULL);
      set_state (run, node, SK_NODE_STATE_QUEUED);
    }

  run->cancelled_id = g_cancellable_connect (run->cancellable, G_CALLBACK (cancelled_cb), run, NULL);
  run->task = task;

  /* Hashing scripts and input files can take a while; it happens in a
   * thread, on a copy of what it needs, and the run goes on when it is done.
   */
  fingerprints = sk_fingerprints_new (project, run->order, run->python);
  sk_fingerprints_set_inputs (fingerprints, self->inputs_fingerprint);
  run->getting_ready = 1;
  sk_fingerprints_compute_async (fingerprints, run->cancellable, fingerprints_ready_cb, run);
  if (!run->force && !generate_only)
    read_records_async (run);
}

typedef struct
{
  SkRunner     *runner;
  SkProject    *project;
  GPtrArray    *nodes;
  GCancellable *cancellable;
  GTask        *task;
  gboolean      generate_only;
} Prepare;

static void
prepared_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Prepare *prepare = user_data;

  sk_sandbox_prepare_finish (result, NULL);
  run_start (prepare->runner, prepare->project, prepare->nodes, prepare->generate_only,
             prepare->cancellable, prepare->task);

  g_object_unref (prepare->runner);
  g_object_unref (prepare->project);
  g_clear_pointer (&prepare->nodes, g_ptr_array_unref);
  g_clear_object (&prepare->cancellable);
  g_free (prepare);
}

/**
 * _sk_runner_run_start:
 * @self: the runner
 * @project: a valid workflow with a folder
 * @nodes: (nullable): the nodes to run, as for sk_runner_run_async()
 * @generate_only: whether only the coding agent works, running nothing
 * @cancellable: (nullable): stops the run
 * @task: (transfer full): the task to return when the run is over
 *
 * Prepares a run of @project and starts it once the fingerprints are
 * computed. The run keeps its data in @task.
 */
void
_sk_runner_run_start (SkRunner     *self,
                      SkProject    *project,
                      GPtrArray    *nodes,
                      gboolean      generate_only,
                      GCancellable *cancellable,
                      GTask        *task)
{
  g_autofree char *python = NULL;

  /* Finding the sandbox and asking the interpreter what it needs can take
   * a second the first time; it is done in a thread, not in the window's. */
  if (!generate_only && self->sandbox_policy != SK_SANDBOX_POLICY_OFF &&
      (python = _sk_runner_find_python (self, project, NULL)) != NULL &&
      !sk_sandbox_is_prepared (python))
    {
      Prepare *prepare = g_new0 (Prepare, 1);

      prepare->runner = g_object_ref (self);
      prepare->project = g_object_ref (project);
      prepare->nodes = nodes != NULL ? g_ptr_array_ref (nodes) : NULL;
      prepare->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
      prepare->task = task;
      prepare->generate_only = !!generate_only;
      sk_sandbox_prepare_async (python, prepared_cb, prepare);
      return;
    }

  run_start (self, project, nodes, generate_only, cancellable, task);
}

/**
 * _sk_runner_run_get_stats:
 * @task: a task given to _sk_runner_run_start()
 * @stats: (out caller-allocates): what the run did
 */
void
_sk_runner_run_get_stats (GTask      *task,
                          SkRunStats *stats)
{
  Run *run = g_task_get_task_data (task);

  if (run != NULL)
    *stats = run->stats;
  else
    memset (stats, 0, sizeof *stats);
}
