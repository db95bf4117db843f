/* skele-chat.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `skele chat` and `skele draft`: one turn of the chat agent on a workflow,
 * printed for people or as JSON lines, and a new workflow drafted from a
 * description.
 */

#define G_LOG_DOMAIN "skele"

#include "config.h"

#include <signal.h>
#include <stdio.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <glib-unix.h>

#include "skele-private.h"

/* The same options for the chat agent, which uses the coding agent's
 * server and model. */
static void
add_chat_agent_entries (GOptionContext *options,
                        AgentOptions   *agent)
{
  const GOptionEntry entries[] = {
    { "provider", 0, 0, G_OPTION_ARG_STRING, &agent->provider,
      N_("The server kind: openai, ollama or anthropic"), "NAME" },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &agent->base_url,
      N_("The server address, e.g. http://127.0.0.1:11434/v1"), "URL" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &agent->model,
      N_("The model that plays the chat agent"), "NAME" },
    { NULL }
  };

  g_option_context_add_main_entries (options, entries, GETTEXT_PACKAGE);
}

/* The size of a step on the window's canvas, which a draft is arranged for. */
#define DRAFT_NODE_WIDTH 168.0
#define DRAFT_NODE_HEIGHT 60.0

/* What a draft asks of the chat agent, around the person's description. It
 * goes to the model, so it stays in English like the prompts. */
#define DRAFT_REQUEST \
  "Draft a new workflow from the description below; the workflow has no steps yet. " \
  "Propose its steps with `add_step`, each with a short name and a task in plain words, " \
  "and connect every step to the steps whose results it needs, with `connect` or the " \
  "`priors` of `add_step`. Give the workflow a name and a one-sentence description with " \
  "`set_process`. Then end your turn with `finish`, saying in a few sentences what the " \
  "draft does.\n\nDescription:\n%s"

typedef struct
{
  GMainLoop    *loop;
  GCancellable *cancellable;
  guint         sigint_id;
  guint         sigterm_id;
  char         *reply;
  GError       *error;
  guint64       tokens_in;
  guint64       tokens_out;
  gboolean      events;
  gboolean      interrupted;
  gboolean      done;
} ChatContext;

static gboolean
chat_interrupt_cb (gpointer user_data)
{
  ChatContext *context = user_data;

  if (!context->interrupted)
    g_printerr (_("Stopping the chat agent…\n"));

  context->interrupted = TRUE;
  g_cancellable_cancel (context->cancellable);
  return G_SOURCE_CONTINUE;
}

/* From here on, Ctrl+C and SIGTERM stop the agent instead of the program. */
static void
chat_context_init (ChatContext *context,
                   gboolean     events)
{
  context->loop = g_main_loop_new (NULL, FALSE);
  context->cancellable = g_cancellable_new ();
  context->events = events;
  context->sigint_id = g_unix_signal_add (SIGINT, chat_interrupt_cb, context);
  context->sigterm_id = g_unix_signal_add (SIGTERM, chat_interrupt_cb, context);
}

static void
chat_context_clear (ChatContext *context)
{
  g_clear_handle_id (&context->sigint_id, g_source_remove);
  g_clear_handle_id (&context->sigterm_id, g_source_remove);
  g_clear_pointer (&context->loop, g_main_loop_unref);
  g_clear_object (&context->cancellable);
  g_clear_pointer (&context->reply, g_free);
  g_clear_error (&context->error);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ChatContext, chat_context_clear)

/* A builder holding an unfinished object whose "event" member is @name. */
static JsonBuilder *
new_event (const char *name)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "event");
  json_builder_add_string_value (builder, name);

  return builder;
}

/* Ends the object of @builder and writes it as one line of standard output,
 * in UTF-8 whatever the locale (see emit_event()). */
static void
print_event (JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  text = json_to_string (root, FALSE);
  fputs (text, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
}

static void
add_string_member (JsonBuilder *builder,
                   const char  *name,
                   const char  *value)
{
  if (value == NULL)
    return;

  json_builder_set_member_name (builder, name);
  json_builder_add_string_value (builder, value);
}

static void
add_tokens_members (JsonBuilder *builder,
                    guint64      tokens_in,
                    guint64      tokens_out)
{
  json_builder_set_member_name (builder, "tokens_in");
  json_builder_add_int_value (builder, (gint64) tokens_in);
  json_builder_set_member_name (builder, "tokens_out");
  json_builder_add_int_value (builder, (gint64) tokens_out);
}

static void
chat_text_cb (SkChatSession *session,
              const char    *text,
              ChatContext   *context)
{
  /* People read the answer once it is whole; programs may follow it. */
  if (context->events)
    {
      g_autoptr(JsonBuilder) builder = new_event ("text");

      add_string_member (builder, "text", text);
      print_event (builder);
    }
}

/* A line for people on standard error, and the same as an event. */
static void
report_line (ChatContext *context,
             const char  *event,
             const char  *prefix,
             const char  *message)
{
  g_printerr ("    %s%s\n", prefix, message);

  if (context->events)
    {
      g_autoptr(JsonBuilder) builder = new_event (event);

      add_string_member (builder, "message", message);
      print_event (builder);
    }
}

static void
chat_progress_cb (SkChatSession *session,
                  const char    *message,
                  ChatContext   *context)
{
  report_line (context, "progress", "· ", message);
}

static void
chat_transient_cb (SkChatSession *session,
                   const char    *message,
                   ChatContext   *context)
{
  report_line (context, "transient", "", message);
}

static void
chat_usage_cb (SkChatSession *session,
               guint64        tokens_in,
               guint64        tokens_out,
               ChatContext   *context)
{
  /* The answer gives the turn's total; this sum counts a turn that fails
   * after some replies. */
  context->tokens_in += tokens_in;
  context->tokens_out += tokens_out;

  if (context->events)
    {
      g_autoptr(JsonBuilder) builder = new_event ("usage");

      add_tokens_members (builder, tokens_in, tokens_out);
      print_event (builder);
    }
}

static void
chat_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  ChatContext *context = user_data;
  guint64 tokens_in = 0;
  guint64 tokens_out = 0;

  context->reply = sk_chat_session_send_finish (SK_CHAT_SESSION (object), result,
                                                &tokens_in, &tokens_out, &context->error);
  if (context->reply != NULL)
    {
      context->tokens_in = tokens_in;
      context->tokens_out = tokens_out;
    }
  context->done = TRUE;
  g_main_loop_quit (context->loop);
}

/* Lets the chat agent answer @message, and returns the exit status: the
 * answer is in @context when it is 0. */
static int
chat_and_wait (SkChatSession *session,
               const char    *message,
               ChatContext   *context)
{
  g_signal_connect (session, "text", G_CALLBACK (chat_text_cb), context);
  g_signal_connect (session, "progress", G_CALLBACK (chat_progress_cb), context);
  g_signal_connect (session, "transient", G_CALLBACK (chat_transient_cb), context);
  g_signal_connect (session, "usage", G_CALLBACK (chat_usage_cb), context);

  sk_chat_session_send_async (session, message, NULL, context->cancellable, chat_done_cb, context);
  if (!context->done)
    g_main_loop_run (context->loop);

  g_signal_handlers_disconnect_by_data (session, context);

  if (context->interrupted || g_error_matches (context->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return EXIT_INTERRUPTED;

  if (context->error == NULL)
    return EXIT_SUCCESS;

  g_printerr (_("error: %s\n"), context->error->message);

  /* An agent that is not set up is the person's to correct, as is an
   * invalid workflow; anything else went wrong with the model. */
  if (g_error_matches (context->error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED))
    return EXIT_INVALID;

  return EXIT_MODEL_FAILED;
}

static void
print_tokens (ChatContext *context)
{
  g_autofree char *read_text = g_strdup_printf ("%" G_GUINT64_FORMAT, context->tokens_in);
  g_autofree char *written_text = g_strdup_printf ("%" G_GUINT64_FORMAT, context->tokens_out);

  /* Translators: the counts of tokens the chat agent read and wrote. */
  g_printerr (_("The chat agent used %s tokens read and %s written in this turn.\n"),
              read_text, written_text);
}

static const char *
change_kind_to_string (SkChangeKind kind)
{
  switch (kind)
    {
    case SK_CHANGE_ADDED:
      return "added";
    case SK_CHANGE_REMOVED:
      return "removed";
    case SK_CHANGE_RENAMED:
      return "renamed";
    case SK_CHANGE_TASK_CHANGED:
      return "task_changed";
    case SK_CHANGE_DESCRIPTION_CHANGED:
      return "description_changed";
    case SK_CHANGE_CONNECTED:
      return "connected";
    case SK_CHANGE_DISCONNECTED:
      return "disconnected";
    case SK_CHANGE_RUN_CHANGED:
      return "run_changed";
    case SK_CHANGE_PROCESS_CHANGED:
      return "process_changed";
    default:
      g_return_val_if_reached ("unknown");
    }
}

/* The key of the step @id as the changeset proposes it, or as it was for a
 * removed step. */
static const char *
find_change_key (SkChangeset *changeset,
                 const char  *id)
{
  SkNode *node;

  if (id == NULL)
    return NULL;

  node = sk_project_get_node (sk_changeset_get_scratch (changeset), id);
  if (node == NULL)
    node = sk_project_get_node (sk_changeset_get_project (changeset), id);

  return node != NULL ? sk_node_get_key (node) : NULL;
}

static void
emit_change_event (SkChangeset    *changeset,
                   const SkChange *change)
{
  g_autoptr(JsonBuilder) builder = new_event ("change");
  g_autofree char *description = sk_change_describe (change);

  add_string_member (builder, "kind", change_kind_to_string (change->kind));
  add_string_member (builder, "description", description);
  add_string_member (builder, "step_id", change->step_id);
  add_string_member (builder, "step_key", find_change_key (changeset, change->step_id));
  add_string_member (builder, "name", change->name);
  add_string_member (builder, "other_id", change->other_id);
  add_string_member (builder, "other_key", find_change_key (changeset, change->other_id));
  add_string_member (builder, "other_name", change->other_name);
  add_string_member (builder, "old_text", change->old_text);
  add_string_member (builder, "new_text", change->new_text);
  print_event (builder);
}

/* Prints the reply and the changes of @changeset (nullable) as lines for
 * people or as events, and returns how many there are. Only what the
 * changeset really changes is listed, never the model's account of it. */
static guint
print_answer (ChatContext *context,
              SkChangeset *changeset,
              const char  *heading,
              guint       *n_added)
{
  g_autoptr(GPtrArray) changes = NULL;

  *n_added = 0;
  changes = changeset != NULL ? sk_changeset_get_changes (changeset)
                              : g_ptr_array_new_with_free_func ((GDestroyNotify) sk_change_free);

  if (!context->events && context->reply != NULL && context->reply[0] != '\0')
    g_print ("%s\n\n", context->reply);

  if (!context->events && changes->len == 0)
    g_print ("%s\n", _("The chat agent proposed no changes to the workflow."));
  else if (!context->events)
    g_print ("%s\n", heading);

  for (guint i = 0; i < changes->len; i++)
    {
      const SkChange *change = g_ptr_array_index (changes, i);

      if (change->kind == SK_CHANGE_ADDED)
        (*n_added)++;

      if (context->events)
        {
          emit_change_event (changeset, change);
        }
      else
        {
          g_autofree char *description = sk_change_describe (change);

          g_print ("  %s\n", description);
        }
    }

  return changes->len;
}

static void
emit_chat_finished_event (ChatContext *context,
                          guint        n_changes,
                          gboolean     applied,
                          const char  *folder,
                          int          status)
{
  g_autoptr(JsonBuilder) builder = new_event ("finished");

  add_string_member (builder, "reply", context->reply);
  add_tokens_members (builder, context->tokens_in, context->tokens_out);
  json_builder_set_member_name (builder, "changes");
  json_builder_add_int_value (builder, n_changes);
  json_builder_set_member_name (builder, "applied");
  json_builder_add_boolean_value (builder, applied);
  add_string_member (builder, "folder", folder);
  if (context->error != NULL && !context->interrupted &&
      !g_error_matches (context->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    add_string_member (builder, "error", context->error->message);
  json_builder_set_member_name (builder, "exit_status");
  json_builder_add_int_value (builder, status);
  print_event (builder);
}

/* Parses the options of @command and checks that a folder and a text are
 * left, the text not blank; @usage says what to give otherwise. */
static gboolean
parse_folder_text_arguments (GOptionContext   *options,
                             const char       *command,
                             const char       *usage,
                             int              *argc,
                             char           ***argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!g_option_context_parse (options, argc, argv, &error))
    {
      g_printerr ("skele %s: %s\n", command, error->message);
      return FALSE;
    }

  if (*argc == 3)
    text = g_strstrip (g_strdup ((*argv)[2]));

  if (text == NULL || text[0] == '\0')
    {
      g_printerr ("skele %s: %s\n", command, usage);
      return FALSE;
    }

  return TRUE;
}

static gboolean
check_events_option (const char *command,
                     const char *events)
{
  if (events != NULL && !g_str_equal (events, "json"))
    {
      /* Translators: %s is the command, such as “chat”. */
      g_printerr (_("skele %s: --events only knows “json”.\n"), command);
      return FALSE;
    }

  return TRUE;
}

static void
describe_agent_options (GOptionContext *options)
{
  g_option_context_set_description (options,
                                    _("The chat agent uses the coding agent’s server and model: "
                                      "those of the application’s Preferences, overridden by the "
                                      "environment variables SKELE_LLM_PROVIDER, SKELE_LLM_BASE_URL, "
                                      "SKELE_LLM_MODEL and SKELE_LLM_API_KEY, overridden by "
                                      "--provider, --base-url and --model. The API key is read from "
                                      "SKELE_LLM_API_KEY or the desktop keyring, never from the "
                                      "command line.\n\n"
                                      "Exit status: 0 on success, 1 when the model failed, 2 when the "
                                      "chat agent is not set up or the folder cannot be used, 130 "
                                      "when interrupted."));
}

int
skele_command_chat (int    argc,
              char **argv)
{
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(SkWorkspace) workspace = NULL;
  g_autoptr(SkChatSession) session = NULL;
  g_autoptr(SkChangeset) changeset = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *events = NULL;
  g_auto(AgentOptions) agent = { 0 };
  g_auto(ChatContext) context = { 0 };
  gboolean apply = FALSE;
  gboolean applied = FALSE;
  guint n_changes = 0;
  guint n_added;
  int status;
  GOptionEntry entries[] = {
    { "apply", 0, 0, G_OPTION_ARG_NONE, &apply,
      N_("Apply the proposed changes and save the workflow"), NULL },
    { "events", 0, 0, G_OPTION_ARG_STRING, &events,
      N_("Write one JSON object per line to standard output instead of text"), "json" },
    { NULL }
  };

  options = g_option_context_new (_("FOLDER MESSAGE — ask the chat agent about a workflow"));
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (options, entries, GETTEXT_PACKAGE);
  add_chat_agent_entries (options, &agent);
  g_option_context_set_summary (options,
                                _("Sends MESSAGE to the chat agent, which sees the whole workflow "
                                  "and answers questions about it or proposes changes to its steps "
                                  "and connections. Prints the answer and the proposed changes, "
                                  "one line each. Nothing changes but the conversation, kept in "
                                  "the workflow’s .skele/chat.json, unless --apply is given."));
  describe_agent_options (options);

  if (!parse_folder_text_arguments (options, "chat",
                                    _("give a workflow folder and a message. See “skele chat --help”."),
                                    &argc, &argv))
    return EXIT_INVALID;

  if (!check_events_option ("chat", events))
    return EXIT_INVALID;

  workspace = skele_load_checked_workspace (argv[1], _("The chat agent was not asked. Correct the problems "
                                                 "above and try again."));
  if (workspace == NULL)
    return EXIT_INVALID;

  session = sk_chat_session_new (workspace);
  sk_chat_session_set_overrides (session, agent.provider, agent.base_url, agent.model);
  chat_context_init (&context, events != NULL);

  /* A conversation that could not be read was put aside, and a new one
   * begins. */
  if (sk_chat_session_get_warning (session) != NULL)
    g_printerr (_("warning: %s\n"), sk_chat_session_get_warning (session));

  status = chat_and_wait (session, argv[2], &context);
  if (status != EXIT_SUCCESS)
    {
      if (status != EXIT_INTERRUPTED)
        g_printerr (_("The workflow was not changed.\n"));
      if (context.tokens_in > 0 || context.tokens_out > 0)
        print_tokens (&context);
      if (context.events)
        emit_chat_finished_event (&context, 0, FALSE, NULL, status);
      return status;
    }

  if (sk_chat_session_get_changeset (session) != NULL)
    changeset = g_object_ref (sk_chat_session_get_changeset (session));

  n_changes = print_answer (&context, changeset,
                            apply ? _("Changes:") : _("Proposed changes, not applied:"),
                            &n_added);

  if (apply && changeset != NULL)
    {
      if (!sk_chat_session_accept (session, &error) ||
          !sk_workspace_save (workspace, &error))
        {
          g_printerr (_("error: %s\n"), error->message);
          status = EXIT_MODEL_FAILED;
        }
      else
        {
          applied = TRUE;
          g_printerr (_("The changes were applied and the workflow saved.\n"));
        }
    }
  else if (changeset != NULL)
    {
      g_printerr (_("The workflow was not changed. Ask again with --apply to apply the chat "
                    "agent’s proposal.\n"));
    }

  print_tokens (&context);
  if (context.events)
    emit_chat_finished_event (&context, n_changes, applied, NULL, status);

  return status;
}

typedef struct
{
  GMainLoop  *loop;
  GHashTable *positions;
  GError     *error;
  gboolean    done;
} ArrangeContext;

static void
arrange_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ArrangeContext *arrange = user_data;

  arrange->positions = sk_layout_arrange_finish (SK_PROJECT (object), result, NULL, &arrange->error);
  arrange->done = TRUE;
  g_main_loop_quit (arrange->loop);
}

/* Lays the workflow out as the window's Arrange does, from top to bottom;
 * %FALSE when interrupted. A layout that fails leaves the steps where they
 * are, with a warning, for the window to arrange later. */
static gboolean
arrange_and_wait (SkProject   *project,
                  ChatContext *context)
{
  ArrangeContext arrange = { 0 };

  arrange.loop = context->loop;
  sk_layout_arrange_async (project, DRAFT_NODE_WIDTH, DRAFT_NODE_HEIGHT, SK_LAYOUT_DIRECTION_DOWN,
                           context->cancellable, arrange_done_cb, &arrange);
  if (!arrange.done)
    g_main_loop_run (context->loop);

  if (arrange.positions != NULL)
    {
      sk_layout_apply (project, arrange.positions);
      g_hash_table_unref (arrange.positions);
      return !context->interrupted;
    }

  if (context->interrupted || g_error_matches (arrange.error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_clear_error (&arrange.error);
      return FALSE;
    }

  g_printerr (_("warning: The steps could not be arranged: %s\n"), arrange.error->message);
  g_clear_error (&arrange.error);
  return TRUE;
}

/* Refuses a folder that holds a workflow already, is not a folder, or
 * cannot be made, before the model is asked anything. */
static gboolean
check_draft_folder (GFile       *folder,
                    const char  *path,
                    GError     **error)
{
  g_autoptr(GFile) process = g_file_get_child (folder, SK_PROJECT_FILE_NAME);
  g_autoptr(GFile) existing = g_object_ref (folder);
  g_autofree char *existing_path = NULL;
  GFileType type;

  if (g_file_query_exists (process, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("“%s” already holds a workflow. Change it with “skele chat”, or choose a new "
                     "folder for the draft."),
                   path);
      return FALSE;
    }

  /* The folder is made when the draft is saved; the nearest folder that
   * exists must let it be made there. */
  while ((type = g_file_query_file_type (existing, G_FILE_QUERY_INFO_NONE, NULL)) == G_FILE_TYPE_UNKNOWN)
    {
      GFile *parent = g_file_get_parent (existing);

      if (parent == NULL)
        break;
      g_set_object (&existing, parent);
      g_object_unref (parent);
    }

  existing_path = g_file_get_path (existing);
  if (type != G_FILE_TYPE_DIRECTORY)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                   _("“%s” is not a folder, so the draft cannot be saved in “%s”. Choose another "
                     "folder."),
                   existing_path != NULL ? existing_path : path, path);
      return FALSE;
    }

  if (existing_path == NULL || g_access (existing_path, W_OK) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("The draft cannot be saved in “%s”: you may not write in “%s”. Choose another "
                     "folder."),
                   path, existing_path != NULL ? existing_path : path);
      return FALSE;
    }

  return TRUE;
}

int
skele_command_draft (int    argc,
               char **argv)
{
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkWorkspace) workspace = NULL;
  g_autoptr(SkChatSession) session = NULL;
  g_autoptr(SkChangeset) changeset = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *events = NULL;
  g_autofree char *name = NULL;
  g_autofree char *message = NULL;
  g_autofree char *folder_path = NULL;
  g_auto(AgentOptions) agent = { 0 };
  g_auto(ChatContext) context = { 0 };
  guint n_changes;
  guint n_added;
  int status;
  GOptionEntry entries[] = {
    { "events", 0, 0, G_OPTION_ARG_STRING, &events,
      N_("Write one JSON object per line to standard output instead of text"), "json" },
    { NULL }
  };

  options = g_option_context_new (_("FOLDER DESCRIPTION — draft a new workflow"));
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (options, entries, GETTEXT_PACKAGE);
  add_chat_agent_entries (options, &agent);
  g_option_context_set_summary (options,
                                _("Asks the chat agent to draft a workflow from DESCRIPTION: its "
                                  "steps, each with a task in plain words, and their connections. "
                                  "The draft is arranged as the window’s Arrange does and saved "
                                  "in FOLDER, which is made if needed and must not hold a workflow "
                                  "yet. Nothing is written when the model fails or proposes no "
                                  "steps. The steps have no code yet: “skele generate” or "
                                  "“skele run” lets the coding agent write it."));
  describe_agent_options (options);

  if (!parse_folder_text_arguments (options, "draft",
                                    _("give a new workflow folder and a description of the "
                                      "workflow. See “skele draft --help”."),
                                    &argc, &argv))
    return EXIT_INVALID;

  if (!check_events_option ("draft", events))
    return EXIT_INVALID;

  folder = g_file_new_for_commandline_arg (argv[1]);
  folder_path = g_file_get_path (folder);
  if (folder_path == NULL)
    folder_path = g_file_get_parse_name (folder);

  if (!check_draft_folder (folder, folder_path, &error))
    {
      g_printerr (_("error: %s\n"), error->message);
      return EXIT_INVALID;
    }

  /* The workflow stays in memory until the draft is there. */
  name = g_file_get_basename (folder);
  project = sk_project_new (folder);
  sk_project_set_name (project, name);
  workspace = sk_workspace_new (project, NULL);
  session = sk_chat_session_new (workspace);
  sk_chat_session_set_overrides (session, agent.provider, agent.base_url, agent.model);
  chat_context_init (&context, events != NULL);

  message = g_strdup_printf (DRAFT_REQUEST, argv[2]);
  status = chat_and_wait (session, message, &context);
  if (status != EXIT_SUCCESS)
    {
      if (status != EXIT_INTERRUPTED)
        g_printerr (_("Nothing was written.\n"));
      if (context.tokens_in > 0 || context.tokens_out > 0)
        print_tokens (&context);
      if (context.events)
        emit_chat_finished_event (&context, 0, FALSE, NULL, status);
      return status;
    }

  if (sk_chat_session_get_changeset (session) != NULL)
    changeset = g_object_ref (sk_chat_session_get_changeset (session));

  n_changes = print_answer (&context, changeset, _("The draft:"), &n_added);
  if (n_added == 0)
    {
      g_printerr (_("error: The chat agent proposed no steps, so nothing was written. Describe "
                    "the workflow in more detail, or answer the agent’s questions in the "
                    "description, and try again.\n"));
      status = EXIT_MODEL_FAILED;
    }
  else if (!sk_chat_session_accept (session, &error))
    {
      g_printerr (_("error: %s\n"), error->message);
      status = EXIT_MODEL_FAILED;
    }
  else if (!arrange_and_wait (project, &context))
    {
      status = EXIT_INTERRUPTED;
    }
  else if (!sk_workspace_save (workspace, &error))
    {
      g_printerr (_("error: %s\n"), error->message);
      status = EXIT_INVALID;
    }
  else
    {
      /* The conversation is kept once there is a workflow to keep it in. */
      if (!sk_chat_session_save_log (session, &error))
        g_printerr (_("warning: %s\n"), error->message);

      g_printerr (g_dngettext (GETTEXT_PACKAGE, "Drafted “%s” with %u step in %s.\n",
                               "Drafted “%s” with %u steps in %s.\n",
                               sk_project_get_n_nodes (project)),
                  sk_project_get_name (project), sk_project_get_n_nodes (project), folder_path);
      g_printerr (_("The steps have no code yet: “skele generate” or “skele run” lets the "
                    "coding agent write it.\n"));
    }

  print_tokens (&context);
  if (context.events)
    emit_chat_finished_event (&context, n_changes, status == EXIT_SUCCESS,
                              status == EXIT_SUCCESS ? folder_path : NULL, status);

  return status;
}
