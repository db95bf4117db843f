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
 * workflow without conditions starts no Python.
 *
 * Returns: %TRUE when the conditions could be checked
 */
gboolean
sk_project_check_conditions (SkProject  *project,
                             const char *python,
                             GPtrArray  *problems,
                             GError    **error)
{
  g_autoptr(JsonArray) expressions = json_array_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GBytes) input = NULL;
  g_autoptr(GBytes) output = NULL;
  g_autoptr(JsonNode) result = NULL;
  g_autofree char *harness = NULL;
  g_autofree char *text = NULL;
  JsonArray *errors;

  g_return_val_if_fail (SK_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (python != NULL, FALSE);

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

  if (json_array_get_length (expressions) == 0)
    return TRUE;

  if ((harness = sk_harness_get_path (error)) == NULL)
    return FALSE;

  root = json_node_init_array (json_node_alloc (), expressions);
  text = json_to_string (root, FALSE);
  input = g_bytes_new (text, strlen (text));
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                              G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                              error, python, "-I", harness, "check", NULL);
  if (process == NULL ||
      !g_subprocess_communicate (process, input, NULL, &output, NULL, error))
    return FALSE;

  result = json_from_string (output != NULL ? g_bytes_get_data (output, NULL) : "", NULL);
  if (!g_subprocess_get_successful (process) || result == NULL || !JSON_NODE_HOLDS_ARRAY (result))
    {
      g_set_error (error, SK_CONTROL_FLOW_ERROR, SK_CONTROL_FLOW_ERROR_CHECK,
                   /* Translators: %s is the path of a program. */
                   _("Python (%s) could not check the conditions."), python);
      return FALSE;
    }

  errors = json_node_get_array (result);
  for (guint i = 0; i < json_array_get_length (errors); i++)
    {
      JsonObject *entry = json_array_get_object_element (errors, i);
      const char *node_id = sk_json_get_string (entry, "node");
      const char *prior_id = sk_json_get_string (entry, "prior");
      SkNode *node = node_id != NULL ? sk_project_get_node (project, node_id) : NULL;
      SkNode *prior = prior_id != NULL ? sk_project_get_node (project, prior_id) : NULL;

      if (node == NULL || prior == NULL)
        continue;

      _sk_project_add_problem (problems, SK_PROBLEM_CONTROL_FLOW, FALSE, node_id,
                               /* Translators: two steps' names, then Python's error. The
                                * message is short, as a notification shows it on one line. */
                               _("The condition from “%s” to “%s” is not Python: %s."),
                               sk_node_get_name (prior), sk_node_get_name (node),
                               sk_json_get_string (entry, "error"));
    }

  return TRUE;
}
