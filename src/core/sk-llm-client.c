/* sk-llm-client.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One client speaks one of three dialects (OpenAI chat completions, Ollama's
 * native chat, Anthropic Messages) and always streams, so that a long
 * generation never looks like a dead server. libsoup's own timeout would
 * also end a reply that is still arriving, so it is turned off and an idle
 * watchdog, reset by every read, takes its place; a deadline for the whole
 * reply stops a server that keeps trickling bytes forever. Failed requests
 * are sent again under the policy of the OpenAI and Anthropic libraries,
 * but never once some of the reply has reached the caller.
 *
 * This file holds the object, its HTTP exchanges and the chat; the bodies of
 * requests are built in sk-llm-request.c, failures are turned into errors and
 * retry decisions in sk-llm-client-errors.c, and sk-llm-client-models.c lists
 * the server's models.
 */

#define G_LOG_DOMAIN "sk-llm-client"

#include "config.h"

#include <string.h>

#include "sk-llm-client-private.h"
#include "sk-llm-request.h"
#include "sk-llm-stream.h"

#define DEFAULT_IDLE_TIMEOUT 300.0
/* A long reply from a slow local model takes minutes; a quarter of an hour
 * is far more than any takes, and bounds one that never ends.
 */
#define DEFAULT_REPLY_TIMEOUT 900.0
#define DEFAULT_MAX_RETRIES  2
#define ANTHROPIC_VERSION "2023-06-01"
/* An error body or a model list is small; more than this is not one. */
#define MAX_BODY_SIZE (8 * 1024 * 1024)

G_DEFINE_FINAL_TYPE (SkLlmClient, sk_llm_client, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PROVIDER,
  PROP_BASE_URL,
  PROP_MODEL,
  PROP_API_KEY,
  PROP_IDLE_TIMEOUT,
  PROP_REPLY_TIMEOUT,
  PROP_MAX_RETRIES,
  PROP_MAX_TOKENS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

typedef struct
{
  SkLlmExchange  exchange;
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

static char *
strip_url (const char *url)
{
  char *copy = g_strstrip (g_strdup (url != NULL ? url : ""));
  gsize length = strlen (copy);

  while (length > 0 && copy[length - 1] == '/')
    copy[--length] = '\0';

  return copy;
}

/* The address for @what: "chat", or anything else for the list of models. */
char *
_sk_llm_client_endpoint (SkLlmClient *self,
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

void
_sk_llm_client_add_auth_headers (SkLlmClient *self,
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

void
_sk_llm_client_exchange_stop_watchdog (SkLlmExchange *exchange)
{
  if (exchange->idle_source != NULL)
    {
      g_source_destroy (exchange->idle_source);
      g_clear_pointer (&exchange->idle_source, g_source_unref);
    }
  if (exchange->deadline_source != NULL)
    {
      g_source_destroy (exchange->deadline_source);
      g_clear_pointer (&exchange->deadline_source, g_source_unref);
    }
}

void
_sk_llm_client_exchange_clear (SkLlmExchange *exchange)
{
  _sk_llm_client_exchange_stop_watchdog (exchange);
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
  SkLlmExchange *exchange = user_data;

  exchange->timed_out = TRUE;
  g_cancellable_cancel (exchange->cancellable);
  g_clear_pointer (&exchange->idle_source, g_source_unref);

  return G_SOURCE_REMOVE;
}

static gboolean
exchange_deadline_cb (gpointer user_data)
{
  SkLlmExchange *exchange = user_data;

  exchange->timed_out = TRUE;
  exchange->deadline_passed = TRUE;
  g_cancellable_cancel (exchange->cancellable);
  g_clear_pointer (&exchange->deadline_source, g_source_unref);

  return G_SOURCE_REMOVE;
}

void
_sk_llm_client_exchange_touch (SkLlmExchange *exchange)
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

void
_sk_llm_client_exchange_start (SkLlmExchange *exchange,
                               SkLlmClient   *client,
                               SoupMessage   *message,
                               GCancellable  *user_cancellable)
{
  _sk_llm_client_exchange_clear (exchange);

  exchange->client = client;
  exchange->message = message;
  exchange->timed_out = FALSE;
  exchange->deadline_passed = FALSE;
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

  /* Unlike the idle watchdog, nothing the server sends puts this off. */
  if (client->reply_timeout > 0)
    {
      double msec = MIN (client->reply_timeout * 1000, G_MAXUINT);

      exchange->deadline_source = g_timeout_source_new ((guint) msec);
      g_source_set_callback (exchange->deadline_source, exchange_deadline_cb, exchange, NULL);
      g_source_attach (exchange->deadline_source, g_main_context_get_thread_default ());
    }

  _sk_llm_client_exchange_touch (exchange);
}

/* Reading a whole (small) body. */

static void read_body_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data);

/* Reads the whole reply of @exchange, cut at MAX_BODY_SIZE, and hands it to
 * @ready. The task's data must begin with @exchange. */
void
_sk_llm_client_exchange_read_body (GTask              *task,
                                   SkLlmExchange      *exchange,
                                   SkLlmBodyReadyFunc  ready)
{
  g_object_set_data (G_OBJECT (task), "sk-body-ready", ready);
  g_input_stream_read_bytes_async (exchange->input, SK_LLM_CLIENT_READ_SIZE, G_PRIORITY_DEFAULT,
                                   exchange->cancellable, read_body_cb, task);
}

static void
read_body_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  SkLlmExchange *exchange = g_task_get_task_data (task);
  SkLlmBodyReadyFunc ready = g_object_get_data (G_OBJECT (task), "sk-body-ready");
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (bytes == NULL)
    {
      ready (task, NULL, error);
      return;
    }

  _sk_llm_client_exchange_touch (exchange);

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
  g_input_stream_read_bytes_async (exchange->input, SK_LLM_CLIENT_READ_SIZE, G_PRIORITY_DEFAULT,
                                   exchange->cancellable, read_body_cb, task);
}

/* Chat. */

static void chat_start_attempt (GTask *task);

static void
chat_data_free (ChatData *data)
{
  _sk_llm_client_exchange_clear (&data->exchange);
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

  _sk_llm_client_exchange_stop_watchdog (&data->exchange);

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

  _sk_llm_client_exchange_stop_watchdog (&data->exchange);

  /* A reply that ran out of time would run out of it again. */
  if (delay < 0 || data->exchange.deadline_passed ||
      (data->stream != NULL && sk_llm_stream_has_output (data->stream)))
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

static void
chat_succeed (GTask *task)
{
  ChatData *data = g_task_get_task_data (task);

  _sk_llm_client_exchange_stop_watchdog (&data->exchange);
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
      GError *mapped = _sk_llm_client_transport_error (&data->exchange, error, data->url);

      g_error_free (error);
      chat_retry_or_fail (task, mapped, _sk_llm_client_retry_delay (self, data->attempt, mapped));
      return;
    }

  _sk_llm_client_exchange_touch (&data->exchange);

  if (g_bytes_get_size (bytes) == 0)
    {
      if (!sk_llm_stream_finish (data->stream, &error))
        chat_retry_or_fail (task, error, _sk_llm_client_retry_delay (self, data->attempt, error));
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

  g_input_stream_read_bytes_async (data->exchange.input, SK_LLM_CLIENT_READ_SIZE, G_PRIORITY_DEFAULT,
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

  mapped = _sk_llm_client_http_error (self, data->exchange.message, body, data->attempt, &delay);
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
      GError *mapped = _sk_llm_client_transport_error (&data->exchange, error, data->url);

      chat_retry_or_fail (task, mapped, _sk_llm_client_retry_delay (self, data->attempt, mapped));
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
      GError *mapped = _sk_llm_client_transport_error (&data->exchange, error, data->url);

      chat_retry_or_fail (task, mapped, _sk_llm_client_retry_delay (self, data->attempt, mapped));
      return;
    }

  _sk_llm_client_exchange_touch (&data->exchange);
  status = soup_message_get_status (data->exchange.message);

  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      _sk_llm_client_exchange_read_body (task, &data->exchange, chat_error_body_ready);
      return;
    }

  g_clear_pointer (&data->stream, sk_llm_stream_free);
  data->stream = sk_llm_stream_new (self->provider, data->event_func, data->event_data);

  /* A server that ignores "stream" answers with one JSON document. */
  content_type = soup_message_headers_get_content_type (soup_message_get_response_headers (data->exchange.message), NULL);
  if (g_strcmp0 (content_type, "application/json") == 0)
    {
      _sk_llm_client_exchange_read_body (task, &data->exchange, chat_complete_body_ready);
      return;
    }

  g_input_stream_read_bytes_async (data->exchange.input, SK_LLM_CLIENT_READ_SIZE, G_PRIORITY_DEFAULT,
                                   data->exchange.cancellable, chat_read_cb, task);
}

static void
chat_start_attempt (GTask *task)
{
  SkLlmClient *self = g_task_get_source_object (task);
  ChatData *data = g_task_get_task_data (task);
  SoupMessage *message;

  message = soup_message_new (SOUP_METHOD_POST, data->url);
  _sk_llm_client_add_auth_headers (self, message);
  soup_message_headers_replace (soup_message_get_request_headers (message), "Accept",
                                self->provider == SK_LLM_PROVIDER_OLLAMA
                                ? "application/x-ndjson" : "text/event-stream");
  soup_message_set_request_body_from_bytes (message, "application/json", data->request_body);

  g_clear_pointer (&data->stream, sk_llm_stream_free);
  _sk_llm_client_exchange_start (&data->exchange, self, message, g_task_get_cancellable (task));

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
  data->url = _sk_llm_client_endpoint (self, "chat");
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

  data->request_body = sk_llm_request_build_chat_body (self->provider, self->base_url,
                                                       self->model, self->max_tokens,
                                                       system, messages, tools);
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
    case PROP_REPLY_TIMEOUT:
      g_value_set_double (value, self->reply_timeout);
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
    case PROP_REPLY_TIMEOUT:
      sk_llm_client_set_reply_timeout (self, g_value_get_double (value));
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
  /**
   * SkLlmClient:reply-timeout:
   *
   * How many seconds one reply may take in all, from sending the request to
   * its end, however steadily the server sends; 0 for no limit.
   */
  properties[PROP_REPLY_TIMEOUT] =
    g_param_spec_double ("reply-timeout", NULL, NULL, 0, G_MAXDOUBLE, DEFAULT_REPLY_TIMEOUT,
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
  self->reply_timeout = DEFAULT_REPLY_TIMEOUT;
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

double
sk_llm_client_get_reply_timeout (SkLlmClient *self)
{
  g_return_val_if_fail (SK_IS_LLM_CLIENT (self), 0);

  return self->reply_timeout;
}

/**
 * sk_llm_client_set_reply_timeout:
 * @seconds: how long one reply may take in all, however steadily the server
 *   sends; 0 waits forever
 *
 * The idle timeout is put off by every read, so a server that trickles tiny
 * pieces forever never meets it; this limit stops it. A reply that passes it
 * is not asked for again.
 */
void
sk_llm_client_set_reply_timeout (SkLlmClient *self,
                                 double       seconds)
{
  g_return_if_fail (SK_IS_LLM_CLIENT (self));

  seconds = MAX (seconds, 0);
  if (self->reply_timeout != seconds)
    {
      self->reply_timeout = seconds;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REPLY_TIMEOUT]);
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
