/* sk-chat-pane.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "sk-canvas.h"
#include "skele.h"

G_BEGIN_DECLS

#define SK_TYPE_CHAT_PANE (sk_chat_pane_get_type ())

G_DECLARE_FINAL_TYPE (SkChatPane, sk_chat_pane, SK, CHAT_PANE, GtkWidget)

GtkWidget     *sk_chat_pane_new            (void);
SkChatSession *sk_chat_pane_get_session    (SkChatPane    *self);
void           sk_chat_pane_set_session    (SkChatPane    *self,
                                            SkChatSession *session);
void           sk_chat_pane_set_canvas     (SkChatPane    *self,
                                            SkCanvas      *canvas);
void           sk_chat_pane_focus_entry    (SkChatPane    *self);
void           sk_chat_pane_send           (SkChatPane    *self,
                                            const char    *message);
void           sk_chat_pane_stop           (SkChatPane    *self);
void           sk_chat_pane_set_draft_mode (SkChatPane    *self,
                                            gboolean       draft);

G_END_DECLS
