/* test-chat-session.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chat of an open workflow: the conversation kept in .skele/chat.json,
 * the proposal kept across turns, and accepting it as one undo step or
 * rejecting it, with the model set up as the coding agent's, from the
 * environment, and played by the fake server.
 */

#define G_LOG_DOMAIN "test-chat-session"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "sk-chat-agent.h"
#include "sk-chat-session.h"
#include "sk-fake-llm.h"
#include "sk-settings.h"
#include "sk-step-folder.h"
#include "sk-test-util.h"

#define WORKFLOW_JSON \
  "{\"process_name\": \"Report\", \"process_description\": \"Monthly report\"," \
  " \"nodes\": {" \
  "  \"1\": {\"name\": \"Load\", \"priors\": [], \"run\": true," \
  "         \"input\": {\"text\": \"Read sales.csv\"}}," \
  "  \"2\": {\"name\": \"Clean\", \"priors\": [\"1\"], \"run\": true," \
  "         \"input\": {\"text\": \"Drop empty rows\"}}," \
  "  \"3\": {\"name\": \"Chart\", \"priors\": [\"2\"], \"run\": true," \
  "         \"input\": {\"text\": \"Plot totals\"}}}}"

#define ADD_MESSAGE "Add a summary after Clean, and an export after it."

typedef struct
{
  char           *dir;
  GFile          *folder;
  GSettings      *settings;
  SkFakeLlm      *fake;
  SkWorkspace    *workspace;
  SkChatSession  *session;
  char           *reply;
  guint64         tokens_in;
  guint64         tokens_out;
  GError         *error;
  gboolean        done;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  gboolean saved = data == NULL;
  g_autoptr(GError) error = NULL;

  f->dir = sk_test_make_tmp_dir ("chat-session");
  f->folder = g_file_new_for_path (f->dir);
  f->settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  g_settings_set_string (f->settings, "llm-model", "");

  /* The chat agent uses the coding agent's settings; here they come from
   * the environment, as for skele run. */
  f->fake = sk_fake_llm_new ();
  sk_fake_llm_set_recycle (f->fake, FALSE);
  g_setenv ("SKELE_LLM_PROVIDER", "openai", TRUE);
  g_setenv ("SKELE_LLM_BASE_URL", sk_fake_llm_get_base_url (f->fake, SK_FAKE_LLM_DIALECT_OPENAI),
            TRUE);
  g_setenv ("SKELE_LLM_MODEL", "fake-chat", TRUE);
  g_setenv ("SKELE_LLM_API_KEY", "sk-test-key", TRUE);

  if (saved)
    {
      sk_test_write_text (f->dir, "process.json", WORKFLOW_JSON);
      f->workspace = sk_workspace_load (f->folder, f->settings, &error);
    }
  else
    {
      g_autoptr(SkProject) project = sk_project_load_from_data (WORKFLOW_JSON, -1, f->folder,
                                                                &error);

      g_assert_no_error (error);
      f->workspace = sk_workspace_new (project, f->settings);
    }
  g_assert_no_error (error);
  sk_workspace_set_autosave (f->workspace, FALSE);
  f->session = sk_chat_session_new (f->workspace);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_assert_finalize_object (f->session);
  sk_workspace_close (f->workspace);
  g_assert_finalize_object (f->workspace);
  sk_fake_llm_free (f->fake);
  sk_test_remove_tree (f->dir);
  g_clear_object (&f->folder);
  g_clear_object (&f->settings);
  g_clear_pointer (&f->reply, g_free);
  g_clear_error (&f->error);
  g_free (f->dir);
  g_unsetenv ("SKELE_LLM_PROVIDER");
  g_unsetenv ("SKELE_LLM_BASE_URL");
  g_unsetenv ("SKELE_LLM_MODEL");
  g_unsetenv ("SKELE_LLM_API_KEY");
}

static void
send_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Fixture *f = user_data;

  f->reply = sk_chat_session_send_finish (SK_CHAT_SESSION (object), result, &f->tokens_in,
                                          &f->tokens_out, &f->error);
  f->done = TRUE;
}

static void
send_cancellable (Fixture      *f,
                  const char   *message,
                  GCancellable *cancellable)
{
  f->done = FALSE;
  f->tokens_in = f->tokens_out = 0;
  g_clear_pointer (&f->reply, g_free);
  g_clear_error (&f->error);
  sk_chat_session_send_async (f->session, message, NULL, cancellable, send_cb, f);
  /* Only a turn without a model ends at once. */
  g_assert_true (sk_chat_session_get_busy (f->session) || g_getenv ("SKELE_LLM_MODEL") == NULL);
  SK_TEST_WAIT_UNTIL (f->done, 60000);
  g_assert_false (sk_chat_session_get_busy (f->session));
}

static void
send (Fixture    *f,
      const char *message)
{
  send_cancellable (f, message, NULL);
}

static void
push (Fixture    *f,
      const char *scenario)
{
  g_autoptr(GError) error = NULL;

  sk_fake_llm_push (f->fake, scenario, &error);
  g_assert_no_error (error);
}

static void
push_call (Fixture    *f,
           const char *tool,
           const char *first_argument,
           const char *first_value,
           const char *second_argument,
           const char *second_value)
{
  g_autoptr(GError) error = NULL;

  sk_fake_llm_push_tool_call (f->fake, "Well.", tool, first_argument, first_value,
                              second_argument, second_value, &error);
  g_assert_no_error (error);
}

static char *
read_process (Fixture *f)
{
  return sk_test_read_text (f->dir, "process.json");
}

static char *
project_data (Fixture *f)
{
  return sk_project_to_data (sk_workspace_get_project (f->workspace), NULL);
}

static void
assert_turn (SkChatLog  *log,
             guint       index,
             const char *role,
             const char *words)
{
  const SkChatTurn *turn;

  g_assert_cmpuint (index, <, sk_chat_log_get_n_turns (log));
  turn = sk_chat_log_get_turn (log, index);
  g_assert_cmpstr (turn->role, ==, role);
  sk_test_assert_contains (turn->text, words);
}

static char *
last_request (Fixture *f)
{
  g_autoptr(GPtrArray) requests = sk_fake_llm_dup_requests (f->fake);
  SkFakeLlmRequest *request;

  g_assert_cmpuint (requests->len, >, 0);
  request = g_ptr_array_index (requests, requests->len - 1);
  return g_strndup (g_bytes_get_data (request->body, NULL), g_bytes_get_size (request->body));
}

/* A turn is kept in the log with its tokens, and on disk. */
static void
test_turn_logged (Fixture       *f,
                  gconstpointer  data)
{
  SkChatLog *log = sk_chat_session_get_log (f->session);
  SkChangeset *changeset;
  g_autoptr(SkChatLog) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *summary = NULL;
  const SkChatTurn *turn;
  guint64 tokens_in, tokens_out;

  g_assert_null (sk_chat_session_get_changeset (f->session));
  push (f, "chat-add-steps-fragments");
  send (f, ADD_MESSAGE);

  g_assert_no_error (f->error);
  g_assert_cmpstr (f->reply, ==, "I propose Summary and Export, connected.");
  g_assert_cmpuint (f->tokens_in, ==, 760);
  g_assert_cmpuint (f->tokens_out, ==, 52);

  changeset = sk_chat_session_get_changeset (f->session);
  g_assert_nonnull (changeset);
  summary = sk_changeset_describe (changeset);
  sk_test_assert_contains (summary, "Added 2 steps (“Summary”, “Export”)");
  /* Nothing is applied yet. */
  g_assert_null (sk_project_get_node (sk_workspace_get_project (f->workspace), "4"));

  g_assert_cmpuint (sk_chat_log_get_n_turns (log), ==, 3);
  assert_turn (log, 0, "user", ADD_MESSAGE);
  assert_turn (log, 1, "assistant", "I propose Summary and Export, connected.");
  turn = sk_chat_log_get_turn (log, 1);
  g_assert_cmpuint (turn->tokens_in, ==, 760);
  g_assert_cmpuint (turn->tokens_out, ==, 52);
  assert_turn (log, 2, "tool", summary);
  sk_chat_log_get_tokens (log, &tokens_in, &tokens_out);
  g_assert_cmpuint (tokens_in, ==, 760);
  g_assert_cmpuint (tokens_out, ==, 52);

  /* The log is on disk, never in process.json. */
  g_assert_true (sk_test_exists (f->dir, ".skele/chat.json"));
  reloaded = sk_chat_log_load (f->folder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_chat_log_get_n_turns (reloaded), ==, 3);
  assert_turn (reloaded, 1, "assistant", "I propose Summary and Export, connected.");
  g_assert_cmpuint (sk_chat_log_get_turn (reloaded, 1)->tokens_in, ==, 760);
  {
    g_autofree char *process = read_process (f);

    g_assert_null (strstr (process, "I propose"));
  }
}

/* A workflow not saved yet keeps its conversation in memory only. */
static void
test_unsaved_workflow (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  push (f, "chat-claims-without-changes");
  send (f, "Delete Clean and Chart.");

  g_assert_no_error (f->error);
  g_assert_cmpstr (f->reply, ==, "Done! I deleted the steps Clean and Chart.");
  /* The model's claim proposes nothing. */
  g_assert_null (sk_chat_session_get_changeset (f->session));
  g_assert_cmpuint (sk_chat_log_get_n_turns (sk_chat_session_get_log (f->session)), ==, 2);
  g_assert_false (sk_test_exists (f->dir, ".skele/chat.json"));
  g_assert_false (sk_test_exists (f->dir, ".skele"));
  g_assert_false (sk_test_exists (f->dir, "process.json"));

  /* Once the workflow is saved, so is its conversation. */
  g_assert_true (sk_workspace_save (f->workspace, &error));
  g_assert_no_error (error);
  g_assert_true (sk_test_exists (f->dir, ".skele/chat.json"));
  {
    g_autoptr(SkChatLog) kept = sk_chat_log_load (sk_workspace_get_folder (f->workspace), &error);

    g_assert_no_error (error);
    g_assert_cmpuint (sk_chat_log_get_n_turns (kept), ==, 2);
  }
}

/* "Also…" adds to the proposal still waiting. */
static void
test_proposal_across_turns (Fixture       *f,
                            gconstpointer  data)
{
  SkChangeset *first;
  SkChangeset *second;
  g_autofree char *summary = NULL;
  g_autofree char *body = NULL;
  g_autoptr(GError) error = NULL;
  SkNode *archive;

  push (f, "chat-add-steps-fragments");
  send (f, ADD_MESSAGE);
  g_assert_no_error (f->error);
  first = sk_chat_session_get_changeset (f->session);
  g_assert_nonnull (first);

  /* The new step needs Export, which exists only in the proposal. */
  sk_fake_llm_push_json (f->fake,
                         "{\"parts\": [{\"tool_call\": {\"id\": \"c1\", \"name\": \"add_step\", "
                         "\"arguments\": [\"{\\\"name\\\": \\\"Archive\\\", "
                         "\\\"task\\\": \\\"Zip sum.csv\\\", "
                         "\\\"priors\\\": [\\\"export\\\"]}\"]}}]}", NULL);
  push_call (f, "finish", "summary", "I also propose Archive.", NULL, NULL);
  send (f, "Also archive the export.");

  g_assert_no_error (f->error);
  g_assert_cmpstr (f->reply, ==, "I also propose Archive.");
  second = sk_chat_session_get_changeset (f->session);
  g_assert_true (second == first);
  summary = sk_changeset_describe (second);
  sk_test_assert_contains (summary, "Added 3 steps (“Summary”, “Export”, “Archive”)");
  archive = sk_project_get_node (sk_changeset_get_scratch (second), "6");
  g_assert_nonnull (archive);
  g_assert_true (g_strv_equal (sk_node_get_priors (archive), SK_TEST_STRV ("5")));

  /* The model saw the earlier turn and the pending proposal in the outline. */
  body = last_request (f);
  sk_test_assert_contains (body, "Also archive the export.");
  sk_test_assert_contains (body, "I propose Summary and Export, connected.");
  sk_test_assert_contains (body, "5 export");
  g_assert_cmpuint (sk_chat_log_get_n_turns (sk_chat_session_get_log (f->session)), ==, 6);

  /* Accepted whole, the three steps come in together. */
  g_assert_true (sk_chat_session_accept (f->session, &error));
  g_assert_no_error (error);
  g_assert_nonnull (sk_project_get_node (sk_workspace_get_project (f->workspace), "6"));
  assert_turn (sk_chat_session_get_log (f->session), 6, "tool",
               "Proposal accepted:\nAdded the step “Summary”.\n"
               "Added the step “Export”.\nAdded the step “Archive”.\n");
}

/* Accepting is one undo step; a step turned off is left out. */
static void
test_accept_undo (Fixture       *f,
                  gconstpointer  data)
{
  SkHistory *history = sk_workspace_get_history (f->workspace);
  SkProject *project = sk_workspace_get_project (f->workspace);
  SkChangeset *changeset;
  g_autofree char *before = project_data (f);
  g_autofree char *after = NULL;
  g_autofree char *undone = NULL;
  g_autoptr(GError) error = NULL;
  SkChatLog *log = sk_chat_session_get_log (f->session);

  push (f, "chat-add-steps-fragments");
  send (f, ADD_MESSAGE);
  g_assert_no_error (f->error);
  changeset = sk_chat_session_get_changeset (f->session);
  g_assert_nonnull (changeset);
  g_assert_false (sk_history_get_can_undo (history));

  sk_changeset_set_step_accepted (changeset, "5", FALSE);
  g_assert_false (sk_changeset_get_step_accepted (changeset, "5"));
  g_assert_true (sk_chat_session_accept (f->session, &error));
  g_assert_no_error (error);
  g_assert_null (sk_chat_session_get_changeset (f->session));

  g_assert_nonnull (sk_project_get_node (project, "4"));
  g_assert_cmpstr (sk_node_get_name (sk_project_get_node (project, "4")), ==, "Summary");
  g_assert_true (sk_node_has_prior (sk_project_get_node (project, "4"), "2"));
  g_assert_null (sk_project_get_node (project, "5"));
  /* The next turn's model is told what was left out. */
  assert_turn (log, sk_chat_log_get_n_turns (log) - 1, "tool",
               "Proposal accepted in part. Applied:\n"
               "Added the step “Summary”.\n"
               "Connected “Clean” to “Summary”.\n"
               "Left out:\n"
               "Added the step “Export”.\n"
               "Connected “Summary” to “Export”.");

  after = project_data (f);
  g_assert_cmpstr (after, !=, before);
  g_assert_true (sk_history_get_can_undo (history));
  g_assert_cmpstr (sk_history_get_undo_label (history), ==, "Apply Chat Changes");
  g_assert_true (sk_history_undo (history));
  undone = project_data (f);
  g_assert_cmpstr (undone, ==, before);
  /* One step: nothing is left to undo. */
  g_assert_false (sk_history_get_can_undo (history));
}

/* Rejecting leaves the workflow on disk exactly as it was. */
static void
test_reject (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *before = read_process (f);
  g_autofree char *data_before = project_data (f);
  g_autofree char *after = NULL;
  g_autofree char *data_after = NULL;
  SkChatLog *log = sk_chat_session_get_log (f->session);

  push (f, "chat-add-steps-fragments");
  send (f, ADD_MESSAGE);
  g_assert_no_error (f->error);
  g_assert_nonnull (sk_chat_session_get_changeset (f->session));

  sk_chat_session_reject (f->session);
  g_assert_null (sk_chat_session_get_changeset (f->session));
  assert_turn (log, sk_chat_log_get_n_turns (log) - 1, "tool", "Proposal rejected.");
  /* Rejecting nothing adds nothing. */
  sk_chat_session_reject (f->session);
  assert_turn (log, sk_chat_log_get_n_turns (log) - 2, "tool", "Proposed, not decided yet");

  after = read_process (f);
  g_assert_cmpstr (after, ==, before);
  data_after = project_data (f);
  g_assert_cmpstr (data_after, ==, data_before);
  g_assert_false (sk_history_get_can_undo (sk_workspace_get_history (f->workspace)));
}

/* The person's own edit after the proposal wins, and the proposal waits. */
static void
test_accept_conflict (Fixture       *f,
                      gconstpointer  data)
{
  SkProject *project = sk_workspace_get_project (f->workspace);
  SkHistory *history = sk_workspace_get_history (f->workspace);
  g_autoptr(GError) error = NULL;
  g_autofree char *edited = NULL;
  g_autofree char *after = NULL;

  push_call (f, "rename_step", "step", "clean", "name", "Tidy");
  push_call (f, "finish", "summary", "I propose the name Tidy.", NULL, NULL);
  send (f, "Call Clean Tidy.");
  g_assert_no_error (f->error);
  g_assert_nonnull (sk_chat_session_get_changeset (f->session));

  sk_history_begin (history, "Rename");
  sk_node_set_name (sk_project_get_node (project, "2"), "Scrub");
  sk_history_end (history);
  edited = project_data (f);

  g_assert_false (sk_chat_session_accept (f->session, &error));
  g_assert_nonnull (error);
  g_assert_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID);
  sk_test_assert_contains (error->message,
                           "“Scrub” was changed while the chat was working: its name changed.");
  g_assert_nonnull (sk_chat_session_get_changeset (f->session));
  after = project_data (f);
  g_assert_cmpstr (after, ==, edited);
  g_assert_cmpstr (sk_history_get_undo_label (history), ==, "Rename");

  /* As the message says, turning that step off lets the rest through:
   * here, nothing, and the person's name stays. */
  g_clear_error (&error);
  sk_changeset_set_step_accepted (sk_chat_session_get_changeset (f->session), "2", FALSE);
  g_assert_true (sk_chat_session_accept (f->session, &error));
  g_assert_no_error (error);
  g_clear_pointer (&after, g_free);
  after = project_data (f);
  g_assert_cmpstr (after, ==, edited);
  /* Applying nothing leaves no empty undo step. */
  g_assert_cmpstr (sk_history_get_undo_label (history), ==, "Rename");
  assert_turn (sk_chat_session_get_log (f->session),
               sk_chat_log_get_n_turns (sk_chat_session_get_log (f->session)) - 1,
               "tool", "Proposal rejected, every change turned off:\nRenamed “Clean” to "
                       "“Tidy”.");
}

static void
test_not_configured (Fixture       *f,
                     gconstpointer  data)
{
  SkChatLog *log = sk_chat_session_get_log (f->session);

  g_unsetenv ("SKELE_LLM_MODEL");
  send (f, "Hello?");

  g_assert_error (f->error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED);
  g_assert_null (f->reply);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (f->fake), ==, 0);
  sk_test_assert_contains (f->error->message, "SKELE_LLM_MODEL");
  /* The message went nowhere, so the conversation is as it was. */
  g_assert_cmpuint (sk_chat_log_get_n_turns (log), ==, 0);
  g_assert_null (sk_chat_session_get_changeset (f->session));
  g_assert_false (sk_chat_session_get_busy (f->session));
}

/* Something in the conversation's place that is not one is put aside,
 * never written over, and the person is told. */
static void
test_unreadable_log (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(SkChatSession) session = NULL;
  g_autoptr(GFile) file = sk_step_folder_get_chat_log (sk_workspace_get_folder (f->workspace));
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *aside = g_strconcat (path, ".broken", NULL);
  g_autofree char *inside = g_build_filename (path, "keep.txt", NULL);
  g_autofree char *kept = g_build_filename (aside, "keep.txt", NULL);

  g_assert_cmpint (g_mkdir_with_parents (path, 0755), ==, 0);
  g_assert_true (g_file_set_contents (inside, "mine", -1, NULL));

  session = sk_chat_session_new (f->workspace);
  g_assert_nonnull (sk_chat_session_get_warning (session));
  sk_test_assert_contains (sk_chat_session_get_warning (session), "could not be read");

  g_clear_object (&f->session);
  f->session = g_steal_pointer (&session);
  push (f, "chat-claims-without-changes");
  send (f, "Hello?");
  g_assert_no_error (f->error);
  g_assert_true (g_file_test (kept, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpuint (sk_chat_log_get_n_turns (sk_chat_session_get_log (f->session)), ==, 2);
}

/* A server that takes no tool definitions is asked in text from the
 * second turn on, without a refused request each time. */
static void
test_text_tools_remembered (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *body = NULL;

  sk_fake_llm_push_json (f->fake,
                         "{\"status\": 400, \"error\": {\"message\": \"this model does not support tools\","
                         " \"type\": \"invalid_request_error\"}}", &error);
  g_assert_no_error (error);
  sk_fake_llm_push_json (f->fake, "{\"parts\": [{\"text\": \"Three steps.\"}]}", &error);
  g_assert_no_error (error);
  send (f, "How many steps are there?");
  g_assert_no_error (f->error);
  g_assert_cmpstr (f->reply, ==, "Three steps.");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (f->fake), ==, 2);

  sk_fake_llm_push_json (f->fake, "{\"parts\": [{\"text\": \"Still three.\"}]}", &error);
  g_assert_no_error (error);
  send (f, "And now?");
  g_assert_no_error (f->error);
  g_assert_cmpstr (f->reply, ==, "Still three.");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (f->fake), ==, 3);
  body = last_request (f);
  g_assert_null (strstr (body, "\"tools\""));
  sk_test_assert_contains (body, "fenced block");
}

/* Saved elsewhere, the workflow takes its conversation along. */
static void
test_save_as (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = sk_test_make_tmp_dir ("skele-chat-save-as");
  g_autofree char *target = g_build_filename (dir, "copy", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (target);
  g_autoptr(SkChatLog) kept = NULL;

  push (f, "chat-claims-without-changes");
  send (f, "Delete Clean and Chart.");
  g_assert_no_error (f->error);

  g_assert_true (sk_workspace_save_as (f->workspace, folder, &error));
  g_assert_no_error (error);
  kept = sk_chat_log_load (folder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_chat_log_get_n_turns (kept), ==, 2);

  /* The next turn goes there too. */
  push (f, "chat-claims-without-changes");
  send (f, "Really?");
  g_assert_no_error (f->error);
  g_clear_pointer (&kept, sk_chat_log_free);
  kept = sk_chat_log_load (folder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_chat_log_get_n_turns (kept), ==, 4);

  sk_test_remove_tree (dir);
}

/* A new session reads the conversation back. */
static void
test_reload (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(SkChatSession) again = NULL;
  SkChatLog *log;

  push (f, "chat-claims-without-changes");
  send (f, "Delete Clean and Chart.");
  g_assert_no_error (f->error);

  again = sk_chat_session_new (f->workspace);
  log = sk_chat_session_get_log (again);
  g_assert_null (sk_chat_log_get_warning (log));
  g_assert_cmpuint (sk_chat_log_get_n_turns (log), ==, 2);
  assert_turn (log, 0, "user", "Delete Clean and Chart.");
  assert_turn (log, 1, "assistant", "Done! I deleted the steps Clean and Chart.");

  /* The conversation goes on from there. */
  g_clear_object (&f->session);
  f->session = g_steal_pointer (&again);
  push (f, "chat-claims-without-changes");
  send (f, "Really?");
  g_assert_no_error (f->error);
  {
    g_autofree char *body = last_request (f);

    sk_test_assert_contains (body, "Delete Clean and Chart.");
  }
}

/* When the model fails, the person's message stays, on disk too. */
static void
test_failed_turn (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(SkChatLog) reloaded = NULL;
  SkChatLog *log = sk_chat_session_get_log (f->session);

  push (f, "unauthorized");
  send (f, "UNIQUE-LOST-MESSAGE");

  g_assert_error (f->error, SK_LLM_ERROR, SK_LLM_ERROR_AUTH);
  g_assert_null (sk_chat_session_get_changeset (f->session));
  assert_turn (log, 0, "user", "UNIQUE-LOST-MESSAGE");
  assert_turn (log, 1, "tool", "The chat agent stopped:");

  reloaded = sk_chat_log_load (f->folder, NULL);
  g_assert_nonnull (reloaded);
  assert_turn (reloaded, 0, "user", "UNIQUE-LOST-MESSAGE");
}

/* A turn that runs out of replies keeps what it proposed for review. */
static void
test_budget (Fixture       *f,
             gconstpointer  data)
{
  SkChangeset *changeset;

  sk_chat_session_set_max_steps (f->session, 2);
  push_call (f, "add_step", "name", "Summary", "task", "Sum");
  push (f, "chat-never-finishes");
  send (f, "Add a summary.");

  g_assert_error (f->error, SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_BUDGET);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (f->fake), ==, 2);
  changeset = sk_chat_session_get_changeset (f->session);
  g_assert_nonnull (changeset);
  g_assert_nonnull (sk_project_get_node (sk_changeset_get_scratch (changeset), "4"));
}

/* A server on this computer needs no key: without one in the environment
 * or a keyring to ask, the turn goes ahead without it. */
static void
test_without_key (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GPtrArray) requests = NULL;
  SkFakeLlmRequest *request;

  g_unsetenv ("SKELE_LLM_API_KEY");
  push (f, "chat-claims-without-changes");
  send (f, "Hello?");

  g_assert_no_error (f->error);
  g_assert_cmpstr (f->reply, ==, "Done! I deleted the steps Clean and Chart.");
  requests = sk_fake_llm_dup_requests (f->fake);
  g_assert_cmpuint (requests->len, ==, 1);
  request = g_ptr_array_index (requests, 0);
  g_assert_null (soup_message_headers_get_one (request->headers, "Authorization"));
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

/* Stopping a turn says so in the conversation, after the message. */
static void
test_cancel (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  SkChatLog *log = sk_chat_session_get_log (f->session);

  push (f, "silent-stream");
  g_timeout_add (100, cancel_cb, cancellable);
  send_cancellable (f, "UNIQUE-STOPPED-MESSAGE", cancellable);

  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (sk_chat_log_get_n_turns (log), ==, 2);
  assert_turn (log, 0, "user", "UNIQUE-STOPPED-MESSAGE");
  assert_turn (log, 1, "tool", "The chat agent was stopped.");
  g_assert_null (sk_chat_session_get_changeset (f->session));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/chat-session/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("turn-logged", test_turn_logged);
  g_test_add ("/chat-session/unsaved-workflow", Fixture, "unsaved", fixture_set_up,
              test_unsaved_workflow, fixture_tear_down);
  ADD ("proposal-across-turns", test_proposal_across_turns);
  ADD ("accept-undo", test_accept_undo);
  ADD ("reject", test_reject);
  ADD ("accept-conflict", test_accept_conflict);
  ADD ("not-configured", test_not_configured);
  ADD ("unreadable-log", test_unreadable_log);
  ADD ("text-tools-remembered", test_text_tools_remembered);
  ADD ("save-as", test_save_as);
  ADD ("reload", test_reload);
  ADD ("failed-turn", test_failed_turn);
  ADD ("budget", test_budget);
  ADD ("without-key", test_without_key);
  ADD ("cancel", test_cancel);

#undef ADD

  return g_test_run ();
}
