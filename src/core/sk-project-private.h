/* sk-project-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-project.h"

G_BEGIN_DECLS

struct _SkProject
{
  GObject      parent_instance;

  GFile       *folder;
  char        *name;
  char        *description;
  char        *python;

  /* Nodes in file order, and the same nodes by identifier. */
  GPtrArray   *nodes;
  GHashTable  *by_id;

  /* Successor lists by identifier, rebuilt when the graph changed. */
  GHashTable  *successors;

  /* Members this program does not know, kept for writing back unchanged. */
  JsonObject  *extra;
  JsonObject  *skele_extra;
  JsonObject  *invalid_nodes;

  /* Problems only visible while parsing, such as duplicate members. */
  GPtrArray   *load_problems;

  guint        modified : 1;
};

/* sk-project.c */
void        _sk_project_set_modified      (SkProject     *self);
void        _sk_project_set_folder        (SkProject     *self,
                                           GFile         *folder);
void        _sk_project_attach_node       (SkProject     *self,
                                           guint          position,
                                           SkNode        *node);

/* sk-project-io.c */
SkProject  *_sk_project_load_lenient      (const char    *data,
                                           gssize         length,
                                           GFile         *folder,
                                           GError       **error);
char       *_sk_project_to_data_generic   (SkProject     *self,
                                           gsize         *length);
JsonObject *_sk_project_header_to_json    (SkProject     *self);
void        _sk_project_apply_header_json (SkProject     *self,
                                           JsonObject    *header);

/* sk-project-load-fast.c */
SkProject  *_sk_project_load_canonical    (const char    *data,
                                           gsize          length,
                                           GFile         *folder);

/* sk-project-graph.c */
void        _sk_project_add_problem       (GPtrArray     *problems,
                                           SkProblemKind  kind,
                                           gboolean       is_warning,
                                           const char    *node_id,
                                           const char    *format,
                                           ...) G_GNUC_PRINTF (5, 6);
void        _sk_project_set_last_concerns (GPtrArray          *problems,
                                           const char * const *node_ids,
                                           const char * const *edge_pairs);
char       *_sk_project_describe_node     (SkNode        *node);

/* sk-control-flow.c */
void        _sk_control_flow_validate     (SkProject     *self,
                                           SkNode        *node,
                                           GPtrArray     *problems);

G_END_DECLS
