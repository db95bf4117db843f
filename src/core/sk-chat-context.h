/* sk-chat-context.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <glib.h>

#include "sk-node.h"
#include "sk-project.h"

G_BEGIN_DECLS

/* The first line of a step's task is cut to this many characters in the
 * outline, an ellipsis included. */
#define SK_CHAT_CONTEXT_TASK_CHARS 100

char *sk_chat_context_outline      (SkProject *project,
                                    GPtrArray *selected_nodes);
char *sk_chat_context_step_details (SkProject *project,
                                    SkNode    *node);

G_END_DECLS
