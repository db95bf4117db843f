/* sk-node-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-node.h"

G_BEGIN_DECLS

struct _SkNode
{
  GObject      parent_instance;

  char        *id;
  char        *name;
  char        *key;
  char        *description;
  GStrv        priors;
  char        *input_text;
  GStrv        input_files;
  char        *output_text;
  GStrv        output_files;
  char        *error_text;
  char        *error_detail;

  /* Members this program does not know, kept for writing back unchanged;
   * %NULL when there are none. */
  JsonObject  *extra;
  JsonObject  *input_extra;
  JsonObject  *output_extra;
  JsonObject  *skele_extra;

  double       x;
  double       y;
  SkNodeState  state;

  guint        run : 1;
  guint        has_position : 1;
};

/* sk-node.c */
void      _sk_node_emit_changed     (SkNode     *self);
void      _sk_node_tokens_changed   (SkNode     *self);

/* sk-node-json.c */
void      _sk_node_load_json        (SkNode     *self,
                                     JsonObject *object,
                                     GPtrArray  *problems);
gboolean  _sk_node_append_json      (SkNode     *self,
                                     GString    *out,
                                     guint       level);
void      _sk_node_check_skele      (JsonObject *skele,
                                     GPtrArray  *problems);
JsonNode *_sk_node_get_skele_member (SkNode     *self,
                                     const char *member);

G_END_DECLS
