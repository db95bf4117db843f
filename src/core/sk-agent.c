/* sk-agent.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The coding agent writes or repairs the script of one step. It shows the
 * model the step's Markov blanket and lets it act only through the tools of
 * SkAgentTools, one reply at a time, until it calls task_complete or uses up
 * its replies. Tools are offered as native tool calls; when the server says
 * it does not take them, or the model answers with fenced `tool` blocks
 * anyway, the text form is used instead.
 */

#define G_LOG_DOMAIN "sk-agent"

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-agent.h"
#include "sk-json.h"
#include "sk-util.h"
#include "sk-prompts.h"
#include "sk-step-folder.h"

/* How much of each tool result goes into the agent's log. */
#define LOG_RESULT_LENGTH 2000
/* Messages older than the last few are shortened to this many bytes, so
 * that a long session does not outgrow the model's context: what they held
 * is on disk and can be read again.
 */
#define RECENT_MESSAGES 8
#define OLD_MESSAGE_LENGTH 1500

struct _SkAgent
{
  GObject         parent_instance;

  SkLlmClient    *client;
  SkLlmClient    *reviewer;
  SkProject      *project;
  SkNode         *node;

  guint           max_steps;
  char           *python;
  char           *sandbox_python;
  SkAgentContextScope  scope;
  SkSandboxKind   sandbox;
  gboolean        allow_unsandboxed;
  gboolean        allow_network;
  gboolean        text_tools;

  gboolean        repair;
  char           *error_text;
  char           *traceback;
  char           *stderr_tail;
  guint           attempt;
  guint           max_attempts;

  /* One run. */
  GTask          *task;
  SkAgentTools   *tools;
  GPtrArray      *definitions;
  char           *system;
  GPtrArray      *messages;
  GPtrArray      *calls;
  guint           call_index;
  GString        *text_results;
  char           *summary;
  GString        *log;
  guint           steps;
  guint64         prompt_tokens;
  guint64         completion_tokens;
};

G_DEFINE_FINAL_TYPE (SkAgent, sk_agent, G_TYPE_OBJECT)

G_DEFINE_QUARK (sk-agent-error-quark, sk_agent_error)

enum {
  PROGRESS,
  TRANSIENT,
  USAGE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void agent_step (SkAgent *self);
static void agent_next_call (SkAgent *self);

static void
progress (SkAgent    *self,
          const char *message)
{
  g_string_append_printf (self->log, "· %s\n", message);
  g_signal_emit (self, signals[PROGRESS], 0, message);
}

static void
record_usage (SkAgent             *self,
              const SkLlmResponse *response)
{
  if (response == NULL || !response->usage.known)
    return;

  self->prompt_tokens += response->usage.prompt_tokens;
  self->completion_tokens += response->usage.completion_tokens;
  sk_node_add_tokens (self->node, response->usage.prompt_tokens, response->usage.completion_tokens);
  g_signal_emit (self, signals[USAGE], 0, response->usage.prompt_tokens, response->usage.completion_tokens);
}

static char *
workflow_path (SkAgent *self)
{
  return g_file_get_path (sk_project_get_folder (self->project));
}

static char *
node_path (SkAgent *self)
{
  g_autoptr(GFile) folder = sk_project_get_node_folder (self->project, self->node);

  return g_file_get_path (folder);
}

static char *
read_script (SkAgent *self)
{
  g_autoptr(GFile) script = sk_project_get_node_script (self->project, self->node);
  g_autofree char *path = g_file_get_path (script);
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;

  return contents;
}

static void
write_log (SkAgent *self)
{
  GFile *workflow = sk_project_get_folder (self->project);
  const char *key = sk_node_get_key (self->node);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;

  /* A step without a key has no folder to keep the log in. */
  if (workflow == NULL || *key == '\0')
    return;

  file = sk_step_folder_get_file (workflow, key, SK_STEP_FILE_AGENT_LOG);
  path = g_file_get_path (file);
  dir = g_path_get_dirname (path);

  if (g_mkdir_with_parents (dir, 0755) != 0 ||
      !g_file_set_contents (path, self->log->str, self->log->len, &error))
    g_debug ("Could not write the agent's log %s: %s", path,
             error != NULL ? error->message : g_strerror (errno));
}

/* A repair rewrites a script that someone may have worked on; the version
 * that failed is kept where the window's Clear and Regenerate keeps it.
 */
static void
keep_previous_script (SkAgent *self)
{
  GFile *workflow = sk_project_get_folder (self->project);
  const char *key = sk_node_get_key (self->node);
  g_autoptr(GFile) copy = sk_step_folder_get_file (workflow, key, SK_STEP_FILE_PREVIOUS_SCRIPT);
  g_autofree char *copy_path = g_file_get_path (copy);
  g_autoptr(GError) error = NULL;

  if (!sk_step_folder_copy_to_previous (workflow, key, &error))
    g_string_append_printf (self->log, "Could not keep a copy of the failed script: %s\n",
                            error->message);
  else
    g_string_append_printf (self->log, "The failed script is kept as %s.\n", copy_path);
}

static void
finish_run (SkAgent *self,
            GError  *error)
{
  GTask *task = g_steal_pointer (&self->task);

  if (error != NULL)
    g_string_append_printf (self->log, "\nStopped: %s\n", error->message);
  else
    g_string_append_printf (self->log, "\nFinished: %s\n", self->summary);
  write_log (self);

  g_clear_object (&self->tools);
  g_clear_pointer (&self->calls, g_ptr_array_unref);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_strdup (self->summary), g_free);

  g_object_unref (task);
}

static GHashTable *
prompt_values (SkAgent *self)
{
  GHashTable *values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  const char * const *files = sk_node_get_input_files (self->node);
  g_autoptr(GError) error = NULL;
  char *context;

  g_hash_table_insert (values, "process_name", g_strdup (sk_project_get_name (self->project)));
  g_hash_table_insert (values, "process_description", g_strdup (sk_project_get_description (self->project)));
  g_hash_table_insert (values, "node_name", g_strdup (sk_node_get_name (self->node)));
  g_hash_table_insert (values, "node_key", g_strdup (sk_node_get_key (self->node)));
  g_hash_table_insert (values, "node_description", g_strdup (sk_node_get_description (self->node)));
  g_hash_table_insert (values, "input_files",
                       files != NULL ? g_strjoinv ("\n", (char **) files) : g_strdup (""));
  g_hash_table_insert (values, "task", g_strdup (sk_node_get_input_text (self->node)));
  g_hash_table_insert (values, "python",
                       g_strdup (self->sandbox_python != NULL ? self->sandbox_python : self->python));
  g_hash_table_insert (values, self->text_tools ? "text_tools" : "native_tools", g_strdup ("yes"));
  g_hash_table_insert (values, "max_steps", g_strdup_printf ("%u", self->max_steps));

  context = sk_agent_context_build (self->project, self->node, self->scope, &error);
  g_hash_table_insert (values, "context", context != NULL ? context : g_strdup (""));

  return values;
}

static gboolean
build_prompts (SkAgent  *self,
               GError  **error)
{
  g_autoptr(GHashTable) values = prompt_values (self);
  g_autofree char *first = NULL;

  g_clear_pointer (&self->system, g_free);
  self->system = sk_prompts_render ("node-agent", values, error);
  if (self->system == NULL)
    return FALSE;

  if (self->repair)
    {
      g_autofree char *script = read_script (self);

      g_hash_table_insert (values, "error_text", g_strdup (self->error_text));
      g_hash_table_insert (values, "traceback", g_strdup (self->traceback));
      g_hash_table_insert (values, "stderr_tail", g_strdup (self->stderr_tail));
      g_hash_table_insert (values, "script", g_steal_pointer (&script));
      if (self->attempt > 0)
        g_hash_table_insert (values, "attempt", g_strdup_printf ("%u", self->attempt));
      if (self->max_attempts > 0)
        g_hash_table_insert (values, "max_attempts", g_strdup_printf ("%u", self->max_attempts));

      first = sk_prompts_render ("repair", values, error);
      if (first == NULL)
        return FALSE;
    }
  else
    first = g_strdup ("Write the script for this step now, following the instructions.");

  g_ptr_array_set_size (self->messages, 0);
  g_ptr_array_add (self->messages, sk_llm_message_new (SK_LLM_ROLE_USER, first));

  return TRUE;
}

/* The first line of what the model said before its tool call, for the user. */
static char *
first_line (const char *text)
{
  g_auto(GStrv) lines = NULL;

  if (text == NULL)
    return NULL;

  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);

      if (g_str_has_prefix (line, "```") || g_str_has_prefix (line, "~~~"))
        break;
      if (*line != '\0')
        {
          if (g_utf8_strlen (line, -1) > 200)
            {
              g_autofree char *cut = g_utf8_substring (line, 0, 199);

              return g_strconcat (cut, "…", NULL);
            }
          return g_strdup (line);
        }
    }

  return NULL;
}

static void
add_result (SkAgent             *self,
            const SkLlmToolCall *call,
            const char          *text,
            gboolean             is_error)
{
  g_string_append_printf (self->log, "  → %s%.*s%s\n", is_error ? "error: " : "",
                          LOG_RESULT_LENGTH, text,
                          strlen (text) > LOG_RESULT_LENGTH ? " […]" : "");

  if (self->text_tools)
    g_string_append_printf (self->text_results, "Result of `%s`%s:\n%s\n\n",
                            call->name, is_error ? " (failed)" : "", text);
  else
    g_ptr_array_add (self->messages, sk_llm_message_new_tool_result (call->id, call->name, text, is_error));
}

static void
remind (SkAgent    *self,
        const char *problem)
{
  g_autofree char *text = NULL;

  text = g_strdup_printf ("%s%sContinue with exactly one tool call. When the script works and its "
                          "tests pass, call `task_complete` with a short summary for the user.",
                          problem != NULL ? problem : "Your reply had no tool call.",
                          problem != NULL ? "\n\n" : " ");
  g_string_append_printf (self->log, "  (reminder) %s\n", problem != NULL ? problem : "no tool call");
  g_ptr_array_add (self->messages, sk_llm_message_new (SK_LLM_ROLE_USER, text));
}

static void
call_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(SkAgent) self = user_data;
  const SkLlmToolCall *call = g_ptr_array_index (self->calls, self->call_index);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean is_error = FALSE;

  text = sk_agent_tools_call_finish (SK_AGENT_TOOLS (object), result, &is_error, &error);
  if (text == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
          g_error_matches (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_NO_SANDBOX))
        {
          finish_run (self, g_steal_pointer (&error));
          return;
        }
      text = g_strdup (error->message);
      is_error = TRUE;
    }

  add_result (self, call, text, is_error);
  self->call_index++;
  agent_next_call (self);
}

static void
review_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(SkAgent) self = user_data;
  const SkLlmToolCall *call = g_ptr_array_index (self->calls, self->call_index);
  g_autoptr(SkLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *verdict = NULL;

  response = sk_llm_client_chat_finish (SK_LLM_CLIENT (object), result, NULL, &error);
  if (response == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      finish_run (self, g_steal_pointer (&error));
      return;
    }

  record_usage (self, response);
  verdict = response != NULL ? first_line (response->text) : NULL;

  if (verdict != NULL && g_str_has_prefix (verdict, "ALLOW"))
    {
      g_string_append_printf (self->log, "  reviewer: %s\n", verdict);
      sk_agent_tools_call_async (self->tools, call, g_task_get_cancellable (self->task),
                                 call_done_cb, g_object_ref (self));
      return;
    }

  {
    g_autofree char *reason = NULL;

    if (verdict != NULL && g_str_has_prefix (verdict, "DENY"))
      reason = g_strdup_printf ("A security reviewer refused this command: %s", g_strstrip (verdict + 4));
    else if (error != NULL)
      reason = g_strdup_printf ("The command was not run: the security reviewer could not be asked (%s).",
                                error->message);
    else
      reason = g_strdup ("The command was not run: the security reviewer's answer was unclear.");

    progress (self, _("A command was refused by the reviewer"));
    add_result (self, call, reason, TRUE);
  }

  self->call_index++;
  agent_next_call (self);
}

static void
review_command (SkAgent             *self,
                const SkLlmToolCall *call)
{
  g_autoptr(GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_llm_message_free);
  g_autoptr(JsonObject) arguments = sk_llm_tool_call_parse_arguments (call, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *prompt = NULL;
  const char *command;

  command = sk_json_get_string (arguments, "command");

  /* A malformed call gets its message from the tools; nothing to review. */
  if (command == NULL)
    {
      sk_agent_tools_call_async (self->tools, call, g_task_get_cancellable (self->task),
                                 call_done_cb, g_object_ref (self));
      return;
    }

  g_hash_table_insert (values, "command", g_strdup (command));
  g_hash_table_insert (values, "node_folder", node_path (self));
  g_hash_table_insert (values, "workflow_folder", workflow_path (self));
  g_hash_table_insert (values, "network_allowed", g_strdup (self->allow_network ? "yes" : "no"));

  prompt = sk_prompts_render ("command-reviewer", values, &error);
  if (prompt == NULL)
    {
      finish_run (self, g_error_new (SK_AGENT_ERROR, SK_AGENT_ERROR_PROMPT,
                                     _("The command reviewer’s prompt cannot be used: %s"), error->message));
      return;
    }

  g_ptr_array_add (messages, sk_llm_message_new (SK_LLM_ROLE_USER, prompt));
  sk_llm_client_chat_async (self->reviewer, NULL, messages, NULL, NULL, NULL,
                            g_task_get_cancellable (self->task), review_cb, g_object_ref (self));
}

static void
complete (SkAgent             *self,
          const SkLlmToolCall *call)
{
  g_autoptr(JsonObject) arguments = sk_llm_tool_call_parse_arguments (call, NULL);
  g_autoptr(GFile) script = sk_project_get_node_script (self->project, self->node);
  const char *summary;

  summary = sk_json_get_string (arguments, "summary");

  if (!g_file_query_exists (script, NULL))
    {
      g_autofree char *name = g_file_get_basename (script);
      g_autofree char *text = g_strdup_printf ("The script %s does not exist yet. Write it, test it, "
                                               "and then call task_complete.", name);

      add_result (self, call, text, TRUE);
      return;
    }

  g_free (self->summary);
  self->summary = g_strdup (summary != NULL && *summary != '\0' ? summary : _("The script is written."));
  add_result (self, call, "Done.", FALSE);
}

static void
agent_next_call (SkAgent *self)
{
  const SkLlmToolCall *call;
  g_autofree char *description = NULL;

  if (g_cancellable_is_cancelled (g_task_get_cancellable (self->task)))
    {
      finish_run (self, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Stopped")));
      return;
    }

  if (self->call_index >= self->calls->len)
    {
      if (self->text_tools && self->text_results->len > 0)
        {
          g_ptr_array_add (self->messages, sk_llm_message_new (SK_LLM_ROLE_USER, self->text_results->str));
          g_string_truncate (self->text_results, 0);
        }

      if (self->summary != NULL)
        finish_run (self, NULL);
      else
        agent_step (self);
      return;
    }

  call = g_ptr_array_index (self->calls, self->call_index);
  g_string_append_printf (self->log, "  %s %s\n", call->name, call->arguments);

  if (g_strcmp0 (call->name, SK_AGENT_TOOL_TASK_COMPLETE) == 0)
    {
      complete (self, call);
      self->call_index++;
      agent_next_call (self);
      return;
    }

  description = sk_agent_tools_describe_call (call);
  if (description != NULL)
    progress (self, description);

  if (g_strcmp0 (call->name, SK_AGENT_TOOL_RUN_COMMAND) == 0 && self->reviewer != NULL)
    {
      review_command (self, call);
      return;
    }

  sk_agent_tools_call_async (self->tools, call, g_task_get_cancellable (self->task),
                             call_done_cb, g_object_ref (self));
}

static void
chat_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(SkAgent) self = user_data;
  g_autoptr(SkLlmResponse) response = NULL;
  g_autoptr(SkLlmResponse) partial = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GError) parse_error = NULL;
  g_autofree char *said = NULL;
  SkLlmMessage *message;

  response = sk_llm_client_chat_finish (SK_LLM_CLIENT (object), result, &partial, &error);
  record_usage (self, response != NULL ? response : partial);

  if (response == NULL)
    {
      if (g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_TOOLS_UNSUPPORTED) && !self->text_tools)
        {
          g_autoptr(GError) prompt_error = NULL;

          /* Ask again, the same step, with the tools described in text. */
          g_string_append (self->log, "The server takes no tool definitions; using text tool calls.\n");
          self->text_tools = TRUE;
          self->steps--;
          if (!build_prompts (self, &prompt_error))
            {
              finish_run (self, g_error_new (SK_AGENT_ERROR, SK_AGENT_ERROR_PROMPT,
                                             _("The coding agent’s prompt cannot be used: %s"),
                                             prompt_error->message));
              return;
            }
          agent_step (self);
          return;
        }

      finish_run (self, g_steal_pointer (&error));
      return;
    }

  said = first_line (response->text);
  if (said != NULL)
    progress (self, said);

  message = sk_llm_message_new (SK_LLM_ROLE_ASSISTANT,
                                response->text != NULL && *response->text != '\0' ? response->text : NULL);
  g_string_append_printf (self->log, "\n[reply %u]\n%s\n", self->steps, response->text);

  if (!self->text_tools && response->tool_calls->len > 0)
    {
      calls = g_ptr_array_ref (response->tool_calls);
      for (guint i = 0; i < calls->len; i++)
        sk_llm_message_add_tool_call (message, g_ptr_array_index (calls, i));
    }
  else
    calls = sk_agent_text_calls_parse (response->text, &parse_error);

  /* Some models answer native tool definitions with text blocks; they are
   * then answered in text as well, and the instructions say how, since no
   * definitions go with the next requests.
   */
  if (!self->text_tools && message->tool_calls->len == 0 && calls != NULL && calls->len > 0)
    {
      g_autoptr(GHashTable) values = NULL;
      char *system;

      self->text_tools = TRUE;
      values = prompt_values (self);
      system = sk_prompts_render ("node-agent", values, NULL);
      if (system != NULL)
        {
          g_free (self->system);
          self->system = system;
        }
    }

  g_ptr_array_add (self->messages, message);

  if (calls == NULL)
    {
      remind (self, parse_error->message);
      agent_step (self);
      return;
    }

  if (calls->len == 0)
    {
      remind (self, NULL);
      agent_step (self);
      return;
    }

  g_clear_pointer (&self->calls, g_ptr_array_unref);
  self->calls = g_steal_pointer (&calls);
  self->call_index = 0;
  agent_next_call (self);
}

static char *
shorten (const char *text,
         const char *note)
{
  const char *end = text + OLD_MESSAGE_LENGTH;

  /* Cut on a character boundary. */
  while (end > text && (*end & 0xc0) == 0x80)
    end--;

  return g_strdup_printf ("%.*s\n[… %s]", (int) (end - text), text, note);
}

static void
shorten_old_messages (SkAgent *self)
{
  /* The first message is the task or the failure to repair; it stays whole. */
  for (guint i = 1; i + RECENT_MESSAGES < self->messages->len; i++)
    {
      SkLlmMessage *message = g_ptr_array_index (self->messages, i);

      if (message->content != NULL && strlen (message->content) > OLD_MESSAGE_LENGTH + 200)
        {
          char *shorter = shorten (message->content, "shortened to save space; read the file or run the "
                                                     "command again if you need the rest");

          g_free (message->content);
          message->content = shorter;
        }

      for (guint j = 0; j < message->tool_calls->len; j++)
        {
          SkLlmToolCall *call = g_ptr_array_index (message->tool_calls, j);
          g_autoptr(JsonObject) arguments = NULL;
          g_autoptr(JsonNode) node = NULL;

          if (call->arguments == NULL || strlen (call->arguments) <= OLD_MESSAGE_LENGTH + 200)
            continue;

          arguments = sk_llm_tool_call_parse_arguments (call, NULL);
          if (sk_json_get_member (arguments, "content") == NULL)
            continue;

          json_object_set_string_member (arguments, "content",
                                         "[The content written then is on disk; read the file to see it.]");
          node = json_node_init_object (json_node_alloc (), arguments);
          g_free (call->arguments);
          call->arguments = json_to_string (node, FALSE);
        }
    }
}

static void
llm_event_cb (SkLlmEvent  event,
              const char *text,
              gpointer    user_data)
{
  SkAgent *self = user_data;

  /* Text arrives piece by piece and is reported once a reply is whole;
   * a retry is worth telling at once, since it can take a while.
   */
  if (event == SK_LLM_EVENT_RETRY)
    {
      g_string_append_printf (self->log, "· %s\n", text);
      g_signal_emit (self, signals[TRANSIENT], 0, text);
    }
}

static void
agent_step (SkAgent *self)
{
  if (g_cancellable_is_cancelled (g_task_get_cancellable (self->task)))
    {
      finish_run (self, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Stopped")));
      return;
    }

  if (self->steps >= self->max_steps)
    {
      finish_run (self, g_error_new (SK_AGENT_ERROR, SK_AGENT_ERROR_BUDGET,
                                     _("The coding agent used all %u of its replies without finishing "
                                       "the step “%s”. Try again, allow more replies in Preferences, or "
                                       "make the task simpler or clearer."),
                                     self->max_steps, sk_node_get_name (self->node)));
      return;
    }

  self->steps++;
  shorten_old_messages (self);
  if (self->steps == 1)
    progress (self, self->repair ? _("Asking the model to repair the script…")
                                 : _("Asking the model to write the script…"));

  sk_llm_client_chat_async (self->client, self->system, self->messages,
                            self->text_tools ? NULL : self->definitions,
                            llm_event_cb, self, g_task_get_cancellable (self->task),
                            chat_cb, g_object_ref (self));
}

/**
 * sk_agent_run_async:
 *
 * Lets the agent write (or, after sk_agent_set_failure(), repair) the
 * node's script. The node's token counts grow with every call.
 */
void
sk_agent_run_async (SkAgent             *self,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_autofree char *workflow = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *python_path = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (SK_IS_AGENT (self));
  g_return_if_fail (self->task == NULL);

  self->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (self->task, sk_agent_run_async);

  self->steps = 0;
  self->prompt_tokens = 0;
  self->completion_tokens = 0;
  g_clear_pointer (&self->summary, g_free);
  g_string_truncate (self->log, 0);
  g_string_truncate (self->text_results, 0);

  /* Code written from nothing would cost tokens and do nothing useful;
   * a repair has the code to go on. */
  if (!self->repair && sk_util_is_blank (sk_node_get_input_text (self->node)))
    {
      finish_run (self, g_error_new (SK_AGENT_ERROR, SK_AGENT_ERROR_NO_TASK,
                                     _("The step “%s” has no task yet. Describe what it should do "
                                       "in its Task, and the coding agent writes its code from that."),
                                     sk_node_get_name (self->node)));
      return;
    }

  if (*sk_node_get_key (self->node) == '\0')
    {
      finish_run (self, g_error_new (SK_AGENT_ERROR, SK_AGENT_ERROR_NO_KEY,
                                     _("The step “%s” has no name made of letters or digits, so it has no "
                                       "folder for its code. Rename it."), sk_node_get_name (self->node)));
      return;
    }

  workflow = workflow_path (self);
  folder = node_path (self);
  g_string_append_printf (self->log, "%s the step “%s” with %s at %s\n",
                          self->repair ? "Repairing" : "Writing", sk_node_get_name (self->node),
                          sk_llm_client_get_model (self->client), sk_llm_client_get_base_url (self->client));

  self->tools = sk_agent_tools_new (workflow, folder, &error);
  if (self->tools == NULL)
    {
      finish_run (self, g_steal_pointer (&error));
      return;
    }
  sk_agent_tools_set_sandbox (self->tools, self->sandbox);
  sk_agent_tools_set_allow_unsandboxed (self->tools, self->allow_unsandboxed);
  sk_agent_tools_set_allow_network (self->tools, self->allow_network);

  /* The interpreter and its libraries must be visible in the sandbox, and
   * only they: never the home folder around an interpreter kept there. A
   * launcher such as pyenv's shims does not work in the sandbox, so the
   * commands are told to start the interpreter it launches.
   */
  python_path = g_find_program_in_path (self->python);
  if (python_path != NULL)
    {
      g_autoptr(SkSandbox) sandbox = NULL;

      sandbox = sk_sandbox_new_for_steps (SK_SANDBOX_POLICY_WHEN_AVAILABLE, python_path, NULL, NULL);
      if (sandbox != NULL && sk_sandbox_is_confined (sandbox))
        {
          g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

          sk_sandbox_add_python_paths (sandbox, paths);
          for (guint i = 0; i < paths->len; i++)
            sk_agent_tools_add_read_only_path (self->tools, g_ptr_array_index (paths, i));
          if (!g_str_equal (sk_sandbox_get_python (sandbox), python_path))
            {
              g_free (self->sandbox_python);
              self->sandbox_python = g_strdup (sk_sandbox_get_python (sandbox));
            }
        }
    }

  if (!build_prompts (self, &error))
    {
      finish_run (self, g_error_new (SK_AGENT_ERROR, SK_AGENT_ERROR_PROMPT,
                                     _("The coding agent’s prompt cannot be used: %s"), error->message));
      return;
    }

  /* Later attempts repair the agent's own work; the first one's copy is
   * the script as it was before any repair.
   */
  if (self->repair && self->attempt <= 1)
    keep_previous_script (self);

  agent_step (self);
}

/**
 * sk_agent_run_finish:
 *
 * Returns: (transfer full): the agent's summary for the user
 */
char *
sk_agent_run_finish (SkAgent       *self,
                     GAsyncResult  *result,
                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Settings. */

SkNode *
sk_agent_get_node (SkAgent *self)
{
  g_return_val_if_fail (SK_IS_AGENT (self), NULL);

  return self->node;
}

void
sk_agent_set_max_steps (SkAgent *self,
                        guint    max_steps)
{
  g_return_if_fail (SK_IS_AGENT (self));

  self->max_steps = MAX (max_steps, 1);
}

void
sk_agent_set_python (SkAgent    *self,
                     const char *python)
{
  g_return_if_fail (SK_IS_AGENT (self));

  g_free (self->python);
  self->python = g_strdup (python != NULL && *python != '\0' ? python : "python3");
}

void
sk_agent_set_scope (SkAgent        *self,
                    SkAgentContextScope  scope)
{
  g_return_if_fail (SK_IS_AGENT (self));

  self->scope = scope;
}

/**
 * sk_agent_set_sandbox:
 * @allow_unsandboxed: run commands even when no sandbox is available
 * @allow_network: let commands use the network
 */
void
sk_agent_set_sandbox (SkAgent       *self,
                      SkSandboxKind  kind,
                      gboolean       allow_unsandboxed,
                      gboolean       allow_network)
{
  g_return_if_fail (SK_IS_AGENT (self));

  self->sandbox = kind;
  self->allow_unsandboxed = allow_unsandboxed;
  self->allow_network = allow_network;
}

/**
 * sk_agent_set_reviewer:
 * @reviewer: (nullable): a client that judges each command before it runs
 */
void
sk_agent_set_reviewer (SkAgent     *self,
                       SkLlmClient *reviewer)
{
  g_return_if_fail (SK_IS_AGENT (self));

  g_set_object (&self->reviewer, reviewer);
}

/**
 * sk_agent_set_text_tools:
 *
 * Describes the tools in the prompt and reads fenced `tool` blocks from the
 * replies instead of sending native tool definitions.
 */
void
sk_agent_set_text_tools (SkAgent  *self,
                         gboolean  text_tools)
{
  g_return_if_fail (SK_IS_AGENT (self));

  self->text_tools = !!text_tools;
}

/**
 * sk_agent_set_failure:
 * @error_text: what the run reported
 * @traceback: (nullable): the Python traceback
 * @stderr_tail: (nullable): the end of the script's error output
 * @attempt: which repair this is, from 1
 * @max_attempts: how many repairs are allowed
 *
 * Makes the agent repair the script after a failed run instead of writing
 * it from nothing.
 */
void
sk_agent_set_failure (SkAgent    *self,
                      const char *error_text,
                      const char *traceback,
                      const char *stderr_tail,
                      guint       attempt,
                      guint       max_attempts)
{
  g_return_if_fail (SK_IS_AGENT (self));

  self->repair = TRUE;
  g_free (self->error_text);
  self->error_text = g_strdup (error_text != NULL && *error_text != '\0'
                               ? error_text : "The script failed without saying why.");
  g_free (self->traceback);
  self->traceback = g_strdup (traceback);
  g_free (self->stderr_tail);
  self->stderr_tail = g_strdup (stderr_tail);
  self->attempt = attempt;
  self->max_attempts = max_attempts;
}

guint
sk_agent_get_steps (SkAgent *self)
{
  g_return_val_if_fail (SK_IS_AGENT (self), 0);

  return self->steps;
}

void
sk_agent_get_usage (SkAgent *self,
                    guint64 *prompt_tokens,
                    guint64 *completion_tokens)
{
  g_return_if_fail (SK_IS_AGENT (self));

  if (prompt_tokens != NULL)
    *prompt_tokens = self->prompt_tokens;
  if (completion_tokens != NULL)
    *completion_tokens = self->completion_tokens;
}

/* The object. */

static void
sk_agent_finalize (GObject *object)
{
  SkAgent *self = SK_AGENT (object);

  g_clear_object (&self->client);
  g_clear_object (&self->reviewer);
  g_clear_object (&self->project);
  g_clear_object (&self->node);
  g_free (self->python);
  g_free (self->sandbox_python);
  g_free (self->error_text);
  g_free (self->traceback);
  g_free (self->stderr_tail);
  g_clear_object (&self->tools);
  g_clear_pointer (&self->definitions, g_ptr_array_unref);
  g_free (self->system);
  g_clear_pointer (&self->messages, g_ptr_array_unref);
  g_clear_pointer (&self->calls, g_ptr_array_unref);
  g_string_free (self->text_results, TRUE);
  g_free (self->summary);
  g_string_free (self->log, TRUE);

  G_OBJECT_CLASS (sk_agent_parent_class)->finalize (object);
}

static void
sk_agent_class_init (SkAgentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sk_agent_finalize;

  /**
   * SkAgent::progress:
   * @message: one line in plain language: what the agent is doing
   */
  signals[PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SkAgent::transient:
   * @message: one line in plain language about a wait, such as a request
   *   that is sent again; the next #SkAgent::progress line makes it moot
   */
  signals[TRANSIENT] =
    g_signal_new ("transient", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SkAgent::usage:
   * @prompt_tokens: tokens one call read
   * @completion_tokens: tokens it wrote
   */
  signals[USAGE] =
    g_signal_new ("usage", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT64, G_TYPE_UINT64);
}

static void
sk_agent_init (SkAgent *self)
{
  self->max_steps = SK_AGENT_DEFAULT_MAX_STEPS;
  self->python = g_strdup ("python3");
  self->scope = SK_AGENT_CONTEXT_BLANKET;
  self->sandbox = SK_SANDBOX_AUTO;
  self->definitions = sk_agent_tools_get_definitions ();
  self->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_llm_message_free);
  self->text_results = g_string_new (NULL);
  self->log = g_string_new (NULL);
}

/**
 * sk_agent_new:
 * @client: the model that writes the code
 * @node: a node of @project
 *
 * Returns: (transfer full): an agent for @node
 */
SkAgent *
sk_agent_new (SkLlmClient *client,
              SkProject   *project,
              SkNode      *node)
{
  SkAgent *self;

  g_return_val_if_fail (SK_IS_LLM_CLIENT (client), NULL);
  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  self = g_object_new (SK_TYPE_AGENT, NULL);
  self->client = g_object_ref (client);
  self->project = g_object_ref (project);
  self->node = g_object_ref (node);

  return self;
}
