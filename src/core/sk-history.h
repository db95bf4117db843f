/* sk-history.h
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

#define SK_TYPE_HISTORY (sk_history_get_type())

G_DECLARE_FINAL_TYPE (SkHistory, sk_history, SK, HISTORY, GObject)

SkHistory  *sk_history_new            (SkProject   *project);
SkProject  *sk_history_get_project    (SkHistory   *self);
void        sk_history_begin          (SkHistory   *self,
                                       const char  *label);
void        sk_history_end            (SkHistory   *self);
void        sk_history_flush          (SkHistory   *self);
void        sk_history_add_file_change (SkHistory  *self,
                                        GFile      *file,
                                        GBytes     *before,
                                        GBytes     *after);
gboolean    sk_history_get_can_undo   (SkHistory   *self);
gboolean    sk_history_get_can_redo   (SkHistory   *self);
const char *sk_history_get_undo_label (SkHistory   *self);
const char *sk_history_get_redo_label (SkHistory   *self);
char      **sk_history_get_node_ids   (SkHistory   *self,
                                       gboolean     redo);
gboolean    sk_history_undo           (SkHistory   *self);
gboolean    sk_history_redo           (SkHistory   *self);
void        sk_history_clear          (SkHistory   *self);

G_END_DECLS
