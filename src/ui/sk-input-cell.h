/* sk-input-cell.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sk-cell.h"
#include "skele.h"

G_BEGIN_DECLS

#define SK_TYPE_INPUT_CELL (sk_input_cell_get_type())

G_DECLARE_FINAL_TYPE (SkInputCell, sk_input_cell, SK, INPUT_CELL, SkCell)

GtkWidget *sk_input_cell_new                 (void);
SkHistory *sk_input_cell_get_history         (SkInputCell         *self);
void       sk_input_cell_set_history         (SkInputCell         *self,
                                              SkHistory           *history);
void       sk_input_cell_focus_task          (SkInputCell         *self);
void       sk_input_cell_attach_files_async  (SkInputCell         *self,
                                              GFile              **files,
                                              guint                n_files,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
gboolean   sk_input_cell_attach_files_finish (SkInputCell         *self,
                                              GAsyncResult        *result,
                                              GError             **error);

G_END_DECLS
