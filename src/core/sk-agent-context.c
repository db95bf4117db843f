/* sk-agent-context.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-agent-context"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sk-agent-context.h"
#include "sk-control-flow.h"
#include "sk-json.h"
#include "sk-step-folder.h"

/* Where a step stands relative to the step the context is about. The order
 * matters: a step reached in two ways keeps the nearer role.
 */
typedef enum
{
  ROLE_TARGET = 1,
  ROLE_PRIOR,
  ROLE_SUCCESSOR,
  ROLE_TWO_HOP,
  ROLE_ELSEWHERE,
} Role;

static const char *
role_describe (Role role)
{
  switch (role)
    {
    case ROLE_TARGET:
      return "the step to work on";
    case ROLE_PRIOR:
      return "needs its results";
    case ROLE_SUCCESSOR:
      return "uses this step's results";
    case ROLE_TWO_HOP:
      return "two steps away";
    case ROLE_ELSEWHERE:
    default:
      return "elsewhere in the workflow";
    }
}

static gboolean
is_in_project (SkProject *project,
               SkNode    *node)
{
  return sk_project_get_node (project, sk_node_get_id (node)) == node;
}

/* Gives each node of @nodes @role, unless it already has one. */
static void
add_with_role (GHashTable *roles,
               GPtrArray  *nodes,
               Role        role)
{
  g_assert (roles != NULL);
  g_assert (nodes != NULL);

  for (guint i = 0; i < nodes->len; i++)
    {
      gpointer node = g_ptr_array_index (nodes, i);

      if (!g_hash_table_contains (roles, node))
        g_hash_table_insert (roles, node, GINT_TO_POINTER (role));
    }
}

/* Returns a table from each node in the scope to its role. The nodes are
 * borrowed from @project.
 */
static GHashTable *
collect_roles (SkProject      *project,
               SkNode         *node,
               SkAgentContextScope  scope)
{
  g_autoptr(GPtrArray) priors = NULL;
  g_autoptr(GPtrArray) successors = NULL;
  g_autoptr(GPtrArray) blanket = NULL;
  GHashTable *roles = g_hash_table_new (NULL, NULL);

  g_assert (SK_IS_PROJECT (project));
  g_assert (SK_IS_NODE (node));

  g_hash_table_insert (roles, node, GINT_TO_POINTER (ROLE_TARGET));

  /* The blanket is the one core defines, today the priors and the
   * successors; anything else it may hold is two edges away.
   */
  blanket = sk_project_get_markov_blanket (project, node);
  priors = sk_project_get_prior_nodes (project, node);
  successors = sk_project_get_successors (project, node);
  add_with_role (roles, priors, ROLE_PRIOR);
  add_with_role (roles, successors, ROLE_SUCCESSOR);
  add_with_role (roles, blanket, ROLE_TWO_HOP);

  if (scope == SK_AGENT_CONTEXT_BLANKET)
    return roles;

  for (guint i = 0; i < blanket->len; i++)
    {
      SkNode *near = g_ptr_array_index (blanket, i);
      g_autoptr(GPtrArray) near_priors = sk_project_get_prior_nodes (project, near);
      g_autoptr(GPtrArray) near_successors = sk_project_get_successors (project, near);

      add_with_role (roles, near_priors, ROLE_TWO_HOP);
      add_with_role (roles, near_successors, ROLE_TWO_HOP);
    }

  if (scope == SK_AGENT_CONTEXT_TWO_HOP)
    return roles;

  for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
    {
      g_autoptr(SkNode) other = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (!g_hash_table_contains (roles, other))
        g_hash_table_insert (roles, other, GINT_TO_POINTER (ROLE_ELSEWHERE));
    }

  return roles;
}

/* Returns the nodes of @roles: @node first, then the others in topological
 * order, or in file order when the workflow has a cycle.
 */
static GPtrArray *
order_nodes (SkProject  *project,
             SkNode     *node,
             GHashTable *roles)
{
  g_autoptr(GPtrArray) order = NULL;
  GPtrArray *result;

  g_assert (SK_IS_PROJECT (project));
  g_assert (roles != NULL);

  order = sk_project_topological_order (project, NULL);
  if (order == NULL)
    {
      order = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
        g_ptr_array_add (order, g_list_model_get_item (G_LIST_MODEL (project), i));
    }

  result = g_ptr_array_new_full (g_hash_table_size (roles), g_object_unref);
  g_ptr_array_add (result, g_object_ref (node));

  for (guint i = 0; i < order->len; i++)
    {
      SkNode *other = g_ptr_array_index (order, i);

      if (other != node && g_hash_table_contains (roles, other))
        g_ptr_array_add (result, g_object_ref (other));
    }

  return result;
}

/* A fence longer than any run of backticks in @text, so that the text
 * cannot close it.
 */
static char *
fence_for (const char *text)
{
  guint longest = 0;
  guint run = 0;

  for (const char *p = text; *p != '\0'; p++)
    {
      run = *p == '`' ? run + 1 : 0;
      longest = MAX (longest, run);
    }

  return g_strnfill (MAX (3, longest + 1), '`');
}

static void
append_block (GString    *out,
              const char *language,
              const char *text)
{
  g_autofree char *fence = fence_for (text);
  gsize length = strlen (text);

  g_string_append_printf (out, "%s%s\n%s", fence, language, text);
  if (length > 0 && text[length - 1] != '\n')
    g_string_append_c (out, '\n');
  g_string_append_printf (out, "%s\n\n", fence);
}

/* The node's JSON as process.json has it, without the "skele" member (canvas
 * position, approval, token counts: bookkeeping of this program that tells
 * the model nothing) and without output.text, which follows as plain text.
 */
static char *
node_json (SkNode *node)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  JsonObject *object = sk_node_to_json (node);
  JsonObject *output;

  json_object_remove_member (object, "skele");
  output = sk_json_get_object (object, "output");
  if (output != NULL)
    json_object_remove_member (output, "text");

  json_node_take_object (root, object);

  return sk_json_to_data (root, TRUE, NULL);
}

/* Reads at most SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE bytes of @file, cut at the end
 * of a line when the file is longer, as valid UTF-8.
 */
static char *
read_script (GFile     *file,
             gboolean  *truncated,
             GError   **error)
{
  g_autoptr(GFileInputStream) stream = NULL;
  g_autofree char *buffer = NULL;
  gsize n_read = 0;

  g_assert (G_IS_FILE (file));
  g_assert (truncated != NULL);

  stream = g_file_read (file, NULL, error);
  if (stream == NULL)
    return NULL;

  buffer = g_malloc (SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE + 1);
  if (!g_input_stream_read_all (G_INPUT_STREAM (stream), buffer, SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE + 1,
                                &n_read, NULL, error))
    return NULL;

  *truncated = n_read > SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE;
  if (*truncated)
    {
      const char *newline = g_strrstr_len (buffer, SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE, "\n");

      n_read = newline != NULL ? (gsize) (newline - buffer) + 1 : SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE;
    }

  return g_utf8_make_valid (buffer, n_read);
}

static void
append_script (GString   *out,
               SkProject *project,
               SkNode    *node,
               Role       role)
{
  g_autoptr(GFile) script = sk_project_get_node_script (project, node);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  gboolean truncated = FALSE;

  if (script == NULL)
    return;

  name = sk_step_folder_relative_path (sk_node_get_key (node), SK_STEP_FILE_SCRIPT);
  path = g_strdup_printf ("%s/%s", sk_node_get_key (node), name);

  /* The agent reads and writes the target's own script with its tools. */
  if (role == ROLE_TARGET)
    {
      if (g_file_query_exists (script, NULL))
        g_string_append_printf (out, "Its script is `%s`.\n\n", path);
      else
        g_string_append_printf (out, "Its script, `%s`, is not written yet.\n\n", path);
      return;
    }

  text = read_script (script, &truncated, &error);
  if (text == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_string_append (out, "It has no script yet.\n\n");
      else
        g_string_append_printf (out, "Its script, `%s`, could not be read: %s\n\n",
                                path, error->message);
      return;
    }

  g_string_append_printf (out, "Its script, `%s`:\n\n", path);
  append_block (out, "python", text);
  if (truncated)
    g_string_append_printf (out, "(The script is longer than %u KiB; only its beginning is shown.)\n\n",
                            SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE / 1024);
}

static const char *
key_or_id (SkNode *node)
{
  return sk_node_get_key (node)[0] != '\0' ? sk_node_get_key (node) : sk_node_get_id (node);
}

/* How many folders up a workflow is looked for that uses this one as a
 * step: a sub-workflow is inside its parent's folder, usually one or two
 * levels down. */
#define MAX_PARENT_LEVELS 3

/* A first step of a workflow that another one runs as a step receives that
 * step's prior outputs in prior_outputs["inputs"] (DESIGN §10). */
static void
append_subflow_inputs (GString   *out,
                       SkProject *project)
{
  GFile *folder = sk_project_get_folder (project);
  g_autoptr(GFile) parent = folder != NULL ? g_file_get_parent (folder) : NULL;

  for (guint level = 0; parent != NULL && level < MAX_PARENT_LEVELS; level++)
    {
      g_autoptr(GFile) process = g_file_get_child (parent, SK_PROJECT_FILE_NAME);
      g_autoptr(SkProject) outer = NULL;
      GFile *up;

      if (g_file_query_exists (process, NULL) &&
          (outer = sk_project_load (parent, NULL)) != NULL)
        for (guint i = 0; i < sk_project_get_n_nodes (outer); i++)
          {
            g_autoptr(SkNode) step = g_list_model_get_item (G_LIST_MODEL (outer), i);
            const char *relative = sk_node_get_workflow (step);
            g_autoptr(GFile) inner = relative != NULL ? g_file_resolve_relative_path (parent, relative) : NULL;
            g_autoptr(GPtrArray) priors = NULL;
            g_autoptr(GString) keys = NULL;

            if (inner == NULL || !g_file_equal (inner, folder))
              continue;

            priors = sk_project_get_prior_nodes (outer, step);
            keys = g_string_new (NULL);
            for (guint j = 0; j < priors->len; j++)
              g_string_append_printf (keys, "%s`%s`", j > 0 ? ", " : "",
                                      key_or_id (g_ptr_array_index (priors, j)));
            g_string_append_printf (out,
                                    "This workflow runs as the step `%s` of another workflow. This step needs "
                                    "no other step here, so `prior_outputs[\"inputs\"]` holds the outputs of "
                                    "the steps before that one, by their keys: %s.\n\n",
                                    key_or_id (step), keys->len > 0 ? keys->str : "none");
            return;
          }

      up = g_file_get_parent (parent);
      g_object_unref (parent);
      parent = up;
    }
}

/* What DESIGN §10's control flow means for the code of @node, in words the
 * model can act on: the control flow itself is kept out of the JSON shown. */
static void
append_control_flow (GString   *out,
                     SkProject *project,
                     SkNode    *node,
                     Role       role)
{
  const char * const *priors = sk_node_get_priors (node);
  const char *prior_id = NULL;
  const char *path = NULL;
  const char *folder;
  guint n;

  if (sk_node_get_foreach (node, &prior_id, &path))
    {
      SkNode *prior = sk_project_get_node (project, prior_id);

      if (role == ROLE_TARGET)
        g_string_append_printf (out,
                                "This step runs once for every element of the list at `%s` in the output of "
                                "step `%s`. In the script, `state[\"item\"]` holds the element and "
                                "`state[\"item_index\"]` its position, from 0: work on that one element. "
                                "The steps after it receive `{\"task_status\": \"success\", \"items\": [...]}`, "
                                "one output per element.\n\n",
                                path, prior != NULL ? key_or_id (prior) : prior_id);
      else
        g_string_append (out, "This step runs once for every element of a list; its output is "
                              "`{\"task_status\": \"success\", \"items\": [...]}`, one output per element.\n\n");
    }

  if (role == ROLE_TARGET && (priors == NULL || priors[0] == NULL))
    append_subflow_inputs (out, project);

  if (role == ROLE_TARGET && sk_node_get_approval (node))
    g_string_append (out, "This step is an approval gate: runs stop before it until a person has seen what "
                          "the steps before it produced and approved it. Its code runs only after that.\n\n");

  if ((folder = sk_node_get_workflow (node)) != NULL)
    g_string_append_printf (out, "This step is a sub-workflow, the workflow in the folder `%s`; its output "
                                 "holds the outputs of that workflow's last steps, by their keys.\n\n", folder);

  /* The conditions that decide whether this step runs after its priors. */
  for (guint i = 0; role == ROLE_TARGET && priors[i] != NULL; i++)
    {
      const char *condition = sk_node_get_condition (node, priors[i]);
      SkNode *prior = sk_project_get_node (project, priors[i]);
      const char *prior_key = prior != NULL ? key_or_id (prior) : priors[i];

      if (condition == NULL)
        continue;
      if (g_str_equal (condition, SK_CONTROL_FLOW_DEFAULT))
        g_string_append_printf (out, "This step runs after step `%s` only when none of the conditions of the "
                                     "other steps after it holds.\n\n", prior_key);
      else
        g_string_append_printf (out, "This step runs after step `%s` only when `%s` is true, where `output` is "
                                     "that step's output dictionary.\n\n", prior_key, condition);
    }

  /* The conditions this step's output must answer. */
  n = sk_project_get_n_nodes (project);
  for (guint i = 0; role == ROLE_TARGET && i < n; i++)
    {
      g_autoptr(SkNode) other = g_list_model_get_item (G_LIST_MODEL (project), i);
      const char *condition = sk_node_get_condition (other, sk_node_get_id (node));

      if (condition != NULL && !g_str_equal (condition, SK_CONTROL_FLOW_DEFAULT))
        g_string_append_printf (out, "Step `%s` runs after this one only when `%s` is true of this step's "
                                     "output (`output`): provide the keys it reads.\n\n",
                                key_or_id (other), condition);
    }
}

static void
append_node (GString   *out,
             SkProject *project,
             SkNode    *node,
             Role       role)
{
  g_autofree char *json = node_json (node);
  const char *key = sk_node_get_key (node);
  const char *report = sk_node_get_output_text (node);

  if (key[0] != '\0')
    g_string_append_printf (out, "## step `%s` — %s\n\n", key, role_describe (role));
  else
    g_string_append_printf (out, "## step #%s — %s\n\n", sk_node_get_id (node), role_describe (role));

  append_block (out, "json", json);
  append_control_flow (out, project, node, role);

  if (report != NULL && report[0] != '\0')
    {
      g_string_append (out, "What it reported when it last ran (output.text):\n\n");
      append_block (out, "text", report);
    }

  append_script (out, project, node, role);
}

static void
append_scope (GString        *out,
              SkAgentContextScope  scope,
              guint           n_shown,
              guint           n_nodes)
{
  switch (scope)
    {
    case SK_AGENT_CONTEXT_BLANKET:
      g_string_append_printf (out,
                              "Shown below: the step to work on, the steps whose results it needs "
                              "and the steps that use its results (%u of the workflow's %u steps). "
                              "The other steps are left out.\n\n",
                              n_shown, n_nodes);
      break;

    case SK_AGENT_CONTEXT_TWO_HOP:
      g_string_append_printf (out,
                              "Shown below: the step to work on and every step linked to it by at "
                              "most two edges (%u of the workflow's %u steps). The other steps are "
                              "left out.\n\n",
                              n_shown, n_nodes);
      break;

    case SK_AGENT_CONTEXT_FULL:
    default:
      g_string_append_printf (out, "Shown below: every step of the workflow (%u).\n\n", n_nodes);
      break;
    }
}

/**
 * sk_agent_context_nodes:
 * @project: a #SkProject
 * @node: a node of @project
 * @scope: how much of the workflow to include
 *
 * Returns the steps that sk_agent_context_build() describes, in the order it
 * describes them: @node first, then the others in topological order (ties
 * and workflows with a cycle in file order).
 *
 * Returns: (transfer container) (element-type SkNode): the nodes in the
 *   context, @node included
 */
GPtrArray *
sk_agent_context_nodes (SkProject      *project,
                        SkNode         *node,
                        SkAgentContextScope  scope)
{
  g_autoptr(GHashTable) roles = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);
  g_return_val_if_fail ((guint) scope <= SK_AGENT_CONTEXT_FULL, NULL);
  g_return_val_if_fail (is_in_project (project, node), NULL);

  roles = collect_roles (project, node, scope);
  return order_nodes (project, node, roles);
}

/**
 * sk_agent_context_build:
 * @project: a #SkProject
 * @node: the node the coding agent works on
 * @scope: how much of the workflow to include
 * @error: return location for a #GError
 *
 * Writes what the coding agent is told about @node's neighbourhood, as
 * Markdown: the workflow's name and description, then one section per step,
 * @node first and the others in topological order. Each section starts with
 * a line "## step `KEY` — ROLE", where ROLE is "the step to work on",
 * "needs its results" (a prior), "uses this step's results" (a successor),
 * "two steps away" or "elsewhere in the workflow", and holds the step's JSON
 * (without its "skele" bookkeeping; output.text follows as plain text when
 * there is one), then, for every step but @node, its script when it exists,
 * cut at %SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE bytes.
 *
 * With %SK_AGENT_CONTEXT_BLANKET this is the node's Markov blanket as
 * sk_project_get_markov_blanket() has it: its priors and its successors, not
 * its successors' other priors. The same input always gives the same text.
 *
 * The scripts are read synchronously, so callers in the window run this in
 * a worker thread, while the project is not being edited.
 *
 * Returns: (transfer full) (nullable): the context; %NULL with @error set
 *   when @node is not part of @project
 */
char *
sk_agent_context_build (SkProject       *project,
                        SkNode          *node,
                        SkAgentContextScope   scope,
                        GError         **error)
{
  g_autoptr(GHashTable) roles = NULL;
  g_autoptr(GPtrArray) nodes = NULL;
  const char *name;
  const char *description;
  GString *out;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);
  g_return_val_if_fail ((guint) scope <= SK_AGENT_CONTEXT_FULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!is_in_project (project, node))
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_NOT_FOUND,
                   _("The step “%s” is not part of this workflow."),
                   sk_node_get_name (node));
      return NULL;
    }

  roles = collect_roles (project, node, scope);
  nodes = order_nodes (project, node, roles);

  name = sk_project_get_name (project);
  description = sk_project_get_description (project);

  out = g_string_new (NULL);
  g_string_append_printf (out, "# Workflow: %s\n\n",
                          name != NULL && name[0] != '\0' ? name : "(no name)");
  if (description != NULL && description[0] != '\0')
    g_string_append_printf (out, "%s\n\n", description);

  append_scope (out, scope, nodes->len, sk_project_get_n_nodes (project));

  for (guint i = 0; i < nodes->len; i++)
    {
      SkNode *other = g_ptr_array_index (nodes, i);

      append_node (out, project, other, GPOINTER_TO_INT (g_hash_table_lookup (roles, other)));
    }

  return g_string_free (out, FALSE);
}
