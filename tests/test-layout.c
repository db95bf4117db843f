/* test-layout.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Arranges small workflows with Graphviz and checks the geometry.
 */

#define G_LOG_DOMAIN "test-layout"

#include <math.h>

#include "sk-layout.h"
#include "sk-project.h"

#define WIDTH 160.0
#define HEIGHT 60.0

typedef struct
{
  GMainLoop         *loop;
  GHashTable        *positions;
  GError            *error;
  SkLayoutDirection  direction;
} Result;

static SkNode *
add (SkProject  *project,
     const char *id,
     const char *priors)
{
  g_autofree char *name = g_strdup_printf ("step %s", id);
  g_autoptr(SkNode) node = sk_node_new (id, name);
  g_autoptr(GError) error = NULL;

  if (priors != NULL)
    {
      g_auto(GStrv) ids = g_strsplit (priors, " ", -1);

      sk_node_set_priors (node, (const char * const *) ids);
    }

  sk_project_add_node (project, node, &error);
  g_assert_no_error (error);
  return node;
}

static void
arranged_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Result *outcome = user_data;

  outcome->positions = sk_layout_arrange_finish (SK_PROJECT (object), result, NULL, &outcome->error);
  g_main_loop_quit (outcome->loop);
}

static void
arranged_to_fit_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Result *outcome = user_data;

  outcome->positions = sk_layout_arrange_finish (SK_PROJECT (object), result,
                                                 &outcome->direction, &outcome->error);
  g_main_loop_quit (outcome->loop);
}

static GHashTable *
arrange_in (SkProject         *project,
            SkLayoutDirection  direction,
            GCancellable      *cancellable,
            GError           **error)
{
  Result outcome = { 0 };

  outcome.loop = g_main_loop_new (NULL, FALSE);
  sk_layout_arrange_async (project, WIDTH, HEIGHT, direction, cancellable, arranged_cb, &outcome);
  g_main_loop_run (outcome.loop);
  g_main_loop_unref (outcome.loop);

  if (outcome.error != NULL)
    g_propagate_error (error, outcome.error);

  return outcome.positions;
}

static GHashTable *
arrange (SkProject    *project,
         GCancellable *cancellable,
         GError      **error)
{
  return arrange_in (project, SK_LAYOUT_DIRECTION_DOWN, cancellable, error);
}

/* Arranges @project to fit a view of @width × @height, and says which
 * direction was chosen. */
static GHashTable *
arrange_to_fit (SkProject         *project,
                double             width,
                double             height,
                SkLayoutDirection *direction)
{
  Result outcome = { 0 };

  outcome.loop = g_main_loop_new (NULL, FALSE);
  sk_layout_arrange_to_fit_async (project, WIDTH, HEIGHT, width, height, NULL, arranged_to_fit_cb, &outcome);
  g_main_loop_run (outcome.loop);
  g_main_loop_unref (outcome.loop);

  g_assert_no_error (outcome.error);
  *direction = outcome.direction;

  return outcome.positions;
}

static const SkLayoutPoint *
at (GHashTable *positions,
    const char *id)
{
  const SkLayoutPoint *point = g_hash_table_lookup (positions, id);

  g_assert_nonnull (point);
  return point;
}

static void
assert_no_overlap (GHashTable *positions)
{
  g_autoptr(GList) points = g_hash_table_get_values (positions);

  for (const GList *a = points; a != NULL; a = a->next)
    {
      for (const GList *b = a->next; b != NULL; b = b->next)
        {
          const SkLayoutPoint *p = a->data;
          const SkLayoutPoint *q = b->data;

          g_assert_true (fabs (p->x - q->x) >= WIDTH || fabs (p->y - q->y) >= HEIGHT);
        }
    }
}

static void
test_chain (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GHashTable) positions = NULL;
  g_autoptr(GError) error = NULL;

  add (project, "1", NULL);
  add (project, "2", "1");
  add (project, "3", "2");

  positions = arrange (project, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (positions), ==, 3);

  /* Results flow downwards: each step is below the one it needs. */
  g_assert_cmpfloat (at (positions, "1")->y + HEIGHT, <=, at (positions, "2")->y);
  g_assert_cmpfloat (at (positions, "2")->y + HEIGHT, <=, at (positions, "3")->y);
  g_assert_cmpfloat_with_epsilon (at (positions, "1")->x, at (positions, "3")->x, 1.0);
  g_assert_cmpfloat (at (positions, "1")->y, >=, HEIGHT / 2 - 1);
}

static void
test_left_to_right (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GHashTable) positions = NULL;
  g_autoptr(GError) error = NULL;

  add (project, "1", NULL);
  add (project, "2", "1");
  add (project, "3", "2");
  add (project, "4", "2");

  positions = arrange_in (project, SK_LAYOUT_DIRECTION_RIGHT, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (positions), ==, 4);

  /* Results flow to the right: each step is right of the one it needs, and
   * steps that need the same one are above each other. */
  g_assert_cmpfloat (at (positions, "1")->x + WIDTH, <=, at (positions, "2")->x);
  g_assert_cmpfloat (at (positions, "2")->x + WIDTH, <=, at (positions, "3")->x);
  g_assert_cmpfloat_with_epsilon (at (positions, "3")->x, at (positions, "4")->x, 0.5);
  g_assert_cmpfloat (fabs (at (positions, "3")->y - at (positions, "4")->y), >=, HEIGHT);
  g_assert_cmpfloat (at (positions, "1")->x, >=, WIDTH / 2 - 1);
  assert_no_overlap (positions);
}

/* Arranging to fit a view keeps the direction whose layout the view shows
 * larger: a long chain goes across a wide view and down a tall one. */
static void
test_to_fit (void)
{
  g_autoptr(SkProject) chain = sk_project_new (NULL);
  g_autoptr(SkProject) fan = sk_project_new (NULL);
  g_autoptr(GHashTable) positions = NULL;
  SkLayoutDirection direction = SK_LAYOUT_DIRECTION_DOWN;

  for (guint i = 1; i <= 8; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_autofree char *prior = i > 1 ? g_strdup_printf ("%u", i - 1) : NULL;

      add (chain, id, prior);
    }

  positions = arrange_to_fit (chain, 1600, 300, &direction);
  g_assert_cmpint (direction, ==, SK_LAYOUT_DIRECTION_RIGHT);
  g_assert_cmpfloat (at (positions, "1")->x + WIDTH, <=, at (positions, "2")->x);
  g_clear_pointer (&positions, g_hash_table_unref);

  positions = arrange_to_fit (chain, 400, 900, &direction);
  g_assert_cmpint (direction, ==, SK_LAYOUT_DIRECTION_DOWN);
  g_assert_cmpfloat (at (positions, "1")->y + HEIGHT, <=, at (positions, "2")->y);
  g_clear_pointer (&positions, g_hash_table_unref);

  /* One step feeding twelve: wide from top to bottom, so a wide view takes
   * it that way, and a tall view the other. */
  add (fan, "0", NULL);
  for (guint i = 1; i <= 12; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);

      add (fan, id, "0");
    }

  positions = arrange_to_fit (fan, 1600, 500, &direction);
  g_assert_cmpint (direction, ==, SK_LAYOUT_DIRECTION_DOWN);
  g_clear_pointer (&positions, g_hash_table_unref);
  positions = arrange_to_fit (fan, 500, 1600, &direction);
  g_assert_cmpint (direction, ==, SK_LAYOUT_DIRECTION_RIGHT);
  assert_no_overlap (positions);
}

static void
test_diamond (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GHashTable) positions = NULL;
  g_autoptr(GError) error = NULL;

  add (project, "1", NULL);
  add (project, "2", "1");
  add (project, "3", "1");
  add (project, "4", "2 3");

  positions = arrange (project, NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpfloat_with_epsilon (at (positions, "2")->y, at (positions, "3")->y, 0.5);
  g_assert_cmpfloat (fabs (at (positions, "2")->x - at (positions, "3")->x), >=, WIDTH);
  g_assert_cmpfloat (at (positions, "4")->y, >, at (positions, "2")->y);
  assert_no_overlap (positions);
}

static void
test_generated (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GHashTable) first = NULL;
  g_autoptr(GHashTable) second = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  GHashTableIter iter;
  gpointer key, value;

  for (guint i = 1; i <= 200; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_autofree char *priors = NULL;

      if (i > 1)
        priors = g_strdup_printf ("%u", g_rand_int_range (rand, 1, i));
      add (project, id, priors);
    }

  first = arrange (project, NULL, &error);
  g_assert_no_error (error);
  second = arrange (project, NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (g_hash_table_size (first), ==, 200);
  assert_no_overlap (first);

  /* The same workflow is arranged the same way every time. */
  g_hash_table_iter_init (&iter, first);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const SkLayoutPoint *p = value;
      const SkLayoutPoint *q = at (second, key);

      g_assert_cmpfloat (p->x, ==, q->x);
      g_assert_cmpfloat (p->y, ==, q->y);
    }
}

static void
test_apply (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GHashTable) positions = NULL;
  g_autoptr(GError) error = NULL;
  SkNode *one = add (project, "1", NULL);
  SkNode *two = add (project, "2", "1");
  double x, y;

  g_assert_false (sk_node_get_position (one, NULL, NULL));

  positions = arrange (project, NULL, &error);
  g_assert_no_error (error);

  /* Arranging computes; nothing moves until the positions are applied. */
  g_assert_false (sk_node_get_position (one, NULL, NULL));
  sk_project_set_modified (project, FALSE);
  sk_layout_apply (project, positions);

  g_assert_true (sk_node_get_position (two, &x, &y));
  g_assert_cmpfloat (x, ==, at (positions, "2")->x);
  g_assert_cmpfloat (y, ==, at (positions, "2")->y);
  g_assert_true (sk_project_get_modified (project));
}

static void
test_empty_and_cancelled (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GHashTable) positions = NULL;
  g_autoptr(GHashTable) none = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;

  positions = arrange (project, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (positions), ==, 0);

  add (project, "1", NULL);
  g_cancellable_cancel (cancellable);
  none = arrange (project, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (none);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/layout/chain", test_chain);
  g_test_add_func ("/layout/left-to-right", test_left_to_right);
  g_test_add_func ("/layout/to-fit", test_to_fit);
  g_test_add_func ("/layout/diamond", test_diamond);
  g_test_add_func ("/layout/generated", test_generated);
  g_test_add_func ("/layout/apply", test_apply);
  g_test_add_func ("/layout/empty-and-cancelled", test_empty_and_cancelled);

  return g_test_run ();
}
