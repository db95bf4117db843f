/* sk-subworkflow.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Making a sub-workflow from steps of a workflow (DESIGN §10): the steps go
 * into a workflow folder of their own, inside the workflow's folder, and one
 * step that stands for it takes their place and their connections.
 */

#define G_LOG_DOMAIN "sk-subworkflow"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "sk-control-flow.h"
#include "sk-json.h"
#include "sk-node-private.h"
#include "sk-project-private.h"
#include "sk-step-folder.h"
#include "sk-subworkflow.h"
#include "sk-util.h"

G_DEFINE_QUARK (sk-subworkflow-error-quark, sk_subworkflow_error)

/* The step that reads a prior's results by its key, as the node contract
 * has it: prior_outputs["key"], prior_outputs['key'] or
 * prior_outputs.get("key". */
#define PRIOR_PATTERN "\\bprior_outputs%s(\\s*\\[\\s*|\\.get\\s*\\(\\s*)(['\"])%s\\2"

typedef struct
{
  SkProject  *project;
  /* The chosen steps in the workflow's order. */
  GPtrArray  *inner;
  GHashTable *inside;
} Selection;

static void
selection_clear (Selection *selection)
{
  g_clear_pointer (&selection->inner, g_ptr_array_unref);
  g_clear_pointer (&selection->inside, g_hash_table_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Selection, selection_clear)

static gboolean
is_inside (Selection  *selection,
           const char *id)
{
  return g_hash_table_contains (selection->inside, id);
}

static const char *
name_of (Selection  *selection,
         const char *id)
{
  SkNode *node = sk_project_get_node (selection->project, id);

  return node != NULL ? sk_node_get_name (node) : id;
}

static gboolean
check_inner_step (Selection  *selection,
                  SkNode     *node,
                  GError    **error)
{
  const char * const *priors = sk_node_get_priors (node);
  const char *foreach_prior = NULL;
  const char *outside_prior = NULL;
  const char *inside_prior = NULL;

  if (sk_node_get_approval (node))
    {
      g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_CONTROL_FLOW,
                   _("“%s” waits for approval, and a sub-workflow runs straight through. "
                     "Leave it out of the selection."),
                   sk_node_get_name (node));
      return FALSE;
    }

  if (sk_node_get_workflow (node) != NULL)
    {
      g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_CONTROL_FLOW,
                   _("“%s” is a sub-workflow already. Leave it out of the selection, "
                     "or open it and make the sub-workflow there."),
                   sk_node_get_name (node));
      return FALSE;
    }

  for (guint i = 0; priors[i] != NULL; i++)
    {
      if (!is_inside (selection, priors[i]))
        {
          outside_prior = priors[i];
          if (sk_node_get_condition (node, priors[i]) != NULL)
            {
              g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_CONTROL_FLOW,
                           _("The connection from “%s” to “%s” has a condition, which cannot "
                             "lead into a sub-workflow. Remove the condition first."),
                           name_of (selection, priors[i]), sk_node_get_name (node));
              return FALSE;
            }
        }
      else
        inside_prior = priors[i];
    }

  if (outside_prior != NULL && inside_prior != NULL)
    {
      g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_SHAPE,
                   _("“%s” needs “%s” from outside the selection and “%s” inside it, but only "
                     "the first steps of a sub-workflow get results from outside. Add “%s” "
                     "to the selection or leave “%s” out."),
                   sk_node_get_name (node), name_of (selection, outside_prior),
                   name_of (selection, inside_prior), name_of (selection, outside_prior),
                   sk_node_get_name (node));
      return FALSE;
    }

  if (sk_node_get_foreach (node, &foreach_prior, NULL) && !is_inside (selection, foreach_prior))
    {
      g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_CONTROL_FLOW,
                   _("“%s” runs for each item of “%s”, which stays outside. Add “%s” to "
                     "the selection or leave “%s” out."),
                   sk_node_get_name (node), name_of (selection, foreach_prior),
                   name_of (selection, foreach_prior), sk_node_get_name (node));
      return FALSE;
    }

  return TRUE;
}

/* A step outside that needs a chosen one: its connection must not carry
 * what cannot cross, and the chosen step must be one of the last. */
static gboolean
check_outer_step (Selection  *selection,
                  SkNode     *node,
                  GError    **error)
{
  const char * const *priors = sk_node_get_priors (node);
  const char *foreach_prior = NULL;

  for (guint i = 0; priors[i] != NULL; i++)
    {
      g_autoptr(GPtrArray) successors = NULL;
      SkNode *prior;

      if (!is_inside (selection, priors[i]))
        continue;

      if (sk_node_get_condition (node, priors[i]) != NULL)
        {
          g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_CONTROL_FLOW,
                       _("The connection from “%s” to “%s” has a condition, which cannot "
                         "lead out of a sub-workflow. Remove the condition first."),
                       name_of (selection, priors[i]), sk_node_get_name (node));
          return FALSE;
        }

      if (sk_node_get_foreach (node, &foreach_prior, NULL) && g_str_equal (foreach_prior, priors[i]))
        {
          g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_CONTROL_FLOW,
                       _("“%s” runs for each item of “%s”. Add “%s” to the selection or "
                         "leave “%s” out."),
                       sk_node_get_name (node), name_of (selection, priors[i]),
                       sk_node_get_name (node), name_of (selection, priors[i]));
          return FALSE;
        }

      /* A sub-workflow passes on the results of its last steps only. */
      prior = sk_project_get_node (selection->project, priors[i]);
      successors = sk_project_get_successors (selection->project, prior);
      for (guint j = 0; j < successors->len; j++)
        {
          SkNode *successor = g_ptr_array_index (successors, j);

          if (is_inside (selection, sk_node_get_id (successor)))
            {
              g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_SHAPE,
                           _("“%s” gives its results to “%s” inside the selection and to “%s” "
                             "outside it, but a sub-workflow passes on the results of its last "
                             "steps only. Add “%s” to the selection or leave “%s” out."),
                           sk_node_get_name (prior), sk_node_get_name (successor),
                           sk_node_get_name (node), sk_node_get_name (node),
                           sk_node_get_name (successor));
              return FALSE;
            }
        }
    }

  return TRUE;
}

/* No path may leave the chosen steps and come back: the step that stands
 * for them would need its own results. */
static gboolean
check_no_detour (Selection  *selection,
                 GError    **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  /* Each step outside reached, with the first step outside on its way. */
  g_autoptr(GHashTable) via = g_hash_table_new (NULL, NULL);
  g_autoptr(GQueue) queue = g_queue_new ();

  for (guint i = 0; i < selection->inner->len; i++)
    {
      SkNode *node = g_ptr_array_index (selection->inner, i);
      g_autoptr(GPtrArray) successors = sk_project_get_successors (selection->project, node);

      for (guint j = 0; j < successors->len; j++)
        {
          SkNode *successor = g_ptr_array_index (successors, j);

          if (!is_inside (selection, sk_node_get_id (successor)) && g_hash_table_add (seen, successor))
            {
              g_hash_table_insert (via, successor, successor);
              g_queue_push_tail (queue, successor);
            }
        }
    }

  while (!g_queue_is_empty (queue))
    {
      SkNode *node = g_queue_pop_head (queue);
      g_autoptr(GPtrArray) successors = sk_project_get_successors (selection->project, node);

      for (guint j = 0; j < successors->len; j++)
        {
          SkNode *successor = g_ptr_array_index (successors, j);

          if (is_inside (selection, sk_node_get_id (successor)))
            {
              SkNode *first = g_hash_table_lookup (via, node);

              g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_SHAPE,
                           _("“%s” needs results of the selection and gives results to “%s” in "
                             "it, so the sub-workflow would wait for itself. Add “%s” to the "
                             "selection."),
                           sk_node_get_name (first), sk_node_get_name (successor),
                           sk_node_get_name (first));
              return FALSE;
            }

          if (g_hash_table_add (seen, successor))
            {
              g_hash_table_insert (via, successor, g_hash_table_lookup (via, node));
              g_queue_push_tail (queue, successor);
            }
        }
    }

  return TRUE;
}

/* A name for the new step whose key no step and no file in the workflow's
 * folder has yet, as the key names the sub-workflow's folder. */
static char *
choose_name (SkProject  *project,
             GFile      *folder,
             const char *base)
{
  for (guint n = 1; n < G_MAXUINT; n++)
    {
      g_autofree char *name = n == 1 ? g_strdup (base) : g_strdup_printf ("%s %u", base, n);
      g_autofree char *key = sk_node_key_from_name (name);
      g_autoptr(GFile) child = NULL;

      if (key[0] == '\0' || sk_project_get_node_by_key (project, key) != NULL)
        continue;
      child = g_file_get_child (folder, key);
      if (!g_file_query_exists (child, NULL))
        return g_steal_pointer (&name);
    }

  return NULL;
}

static GRegex *
reads_regex (const char *key,
             const char *container)
{
  g_autofree char *escaped_key = g_regex_escape_string (key, -1);
  g_autofree char *escaped_container = NULL;
  g_autofree char *subscript = NULL;
  g_autofree char *pattern = NULL;

  if (container != NULL)
    {
      escaped_container = g_regex_escape_string (container, -1);
      subscript = g_strdup_printf ("\\[\"%s\"\\]", escaped_container);
    }
  pattern = g_strdup_printf (PRIOR_PATTERN, subscript != NULL ? subscript : "", escaped_key);

  return g_regex_new (pattern, G_REGEX_OPTIMIZE, 0, NULL);
}

/* Rewrites how @text reads the results of @key: prior_outputs["key"]
 * becomes prior_outputs[@container]["key"]. */
static char *
rewrite_reads (const char *text,
               const char *key,
               const char *container)
{
  g_autoptr(GRegex) regex = reads_regex (key, NULL);
  g_autofree char *replacement = g_strdup_printf ("prior_outputs[\"%s\"]\\1\\2%s\\2", container, key);

  g_assert (regex != NULL);
  return g_regex_replace (regex, text, -1, 0, replacement, 0, NULL);
}

static gboolean
mentions_key (const char *text,
              const char *key)
{
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", key);
  g_autofree char *single_quoted = g_strdup_printf ("'%s'", key);

  return strstr (text, quoted) != NULL || strstr (text, single_quoted) != NULL;
}

/* Rewrites the reads of @keys in the script @file, by the same name in
 * @container. Returns whether the script still names
 * one of @keys otherwise, so that a person should look at it; @before and
 * @after get the contents when the script changed. */
static gboolean
rewrite_script (GFile       *file,
                GPtrArray   *keys,
                const char  *container,
                GBytes     **before,
                GBytes     **after)
{
  g_autofree char *contents = NULL;
  g_autofree char *text = NULL;
  gsize length;
  gboolean still_named = FALSE;

  if (!g_file_load_contents (file, NULL, &contents, &length, NULL, NULL))
    return FALSE;

  text = g_strdup (contents);
  for (guint i = 0; i < keys->len; i++)
    {
      const char *key = g_ptr_array_index (keys, i);
      g_autofree char *rewritten = rewrite_reads (text, key, container);
      g_autoptr(GRegex) written = reads_regex (key, container);
      g_autofree char *without = NULL;

      g_free (text);
      text = g_steal_pointer (&rewritten);

      /* Other mentions of the key than the reads just written are for a
       * person to look at. */
      without = g_regex_replace_literal (written, text, -1, 0, "", 0, NULL);
      if (without == NULL || mentions_key (without, key))
        still_named = TRUE;
    }

  if (!g_str_equal (text, contents))
    {
      *before = g_bytes_new_take (g_steal_pointer (&contents), length);
      *after = g_bytes_new_take (g_strdup (text), strlen (text));
    }

  return still_named;
}

static gboolean
write_bytes (GFile   *file,
             GBytes  *bytes,
             GError **error)
{
  return g_file_replace_contents (file, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                  NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL, error);
}

static char *
describe_steps (GPtrArray *nodes)
{
  g_autoptr(GString) names = g_string_new (NULL);

  for (guint i = 0; i < nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (nodes, i);

      if (i > 0)
        g_string_append (names, i + 1 == nodes->len ? _(" and ") : _(", "));
      g_string_append_printf (names, "“%s”", sk_node_get_name (node));
    }

  return g_string_free (g_steal_pointer (&names), FALSE);
}

/* Whether @path, relative to a chosen step's folder, leads out of it to
 * something that stays behind: not to the folder of another chosen step,
 * which moves along. */
static gboolean
leads_out (Selection  *selection,
           const char *path)
{
  g_auto(GStrv) parts = NULL;

  if (g_path_is_absolute (path) || !(g_str_equal (path, "..") || g_str_has_prefix (path, "../")))
    return FALSE;

  parts = g_strsplit (path, "/", 3);
  if (parts[1] != NULL)
    for (guint i = 0; i < selection->inner->len; i++)
      if (g_str_equal (parts[1], sk_node_get_key (g_ptr_array_index (selection->inner, i))))
        return FALSE;

  return TRUE;
}

/* The JSON of @node as a step of the sub-workflow: connections from
 * outside go, and paths that led out of the step's folder lead one level
 * further up. */
static JsonObject *
inner_node_json (Selection *selection,
                 SkNode    *node)
{
  JsonObject *object = sk_node_to_json (node);
  const char * const *priors = sk_node_get_priors (node);
  g_autoptr(JsonArray) inner_priors = json_array_new ();
  JsonObject *input = sk_json_get_object (object, "input");
  JsonArray *files = input != NULL ? sk_json_get_array (input, "files") : NULL;

  for (guint i = 0; priors[i] != NULL; i++)
    if (is_inside (selection, priors[i]))
      json_array_add_string_element (inner_priors, priors[i]);
  json_object_set_array_member (object, "priors", g_steal_pointer (&inner_priors));

  for (guint i = 0; files != NULL && i < json_array_get_length (files); i++)
    {
      JsonNode *element = json_array_get_element (files, i);
      const char *path = JSON_NODE_HOLDS_VALUE (element) ? json_node_get_string (element) : NULL;

      if (path != NULL && leads_out (selection, path))
        {
          g_autofree char *further = g_build_filename ("..", path, NULL);

          json_node_set_string (element, further);
        }
    }

  return object;
}

static gboolean
write_inner_workflow (Selection   *selection,
                      GFile       *sub_folder,
                      const char  *name,
                      GBytes     **process,
                      GError     **error)
{
  GFile *outer_folder = sk_project_get_folder (selection->project);
  g_autoptr(SkProject) inner = sk_project_new (sub_folder);
  g_autoptr(JsonObject) header = _sk_project_header_to_json (selection->project);
  g_autofree char *steps = describe_steps (selection->inner);
  g_autofree char *description = NULL;
  g_autofree char *data = NULL;
  gsize length;

  _sk_project_apply_header_json (inner, header);
  sk_project_set_name (inner, name);
  description = g_strdup_printf (_("The steps %s of “%s”, made into a workflow of their own."),
                                 steps, sk_project_get_name (selection->project));
  sk_project_set_description (inner, description);

  for (guint i = 0; i < selection->inner->len; i++)
    {
      SkNode *node = g_ptr_array_index (selection->inner, i);
      g_autoptr(JsonObject) object = inner_node_json (selection, node);
      g_autoptr(SkNode) copy = sk_node_new_from_json (sk_node_get_id (node), object);

      if (!sk_project_add_node (inner, copy, error))
        return FALSE;
    }

  if (!g_file_make_directory (sub_folder, NULL, error))
    return FALSE;

  /* The steps' folders are copied, not moved: undoing gives the workflow
   * its steps back as they were, results and all. */
  for (guint i = 0; i < selection->inner->len; i++)
    {
      SkNode *node = g_ptr_array_index (selection->inner, i);
      g_autoptr(GFile) from = g_file_get_child (outer_folder, sk_node_get_key (node));
      g_autoptr(GFile) to = g_file_get_child (sub_folder, sk_node_get_key (node));

      if (g_file_query_file_type (from, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL) != G_FILE_TYPE_DIRECTORY)
        continue;
      if (!sk_step_folder_copy_workflow (from, to, error))
        return FALSE;
    }

  data = sk_project_to_data (inner, &length);
  *process = g_bytes_new_take (g_steal_pointer (&data), length);

  return TRUE;
}

/**
 * sk_project_make_subworkflow:
 * @project: a saved workflow
 * @nodes: (element-type SkNode): steps of @project
 * @name: the name of the step that will stand for them
 * @history: (nullable): the history that makes the change one undo step
 * @to_check: (out) (optional) (transfer full): the names of steps whose
 *   code may still read results the old way, for a person to look at
 * @error: return location for a #GError
 *
 * Moves @nodes into a workflow of their own, in a folder inside @project's
 * named after the new step's key, and puts one sub-workflow step in their
 * place (DESIGN §10). The new step takes the connections that led into the
 * chosen steps; the steps after them need it instead. Scripts are rewritten
 * where they read results by key: a first step of the sub-workflow reads
 * `prior_outputs["inputs"]["key"]`, a step after it
 * `prior_outputs["sub"]["key"]`.
 *
 * The chosen steps' folders are copied into the new folder; the workflow's
 * own file and the rewritten scripts are part of the undo step, so undoing
 * gives everything back as it was. The chosen steps must be connected so
 * that a sub-workflow can stand for them: nothing leaves them and comes
 * back, a step inside gets results either from outside or from inside, and
 * gates, conditions and for-each lists do not cross the border.
 *
 * Returns: (transfer none) (nullable): the new step, or %NULL with @error set
 */
SkNode *
sk_project_make_subworkflow (SkProject   *project,
                             GPtrArray   *nodes,
                             const char  *name,
                             SkHistory   *history,
                             char      ***to_check,
                             GError     **error)
{
  g_auto(Selection) selection = { 0 };
  g_autoptr(GPtrArray) outside_priors = g_ptr_array_new ();
  g_autoptr(GPtrArray) outer_successors = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GStrvBuilder) check = g_strv_builder_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GFile) sub_folder = NULL;
  g_autoptr(GFile) process_file = NULL;
  g_autoptr(GBytes) process = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(JsonObject) skele = NULL;
  JsonObject *input;
  g_autoptr(JsonArray) priors = NULL;
  g_autoptr(SkNode) sub_node = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *unique_name = NULL;
  g_autofree char *base_key = NULL;
  g_autofree char *key = NULL;
  g_autofree char *id = NULL;
  g_autofree char *steps = NULL;
  g_autofree char *description = NULL;
  GFile *folder;
  double x = 0, y = 0;
  guint n_positions = 0;
  guint first_position = G_MAXUINT;
  guint n;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (nodes != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (history == NULL || SK_IS_HISTORY (history), NULL);

  folder = sk_project_get_folder (project);
  if (folder == NULL)
    {
      g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_UNSAVED,
                   _("Save the workflow first: a sub-workflow is a folder inside its folder."));
      return NULL;
    }

  selection.project = project;
  selection.inner = g_ptr_array_new_with_free_func (g_object_unref);
  selection.inside = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < nodes->len; i++)
    g_hash_table_add (selection.inside, (gpointer) sk_node_get_id (g_ptr_array_index (nodes, i)));

  n = g_list_model_get_n_items (G_LIST_MODEL (project));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (is_inside (&selection, sk_node_get_id (node)))
        {
          if (first_position == G_MAXUINT)
            first_position = i;
          g_ptr_array_add (selection.inner, g_steal_pointer (&node));
        }
    }

  if (selection.inner->len == 0)
    {
      g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_EMPTY,
                   _("Select the steps to make into a sub-workflow first."));
      return NULL;
    }

  base_key = sk_node_key_from_name (name);
  if (base_key[0] == '\0' || (unique_name = choose_name (project, folder, name)) == NULL)
    {
      g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_NAME,
                   _("Give the sub-workflow a name with letters or digits in it."));
      return NULL;
    }

  /* A way out and back is the first thing to fix: the other checks may
   * name steps that adding the ones on the way puts right. */
  if (!check_no_detour (&selection, error))
    return NULL;

  for (guint i = 0; i < selection.inner->len; i++)
    if (!check_inner_step (&selection, g_ptr_array_index (selection.inner, i), error))
      return NULL;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      const char * const *node_priors = sk_node_get_priors (node);
      gboolean needs_inner = FALSE;

      if (is_inside (&selection, sk_node_get_id (node)))
        {
          for (guint j = 0; node_priors[j] != NULL; j++)
            if (!is_inside (&selection, node_priors[j]) && g_hash_table_add (seen, (gpointer) node_priors[j]))
              g_ptr_array_add (outside_priors, (gpointer) node_priors[j]);
          continue;
        }

      if (!check_outer_step (&selection, node, error))
        return NULL;

      for (guint j = 0; node_priors[j] != NULL; j++)
        needs_inner |= is_inside (&selection, node_priors[j]);
      if (needs_inner)
        g_ptr_array_add (outer_successors, g_steal_pointer (&node));
    }

  /* The sub-workflow's folder and file. */
  key = sk_node_key_from_name (unique_name);
  sub_folder = g_file_get_child (folder, key);
  if (!write_inner_workflow (&selection, sub_folder, unique_name, &process, &local_error))
    {
      g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_WRITE,
                   _("The sub-workflow could not be written in “%s”: %s"),
                   g_file_peek_path (sub_folder), local_error->message);
      return NULL;
    }

  /* The first steps inside read the results from outside as inputs. */
  for (guint i = 0; i < selection.inner->len; i++)
    {
      SkNode *node = g_ptr_array_index (selection.inner, i);
      g_autofree char *script_name = sk_step_folder_relative_path (sk_node_get_key (node), SK_STEP_FILE_SCRIPT);
      g_autoptr(GFile) step_folder = g_file_get_child (sub_folder, sk_node_get_key (node));
      g_autoptr(GFile) script = g_file_get_child (step_folder, script_name);
      g_autoptr(GPtrArray) keys = g_ptr_array_new ();
      g_autoptr(GBytes) before = NULL;
      g_autoptr(GBytes) after = NULL;
      const char * const *node_priors = sk_node_get_priors (node);

      for (guint j = 0; node_priors[j] != NULL; j++)
        {
          SkNode *prior = sk_project_get_node (project, node_priors[j]);

          if (prior != NULL && !is_inside (&selection, node_priors[j]))
            g_ptr_array_add (keys, (gpointer) sk_node_get_key (prior));
        }

      if (keys->len == 0)
        continue;
      if (rewrite_script (script, keys, "inputs", &before, &after))
        g_strv_builder_add (check, sk_node_get_name (node));
      if (after != NULL && !write_bytes (script, after, &local_error))
        {
          g_debug ("Could not rewrite %s: %s", g_file_peek_path (script), local_error->message);
          g_clear_error (&local_error);
        }
    }

  process_file = g_file_get_child (sub_folder, "process.json");
  if (!write_bytes (process_file, process, &local_error))
    {
      g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_WRITE,
                   _("The sub-workflow could not be written in “%s”: %s"),
                   g_file_peek_path (sub_folder), local_error->message);
      return NULL;
    }

  /* The step that stands for them, where they were. */
  for (guint i = 0; i < selection.inner->len; i++)
    {
      double node_x, node_y;

      if (sk_node_get_position (g_ptr_array_index (selection.inner, i), &node_x, &node_y))
        {
          x += node_x;
          y += node_y;
          n_positions++;
        }
    }

  steps = describe_steps (selection.inner);
  description = g_strdup_printf (_("Runs the steps %s as a workflow of their own, in the folder “%s”."),
                                 steps, key);
  id = sk_project_next_node_id (project);
  priors = json_array_new ();
  for (guint i = 0; i < outside_priors->len; i++)
    json_array_add_string_element (priors, g_ptr_array_index (outside_priors, i));
  skele = json_object_new ();
  json_object_set_string_member (skele, "workflow", key);
  if (n_positions > 0)
    {
      json_object_set_double_member (skele, "x", x / n_positions);
      json_object_set_double_member (skele, "y", y / n_positions);
    }
  object = json_object_new ();
  json_object_set_string_member (object, "name", unique_name);
  input = json_object_new ();
  json_object_set_string_member (input, "text", description);
  json_object_set_object_member (object, "input", input);
  json_object_set_array_member (object, "priors", g_steal_pointer (&priors));
  json_object_set_object_member (object, "skele", g_steal_pointer (&skele));
  sub_node = sk_node_new_from_json (id, object);

  if (history != NULL)
    {
      sk_history_begin (history, _("Make Sub-workflow"));
      sk_history_add_file_change (history, process_file, NULL, process);
    }

  if (!sk_project_insert_node (project, first_position, sub_node, &local_error))
    {
      if (history != NULL)
        sk_history_end (history);
      g_file_delete (process_file, NULL, NULL);
      g_set_error (error, SK_SUBWORKFLOW_ERROR, SK_SUBWORKFLOW_ERROR_WRITE,
                   "%s", local_error->message);
      return NULL;
    }

  /* The steps after them need the new step, and read its results by the
   * keys of its last steps. */
  for (guint i = 0; i < outer_successors->len; i++)
    {
      SkNode *node = g_ptr_array_index (outer_successors, i);
      const char * const *node_priors = sk_node_get_priors (node);
      g_autoptr(GStrvBuilder) new_priors = g_strv_builder_new ();
      g_autoptr(GPtrArray) keys = g_ptr_array_new ();
      g_auto(GStrv) strv = NULL;
      g_autoptr(GFile) script = sk_project_get_node_script (project, node);
      g_autoptr(GBytes) before = NULL;
      g_autoptr(GBytes) after = NULL;
      gboolean added = FALSE;

      for (guint j = 0; node_priors[j] != NULL; j++)
        {
          if (!is_inside (&selection, node_priors[j]))
            g_strv_builder_add (new_priors, node_priors[j]);
          else
            {
              g_ptr_array_add (keys, (gpointer) sk_node_get_key (sk_project_get_node (project, node_priors[j])));
              if (!added)
                g_strv_builder_add (new_priors, id);
              added = TRUE;
            }
        }

      if (script != NULL && rewrite_script (script, keys, key, &before, &after))
        g_strv_builder_add (check, sk_node_get_name (node));
      if (after != NULL)
        {
          if (write_bytes (script, after, &local_error))
            {
              if (history != NULL)
                sk_history_add_file_change (history, script, before, after);
            }
          else
            {
              g_debug ("Could not rewrite %s: %s", g_file_peek_path (script), local_error->message);
              g_strv_builder_add (check, sk_node_get_name (node));
              g_clear_error (&local_error);
            }
        }

      strv = g_strv_builder_end (new_priors);
      sk_node_set_priors (node, (const char * const *) strv);
    }

  for (guint i = 0; i < selection.inner->len; i++)
    sk_project_remove_node (project, g_ptr_array_index (selection.inner, i));

  if (history != NULL)
    sk_history_end (history);

  if (to_check != NULL)
    *to_check = g_strv_builder_end (check);

  return sub_node;
}
