/* sk-layout.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-layout"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "sk-graphviz-private.h"
#include "sk-layout.h"

#define SK_POINTS_PER_INCH 72.0

/* Graphviz keeps global state and is not thread-safe, so layouts run one at
 * a time, each on a copy of the graph made on the caller's thread. Its
 * context is made once: each new one reads the plugin configuration again,
 * and Graphviz 2.42 never frees what it read.
 */
G_LOCK_DEFINE_STATIC (graphviz);
static GVC_t *graphviz_context;

/*
 * _sk_graphviz_acquire:
 *
 * Waits for Graphviz to be free, and makes its context the first time.
 * Every call is matched by _sk_graphviz_release().
 *
 * Returns: (transfer none): the context
 */
GVC_t *
_sk_graphviz_acquire (void)
{
  G_LOCK (graphviz);

  if (graphviz_context == NULL)
    graphviz_context = gvContext ();

  return graphviz_context;
}

void
_sk_graphviz_release (void)
{
  G_UNLOCK (graphviz);
}

typedef struct
{
  GPtrArray         *ids;
  GArray            *edges;
  double             node_width;
  double             node_height;
  SkLayoutDirection  direction;
  /* With a view's size both directions are tried, the one that fits it
   * best is kept, and direction then says which it was. */
  double             view_width;
  double             view_height;
  gboolean           to_fit;
} LayoutInput;

typedef struct
{
  guint from;
  guint to;
} Edge;

static void
layout_input_free (gpointer data)
{
  LayoutInput *input = data;

  g_ptr_array_unref (input->ids);
  g_array_unref (input->edges);
  g_free (input);
}

static char *
format_inches (double points)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  /* Graphviz parses attributes with the C locale's decimal point. */
  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.4f", points / SK_POINTS_PER_INCH));
}

static GHashTable *
run_layout (LayoutInput        *input,
            SkLayoutDirection   direction,
            GError            **error)
{
  g_autoptr(GHashTable) positions = NULL;
  g_autofree char *width = format_inches (input->node_width);
  g_autofree char *height = format_inches (input->node_height);
  g_autofree Agnode_t **nodes = NULL;
  Agraph_t *graph;
  double top;

  positions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (input->ids->len == 0)
    return g_steal_pointer (&positions);

  _sk_graphviz_acquire ();
  graph = agopen ((char *) "workflow", Agstrictdirected, NULL);

  agattr (graph, AGRAPH, (char *) "rankdir",
          (char *) (direction == SK_LAYOUT_DIRECTION_RIGHT ? "LR" : "TB"));
  agattr (graph, AGRAPH, (char *) "nodesep", (char *) "0.5");
  agattr (graph, AGRAPH, (char *) "ranksep", (char *) "0.6");
  agattr (graph, AGNODE, (char *) "shape", (char *) "box");
  agattr (graph, AGNODE, (char *) "fixedsize", (char *) "true");
  agattr (graph, AGNODE, (char *) "label", (char *) "");
  agattr (graph, AGNODE, (char *) "width", width);
  agattr (graph, AGNODE, (char *) "height", height);

  nodes = g_new0 (Agnode_t *, input->ids->len);
  for (guint i = 0; i < input->ids->len; i++)
    nodes[i] = agnode (graph, g_ptr_array_index (input->ids, i), TRUE);

  for (guint i = 0; i < input->edges->len; i++)
    {
      Edge *edge = &g_array_index (input->edges, Edge, i);

      agedge (graph, nodes[edge->from], nodes[edge->to], NULL, TRUE);
    }

  if (gvLayout (graphviz_context, graph, "dot") != 0)
    {
      agclose (graph);
      _sk_graphviz_release ();

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Graphviz could not arrange the workflow. Check that Graphviz’s "
                     "“dot” layout is installed."));
      return NULL;
    }

  /* Graphviz counts y upwards from the bottom of its bounding box; the canvas
   * counts it downwards from the top.
   */
  top = GD_bb (graph).UR.y;
  for (guint i = 0; i < input->ids->len; i++)
    {
      SkLayoutPoint *point = g_new (SkLayoutPoint, 1);

      point->x = ND_coord (nodes[i]).x;
      point->y = top - ND_coord (nodes[i]).y;
      g_hash_table_insert (positions, g_strdup (g_ptr_array_index (input->ids, i)), point);
    }

  gvFreeLayout (graphviz_context, graph);
  agclose (graph);

  _sk_graphviz_release ();

  return g_steal_pointer (&positions);
}

/* The zoom at which @positions, boxes included, fit into the view: the
 * larger, the larger the steps are shown. */
static double
fit_scale (LayoutInput *input,
           GHashTable  *positions)
{
  GHashTableIter iter;
  gpointer value;
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;

  g_hash_table_iter_init (&iter, positions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      SkLayoutPoint *point = value;

      x0 = MIN (x0, point->x - input->node_width / 2);
      y0 = MIN (y0, point->y - input->node_height / 2);
      x1 = MAX (x1, point->x + input->node_width / 2);
      y1 = MAX (y1, point->y + input->node_height / 2);
    }

  if (x1 <= x0 || y1 <= y0)
    return G_MAXDOUBLE;

  return MIN (input->view_width / (x1 - x0), input->view_height / (y1 - y0));
}

static void
arrange_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  LayoutInput *input = task_data;
  g_autoptr(GHashTable) positions = NULL;
  g_autoptr(GHashTable) across = NULL;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;

  positions = run_layout (input, input->direction, &error);
  if (positions == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  if (input->to_fit)
    {
      if (g_task_return_error_if_cancelled (task))
        return;

      /* Top to bottom wins a tie: it is how the workflow reads. */
      across = run_layout (input, SK_LAYOUT_DIRECTION_RIGHT, &error);
      if (across == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      if (fit_scale (input, across) > fit_scale (input, positions) * 1.001)
        {
          g_hash_table_unref (positions);
          positions = g_steal_pointer (&across);
          input->direction = SK_LAYOUT_DIRECTION_RIGHT;
        }
    }

  g_task_return_pointer (task, g_steal_pointer (&positions), (GDestroyNotify) g_hash_table_unref);
}

/* A copy of the graph, made on the caller's thread. */
static LayoutInput *
layout_input_new (SkProject *project,
                  double     node_width,
                  double     node_height)
{
  g_autoptr(GHashTable) index = g_hash_table_new (NULL, NULL);
  LayoutInput *input;
  guint n_nodes;

  input = g_new0 (LayoutInput, 1);
  input->ids = g_ptr_array_new_with_free_func (g_free);
  input->edges = g_array_new (FALSE, FALSE, sizeof (Edge));
  input->node_width = node_width;
  input->node_height = node_height;

  n_nodes = g_list_model_get_n_items (G_LIST_MODEL (project));
  for (guint i = 0; i < n_nodes; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      g_hash_table_insert (index, node, GUINT_TO_POINTER (i));
      g_ptr_array_add (input->ids, g_strdup (sk_node_get_id (node)));
    }

  for (guint i = 0; i < n_nodes; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (project, node);

      for (guint j = 0; j < priors->len; j++)
        {
          Edge edge;

          edge.from = GPOINTER_TO_UINT (g_hash_table_lookup (index, g_ptr_array_index (priors, j)));
          edge.to = i;
          g_array_append_val (input->edges, edge);
        }
    }

  return input;
}

/**
 * sk_layout_arrange_async:
 * @project: a workflow
 * @node_width: the width of a node on the canvas
 * @node_height: its height
 * @direction: which way results flow
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the positions
 * @user_data: data for @callback
 *
 * Lays the workflow out from top to bottom or from left to right with
 * Graphviz's `dot`, in a thread, on a copy of the graph. Nothing is changed
 * until the caller applies the positions, so that it can record the old
 * ones for undo.
 */
void
sk_layout_arrange_async (SkProject           *project,
                         double               node_width,
                         double               node_height,
                         SkLayoutDirection    direction,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  LayoutInput *input;

  g_return_if_fail (SK_IS_PROJECT (project));
  g_return_if_fail (node_width > 0 && node_height > 0);

  input = layout_input_new (project, node_width, node_height);
  input->direction = direction;

  task = g_task_new (project, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_layout_arrange_async);
  g_task_set_task_data (task, input, layout_input_free);
  g_task_run_in_thread (task, arrange_thread);
}

/**
 * sk_layout_arrange_to_fit_async:
 * @project: a workflow
 * @node_width: the width of a node on the canvas
 * @node_height: its height
 * @view_width: the width of the view the workflow is to be shown in
 * @view_height: its height
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the positions
 * @user_data: data for @callback
 *
 * Like sk_layout_arrange_async(), but lays the workflow out both from top
 * to bottom and from left to right, and keeps the layout that shows its
 * steps larger when the whole of it is fitted into a view of
 * @view_width × @view_height; top to bottom when both are alike.
 * sk_layout_arrange_finish() tells which one it kept.
 */
void
sk_layout_arrange_to_fit_async (SkProject           *project,
                                double               node_width,
                                double               node_height,
                                double               view_width,
                                double               view_height,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  LayoutInput *input;

  g_return_if_fail (SK_IS_PROJECT (project));
  g_return_if_fail (node_width > 0 && node_height > 0);
  g_return_if_fail (view_width > 0 && view_height > 0);

  input = layout_input_new (project, node_width, node_height);
  input->direction = SK_LAYOUT_DIRECTION_DOWN;
  input->view_width = view_width;
  input->view_height = view_height;
  input->to_fit = TRUE;

  task = g_task_new (project, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_layout_arrange_async);
  g_task_set_task_data (task, input, layout_input_free);
  g_task_run_in_thread (task, arrange_thread);
}

/**
 * sk_layout_arrange_finish:
 * @project: a workflow
 * @result: the #GAsyncResult passed to the callback
 * @direction: (out) (optional): the direction the workflow was laid out in
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (element-type utf8 SkLayoutPoint): each node's
 *   new centre by identifier, or %NULL with @error set
 */
GHashTable *
sk_layout_arrange_finish (SkProject          *project,
                          GAsyncResult       *result,
                          SkLayoutDirection  *direction,
                          GError            **error)
{
  LayoutInput *input;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (g_task_is_valid (result, project), NULL);

  input = g_task_get_task_data (G_TASK (result));
  if (direction != NULL)
    *direction = input->direction;

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * sk_layout_apply:
 * @project: a workflow
 * @positions: (element-type utf8 SkLayoutPoint): centres by node identifier
 *
 * Moves the nodes that still exist to their positions.
 */
void
sk_layout_apply (SkProject  *project,
                 GHashTable *positions)
{
  GHashTableIter iter;
  gpointer key, value;

  g_return_if_fail (SK_IS_PROJECT (project));
  g_return_if_fail (positions != NULL);

  g_hash_table_iter_init (&iter, positions);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      SkNode *node = sk_project_get_node (project, key);
      SkLayoutPoint *point = value;

      if (node != NULL)
        sk_node_set_position (node, point->x, point->y);
    }
}
