/* sk-llm-request.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The body of a chat request in each dialect. Private to the core.
 */

#pragma once

#include "sk-llm.h"

G_BEGIN_DECLS

GBytes *sk_llm_request_build_chat_body (SkLlmProvider  provider,
                                        const char    *base_url,
                                        const char    *model,
                                        guint          max_tokens,
                                        const char    *system,
                                        GPtrArray     *messages,
                                        GPtrArray     *tools);

G_END_DECLS
