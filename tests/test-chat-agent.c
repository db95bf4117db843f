/* test-chat-agent.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chat agent: every tool on a small workflow, then whole turns against
 * the fake server in each dialect, with the model adding steps, correcting
 * itself, claiming changes it did not make, never finishing and failing.
 */

#define G_LOG_DOMAIN "test-chat-agent"

#include "config.h"

#include <string.h>

#include "sk-chat-agent.h"
#include "sk-chat-log.h"
#include "sk-fake-llm.h"
#include "sk-llm-client.h"
#include "sk-step-folder.h"
#include "sk-test-util.h"

/* Load, then Clean, then Chart; Chart failed in its last run. */
#define WORKFLOW_JSON \
  "{\"process_name\": \"Report\", \"process_description\": \"Monthly report\"," \
  " \"nodes\": {" \
  "  \"1\": {\"name\": \"Load\", \"priors\": [], \"run\": true," \
  "         \"input\": {\"text\": \"Read sales.csv\"}}," \
  "  \"2\": {\"name\": \"Clean\", \"priors\": [\"1\"], \"run\": true," \
  "         \"input\": {\"text\": \"Drop empty rows\"}}," \
  "  \"3\": {\"name\": \"Chart\", \"priors\": [\"2\"], \"run\": true," \
  "         \"input\": {\"text\": \"Plot totals\"}}}}"

#define LOAD_CODE "def compute():\n    return 'UNIQUE-LOAD-CODE'\n"

typedef struct
{
  char        *folder;
  SkProject   *project;
  SkChangeset *changeset;
} Workflow;

static void
workflow_set_up (Workflow      *w,
                 gconstpointer  data)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFile) stderr_file = NULL;
  g_autoptr(GFile) parent = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GError) error = NULL;
  GString *log = g_string_new (NULL);

  w->folder = sk_test_make_tmp_dir ("chat-agent");
  sk_test_write_text (w->folder, "process.json", WORKFLOW_JSON);
  sk_test_write_text (w->folder, "load/load.py", LOAD_CODE);

  /* A long error output, of which read_log shows only the end. */
  for (guint i = 0; i < 400; i++)
    g_string_append_printf (log, "noise line %u\n", i);
  g_string_append (log, "ZeroDivisionError: UNIQUE-END-OF-STDERR\n");
  folder = g_file_new_for_path (w->folder);
  stderr_file = sk_step_folder_get_file (folder, "chart", SK_STEP_FILE_STDERR);
  parent = g_file_get_parent (stderr_file);
  g_file_make_directory_with_parents (parent, NULL, &error);
  g_assert_no_error (error);
  g_file_replace_contents (stderr_file, log->str, log->len, NULL, FALSE, 0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_string_free (log, TRUE);

  file = g_file_new_build_filename (w->folder, "process.json", NULL);
  w->project = sk_project_load (file, &error);
  g_assert_no_error (error);

  sk_node_set_state (sk_project_get_node (w->project, "3"), SK_NODE_STATE_FAILED);
  sk_node_set_error (sk_project_get_node (w->project, "3"), "The step failed: UNIQUE-ERROR-TEXT",
                     NULL);

  w->changeset = sk_changeset_new (w->project);
}

static void
workflow_tear_down (Workflow      *w,
                    gconstpointer  data)
{
  g_clear_object (&w->changeset);
  g_clear_object (&w->project);
  sk_test_remove_tree (w->folder);
  g_free (w->folder);
}

/* Runs one tool as the model would call it, with @arguments as raw text. */
static char *
call (SkChangeset *changeset,
      const char  *name,
      const char  *arguments,
      gboolean     expect_error)
{
  SkLlmToolCall tool_call = { (char *) "call_t", (char *) name, (char *) arguments };
  gboolean is_error = !expect_error;
  char *text;

  text = sk_chat_agent_call_tool (changeset, &tool_call, &is_error);
  g_assert_nonnull (text);
  if (is_error != expect_error)
    g_error ("%s %s: expected %s, got “%s”", name, arguments,
             expect_error ? "a refusal" : "success", text);

  return text;
}

static void
assert_call (SkChangeset *changeset,
             const char  *name,
             const char  *arguments,
             gboolean     expect_error,
             const char  *words)
{
  g_autofree char *text = call (changeset, name, arguments, expect_error);

  sk_test_assert_contains (text, words);
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
test_read_tools (Workflow      *w,
                 gconstpointer  data)
{
  g_autofree char *outline = call (w->changeset, "list_steps", "{}", FALSE);
  g_autofree char *step = NULL;
  g_autofree char *log = NULL;

  sk_test_assert_contains (outline, "Process: Report");
  sk_test_assert_contains (outline, "1 load “Load” run");
  sk_test_assert_contains (outline, "2 clean “Clean” run idle priors=1 task: Drop empty rows");
  /* No arguments at all count as {}. */
  assert_call (w->changeset, "list_steps", "", FALSE, "3 chart “Chart”");

  step = call (w->changeset, "get_step", "{\"step\": \"clean\"}", FALSE);
  sk_test_assert_contains (step, "Step 2 “Clean” (key clean)");
  sk_test_assert_contains (step, "Drop empty rows");
  assert_call (w->changeset, "get_step", "{\"step\": 2}", FALSE, "Step 2 “Clean”");
  assert_call (w->changeset, "get_step", "{\"step\": \"3\"}", FALSE, "UNIQUE-ERROR-TEXT");

  assert_call (w->changeset, "read_code", "{\"step\": \"load\"}", FALSE, "load.py:\n" LOAD_CODE);
  assert_call (w->changeset, "read_code", "{\"step\": \"1\"}", FALSE, "UNIQUE-LOAD-CODE");
  assert_call (w->changeset, "read_code", "{\"step\": \"clean\"}", FALSE,
               "The step “Clean” has no code yet.");

  log = call (w->changeset, "read_log", "{\"step\": \"chart\"}", FALSE);
  sk_test_assert_contains (log, "Step 3 “Chart”: Failed");
  sk_test_assert_contains (log, "UNIQUE-ERROR-TEXT");
  sk_test_assert_contains (log, "ZeroDivisionError: UNIQUE-END-OF-STDERR");
  sk_test_assert_contains (log, "End of the coding agent's log:\n(none)");
  /* Only the end of a long error output. */
  g_assert_null (strstr (log, "noise line 0\n"));
  g_assert_cmpuint (strlen (log), <, 4000);
  assert_call (w->changeset, "read_log", "{\"step\": \"load\"}", FALSE, "Error:\n(none)");

  /* Reading proposes nothing. */
  g_assert_true (sk_changeset_is_empty (w->changeset));
}

static void
test_edit_tools (Workflow      *w,
                 gconstpointer  data)
{
  g_autofree char *before = sk_project_to_data (w->project, NULL);
  g_autofree char *after = NULL;
  g_autofree char *summary = NULL;

  assert_call (w->changeset, "add_step",
               "{\"name\": \"Summary\", \"task\": \"Sum the rows\", \"description\": \"Totals\", "
               "\"priors\": [\"clean\", 1]}",
               FALSE, "Proposed: the new step 4 “Summary” (key summary).");
  g_assert_cmpstr (sk_node_get_input_text (scratch_node (w->changeset, "4")), ==, "Sum the rows");
  g_assert_cmpstr (sk_node_get_description (scratch_node (w->changeset, "4")), ==, "Totals");
  g_assert_true (g_strv_equal (sk_node_get_priors (scratch_node (w->changeset, "4")),
                               SK_TEST_STRV ("2", "1")));

  assert_call (w->changeset, "rename_step", "{\"step\": 1, \"name\": \"Fetch\"}", FALSE,
               "Proposed: the new name for step 1 “Fetch”.");
  assert_call (w->changeset, "set_task", "{\"step\": \"fetch\", \"text\": \"Read sales.xlsx\"}",
               FALSE, "Proposed: the new task for step 1 “Fetch”.");
  assert_call (w->changeset, "set_description", "{\"step\": \"2\", \"text\": \"Tidy\"}", FALSE,
               "Proposed: the new description for step 2 “Clean”.");
  assert_call (w->changeset, "set_run", "{\"step\": \"clean\", \"run\": false}", FALSE,
               "Proposed: leaving runs out for step 2 “Clean”.");
  assert_call (w->changeset, "connect", "{\"from\": \"summary\", \"to\": \"chart\"}", FALSE,
               "Proposed: summary becomes a prior of chart.");
  assert_call (w->changeset, "disconnect", "{\"from\": 2, \"to\": 3}", FALSE,
               "Proposed: 2 is no longer a prior of 3.");
  assert_call (w->changeset, "set_process", "{\"name\": \"Sales\"}", FALSE,
               "Proposed: the workflow's new name or description.");

  g_assert_cmpstr (sk_node_get_name (scratch_node (w->changeset, "1")), ==, "Fetch");
  g_assert_cmpstr (sk_node_get_input_text (scratch_node (w->changeset, "1")), ==,
                   "Read sales.xlsx");
  g_assert_cmpstr (sk_node_get_description (scratch_node (w->changeset, "2")), ==, "Tidy");
  g_assert_false (sk_node_get_run (scratch_node (w->changeset, "2")));
  g_assert_true (g_strv_equal (sk_node_get_priors (scratch_node (w->changeset, "3")),
                               SK_TEST_STRV ("4")));
  g_assert_cmpstr (sk_project_get_name (sk_changeset_get_scratch (w->changeset)), ==, "Sales");

  summary = sk_changeset_describe (w->changeset);
  sk_test_assert_contains (summary, "Added “Summary”");
  sk_test_assert_contains (summary, "renamed “Load” to “Fetch”");
  sk_test_assert_contains (summary, "renamed the workflow to “Sales”");

  assert_call (w->changeset, "remove_step", "{\"step\": \"summary\"}", FALSE,
               "Proposed: removing step 4 “Summary” and its connections.");
  g_assert_null (sk_project_get_node (sk_changeset_get_scratch (w->changeset), "4"));
  g_assert_true (sk_node_get_priors (scratch_node (w->changeset, "3"))[0] == NULL);

  /* Nothing reaches the workflow itself. */
  after = sk_project_to_data (w->project, NULL);
  g_assert_cmpstr (after, ==, before);
}

/* Each refusal tells the model why, and changes nothing. */
static void
test_refusals (Workflow      *w,
               gconstpointer  data)
{
  g_autofree char *before = sk_project_to_data (sk_changeset_get_scratch (w->changeset), NULL);
  g_autofree char *after = NULL;
  g_autofree char *unknown = NULL;

  assert_call (w->changeset, "get_step", "{\"step\": \"totals\"}", TRUE,
               "Refused: There is no step “totals”. The steps are: “load” (1), “clean” (2), "
               "“chart” (3).");
  assert_call (w->changeset, "read_code", "{\"step\": 99}", TRUE, "There is no step “99”");
  assert_call (w->changeset, "remove_step", "{\"step\": \"Totals\"}", TRUE,
               "There is no step “Totals”");
  assert_call (w->changeset, "connect", "{\"from\": \"chart\", \"to\": \"load\"}", TRUE,
               "Refused: Connecting “chart” to “load” would make a circle");
  assert_call (w->changeset, "connect", "{\"from\": \"load\", \"to\": \"load\"}", TRUE,
               "cannot need its own results");
  assert_call (w->changeset, "connect", "{\"from\": \"load\", \"to\": \"clean\"}", TRUE,
               "already connected");
  assert_call (w->changeset, "disconnect", "{\"from\": \"load\", \"to\": \"chart\"}", TRUE,
               "nothing to disconnect");
  assert_call (w->changeset, "add_step", "{\"name\": \"clean\", \"task\": \"x\"}", TRUE,
               "would share the folder “clean”");
  assert_call (w->changeset, "rename_step", "{\"step\": \"chart\", \"name\": \"LOAD\"}", TRUE,
               "would share the folder “load”");
  assert_call (w->changeset, "add_step",
               "{\"name\": \"New\", \"task\": \"x\", \"priors\": [\"nope\"]}", TRUE,
               "There is no step “nope”");

  /* Missing and wrong arguments. */
  assert_call (w->changeset, "add_step", "{\"name\": \"Summary\"}", TRUE,
               "Refused: `add_step` needs the text argument `task`.");
  assert_call (w->changeset, "add_step", "{\"task\": \"Sum\"}", TRUE,
               "`add_step` needs the text argument `name`.");
  assert_call (w->changeset, "add_step",
               "{\"name\": \"Summary\", \"task\": \"Sum\", \"priors\": \"clean\"}", TRUE,
               "`priors` must be a list of step ids or keys");
  assert_call (w->changeset, "add_step",
               "{\"name\": \"Summary\", \"task\": \"Sum\", \"priors\": [true]}", TRUE,
               "`priors` must be a list of step ids or keys");
  assert_call (w->changeset, "get_step", "{}", TRUE,
               "`get_step` needs `step`: a step's id or key.");
  assert_call (w->changeset, "get_step", "{\"step\": true}", TRUE, "`get_step` needs `step`");
  assert_call (w->changeset, "connect", "{\"from\": \"load\"}", TRUE, "`connect` needs `to`");
  assert_call (w->changeset, "rename_step", "{\"step\": \"load\"}", TRUE,
               "`rename_step` needs the text argument `name`");
  assert_call (w->changeset, "set_task", "{\"step\": \"load\"}", TRUE,
               "`set_task` needs the text argument `text`");
  assert_call (w->changeset, "set_run", "{\"step\": \"load\", \"run\": \"no\"}", TRUE,
               "`set_run` needs `run`: true or false.");
  assert_call (w->changeset, "set_process", "{}", TRUE,
               "`set_process` needs `name`, `description` or both.");

  /* Arguments that are not one JSON object. */
  assert_call (w->changeset, "get_step", "{\"step\": \"load\"", TRUE,
               "Send the arguments as one JSON object.");
  assert_call (w->changeset, "get_step", "[\"load\"]", TRUE,
               "Send the arguments as one JSON object.");
  assert_call (w->changeset, "add_step", "{\"name\": \"A\", \"task\": \"x\"} trailing", TRUE,
               "not valid JSON");

  /* Tools that do not exist, and finish, which only the turn handles. */
  unknown = call (w->changeset, "delete_everything", "{}", TRUE);
  g_assert_cmpstr (unknown, ==,
                   "There is no tool “delete_everything”. The tools are: list_steps, get_step, "
                   "read_code, read_log, add_step, remove_step, rename_step, set_task, "
                   "set_description, connect, disconnect, set_run, set_process, finish.");
  assert_call (w->changeset, "finish", "{\"summary\": \"x\"}", TRUE, "There is no tool “finish”");

  g_assert_true (sk_changeset_is_empty (w->changeset));
  after = sk_project_to_data (sk_changeset_get_scratch (w->changeset), NULL);
  g_assert_cmpstr (after, ==, before);
}

/* Later calls of a turn see what earlier ones proposed. */
static void
test_reads_see_proposals (Workflow      *w,
                          gconstpointer  data)
{
  g_autofree char *outline = NULL;

  assert_call (w->changeset, "add_step",
               "{\"name\": \"Summary\", \"task\": \"Sum\", \"priors\": [\"clean\"]}",
               FALSE, "new step 4");
  assert_call (w->changeset, "rename_step", "{\"step\": \"load\", \"name\": \"Fetch\"}", FALSE,
               "Fetch");
  assert_call (w->changeset, "remove_step", "{\"step\": \"chart\"}", FALSE, "Chart");

  outline = call (w->changeset, "list_steps", "{}", FALSE);
  sk_test_assert_contains (outline, "4 summary “Summary” run");
  sk_test_assert_contains (outline, "1 fetch “Fetch”");
  g_assert_null (strstr (outline, "chart"));

  assert_call (w->changeset, "get_step", "{\"step\": \"summary\"}", FALSE,
               "Step 4 “Summary” (key summary)");
  assert_call (w->changeset, "read_code", "{\"step\": \"summary\"}", FALSE,
               "“Summary” has no code yet");
  /* The renamed step's script is still where it is on disk. */
  assert_call (w->changeset, "read_code", "{\"step\": \"fetch\"}", FALSE, "UNIQUE-LOAD-CODE");
  assert_call (w->changeset, "get_step", "{\"step\": \"load\"}", TRUE, "There is no step “load”");
  assert_call (w->changeset, "read_log", "{\"step\": \"chart\"}", TRUE, "There is no step “chart”");
  assert_call (w->changeset, "connect", "{\"from\": \"summary\", \"to\": \"fetch\"}", TRUE,
               "circle");
}

/* Whole turns against the fake server --------------------------------------- */

typedef struct
{
  SkFakeLlmDialect  dialect;
  const char       *scenario;
} TurnCase;

typedef struct
{
  Workflow      w;
  SkFakeLlm    *fake;
  SkLlmClient  *client;
  SkChatAgent  *agent;
  GPtrArray    *progress;
  GCancellable *cancellable;
  guint         cancel_after;
  char         *reply;
  GError       *error;
  gboolean      done;
} Turn;

static SkLlmClient *
make_client (SkFakeLlm        *fake,
             SkFakeLlmDialect  dialect)
{
  static const SkLlmProvider providers[] = {
    [SK_FAKE_LLM_DIALECT_OPENAI] = SK_LLM_PROVIDER_OPENAI,
    [SK_FAKE_LLM_DIALECT_OLLAMA] = SK_LLM_PROVIDER_OLLAMA,
    [SK_FAKE_LLM_DIALECT_ANTHROPIC] = SK_LLM_PROVIDER_ANTHROPIC,
  };
  SkLlmClient *client;

  client = sk_llm_client_new (providers[dialect], sk_fake_llm_get_base_url (fake, dialect),
                              "fake-chat",
                              dialect == SK_FAKE_LLM_DIALECT_ANTHROPIC ? "sk-test-key" : NULL);
  sk_llm_client_set_max_retries (client, 0);
  return client;
}

static void
progress_cb (SkChatAgent *agent,
             const char  *message,
             Turn        *t)
{
  g_ptr_array_add (t->progress, g_strdup (message));
  if (t->cancel_after > 0 && t->progress->len == t->cancel_after)
    g_cancellable_cancel (t->cancellable);
}

static void
turn_set_up (Turn          *t,
             gconstpointer  data)
{
  const TurnCase *c = data;

  workflow_set_up (&t->w, NULL);
  t->fake = sk_fake_llm_new ();
  sk_fake_llm_set_recycle (t->fake, FALSE);
  t->client = make_client (t->fake, c != NULL ? c->dialect : SK_FAKE_LLM_DIALECT_OPENAI);
  t->agent = sk_chat_agent_new (t->client, t->w.changeset);
  t->progress = g_ptr_array_new_with_free_func (g_free);
  t->cancellable = g_cancellable_new ();
  g_signal_connect (t->agent, "progress", G_CALLBACK (progress_cb), t);
}

static void
turn_tear_down (Turn          *t,
                gconstpointer  data)
{
  g_clear_object (&t->agent);
  g_clear_object (&t->client);
  g_clear_object (&t->cancellable);
  sk_fake_llm_free (t->fake);
  g_ptr_array_unref (t->progress);
  g_clear_pointer (&t->reply, g_free);
  g_clear_error (&t->error);
  workflow_tear_down (&t->w, NULL);
}

static void
turn_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Turn *t = user_data;

  t->reply = sk_chat_agent_send_finish (SK_CHAT_AGENT (object), result, &t->error);
  t->done = TRUE;
}

static void
push (Turn       *t,
      const char *scenario)
{
  g_autoptr(GError) error = NULL;

  sk_fake_llm_push (t->fake, scenario, &error);
  g_assert_no_error (error);
}

static void
push_json (Turn       *t,
           const char *json)
{
  g_autoptr(GError) error = NULL;

  sk_fake_llm_push_json (t->fake, json, &error);
  g_assert_no_error (error);
}

static GPtrArray *
make_turns (const char *first,
            ...)
{
  GPtrArray *turns = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_chat_turn_free);
  const char *role = first;
  va_list args;

  va_start (args, first);
  while (role != NULL)
    {
      SkChatTurn *turn = g_new0 (SkChatTurn, 1);

      turn->role = g_strdup (role);
      turn->text = g_strdup (va_arg (args, const char *));
      g_ptr_array_add (turns, turn);
      role = va_arg (args, const char *);
    }
  va_end (args);

  return turns;
}

static void
run_turn (Turn       *t,
          const char *message)
{
  g_autoptr(GPtrArray) turns = make_turns ("user", message, NULL);

  t->done = FALSE;
  g_clear_pointer (&t->reply, g_free);
  g_clear_error (&t->error);
  sk_chat_agent_send_async (t->agent, turns, t->cancellable, turn_done_cb, t);
  SK_TEST_WAIT_UNTIL (t->done, 60000);
}

static void
collect_strings (JsonNode *node,
                 GString  *out)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        {
          g_string_append_printf (out, "<%s>", (const char *) l->data);
          collect_strings (json_object_get_member (object, l->data), out);
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        collect_strings (json_array_get_element (array, i), out);
    }
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      g_string_append (out, json_node_get_string (node));
      g_string_append_c (out, '\n');
    }
}

/* Every text of the @index-th request, unescaped, with the object keys
 * in angle brackets, so that what the model was told can be searched. */
static char *
request_text (Turn  *t,
              guint  index)
{
  g_autoptr(GPtrArray) requests = sk_fake_llm_dup_requests (t->fake);
  g_autoptr(JsonNode) root = NULL;
  SkFakeLlmRequest *request;
  g_autofree char *body = NULL;
  GString *out = g_string_new (NULL);

  g_assert_cmpuint (index, <, requests->len);
  request = g_ptr_array_index (requests, index);
  body = g_strndup (g_bytes_get_data (request->body, NULL), g_bytes_get_size (request->body));
  root = sk_test_parse_json (body);
  collect_strings (root, out);

  return g_string_free (out, FALSE);
}

static void
assert_two_steps_added (SkChangeset *changeset)
{
  g_autofree char *summary = sk_changeset_describe (changeset);
  g_autoptr(GPtrArray) changes = sk_changeset_get_changes (changeset);
  SkNode *summary_node = scratch_node (changeset, "4");
  SkNode *export_node = scratch_node (changeset, "5");

  g_assert_cmpstr (sk_node_get_name (summary_node), ==, "Summary");
  g_assert_cmpstr (sk_node_get_input_text (summary_node), ==, "Add up the cleaned rows");
  g_assert_true (g_strv_equal (sk_node_get_priors (summary_node), SK_TEST_STRV ("2")));
  g_assert_cmpstr (sk_node_get_name (export_node), ==, "Export");
  g_assert_cmpstr (sk_node_get_input_text (export_node), ==, "Write the sum to sum.csv");
  g_assert_true (g_strv_equal (sk_node_get_priors (export_node), SK_TEST_STRV ("4")));

  /* Two steps and two connections: after Clean, and between the new ones. */
  g_assert_cmpuint (changes->len, ==, 4);
  sk_test_assert_contains (summary, "Added 2 steps (“Summary”, “Export”)");
  sk_test_assert_contains (summary, "connected 2");
}

static void
test_turn_add_steps (Turn          *t,
                     gconstpointer  data)
{
  const TurnCase *c = data;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  guint64 prompt_tokens, completion_tokens;

  push (t, "chat-add-steps-fragments");
  run_turn (t, "Add a summary after Clean, and an export after it.");

  g_assert_no_error (t->error);
  g_assert_cmpstr (t->reply, ==, "I propose Summary and Export, connected.");
  assert_two_steps_added (t->w.changeset);
  g_assert_cmpuint (sk_chat_agent_get_steps (t->agent), ==, 3);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (t->fake), ==, 3);
  sk_chat_agent_get_usage (t->agent, &prompt_tokens, &completion_tokens);
  g_assert_cmpuint (prompt_tokens, ==, 760);
  g_assert_cmpuint (completion_tokens, ==, 52);

  /* The results went back as tool results, the new ids among them. */
  second = request_text (t, 1);
  sk_test_assert_contains (second, "Proposed: the new step 4 “Summary” (key summary).");
  sk_test_assert_contains (second, "Proposed: the new step 5 “Export” (key export).");
  third = request_text (t, 2);
  sk_test_assert_contains (third, "Proposed: summary becomes a prior of export.");

  g_assert_cmpuint (t->progress->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (t->progress, 0), ==, "Proposing the step “Summary”");
  g_assert_cmpstr (g_ptr_array_index (t->progress, 2), ==, "Proposing a connection");

  if (c->dialect == SK_FAKE_LLM_DIALECT_OPENAI)
    {
      g_autofree char *first = request_text (t, 0);

      sk_test_assert_contains (first, "<tools>");
      sk_test_assert_contains (first, "add_step");
      g_assert_null (strstr (first, "To call a tool, end your reply"));
    }
}

static void
test_turn_text_blocks (Turn          *t,
                       gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  sk_chat_agent_set_text_tools (t->agent, TRUE);
  push (t, "chat-text-blocks");
  run_turn (t, "Add a summary after Clean, and an export after it.");

  g_assert_no_error (t->error);
  g_assert_cmpstr (t->reply, ==, "I propose Summary and Export, connected.");
  assert_two_steps_added (t->w.changeset);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (t->fake), ==, 3);

  /* The tools are described in the prompt, not sent as definitions, and
   * the results come back as the person's message. */
  first = request_text (t, 0);
  g_assert_null (strstr (first, "<tools>"));
  sk_test_assert_contains (first, "To call a tool, end your reply with one fenced block");
  second = request_text (t, 1);
  g_assert_null (strstr (second, "<tools>"));
  sk_test_assert_contains (second,
                           "Result of `add_step`:\nProposed: the new step 4 “Summary” (key "
                           "summary).");
  sk_test_assert_contains (second, "Result of `add_step`:\nProposed: the new step 5 “Export”");
}

/* A model that answers native tools with text blocks is answered in text. */
static void
test_turn_text_blocks_unasked (Turn          *t,
                               gconstpointer  data)
{
  g_autofree char *second = NULL;

  push (t, "chat-text-blocks");
  run_turn (t, "Add a summary after Clean, and an export after it.");

  g_assert_no_error (t->error);
  g_assert_cmpstr (t->reply, ==, "I propose Summary and Export, connected.");
  assert_two_steps_added (t->w.changeset);
  second = request_text (t, 1);
  sk_test_assert_contains (second, "Result of `add_step`:\nProposed: the new step 4");
  /* Without definitions, the prompt now describes the blocks. */
  g_assert_null (strstr (second, "<tools>"));
  sk_test_assert_contains (second, "To call a tool, end your reply with one fenced block");
}

static void
test_turn_invalid_then_corrected (Turn          *t,
                                  gconstpointer  data)
{
  g_autofree char *second = NULL;
  g_autoptr(GPtrArray) changes = NULL;
  const SkChange *change;

  push (t, "chat-invalid-then-corrected");
  run_turn (t, "Let Chart read the loaded data too.");

  g_assert_no_error (t->error);
  g_assert_cmpstr (t->reply, ==, "I propose that Chart also reads Load.");

  /* Only the corrected connection is proposed. */
  changes = sk_changeset_get_changes (t->w.changeset);
  g_assert_cmpuint (changes->len, ==, 1);
  change = g_ptr_array_index (changes, 0);
  g_assert_cmpint (change->kind, ==, SK_CHANGE_CONNECTED);
  g_assert_cmpstr (change->step_id, ==, "3");
  g_assert_cmpstr (change->other_id, ==, "1");
  g_assert_true (sk_node_has_prior (scratch_node (t->w.changeset, "3"), "1"));
  g_assert_false (sk_node_has_prior (scratch_node (t->w.changeset, "1"), "3"));

  /* The model was told why, in the next request. */
  second = request_text (t, 1);
  sk_test_assert_contains (second, "Refused: Connecting “chart” to “load” would make a circle");
  sk_test_assert_contains (second, "Refused: There is no step “Totals”.");

  /* And so was the person, with the step names the model can use. */
  g_assert_cmpuint (t->progress->len, ==, 5);
  g_assert_cmpstr (g_ptr_array_index (t->progress, 2), ==, "Proposing to remove “Totals”");
  g_assert_true (g_str_has_prefix (g_ptr_array_index (t->progress, 3),
                                   "Refused: There is no step “Totals”. The steps are: “load” (1), "
                                   "“clean” (2), “chart” (3)."));
}

/* Calls that cannot be run are answered with the reason, and the turn goes on. */
static void
test_turn_bad_calls (Turn          *t,
                     gconstpointer  data)
{
  g_autofree char *second = NULL;

  push_json (t, "{\"parts\": ["
                "{\"tool_call\": {\"id\": \"c1\", \"name\": \"delete_all\", \"arguments\": "
                "[\"{}\"]}},"
                "{\"tool_call\": {\"id\": \"c2\", \"name\": \"get_step\", \"arguments\": "
                "[\"{\\\"step\\\": \"]}},"
                "{\"tool_call\": {\"id\": \"c3\", \"name\": \"finish\", \"arguments\": "
                "[\"{\\\"summary\\\": \"]}}]}");
  push_json (t, "{\"parts\": [{\"text\": \"Sorry.\"}]}");
  run_turn (t, "Clean up.");

  /* A finish without its summary does not end the turn. */
  g_assert_no_error (t->error);
  g_assert_cmpstr (t->reply, ==, "Sorry.");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (t->fake), ==, 2);
  g_assert_true (sk_changeset_is_empty (t->w.changeset));
  g_assert_cmpuint (t->progress->len, ==, 3);
  sk_test_assert_contains (g_ptr_array_index (t->progress, 0), "There is no tool “delete_all”");
  sk_test_assert_contains (g_ptr_array_index (t->progress, 1),
                           "Send the arguments as one JSON object.");
  sk_test_assert_contains (g_ptr_array_index (t->progress, 2), "`finish` needs `summary`");

  second = request_text (t, 1);
  sk_test_assert_contains (second, "There is no tool “delete_all”. The tools are: list_steps");
  sk_test_assert_contains (second, "are not valid JSON");
  sk_test_assert_contains (second, "Refused: `finish` needs `summary`");
}

static void
test_turn_claims_without_changes (Turn          *t,
                                  gconstpointer  data)
{
  g_autofree char *summary = NULL;

  push (t, "chat-claims-without-changes");
  run_turn (t, "Delete Clean and Chart.");

  g_assert_no_error (t->error);
  /* The model's words are its answer; the summary comes from the real
   * difference, which is none. */
  g_assert_cmpstr (t->reply, ==, "Done! I deleted the steps Clean and Chart.");
  g_assert_true (sk_changeset_is_empty (t->w.changeset));
  summary = sk_changeset_describe (t->w.changeset);
  g_assert_cmpstr (summary, ==, "No changes.");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (t->fake), ==, 1);
}

static void
test_turn_never_finishes (Turn          *t,
                          gconstpointer  data)
{
  g_autofree char *summary = NULL;

  push (t, "chat-never-finishes");
  run_turn (t, "Look around.");

  g_assert_error (t->error, SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_BUDGET);
  sk_test_assert_contains (t->error->message, "used all 20 of its replies");
  g_assert_null (t->reply);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (t->fake), ==, SK_CHAT_AGENT_DEFAULT_MAX_STEPS);
  g_assert_cmpuint (sk_chat_agent_get_steps (t->agent), ==, SK_CHAT_AGENT_DEFAULT_MAX_STEPS);
  g_assert_true (sk_changeset_is_empty (t->w.changeset));
  summary = sk_changeset_describe (t->w.changeset);
  g_assert_cmpstr (summary, ==, "No changes.");
}

/* What was proposed before the budget ran out stays for review. */
static void
test_budget_keeps_partial (Turn          *t,
                           gconstpointer  data)
{
  g_autofree char *system = NULL;

  sk_chat_agent_set_max_steps (t->agent, 3);
  g_assert_true (sk_fake_llm_push_tool_call (t->fake, "I add it.", "add_step", "name", "Summary",
                                             "task", "Sum", NULL));
  push (t, "chat-never-finishes");
  run_turn (t, "Add a summary.");

  g_assert_error (t->error, SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_BUDGET);
  sk_test_assert_contains (t->error->message, "used all 3 of its replies");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (t->fake), ==, 3);
  g_assert_cmpstr (sk_node_get_name (scratch_node (t->w.changeset, "4")), ==, "Summary");
  g_assert_false (sk_changeset_is_empty (t->w.changeset));

  /* The model was told its budget. */
  system = request_text (t, 0);
  sk_test_assert_contains (system, "You have a limited number of replies in a turn (3)");
}

/* An empty reply and a broken tool block get a reminder, not the end. */
static void
test_reminders (Turn          *t,
                gconstpointer  data)
{
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;

  sk_chat_agent_set_text_tools (t->agent, TRUE);
  push_json (t, "{\"parts\": [{\"text\": \"  \\n\"}]}");
  push_json (t,
             "{\"parts\": [{\"text\": \"```tool\\n{\\\"tool\\\": \\\"list_steps\\\",\\n```\"}]}");
  push_json (t, "{\"parts\": [{\"text\": \"The workflow has three steps.\"}]}");
  run_turn (t, "What is there?");

  g_assert_no_error (t->error);
  g_assert_cmpstr (t->reply, ==, "The workflow has three steps.");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (t->fake), ==, 3);
  second = request_text (t, 1);
  /* The empty reply itself is not sent back: Anthropic refuses empty turns. */
  g_assert_null (strstr (second, "<role>assistant\n"));
  sk_test_assert_contains (second,
                           "Your reply was empty. Continue with a tool call, or end your turn "
                                   "with `finish`");
  third = request_text (t, 2);
  sk_test_assert_contains (third, "The ```tool block is not valid JSON");
  sk_test_assert_contains (third, "Continue with a tool call");
  g_assert_true (sk_changeset_is_empty (t->w.changeset));
}

/* The same with native tools: an empty reply is not sent back. */
static void
test_reminder_native (Turn          *t,
                      gconstpointer  data)
{
  g_autofree char *second = NULL;

  push_json (t, "{\"parts\": [{\"text\": \"\"}]}");
  g_assert_true (sk_fake_llm_push_tool_call (t->fake, "", "finish", "summary", "Three steps.",
                                             NULL, NULL, NULL));
  run_turn (t, "What is there?");

  g_assert_no_error (t->error);
  g_assert_cmpstr (t->reply, ==, "Three steps.");
  second = request_text (t, 1);
  g_assert_null (strstr (second, "<role>assistant\n"));
  sk_test_assert_contains (second, "What is there?");
  sk_test_assert_contains (second, "Your reply was empty.");
  sk_test_assert_contains (second, "<tools>");
}

/* Stopped between two replies: what was proposed stays. */
static void
test_cancel_between_replies (Turn          *t,
                             gconstpointer  data)
{
  t->cancel_after = 1;
  push (t, "chat-add-steps-fragments");
  run_turn (t, "Add a summary after Clean, and an export after it.");

  g_assert_error (t->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (t->fake), ==, 1);
  /* Both calls of the reply were made; the connection never came. */
  g_assert_nonnull (sk_project_get_node (sk_changeset_get_scratch (t->w.changeset), "4"));
  g_assert_nonnull (sk_project_get_node (sk_changeset_get_scratch (t->w.changeset), "5"));
  g_assert_false (sk_node_has_prior (scratch_node (t->w.changeset, "5"), "4"));
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

/* Stopped while the model is still silent. */
static void
test_cancel_in_stream (Turn          *t,
                       gconstpointer  data)
{
  gint64 start = g_get_monotonic_time ();

  push (t, "silent-stream");
  g_timeout_add (200, cancel_cb, t->cancellable);
  run_turn (t, "Hello?");

  g_assert_error (t->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
  g_assert_true (sk_changeset_is_empty (t->w.changeset));
}

static void
test_server_down (Turn          *t,
                  gconstpointer  data)
{
  const TurnCase *c = data;
  SkFakeLlm *gone = sk_fake_llm_new ();
  g_autoptr(SkLlmClient) client = make_client (gone, c->dialect);
  g_autoptr(SkChatAgent) agent = NULL;

  /* A port that was just free is refused. */
  sk_fake_llm_free (gone);
  agent = sk_chat_agent_new (client, t->w.changeset);
  g_set_object (&t->agent, agent);
  run_turn (t, "Hello?");

  g_assert_error (t->error, SK_LLM_ERROR, SK_LLM_ERROR_CONNECTION);
  sk_test_assert_contains (t->error->message,
                           "Could not reach the language model server at http://127.0.0.1:");
  sk_test_assert_contains (t->error->message, "Check that the server is running");
  g_assert_true (sk_changeset_is_empty (t->w.changeset));
}

static void
test_rate_limited (Turn          *t,
                   gconstpointer  data)
{
  push (t, "rate-limit-then-success");
  run_turn (t, "Hello?");

  g_assert_error (t->error, SK_LLM_ERROR, SK_LLM_ERROR_RATE_LIMITED);
  g_assert_null (t->reply);
  g_assert_true (sk_changeset_is_empty (t->w.changeset));
}

/* A broken reply fails the turn and leaves an earlier proposal as it was. */
static void
test_garbage (Turn          *t,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  g_assert_true (sk_changeset_rename_step (t->w.changeset, "load", "Fetch", &error));
  g_assert_no_error (error);
  before = sk_changeset_describe (t->w.changeset);

  push (t, "malformed-json");
  run_turn (t, "Hello?");

  g_assert_nonnull (t->error);
  g_assert_true (t->error->domain == SK_LLM_ERROR);
  g_assert_null (t->reply);
  after = sk_changeset_describe (t->w.changeset);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpstr (sk_node_get_name (scratch_node (t->w.changeset, "1")), ==, "Fetch");
}

/* A server that takes no tools gets the same request again, in text. */
static void
test_tools_unsupported (Turn          *t,
                        gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  push_json (t, "{\"status\": 400, \"error\": {\"message\": \"registry.ollama.ai/library/fake-chat "
                "does not support tools\", \"type\": \"invalid_request_error\"}}");
  push (t, "chat-text-blocks");
  run_turn (t, "Add a summary after Clean, and an export after it.");

  g_assert_no_error (t->error);
  g_assert_cmpstr (t->reply, ==, "I propose Summary and Export, connected.");
  assert_two_steps_added (t->w.changeset);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (t->fake), ==, 4);
  /* The refused request does not count against the budget. */
  g_assert_cmpuint (sk_chat_agent_get_steps (t->agent), ==, 3);

  first = request_text (t, 0);
  sk_test_assert_contains (first, "<tools>");
  second = request_text (t, 1);
  g_assert_null (strstr (second, "<tools>"));
  sk_test_assert_contains (second, "To call a tool, end your reply with one fenced block");
}

/* The outline, the selection and the conversation go with the message. */
static void
test_prompt (Turn          *t,
             gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_autoptr(GPtrArray) turns = NULL;

  sk_chat_agent_set_selection (t->agent, SK_TEST_STRV ("2", "99"));
  push (t, "chat-claims-without-changes");
  turns = make_turns ("user", "UNIQUE-EARLIER-QUESTION",
                      "assistant", "UNIQUE-EARLIER-ANSWER",
                      "tool", "The person rejected the proposal.",
                      "user", "UNIQUE-NEW-QUESTION",
                      NULL);
  t->done = FALSE;
  sk_chat_agent_send_async (t->agent, turns, NULL, turn_done_cb, t);
  SK_TEST_WAIT_UNTIL (t->done, 60000);
  g_assert_no_error (t->error);

  text = request_text (t, 0);
  sk_test_assert_contains (text, "Process: Report\nDescription: Monthly report\n");
  sk_test_assert_contains (text, "1 load “Load” run idle priors=- task: Read sales.csv\n"
                                 "2 clean “Clean” run idle priors=1 task: Drop empty rows\n");
  sk_test_assert_contains (text, "Selected: 2 clean\n");
  sk_test_assert_contains (text,
                           "The person has selected these steps, so their message is most likely "
                                 "about them: 2 “Clean”");
  sk_test_assert_contains (text, "You have a limited number of replies in a turn (20)");
  sk_test_assert_contains (text, "UNIQUE-EARLIER-QUESTION\n");
  sk_test_assert_contains (text, "UNIQUE-EARLIER-ANSWER\n");
  /* A note of the application is told as the person's, before the new
   * message, so that the roles alternate. */
  sk_test_assert_contains (text,
                           "[Skele-Code: The person rejected the proposal.]\n\n"
                           "UNIQUE-NEW-QUESTION");
  /* Every tag of the template was filled in. */
  g_assert_null (strstr (text, "{outline}"));
  g_assert_null (strstr (text, "{selection"));
}

/* Without a selection, the prompt says none. */
static void
test_prompt_no_selection (Turn          *t,
                          gconstpointer  data)
{
  g_autofree char *text = NULL;

  push (t, "chat-claims-without-changes");
  run_turn (t, "Hello?");
  g_assert_no_error (t->error);

  text = request_text (t, 0);
  sk_test_assert_contains (text, "Selected: none");
  g_assert_null (strstr (text, "The person has selected"));
}

static void
test_empty_conversation (Turn          *t,
                         gconstpointer  data)
{
  g_autoptr(GPtrArray) turns = make_turns ("assistant", "Only me.", NULL);

  t->done = FALSE;
  sk_chat_agent_send_async (t->agent, turns, NULL, turn_done_cb, t);
  SK_TEST_WAIT_UNTIL (t->done, 10000);
  g_assert_error (t->error, SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_EMPTY);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (t->fake), ==, 0);
}

static void
test_definitions (void)
{
  g_autoptr(GPtrArray) tools = sk_chat_agent_get_definitions ();
  static const char * const names[] = {
    SK_CHAT_TOOL_LIST_STEPS, SK_CHAT_TOOL_GET_STEP, SK_CHAT_TOOL_READ_CODE,
    SK_CHAT_TOOL_READ_LOG, SK_CHAT_TOOL_ADD_STEP, SK_CHAT_TOOL_REMOVE_STEP,
    SK_CHAT_TOOL_RENAME_STEP, SK_CHAT_TOOL_SET_TASK, SK_CHAT_TOOL_SET_DESCRIPTION,
    SK_CHAT_TOOL_CONNECT, SK_CHAT_TOOL_DISCONNECT, SK_CHAT_TOOL_SET_RUN,
    SK_CHAT_TOOL_SET_PROCESS, SK_CHAT_TOOL_FINISH,
  };

  g_assert_cmpuint (tools->len, ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < tools->len; i++)
    {
      const SkLlmTool *tool = g_ptr_array_index (tools, i);

      g_assert_cmpstr (tool->name, ==, names[i]);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (tool->parameters));
    }
}

static const char * const dialect_names[] = { "openai", "ollama", "anthropic" };
static GPtrArray *cases;

static void
add_turn_test (SkFakeLlmDialect  dialect,
               const char       *name,
               void            (*func) (Turn *, gconstpointer))
{
  TurnCase *c = g_new0 (TurnCase, 1);
  g_autofree char *path = g_strdup_printf ("/chat-agent/%s/%s", dialect_names[dialect], name);

  c->dialect = dialect;
  c->scenario = name;
  g_ptr_array_add (cases, c);
  g_test_add (path, Turn, c, turn_set_up, func, turn_tear_down);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  cases = g_ptr_array_new_with_free_func (g_free);

  g_test_add_func ("/chat-agent/definitions", test_definitions);
  g_test_add ("/chat-agent/tools/read", Workflow, NULL, workflow_set_up, test_read_tools,
              workflow_tear_down);
  g_test_add ("/chat-agent/tools/edit", Workflow, NULL, workflow_set_up, test_edit_tools,
              workflow_tear_down);
  g_test_add ("/chat-agent/tools/refusals", Workflow, NULL, workflow_set_up, test_refusals,
              workflow_tear_down);
  g_test_add ("/chat-agent/tools/reads-see-proposals", Workflow, NULL, workflow_set_up,
              test_reads_see_proposals, workflow_tear_down);

  for (SkFakeLlmDialect d = SK_FAKE_LLM_DIALECT_OPENAI; d <= SK_FAKE_LLM_DIALECT_ANTHROPIC; d++)
    {
      add_turn_test (d, "chat-add-steps-fragments", test_turn_add_steps);
      add_turn_test (d, "chat-text-blocks", test_turn_text_blocks);
      add_turn_test (d, "chat-text-blocks-unasked", test_turn_text_blocks_unasked);
      add_turn_test (d, "chat-invalid-then-corrected", test_turn_invalid_then_corrected);
      add_turn_test (d, "chat-claims-without-changes", test_turn_claims_without_changes);
      if (d != SK_FAKE_LLM_DIALECT_OLLAMA)
        add_turn_test (d, "bad-calls", test_turn_bad_calls);
      add_turn_test (d, "chat-never-finishes", test_turn_never_finishes);
      add_turn_test (d, "budget-keeps-partial", test_budget_keeps_partial);
      add_turn_test (d, "reminders", test_reminders);
      add_turn_test (d, "reminder-native", test_reminder_native);
      add_turn_test (d, "cancel-between-replies", test_cancel_between_replies);
      add_turn_test (d, "cancel-in-stream", test_cancel_in_stream);
      add_turn_test (d, "server-down", test_server_down);
      add_turn_test (d, "rate-limited", test_rate_limited);
      add_turn_test (d, "garbage", test_garbage);
      add_turn_test (d, "tools-unsupported", test_tools_unsupported);
      add_turn_test (d, "prompt", test_prompt);
      add_turn_test (d, "prompt-no-selection", test_prompt_no_selection);
    }
  add_turn_test (SK_FAKE_LLM_DIALECT_OPENAI, "empty-conversation", test_empty_conversation);

  status = g_test_run ();
  g_ptr_array_unref (cases);
  return status;
}
