/* sk-llm-client.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One client speaks one of three dialects (OpenAI chat completions, Ollama's
 * native chat, Anthropic Messages) and always streams, so that a long
 * generation never looks like a dead server. libsoup's own timeout would
 * also end a reply that is still arriving, so it is turned off and an idle
 * watchdog, reset by every read, takes its place. Failed requests are sent
 * again under the policy of the OpenAI and Anthropic libraries, but never
 * once some of the reply has reached the caller.
 */

#define G_LOG_DOMAIN "sk-llm-client"

#include "config.h"

#include <math.h>
#include <string.h>

#include <libsoup/soup.h>

#include "sk-llm-client.h"
#include "sk-llm-stream.h"

#define DEFAULT_IDLE_TIMEOUT 300.0
#define DEFAULT_MAX_RETRIES  2
#define ANTHROPIC_DEFAULT_MAX_TOKENS 8192
#define ANTHROPIC_VERSION "2023-06-01"
#define OLLAMA_CONTEXT_SIZE 16384
#define READ_SIZE (64 * 1024)
/* An error body or a model list is small; more than this is not one. */
#define MAX_BODY_SIZE (8 * 1024 * 1024)
/* Retry-After values above this mean "come back much later": give up. */
#define MAX_RETRY_DELAY_SECONDS 60.0

struct _SkLlmClient
{
  GObject        parent_instance;

  SkLlmProvider  provider;
  char          *base_url;
  char          *model;
  char          *api_key;
  double         idle_timeout;
  guint          max_retries;
  guint          max_tokens;

  SoupSession   *session;
};

G_DEFINE_FINAL_TYPE (SkLlmClient, sk_llm_client, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PROVIDER,
  PROP_BASE_URL,
  PROP_MODEL,
  PROP_API_KEY,
  PROP_IDLE_TIMEOUT,
  PROP_MAX_RETRIES,
  PROP_MAX_TOKENS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* One HTTP exchange: the request, the watchdog and the body read so far. */
typedef struct
{
  SkLlmClient   *client;
  SoupMessage   *message;
  GCancellable  *cancellable;
  gulong         cancelled_id;
  GCancellable  *user_cancellable;
  GSource       *idle_source;
  gboolean       timed_out;
  GInputStream  *input;
  GByteArray    *body;
} Exchange;

typedef struct
{
  Exchange       exchange;
  GBytes        *request_body;
  char          *url;
  SkLlmEventFunc event_func;
  gpointer       event_data;
  guint          attempt;
  SkLlmStream   *stream;
  gboolean       complete_body;
  GSource       *wait_source;
  GSource       *wait_cancel_source;
} ChatData;

typedef struct
{
  Exchange       exchange;
  GPtrArray     *models;
  char          *after_id;
  guint          pages;
} ListData;

static char *
strip_url (const char *url)
{
  char *copy = g_strstrip (g_strdup (url != NULL ? url : ""));
  gsize length = strlen (copy);

  while (length > 0 && copy[length - 1] == '/')
    copy[--length] = '\0';

  return copy;
}

static char *
endpoint (SkLlmClient *self,
          const char  *what)
{
  g_autofree char *base = strip_url (self->base_url);

  switch (self->provider)
    {
    case SK_LLM_PROVIDER_OLLAMA:
      /* The native API sits beside /v1, which people often paste. */
      if (g_str_has_suffix (base, "/v1"))
        base[strlen (base) - 3] = '\0';
      return g_strconcat (base, strcmp (what, "chat") == 0 ? "/api/chat" : "/api/tags", NULL);

    case SK_LLM_PROVIDER_ANTHROPIC:
      return g_strconcat (base, g_str_has_suffix (base, "/v1") ? "" : "/v1",
                          strcmp (what, "chat") == 0 ? "/messages" : "/models", NULL);

    case SK_LLM_PROVIDER_OPENAI:
    default:
      return g_strconcat (base, strcmp (what, "chat") == 0 ? "/chat/completions" : "/models", NULL);
    }
}

static void
add_auth_headers (SkLlmClient *self,
                  SoupMessage *message)
{
  SoupMessageHeaders *headers = soup_message_get_request_headers (message);

  if (self->provider == SK_LLM_PROVIDER_ANTHROPIC)
    {
      soup_message_headers_replace (headers, "anthropic-version", ANTHROPIC_VERSION);
      if (self->api_key != NULL && *self->api_key != '\0')
        soup_message_headers_replace (headers, "x-api-key", self->api_key);
    }
  else if (self->api_key != NULL && *self->api_key != '\0')
    {
      g_autofree char *value = g_strconcat ("Bearer ", self->api_key, NULL);

      soup_message_headers_replace (headers, "Authorization", value);
    }

  soup_message_headers_replace (headers, "User-Agent", PACKAGE_NAME "/" PACKAGE_VERSION);
}

/* Exchanges. */

static void
exchange_stop_watchdog (Exchange *exchange)
{
  if (exchange->idle_source != NULL)
    {
      g_source_destroy (exchange->idle_source);
      g_clear_pointer (&exchange->idle_source, g_source_unref);
    }
}

static void
exchange_clear (Exchange *exchange)
{
  exchange_stop_watchdog (exchange);
  if (exchange->user_cancellable != NULL && exchange->cancelled_id != 0)
    g_cancellable_disconnect (exchange->user_cancellable, exchange->cancelled_id);
  exchange->cancelled_id = 0;
  g_clear_object (&exchange->user_cancellable);
  g_clear_object (&exchange->cancellable);
  g_clear_object (&exchange->message);
  g_clear_object (&exchange->input);
  g_clear_pointer (&exchange->body, g_byte_array_unref);
}

static gboolean
exchange_idle_cb (gpointer user_data)
{
  Exchange *exchange = user_data;

  exchange->timed_out = TRUE;
  g_cancellable_cancel (exchange->cancellable);
  g_clear_pointer (&exchange->idle_source, g_source_unref);

  return G_SOURCE_REMOVE;
}

static void
exchange_touch (Exchange *exchange)
{
  double seconds = exchange->client->idle_timeout;

  if (seconds <= 0)
    return;

  if (exchange->idle_source == NULL)
    {
      exchange->idle_source = g_timeout_source_new ((guint) (seconds * 1000));
      g_source_set_callback (exchange->idle_source, exchange_idle_cb, exchange, NULL);
      g_source_attach (exchange->idle_source, g_main_context_get_thread_default ());
    }
  else
    g_source_set_ready_time (exchange->idle_source,
                             g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC));
}

static void
user_cancelled_cb (GCancellable *user_cancellable,
                   GCancellable *cancellable)
{
  g_cancellable_cancel (cancellable);
}

static void
exchange_start (Exchange     *exchange,
                SkLlmClient  *client,
                SoupMessage  *message,
                GCancellable *user_cancellable)
{
  exchange_clear (exchange);

  exchange->client = client;
  exchange->message = message;
  exchange->timed_out = FALSE;
  exchange->cancellable = g_cancellable_new ();
  exchange->body = g_byte_array_new ();
  if (user_cancellable != NULL)
    {
      exchange->user_cancellable = g_object_ref (user_cancellable);
      exchange->cancelled_id = g_cancellable_connect (user_cancellable,
                                                      G_CALLBACK (user_cancelled_cb),
                                                      g_object_ref (exchange->cancellable),
                                                      g_object_unref);
    }

  exchange_touch (exchange);
}

/* Turns a transport failure into the error the user sees. */
static GError *
exchange_transport_error (Exchange *exchange,
                          GError   *error,
                          const char *url)
{
  if (exchange->timed_out)
    return g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_TIMEOUT,
                        "The server at %s sent nothing for %.0f seconds, so the request was "
                        "given up. A model that is still loading or a very slow machine can "
                        "cause this.",
                        url, exchange->client->idle_timeout);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return g_error_copy (error);

  return g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_CONNECTION,
                      "Could not reach the language model server at %s: %s. Check that the "
                      "server is running and that its address in Preferences is right.",
                      url, error->message);
}

/* HTTP errors. */

static char *
body_message (GBytes *body)
{
  gsize size = 0;
  const char *data = body != NULL ? g_bytes_get_data (body, &size) : NULL;
  g_autofree char *valid = NULL;

  if (data == NULL || size == 0)
    return NULL;

  valid = g_utf8_make_valid (data, MIN (size, 300));
  return g_strstrip (g_steal_pointer (&valid));
}

static gboolean
contains_any (const char         *haystack,
              const char * const *needles)
{
  g_autofree char *lower = NULL;

  if (haystack == NULL)
    return FALSE;

  lower = g_ascii_strdown (haystack, -1);
  for (guint i = 0; needles[i] != NULL; i++)
    if (strstr (lower, needles[i]) != NULL)
      return TRUE;

  return FALSE;
}

static double
parse_retry_after (SoupMessageHeaders *headers,
                   gboolean           *present)
{
  const char *value;
  char *end = NULL;
  double seconds;

  *present = FALSE;

  value = soup_message_headers_get_one (headers, "retry-after-ms");
  if (value != NULL)
    {
      seconds = g_ascii_strtod (value, &end) / 1000.0;
      if (end != value && seconds >= 0)
        {
          *present = TRUE;
          return seconds;
        }
    }

  value = soup_message_headers_get_one (headers, "Retry-After");
  if (value == NULL)
    return -1;

  seconds = g_ascii_strtod (value, &end);
  if (end != value && *end == '\0')
    {
      *present = TRUE;
      return seconds;
    }
  else
    {
      g_autoptr(GDateTime) when = soup_date_time_new_from_http_string (value);
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

      if (when == NULL)
        return -1;

      *present = TRUE;
      return MAX (0.0, g_date_time_difference (when, now) / (double) G_USEC_PER_SEC);
    }
}

/* The OpenAI library's backoff: 0.5 s doubling up to 8 s, less up to a
 * quarter, so that clients that failed together do not retry together. */
static double
backoff_delay (guint attempt)
{
  return MIN (0.5 * (1 << MIN (attempt, 4)), 8.0) * (1.0 - 0.25 * g_random_double ());
}

/**
 * map_http_error:
 * @retry_delay: (out): seconds to wait before retrying, or a negative value
 *   when the request must not be sent again
 *
 * Returns: (transfer full): the error to report for a reply with a failing
 *   status
 */
static GError *
map_http_error (SkLlmClient *self,
                SoupMessage *message,
                GBytes      *body,
                guint        attempt,
                double      *retry_delay)
{
  static const char * const context_words[] = {
    "context_length", "context length", "context size", "context window",
    "exceed_context", "too many tokens", "prompt is too long", "maximum context", NULL };
  static const char * const tools_words[] = {
    "does not support tools", "tools are not supported", "tool use is not supported",
    "requires --jinja", "--jinja", "tools param", NULL };
  static const char * const quota_words[] = {
    "insufficient_quota", "quota", "billing", "credit", "spend", NULL };
  static const char * const loading_words[] = { "loading model", "loading", NULL };
  SoupMessageHeaders *headers = soup_message_get_response_headers (message);
  guint status = soup_message_get_status (message);
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *server_message = NULL;
  g_autofree char *type = NULL;
  g_autofree char *code = NULL;
  g_autofree char *all = NULL;
  const char *should_retry;
  gboolean has_retry_after;
  double retry_after;
  gboolean retryable;
  GError *error;

  if (body != NULL && g_bytes_get_size (body) > 0)
    {
      g_autofree char *text = g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body));

      node = json_from_string (text, NULL);
    }
  if (node == NULL || !sk_llm_extract_error (node, &server_message, &type, &code))
    {
      g_clear_pointer (&server_message, g_free);
      server_message = body_message (body);
    }
  if (server_message == NULL || *server_message == '\0')
    {
      g_free (server_message);
      server_message = g_strdup_printf ("%u %s", status, soup_message_get_reason_phrase (message));
    }

  all = g_strjoin (" ", server_message, type != NULL ? type : "", code != NULL ? code : "", NULL);
  retry_after = parse_retry_after (headers, &has_retry_after);

  if (status == 401 || status == 403)
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_AUTH,
                         "The server refused the API key (%s). Check the key in Preferences, "
                         "or in the SKELE_LLM_API_KEY variable.", server_message);
  else if (status == 402 || (status == 429 && contains_any (all, quota_words)) ||
           (status == 429 && self->provider == SK_LLM_PROVIDER_ANTHROPIC && !has_retry_after))
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_QUOTA,
                         "The account has used up its quota or spending limit (%s). Check the "
                         "plan and billing with the provider.", server_message);
  else if (status == 429)
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_RATE_LIMITED,
                         "The server is limiting how fast requests may come (%s).", server_message);
  else if (status == 404)
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_MODEL_NOT_FOUND,
                         "The server does not know the model “%s” or the address %s (%s). "
                         "Check the model name and the server address in Preferences; "
                         "OpenAI-compatible servers usually end in /v1.",
                         self->model, g_uri_get_path (soup_message_get_uri (message)),
                         server_message);
  else if ((status == 400 || status == 413) && contains_any (all, context_words))
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_CONTEXT_TOO_LONG,
                         "The request is longer than the model can read (%s). Choose a model "
                         "with a larger context, or give the server a larger context size.",
                         server_message);
  else if (status == 400 && contains_any (all, tools_words))
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_TOOLS_UNSUPPORTED,
                         "The model or server does not take tool definitions (%s).", server_message);
  else if (status == 503 && contains_any (all, loading_words))
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_LOADING,
                         "The server is still loading the model (%s).", server_message);
  else if (status >= 500)
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_SERVER,
                         "The language model server failed (%u %s: %s).", status,
                         soup_message_get_reason_phrase (message), server_message);
  else
    error = g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_BAD_REQUEST,
                         "The server rejected the request (%u: %s).", status, server_message);

  retryable = (status == 408 || status == 409 || status == 429 || status >= 500) &&
              !g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_QUOTA);

  should_retry = soup_message_headers_get_one (headers, "x-should-retry");
  if (g_strcmp0 (should_retry, "true") == 0)
    retryable = TRUE;
  else if (g_strcmp0 (should_retry, "false") == 0)
    retryable = FALSE;

  *retry_delay = -1;
  if (retryable && attempt < self->max_retries)
    {
      if (has_retry_after && retry_after > MAX_RETRY_DELAY_SECONDS)
        {
          g_prefix_error (&error, "The server asks to wait %.0f minutes before trying again. ",
                          ceil (retry_after / 60.0));
          return error;
        }
      if (has_retry_after)
        *retry_delay = retry_after;
      else
        *retry_delay = backoff_delay (attempt);
    }

  return error;
}

/* Request bodies. */

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
build_openai_body (SkLlmClient *self,
                   JsonBuilder *builder,
                   const char  *system,
                   GPtrArray   *messages,
                   GPtrArray   *tools)
{
  gboolean native = self->provider == SK_LLM_PROVIDER_OLLAMA;

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
      if (self->max_tokens > 0)
        {
          json_builder_set_member_name (builder, "num_predict");
          json_builder_add_int_value (builder, self->max_tokens);
        }
      json_builder_end_object (builder);
      return;
    }

  json_builder_set_member_name (builder, "stream_options");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "include_usage");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_end_object (builder);

  if (self->max_tokens > 0)
    {
      /* OpenAI's newer models refuse max_tokens; local servers only know it. */
      json_builder_set_member_name (builder, strstr (self->base_url, "api.openai.com") != NULL
                                             ? "max_completion_tokens" : "max_tokens");
      json_builder_add_int_value (builder, self->max_tokens);
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
build_anthropic_body (SkLlmClient *self,
                      JsonBuilder *builder,
                      const char  *system,
                      GPtrArray   *messages,
                      GPtrArray   *tools)
{
  const char *open_role = NULL;

  json_builder_set_member_name (builder, "max_tokens");
  json_builder_add_int_value (builder, self->max_tokens > 0 ? self->max_tokens : ANTHROPIC_DEFAULT_MAX_TOKENS);

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

static GBytes *
build_chat_body (SkLlmClient *self,
                 const char  *system,
                 GPtrArray   *messages,
                 GPtrArray   *tools)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  char *text;
  gsize length;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, self->model);

  if (self->provider == SK_LLM_PROVIDER_ANTHROPIC)
    build_anthropic_body (self, builder, system, messages, tools);
  else
    build_openai_body (self, builder, system, messages, tools);

  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, &length);

  return g_bytes_new_take (text, length);
}

/* Reading a whole (small) body. */

static void read_body_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data);

typedef void (*BodyReadyFunc) (GTask  *task,
                               GBytes *body,
                               GError *error);

static void
read_body (GTask        *task,
           Exchange     *exchange,
           BodyReadyFunc ready)
{
  g_object_set_data (G_OBJECT (task), "sk-body-ready", ready);
  g_input_stream_read_bytes_async (exchange->input, READ_SIZE, G_PRIORITY_DEFAULT,
                                   exchange->cancellable, read_body_cb, task);
}

static void
read_body_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  Exchange *exchange = g_task_get_task_data (task);
  BodyReadyFunc ready = g_object_get_data (G_OBJECT (task), "sk-body-ready");
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (bytes == NULL)
    {
      ready (task, NULL, error);
      return;
    }

  exchange_touch (exchange);

  if (g_bytes_get_size (bytes) == 0 || exchange->body->len + g_bytes_get_size (bytes) > MAX_BODY_SIZE)
    {
      g_autoptr(GBytes) body = NULL;

      if (g_bytes_get_size (bytes) > 0)
        g_byte_array_append (exchange->body, g_bytes_get_data (bytes, NULL),
                             MAX_BODY_SIZE - exchange->body->len);
      body = g_bytes_new (exchange->body->data, exchange->body->len);
      ready (task, body, NULL);
      return;
    }

  g_byte_array_append (exchange->body, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  g_input_stream_read_bytes_async (exchange->input, READ_SIZE, G_PRIORITY_DEFAULT,
                                   exchange->cancellable, read_body_cb, task);
}

/* Chat. */

static void chat_start_attempt (GTask *task);

static void
chat_data_free (ChatData *data)
{
  exchange_clear (&data->exchange);
  g_clear_pointer (&data->request_body, g_bytes_unref);
  g_free (data->url);
  g_clear_pointer (&data->stream, sk_llm_stream_free);
  if (data->wait_source != NULL)
    g_source_destroy (data->wait_source);
  g_clear_pointer (&data->wait_source, g_source_unref);
  if (data->wait_cancel_source != NULL)
    g_source_destroy (data->wait_cancel_source);
  g_clear_pointer (&data->wait_cancel_source, g_source_unref);
  g_free (data);
}

static void
chat_return_error (GTask  *task,
                   GError *error)
{
  ChatData *data = g_task_get_task_data (task);

  exchange_stop_watchdog (&data->exchange);

  if (data->stream != NULL)
    g_object_set_data_full (G_OBJECT (task), "sk-partial",
                            sk_llm_stream_steal_response (data->stream),
                            (GDestroyNotify) sk_llm_response_free);

  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
chat_stop_waiting (ChatData *data)
{
  if (data->wait_source != NULL)
    g_source_destroy (data->wait_source);
  g_clear_pointer (&data->wait_source, g_source_unref);
  if (data->wait_cancel_source != NULL)
    g_source_destroy (data->wait_cancel_source);
  g_clear_pointer (&data->wait_cancel_source, g_source_unref);
}

static gboolean
chat_wait_done_cb (gpointer user_data)
{
  GTask *task = user_data;
  ChatData *data = g_task_get_task_data (task);

  chat_stop_waiting (data);
  data->attempt++;
  chat_start_attempt (task);

  return G_SOURCE_REMOVE;
}

static gboolean
chat_wait_cancelled_cb (GCancellable *cancellable,
                        gpointer      user_data)
{
  GTask *task = user_data;
  ChatData *data = g_task_get_task_data (task);

  chat_stop_waiting (data);
  chat_return_error (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                                "The request was cancelled"));

  return G_SOURCE_REMOVE;
}

/* Either sends the request again after @delay seconds, or reports @error. */
static void
chat_retry_or_fail (GTask  *task,
                    GError *error,
                    double  delay)
{
  ChatData *data = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  exchange_stop_watchdog (&data->exchange);

  if (delay < 0 || (data->stream != NULL && sk_llm_stream_has_output (data->stream)))
    {
      if (data->attempt > 0 && error->domain == SK_LLM_ERROR)
        g_prefix_error (&error, "Tried %u times. ", data->attempt + 1);
      chat_return_error (task, error);
      return;
    }

  if (data->event_func != NULL)
    {
      g_autofree char *notice = g_strdup_printf ("%s Trying again in %.1f s.", error->message, delay);

      data->event_func (SK_LLM_EVENT_RETRY, notice, data->event_data);
    }
  g_error_free (error);

  data->wait_source = g_timeout_source_new ((guint) (delay * 1000));
  g_source_set_callback (data->wait_source, chat_wait_done_cb, task, NULL);
  g_source_attach (data->wait_source, g_main_context_get_thread_default ());

  if (cancellable != NULL)
    {
      data->wait_cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (data->wait_cancel_source, G_SOURCE_FUNC (chat_wait_cancelled_cb), task, NULL);
      g_source_attach (data->wait_cancel_source, g_main_context_get_thread_default ());
    }
}

static double
transport_retry_delay (SkLlmClient *client,
                       ChatData    *data,
                       GError      *error)
{
  if (error->domain != SK_LLM_ERROR || data->attempt >= client->max_retries)
    return -1;

  if (error->code != SK_LLM_ERROR_CONNECTION && error->code != SK_LLM_ERROR_TIMEOUT &&
      error->code != SK_LLM_ERROR_INCOMPLETE)
    return -1;

  return backoff_delay (data->attempt);
}

static void
chat_succeed (GTask *task)
{
  ChatData *data = g_task_get_task_data (task);

  exchange_stop_watchdog (&data->exchange);
  g_task_return_pointer (task, sk_llm_stream_steal_response (data->stream),
                         (GDestroyNotify) sk_llm_response_free);
  g_object_unref (task);
}

static void
chat_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  ChatData *data = g_task_get_task_data (task);
  SkLlmClient *self = g_task_get_source_object (task);
  g_autoptr(GBytes) bytes = NULL;
  GError *error = NULL;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (bytes == NULL)
    {
      GError *mapped = exchange_transport_error (&data->exchange, error, data->url);

      g_error_free (error);
      chat_retry_or_fail (task, mapped, transport_retry_delay (self, data, mapped));
      return;
    }

  exchange_touch (&data->exchange);

  if (g_bytes_get_size (bytes) == 0)
    {
      if (!sk_llm_stream_finish (data->stream, &error))
        chat_retry_or_fail (task, error, transport_retry_delay (self, data, error));
      else
        chat_succeed (task);
      return;
    }

  if (!sk_llm_stream_feed (data->stream, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &error))
    {
      g_cancellable_cancel (data->exchange.cancellable);
      chat_return_error (task, error);
      return;
    }

  g_input_stream_read_bytes_async (data->exchange.input, READ_SIZE, G_PRIORITY_DEFAULT,
                                   data->exchange.cancellable, chat_read_cb, task);
}

static void
chat_error_body_ready (GTask  *task,
                       GBytes *body,
                       GError *error)
{
  ChatData *data = g_task_get_task_data (task);
  SkLlmClient *self = g_task_get_source_object (task);
  double delay = -1;
  GError *mapped;

  if (error != NULL && data->exchange.timed_out == FALSE &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      chat_return_error (task, g_error_copy (error));
      return;
    }

  mapped = map_http_error (self, data->exchange.message, body, data->attempt, &delay);
  chat_retry_or_fail (task, mapped, delay);
}

static void
chat_complete_body_ready (GTask  *task,
                          GBytes *body,
                          GError *error)
{
  ChatData *data = g_task_get_task_data (task);
  SkLlmClient *self = g_task_get_source_object (task);
  GError *local_error = NULL;

  if (error != NULL)
    {
      GError *mapped = exchange_transport_error (&data->exchange, error, data->url);

      chat_retry_or_fail (task, mapped, transport_retry_delay (self, data, mapped));
      return;
    }

  if (!sk_llm_stream_parse_complete (data->stream, g_bytes_get_data (body, NULL),
                                     g_bytes_get_size (body), &local_error))
    chat_return_error (task, local_error);
  else
    chat_succeed (task);
}

static void
chat_sent_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  ChatData *data = g_task_get_task_data (task);
  SkLlmClient *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  const char *content_type;
  guint status;

  data->exchange.input = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (data->exchange.input == NULL)
    {
      GError *mapped = exchange_transport_error (&data->exchange, error, data->url);

      chat_retry_or_fail (task, mapped, transport_retry_delay (self, data, mapped));
      return;
    }

  exchange_touch (&data->exchange);
  status = soup_message_get_status (data->exchange.message);

  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      read_body (task, &data->exchange, chat_error_body_ready);
      return;
    }

  g_clear_pointer (&data->stream, sk_llm_stream_free);
  data->stream = sk_llm_stream_new (self->provider, data->event_func, data->event_data);

  /* A server that ignores "stream" answers with one JSON document. */
  content_type = soup_message_headers_get_content_type (soup_message_get_response_headers (data->exchange.message), NULL);
  if (g_strcmp0 (content_type, "application/json") == 0)
    {
      read_body (task, &data->exchange, chat_complete_body_ready);
      return;
    }

  g_input_stream_read_bytes_async (data->exchange.input, READ_SIZE, G_PRIORITY_DEFAULT,
                                   data->exchange.cancellable, chat_read_cb, task);
}

static void
chat_start_attempt (GTask *task)
{
  SkLlmClient *self = g_task_get_source_object (task);
  ChatData *data = g_task_get_task_data (task);
  SoupMessage *message;

  message = soup_message_new (SOUP_METHOD_POST, data->url);
  add_auth_headers (self, message);
  soup_message_headers_replace (soup_message_get_request_headers (message), "Accept",
                                self->provider == SK_LLM_PROVIDER_OLLAMA
                                ? "application/x-ndjson" : "text/event-stream");
  soup_message_set_request_body_from_bytes (message, "application/json", data->request_body);

  g_clear_pointer (&data->stream, sk_llm_stream_free);
  exchange_start (&data->exchange, self, message, g_task_get_cancellable (task));

  soup_session_send_async (self->session, message, G_PRIORITY_DEFAULT,
                           data->exchange.cancellable, chat_sent_cb, task);
}

/**
 * sk_llm_client_chat_async:
 * @system: (nullable): the instructions
 * @messages: (element-type SkLlmMessage): the conversation so far
 * @tools: (element-type SkLlmTool) (nullable): tools the model may call
 * @event_func: (scope notified) (nullable): called on the calling thread's
 *   main context as pieces of the reply arrive, and before a retry
 *
 * Sends one chat request and streams the reply.
 */
void
sk_llm_client_chat_async (SkLlmClient         *self,
                          const char          *system,
                          GPtrArray           *messages,
                          GPtrArray           *tools,
                          SkLlmEventFunc       event_func,
                          gpointer             event_data,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GUri) uri = NULL;
  GTask *task;
  ChatData *data;

  g_return_if_fail (SK_IS_LLM_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_llm_client_chat_async);

  data = g_new0 (ChatData, 1);
  data->url = endpoint (self, "chat");
  data->event_func = event_func;
  data->event_data = event_data;
  g_task_set_task_data (task, data, (GDestroyNotify) chat_data_free);

  if (self->model == NULL || *self->model == '\0')
    {
      chat_return_error (task, g_error_new_literal (SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED,
                                                    "No model is chosen. Choose one in Preferences, "
                                                    "or set SKELE_LLM_MODEL."));
      return;
    }

  uri = g_uri_parse (data->url, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL || (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0 &&
                      g_strcmp0 (g_uri_get_scheme (uri), "https") != 0))
    {
      chat_return_error (task, g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED,
                                            "“%s” is not a server address. It should look like "
                                            "http://127.0.0.1:11434 or https://api.openai.com/v1.",
                                            self->base_url));
      return;
    }

  data->request_body = build_chat_body (self, system, messages, tools);
  chat_start_attempt (task);
}

/**
 * sk_llm_client_chat_finish:
 * @partial: (out) (optional) (transfer full) (nullable): on failure, what
 *   had arrived of the reply
 *
 * Returns: (transfer full): the whole reply, or %NULL with an %SK_LLM_ERROR
 *   or %G_IO_ERROR_CANCELLED
 */
SkLlmResponse *
sk_llm_client_chat_finish (SkLlmClient    *self,
                           GAsyncResult   *result,
                           SkLlmResponse **partial,
                           GError        **error)
{
  SkLlmResponse *response;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  response = g_task_propagate_pointer (G_TASK (result), error);
  if (partial != NULL)
    *partial = response == NULL ? g_object_steal_data (G_OBJECT (result), "sk-partial") : NULL;

  return response;
}

/* Listing models. */

static void list_start_page (GTask *task);

static void
list_data_free (ListData *data)
{
  exchange_clear (&data->exchange);
  g_clear_pointer (&data->models, g_ptr_array_unref);
  g_free (data->after_id);
  g_free (data);
}

static void
list_fail (GTask  *task,
           GError *error)
{
  ListData *data = g_task_get_task_data (task);

  exchange_stop_watchdog (&data->exchange);
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
add_names (GPtrArray  *models,
           JsonArray  *array,
           const char *member)
{
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (item) ||
          !json_object_has_member (json_node_get_object (item), member))
        continue;

      name = json_object_get_string_member (json_node_get_object (item), member);
      if (name != NULL && *name != '\0' &&
          !g_ptr_array_find_with_equal_func (models, name, g_str_equal, NULL))
        g_ptr_array_add (models, g_strdup (name));
    }
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

static void
list_body_ready (GTask  *task,
                 GBytes *body,
                 GError *error)
{
  ListData *data = g_task_get_task_data (task);
  SkLlmClient *self = g_task_get_source_object (task);
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  JsonObject *object;
  gboolean more = FALSE;

  if (error != NULL)
    {
      g_autofree char *url = g_uri_to_string (soup_message_get_uri (data->exchange.message));

      list_fail (task, exchange_transport_error (&data->exchange, error, url));
      return;
    }

  if (!SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (data->exchange.message)))
    {
      double delay;

      list_fail (task, map_http_error (self, data->exchange.message, body, G_MAXUINT, &delay));
      return;
    }

  text = g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body));
  node = json_from_string (text, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      list_fail (task, g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                                    "The server's list of models is not JSON: %.200s", text));
      return;
    }

  object = json_node_get_object (node);
  if (self->provider == SK_LLM_PROVIDER_OLLAMA)
    add_names (data->models,
               json_object_has_member (object, "models") ? json_object_get_array_member (object, "models") : NULL,
               "name");
  else
    add_names (data->models,
               json_object_has_member (object, "data") ? json_object_get_array_member (object, "data") : NULL,
               "id");

  if (self->provider == SK_LLM_PROVIDER_ANTHROPIC &&
      json_object_has_member (object, "has_more") &&
      json_object_get_boolean_member (object, "has_more") &&
      json_object_has_member (object, "last_id"))
    {
      const char *last_id = json_object_get_string_member (object, "last_id");

      /* A server that repeats a page would loop forever. */
      more = last_id != NULL && g_strcmp0 (last_id, data->after_id) != 0 && data->pages < 100;
      if (more)
        {
          g_free (data->after_id);
          data->after_id = g_strdup (last_id);
        }
    }

  if (more)
    {
      list_start_page (task);
      return;
    }

  exchange_stop_watchdog (&data->exchange);
  g_ptr_array_sort (data->models, compare_names);
  g_ptr_array_add (data->models, NULL);
  g_task_return_pointer (task, g_ptr_array_steal (data->models, NULL), (GDestroyNotify) g_strfreev);
  g_object_unref (task);
}

static void
list_sent_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  ListData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  data->exchange.input = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (data->exchange.input == NULL)
    {
      g_autofree char *url = g_uri_to_string (soup_message_get_uri (data->exchange.message));

      list_fail (task, exchange_transport_error (&data->exchange, error, url));
      return;
    }

  read_body (task, &data->exchange, list_body_ready);
}

static void
list_start_page (GTask *task)
{
  SkLlmClient *self = g_task_get_source_object (task);
  ListData *data = g_task_get_task_data (task);
  g_autofree char *url = endpoint (self, "models");
  SoupMessage *message;

  if (self->provider == SK_LLM_PROVIDER_ANTHROPIC)
    {
      g_autofree char *base = g_steal_pointer (&url);

      if (data->after_id != NULL)
        {
          g_autofree char *escaped = g_uri_escape_string (data->after_id, NULL, TRUE);

          url = g_strdup_printf ("%s?limit=1000&after_id=%s", base, escaped);
        }
      else
        url = g_strdup_printf ("%s?limit=1000", base);
    }

  message = soup_message_new (SOUP_METHOD_GET, url);
  if (message == NULL)
    {
      list_fail (task, g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED,
                                    "“%s” is not a server address.", self->base_url));
      return;
    }

  add_auth_headers (self, message);
  data->pages++;
  exchange_start (&data->exchange, self, message, g_task_get_cancellable (task));
  soup_session_send_async (self->session, message, G_PRIORITY_DEFAULT,
                           data->exchange.cancellable, list_sent_cb, task);
}

/**
 * sk_llm_client_list_models_async:
 *
 * Asks the server which models it offers (all pages of them).
 */
void
sk_llm_client_list_models_async (SkLlmClient         *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task;
  ListData *data;

  g_return_if_fail (SK_IS_LLM_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_llm_client_list_models_async);

  data = g_new0 (ListData, 1);
  data->models = g_ptr_array_new_with_free_func (g_free);
  g_task_set_task_data (task, data, (GDestroyNotify) list_data_free);

  list_start_page (task);
}

/**
 * sk_llm_client_list_models_finish:
 *
 * Returns: (transfer full): the model names, sorted
 */
char **
sk_llm_client_list_models_finish (SkLlmClient   *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The object. */

static void
sk_llm_client_finalize (GObject *object)
{
  SkLlmClient *self = SK_LLM_CLIENT (object);

  g_clear_object (&self->session);
  g_free (self->base_url);
  g_free (self->model);
  g_free (self->api_key);

  G_OBJECT_CLASS (sk_llm_client_parent_class)->finalize (object);
}

static void
sk_llm_client_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  SkLlmClient *self = SK_LLM_CLIENT (object);

  switch (prop_id)
    {
    case PROP_PROVIDER:
      g_value_set_int (value, self->provider);
      break;
    case PROP_BASE_URL:
      g_value_set_string (value, self->base_url);
      break;
    case PROP_MODEL:
      g_value_set_string (value, self->model);
      break;
    case PROP_IDLE_TIMEOUT:
      g_value_set_double (value, self->idle_timeout);
      break;
    case PROP_MAX_RETRIES:
      g_value_set_uint (value, self->max_retries);
      break;
    case PROP_MAX_TOKENS:
      g_value_set_uint (value, self->max_tokens);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_llm_client_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  SkLlmClient *self = SK_LLM_CLIENT (object);

  switch (prop_id)
    {
    case PROP_PROVIDER:
      self->provider = g_value_get_int (value);
      break;
    case PROP_BASE_URL:
      g_free (self->base_url);
      self->base_url = g_value_dup_string (value);
      if (self->base_url == NULL || *self->base_url == '\0')
        {
          g_free (self->base_url);
          self->base_url = g_strdup (sk_llm_provider_default_base_url (self->provider));
        }
      break;
    case PROP_MODEL:
      g_free (self->model);
      self->model = g_strdup (g_value_get_string (value) != NULL ? g_value_get_string (value) : "");
      break;
    case PROP_API_KEY:
      g_free (self->api_key);
      self->api_key = g_value_dup_string (value);
      break;
    case PROP_IDLE_TIMEOUT:
      sk_llm_client_set_idle_timeout (self, g_value_get_double (value));
      break;
    case PROP_MAX_RETRIES:
      sk_llm_client_set_max_retries (self, g_value_get_uint (value));
      break;
    case PROP_MAX_TOKENS:
      sk_llm_client_set_max_tokens (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_llm_client_class_init (SkLlmClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sk_llm_client_finalize;
  object_class->get_property = sk_llm_client_get_property;
  object_class->set_property = sk_llm_client_set_property;

  /* The provider is set before the base URL, whose default depends on it. */
  properties[PROP_PROVIDER] =
    g_param_spec_int ("provider", NULL, NULL,
                      SK_LLM_PROVIDER_OPENAI, SK_LLM_PROVIDER_ANTHROPIC, SK_LLM_PROVIDER_OPENAI,
                      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BASE_URL] =
    g_param_spec_string ("base-url", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODEL] =
    g_param_spec_string ("model", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_API_KEY] =
    g_param_spec_string ("api-key", NULL, NULL, NULL,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_IDLE_TIMEOUT] =
    g_param_spec_double ("idle-timeout", NULL, NULL, 0, G_MAXDOUBLE, DEFAULT_IDLE_TIMEOUT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MAX_RETRIES] =
    g_param_spec_uint ("max-retries", NULL, NULL, 0, 10, DEFAULT_MAX_RETRIES,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MAX_TOKENS] =
    g_param_spec_uint ("max-tokens", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sk_llm_client_init (SkLlmClient *self)
{
  self->idle_timeout = DEFAULT_IDLE_TIMEOUT;
  self->max_retries = DEFAULT_MAX_RETRIES;

  /* libsoup's timeout would end a reply that is still streaming; the idle
   * watchdog replaces it.
   */
  self->session = g_object_new (SOUP_TYPE_SESSION,
                                "timeout", 0,
                                "user-agent", PACKAGE_NAME "/" PACKAGE_VERSION,
                                NULL);
}

/**
 * sk_llm_client_new:
 * @base_url: (nullable): the server's address; %NULL or empty for the
 *   provider's usual one
 * @api_key: (nullable): the key, never written anywhere by the client
 *
 * Returns: (transfer full): a client
 */
SkLlmClient *
sk_llm_client_new (SkLlmProvider  provider,
                   const char    *base_url,
                   const char    *model,
                   const char    *api_key)
{
  return g_object_new (SK_TYPE_LLM_CLIENT,
                       "provider", provider,
                       "base-url", base_url,
                       "model", model,
                       "api-key", api_key,
                       NULL);
}

SkLlmProvider
sk_llm_client_get_provider (SkLlmClient *self)
{
  g_return_val_if_fail (SK_IS_LLM_CLIENT (self), SK_LLM_PROVIDER_OPENAI);

  return self->provider;
}

const char *
sk_llm_client_get_base_url (SkLlmClient *self)
{
  g_return_val_if_fail (SK_IS_LLM_CLIENT (self), NULL);

  return self->base_url;
}

const char *
sk_llm_client_get_model (SkLlmClient *self)
{
  g_return_val_if_fail (SK_IS_LLM_CLIENT (self), NULL);

  return self->model;
}

double
sk_llm_client_get_idle_timeout (SkLlmClient *self)
{
  g_return_val_if_fail (SK_IS_LLM_CLIENT (self), 0);

  return self->idle_timeout;
}

/**
 * sk_llm_client_set_idle_timeout:
 * @seconds: how long the server may send nothing; 0 waits forever
 */
void
sk_llm_client_set_idle_timeout (SkLlmClient *self,
                                double       seconds)
{
  g_return_if_fail (SK_IS_LLM_CLIENT (self));

  seconds = MAX (seconds, 0);
  if (self->idle_timeout != seconds)
    {
      self->idle_timeout = seconds;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IDLE_TIMEOUT]);
    }
}

guint
sk_llm_client_get_max_retries (SkLlmClient *self)
{
  g_return_val_if_fail (SK_IS_LLM_CLIENT (self), 0);

  return self->max_retries;
}

void
sk_llm_client_set_max_retries (SkLlmClient *self,
                               guint        max_retries)
{
  g_return_if_fail (SK_IS_LLM_CLIENT (self));

  if (self->max_retries != max_retries)
    {
      self->max_retries = max_retries;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_RETRIES]);
    }
}

guint
sk_llm_client_get_max_tokens (SkLlmClient *self)
{
  g_return_val_if_fail (SK_IS_LLM_CLIENT (self), 0);

  return self->max_tokens;
}

/**
 * sk_llm_client_set_max_tokens:
 * @max_tokens: the longest reply, or 0 for the server's own limit
 *   (Anthropic requires one; 8192 is sent then)
 */
void
sk_llm_client_set_max_tokens (SkLlmClient *self,
                              guint        max_tokens)
{
  g_return_if_fail (SK_IS_LLM_CLIENT (self));

  if (self->max_tokens != max_tokens)
    {
      self->max_tokens = max_tokens;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_TOKENS]);
    }
}
