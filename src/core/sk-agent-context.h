/* sk-agent-context.h
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

/**
 * SkAgentContextScope:
 * @SK_AGENT_CONTEXT_BLANKET: the node's Markov blanket as sk_project_get_markov_blanket()
 *   defines it: the steps it needs and the steps that use its results
 * @SK_AGENT_CONTEXT_TWO_HOP: every step within two edges of the node, whichever way
 *   the edges point (so also the steps its priors need, the steps that use its
 *   successors' results, its siblings and its successors' other priors)
 * @SK_AGENT_CONTEXT_FULL: every step of the workflow
 *
 * How much of the workflow the coding agent is shown about a step.
 */
typedef enum
{
  SK_AGENT_CONTEXT_BLANKET,
  SK_AGENT_CONTEXT_TWO_HOP,
  SK_AGENT_CONTEXT_FULL,
} SkAgentContextScope;

/* The longest script text put in a context; longer ones are cut. */
#define SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE (64 * 1024)

GPtrArray *sk_agent_context_nodes (SkProject            *project,
                                   SkNode               *node,
                                   SkAgentContextScope   scope);
char      *sk_agent_context_build (SkProject            *project,
                                   SkNode               *node,
                                   SkAgentContextScope   scope,
                                   GError              **error);

G_END_DECLS
