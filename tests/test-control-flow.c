/* test-control-flow.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A step's control flow as process.json stores it under "skele" (DESIGN
 * §10): read back with its types, kept as written, and checked with a
 * message that says what to do.
 */

#define G_LOG_DOMAIN "test-control-flow"

#include <string.h>

#include "sk-control-flow.h"
#include "sk-project.h"
#include "sk-test-util.h"

/* Load feeds Decide; Accept and Reject branch on it; Each runs per file;
 * Gate waits for approval; Inner is a sub-workflow. */
static const char valid_json[] =
  "{\n"
  "  \"process_name\": \"Flow\",\n"
  "  \"nodes\": {\n"
  "    \"1\": {\"name\": \"Load\", \"priors\": []},\n"
  "    \"2\": {\"name\": \"Accept\", \"priors\": [\"1\"],\n"
  "          \"skele\": {\"when\": {\"1\": \"output['score'] >= 80\"}}},\n"
  "    \"3\": {\"name\": \"Reject\", \"priors\": [\"1\"],\n"
  "          \"skele\": {\"when\": {\"1\": \"default\"}}},\n"
  "    \"4\": {\"name\": \"Each\", \"priors\": [\"1\"],\n"
  "          \"skele\": {\"foreach\": {\"prior\": \"1\", \"path\": \"result.files\"}}},\n"
  "    \"5\": {\"name\": \"Gate\", \"priors\": [\"4\"], \"skele\": {\"approval\": true, \"x\": 10, \"y\": 20}},\n"
  "    \"6\": {\"name\": \"Inner\", \"priors\": [\"5\"], \"skele\": {\"workflow\": \"sub/inner\"}}\n"
  "  }\n"
  "}\n";

static SkProject *
load_in (const char *dir,
         const char *json)
{
  g_autoptr(GFile) folder = dir != NULL ? g_file_new_for_path (dir) : NULL;
  g_autoptr(GError) error = NULL;
  SkProject *project = sk_project_load_from_data (json, -1, folder, &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  return project;
}

static GPtrArray *
control_flow_problems (SkProject *project)
{
  g_autoptr(GPtrArray) all = sk_project_validate (project);
  GPtrArray *found = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free);

  for (guint i = 0; i < all->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (all, i);

      if (problem->kind == SK_PROBLEM_CONTROL_FLOW)
        g_ptr_array_add (found, sk_problem_copy (problem));
    }

  return found;
}

static void
test_read (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("control-flow");
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autofree char *saved = NULL;
  const char *prior = NULL;
  const char *path = NULL;

  sk_test_write_text (dir, "sub/inner/process.json", "{\"process_name\": \"Inner\", \"nodes\": {}}\n");
  project = load_in (dir, valid_json);
  problems = control_flow_problems (project);
  g_assert_cmpuint (problems->len, ==, 0);

  g_assert_cmpstr (sk_node_get_condition (sk_project_get_node (project, "2"), "1"), ==, "output['score'] >= 80");
  g_assert_cmpstr (sk_node_get_condition (sk_project_get_node (project, "3"), "1"), ==, SK_CONTROL_FLOW_DEFAULT);
  g_assert_null (sk_node_get_condition (sk_project_get_node (project, "4"), "1"));
  g_assert_true (sk_node_get_foreach (sk_project_get_node (project, "4"), &prior, &path));
  g_assert_cmpstr (prior, ==, "1");
  g_assert_cmpstr (path, ==, "result.files");
  g_assert_false (sk_node_get_foreach (sk_project_get_node (project, "1"), NULL, NULL));
  g_assert_true (sk_node_get_approval (sk_project_get_node (project, "5")));
  g_assert_false (sk_node_get_approval (sk_project_get_node (project, "4")));
  g_assert_cmpstr (sk_node_get_workflow (sk_project_get_node (project, "6")), ==, "sub/inner");
  g_assert_null (sk_node_get_workflow (sk_project_get_node (project, "5")));

  /* Saved as written, beside the position. */
  saved = sk_project_to_data (project, NULL);
  sk_test_assert_contains (saved, "\"approval\" : true");
  sk_test_assert_contains (saved, "\"path\" : \"result.files\"");
  sk_test_assert_contains (saved, "\"workflow\" : \"sub/inner\"");
  sk_test_assert_contains (saved, "\"1\" : \"output['score'] >= 80\"");

  sk_test_remove_tree (dir);
}

typedef struct
{
  const char *name;
  const char *skele;       /* the "skele" member of step 2, which needs step 1 */
  const char *message;     /* part of the one problem expected */
} BadCase;

static const BadCase bad_cases[] = {
  { "approval-not-boolean", "{\"approval\": \"yes\"}", "must be true or false" },
  { "when-not-object", "{\"when\": [\"1\"]}", "must be an object" },
  { "when-not-a-prior", "{\"when\": {\"3\": \"True\"}}", "has a condition on “Other”, which it does not need" },
  { "when-empty", "{\"when\": {\"1\": \"  \"}}", "is empty or not text" },
  { "when-number", "{\"when\": {\"1\": 3}}", "is empty or not text" },
  { "foreach-no-prior", "{\"foreach\": {\"path\": \"files\"}}", "does not say whose" },
  { "foreach-not-object", "{\"foreach\": \"files\"}", "does not say whose" },
  { "foreach-not-a-prior", "{\"foreach\": {\"prior\": \"3\", \"path\": \"files\"}}", "which it does not need" },
  { "foreach-bad-path", "{\"foreach\": {\"prior\": \"1\", \"path\": \"a..b\"}}", "does not say where the list is" },
  { "workflow-empty", "{\"workflow\": \"\"}", "names no folder" },
  { "workflow-absolute", "{\"workflow\": \"/tmp/else\"}", "must be a folder inside" },
  { "workflow-up", "{\"workflow\": \"sub/../../else\"}", "must be a folder inside" },
  { "workflow-itself", "{\"workflow\": \"./\"}", "must be a folder inside" },
  { "workflow-missing", "{\"workflow\": \"nowhere\"}", "holds no workflow" },
};

static void
test_bad (gconstpointer data)
{
  const BadCase *bad = data;
  g_autofree char *dir = sk_test_make_tmp_dir ("control-flow-bad");
  g_autofree char *json = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  SkProblem *problem;

  json = g_strdup_printf ("{\"process_name\": \"Bad\", \"nodes\": {"
                          " \"1\": {\"name\": \"Load\", \"priors\": []},"
                          " \"2\": {\"name\": \"Use\", \"priors\": [\"1\"], \"skele\": %s},"
                          " \"3\": {\"name\": \"Other\", \"priors\": []}}}", bad->skele);
  project = load_in (dir, json);
  problems = control_flow_problems (project);

  g_assert_cmpuint (problems->len, ==, 1);
  problem = g_ptr_array_index (problems, 0);
  g_assert_false (problem->is_warning);
  g_assert_cmpstr (problem->node_id, ==, "2");
  sk_test_assert_contains (problem->message, bad->message);
  sk_test_assert_contains (problem->message, "“Use”");

  /* What is malformed reads as absent. */
  g_assert_false (sk_node_get_approval (sk_project_get_node (project, "2")));

  sk_test_remove_tree (dir);
}

/* Two default branches after one step would both run. */
static void
test_two_defaults (void)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  SkProblem *problem;

  project = load_in (NULL,
                     "{\"process_name\": \"Two\", \"nodes\": {"
                     " \"1\": {\"name\": \"Load\", \"priors\": []},"
                     " \"2\": {\"name\": \"A\", \"priors\": [\"1\"], \"skele\": {\"when\": {\"1\": \"default\"}}},"
                     " \"3\": {\"name\": \"B\", \"priors\": [\"1\"], \"skele\": {\"when\": {\"1\": \"default\"}}}}}");
  problems = control_flow_problems (project);

  g_assert_cmpuint (problems->len, ==, 1);
  problem = g_ptr_array_index (problems, 0);
  g_assert_cmpstr (problem->node_id, ==, "3");
  sk_test_assert_contains (problem->message, "Both “A” and “B” are the default branch after “Load”");
  g_assert_true (g_strv_contains ((const char * const *) problem->node_ids, "2"));
  g_assert_true (g_strv_contains ((const char * const *) problem->node_ids, "3"));
}

/* A workflow without a folder cannot have its sub-workflows looked for;
 * it is not refused for that. */
static void
test_workflow_without_folder (void)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) problems = NULL;

  project = load_in (NULL,
                     "{\"process_name\": \"Sub\", \"nodes\": {"
                     " \"1\": {\"name\": \"Inner\", \"priors\": [], \"skele\": {\"workflow\": \"inner\"}}}}");
  problems = control_flow_problems (project);
  g_assert_cmpuint (problems->len, ==, 0);
  g_assert_cmpstr (sk_node_get_workflow (sk_project_get_node (project, "1")), ==, "inner");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/control-flow/read", test_read);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/control-flow/bad/%s", bad_cases[i].name);

      g_test_add_data_func (path, &bad_cases[i], test_bad);
    }
  g_test_add_func ("/control-flow/two-defaults", test_two_defaults);
  g_test_add_func ("/control-flow/workflow-without-folder", test_workflow_without_folder);

  return g_test_run ();
}
