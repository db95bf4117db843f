/* test-prompt-template.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include <glib/gstdio.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sk-prompts.h"
#include "sk-prompt-template.h"
#include "sk-test-util.h"

static const char * const tool_names[] = {
  "list_dir", "read_file", "write_file", "delete_file", "run_command", "task_complete", NULL
};

/* Builds a table of values from "tag", "value", … pairs ending with NULL. */
static GHashTable *
values_new (const char *first_tag,
            ...)
{
  GHashTable *values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const char *tag = first_tag;
  va_list args;

  va_start (args, first_tag);
  while (tag != NULL)
    {
      const char *value = va_arg (args, const char *);

      g_hash_table_insert (values, g_strdup (tag), g_strdup (value));
      tag = va_arg (args, const char *);
    }
  va_end (args);

  return values;
}

static void
assert_renders (const char *template_text,
                GHashTable *values,
                const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = sk_prompt_template_render (template_text, values, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, expected);
}

static void
test_placeholders (void)
{
  g_autoptr(GHashTable) values = values_new ("name", "World", "n_2", "two", NULL);

  assert_renders ("Hello {name}!", values, "Hello World!");
  assert_renders ("{name}{name} {n_2}", values, "WorldWorld two");
  assert_renders ("", values, "");
  assert_renders ("no tags\n", values, "no tags\n");

  /* A tag without a value, or without any table, becomes nothing. */
  assert_renders ("Hello {missing}!", values, "Hello !");
  assert_renders ("Hello {name}!", NULL, "Hello !");

  /* Values are inserted as they are, never read as templates. */
  g_hash_table_insert (values, g_strdup ("name"), g_strdup ("{n_2} {{ {x/start}"));
  assert_renders ("[{name}]", values, "[{n_2} {{ {x/start}]");
}

static void
test_sections_inline (void)
{
  g_autoptr(GHashTable) set = values_new ("x", "1", NULL);
  g_autoptr(GHashTable) empty = values_new ("x", "", NULL);
  g_autoptr(GHashTable) none = values_new (NULL);

  assert_renders ("a{x/start}b{x}c{x/end}d", set, "ab1cd");
  assert_renders ("a{x/start}b{x}c{x/end}d", empty, "ad");
  assert_renders ("a{x/start}b{x}c{x/end}d", none, "ad");
  assert_renders ("a{x/start}b{x}c{x/end}d", NULL, "ad");

  /* Inline markers keep their line, and its newline. */
  assert_renders ("a {x/start}b{x/end}\nc\n", empty, "a \nc\n");
}

static void
test_sections_own_lines (void)
{
  const char *template_text = "one\n{x/start}\ntwo {x}\n{x/end}\nthree\n";
  const char *indented = "one\n  {x/start}  \n  two\n\t{x/end}\nthree";
  const char *at_end = "one\n{x/start}\ntwo\n{x/end}";
  const char *crlf = "one\r\n{x/start}\r\ntwo\r\n{x/end}\r\nthree\r\n";
  const char *consecutive = "one\n{x/start}\nA\n{x/end}\n{y/start}\nB\n{y/end}\nthree\n";
  g_autoptr(GHashTable) set = values_new ("x", "1", NULL);
  g_autoptr(GHashTable) both = values_new ("x", "1", "y", "2", NULL);

  assert_renders (template_text, set, "one\ntwo 1\nthree\n");
  assert_renders (template_text, NULL, "one\nthree\n");
  assert_renders (indented, set, "one\n  two\nthree");
  assert_renders (indented, NULL, "one\nthree");
  assert_renders (at_end, set, "one\ntwo\n");
  assert_renders (at_end, NULL, "one\n");
  assert_renders (crlf, set, "one\r\ntwo\r\nthree\r\n");
  assert_renders (crlf, NULL, "one\r\nthree\r\n");
  assert_renders (consecutive, both, "one\nA\nB\nthree\n");
  assert_renders (consecutive, set, "one\nA\nthree\n");
  assert_renders (consecutive, NULL, "one\nthree\n");

  /* A section at the very start of the text. */
  assert_renders ("{x/start}\nfirst\n{x/end}\nrest\n", NULL, "rest\n");
}

static void
test_sections_nested (void)
{
  const char *template_text =
    "<\n"
    "{outer/start}\n"
    "outer {outer}\n"
    "{inner/start}\n"
    "inner {inner}\n"
    "{inner/end}\n"
    "{outer/end}\n"
    ">\n";
  g_autoptr(GHashTable) both = values_new ("outer", "O", "inner", "I", NULL);
  g_autoptr(GHashTable) outer = values_new ("outer", "O", NULL);
  g_autoptr(GHashTable) inner = values_new ("inner", "I", NULL);

  assert_renders (template_text, both, "<\nouter O\ninner I\n>\n");
  assert_renders (template_text, outer, "<\nouter O\n>\n");
  /* Inside a section that is left out, nothing is kept. */
  assert_renders (template_text, inner, "<\n>\n");

  /* The same tag may nest inside itself. */
  assert_renders ("{a/start}1{a/start}2{a/end}3{a/end}", outer, "");
  assert_renders ("{outer/start}1{outer/start}2{outer/end}3{outer/end}", outer, "123");
}

static void
test_braces (void)
{
  g_autoptr(GHashTable) values = values_new ("x", "X", NULL);

  assert_renders ("{{x}} {x}", values, "{x} X");
  assert_renders ("{{{x}}}", values, "{X}");
  assert_renders ("{{ }} }}}", values, "{ } }}");
  assert_renders ("{{x/start}}", values, "{x/start}");

  /* Braces that start no tag are kept, so that a stray one breaks nothing. */
  assert_renders ("a { b } c", values, "a { b } c");
  assert_renders ("{Upper} {x-y} {x/middle} {} {", values, "{Upper} {x-y} {x/middle} {} {");
}

static void
test_python_snippet (void)
{
  const char *template_text =
    "state = {{}}\n"
    "\n"
    "def compute():\n"
    "    state[\"output\"] = {{\"task_status\": \"success\", \"{key}\": {{\"rows\": [1, 2]}}}}\n"
    "    print(f\"{{len(state)}} items\")\n";
  const char *expected =
    "state = {}\n"
    "\n"
    "def compute():\n"
    "    state[\"output\"] = {\"task_status\": \"success\", \"totals\": {\"rows\": [1, 2]}}\n"
    "    print(f\"{len(state)} items\")\n";
  g_autoptr(GHashTable) values = values_new ("key", "totals", NULL);

  assert_renders (template_text, values, expected);
}

typedef struct
{
  const char *template_text;
  const char *needles[3];
} ErrorCase;

static const ErrorCase error_cases[] = {
  { "text\n{alpha/start}\nnever ends\n", { "alpha", "Line 2", "never ends" } },
  { "one\ntwo\n{beta/end}\n", { "beta", "Line 3", "never started" } },
  { "{a/start}{b/end}{a/end}", { "“b”", "Line 1", "never started" } },
  { "{a/start}\n{b/start}\n{a/end}\n{b/end}\n", { "“a”", "“b”", "line 2" } },
  { "{a/start}\n{a/start}\n{a/end}\n", { "“a”", "Line 1", "never ends" } },
};

static void
test_errors (gconstpointer data)
{
  const ErrorCase *test_case = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) tags_error = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) tags = NULL;

  text = sk_prompt_template_render (test_case->template_text, NULL, &error);
  g_assert_null (text);
  g_assert_error (error, SK_PROMPT_TEMPLATE_ERROR, SK_PROMPT_TEMPLATE_ERROR_UNBALANCED);
  for (guint i = 0; i < G_N_ELEMENTS (test_case->needles); i++)
    sk_test_assert_contains (error->message, test_case->needles[i]);

  tags = sk_prompt_template_get_tags (test_case->template_text, &tags_error);
  g_assert_null (tags);
  g_assert_error (tags_error, SK_PROMPT_TEMPLATE_ERROR, SK_PROMPT_TEMPLATE_ERROR_UNBALANCED);
}

static void
test_tags (void)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) tags = NULL;
  g_auto(GStrv) none = NULL;

  tags = sk_prompt_template_get_tags ("{b} {a/start}{c}{{d}}{a/end} {b}\n{e_1/start}\n{e_1/end}\n", &error);
  g_assert_no_error (error);
  g_assert_nonnull (tags);
  g_assert_cmpuint (g_strv_length (tags), ==, 4);
  g_assert_cmpstr (tags[0], ==, "a");
  g_assert_cmpstr (tags[1], ==, "b");
  g_assert_cmpstr (tags[2], ==, "c");
  g_assert_cmpstr (tags[3], ==, "e_1");

  none = sk_prompt_template_get_tags ("plain {{text}}", &error);
  g_assert_no_error (error);
  g_assert_nonnull (none);
  g_assert_cmpuint (g_strv_length (none), ==, 0);
}

/* Prompts ---------------------------------------------------------------- */

typedef struct
{
  const char *name;
  const char *required[8];
  const char *optional[8];
  const char *flags[4];  /* Optional tags used only as sections. */
} PromptCase;

/* The tags that prompts/README.md documents for each prompt. */
static const PromptCase prompt_cases[] = {
  { "node-agent",
    { "process_name", "node_name", "node_key", "task", "context", "python", NULL },
    { "process_description", "node_description", "input_files", "max_steps", NULL },
    { "native_tools", "text_tools", NULL } },
  { "repair",
    { "node_name", "node_key", "python", "error_text", NULL },
    { "traceback", "stderr_tail", "script", "attempt", "max_attempts", NULL },
    { NULL } },
  { "command-reviewer",
    { "command", "node_folder", "workflow_folder", "network_allowed", NULL },
    { NULL },
    { NULL } },
  { "chat-agent",
    { "outline", NULL },
    { "selection", "max_steps", NULL },
    { "text_tools", NULL } },
};

static char *
value_of (const char *tag)
{
  return g_strdup_printf ("<%s value>", tag);
}

static void
add_values (GHashTable         *values,
            const char * const *tags)
{
  for (guint i = 0; tags[i] != NULL; i++)
    g_hash_table_insert (values, g_strdup (tags[i]), value_of (tags[i]));
}

static void
assert_no_tag_left (const char *text)
{
  g_autoptr(GRegex) regex = g_regex_new ("\\{[a-z0-9_]+(/start|/end)?\\}", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;

  if (g_regex_match (regex, text, 0, &match))
    {
      g_autofree char *tag = g_match_info_fetch (match, 0);

      g_error ("The rendered prompt still holds %s", tag);
    }
}

/* The example of the fenced tool format must be what the parser expects. */
static void
assert_tool_example (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  const char *start = strstr (text, "```tool\n");
  const char *end;
  JsonObject *object;

  g_assert_nonnull (start);
  start += strlen ("```tool\n");
  end = strstr (start, "\n```");
  g_assert_nonnull (end);
  json = g_strndup (start, end - start);

  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  object = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (g_strv_contains (tool_names, json_object_get_string_member (object, "tool")));
  g_assert_nonnull (json_object_get_object_member (object, "arguments"));
}

static void
test_prompt_default (gconstpointer data)
{
  const PromptCase *test_case = data;
  g_autoptr(GHashTable) all = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) required = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *template_text = NULL;
  g_autofree char *full = NULL;
  g_autofree char *minimal = NULL;
  g_auto(GStrv) tags = NULL;
  guint n_documented;

  g_assert_true (g_strv_contains (sk_prompts_list (), test_case->name));

  template_text = sk_prompts_load (test_case->name, &error);
  g_assert_no_error (error);
  g_assert_nonnull (template_text);
  g_assert_true (g_utf8_validate (template_text, -1, NULL));

  /* The prompt uses exactly the tags that its README documents. */
  tags = sk_prompt_template_get_tags (template_text, &error);
  g_assert_no_error (error);
  n_documented = g_strv_length ((char **) test_case->required) +
                 g_strv_length ((char **) test_case->optional) +
                 g_strv_length ((char **) test_case->flags);
  g_assert_cmpuint (g_strv_length (tags), ==, n_documented);
  for (guint i = 0; tags[i] != NULL; i++)
    {
      if (!g_strv_contains (test_case->required, tags[i]) &&
          !g_strv_contains (test_case->optional, tags[i]) &&
          !g_strv_contains (test_case->flags, tags[i]))
        g_error ("The prompt %s uses the undocumented tag %s", test_case->name, tags[i]);
    }

  add_values (all, test_case->required);
  add_values (all, test_case->optional);
  add_values (all, test_case->flags);
  add_values (required, test_case->required);

  full = sk_prompts_render (test_case->name, all, &error);
  g_assert_no_error (error);
  minimal = sk_prompts_render (test_case->name, required, &error);
  g_assert_no_error (error);

  assert_no_tag_left (full);
  assert_no_tag_left (minimal);

  for (guint i = 0; test_case->required[i] != NULL; i++)
    {
      g_autofree char *value = value_of (test_case->required[i]);

      sk_test_assert_contains (full, value);
      sk_test_assert_contains (minimal, value);
    }
  for (guint i = 0; test_case->optional[i] != NULL; i++)
    {
      g_autofree char *value = value_of (test_case->optional[i]);

      sk_test_assert_contains (full, value);
      g_assert_null (strstr (minimal, value));
    }

  /* Left-out sections leave no run of blank lines behind. */
  g_assert_null (strstr (full, "\n\n\n"));
  g_assert_null (strstr (minimal, "\n\n\n"));

  if (strcmp (test_case->name, "node-agent") == 0)
    {
      for (guint i = 0; tool_names[i] != NULL; i++)
        {
          sk_test_assert_contains (full, tool_names[i]);
          sk_test_assert_contains (minimal, tool_names[i]);
        }
      assert_tool_example (full);
      g_assert_null (strstr (minimal, "```tool"));
      sk_test_assert_contains (full, "state = {}");
      sk_test_assert_contains (full, "test/test_<node_key value>.py");
    }
  else if (strcmp (test_case->name, "repair") == 0)
    {
      sk_test_assert_contains (full, "run_command");
      sk_test_assert_contains (full, "task_complete");
    }
  else if (strcmp (test_case->name, "command-reviewer") == 0)
    {
      sk_test_assert_contains (full, "ALLOW");
      sk_test_assert_contains (full, "DENY");
    }
}

static void
test_prompt_unknown (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = sk_prompts_load ("no-such-prompt", &error);

  g_assert_null (text);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  sk_test_assert_contains (error->message, "no-such-prompt");
}

static void
remove_overrides (void)
{
  for (guint i = 0; sk_prompts_list ()[i] != NULL; i++)
    {
      g_autofree char *path = sk_prompts_get_override (sk_prompts_list ()[i]);

      g_remove (path);
    }
}

static void
test_prompt_override (void)
{
  g_autoptr(GHashTable) values = values_new ("node_key", "k", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = sk_prompts_get_override ("repair");
  g_autofree char *expected = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *text = NULL;
  g_autofree char *builtin = NULL;
  g_autofree char *rendered = NULL;

  /* meson runs the tests with XDG_CONFIG_HOME inside the build tree; run by
   * hand, the test must not touch the user's own prompts.
   */
  if (g_getenv ("XDG_CONFIG_HOME") == NULL)
    {
      g_test_skip ("XDG_CONFIG_HOME is not set");
      return;
    }

  expected = g_build_filename (g_get_user_config_dir (), "skele-code", "prompts", "repair.txt",
                               NULL);
  g_assert_cmpstr (path, ==, expected);
  folder = g_path_get_dirname (path);
  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);

  builtin = sk_prompts_load ("repair", &error);
  g_assert_no_error (error);

  g_assert_true (g_file_set_contents (path, "Our own words for {node_key}.\n", -1, &error));
  g_assert_no_error (error);
  text = sk_prompts_load ("repair", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "Our own words for {node_key}.\n");
  rendered = sk_prompts_render ("repair", values, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (rendered, ==, "Our own words for k.\n");
  g_clear_pointer (&text, g_free);
  g_clear_pointer (&rendered, g_free);

  /* Other prompts keep their defaults. */
  text = sk_prompts_load ("command-reviewer", &error);
  g_assert_no_error (error);
  sk_test_assert_contains (text, "{command}");
  g_clear_pointer (&text, g_free);

  /* A broken override is reported, naming the prompt and the tag. */
  g_assert_true (g_file_set_contents (path, "{oops/start}\n", -1, &error));
  g_assert_no_error (error);
  rendered = sk_prompts_render ("repair", values, &error);
  g_assert_null (rendered);
  g_assert_error (error, SK_PROMPT_TEMPLATE_ERROR, SK_PROMPT_TEMPLATE_ERROR_UNBALANCED);
  sk_test_assert_contains (error->message, "repair");
  sk_test_assert_contains (error->message, "oops");
  g_clear_error (&error);

  /* So is an override that is not text. */
  g_assert_true (g_file_set_contents (path, "\xff\xfe", 2, &error));
  g_assert_no_error (error);
  text = sk_prompts_load ("repair", &error);
  g_assert_null (text);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  /* Without the file, the built-in prompt is back. */
  g_assert_cmpint (g_remove (path), ==, 0);
  text = sk_prompts_load ("repair", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, builtin);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  /* An override left behind by an interrupted run would hide the defaults. */
  if (g_getenv ("XDG_CONFIG_HOME") != NULL)
    remove_overrides ();

  g_test_add_func ("/template/placeholders", test_placeholders);
  g_test_add_func ("/template/sections/inline", test_sections_inline);
  g_test_add_func ("/template/sections/own-lines", test_sections_own_lines);
  g_test_add_func ("/template/sections/nested", test_sections_nested);
  g_test_add_func ("/template/braces", test_braces);
  g_test_add_func ("/template/python-snippet", test_python_snippet);
  for (guint i = 0; i < G_N_ELEMENTS (error_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/template/errors/%u", i);

      g_test_add_data_func (path, &error_cases[i], test_errors);
    }
  g_test_add_func ("/template/tags", test_tags);

  for (guint i = 0; i < G_N_ELEMENTS (prompt_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/prompts/default/%s", prompt_cases[i].name);

      g_test_add_data_func (path, &prompt_cases[i], test_prompt_default);
    }
  g_test_add_func ("/prompts/unknown", test_prompt_unknown);
  g_test_add_func ("/prompts/override", test_prompt_override);

  return g_test_run ();
}
