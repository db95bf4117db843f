/* sk-fake-llm.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-fake-llm"

#include <string.h>

#include <json-glib/json-glib.h>

#include "sk-fake-llm.h"

#define BUILTIN_RESOURCE "/io/github/skelecode/SkeleCode/fake-llm/builtin.json"
#define FAKE_CREATED 1700000000
#define FAKE_CREATED_AT "2023-11-14T22:13:20Z"
#define MAX_NESTING 8
#define JSON_TYPE "application/json"

typedef enum
{
  PART_TEXT,
  PART_TOOL_CALL,
  PART_PING,
  PART_MALFORMED,
  PART_ERROR,
  PART_THINKING,
  PART_RAW,
  PART_GENERATED,
} PartKind;

/* A tool call's index key: its position among the calls, or none at all. */
#define INDEX_POSITION -1
#define INDEX_OMITTED -2

typedef struct
{
  PartKind  kind;
  char     *text;       /* text, thinking, ping comment, malformed text, error message */
  char     *signature;  /* thinking */
  GBytes   *raw;
  char     *id;
  char     *name;
  GStrv     fragments;
  gint      index;      /* a tool call's index, or INDEX_POSITION, INDEX_OMITTED */
  gboolean  whole;      /* a tool call's arguments all in its first chunk */
  guint     count;      /* generated; a repeated raw part's repeat */
  gsize     size;
  GStrv     split_inside;
  gint      delay_ms;   /* -1: the response's delay */
} Part;

/* A chunk of the stream, or a run of @count generated chunks, each made on
 * demand from @data, generated text and @suffix, or (with @size 0) @data
 * sent @count times, so that a huge stream is never held in memory whole.
 */
typedef struct
{
  GBytes *data;
  guint   delay_ms;
  GBytes *suffix;
  guint   count;
  gsize   size;
  guint   run_delay_ms; /* before each chunk of a run but the first */
} Chunk;

typedef enum
{
  USAGE_DEFAULT,
  USAGE_OPENAI,
  USAGE_LLAMACPP,
  USAGE_VLLM,
  USAGE_NONE,
} UsageStyle;

typedef struct
{
  char      *path;
  guint      status;
  char      *reason;
  GPtrArray *headers;       /* name, value, name, value… */
  char      *content_type;

  GBytes    *body;          /* a whole body, or */
  GPtrArray *chunks;        /* raw chunks, or */
  GStrv      models;        /* a model list, or */
  GPtrArray *parts;         /* parts rendered in the request's dialect */

  gboolean   has_error;
  char      *error_message;
  char      *error_type;
  char      *error_code;
  char      *error_ollama_message;
  char      *error_anthropic_type;

  guint      page_size;

  char      *model;
  char      *finish_reason;
  gboolean   has_usage;
  gint64     prompt_tokens;
  gint64     completion_tokens;
  UsageStyle usage_style;
  char      *reasoning_field;
  gboolean   stream;
  gboolean   ending;

  char      *line_ending;
  gboolean   sse_space;
  char      *sse_event;

  guint      delay_ms;
  gsize      split_every;
  GArray    *split_at;
  GStrv      split_inside;
  gboolean   drop;
} Response;

typedef struct
{
  SkFakeLlm         *self;
  SoupServerMessage *msg;
  GPtrArray         *chunks;
  guint              next;
  guint              next_in_run;
  gboolean           drop;
  gboolean           completed;
  GSource           *source;
} Stream;

struct _SkFakeLlm
{
  GMutex        mutex;
  GCond         cond;
  gboolean      started;
  GError       *start_error;
  guint         wanted_port;

  GThread      *thread;
  GMainContext *context;
  GMainLoop    *loop;
  SoupServer   *server;     /* server thread only */
  GList        *streams;    /* server thread only */

  guint         port;
  char         *openai_url;
  char         *root_url;

  /* Under the mutex. */
  GQueue        queue;
  GPtrArray    *requests;
  GHashTable   *scenarios;  /* name → JsonNode (array) */
  GStrv         models;
  gboolean      recycle;

  gint          n_finished; /* atomic */
  gint          n_tool_calls; /* atomic */
};

static const char * const builtin_names[] = {
  "plain-text",
  "utf8-split",
  "tool-call-fragments",
  "tool-call-fragments-split",
  "multiple-tool-calls",
  "ollama-v1-index-zero",
  "tool-call-no-index",
  "usage-chunk",
  "usage-llamacpp",
  "usage-vllm",
  "usage-none",
  "rate-limit-then-success",
  "rate-limit-retry-after-ms",
  "insufficient-quota",
  "overloaded-then-success",
  "unauthorized",
  "model-not-found",
  "server-error",
  "model-loading",
  "malformed-json",
  "dropped",
  "mid-stream-error",
  "slow-stream",
  "silent-stream",
  "huge",
  "framing-crlf",
  "framing-cr",
  "framing-no-space",
  "framing-event-message",
  "framing-comment",
  "reasoning-content",
  "reasoning",
  "legacy-llamacpp-error",
  "raw-json-error",
  "ollama-stream-false",
  "ollama-thinking",
  "anthropic-no-ping",
  "anthropic-unknown-event",
  "anthropic-empty-partial-json",
  "anthropic-thinking",
  "anthropic-models-two-pages",
  "models-llamacpp",
  "chat-add-steps-fragments",
  "chat-text-blocks",
  "chat-invalid-then-corrected",
  "chat-claims-without-changes",
  "chat-never-finishes",
  NULL
};

GResource *sk_fake_llm_get_resource (void);

/* Requests */

static void
request_clear (gpointer data)
{
  SkFakeLlmRequest *request = data;

  g_free (request->method);
  g_free (request->path);
  g_free (request->query);
  g_clear_pointer (&request->headers, soup_message_headers_unref);
  g_clear_pointer (&request->body, g_bytes_unref);
}

/**
 * sk_fake_llm_request_ref:
 * @request: a recorded request
 *
 * Returns: (transfer full): @request
 */
SkFakeLlmRequest *
sk_fake_llm_request_ref (SkFakeLlmRequest *request)
{
  return g_atomic_rc_box_acquire (request);
}

void
sk_fake_llm_request_unref (SkFakeLlmRequest *request)
{
  g_atomic_rc_box_release_full (request, request_clear);
}

/* Responses */

static void
part_free (gpointer data)
{
  Part *part = data;

  g_free (part->text);
  g_free (part->signature);
  g_clear_pointer (&part->raw, g_bytes_unref);
  g_free (part->id);
  g_free (part->name);
  g_strfreev (part->fragments);
  g_strfreev (part->split_inside);
  g_free (part);
}

static void
chunk_free (gpointer data)
{
  Chunk *chunk = data;

  g_bytes_unref (chunk->data);
  g_clear_pointer (&chunk->suffix, g_bytes_unref);
  g_free (chunk);
}

static Chunk *
chunk_new (GBytes *data,
           guint   delay_ms)
{
  Chunk *chunk = g_new0 (Chunk, 1);

  chunk->data = data;
  chunk->delay_ms = delay_ms;

  return chunk;
}

static void
response_free (gpointer data)
{
  Response *r = data;

  g_free (r->path);
  g_free (r->reason);
  g_clear_pointer (&r->headers, g_ptr_array_unref);
  g_free (r->content_type);
  g_clear_pointer (&r->body, g_bytes_unref);
  g_clear_pointer (&r->chunks, g_ptr_array_unref);
  g_strfreev (r->models);
  g_clear_pointer (&r->parts, g_ptr_array_unref);
  g_free (r->error_message);
  g_free (r->error_type);
  g_free (r->error_code);
  g_free (r->error_ollama_message);
  g_free (r->error_anthropic_type);
  g_free (r->model);
  g_free (r->finish_reason);
  g_free (r->reasoning_field);
  g_free (r->line_ending);
  g_free (r->sse_event);
  g_clear_pointer (&r->split_at, g_array_unref);
  g_strfreev (r->split_inside);
  g_free (r);
}

/* JSON string escaping as compact JSON servers write it: UTF-8 stays as is. */
static void
append_json_chars (GString    *out,
                   const char *text)
{
  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    {
      switch (*p)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        default:
          if (*p < 0x20)
            g_string_append_printf (out, "\\u%04x", *p);
          else
            g_string_append_c (out, *p);
        }
    }
}

static void
append_json_string (GString    *out,
                    const char *text)
{
  g_string_append_c (out, '"');
  append_json_chars (out, text);
  g_string_append_c (out, '"');
}

/* The text of chunk @index of a generated part: @index in decimal and a
 * space, then lower-case letters cycling from 'a' + (@index + k) % 26 at
 * byte k, and a newline as the last of @size bytes. The test checks the
 * README's wording of this, so keep them in step. With @json the newline
 * is written as the escape "\n", the only one the text needs.
 */
static void
write_generated_text (char     *out,
                      guint     index,
                      gsize     size,
                      gboolean  json)
{
  char number[16];
  gsize n = g_snprintf (number, sizeof number, "%u ", index);

  for (gsize k = 0; k + 1 < size; k++)
    out[k] = k < n ? number[k] : (char) ('a' + (index + k) % 26);
  if (json)
    memcpy (out + size - 1, "\\n", 2);
  else
    out[size - 1] = '\n';
}

static void
append_generated_text (GString *out,
                       guint    index,
                       gsize    size)
{
  gsize start = out->len;

  g_string_set_size (out, start + size);
  write_generated_text (out->str + start, index, size, FALSE);
}

static char *
substitute_model (const char *text,
                  const char *model)
{
  g_auto(GStrv) pieces = g_strsplit (text, "{model}", -1);

  return g_strjoinv (model, pieces);
}

/* Rendering: a response becomes a list of events, one natural chunk each. */

typedef struct
{
  const Response   *r;
  SkFakeLlmDialect  dialect;
  const char       *model;
  GPtrArray        *events;
  gint              pending_delay;
  guint             tail_start;
  GStrv             split_inside;   /* of the part being rendered */
} Out;

/* Where a generated run's text goes in the chunk rendered around it: the
 * JSON escape of a control character no other text brings.
 */
#define RUN_TEXT "\001"
#define RUN_MARK "\\u0001"

static gboolean
has_prefix (const char *text,
            gsize       length,
            const char *prefix)
{
  gsize prefix_length = strlen (prefix);

  return length >= prefix_length && memcmp (text, prefix, prefix_length) == 0;
}

static gboolean
needs_framing (const Response *r)
{
  return !g_str_equal (r->line_ending, "\n") || !r->sse_space || r->sse_event != NULL;
}

/* Applies the response's framing options to rendered text: the line ending,
 * "event:" lines before each "data:" line, and the space after SSE field
 * names. JSON payloads are compact, so every newline ends a line.
 */
static GString *
frame (const Out  *out,
       const char *text,
       gsize       length,
       gboolean    line_start)
{
  static const char * const fields[] = { "data: ", "event: " };
  const Response *r = out->r;
  gboolean sse = out->dialect != SK_FAKE_LLM_DIALECT_OLLAMA;
  GString *s = g_string_sized_new (length + 32);
  gsize i = 0;

  while (i < length)
    {
      if (line_start && sse)
        {
          if (r->sse_event != NULL && out->dialect != SK_FAKE_LLM_DIALECT_ANTHROPIC &&
              has_prefix (text + i, length - i, "data:"))
            g_string_append_printf (s, "event:%s%s%s", r->sse_space ? " " : "", r->sse_event,
                                    r->line_ending);
          for (guint f = 0; !r->sse_space && f < G_N_ELEMENTS (fields); f++)
            if (has_prefix (text + i, length - i, fields[f]))
              {
                g_string_append_len (s, fields[f], strlen (fields[f]) - 1);
                i += strlen (fields[f]);
                break;
              }
        }
      line_start = FALSE;
      if (i >= length)
        break;
      if (text[i] == '\n')
        {
          g_string_append (s, r->line_ending);
          line_start = TRUE;
        }
      else
        {
          g_string_append_c (s, text[i]);
        }
      i++;
    }

  return s;
}

static guint
take_delay (Out *out)
{
  guint delay;

  if (out->pending_delay >= 0)
    delay = out->pending_delay;
  else
    delay = out->events->len > 0 ? out->r->delay_ms : 0;
  out->pending_delay = -1;

  return delay;
}

/* Adds @text as it is, cut after the first byte of each of the part's
 * split_inside strings; the pieces after the first wait the response's delay.
 */
static void
emit_verbatim (Out     *out,
               GString *text)
{
  g_autoptr(GArray) cuts = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize start = 0;
  guint delay;

  if (text->len == 0)
    {
      g_string_free (text, TRUE);
      return;
    }

  delay = take_delay (out);
  for (gsize at = 0; out->split_inside != NULL && at < text->len; at++)
    for (guint i = 0; out->split_inside[i] != NULL; i++)
      if (out->split_inside[i][0] != '\0' &&
          has_prefix (text->str + at, text->len - at, out->split_inside[i]) && at + 1 < text->len)
        {
          gsize cut = at + 1;

          g_array_append_val (cuts, cut);
          break;
        }

  for (guint i = 0; i < cuts->len; i++)
    {
      gsize cut = g_array_index (cuts, gsize, i);

      g_ptr_array_add (out->events, chunk_new (g_bytes_new (text->str + start, cut - start),
                                               start == 0 ? delay : out->r->delay_ms));
      start = cut;
    }
  if (start == 0)
    {
      g_ptr_array_add (out->events, chunk_new (g_string_free_to_bytes (text), delay));
      return;
    }
  g_ptr_array_add (out->events, chunk_new (g_bytes_new (text->str + start, text->len - start),
                                           out->r->delay_ms));
  g_string_free (text, TRUE);
}

static void
emit (Out     *out,
      GString *text)
{
  if (needs_framing (out->r) && text->len > 0)
    {
      GString *framed = frame (out, text->str, text->len, TRUE);

      g_string_free (text, TRUE);
      text = framed;
    }
  emit_verbatim (out, text);
}

/* Adds a run of generated chunks; @rendered is one of them with RUN_MARK
 * where the text goes.
 */
static void
emit_run (Out        *out,
          const Part *part,
          GString    *rendered)
{
  const char *mark = strstr (rendered->str, RUN_MARK);
  gsize prefix_length, suffix_start;
  GString *prefix, *suffix;
  Chunk *chunk;

  g_assert (mark != NULL);
  prefix_length = mark - rendered->str;
  suffix_start = prefix_length + strlen (RUN_MARK);

  if (part->count == 0)
    {
      g_string_free (rendered, TRUE);
      return;
    }

  if (needs_framing (out->r))
    {
      prefix = frame (out, rendered->str, prefix_length, TRUE);
      suffix = frame (out, rendered->str + suffix_start, rendered->len - suffix_start, FALSE);
    }
  else
    {
      prefix = g_string_new_len (rendered->str, prefix_length);
      suffix = g_string_new_len (rendered->str + suffix_start, rendered->len - suffix_start);
    }
  g_string_free (rendered, TRUE);

  chunk = chunk_new (g_string_free_to_bytes (prefix), take_delay (out));
  chunk->suffix = g_string_free_to_bytes (suffix);
  chunk->count = part->count;
  chunk->size = part->size;
  chunk->run_delay_ms = part->delay_ms >= 0 ? (guint) part->delay_ms : out->r->delay_ms;
  g_ptr_array_add (out->events, chunk);
}

/* Adds a raw part: a repeated one (without split_inside) as one run that
 * sends the same bytes again and again, so that a stream of gigabytes costs
 * the server one chunk.
 */
static void
emit_raw (Out        *out,
          const Part *part)
{
  Chunk *chunk;

  if (part->count <= 1 || out->split_inside != NULL)
    {
      for (guint i = 0; i < MAX (part->count, 1); i++)
        emit_verbatim (out, g_string_new_len (g_bytes_get_data (part->raw, NULL),
                                              g_bytes_get_size (part->raw)));
      return;
    }

  chunk = chunk_new (g_bytes_ref (part->raw), take_delay (out));
  chunk->count = part->count;
  chunk->run_delay_ms = part->delay_ms >= 0 ? (guint) part->delay_ms : out->r->delay_ms;
  g_ptr_array_add (out->events, chunk);
}

/* The bytes of chunk @index of @chunk (0 unless it is a run). A run's
 * chunk is made to measure, as it may be large.
 */
static GBytes *
chunk_dup_bytes (const Chunk *chunk,
                 guint        index)
{
  gsize prefix_size, suffix_size;
  const guint8 *prefix, *suffix;
  char *bytes;

  if (chunk->count == 0 || chunk->size == 0)
    return g_bytes_ref (chunk->data);

  prefix = g_bytes_get_data (chunk->data, &prefix_size);
  suffix = g_bytes_get_data (chunk->suffix, &suffix_size);
  bytes = g_malloc (prefix_size + chunk->size + 1 + suffix_size);
  memcpy (bytes, prefix, prefix_size);
  write_generated_text (bytes + prefix_size, index, chunk->size, TRUE);
  memcpy (bytes + prefix_size + chunk->size + 1, suffix, suffix_size);

  return g_bytes_new_take (bytes, prefix_size + chunk->size + 1 + suffix_size);
}

static gboolean
has_tool_call (const Response *r)
{
  for (guint i = 0; i < r->parts->len; i++)
    if (((Part *) g_ptr_array_index (r->parts, i))->kind == PART_TOOL_CALL)
      return TRUE;

  return FALSE;
}

static const char *
finish_reason_of (const Response *r)
{
  if (r->finish_reason != NULL)
    return r->finish_reason;

  return has_tool_call (r) ? "tool_calls" : "stop";
}

/* Native Ollama reports "stop" even when the model called tools. */
static const char *
ollama_done_reason (const Response *r)
{
  const char *finish = finish_reason_of (r);

  return g_str_equal (finish, "tool_calls") ? "stop" : finish;
}

static const char *
anthropic_stop_reason (const Response *r)
{
  const char *finish = finish_reason_of (r);

  if (g_str_equal (finish, "stop"))
    return "end_turn";
  if (g_str_equal (finish, "tool_calls"))
    return "tool_use";
  if (g_str_equal (finish, "length"))
    return "max_tokens";

  return finish;
}

static void
usage_of (const Response *r,
          gint64         *prompt,
          gint64         *completion)
{
  if (r->has_usage)
    {
      *prompt = r->prompt_tokens;
      *completion = r->completion_tokens;
    }
  else
    {
      *prompt = 10;
      *completion = MAX (r->parts->len, 1);
    }
}

/* The usage object, in the key order of the server the style imitates;
 * llama.cpp adds its timings after it.
 */
static void
append_openai_usage (GString        *s,
                     const Response *r)
{
  gint64 prompt, completion;

  usage_of (r, &prompt, &completion);
  if (r->usage_style == USAGE_LLAMACPP)
    {
      g_string_append_printf (s, "\"usage\":{\"completion_tokens\":%" G_GINT64_FORMAT
                              ",\"prompt_tokens\":%" G_GINT64_FORMAT
                              ",\"total_tokens\":%" G_GINT64_FORMAT "},"
                              "\"timings\":{\"prompt_n\":%" G_GINT64_FORMAT
                              ",\"prompt_ms\":%" G_GINT64_FORMAT ".0"
                              ",\"prompt_per_token_ms\":2.0,\"prompt_per_second\":500.0"
                              ",\"predicted_n\":%" G_GINT64_FORMAT
                              ",\"predicted_ms\":%" G_GINT64_FORMAT ".0"
                              ",\"predicted_per_token_ms\":10.0,\"predicted_per_second\":100.0}",
                              completion, prompt, prompt + completion,
                              prompt, 2 * prompt, completion, 10 * completion);
      return;
    }

  g_string_append_printf (s, "\"usage\":{\"prompt_tokens\":%" G_GINT64_FORMAT
                          ",\"completion_tokens\":%" G_GINT64_FORMAT
                          ",\"total_tokens\":%" G_GINT64_FORMAT "}",
                          prompt, completion, prompt + completion);
}

static GString *
openai_chunk_full (Out        *out,
                   const char *delta,
                   const char *finish,
                   gboolean    with_usage)
{
  GString *s = g_string_new ("data: {\"id\":\"chatcmpl-T\",\"object\":\"chat.completion.chunk\","
                             "\"created\":" G_STRINGIFY (FAKE_CREATED) ",\"model\":");

  append_json_string (s, out->model);
  g_string_append_printf (s, ",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":", delta);
  if (finish != NULL)
    append_json_string (s, finish);
  else
    g_string_append (s, "null");
  g_string_append (s, "}]");
  if (with_usage)
    {
      g_string_append_c (s, ',');
      append_openai_usage (s, out->r);
    }
  else if (out->r->usage_style == USAGE_OPENAI)
    {
      g_string_append (s, ",\"usage\":null");
    }
  g_string_append (s, "}\n\n");

  return s;
}

static GString *
openai_chunk (Out        *out,
              const char *delta,
              const char *finish)
{
  return openai_chunk_full (out, delta, finish, FALSE);
}

/* A chunk whose delta has one string field. */
static GString *
openai_field_chunk (Out        *out,
                    const char *field,
                    const char *text)
{
  g_autoptr(GString) delta = g_string_new ("{");

  append_json_string (delta, field);
  g_string_append_c (delta, ':');
  append_json_string (delta, text);
  g_string_append_c (delta, '}');

  return openai_chunk (out, delta->str, NULL);
}

static void
append_tool_index (GString    *s,
                   const Part *part,
                   guint       position)
{
  if (part->index == INDEX_OMITTED)
    return;
  g_string_append_printf (s, "\"index\":%d,",
                          part->index == INDEX_POSITION ? (gint) position : part->index);
}

static void
render_openai (Out *out)
{
  const Response *r = out->r;
  gboolean role_sent = FALSE;
  guint n_tools = 0;

  for (guint i = 0; i < r->parts->len; i++)
    {
      Part *part = g_ptr_array_index (r->parts, i);
      g_autoptr(GString) delta = g_string_new (NULL);
      g_autofree char *arguments = NULL;

      out->pending_delay = part->delay_ms;
      out->split_inside = part->split_inside;

      if (!role_sent && (part->kind == PART_TEXT || part->kind == PART_MALFORMED ||
                         part->kind == PART_THINKING || part->kind == PART_GENERATED))
        {
          emit (out, openai_chunk (out, "{\"role\":\"assistant\",\"content\":\"\"}", NULL));
          role_sent = TRUE;
        }

      switch (part->kind)
        {
        case PART_PING:
          g_string_printf (delta, ": %s\n\n", part->text);
          emit (out, g_string_new (delta->str));
          break;

        case PART_TEXT:
          emit (out, openai_field_chunk (out, "content", part->text));
          break;

        case PART_GENERATED:
          emit_run (out, part, openai_field_chunk (out, "content", RUN_TEXT));
          break;

        case PART_THINKING:
          emit (out, openai_field_chunk (out, r->reasoning_field, part->text));
          break;

        case PART_RAW:
          emit_raw (out, part);
          break;

        case PART_TOOL_CALL:
          g_string_append_c (delta, '{');
          if (!role_sent)
            g_string_append (delta, "\"role\":\"assistant\",\"content\":null,");
          role_sent = TRUE;
          g_string_append (delta, "\"tool_calls\":[{");
          append_tool_index (delta, part, n_tools);
          g_string_append (delta, "\"id\":");
          append_json_string (delta, part->id);
          g_string_append (delta, ",\"type\":\"function\",\"function\":{\"name\":");
          append_json_string (delta, part->name);
          g_string_append (delta, ",\"arguments\":");
          arguments = g_strjoinv ("", part->fragments);
          append_json_string (delta, part->whole ? arguments : "");
          g_string_append (delta, "}}]}");
          emit (out, openai_chunk (out, delta->str, NULL));

          for (guint j = 0; !part->whole && part->fragments[j] != NULL; j++)
            {
              g_string_assign (delta, "{\"tool_calls\":[{");
              append_tool_index (delta, part, n_tools);
              g_string_append (delta, "\"function\":{\"arguments\":");
              append_json_string (delta, part->fragments[j]);
              g_string_append (delta, "}}]}");
              emit (out, openai_chunk (out, delta->str, NULL));
            }
          n_tools++;
          break;

        case PART_MALFORMED:
          g_string_append (delta, "data: {\"id\":\"chatcmpl-T\",\"choices\":[{\"index\":0,"
                                  "\"delta\":{\"content\":");
          append_json_string (delta, part->text);
          g_string_append (delta, "}}\n\n");
          emit (out, g_string_new (delta->str));
          break;

        case PART_ERROR:
          g_string_append (delta, "data: {\"error\":{\"message\":");
          append_json_string (delta, part->text);
          g_string_append (delta, ",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n");
          emit (out, g_string_new (delta->str));
          out->tail_start = out->events->len;
          return;

        default:
          g_assert_not_reached ();
        }
    }

  out->tail_start = out->events->len;
  out->pending_delay = -1;
  out->split_inside = NULL;
  if (!role_sent)
    emit (out, openai_chunk (out, "{\"role\":\"assistant\",\"content\":\"\"}", NULL));
  emit (out, openai_chunk_full (out, "{}", finish_reason_of (r),
                                r->usage_style == USAGE_LLAMACPP));
  if (r->usage_style == USAGE_OPENAI || r->usage_style == USAGE_VLLM)
    {
      GString *s = g_string_new ("data: {\"id\":\"chatcmpl-T\","
                                 "\"object\":\"chat.completion.chunk\","
                                 "\"created\":" G_STRINGIFY (FAKE_CREATED) ",\"model\":");

      append_json_string (s, out->model);
      /* vLLM has sent the usage chunk with null choices instead of []. */
      g_string_append (s, r->usage_style == USAGE_VLLM ? ",\"choices\":null," : ",\"choices\":[],");
      append_openai_usage (s, r);
      g_string_append (s, "}\n\n");
      emit (out, s);
    }
  emit (out, g_string_new ("data: [DONE]\n\n"));
}

static GString *
ollama_line_start (Out *out)
{
  GString *s = g_string_new ("{\"model\":");

  append_json_string (s, out->model);
  g_string_append (s, ",\"created_at\":\"" FAKE_CREATED_AT "\","
                      "\"message\":{\"role\":\"assistant\",");

  return s;
}

static GString *
ollama_text_line (Out        *out,
                  const char *field,
                  const char *text)
{
  GString *s = ollama_line_start (out);

  /* Ollama streams an empty content while the model thinks. */
  if (!g_str_equal (field, "content"))
    g_string_append (s, "\"content\":\"\",");
  append_json_string (s, field);
  g_string_append_c (s, ':');
  append_json_string (s, text);
  g_string_append (s, "},\"done\":false}\n");

  return s;
}

/* The fields after "done_reason" on Ollama's last line. */
static void
append_ollama_counts (GString        *s,
                      const Response *r)
{
  gint64 prompt, completion;

  if (r->usage_style == USAGE_NONE)
    return;

  usage_of (r, &prompt, &completion);
  g_string_append_printf (s, ",\"total_duration\":123456789,\"load_duration\":1234567,"
                          "\"prompt_eval_count\":%" G_GINT64_FORMAT ","
                          "\"prompt_eval_duration\":2345678,"
                          "\"eval_count\":%" G_GINT64_FORMAT ",\"eval_duration\":3456789",
                          prompt, completion);
}

static void
render_ollama (Out *out)
{
  const Response *r = out->r;
  gint carried = -1;
  GString *s;

  for (guint i = 0; i < r->parts->len; i++)
    {
      Part *part = g_ptr_array_index (r->parts, i);
      g_autofree char *arguments = NULL;

      out->pending_delay = part->delay_ms;
      out->split_inside = part->split_inside;
      if (carried >= 0 && part->kind != PART_PING)
        {
          out->pending_delay = carried + MAX (part->delay_ms, 0);
          carried = -1;
        }

      switch (part->kind)
        {
        case PART_PING:
          /* NDJSON has no keep-alive; the delay moves on to the next line. */
          carried = MAX (carried, 0) + (part->delay_ms >= 0 ? (guint) part->delay_ms : r->delay_ms);
          break;

        case PART_TEXT:
          emit (out, ollama_text_line (out, "content", part->text));
          break;

        case PART_GENERATED:
          emit_run (out, part, ollama_text_line (out, "content", RUN_TEXT));
          break;

        case PART_THINKING:
          emit (out, ollama_text_line (out, "thinking", part->text));
          break;

        case PART_RAW:
          emit_raw (out, part);
          break;

        case PART_TOOL_CALL:
          /* Ollama sends each call whole, with its arguments as an object. */
          arguments = g_strjoinv ("", part->fragments);
          s = ollama_line_start (out);
          g_string_append (s, "\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":");
          append_json_string (s, part->name);
          g_string_append_printf (s, ",\"arguments\":%s}}]},\"done\":false}\n",
                                  arguments[0] != '\0' ? arguments : "{}");
          emit (out, s);
          break;

        case PART_MALFORMED:
          s = ollama_line_start (out);
          g_string_append (s, "\"content\":");
          append_json_string (s, part->text);
          g_string_append (s, "}\n");
          emit (out, s);
          break;

        case PART_ERROR:
          s = g_string_new ("{\"error\":");
          append_json_string (s, part->text);
          g_string_append (s, "}\n");
          emit (out, s);
          out->tail_start = out->events->len;
          return;

        default:
          g_assert_not_reached ();
        }
    }

  out->tail_start = out->events->len;
  out->pending_delay = carried;
  out->split_inside = NULL;
  s = ollama_line_start (out);
  g_string_append (s, "\"content\":\"\"},\"done\":true,\"done_reason\":");
  append_json_string (s, ollama_done_reason (r));
  append_ollama_counts (s, r);
  g_string_append (s, "}\n");
  emit (out, s);
}

static GString *
anthropic_event (const char *type,
                 const char *data)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "event: %s\ndata: %s\n\n", type, data);

  return s;
}

static GString *
anthropic_delta (gint        index,
                 const char *type,
                 const char *field,
                 const char *text)
{
  g_autoptr(GString) data = g_string_new (NULL);

  g_string_printf (data, "{\"type\":\"content_block_delta\",\"index\":%d,"
                   "\"delta\":{\"type\":\"%s\",\"%s\":", index, type, field);
  append_json_string (data, text);
  g_string_append (data, "}}");

  return anthropic_event ("content_block_delta", data->str);
}

static void
render_anthropic (Out *out)
{
  const Response *r = out->r;
  g_autoptr(GString) data = g_string_new (NULL);
  gint64 prompt, completion;
  gint open_index = -1;
  PartKind open_kind = PART_TEXT;
  guint n_blocks = 0;

  usage_of (r, &prompt, &completion);

  g_string_append (data, "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_T\","
                         "\"type\":\"message\","
                         "\"role\":\"assistant\",\"model\":");
  append_json_string (data, out->model);
  g_string_append_printf (data, ",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,"
                          "\"usage\":{\"input_tokens\":%" G_GINT64_FORMAT ",\"output_tokens\":1}}}",
                          prompt);
  emit (out, anthropic_event ("message_start", data->str));

  for (guint i = 0; i < r->parts->len; i++)
    {
      Part *part = g_ptr_array_index (r->parts, i);
      PartKind block_kind;

      out->pending_delay = part->delay_ms;
      out->split_inside = part->split_inside;

      if (part->kind == PART_PING)
        {
          emit (out, anthropic_event ("ping", "{\"type\":\"ping\"}"));
          continue;
        }
      if (part->kind == PART_RAW)
        {
          emit_raw (out, part);
          continue;
        }
      if (part->kind == PART_ERROR)
        {
          g_string_assign (data, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                                 "\"message\":");
          append_json_string (data, part->text);
          g_string_append (data, "}}");
          emit (out, anthropic_event ("error", data->str));
          out->tail_start = out->events->len;
          return;
        }

      /* Each tool call gets a block of its own; text and thinking continue
       * an open block of their kind.
       */
      block_kind = part->kind == PART_MALFORMED || part->kind == PART_GENERATED ?
                   PART_TEXT : part->kind;
      if (open_index >= 0 && (block_kind == PART_TOOL_CALL || open_kind != block_kind))
        {
          g_string_printf (data, "{\"type\":\"content_block_stop\",\"index\":%d}", open_index);
          emit (out, anthropic_event ("content_block_stop", data->str));
          open_index = -1;
        }
      if (open_index < 0)
        {
          open_index = n_blocks++;
          open_kind = block_kind;
          g_string_printf (data, "{\"type\":\"content_block_start\",\"index\":%d,"
                           "\"content_block\":", open_index);
          if (block_kind == PART_TEXT)
            {
              g_string_append (data, "{\"type\":\"text\",\"text\":\"\"}}");
            }
          else if (block_kind == PART_THINKING)
            {
              g_string_append (data, "{\"type\":\"thinking\",\"thinking\":\"\"}}");
            }
          else
            {
              g_string_append (data, "{\"type\":\"tool_use\",\"id\":");
              append_json_string (data, part->id);
              g_string_append (data, ",\"name\":");
              append_json_string (data, part->name);
              g_string_append (data, ",\"input\":{}}}");
            }
          emit (out, anthropic_event ("content_block_start", data->str));
        }

      switch (part->kind)
        {
        case PART_TOOL_CALL:
          for (guint j = 0; part->fragments[j] != NULL; j++)
            emit (out, anthropic_delta (open_index, "input_json_delta", "partial_json",
                                        part->fragments[j]));
          break;

        case PART_THINKING:
          emit (out, anthropic_delta (open_index, "thinking_delta", "thinking", part->text));
          if (part->signature != NULL)
            emit (out, anthropic_delta (open_index, "signature_delta", "signature",
                                        part->signature));
          break;

        case PART_GENERATED:
          emit_run (out, part, anthropic_delta (open_index, "text_delta", "text", RUN_TEXT));
          break;

        case PART_MALFORMED:
          g_string_printf (data, "{\"type\":\"content_block_delta\",\"index\":%d,"
                           "\"delta\":{\"type\":\"text_delta\",\"text\":", open_index);
          append_json_string (data, part->text);
          /* A malformed delta lacks its last brace. */
          g_string_append_c (data, '}');
          emit (out, anthropic_event ("content_block_delta", data->str));
          break;

        case PART_TEXT:
          emit (out, anthropic_delta (open_index, "text_delta", "text", part->text));
          break;

        case PART_PING:
        case PART_RAW:
        case PART_ERROR:
        default:
          g_assert_not_reached ();
        }
    }

  out->tail_start = out->events->len;
  out->pending_delay = -1;
  out->split_inside = NULL;
  if (open_index >= 0)
    {
      g_string_printf (data, "{\"type\":\"content_block_stop\",\"index\":%d}", open_index);
      emit (out, anthropic_event ("content_block_stop", data->str));
    }
  g_string_assign (data, "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":");
  append_json_string (data, anthropic_stop_reason (r));
  g_string_append_printf (data, ",\"stop_sequence\":null},\"usage\":{\"output_tokens\":%"
                          G_GINT64_FORMAT "}}", completion);
  emit (out, anthropic_event ("message_delta", data->str));
  emit (out, anthropic_event ("message_stop", "{\"type\":\"message_stop\"}"));
}

/* A non-streamed answer: the parts gathered into blocks, as the Anthropic
 * content array has them; OpenAI and Ollama join the blocks of each kind.
 */
typedef struct
{
  PartKind    kind;
  GString    *text;
  const char *signature;
  const Part *tool;
} Block;

static void
block_clear (gpointer data)
{
  Block *block = data;

  if (block->text != NULL)
    g_string_free (block->text, TRUE);
}

static GArray *
gather_blocks (const Response *r)
{
  GArray *blocks = g_array_new (FALSE, TRUE, sizeof (Block));

  g_array_set_clear_func (blocks, block_clear);
  for (guint i = 0; i < r->parts->len; i++)
    {
      const Part *part = g_ptr_array_index (r->parts, i);
      PartKind kind = part->kind == PART_GENERATED ? PART_TEXT : part->kind;
      Block *last = blocks->len > 0 ? &g_array_index (blocks, Block, blocks->len - 1) : NULL;

      if (kind != PART_TEXT && kind != PART_THINKING && kind != PART_TOOL_CALL)
        continue;
      if (last == NULL || kind == PART_TOOL_CALL || last->kind != kind)
        {
          Block block = { kind, kind != PART_TOOL_CALL ? g_string_new (NULL) : NULL, NULL, part };

          g_array_append_val (blocks, block);
          last = &g_array_index (blocks, Block, blocks->len - 1);
        }
      if (part->kind == PART_GENERATED)
        for (guint j = 0; j < part->count; j++)
          append_generated_text (last->text, j, part->size);
      else if (kind != PART_TOOL_CALL)
        g_string_append (last->text, part->text);
      if (part->signature != NULL)
        last->signature = part->signature;
    }

  return blocks;
}

/* Joins the text of the blocks of @kind, or returns NULL if there are none. */
static char *
join_blocks (GArray   *blocks,
             PartKind  kind)
{
  GString *s = NULL;

  for (guint i = 0; i < blocks->len; i++)
    {
      Block *block = &g_array_index (blocks, Block, i);

      if (block->kind != kind)
        continue;
      if (s == NULL)
        s = g_string_new (NULL);
      g_string_append (s, block->text->str);
    }

  return s != NULL ? g_string_free (s, FALSE) : NULL;
}

static char *
json_arguments (const Part *part)
{
  char *arguments = g_strjoinv ("", part->fragments);

  if (arguments[0] != '\0')
    return arguments;

  g_free (arguments);
  return g_strdup ("{}");
}

static char *
render_whole (const Response   *r,
              SkFakeLlmDialect  dialect,
              const char       *model)
{
  g_autoptr(GArray) blocks = gather_blocks (r);
  g_autofree char *text = join_blocks (blocks, PART_TEXT);
  g_autofree char *thinking = join_blocks (blocks, PART_THINKING);
  GString *s = g_string_new (NULL);
  gint64 prompt, completion;
  gboolean first = TRUE;

  usage_of (r, &prompt, &completion);

  switch (dialect)
    {
    case SK_FAKE_LLM_DIALECT_OLLAMA:
      g_string_append (s, "{\"model\":");
      append_json_string (s, model);
      g_string_append (s, ",\"created_at\":\"" FAKE_CREATED_AT "\","
                          "\"message\":{\"role\":\"assistant\",\"content\":");
      append_json_string (s, text != NULL ? text : "");
      if (thinking != NULL)
        {
          g_string_append (s, ",\"thinking\":");
          append_json_string (s, thinking);
        }
      for (guint i = 0; i < blocks->len; i++)
        {
          Block *block = &g_array_index (blocks, Block, i);
          g_autofree char *arguments = NULL;

          if (block->kind != PART_TOOL_CALL)
            continue;
          arguments = json_arguments (block->tool);
          g_string_append (s, first ? ",\"tool_calls\":[" : ",");
          g_string_append (s, "{\"function\":{\"name\":");
          append_json_string (s, block->tool->name);
          g_string_append_printf (s, ",\"arguments\":%s}}", arguments);
          first = FALSE;
        }
      if (!first)
        g_string_append_c (s, ']');
      g_string_append (s, "},\"done\":true,\"done_reason\":");
      append_json_string (s, ollama_done_reason (r));
      append_ollama_counts (s, r);
      g_string_append_c (s, '}');
      break;

    case SK_FAKE_LLM_DIALECT_ANTHROPIC:
      g_string_append (s, "{\"id\":\"msg_T\",\"type\":\"message\",\"role\":\"assistant\","
                          "\"model\":");
      append_json_string (s, model);
      g_string_append (s, ",\"content\":[");
      for (guint i = 0; i < blocks->len; i++)
        {
          Block *block = &g_array_index (blocks, Block, i);
          g_autofree char *arguments = NULL;

          if (i > 0)
            g_string_append_c (s, ',');
          switch (block->kind)
            {
            case PART_TEXT:
              g_string_append (s, "{\"type\":\"text\",\"text\":");
              append_json_string (s, block->text->str);
              break;
            case PART_THINKING:
              g_string_append (s, "{\"type\":\"thinking\",\"thinking\":");
              append_json_string (s, block->text->str);
              g_string_append (s, ",\"signature\":");
              append_json_string (s, block->signature != NULL ? block->signature : "");
              break;
            case PART_TOOL_CALL:
            default:
              arguments = json_arguments (block->tool);
              g_string_append (s, "{\"type\":\"tool_use\",\"id\":");
              append_json_string (s, block->tool->id);
              g_string_append (s, ",\"name\":");
              append_json_string (s, block->tool->name);
              g_string_append_printf (s, ",\"input\":%s", arguments);
              break;
            }
          g_string_append_c (s, '}');
        }
      g_string_append (s, "],\"stop_reason\":");
      append_json_string (s, anthropic_stop_reason (r));
      g_string_append_printf (s, ",\"stop_sequence\":null,\"usage\":{\"input_tokens\":%"
                              G_GINT64_FORMAT ",\"output_tokens\":%" G_GINT64_FORMAT "}}",
                              prompt, completion);
      break;

    case SK_FAKE_LLM_DIALECT_OPENAI:
    case SK_FAKE_LLM_DIALECT_NONE:
    default:
      g_string_append (s, "{\"id\":\"chatcmpl-T\",\"object\":\"chat.completion\","
                          "\"created\":" G_STRINGIFY (FAKE_CREATED) ",\"model\":");
      append_json_string (s, model);
      g_string_append (s, ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                          "\"content\":");
      /* The content is null when the model only called tools. */
      if (text != NULL || !has_tool_call (r))
        append_json_string (s, text != NULL ? text : "");
      else
        g_string_append (s, "null");
      if (thinking != NULL)
        {
          g_string_append_c (s, ',');
          append_json_string (s, r->reasoning_field);
          g_string_append_c (s, ':');
          append_json_string (s, thinking);
        }
      g_string_append (s, ",\"refusal\":null");
      for (guint i = 0; i < blocks->len; i++)
        {
          Block *block = &g_array_index (blocks, Block, i);
          g_autofree char *arguments = NULL;

          if (block->kind != PART_TOOL_CALL)
            continue;
          arguments = g_strjoinv ("", block->tool->fragments);
          g_string_append (s, first ? ",\"tool_calls\":[" : ",");
          g_string_append (s, "{\"id\":");
          append_json_string (s, block->tool->id);
          g_string_append (s, ",\"type\":\"function\",\"function\":{\"name\":");
          append_json_string (s, block->tool->name);
          g_string_append (s, ",\"arguments\":");
          append_json_string (s, arguments);
          g_string_append (s, "}}");
          first = FALSE;
        }
      if (!first)
        g_string_append_c (s, ']');
      g_string_append (s, "},\"logprobs\":null,\"finish_reason\":");
      append_json_string (s, finish_reason_of (r));
      g_string_append (s, "}]");
      if (r->usage_style != USAGE_NONE)
        {
          g_string_append_c (s, ',');
          append_openai_usage (s, r);
        }
      g_string_append_c (s, '}');
      break;
    }

  return g_string_free (s, FALSE);
}

static char *
render_error (const Response   *r,
              SkFakeLlmDialect  dialect,
              const char       *model)
{
  g_autofree char *message = substitute_model (r->error_message, model);
  GString *s = g_string_new (NULL);
  const char *type = r->error_anthropic_type;

  switch (dialect)
    {
    case SK_FAKE_LLM_DIALECT_OLLAMA:
      g_free (message);
      message = substitute_model (r->error_ollama_message != NULL ?
                                  r->error_ollama_message : r->error_message, model);
      g_string_append (s, "{\"error\":");
      append_json_string (s, message);
      g_string_append_c (s, '}');
      break;

    case SK_FAKE_LLM_DIALECT_ANTHROPIC:
      if (type == NULL)
        {
          switch (r->status)
            {
            case 400: type = "invalid_request_error"; break;
            case 401: type = "authentication_error"; break;
            case 402: type = "billing_error"; break;
            case 403: type = "permission_error"; break;
            case 404: type = "not_found_error"; break;
            case 413: type = "request_too_large"; break;
            case 429: type = "rate_limit_error"; break;
            case 529: type = "overloaded_error"; break;
            default: type = "api_error"; break;
            }
        }
      g_string_append (s, "{\"type\":\"error\",\"error\":{\"type\":");
      append_json_string (s, type);
      g_string_append (s, ",\"message\":");
      append_json_string (s, message);
      g_string_append (s, "},\"request_id\":\"req_T\"}");
      break;

    case SK_FAKE_LLM_DIALECT_OPENAI:
    case SK_FAKE_LLM_DIALECT_NONE:
    default:
      g_string_append (s, "{\"error\":{\"message\":");
      append_json_string (s, message);
      g_string_append (s, ",\"type\":");
      append_json_string (s, r->error_type != NULL ? r->error_type : "server_error");
      g_string_append (s, ",\"param\":null,\"code\":");
      if (r->error_code != NULL)
        append_json_string (s, r->error_code);
      else
        g_string_append (s, "null");
      g_string_append (s, "}}");
      break;
    }

  return g_string_free (s, FALSE);
}

static int
compare_offsets (gconstpointer a,
                 gconstpointer b)
{
  gsize x = *(const gsize *) a;
  gsize y = *(const gsize *) b;

  return x < y ? -1 : x > y;
}

/* Re-cuts the stream at the response's split points, if it has any. */
static GPtrArray *
split_events (const Response *r,
              GPtrArray      *events)
{
  g_autoptr(GByteArray) all = g_byte_array_new ();
  g_autoptr(GArray) cuts = g_array_new (FALSE, FALSE, sizeof (gsize));
  GPtrArray *chunks;
  guint first_delay = 0;
  gsize start = 0;

  if (r->split_every == 0 && r->split_at == NULL && r->split_inside == NULL)
    return g_ptr_array_ref (events);

  /* Re-cutting needs the whole body, generated runs included. */
  for (guint i = 0; i < events->len; i++)
    {
      Chunk *event = g_ptr_array_index (events, i);

      if (i == 0)
        first_delay = event->delay_ms;
      for (guint j = 0; j < MAX (event->count, 1); j++)
        {
          g_autoptr(GBytes) bytes = chunk_dup_bytes (event, j);

          g_byte_array_append (all, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
        }
    }

  if (r->split_at != NULL)
    g_array_append_vals (cuts, r->split_at->data, r->split_at->len);
  for (gsize offset = r->split_every;
       r->split_every > 0 && offset < all->len;
       offset += r->split_every)
    g_array_append_val (cuts, offset);
  for (guint i = 0; r->split_inside != NULL && r->split_inside[i] != NULL; i++)
    {
      gsize needle_len = strlen (r->split_inside[i]);

      for (gsize at = 0; needle_len > 0 && at + needle_len <= all->len; at++)
        if (memcmp (all->data + at, r->split_inside[i], needle_len) == 0)
          {
            gsize cut = at + 1;

            g_array_append_val (cuts, cut);
          }
    }
  g_array_sort (cuts, compare_offsets);

  chunks = g_ptr_array_new_with_free_func (chunk_free);
  for (guint i = 0; i <= cuts->len; i++)
    {
      gsize end = i < cuts->len ? g_array_index (cuts, gsize, i) : all->len;

      if (end <= start || end > all->len)
        continue;
      g_ptr_array_add (chunks, chunk_new (g_bytes_new (all->data + start, end - start),
                                          chunks->len == 0 ? first_delay : r->delay_ms));
      start = end;
    }

  return chunks;
}

static GPtrArray *
render_stream (const Response   *r,
               SkFakeLlmDialect  dialect,
               gboolean         *drop)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func (chunk_free);
  Out out = { r, dialect, r->model != NULL ? r->model : "fake", events, -1, 0, NULL };
  gboolean errored = FALSE;

  *drop = r->drop;

  if (r->chunks != NULL)
    {
      for (guint i = 0; i < r->chunks->len; i++)
        {
          Chunk *chunk = g_ptr_array_index (r->chunks, i);

          g_ptr_array_add (events, chunk_new (g_bytes_ref (chunk->data), chunk->delay_ms));
        }
      return split_events (r, events);
    }

  switch (dialect)
    {
    case SK_FAKE_LLM_DIALECT_OLLAMA:
      render_ollama (&out);
      break;
    case SK_FAKE_LLM_DIALECT_ANTHROPIC:
      render_anthropic (&out);
      break;
    case SK_FAKE_LLM_DIALECT_OPENAI:
    case SK_FAKE_LLM_DIALECT_NONE:
    default:
      render_openai (&out);
      break;
    }

  errored = out.tail_start == events->len;
  if (*drop || errored || !r->ending)
    g_ptr_array_set_size (events, out.tail_start);

  return split_events (r, events);
}

/* Parsing the scenario format. */

static gboolean
check_members (JsonObject          *object,
               const char * const  *allowed,
               const char          *what,
               GError             **error)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (allowed, l->data))
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "Unknown key “%s” in a %s", (const char *) l->data, what);
        return FALSE;
      }

  return TRUE;
}

static char *
dup_string_member (JsonObject *object,
                   const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;

  return g_strdup (json_node_get_string (node));
}

static GStrv
dup_string_array (JsonNode *node)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        g_strv_builder_add (builder, json_array_get_string_element (array, i));
    }
  else if (JSON_NODE_HOLDS_VALUE (node))
    {
      g_strv_builder_add (builder, json_node_get_string (node));
    }

  return g_strv_builder_end (builder);
}

static gboolean
parse_part (JsonObject  *object,
            GPtrArray   *parts,
            GError     **error)
{
  static const char * const allowed[] = {
    "text", "tool_call", "ping", "malformed", "error", "thinking", "signature", "raw",
    "raw_base64", "generated", "split_inside", "delay_ms", "repeat", NULL
  };
  static const char * const tool_allowed[] = { "id", "name", "arguments", "index", "whole", NULL };
  static const char * const generated_allowed[] = { "count", "size", NULL };
  gint64 repeat = json_object_get_int_member_with_default (object, "repeat", 1);
  guint raw_repeat = 1;

  if (!check_members (object, allowed, "part", error))
    return FALSE;

  /* A repeated raw part stays one part, sent lazily as a run. */
  if ((json_object_has_member (object, "raw") || json_object_has_member (object, "raw_base64")) &&
      !json_object_has_member (object, "split_inside"))
    {
      raw_repeat = CLAMP (repeat, 0, G_MAXUINT);
      repeat = raw_repeat > 0 ? 1 : 0;
    }

  for (gint64 n = 0; n < repeat; n++)
    {
      Part *part = g_new0 (Part, 1);

      part->delay_ms = json_object_get_int_member_with_default (object, "delay_ms", -1);
      part->index = INDEX_POSITION;
      if (json_object_has_member (object, "split_inside"))
        part->split_inside = dup_string_array (json_object_get_member (object, "split_inside"));
      g_ptr_array_add (parts, part);

      if (json_object_has_member (object, "text"))
        {
          part->kind = PART_TEXT;
          part->text = dup_string_member (object, "text");
        }
      else if (json_object_has_member (object, "tool_call"))
        {
          JsonObject *call = json_object_get_object_member (object, "tool_call");
          JsonNode *index;

          if (call == NULL || !check_members (call, tool_allowed, "tool_call", error))
            return FALSE;
          part->kind = PART_TOOL_CALL;
          part->id = g_strdup (json_object_get_string_member_with_default (call, "id", "call_1"));
          part->name = g_strdup (json_object_get_string_member_with_default (call, "name", "tool"));
          if (json_object_has_member (call, "arguments"))
            part->fragments = dup_string_array (json_object_get_member (call, "arguments"));
          else
            part->fragments = g_new0 (char *, 1);
          part->whole = json_object_get_boolean_member_with_default (call, "whole", FALSE);
          index = json_object_get_member (call, "index");
          if (index != NULL && JSON_NODE_HOLDS_NULL (index))
            part->index = INDEX_OMITTED;
          else if (index != NULL)
            part->index = CLAMP (json_node_get_int (index), 0, G_MAXINT);
        }
      else if (json_object_has_member (object, "ping"))
        {
          JsonNode *ping = json_object_get_member (object, "ping");

          part->kind = PART_PING;
          if (JSON_NODE_HOLDS_VALUE (ping) && json_node_get_value_type (ping) == G_TYPE_STRING)
            part->text = g_strdup (json_node_get_string (ping));
          else
            part->text = g_strdup ("ping");
        }
      else if (json_object_has_member (object, "malformed"))
        {
          part->kind = PART_MALFORMED;
          part->text = dup_string_member (object, "malformed");
        }
      else if (json_object_has_member (object, "error"))
        {
          part->kind = PART_ERROR;
          part->text = dup_string_member (object, "error");
        }
      else if (json_object_has_member (object, "thinking"))
        {
          part->kind = PART_THINKING;
          part->text = dup_string_member (object, "thinking");
          part->signature = dup_string_member (object, "signature");
        }
      else if (json_object_has_member (object, "raw") ||
               json_object_has_member (object, "raw_base64"))
        {
          part->kind = PART_RAW;
          if (json_object_has_member (object, "raw_base64"))
            {
              gsize length;
              guchar *bytes;

              bytes = g_base64_decode (json_object_get_string_member_with_default (object,
                                                                                 "raw_base64", ""),
                                       &length);
              part->raw = g_bytes_new_take (bytes, length);
            }
          else
            {
              const char *raw = json_object_get_string_member_with_default (object, "raw", "");

              part->raw = g_bytes_new (raw, strlen (raw));
            }
          part->count = raw_repeat;
          /* A zero-length chunk would end the chunked body. */
          if (g_bytes_get_size (part->raw) == 0)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "A raw part is empty");
              return FALSE;
            }
        }
      else if (json_object_has_member (object, "generated"))
        {
          JsonObject *generated = json_object_get_object_member (object, "generated");

          if (generated == NULL ||
              !check_members (generated, generated_allowed, "generated part", error))
            return FALSE;
          part->kind = PART_GENERATED;
          part->count = CLAMP (json_object_get_int_member_with_default (generated, "count", 1),
                               0, G_MAXUINT);
          part->size = MAX (json_object_get_int_member_with_default (generated, "size", 0), 0);
          if (part->size == 0)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "A generated part needs a size of at least 1");
              return FALSE;
            }
          if (part->split_inside != NULL)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "A generated part cannot have split_inside");
              return FALSE;
            }
        }
      else
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "A part needs one of text, tool_call, ping, malformed, error, thinking, "
                       "raw, raw_base64 or generated");
          return FALSE;
        }

      if ((part->kind == PART_TEXT || part->kind == PART_MALFORMED || part->kind == PART_ERROR ||
           part->kind == PART_THINKING) &&
          part->text == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "A part's text is not a string");
          return FALSE;
        }
      if (part->kind != PART_THINKING && json_object_has_member (object, "signature"))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "Only a thinking part has a signature");
          return FALSE;
        }
    }

  return TRUE;
}

static Response *
parse_response (JsonObject  *object,
                GError     **error)
{
  static const char * const allowed[] = {
    "path", "status", "reason", "headers", "content_type", "body", "body_json", "chunks",
    "parts", "models", "page_size", "error", "model", "finish_reason", "usage", "usage_style",
    "reasoning_field", "stream", "ending", "line_ending", "sse_space", "sse_event", "delay_ms",
    "split_every", "split_at", "split_inside", "drop", "repeat", "comment", NULL
  };
  /* In the order of UsageStyle. */
  static const char * const usage_styles[] = {
    "default", "openai", "llamacpp", "vllm", "none", NULL
  };
  static const char * const line_endings[] = { "\n", "\r\n", "\r", NULL };
  const char *usage_style;
  static const char * const error_allowed[] = {
    "message", "type", "code", "ollama_message", "anthropic_type", NULL
  };
  Response *r = g_new0 (Response, 1);

  if (!check_members (object, allowed, "response", error))
    goto fail;

  r->path = dup_string_member (object, "path");
  r->status = json_object_get_int_member_with_default (object, "status", 200);
  r->reason = dup_string_member (object, "reason");
  r->content_type = dup_string_member (object, "content_type");
  r->model = dup_string_member (object, "model");
  r->finish_reason = dup_string_member (object, "finish_reason");
  r->delay_ms = json_object_get_int_member_with_default (object, "delay_ms", 0);
  r->split_every = json_object_get_int_member_with_default (object, "split_every", 0);
  r->drop = json_object_get_boolean_member_with_default (object, "drop", FALSE);
  r->headers = g_ptr_array_new_with_free_func (g_free);
  r->reasoning_field = g_strdup (json_object_get_string_member_with_default (object,
                                                                             "reasoning_field",
                                                                             "reasoning_content"));
  r->stream = json_object_get_boolean_member_with_default (object, "stream", TRUE);
  r->ending = json_object_get_boolean_member_with_default (object, "ending", TRUE);
  r->line_ending = g_strdup (json_object_get_string_member_with_default (object, "line_ending",
                                                                         "\n"));
  r->sse_space = json_object_get_boolean_member_with_default (object, "sse_space", TRUE);
  r->sse_event = dup_string_member (object, "sse_event");
  r->page_size = CLAMP (json_object_get_int_member_with_default (object, "page_size", 0),
                        0, G_MAXUINT);

  if (!g_strv_contains (line_endings, r->line_ending))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "line_ending must be \"\\n\", \"\\r\\n\" or \"\\r\"");
      goto fail;
    }

  if (json_object_has_member (object, "headers"))
    {
      JsonObject *headers = json_object_get_object_member (object, "headers");
      g_autoptr(GList) names = headers != NULL ? json_object_get_members (headers) : NULL;

      for (GList *l = names; l != NULL; l = l->next)
        {
          const char *value = json_object_get_string_member_with_default (headers, l->data, "");

          g_ptr_array_add (r->headers, g_strdup (l->data));
          g_ptr_array_add (r->headers, g_strdup (value));
        }
    }

  if (json_object_has_member (object, "split_at"))
    {
      JsonArray *offsets = json_object_get_array_member (object, "split_at");

      r->split_at = g_array_new (FALSE, FALSE, sizeof (gsize));
      for (guint i = 0; offsets != NULL && i < json_array_get_length (offsets); i++)
        {
          gsize offset = json_array_get_int_element (offsets, i);

          g_array_append_val (r->split_at, offset);
        }
    }
  if (json_object_has_member (object, "split_inside"))
    r->split_inside = dup_string_array (json_object_get_member (object, "split_inside"));

  if (json_object_has_member (object, "usage"))
    {
      JsonObject *usage = json_object_get_object_member (object, "usage");

      r->has_usage = TRUE;
      r->prompt_tokens = json_object_get_int_member_with_default (usage, "prompt_tokens", 0);
      r->completion_tokens = json_object_get_int_member_with_default (usage, "completion_tokens",
                                                                      0);
    }
  usage_style = json_object_get_string_member_with_default (object, "usage_style",
                                                            r->has_usage ? "openai" : "default");
  if (!g_strv_contains (usage_styles, usage_style))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "Unknown usage_style “%s”",
                   usage_style);
      goto fail;
    }
  for (guint i = 0; usage_styles[i] != NULL; i++)
    if (g_str_equal (usage_style, usage_styles[i]))
      r->usage_style = (UsageStyle) i;

  if (json_object_has_member (object, "error"))
    {
      JsonObject *err = json_object_get_object_member (object, "error");

      if (err == NULL || !check_members (err, error_allowed, "error", error))
        goto fail;
      r->has_error = TRUE;
      r->error_message = g_strdup (json_object_get_string_member_with_default (err, "message",
                                                                               "error"));
      r->error_type = dup_string_member (err, "type");
      r->error_code = dup_string_member (err, "code");
      r->error_ollama_message = dup_string_member (err, "ollama_message");
      r->error_anthropic_type = dup_string_member (err, "anthropic_type");
    }
  else if (json_object_has_member (object, "body"))
    {
      const char *body = json_object_get_string_member_with_default (object, "body", "");

      r->body = g_bytes_new (body, strlen (body));
    }
  else if (json_object_has_member (object, "body_json"))
    {
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      gsize length;
      char *text;

      json_generator_set_root (generator, json_object_get_member (object, "body_json"));
      text = json_generator_to_data (generator, &length);
      r->body = g_bytes_new_take (text, length);
    }
  else if (json_object_has_member (object, "chunks"))
    {
      JsonArray *chunks = json_object_get_array_member (object, "chunks");

      r->chunks = g_ptr_array_new_with_free_func (chunk_free);
      for (guint i = 0; chunks != NULL && i < json_array_get_length (chunks); i++)
        {
          JsonObject *chunk = json_array_get_object_element (chunks, i);
          GBytes *data;
          guint delay;

          if (chunk == NULL)
            goto fail_data;
          if (json_object_has_member (chunk, "data_base64"))
            {
              gsize length;
              guchar *bytes = g_base64_decode (json_object_get_string_member (chunk, "data_base64"),
                                               &length);

              data = g_bytes_new_take (bytes, length);
            }
          else
            {
              const char *text = json_object_get_string_member_with_default (chunk, "data", "");

              data = g_bytes_new (text, strlen (text));
            }
          if (g_bytes_get_size (data) == 0)
            {
              /* A zero-length chunk would end the chunked body. */
              g_bytes_unref (data);
              goto fail_data;
            }
          delay = json_object_get_int_member_with_default (chunk, "delay_ms", 0);
          g_ptr_array_add (r->chunks, chunk_new (data, delay));
        }
    }

  else if (json_object_has_member (object, "models"))
    {
      r->models = dup_string_array (json_object_get_member (object, "models"));
    }

  r->parts = g_ptr_array_new_with_free_func (part_free);
  if (json_object_has_member (object, "parts"))
    {
      JsonArray *parts = json_object_get_array_member (object, "parts");

      for (guint i = 0; parts != NULL && i < json_array_get_length (parts); i++)
        {
          JsonObject *part = json_array_get_object_element (parts, i);

          if (part == NULL)
            goto fail_data;
          if (!parse_part (part, r->parts, error))
            goto fail;
        }
    }

  /* A whole answer has nothing to say about the stream. */
  for (guint i = 0; !r->stream && i < r->parts->len; i++)
    {
      PartKind kind = ((Part *) g_ptr_array_index (r->parts, i))->kind;

      if (kind == PART_MALFORMED || kind == PART_ERROR || kind == PART_RAW)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "malformed, error and raw parts need a stream");
          goto fail;
        }
    }

  return r;

fail_data:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               "Chunks and parts must be non-empty objects");
fail:
  response_free (r);
  return NULL;
}

static gboolean
expand_item (SkFakeLlm  *self,
             JsonNode   *node,
             GPtrArray  *out,
             guint       depth,
             GError    **error);

static gboolean
expand_named (SkFakeLlm   *self,
              const char  *name,
              GPtrArray   *out,
              guint        depth,
              GError     **error)
{
  JsonNode *scenario;
  JsonArray *array;

  g_mutex_lock (&self->mutex);
  scenario = g_hash_table_lookup (self->scenarios, name);
  if (scenario != NULL)
    scenario = json_node_ref (scenario);
  g_mutex_unlock (&self->mutex);

  if (scenario == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "No scenario named “%s”", name);
      return FALSE;
    }

  array = json_node_get_array (scenario);
  for (guint i = 0; i < json_array_get_length (array); i++)
    if (!expand_item (self, json_array_get_element (array, i), out, depth + 1, error))
      {
        json_node_unref (scenario);
        return FALSE;
      }

  json_node_unref (scenario);
  return TRUE;
}

/* Adds the responses that @node describes to @out. */
static gboolean
expand_item (SkFakeLlm  *self,
             JsonNode   *node,
             GPtrArray  *out,
             guint       depth,
             GError    **error)
{
  JsonObject *object;
  gint64 repeat;

  if (depth > MAX_NESTING)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "Scenarios nest too deeply");
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "A response must be an object");
      return FALSE;
    }

  object = json_node_get_object (node);
  repeat = json_object_get_int_member_with_default (object, "repeat", 1);

  for (gint64 n = 0; n < repeat; n++)
    {
      Response *r;

      if (json_object_has_member (object, "scenario"))
        {
          if (!expand_named (self, json_object_get_string_member (object, "scenario"), out, depth,
                             error))
            return FALSE;
          continue;
        }

      r = parse_response (object, error);
      if (r == NULL)
        return FALSE;
      g_ptr_array_add (out, r);
    }

  return TRUE;
}

static gboolean
register_scenarios (SkFakeLlm   *self,
                    JsonObject  *scenarios,
                    GError     **error)
{
  g_autoptr(GList) names = json_object_get_members (scenarios);

  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *node = json_object_get_member (scenarios, l->data);

      if (!JSON_NODE_HOLDS_ARRAY (node))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "Scenario “%s” is not an array of responses", (const char *) l->data);
          return FALSE;
        }
      g_mutex_lock (&self->mutex);
      g_hash_table_replace (self->scenarios, g_strdup (l->data), json_node_ref (node));
      g_mutex_unlock (&self->mutex);
    }

  return TRUE;
}

/* Loads a scenario document: a response object, an array of them, or a file
 * object with "scenarios", "models" and "responses".
 */
static gboolean
load_root (SkFakeLlm   *self,
           JsonNode    *root,
           GError     **error)
{
  g_autoptr(GPtrArray) responses = g_ptr_array_new_with_free_func (response_free);
  JsonObject *object = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  JsonArray *array = NULL;

  if (object != NULL && (json_object_has_member (object, "responses") ||
                         json_object_has_member (object, "scenarios") ||
                         json_object_has_member (object, "models")))
    {
      static const char * const allowed[] = { "scenarios", "models", "responses", "comment", NULL };

      if (!check_members (object, allowed, "scenario file", error))
        return FALSE;
      if (json_object_has_member (object, "scenarios") &&
          !register_scenarios (self, json_object_get_object_member (object, "scenarios"), error))
        return FALSE;
      if (json_object_has_member (object, "models"))
        {
          g_auto(GStrv) models = dup_string_array (json_object_get_member (object, "models"));

          sk_fake_llm_set_models (self, (const char * const *) models);
        }
      array = json_object_get_array_member (object, "responses");
    }
  else if (JSON_NODE_HOLDS_ARRAY (root))
    {
      array = json_node_get_array (root);
    }
  else if (!expand_item (self, root, responses, 0, error))
    {
      return FALSE;
    }

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    if (!expand_item (self, json_array_get_element (array, i), responses, 0, error))
      return FALSE;

  g_mutex_lock (&self->mutex);
  for (guint i = 0; i < responses->len; i++)
    g_queue_push_tail (&self->queue, g_ptr_array_steal_index (responses, i--));
  g_mutex_unlock (&self->mutex);

  return TRUE;
}

/* Serving, on the server thread. */

static void
stream_detach (Stream *stream)
{
  SkFakeLlm *self = stream->self;

  if (stream->source != NULL)
    {
      g_source_destroy (stream->source);
      g_clear_pointer (&stream->source, g_source_unref);
    }
  g_signal_handlers_disconnect_by_data (stream->msg, stream);
  self->streams = g_list_remove (self->streams, stream);
  g_ptr_array_unref (stream->chunks);
  g_free (stream);
}

static void stream_schedule (Stream *stream);

static gboolean
stream_step (gpointer user_data)
{
  Stream *stream = user_data;
  SoupMessageBody *body = soup_server_message_get_response_body (stream->msg);

  g_clear_pointer (&stream->source, g_source_unref);

  if (stream->next < stream->chunks->len)
    {
      Chunk *chunk = g_ptr_array_index (stream->chunks, stream->next);
      g_autoptr(GBytes) bytes = chunk_dup_bytes (chunk, stream->next_in_run++);

      if (stream->next_in_run >= chunk->count)
        {
          stream->next++;
          stream->next_in_run = 0;
        }
      soup_message_body_append_bytes (body, bytes);
      soup_server_message_unpause (stream->msg);
      return G_SOURCE_REMOVE;
    }

  stream->completed = TRUE;
  if (stream->drop)
    {
      GSocket *socket = soup_server_message_get_socket (stream->msg);

      /* Closing the socket is a true drop: finishing the message or
       * stealing the connection would still write the final 0-chunk.
       * The unpause below then fails on the closed socket and finishes
       * the message.
       */
      g_debug ("Dropping the connection before the end of the stream");
      if (socket != NULL)
        {
          g_socket_shutdown (socket, TRUE, TRUE, NULL);
          g_socket_close (socket, NULL);
        }
    }
  soup_message_body_complete (body);
  soup_server_message_unpause (stream->msg);

  return G_SOURCE_REMOVE;
}

static void
stream_schedule (Stream *stream)
{
  guint delay = 0;

  if (stream->next < stream->chunks->len)
    {
      Chunk *chunk = g_ptr_array_index (stream->chunks, stream->next);

      delay = stream->next_in_run > 0 ? chunk->run_delay_ms : chunk->delay_ms;
    }

  stream->source = delay > 0 ? g_timeout_source_new (delay) : g_idle_source_new ();
  g_source_set_callback (stream->source, stream_step, stream, NULL);
  g_source_attach (stream->source, stream->self->context);
}

static void
stream_wrote_chunk_cb (SoupServerMessage *msg,
                       Stream            *stream)
{
  if (!stream->completed && stream->source == NULL)
    stream_schedule (stream);
}

static void
stream_finished_cb (SoupServerMessage *msg,
                    Stream            *stream)
{
  stream_detach (stream);
}

static void
start_stream (SkFakeLlm         *self,
              SoupServerMessage *msg,
              GPtrArray         *chunks,
              gboolean           drop)
{
  Stream *stream = g_new0 (Stream, 1);

  stream->self = self;
  stream->msg = msg;
  stream->chunks = chunks;
  stream->drop = drop;
  self->streams = g_list_prepend (self->streams, stream);

  soup_message_headers_set_encoding (soup_server_message_get_response_headers (msg),
                                     SOUP_ENCODING_CHUNKED);
  /* Let libsoup free each chunk once written, so that a long stream does
   * not pile up in the message.
   */
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);
  g_signal_connect (msg, "wrote-chunk", G_CALLBACK (stream_wrote_chunk_cb), stream);
  g_signal_connect (msg, "finished", G_CALLBACK (stream_finished_cb), stream);
  soup_server_message_pause (msg);
  stream_schedule (stream);
}

static void
append_nullable_id (GString    *s,
                    const char *id)
{
  if (id != NULL)
    append_json_string (s, id);
  else
    g_string_append (s, "null");
}

/* Anthropic pages its list: "limit" (1 to 1000, default 20, and at most
 * @page_size if that is not 0), then "after_id" or "before_id".
 */
static char *
render_anthropic_models (GHashTable         *query,
                         const char * const *models,
                         guint               page_size,
                         guint              *status)
{
  const char *limit_text = query != NULL ? g_hash_table_lookup (query, "limit") : NULL;
  const char *after_id = query != NULL ? g_hash_table_lookup (query, "after_id") : NULL;
  const char *before_id = query != NULL ? g_hash_table_lookup (query, "before_id") : NULL;
  guint n = g_strv_length ((GStrv) models);
  guint64 limit = 20;
  guint start = 0, end = n, first, last;
  gboolean has_more;
  GString *s;

  if (limit_text != NULL &&
      (!g_ascii_string_to_unsigned (limit_text, 10, 1, 1000, &limit, NULL)))
    {
      *status = SOUP_STATUS_BAD_REQUEST;
      return g_strdup ("{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                       "\"message\":\"limit: Input should be between 1 and 1000\"},"
                       "\"request_id\":\"req_T\"}");
    }
  if (page_size > 0)
    limit = MIN (limit, page_size);

  /* An unknown id gives an empty page. */
  if (after_id != NULL)
    {
      start = n;
      for (guint i = 0; i < n; i++)
        if (g_str_equal (models[i], after_id))
          start = i + 1;
    }
  if (before_id != NULL)
    {
      end = 0;
      for (guint i = 0; i < n; i++)
        if (g_str_equal (models[i], before_id))
          end = i;
    }
  end = MAX (start, end);

  if (before_id != NULL && after_id == NULL)
    {
      /* The page just before before_id; more means more before it. */
      last = end;
      first = end - MIN (limit, end - start);
      has_more = first > start;
    }
  else
    {
      first = start;
      last = start + MIN (limit, end - start);
      has_more = last < end;
    }

  s = g_string_new ("{\"data\":[");
  for (guint i = first; i < last; i++)
    {
      g_string_append (s, i > first ? "," : "");
      g_string_append (s, "{\"type\":\"model\",\"id\":");
      append_json_string (s, models[i]);
      g_string_append (s, ",\"display_name\":");
      append_json_string (s, models[i]);
      g_string_append (s, ",\"created_at\":\"" FAKE_CREATED_AT "\"}");
    }
  g_string_append_printf (s, "],\"has_more\":%s,\"first_id\":", has_more ? "true" : "false");
  append_nullable_id (s, last > first ? models[first] : NULL);
  g_string_append (s, ",\"last_id\":");
  append_nullable_id (s, last > first ? models[last - 1] : NULL);
  g_string_append_c (s, '}');

  return g_string_free (s, FALSE);
}

/* A model list in the shape the request asks for: Ollama's for /api/tags,
 * Anthropic's if the request has an anthropic-version header, else OpenAI's.
 */
static char *
render_model_list (SoupServerMessage  *msg,
                   GHashTable         *query,
                   const char * const *models,
                   guint               page_size,
                   guint              *status)
{
  SoupMessageHeaders *request_headers = soup_server_message_get_request_headers (msg);
  const char *path = g_uri_get_path (soup_server_message_get_uri (msg));
  guint n = g_strv_length ((GStrv) models);
  GString *s = g_string_new (NULL);

  *status = SOUP_STATUS_OK;

  if (g_str_equal (path, "/api/tags"))
    {
      g_string_append (s, "{\"models\":[");
      for (guint i = 0; i < n; i++)
        {
          g_string_append (s, i > 0 ? ",{\"name\":" : "{\"name\":");
          append_json_string (s, models[i]);
          g_string_append (s, ",\"model\":");
          append_json_string (s, models[i]);
          g_string_append_printf (s, ",\"modified_at\":\"" FAKE_CREATED_AT "\",\"size\":%u,"
                                  "\"digest\":\"%064x\",\"details\":{\"format\":\"gguf\","
                                  "\"family\":\"fake\",\"families\":[\"fake\"],"
                                  "\"parameter_size\":\"7B\",\"quantization_level\":\"Q4_0\"}}",
                                  1000000 + i, i);
        }
      g_string_append (s, "]}");
    }
  else if (soup_message_headers_get_one (request_headers, "anthropic-version") != NULL)
    {
      g_string_free (s, TRUE);
      return render_anthropic_models (query, models, page_size, status);
    }
  else
    {
      g_string_append (s, "{\"object\":\"list\",\"data\":[");
      for (guint i = 0; i < n; i++)
        {
          g_string_append (s, i > 0 ? ",{\"id\":" : "{\"id\":");
          append_json_string (s, models[i]);
          g_string_append (s, ",\"object\":\"model\",\"created\":" G_STRINGIFY (FAKE_CREATED)
                              ",\"owned_by\":\"fake-llm\"}");
        }
      g_string_append (s, "]}");
    }

  return g_string_free (s, FALSE);
}

static void
serve_response (SkFakeLlm         *self,
                SoupServerMessage *msg,
                const Response    *r,
                SkFakeLlmDialect   dialect,
                const char        *model,
                GHashTable        *query)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  const char *content_type = r->content_type;

  soup_server_message_set_status (msg, r->status, r->reason);
  for (guint i = 0; i + 1 < r->headers->len; i += 2)
    soup_message_headers_append (headers, g_ptr_array_index (r->headers, i),
                                 g_ptr_array_index (r->headers, i + 1));

  if (r->has_error)
    {
      char *body = render_error (r, dialect, model);

      soup_server_message_set_response (msg, content_type != NULL ? content_type : JSON_TYPE,
                                        SOUP_MEMORY_TAKE, body, strlen (body));
    }
  else if (r->body != NULL)
    {
      gsize size;
      gconstpointer data = g_bytes_get_data (r->body, &size);

      soup_server_message_set_response (msg, content_type != NULL ? content_type : JSON_TYPE,
                                        SOUP_MEMORY_COPY, data, size);
    }
  else if (r->models != NULL)
    {
      guint status = r->status;
      char *body = render_model_list (msg, query, (const char * const *) r->models, r->page_size,
                                      &status);

      if (status != r->status)
        soup_server_message_set_status (msg, status, NULL);
      soup_server_message_set_response (msg, content_type != NULL ? content_type : JSON_TYPE,
                                        SOUP_MEMORY_TAKE, body, strlen (body));
    }
  else if (!r->stream)
    {
      char *body = render_whole (r, dialect, model);

      soup_server_message_set_response (msg, content_type != NULL ? content_type : JSON_TYPE,
                                        SOUP_MEMORY_TAKE, body, strlen (body));
    }
  else
    {
      gboolean drop;
      GPtrArray *chunks = render_stream (r, dialect, &drop);

      if (content_type == NULL)
        content_type = dialect == SK_FAKE_LLM_DIALECT_OLLAMA && r->chunks == NULL ?
                       "application/x-ndjson" : "text/event-stream";
      soup_message_headers_set_content_type (headers, content_type, NULL);
      start_stream (self, msg, chunks, drop);
    }
}

static void
serve_model_list (SkFakeLlm         *self,
                  SoupServerMessage *msg,
                  const char        *path,
                  GHashTable        *query)
{
  g_auto(GStrv) models = NULL;
  char *body;
  guint status = SOUP_STATUS_OK;

  if (g_str_equal (path, "/health"))
    {
      body = g_strdup ("{\"status\":\"ok\"}");
    }
  else
    {
      g_mutex_lock (&self->mutex);
      models = g_strdupv (self->models);
      g_mutex_unlock (&self->mutex);
      body = render_model_list (msg, query, (const char * const *) models, 0, &status);
    }

  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, body,
                                    strlen (body));
}

static SkFakeLlmDialect
dialect_for_path (const char *path)
{
  if (g_str_has_suffix (path, "/chat/completions"))
    return SK_FAKE_LLM_DIALECT_OPENAI;
  if (g_str_equal (path, "/api/chat"))
    return SK_FAKE_LLM_DIALECT_OLLAMA;
  if (g_str_equal (path, "/v1/messages"))
    return SK_FAKE_LLM_DIALECT_ANTHROPIC;

  return SK_FAKE_LLM_DIALECT_NONE;
}

/* Takes the first queued response for @path. A response without a path
 * serves any chat request, but never a listing.
 */
static Response *
take_response (SkFakeLlm  *self,
               const char *path,
               gboolean    strict)
{
  for (GList *l = self->queue.head; l != NULL; l = l->next)
    {
      Response *r = l->data;

      if (r->path != NULL ? g_str_equal (r->path, path) : !strict)
        {
          g_queue_delete_link (&self->queue, l);
          return r;
        }
    }

  return NULL;
}

static char *
request_model (GBytes *body)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize size;
  const char *data = g_bytes_get_data (body, &size);
  JsonNode *root;

  if (size == 0 || !json_parser_load_from_data (parser, data, size, NULL))
    return g_strdup ("fake");

  root = json_parser_get_root (parser);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return g_strdup ("fake");

  return g_strdup (json_object_get_string_member_with_default (json_node_get_object (root), "model",
                                                               "fake"));
}

static void
message_finished_cb (SoupServerMessage *msg,
                     SkFakeLlm         *self)
{
  g_atomic_int_inc (&self->n_finished);
}

static void
server_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  SkFakeLlm *self = user_data;
  SkFakeLlmRequest *request = g_atomic_rc_box_new0 (SkFakeLlmRequest);
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  SoupMessageHeadersIter iter;
  const char *name, *value;
  SkFakeLlmDialect dialect = dialect_for_path (path);
  const char *method = soup_server_message_get_method (msg);
  gboolean is_list;
  g_autofree char *model = NULL;
  Response *r;

  g_signal_connect (msg, "finished", G_CALLBACK (message_finished_cb), self);

  request->method = g_strdup (method);
  request->path = g_strdup (path);
  request->query = g_strdup (g_uri_get_query (soup_server_message_get_uri (msg)));
  request->headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_REQUEST);
  soup_message_headers_iter_init (&iter, headers);
  while (soup_message_headers_iter_next (&iter, &name, &value))
    soup_message_headers_append (request->headers, name, value);
  request->body = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  request->dialect = dialect;
  request->time_us = g_get_monotonic_time ();
  model = request_model (request->body);

  is_list = g_str_equal (method, "GET") &&
            (g_str_equal (path, "/v1/models") || g_str_equal (path, "/api/tags") ||
             g_str_equal (path, "/health"));

  g_mutex_lock (&self->mutex);
  g_ptr_array_add (self->requests, request);
  r = take_response (self, path, is_list || dialect == SK_FAKE_LLM_DIALECT_NONE);
  if (r != NULL && self->recycle)
    g_queue_push_tail (&self->queue, r);
  g_mutex_unlock (&self->mutex);

  g_debug ("%s %s: %s", method, path, r != NULL ? "scripted response" : "default");

  if (r != NULL)
    {
      serve_response (self, msg, r, dialect, model, query);
      if (!self->recycle)
        response_free (r);
    }
  else if (is_list)
    {
      serve_model_list (self, msg, path, query);
    }
  else
    {
      static const char unscripted[] = "{\"error\":{\"message\":"
                                       "\"fake-llm: no scripted response left\","
                                       "\"type\":\"server_error\",\"param\":null,\"code\":null}}";

      soup_server_message_set_status (msg, dialect == SK_FAKE_LLM_DIALECT_NONE ?
                                      SOUP_STATUS_NOT_FOUND : SOUP_STATUS_INTERNAL_SERVER_ERROR,
                                      NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        unscripted, strlen (unscripted));
    }
}

static gboolean
stop_cb (gpointer user_data)
{
  SkFakeLlm *self = user_data;

  while (self->streams != NULL)
    stream_detach (self->streams->data);
  soup_server_disconnect (self->server);
  g_clear_object (&self->server);
  g_main_loop_quit (self->loop);

  return G_SOURCE_REMOVE;
}

static gpointer
server_thread (gpointer user_data)
{
  SkFakeLlm *self = user_data;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GError) error = NULL;
  GSList *sockets;

  g_main_context_push_thread_default (self->context);

  self->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (self->server, NULL, server_cb, self, NULL);
  address = g_inet_socket_address_new_from_string ("127.0.0.1", self->wanted_port);
  if (soup_server_listen (self->server, address, 0, &error))
    {
      /* The port is read from the listening socket rather than from
       * soup_server_get_uris(): libsoup before 3.4 never frees the address
       * that the latter caches, which the leak checker would report. */
      sockets = soup_server_get_listeners (self->server);
      bound = g_socket_get_local_address (sockets->data, &error);
      g_assert_no_error (error);
      g_slist_free (sockets);
      self->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
      self->openai_url = g_strdup_printf ("http://127.0.0.1:%u/v1", self->port);
      self->root_url = g_strdup_printf ("http://127.0.0.1:%u", self->port);
    }
  else
    {
      g_clear_object (&self->server);
    }

  g_mutex_lock (&self->mutex);
  self->start_error = g_steal_pointer (&error);
  self->started = TRUE;
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->mutex);

  if (self->server != NULL)
    g_main_loop_run (self->loop);

  /* Let closed connections release what they hold. */
  while (g_main_context_iteration (self->context, FALSE))
    ;
  g_main_context_pop_thread_default (self->context);

  return NULL;
}

static void
load_builtins (SkFakeLlm *self)
{
  g_autoptr(GBytes) data = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  data = g_resource_lookup_data (sk_fake_llm_get_resource (), BUILTIN_RESOURCE,
                                 G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
  g_assert_no_error (error);
  json_parser_load_from_data (parser, g_bytes_get_data (data, NULL), g_bytes_get_size (data),
                              &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  register_scenarios (self,
                      json_object_get_object_member (json_node_get_object (root), "scenarios"),
                      &error);
  g_assert_no_error (error);
}

/**
 * sk_fake_llm_new_on_port:
 * @port: the port to listen on at 127.0.0.1, or 0 for any free one
 * @error: return location for an error
 *
 * Starts a fake LLM server on a thread of its own.
 *
 * Returns: (transfer full) (nullable): the server, or %NULL if it cannot listen
 */
SkFakeLlm *
sk_fake_llm_new_on_port (guint    port,
                         GError **error)
{
  static const char * const default_models[] = { "fake", "fake-coder:7b", NULL };
  SkFakeLlm *self = g_new0 (SkFakeLlm, 1);

  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  g_queue_init (&self->queue);
  self->wanted_port = port;
  self->requests = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_fake_llm_request_unref);
  self->scenarios = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) json_node_unref);
  self->models = g_strdupv ((GStrv) default_models);
  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  load_builtins (self);

  self->thread = g_thread_new ("sk-fake-llm", server_thread, self);
  g_mutex_lock (&self->mutex);
  while (!self->started)
    g_cond_wait (&self->cond, &self->mutex);
  g_mutex_unlock (&self->mutex);

  if (self->start_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->start_error));
      sk_fake_llm_free (self);
      return NULL;
    }

  return self;
}

/**
 * sk_fake_llm_new:
 *
 * Starts a fake LLM server on a free port of 127.0.0.1.
 *
 * Returns: (transfer full): the server
 */
SkFakeLlm *
sk_fake_llm_new (void)
{
  g_autoptr(GError) error = NULL;
  SkFakeLlm *self = sk_fake_llm_new_on_port (0, &error);

  g_assert_no_error (error);

  return self;
}

/**
 * sk_fake_llm_free:
 * @self: a fake server
 *
 * Closes every connection, stops the server thread and frees @self.
 */
void
sk_fake_llm_free (SkFakeLlm *self)
{
  if (self->server != NULL)
    g_main_context_invoke (self->context, stop_cb, self);
  else
    g_main_loop_quit (self->loop);
  g_thread_join (self->thread);

  g_main_loop_unref (self->loop);
  g_main_context_unref (self->context);
  g_queue_clear_full (&self->queue, response_free);
  g_ptr_array_unref (self->requests);
  g_hash_table_unref (self->scenarios);
  g_strfreev (self->models);
  g_free (self->openai_url);
  g_free (self->root_url);
  g_clear_error (&self->start_error);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);
  g_free (self);
}

guint
sk_fake_llm_get_port (SkFakeLlm *self)
{
  return self->port;
}

/**
 * sk_fake_llm_get_base_url:
 * @self: a fake server
 * @dialect: the dialect a client will speak
 *
 * Returns: the base URL a client of @dialect is configured with:
 *   "http://127.0.0.1:PORT/v1" for OpenAI, "http://127.0.0.1:PORT" otherwise
 */
const char *
sk_fake_llm_get_base_url (SkFakeLlm        *self,
                          SkFakeLlmDialect  dialect)
{
  return dialect == SK_FAKE_LLM_DIALECT_OPENAI ? self->openai_url : self->root_url;
}

/**
 * sk_fake_llm_push:
 * @self: a fake server
 * @scenario_name: a built-in scenario or one a loaded file defined
 * @error: return location for an error
 *
 * Queues the responses of a named scenario.
 *
 * Returns: %TRUE if the scenario exists
 */
gboolean
sk_fake_llm_push (SkFakeLlm   *self,
                  const char  *scenario_name,
                  GError     **error)
{
  g_autoptr(GPtrArray) responses = g_ptr_array_new_with_free_func (response_free);

  if (!expand_named (self, scenario_name, responses, 0, error))
    return FALSE;

  g_mutex_lock (&self->mutex);
  for (guint i = 0; i < responses->len; i++)
    g_queue_push_tail (&self->queue, g_ptr_array_steal_index (responses, i--));
  g_mutex_unlock (&self->mutex);

  return TRUE;
}

/**
 * sk_fake_llm_push_json:
 * @self: a fake server
 * @json: a response object, an array of them, or a whole scenario file
 * @error: return location for an error
 *
 * Returns: %TRUE if @json was valid and its responses were queued
 */
gboolean
sk_fake_llm_push_json (SkFakeLlm   *self,
                       const char  *json,
                       GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (!json_parser_load_from_data (parser, json, -1, error))
    return FALSE;

  return load_root (self, json_parser_get_root (parser), error);
}

gboolean
sk_fake_llm_load_scenario_file (SkFakeLlm   *self,
                                const char  *path,
                                GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (!json_parser_load_from_file (parser, path, error))
    return FALSE;

  return load_root (self, json_parser_get_root (parser), error);
}

guint
sk_fake_llm_get_n_pending (SkFakeLlm *self)
{
  guint n;

  g_mutex_lock (&self->mutex);
  n = self->queue.length;
  g_mutex_unlock (&self->mutex);

  return n;
}

/**
 * sk_fake_llm_push_tool_call:
 * @text: what the model says before the call
 * @tool: the tool's name
 * @first_argument: the name of the call's first string argument
 * @second_argument: (nullable): the name of a second one
 *
 * Queues one reply of a model that plays a coding agent: a sentence and one
 * tool call with string arguments, reading 100 tokens and writing 20. The
 * calls get the ids call_1, call_2, … in the order they are queued.
 *
 * Returns: whether the reply could be queued
 */
gboolean
sk_fake_llm_push_tool_call (SkFakeLlm   *self,
                            const char  *text,
                            const char  *tool,
                            const char  *first_argument,
                            const char  *first_value,
                            const char  *second_argument,
                            const char  *second_value,
                            GError     **error)
{
  g_autoptr(JsonBuilder) arguments = json_builder_new ();
  g_autoptr(JsonBuilder) response = json_builder_new ();
  g_autoptr(JsonNode) arguments_node = NULL;
  g_autoptr(JsonNode) response_node = NULL;
  g_autofree char *arguments_text = NULL;
  g_autofree char *response_text = NULL;
  g_autofree char *id = NULL;

  id = g_strdup_printf ("call_%u", (guint) g_atomic_int_add (&self->n_tool_calls, 1) + 1);

  json_builder_begin_object (arguments);
  json_builder_set_member_name (arguments, first_argument);
  json_builder_add_string_value (arguments, first_value);
  if (second_argument != NULL)
    {
      json_builder_set_member_name (arguments, second_argument);
      json_builder_add_string_value (arguments, second_value);
    }
  json_builder_end_object (arguments);
  arguments_node = json_builder_get_root (arguments);
  arguments_text = json_to_string (arguments_node, FALSE);

  json_builder_begin_object (response);
  json_builder_set_member_name (response, "usage");
  json_builder_begin_object (response);
  json_builder_set_member_name (response, "prompt_tokens");
  json_builder_add_int_value (response, 100);
  json_builder_set_member_name (response, "completion_tokens");
  json_builder_add_int_value (response, 20);
  json_builder_end_object (response);
  json_builder_set_member_name (response, "parts");
  json_builder_begin_array (response);
  json_builder_begin_object (response);
  json_builder_set_member_name (response, "text");
  json_builder_add_string_value (response, text);
  json_builder_end_object (response);
  json_builder_begin_object (response);
  json_builder_set_member_name (response, "tool_call");
  json_builder_begin_object (response);
  json_builder_set_member_name (response, "id");
  json_builder_add_string_value (response, id);
  json_builder_set_member_name (response, "name");
  json_builder_add_string_value (response, tool);
  json_builder_set_member_name (response, "arguments");
  json_builder_begin_array (response);
  json_builder_add_string_value (response, arguments_text);
  json_builder_end_array (response);
  json_builder_end_object (response);
  json_builder_end_object (response);
  json_builder_end_array (response);
  json_builder_end_object (response);
  response_node = json_builder_get_root (response);
  response_text = json_to_string (response_node, FALSE);

  return sk_fake_llm_push_json (self, response_text, error);
}

/**
 * sk_fake_llm_set_recycle:
 * @self: a fake server
 * @recycle: whether served responses go back to the end of the queue
 *
 * With @recycle the queue never runs dry, which suits a server for people.
 */
void
sk_fake_llm_set_recycle (SkFakeLlm *self,
                         gboolean   recycle)
{
  g_mutex_lock (&self->mutex);
  self->recycle = recycle;
  g_mutex_unlock (&self->mutex);
}

void
sk_fake_llm_set_models (SkFakeLlm          *self,
                        const char * const *models)
{
  g_mutex_lock (&self->mutex);
  g_strfreev (self->models);
  self->models = g_strdupv ((GStrv) models);
  g_mutex_unlock (&self->mutex);
}

static gpointer
copy_request (gconstpointer src,
              gpointer      user_data)
{
  return sk_fake_llm_request_ref ((SkFakeLlmRequest *) src);
}

/**
 * sk_fake_llm_dup_requests:
 * @self: a fake server
 *
 * Returns: (transfer container) (element-type SkFakeLlmRequest): the
 *   requests received so far, oldest first
 */
GPtrArray *
sk_fake_llm_dup_requests (SkFakeLlm *self)
{
  GPtrArray *copy;

  g_mutex_lock (&self->mutex);
  copy = g_ptr_array_copy (self->requests, copy_request, NULL);
  g_mutex_unlock (&self->mutex);
  g_ptr_array_set_free_func (copy, (GDestroyNotify) sk_fake_llm_request_unref);

  return copy;
}

guint
sk_fake_llm_get_n_requests (SkFakeLlm *self)
{
  guint n;

  g_mutex_lock (&self->mutex);
  n = self->requests->len;
  g_mutex_unlock (&self->mutex);

  return n;
}

/* The number of responses the server has finished sending, dropped ones
 * included.
 */
guint
sk_fake_llm_get_n_finished (SkFakeLlm *self)
{
  return g_atomic_int_get (&self->n_finished);
}

const char * const *
sk_fake_llm_get_builtin_scenarios (void)
{
  return builtin_names;
}
