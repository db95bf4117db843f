/* test-history.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sk-history-private.h"
#include "sk-project.h"
#include "sk-test-util.h"

/* Step 2 has an edge in (from 1) and two out (to 3 and 4). Members this
 * program does not know sit at every level, and step 1 has results and
 * runner-owned "skele" members.
 */
static const char sample_json[] =
  "{\n"
  "  \"process_name\": \"Report\",\n"
  "  \"process_description\": \"Monthly report\",\n"
  "  \"author\": \"ana\",\n"
  "  \"skele\": {\"python\": \"/usr/bin/python3\", \"theme\": \"dark\"},\n"
  "  \"nodes\": {\n"
  "    \"1\": {\"name\": \"Load\", \"priors\": [],\n"
  "          \"input\": {\"text\": \"Read sales.csv\", \"files\": [\"sales.csv\"]},\n"
  "          \"output\": {\"text\": \"12 rows\", \"files\": [\"load.pkl\"]},\n"
  "          \"skele\": {\"x\": 0, \"y\": 0, \"tokens\": 5}},\n"
  "    \"2\": {\"name\": \"Clean\", \"priors\": [\"1\"],\n"
  "          \"input\": {\"text\": \"Drop empty rows\"},\n"
  "          \"skele\": {\"x\": 0, \"y\": 100}},\n"
  "    \"3\": {\"name\": \"Chart\", \"priors\": [\"2\"],\n"
  "          \"input\": {\"text\": \"Plot totals\"},\n"
  "          \"skele\": {\"x\": 0, \"y\": 200}, \"owner\": \"bo\"},\n"
  "    \"4\": {\"name\": \"Summary\", \"priors\": [\"1\", \"2\"],\n"
  "          \"input\": {\"text\": \"Write a summary\"},\n"
  "          \"skele\": {\"x\": 200, \"y\": 100}}\n"
  "  }\n"
  "}\n";

typedef struct
{
  SkProject *project;
  SkHistory *history;
} Fixture;

static void
run_idles (void)
{
  while (g_main_context_iteration (NULL, FALSE));
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->project = sk_project_load_from_data (sample_json, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fixture->project);

  fixture->history = sk_history_new (fixture->project);
  g_assert_true (sk_history_get_project (fixture->history) == fixture->project);
  g_assert_false (sk_history_get_can_undo (fixture->history));
  g_assert_false (sk_history_get_can_redo (fixture->history));
  g_assert_null (sk_history_get_undo_label (fixture->history));
  g_assert_null (sk_history_get_redo_label (fixture->history));
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  run_idles ();
  g_assert_finalize_object (fixture->history);
  run_idles ();
  g_assert_finalize_object (fixture->project);
}

static SkNode *
node (Fixture    *fixture,
      const char *id)
{
  SkNode *found = sk_project_get_node (fixture->project, id);

  g_assert_nonnull (found);
  return found;
}

static char *
data (Fixture *fixture)
{
  return sk_project_to_data (fixture->project, NULL);
}

static guint
index_of (Fixture    *fixture,
          const char *id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (fixture->project));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) each = g_list_model_get_item (G_LIST_MODEL (fixture->project), i);

      if (g_str_equal (sk_node_get_id (each), id))
        return i;
    }

  return G_MAXUINT;
}

static void
assert_position (SkNode *node,
                 double  x,
                 double  y)
{
  double actual_x = -1, actual_y = -1;

  g_assert_true (sk_node_get_position (node, &actual_x, &actual_y));
  g_assert_cmpfloat (actual_x, ==, x);
  g_assert_cmpfloat (actual_y, ==, y);
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *count)
{
  (*count)++;
}

static guint
count_undos (SkHistory *history)
{
  guint n = 0;

  while (sk_history_undo (history))
    n++;

  return n;
}

static void
test_add (Fixture       *fixture,
          gconstpointer  unused)
{
  g_autoptr(SkNode) chart = sk_node_new ("9", "Totals chart");
  g_autoptr(GError) error = NULL;
  g_autofree char *before = data (fixture);
  g_autofree char *after = NULL;
  g_autofree char *redone = NULL;
  SkNode *again;

  /* A node is added and then placed and connected in the same dispatch. */
  g_assert_true (sk_project_add_node (fixture->project, chart, &error));
  g_assert_no_error (error);
  sk_node_set_position (chart, 300, 250);
  sk_node_add_prior (chart, "3");
  sk_node_add_prior (node (fixture, "4"), "9");
  g_assert_false (sk_history_get_can_undo (fixture->history));
  run_idles ();

  g_assert_true (sk_history_get_can_undo (fixture->history));
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Add Step");
  after = data (fixture);

  g_assert_true (sk_history_undo (fixture->history));
  g_assert_null (sk_project_get_node (fixture->project, "9"));
  g_assert_cmpuint (sk_project_get_n_nodes (fixture->project), ==, 4);
  g_assert_cmpstrv (sk_node_get_priors (node (fixture, "4")), SK_TEST_STRV ("1", "2"));
  {
    g_autofree char *undone = data (fixture);

    g_assert_cmpstr (undone, ==, before);
  }

  /* Undoing records nothing of its own. */
  run_idles ();
  g_assert_false (sk_history_get_can_undo (fixture->history));
  g_assert_true (sk_history_get_can_redo (fixture->history));
  g_assert_cmpstr (sk_history_get_redo_label (fixture->history), ==, "Add Step");
  g_assert_false (sk_history_undo (fixture->history));

  g_assert_true (sk_history_redo (fixture->history));
  again = node (fixture, "9");
  g_assert_cmpstr (sk_node_get_name (again), ==, "Totals chart");
  g_assert_cmpstrv (sk_node_get_priors (again), SK_TEST_STRV ("3"));
  g_assert_cmpstrv (sk_node_get_priors (node (fixture, "4")), SK_TEST_STRV ("1", "2", "9"));
  assert_position (again, 300, 250);
  g_assert_cmpuint (index_of (fixture, "9"), ==, 4);
  redone = data (fixture);
  g_assert_cmpstr (redone, ==, after);

  run_idles ();
  g_assert_true (sk_history_get_can_undo (fixture->history));
  g_assert_false (sk_history_get_can_redo (fixture->history));
  g_assert_false (sk_history_redo (fixture->history));
}

static void
test_delete (Fixture       *fixture,
             gconstpointer  unused)
{
  g_autofree char *before = data (fixture);
  g_autofree char *after = NULL;
  g_autofree char *undone = NULL;
  g_autofree char *redone = NULL;
  SkNode *clean;

  sk_project_remove_node (fixture->project, node (fixture, "2"));
  g_assert_cmpstrv (sk_node_get_priors (node (fixture, "3")), SK_TEST_STRV (NULL));
  g_assert_cmpstrv (sk_node_get_priors (node (fixture, "4")), SK_TEST_STRV ("1"));
  sk_history_flush (fixture->history);
  after = data (fixture);

  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Delete Step");
  g_assert_true (sk_history_undo (fixture->history));

  clean = node (fixture, "2");
  g_assert_cmpuint (index_of (fixture, "2"), ==, 1);
  g_assert_cmpstr (sk_node_get_name (clean), ==, "Clean");
  g_assert_cmpstr (sk_node_get_input_text (clean), ==, "Drop empty rows");
  g_assert_cmpstrv (sk_node_get_priors (clean), SK_TEST_STRV ("1"));
  assert_position (clean, 0, 100);
  g_assert_cmpstrv (sk_node_get_priors (node (fixture, "3")), SK_TEST_STRV ("2"));
  g_assert_cmpstrv (sk_node_get_priors (node (fixture, "4")), SK_TEST_STRV ("1", "2"));
  undone = data (fixture);
  g_assert_cmpstr (undone, ==, before);

  g_assert_true (sk_history_redo (fixture->history));
  g_assert_null (sk_project_get_node (fixture->project, "2"));
  redone = data (fixture);
  g_assert_cmpstr (redone, ==, after);

  /* The restored node is a node of the workflow like any other. */
  g_assert_true (sk_history_undo (fixture->history));
  sk_node_set_name (node (fixture, "2"), "Tidy");
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Rename Step");
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_name (node (fixture, "2")), ==, "Clean");
}

static void
test_delete_several (Fixture       *fixture,
                     gconstpointer  unused)
{
  g_autoptr(SkNode) extra = sk_node_new ("9", "Extra");
  g_autofree char *before = data (fixture);
  g_autofree char *after = NULL;
  g_autofree char *undone = NULL;
  g_autofree char *redone = NULL;

  /* Removals and additions mixed in one step come back in order. */
  sk_history_begin (fixture->history, NULL);
  sk_project_remove_node (fixture->project, node (fixture, "1"));
  g_assert_true (sk_project_insert_node (fixture->project, 1, extra, NULL));
  sk_project_remove_node (fixture->project, node (fixture, "3"));
  sk_history_end (fixture->history);
  after = data (fixture);

  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Edit Workflow");
  g_assert_true (sk_history_undo (fixture->history));
  undone = data (fixture);
  g_assert_cmpstr (undone, ==, before);
  g_assert_cmpuint (index_of (fixture, "1"), ==, 0);
  g_assert_cmpuint (index_of (fixture, "3"), ==, 2);

  g_assert_true (sk_history_redo (fixture->history));
  redone = data (fixture);
  g_assert_cmpstr (redone, ==, after);
  g_assert_cmpuint (index_of (fixture, "9"), ==, 1);
}

static void
test_delete_two (Fixture       *fixture,
                 gconstpointer  unused)
{
  g_autofree char *before = data (fixture);
  g_autofree char *after = NULL;
  g_autofree char *undone = NULL;
  g_autofree char *redone = NULL;

  /* Putting back 3 before 2 would leave them in the wrong order. */
  sk_project_remove_node (fixture->project, node (fixture, "3"));
  sk_project_remove_node (fixture->project, node (fixture, "2"));
  sk_history_flush (fixture->history);
  after = data (fixture);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Delete Steps");

  g_assert_true (sk_history_undo (fixture->history));
  undone = data (fixture);
  g_assert_cmpstr (undone, ==, before);
  g_assert_cmpuint (index_of (fixture, "2"), ==, 1);
  g_assert_cmpuint (index_of (fixture, "3"), ==, 2);

  g_assert_true (sk_history_redo (fixture->history));
  redone = data (fixture);
  g_assert_cmpstr (redone, ==, after);
}

static void
test_connect (Fixture       *fixture,
              gconstpointer  unused)
{
  SkNode *chart = node (fixture, "3");

  g_assert_true (sk_node_add_prior (chart, "1"));
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Connect Steps");

  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstrv (sk_node_get_priors (chart), SK_TEST_STRV ("2"));
  g_assert_true (sk_history_redo (fixture->history));
  g_assert_cmpstrv (sk_node_get_priors (chart), SK_TEST_STRV ("2", "1"));

  g_assert_true (sk_node_remove_prior (chart, "2"));
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Disconnect Steps");
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstrv (sk_node_get_priors (chart), SK_TEST_STRV ("2", "1"));
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstrv (sk_node_get_priors (chart), SK_TEST_STRV ("2"));
  g_assert_false (sk_history_undo (fixture->history));
}

/* Undoing back to what was saved takes away the unsaved mark; a change
 * after that, or redoing past it, brings it back. */
static void
test_saved_state (Fixture       *fixture,
                  gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");

  sk_project_set_modified (fixture->project, FALSE);

  sk_node_set_name (load, "Load sales");
  sk_history_flush (fixture->history);
  g_assert_true (sk_project_get_modified (fixture->project));
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_false (sk_project_get_modified (fixture->project));
  g_assert_true (sk_history_redo (fixture->history));
  g_assert_true (sk_project_get_modified (fixture->project));

  /* Saved with the rename made, and a change still waiting for its step. */
  sk_node_set_name (load, "Load all sales");
  sk_project_set_modified (fixture->project, FALSE);
  sk_node_set_name (load, "Load every sale");
  sk_history_flush (fixture->history);
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_name (load), ==, "Load all sales");
  g_assert_false (sk_project_get_modified (fixture->project));
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_true (sk_project_get_modified (fixture->project));

  /* Any change after that brings the mark back. */
  sk_history_redo (fixture->history);
  g_assert_false (sk_project_get_modified (fixture->project));
  sk_node_set_name (load, "Load all sales!");
  sk_history_flush (fixture->history);
  g_assert_true (sk_project_get_modified (fixture->project));
}

static void
test_rename (Fixture       *fixture,
             gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");

  sk_node_set_name (load, "Load sales");
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Rename Step");

  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_name (load), ==, "Load");
  g_assert_cmpstr (sk_node_get_key (load), ==, "load");
  g_assert_true (sk_history_redo (fixture->history));
  g_assert_cmpstr (sk_node_get_name (load), ==, "Load sales");

  /* The process's own name is undoable too. */
  sk_project_set_name (fixture->project, "Sales report");
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Rename Workflow");
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_project_get_name (fixture->project), ==, "Report");
  g_assert_cmpstr (sk_node_get_name (load), ==, "Load sales");
}

static void
test_move_group (Fixture       *fixture,
                 gconstpointer  unused)
{
  SkNode *chart = node (fixture, "3");

  sk_history_begin (fixture->history, "Move Step");
  for (guint i = 1; i <= 50; i++)
    {
      sk_node_set_position (chart, i * 2.5, 200 + i);
      /* A drag spans many main loop dispatches. */
      run_idles ();
    }
  g_assert_false (sk_history_get_can_undo (fixture->history));
  sk_history_end (fixture->history);
  run_idles ();

  g_assert_true (sk_history_get_can_undo (fixture->history));
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Move Step");
  g_assert_true (sk_history_undo (fixture->history));
  assert_position (chart, 0, 200);
  g_assert_false (sk_history_get_can_undo (fixture->history));

  g_assert_true (sk_history_redo (fixture->history));
  assert_position (chart, 125, 250);

  /* Without a label, the step is named by what changed. */
  sk_node_set_position (chart, 1, 2);
  sk_node_set_position (node (fixture, "4"), 3, 4);
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Move Steps");
  g_assert_true (sk_history_undo (fixture->history));
  assert_position (chart, 125, 250);
  assert_position (node (fixture, "4"), 200, 100);
}

static const char * const typed[] = { "Read sales.csv!", "R", "Re", "Rea", "Read" };

static void
type_input (Fixture *fixture)
{
  SkNode *load = node (fixture, "1");

  for (guint i = 0; i < G_N_ELEMENTS (typed); i++)
    {
      sk_node_set_input_text (load, typed[i]);
      sk_history_flush (fixture->history);
    }
}

static void
test_typing_merges (Fixture       *fixture,
                    gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");

  /* A long window, so that a slow machine still merges. */
  _sk_history_set_merge_window_us (fixture->history, 600 * G_USEC_PER_SEC);
  type_input (fixture);

  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Edit Task");
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_input_text (load), ==, "Read sales.csv");
  g_assert_false (sk_history_get_can_undo (fixture->history));
  g_assert_true (sk_history_redo (fixture->history));
  g_assert_cmpstr (sk_node_get_input_text (load), ==, "Read");

  /* Undo ends the merging: the next keystroke is a step of its own. */
  sk_node_set_input_text (load, "Read!");
  sk_history_flush (fixture->history);
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_input_text (load), ==, "Read");

  /* Another member, or another node, is another step. */
  sk_node_set_name (load, "Loader");
  sk_history_flush (fixture->history);
  sk_node_set_name (load, "Loader2");
  sk_history_flush (fixture->history);
  sk_node_set_name (node (fixture, "2"), "Cleaner");
  sk_history_flush (fixture->history);
  g_assert_cmpuint (count_undos (fixture->history), ==, 3);
  g_assert_cmpstr (sk_node_get_name (load), ==, "Load");
  g_assert_cmpstr (sk_node_get_input_text (load), ==, "Read sales.csv");

  /* Attaching files is not typing. */
  sk_node_set_input_text (load, "Read it");
  sk_history_flush (fixture->history);
  sk_node_set_input_files (load, SK_TEST_STRV ("a.csv"));
  sk_history_flush (fixture->history);
  g_assert_cmpuint (count_undos (fixture->history), ==, 2);
}

static void
test_typing_no_window (Fixture       *fixture,
                       gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");

  _sk_history_set_merge_window_us (fixture->history, 0);
  type_input (fixture);

  for (guint i = G_N_ELEMENTS (typed) - 1; i > 0; i--)
    {
      g_assert_true (sk_history_undo (fixture->history));
      g_assert_cmpstr (sk_node_get_input_text (load), ==, typed[i - 1]);
    }

  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_input_text (load), ==, "Read sales.csv");
  g_assert_false (sk_history_undo (fixture->history));
}

static void
test_typing_default_window (Fixture       *fixture,
                            gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");

  /* Keystrokes a moment apart make one step by default. */
  sk_node_set_input_text (load, "R");
  run_idles ();
  sk_node_set_input_text (load, "Re");
  run_idles ();
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_input_text (load), ==, "Read sales.csv");
  g_assert_false (sk_history_get_can_undo (fixture->history));
}

static void
test_typing_after_undo (Fixture       *fixture,
                        gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");

  _sk_history_set_merge_window_us (fixture->history, 600 * G_USEC_PER_SEC);
  sk_node_set_input_text (load, "X1");
  sk_history_flush (fixture->history);
  sk_node_set_name (load, "Loader");
  sk_history_flush (fixture->history);
  g_assert_true (sk_history_undo (fixture->history));

  /* The step now on top changed the same text, but an undo came between. */
  sk_node_set_input_text (load, "X12");
  sk_history_flush (fixture->history);
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_input_text (load), ==, "X1");
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_input_text (load), ==, "Read sales.csv");
}

static void
test_typing_back (Fixture       *fixture,
                  gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");

  /* Text typed and deleted again leaves nothing to undo. */
  _sk_history_set_merge_window_us (fixture->history, 600 * G_USEC_PER_SEC);
  sk_node_set_description (load, "x");
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Edit Description");
  sk_node_set_description (load, "");
  sk_history_flush (fixture->history);
  g_assert_false (sk_history_get_can_undo (fixture->history));

  /* Nor does it join the step below. */
  sk_node_set_description (load, "a");
  sk_history_flush (fixture->history);
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_true (sk_history_redo (fixture->history));
  sk_node_set_description (load, "ab");
  sk_history_flush (fixture->history);
  sk_node_set_description (load, "a");
  sk_history_flush (fixture->history);
  sk_node_set_description (load, "ax");
  sk_history_flush (fixture->history);
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_description (load), ==, "a");
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_description (load), ==, "");
  g_assert_false (sk_history_undo (fixture->history));
}

static void
test_runtime_only (Fixture       *fixture,
                   gconstpointer  unused)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) json = NULL;
  g_autoptr(JsonObject) skele = NULL;
  SkNode *load = node (fixture, "1");
  guint notified = 0;

  g_signal_connect (fixture->history, "notify", G_CALLBACK (count_notify_cb), &notified);

  /* What the runner writes is not undoable. */
  sk_node_set_output_text (load, "13 rows");
  sk_node_set_output_files (load, SK_TEST_STRV ("load.pkl", "load.csv"));
  sk_node_set_state (load, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_error (load, "failed", "traceback");

  /* Nor are the runner's and agent's own "skele" members. */
  json = sk_node_to_json (load);
  skele = json_object_ref (json_object_get_object_member (json, "skele"));
  json_object_set_int_member (skele, "tokens", 99);
  g_assert_true (sk_node_update_from_json (load, json, &error));
  g_assert_no_error (error);

  run_idles ();
  g_assert_false (sk_history_get_can_undo (fixture->history));
  g_assert_cmpuint (notified, ==, 0);

  /* A later edit undoes only itself and leaves the results alone (a
   * description does not make the result stale).
   */
  sk_node_set_description (load, "Reads the sales");
  run_idles ();
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_description (load), ==, "");
  g_assert_cmpstr (sk_node_get_output_text (load), ==, "13 rows");
  g_assert_cmpstrv (sk_node_get_output_files (load), SK_TEST_STRV ("load.pkl", "load.csv"));
  g_assert_cmpint (sk_node_get_state (load), ==, SK_NODE_STATE_SUCCEEDED);
  {
    g_autoptr(JsonObject) now = sk_node_to_json (load);

    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (now, "skele"),
                                                 "tokens"), ==, 99);
  }
}

static JsonObject *
parse_object (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));

  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
test_node_json (Fixture       *fixture,
                gconstpointer  unused)
{
  g_autoptr(JsonObject) edited = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = data (fixture);
  g_autofree char *after = NULL;
  g_autofree char *undone = NULL;
  g_autofree char *redone = NULL;
  SkNode *chart = node (fixture, "3");

  edited = parse_object ("{\"name\": \"Bar chart\", \"description\": \"bars\","
                         " \"priors\": [\"2\", \"1\"], \"run\": false,"
                         " \"input\": {\"text\": \"Plot bars\", \"files\": [\"style.mplstyle\"]},"
                         " \"skele\": {\"x\": 50, \"y\": 60}, \"owner\": \"cy\", \"tags\": [1]}");
  g_assert_true (sk_node_update_from_json (chart, edited, &error));
  g_assert_no_error (error);
  run_idles ();
  after = data (fixture);

  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Edit Step");
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_false (sk_history_get_can_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_name (chart), ==, "Chart");
  g_assert_true (sk_node_get_run (chart));
  assert_position (chart, 0, 200);
  undone = data (fixture);
  g_assert_cmpstr (undone, ==, before);

  g_assert_true (sk_history_redo (fixture->history));
  redone = data (fixture);
  g_assert_cmpstr (redone, ==, after);
}

static void
test_project_json (Fixture       *fixture,
                   gconstpointer  unused)
{
  g_autoptr(JsonObject) edited = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = data (fixture);
  g_autofree char *after = NULL;
  g_autofree char *undone = NULL;
  g_autofree char *redone = NULL;

  /* The process JSON editor renames the process, drops step 2, edits
   * step 3 and adds step 7, all at once.
   */
  edited = parse_object ("{\"process_name\": \"Sales report\", \"author\": \"bo\","
                         " \"skele\": {\"python\": \"/opt/python3\"},"
                         " \"nodes\": {"
                         "  \"1\": {\"name\": \"Load\", \"input\": {\"text\": \"Read sales.csv\","
                         "          \"files\": [\"sales.csv\"]},"
                         "         \"output\": {\"text\": \"12 rows\", \"files\": [\"load.pkl\"]},"
                         "         \"skele\": {\"x\": 0, \"y\": 0, \"tokens\": 5}},"
                         "  \"3\": {\"name\": \"Chart\", \"priors\": [\"1\"],"
                         "         \"input\": {\"text\": \"Plot totals\"},"
                         "         \"skele\": {\"x\": 0, \"y\": 200}, \"owner\": \"bo\"},"
                         "  \"4\": {\"name\": \"Summary\", \"priors\": [\"1\"],"
                         "         \"input\": {\"text\": \"Write a summary\"},"
                         "         \"skele\": {\"x\": 200, \"y\": 100}},"
                         "  \"7\": {\"name\": \"Publish\", \"priors\": [\"4\"],"
                         "         \"skele\": {\"x\": 200, \"y\": 300}}}}");
  g_assert_true (sk_project_update_from_json (fixture->project, edited, &error));
  g_assert_no_error (error);
  run_idles ();
  after = data (fixture);
  g_assert_cmpstr (sk_project_get_name (fixture->project), ==, "Sales report");
  g_assert_cmpstr (sk_project_get_python (fixture->project), ==, "/opt/python3");

  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Edit Workflow");
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_false (sk_history_get_can_undo (fixture->history));
  g_assert_cmpstr (sk_project_get_name (fixture->project), ==, "Report");
  g_assert_cmpstr (sk_project_get_description (fixture->project), ==, "Monthly report");
  g_assert_cmpstr (sk_project_get_python (fixture->project), ==, "/usr/bin/python3");
  g_assert_null (sk_project_get_node (fixture->project, "7"));
  g_assert_cmpuint (index_of (fixture, "2"), ==, 1);
  undone = data (fixture);
  g_assert_cmpstr (undone, ==, before);

  g_assert_true (sk_history_redo (fixture->history));
  redone = data (fixture);
  g_assert_cmpstr (redone, ==, after);
}

/* The history keeps states as JSON text: every value must come back as it
 * was, whatever its characters or its number.
 */
static void
test_exact_values (Fixture       *fixture,
                   gconstpointer  unused)
{
  g_autoptr(JsonObject) edited = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = data (fixture);
  g_autofree char *edited_data = NULL;
  g_autofree char *moved_data = NULL;
  g_autofree char *undone = NULL;
  g_autofree char *redone = NULL;
  SkNode *chart = node (fixture, "3");
  double x = 0.1 + 0.2;
  double y = -1e-7;

  edited = parse_object ("{\"name\": \"Tab\\there \\\"quoted\\\" back\\\\slash\","
                         " \"description\": \"line\\nbreak\\r\\u0001\\u001f\\u007f é ✓ \\ud83d\\ude00\","
                         " \"priors\": [\"2\"],"
                         " \"input\": {\"text\": \"\\\"\\\\\", \"files\": [\"a b.csv\"], \"lang\": \"en\"},"
                         " \"skele\": {\"x\": 0, \"y\": 200, \"network\": true,"
                         "            \"read\": [\"/data\"]},"
                         " \"owner\": \"bo\", \"weight\": 2.5, \"count\": 3, \"whole\": 4.0,"
                         " \"big\": 1e300, \"small\": -2.5e-300, \"wide\": 9007199254740993,"
                         " \"precise\": 0.30000000000000004,"
                         " \"nested\": {\"a\": [1, 2.0, null, true, false, \"x\", [], {}]}}");
  g_assert_true (sk_node_update_from_json (chart, edited, &error));
  g_assert_no_error (error);
  sk_history_flush (fixture->history);
  edited_data = data (fixture);

  sk_node_set_position (chart, x, y);
  sk_history_flush (fixture->history);
  moved_data = data (fixture);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Move Step");

  g_assert_true (sk_history_undo (fixture->history));
  assert_position (chart, 0, 200);
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_false (sk_history_get_can_undo (fixture->history));
  undone = data (fixture);
  g_assert_cmpstr (undone, ==, before);

  g_assert_true (sk_history_redo (fixture->history));
  g_clear_pointer (&redone, g_free);
  redone = data (fixture);
  g_assert_cmpstr (redone, ==, edited_data);
  g_assert_cmpstr (sk_node_get_name (chart), ==, "Tab\there \"quoted\" back\\slash");
  g_assert_cmpstr (sk_node_get_description (chart), ==,
                   "line\nbreak\r\001\037\177 é ✓ \xf0\x9f\x98\x80");
  g_assert_cmpstr (sk_node_get_input_text (chart), ==, "\"\\");
  g_assert_true (sk_node_get_network (chart));

  g_assert_true (sk_history_redo (fixture->history));
  assert_position (chart, x, y);
  g_clear_pointer (&redone, g_free);
  redone = data (fixture);
  g_assert_cmpstr (redone, ==, moved_data);
}

/* Bytes that are not UTF-8 cannot be kept as JSON text: undo brings back
 * the text as loading it from a file would, and the rest of the step as
 * it was.
 */
static void
test_invalid_utf8 (Fixture       *fixture,
                   gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");

  /* Two steps, not one text typed. */
  _sk_history_set_merge_window_us (fixture->history, 0);
  sk_node_set_description (load, "bad \xff byte");
  sk_history_flush (fixture->history);
  sk_node_set_description (load, "good");
  sk_history_flush (fixture->history);

  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_description (load), ==, "bad \xef\xbf\xbd byte");
  g_assert_cmpstr (sk_node_get_name (load), ==, "Load");
  g_assert_cmpstr (sk_node_get_input_text (load), ==, "Read sales.csv");
  assert_position (load, 0, 0);

  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_description (load), ==, "");
  g_assert_true (sk_history_redo (fixture->history));
  g_assert_true (sk_history_redo (fixture->history));
  g_assert_cmpstr (sk_node_get_description (load), ==, "good");
}

/* Members this program does not know, written again in another order, are
 * the same step: no change to undo.
 */
static void
test_reordered_members (Fixture       *fixture,
                        gconstpointer  unused)
{
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) second = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = data (fixture);
  g_autofree char *undone = NULL;
  SkNode *chart = node (fixture, "3");

  first = parse_object ("{\"name\": \"Chart\", \"priors\": [\"2\"],"
                        " \"input\": {\"text\": \"Plot totals\", \"a\": 1, \"b\": 2},"
                        " \"skele\": {\"x\": 0, \"y\": 200}, \"owner\": \"bo\", \"tags\": [1]}");
  second = parse_object ("{\"tags\": [1], \"input\": {\"b\": 2, \"a\": 1, \"text\": \"Plot totals\"},"
                         " \"owner\": \"bo\", \"priors\": [\"2\"], \"name\": \"Chart\","
                         " \"skele\": {\"y\": 200, \"x\": 0}}");

  g_assert_true (sk_node_update_from_json (chart, first, &error));
  g_assert_no_error (error);
  sk_history_flush (fixture->history);
  g_assert_true (sk_history_get_can_undo (fixture->history));

  g_assert_true (sk_node_update_from_json (chart, second, &error));
  g_assert_no_error (error);
  sk_history_flush (fixture->history);

  /* One step only, and undoing it gives back the sample. */
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_false (sk_history_get_can_undo (fixture->history));
  undone = data (fixture);
  g_assert_cmpstr (undone, ==, before);
}

/* A history hears the nodes of its own workflow only, and only while they
 * are in it.
 */
static void
test_other_nodes (Fixture       *fixture,
                  gconstpointer  unused)
{
  g_autoptr(SkProject) other = NULL;
  g_autoptr(SkHistory) other_history = NULL;
  g_autoptr(SkNode) loose = sk_node_new ("9", "Loose");
  g_autoptr(SkNode) chart = g_object_ref (node (fixture, "3"));
  g_autoptr(GError) error = NULL;

  other = sk_project_load_from_data (sample_json, -1, NULL, &error);
  g_assert_no_error (error);
  other_history = sk_history_new (other);

  /* A node of another workflow with the same identifier, and a node of
   * none. */
  sk_node_set_name (sk_project_get_node (other, "3"), "Elsewhere");
  sk_node_set_name (loose, "Still loose");
  run_idles ();
  g_assert_false (sk_history_get_can_undo (fixture->history));
  g_assert_cmpstr (sk_history_get_undo_label (other_history), ==, "Rename Step");

  /* A node taken out of the workflow is no longer heard. */
  sk_project_remove_node (fixture->project, chart);
  run_idles ();
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Delete Step");
  sk_node_set_name (chart, "Gone");
  run_idles ();
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Delete Step");
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_false (sk_history_get_can_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_name (node (fixture, "3")), ==, "Chart");

  /* The node put back is heard again. */
  sk_node_set_name (node (fixture, "3"), "Back");
  run_idles ();
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Rename Step");
  g_assert_cmpstr (sk_history_get_undo_label (other_history), ==, "Rename Step");
  g_assert_true (sk_history_undo (other_history));
  g_assert_cmpstr (sk_node_get_name (sk_project_get_node (other, "3")), ==, "Chart");
  g_assert_cmpstr (sk_node_get_name (node (fixture, "3")), ==, "Back");
}

static void
test_nested (Fixture       *fixture,
             gconstpointer  unused)
{
  SkNode *chart = node (fixture, "3");

  /* Changes before a group are a step of their own. */
  sk_node_set_description (chart, "first");

  sk_history_begin (fixture->history, "Tidy Up");
  sk_node_set_name (chart, "Pie chart");
  sk_history_begin (fixture->history, "Move Step");
  sk_node_set_position (chart, 10, 10);
  sk_history_end (fixture->history);
  run_idles ();
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Edit Description");
  sk_node_set_input_text (chart, "Plot a pie");
  sk_history_end (fixture->history);

  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Tidy Up");
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_name (chart), ==, "Chart");
  g_assert_cmpstr (sk_node_get_input_text (chart), ==, "Plot totals");
  assert_position (chart, 0, 200);
  g_assert_cmpstr (sk_node_get_description (chart), ==, "first");

  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Edit Description");
  g_assert_cmpstr (sk_history_get_redo_label (fixture->history), ==, "Tidy Up");
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_description (chart), ==, "");
  g_assert_false (sk_history_undo (fixture->history));

  /* An empty group leaves no step. */
  sk_history_begin (fixture->history, "Nothing");
  sk_history_end (fixture->history);
  g_assert_false (sk_history_get_can_undo (fixture->history));
  g_assert_cmpstr (sk_history_get_redo_label (fixture->history), ==, "Edit Description");

  /* Undo waits for an open group to end. */
  sk_history_begin (fixture->history, "Open");
  g_assert_false (sk_history_redo (fixture->history));
  sk_history_end (fixture->history);
}

static void
test_redo_cleared (Fixture       *fixture,
                   gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");

  sk_node_set_name (load, "Loader");
  sk_history_flush (fixture->history);
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_true (sk_history_get_can_redo (fixture->history));

  sk_node_set_run (load, FALSE);
  run_idles ();
  g_assert_false (sk_history_get_can_redo (fixture->history));
  g_assert_null (sk_history_get_redo_label (fixture->history));
  g_assert_false (sk_history_redo (fixture->history));
  g_assert_cmpstr (sk_node_get_name (load), ==, "Load");
  g_assert_false (sk_node_get_run (load));
}

static void
test_notify (Fixture       *fixture,
             gconstpointer  unused)
{
  guint can_undo = 0, can_redo = 0, undo_label = 0, redo_label = 0;
  SkNode *load = node (fixture, "1");
  gboolean value = FALSE;

  g_signal_connect (fixture->history, "notify::can-undo", G_CALLBACK (count_notify_cb), &can_undo);
  g_signal_connect (fixture->history, "notify::can-redo", G_CALLBACK (count_notify_cb), &can_redo);
  g_signal_connect (fixture->history, "notify::undo-label", G_CALLBACK (count_notify_cb), &undo_label);
  g_signal_connect (fixture->history, "notify::redo-label", G_CALLBACK (count_notify_cb), &redo_label);

  sk_node_set_name (load, "Loader");
  g_assert_cmpuint (can_undo, ==, 0);
  run_idles ();
  g_assert_cmpuint (can_undo, ==, 1);
  g_assert_cmpuint (undo_label, ==, 1);
  g_object_get (fixture->history, "can-undo", &value, NULL);
  g_assert_true (value);

  /* Same label, still undoable: nothing to tell. */
  sk_node_set_name (node (fixture, "2"), "Cleaner");
  run_idles ();
  g_assert_cmpuint (can_undo, ==, 1);
  g_assert_cmpuint (undo_label, ==, 1);

  sk_node_set_position (load, 5, 5);
  run_idles ();
  g_assert_cmpuint (can_undo, ==, 1);
  g_assert_cmpuint (undo_label, ==, 2);

  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpuint (can_redo, ==, 1);
  g_assert_cmpuint (redo_label, ==, 1);
  g_assert_cmpuint (undo_label, ==, 3);
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpuint (can_redo, ==, 1);
  g_assert_cmpuint (redo_label, ==, 2);
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpuint (can_undo, ==, 2);
  g_assert_cmpuint (undo_label, ==, 4);
  g_assert_false (sk_history_undo (fixture->history));
  g_assert_cmpuint (can_undo, ==, 2);

  /* A change that is not undoable tells nothing. */
  sk_node_set_output_text (load, "changed");
  run_idles ();
  g_assert_cmpuint (can_undo, ==, 2);
  g_assert_cmpuint (can_redo, ==, 1);

  sk_history_clear (fixture->history);
  g_assert_cmpuint (can_redo, ==, 2);
  g_assert_cmpuint (redo_label, ==, 3);
  g_assert_false (sk_history_get_can_redo (fixture->history));
  g_assert_cmpuint (can_undo, ==, 2);
}

static void
test_labels (Fixture       *fixture,
             gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");
  g_autofree char *label = NULL;

  sk_node_set_input_files (load, NULL);
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Edit Task");

  sk_node_set_run (load, FALSE);
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Edit Step");

  sk_node_set_name (load, "A");
  sk_node_set_name (node (fixture, "2"), "B");
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Edit Steps");

  sk_node_set_priors (node (fixture, "4"), SK_TEST_STRV ("1", "3"));
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Change Connections");

  sk_project_set_description (fixture->project, "Weekly");
  sk_history_flush (fixture->history);
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Edit Workflow");

  g_object_get (fixture->history, "undo-label", &label, NULL);
  g_assert_cmpstr (label, ==, "Edit Workflow");

  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_history_get_redo_label (fixture->history), ==, "Edit Workflow");
  g_assert_cmpstr (sk_history_get_undo_label (fixture->history), ==, "Change Connections");
  g_assert_cmpstr (sk_project_get_description (fixture->project), ==, "Monthly report");
  g_assert_cmpuint (count_undos (fixture->history), ==, 4);
  g_assert_cmpstrv (sk_node_get_input_files (load), SK_TEST_STRV ("sales.csv"));
  g_assert_true (sk_node_get_run (load));
}

static void
test_cap (Fixture       *fixture,
          gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");

  _sk_history_set_merge_window_us (fixture->history, 0);
  for (guint i = 1; i <= SK_HISTORY_MAX_STEPS + 10; i++)
    {
      g_autofree char *name = g_strdup_printf ("Load %u", i);

      sk_node_set_name (load, name);
      sk_history_flush (fixture->history);
    }

  g_assert_cmpuint (count_undos (fixture->history), ==, SK_HISTORY_MAX_STEPS);
  g_assert_cmpstr (sk_node_get_name (load), ==, "Load 10");
}

static void
test_clear (Fixture       *fixture,
            gconstpointer  unused)
{
  SkNode *load = node (fixture, "1");

  sk_node_set_name (load, "Loader");
  sk_history_flush (fixture->history);
  sk_node_set_name (load, "Loading");
  sk_history_clear (fixture->history);
  run_idles ();
  g_assert_false (sk_history_get_can_undo (fixture->history));

  /* The state at the time of clearing is the new starting point. */
  sk_node_set_name (load, "Loaded");
  run_idles ();
  g_assert_true (sk_history_undo (fixture->history));
  g_assert_cmpstr (sk_node_get_name (load), ==, "Loading");
  g_assert_false (sk_history_undo (fixture->history));
}

/* Registered first, so that no node exists yet in the process when it
 * runs: the history must hear the nodes added to an empty workflow. */
static void
test_empty_first (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(SkHistory) history = sk_history_new (project);
  g_autoptr(SkNode) added = sk_node_new ("1", "First");

  g_assert_true (sk_project_add_node (project, added, NULL));
  run_idles ();
  g_assert_cmpstr (sk_history_get_undo_label (history), ==, "Add Step");

  sk_node_set_name (added, "Renamed");
  run_idles ();
  g_assert_cmpstr (sk_history_get_undo_label (history), ==, "Rename Step");
  g_assert_true (sk_history_undo (history));
  g_assert_cmpstr (sk_node_get_name (added), ==, "First");
  g_assert_true (sk_history_undo (history));
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 0);
}

static void
test_dispose_pending (void)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;
  SkHistory *history;
  SkNode *load;

  project = sk_project_load_from_data (sample_json, -1, NULL, &error);
  g_assert_no_error (error);
  history = sk_history_new (project);
  load = sk_project_get_node (project, "1");

  sk_node_set_name (load, "Loader");
  sk_project_remove_node (project, sk_project_get_node (project, "4"));
  g_assert_finalize_object (history);
  run_idles ();

  /* The workflow no longer reports to the history. */
  sk_node_set_name (load, "Load again");
  sk_project_set_name (project, "Other");
  sk_project_remove_node (project, sk_project_get_node (project, "3"));
  run_idles ();
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 2);

  /* A history in the middle of a group goes away cleanly too. */
  history = sk_history_new (project);
  sk_history_begin (history, "Half");
  sk_node_set_name (load, "Half");
  g_assert_finalize_object (history);
  run_idles ();
}

static void
test_large (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(SkHistory) history = NULL;
  g_autofree char *before = NULL;
  g_autofree char *undone = NULL;
  SkNode *middle;

  for (guint i = 1; i <= 5000; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_autofree char *name = g_strdup_printf ("Step %u", i);
      g_autofree char *prior = g_strdup_printf ("%u", i - 1);
      g_autoptr(SkNode) each = sk_node_new (id, name);

      if (i > 1)
        sk_node_add_prior (each, prior);
      sk_node_set_position (each, i, i);
      g_assert_true (sk_project_add_node (project, each, NULL));
    }

  history = sk_history_new (project);
  before = sk_project_to_data (project, NULL);

  middle = sk_project_get_node (project, "2500");
  sk_project_remove_node (project, middle);
  run_idles ();
  g_assert_cmpstr (sk_history_get_undo_label (history), ==, "Delete Step");
  g_assert_true (sk_history_undo (history));
  undone = sk_project_to_data (project, NULL);
  g_assert_cmpstr (undone, ==, before);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/history/empty-first", test_empty_first);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("/history/add", test_add);
  ADD ("/history/delete", test_delete);
  ADD ("/history/delete-several", test_delete_several);
  ADD ("/history/delete-two", test_delete_two);
  ADD ("/history/connect", test_connect);
  ADD ("/history/rename", test_rename);
  ADD ("/history/saved-state", test_saved_state);
  ADD ("/history/move-group", test_move_group);
  ADD ("/history/typing/merges", test_typing_merges);
  ADD ("/history/typing/no-window", test_typing_no_window);
  ADD ("/history/typing/default-window", test_typing_default_window);
  ADD ("/history/typing/after-undo", test_typing_after_undo);
  ADD ("/history/typing/back", test_typing_back);
  ADD ("/history/runtime-only", test_runtime_only);
  ADD ("/history/node-json", test_node_json);
  ADD ("/history/project-json", test_project_json);
  ADD ("/history/exact-values", test_exact_values);
  ADD ("/history/reordered-members", test_reordered_members);
  ADD ("/history/invalid-utf8", test_invalid_utf8);
  ADD ("/history/other-nodes", test_other_nodes);
  ADD ("/history/nested", test_nested);
  ADD ("/history/redo-cleared", test_redo_cleared);
  ADD ("/history/notify", test_notify);
  ADD ("/history/labels", test_labels);
  ADD ("/history/cap", test_cap);
  ADD ("/history/clear", test_clear);

#undef ADD

  g_test_add_func ("/history/dispose-pending", test_dispose_pending);
  g_test_add_func ("/history/large", test_large);

  return g_test_run ();
}
