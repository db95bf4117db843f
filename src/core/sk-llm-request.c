/* sk-llm-request.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The body of a chat request in each dialect: OpenAI chat completions,
 * Ollama's native /api/chat and Anthropic Messages.
 */

#define G_LOG_DOMAIN "sk-llm-request"

#include "config.h"

#include <string.h>

#include "sk-llm-request.h"

#define ANTHROPIC_DEFAULT_MAX_TOKENS 8192
#define OLLAMA_CONTEXT_SIZE 16384

/* What the body depends on besides the conversation. */
typedef struct
{
  SkLlmProvider  provider;
  const char    *base_url;
  const char    *model;
  guint          max_tokens;
} Server;

static JsonNode *
parse_arguments_object (const char *arguments)
{
  JsonNode *node = NULL;

  if (arguments != NULL && *arguments != '\0')
    node = json_from_string (arguments, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_clear_pointer (&node, json_node_unref);
      node = json_node_init_object (json_node_alloc (), json_object_new ());
      json_object_unref (json_node_get_object (node));
    }

  return node;
}

static void
add_openai_message (JsonBuilder        *builder,
                    const SkLlmMessage *message,
                    gboolean            arguments_as_objects)
{
  json_builder_begin_object (builder);

  json_builder_set_member_name (builder, "role");
  switch (message->role)
    {
    case SK_LLM_ROLE_USER:
      json_builder_add_string_value (builder, "user");
      break;
    case SK_LLM_ROLE_ASSISTANT:
      json_builder_add_string_value (builder, "assistant");
      break;
    case SK_LLM_ROLE_TOOL:
    default:
      json_builder_add_string_value (builder, "tool");
      break;
    }

  json_builder_set_member_name (builder, "content");
  if (message->content == NULL && message->role == SK_LLM_ROLE_ASSISTANT && !arguments_as_objects)
    json_builder_add_null_value (builder);
  else
    json_builder_add_string_value (builder, message->content != NULL ? message->content : "");

  if (message->role == SK_LLM_ROLE_TOOL)
    {
      if (message->tool_call_id != NULL)
        {
          json_builder_set_member_name (builder, "tool_call_id");
          json_builder_add_string_value (builder, message->tool_call_id);
        }
      if (arguments_as_objects && message->tool_name != NULL)
        {
          json_builder_set_member_name (builder, "tool_name");
          json_builder_add_string_value (builder, message->tool_name);
        }
    }

  if (message->tool_calls != NULL && message->tool_calls->len > 0)
    {
      json_builder_set_member_name (builder, "tool_calls");
      json_builder_begin_array (builder);
      for (guint i = 0; i < message->tool_calls->len; i++)
        {
          const SkLlmToolCall *call = g_ptr_array_index (message->tool_calls, i);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "id");
          json_builder_add_string_value (builder, call->id);
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "function");
          json_builder_set_member_name (builder, "function");
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, call->name);
          json_builder_set_member_name (builder, "arguments");
          /* Ollama's native API wants the object, /v1 servers a string. */
          if (arguments_as_objects)
            json_builder_add_value (builder, parse_arguments_object (call->arguments));
          else
            json_builder_add_string_value (builder, call->arguments != NULL && *call->arguments != '\0'
                                                    ? call->arguments : "{}");
          json_builder_end_object (builder);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }

  json_builder_end_object (builder);
}

static void
add_openai_tools (JsonBuilder *builder,
                  GPtrArray   *tools)
{
  json_builder_set_member_name (builder, "tools");
  json_builder_begin_array (builder);
  for (guint i = 0; i < tools->len; i++)
    {
      const SkLlmTool *tool = g_ptr_array_index (tools, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "function");
      json_builder_set_member_name (builder, "function");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, tool->name);
      json_builder_set_member_name (builder, "description");
      json_builder_add_string_value (builder, tool->description);
      json_builder_set_member_name (builder, "parameters");
      json_builder_add_value (builder, json_node_copy (tool->parameters));
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

static void
build_openai_body (const Server *server,
                   JsonBuilder  *builder,
                   const char   *system,
                   GPtrArray    *messages,
                   GPtrArray    *tools)
{
  gboolean native = server->provider == SK_LLM_PROVIDER_OLLAMA;

  json_builder_set_member_name (builder, "messages");
  json_builder_begin_array (builder);
  if (system != NULL && *system != '\0')
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "role");
      json_builder_add_string_value (builder, "system");
      json_builder_set_member_name (builder, "content");
      json_builder_add_string_value (builder, system);
      json_builder_end_object (builder);
    }
  for (guint i = 0; messages != NULL && i < messages->len; i++)
    add_openai_message (builder, g_ptr_array_index (messages, i), native);
  json_builder_end_array (builder);

  if (tools != NULL && tools->len > 0)
    add_openai_tools (builder, tools);

  json_builder_set_member_name (builder, "stream");
  json_builder_add_boolean_value (builder, TRUE);

  if (native)
    {
      /* Ollama's default context is a few thousand tokens, and it cuts a
       * longer prompt silently, which loses the agent's instructions.
       */
      json_builder_set_member_name (builder, "options");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "num_ctx");
      json_builder_add_int_value (builder, OLLAMA_CONTEXT_SIZE);
      if (server->max_tokens > 0)
        {
          json_builder_set_member_name (builder, "num_predict");
          json_builder_add_int_value (builder, server->max_tokens);
        }
      json_builder_end_object (builder);
      return;
    }

  json_builder_set_member_name (builder, "stream_options");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "include_usage");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_end_object (builder);

  if (server->max_tokens > 0)
    {
      /* OpenAI's newer models refuse max_tokens; local servers only know it. */
      json_builder_set_member_name (builder, strstr (server->base_url, "api.openai.com") != NULL
                                             ? "max_completion_tokens" : "max_tokens");
      json_builder_add_int_value (builder, server->max_tokens);
    }
}

static void
add_anthropic_content (JsonBuilder        *builder,
                       const SkLlmMessage *message)
{
  if (message->role == SK_LLM_ROLE_TOOL)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "tool_result");
      json_builder_set_member_name (builder, "tool_use_id");
      json_builder_add_string_value (builder, message->tool_call_id != NULL ? message->tool_call_id : "");
      json_builder_set_member_name (builder, "content");
      json_builder_add_string_value (builder, message->content != NULL ? message->content : "");
      if (message->is_error)
        {
          json_builder_set_member_name (builder, "is_error");
          json_builder_add_boolean_value (builder, TRUE);
        }
      json_builder_end_object (builder);
      return;
    }

  if (message->content != NULL && *message->content != '\0')
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "text");
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, message->content);
      json_builder_end_object (builder);
    }

  for (guint i = 0; message->tool_calls != NULL && i < message->tool_calls->len; i++)
    {
      const SkLlmToolCall *call = g_ptr_array_index (message->tool_calls, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "tool_use");
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, call->id);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, call->name);
      json_builder_set_member_name (builder, "input");
      json_builder_add_value (builder, parse_arguments_object (call->arguments));
      json_builder_end_object (builder);
    }
}

static void
build_anthropic_body (const Server *server,
                      JsonBuilder  *builder,
                      const char   *system,
                      GPtrArray    *messages,
                      GPtrArray    *tools)
{
  const char *open_role = NULL;

  json_builder_set_member_name (builder, "max_tokens");
  json_builder_add_int_value (builder, server->max_tokens > 0 ? server->max_tokens : ANTHROPIC_DEFAULT_MAX_TOKENS);

  if (system != NULL && *system != '\0')
    {
      json_builder_set_member_name (builder, "system");
      json_builder_add_string_value (builder, system);
    }

  /* Turns must alternate, and tool results travel in the user's turn, so
   * consecutive messages of one side are merged into one turn.
   */
  json_builder_set_member_name (builder, "messages");
  json_builder_begin_array (builder);
  for (guint i = 0; messages != NULL && i < messages->len; i++)
    {
      const SkLlmMessage *message = g_ptr_array_index (messages, i);
      const char *role = message->role == SK_LLM_ROLE_ASSISTANT ? "assistant" : "user";

      if (g_strcmp0 (open_role, role) != 0)
        {
          if (open_role != NULL)
            {
              json_builder_end_array (builder);
              json_builder_end_object (builder);
            }
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "role");
          json_builder_add_string_value (builder, role);
          json_builder_set_member_name (builder, "content");
          json_builder_begin_array (builder);
          open_role = role;
        }
      add_anthropic_content (builder, message);
    }
  if (open_role != NULL)
    {
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  if (tools != NULL && tools->len > 0)
    {
      json_builder_set_member_name (builder, "tools");
      json_builder_begin_array (builder);
      for (guint i = 0; i < tools->len; i++)
        {
          const SkLlmTool *tool = g_ptr_array_index (tools, i);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, tool->name);
          json_builder_set_member_name (builder, "description");
          json_builder_add_string_value (builder, tool->description);
          json_builder_set_member_name (builder, "input_schema");
          json_builder_add_value (builder, json_node_copy (tool->parameters));
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }

  json_builder_set_member_name (builder, "stream");
  json_builder_add_boolean_value (builder, TRUE);
}

/**
 * sk_llm_request_build_chat_body:
 * @provider: the dialect
 * @base_url: the server's address, which tells OpenAI itself from the
 *   servers that copy its API
 * @model: the model's name
 * @max_tokens: the longest reply, or 0 for the server's own limit
 * @system: (nullable): the instructions
 * @messages: (element-type SkLlmMessage) (nullable): the conversation so far
 * @tools: (element-type SkLlmTool) (nullable): tools the model may call
 *
 * Builds the JSON body of a streamed chat request.
 *
 * Returns: (transfer full): the body
 */
GBytes *
sk_llm_request_build_chat_body (SkLlmProvider  provider,
                                const char    *base_url,
                                const char    *model,
                                guint          max_tokens,
                                const char    *system,
                                GPtrArray     *messages,
                                GPtrArray     *tools)
{
  const Server server = { provider, base_url != NULL ? base_url : "", model, max_tokens };
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  char *text;
  gsize length;

  g_return_val_if_fail (model != NULL, NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, server.model);

  if (server.provider == SK_LLM_PROVIDER_ANTHROPIC)
    build_anthropic_body (&server, builder, system, messages, tools);
  else
    build_openai_body (&server, builder, system, messages, tools);

  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, &length);

  return g_bytes_new_take (text, length);
}
