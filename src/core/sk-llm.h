/* sk-llm.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The values exchanged with a language model, independent of the server's
 * dialect: messages, tool definitions, tool calls, token usage and replies.
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * SkLlmProvider:
 * @SK_LLM_PROVIDER_OPENAI: an OpenAI-compatible chat completions server
 *   (OpenAI, Ollama's `/v1`, llama.cpp, vLLM, LM Studio)
 * @SK_LLM_PROVIDER_OLLAMA: Ollama's native `/api/chat`
 * @SK_LLM_PROVIDER_ANTHROPIC: Anthropic's Messages API
 */
typedef enum
{
  SK_LLM_PROVIDER_OPENAI,
  SK_LLM_PROVIDER_OLLAMA,
  SK_LLM_PROVIDER_ANTHROPIC,
} SkLlmProvider;

#define SK_LLM_ERROR (sk_llm_error_quark ())

/**
 * SkLlmError:
 * @SK_LLM_ERROR_NOT_CONFIGURED: no model or server was set
 * @SK_LLM_ERROR_CONNECTION: the server could not be reached
 * @SK_LLM_ERROR_AUTH: the server refused the API key
 * @SK_LLM_ERROR_MODEL_NOT_FOUND: the server does not have the model
 * @SK_LLM_ERROR_RATE_LIMITED: too many requests, still so after retrying
 * @SK_LLM_ERROR_QUOTA: the account's quota or spending limit is used up
 * @SK_LLM_ERROR_CONTEXT_TOO_LONG: the request is larger than the model's context
 * @SK_LLM_ERROR_TOOLS_UNSUPPORTED: the model or server does not take tool definitions
 * @SK_LLM_ERROR_BAD_REQUEST: the server rejected the request for another reason
 * @SK_LLM_ERROR_SERVER: the server failed or is overloaded
 * @SK_LLM_ERROR_LOADING: the server is still loading the model
 * @SK_LLM_ERROR_TIMEOUT: the server sent nothing for too long
 * @SK_LLM_ERROR_PROTOCOL: the reply could not be understood
 * @SK_LLM_ERROR_INCOMPLETE: the reply ended before its end marker
 * @SK_LLM_ERROR_STREAM: the server reported an error in the middle of its reply
 * @SK_LLM_ERROR_TOO_LARGE: the reply, one of its lines or events, or its tool
 *   calls grew beyond what any real reply needs
 */
typedef enum
{
  SK_LLM_ERROR_NOT_CONFIGURED,
  SK_LLM_ERROR_CONNECTION,
  SK_LLM_ERROR_AUTH,
  SK_LLM_ERROR_MODEL_NOT_FOUND,
  SK_LLM_ERROR_RATE_LIMITED,
  SK_LLM_ERROR_QUOTA,
  SK_LLM_ERROR_CONTEXT_TOO_LONG,
  SK_LLM_ERROR_TOOLS_UNSUPPORTED,
  SK_LLM_ERROR_BAD_REQUEST,
  SK_LLM_ERROR_SERVER,
  SK_LLM_ERROR_LOADING,
  SK_LLM_ERROR_TIMEOUT,
  SK_LLM_ERROR_PROTOCOL,
  SK_LLM_ERROR_INCOMPLETE,
  SK_LLM_ERROR_STREAM,
  SK_LLM_ERROR_TOO_LARGE,
} SkLlmError;

typedef enum
{
  SK_LLM_ROLE_USER,
  SK_LLM_ROLE_ASSISTANT,
  SK_LLM_ROLE_TOOL,
} SkLlmRole;

/**
 * SkLlmToolCall:
 * @id: the call's id as the server gave it (generated when it gave none)
 * @name: the tool's name
 * @arguments: the arguments as JSON text, exactly as received
 *
 * One call of a tool by the model.
 */
typedef struct
{
  char *id;
  char *name;
  char *arguments;
} SkLlmToolCall;

/**
 * SkLlmTool:
 * @name: the tool's name
 * @description: what it does, for the model
 * @parameters: its arguments as a JSON Schema object
 */
typedef struct
{
  char     *name;
  char     *description;
  JsonNode *parameters;
} SkLlmTool;

/**
 * SkLlmMessage:
 * @role: who speaks
 * @content: the text (nullable for an assistant turn that only calls tools)
 * @tool_calls: (element-type SkLlmToolCall): an assistant turn's calls
 * @tool_call_id: for %SK_LLM_ROLE_TOOL, the call this answers
 * @tool_name: for %SK_LLM_ROLE_TOOL, the tool that was called
 * @is_error: for %SK_LLM_ROLE_TOOL, whether the call failed
 */
typedef struct
{
  SkLlmRole  role;
  char      *content;
  GPtrArray *tool_calls;
  char      *tool_call_id;
  char      *tool_name;
  gboolean   is_error;
} SkLlmMessage;

/**
 * SkLlmUsage:
 * @known: whether the server reported any count
 * @prompt_tokens: tokens read
 * @completion_tokens: tokens written
 */
typedef struct
{
  gboolean known;
  guint64  prompt_tokens;
  guint64  completion_tokens;
} SkLlmUsage;

/**
 * SkLlmResponse:
 * @text: the reply's text, possibly empty
 * @reasoning: the model's thinking, when the server sends it apart (nullable)
 * @tool_calls: (element-type SkLlmToolCall): the tools it called
 * @finish_reason: why it stopped, in the server's words (nullable)
 * @usage: tokens used by this call
 */
typedef struct
{
  char       *text;
  char       *reasoning;
  GPtrArray  *tool_calls;
  char       *finish_reason;
  SkLlmUsage  usage;
} SkLlmResponse;

/**
 * SkLlmEvent:
 * @SK_LLM_EVENT_TEXT: a piece of the reply's text arrived
 * @SK_LLM_EVENT_REASONING: a piece of the model's thinking arrived
 * @SK_LLM_EVENT_TOOL_CALL: the model started calling the tool named in the text
 * @SK_LLM_EVENT_RETRY: the request failed and will be sent again; the text
 *   says why and when, in plain language
 *
 * What a streaming call reports while it runs.
 */
typedef enum
{
  SK_LLM_EVENT_TEXT,
  SK_LLM_EVENT_REASONING,
  SK_LLM_EVENT_TOOL_CALL,
  SK_LLM_EVENT_RETRY,
} SkLlmEvent;

typedef void (*SkLlmEventFunc) (SkLlmEvent  event,
                                const char *text,
                                gpointer    user_data);

GQuark         sk_llm_error_quark              (void);

const char    *sk_llm_provider_to_string       (SkLlmProvider  provider);
gboolean       sk_llm_provider_from_string     (const char    *string,
                                                SkLlmProvider *provider);
const char    *sk_llm_provider_default_base_url(SkLlmProvider  provider);

SkLlmToolCall *sk_llm_tool_call_new            (const char    *id,
                                                const char    *name,
                                                const char    *arguments);
SkLlmToolCall *sk_llm_tool_call_copy           (const SkLlmToolCall *call);
void           sk_llm_tool_call_free           (SkLlmToolCall *call);
JsonObject    *sk_llm_tool_call_parse_arguments(const SkLlmToolCall *call,
                                                GError       **error);

SkLlmTool     *sk_llm_tool_new                 (const char    *name,
                                                const char    *description,
                                                const char    *parameters_json);
void           sk_llm_tool_free                (SkLlmTool     *tool);

SkLlmMessage  *sk_llm_message_new              (SkLlmRole      role,
                                                const char    *content);
SkLlmMessage  *sk_llm_message_new_tool_result  (const char    *tool_call_id,
                                                const char    *tool_name,
                                                const char    *content,
                                                gboolean       is_error);
void           sk_llm_message_add_tool_call    (SkLlmMessage  *message,
                                                const SkLlmToolCall *call);
void           sk_llm_message_free             (SkLlmMessage  *message);

SkLlmResponse *sk_llm_response_new             (void);
void           sk_llm_response_free            (SkLlmResponse *response);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkLlmToolCall, sk_llm_tool_call_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkLlmTool, sk_llm_tool_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkLlmMessage, sk_llm_message_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkLlmResponse, sk_llm_response_free)

G_END_DECLS
