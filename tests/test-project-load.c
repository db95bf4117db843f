/* test-project-load.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The two readings of a process.json give the same workflow: the fast
 * reader of the form Skele-Code writes reads every such file, with members
 * it does not know, escapes and numbers of every kind; anything else it
 * leaves to the lenient reading, which mends and reports it, so that
 * sk_project_load_from_data() gives what the lenient reading gives. And
 * the two writings give the same text: straight from the workflow, and
 * through json-glib's tree and generator.
 */

#define G_LOG_DOMAIN "test-project-load"

#include <string.h>

#include "sk-project-private.h"
#include "sk-test-util.h"

/* What a loaded workflow is, to compare two: its saved text, and the
 * problems validation finds, which include those seen while parsing. */
static char *
describe (SkProject *project)
{
  g_autoptr(GPtrArray) problems = sk_project_validate (project);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *saved = sk_project_to_data (project, NULL);
  g_autofree char *generic = _sk_project_to_data_generic (project, NULL);

  /* The text written straight from the workflow is json-glib's. */
  g_assert_cmpstr (saved, ==, generic);

  g_string_append_printf (out, "modified %d\n%s\n", sk_project_get_modified (project), saved);
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      g_string_append_printf (out, "problem %d %d %s: %s\n", problem->kind, problem->is_warning,
                              problem->node_id != NULL ? problem->node_id : "-", problem->message);
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
describe_lenient (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) project = _sk_project_load_lenient (text, -1, NULL, &error);

  if (project == NULL)
    return g_strdup_printf ("error %s", error->message);

  return describe (project);
}

/* @text is read by the fast reader, to the same workflow as the lenient
 * reading gives. */
static void
assert_fast (const char *text)
{
  g_autoptr(SkProject) fast = _sk_project_load_canonical (text, strlen (text), NULL);
  g_autofree char *expected = describe_lenient (text);
  g_autofree char *actual = NULL;

  if (fast == NULL)
    g_error ("The fast reader gave up on:\n%s", text);

  actual = describe (fast);
  g_assert_cmpstr (actual, ==, expected);
}

/* @text is left to the lenient reading, and loading it gives what that
 * reading gives. */
static void
assert_lenient (const char *text)
{
  g_autoptr(SkProject) fast = _sk_project_load_canonical (text, strlen (text), NULL);
  g_autoptr(SkProject) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = describe_lenient (text);
  g_autofree char *actual = NULL;

  if (fast != NULL)
    g_error ("The fast reader read what it must leave to the lenient reading:\n%s", text);

  loaded = sk_project_load_from_data (text, -1, NULL, &error);
  actual = loaded != NULL ? describe (loaded) : g_strdup_printf ("error %s", error->message);
  g_assert_cmpstr (actual, ==, expected);
}

static void
test_example (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("SKELE_EXAMPLES_DIR"), "sales-report",
                                            "process.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  assert_fast (text);
}

/* Everything the form allows: members this program does not know, at the
 * top, in a node, in its input, output and "skele", of every JSON type;
 * control flow; escapes; numbers. */
static const char full_form[] =
  "{\n"
  "  \"process_name\" : \"caf\\u00e9 \\ud83d\\ude00 \\\"quoted\\\" \\\\ \\/ \\b\\f\\n\\r\\t\",\n"
  "  \"process_description\" : \"naïve – ✓\",\n"
  "  \"nodes\" : {\n"
  "    \"1\" : {\n"
  "      \"name\" : \"load data\",\n"
  "      \"description\" : \"first\",\n"
  "      \"priors\" : [],\n"
  "      \"run\" : true,\n"
  "      \"input\" : { \"text\" : \"Read it.\", \"files\" : [ \"a.csv\", \"b c.csv\" ],\n"
  "                  \"encoding\" : \"utf-8\" },\n"
  "      \"output\" : { \"text\" : \"\", \"files\" : [], \"seen\" : [ 1, 2.5, -3, 4e2, null ] },\n"
  "      \"color\" : { \"r\" : 0.5, \"tags\" : [ true, false, {} , [] ] },\n"
  "      \"skele\" : { \"x\" : 120, \"y\" : -40.5, \"approval\" : true, \"note\" : \"keep\" }\n"
  "    },\n"
  "    \"2\" : {\n"
  "      \"name\" : \"split\",\n"
  "      \"priors\" : [ \"1\" ],\n"
  "      \"run\" : false,\n"
  "      \"skele\" : { \"x\" : 1e1, \"y\" : 0, \"when\" : { \"1\" : \"output['n'] > 2\" },\n"
  "                  \"foreach\" : { \"prior\" : \"1\", \"path\" : \"rows\" } }\n"
  "    },\n"
  "    \"3\" : { \"name\" : \"no place\", \"priors\" : [ \"1\", \"2\" ],\n"
  "            \"skele\" : { \"x\" : 5, \"network\" : false, \"read\" : [ \"/data\" ] } },\n"
  "    \"10\" : { \"name\" : \"\", \"input\" : {}, \"output\" : { \"files\" : [ \"out.png\" ] } }\n"
  "  },\n"
  "  \"author\" : { \"name\" : \"A\", \"since\" : 2026, \"ratio\" : 0.125 },\n"
  "  \"skele\" : { \"python\" : \"/usr/bin/python3\", \"network\" : true, \"jobs\" : 2 }\n"
  "}\n";

static void
test_full_form (void)
{
  g_autoptr(SkProject) project = _sk_project_load_canonical (full_form, strlen (full_form), NULL);
  g_autofree char *saved = NULL;
  double x, y;

  assert_fast (full_form);

  g_assert_nonnull (project);
  g_assert_cmpstr (sk_project_get_name (project), ==,
                   "café 😀 \"quoted\" \\ / \b\f\n\r\t");
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 4);
  g_assert_true (sk_node_get_position (sk_project_get_node (project, "1"), &x, &y));
  g_assert_cmpfloat (x, ==, 120);
  g_assert_cmpfloat (y, ==, -40.5);
  g_assert_false (sk_node_get_position (sk_project_get_node (project, "3"), NULL, NULL));
  g_assert_cmpstr (sk_node_get_key (sk_project_get_node (project, "1")), ==, "load_data");
  g_assert_false (sk_node_get_run (sk_project_get_node (project, "2")));

  /* What Skele-Code writes, it reads the fast way again. */
  saved = sk_project_to_data (project, NULL);
  assert_fast (saved);
}

/* The paper's tools write priors as lists in lists, and numbers for
 * identifiers: both read the fast way, flattened and as text. */
static void
test_paper_priors (void)
{
  assert_fast ("{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\"},"
               "\"2\":{\"name\":\"y\",\"priors\":[[\"1\"],[[3]]],"
               "\"input\":{\"files\":[[\"a.csv\"]]}},\"3\":{\"name\":\"z\",\"priors\":[1]}}}");
  assert_fast ("{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\"},"
               "\"2\":{\"name\":\"y\",\"priors\":[[[[\"1\"]]]]}}}");
}

static void
test_left_to_lenient (void)
{
  static const char * const cases[] = {
    /* Members written twice. */
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\"},\"1\":{\"name\":\"y\"}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"name\":\"y\"}}}",
    "{\"process_name\":\"a\",\"process_name\":\"b\",\"nodes\":{}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"more\":1,\"more\":2}}}",
    /* The paper's spellings and forms. */
    "{\"project name\":\"a\",\"nodes\":{}}",
    "{\"process_name\":\"a\",\"1\":{\"name\":\"x\",\"priors\":[]}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"priors\":[[[[[\"2\"]]]]]},"
    "\"2\":{\"name\":\"y\"}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"priors\":[2.0]},"
    "\"2\":{\"name\":\"y\"}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"priors\":[true]},"
    "\"2\":{\"name\":\"y\"}}}",
    /* Values of the wrong type, and a node without a name. */
    "{\"process_name\":5,\"nodes\":{}}",
    "{\"process_name\":\"a\",\"nodes\":[]}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":7}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"description\":\"no name\"}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":5}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"run\":\"yes\"}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"run\":null}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"input\":\"text\"}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"input\":{\"files\":\"a\"}}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"skele\":[]}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"skele\":{\"x\":\"1\",\"y\":2}}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"skele\":{\"network\":\"yes\"}}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"skele\":{\"read\":[\"rel\"]}}}}",
    "{\"process_name\":\"a\",\"nodes\":{},\"skele\":{\"network\":1}}",
    "{\"process_name\":\"a\",\"nodes\":{},\"skele\":{\"python\":3}}",
    "{\"process_name\":\"a\",\"nodes\":{},\"skele\":7}",
    /* Text that is not UTF-8, a lone surrogate, a NUL. */
    "{\"process_name\":\"caf\xe9\",\"nodes\":{}}",
    "{\"process_name\":\"a\\ud800b\",\"nodes\":{}}",
    "{\"process_name\":\"a\\udc00\",\"nodes\":{}}",
    "{\"process_name\":\"a\\u0000b\",\"nodes\":{}}",
    "{\"process_name\":\"a\",\"nodes\":{},\"x\":\"\\ud83d\"}",
    /* Numbers this reader does not copy json-glib on. */
    "{\"process_name\":\"a\",\"nodes\":{},\"big\":123456789012345678901}",
    "{\"process_name\":\"a\",\"nodes\":{},\"huge\":1e999}",
    "{\"process_name\":\"a\",\"nodes\":{},\"lead\":012}",
    /* Not JSON, or more than JSON. */
    "{\"process_name\":\"a\",\"nodes\":{},}",
    "{\"process_name\":\"a\",\"nodes\":{}} trailing",
    "{\"process_name\":\"a\",/* note */\"nodes\":{}}",
    "{\"process_name\":'a',\"nodes\":{}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"raw\":\"tab\there\"}}}",
    "[]",
    "",
    "\xef\xbb\xbf{\"process_name\":\"a\",\"nodes\":{}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    assert_lenient (cases[i]);
}

/* Nesting as deep as the lenient reading allows, and deeper, which it
 * refuses. */
static void
test_depth (void)
{
  for (guint depth = 500; depth <= 520; depth += 20)
    {
      g_autoptr(GString) text = g_string_new ("{\"process_name\":\"a\",\"nodes\":{},\"deep\":");

      for (guint i = 0; i < depth; i++)
        g_string_append_c (text, '[');
      for (guint i = 0; i < depth; i++)
        g_string_append_c (text, ']');
      g_string_append_c (text, '}');

      if (depth < 510)
        assert_fast (text->str);
      else
        assert_lenient (text->str);
    }
}

/* Values json-glib writes in its own way: escapes, the control characters
 * it leaves alone, numbers, empty objects and lists at every depth, and
 * members of the workflow bearing the names it writes itself. */
static void
test_writing (void)
{
  static const char * const cases[] = {
    "{\"process_name\":\"a\\u0001\\u001f\\u007f\\u000b\\\"\\\\/\",\"nodes\":{}}",
    "{\"process_name\":\"a\",\"nodes\":{},\"n\":[0.1,-0.0,1e30,-1.5e-7,300.0,12,-7,"
    "1e15,123456789.123],\"e\":{},\"l\":[[],{},[{}]]}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"skele\":{\"x\":1e16,"
    "\"y\":0.25,\"deep\":{\"a\":[{\"b\":{}}]}}}}}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":{\"name\":\"x\",\"skele\":{\"x\":-3.75,"
    "\"y\":2.5e2}}}}",
    "{\"process_name\":\"a\",\"nodes\":{},\"skele\":\"not an object\"}",
    "{\"process_name\":\"a\",\"nodes\":{\"1\":5,\"2\":{\"name\":\"y\"}}}",
    "{\"process_name\":\"a\",\"nodes\":{},\"skele\":{\"python\":\"\",\"jobs\":2}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *described = describe_lenient (cases[i]);

      g_assert_false (g_str_has_prefix (described, "error"));
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/project-load/example", test_example);
  g_test_add_func ("/project-load/full-form", test_full_form);
  g_test_add_func ("/project-load/paper-priors", test_paper_priors);
  g_test_add_func ("/project-load/left-to-lenient", test_left_to_lenient);
  g_test_add_func ("/project-load/depth", test_depth);
  g_test_add_func ("/project-load/writing", test_writing);

  return g_test_run ();
}
