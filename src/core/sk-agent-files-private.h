/* sk-agent-files-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The coding agent's file tools and the confinement of their paths, for
 * sk-agent-tools.c.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The folders the agent works in, canonical and with every link resolved.
 * They never change, so worker threads read them freely.
 */
typedef struct
{
  char *workflow_dir;
  char *node_dir;
  char *bookkeeping_dir;
} SkAgentFiles;

SkAgentFiles *sk_agent_files_new              (const char          *workflow_dir,
                                               const char          *node_dir,
                                               GError             **error);
void          sk_agent_files_free             (SkAgentFiles        *files);

gboolean      sk_agent_files_path_is_within   (const char          *path,
                                               const char          *folder);
char         *sk_agent_files_resolve_physical (const char          *base,
                                               const char          *path,
                                               gboolean             follow_last,
                                               GError             **error);
char         *sk_agent_files_resolve_path     (const SkAgentFiles  *files,
                                               const char          *path,
                                               gboolean             for_write,
                                               GError             **error);

/* The file tools. They block, so they run in a worker thread, and answer
 * with a text for the model.
 */
char         *sk_agent_files_list_dir         (const SkAgentFiles  *files,
                                               const char          *path,
                                               gsize                limit,
                                               gboolean            *is_error);
char         *sk_agent_files_read_file        (const SkAgentFiles  *files,
                                               const char          *path,
                                               gint64               start_line,
                                               gint64               end_line,
                                               gsize                limit,
                                               gboolean            *is_error);
char         *sk_agent_files_write_file       (const SkAgentFiles  *files,
                                               const char          *path,
                                               const char          *content,
                                               gboolean            *is_error);
char         *sk_agent_files_delete_file      (const SkAgentFiles  *files,
                                               const char          *path,
                                               gboolean            *is_error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkAgentFiles, sk_agent_files_free)

G_END_DECLS
