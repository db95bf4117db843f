/* sk-llm-stream-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "sk-llm-stream.h"

G_BEGIN_DECLS

/* A hostile or broken server could send forever; these bound what one reply
 * may hold, far above anything a real reply needs. The largest real line is
 * a tool call carrying a whole script, well under a MiB. MAX_TEXT_LENGTH
 * covers the text and thinking of a reply together, about two million
 * tokens, many times the output limit of today's models. The tool calls of
 * one reply are bounded in number and in the size of all their arguments.
 */
#define MiB (1024 * 1024)
#define MAX_LINE_LENGTH (4 * MiB)
#define MAX_TEXT_LENGTH (8 * MiB)
#define MAX_ARGUMENTS_LENGTH (8 * MiB)
#define MAX_TOOL_CALLS 100

typedef struct
{
  char    *id;
  char    *name;
  GString *arguments;
  gboolean arguments_replaced;
} PendingCall;

struct _SkLlmStream
{
  SkLlmProvider   dialect;
  SkLlmEventFunc  event_func;
  gpointer        event_data;

  GByteArray     *buffer;
  gsize           scan_from;
  gsize           max_line;

  GString        *data;
  gboolean        have_data;
  char           *event_name;

  GString        *text;
  GString        *reasoning;
  GPtrArray      *calls;
  GHashTable     *calls_by_index;
  PendingCall    *last_call;
  char           *finish_reason;
  SkLlmUsage      usage;

  /* A limit that was passed, reported after the line being decoded. */
  GError         *limit_error;

  guint           done : 1;
  guint           has_output : 1;
};

/* sk-llm-stream.c: what the dialects build a reply with. */
void         _sk_llm_stream_add_call_arguments       (SkLlmStream  *self,
                                                      PendingCall  *call,
                                                      const char   *text,
                                                      gboolean      replace);
void         _sk_llm_stream_add_reasoning            (SkLlmStream  *self,
                                                      const char   *text);
void         _sk_llm_stream_add_text                 (SkLlmStream  *self,
                                                      const char   *text);
gboolean     _sk_llm_stream_get_int_or_double        (JsonObject   *object,
                                                      const char   *name,
                                                      gint64       *value);
PendingCall *_sk_llm_stream_new_call                 (SkLlmStream  *self,
                                                      gint64        index,
                                                      const char   *id);
JsonNode    *_sk_llm_stream_parse_json               (const char   *text,
                                                      gsize         length,
                                                      GError      **error);
void         _sk_llm_stream_set_call_arguments_node  (SkLlmStream  *self,
                                                      PendingCall  *call,
                                                      JsonNode     *arguments,
                                                      gboolean      append);
void         _sk_llm_stream_set_call_name            (SkLlmStream  *self,
                                                      PendingCall  *call,
                                                      const char   *name);
void         _sk_llm_stream_set_finish_reason        (SkLlmStream  *self,
                                                      const char   *reason);
gboolean     _sk_llm_stream_stream_error             (JsonNode     *node,
                                                      GError      **error);

/* sk-llm-stream-dialects.c: the events of each dialect. */
gboolean     _sk_llm_stream_anthropic_event          (SkLlmStream  *self,
                                                      const char   *event_name,
                                                      const char   *data,
                                                      GError      **error);
gboolean     _sk_llm_stream_ollama_line              (SkLlmStream  *self,
                                                      const char   *line,
                                                      gsize         length,
                                                      GError      **error);
gboolean     _sk_llm_stream_openai_event             (SkLlmStream  *self,
                                                      const char   *event_name,
                                                      const char   *data,
                                                      GError      **error);
gboolean     _sk_llm_stream_parse_anthropic_complete (SkLlmStream  *self,
                                                      JsonNode     *node,
                                                      GError      **error);
gboolean     _sk_llm_stream_parse_openai_complete    (SkLlmStream  *self,
                                                      JsonNode     *node,
                                                      GError      **error);

G_END_DECLS
