/* sk-prompts.h
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

const char * const *sk_prompts_list          (void);
char               *sk_prompts_get_override  (const char  *name);
char               *sk_prompts_load          (const char  *name,
                                              GError     **error);
char               *sk_prompts_render        (const char  *name,
                                              GHashTable  *values,
                                              GError     **error);

G_END_DECLS
