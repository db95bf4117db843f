/* sk-changeset.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-changeset"

#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "sk-changeset.h"

/* A changeset is the chat agent's proposal: its operations change a scratch
 * copy of the workflow, never the workflow itself. What it changes is
 * always computed by comparing the scratch with the base, the workflow as
 * it was when the changeset was made, so that the summary the user reads
 * cannot differ from what applying does. */

/* How far below its priors a new step is put, in canvas units. */
#define NEW_STEP_SPACING 150.0
/* A step's box and the room around it, as the canvas draws it. */
#define NEW_STEP_CLEARANCE_X 200.0
#define NEW_STEP_CLEARANCE_Y 100.0

struct _SkChangeset
{
  GObject     parent_instance;

  SkProject  *project;
  SkProject  *base;
  SkProject  *scratch;
  GHashTable *rejected;
};

G_DEFINE_FINAL_TYPE (SkChangeset, sk_changeset, G_TYPE_OBJECT)

G_DEFINE_BOXED_TYPE (SkChange, sk_change, sk_change_copy, sk_change_free)

/**
 * sk_change_copy:
 * @change: a #SkChange
 *
 * Returns: (transfer full): a copy of @change
 */
SkChange *
sk_change_copy (const SkChange *change)
{
  SkChange *copy;

  g_return_val_if_fail (change != NULL, NULL);

  copy = g_new0 (SkChange, 1);
  copy->kind = change->kind;
  copy->step_id = g_strdup (change->step_id);
  copy->other_id = g_strdup (change->other_id);
  copy->name = g_strdup (change->name);
  copy->other_name = g_strdup (change->other_name);
  copy->old_text = g_strdup (change->old_text);
  copy->new_text = g_strdup (change->new_text);
  return copy;
}

/**
 * sk_change_free:
 * @change: (nullable): a #SkChange
 *
 * Frees @change.
 */
void
sk_change_free (SkChange *change)
{
  if (change == NULL)
    return;

  g_free (change->step_id);
  g_free (change->other_id);
  g_free (change->name);
  g_free (change->other_name);
  g_free (change->old_text);
  g_free (change->new_text);
  g_free (change);
}

/**
 * sk_change_describe:
 * @change: a #SkChange
 *
 * Returns: (transfer full): @change as one sentence, for a list of changes
 */
char *
sk_change_describe (const SkChange *change)
{
  g_return_val_if_fail (change != NULL, NULL);

  switch (change->kind)
    {
    case SK_CHANGE_ADDED:
      return g_strdup_printf (_("Added the step “%s”."), change->name);
    case SK_CHANGE_REMOVED:
      return g_strdup_printf (_("Removed the step “%s”."), change->name);
    case SK_CHANGE_RENAMED:
      return g_strdup_printf (_("Renamed “%s” to “%s”."), change->old_text, change->new_text);
    case SK_CHANGE_TASK_CHANGED:
      return g_strdup_printf (_("Changed the task of “%s”; its code will be rewritten."),
                              change->name);
    case SK_CHANGE_DESCRIPTION_CHANGED:
      return g_strdup_printf (_("Changed the description of “%s”."), change->name);
    case SK_CHANGE_CONNECTED:
      return g_strdup_printf (_("Connected “%s” to “%s”."), change->other_name, change->name);
    case SK_CHANGE_DISCONNECTED:
      return g_strdup_printf (_("Disconnected “%s” from “%s”."),
                              change->other_name, change->name);
    case SK_CHANGE_RUN_CHANGED:
      if (g_strcmp0 (change->new_text, "true") == 0)
        return g_strdup_printf (_("“%s” will run."), change->name);
      return g_strdup_printf (_("“%s” will not run."), change->name);
    case SK_CHANGE_PROCESS_CHANGED:
      if (g_strcmp0 (change->name, "name") == 0)
        return g_strdup_printf (_("Renamed the workflow to “%s”."), change->new_text);
      return g_strdup (_("Changed the workflow’s description."));
    default:
      g_return_val_if_reached (NULL);
    }
}

static SkProject *
copy_project (SkProject *project)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  SkProject *copy;
  gsize length;

  data = sk_project_to_data (project, &length);
  copy = sk_project_load_from_data (data, length, sk_project_get_folder (project), &error);

  /* The data was written by the same program a moment ago. */
  if (copy == NULL)
    g_error ("Could not copy a workflow: %s", error->message);

  return copy;
}

static void
sk_changeset_finalize (GObject *object)
{
  SkChangeset *self = (SkChangeset *)object;

  g_clear_object (&self->project);
  g_clear_object (&self->base);
  g_clear_object (&self->scratch);
  g_clear_pointer (&self->rejected, g_hash_table_unref);

  G_OBJECT_CLASS (sk_changeset_parent_class)->finalize (object);
}

static void
sk_changeset_class_init (SkChangesetClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sk_changeset_finalize;
}

static void
sk_changeset_init (SkChangeset *self)
{
  self->rejected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/**
 * sk_changeset_new:
 * @project: the workflow the changes are for
 *
 * Makes an empty changeset with a scratch copy of @project, on which its
 * operations are made. @project itself changes only in
 * sk_changeset_apply().
 *
 * Returns: (transfer full): a new #SkChangeset
 */
SkChangeset *
sk_changeset_new (SkProject *project)
{
  SkChangeset *self;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);

  self = g_object_new (SK_TYPE_CHANGESET, NULL);
  self->project = g_object_ref (project);
  self->base = copy_project (project);
  self->scratch = copy_project (project);
  return self;
}

/**
 * sk_changeset_get_project:
 * @self: a #SkChangeset
 *
 * Returns: (transfer none): the workflow the changes are for
 */
SkProject *
sk_changeset_get_project (SkChangeset *self)
{
  g_return_val_if_fail (SK_IS_CHANGESET (self), NULL);

  return self->project;
}

/**
 * sk_changeset_get_scratch:
 * @self: a #SkChangeset
 *
 * Returns: (transfer none): the copy of the workflow with the changes made;
 *   it is replaced by each operation that succeeds
 */
SkProject *
sk_changeset_get_scratch (SkChangeset *self)
{
  g_return_val_if_fail (SK_IS_CHANGESET (self), NULL);

  return self->scratch;
}

static char *
list_steps (SkProject *project)
{
  g_autoptr(GString) text = g_string_new (NULL);
  guint n = sk_project_get_n_nodes (project);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (i > 0)
        g_string_append (text, ", ");
      /* TRANSLATORS: one step in a list: its key, then its identifier */
      g_string_append_printf (text, _("“%s” (%s)"), sk_node_get_key (node), sk_node_get_id (node));
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

static SkNode *
resolve_in (SkProject   *project,
            const char  *step,
            GError     **error)
{
  SkNode *node = NULL;

  if (step != NULL)
    {
      node = sk_project_get_node (project, step);
      if (node == NULL)
        node = sk_project_get_node_by_key (project, step);
    }

  if (node == NULL)
    {
      if (sk_project_get_n_nodes (project) == 0)
        {
          g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_NOT_FOUND,
                       _("There is no step “%s”. The workflow has no steps yet; add one first."),
                       step != NULL ? step : "");
        }
      else
        {
          g_autofree char *steps = list_steps (project);

          g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_NOT_FOUND,
                       _("There is no step “%s”. The steps are: %s. Name a step by its "
                         "identifier or its key."),
                       step != NULL ? step : "", steps);
        }
    }

  return node;
}

/**
 * sk_changeset_resolve_step:
 * @self: a #SkChangeset
 * @step: a step's identifier or key
 * @error: return location for a #GError
 *
 * Finds a step of the changeset's copy of the workflow, so that a step the
 * changeset added can be named too.
 *
 * Returns: (transfer none) (nullable): the step, or %NULL with @error set,
 *   whose message lists the steps there are
 */
SkNode *
sk_changeset_resolve_step (SkChangeset  *self,
                           const char   *step,
                           GError      **error)
{
  g_return_val_if_fail (SK_IS_CHANGESET (self), NULL);

  return resolve_in (self->scratch, step, error);
}

/* Replaces the scratch with @candidate unless @candidate has problems the
 * scratch did not have; problems that were already there never refuse an
 * operation, so that a broken workflow can be repaired one step at a time.
 * The refusal is @reason when it is given, or else the new problems. */
static gboolean
commit (SkChangeset  *self,
        SkProject    *candidate,
        const char   *reason,
        GError      **error)
{
  g_autoptr(GPtrArray) before = sk_project_validate (self->scratch);
  g_autoptr(GPtrArray) after = sk_project_validate (candidate);
  g_autoptr(GPtrArray) problems = sk_problems_new_since (before, after);

  if (problems->len > 0)
    {
      g_autoptr(GString) message = NULL;

      /* A reason that says it all is not followed by the problems, which
       * are worded for someone editing the workflow by hand. */
      if (reason != NULL)
        {
          g_set_error_literal (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID, reason);
          return FALSE;
        }

      message = g_string_new (_("This change was not made, because it would make the workflow "
                                "invalid:"));
      for (guint i = 0; i < problems->len; i++)
        {
          const SkProblem *problem = g_ptr_array_index (problems, i);

          g_string_append_c (message, ' ');
          g_string_append (message, problem->message);
        }

      g_set_error_literal (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID, message->str);
      return FALSE;
    }

  g_set_object (&self->scratch, candidate);
  return TRUE;
}

static gboolean
check_name (SkProject   *project,
            SkNode      *node,
            const char  *name,
            GError     **clash,
            GError     **error)
{
  g_autofree char *key = NULL;

  if (name == NULL || (key = sk_node_key_from_name (name))[0] == '\0')
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                   _("The name “%s” has no letters or digits, so it cannot name the step’s "
                     "folder. Choose a name with letters or digits."),
                   name != NULL ? name : "");
      return FALSE;
    }

  /* A clash is refused by commit() only if it is new, but its reason is
   * worded by sk_project_check_name(). */
  sk_project_check_name (project, node, name, clash);
  return TRUE;
}

static void
replace_string (char       **target,
                 const char  *value)
{
  g_free (*target);
  *target = g_strdup (value);
}

/* Whether a step at (x, y) would cover another step, with room for the
 * arrows between them. */
static gboolean
place_is_taken (SkProject *project,
                SkNode    *node,
                double     x,
                double     y)
{
  guint n = sk_project_get_n_nodes (project);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) other = g_list_model_get_item (G_LIST_MODEL (project), i);
      double other_x, other_y;

      if (other != node && sk_node_get_position (other, &other_x, &other_y) &&
          fabs (other_x - x) < NEW_STEP_CLEARANCE_X && fabs (other_y - y) < NEW_STEP_CLEARANCE_Y)
        return TRUE;
    }

  return FALSE;
}

/* Puts @node at (x, y), or to the right of it when another step is there,
 * so that a proposed step is never drawn over a step of the workflow. */
static void
set_free_position (SkProject *project,
                   SkNode    *node,
                   double     x,
                   double     y)
{
  for (guint tries = 0; tries < 200 && place_is_taken (project, node, x, y); tries++)
    x += NEW_STEP_CLEARANCE_X;

  sk_node_set_position (node, x, y);
}

static void
place_new_step (SkProject *project,
                SkNode    *node,
                GPtrArray *priors)
{
  double sum_x = 0, lowest_y = -G_MAXDOUBLE, lowest_x = 0;
  guint placed = 0;
  guint n;

  for (guint i = 0; i < priors->len; i++)
    {
      double x, y;

      if (sk_node_get_position (g_ptr_array_index (priors, i), &x, &y))
        {
          sum_x += x;
          lowest_y = MAX (lowest_y, y);
          placed++;
        }
    }

  if (placed > 0)
    {
      set_free_position (project, node, sum_x / placed, lowest_y + NEW_STEP_SPACING);
      return;
    }

  /* Without priors it goes below every other step; on a canvas where no
   * step has a place yet, Arrange places them all. */
  n = sk_project_get_n_nodes (project);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) other = g_list_model_get_item (G_LIST_MODEL (project), i);
      double x, y;

      if (other != node && sk_node_get_position (other, &x, &y) && y > lowest_y)
        {
          lowest_y = y;
          lowest_x = x;
          placed++;
        }
    }

  if (placed > 0)
    set_free_position (project, node, lowest_x, lowest_y + NEW_STEP_SPACING);
}

/**
 * sk_changeset_add_step:
 * @self: a #SkChangeset
 * @name: the new step's name
 * @task: what the step does, from which its code is written
 * @description: (nullable): a longer description
 * @priors: (nullable) (array zero-terminated=1): the steps whose results it
 *   needs, by identifier or key
 * @out_id: (out) (optional) (transfer full): the new step's identifier
 * @error: return location for a #GError
 *
 * Adds a step below its priors, or below the other steps.
 *
 * Returns: %TRUE if the step was added
 */
gboolean
sk_changeset_add_step (SkChangeset         *self,
                       const char          *name,
                       const char          *task,
                       const char          *description,
                       const char * const  *priors,
                       char               **out_id,
                       GError             **error)
{
  g_autoptr(SkProject) candidate = NULL;
  g_autoptr(SkNode) node = NULL;
  g_autoptr(GPtrArray) prior_nodes = NULL;
  g_autoptr(GError) clash_error = NULL;
  g_autofree char *id = NULL;

  g_return_val_if_fail (SK_IS_CHANGESET (self), FALSE);

  if (!check_name (self->scratch, NULL, name, &clash_error, error))
    return FALSE;

  candidate = copy_project (self->scratch);
  prior_nodes = g_ptr_array_new ();
  for (guint i = 0; priors != NULL && priors[i] != NULL; i++)
    {
      SkNode *prior = resolve_in (candidate, priors[i], error);

      if (prior == NULL)
        return FALSE;
      if (!g_ptr_array_find (prior_nodes, prior, NULL))
        g_ptr_array_add (prior_nodes, prior);
    }

  /* An id the base had is never given again, or a step removed and one
   * added would read as one step changed. */
  id = sk_project_next_node_id (candidate);
  {
    g_autofree char *base_next = sk_project_next_node_id (self->base);

    if (g_ascii_strtoull (base_next, NULL, 10) > g_ascii_strtoull (id, NULL, 10))
      replace_string (&id, base_next);
  }
  node = sk_node_new (id, name);
  sk_node_set_input_text (node, task != NULL ? task : "");
  if (description != NULL)
    sk_node_set_description (node, description);
  for (guint i = 0; i < prior_nodes->len; i++)
    sk_node_add_prior (node, sk_node_get_id (g_ptr_array_index (prior_nodes, i)));
  place_new_step (candidate, node, prior_nodes);

  if (!sk_project_add_node (candidate, node, error))
    return FALSE;

  if (!commit (self, candidate, clash_error != NULL ? clash_error->message : NULL, error))
    return FALSE;

  if (out_id != NULL)
    *out_id = g_steal_pointer (&id);

  return TRUE;
}

/**
 * sk_changeset_remove_step:
 * @self: a #SkChangeset
 * @step: the step's identifier or key
 * @error: return location for a #GError
 *
 * Removes a step and its connections.
 *
 * Returns: %TRUE if the step was removed
 */
gboolean
sk_changeset_remove_step (SkChangeset  *self,
                          const char   *step,
                          GError      **error)
{
  g_autoptr(SkProject) candidate = NULL;
  SkNode *node;

  g_return_val_if_fail (SK_IS_CHANGESET (self), FALSE);

  candidate = copy_project (self->scratch);
  if ((node = resolve_in (candidate, step, error)) == NULL)
    return FALSE;

  sk_project_remove_node (candidate, node);
  return commit (self, candidate, NULL, error);
}

/**
 * sk_changeset_rename_step:
 * @self: a #SkChangeset
 * @step: the step's identifier or key
 * @name: its new name
 * @error: return location for a #GError
 *
 * Renames a step; its key and folder follow its name when applied.
 *
 * Returns: %TRUE if the step was renamed
 */
gboolean
sk_changeset_rename_step (SkChangeset  *self,
                          const char   *step,
                          const char   *name,
                          GError      **error)
{
  g_autoptr(SkProject) candidate = NULL;
  g_autoptr(GError) clash_error = NULL;
  SkNode *node;

  g_return_val_if_fail (SK_IS_CHANGESET (self), FALSE);

  candidate = copy_project (self->scratch);
  if ((node = resolve_in (candidate, step, error)) == NULL)
    return FALSE;

  if (!check_name (candidate, node, name, &clash_error, error))
    return FALSE;

  sk_node_set_name (node, name);
  return commit (self, candidate, clash_error != NULL ? clash_error->message : NULL, error);
}

/**
 * sk_changeset_set_task:
 * @self: a #SkChangeset
 * @step: the step's identifier or key
 * @text: what the step is to do
 * @error: return location for a #GError
 *
 * Changes a step's task, so that its code will be written again.
 *
 * Returns: %TRUE if the task was changed
 */
gboolean
sk_changeset_set_task (SkChangeset  *self,
                       const char   *step,
                       const char   *text,
                       GError      **error)
{
  g_autoptr(SkProject) candidate = NULL;
  SkNode *node;

  g_return_val_if_fail (SK_IS_CHANGESET (self), FALSE);

  candidate = copy_project (self->scratch);
  if ((node = resolve_in (candidate, step, error)) == NULL)
    return FALSE;

  sk_node_set_input_text (node, text != NULL ? text : "");
  return commit (self, candidate, NULL, error);
}

/**
 * sk_changeset_set_description:
 * @self: a #SkChangeset
 * @step: the step's identifier or key
 * @text: its new description
 * @error: return location for a #GError
 *
 * Returns: %TRUE if the description was changed
 */
gboolean
sk_changeset_set_description (SkChangeset  *self,
                              const char   *step,
                              const char   *text,
                              GError      **error)
{
  g_autoptr(SkProject) candidate = NULL;
  SkNode *node;

  g_return_val_if_fail (SK_IS_CHANGESET (self), FALSE);

  candidate = copy_project (self->scratch);
  if ((node = resolve_in (candidate, step, error)) == NULL)
    return FALSE;

  sk_node_set_description (node, text != NULL ? text : "");
  return commit (self, candidate, NULL, error);
}

/* The keys of the steps from @from to @to along connections, such as
 * “a” → “b” → “a”, or %NULL if @to does not need @from's results. */
static char *
find_path (SkProject *project,
           SkNode    *from,
           SkNode    *to)
{
  g_autoptr(GHashTable) came_from = g_hash_table_new (NULL, NULL);
  g_autoptr(GQueue) queue = g_queue_new ();
  g_autoptr(GString) text = NULL;
  g_autoptr(GPtrArray) path = NULL;
  SkNode *node;

  g_hash_table_insert (came_from, from, from);
  g_queue_push_tail (queue, from);

  while ((node = g_queue_pop_head (queue)) != NULL && node != to)
    {
      g_autoptr(GPtrArray) successors = sk_project_get_successors (project, node);

      for (guint i = 0; i < successors->len; i++)
        {
          SkNode *next = g_ptr_array_index (successors, i);

          if (!g_hash_table_contains (came_from, next))
            {
              g_hash_table_insert (came_from, next, node);
              g_queue_push_tail (queue, next);
            }
        }
    }

  if (node != to)
    return NULL;

  path = g_ptr_array_new ();
  for (SkNode *step = to; step != from; step = g_hash_table_lookup (came_from, step))
    g_ptr_array_insert (path, 0, step);
  g_ptr_array_insert (path, 0, from);

  /* The circle closes with the new connection, back to the first step. */
  text = g_string_new (NULL);
  for (guint i = 0; i < path->len; i++)
    g_string_append_printf (text, _("“%s” → "), sk_node_get_key (g_ptr_array_index (path, i)));
  g_string_append_printf (text, _("“%s”"), sk_node_get_key (from));

  return g_string_free (g_steal_pointer (&text), FALSE);
}

/**
 * sk_changeset_connect:
 * @self: a #SkChangeset
 * @from: the identifier or key of the step whose results are needed
 * @to: the identifier or key of the step that needs them
 * @error: return location for a #GError
 *
 * Makes @from a prior of @to.
 *
 * Returns: %TRUE if the steps were connected
 */
gboolean
sk_changeset_connect (SkChangeset  *self,
                      const char   *from,
                      const char   *to,
                      GError      **error)
{
  g_autoptr(SkProject) candidate = NULL;
  g_autofree char *path = NULL;
  SkNode *prior;
  SkNode *node;

  g_return_val_if_fail (SK_IS_CHANGESET (self), FALSE);

  candidate = copy_project (self->scratch);
  if ((prior = resolve_in (candidate, from, error)) == NULL ||
      (node = resolve_in (candidate, to, error)) == NULL)
    return FALSE;

  if (prior == node)
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE,
                   _("“%s” cannot be connected to itself: a step cannot need its own results."),
                   sk_node_get_key (node));
      return FALSE;
    }

  if (sk_node_has_prior (node, sk_node_get_id (prior)))
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                   _("“%s” is already connected to “%s”; nothing was changed."),
                   sk_node_get_key (prior), sk_node_get_key (node));
      return FALSE;
    }

  path = find_path (candidate, node, prior);
  if (path != NULL)
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE,
                   _("Connecting “%s” to “%s” would make a circle: %s. Steps cannot wait for "
                     "each other in a circle; leave this connection out, or disconnect "
                     "another of these steps first."),
                   sk_node_get_key (prior), sk_node_get_key (node), path);
      return FALSE;
    }

  sk_node_add_prior (node, sk_node_get_id (prior));
  return commit (self, candidate, NULL, error);
}

/**
 * sk_changeset_disconnect:
 * @self: a #SkChangeset
 * @from: the identifier or key of the prior
 * @to: the identifier or key of the step that needs it
 * @error: return location for a #GError
 *
 * Returns: %TRUE if @to no longer needs @from
 */
gboolean
sk_changeset_disconnect (SkChangeset  *self,
                         const char   *from,
                         const char   *to,
                         GError      **error)
{
  g_autoptr(SkProject) candidate = NULL;
  SkNode *prior;
  SkNode *node;

  g_return_val_if_fail (SK_IS_CHANGESET (self), FALSE);

  candidate = copy_project (self->scratch);
  if ((prior = resolve_in (candidate, from, error)) == NULL ||
      (node = resolve_in (candidate, to, error)) == NULL)
    return FALSE;

  if (!sk_node_remove_prior (node, sk_node_get_id (prior)))
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                   _("“%s” is not connected to “%s”, so there is nothing to disconnect."),
                   sk_node_get_key (prior), sk_node_get_key (node));
      return FALSE;
    }

  return commit (self, candidate, NULL, error);
}

/**
 * sk_changeset_set_run:
 * @self: a #SkChangeset
 * @step: the step's identifier or key
 * @run: whether the step runs with the workflow
 * @error: return location for a #GError
 *
 * Returns: %TRUE if the step was changed
 */
gboolean
sk_changeset_set_run (SkChangeset  *self,
                      const char   *step,
                      gboolean      run,
                      GError      **error)
{
  g_autoptr(SkProject) candidate = NULL;
  SkNode *node;

  g_return_val_if_fail (SK_IS_CHANGESET (self), FALSE);

  candidate = copy_project (self->scratch);
  if ((node = resolve_in (candidate, step, error)) == NULL)
    return FALSE;

  sk_node_set_run (node, run);
  return commit (self, candidate, NULL, error);
}

/**
 * sk_changeset_set_process:
 * @self: a #SkChangeset
 * @name: (nullable): the workflow's new name, or %NULL to keep it
 * @description: (nullable): its new description, or %NULL to keep it
 * @error: return location for a #GError
 *
 * Returns: %TRUE if the workflow was changed
 */
gboolean
sk_changeset_set_process (SkChangeset  *self,
                          const char   *name,
                          const char   *description,
                          GError      **error)
{
  g_return_val_if_fail (SK_IS_CHANGESET (self), FALSE);

  if (name != NULL)
    sk_project_set_name (self->scratch, name);
  if (description != NULL)
    sk_project_set_description (self->scratch, description);

  return TRUE;
}

static gboolean
priors_equal (SkNode *a,
              SkNode *b)
{
  const char * const *priors_a = sk_node_get_priors (a);
  const char * const *priors_b = sk_node_get_priors (b);

  if (g_strv_length ((char **) priors_a) != g_strv_length ((char **) priors_b))
    return FALSE;

  for (guint i = 0; priors_a[i] != NULL; i++)
    {
      if (!sk_node_has_prior (b, priors_a[i]))
        return FALSE;
    }

  return TRUE;
}

/* Whether the chat changed a step itself, and not only by removing one of
 * its priors, which the step loses with the removed step anyway. */
static gboolean
step_changed (SkChangeset *self,
              SkNode      *base,
              SkNode      *proposed)
{
  const char * const *old_priors = sk_node_get_priors (base);
  const char * const *priors = sk_node_get_priors (proposed);

  if (g_strcmp0 (sk_node_get_name (base), sk_node_get_name (proposed)) != 0 ||
      g_strcmp0 (sk_node_get_input_text (base), sk_node_get_input_text (proposed)) != 0 ||
      g_strcmp0 (sk_node_get_description (base), sk_node_get_description (proposed)) != 0 ||
      !sk_node_get_run (base) != !sk_node_get_run (proposed))
    return TRUE;

  for (guint i = 0; priors[i] != NULL; i++)
    {
      if (!sk_node_has_prior (base, priors[i]))
        return TRUE;
    }

  for (guint i = 0; old_priors[i] != NULL; i++)
    {
      if (!sk_node_has_prior (proposed, old_priors[i]) &&
          sk_project_get_node (self->scratch, old_priors[i]) != NULL)
        return TRUE;
    }

  return FALSE;
}

static SkChange *
add_change (GPtrArray    *changes,
            SkChangeKind  kind,
            SkNode       *node,
            SkNode       *other,
            const char   *old_text,
            const char   *new_text)
{
  SkChange *change = g_new0 (SkChange, 1);

  change->kind = kind;
  change->step_id = node != NULL ? g_strdup (sk_node_get_id (node)) : NULL;
  change->name = node != NULL ? g_strdup (sk_node_get_name (node)) : NULL;
  change->other_id = other != NULL ? g_strdup (sk_node_get_id (other)) : NULL;
  change->other_name = other != NULL ? g_strdup (sk_node_get_name (other)) : NULL;
  change->old_text = g_strdup (old_text);
  change->new_text = g_strdup (new_text);
  g_ptr_array_add (changes, change);
  return change;
}

static void
collect_step_changes (SkChangeset *self,
                      GPtrArray   *changes)
{
  guint n_base = sk_project_get_n_nodes (self->base);
  guint n_scratch = sk_project_get_n_nodes (self->scratch);
  SkChange *change;

  for (guint i = 0; i < n_base; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->base), i);

      if (sk_project_get_node (self->scratch, sk_node_get_id (node)) == NULL)
        add_change (changes, SK_CHANGE_REMOVED, node, NULL, NULL, NULL);
    }

  for (guint i = 0; i < n_scratch; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->scratch), i);
      SkNode *old = sk_project_get_node (self->base, sk_node_get_id (node));
      const char * const *priors = sk_node_get_priors (node);

      if (old == NULL)
        {
          add_change (changes, SK_CHANGE_ADDED, node, NULL, NULL, NULL);
        }
      else
        {
          const char * const *old_priors = sk_node_get_priors (old);

          if (g_strcmp0 (sk_node_get_name (old), sk_node_get_name (node)) != 0)
            add_change (changes, SK_CHANGE_RENAMED, node, NULL,
                        sk_node_get_name (old), sk_node_get_name (node));
          if (g_strcmp0 (sk_node_get_input_text (old), sk_node_get_input_text (node)) != 0)
            add_change (changes, SK_CHANGE_TASK_CHANGED, node, NULL,
                        sk_node_get_input_text (old), sk_node_get_input_text (node));
          if (g_strcmp0 (sk_node_get_description (old), sk_node_get_description (node)) != 0)
            add_change (changes, SK_CHANGE_DESCRIPTION_CHANGED, node, NULL,
                        sk_node_get_description (old), sk_node_get_description (node));
          if (!sk_node_get_run (old) != !sk_node_get_run (node))
            add_change (changes, SK_CHANGE_RUN_CHANGED, node, NULL,
                        sk_node_get_run (old) ? "true" : "false",
                        sk_node_get_run (node) ? "true" : "false");

          /* A connection from a removed step goes with it, and is not
           * listed on its own. */
          for (guint j = 0; old_priors[j] != NULL; j++)
            {
              SkNode *prior = sk_project_get_node (self->scratch, old_priors[j]);

              if (prior != NULL && !sk_node_has_prior (node, old_priors[j]))
                add_change (changes, SK_CHANGE_DISCONNECTED, node, prior, NULL, NULL);
            }
        }

      for (guint j = 0; priors[j] != NULL; j++)
        {
          SkNode *prior = sk_project_get_node (self->scratch, priors[j]);

          if (prior != NULL && (old == NULL || !sk_node_has_prior (old, priors[j])))
            add_change (changes, SK_CHANGE_CONNECTED, node, prior, NULL, NULL);
        }
    }

  /* A change of the workflow itself says which member changed. */
  if (g_strcmp0 (sk_project_get_name (self->base), sk_project_get_name (self->scratch)) != 0)
    {
      change = add_change (changes, SK_CHANGE_PROCESS_CHANGED, NULL, NULL,
                           sk_project_get_name (self->base),
                           sk_project_get_name (self->scratch));
      change->name = g_strdup ("name");
    }

  if (g_strcmp0 (sk_project_get_description (self->base),
                 sk_project_get_description (self->scratch)) != 0)
    {
      change = add_change (changes, SK_CHANGE_PROCESS_CHANGED, NULL, NULL,
                           sk_project_get_description (self->base),
                           sk_project_get_description (self->scratch));
      change->name = g_strdup ("description");
    }
}

/**
 * sk_changeset_get_changes:
 * @self: a #SkChangeset
 *
 * Compares the workflow as it was when the changeset was made with the
 * changeset's copy, so that the list is what applying would do whatever
 * the operations were: a step added and removed again is no change.
 *
 * Returns: (transfer container) (element-type SkChange): the changes, by
 *   kind in the order of #SkChangeKind, then in the order of the steps
 */
GPtrArray *
sk_changeset_get_changes (SkChangeset *self)
{
  g_autoptr(GPtrArray) all = NULL;
  GPtrArray *changes;

  g_return_val_if_fail (SK_IS_CHANGESET (self), NULL);

  all = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_change_free);
  collect_step_changes (self, all);

  changes = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_change_free);
  for (guint kind = SK_CHANGE_ADDED; kind <= SK_CHANGE_PROCESS_CHANGED; kind++)
    {
      for (guint i = 0; i < all->len; i++)
        {
          SkChange *change = g_ptr_array_index (all, i);

          if (change != NULL && change->kind == kind)
            g_ptr_array_add (changes, g_steal_pointer (&all->pdata[i]));
        }
    }

  return changes;
}

/**
 * sk_changeset_is_empty:
 * @self: a #SkChangeset
 *
 * Returns: whether the changeset's copy is the same as the workflow was
 *   when the changeset was made
 */
gboolean
sk_changeset_is_empty (SkChangeset *self)
{
  g_autoptr(GPtrArray) changes = NULL;

  g_return_val_if_fail (SK_IS_CHANGESET (self), TRUE);

  changes = sk_changeset_get_changes (self);
  return changes->len == 0;
}

static char *
quote_names (GPtrArray *changes)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < changes->len; i++)
    {
      const SkChange *change = g_ptr_array_index (changes, i);

      if (i > 0)
        g_string_append (text, ", ");
      g_string_append_printf (text, _("“%s”"), change->name);
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

static GPtrArray *
changes_of_kind (GPtrArray    *changes,
                 SkChangeKind  kind)
{
  GPtrArray *result = g_ptr_array_new ();

  for (guint i = 0; i < changes->len; i++)
    {
      SkChange *change = g_ptr_array_index (changes, i);

      if (change->kind == kind)
        g_ptr_array_add (result, change);
    }

  return result;
}

static void
describe_kind (GPtrArray    *parts,
               GPtrArray    *all,
               SkChangeKind  kind)
{
  g_autoptr(GPtrArray) changes = changes_of_kind (all, kind);
  g_autofree char *names = NULL;
  guint n = changes->len;
  const SkChange *first;
  char *text = NULL;

  if (n == 0)
    return;

  first = g_ptr_array_index (changes, 0);
  names = quote_names (changes);

  switch (kind)
    {
    case SK_CHANGE_ADDED:
      if (n == 1)
        text = g_strdup_printf (_("added %s"), names);
      else
        text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "added %u step (%s)",
                                             "added %u steps (%s)", n),
                                n, names);
      break;
    case SK_CHANGE_REMOVED:
      if (n == 1)
        text = g_strdup_printf (_("removed %s"), names);
      else
        text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "removed %u step (%s)",
                                             "removed %u steps (%s)", n),
                                n, names);
      break;
    case SK_CHANGE_RENAMED:
      for (guint i = 0; i < n; i++)
        {
          const SkChange *change = g_ptr_array_index (changes, i);

          g_ptr_array_add (parts, g_strdup_printf (_("renamed “%s” to “%s”"),
                                                   change->old_text, change->new_text));
        }
      break;
    case SK_CHANGE_TASK_CHANGED:
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "changed the task of %s — its code will be rewritten",
                                           "changed the tasks of %s — their code will be "
                                           "rewritten", n),
                              names);
      break;
    case SK_CHANGE_DESCRIPTION_CHANGED:
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "changed the description of %s",
                                           "changed the descriptions of %s", n),
                              names);
      break;
    case SK_CHANGE_CONNECTED:
      if (n == 1)
        text = g_strdup_printf (_("connected “%s” to “%s”"), first->other_name, first->name);
      else
        /* TRANSLATORS: %u is a number of connections between steps */
        text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "connected %u",
                                             "connected %u", n),
                                n);
      break;
    case SK_CHANGE_DISCONNECTED:
      if (n == 1)
        text = g_strdup_printf (_("disconnected “%s” from “%s”"),
                                first->other_name, first->name);
      else
        /* TRANSLATORS: %u is a number of connections between steps */
        text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "disconnected %u",
                                             "disconnected %u", n),
                                n);
      break;
    case SK_CHANGE_RUN_CHANGED:
      for (guint i = 0; i < n; i++)
        {
          const SkChange *change = g_ptr_array_index (changes, i);

          if (g_strcmp0 (change->new_text, "true") == 0)
            g_ptr_array_add (parts, g_strdup_printf (_("set “%s” to run"), change->name));
          else
            g_ptr_array_add (parts, g_strdup_printf (_("set “%s” not to run"), change->name));
        }
      break;
    case SK_CHANGE_PROCESS_CHANGED:
      for (guint i = 0; i < n; i++)
        {
          const SkChange *change = g_ptr_array_index (changes, i);

          if (g_strcmp0 (change->name, "name") == 0)
            g_ptr_array_add (parts, g_strdup_printf (_("renamed the workflow to “%s”"),
                                                     change->new_text));
          else
            g_ptr_array_add (parts, g_strdup (_("changed the workflow’s description")));
        }
      break;
    default:
      g_assert_not_reached ();
    }

  if (text != NULL)
    g_ptr_array_add (parts, text);
}

/**
 * sk_changeset_describe:
 * @self: a #SkChangeset
 *
 * Sums up sk_changeset_get_changes() in one sentence, naming the steps
 * whose code will be rewritten because their task changed.
 *
 * Returns: (transfer full): the summary, such as “Added 2 steps (“a”,
 *   “b”), removed “x”.”, or “No changes.”
 */
char *
sk_changeset_describe (SkChangeset *self)
{
  g_autoptr(GPtrArray) changes = NULL;
  g_autoptr(GPtrArray) parts = NULL;
  g_autoptr(GString) text = NULL;
  gunichar first;

  g_return_val_if_fail (SK_IS_CHANGESET (self), NULL);

  changes = sk_changeset_get_changes (self);
  if (changes->len == 0)
    return g_strdup (_("No changes."));

  parts = g_ptr_array_new_with_free_func (g_free);
  for (guint kind = SK_CHANGE_ADDED; kind <= SK_CHANGE_PROCESS_CHANGED; kind++)
    describe_kind (parts, changes, kind);

  text = g_string_new (NULL);
  for (guint i = 0; i < parts->len; i++)
    {
      if (i > 0)
        /* TRANSLATORS: between the parts of a changeset's summary */
        g_string_append (text, _(", "));
      g_string_append (text, g_ptr_array_index (parts, i));
    }
  /* TRANSLATORS: the end of a changeset's summary */
  g_string_append (text, _("."));

  /* The parts start in lower case, to be joined; the sentence starts with
   * a capital. */
  first = g_utf8_get_char (text->str);
  if (g_unichar_islower (first))
    {
      char capital[8] = { 0 };
      int length = g_unichar_to_utf8 (g_unichar_totitle (first), capital);

      g_string_erase (text, 0, g_utf8_next_char (text->str) - text->str);
      g_string_insert_len (text, 0, capital, length);
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

/**
 * sk_changeset_set_step_accepted:
 * @self: a #SkChangeset
 * @id: a step's identifier
 * @accepted: whether the changes of the step are to be applied
 *
 * Accepts or rejects the changes of one step. A rejected step stays as it
 * was; a rejected new step is not added, nor are its connections to and
 * from other steps. Every step is accepted at first.
 */
void
sk_changeset_set_step_accepted (SkChangeset *self,
                                const char  *id,
                                gboolean     accepted)
{
  g_return_if_fail (SK_IS_CHANGESET (self));
  g_return_if_fail (id != NULL);

  if (accepted)
    g_hash_table_remove (self->rejected, id);
  else
    g_hash_table_add (self->rejected, g_strdup (id));
}

/**
 * sk_changeset_get_step_accepted:
 * @self: a #SkChangeset
 * @id: a step's identifier
 *
 * Returns: whether the changes of the step will be applied
 */
gboolean
sk_changeset_get_step_accepted (SkChangeset *self,
                                const char  *id)
{
  g_return_val_if_fail (SK_IS_CHANGESET (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);

  return !g_hash_table_contains (self->rejected, id);
}

/* What applying does, worked out once and then made on a trial copy of the
 * workflow and, if that has no new problems, on the workflow itself. */
typedef struct
{
  GPtrArray  *removed;   /* ids */
  GPtrArray  *added;     /* ids in the scratch */
  GPtrArray  *changed;   /* ids */
  GHashTable *new_ids;   /* scratch id of an added step -> id in the workflow */
  gboolean    set_name;
  gboolean    set_description;
} Plan;

static void
plan_clear (Plan *plan)
{
  g_clear_pointer (&plan->removed, g_ptr_array_unref);
  g_clear_pointer (&plan->added, g_ptr_array_unref);
  g_clear_pointer (&plan->changed, g_ptr_array_unref);
  g_clear_pointer (&plan->new_ids, g_hash_table_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Plan, plan_clear)

static gboolean
conflict (SkNode      *base,
          SkNode      *now,
          GError     **error)
{
  const char *what;

  if (now == NULL)
    what = _("it was removed.");
  else if (g_strcmp0 (sk_node_get_name (base), sk_node_get_name (now)) != 0)
    what = _("its name changed.");
  else if (g_strcmp0 (sk_node_get_input_text (base), sk_node_get_input_text (now)) != 0)
    what = _("its task changed.");
  else if (g_strcmp0 (sk_node_get_description (base), sk_node_get_description (now)) != 0)
    what = _("its description changed.");
  else if (!sk_node_get_run (base) != !sk_node_get_run (now))
    what = _("whether it runs changed.");
  else if (!priors_equal (base, now))
    what = _("its connections changed.");
  else
    return FALSE;

  /* The step is named as the person sees it now. */
  g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
               _("“%s” was changed while the chat was working: %s Ask the chat again so that "
                 "it sees the workflow as it is now, or reject the changes to that step."),
               sk_node_get_name (now != NULL ? now : base), what);
  return TRUE;
}

static char *
free_id (SkChangeset *self,
         GHashTable  *taken)
{
  guint64 largest = 0;
  guint n = sk_project_get_n_nodes (self->project);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->project), i);
      guint64 value;

      if (g_ascii_string_to_unsigned (sk_node_get_id (node), 10, 0, G_MAXUINT32, &value, NULL))
        largest = MAX (largest, value);
    }

  for (guint64 candidate = largest + 1; ; candidate++)
    {
      g_autofree char *id = g_strdup_printf ("%" G_GUINT64_FORMAT, candidate);

      if (sk_project_get_node (self->project, id) == NULL &&
          sk_project_get_node (self->scratch, id) == NULL &&
          !g_hash_table_contains (taken, id))
        return g_steal_pointer (&id);
    }
}

static gboolean
make_plan (SkChangeset  *self,
           Plan         *plan,
           GError      **error)
{
  g_autoptr(GHashTable) taken = g_hash_table_new (g_str_hash, g_str_equal);
  guint n_base = sk_project_get_n_nodes (self->base);
  guint n_scratch = sk_project_get_n_nodes (self->scratch);

  plan->removed = g_ptr_array_new_with_free_func (g_free);
  plan->added = g_ptr_array_new_with_free_func (g_free);
  plan->changed = g_ptr_array_new_with_free_func (g_free);
  plan->new_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; i < n_base; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->base), i);
      const char *id = sk_node_get_id (node);
      SkNode *proposed = sk_project_get_node (self->scratch, id);

      if (!sk_changeset_get_step_accepted (self, id) ||
          (proposed != NULL && !step_changed (self, node, proposed)))
        continue;

      /* A step the user changed meanwhile is the user's: the changeset
       * was written for the step as it was. */
      if (conflict (node, sk_project_get_node (self->project, id), error))
        return FALSE;

      g_ptr_array_add (proposed != NULL ? plan->changed : plan->removed, g_strdup (id));
    }

  for (guint i = 0; i < n_scratch; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->scratch), i);
      const char *id = sk_node_get_id (node);
      char *new_id;

      if (sk_project_get_node (self->base, id) != NULL ||
          !sk_changeset_get_step_accepted (self, id))
        continue;

      /* The user may have added a step with the same identifier. */
      if (sk_project_get_node (self->project, id) != NULL)
        new_id = free_id (self, taken);
      else
        new_id = g_strdup (id);

      g_hash_table_add (taken, new_id);
      g_hash_table_insert (plan->new_ids, g_strdup (id), new_id);
      g_ptr_array_add (plan->added, g_strdup (id));
    }

  plan->set_name = g_strcmp0 (sk_project_get_name (self->base),
                              sk_project_get_name (self->scratch)) != 0;
  plan->set_description = g_strcmp0 (sk_project_get_description (self->base),
                                     sk_project_get_description (self->scratch)) != 0;

  if ((plan->set_name &&
       g_strcmp0 (sk_project_get_name (self->base), sk_project_get_name (self->project)) != 0) ||
      (plan->set_description &&
       g_strcmp0 (sk_project_get_description (self->base),
                  sk_project_get_description (self->project)) != 0))
    {
      g_set_error_literal (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                           _("The workflow’s name or description was changed while the chat was "
                             "working. Ask the chat again so that it sees the workflow as it "
                             "is now."));
      return FALSE;
    }

  return TRUE;
}

/* The priors a step gets: the proposed ones that exist in @target, with
 * the identifiers of new steps as they are there, and the ones it had that
 * were removed by a change that was rejected. */
static char **
planned_priors (SkChangeset *self,
                Plan        *plan,
                SkProject   *target,
                SkNode      *proposed,
                SkNode      *base)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  const char * const *priors = sk_node_get_priors (proposed);

  for (guint i = 0; priors[i] != NULL; i++)
    {
      const char *id = g_hash_table_lookup (plan->new_ids, priors[i]);

      if (id == NULL)
        id = priors[i];
      if (sk_project_get_node (target, id) != NULL)
        g_strv_builder_add (builder, id);
    }

  if (base != NULL)
    {
      const char * const *old = sk_node_get_priors (base);

      for (guint i = 0; old[i] != NULL; i++)
        {
          if (sk_project_get_node (self->scratch, old[i]) == NULL &&
              sk_project_get_node (target, old[i]) != NULL)
            g_strv_builder_add (builder, old[i]);
        }
    }

  return g_strv_builder_end (builder);
}

static void
carry_out (SkChangeset *self,
           Plan        *plan,
           SkProject   *target)
{
  for (guint i = 0; i < plan->removed->len; i++)
    {
      SkNode *node = sk_project_get_node (target, g_ptr_array_index (plan->removed, i));

      if (node != NULL)
        sk_project_remove_node (target, node);
    }

  /* New steps come in without priors, which may be new steps too. */
  for (guint i = 0; i < plan->added->len; i++)
    {
      const char *id = g_ptr_array_index (plan->added, i);
      SkNode *proposed = sk_project_get_node (self->scratch, id);
      g_autoptr(JsonObject) object = sk_node_to_json (proposed);
      g_autoptr(SkNode) node = NULL;

      json_object_set_array_member (object, "priors", json_array_new ());
      node = sk_node_new_from_json (g_hash_table_lookup (plan->new_ids, id), object);
      sk_project_add_node (target, node, NULL);
    }

  for (guint i = 0; i < plan->added->len; i++)
    {
      const char *id = g_ptr_array_index (plan->added, i);
      SkNode *node = sk_project_get_node (target, g_hash_table_lookup (plan->new_ids, id));
      g_auto(GStrv) priors = planned_priors (self, plan, target,
                                             sk_project_get_node (self->scratch, id), NULL);

      sk_node_set_priors (node, (const char * const *) priors);
    }

  for (guint i = 0; i < plan->changed->len; i++)
    {
      const char *id = g_ptr_array_index (plan->changed, i);
      SkNode *node = sk_project_get_node (target, id);
      SkNode *base = sk_project_get_node (self->base, id);
      SkNode *proposed = sk_project_get_node (self->scratch, id);
      g_auto(GStrv) priors = NULL;

      if (node == NULL)
        continue;

      if (g_strcmp0 (sk_node_get_name (base), sk_node_get_name (proposed)) != 0)
        sk_node_set_name (node, sk_node_get_name (proposed));
      if (g_strcmp0 (sk_node_get_input_text (base), sk_node_get_input_text (proposed)) != 0)
        sk_node_set_input_text (node, sk_node_get_input_text (proposed));
      if (g_strcmp0 (sk_node_get_description (base), sk_node_get_description (proposed)) != 0)
        sk_node_set_description (node, sk_node_get_description (proposed));
      if (!sk_node_get_run (base) != !sk_node_get_run (proposed))
        sk_node_set_run (node, sk_node_get_run (proposed));

      priors = planned_priors (self, plan, target, proposed, base);
      if (!g_strv_equal ((const char * const *) priors, sk_node_get_priors (node)))
        sk_node_set_priors (node, (const char * const *) priors);
    }

  if (plan->set_name)
    sk_project_set_name (target, sk_project_get_name (self->scratch));
  if (plan->set_description)
    sk_project_set_description (target, sk_project_get_description (self->scratch));
}

/**
 * sk_changeset_apply:
 * @self: a #SkChangeset
 * @history: (nullable): the workflow's undo history
 * @error: return location for a #GError
 *
 * Makes the accepted changes to the workflow as one undo step. Changes the
 * user made meanwhile to other steps are kept; if the user changed a step
 * the changeset changes too, or the result would have problems the
 * workflow does not have, nothing is changed.
 *
 * Returns: %TRUE if the changes were applied
 */
gboolean
sk_changeset_apply (SkChangeset  *self,
                    SkHistory    *history,
                    GError      **error)
{
  g_auto(Plan) plan = { 0 };
  g_autoptr(SkProject) trial = NULL;
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GPtrArray) after = NULL;
  g_autoptr(GPtrArray) problems = NULL;

  g_return_val_if_fail (SK_IS_CHANGESET (self), FALSE);
  g_return_val_if_fail (history == NULL || SK_IS_HISTORY (history), FALSE);

  if (!make_plan (self, &plan, error))
    return FALSE;

  trial = copy_project (self->project);
  carry_out (self, &plan, trial);

  before = sk_project_validate (self->project);
  after = sk_project_validate (trial);
  problems = sk_problems_new_since (before, after);
  if (problems->len > 0)
    {
      g_autoptr(GString) message = g_string_new (_("The changes were not applied:"));

      for (guint i = 0; i < problems->len; i++)
        {
          const SkProblem *problem = g_ptr_array_index (problems, i);

          g_string_append_c (message, ' ');
          g_string_append (message, problem->message);
        }

      g_set_error_literal (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID, message->str);
      return FALSE;
    }

  if (history != NULL)
    sk_history_begin (history, _("Apply Chat Changes"));
  carry_out (self, &plan, self->project);
  if (history != NULL)
    sk_history_end (history);

  return TRUE;
}
