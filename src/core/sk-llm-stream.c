/* sk-llm-stream.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads go by whatever the socket gives, which never lines up with the
 * server's events: bytes are kept until a whole line has arrived, and only
 * whole lines are decoded, so a character or an escape cut in two is joined
 * again first. Server-sent events (OpenAI, Anthropic) follow the SSE rules as
 * the OpenAI Python library applies them: LF, CRLF or CR line ends, comments,
 * `data:` with or without a space, several data lines joined. Ollama's native
 * stream is one JSON object per line.
 */

#define G_LOG_DOMAIN "sk-llm-stream"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-json.h"
#include "sk-llm-stream-private.h"


static void
pending_call_free (PendingCall *call)
{
  g_free (call->id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

SkLlmStream *
sk_llm_stream_new (SkLlmProvider  dialect,
                   SkLlmEventFunc event_func,
                   gpointer       event_data)
{
  SkLlmStream *self = g_new0 (SkLlmStream, 1);

  self->dialect = dialect;
  self->event_func = event_func;
  self->event_data = event_data;
  self->buffer = g_byte_array_new ();
  self->max_line = MAX_LINE_LENGTH;
  self->data = g_string_new (NULL);
  self->text = g_string_new (NULL);
  self->reasoning = g_string_new (NULL);
  self->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) pending_call_free);
  self->calls_by_index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  return self;
}

void
sk_llm_stream_free (SkLlmStream *self)
{
  if (self == NULL)
    return;

  g_byte_array_unref (self->buffer);
  g_string_free (self->data, TRUE);
  g_free (self->event_name);
  g_string_free (self->text, TRUE);
  g_string_free (self->reasoning, TRUE);
  g_hash_table_destroy (self->calls_by_index);
  g_ptr_array_unref (self->calls);
  g_free (self->finish_reason);
  g_clear_error (&self->limit_error);
  g_free (self);
}

gboolean
sk_llm_stream_is_done (SkLlmStream *self)
{
  return self->done;
}

/**
 * sk_llm_stream_has_output:
 *
 * Returns: whether any text, thinking or tool call has reached the caller,
 *   after which a failed request must not be sent again on its own
 */
gboolean
sk_llm_stream_has_output (SkLlmStream *self)
{
  return self->has_output;
}

static void
emit (SkLlmStream *self,
      SkLlmEvent   event,
      const char  *text)
{
  self->has_output = TRUE;
  if (self->event_func != NULL)
    self->event_func (event, text, self->event_data);
}

static void
set_limit_error (SkLlmStream *self,
                 GError      *error)
{
  if (self->limit_error == NULL)
    self->limit_error = error;
  else
    g_error_free (error);
}

/* Reports the limit that was passed; the stream then takes nothing more. */
static gboolean
take_limit_error (SkLlmStream  *self,
                  GError      **error)
{
  if (self->limit_error == NULL)
    return TRUE;

  g_propagate_error (error, g_steal_pointer (&self->limit_error));
  self->limit_error = g_error_new_literal (SK_LLM_ERROR, SK_LLM_ERROR_TOO_LARGE,
                                           _("The reply was stopped for being too large."));
  return FALSE;
}

/* json-glib turns an escaped lone surrogate (\ud800) into bytes that are not
 * UTF-8; nothing that is not UTF-8 goes on to the caller.
 */
static const char *
valid_utf8 (const char  *text,
            char       **copy)
{
  *copy = NULL;
  if (text == NULL || g_utf8_validate (text, -1, NULL))
    return text;

  *copy = g_utf8_make_valid (text, -1);
  return *copy;
}

static gboolean
check_text_length (SkLlmStream *self,
                   gsize        added)
{
  if (self->text->len + self->reasoning->len + added <= MAX_TEXT_LENGTH)
    return TRUE;

  set_limit_error (self, g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_TOO_LARGE,
                                      _("The model’s reply grew beyond %u MiB, so it was "
                                        "stopped. The model may be repeating itself "
                                        "endlessly; try again, or choose another model."),
                                      (guint) (MAX_TEXT_LENGTH / MiB)));
  return FALSE;
}

void
_sk_llm_stream_add_text (SkLlmStream *self,
                         const char  *text)
{
  g_autofree char *copy = NULL;

  if (text == NULL || *text == '\0' || self->limit_error != NULL)
    return;

  text = valid_utf8 (text, &copy);
  if (!check_text_length (self, strlen (text)))
    return;

  g_string_append (self->text, text);
  emit (self, SK_LLM_EVENT_TEXT, text);
}

void
_sk_llm_stream_add_reasoning (SkLlmStream *self,
                              const char  *text)
{
  g_autofree char *copy = NULL;

  if (text == NULL || *text == '\0' || self->limit_error != NULL)
    return;

  text = valid_utf8 (text, &copy);
  if (!check_text_length (self, strlen (text)))
    return;

  g_string_append (self->reasoning, text);
  emit (self, SK_LLM_EVENT_REASONING, text);
}

void
_sk_llm_stream_set_finish_reason (SkLlmStream *self,
                                  const char  *reason)
{
  if (reason == NULL)
    return;

  g_free (self->finish_reason);
  self->finish_reason = g_strdup (reason);
}

/* Returns: (nullable): the new call, or %NULL when the reply has too many */
PendingCall *
_sk_llm_stream_new_call (SkLlmStream *self,
                         gint64       index,
                         const char  *id)
{
  PendingCall *call;

  if (self->limit_error != NULL)
    return NULL;

  if (self->calls->len >= MAX_TOOL_CALLS)
    {
      set_limit_error (self, g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_TOO_LARGE,
                                          _("The model called more than %u tools in one "
                                            "reply, so the reply was stopped. Try again, or "
                                            "choose another model."),
                                          MAX_TOOL_CALLS));
      return NULL;
    }

  call = g_new0 (PendingCall, 1);
  call->id = (id != NULL && *id != '\0') ? g_utf8_make_valid (id, -1) : NULL;
  call->name = g_strdup ("");
  call->arguments = g_string_new (NULL);
  g_ptr_array_add (self->calls, call);

  if (index >= 0)
    {
      gint64 *key = g_new (gint64, 1);

      *key = index;
      g_hash_table_replace (self->calls_by_index, key, call);
    }

  self->last_call = call;
  return call;
}

void
_sk_llm_stream_set_call_name (SkLlmStream *self,
                              PendingCall *call,
                              const char  *name)
{
  /* Some servers repeat the name in every fragment; joining them would give
   * "write_filewrite_file", so the first name wins.
   */
  if (name == NULL || *name == '\0' || *call->name != '\0')
    return;

  g_free (call->name);
  call->name = g_utf8_make_valid (name, -1);
  emit (self, SK_LLM_EVENT_TOOL_CALL, call->name);
}

/* Adds @text to the arguments of @call, or puts it in their place, unless
 * the arguments of all the calls would grow beyond their limit.
 */
void
_sk_llm_stream_add_call_arguments (SkLlmStream *self,
                                   PendingCall *call,
                                   const char  *text,
                                   gboolean     replace)
{
  g_autofree char *copy = NULL;
  gsize total = 0;

  if (text == NULL || self->limit_error != NULL)
    return;

  text = valid_utf8 (text, &copy);
  for (guint i = 0; i < self->calls->len; i++)
    {
      PendingCall *other = g_ptr_array_index (self->calls, i);

      if (other != call || !replace)
        total += other->arguments->len;
    }

  if (total + strlen (text) > MAX_ARGUMENTS_LENGTH)
    {
      set_limit_error (self, g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_TOO_LARGE,
                                          _("The arguments of the model’s tool calls grew "
                                            "beyond %u MiB, so the reply was stopped. The "
                                            "model may be repeating itself endlessly; try "
                                            "again, or choose another model."),
                                          (guint) (MAX_ARGUMENTS_LENGTH / MiB)));
      return;
    }

  if (replace)
    g_string_truncate (call->arguments, 0);
  g_string_append (call->arguments, text);
}

void
_sk_llm_stream_set_call_arguments_node (SkLlmStream *self,
                                        PendingCall *call,
                                        JsonNode    *arguments,
                                        gboolean     append)
{
  if (arguments == NULL || JSON_NODE_HOLDS_NULL (arguments))
    return;

  if (JSON_NODE_HOLDS_VALUE (arguments) && json_node_get_value_type (arguments) == G_TYPE_STRING)
    _sk_llm_stream_add_call_arguments (self, call, json_node_get_string (arguments), !append);
  else
    {
      /* Native Ollama and some llama.cpp builds send the object itself. */
      g_autofree char *text = json_to_string (arguments, FALSE);

      _sk_llm_stream_add_call_arguments (self, call, text, TRUE);
      call->arguments_replaced = TRUE;
    }
}

/* Some servers write counts and indices as 12.0. */
gboolean
_sk_llm_stream_get_int_or_double (JsonObject *object,
                                  const char *name,
                                  gint64     *value)
{
  double number;

  if (sk_json_get_int (object, name, value))
    return TRUE;

  if (!sk_json_get_double (object, name, &number))
    return FALSE;

  *value = (gint64) number;
  return TRUE;
}

/**
 * sk_llm_stream_extract_error:
 * @node: a parsed error body or stream event
 *
 * Finds the message, type and code in any of the error shapes servers use:
 * OpenAI's `{"error":{"message","type","code"}}` (with a string or, from
 * llama.cpp, an integer code), Ollama's `{"error":"text"}`, Anthropic's
 * `{"type":"error","error":{"type","message"}}` and vLLM's older flat
 * `{"object":"error","message"}`.
 *
 * Returns: whether @node looks like an error at all
 */
gboolean
sk_llm_stream_extract_error (JsonNode  *node,
                             char     **message,
                             char     **type,
                             char     **code)
{
  JsonObject *object;
  JsonObject *error_object;
  const char *error_text;
  gint64 code_number;

  *message = NULL;
  *type = NULL;
  *code = NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;

  object = json_node_get_object (node);
  error_text = sk_json_get_string (object, "error");
  if (error_text != NULL)
    {
      *message = g_strdup (error_text);
      return TRUE;
    }

  error_object = sk_json_get_object (object, "error");
  if (error_object == NULL)
    {
      if (g_strcmp0 (sk_json_get_string (object, "object"), "error") != 0)
        return FALSE;
      error_object = object;
    }

  *message = g_strdup (sk_json_get_string (error_object, "message"));
  *type = g_strdup (sk_json_get_string (error_object, "type"));

  if (sk_json_get_string (error_object, "code") != NULL)
    *code = g_strdup (sk_json_get_string (error_object, "code"));
  else if (sk_json_get_int (error_object, "code", &code_number))
    *code = g_strdup_printf ("%" G_GINT64_FORMAT, code_number);

  if (*message == NULL)
    *message = g_strdup (*type != NULL ? *type : "unknown error");

  return TRUE;
}

gboolean
_sk_llm_stream_stream_error (JsonNode  *node,
                             GError   **error)
{
  g_autofree char *message = NULL;
  g_autofree char *type = NULL;
  g_autofree char *code = NULL;

  if (!sk_llm_stream_extract_error (node, &message, &type, &code))
    message = g_strdup ("no details were given");

  g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_STREAM,
               "The server reported an error in the middle of its reply: %s", message);
  return FALSE;
}

JsonNode *
_sk_llm_stream_parse_json (const char  *text,
                           gsize        length,
                           GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *valid = NULL;

  /* json-glib recurses once a level: deep enough nesting would exhaust the
   * stack and take the whole program with it.
   */
  if (!sk_json_check_depth (text, length, SK_JSON_MAX_DEPTH, NULL))
    {
      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                   _("The server sent an event nested more than %u levels deep, so the "
                     "reply was stopped. No language model server sends such events; "
                     "check the server’s address in Preferences."),
                   SK_JSON_MAX_DEPTH);
      return NULL;
    }

  /* json-glib refuses a whole event for one byte that is not UTF-8; a
   * character the server broke costs only itself (it becomes U+FFFD).
   */
  if (!g_utf8_validate_len (text, length, NULL))
    {
      valid = g_utf8_make_valid (text, length);
      text = valid;
      length = strlen (valid);
    }

  if (!json_parser_load_from_data (parser, text, length, &local_error) ||
      json_parser_get_root (parser) == NULL)
    {
      g_autofree char *shown = g_utf8_make_valid (text, MIN (length, 200));

      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                   "The server sent a line that is not valid JSON (%s): %s%s",
                   local_error != NULL ? local_error->message : "empty",
                   shown, length > 200 ? "…" : "");
      return NULL;
    }

  return json_node_ref (json_parser_get_root (parser));
}

static gboolean
line_too_long (SkLlmStream  *self,
               GError      **error)
{
  set_limit_error (self, g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_TOO_LARGE,
                                      _("The server sent a single line or event longer than "
                                        "%u MiB, so the reply was stopped. No language model "
                                        "server sends such lines; check the server’s address "
                                        "in Preferences."),
                                      (guint) (self->max_line / MiB)));
  return take_limit_error (self, error);
}

static gboolean
dispatch_event (SkLlmStream  *self,
                GError      **error)
{
  gboolean ret = TRUE;

  if (self->have_data)
    {
      if (self->dialect == SK_LLM_PROVIDER_ANTHROPIC)
        ret = _sk_llm_stream_anthropic_event (self, self->event_name, self->data->str, error);
      else
        ret = _sk_llm_stream_openai_event (self, self->event_name, self->data->str, error);
    }

  g_string_truncate (self->data, 0);
  self->have_data = FALSE;
  g_clear_pointer (&self->event_name, g_free);

  return ret;
}

static gboolean
sse_line (SkLlmStream  *self,
          const char   *line,
          gsize         length,
          GError      **error)
{
  g_autofree char *field = NULL;
  const char *colon;
  const char *value;
  gsize value_length;

  if (length == 0)
    return dispatch_event (self, error);

  if (line[0] == ':')
    return TRUE;

  /* A proxy that forwards a server's JSON error without SSE framing. */
  if (line[0] == '{')
    {
      g_autoptr(JsonNode) node = _sk_llm_stream_parse_json (line, length, error);

      if (node == NULL)
        return FALSE;
      if (JSON_NODE_HOLDS_OBJECT (node) && json_object_has_member (json_node_get_object (node), "error"))
        return _sk_llm_stream_stream_error (node, error);

      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                   "The server sent JSON outside of the event stream: %.200s", line);
      return FALSE;
    }

  colon = memchr (line, ':', length);
  field = g_strndup (line, colon != NULL ? (gsize) (colon - line) : length);
  value = colon != NULL ? colon + 1 : line + length;
  value_length = length - (value - line);
  if (value_length > 0 && *value == ' ')
    value++, value_length--;

  if (strcmp (field, "data") == 0)
    {
      /* Data lines add up to one event until an empty line. */
      if (self->data->len + value_length + 1 > self->max_line)
        return line_too_long (self, error);
      if (self->have_data)
        g_string_append_c (self->data, '\n');
      g_string_append_len (self->data, value, value_length);
      self->have_data = TRUE;
    }
  else if (strcmp (field, "event") == 0)
    {
      g_free (self->event_name);
      self->event_name = g_strndup (value, value_length);
    }
  else if (strcmp (field, "error") == 0)
    {
      /* llama.cpp before its fix #16109 sent errors in a field of its own. */
      g_autoptr(JsonNode) node = _sk_llm_stream_parse_json (value, value_length, NULL);
      g_autofree char *message = NULL;
      g_autofree char *type = NULL;
      g_autofree char *code = NULL;

      if (node != NULL && JSON_NODE_HOLDS_OBJECT (node) && !json_object_has_member (json_node_get_object (node), "error"))
        {
          JsonObject *wrapper = json_object_new ();

          json_object_set_member (wrapper, "error", json_node_ref (node));
          g_clear_pointer (&node, json_node_unref);
          node = json_node_init_object (json_node_alloc (), wrapper);
          json_object_unref (wrapper);
        }
      if (node == NULL || !sk_llm_stream_extract_error (node, &message, &type, &code))
        message = g_strndup (value, MIN (value_length, 200));

      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_STREAM,
                   "The server reported an error in the middle of its reply: %s", message);
      return FALSE;
    }

  /* id:, retry: and unknown fields carry nothing for a chat reply. */
  return TRUE;
}

static gboolean
process_line (SkLlmStream  *self,
              const char   *line,
              gsize         length,
              GError      **error)
{
  gboolean ok;

  if (self->dialect == SK_LLM_PROVIDER_OLLAMA)
    ok = _sk_llm_stream_ollama_line (self, line, length, error);
  else
    ok = sse_line (self, line, length, error);

  return ok && take_limit_error (self, error);
}

static gboolean
process_buffer (SkLlmStream  *self,
                gboolean      at_end,
                GError      **error)
{
  const guint8 *bytes = self->buffer->data;
  gsize length = self->buffer->len;
  gsize start = 0;
  gsize i = self->scan_from;
  gboolean ok = TRUE;

  while (ok && i < length)
    {
      gsize end_length;

      if (bytes[i] != '\n' && bytes[i] != '\r')
        {
          i++;
          continue;
        }

      if (bytes[i] == '\r')
        {
          /* A CR at the end of what arrived may be the first half of CRLF. */
          if (i + 1 == length && !at_end)
            break;
          end_length = (i + 1 < length && bytes[i + 1] == '\n') ? 2 : 1;
        }
      else
        end_length = 1;

      {
        g_autofree char *line = g_strndup ((const char *) bytes + start, i - start);

        ok = process_line (self, line, i - start, error);
      }

      i += end_length;
      start = i;
    }

  g_byte_array_remove_range (self->buffer, 0, start);
  self->scan_from = i - start;

  if (ok && self->buffer->len > self->max_line)
    return line_too_long (self, error);

  return ok;
}

/**
 * sk_llm_stream_feed:
 * @data: the next bytes, cut anywhere
 *
 * Returns: %FALSE with %SK_LLM_ERROR_PROTOCOL for a line that cannot be
 *   understood, %SK_LLM_ERROR_STREAM when the server reported an error, or
 *   %SK_LLM_ERROR_TOO_LARGE when a line, the text or the tool calls grew
 *   beyond their limits; after an error the stream takes nothing more
 */
gboolean
sk_llm_stream_feed (SkLlmStream  *self,
                    const char   *data,
                    gsize         length,
                    GError      **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (!take_limit_error (self, error))
    return FALSE;

  /* A line that never ends must not grow the buffer past the limit. */
  if (self->buffer->len + length > self->max_line &&
      memchr (data, '\n', length) == NULL && memchr (data, '\r', length) == NULL)
    return line_too_long (self, error);

  g_byte_array_append (self->buffer, (const guint8 *) data, length);
  return process_buffer (self, FALSE, error);
}

/**
 * sk_llm_stream_finish:
 *
 * Call at the end of the body. A stream that ended without its end marker
 * (`[DONE]`, `"done": true`, `message_stop`) is an error: a connection that
 * was cut reads as a clean end.
 *
 * Returns: %FALSE with %SK_LLM_ERROR_INCOMPLETE when the marker is missing
 */
gboolean
sk_llm_stream_finish (SkLlmStream  *self,
                      GError      **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (!take_limit_error (self, error) || !process_buffer (self, TRUE, error))
    return FALSE;

  if (self->buffer->len > 0)
    {
      g_autofree char *line = g_strndup ((const char *) self->buffer->data, self->buffer->len);

      g_byte_array_set_size (self->buffer, 0);
      self->scan_from = 0;
      if (!process_line (self, line, strlen (line), error))
        return FALSE;
    }

  if (self->dialect != SK_LLM_PROVIDER_OLLAMA &&
      !(dispatch_event (self, error) && take_limit_error (self, error)))
    return FALSE;

  if (!self->done)
    {
      const char *marker = self->dialect == SK_LLM_PROVIDER_OLLAMA ? "\"done\": true" :
                           self->dialect == SK_LLM_PROVIDER_ANTHROPIC ? "message_stop" : "[DONE]";

      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_INCOMPLETE,
                   "The reply stopped before its end (%s never came); the connection "
                   "was probably cut.", marker);
      return FALSE;
    }

  return TRUE;
}

/**
 * sk_llm_stream_parse_complete:
 * @body: a whole reply that a server sent as one JSON document instead of a
 *   stream (Ollama with `"stream": false`, or a server that ignores `stream`)
 *
 * Returns: whether the reply could be read
 */
gboolean
sk_llm_stream_parse_complete (SkLlmStream  *self,
                              const char   *body,
                              gsize         length,
                              GError      **error)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (self != NULL, FALSE);

  /* The body was read whole under its own limit, and may be one long line. */
  self->max_line = MAX (self->max_line, length);

  if (self->dialect == SK_LLM_PROVIDER_OLLAMA)
    return sk_llm_stream_feed (self, body, length, error) && sk_llm_stream_finish (self, error);

  node = _sk_llm_stream_parse_json (body, length, error);
  if (node == NULL)
    return FALSE;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                   "The server's reply is not a JSON object");
      return FALSE;
    }

  if (json_object_has_member (json_node_get_object (node), "error"))
    return _sk_llm_stream_stream_error (node, error);

  if (self->dialect == SK_LLM_PROVIDER_ANTHROPIC)
    {
      if (!_sk_llm_stream_parse_anthropic_complete (self, node, error))
        return FALSE;
    }
  else if (!_sk_llm_stream_parse_openai_complete (self, node, error))
    return FALSE;

  return take_limit_error (self, error);
}

/**
 * sk_llm_stream_steal_response:
 *
 * Returns: (transfer full): what arrived so far, whole or not; tool calls
 *   without an id get one
 */
SkLlmResponse *
sk_llm_stream_steal_response (SkLlmStream *self)
{
  SkLlmResponse *response = sk_llm_response_new ();

  g_free (response->text);
  response->text = g_string_free (g_steal_pointer (&self->text), FALSE);
  self->text = g_string_new (NULL);

  if (self->reasoning->len > 0)
    response->reasoning = g_strdup (self->reasoning->str);

  for (guint i = 0; i < self->calls->len; i++)
    {
      PendingCall *call = g_ptr_array_index (self->calls, i);
      g_autofree char *id = call->id != NULL ? g_strdup (call->id) : g_strdup_printf ("call_%u", i + 1);

      g_ptr_array_add (response->tool_calls,
                       sk_llm_tool_call_new (id, call->name, call->arguments->str));
    }

  response->finish_reason = g_strdup (self->finish_reason);
  response->usage = self->usage;

  return response;
}
