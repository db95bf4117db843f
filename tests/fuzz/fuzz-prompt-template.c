/* fuzz-prompt-template.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Renders arbitrary text as a prompt template with a few fixed values, and
 * lists its tags: both must agree on whether the template is well formed.
 */

#include "config.h"

#include "sk-prompt-template.h"

#include "fuzz-common.h"

static GHashTable *values;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  sk_fuzz_init ();

  /* Kept for the whole run; LeakSanitizer does not count what is still
   * reachable from a global. */
  values = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (values, (char *) "node_name", (char *) "Load “sales”");
  g_hash_table_insert (values, (char *) "node_key", (char *) "load_sales");
  g_hash_table_insert (values, (char *) "attempt", (char *) "2");
  g_hash_table_insert (values, (char *) "empty", (char *) "");
  g_hash_table_insert (values, (char *) "script", (char *) "{node_key/start}\n{script}\n");
  return 0;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autofree char *rendered = NULL;
  g_auto(GStrv) tags = NULL;
  g_autoptr(GError) render_error = NULL;
  g_autoptr(GError) tags_error = NULL;

  rendered = sk_prompt_template_render (text, values, &render_error);
  g_assert ((rendered == NULL) == (render_error != NULL));

  tags = sk_prompt_template_get_tags (text, &tags_error);
  g_assert ((tags == NULL) == (tags_error != NULL));

  if ((rendered == NULL) != (tags == NULL))
    g_error ("Rendering and listing tags disagree on a template: %s / %s",
             render_error != NULL ? render_error->message : "rendered",
             tags_error != NULL ? tags_error->message : "listed");

  return 0;
}
