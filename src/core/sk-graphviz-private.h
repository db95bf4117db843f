/* sk-graphviz-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <graphviz/gvc.h>
#include <glib.h>

G_BEGIN_DECLS

/* Graphviz keeps global state and is not thread-safe: arranging and
 * exporting take its one context in turn, from any thread. */
GVC_t *_sk_graphviz_acquire (void);
void   _sk_graphviz_release (void);

G_END_DECLS
