/* sk-agent-files.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-agent-files"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sk-agent-files-private.h"
#include "sk-agent-tools.h"
#include "sk-step-folder.h"
#include "sk-util.h"

#define READ_LINE_LIMIT 2000
#define LIST_ENTRY_LIMIT 1000
#define MAX_LINKS 40
#define READ_CHUNK (64 * 1024)
#define BINARY_SNIFF_SIZE 8192
/* read_file counts a file's lines to say how long it is, up to this size. */
#define COUNT_LIMIT (64 * 1024 * 1024)

/* Paths ------------------------------------------------------------------ */

/**
 * sk_agent_files_path_is_within:
 * @path: an absolute, canonical path
 * @folder: an absolute, canonical folder
 *
 * Returns: whether @path is @folder or lies inside it
 */
gboolean
sk_agent_files_path_is_within (const char *path,
                               const char *folder)
{
  gsize len = strlen (folder);

  if (strncmp (path, folder, len) != 0)
    return FALSE;

  return path[len] == '\0' || path[len] == '/' || (len > 0 && folder[len - 1] == '/');
}

/* Pushes the components of @path on @stack, the first one last, so that
 * they are popped in order.
 */
static void
push_components (GPtrArray  *stack,
                 const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, "/", -1);

  for (guint i = g_strv_length (parts); i > 0; i--)
    {
      const char *part = parts[i - 1];

      if (part[0] != '\0' && strcmp (part, ".") != 0)
        g_ptr_array_add (stack, g_strdup (part));
    }
}

/**
 * sk_agent_files_resolve_physical:
 * @base: the folder that a relative @path starts from
 * @path: a path
 * @follow_last: whether a link in the last place is followed
 * @error: return location for a #GError
 *
 * Resolves @path against @base as the kernel would: every component that
 * exists is followed through symbolic links, so the result names where a
 * file operation would really land, and `..` is taken from the real folder
 * reached so far. The part that does not exist yet is kept as written,
 * which realpath() cannot do for files about to be created. With
 * @follow_last unset a link in the last place is not followed, so that the
 * link itself can be deleted.
 *
 * Returns: (transfer full): the resolved absolute path, or %NULL with
 *   %SK_AGENT_TOOLS_ERROR_FAILED when there are too many links
 */
char *
sk_agent_files_resolve_physical (const char  *base,
                                 const char  *path,
                                 gboolean     follow_last,
                                 GError     **error)
{
  g_autoptr(GPtrArray) stack = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *current = g_strdup (g_path_is_absolute (path) ? "/" : base);
  guint links = 0;

  push_components (stack, path);

  while (stack->len > 0)
    {
      g_autofree char *name = g_ptr_array_steal_index (stack, stack->len - 1);
      g_autofree char *candidate = NULL;
      GStatBuf st;

      if (strcmp (name, "..") == 0)
        {
          char *parent = g_path_get_dirname (current);

          g_free (current);
          current = parent;
          continue;
        }

      candidate = g_build_filename (current, name, NULL);
      if ((stack->len > 0 || follow_last) &&
          g_lstat (candidate, &st) == 0 && S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (candidate, NULL);

          if (target == NULL || ++links > MAX_LINKS)
            {
              g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_FAILED,
                           "“%s” goes through too many symbolic links or a link that cannot be read.",
                           path);
              return NULL;
            }

          if (g_path_is_absolute (target))
            {
              g_free (current);
              current = g_strdup ("/");
            }
          push_components (stack, target);
          continue;
        }

      g_free (current);
      current = g_steal_pointer (&candidate);
    }

  return g_steal_pointer (&current);
}

/* Names @resolved as the model does: relative to the step's folder. */
static char *
display_path (const SkAgentFiles *files,
              const char         *resolved)
{
  gsize node_len = strlen (files->node_dir);
  gsize workflow_len = strlen (files->workflow_dir);

  if (g_str_equal (resolved, files->node_dir))
    return g_strdup (".");
  if (sk_agent_files_path_is_within (resolved, files->node_dir))
    return g_strdup (resolved + node_len + 1);
  if (g_str_equal (resolved, files->workflow_dir))
    return g_strdup ("..");
  if (sk_agent_files_path_is_within (resolved, files->workflow_dir))
    return g_strconcat ("..", resolved + workflow_len, NULL);

  return g_strdup (resolved);
}

/* Resolves @path and checks that the model may read it or, with
 * @for_write, write or delete it. The messages are for the model.
 */
static char *
resolve_checked (const SkAgentFiles  *files,
                 const char          *path,
                 gboolean             for_write,
                 gboolean             follow_last,
                 GError             **error)
{
  g_autofree char *resolved = NULL;
  g_autofree char *lexical = NULL;
  const char *allowed;
  const char *through_link;

  if (path == NULL || path[0] == '\0')
    {
      g_set_error_literal (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
                           "The path is empty. Give a path relative to your step's folder, "
                           "such as “data.csv” or “../other_step/other_step.py”.");
      return NULL;
    }

  resolved = sk_agent_files_resolve_physical (files->node_dir, path, follow_last, error);
  if (resolved == NULL)
    return NULL;

  allowed = for_write ? files->node_dir : files->workflow_dir;
  lexical = g_canonicalize_filename (path, files->node_dir);
  through_link = sk_agent_files_path_is_within (lexical, allowed)
    ? " It leads there through a symbolic link." : "";

  if (!for_write && !sk_agent_files_path_is_within (resolved, files->workflow_dir))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                   "Refused: “%s” is outside the workflow folder.%s You may read only inside "
                   "the workflow folder: use paths relative to your step's folder, such as "
                   "“data.csv” or “../other_step/other_step.py”.",
                   path, through_link);
      return NULL;
    }

  if (for_write && !sk_agent_files_path_is_within (resolved, files->node_dir))
    {
      if (sk_agent_files_path_is_within (resolved, files->workflow_dir) && through_link[0] == '\0')
        g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                     "Refused: “%s” is outside your step's folder. You may read other steps' "
                     "files, but write and delete only inside your own step's folder; "
                     "use a path such as “result.csv” or “test/test_step.py”.",
                     path);
      else
        g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                     "Refused: “%s” is outside your step's folder.%s You may write and "
                     "delete only inside your step's folder; use a path such as "
                     "“result.csv” or “test/test_step.py”.",
                     path, through_link);
      return NULL;
    }

  if (for_write && sk_agent_files_path_is_within (resolved, files->bookkeeping_dir))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                   "Refused: “%s” is inside “" SK_STEP_BOOKKEEPING_NAME "/”, which belongs to "
                   "the program that runs the workflow. Do not change it.",
                   path);
      return NULL;
    }

  return g_steal_pointer (&resolved);
}

/**
 * sk_agent_files_resolve_path:
 * @files: the folders
 * @path: a path relative to the step's folder, or absolute
 * @for_write: whether the path is to be written or deleted, rather than read
 * @error: return location for a #GError
 *
 * Resolves @path the way the file system will, following every symbolic
 * link on the way, and checks it: readable paths must lead inside the
 * workflow folder; writable paths inside the step's folder, neither the
 * step's folder itself nor its `.skele/` folder. Parts of the path that do
 * not exist yet are taken as written.
 *
 * Returns: (transfer full): the absolute resolved path, or %NULL with
 *   %SK_AGENT_TOOLS_ERROR_OUTSIDE (or %SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS
 *   for an empty path) and a message meant for the model
 */
char *
sk_agent_files_resolve_path (const SkAgentFiles  *files,
                             const char          *path,
                             gboolean             for_write,
                             GError             **error)
{
  g_autofree char *resolved = NULL;

  g_return_val_if_fail (files != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  resolved = resolve_checked (files, path, for_write, TRUE, error);
  if (resolved == NULL)
    return NULL;

  if (for_write && g_str_equal (resolved, files->node_dir))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                   "Refused: “%s” is your step's folder itself, not a file in it.", path);
      return NULL;
    }

  return g_steal_pointer (&resolved);
}

/* Folders ---------------------------------------------------------------- */

/**
 * sk_agent_files_new:
 * @workflow_dir: the workflow's folder, which must exist
 * @node_dir: the step's folder, inside @workflow_dir; a relative path is
 *   taken from @workflow_dir. It is created when missing.
 * @error: return location for a #GError
 *
 * Both folders are kept in canonical form, with every link resolved, so
 * that confinement compares real locations.
 *
 * Returns: (transfer full): the folders, or %NULL with
 *   %SK_AGENT_TOOLS_ERROR_NOT_FOUND, %SK_AGENT_TOOLS_ERROR_OUTSIDE or
 *   %SK_AGENT_TOOLS_ERROR_FAILED
 */
SkAgentFiles *
sk_agent_files_new (const char  *workflow_dir,
                    const char  *node_dir,
                    GError     **error)
{
  SkAgentFiles *files;
  g_autofree char *cwd = NULL;
  g_autofree char *workflow = NULL;
  g_autofree char *node = NULL;

  g_return_val_if_fail (workflow_dir != NULL, NULL);
  g_return_val_if_fail (node_dir != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  cwd = g_get_current_dir ();
  workflow = sk_agent_files_resolve_physical (cwd, workflow_dir, TRUE, error);
  if (workflow == NULL)
    return NULL;
  if (!g_file_test (workflow, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_NOT_FOUND,
                   _("The workflow folder “%s” does not exist."), workflow_dir);
      return NULL;
    }

  /* Resolved through its links, so a step's folder that is a link leading
   * out of the workflow is caught here.
   */
  node = sk_agent_files_resolve_physical (workflow, node_dir, TRUE, error);
  if (node == NULL)
    return NULL;
  if (g_str_equal (node, workflow) || !sk_agent_files_path_is_within (node, workflow))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                   _("The step's folder “%s” is not inside the workflow folder “%s”."),
                   node_dir, workflow_dir);
      return NULL;
    }

  if (g_mkdir_with_parents (node, 0755) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_FAILED,
                   _("The step's folder “%s” could not be created: %s"),
                   node, g_strerror (saved_errno));
      return NULL;
    }

  files = g_new0 (SkAgentFiles, 1);
  files->workflow_dir = g_steal_pointer (&workflow);
  files->node_dir = g_steal_pointer (&node);
  files->bookkeeping_dir = g_build_filename (files->node_dir, SK_STEP_BOOKKEEPING_NAME, NULL);

  return files;
}

void
sk_agent_files_free (SkAgentFiles *files)
{
  if (files == NULL)
    return;

  g_free (files->workflow_dir);
  g_free (files->node_dir);
  g_free (files->bookkeeping_dir);
  g_free (files);
}

/* File tools, run in a worker thread ------------------------------------- */

/* What a file tool answers: the text for the model, and whether it
 * reports a problem that the model should fix.
 */
static char *
file_reply (gboolean *is_error,
            char     *text,
            gboolean  error)
{
  *is_error = error;
  return text;
}

static char *
error_result (gboolean *is_error,
              GError   *error)
{
  return file_reply (is_error, g_strdup (error->message), TRUE);
}

static char *
errno_result (gboolean   *is_error,
              const char *what,
              const char *shown,
              int         saved_errno)
{
  return file_reply (is_error, g_strdup_printf ("Could not %s “%s”: %s.", what, shown,
                                                g_strerror (saved_errno)),
                     TRUE);
}

/**
 * sk_agent_files_list_dir:
 * @files: the folders
 * @path: the folder to list, as the model gave it
 * @limit: about how many bytes to return at most
 * @is_error: (out): whether the text reports a problem
 *
 * Lists a folder for the list_dir tool; blocks, so runs in a thread.
 *
 * Returns: (transfer full): the text for the model
 */
char *
sk_agent_files_list_dir (const SkAgentFiles *files,
                         const char         *path,
                         gsize               limit,
                         gboolean           *is_error)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *shown = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) text = g_string_new (NULL);
  const char *name;
  GStatBuf st;
  guint listed = 0;

  resolved = resolve_checked (files, path, FALSE, TRUE, &error);
  if (resolved == NULL)
    return error_result (is_error, error);

  shown = display_path (files, resolved);
  if (g_stat (resolved, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT || saved_errno == ENOTDIR)
        return file_reply (is_error, g_strdup_printf ("There is no folder “%s”.", path), TRUE);
      return errno_result (is_error, "list", shown, saved_errno);
    }
  if (!S_ISDIR (st.st_mode))
    return file_reply (is_error, g_strdup_printf ("“%s” is a file, not a folder: read it with "
                                                  "read_file.", path),
                                 TRUE);

  dir = g_dir_open (resolved, 0, &error);
  if (dir == NULL)
    return file_reply (is_error, g_strdup_printf ("Could not list “%s”: %s.", shown, error->message),
                                 TRUE);

  /* The runner's bookkeeping is not the agent's business. */
  while ((name = g_dir_read_name (dir)) != NULL)
    if (!g_str_equal (name, SK_STEP_BOOKKEEPING_NAME))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, sk_util_compare_strings);

  g_string_append_printf (text, "[Folder %s%s: %u %s]\n", shown,
                          g_str_has_suffix (shown, "/") ? "" : "/",
                          names->len, names->len == 1 ? "entry" : "entries");
  if (names->len == 0)
    g_string_append (text, "(empty)\n");

  for (guint i = 0; i < names->len; i++)
    {
      const char *entry = g_ptr_array_index (names, i);
      g_autofree char *full = g_build_filename (resolved, entry, NULL);
      g_autofree char *target_path = NULL;
      gsize before = text->len;
      GStatBuf entry_st;
      gboolean is_link = g_lstat (full, &entry_st) == 0 && S_ISLNK (entry_st.st_mode);
      gboolean outside = FALSE;
      gboolean exists;

      /* Nothing is told about what a link outside the workflow leads to. */
      if (is_link)
        {
          target_path = sk_agent_files_resolve_physical (resolved, entry, TRUE, NULL);
          outside = target_path == NULL ||
                    !sk_agent_files_path_is_within (target_path, files->workflow_dir);
        }
      exists = !outside && g_stat (full, &entry_st) == 0;

      if (listed >= LIST_ENTRY_LIMIT || text->len >= limit)
        {
          g_string_append_printf (text, "[… and %u more entries, not shown]\n", names->len - i);
          break;
        }

      g_string_append (text, entry);
      if (exists && S_ISDIR (entry_st.st_mode))
        g_string_append_c (text, '/');
      else if (exists && S_ISREG (entry_st.st_mode))
        g_string_append_printf (text, "  (%" G_GUINT64_FORMAT " bytes)", (guint64) entry_st.st_size);

      if (is_link)
        {
          g_autofree char *target = g_file_read_link (full, NULL);

          g_string_append_printf (text, "  -> %s%s", target != NULL ? target : "?",
                                  outside ? " (outside the workflow)" : exists ? "" : " (missing)");
        }
      g_string_append_c (text, '\n');

      if (!g_utf8_validate (text->str + before, text->len - before, NULL))
        {
          g_autofree char *valid = g_utf8_make_valid (text->str + before, text->len - before);

          g_string_truncate (text, before);
          g_string_append (text, valid);
        }
      listed++;
    }

  return file_reply (is_error, g_string_free (g_steal_pointer (&text), FALSE), FALSE);
}

/**
 * sk_agent_files_read_file:
 * @files: the folders
 * @path: the file, as the model gave it
 * @start_line: the first line to read, from 1, or 0 for the first
 * @end_line: the last line to read, or 0 for the last
 * @limit: how many bytes of the file to return at most
 * @is_error: (out): whether the text reports a problem
 *
 * Reads a range of lines from a file for the read_file tool, without
 * loading more than it returns, so that a huge data file costs no memory.
 * Blocks, so runs in a thread.
 *
 * Returns: (transfer full): the text for the model
 */
char *
sk_agent_files_read_file (const SkAgentFiles *files,
                          const char         *path,
                          gint64              start_line,
                          gint64              end_line,
                          gsize               limit,
                          gboolean           *is_error)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *shown = NULL;
  g_autofree guint8 *buffer = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  gint64 start = start_line > 0 ? start_line : 1;
  gint64 end = end_line > 0 ? end_line : G_MAXINT64;
  gint64 line = 1;
  gint64 shown_lines = 0;
  gint64 stop_line = 0;
  gint64 total_lines;
  guint64 offset = 0;
  gsize line_start = 0;
  gboolean counted = TRUE;
  gboolean long_line = FALSE;
  gboolean binary = FALSE;
  guint8 last_byte = '\n';
  const char *invalid;
  GStatBuf st;
  int fd;

  if (end_line > 0 && start_line > 0 && end_line < start_line)
    return file_reply (is_error, g_strdup_printf ("end_line (%" G_GINT64_FORMAT ") is before "
                                                  "start_line (%" G_GINT64_FORMAT ").",
                                                  end_line, start_line),
                                 TRUE);

  resolved = resolve_checked (files, path, FALSE, TRUE, &error);
  if (resolved == NULL)
    return error_result (is_error, error);
  shown = display_path (files, resolved);

  if (g_stat (resolved, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT || saved_errno == ENOTDIR)
        return file_reply (is_error, g_strdup_printf ("There is no file “%s”. Use list_dir to see "
                                                      "which files exist.", path),
                                     TRUE);
      return errno_result (is_error, "read", shown, saved_errno);
    }
  if (S_ISDIR (st.st_mode))
    return file_reply (is_error, g_strdup_printf ("“%s” is a folder: list it with list_dir.", path),
                                 TRUE);
  if (!S_ISREG (st.st_mode))
    return file_reply (is_error, g_strdup_printf ("“%s” is not a regular file.", path), TRUE);

  fd = g_open (resolved, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    return errno_result (is_error, "read", shown, errno);

  buffer = g_malloc (READ_CHUNK);
  for (;;)
    {
      gssize n = read (fd, buffer, READ_CHUNK);
      gsize i = 0;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;

          close (fd);
          return errno_result (is_error, "read", shown, saved_errno);
        }
      if (n == 0)
        break;

      if (offset < BINARY_SNIFF_SIZE &&
          memchr (buffer, '\0', MIN ((guint64) n, BINARY_SNIFF_SIZE - offset)) != NULL)
        binary = TRUE;
      offset += n;
      last_byte = buffer[n - 1];

      while (i < (gsize) n)
        {
          const guint8 *newline = memchr (buffer + i, '\n', n - i);
          gsize segment = newline != NULL ? (gsize) (newline - buffer) + 1 - i : (gsize) n - i;

          if (stop_line == 0 && line >= start && line <= end)
            {
              if (out->len + segment <= limit)
                {
                  g_string_append_len (out, (const char *) buffer + i, segment);
                }
              else if (shown_lines == 0)
                {
                  /* A single line longer than the limit is shown in part. */
                  g_string_append_len (out, (const char *) buffer + i, limit - out->len);
                  long_line = TRUE;
                  stop_line = line + 1;
                }
              else
                {
                  g_string_truncate (out, line_start);
                  stop_line = line;
                }
            }

          i += segment;
          if (newline != NULL)
            {
              if (stop_line == 0 && line >= start && line <= end)
                {
                  shown_lines++;
                  if (shown_lines == READ_LINE_LIMIT && line < end)
                    stop_line = line + 1;
                }
              line++;
              line_start = out->len;
            }
        }

      if ((stop_line != 0 || line > end) && offset > COUNT_LIMIT)
        {
          counted = FALSE;
          break;
        }
    }
  close (fd);

  /* The last line has no newline when the file does not end with one. */
  total_lines = line - 1 + (offset > 0 && last_byte != '\n' ? 1 : 0);
  /* The line limit may have been reached on the file's last line. */
  if (counted && !long_line && stop_line > total_lines)
    stop_line = 0;

  if (binary || memchr (out->str, '\0', out->len) != NULL)
    return file_reply (is_error, g_strdup_printf ("“%s” looks like a binary file (it contains NUL "
                                                  "bytes), not text. Inspect it with a short Python "
                                                  "command instead, for example one that loads it "
                                                  "and prints a summary.", path),
                                 TRUE);

  if (!g_utf8_validate_len (out->str, out->len, &invalid))
    {
      gsize valid_len = invalid - out->str;

      /* Cutting a long line may have split a character in two. */
      if (long_line && out->len - valid_len < 4)
        g_string_truncate (out, valid_len);
      else
        return file_reply (is_error, g_strdup_printf ("“%s” is not UTF-8 text (at byte %" G_GSIZE_FORMAT
                                                      " of the part read). If it is text in another "
                                                      "encoding, read it with a Python command that "
                                                      "opens it with that encoding (for example "
                                                      "encoding=\"latin-1\"); if it is binary, inspect "
                                                      "it with a short Python command.",
                                                      path, valid_len),
                                     TRUE);
    }

  if (offset == 0)
    return file_reply (is_error, g_strdup_printf ("[%s: empty file]\n", shown), FALSE);

  if (counted && start > total_lines)
    return file_reply (is_error, g_strdup_printf ("“%s” has only %" G_GINT64_FORMAT " %s; "
                                                  "start_line %" G_GINT64_FORMAT " is past its end.",
                                                  path, total_lines,
                                                  total_lines == 1 ? "line" : "lines", start),
                                 TRUE);

  {
    gint64 last_shown = stop_line != 0 ? stop_line - 1 : MIN (end, total_lines);

    if (long_line)
      last_shown = start;
    if (counted)
      g_string_append_printf (text, "[%s: lines %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT
                              " of %" G_GINT64_FORMAT "]\n",
                              shown, start, last_shown, total_lines);
    else
      g_string_append_printf (text, "[%s: lines %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT
                              " of a file too large to count its lines (%" G_GUINT64_FORMAT
                              " bytes)]\n",
                              shown, start, last_shown, (guint64) st.st_size);

    g_string_append_len (text, out->str, out->len);

    if (long_line)
      g_string_append_printf (text, "\n[Line %" G_GINT64_FORMAT " is longer than %" G_GSIZE_FORMAT
                              " bytes and was cut. Inspect it with a Python command.]\n",
                              start, limit);
    else if (stop_line != 0)
      g_string_append_printf (text, "%s[Stopped after line %" G_GINT64_FORMAT " to keep the output "
                              "short. Read on with start_line=%" G_GINT64_FORMAT ".]\n",
                              text->len > 0 && text->str[text->len - 1] != '\n' ? "\n" : "",
                              last_shown, stop_line);
  }

  return file_reply (is_error, g_string_free (g_steal_pointer (&text), FALSE), FALSE);
}

/**
 * sk_agent_files_write_file:
 * @files: the folders
 * @path: the file, as the model gave it
 * @content: its complete new content
 * @is_error: (out): whether the text reports a problem
 *
 * Creates or replaces a file for the write_file tool, with the folders it
 * needs. Blocks, so runs in a thread.
 *
 * Returns: (transfer full): the text for the model
 */
char *
sk_agent_files_write_file (const SkAgentFiles *files,
                           const char         *path,
                           const char         *content,
                           gboolean           *is_error)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *parent = NULL;
  gboolean existed;
  guint lines = 0;
  gsize length;

  resolved = sk_agent_files_resolve_path (files, path, TRUE, &error);
  if (resolved == NULL)
    return error_result (is_error, error);
  shown = display_path (files, resolved);

  if (g_file_test (resolved, G_FILE_TEST_IS_DIR))
    return file_reply (is_error, g_strdup_printf ("“%s” is a folder; give the path of a file.", path),
                                 TRUE);

  parent = g_path_get_dirname (resolved);
  if (g_mkdir_with_parents (parent, 0755) != 0)
    {
      g_autofree char *shown_parent = display_path (files, parent);

      return errno_result (is_error, "create the folder", shown_parent, errno);
    }

  existed = g_file_test (resolved, G_FILE_TEST_EXISTS);
  length = strlen (content);
  if (!g_file_set_contents_full (resolved, content, length,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0644, &error))
    return file_reply (is_error, g_strdup_printf ("Could not write “%s”: %s.", shown, error->message),
                                 TRUE);

  for (const char *p = content; *p != '\0'; p++)
    if (*p == '\n')
      lines++;
  if (length > 0 && content[length - 1] != '\n')
    lines++;

  return file_reply (is_error, g_strdup_printf ("%s “%s”: %u %s, %" G_GSIZE_FORMAT " bytes.",
                                                existed ? "Replaced" : "Created", shown,
                                                lines, lines == 1 ? "line" : "lines", length),
                               FALSE);
}

/**
 * sk_agent_files_delete_file:
 * @files: the folders
 * @path: the file, as the model gave it
 * @is_error: (out): whether the text reports a problem
 *
 * Deletes a file for the delete_file tool. A link is deleted itself, never
 * what it points to, so a link in the step's folder can be removed wherever
 * it leads. Blocks, so runs in a thread.
 *
 * Returns: (transfer full): the text for the model
 */
char *
sk_agent_files_delete_file (const SkAgentFiles *files,
                            const char         *path,
                            gboolean           *is_error)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *shown = NULL;
  GStatBuf st;

  resolved = resolve_checked (files, path, TRUE, FALSE, &error);
  if (resolved == NULL)
    return error_result (is_error, error);
  shown = display_path (files, resolved);

  if (g_str_equal (resolved, files->node_dir))
    return file_reply (is_error, g_strdup_printf ("Refused: “%s” is your step's folder itself; "
                                                  "delete_file deletes files only.", path),
                                 TRUE);

  if (g_lstat (resolved, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT || saved_errno == ENOTDIR)
        return file_reply (is_error, g_strdup_printf ("There is no file “%s”.", path), TRUE);
      return errno_result (is_error, "delete", shown, saved_errno);
    }

  if (S_ISDIR (st.st_mode))
    return file_reply (is_error, g_strdup_printf ("Refused: “%s” is a folder; delete_file deletes "
                                                  "files only. Delete the files in it one by one; "
                                                  "an empty folder does no harm.", path),
                                 TRUE);

  if (g_unlink (resolved) != 0)
    return errno_result (is_error, "delete", shown, errno);

  return file_reply (is_error, g_strdup_printf ("Deleted “%s”.", shown), FALSE);
}
