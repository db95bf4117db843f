/* sk-llm-stream-dialects.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The events of each dialect: OpenAI's chat completion chunks, Anthropic's
 * message events and Ollama's lines, streamed or whole, turned into the
 * reply that sk-llm-stream.c assembles.
 */

#define G_LOG_DOMAIN "sk-llm-stream"

#include "config.h"

#include <string.h>


#include "sk-json.h"
#include "sk-llm-stream-private.h"

static void
read_openai_usage (SkLlmStream *self,
                   JsonObject  *usage)
{
  gint64 value;

  if (usage == NULL)
    return;

  if (_sk_llm_stream_get_int_or_double (usage, "prompt_tokens", &value))
    {
      self->usage.prompt_tokens = value;
      self->usage.known = TRUE;
    }
  if (_sk_llm_stream_get_int_or_double (usage, "completion_tokens", &value))
    {
      self->usage.completion_tokens = value;
      self->usage.known = TRUE;
    }
}

static void
openai_tool_call_delta (SkLlmStream *self,
                        JsonObject  *item)
{
  JsonObject *function = sk_json_get_object (item, "function");
  const char *id = sk_json_get_string (item, "id");
  PendingCall *call = NULL;
  gint64 index = -1;

  if (_sk_llm_stream_get_int_or_double (item, "index", &index))
    call = g_hash_table_lookup (self->calls_by_index, &index);
  else if (id == NULL || *id == '\0')
    call = self->last_call;

  /* Ollama's /v1 gave every call of a reply the index 0: a new id on a used
   * index is a new call.
   */
  if (call != NULL && id != NULL && *id != '\0' && call->id != NULL && g_strcmp0 (call->id, id) != 0)
    call = NULL;
  else if (call != NULL && id != NULL && *id != '\0' && call->id == NULL)
    call->id = g_strdup (id);

  if (call == NULL)
    call = _sk_llm_stream_new_call (self, index, id);
  if (call == NULL)
    return;

  _sk_llm_stream_set_call_name (self, call, sk_json_get_string (function, "name"));
  _sk_llm_stream_set_call_arguments_node (self, call, sk_json_get_member (function, "arguments"), TRUE);
}

gboolean
_sk_llm_stream_openai_event (SkLlmStream  *self,
                             const char   *event_name,
                             const char   *data,
                             GError      **error)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *object;
  JsonArray *choices;

  if (strcmp (data, "[DONE]") == 0)
    {
      self->done = TRUE;
      return TRUE;
    }

  /* Some proxies keep the connection alive with empty events. */
  if (*data == '\0')
    return TRUE;

  node = _sk_llm_stream_parse_json (data, strlen (data), error);
  if (node == NULL)
    return FALSE;

  if (g_strcmp0 (event_name, "error") == 0 || !JSON_NODE_HOLDS_OBJECT (node) ||
      json_object_has_member (json_node_get_object (node), "error"))
    {
      if (!JSON_NODE_HOLDS_OBJECT (node) && g_strcmp0 (event_name, "error") != 0)
        {
          g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                       "The server sent an event that is not a JSON object: %.200s", data);
          return FALSE;
        }
      return _sk_llm_stream_stream_error (node, error);
    }

  object = json_node_get_object (node);
  read_openai_usage (self, sk_json_get_object (object, "usage"));

  choices = sk_json_get_array (object, "choices");
  for (guint i = 0; choices != NULL && i < json_array_get_length (choices); i++)
    {
      JsonNode *choice_node = json_array_get_element (choices, i);
      JsonObject *choice;
      JsonObject *delta;
      JsonArray *tool_calls;
      gint64 index = 0;

      if (!JSON_NODE_HOLDS_OBJECT (choice_node))
        continue;
      choice = json_node_get_object (choice_node);

      /* Only the first choice is asked for. */
      if (_sk_llm_stream_get_int_or_double (choice, "index", &index) && index != 0)
        continue;

      delta = sk_json_get_object (choice, "delta");
      if (delta == NULL)
        delta = sk_json_get_object (choice, "message");

      _sk_llm_stream_add_reasoning (self, sk_json_get_string (delta, "reasoning_content"));
      _sk_llm_stream_add_reasoning (self, sk_json_get_string (delta, "reasoning"));
      _sk_llm_stream_add_text (self, sk_json_get_string (delta, "content"));

      tool_calls = sk_json_get_array (delta, "tool_calls");
      for (guint j = 0; tool_calls != NULL && j < json_array_get_length (tool_calls); j++)
        {
          JsonNode *item = json_array_get_element (tool_calls, j);

          if (JSON_NODE_HOLDS_OBJECT (item))
            openai_tool_call_delta (self, json_node_get_object (item));
        }

      _sk_llm_stream_set_finish_reason (self, sk_json_get_string (choice, "finish_reason"));
    }

  return TRUE;
}

gboolean
_sk_llm_stream_anthropic_event (SkLlmStream  *self,
                                const char   *event_name,
                                const char   *data,
                                GError      **error)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *object;
  const char *type;
  gint64 value;

  node = _sk_llm_stream_parse_json (data, strlen (data), error);
  if (node == NULL)
    return FALSE;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                   "The server sent an event that is not a JSON object: %.200s", data);
      return FALSE;
    }

  object = json_node_get_object (node);
  type = sk_json_get_string (object, "type");
  if (type == NULL)
    type = event_name;

  if (g_strcmp0 (type, "error") == 0 || g_strcmp0 (event_name, "error") == 0)
    return _sk_llm_stream_stream_error (node, error);

  if (g_strcmp0 (type, "message_start") == 0)
    {
      JsonObject *usage = sk_json_get_object (sk_json_get_object (object, "message"), "usage");

      if (_sk_llm_stream_get_int_or_double (usage, "input_tokens", &value))
        {
          self->usage.prompt_tokens = value;
          self->usage.known = TRUE;
        }
      if (_sk_llm_stream_get_int_or_double (usage, "output_tokens", &value))
        self->usage.completion_tokens = value;
    }
  else if (g_strcmp0 (type, "content_block_start") == 0)
    {
      JsonObject *block = sk_json_get_object (object, "content_block");
      const char *block_type = sk_json_get_string (block, "type");
      gint64 index = -1;

      _sk_llm_stream_get_int_or_double (object, "index", &index);

      if (g_strcmp0 (block_type, "tool_use") == 0)
        {
          PendingCall *call = _sk_llm_stream_new_call (self, index, sk_json_get_string (block, "id"));
          JsonObject *input = sk_json_get_object (block, "input");

          if (call == NULL)
            return TRUE;
          _sk_llm_stream_set_call_name (self, call, sk_json_get_string (block, "name"));
          /* The start carries "input": {} and the real input follows as
           * JSON pieces; a non-empty object here is kept unless pieces come.
           */
          if (input != NULL && json_object_get_size (input) > 0)
            _sk_llm_stream_set_call_arguments_node (self, call, sk_json_get_member (block, "input"), FALSE);
        }
      else if (g_strcmp0 (block_type, "text") == 0)
        _sk_llm_stream_add_text (self, sk_json_get_string (block, "text"));
    }
  else if (g_strcmp0 (type, "content_block_delta") == 0)
    {
      JsonObject *delta = sk_json_get_object (object, "delta");
      const char *delta_type = sk_json_get_string (delta, "type");
      gint64 index = -1;

      _sk_llm_stream_get_int_or_double (object, "index", &index);

      if (g_strcmp0 (delta_type, "text_delta") == 0)
        _sk_llm_stream_add_text (self, sk_json_get_string (delta, "text"));
      else if (g_strcmp0 (delta_type, "thinking_delta") == 0)
        _sk_llm_stream_add_reasoning (self, sk_json_get_string (delta, "thinking"));
      else if (g_strcmp0 (delta_type, "input_json_delta") == 0)
        {
          PendingCall *call = g_hash_table_lookup (self->calls_by_index, &index);
          const char *piece = sk_json_get_string (delta, "partial_json");

          if (call == NULL)
            {
              g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                           "The server sent tool input for block %" G_GINT64_FORMAT
                           ", which is not a tool call", index);
              return FALSE;
            }
          _sk_llm_stream_add_call_arguments (self, call, piece != NULL ? piece : "", call->arguments_replaced);
          call->arguments_replaced = FALSE;
        }
    }
  else if (g_strcmp0 (type, "message_delta") == 0)
    {
      JsonObject *usage = sk_json_get_object (object, "usage");

      _sk_llm_stream_set_finish_reason (self, sk_json_get_string (sk_json_get_object (object, "delta"), "stop_reason"));
      /* output_tokens is the running total, not an increment. */
      if (_sk_llm_stream_get_int_or_double (usage, "output_tokens", &value))
        {
          self->usage.completion_tokens = value;
          self->usage.known = TRUE;
        }
      if (_sk_llm_stream_get_int_or_double (usage, "input_tokens", &value))
        self->usage.prompt_tokens = value;
    }
  else if (g_strcmp0 (type, "message_stop") == 0)
    self->done = TRUE;

  /* ping, content_block_stop and event types added later need nothing. */
  return TRUE;
}

static gboolean
ollama_message (SkLlmStream  *self,
                JsonObject   *object)
{
  JsonObject *message = sk_json_get_object (object, "message");
  JsonArray *tool_calls = sk_json_get_array (message, "tool_calls");
  gboolean done = FALSE;
  gint64 value;

  _sk_llm_stream_add_reasoning (self, sk_json_get_string (message, "thinking"));
  _sk_llm_stream_add_text (self, sk_json_get_string (message, "content"));

  /* Every tool call arrives whole, in one line. */
  for (guint i = 0; tool_calls != NULL && i < json_array_get_length (tool_calls); i++)
    {
      JsonNode *item = json_array_get_element (tool_calls, i);
      JsonObject *function;
      PendingCall *call;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        continue;

      function = sk_json_get_object (json_node_get_object (item), "function");
      call = _sk_llm_stream_new_call (self, -1, sk_json_get_string (json_node_get_object (item), "id"));
      if (call == NULL)
        break;
      _sk_llm_stream_set_call_name (self, call, sk_json_get_string (function, "name"));
      _sk_llm_stream_set_call_arguments_node (self, call, sk_json_get_member (function, "arguments"), FALSE);
    }

  /* A "done" that is not a boolean (a broken or hostile server) reads as not
   * done: the reply then fails as cut short unless a real end follows.
   */
  if (sk_json_get_boolean (object, "done", &done) && done)
    {
      self->done = TRUE;
      _sk_llm_stream_set_finish_reason (self, sk_json_get_string (object, "done_reason"));
      if (_sk_llm_stream_get_int_or_double (object, "prompt_eval_count", &value))
        {
          self->usage.prompt_tokens = value;
          self->usage.known = TRUE;
        }
      if (_sk_llm_stream_get_int_or_double (object, "eval_count", &value))
        {
          self->usage.completion_tokens = value;
          self->usage.known = TRUE;
        }
    }

  return TRUE;
}

gboolean
_sk_llm_stream_ollama_line (SkLlmStream  *self,
                            const char   *line,
                            gsize         length,
                            GError      **error)
{
  g_autoptr(JsonNode) node = NULL;

  while (length > 0 && g_ascii_isspace (*line))
    line++, length--;
  if (length == 0)
    return TRUE;

  node = _sk_llm_stream_parse_json (line, length, error);
  if (node == NULL)
    return FALSE;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                   "The server sent a line that is not a JSON object: %.200s", line);
      return FALSE;
    }

  if (json_object_has_member (json_node_get_object (node), "error"))
    return _sk_llm_stream_stream_error (node, error);

  return ollama_message (self, json_node_get_object (node));
}


gboolean
_sk_llm_stream_parse_openai_complete (SkLlmStream  *self,
                                      JsonNode     *node,
                                      GError      **error)
{
  JsonObject *object = json_node_get_object (node);
  JsonArray *choices = sk_json_get_array (object, "choices");
  JsonObject *choice = NULL;
  JsonObject *message;
  JsonArray *tool_calls;

  read_openai_usage (self, sk_json_get_object (object, "usage"));

  if (choices != NULL && json_array_get_length (choices) > 0 &&
      JSON_NODE_HOLDS_OBJECT (json_array_get_element (choices, 0)))
    choice = json_array_get_object_element (choices, 0);

  if (choice == NULL)
    {
      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                   "The server's reply has no choices");
      return FALSE;
    }

  message = sk_json_get_object (choice, "message");
  _sk_llm_stream_add_reasoning (self, sk_json_get_string (message, "reasoning_content"));
  _sk_llm_stream_add_reasoning (self, sk_json_get_string (message, "reasoning"));
  _sk_llm_stream_add_text (self, sk_json_get_string (message, "content"));

  tool_calls = sk_json_get_array (message, "tool_calls");
  for (guint i = 0; tool_calls != NULL && i < json_array_get_length (tool_calls); i++)
    {
      JsonNode *item = json_array_get_element (tool_calls, i);
      JsonObject *function;
      PendingCall *call;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        continue;

      function = sk_json_get_object (json_node_get_object (item), "function");
      call = _sk_llm_stream_new_call (self, -1, sk_json_get_string (json_node_get_object (item), "id"));
      if (call == NULL)
        break;
      _sk_llm_stream_set_call_name (self, call, sk_json_get_string (function, "name"));
      _sk_llm_stream_set_call_arguments_node (self, call, sk_json_get_member (function, "arguments"), FALSE);
    }

  _sk_llm_stream_set_finish_reason (self, sk_json_get_string (choice, "finish_reason"));
  self->done = TRUE;

  return TRUE;
}

gboolean
_sk_llm_stream_parse_anthropic_complete (SkLlmStream  *self,
                                         JsonNode     *node,
                                         GError      **error)
{
  JsonObject *object = json_node_get_object (node);
  JsonArray *content = sk_json_get_array (object, "content");
  JsonObject *usage = sk_json_get_object (object, "usage");
  gint64 value;

  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *item = json_array_get_element (content, i);
      JsonObject *block;
      const char *type;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        continue;

      block = json_node_get_object (item);
      type = sk_json_get_string (block, "type");

      if (g_strcmp0 (type, "text") == 0)
        _sk_llm_stream_add_text (self, sk_json_get_string (block, "text"));
      else if (g_strcmp0 (type, "thinking") == 0)
        _sk_llm_stream_add_reasoning (self, sk_json_get_string (block, "thinking"));
      else if (g_strcmp0 (type, "tool_use") == 0)
        {
          PendingCall *call = _sk_llm_stream_new_call (self, -1, sk_json_get_string (block, "id"));

          if (call == NULL)
            break;
          _sk_llm_stream_set_call_name (self, call, sk_json_get_string (block, "name"));
          _sk_llm_stream_set_call_arguments_node (self, call, sk_json_get_member (block, "input"), FALSE);
        }
    }

  if (_sk_llm_stream_get_int_or_double (usage, "input_tokens", &value))
    {
      self->usage.prompt_tokens = value;
      self->usage.known = TRUE;
    }
  if (_sk_llm_stream_get_int_or_double (usage, "output_tokens", &value))
    {
      self->usage.completion_tokens = value;
      self->usage.known = TRUE;
    }

  _sk_llm_stream_set_finish_reason (self, sk_json_get_string (object, "stop_reason"));
  self->done = TRUE;

  return TRUE;
}
