/* sk-output-cell.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sk-cell.h"

G_BEGIN_DECLS

#define SK_TYPE_OUTPUT_CELL (sk_output_cell_get_type())

G_DECLARE_FINAL_TYPE (SkOutputCell, sk_output_cell, SK, OUTPUT_CELL, SkCell)

GtkWidget  *sk_output_cell_new                (void);
const char *sk_output_cell_get_selected_file  (SkOutputCell *self);
void        sk_output_cell_select_file        (SkOutputCell *self,
                                               const char   *name);
const char *sk_output_cell_get_preview_kind   (SkOutputCell *self);
void        sk_output_cell_set_agent_log      (SkOutputCell *self,
                                               GListModel   *log);
char       *sk_output_cell_describe_tokens    (guint64       read,
                                               guint64       written);
void        sk_output_cell_append_live_output (SkOutputCell *self,
                                               const char   *text);
void        sk_output_cell_clear_live_output  (SkOutputCell *self);

G_END_DECLS
