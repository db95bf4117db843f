/* sk-output-cell.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sk-project.h"

G_BEGIN_DECLS

#define SK_TYPE_OUTPUT_CELL (sk_output_cell_get_type())

G_DECLARE_FINAL_TYPE (SkOutputCell, sk_output_cell, SK, OUTPUT_CELL, GtkWidget)

GtkWidget  *sk_output_cell_new                (void);
SkProject  *sk_output_cell_get_project        (SkOutputCell *self);
void        sk_output_cell_set_project        (SkOutputCell *self,
                                               SkProject    *project);
SkNode     *sk_output_cell_get_node           (SkOutputCell *self);
void        sk_output_cell_set_node           (SkOutputCell *self,
                                               SkNode       *node);
const char *sk_output_cell_get_selected_file  (SkOutputCell *self);
void        sk_output_cell_select_file        (SkOutputCell *self,
                                               const char   *name);
const char *sk_output_cell_get_preview_kind   (SkOutputCell *self);

G_END_DECLS
