/* sk-code-cell.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sk-cell.h"
#include "skele.h"

G_BEGIN_DECLS

#define SK_TYPE_CODE_CELL (sk_code_cell_get_type())

G_DECLARE_FINAL_TYPE (SkCodeCell, sk_code_cell, SK, CODE_CELL, SkCell)

GtkWidget    *sk_code_cell_new             (void);
SkScriptFile *sk_code_cell_get_script_file (SkCodeCell *self);
GFile        *sk_code_cell_get_file        (SkCodeCell *self);
gboolean      sk_code_cell_get_has_script  (SkCodeCell *self);
gboolean      sk_code_cell_get_modified    (SkCodeCell *self);
gboolean      sk_code_cell_get_can_undo    (SkCodeCell *self);
gboolean      sk_code_cell_get_can_redo    (SkCodeCell *self);
gboolean      sk_code_cell_get_agent_ready (SkCodeCell *self);
void          sk_code_cell_set_agent_ready (SkCodeCell *self,
                                            gboolean    agent_ready);
void          sk_code_cell_save            (SkCodeCell *self);

G_END_DECLS
