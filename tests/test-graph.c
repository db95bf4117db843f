/* test-graph.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include "sk-project.h"
#include "sk-test-util.h"

#define N_GENERATED 50

/* Adds a node to @project and returns it (owned by @project). */
static SkNode *
add (SkProject          *project,
     const char         *id,
     const char         *name,
     const char * const *priors)
{
  g_autoptr(SkNode) node = sk_node_new (id, name);
  g_autoptr(GError) error = NULL;

  if (priors != NULL)
    sk_node_set_priors (node, priors);

  g_assert_true (sk_project_add_node (project, node, &error));
  g_assert_no_error (error);

  return node;
}

/* Writes the identifiers of @nodes as "a,b,c" so that lists compare as text. */
static char *
ids_of (GPtrArray *nodes)
{
  GString *text = g_string_new (NULL);

  g_assert_nonnull (nodes);
  for (guint i = 0; i < nodes->len; i++)
    {
      if (i > 0)
        g_string_append_c (text, ',');
      g_string_append (text, sk_node_get_id (g_ptr_array_index (nodes, i)));
    }

  return g_string_free (text, FALSE);
}

static void
assert_ids (GPtrArray  *nodes,
            const char *expected)
{
  g_autofree char *ids = ids_of (nodes);

  g_assert_cmpstr (ids, ==, expected);
}

/* Checks that @nodes holds each node once and that it holds the same nodes as @expected. */
static void
assert_same_set (GPtrArray  *nodes,
                 GHashTable *expected)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (nodes, i);

      g_assert_true (g_hash_table_add (seen, node));
      g_assert_true (g_hash_table_contains (expected, node));
    }

  g_assert_cmpuint (g_hash_table_size (seen), ==, g_hash_table_size (expected));
}

static void
assert_before_priors (SkProject *project,
                      GPtrArray *order)
{
  g_autoptr(GHashTable) position = g_hash_table_new (NULL, NULL);

  g_assert_cmpuint (order->len, ==, sk_project_get_n_nodes (project));

  for (guint i = 0; i < order->len; i++)
    g_assert_true (g_hash_table_insert (position, g_ptr_array_index (order, i),
                                        GUINT_TO_POINTER (i + 1)));

  for (guint i = 0; i < order->len; i++)
    {
      SkNode *node = g_ptr_array_index (order, i);
      const char * const *priors = sk_node_get_priors (node);

      for (guint j = 0; priors[j] != NULL; j++)
        {
          SkNode *prior = sk_project_get_node (project, priors[j]);

          if (prior != NULL)
            g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (position, prior)), <, i + 1);
        }
    }
}

/*   a
 *  / \
 * b   c
 *  \ /
 *   d
 */
static SkProject *
make_diamond (void)
{
  SkProject *project = sk_project_new (NULL);

  add (project, "1", "a", NULL);
  add (project, "2", "b", SK_TEST_STRV ("1"));
  add (project, "3", "c", SK_TEST_STRV ("1"));
  add (project, "4", "d", SK_TEST_STRV ("2", "3"));

  return project;
}

/* Nodes are added in a shuffled order, so priors refer to nodes both before
 * and after them in the file. Node n may need any node with a smaller number.
 */
static SkProject *
make_generated (guint32 seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  SkProject *project = sk_project_new (NULL);
  guint order[N_GENERATED];

  for (guint i = 0; i < N_GENERATED; i++)
    order[i] = i + 1;

  for (guint i = N_GENERATED - 1; i > 0; i--)
    {
      guint j = g_rand_int_range (rand, 0, i + 1);
      guint swap = order[i];

      order[i] = order[j];
      order[j] = swap;
    }

  for (guint i = 0; i < N_GENERATED; i++)
    {
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      g_auto(GStrv) priors = NULL;
      g_autofree char *id = g_strdup_printf ("%u", order[i]);
      g_autofree char *name = g_strdup_printf ("step %u", order[i]);

      for (guint p = 1; p < order[i]; p++)
        {
          /* About three priors a node, more near the top. */
          if (g_rand_int_range (rand, 0, order[i]) < 3)
            {
              g_autofree char *prior = g_strdup_printf ("%u", p);

              g_strv_builder_add (builder, prior);
            }
        }

      priors = g_strv_builder_end (builder);
      add (project, id, name, (const char * const *) priors);
    }

  return project;
}

static void
test_topological_order (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GPtrArray) order = NULL;
  g_autoptr(GPtrArray) again = NULL;
  g_autoptr(GError) error = NULL;

  add (project, "1", "report", SK_TEST_STRV ("3", "4"));
  add (project, "2", "load", NULL);
  add (project, "3", "totals", SK_TEST_STRV ("2"));
  add (project, "4", "chart", SK_TEST_STRV ("3"));
  add (project, "5", "notes", NULL);

  order = sk_project_topological_order (project, &error);
  g_assert_no_error (error);
  assert_before_priors (project, order);
  assert_ids (order, "2,3,4,1,5");

  /* The order does not change from one call to the next. */
  again = sk_project_topological_order (project, &error);
  g_assert_no_error (error);
  assert_ids (again, "2,3,4,1,5");
}

static void
test_topological_file_order (void)
{
  g_autoptr(SkProject) independent = sk_project_new (NULL);
  g_autoptr(SkProject) sorted = sk_project_new (NULL);
  g_autoptr(SkProject) diamond = make_diamond ();
  g_autoptr(GPtrArray) order = NULL;
  g_autoptr(GError) error = NULL;

  /* Nodes that do not depend on each other keep the file's order. */
  add (independent, "3", "c", NULL);
  add (independent, "1", "a", NULL);
  add (independent, "2", "b", NULL);
  order = sk_project_topological_order (independent, &error);
  g_assert_no_error (error);
  assert_ids (order, "3,1,2");
  g_clear_pointer (&order, g_ptr_array_unref);

  /* A file already in dependency order comes out unchanged. */
  add (sorted, "1", "load", NULL);
  add (sorted, "2", "clean", SK_TEST_STRV ("1"));
  add (sorted, "3", "other", NULL);
  add (sorted, "4", "report", SK_TEST_STRV ("2", "3"));
  order = sk_project_topological_order (sorted, &error);
  g_assert_no_error (error);
  assert_ids (order, "1,2,3,4");
  g_clear_pointer (&order, g_ptr_array_unref);

  order = sk_project_topological_order (diamond, &error);
  g_assert_no_error (error);
  assert_ids (order, "1,2,3,4");
}

static void
test_topological_generated (void)
{
  g_autoptr(SkProject) project = make_generated (7);
  g_autoptr(SkProject) same = make_generated (7);
  g_autoptr(GPtrArray) order = NULL;
  g_autoptr(GPtrArray) order2 = NULL;
  g_autofree char *ids = NULL;
  g_autofree char *ids2 = NULL;
  g_autoptr(GError) error = NULL;

  order = sk_project_topological_order (project, &error);
  g_assert_no_error (error);
  assert_before_priors (project, order);

  /* The same workflow built again gives the same order. */
  order2 = sk_project_topological_order (same, &error);
  g_assert_no_error (error);
  ids = ids_of (order);
  ids2 = ids_of (order2);
  g_assert_cmpstr (ids, ==, ids2);
}

static void
test_topological_cycle (void)
{
  g_autoptr(SkProject) cycle = sk_project_new (NULL);
  g_autoptr(SkProject) self_loop = sk_project_new (NULL);
  g_autoptr(GPtrArray) order = NULL;
  g_autoptr(GError) error = NULL;

  add (cycle, "1", "start", NULL);
  add (cycle, "2", "alpha", SK_TEST_STRV ("1", "4"));
  add (cycle, "3", "beta", SK_TEST_STRV ("2"));
  add (cycle, "4", "gamma", SK_TEST_STRV ("3"));
  add (cycle, "5", "after", SK_TEST_STRV ("4"));

  order = sk_project_topological_order (cycle, &error);
  g_assert_null (order);
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE);
  g_assert_nonnull (strstr (error->message, "“alpha”"));
  g_assert_nonnull (strstr (error->message, "“beta”"));
  g_assert_nonnull (strstr (error->message, "“gamma”"));
  g_assert_null (strstr (error->message, "“start”"));
  g_assert_null (strstr (error->message, "“after”"));
  g_clear_error (&error);

  /* A node that needs itself, and one downstream of it. */
  add (self_loop, "1", "loop", SK_TEST_STRV ("1"));
  add (self_loop, "2", "next", SK_TEST_STRV ("1"));
  order = sk_project_topological_order (self_loop, &error);
  g_assert_null (order);
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE);
  g_clear_error (&error);

  /* Breaking the cycle makes the workflow orderable again. */
  sk_node_set_priors (sk_project_get_node (cycle, "2"), SK_TEST_STRV ("1"));
  order = sk_project_topological_order (cycle, &error);
  g_assert_no_error (error);
  assert_ids (order, "1,2,3,4,5");
}

static void
test_ready (void)
{
  g_autoptr(SkProject) project = make_diamond ();
  g_autoptr(GHashTable) finished = g_hash_table_new (NULL, NULL);
  SkNode *a = sk_project_get_node (project, "1");
  SkNode *b = sk_project_get_node (project, "2");
  SkNode *c = sk_project_get_node (project, "3");
  SkNode *d = sk_project_get_node (project, "4");

#define CHECK_READY(expected)                                                   \
  G_STMT_START {                                                                \
    g_autoptr(GPtrArray) ready = sk_project_get_ready_nodes (project, finished); \
    assert_ids (ready, expected);                                               \
  } G_STMT_END

  CHECK_READY ("1");
  g_hash_table_add (finished, a);
  CHECK_READY ("2,3");
  g_hash_table_add (finished, c);
  CHECK_READY ("2");
  g_hash_table_add (finished, b);
  CHECK_READY ("4");
  g_hash_table_add (finished, d);
  CHECK_READY ("");

  /* A prior that does not exist does not hold a node back; one that needs
   * itself never becomes ready.
   */
  g_hash_table_remove_all (finished);
  add (project, "5", "orphan", SK_TEST_STRV ("99"));
  add (project, "6", "loop", SK_TEST_STRV ("6"));
  add (project, "7", "twice", SK_TEST_STRV ("1", "1"));
  CHECK_READY ("1,5");
  g_hash_table_add (finished, a);
  CHECK_READY ("2,3,5,7");

#undef CHECK_READY
}

static void
test_descendants_ancestors (void)
{
  g_autoptr(SkProject) project = make_diamond ();
  SkNode *a = sk_project_get_node (project, "1");
  SkNode *b = sk_project_get_node (project, "2");
  SkNode *d = sk_project_get_node (project, "4");
  SkNode *e;

  {
    g_autoptr(GPtrArray) descendants = sk_project_get_descendants (project, a);
    g_autoptr(GPtrArray) ancestors = sk_project_get_ancestors (project, a);

    assert_ids (descendants, "2,3,4");
    assert_ids (ancestors, "");
  }

  {
    g_autoptr(GPtrArray) descendants = sk_project_get_descendants (project, d);
    g_autoptr(GPtrArray) ancestors = sk_project_get_ancestors (project, d);

    assert_ids (descendants, "");
    /* Nearest first. */
    assert_ids (ancestors, "2,3,1");
  }

  {
    g_autoptr(GPtrArray) descendants = sk_project_get_descendants (project, b);
    g_autoptr(GPtrArray) ancestors = sk_project_get_ancestors (project, b);

    assert_ids (descendants, "4");
    assert_ids (ancestors, "1");
  }

  /* A node that lists the same prior twice has one edge from it. */
  e = add (project, "5", "e", SK_TEST_STRV ("4", "4"));

  {
    g_autoptr(GPtrArray) successors = sk_project_get_successors (project, d);
    g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (project, e);
    g_autoptr(GPtrArray) descendants = sk_project_get_descendants (project, a);
    g_autoptr(GPtrArray) ancestors = sk_project_get_ancestors (project, e);
    g_autoptr(GPtrArray) blanket = sk_project_get_markov_blanket (project, d);
    g_autoptr(GPtrArray) order = NULL;
    g_autoptr(GError) error = NULL;

    assert_ids (successors, "5");
    assert_ids (priors, "4");
    assert_ids (descendants, "2,3,4,5");
    assert_ids (ancestors, "4,2,3,1");
    assert_ids (blanket, "2,3,5");

    order = sk_project_topological_order (project, &error);
    g_assert_no_error (error);
    assert_ids (order, "1,2,3,4,5");
  }

  /* The graph follows edits of the priors. */
  sk_node_set_priors (e, SK_TEST_STRV ("2"));
  {
    g_autoptr(GPtrArray) successors = sk_project_get_successors (project, d);
    g_autoptr(GPtrArray) descendants = sk_project_get_descendants (project, b);

    assert_ids (successors, "");
    assert_ids (descendants, "4,5");
  }
}

static void
test_markov_blanket_small (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  SkNode *node;

  /* grandparent → parent → node → child → grandchild, with a sibling (another
   * child of parent) and another parent of child.
   */
  add (project, "1", "grandparent", NULL);
  add (project, "2", "parent", SK_TEST_STRV ("1"));
  node = add (project, "3", "node", SK_TEST_STRV ("2"));
  add (project, "4", "child", SK_TEST_STRV ("3"));
  add (project, "5", "grandchild", SK_TEST_STRV ("4"));
  add (project, "6", "sibling", SK_TEST_STRV ("2"));
  add (project, "7", "co-parent", NULL);
  add (project, "8", "second child", SK_TEST_STRV ("7", "3"));

  {
    g_autoptr(GPtrArray) blanket = sk_project_get_markov_blanket (project, node);

    /* Priors first, then successors. */
    assert_ids (blanket, "2,4,8");
  }
}

static void
test_markov_blanket_generated (void)
{
  g_autoptr(SkProject) project = make_generated (20260101);
  guint n_nodes = sk_project_get_n_nodes (project);
  guint with_both = 0;

  g_assert_cmpuint (n_nodes, ==, N_GENERATED);

  for (guint i = 0; i < n_nodes; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      g_autoptr(GHashTable) expected = g_hash_table_new (NULL, NULL);
      g_autoptr(GHashTable) expected_priors = g_hash_table_new (NULL, NULL);
      g_autoptr(GPtrArray) blanket = sk_project_get_markov_blanket (project, node);
      const char * const *priors = sk_node_get_priors (node);
      guint n_priors = 0;
      guint n_successors = 0;

      /* Brute force, from the priors lists only. */
      for (guint j = 0; priors[j] != NULL; j++)
        {
          SkNode *prior = sk_project_get_node (project, priors[j]);

          g_assert_nonnull (prior);
          g_hash_table_add (expected, prior);
          g_hash_table_add (expected_priors, prior);
        }
      n_priors = g_hash_table_size (expected_priors);

      for (guint j = 0; j < n_nodes; j++)
        {
          g_autoptr(SkNode) other = g_list_model_get_item (G_LIST_MODEL (project), j);

          if (sk_node_has_prior (other, sk_node_get_id (node)))
            {
              g_hash_table_add (expected, other);
              n_successors++;
            }
        }

      g_assert_false (g_hash_table_contains (expected, node));
      assert_same_set (blanket, expected);

      /* The priors come first. */
      for (guint j = 0; j < blanket->len; j++)
        g_assert_cmpint (j < n_priors, ==,
                         g_hash_table_contains (expected_priors, g_ptr_array_index (blanket, j)));

      if (n_priors > 0 && n_successors > 0)
        with_both++;
    }

  /* The generated graph is not trivial. */
  g_assert_cmpuint (with_both, >, 10);
}

static void
test_can_connect (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GError) error = NULL;
  SkNode *load = add (project, "1", "Load Sales", NULL);
  SkNode *totals = add (project, "2", "Monthly Totals", SK_TEST_STRV ("1"));
  SkNode *chart = add (project, "3", "Revenue Chart", SK_TEST_STRV ("2"));
  SkNode *notes = add (project, "4", "Notes", NULL);

  /* A step cannot need itself. */
  g_assert_false (sk_project_can_connect (project, load, load, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE);
  g_assert_cmpstr (error->message, !=, "");
  g_clear_error (&error);

  /* The edge exists already. */
  g_assert_false (sk_project_can_connect (project, load, totals, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "“Monthly Totals”"));
  g_assert_nonnull (strstr (error->message, "“Load Sales”"));
  g_clear_error (&error);

  /* Direct and indirect cycles. */
  g_assert_false (sk_project_can_connect (project, totals, load, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE);
  g_assert_nonnull (strstr (error->message, "“Load Sales”"));
  g_assert_nonnull (strstr (error->message, "“Monthly Totals”"));
  g_clear_error (&error);

  g_assert_false (sk_project_can_connect (project, chart, load, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE);
  g_assert_nonnull (strstr (error->message, "“Load Sales”"));
  g_assert_nonnull (strstr (error->message, "“Revenue Chart”"));
  g_clear_error (&error);

  /* Shortcuts and new branches are fine. */
  g_assert_true (sk_project_can_connect (project, load, chart, &error));
  g_assert_no_error (error);
  g_assert_true (sk_project_can_connect (project, chart, notes, &error));
  g_assert_no_error (error);
  g_assert_true (sk_project_can_connect (project, notes, load, &error));
  g_assert_no_error (error);

  /* After connecting, the reverse edge would make a cycle. */
  g_assert_true (sk_node_add_prior (load, "4"));
  g_assert_false (sk_project_can_connect (project, chart, notes, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE);
  g_clear_error (&error);
}

static void
test_next_node_id (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autofree char *first = NULL;
  g_autofree char *next = NULL;
  g_autofree char *after_text = NULL;

  first = sk_project_next_node_id (project);
  g_assert_cmpstr (first, ==, "1");

  add (project, "1", "a", NULL);
  add (project, "7", "b", NULL);
  add (project, "3", "c", NULL);
  next = sk_project_next_node_id (project);
  g_assert_cmpstr (next, ==, "8");

  /* Identifiers that are not numbers do not count. */
  add (project, "load", "d", NULL);
  add (project, "99x", "e", NULL);
  after_text = sk_project_next_node_id (project);
  g_assert_cmpstr (after_text, ==, "8");
  g_assert_null (sk_project_get_node (project, after_text));
}

static void
test_unique_name (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  g_autofree char *other = NULL;

  first = sk_project_unique_name (project, "step");
  g_assert_cmpstr (first, ==, "step");
  add (project, "1", first, NULL);

  /* The key decides, so "Step" is taken too. */
  second = sk_project_unique_name (project, "Step");
  g_assert_cmpstr (second, ==, "Step 2");
  add (project, "2", second, NULL);

  third = sk_project_unique_name (project, "step");
  g_assert_cmpstr (third, ==, "step 3");

  other = sk_project_unique_name (project, "load sales");
  g_assert_cmpstr (other, ==, "load sales");
}

static void
test_check_name (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GError) error = NULL;
  SkNode *load = add (project, "1", "Load Sales", NULL);
  SkNode *totals = add (project, "2", "Totals", NULL);

  /* A new node. */
  g_assert_true (sk_project_check_name (project, NULL, "Chart", &error));
  g_assert_no_error (error);

  g_assert_false (sk_project_check_name (project, NULL, "load-sales", &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "Load Sales"));
  g_assert_nonnull (strstr (error->message, "load_sales"));
  g_clear_error (&error);

  g_assert_false (sk_project_check_name (project, NULL, "!!!", &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "!!!"));
  g_clear_error (&error);

  g_assert_false (sk_project_check_name (project, NULL, "", &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_clear_error (&error);

  /* Renaming a node to a name with its own key is fine, to another's is not. */
  g_assert_true (sk_project_check_name (project, load, "LOAD  sales!", &error));
  g_assert_no_error (error);
  g_assert_false (sk_project_check_name (project, totals, "load sales", &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_clear_error (&error);
}

static void
test_mark_stale (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  SkNode *a = add (project, "1", "a", NULL);
  SkNode *b = add (project, "2", "b", SK_TEST_STRV ("1"));
  SkNode *c = add (project, "3", "c", SK_TEST_STRV ("2"));
  SkNode *d = add (project, "4", "d", SK_TEST_STRV ("2"));
  SkNode *e = add (project, "5", "e", NULL);
  SkNode *f = add (project, "6", "f", SK_TEST_STRV ("3"));

  sk_node_set_state (a, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_state (b, SK_NODE_STATE_FAILED);
  sk_node_set_state (c, SK_NODE_STATE_UP_TO_DATE);
  sk_node_set_state (d, SK_NODE_STATE_SKIPPED);
  sk_node_set_state (e, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_state (f, SK_NODE_STATE_CANCELLED);

  sk_project_mark_stale (project, b);
  g_assert_cmpint (sk_node_get_state (a), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (sk_node_get_state (b), ==, SK_NODE_STATE_STALE);
  g_assert_cmpint (sk_node_get_state (c), ==, SK_NODE_STATE_STALE);
  g_assert_cmpint (sk_node_get_state (d), ==, SK_NODE_STATE_STALE);
  g_assert_cmpint (sk_node_get_state (e), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (sk_node_get_state (f), ==, SK_NODE_STATE_STALE);

  /* Nodes that have not finished keep their state. */
  sk_node_set_state (a, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_state (b, SK_NODE_STATE_RUNNING);
  sk_node_set_state (c, SK_NODE_STATE_QUEUED);
  sk_node_set_state (d, SK_NODE_STATE_IDLE);
  sk_node_set_state (f, SK_NODE_STATE_SUCCEEDED);
  sk_project_mark_stale (project, a);
  g_assert_cmpint (sk_node_get_state (a), ==, SK_NODE_STATE_STALE);
  g_assert_cmpint (sk_node_get_state (b), ==, SK_NODE_STATE_RUNNING);
  g_assert_cmpint (sk_node_get_state (c), ==, SK_NODE_STATE_QUEUED);
  g_assert_cmpint (sk_node_get_state (d), ==, SK_NODE_STATE_IDLE);
  g_assert_cmpint (sk_node_get_state (f), ==, SK_NODE_STATE_STALE);

  /* Editing what a node does marks it and what follows it. */
  sk_node_set_state (a, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_state (b, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_state (c, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_state (d, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_state (f, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_input_text (c, "do it differently");
  g_assert_cmpint (sk_node_get_state (a), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (sk_node_get_state (b), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (sk_node_get_state (c), ==, SK_NODE_STATE_STALE);
  g_assert_cmpint (sk_node_get_state (d), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (sk_node_get_state (e), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (sk_node_get_state (f), ==, SK_NODE_STATE_STALE);

  /* Moving a node on the canvas changes nothing it computes. */
  sk_node_set_state (c, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_state (f, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_position (c, 100, 200);
  g_assert_cmpint (sk_node_get_state (c), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpint (sk_node_get_state (f), ==, SK_NODE_STATE_SUCCEEDED);
}

/* Problems ---------------------------------------------------------------- */

/* Returns the problem of @kind whose main step is @node_id. */
static const SkProblem *
find_problem (GPtrArray     *problems,
              SkProblemKind  kind,
              const char    *node_id)
{
  for (guint i = 0; i < problems->len; i++)
    {
      const SkProblem *problem = g_ptr_array_index (problems, i);

      if (problem->kind == kind && g_strcmp0 (problem->node_id, node_id) == 0)
        return problem;
    }

  g_error ("no problem of kind %d about %s", kind, node_id);
  return NULL;
}

static void
assert_joined (char       **strv,
               const char  *expected)
{
  g_autofree char *joined = NULL;

  g_assert_nonnull (strv);
  joined = g_strjoinv (",", strv);
  g_assert_cmpstr (joined, ==, expected);
}

/* A workflow with the three problems of issue 11: a cycle between “Totals”
 * and “Chart”, a prior that does not exist, and two names that make the
 * folder “load”. */
static SkProject *
three_problems (void)
{
  SkProject *project = sk_project_new (NULL);

  add (project, "1", "Load", NULL);
  add (project, "2", "Totals", SK_TEST_STRV ("1", "3"));
  add (project, "3", "Chart", SK_TEST_STRV ("2"));
  add (project, "4", "Report", SK_TEST_STRV ("9"));
  add (project, "5", "LOAD", NULL);

  return project;
}

static void
test_problem_concerns (void)
{
  g_autoptr(SkProject) project = three_problems ();
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(SkProblem) copy = NULL;
  const SkProblem *problem;

  add (project, "6", "Itself", SK_TEST_STRV ("6"));
  problems = sk_project_validate (project);
  g_assert_cmpuint (problems->len, ==, 4);

  problem = find_problem (problems, SK_PROBLEM_DUPLICATE_KEY, "5");
  assert_joined (problem->node_ids, "1,5");
  assert_joined (problem->edge_pairs, "");
  sk_test_assert_contains (problem->message, "The steps “Load” and “LOAD” would share the folder “load”");

  problem = find_problem (problems, SK_PROBLEM_DANGLING_PRIOR, "4");
  assert_joined (problem->node_ids, "4");
  assert_joined (problem->edge_pairs, "9,4");
  sk_test_assert_contains (problem->message, "There is no step “9”, but “Report” needs it");

  problem = find_problem (problems, SK_PROBLEM_CYCLE, "6");
  assert_joined (problem->node_ids, "6");
  assert_joined (problem->edge_pairs, "6,6");

  /* The circle in the order its results flow: “Chart” needs “Totals”, and
   * “Totals” needs “Chart”. */
  problem = find_problem (problems, SK_PROBLEM_CYCLE, "2");
  assert_joined (problem->node_ids, "3,2");
  assert_joined (problem->edge_pairs, "3,2,2,3");
  sk_test_assert_contains (problem->message, "“Chart” → “Totals” → “Chart”");

  /* The user's words: steps, not nodes, and no identifiers for named steps. */
  for (guint i = 0; i < problems->len; i++)
    {
      const SkProblem *each = g_ptr_array_index (problems, i);

      g_assert_null (strstr (each->message, "node"));
      g_assert_null (strstr (each->message, "(1)"));
    }

  copy = sk_problem_copy (problem);
  g_assert_cmpint (copy->kind, ==, SK_PROBLEM_CYCLE);
  g_assert_cmpstr (copy->node_id, ==, "2");
  g_assert_cmpstr (copy->message, ==, problem->message);
  assert_joined (copy->node_ids, "3,2");
  assert_joined (copy->edge_pairs, "3,2,2,3");
}

/* Each group of steps that need each other is a problem of its own, even
 * downstream of another, and concerns every step and connection in it. */
static void
test_problem_cycle_groups (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GPtrArray) problems = NULL;
  const SkProblem *problem;

  add (project, "1", "a", SK_TEST_STRV ("2"));
  add (project, "2", "b", SK_TEST_STRV ("1"));
  add (project, "3", "c", SK_TEST_STRV ("2", "5"));
  add (project, "4", "d", SK_TEST_STRV ("3"));
  add (project, "5", "e", SK_TEST_STRV ("4", "3"));
  add (project, "6", "f", SK_TEST_STRV ("5"));

  problems = sk_project_validate (project);
  g_assert_cmpuint (problems->len, ==, 2);

  problem = find_problem (problems, SK_PROBLEM_CYCLE, "1");
  assert_joined (problem->node_ids, "2,1");
  assert_joined (problem->edge_pairs, "2,1,1,2");

  /* “c”, “d” and “e” reach each other by two circles; the message names
   * one, and the other connection is concerned as well. “f” is only
   * downstream. */
  problem = find_problem (problems, SK_PROBLEM_CYCLE, "3");
  assert_joined (problem->node_ids, "4,5,3");
  assert_joined (problem->edge_pairs, "4,5,5,3,3,4,3,5");
  sk_test_assert_contains (problem->message, "“d” → “e” → “c” → “d”");
}

static GPtrArray *
new_problems_after (SkProject *project,
                    GPtrArray *before)
{
  g_autoptr(GPtrArray) after = sk_project_validate (project);

  return sk_problems_new_since (before, after);
}

static void
test_problems_new_since (void)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GPtrArray) added = NULL;
  const SkProblem *problem;

  /* Each fix of one of the three problems makes nothing new. */
  project = three_problems ();
  before = sk_project_validate (project);
  g_assert_cmpuint (sk_problems_count_errors (before), ==, 3);

  sk_node_set_priors (sk_project_get_node (project, "3"), SK_TEST_STRV (NULL));
  added = new_problems_after (project, before);
  g_assert_cmpuint (added->len, ==, 0);
  g_clear_pointer (&added, g_ptr_array_unref);
  g_clear_object (&project);

  project = three_problems ();
  sk_node_set_priors (sk_project_get_node (project, "4"), SK_TEST_STRV ("1"));
  added = new_problems_after (project, before);
  g_assert_cmpuint (added->len, ==, 0);
  g_clear_pointer (&added, g_ptr_array_unref);
  g_clear_object (&project);

  project = three_problems ();
  sk_node_set_name (sk_project_get_node (project, "5"), "Summary");
  added = new_problems_after (project, before);
  g_assert_cmpuint (added->len, ==, 0);
  g_clear_pointer (&added, g_ptr_array_unref);
  g_clear_object (&project);

  /* Renaming a step of the cycle changes its message, not the problem. */
  project = three_problems ();
  sk_node_set_name (sk_project_get_node (project, "3"), "Revenue Chart");
  added = new_problems_after (project, before);
  g_assert_cmpuint (added->len, ==, 0);
  g_clear_pointer (&added, g_ptr_array_unref);
  g_clear_object (&project);

  /* A new circle is new, even through steps of the old one. */
  project = three_problems ();
  sk_node_set_priors (sk_project_get_node (project, "1"), SK_TEST_STRV ("2"));
  added = new_problems_after (project, before);
  g_assert_cmpuint (added->len, ==, 1);
  problem = g_ptr_array_index (added, 0);
  g_assert_cmpint (problem->kind, ==, SK_PROBLEM_CYCLE);
  g_assert_false (problem->is_warning);
  g_assert_true (g_strv_contains ((const char * const *) problem->node_ids, "1"));
  g_clear_pointer (&added, g_ptr_array_unref);
  g_clear_object (&project);

  /* Even when the circle the message names is the old one: the new
   * connection is among those the problem concerns. */
  project = three_problems ();
  sk_node_set_priors (sk_project_get_node (project, "2"), SK_TEST_STRV ("3", "1"));
  g_clear_pointer (&before, g_ptr_array_unref);
  before = sk_project_validate (project);
  sk_node_set_priors (sk_project_get_node (project, "1"), SK_TEST_STRV ("2"));
  added = new_problems_after (project, before);
  g_assert_cmpuint (added->len, ==, 1);
  problem = g_ptr_array_index (added, 0);
  g_assert_cmpint (problem->kind, ==, SK_PROBLEM_CYCLE);
  sk_test_assert_contains (problem->message, "“Chart” → “Totals” → “Chart”");
  assert_joined (problem->edge_pairs, "3,2,2,3,2,1,1,2");
  g_clear_pointer (&added, g_ptr_array_unref);
  g_clear_object (&project);
  g_clear_pointer (&before, g_ptr_array_unref);

  project = three_problems ();
  before = sk_project_validate (project);

  /* So are a second missing prior and a second clash. */
  project = three_problems ();
  sk_node_set_priors (sk_project_get_node (project, "4"), SK_TEST_STRV ("9", "8"));
  sk_node_set_name (sk_project_get_node (project, "3"), "totals");
  added = new_problems_after (project, before);
  g_assert_cmpuint (added->len, ==, 2);
  g_assert_cmpint (((SkProblem *) g_ptr_array_index (added, 0))->kind, ==, SK_PROBLEM_DUPLICATE_KEY);
  g_assert_cmpint (((SkProblem *) g_ptr_array_index (added, 1))->kind, ==, SK_PROBLEM_DANGLING_PRIOR);
  assert_joined (((SkProblem *) g_ptr_array_index (added, 1))->edge_pairs, "8,4");
  g_clear_pointer (&added, g_ptr_array_unref);
  g_clear_object (&project);
}

/* Three steps whose names make one folder: renaming any one of them leaves
 * a clash between the other two, which is not new. */
static void
test_problems_new_since_clash_of_three (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GPtrArray) added = NULL;

  add (project, "1", "Load", NULL);
  add (project, "2", "load", NULL);
  add (project, "3", "LOAD", NULL);
  before = sk_project_validate (project);
  g_assert_cmpuint (before->len, ==, 2);

  sk_node_set_name (sk_project_get_node (project, "1"), "Read");
  added = new_problems_after (project, before);
  g_assert_cmpuint (added->len, ==, 0);
}

static void
test_problems_summary (void)
{
  g_autoptr(SkProject) project = three_problems ();
  g_autoptr(GPtrArray) problems = sk_project_validate (project);
  g_autoptr(GPtrArray) none = g_ptr_array_new ();
  g_autoptr(SkProject) one = sk_project_new (NULL);
  g_autoptr(GPtrArray) one_problem = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *empty = NULL;
  g_autofree char *single = NULL;

  summary = sk_problems_summary (problems);
  g_assert_cmpstr (summary, ==, "This workflow has 3 problems");

  add (one, "1", "a", SK_TEST_STRV ("1"));
  one_problem = sk_project_validate (one);
  single = sk_problems_summary (one_problem);
  g_assert_cmpstr (single, ==, "This workflow has 1 problem");

  empty = sk_problems_summary (none);
  g_assert_cmpstr (empty, ==, "This workflow has no problems");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/graph/topological/order", test_topological_order);
  g_test_add_func ("/graph/topological/file-order", test_topological_file_order);
  g_test_add_func ("/graph/topological/generated", test_topological_generated);
  g_test_add_func ("/graph/topological/cycle", test_topological_cycle);
  g_test_add_func ("/graph/ready", test_ready);
  g_test_add_func ("/graph/descendants-ancestors", test_descendants_ancestors);
  g_test_add_func ("/graph/markov-blanket/small", test_markov_blanket_small);
  g_test_add_func ("/graph/markov-blanket/generated", test_markov_blanket_generated);
  g_test_add_func ("/graph/can-connect", test_can_connect);
  g_test_add_func ("/graph/next-node-id", test_next_node_id);
  g_test_add_func ("/graph/unique-name", test_unique_name);
  g_test_add_func ("/graph/check-name", test_check_name);
  g_test_add_func ("/graph/mark-stale", test_mark_stale);
  g_test_add_func ("/graph/problems/concerns", test_problem_concerns);
  g_test_add_func ("/graph/problems/cycle-groups", test_problem_cycle_groups);
  g_test_add_func ("/graph/problems/new-since", test_problems_new_since);
  g_test_add_func ("/graph/problems/new-since-clash-of-three", test_problems_new_since_clash_of_three);
  g_test_add_func ("/graph/problems/summary", test_problems_summary);

  return g_test_run ();
}
