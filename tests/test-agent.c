/* test-agent.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The coding agent end to end: the fake server plays a model that writes,
 * tests and repairs scripts through the tools, and the runner runs what it
 * wrote with real Python.
 */

#define G_LOG_DOMAIN "test-agent"

#include "config.h"

#include <string.h>
#include <sys/wait.h>

#include "sk-agent.h"
#include "sk-fake-llm.h"
#include "sk-runner.h"
#include "sk-test-agent.h"
#include "sk-test-util.h"

/* What the model writes for the steps of CHAIN_JSON. */
#define NUMBERS_SCRIPT(compute) SK_TEST_STEP_SCRIPT ("Works on numbers.", compute)

#define LOAD_SCRIPT \
  NUMBERS_SCRIPT ("    state['output'] = {'task_status': 'success', 'numbers': [1, 2, 3]}\n" \
                  "    summary('3 numbers loaded')\n" \
                  "    summary('Task completed successfully')\n")

#define DOUBLE_SCRIPT \
  NUMBERS_SCRIPT ("    numbers = state['local']['load']['numbers']\n" \
                  "    state['output'] = {'task_status': 'success', 'numbers': [2 * n for n in numbers]}\n" \
                  "    summary('Task completed successfully')\n")

#define REPORT_SCRIPT \
  NUMBERS_SCRIPT ("    total = sum(state['local']['double']['numbers'])\n" \
                  "    with open(os.path.join(HERE, 'total.txt'), 'w') as f:\n" \
                  "        f.write(str(total))\n" \
                  "    state['output'] = {'task_status': 'success', 'total': total}\n" \
                  "    summary('The total is %d' % total)\n" \
                  "    summary('Task completed successfully')\n")

#define BROKEN_SCRIPT \
  NUMBERS_SCRIPT ("    state['output'] = {'task_status': 'success', 'ratio': 1 / 0}\n")

#define FIXED_SCRIPT \
  NUMBERS_SCRIPT ("    state['output'] = {'task_status': 'success', 'ratio': 0}\n" \
                  "    summary('Task completed successfully')\n")

#define CHAIN_JSON \
  "{\"process_name\": \"numbers\", \"process_description\": \"Doubles and adds numbers.\"," \
  " \"nodes\": {" \
  "  \"1\": {\"name\": \"load\", \"priors\": [], \"run\": true," \
  "         \"input\": {\"text\": \"Produce the numbers 1, 2 and 3.\"}}," \
  "  \"2\": {\"name\": \"double\", \"priors\": [\"1\"], \"run\": true," \
  "         \"input\": {\"text\": \"Double every number.\"}}," \
  "  \"3\": {\"name\": \"report\", \"priors\": [\"2\"], \"run\": true," \
  "         \"input\": {\"text\": \"UNIQUE-REPORT-TASK: write the total to total.txt.\"}}}}"

typedef struct
{
  char       *folder;
  SkProject  *project;
  SkFakeLlm  *fake;
  SkRunner   *runner;
  GPtrArray  *progress;
  gboolean    done;
  gboolean    ok;
  SkRunStats  stats;
  GError     *error;
} Fixture;

static void
progress_cb (SkRunner   *runner,
             SkNode     *node,
             const char *message,
             Fixture    *fixture)
{
  g_ptr_array_add (fixture->progress, g_strdup_printf ("%s: %s", sk_node_get_key (node), message));
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  const char *json = data != NULL ? data : CHAIN_JSON;
  g_autofree char *python = sk_test_find_python ();
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SkLlmClient) client = NULL;
  SkSandboxPolicy policy;

  fixture->folder = sk_test_make_tmp_dir ("agent");
  sk_test_write_text (fixture->folder, "process.json", json);
  file = g_file_new_build_filename (fixture->folder, "process.json", NULL);
  fixture->project = sk_project_load (file, &error);
  g_assert_no_error (error);

  fixture->fake = sk_fake_llm_new ();
  sk_fake_llm_set_recycle (fixture->fake, FALSE);
  client = sk_llm_client_new (SK_LLM_PROVIDER_OPENAI,
                              sk_fake_llm_get_base_url (fixture->fake, SK_FAKE_LLM_DIALECT_OPENAI),
                              "fake-coder", NULL);
  sk_llm_client_set_max_retries (client, 0);

  fixture->runner = sk_runner_new ();
  /* Where no sandbox can be made, the test environment says to run
   * without one (see tests/meson.build). */
  if (g_getenv ("SKELE_SANDBOX") != NULL &&
      sk_sandbox_policy_from_string (g_getenv ("SKELE_SANDBOX"), &policy))
    sk_runner_set_sandbox_policy (fixture->runner, policy);
  sk_runner_set_python (fixture->runner, python);
  sk_runner_set_jobs (fixture->runner, 1);
  sk_runner_set_timeout (fixture->runner, 60);
  sk_runner_set_agent (fixture->runner, client);
  sk_runner_set_agent_options (fixture->runner, 2, 10, TRUE, FALSE, FALSE);

  fixture->progress = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (fixture->runner, "agent-progress", G_CALLBACK (progress_cb), fixture);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->runner);
  g_clear_object (&fixture->project);
  sk_fake_llm_free (fixture->fake);
  g_ptr_array_unref (fixture->progress);
  g_clear_error (&fixture->error);
  sk_test_remove_tree (fixture->folder);
  g_free (fixture->folder);
}

static void
done_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Fixture *fixture = user_data;

  fixture->ok = sk_runner_run_finish (SK_RUNNER (object), result, &fixture->stats, &fixture->error);
  fixture->done = TRUE;
}

static void
run (Fixture  *fixture,
     gboolean  generate_only)
{
  fixture->done = FALSE;
  g_clear_error (&fixture->error);

  if (generate_only)
    sk_runner_generate_async (fixture->runner, fixture->project, NULL, NULL, done_cb, fixture);
  else
    sk_runner_run_async (fixture->runner, fixture->project, NULL, NULL, done_cb, fixture);
  SK_TEST_WAIT_UNTIL (fixture->done, 120000);
}

static char *
request_body (Fixture *fixture,
              guint    index)
{
  g_autoptr(GPtrArray) requests = sk_fake_llm_dup_requests (fixture->fake);
  SkFakeLlmRequest *request;

  g_assert_cmpuint (index, <, requests->len);
  request = g_ptr_array_index (requests, index);
  return g_strndup (g_bytes_get_data (request->body, NULL), g_bytes_get_size (request->body));
}

static SkNode *
node (Fixture    *fixture,
      const char *key)
{
  SkNode *found = sk_project_get_node_by_key (fixture->project, key);

  g_assert_nonnull (found);
  return found;
}

/* Runs (or only writes the code of) the one step @key. */
static void
run_one (Fixture    *fixture,
         const char *key,
         gboolean    generate_only)
{
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();

  g_ptr_array_add (nodes, node (fixture, key));
  fixture->done = FALSE;
  g_clear_error (&fixture->error);
  if (generate_only)
    sk_runner_generate_async (fixture->runner, fixture->project, nodes, NULL, done_cb, fixture);
  else
    sk_runner_run_async (fixture->runner, fixture->project, nodes, NULL, done_cb, fixture);
  SK_TEST_WAIT_UNTIL (fixture->done, 120000);
}

static gboolean
have_sandbox (void)
{
  g_autofree char *reason = NULL;
  SkSandboxKind kind = SK_SANDBOX_NONE;

  if (!sk_sandbox_probe (&kind, &reason) || kind == SK_SANDBOX_NONE)
    {
      g_autofree char *message = g_strdup_printf ("No sandbox for the agent's commands here: %s", reason);

      g_test_skip (message);
      return FALSE;
    }

  return TRUE;
}

/* A three-step workflow without code is written, tested and run. */
static void
test_generate_and_run (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *total = NULL;
  guint64 prompt, completion;

  if (!have_sandbox ())
    return;

  sk_test_push_call (fixture->fake, "Let me look at the folder.", "list_dir", "path", ".", NULL, NULL);
  sk_test_push_write (fixture->fake, "load.py", LOAD_SCRIPT);
  sk_test_push_call (fixture->fake, "I run the script to check it.", "run_command", "command",
                     "/usr/bin/python3 -c \"import load; load.preprocess({}); load.compute(); load.save(); print(load.state['output'])\"",
                     NULL, NULL);
  sk_test_push_complete (fixture->fake, "The step produces the numbers 1, 2 and 3.");
  sk_test_push_write_and_complete (fixture->fake, "double.py", DOUBLE_SCRIPT,
                                   "The step doubles the numbers.");
  sk_test_push_write_and_complete (fixture->fake, "report.py", REPORT_SCRIPT, "The step writes the total.");

  run (fixture, FALSE);
  g_assert_no_error (fixture->error);
  g_assert_true (fixture->ok);
  g_assert_cmpuint (fixture->stats.succeeded, ==, 3);
  g_assert_cmpuint (fixture->stats.failed, ==, 0);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 8);

  total = sk_test_read_text (fixture->folder, "report/total.txt");
  g_assert_cmpstr (total, ==, "12");
  g_assert_cmpint (sk_node_get_state (node (fixture, "report")), ==, SK_NODE_STATE_SUCCEEDED);
  sk_test_assert_contains (sk_node_get_output_text (node (fixture, "report")), "The total is 12");

  /* The command ran, in the sandbox, and its output went back to the model. */
  g_assert_true (sk_test_exists (fixture->folder, "load/load.pkl"));
  first = request_body (fixture, 3);
  sk_test_assert_contains (first, "'numbers': [1, 2, 3]");

  /* The first step sees its successor's task, but not the step after that. */
  second = request_body (fixture, 0);
  sk_test_assert_contains (second, "Double every number.");
  g_assert_null (strstr (second, "UNIQUE-REPORT-TASK"));

  /* Tokens: four calls for load, at 100 + 20 each, kept in the step.
   * Saving them into process.json is the workspace's, and the runner leaves
   * the workflow file alone; test_cli() checks that skele saves them. */
  sk_node_get_tokens (node (fixture, "load"), &prompt, &completion);
  g_assert_cmpuint (prompt, ==, 400);
  g_assert_cmpuint (completion, ==, 80);
  g_assert_true (sk_project_get_modified (fixture->project));

  g_assert_cmpuint (fixture->progress->len, >, 0);
  g_assert_true (g_ptr_array_find_with_equal_func (fixture->progress,
                                                   "load: The step produces the numbers 1, 2 and 3.",
                                                   g_str_equal, NULL));
  g_assert_true (sk_test_exists (fixture->folder, "load/.skele/agent.log"));
}

/* A script that raises is repaired with its error, and runs again. */
static void
test_repair (Fixture       *fixture,
             gconstpointer  data)
{
  g_autofree char *body = NULL;
  g_autofree char *script = NULL;

  sk_test_write_text (fixture->folder, "load/load.py", LOAD_SCRIPT);
  sk_test_write_text (fixture->folder, "double/double.py", BROKEN_SCRIPT);
  sk_test_write_text (fixture->folder, "report/report.py", REPORT_SCRIPT);

  /* The report step fails too when double has no numbers; only double is
   * asked to run here.
   */
  sk_test_push_write_and_complete (fixture->fake, "double.py", DOUBLE_SCRIPT,
                                   "Fixed: the script divided by zero.");

  fixture->done = FALSE;
  {
    g_autoptr(GPtrArray) nodes = g_ptr_array_new ();

    g_ptr_array_add (nodes, node (fixture, "load"));
    g_ptr_array_add (nodes, node (fixture, "double"));
    sk_runner_run_async (fixture->runner, fixture->project, nodes, NULL, done_cb, fixture);
    SK_TEST_WAIT_UNTIL (fixture->done, 120000);
  }

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->stats.succeeded, ==, 2);
  g_assert_cmpuint (fixture->stats.failed, ==, 0);
  g_assert_cmpint (sk_node_get_state (node (fixture, "double")), ==, SK_NODE_STATE_SUCCEEDED);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 2);

  /* The repair request carries the error and the failing script. */
  body = request_body (fixture, 0);
  sk_test_assert_contains (body, "ZeroDivisionError");
  sk_test_assert_contains (body, "repair attempt 1 of 2");
  sk_test_assert_contains (body, "1 / 0");

  script = sk_test_read_text (fixture->folder, "double/double.py");
  g_assert_null (strstr (script, "1 / 0"));

  /* The script that failed is kept. */
  g_free (script);
  script = sk_test_read_text (fixture->folder, "double/.skele/previous/double.py");
  g_assert_cmpstr (script, ==, BROKEN_SCRIPT);
}

/* A repair that does not help ends in failure after the allowed attempts. */
static void
test_repair_gives_up (Fixture       *fixture,
                      gconstpointer  data)
{
  sk_test_write_text (fixture->folder, "load/load.py", BROKEN_SCRIPT);
  sk_test_push_write_and_complete (fixture->fake, "load.py", BROKEN_SCRIPT, "Fixed, I think.");
  sk_test_push_write_and_complete (fixture->fake, "load.py", BROKEN_SCRIPT, "Fixed again.");

  run_one (fixture, "load", FALSE);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->stats.failed, ==, 1);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 4);
  g_assert_cmpint (sk_node_get_state (node (fixture, "load")), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_detail (node (fixture, "load")), "ZeroDivisionError");
}

/* A model that never calls task_complete stops at the budget. */
static void
test_budget (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *second = NULL;

  sk_runner_set_agent_options (fixture->runner, 2, 3, TRUE, FALSE, FALSE);
  sk_fake_llm_push_json (fixture->fake,
                         "{\"repeat\": 3, \"parts\": [{\"text\": \"I will think about it.\"}]}", &error);
  g_assert_no_error (error);

  run_one (fixture, "load", FALSE);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->stats.failed, ==, 1);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 3);
  g_assert_cmpint (sk_node_get_state (node (fixture, "load")), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (node (fixture, "load")), "used all 3 of its replies");

  /* Each reply without a tool call was answered with a reminder. */
  second = request_body (fixture, 1);
  sk_test_assert_contains (second, "Your reply had no tool call");
}

/* Paths outside the step's folder are refused, and the model is told. */
static void
test_confinement (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *second = NULL;

  sk_test_push_write (fixture->fake, "../double/double.py", "print('overwritten')\n");
  sk_test_push_write_and_complete (fixture->fake, "load.py", LOAD_SCRIPT, "Done.");

  run_one (fixture, "load", TRUE);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->stats.succeeded, ==, 1);
  g_assert_false (sk_test_exists (fixture->folder, "double/double.py"));
  g_assert_true (sk_test_exists (fixture->folder, "load/load.py"));
  /* Writing code alone runs nothing. */
  g_assert_false (sk_test_exists (fixture->folder, "load/load.pkl"));
  g_assert_cmpint (sk_node_get_state (node (fixture, "load")), ==, SK_NODE_STATE_IDLE);

  second = request_body (fixture, 1);
  sk_test_assert_contains (second, "outside");
}

/* task_complete before the script exists is refused. */
static void
test_complete_without_script (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autofree char *second = NULL;

  sk_test_push_complete (fixture->fake, "All done!");
  sk_test_push_write_and_complete (fixture->fake, "load.py", LOAD_SCRIPT, "Now it is done.");

  run_one (fixture, "load", TRUE);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->stats.succeeded, ==, 1);
  second = request_body (fixture, 1);
  sk_test_assert_contains (second, "load.py does not exist yet");
}

/* A server that takes no tool definitions gets them as text. */
static void
test_text_tools (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) content = json_node_new (JSON_NODE_VALUE);
  g_autoptr(SkLlmClient) client = NULL;
  g_autofree char *reply = NULL;
  g_autofree char *encoded = NULL;
  g_autofree char *scenario = NULL;
  g_autofree char *second = NULL;

  client = sk_llm_client_new (SK_LLM_PROVIDER_OLLAMA,
                              sk_fake_llm_get_base_url (fixture->fake, SK_FAKE_LLM_DIALECT_OLLAMA),
                              "small-model", NULL);
  sk_llm_client_set_max_retries (client, 0);
  sk_runner_set_agent (fixture->runner, client);

  sk_fake_llm_push_json (fixture->fake,
                         "{\"status\": 400, \"error\": {\"message\": \"registry.ollama.ai/library/small-model "
                         "does not support tools\", \"type\": \"api_error\"}}", &error);
  g_assert_no_error (error);

  json_node_set_string (content, LOAD_SCRIPT);
  encoded = json_to_string (content, FALSE);
  reply = g_strdup_printf ("I write the script.\n\n```tool\n{\"tool\": \"write_file\", \"arguments\": "
                           "{\"path\": \"load.py\", \"content\": %s}}\n```\n", encoded);
  json_node_set_string (content, reply);
  g_free (encoded);
  encoded = json_to_string (content, FALSE);
  scenario = g_strdup_printf ("[{\"parts\": [{\"text\": %s}]},"
                              " {\"parts\": [{\"text\": \"Done.\\n```tool\\n{\\\"tool\\\": \\\"task_complete\\\", "
                              "\\\"arguments\\\": {\\\"summary\\\": \\\"Written.\\\"}}\\n```\"}]}]", encoded);
  sk_fake_llm_push_json (fixture->fake, scenario, &error);
  g_assert_no_error (error);

  run_one (fixture, "load", TRUE);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->stats.succeeded, ==, 1);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 3);
  g_assert_true (sk_test_exists (fixture->folder, "load/load.py"));

  /* The second request has no tool definitions, and describes the blocks. */
  second = request_body (fixture, 1);
  g_assert_null (strstr (second, "\"tools\""));
  sk_test_assert_contains (second, "```tool");
}

/* A model that answers native tool definitions with text blocks is told,
 * from then on, how to write them, since no definitions go with it. */
static void
test_text_blocks_for_native_tools (Fixture       *fixture,
                                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) content = json_node_new (JSON_NODE_VALUE);
  g_autofree char *reply = NULL;
  g_autofree char *encoded = NULL;
  g_autofree char *scenario = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  json_node_set_string (content, LOAD_SCRIPT);
  encoded = json_to_string (content, FALSE);
  reply = g_strdup_printf ("```tool\n{\"tool\": \"write_file\", \"arguments\": "
                           "{\"path\": \"load.py\", \"content\": %s}}\n```\n", encoded);
  json_node_set_string (content, reply);
  g_free (encoded);
  encoded = json_to_string (content, FALSE);
  scenario = g_strdup_printf ("[{\"parts\": [{\"text\": %s}]},"
                              " {\"parts\": [{\"text\": \"```tool\\n{\\\"tool\\\": \\\"task_complete\\\", "
                              "\\\"arguments\\\": {\\\"summary\\\": \\\"Written.\\\"}}\\n```\"}]}]", encoded);
  sk_fake_llm_push_json (fixture->fake, scenario, &error);
  g_assert_no_error (error);

  run_one (fixture, "load", TRUE);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->stats.succeeded, ==, 1);
  g_assert_true (sk_test_exists (fixture->folder, "load/load.py"));

  first = request_body (fixture, 0);
  sk_test_assert_contains (first, "\"tools\"");
  g_assert_null (strstr (first, "fenced block whose info string is"));
  second = request_body (fixture, 1);
  g_assert_null (strstr (second, "\"tools\""));
  sk_test_assert_contains (second, "fenced block whose info string is");
}

/* The reviewer refuses one command and allows another. */
static void
test_reviewer (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *review = NULL;
  g_autofree char *after_deny = NULL;
  g_autofree char *after_allow = NULL;

  if (!have_sandbox ())
    return;

  sk_runner_set_agent_options (fixture->runner, 2, 10, TRUE, TRUE, FALSE);

  sk_test_push_call (fixture->fake, "I fetch the data.", "run_command", "command",
                     "curl -s http://example.com/data.csv -o data.csv", NULL, NULL);
  sk_fake_llm_push_json (fixture->fake, "{\"parts\": [{\"text\": \"DENY it downloads from the network\"}]}", &error);
  g_assert_no_error (error);
  sk_test_push_call (fixture->fake, "I check the folder instead.", "run_command", "command", "echo reviewed-and-run", NULL, NULL);
  sk_fake_llm_push_json (fixture->fake, "{\"parts\": [{\"text\": \"ALLOW it only prints a word\"}]}", &error);
  g_assert_no_error (error);
  sk_test_push_write_and_complete (fixture->fake, "load.py", LOAD_SCRIPT, "Done.");

  run_one (fixture, "load", TRUE);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->stats.succeeded, ==, 1);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 6);

  /* The reviewer is asked with its own prompt, and no tools. */
  review = request_body (fixture, 1);
  sk_test_assert_contains (review, "curl -s http://example.com/data.csv");
  sk_test_assert_contains (review, "Network access allowed for this step: no");
  g_assert_null (strstr (review, "\"tools\""));

  after_deny = request_body (fixture, 2);
  sk_test_assert_contains (after_deny, "A security reviewer refused this command: it downloads from the network");
  g_assert_false (sk_test_exists (fixture->folder, "load/data.csv"));

  after_allow = request_body (fixture, 4);
  sk_test_assert_contains (after_allow, "reviewed-and-run");
}

/* Old, long tool results are shortened so that a long session fits. */
static void
test_long_session (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GString) big = g_string_new (NULL);
  g_autofree char *second = NULL;
  g_autofree char *last = NULL;

  for (guint i = 0; i < 400; i++)
    g_string_append_printf (big, "line %u of the data UNIQUE-%u\n", i, i);
  sk_test_write_text (fixture->folder, "load/data.txt", big->str);

  sk_test_push_call (fixture->fake, "I read the data.", "read_file", "path", "data.txt", NULL, NULL);
  for (guint i = 0; i < 5; i++)
    sk_test_push_call (fixture->fake, "I look around.", "list_dir", "path", ".", NULL, NULL);
  sk_test_push_write_and_complete (fixture->fake, "load.py", LOAD_SCRIPT, "Done.");

  run_one (fixture, "load", TRUE);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->stats.succeeded, ==, 1);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 8);

  second = request_body (fixture, 1);
  sk_test_assert_contains (second, "UNIQUE-399");
  last = request_body (fixture, 7);
  sk_test_assert_contains (last, "shortened to save space");
  sk_test_assert_contains (last, "UNIQUE-1\\n");
  g_assert_null (strstr (last, "UNIQUE-399"));
}

/* The server being down fails the step with the client's message. */
static void
test_server_down (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(SkLlmClient) client = sk_llm_client_new (SK_LLM_PROVIDER_OPENAI, "http://127.0.0.1:9/v1",
                                                     "fake", NULL);

  sk_llm_client_set_max_retries (client, 0);
  sk_runner_set_agent (fixture->runner, client);
  run_one (fixture, "load", FALSE);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->stats.failed, ==, 1);
  sk_test_assert_contains (sk_node_get_error_text (node (fixture, "load")), "Could not reach");
  sk_test_assert_contains (sk_node_get_error_text (node (fixture, "load")), "127.0.0.1:9");
}

static int
spawn_skele (Fixture            *fixture,
             const char * const *args,
             gboolean     configured,
             char       **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_ptr_array_add (argv, (char *) g_getenv ("SKELE_BIN"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);

  envp = g_environ_unsetenv (envp, "SKELE_LLM_MODEL");
  if (configured)
    {
      envp = g_environ_setenv (envp, "SKELE_LLM_PROVIDER", "openai", TRUE);
      envp = g_environ_setenv (envp, "SKELE_LLM_BASE_URL",
                               sk_fake_llm_get_base_url (fixture->fake, SK_FAKE_LLM_DIALECT_OPENAI), TRUE);
      envp = g_environ_setenv (envp, "SKELE_LLM_MODEL", "fake-coder", TRUE);
    }
  envp = g_environ_setenv (envp, "SKELE_LLM_API_KEY", "sk-secret-test-key", TRUE);
  envp = g_environ_setenv (envp, "SKELE_PYTHON", "/usr/bin/python3", TRUE);
  envp = g_environ_setenv (envp, "LC_ALL", "C.UTF-8", TRUE);

  g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_STDOUT_TO_DEV_NULL,
                NULL, NULL, NULL, err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));

  return WEXITSTATUS (status);
}

/* skele generate writes the missing code; skele run then runs it. */
static void
test_cli (Fixture       *fixture,
          gconstpointer  data)
{
  g_autofree char *err = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *body = NULL;
  g_autofree char *log = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  SkFakeLlmRequest *request;
  int status;

  g_assert_nonnull (g_getenv ("SKELE_BIN"));

  /* Without a model, generate says how to choose one. */
  status = spawn_skele (fixture, SK_TEST_STRV ("generate", fixture->folder), FALSE, &err);
  g_assert_cmpint (status, ==, 2);
  sk_test_assert_contains (err, "SKELE_LLM_MODEL");
  g_clear_pointer (&err, g_free);

  sk_test_push_write_and_complete (fixture->fake, "load.py", LOAD_SCRIPT, "The step produces the numbers.");
  sk_test_push_write_and_complete (fixture->fake, "double.py", DOUBLE_SCRIPT, "The step doubles them.");

  status = spawn_skele (fixture, SK_TEST_STRV ("generate", "--node", "load", "--node", "double",
                                               fixture->folder), TRUE, &err);
  g_assert_cmpint (status, ==, 0);
  sk_test_assert_contains (err, "fake-coder");
  sk_test_assert_contains (err, "The step doubles them.");
  g_assert_true (sk_test_exists (fixture->folder, "load/load.py"));
  g_assert_true (sk_test_exists (fixture->folder, "double/double.py"));
  g_assert_false (sk_test_exists (fixture->folder, "report/report.py"));
  g_assert_false (sk_test_exists (fixture->folder, "load/load.pkl"));
  g_clear_pointer (&err, g_free);

  /* The key goes to the server, and nowhere else. */
  requests = sk_fake_llm_dup_requests (fixture->fake);
  request = g_ptr_array_index (requests, 0);
  g_assert_cmpstr (soup_message_headers_get_one (request->headers, "Authorization"), ==,
                   "Bearer sk-secret-test-key");
  saved = sk_test_read_text (fixture->folder, "process.json");
  sk_test_assert_contains (saved, "\"tokens\"");
  g_assert_null (strstr (saved, "sk-secret-test-key"));
  log = sk_test_read_text (fixture->folder, "load/.skele/agent.log");
  g_assert_null (strstr (log, "sk-secret-test-key"));

  /* run writes the last step's code, then runs all three. */
  sk_test_push_write_and_complete (fixture->fake, "report.py", REPORT_SCRIPT, "The step writes the total.");
  status = spawn_skele (fixture, SK_TEST_STRV ("run", fixture->folder), TRUE, &err);
  g_assert_cmpint (status, ==, 0);
  sk_test_assert_contains (err, "Writing the code of “report”");
  body = sk_test_read_text (fixture->folder, "report/total.txt");
  g_assert_cmpstr (body, ==, "12");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 6);
}

#define EMPTY_TASK_JSON \
  "{\"process_name\": \"empty\", \"nodes\": {" \
  "  \"1\": {\"name\": \"vague\", \"priors\": [], \"run\": true," \
  "         \"input\": {\"text\": \" \\n \"}}}}"

/* A step with no task is not sent to the model: there is nothing to write
 * its code from, and tokens would be spent for nothing. */
static void
test_empty_task (Fixture       *fixture,
                 gconstpointer  data)
{
  run (fixture, FALSE);
  g_assert_true (fixture->ok);
  g_assert_cmpuint (fixture->stats.failed, ==, 1);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fixture->fake), ==, 0);
  g_assert_cmpint (sk_node_get_state (node (fixture, "vague")), ==, SK_NODE_STATE_FAILED);
  sk_test_assert_contains (sk_node_get_error_text (node (fixture, "vague")), "has no task yet");
  g_assert_false (sk_test_exists (fixture->folder, "vague/vague.py"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/agent/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("generate-and-run", test_generate_and_run);
  ADD ("repair", test_repair);
  ADD ("repair-gives-up", test_repair_gives_up);
  ADD ("budget", test_budget);
  ADD ("confinement", test_confinement);
  ADD ("complete-without-script", test_complete_without_script);
  ADD ("text-tools", test_text_tools);
  ADD ("text-blocks-for-native-tools", test_text_blocks_for_native_tools);
  ADD ("server-down", test_server_down);
  ADD ("cli", test_cli);
  ADD ("reviewer", test_reviewer);
  ADD ("long-session", test_long_session);
  g_test_add ("/agent/empty-task", Fixture, EMPTY_TASK_JSON, fixture_set_up, test_empty_task, fixture_tear_down);

#undef ADD

  return g_test_run ();
}
