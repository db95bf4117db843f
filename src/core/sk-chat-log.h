/* sk-chat-log.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * SkChatTurn:
 * @role: who spoke: `user`, `assistant` or `tool`
 * @text: what was said, valid UTF-8
 * @tokens_in: the prompt tokens the turn cost, 0 when unknown
 * @tokens_out: the completion tokens the turn cost, 0 when unknown
 *
 * One turn of the conversation with the chat agent.
 */
typedef struct
{
  char    *role;
  char    *text;
  guint64  tokens_in;
  guint64  tokens_out;
} SkChatTurn;

typedef struct _SkChatLog SkChatLog;

void              sk_chat_turn_free       (SkChatTurn  *turn);

SkChatLog        *sk_chat_log_new         (GFile       *folder);
SkChatLog        *sk_chat_log_load        (GFile       *folder,
                                           GError     **error);
void              sk_chat_log_free        (SkChatLog   *log);
void              sk_chat_log_set_folder  (SkChatLog   *log,
                                           GFile       *folder);
gboolean          sk_chat_log_save        (SkChatLog   *log,
                                           GError     **error);

void              sk_chat_log_append      (SkChatLog   *log,
                                           const char  *role,
                                           const char  *text,
                                           guint64      tokens_in,
                                           guint64      tokens_out);

GFile            *sk_chat_log_get_file    (SkChatLog   *log);
const char       *sk_chat_log_get_warning (SkChatLog   *log);
guint             sk_chat_log_get_n_turns (SkChatLog   *log);
const SkChatTurn *sk_chat_log_get_turn    (SkChatLog   *log,
                                           guint        index);
void              sk_chat_log_get_tokens  (SkChatLog   *log,
                                           guint64     *tokens_in,
                                           guint64     *tokens_out);

GPtrArray        *sk_chat_log_for_prompt  (SkChatLog   *log,
                                           gsize        budget_chars);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkChatTurn, sk_chat_turn_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkChatLog, sk_chat_log_free)

G_END_DECLS
