/* sk-export.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-project.h"

G_BEGIN_DECLS

/* The comment block of a Mermaid flowchart that keeps what Mermaid cannot
 * say about the steps (DESIGN §11). */
#define SK_MERMAID_CONFIG_START "%% === WORKFLOW_CONFIG ==="
#define SK_MERMAID_CONFIG_END   "%% === END_CONFIG ==="

#define SK_EXPORT_ERROR (sk_export_error_quark ())

/**
 * SkExportError:
 * @SK_EXPORT_ERROR_FORMAT: the format is not one Skele-Code writes
 * @SK_EXPORT_ERROR_PARSE: the input is not a flowchart that can be read
 * @SK_EXPORT_ERROR_EMPTY: the input holds no step
 * @SK_EXPORT_ERROR_GRAPHVIZ: Graphviz could not lay out or draw the graph
 * @SK_EXPORT_ERROR_EXISTS: the folder to write holds files already
 *
 * Why a workflow could not be written in another format or read from one.
 */
typedef enum
{
  SK_EXPORT_ERROR_FORMAT,
  SK_EXPORT_ERROR_PARSE,
  SK_EXPORT_ERROR_EMPTY,
  SK_EXPORT_ERROR_GRAPHVIZ,
  SK_EXPORT_ERROR_EXISTS,
} SkExportError;

GQuark      sk_export_error_quark (void);

/* sk-mermaid-export.c */
char       *sk_export_mermaid     (SkProject   *project);

/* sk-mermaid-import.c */
SkProject  *sk_import_mermaid     (const char  *text,
                                   gssize       length,
                                   GPtrArray   *notes,
                                   GError     **error);

/* sk-export-graphviz.c */
char       *sk_export_dot         (SkProject   *project);
GBytes     *sk_export_graphviz    (SkProject   *project,
                                   const char  *format,
                                   GError     **error);
GBytes     *sk_export_render_dot  (const char  *dot,
                                   const char  *format,
                                   GError     **error);

/* sk-export-html.c */
gboolean    sk_export_html        (SkProject   *project,
                                   GFile       *file,
                                   GError     **error);
char       *sk_export_html_text   (SkProject   *project);

/* sk-export-python.c */
gboolean    sk_export_python      (SkProject   *project,
                                   GFile       *folder,
                                   GError     **error);

/* sk-export-snakemake.c */
gboolean    sk_export_snakemake   (SkProject   *project,
                                   GFile       *folder,
                                   GError     **error);

/* sk-export-notebook.c */
char       *sk_export_notebook_text (SkProject *project,
                                     GError   **error);
gboolean    sk_export_notebook    (SkProject   *project,
                                   GFile       *file,
                                   GError     **error);

G_END_DECLS
