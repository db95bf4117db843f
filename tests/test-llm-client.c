/* test-llm-client.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs SkLlmClient against the fake server for the scenarios of
 * LLM_PROTOCOLS.md §7, in each dialect, and checks what the caller gets:
 * the text, the tool calls, the usage, the errors and the retries.
 */

#define G_LOG_DOMAIN "test-llm-client"

#include "config.h"

#include <string.h>

#include "sk-fake-llm.h"
#include "sk-llm-client.h"
#include "sk-llm-stream.h"
#include "sk-test-util.h"

typedef struct
{
  SkLlmProvider provider;
  SkFakeLlmDialect dialect;
  const char *name;
} Dialect;

static const Dialect dialects[] = {
  { SK_LLM_PROVIDER_OPENAI, SK_FAKE_LLM_DIALECT_OPENAI, "openai" },
  { SK_LLM_PROVIDER_OLLAMA, SK_FAKE_LLM_DIALECT_OLLAMA, "ollama" },
  { SK_LLM_PROVIDER_ANTHROPIC, SK_FAKE_LLM_DIALECT_ANTHROPIC, "anthropic" },
};

typedef struct
{
  GString       *text;
  GString       *reasoning;
  GPtrArray     *tool_events;
  GPtrArray     *retries;
  gint64         first_text_us;
  gboolean       done;
  SkLlmResponse *response;
  SkLlmResponse *partial;
  GError        *error;
  GCancellable  *cancel_on_text;
} Call;

static void
call_clear (Call *call)
{
  g_string_free (call->text, TRUE);
  g_string_free (call->reasoning, TRUE);
  g_ptr_array_unref (call->tool_events);
  g_ptr_array_unref (call->retries);
  g_clear_pointer (&call->response, sk_llm_response_free);
  g_clear_pointer (&call->partial, sk_llm_response_free);
  g_clear_error (&call->error);
  memset (call, 0, sizeof *call);
}

static void
event_cb (SkLlmEvent  event,
          const char *text,
          gpointer    user_data)
{
  Call *call = user_data;

  switch (event)
    {
    case SK_LLM_EVENT_TEXT:
      if (call->text->len == 0)
        call->first_text_us = g_get_monotonic_time ();
      g_string_append (call->text, text);
      if (call->cancel_on_text != NULL)
        g_cancellable_cancel (call->cancel_on_text);
      break;
    case SK_LLM_EVENT_REASONING:
      g_string_append (call->reasoning, text);
      break;
    case SK_LLM_EVENT_TOOL_CALL:
      g_ptr_array_add (call->tool_events, g_strdup (text));
      break;
    case SK_LLM_EVENT_RETRY:
      g_ptr_array_add (call->retries, g_strdup (text));
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
chat_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Call *call = user_data;

  call->response = sk_llm_client_chat_finish (SK_LLM_CLIENT (object), result, &call->partial, &call->error);
  call->done = TRUE;
}

static SkLlmClient *
client_for (SkFakeLlm     *fake,
            const Dialect *dialect)
{
  SkLlmClient *client = sk_llm_client_new (dialect->provider,
                                           sk_fake_llm_get_base_url (fake, dialect->dialect),
                                           "fake", "sk-test-key");

  sk_llm_client_set_idle_timeout (client, 10);
  return client;
}

static GPtrArray *
hello_messages (void)
{
  GPtrArray *messages = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_llm_message_free);

  g_ptr_array_add (messages, sk_llm_message_new (SK_LLM_ROLE_USER, "Say hello"));
  return messages;
}

static void
run_call (SkLlmClient  *client,
          GPtrArray    *tools,
          GCancellable *cancellable,
          Call         *call)
{
  g_autoptr(GPtrArray) messages = hello_messages ();

  call->text = g_string_new (NULL);
  call->reasoning = g_string_new (NULL);
  call->tool_events = g_ptr_array_new_with_free_func (g_free);
  call->retries = g_ptr_array_new_with_free_func (g_free);

  sk_llm_client_chat_async (client, "You are a test.", messages, tools, event_cb, call,
                            cancellable, chat_cb, call);
  SK_TEST_WAIT_UNTIL (call->done, 30000);
}

static void
chat (SkFakeLlm     *fake,
      const Dialect *dialect,
      const char    *scenario,
      Call          *call)
{
  g_autoptr(SkLlmClient) client = client_for (fake, dialect);
  g_autoptr(GError) error = NULL;

  if (scenario != NULL)
    {
      sk_fake_llm_push (fake, scenario, &error);
      g_assert_no_error (error);
    }
  run_call (client, NULL, NULL, call);
}

static void
test_plain_text (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      Call call = { 0 };

      chat (fake, &dialects[i], "plain-text", &call);
      g_assert_no_error (call.error);
      g_assert_cmpstr (call.response->text, ==, "Hello");
      g_assert_cmpstr (call.text->str, ==, "Hello");
      g_assert_cmpuint (call.response->tool_calls->len, ==, 0);
      g_assert_nonnull (call.response->finish_reason);
      if (dialects[i].provider == SK_LLM_PROVIDER_ANTHROPIC)
        g_assert_cmpstr (call.response->finish_reason, ==, "end_turn");
      else
        g_assert_cmpstr (call.response->finish_reason, ==, "stop");

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

static void
test_utf8_split (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      Call call = { 0 };

      chat (fake, &dialects[i], "utf8-split", &call);
      g_assert_no_error (call.error);
      g_assert_cmpstr (call.response->text, ==, "Héllo, wörld ✓");
      g_assert_true (g_utf8_validate (call.text->str, -1, NULL));

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

static void
assert_write_file_call (const SkLlmToolCall *tool_call)
{
  g_autoptr(JsonObject) arguments = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpstr (tool_call->name, ==, "write_file");
  arguments = sk_llm_tool_call_parse_arguments (tool_call, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_object_get_size (arguments), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (arguments, "path"), ==, "a.c");
  g_assert_cmpstr (json_object_get_string_member (arguments, "text"), ==, "say \"hi\"\n");
}

static void
test_tool_call_fragments (void)
{
  const char *scenarios[] = { "tool-call-fragments", "tool-call-fragments-split" };

  for (guint s = 0; s < G_N_ELEMENTS (scenarios); s++)
    for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
      {
        SkFakeLlm *fake = sk_fake_llm_new ();
        Call call = { 0 };

        chat (fake, &dialects[i], scenarios[s], &call);
        g_assert_no_error (call.error);
        g_assert_cmpuint (call.response->tool_calls->len, ==, 1);
        assert_write_file_call (g_ptr_array_index (call.response->tool_calls, 0));
        g_assert_cmpuint (call.tool_events->len, ==, 1);
        g_assert_cmpstr (g_ptr_array_index (call.tool_events, 0), ==, "write_file");
        if (s == 1)
          g_assert_cmpstr (call.response->text, ==, "Voilà");
        if (dialects[i].provider != SK_LLM_PROVIDER_OLLAMA)
          g_assert_cmpstr (((SkLlmToolCall *) g_ptr_array_index (call.response->tool_calls, 0))->id, ==, "call_1");

        call_clear (&call);
        sk_fake_llm_free (fake);
      }
}

static void
test_multiple_tool_calls (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      Call call = { 0 };
      SkLlmToolCall *first, *second;

      chat (fake, &dialects[i], "multiple-tool-calls", &call);
      g_assert_no_error (call.error);
      g_assert_cmpuint (call.response->tool_calls->len, ==, 2);
      first = g_ptr_array_index (call.response->tool_calls, 0);
      second = g_ptr_array_index (call.response->tool_calls, 1);
      g_assert_cmpstr (first->name, ==, "read_file");
      g_assert_cmpstr (second->name, ==, "read_file");
      g_assert_true (strstr (first->arguments, "a.c") != NULL);
      g_assert_true (strstr (second->arguments, "b.c") != NULL);
      g_assert_cmpstr (first->id, !=, second->id);

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

static void
test_usage (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      Call call = { 0 };

      chat (fake, &dialects[i], "usage-chunk", &call);
      g_assert_no_error (call.error);
      g_assert_true (call.response->usage.known);
      g_assert_cmpuint (call.response->usage.prompt_tokens, ==, 12);
      g_assert_cmpuint (call.response->usage.completion_tokens, ==, 2);

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

static void
assert_requests_apart (SkFakeLlm *fake,
                       guint      n,
                       double     min_seconds)
{
  g_autoptr(GPtrArray) requests = sk_fake_llm_dup_requests (fake);
  SkFakeLlmRequest *first, *second;

  g_assert_cmpuint (requests->len, ==, n);
  first = g_ptr_array_index (requests, 0);
  second = g_ptr_array_index (requests, 1);
  g_assert_cmpfloat ((second->time_us - first->time_us) / 1e6, >=, min_seconds);
}

static void
test_rate_limit (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      Call call = { 0 };

      chat (fake, &dialects[i], "rate-limit-then-success", &call);
      g_assert_no_error (call.error);
      g_assert_cmpstr (call.response->text, ==, "Hello");
      g_assert_cmpuint (call.retries->len, ==, 1);
      assert_requests_apart (fake, 2, 1.0);
      call_clear (&call);

      chat (fake, &dialects[i], "rate-limit-retry-after-ms", &call);
      g_assert_no_error (call.error);
      g_assert_cmpstr (call.response->text, ==, "Hello");
      call_clear (&call);

      sk_fake_llm_free (fake);
    }
}

static void
test_retry_after_too_long (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(GError) error = NULL;
  Call call = { 0 };

  sk_fake_llm_push_json (fake,
                         "{\"status\":429,\"reason\":\"Too Many Requests\","
                         "\"headers\":{\"Retry-After\":\"3600\"},"
                         "\"error\":{\"message\":\"Slow down\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}",
                         &error);
  g_assert_no_error (error);
  chat (fake, &dialects[0], NULL, &call);
  g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_RATE_LIMITED);
  sk_test_assert_contains (call.error->message, "60 minutes");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 1);

  call_clear (&call);
  sk_fake_llm_free (fake);
}

static void
test_backoff_without_header (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(GError) error = NULL;
  Call call = { 0 };

  sk_fake_llm_push_json (fake,
                         "[{\"status\":429,\"reason\":\"Too Many Requests\","
                         "\"error\":{\"message\":\"Slow down\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}},"
                         "{\"scenario\":\"plain-text\"}]",
                         &error);
  g_assert_no_error (error);
  chat (fake, &dialects[0], NULL, &call);
  g_assert_no_error (call.error);
  /* The first backoff is 0.5 s less up to a quarter of jitter. */
  assert_requests_apart (fake, 2, 0.37);

  call_clear (&call);
  sk_fake_llm_free (fake);
}

static void
test_no_retry_errors (void)
{
  static const struct
  {
    const char *scenario;
    int code;
    const char *words;
  } cases[] = {
    { "insufficient-quota", SK_LLM_ERROR_QUOTA, "quota" },
    { "unauthorized", SK_LLM_ERROR_AUTH, "API key" },
    { "model-not-found", SK_LLM_ERROR_MODEL_NOT_FOUND, "fake" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
      {
        SkFakeLlm *fake = sk_fake_llm_new ();
        Call call = { 0 };

        /* Anthropic's quota errors carry its own type, not OpenAI's code. */
        if (c == 0 && dialects[i].provider == SK_LLM_PROVIDER_OLLAMA)
          {
            sk_fake_llm_free (fake);
            continue;
          }

        chat (fake, &dialects[i], cases[c].scenario, &call);
        g_assert_error (call.error, SK_LLM_ERROR, cases[c].code);
        sk_test_assert_contains (call.error->message, cases[c].words);
        g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 1);
        g_assert_cmpuint (call.retries->len, ==, 0);

        call_clear (&call);
        sk_fake_llm_free (fake);
      }
}

static void
test_overloaded (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  Call call = { 0 };

  chat (fake, &dialects[2], "overloaded-then-success", &call);
  g_assert_no_error (call.error);
  g_assert_cmpstr (call.response->text, ==, "Hello");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 2);

  call_clear (&call);
  sk_fake_llm_free (fake);
}

static void
test_server_error (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      Call call = { 0 };

      chat (fake, &dialects[i], "server-error", &call);
      g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_SERVER);
      sk_test_assert_contains (call.error->message, "Tried 3 times");
      g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 3);
      g_assert_cmpuint (call.retries->len, ==, 2);

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

static void
test_context_too_long (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(GError) error = NULL;
  Call call = { 0 };

  /* llama.cpp's shape, with an integer code. */
  sk_fake_llm_push_json (fake,
                         "{\"status\":400,\"body\":\"{\\\"error\\\":{\\\"code\\\":400,\\\"message\\\":"
                         "\\\"request (9412 tokens) exceeds the available context size (8192 tokens), "
                         "try increasing it\\\",\\\"type\\\":\\\"exceed_context_size_error\\\","
                         "\\\"n_prompt_tokens\\\":9412,\\\"n_ctx\\\":8192}}\"}",
                         &error);
  g_assert_no_error (error);
  chat (fake, &dialects[0], NULL, &call);
  g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_CONTEXT_TOO_LONG);
  sk_test_assert_contains (call.error->message, "9412 tokens");

  call_clear (&call);
  sk_fake_llm_free (fake);
}

static void
test_malformed (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      Call call = { 0 };

      chat (fake, &dialects[i], "malformed-json", &call);
      g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL);
      sk_test_assert_contains (call.error->message, "oops");
      g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 1);

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

static void
test_dropped (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      Call call = { 0 };

      chat (fake, &dialects[i], "dropped", &call);
      g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_INCOMPLETE);
      g_assert_null (call.response);
      g_assert_nonnull (call.partial);
      g_assert_cmpstr (call.partial->text, ==, "par");
      /* Text reached the caller, so the request is not sent again. */
      g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 1);

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

static void
test_mid_stream_error (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      Call call = { 0 };

      chat (fake, &dialects[i], "mid-stream-error", &call);
      g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_STREAM);
      g_assert_cmpstr (call.partial->text, ==, "par");

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

static void
test_slow_stream_cancel (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(SkLlmClient) client = client_for (fake, &dialects[0]);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  gint64 deadline;
  Call call = { 0 };

  /* Five seconds of pings: with a 2 s idle limit, the pings keep it alive. */
  sk_llm_client_set_idle_timeout (client, 2);
  sk_fake_llm_push (fake, "slow-stream", &error);
  g_assert_no_error (error);

  call.cancel_on_text = cancellable;
  run_call (client, NULL, cancellable, &call);
  g_assert_error (call.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpstr (call.text->str, ==, "x");
  g_assert_cmpint ((g_get_monotonic_time () - call.first_text_us) / 1000, <, 1000);

  /* The server sees the client go. */
  deadline = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
  while (sk_fake_llm_get_n_finished (fake) < 1 && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_cmpuint (sk_fake_llm_get_n_finished (fake), ==, 1);

  call_clear (&call);
  sk_fake_llm_free (fake);
}

static void
test_silent_stream (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(SkLlmClient) client = client_for (fake, &dialects[0]);
  g_autoptr(GError) error = NULL;
  Call call = { 0 };

  sk_llm_client_set_idle_timeout (client, 1);
  sk_llm_client_set_max_retries (client, 0);
  sk_fake_llm_push (fake, "silent-stream", &error);
  g_assert_no_error (error);

  run_call (client, NULL, NULL, &call);
  g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_TIMEOUT);
  sk_test_assert_contains (call.error->message, "sent nothing for 1 seconds");

  call_clear (&call);
  sk_fake_llm_free (fake);
}

static void
test_server_down (void)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autoptr(SkLlmClient) client = NULL;
  Call call = { 0 };
  guint port;

  /* A port that was free a moment ago refuses connections. */
  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  address = g_inet_socket_address_new (loopback, 0);
  g_socket_bind (socket, address, TRUE, &error);
  g_assert_no_error (error);
  g_clear_object (&address);
  address = g_socket_get_local_address (socket, &error);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (address));
  g_socket_close (socket, NULL);

  url = g_strdup_printf ("http://127.0.0.1:%u/v1", port);
  client = sk_llm_client_new (SK_LLM_PROVIDER_OPENAI, url, "fake", NULL);
  sk_llm_client_set_max_retries (client, 1);
  run_call (client, NULL, NULL, &call);
  g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_CONNECTION);
  sk_test_assert_contains (call.error->message, url);
  g_assert_cmpuint (call.retries->len, ==, 1);

  call_clear (&call);
}

static void
test_not_configured (void)
{
  g_autoptr(SkLlmClient) no_model = sk_llm_client_new (SK_LLM_PROVIDER_OLLAMA, NULL, "", NULL);
  g_autoptr(SkLlmClient) bad_url = sk_llm_client_new (SK_LLM_PROVIDER_OPENAI, "localhost:8080", "m", NULL);
  Call call = { 0 };

  g_assert_cmpstr (sk_llm_client_get_base_url (no_model), ==, "http://127.0.0.1:11434");

  run_call (no_model, NULL, NULL, &call);
  g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED);
  call_clear (&call);

  run_call (bad_url, NULL, NULL, &call);
  g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED);
  sk_test_assert_contains (call.error->message, "localhost:8080");
  call_clear (&call);
}

/* The request bodies, in each dialect, for a conversation with a tool call. */
static void
test_request_bodies (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      g_autoptr(SkLlmClient) client = client_for (fake, &dialects[i]);
      g_autoptr(GPtrArray) messages = hello_messages ();
      g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_llm_tool_free);
      g_autoptr(GPtrArray) requests = NULL;
      g_autoptr(SkLlmToolCall) tool_call = sk_llm_tool_call_new ("call_9", "read_file", "{\"path\":\"x.py\"}");
      g_autoptr(JsonNode) body = NULL;
      g_autoptr(GError) error = NULL;
      SkFakeLlmRequest *request;
      SkLlmMessage *assistant;
      JsonObject *root;
      JsonArray *array;
      const char *header;
      Call call = { 0 };

      g_ptr_array_add (tools, sk_llm_tool_new ("read_file", "Reads a file",
                                               "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}"));
      assistant = sk_llm_message_new (SK_LLM_ROLE_ASSISTANT, NULL);
      sk_llm_message_add_tool_call (assistant, tool_call);
      g_ptr_array_add (messages, assistant);
      g_ptr_array_add (messages, sk_llm_message_new_tool_result ("call_9", "read_file", "print(1)", FALSE));
      g_ptr_array_add (messages, sk_llm_message_new (SK_LLM_ROLE_USER, "Go on"));

      sk_fake_llm_push (fake, "plain-text", &error);
      g_assert_no_error (error);
      call.text = g_string_new (NULL);
      call.reasoning = g_string_new (NULL);
      call.tool_events = g_ptr_array_new_with_free_func (g_free);
      call.retries = g_ptr_array_new_with_free_func (g_free);
      sk_llm_client_chat_async (client, "System text", messages, tools, event_cb, &call, NULL, chat_cb, &call);
      SK_TEST_WAIT_UNTIL (call.done, 10000);
      g_assert_no_error (call.error);

      requests = sk_fake_llm_dup_requests (fake);
      request = g_ptr_array_index (requests, 0);
      body = json_from_string (g_bytes_get_data (request->body, NULL), &error);
      g_assert_no_error (error);
      root = json_node_get_object (body);
      g_assert_cmpstr (json_object_get_string_member (root, "model"), ==, "fake");
      g_assert_true (json_object_get_boolean_member (root, "stream"));
      array = json_object_get_array_member (root, "tools");
      g_assert_cmpuint (json_array_get_length (array), ==, 1);

      switch (dialects[i].provider)
        {
        case SK_LLM_PROVIDER_OPENAI:
          header = soup_message_headers_get_one (request->headers, "Authorization");
          g_assert_cmpstr (header, ==, "Bearer sk-test-key");
          array = json_object_get_array_member (root, "messages");
          g_assert_cmpuint (json_array_get_length (array), ==, 5);
          g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (array, 0), "role"), ==, "system");
          /* Arguments go back as a JSON string. */
          g_assert_cmpstr (json_object_get_string_member (
                             json_object_get_object_member (
                               json_array_get_object_element (
                                 json_object_get_array_member (json_array_get_object_element (array, 2), "tool_calls"), 0),
                               "function"),
                             "arguments"), ==, "{\"path\":\"x.py\"}");
          g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (array, 3), "tool_call_id"), ==, "call_9");
          g_assert_true (json_object_get_boolean_member (json_object_get_object_member (root, "stream_options"), "include_usage"));
          break;

        case SK_LLM_PROVIDER_OLLAMA:
          array = json_object_get_array_member (root, "messages");
          g_assert_cmpuint (json_array_get_length (array), ==, 5);
          /* Native Ollama wants the arguments as an object. */
          g_assert_true (JSON_NODE_HOLDS_OBJECT (json_object_get_member (
                             json_object_get_object_member (
                               json_array_get_object_element (
                                 json_object_get_array_member (json_array_get_object_element (array, 2), "tool_calls"), 0),
                               "function"),
                             "arguments")));
          g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (array, 3), "tool_name"), ==, "read_file");
          g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (root, "options"), "num_ctx"), >=, 16384);
          break;

        case SK_LLM_PROVIDER_ANTHROPIC:
        default:
          header = soup_message_headers_get_one (request->headers, "x-api-key");
          g_assert_cmpstr (header, ==, "sk-test-key");
          g_assert_cmpstr (soup_message_headers_get_one (request->headers, "anthropic-version"), ==, "2023-06-01");
          g_assert_cmpstr (json_object_get_string_member (root, "system"), ==, "System text");
          g_assert_cmpint (json_object_get_int_member (root, "max_tokens"), >, 0);
          array = json_object_get_array_member (root, "messages");
          /* user, assistant, then the tool result and "Go on" in one user turn. */
          g_assert_cmpuint (json_array_get_length (array), ==, 3);
          g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (array, 2), "role"), ==, "user");
          g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_array_get_object_element (array, 2), "content")), ==, 2);
          g_assert_true (json_object_has_member (json_array_get_object_element (json_object_get_array_member (root, "tools"), 0), "input_schema"));
          break;
        }

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

typedef struct
{
  char   **models;
  GError  *error;
  gboolean done;
} ListCall;

static void
list_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  ListCall *call = user_data;

  call->models = sk_llm_client_list_models_finish (SK_LLM_CLIENT (object), result, &call->error);
  call->done = TRUE;
}

static void
test_list_models (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      g_autoptr(SkLlmClient) client = client_for (fake, &dialects[i]);
      ListCall call = { 0 };

      sk_fake_llm_set_models (fake, SK_TEST_STRV ("zeta:7b", "alpha", "mid-model"));
      sk_llm_client_list_models_async (client, NULL, list_cb, &call);
      SK_TEST_WAIT_UNTIL (call.done, 10000);
      g_assert_no_error (call.error);
      g_assert_cmpstrv (call.models, SK_TEST_STRV ("alpha", "mid-model", "zeta:7b"));

      g_strfreev (call.models);
      sk_fake_llm_free (fake);
    }
}

static void
test_list_models_refused (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(SkLlmClient) client = client_for (fake, &dialects[0]);
  g_autoptr(GError) error = NULL;
  ListCall call = { 0 };

  sk_fake_llm_push_json (fake,
                         "{\"path\":\"/v1/models\",\"status\":401,\"reason\":\"Unauthorized\","
                         "\"error\":{\"message\":\"Incorrect API key provided.\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}",
                         &error);
  g_assert_no_error (error);
  sk_llm_client_list_models_async (client, NULL, list_cb, &call);
  SK_TEST_WAIT_UNTIL (call.done, 10000);
  g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_AUTH);
  g_assert_null (call.models);

  g_clear_error (&call.error);
  sk_fake_llm_free (fake);
}

typedef struct
{
  const char *scenario;
  guint       dialect;
  const char *text;
  const char *reasoning;
  guint       n_calls;
  int         error_code;
  gint64      prompt_tokens;
} Case;

/* The scenarios of LLM_PROTOCOLS.md §7 3b, 4, 11 and 12, through the client. */
static const Case scenario_cases[] = {
  { "ollama-v1-index-zero", 0, "", NULL, 2, -1, -1 },
  { "tool-call-no-index", 0, "", NULL, 2, -1, -1 },
  { "usage-llamacpp", 0, "Hello", NULL, 0, -1, 12 },
  { "usage-vllm", 0, "Hello", NULL, 0, -1, 12 },
  { "usage-none", 0, "Hello", NULL, 0, -1, 0 },
  { "framing-crlf", 0, "Hello", NULL, 0, -1, -1 },
  { "framing-crlf", 2, "Hello", NULL, 0, -1, -1 },
  { "framing-crlf", 1, "Hello", NULL, 0, -1, -1 },
  { "framing-cr", 0, "Hello", NULL, 0, -1, -1 },
  { "framing-cr", 2, "Hello", NULL, 0, -1, -1 },
  { "framing-no-space", 0, "Hello", NULL, 0, -1, -1 },
  { "framing-no-space", 2, "Hello", NULL, 0, -1, -1 },
  { "framing-event-message", 0, "Hello", NULL, 0, -1, -1 },
  { "framing-comment", 0, "Hello", NULL, 0, -1, -1 },
  { "reasoning-content", 0, "Hello", "Let me think.", 0, -1, -1 },
  { "reasoning", 0, "Hello", "Let me think.", 0, -1, -1 },
  { "legacy-llamacpp-error", 0, NULL, NULL, 0, SK_LLM_ERROR_STREAM, -1 },
  { "raw-json-error", 0, NULL, NULL, 0, SK_LLM_ERROR_STREAM, -1 },
  { "ollama-stream-false", 1, "Hello", NULL, 0, -1, -1 },
  { "ollama-stream-false", 0, "Hello", NULL, 0, -1, -1 },
  { "ollama-stream-false", 2, "Hello", NULL, 0, -1, -1 },
  { "ollama-thinking", 1, "Hello", "Let me think.", 0, -1, -1 },
  { "anthropic-no-ping", 2, "Hello", NULL, 0, -1, -1 },
  { "anthropic-unknown-event", 2, "Hello", NULL, 0, -1, -1 },
  { "anthropic-empty-partial-json", 2, "", NULL, 1, -1, -1 },
  { "anthropic-thinking", 2, "Hello", "Let me think.", 0, -1, -1 },
};

static void
test_scenario (gconstpointer data)
{
  const Case *c = data;
  SkFakeLlm *fake = sk_fake_llm_new ();
  Call call = { 0 };

  chat (fake, &dialects[c->dialect], c->scenario, &call);

  if (c->error_code >= 0)
    {
      g_assert_error (call.error, SK_LLM_ERROR, c->error_code);
      /* What arrived before the error is kept. */
      g_assert_cmpstr (call.partial->text, ==, "Hello");
      g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 1);
    }
  else
    {
      g_assert_no_error (call.error);
      g_assert_cmpstr (call.response->text, ==, c->text);
      g_assert_cmpstr (call.response->reasoning, ==, c->reasoning);
      g_assert_cmpuint (call.response->tool_calls->len, ==, c->n_calls);
      if (c->n_calls == 2)
        {
          SkLlmToolCall *first = g_ptr_array_index (call.response->tool_calls, 0);
          SkLlmToolCall *second = g_ptr_array_index (call.response->tool_calls, 1);

          /* Not "read_fileread_file" with both arguments joined. */
          g_assert_cmpstr (first->name, ==, "read_file");
          g_assert_cmpstr (second->name, ==, "read_file");
          g_assert_cmpstr (first->arguments, ==, "{\"path\":\"a.c\"}");
          g_assert_cmpstr (second->arguments, ==, "{\"path\":\"b.c\"}");
        }
      if (c->n_calls == 1)
        {
          g_autoptr(JsonObject) arguments = NULL;
          g_autoptr(GError) error = NULL;

          arguments = sk_llm_tool_call_parse_arguments (g_ptr_array_index (call.response->tool_calls, 0), &error);
          g_assert_no_error (error);
          g_assert_cmpuint (json_object_get_size (arguments), ==, 0);
        }
      if (c->prompt_tokens == 0)
        g_assert_false (call.response->usage.known);
      else if (c->prompt_tokens > 0)
        {
          g_assert_true (call.response->usage.known);
          g_assert_cmpuint (call.response->usage.prompt_tokens, ==, c->prompt_tokens);
          g_assert_cmpuint (call.response->usage.completion_tokens, ==, 2);
        }
    }

  call_clear (&call);
  sk_fake_llm_free (fake);
}

/* Generated text as tests/fake-llm/README.md defines it. */
static void
append_generated (GChecksum *checksum,
                  guint      count,
                  gsize      size)
{
  g_autofree char *chunk = g_malloc (size);

  for (guint i = 0; i < count; i++)
    {
      g_autofree char *head = g_strdup_printf ("%u ", i);
      gsize head_length = strlen (head);

      for (gsize k = 0; k < size; k++)
        {
          if (k < head_length)
            chunk[k] = head[k];
          else
            chunk[k] = 'a' + (i + k) % 26;
        }
      chunk[size - 1] = '\n';
      g_checksum_update (checksum, (const guchar *) chunk, size);
    }
}

/* §7 10: 5 MiB in 20 000 deltas, one 1 MiB line and a character cut in two. */
static void
test_huge (void)
{
  g_autoptr(GChecksum) expected = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GChecksum) seen = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GChecksum) streamed = g_checksum_new (G_CHECKSUM_SHA256);

  append_generated (expected, 20000, 256);
  append_generated (expected, 1, 1048576);
  g_checksum_update (expected, (const guchar *) "é", strlen ("é"));

  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      Call call = { 0 };

      chat (fake, &dialects[i], "huge", &call);
      g_assert_no_error (call.error);
      g_assert_cmpuint (strlen (call.response->text), ==, 20000 * 256 + 1048576 + 2);

      g_checksum_reset (seen);
      g_checksum_update (seen, (const guchar *) call.response->text, -1);
      g_assert_cmpstr (g_checksum_get_string (seen), ==, g_checksum_get_string (expected));
      /* The pieces handed out as they came add up to the same text. */
      g_checksum_reset (streamed);
      g_checksum_update (streamed, (const guchar *) call.text->str, call.text->len);
      g_assert_cmpstr (g_checksum_get_string (streamed), ==, g_checksum_get_string (expected));

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

static void
test_models_pages (void)
{
  const struct
  {
    const char *scenario;
    guint dialect;
    guint n_requests;
    const char * const *models;
  } listings[] = {
    { "anthropic-models-two-pages", 2, 2,
      SK_TEST_STRV ("claude-3-5-haiku-20241022", "claude-opus-4-1-20250805", "claude-sonnet-4-20250514") },
    { "models-llamacpp", 0, 1, SK_TEST_STRV ("../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (listings); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      g_autoptr(SkLlmClient) client = client_for (fake, &dialects[listings[i].dialect]);
      g_autoptr(GError) error = NULL;
      ListCall call = { 0 };

      sk_fake_llm_push (fake, listings[i].scenario, &error);
      g_assert_no_error (error);
      sk_llm_client_list_models_async (client, NULL, list_cb, &call);
      SK_TEST_WAIT_UNTIL (call.done, 10000);
      g_assert_no_error (call.error);
      g_assert_cmpstrv (call.models, listings[i].models);
      g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, listings[i].n_requests);

      g_strfreev (call.models);
      sk_fake_llm_free (fake);
    }
}

/* The stream parser alone, fed one byte at a time. */
static void
test_stream_byte_by_byte (void)
{
  static const char openai[] =
    ": ping\r\n\r\n"
    "event: message\r\n"
    "data:{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hm\"}}]}\r\n\r\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"h\\u00e9\"}}]}\r\r"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xc3\xa9\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"list_dir\",\"arguments\":\"{\\\"pa\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\":\\\".\\\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"b\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":7}}\n\n"
    "data: [DONE]\n\n";
  g_autoptr(SkLlmStream) stream = sk_llm_stream_new (SK_LLM_PROVIDER_OPENAI, NULL, NULL);
  g_autoptr(SkLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  SkLlmToolCall *call;

  for (gsize i = 0; i < strlen (openai); i++)
    {
      sk_llm_stream_feed (stream, openai + i, 1, &error);
      g_assert_no_error (error);
    }
  sk_llm_stream_finish (stream, &error);
  g_assert_no_error (error);

  response = sk_llm_stream_steal_response (stream);
  g_assert_cmpstr (response->text, ==, "héé");
  g_assert_cmpstr (response->reasoning, ==, "hm");
  g_assert_cmpuint (response->tool_calls->len, ==, 2);
  call = g_ptr_array_index (response->tool_calls, 0);
  g_assert_cmpstr (call->name, ==, "list_dir");
  g_assert_cmpstr (call->arguments, ==, "{\"path\":\".\"}");
  call = g_ptr_array_index (response->tool_calls, 1);
  g_assert_cmpstr (call->name, ==, "read_file");
  g_assert_cmpstr (response->finish_reason, ==, "tool_calls");
  g_assert_cmpuint (response->usage.prompt_tokens, ==, 5);
  g_assert_cmpuint (response->usage.completion_tokens, ==, 7);
}

static void
test_stream_errors (void)
{
  static const struct
  {
    SkLlmProvider provider;
    const char *bytes;
    int code;
  } cases[] = {
    { SK_LLM_PROVIDER_OPENAI, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
                              "error: {\"code\":500,\"message\":\"boom\",\"type\":\"server_error\"}\n\ndata: [DONE]\n\n",
      SK_LLM_ERROR_STREAM },
    { SK_LLM_PROVIDER_OPENAI, "{\"error\":{\"message\":\"proxy says no\"}}\n", SK_LLM_ERROR_STREAM },
    { SK_LLM_PROVIDER_OPENAI, "event: error\ndata: {\"message\":\"x\"}\n\n", SK_LLM_ERROR_STREAM },
    { SK_LLM_PROVIDER_OPENAI, "data: {\"choices\":[]}\n\n", SK_LLM_ERROR_INCOMPLETE },
    { SK_LLM_PROVIDER_OLLAMA, "{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"error\":\"out of memory\"}\n",
      SK_LLM_ERROR_STREAM },
    { SK_LLM_PROVIDER_OLLAMA, "{\"message\":{\"content\":\"a\"},\"done\":false}\n", SK_LLM_ERROR_INCOMPLETE },
    { SK_LLM_PROVIDER_ANTHROPIC, "event: ping\ndata: {\"type\":\"ping\"}\n\n", SK_LLM_ERROR_INCOMPLETE },
    { SK_LLM_PROVIDER_ANTHROPIC, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,"
                                 "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n",
      SK_LLM_ERROR_PROTOCOL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(SkLlmStream) stream = sk_llm_stream_new (cases[i].provider, NULL, NULL);
      g_autoptr(GError) error = NULL;

      if (sk_llm_stream_feed (stream, cases[i].bytes, strlen (cases[i].bytes), &error))
        sk_llm_stream_finish (stream, &error);
      g_assert_error (error, SK_LLM_ERROR, cases[i].code);
    }
}

/* Hostile servers. */

static JsonBuilder *
parts_begin (void)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "parts");
  json_builder_begin_array (builder);
  return builder;
}

static void
parts_add_text (JsonBuilder *builder,
                const char  *text)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, text);
  json_builder_end_object (builder);
}

/* Any bytes, as one HTTP chunk, @repeat times (sent lazily by the server). */
static void
parts_add_raw (JsonBuilder *builder,
               const char  *bytes,
               gsize        length,
               guint        repeat)
{
  g_autofree char *encoded = g_base64_encode ((const guchar *) bytes, length);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "raw_base64");
  json_builder_add_string_value (builder, encoded);
  json_builder_set_member_name (builder, "repeat");
  json_builder_add_int_value (builder, repeat);
  json_builder_end_object (builder);
}

static void
parts_push (SkFakeLlm   *fake,
            JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;

  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  json = json_to_string (root, FALSE);
  sk_fake_llm_push_json (fake, json, &error);
  g_assert_no_error (error);
  g_object_unref (builder);
}

/* A stream of tiny events that would go on for hours, each putting off the
 * idle watchdog, ends at the reply's deadline.
 */
static void
test_endless_tiny_chunks (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      g_autoptr(SkLlmClient) client = client_for (fake, &dialects[i]);
      g_autoptr(GError) error = NULL;
      Call call = { 0 };
      gint64 start;

      sk_llm_client_set_reply_timeout (client, 2);
      g_assert_cmpfloat (sk_llm_client_get_reply_timeout (client), ==, 2);
      sk_fake_llm_push_json (fake, "{\"parts\":[{\"generated\":{\"count\":1000000,\"size\":8}}],"
                                   "\"delay_ms\":20}", &error);
      g_assert_no_error (error);

      start = g_get_monotonic_time ();
      run_call (client, NULL, NULL, &call);
      g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_TIMEOUT);
      sk_test_assert_contains (call.error->message, "still sending its reply after 2 seconds");
      g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);
      g_assert_nonnull (call.partial);
      g_assert_cmpuint (strlen (call.partial->text), >, 0);
      /* A reply that ran out of time is not asked for again. */
      g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 1);

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

/* Tool-call arguments that never end stop at their limit (OpenAI and
 * Anthropic stream them in pieces); endless whole calls (Ollama) stop at
 * the number of calls.
 */
static void
test_endless_tool_arguments (void)
{
  g_autofree char *filler = g_strnfill (64 * 1024, 'x');

  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      g_autoptr(SkLlmClient) client = client_for (fake, &dialects[i]);
      JsonBuilder *builder = parts_begin ();
      g_autofree char *piece = NULL;
      Call call = { 0 };
      gsize total = 0;

      if (dialects[i].provider == SK_LLM_PROVIDER_OLLAMA)
        piece = g_strdup ("{\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":"
                          "[{\"function\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"a.py\"}}}]},"
                          "\"done\":false}\n");
      else
        {
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "tool_call");
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, "write_file");
          json_builder_set_member_name (builder, "arguments");
          json_builder_begin_array (builder);
          json_builder_add_string_value (builder, "{\"content\":\"");
          json_builder_end_array (builder);
          json_builder_end_object (builder);
          json_builder_end_object (builder);
          if (dialects[i].provider == SK_LLM_PROVIDER_OPENAI)
            piece = g_strdup_printf ("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":"
                                     "[{\"index\":0,\"function\":{\"arguments\":\"%s\"}}]}}]}\n\n",
                                     filler);
          else
            piece = g_strdup_printf ("event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
                                     "\"index\":0,\"delta\":{\"type\":\"input_json_delta\","
                                     "\"partial_json\":\"%s\"}}\n\n", filler);
        }
      /* Gigabytes, were they all read. */
      parts_add_raw (builder, piece, strlen (piece), 100000);
      parts_push (fake, builder);

      run_call (client, NULL, NULL, &call);
      g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_TOO_LARGE);
      if (dialects[i].provider == SK_LLM_PROVIDER_OLLAMA)
        {
          sk_test_assert_contains (call.error->message, "more than 100 tools");
          g_assert_cmpuint (call.partial->tool_calls->len, ==, 100);
        }
      else
        {
          sk_test_assert_contains (call.error->message, "grew beyond 8 MiB");
          g_assert_cmpuint (call.partial->tool_calls->len, ==, 1);
        }
      for (guint j = 0; j < call.partial->tool_calls->len; j++)
        total += strlen (((SkLlmToolCall *) g_ptr_array_index (call.partial->tool_calls, j))->arguments);
      g_assert_cmpuint (total, <=, 8 * 1024 * 1024);

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

/* A 200 MB line without a line end is refused once it passes 4 MiB. */
static void
test_long_line (void)
{
  g_autofree char *filler = g_strnfill (64 * 1024, 'a');

  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      g_autoptr(SkLlmClient) client = client_for (fake, &dialects[i]);
      JsonBuilder *builder = parts_begin ();
      const char *head = dialects[i].provider == SK_LLM_PROVIDER_OLLAMA
                         ? "{\"message\":{\"role\":\"assistant\",\"content\":\""
                         : "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"";
      Call call = { 0 };

      parts_add_text (builder, "Hel");
      parts_add_raw (builder, head, strlen (head), 1);
      parts_add_raw (builder, filler, strlen (filler), 3200);
      parts_push (fake, builder);

      run_call (client, NULL, NULL, &call);
      g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_TOO_LARGE);
      sk_test_assert_contains (call.error->message, "longer than 4 MiB");
      g_assert_cmpstr (call.partial->text, ==, "Hel");

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

/* An event nested 100 000 levels deep would exhaust json-glib's stack. */
static void
test_deep_nesting (void)
{
  g_autofree char *brackets = g_strnfill (100000, '[');

  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      g_autoptr(SkLlmClient) client = client_for (fake, &dialects[i]);
      JsonBuilder *builder = parts_begin ();
      g_autofree char *event = NULL;
      Call call = { 0 };

      event = dialects[i].provider == SK_LLM_PROVIDER_OLLAMA
              ? g_strconcat (brackets, "\n", NULL)
              : g_strconcat ("data: ", brackets, "\n\n", NULL);
      parts_add_text (builder, "Hel");
      parts_add_raw (builder, event, strlen (event), 1);
      parts_push (fake, builder);

      run_call (client, NULL, NULL, &call);
      g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL);
      sk_test_assert_contains (call.error->message, "nested more than 512 levels");
      g_assert_cmpstr (call.partial->text, ==, "Hel");
      call_clear (&call);

      /* Nor does an error body or a list of models so nested crash. */
      {
        g_autoptr(JsonBuilder) bodies = json_builder_new ();
        g_autoptr(JsonNode) root = NULL;
        g_autofree char *json = NULL;
        g_autoptr(GError) error = NULL;
        ListCall list = { 0 };

        json_builder_begin_array (bodies);
        json_builder_begin_object (bodies);
        json_builder_set_member_name (bodies, "status");
        json_builder_add_int_value (bodies, 400);
        json_builder_set_member_name (bodies, "body");
        json_builder_add_string_value (bodies, brackets);
        json_builder_end_object (bodies);
        json_builder_begin_object (bodies);
        json_builder_set_member_name (bodies, "path");
        json_builder_add_string_value (bodies, dialects[i].provider == SK_LLM_PROVIDER_OLLAMA
                                                ? "/api/tags" : "/v1/models");
        json_builder_set_member_name (bodies, "body");
        json_builder_add_string_value (bodies, brackets);
        json_builder_end_object (bodies);
        json_builder_end_array (bodies);
        root = json_builder_get_root (bodies);
        json = json_to_string (root, FALSE);
        sk_fake_llm_push_json (fake, json, &error);
        g_assert_no_error (error);

        run_call (client, NULL, NULL, &call);
        g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_BAD_REQUEST);
        call_clear (&call);

        sk_llm_client_list_models_async (client, NULL, list_cb, &list);
        SK_TEST_WAIT_UNTIL (list.done, 10000);
        g_assert_error (list.error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL);
        g_clear_error (&list.error);
      }

      sk_fake_llm_free (fake);
    }
}

/* Members of unexpected types are ignored without a critical (the tests
 * run with fatal warnings); Ollama's "done": [] is not done.
 */
static void
test_unexpected_types (void)
{
  static const char ollama[] =
    "{\"message\":{\"role\":\"assistant\",\"content\":\"Hel\"},\"done\":[]}\n"
    "{\"message\":[],\"done\":\"true\"}\n"
    "{\"message\":{\"content\":5,\"thinking\":{},\"tool_calls\":{}},\"done\":{},\"done_reason\":[]}\n"
    "{\"message\":{\"content\":\"lo\",\"tool_calls\":[5,[]]},\"done\":null}\n";
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(SkLlmClient) client = client_for (fake, &dialects[1]);
  JsonBuilder *builder = parts_begin ();
  Call call = { 0 };

  parts_add_raw (builder, ollama, strlen (ollama), 1);
  parts_push (fake, builder);

  run_call (client, NULL, NULL, &call);
  g_assert_no_error (call.error);
  g_assert_cmpstr (call.response->text, ==, "Hello");
  g_assert_cmpuint (call.response->tool_calls->len, ==, 0);

  call_clear (&call);
  sk_fake_llm_free (fake);
}

/* A character cut short in the middle, across two HTTP chunks, arrives as
 * U+FFFD instead of bytes that are not UTF-8, and the rest of the event
 * is kept.
 */
static void
test_invalid_utf8 (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      g_autoptr(SkLlmClient) client = client_for (fake, &dialects[i]);
      JsonBuilder *builder = parts_begin ();
      const char *head, *tail;
      Call call = { 0 };

      switch (dialects[i].provider)
        {
        case SK_LLM_PROVIDER_OLLAMA:
          head = "{\"message\":{\"role\":\"assistant\",\"content\":\"x\xe2";
          tail = "\x9cy\"},\"done\":false}\n";
          break;
        case SK_LLM_PROVIDER_ANTHROPIC:
          head = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                 "\"delta\":{\"type\":\"text_delta\",\"text\":\"x\xe2";
          tail = "\x9cy\"}}\n\n";
          break;
        case SK_LLM_PROVIDER_OPENAI:
        default:
          head = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\xe2";
          tail = "\x9cy\"}}]}\n\n";
          break;
        }
      parts_add_text (builder, "Hel");
      parts_add_raw (builder, head, strlen (head), 1);
      parts_add_raw (builder, tail, strlen (tail), 1);
      parts_add_text (builder, "lo");
      parts_push (fake, builder);

      run_call (client, NULL, NULL, &call);
      g_assert_no_error (call.error);
      g_assert_true (g_utf8_validate (call.response->text, -1, NULL));
      g_assert_true (g_utf8_validate (call.text->str, call.text->len, NULL));
      g_assert_true (g_str_has_prefix (call.response->text, "Helx\xef\xbf\xbd"));
      g_assert_true (g_str_has_suffix (call.response->text, "\xef\xbf\xbdylo"));

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

static gboolean
never_answer_cb (GSocketService    *service,
                 GSocketConnection *connection,
                 GObject           *source_object,
                 gpointer           user_data)
{
  GPtrArray *connections = user_data;

  /* Kept open, never read nor written. */
  g_ptr_array_add (connections, g_object_ref (connection));
  return TRUE;
}

/* A server that accepts the connection and never answers meets the idle
 * watchdog.
 */
static void
test_never_answers (void)
{
  g_autoptr(GSocketService) service = g_socket_service_new ();
  g_autoptr(GPtrArray) connections = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(SkLlmClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  Call call = { 0 };

  g_socket_listener_add_address (G_SOCKET_LISTENER (service), address, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error);
  g_assert_no_error (error);
  g_signal_connect (service, "incoming", G_CALLBACK (never_answer_cb), connections);
  g_socket_service_start (service);

  url = g_strdup_printf ("http://127.0.0.1:%u/v1",
                         g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective)));
  client = sk_llm_client_new (SK_LLM_PROVIDER_OPENAI, url, "fake", NULL);
  sk_llm_client_set_idle_timeout (client, 1);
  sk_llm_client_set_max_retries (client, 0);
  run_call (client, NULL, NULL, &call);
  g_assert_error (call.error, SK_LLM_ERROR, SK_LLM_ERROR_TIMEOUT);
  sk_test_assert_contains (call.error->message, "sent nothing for 1 seconds");
  g_assert_cmpuint (connections->len, ==, 1);

  call_clear (&call);
  g_socket_service_stop (service);
  g_socket_listener_close (G_SOCKET_LISTENER (service));
}

/* A 500 is asked again, and the 200 that follows is the reply. */
static void
test_server_error_then_success (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dialects); i++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      g_autoptr(SkLlmClient) client = client_for (fake, &dialects[i]);
      g_autoptr(GError) error = NULL;
      Call call = { 0 };

      sk_fake_llm_push_json (fake, "[{\"status\":500,\"error\":{\"message\":\"boom\"}},"
                                   "{\"scenario\":\"plain-text\"}]", &error);
      g_assert_no_error (error);

      run_call (client, NULL, NULL, &call);
      g_assert_no_error (call.error);
      g_assert_cmpstr (call.response->text, ==, "Hello");
      g_assert_cmpuint (call.retries->len, ==, 1);
      sk_test_assert_contains (g_ptr_array_index (call.retries, 0), "boom");
      g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 2);

      call_clear (&call);
      sk_fake_llm_free (fake);
    }
}

/* The limits of the stream parser alone. */
static void
test_stream_limits (void)
{
  g_autofree char *filler = g_strnfill (64 * 1024, 'a');
  g_autofree char *data_line = g_strconcat ("data: ", filler, "\n", NULL);
  g_autofree char *brackets = g_strnfill (100000, '[');
  g_autofree char *deep = g_strconcat ("{\"a\":", brackets, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) arguments = NULL;
  SkLlmToolCall *call;

  /* A line that never ends stops at 4 MiB, before the buffer passes it. */
  {
    g_autoptr(SkLlmStream) stream = sk_llm_stream_new (SK_LLM_PROVIDER_OPENAI, NULL, NULL);
    guint fed = 0;

    sk_llm_stream_feed (stream, "data: ", 6, &error);
    g_assert_no_error (error);
    while (sk_llm_stream_feed (stream, filler, strlen (filler), &error))
      fed++;
    g_assert_error (error, SK_LLM_ERROR, SK_LLM_ERROR_TOO_LARGE);
    g_assert_cmpuint (fed, <, 64);
    g_clear_error (&error);
    /* Nothing more is taken after the error. */
    g_assert_false (sk_llm_stream_feed (stream, "\n\n", 2, &error));
    g_assert_error (error, SK_LLM_ERROR, SK_LLM_ERROR_TOO_LARGE);
    g_clear_error (&error);
  }

  /* Data lines add up to one event until an empty line. */
  {
    g_autoptr(SkLlmStream) stream = sk_llm_stream_new (SK_LLM_PROVIDER_ANTHROPIC, NULL, NULL);
    guint fed = 0;

    while (sk_llm_stream_feed (stream, data_line, strlen (data_line), &error))
      fed++;
    g_assert_error (error, SK_LLM_ERROR, SK_LLM_ERROR_TOO_LARGE);
    g_assert_cmpuint (fed, <, 64);
    g_clear_error (&error);
  }

  /* The text and thinking of a reply stop at 8 MiB in all. */
  {
    g_autoptr(SkLlmStream) stream = sk_llm_stream_new (SK_LLM_PROVIDER_OLLAMA, NULL, NULL);
    g_autoptr(SkLlmResponse) partial = NULL;
    g_autofree char *line = g_strdup_printf ("{\"message\":{\"content\":\"%s\",\"thinking\":\"%s\"},"
                                             "\"done\":false}\n", filler, filler);
    guint fed = 0;

    while (sk_llm_stream_feed (stream, line, strlen (line), &error))
      fed++;
    g_assert_error (error, SK_LLM_ERROR, SK_LLM_ERROR_TOO_LARGE);
    sk_test_assert_contains (error->message, "The model’s reply grew beyond 8 MiB");
    g_assert_cmpuint (fed, ==, 64);
    g_clear_error (&error);
    partial = sk_llm_stream_steal_response (stream);
    g_assert_cmpuint (strlen (partial->text) + strlen (partial->reasoning), <=, 8 * 1024 * 1024);
  }

  /* An escaped lone surrogate does not reach the caller as bytes that are
   * not UTF-8. */
  {
    static const char lone[] =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\ud800b\",\"tool_calls\":"
      "[{\"index\":0,\"id\":\"c\\ud800c\",\"function\":{\"name\":\"n\\ud800n\",\"arguments\":\"\\ud800a\"}}]}}]}\n\n"
      "data: [DONE]\n\n";
    g_autoptr(SkLlmStream) stream = sk_llm_stream_new (SK_LLM_PROVIDER_OPENAI, NULL, NULL);
    g_autoptr(SkLlmResponse) response = NULL;

    sk_llm_stream_feed (stream, lone, strlen (lone), &error);
    g_assert_no_error (error);
    sk_llm_stream_finish (stream, &error);
    g_assert_no_error (error);
    response = sk_llm_stream_steal_response (stream);
    g_assert_true (g_utf8_validate (response->text, -1, NULL));
    g_assert_true (g_str_has_prefix (response->text, "a"));
    call = g_ptr_array_index (response->tool_calls, 0);
    g_assert_true (g_utf8_validate (call->id, -1, NULL));
    g_assert_true (g_utf8_validate (call->name, -1, NULL));
    g_assert_true (g_utf8_validate (call->arguments, -1, NULL));
  }

  /* Deeply nested arguments, pieced together from fragments, are refused
   * before json-glib sees them. */
  call = sk_llm_tool_call_new ("c", "write_file", deep);
  arguments = sk_llm_tool_call_parse_arguments (call, &error);
  g_assert_null (arguments);
  g_assert_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL);
  sk_test_assert_contains (error->message, "nested more than 512 levels");
  sk_llm_tool_call_free (call);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/llm-client/plain-text", test_plain_text);
  g_test_add_func ("/llm-client/utf8-split", test_utf8_split);
  g_test_add_func ("/llm-client/tool-call-fragments", test_tool_call_fragments);
  g_test_add_func ("/llm-client/multiple-tool-calls", test_multiple_tool_calls);
  g_test_add_func ("/llm-client/usage", test_usage);
  g_test_add_func ("/llm-client/retry/rate-limit", test_rate_limit);
  g_test_add_func ("/llm-client/retry/retry-after-too-long", test_retry_after_too_long);
  g_test_add_func ("/llm-client/retry/backoff", test_backoff_without_header);
  g_test_add_func ("/llm-client/retry/overloaded", test_overloaded);
  g_test_add_func ("/llm-client/retry/server-error", test_server_error);
  g_test_add_func ("/llm-client/errors/no-retry", test_no_retry_errors);
  g_test_add_func ("/llm-client/errors/context-too-long", test_context_too_long);
  g_test_add_func ("/llm-client/errors/malformed", test_malformed);
  g_test_add_func ("/llm-client/errors/dropped", test_dropped);
  g_test_add_func ("/llm-client/errors/mid-stream", test_mid_stream_error);
  g_test_add_func ("/llm-client/errors/server-down", test_server_down);
  g_test_add_func ("/llm-client/errors/not-configured", test_not_configured);
  g_test_add_func ("/llm-client/slow-stream-cancel", test_slow_stream_cancel);
  g_test_add_func ("/llm-client/silent-stream", test_silent_stream);
  g_test_add_func ("/llm-client/request-bodies", test_request_bodies);
  g_test_add_func ("/llm-client/models", test_list_models);
  g_test_add_func ("/llm-client/models-refused", test_list_models_refused);
  g_test_add_func ("/llm-client/stream/byte-by-byte", test_stream_byte_by_byte);
  g_test_add_func ("/llm-client/stream/errors", test_stream_errors);
  g_test_add_func ("/llm-client/huge", test_huge);
  g_test_add_func ("/llm-client/models-pages", test_models_pages);
  g_test_add_func ("/llm-client/hostile/endless-tiny-chunks", test_endless_tiny_chunks);
  g_test_add_func ("/llm-client/hostile/endless-tool-arguments", test_endless_tool_arguments);
  g_test_add_func ("/llm-client/hostile/long-line", test_long_line);
  g_test_add_func ("/llm-client/hostile/deep-nesting", test_deep_nesting);
  g_test_add_func ("/llm-client/hostile/unexpected-types", test_unexpected_types);
  g_test_add_func ("/llm-client/hostile/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/llm-client/hostile/never-answers", test_never_answers);
  g_test_add_func ("/llm-client/hostile/server-error-then-success", test_server_error_then_success);
  g_test_add_func ("/llm-client/hostile/stream-limits", test_stream_limits);
  for (guint i = 0; i < G_N_ELEMENTS (scenario_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/llm-client/scenario/%s/%s", scenario_cases[i].scenario,
                                               dialects[scenario_cases[i].dialect].name);

      g_test_add_data_func (path, &scenario_cases[i], test_scenario);
    }

  return g_test_run ();
}
