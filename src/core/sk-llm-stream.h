/* sk-llm-stream.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Turns the bytes of a streamed reply into an SkLlmResponse, for each
 * dialect. Private to the core; the tests use it directly.
 */

#pragma once

#include "sk-llm.h"

G_BEGIN_DECLS

typedef struct _SkLlmStream SkLlmStream;

SkLlmStream   *sk_llm_stream_new            (SkLlmProvider    dialect,
                                             SkLlmEventFunc   event_func,
                                             gpointer         event_data);
void           sk_llm_stream_free           (SkLlmStream     *self);
gboolean       sk_llm_stream_feed           (SkLlmStream     *self,
                                             const char      *data,
                                             gsize            length,
                                             GError         **error);
gboolean       sk_llm_stream_finish         (SkLlmStream     *self,
                                             GError         **error);
gboolean       sk_llm_stream_parse_complete (SkLlmStream     *self,
                                             const char      *body,
                                             gsize            length,
                                             GError         **error);
gboolean       sk_llm_stream_is_done        (SkLlmStream     *self);
gboolean       sk_llm_stream_has_output     (SkLlmStream     *self);
SkLlmResponse *sk_llm_stream_steal_response (SkLlmStream     *self);

gboolean       sk_llm_stream_extract_error  (JsonNode        *node,
                                             char           **message,
                                             char           **type,
                                             char           **code);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkLlmStream, sk_llm_stream_free)

G_END_DECLS
