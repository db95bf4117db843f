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

#include <gio/gio.h>

#include "sk-node.h"
#include "sk-project.h"

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

GPtrArray  *sk_project_get_branches     (SkProject  *project,
                                         SkNode     *prior);

#define SK_CONTROL_FLOW_ERROR (sk_control_flow_error_quark ())

typedef enum
{
  SK_CONTROL_FLOW_ERROR_NOT_A_GATE,
  SK_CONTROL_FLOW_ERROR_NOT_WAITING,
  SK_CONTROL_FLOW_ERROR_WRITE,
  SK_CONTROL_FLOW_ERROR_CHECK,
} SkControlFlowError;

GQuark      sk_control_flow_error_quark (void);

/**
 * SkApproval:
 * @approved: whether the gate was approved, rather than denied
 * @by: who decided
 * @at: when, in ISO 8601
 * @note: (nullable): what they wrote with it
 * @fingerprint: the fingerprint of the gate and what it received when it
 *   was decided; the decision holds only while it is unchanged
 *
 * The decision on an approval gate, kept in `KEY/.skele/approval.json`.
 */
typedef struct
{
  gboolean  approved;
  char     *by;
  char     *at;
  char     *note;
  char     *fingerprint;
} SkApproval;

SkApproval *sk_approval_read            (const char *step_folder,
                                         const char *key);
gboolean    sk_approval_write           (const char *step_folder,
                                         const char *key,
                                         gboolean    approved,
                                         const char *fingerprint,
                                         const char *note,
                                         GError    **error);
char       *sk_approval_describe        (const SkApproval *approval);
void        sk_approval_free            (SkApproval *approval);
char       *sk_approval_get_waiting     (const char *step_folder,
                                         const char *key);
gboolean    sk_project_decide_gate      (SkProject  *project,
                                         SkNode     *node,
                                         gboolean    approved,
                                         const char *note,
                                         GError    **error);

char       *sk_project_get_conditions_key      (SkProject            *project);
gboolean    sk_project_check_conditions        (SkProject            *project,
                                                const char           *python,
                                                GPtrArray            *problems,
                                                GError              **error);
void        sk_project_check_conditions_async  (SkProject            *project,
                                                const char           *python,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
GPtrArray  *sk_project_check_conditions_finish (SkProject            *project,
                                                GAsyncResult         *result,
                                                GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkApproval, sk_approval_free)

G_END_DECLS
