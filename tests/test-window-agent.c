/* test-window-agent.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The coding agent in the main window, played by the fake LLM server:
 * writing code before a run, rewriting a step's code, writing only the
 * missing code, stopping it, and what the window says without a model.
 */

#define G_LOG_DOMAIN "test-window-agent"

#include <string.h>

#include "sk-code-cell-private.h"
#include "sk-test-agent.h"
#include "sk-test-window.h"

#define HELLO_SCRIPT \
  SK_TEST_STEP_SCRIPT ("Says hello.", \
                       "    state['output'] = {'task_status': 'success', 'greeting': 'hello'}\n" \
                       "    summary('Task completed successfully')\n")

static gpointer
output_child (SkWindow   *window,
              const char *name)
{
  GtkWidget *cell = GTK_WIDGET (_sk_window_get_output_cell (window));
  GObject *child = gtk_widget_get_template_child (cell, SK_TYPE_OUTPUT_CELL, name);

  g_assert_nonnull (child);
  return child;
}

static guint
count_children (GtkWidget *widget)
{
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n++;

  return n;
}

/* What the window showed while a step's code was being written. */
typedef struct
{
  SkWindow *window;
  SkNode   *node;
  GArray   *states;
  GPtrArray *lines_while_writing;
  gboolean  spinner_while_writing;
  gboolean  progress_named_step;
} Watch;

static void
watch_state_cb (SkNode     *node,
                GParamSpec *pspec,
                Watch      *watch)
{
  SkNodeState state = sk_node_get_state (node);

  g_array_append_val (watch->states, state);
}

static void
watch_line_cb (GtkLabel   *label,
               GParamSpec *pspec,
               Watch      *watch)
{
  const char *text = gtk_label_get_label (label);

  if (sk_node_get_state (watch->node) != SK_NODE_STATE_WRITING_CODE || text[0] == '\0')
    return;

  g_ptr_array_add (watch->lines_while_writing, g_strdup (text));
  if (gtk_spinner_get_spinning (output_child (watch->window, "agent_spinner")) &&
      gtk_widget_get_visible (output_child (watch->window, "agent_box")))
    watch->spinner_while_writing = TRUE;
}

static void
watch_progress_cb (GtkProgressBar *bar,
                   GParamSpec     *pspec,
                   Watch          *watch)
{
  g_autofree char *expected = g_strdup_printf ("Writing the code of “%s”", sk_node_get_name (watch->node));

  if (gtk_progress_bar_get_text (bar) != NULL &&
      strstr (gtk_progress_bar_get_text (bar), expected) != NULL)
    watch->progress_named_step = TRUE;
}

static void
watch_start (Watch    *watch,
             SkWindow *window,
             SkNode   *node)
{
  watch->window = window;
  watch->node = node;
  watch->states = g_array_new (FALSE, FALSE, sizeof (SkNodeState));
  watch->lines_while_writing = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (node, "notify::state", G_CALLBACK (watch_state_cb), watch);
  g_signal_connect (output_child (window, "agent_latest_label"), "notify::label",
                    G_CALLBACK (watch_line_cb), watch);
  g_signal_connect (template_child (window, "progress_bar"), "notify::text",
                    G_CALLBACK (watch_progress_cb), watch);
}

static gboolean
watch_saw (Watch       *watch,
           SkNodeState  state)
{
  for (guint i = 0; i < watch->states->len; i++)
    if (g_array_index (watch->states, SkNodeState, i) == state)
      return TRUE;

  return FALSE;
}

static void
watch_stop (Watch *watch)
{
  g_signal_handlers_disconnect_by_data (watch->node, watch);
  g_signal_handlers_disconnect_by_data (output_child (watch->window, "agent_latest_label"), watch);
  g_signal_handlers_disconnect_by_data (template_child (watch->window, "progress_bar"), watch);
  g_array_unref (watch->states);
  g_ptr_array_unref (watch->lines_while_writing);
}

static void
test_agent_run (Fixture       *f,
                gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *node;
  SkFakeLlm *fake;
  Watch watch = { 0 };
  g_autofree char *script = NULL;
  g_autoptr(SkProject) saved = NULL;
  guint64 read, written;

  if (skip_without_python ())
    return;

  use_python ();
  fake = use_agent ();
  window = new_window ();
  project = create_and_open (window, f, "agent");
  node = add_step (project, "1", "hello");
  sk_node_set_input_text (node, "Say hello.");
  sk_canvas_select_node (_sk_window_get_canvas (window), node);
  g_assert_false (gtk_widget_get_visible (output_child (window, "agent_box")));
  g_assert_false (gtk_widget_get_visible (output_child (window, "tokens_label")));
  g_assert_false (gtk_widget_get_visible (step_list_child (window, "tokens_label")));

  sk_test_push_write_and_complete (fake, "hello.py", HELLO_SCRIPT, "The step says hello.");
  watch_start (&watch, window, node);

  activate (window, "run");
  g_assert_true (_sk_window_is_running (window));
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);

  /* The agent wrote the script, then the step ran. */
  if (sk_node_get_state (node) != SK_NODE_STATE_SUCCEEDED)
    g_error ("hello ended %s: %s", sk_node_state_to_string (sk_node_get_state (node)),
             sk_node_get_error_text (node));
  g_assert_true (watch_saw (&watch, SK_NODE_STATE_WRITING_CODE));
  g_assert_true (watch_saw (&watch, SK_NODE_STATE_RUNNING));
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 2);
  script = sk_test_read_text (f->dir, "agent/hello/hello.py");
  g_assert_cmpstr (script, ==, HELLO_SCRIPT);
  sk_test_assert_contains (_sk_window_get_last_toast (window), "Run finished: 1 step succeeded");
  sk_test_assert_contains (_sk_window_get_last_toast (window), "The coding agent wrote the code of 1 step");
  g_assert_null (_sk_window_get_last_toast_action (window));

  /* Its progress showed live in the output cell, and what it said last
   * stays there. */
  g_assert_true (watch.progress_named_step);
  g_assert_true (watch.spinner_while_writing);
  g_assert_cmpuint (watch.lines_while_writing->len, >=, 2);
  g_assert_true (g_ptr_array_find_with_equal_func (watch.lines_while_writing, "I am writing the script.",
                                                   g_str_equal, NULL));
  g_assert_true (gtk_widget_get_visible (output_child (window, "agent_box")));
  g_assert_cmpstr (gtk_label_get_label (output_child (window, "agent_latest_label")), ==,
                   "The step says hello.");
  g_assert_false (gtk_spinner_get_spinning (output_child (window, "agent_spinner")));
  /* Every line is in the list, however fast they came. */
  g_assert_cmpuint (count_children (output_child (window, "agent_list")), >=,
                    watch.lines_while_writing->len);

  /* Two replies of 100 tokens read and 20 written, for the step and the
   * whole workflow, kept in process.json. */
  sk_node_get_tokens (node, &read, &written);
  g_assert_cmpuint (read, ==, 200);
  g_assert_cmpuint (written, ==, 40);
  g_assert_true (gtk_widget_get_visible (output_child (window, "tokens_label")));
  g_assert_cmpstr (gtk_label_get_label (output_child (window, "tokens_label")), ==,
                   "200 tokens read, 40 written");
  g_assert_true (gtk_widget_get_visible (step_list_child (window, "tokens_label")));
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (step_list_child (window, "tokens_label"))), ==,
                   "All steps: 200 tokens read, 40 written");
  saved = load_from_disk (sk_project_get_folder (project));
  sk_node_get_tokens (sk_project_get_node (saved, "1"), &read, &written);
  g_assert_cmpuint (read, ==, 200);

  /* The next run clears the log; the step is up to date, so the agent
   * is not asked again. */
  activate (window, "run");
  g_assert_false (gtk_widget_get_visible (output_child (window, "agent_box")));
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);
  g_assert_cmpint (sk_node_get_state (node), ==, SK_NODE_STATE_UP_TO_DATE);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 2);
  g_assert_false (gtk_widget_get_visible (output_child (window, "agent_box")));
  g_assert_true (gtk_widget_get_visible (output_child (window, "tokens_label")));

  watch_stop (&watch);
  destroy_window (window);
  forget_agent (fake);
  forget_python ();
}

static gboolean
code_cell_shows (SkWindow   *window,
                 const char *expected)
{
  SkCodeCell *cell = _sk_window_get_code_cell (window);
  GObject *view = gtk_widget_get_template_child (GTK_WIDGET (cell), SK_TYPE_CODE_CELL, "view");
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  g_autofree char *text = NULL;
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);

  /* The buffer leaves out the file's last newline, and fills up while the
   * file loads, before the cell knows that there is a script. */
  return sk_code_cell_get_has_script (cell) &&
         g_str_has_prefix (expected, text) && strlen (expected) - strlen (text) <= 1 &&
         !sk_code_cell_get_modified (cell);
}

static void
test_agent_regenerate (Fixture       *f,
                       gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *node;
  SkFakeLlm *fake;
  AdwMessageDialog *dialog;
  Watch watch = { 0 };
  g_autofree char *script = NULL;
  g_autofree char *previous = NULL;
  const char *old_script = "print ('the old script')\n";

  if (skip_without_python ())
    return;

  use_python ();
  fake = use_agent ();
  window = new_window ();
  project = create_and_open (window, f, "agent");
  node = add_step (project, "1", "hello");
  sk_test_write_text (f->dir, "agent/hello/hello.py", old_script);
  sk_canvas_select_node (_sk_window_get_canvas (window), node);
  SK_TEST_WAIT_UNTIL (code_cell_shows (window, old_script), WAIT_MS);
  g_assert_true (action_enabled (window, "regenerate-code"));

  /* The code cell's button asks the window. */
  {
    GObject *button = gtk_widget_get_template_child (GTK_WIDGET (_sk_window_get_code_cell (window)),
                                                     SK_TYPE_CODE_CELL, "regenerate_button");

    g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (button)));
    g_signal_emit_by_name (button, "clicked");
  }
  dialog = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  sk_test_assert_contains (adw_message_dialog_get_body (dialog), "hello/.skele/previous/hello.py");
  sk_test_assert_contains (adw_message_dialog_get_body (dialog), "nothing is lost");

  /* Cancelling changes nothing. */
  respond (dialog, "_Cancel");
  drain ();
  g_assert_false (_sk_window_is_running (window));
  g_assert_false (exists_in (f, "agent/hello/.skele/previous/hello.py"));
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 0);

  sk_test_push_write_and_complete (fake, "hello.py", HELLO_SCRIPT, "The step now says hello properly.");
  watch_start (&watch, window, node);

  activate (window, "regenerate-code");
  dialog = ADW_MESSAGE_DIALOG (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  respond (dialog, "_Regenerate");
  SK_TEST_WAIT_UNTIL (_sk_window_get_last_toast (window) != NULL &&
                      g_str_has_prefix (_sk_window_get_last_toast (window), "Code written"), RUN_WAIT_MS);
  g_assert_false (_sk_window_is_running (window));
  sk_test_assert_contains (_sk_window_get_last_toast (window), "1 step got new code");

  /* The old script is kept; the new one is in its place and shown. */
  previous = sk_test_read_text (f->dir, "agent/hello/.skele/previous/hello.py");
  g_assert_cmpstr (previous, ==, old_script);
  script = sk_test_read_text (f->dir, "agent/hello/hello.py");
  g_assert_cmpstr (script, ==, HELLO_SCRIPT);
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 2);
  SK_TEST_WAIT_UNTIL (code_cell_shows (window, HELLO_SCRIPT), WAIT_MS);

  /* Writing code runs nothing. */
  g_assert_true (watch_saw (&watch, SK_NODE_STATE_WRITING_CODE));
  g_assert_false (watch_saw (&watch, SK_NODE_STATE_RUNNING));
  g_assert_false (exists_in (f, "agent/hello/hello.pkl"));
  g_assert_cmpuint (watch.lines_while_writing->len, >=, 2);
  g_assert_cmpstr (gtk_label_get_label (output_child (window, "agent_latest_label")), ==,
                   "The step now says hello properly.");

  watch_stop (&watch);
  destroy_window (window);
  forget_agent (fake);
  forget_python ();
}

static void
test_agent_write_missing (Fixture       *f,
                          gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *hello;
  SkNode *done;
  SkFakeLlm *fake;
  g_autofree char *script = NULL;
  g_autofree char *kept = NULL;

  if (skip_without_python ())
    return;

  use_python ();
  fake = use_agent ();
  window = new_window ();
  project = create_and_open (window, f, "agent");
  hello = add_step (project, "1", "hello");
  done = add_step (project, "2", "done");
  sk_test_write_text (f->dir, "agent/done/done.py", "print ('done')\n");

  sk_test_push_write_and_complete (fake, "hello.py", HELLO_SCRIPT, "The step says hello.");

  /* The way the shortcut reaches the action. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.generate-code", NULL));
  g_assert_true (_sk_window_is_running (window));
  g_assert_false (action_enabled (window, "generate-code"));
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), RUN_WAIT_MS);

  g_assert_cmpstr (_sk_window_get_last_toast (window), ==, "Code written: 1 step got new code");
  script = sk_test_read_text (f->dir, "agent/hello/hello.py");
  g_assert_cmpstr (script, ==, HELLO_SCRIPT);
  kept = sk_test_read_text (f->dir, "agent/done/done.py");
  g_assert_cmpstr (kept, ==, "print ('done')\n");
  g_assert_cmpuint (sk_fake_llm_get_n_requests (fake), ==, 2);
  g_assert_cmpint (sk_node_get_state (hello), ==, SK_NODE_STATE_IDLE);
  g_assert_cmpint (sk_node_get_state (done), ==, SK_NODE_STATE_IDLE);
  g_assert_false (exists_in (f, "agent/hello/hello.pkl"));

  /* Nothing is missing any more. */
  activate (window, "generate-code");
  g_assert_false (_sk_window_is_running (window));
  g_assert_cmpstr (_sk_window_get_last_toast (window), ==, "Every step has code already");

  destroy_window (window);
  forget_agent (fake);
  forget_python ();
}

static void
test_agent_stop (Fixture       *f,
                 gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *node;
  SkFakeLlm *fake;
  g_autoptr(GError) error = NULL;
  gint64 stopped_at;

  if (skip_without_python ())
    return;

  use_python ();
  fake = use_agent ();
  window = new_window ();
  project = create_and_open (window, f, "agent");
  node = add_step (project, "1", "hello");

  /* A model that takes its time. */
  sk_fake_llm_push_json (fake, "{\"parts\": [{\"text\": \"Hm\", \"delay_ms\": 30000}]}", &error);
  g_assert_no_error (error);

  activate (window, "generate-code");
  SK_TEST_WAIT_UNTIL (sk_node_get_state (node) == SK_NODE_STATE_WRITING_CODE &&
                      sk_fake_llm_get_n_requests (fake) == 1, WAIT_MS);
  g_assert_true (action_enabled (window, "stop"));
  g_assert_false (action_enabled (window, "regenerate-code"));

  stopped_at = g_get_monotonic_time ();
  activate (window, "stop");
  SK_TEST_WAIT_UNTIL (!_sk_window_is_running (window), 10000);
  g_assert_cmpint (g_get_monotonic_time () - stopped_at, <, 10 * G_USEC_PER_SEC);

  g_assert_cmpint (sk_node_get_state (node), ==, SK_NODE_STATE_CANCELLED);
  g_assert_true (g_str_has_prefix (_sk_window_get_last_toast (window), "Writing code stopped"));
  g_assert_false (exists_in (f, "agent/hello/hello.py"));
  g_assert_true (action_enabled (window, "run"));

  destroy_window (window);
  forget_agent (fake);
  forget_python ();
}

/* Without a model the window says what a coding agent would do, and how to
 * set one up, instead of trying. */
static void
test_agent_not_set_up (Fixture       *f,
                       gconstpointer  data)
{
  SkWindow *window;
  SkProject *project;
  SkNode *node;
  g_autofree char *script = NULL;

  forget_agent (NULL);
  window = new_window ();
  project = create_and_open (window, f, "agent");
  node = add_step (project, "1", "hello");
  sk_test_write_text (f->dir, "agent/hello/hello.py", "print ('old')\n");
  add_step (project, "2", "no code");
  sk_canvas_select_node (_sk_window_get_canvas (window), node);
  SK_TEST_WAIT_UNTIL (code_cell_shows (window, "print ('old')\n"), WAIT_MS);

  activate (window, "regenerate-code");
  g_assert_null (find_dialog (window, ADW_TYPE_MESSAGE_DIALOG));
  sk_test_assert_contains (_sk_window_get_last_toast (window), "No coding agent is set up");
  g_assert_cmpstr (_sk_window_get_last_toast_action (window), ==, "app.agent-preferences");
  drain ();
  script = sk_test_read_text (f->dir, "agent/hello/hello.py");
  g_assert_cmpstr (script, ==, "print ('old')\n");
  g_assert_false (exists_in (f, "agent/hello/.skele/previous/hello.py"));

  sk_window_show_toast (window, "something else");
  g_assert_null (_sk_window_get_last_toast_action (window));

  activate (window, "generate-code");
  g_assert_false (_sk_window_is_running (window));
  sk_test_assert_contains (_sk_window_get_last_toast (window), "No coding agent is set up");
  g_assert_cmpstr (_sk_window_get_last_toast_action (window), ==, "app.agent-preferences");

  destroy_window (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!sk_test_window_init (&argc, &argv))
    return 0;

  SK_TEST_WINDOW_ADD ("agent/run", test_agent_run);
  SK_TEST_WINDOW_ADD ("agent/regenerate", test_agent_regenerate);
  SK_TEST_WINDOW_ADD ("agent/write-missing", test_agent_write_missing);
  SK_TEST_WINDOW_ADD ("agent/stop", test_agent_stop);
  SK_TEST_WINDOW_ADD ("agent/not-set-up", test_agent_not_set_up);

  return sk_test_window_run ();
}
