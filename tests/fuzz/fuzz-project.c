/* fuzz-project.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Loads arbitrary bytes as a process.json, validates the workflow and saves
 * it to text: what was saved must load again, and saving that gives the
 * same text.
 */

#include "config.h"

#include <string.h>

#include "sk-project.h"

#include "fuzz-common.h"

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  sk_fuzz_init ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkProject) reloaded = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *saved_again = NULL;
  gsize saved_length = 0;
  gsize saved_again_length = 0;

  project = sk_project_load_from_data ((const char *) data, (gssize) size, NULL, &error);
  if (project == NULL)
    {
      g_assert (error != NULL);
      return 0;
    }

  problems = sk_project_validate (project);
  g_assert (problems != NULL);

  saved = sk_project_to_data (project, &saved_length);
  g_assert (saved != NULL);

  reloaded = sk_project_load_from_data (saved, (gssize) saved_length, NULL, &error);
  if (reloaded == NULL)
    g_error ("A saved workflow did not load again: %s\n%s", error->message, saved);

  saved_again = sk_project_to_data (reloaded, &saved_again_length);
  if (saved_length != saved_again_length || memcmp (saved, saved_again, saved_length) != 0)
    g_error ("Saving a reloaded workflow changed it:\n%s\n---\n%s", saved, saved_again);

  return 0;
}
