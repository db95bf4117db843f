/* fuzz-mermaid.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Imports arbitrary bytes as a Mermaid flowchart. What imports must be a
 * workflow without cycles, and exporting it and importing the export must
 * give the same chart again.
 */

#include "config.h"

#include <string.h>

#include "sk-export.h"
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
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkProject) again = NULL;
  g_autoptr(GPtrArray) order = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *chart = NULL;
  g_autofree char *chart_again = NULL;

  project = sk_import_mermaid ((const char *) data, (gssize) size, notes, &error);
  if (project == NULL)
    {
      g_assert (error != NULL);
      return 0;
    }

  order = sk_project_topological_order (project, &error);
  if (order == NULL)
    g_error ("An imported flowchart has a cycle: %s", error->message);

  chart = sk_export_mermaid (project);
  again = sk_import_mermaid (chart, -1, NULL, &error);
  if (again == NULL)
    g_error ("An exported flowchart did not import: %s\n%s", error->message, chart);

  chart_again = sk_export_mermaid (again);
  if (strcmp (chart, chart_again) != 0)
    g_error ("Importing an export changed the workflow:\n%s\n---\n%s", chart, chart_again);

  return 0;
}
