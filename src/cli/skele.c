/* skele.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "skele"

#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib-unix.h>

#include "skele.h"
#include "skele-private.h"

#define MAX_SUMMARY_LINES 12
/* Options not given on the command line come from the settings. */
#define JOBS_UNSET G_MININT
#define TIMEOUT_UNSET (-G_MAXDOUBLE)

typedef struct
{
  GMainLoop    *loop;
  GCancellable *cancellable;
  SkRunReport   report;
  GError       *error;
  gboolean      events;
  gboolean      interrupted;
  gboolean      done;
  const char   *folder;
  GPtrArray    *gates;
} RunContext;

void
skele_print_problem (const SkProblem *problem)
{
  if (problem->is_warning)
    g_printerr (_("warning: %s\n"), problem->message);
  else
    g_printerr (_("error: %s\n"), problem->message);
}

/* Opens a workflow and prints its errors; %NULL when it cannot be used. */
SkWorkspace *
skele_load_checked_workspace (const char *path,
                        const char *refusal)
{
  g_autoptr(GFile) folder = g_file_new_for_commandline_arg (path);
  g_autoptr(SkWorkspace) workspace = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  gboolean has_errors = FALSE;

  if ((workspace = sk_workspace_load (folder, NULL, &error)) == NULL)
    {
      g_printerr (_("error: %s\n"), error->message);
      return NULL;
    }

  problems = sk_project_validate (sk_workspace_get_project (workspace));
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (!problem->is_warning)
        {
          skele_print_problem (problem);
          has_errors = TRUE;
        }
    }

  if (has_errors)
    {
      g_printerr ("%s\n", refusal);
      return NULL;
    }

  return g_steal_pointer (&workspace);
}

static void
print_indented (const char *text,
                guint       max_lines)
{
  g_autofree char *trimmed = NULL;
  g_auto(GStrv) lines = NULL;
  guint n;

  if (text == NULL || text[0] == '\0')
    return;

  trimmed = g_strchomp (g_strdup (text));
  lines = g_strsplit (trimmed, "\n", -1);
  n = g_strv_length (lines);

  for (guint i = 0; i < n && i < max_lines; i++)
    g_printerr ("    %s\n", lines[i]);

  if (n > max_lines)
    g_printerr (g_dngettext (GETTEXT_PACKAGE, "    … and %u more line\n",
                             "    … and %u more lines\n", n - max_lines),
                n - max_lines);
}

/* A path as it can be typed in a shell, quoted only when it has to be. */
static char *
shell_argument (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("_-./+,:@%", *p) == NULL)
      return g_shell_quote (text);

  return text[0] != '\0' ? g_strdup (text) : g_shell_quote (text);
}

/* Writes the object @builder holds as one line of the events. JSON is
 * UTF-8 whatever the locale; g_print() would convert it to the locale's
 * character set, and under the C locale replace every non-ASCII character
 * with a question mark.
 */
static void
print_event (JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = json_builder_get_root (builder);
  g_autofree char *text = json_to_string (root, FALSE);

  fputs (text, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
}

static void
emit_event (SkNode      *node,
            SkNodeState  state)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  const char * const *files;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "event");
  json_builder_add_string_value (builder, "state");
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, sk_node_get_id (node));
  json_builder_set_member_name (builder, "key");
  json_builder_add_string_value (builder, sk_node_get_key (node));
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, sk_node_get_name (node));
  json_builder_set_member_name (builder, "state");
  json_builder_add_string_value (builder, sk_node_state_to_string (state));

  if (sk_node_state_is_finished (state))
    {
      json_builder_set_member_name (builder, "output_text");
      json_builder_add_string_value (builder, sk_node_get_output_text (node));
      json_builder_set_member_name (builder, "output_files");
      json_builder_begin_array (builder);
      files = sk_node_get_output_files (node);
      for (guint i = 0; files[i] != NULL; i++)
        json_builder_add_string_value (builder, files[i]);
      json_builder_end_array (builder);
    }

  if (sk_node_get_error_text (node) != NULL)
    {
      json_builder_set_member_name (builder, "error");
      json_builder_add_string_value (builder, sk_node_get_error_text (node));
    }

  json_builder_end_object (builder);
  print_event (builder);
}

static void
emit_summary_event (const SkRunStats *stats,
                    int               status)
{
  char seconds[G_ASCII_DTOSTR_BUF_SIZE];

  /* JSON needs a decimal point whatever the user's locale writes. */
  g_ascii_formatd (seconds, sizeof seconds, "%.3f", stats->seconds);
  g_print ("{\"event\":\"finished\",\"succeeded\":%u,\"failed\":%u,\"skipped\":%u,"
           "\"up_to_date\":%u,\"cancelled\":%u,\"no_code\":%u,\"waiting\":%u,"
           "\"awaiting_approval\":%u,\"held\":%u,"
           "\"seconds\":%s,\"exit_status\":%d}\n",
           stats->succeeded, stats->failed, stats->skipped, stats->up_to_date,
           stats->cancelled, stats->no_code, stats->waiting, stats->awaiting_approval,
           stats->held, seconds, status);
  fflush (stdout);
}

/* Tells other programs that the run stopped before a gate, and the command
 * that decides on it. */
static void
emit_waiting_event (SkNode     *node,
                    const char *folder)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "event");
  json_builder_add_string_value (builder, "waiting");
  json_builder_set_member_name (builder, "reason");
  json_builder_add_string_value (builder, "approval");
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, sk_node_get_id (node));
  json_builder_set_member_name (builder, "key");
  json_builder_add_string_value (builder, sk_node_get_key (node));
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, sk_node_get_name (node));
  json_builder_set_member_name (builder, "approve");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "skele");
  json_builder_add_string_value (builder, "approve");
  json_builder_add_string_value (builder, folder);
  json_builder_add_string_value (builder, sk_node_get_key (node));
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  print_event (builder);
}

static void
node_state_changed_cb (SkRunner    *runner,
                       SkNode      *node,
                       SkNodeState  state,
                       RunContext  *context)
{
  const char *name = sk_node_get_name (node);

  if (context->events)
    emit_event (node, state);

  switch (state)
    {
    case SK_NODE_STATE_RUNNING:
      g_printerr (_("Running “%s”…\n"), name);
      break;

    case SK_NODE_STATE_SUCCEEDED:
      g_printerr (_("✓ “%s” succeeded.\n"), name);
      print_indented (sk_node_get_output_text (node), MAX_SUMMARY_LINES);
      break;

    case SK_NODE_STATE_SKIPPED:
      /* A step skipped for a reason of the runner's, such as a prior without
       * code, says so in its error text. */
      if (sk_node_get_error_text (node) != NULL)
        g_printerr (_("– “%s”: %s\n"), name, sk_node_get_error_text (node));
      else
        g_printerr (_("– “%s” was skipped: the step decided not to run.\n"), name);
      print_indented (sk_node_get_output_text (node), MAX_SUMMARY_LINES);
      break;

    case SK_NODE_STATE_NO_CODE:
      if (sk_node_get_error_text (node) != NULL)
        g_printerr (_("? “%s”: %s\n"), name, sk_node_get_error_text (node));
      else
        g_printerr (_("? “%s” has no code yet.\n"), name);
      break;

    case SK_NODE_STATE_UP_TO_DATE:
      g_printerr (_("= “%s” is up to date; nothing it depends on has changed.\n"), name);
      break;

    case SK_NODE_STATE_FAILED:
      g_printerr (_("✗ “%s” failed: %s\n"), name,
                  sk_node_get_error_text (node) != NULL ? sk_node_get_error_text (node) : "");
      print_indented (sk_node_get_error_detail (node), MAX_SUMMARY_LINES * 2);
      if (sk_node_get_key (node)[0] != '\0')
        g_printerr (_("    Its full output is in %s/%s/.\n"), sk_node_get_key (node), SK_STEP_BOOKKEEPING_NAME);
      break;

    case SK_NODE_STATE_CANCELLED:
      g_printerr (_("“%s” was stopped.\n"), name);
      break;

    case SK_NODE_STATE_WRITING_CODE:
      g_printerr (_("Writing the code of “%s”…\n"), name);
      break;

    case SK_NODE_STATE_AWAITING_APPROVAL:
      g_printerr (_("‖ “%s” waits for approval; the steps after it were not run.\n"), name);
      if (context->gates != NULL)
        g_ptr_array_add (context->gates, g_object_ref (node));
      if (context->events)
        emit_waiting_event (node, context->folder);
      break;

    case SK_NODE_STATE_IDLE:
    case SK_NODE_STATE_STALE:
    case SK_NODE_STATE_QUEUED:
    default:
      break;
    }
}

static void
agent_progress_cb (SkWorkspace *workspace,
                   SkNode      *node,
                   const char *message,
                   RunContext *context)
{
  g_printerr ("    · %s\n", message);

  if (context->events)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "event");
      json_builder_add_string_value (builder, "agent");
      json_builder_set_member_name (builder, "key");
      json_builder_add_string_value (builder, sk_node_get_key (node));
      json_builder_set_member_name (builder, "message");
      json_builder_add_string_value (builder, message);
      json_builder_end_object (builder);
      print_event (builder);
    }
}

/* Frees what the options hold. */
void
skele_agent_options_clear (AgentOptions *agent)
{
  g_clear_pointer (&agent->provider, g_free);
  g_clear_pointer (&agent->base_url, g_free);
  g_clear_pointer (&agent->model, g_free);
}

static void
add_agent_entries (GOptionContext *options,
                   AgentOptions   *agent)
{
  /* The entries are copied into the context's main group. */
  const GOptionEntry entries[] = {
    { "provider", 0, 0, G_OPTION_ARG_STRING, &agent->provider,
      N_("The coding agent’s server kind: openai, ollama or anthropic"), "NAME" },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &agent->base_url,
      N_("The coding agent’s server address, e.g. http://127.0.0.1:11434/v1"), "URL" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &agent->model,
      N_("The model that writes and repairs code"), "NAME" },
    { NULL }
  };

  g_option_context_add_main_entries (options, entries, GETTEXT_PACKAGE);
}

static void
workspace_message_cb (SkWorkspace *workspace,
                      const char  *message,
                      gboolean     about_agent,
                      RunContext  *context)
{
  g_printerr (_("warning: %s\n"), message);
}

/* Tells other programs how the steps got their processes, and why they
 * were not forked when they could not be. */
static void
processes_cb (SkRunner   *runner,
              const char *mode,
              const char *reason,
              RunContext *context)
{
  g_autoptr(JsonBuilder) builder = NULL;

  if (!context->events)
    return;

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "event");
  json_builder_add_string_value (builder, "processes");
  json_builder_set_member_name (builder, "mode");
  json_builder_add_string_value (builder, mode);
  if (reason != NULL)
    {
      json_builder_set_member_name (builder, "reason");
      json_builder_add_string_value (builder, reason);
    }
  json_builder_end_object (builder);
  print_event (builder);
}

static void
run_started_cb (SkWorkspace *workspace,
                const char  *agent,
                RunContext  *context)
{
  if (agent != NULL)
    g_printerr (_("Coding agent: %s.\n"), agent);
}

static void
run_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  RunContext *context = user_data;

  sk_workspace_run_finish (SK_WORKSPACE (object), result, &context->report, &context->error);
  context->done = TRUE;
  g_main_loop_quit (context->loop);
}

static gboolean
interrupt_cb (gpointer user_data)
{
  RunContext *context = user_data;

  if (!context->interrupted)
    g_printerr (_("Stopping the run…\n"));

  context->interrupted = TRUE;
  g_cancellable_cancel (context->cancellable);
  return G_SOURCE_CONTINUE;
}

/* Runs (or only writes the code of) @nodes until done or interrupted, and
 * returns the exit status.
 */
static int
run_and_wait (SkWorkspace        *workspace,
              RunContext         *context,
              GPtrArray          *nodes,
              const SkRunOptions *options,
              gboolean            generate_only)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  SkRunner *runner = sk_workspace_get_runner (workspace);
  guint sigint_id, sigterm_id;
  int status;

  context->loop = loop;
  context->cancellable = cancellable;

  g_signal_connect (runner, "node-state-changed", G_CALLBACK (node_state_changed_cb), context);
  g_signal_connect (runner, "processes", G_CALLBACK (processes_cb), context);
  g_signal_connect (workspace, "agent-progress", G_CALLBACK (agent_progress_cb), context);
  g_signal_connect (workspace, "run-started", G_CALLBACK (run_started_cb), context);
  g_signal_connect (workspace, "message", G_CALLBACK (workspace_message_cb), context);
  sigint_id = g_unix_signal_add (SIGINT, interrupt_cb, context);
  sigterm_id = g_unix_signal_add (SIGTERM, interrupt_cb, context);

  sk_workspace_run_async (workspace, nodes, options, generate_only, cancellable, run_done_cb, context);
  if (!context->done)
    g_main_loop_run (loop);

  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  g_signal_handlers_disconnect_by_data (runner, context);
  g_signal_handlers_disconnect_by_data (workspace, context);
  context->loop = NULL;
  context->cancellable = NULL;

  /* A workflow that cannot be run, or an agent that is not set up, is not
   * a step's failure; results that could not be saved are.
   */
  if (context->interrupted || g_error_matches (context->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    status = EXIT_INTERRUPTED;
  else if (context->error != NULL && context->error->domain != SK_RUNNER_ERROR &&
           !g_error_matches (context->error, SK_WORKSPACE_ERROR, SK_WORKSPACE_ERROR_SAVE))
    status = EXIT_INVALID;
  else if (context->error != NULL || context->report.stats.failed > 0 || context->report.stats.cancelled > 0 ||
           context->report.stats.no_code > 0 || context->report.stats.waiting > 0)
    status = EXIT_NODE_FAILED;
  else if (context->report.stats.awaiting_approval > 0)
    status = EXIT_AT_GATE;
  else
    status = EXIT_SUCCESS;

  if (context->error != NULL && !g_error_matches (context->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_printerr (_("error: %s\n"), context->error->message);

  return status;
}

/* Parses the options of @command and checks that one folder is left. */
static gboolean
parse_folder_arguments (GOptionContext   *options,
                        const char       *command,
                        int              *argc,
                        char           ***argv)
{
  g_autoptr(GError) error = NULL;

  if (!g_option_context_parse (options, argc, argv, &error))
    {
      g_printerr ("skele %s: %s\n", command, error->message);
      return FALSE;
    }

  if (*argc != 2)
    {
      /* Translators: both %s are the command, such as “run”. */
      g_printerr (_("skele %s: give exactly one workflow folder. See “skele %s --help”.\n"),
                  command, command);
      return FALSE;
    }

  return TRUE;
}

static int
command_run (int    argc,
             char **argv)
{
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SkWorkspace) workspace = NULL;
  g_autoptr(GPtrArray) nodes = NULL;
  g_auto(GStrv) only = NULL;
  g_auto(GStrv) approve = NULL;
  g_autoptr(GPtrArray) gates = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *from = NULL;
  g_autofree char *to = NULL;
  g_autofree char *events = NULL;
  g_autofree char *python = NULL;
  g_autofree char *sandbox = NULL;
  g_auto(AgentOptions) agent = { 0 };
  RunContext context = { 0 };
  SkRunOptions run_options;
  SkSandboxPolicy sandbox_policy = SK_SANDBOX_POLICY_REQUIRED;
  gboolean no_agent = FALSE;
  gboolean force = FALSE;
  gboolean in_memory = FALSE;
  gboolean spawn_steps = FALSE;
  double timeout = TIMEOUT_UNSET;
  int jobs = JOBS_UNSET;
  int status;
  GOptionEntry entries[] = {
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      N_("Run at most N steps at once (default: as in Preferences)"), "N" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force,
      N_("Run steps again even when they are up to date"), NULL },
    { "only", 0, 0, G_OPTION_ARG_STRING_ARRAY, &only,
      N_("Run only this step (may be given more than once)"), "KEY" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &from,
      N_("Run this step and every step after it"), "KEY" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to,
      N_("Run this step and every step it needs"), "KEY" },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &timeout,
      N_("Stop a step that runs longer than this (default: as in Preferences)"), "SECONDS" },
    { "in-memory", 0, 0, G_OPTION_ARG_NONE, &in_memory,
      N_("Run all steps in one Python process and pass results without saving them"), NULL },
    { "spawn-steps", 0, 0, G_OPTION_ARG_NONE, &spawn_steps,
      N_("Start a new Python for each step instead of forking it from one started for the run"),
      NULL },
    { "events", 0, 0, G_OPTION_ARG_STRING, &events,
      N_("Write one JSON object per line to standard output for each change"), "json" },
    { "python", 0, 0, G_OPTION_ARG_FILENAME, &python,
      N_("The Python interpreter that runs the steps"), "PATH" },
    { "no-agent", 0, 0, G_OPTION_ARG_NONE, &no_agent,
      N_("Never call the coding agent: steps without code fail, failed steps are not repaired"), NULL },
    { "sandbox", 0, 0, G_OPTION_ARG_STRING, &sandbox,
      N_("Run steps in a sandbox: “required” (refuse to run without one), “when-available” or "
         "“off” (default: SKELE_SANDBOX, or as in Preferences)"), "POLICY" },
    { "approve", 0, 0, G_OPTION_ARG_STRING_ARRAY, &approve,
      N_("Approve this approval gate when the run reaches it (may be given more than once)"), "KEY" },
    { NULL }
  };

  options = g_option_context_new (_("FOLDER — run a workflow"));
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (options, entries, GETTEXT_PACKAGE);
  add_agent_entries (options, &agent);
  g_option_context_set_summary (options,
                                _("Runs the steps of a workflow in dependency order. Steps marked "
                                  "to run are run unless --only, --from or --to choose others. A "
                                  "language model is called only when a coding agent is set up "
                                  "(see “skele generate --help”): to write the code of a step that "
                                  "has none, and to repair a step that failed."));

  if (!parse_folder_arguments (options, "run", &argc, &argv))
    return EXIT_INVALID;

  if (events != NULL && !g_str_equal (events, "json"))
    {
      g_printerr (_("skele run: --events only knows “json”.\n"));
      return EXIT_INVALID;
    }

  if ((jobs < 0 && jobs != JOBS_UNSET) || (timeout < 0 && timeout != TIMEOUT_UNSET))
    {
      g_printerr (_("skele run: --jobs and --timeout cannot be negative.\n"));
      return EXIT_INVALID;
    }

  if (sandbox != NULL && !sk_sandbox_policy_from_string (sandbox, &sandbox_policy))
    {
      g_printerr (_("skele run: --sandbox is one of “required”, “when-available” or “off”.\n"));
      return EXIT_INVALID;
    }

  workspace = skele_load_checked_workspace (argv[1], _("The workflow was not run. Correct the problems "
                                                 "above and try again."));
  if (workspace == NULL)
    return EXIT_INVALID;

  nodes = sk_project_select_nodes (sk_workspace_get_project (workspace),
                                   (const char * const *) only, from, to, &error);
  if (nodes == NULL)
    {
      g_printerr (_("error: %s\n"), error->message);
      return EXIT_INVALID;
    }

  for (guint i = 0; approve != NULL && approve[i] != NULL; i++)
    {
      SkNode *gate = sk_project_get_node_by_key (sk_workspace_get_project (workspace), approve[i]);

      if (gate == NULL || !sk_node_get_approval (gate))
        {
          g_printerr (gate == NULL
                      ? _("skele run: --approve names “%s”, which is no step’s key.\n")
                      : _("skele run: --approve names “%s”, which is not an approval gate.\n"),
                      approve[i]);
          return EXIT_INVALID;
        }
    }

  if (nodes->len == 0)
    {
      g_printerr (_("No step is marked to run. Mark steps with “run”: true, or choose them "
                    "with --only, --from or --to.\n"));
      if (events != NULL)
        emit_summary_event (&context.report.stats, 0);
      return EXIT_SUCCESS;
    }

  if (python == NULL)
    python = g_strdup (g_getenv ("SKELE_PYTHON"));

  /* The settings are the window's, with the options over them. */
  sk_run_options_init (&run_options);
  run_options.jobs = jobs != JOBS_UNSET ? jobs : -1;
  run_options.timeout = timeout != TIMEOUT_UNSET ? timeout : -1;
  run_options.python = python;
  run_options.force = force;
  run_options.in_memory = in_memory;
  run_options.no_agent = no_agent;
  run_options.provider = agent.provider;
  run_options.base_url = agent.base_url;
  run_options.model = agent.model;
  run_options.strict = TRUE;
  run_options.sandbox = sandbox != NULL ? (int) sandbox_policy : -1;
  run_options.approve = (const char * const *) approve;

  sk_runner_set_fork_server (sk_workspace_get_runner (workspace), !spawn_steps);

  context.events = events != NULL;
  context.folder = argv[1];
  context.gates = gates;

  g_printerr (g_dngettext (GETTEXT_PACKAGE, "Running %u step of “%s”.\n",
                           "Running %u steps of “%s”.\n", nodes->len),
              nodes->len, sk_project_get_name (sk_workspace_get_project (workspace)));

  status = run_and_wait (workspace, &context, nodes, &run_options, FALSE);

  g_printerr (_("Finished in %.1f s: %u succeeded, %u failed, %u skipped, %u up to date, "
                "%u stopped, %u without code, %u waiting for code.\n"),
              context.report.stats.seconds, context.report.stats.succeeded,
              context.report.stats.failed, context.report.stats.skipped,
              context.report.stats.up_to_date, context.report.stats.cancelled,
              context.report.stats.no_code, context.report.stats.waiting);
  if (context.report.stats.awaiting_approval > 0)
    g_printerr (g_dngettext (GETTEXT_PACKAGE,
                             "%u approval gate waits for a decision, and %u of the steps after it.\n",
                             "%u approval gates wait for a decision, and %u of the steps after them.\n",
                             context.report.stats.awaiting_approval),
                context.report.stats.awaiting_approval, context.report.stats.held);

  for (guint i = 0; i < gates->len; i++)
    {
      SkNode *gate = g_ptr_array_index (gates, i);
      g_autofree char *quoted_folder = shell_argument (argv[1]);

      /* Translators: the first %s is a step's name; the others make a command. */
      g_printerr (_("“%s” waits for approval. Look at what it receives, then decide and run "
                    "again:\n    skele approve %s %s [--deny] [--note TEXT]\n    skele run %s\n"),
                  sk_node_get_name (gate), quoted_folder, sk_node_get_key (gate), quoted_folder);
    }

  if (context.events)
    emit_summary_event (&context.report.stats, status);

  g_clear_error (&context.error);
  return status;
}

static int
command_approve (int    argc,
                 char **argv)
{
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkApproval) approval = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autofree char *folder_path = NULL;
  g_autofree char *note = NULL;
  g_autofree char *decision = NULL;
  g_autofree char *quoted_folder = NULL;
  gboolean deny = FALSE;
  SkNode *gate;
  GOptionEntry entries[] = {
    { "deny", 0, 0, G_OPTION_ARG_NONE, &deny,
      N_("Deny the gate: it is skipped, and so is what depends only on it"), NULL },
    { "note", 0, 0, G_OPTION_ARG_STRING, &note,
      N_("Keep a note with the decision"), "TEXT" },
    { NULL }
  };

  options = g_option_context_new (_("FOLDER KEY — decide on an approval gate"));
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (options, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (options,
                                _("Approves, or with --deny denies, the approval gate KEY at which "
                                  "a run of the workflow stopped. The decision holds for what the "
                                  "gate received in that run; run the workflow again to go on."));

  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("skele approve: %s\n", error->message);
      return EXIT_INVALID;
    }

  if (argc != 3)
    {
      g_printerr (_("skele approve: give a workflow folder and the key of a gate. See "
                    "“skele approve --help”.\n"));
      return EXIT_INVALID;
    }

  file = g_file_new_for_commandline_arg (argv[1]);
  if ((project = sk_project_load (file, &error)) == NULL)
    {
      g_printerr (_("error: %s\n"), error->message);
      return EXIT_INVALID;
    }

  gate = sk_project_get_node_by_key (project, argv[2]);
  if (gate == NULL)
    {
      g_printerr (_("error: the workflow has no step with the key “%s”.\n"), argv[2]);
      return EXIT_INVALID;
    }

  if (!sk_project_decide_gate (project, gate, !deny, note, &error))
    {
      g_printerr (_("error: %s\n"), error->message);
      return EXIT_INVALID;
    }

  folder = sk_project_get_node_folder (project, gate);
  folder_path = g_file_get_path (folder);
  approval = sk_approval_read (folder_path, sk_node_get_key (gate));
  decision = approval != NULL ? sk_approval_describe (approval) : NULL;
  quoted_folder = shell_argument (argv[1]);
  /* Translators: the first %s is a step's name, the second the decision
   * in a sentence, the third a command. */
  g_printerr (_("“%s”: %s Run the workflow again to go on: skele run %s\n"),
              sk_node_get_name (gate), decision != NULL ? decision : "", quoted_folder);
  return EXIT_SUCCESS;
}

static int
command_validate (int    argc,
                  char **argv)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autofree char *python = NULL;
  guint errors = 0;
  guint warnings = 0;

  options = g_option_context_new (_("FOLDER|FILE — check a workflow without running it"));
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);
  g_option_context_set_summary (options,
                                _("Checks the workflow’s structure, its cycles, its step "
                                  "names and that each step has a script."));

  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("skele validate: %s\n", error->message);
      return EXIT_INVALID;
    }

  if (argc != 2)
    {
      g_printerr (_("skele validate: give exactly one workflow folder or process.json file.\n"));
      return EXIT_INVALID;
    }

  file = g_file_new_for_commandline_arg (argv[1]);
  if ((project = sk_project_load (file, &error)) == NULL)
    {
      g_printerr (_("error: %s\n"), error->message);
      return EXIT_INVALID;
    }

  problems = sk_project_validate (project);
  python = g_strdup (g_getenv ("SKELE_PYTHON"));
  if (python == NULL || python[0] == '\0')
    {
      g_free (python);
      python = g_find_program_in_path ("python3");
    }
  if (python != NULL && !sk_project_check_conditions (project, python, problems, &error))
    {
      g_printerr (_("warning: %s\n"), error->message);
      g_clear_error (&error);
    }

  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      skele_print_problem (problem);
      if (problem->is_warning)
        warnings++;
      else
        errors++;
    }

  if (errors > 0)
    {
      g_printerr (g_dngettext (GETTEXT_PACKAGE, "The workflow has %u problem to correct.\n",
                               "The workflow has %u problems to correct.\n", errors),
                  errors);
      return EXIT_INVALID;
    }

  g_printerr (g_dngettext (GETTEXT_PACKAGE, "The workflow “%s” is valid: %u step.\n",
                           "The workflow “%s” is valid: %u steps.\n",
                           sk_project_get_n_nodes (project)),
              sk_project_get_name (project), sk_project_get_n_nodes (project));
  return EXIT_SUCCESS;
}

static int
command_generate (int    argc,
                  char **argv)
{
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SkWorkspace) workspace = NULL;
  g_autoptr(GPtrArray) nodes = NULL;
  g_auto(GStrv) keys = NULL;
  g_autofree char *python = NULL;
  g_auto(AgentOptions) agent = { 0 };
  RunContext context = { 0 };
  g_autofree char *read_text = NULL;
  g_autofree char *written_text = NULL;
  guint64 prompt_tokens = 0, completion_tokens = 0;
  SkRunOptions run_options;
  int jobs = JOBS_UNSET;
  int status;
  GOptionEntry entries[] = {
    { "node", 'n', 0, G_OPTION_ARG_STRING_ARRAY, &keys,
      N_("Write the code of this step only (may be given more than once)"), "KEY" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      N_("Write the code of at most N steps at once (default: as in Preferences)"), "N" },
    { "python", 0, 0, G_OPTION_ARG_FILENAME, &python,
      N_("The Python interpreter the code is written and tested for"), "PATH" },
    { NULL }
  };

  options = g_option_context_new (_("FOLDER — write the missing code of a workflow"));
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (options, entries, GETTEXT_PACKAGE);
  add_agent_entries (options, &agent);
  g_option_context_set_summary (options,
                                _("Lets the coding agent write the script of every step that has "
                                  "none, in dependency order, without running the workflow. Steps "
                                  "that already have a script are left as they are."));
  g_option_context_set_description (options,
                                    _("The agent’s server and model come from the application’s "
                                      "Preferences, overridden by the environment variables "
                                      "SKELE_LLM_PROVIDER, SKELE_LLM_BASE_URL, SKELE_LLM_MODEL and "
                                      "SKELE_LLM_API_KEY, overridden by --provider, --base-url and "
                                      "--model. The API key is read from SKELE_LLM_API_KEY or the "
                                      "desktop keyring, never from the command line."));

  if (!parse_folder_arguments (options, "generate", &argc, &argv))
    return EXIT_INVALID;

  if (jobs < 0 && jobs != JOBS_UNSET)
    {
      g_printerr (_("skele generate: --jobs cannot be negative.\n"));
      return EXIT_INVALID;
    }

  workspace = skele_load_checked_workspace (argv[1], _("No code was written. Correct the problems above "
                                                 "and try again."));
  if (workspace == NULL)
    return EXIT_INVALID;

  if (keys != NULL)
    {
      nodes = sk_project_select_nodes (sk_workspace_get_project (workspace),
                                       (const char * const *) keys, NULL, NULL, &error);
      if (nodes == NULL)
        {
          g_printerr (_("error: %s\n"), error->message);
          return EXIT_INVALID;
        }
    }

  if (python == NULL)
    python = g_strdup (g_getenv ("SKELE_PYTHON"));

  sk_run_options_init (&run_options);
  run_options.jobs = jobs != JOBS_UNSET ? jobs : -1;
  run_options.python = python;
  run_options.provider = agent.provider;
  run_options.base_url = agent.base_url;
  run_options.model = agent.model;
  run_options.strict = TRUE;

  status = run_and_wait (workspace, &context, nodes, &run_options, TRUE);

  sk_project_get_tokens (sk_workspace_get_project (workspace), &prompt_tokens, &completion_tokens);

  read_text = g_strdup_printf ("%" G_GUINT64_FORMAT, prompt_tokens);
  written_text = g_strdup_printf ("%" G_GUINT64_FORMAT, completion_tokens);
  g_printerr (_("Finished in %.1f s: code written for %u steps, %u failed, %u already had code.\n"),
              context.report.stats.seconds, context.report.stats.succeeded,
              context.report.stats.failed, context.report.stats.up_to_date);
  /* Translators: the counts of tokens the coding agent read and wrote. */
  g_printerr (_("The workflow’s coding agent has used %s tokens read and %s written so far.\n"),
              read_text, written_text);

  g_clear_error (&context.error);
  return status;
}

/* Chat and draft ----------------------------------------------------------- */

static void
print_usage (FILE *stream)
{
  fprintf (stream, "%s",
           _("Usage: skele COMMAND [OPTION…]\n"
             "\n"
             "Commands:\n"
             "  run FOLDER                Run a workflow’s steps in dependency order\n"
             "  validate FOLDER           Check a workflow without running it\n"
             "  generate FOLDER           Write the code of the steps that have none\n"
             "  chat FOLDER MESSAGE       Ask the chat agent about a workflow, or to change it\n"
             "  draft FOLDER DESCRIPTION  Draft a new workflow with the chat agent\n"
             "  approve FOLDER KEY        Approve or deny an approval gate a run waits at\n"
             "  export FOLDER --format F  Write a workflow as Mermaid, DOT, SVG, PNG, Python, a notebook\n"
             "                            or an HTML report\n"
             "  import FILE.mmd -o FOLDER Make a Mermaid flowchart a workflow\n"
             "\n"
             "Run “skele COMMAND --help” for a command’s options.\n"));
}

int
main (int    argc,
      char **argv)
{
  const char *command;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2)
    {
      print_usage (stderr);
      return EXIT_INVALID;
    }

  command = argv[1];

  if (g_str_equal (command, "--version"))
    {
      g_print ("skele %s\n", PACKAGE_VERSION);
      return EXIT_SUCCESS;
    }

  if (g_str_equal (command, "--help") || g_str_equal (command, "-h") ||
      g_str_equal (command, "help"))
    {
      print_usage (stdout);
      return EXIT_SUCCESS;
    }

  /* Each command parses its own options, with its name as the program. */
  argv[1] = g_strdup_printf ("skele %s", command);

  if (g_str_equal (command, "run"))
    return command_run (argc - 1, argv + 1);

  if (g_str_equal (command, "validate"))
    return command_validate (argc - 1, argv + 1);

  if (g_str_equal (command, "generate"))
    return command_generate (argc - 1, argv + 1);

  if (g_str_equal (command, "chat"))
    return skele_command_chat (argc - 1, argv + 1);

  if (g_str_equal (command, "draft"))
    return skele_command_draft (argc - 1, argv + 1);

  if (g_str_equal (command, "approve"))
    return command_approve (argc - 1, argv + 1);

  if (g_str_equal (command, "export"))
    return skele_command_export (argc - 1, argv + 1);

  if (g_str_equal (command, "import"))
    return skele_command_import (argc - 1, argv + 1);

  g_printerr (_("skele: unknown command “%s”.\n"), command);
  print_usage (stderr);
  return EXIT_INVALID;
}
