/* test-project.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sk-project.h"
#include "sk-test-util.h"

/* A workflow written by another tool: old spellings, nested priors and
 * members this program does not know, at every level.
 */
static const char sample_json[] =
  "{\n"
  "  \"project name\": \"Sales report\",\n"
  "  \"project description\": \"A year of sales\",\n"
  "  \"author\": {\"who\": \"ana\", \"years\": [2024, 2025]},\n"
  "  \"skele\": {\"python\": \"/opt/python3\", \"theme\": \"dark\"},\n"
  "  \"nodes\": {\n"
  "    \"1\": {\n"
  "      \"name\": \"Load Sales\",\n"
  "      \"description\": \"read the csv\",\n"
  "      \"priors\": [],\n"
  "      \"run\": false,\n"
  "      \"input\": {\"text\": \"Read sales.csv\",\n"
  "                \"files\": [\"sales.csv\", \"/data/extra.csv\"],\n"
  "                \"encoding\": \"utf-8\"},\n"
  "      \"output\": {\"text\": \"12 rows\", \"files\": [\"load_sales.pkl\"], \"rows\": 12},\n"
  "      \"skele\": {\"x\": 10.5, \"y\": -3, \"approved\": true,\n"
  "                \"tokens\": {\"in\": 5, \"out\": 7}},\n"
  "      \"owner\": \"alice\"\n"
  "    },\n"
  "    \"2\": {\n"
  "      \"name\": \"Monthly totals\",\n"
  "      \"priors\": [[\"1\"], [\"3\"]],\n"
  "      \"input\": {\"text\": \"Add up each month\"},\n"
  "      \"tags\": [\"a\", {\"b\": null}]\n"
  "    },\n"
  "    \"3\": {\n"
  "      \"name\": \"Regions\",\n"
  "      \"priors\": [\"1\"]\n"
  "    }\n"
  "  },\n"
  "  \"version\": 3\n"
  "}\n";

typedef struct
{
  const char           *name;
  const char           *json;
  const SkProblemKind  *kinds;
  guint                 n_kinds;
  const char           *node_id;
  const char * const   *needles;
  const char * const   *absent;
} ProblemCase;

typedef struct
{
  const char *name;
  const char *key;
} KeyCase;

static char *
read_text (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);

  return contents;
}

static SkProject *
load (const char *json,
      GFile      *folder)
{
  g_autoptr(GError) error = NULL;
  SkProject *project;

  project = sk_project_load_from_data (json, -1, folder, &error);
  g_assert_no_error (error);
  g_assert_true (SK_IS_PROJECT (project));
  g_assert_false (sk_project_get_modified (project));

  return project;
}

static JsonNode *
parse (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);

  return json_node_copy (json_parser_get_root (parser));
}

/* Follows a path of object members, such as "nodes", "1", "skele". */
static JsonNode *
member_at (JsonNode   *root,
           const char *first,
           ...)
{
  JsonNode *node = root;
  const char *member = first;
  va_list args;

  va_start (args, first);
  while (member != NULL)
    {
      g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
      node = json_object_get_member (json_node_get_object (node), member);
      if (node == NULL)
        break;
      member = va_arg (args, const char *);
    }
  va_end (args);

  return node;
}

static void
assert_same_member (JsonNode   *original,
                    JsonNode   *saved,
                    const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, "/", -1);
  JsonNode *a = original;
  JsonNode *b = saved;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      a = member_at (a, parts[i], NULL);
      b = member_at (b, parts[i], NULL);
      if (a == NULL || b == NULL)
        g_error ("“%s” is missing (original %p, saved %p)", path, (void *) a, (void *) b);
    }

  if (!json_node_equal (a, b))
    {
      g_autofree char *a_text = json_to_string (a, FALSE);
      g_autofree char *b_text = json_to_string (b, FALSE);

      g_error ("“%s” changed: %s became %s", path, a_text, b_text);
    }
}

static void
assert_strv (const char * const *actual,
             const char * const *expected)
{
  g_assert_nonnull (actual);
  g_assert_cmpstrv (actual, expected);
}

static void
check_sample (SkProject *project)
{
  SkNode *load_sales;
  SkNode *totals;
  SkNode *regions;
  double x = 0, y = 0;

  g_assert_cmpstr (sk_project_get_name (project), ==, "Sales report");
  g_assert_cmpstr (sk_project_get_description (project), ==, "A year of sales");
  g_assert_cmpstr (sk_project_get_python (project), ==, "/opt/python3");
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (project)), ==, 3);

  load_sales = sk_project_get_node (project, "1");
  totals = sk_project_get_node (project, "2");
  regions = sk_project_get_node (project, "3");
  g_assert_nonnull (load_sales);
  g_assert_nonnull (totals);
  g_assert_nonnull (regions);

  /* The model keeps the file's order. */
  {
    g_autoptr(SkNode) first = g_list_model_get_item (G_LIST_MODEL (project), 0);
    g_autoptr(SkNode) third = g_list_model_get_item (G_LIST_MODEL (project), 2);

    g_assert_true (first == load_sales);
    g_assert_true (third == regions);
  }

  g_assert_cmpstr (sk_node_get_id (load_sales), ==, "1");
  g_assert_cmpstr (sk_node_get_name (load_sales), ==, "Load Sales");
  g_assert_cmpstr (sk_node_get_key (load_sales), ==, "load_sales");
  g_assert_cmpstr (sk_node_get_description (load_sales), ==, "read the csv");
  assert_strv (sk_node_get_priors (load_sales), SK_TEST_STRV (NULL));
  g_assert_false (sk_node_get_run (load_sales));
  g_assert_cmpstr (sk_node_get_input_text (load_sales), ==, "Read sales.csv");
  assert_strv (sk_node_get_input_files (load_sales), SK_TEST_STRV ("sales.csv", "/data/extra.csv"));
  g_assert_cmpstr (sk_node_get_output_text (load_sales), ==, "12 rows");
  assert_strv (sk_node_get_output_files (load_sales), SK_TEST_STRV ("load_sales.pkl"));
  g_assert_true (sk_node_get_position (load_sales, &x, &y));
  g_assert_cmpfloat (x, ==, 10.5);
  g_assert_cmpfloat (y, ==, -3.0);

  g_assert_cmpstr (sk_node_get_name (totals), ==, "Monthly totals");
  g_assert_cmpstr (sk_node_get_key (totals), ==, "monthly_totals");
  g_assert_cmpstr (sk_node_get_description (totals), ==, "");
  assert_strv (sk_node_get_priors (totals), SK_TEST_STRV ("1", "3"));
  g_assert_true (sk_node_get_run (totals));
  g_assert_cmpstr (sk_node_get_input_text (totals), ==, "Add up each month");
  assert_strv (sk_node_get_input_files (totals), SK_TEST_STRV (NULL));
  g_assert_cmpstr (sk_node_get_output_text (totals), ==, "");
  assert_strv (sk_node_get_output_files (totals), SK_TEST_STRV (NULL));
  g_assert_false (sk_node_get_position (totals, NULL, NULL));

  assert_strv (sk_node_get_priors (regions), SK_TEST_STRV ("1"));

  {
    g_autoptr(GPtrArray) problems = sk_project_validate (project);

    g_assert_cmpuint (problems->len, ==, 0);
  }
}

static void
test_round_trip (void)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkProject) reloaded = NULL;
  g_autoptr(SkProject) again = NULL;
  g_autoptr(JsonNode) original = NULL;
  g_autoptr(JsonNode) saved = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text2 = NULL;
  g_autofree char *text3 = NULL;
  g_autofree char *reloaded_text = NULL;
  JsonNode *priors;
  JsonObject *root;
  gsize length = 0;
  static const char * const unknown[] = {
    "author",
    "version",
    "skele/theme",
    "nodes/1/owner",
    "nodes/1/input/encoding",
    "nodes/1/output/rows",
    "nodes/1/skele/approved",
    "nodes/1/skele/tokens",
    "nodes/2/tags",
  };

  project = load (sample_json, NULL);
  check_sample (project);

  text = sk_project_to_data (project, &length);
  g_assert_cmpuint (length, ==, strlen (text));
  g_assert_true (g_str_has_suffix (text, "}\n"));

  /* Saving does not change the model, so saving again writes the same bytes. */
  text2 = sk_project_to_data (project, NULL);
  g_assert_cmpstr (text, ==, text2);

  reloaded = load (text, NULL);
  check_sample (reloaded);
  reloaded_text = sk_project_to_data (reloaded, NULL);
  g_assert_cmpstr (text, ==, reloaded_text);

  again = load (reloaded_text, NULL);
  text3 = sk_project_to_data (again, NULL);
  g_assert_cmpstr (text, ==, text3);

  original = parse (sample_json);
  saved = parse (text);
  for (guint i = 0; i < G_N_ELEMENTS (unknown); i++)
    assert_same_member (original, saved, unknown[i]);

  /* The canonical form: new spellings, a "nodes" object and flat priors. */
  root = json_node_get_object (saved);
  g_assert_false (json_object_has_member (root, "project name"));
  g_assert_false (json_object_has_member (root, "project description"));
  g_assert_cmpstr (json_object_get_string_member (root, "process_name"), ==, "Sales report");
  g_assert_cmpstr (json_object_get_string_member (root, "process_description"), ==,
                   "A year of sales");
  g_assert_cmpstr (json_node_get_string (member_at (saved, "skele", "python", NULL)), ==,
                   "/opt/python3");

  priors = member_at (saved, "nodes", "2", "priors", NULL);
  g_assert_nonnull (priors);
  {
    g_autoptr(JsonNode) flat = parse ("[\"1\", \"3\"]");

    g_assert_true (json_node_equal (priors, flat));
  }

  /* Known members come back in their canonical types. */
  g_assert_cmpfloat (json_node_get_double (member_at (saved, "nodes", "1", "skele", "x", NULL)),
                     ==, 10.5);
  g_assert_cmpfloat (json_node_get_double (member_at (saved, "nodes", "1", "skele", "y", NULL)),
                     ==, -3.0);
  g_assert_false (json_node_get_boolean (member_at (saved, "nodes", "1", "run", NULL)));
  g_assert_null (member_at (saved, "nodes", "2", "skele", NULL));
}

static void
test_new_spelling_wins (void)
{
  g_autoptr(SkProject) project = NULL;

  project = load ("{\"project name\": \"old\", \"process_name\": \"new\","
                  " \"process_description\": \"d\", \"nodes\": {}}", NULL);
  g_assert_cmpstr (sk_project_get_name (project), ==, "new");
  g_assert_cmpstr (sk_project_get_description (project), ==, "d");
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 0);
}

static void
test_flat_form (void)
{
  static const char json[] =
    "{\n"
    "  \"project name\": \"flat\",\n"
    "  \"project description\": \"the paper's first format\",\n"
    "  \"1\": {\"name\": \"fetch\", \"priors\": [], \"input\": {\"text\": \"get it\"}},\n"
    "  \"2\": {\"name\": \"clean\", \"priors\": [[\"1\"]]},\n"
    "  \"note\": \"kept\",\n"
    "  \"settings\": {\"verbose\": true}\n"
    "}\n";
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkProject) reloaded = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(JsonNode) saved = NULL;
  g_autoptr(JsonNode) original = NULL;
  g_autofree char *text = NULL;
  SkNode *fetch;
  SkNode *clean;

  project = load (json, NULL);
  g_assert_cmpstr (sk_project_get_name (project), ==, "flat");
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 2);

  fetch = sk_project_get_node (project, "1");
  clean = sk_project_get_node (project, "2");
  g_assert_nonnull (fetch);
  g_assert_nonnull (clean);
  g_assert_cmpstr (sk_node_get_name (fetch), ==, "fetch");
  g_assert_cmpstr (sk_node_get_input_text (fetch), ==, "get it");
  assert_strv (sk_node_get_priors (clean), SK_TEST_STRV ("1"));

  problems = sk_project_validate (project);
  g_assert_cmpuint (problems->len, ==, 0);

  /* It is written back in the canonical form, other members kept. */
  text = sk_project_to_data (project, NULL);
  saved = parse (text);
  original = parse (json);
  g_assert_nonnull (member_at (saved, "nodes", "1", NULL));
  g_assert_nonnull (member_at (saved, "nodes", "2", NULL));
  g_assert_null (member_at (saved, "1", NULL));
  g_assert_null (member_at (saved, "2", NULL));
  assert_same_member (original, saved, "note");
  assert_same_member (original, saved, "settings");

  reloaded = load (text, NULL);
  g_assert_cmpuint (sk_project_get_n_nodes (reloaded), ==, 2);
  assert_strv (sk_node_get_priors (sk_project_get_node (reloaded, "2")), SK_TEST_STRV ("1"));
}

static void
test_parse_error (void)
{
  /* The stray comma is on line 3, column 26. */
  static const char json[] =
    "{\n"
    "  \"nodes\": {\n"
    "    \"1\": {\"priors\": [\"2\",, \"3\"], \"name\": \"a\"}\n"
    "  }\n"
    "}\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) project = NULL;

  project = sk_project_load_from_data (json, -1, NULL, &error);
  g_assert_null (project);
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_PARSE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "line 3, column 26"));
  g_assert_null (strstr (error->message, "<data>"));
  g_clear_error (&error);

  /* Truncated text. */
  project = sk_project_load_from_data ("{\"nodes\": {", -1, NULL, &error);
  g_assert_null (project);
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "line 1, column"));
}

/* Escapes that stand for no character, in the process's description, in a
 * member this program does not know, in a step's name and among its files.
 */
static const char lone_surrogate_json[] =
  "{\n"
  "  \"process_name\": \"Sales\",\n"
  "  \"process_description\": \"caf\\udce9 notes\",\n"
  "  \"note\": {\"by\": \"x\\ud83d\"},\n"
  "  \"nodes\": {\n"
  "    \"1\": {\"name\": \"caf\\udce9 report\", \"priors\": [],\n"
  "           \"input\": {\"text\": \"read \\ud83d\\ude00\", \"files\": [\"a\\udce9\"]}},\n"
  "    \"2\": {\"name\": \"Totals\", \"priors\": [\"1\"]}\n"
  "  }\n"
  "}\n";

static gboolean
has_warning (GPtrArray  *problems,
             const char *node_id,
             const char *text)
{
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (problem->is_warning && g_strcmp0 (problem->node_id, node_id) == 0 &&
          strstr (problem->message, text) != NULL)
        return TRUE;
    }

  return FALSE;
}

static void
test_lone_surrogate (void)
{
  g_autofree char *tmp = sk_test_make_tmp_dir ("test-project");
  g_autoptr(GFile) folder = g_file_new_for_path (tmp);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkProject) reloaded = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(JsonObject) json = NULL;
  g_autoptr(GError) error = NULL;
  SkNode *node;

  project = sk_project_load_from_data (lone_surrogate_json, -1, folder, &error);
  g_assert_no_error (error);

  /* Each escape reads as U+FFFD, and the text around it is kept. */
  node = sk_project_get_node (project, "1");
  g_assert_cmpstr (sk_node_get_name (node), ==, "caf\xef\xbf\xbd report");
  g_assert_cmpstr (sk_project_get_description (project), ==, "caf\xef\xbf\xbd notes");
  g_assert_cmpstr (sk_node_get_input_text (node), ==, "read \xf0\x9f\x98\x80");
  json = sk_project_to_json (project);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json, "note"), "by"),
                   ==, "x\xef\xbf\xbd");

  /* The repair is reported and the workflow needs saving to keep it. */
  g_assert_true (sk_project_get_modified (project));
  problems = sk_project_validate (project);
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      g_test_message ("problem %u: %s", i, problem->message);
      g_assert_true (problem->is_warning || problem->kind == SK_PROBLEM_MISSING_SCRIPT);
    }
  g_assert_true (has_warning (problems, "1", "“name”"));
  g_assert_true (has_warning (problems, "1", "caf\xef\xbf\xbd report"));
  g_assert_true (has_warning (problems, NULL, "“process_description”"));
  g_assert_true (has_warning (problems, NULL, "“note”"));
  g_assert_false (has_warning (problems, "2", "surrogate"));

  /* What was saved loads again, as it was. */
  g_assert_true (sk_project_save (project, &error));
  g_assert_no_error (error);
  reloaded = sk_project_load (folder, &error);
  g_assert_no_error (error);
  g_assert_false (sk_project_get_modified (reloaded));
  g_assert_cmpstr (sk_node_get_name (sk_project_get_node (reloaded, "1")), ==,
                   "caf\xef\xbf\xbd report");
  g_assert_cmpstr (sk_project_get_description (reloaded), ==, "caf\xef\xbf\xbd notes");

  sk_test_remove_tree (tmp);
}

/* Loads @data, saves it to text, and checks that the text loads again and
 * saves the same. Returns the workflow, or %NULL when @data was refused. */
static SkProject *
assert_round_trip (const char *data,
                   gssize      length)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkProject) reloaded = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *saved_again = NULL;

  project = sk_project_load_from_data (data, length, NULL, &error);
  if (project == NULL)
    {
      g_assert_nonnull (error);
      return NULL;
    }

  problems = sk_project_validate (project);
  g_assert_nonnull (problems);
  saved = sk_project_to_data (project, NULL);
  g_assert_true (g_utf8_validate (saved, -1, NULL));
  reloaded = sk_project_load_from_data (saved, -1, NULL, &error);
  g_assert_no_error (error);
  saved_again = sk_project_to_data (reloaded, NULL);
  g_assert_cmpstr (saved_again, ==, saved);

  return g_steal_pointer (&project);
}

static void
test_bad_unicode_escape (void)
{
  /* json-glib reads any four bytes after "\u" as hexadecimal digits; these
   * came from tests/fuzz/regressions/project/. */
  static const struct {
    const char *json;
    const char *description;
  } cases[] = {
    { "{\"process_description\":\"\\u8\xef\xbf\xbd\"}", "\xef\xbf\xbd" "8\xef\xbf\xbd" },
    { "{\"process_description\":\"a\\uzzzz\"}", "a\xef\xbf\xbdzzzz" },
    { "{\"process_description\":\"\\u12\", \"x\": 1}", "\xef\xbf\xbd" "12" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(SkProject) project = assert_round_trip (cases[i].json, -1);
      g_autoptr(GPtrArray) problems = NULL;

      g_assert_nonnull (project);
      g_assert_cmpstr (sk_project_get_description (project), ==, cases[i].description);

      /* The repair is reported, as for a lone surrogate. */
      problems = sk_project_validate (project);
      g_assert_true (has_warning (problems, NULL, "“process_description”"));
    }
}

static void
test_save_exponent_doubles (void)
{
  g_autoptr(SkProject) project = NULL;
  g_autofree char *saved = NULL;

  /* json-glib 1.6 writes 1e30 as "1e+30.0" and 1e999, which it reads as
   * infinity, as "inf.0"; a text in a string stays as it is. */
  project = assert_round_trip ("{\"a\": [1e30, 1e999, -1e999, 2.5e-7],"
                               " \"b\": \"1e+30.0 inf\"}", -1);
  g_assert_nonnull (project);
  saved = sk_project_to_data (project, NULL);
  sk_test_assert_contains (saved, "1e+30,");
  sk_test_assert_contains (saved, "null,");
  sk_test_assert_contains (saved, "e-07\n");
  sk_test_assert_contains (saved, "\"1e+30.0 inf\"");
  g_assert_null (strstr (saved, "inf,"));
  g_clear_object (&project);

  /* A step placed at infinity has no place on the canvas. */
  project = assert_round_trip ("{\"nodes\": {\"1\": {\"skele\": {\"x\": 1e380, \"y\": 0}}}}", -1);
  g_assert_nonnull (project);
  g_assert_false (sk_node_get_position (sk_project_get_node (project, "1"), NULL, NULL));
}

/* A file that is not JSON is named, and what is wrong said in words a
 * reader can look for, not the parser's. */
static void
test_load_malformed_names_file (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("project-malformed");
  g_autofree char *path = g_build_filename (dir, "process.json", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;

  sk_test_write_text (dir, "process.json",
                      "{\"process_name\": \"x\", \"nodes\": {\"1\": {\"name\": \"a\" \"priors\": []}}}");
  project = sk_project_load (folder, &error);
  g_assert_null (project);
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_PARSE);
  sk_test_assert_contains (error->message, path);
  sk_test_assert_contains (error->message, "line 1, column");
  sk_test_assert_contains (error->message, "a “,” is missing here");
  g_assert_null (strstr (error->message, "`"));
  sk_test_remove_tree (dir);
}

/* A place on the canvas is saved without the float noise of a drag. */
static void
test_position_noise (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(SkNode) node = sk_node_new ("1", "Load");
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize length = 0;

  sk_node_set_position (node, 3.9999923706054688, 12.3);
  g_assert_true (sk_project_add_node (project, node, &error));
  g_assert_no_error (error);

  data = sk_project_to_data (project, &length);
  sk_test_assert_contains (data, "\"x\" : 4,");
  sk_test_assert_contains (data, "\"y\" : 12.5");
  g_assert_null (strstr (data, "3.99999"));
}

/* Every input the fuzzer of tests/fuzz/ found a fault with. */
static void
test_fuzz_regressions (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "fuzz", "regressions", "project", NULL);
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  guint count = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *file = g_build_filename (path, name, NULL);
      g_autofree char *data = NULL;
      gsize length = 0;
      g_autoptr(SkProject) project = NULL;

      g_test_message ("%s", name);
      g_assert_true (g_file_get_contents (file, &data, &length, NULL));
      project = assert_round_trip (data, (gssize) length);
      count++;
    }

  g_assert_cmpuint (count, >, 0);
}

static void
test_update_refuses_invalid_text (void)
{
  g_autoptr(SkProject) project = load (sample_json, NULL);
  g_autoptr(JsonObject) object = sk_project_to_json (project);
  g_autoptr(GError) error = NULL;

  /* What json-glib makes of "\udce9": bytes that are not UTF-8. */
  json_object_set_string_member (object, "process_name", "caf\xed\xb3\xa9");

  g_assert_false (sk_project_update_from_json (project, object, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "process_name"));
  g_assert_cmpstr (sk_project_get_name (project), ==, "Sales report");
}

static void
test_too_deep (void)
{
  g_autofree char *tmp = sk_test_make_tmp_dir ("test-project");
  g_autoptr(GFile) folder = g_file_new_for_path (tmp);
  g_autoptr(GString) text = g_string_new ("{\"nodes\": ");
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (text, '[');
  sk_test_write_text (tmp, "process.json", text->str);

  project = sk_project_load (folder, &error);
  g_assert_null (project);
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "nested"));

  sk_test_remove_tree (tmp);
}

static void
test_input_not_regular (void)
{
  static const char json[] =
    "{\"process_name\": \"p\", \"nodes\": {\"1\": {\"name\": \"Load\", \"priors\": [],"
    " \"input\": {\"text\": \"\", \"files\": [\"pipe\", \"zero\", \"sub\", \"good.csv\","
    " \"link.csv\", \"missing.csv\", \"ABSOLUTE\"]}}}}";
  g_autofree char *tmp = sk_test_make_tmp_dir ("test-project");
  g_autofree char *step = g_build_filename (tmp, "load", NULL);
  g_autofree char *pipe_path = g_build_filename (step, "pipe", NULL);
  g_autofree char *zero_path = g_build_filename (step, "zero", NULL);
  g_autofree char *sub_path = g_build_filename (step, "sub", NULL);
  g_autofree char *link_path = g_build_filename (step, "link.csv", NULL);
  g_autofree char *absolute = g_build_filename (tmp, "elsewhere.csv", NULL);
  g_autoptr(GString) text = g_string_new (json);
  g_autoptr(GFile) folder = g_file_new_for_path (tmp);
  g_autoptr(GFile) step_folder = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  guint errors = 0;

  g_string_replace (text, "ABSOLUTE", absolute, 1);
  project = load (text->str, folder);
  step_folder = sk_project_get_node_folder (project, sk_project_get_node (project, "1"));
  g_assert_cmpstr (g_file_peek_path (step_folder), ==, step);

  g_assert_cmpint (g_mkdir_with_parents (sub_path, 0755), ==, 0);
  g_assert_cmpint (mkfifo (pipe_path, 0644), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", zero_path), ==, 0);
  sk_test_write_text (step, "good.csv", "a\n");
  g_assert_cmpint (symlink ("good.csv", link_path), ==, 0);
  sk_test_write_text (tmp, "elsewhere.csv", "b\n");

  /* The pipe, the link to a device and the folder are refused, each by
   * name; regular files, a link to one and a missing file are not. */
  problems = sk_project_validate (project);
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      g_test_message ("problem %u: %s", i, problem->message);
      if (problem->is_warning)
        continue;

      g_assert_cmpint (problem->kind, ==, SK_PROBLEM_STRUCTURE);
      g_assert_cmpstr (problem->node_id, ==, "1");
      g_assert_nonnull (strstr (problem->message, "“Load”"));
      g_assert_nonnull (strstr (problem->message,
                                errors == 0 ? "“pipe”" : errors == 1 ? "“zero”" : "“sub”"));
      errors++;
    }
  g_assert_cmpuint (errors, ==, 3);

  g_assert_false (sk_project_check (project, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);

  sk_test_remove_tree (tmp);
}

static void
test_root_not_object (void)
{
  static const char * const inputs[] = { "[1, 2]", "\"nodes\"", "42", "null", "" };

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SkProject) project = NULL;

      project = sk_project_load_from_data (inputs[i], -1, NULL, &error);
      g_assert_null (project);
      g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_PARSE);
      g_assert_cmpstr (error->message, !=, "");
    }
}

static const char duplicate_id_json[] =
  "{\"nodes\": {\"1\": {\"name\": \"First\", \"priors\": []},"
  "             \"1\": {\"name\": \"Second\"},"
  "             \"2\": {\"name\": \"Third\", \"priors\": [\"1\"]},"
  "             \"3\": {\"name\": \"Fourth\", \"priors\": [\"2\"]}}}";

static const SkProblemKind kind_structure[] = { SK_PROBLEM_STRUCTURE };
static const SkProblemKind kind_missing_name[] = { SK_PROBLEM_STRUCTURE, SK_PROBLEM_EMPTY_KEY };
static const SkProblemKind kind_dangling[] = { SK_PROBLEM_DANGLING_PRIOR };
static const SkProblemKind kind_cycle[] = { SK_PROBLEM_CYCLE };
static const SkProblemKind kind_two_cycles[] = { SK_PROBLEM_CYCLE, SK_PROBLEM_CYCLE };
static const SkProblemKind kind_empty_key[] = { SK_PROBLEM_EMPTY_KEY };
static const SkProblemKind kind_duplicate_key[] = { SK_PROBLEM_DUPLICATE_KEY };
static const SkProblemKind kind_duplicate_id[] = { SK_PROBLEM_DUPLICATE_ID };

#define KINDS(k) k, G_N_ELEMENTS (k)

static const ProblemCase problem_cases[] = {
  {
    "node-not-object",
    "{\"nodes\": {\"1\": {\"name\": \"fine\"}, \"2\": [\"not\", \"a\", \"node\"]}}",
    KINDS (kind_structure), "2", SK_TEST_STRV ("Node 2", "not an object"), NULL,
  },
  {
    "missing-name",
    "{\"nodes\": {\"1\": {\"priors\": []}}}",
    KINDS (kind_missing_name), "1", SK_TEST_STRV ("1", "name"), SK_TEST_STRV ("node"),
  },
  {
    "priors-number",
    "{\"nodes\": {\"1\": {\"name\": \"Load Sales\", \"priors\": 5}}}",
    KINDS (kind_structure), "1", SK_TEST_STRV ("“Load Sales”", "“priors”"), NULL,
  },
  {
    "priors-object",
    "{\"nodes\": {\"1\": {\"name\": \"Load Sales\", \"priors\": [{\"id\": \"2\"}]}}}",
    KINDS (kind_structure), "1", SK_TEST_STRV ("“Load Sales”", "“priors”"), NULL,
  },
  {
    "run-string",
    "{\"nodes\": {\"1\": {\"name\": \"Load Sales\", \"run\": \"yes\"}}}",
    KINDS (kind_structure), "1", SK_TEST_STRV ("“Load Sales”", "“run”"), NULL,
  },
  {
    "input-text-number",
    "{\"nodes\": {\"1\": {\"name\": \"Load Sales\", \"input\": {\"text\": 12}}}}",
    KINDS (kind_structure), "1", SK_TEST_STRV ("“Load Sales”", "input.text"), NULL,
  },
  {
    "name-number",
    "{\"nodes\": {\"1\": {\"name\": 7}, \"2\": {\"name\": \"b\"}}}",
    KINDS (kind_missing_name), "1", SK_TEST_STRV ("1", "name"), SK_TEST_STRV ("node"),
  },
  {
    "dangling-prior",
    "{\"nodes\": {\"1\": {\"name\": \"Load Sales\", \"priors\": [\"7\"]}}}",
    KINDS (kind_dangling), "1", SK_TEST_STRV ("“Load Sales”", "“7”"), NULL,
  },
  {
    "self-loop",
    "{\"nodes\": {\"1\": {\"name\": \"Load Sales\", \"priors\": [\"1\"]}}}",
    KINDS (kind_cycle), "1", SK_TEST_STRV ("“Load Sales”"), NULL,
  },
  {
    "self-loop-downstream",
    "{\"nodes\": {\"1\": {\"name\": \"Load Sales\", \"priors\": [\"1\"]},"
    "             \"2\": {\"name\": \"Totals\", \"priors\": [\"1\"]}}}",
    KINDS (kind_cycle), "1", SK_TEST_STRV ("“Load Sales”"), SK_TEST_STRV ("Totals"),
  },
  {
    "self-loop-in-cycle",
    "{\"nodes\": {\"1\": {\"name\": \"Alpha\", \"priors\": [\"1\", \"2\"]},"
    "             \"2\": {\"name\": \"Beta\", \"priors\": [\"1\"]}}}",
    KINDS (kind_two_cycles), "1", SK_TEST_STRV ("“Alpha”"), NULL,
  },
  {
    "cycle-of-three",
    "{\"nodes\": {\"1\": {\"name\": \"Alpha\", \"priors\": [\"3\"]},"
    "             \"2\": {\"name\": \"Beta\", \"priors\": [\"1\"]},"
    "             \"3\": {\"name\": \"Gamma\", \"priors\": [\"2\"]}}}",
    KINDS (kind_cycle), "1", SK_TEST_STRV ("“Alpha”", "“Beta”", "“Gamma”"), NULL,
  },
  {
    "cycle-and-downstream",
    "{\"nodes\": {\"1\": {\"name\": \"Report\", \"priors\": [\"2\"]},"
    "             \"2\": {\"name\": \"Alpha\", \"priors\": [\"3\"]},"
    "             \"3\": {\"name\": \"Beta\", \"priors\": [\"2\"]},"
    "             \"4\": {\"name\": \"Chart\", \"priors\": [\"1\", \"3\"]}}}",
    KINDS (kind_cycle), "2", SK_TEST_STRV ("“Alpha”", "“Beta”"),
    SK_TEST_STRV ("Report", "Chart"),
  },
  {
    "empty-key",
    "{\"nodes\": {\"1\": {\"name\": \"!!!\"}}}",
    KINDS (kind_empty_key), "1", SK_TEST_STRV ("“!!!”"), NULL,
  },
  {
    "duplicate-key",
    "{\"nodes\": {\"1\": {\"name\": \"Load Sales\"}, \"2\": {\"name\": \"load-sales\"}}}",
    KINDS (kind_duplicate_key), "2",
    SK_TEST_STRV ("“Load Sales”", "“load-sales”", "load_sales"), NULL,
  },
  {
    "duplicate-id",
    duplicate_id_json,
    KINDS (kind_duplicate_id), "1", SK_TEST_STRV ("“1”"), NULL,
  },
  {
    "duplicate-member",
    "{\"nodes\": {\"1\": {\"name\": \"Old\", \"name\": \"Load Sales\"}}}",
    KINDS (kind_structure), "1", SK_TEST_STRV ("“Load Sales”", "“name”"), NULL,
  },
  {
    "nodes-not-object",
    "{\"process_name\": \"x\", \"nodes\": [1, 2]}",
    KINDS (kind_structure), NULL, SK_TEST_STRV ("“nodes”"), NULL,
  },
};

static void
test_problem (gconstpointer data)
{
  const ProblemCase *c = data;
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  int expected_code;

  project = load (c->json, NULL);
  problems = sk_project_validate (project);

  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      g_test_message ("problem %u: kind %d, node %s: %s", i, problem->kind,
                      problem->node_id, problem->message);
    }

  g_assert_cmpuint (problems->len, ==, c->n_kinds);

  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      g_assert_cmpint (problem->kind, ==, c->kinds[i]);
      g_assert_false (problem->is_warning);
      g_assert_cmpstr (problem->node_id, ==, c->node_id);
      g_assert_nonnull (problem->message);

      for (guint j = 0; c->needles != NULL && c->needles[j] != NULL; j++)
        {
          if (strstr (problem->message, c->needles[j]) == NULL)
            g_error ("“%s” does not mention %s", problem->message, c->needles[j]);
        }

      for (guint j = 0; c->absent != NULL && c->absent[j] != NULL; j++)
        {
          if (strstr (problem->message, c->absent[j]) != NULL)
            g_error ("“%s” should not mention %s", problem->message, c->absent[j]);
        }
    }

  /* The first error is what sk_project_check() reports. */
  expected_code = c->kinds[0] == SK_PROBLEM_CYCLE ? SK_PROJECT_ERROR_CYCLE
                                                 : SK_PROJECT_ERROR_INVALID;
  g_assert_false (sk_project_check (project, &error));
  g_assert_error (error, SK_PROJECT_ERROR, expected_code);
  g_assert_cmpstr (error->message, ==, ((SkProblem *) g_ptr_array_index (problems, 0))->message);
}

static void
test_duplicate_id_keeps_one (void)
{
  g_autoptr(SkProject) project = NULL;

  project = load (duplicate_id_json, NULL);

  /* json-glib keeps the last of two members with one name. */
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
  g_assert_cmpstr (sk_node_get_name (sk_project_get_node (project, "1")), ==, "Second");
}

/* json-glib frees a node replaced by a duplicate and may give its memory to a
 * later node; that later node must not look like it has duplicates itself.
 */
static void
test_many_duplicate_ids (void)
{
  g_autoptr(GString) json = g_string_new ("{\"nodes\": {");
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) problems = NULL;

  for (guint i = 1; i <= 40; i++)
    {
      g_string_append_printf (json,
                              "%s\"%u\": {\"name\": \"old %u\", \"priors\": [], "
                              "\"description\": \"x\", \"run\": true}, "
                              "\"%u\": {\"name\": \"step %u\"}",
                              i > 1 ? ", " : "", i, i, i, i);
    }
  g_string_append (json, "}}");

  project = load (json->str, NULL);
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 40);

  problems = sk_project_validate (project);
  g_assert_cmpuint (problems->len, ==, 40);
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);
      g_autofree char *id = g_strdup_printf ("%u", i + 1);

      if (problem->kind != SK_PROBLEM_DUPLICATE_ID)
        g_error ("unexpected problem: %s", problem->message);
      g_assert_cmpstr (problem->node_id, ==, id);
    }
}

static void
test_missing_scripts (void)
{
  static const char json[] =
    "{\"process_name\": \"scripts\", \"nodes\": {"
    "  \"1\": {\"name\": \"Load Sales\", \"priors\": []},"
    "  \"2\": {\"name\": \"Monthly Totals\", \"priors\": [\"1\"]}}}";
  g_autofree char *tmp = sk_test_make_tmp_dir ("test-project");
  g_autofree char *node_dir = g_build_filename (tmp, "load_sales", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (tmp);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkProject) no_folder = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GPtrArray) no_folder_problems = NULL;
  g_autoptr(GError) error = NULL;
  SkProblem *problem;

  g_assert_cmpint (g_mkdir (node_dir, 0755), ==, 0);
  sk_test_write_text (node_dir, "load_sales.py", "state = {}\n");

  project = load (json, folder);
  problems = sk_project_validate (project);
  g_assert_cmpuint (problems->len, ==, 1);

  problem = g_ptr_array_index (problems, 0);
  g_assert_cmpint (problem->kind, ==, SK_PROBLEM_MISSING_SCRIPT);
  g_assert_true (problem->is_warning);
  g_assert_cmpstr (problem->node_id, ==, "2");
  g_assert_nonnull (strstr (problem->message, "“Monthly Totals”"));
  g_assert_nonnull (strstr (problem->message, "monthly_totals/monthly_totals.py"));

  /* Warnings do not make the workflow invalid. */
  g_assert_true (sk_project_check (project, &error));
  g_assert_no_error (error);

  /* Without a folder there is nothing to look for. */
  no_folder = load (json, NULL);
  no_folder_problems = sk_project_validate (no_folder);
  g_assert_cmpuint (no_folder_problems->len, ==, 0);

  sk_test_remove_tree (tmp);
  g_assert_false (g_file_test (tmp, G_FILE_TEST_EXISTS));
}

static void
test_valid (void)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;

  project = load ("{\"process_name\": \"ok\", \"nodes\": {"
                  "  \"1\": {\"name\": \"a\"},"
                  "  \"2\": {\"name\": \"b\", \"priors\": [\"1\", \"1\"]},"
                  "  \"3\": {\"name\": \"c\", \"priors\": [[\"1\"], [\"2\"]]},"
                  "  \"4\": {\"name\": \"d\", \"priors\": null, \"run\": null}}}", NULL);
  problems = sk_project_validate (project);
  g_assert_cmpuint (problems->len, ==, 0);
  g_assert_true (sk_project_check (project, &error));
  g_assert_no_error (error);
}

static gboolean
only_entry_is (const char *folder,
               const char *name)
{
  g_autoptr(GDir) dir = g_dir_open (folder, 0, NULL);
  const char *entry;
  guint n = 0;
  gboolean found = FALSE;

  g_assert_nonnull (dir);
  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      g_test_message ("%s contains %s", folder, entry);
      n++;
      found |= g_str_equal (entry, name);
    }

  return found && n == 1;
}

static void
test_save_atomic (void)
{
  g_autofree char *tmp = sk_test_make_tmp_dir ("test-project");
  g_autofree char *folder_path = g_build_filename (tmp, "my_process", NULL);
  g_autofree char *file_path = g_build_filename (folder_path, "process.json", NULL);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *data = NULL;
  g_autoptr(GFile) folder = g_file_new_for_path (folder_path);
  g_autoptr(GFile) file = g_file_new_for_path (file_path);
  g_autoptr(GFile) project_file = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkProject) from_folder = NULL;
  g_autoptr(SkProject) from_file = NULL;
  g_autoptr(GError) error = NULL;

  project = load (sample_json, NULL);
  g_assert_null (sk_project_get_folder (project));
  g_assert_null (sk_project_get_file (project));

  /* A workflow without a folder cannot be saved in place. */
  g_assert_false (sk_project_save (project, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  sk_project_set_name (project, "Sales report");
  sk_project_set_description (project, "changed");
  g_assert_true (sk_project_get_modified (project));

  /* The folder is created when it does not exist. */
  g_assert_true (sk_project_save_to_folder (project, folder, &error));
  g_assert_no_error (error);
  g_assert_false (sk_project_get_modified (project));
  g_assert_true (only_entry_is (folder_path, "process.json"));
  g_assert_true (g_file_equal (sk_project_get_folder (project), folder));
  project_file = sk_project_get_file (project);
  g_assert_true (g_file_equal (project_file, file));

  first = read_text (file_path);
  data = sk_project_to_data (project, NULL);
  g_assert_cmpstr (first, ==, data);

  /* Saving again writes the same bytes and leaves no temporary file. */
  g_assert_true (sk_project_save (project, &error));
  g_assert_no_error (error);
  second = read_text (file_path);
  g_assert_cmpstr (first, ==, second);
  g_assert_true (only_entry_is (folder_path, "process.json"));

  from_folder = sk_project_load (folder, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_equal (sk_project_get_folder (from_folder), folder));
  g_assert_cmpstr (sk_project_get_description (from_folder), ==, "changed");
  g_assert_cmpuint (sk_project_get_n_nodes (from_folder), ==, 3);

  from_file = sk_project_load (file, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_equal (sk_project_get_folder (from_file), folder));
  g_assert_cmpuint (sk_project_get_n_nodes (from_file), ==, 3);

  sk_test_remove_tree (tmp);
  g_assert_false (g_file_test (tmp, G_FILE_TEST_EXISTS));
}

static void
test_save_failure (void)
{
  g_autofree char *tmp = sk_test_make_tmp_dir ("test-project");
  g_autofree char *file_path = g_build_filename (tmp, "process.json", NULL);
  g_autofree char *blocker = g_build_filename (tmp, "blocker", NULL);
  g_autofree char *under_file = g_build_filename (blocker, "sub", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GFile) folder = g_file_new_for_path (tmp);
  g_autoptr(GFile) bad_folder = g_file_new_for_path (under_file);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;

  sk_test_write_text (tmp, "process.json", sample_json);
  sk_test_write_text (tmp, "blocker", "a regular file\n");

  project = sk_project_load (folder, &error);
  g_assert_no_error (error);
  sk_node_set_name (sk_project_get_node (project, "1"), "Load all sales");
  g_assert_true (sk_project_get_modified (project));

  g_assert_false (sk_project_save_to_folder (project, bad_folder, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == G_IO_ERROR);
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  /* Nothing was lost: the old file, the project's folder and its state. */
  after = read_text (file_path);
  g_assert_cmpstr (after, ==, sample_json);
  g_assert_true (g_file_equal (sk_project_get_folder (project), folder));
  g_assert_true (sk_project_get_modified (project));
  g_assert_false (g_file_test (under_file, G_FILE_TEST_EXISTS));

  /* A folder that the user may not write to. Root may write anywhere, so
   * this part only runs when the permission actually holds.
   */
  if (g_chmod (tmp, 0555) == 0)
    {
      g_autofree char *probe = g_build_filename (tmp, "probe", NULL);
      int fd = g_open (probe, O_CREAT | O_WRONLY, 0644);

      if (fd >= 0)
        {
          g_close (fd, NULL);
          g_unlink (probe);
          g_test_message ("the folder stays writable (running as root?); skipped that part");
        }
      else
        {
          before = read_text (file_path);
          g_assert_false (sk_project_save (project, &error));
          g_assert_nonnull (error);
          g_clear_error (&error);
          g_free (after);
          after = read_text (file_path);
          g_assert_cmpstr (before, ==, after);
          g_assert_true (sk_project_get_modified (project));
        }

      g_chmod (tmp, 0755);
    }

  sk_test_remove_tree (tmp);
  g_assert_false (g_file_test (tmp, G_FILE_TEST_EXISTS));
}

static void
test_load_missing (void)
{
  g_autofree char *tmp = sk_test_make_tmp_dir ("test-project");
  g_autofree char *missing = g_build_filename (tmp, "no-such-workflow", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (missing);
  g_autoptr(GFile) empty_folder = g_file_new_for_path (tmp);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;

  project = sk_project_load (folder, &error);
  g_assert_null (project);
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no-such-workflow"));
  g_clear_error (&error);

  /* A folder without process.json is not a workflow either. */
  project = sk_project_load (empty_folder, &error);
  g_assert_null (project);
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_NOT_FOUND);

  sk_test_remove_tree (tmp);
}

static void
count_cb (gpointer  instance,
          guint    *count)
{
  (*count)++;
}

static void
test_node_update_from_json (void)
{
  g_autoptr(SkNode) node = NULL;
  g_autoptr(JsonNode) good = NULL;
  g_autofree char *before = NULL;
  guint changed = 0;
  double x = 0, y = 0;
  static const char * const bad[] = {
    "{\"name\": \"n\", \"priors\": 5}",
    "{\"name\": \"n\", \"run\": \"no\"}",
    "{\"name\": \"n\", \"input\": {\"text\": 1}}",
    "{\"name\": \"n\", \"input\": {\"files\": \"a.csv\"}}",
    "{\"name\": \"n\", \"output\": [\"x\"]}",
    "{\"name\": [\"n\"]}",
    "{\"priors\": []}",
  };

  node = sk_node_new ("1", "Load Sales");
  sk_node_set_description (node, "desc");
  sk_node_set_priors (node, SK_TEST_STRV ("2"));
  sk_node_set_run (node, FALSE);
  sk_node_set_input_text (node, "in");
  sk_node_set_input_files (node, SK_TEST_STRV ("a.csv"));
  sk_node_set_output_text (node, "out");
  sk_node_set_output_files (node, SK_TEST_STRV ("b.svg"));
  sk_node_set_position (node, 4, 5);

  {
    g_autoptr(JsonNode) root = json_node_init_object (json_node_alloc (), sk_node_to_json (node));

    json_object_unref (json_node_get_object (root));
    before = json_to_string (root, FALSE);
  }

  g_signal_connect (node, "changed", G_CALLBACK (count_cb), &changed);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(JsonNode) json = parse (bad[i]);
      g_autoptr(JsonNode) root = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *now = NULL;

      g_assert_false (sk_node_update_from_json (node, json_node_get_object (json), &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_test_message ("%s", error->message);

      root = json_node_init_object (json_node_alloc (), sk_node_to_json (node));
      json_object_unref (json_node_get_object (root));
      now = json_to_string (root, FALSE);
      g_assert_cmpstr (before, ==, now);
    }

  g_assert_cmpuint (changed, ==, 0);
  g_assert_cmpstr (sk_node_get_name (node), ==, "Load Sales");
  assert_strv (sk_node_get_priors (node), SK_TEST_STRV ("2"));
  g_assert_false (sk_node_get_run (node));

  /* A good edit applies; leaving out "skele" keeps the canvas position. */
  good = parse ("{\"name\": \"Load all sales\", \"priors\": [[\"3\"]], \"run\": true,"
                " \"input\": {\"text\": \"new\", \"files\": [], \"mode\": 1},"
                " \"extra\": [1]}");
  {
    g_autoptr(GError) error = NULL;

    g_assert_true (sk_node_update_from_json (node, json_node_get_object (good), &error));
    g_assert_no_error (error);
  }

  g_assert_cmpuint (changed, >, 0);
  g_assert_cmpstr (sk_node_get_name (node), ==, "Load all sales");
  g_assert_cmpstr (sk_node_get_key (node), ==, "load_all_sales");
  g_assert_cmpstr (sk_node_get_description (node), ==, "");
  assert_strv (sk_node_get_priors (node), SK_TEST_STRV ("3"));
  g_assert_true (sk_node_get_run (node));
  g_assert_cmpstr (sk_node_get_input_text (node), ==, "new");
  assert_strv (sk_node_get_input_files (node), SK_TEST_STRV (NULL));
  g_assert_cmpstr (sk_node_get_output_text (node), ==, "");
  assert_strv (sk_node_get_output_files (node), SK_TEST_STRV (NULL));
  g_assert_true (sk_node_get_position (node, &x, &y));
  g_assert_cmpfloat (x, ==, 4);
  g_assert_cmpfloat (y, ==, 5);

  {
    g_autoptr(JsonObject) json = sk_node_to_json (node);
    JsonObject *input = json_object_get_object_member (json, "input");

    g_assert_cmpint (json_object_get_int_member (input, "mode"), ==, 1);
    g_assert_true (json_object_has_member (json, "extra"));
  }

  /* Applying the same JSON again changes nothing. */
  changed = 0;
  {
    g_autoptr(GError) error = NULL;

    g_assert_true (sk_node_update_from_json (node, json_node_get_object (good), &error));
    g_assert_no_error (error);
    g_assert_cmpuint (changed, ==, 0);
  }

  /* Members this program does not know are saved too, so changing only them
   * is a change.
   */
  {
    g_autoptr(JsonNode) extra_only = NULL;
    g_autoptr(JsonObject) json = NULL;
    g_autoptr(GError) error = NULL;

    extra_only = parse ("{\"name\": \"Load all sales\", \"priors\": [\"3\"], \"run\": true,"
                        " \"input\": {\"text\": \"new\", \"files\": [], \"mode\": 2},"
                        " \"extra\": [1]}");
    g_assert_true (sk_node_update_from_json (node, json_node_get_object (extra_only), &error));
    g_assert_no_error (error);
    g_assert_cmpuint (changed, ==, 1);

    json = sk_node_to_json (node);
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json, "input"),
                                                 "mode"), ==, 2);
  }
}

static void
items_changed_cb (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  GString    *log)
{
  g_string_append_printf (log, "%u-%u+%u;", position, removed, added);
}

static JsonObject *
parse_object (const char *json)
{
  g_autoptr(JsonNode) node = parse (json);

  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

/* The workflow of issue 11: a cycle between “Totals” and “Chart”, a prior
 * that does not exist and two names that make the folder “load”. */
static const char three_problems_json[] =
  "{\"process_name\": \"three problems\", \"nodes\": {"
  "  \"1\": {\"name\": \"Load\", \"priors\": []},"
  "  \"2\": {\"name\": \"Totals\", \"priors\": [\"1\", \"3\"]},"
  "  \"3\": {\"name\": \"Chart\", \"priors\": [\"2\"]},"
  "  \"4\": {\"name\": \"Report\", \"priors\": [\"9\"]},"
  "  \"5\": {\"name\": \"LOAD\", \"priors\": []}}}";

/* Applies @member = @json to step @id of the three-problem workflow, as the
 * workflow's JSON editor would, and returns whether it was applied. */
static gboolean
edit_three_problems (const char  *id,
                     const char  *member,
                     const char  *json,
                     GError     **error)
{
  g_autoptr(SkProject) project = load (three_problems_json, NULL);
  g_autoptr(JsonObject) object = sk_project_to_json (project);
  g_autoptr(GPtrArray) problems = NULL;
  g_autofree char *before = sk_project_to_data (project, NULL);
  g_autofree char *after = NULL;
  JsonObject *node;
  gboolean applied;

  node = json_object_get_object_member (json_object_get_object_member (object, "nodes"), id);
  json_object_set_member (node, member, json_from_string (json, NULL));

  applied = sk_project_update_from_json (project, object, error);
  after = sk_project_to_data (project, NULL);
  if (!applied)
    g_assert_cmpstr (after, ==, before);
  else
    g_assert_cmpstr (after, !=, before);

  problems = sk_project_validate (project);
  g_assert_cmpuint (sk_problems_count_errors (problems), ==, applied ? 2 : 3);

  return applied;
}

static void
test_project_update_keeps_old_problems (void)
{
  g_autoptr(GError) error = NULL;

  /* Each fix of one problem is applied, though two others remain. */
  g_assert_true (edit_three_problems ("3", "priors", "[]", &error));
  g_assert_no_error (error);
  g_assert_true (edit_three_problems ("4", "priors", "[\"1\"]", &error));
  g_assert_no_error (error);
  g_assert_true (edit_three_problems ("5", "name", "\"Summary\"", &error));
  g_assert_no_error (error);

  /* A change that makes a new circle is refused, and says which. */
  g_assert_false (edit_three_problems ("1", "priors", "[\"2\"]", &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  sk_test_assert_contains (error->message, "“Load”");
  sk_test_assert_contains (error->message, "circle");
  g_assert_null (strstr (error->message, "share the folder"));
  g_assert_null (strstr (error->message, "no step “9”"));
}

static void
test_project_update_from_json (void)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(JsonObject) edited = NULL;
  g_autoptr(JsonObject) cyclic = NULL;
  g_autoptr(JsonObject) self_loop = NULL;
  g_autoptr(GString) log = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  SkNode *load_sales;
  SkNode *totals;
  SkNode *added;

  project = load (sample_json, NULL);
  load_sales = sk_project_get_node (project, "1");
  totals = sk_project_get_node (project, "2");
  g_signal_connect (project, "items-changed", G_CALLBACK (items_changed_cb), log);

  /* Node 3 goes, node 2 changes, node 4 arrives. */
  edited = parse_object ("{\"process_name\": \"Sales report 2\", \"nodes\": {"
                         "  \"1\": {\"name\": \"Load Sales\", \"run\": false,"
                         "          \"skele\": {\"x\": 10.5, \"y\": -3}},"
                         "  \"2\": {\"name\": \"Monthly sums\", \"priors\": [\"1\"]},"
                         "  \"4\": {\"name\": \"Chart\", \"priors\": [\"2\"]}}}");
  g_assert_true (sk_project_update_from_json (project, edited, &error));
  g_assert_no_error (error);
  g_assert_true (sk_project_get_modified (project));

  g_assert_cmpstr (sk_project_get_name (project), ==, "Sales report 2");
  g_assert_cmpstr (sk_project_get_description (project), ==, "");
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
  g_assert_true (sk_project_get_node (project, "1") == load_sales);
  g_assert_true (sk_project_get_node (project, "2") == totals);
  g_assert_null (sk_project_get_node (project, "3"));
  added = sk_project_get_node (project, "4");
  g_assert_nonnull (added);
  g_assert_cmpstr (sk_node_get_name (added), ==, "Chart");
  assert_strv (sk_node_get_priors (added), SK_TEST_STRV ("2"));
  g_assert_cmpstr (sk_node_get_name (totals), ==, "Monthly sums");
  assert_strv (sk_node_get_priors (totals), SK_TEST_STRV ("1"));
  g_assert_cmpstr (sk_node_get_input_text (load_sales), ==, "");
  g_assert_cmpstr (log->str, ==, "2-1+0;2-0+1;");

  {
    g_autoptr(GPtrArray) problems = sk_project_validate (project);

    g_assert_cmpuint (problems->len, ==, 0);
  }

  /* Edits with a cycle are refused as a whole. */
  before = sk_project_to_data (project, NULL);
  g_string_truncate (log, 0);

  cyclic = parse_object ("{\"process_name\": \"other\", \"nodes\": {"
                         "  \"1\": {\"name\": \"Load Sales\", \"priors\": [\"4\"]},"
                         "  \"2\": {\"name\": \"Monthly sums\", \"priors\": [\"1\"]},"
                         "  \"4\": {\"name\": \"Chart\", \"priors\": [\"2\"]},"
                         "  \"5\": {\"name\": \"New\"}}}");
  g_assert_false (sk_project_update_from_json (project, cyclic, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "“Chart”"));
  g_clear_error (&error);

  self_loop = parse_object ("{\"nodes\": {"
                            "  \"1\": {\"name\": \"Load Sales\", \"priors\": [\"1\"]},"
                            "  \"2\": {\"name\": \"Monthly sums\", \"priors\": [\"1\"]}}}");
  g_assert_false (sk_project_update_from_json (project, self_loop, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_clear_error (&error);

  after = sk_project_to_data (project, NULL);
  g_assert_cmpstr (before, ==, after);
  g_assert_cmpstr (log->str, ==, "");
  g_assert_cmpstr (sk_project_get_name (project), ==, "Sales report 2");
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
}

static void
test_project_update_replaces_invalid (void)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(JsonObject) edited = NULL;
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GPtrArray) after = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) saved = NULL;
  g_autofree char *text = NULL;

  project = load ("{\"nodes\": {\"1\": {\"name\": \"a\"}, \"2\": [\"broken\"]}}", NULL);
  before = sk_project_validate (project);
  g_assert_cmpuint (before->len, ==, 1);

  /* The invalid node is kept for writing back, as long as nobody edits it. */
  text = sk_project_to_data (project, NULL);
  saved = parse (text);
  g_assert_nonnull (member_at (saved, "nodes", "2", NULL));
  g_clear_pointer (&text, g_free);
  g_clear_pointer (&saved, json_node_unref);

  /* The user removes it in the JSON editor. */
  edited = parse_object ("{\"nodes\": {\"1\": {\"name\": \"a\"}}}");
  g_assert_true (sk_project_update_from_json (project, edited, &error));
  g_assert_no_error (error);

  after = sk_project_validate (project);
  g_assert_cmpuint (after->len, ==, 0);

  text = sk_project_to_data (project, NULL);
  saved = parse (text);
  g_assert_null (member_at (saved, "nodes", "2", NULL));
}

static void
test_node_changed_signal (void)
{
  g_autoptr(SkNode) node = sk_node_new ("1", "a");
  guint changed = 0;
  guint expected = 0;

  g_signal_connect (node, "changed", G_CALLBACK (count_cb), &changed);

#define CHECK_CHANGES(call)                                     \
  G_STMT_START {                                                \
    call;                                                       \
    expected++;                                                 \
    g_assert_cmpuint (changed, ==, expected);                   \
    /* The same value again is not a change. */                 \
    call;                                                       \
    g_assert_cmpuint (changed, ==, expected);                   \
  } G_STMT_END

  CHECK_CHANGES (sk_node_set_name (node, "Load Sales"));
  CHECK_CHANGES (sk_node_set_description (node, "d"));
  CHECK_CHANGES (sk_node_set_priors (node, SK_TEST_STRV ("2", "3")));
  CHECK_CHANGES (sk_node_set_run (node, FALSE));
  CHECK_CHANGES (sk_node_set_input_text (node, "task"));
  CHECK_CHANGES (sk_node_set_input_files (node, SK_TEST_STRV ("a.csv")));
  CHECK_CHANGES (sk_node_set_output_text (node, "done"));
  CHECK_CHANGES (sk_node_set_output_files (node, SK_TEST_STRV ("b.svg")));
  CHECK_CHANGES (sk_node_set_position (node, 1, 2));
  CHECK_CHANGES (sk_node_set_position (node, 1, 3));

#undef CHECK_CHANGES

  g_assert_true (sk_node_add_prior (node, "4"));
  g_assert_cmpuint (changed, ==, ++expected);
  g_assert_false (sk_node_add_prior (node, "4"));
  g_assert_cmpuint (changed, ==, expected);
  assert_strv (sk_node_get_priors (node), SK_TEST_STRV ("2", "3", "4"));

  g_assert_true (sk_node_remove_prior (node, "3"));
  g_assert_cmpuint (changed, ==, ++expected);
  g_assert_false (sk_node_remove_prior (node, "3"));
  g_assert_cmpuint (changed, ==, expected);
  assert_strv (sk_node_get_priors (node), SK_TEST_STRV ("2", "4"));

  /* Run state and errors are not saved, so they are not changes. */
  sk_node_set_state (node, SK_NODE_STATE_FAILED);
  sk_node_set_error (node, "boom", "Traceback");
  g_assert_cmpuint (changed, ==, expected);
  g_assert_cmpint (sk_node_get_state (node), ==, SK_NODE_STATE_FAILED);
  g_assert_cmpstr (sk_node_get_error_text (node), ==, "boom");

  /* NULL text is stored as empty text. */
  sk_node_set_description (node, NULL);
  g_assert_cmpstr (sk_node_get_description (node), ==, "");
  g_assert_cmpuint (changed, ==, ++expected);
}

static void
notify_cb (GObject    *object,
           GParamSpec *pspec,
           guint      *count)
{
  (*count)++;
}

static void
test_modified (void)
{
  g_autofree char *tmp = sk_test_make_tmp_dir ("test-project");
  g_autoptr(GFile) folder = g_file_new_for_path (tmp);
  g_autoptr(SkProject) project = NULL;
  guint notified = 0;
  guint changed = 0;
  g_autoptr(GError) error = NULL;

  project = load (sample_json, folder);
  g_signal_connect (project, "notify::modified", G_CALLBACK (notify_cb), &notified);
  g_signal_connect (project, "changed", G_CALLBACK (count_cb), &changed);

  sk_node_set_input_text (sk_project_get_node (project, "2"), "Add up every month");
  g_assert_true (sk_project_get_modified (project));
  g_assert_cmpuint (notified, ==, 1);
  g_assert_cmpuint (changed, ==, 1);

  sk_node_set_run (sk_project_get_node (project, "3"), FALSE);
  g_assert_cmpuint (notified, ==, 1);
  g_assert_cmpuint (changed, ==, 2);

  /* The run state is not part of the file. */
  sk_node_set_state (sk_project_get_node (project, "3"), SK_NODE_STATE_RUNNING);
  g_assert_cmpuint (changed, ==, 2);

  g_assert_true (sk_project_save (project, &error));
  g_assert_no_error (error);
  g_assert_false (sk_project_get_modified (project));
  g_assert_cmpuint (notified, ==, 2);

  sk_project_set_description (project, "new description");
  g_assert_true (sk_project_get_modified (project));
  g_assert_cmpuint (notified, ==, 3);
  g_assert_cmpuint (changed, ==, 3);

  sk_test_remove_tree (tmp);
}

static void
node_signal_cb (SkProject *project,
                SkNode    *node,
                GString   *log)
{
  g_string_append_printf (log, "%s;", sk_node_get_id (node));
}

static void
test_add_remove (void)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkNode) chart = sk_node_new ("9", "Chart");
  g_autoptr(SkNode) again = sk_node_new ("9", "Chart again");
  g_autoptr(GString) items = g_string_new (NULL);
  g_autoptr(GString) added = g_string_new (NULL);
  g_autoptr(GString) removed = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SkNode) held = NULL;
  SkNode *load_sales;
  guint changed = 0;

  project = load (sample_json, NULL);
  load_sales = sk_project_get_node (project, "1");
  g_signal_connect (project, "items-changed", G_CALLBACK (items_changed_cb), items);
  g_signal_connect (project, "node-added", G_CALLBACK (node_signal_cb), added);
  g_signal_connect (project, "node-removed", G_CALLBACK (node_signal_cb), removed);

  sk_node_set_priors (chart, SK_TEST_STRV ("1", "2"));
  g_assert_true (sk_project_add_node (project, chart, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (items->str, ==, "3-0+1;");
  g_assert_cmpstr (added->str, ==, "9;");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (project)), ==, 4);
  g_assert_true (sk_project_get_modified (project));

  /* Identifiers are unique. */
  g_assert_false (sk_project_add_node (project, again, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpstr (items->str, ==, "3-0+1;");
  g_assert_true (sk_project_get_node (project, "9") == chart);

  /* The project follows changes to a node it holds. */
  g_signal_connect (project, "changed", G_CALLBACK (count_cb), &changed);
  sk_node_set_name (chart, "Revenue chart");
  g_assert_cmpuint (changed, ==, 1);

  /* Removing a node removes it from the priors of the others. */
  held = g_object_ref (load_sales);
  sk_project_remove_node (project, load_sales);
  g_assert_cmpstr (items->str, ==, "3-0+1;0-1+0;");
  g_assert_cmpstr (removed->str, ==, "1;");
  g_assert_null (sk_project_get_node (project, "1"));
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 3);
  assert_strv (sk_node_get_priors (sk_project_get_node (project, "2")), SK_TEST_STRV ("3"));
  assert_strv (sk_node_get_priors (sk_project_get_node (project, "3")), SK_TEST_STRV (NULL));
  assert_strv (sk_node_get_priors (chart), SK_TEST_STRV ("2"));

  {
    g_autoptr(GPtrArray) problems = sk_project_validate (project);

    g_assert_cmpuint (problems->len, ==, 0);
  }

  /* The removed node no longer reports to the project. */
  changed = 0;
  sk_node_set_name (load_sales, "gone");
  g_assert_cmpuint (changed, ==, 0);

  /* Removing it twice does nothing. */
  sk_project_remove_node (project, load_sales);
  g_assert_cmpstr (items->str, ==, "3-0+1;0-1+0;");

  sk_project_remove_node (project, chart);
  g_assert_cmpstr (items->str, ==, "3-0+1;0-1+0;2-1+0;");
  g_assert_cmpstr (removed->str, ==, "1;9;");
}

static char *
node_order (SkProject *project)
{
  g_autoptr(JsonObject) json = sk_project_to_json (project);
  g_autoptr(GList) ids = json_object_get_members (json_object_get_object_member (json, "nodes"));
  GString *order = g_string_new (NULL);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (project));

  /* The list model and the saved file agree on the order. */
  g_assert_cmpuint (g_list_length (ids), ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      g_assert_cmpstr (sk_node_get_id (node), ==, g_list_nth_data (ids, i));
      g_string_append_printf (order, "%s%s", i > 0 ? "," : "", sk_node_get_id (node));
    }

  return g_string_free (order, FALSE);
}

static void
test_insert (void)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkNode) first = sk_node_new ("7", "First");
  g_autoptr(SkNode) middle = sk_node_new ("8", "Middle");
  g_autoptr(SkNode) last = sk_node_new ("9", "Last");
  g_autoptr(SkNode) again = sk_node_new ("2", "Again");
  g_autoptr(GString) items = g_string_new (NULL);
  g_autoptr(GString) added = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *order = NULL;
  guint changed = 0;

  project = load (sample_json, NULL);
  g_signal_connect (project, "items-changed", G_CALLBACK (items_changed_cb), items);
  g_signal_connect (project, "node-added", G_CALLBACK (node_signal_cb), added);
  g_signal_connect (project, "changed", G_CALLBACK (count_cb), &changed);

  g_assert_true (sk_project_insert_node (project, 0, first, &error));
  g_assert_no_error (error);
  g_assert_true (sk_project_insert_node (project, 2, middle, &error));
  g_assert_no_error (error);
  g_assert_true (sk_project_insert_node (project, 5, last, &error));
  g_assert_no_error (error);

  g_assert_cmpstr (items->str, ==, "0-0+1;2-0+1;5-0+1;");
  g_assert_cmpstr (added->str, ==, "7;8;9;");
  g_assert_cmpuint (changed, ==, 3);
  g_assert_true (sk_project_get_modified (project));
  order = node_order (project);
  g_assert_cmpstr (order, ==, "7,1,8,2,3,9");
  g_assert_true (sk_project_get_node (project, "8") == middle);

  /* An inserted node is followed like any other. */
  sk_node_set_name (middle, "Middle step");
  g_assert_cmpuint (changed, ==, 4);

  /* Identifiers stay unique. */
  g_assert_false (sk_project_insert_node (project, 1, again, &error));
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpstr (items->str, ==, "0-0+1;2-0+1;5-0+1;");
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 6);

  /* Removing a node that no other node needs and inserting it at the same
   * place gives the same file.
   */
  {
    g_autoptr(SkNode) held = g_object_ref (sk_project_get_node (project, "2"));
    g_autofree char *before = sk_project_to_data (project, NULL);
    g_autofree char *after = NULL;
    g_autofree char *again_order = NULL;

    sk_project_remove_node (project, held);
    g_assert_true (sk_project_insert_node (project, 3, held, &error));
    g_assert_no_error (error);
    after = sk_project_to_data (project, NULL);
    g_assert_cmpstr (after, ==, before);
    again_order = node_order (project);
    g_assert_cmpstr (again_order, ==, "7,1,8,2,3,9");
  }
}

static void
test_key (gconstpointer data)
{
  const KeyCase *c = data;
  g_autofree char *key = sk_node_key_from_name (c->name);

  g_assert_cmpstr (key, ==, c->key);
}

static const KeyCase key_cases[] = {
  { "load sales", "load_sales" },
  { "  Plot: 20-day MA!! ", "plot_20_day_ma" },
  { "ÄÖ", "" },
  { "a__b", "a_b" },
  { "", "" },
  { "Load Sales", "load_sales" },
  { "load-sales", "load_sales" },
  { "___", "" },
  { "Café au lait", "caf_au_lait" },
  { "step 2", "step_2" },
  { "ABC123", "abc123" },
};

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/project/load/unknown-keys", test_round_trip);
  g_test_add_func ("/project/load/new-spelling-wins", test_new_spelling_wins);
  g_test_add_func ("/project/load/flat-form", test_flat_form);
  g_test_add_func ("/project/load/parse-error", test_parse_error);
  g_test_add_func ("/project/load/root-not-object", test_root_not_object);
  g_test_add_func ("/project/load/lone-surrogate", test_lone_surrogate);
  g_test_add_func ("/project/load/bad-unicode-escape", test_bad_unicode_escape);
  g_test_add_func ("/project/load/fuzz-regressions", test_fuzz_regressions);
  g_test_add_func ("/project/save/position-noise", test_position_noise);
  g_test_add_func ("/project/load/malformed-names-file", test_load_malformed_names_file);
  g_test_add_func ("/project/save/exponent-doubles", test_save_exponent_doubles);
  g_test_add_func ("/project/load/too-deep", test_too_deep);
  g_test_add_func ("/project/load/missing", test_load_missing);
  g_test_add_func ("/project/load/duplicate-id-keeps-one", test_duplicate_id_keeps_one);

  for (guint i = 0; i < G_N_ELEMENTS (problem_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/project/validate/%s", problem_cases[i].name);

      g_test_add_data_func (path, &problem_cases[i], test_problem);
    }
  g_test_add_func ("/project/validate/many-duplicate-ids", test_many_duplicate_ids);
  g_test_add_func ("/project/validate/missing-scripts", test_missing_scripts);
  g_test_add_func ("/project/validate/valid", test_valid);
  g_test_add_func ("/project/validate/input-not-regular", test_input_not_regular);

  g_test_add_func ("/project/save/atomic", test_save_atomic);
  g_test_add_func ("/project/save/failure", test_save_failure);

  g_test_add_func ("/project/update/node", test_node_update_from_json);
  g_test_add_func ("/project/update/project", test_project_update_from_json);
  g_test_add_func ("/project/update/keeps-old-problems", test_project_update_keeps_old_problems);
  g_test_add_func ("/project/update/replaces-invalid", test_project_update_replaces_invalid);
  g_test_add_func ("/project/update/refuses-invalid-text", test_update_refuses_invalid_text);

  g_test_add_func ("/project/signals/node-changed", test_node_changed_signal);
  g_test_add_func ("/project/signals/modified", test_modified);
  g_test_add_func ("/project/signals/add-remove", test_add_remove);
  g_test_add_func ("/project/signals/insert", test_insert);

  for (guint i = 0; i < G_N_ELEMENTS (key_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/project/key/%u", i);

      g_test_add_data_func (path, &key_cases[i], test_key);
    }

  return g_test_run ();
}
