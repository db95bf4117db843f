/* sk-files.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-files"

#include "config.h"

#include "sk-files.h"

/**
 * sk_copy_tree:
 * @source: a folder
 * @destination: where the copy goes; it may exist already
 * @error: return location for a #GError
 *
 * Copies a workflow folder, leaving out run records and Python caches, which
 * belong to the copy that produced them.
 *
 * Returns: %TRUE if everything was copied
 */
gboolean
sk_copy_tree (GFile   *source,
              GFile   *destination,
              GError **error)
{
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GError) local_error = NULL;

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
      if (g_str_equal (name, ".skele") || g_str_equal (name, "__pycache__") || g_str_equal (name, "meson.build"))
        continue;

      target = g_file_get_child (destination, name);
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        {
          if (!sk_copy_tree (child, target, error))
            return FALSE;
        }
      else if (!g_file_copy (child, target, G_FILE_COPY_NOFOLLOW_SYMLINKS, NULL, NULL, NULL, error))
        return FALSE;
    }

  return TRUE;
}

/**
 * sk_recovery_file_for:
 * @folder: a workflow folder
 *
 * Returns: (transfer full): where unsaved changes to the workflow in @folder
 *   are kept until they are saved, so that a crash loses nothing
 */
GFile *
sk_recovery_file_for (GFile *folder)
{
  g_autofree char *path = g_file_get_path (folder);
  g_autofree char *uri = path == NULL ? g_file_get_uri (folder) : NULL;
  g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256,
                                                           path != NULL ? path : uri, -1);
  g_autofree char *name = g_strdup_printf ("%.32s.json", digest);

  return g_file_new_build_filename (g_get_user_data_dir (), "skele-code", "recovery", name, NULL);
}
