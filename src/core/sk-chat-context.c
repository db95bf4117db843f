/* sk-chat-context.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-chat-context"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-chat-context.h"
#include "sk-json.h"

/* The chat agent sees the whole workflow as an outline, one line a step,
 * and fetches a step's details by tool; the design document says what it
 * is given (section 9). The outline must stay stable for the same
 * workflow, so that the model's context changes only when the workflow
 * does. */

static char *
first_line (const char *text,
            guint       max_chars)
{
  g_autofree char *line = NULL;
  const char *end;

  if (text == NULL)
    return g_strdup ("");

  while (*text == '\n' || *text == '\r' || *text == ' ' || *text == '\t')
    text++;
  end = strpbrk (text, "\r\n");
  line = end != NULL ? g_strndup (text, end - text) : g_strdup (text);
  g_strchomp (line);

  if (g_utf8_strlen (line, -1) > max_chars)
    {
      g_autofree char *cut = g_utf8_substring (line, 0, max_chars - 1);

      g_strchomp (cut);
      return g_strconcat (cut, "…", NULL);
    }

  if (end != NULL && end[strspn (end, "\r\n \t")] != '\0')
    return g_strconcat (line, " …", NULL);

  return g_steal_pointer (&line);
}

static void
append_priors (GString *out,
               SkNode  *node)
{
  const char * const *priors = sk_node_get_priors (node);

  if (priors == NULL || priors[0] == NULL)
    {
      g_string_append (out, "-");
      return;
    }

  for (guint i = 0; priors[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      g_string_append (out, priors[i]);
    }
}

static GPtrArray *
nodes_in_order (SkProject *project)
{
  g_autoptr(GPtrArray) order = NULL;
  guint n;

  /* A workflow with a cycle has no order; the model still sees every step,
   * in the file's order, and the cycle among the problems. */
  order = sk_project_topological_order (project, NULL);
  if (order != NULL)
    return g_steal_pointer (&order);

  n = g_list_model_get_n_items (G_LIST_MODEL (project));
  order = g_ptr_array_new_full (n, g_object_unref);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (order, g_list_model_get_item (G_LIST_MODEL (project), i));

  return g_steal_pointer (&order);
}

/**
 * sk_chat_context_outline:
 * @project: a workflow
 * @selected_nodes: (nullable) (element-type SkNode): the steps the user
 *   has selected
 *
 * The workflow as the chat agent sees it: the process's name and
 * description, then one line per step, each after its priors, with its
 * identifier, key, name, whether it runs, its state, its priors'
 * identifiers and the first line of its task (at most
 * %SK_CHAT_CONTEXT_TASK_CHARS characters), then the selection.
 *
 * Returns: (transfer full): the outline
 */
char *
sk_chat_context_outline (SkProject *project,
                         GPtrArray *selected_nodes)
{
  g_autoptr(GPtrArray) order = NULL;
  GString *out;
  const char *description;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);

  out = g_string_new (NULL);
  order = nodes_in_order (project);

  g_string_append_printf (out, _("Process: %s"), sk_project_get_name (project) ? sk_project_get_name (project) : "");
  g_string_append_c (out, '\n');
  description = sk_project_get_description (project);
  if (description != NULL && description[0] != '\0')
    {
      g_autofree char *line = first_line (description, 4 * SK_CHAT_CONTEXT_TASK_CHARS);

      g_string_append_printf (out, _("Description: %s"), line);
      g_string_append_c (out, '\n');
    }

  g_string_append_printf (out, _("Steps (%u), each after its priors: id key “name” run|off state priors=ids task: first line"),
                          order->len);
  g_string_append_c (out, '\n');
  for (guint i = 0; i < order->len; i++)
    {
      SkNode *node = g_ptr_array_index (order, i);
      g_autofree char *task = first_line (sk_node_get_input_text (node), SK_CHAT_CONTEXT_TASK_CHARS);

      g_string_append_printf (out, "%s %s “%s” %s %s priors=",
                              sk_node_get_id (node),
                              sk_node_get_key (node),
                              sk_node_get_name (node),
                              sk_node_get_run (node) ? "run" : "off",
                              sk_node_state_to_string (sk_node_get_state (node)));
      append_priors (out, node);
      g_string_append_printf (out, " task: %s\n", task[0] != '\0' ? task : "-");
    }

  if (selected_nodes == NULL || selected_nodes->len == 0)
    {
      g_string_append (out, _("Selected: none"));
    }
  else
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint i = 0; i < selected_nodes->len; i++)
        {
          SkNode *node = g_ptr_array_index (selected_nodes, i);

          if (i > 0)
            g_string_append (names, ", ");
          g_string_append_printf (names, "%s %s", sk_node_get_id (node), sk_node_get_key (node));
        }
      g_string_append_printf (out, _("Selected: %s"), names->str);
    }
  g_string_append_c (out, '\n');

  return g_string_free (out, FALSE);
}

static void
append_section (GString    *out,
                const char *title,
                const char *text)
{
  g_string_append_printf (out, "\n%s\n", title);
  if (text == NULL || text[0] == '\0')
    g_string_append (out, _("(none)"));
  else
    g_string_append (out, text);
  g_string_append_c (out, '\n');
}

/**
 * sk_chat_context_step_details:
 * @project: a workflow
 * @node: one of its steps
 *
 * What the `get_step` tool returns: the step's JSON as it is saved in
 * `process.json`, its state, its report, the files it made and its last
 * error.
 *
 * Returns: (transfer full): the details
 */
char *
sk_chat_context_step_details (SkProject *project,
                              SkNode    *node)
{
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;
  g_autoptr(GString) files = g_string_new (NULL);
  g_autoptr(GString) error_text = g_string_new (NULL);
  const char * const *output_files;
  const char *error_detail;
  SkNodeState state;
  GString *out;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  object = sk_node_to_json (node);
  root = json_node_init_object (json_node_alloc (), object);
  json = sk_json_to_data (root, TRUE, NULL);
  state = sk_node_get_state (node);

  output_files = sk_node_get_output_files (node);
  for (guint i = 0; output_files != NULL && output_files[i] != NULL; i++)
    g_string_append_printf (files, "%s%s", i > 0 ? "\n" : "", output_files[i]);

  if (sk_node_get_error_text (node) != NULL)
    g_string_append (error_text, sk_node_get_error_text (node));
  error_detail = sk_node_get_error_detail (node);
  if (error_detail != NULL && error_detail[0] != '\0')
    g_string_append_printf (error_text, "%s%s", error_text->len > 0 ? "\n" : "", error_detail);

  out = g_string_new (NULL);
  g_string_append_printf (out, _("Step %s “%s” (key %s)"),
                          sk_node_get_id (node), sk_node_get_name (node), sk_node_get_key (node));
  g_string_append_c (out, '\n');
  g_string_append_printf (out, _("State: %s (%s)"),
                          sk_node_state_to_string (state), sk_node_state_describe (state));
  g_string_append_c (out, '\n');
  append_section (out, _("JSON:"), json);
  append_section (out, _("Report:"), sk_node_get_output_text (node));
  append_section (out, _("Files:"), files->str);
  append_section (out, _("Last error:"), error_text->str);

  return g_string_free (out, FALSE);
}
