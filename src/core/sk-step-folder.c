/* sk-step-folder.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-step-folder"

#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sk-step-folder.h"

/* This file is the only C code that spells the layout of a step folder;
 * src/python/skele_harness.py keeps the same names in its constants block.
 * The design document describes the layout (section 2). */

#define TEST_FOLDER_NAME     "test"
#define PREVIOUS_FOLDER_NAME "previous"

/**
 * sk_step_folder_relative_path:
 * @key: a step's key
 * @file: which of its files
 *
 * Returns: (transfer full): the path of @file inside the step's folder
 */
char *
sk_step_folder_relative_path (const char *key,
                              SkStepFile  file)
{
  g_return_val_if_fail (key != NULL, NULL);

  switch (file)
    {
    case SK_STEP_FILE_SCRIPT:
      return g_strconcat (key, ".py", NULL);
    case SK_STEP_FILE_PICKLE:
      return g_strconcat (key, ".pkl", NULL);
    case SK_STEP_FILE_SUMMARY:
      return g_strconcat (key, "_summary.txt", NULL);
    case SK_STEP_FILE_TEST:
      {
        g_autofree char *name = g_strconcat ("test_", key, ".py", NULL);

        return g_build_filename (TEST_FOLDER_NAME, name, NULL);
      }
    case SK_STEP_FILE_TEST_FOLDER:
      return g_strdup (TEST_FOLDER_NAME);
    case SK_STEP_FILE_BOOKKEEPING:
      return g_strdup (SK_STEP_BOOKKEEPING_NAME);
    case SK_STEP_FILE_RECORD:
      return g_build_filename (SK_STEP_BOOKKEEPING_NAME, "record.json", NULL);
    case SK_STEP_FILE_RESULT:
      return g_build_filename (SK_STEP_BOOKKEEPING_NAME, "result.json", NULL);
    case SK_STEP_FILE_STDOUT:
      return g_build_filename (SK_STEP_BOOKKEEPING_NAME, "stdout.log", NULL);
    case SK_STEP_FILE_STDERR:
      return g_build_filename (SK_STEP_BOOKKEEPING_NAME, "stderr.log", NULL);
    case SK_STEP_FILE_AGENT_LOG:
      return g_build_filename (SK_STEP_BOOKKEEPING_NAME, "agent.log", NULL);
    case SK_STEP_FILE_PREVIOUS_FOLDER:
      return g_build_filename (SK_STEP_BOOKKEEPING_NAME, PREVIOUS_FOLDER_NAME, NULL);
    case SK_STEP_FILE_PREVIOUS_SCRIPT:
      {
        g_autofree char *name = g_strconcat (key, ".py", NULL);

        return g_build_filename (SK_STEP_BOOKKEEPING_NAME, PREVIOUS_FOLDER_NAME, name, NULL);
      }
    default:
      g_return_val_if_reached (NULL);
    }
}

/**
 * sk_step_folder_build_path:
 * @step_folder: the path of a step's folder
 * @key: the step's key
 * @file: which of its files
 *
 * Returns: (transfer full): the path of @file
 */
char *
sk_step_folder_build_path (const char *step_folder,
                           const char *key,
                           SkStepFile  file)
{
  g_autofree char *relative = NULL;

  g_return_val_if_fail (step_folder != NULL, NULL);

  relative = sk_step_folder_relative_path (key, file);
  return g_build_filename (step_folder, relative, NULL);
}

/**
 * sk_step_folder_get_file:
 * @workflow_folder: a workflow folder
 * @key: a step's key
 * @file: which of the step's files
 *
 * Returns: (transfer full): @file of the step @key in @workflow_folder
 */
GFile *
sk_step_folder_get_file (GFile      *workflow_folder,
                         const char *key,
                         SkStepFile  file)
{
  g_autofree char *relative = NULL;
  g_autoptr(GFile) step_folder = NULL;

  g_return_val_if_fail (G_IS_FILE (workflow_folder), NULL);
  g_return_val_if_fail (key != NULL && key[0] != '\0', NULL);

  relative = sk_step_folder_relative_path (key, file);
  step_folder = g_file_get_child (workflow_folder, key);
  return g_file_resolve_relative_path (step_folder, relative);
}

/**
 * sk_step_folder_is_bookkeeping:
 * @name: the name of an entry in a step folder, or below it
 *
 * Whether @name is a folder that holds no results of the step: the runner's
 * bookkeeping, Python's caches and the step's tests.
 *
 * Returns: %TRUE when a folder called @name is never an output
 */
gboolean
sk_step_folder_is_bookkeeping (const char *name)
{
  g_return_val_if_fail (name != NULL, FALSE);

  return g_str_equal (name, SK_STEP_BOOKKEEPING_NAME) ||
         g_str_equal (name, "__pycache__") ||
         g_str_equal (name, TEST_FOLDER_NAME) ||
         g_str_equal (name, "tests");
}

/**
 * sk_step_folder_is_own_file:
 * @key: a step's key
 * @relative_path: a path inside the step's folder
 *
 * Whether @relative_path is one of the files every step has — its script,
 * its pickle or its summary — rather than a result of its own.
 *
 * Returns: %TRUE for the script, the pickle and the summary
 */
gboolean
sk_step_folder_is_own_file (const char *key,
                            const char *relative_path)
{
  static const SkStepFile own[] = {
    SK_STEP_FILE_SCRIPT, SK_STEP_FILE_PICKLE, SK_STEP_FILE_SUMMARY,
  };

  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (relative_path != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (own); i++)
    {
      g_autofree char *name = sk_step_folder_relative_path (key, own[i]);

      if (g_str_equal (name, relative_path))
        return TRUE;
    }

  return FALSE;
}

static gboolean
move_if_present (GFile   *from,
                 GFile   *to,
                 GError **error)
{
  g_autoptr(GError) local_error = NULL;

  if (g_file_move (from, to, G_FILE_COPY_NOFOLLOW_SYMLINKS, NULL, NULL, NULL, &local_error))
    return TRUE;

  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return TRUE;

  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

/**
 * sk_step_folder_rename:
 * @workflow_folder: a workflow folder
 * @old_key: the step's key before it was renamed
 * @new_key: its key now
 * @error: return location for a #GError
 *
 * Moves the step's folder to follow its new key, with the files named after
 * the key: the script, the pickle, the summary, the tests and the script
 * kept aside. A step that has no folder yet needs nothing. The folder of
 * another step is never overwritten: when @new_key's folder exists, nothing
 * moves and %G_IO_ERROR_EXISTS is returned.
 *
 * Returns: %TRUE when the files follow the new key
 */
gboolean
sk_step_folder_rename (GFile       *workflow_folder,
                       const char  *old_key,
                       const char  *new_key,
                       GError     **error)
{
  static const SkStepFile named[] = {
    SK_STEP_FILE_SCRIPT, SK_STEP_FILE_PICKLE, SK_STEP_FILE_SUMMARY,
    SK_STEP_FILE_TEST, SK_STEP_FILE_PREVIOUS_SCRIPT,
  };
  g_autoptr(GFile) from = NULL;
  g_autoptr(GFile) to = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (G_IS_FILE (workflow_folder), FALSE);
  g_return_val_if_fail (old_key != NULL && old_key[0] != '\0', FALSE);
  g_return_val_if_fail (new_key != NULL && new_key[0] != '\0', FALSE);

  if (g_str_equal (old_key, new_key))
    return TRUE;

  from = g_file_get_child (workflow_folder, old_key);
  to = g_file_get_child (workflow_folder, new_key);
  if (g_file_query_file_type (from, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL) != G_FILE_TYPE_DIRECTORY)
    return TRUE;

  if (g_file_query_exists (to, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("The folder “%s” already exists"), new_key);
      return FALSE;
    }

  if (!g_file_move (from, to, G_FILE_COPY_NOFOLLOW_SYMLINKS, NULL, NULL, NULL, error))
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (named); i++)
    {
      g_autofree char *old_name = sk_step_folder_relative_path (old_key, named[i]);
      g_autofree char *new_name = sk_step_folder_relative_path (new_key, named[i]);
      g_autoptr(GFile) old_file = g_file_resolve_relative_path (to, old_name);
      g_autoptr(GFile) new_file = g_file_resolve_relative_path (to, new_name);

      /* A file the user made under the new name wins over the old one. */
      if (g_file_query_exists (new_file, NULL))
        continue;

      if (!move_if_present (old_file, new_file, &local_error))
        {
          g_debug ("Could not rename %s: %s", old_name, local_error->message);
          g_clear_error (&local_error);
        }
    }

  return TRUE;
}

static gboolean
make_parent (GFile   *file,
             GError **error)
{
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autoptr(GError) local_error = NULL;

  if (g_file_make_directory_with_parents (parent, NULL, &local_error) ||
      g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    return TRUE;

  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

/**
 * sk_step_folder_put_aside_script:
 * @workflow_folder: a workflow folder
 * @key: a step's key
 * @error: return location for a #GError
 *
 * Moves the step's script into `.skele/previous/`, replacing an older copy
 * there, so that the step has no code and the coding agent writes it anew
 * while nothing is lost.
 *
 * Returns: %TRUE when the script was put aside or there was none
 */
gboolean
sk_step_folder_put_aside_script (GFile       *workflow_folder,
                                 const char  *key,
                                 GError     **error)
{
  g_autoptr(GFile) script = NULL;
  g_autoptr(GFile) previous = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (G_IS_FILE (workflow_folder), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  script = sk_step_folder_get_file (workflow_folder, key, SK_STEP_FILE_SCRIPT);
  previous = sk_step_folder_get_file (workflow_folder, key, SK_STEP_FILE_PREVIOUS_SCRIPT);
  if (!make_parent (previous, error))
    return FALSE;

  if (g_file_move (script, previous, G_FILE_COPY_OVERWRITE | G_FILE_COPY_NOFOLLOW_SYMLINKS,
                   NULL, NULL, NULL, &local_error) ||
      g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return TRUE;

  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

/**
 * sk_step_folder_copy_to_previous:
 * @workflow_folder: a workflow folder
 * @key: a step's key
 * @error: return location for a #GError
 *
 * Copies the step's script into `.skele/previous/`, where a repair keeps
 * the version that failed.
 *
 * Returns: %TRUE when the copy was made
 */
gboolean
sk_step_folder_copy_to_previous (GFile       *workflow_folder,
                                 const char  *key,
                                 GError     **error)
{
  g_autoptr(GFile) script = NULL;
  g_autoptr(GFile) previous = NULL;

  g_return_val_if_fail (G_IS_FILE (workflow_folder), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  script = sk_step_folder_get_file (workflow_folder, key, SK_STEP_FILE_SCRIPT);
  previous = sk_step_folder_get_file (workflow_folder, key, SK_STEP_FILE_PREVIOUS_SCRIPT);

  return make_parent (previous, error) &&
         g_file_copy (script, previous, G_FILE_COPY_OVERWRITE | G_FILE_COPY_NOFOLLOW_SYMLINKS,
                      NULL, NULL, NULL, error);
}

/**
 * sk_step_folder_get_worker_log:
 * @workflow_folder: a workflow folder
 *
 * The in-memory worker serves every step of a run, so its own output goes
 * to the workflow's bookkeeping folder rather than to a step's.
 *
 * Returns: (transfer full): where the in-memory worker's output goes
 */
GFile *
sk_step_folder_get_worker_log (GFile *workflow_folder)
{
  g_return_val_if_fail (G_IS_FILE (workflow_folder), NULL);

  return g_file_resolve_relative_path (workflow_folder, SK_STEP_BOOKKEEPING_NAME "/worker.log");
}

/**
 * sk_step_folder_get_chat_log:
 * @workflow_folder: a workflow folder
 *
 * The conversation with the chat agent belongs to the workflow, not to a
 * step, and is never part of `process.json`, so it is kept in the
 * workflow's bookkeeping folder.
 *
 * Returns: (transfer full): where the chat agent's conversation is kept
 */
GFile *
sk_step_folder_get_chat_log (GFile *workflow_folder)
{
  g_return_val_if_fail (G_IS_FILE (workflow_folder), NULL);

  return g_file_resolve_relative_path (workflow_folder, SK_STEP_BOOKKEEPING_NAME "/chat.json");
}

/**
 * sk_step_folder_get_recovery_file:
 * @workflow_folder: a workflow folder
 *
 * Unsaved changes are kept outside the workflow, in the user's data folder,
 * so that a workflow folder shared with others never carries them.
 *
 * Returns: (transfer full): where unsaved changes to the workflow in
 *   @workflow_folder are kept until they are saved
 */
GFile *
sk_step_folder_get_recovery_file (GFile *workflow_folder)
{
  g_autofree char *path = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *digest = NULL;
  g_autofree char *name = NULL;

  g_return_val_if_fail (G_IS_FILE (workflow_folder), NULL);

  path = g_file_get_path (workflow_folder);
  uri = path == NULL ? g_file_get_uri (workflow_folder) : NULL;
  digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, path != NULL ? path : uri, -1);
  name = g_strdup_printf ("%.32s.json", digest);

  return g_file_new_build_filename (g_get_user_data_dir (), "skele-code", "recovery", name, NULL);
}

/**
 * sk_step_folder_write_recovery:
 * @workflow_folder: a workflow folder
 * @data: the workflow as it is now, unsaved
 * @length: the length of @data
 * @error: return location for a #GError
 *
 * Writes the recovery copy of the workflow in @workflow_folder, readable by
 * the user alone.
 *
 * Returns: %TRUE when the copy was written
 */
gboolean
sk_step_folder_write_recovery (GFile       *workflow_folder,
                               const char  *data,
                               gsize        length,
                               GError     **error)
{
  g_autoptr(GFile) recovery = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (G_IS_FILE (workflow_folder), FALSE);
  g_return_val_if_fail (data != NULL, FALSE);

  recovery = sk_step_folder_get_recovery_file (workflow_folder);
  if (!make_parent (recovery, error))
    return FALSE;

  path = g_file_get_path (recovery);
  return g_file_set_contents_full (path, data, length, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

/**
 * sk_step_folder_read_recovery:
 * @workflow_folder: a workflow folder
 * @length: (out) (optional): the length of the copy
 *
 * Returns: (transfer full) (nullable): the recovery copy of the workflow in
 *   @workflow_folder, or %NULL when there is none
 */
char *
sk_step_folder_read_recovery (GFile *workflow_folder,
                              gsize *length)
{
  g_autoptr(GFile) recovery = NULL;
  char *contents = NULL;

  g_return_val_if_fail (G_IS_FILE (workflow_folder), NULL);

  recovery = sk_step_folder_get_recovery_file (workflow_folder);
  if (!g_file_load_contents (recovery, NULL, &contents, length, NULL, NULL))
    return NULL;

  return contents;
}

/**
 * sk_step_folder_delete_recovery:
 * @workflow_folder: a workflow folder
 *
 * Forgets the unsaved changes of the workflow in @workflow_folder.
 */
void
sk_step_folder_delete_recovery (GFile *workflow_folder)
{
  g_autoptr(GFile) recovery = NULL;

  g_return_if_fail (G_IS_FILE (workflow_folder));

  recovery = sk_step_folder_get_recovery_file (workflow_folder);
  g_file_delete (recovery, NULL, NULL);
}

/**
 * sk_step_folder_copy_workflow:
 * @source: a workflow folder
 * @destination: where the copy goes; it may exist already
 * @error: return location for a #GError
 *
 * Copies a workflow folder, leaving out run records and Python caches, which
 * belong to the copy that produced them.
 *
 * Returns: %TRUE if everything was copied
 */
gboolean
sk_step_folder_copy_workflow (GFile   *source,
                              GFile   *destination,
                              GError **error)
{
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (G_IS_FILE (source), FALSE);
  g_return_val_if_fail (G_IS_FILE (destination), FALSE);

  if (!g_file_make_directory_with_parents (destination, NULL, &local_error) &&
      !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  children = g_file_enumerate_children (source,
                                        G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                        G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                        NULL, error);
  if (children == NULL)
    return FALSE;

  for (;;)
    {
      GFileInfo *info;
      GFile *child;
      g_autoptr(GFile) target = NULL;
      const char *name;

      if (!g_file_enumerator_iterate (children, &info, &child, NULL, error))
        return FALSE;
      if (info == NULL)
        break;

      name = g_file_info_get_name (info);
      if (g_str_equal (name, SK_STEP_BOOKKEEPING_NAME) || g_str_equal (name, "__pycache__") ||
          g_str_equal (name, "meson.build"))
        continue;

      target = g_file_get_child (destination, name);
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        {
          if (!sk_step_folder_copy_workflow (child, target, error))
            return FALSE;
        }
      else if (!g_file_copy (child, target, G_FILE_COPY_NOFOLLOW_SYMLINKS, NULL, NULL, NULL, error))
        return FALSE;
    }

  return TRUE;
}
