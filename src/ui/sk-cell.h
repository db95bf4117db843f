/* sk-cell.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "skele.h"

G_BEGIN_DECLS

#define SK_TYPE_CELL (sk_cell_get_type())

G_DECLARE_DERIVABLE_TYPE (SkCell, sk_cell, SK, CELL, GtkWidget)

/**
 * SkCellClass:
 * @project_changed: called when #SkCell:project has changed, before it is
 *   notified
 * @node_changed: called when #SkCell:node has changed and the node signals
 *   follow the new node, before it is notified
 */
struct _SkCellClass
{
  GtkWidgetClass parent_class;

  void (*project_changed) (SkCell    *self,
                           SkProject *old_project);
  void (*node_changed)    (SkCell    *self,
                           SkNode    *old_node);
};

SkProject    *sk_cell_get_project      (SkCell     *self);
void          sk_cell_set_project      (SkCell     *self,
                                        SkProject  *project);
SkNode       *sk_cell_get_node         (SkCell     *self);
void          sk_cell_set_node         (SkCell     *self,
                                        SkNode     *node);
void          sk_cell_emit_message     (SkCell     *self,
                                        const char *text);
GSignalGroup *sk_cell_get_node_signals (SkCell     *self);
void          sk_cell_dispose_template (SkCell     *self,
                                        GType       widget_type);

G_END_DECLS
