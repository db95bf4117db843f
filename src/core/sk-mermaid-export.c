/* sk-mermaid-export.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A workflow as a Mermaid flowchart (DESIGN §11): one node per step, named
 * by its key, one link per prior with the condition as its label, and a
 * comment block that keeps what Mermaid cannot say, in the form of the
 * task-daemon seed, so that importing the chart gives the workflow back.
 */

#define G_LOG_DOMAIN "sk-mermaid-export"

#include "config.h"

#include <string.h>

#include "sk-control-flow.h"
#include "sk-export.h"
#include "sk-json.h"

/* Words Mermaid reads as keywords where a node's identifier stands. */
static const char * const reserved_ids[] = {
  "end", "graph", "flowchart", "subgraph", "style", "linkstyle", "classdef",
  "class", "click", "call", "href", "direction", "default", "interpolate",
  "workflow",
};

/* Text inside a quoted Mermaid string: quotes, the entity character and
 * what Mermaid reads as markup become entities, and a line break becomes
 * <br>. */
static void
append_quoted (GString    *out,
               const char *text)
{
  g_string_append_c (out, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      switch (*p)
        {
        case '"':
          g_string_append (out, "#quot;");
          break;
        case '#':
          g_string_append (out, "#35;");
          break;
        /* A backtick opens a Markdown string, and the importer reads HTML
         * entities and line breaks: each stands for itself this way. */
        case '`':
          g_string_append (out, "#96;");
          break;
        case '&':
          g_string_append (out, "#38;");
          break;
        case '<':
          g_string_append (out, "#60;");
          break;
        case '>':
          g_string_append (out, "#62;");
          break;
        case '\n':
          g_string_append (out, "<br>");
          break;
        case '\r':
          break;
        default:
          g_string_append_c (out, *p);
        }
    }
  g_string_append_c (out, '"');
}

static char *
mermaid_id (SkNode *node)
{
  const char *key = sk_node_get_key (node);
  g_autofree char *lower = g_ascii_strdown (key, -1);

  for (guint i = 0; i < G_N_ELEMENTS (reserved_ids); i++)
    if (g_str_equal (lower, reserved_ids[i]))
      return g_strconcat ("step_", key, NULL);

  /* A key such as "2024" is a fine folder but reads as a number. */
  if (key[0] == '\0' || g_ascii_isdigit (key[0]))
    return g_strconcat ("step_", key, NULL);

  return g_strdup (key);
}

static gboolean
has_conditions_after (SkProject *project,
                      SkNode    *prior)
{
  g_autoptr(GPtrArray) successors = sk_project_get_successors (project, prior);

  for (guint i = 0; i < successors->len; i++)
    if (sk_node_get_condition (g_ptr_array_index (successors, i), sk_node_get_id (prior)) != NULL)
      return TRUE;

  return FALSE;
}

/* The config entry of @node: the seed's own members, which other tools
 * read, and the step as Skele-Code keeps it. */
static JsonObject *
config_entry (SkProject *project,
              SkNode    *node)
{
  JsonObject *entry = json_object_new ();
  g_autoptr(JsonObject) skele = sk_node_to_json (node);
  const char *foreach_path = NULL;

  if (sk_node_get_foreach (node, NULL, &foreach_path))
    {
      g_autofree char *items = g_strconcat ("output.", foreach_path, NULL);

      json_object_set_string_member (entry, "stepType", "foreach");
      json_object_set_string_member (entry, "itemsPath", items);
    }
  else if (sk_node_get_workflow (node) != NULL)
    json_object_set_string_member (entry, "stepType", "flow");
  else if (has_conditions_after (project, node))
    json_object_set_string_member (entry, "stepType", "decision");
  else
    json_object_set_string_member (entry, "stepType", "task");

  json_object_set_string_member (entry, "execution", sk_node_get_approval (node) ? "manual" : "automated");
  json_object_set_string_member (entry, "prompt", sk_node_get_input_text (node));

  /* The step's identifier, which its conditions and for-each name their
   * priors by, and everything but what the chart itself says. */
  json_object_set_string_member (entry, "id", sk_node_get_id (node));
  json_object_remove_member (skele, "name");
  json_object_remove_member (skele, "priors");
  json_object_set_object_member (entry, "skele", g_steal_pointer (&skele));

  return entry;
}

static void
append_config (GString    *out,
               const char *id,
               JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *text = json_to_string (node, TRUE);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  g_string_append_printf (out, "%%%% @%s: ", id);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append (out, "%% ");
      g_string_append (out, lines[i]);
      g_string_append_c (out, '\n');
    }
}

/**
 * sk_export_mermaid:
 * @project: a workflow
 *
 * Writes @project as a Mermaid flowchart, top to bottom: a node for each
 * step, in the workflow's order, labelled with its name; a link from each
 * prior, labelled with its condition; and the `WORKFLOW_CONFIG` comment
 * block with each step's task, kind (`task`, `decision`, `foreach` with its
 * `itemsPath`, `flow`), `execution` (`manual` for an approval gate), its
 * identifier and the rest of its JSON under `skele`, and the workflow's
 * name and description under `@workflow`.
 *
 * Returns: (transfer full): the flowchart
 */
char *
sk_export_mermaid (SkProject *project)
{
  g_autoptr(GString) out = g_string_new ("flowchart TD\n");
  g_autoptr(GHashTable) ids = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) assigned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(JsonObject) workflow = json_object_new ();
  guint n;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);

  n = g_list_model_get_n_items (G_LIST_MODEL (project));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      g_hash_table_add (used, g_strdup (sk_node_get_key (node)));
    }

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      char *id = mermaid_id (node);

      /* A key given a prefix may meet another step's key, and a workflow
       * being edited may repeat a key: the chart's identifiers stay
       * distinct. */
      if (g_hash_table_contains (assigned, id) ||
          (!g_str_equal (id, sk_node_get_key (node)) && g_hash_table_contains (used, id)))
        {
          g_autofree char *base = id;

          id = NULL;
          for (guint k = 2; id == NULL || g_hash_table_contains (used, id) ||
                            g_hash_table_contains (assigned, id); k++)
            {
              g_free (id);
              id = g_strdup_printf ("%s_%u", base, k);
            }
        }
      g_hash_table_add (assigned, g_strdup (id));

      g_string_append_printf (out, "    %s[", id);
      append_quoted (out, sk_node_get_name (node));
      g_string_append (out, "]\n");
      g_hash_table_insert (ids, node, id);
    }

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      const char * const *priors = sk_node_get_priors (node);

      for (guint j = 0; priors[j] != NULL; j++)
        {
          SkNode *prior = sk_project_get_node (project, priors[j]);
          const char *condition;

          /* A prior that does not exist has no node to link from. */
          if (prior == NULL)
            continue;

          g_string_append_printf (out, "    %s -->", (const char *) g_hash_table_lookup (ids, prior));
          condition = sk_node_get_condition (node, priors[j]);
          if (condition != NULL)
            {
              g_string_append_c (out, '|');
              append_quoted (out, condition);
              g_string_append_c (out, '|');
            }
          g_string_append_printf (out, " %s\n", (const char *) g_hash_table_lookup (ids, node));
        }
    }

  g_string_append (out, "\n" SK_MERMAID_CONFIG_START "\n");
  json_object_set_string_member (workflow, "name", sk_project_get_name (project));
  json_object_set_string_member (workflow, "description", sk_project_get_description (project));
  append_config (out, "workflow", workflow);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      g_autoptr(JsonObject) entry = config_entry (project, node);

      append_config (out, g_hash_table_lookup (ids, node), entry);
    }
  g_string_append (out, SK_MERMAID_CONFIG_END "\n");

  return g_string_free (g_steal_pointer (&out), FALSE);
}
