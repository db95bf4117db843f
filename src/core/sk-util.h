/* sk-util.h
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

/* For g_ptr_array_sort() on an array of strings, which passes pointers to
 * the elements. */
int       sk_util_compare_strings (gconstpointer  a,
                                   gconstpointer  b);
GStrv     sk_util_sorted_strv     (GPtrArray     *strings);
gboolean  sk_util_is_blank        (const char    *text);

G_END_DECLS
