/* sk-subworkflow.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-history.h"
#include "sk-node.h"
#include "sk-project.h"

G_BEGIN_DECLS

#define SK_SUBWORKFLOW_ERROR (sk_subworkflow_error_quark ())

/**
 * SkSubworkflowError:
 * @SK_SUBWORKFLOW_ERROR_UNSAVED: the workflow has no folder yet
 * @SK_SUBWORKFLOW_ERROR_EMPTY: no step was chosen
 * @SK_SUBWORKFLOW_ERROR_NAME: the name has no letters or digits
 * @SK_SUBWORKFLOW_ERROR_SHAPE: the chosen steps cannot form a sub-workflow
 *   as they are connected
 * @SK_SUBWORKFLOW_ERROR_CONTROL_FLOW: a gate, condition, for-each or
 *   sub-workflow of the chosen steps cannot move
 * @SK_SUBWORKFLOW_ERROR_WRITE: the new folder could not be written
 *
 * Why steps could not be made into a sub-workflow.
 */
typedef enum
{
  SK_SUBWORKFLOW_ERROR_UNSAVED,
  SK_SUBWORKFLOW_ERROR_EMPTY,
  SK_SUBWORKFLOW_ERROR_NAME,
  SK_SUBWORKFLOW_ERROR_SHAPE,
  SK_SUBWORKFLOW_ERROR_CONTROL_FLOW,
  SK_SUBWORKFLOW_ERROR_WRITE,
} SkSubworkflowError;

GQuark  sk_subworkflow_error_quark  (void);

SkNode *sk_project_make_subworkflow (SkProject   *project,
                                     GPtrArray   *nodes,
                                     const char  *name,
                                     SkHistory   *history,
                                     char      ***to_check,
                                     GError     **error);

G_END_DECLS
