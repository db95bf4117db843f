/* test-cli-export.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `skele export` and `skele import` as a person uses them: the example
 * workflow exported to Mermaid and imported again gives the same steps,
 * tasks, connections, conditions and flags; the pictures are what their
 * names say; bad input says what is wrong and writes nothing.
 *
 * skele's output is read as bytes (SK_TEST_RUN_BINARY), as it may be a
 * picture.
 */

#define G_LOG_DOMAIN "test-cli-export"

#include <string.h>

#include <json-glib/json-glib.h>

#include "skele.h"
#include "sk-test-util.h"

static const char *examples_dir;

static char *
example_folder (void)
{
  return g_build_filename (examples_dir, "sales-report", NULL);
}

static SkProject *
load (const char *folder)
{
  g_autoptr(GFile) file = g_file_new_for_path (folder);
  g_autoptr(GError) error = NULL;
  SkProject *project = sk_project_load (file, &error);

  g_assert_no_error (error);
  return project;
}

/* The JSON of every step, by key, with priors named by key too: what a
 * round trip must keep. The results of runs go with the steps. */
static JsonObject *
steps_by_key (SkProject *project)
{
  JsonObject *steps = json_object_new ();

  for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      JsonObject *object = sk_node_to_json (node);
      const char * const *priors = sk_node_get_priors (node);
      JsonArray *prior_keys = json_array_new ();

      for (guint j = 0; priors[j] != NULL; j++)
        json_array_add_string_element (prior_keys,
                                       sk_node_get_key (sk_project_get_node (project, priors[j])));
      json_object_set_array_member (object, "priors", prior_keys);
      json_object_set_object_member (steps, sk_node_get_key (node), object);
    }

  return steps;
}

static void
assert_same_steps (SkProject *expected,
                   SkProject *actual)
{
  g_autoptr(JsonObject) a = steps_by_key (expected);
  g_autoptr(JsonObject) b = steps_by_key (actual);
  g_autoptr(JsonNode) a_node = json_node_init_object (json_node_alloc (), a);
  g_autoptr(JsonNode) b_node = json_node_init_object (json_node_alloc (), b);
  g_autofree char *a_text = json_to_string (a_node, TRUE);
  g_autofree char *b_text = json_to_string (b_node, TRUE);

  g_assert_cmpstr (b_text, ==, a_text);
}

/* The example, with a gate, a for-each and conditions, goes to Mermaid and
 * back whole. */
static void
test_round_trip (void)
{
  g_autofree char *example = example_folder ();
  g_autofree char *dir = sk_test_make_tmp_dir ("cli-export");
  g_autofree char *chart = g_build_filename (dir, "sales.mmd", NULL);
  g_autofree char *imported = g_build_filename (dir, "imported", NULL);
  g_autofree char *text = NULL;
  g_autoptr(SkProject) original = load (example);
  g_autoptr(SkProject) copy = NULL;
  g_auto(SkTestResult) result = { 0 };

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY, "export", example, "--format", "mermaid", NULL);
  sk_test_assert_status (&result, 0);
  g_assert_true (g_str_has_prefix (result.out, "flowchart TD\n"));
  sk_test_assert_contains (result.out, "load_sales[\"load sales\"]");
  sk_test_assert_contains (result.out, "load_sales --> monthly_totals");
  sk_test_assert_contains (result.out, "revenue_by_region -->|\"default\"| confirm_balance");
  sk_test_assert_contains (result.out, "%% === WORKFLOW_CONFIG ===");
  sk_test_assert_contains (result.out, "\"stepType\" : \"foreach\"");
  sk_test_assert_contains (result.out, "\"itemsPath\" : \"output.region_totals\"");
  sk_test_assert_contains (result.out, "%% === END_CONFIG ===");

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY,
                     "export", example, "--format", "mermaid", "-o", chart, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "Wrote “sales report”");

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY, "import", chart, "-o", imported, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "Made a workflow of 9 steps");

  copy = load (imported);
  g_assert_cmpstr (sk_project_get_name (copy), ==, sk_project_get_name (original));
  g_assert_cmpstr (sk_project_get_description (copy), ==, sk_project_get_description (original));
  assert_same_steps (original, copy);

  /* Exporting the copy gives the same chart. */
  sk_test_run_skele (&result, SK_TEST_RUN_BINARY, "export", imported, "--format", "mermaid", NULL);
  sk_test_assert_status (&result, 0);
  g_assert_true (g_file_get_contents (chart, &text, NULL, NULL));
  g_assert_cmpstr (result.out, ==, text);

  sk_test_remove_tree (dir);
}

/* Identifiers other than 1, 2, 3… come back as they were, with the
 * conditions and the for-each that name priors by them. */
static void
test_round_trip_ids (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli-export");
  g_autofree char *original = g_build_filename (dir, "original", NULL);
  g_autofree char *chart = g_build_filename (dir, "chart.mmd", NULL);
  g_autofree char *imported = g_build_filename (dir, "imported", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_text (original, "process.json",
                      "{\"process_name\": \"ids\", \"process_description\": \"Odd ids.\", \"nodes\": {"
                      " \"z9\": {\"name\": \"list\", \"priors\": []},"
                      " \"a1\": {\"name\": \"each\", \"priors\": [\"z9\"],"
                      "          \"skele\": {\"foreach\": {\"prior\": \"z9\", \"path\": \"items\"}}},"
                      " \"m5\": {\"name\": \"big\", \"priors\": [\"z9\"],"
                      "          \"skele\": {\"when\": {\"z9\": \"len(output[\\\"items\\\"]) > 3\"}, \"approval\": true}},"
                      " \"17\": {\"name\": \"small\", \"priors\": [\"z9\"],"
                      "          \"skele\": {\"when\": {\"z9\": \"default\"}}}}}");

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY,
                     "export", original, "--format", "mermaid", "-o", chart, NULL);
  sk_test_assert_status (&result, 0);
  sk_test_run_skele (&result, SK_TEST_RUN_BINARY, "import", chart, "-o", imported, NULL);
  sk_test_assert_status (&result, 0);

  before = sk_test_read_text (original, "process.json");
  after = sk_test_read_text (imported, "process.json");
  {
    g_autoptr(JsonObject) a = sk_test_parse_object (before);
    g_autoptr(JsonObject) b = sk_test_parse_object (after);
    JsonObject *a_nodes = json_object_get_object_member (a, "nodes");
    JsonObject *b_nodes = json_object_get_object_member (b, "nodes");
    g_autoptr(GList) ids = json_object_get_members (a_nodes);

    g_assert_cmpuint (json_object_get_size (b_nodes), ==, 4);
    for (GList *l = ids; l != NULL; l = l->next)
      {
        JsonObject *a_node = json_object_get_object_member (a_nodes, l->data);
        JsonObject *b_node = json_object_get_object_member (b_nodes, l->data);
        JsonObject *a_skele = json_object_get_member (a_node, "skele") != NULL ? json_object_get_object_member (a_node, "skele") : NULL;

        g_assert_nonnull (b_node);
        g_assert_cmpstr (json_object_get_string_member (b_node, "name"), ==,
                         json_object_get_string_member (a_node, "name"));
        if (a_skele != NULL)
          {
            g_autoptr(JsonNode) a_value = json_node_init_object (json_node_alloc (), a_skele);
            g_autoptr(JsonNode) b_value = json_node_init_object (json_node_alloc (),
                                                                  json_object_get_object_member (b_node, "skele"));

            g_assert_true (json_node_equal (a_value, b_value));
          }
      }
  }

  sk_test_remove_tree (dir);
}

/* A folder that holds a workflow is not overwritten, and a file that is
 * not a flowchart writes nothing. */
static void
test_import_refusals (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("cli-export");
  g_autofree char *chart = g_build_filename (dir, "chart.mmd", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.mmd", NULL);
  g_autofree char *taken = g_build_filename (dir, "taken", NULL);
  g_autofree char *fresh = g_build_filename (dir, "fresh", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_text (dir, "chart.mmd", "flowchart LR\n  A[Load] --> B[Sum]\n");
  sk_test_write_text (dir, "bad.mmd", "sequenceDiagram\n  Alice->>Bob: Hi\n");
  sk_test_write_text (taken, "process.json", "{\"process_name\": \"mine\", \"nodes\": {}}");
  before = sk_test_read_text (taken, "process.json");

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY, "import", chart, "-o", taken, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "holds a workflow already");
  after = sk_test_read_text (taken, "process.json");
  g_assert_cmpstr (after, ==, before);

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY, "import", bad, "-o", fresh, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "Nothing was written.");
  g_assert_false (g_file_test (fresh, G_FILE_TEST_EXISTS));

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY, "import", chart, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "-o FOLDER");

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY, "import", chart, "-o", fresh, NULL);
  sk_test_assert_status (&result, 0);
  g_assert_true (sk_test_exists (fresh, "process.json"));

  sk_test_remove_tree (dir);
}

/* The pictures are what their names say. */
static void
test_pictures (void)
{
  static const guint8 png_signature[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  g_autofree char *example = example_folder ();
  g_autofree char *dir = sk_test_make_tmp_dir ("cli-export");
  g_autofree char *png = g_build_filename (dir, "sales.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "sales.svg", NULL);
  g_autofree char *contents = NULL;
  gsize length;
  g_auto(SkTestResult) result = { 0 };

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY, "export", example, "--format", "dot", NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "digraph");
  sk_test_assert_contains (result.out, "load sales");

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY,
                     "export", example, "--format", "svg", "-o", svg, NULL);
  sk_test_assert_status (&result, 0);
  g_assert_true (g_file_get_contents (svg, &contents, &length, NULL));
  sk_test_assert_contains (contents, "<svg");
  sk_test_assert_contains (contents, "load sales");
  g_clear_pointer (&contents, g_free);

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY,
                     "export", example, "--format", "png", "-o", png, NULL);
  sk_test_assert_status (&result, 0);
  g_assert_true (g_file_get_contents (png, &contents, &length, NULL));
  g_assert_cmpuint (length, >, sizeof png_signature);
  g_assert_cmpmem (contents, sizeof png_signature, png_signature, sizeof png_signature);

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY, "export", example, "--format", "pdf", NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "one of mermaid, dot, svg, png");

  sk_test_run_skele (&result, SK_TEST_RUN_BINARY, "export", example, NULL);
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "choose the format with --format");

  sk_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!sk_test_need_skele (NULL, &examples_dir))
    return g_test_run ();

  g_test_add_func ("/cli-export/round-trip", test_round_trip);
  g_test_add_func ("/cli-export/round-trip-ids", test_round_trip_ids);
  g_test_add_func ("/cli-export/import-refusals", test_import_refusals);
  g_test_add_func ("/cli-export/pictures", test_pictures);

  return g_test_run ();
}
