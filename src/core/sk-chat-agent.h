/* sk-chat-agent.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chat agent: one turn of a conversation about the whole workflow, in
 * which the model reads the workflow through tools and proposes changes
 * only as the typed operations of a #SkChangeset.
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-changeset.h"
#include "sk-llm-client.h"

G_BEGIN_DECLS

#define SK_CHAT_AGENT_ERROR (sk_chat_agent_error_quark ())

/**
 * SkChatAgentError:
 * @SK_CHAT_AGENT_ERROR_BUDGET: the agent used all its replies without
 *   finishing its turn
 * @SK_CHAT_AGENT_ERROR_PROMPT: the prompt template could not be used
 * @SK_CHAT_AGENT_ERROR_EMPTY: there was no message to answer
 *
 * Why a chat turn ended without an answer.
 */
typedef enum
{
  SK_CHAT_AGENT_ERROR_BUDGET,
  SK_CHAT_AGENT_ERROR_PROMPT,
  SK_CHAT_AGENT_ERROR_EMPTY,
} SkChatAgentError;

#define SK_CHAT_AGENT_DEFAULT_MAX_STEPS 20

/* The tools' names, as the model calls them (DESIGN §9). */
#define SK_CHAT_TOOL_LIST_STEPS      "list_steps"
#define SK_CHAT_TOOL_GET_STEP        "get_step"
#define SK_CHAT_TOOL_READ_CODE       "read_code"
#define SK_CHAT_TOOL_READ_LOG        "read_log"
#define SK_CHAT_TOOL_ADD_STEP        "add_step"
#define SK_CHAT_TOOL_REMOVE_STEP     "remove_step"
#define SK_CHAT_TOOL_RENAME_STEP     "rename_step"
#define SK_CHAT_TOOL_SET_TASK        "set_task"
#define SK_CHAT_TOOL_SET_DESCRIPTION "set_description"
#define SK_CHAT_TOOL_CONNECT         "connect"
#define SK_CHAT_TOOL_DISCONNECT      "disconnect"
#define SK_CHAT_TOOL_SET_RUN         "set_run"
#define SK_CHAT_TOOL_SET_PROCESS     "set_process"
#define SK_CHAT_TOOL_FINISH          "finish"

#define SK_TYPE_CHAT_AGENT (sk_chat_agent_get_type ())

G_DECLARE_FINAL_TYPE (SkChatAgent, sk_chat_agent, SK, CHAT_AGENT, GObject)

GQuark       sk_chat_agent_error_quark      (void);
GPtrArray   *sk_chat_agent_get_definitions  (void);
char        *sk_chat_agent_call_tool        (SkChangeset          *changeset,
                                             const SkLlmToolCall  *call,
                                             gboolean             *is_error);

SkChatAgent *sk_chat_agent_new              (SkLlmClient          *client,
                                             SkChangeset          *changeset);
SkChangeset *sk_chat_agent_get_changeset    (SkChatAgent          *self);
void         sk_chat_agent_set_max_steps    (SkChatAgent          *self,
                                             guint                 max_steps);
void         sk_chat_agent_set_text_tools   (SkChatAgent          *self,
                                             gboolean              text_tools);
gboolean     sk_chat_agent_get_text_tools   (SkChatAgent          *self);
void         sk_chat_agent_set_selection    (SkChatAgent          *self,
                                             const char * const   *step_ids);

guint        sk_chat_agent_get_steps        (SkChatAgent          *self);
void         sk_chat_agent_get_usage        (SkChatAgent          *self,
                                             guint64              *prompt_tokens,
                                             guint64              *completion_tokens);

void         sk_chat_agent_send_async       (SkChatAgent          *self,
                                             GPtrArray            *turns,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
char        *sk_chat_agent_send_finish      (SkChatAgent          *self,
                                             GAsyncResult         *result,
                                             GError              **error);

G_END_DECLS
