/* sk-workspace.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-workspace"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sk-json.h"
#include "sk-project-private.h"
#include "sk-settings.h"
#include "sk-step-folder.h"
#include "sk-workspace-private.h"

#define DEFAULT_AUTOSAVE_DELAY_MS 2000


G_DEFINE_FINAL_TYPE (SkWorkspace, sk_workspace, G_TYPE_OBJECT)

G_DEFINE_QUARK (sk-workspace-error-quark, sk_workspace_error)

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_HISTORY,
  PROP_RUNNER,
  PROP_SETTINGS,
  PROP_FOLDER,
  PROP_AUTOSAVE,
  PROP_AUTOSAVE_DELAY,
  PROP_RUNNING,
  PROP_GENERATING,
  N_PROPS
};

enum {
  MESSAGE,
  AGENT_PROGRESS,
  AGENT_LOG_CLEARED,
  AGENT_LOG_CHANGED,
  RUN_STARTED,
  STEP_OUTPUT,
  SAVED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];


void
_sk_workspace_emit_message (SkWorkspace *self,
                            const char  *message,
                            gboolean     about_agent)
{
  g_signal_emit (self, signals [MESSAGE], 0, message, about_agent);
}

/* Recovery copies ------------------------------------------------------- */

static GFile *
get_folder (SkWorkspace *self)
{
  return sk_project_get_folder (self->project);
}

static void
delete_recovery (SkWorkspace *self)
{
  g_clear_handle_id (&self->recovery_id, g_source_remove);
  if (get_folder (self) != NULL)
    sk_step_folder_delete_recovery (get_folder (self));
}

static gboolean
write_recovery_cb (gpointer user_data)
{
  SkWorkspace *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize length;

  self->recovery_id = 0;
  if (!sk_project_get_modified (self->project) || get_folder (self) == NULL)
    return G_SOURCE_REMOVE;

  data = sk_project_to_data (self->project, &length);
  if (!sk_step_folder_write_recovery (get_folder (self), data, length, &error))
    g_debug ("Could not write the recovery copy: %s", error->message);

  return G_SOURCE_REMOVE;
}

static void
schedule_recovery (SkWorkspace *self)
{
  if (!self->autosave || self->recovery_id != 0 || self->closed)
    return;

  self->recovery_id = g_timeout_add (self->autosave_delay, write_recovery_cb, self);
}

static void
project_modified_cb (SkWorkspace *self)
{
  if (sk_project_get_modified (self->project))
    schedule_recovery (self);
  else
    delete_recovery (self);
}

static void
project_folder_cb (SkWorkspace *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_FOLDER]);
}

static void
project_changed_cb (SkWorkspace *self)
{
  if (sk_project_get_modified (self->project))
    schedule_recovery (self);
}

/* Step folders follow their keys ----------------------------------------- */

static gboolean
file_mentions (GFile      *file,
               const char *text)
{
  g_autofree char *contents = NULL;

  if (file == NULL || !g_file_load_contents (file, NULL, &contents, NULL, NULL, NULL))
    return FALSE;

  return strstr (contents, text) != NULL;
}

/* Scripts name their own step and the steps they need by key, so a renamed
 * step's code, and that of the steps after it, may still use the old key. */
static gboolean
code_mentions_key (SkWorkspace *self,
                   SkNode      *node,
                   const char  *key)
{
  g_autoptr(GPtrArray) successors = sk_project_get_successors (self->project, node);
  g_autoptr(GFile) script = sk_project_get_node_script (self->project, node);
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", key);
  g_autofree char *single_quoted = g_strdup_printf ("'%s'", key);

  if (file_mentions (script, quoted) || file_mentions (script, single_quoted))
    return TRUE;

  for (guint i = 0; i < successors->len; i++)
    {
      g_autoptr(GFile) other = sk_project_get_node_script (self->project, g_ptr_array_index (successors, i));

      if (file_mentions (other, quoted) || file_mentions (other, single_quoted))
        return TRUE;
    }

  return FALSE;
}

/* A renamed step keeps its code, files and results: its folder follows its
 * key, which follows its name — and goes back when the rename is undone. */
static void
node_key_changed_cb (SkWorkspace *self,
                     GParamSpec  *pspec,
                     SkNode      *node)
{
  const char *old_key = g_hash_table_lookup (self->keys, node);
  const char *new_key = sk_node_get_key (node);
  g_autoptr(GError) error = NULL;

  if (old_key == NULL || g_strcmp0 (old_key, new_key) == 0 || new_key[0] == '\0' ||
      get_folder (self) == NULL)
    goto remember;

  if (!sk_step_folder_rename (get_folder (self), old_key, new_key, &error))
    {
      g_autofree char *message = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        message = g_strdup_printf (_("The folder “%s” already exists, so the files of “%s” stay in “%s”"),
                                   new_key, sk_node_get_name (node), old_key);
      else
        message = g_strdup_printf (_("The step’s folder could not be renamed: %s"), error->message);
      _sk_workspace_emit_message (self, message, FALSE);
      goto remember;
    }

  if (code_mentions_key (self, node, old_key))
    {
      g_autofree char *message = g_strdup_printf (_("The code of “%s” or of the steps that need it still uses its old name “%s”. "
                                                    "Change it there, or clear the code to have it written again."),
                                                  sk_node_get_name (node), old_key);

      _sk_workspace_emit_message (self, message, FALSE);
    }

remember:
  g_hash_table_insert (self->keys, node, g_strdup (new_key));
}

static void
track_node (SkWorkspace *self,
            SkNode      *node)
{
  g_hash_table_insert (self->keys, node, g_strdup (sk_node_get_key (node)));
  /* A plain connection, not one that adds a weak reference to the
   * workspace for every step; dispose takes them off. */
  g_signal_connect_swapped (node, "notify::key", G_CALLBACK (node_key_changed_cb), self);
}

static void
project_items_changed_cb (SkWorkspace *self,
                          guint        position,
                          guint        removed,
                          guint        added,
                          GListModel  *model)
{
  for (guint i = 0; i < added; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (model, position + i);

      if (!g_hash_table_contains (self->keys, node))
        track_node (self, node);
    }
}

static void
node_removed_cb (SkWorkspace *self,
                 SkNode      *node)
{
  g_signal_handlers_disconnect_by_data (node, self);
  g_hash_table_remove (self->keys, node);
  g_hash_table_remove (self->agent_logs, node);
  g_hash_table_remove (self->agent_transient, node);
}

/* The coding agent's logs ------------------------------------------------ */

void
_sk_workspace_clear_agent_logs (SkWorkspace *self,
                                GPtrArray   *nodes)
{
  for (guint i = 0; i < nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (nodes, i);

      g_hash_table_remove (self->agent_transient, node);
      if (g_hash_table_remove (self->agent_logs, node))
        g_signal_emit (self, signals [AGENT_LOG_CLEARED], 0, node);
    }
}

/* Takes away the passing line that ends @node's log, if there is one, and
 * tells whoever shows the log. */
static void
drop_transient_line (SkWorkspace *self,
                     SkNode      *node)
{
  GPtrArray *log = g_hash_table_lookup (self->agent_logs, node);

  if (!g_hash_table_remove (self->agent_transient, node))
    return;

  if (log != NULL && log->len > 0)
    g_ptr_array_remove_index (log, log->len - 1);
  g_signal_emit (self, signals [AGENT_LOG_CHANGED], 0, node);
}

static void
add_agent_line (SkWorkspace *self,
                SkNode      *node,
                const char  *line,
                gboolean     transient)
{
  GPtrArray *log;

  drop_transient_line (self, node);

  log = g_hash_table_lookup (self->agent_logs, node);
  if (log == NULL)
    {
      log = g_ptr_array_new_with_free_func (g_free);
      g_hash_table_insert (self->agent_logs, node, log);
    }

  g_ptr_array_add (log, g_strdup (line));
  if (log->len > SK_WORKSPACE_MAX_AGENT_LINES)
    g_ptr_array_remove_range (log, 0, log->len - SK_WORKSPACE_MAX_AGENT_LINES);
  if (transient)
    g_hash_table_add (self->agent_transient, node);

  g_signal_emit (self, signals [AGENT_PROGRESS], 0, node, line);
}

static void
runner_agent_progress_cb (SkWorkspace *self,
                          SkNode      *node,
                          const char  *line)
{
  add_agent_line (self, node, line, FALSE);
}

/* A line such as "Trying again in 0.9 s" holds only until the next. */
static void
runner_agent_transient_cb (SkWorkspace *self,
                           SkNode      *node,
                           const char  *line)
{
  add_agent_line (self, node, line, TRUE);
}

static void
runner_step_output_cb (SkWorkspace *self,
                       const char  *key,
                       const char  *text)
{
  g_signal_emit (self, signals [STEP_OUTPUT], 0, key, text);
}

/* The same notice at every run would be noise; it is told once. */
static void
runner_notice_cb (SkWorkspace *self,
                  const char  *message)
{
  if (!g_hash_table_add (self->notices, g_strdup (message)))
    return;

  _sk_workspace_emit_message (self, message, FALSE);
}

void
_sk_workspace_notify_running (SkWorkspace *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_RUNNING]);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_GENERATING]);
}

void
_sk_workspace_emit_run_started (SkWorkspace *self,
                                const char  *agent)
{
  g_signal_emit (self, signals [RUN_STARTED], 0, agent);
}

/* Saving and recovery ---------------------------------------------------- */

/**
 * sk_workspace_save:
 * @self: a #SkWorkspace
 * @error: return location for a #GError
 *
 * Saves the workflow atomically and forgets its recovery copy.
 *
 * Returns: %TRUE if the workflow was saved
 */
gboolean
sk_workspace_save (SkWorkspace  *self,
                   GError      **error)
{
  g_return_val_if_fail (SK_IS_WORKSPACE (self), FALSE);

  if (!sk_project_save (self->project, error))
    return FALSE;

  delete_recovery (self);
  g_signal_emit (self, signals[SAVED], 0);
  return TRUE;
}

/**
 * sk_workspace_save_as:
 * @self: a #SkWorkspace
 * @folder: a folder that holds no workflow, outside the workflow's own
 * @error: return location for a #GError
 *
 * Copies the workflow with its steps' scripts and files into @folder and
 * goes on there: later saves and runs use @folder.
 *
 * Returns: %TRUE if the workflow was saved into @folder
 */
gboolean
sk_workspace_save_as (SkWorkspace  *self,
                      GFile        *folder,
                      GError      **error)
{
  g_autoptr(GFile) process = NULL;
  g_autoptr(GFile) old_folder = NULL;

  g_return_val_if_fail (SK_IS_WORKSPACE (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (folder), FALSE);

  old_folder = get_folder (self) != NULL ? g_object_ref (get_folder (self)) : NULL;
  if (old_folder != NULL && g_file_equal (folder, old_folder))
    return sk_workspace_save (self, error);

  if (self->run_task != NULL)
    {
      g_set_error_literal (error, SK_WORKSPACE_ERROR, SK_WORKSPACE_ERROR_BUSY,
                           _("Stop the run before saving the workflow elsewhere"));
      return FALSE;
    }

  if (old_folder != NULL && g_file_has_prefix (folder, old_folder))
    {
      g_set_error_literal (error, SK_WORKSPACE_ERROR, SK_WORKSPACE_ERROR_FOLDER,
                           _("A workflow cannot be saved inside its own folder. Choose a folder outside it."));
      return FALSE;
    }

  process = g_file_get_child (folder, SK_PROJECT_FILE_NAME);
  if (g_file_query_exists (process, NULL))
    {
      g_set_error_literal (error, SK_WORKSPACE_ERROR, SK_WORKSPACE_ERROR_FOLDER,
                           _("That folder already holds a workflow. Choose an empty folder."));
      return FALSE;
    }

  /* The steps' scripts and attached files travel with the workflow. */
  if ((old_folder != NULL && !sk_step_folder_copy_workflow (old_folder, folder, error)) ||
      !sk_project_save_to_folder (self->project, folder, error))
    return FALSE;

  if (old_folder != NULL)
    sk_step_folder_delete_recovery (old_folder);
  _sk_project_set_folder (self->project, folder);

  return TRUE;
}

/**
 * sk_workspace_take_recovery:
 * @self: a #SkWorkspace
 *
 * Looks for unsaved changes that a crash left behind. A recovery copy that
 * says what the workflow says already is deleted.
 *
 * Returns: (transfer full) (nullable): the unsaved workflow, as JSON, or
 *   %NULL when there is nothing to recover
 */
char *
sk_workspace_take_recovery (SkWorkspace *self)
{
  g_autofree char *saved = NULL;
  g_autofree char *current = NULL;

  g_return_val_if_fail (SK_IS_WORKSPACE (self), NULL);

  if (get_folder (self) == NULL ||
      (saved = sk_step_folder_read_recovery (get_folder (self), NULL)) == NULL)
    return NULL;

  current = sk_project_to_data (self->project, NULL);
  if (g_strcmp0 (saved, current) == 0)
    {
      delete_recovery (self);
      return NULL;
    }

  return g_steal_pointer (&saved);
}

/**
 * sk_workspace_recover:
 * @self: a #SkWorkspace
 * @data: what sk_workspace_take_recovery() returned
 * @error: return location for a #GError
 *
 * Puts the unsaved changes back, as one step that can be undone, and leaves
 * the workflow unsaved.
 *
 * Returns: %TRUE if the changes were put back
 */
gboolean
sk_workspace_recover (SkWorkspace  *self,
                      const char   *data,
                      GError      **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;
  gboolean ok;

  g_return_val_if_fail (SK_IS_WORKSPACE (self), FALSE);
  g_return_val_if_fail (data != NULL, FALSE);

  if (!sk_json_check_depth (data, -1, SK_JSON_MAX_DEPTH, NULL) ||
      !json_parser_load_from_data (parser, data, -1, NULL) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("The unsaved changes could not be read"));
      return FALSE;
    }

  sk_history_begin (self->history, _("Recover Unsaved Changes"));
  ok = sk_project_update_from_json (self->project, json_node_get_object (root), error);
  sk_history_end (self->history);
  sk_project_set_modified (self->project, TRUE);

  return ok;
}

/**
 * sk_workspace_discard_recovery:
 * @self: a #SkWorkspace
 *
 * Forgets the unsaved changes a crash left behind.
 */
void
sk_workspace_discard_recovery (SkWorkspace *self)
{
  g_return_if_fail (SK_IS_WORKSPACE (self));

  delete_recovery (self);
}

/* Opening and closing ---------------------------------------------------- */

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GFile *folder = g_object_get_data (G_OBJECT (task), "sk-folder");
  GError *error = NULL;
  SkProject *project = sk_project_load (folder, &error);

  if (project == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, project, g_object_unref);
}

/**
 * sk_workspace_load_async:
 * @folder: a workflow folder
 * @settings: (nullable): the application's settings; %NULL for the
 *   installed ones, if any
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the workflow is read
 * @user_data: data for @callback
 *
 * Reads the workflow in @folder in a worker thread, so that a large one
 * does not hold up the caller. A workflow that cannot be read is reported
 * and left untouched on disk.
 */
void
sk_workspace_load_async (GFile               *folder,
                         GSettings           *settings,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (G_IS_FILE (folder));
  g_return_if_fail (settings == NULL || G_IS_SETTINGS (settings));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_workspace_load_async);
  g_object_set_data_full (G_OBJECT (task), "sk-folder", g_object_ref (folder), g_object_unref);
  if (settings != NULL)
    g_task_set_task_data (task, g_object_ref (settings), g_object_unref);
  g_task_run_in_thread (task, load_thread);
}

/**
 * sk_workspace_load_finish:
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the open workflow, or %NULL when it
 *   could not be read
 */
SkWorkspace *
sk_workspace_load_finish (GAsyncResult  *result,
                          GError       **error)
{
  g_autoptr(SkProject) project = NULL;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_workspace_load_async, NULL);

  /* The workspace is made here, in the caller's thread, since it watches
   * the project and the settings from there. */
  project = g_task_propagate_pointer (G_TASK (result), error);
  if (project == NULL)
    return NULL;

  return sk_workspace_new (project, g_task_get_task_data (G_TASK (result)));
}

/**
 * sk_workspace_load:
 * @folder: a workflow folder
 * @settings: (nullable): the application's settings; %NULL for the
 *   installed ones, if any
 * @error: return location for a #GError
 *
 * Reads the workflow in @folder, blocking; see sk_workspace_load_async().
 *
 * Returns: (transfer full) (nullable): the open workflow
 */
SkWorkspace *
sk_workspace_load (GFile      *folder,
                   GSettings  *settings,
                   GError    **error)
{
  g_autoptr(SkProject) project = NULL;

  g_return_val_if_fail (G_IS_FILE (folder), NULL);

  project = sk_project_load (folder, error);
  if (project == NULL)
    return NULL;

  return sk_workspace_new (project, settings);
}

/**
 * sk_workspace_create:
 * @folder: a folder that holds no workflow; made when missing
 * @settings: (nullable): the application's settings
 * @error: return location for a #GError
 *
 * Starts a new, empty workflow in @folder, named after it, and saves it.
 *
 * Returns: (transfer full) (nullable): the new workflow
 */
SkWorkspace *
sk_workspace_create (GFile      *folder,
                     GSettings  *settings,
                     GError    **error)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *name = NULL;

  g_return_val_if_fail (G_IS_FILE (folder), NULL);

  if (!g_file_make_directory_with_parents (folder, NULL, &local_error) &&
      !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  name = g_file_get_basename (folder);
  project = sk_project_new (folder);
  sk_project_set_name (project, name);
  if (!sk_project_save (project, error))
    return NULL;

  return sk_workspace_new (project, settings);
}

/**
 * sk_workspace_new:
 * @project: an open workflow
 * @settings: (nullable): the application's settings; %NULL for the
 *   installed ones, if any
 *
 * Returns: (transfer full): a workspace for @project
 */
SkWorkspace *
sk_workspace_new (SkProject *project,
                  GSettings *settings)
{
  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (settings == NULL || G_IS_SETTINGS (settings), NULL);

  return g_object_new (SK_TYPE_WORKSPACE,
                       "project", project,
                       "settings", settings,
                       NULL);
}

/**
 * sk_workspace_close:
 * @self: a #SkWorkspace
 *
 * Stops the run under way and the autosave. The recovery copy stays when
 * there are unsaved changes, for the next open to offer.
 */
void
sk_workspace_close (SkWorkspace *self)
{
  g_return_if_fail (SK_IS_WORKSPACE (self));

  self->closed = TRUE;
  g_clear_handle_id (&self->recovery_id, g_source_remove);
  sk_workspace_stop (self);
}

/* Accessors ------------------------------------------------------------- */

/**
 * sk_workspace_get_project:
 * @self: a #SkWorkspace
 *
 * Returns: (transfer none): the workflow
 */
SkProject *
sk_workspace_get_project (SkWorkspace *self)
{
  g_return_val_if_fail (SK_IS_WORKSPACE (self), NULL);

  return self->project;
}

/**
 * sk_workspace_get_history:
 * @self: a #SkWorkspace
 *
 * Returns: (transfer none): the workflow's undo history
 */
SkHistory *
sk_workspace_get_history (SkWorkspace *self)
{
  g_return_val_if_fail (SK_IS_WORKSPACE (self), NULL);

  return self->history;
}

/**
 * sk_workspace_get_runner:
 * @self: a #SkWorkspace
 *
 * The runner's signals tell how a run goes; its settings are the
 * workspace's to give at each run.
 *
 * Returns: (transfer none): the workflow's runner
 */
SkRunner *
sk_workspace_get_runner (SkWorkspace *self)
{
  g_return_val_if_fail (SK_IS_WORKSPACE (self), NULL);

  return self->runner;
}

/**
 * sk_workspace_set_follow_output:
 * @self: a #SkWorkspace
 * @follow: whether to emit #SkWorkspace::step-output
 *
 * Asks for running steps' output as it comes, as a window that shows it
 * does. Without it, what steps print goes only to their logs, which costs a
 * loud step nothing more.
 */
void
sk_workspace_set_follow_output (SkWorkspace *self,
                                gboolean     follow)
{
  g_return_if_fail (SK_IS_WORKSPACE (self));

  g_signal_handlers_disconnect_by_func (self->runner, runner_step_output_cb, self);
  if (follow)
    g_signal_connect_object (self->runner, "step-output",
                             G_CALLBACK (runner_step_output_cb), self, G_CONNECT_SWAPPED);
}

/**
 * sk_workspace_get_folder:
 * @self: a #SkWorkspace
 *
 * Returns: (transfer none) (nullable): the workflow's folder
 */
GFile *
sk_workspace_get_folder (SkWorkspace *self)
{
  g_return_val_if_fail (SK_IS_WORKSPACE (self), NULL);

  return get_folder (self);
}

/**
 * sk_workspace_get_settings:
 * @self: a #SkWorkspace
 *
 * Returns: (transfer none) (nullable): the settings runs read
 */
GSettings *
sk_workspace_get_settings (SkWorkspace *self)
{
  g_return_val_if_fail (SK_IS_WORKSPACE (self), NULL);

  return self->settings;
}

/**
 * sk_workspace_get_autosave:
 * @self: a #SkWorkspace
 *
 * Returns: whether unsaved changes are kept in a recovery copy
 */
gboolean
sk_workspace_get_autosave (SkWorkspace *self)
{
  g_return_val_if_fail (SK_IS_WORKSPACE (self), FALSE);

  return self->autosave;
}

/**
 * sk_workspace_set_autosave:
 * @self: a #SkWorkspace
 * @autosave: whether to keep unsaved changes in a recovery copy
 *
 * The window keeps one, a short while after each change, so that a crash
 * loses nothing; the command line saves as it goes and needs none.
 */
void
sk_workspace_set_autosave (SkWorkspace *self,
                           gboolean     autosave)
{
  g_return_if_fail (SK_IS_WORKSPACE (self));

  autosave = !!autosave;
  if (self->autosave == autosave)
    return;

  self->autosave = autosave;
  if (!autosave)
    g_clear_handle_id (&self->recovery_id, g_source_remove);
  else if (sk_project_get_modified (self->project))
    schedule_recovery (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_AUTOSAVE]);
}

/**
 * sk_workspace_get_autosave_delay:
 * @self: a #SkWorkspace
 *
 * Returns: how long after a change the recovery copy is written, in
 *   milliseconds
 */
guint
sk_workspace_get_autosave_delay (SkWorkspace *self)
{
  g_return_val_if_fail (SK_IS_WORKSPACE (self), 0);

  return self->autosave_delay;
}

/**
 * sk_workspace_set_autosave_delay:
 * @self: a #SkWorkspace
 * @milliseconds: how long after a change to write the recovery copy
 */
void
sk_workspace_set_autosave_delay (SkWorkspace *self,
                                 guint        milliseconds)
{
  g_return_if_fail (SK_IS_WORKSPACE (self));

  if (self->autosave_delay == milliseconds)
    return;

  self->autosave_delay = milliseconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_AUTOSAVE_DELAY]);
}

/* Saving writes process.json.XXXXXX and renames it into place; a program
 * killed in between leaves the temporary behind. One older than any save
 * can take is left over, and is removed when the workflow is opened. */
#define STALE_TEMPORARY_SECONDS (10 * 60)

static gboolean
is_save_temporary (const char *name)
{
  const char *suffix;

  if (!g_str_has_prefix (name, SK_PROJECT_FILE_NAME "."))
    return FALSE;

  suffix = name + strlen (SK_PROJECT_FILE_NAME ".");
  if (strlen (suffix) != 6)
    return FALSE;

  for (guint i = 0; i < 6; i++)
    if (!g_ascii_isalnum (suffix[i]))
      return FALSE;

  return TRUE;
}

static void
remove_stale_temporaries (GFile *folder)
{
  g_autofree char *path = g_file_get_path (folder);
  g_autoptr(GDir) dir = NULL;
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  const char *name;

  /* Only the names are read: the folder holds a folder for each step,
   * and none of them needs looking at. */
  if (path == NULL || (dir = g_dir_open (path, 0, NULL)) == NULL)
    return;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = NULL;
      GStatBuf info;

      if (!is_save_temporary (name))
        continue;

      child = g_build_filename (path, name, NULL);
      if (g_lstat (child, &info) != 0 || !S_ISREG (info.st_mode) ||
          now - (gint64) info.st_mtime < STALE_TEMPORARY_SECONDS)
        continue;

      g_debug ("Removing %s, left by a save that did not finish", name);
      g_unlink (child);
    }
}

/* GObject ----------------------------------------------------------------- */

static void
sk_workspace_constructed (GObject *object)
{
  SkWorkspace *self = SK_WORKSPACE (object);
  guint n_nodes;

  G_OBJECT_CLASS (sk_workspace_parent_class)->constructed (object);

  g_assert (SK_IS_PROJECT (self->project));

  if (self->settings == NULL)
    self->settings = sk_settings_open_installed ();

  if (get_folder (self) != NULL)
    remove_stale_temporaries (get_folder (self));

  self->history = sk_history_new (self->project);
  self->runner = sk_runner_new ();
  g_signal_connect_object (self->runner, "agent-progress",
                           G_CALLBACK (runner_agent_progress_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runner, "notice",
                           G_CALLBACK (runner_notice_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runner, "agent-transient",
                           G_CALLBACK (runner_agent_transient_cb), self, G_CONNECT_SWAPPED);

  g_signal_connect_object (self->project, "notify::modified", G_CALLBACK (project_modified_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->project, "notify::folder", G_CALLBACK (project_folder_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->project, "changed", G_CALLBACK (project_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->project, "items-changed", G_CALLBACK (project_items_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->project, "node-removed", G_CALLBACK (node_removed_cb), self, G_CONNECT_SWAPPED);

  n_nodes = g_list_model_get_n_items (G_LIST_MODEL (self->project));
  for (guint i = 0; i < n_nodes; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->project), i);

      track_node (self, node);
    }
}

static void
sk_workspace_dispose (GObject *object)
{
  SkWorkspace *self = SK_WORKSPACE (object);

  g_clear_handle_id (&self->recovery_id, g_source_remove);
  if (self->keys != NULL)
    {
      GHashTableIter iter;
      gpointer node;

      /* Every step it follows is still in the project, which holds it. */
      g_hash_table_iter_init (&iter, self->keys);
      while (g_hash_table_iter_next (&iter, &node, NULL))
        g_signal_handlers_disconnect_by_data (node, self);
      g_hash_table_remove_all (self->keys);
    }

  g_clear_object (&self->history);
  g_clear_object (&self->runner);
  g_clear_object (&self->project);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (sk_workspace_parent_class)->dispose (object);
}

static void
sk_workspace_finalize (GObject *object)
{
  SkWorkspace *self = SK_WORKSPACE (object);

  g_clear_pointer (&self->keys, g_hash_table_unref);
  g_clear_pointer (&self->agent_logs, g_hash_table_unref);
  g_clear_pointer (&self->agent_transient, g_hash_table_unref);
  g_clear_pointer (&self->notices, g_hash_table_unref);

  G_OBJECT_CLASS (sk_workspace_parent_class)->finalize (object);
}

static void
sk_workspace_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  SkWorkspace *self = SK_WORKSPACE (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;

    case PROP_HISTORY:
      g_value_set_object (value, self->history);
      break;

    case PROP_RUNNER:
      g_value_set_object (value, self->runner);
      break;

    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;

    case PROP_FOLDER:
      g_value_set_object (value, get_folder (self));
      break;

    case PROP_AUTOSAVE:
      g_value_set_boolean (value, self->autosave);
      break;

    case PROP_AUTOSAVE_DELAY:
      g_value_set_uint (value, self->autosave_delay);
      break;

    case PROP_RUNNING:
      g_value_set_boolean (value, sk_workspace_get_running (self));
      break;

    case PROP_GENERATING:
      g_value_set_boolean (value, sk_workspace_get_generating (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_workspace_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  SkWorkspace *self = SK_WORKSPACE (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      self->project = g_value_dup_object (value);
      break;

    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;

    case PROP_AUTOSAVE:
      sk_workspace_set_autosave (self, g_value_get_boolean (value));
      break;

    case PROP_AUTOSAVE_DELAY:
      sk_workspace_set_autosave_delay (self, g_value_get_uint (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_workspace_class_init (SkWorkspaceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = sk_workspace_constructed;
  object_class->dispose = sk_workspace_dispose;
  object_class->finalize = sk_workspace_finalize;
  object_class->get_property = sk_workspace_get_property;
  object_class->set_property = sk_workspace_set_property;

  properties [PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, SK_TYPE_PROJECT,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  properties [PROP_HISTORY] =
    g_param_spec_object ("history", NULL, NULL, SK_TYPE_HISTORY,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties [PROP_RUNNER] =
    g_param_spec_object ("runner", NULL, NULL, SK_TYPE_RUNNER,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties [PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  properties [PROP_FOLDER] =
    g_param_spec_object ("folder", NULL, NULL, G_TYPE_FILE,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties [PROP_AUTOSAVE] =
    g_param_spec_boolean ("autosave", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_AUTOSAVE_DELAY] =
    g_param_spec_uint ("autosave-delay", NULL, NULL, 0, G_MAXUINT, DEFAULT_AUTOSAVE_DELAY_MS,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties [PROP_GENERATING] =
    g_param_spec_boolean ("generating", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkWorkspace::message:
   * @self: the workspace
   * @message: a sentence for the user
   * @about_agent: whether setting up the coding agent would help
   *
   * Something the user should know that stopped nothing: a step's folder
   * that could not follow its new name, a coding agent that is set up
   * wrongly and was left out of a run.
   */
  signals [MESSAGE] =
    g_signal_new ("message",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);

  /**
   * SkWorkspace::agent-progress:
   * @self: the workspace
   * @node: the step the coding agent works on
   * @line: what it did, in plain language
   *
   * Emitted after @line was added to the step's agent log.
   */
  signals [AGENT_PROGRESS] =
    g_signal_new ("agent-progress",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, SK_TYPE_NODE, G_TYPE_STRING);

  /**
   * SkWorkspace::agent-log-cleared:
   * @self: the workspace
   * @node: a step that starts to run again
   */
  signals [AGENT_LOG_CLEARED] =
    g_signal_new ("agent-log-cleared",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, SK_TYPE_NODE);

  /**
   * SkWorkspace::agent-log-changed:
   * @self: the workspace
   * @node: a step whose agent log lost its last line
   *
   * Emitted when a passing line of the coding agent, such as "Trying again
   * in 0.9 s", is taken away from the end of @node's log because a later
   * line makes it moot; a view of the log reads it again with
   * sk_workspace_get_agent_log(). The line that replaces it, if any, comes
   * next as #SkWorkspace::agent-progress.
   */
  signals [AGENT_LOG_CHANGED] =
    g_signal_new ("agent-log-changed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, SK_TYPE_NODE);

  /**
   * SkWorkspace::step-output:
   * @self: the workspace
   * @key: the key of a running step
   * @text: what it printed since the last emission, as valid UTF-8
   *
   * Forwards #SkRunner::step-output: a running step's standard output and
   * error as they come, in pieces of at most 64 KiB.
   */
  signals [STEP_OUTPUT] =
    g_signal_new ("step-output",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  /**
   * SkWorkspace::run-started:
   * @self: the workspace
   * @agent: (nullable): the coding agent's model and server, or %NULL when
   *   the run has none
   *
   * Emitted when the preparation is over and the runner starts.
   */
  signals [RUN_STARTED] =
    g_signal_new ("run-started",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SkWorkspace::saved:
   *
   * Emitted when sk_workspace_save() has written the workflow, so that
   * what belongs with it, such as its conversation, can follow.
   */
  signals [SAVED] =
    g_signal_new ("saved",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
sk_workspace_init (SkWorkspace *self)
{
  self->keys = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->agent_logs = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  self->agent_transient = g_hash_table_new (NULL, NULL);
  self->notices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->autosave_delay = DEFAULT_AUTOSAVE_DELAY_MS;
}
