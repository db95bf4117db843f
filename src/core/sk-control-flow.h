/* sk-control-flow.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A step's control flow, as DESIGN §10 stores it under the step's "skele"
 * member: an approval gate, conditions on the edges from its priors, a
 * for-each over a prior's list, or a sub-workflow.
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <glib.h>

#include "sk-node.h"

G_BEGIN_DECLS

/* The word that takes the edge when no other condition on the prior is
 * true. */
#define SK_CONTROL_FLOW_DEFAULT "default"

gboolean    sk_node_get_approval        (SkNode     *node);
const char *sk_node_get_condition       (SkNode     *node,
                                         const char *prior_id);
gboolean    sk_node_get_foreach         (SkNode     *node,
                                         const char **prior_id,
                                         const char **path);
const char *sk_node_get_workflow        (SkNode     *node);

G_END_DECLS
