/* sk-util.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-util"

#include "config.h"

#include "sk-util.h"

/**
 * sk_util_compare_strings:
 * @a: a pointer to a string
 * @b: a pointer to a string
 *
 * Compares two strings byte by byte, for g_ptr_array_sort(), which passes
 * pointers to the elements rather than the elements. %NULL sorts first.
 *
 * Returns: less than, equal to or greater than zero, as strcmp() does
 */
int
sk_util_compare_strings (gconstpointer a,
                         gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/**
 * sk_util_sorted_strv:
 * @strings: (transfer full) (element-type utf8): strings the array owns
 *
 * Sorts @strings with sk_util_compare_strings() and turns the array into a
 * %NULL-terminated vector.
 *
 * Returns: (transfer full): the sorted strings
 */
GStrv
sk_util_sorted_strv (GPtrArray *strings)
{
  g_return_val_if_fail (strings != NULL, NULL);

  g_ptr_array_sort (strings, sk_util_compare_strings);
  g_ptr_array_add (strings, NULL);

  return (GStrv) g_ptr_array_free (strings, FALSE);
}

/**
 * sk_util_is_blank:
 * @text: (nullable): UTF-8 text
 *
 * Returns: whether @text is %NULL, empty or only white space
 */
gboolean
sk_util_is_blank (const char *text)
{
  for (const char *p = text; p != NULL && *p != '\0'; p = g_utf8_next_char (p))
    if (!g_unichar_isspace (g_utf8_get_char (p)))
      return FALSE;

  return TRUE;
}
