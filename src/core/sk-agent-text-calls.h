/* sk-agent-text-calls.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tool calls that models without native tool calls write in their
 * replies, as fenced `tool` blocks.
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-llm.h"

G_BEGIN_DECLS

GPtrArray *sk_agent_text_calls_parse (const char  *reply,
                                      GError     **error);

G_END_DECLS
