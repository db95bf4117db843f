/* skele-export.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `skele export` and `skele import` (DESIGN §4 and §11): a workflow in
 * another format, and a Mermaid flowchart made a workflow.
 */

#define G_LOG_DOMAIN "skele"

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "skele-private.h"

/* The formats `skele export` writes now; Snakemake's of DESIGN §11 follows. */
static const char * const formats[] = { "mermaid", "dot", "svg", "png", "snakemake", "python", "ipynb",
                                        "html" };

static gboolean
is_format (const char *format)
{
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (g_str_equal (format, formats[i]))
      return TRUE;

  return FALSE;
}

static GBytes *
export_bytes (SkProject   *project,
              const char  *format,
              GError     **error)
{
  char *text;

  if (g_str_equal (format, "mermaid"))
    text = sk_export_mermaid (project);
  else if (g_str_equal (format, "html"))
    text = sk_export_html_text (project);
  else if (g_str_equal (format, "ipynb"))
    text = sk_export_notebook_text (project, error);
  else
    return sk_export_graphviz (project, format, error);

  return text != NULL ? g_bytes_new_take (text, strlen (text)) : NULL;
}

int
skele_command_export (int    argc,
                      char **argv)
{
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  g_autofree char *format_list = g_strjoinv (", ", (char **) formats);
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      N_("What to write: mermaid, dot, svg, png, snakemake, python, ipynb or html"), "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      N_("The file to write (the folder, for snakemake and python); without it, the standard output"), "PATH" },
    { NULL }
  };

  options = g_option_context_new (_("FOLDER — write a workflow in another format"));
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (options, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("skele export: %s\n", error->message);
      return EXIT_INVALID;
    }

  if (argc != 2)
    {
      g_printerr (_("skele export: give exactly one workflow folder. See “skele export --help”.\n"));
      return EXIT_INVALID;
    }

  if (format == NULL || !is_format (format))
    {
      /* Translators: %s is a list of formats. */
      g_printerr (_("skele export: choose the format with --format: one of %s.\n"), format_list);
      return EXIT_INVALID;
    }

  /* A picture does not belong in a terminal. */
  if (output == NULL && g_str_equal (format, "png") && isatty (STDOUT_FILENO))
    {
      g_printerr (_("skele export: a PNG picture is not text; write it to a file with -o FILE.png.\n"));
      return EXIT_INVALID;
    }

  /* A folder format has no standard output to go to. */
  if (output == NULL && (g_str_equal (format, "python") || g_str_equal (format, "snakemake")))
    {
      /* Translators: %s is the name of a format. */
      g_printerr (_("skele export: the %s format is a folder; give a new or empty one with -o FOLDER.\n"),
                  format);
      return EXIT_INVALID;
    }

  file = g_file_new_for_commandline_arg (argv[1]);
  if ((project = sk_project_load (file, &error)) == NULL)
    {
      g_printerr (_("error: %s\n"), error->message);
      return EXIT_INVALID;
    }

  if (g_str_equal (format, "snakemake"))
    {
      g_autoptr(GFile) folder = g_file_new_for_commandline_arg (output);

      if (!sk_export_snakemake (project, folder, &error))
        {
          g_printerr (_("error: %s\n"), error->message);
          return EXIT_INVALID;
        }

      /* Translators: the first %s is a workflow's name, the second a folder. */
      g_printerr (_("Wrote “%s” to %s. Run it there with: snakemake --cores 4\n"
                    "Its README.md says how to run it on a Slurm cluster.\n"),
                  sk_project_get_name (project), output);
      return EXIT_SUCCESS;
    }

  if (g_str_equal (format, "python"))
    {
      g_autoptr(GFile) folder = g_file_new_for_commandline_arg (output);

      if (!sk_export_python (project, folder, &error))
        {
          g_printerr (_("error: %s\n"), error->message);
          return EXIT_INVALID;
        }

      /* Translators: the first %s is a workflow's name, the second a folder. */
      g_printerr (_("Wrote “%s” to %s. Run it there with: python3 run_workflow.py\n"),
                  sk_project_get_name (project), output);
      return EXIT_SUCCESS;
    }

  bytes = export_bytes (project, format, &error);
  if (bytes == NULL)
    {
      g_printerr (_("error: %s\n"), error->message);
      return EXIT_INVALID;
    }

  if (output == NULL)
    {
      gsize size;
      const char *data = g_bytes_get_data (bytes, &size);

      if (fwrite (data, 1, size, stdout) != size || fflush (stdout) != 0)
        return EXIT_INVALID;
      return EXIT_SUCCESS;
    }

  if (!g_file_set_contents (output, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &error))
    {
      g_printerr (_("error: %s\n"), error->message);
      return EXIT_INVALID;
    }

  /* Translators: the first %s is a workflow's name, the second a file. */
  g_printerr (_("Wrote “%s” to %s.\n"), sk_project_get_name (project), output);
  return EXIT_SUCCESS;
}

int
skele_command_import (int    argc,
                      char **argv)
{
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GFile) process = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *output = NULL;
  g_autofree char *text = NULL;
  gsize length;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      N_("The folder of the new workflow"), "FOLDER" },
    { NULL }
  };

  options = g_option_context_new (_("FILE.mmd — make a Mermaid flowchart a workflow"));
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (options, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("skele import: %s\n", error->message);
      return EXIT_INVALID;
    }

  if (argc != 2 || output == NULL)
    {
      g_printerr (_("skele import: give one Mermaid file and the new workflow’s folder with -o FOLDER.\n"));
      return EXIT_INVALID;
    }

  folder = g_file_new_for_commandline_arg (output);
  process = g_file_get_child (folder, SK_PROJECT_FILE_NAME);
  if (g_file_query_exists (process, NULL))
    {
      /* Translators: %s is a folder. */
      g_printerr (_("error: %s holds a workflow already. Choose a new folder, so that nothing "
                    "is overwritten.\n"), g_file_peek_path (folder));
      return EXIT_INVALID;
    }

  if (!g_file_get_contents (argv[1], &text, &length, &error))
    {
      g_printerr (_("error: %s\n"), error->message);
      return EXIT_INVALID;
    }

  project = sk_import_mermaid (text, length, notes, &error);
  for (guint i = 0; i < notes->len; i++)
    g_printerr (_("note: %s\n"), (const char *) g_ptr_array_index (notes, i));
  if (project == NULL)
    {
      /* Translators: the first %s is a file, the second what is wrong. */
      g_printerr (_("error: %s: %s Nothing was written.\n"), argv[1], error->message);
      return EXIT_INVALID;
    }

  if (!g_file_make_directory_with_parents (folder, NULL, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    {
      g_printerr (_("error: %s\n"), error->message);
      return EXIT_INVALID;
    }
  g_clear_error (&error);

  if (!sk_project_save_to_folder (project, folder, &error))
    {
      g_printerr (_("error: %s\n"), error->message);
      return EXIT_INVALID;
    }

  /* Translators: %u is a number of steps, %s a folder. */
  g_printerr (g_dngettext (GETTEXT_PACKAGE, "Made a workflow of %u step in %s.\n",
                           "Made a workflow of %u steps in %s.\n", sk_project_get_n_nodes (project)),
              sk_project_get_n_nodes (project), g_file_peek_path (folder));
  return EXIT_SUCCESS;
}
