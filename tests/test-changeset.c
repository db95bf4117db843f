/* test-changeset.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <math.h>

#include "sk-changeset.h"
#include "sk-history.h"
#include "sk-project.h"
#include "sk-test-util.h"

/* Load, then Clean, then Chart, in a line, placed on the canvas. */
static const char sample_json[] =
  "{\n"
  "  \"process_name\": \"Report\",\n"
  "  \"process_description\": \"Monthly report\",\n"
  "  \"nodes\": {\n"
  "    \"1\": {\"name\": \"Load\", \"priors\": [],\n"
  "          \"input\": {\"text\": \"Read sales.csv\"},\n"
  "          \"skele\": {\"x\": 0, \"y\": 0}},\n"
  "    \"2\": {\"name\": \"Clean\", \"priors\": [\"1\"],\n"
  "          \"input\": {\"text\": \"Drop empty rows\"},\n"
  "          \"skele\": {\"x\": 0, \"y\": 100}},\n"
  "    \"3\": {\"name\": \"Chart\", \"priors\": [\"2\"],\n"
  "          \"input\": {\"text\": \"Plot totals\"},\n"
  "          \"skele\": {\"x\": 0, \"y\": 200}}\n"
  "  }\n"
  "}\n";

/* Load and Clean need each other already; Chart is on its own. */
static const char cycle_json[] =
  "{\n"
  "  \"process_name\": \"Broken\",\n"
  "  \"nodes\": {\n"
  "    \"1\": {\"name\": \"Load\", \"priors\": [\"2\"], \"input\": {\"text\": \"a\"}},\n"
  "    \"2\": {\"name\": \"Clean\", \"priors\": [\"1\"], \"input\": {\"text\": \"b\"}},\n"
  "    \"3\": {\"name\": \"Chart\", \"priors\": [], \"input\": {\"text\": \"c\"}}\n"
  "  }\n"
  "}\n";

static SkProject *
load (const char *json)
{
  g_autoptr(GError) error = NULL;
  SkProject *project = sk_project_load_from_data (json, -1, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  return project;
}

static char *
to_data (SkProject *project)
{
  return sk_project_to_data (project, NULL);
}

static void
run_idles (void)
{
  while (g_main_context_iteration (NULL, FALSE));
}

static SkNode *
scratch_node (SkChangeset *changeset,
              const char  *id)
{
  SkNode *node = sk_project_get_node (sk_changeset_get_scratch (changeset), id);

  g_assert_nonnull (node);
  return node;
}

static void
test_operations (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autofree char *before = to_data (project);
  g_autofree char *after = NULL;
  g_autofree char *id = NULL;
  g_autofree char *summary = NULL;
  g_autoptr(GError) error = NULL;
  SkNode *node;
  double x, y;

  g_assert_true (sk_changeset_is_empty (changeset));
  summary = sk_changeset_describe (changeset);
  g_assert_cmpstr (summary, ==, "No changes.");
  g_clear_pointer (&summary, g_free);

  g_assert_true (sk_changeset_add_step (changeset, "Summary", "Sum the rows", "A summary",
                                        SK_TEST_STRV ("clean"), &id, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (id, ==, "4");
  node = scratch_node (changeset, "4");
  g_assert_cmpstr (sk_node_get_name (node), ==, "Summary");
  g_assert_cmpstr (sk_node_get_input_text (node), ==, "Sum the rows");
  g_assert_cmpstr (sk_node_get_description (node), ==, "A summary");
  g_assert_true (g_strv_equal (sk_node_get_priors (node), SK_TEST_STRV ("2")));
  g_assert_true (sk_node_get_position (node, &x, &y));
  g_assert_cmpfloat (y, >, 100);

  g_assert_true (sk_changeset_rename_step (changeset, "chart", "Plot", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (sk_node_get_key (scratch_node (changeset, "3")), ==, "plot");

  g_assert_true (sk_changeset_set_task (changeset, "1", "Read sales.xlsx", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (sk_node_get_input_text (scratch_node (changeset, "1")), ==, "Read sales.xlsx");

  g_assert_true (sk_changeset_set_description (changeset, "clean", "Tidy", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (sk_node_get_description (scratch_node (changeset, "2")), ==, "Tidy");

  g_assert_true (sk_changeset_connect (changeset, "load", "plot", &error));
  g_assert_no_error (error);
  g_assert_true (sk_node_has_prior (scratch_node (changeset, "3"), "1"));

  g_assert_true (sk_changeset_disconnect (changeset, "clean", "3", &error));
  g_assert_no_error (error);
  g_assert_false (sk_node_has_prior (scratch_node (changeset, "3"), "2"));

  g_assert_true (sk_changeset_set_run (changeset, "clean", FALSE, &error));
  g_assert_no_error (error);
  g_assert_false (sk_node_get_run (scratch_node (changeset, "2")));

  g_assert_true (sk_changeset_set_process (changeset, "Sales", NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (sk_project_get_name (sk_changeset_get_scratch (changeset)), ==, "Sales");
  g_assert_cmpstr (sk_project_get_description (sk_changeset_get_scratch (changeset)), ==,
                   "Monthly report");

  g_assert_false (sk_changeset_is_empty (changeset));
  summary = sk_changeset_describe (changeset);
  g_assert_cmpstr (summary, ==,
                   "Added “Summary”, renamed “Chart” to “Plot”, changed the task of “Load” — "
                   "its code will be rewritten, changed the description of “Clean”, "
                   "connected 2, disconnected “Clean” from “Plot”, set “Clean” not to run, "
                   "renamed the workflow to “Sales”.");
  g_clear_pointer (&summary, g_free);

  g_assert_true (sk_changeset_remove_step (changeset, "plot", &error));
  g_assert_no_error (error);
  g_assert_null (sk_project_get_node (sk_changeset_get_scratch (changeset), "3"));
  summary = sk_changeset_describe (changeset);
  g_assert_cmpstr (summary, ==,
                   "Added “Summary”, removed “Chart”, changed the task of “Load” — "
                   "its code will be rewritten, changed the description of “Clean”, "
                   "connected “Clean” to “Summary”, set “Clean” not to run, "
                   "renamed the workflow to “Sales”.");

  /* The workflow itself is untouched until the changes are applied. */
  after = to_data (project);
  g_assert_cmpstr (after, ==, before);
}

static void
test_changes (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autoptr(GPtrArray) changes = NULL;
  g_autoptr(GError) error = NULL;
  static const char * const expected[] = {
    "Added the step “A”.",
    "Added the step “B”.",
    "Removed the step “Load”.",
    "Changed the task of “Chart”; its code will be rewritten.",
    "Connected “A” to “Chart”.",
    "Connected “A” to “B”.",
    "Renamed the workflow to “Sales”.",
    "Changed the workflow’s description.",
  };

  g_assert_true (sk_changeset_add_step (changeset, "A", "a", NULL, NULL, NULL, &error));
  g_assert_true (sk_changeset_add_step (changeset, "B", "b", NULL, SK_TEST_STRV ("a"), NULL,
                                        &error));
  g_assert_true (sk_changeset_connect (changeset, "a", "chart", &error));
  g_assert_true (sk_changeset_remove_step (changeset, "load", &error));
  g_assert_true (sk_changeset_set_task (changeset, "chart", "Plot more", &error));
  g_assert_true (sk_changeset_set_process (changeset, "Sales", "New", &error));
  g_assert_no_error (error);

  changes = sk_changeset_get_changes (changeset);
  g_assert_cmpuint (changes->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < changes->len; i++)
    {
      const SkChange *change = g_ptr_array_index (changes, i);
      g_autofree char *line = sk_change_describe (change);
      g_autoptr(SkChange) copy = sk_change_copy (change);

      g_assert_cmpstr (line, ==, expected[i]);
      g_assert_cmpint (copy->kind, ==, change->kind);
    }

  {
    const SkChange *task = g_ptr_array_index (changes, 3);
    const SkChange *edge = g_ptr_array_index (changes, 4);

    g_assert_cmpint (task->kind, ==, SK_CHANGE_TASK_CHANGED);
    g_assert_cmpstr (task->step_id, ==, "3");
    g_assert_cmpstr (task->old_text, ==, "Plot totals");
    g_assert_cmpstr (task->new_text, ==, "Plot more");
    g_assert_cmpint (edge->kind, ==, SK_CHANGE_CONNECTED);
    g_assert_cmpstr (edge->step_id, ==, "3");
    g_assert_cmpstr (edge->other_id, ==, "4");
  }
}

/* Each refusal leaves the scratch as it was and says what to do. */
static void
assert_refused (SkChangeset *changeset,
                const char  *before,
                GError      *error,
                const char  *words)
{
  g_autofree char *after = to_data (sk_changeset_get_scratch (changeset));

  g_assert_nonnull (error);
  if (strstr (error->message, words) == NULL)
    g_error ("“%s” does not say “%s”", error->message, words);
  g_assert_cmpstr (after, ==, before);
}

static void
test_refusals (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autofree char *before = to_data (sk_changeset_get_scratch (changeset));
  GError *error = NULL;

  g_assert_false (sk_changeset_set_task (changeset, "99", "x", &error));
  assert_refused (changeset, before, error,
                  "There is no step “99”. The steps are: “load” (1), “clean” (2), “chart” (3).");
  g_clear_error (&error);

  g_assert_false (sk_changeset_remove_step (changeset, "nope", &error));
  assert_refused (changeset, before, error, "There is no step “nope”.");
  g_clear_error (&error);

  g_assert_false (sk_changeset_add_step (changeset, "New", "x", NULL,
                                         SK_TEST_STRV ("load", "nope"), NULL, &error));
  assert_refused (changeset, before, error, "There is no step “nope”.");
  g_clear_error (&error);

  g_assert_false (sk_changeset_connect (changeset, "chart", "load", &error));
  assert_refused (changeset, before, error,
                  "Connecting “chart” to “load” would make a circle: "
                  "“load” → “clean” → “chart” → “load”.");
  g_clear_error (&error);

  g_assert_false (sk_changeset_connect (changeset, "load", "load", &error));
  assert_refused (changeset, before, error, "cannot need its own results");
  g_clear_error (&error);

  g_assert_false (sk_changeset_rename_step (changeset, "chart", "LOAD", &error));
  assert_refused (changeset, before, error,
                  "The name “LOAD” would share the folder “load” with “Load”.");
  g_clear_error (&error);

  g_assert_false (sk_changeset_add_step (changeset, "Clean", "x", NULL, NULL, NULL, &error));
  assert_refused (changeset, before, error, "would share the folder “clean”");
  g_clear_error (&error);

  g_assert_false (sk_changeset_add_step (changeset, "!!", "x", NULL, NULL, NULL, &error));
  assert_refused (changeset, before, error, "has no letters or digits");
  g_clear_error (&error);

  g_assert_false (sk_changeset_rename_step (changeset, "2", "", &error));
  assert_refused (changeset, before, error, "has no letters or digits");
  g_clear_error (&error);

  g_assert_false (sk_changeset_connect (changeset, "load", "clean", &error));
  assert_refused (changeset, before, error, "already connected");
  g_clear_error (&error);

  g_assert_false (sk_changeset_disconnect (changeset, "load", "chart", &error));
  assert_refused (changeset, before, error, "nothing to disconnect");
  g_clear_error (&error);

  g_assert_true (sk_changeset_is_empty (changeset));
}

static void
test_later_sees_earlier (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autofree char *id = NULL;
  g_autofree char *second = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (sk_changeset_add_step (changeset, "Extra", "x", NULL, NULL, &id, &error));
  g_assert_no_error (error);
  g_assert_true (sk_changeset_connect (changeset, id, "chart", &error));
  g_assert_no_error (error);
  g_assert_true (sk_node_has_prior (scratch_node (changeset, "3"), id));

  /* The new step is known by its key too, and makes circles as any other. */
  g_assert_false (sk_changeset_connect (changeset, "chart", "extra", &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE);
  g_clear_error (&error);

  g_assert_true (sk_changeset_add_step (changeset, "Second", "y", NULL, SK_TEST_STRV ("extra"),
                                        &second, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (second, !=, id);
  g_assert_nonnull (sk_changeset_resolve_step (changeset, "second", NULL));
}

static void
test_describe_real_difference (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autofree char *id = NULL;
  g_autofree char *summary = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (sk_changeset_add_step (changeset, "Extra", "x", NULL, NULL, &id, &error));
  g_assert_true (sk_changeset_remove_step (changeset, id, &error));
  g_assert_true (sk_changeset_rename_step (changeset, "load", "Fetch", &error));
  g_assert_true (sk_changeset_rename_step (changeset, "fetch", "Load", &error));
  g_assert_true (sk_changeset_connect (changeset, "load", "chart", &error));
  g_assert_true (sk_changeset_disconnect (changeset, "load", "chart", &error));
  g_assert_true (sk_changeset_set_task (changeset, "chart", "Plot totals", &error));
  g_assert_no_error (error);

  g_assert_true (sk_changeset_is_empty (changeset));
  summary = sk_changeset_describe (changeset);
  g_assert_cmpstr (summary, ==, "No changes.");
}

static void
test_summary_counts (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autofree char *summary = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (sk_changeset_add_step (changeset, "a", "x", NULL, NULL, NULL, &error));
  g_assert_true (sk_changeset_add_step (changeset, "b", "x", NULL, SK_TEST_STRV ("a"), NULL,
                                        &error));
  g_assert_true (sk_changeset_add_step (changeset, "c", "x", NULL, SK_TEST_STRV ("b"), NULL,
                                        &error));
  g_assert_true (sk_changeset_remove_step (changeset, "load", &error));
  g_assert_true (sk_changeset_set_task (changeset, "chart", "y", &error));
  g_assert_true (sk_changeset_set_task (changeset, "clean", "y", &error));
  g_assert_no_error (error);

  summary = sk_changeset_describe (changeset);
  g_assert_cmpstr (summary, ==,
                   "Added 3 steps (“a”, “b”, “c”), removed “Load”, changed the tasks of "
                   "“Clean”, “Chart” — their code will be rewritten, connected 2.");
}

static void
test_apply_undo (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkHistory) history = sk_history_new (project);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autofree char *before = to_data (project);
  g_autofree char *undone = NULL;
  g_autofree char *redone = NULL;
  g_autofree char *applied = NULL;
  g_autofree char *id = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  SkNode *node;

  run_idles ();

  g_assert_true (sk_changeset_add_step (changeset, "Summary", "Sum", NULL,
                                        SK_TEST_STRV ("clean"), &id, &error));
  g_assert_true (sk_changeset_connect (changeset, id, "chart", &error));
  g_assert_true (sk_changeset_rename_step (changeset, "load", "Fetch", &error));
  g_assert_true (sk_changeset_set_run (changeset, "clean", FALSE, &error));
  g_assert_true (sk_changeset_set_process (changeset, NULL, "Sales", &error));
  g_assert_no_error (error);

  g_assert_true (sk_changeset_apply (changeset, history, &error));
  g_assert_no_error (error);
  run_idles ();

  node = sk_project_get_node (project, id);
  g_assert_nonnull (node);
  g_assert_cmpstr (sk_node_get_name (node), ==, "Summary");
  g_assert_true (sk_node_has_prior (node, "2"));
  g_assert_true (sk_node_has_prior (sk_project_get_node (project, "3"), id));
  g_assert_true (sk_node_has_prior (sk_project_get_node (project, "3"), "2"));
  g_assert_cmpstr (sk_node_get_name (sk_project_get_node (project, "1")), ==, "Fetch");
  g_assert_false (sk_node_get_run (sk_project_get_node (project, "2")));
  g_assert_cmpstr (sk_project_get_description (project), ==, "Sales");
  problems = sk_project_validate (project);
  g_assert_cmpuint (sk_problems_count_errors (problems), ==, 0);

  applied = to_data (project);
  g_assert_cmpstr (sk_history_get_undo_label (history), ==, "Apply Chat Changes");
  g_assert_true (sk_history_undo (history));
  undone = to_data (project);
  g_assert_cmpstr (undone, ==, before);
  g_assert_false (sk_history_get_can_undo (history));

  g_assert_true (sk_history_redo (history));
  redone = to_data (project);
  g_assert_cmpstr (redone, ==, applied);
}

static void
test_reject (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autofree char *id = NULL;
  g_autoptr(GError) error = NULL;
  SkNode *chart;
  SkNode *clean;

  g_assert_true (sk_changeset_add_step (changeset, "Extra", "x", NULL, SK_TEST_STRV ("load"),
                                        &id, &error));
  g_assert_true (sk_changeset_connect (changeset, id, "chart", &error));
  g_assert_true (sk_changeset_set_task (changeset, "chart", "Plot more", &error));
  g_assert_true (sk_changeset_set_task (changeset, "clean", "Drop more", &error));
  g_assert_true (sk_changeset_remove_step (changeset, "load", &error));
  g_assert_no_error (error);

  g_assert_true (sk_changeset_get_step_accepted (changeset, id));
  sk_changeset_set_step_accepted (changeset, id, FALSE);
  sk_changeset_set_step_accepted (changeset, "2", FALSE);
  sk_changeset_set_step_accepted (changeset, "1", FALSE);
  g_assert_false (sk_changeset_get_step_accepted (changeset, id));
  sk_changeset_set_step_accepted (changeset, "1", TRUE);
  sk_changeset_set_step_accepted (changeset, "1", FALSE);

  g_assert_true (sk_changeset_apply (changeset, NULL, &error));
  g_assert_no_error (error);

  /* The rejected new step is not there, nor its connection to Chart, whose
   * own change was accepted; Clean and Load stay as they were. */
  g_assert_null (sk_project_get_node (project, id));
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
  chart = sk_project_get_node (project, "3");
  clean = sk_project_get_node (project, "2");
  g_assert_cmpstr (sk_node_get_input_text (chart), ==, "Plot more");
  g_assert_true (g_strv_equal (sk_node_get_priors (chart), SK_TEST_STRV ("2")));
  g_assert_cmpstr (sk_node_get_input_text (clean), ==, "Drop empty rows");
  g_assert_true (g_strv_equal (sk_node_get_priors (clean), SK_TEST_STRV ("1")));
}

static void
test_reject_removal_keeps_edges (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autoptr(GError) error = NULL;

  g_assert_true (sk_changeset_remove_step (changeset, "clean", &error));
  g_assert_true (sk_changeset_set_task (changeset, "chart", "Plot more", &error));
  g_assert_no_error (error);
  sk_changeset_set_step_accepted (changeset, "2", FALSE);

  g_assert_true (sk_changeset_apply (changeset, NULL, &error));
  g_assert_no_error (error);
  g_assert_nonnull (sk_project_get_node (project, "2"));
  g_assert_true (g_strv_equal (sk_node_get_priors (sk_project_get_node (project, "3")),
                               SK_TEST_STRV ("2")));
  g_assert_cmpstr (sk_node_get_input_text (sk_project_get_node (project, "3")), ==, "Plot more");
}

static void
test_conflict (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkHistory) history = sk_history_new (project);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;

  run_idles ();
  g_assert_true (sk_changeset_set_task (changeset, "chart", "Plot more", &error));
  g_assert_no_error (error);

  /* The user changes the same step while the chat works. */
  sk_node_set_input_text (sk_project_get_node (project, "3"), "Plot by month");
  run_idles ();
  before = to_data (project);

  g_assert_false (sk_changeset_apply (changeset, history, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (error->message,
                                   "“Chart” was changed while the chat was working: "
                                   "its task changed."));
  after = to_data (project);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpstr (sk_history_get_undo_label (history), !=, "Apply Chat Changes");
}

static void
test_conflict_removed (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autoptr(GError) error = NULL;

  g_assert_true (sk_changeset_rename_step (changeset, "chart", "Plot", &error));
  sk_project_remove_node (project, sk_project_get_node (project, "3"));

  g_assert_false (sk_changeset_apply (changeset, NULL, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "it was removed"));
}

/* Removing a step takes it out of its successors' priors, which does not
 * make those successors the chat's: the user may edit them meanwhile. */
static void
test_successor_of_removed_kept (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autoptr(GError) error = NULL;
  SkNode *clean;

  g_assert_true (sk_changeset_remove_step (changeset, "load", &error));
  g_assert_no_error (error);
  sk_node_set_input_text (sk_project_get_node (project, "2"), "Drop the empty rows");

  g_assert_true (sk_changeset_apply (changeset, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (sk_project_get_node (project, "1"));
  clean = sk_project_get_node (project, "2");
  g_assert_cmpstr (sk_node_get_input_text (clean), ==, "Drop the empty rows");
  g_assert_cmpuint (g_strv_length ((char **) sk_node_get_priors (clean)), ==, 0);
}

static void
test_other_step_kept (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autoptr(SkNode) mine = sk_node_new ("4", "Mine");
  g_autofree char *id = NULL;
  g_autoptr(GError) error = NULL;
  SkNode *added;

  g_assert_true (sk_changeset_set_task (changeset, "chart", "Plot more", &error));
  g_assert_true (sk_changeset_add_step (changeset, "Extra", "x", NULL, SK_TEST_STRV ("chart"),
                                        &id, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (id, ==, "4");

  /* Meanwhile the user renames another step and adds one of their own,
   * which takes the identifier the new step had. */
  sk_node_set_name (sk_project_get_node (project, "1"), "Fetch");
  g_assert_true (sk_project_add_node (project, mine, &error));

  g_assert_true (sk_changeset_apply (changeset, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (sk_node_get_name (sk_project_get_node (project, "1")), ==, "Fetch");
  g_assert_cmpstr (sk_node_get_input_text (sk_project_get_node (project, "3")), ==, "Plot more");
  g_assert_cmpstr (sk_node_get_name (sk_project_get_node (project, "4")), ==, "Mine");
  added = sk_project_get_node_by_key (project, "extra");
  g_assert_nonnull (added);
  g_assert_cmpstr (sk_node_get_id (added), !=, "4");
  g_assert_true (g_strv_equal (sk_node_get_priors (added), SK_TEST_STRV ("3")));
}

static void
test_apply_new_problem (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;

  /* The chat adds a step the user meanwhile added under the same name. */
  g_assert_true (sk_changeset_add_step (changeset, "Extra", "x", NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr(SkNode) node = sk_node_new ("9", "Extra");

    g_assert_true (sk_project_add_node (project, node, NULL));
  }
  before = to_data (project);

  g_assert_false (sk_changeset_apply (changeset, NULL, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (error->message, "The changes were not applied:"));
  after = to_data (project);
  g_assert_cmpstr (after, ==, before);
}

static void
test_old_problem (void)
{
  g_autoptr(SkProject) project = load (cycle_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autofree char *id = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (sk_changeset_set_task (changeset, "chart", "Plot", &error));
  g_assert_no_error (error);
  g_assert_true (sk_changeset_add_step (changeset, "Extra", "x", NULL, SK_TEST_STRV ("chart"),
                                        &id, &error));
  g_assert_no_error (error);
  g_assert_true (sk_changeset_connect (changeset, "load", "chart", &error));
  g_assert_no_error (error);
  g_assert_true (sk_changeset_rename_step (changeset, "clean", "Tidy", &error));
  g_assert_no_error (error);

  /* A new circle is still refused. */
  g_assert_false (sk_changeset_connect (changeset, "extra", "load", &error));
  g_assert_nonnull (strstr (error->message, "would make a circle"));
  g_clear_error (&error);

  g_assert_true (sk_changeset_apply (changeset, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (sk_node_get_input_text (sk_project_get_node (project, "3")), ==, "Plot");
  g_assert_nonnull (sk_project_get_node (project, id));
}

/* A step removed and one added are two changes, even when the removed
 * step had the highest id; and a new step is not drawn over another. */
static void
test_remove_then_add (void)
{
  g_autoptr(SkProject) project = load (sample_json);
  g_autoptr(SkChangeset) changeset = sk_changeset_new (project);
  g_autoptr(GPtrArray) changes = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  const char * const priors[] = { "2", NULL };
  double x, y;

  g_assert_true (sk_changeset_remove_step (changeset, "3", &error));
  g_assert_no_error (error);
  g_assert_true (sk_changeset_add_step (changeset, "Plot", "Plot by month", NULL, priors, &id, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (id, ==, "4");

  changes = sk_changeset_get_changes (changeset);
  g_assert_cmpuint (changes->len, >=, 2);
  {
    gboolean removed = FALSE, added = FALSE;

    for (guint i = 0; i < changes->len; i++)
      {
        const SkChange *change = g_ptr_array_index (changes, i);

        removed |= change->kind == SK_CHANGE_REMOVED && g_str_equal (change->step_id, "3");
        added |= change->kind == SK_CHANGE_ADDED && g_str_equal (change->step_id, "4");
        g_assert_true (change->kind != SK_CHANGE_RENAMED);
      }
    g_assert_true (removed);
    g_assert_true (added);
  }

  /* Below Clean, where nothing is left now that Chart is gone. */
  g_assert_true (sk_node_get_position (scratch_node (changeset, "4"), &x, &y));
  g_assert_cmpfloat (y, >, 100);

  /* A second new step below Clean goes beside the first. */
  g_clear_pointer (&id, g_free);
  g_assert_true (sk_changeset_add_step (changeset, "Table", "Tabulate", NULL, priors, &id, &error));
  g_assert_no_error (error);
  {
    double x2, y2;

    g_assert_true (sk_node_get_position (scratch_node (changeset, id), &x2, &y2));
    g_assert_true (fabs (x2 - x) >= 168 || fabs (y2 - y) >= 60);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/changeset/operations", test_operations);
  g_test_add_func ("/changeset/changes", test_changes);
  g_test_add_func ("/changeset/refusals", test_refusals);
  g_test_add_func ("/changeset/later-sees-earlier", test_later_sees_earlier);
  g_test_add_func ("/changeset/describe-real-difference", test_describe_real_difference);
  g_test_add_func ("/changeset/summary-counts", test_summary_counts);
  g_test_add_func ("/changeset/apply-undo", test_apply_undo);
  g_test_add_func ("/changeset/reject", test_reject);
  g_test_add_func ("/changeset/reject-removal-keeps-edges", test_reject_removal_keeps_edges);
  g_test_add_func ("/changeset/conflict", test_conflict);
  g_test_add_func ("/changeset/conflict-removed", test_conflict_removed);
  g_test_add_func ("/changeset/other-step-kept", test_other_step_kept);
  g_test_add_func ("/changeset/successor-of-removed-kept", test_successor_of_removed_kept);
  g_test_add_func ("/changeset/apply-new-problem", test_apply_new_problem);
  g_test_add_func ("/changeset/old-problem", test_old_problem);
  g_test_add_func ("/changeset/remove-then-add", test_remove_then_add);

  return g_test_run ();
}
