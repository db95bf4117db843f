/* sk-control-flow.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads and checks a step's control flow (DESIGN §10). It lives among the
 * members of the step's "skele" object that SkNode keeps as they are, so
 * that a workflow stays valid in the paper's format and other tools ignore
 * it; this file gives it types and says what is wrong with it.
 */

#define G_LOG_DOMAIN "sk-control-flow"

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-control-flow.h"
#include "sk-harness.h"
#include "sk-run-record.h"
#include "sk-step-folder.h"
#include "sk-json.h"
#include "sk-util.h"
#include "sk-node-private.h"
#include "sk-project-private.h"

#define MEMBER_APPROVAL "approval"
#define MEMBER_WHEN     "when"
#define MEMBER_FOREACH  "foreach"
#define MEMBER_WORKFLOW "workflow"

static JsonObject *
member_object (SkNode     *node,
               const char *member)
{
  JsonNode *value = _sk_node_get_skele_member (node, member);

  return value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
}

static const char *
member_string (SkNode     *node,
               const char *member)
{
  JsonNode *value = _sk_node_get_skele_member (node, member);

  if (value == NULL || !JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (value);
}

/**
 * sk_node_get_approval:
 * @node: a step
 *
 * Returns: whether the step is an approval gate: runs stop before it until
 *   a person approves it
 */
gboolean
sk_node_get_approval (SkNode *node)
{
  JsonNode *value;

  g_return_val_if_fail (SK_IS_NODE (node), FALSE);

  value = _sk_node_get_skele_member (node, MEMBER_APPROVAL);
  return value != NULL && JSON_NODE_HOLDS_VALUE (value) &&
         json_node_get_value_type (value) == G_TYPE_BOOLEAN && json_node_get_boolean (value);
}

/**
 * sk_node_get_condition:
 * @node: a step
 * @prior_id: the identifier of one of its priors
 *
 * Returns: (nullable): the Python expression over the prior's `output`
 *   that must hold for @node to run after it, %SK_CONTROL_FLOW_DEFAULT, or
 *   %NULL when the edge has no condition
 */
const char *
sk_node_get_condition (SkNode     *node,
                       const char *prior_id)
{
  JsonObject *when;
  const char *condition;

  g_return_val_if_fail (SK_IS_NODE (node), NULL);
  g_return_val_if_fail (prior_id != NULL, NULL);

  when = member_object (node, MEMBER_WHEN);
  condition = sk_json_get_string (when, prior_id);

  return sk_util_is_blank (condition) ? NULL : condition;
}

/**
 * sk_node_get_foreach:
 * @node: a step
 * @prior_id: (out) (optional) (transfer none): the prior whose output holds
 *   the list
 * @path: (out) (optional) (transfer none): the dotted path of the list in
 *   that output
 *
 * Returns: whether the step runs once for every element of a prior's list
 */
gboolean
sk_node_get_foreach (SkNode      *node,
                     const char **prior_id,
                     const char **path)
{
  JsonObject *foreach;
  const char *prior;
  const char *list_path;

  g_return_val_if_fail (SK_IS_NODE (node), FALSE);

  foreach = member_object (node, MEMBER_FOREACH);
  prior = sk_json_get_string (foreach, "prior");
  list_path = sk_json_get_string (foreach, "path");
  if (sk_util_is_blank (prior) || sk_util_is_blank (list_path))
    return FALSE;

  if (prior_id != NULL)
    *prior_id = prior;
  if (path != NULL)
    *path = list_path;
  return TRUE;
}

/**
 * sk_node_get_workflow:
 * @node: a step
 *
 * Returns: (nullable): the folder, relative to the workflow's, of the
 *   workflow this step runs as a sub-workflow, or %NULL
 */
const char *
sk_node_get_workflow (SkNode *node)
{
  const char *folder;

  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  folder = member_string (node, MEMBER_WORKFLOW);
  return sk_util_is_blank (folder) ? NULL : folder;
}

/* Validation --------------------------------------------------------------- */

static gboolean
has_prior (SkNode     *node,
           const char *prior_id)
{
  const char * const *priors = sk_node_get_priors (node);

  for (guint i = 0; priors[i] != NULL; i++)
    if (g_str_equal (priors[i], prior_id))
      return TRUE;

  return FALSE;
}

static char *
describe_id (SkProject  *project,
             const char *id)
{
  SkNode *node = sk_project_get_node (project, id);

  return node != NULL ? _sk_project_describe_node (node) : g_strdup_printf ("“%s”", id);
}

/* Dotted names such as `files` or `result.rows`: no empty part. */
static gboolean
is_dotted_path (const char *path)
{
  g_auto(GStrv) parts = NULL;

  if (sk_util_is_blank (path))
    return FALSE;

  parts = g_strsplit (path, ".", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (sk_util_is_blank (parts[i]))
      return FALSE;

  return TRUE;
}

static void
validate_approval (SkNode     *node,
                   const char *who,
                   GPtrArray  *problems)
{
  JsonNode *value = _sk_node_get_skele_member (node, MEMBER_APPROVAL);

  if (value == NULL || (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN))
    return;

  _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, sk_node_get_id (node),
                           /* Translators: %s names a step; "approval" is a JSON member. */
                           _("Whether %s waits for approval must be true or false (the member "
                             "“approval” under “skele”). Correct it in the step’s JSON."), who);
}

/* The default branch after @prior_id taken by a step before @node, if any. */
static SkNode *
earlier_default (SkProject  *project,
                 SkNode     *node,
                 const char *prior_id)
{
  guint n = sk_project_get_n_nodes (project);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) other = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (other == node)
        return NULL;
      if (has_prior (other, prior_id) &&
          g_strcmp0 (sk_node_get_condition (other, prior_id), SK_CONTROL_FLOW_DEFAULT) == 0)
        return other;
    }

  return NULL;
}

static void
validate_when (SkProject  *project,
               SkNode     *node,
               const char *who,
               GPtrArray  *problems)
{
  JsonNode *value = _sk_node_get_skele_member (node, MEMBER_WHEN);
  const char *id = sk_node_get_id (node);
  JsonObjectIter iter;
  const char *prior_id;
  JsonNode *condition;

  if (value == NULL)
    return;

  if (!JSON_NODE_HOLDS_OBJECT (value))
    {
      _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                               /* Translators: %s names a step; "when" is a JSON member. */
                               _("The conditions of %s (the member “when” under “skele”) must be an "
                                 "object from a prior’s identifier to a condition. Correct it in the "
                                 "step’s JSON."), who);
      return;
    }

  json_object_iter_init (&iter, json_node_get_object (value));
  while (json_object_iter_next (&iter, &prior_id, &condition))
    {
      const char * const edge[] = { prior_id, id, NULL };
      g_autofree char *prior_who = describe_id (project, prior_id);
      SkNode *other;

      if (!has_prior (node, prior_id))
        {
          _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                                   /* Translators: both %s name steps. */
                                   _("%s has a condition on %s, which it does not need. Connect "
                                     "them, or remove the condition."), who, prior_who);
          _sk_project_set_last_concerns (problems, (const char * const[]) { id, prior_id, NULL }, NULL);
          continue;
        }

      if (!JSON_NODE_HOLDS_VALUE (condition) || json_node_get_value_type (condition) != G_TYPE_STRING ||
          sk_util_is_blank (json_node_get_string (condition)))
        {
          _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                                   /* Translators: both %s name steps. */
                                   _("The condition for %s to run after %s is empty or not text. "
                                     "Write a condition on the prior’s output, such as "
                                     "output[\"score\"] >= 80, or “default”."), who, prior_who);
          _sk_project_set_last_concerns (problems, NULL, edge);
          continue;
        }

      if (g_strcmp0 (sk_node_get_condition (node, prior_id), SK_CONTROL_FLOW_DEFAULT) == 0 &&
          (other = earlier_default (project, node, prior_id)) != NULL)
        {
          g_autofree char *other_who = _sk_project_describe_node (other);

          _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                                   /* Translators: the first two %s name steps that both take
                                    * the default branch after the step the third names. */
                                   _("Both %s and %s are the default branch after %s, but only one "
                                     "branch runs. Give one of them a condition."),
                                   other_who, who, prior_who);
          _sk_project_set_last_concerns (problems, (const char * const[]) { sk_node_get_id (other), id, NULL },
                                         NULL);
        }
    }
}

static void
validate_foreach (SkProject  *project,
                  SkNode     *node,
                  const char *who,
                  GPtrArray  *problems)
{
  JsonNode *value = _sk_node_get_skele_member (node, MEMBER_FOREACH);
  const char *id = sk_node_get_id (node);
  JsonObject *foreach;
  const char *prior_id;
  const char *path;

  if (value == NULL)
    return;

  foreach = JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  prior_id = sk_json_get_string (foreach, "prior");
  path = sk_json_get_string (foreach, "path");

  if (foreach == NULL || sk_util_is_blank (prior_id))
    {
      _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                               /* Translators: %s names a step; the quoted words are JSON. */
                               _("%s runs for each element of a list, but does not say whose: its "
                                 "“foreach” under “skele” needs “prior”, the identifier of the step "
                                 "whose output holds the list, and “path”, where the list is in it."),
                               who);
      return;
    }

  if (!has_prior (node, prior_id))
    {
      g_autofree char *prior_who = describe_id (project, prior_id);

      _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                               /* Translators: both %s name steps. */
                               _("%s runs for each element of a list of %s, which it does not need. "
                                 "Connect them, or choose one of its priors."), who, prior_who);
      _sk_project_set_last_concerns (problems, (const char * const[]) { id, prior_id, NULL }, NULL);
      return;
    }

  if (!is_dotted_path (path))
    {
      _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                               /* Translators: %s names a step; the quoted words are JSON. */
                               _("%s runs for each element of a list, but its “path” does not say "
                                 "where the list is: give a name from the prior’s output, such as "
                                 "“files”, or a dotted path such as “result.rows”."), who);
    }
}


/* Whether the real path @path lies inside the real path @folder. */
static gboolean
is_below (const char *path,
          const char *folder)
{
  gsize length = strlen (folder);

  return g_str_has_prefix (path, folder) &&
         (path[length] == G_DIR_SEPARATOR || (length > 0 && folder[length - 1] == G_DIR_SEPARATOR)) &&
         path[length] != '\0';
}

static void
validate_workflow (SkProject  *project,
                   SkNode     *node,
                   const char *who,
                   GPtrArray  *problems)
{
  JsonNode *value = _sk_node_get_skele_member (node, MEMBER_WORKFLOW);
  const char *id = sk_node_get_id (node);
  GFile *folder = sk_project_get_folder (project);
  g_auto(GStrv) parts = NULL;
  const char *path;
  gboolean inside;

  if (value == NULL)
    return;

  path = member_string (node, MEMBER_WORKFLOW);
  if (sk_util_is_blank (path))
    {
      _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                               /* Translators: %s names a step; "workflow" is a JSON member. */
                               _("%s is a sub-workflow, but its “workflow” under “skele” names no "
                                 "folder. Give the folder of the workflow, inside this one."), who);
      return;
    }

  /* Inside means below: not up with "..", and not the folder itself. */
  parts = g_strsplit (path, "/", -1);
  inside = FALSE;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (g_str_equal (parts[i], ".."))
        {
          inside = FALSE;
          break;
        }
      if (parts[i][0] != '\0' && !g_str_equal (parts[i], "."))
        inside = TRUE;
    }

  if (g_path_is_absolute (path) || !inside)
    {
      _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                               /* Translators: the first %s names a step, the second a folder. */
                               _("The sub-workflow of %s, “%s”, must be a folder inside this "
                                 "workflow’s folder, given relative to it. Move it there."), who, path);
      return;
    }

  if (folder != NULL)
    {
      g_autoptr(GFile) inner = g_file_resolve_relative_path (folder, path);
      g_autoptr(GFile) process = g_file_get_child (inner, SK_PROJECT_FILE_NAME);
      g_autofree char *folder_real = realpath (g_file_peek_path (folder), NULL);
      g_autofree char *inner_real = realpath (g_file_peek_path (inner), NULL);

      /* A link can lead the folder back up, and a workflow that holds
       * itself runs without end: each sub-workflow must lie deeper. */
      if (folder_real != NULL && inner_real != NULL && !is_below (inner_real, folder_real))
        {
          if (is_below (folder_real, inner_real) || g_str_equal (folder_real, inner_real))
            _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                                     /* Translators: the first %s names a step, the second a folder. */
                                     _("The sub-workflow of %s, “%s” leads back to this workflow "
                                       "or one that holds it, so it would run itself without end. "
                                       "Name another folder."), who, path);
          else
            _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                                     /* Translators: the first %s names a step, the second a folder,
                                      * the third where a link leads. */
                                     _("The sub-workflow of %s, “%s”, is a link to “%s”, outside "
                                       "this workflow’s folder. Copy that workflow inside instead."),
                                     who, path, inner_real);
          return;
        }

      if (!g_file_query_exists (process, NULL))
        _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, id,
                                 /* Translators: the first %s names a step, the second a folder. */
                                 _("The sub-workflow of %s, “%s”, holds no workflow: there is no "
                                   "process.json in it. Create it there, or correct the folder."),
                                 who, path);
    }
}

/*
 * Adds the problems of @node's control flow to @problems. Only what is
 * there is checked: a step without control flow has none.
 */
void
_sk_control_flow_validate (SkProject *self,
                           SkNode    *node,
                           GPtrArray *problems)
{
  g_autofree char *who = _sk_project_describe_node (node);

  validate_approval (node, who, problems);
  validate_when (self, node, who, problems);
  validate_foreach (self, node, who, problems);
  validate_workflow (self, node, who, problems);
}

/**
 * sk_project_get_branches:
 * @project: a workflow
 * @prior: one of its steps
 *
 * Returns: (transfer container) (element-type SkNode): the successors of
 *   @prior whose connection from it carries a condition, in the order the
 *   workflow lists them, which is the order the conditions are tried in
 */
GPtrArray *
sk_project_get_branches (SkProject *project,
                         SkNode    *prior)
{
  g_autoptr(GPtrArray) successors = NULL;
  GPtrArray *branches;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (SK_IS_NODE (prior), NULL);

  successors = sk_project_get_successors (project, prior);
  branches = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < successors->len; i++)
    {
      SkNode *next = g_ptr_array_index (successors, i);

      if (sk_node_get_condition (next, sk_node_get_id (prior)) != NULL)
        g_ptr_array_add (branches, g_object_ref (next));
    }

  return branches;
}

/* Approval gates ----------------------------------------------------- */

G_DEFINE_QUARK (sk-control-flow-error-quark, sk_control_flow_error)

#define APPROVAL_FILE_NAME "approval.json"

static char *
approval_path (const char *step_folder,
               const char *key)
{
  g_autofree char *bookkeeping = sk_step_folder_build_path (step_folder, key,
                                                           SK_STEP_FILE_BOOKKEEPING);

  return g_build_filename (bookkeeping, APPROVAL_FILE_NAME, NULL);
}

void
sk_approval_free (SkApproval *approval)
{
  if (approval == NULL)
    return;

  g_free (approval->by);
  g_free (approval->at);
  g_free (approval->note);
  g_free (approval->fingerprint);
  g_free (approval);
}

/**
 * sk_approval_read:
 * @step_folder: the path of the gate's folder
 * @key: the gate's key
 *
 * Returns: (transfer full) (nullable): the decision on the gate, or %NULL
 *   when nobody decided or the record cannot be read, which asks again
 */
SkApproval *
sk_approval_read (const char *step_folder,
                  const char *key)
{
  g_autofree char *path = NULL;
  g_autoptr(JsonObject) object = NULL;
  const char *decision;
  const char *fingerprint;
  SkApproval *approval;

  g_return_val_if_fail (step_folder != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);

  path = approval_path (step_folder, key);
  if ((object = sk_json_read_object (path, NULL)) == NULL)
    return NULL;

  decision = sk_json_get_string (object, "decision");
  fingerprint = sk_json_get_string (object, "fingerprint");
  if (fingerprint == NULL ||
      (g_strcmp0 (decision, "approved") != 0 && g_strcmp0 (decision, "denied") != 0))
    return NULL;

  approval = g_new0 (SkApproval, 1);
  approval->approved = g_str_equal (decision, "approved");
  approval->by = g_strdup (sk_json_get_string (object, "by"));
  approval->at = g_strdup (sk_json_get_string (object, "at"));
  approval->note = g_strdup (sk_json_get_string (object, "note"));
  approval->fingerprint = g_strdup (fingerprint);
  if (approval->by == NULL)
    approval->by = g_strdup ("");
  if (approval->at == NULL)
    approval->at = g_strdup ("");

  return approval;
}

static const char *
current_person (void)
{
  const char *name = g_get_real_name ();

  if (name == NULL || name[0] == '\0' || g_str_equal (name, "Unknown"))
    name = g_get_user_name ();

  return name;
}

/**
 * sk_approval_write:
 * @step_folder: the path of the gate's folder
 * @key: the gate's key
 * @approved: whether the gate is approved, rather than denied
 * @fingerprint: what is decided on: the gate's fingerprint
 * @note: (nullable): what the person wrote with the decision
 * @error: return location for a #GError
 *
 * Keeps a decision on a gate, with the person who took it and when.
 *
 * Returns: %TRUE if the decision was written
 */
gboolean
sk_approval_write (const char  *step_folder,
                   const char  *key,
                   gboolean     approved,
                   const char  *fingerprint,
                   const char  *note,
                   GError     **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *at = g_date_time_format_iso8601 (now);
  g_autofree char *path = NULL;
  g_autofree char *folder = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (step_folder != NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (fingerprint != NULL, FALSE);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "decision");
  json_builder_add_string_value (builder, approved ? "approved" : "denied");
  json_builder_set_member_name (builder, "by");
  json_builder_add_string_value (builder, current_person ());
  json_builder_set_member_name (builder, "at");
  json_builder_add_string_value (builder, at);
  if (note != NULL && !sk_util_is_blank (note))
    {
      json_builder_set_member_name (builder, "note");
      json_builder_add_string_value (builder, note);
    }
  json_builder_set_member_name (builder, "fingerprint");
  json_builder_add_string_value (builder, fingerprint);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);

  path = approval_path (step_folder, key);
  folder = g_path_get_dirname (path);
  if (g_mkdir_with_parents (folder, 0755) != 0 ||
      !sk_json_write_atomic (path, root, TRUE, &local_error))
    {
      g_set_error (error, SK_CONTROL_FLOW_ERROR, SK_CONTROL_FLOW_ERROR_WRITE,
                   /* Translators: %s is a file's path, then why it failed. */
                   _("The decision could not be kept in %s: %s"), path,
                   local_error != NULL ? local_error->message : g_strerror (errno));
      return FALSE;
    }

  return TRUE;
}

/**
 * sk_approval_describe:
 * @approval: a decision
 *
 * Returns: (transfer full): the decision in a sentence, such as “Approved
 *   by Ann Smith on 24 November 2026 at 18:02: the totals look right.”
 */
char *
sk_approval_describe (const SkApproval *approval)
{
  g_autoptr(GDateTime) at = NULL;
  g_autofree char *when = NULL;
  g_autofree char *sentence = NULL;

  g_return_val_if_fail (approval != NULL, NULL);

  at = g_date_time_new_from_iso8601 (approval->at, NULL);
  if (at != NULL)
    {
      g_autoptr(GDateTime) local = g_date_time_to_local (at);

      /* Translators: a date and time, see g_date_time_format(). */
      when = g_date_time_format (local, _("%-d %B %Y at %H:%M"));
    }

  if (approval->approved)
    sentence = when != NULL
      /* Translators: the first %s is a person, the second a date and time. */
      ? g_strdup_printf (_("Approved by %s on %s."), approval->by, when)
      : g_strdup_printf (_("Approved by %s."), approval->by);
  else
    sentence = when != NULL
      /* Translators: the first %s is a person, the second a date and time. */
      ? g_strdup_printf (_("Denied by %s on %s."), approval->by, when)
      : g_strdup_printf (_("Denied by %s."), approval->by);

  if (approval->note != NULL && approval->note[0] != '\0')
    /* Translators: the first %s is a decision, the second the note written with it. */
    return g_strdup_printf (_("%s Note: %s"), sentence, approval->note);

  return g_steal_pointer (&sentence);
}

/**
 * sk_approval_get_waiting:
 * @step_folder: the path of the gate's folder
 * @key: the gate's key
 *
 * Returns: (transfer full) (nullable): the fingerprint the gate waits for
 *   a decision on, from the run that stopped before it; %NULL when no run
 *   is waiting there
 */
char *
sk_approval_get_waiting (const char *step_folder,
                         const char *key)
{
  g_autoptr(JsonObject) record = sk_run_record_read (step_folder, key);

  if (record == NULL || g_strcmp0 (sk_json_get_string (record, "status"), "waiting") != 0)
    return NULL;

  return g_strdup (sk_json_get_string (record, "fingerprint"));
}

/**
 * sk_project_decide_gate:
 * @project: a workflow with a folder
 * @node: an approval gate of @project at which a run is waiting
 * @approved: whether to approve it, rather than deny it
 * @note: (nullable): what the person writes with the decision
 * @error: return location for a #GError
 *
 * Decides on what the gate waits for: the inputs and the code the run that
 * stopped there saw. Running again goes on from the gate.
 *
 * Returns: %TRUE if the decision was kept
 */
gboolean
sk_project_decide_gate (SkProject   *project,
                        SkNode      *node,
                        gboolean     approved,
                        const char  *note,
                        GError     **error)
{
  g_autoptr(GFile) folder = NULL;
  g_autofree char *folder_path = NULL;
  g_autofree char *fingerprint = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (SK_IS_NODE (node), FALSE);

  if (!sk_node_get_approval (node))
    {
      g_set_error (error, SK_CONTROL_FLOW_ERROR, SK_CONTROL_FLOW_ERROR_NOT_A_GATE,
                   /* Translators: %s is a step's name. */
                   _("“%s” is not an approval gate, so there is nothing to decide."),
                   sk_node_get_name (node));
      return FALSE;
    }

  folder = sk_project_get_node_folder (project, node);
  folder_path = folder != NULL ? g_file_get_path (folder) : NULL;
  if (folder_path != NULL)
    fingerprint = sk_approval_get_waiting (folder_path, sk_node_get_key (node));

  if (fingerprint == NULL)
    {
      g_set_error (error, SK_CONTROL_FLOW_ERROR, SK_CONTROL_FLOW_ERROR_NOT_WAITING,
                   /* Translators: %s is a step's name. */
                   _("No run is waiting at “%s”: run the workflow first, so that what the "
                     "gate receives is ready to look at."),
                   sk_node_get_name (node));
      return FALSE;
    }

  return sk_approval_write (folder_path, sk_node_get_key (node), approved, fingerprint, note, error);
}

/* Checking conditions ----------------------------------------------------- */

/* The conditions that Python must read, as the "check" mode of the harness
 * takes them: one object with "node", "prior" and "expr" for each. The
 * default branches are no Python. */
static JsonArray *
collect_conditions (SkProject *project)
{
  JsonArray *expressions = json_array_new ();

  for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      const char * const *priors = sk_node_get_priors (node);

      for (guint j = 0; priors != NULL && priors[j] != NULL; j++)
        {
          const char *condition = sk_node_get_condition (node, priors[j]);
          g_autofree char *trimmed = g_strstrip (g_strdup (condition != NULL ? condition : ""));
          JsonObject *entry;

          if (condition == NULL || g_str_equal (trimmed, SK_CONTROL_FLOW_DEFAULT))
            continue;

          entry = json_object_new ();
          json_object_set_string_member (entry, "node", sk_node_get_id (node));
          json_object_set_string_member (entry, "prior", priors[j]);
          json_object_set_string_member (entry, "expr", condition);
          json_array_add_object_element (expressions, entry);
        }
    }

  return expressions;
}

static char *
conditions_to_string (JsonArray *expressions)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

  json_node_set_array (root, expressions);
  return json_to_string (root, FALSE);
}

/* Starts Python on the harness's "check" mode; @input is what to write to
 * it. */
static GSubprocess *
spawn_check (const char  *python,
             JsonArray   *expressions,
             GBytes     **input,
             GError     **error)
{
  g_autofree char *harness = NULL;
  GSubprocess *process;
  char *text;

  if ((harness = sk_harness_get_path (error)) == NULL)
    return NULL;

  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                              G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                              error, python, "-I", harness, "check", NULL);
  if (process == NULL)
    return NULL;

  text = conditions_to_string (expressions);
  *input = g_bytes_new_take (text, strlen (text));
  return process;
}

/* The condition that was checked on the connection from @prior_id to
 * @node_id. */
static const char *
checked_condition (JsonArray  *expressions,
                   const char *node_id,
                   const char *prior_id)
{
  guint n = json_array_get_length (expressions);

  for (guint i = 0; i < n; i++)
    {
      JsonObject *entry = json_array_get_object_element (expressions, i);

      if (g_strcmp0 (sk_json_get_string (entry, "node"), node_id) == 0 &&
          g_strcmp0 (sk_json_get_string (entry, "prior"), prior_id) == 0)
        return sk_json_get_string (entry, "expr");
    }

  return NULL;
}

/* Adds a problem to @problems for each error that the finished @process
 * wrote in @output. The workflow may have changed since @expressions were
 * collected: an error about a step that is gone, or about a condition
 * that is no longer the one checked, is left out. */
static gboolean
read_check_output (SkProject    *project,
                   const char   *python,
                   JsonArray    *expressions,
                   GSubprocess  *process,
                   GBytes       *output,
                   GPtrArray    *problems,
                   GError      **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *data = NULL;
  gsize size = 0;
  JsonNode *root = NULL;
  JsonArray *errors;

  if (output != NULL)
    data = g_bytes_get_data (output, &size);

  /* The output has no terminating nul, so its length is given. */
  if (g_subprocess_get_successful (process) && data != NULL &&
      json_parser_load_from_data (parser, data, size, NULL))
    root = json_parser_get_root (parser);

  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    {
      g_set_error (error, SK_CONTROL_FLOW_ERROR, SK_CONTROL_FLOW_ERROR_CHECK,
                   /* Translators: %s is the path of a program. */
                   _("Python (%s) could not check the conditions."), python);
      return FALSE;
    }

  errors = json_node_get_array (root);
  for (guint i = 0; i < json_array_get_length (errors); i++)
    {
      JsonNode *element = json_array_get_element (errors, i);
      JsonObject *entry = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      const char *node_id = sk_json_get_string (entry, "node");
      const char *prior_id = sk_json_get_string (entry, "prior");
      SkNode *node = node_id != NULL ? sk_project_get_node (project, node_id) : NULL;
      SkNode *prior = prior_id != NULL ? sk_project_get_node (project, prior_id) : NULL;

      if (node == NULL || prior == NULL ||
          g_strcmp0 (sk_node_get_condition (node, prior_id),
                     checked_condition (expressions, node_id, prior_id)) != 0)
        continue;

      _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, node_id,
                               /* Translators: two steps' names, then Python's error. The
                                * message is short, as a notification shows it on one line. */
                               _("The condition from “%s” to “%s” is not Python: %s."),
                               sk_node_get_name (prior), sk_node_get_name (node),
                               sk_json_get_string (entry, "error"));
      _sk_project_set_last_concerns (problems, NULL, (const char * const[]) { prior_id, node_id, NULL });
    }

  return TRUE;
}

/**
 * sk_project_get_conditions_key:
 * @project: a workflow
 *
 * Tells cheaply, without starting Python, whether what
 * sk_project_check_conditions() would find may have changed: the key
 * changes with every step, connection and expression among the
 * conditions, and with the names of those steps, which its problems give.
 *
 * Returns: (transfer full) (nullable): a checksum of the workflow's
 *   conditions, or %NULL when it has none to check
 */
char *
sk_project_get_conditions_key (SkProject *project)
{
  g_autoptr(JsonArray) expressions = NULL;
  g_autoptr(GChecksum) checksum = NULL;
  g_autofree char *text = NULL;
  guint n;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);

  expressions = collect_conditions (project);
  n = json_array_get_length (expressions);
  if (n == 0)
    return NULL;

  checksum = g_checksum_new (G_CHECKSUM_SHA256);
  text = conditions_to_string (expressions);
  g_checksum_update (checksum, (const guchar *) text, -1);
  for (guint i = 0; i < n; i++)
    {
      JsonObject *entry = json_array_get_object_element (expressions, i);
      SkNode *node = sk_project_get_node (project, sk_json_get_string (entry, "node"));
      SkNode *prior = sk_project_get_node (project, sk_json_get_string (entry, "prior"));

      /* A nul byte cannot be part of a name, so it separates them. */
      g_checksum_update (checksum, (const guchar *) sk_node_get_name (node), -1);
      g_checksum_update (checksum, (const guchar *) "", 1);
      if (prior != NULL)
        g_checksum_update (checksum, (const guchar *) sk_node_get_name (prior), -1);
      g_checksum_update (checksum, (const guchar *) "", 1);
    }

  return g_strdup (g_checksum_get_string (checksum));
}

/**
 * sk_project_check_conditions:
 * @project: a workflow
 * @python: the interpreter the steps run with
 * @problems: (element-type SkProblem): where to add a problem for each
 *   condition that is not a Python expression
 * @error: return location for a #GError, when Python could not check them
 *
 * Checks the syntax of the conditions on the workflow's connections with
 * the Python that will evaluate them, without running anything. A
 * workflow without conditions starts no Python. This waits for Python;
 * sk_project_check_conditions_async() does not.
 *
 * Returns: %TRUE when the conditions could be checked
 */
gboolean
sk_project_check_conditions (SkProject  *project,
                             const char *python,
                             GPtrArray  *problems,
                             GError    **error)
{
  g_autoptr(JsonArray) expressions = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GBytes) input = NULL;
  g_autoptr(GBytes) output = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (python != NULL, FALSE);
  g_return_val_if_fail (problems != NULL, FALSE);

  expressions = collect_conditions (project);
  if (json_array_get_length (expressions) == 0)
    return TRUE;

  if ((process = spawn_check (python, expressions, &input, error)) == NULL ||
      !g_subprocess_communicate (process, input, NULL, &output, NULL, error))
    return FALSE;

  return read_check_output (project, python, expressions, process, output, problems, error);
}

/* What an asynchronous check needs once Python has answered. */
typedef struct
{
  char      *python;
  JsonArray *expressions;
} Check;

static void
check_free (Check *check)
{
  g_free (check->python);
  json_array_unref (check->expressions);
  g_free (check);
}

static void
check_communicated_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  GSubprocess *process = G_SUBPROCESS (object);
  g_autoptr(GTask) task = user_data;
  Check *check = g_task_get_task_data (task);
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free);
  g_autoptr(GBytes) output = NULL;
  g_autoptr(GError) error = NULL;

  g_assert (G_IS_TASK (task));
  g_assert (check != NULL);

  if (!g_subprocess_communicate_finish (process, result, &output, NULL, &error))
    {
      /* Cancelling only stops the waiting; nobody wants the answer any
       * more, so Python need not finish either. */
      g_subprocess_force_exit (process);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (!read_check_output (g_task_get_source_object (task), check->python, check->expressions,
                          process, output, problems, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  g_task_return_pointer (task, g_steal_pointer (&problems), (GDestroyNotify) g_ptr_array_unref);
}

/**
 * sk_project_check_conditions_async:
 * @project: a workflow
 * @python: the interpreter the steps run with
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the conditions are checked
 * @user_data: data for @callback
 *
 * Checks the syntax of the conditions as sk_project_check_conditions()
 * does, without waiting for Python. The conditions are read at once; if
 * the workflow changes meanwhile, problems are given only for the steps
 * and conditions that are still as they were.
 */
void
sk_project_check_conditions_async (SkProject           *project,
                                   const char          *python,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonArray) expressions = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GBytes) input = NULL;
  g_autoptr(GError) error = NULL;
  Check *check;

  g_return_if_fail (SK_IS_PROJECT (project));
  g_return_if_fail (python != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (project, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_project_check_conditions_async);

  expressions = collect_conditions (project);
  if (json_array_get_length (expressions) == 0)
    {
      g_task_return_pointer (task, g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free),
                             (GDestroyNotify) g_ptr_array_unref);
      return;
    }

  if ((process = spawn_check (python, expressions, &input, &error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  check = g_new0 (Check, 1);
  check->python = g_strdup (python);
  check->expressions = g_steal_pointer (&expressions);
  g_task_set_task_data (task, check, (GDestroyNotify) check_free);

  g_subprocess_communicate_async (process, input, cancellable, check_communicated_cb, g_steal_pointer (&task));
}

/**
 * sk_project_check_conditions_finish:
 * @project: a workflow
 * @result: the result given to the callback
 * @error: return location for a #GError, when Python could not check the
 *   conditions or the check was cancelled
 *
 * Returns: (transfer container) (element-type SkProblem) (nullable): a
 *   problem for each condition that is not a Python expression, an empty
 *   array when there is none, or %NULL with @error set
 */
GPtrArray *
sk_project_check_conditions_finish (SkProject     *project,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (g_task_is_valid (result, project), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_project_check_conditions_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
