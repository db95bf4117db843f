/* sk-chat-session.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chat of one open workflow: its conversation, the proposal waiting
 * for the person's decision, and the turns of the chat agent, with the
 * coding agent's settings and keyring.
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-changeset.h"
#include "sk-chat-log.h"
#include "sk-workspace.h"

G_BEGIN_DECLS

/* How many characters of earlier turns go with each message. */
#define SK_CHAT_SESSION_HISTORY_CHARS 12000

#define SK_TYPE_CHAT_SESSION (sk_chat_session_get_type ())

G_DECLARE_FINAL_TYPE (SkChatSession, sk_chat_session, SK, CHAT_SESSION, GObject)

SkChatSession *sk_chat_session_new             (SkWorkspace          *workspace);
SkWorkspace   *sk_chat_session_get_workspace   (SkChatSession        *self);
SkChatLog     *sk_chat_session_get_log         (SkChatSession        *self);
gboolean       sk_chat_session_save_log        (SkChatSession        *self,
                                                GError              **error);
const char    *sk_chat_session_get_warning     (SkChatSession        *self);
SkChangeset   *sk_chat_session_get_changeset   (SkChatSession        *self);
gboolean       sk_chat_session_get_busy        (SkChatSession        *self);

void           sk_chat_session_set_overrides   (SkChatSession        *self,
                                                const char           *provider,
                                                const char           *base_url,
                                                const char           *model);
void           sk_chat_session_set_max_steps   (SkChatSession        *self,
                                                guint                 max_steps);

void           sk_chat_session_send_async      (SkChatSession        *self,
                                                const char           *message,
                                                const char * const   *selection,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
char          *sk_chat_session_send_finish     (SkChatSession        *self,
                                                GAsyncResult         *result,
                                                guint64              *tokens_in,
                                                guint64              *tokens_out,
                                                GError              **error);

gboolean       sk_chat_session_accept          (SkChatSession        *self,
                                                GError              **error);
void           sk_chat_session_reject          (SkChatSession        *self);

G_END_DECLS
