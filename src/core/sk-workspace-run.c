/* sk-workspace-run.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-workspace"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-agent-key.h"
#include "sk-agent-settings.h"
#include "sk-settings.h"
#include "sk-workspace-private.h"

/* Preparing and running: the part of the open workflow that both the
 * window and skele go through to run it. */

/* One run under way: what was asked, and what the preparation found. */
typedef struct
{
  GPtrArray       *nodes;
  SkAgentSettings *agent_settings;
  char            *python;
  GStrv            approve;
  char            *provider;
  char            *base_url;
  char            *model;
  SkRunOptions     options;
  SkRunReport      report;
  SkSandboxPolicy  sandbox_policy;
} RunData;

static void
run_data_free (RunData *data)
{
  g_clear_pointer (&data->nodes, g_ptr_array_unref);
  g_clear_pointer (&data->agent_settings, sk_agent_settings_free);
  g_clear_pointer (&data->python, g_free);
  g_clear_pointer (&data->approve, g_strfreev);
  g_clear_pointer (&data->provider, g_free);
  g_clear_pointer (&data->base_url, g_free);
  g_clear_pointer (&data->model, g_free);
  g_free (data);
}

/* Running ----------------------------------------------------------------- */

static RunData *
current_run (SkWorkspace *self)
{
  return self->run_task != NULL ? g_task_get_task_data (self->run_task) : NULL;
}

static void
caller_cancelled_cb (GCancellable *cancellable,
                     SkWorkspace  *self)
{
  /* The caller's cancellable may fire in another thread. */
  g_cancellable_cancel (self->run_cancellable);
}

/* Ends the run under way with what the runner reported, or @error. */
static void
complete_run (SkWorkspace *self,
              GError      *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->run_task);
  RunData *data = g_task_get_task_data (task);

  /* Only steps without code at the start can have gained it. */
  if (data->report.missing_before > 0)
    data->report.missing_after = sk_workspace_count_missing_scripts (self, data->nodes);

  if (self->caller_cancellable != NULL)
    g_cancellable_disconnect (self->caller_cancellable, self->caller_cancelled_id);
  self->caller_cancelled_id = 0;
  g_clear_object (&self->caller_cancellable);
  g_clear_object (&self->run_cancellable);

  _sk_workspace_notify_running (self);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
runner_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(SkWorkspace) self = user_data;
  RunData *data = current_run (self);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) save_error = NULL;

  sk_runner_run_finish (SK_RUNNER (object), result, &data->report.stats, &error);

  /* A step's code may have deleted the workflow file; the workflow is
   * still whole here, so it is written again. */
  if (!self->closed && sk_project_get_folder (self->project) != NULL)
    {
      g_autoptr(GFile) file = sk_project_get_file (self->project);

      if (file != NULL && !g_file_query_exists (file, NULL))
        {
          _sk_workspace_emit_message (self, _("A step deleted process.json during the run; "
                                              "it was written again from the open workflow."),
                                      FALSE);
          sk_project_set_modified (self->project, TRUE);
        }
    }

  /* The results, the reports and the token counts belong in process.json,
   * even for a run that was stopped. */
  if (!self->closed && sk_project_get_modified (self->project) &&
      !sk_project_save (self->project, &save_error) && error == NULL)
    error = g_error_new (SK_WORKSPACE_ERROR, SK_WORKSPACE_ERROR_SAVE,
                         _("The run finished, but its results could not be written into the "
                           "workflow: %s"), save_error->message);

  complete_run (self, g_steal_pointer (&error));
}

static guint
settings_uint (SkWorkspace *self,
               const char  *key,
               guint        fallback)
{
  if (self->settings == NULL || !sk_settings_has_key (self->settings, key))
    return fallback;

  return g_settings_get_uint (self->settings, key);
}

static char *
settings_python (SkWorkspace *self)
{
  g_autofree char *python = NULL;

  if (self->settings == NULL || !sk_settings_has_key (self->settings, "python"))
    return NULL;

  python = g_strstrip (g_settings_get_string (self->settings, "python"));
  return python[0] != '\0' ? g_steal_pointer (&python) : NULL;
}

/* Whether the steps run in a sandbox: the settings, then the environment,
 * then @options. A value that names no policy keeps the safest one.
 */
static SkSandboxPolicy
sandbox_policy (SkWorkspace        *self,
                const SkRunOptions *options)
{
  SkSandboxPolicy policy = SK_SANDBOX_POLICY_REQUIRED;
  const char *variable = g_getenv ("SKELE_SANDBOX");

  if (options->sandbox >= 0 && options->sandbox <= SK_SANDBOX_POLICY_OFF)
    return (SkSandboxPolicy) options->sandbox;

  if (self->settings != NULL && sk_settings_has_key (self->settings, "sandbox"))
    {
      g_autofree char *setting = g_settings_get_string (self->settings, "sandbox");

      sk_sandbox_policy_from_string (setting, &policy);
    }

  if (variable != NULL && variable[0] != '\0' &&
      !sk_sandbox_policy_from_string (variable, &policy))
    {
      g_autofree char *message =
        g_strdup_printf (_("SKELE_SANDBOX is “%s”, which is not one of “required”, “when-available” "
                           "or “off”; steps run only in a sandbox."), variable);

      policy = SK_SANDBOX_POLICY_REQUIRED;
      _sk_workspace_emit_message (self, message, FALSE);
    }

  return policy;
}

/* Which model the coding agent uses: Preferences, then the environment,
 * then @options. The model may be empty: then there is no agent. */
static SkAgentSettings *
load_agent_settings (SkWorkspace         *self,
                     const SkRunOptions  *options,
                     GError             **error)
{
  g_autoptr(SkAgentSettings) settings = sk_agent_settings_load (self->settings, FALSE, error);

  if (settings == NULL ||
      !sk_agent_settings_override (settings, options->provider, options->base_url, options->model, error))
    return NULL;

  return g_steal_pointer (&settings);
}

static gboolean
has_model (const SkAgentSettings *settings)
{
  return settings != NULL && settings->model != NULL && settings->model[0] != '\0';
}

/* Gives the runner what the run asks for, over the settings the window and
 * the command line share, and starts it. */
static void
launch (SkWorkspace *self)
{
  RunData *data = current_run (self);
  const SkRunOptions *options = &data->options;
  g_autofree char *description = NULL;
  g_autofree char *python = NULL;
  gboolean generate = data->report.generated;

  sk_runner_set_agent (self->runner, NULL);
  if (has_model (data->agent_settings))
    {
      g_autoptr(GError) error = NULL;

      data->report.had_agent = sk_runner_set_agent_settings (self->runner, data->agent_settings, &error);
      if (!data->report.had_agent)
        {
          if (generate || options->strict)
            {
              complete_run (self, g_steal_pointer (&error));
              return;
            }
          _sk_workspace_emit_message (self, error->message, TRUE);
        }
      else
        description = sk_agent_settings_describe (data->agent_settings);
    }

  /* Writing code without a model fails with the settings' own words on
   * how to choose one. */
  if (generate && !data->report.had_agent)
    {
      g_autoptr(SkLlmClient) client = NULL;
      g_autoptr(GError) error = NULL;

      if (data->agent_settings != NULL)
        client = sk_agent_settings_create_client (data->agent_settings, &error);
      if (error == NULL)
        error = g_error_new_literal (SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED,
                                     _("No coding agent is set up yet. Choose its model in Preferences."));
      complete_run (self, g_steal_pointer (&error));
      return;
    }

  python = options->python != NULL ? g_strdup (options->python) : settings_python (self);
  sk_runner_set_jobs (self->runner, options->jobs >= 0 ? (guint) options->jobs : settings_uint (self, "jobs", 0));
  sk_runner_set_timeout (self->runner, options->timeout >= 0 ? options->timeout
                                                             : (double) settings_uint (self, "timeout", 0));
  sk_runner_set_python (self->runner, python);
  sk_runner_set_force (self->runner, options->force);
  sk_runner_set_in_memory (self->runner, options->in_memory);
  sk_runner_set_approve (self->runner, options->approve);
  sk_runner_set_sandbox_policy (self->runner, data->sandbox_policy);

  _sk_workspace_emit_run_started (self, description);

  if (generate)
    sk_runner_generate_async (self->runner, self->project, data->nodes, self->run_cancellable,
                              runner_done_cb, g_object_ref (self));
  else
    sk_runner_run_async (self->runner, self->project, data->nodes, self->run_cancellable,
                         runner_done_cb, g_object_ref (self));
}

static void
key_lookup_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SkWorkspace) self = user_data;
  RunData *data = current_run (self);
  g_autoptr(GError) error = NULL;
  char *key;

  key = sk_agent_key_lookup_finish (result, &error);

  if (g_cancellable_is_cancelled (self->run_cancellable) || self->closed)
    {
      g_free (key);
      complete_run (self, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Stopped")));
      return;
    }

  /* A server on this computer often needs no key; one that does says so
   * when it refuses the request. A locked keyring is told, though: the
   * key is there, and the user can unlock it. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    _sk_workspace_emit_message (self, error->message, TRUE);
  else if (error != NULL)
    g_debug ("No API key from the keyring: %s", error->message);

  g_free (data->agent_settings->api_key);
  data->agent_settings->api_key = key;
  launch (self);
}

/* Public API -------------------------------------------------------------- */

/**
 * sk_run_options_init:
 * @options: the options to set up
 *
 * Sets @options to run as the settings say: no overrides, no force, the
 * isolated mode, the coding agent when one is set up.
 */
void
sk_run_options_init (SkRunOptions *options)
{
  g_return_if_fail (options != NULL);

  memset (options, 0, sizeof *options);
  options->jobs = -1;
  options->timeout = -1;
  options->sandbox = -1;
}

/**
 * sk_workspace_check_agent:
 * @self: a #SkWorkspace
 * @options: (nullable): what a run would ask beyond the settings
 * @error: return location for a #GError
 *
 * Whether a coding agent is set up, so that a caller can say so before it
 * asks anything of the user.
 *
 * Returns: %TRUE when a run would have a coding agent; %FALSE with
 *   %SK_LLM_ERROR_NOT_CONFIGURED, or the settings' error, otherwise
 */
gboolean
sk_workspace_check_agent (SkWorkspace         *self,
                          const SkRunOptions  *options,
                          GError             **error)
{
  g_autoptr(SkAgentSettings) settings = NULL;
  g_autoptr(SkLlmClient) client = NULL;
  SkRunOptions defaults;

  g_return_val_if_fail (SK_IS_WORKSPACE (self), FALSE);

  if (options == NULL)
    {
      sk_run_options_init (&defaults);
      options = &defaults;
    }

  settings = load_agent_settings (self, options, error);
  if (settings == NULL)
    return FALSE;

  if (!has_model (settings))
    {
      g_set_error_literal (error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED,
                           _("No coding agent is set up yet. Choose its model in Preferences."));
      return FALSE;
    }

  client = sk_agent_settings_create_client (settings, error);
  return client != NULL;
}

/**
 * sk_workspace_count_missing_scripts:
 * @self: a #SkWorkspace
 * @nodes: (nullable) (element-type SkNode): steps of the workflow, or
 *   %NULL for all of them
 *
 * Returns: how many of @nodes have no code yet: no script, or one that is
 *   empty or only spaces
 */
guint
sk_workspace_count_missing_scripts (SkWorkspace *self,
                                    GPtrArray   *nodes)
{
  g_autoptr(GPtrArray) all = NULL;
  guint missing = 0;

  g_return_val_if_fail (SK_IS_WORKSPACE (self), 0);

  if (nodes == NULL)
    {
      guint n_nodes = g_list_model_get_n_items (G_LIST_MODEL (self->project));

      nodes = all = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < n_nodes; i++)
        g_ptr_array_add (all, g_list_model_get_item (G_LIST_MODEL (self->project), i));
    }

  for (guint i = 0; i < nodes->len; i++)
    {
      g_autofree char *script = sk_project_get_node_script_path (self->project,
                                                                 g_ptr_array_index (nodes, i));

      if (!sk_runner_script_path_has_code (script))
        missing++;
    }

  return missing;
}

/**
 * sk_workspace_get_nodes_without_code:
 * @self: a #SkWorkspace
 *
 * Returns: (transfer container) (element-type SkNode): the steps that have
 *   no code yet (no script, or one that is only spaces), in file order
 */
GPtrArray *
sk_workspace_get_nodes_without_code (SkWorkspace *self)
{
  GPtrArray *nodes;
  guint n_nodes;

  g_return_val_if_fail (SK_IS_WORKSPACE (self), NULL);

  nodes = g_ptr_array_new_with_free_func (g_object_unref);
  n_nodes = g_list_model_get_n_items (G_LIST_MODEL (self->project));
  for (guint i = 0; i < n_nodes; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->project), i);
      g_autofree char *script = sk_project_get_node_script_path (self->project, node);

      if (script != NULL && !sk_runner_script_path_has_code (script))
        g_ptr_array_add (nodes, g_steal_pointer (&node));
    }

  return nodes;
}

/**
 * sk_workspace_run_async:
 * @self: a #SkWorkspace
 * @nodes: (nullable) (element-type SkNode): the steps to run, or to write
 *   code for; %NULL for those the runner picks: the steps marked to run, or
 *   every step when writing code
 * @options: (nullable): what the run asks beyond the settings
 * @generate: only write the code of the steps that have none
 * @cancellable: (nullable): stops the run, as sk_workspace_stop() does
 * @callback: called when the run is over
 * @user_data: data for @callback
 *
 * Prepares and runs: saves the workflow when it has unsaved changes, reads
 * the coding agent's settings and asks the keyring for its API key without
 * blocking, gives the runner the settings the window and the command line
 * share (steps at once, time limit, interpreter) with @options over them,
 * runs @nodes, and saves the results into process.json. Progress comes as
 * the runner's signals, #SkWorkspace::run-started and
 * #SkWorkspace::agent-progress.
 */
void
sk_workspace_run_async (SkWorkspace         *self,
                        GPtrArray           *nodes,
                        const SkRunOptions  *options,
                        gboolean             generate,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  RunData *data;

  g_return_if_fail (SK_IS_WORKSPACE (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_workspace_run_async);

  data = g_new0 (RunData, 1);
  data->nodes = nodes != NULL ? g_ptr_array_ref (nodes) : NULL;
  if (options != NULL)
    data->options = *options;
  else
    sk_run_options_init (&data->options);
  /* The options' strings are the caller's; keep copies for the run. */
  data->options.python = data->python = g_strdup (data->options.python);
  data->options.provider = data->provider = g_strdup (data->options.provider);
  data->options.base_url = data->base_url = g_strdup (data->options.base_url);
  data->options.model = data->model = g_strdup (data->options.model);
  data->options.approve = (const char * const *) (data->approve = g_strdupv ((char **) data->options.approve));
  data->report.generated = !!generate;
  g_task_set_task_data (task, data, (GDestroyNotify) run_data_free);

  if (self->run_task != NULL)
    {
      g_task_return_new_error (task, SK_WORKSPACE_ERROR, SK_WORKSPACE_ERROR_BUSY,
                               _("The workflow is running already"));
      return;
    }

  /* Whether the sandbox works is found out by starting it, which the run
   * would wait for; it is found out while the run gets ready instead. */
  data->sandbox_policy = sandbox_policy (self, &data->options);
  if (!generate && data->sandbox_policy != SK_SANDBOX_POLICY_OFF)
    sk_sandbox_probe_in_background ();

  if (!data->options.no_agent)
    {
      data->agent_settings = load_agent_settings (self, &data->options, &error);
      if (error != NULL)
        {
          if (generate || data->options.strict)
            {
              g_task_return_error (task, g_steal_pointer (&error));
              return;
            }
          _sk_workspace_emit_message (self, error->message, FALSE);
          g_clear_error (&error);
        }
    }

  /* The runner reads the scripts and the workflow from disk, so what runs
   * is what the user sees. */
  if (sk_project_get_modified (self->project) && !sk_workspace_save (self, &error))
    {
      g_task_return_new_error (task, SK_WORKSPACE_ERROR, SK_WORKSPACE_ERROR_SAVE,
                               _("The workflow could not be saved: %s"), error->message);
      return;
    }

  data->report.missing_before = sk_workspace_count_missing_scripts (self, nodes);
  self->run_task = g_steal_pointer (&task);
  self->run_cancellable = g_cancellable_new ();
  if (cancellable != NULL)
    {
      self->caller_cancellable = g_object_ref (cancellable);
      self->caller_cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (caller_cancelled_cb),
                                                         self, NULL);
    }

  if (nodes != NULL)
    _sk_workspace_clear_agent_logs (self, nodes);
  _sk_workspace_notify_running (self);

  /* The keyring is asked without blocking, and a stop works meanwhile. */
  if (has_model (data->agent_settings) && data->agent_settings->api_key == NULL)
    {
      sk_agent_key_lookup_async (data->agent_settings->provider, data->agent_settings->base_url,
                                 self->run_cancellable, key_lookup_cb, g_object_ref (self));
      return;
    }

  launch (self);
}

/**
 * sk_workspace_run_finish:
 * @self: a #SkWorkspace
 * @result: the #GAsyncResult passed to the callback
 * @report: (out caller-allocates) (optional): what the run did, filled in
 *   also when it was stopped
 * @error: return location for a #GError
 *
 * A run that went through is a success even when steps failed: @report
 * counts them. It fails with %G_IO_ERROR_CANCELLED when it was stopped,
 * with %SK_LLM_ERROR_NOT_CONFIGURED when code was to be written and no
 * coding agent is set up, or when the workflow could not be run or saved.
 *
 * Returns: %TRUE if the run went through
 */
gboolean
sk_workspace_run_finish (SkWorkspace   *self,
                         GAsyncResult  *result,
                         SkRunReport   *report,
                         GError       **error)
{
  RunData *data;

  g_return_val_if_fail (SK_IS_WORKSPACE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_workspace_run_async, FALSE);

  data = g_task_get_task_data (G_TASK (result));
  if (report != NULL)
    *report = data->report;

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * sk_workspace_stop:
 * @self: a #SkWorkspace
 *
 * Stops the run under way, if any; its callback still comes.
 */
void
sk_workspace_stop (SkWorkspace *self)
{
  g_return_if_fail (SK_IS_WORKSPACE (self));

  if (self->run_cancellable != NULL)
    g_cancellable_cancel (self->run_cancellable);
}

/**
 * sk_workspace_get_running:
 * @self: a #SkWorkspace
 *
 * Returns: whether a run, or the writing of code, is under way
 */
gboolean
sk_workspace_get_running (SkWorkspace *self)
{
  g_return_val_if_fail (SK_IS_WORKSPACE (self), FALSE);

  return self->run_task != NULL;
}

/**
 * sk_workspace_get_generating:
 * @self: a #SkWorkspace
 *
 * Returns: whether the run under way only writes code
 */
gboolean
sk_workspace_get_generating (SkWorkspace *self)
{
  RunData *data;

  g_return_val_if_fail (SK_IS_WORKSPACE (self), FALSE);

  data = current_run (self);
  return data != NULL && data->report.generated;
}

/**
 * sk_workspace_get_run_nodes:
 * @self: a #SkWorkspace
 *
 * Returns: (transfer none) (nullable) (element-type SkNode): the steps of
 *   the run under way
 */
GPtrArray *
sk_workspace_get_run_nodes (SkWorkspace *self)
{
  RunData *data;

  g_return_val_if_fail (SK_IS_WORKSPACE (self), NULL);

  data = current_run (self);
  return data != NULL ? data->nodes : NULL;
}

/**
 * sk_workspace_get_agent_log:
 * @self: a #SkWorkspace
 * @node: a step
 *
 * The coding agent's progress lines for @node since the step last started
 * to run, the newest last and at most %SK_WORKSPACE_MAX_AGENT_LINES.
 *
 * Returns: (transfer none) (nullable) (element-type utf8): the lines, or
 *   %NULL when there are none
 */
GPtrArray *
sk_workspace_get_agent_log (SkWorkspace *self,
                            SkNode      *node)
{
  g_return_val_if_fail (SK_IS_WORKSPACE (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  return g_hash_table_lookup (self->agent_logs, node);
}
