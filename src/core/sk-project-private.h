/* sk-project-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-project.h"

G_BEGIN_DECLS

JsonObject *_sk_project_header_to_json    (SkProject  *self);
void        _sk_project_apply_header_json (SkProject  *self,
                                           JsonObject *header);

G_END_DECLS
