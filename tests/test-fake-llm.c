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

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <json-glib/json-glib.h>

#include "sk-fake-llm.h"
#include "sk-test-util.h"

/* §7 notation of docs LLM_PROTOCOLS.md: C(D,F), R and DONE. CX writes
 * C(D,F) with other framing: FIELD before the JSON, EOL for each newline.
 */
#define OA_OBJ "{\"id\":\"chatcmpl-T\",\"object\":\"chat.completion.chunk\"," \
               "\"created\":1700000000,\"model\":\"fake\",\"choices\":[{\"index\":0,\"delta\":"
#define OA_HEAD "data: " OA_OBJ
#define C(D, F) OA_HEAD D ",\"finish_reason\":" F "}]}\n\n"
#define CU(D, F) OA_HEAD D ",\"finish_reason\":" F "}],\"usage\":null}\n\n"
#define CX(FIELD, D, F, EOL) FIELD OA_OBJ D ",\"finish_reason\":" F "}]}" EOL EOL
#define ROLE "{\"role\":\"assistant\",\"content\":\"\"}"
#define R C (ROLE, "null")
#define DONE "data: [DONE]\n\n"
#define OA_USAGE_HEAD "data: {\"id\":\"chatcmpl-T\",\"object\":\"chat.completion.chunk\"," \
                      "\"created\":1700000000,\"model\":\"fake\","

#define OL_HEAD "{\"model\":\"fake\",\"created_at\":\"2023-11-14T22:13:20Z\"," \
                "\"message\":{\"role\":\"assistant\","
#define OL_X(MSG, EOL) OL_HEAD MSG "},\"done\":false}" EOL
#define OL(MSG) OL_X (MSG, "\n")
#define OL_COUNTS(P, E) ",\"total_duration\":123456789," \
                        "\"load_duration\":1234567,\"prompt_eval_count\":" P "," \
                        "\"prompt_eval_duration\":2345678,\"eval_count\":" E "," \
                        "\"eval_duration\":3456789"
#define OL_DONE_X(COUNTS, EOL) OL_HEAD "\"content\":\"\"},\"done\":true," \
                               "\"done_reason\":\"stop\"" COUNTS "}" EOL
#define OL_DONE(P, E) OL_DONE_X (OL_COUNTS (P, E), "\n")

#define EVX(SP, TYPE, REST) "event:" SP TYPE "\ndata:" SP "{\"type\":\"" TYPE "\"" REST "}\n\n"
#define EV(TYPE, REST) EVX (" ", TYPE, REST)
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

/* §7.3b: Ollama's /v1 gives every call index 0; older builds give none. */
#define READ_CALL(INDEX, ID, PATH) \
  "{" INDEX "\"id\":\"" ID "\",\"type\":\"function\",\"function\":{\"name\":\"read_file\"," \
  "\"arguments\":\"{\\\"path\\\":\\\"" PATH "\\\"}\"}}"

static const char * const openai_index_zero[] = {
  C ("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
     READ_CALL ("\"index\":0,", "call_1", "a.c") "]}", "null"),
  C ("{\"tool_calls\":[" READ_CALL ("\"index\":0,", "call_2", "b.c") "]}", "null"),
  C ("{}", "\"tool_calls\""),
  DONE,
  NULL
};

static const char * const openai_no_index[] = {
  C ("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
     READ_CALL ("", "call_1", "a.c") "]}", "null"),
  C ("{\"tool_calls\":[" READ_CALL ("", "call_2", "b.c") "]}", "null"),
  C ("{}", "\"tool_calls\""),
  DONE,
  NULL
};

/* §7.4 variants. */
static const char * const openai_usage_llamacpp[] = {
  R,
  C ("{\"content\":\"Hel\"}", "null"),
  C ("{\"content\":\"lo\"}", "null"),
  OA_HEAD "{},\"finish_reason\":\"stop\"}],"
  "\"usage\":{\"completion_tokens\":2,\"prompt_tokens\":12,\"total_tokens\":14},"
  "\"timings\":{\"prompt_n\":12,\"prompt_ms\":24.0,\"prompt_per_token_ms\":2.0,"
  "\"prompt_per_second\":500.0,\"predicted_n\":2,\"predicted_ms\":20.0,"
  "\"predicted_per_token_ms\":10.0,\"predicted_per_second\":100.0}}\n\n",
  DONE,
  NULL
};

static const char * const openai_usage_vllm[] = {
  R,
  C ("{\"content\":\"Hel\"}", "null"),
  C ("{\"content\":\"lo\"}", "null"),
  C ("{}", "\"stop\""),
  OA_USAGE_HEAD "\"choices\":null,"
  "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":2,\"total_tokens\":14}}\n\n",
  DONE,
  NULL
};

static const char * const ollama_usage_none[] = {
  OL ("\"content\":\"Hel\""),
  OL ("\"content\":\"lo\""),
  OL_DONE_X ("", "\n"),
  NULL
};

/* §7.11, each on scenario 1. */
#define PLAIN_FRAMED(FIELD, EOL, DONE_LINE) \
  CX (FIELD, ROLE, "null", EOL), \
  CX (FIELD, "{\"content\":\"Hel\"}", "null", EOL), \
  CX (FIELD, "{\"content\":\"lo\"}", "null", EOL), \
  CX (FIELD, "{}", "\"stop\"", EOL), \
  DONE_LINE, \
  NULL

static const char * const openai_crlf[] = {
  PLAIN_FRAMED ("data: ", "\r\n", "data: [DONE]\r\n\r\n")
};

static const char * const openai_cr[] = {
  PLAIN_FRAMED ("data: ", "\r", "data: [DONE]\r\r")
};

static const char * const openai_no_space[] = {
  PLAIN_FRAMED ("data:", "\n", "data:[DONE]\n\n")
};

static const char * const openai_event_message[] = {
  PLAIN_FRAMED ("event: message\ndata: ", "\n", "event: message\ndata: [DONE]\n\n")
};

static const char * const ollama_crlf[] = {
  OL_X ("\"content\":\"Hel\"", "\r\n"),
  OL_X ("\"content\":\"lo\"", "\r\n"),
  OL_DONE_X (OL_COUNTS ("10", "2"), "\r\n"),
  NULL
};

static const char * const anthropic_no_space[] = {
  EVX ("", "message_start", ",\"message\":{\"id\":\"msg_T\",\"type\":\"message\","
       "\"role\":\"assistant\",\"model\":\"fake\",\"content\":[],"
       "\"stop_reason\":null,\"stop_sequence\":null,"
       "\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}"),
  EVX ("", "content_block_start",
       ",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}"),
  EVX ("", "content_block_delta",
       ",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}"),
  EVX ("", "content_block_delta",
       ",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"lo\"}"),
  EVX ("", "content_block_stop", ",\"index\":0"),
  EVX ("", "message_delta", ",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
       "\"usage\":{\"output_tokens\":2}"),
  EVX ("", "message_stop", ""),
  NULL
};

#define OPENROUTER ": OPENROUTER PROCESSING\n\n"

static const char * const openai_comment[] = {
  OPENROUTER,
  OPENROUTER,
  R,
  C ("{\"content\":\"Hel\"}", "null"),
  OPENROUTER,
  C ("{\"content\":\"lo\"}", "null"),
  C ("{}", "\"stop\""),
  DONE,
  NULL
};

static const char * const openai_reasoning_content[] = {
  R,
  C ("{\"reasoning_content\":\"Let me\"}", "null"),
  C ("{\"reasoning_content\":\" think.\"}", "null"),
  C ("{\"content\":\"Hel\"}", "null"),
  C ("{\"content\":\"lo\"}", "null"),
  C ("{}", "\"stop\""),
  DONE,
  NULL
};

static const char * const openai_reasoning[] = {
  R,
  C ("{\"reasoning\":\"Let me\"}", "null"),
  C ("{\"reasoning\":\" think.\"}", "null"),
  C ("{\"content\":\"Hel\"}", "null"),
  C ("{\"content\":\"lo\"}", "null"),
  C ("{}", "\"stop\""),
  DONE,
  NULL
};

static const char * const openai_legacy_error[] = {
  R,
  C ("{\"content\":\"Hel\"}", "null"),
  C ("{\"content\":\"lo\"}", "null"),
  "error: {\"code\":500,\"message\":\"boom\",\"type\":\"server_error\"}\n\n",
  DONE,
  NULL
};

static const char * const openai_raw_json_error[] = {
  R,
  C ("{\"content\":\"Hel\"}", "null"),
  C ("{\"content\":\"lo\"}", "null"),
  "{\"error\":{\"message\":\"upstream connection reset\",\"type\":\"server_error\","
  "\"param\":null,\"code\":null}}\n",
  NULL
};

/* §7.12 */
static const char * const ollama_thinking[] = {
  OL ("\"content\":\"\",\"thinking\":\"Let me\""),
  OL ("\"content\":\"\",\"thinking\":\" think.\""),
  OL ("\"content\":\"Hel\""),
  OL ("\"content\":\"lo\""),
  OL_DONE ("10", "4"),
  NULL
};

static const char * const anthropic_unknown_event[] = {
  AN_START,
  AN_TEXT_START ("0"),
  AN_TEXT ("0", "Hel"),
  "event: foo_bar\ndata: {\"type\":\"foo_bar\"}\n\n",
  AN_TEXT ("0", "lo"),
  AN_STOP ("0"),
  AN_DELTA ("end_turn", "3"),
  AN_END,
  NULL
};

static const char * const anthropic_empty_partial_json[] = {
  AN_START,
  EV ("content_block_start", ",\"index\":0,\"content_block\":{\"type\":\"tool_use\","
      "\"id\":\"toolu_1\",\"name\":\"list_files\",\"input\":{}}"),
  AN_JSON ("0", ""),
  AN_STOP ("0"),
  AN_DELTA ("tool_use", "1"),
  AN_END,
  NULL
};

#define AN_THINKING(I, T) EV ("content_block_delta", ",\"index\":" I \
                              ",\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"" T "\"}")

static const char * const anthropic_thinking[] = {
  AN_START,
  EV ("content_block_start", ",\"index\":0,\"content_block\":{\"type\":\"thinking\","
      "\"thinking\":\"\"}"),
  AN_THINKING ("0", "Let me"),
  AN_THINKING ("0", " think."),
  EV ("content_block_delta", ",\"index\":0,\"delta\":{\"type\":\"signature_delta\","
      "\"signature\":\"c2lnbmF0dXJlLVQ=\"}"),
  AN_STOP ("0"),
  AN_TEXT_START ("1"),
  AN_TEXT ("1", "Hel"),
  AN_TEXT ("1", "lo"),
  AN_STOP ("1"),
  AN_DELTA ("end_turn", "4"),
  AN_END,
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
  GBytes    *body;      /* what follows the head when it is not chunked */
} RawReply;

static void
raw_reply_free (RawReply *raw)
{
  g_free (raw->head);
  g_ptr_array_unref (raw->chunks);
  g_clear_pointer (&raw->body, g_bytes_unref);
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

static gboolean
has_prefix_len (const char *text,
                gsize       length,
                const char *prefix)
{
  return length >= strlen (prefix) && memcmp (text, prefix, strlen (prefix)) == 0;
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
  else
    raw->body = g_bytes_new (data->data + head_end + 4, data->len - head_end - 4);

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
  { "ollama-v1-index-zero", SK_FAKE_LLM_DIALECT_OPENAI, openai_index_zero, TRUE },
  { "tool-call-no-index", SK_FAKE_LLM_DIALECT_OPENAI, openai_no_index, TRUE },
  { "usage-llamacpp", SK_FAKE_LLM_DIALECT_OPENAI, openai_usage_llamacpp, TRUE },
  { "usage-vllm", SK_FAKE_LLM_DIALECT_OPENAI, openai_usage_vllm, TRUE },
  { "usage-none", SK_FAKE_LLM_DIALECT_OPENAI, openai_plain, TRUE },
  { "usage-none", SK_FAKE_LLM_DIALECT_OLLAMA, ollama_usage_none, TRUE },
  { "usage-none", SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_plain, TRUE },
  { "framing-crlf", SK_FAKE_LLM_DIALECT_OPENAI, openai_crlf, TRUE },
  { "framing-crlf", SK_FAKE_LLM_DIALECT_OLLAMA, ollama_crlf, TRUE },
  { "framing-cr", SK_FAKE_LLM_DIALECT_OPENAI, openai_cr, TRUE },
  { "framing-no-space", SK_FAKE_LLM_DIALECT_OPENAI, openai_no_space, TRUE },
  { "framing-no-space", SK_FAKE_LLM_DIALECT_OLLAMA, ollama_plain, TRUE },
  { "framing-no-space", SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_no_space, TRUE },
  { "framing-event-message", SK_FAKE_LLM_DIALECT_OPENAI, openai_event_message, TRUE },
  { "framing-event-message", SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_plain, TRUE },
  { "framing-comment", SK_FAKE_LLM_DIALECT_OPENAI, openai_comment, TRUE },
  { "reasoning-content", SK_FAKE_LLM_DIALECT_OPENAI, openai_reasoning_content, TRUE },
  { "reasoning", SK_FAKE_LLM_DIALECT_OPENAI, openai_reasoning, TRUE },
  { "legacy-llamacpp-error", SK_FAKE_LLM_DIALECT_OPENAI, openai_legacy_error, TRUE },
  { "raw-json-error", SK_FAKE_LLM_DIALECT_OPENAI, openai_raw_json_error, TRUE },
  { "ollama-thinking", SK_FAKE_LLM_DIALECT_OLLAMA, ollama_thinking, TRUE },
  { "anthropic-no-ping", SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_plain, TRUE },
  { "anthropic-unknown-event", SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_unknown_event, TRUE },
  { "anthropic-empty-partial-json", SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_empty_partial_json,
    TRUE },
  { "anthropic-thinking", SK_FAKE_LLM_DIALECT_ANTHROPIC, anthropic_thinking, TRUE },
};

static const char *
dialect_name (SkFakeLlmDialect dialect)
{
  static const char * const names[] = { "openai", "ollama", "anthropic", "none" };

  return names[dialect];
}

/* Reads the two responses queued for @dialect: the first with the raw
 * socket, which checks every HTTP chunk and the terminator, the second with
 * a SoupSession, which must read the same bytes.
 */
static void
assert_served_twice (SkFakeLlm          *fake,
                     SkFakeLlmDialect    dialect,
                     const char * const *expected_chunks,
                     gboolean            terminated)
{
  g_autoptr(RawReply) raw = NULL;
  g_autoptr(Reply) reply = NULL;
  g_autofree char *expected = g_strjoinv ("", (GStrv) expected_chunks);
  g_autofree char *text = NULL;

  raw = raw_fetch (fake, dialect);
  g_assert_true (g_str_has_prefix (raw->head, "HTTP/1.1 200 OK\r\n"));
  sk_test_assert_contains (raw->head, dialect == SK_FAKE_LLM_DIALECT_OLLAMA ?
                           "Content-Type: application/x-ndjson" :
                           "Content-Type: text/event-stream");
  assert_chunks (raw->chunks, expected_chunks);
  g_assert_cmpint (raw->terminated, ==, terminated);

  reply = fetch_chat (fake, dialect, NULL);
  g_assert_cmpuint (reply->status, ==, 200);
  text = body_text (reply);
  g_assert_cmpstr (text, ==, expected);
  /* A truncated chunked body ends in a clean EOF for SoupSession (§7 fact 4). */
  if (terminated)
    g_assert_no_error (reply->error);
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers, "Transfer-Encoding"), ==,
                   "chunked");
}

static void
test_stream (gconstpointer data)
{
  const StreamCase *test = data;
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(GPtrArray) requests = NULL;
  SkFakeLlmRequest *request;

  push (fake, test->scenario);
  push (fake, test->scenario);
  assert_served_twice (fake, test->dialect, test->expected, test->terminated);

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

/* Responses are served in the order they were queued, however many. */
static void
test_order (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(GError) error = NULL;

  sk_fake_llm_push_json (fake,
                         "[{\"body\": \"first\"}, {\"body\": \"second\"}, {\"body\": \"third\"},"
                         " {\"body\": \"fourth\"}, {\"body\": \"fifth\"}]",
                         &error);
  g_assert_no_error (error);

  for (guint i = 0; i < 5; i++)
    {
      static const char * const expected[] = { "first", "second", "third", "fourth", "fifth" };
      g_autoptr(Reply) reply = fetch_chat (fake, SK_FAKE_LLM_DIALECT_OPENAI, NULL);
      g_autofree char *text = body_text (reply);

      g_assert_cmpstr (text, ==, expected[i]);
    }

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
  static const char * const parts_expected[] = {
    OL_HEAD "\"content\":\"caf\xc3",
    "\xa9\"},\"done\":false}\n",
    "\xc3\xa9\n",
    OL ("\"content\":\"\xc3\xa9\""),
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

  /* A raw part among generated ones; a part's split_inside cuts only its
   * own chunks, and without its ending the stream still ends cleanly.
   * "w6kK" is base64 for "é\n".
   */
  push_json (fake, "{\"parts\":[{\"text\":\"café\",\"split_inside\":[\"é\"]},"
                   "{\"raw_base64\":\"w6kK\"},{\"text\":\"é\"}],\"ending\":false}");
  g_clear_pointer (&raw, raw_reply_free);
  raw = raw_fetch (fake, SK_FAKE_LLM_DIALECT_OLLAMA);
  sk_test_assert_contains (raw->head, "Content-Type: application/x-ndjson");
  assert_chunks (raw->chunks, parts_expected);
  g_assert_true (raw->terminated);

  sk_fake_llm_free (fake);
}

static JsonNode *
parse (Reply *reply)
{
  g_autofree char *text = body_text (reply);

  return sk_test_parse_json (text);
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

#define AM(ID) "{\"type\":\"model\",\"id\":\"" ID "\",\"display_name\":\"" ID "\"," \
               "\"created_at\":\"2023-11-14T22:13:20Z\"}"

static void
assert_listing (const char *url,
                guint       status,
                const char *expected)
{
  g_autoptr(Reply) reply = fetch ("GET", url, NULL, "anthropic-version", "2023-06-01");
  g_autofree char *text = body_text (reply);

  g_assert_no_error (reply->error);
  g_assert_cmpuint (reply->status, ==, status);
  g_assert_cmpstr (soup_message_headers_get_content_type (reply->headers, NULL), ==,
                   "application/json");
  g_assert_cmpstr (text, ==, expected);
}

/* §7.13: Anthropic pages its model list; llama.cpp lists one model. */
static void
test_model_pages (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  const char *root = sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_ANTHROPIC);
  g_autofree char *models = g_strconcat (root, "/v1/models", NULL);
  g_autofree char *page1 = g_strconcat (models, "?limit=2", NULL);
  g_autofree char *page2 = g_strconcat (models, "?limit=2&after_id=claude-b", NULL);
  g_autofree char *before = g_strconcat (models, "?limit=1&before_id=claude-c", NULL);
  g_autofree char *unknown = g_strconcat (models, "?after_id=claude-x", NULL);
  g_autofree char *too_many = g_strconcat (models, "?limit=1001", NULL);
  g_autofree char *scripted2 = g_strconcat (models, "?after_id=claude-sonnet-4-20250514", NULL);
  g_autoptr(GPtrArray) requests = NULL;
  g_autoptr(Reply) reply = NULL;
  g_autofree char *text = NULL;

  sk_fake_llm_set_models (fake, SK_TEST_STRV ("claude-a", "claude-b", "claude-c"));
  assert_listing (models, 200, "{\"data\":[" AM ("claude-a") "," AM ("claude-b") ","
                  AM ("claude-c") "],\"has_more\":false,\"first_id\":\"claude-a\","
                  "\"last_id\":\"claude-c\"}");
  assert_listing (page1, 200, "{\"data\":[" AM ("claude-a") "," AM ("claude-b") "],"
                  "\"has_more\":true,\"first_id\":\"claude-a\",\"last_id\":\"claude-b\"}");
  assert_listing (page2, 200, "{\"data\":[" AM ("claude-c") "],\"has_more\":false,"
                  "\"first_id\":\"claude-c\",\"last_id\":\"claude-c\"}");
  assert_listing (before, 200, "{\"data\":[" AM ("claude-b") "],\"has_more\":true,"
                  "\"first_id\":\"claude-b\",\"last_id\":\"claude-b\"}");
  assert_listing (unknown, 200, "{\"data\":[],\"has_more\":false,\"first_id\":null,"
                  "\"last_id\":null}");
  assert_listing (too_many, 400, "{\"type\":\"error\",\"error\":{\"type\":"
                  "\"invalid_request_error\",\"message\":\"limit: Input should be between 1 "
                  "and 1000\"},\"request_id\":\"req_T\"}");

  requests = sk_fake_llm_dup_requests (fake);
  g_assert_cmpstr (((SkFakeLlmRequest *) g_ptr_array_index (requests, 2))->query, ==,
                   "limit=2&after_id=claude-b");

  /* The scripted pages come from their own list, two at a time, whatever
   * the client's limit; then the default list answers again.
   */
  push (fake, "anthropic-models-two-pages");
  assert_listing (models, 200, "{\"data\":[" AM ("claude-opus-4-1-20250805") ","
                  AM ("claude-sonnet-4-20250514") "],\"has_more\":true,"
                  "\"first_id\":\"claude-opus-4-1-20250805\","
                  "\"last_id\":\"claude-sonnet-4-20250514\"}");
  assert_listing (scripted2, 200, "{\"data\":[" AM ("claude-3-5-haiku-20241022") "],"
                  "\"has_more\":false,\"first_id\":\"claude-3-5-haiku-20241022\","
                  "\"last_id\":\"claude-3-5-haiku-20241022\"}");
  assert_listing (page2, 200, "{\"data\":[" AM ("claude-c") "],\"has_more\":false,"
                  "\"first_id\":\"claude-c\",\"last_id\":\"claude-c\"}");

  push (fake, "models-llamacpp");
  reply = fetch ("GET", models, NULL, "Authorization", "Bearer sk-test");
  text = body_text (reply);
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpstr (text, ==, "{\"object\":\"list\",\"data\":[{"
                   "\"id\":\"../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf\","
                   "\"object\":\"model\",\"created\":1700000000,\"owned_by\":\"llamacpp\","
                   "\"meta\":{\"vocab_type\":2,\"n_vocab\":128256,\"n_ctx_train\":131072,"
                   "\"n_embd\":4096,\"n_params\":8030261312,\"size\":4912898304}}]}");

  g_assert_cmpuint (sk_fake_llm_get_n_pending (fake), ==, 0);
  sk_fake_llm_free (fake);
}

/* A file under tests/fake-llm/scenarios. Meson sets G_TEST_SRCDIR; run by
 * hand, the test finds its sources from __FILE__, which the compiler got
 * relative to the build root, the parent of this executable's directory.
 */
static char *
scenario_file (const char *name)
{
  g_autofree char *dir = NULL;

  if (g_getenv ("G_TEST_SRCDIR") != NULL)
    return g_test_build_filename (G_TEST_DIST, "fake-llm", "scenarios", name, NULL);

  dir = g_path_get_dirname (__FILE__);
  if (g_path_is_absolute (dir))
    return g_build_filename (dir, "fake-llm", "scenarios", name, NULL);

  return g_build_filename (g_test_get_dir (G_TEST_BUILT), "..", dir, "fake-llm", "scenarios", name,
                           NULL);
}

static void
test_scenarios (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  const char * const *names = sk_fake_llm_get_builtin_scenarios ();
  g_autofree char *example = scenario_file ("example.json");
  g_autofree char *builtin = scenario_file ("builtin.json");
  static const char * const invalid[] = {
    "{\"parts\":[{\"text\":\"x\",\"signature\":\"s\"}]}",
    "{\"parts\":[{\"generated\":{\"count\":2}}]}",
    "{\"parts\":[{\"generated\":{\"count\":2,\"sise\":8}}]}",
    "{\"parts\":[{\"generated\":{\"size\":8},\"split_inside\":[\"a\"]}]}",
    "{\"parts\":[{\"raw\":\"\"}]}",
    "{\"parts\":[{\"tool_call\":{\"idx\":0}}]}",
    "{\"parts\":[{\"text\":\"x\"}],\"usage_style\":\"openia\"}",
    "{\"parts\":[{\"text\":\"x\"}],\"line_ending\":\"crlf\"}",
    "{\"parts\":[{\"raw\":\"x\"}],\"stream\":false}",
    "{\"parts\":[{\"error\":\"x\"}],\"stream\":false}",
  };
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *builtins;
  guint n_pending;
  g_autoptr(GError) error = NULL;
  g_autoptr(Reply) reply = NULL;
  g_autofree char *text = NULL;

  for (guint i = 0; names[i] != NULL; i++)
    push (fake, names[i]);
  n_pending = sk_fake_llm_get_n_pending (fake);
  g_assert_cmpuint (n_pending, >=, g_strv_length ((GStrv) names));

  g_assert_false (sk_fake_llm_push (fake, "no-such-scenario", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (sk_fake_llm_push_json (fake, "{\"parts\":[{\"txet\":\"typo\"}]}", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  g_assert_false (sk_fake_llm_push_json (fake, "{\"stauts\":200}", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  for (guint i = 0; i < G_N_ELEMENTS (invalid); i++)
    {
      g_test_message ("%s", invalid[i]);
      g_assert_false (sk_fake_llm_push_json (fake, invalid[i], &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_clear_error (&error);
    }
  g_assert_cmpuint (sk_fake_llm_get_n_pending (fake), ==, n_pending);
  sk_fake_llm_free (fake);

  /* --list shows every scenario of builtin.json, and nothing else. */
  json_parser_load_from_file (parser, builtin, &error);
  g_assert_no_error (error);
  builtins = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                            "scenarios");
  g_assert_cmpuint (json_object_get_size (builtins), ==, g_strv_length ((GStrv) names));
  for (guint i = 0; names[i] != NULL; i++)
    g_assert_true (json_object_has_member (builtins, names[i]));

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

/* A generated part: "<index> " then letters from 'a' + (index + k) % 26 at
 * byte k, and a newline as the last byte; here "0 cd\n" and "1 de\n".
 */
static void
test_generated (void)
{
  static const char * const openai[] = {
    R,
    C ("{\"content\":\"0 cd\\n\"}", "null"),
    C ("{\"content\":\"1 de\\n\"}", "null"),
    C ("{}", "\"stop\""),
    DONE,
    NULL
  };
  static const char * const generated_crlf[] = {
    CX ("data: ", ROLE, "null", "\r\n"),
    CX ("data: ", "{\"content\":\"0 cd\\n\"}", "null", "\r\n"),
    CX ("data: ", "{\"content\":\"1 de\\n\"}", "null", "\r\n"),
    CX ("data: ", "{}", "\"stop\"", "\r\n"),
    "data: [DONE]\r\n\r\n",
    NULL
  };
  static const char * const ollama[] = {
    OL ("\"content\":\"0 cd\\n\""),
    OL ("\"content\":\"1 de\\n\""),
    OL_DONE ("10", "1"),
    NULL
  };
  static const char * const anthropic[] = {
    AN_START,
    AN_TEXT_START ("0"),
    AN_TEXT ("0", "0 cd\\n"),
    AN_TEXT ("0", "1 de\\n"),
    AN_STOP ("0"),
    AN_DELTA ("end_turn", "1"),
    AN_END,
    NULL
  };
  static const char * const * const expected[] = { openai, ollama, anthropic };
  const char *json = "{\"parts\":[{\"generated\":{\"count\":2,\"size\":5}}]}";

  for (SkFakeLlmDialect dialect = 0; dialect < SK_FAKE_LLM_DIALECT_NONE; dialect++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();

      g_test_message ("dialect %s", dialect_name (dialect));
      push_json (fake, json);
      push_json (fake, json);
      assert_served_twice (fake, dialect, expected[dialect], TRUE);
      sk_fake_llm_free (fake);
    }

  /* Framing applies around the generated text, which is never cut. */
  {
    SkFakeLlm *fake = sk_fake_llm_new ();
    const char *framed = "{\"line_ending\":\"\\r\\n\","
                         "\"parts\":[{\"generated\":{\"count\":2,\"size\":5}}]}";

    push_json (fake, framed);
    push_json (fake, framed);
    assert_served_twice (fake, SK_FAKE_LLM_DIALECT_OPENAI, generated_crlf, TRUE);
    sk_fake_llm_free (fake);
  }
}

static void
assert_whole (SkFakeLlm        *fake,
              SkFakeLlmDialect  dialect,
              const char       *expected)
{
  g_autoptr(RawReply) raw = raw_fetch (fake, dialect);
  g_autoptr(Reply) reply = fetch_chat (fake, dialect, NULL);
  g_autofree char *length = g_strdup_printf ("\r\nContent-Length: %zu\r\n", strlen (expected));
  g_autofree char *head = g_strconcat (raw->head, "\r\n", NULL);
  g_autofree char *text = body_text (reply);

  g_assert_true (g_str_has_prefix (head, "HTTP/1.1 200 OK\r\n"));
  sk_test_assert_contains (head, "\r\nContent-Type: application/json\r\n");
  sk_test_assert_contains (head, length);
  g_assert_null (strstr (head, "chunked"));
  g_assert_nonnull (raw->body);
  g_assert_cmpmem (g_bytes_get_data (raw->body, NULL), g_bytes_get_size (raw->body),
                   expected, strlen (expected));

  g_assert_no_error (reply->error);
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpstr (text, ==, expected);
}

/* "stream": false answers with one JSON object with a Content-Length, as
 * Ollama does for "stream": false (§7.12) and the others without "stream".
 */
static void
test_whole (void)
{
  static const char * const plain[] = {
    "{\"id\":\"chatcmpl-T\",\"object\":\"chat.completion\",\"created\":1700000000,"
    "\"model\":\"fake\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
    "\"content\":\"Hello\",\"refusal\":null},\"logprobs\":null,\"finish_reason\":\"stop\"}],"
    "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,\"total_tokens\":12}}",

    "{\"model\":\"fake\",\"created_at\":\"2023-11-14T22:13:20Z\",\"message\":{"
    "\"role\":\"assistant\",\"content\":\"Hello\"},\"done\":true,\"done_reason\":\"stop\""
    OL_COUNTS ("10", "2") "}",

    "{\"id\":\"msg_T\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"fake\","
    "\"content\":[{\"type\":\"text\",\"text\":\"Hello\"}],\"stop_reason\":\"end_turn\","
    "\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":2}}",
  };
  static const char * const tools[] = {
    "{\"id\":\"chatcmpl-T\",\"object\":\"chat.completion\",\"created\":1700000000,"
    "\"model\":\"fake\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
    "\"content\":\"Voilà\",\"reasoning_content\":\"Hm, a.c.\",\"refusal\":null,"
    "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{"
    "\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"a.c\\\"}\"}}]},"
    "\"logprobs\":null,\"finish_reason\":\"tool_calls\"}],"
    "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":4,\"total_tokens\":14}}",

    "{\"model\":\"fake\",\"created_at\":\"2023-11-14T22:13:20Z\",\"message\":{"
    "\"role\":\"assistant\",\"content\":\"Voilà\",\"thinking\":\"Hm, a.c.\","
    "\"tool_calls\":[{\"function\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"a.c\"}}}]},"
    "\"done\":true,\"done_reason\":\"stop\"" OL_COUNTS ("10", "4") "}",

    "{\"id\":\"msg_T\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"fake\","
    "\"content\":[{\"type\":\"thinking\",\"thinking\":\"Hm, a.c.\",\"signature\":\"sig\"},"
    "{\"type\":\"text\",\"text\":\"Voilà\"},{\"type\":\"tool_use\",\"id\":\"call_1\","
    "\"name\":\"read_file\",\"input\":{\"path\":\"a.c\"}}],\"stop_reason\":\"tool_use\","
    "\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":4}}",
  };
  const char *tools_json = "{\"stream\":false,\"parts\":[{\"thinking\":\"Hm, \"},"
                           "{\"thinking\":\"a.c.\",\"signature\":\"sig\"},{\"text\":\"Voilà\"},"
                           "{\"tool_call\":{\"id\":\"call_1\",\"name\":\"read_file\","
                           "\"arguments\":[\"{\\\"path\\\":\",\"\\\"a.c\\\"}\"]}}]}";

  for (SkFakeLlmDialect dialect = 0; dialect < SK_FAKE_LLM_DIALECT_NONE; dialect++)
    {
      SkFakeLlm *fake = sk_fake_llm_new ();

      g_test_message ("dialect %s", dialect_name (dialect));
      push (fake, "ollama-stream-false");
      push (fake, "ollama-stream-false");
      assert_whole (fake, dialect, plain[dialect]);
      push_json (fake, tools_json);
      push_json (fake, tools_json);
      assert_whole (fake, dialect, tools[dialect]);
      sk_fake_llm_free (fake);
    }
}

/* §7.10: the "huge" scenario. */
#define HUGE_DELTAS 20000
#define HUGE_DELTA_SIZE 256
#define HUGE_LINE_SIZE (1024 * 1024)

/* The text of chunk @index of a generated part, as README.md words it:
 * @index in decimal and a space, then lower-case letters, 'a' + (@index + k)
 * % 26 at byte k, and a newline as the last of @size bytes.
 */
static char *
generated_text (guint index,
                gsize size)
{
  g_autofree char *number = g_strdup_printf ("%u ", index);
  gsize n = strlen (number);
  char *text = g_malloc (size + 1);

  for (gsize k = 0; k + 1 < size; k++)
    text[k] = k < n ? number[k] : (char) ('a' + (index + k) % 26);
  text[size - 1] = '\n';
  text[size] = '\0';

  return text;
}

/* The OpenAI chunk that carries generated text, whose only character JSON
 * escapes is the final newline.
 */
static GBytes *
generated_chunk (guint index,
                 gsize size)
{
  g_autofree char *text = generated_text (index, size);
  GString *s = g_string_new (OA_HEAD "{\"content\":\"");

  g_string_append_len (s, text, size - 1);
  g_string_append (s, "\\n\"},\"finish_reason\":null}]}\n\n");

  return g_string_free_to_bytes (s);
}

static GPtrArray *
huge_expected_chunks (void)
{
  GPtrArray *chunks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  static const char * const ending[] = {
    OA_HEAD "{\"content\":\"\xc3",
    "\xa9\"},\"finish_reason\":null}]}\n\n",
    C ("{}", "\"stop\""),
    DONE,
  };

  g_ptr_array_add (chunks, g_bytes_new_static (R, strlen (R)));
  for (guint i = 0; i < HUGE_DELTAS; i++)
    g_ptr_array_add (chunks, generated_chunk (i, HUGE_DELTA_SIZE));
  g_ptr_array_add (chunks, generated_chunk (0, HUGE_LINE_SIZE));
  for (guint i = 0; i < G_N_ELEMENTS (ending); i++)
    g_ptr_array_add (chunks, g_bytes_new_static (ending[i], strlen (ending[i])));

  return chunks;
}

static char *
huge_content_sha256 (void)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *line = generated_text (0, HUGE_LINE_SIZE);

  for (guint i = 0; i < HUGE_DELTAS; i++)
    {
      g_autofree char *text = generated_text (i, HUGE_DELTA_SIZE);

      g_checksum_update (sum, (const guchar *) text, HUGE_DELTA_SIZE);
    }
  g_checksum_update (sum, (const guchar *) line, HUGE_LINE_SIZE);
  g_checksum_update (sum, (const guchar *) "é", strlen ("é"));

  return g_strdup (g_checksum_get_string (sum));
}

/* Bytes the process has from malloc, in all threads; 0 where unknown. */
static gsize
heap_in_use (void)
{
#if defined (__GLIBC__) && __GLIBC_PREREQ (2, 33)
  struct mallinfo2 info = mallinfo2 ();

  return info.uordblks + info.hblkhd;
#else
  return 0;
#endif
}

/* Splits SSE on newlines and hashes each chunk's delta.content, as a
 * client assembles the text.
 */
typedef struct
{
  GByteArray *pending;
  JsonParser *parser;
  GChecksum  *content;
  guint       n_data;
  gboolean    done;
} SseReader;

static void
sse_reader_line (SseReader  *reader,
                 const char *line,
                 gsize       length)
{
  g_autoptr(GError) error = NULL;
  JsonObject *choice, *delta;

  if (length == 0)
    return;
  g_assert_true (has_prefix_len (line, length, "data: "));
  line += strlen ("data: ");
  length -= strlen ("data: ");
  reader->n_data++;
  if (length == strlen ("[DONE]") && memcmp (line, "[DONE]", length) == 0)
    {
      reader->done = TRUE;
      return;
    }

  json_parser_load_from_data (reader->parser, line, length, &error);
  g_assert_no_error (error);
  choice = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (json_parser_get_root (reader->parser)),
                                  "choices"), 0);
  delta = json_object_get_object_member (choice, "delta");
  if (json_object_has_member (delta, "content"))
    {
      const char *content = json_object_get_string_member (delta, "content");

      g_checksum_update (reader->content, (const guchar *) content, strlen (content));
    }
}

static void
sse_reader_feed (SseReader    *reader,
                 const guint8 *data,
                 gsize         size)
{
  gsize scanned = reader->pending->len;
  gsize start = 0;

  g_byte_array_append (reader->pending, data, size);
  for (gsize i = scanned; i < reader->pending->len; i++)
    if (reader->pending->data[i] == '\n')
      {
        sse_reader_line (reader, (const char *) reader->pending->data + start, i - start);
        start = i + 1;
      }
  g_byte_array_remove_range (reader->pending, 0, start);
}

/* 20 000 deltas of 256 bytes, one 1 MiB data: line, then é cut between
 * two HTTP chunks. The server makes each chunk when it is due, and libsoup
 * drops each once written, so the heap stays far below the 9 MiB of the
 * stream: a server that rendered it all first, or kept what it wrote, would
 * hold some 8 MiB before the 1 MiB line. The server runs ahead of the
 * reader by what the sockets buffer, so the 1 MiB chunk may already exist.
 */
static void
test_huge (void)
{
  SkFakeLlm *fake = sk_fake_llm_new ();
  g_autoptr(GPtrArray) expected = huge_expected_chunks ();
  g_autoptr(GChecksum) expected_body = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GChecksum) body = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *expected_content = huge_content_sha256 ();
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autofree char *url = chat_url (fake, SK_FAKE_LLM_DIALECT_OPENAI);
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", url);
  g_autoptr(GBytes) request_body = g_bytes_new_static (CHAT_BODY, strlen (CHAT_BODY));
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RawReply) raw = NULL;
  g_autofree guint8 *buffer = g_malloc (65536);
  SseReader reader = { g_byte_array_new (), json_parser_new (), g_checksum_new (G_CHECKSUM_SHA256),
                       0, FALSE };
  gsize small_end = 0, received = 0, baseline, peak = 0;
  gint64 start;
  gssize n;

  for (guint i = 0; i < expected->len; i++)
    {
      GBytes *chunk = g_ptr_array_index (expected, i);

      g_checksum_update (expected_body, g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk));
      if (i <= HUGE_DELTAS)
        small_end += g_bytes_get_size (chunk);
    }

  push (fake, "huge");
  push (fake, "huge");

  start = g_get_monotonic_time ();
  soup_message_set_request_body_from_bytes (msg, "application/json", request_body);
  baseline = heap_in_use ();
  stream = soup_session_send (session, msg, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  while ((n = g_input_stream_read (stream, buffer, 65536, NULL, &error)) > 0)
    {
      /* Up to the 1 MiB line, nothing big should exist anywhere. */
      if (received < small_end)
        peak = MAX (peak, heap_in_use ());
      received += n;
      g_checksum_update (body, buffer, n);
      sse_reader_feed (&reader, buffer, n);
    }
  g_assert_no_error (error);
  g_test_message ("SoupSession read the stream in %.2f s; heap grew by at most %zu KiB",
                  (g_get_monotonic_time () - start) / 1e6,
                  (MAX (peak, baseline) - baseline) / 1024);

  g_assert_cmpstr (g_checksum_get_string (reader.content), ==, expected_content);
  g_assert_cmpstr (g_checksum_get_string (body), ==, g_checksum_get_string (expected_body));
  g_assert_true (reader.done);
  /* é's two HTTP chunks carry one line. */
  g_assert_cmpuint (reader.n_data, ==, expected->len - 1);
  g_assert_cmpuint (reader.pending->len, ==, 0);
  if (baseline > 0)
    g_assert_cmpuint (MAX (peak, baseline) - baseline, <, 4 * 1024 * 1024);
  else
    g_test_message ("Cannot measure the heap here");

  /* Every HTTP chunk, as the raw socket sees it. */
  start = g_get_monotonic_time ();
  raw = raw_fetch (fake, SK_FAKE_LLM_DIALECT_OPENAI);
  g_test_message ("The raw socket read the stream in %.2f s",
                  (g_get_monotonic_time () - start) / 1e6);
  g_assert_true (raw->terminated);
  g_assert_cmpuint (raw->chunks->len, ==, expected->len);
  for (guint i = 0; i < expected->len; i++)
    {
      GBytes *want = g_ptr_array_index (expected, i);
      GBytes *got = g_ptr_array_index (raw->chunks, i);

      if (!g_bytes_equal (got, want))
        g_error ("HTTP chunk %u differs", i);
    }

  g_byte_array_unref (reader.pending);
  g_object_unref (reader.parser);
  g_checksum_free (reader.content);
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
  g_test_add_func ("/fake-llm/generated", test_generated);
  g_test_add_func ("/fake-llm/whole", test_whole);
  g_test_add_func ("/fake-llm/huge", test_huge);
  g_test_add_func ("/fake-llm/errors/rate-limit", test_rate_limit);
  g_test_add_func ("/fake-llm/errors/status", test_errors);
  g_test_add_func ("/fake-llm/dropped", test_dropped_finishes);
  g_test_add_func ("/fake-llm/slow", test_slow);
  g_test_add_func ("/fake-llm/client-hangs-up", test_client_hangs_up);
  g_test_add_func ("/fake-llm/raw-chunks", test_raw_chunks);
  g_test_add_func ("/fake-llm/order", test_order);
  g_test_add_func ("/fake-llm/models", test_models);
  g_test_add_func ("/fake-llm/model-pages", test_model_pages);
  g_test_add_func ("/fake-llm/scenarios", test_scenarios);

  return g_test_run ();
}
