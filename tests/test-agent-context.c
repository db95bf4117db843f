/* test-agent-context.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include "sk-agent-context.h"
#include "sk-test-util.h"

#define N_GENERATED 50
#define SEED 20260214
#define DESCRIPTION "Turns the monthly sales files into a report (PROCESS-DESCRIPTION)."

typedef struct
{
  char      *folder;
  SkProject *project;
} Fixture;

static gboolean
has_script (guint i)
{
  return i % 3 != 1;
}

static char *
script_marker (const char *key)
{
  return g_strdup_printf ("SCRIPT-MARKER <%s>", key);
}

static char *
report_marker (const char *key)
{
  return g_strdup_printf ("REPORT-MARKER <%s>", key);
}

/* Fifty steps "step 0" … "step 49" (keys step_0 …). Each step after the
 * first needs one to three earlier steps, drawn with a fixed seed. Two in
 * three have a script, one in four has a report, all have a canvas
 * position (which the context must leave out).
 */
static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (SEED);
  g_autoptr(GFile) folder = NULL;

  fixture->folder = sk_test_make_tmp_dir ("context");
  folder = g_file_new_for_path (fixture->folder);
  fixture->project = sk_project_new (folder);
  sk_project_set_name (fixture->project, "sales report");
  sk_project_set_description (fixture->project, DESCRIPTION);

  for (guint i = 0; i < N_GENERATED; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i + 1);
      g_autofree char *name = g_strdup_printf ("step %u", i);
      g_autofree char *task = g_strdup_printf ("Do the work of step %u.", i);
      g_autoptr(SkNode) node = sk_node_new (id, name);
      g_autoptr(GError) error = NULL;
      guint n_priors = i == 0 ? 0 : (guint) g_rand_int_range (rand, 1, MIN (i, 3) + 1);

      for (guint j = 0; j < n_priors; j++)
        {
          g_autofree char *prior = g_strdup_printf ("%d", g_rand_int_range (rand, 0, i) + 1);

          sk_node_add_prior (node, prior);
        }

      sk_node_set_input_text (node, task);
      sk_node_set_position (node, 10.0 * i, 20.0 * i);
      if (i % 4 == 0)
        {
          g_autofree char *report = report_marker (sk_node_get_key (node));

          sk_node_set_output_text (node, report);
        }

      if (has_script (i))
        {
          const char *key = sk_node_get_key (node);
          g_autofree char *relative = g_strdup_printf ("%s/%s.py", key, key);
          g_autofree char *marker = script_marker (key);
          g_autofree char *text = g_strdup_printf ("# %s\nstate = {}\n", marker);

          sk_test_write_text (fixture->folder, relative, text);
        }

      g_assert_true (sk_project_add_node (fixture->project, node, &error));
      g_assert_no_error (error);
    }
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->project);
  sk_test_remove_tree (fixture->folder);
  g_clear_pointer (&fixture->folder, g_free);
}

/* Returns the sections of @text as a table from key to role, asserting that
 * no step has two sections.
 */
static GHashTable *
parse_sections (const char *text)
{
  g_autoptr(GHashTable) sections = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  const char *prefix = "## step `";
  const char *separator = "` — ";

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *key;
      const char *end;

      if (!g_str_has_prefix (lines[i], prefix))
        continue;

      key = lines[i] + strlen (prefix);
      end = strstr (key, separator);
      g_assert_nonnull (end);
      g_assert_true (g_hash_table_insert (sections, g_strndup (key, end - key),
                                          g_strdup (end + strlen (separator))));
    }

  return g_steal_pointer (&sections);
}

static void
assert_role (GHashTable *sections,
             SkNode     *node,
             const char *role)
{
  const char *found = g_hash_table_lookup (sections, sk_node_get_key (node));

  g_assert_nonnull (found);
  g_assert_cmpstr (found, ==, role);
}

/* Brute force from the priors lists: distance 0 for @node, 1 for its priors
 * and successors, 2 for the steps linked to those.
 */
static GHashTable *
distances_from (SkProject *project,
                SkNode    *node)
{
  GHashTable *distance = g_hash_table_new (NULL, NULL);
  guint n_nodes = sk_project_get_n_nodes (project);

  g_hash_table_insert (distance, node, GUINT_TO_POINTER (1));

  for (guint round = 2; round <= 3; round++)
    {
      g_autoptr(GPtrArray) found = g_ptr_array_new ();

      for (guint i = 0; i < n_nodes; i++)
        {
          g_autoptr(SkNode) a = g_list_model_get_item (G_LIST_MODEL (project), i);

          for (guint j = 0; j < n_nodes; j++)
            {
              g_autoptr(SkNode) b = g_list_model_get_item (G_LIST_MODEL (project), j);

              /* a → b is an edge; from a known end, reach the other. */
              if (!sk_node_has_prior (b, sk_node_get_id (a)))
                continue;
              if (GPOINTER_TO_UINT (g_hash_table_lookup (distance, a)) == round - 1 &&
                  !g_hash_table_contains (distance, b))
                g_ptr_array_add (found, b);
              if (GPOINTER_TO_UINT (g_hash_table_lookup (distance, b)) == round - 1 &&
                  !g_hash_table_contains (distance, a))
                g_ptr_array_add (found, a);
            }
        }

      for (guint i = 0; i < found->len; i++)
        if (!g_hash_table_contains (distance, g_ptr_array_index (found, i)))
          g_hash_table_insert (distance, g_ptr_array_index (found, i), GUINT_TO_POINTER (round));
    }

  return distance;
}

static char *
build (SkProject      *project,
       SkNode         *node,
       SkAgentContextScope  scope)
{
  g_autoptr(GError) error = NULL;
  char *text = sk_agent_context_build (project, node, scope, &error);

  g_assert_no_error (error);
  g_assert_nonnull (text);
  g_assert_true (g_utf8_validate (text, -1, NULL));
  return text;
}

/* The sections and sk_agent_context_nodes() name the same steps, in order. */
static void
assert_nodes_match (SkProject      *project,
                    SkNode         *node,
                    SkAgentContextScope  scope,
                    const char     *text)
{
  g_autoptr(GPtrArray) nodes = sk_agent_context_nodes (project, node, scope);
  const char *position = text;

  g_assert_nonnull (nodes);
  g_assert_true (g_ptr_array_index (nodes, 0) == node);

  for (guint i = 0; i < nodes->len; i++)
    {
      g_autofree char *header = g_strdup_printf ("## step `%s` — ",
                                                 sk_node_get_key (g_ptr_array_index (nodes, i)));

      position = strstr (position, header);
      g_assert_nonnull (position);
    }
}

static void
test_blanket (Fixture       *fixture,
              gconstpointer  data)
{
  SkProject *project = fixture->project;
  guint with_both = 0;

  for (guint i = 0; i < N_GENERATED; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      g_autoptr(GHashTable) sections = NULL;
      g_autofree char *text = build (project, node, SK_AGENT_CONTEXT_BLANKET);
      guint n_expected = 1;
      guint n_priors = 0;
      guint n_successors = 0;

      sections = parse_sections (text);
      assert_role (sections, node, "the step to work on");

      for (guint j = 0; j < N_GENERATED; j++)
        {
          g_autoptr(SkNode) other = g_list_model_get_item (G_LIST_MODEL (project), j);
          gboolean is_prior = sk_node_has_prior (node, sk_node_get_id (other));
          gboolean is_successor = sk_node_has_prior (other, sk_node_get_id (node));
          g_autofree char *script = script_marker (sk_node_get_key (other));
          g_autofree char *report = report_marker (sk_node_get_key (other));

          if (is_prior)
            {
              assert_role (sections, other, "needs its results");
              n_priors++;
            }
          else if (is_successor)
            {
              assert_role (sections, other, "uses this step's results");
              n_successors++;
            }
          else if (other != node)
            {
              g_assert_false (g_hash_table_contains (sections, sk_node_get_key (other)));
            }

          /* Scripts are shown for the neighbours that have one, and only
           * for them; reports for every step in the context.
           */
          if ((is_prior || is_successor) && has_script (j))
            sk_test_assert_contains (text, script);
          else
            g_assert_null (strstr (text, script));

          if ((is_prior || is_successor || other == node) && j % 4 == 0)
            sk_test_assert_contains (text, report);
          else
            g_assert_null (strstr (text, report));
        }

      n_expected += n_priors + n_successors;
      g_assert_cmpuint (g_hash_table_size (sections), ==, n_expected);
      assert_nodes_match (project, node, SK_AGENT_CONTEXT_BLANKET, text);

      if (n_priors > 0 && n_successors > 0)
        with_both++;
    }

  g_assert_cmpuint (with_both, >, 10);
}

static void
test_two_hop (Fixture       *fixture,
              gconstpointer  data)
{
  SkProject *project = fixture->project;
  guint larger = 0;

  for (guint i = 0; i < N_GENERATED; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      g_autoptr(GHashTable) distance = distances_from (project, node);
      g_autofree char *blanket_text = build (project, node, SK_AGENT_CONTEXT_BLANKET);
      g_autofree char *text = build (project, node, SK_AGENT_CONTEXT_TWO_HOP);
      g_autoptr(GHashTable) blanket = parse_sections (blanket_text);
      g_autoptr(GHashTable) sections = parse_sections (text);
      GHashTableIter iter;
      gpointer key;
      gpointer role;

      /* Everything in the blanket, with the same role. */
      g_hash_table_iter_init (&iter, blanket);
      while (g_hash_table_iter_next (&iter, &key, &role))
        g_assert_cmpstr (g_hash_table_lookup (sections, key), ==, role);

      g_assert_cmpuint (g_hash_table_size (sections), ==, g_hash_table_size (distance));
      for (guint j = 0; j < N_GENERATED; j++)
        {
          g_autoptr(SkNode) other = g_list_model_get_item (G_LIST_MODEL (project), j);
          g_autofree char *script = script_marker (sk_node_get_key (other));
          guint d = GPOINTER_TO_UINT (g_hash_table_lookup (distance, other));

          if (d == 3)
            assert_role (sections, other, "two steps away");
          else if (d == 0)
            g_assert_false (g_hash_table_contains (sections, sk_node_get_key (other)));

          if (d >= 2 && has_script (j))
            sk_test_assert_contains (text, script);
          else
            g_assert_null (strstr (text, script));
        }

      assert_nodes_match (project, node, SK_AGENT_CONTEXT_TWO_HOP, text);
      if (g_hash_table_size (sections) > g_hash_table_size (blanket))
        larger++;
    }

  g_assert_cmpuint (larger, >, N_GENERATED / 2);
}

static void
test_full (Fixture       *fixture,
           gconstpointer  data)
{
  SkProject *project = fixture->project;
  guint indices[] = { 0, 7, 24, 49 };

  for (guint i = 0; i < G_N_ELEMENTS (indices); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), indices[i]);
      g_autoptr(GHashTable) distance = distances_from (project, node);
      g_autofree char *text = build (project, node, SK_AGENT_CONTEXT_FULL);
      g_autoptr(GHashTable) sections = parse_sections (text);
      g_autoptr(GPtrArray) nodes = sk_agent_context_nodes (project, node, SK_AGENT_CONTEXT_FULL);

      g_assert_cmpuint (g_hash_table_size (sections), ==, N_GENERATED);
      g_assert_cmpuint (nodes->len, ==, N_GENERATED);
      sk_test_assert_contains (text, "every step of the workflow (50)");

      for (guint j = 0; j < N_GENERATED; j++)
        {
          g_autoptr(SkNode) other = g_list_model_get_item (G_LIST_MODEL (project), j);
          g_autofree char *script = script_marker (sk_node_get_key (other));

          if (!g_hash_table_contains (distance, other))
            assert_role (sections, other, "elsewhere in the workflow");

          if (other != node && has_script (j))
            sk_test_assert_contains (text, script);
          else
            g_assert_null (strstr (text, script));
        }

      assert_nodes_match (project, node, SK_AGENT_CONTEXT_FULL, text);
    }
}

/* The header, the process description, the target's own script and what is
 * left out of the JSON.
 */
static void
test_contents (Fixture       *fixture,
               gconstpointer  data)
{
  SkProject *project = fixture->project;
  SkNode *with_script = sk_project_get_node_by_key (project, "step_0");
  SkNode *without_script = sk_project_get_node_by_key (project, "step_1");
  g_autofree char *text = build (project, with_script, SK_AGENT_CONTEXT_BLANKET);
  g_autofree char *other = build (project, without_script, SK_AGENT_CONTEXT_BLANKET);

  g_assert_true (g_str_has_prefix (text, "# Workflow: sales report\n\n" DESCRIPTION "\n\n"));
  sk_test_assert_contains (text, "## step `step_0` — the step to work on\n\n```json\n{\n");
  sk_test_assert_contains (text, "Its script is `step_0/step_0.py`.");
  sk_test_assert_contains (other, "Its script, `step_1/step_1.py`, is not written yet.");
  sk_test_assert_contains (text, "\"input\" : {\n    \"text\" : \"Do the work of step 0.\"");
  sk_test_assert_contains (text, "What it reported when it last ran (output.text):\n\n"
                           "```text\nREPORT-MARKER <step_0>\n```\n");

  /* Canvas positions and other bookkeeping stay out. */
  g_assert_null (strstr (text, "\"skele\""));
  g_assert_null (strstr (text, "\"x\""));
  g_assert_null (strstr (other, "\"skele\""));
}

/* The same workflow gives the same text: twice in a row, and after saving
 * and loading it again.
 */
static void
test_deterministic (Fixture       *fixture,
                    gconstpointer  data)
{
  SkProject *project = fixture->project;
  g_autoptr(GFile) folder = g_file_new_for_path (fixture->folder);
  g_autoptr(SkProject) loaded = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (sk_project_save (project, &error));
  g_assert_no_error (error);
  loaded = sk_project_load (folder, &error);
  g_assert_no_error (error);

  for (SkAgentContextScope scope = SK_AGENT_CONTEXT_BLANKET; scope <= SK_AGENT_CONTEXT_FULL; scope++)
    {
      for (guint i = 0; i < N_GENERATED; i += 7)
        {
          g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
          SkNode *same = sk_project_get_node_by_key (loaded, sk_node_get_key (node));
          g_autofree char *first = build (project, node, scope);
          g_autofree char *second = build (project, node, scope);
          g_autofree char *reloaded = build (loaded, same, scope);

          g_assert_cmpstr (first, ==, second);
          g_assert_cmpstr (first, ==, reloaded);
        }
    }
}

/* A long script is cut at a line end, and text that holds a fence cannot
 * close the block it is shown in.
 */
static void
test_long_script (Fixture       *fixture,
                  gconstpointer  data)
{
  SkProject *project = fixture->project;
  SkNode *prior = sk_project_get_node_by_key (project, "step_0");
  g_autoptr(GPtrArray) successors = sk_project_get_successors (project, prior);
  SkNode *node = g_ptr_array_index (successors, 0);
  g_autoptr(GString) script = g_string_new ("# ```\n");
  g_autofree char *text = NULL;
  g_autofree char *last_line = NULL;
  const char *start;
  const char *end;

  while (script->len <= SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE * 2)
    g_string_append (script, "print(\"line of a long script\")\n");
  g_string_append (script, "LAST-LINE\n");
  sk_test_write_text (fixture->folder, "step_0/step_0.py", script->str);

  text = build (project, node, SK_AGENT_CONTEXT_BLANKET);
  start = strstr (text, "Its script, `step_0/step_0.py`:\n\n````python\n# ```\nprint(");
  g_assert_nonnull (start);
  end = strstr (start, "\n````\n\n(The script is longer than 64 KiB; only its beginning is shown.)");
  g_assert_nonnull (end);
  g_assert_cmpint (end - start, <, SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE + 100);
  g_assert_cmpint (end - start, >, SK_AGENT_CONTEXT_MAX_SCRIPT_SIZE - 100);
  last_line = g_strndup (end - 32, 32);
  g_assert_true (g_str_has_suffix (last_line, "script\")"));
  g_assert_null (strstr (text, "LAST-LINE"));
}

static void
test_not_in_project (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(SkNode) stranger = sk_node_new ("1", "step 0");
  g_autoptr(GError) error = NULL;
  g_autofree char *text = sk_agent_context_build (fixture->project, stranger, SK_AGENT_CONTEXT_BLANKET, &error);

  g_assert_null (text);
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_NOT_FOUND);

  /* sk_agent_context_nodes() has no error to report it in: a programmer error. */
  g_test_expect_message ("sk-agent-context", G_LOG_LEVEL_CRITICAL, "*is_in_project*");
  g_assert_null (sk_agent_context_nodes (fixture->project, stranger, SK_AGENT_CONTEXT_FULL));
  g_test_assert_expected_messages ();
}

/* A project without a folder has no scripts to read, and a workflow with a
 * cycle still gets a context, in file order.
 */
static void
test_no_folder (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(SkNode) a = sk_node_new ("1", "a");
  g_autoptr(SkNode) b = sk_node_new ("2", "b");
  g_autoptr(SkNode) c = sk_node_new ("3", "c");
  g_autofree char *text = NULL;
  g_autoptr(GHashTable) sections = NULL;
  g_autoptr(GPtrArray) nodes = NULL;

  sk_node_set_priors (b, SK_TEST_STRV ("1", "3"));
  sk_node_set_priors (c, SK_TEST_STRV ("2"));
  g_assert_true (sk_project_add_node (project, a, NULL));
  g_assert_true (sk_project_add_node (project, b, NULL));
  g_assert_true (sk_project_add_node (project, c, NULL));

  text = build (project, a, SK_AGENT_CONTEXT_TWO_HOP);
  g_assert_true (g_str_has_prefix (text, "# Workflow: (no name)\n\nShown below: "));
  g_assert_null (strstr (text, "Its script"));
  g_assert_null (strstr (text, "no script"));
  sections = parse_sections (text);
  assert_role (sections, a, "the step to work on");
  assert_role (sections, b, "uses this step's results");
  assert_role (sections, c, "two steps away");

  nodes = sk_agent_context_nodes (project, a, SK_AGENT_CONTEXT_TWO_HOP);
  g_assert_cmpuint (nodes->len, ==, 3);
  g_assert_true (g_ptr_array_index (nodes, 1) == b);
  g_assert_true (g_ptr_array_index (nodes, 2) == c);
}

/* The step's control flow is told in words, for each role it concerns. */
static void
test_control_flow (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autofree char *target = NULL;
  g_autofree char *gate = NULL;
  g_autofree char *after_each = NULL;

  project = sk_project_load_from_data (
    "{\"process_name\": \"Flow\", \"nodes\": {"
    " \"1\": {\"name\": \"score files\", \"priors\": []},"
    " \"2\": {\"name\": \"each file\", \"priors\": [\"1\"],"
    "         \"skele\": {\"foreach\": {\"prior\": \"1\", \"path\": \"files\"},"
    "                      \"when\": {\"1\": \"output['score'] >= 80\"}}},"
    " \"3\": {\"name\": \"fallback\", \"priors\": [\"1\"], \"skele\": {\"when\": {\"1\": \"default\"}}},"
    " \"4\": {\"name\": \"sign off\", \"priors\": [\"2\"], \"skele\": {\"approval\": true}},"
    " \"5\": {\"name\": \"publish\", \"priors\": [\"4\"], \"skele\": {\"workflow\": \"publish\"}}}}",
    -1, NULL, &error);
  g_assert_no_error (error);

  target = build (project, sk_project_get_node (project, "2"), SK_AGENT_CONTEXT_BLANKET);
  sk_test_assert_contains (target, "runs once for every element of the list at `files` in the output of "
                                   "step `score_files`");
  sk_test_assert_contains (target, "`state[\"item\"]` holds the element");
  sk_test_assert_contains (target, "runs after step `score_files` only when `output['score'] >= 80` is true");
  /* Neither the gate after it nor its own JSON tells of "skele". */
  g_assert_null (strstr (target, "\"foreach\""));
  g_assert_null (strstr (target, "approval gate"));

  gate = build (project, sk_project_get_node (project, "4"), SK_AGENT_CONTEXT_BLANKET);
  sk_test_assert_contains (gate, "This step is an approval gate");
  /* Its prior's output is the joined list; its successor a sub-workflow. */
  sk_test_assert_contains (gate, "its output is `{\"task_status\": \"success\", \"items\": [...]}`");
  sk_test_assert_contains (gate, "the workflow in the folder `publish`");

  after_each = build (project, sk_project_get_node (project, "1"), SK_AGENT_CONTEXT_BLANKET);
  sk_test_assert_contains (after_each, "Step `each_file` runs after this one only when `output['score'] >= 80` "
                                       "is true of this step's output");
  /* The default branch reads nothing of the output. */
  g_assert_null (strstr (after_each, "Step `fallback` runs after"));
}

/* A first step of a workflow run as a step of another is told what it
 * receives in prior_outputs["inputs"]. */
static void
test_subflow_inputs (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) inner = NULL;
  g_autoptr(GFile) inner_folder = NULL;
  g_autofree char *dir = sk_test_make_tmp_dir ("context-subflow");
  g_autofree char *inner_path = g_build_filename (dir, "clean", NULL);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  sk_test_write_text (dir, "process.json",
                      "{\"process_name\": \"Outer\", \"nodes\": {"
                      " \"1\": {\"name\": \"load addresses\", \"priors\": []},"
                      " \"2\": {\"name\": \"clean\", \"priors\": [\"1\"], \"skele\": {\"workflow\": \"clean\"}}}}");
  g_mkdir_with_parents (inner_path, 0755);
  sk_test_write_text (inner_path, "process.json",
                      "{\"process_name\": \"Clean\", \"nodes\": {"
                      " \"1\": {\"name\": \"trim\", \"priors\": []},"
                      " \"2\": {\"name\": \"dedupe\", \"priors\": [\"1\"]}}}");
  inner_folder = g_file_new_for_path (inner_path);
  inner = sk_project_load (inner_folder, &error);
  g_assert_no_error (error);

  first = build (inner, sk_project_get_node (inner, "1"), SK_AGENT_CONTEXT_BLANKET);
  sk_test_assert_contains (first, "This workflow runs as the step `clean` of another workflow");
  sk_test_assert_contains (first, "`prior_outputs[\"inputs\"]` holds the outputs of the steps before "
                                  "that one, by their keys: `load_addresses`.");

  /* A step with priors of its own gets them as usual. */
  second = build (inner, sk_project_get_node (inner, "2"), SK_AGENT_CONTEXT_BLANKET);
  g_assert_null (strstr (second, "prior_outputs[\"inputs\"]"));

  sk_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/context/blanket", Fixture, NULL, fixture_set_up, test_blanket, fixture_tear_down);
  g_test_add ("/context/two-hop", Fixture, NULL, fixture_set_up, test_two_hop, fixture_tear_down);
  g_test_add ("/context/full", Fixture, NULL, fixture_set_up, test_full, fixture_tear_down);
  g_test_add ("/context/contents", Fixture, NULL, fixture_set_up, test_contents, fixture_tear_down);
  g_test_add ("/context/deterministic", Fixture, NULL,
              fixture_set_up, test_deterministic, fixture_tear_down);
  g_test_add ("/context/long-script", Fixture, NULL,
              fixture_set_up, test_long_script, fixture_tear_down);
  g_test_add ("/context/not-in-project", Fixture, NULL,
              fixture_set_up, test_not_in_project, fixture_tear_down);
  g_test_add_func ("/context/no-folder", test_no_folder);
  g_test_add_func ("/context/control-flow", test_control_flow);
  g_test_add_func ("/context/subflow-inputs", test_subflow_inputs);

  return g_test_run ();
}
