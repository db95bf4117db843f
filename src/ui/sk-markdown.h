/* sk-markdown.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

gboolean    sk_markdown_looks_like   (const char    *text);
void        sk_markdown_render       (GtkTextBuffer *buffer,
                                      const char    *text);
const char *sk_markdown_get_link_at  (GtkTextIter   *iter);
void        sk_markdown_setup_view   (GtkTextView   *view);

G_END_DECLS
