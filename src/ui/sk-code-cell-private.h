/* sk-code-cell-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-code-cell.h"

G_BEGIN_DECLS

/* What "Clear Code" does once the user confirmed it; the widget tests call
 * it directly because they cannot click the dialog. */
void      _sk_code_cell_clear_code        (SkCodeCell           *self);

/* "Clear and Regenerate" keeps the script it replaces; the cell hands it to
 * the SkScriptFile that has its queue. */
void      _sk_code_cell_put_aside_async   (SkCodeCell           *self,
                                           GFile                *script,
                                           GAsyncReadyCallback   callback,
                                           gpointer              user_data);
gboolean  _sk_code_cell_put_aside_finish  (SkCodeCell           *self,
                                           GAsyncResult         *result,
                                           GError              **error);

G_END_DECLS
