/* test-agent-tools.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The coding agent's tools on real folders, and its commands in the real
 * sandbox. Tests that need a sandbox are skipped, with the reason, where
 * bubblewrap cannot work.
 */

#define G_LOG_DOMAIN "test-agent-tools"

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sk-agent-tools.h"
#include "sk-test-util.h"

/* Not `python3` from PATH: on machines where that is a pyenv shim, every
 * start costs most of a second, and the shim's folder is not inside the
 * sandbox anyway.
 */
#define PYTHON "/usr/bin/python3"

/* A workflow in a temporary folder:
 *
 *   ROOT/outside/secret.txt     a file that the agent must never reach
 *   ROOT/wf/process.json
 *   ROOT/wf/other/data.txt      a neighbouring step's file
 *   ROOT/wf/step/               the step the agent works on
 */
typedef struct
{
  char         *root;
  char         *workflow;
  char         *node;
  char         *other;
  char         *outside;
  SkAgentTools *tools;
} Fixture;

static void
fixture_set_up (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = sk_test_make_tmp_dir ("agent-tools");

  /* The temporary folder may itself be reached through a link. */
  f->root = realpath (tmp, NULL);
  g_assert_nonnull (f->root);

  sk_test_write_text (f->root, "outside/secret.txt", "secret\n");
  sk_test_write_text (f->root, "wf/process.json", "{\"process_name\": \"test\", \"nodes\": {}}\n");
  sk_test_write_text (f->root, "wf/other/data.txt", "neighbour data\n");

  f->workflow = g_build_filename (f->root, "wf", NULL);
  f->node = g_build_filename (f->workflow, "step", NULL);
  f->other = g_build_filename (f->workflow, "other", NULL);
  f->outside = g_build_filename (f->root, "outside", NULL);

  f->tools = sk_agent_tools_new (f->workflow, "step", &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->tools);
  g_assert_true (g_file_test (f->node, G_FILE_TEST_IS_DIR));
}

static void
fixture_tear_down (Fixture *f)
{
  g_clear_object (&f->tools);
  sk_test_remove_tree (f->root);
  g_free (f->root);
  g_free (f->workflow);
  g_free (f->node);
  g_free (f->other);
  g_free (f->outside);
}

/* Builds a JSON object of string members from name, value pairs. */
static char *
args_json (const char *first_name,
           ...)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  const char *name;
  va_list ap;

  json_builder_begin_object (builder);
  va_start (ap, first_name);
  for (name = first_name; name != NULL; name = va_arg (ap, const char *))
    {
      json_builder_set_member_name (builder, name);
      json_builder_add_string_value (builder, va_arg (ap, const char *));
    }
  va_end (ap);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

typedef struct
{
  gboolean  done;
  char     *text;
  gboolean  is_error;
  GError   *error;
} CallResult;

static void
call_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  CallResult *call_result = user_data;

  call_result->text = sk_agent_tools_call_finish (SK_AGENT_TOOLS (source), result,
                                                  &call_result->is_error, &call_result->error);
  call_result->done = TRUE;
}

static char *
call_tool_full (SkAgentTools  *tools,
                const char    *name,
                const char    *arguments,
                GCancellable  *cancellable,
                gboolean      *is_error,
                GError       **error)
{
  g_autoptr(SkLlmToolCall) call = sk_llm_tool_call_new ("call-1", name, arguments);
  CallResult result = { 0 };

  sk_agent_tools_call_async (tools, call, cancellable, call_done_cb, &result);
  while (!result.done)
    g_main_context_iteration (NULL, TRUE);

  if (result.error != NULL)
    g_assert_null (result.text);
  else
    g_assert_nonnull (result.text);

  *is_error = result.is_error;
  if (result.error != NULL)
    g_propagate_error (error, result.error);

  return result.text;
}

/* Calls a tool and checks whether the model is told of a problem. */
static char *
call_expect (SkAgentTools *tools,
             const char   *name,
             const char   *arguments,
             gboolean      expect_error)
{
  g_autoptr(GError) error = NULL;
  gboolean is_error = !expect_error;
  char *text = call_tool_full (tools, name, arguments, NULL, &is_error, &error);

  g_assert_no_error (error);
  if (is_error != expect_error)
    g_error ("%s %s: expected %s, got: %s", name, arguments,
             expect_error ? "a refusal" : "success", text);
  g_assert_true (g_utf8_validate (text, -1, NULL));

  return text;
}

static char *
call_ok (SkAgentTools *tools,
         const char   *name,
         const char   *arguments)
{
  return call_expect (tools, name, arguments, FALSE);
}

static char *
call_refused (SkAgentTools *tools,
              const char   *name,
              const char   *arguments)
{
  return call_expect (tools, name, arguments, TRUE);
}

static char *
read_path (SkAgentTools *tools,
           const char   *path,
           gboolean      expect_error)
{
  g_autofree char *args = args_json ("path", path, NULL);

  return call_expect (tools, "read_file", args, expect_error);
}

static char *
write_path (SkAgentTools *tools,
            const char   *path,
            const char   *content,
            gboolean      expect_error)
{
  g_autofree char *args = args_json ("path", path, "content", content, NULL);

  return call_expect (tools, "write_file", args, expect_error);
}

static char *
delete_path (SkAgentTools *tools,
             const char   *path,
             gboolean      expect_error)
{
  g_autofree char *args = args_json ("path", path, NULL);

  return call_expect (tools, "delete_file", args, expect_error);
}

static char *
list_path (SkAgentTools *tools,
           const char   *path,
           gboolean      expect_error)
{
  g_autofree char *args = args_json ("path", path, NULL);

  return call_expect (tools, "list_dir", args, expect_error);
}

static char *
run (SkAgentTools *tools,
     const char   *command,
     gboolean      expect_error)
{
  g_autofree char *args = args_json ("command", command, NULL);

  return call_expect (tools, "run_command", args, expect_error);
}

/* Returns whether commands can run in a sandbox here; otherwise marks the
 * test skipped, with the probe's reason.
 */
static gboolean
sandbox_available (void)
{
  g_autofree char *reason = NULL;
  SkSandboxKind kind;

  if (sk_sandbox_probe (&kind, &reason))
    return TRUE;

  g_test_skip (reason);
  return FALSE;
}

static void
make_link (const char *target,
           const char *folder,
           const char *name)
{
  g_autofree char *path = g_build_filename (folder, name, NULL);

  g_assert_cmpint (symlink (target, path), ==, 0);
}

/* Construction ----------------------------------------------------------- */

static void
test_new (void)
{
  Fixture f;
  g_autoptr(GError) error = NULL;
  g_autoptr(SkAgentTools) tools = NULL;
  g_autofree char *link = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *missing = NULL;

  fixture_set_up (&f);

  g_assert_cmpstr (sk_agent_tools_get_workflow_dir (f.tools), ==, f.workflow);
  g_assert_cmpstr (sk_agent_tools_get_node_dir (f.tools), ==, f.node);

  /* A workflow reached through a link is kept by its real path, and a new
   * step's folder is made.
   */
  make_link ("wf", f.root, "wf-link");
  link = g_build_filename (f.root, "wf-link", NULL);
  expected = g_build_filename (f.workflow, "fresh", NULL);
  tools = sk_agent_tools_new (link, "fresh", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sk_agent_tools_get_workflow_dir (tools), ==, f.workflow);
  g_assert_cmpstr (sk_agent_tools_get_node_dir (tools), ==, expected);
  g_assert_true (g_file_test (expected, G_FILE_TEST_IS_DIR));
  g_clear_object (&tools);

  tools = sk_agent_tools_new (f.workflow, f.outside, &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE);
  g_assert_null (tools);
  g_clear_error (&error);

  tools = sk_agent_tools_new (f.workflow, "../outside", &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE);
  g_clear_error (&error);

  tools = sk_agent_tools_new (f.workflow, ".", &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE);
  g_clear_error (&error);

  /* A step's folder that is a link leading out of the workflow. */
  make_link (f.outside, f.workflow, "escape");
  tools = sk_agent_tools_new (f.workflow, "escape", &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE);
  g_clear_error (&error);

  missing = g_build_filename (f.root, "missing", NULL);
  tools = sk_agent_tools_new (missing, "step", &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));

  fixture_tear_down (&f);
}

static void
test_resolve_path (void)
{
  Fixture f;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *expected = NULL;

  fixture_set_up (&f);

  path = sk_agent_tools_resolve_path (f.tools, "sub/../x.py", TRUE, &error);
  g_assert_no_error (error);
  expected = g_build_filename (f.node, "x.py", NULL);
  g_assert_cmpstr (path, ==, expected);
  g_clear_pointer (&path, g_free);

  path = sk_agent_tools_resolve_path (f.tools, "../other", FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (path, ==, f.other);
  g_clear_pointer (&path, g_free);

  path = sk_agent_tools_resolve_path (f.tools, f.node, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (path, ==, f.node);
  g_clear_pointer (&path, g_free);

  path = sk_agent_tools_resolve_path (f.tools, ".", TRUE, &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE);
  g_assert_null (path);
  g_clear_error (&error);

  path = sk_agent_tools_resolve_path (f.tools, "../other/x", TRUE, &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE);
  g_clear_error (&error);

  path = sk_agent_tools_resolve_path (f.tools, "../../outside", FALSE, &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE);
  g_clear_error (&error);

  path = sk_agent_tools_resolve_path (f.tools, "", FALSE, &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS);
  g_clear_error (&error);

  /* A loop of links is refused rather than followed for ever. */
  make_link ("loop-b", f.node, "loop-a");
  make_link ("loop-a", f.node, "loop-b");
  path = sk_agent_tools_resolve_path (f.tools, "loop-a", FALSE, &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_FAILED);
  g_clear_error (&error);

  fixture_tear_down (&f);
}

/* Confinement ------------------------------------------------------------ */

static void
test_confinement_paths (void)
{
  Fixture f;
  g_autofree char *secret = NULL;
  g_autofree char *absolute_inside = NULL;
  char *text;

  fixture_set_up (&f);
  secret = g_build_filename (f.outside, "secret.txt", NULL);

  text = read_path (f.tools, "../../outside/secret.txt", TRUE);
  sk_test_assert_contains (text, "outside the workflow folder");
  g_assert_null (strstr (text, "secret\n"));
  g_free (text);

  g_free (read_path (f.tools, secret, TRUE));
  g_free (read_path (f.tools, "/etc/passwd", TRUE));
  g_free (read_path (f.tools, "../../../../../../../../etc/passwd", TRUE));
  g_free (list_path (f.tools, "../..", TRUE));
  g_free (list_path (f.tools, "/", TRUE));

  /* Reading a neighbour's files is what the agent must do. */
  text = read_path (f.tools, "../other/data.txt", FALSE);
  sk_test_assert_contains (text, "neighbour data\n");
  g_free (text);

  absolute_inside = g_build_filename (f.other, "data.txt", NULL);
  text = read_path (f.tools, absolute_inside, FALSE);
  sk_test_assert_contains (text, "neighbour data\n");
  g_free (text);

  text = read_path (f.tools, "../process.json", FALSE);
  sk_test_assert_contains (text, "process_name");
  g_free (text);

  /* Writing is confined to the step's folder. */
  text = write_path (f.tools, "../other/new.txt", "x", TRUE);
  sk_test_assert_contains (text, "outside your step's folder");
  g_free (text);
  g_assert_false (sk_test_exists (f.other, "new.txt"));

  g_free (write_path (f.tools, "../other/data.txt", "overwritten", TRUE));
  g_free (write_path (f.tools, "../new.txt", "x", TRUE));
  g_free (write_path (f.tools, "../../outside/new.txt", "x", TRUE));
  g_free (write_path (f.tools, "sub/../../other/new.txt", "x", TRUE));
  g_free (write_path (f.tools, "/tmp/skele-agent-tools-escape.txt", "x", TRUE));
  g_assert_false (sk_test_exists (f.workflow, "new.txt"));
  g_assert_false (sk_test_exists (f.outside, "new.txt"));
  g_assert_false (g_file_test ("/tmp/skele-agent-tools-escape.txt", G_FILE_TEST_EXISTS));
  g_free (delete_path (f.tools, "../other/data.txt", TRUE));
  g_free (delete_path (f.tools, "../process.json", TRUE));

  text = sk_test_read_text (f.other, "data.txt");
  g_assert_cmpstr (text, ==, "neighbour data\n");
  g_free (text);
  g_assert_true (sk_test_exists (f.workflow, "process.json"));

  /* Going up and back down into the step's own folder is fine. */
  g_free (write_path (f.tools, "../step/ok.txt", "ok", FALSE));
  g_assert_true (sk_test_exists (f.node, "ok.txt"));

  fixture_tear_down (&f);
}

static void
test_confinement_links (void)
{
  Fixture f;
  g_autofree char *secret_path = NULL;
  g_autofree char *text = NULL;
  char *result;

  fixture_set_up (&f);
  secret_path = g_build_filename (f.outside, "secret.txt", NULL);

  /* A link in the step's folder to a file outside. */
  make_link (secret_path, f.node, "evil");
  result = read_path (f.tools, "evil", TRUE);
  sk_test_assert_contains (result, "symbolic link");
  g_assert_null (strstr (result, "secret\n"));
  g_free (result);
  result = write_path (f.tools, "evil", "pwned", TRUE);
  sk_test_assert_contains (result, "symbolic link");
  g_free (result);

  /* A link to a folder outside, used as a parent. */
  make_link ("../../outside", f.node, "evildir");
  g_free (read_path (f.tools, "evildir/secret.txt", TRUE));
  g_free (list_path (f.tools, "evildir", TRUE));
  g_free (write_path (f.tools, "evildir/new.txt", "pwned", TRUE));
  g_free (write_path (f.tools, "evildir/secret.txt", "pwned", TRUE));
  g_free (write_path (f.tools, "evildir/deeper/new.txt", "pwned", TRUE));
  g_free (delete_path (f.tools, "evildir/secret.txt", TRUE));

  text = sk_test_read_text (f.outside, "secret.txt");
  g_assert_cmpstr (text, ==, "secret\n");
  g_assert_false (sk_test_exists (f.outside, "new.txt"));
  g_assert_false (sk_test_exists (f.outside, "deeper"));

  /* A link to a neighbour's file may be read, not written through. */
  make_link ("../other/data.txt", f.node, "neighbour");
  result = read_path (f.tools, "neighbour", FALSE);
  sk_test_assert_contains (result, "neighbour data");
  g_free (result);
  g_free (write_path (f.tools, "neighbour", "changed", TRUE));
  g_clear_pointer (&text, g_free);
  text = sk_test_read_text (f.other, "data.txt");
  g_assert_cmpstr (text, ==, "neighbour data\n");

  /* A link that stays in the step's folder is followed. */
  sk_test_write_text (f.node, "real.txt", "before\n");
  make_link ("real.txt", f.node, "alias");
  g_free (write_path (f.tools, "alias", "after\n", FALSE));
  g_clear_pointer (&text, g_free);
  text = sk_test_read_text (f.node, "real.txt");
  g_assert_cmpstr (text, ==, "after\n");

  /* Deleting a link removes the link, not what it points to. */
  g_free (delete_path (f.tools, "evil", FALSE));
  g_assert_false (sk_test_exists (f.node, "evil"));
  g_assert_true (g_file_test (secret_path, G_FILE_TEST_IS_REGULAR));

  fixture_tear_down (&f);
}

static void
test_confinement_skele (void)
{
  Fixture f;
  char *text;

  fixture_set_up (&f);
  sk_test_write_text (f.node, ".skele/result.json", "{}");

  text = write_path (f.tools, ".skele/x", "x", TRUE);
  sk_test_assert_contains (text, ".skele/");
  g_free (text);
  g_free (write_path (f.tools, "sub/../.skele/y", "y", TRUE));
  g_free (write_path (f.tools, ".skele/result.json", "{\"forged\": 1}", TRUE));
  g_free (delete_path (f.tools, ".skele/result.json", TRUE));
  g_free (delete_path (f.tools, ".skele", TRUE));

  make_link (".skele", f.node, "bookkeeping");
  g_free (write_path (f.tools, "bookkeeping/z", "z", TRUE));

  g_assert_false (sk_test_exists (f.node, ".skele/x"));
  g_assert_false (sk_test_exists (f.node, ".skele/y"));
  g_assert_false (sk_test_exists (f.node, ".skele/z"));
  text = sk_test_read_text (f.node, ".skele/result.json");
  g_assert_cmpstr (text, ==, "{}");
  g_free (text);

  fixture_tear_down (&f);
}

/* File tools ------------------------------------------------------------- */

static void
test_delete_file (void)
{
  Fixture f;
  char *text;

  fixture_set_up (&f);
  sk_test_write_text (f.node, "scratch.txt", "x");
  sk_test_write_text (f.node, "sub/kept.txt", "x");

  text = delete_path (f.tools, "scratch.txt", FALSE);
  g_assert_cmpstr (text, ==, "Deleted “scratch.txt”.");
  g_free (text);
  g_assert_false (sk_test_exists (f.node, "scratch.txt"));

  text = delete_path (f.tools, "scratch.txt", TRUE);
  sk_test_assert_contains (text, "There is no file");
  g_free (text);

  text = delete_path (f.tools, "sub", TRUE);
  sk_test_assert_contains (text, "deletes files only");
  g_free (text);
  g_assert_true (sk_test_exists (f.node, "sub/kept.txt"));

  g_free (delete_path (f.tools, ".", TRUE));
  g_free (delete_path (f.tools, "", TRUE));
  g_free (delete_path (f.tools, f.node, TRUE));
  g_free (delete_path (f.tools, "../step", TRUE));
  g_assert_true (g_file_test (f.node, G_FILE_TEST_IS_DIR));

  fixture_tear_down (&f);
}

static void
test_write_file (void)
{
  Fixture f;
  const char *content = "print(\"héllo\")\n# a \\ backslash\n";
  char *text;

  fixture_set_up (&f);

  text = write_path (f.tools, "sub/deeper/x.py", content, FALSE);
  g_assert_cmpstr (text, ==, "Created “sub/deeper/x.py”: 2 lines, 32 bytes.");
  g_free (text);
  text = sk_test_read_text (f.node, "sub/deeper/x.py");
  g_assert_cmpstr (text, ==, content);
  g_free (text);

  text = write_path (f.tools, "sub/deeper/x.py", "", FALSE);
  g_assert_cmpstr (text, ==, "Replaced “sub/deeper/x.py”: 0 lines, 0 bytes.");
  g_free (text);
  text = sk_test_read_text (f.node, "sub/deeper/x.py");
  g_assert_cmpstr (text, ==, "");
  g_free (text);

  text = write_path (f.tools, "sub", "x", TRUE);
  sk_test_assert_contains (text, "is a folder");
  g_free (text);
  g_assert_true (g_file_test (f.node, G_FILE_TEST_IS_DIR));

  g_free (write_path (f.tools, ".", "x", TRUE));

  text = call_refused (f.tools, "write_file", "{\"path\": \"y.txt\"}");
  sk_test_assert_contains (text, "needs the argument “content”");
  g_free (text);
  text = call_refused (f.tools, "write_file", "{\"path\": \"y.txt\", \"content\": 5}");
  sk_test_assert_contains (text, "must be a string");
  g_free (text);
  g_assert_false (sk_test_exists (f.node, "y.txt"));

  fixture_tear_down (&f);
}

static void
write_lines (const char *folder,
             const char *name,
             guint       count)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 1; i <= count; i++)
    g_string_append_printf (text, "line %02u\n", i);
  sk_test_write_text (folder, name, text->str);
}

static char *
read_range (SkAgentTools *tools,
            const char   *path,
            const char   *range_json,
            gboolean      expect_error)
{
  g_autofree char *args = g_strdup_printf ("{\"path\": \"%s\"%s}", path, range_json);

  return call_expect (tools, "read_file", args, expect_error);
}

static void
test_read_file (void)
{
  Fixture f;
  g_autofree char *path = NULL;
  char *text;

  fixture_set_up (&f);
  write_lines (f.node, "ten.txt", 10);
  sk_test_write_text (f.node, "no-newline.txt", "a\nb");
  sk_test_write_text (f.node, "empty.txt", "");

  text = read_path (f.tools, "ten.txt", FALSE);
  g_assert_cmpstr (text, ==,
                   "[ten.txt: lines 1-10 of 10]\n"
                   "line 01\nline 02\nline 03\nline 04\nline 05\n"
                   "line 06\nline 07\nline 08\nline 09\nline 10\n");
  g_free (text);

  text = read_range (f.tools, "ten.txt", ", \"start_line\": 3, \"end_line\": 5", FALSE);
  g_assert_cmpstr (text, ==, "[ten.txt: lines 3-5 of 10]\nline 03\nline 04\nline 05\n");
  g_free (text);

  text = read_range (f.tools, "ten.txt", ", \"start_line\": 9, \"end_line\": 100", FALSE);
  g_assert_cmpstr (text, ==, "[ten.txt: lines 9-10 of 10]\nline 09\nline 10\n");
  g_free (text);

  /* A whole number written as a float is still a line number. */
  text = read_range (f.tools, "ten.txt", ", \"start_line\": 10.0", FALSE);
  g_assert_cmpstr (text, ==, "[ten.txt: lines 10-10 of 10]\nline 10\n");
  g_free (text);

  text = read_range (f.tools, "ten.txt", ", \"start_line\": 11", TRUE);
  sk_test_assert_contains (text, "has only 10 lines");
  g_free (text);
  text = read_range (f.tools, "ten.txt", ", \"start_line\": 5, \"end_line\": 2", TRUE);
  sk_test_assert_contains (text, "before");
  g_free (text);
  text = read_range (f.tools, "ten.txt", ", \"start_line\": 0", TRUE);
  sk_test_assert_contains (text, "counted from 1");
  g_free (text);
  text = read_range (f.tools, "ten.txt", ", \"start_line\": \"three\"", TRUE);
  sk_test_assert_contains (text, "whole number");
  g_free (text);
  text = read_range (f.tools, "ten.txt", ", \"start_line\": 1.5", TRUE);
  sk_test_assert_contains (text, "whole number");
  g_free (text);

  text = read_path (f.tools, "no-newline.txt", FALSE);
  g_assert_cmpstr (text, ==, "[no-newline.txt: lines 1-2 of 2]\na\nb");
  g_free (text);

  text = read_path (f.tools, "empty.txt", FALSE);
  g_assert_cmpstr (text, ==, "[empty.txt: empty file]\n");
  g_free (text);

  text = read_path (f.tools, "missing.txt", TRUE);
  sk_test_assert_contains (text, "There is no file “missing.txt”");
  g_free (text);
  text = read_path (f.tools, "..", TRUE);
  sk_test_assert_contains (text, "is a folder");
  g_free (text);
  text = call_refused (f.tools, "read_file", "{}");
  sk_test_assert_contains (text, "needs the argument “path”");
  g_free (text);
  text = call_refused (f.tools, "read_file", "{\"path\": 42}");
  sk_test_assert_contains (text, "must be a string");
  g_free (text);

  /* Binary files and text in another encoding are refused, with a hint. */
  path = g_build_filename (f.node, "data.pkl", NULL);
  g_assert_true (g_file_set_contents (path, "\x80\x04\x95\x00\x00\x00}q\x00.", 11, NULL));
  text = read_path (f.tools, "data.pkl", TRUE);
  sk_test_assert_contains (text, "binary");
  sk_test_assert_contains (text, "Python");
  g_free (text);

  sk_test_write_text (f.node, "latin1.csv", "name\ncaf\xe9\n");
  text = read_path (f.tools, "latin1.csv", TRUE);
  sk_test_assert_contains (text, "not UTF-8");
  sk_test_assert_contains (text, "latin-1");
  g_free (text);

  fixture_tear_down (&f);
}

static void
test_read_file_truncation (void)
{
  Fixture f;
  g_autofree char *long_line = NULL;
  char *text;

  fixture_set_up (&f);

  /* At most 2000 lines at a time, whatever their size. */
  sk_agent_tools_set_output_limit (f.tools, 1024 * 1024);
  write_lines (f.node, "long.txt", 2500);
  text = read_path (f.tools, "long.txt", FALSE);
  g_assert_true (g_str_has_prefix (text, "[long.txt: lines 1-2000 of 2500]\nline 01\n"));
  sk_test_assert_contains (text, "line 2000\n[Stopped after line 2000");
  sk_test_assert_contains (text, "start_line=2001");
  g_assert_null (strstr (text, "line 2001"));
  g_free (text);

  text = read_range (f.tools, "long.txt", ", \"start_line\": 2001", FALSE);
  g_assert_true (g_str_has_prefix (text, "[long.txt: lines 2001-2500 of 2500]\nline 2001\n"));
  g_assert_true (g_str_has_suffix (text, "line 2500\n"));
  g_free (text);

  /* Exactly 2000 lines is not cut. */
  write_lines (f.node, "exact.txt", 2000);
  text = read_path (f.tools, "exact.txt", FALSE);
  g_assert_true (g_str_has_prefix (text, "[exact.txt: lines 1-2000 of 2000]\n"));
  g_assert_null (strstr (text, "Stopped"));
  g_free (text);

  /* The output limit cuts at a line's end: 12 lines of 8 bytes fit in 100. */
  sk_agent_tools_set_output_limit (f.tools, 100);
  write_lines (f.node, "fifty.txt", 50);
  text = read_path (f.tools, "fifty.txt", FALSE);
  g_assert_cmpstr (text, ==,
                   "[fifty.txt: lines 1-12 of 50]\n"
                   "line 01\nline 02\nline 03\nline 04\nline 05\nline 06\n"
                   "line 07\nline 08\nline 09\nline 10\nline 11\nline 12\n"
                   "[Stopped after line 12 to keep the output short. Read on with start_line=13.]\n");
  g_free (text);

  text = read_range (f.tools, "fifty.txt", ", \"start_line\": 13, \"end_line\": 14", FALSE);
  g_assert_cmpstr (text, ==, "[fifty.txt: lines 13-14 of 50]\nline 13\nline 14\n");
  g_free (text);

  /* A single line longer than the limit is shown in part. */
  long_line = g_strnfill (500, 'x');
  sk_test_write_text (f.node, "minified.json", long_line);
  text = read_path (f.tools, "minified.json", FALSE);
  sk_test_assert_contains (text, "is longer than 100 bytes");
  g_assert_cmpuint (strlen (text), <, 300);
  g_free (text);

  fixture_tear_down (&f);
}

static void
test_list_dir (void)
{
  Fixture f;
  g_autofree char *void_path = NULL;
  g_autofree char *expected = NULL;
  char *text;

  fixture_set_up (&f);
  sk_test_write_text (f.node, "b.txt", "abc");
  sk_test_write_text (f.node, "a.py", "print");
  sk_test_write_text (f.node, "sub/inner.txt", "x");
  sk_test_write_text (f.node, ".skele/log.txt", "bookkeeping");
  sk_test_write_text (f.node, ".hidden", "");
  make_link ("../other", f.node, "link");
  make_link (f.outside, f.node, "away");

  /* Folders end with a slash, files have their size, and a link leading
   * out of the workflow says nothing of what is there.
   */
  expected = g_strdup_printf ("[Folder ./: 6 entries]\n"
                              ".hidden  (0 bytes)\n"
                              "a.py  (5 bytes)\n"
                              "away  -> %s (outside the workflow)\n"
                              "b.txt  (3 bytes)\n"
                              "link/  -> ../other\n"
                              "sub/\n",
                              f.outside);
  text = list_path (f.tools, ".", FALSE);
  g_assert_cmpstr (text, ==, expected);
  g_free (text);

  /* Without a path, the step's folder. */
  text = call_ok (f.tools, "list_dir", "{}");
  g_assert_true (g_str_has_prefix (text, "[Folder ./: 6 entries]\n"));
  g_free (text);

  text = list_path (f.tools, "..", FALSE);
  g_assert_cmpstr (text, ==,
                   "[Folder ../: 3 entries]\n"
                   "other/\n"
                   "process.json  (38 bytes)\n"
                   "step/\n");
  g_free (text);

  text = list_path (f.tools, "../other", FALSE);
  g_assert_cmpstr (text, ==, "[Folder ../other/: 1 entry]\ndata.txt  (15 bytes)\n");
  g_free (text);

  text = list_path (f.tools, "sub/", FALSE);
  g_assert_cmpstr (text, ==, "[Folder sub/: 1 entry]\ninner.txt  (1 bytes)\n");
  g_free (text);

  void_path = g_build_filename (f.node, "void", NULL);
  g_assert_cmpint (g_mkdir (void_path, 0755), ==, 0);
  text = list_path (f.tools, "void", FALSE);
  g_assert_cmpstr (text, ==, "[Folder void/: 0 entries]\n(empty)\n");
  g_free (text);

  text = list_path (f.tools, "a.py", TRUE);
  sk_test_assert_contains (text, "is a file");
  g_free (text);
  text = list_path (f.tools, "missing", TRUE);
  sk_test_assert_contains (text, "There is no folder");
  g_free (text);

  fixture_tear_down (&f);
}

static void
test_arguments (void)
{
  Fixture f;
  g_autoptr(GError) error = NULL;
  gboolean is_error = FALSE;
  char *text;

  fixture_set_up (&f);

  text = call_refused (f.tools, "frobnicate", "{}");
  sk_test_assert_contains (text, "There is no tool named “frobnicate”");
  g_free (text);

  text = call_refused (f.tools, "read_file", "{\"path\": ");
  sk_test_assert_contains (text, "not a valid JSON object");
  g_free (text);

  text = call_refused (f.tools, "read_file", "[\"x.py\"]");
  sk_test_assert_contains (text, "not a valid JSON object");
  g_free (text);

  text = call_refused (f.tools, "run_command", "{\"cmd\": \"ls\"}");
  sk_test_assert_contains (text, "needs the argument “command”");
  g_free (text);

  /* task_complete is the agent's business: calling it here is a mistake of
   * the caller, not of the model.
   */
  text = call_tool_full (f.tools, "task_complete", "{\"summary\": \"done\"}", NULL, &is_error, &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_UNKNOWN_TOOL);
  g_assert_null (text);
  g_assert_true (is_error);

  fixture_tear_down (&f);
}

static void
test_definitions (void)
{
  const char *names[] = { "list_dir", "read_file", "write_file", "delete_file",
                          "run_command", "task_complete" };
  const char *required[] = { "path", "path", "path,content", "path", "command", "summary" };
  g_autoptr(GPtrArray) tools = sk_agent_tools_get_definitions ();

  g_assert_cmpuint (tools->len, ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < tools->len; i++)
    {
      SkLlmTool *tool = g_ptr_array_index (tools, i);
      JsonObject *schema;
      JsonArray *required_array;
      g_autoptr(GPtrArray) found = g_ptr_array_new ();
      g_autofree char *joined = NULL;

      g_assert_cmpstr (tool->name, ==, names[i]);
      g_assert_cmpuint (strlen (tool->description), >, 10);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (tool->parameters));
      schema = json_node_get_object (tool->parameters);
      g_assert_cmpstr (json_object_get_string_member (schema, "type"), ==, "object");
      g_assert_true (json_object_has_member (schema, "properties"));

      required_array = json_object_get_array_member (schema, "required");
      for (guint j = 0; j < json_array_get_length (required_array); j++)
        {
          const char *name = json_array_get_string_element (required_array, j);

          g_assert_true (json_object_has_member (json_object_get_object_member (schema, "properties"),
                                                 name));
          g_ptr_array_add (found, (gpointer) name);
        }
      g_ptr_array_add (found, NULL);
      joined = g_strjoinv (",", (char **) found->pdata);
      g_assert_cmpstr (joined, ==, required[i]);
    }
}

static char *
describe (const char *name,
          const char *arguments)
{
  g_autoptr(SkLlmToolCall) call = sk_llm_tool_call_new ("id", name, arguments);

  return sk_agent_tools_describe_call (call);
}

static void
test_describe (void)
{
  struct {
    const char *name;
    const char *arguments;
    const char *expected;
  } cases[] = {
    { "read_file", "{\"path\": \"load_sales.py\"}", "Reading load_sales.py" },
    { "read_file", "{\"path\": \"./load_sales.py\", \"start_line\": 3}", "Reading load_sales.py" },
    { "read_file", "{\"path\": \"../load_data/load_data.py\"}", "Reading load_data/load_data.py" },
    { "read_file", "{\"path\": \"/somewhere/deep/notes.txt\"}", "Reading notes.txt" },
    { "read_file", "{\"path\": ", "Reading a file" },
    { "write_file", "{\"path\": \"chart.py\", \"content\": \"\"}", "Writing chart.py" },
    { "delete_file", "{\"path\": \"scratch.txt\"}", "Deleting scratch.txt" },
    { "list_dir", "{\"path\": \".\"}", "Looking at the step's files" },
    { "list_dir", "{\"path\": \"../load_data\"}", "Looking at the files in load_data" },
    { "list_dir", "{\"path\": \"..\"}", "Looking at the workflow's files" },
    { "run_command", "{\"command\": \"/usr/bin/python3 test/test_chart.py\"}", "Running the tests" },
    { "run_command", "{\"command\": \"python3 -m unittest discover test\"}", "Running the tests" },
    { "run_command", "{\"command\": \"/usr/bin/python3 x.py\"}", "Running: python3 x.py" },
    { "run_command", "{\"command\": \"ls -la\"}", "Running: ls -la" },
    { "task_complete", "{\"summary\": \"done\"}", "Finishing" },
    { "frobnicate", "{}", "Using the tool “frobnicate”" },
  };
  g_autofree char *long_command = NULL;
  g_autofree char *line = NULL;
  g_autofree char *many = g_strnfill (200, 'a');

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = describe (cases[i].name, cases[i].arguments);

      g_assert_cmpstr (text, ==, cases[i].expected);
    }

  long_command = g_strdup_printf ("{\"command\": \"echo %s\"}", many);
  line = describe ("run_command", long_command);
  g_assert_true (g_str_has_prefix (line, "Running: echo aaa"));
  g_assert_true (g_str_has_suffix (line, "…"));
  g_assert_cmpint (g_utf8_strlen (line, -1), <, 80);
}

/* Commands --------------------------------------------------------------- */

/* The ways commands run in these tests: without a sandbox (allowed), and in
 * the sandbox when there is one.
 */
static guint
command_modes (Fixture        *f,
               SkSandboxKind  *kinds)
{
  SkSandboxKind kind;
  guint n = 0;

  kinds[n++] = SK_SANDBOX_NONE;
  if (sk_sandbox_probe (&kind, NULL))
    kinds[n++] = kind;

  return n;
}

static void
set_mode (Fixture       *f,
          SkSandboxKind  kind)
{
  sk_agent_tools_set_sandbox (f->tools, kind);
  sk_agent_tools_set_allow_unsandboxed (f->tools, kind == SK_SANDBOX_NONE);
}

static void
test_command_basic (void)
{
  Fixture f;
  SkSandboxKind kinds[2];
  guint n;

  fixture_set_up (&f);
  n = command_modes (&f, kinds);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *expected_pwd = g_strdup_printf ("%s\n[Exit status: 0]\n", f.node);
      gint64 start;
      char *text;

      g_test_message ("sandbox kind %d", kinds[i]);
      set_mode (&f, kinds[i]);

      text = run (f.tools, "echo out; echo err >&2; exit 3", TRUE);
      g_assert_cmpstr (text, ==, "out\nerr\n[Exit status: 3]\n");
      g_free (text);

      text = run (f.tools, PYTHON " -c \"print(6 * 7)\"", FALSE);
      g_assert_cmpstr (text, ==, "42\n[Exit status: 0]\n");
      g_free (text);

      text = run (f.tools, "true", FALSE);
      g_assert_cmpstr (text, ==, "(no output)\n[Exit status: 0]\n");
      g_free (text);

      /* In the step's folder, at its real path. */
      text = run (f.tools, "pwd", FALSE);
      g_assert_cmpstr (text, ==, expected_pwd);
      g_free (text);

      /* Nothing of the program's environment but the basics. */
      text = run (f.tools, "echo \"[$SKELE_TEST_SECRET]\"", FALSE);
      g_assert_cmpstr (text, ==, "[]\n[Exit status: 0]\n");
      g_free (text);

      /* Input is empty, so nothing waits for it. */
      text = run (f.tools, "cat", FALSE);
      g_assert_cmpstr (text, ==, "(no output)\n[Exit status: 0]\n");
      g_free (text);

      /* The step's folder is writable, and a file written there is seen
       * by the tools.
       */
      g_free (run (f.tools, "mkdir -p out && echo made > out/made.txt", FALSE));
      text = sk_test_read_text (f.node, "out/made.txt");
      g_assert_cmpstr (text, ==, "made\n");
      g_free (text);
      g_free (run (f.tools, "rm out/made.txt", FALSE));
      g_assert_false (sk_test_exists (f.node, "out/made.txt"));

      /* Something left running in the background that holds the output
       * open does not keep the call waiting.
       */
      start = g_get_monotonic_time ();
      text = run (f.tools, "sleep 10 & echo hi", FALSE);
      g_assert_cmpstr (text, ==, "hi\n[Exit status: 0]\n");
      g_free (text);
      g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);

      text = run (f.tools, "echo one\necho two", TRUE);
      sk_test_assert_contains (text, "ONE line");
      g_free (text);
      text = run (f.tools, "   ", TRUE);
      sk_test_assert_contains (text, "empty");
      g_free (text);
    }

  fixture_tear_down (&f);
}

static void
test_command_timeout (void)
{
  Fixture f;
  SkSandboxKind kinds[2];
  guint n;

  fixture_set_up (&f);
  n = command_modes (&f, kinds);

  for (guint i = 0; i < n; i++)
    {
      gint64 start;
      double elapsed;
      char *text;

      g_test_message ("sandbox kind %d", kinds[i]);
      set_mode (&f, kinds[i]);
      sk_agent_tools_set_command_timeout (f.tools, 0.5);

      start = g_get_monotonic_time ();
      text = run (f.tools, "echo started; sleep 1.5; touch late", TRUE);
      elapsed = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
      sk_test_assert_contains (text, "started\n");
      sk_test_assert_contains (text, "[Stopped after 0.5 seconds");
      g_free (text);
      g_assert_cmpfloat (elapsed, >=, 0.4);
      g_assert_cmpfloat (elapsed, <, 1.4);

      /* Killed, not left running: it never gets to write. */
      g_usleep (1500 * 1000);
      g_assert_false (sk_test_exists (f.node, "late"));
    }

  fixture_tear_down (&f);
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_command_cancel (void)
{
  Fixture f;
  SkSandboxKind kinds[2];
  guint n;

  fixture_set_up (&f);
  n = command_modes (&f, kinds);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      g_autoptr(GError) error = NULL;
      g_autofree char *args = args_json ("command", "sleep 1.5; touch late", NULL);
      gboolean is_error = FALSE;
      gint64 start;
      double elapsed;
      char *text;

      g_test_message ("sandbox kind %d", kinds[i]);
      set_mode (&f, kinds[i]);

      start = g_get_monotonic_time ();
      g_timeout_add (300, cancel_cb, cancellable);
      text = call_tool_full (f.tools, "run_command", args, cancellable, &is_error, &error);
      elapsed = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_assert_null (text);
      g_assert_cmpfloat (elapsed, <, 1.2);

      g_usleep (1500 * 1000);
      g_assert_false (sk_test_exists (f.node, "late"));

      /* Already cancelled: nothing runs. */
      g_clear_error (&error);
      g_clear_pointer (&args, g_free);
      args = args_json ("command", "touch early", NULL);
      text = call_tool_full (f.tools, "run_command", args, cancellable, &is_error, &error);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_assert_false (sk_test_exists (f.node, "early"));
    }

  fixture_tear_down (&f);
}

static void
test_command_truncation (void)
{
  Fixture f;
  SkSandboxKind kinds[2];
  guint64 total = strlen ("FIRST\n") + strlen ("LAST\n");
  guint n;

  fixture_set_up (&f);
  n = command_modes (&f, kinds);
  for (guint i = 0; i < 20000; i++)
    total += g_snprintf (NULL, 0, "line %u\n", i);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = NULL;
      const char *note;
      const char *note_end;
      const char *status;
      guint64 cut;

      g_test_message ("sandbox kind %d", kinds[i]);
      set_mode (&f, kinds[i]);
      sk_agent_tools_set_output_limit (f.tools, 1000);

      text = run (f.tools,
                  PYTHON " -c \"print('FIRST'); [print('line %d' % i) for i in range(20000)]; print('LAST')\"",
                  FALSE);
      g_assert_true (g_str_has_prefix (text, "FIRST\nline 0\n"));
      g_assert_true (g_str_has_suffix (text, "line 19999\nLAST\n[Exit status: 0]\n"));
      g_assert_cmpuint (strlen (text), <, 1000 + 300);

      /* What is shown and what was cut add up to the whole output. */
      note = strstr (text, "[… ");
      g_assert_nonnull (note);
      cut = g_ascii_strtoull (note + strlen ("[… "), NULL, 10);
      sk_test_assert_contains (note, "bytes of output cut here");
      note_end = strchr (note, '\n') + 1;
      status = strstr (text, "[Exit status:");
      g_assert_cmpuint ((note - text) + (status - note_end) + cut, ==, total);
    }

  fixture_tear_down (&f);
}

static void
test_command_no_sandbox (void)
{
  Fixture f;
  g_autoptr(GError) error = NULL;
  g_autofree char *args = args_json ("command", "touch ran", NULL);
  gboolean is_error = FALSE;
  char *text;

  fixture_set_up (&f);

  /* The default: no running without a sandbox. */
  sk_agent_tools_set_sandbox (f.tools, SK_SANDBOX_NONE);
  text = call_tool_full (f.tools, "run_command", args, NULL, &is_error, &error);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_NO_SANDBOX);
  g_assert_null (text);
  sk_test_assert_contains (error->message, "bubblewrap");
  sk_test_assert_contains (error->message, "Preferences");
  g_assert_false (sk_test_exists (f.node, "ran"));

  /* Once the user allows it, the command runs. */
  g_clear_error (&error);
  sk_agent_tools_set_allow_unsandboxed (f.tools, TRUE);
  text = call_tool_full (f.tools, "run_command", args, NULL, &is_error, &error);
  g_assert_no_error (error);
  g_assert_false (is_error);
  g_free (text);
  g_assert_true (sk_test_exists (f.node, "ran"));

  fixture_tear_down (&f);
}

/* Sandbox ---------------------------------------------------------------- */

static void
test_sandbox_probe (void)
{
  g_autofree char *reason = NULL;
  g_autofree char *again = NULL;
  g_autofree char *bwrap = NULL;
  SkSandboxKind kind;
  SkSandboxKind kind_again;
  gboolean available = sk_sandbox_probe (&kind, &reason);

  g_assert_cmpint (available, ==, kind != SK_SANDBOX_NONE);
  if (available)
    g_assert_null (reason);
  else
    g_assert_cmpuint (strlen (reason), >, 10);

  /* Where bubblewrap is installed and nothing else is there, it is used or
   * the reason says why not.
   */
  bwrap = g_find_program_in_path ("bwrap");
  if (!g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS) && bwrap != NULL)
    {
      if (kind == SK_SANDBOX_NONE)
        sk_test_assert_contains (reason, "ubblewrap");
      else
        g_assert_cmpint (kind, ==, SK_SANDBOX_BWRAP);
    }

  g_assert_cmpint (sk_sandbox_probe (&kind_again, &again), ==, available);
  g_assert_cmpint (kind_again, ==, kind);
  g_assert_cmpstr (again, ==, reason);
}

static void
test_sandbox_visibility (void)
{
  Fixture f;
  g_autofree char *cat_secret = NULL;
  g_autofree char *listing = NULL;
  char *text;

  if (!sandbox_available ())
    return;

  fixture_set_up (&f);
  cat_secret = g_strdup_printf ("cat %s/secret.txt", f.outside);

  /* Without the sandbox the same commands do see these files, so the
   * refusals below come from the sandbox.
   */
  set_mode (&f, SK_SANDBOX_NONE);
  text = run (f.tools, cat_secret, FALSE);
  g_assert_cmpstr (text, ==, "secret\n[Exit status: 0]\n");
  g_free (text);
  if (g_file_test ("/etc/hostname", G_FILE_TEST_EXISTS))
    g_free (run (f.tools, "cat /etc/hostname", FALSE));

  set_mode (&f, SK_SANDBOX_AUTO);
  text = run (f.tools, cat_secret, TRUE);
  g_assert_null (strstr (text, "secret\n"));
  g_free (text);
  g_free (run (f.tools, "cat /etc/hostname", TRUE));
  g_free (run (f.tools, "ls /root /home/* /var /run /srv 2>&1 | grep -v 'No such' | grep .", TRUE));

  /* The workflow and the system's programs are there. */
  text = run (f.tools, "cat ../other/data.txt && cat ../process.json > /dev/null", FALSE);
  g_assert_cmpstr (text, ==, "neighbour data\n[Exit status: 0]\n");
  g_free (text);
  g_free (run (f.tools, PYTHON " -c \"import json, csv, sqlite3, ssl\"", FALSE));

  /* A private, writable home and /tmp. */
  g_free (run (f.tools, "touch \"$HOME/x\" /tmp/y", FALSE));

  /* A path added for commands becomes readable, not writable. */
  sk_agent_tools_add_read_only_path (f.tools, f.outside);
  text = run (f.tools, cat_secret, FALSE);
  g_assert_cmpstr (text, ==, "secret\n[Exit status: 0]\n");
  g_free (text);
  listing = g_strdup_printf ("touch %s/new.txt", f.outside);
  g_free (run (f.tools, listing, TRUE));
  g_assert_false (sk_test_exists (f.outside, "new.txt"));

  fixture_tear_down (&f);
}

static void
test_sandbox_write_outside (void)
{
  Fixture f;
  g_autofree char *touch_outside = NULL;

  if (!sandbox_available ())
    return;

  fixture_set_up (&f);
  touch_outside = g_strdup_printf ("touch %s/x", f.outside);
  set_mode (&f, SK_SANDBOX_AUTO);

  g_free (run (f.tools, "touch ../other/x", TRUE));
  g_free (run (f.tools, "echo changed > ../other/data.txt", TRUE));
  g_free (run (f.tools, "touch ../x", TRUE));
  g_free (run (f.tools, "rm ../process.json", TRUE));
  g_free (run (f.tools, touch_outside, TRUE));
  g_free (run (f.tools, "touch /usr/x", TRUE));

  g_assert_false (sk_test_exists (f.other, "x"));
  g_assert_false (sk_test_exists (f.workflow, "x"));
  g_assert_false (sk_test_exists (f.outside, "x"));
  g_assert_true (sk_test_exists (f.workflow, "process.json"));
  g_assert_false (g_file_test ("/usr/x", G_FILE_TEST_EXISTS));
  {
    g_autofree char *data = sk_test_read_text (f.other, "data.txt");

    g_assert_cmpstr (data, ==, "neighbour data\n");
  }

  /* The step's own folder is writable. */
  g_free (run (f.tools, "touch inside.txt", FALSE));
  g_assert_true (sk_test_exists (f.node, "inside.txt"));

  /* Without the sandbox the same command would have written. */
  set_mode (&f, SK_SANDBOX_NONE);
  g_free (run (f.tools, "touch ../other/x", FALSE));
  g_assert_true (sk_test_exists (f.other, "x"));

  fixture_tear_down (&f);
}

static gboolean
incoming_cb (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source_object,
             gpointer           user_data)
{
  guint *count = user_data;

  (*count)++;
  return FALSE;
}

static void
test_sandbox_network (void)
{
  Fixture f;
  g_autoptr(GSocketService) service = g_socket_service_new ();
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *command = NULL;
  guint connections = 0;
  char *text;

  if (!sandbox_available ())
    return;

  fixture_set_up (&f);

  g_socket_listener_add_address (G_SOCKET_LISTENER (service), address, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error);
  g_assert_no_error (error);
  g_signal_connect (service, "incoming", G_CALLBACK (incoming_cb), &connections);
  g_socket_service_start (service);

  command = g_strdup_printf (PYTHON " -c \"import socket; "
                             "socket.create_connection(('127.0.0.1', %u), timeout=5); "
                             "print('connected')\"",
                             g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective)));

  set_mode (&f, SK_SANDBOX_AUTO);
  text = run (f.tools, command, TRUE);
  g_assert_null (strstr (text, "connected\n"));
  g_free (text);

  /* Allowed, the same command reaches the test's server. */
  sk_agent_tools_set_allow_network (f.tools, TRUE);
  text = run (f.tools, command, FALSE);
  sk_test_assert_contains (text, "connected\n");
  g_free (text);
  SK_TEST_WAIT_UNTIL (connections == 1, 5000);

  g_socket_service_stop (service);
  g_socket_listener_close (G_SOCKET_LISTENER (service));
  fixture_tear_down (&f);
}

/* Text tool calls -------------------------------------------------------- */

static GPtrArray *
parse_ok (const char *reply)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *calls = sk_agent_text_calls_parse (reply, &error);

  g_assert_no_error (error);
  g_assert_nonnull (calls);
  return calls;
}

static void
assert_call (GPtrArray  *calls,
             guint       index,
             const char *name,
             const char *arguments)
{
  SkLlmToolCall *call = g_ptr_array_index (calls, index);
  g_autofree char *id = g_strdup_printf ("text-call-%u", index + 1);

  g_assert_cmpstr (call->id, ==, id);
  g_assert_cmpstr (call->name, ==, name);
  g_assert_cmpstr (call->arguments, ==, arguments);
}

static void
test_parse_valid (void)
{
  g_autoptr(GPtrArray) calls = NULL;

  calls = parse_ok ("I will read the prior's script first.\n\n"
                    "```tool\n"
                    "{\"tool\": \"read_file\", \"arguments\": {\"path\": \"../a/a.py\", \"start_line\": 1}}\n"
                    "```\n");
  g_assert_cmpuint (calls->len, ==, 1);
  assert_call (calls, 0, "read_file", "{\"path\":\"../a/a.py\",\"start_line\":1}");
  g_clear_pointer (&calls, g_ptr_array_unref);

  /* Pretty-printed JSON over several lines. */
  calls = parse_ok ("```tool\n{\n  \"tool\": \"list_dir\",\n  \"arguments\": {\n    \"path\": \".\"\n  }\n}\n```");
  g_assert_cmpuint (calls->len, ==, 1);
  assert_call (calls, 0, "list_dir", "{\"path\":\".\"}");
  g_clear_pointer (&calls, g_ptr_array_unref);

  /* No block at all. */
  calls = parse_ok ("I think the step is done, but I forgot to call a tool.");
  g_assert_cmpuint (calls->len, ==, 0);
  g_clear_pointer (&calls, g_ptr_array_unref);

  calls = parse_ok ("");
  g_assert_cmpuint (calls->len, ==, 0);
}

static void
test_parse_several (void)
{
  g_autoptr(GPtrArray) calls = NULL;

  calls = parse_ok ("First this:\n```tool\n{\"tool\": \"list_dir\", \"arguments\": {\"path\": \".\"}}\n```\n"
                    "then that:\n```tool\n{\"tool\": \"run_command\", \"arguments\": {\"command\": \"ls\"}}\n```\n");
  g_assert_cmpuint (calls->len, ==, 2);
  assert_call (calls, 0, "list_dir", "{\"path\":\".\"}");
  assert_call (calls, 1, "run_command", "{\"command\":\"ls\"}");
}

static void
test_parse_other_blocks (void)
{
  g_autoptr(GPtrArray) calls = NULL;

  /* Code and JSON in other blocks are not calls, even when they look like
   * one, and a fence line inside them does not open a tool block.
   */
  calls = parse_ok ("Here is the plan:\n"
                    "```python\n"
                    "print('{\"tool\": \"delete_file\"}')\n"
                    "```tool\n"
                    "```\n"
                    "```json\n"
                    "{\"tool\": \"delete_file\", \"arguments\": {\"path\": \"x\"}}\n"
                    "```\n"
                    "```\n"
                    "{\"tool\": \"delete_file\", \"arguments\": {\"path\": \"y\"}}\n"
                    "```\n");
  g_assert_cmpuint (calls->len, ==, 0);
  g_clear_pointer (&calls, g_ptr_array_unref);

  calls = parse_ok ("```python\nprint(1)\n```\n\n```tool\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"x.py\"}}\n```\n");
  g_assert_cmpuint (calls->len, ==, 1);
  assert_call (calls, 0, "read_file", "{\"path\":\"x.py\"}");
}

static void
test_parse_lenient (void)
{
  const char *replies[] = {
    /* The reply ends before the closing fence. */
    "Reading it.\n```tool\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"x.py\"}}\n",
    "```tool\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"x.py\"}}",
    /* CRLF line ends. */
    "Reading it.\r\n```tool\r\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"x.py\"}}\r\n```\r\n",
    /* Tildes, indentation, spaces after the info string, a longer fence. */
    "~~~tool\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"x.py\"}}\n~~~\n",
    "   ```tool   \n   {\"tool\": \"read_file\", \"arguments\": {\"path\": \"x.py\"}}\n   ```\n",
    "````tool\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"x.py\"}}\n````\n",
    "```TOOL\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"x.py\"}}\n```\n",
    /* Arguments beside the name, or as JSON text. */
    "```tool\n{\"tool\": \"read_file\", \"path\": \"x.py\"}\n```\n",
    "```tool\n{\"tool\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"x.py\\\"}\"}\n```\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (replies); i++)
    {
      g_autoptr(GPtrArray) calls = parse_ok (replies[i]);

      g_assert_cmpuint (calls->len, ==, 1);
      assert_call (calls, 0, "read_file", "{\"path\":\"x.py\"}");
    }
}

static void
test_parse_content (void)
{
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(JsonObject) args = NULL;
  SkLlmToolCall *call;

  /* A file's content with escaped newlines, quotes, backslashes and a
   * fence of its own.
   */
  calls = parse_ok ("Writing the script.\n"
                    "```tool\n"
                    "{\"tool\": \"write_file\", \"arguments\": {\"path\": \"a.py\", "
                    "\"content\": \"import os\\n\\nprint(\\\"hi\\\\n\\\")\\n# ```\\n\"}}\n"
                    "```\n");
  g_assert_cmpuint (calls->len, ==, 1);
  call = g_ptr_array_index (calls, 0);
  g_assert_cmpstr (call->name, ==, "write_file");
  args = sk_llm_tool_call_parse_arguments (call, NULL);
  g_assert_nonnull (args);
  g_assert_cmpstr (json_object_get_string_member (args, "path"), ==, "a.py");
  g_assert_cmpstr (json_object_get_string_member (args, "content"), ==,
                   "import os\n\nprint(\"hi\\n\")\n# ```\n");
  g_clear_pointer (&calls, g_ptr_array_unref);
  g_clear_pointer (&args, json_object_unref);

  /* Raw line breaks inside a string are not JSON, but their meaning is
   * plain, and the JSON reader takes them.
   */
  calls = parse_ok ("```tool\n{\"tool\": \"write_file\", \"arguments\": "
                    "{\"path\": \"a.txt\", \"content\": \"x\ny\"}}\n```\n");
  g_assert_cmpuint (calls->len, ==, 1);
  args = sk_llm_tool_call_parse_arguments (g_ptr_array_index (calls, 0), NULL);
  g_assert_cmpstr (json_object_get_string_member (args, "content"), ==, "x\ny");
}

static void
test_parse_malformed (void)
{
  struct {
    const char *reply;
    const char *message;
  } cases[] = {
    { "```tool\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}\n```\n",
      "not valid JSON" },
    { "```tool\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}\n```\n",
      "\"tool\"" },
    { "```tool\n{\"tool\": 3}\n```\n",
      "\"tool\"" },
    { "```tool\n[\"read_file\"]\n```\n",
      "one JSON object" },
    { "```tool\n```\n",
      "one JSON object" },
    { "```tool\n{\"tool\": \"read_file\", \"arguments\": 5}\n```\n",
      "\"arguments\"" },
    /* One bad block spoils the reply, even after a good one. */
    { "```tool\n{\"tool\": \"list_dir\", \"arguments\": {}}\n```\n```tool\n{oops}\n```\n",
      "not valid JSON" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) calls = sk_agent_text_calls_parse (cases[i].reply, &error);

      g_assert_null (calls);
      g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS);
      sk_test_assert_contains (error->message, cases[i].message);
      /* The message shows the model what a good block looks like. */
      sk_test_assert_contains (error->message, "{\"tool\": \"read_file\"");
    }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) calls = sk_agent_text_calls_parse (cases[0].reply, &error);

    /* And how to write newlines in strings. */
    g_assert_null (calls);
    sk_test_assert_contains (error->message, "\\n");
  }
}

static void
test_text_calls_too_deep (void)
{
  g_autoptr(GString) reply = g_string_new ("```tool\n{\"tool\": \"read_file\", \"arguments\": ");
  g_autoptr(GString) as_text = g_string_new ("```tool\n{\"tool\": \"read_file\", \"arguments\": \"");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) calls = NULL;

  for (guint i = 0; i < 100000; i++)
    {
      g_string_append_c (reply, '[');
      g_string_append_c (as_text, '[');
    }
  g_string_append (reply, "\n```\n");
  g_string_append (as_text, "\"}\n```\n");

  /* Refused with a message for the model, not a crash. */
  calls = sk_agent_text_calls_parse (reply->str, &error);
  g_assert_null (calls);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS);
  sk_test_assert_contains (error->message, "nested");
  sk_test_assert_contains (error->message, "{\"tool\": \"read_file\"");
  g_clear_error (&error);

  /* Arguments sent as JSON text are checked too. */
  calls = sk_agent_text_calls_parse (as_text->str, &error);
  g_assert_null (calls);
  g_assert_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS);
  sk_test_assert_contains (error->message, "\"arguments\"");
}

int
main (int   argc,
      char *argv[])
{
  /* Set before any thread starts; commands must not see it. */
  g_setenv ("SKELE_TEST_SECRET", "hunter2", TRUE);

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/agent-tools/new", test_new);
  g_test_add_func ("/agent-tools/resolve-path", test_resolve_path);
  g_test_add_func ("/agent-tools/confinement/paths", test_confinement_paths);
  g_test_add_func ("/agent-tools/confinement/links", test_confinement_links);
  g_test_add_func ("/agent-tools/confinement/skele", test_confinement_skele);
  g_test_add_func ("/agent-tools/delete-file", test_delete_file);
  g_test_add_func ("/agent-tools/write-file", test_write_file);
  g_test_add_func ("/agent-tools/read-file", test_read_file);
  g_test_add_func ("/agent-tools/read-file/truncation", test_read_file_truncation);
  g_test_add_func ("/agent-tools/list-dir", test_list_dir);
  g_test_add_func ("/agent-tools/arguments", test_arguments);
  g_test_add_func ("/agent-tools/definitions", test_definitions);
  g_test_add_func ("/agent-tools/describe", test_describe);
  g_test_add_func ("/agent-tools/command/basic", test_command_basic);
  g_test_add_func ("/agent-tools/command/timeout", test_command_timeout);
  g_test_add_func ("/agent-tools/command/cancel", test_command_cancel);
  g_test_add_func ("/agent-tools/command/truncation", test_command_truncation);
  g_test_add_func ("/agent-tools/command/no-sandbox", test_command_no_sandbox);
  g_test_add_func ("/agent-tools/sandbox/probe", test_sandbox_probe);
  g_test_add_func ("/agent-tools/sandbox/visibility", test_sandbox_visibility);
  g_test_add_func ("/agent-tools/sandbox/write-outside", test_sandbox_write_outside);
  g_test_add_func ("/agent-tools/sandbox/network", test_sandbox_network);
  g_test_add_func ("/agent-tools/parse/valid", test_parse_valid);
  g_test_add_func ("/agent-tools/parse/several", test_parse_several);
  g_test_add_func ("/agent-tools/parse/other-blocks", test_parse_other_blocks);
  g_test_add_func ("/agent-tools/parse/lenient", test_parse_lenient);
  g_test_add_func ("/agent-tools/parse/content", test_parse_content);
  g_test_add_func ("/agent-tools/parse/malformed", test_parse_malformed);
  g_test_add_func ("/agent-tools/parse/too-deep", test_text_calls_too_deep);

  return g_test_run ();
}
