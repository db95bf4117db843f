/* sk-agent-tools.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-agent-tools"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#include "sk-agent-files-private.h"
#include "sk-agent-tools.h"
#include "sk-json.h"
#include "sk-process.h"

#define DEFAULT_COMMAND_TIMEOUT 120.0
#define DEFAULT_OUTPUT_LIMIT (16 * 1024)
#define MIN_OUTPUT_LIMIT 64

struct _SkAgentTools
{
  GObject        parent_instance;

  SkAgentFiles  *files;
  GPtrArray     *read_only_paths;
  SkSandboxKind  sandbox;
  double         command_timeout;
  gsize          output_limit;

  guint          allow_unsandboxed : 1;
  guint          allow_network : 1;
};

G_DEFINE_FINAL_TYPE (SkAgentTools, sk_agent_tools, G_TYPE_OBJECT)

G_DEFINE_QUARK (sk-agent-tools-error-quark, sk_agent_tools_error)

/* What a tool call answers: the text for the model, and whether it reports
 * a problem that the model should fix.
 */
typedef struct
{
  char     *text;
  gboolean  is_error;
} ToolResult;

static ToolResult *
tool_result_new_take (char     *text,
                      gboolean  is_error)
{
  ToolResult *result = g_new0 (ToolResult, 1);

  result->text = text;
  result->is_error = is_error;

  return result;
}

static void
tool_result_free (ToolResult *result)
{
  if (result == NULL)
    return;

  g_free (result->text);
  g_free (result);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ToolResult, tool_result_free)

static void
sk_agent_tools_finalize (GObject *object)
{
  SkAgentTools *self = (SkAgentTools *) object;

  g_clear_pointer (&self->files, sk_agent_files_free);
  g_clear_pointer (&self->read_only_paths, g_ptr_array_unref);

  G_OBJECT_CLASS (sk_agent_tools_parent_class)->finalize (object);
}

static void
sk_agent_tools_class_init (SkAgentToolsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sk_agent_tools_finalize;
}

static void
sk_agent_tools_init (SkAgentTools *self)
{
  self->read_only_paths = g_ptr_array_new_with_free_func (g_free);
  self->sandbox = SK_SANDBOX_AUTO;
  self->command_timeout = DEFAULT_COMMAND_TIMEOUT;
  self->output_limit = DEFAULT_OUTPUT_LIMIT;
}

/* Construction and settings ---------------------------------------------- */

/**
 * sk_agent_tools_new:
 * @workflow_dir: the workflow's folder, which must exist
 * @node_dir: the step's folder, inside @workflow_dir; a relative path is
 *   taken from @workflow_dir. It is created when missing.
 * @error: return location for a #GError
 *
 * Both folders are kept in canonical form, with every link resolved, so
 * that confinement compares real locations.
 *
 * Returns: (transfer full): the tools, or %NULL with
 *   %SK_AGENT_TOOLS_ERROR_NOT_FOUND, %SK_AGENT_TOOLS_ERROR_OUTSIDE or
 *   %SK_AGENT_TOOLS_ERROR_FAILED
 */
SkAgentTools *
sk_agent_tools_new (const char  *workflow_dir,
                    const char  *node_dir,
                    GError     **error)
{
  g_autoptr(SkAgentFiles) files = NULL;
  SkAgentTools *self;

  g_return_val_if_fail (workflow_dir != NULL, NULL);
  g_return_val_if_fail (node_dir != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  files = sk_agent_files_new (workflow_dir, node_dir, error);
  if (files == NULL)
    return NULL;

  self = g_object_new (SK_TYPE_AGENT_TOOLS, NULL);
  self->files = g_steal_pointer (&files);

  return self;
}

const char *
sk_agent_tools_get_workflow_dir (SkAgentTools *self)
{
  g_return_val_if_fail (SK_IS_AGENT_TOOLS (self), NULL);

  return self->files->workflow_dir;
}

const char *
sk_agent_tools_get_node_dir (SkAgentTools *self)
{
  g_return_val_if_fail (SK_IS_AGENT_TOOLS (self), NULL);

  return self->files->node_dir;
}

void
sk_agent_tools_set_sandbox (SkAgentTools  *self,
                            SkSandboxKind  kind)
{
  g_return_if_fail (SK_IS_AGENT_TOOLS (self));
  g_return_if_fail (kind <= SK_SANDBOX_NONE);

  self->sandbox = kind;
}

SkSandboxKind
sk_agent_tools_get_sandbox (SkAgentTools *self)
{
  g_return_val_if_fail (SK_IS_AGENT_TOOLS (self), SK_SANDBOX_AUTO);

  return self->sandbox;
}

/**
 * sk_agent_tools_set_allow_unsandboxed:
 * @allow: whether commands may run without a sandbox
 *
 * The user turned the command protection off in Preferences: when no
 * sandbox is available (%SK_SANDBOX_AUTO finds none, or %SK_SANDBOX_NONE was
 * set), commands run directly instead of being refused. A sandbox that was
 * asked for by name is never replaced by none.
 */
void
sk_agent_tools_set_allow_unsandboxed (SkAgentTools *self,
                                      gboolean      allow)
{
  g_return_if_fail (SK_IS_AGENT_TOOLS (self));

  self->allow_unsandboxed = !!allow;
}

void
sk_agent_tools_set_allow_network (SkAgentTools *self,
                                  gboolean      allow)
{
  g_return_if_fail (SK_IS_AGENT_TOOLS (self));

  self->allow_network = !!allow;
}

/**
 * sk_agent_tools_set_command_timeout:
 * @seconds: how long a command may run; zero or less for no limit
 */
void
sk_agent_tools_set_command_timeout (SkAgentTools *self,
                                    double        seconds)
{
  g_return_if_fail (SK_IS_AGENT_TOOLS (self));

  self->command_timeout = seconds;
}

/**
 * sk_agent_tools_set_output_limit:
 * @bytes: the most that read_file and run_command return, and list_dir
 *   roughly
 */
void
sk_agent_tools_set_output_limit (SkAgentTools *self,
                                 gsize         bytes)
{
  g_return_if_fail (SK_IS_AGENT_TOOLS (self));

  self->output_limit = MAX (bytes, MIN_OUTPUT_LIMIT);
}

/**
 * sk_agent_tools_add_read_only_path:
 * @path: an absolute path that commands need to read, such as a Python
 *   installation outside `/usr`
 *
 * The path is made visible, read-only, inside the sandbox, at the same
 * place; a path that goes through links is also made visible where the
 * links lead. It does not widen what read_file and list_dir may read.
 */
void
sk_agent_tools_add_read_only_path (SkAgentTools *self,
                                   const char   *path)
{
  g_autofree char *real = NULL;

  g_return_if_fail (SK_IS_AGENT_TOOLS (self));
  g_return_if_fail (path != NULL && g_path_is_absolute (path));

  g_ptr_array_add (self->read_only_paths, g_canonicalize_filename (path, NULL));

  real = sk_agent_files_resolve_physical ("/", path, TRUE, NULL);
  if (real != NULL && !g_str_equal (real, g_ptr_array_index (self->read_only_paths,
                                                             self->read_only_paths->len - 1)))
    g_ptr_array_add (self->read_only_paths, g_steal_pointer (&real));
}

/* Paths ------------------------------------------------------------------ */

/**
 * sk_agent_tools_resolve_path:
 * @path: a path relative to the step's folder, or absolute
 * @for_write: whether the path is to be written or deleted, rather than read
 * @error: return location for a #GError
 *
 * Resolves @path the way the file system will, following every symbolic
 * link on the way, and checks it: readable paths must lead inside the
 * workflow folder; writable paths inside the step's folder, neither the
 * step's folder itself nor its `.skele/` folder. Parts of the path that do
 * not exist yet are taken as written.
 *
 * Returns: (transfer full): the absolute resolved path, or %NULL with
 *   %SK_AGENT_TOOLS_ERROR_OUTSIDE (or %SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS
 *   for an empty path) and a message meant for the model
 */
char *
sk_agent_tools_resolve_path (SkAgentTools  *self,
                             const char    *path,
                             gboolean       for_write,
                             GError       **error)
{
  g_return_val_if_fail (SK_IS_AGENT_TOOLS (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return sk_agent_files_resolve_path (self->files, path, for_write, error);
}

/* Tool definitions ------------------------------------------------------- */

typedef struct
{
  const char *name;
  const char *description;
  const char *parameters;
} ToolDefinition;

static const ToolDefinition definitions[] = {
  {
    SK_AGENT_TOOL_LIST_DIR,
    "Lists a folder: one entry per line, folders with a trailing /, files with their size.",
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"path\": {\"type\": \"string\", \"description\": \"The folder, relative to your step's "
    "folder: \\\".\\\" for your step's folder, \\\"../K\\\" for step K's folder.\"}},"
    " \"required\": [\"path\"],"
    " \"additionalProperties\": false}"
  },
  {
    SK_AGENT_TOOL_READ_FILE,
    "Reads a text file, or the lines from start_line to end_line (counted from 1). "
    "Long files are cut; read on with start_line. Not for binary files.",
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"path\": {\"type\": \"string\", \"description\": \"The file, relative to your step's folder.\"},"
    "   \"start_line\": {\"type\": \"integer\", \"minimum\": 1, \"description\": \"The first line to read (default 1).\"},"
    "   \"end_line\": {\"type\": \"integer\", \"minimum\": 1, \"description\": \"The last line to read (default: the end).\"}},"
    " \"required\": [\"path\"],"
    " \"additionalProperties\": false}"
  },
  {
    SK_AGENT_TOOL_WRITE_FILE,
    "Creates or replaces a text file in your step's folder with the complete content given; "
    "missing folders are created.",
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"path\": {\"type\": \"string\", \"description\": \"The file, relative to your step's folder.\"},"
    "   \"content\": {\"type\": \"string\", \"description\": \"The complete new content of the file.\"}},"
    " \"required\": [\"path\", \"content\"],"
    " \"additionalProperties\": false}"
  },
  {
    SK_AGENT_TOOL_DELETE_FILE,
    "Deletes a file in your step's folder.",
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"path\": {\"type\": \"string\", \"description\": \"The file, relative to your step's folder.\"}},"
    " \"required\": [\"path\"],"
    " \"additionalProperties\": false}"
  },
  {
    SK_AGENT_TOOL_RUN_COMMAND,
    "Runs one line in a shell, in your step's folder, inside a sandbox, and returns its output "
    "(shortened if long) and exit status.",
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"command\": {\"type\": \"string\", \"description\": \"One shell command line.\"}},"
    " \"required\": [\"command\"],"
    " \"additionalProperties\": false}"
  },
  {
    SK_AGENT_TOOL_TASK_COMPLETE,
    "Ends your work on this step. Call it once, last.",
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"summary\": {\"type\": \"string\", \"description\": \"For the user, in plain words: what the "
    "script does, what it produced, and anything to check; or why the step cannot be done.\"}},"
    " \"required\": [\"summary\"],"
    " \"additionalProperties\": false}"
  },
};

/**
 * sk_agent_tools_get_definitions:
 *
 * Returns: (transfer full) (element-type SkLlmTool): the six tools, with
 *   their JSON Schemas, in the order list_dir, read_file, write_file,
 *   delete_file, run_command, task_complete
 */
GPtrArray *
sk_agent_tools_get_definitions (void)
{
  GPtrArray *tools = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_llm_tool_free);

  for (guint i = 0; i < G_N_ELEMENTS (definitions); i++)
    g_ptr_array_add (tools, sk_llm_tool_new (definitions[i].name,
                                             definitions[i].description,
                                             definitions[i].parameters));

  return tools;
}
/* Progress lines --------------------------------------------------------- */

/* Shortens a path for a person: a neighbour's file is named with its
 * step's folder, an absolute path by its last part.
 */
static char *
short_path (const char *path)
{
  if (g_path_is_absolute (path))
    return g_path_get_basename (path);

  while (g_str_has_prefix (path, "./"))
    path += 2;
  if (g_str_has_prefix (path, "../"))
    path += 3;
  if (path[0] == '\0' || g_str_equal (path, "."))
    return NULL;

  return g_strdup (path);
}

static char *
short_command (const char *command)
{
  g_autoptr(GString) text = g_string_new (NULL);
  const char *p = command;
  const char *word_end;
  glong length;

  while (g_ascii_isspace (*p))
    p++;

  /* An interpreter named by its full path is shown by its name. */
  word_end = p + strcspn (p, " \t");
  if (*p == '/')
    {
      const char *slash = p;

      for (const char *q = p; q < word_end; q++)
        if (*q == '/')
          slash = q;
      p = slash + 1;
    }
  g_string_append (text, p);

  length = g_utf8_strlen (text->str, -1);
  if (length > 60)
    {
      const char *cut = g_utf8_offset_to_pointer (text->str, 57);

      g_string_truncate (text, cut - text->str);
      g_string_append (text, "…");
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

static gboolean
is_test_command (const char *command)
{
  return strstr (command, "unittest") != NULL ||
         strstr (command, "pytest") != NULL ||
         strstr (command, "test/test_") != NULL ||
         g_str_has_prefix (command, "test_");
}

/**
 * sk_agent_tools_describe_call:
 * @call: a tool call
 *
 * Returns: (transfer full): one line, in the user's language, that says
 *   what the agent is doing, for a person who does not program
 */
char *
sk_agent_tools_describe_call (const SkLlmToolCall *call)
{
  g_autoptr(JsonObject) args = NULL;
  g_autofree char *path = NULL;
  const char *name;

  g_return_val_if_fail (call != NULL, NULL);

  name = call->name != NULL ? call->name : "";
  args = sk_llm_tool_call_parse_arguments (call, NULL);
  if (sk_json_get_string (args, "path") != NULL)
    path = short_path (sk_json_get_string (args, "path"));

  if (g_str_equal (name, SK_AGENT_TOOL_LIST_DIR))
    {
      const char *given = sk_json_get_string (args, "path");

      if (given != NULL && (g_str_equal (given, "..") || g_str_equal (given, "../")))
        return g_strdup (_("Looking at the workflow's files"));
      if (path == NULL)
        return g_strdup (_("Looking at the step's files"));
      /* Translators: %s is a folder's name */
      return g_strdup_printf (_("Looking at the files in %s"), path);
    }

  if (g_str_equal (name, SK_AGENT_TOOL_READ_FILE))
    {
      if (path == NULL)
        return g_strdup (_("Reading a file"));
      /* Translators: %s is a file's name */
      return g_strdup_printf (_("Reading %s"), path);
    }

  if (g_str_equal (name, SK_AGENT_TOOL_WRITE_FILE))
    {
      if (path == NULL)
        return g_strdup (_("Writing a file"));
      /* Translators: %s is a file's name */
      return g_strdup_printf (_("Writing %s"), path);
    }

  if (g_str_equal (name, SK_AGENT_TOOL_DELETE_FILE))
    {
      if (path == NULL)
        return g_strdup (_("Deleting a file"));
      /* Translators: %s is a file's name */
      return g_strdup_printf (_("Deleting %s"), path);
    }

  if (g_str_equal (name, SK_AGENT_TOOL_RUN_COMMAND))
    {
      const char *command = sk_json_get_string (args, "command");
      g_autofree char *shown = NULL;

      if (command == NULL || command[0] == '\0')
        return g_strdup (_("Running a command"));
      if (is_test_command (command))
        return g_strdup (_("Running the tests"));

      shown = short_command (command);
      /* Translators: %s is a command line */
      return g_strdup_printf (_("Running: %s"), shown);
    }

  if (g_str_equal (name, SK_AGENT_TOOL_TASK_COMPLETE))
    return g_strdup (_("Finishing"));

  /* Translators: %s is the name of a tool that the coding agent asked for */
  return g_strdup_printf (_("Using the tool “%s”"), name);
}
/* Arguments -------------------------------------------------------------- */

/* Fetches the string argument @name. Returns %FALSE with a message for the
 * model when it is wrong, or missing while @required.
 */
static gboolean
get_string_argument (JsonObject  *args,
                     const char  *tool,
                     const char  *name,
                     gboolean     required,
                     const char **value,
                     char       **message)
{
  JsonNode *node = sk_json_get_member (args, name);

  *value = NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (!required)
        return TRUE;
      *message = g_strdup_printf ("%s needs the argument “%s”, a string.", tool, name);
      return FALSE;
    }

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      *message = g_strdup_printf ("The argument “%s” of %s must be a string.", name, tool);
      return FALSE;
    }

  *value = json_node_get_string (node);
  return TRUE;
}

/* Fetches the optional line number @name: a whole number, of at least 1. */
static gboolean
get_line_argument (JsonObject  *args,
                   const char  *name,
                   gint64      *value,
                   char       **message)
{
  JsonNode *node = sk_json_get_member (args, name);
  GType type;

  *value = 0;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  if (type == G_TYPE_INT64)
    {
      *value = json_node_get_int (node);
    }
  else if (type == G_TYPE_DOUBLE && json_node_get_double (node) == (double) (gint64) json_node_get_double (node))
    {
      *value = (gint64) json_node_get_double (node);
    }
  else
    {
      *message = g_strdup_printf ("The argument “%s” of read_file must be a whole number, "
                                  "such as 1.", name);
      return FALSE;
    }

  if (*value < 1)
    {
      *message = g_strdup_printf ("The argument “%s” of read_file must be 1 or more: lines "
                                  "are counted from 1.", name);
      return FALSE;
    }

  return TRUE;
}
/* File tools, run in a worker thread ------------------------------------- */

typedef struct
{
  char    *tool;
  char    *path;
  char    *content;
  gint64   start_line;
  gint64   end_line;
  gsize    limit;
} FileOp;

static void
file_op_free (FileOp *op)
{
  g_free (op->tool);
  g_free (op->path);
  g_free (op->content);
  g_free (op);
}

static void
file_op_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  SkAgentTools *self = source_object;
  FileOp *op = task_data;
  gboolean is_error = FALSE;
  char *text;

  if (g_task_return_error_if_cancelled (task))
    return;

  if (g_str_equal (op->tool, SK_AGENT_TOOL_LIST_DIR))
    text = sk_agent_files_list_dir (self->files, op->path, op->limit, &is_error);
  else if (g_str_equal (op->tool, SK_AGENT_TOOL_READ_FILE))
    text = sk_agent_files_read_file (self->files, op->path, op->start_line, op->end_line,
                                     op->limit, &is_error);
  else if (g_str_equal (op->tool, SK_AGENT_TOOL_WRITE_FILE))
    text = sk_agent_files_write_file (self->files, op->path, op->content, &is_error);
  else
    text = sk_agent_files_delete_file (self->files, op->path, &is_error);

  g_task_return_pointer (task, tool_result_new_take (text, is_error),
                         (GDestroyNotify) tool_result_free);
}

/* Commands --------------------------------------------------------------- */

typedef struct
{
  SkProcess *process;
  double     timeout;
} Command;

static void
command_free (Command *command)
{
  g_clear_object (&command->process);
  g_free (command);
}

static char *
command_result_text (Command  *command,
                     gboolean *is_error)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *output = sk_process_get_captured (command->process, SK_PROCESS_STDOUT);

  if (output[0] == '\0')
    g_string_append (text, "(no output)\n");
  else
    g_string_append (text, output);
  if (text->str[text->len - 1] != '\n')
    g_string_append_c (text, '\n');

  if (sk_process_get_timed_out (command->process))
    {
      g_string_append_printf (text, "[Stopped after %g seconds: the command took too long. "
                              "Commands must finish quickly and must not wait for input; "
                              "try a smaller sample or a faster approach.]\n",
                              command->timeout);
      *is_error = TRUE;
    }
  else if (sk_process_get_if_exited (command->process))
    {
      int status = sk_process_get_exit_status (command->process);

      g_string_append_printf (text, "[Exit status: %d]\n", status);
      *is_error = status != 0;
    }
  else
    {
      g_string_append_printf (text, "[Killed by signal %d]\n",
                              sk_process_get_term_sig (command->process));
      *is_error = TRUE;
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
command_wait_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Command *command = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  gboolean is_error = FALSE;
  char *text;

  /* A cancelled wait has killed the command's process group. */
  if (!sk_process_wait_finish (SK_PROCESS (object), result, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  text = command_result_text (command, &is_error);
  g_task_return_pointer (task, tool_result_new_take (text, is_error),
                         (GDestroyNotify) tool_result_free);
}

/* Each command runs in a process group of its own, so that what it leaves
 * running in the background stops with it. Its output is kept as its
 * beginning and its end, each half the output limit, so that a command that
 * prints without end costs no memory.
 */
static void
run_command (SkAgentTools *self,
             GTask        *task,
             const char   *command_line)
{
  g_autoptr(SkProcess) process = NULL;
  g_autoptr(GPtrArray) argv = NULL;
  g_auto(GStrv) env = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_strstrip (g_strdup (command_line));
  gsize head_size = self->output_limit / 2;
  const char *program;
  SkSandboxKind kind;
  Command *command;

  if (line[0] == '\0')
    {
      g_task_return_pointer (task, tool_result_new_take (g_strdup ("The command is empty."), TRUE),
                             (GDestroyNotify) tool_result_free);
      return;
    }
  if (strpbrk (line, "\r\n") != NULL)
    {
      g_task_return_pointer (task,
                             tool_result_new_take (g_strdup ("run_command runs ONE line. Join "
                                                             "commands with && or ;, and create "
                                                             "files with write_file rather than "
                                                             "in the shell."),
                                                   TRUE),
                             (GDestroyNotify) tool_result_free);
      return;
    }

  if (!sk_sandbox_choose (self->sandbox, self->allow_unsandboxed, &kind, &program, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  argv = sk_sandbox_command_arguments (kind, program,
                                       self->files->workflow_dir, self->files->node_dir,
                                       self->read_only_paths, self->allow_network,
                                       line, &env);

  process = sk_process_new ();
  sk_process_set_environ (process, (const char * const *) env);
  sk_process_set_cwd (process, self->files->node_dir);
  sk_process_set_merge_stderr (process, TRUE);
  sk_process_set_capture (process, head_size, self->output_limit - head_size);
  sk_process_set_timeout (process, self->command_timeout);

  if (!sk_process_spawn (process, (const char * const *) argv->pdata, &error))
    {
      g_task_return_new_error (task, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_FAILED,
                               _("The command could not be started: %s"), error->message);
      return;
    }

  command = g_new0 (Command, 1);
  command->process = g_object_ref (process);
  command->timeout = self->command_timeout;
  g_task_set_task_data (task, command, (GDestroyNotify) command_free);

  sk_process_wait_async (process, g_task_get_cancellable (task), command_wait_cb,
                         g_object_ref (task));
}

/* Calls ------------------------------------------------------------------ */

static void
return_text (GTask      *task,
             char       *text,
             gboolean    is_error)
{
  g_task_return_pointer (task, tool_result_new_take (text, is_error),
                         (GDestroyNotify) tool_result_free);
}

/**
 * sk_agent_tools_call_async:
 * @call: the model's call of list_dir, read_file, write_file, delete_file
 *   or run_command
 * @cancellable: (nullable): stops the call; a running command is killed
 * @callback: called when the call is done
 *
 * Carries out a tool call. Problems the model should see and fix (a path
 * outside the allowed folders, a missing file, wrong arguments, an unknown
 * tool, a command that failed) are not errors: the result is a message for
 * the model, flagged as an error. `task_complete` ends the agent's work and
 * is handled by the agent itself, never here.
 */
void
sk_agent_tools_call_async (SkAgentTools        *self,
                           const SkLlmToolCall *call,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonObject) args = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  const char *name;
  FileOp *op;

  g_return_if_fail (SK_IS_AGENT_TOOLS (self));
  g_return_if_fail (call != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_agent_tools_call_async);

  if (g_task_return_error_if_cancelled (task))
    return;

  name = call->name != NULL ? call->name : "";

  if (g_str_equal (name, SK_AGENT_TOOL_TASK_COMPLETE))
    {
      g_task_return_new_error (task, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_UNKNOWN_TOOL,
                               "task_complete is handled by the agent, not run as a tool");
      return;
    }

  if (!g_str_equal (name, SK_AGENT_TOOL_LIST_DIR) &&
      !g_str_equal (name, SK_AGENT_TOOL_READ_FILE) &&
      !g_str_equal (name, SK_AGENT_TOOL_WRITE_FILE) &&
      !g_str_equal (name, SK_AGENT_TOOL_DELETE_FILE) &&
      !g_str_equal (name, SK_AGENT_TOOL_RUN_COMMAND))
    {
      return_text (task, g_strdup_printf ("There is no tool named “%s”. The tools are list_dir, "
                                          "read_file, write_file, delete_file, run_command and "
                                          "task_complete.", name),
                   TRUE);
      return;
    }

  args = sk_llm_tool_call_parse_arguments (call, &error);
  if (args == NULL)
    {
      return_text (task, g_strdup_printf ("The arguments of %s are not a valid JSON object (%s). "
                                          "Send them as one JSON object, such as "
                                          "{\"path\": \"data.csv\"}.", name, error->message),
                   TRUE);
      return;
    }

  if (g_str_equal (name, SK_AGENT_TOOL_RUN_COMMAND))
    {
      const char *command_line;

      if (!get_string_argument (args, name, "command", TRUE, &command_line, &message))
        return_text (task, g_steal_pointer (&message), TRUE);
      else
        run_command (self, task, command_line);
      return;
    }

  op = g_new0 (FileOp, 1);
  g_task_set_task_data (task, op, (GDestroyNotify) file_op_free);
  op->tool = g_strdup (name);
  op->limit = self->output_limit;

  {
    const char *path;
    const char *content = NULL;
    /* A missing path lists the step's folder: harmless, and what a model
     * that leaves it out means.
     */
    gboolean path_required = !g_str_equal (name, SK_AGENT_TOOL_LIST_DIR);

    if (!get_string_argument (args, name, "path", path_required, &path, &message) ||
        (g_str_equal (name, SK_AGENT_TOOL_WRITE_FILE) &&
         !get_string_argument (args, name, "content", TRUE, &content, &message)) ||
        (g_str_equal (name, SK_AGENT_TOOL_READ_FILE) &&
         (!get_line_argument (args, "start_line", &op->start_line, &message) ||
          !get_line_argument (args, "end_line", &op->end_line, &message))))
      {
        return_text (task, g_steal_pointer (&message), TRUE);
        return;
      }

    op->path = g_strdup (path != NULL ? path : ".");
    op->content = g_strdup (content);
  }

  g_task_run_in_thread (task, file_op_thread);
}

/**
 * sk_agent_tools_call_finish:
 * @is_error: (out) (optional): whether the text reports a problem
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the text to send back to the model, or %NULL
 *   with %G_IO_ERROR_CANCELLED, %SK_AGENT_TOOLS_ERROR_NO_SANDBOX (a message
 *   for the user), %SK_AGENT_TOOLS_ERROR_UNKNOWN_TOOL for `task_complete`,
 *   or %SK_AGENT_TOOLS_ERROR_FAILED when a command could not be started
 */
char *
sk_agent_tools_call_finish (SkAgentTools  *self,
                            GAsyncResult  *result,
                            gboolean      *is_error,
                            GError       **error)
{
  g_autoptr(ToolResult) tool_result = NULL;

  g_return_val_if_fail (SK_IS_AGENT_TOOLS (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_agent_tools_call_async, NULL);

  tool_result = g_task_propagate_pointer (G_TASK (result), error);
  if (is_error != NULL)
    *is_error = tool_result == NULL || tool_result->is_error;
  if (tool_result == NULL)
    return NULL;

  return g_steal_pointer (&tool_result->text);
}
