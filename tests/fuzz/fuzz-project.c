/* fuzz-project.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Loads arbitrary bytes as a process.json, validates the workflow and saves
 * it to text: what was saved must load again, and saving that gives the
 * same text. When the fast reader of the canonical form reads the bytes, the
 * lenient reading must give the same workflow and the same problems; and
 * the text written straight from the workflow must be json-glib's. The
 * fast reader of any JSON must read what json-glib's parser reads.
 */

#include "config.h"

#include <string.h>

#include "sk-json.h"
#include "sk-project-private.h"

#include "fuzz-common.h"

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  sk_fuzz_init ();
  return 0;
}

static char *
describe (SkProject *project)
{
  g_autoptr(GPtrArray) problems = sk_project_validate (project);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *saved = sk_project_to_data (project, NULL);
  g_autofree char *generic = _sk_project_to_data_generic (project, NULL);

  if (strcmp (saved, generic) != 0)
    g_error ("The two writings differ:\n%s\n---\n%s", generic, saved);

  g_string_append_printf (out, "modified %d\n%s\n", sk_project_get_modified (project), saved);
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      g_string_append_printf (out, "problem %d %d %s: %s\n", problem->kind, problem->is_warning,
                              problem->node_id != NULL ? problem->node_id : "-", problem->message);
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
check_fast_reader (const guint8 *data,
                   size_t        size)
{
  g_autoptr(SkProject) fast = _sk_project_load_canonical ((const char *) data, size, NULL);
  g_autoptr(SkProject) lenient = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *actual = NULL;

  if (fast == NULL)
    return;

  lenient = _sk_project_load_lenient ((const char *) data, (gssize) size, NULL, &error);
  if (lenient == NULL)
    g_error ("The fast reader read what the lenient reading refuses: %s", error->message);

  expected = describe (lenient);
  actual = describe (fast);
  if (strcmp (expected, actual) != 0)
    g_error ("The two readings differ:\n%s\n---\n%s", expected, actual);
}

/* What the fast reader of JSON reads, json-glib's parser reads the same. */
static void
check_canonical_json (const guint8 *data,
                      size_t        size)
{
  g_autoptr(JsonNode) fast = sk_json_read_canonical ((const char *) data, size);
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *actual = NULL;

  if (fast == NULL)
    return;

  if (!sk_json_check_depth ((const char *) data, (gssize) size, SK_JSON_MAX_DEPTH, &error))
    g_error ("The fast reader read JSON nested too deep: %s", error->message);
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, (const char *) data, (gssize) size, &error))
    g_error ("The fast reader read what json-glib refuses: %s", error->message);

  expected = sk_json_to_data (json_parser_get_root (parser), TRUE, NULL);
  actual = sk_json_to_data (fast, TRUE, NULL);
  if (strcmp (expected, actual) != 0 || !json_node_equal (fast, json_parser_get_root (parser)))
    g_error ("The two readings of JSON differ:\n%s\n---\n%s", expected, actual);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkProject) reloaded = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *saved_again = NULL;
  gsize saved_length = 0;
  gsize saved_again_length = 0;

  check_fast_reader (data, size);
  check_canonical_json (data, size);

  project = sk_project_load_from_data ((const char *) data, (gssize) size, NULL, &error);
  if (project == NULL)
    {
      g_assert (error != NULL);
      return 0;
    }

  problems = sk_project_validate (project);
  g_assert (problems != NULL);
  g_free (describe (project));

  saved = sk_project_to_data (project, &saved_length);
  g_assert (saved != NULL);

  reloaded = sk_project_load_from_data (saved, (gssize) saved_length, NULL, &error);
  if (reloaded == NULL)
    g_error ("A saved workflow did not load again: %s\n%s", error->message, saved);

  saved_again = sk_project_to_data (reloaded, &saved_again_length);
  if (saved_length != saved_again_length || memcmp (saved, saved_again, saved_length) != 0)
    g_error ("Saving a reloaded workflow changed it:\n%s\n---\n%s", saved, saved_again);

  return 0;
}
