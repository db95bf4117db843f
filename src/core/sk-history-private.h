/* sk-history-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-history.h"

G_BEGIN_DECLS

#define SK_HISTORY_MAX_STEPS 500
#define SK_HISTORY_MERGE_WINDOW_US (G_USEC_PER_SEC)

/* What one undo step changed in one node, or in the process itself. */
typedef struct
{
  /* The node's identifier, or %NULL for the process's own members. */
  char       *id;
  /* The undoable state before and after the step; %NULL when the node did
   * not exist.
   */
  JsonObject *before;
  JsonObject *after;
} Change;

/* sk-history.c */
void      _sk_history_set_merge_window_us   (SkHistory   *self,
                                             gint64       window_us);

/* sk-history-describe.c */
gboolean  _sk_history_member_equal          (JsonObject  *a,
                                             JsonObject  *b,
                                             const char  *member);
guint     _sk_history_count_changed_members (JsonObject  *a,
                                             JsonObject  *b,
                                             const char **first);
char     *_sk_history_describe_changes      (GPtrArray   *changes);

G_END_DECLS
