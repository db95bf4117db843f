/* sk-node-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-node.h"

G_BEGIN_DECLS

void      _sk_node_load_json        (SkNode     *self,
                                     JsonObject *object,
                                     GPtrArray  *problems);
JsonNode *_sk_node_get_skele_member (SkNode     *self,
                                     const char *member);

G_END_DECLS
