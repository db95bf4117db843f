/* test-window-chat.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Chat mode in the main window, with the fake LLM server as the chat
 * agent: showing and hiding the chat, Explain This Failure, a draft on an
 * empty workflow accepted and arranged, a proposal that meets the
 * person's own edit, and a chat without a model.
 */

#define G_LOG_DOMAIN "test-window-chat"

#include <string.h>

#include "sk-test-agent.h"
#include "sk-test-window.h"

static gpointer
pane_child (SkWindow   *window,
            const char *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (window->chat_pane), SK_TYPE_CHAT_PANE, name);

  g_assert_nonnull (child);
  return child;
}

static void
wait_for_answer (SkWindow *window)
{
  SkChatSession *session = sk_chat_pane_get_session (window->chat_pane);

  g_assert_nonnull (session);
  SK_TEST_WAIT_UNTIL (!sk_chat_session_get_busy (session), WAIT_MS);
  /* The pane shows the answer when the turn's callback has run. */
  SK_TEST_WAIT_UNTIL (gtk_widget_get_visible (pane_child (window, "send_button")), WAIT_MS);
  drain ();
}

static void
push (SkFakeLlm  *fake,
      const char *tool,
      const char *arguments)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
  g_autofree char *encoded = NULL;
  g_autofree char *json = NULL;

  json_node_set_string (node, arguments);
  encoded = json_to_string (node, FALSE);
  json = g_strdup_printf ("{\"usage\": {\"prompt_tokens\": 500, \"completion_tokens\": 40},"
                          " \"parts\": [{\"tool_call\": {\"id\": \"call_%s\", \"name\": \"%s\","
                          " \"arguments\": [%s]}}]}", tool, tool, encoded);
  sk_fake_llm_push_json (fake, json, &error);
  g_assert_no_error (error);
}

/* As a click does: at once, where Enter on a button waits for its
 * animation. */
static void
click (GtkWidget *button)
{
  g_assert_true (gtk_widget_is_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
}

static char *
last_request (SkFakeLlm *fake)
{
  g_autoptr(GPtrArray) requests = sk_fake_llm_dup_requests (fake);
  SkFakeLlmRequest *request;

  g_assert_cmpuint (requests->len, >, 0);
  request = g_ptr_array_index (requests, requests->len - 1);
  return g_strndup (g_bytes_get_data (request->body, NULL), g_bytes_get_size (request->body));
}

static guint
count_messages (SkWindow *window)
{
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (pane_child (window, "messages"));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_get_visible (child))
      n++;

  return n;
}

/* The header's button and the shortcut's action show and hide the chat,
 * and the keyboard goes to its entry. */
static void
test_toggle (Fixture       *f,
             gconstpointer  data)
{
  SkWindow *window = new_window ();
  GtkWidget *button = template_child (window, "chat_button");

  g_assert_false (gtk_widget_get_visible (button));
  create_and_open (window, f, "toggle");
  g_assert_true (gtk_widget_get_visible (button));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->chat_pane)));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-chat", NULL));
  drain ();
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->chat_pane)));
  g_assert_true (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (button)));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == pane_child (window, "entry_view"));

  /* From inside the chat, the shortcut hides it and gives the canvas the
   * keyboard. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-chat", NULL));
  drain ();
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->chat_pane)));
  g_assert_false (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (button)));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == GTK_WIDGET (_sk_window_get_canvas (window)));

  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (button), TRUE);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->chat_pane)));

  destroy_window (window);
}

/* Explain This Failure opens the chat with the step selected and asks why
 * it failed; the agent reads the step's log. */
static void
test_explain_failure (Fixture       *f,
                      gconstpointer  data)
{
  SkFakeLlm *fake = use_agent ();
  SkWindow *window = new_window ();
  SkProject *project = create_and_open (window, f, "explain");
  SkNode *node = add_step (project, "1", "load numbers");
  g_autofree char *body = NULL;
  GtkWidget *explain;

  sk_node_set_state (node, SK_NODE_STATE_FAILED);
  sk_node_set_error (node, "FileNotFoundError: numbers.csv", NULL);
  sk_canvas_select_node (_sk_window_get_canvas (window), node);
  drain ();

  explain = (GtkWidget *) gtk_widget_get_template_child (GTK_WIDGET (_sk_window_get_output_cell (window)),
                                                         SK_TYPE_OUTPUT_CELL, "explain_button");
  g_assert_true (gtk_widget_get_visible (explain));

  push (fake, "read_log", "{\"step\": \"1\"}");
  push (fake, "finish", "{\"summary\": \"The file **numbers.csv** is missing.\"}");
  click (explain);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->chat_pane)));
  wait_for_answer (window);

  g_assert_true (sk_canvas_get_selected_node (_sk_window_get_canvas (window)) == node);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 2);
  body = last_request (fake);
  sk_test_assert_contains (body, "Why did the step “load numbers” fail");
  sk_test_assert_contains (body, "Selected: 1 load_numbers");
  sk_test_assert_contains (body, "FileNotFoundError: numbers.csv");
  /* The question, the answer, and nothing proposed. */
  g_assert_cmpuint (count_messages (window), ==, 2);
  g_assert_false (gtk_widget_get_visible (pane_child (window, "proposal_revealer")));
  g_assert_null (sk_canvas_get_proposal (_sk_window_get_canvas (window)));

  destroy_window (window);
  forget_agent (fake);
}

/* On an empty workflow the chat drafts it; the draft is drawn, accepted,
 * then arranged. */
static void
test_draft (Fixture       *f,
            gconstpointer  data)
{
  SkFakeLlm *fake = use_agent ();
  SkWindow *window = new_window ();
  SkProject *project = create_and_open (window, f, "draft");
  SkCanvas *canvas = _sk_window_get_canvas (window);
  GtkWidget *hint = template_child (window, "canvas_hint");
  SkNode *first, *second;
  double x1, y1, x2, y2;

  g_assert_true (gtk_widget_get_visible (hint));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.describe-workflow", NULL));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->chat_pane)));
  g_assert_cmpstr (gtk_label_get_label (pane_child (window, "placeholder_label")), ==,
                   "Describe what the workflow should do…");

  push (fake, "add_step", "{\"name\": \"load sales\", \"task\": \"Read sales.csv.\"}");
  push (fake, "add_step", "{\"name\": \"totals\", \"task\": \"Add up the sales.\", \"priors\": [\"1\"]}");
  push (fake, "finish", "{\"summary\": \"Two steps.\"}");
  sk_chat_pane_send (window->chat_pane, "Add up our sales.");
  wait_for_answer (window);

  /* Drawn, listed, and nothing changed yet. */
  g_assert_nonnull (sk_canvas_get_proposal (canvas));
  g_assert_false (gtk_widget_get_visible (hint));
  g_assert_true (gtk_widget_get_visible (pane_child (window, "proposal_revealer")));
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 0);

  /* Laid out first, then applied. */
  click (pane_child (window, "accept_button"));
  SK_TEST_WAIT_UNTIL (sk_project_get_n_nodes (project) == 2, WAIT_MS);
  drain ();
  g_assert_null (sk_canvas_get_proposal (canvas));
  g_assert_false (gtk_widget_get_visible (pane_child (window, "proposal_revealer")));
  sk_test_assert_contains (_sk_window_get_last_toast (window), "Draft accepted");

  /* Arranged: the prior apart from its successor, by Graphviz's spacing. */
  first = sk_project_get_node_by_key (project, "load_sales");
  second = sk_project_get_node_by_key (project, "totals");
  g_assert_nonnull (first);
  g_assert_nonnull (second);
  g_assert_true (sk_node_get_position (first, &x1, &y1));
  g_assert_true (sk_node_get_position (second, &x2, &y2));
  g_assert_true (y2 > y1 + 60 || x2 > x1 + 60);
  g_assert_cmpstr (gtk_label_get_label (pane_child (window, "placeholder_label")), ==,
                   "Ask or describe a change…");

  /* The draft, arrangement and all, is one step of the undo history. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.undo", NULL));
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 0);

  destroy_window (window);
  forget_agent (fake);
}

/* A step turned off is left out; the person's own edit of a step the
 * proposal changes is kept, and accepting says why it cannot. */
static void
test_conflict_and_partial (Fixture       *f,
                           gconstpointer  data)
{
  SkFakeLlm *fake = use_agent ();
  SkWindow *window = new_window ();
  SkProject *project = create_and_open (window, f, "conflict");
  SkHistory *history = _sk_window_get_history (window);
  SkNode *load = add_step (project, "1", "load");
  GtkWidget *conflict = pane_child (window, "conflict_label");
  GtkListBox *list = pane_child (window, "proposal_list");
  GtkWidget *row;
  GtkWidget *check = NULL;

  push (fake, "rename_step", "{\"step\": \"load\", \"name\": \"read\"}");
  push (fake, "add_step", "{\"name\": \"chart\", \"task\": \"Draw a chart.\", \"priors\": [\"1\"]}");
  push (fake, "finish", "{\"summary\": \"Renamed and a chart.\"}");
  sk_chat_pane_send (window->chat_pane, "Rename load to read and add a chart.");
  wait_for_answer (window);

  /* The person renames the step meanwhile. */
  sk_history_begin (history, "Rename");
  sk_node_set_name (load, "fetch");
  sk_history_end (history);

  click (pane_child (window, "accept_button"));
  g_assert_true (gtk_widget_get_visible (conflict));
  sk_test_assert_contains (gtk_label_get_label (GTK_LABEL (conflict)), "“fetch” was changed while the chat was working");
  g_assert_cmpstr (sk_node_get_name (load), ==, "fetch");
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 1);
  g_assert_nonnull (sk_canvas_get_proposal (_sk_window_get_canvas (window)));

  /* Turning the renamed step off leaves the new step to accept. */
  for (row = gtk_widget_get_first_child (GTK_WIDGET (list)); row != NULL; row = gtk_widget_get_next_sibling (row))
    if (g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), "read") == 0)
      check = g_object_get_data (G_OBJECT (row), "check");
  g_assert_nonnull (check);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), FALSE);
  g_assert_cmpstr (gtk_button_get_label (pane_child (window, "accept_button")), ==, "_Accept Selected");
  sk_test_assert_contains (gtk_label_get_label (pane_child (window, "proposal_title")),
                           "1 step is turned off and will stay as it is.");

  click (pane_child (window, "accept_button"));
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 2);
  g_assert_cmpstr (sk_node_get_name (load), ==, "fetch");
  g_assert_nonnull (sk_project_get_node_by_key (project, "chart"));

  /* One undo takes the accepted part back. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.undo", NULL));
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 1);
  g_assert_cmpstr (sk_node_get_name (load), ==, "fetch");

  destroy_window (window);
  forget_agent (fake);
}

/* Stop ends a slow answer at once; what the person asked stays in the
 * conversation, and the chat can be asked again. */
static void
test_stop (Fixture       *f,
           gconstpointer  data)
{
  SkFakeLlm *fake = use_agent ();
  SkWindow *window = new_window ();
  SkChatSession *session;
  g_autoptr(GError) error = NULL;
  gint64 start;

  create_and_open (window, f, "stop");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-chat", NULL);
  session = sk_chat_pane_get_session (window->chat_pane);
  sk_fake_llm_push (fake, "slow-stream", &error);
  g_assert_no_error (error);

  sk_chat_pane_send (window->chat_pane, "Take your time.");
  g_assert_true (sk_chat_session_get_busy (session));
  g_assert_true (gtk_widget_get_visible (pane_child (window, "stop_button")));
  g_assert_false (gtk_widget_get_visible (pane_child (window, "send_button")));
  SK_TEST_WAIT_UNTIL (sk_fake_llm_get_n_requests (fake) == 1, WAIT_MS);

  start = g_get_monotonic_time ();
  click (pane_child (window, "stop_button"));
  wait_for_answer (window);
  /* The stream had seconds to go. */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
  sk_test_assert_contains (gtk_label_get_label (GTK_LABEL (gtk_widget_get_last_child (pane_child (window, "messages")))),
                           "Stopped");
  g_assert_cmpuint (sk_chat_log_get_n_turns (sk_chat_session_get_log (session)), ==, 2);
  g_assert_cmpstr (sk_chat_log_get_turn (sk_chat_session_get_log (session), 0)->text, ==, "Take your time.");

  push (fake, "finish", "{\"summary\": \"Here I am.\"}");
  sk_chat_pane_send (window->chat_pane, "Still there?");
  wait_for_answer (window);
  g_assert_cmpuint (sk_chat_log_get_n_turns (sk_chat_session_get_log (session)), ==, 4);

  destroy_window (window);
  forget_agent (fake);
}

/* Without a model the message is not lost: it waits in the entry, and the
 * chat offers Preferences. */
static void
test_not_set_up (Fixture       *f,
                 gconstpointer  data)
{
  SkWindow *window = new_window ();
  GtkTextBuffer *buffer;
  g_autofree char *text = NULL;
  GtkTextIter start, end;
  GtkWidget *last;
  GtkWidget *button;

  create_and_open (window, f, "no-model");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-chat", NULL);
  buffer = gtk_text_view_get_buffer (pane_child (window, "entry_view"));
  gtk_text_buffer_set_text (buffer, "What does this do?", -1);
  click (pane_child (window, "send_button"));
  wait_for_answer (window);

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_cmpstr (text, ==, "What does this do?");
  g_assert_cmpuint (sk_chat_log_get_n_turns (sk_chat_session_get_log (sk_chat_pane_get_session (window->chat_pane))),
                    ==, 0);

  last = gtk_widget_get_last_child (pane_child (window, "messages"));
  button = gtk_widget_get_last_child (last);
  g_assert_true (GTK_IS_BUTTON (button));
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, "app.preferences");

  destroy_window (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!sk_test_window_init (&argc, &argv))
    return 0;

  SK_TEST_WINDOW_ADD ("chat/toggle", test_toggle);
  SK_TEST_WINDOW_ADD ("chat/explain-failure", test_explain_failure);
  SK_TEST_WINDOW_ADD ("chat/draft", test_draft);
  SK_TEST_WINDOW_ADD ("chat/conflict-and-partial", test_conflict_and_partial);
  SK_TEST_WINDOW_ADD ("chat/stop", test_stop);
  SK_TEST_WINDOW_ADD ("chat/not-set-up", test_not_set_up);

  return sk_test_window_run ();
}
