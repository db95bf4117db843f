/* sk-window-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-canvas.h"
#include "sk-code-cell.h"
#include "sk-history.h"
#include "sk-input-cell.h"
#include "sk-output-cell.h"
#include "sk-window.h"

G_BEGIN_DECLS

/* The widget tests reach the window's parts through these. */
SkCanvas     *_sk_window_get_canvas      (SkWindow *self);
SkHistory    *_sk_window_get_history     (SkWindow *self);
SkInputCell  *_sk_window_get_input_cell  (SkWindow *self);
SkOutputCell *_sk_window_get_output_cell (SkWindow *self);
SkCodeCell   *_sk_window_get_code_cell   (SkWindow *self);
gboolean      _sk_window_is_running      (SkWindow *self);
void          _sk_window_save_as         (SkWindow *self,
                                          GFile    *folder);
/* The message of the last toast shown, even one still waiting its turn. */
const char   *_sk_window_get_last_toast  (SkWindow *self);
/* The action of the last toast's button, such as "app.preferences". */
const char   *_sk_window_get_last_toast_action (SkWindow *self);

G_END_DECLS
