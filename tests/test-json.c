/* test-json.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "sk-json.h"
#include "sk-util.h"
#include "sk-test-util.h"

static JsonObject *
parse_object (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));

  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static const char *sample =
  "{\"text\": \"hello\", \"number\": 3, \"fraction\": 2.5, \"flag\": true,"
  " \"nothing\": null, \"list\": [1, 2], \"object\": {\"inner\": \"x\"}}";

static void
test_getters_right_type (void)
{
  g_autoptr(JsonObject) object = parse_object (sample);
  gboolean flag = FALSE;
  gint64 number = 0;
  double fraction = 0;

  g_assert_cmpstr (sk_json_get_string (object, "text"), ==, "hello");

  g_assert_true (sk_json_get_int (object, "number", &number));
  g_assert_cmpint (number, ==, 3);

  g_assert_true (sk_json_get_double (object, "fraction", &fraction));
  g_assert_cmpfloat (fraction, ==, 2.5);
  /* An integer is a number too. */
  g_assert_true (sk_json_get_double (object, "number", &fraction));
  g_assert_cmpfloat (fraction, ==, 3.0);

  g_assert_true (sk_json_get_boolean (object, "flag", &flag));
  g_assert_true (flag);

  g_assert_nonnull (sk_json_get_array (object, "list"));
  g_assert_cmpuint (json_array_get_length (sk_json_get_array (object, "list")), ==, 2);
  g_assert_cmpstr (sk_json_get_string (sk_json_get_object (object, "object"), "inner"), ==, "x");

  g_assert_nonnull (sk_json_get_member (object, "nothing"));
  g_assert_true (JSON_NODE_HOLDS_NULL (sk_json_get_member (object, "nothing")));

  /* The out values are optional. */
  g_assert_true (sk_json_get_int (object, "number", NULL));
  g_assert_true (sk_json_get_double (object, "fraction", NULL));
  g_assert_true (sk_json_get_boolean (object, "flag", NULL));
}

/* Every getter meets every member of another type; with fatal warnings,
 * any warning fails the test. */
static void
test_getters_wrong_type (void)
{
  g_autoptr(JsonObject) object = parse_object (sample);
  static const char * const members[] = {
    "text", "number", "fraction", "flag", "nothing", "list", "object",
  };

  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    {
      const char *name = members[i];
      gboolean flag = 42;
      gint64 number = 42;
      double fraction = 42;

      if (!g_str_equal (name, "text"))
        g_assert_null (sk_json_get_string (object, name));
      if (!g_str_equal (name, "object"))
        g_assert_null (sk_json_get_object (object, name));
      if (!g_str_equal (name, "list"))
        g_assert_null (sk_json_get_array (object, name));

      if (!g_str_equal (name, "flag"))
        {
          g_assert_false (sk_json_get_boolean (object, name, &flag));
          g_assert_cmpint (flag, ==, 42);
        }
      if (!g_str_equal (name, "number"))
        {
          g_assert_false (sk_json_get_int (object, name, &number));
          g_assert_cmpint (number, ==, 42);
        }
      if (!g_str_equal (name, "number") && !g_str_equal (name, "fraction"))
        {
          g_assert_false (sk_json_get_double (object, name, &fraction));
          g_assert_cmpfloat (fraction, ==, 42);
        }
    }
}

static void
test_getters_missing (void)
{
  g_autoptr(JsonObject) object = parse_object (sample);
  gboolean flag = 42;
  gint64 number = 42;
  double fraction = 42;

  g_assert_null (sk_json_get_member (object, "absent"));
  g_assert_null (sk_json_get_string (object, "absent"));
  g_assert_null (sk_json_get_object (object, "absent"));
  g_assert_null (sk_json_get_array (object, "absent"));
  g_assert_false (sk_json_get_boolean (object, "absent", &flag));
  g_assert_false (sk_json_get_int (object, "absent", &number));
  g_assert_false (sk_json_get_double (object, "absent", &fraction));
  g_assert_cmpint (flag, ==, 42);
  g_assert_cmpint (number, ==, 42);
  g_assert_cmpfloat (fraction, ==, 42);

  /* Member names are case-sensitive. */
  g_assert_null (sk_json_get_string (object, "Text"));
}

static void
test_getters_null_object (void)
{
  gboolean flag = 42;
  gint64 number = 42;
  double fraction = 42;

  g_assert_null (sk_json_get_member (NULL, "text"));
  g_assert_null (sk_json_get_string (NULL, "text"));
  g_assert_null (sk_json_get_object (NULL, "object"));
  g_assert_null (sk_json_get_array (NULL, "list"));
  g_assert_false (sk_json_get_boolean (NULL, "flag", &flag));
  g_assert_false (sk_json_get_int (NULL, "number", &number));
  g_assert_false (sk_json_get_double (NULL, "fraction", &fraction));
  g_assert_cmpint (flag, ==, 42);
  g_assert_cmpint (number, ==, 42);
  g_assert_cmpfloat (fraction, ==, 42);

  /* Chains through a missing object read as absent too. */
  g_assert_null (sk_json_get_string (sk_json_get_object (NULL, "object"), "inner"));
}

static void
test_to_data (void)
{
  g_autoptr(JsonObject) object = parse_object ("{\"a\": [1, \"b\"], \"c\": {\"d\": null}}");
  g_autoptr(JsonNode) root = json_node_init_object (json_node_alloc (), object);
  g_autofree char *compact = NULL;
  g_autofree char *pretty = NULL;
  gsize length = 0;

  compact = sk_json_to_data (root, FALSE, &length);
  g_assert_cmpstr (compact, ==, "{\"a\":[1,\"b\"],\"c\":{\"d\":null}}");
  g_assert_cmpuint (length, ==, strlen (compact));

  pretty = sk_json_to_data (root, TRUE, NULL);
  g_assert_cmpstr (pretty, ==,
                   "{\n"
                   "  \"a\" : [\n"
                   "    1,\n"
                   "    \"b\"\n"
                   "  ],\n"
                   "  \"c\" : {\n"
                   "    \"d\" : null\n"
                   "  }\n"
                   "}");
}

/* Both the durable writes of the workflow and the quicker ones of the
 * runner's records replace the file whole. */
static void
test_write_atomic (gconstpointer data)
{
  gboolean durable = GPOINTER_TO_INT (data);
  g_autofree char *folder = sk_test_make_tmp_dir ("json");
  g_autofree char *path = g_build_filename (folder, "data.json", NULL);
  g_autoptr(JsonObject) first = parse_object ("{\"version\": 1}");
  g_autoptr(JsonObject) second = parse_object ("{\"version\": 2, \"text\": \"é\"}");
  g_autoptr(JsonNode) first_root = json_node_init_object (json_node_alloc (), first);
  g_autoptr(JsonNode) second_root = json_node_init_object (json_node_alloc (), second);
  g_autoptr(JsonObject) read_back = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autofree char *text = NULL;
  struct stat info;
  gint64 version = 0;
  guint entries = 0;

  g_assert_true (sk_json_write_atomic (path, first_root, durable, &error));
  g_assert_no_error (error);

  g_assert_true (sk_json_write_atomic (path, second_root, durable, &error));
  g_assert_no_error (error);

  text = sk_test_read_text (folder, "data.json");
  g_assert_cmpstr (text, ==, "{\n  \"version\" : 2,\n  \"text\" : \"é\"\n}\n");

  read_back = sk_json_read_object (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (read_back);
  g_assert_true (sk_json_get_int (read_back, "version", &version));
  g_assert_cmpint (version, ==, 2);
  g_assert_cmpstr (sk_json_get_string (read_back, "text"), ==, "é");

  g_assert_cmpint (g_stat (path, &info), ==, 0);
  g_assert_cmpint (info.st_mode & 0777, ==, 0644);

  /* No temporary file is left behind. */
  dir = g_dir_open (folder, 0, &error);
  g_assert_no_error (error);
  while (g_dir_read_name (dir) != NULL)
    entries++;
  g_assert_cmpuint (entries, ==, 1);

  sk_test_remove_tree (folder);
}

/* A write into a folder that does not exist fails and leaves nothing. */
static void
test_write_atomic_error (void)
{
  g_autofree char *folder = sk_test_make_tmp_dir ("json");
  g_autofree char *path = g_build_filename (folder, "missing", "data.json", NULL);
  g_autoptr(JsonObject) object = parse_object ("{}");
  g_autoptr(JsonNode) root = json_node_init_object (json_node_alloc (), object);
  g_autoptr(GError) error = NULL;

  g_assert_false (sk_json_write_atomic (path, root, TRUE, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);
  g_assert_false (sk_json_write_atomic (path, root, FALSE, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  sk_test_remove_tree (folder);
}

static void
test_read_errors (void)
{
  g_autofree char *folder = sk_test_make_tmp_dir ("json");
  g_autofree char *missing = g_build_filename (folder, "missing.json", NULL);
  g_autofree char *malformed = g_build_filename (folder, "malformed.json", NULL);
  g_autofree char *list = g_build_filename (folder, "list.json", NULL);
  g_autofree char *empty = g_build_filename (folder, "empty.json", NULL);
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) error = NULL;

  sk_test_write_text (folder, "malformed.json", "{\"a\": 1,");
  sk_test_write_text (folder, "list.json", "[1, 2]");
  sk_test_write_text (folder, "empty.json", "");

  object = sk_json_read_object (missing, &error);
  g_assert_null (object);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);

  object = sk_json_read_object (malformed, &error);
  g_assert_null (object);
  g_assert_nonnull (error);
  g_assert_true (error->domain == JSON_PARSER_ERROR);
  g_clear_error (&error);

  object = sk_json_read_object (list, &error);
  g_assert_null (object);
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  g_clear_error (&error);

  object = sk_json_read_object (empty, &error);
  g_assert_null (object);
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  g_clear_error (&error);

  /* Without a place for the error, it is only dropped. */
  g_assert_null (sk_json_read_object (malformed, NULL));

  sk_test_remove_tree (folder);
}

static char *nested (char  open,
                     char  close,
                     guint depth);

/* What json-glib's parser builds of @text, or %NULL. */
static JsonNode *
parse_with_json_glib (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (!json_parser_load_from_data (parser, text, -1, NULL) || json_parser_get_root (parser) == NULL)
    return NULL;

  return json_node_copy (json_parser_get_root (parser));
}

/* The fast reader builds what json-glib's parser builds, or leaves the
 * text to it; reading a file gives the same either way. */
static void
test_read_canonical (void)
{
  const char *same[] = {
    sample,
    "{\n  \"status\" : \"success\",\n  \"pickle\" : {\n    \"size\" : 51,\n    \"checksum\" : \"ab\"\n  }\n}",
    "{\"text\": \"caf\u00e9 \\u00e9 \\n \\\" \\/ \\ud83d\\ude00\"}",
    "{\"n\": [-0, 0.5, -1.25e3, 1E-2, 123456789012345678, []], \"o\": {}}",
    "  [true, false, null, \"x\"]  ",
    "\"only a string\"",
    "-17",
  };
  const char *left[] = {
    "{\"a\": 1, \"a\": 2}",
    "{\"a\": \"\\ud800\"}",
    "{\"a\": \"x\\u0000y\"}",
    "{\"a\": 1} trailing",
    "{\"a\": 1234567890123456789012}",
    "{\"a\": 01}",
    "{\"a\": \"\xff\"}",
    "{\"a\": 1,}",
    "",
    "   ",
    "{\"a\": NaN}",
  };
  g_autofree char *folder = sk_test_make_tmp_dir ("json");
  g_autofree char *path = g_build_filename (folder, "record.json", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    {
      g_autoptr(JsonNode) fast = sk_json_read_canonical (same[i], strlen (same[i]));
      g_autoptr(JsonNode) glib = parse_with_json_glib (same[i]);
      g_autofree char *fast_text = NULL;
      g_autofree char *glib_text = NULL;

      g_assert_nonnull (fast);
      g_assert_nonnull (glib);
      g_assert_true (json_node_equal (fast, glib));
      fast_text = sk_json_to_data (fast, TRUE, NULL);
      glib_text = sk_json_to_data (glib, TRUE, NULL);
      g_assert_cmpstr (fast_text, ==, glib_text);
    }

  for (guint i = 0; i < G_N_ELEMENTS (left); i++)
    g_assert_null (sk_json_read_canonical (left[i], strlen (left[i])));

  /* A file the fast reader leaves reads as before. */
  sk_test_write_text (folder, "record.json", "{\"a\": 1, \"a\": 2}");
  {
    g_autoptr(JsonObject) object = sk_json_read_object (path, NULL);

    g_assert_nonnull (object);
    g_assert_cmpint (json_object_get_int_member (object, "a"), ==, 2);
  }
  sk_test_write_text (folder, "record.json", sample);
  {
    g_autoptr(JsonObject) object = sk_json_read_object (path, NULL);
    g_autoptr(JsonObject) expected = parse_object (sample);

    g_assert_nonnull (object);
    g_assert_true (json_object_equal (object, expected));
  }

  sk_test_remove_tree (folder);
}

static void
test_read_too_deep (void)
{
  g_autofree char *folder = sk_test_make_tmp_dir ("json");
  g_autofree char *path = g_build_filename (folder, "deep.json", NULL);
  g_autofree char *deep = nested ('[', ']', 100000);
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) error = NULL;

  sk_test_write_text (folder, "deep.json", deep);

  object = sk_json_read_object (path, &error);
  g_assert_null (object);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);

  sk_test_remove_tree (folder);
}

static char *
nested (char  open,
        char  close,
        guint depth)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, open);
  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, close);

  return g_string_free (text, FALSE);
}

static void
test_check_depth_limit (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *at_limit = nested ('[', ']', SK_JSON_MAX_DEPTH);
  g_autofree char *over_limit = nested ('[', ']', SK_JSON_MAX_DEPTH + 1);
  g_autofree char *huge = nested ('[', ']', 100000);
  g_autoptr(GString) objects = g_string_new (NULL);

  g_assert_true (sk_json_check_depth (at_limit, -1, SK_JSON_MAX_DEPTH, &error));
  g_assert_no_error (error);

  g_assert_false (sk_json_check_depth (over_limit, -1, SK_JSON_MAX_DEPTH, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "512"));
  g_clear_error (&error);

  g_assert_false (sk_json_check_depth (huge, -1, SK_JSON_MAX_DEPTH, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  /* Objects count as arrays do, and so does a mixture. */
  for (guint i = 0; i < 3; i++)
    g_string_append (objects, "{\"a\": [");
  g_assert_true (sk_json_check_depth (objects->str, -1, 6, NULL));
  g_assert_false (sk_json_check_depth (objects->str, -1, 5, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  /* Depth goes down again when a level closes. */
  g_assert_true (sk_json_check_depth ("[[1], [2], {\"a\": 1}]", -1, 2, NULL));
  g_assert_false (sk_json_check_depth ("[[1], [[2]]]", -1, 2, NULL));

  /* The length bounds the scan: what follows is not looked at. */
  g_assert_true (sk_json_check_depth ("[[[[", 2, 2, NULL));
  g_assert_true (sk_json_check_depth ("", -1, 0, NULL));
  g_assert_true (sk_json_check_depth ("1", -1, 0, NULL));
  g_assert_false (sk_json_check_depth ("[]", -1, 0, NULL));
}

static void
test_check_depth_strings (void)
{
  g_autoptr(GString) text = g_string_new ("[\"");
  g_autoptr(JsonParser) parser = json_parser_new ();

  /* Brackets inside a string do not nest. */
  g_assert_true (sk_json_check_depth ("[\"[[[[{{{{\"]", -1, 1, NULL));
  g_assert_true (sk_json_check_depth ("{\"[[[\": \"{{{\"}", -1, 1, NULL));

  /* An escaped quote does not end the string, nor an escaped backslash
   * keep it open. */
  g_assert_true (sk_json_check_depth ("[\"\\\"[[[\"]", -1, 1, NULL));
  g_assert_false (sk_json_check_depth ("[\"\\\\\"[[[\"]", -1, 1, NULL));
  g_assert_true (sk_json_check_depth ("[\"\\\\\", \"[[[\"]", -1, 1, NULL));

  /* A string that is never closed hides what follows; the parser refuses
   * it anyway. */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (text, '[');
  g_assert_true (sk_json_check_depth (text->str, text->len, 1, NULL));
  g_assert_false (json_parser_load_from_data (parser, text->str, text->len, NULL));
}

static void
check_replaced (const char *text,
                const char *expected,
                guint       expected_count)
{
  g_autofree char *replaced = NULL;
  gsize length = 0;
  guint count = 99;

  replaced = sk_json_replace_lone_surrogates (text, -1, &length, &count);
  g_assert_cmpuint (count, ==, expected_count);
  if (expected == NULL)
    {
      g_assert_null (replaced);
      g_assert_cmpuint (length, ==, strlen (text));
    }
  else
    {
      g_assert_cmpstr (replaced, ==, expected);
      g_assert_cmpuint (length, ==, strlen (expected));
    }
}

static void
test_replace_lone_surrogates (void)
{
  /* Pairs, other escapes and text outside strings are left alone. */
  check_replaced ("[\"\\ud83d\\ude00\", \"\\u00e9\\n\"]", NULL, 0);
  check_replaced ("[\"\\\\udce9\"]", NULL, 0);
  check_replaced ("{\"a\": 1} \\udce9", NULL, 0);

  /* A lone low or high surrogate, at the end of a string or not. */
  check_replaced ("[\"caf\\udce9 r\"]", "[\"caf\\ufffd r\"]", 1);
  check_replaced ("[\"x\\uD83D\", \"y\"]", "[\"x\\ufffd\", \"y\"]", 1);
  check_replaced ("{\"k\\udce9\": \"\\ud83d\\u0041\"}", "{\"k\\ufffd\": \"\\ufffd\\u0041\"}", 2);
  check_replaced ("[\"\\ude00\\ud83d\"]", "[\"\\ufffd\\ufffd\"]", 2);

  /* A truncated escape is the parser's to refuse. */
  check_replaced ("[\"\\ud8", NULL, 0);
}

static void
test_write_invalid_text (void)
{
  g_autofree char *folder = sk_test_make_tmp_dir ("json");
  g_autofree char *path = g_build_filename (folder, "out.json", NULL);
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;

  sk_test_write_text (folder, "out.json", "{}\n");

  /* What json-glib 1.6 makes of "\udce9". */
  json_object_set_string_member (object, "name", "caf\xed\xb3\xa9");
  json_node_set_object (root, object);

  for (int durable = 0; durable <= 1; durable++)
    {
      g_assert_false (sk_json_write_atomic (path, root, durable, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_clear_error (&error);
    }

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "{}\n");

  sk_test_remove_tree (folder);
}

static void
test_util_compare_strings (void)
{
  g_autoptr(GPtrArray) strings = g_ptr_array_new ();
  GPtrArray *owned = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) sorted = NULL;

  g_ptr_array_add (strings, (gpointer) "pear");
  g_ptr_array_add (strings, (gpointer) "Apple");
  g_ptr_array_add (strings, (gpointer) "apple");
  g_ptr_array_add (strings, (gpointer) "");
  g_ptr_array_sort (strings, sk_util_compare_strings);

  g_assert_cmpstr (g_ptr_array_index (strings, 0), ==, "");
  g_assert_cmpstr (g_ptr_array_index (strings, 1), ==, "Apple");
  g_assert_cmpstr (g_ptr_array_index (strings, 2), ==, "apple");
  g_assert_cmpstr (g_ptr_array_index (strings, 3), ==, "pear");

  g_ptr_array_add (owned, g_strdup ("b"));
  g_ptr_array_add (owned, g_strdup ("c"));
  g_ptr_array_add (owned, g_strdup ("a"));
  sorted = sk_util_sorted_strv (owned);
  g_assert_cmpuint (g_strv_length (sorted), ==, 3);
  g_assert_true (g_strv_equal ((const char * const *) sorted, SK_TEST_STRV ("a", "b", "c")));
}

/* Bookkeeping is read back only from regular files: a link planted in its
 * place is not followed and a FIFO does not block the reader. */
static void
test_read_not_followed (void)
{
  g_autofree char *folder = sk_test_make_tmp_dir ("json");
  g_autofree char *secret = g_build_filename (folder, "secret.json", NULL);
  g_autofree char *link = g_build_filename (folder, "record.json", NULL);
  g_autofree char *fifo = g_build_filename (folder, "result.json", NULL);
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) error = NULL;

  sk_test_write_text (folder, "secret.json", "{\"key\": \"sk-secret\"}");
  g_assert_cmpint (symlink (secret, link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  object = sk_json_read_object (link, &error);
  g_assert_null (object);
  g_assert_nonnull (error);
  g_clear_error (&error);

  object = sk_json_read_object (fifo, &error);
  g_assert_null (object);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_clear_error (&error);

  object = sk_json_read_object (secret, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sk_json_get_string (object, "key"), ==, "sk-secret");

  sk_test_remove_tree (folder);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/getters/right-type", test_getters_right_type);
  g_test_add_func ("/json/getters/wrong-type", test_getters_wrong_type);
  g_test_add_func ("/json/getters/missing", test_getters_missing);
  g_test_add_func ("/json/getters/null-object", test_getters_null_object);
  g_test_add_func ("/json/to-data", test_to_data);
  g_test_add_func ("/json/read/not-followed", test_read_not_followed);
  g_test_add_data_func ("/json/write-atomic/replace-durable", GINT_TO_POINTER (TRUE), test_write_atomic);
  g_test_add_data_func ("/json/write-atomic/replace", GINT_TO_POINTER (FALSE), test_write_atomic);
  g_test_add_func ("/json/write-atomic/error", test_write_atomic_error);
  g_test_add_func ("/json/write-atomic/invalid-text", test_write_invalid_text);
  g_test_add_func ("/json/read/errors", test_read_errors);
  g_test_add_func ("/json/read/too-deep", test_read_too_deep);
  g_test_add_func ("/json/read/canonical", test_read_canonical);
  g_test_add_func ("/json/check-depth/limit", test_check_depth_limit);
  g_test_add_func ("/json/check-depth/strings", test_check_depth_strings);
  g_test_add_func ("/json/replace-lone-surrogates", test_replace_lone_surrogates);
  g_test_add_func ("/util/compare-strings", test_util_compare_strings);

  return g_test_run ();
}
