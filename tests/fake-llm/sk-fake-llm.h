/* sk-fake-llm.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A scripted LLM server for the tests: it speaks the OpenAI chat completions,
 * Ollama native and Anthropic Messages dialects on 127.0.0.1 from a thread of
 * its own. See tests/fake-llm/README.md for the scenario format.
 */

#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

typedef enum
{
  SK_FAKE_LLM_DIALECT_OPENAI,
  SK_FAKE_LLM_DIALECT_OLLAMA,
  SK_FAKE_LLM_DIALECT_ANTHROPIC,
  SK_FAKE_LLM_DIALECT_NONE,
} SkFakeLlmDialect;

/* One request as the server received it. Immutable once recorded. */
typedef struct
{
  char               *method;
  char               *path;
  char               *query;      /* nullable */
  SoupMessageHeaders *headers;
  GBytes             *body;
  SkFakeLlmDialect    dialect;    /* from the path */
  gint64              time_us;    /* g_get_monotonic_time () on arrival */
} SkFakeLlmRequest;

typedef struct _SkFakeLlm SkFakeLlm;

SkFakeLlm        *sk_fake_llm_new                  (void);
SkFakeLlm        *sk_fake_llm_new_on_port          (guint              port,
                                                    GError           **error);
void              sk_fake_llm_free                 (SkFakeLlm         *self);

guint             sk_fake_llm_get_port             (SkFakeLlm         *self);
const char       *sk_fake_llm_get_base_url         (SkFakeLlm         *self,
                                                    SkFakeLlmDialect   dialect);

gboolean          sk_fake_llm_push                 (SkFakeLlm         *self,
                                                    const char        *scenario_name,
                                                    GError           **error);
gboolean          sk_fake_llm_push_json            (SkFakeLlm         *self,
                                                    const char        *json,
                                                    GError           **error);
gboolean          sk_fake_llm_push_tool_call       (SkFakeLlm         *self,
                                                    const char        *text,
                                                    const char        *tool,
                                                    const char        *first_argument,
                                                    const char        *first_value,
                                                    const char        *second_argument,
                                                    const char        *second_value,
                                                    GError           **error);
gboolean          sk_fake_llm_load_scenario_file   (SkFakeLlm         *self,
                                                    const char        *path,
                                                    GError           **error);
guint             sk_fake_llm_get_n_pending        (SkFakeLlm         *self);
void              sk_fake_llm_set_recycle          (SkFakeLlm         *self,
                                                    gboolean           recycle);
void              sk_fake_llm_set_models           (SkFakeLlm         *self,
                                                    const char * const *models);

GPtrArray        *sk_fake_llm_dup_requests         (SkFakeLlm         *self);
guint             sk_fake_llm_get_n_requests       (SkFakeLlm         *self);
guint             sk_fake_llm_get_n_finished       (SkFakeLlm         *self);

const char * const *sk_fake_llm_get_builtin_scenarios (void);

SkFakeLlmRequest *sk_fake_llm_request_ref          (SkFakeLlmRequest  *request);
void              sk_fake_llm_request_unref        (SkFakeLlmRequest  *request);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkFakeLlmRequest, sk_fake_llm_request_unref)

G_END_DECLS
