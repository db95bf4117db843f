/* test-fake-llm.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Checks that the fake LLM server serves each scenario byte for byte, in
 * each dialect, chunk for chunk. Two clients read it: a SoupSession, as the
 * app will, and a raw socket that decodes the chunked framing itself, since
 * a SoupSession hides where the HTTP chunks begin and end.
 */

#define G_LOG_DOMAIN "test-fake-llm"

#include <string.h>

#include <json-glib/json-glib.h>

#include "sk-fake-llm.h"
#include "sk-test-util.h"

/* §7 notation of docs LLM_PROTOCOLS.md: C(D,F), R and DONE. */
#define OA_HEAD "data: {\"id\":\"chatcmpl-T\",\"object\":\"chat.completion.chunk\"," \
                "\"created\":1700000000,\"model\":\"fake\",\"choices\":[{\"index\":0,\"delta\":"
#define C(D, F) OA_HEAD D ",\"finish_reason\":" F "}]}\n\n"
#define CU(D, F) OA_HEAD D ",\"finish_reason\":" F "}],\"usage\":null}\n\n"
#define R C ("{\"role\":\"assistant\",\"content\":\"\"}", "null")
#define DONE "data: [DONE]\n\n"

#define OL(MSG) "{\"model\":\"fake\",\"created_at\":\"2023-11-14T22:13:20Z\"," \
                "\"message\":{\"role\":\"assistant\"," MSG "},\"done\":false}\n"
#define OL_DONE(P, E) "{\"model\":\"fake\",\"created_at\":\"2023-11-14T22:13:20Z\"," \
                      "\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true," \
                      "\"done_reason\":\"stop\",\"total_duration\":123456789," \
                      "\"load_duration\":1234567,\"prompt_eval_count\":" P "," \
                      "\"prompt_eval_duration\":2345678,\"eval_count\":" E "," \
                      "\"eval_duration\":3456789}\n"

#define EV(TYPE, REST) "event: " TYPE "\ndata: {\"type\":\"" TYPE "\"" REST "}\n\n"
#define AN_START EV ("message_start", ",\"message\":{\"id\":\"msg_T\",\"type\":\"message\"," \
                     "\"role\":\"assistant\",\"model\":\"fake\",\"content\":[]," \
                     "\"stop_reason\":null,\"stop_sequence\":null," \
                     "\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}")
#define AN_TEXT_START(I) EV ("content_block_start", ",\"index\":" I \
                             ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}")
#define AN_TEXT(I, T) EV ("content_block_delta", ",\"index\":" I \
                          ",\"delta\":{\"type\":\"text_delta\",\"text\":\"" T "\"}")
#define AN_JSON(I, T) EV ("content_block_delta", ",\"index\":" I \
                          ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"" T "\"}")
#define AN_STOP(I) EV ("content_block_stop", ",\"index\":" I)
#define AN_DELTA(SR, N) EV ("message_delta", ",\"delta\":{\"stop_reason\":\"" SR "\"," \
                            "\"stop_sequence\":null},\"usage\":{\"output_tokens\":" N "}")
#define AN_END EV ("message_stop", "")

/* The arguments {"path":"a.c","text":"say \"hi\"\n"} cut after a backslash,
 * once JSON-encoded as OpenAI and Anthropic carry them.
 */
#define FRAG1 "{\\\"path\\\":\\\"a.c\\\",\\\"text\\\":\\\"say \\\\"
#define FRAG2 "\\\"hi\\\\\\\"\\\\n\\\"}"

static const char * const openai_plain[] = {
  R,
  C ("{\"content\":\"Hel\"}", "null"),
  C ("{\"content\":\"lo\"}", "null"),
  C ("{}", "\"stop\""),
  DONE,
  NULL
};

static const char * const ollama_plain[] = {
  OL ("\"content\":\"Hel\""),
  OL ("\"content\":\"lo\""),
  OL_DONE ("10", "2"),
  NULL
};

static const char * const anthropic_plain[] = {
  AN_START,
  AN_TEXT_START ("0"),
  AN_TEXT ("0", "Hel"),
  AN_TEXT ("0", "lo"),
  AN_STOP ("0"),
  AN_DELTA ("end_turn", "2"),
  AN_END,
  NULL
};

static const char * const openai_tool[] = {
  C ("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_1\","
     "\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":\"\"}}]}", "null"),
  C ("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"" FRAG1 "\"}}]}", "null"),
  C ("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"" FRAG2 "\"}}]}", "null"),
  C ("{}", "\"tool_calls\""),
  DONE,
  NULL
};

static const char * const ollama_tool[] = {
  OL ("\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"write_file\","
      "\"arguments\":{\"path\":\"a.c\",\"text\":\"say \\\"hi\\\"\\n\"}}}]"),
  OL_DONE ("10", "1"),
  NULL
};

static const char * const anthropic_tool[] = {
  AN_START,
  EV ("content_block_start", ",\"index\":0,\"content_block\":{\"type\":\"tool_use\","
      "\"id\":\"call_1\",\"name\":\"write_file\",\"input\":{}}"),
  AN_JSON ("0", FRAG1),
  AN_JSON ("0", FRAG2),
  AN_STOP ("0"),
  AN_DELTA ("tool_use", "1"),
  AN_END,
  NULL
};

static const char * const openai_multi[] = {
  C ("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_1\","
     "\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]}", "null"),
  C ("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\":\"}}]}", "null"),
  C ("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"a.c\\\"}\"}}]}", "null"),
  C ("{\"tool_calls\":[{\"index\":1,\"id\":\"call_2\",\"type\":\"function\","
     "\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]}", "null"),
  C ("{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"{\\\"path\\\":\\\"b.c\\\"}\"}}]}",
     "null"),
  C ("{}", "\"tool_calls\""),
  DONE,
  NULL
};

static const char * const openai_usage[] = {
  CU ("{\"role\":\"assistant\",\"content\":\"\"}", "null"),
  CU ("{\"content\":\"Hel\"}", "null"),
  CU ("{\"content\":\"lo\"}", "null"),
  CU ("{}", "\"stop\""),
  "data: {\"id\":\"chatcmpl-T\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
  "\"model\":\"fake\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":2,"
  "\"total_tokens\":14}}\n\n",
  DONE,
  NULL
};

static const char * const openai_malformed[] = {
  R,
  "data: {\"id\":\"chatcmpl-T\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"oops\"}}\n\n",
  C ("{}", "\"stop\""),
  DONE,
  NULL
};

static const char * const openai_mid_error[] = {
  R,
  C ("{\"content\":\"par\"}", "null"),
  "data: {\"error\":{\"message\":\"The server had an error while processing your request.\","
  "\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n",
  NULL
};

static const char * const openai_dropped[] = {
  R,
  C ("{\"content\":\"par\"}", "null"),
  NULL
};

static const char * const ollama_dropped[] = {
  OL ("\"content\":\"par\""),
  NULL
};

static const char * const anthropic_dropped[] = {
  AN_START,
  AN_TEXT_START ("0"),
  AN_TEXT ("0", "par"),
  NULL
};

#define CHAT_BODY "{\"model\":\"fake\",\"stream\":true," \
                  "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"

typedef struct
{
  guint               status;
  char               *reason;
  SoupMessageHeaders *headers;
  GBytes             *body;
  guint               n_reads;
  gint64              elapsed_us;
  GError             *error;
} Reply;

static void
reply_free (Reply *reply)
{
  g_free (reply->reason);
  g_clear_pointer (&reply->headers, soup_message_headers_unref);
  g_clear_pointer (&reply->body, g_bytes_unref);
  g_clear_error (&reply->error);
  g_free (reply);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reply, reply_free)

/* What the raw socket saw: the head, each HTTP chunk, and whether the
 * terminating 0-chunk came.
 */
typedef struct
{
  char      *head;
  GPtrArray *chunks;
  gboolean   terminated;
} RawReply;

static void
raw_reply_free (RawReply *raw)
{
  g_free (raw->head);
  g_ptr_array_unref (raw->chunks);
  g_free (raw);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RawReply, raw_reply_free)

static const char *
chat_path (SkFakeLlmDialect dialect)
{
  switch (dialect)
    {
    case SK_FAKE_LLM_DIALECT_OLLAMA:
      return "/api/chat";
    case SK_FAKE_LLM_DIALECT_ANTHROPIC:
      return "/v1/messages";
    case SK_FAKE_LLM_DIALECT_OPENAI:
    case SK_FAKE_LLM_DIALECT_NONE:
    default:
      return "/v1/chat/completions";
    }
}

static char *
chat_url (SkFakeLlm        *fake,
          SkFakeLlmDialect  dialect)
{
  const char *base = sk_fake_llm_get_base_url (fake, dialect);

  switch (dialect)
    {
    case SK_FAKE_LLM_DIALECT_OPENAI:
      return g_strconcat (base, "/chat/completions", NULL);
    case SK_FAKE_LLM_DIALECT_OLLAMA:
    case SK_FAKE_LLM_DIALECT_ANTHROPIC:
    case SK_FAKE_LLM_DIALECT_NONE:
    default:
      return g_strconcat (base, chat_path (dialect), NULL);
    }
}

/* Sends one request with a synchronous SoupSession; the server answers
 * from its own thread. Reads the body in small pieces and counts the reads.
 */
static Reply *
fetch (const char *method,
       const char *url,
       const char *body,
       const char *header_name,
       const char *header_value)
{
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(SoupMessage) msg = soup_message_new (method, url);
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GByteArray) data = g_byte_array_new ();
  Reply *reply = g_new0 (Reply, 1);
  gint64 start = g_get_monotonic_time ();
  guint8 buffer[64];

  g_assert_nonnull (msg);
  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));

      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
    }
  if (header_name != NULL)
    soup_message_headers_append (soup_message_get_request_headers (msg), header_name, header_value);

  stream = soup_session_send (session, msg, NULL, &reply->error);
  while (stream != NULL)
    {
      gssize n = g_input_stream_read (stream, buffer, sizeof buffer, NULL, &reply->error);

      if (n <= 0)
        break;
      reply->n_reads++;
      g_byte_array_append (data, buffer, n);
    }

  reply->status = soup_message_get_status (msg);
  reply->reason = g_strdup (soup_message_get_reason_phrase (msg));
  reply->headers = soup_message_headers_ref (soup_message_get_response_headers (msg));
  reply->body = g_byte_array_free_to_bytes (g_steal_pointer (&data));
  reply->elapsed_us = g_get_monotonic_time () - start;

  return reply;
}

static Reply *
fetch_chat (SkFakeLlm        *fake,
            SkFakeLlmDialect  dialect,
            const char       *body)
{
  g_autofree char *url = chat_url (fake, dialect);

  return fetch ("POST", url, body != NULL ? body : CHAT_BODY, "Authorization", "Bearer sk-test");
}

static gssize
find (const guint8 *data,
      gsize         size,
      gsize         from,
      const char   *needle)
{
  gsize length = strlen (needle);

  for (gsize i = from; i + length <= size; i++)
    if (memcmp (data + i, needle, length) == 0)
      return i;

  return -1;
}

/* Decodes chunked transfer coding by hand. */
static void
parse_chunks (RawReply     *raw,
              const guint8 *data,
              gsize         size,
              gsize         pos)
{
  while (pos < size)
    {
      gssize eol = find (data, size, pos, "\r\n");
      g_autofree char *line = NULL;
      guint64 chunk_size;

      if (eol < 0)
        break;
      line = g_strndup ((const char *) data + pos, eol - pos);
      chunk_size = g_ascii_strtoull (line, NULL, 16);
      pos = eol + 2;
      if (chunk_size == 0)
        {
          raw->terminated = TRUE;
          break;
        }
      g_ptr_array_add (raw->chunks, g_bytes_new (data + pos, MIN (chunk_size, size - pos)));
      pos += chunk_size + 2;
    }
}

static RawReply *
raw_fetch_full (SkFakeLlm  *fake,
                const char *path,
                const char *body,
                gboolean    hang_up_after_first_chunk)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *request = NULL;
  RawReply *raw = g_new0 (RawReply, 1);
  GInputStream *in;
  gssize head_end;
  guint8 buffer[4096];

  raw->chunks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  connection = g_socket_client_connect_to_host (client, "127.0.0.1", sk_fake_llm_get_port (fake),
                                                NULL, &error);
  g_assert_no_error (error);

  request = g_strdup_printf ("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                             "Content-Type: application/json\r\nContent-Length: %zu\r\n"
                             "Connection: close\r\n\r\n%s",
                             path, sk_fake_llm_get_port (fake), strlen (body), body);
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)),
                             request, strlen (request), NULL, NULL, &error);
  g_assert_no_error (error);

  in = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  for (;;)
    {
      gssize n = g_input_stream_read (in, buffer, sizeof buffer, NULL, NULL);

      if (n <= 0)
        break;
      g_byte_array_append (data, buffer, n);
      head_end = find (data->data, data->len, 0, "\r\n\r\n");
      if (hang_up_after_first_chunk && head_end >= 0 &&
          find (data->data, data->len, head_end + 4, "\r\n") >= 0)
        break;
    }
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);

  head_end = find (data->data, data->len, 0, "\r\n\r\n");
  g_assert_cmpint (head_end, >, 0);
  raw->head = g_strndup ((const char *) data->data, head_end);
  if (strstr (raw->head, "Transfer-Encoding: chunked") != NULL)
    parse_chunks (raw, data->data, data->len, head_end + 4);

  return raw;
}

static RawReply *
raw_fetch (SkFakeLlm        *fake,
           SkFakeLlmDialect  dialect)
{
  return raw_fetch_full (fake, chat_path (dialect), CHAT_BODY, FALSE);
}

static char *
join_chunks (GPtrArray *chunks)
{
  GString *all = g_string_new (NULL);

  for (guint i = 0; i < chunks->len; i++)
    {
      gsize size;
      const char *data = g_bytes_get_data (g_ptr_array_index (chunks, i), &size);

      g_string_append_len (all, data, size);
    }

  return g_string_free (all, FALSE);
}

static char *
body_text (Reply *reply)
{
  gsize size;
  const char *data = g_bytes_get_data (reply->body, &size);

  return g_strndup (data, size);
}

static void
assert_chunks (GPtrArray          *chunks,
               const char * const *expected)
{
  for (guint i = 0; expected[i] != NULL; i++)
    {
      g_autofree char *chunk = NULL;
      gsize size;
      const char *data;

      g_assert_cmpuint (i, <, chunks->len);
      data = g_bytes_get_data (g_ptr_array_index (chunks, i), &size);
      chunk = g_strndup (data, size);
      g_assert_cmpstr (chunk, ==, expected[i]);
    }
  g_assert_cmpuint (chunks->len, ==, g_strv_length ((GStrv) expected));
}

/* The server counts from its own thread, which does not wake the test's
 * main context, so this polls.
 */
static void
wait_finished (SkFakeLlm *fake,
               guint      n)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (sk_fake_llm_get_n_finished (fake) < n && g_get_monotonic_time () < deadline)
    g_usleep (1000);
  g_assert_cmpuint (sk_fake_llm_get_n_finished (fake), ==, n);
}

static void
push (SkFakeLlm  *fake,
      const char *scenario)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (sk_fake_llm_push (fake, scenario, &error));
  g_assert_no_error (error);
}

static void
push_json (SkFakeLlm  *fake,
           const char *json)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (sk_fake_llm_push_json (fake, json, &error));
  g_assert_no_error (error);
}

typedef struct
{
  const char         *scenario;
  SkFakeLlmDialect    dialect;
  const char * const *expected;
  gboolean            terminated;
} StreamCase;

static const StreamCase stream_cases[] = {
  { "plain-text", SK_FAKE_LLM_DIALECT_OPENAI, openai_plain, TRUE },
  { "plain-text", SK_FAKE_LLM_DIALECT_OLLAMA, ollama_plain, TRUE },
  { "plain-text", SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_plain, TRUE },
  { "tool-call-fragments", SK_FAKE_LLM_DIALECT_OPENAI, openai_tool, TRUE },
  { "tool-call-fragments", SK_FAKE_LLM_DIALECT_OLLAMA, ollama_tool, TRUE },
  { "tool-call-fragments", SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_tool, TRUE },
  { "multiple-tool-calls", SK_FAKE_LLM_DIALECT_OPENAI, openai_multi, TRUE },
  { "usage-chunk", SK_FAKE_LLM_DIALECT_OPENAI, openai_usage, TRUE },
  { "malformed-json", SK_FAKE_LLM_DIALECT_OPENAI, openai_malformed, TRUE },
  { "mid-stream-error", SK_FAKE_LLM_DIALECT_OPENAI, openai_mid_error, TRUE },
  { "dropped", SK_FAKE_LLM_DIALECT_OPENAI, openai_dropped, FALSE },
  { "dropped", SK_FAKE_LLM_DIALECT_OLLAMA, ollama_dropped, FALSE },
  { "dropped", SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_dropped, FALSE },
};

static const char *
dialect_name (SkFakeLlmDialect dialect)
{
  static const char * const names[] = { "openai", "ollama", "anthropic", "none" };

  return names[dialect];
}

/* Each scenario is served twice: once to the raw socket, which checks every
 * HTTP chunk and the terminator, once to a SoupSession, which must read the
 * same bytes.
 */
static void
test_stream (gconstpointer data)
{
  const StreamCase *test = data;
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(RawReply) raw = NULL;
  g_autoptr(Reply) reply = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  g_autofree char *expected = g_strjoinv ("", (GStrv) test->expected);
  g_autofree char *text = NULL;
  SkFakeLlmRequest *request;

  push (fake, test->scenario);
  push (fake, test->scenario);

  raw = raw_fetch (fake, test->dialect);
  g_assert_true (g_str_has_prefix (raw->head, "HTTP/1.1 200 OK\r\n"));
  sk_test_assert_contains (raw->head, test->dialect == SK_FAKE_LLM_DIALECT_OLLAMA ?
                           "Content-Type: application/x-ndjson" :
                           "Content-Type: text/event-stream");
  assert_chunks (raw->chunks, test->expected);
  g_assert_cmpint (raw->terminated, ==, test->terminated);

  reply = fetch_chat (fake, test->dialect, NULL);
  g_assert_cmpuint (reply->status, ==, 200);
  text = body_text (reply);
  g_assert_cmpstr (text, ==, expected);
  /* A truncated chunked body ends in a clean EOF for SoupSession (§7 fact 4). */
  if (test->terminated)
    g_assert_no_error (reply->error);
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers, "Transfer-Encoding"), ==,
                   "chunked");

  requests = sk_fake_llm_dup_requests (fake);
  g_assert_cmpuint (requests->len, ==, 2);
  request = g_ptr_array_index (requests, 1);
  g_assert_cmpstr (request->method, ==, "POST");
  g_assert_cmpstr (request->path, ==, chat_path (test->dialect));
  g_assert_cmpint (request->dialect, ==, test->dialect);
  g_assert_cmpstr (soup_message_headers_get_one (request->headers, "Authorization"), ==,
                   "Bearer sk-test");
  g_assert_cmpstr (soup_message_headers_get_content_type (request->headers, NULL), ==,
                   "application/json");
  g_assert_cmpmem (g_bytes_get_data (request->body, NULL), g_bytes_get_size (request->body),
                   CHAT_BODY, strlen (CHAT_BODY));
  g_assert_cmpuint (sk_fake_llm_get_n_pending (fake), ==, 0);

  sk_fake_llm_free (fake);
}

static gboolean
chunk_ends_with (GPtrArray *chunks,
                 guint8     byte)
{
  for (guint i = 0; i < chunks->len; i++)
    {
      gsize size;
      const guint8 *data = g_bytes_get_data (g_ptr_array_index (chunks, i), &size);

      if (size > 0 && data[size - 1] == byte)
        return TRUE;
    }

  return FALSE;
}

/* The split scenarios carry the same bytes as their unsplit twins, cut
 * inside lines and inside multi-byte characters.
 */
static void
test_split (void)
{
  for (SkFakeLlmDialect dialect = 0; dialect < SK_FAKE_LLM_DIALECT_NONE; dialect++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();
      g_autoptr(RawReply) whole = NULL;
      g_autoptr(RawReply) split = NULL;
      g_autoptr(RawReply) tool_whole = NULL;
      g_autoptr(RawReply) tool_split = NULL;
      g_autoptr(Reply) reply = NULL;
      g_autofree char *whole_text = NULL;
      g_autofree char *split_text = NULL;
      g_autofree char *tool_whole_text = NULL;
      g_autofree char *tool_split_text = NULL;
      g_autofree char *soup_text = NULL;

      g_test_message ("dialect %s", dialect_name (dialect));
      push_json (fake, "{\"parts\":[{\"text\":\"Héllo, \"},{\"text\":\"wörld ✓\"}]}");
      push (fake, "utf8-split");
      push (fake, "utf8-split");
      push_json (fake, "{\"parts\":[{\"text\":\"Voilà\"},{\"tool_call\":{\"id\":\"call_1\","
                       "\"name\":\"write_file\",\"arguments\":"
                       "[\"{\\\"path\\\":\\\"a.c\\\",\\\"text\\\":\\\"say \\\\\","
                       "\"\\\"hi\\\\\\\"\\\\n\\\"}\"]}}]}");
      push (fake, "tool-call-fragments-split");

      whole = raw_fetch (fake, dialect);
      split = raw_fetch (fake, dialect);
      reply = fetch_chat (fake, dialect, NULL);
      tool_whole = raw_fetch (fake, dialect);
      tool_split = raw_fetch (fake, dialect);

      whole_text = join_chunks (whole->chunks);
      split_text = join_chunks (split->chunks);
      soup_text = body_text (reply);
      g_assert_true (g_utf8_validate (whole_text, -1, NULL));
      g_assert_cmpstr (split_text, ==, whole_text);
      g_assert_cmpstr (soup_text, ==, whole_text);
      g_assert_true (split->terminated);
      g_assert_cmpuint (split->chunks->len, >, whole->chunks->len);
      for (guint i = 0; i < split->chunks->len; i++)
        g_assert_cmpuint (g_bytes_get_size (g_ptr_array_index (split->chunks, i)), <=, 7);
      /* Cut after the first byte of é (C3 A9) and of ✓ (E2 9C 93). */
      g_assert_true (chunk_ends_with (split->chunks, 0xC3));
      g_assert_true (chunk_ends_with (split->chunks, 0xE2));

      tool_whole_text = join_chunks (tool_whole->chunks);
      tool_split_text = join_chunks (tool_split->chunks);
      g_assert_cmpstr (tool_split_text, ==, tool_whole_text);
      g_assert_true (tool_split->terminated);
      g_assert_cmpuint (tool_split->chunks->len, >, tool_whole->chunks->len);
      g_assert_true (chunk_ends_with (tool_split->chunks, 0xC3));

      sk_fake_llm_free (fake);
    }
}

static void
assert_json_error (SkFakeLlm        *fake,
                   SkFakeLlmDialect  dialect,
                   const char       *body,
                   guint             status,
                   const char       *reason,
                   const char       *expected)
{
  g_autoptr(Reply) reply = fetch_chat (fake, dialect, body);
  g_autofree char *text = body_text (reply);

  g_assert_no_error (reply->error);
  g_assert_cmpuint (reply->status, ==, status);
  g_assert_cmpstr (reply->reason, ==, reason);
  g_assert_cmpstr (soup_message_headers_get_content_type (reply->headers, NULL), ==,
                   "application/json");
  g_assert_cmpstr (text, ==, expected);
}

static void
assert_plain_text (SkFakeLlm        *fake,
                   SkFakeLlmDialect  dialect,
                   const char * const *expected_chunks)
{
  g_autoptr(Reply) reply = fetch_chat (fake, dialect, NULL);
  g_autofree char *expected = g_strjoinv ("", (GStrv) expected_chunks);
  g_autofree char *text = body_text (reply);

  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpstr (text, ==, expected);
}

static void
test_rate_limit (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(Reply) reply = NULL;

  push (fake, "rate-limit-then-success");
  reply = fetch_chat (fake, SK_FAKE_LLM_DIALECT_OPENAI, NULL);
  g_assert_cmpuint (reply->status, ==, 429);
  g_assert_cmpstr (reply->reason, ==, "Too Many Requests");
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers, "Retry-After"), ==, "1");
  g_clear_pointer (&reply, reply_free);
  assert_plain_text (fake, SK_FAKE_LLM_DIALECT_OPENAI, openai_plain);

  push (fake, "rate-limit-then-success");
  assert_json_error (fake, SK_FAKE_LLM_DIALECT_OPENAI, NULL, 429, "Too Many Requests",
                     "{\"error\":{\"message\":\"Rate limit reached for requests\","
                     "\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}");
  assert_plain_text (fake, SK_FAKE_LLM_DIALECT_OPENAI, openai_plain);

  push (fake, "rate-limit-then-success");
  assert_json_error (fake, SK_FAKE_LLM_DIALECT_ANTHROPIC, NULL, 429, "Too Many Requests",
                     "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                     "\"message\":\"Rate limit reached for requests\"},\"request_id\":\"req_T\"}");
  assert_plain_text (fake, SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_plain);

  push (fake, "rate-limit-retry-after-ms");
  reply = fetch_chat (fake, SK_FAKE_LLM_DIALECT_OPENAI, NULL);
  g_assert_cmpuint (reply->status, ==, 429);
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers, "retry-after-ms"), ==, "250");
  g_assert_null (soup_message_headers_get_one (reply->headers, "Retry-After"));
  assert_plain_text (fake, SK_FAKE_LLM_DIALECT_OPENAI, openai_plain);

  push (fake, "overloaded-then-success");
  assert_json_error (fake, SK_FAKE_LLM_DIALECT_ANTHROPIC, NULL, 529, "Overloaded",
                     "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                     "\"message\":\"Overloaded\"},\"request_id\":\"req_T\"}");
  assert_plain_text (fake, SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_plain);

  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 10);
  sk_fake_llm_free (fake);
}

static void
test_errors (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  const char *gpt_body = "{\"model\":\"gpt-x\",\"messages\":[]}";

  push (fake, "unauthorized");
  assert_json_error (fake, SK_FAKE_LLM_DIALECT_OPENAI, NULL, 401, "Unauthorized",
                     "{\"error\":{\"message\":\"Incorrect API key provided.\","
                     "\"type\":\"invalid_request_error\",\"param\":null,"
                     "\"code\":\"invalid_api_key\"}}");
  push (fake, "unauthorized");
  assert_json_error (fake, SK_FAKE_LLM_DIALECT_OLLAMA, NULL, 401, "Unauthorized",
                     "{\"error\":\"unauthorized\"}");
  push (fake, "unauthorized");
  assert_json_error (fake, SK_FAKE_LLM_DIALECT_ANTHROPIC, NULL, 401, "Unauthorized",
                     "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
                     "\"message\":\"Incorrect API key provided.\"},\"request_id\":\"req_T\"}");

  push (fake, "model-not-found");
  assert_json_error (fake, SK_FAKE_LLM_DIALECT_OPENAI, gpt_body, 404, "Not Found",
                     "{\"error\":{\"message\":\"The model `gpt-x` does not exist or you do not "
                     "have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,"
                     "\"code\":\"model_not_found\"}}");
  push (fake, "model-not-found");
  assert_json_error (fake, SK_FAKE_LLM_DIALECT_OLLAMA, gpt_body, 404, "Not Found",
                     "{\"error\":\"model 'gpt-x' not found\"}");
  push (fake, "model-not-found");
  assert_json_error (fake, SK_FAKE_LLM_DIALECT_ANTHROPIC, gpt_body, 404, "Not Found",
                     "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":"
                     "\"The model `gpt-x` does not exist or you do not have access to it.\"},"
                     "\"request_id\":\"req_T\"}");

  push (fake, "server-error");
  g_assert_cmpuint (sk_fake_llm_get_n_pending (fake), ==, 3);
  for (guint i = 0; i < 3; i++)
    assert_json_error (fake, SK_FAKE_LLM_DIALECT_OPENAI, NULL, 500, "Internal Server Error",
                       "{\"error\":{\"message\":\"The server had an error while processing your "
                       "request.\",\"type\":\"server_error\",\"param\":null,\"code\":null}}");

  /* With the queue empty, a chat request gets a 500 that says so. */
  assert_json_error (fake, SK_FAKE_LLM_DIALECT_OPENAI, NULL, 500, "Internal Server Error",
                     "{\"error\":{\"message\":\"fake-llm: no scripted response left\","
                     "\"type\":\"server_error\",\"param\":null,\"code\":null}}");

  sk_fake_llm_free (fake);
}

/* Both clients see a dropped stream end early: the raw one without the
 * 0-chunk, the SoupSession one at a clean EOF.
 */
static void
test_dropped_finishes (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(Reply) reply = NULL;
  g_autofree char *text = NULL;

  push (fake, "dropped");
  reply = fetch_chat (fake, SK_FAKE_LLM_DIALECT_OPENAI, NULL);
  text = body_text (reply);
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_null (strstr (text, "[DONE]"));
  g_assert_true (g_str_has_suffix (text, C ("{\"content\":\"par\"}", "null")));
  wait_finished (fake, 1);

  /* The server still answers after a drop. */
  push (fake, "plain-text");
  assert_plain_text (fake, SK_FAKE_LLM_DIALECT_OPENAI, openai_plain);

  sk_fake_llm_free (fake);
}

static void
test_slow (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(Reply) reply = NULL;
  g_autofree char *text = NULL;

  push_json (fake, "{\"delay_ms\":100,\"parts\":[{\"text\":\"a\"},{\"text\":\"b\"},"
                   "{\"text\":\"c\"},{\"text\":\"d\"}]}");
  reply = fetch_chat (fake, SK_FAKE_LLM_DIALECT_OPENAI, NULL);
  text = body_text (reply);
  g_assert_no_error (reply->error);
  g_assert_true (g_str_has_suffix (text, C ("{\"content\":\"d\"}", "null")
                                         C ("{}", "\"stop\"") DONE));
  /* Six gaps of 100 ms: before a, b, c, d, the finish chunk and [DONE]. */
  g_assert_cmpint (reply->elapsed_us, >=, 550 * 1000);
  g_test_message ("%u reads for 7 chunks", reply->n_reads);
  g_assert_cmpuint (reply->n_reads, >=, 3);

  /* A delay on one part holds back the chunk that carries it. */
  g_clear_pointer (&reply, reply_free);
  push_json (fake, "{\"parts\":[{\"ping\":true},{\"text\":\"x\",\"delay_ms\":300}]}");
  reply = fetch_chat (fake, SK_FAKE_LLM_DIALECT_OPENAI, NULL);
  g_assert_cmpint (reply->elapsed_us, >=, 280 * 1000);
  g_clear_pointer (&text, g_free);
  text = body_text (reply);
  g_assert_true (g_str_has_prefix (text, ": ping\n\n" R C ("{\"content\":\"x\"}", "null")));

  /* Ollama has no keep-alive, but the silence stays. */
  g_clear_pointer (&reply, reply_free);
  push_json (fake, "{\"parts\":[{\"ping\":true,\"delay_ms\":300},{\"text\":\"x\"}]}");
  reply = fetch_chat (fake, SK_FAKE_LLM_DIALECT_OLLAMA, NULL);
  g_assert_cmpint (reply->elapsed_us, >=, 280 * 1000);
  g_clear_pointer (&text, g_free);
  text = body_text (reply);
  g_assert_true (g_str_has_prefix (text, OL ("\"content\":\"x\"")));

  sk_fake_llm_free (fake);
}

/* A client that hangs up mid-stream must not upset the server (§7 fact 6). */
static void
test_client_hangs_up (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(RawReply) raw = NULL;

  push_json (fake, "{\"delay_ms\":20,\"parts\":[{\"text\":\"x\",\"repeat\":200}]}");
  raw = raw_fetch_full (fake, "/v1/chat/completions", CHAT_BODY, TRUE);
  g_assert_false (raw->terminated);
  wait_finished (fake, 1);

  push (fake, "plain-text");
  assert_plain_text (fake, SK_FAKE_LLM_DIALECT_OPENAI, openai_plain);

  /* Freeing the server in the middle of a stream is fine too. */
  push (fake, "slow-stream");
  g_clear_pointer (&raw, raw_reply_free);
  raw = raw_fetch_full (fake, "/v1/chat/completions", CHAT_BODY, TRUE);
  sk_fake_llm_free (fake);
}

static void
test_raw_chunks (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(RawReply) raw = NULL;
  static const char * const expected[] = {
    "data: {\"x\":\"caf\xc3",
    "\xa9\"}\n\n",
    "error: {\"code\":500}\n\n",
    NULL
  };

  /* "w6k=" is base64 for the second half of é and what follows it. */
  push_json (fake, "{\"status\":200,\"headers\":{\"X-Fake\":\"yes\"},\"chunks\":["
                   "{\"data_base64\":\"ZGF0YTogeyJ4IjoiY2Fmww==\"},"
                   "{\"data_base64\":\"qSJ9Cgo=\",\"delay_ms\":50},"
                   "{\"data\":\"error: {\\\"code\\\":500}\\n\\n\"}],\"drop\":true}");
  raw = raw_fetch (fake, SK_FAKE_LLM_DIALECT_OLLAMA);
  sk_test_assert_contains (raw->head, "X-Fake: yes");
  sk_test_assert_contains (raw->head, "Content-Type: text/event-stream");
  assert_chunks (raw->chunks, expected);
  g_assert_false (raw->terminated);

  sk_fake_llm_free (fake);
}

static JsonNode *
parse (Reply *reply)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = body_text (reply);

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);

  return json_node_ref (json_parser_get_root (parser));
}

static void
test_models (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  const char *openai_base = sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_OPENAI);
  const char *root_base = sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_ANTHROPIC);
  g_autofree char *openai = g_strconcat (openai_base, "/models", NULL);
  g_autofree char *tags = g_strconcat (root_base, "/api/tags", NULL);
  g_autofree char *anthropic = g_strconcat (root_base, "/v1/models", NULL);
  g_autofree char *health = g_strconcat (root_base, "/health", NULL);
  g_autoptr(Reply) reply = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  JsonArray *array;
  JsonObject *object;

  g_assert_true (g_str_has_suffix (openai, "/v1/models"));
  sk_fake_llm_set_models (fake, SK_TEST_STRV ("llama3.2:3b", "qwen2.5-coder:7b"));
  /* A queued chat response does not answer a listing. */
  push (fake, "plain-text");

  reply = fetch ("GET", openai, NULL, "Authorization", "Bearer sk-test");
  g_assert_cmpuint (reply->status, ==, 200);
  text = body_text (reply);
  g_assert_cmpstr (text, ==, "{\"object\":\"list\",\"data\":["
                   "{\"id\":\"llama3.2:3b\",\"object\":\"model\",\"created\":1700000000,"
                   "\"owned_by\":\"fake-llm\"},"
                   "{\"id\":\"qwen2.5-coder:7b\",\"object\":\"model\",\"created\":1700000000,"
                   "\"owned_by\":\"fake-llm\"}]}");
  g_clear_pointer (&reply, reply_free);

  reply = fetch ("GET", tags, NULL, NULL, NULL);
  root = parse (reply);
  array = json_object_get_array_member (json_node_get_object (root), "models");
  g_assert_cmpuint (json_array_get_length (array), ==, 2);
  object = json_array_get_object_element (array, 1);
  g_assert_cmpstr (json_object_get_string_member (object, "name"), ==, "qwen2.5-coder:7b");
  g_assert_cmpstr (json_object_get_string_member (object, "model"), ==, "qwen2.5-coder:7b");
  g_assert_true (json_object_has_member (json_object_get_object_member (object, "details"),
                                         "parameter_size"));
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&root, json_node_unref);

  reply = fetch ("GET", anthropic, NULL, "anthropic-version", "2023-06-01");
  root = parse (reply);
  object = json_node_get_object (root);
  g_assert_false (json_object_get_boolean_member (object, "has_more"));
  g_assert_cmpstr (json_object_get_string_member (object, "last_id"), ==, "qwen2.5-coder:7b");
  object = json_array_get_object_element (json_object_get_array_member (object, "data"), 0);
  g_assert_cmpstr (json_object_get_string_member (object, "type"), ==, "model");
  g_assert_cmpstr (json_object_get_string_member (object, "id"), ==, "llama3.2:3b");
  g_clear_pointer (&reply, reply_free);

  /* A response scripted for a path answers that path once. */
  push (fake, "model-loading");
  reply = fetch ("GET", health, NULL, NULL, NULL);
  g_assert_cmpuint (reply->status, ==, 503);
  g_clear_pointer (&text, g_free);
  text = body_text (reply);
  sk_test_assert_contains (text, "\"Loading model\"");
  g_clear_pointer (&reply, reply_free);
  reply = fetch ("GET", health, NULL, NULL, NULL);
  g_assert_cmpuint (reply->status, ==, 200);

  g_assert_cmpuint (sk_fake_llm_get_n_pending (fake), ==, 1);
  sk_fake_llm_free (fake);
}

static void
test_scenarios (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  const char * const *names = sk_fake_llm_get_builtin_scenarios ();
  g_autofree char *example = g_test_build_filename (G_TEST_DIST, "fake-llm", "scenarios",
                                                    "example.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(Reply) reply = NULL;
  g_autofree char *text = NULL;

  for (guint i = 0; names[i] != NULL; i++)
    push (fake, names[i]);
  g_assert_cmpuint (sk_fake_llm_get_n_pending (fake), >=, g_strv_length ((GStrv) names));

  g_assert_false (sk_fake_llm_push (fake, "no-such-scenario", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (sk_fake_llm_push_json (fake, "{\"parts\":[{\"txet\":\"typo\"}]}", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  g_assert_false (sk_fake_llm_push_json (fake, "{\"stauts\":200}", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  sk_fake_llm_free (fake);

  /* The example file defines its own scenario and queues responses. */
  fake = sk_fake_llm_new ();
  g_assert_true (sk_fake_llm_load_scenario_file (fake, example, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sk_fake_llm_get_n_pending (fake), >, 0);
  reply = fetch_chat (fake, SK_FAKE_LLM_DIALECT_OPENAI, NULL);
  text = body_text (reply);
  g_assert_cmpstr (text, ==, "data: {\"id\":\"chatcmpl-T\",\"object\":\"chat.completion.chunk\","
                   "\"created\":1700000000,\"model\":\"example-model\",\"choices\":[{\"index\":0,"
                   "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                   "\"finish_reason\":null}]}\n\n"
                   "data: {\"id\":\"chatcmpl-T\",\"object\":\"chat.completion.chunk\","
                   "\"created\":1700000000,\"model\":\"example-model\",\"choices\":[{\"index\":0,"
                   "\"delta\":{\"content\":\"Hello from the example\"},"
                   "\"finish_reason\":null}]}\n\n"
                   "data: {\"id\":\"chatcmpl-T\",\"object\":\"chat.completion.chunk\","
                   "\"created\":1700000000,\"model\":\"example-model\",\"choices\":[{\"index\":0,"
                   "\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
                   DONE);
  sk_fake_llm_free (fake);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (stream_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/fake-llm/stream/%s/%s",
                                               dialect_name (stream_cases[i].dialect),
                                               stream_cases[i].scenario);

      g_test_add_data_func (path, &stream_cases[i], test_stream);
    }
  g_test_add_func ("/fake-llm/split", test_split);
  g_test_add_func ("/fake-llm/errors/rate-limit", test_rate_limit);
  g_test_add_func ("/fake-llm/errors/status", test_errors);
  g_test_add_func ("/fake-llm/dropped", test_dropped_finishes);
  g_test_add_func ("/fake-llm/slow", test_slow);
  g_test_add_func ("/fake-llm/client-hangs-up", test_client_hangs_up);
  g_test_add_func ("/fake-llm/raw-chunks", test_raw_chunks);
  g_test_add_func ("/fake-llm/models", test_models);
  g_test_add_func ("/fake-llm/scenarios", test_scenarios);

  return g_test_run ();
}
