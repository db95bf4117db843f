/* test-cli-chat.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs the real `skele chat` and `skele draft` on temporary workflows, with
 * the chat agent's model played by the fake LLM server.
 */

#define G_LOG_DOMAIN "test-cli-chat"

#include <signal.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sk-fake-llm.h"
#include "sk-test-util.h"

/* The workflow the chat tests talk about: load → clean → chart. */
#define WORKFLOW_JSON \
  "{\n" \
  "  \"process_name\": \"sales\",\n" \
  "  \"process_description\": \"Charts the month's sales.\",\n" \
  "  \"nodes\": {\n" \
  "    \"1\": {\"name\": \"load\", \"priors\": [], \"run\": true,\n" \
  "          \"input\": {\"text\": \"Read sales.csv\"}},\n" \
  "    \"2\": {\"name\": \"clean\", \"priors\": [\"1\"], \"run\": true,\n" \
  "          \"input\": {\"text\": \"Drop the empty rows\"}},\n" \
  "    \"3\": {\"name\": \"chart\", \"priors\": [\"2\"], \"run\": true,\n" \
  "          \"input\": {\"text\": \"Draw a bar chart\"}}\n" \
  "  }\n" \
  "}\n"

#define CYCLE_JSON \
  "{\"process_name\": \"loop\", \"nodes\": {" \
  "  \"1\": {\"name\": \"a\", \"priors\": [\"2\"], \"run\": true, \"input\": {\"text\": \"A\"}}," \
  "  \"2\": {\"name\": \"b\", \"priors\": [\"1\"], \"run\": true, \"input\": {\"text\": \"B\"}}}}"

#define REPLY "I propose a Summary step after clean, and an Export step after it."

static const char *skele_bin;

typedef struct
{
  SkFakeLlm *fake;
  char      *dir;
  char      *workflow;
  guint      calls;
} Fixture;

/* Helpers ----------------------------------------------------------------- */

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->fake = sk_fake_llm_new ();
  fixture->dir = sk_test_make_tmp_dir ("cli-chat");
  fixture->workflow = g_build_filename (fixture->dir, "sales", NULL);
  sk_test_write_text (fixture->workflow, "process.json", WORKFLOW_JSON);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  sk_fake_llm_free (fixture->fake);
  sk_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->workflow);
}

/* Queues one reply of the model that calls @tool with @arguments (JSON),
 * after @text when given, and reads 100 tokens and writes 10. */
static void
push_call (Fixture    *fixture,
           const char *text,
           const char *tool,
           const char *arguments)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = g_strdup_printf ("call_%u", ++fixture->calls);
  g_autofree char *json = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "parts");
  json_builder_begin_array (builder);
  if (text != NULL)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, text);
      json_builder_end_object (builder);
    }
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "tool_call");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, id);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, tool);
  json_builder_set_member_name (builder, "arguments");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, arguments);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "usage");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "prompt_tokens");
  json_builder_add_int_value (builder, 100);
  json_builder_set_member_name (builder, "completion_tokens");
  json_builder_add_int_value (builder, 10);
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json = json_to_string (root, FALSE);
  sk_fake_llm_push_json (fixture->fake, json, &error);
  g_assert_no_error (error);
}

/* The model proposes Summary after clean and Export after Summary, in three
 * replies (300 tokens read, 30 written). */
static void
push_proposal (Fixture *fixture)
{
  push_call (fixture, "I look at the steps.", "add_step",
             "{\"name\":\"Summary\",\"task\":\"Add up the cleaned rows\",\"priors\":[\"clean\"]}");
  push_call (fixture, NULL, "add_step",
             "{\"name\":\"Export\",\"task\":\"Write the sum to sum.csv\",\"priors\":[\"summary\"]}");
  push_call (fixture, NULL, "finish", "{\"summary\":\"" REPLY "\"}");
}

static void
push_text (Fixture    *fixture,
           const char *text)
{
  g_autofree char *json = g_strdup_printf ("{\"parts\":[{\"text\":\"%s\"}],"
                                           "\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":5}}",
                                           text);
  g_autoptr(GError) error = NULL;

  sk_fake_llm_push_json (fixture->fake, json, &error);
  g_assert_no_error (error);
}

/* Runs skele with @args. With @configured, the model is the fake server's;
 * without, nothing chooses one: no variable, and the settings in memory. */
static void
run_skele (Fixture            *fixture,
           SkTestResult       *result,
           gboolean            configured,
           const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (char *) skele_bin);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);

  /* skele's messages are checked in their untranslated UTF-8 form. */
  launcher = sk_test_new_launcher (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                   SK_TEST_RUN_DEFAULT);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "memory", TRUE);
  g_subprocess_launcher_setenv (launcher, "SKELE_LLM_API_KEY", "sk-test-key", TRUE);
  if (configured)
    {
      g_subprocess_launcher_setenv (launcher, "SKELE_LLM_PROVIDER", "openai", TRUE);
      g_subprocess_launcher_setenv (launcher, "SKELE_LLM_BASE_URL",
                                    sk_fake_llm_get_base_url (fixture->fake, SK_FAKE_LLM_DIALECT_OPENAI),
                                    TRUE);
      g_subprocess_launcher_setenv (launcher, "SKELE_LLM_MODEL", "fake-chat", TRUE);
    }
  else
    {
      g_subprocess_launcher_unsetenv (launcher, "SKELE_LLM_PROVIDER");
      g_subprocess_launcher_unsetenv (launcher, "SKELE_LLM_BASE_URL");
      g_subprocess_launcher_unsetenv (launcher, "SKELE_LLM_MODEL");
    }

  sk_test_run_launcher (result, launcher, SK_TEST_RUN_DEFAULT,
                        (const char * const *) argv->pdata);
  /* skele must exit, not be ended by a signal. */
  g_assert_cmpint (result->status, >=, 0);
}

/* The body of the request @index the fake server received. */
static char *
request_body (Fixture *fixture,
              guint    index)
{
  g_autoptr(GPtrArray) requests = sk_fake_llm_dup_requests (fixture->fake);
  SkFakeLlmRequest *request;

  g_assert_cmpuint (requests->len, >, index);
  request = g_ptr_array_index (requests, index);
  return g_strndup (g_bytes_get_data (request->body, NULL), g_bytes_get_size (request->body));
}

static void
assert_workflow_unchanged (Fixture *fixture)
{
  g_autofree char *saved = sk_test_read_text (fixture->workflow, "process.json");

  g_assert_cmpstr (saved, ==, WORKFLOW_JSON);
}

static JsonArray *
read_turns (const char *folder,
            JsonObject **log)
{
  g_autofree char *text = sk_test_read_text (folder, ".skele/chat.json");

  g_assert_nonnull (text);
  *log = sk_test_parse_object (text);
  return json_object_get_array_member (*log, "turns");
}

/* Checks the turn @index of the conversation kept in @folder. */
static void
assert_turn (const char *folder,
             guint       index,
             const char *role,
             const char *text)
{
  g_autoptr(JsonObject) log = NULL;
  JsonArray *turns = read_turns (folder, &log);
  JsonObject *turn;

  g_assert_cmpuint (json_array_get_length (turns), >, index);
  turn = json_array_get_object_element (turns, index);
  g_assert_cmpstr (json_object_get_string_member (turn, "role"), ==, role);
  sk_test_assert_contains (json_object_get_string_member (turn, "text"), text);
}

static guint
count_turns (const char *folder)
{
  g_autoptr(JsonObject) log = NULL;

  return json_array_get_length (read_turns (folder, &log));
}

/* The step named @name in @process, or %NULL; @id (optional) gets its
 * identifier. */
static JsonObject *
find_step (JsonObject *process,
           const char *name,
           const char **id)
{
  JsonObject *nodes = json_object_get_object_member (process, "nodes");
  g_autoptr(GList) members = json_object_get_members (nodes);

  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonObject *node = json_object_get_object_member (nodes, l->data);

      if (g_strcmp0 (json_object_get_string_member (node, "name"), name) == 0)
        {
          if (id != NULL)
            *id = l->data;
          return node;
        }
    }

  return NULL;
}

/* Where the layout put the step named @name, from the top. */
static double
step_y (JsonObject *process,
        const char *name)
{
  JsonObject *step = find_step (process, name, NULL);

  g_assert_nonnull (step);
  return json_object_get_double_member (json_object_get_object_member (step, "skele"), "y");
}

static void
assert_priors (JsonObject *step,
               const char *expected)
{
  JsonArray *priors = json_object_get_array_member (step, "priors");
  g_autoptr(GString) ids = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (priors); i++)
    g_string_append_printf (ids, "%s%s", i > 0 ? " " : "", json_array_get_string_element (priors, i));
  g_assert_cmpstr (ids->str, ==, expected);
}

/* Every line of @out must be one JSON object with an "event". */
static GPtrArray *
parse_events (const char *out)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  guint n = g_strv_length (lines);

  g_assert_cmpuint (n, >=, 2);
  g_assert_cmpstr (lines[n - 1], ==, "");

  for (guint i = 0; i + 1 < n; i++)
    {
      JsonObject *event = sk_test_parse_object (lines[i]);

      g_assert_nonnull (json_object_get_string_member (event, "event"));
      g_ptr_array_add (events, event);
    }

  return events;
}

static guint
count_events (GPtrArray  *events,
              const char *name)
{
  guint n = 0;

  for (guint i = 0; i < events->len; i++)
    if (g_str_equal (json_object_get_string_member (g_ptr_array_index (events, i), "event"), name))
      n++;

  return n;
}

static JsonObject *
nth_event (GPtrArray  *events,
           const char *name,
           guint       nth)
{
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);

      if (g_str_equal (json_object_get_string_member (event, "event"), name) && nth-- == 0)
        return event;
    }

  return NULL;
}

/* Tests: chat ------------------------------------------------------------- */

/* Without --apply, the proposal is printed and only the conversation is
 * written. */
static void
test_chat_proposes (Fixture       *fixture,
                    gconstpointer  data)
{
  g_auto(SkTestResult) result = { 0 };
  g_autoptr(GPtrArray) requests = NULL;
  g_autofree char *body = NULL;
  SkFakeLlmRequest *request;

  push_proposal (fixture);
  run_skele (fixture, &result, TRUE,
             SK_TEST_STRV ("chat", fixture->workflow, "Add a summary of the cleaned rows, and export it"));
  sk_test_assert_status (&result, 0);

  /* The reply and the real difference go to standard output. */
  g_assert_true (g_str_has_prefix (result.out, REPLY "\n"));
  sk_test_assert_contains (result.out, "Proposed changes, not applied:\n"
                                       "  Added the step “Summary”.\n"
                                       "  Added the step “Export”.\n"
                                       "  Connected “clean” to “Summary”.\n"
                                       "  Connected “Summary” to “Export”.\n");
  g_assert_null (strstr (result.out, "I look at the steps."));

  /* What the agent did, and the tokens, go to standard error. */
  sk_test_assert_contains (result.err, "Proposing the step “Summary”");
  sk_test_assert_contains (result.err, "--apply");
  sk_test_assert_contains (result.err, "300 tokens read and 30 written");

  /* The message and the outline went to the model, the key too. */
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 3);
  requests = sk_fake_llm_dup_requests (fixture->fake);
  request = g_ptr_array_index (requests, 0);
  g_assert_cmpstr (soup_message_headers_get_one (request->headers, "Authorization"), ==, "Bearer sk-test-key");
  body = request_body (fixture, 0);
  sk_test_assert_contains (body, "Add a summary of the cleaned rows");
  sk_test_assert_contains (body, "Drop the empty rows");

  assert_workflow_unchanged (fixture);
  g_assert_false (sk_test_exists (fixture->workflow, "summary"));
  assert_turn (fixture->workflow, 0, "user", "Add a summary of the cleaned rows, and export it");
  assert_turn (fixture->workflow, 1, "assistant", REPLY);
}

/* --apply applies the proposal as it was made, and saves the workflow. */
static void
test_chat_apply (Fixture       *fixture,
                 gconstpointer  data)
{
  g_auto(SkTestResult) result = { 0 };
  g_autofree char *saved = NULL;
  g_autoptr(JsonObject) process = NULL;
  JsonObject *summary;
  JsonObject *export;
  const char *summary_id = NULL;

  push_proposal (fixture);
  run_skele (fixture, &result, TRUE,
             SK_TEST_STRV ("chat", "--apply", fixture->workflow, "Add a summary and export it"));
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "Changes:\n  Added the step “Summary”.\n");
  sk_test_assert_contains (result.err, "applied and the workflow saved");

  saved = sk_test_read_text (fixture->workflow, "process.json");
  process = sk_test_parse_object (saved);
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (process, "nodes")), ==, 5);
  summary = find_step (process, "Summary", &summary_id);
  export = find_step (process, "Export", NULL);
  g_assert_nonnull (summary);
  g_assert_nonnull (export);
  assert_priors (summary, "2");
  assert_priors (export, summary_id);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (summary, "input"), "text"),
                   ==, "Add up the cleaned rows");
  /* The rest is as it was. */
  assert_priors (find_step (process, "chart", NULL), "2");
  g_assert_cmpstr (json_object_get_string_member (process, "process_name"), ==, "sales");

  /* The conversation says the proposal was accepted. */
  g_assert_cmpuint (count_turns (fixture->workflow), >=, 3);
  assert_turn (fixture->workflow, count_turns (fixture->workflow) - 1, "tool", "accepted");

  /* What was saved is a valid workflow. */
  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("validate", fixture->workflow));
  sk_test_assert_contains (result.err, "5 steps");
}

static void
test_chat_events (Fixture       *fixture,
                  gconstpointer  data)
{
  g_auto(SkTestResult) result = { 0 };
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *change;
  JsonObject *last;

  push_proposal (fixture);
  run_skele (fixture, &result, TRUE,
             SK_TEST_STRV ("chat", fixture->workflow, "Add a summary and export it", "--events", "json"));
  sk_test_assert_status (&result, 0);
  events = parse_events (result.out);

  /* The pieces of text as they came, what the agent did, each call's
   * tokens, then the changes. */
  change = nth_event (events, "text", 0);
  g_assert_nonnull (change);
  g_assert_cmpstr (json_object_get_string_member (change, "text"), ==, "I look at the steps.");
  g_assert_cmpuint (count_events (events, "progress"), >=, 2);
  sk_test_assert_contains (json_object_get_string_member (nth_event (events, "progress", 0), "message"),
                           "Summary");
  g_assert_cmpuint (count_events (events, "usage"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (nth_event (events, "usage", 0), "tokens_in"), ==, 100);

  g_assert_cmpuint (count_events (events, "change"), ==, 4);
  change = nth_event (events, "change", 0);
  g_assert_cmpstr (json_object_get_string_member (change, "kind"), ==, "added");
  g_assert_cmpstr (json_object_get_string_member (change, "name"), ==, "Summary");
  g_assert_cmpstr (json_object_get_string_member (change, "step_key"), ==, "summary");
  g_assert_nonnull (json_object_get_string_member (change, "step_id"));
  g_assert_cmpstr (json_object_get_string_member (change, "description"), ==, "Added the step “Summary”.");
  change = nth_event (events, "change", 2);
  g_assert_cmpstr (json_object_get_string_member (change, "kind"), ==, "connected");
  g_assert_cmpstr (json_object_get_string_member (change, "other_id"), ==, "2");
  g_assert_cmpstr (json_object_get_string_member (change, "other_name"), ==, "clean");
  g_assert_cmpstr (json_object_get_string_member (change, "name"), ==, "Summary");

  last = g_ptr_array_index (events, events->len - 1);
  g_assert_cmpstr (json_object_get_string_member (last, "event"), ==, "finished");
  g_assert_cmpstr (json_object_get_string_member (last, "reply"), ==, REPLY);
  g_assert_cmpint (json_object_get_int_member (last, "tokens_in"), ==, 300);
  g_assert_cmpint (json_object_get_int_member (last, "tokens_out"), ==, 30);
  g_assert_cmpint (json_object_get_int_member (last, "changes"), ==, 4);
  g_assert_false (json_object_get_boolean_member (last, "applied"));
  g_assert_cmpint (json_object_get_int_member (last, "exit_status"), ==, 0);
  g_assert_cmpuint (count_events (events, "finished"), ==, 1);

  /* People still read the progress on standard error. */
  sk_test_assert_contains (result.err, "Proposing the step “Export”");
  assert_workflow_unchanged (fixture);
}

/* A question is answered in plain text, with nothing to apply. */
static void
test_chat_question (Fixture       *fixture,
                    gconstpointer  data)
{
  g_auto(SkTestResult) result = { 0 };
  g_autofree char *body = NULL;

  /* A conversation that cannot be read is put aside, with a warning. */
  sk_test_write_text (fixture->workflow, ".skele/chat.json", "{\"turns\": ");

  push_text (fixture, "The chart step draws a bar chart of the cleaned rows.");
  run_skele (fixture, &result, TRUE,
             SK_TEST_STRV ("chat", "--apply", fixture->workflow, "What does chart do?"));
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.err, "warning: The conversation in");
  g_assert_cmpstr (result.out, ==,
                   "The chart step draws a bar chart of the cleaned rows.\n\n"
                   "The chat agent proposed no changes to the workflow.\n");
  sk_test_assert_contains (result.err, "50 tokens read and 5 written");
  assert_workflow_unchanged (fixture);
  g_assert_cmpuint (count_turns (fixture->workflow), ==, 2);
  assert_turn (fixture->workflow, 1, "assistant", "bar chart");

  /* The next message sees the conversation so far. */
  push_text (fixture, "It has no code yet.");
  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("chat", fixture->workflow, "Does it have code?"));
  sk_test_assert_status (&result, 0);
  g_assert_cmpuint (count_turns (fixture->workflow), ==, 4);
  body = request_body (fixture, 1);
  sk_test_assert_contains (body, "What does chart do?");
  sk_test_assert_contains (body, "The chart step draws a bar chart");
  sk_test_assert_contains (body, "Does it have code?");
}

/* Tests: draft ------------------------------------------------------------ */

static void
push_draft (Fixture *fixture)
{
  push_call (fixture, NULL, "set_process",
             "{\"name\":\"Monthly sales\",\"description\":\"Sums the month's sales.\"}");
  push_call (fixture, NULL, "add_step", "{\"name\":\"Load sales\",\"task\":\"Read sales.csv\"}");
  push_call (fixture, NULL, "add_step",
             "{\"name\":\"Sum\",\"task\":\"Add up the amounts\",\"priors\":[\"load_sales\"]}");
  push_call (fixture, NULL, "add_step", "{\"name\":\"Export\",\"task\":\"Write the sum to sum.csv\"}");
  push_call (fixture, NULL, "connect", "{\"from\":\"sum\",\"to\":\"export\"}");
  push_call (fixture, NULL, "finish", "{\"summary\":\"A draft of three steps.\"}");
}

/* A draft goes into a folder made for it, arranged and with its
 * conversation. */
static void
test_draft (Fixture       *fixture,
            gconstpointer  data)
{
  g_autofree char *folder = g_build_filename (fixture->dir, "new", "monthly", NULL);
  g_auto(SkTestResult) result = { 0 };
  g_autofree char *saved = NULL;
  g_autoptr(JsonObject) process = NULL;
  g_autoptr(GHashTable) places = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *body = NULL;
  const char *load_id = NULL;
  const char *sum_id = NULL;
  JsonObject *nodes;
  g_autoptr(GList) members = NULL;

  push_draft (fixture);
  run_skele (fixture, &result, TRUE,
             SK_TEST_STRV ("draft", folder, "Load the month's sales, add them up and export the sum"));
  sk_test_assert_status (&result, 0);
  g_assert_true (g_str_has_prefix (result.out, "A draft of three steps.\n"));
  sk_test_assert_contains (result.out, "  Added the step “Sum”.\n");
  sk_test_assert_contains (result.err, "Drafted “Monthly sales” with 3 steps");
  sk_test_assert_contains (result.err, "600 tokens read and 60 written");

  /* The description went to the model with a request for a draft. */
  body = request_body (fixture, 0);
  sk_test_assert_contains (body, "add them up and export the sum");
  sk_test_assert_contains (body, "add_step");

  saved = sk_test_read_text (folder, "process.json");
  g_assert_nonnull (saved);
  process = sk_test_parse_object (saved);
  g_assert_cmpstr (json_object_get_string_member (process, "process_name"), ==, "Monthly sales");
  nodes = json_object_get_object_member (process, "nodes");
  g_assert_cmpuint (json_object_get_size (nodes), ==, 3);
  g_assert_nonnull (find_step (process, "Load sales", &load_id));
  g_assert_nonnull (find_step (process, "Sum", &sum_id));
  assert_priors (find_step (process, "Load sales", NULL), "");
  assert_priors (find_step (process, "Sum", NULL), load_id);
  assert_priors (find_step (process, "Export", NULL), sum_id);

  /* Arranged: every step has a place of its own, each below its prior. */
  members = json_object_get_members (nodes);
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonObject *node = json_object_get_object_member (nodes, l->data);
      JsonObject *skele;
      char *place;

      g_assert_true (json_object_has_member (node, "skele"));
      skele = json_object_get_object_member (node, "skele");
      g_assert_true (json_object_has_member (skele, "x"));
      place = g_strdup_printf ("%g,%g", json_object_get_double_member (skele, "x"),
                               json_object_get_double_member (skele, "y"));
      g_assert_false (g_hash_table_contains (places, place));
      g_hash_table_add (places, place);
    }
  g_assert_cmpfloat (step_y (process, "Load sales"), <, step_y (process, "Sum"));
  g_assert_cmpfloat (step_y (process, "Sum"), <, step_y (process, "Export"));

  /* The conversation is kept with the workflow. */
  assert_turn (folder, 0, "user", "add them up and export the sum");
  assert_turn (folder, 1, "assistant", "A draft of three steps.");

  /* And the draft is a valid workflow. */
  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("validate", folder));
  sk_test_assert_contains (result.err, "3 steps");
}

/* A folder that exists already is fine, as long as it holds no workflow;
 * a reply without steps writes nothing into it. */
static void
test_draft_no_steps (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autofree char *folder = g_build_filename (fixture->dir, "notes", NULL);
  g_auto(SkTestResult) result = { 0 };
  g_autoptr(GDir) dir = NULL;
  guint n = 0;

  sk_test_write_text (folder, "notes.txt", "mine\n");
  push_text (fixture, "What should the workflow read?");
  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("draft", folder, "Something with data"));
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.out, "What should the workflow read?");
  sk_test_assert_contains (result.err, "proposed no steps, so nothing was written");

  dir = g_dir_open (folder, 0, NULL);
  while (g_dir_read_name (dir) != NULL)
    n++;
  g_assert_cmpuint (n, ==, 1);

  /* The same folder takes a draft. */
  push_draft (fixture);
  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("draft", folder, "Sum the sales", "--events", "json"));
  sk_test_assert_status (&result, 0);
  {
    g_autoptr(GPtrArray) events = parse_events (result.out);
    JsonObject *last = g_ptr_array_index (events, events->len - 1);

    g_assert_cmpuint (count_events (events, "change"), >=, 3);
    g_assert_cmpstr (json_object_get_string_member (last, "event"), ==, "finished");
    g_assert_true (json_object_get_boolean_member (last, "applied"));
    g_assert_cmpstr (json_object_get_string_member (last, "folder"), ==, folder);
  }
  g_assert_true (sk_test_exists (folder, "process.json"));
  g_assert_true (sk_test_exists (folder, "notes.txt"));
}

static void
test_draft_existing_workflow (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autofree char *below_file = g_build_filename (fixture->workflow, "process.json", "draft", NULL);
  g_auto(SkTestResult) result = { 0 };

  push_draft (fixture);
  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("draft", fixture->workflow, "Sum the sales"));
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "already holds a workflow");
  sk_test_assert_contains (result.err, "skele chat");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 0);
  assert_workflow_unchanged (fixture);
  g_assert_false (sk_test_exists (fixture->workflow, ".skele/chat.json"));

  /* Nor can a draft go where a file is. */
  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("draft", below_file, "Sum the sales"));
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "is not a folder");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 0);
}

/* Tests: failures --------------------------------------------------------- */

static void
test_not_configured (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autofree char *folder = g_build_filename (fixture->dir, "new", NULL);
  g_auto(SkTestResult) result = { 0 };

  run_skele (fixture, &result, FALSE, SK_TEST_STRV ("chat", fixture->workflow, "Hello"));
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "No language model is chosen");
  sk_test_assert_contains (result.err, "SKELE_LLM_MODEL");
  sk_test_assert_contains (result.err, "--model");
  assert_workflow_unchanged (fixture);

  run_skele (fixture, &result, FALSE,
             SK_TEST_STRV ("draft", folder, "Sum the sales", "--events", "json"));
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "SKELE_LLM_MODEL");
  sk_test_assert_contains (result.err, "Nothing was written");
  g_assert_false (g_file_test (folder, G_FILE_TEST_EXISTS));
  {
    g_autoptr(GPtrArray) events = parse_events (result.out);
    JsonObject *last = g_ptr_array_index (events, events->len - 1);

    g_assert_cmpint (json_object_get_int_member (last, "exit_status"), ==, 2);
    sk_test_assert_contains (json_object_get_string_member (last, "error"), "SKELE_LLM_MODEL");
  }

  /* An address that is not one is the person's to correct too. */
  run_skele (fixture, &result, TRUE,
             SK_TEST_STRV ("chat", fixture->workflow, "Hello", "--base-url", "ftp://example"));
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "--base-url");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 0);
}

static void
test_model_failure (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autofree char *folder = g_build_filename (fixture->dir, "new", NULL);
  g_auto(SkTestResult) result = { 0 };
  g_autoptr(GError) error = NULL;

  /* The server fails every time it is asked. */
  sk_fake_llm_push_json (fixture->fake,
                         "{\"status\":500,\"error\":{\"message\":\"The model crashed\"},\"repeat\":3}",
                         &error);
  g_assert_no_error (error);
  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("chat", "--apply", fixture->workflow, "Add a step"));
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.err, "The model crashed");
  sk_test_assert_contains (result.err, "The workflow was not changed");
  assert_workflow_unchanged (fixture);

  /* A server that is not there. */
  run_skele (fixture, &result, TRUE,
             SK_TEST_STRV ("draft", folder, "Sum the sales", "--base-url", "http://127.0.0.1:9/v1"));
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.err, "127.0.0.1:9");
  sk_test_assert_contains (result.err, "Nothing was written");
  g_assert_false (g_file_test (folder, G_FILE_TEST_EXISTS));

  /* A model that never finishes its turn. */
  sk_fake_llm_push (fixture->fake, "chat-never-finishes", &error);
  g_assert_no_error (error);
  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("draft", folder, "Sum the sales"));
  sk_test_assert_status (&result, 1);
  sk_test_assert_contains (result.err, "used all 20 of its replies");
  g_assert_false (g_file_test (folder, G_FILE_TEST_EXISTS));
}

static void
test_invalid_folder (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (fixture->dir, "missing", NULL);
  g_autofree char *broken = g_build_filename (fixture->dir, "broken", NULL);
  g_autofree char *cycle = g_build_filename (fixture->dir, "cycle", NULL);
  g_auto(SkTestResult) result = { 0 };

  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("chat", missing, "Hello"));
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "error: ");
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));

  sk_test_write_text (broken, "process.json", "{\"process_name\": ");
  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("chat", broken, "Hello"));
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "error: ");
  g_assert_false (sk_test_exists (broken, ".skele"));

  sk_test_write_text (cycle, "process.json", CYCLE_JSON);
  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("chat", cycle, "Hello"));
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "The chat agent was not asked");

  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 0);
}

static void
test_bad_arguments (Fixture       *fixture,
                    gconstpointer  data)
{
  g_auto(SkTestResult) result = { 0 };

  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("chat", fixture->workflow));
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "give a workflow folder and a message");

  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("chat", fixture->workflow, "  "));
  sk_test_assert_status (&result, 2);

  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("draft", fixture->dir));
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "skele draft --help");

  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("chat", fixture->workflow, "Hello", "--events", "xml"));
  sk_test_assert_status (&result, 2);
  sk_test_assert_contains (result.err, "--events only knows “json”");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 0);

  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("--help"));
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "chat FOLDER MESSAGE");
  sk_test_assert_contains (result.out, "draft FOLDER DESCRIPTION");

  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("chat", "--help"));
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "--apply");
  sk_test_assert_contains (result.out, "SKELE_LLM_MODEL");

  run_skele (fixture, &result, TRUE, SK_TEST_STRV ("draft", "--help"));
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "must not hold a workflow");
}

/* Ctrl+C stops the agent while it waits for the model. */
static void
test_interrupt (Fixture       *fixture,
                gconstpointer  data)
{
  g_autofree char *folder = g_build_filename (fixture->dir, "new", NULL);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  const char *commands[] = { "chat", "draft" };

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      guint requests = sk_fake_llm_get_n_requests (fixture->fake);
      const char *target = i == 0 ? fixture->workflow : folder;

      sk_fake_llm_push (fixture->fake, "silent-stream", &error);
      g_assert_no_error (error);

      launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
      g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
      g_subprocess_launcher_setenv (launcher, "SKELE_LLM_API_KEY", "sk-test-key", TRUE);
      g_subprocess_launcher_setenv (launcher, "SKELE_LLM_PROVIDER", "openai", TRUE);
      g_subprocess_launcher_setenv (launcher, "SKELE_LLM_BASE_URL",
                                    sk_fake_llm_get_base_url (fixture->fake, SK_FAKE_LLM_DIALECT_OPENAI), TRUE);
      g_subprocess_launcher_setenv (launcher, "SKELE_LLM_MODEL", "fake-chat", TRUE);
      process = g_subprocess_launcher_spawn (launcher, &error, skele_bin, commands[i],
                                             target, "Sum the sales", NULL);
      g_assert_no_error (error);

      for (guint n = 0; n < 500 && sk_fake_llm_get_n_requests (fixture->fake) == requests; n++)
        g_usleep (10 * G_TIME_SPAN_MILLISECOND);
      g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, requests + 1);

      g_subprocess_send_signal (process, i == 0 ? SIGINT : SIGTERM);
      g_subprocess_communicate_utf8 (process, NULL, NULL, NULL, &err, &error);
      g_assert_no_error (error);
      g_assert_true (g_subprocess_get_if_exited (process));
      if (g_subprocess_get_exit_status (process) != 130)
        g_error ("skele %s exited with %d instead of 130:\n%s", commands[i],
                 g_subprocess_get_exit_status (process), err);
      sk_test_assert_contains (err, "Stopping the chat agent");
      g_clear_pointer (&err, g_free);
      g_clear_object (&process);
      g_clear_object (&launcher);
    }

  assert_workflow_unchanged (fixture);
  g_assert_false (g_file_test (folder, G_FILE_TEST_EXISTS));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  skele_bin = g_getenv ("SKELE_BIN");
  if (skele_bin == NULL)
    {
      g_test_skip ("SKELE_BIN is not set");
      return g_test_run ();
    }

#define ADD(path, func) \
  g_test_add ("/cli-chat/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("chat/proposes", test_chat_proposes);
  ADD ("chat/apply", test_chat_apply);
  ADD ("chat/events", test_chat_events);
  ADD ("chat/question", test_chat_question);
  ADD ("draft/new-folder", test_draft);
  ADD ("draft/no-steps", test_draft_no_steps);
  ADD ("draft/existing-workflow", test_draft_existing_workflow);
  ADD ("not-configured", test_not_configured);
  ADD ("model-failure", test_model_failure);
  ADD ("invalid-folder", test_invalid_folder);
  ADD ("bad-arguments", test_bad_arguments);
  ADD ("interrupt", test_interrupt);

#undef ADD

  return g_test_run ();
}
