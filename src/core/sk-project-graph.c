/* sk-project-graph.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-project"

#include "config.h"

#include <sys/stat.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sk-project-private.h"
#include "sk-step-folder.h"

/* The workflow as a graph: the order of its steps, their neighbours, and
 * what is wrong with its structure. Edges are kept as each node's priors;
 * successor lists are derived from them and dropped whenever the graph
 * changes. */

G_DEFINE_BOXED_TYPE (SkProblem, sk_problem, sk_problem_copy, sk_problem_free)

SkProblem *
sk_problem_copy (const SkProblem *problem)
{
  SkProblem *copy = g_new0 (SkProblem, 1);

  copy->kind = problem->kind;
  copy->node_id = g_strdup (problem->node_id);
  copy->message = g_strdup (problem->message);
  copy->is_warning = problem->is_warning;
  copy->node_ids = problem->node_ids != NULL ? g_strdupv (problem->node_ids) : g_new0 (char *, 1);
  copy->edge_pairs = problem->edge_pairs != NULL ? g_strdupv (problem->edge_pairs) : g_new0 (char *, 1);

  return copy;
}

void
sk_problem_free (SkProblem *problem)
{
  if (problem == NULL)
    return;

  g_free (problem->node_id);
  g_free (problem->message);
  g_strfreev (problem->node_ids);
  g_strfreev (problem->edge_pairs);
  g_free (problem);
}

void
_sk_project_add_problem (GPtrArray     *problems,
                         SkProblemKind  kind,
                         gboolean       is_warning,
                         const char    *node_id,
                         const char    *format,
                         ...)
{
  SkProblem *problem = g_new0 (SkProblem, 1);
  va_list args;

  va_start (args, format);
  problem->message = g_strdup_vprintf (format, args);
  va_end (args);

  problem->kind = kind;
  problem->is_warning = !!is_warning;
  problem->node_id = g_strdup (node_id);
  problem->node_ids = g_new0 (char *, 2);
  problem->node_ids[0] = g_strdup (node_id);
  problem->edge_pairs = g_new0 (char *, 1);

  g_ptr_array_add (problems, problem);
}

/* Gives the problem added last the steps and connections it concerns, when
 * they are more than its main step. */
void
_sk_project_set_last_concerns (GPtrArray          *problems,
                               const char * const *node_ids,
                               const char * const *edge_pairs)
{
  SkProblem *problem = g_ptr_array_index (problems, problems->len - 1);

  if (node_ids != NULL)
    {
      g_strfreev (problem->node_ids);
      problem->node_ids = g_strdupv ((char **) node_ids);
    }

  if (edge_pairs != NULL)
    {
      g_strfreev (problem->edge_pairs);
      problem->edge_pairs = g_strdupv ((char **) edge_pairs);
    }
}

static gboolean
has_edge (const char * const *edge_pairs,
          const char         *prior,
          const char         *successor)
{
  for (guint i = 0; edge_pairs[i] != NULL && edge_pairs[i + 1] != NULL; i += 2)
    {
      if (g_str_equal (edge_pairs[i], prior) && g_str_equal (edge_pairs[i + 1], successor))
        return TRUE;
    }

  return FALSE;
}

static gboolean
same_set (const char * const *a,
          const char * const *b)
{
  if (g_strv_length ((char **) a) != g_strv_length ((char **) b))
    return FALSE;

  for (guint i = 0; a[i] != NULL; i++)
    {
      if (!g_strv_contains (b, a[i]))
        return FALSE;
    }

  return TRUE;
}

static gboolean
same_edges (const char * const *a,
            const char * const *b)
{
  if (g_strv_length ((char **) a) != g_strv_length ((char **) b))
    return FALSE;

  for (guint i = 0; a[i] != NULL && a[i + 1] != NULL; i += 2)
    {
      if (!has_edge (b, a[i], a[i + 1]))
        return FALSE;
    }

  return TRUE;
}

/* A cycle was there before when each of its connections was on a cycle
 * before: those connections existed, so the circle they make did too, even
 * if validation described another circle through the same steps. */
static gboolean
cycle_was_there (const SkProblem *problem,
                 GPtrArray       *before)
{
  const char * const *pairs = (const char * const *) problem->edge_pairs;

  if (pairs[0] == NULL)
    return FALSE;

  for (guint i = 0; pairs[i] != NULL && pairs[i + 1] != NULL; i += 2)
    {
      gboolean found = FALSE;

      for (guint j = 0; j < before->len && !found; j++)
        {
          const SkProblem *old = g_ptr_array_index (before, j);

          found = old->kind == SK_PROBLEM_CYCLE && !old->is_warning &&
                  has_edge ((const char * const *) old->edge_pairs, pairs[i], pairs[i + 1]);
        }

      if (!found)
        return FALSE;
    }

  return TRUE;
}

/* Validation reports a name that gives a taken folder name with the first
 * step that has it, so steps whose names clashed before share that first
 * step. This keeps a clash of three from looking new when one of the three
 * is renamed. */
static gboolean
clash_was_there (const SkProblem *problem,
                 GPtrArray       *before)
{
  for (guint j = 0; j < before->len; j++)
    {
      const SkProblem *old = g_ptr_array_index (before, j);
      const char *first;
      gboolean all = TRUE;

      if (old->kind != SK_PROBLEM_DUPLICATE_KEY || old->is_warning || old->node_ids[0] == NULL)
        continue;

      first = old->node_ids[0];
      for (guint i = 0; problem->node_ids[i] != NULL && all; i++)
        {
          gboolean in_group = FALSE;

          for (guint k = 0; k < before->len && !in_group; k++)
            {
              const SkProblem *other = g_ptr_array_index (before, k);

              in_group = other->kind == SK_PROBLEM_DUPLICATE_KEY && !other->is_warning &&
                         other->node_ids[0] != NULL && g_str_equal (other->node_ids[0], first) &&
                         g_strv_contains ((const char * const *) other->node_ids,
                                          problem->node_ids[i]);
            }

          all = in_group;
        }

      if (all)
        return TRUE;
    }

  return FALSE;
}

static gboolean
same_problem (const SkProblem *a,
              const SkProblem *b,
              gboolean         same_message)
{
  if (a->kind != b->kind || a->is_warning != b->is_warning ||
      !same_set ((const char * const *) a->node_ids, (const char * const *) b->node_ids) ||
      !same_edges ((const char * const *) a->edge_pairs, (const char * const *) b->edge_pairs))
    return FALSE;

  /* A problem that concerns no step can only be told by its words. */
  if (same_message || (a->node_ids[0] == NULL && a->edge_pairs[0] == NULL))
    return g_strcmp0 (a->message, b->message) == 0;

  return TRUE;
}

/**
 * sk_problems_new_since:
 * @before: (element-type SkProblem): the problems of a workflow before a change
 * @after: (element-type SkProblem): its problems after the change
 *
 * Finds the errors a change made, so that a change is refused only for
 * those and never for problems that were already there. Problems are
 * compared by their kind and the steps and connections they concern, not by
 * their messages, which change when a step is renamed. A cycle made only of
 * connections that were on cycles before is not new, nor is a clash of
 * folder names among steps that clashed before. Warnings are never new.
 *
 * Returns: (transfer container) (element-type SkProblem): copies of the
 *   errors of @after that are not in @before, in the order of @after
 */
GPtrArray *
sk_problems_new_since (GPtrArray *before,
                       GPtrArray *after)
{
  g_autofree gboolean *used = NULL;
  g_autofree gboolean *matched = NULL;
  GPtrArray *result;

  g_return_val_if_fail (before != NULL, NULL);
  g_return_val_if_fail (after != NULL, NULL);

  used = g_new0 (gboolean, before->len + 1);
  matched = g_new0 (gboolean, after->len + 1);

  /* Problems are matched one to one, so that a second problem of the same
   * kind on the same step is new; first those that kept their words. */
  for (guint pass = 0; pass < 2; pass++)
    {
      for (guint i = 0; i < after->len; i++)
        {
          const SkProblem *problem = g_ptr_array_index (after, i);

          if (matched[i] || problem->is_warning)
            continue;

          for (guint j = 0; j < before->len && !matched[i]; j++)
            {
              if (!used[j] && same_problem (g_ptr_array_index (before, j), problem, pass == 0))
                used[j] = matched[i] = TRUE;
            }
        }
    }

  result = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free);

  for (guint i = 0; i < after->len; i++)
    {
      const SkProblem *problem = g_ptr_array_index (after, i);

      if (matched[i] || problem->is_warning)
        continue;

      if (problem->kind == SK_PROBLEM_CYCLE && cycle_was_there (problem, before))
        continue;

      if (problem->kind == SK_PROBLEM_DUPLICATE_KEY && clash_was_there (problem, before))
        continue;

      g_ptr_array_add (result, sk_problem_copy (problem));
    }

  return result;
}

/**
 * sk_problems_count_errors:
 * @problems: (element-type SkProblem): problems, as sk_project_validate()
 *   returns them
 *
 * Returns: how many of @problems are errors rather than warnings
 */
guint
sk_problems_count_errors (GPtrArray *problems)
{
  guint errors = 0;

  g_return_val_if_fail (problems != NULL, 0);

  for (guint i = 0; i < problems->len; i++)
    {
      const SkProblem *problem = g_ptr_array_index (problems, i);

      if (!problem->is_warning)
        errors++;
    }

  return errors;
}

/**
 * sk_problems_summary:
 * @problems: (element-type SkProblem): problems, as sk_project_validate()
 *   returns them
 *
 * Returns: (transfer full): one sentence for a banner or a heading, such as
 *   “This workflow has 3 problems”: the errors, or the warnings when there
 *   are no errors
 */
char *
sk_problems_summary (GPtrArray *problems)
{
  guint errors;
  guint warnings;

  g_return_val_if_fail (problems != NULL, NULL);

  errors = sk_problems_count_errors (problems);
  warnings = problems->len - errors;

  if (errors > 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "This workflow has %u problem",
                                         "This workflow has %u problems", errors),
                            errors);

  if (warnings > 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "This workflow can run, with %u warning",
                                         "This workflow can run, with %u warnings", warnings),
                            warnings);

  return g_strdup (_("This workflow has no problems"));
}

/* Names a step for messages by its name, as the canvas shows it. The
 * identifier is shown only for a step without a name, which has nothing
 * else to tell it apart; the problems list marks the steps on the canvas
 * anyway.
 */
char *
_sk_project_describe_node (SkNode *node)
{
  const char *name = sk_node_get_name (node);

  if (name[0] == '\0')
    /* Translators: %s is a step's identifier, such as “3”. */
    return g_strdup_printf (_("the step without a name (%s)"), sk_node_get_id (node));

  return g_strdup_printf ("“%s”", name);
}

static GHashTable *
get_successors (SkProject *self)
{
  if (self->successors != NULL)
    return self->successors;

  self->successors = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                            (GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (self->nodes, i);
      const char * const *priors = sk_node_get_priors (node);

      for (guint j = 0; priors[j] != NULL; j++)
        {
          SkNode *prior = g_hash_table_lookup (self->by_id, priors[j]);
          GPtrArray *list;

          if (prior == NULL || prior == node)
            continue;

          list = g_hash_table_lookup (self->successors, sk_node_get_id (prior));
          if (list == NULL)
            {
              list = g_ptr_array_new ();
              g_hash_table_insert (self->successors, (gpointer) sk_node_get_id (prior), list);
            }

          /* A node that lists a prior twice still has one edge from it. */
          if (list->len == 0 || g_ptr_array_index (list, list->len - 1) != node)
            g_ptr_array_add (list, node);
        }
    }

  return self->successors;
}

static gboolean
reaches (SkProject *self,
         SkNode    *from,
         SkNode    *to)
{
  g_autoptr(GPtrArray) descendants = sk_project_get_descendants (self, from);

  return g_ptr_array_find (descendants, to, NULL);
}

/**
 * sk_project_can_connect:
 * @self: a #SkProject
 * @prior: the node whose results are needed
 * @node: the node that needs them
 * @error: return location for a #GError
 *
 * Returns: %TRUE if an edge from @prior to @node can be added: it is new and
 *   makes no cycle
 */
gboolean
sk_project_can_connect (SkProject  *self,
                        SkNode     *prior,
                        SkNode     *node,
                        GError    **error)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (SK_IS_NODE (prior), FALSE);
  g_return_val_if_fail (SK_IS_NODE (node), FALSE);

  if (prior == node)
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE,
                   _("A step cannot need its own results."));
      return FALSE;
    }

  if (sk_node_has_prior (node, sk_node_get_id (prior)))
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                   _("“%s” already needs “%s”."),
                   sk_node_get_name (node), sk_node_get_name (prior));
      return FALSE;
    }

  if (reaches (self, node, prior))
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE,
                   _("“%s” cannot need “%s”: “%s” already needs the results of “%s”, "
                     "and steps cannot wait for each other in a circle."),
                   sk_node_get_name (node), sk_node_get_name (prior),
                   sk_node_get_name (prior), sk_node_get_name (node));
      return FALSE;
    }

  return TRUE;
}

/* The ready nodes of topological_sort(), by file position, in a binary
 * heap whose least position is first. */
static void
heap_push (guint *heap,
           guint *len,
           guint  position)
{
  guint i = (*len)++;

  while (i > 0 && heap[(i - 1) / 2] > position)
    {
      heap[i] = heap[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  heap[i] = position;
}

static guint
heap_pop (guint *heap,
          guint *len)
{
  guint first = heap[0];
  guint last = heap[--(*len)];
  guint i = 0;

  for (;;)
    {
      guint child = 2 * i + 1;

      if (child >= *len)
        break;
      if (child + 1 < *len && heap[child + 1] < heap[child])
        child++;
      if (heap[child] >= last)
        break;
      heap[i] = heap[child];
      i = child;
    }
  if (*len > 0)
    heap[i] = last;

  return first;
}

/* Kahn's algorithm that always takes the ready node that comes first in the
 * file, so that the order is stable and a file already in dependency order
 * keeps its order. The ready nodes are kept in a heap by file position,
 * which keeps wide workflows at O(n log n). Nodes left over are on a cycle
 * or downstream of one.
 */
static GPtrArray *
topological_sort (SkProject  *self,
                  GPtrArray **left_over)
{
  guint n_nodes = self->nodes->len;
  g_autoptr(GHashTable) file_position = g_hash_table_new (NULL, NULL);
  g_autoptr(GArray) edges = g_array_new (FALSE, FALSE, sizeof (guint) * 2);
  g_autofree guint *ready = g_new (guint, n_nodes);
  g_autofree guint *in_degree = g_new0 (guint, n_nodes);
  g_autofree guint *first = g_new0 (guint, n_nodes + 1);
  g_autofree guint *successors = NULL;
  guint n_ready = 0;
  GPtrArray *order = g_ptr_array_new_full (n_nodes, g_object_unref);

  for (guint i = 0; i < n_nodes; i++)
    g_hash_table_insert (file_position, g_ptr_array_index (self->nodes, i), GUINT_TO_POINTER (i));

  /* The edges by file position, from each node's priors, in the order of
   * the nodes that need them. */
  for (guint i = 0; i < n_nodes; i++)
    {
      SkNode *node = g_ptr_array_index (self->nodes, i);
      const char * const *priors = sk_node_get_priors (node);

      for (guint j = 0; priors[j] != NULL; j++)
        {
          SkNode *prior = g_hash_table_lookup (self->by_id, priors[j]);
          guint edge[2];

          /* Dangling priors are reported by validation, not ordered. A prior
           * listed twice counts once. A node that needs itself waits for
           * itself, and so is left over.
           */
          if (prior == NULL || (prior != node && g_strv_contains (priors + j + 1, priors[j])))
            continue;

          in_degree[i]++;
          if (prior == node)
            continue;

          edge[0] = GPOINTER_TO_UINT (g_hash_table_lookup (file_position, prior));
          edge[1] = i;
          g_array_append_vals (edges, edge, 1);
          first[edge[0] + 1]++;
        }

      /* In file order, which is already a heap. */
      if (in_degree[i] == 0)
        ready[n_ready++] = i;
    }

  /* Each node's successors, together. */
  for (guint i = 0; i < n_nodes; i++)
    first[i + 1] += first[i];
  successors = g_new (guint, MAX (edges->len, 1));
  {
    g_autofree guint *filled = g_memdup2 (first, sizeof (guint) * n_nodes);

    for (guint k = 0; k < edges->len; k++)
      {
        const guint *edge = &g_array_index (edges, guint, 2 * k);

        successors[filled[edge[0]]++] = edge[1];
      }
  }

  while (n_ready > 0)
    {
      guint position = heap_pop (ready, &n_ready);

      g_ptr_array_add (order, g_object_ref (g_ptr_array_index (self->nodes, position)));
      for (guint k = first[position]; k < first[position + 1]; k++)
        if (--in_degree[successors[k]] == 0)
          heap_push (ready, &n_ready, successors[k]);
    }

  if (left_over != NULL)
    {
      *left_over = g_ptr_array_new ();

      for (guint i = 0; i < n_nodes; i++)
        {
          if (in_degree[i] > 0)
            g_ptr_array_add (*left_over, g_ptr_array_index (self->nodes, i));
        }
    }

  return order;
}

/* Returns the first prior of @node, other than @node itself, that is in @set. */
static SkNode *
first_prior_in (SkProject  *self,
                SkNode     *node,
                GHashTable *set)
{
  const char * const *priors = sk_node_get_priors (node);

  for (guint i = 0; priors[i] != NULL; i++)
    {
      SkNode *prior = g_hash_table_lookup (self->by_id, priors[i]);

      if (prior != NULL && prior != node && g_hash_table_contains (set, prior))
        return prior;
    }

  return NULL;
}

/* Returns whether @node has a successor, other than itself, in @set. */
static gboolean
has_successor_in (SkProject  *self,
                  SkNode     *node,
                  GHashTable *set)
{
  GPtrArray *list = g_hash_table_lookup (get_successors (self), sk_node_get_id (node));

  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      if (g_hash_table_contains (set, g_ptr_array_index (list, i)))
        return TRUE;
    }

  return FALSE;
}

/* Returns the steps of @set that @start reaches through @set, following
 * successors, or priors when @upstream. @start is among them only when it
 * is on a cycle. */
static GHashTable *
reach_within (SkProject  *self,
              SkNode     *start,
              GHashTable *set,
              gboolean    upstream)
{
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  GQueue queue = G_QUEUE_INIT;

  g_queue_push_tail (&queue, start);

  while (!g_queue_is_empty (&queue))
    {
      SkNode *node = g_queue_pop_head (&queue);

      if (upstream)
        {
          const char * const *priors = sk_node_get_priors (node);

          for (guint i = 0; priors[i] != NULL; i++)
            {
              SkNode *prior = g_hash_table_lookup (self->by_id, priors[i]);

              if (prior != NULL && prior != node && g_hash_table_contains (set, prior) &&
                  g_hash_table_add (seen, prior))
                g_queue_push_tail (&queue, prior);
            }
        }
      else
        {
          GPtrArray *list = g_hash_table_lookup (get_successors (self), sk_node_get_id (node));

          for (guint i = 0; list != NULL && i < list->len; i++)
            {
              SkNode *next = g_ptr_array_index (list, i);

              if (g_hash_table_contains (set, next) && g_hash_table_add (seen, next))
                g_queue_push_tail (&queue, next);
            }
        }
    }

  return seen;
}

/* Finds the cycles among the nodes that could not be ordered, one problem
 * for each group of steps that all reach each other. Self-loops are
 * reported on their own, so nodes that could not be ordered only because of
 * one are set aside first, as are nodes that are only downstream of a
 * cycle or only lead to one. The message names one circle of the group;
 * the problem concerns every step and connection of the group, as each of
 * them is on some circle, so that a change that adds a circle to a group
 * is seen to make a new problem.
 */
static void
describe_cycles (SkProject *self,
                 GPtrArray *left_over,
                 GPtrArray *problems)
{
  g_autoptr(GHashTable) cyclic = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) done = g_hash_table_new (NULL, NULL);
  gboolean pruned = TRUE;

  for (guint i = 0; i < left_over->len; i++)
    g_hash_table_add (cyclic, g_ptr_array_index (left_over, i));

  while (pruned)
    {
      pruned = FALSE;

      for (guint i = 0; i < left_over->len; i++)
        {
          SkNode *node = g_ptr_array_index (left_over, i);

          if (g_hash_table_contains (cyclic, node) &&
              (first_prior_in (self, node, cyclic) == NULL ||
               !has_successor_in (self, node, cyclic)))
            {
              g_hash_table_remove (cyclic, node);
              pruned = TRUE;
            }
        }
    }

  for (guint i = 0; i < left_over->len; i++)
    {
      SkNode *start = g_ptr_array_index (left_over, i);
      g_autoptr(GHashTable) downstream = NULL;
      g_autoptr(GHashTable) upstream = NULL;
      g_autoptr(GHashTable) group = NULL;
      g_autoptr(GPtrArray) path = NULL;
      g_autoptr(GHashTable) position = NULL;
      g_autoptr(GString) text = NULL;
      g_autoptr(GStrvBuilder) ids = NULL;
      g_autoptr(GStrvBuilder) pairs = NULL;
      g_auto(GStrv) node_ids = NULL;
      g_auto(GStrv) edge_pairs = NULL;
      SkNode *node;
      guint first;

      if (!g_hash_table_contains (cyclic, start) || g_hash_table_contains (done, start))
        continue;

      downstream = reach_within (self, start, cyclic, FALSE);
      if (!g_hash_table_contains (downstream, start))
        continue;

      upstream = reach_within (self, start, cyclic, TRUE);
      group = g_hash_table_new (NULL, NULL);
      for (guint j = 0; j < left_over->len; j++)
        {
          SkNode *member = g_ptr_array_index (left_over, j);

          if (g_hash_table_contains (downstream, member) && g_hash_table_contains (upstream, member))
            {
              g_hash_table_add (group, member);
              g_hash_table_add (done, member);
            }
        }

      /* Every step of the group has a prior in it, so walking priors must
       * come back to a step already seen. */
      path = g_ptr_array_new ();
      position = g_hash_table_new (NULL, NULL);
      node = start;

      while (!g_hash_table_contains (position, node))
        {
          SkNode *next;

          g_hash_table_insert (position, node, GUINT_TO_POINTER (path->len));
          g_ptr_array_add (path, node);

          next = first_prior_in (self, node, group);
          g_assert (next != NULL);
          node = next;
        }

      first = GPOINTER_TO_UINT (g_hash_table_lookup (position, node));

      /* The walk followed "needs"; the message follows the flow of results. */
      text = g_string_new (NULL);
      for (guint j = path->len; j > first; j--)
        {
          g_autofree char *who = _sk_project_describe_node (g_ptr_array_index (path, j - 1));

          g_string_append (text, who);
          g_string_append (text, " → ");
        }
      {
        g_autofree char *who = _sk_project_describe_node (g_ptr_array_index (path, path->len - 1));

        g_string_append (text, who);
      }

      _sk_project_add_problem (problems, SK_PROBLEM_CYCLE, FALSE, sk_node_get_id (node),
                               _("These steps need each other’s results in a circle, so none "
                                 "of them can run: %s. Remove one of these connections."),
                               text->str);

      /* The circle comes first, in the order of the message: each step on
       * the path needs the next one and the last needs the first. Then the
       * rest of the group, in file order. */
      ids = g_strv_builder_new ();
      pairs = g_strv_builder_new ();

      for (guint j = path->len; j > first; j--)
        {
          SkNode *step = g_ptr_array_index (path, j - 1);
          SkNode *successor = j - 1 > first ? g_ptr_array_index (path, j - 2)
                                            : g_ptr_array_index (path, path->len - 1);

          g_strv_builder_add (ids, sk_node_get_id (step));
          g_strv_builder_add (pairs, sk_node_get_id (step));
          g_strv_builder_add (pairs, sk_node_get_id (successor));
        }

      for (guint j = 0; j < left_over->len; j++)
        {
          SkNode *member = g_ptr_array_index (left_over, j);
          const char * const *priors;
          gpointer value = NULL;
          gboolean member_on_circle;

          if (!g_hash_table_contains (group, member))
            continue;

          member_on_circle = g_hash_table_lookup_extended (position, member, NULL, &value) &&
                             GPOINTER_TO_UINT (value) >= first;
          if (!member_on_circle)
            g_strv_builder_add (ids, sk_node_get_id (member));

          priors = sk_node_get_priors (member);
          for (guint k = 0; priors[k] != NULL; k++)
            {
              SkNode *prior = g_hash_table_lookup (self->by_id, priors[k]);
              guint at = GPOINTER_TO_UINT (value);

              if (prior == NULL || prior == member || !g_hash_table_contains (group, prior) ||
                  g_strv_contains (priors + k + 1, priors[k]))
                continue;

              /* On the circle, a step needs the one after it on the path. */
              if (!member_on_circle ||
                  g_ptr_array_index (path, at + 1 < path->len ? at + 1 : first) != prior)
                {
                  g_strv_builder_add (pairs, priors[k]);
                  g_strv_builder_add (pairs, sk_node_get_id (member));
                }
            }
        }

      node_ids = g_strv_builder_end (ids);
      edge_pairs = g_strv_builder_end (pairs);
      _sk_project_set_last_concerns (problems, (const char * const *) node_ids,
                         (const char * const *) edge_pairs);
    }
}

/* Names the kind of file that @mode describes, for one that is not regular. */
static const char *
describe_file_kind (mode_t mode)
{
  if (S_ISDIR (mode))
    return _("a folder");
  if (S_ISFIFO (mode))
    return _("a named pipe");
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return _("a device");
  if (S_ISSOCK (mode))
    return _("a socket");

  return _("a special file");
}

/* An input that is not a regular file, such as a named pipe or /dev/zero,
 * may never end: reading or fingerprinting it would hang the run. The file
 * is looked at without being opened. One that does not exist is left
 * alone, as a step before may write it.
 */
/* The step's name in quotes, for a message: made only when a problem
 * needs it, as most steps have none. */
static const char *
lazy_who (SkNode  *node,
          char   **who)
{
  if (*who == NULL)
    *who = _sk_project_describe_node (node);

  return *who;
}

static void
validate_input_files (SkNode     *node,
                      GFile      *folder,
                      char      **who,
                      GPtrArray  *problems)
{
  const char * const *files = sk_node_get_input_files (node);

  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autoptr(GFile) file = g_path_is_absolute (files[i])
                              ? g_file_new_for_path (files[i])
                              : g_file_resolve_relative_path (folder, files[i]);
      g_autofree char *path = g_file_get_path (file);
      GStatBuf info;

      /* stat() follows a symbolic link to what it names. */
      if (path == NULL || g_stat (path, &info) != 0 || S_ISREG (info.st_mode))
        continue;

      _sk_project_add_problem (problems, SK_PROBLEM_STRUCTURE, FALSE, sk_node_get_id (node),
                               /* Translators: the first %s is a file as the step lists it,
                                * the second names a step, the third is “a folder”, “a named
                                * pipe”, “a device” or “a socket”. */
                               _("The input file “%s” of %s is %s, not a regular file. Only "
                                 "regular files can be inputs: list a file instead."),
                               files[i], lazy_who (node, who), describe_file_kind (info.st_mode));
    }
}

/* Checks what can be seen in one node: its key, its priors and its script.
 * @keys maps the keys seen so far to their nodes.
 */
static void
validate_node (SkProject  *self,
               SkNode     *node,
               gboolean    scripts,
               GHashTable *keys,
               GPtrArray  *problems)
{
  const char *id = sk_node_get_id (node);
  const char *key = sk_node_get_key (node);
  const char * const *priors = sk_node_get_priors (node);
  g_autofree char *who = NULL;
  SkNode *other;

  if (key[0] == '\0')
    {
      if (sk_node_get_name (node)[0] == '\0')
        _sk_project_add_problem (problems, SK_PROBLEM_EMPTY_KEY, FALSE, id,
                                 /* Translators: %s is the step's identifier. */
                                 _("A step has no name (its identifier is %s). Give it a name "
                                   "with letters or digits."),
                                 id);
      else
        _sk_project_add_problem (problems, SK_PROBLEM_EMPTY_KEY, FALSE, id,
                                 _("The name %s has no letters or digits, so it cannot name "
                                   "the step’s folder. Rename the step."), lazy_who (node, &who));
    }
  else if ((other = g_hash_table_lookup (keys, key)) != NULL)
    {
      g_autofree char *other_who = _sk_project_describe_node (other);
      const char * const pair[] = { sk_node_get_id (other), id, NULL };

      _sk_project_add_problem (problems, SK_PROBLEM_DUPLICATE_KEY, FALSE, id,
                               /* Translators: the first two %s are step names in quotes,
                                * the third is a folder name. */
                               _("The steps %s and %s would share the folder “%s”. Rename "
                                 "one of them."),
                               other_who, lazy_who (node, &who), key);
      _sk_project_set_last_concerns (problems, pair, NULL);
    }
  else
    {
      g_hash_table_insert (keys, (gpointer) key, node);
    }

  for (guint j = 0; priors[j] != NULL; j++)
    {
      const char * const edge[] = { priors[j], id, NULL };

      if (g_str_equal (priors[j], id))
        {
          _sk_project_add_problem (problems, SK_PROBLEM_CYCLE, FALSE, id,
                                   /* Translators: %s names a step. */
                                   _("A step cannot need its own results, but %s does. Remove "
                                     "that connection."), lazy_who (node, &who));
          _sk_project_set_last_concerns (problems, NULL, edge);
        }
      else if (!g_hash_table_contains (self->by_id, priors[j]))
        {
          _sk_project_add_problem (problems, SK_PROBLEM_DANGLING_PRIOR, FALSE, id,
                                   /* Translators: the first %s is a step's identifier, the
                                    * second names the step that needs it. */
                                   _("There is no step “%s”, but %s needs it. Remove that "
                                     "connection, or add the step again."), priors[j],
                                   lazy_who (node, &who));
          _sk_project_set_last_concerns (problems, NULL, edge);
        }
    }

  if (self->folder != NULL && key[0] != '\0' && sk_node_get_input_files (node)[0] != NULL)
    {
      g_autoptr(GFile) folder = sk_project_get_node_folder (self, node);

      validate_input_files (node, folder, &who, problems);
    }

  if (scripts && self->folder != NULL && key[0] != '\0')
    {
      g_autofree char *script = sk_project_get_node_script_path (self, node);

      if (script != NULL && !g_file_test (script, G_FILE_TEST_EXISTS))
        {
          g_autofree char *script_name = sk_step_folder_relative_path (key, SK_STEP_FILE_SCRIPT);

          _sk_project_add_problem (problems, SK_PROBLEM_MISSING_SCRIPT, TRUE, id,
                                   /* Translators: the first %s names a step, the last two
                                    * are its folder and its script's name, as in
                                    * “load/load.py”. */
                                   _("There is no script yet for %s (%s/%s): the coding agent "
                                     "writes it, or you can write it yourself."),
                                   lazy_who (node, &who), key, script_name);
        }
    }

  _sk_control_flow_validate (self, node, problems);
}

/* What sk_project_validate() finds, with steps without a script only when
 * @scripts. */
static GPtrArray *
validate (SkProject *self,
          gboolean   scripts)
{
  g_autoptr(GHashTable) keys = NULL;
  g_autoptr(GPtrArray) left_over = NULL;
  g_autoptr(GPtrArray) order = NULL;
  GPtrArray *problems;

  problems = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free);
  for (guint i = 0; i < self->load_problems->len; i++)
    g_ptr_array_add (problems, sk_problem_copy (g_ptr_array_index (self->load_problems, i)));

  keys = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < self->nodes->len; i++)
    validate_node (self, g_ptr_array_index (self->nodes, i), scripts, keys, problems);

  order = topological_sort (self, &left_over);
  if (left_over->len > 0)
    describe_cycles (self, left_over, problems);

  return problems;
}

/**
 * sk_project_validate:
 * @self: a #SkProject
 *
 * Checks the workflow's structure: values of the wrong type, duplicate
 * identifiers, names that give no key or a key another step has, priors that
 * do not exist, cycles, input files that exist but are not regular files
 * (named pipes, devices, folders, sockets, or links to them), and (as
 * warnings) steps without a script.
 *
 * Returns: (transfer container) (element-type SkProblem): one problem per
 *   entry, each with the steps and connections it concerns; empty when the
 *   workflow is sound
 */
GPtrArray *
sk_project_validate (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  return validate (self, TRUE);
}

/**
 * sk_project_check:
 * @self: a #SkProject
 * @error: return location for a #GError
 *
 * Returns: %TRUE if sk_project_validate() finds no errors (warnings are
 *   allowed); otherwise %FALSE with the first error in @error
 */
gboolean
sk_project_check (SkProject  *self,
                  GError    **error)
{
  g_autoptr(GPtrArray) problems = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);

  /* A missing script is only ever a warning, so no script is looked for:
   * a run checks the workflow before it starts, for every step. */
  problems = validate (self, FALSE);
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (!problem->is_warning)
        {
          g_set_error_literal (error, SK_PROJECT_ERROR,
                               problem->kind == SK_PROBLEM_CYCLE ? SK_PROJECT_ERROR_CYCLE
                                                                 : SK_PROJECT_ERROR_INVALID,
                               problem->message);
          return FALSE;
        }
    }

  return TRUE;
}

/**
 * sk_project_topological_order:
 * @self: a #SkProject
 * @error: return location for a #GError
 *
 * Returns: (transfer container) (element-type SkNode): every node after its
 *   priors, ties in file order; %NULL with @error set when there is a cycle
 */
GPtrArray *
sk_project_topological_order (SkProject  *self,
                              GError    **error)
{
  g_autoptr(GPtrArray) left_over = NULL;
  g_autoptr(GPtrArray) order = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  order = topological_sort (self, &left_over);
  if (left_over->len > 0)
    {
      g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free);
      const char *message;

      describe_cycles (self, left_over, problems);
      if (problems->len > 0)
        message = ((SkProblem *) g_ptr_array_index (problems, 0))->message;
      else
        message = _("A step lists itself among the steps it needs.");

      g_set_error_literal (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE, message);
      return NULL;
    }

  return g_steal_pointer (&order);
}

/**
 * sk_project_get_prior_nodes:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * Returns: (transfer container) (element-type SkNode): the existing nodes
 *   that @node needs, in the order of its priors
 */
GPtrArray *
sk_project_get_prior_nodes (SkProject *self,
                            SkNode    *node)
{
  const char * const *priors;
  GPtrArray *result;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  result = g_ptr_array_new_with_free_func (g_object_unref);
  priors = sk_node_get_priors (node);

  for (guint i = 0; priors[i] != NULL; i++)
    {
      SkNode *prior = g_hash_table_lookup (self->by_id, priors[i]);

      if (prior != NULL && prior != node && !g_ptr_array_find (result, prior, NULL))
        g_ptr_array_add (result, g_object_ref (prior));
    }

  return result;
}

/**
 * sk_project_get_successors:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * Returns: (transfer container) (element-type SkNode): the nodes that need
 *   @node's results, in file order
 */
GPtrArray *
sk_project_get_successors (SkProject *self,
                           SkNode    *node)
{
  GPtrArray *list;
  GPtrArray *result;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  result = g_ptr_array_new_with_free_func (g_object_unref);
  list = g_hash_table_lookup (get_successors (self), sk_node_get_id (node));

  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      SkNode *next = g_ptr_array_index (list, i);

      if (!g_ptr_array_find (result, next, NULL))
        g_ptr_array_add (result, g_object_ref (next));
    }

  return result;
}

static GPtrArray *
walk (SkProject *self,
      SkNode    *start,
      gboolean   downstream)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  GPtrArray *result = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTable *successors = get_successors (self);
  GQueue queue = G_QUEUE_INIT;

  g_hash_table_add (seen, start);
  g_queue_push_tail (&queue, start);

  while (!g_queue_is_empty (&queue))
    {
      SkNode *node = g_queue_pop_head (&queue);

      if (downstream)
        {
          GPtrArray *list = g_hash_table_lookup (successors, sk_node_get_id (node));

          for (guint i = 0; list != NULL && i < list->len; i++)
            {
              SkNode *next = g_ptr_array_index (list, i);

              if (g_hash_table_add (seen, next))
                {
                  g_ptr_array_add (result, g_object_ref (next));
                  g_queue_push_tail (&queue, next);
                }
            }
        }
      else
        {
          const char * const *priors = sk_node_get_priors (node);

          for (guint i = 0; priors[i] != NULL; i++)
            {
              SkNode *next = g_hash_table_lookup (self->by_id, priors[i]);

              if (next != NULL && g_hash_table_add (seen, next))
                {
                  g_ptr_array_add (result, g_object_ref (next));
                  g_queue_push_tail (&queue, next);
                }
            }
        }
    }

  return result;
}

/**
 * sk_project_get_descendants:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * Returns: (transfer container) (element-type SkNode): every node that
 *   depends on @node directly or indirectly, nearest first
 */
GPtrArray *
sk_project_get_descendants (SkProject *self,
                            SkNode    *node)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  return walk (self, node, TRUE);
}

/**
 * sk_project_get_ancestors:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * Returns: (transfer container) (element-type SkNode): every node that @node
 *   depends on directly or indirectly, nearest first
 */
GPtrArray *
sk_project_get_ancestors (SkProject *self,
                          SkNode    *node)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  return walk (self, node, FALSE);
}

/**
 * sk_project_get_markov_blanket:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * The coding agent sees a node's neighbourhood only: the nodes whose results
 * it reads and the nodes that read its results.
 *
 * Returns: (transfer container) (element-type SkNode): @node's priors, then
 *   its successors
 */
GPtrArray *
sk_project_get_markov_blanket (SkProject *self,
                               SkNode    *node)
{
  g_autoptr(GPtrArray) successors = NULL;
  GPtrArray *result;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  result = sk_project_get_prior_nodes (self, node);
  successors = sk_project_get_successors (self, node);

  for (guint i = 0; i < successors->len; i++)
    {
      SkNode *next = g_ptr_array_index (successors, i);

      if (!g_ptr_array_find (result, next, NULL))
        g_ptr_array_add (result, g_object_ref (next));
    }

  return result;
}

/**
 * sk_project_get_ready_nodes:
 * @self: a #SkProject
 * @finished: (element-type SkNode SkNode): the set of nodes that have finished
 *
 * Returns: (transfer container) (element-type SkNode): the nodes, in file
 *   order, that have not finished and whose priors all have
 */
GPtrArray *
sk_project_get_ready_nodes (SkProject  *self,
                            GHashTable *finished)
{
  GPtrArray *result;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (finished != NULL, NULL);

  result = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (self->nodes, i);
      const char * const *priors = sk_node_get_priors (node);
      gboolean ready = TRUE;

      if (g_hash_table_contains (finished, node))
        continue;

      for (guint j = 0; priors[j] != NULL && ready; j++)
        {
          SkNode *prior = g_hash_table_lookup (self->by_id, priors[j]);

          if (prior != NULL && !g_hash_table_contains (finished, prior))
            ready = FALSE;
        }

      if (ready)
        g_ptr_array_add (result, g_object_ref (node));
    }

  return result;
}

/**
 * sk_project_mark_stale:
 * @self: a #SkProject
 * @node: a node of @self that was edited
 *
 * Marks @node and everything downstream of it as stale when they show the
 * result of an earlier run, which no longer reflects their inputs.
 */
void
sk_project_mark_stale (SkProject *self,
                       SkNode    *node)
{
  g_autoptr(GPtrArray) descendants = NULL;

  g_return_if_fail (SK_IS_PROJECT (self));
  g_return_if_fail (SK_IS_NODE (node));

  descendants = sk_project_get_descendants (self, node);
  g_ptr_array_insert (descendants, 0, g_object_ref (node));

  for (guint i = 0; i < descendants->len; i++)
    {
      SkNode *each = g_ptr_array_index (descendants, i);
      SkNodeState state = sk_node_get_state (each);

      if (state == SK_NODE_STATE_SUCCEEDED ||
          state == SK_NODE_STATE_FAILED ||
          state == SK_NODE_STATE_SKIPPED ||
          state == SK_NODE_STATE_CANCELLED ||
          state == SK_NODE_STATE_UP_TO_DATE)
        sk_node_set_state (each, SK_NODE_STATE_STALE);
    }
}

/**
 * sk_project_select_nodes:
 * @project: a workflow
 * @only: (nullable) (array zero-terminated=1): nodes to run, by key, identifier
 *   or name; %NULL for the nodes marked to run
 * @from: (nullable): run this node and everything downstream of it
 * @to: (nullable): run this node and everything it needs
 * @error: return location for a #GError
 *
 * With both @from and @to, the nodes between them are selected.
 *
 * Returns: (transfer container) (element-type SkNode): the selected nodes in
 *   file order, or %NULL with @error set when a node does not exist
 */
GPtrArray *
sk_project_select_nodes (SkProject           *project,
                         const char * const  *only,
                         const char          *from,
                         const char          *to,
                         GError             **error)
{
  g_autoptr(GHashTable) chosen = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) downstream = NULL;
  g_autoptr(GHashTable) upstream = NULL;
  GPtrArray *result;
  guint n_nodes;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);

  n_nodes = g_list_model_get_n_items (G_LIST_MODEL (project));

  if (only != NULL && only[0] != NULL)
    {
      for (guint i = 0; only[i] != NULL; i++)
        {
          SkNode *node = sk_project_lookup_node (project, only[i]);

          if (node == NULL)
            {
              g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                           _("The workflow has no step “%s”."), only[i]);
              return NULL;
            }

          g_hash_table_add (chosen, node);
        }
    }

  for (guint pass = 0; pass < 2; pass++)
    {
      const char *name = pass == 0 ? from : to;
      g_autoptr(GPtrArray) related = NULL;
      GHashTable *set;
      SkNode *node;

      if (name == NULL)
        continue;

      if ((node = sk_project_lookup_node (project, name)) == NULL)
        {
          g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                       _("The workflow has no step “%s”."), name);
          return NULL;
        }

      related = pass == 0 ? sk_project_get_descendants (project, node)
                          : sk_project_get_ancestors (project, node);
      set = g_hash_table_new (NULL, NULL);
      g_hash_table_add (set, node);
      for (guint i = 0; i < related->len; i++)
        g_hash_table_add (set, g_ptr_array_index (related, i));

      if (pass == 0)
        downstream = set;
      else
        upstream = set;
    }

  result = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < n_nodes; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      gboolean include;

      if (g_hash_table_size (chosen) > 0)
        include = g_hash_table_contains (chosen, node);
      else if (downstream != NULL || upstream != NULL)
        include = TRUE;
      else
        include = sk_node_get_run (node);

      if (downstream != NULL && !g_hash_table_contains (downstream, node))
        include = FALSE;
      if (upstream != NULL && !g_hash_table_contains (upstream, node))
        include = FALSE;

      if (include)
        g_ptr_array_add (result, g_object_ref (node));
    }

  return result;
}