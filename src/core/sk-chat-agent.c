/* sk-chat-agent.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One turn of the chat agent. The model sees the workflow's outline, never
 * its JSON; it fetches what it needs with the read tools and proposes
 * changes only through the edit tools, which go to a #SkChangeset and are
 * refused with the reason when they would break the workflow. The turn ends
 * with `finish`, with a reply of plain text and no tool call, or when the
 * replies run out. Tools go as native definitions, or, for servers that do
 * not take them, as the fenced `tool` blocks the coding agent uses too.
 */

#define G_LOG_DOMAIN "sk-chat-agent"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-agent-text-calls.h"
#include "sk-chat-agent.h"
#include "sk-chat-context.h"
#include "sk-chat-log.h"
#include "sk-json.h"
#include "sk-util.h"
#include "sk-prompts.h"
#include "sk-step-folder.h"

/* A tool's result is cut to this many bytes, so that one huge script or
 * log cannot fill the model's context. */
#define MAX_RESULT_BYTES 16000
/* How much of the end of a log read_log shows. */
#define LOG_TAIL_BYTES 3000

struct _SkChatAgent
{
  GObject       parent_instance;

  SkLlmClient  *client;
  SkChangeset  *changeset;
  GStrv         selection;
  guint         max_steps;
  gboolean      text_tools;

  /* One turn. */
  GTask        *task;
  GPtrArray    *definitions;
  GPtrArray    *turns;
  char         *system;
  GPtrArray    *messages;
  GString      *text_results;
  char         *reply;
  guint         steps;
  guint64       prompt_tokens;
  guint64       completion_tokens;
};

G_DEFINE_FINAL_TYPE (SkChatAgent, sk_chat_agent, G_TYPE_OBJECT)

G_DEFINE_QUARK (sk-chat-agent-error-quark, sk_chat_agent_error)

enum {
  TEXT,
  PROGRESS,
  TRANSIENT,
  USAGE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void agent_step (SkChatAgent *self);

/* The tools ---------------------------------------------------------------- */

#define STEP_PARAMETER \
  "\"step\":{\"type\":\"string\",\"description\":\"The step's id or key\"}"

static const struct
{
  const char *name;
  const char *description;
  const char *parameters;
} definitions[] = {
  { SK_CHAT_TOOL_LIST_STEPS,
    "List the workflow's steps as they are now, proposed changes included: one line per step.",
    "{\"type\":\"object\",\"properties\":{}}" },
  { SK_CHAT_TOOL_GET_STEP,
    "Show one step: its JSON, state, report, files and last error.",
    "{\"type\":\"object\",\"properties\":{" STEP_PARAMETER "},\"required\":[\"step\"]}" },
  { SK_CHAT_TOOL_READ_CODE,
    "Show a step's Python script.",
    "{\"type\":\"object\",\"properties\":{" STEP_PARAMETER "},\"required\":[\"step\"]}" },
  { SK_CHAT_TOOL_READ_LOG,
    "Show why a step last failed: its error, the end of its error output and the end of the "
    "coding agent's log.",
    "{\"type\":\"object\",\"properties\":{" STEP_PARAMETER "},\"required\":[\"step\"]}" },
  { SK_CHAT_TOOL_ADD_STEP,
    "Propose a new step. Returns its id.",
    "{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\",\"description\":\"A short name in plain words\"},"
    "\"task\":{\"type\":\"string\",\"description\":\"What the step must do, in plain words\"},"
    "\"description\":{\"type\":\"string\",\"description\":\"Optional background for the coding agent\"},"
    "\"priors\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"description\":\"Ids or keys of the steps whose results it needs\"}},"
    "\"required\":[\"name\",\"task\"]}" },
  { SK_CHAT_TOOL_REMOVE_STEP,
    "Propose removing a step and its connections.",
    "{\"type\":\"object\",\"properties\":{" STEP_PARAMETER "},\"required\":[\"step\"]}" },
  { SK_CHAT_TOOL_RENAME_STEP,
    "Propose a new name for a step.",
    "{\"type\":\"object\",\"properties\":{" STEP_PARAMETER ","
    "\"name\":{\"type\":\"string\"}},\"required\":[\"step\",\"name\"]}" },
  { SK_CHAT_TOOL_SET_TASK,
    "Propose a new task for a step. Its script will have to be written again.",
    "{\"type\":\"object\",\"properties\":{" STEP_PARAMETER ","
    "\"text\":{\"type\":\"string\"}},\"required\":[\"step\",\"text\"]}" },
  { SK_CHAT_TOOL_SET_DESCRIPTION,
    "Propose a new description for a step.",
    "{\"type\":\"object\",\"properties\":{" STEP_PARAMETER ","
    "\"text\":{\"type\":\"string\"}},\"required\":[\"step\",\"text\"]}" },
  { SK_CHAT_TOOL_CONNECT,
    "Propose that `from` becomes a prior of `to`, so that `to` receives its results.",
    "{\"type\":\"object\",\"properties\":{\"from\":{\"type\":\"string\"},\"to\":{\"type\":\"string\"}},"
    "\"required\":[\"from\",\"to\"]}" },
  { SK_CHAT_TOOL_DISCONNECT,
    "Propose that `from` stops being a prior of `to`.",
    "{\"type\":\"object\",\"properties\":{\"from\":{\"type\":\"string\"},\"to\":{\"type\":\"string\"}},"
    "\"required\":[\"from\",\"to\"]}" },
  { SK_CHAT_TOOL_SET_RUN,
    "Propose whether a step takes part in runs.",
    "{\"type\":\"object\",\"properties\":{" STEP_PARAMETER ","
    "\"run\":{\"type\":\"boolean\"}},\"required\":[\"step\",\"run\"]}" },
  { SK_CHAT_TOOL_SET_PROCESS,
    "Propose a new name or description for the whole workflow.",
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"description\":{\"type\":\"string\"}}}" },
  { SK_CHAT_TOOL_FINISH,
    "End your turn with a short answer for the person.",
    "{\"type\":\"object\",\"properties\":{\"summary\":{\"type\":\"string\"}},\"required\":[\"summary\"]}" },
};

/**
 * sk_chat_agent_get_definitions:
 *
 * Returns: (transfer full) (element-type SkLlmTool): the chat agent's
 *   tools with their JSON Schemas
 */
GPtrArray *
sk_chat_agent_get_definitions (void)
{
  GPtrArray *tools = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_llm_tool_free);

  for (guint i = 0; i < G_N_ELEMENTS (definitions); i++)
    g_ptr_array_add (tools, sk_llm_tool_new (definitions[i].name, definitions[i].description,
                                             definitions[i].parameters));

  return tools;
}

static gboolean
is_known_tool (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (definitions); i++)
    if (g_strcmp0 (name, definitions[i].name) == 0)
      return TRUE;

  return FALSE;
}

/* A required text argument, or %NULL with a message the model can act on. */
static const char *
require_string (JsonObject  *arguments,
                const char  *tool,
                const char  *name,
                GError     **error)
{
  const char *value = sk_json_get_string (arguments, name);

  if (value == NULL)
    g_set_error (error, SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_EMPTY,
                 "`%s` needs the text argument `%s`.", tool, name);

  return value;
}

static char *
cut_result (char *text)
{
  gsize length = strlen (text);
  const char *end;
  char *cut;

  if (length <= MAX_RESULT_BYTES)
    return text;

  end = text + MAX_RESULT_BYTES;
  while (end > text && (*end & 0xc0) == 0x80)
    end--;
  cut = g_strdup_printf ("%.*s\n[… %" G_GSIZE_FORMAT " more bytes not shown]",
                         (int) (end - text), text, length - (gsize) (end - text));
  g_free (text);
  return cut;
}

/* The end of a file, from a line start, or %NULL when there is none. */
static char *
file_tail (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *contents = NULL;
  const char *start;
  gsize length;

  if (path == NULL || !g_file_get_contents (path, &contents, &length, NULL) || length == 0)
    return NULL;

  start = contents;
  if (length > LOG_TAIL_BYTES)
    {
      const char *newline;

      start = contents + length - LOG_TAIL_BYTES;
      newline = strchr (start, '\n');
      if (newline != NULL)
        start = newline + 1;
    }

  if (!g_utf8_validate (start, -1, NULL))
    return g_utf8_make_valid (start, -1);

  return g_strdup (start);
}

/* The step as it is in the workflow on disk, whose files are there; a step
 * the changeset added has none yet. */
static SkNode *
base_node (SkChangeset *changeset,
           SkNode      *node)
{
  return sk_project_get_node (sk_changeset_get_project (changeset), sk_node_get_id (node));
}

/* The scratch copy is made from the workflow's JSON, which does not hold
 * how its steps last ran; the outline and the read tools must show the
 * real states and errors, so they are brought over before each reading. */
static void
copy_run_state (SkChangeset *changeset)
{
  SkProject *project = sk_changeset_get_project (changeset);
  SkProject *scratch = sk_changeset_get_scratch (changeset);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (scratch));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (scratch), i);
      SkNode *real = sk_project_get_node (project, sk_node_get_id (node));

      if (real == NULL)
        continue;
      sk_node_set_state (node, sk_node_get_state (real));
      sk_node_set_error (node, sk_node_get_error_text (real), sk_node_get_error_detail (real));
    }
}

static char *
read_code (SkChangeset *changeset,
           SkNode      *node)
{
  SkProject *project = sk_changeset_get_project (changeset);
  SkNode *base = base_node (changeset, node);
  g_autoptr(GFile) script = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;

  if (base == NULL || sk_project_get_folder (project) == NULL || *sk_node_get_key (base) == '\0')
    return g_strdup_printf ("The step “%s” has no code yet.", sk_node_get_name (node));

  script = sk_project_get_node_script (project, base);
  path = g_file_get_path (script);
  if (!g_file_get_contents (path, &contents, NULL, NULL) || sk_util_is_blank (contents))
    return g_strdup_printf ("The step “%s” has no code yet.", sk_node_get_name (node));

  if (!g_utf8_validate (contents, -1, NULL))
    {
      char *valid = g_utf8_make_valid (contents, -1);

      g_free (contents);
      contents = valid;
    }

  return g_strdup_printf ("%s.py:\n%s", sk_node_get_key (base), contents);
}

static char *
read_log (SkChangeset *changeset,
          SkNode      *node)
{
  SkProject *project = sk_changeset_get_project (changeset);
  GFile *folder = sk_project_get_folder (project);
  SkNode *base = base_node (changeset, node);
  GString *out = g_string_new (NULL);
  const char *text;

  g_string_append_printf (out, "Step %s “%s”: %s\n", sk_node_get_id (node), sk_node_get_name (node),
                          sk_node_state_describe (sk_node_get_state (node)));

  text = sk_node_get_error_text (node);
  g_string_append_printf (out, "\nError:\n%s\n", text != NULL && *text != '\0' ? text : "(none)");
  text = sk_node_get_error_detail (node);
  if (text != NULL && *text != '\0')
    g_string_append_printf (out, "\nDetail:\n%s\n", text);

  if (base != NULL && folder != NULL && *sk_node_get_key (base) != '\0')
    {
      const char *key = sk_node_get_key (base);
      g_autoptr(GFile) stderr_file = sk_step_folder_get_file (folder, key, SK_STEP_FILE_STDERR);
      g_autoptr(GFile) agent_file = sk_step_folder_get_file (folder, key, SK_STEP_FILE_AGENT_LOG);
      g_autofree char *stderr_tail = file_tail (stderr_file);
      g_autofree char *agent_tail = file_tail (agent_file);

      g_string_append_printf (out, "\nEnd of its error output:\n%s\n", stderr_tail != NULL ? stderr_tail : "(none)");
      g_string_append_printf (out, "\nEnd of the coding agent's log:\n%s\n", agent_tail != NULL ? agent_tail : "(none)");
    }

  return g_string_free (out, FALSE);
}

/* Turns the `priors` argument into step names, refusing anything that is
 * not a list of strings. */
static gboolean
read_priors (JsonObject   *arguments,
             GStrv        *priors,
             GError      **error)
{
  JsonNode *member = sk_json_get_member (arguments, "priors");
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *array;

  *priors = NULL;
  if (member == NULL || JSON_NODE_HOLDS_NULL (member))
    return TRUE;

  if (!JSON_NODE_HOLDS_ARRAY (member))
    {
      g_set_error_literal (error, SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_EMPTY,
                           "`priors` must be a list of step ids or keys, such as [\"1\", \"load_data\"].");
      return FALSE;
    }

  array = json_node_get_array (member);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        g_strv_builder_add (builder, json_node_get_string (element));
      else if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_INT64)
        {
          g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (element));

          g_strv_builder_add (builder, id);
        }
      else
        {
          g_set_error_literal (error, SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_EMPTY,
                               "`priors` must be a list of step ids or keys, such as [\"1\", \"load_data\"].");
          return FALSE;
        }
    }

  *priors = g_strv_builder_end (builder);
  return TRUE;
}

/* Steps are named by id or key; a model may well send an id as a number. */
static char *
dup_step_argument (JsonObject *arguments,
                   const char *name)
{
  JsonNode *member = sk_json_get_member (arguments, name);

  if (member != NULL && JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (member));

  return g_strdup (sk_json_get_string (arguments, name));
}

static gboolean
require_step (JsonObject  *arguments,
              const char  *tool,
              const char  *name,
              char       **value,
              GError     **error)
{
  *value = dup_step_argument (arguments, name);
  if (*value == NULL)
    g_set_error (error, SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_EMPTY,
                 "`%s` needs `%s`: a step's id or key.", tool, name);

  return *value != NULL;
}

static char *
step_done (SkChangeset *changeset,
           const char  *step,
           const char  *what)
{
  SkNode *node = sk_changeset_resolve_step (changeset, step, NULL);

  if (node == NULL)
    return g_strdup_printf ("Proposed: %s.", what);

  return g_strdup_printf ("Proposed: %s for step %s “%s”.", what, sk_node_get_id (node), sk_node_get_name (node));
}

/* Runs an edit or read tool. The text is for the model: what was proposed,
 * or why it was refused. */
static char *
call_tool (SkChangeset          *changeset,
           const SkLlmToolCall  *call,
           JsonObject           *arguments,
           GError              **error)
{
  SkProject *scratch = sk_changeset_get_scratch (changeset);
  const char *name = call->name;
  g_autofree char *step = NULL;
  g_autofree char *other = NULL;
  g_autofree char *step_id = NULL;
  SkNode *node;

  if (g_str_equal (name, SK_CHAT_TOOL_LIST_STEPS))
    return sk_chat_context_outline (scratch, NULL);

  if (g_str_equal (name, SK_CHAT_TOOL_ADD_STEP))
    {
      const char *step_name = require_string (arguments, name, "name", error);
      const char *task = step_name != NULL ? require_string (arguments, name, "task", error) : NULL;
      g_auto(GStrv) priors = NULL;
      g_autofree char *id = NULL;

      if (task == NULL || !read_priors (arguments, &priors, error) ||
          !sk_changeset_add_step (changeset, step_name, task, sk_json_get_string (arguments, "description"),
                                  (const char * const *) priors, &id, error))
        return NULL;

      node = sk_project_get_node (sk_changeset_get_scratch (changeset), id);
      return g_strdup_printf ("Proposed: the new step %s “%s” (key %s).", id, sk_node_get_name (node),
                              sk_node_get_key (node));
    }

  if (g_str_equal (name, SK_CHAT_TOOL_SET_PROCESS))
    {
      const char *process_name = sk_json_get_string (arguments, "name");
      const char *description = sk_json_get_string (arguments, "description");

      if (process_name == NULL && description == NULL)
        {
          g_set_error_literal (error, SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_EMPTY,
                               "`set_process` needs `name`, `description` or both.");
          return NULL;
        }
      if (!sk_changeset_set_process (changeset, process_name, description, error))
        return NULL;
      return g_strdup ("Proposed: the workflow's new name or description.");
    }

  if (g_str_equal (name, SK_CHAT_TOOL_CONNECT) || g_str_equal (name, SK_CHAT_TOOL_DISCONNECT))
    {
      gboolean connect = g_str_equal (name, SK_CHAT_TOOL_CONNECT);

      if (!require_step (arguments, name, "from", &other, error) ||
          !require_step (arguments, name, "to", &step, error))
        return NULL;
      if (connect ? !sk_changeset_connect (changeset, other, step, error)
                  : !sk_changeset_disconnect (changeset, other, step, error))
        return NULL;
      return g_strdup_printf (connect ? "Proposed: %s becomes a prior of %s." : "Proposed: %s is no longer a prior of %s.",
                              other, step);
    }

  /* Every other tool names one step. A new name changes its key, so the
   * result names it by its id. */
  if (!require_step (arguments, name, "step", &step, error))
    return NULL;
  node = sk_changeset_resolve_step (changeset, step, NULL);
  step_id = g_strdup (node != NULL ? sk_node_get_id (node) : step);

  if (g_str_equal (name, SK_CHAT_TOOL_GET_STEP) || g_str_equal (name, SK_CHAT_TOOL_READ_CODE) ||
      g_str_equal (name, SK_CHAT_TOOL_READ_LOG))
    {
      node = sk_changeset_resolve_step (changeset, step, error);
      if (node == NULL)
        return NULL;
      if (g_str_equal (name, SK_CHAT_TOOL_GET_STEP))
        return sk_chat_context_step_details (scratch, node);
      if (g_str_equal (name, SK_CHAT_TOOL_READ_CODE))
        return read_code (changeset, node);
      return read_log (changeset, node);
    }

  if (g_str_equal (name, SK_CHAT_TOOL_REMOVE_STEP))
    {
      node = sk_changeset_resolve_step (changeset, step, error);
      if (node == NULL)
        return NULL;
      {
        g_autofree char *what = g_strdup_printf ("Proposed: removing step %s “%s” and its connections.",
                                                 sk_node_get_id (node), sk_node_get_name (node));

        if (!sk_changeset_remove_step (changeset, step, error))
          return NULL;
        return g_steal_pointer (&what);
      }
    }

  if (g_str_equal (name, SK_CHAT_TOOL_RENAME_STEP))
    {
      const char *new_name = require_string (arguments, name, "name", error);

      if (new_name == NULL || !sk_changeset_rename_step (changeset, step, new_name, error))
        return NULL;
      return step_done (changeset, step_id, "the new name");
    }

  if (g_str_equal (name, SK_CHAT_TOOL_SET_TASK) || g_str_equal (name, SK_CHAT_TOOL_SET_DESCRIPTION))
    {
      gboolean task = g_str_equal (name, SK_CHAT_TOOL_SET_TASK);
      const char *text = require_string (arguments, name, "text", error);

      if (text == NULL)
        return NULL;
      if (task ? !sk_changeset_set_task (changeset, step, text, error)
               : !sk_changeset_set_description (changeset, step, text, error))
        return NULL;
      return step_done (changeset, step_id, task ? "the new task" : "the new description");
    }

  if (g_str_equal (name, SK_CHAT_TOOL_SET_RUN))
    {
      gboolean run;

      if (!sk_json_get_boolean (arguments, "run", &run))
        {
          g_set_error_literal (error, SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_EMPTY,
                               "`set_run` needs `run`: true or false.");
          return NULL;
        }
      if (!sk_changeset_set_run (changeset, step, run, error))
        return NULL;
      return step_done (changeset, step_id, run ? "taking part in runs" : "leaving runs out");
    }

  g_return_val_if_reached (NULL);
}

/**
 * sk_chat_agent_call_tool:
 * @changeset: the proposal the edit tools add to
 * @call: one call by the model (not `finish`)
 * @is_error: (out): whether the call was refused
 *
 * Runs one of the chat agent's tools. Read tools see the workflow with
 * the changes proposed so far; edit tools add to @changeset, or are
 * refused with a reason that tells the model what to do instead.
 *
 * Returns: (transfer full): the result for the model
 */
char *
sk_chat_agent_call_tool (SkChangeset         *changeset,
                         const SkLlmToolCall *call,
                         gboolean            *is_error)
{
  g_autoptr(JsonObject) arguments = NULL;
  g_autoptr(GError) error = NULL;
  char *text;

  g_return_val_if_fail (SK_IS_CHANGESET (changeset), NULL);
  g_return_val_if_fail (call != NULL, NULL);
  g_return_val_if_fail (is_error != NULL, NULL);

  *is_error = TRUE;

  if (!is_known_tool (call->name) || g_strcmp0 (call->name, SK_CHAT_TOOL_FINISH) == 0)
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint i = 0; i < G_N_ELEMENTS (definitions); i++)
        g_string_append_printf (names, "%s%s", i > 0 ? ", " : "", definitions[i].name);
      return g_strdup_printf ("There is no tool “%s”. The tools are: %s.", call->name ? call->name : "",
                              names->str);
    }

  arguments = sk_llm_tool_call_parse_arguments (call, &error);
  if (arguments == NULL)
    return g_strdup_printf ("%s Send the arguments as one JSON object.", error->message);

  copy_run_state (changeset);
  text = call_tool (changeset, call, arguments, &error);
  if (text == NULL)
    return g_strdup_printf ("Refused: %s", error->message);

  *is_error = FALSE;
  return cut_result (text);
}

/* The turn ----------------------------------------------------------------- */

static void
finish_turn (SkChatAgent *self,
             GError      *error)
{
  GTask *task = g_steal_pointer (&self->task);

  g_clear_pointer (&self->turns, g_ptr_array_unref);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_strdup (self->reply), g_free);

  g_object_unref (task);
}

static void
progress (SkChatAgent *self,
          const char  *message)
{
  g_signal_emit (self, signals[PROGRESS], 0, message);
}

static void
record_usage (SkChatAgent         *self,
              const SkLlmResponse *response)
{
  if (response == NULL || !response->usage.known)
    return;

  self->prompt_tokens += response->usage.prompt_tokens;
  self->completion_tokens += response->usage.completion_tokens;
  g_signal_emit (self, signals[USAGE], 0, response->usage.prompt_tokens, response->usage.completion_tokens);
}

static char *
selection_names (SkChatAgent *self)
{
  SkProject *scratch = sk_changeset_get_scratch (self->changeset);
  g_autoptr(GString) names = g_string_new (NULL);

  for (guint i = 0; self->selection != NULL && self->selection[i] != NULL; i++)
    {
      SkNode *node = sk_project_get_node (scratch, self->selection[i]);

      if (node != NULL)
        g_string_append_printf (names, "%s%s “%s”", names->len > 0 ? ", " : "",
                                sk_node_get_id (node), sk_node_get_name (node));
    }

  return g_string_free (g_steal_pointer (&names), FALSE);
}

static gboolean
build_system (SkChatAgent  *self,
              GError      **error)
{
  g_autoptr(GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr(GPtrArray) selected = g_ptr_array_new ();
  SkProject *scratch = sk_changeset_get_scratch (self->changeset);
  g_autoptr(GError) local_error = NULL;

  copy_run_state (self->changeset);
  for (guint i = 0; self->selection != NULL && self->selection[i] != NULL; i++)
    {
      SkNode *node = sk_project_get_node (scratch, self->selection[i]);

      if (node != NULL)
        g_ptr_array_add (selected, node);
    }

  g_hash_table_insert (values, "outline", sk_chat_context_outline (scratch, selected));
  g_hash_table_insert (values, "selection", selection_names (self));
  if (self->text_tools)
    g_hash_table_insert (values, "text_tools", g_strdup ("yes"));
  g_hash_table_insert (values, "max_steps", g_strdup_printf ("%u", self->max_steps));

  g_clear_pointer (&self->system, g_free);
  self->system = sk_prompts_render ("chat-agent", values, &local_error);
  if (self->system == NULL)
    {
      g_set_error (error, SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_PROMPT,
                   _("The chat agent’s prompt cannot be used: %s"), local_error->message);
      return FALSE;
    }

  return TRUE;
}

/* The conversation as the model reads it: the person's and the agent's
 * turns, with notes from the application (such as "the proposal was
 * accepted") told as the person's side. Servers want the roles to
 * alternate and to start with the person, so neighbours of one side are
 * joined. */
static void
build_messages (SkChatAgent *self)
{
  g_ptr_array_set_size (self->messages, 0);

  for (guint i = 0; i < self->turns->len; i++)
    {
      const SkChatTurn *turn = g_ptr_array_index (self->turns, i);
      SkLlmRole role = g_str_equal (turn->role, "assistant") ? SK_LLM_ROLE_ASSISTANT : SK_LLM_ROLE_USER;
      g_autofree char *text = NULL;
      SkLlmMessage *last;

      if (turn->text == NULL || *turn->text == '\0')
        continue;
      if (role == SK_LLM_ROLE_ASSISTANT && self->messages->len == 0)
        continue;

      text = g_str_equal (turn->role, "tool") ? g_strdup_printf ("[Skele-Code: %s]", turn->text)
                                               : g_strdup (turn->text);
      last = self->messages->len > 0 ? g_ptr_array_index (self->messages, self->messages->len - 1) : NULL;
      if (last != NULL && last->role == role)
        {
          char *joined = g_strconcat (last->content, "\n\n", text, NULL);

          g_free (last->content);
          last->content = joined;
        }
      else
        g_ptr_array_add (self->messages, sk_llm_message_new (role, text));
    }
}

static void
add_result (SkChatAgent         *self,
            const SkLlmToolCall *call,
            const char          *text,
            gboolean             is_error)
{
  if (self->text_tools)
    g_string_append_printf (self->text_results, "Result of `%s`%s:\n%s\n\n",
                            call->name, is_error ? " (refused)" : "", text);
  else
    g_ptr_array_add (self->messages, sk_llm_message_new_tool_result (call->id, call->name, text, is_error));
}

static void
remind (SkChatAgent *self,
        const char  *problem)
{
  g_autofree char *text = NULL;

  text = g_strdup_printf ("%s%sContinue with a tool call, or end your turn with `finish` and a short "
                          "answer for the person.",
                          problem != NULL ? problem : "Your reply was empty.",
                          problem != NULL ? "\n\n" : " ");
  g_ptr_array_add (self->messages, sk_llm_message_new (SK_LLM_ROLE_USER, text));
}

/* A line for the person about what the model is doing. */
static char *
describe_call (SkChatAgent         *self,
               const SkLlmToolCall *call)
{
  g_autoptr(JsonObject) arguments = sk_llm_tool_call_parse_arguments (call, NULL);
  g_autofree char *step = dup_step_argument (arguments, "step");
  SkNode *node = NULL;
  const char *name;

  /* Unreadable arguments name nothing; the refusal says why. */
  if (arguments == NULL)
    return NULL;

  if (step != NULL)
    node = sk_changeset_resolve_step (self->changeset, step, NULL);
  name = node != NULL ? sk_node_get_name (node) : step != NULL ? step : "";

  if (g_strcmp0 (call->name, SK_CHAT_TOOL_LIST_STEPS) == 0)
    return g_strdup (_("Looking at the steps"));
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_GET_STEP) == 0)
    return g_strdup_printf (_("Looking at “%s”"), name);
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_READ_CODE) == 0)
    return g_strdup_printf (_("Reading the code of “%s”"), name);
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_READ_LOG) == 0)
    return g_strdup_printf (_("Reading why “%s” failed"), name);
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_ADD_STEP) == 0)
    return g_strdup_printf (_("Proposing the step “%s”"), sk_json_get_string (arguments, "name") != NULL ? sk_json_get_string (arguments, "name") : "");
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_REMOVE_STEP) == 0)
    return g_strdup_printf (_("Proposing to remove “%s”"), name);
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_RENAME_STEP) == 0)
    return g_strdup_printf (_("Proposing a new name for “%s”"), name);
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_SET_TASK) == 0)
    return g_strdup_printf (_("Proposing a new task for “%s”"), name);
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_SET_DESCRIPTION) == 0)
    return g_strdup_printf (_("Proposing a new description for “%s”"), name);
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_SET_RUN) == 0)
    return g_strdup_printf (_("Proposing whether “%s” runs"), name);
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_CONNECT) == 0)
    return g_strdup (_("Proposing a connection"));
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_DISCONNECT) == 0)
    return g_strdup (_("Proposing to remove a connection"));
  if (g_strcmp0 (call->name, SK_CHAT_TOOL_SET_PROCESS) == 0)
    return g_strdup (_("Proposing a new name or description for the workflow"));

  return NULL;
}

static void
run_calls (SkChatAgent *self,
           GPtrArray   *calls)
{
  for (guint i = 0; i < calls->len; i++)
    {
      const SkLlmToolCall *call = g_ptr_array_index (calls, i);

      if (g_strcmp0 (call->name, SK_CHAT_TOOL_FINISH) == 0)
        {
          g_autoptr(JsonObject) arguments = sk_llm_tool_call_parse_arguments (call, NULL);
          const char *summary = sk_json_get_string (arguments, "summary");

          /* Ending the turn with nothing to show the person would leave
           * them without an answer; the model is asked for one instead. */
          if (summary == NULL)
            {
              const char *text = "Refused: `finish` needs `summary`: a short answer for the person, "
                                 "as one JSON object such as {\"summary\": \"…\"}.";

              progress (self, text);
              add_result (self, call, text, TRUE);
              continue;
            }

          g_free (self->reply);
          self->reply = g_strdup (summary);
          add_result (self, call, "Done.", FALSE);
        }
      else
        {
          g_autofree char *description = describe_call (self, call);
          g_autofree char *text = NULL;
          gboolean is_error;

          if (description != NULL)
            progress (self, description);
          text = sk_chat_agent_call_tool (self->changeset, call, &is_error);
          if (is_error)
            progress (self, text);
          add_result (self, call, text, is_error);
        }
    }

  if (self->text_tools && self->text_results->len > 0)
    {
      g_ptr_array_add (self->messages, sk_llm_message_new (SK_LLM_ROLE_USER, self->text_results->str));
      g_string_truncate (self->text_results, 0);
    }
}

static void
chat_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(SkChatAgent) self = user_data;
  g_autoptr(SkLlmResponse) response = NULL;
  g_autoptr(SkLlmResponse) partial = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GError) parse_error = NULL;
  SkLlmMessage *message;

  response = sk_llm_client_chat_finish (SK_LLM_CLIENT (object), result, &partial, &error);
  record_usage (self, response != NULL ? response : partial);

  if (response == NULL)
    {
      if (g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_TOOLS_UNSUPPORTED) && !self->text_tools)
        {
          g_autoptr(GError) prompt_error = NULL;

          /* Ask again, the same reply, with the tools described in text. */
          self->text_tools = TRUE;
          self->steps--;
          if (!build_system (self, &prompt_error))
            {
              finish_turn (self, g_steal_pointer (&prompt_error));
              return;
            }
          agent_step (self);
          return;
        }

      finish_turn (self, g_steal_pointer (&error));
      return;
    }

  message = sk_llm_message_new (SK_LLM_ROLE_ASSISTANT, !sk_util_is_blank (response->text) ? response->text : NULL);

  if (!self->text_tools && response->tool_calls->len > 0)
    {
      calls = g_ptr_array_ref (response->tool_calls);
      for (guint i = 0; i < calls->len; i++)
        sk_llm_message_add_tool_call (message, g_ptr_array_index (calls, i));
    }
  else
    calls = sk_agent_text_calls_parse (response->text, &parse_error);

  /* Some models answer native tool definitions with text blocks; they are
   * then answered in text as well, and the prompt from now on describes
   * the blocks, since no definitions go with the requests any more. */
  if (!self->text_tools && message->tool_calls->len == 0 && calls != NULL && calls->len > 0)
    {
      g_autoptr(GError) prompt_error = NULL;

      self->text_tools = TRUE;
      if (!build_system (self, &prompt_error))
        {
          sk_llm_message_free (message);
          finish_turn (self, g_steal_pointer (&prompt_error));
          return;
        }
    }

  /* An empty reply is left out of the conversation: Anthropic refuses a
   * turn without content. */
  if (message->content != NULL || message->tool_calls->len > 0)
    g_ptr_array_add (self->messages, message);
  else
    sk_llm_message_free (message);

  if (calls == NULL)
    {
      remind (self, parse_error->message);
      agent_step (self);
      return;
    }

  /* A plain answer, without any tool call, ends the turn: a question
   * needs no tool. */
  if (calls->len == 0)
    {
      if (sk_util_is_blank (response->text))
        {
          remind (self, NULL);
          agent_step (self);
          return;
        }
      g_free (self->reply);
      self->reply = g_strstrip (g_strdup (response->text));
      finish_turn (self, NULL);
      return;
    }

  run_calls (self, calls);

  if (self->reply != NULL)
    finish_turn (self, NULL);
  else
    agent_step (self);
}

static void
llm_event_cb (SkLlmEvent  event,
              const char *text,
              gpointer    user_data)
{
  SkChatAgent *self = user_data;

  if (event == SK_LLM_EVENT_TEXT)
    g_signal_emit (self, signals[TEXT], 0, text);
  else if (event == SK_LLM_EVENT_RETRY)
    g_signal_emit (self, signals[TRANSIENT], 0, text);
}

static void
agent_step (SkChatAgent *self)
{
  if (g_cancellable_is_cancelled (g_task_get_cancellable (self->task)))
    {
      finish_turn (self, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Stopped")));
      return;
    }

  if (self->steps >= self->max_steps)
    {
      finish_turn (self, g_error_new (SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_BUDGET,
                                      _("The chat agent used all %u of its replies without finishing. "
                                        "What it proposed so far is kept for you to review; ask again "
                                        "with a smaller request."),
                                      self->max_steps));
      return;
    }

  self->steps++;
  if (self->steps > 1)
    g_signal_emit (self, signals[TEXT], 0, "\n");

  sk_llm_client_chat_async (self->client, self->system, self->messages,
                            self->text_tools ? NULL : self->definitions,
                            llm_event_cb, self, g_task_get_cancellable (self->task),
                            chat_cb, g_object_ref (self));
}

/**
 * sk_chat_agent_send_async:
 * @self: a #SkChatAgent
 * @turns: (element-type SkChatTurn): the conversation to answer, oldest
 *   first, ending with the person's message (see sk_chat_log_for_prompt())
 * @cancellable: (nullable): stops the turn
 * @callback: called with the answer
 * @user_data: data for @callback
 *
 * Lets the model answer the last message. Its proposals go to the agent's
 * changeset as they are made; #SkChatAgent::text streams what it writes,
 * #SkChatAgent::progress says what it looks at or proposes.
 */
void
sk_chat_agent_send_async (SkChatAgent         *self,
                          GPtrArray           *turns,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (SK_IS_CHAT_AGENT (self));
  g_return_if_fail (turns != NULL);
  g_return_if_fail (self->task == NULL);

  self->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (self->task, sk_chat_agent_send_async);

  self->steps = 0;
  self->prompt_tokens = 0;
  self->completion_tokens = 0;
  g_clear_pointer (&self->reply, g_free);
  g_string_truncate (self->text_results, 0);
  self->turns = g_ptr_array_ref (turns);

  build_messages (self);
  if (self->messages->len == 0)
    {
      finish_turn (self, g_error_new_literal (SK_CHAT_AGENT_ERROR, SK_CHAT_AGENT_ERROR_EMPTY,
                                              _("There is no message to answer.")));
      return;
    }

  if (!build_system (self, &error))
    {
      finish_turn (self, g_steal_pointer (&error));
      return;
    }

  agent_step (self);
}

/**
 * sk_chat_agent_send_finish:
 *
 * Returns: (transfer full): the answer for the person, or %NULL with
 *   @error set (%G_IO_ERROR_CANCELLED when stopped, an #SkLlmError when the
 *   model failed, or an #SkChatAgentError); the changeset keeps what was
 *   proposed before the error
 */
char *
sk_chat_agent_send_finish (SkChatAgent   *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Settings ------------------------------------------------------------------ */

SkChangeset *
sk_chat_agent_get_changeset (SkChatAgent *self)
{
  g_return_val_if_fail (SK_IS_CHAT_AGENT (self), NULL);

  return self->changeset;
}

void
sk_chat_agent_set_max_steps (SkChatAgent *self,
                             guint        max_steps)
{
  g_return_if_fail (SK_IS_CHAT_AGENT (self));

  self->max_steps = MAX (max_steps, 1);
}

/**
 * sk_chat_agent_set_text_tools:
 *
 * Describes the tools in the prompt and reads fenced `tool` blocks from
 * the replies instead of sending native tool definitions.
 */
void
sk_chat_agent_set_text_tools (SkChatAgent *self,
                              gboolean     text_tools)
{
  g_return_if_fail (SK_IS_CHAT_AGENT (self));

  self->text_tools = !!text_tools;
}

/**
 * sk_chat_agent_set_selection:
 * @step_ids: (nullable) (array zero-terminated=1): the ids of the steps the
 *   person has selected
 */
void
sk_chat_agent_set_selection (SkChatAgent        *self,
                             const char * const *step_ids)
{
  g_return_if_fail (SK_IS_CHAT_AGENT (self));

  g_strfreev (self->selection);
  self->selection = g_strdupv ((char **) step_ids);
}

/**
 * sk_chat_agent_get_text_tools:
 *
 * Returns: whether the tools go as text, set so or because the server or
 *   the model turned out to want it
 */
gboolean
sk_chat_agent_get_text_tools (SkChatAgent *self)
{
  g_return_val_if_fail (SK_IS_CHAT_AGENT (self), FALSE);

  return self->text_tools;
}

guint
sk_chat_agent_get_steps (SkChatAgent *self)
{
  g_return_val_if_fail (SK_IS_CHAT_AGENT (self), 0);

  return self->steps;
}

/**
 * sk_chat_agent_get_usage:
 *
 * The tokens of the last turn, as the server counted them.
 */
void
sk_chat_agent_get_usage (SkChatAgent *self,
                         guint64     *prompt_tokens,
                         guint64     *completion_tokens)
{
  g_return_if_fail (SK_IS_CHAT_AGENT (self));

  if (prompt_tokens != NULL)
    *prompt_tokens = self->prompt_tokens;
  if (completion_tokens != NULL)
    *completion_tokens = self->completion_tokens;
}

/* The object ---------------------------------------------------------------- */

static void
sk_chat_agent_finalize (GObject *object)
{
  SkChatAgent *self = SK_CHAT_AGENT (object);

  g_clear_object (&self->client);
  g_clear_object (&self->changeset);
  g_strfreev (self->selection);
  g_clear_pointer (&self->definitions, g_ptr_array_unref);
  g_clear_pointer (&self->turns, g_ptr_array_unref);
  g_free (self->system);
  g_clear_pointer (&self->messages, g_ptr_array_unref);
  g_string_free (self->text_results, TRUE);
  g_free (self->reply);

  G_OBJECT_CLASS (sk_chat_agent_parent_class)->finalize (object);
}

static void
sk_chat_agent_class_init (SkChatAgentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sk_chat_agent_finalize;

  /**
   * SkChatAgent::text:
   * @text: a piece of what the model writes, as it arrives
   */
  signals[TEXT] =
    g_signal_new ("text", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SkChatAgent::progress:
   * @message: one line in plain language: what the agent looks at or
   *   proposes, or why an operation was refused
   */
  signals[PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SkChatAgent::transient:
   * @message: one line about a wait, such as a request sent again
   */
  signals[TRANSIENT] =
    g_signal_new ("transient", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SkChatAgent::usage:
   * @prompt_tokens: tokens one call read
   * @completion_tokens: tokens it wrote
   */
  signals[USAGE] =
    g_signal_new ("usage", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT64, G_TYPE_UINT64);
}

static void
sk_chat_agent_init (SkChatAgent *self)
{
  self->max_steps = SK_CHAT_AGENT_DEFAULT_MAX_STEPS;
  self->definitions = sk_chat_agent_get_definitions ();
  self->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_llm_message_free);
  self->text_results = g_string_new (NULL);
}

/**
 * sk_chat_agent_new:
 * @client: the model to talk with
 * @changeset: where the model's proposals go; a pending proposal is
 *   continued, so that "also do this" adds to what is already proposed
 *
 * Returns: (transfer full): a chat agent
 */
SkChatAgent *
sk_chat_agent_new (SkLlmClient *client,
                   SkChangeset *changeset)
{
  SkChatAgent *self;

  g_return_val_if_fail (SK_IS_LLM_CLIENT (client), NULL);
  g_return_val_if_fail (SK_IS_CHANGESET (changeset), NULL);

  self = g_object_new (SK_TYPE_CHAT_AGENT, NULL);
  self->client = g_object_ref (client);
  self->changeset = g_object_ref (changeset);

  return self;
}
