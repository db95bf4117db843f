/* sk-types.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/* Forward declarations of the core's object types, so that a header can name
 * a type without including the header that defines it. Each type's own
 * header repeats its typedef through G_DECLARE_FINAL_TYPE, which C11 allows.
 */
typedef struct _SkAgent      SkAgent;
typedef struct _SkAgentTools SkAgentTools;
typedef struct _SkHistory    SkHistory;
typedef struct _SkLlmClient  SkLlmClient;
typedef struct _SkNode       SkNode;
typedef struct _SkProcess    SkProcess;
typedef struct _SkProject    SkProject;
typedef struct _SkRunner     SkRunner;
typedef struct _SkScriptFile SkScriptFile;
typedef struct _SkWorkspace  SkWorkspace;

G_END_DECLS
