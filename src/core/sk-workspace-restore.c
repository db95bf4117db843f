/* sk-workspace-restore.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-workspace"

#include "config.h"

#include "sk-json.h"
#include "sk-run-record.h"
#include "sk-settings.h"
#include "sk-workspace-private.h"

/* A workflow opened again shows what its last run left on disk: each step's
 * record says whether it succeeded, failed, was skipped or stopped, and a
 * step whose script, task, inputs or priors changed since is stale. The
 * records are read and the fingerprints computed in a thread.
 */

typedef struct
{
  SkFingerprints *fingerprints;
  GPtrArray      *order;
  GPtrArray      *folders;
  GPtrArray      *keys;
  /* Written by the thread: one JsonObject (or NULL) per step of order. */
  GPtrArray      *records;
} Restore;

static void
record_free (gpointer record)
{
  if (record != NULL)
    json_object_unref (record);
}

static void
restore_free (Restore *restore)
{
  g_clear_pointer (&restore->fingerprints, sk_fingerprints_free);
  g_clear_pointer (&restore->order, g_ptr_array_unref);
  g_clear_pointer (&restore->folders, g_ptr_array_unref);
  g_clear_pointer (&restore->keys, g_ptr_array_unref);
  g_clear_pointer (&restore->records, g_ptr_array_unref);
  g_free (restore);
}

static void
restore_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  Restore *restore = task_data;

  sk_fingerprints_compute (restore->fingerprints);

  for (guint i = 0; i < restore->folders->len; i++)
    {
      const char *folder = g_ptr_array_index (restore->folders, i);

      g_ptr_array_add (restore->records,
                       folder != NULL ? sk_run_record_read (folder, g_ptr_array_index (restore->keys, i))
                                      : NULL);
    }

  g_task_return_boolean (task, TRUE);
}

/**
 * sk_workspace_find_python:
 * @self: a #SkWorkspace
 *
 * Finds the interpreter a run from the window uses, by the runner's rules:
 * the "python" setting, else the workflow's own, else python3 on the PATH.
 * Its fingerprint is part of each step's.
 *
 * Returns: (transfer full) (nullable): the interpreter's path, or %NULL
 *   when there is none
 */
char *
sk_workspace_find_python (SkWorkspace *self)
{
  g_autofree char *setting = NULL;
  const char *python = NULL;

  g_return_val_if_fail (SK_IS_WORKSPACE (self), NULL);

  if (self->settings != NULL && sk_settings_has_key (self->settings, "python"))
    {
      setting = g_strstrip (g_settings_get_string (self->settings, "python"));
      if (setting[0] != '\0')
        python = setting;
    }
  if (python == NULL)
    python = sk_project_get_python (self->project);
  if (python == NULL)
    python = "python3";

  if (g_path_is_absolute (python))
    return g_file_test (python, G_FILE_TEST_IS_EXECUTABLE) ? g_strdup (python) : NULL;
  return g_find_program_in_path (python);
}

static SkNodeState
state_from_record (JsonObject *record,
                   const char *folder,
                   const char *key,
                   const char *fingerprint)
{
  const char *status = sk_json_get_string (record, "status");

  if (g_strcmp0 (status, "success") == 0)
    {
      const char *recorded = sk_json_get_string (record, "fingerprint");
      g_autofree char *without = fingerprint != NULL ? g_strconcat (fingerprint, " without ", NULL) : NULL;

      /* A step that last ran without the outputs of priors that were
       * skipped, or failed, ran on the same inputs of its own. */
      if (without != NULL && recorded != NULL && g_str_has_prefix (recorded, without))
        fingerprint = recorded;

      return sk_run_record_is_usable (record, folder, key, fingerprint)
             ? SK_NODE_STATE_SUCCEEDED : SK_NODE_STATE_STALE;
    }
  if (g_strcmp0 (status, "failed") == 0)
    return SK_NODE_STATE_FAILED;
  if (g_strcmp0 (status, "skipped") == 0)
    return SK_NODE_STATE_SKIPPED;
  if (g_strcmp0 (status, "cancelled") == 0)
    return SK_NODE_STATE_CANCELLED;
  /* A run that stopped at a gate still waits there after a restart. */
  if (g_strcmp0 (status, "waiting") == 0)
    return SK_NODE_STATE_AWAITING_APPROVAL;
  return SK_NODE_STATE_IDLE;
}

static void
restore_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  SkWorkspace *self = SK_WORKSPACE (object);
  Restore *restore = g_task_get_task_data (G_TASK (result));

  if (!g_task_propagate_boolean (G_TASK (result), NULL) || self->closed)
    return;

  for (guint i = 0; i < restore->order->len; i++)
    {
      SkNode *node = g_ptr_array_index (restore->order, i);
      JsonObject *record = g_ptr_array_index (restore->records, i);
      SkNodeState state;

      /* What happened since the workflow was opened tells the truth
       * better than the records do. */
      if (record == NULL || sk_node_get_state (node) != SK_NODE_STATE_IDLE)
        continue;

      state = state_from_record (record, g_ptr_array_index (restore->folders, i),
                                 g_ptr_array_index (restore->keys, i),
                                 sk_fingerprints_get (restore->fingerprints, i));
      if (state == SK_NODE_STATE_FAILED)
        sk_node_set_error (node, sk_json_get_string (record, "error"),
                           sk_json_get_string (record, "detail"));
      sk_node_set_state (node, state);
    }
}

/**
 * sk_workspace_restore_states:
 * @self: a #SkWorkspace
 *
 * Shows each step as its last run left it, from the records in the step
 * folders: succeeded, failed (with its error), skipped, stopped, or stale
 * where the step or something upstream changed since. Steps whose state
 * changed meanwhile keep it. Nothing is run; the work is done in a thread.
 */
void
sk_workspace_restore_states (SkWorkspace *self)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *python = NULL;
  Restore *restore;

  g_return_if_fail (SK_IS_WORKSPACE (self));

  restore = g_new0 (Restore, 1);
  restore->order = sk_project_topological_order (self->project, NULL);
  if (restore->order == NULL)
    {
      /* A workflow with a cycle has no order to fingerprint in. */
      restore_free (restore);
      return;
    }

  python = sk_workspace_find_python (self);
  restore->fingerprints = sk_fingerprints_new (self->project, restore->order, python);
  restore->folders = g_ptr_array_new_with_free_func (g_free);
  restore->keys = g_ptr_array_new_with_free_func (g_free);
  restore->records = g_ptr_array_new_with_free_func (record_free);
  for (guint i = 0; i < restore->order->len; i++)
    {
      SkNode *node = g_ptr_array_index (restore->order, i);
      g_autoptr(GFile) folder = sk_project_get_node_folder (self->project, node);

      g_ptr_array_add (restore->folders, folder != NULL ? g_file_get_path (folder) : NULL);
      g_ptr_array_add (restore->keys, g_strdup (sk_node_get_key (node)));
    }

  task = g_task_new (self, NULL, restore_done_cb, NULL);
  g_task_set_source_tag (task, sk_workspace_restore_states);
  g_task_set_task_data (task, restore, (GDestroyNotify) restore_free);
  g_task_run_in_thread (task, restore_thread);
}
