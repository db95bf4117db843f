/* sk-export-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-project.h"

G_BEGIN_DECLS

/* A workflow or one of its sub-workflows in an export that runs it. */
typedef struct
{
  SkProject *project;
  char      *relative;   /* The folder below the export's, "" for the top. */
} SkExportPart;

/* What an export that runs the workflow gathers before it writes anything,
 * so that a problem anywhere, in a sub-workflow too, leaves no half-written
 * folder; the Python and the Snakemake exports share it. */
typedef struct
{
  GFile      *root;
  GPtrArray  *parts;     /* SkExportPart, the workflow first, depth first. */
  GTree      *imports;   /* Module name → the first step that imports it. */
  GPtrArray  *left_out;  /* Lines for the README: files not copied. */
  GPtrArray  *no_code;   /* The names of the steps without code. */
} SkExportFolder;

void      _sk_export_folder_clear    (SkExportFolder  *export);
gboolean  _sk_export_folder_write    (SkExportFolder  *export,
                                      SkProject       *project,
                                      GFile           *folder,
                                      GError         **error);
gboolean  _sk_export_write_file      (GFile           *file,
                                      const char      *data,
                                      gsize            length,
                                      int              mode,
                                      GError         **error);
void      _sk_export_append_title    (SkExportFolder  *export,
                                      GString         *readme);
void      _sk_export_append_needs    (SkExportFolder  *export,
                                      GString         *readme);
void      _sk_export_append_steps    (SkExportFolder  *export,
                                      GString         *readme);
void      _sk_export_append_left_out (SkExportFolder  *export,
                                      GString         *readme);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SkExportFolder, _sk_export_folder_clear)

G_END_DECLS
