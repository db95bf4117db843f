/* sk-agent-tools.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-agent-tools"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sk-agent-tools.h"

#define DEFAULT_COMMAND_TIMEOUT 120.0
#define DEFAULT_OUTPUT_LIMIT (16 * 1024)
#define MIN_OUTPUT_LIMIT 64
#define READ_LINE_LIMIT 2000
#define LIST_ENTRY_LIMIT 1000
#define MAX_LINKS 40
#define READ_CHUNK (64 * 1024)
#define BINARY_SNIFF_SIZE 8192
/* read_file counts a file's lines to say how long it is, up to this size. */
#define COUNT_LIMIT (64 * 1024 * 1024)
#define DRAIN_GRACE_MS 1000
#define SANDBOX_HOME "/tmp/home"
#define SKELE_FOLDER ".skele"

struct _SkAgentTools
{
  GObject        parent_instance;

  char          *workflow_dir;
  char          *node_dir;
  char          *skele_dir;
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

  g_clear_pointer (&self->workflow_dir, g_free);
  g_clear_pointer (&self->node_dir, g_free);
  g_clear_pointer (&self->skele_dir, g_free);
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

/* Paths ------------------------------------------------------------------ */

static gboolean
path_is_within (const char *path,
                const char *folder)
{
  gsize len = strlen (folder);

  if (strncmp (path, folder, len) != 0)
    return FALSE;

  return path[len] == '\0' || path[len] == '/' || (len > 0 && folder[len - 1] == '/');
}

/* Pushes the components of @path on @stack, the first one last, so that
 * they are popped in order.
 */
static void
push_components (GPtrArray  *stack,
                 const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, "/", -1);

  for (guint i = g_strv_length (parts); i > 0; i--)
    {
      const char *part = parts[i - 1];

      if (part[0] != '\0' && strcmp (part, ".") != 0)
        g_ptr_array_add (stack, g_strdup (part));
    }
}

/* Resolves @path against @base as the kernel would: every component that
 * exists is followed through symbolic links, so the result names where a
 * file operation would really land, and `..` is taken from the real folder
 * reached so far. The part that does not exist yet is kept as written,
 * which realpath() cannot do for files about to be created. With
 * @follow_last unset a link in the last place is not followed, so that the
 * link itself can be deleted.
 */
static char *
resolve_physical (const char  *base,
                  const char  *path,
                  gboolean     follow_last,
                  GError     **error)
{
  g_autoptr(GPtrArray) stack = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *current = g_strdup (g_path_is_absolute (path) ? "/" : base);
  guint links = 0;

  push_components (stack, path);

  while (stack->len > 0)
    {
      g_autofree char *name = g_ptr_array_steal_index (stack, stack->len - 1);
      g_autofree char *candidate = NULL;
      GStatBuf st;

      if (strcmp (name, "..") == 0)
        {
          char *parent = g_path_get_dirname (current);

          g_free (current);
          current = parent;
          continue;
        }

      candidate = g_build_filename (current, name, NULL);
      if ((stack->len > 0 || follow_last) &&
          g_lstat (candidate, &st) == 0 && S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (candidate, NULL);

          if (target == NULL || ++links > MAX_LINKS)
            {
              g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_FAILED,
                           "“%s” goes through too many symbolic links or a link that cannot be read.",
                           path);
              return NULL;
            }

          if (g_path_is_absolute (target))
            {
              g_free (current);
              current = g_strdup ("/");
            }
          push_components (stack, target);
          continue;
        }

      g_free (current);
      current = g_steal_pointer (&candidate);
    }

  return g_steal_pointer (&current);
}

/* Names @resolved as the model does: relative to the step's folder. */
static char *
display_path (SkAgentTools *self,
              const char   *resolved)
{
  gsize node_len = strlen (self->node_dir);
  gsize workflow_len = strlen (self->workflow_dir);

  if (g_str_equal (resolved, self->node_dir))
    return g_strdup (".");
  if (path_is_within (resolved, self->node_dir))
    return g_strdup (resolved + node_len + 1);
  if (g_str_equal (resolved, self->workflow_dir))
    return g_strdup ("..");
  if (path_is_within (resolved, self->workflow_dir))
    return g_strconcat ("..", resolved + workflow_len, NULL);

  return g_strdup (resolved);
}

/* Resolves @path and checks that the model may read it or, with
 * @for_write, write or delete it. The messages are for the model.
 */
static char *
resolve_checked (SkAgentTools  *self,
                 const char    *path,
                 gboolean       for_write,
                 gboolean       follow_last,
                 GError       **error)
{
  g_autofree char *resolved = NULL;
  g_autofree char *lexical = NULL;
  const char *allowed;
  const char *through_link;

  if (path == NULL || path[0] == '\0')
    {
      g_set_error_literal (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
                           "The path is empty. Give a path relative to your step's folder, "
                           "such as “data.csv” or “../other_step/other_step.py”.");
      return NULL;
    }

  resolved = resolve_physical (self->node_dir, path, follow_last, error);
  if (resolved == NULL)
    return NULL;

  allowed = for_write ? self->node_dir : self->workflow_dir;
  lexical = g_canonicalize_filename (path, self->node_dir);
  through_link = path_is_within (lexical, allowed)
    ? " It leads there through a symbolic link." : "";

  if (!for_write && !path_is_within (resolved, self->workflow_dir))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                   "Refused: “%s” is outside the workflow folder.%s You may read only inside "
                   "the workflow folder: use paths relative to your step's folder, such as "
                   "“data.csv” or “../other_step/other_step.py”.",
                   path, through_link);
      return NULL;
    }

  if (for_write && !path_is_within (resolved, self->node_dir))
    {
      if (path_is_within (resolved, self->workflow_dir) && through_link[0] == '\0')
        g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                     "Refused: “%s” is outside your step's folder. You may read other steps' "
                     "files, but write and delete only inside your own step's folder; "
                     "use a path such as “result.csv” or “test/test_step.py”.",
                     path);
      else
        g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                     "Refused: “%s” is outside your step's folder.%s You may write and "
                     "delete only inside your step's folder; use a path such as "
                     "“result.csv” or “test/test_step.py”.",
                     path, through_link);
      return NULL;
    }

  if (for_write && path_is_within (resolved, self->skele_dir))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                   "Refused: “%s” is inside “" SKELE_FOLDER "/”, which belongs to the program "
                   "that runs the workflow. Do not change it.",
                   path);
      return NULL;
    }

  return g_steal_pointer (&resolved);
}

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
  g_autofree char *resolved = NULL;

  g_return_val_if_fail (SK_IS_AGENT_TOOLS (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  resolved = resolve_checked (self, path, for_write, TRUE, error);
  if (resolved == NULL)
    return NULL;

  if (for_write && g_str_equal (resolved, self->node_dir))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                   "Refused: “%s” is your step's folder itself, not a file in it.", path);
      return NULL;
    }

  return g_steal_pointer (&resolved);
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
  g_autoptr(SkAgentTools) self = NULL;
  g_autofree char *cwd = NULL;
  g_autofree char *workflow = NULL;
  g_autofree char *node = NULL;

  g_return_val_if_fail (workflow_dir != NULL, NULL);
  g_return_val_if_fail (node_dir != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  cwd = g_get_current_dir ();
  workflow = resolve_physical (cwd, workflow_dir, TRUE, error);
  if (workflow == NULL)
    return NULL;
  if (!g_file_test (workflow, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_NOT_FOUND,
                   _("The workflow folder “%s” does not exist."), workflow_dir);
      return NULL;
    }

  /* Resolved through its links, so a step's folder that is a link leading
   * out of the workflow is caught here.
   */
  node = resolve_physical (workflow, node_dir, TRUE, error);
  if (node == NULL)
    return NULL;
  if (g_str_equal (node, workflow) || !path_is_within (node, workflow))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_OUTSIDE,
                   _("The step's folder “%s” is not inside the workflow folder “%s”."),
                   node_dir, workflow_dir);
      return NULL;
    }

  if (g_mkdir_with_parents (node, 0755) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_FAILED,
                   _("The step's folder “%s” could not be created: %s"),
                   node, g_strerror (saved_errno));
      return NULL;
    }

  self = g_object_new (SK_TYPE_AGENT_TOOLS, NULL);
  self->workflow_dir = g_steal_pointer (&workflow);
  self->node_dir = g_steal_pointer (&node);
  self->skele_dir = g_build_filename (self->node_dir, SKELE_FOLDER, NULL);

  return g_steal_pointer (&self);
}

const char *
sk_agent_tools_get_workflow_dir (SkAgentTools *self)
{
  g_return_val_if_fail (SK_IS_AGENT_TOOLS (self), NULL);

  return self->workflow_dir;
}

const char *
sk_agent_tools_get_node_dir (SkAgentTools *self)
{
  g_return_val_if_fail (SK_IS_AGENT_TOOLS (self), NULL);

  return self->node_dir;
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

  real = resolve_physical ("/", path, TRUE, NULL);
  if (real != NULL && !g_str_equal (real, g_ptr_array_index (self->read_only_paths,
                                                             self->read_only_paths->len - 1)))
    g_ptr_array_add (self->read_only_paths, g_steal_pointer (&real));
}

/* Sandbox probing -------------------------------------------------------- */

typedef struct
{
  SkSandboxKind  kind;
  char          *reason;
  char          *bwrap;
  char          *bwrap_reason;
  char          *flatpak_spawn;
} Probe;

static const char * const root_links[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32" };

/* The few files of /etc that programs need, read-only. */
static const char * const etc_files[] = {
  "/etc/alternatives",
  "/etc/ld.so.cache",
  "/etc/localtime",
  "/etc/timezone",
  "/etc/mime.types",
  "/etc/fonts",
  "/etc/matplotlibrc",
};

/* And those that only matter with the network. */
static const char * const etc_network_files[] = {
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/nsswitch.conf",
  "/etc/host.conf",
  "/etc/gai.conf",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/etc/crypto-policies",
};

static void
add_args (GPtrArray *argv,
          ...)
{
  va_list args;
  const char *arg;

  va_start (args, argv);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, g_strdup (arg));
  va_end (args);
}

/* The part of the bubblewrap command line that does not depend on the
 * step: a new namespace of every kind, no capabilities even for root, the
 * system's programs and libraries read-only, and empty /tmp, /proc and
 * /dev. The root's top-level links (/bin → usr/bin on merged systems) are
 * copied as links, and real folders bound instead where they are folders.
 */
static GPtrArray *
bwrap_base_arguments (const char *bwrap,
                      gboolean    share_network)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);

  add_args (argv, bwrap, "--unshare-all", NULL);
  if (share_network)
    add_args (argv, "--share-net", NULL);
  add_args (argv,
            "--die-with-parent",
            "--new-session",
            "--cap-drop", "ALL",
            "--ro-bind", "/usr", "/usr",
            NULL);

  for (guint i = 0; i < G_N_ELEMENTS (root_links); i++)
    {
      g_autofree char *path = g_strconcat ("/", root_links[i], NULL);
      GStatBuf st;

      if (g_lstat (path, &st) != 0)
        continue;

      if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (path, NULL);

          if (target != NULL)
            add_args (argv, "--symlink", target, path, NULL);
        }
      else if (S_ISDIR (st.st_mode))
        {
          add_args (argv, "--ro-bind", path, path, NULL);
        }
    }

  for (guint i = 0; i < G_N_ELEMENTS (etc_files); i++)
    add_args (argv, "--ro-bind-try", etc_files[i], etc_files[i], NULL);
  if (share_network)
    for (guint i = 0; i < G_N_ELEMENTS (etc_network_files); i++)
      add_args (argv, "--ro-bind-try", etc_network_files[i], etc_network_files[i], NULL);

  add_args (argv,
            "--proc", "/proc",
            "--dev", "/dev",
            "--tmpfs", "/tmp",
            "--dir", SANDBOX_HOME,
            NULL);

  return argv;
}

/* Runs bubblewrap once with the options that commands use: it is often
 * installed where it cannot work, in containers or where unprivileged user
 * namespaces are disabled.
 */
static char *
bwrap_try (const char *bwrap)
{
  g_autoptr(GPtrArray) argv = bwrap_base_arguments (bwrap, FALSE);
  g_autoptr(GError) error = NULL;
  g_autofree char *errors = NULL;
  int status = 0;

  add_args (argv, "/bin/sh", "-c", "true", NULL);
  g_ptr_array_add (argv, NULL);

  if (!g_spawn_sync ("/", (char **) argv->pdata, NULL,
                     G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_CLOEXEC_PIPES,
                     NULL, NULL, NULL, &errors, &status, &error))
    return g_strdup (error->message);

  if (!g_spawn_check_wait_status (status, NULL))
    {
      g_auto(GStrv) lines = g_strsplit (errors != NULL ? g_strstrip (errors) : "", "\n", 2);

      return g_strdup (lines[0] != NULL && lines[0][0] != '\0'
                       ? lines[0] : "it stopped without saying why");
    }

  return NULL;
}

static gpointer
probe_run (gpointer data)
{
  Probe *probe = g_new0 (Probe, 1);
  g_autofree char *bwrap = g_find_program_in_path ("bwrap");
  gboolean in_flatpak = g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS);

  probe->flatpak_spawn = g_find_program_in_path ("flatpak-spawn");

  if (bwrap == NULL)
    {
      probe->bwrap_reason =
        g_strdup (_("Bubblewrap (the “bwrap” program) is not installed."));
    }
  else if (in_flatpak && probe->flatpak_spawn != NULL)
    {
      /* Flatpak's own sandbox is used there; bubblewrap cannot nest in it. */
      probe->bwrap_reason =
        g_strdup (_("Bubblewrap cannot be used inside Flatpak."));
    }
  else
    {
      g_autofree char *failure = bwrap_try (bwrap);

      if (failure == NULL)
        probe->bwrap = g_steal_pointer (&bwrap);
      else
        probe->bwrap_reason =
          g_strdup_printf (_("Bubblewrap is installed but cannot create a sandbox on this system (%s)."),
                           failure);
    }

  if (in_flatpak && probe->flatpak_spawn != NULL)
    probe->kind = SK_SANDBOX_FLATPAK;
  else if (probe->bwrap != NULL)
    probe->kind = SK_SANDBOX_BWRAP;
  else
    {
      probe->kind = SK_SANDBOX_NONE;
      probe->reason = g_strdup (probe->bwrap_reason);
    }

  return probe;
}

static const Probe *
probe_get (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, probe_run, NULL);
}

/**
 * sk_sandbox_probe:
 * @kind: (out) (optional): what %SK_SANDBOX_AUTO resolves to here
 * @reason: (out) (optional) (transfer full): when there is no sandbox, why,
 *   in plain words for the user; %NULL otherwise
 *
 * Finds the sandbox that commands can use: Flatpak's when the program runs
 * inside Flatpak and `flatpak-spawn` is there, otherwise bubblewrap when it
 * is installed and actually works, which is tried once by running it; the
 * answer is kept for the life of the process.
 *
 * Returns: %TRUE when a sandbox is available
 */
gboolean
sk_sandbox_probe (SkSandboxKind  *kind,
                  char          **reason)
{
  const Probe *probe = probe_get ();

  if (kind != NULL)
    *kind = probe->kind;
  if (reason != NULL)
    *reason = g_strdup (probe->reason);

  return probe->kind != SK_SANDBOX_NONE;
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

static const char *
lookup_string (JsonObject *args,
               const char *name)
{
  JsonNode *node;

  if (args == NULL || (node = json_object_get_member (args, name)) == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (node);
}

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
  if (lookup_string (args, "path") != NULL)
    path = short_path (lookup_string (args, "path"));

  if (g_str_equal (name, SK_AGENT_TOOL_LIST_DIR))
    {
      const char *given = lookup_string (args, "path");

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
      const char *command = lookup_string (args, "command");
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
  JsonNode *node = json_object_get_member (args, name);

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
  JsonNode *node = json_object_get_member (args, name);
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

static ToolResult *
error_result (GError *error)
{
  return tool_result_new_take (g_strdup (error->message), TRUE);
}

static ToolResult *
errno_result (const char *what,
              const char *shown,
              int         saved_errno)
{
  return tool_result_new_take (g_strdup_printf ("Could not %s “%s”: %s.", what, shown,
                                                g_strerror (saved_errno)),
                               TRUE);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static ToolResult *
list_dir (SkAgentTools *self,
          FileOp       *op)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *shown = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) text = g_string_new (NULL);
  const char *name;
  GStatBuf st;
  guint listed = 0;

  resolved = resolve_checked (self, op->path, FALSE, TRUE, &error);
  if (resolved == NULL)
    return error_result (error);

  shown = display_path (self, resolved);
  if (g_stat (resolved, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT || saved_errno == ENOTDIR)
        return tool_result_new_take (g_strdup_printf ("There is no folder “%s”.", op->path), TRUE);
      return errno_result ("list", shown, saved_errno);
    }
  if (!S_ISDIR (st.st_mode))
    return tool_result_new_take (g_strdup_printf ("“%s” is a file, not a folder: read it with "
                                                  "read_file.", op->path),
                                 TRUE);

  dir = g_dir_open (resolved, 0, &error);
  if (dir == NULL)
    return tool_result_new_take (g_strdup_printf ("Could not list “%s”: %s.", shown, error->message),
                                 TRUE);

  /* The runner's bookkeeping is not the agent's business. */
  while ((name = g_dir_read_name (dir)) != NULL)
    if (!g_str_equal (name, SKELE_FOLDER))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);

  g_string_append_printf (text, "[Folder %s%s: %u %s]\n", shown,
                          g_str_has_suffix (shown, "/") ? "" : "/",
                          names->len, names->len == 1 ? "entry" : "entries");
  if (names->len == 0)
    g_string_append (text, "(empty)\n");

  for (guint i = 0; i < names->len; i++)
    {
      const char *entry = g_ptr_array_index (names, i);
      g_autofree char *full = g_build_filename (resolved, entry, NULL);
      g_autofree char *target_path = NULL;
      gsize before = text->len;
      GStatBuf entry_st;
      gboolean is_link = g_lstat (full, &entry_st) == 0 && S_ISLNK (entry_st.st_mode);
      gboolean outside = FALSE;
      gboolean exists;

      /* Nothing is told about what a link outside the workflow leads to. */
      if (is_link)
        {
          target_path = resolve_physical (resolved, entry, TRUE, NULL);
          outside = target_path == NULL || !path_is_within (target_path, self->workflow_dir);
        }
      exists = !outside && g_stat (full, &entry_st) == 0;

      if (listed >= LIST_ENTRY_LIMIT || text->len >= op->limit)
        {
          g_string_append_printf (text, "[… and %u more entries, not shown]\n", names->len - i);
          break;
        }

      g_string_append (text, entry);
      if (exists && S_ISDIR (entry_st.st_mode))
        g_string_append_c (text, '/');
      else if (exists && S_ISREG (entry_st.st_mode))
        g_string_append_printf (text, "  (%" G_GUINT64_FORMAT " bytes)", (guint64) entry_st.st_size);

      if (is_link)
        {
          g_autofree char *target = g_file_read_link (full, NULL);

          g_string_append_printf (text, "  -> %s%s", target != NULL ? target : "?",
                                  outside ? " (outside the workflow)" : exists ? "" : " (missing)");
        }
      g_string_append_c (text, '\n');

      if (!g_utf8_validate (text->str + before, text->len - before, NULL))
        {
          g_autofree char *valid = g_utf8_make_valid (text->str + before, text->len - before);

          g_string_truncate (text, before);
          g_string_append (text, valid);
        }
      listed++;
    }

  return tool_result_new_take (g_string_free (g_steal_pointer (&text), FALSE), FALSE);
}

/* Reads a range of lines from a file without loading more than it returns,
 * so that a huge data file costs no memory.
 */
static ToolResult *
read_file (SkAgentTools *self,
           FileOp       *op)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *shown = NULL;
  g_autofree guint8 *buffer = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  gint64 start = op->start_line > 0 ? op->start_line : 1;
  gint64 end = op->end_line > 0 ? op->end_line : G_MAXINT64;
  gint64 line = 1;
  gint64 shown_lines = 0;
  gint64 stop_line = 0;
  gint64 total_lines;
  guint64 offset = 0;
  gsize line_start = 0;
  gboolean counted = TRUE;
  gboolean long_line = FALSE;
  gboolean binary = FALSE;
  guint8 last_byte = '\n';
  const char *invalid;
  GStatBuf st;
  int fd;

  if (op->end_line > 0 && op->start_line > 0 && op->end_line < op->start_line)
    return tool_result_new_take (g_strdup_printf ("end_line (%" G_GINT64_FORMAT ") is before "
                                                  "start_line (%" G_GINT64_FORMAT ").",
                                                  op->end_line, op->start_line),
                                 TRUE);

  resolved = resolve_checked (self, op->path, FALSE, TRUE, &error);
  if (resolved == NULL)
    return error_result (error);
  shown = display_path (self, resolved);

  if (g_stat (resolved, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT || saved_errno == ENOTDIR)
        return tool_result_new_take (g_strdup_printf ("There is no file “%s”. Use list_dir to see "
                                                      "which files exist.", op->path),
                                     TRUE);
      return errno_result ("read", shown, saved_errno);
    }
  if (S_ISDIR (st.st_mode))
    return tool_result_new_take (g_strdup_printf ("“%s” is a folder: list it with list_dir.", op->path),
                                 TRUE);
  if (!S_ISREG (st.st_mode))
    return tool_result_new_take (g_strdup_printf ("“%s” is not a regular file.", op->path), TRUE);

  fd = g_open (resolved, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    return errno_result ("read", shown, errno);

  buffer = g_malloc (READ_CHUNK);
  for (;;)
    {
      gssize n = read (fd, buffer, READ_CHUNK);
      gsize i = 0;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;

          close (fd);
          return errno_result ("read", shown, saved_errno);
        }
      if (n == 0)
        break;

      if (offset < BINARY_SNIFF_SIZE &&
          memchr (buffer, '\0', MIN ((guint64) n, BINARY_SNIFF_SIZE - offset)) != NULL)
        binary = TRUE;
      offset += n;
      last_byte = buffer[n - 1];

      while (i < (gsize) n)
        {
          const guint8 *newline = memchr (buffer + i, '\n', n - i);
          gsize segment = newline != NULL ? (gsize) (newline - buffer) + 1 - i : (gsize) n - i;

          if (stop_line == 0 && line >= start && line <= end)
            {
              if (out->len + segment <= op->limit)
                {
                  g_string_append_len (out, (const char *) buffer + i, segment);
                }
              else if (shown_lines == 0)
                {
                  /* A single line longer than the limit is shown in part. */
                  g_string_append_len (out, (const char *) buffer + i, op->limit - out->len);
                  long_line = TRUE;
                  stop_line = line + 1;
                }
              else
                {
                  g_string_truncate (out, line_start);
                  stop_line = line;
                }
            }

          i += segment;
          if (newline != NULL)
            {
              if (stop_line == 0 && line >= start && line <= end)
                {
                  shown_lines++;
                  if (shown_lines == READ_LINE_LIMIT && line < end)
                    stop_line = line + 1;
                }
              line++;
              line_start = out->len;
            }
        }

      if ((stop_line != 0 || line > end) && offset > COUNT_LIMIT)
        {
          counted = FALSE;
          break;
        }
    }
  close (fd);

  /* The last line has no newline when the file does not end with one. */
  total_lines = line - 1 + (offset > 0 && last_byte != '\n' ? 1 : 0);
  /* The line limit may have been reached on the file's last line. */
  if (counted && !long_line && stop_line > total_lines)
    stop_line = 0;

  if (binary || memchr (out->str, '\0', out->len) != NULL)
    return tool_result_new_take (g_strdup_printf ("“%s” looks like a binary file (it contains NUL "
                                                  "bytes), not text. Inspect it with a short Python "
                                                  "command instead, for example one that loads it "
                                                  "and prints a summary.", op->path),
                                 TRUE);

  if (!g_utf8_validate_len (out->str, out->len, &invalid))
    {
      gsize valid_len = invalid - out->str;

      /* Cutting a long line may have split a character in two. */
      if (long_line && out->len - valid_len < 4)
        g_string_truncate (out, valid_len);
      else
        return tool_result_new_take (g_strdup_printf ("“%s” is not UTF-8 text (at byte %" G_GSIZE_FORMAT
                                                      " of the part read). If it is text in another "
                                                      "encoding, read it with a Python command that "
                                                      "opens it with that encoding (for example "
                                                      "encoding=\"latin-1\"); if it is binary, inspect "
                                                      "it with a short Python command.",
                                                      op->path, valid_len),
                                     TRUE);
    }

  if (offset == 0)
    return tool_result_new_take (g_strdup_printf ("[%s: empty file]\n", shown), FALSE);

  if (counted && start > total_lines)
    return tool_result_new_take (g_strdup_printf ("“%s” has only %" G_GINT64_FORMAT " %s; "
                                                  "start_line %" G_GINT64_FORMAT " is past its end.",
                                                  op->path, total_lines,
                                                  total_lines == 1 ? "line" : "lines", start),
                                 TRUE);

  {
    gint64 last_shown = stop_line != 0 ? stop_line - 1 : MIN (end, total_lines);

    if (long_line)
      last_shown = start;
    if (counted)
      g_string_append_printf (text, "[%s: lines %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT
                              " of %" G_GINT64_FORMAT "]\n",
                              shown, start, last_shown, total_lines);
    else
      g_string_append_printf (text, "[%s: lines %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT
                              " of a file too large to count its lines (%" G_GUINT64_FORMAT
                              " bytes)]\n",
                              shown, start, last_shown, (guint64) st.st_size);

    g_string_append_len (text, out->str, out->len);

    if (long_line)
      g_string_append_printf (text, "\n[Line %" G_GINT64_FORMAT " is longer than %" G_GSIZE_FORMAT
                              " bytes and was cut. Inspect it with a Python command.]\n",
                              start, op->limit);
    else if (stop_line != 0)
      g_string_append_printf (text, "%s[Stopped after line %" G_GINT64_FORMAT " to keep the output "
                              "short. Read on with start_line=%" G_GINT64_FORMAT ".]\n",
                              text->len > 0 && text->str[text->len - 1] != '\n' ? "\n" : "",
                              last_shown, stop_line);
  }

  return tool_result_new_take (g_string_free (g_steal_pointer (&text), FALSE), FALSE);
}

static ToolResult *
write_file (SkAgentTools *self,
            FileOp       *op)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *parent = NULL;
  gboolean existed;
  guint lines = 0;
  gsize length;

  resolved = sk_agent_tools_resolve_path (self, op->path, TRUE, &error);
  if (resolved == NULL)
    return error_result (error);
  shown = display_path (self, resolved);

  if (g_file_test (resolved, G_FILE_TEST_IS_DIR))
    return tool_result_new_take (g_strdup_printf ("“%s” is a folder; give the path of a file.", op->path),
                                 TRUE);

  parent = g_path_get_dirname (resolved);
  if (g_mkdir_with_parents (parent, 0755) != 0)
    {
      g_autofree char *shown_parent = display_path (self, parent);

      return errno_result ("create the folder", shown_parent, errno);
    }

  existed = g_file_test (resolved, G_FILE_TEST_EXISTS);
  length = strlen (op->content);
  if (!g_file_set_contents_full (resolved, op->content, length,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0644, &error))
    return tool_result_new_take (g_strdup_printf ("Could not write “%s”: %s.", shown, error->message),
                                 TRUE);

  for (const char *p = op->content; *p != '\0'; p++)
    if (*p == '\n')
      lines++;
  if (length > 0 && op->content[length - 1] != '\n')
    lines++;

  return tool_result_new_take (g_strdup_printf ("%s “%s”: %u %s, %" G_GSIZE_FORMAT " bytes.",
                                                existed ? "Replaced" : "Created", shown,
                                                lines, lines == 1 ? "line" : "lines", length),
                               FALSE);
}

/* Deletes a file. A link is deleted itself, never what it points to, so a
 * link in the step's folder can be removed wherever it leads.
 */
static ToolResult *
delete_file (SkAgentTools *self,
             FileOp       *op)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *shown = NULL;
  GStatBuf st;

  resolved = resolve_checked (self, op->path, TRUE, FALSE, &error);
  if (resolved == NULL)
    return error_result (error);
  shown = display_path (self, resolved);

  if (g_str_equal (resolved, self->node_dir))
    return tool_result_new_take (g_strdup_printf ("Refused: “%s” is your step's folder itself; "
                                                  "delete_file deletes files only.", op->path),
                                 TRUE);

  if (g_lstat (resolved, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT || saved_errno == ENOTDIR)
        return tool_result_new_take (g_strdup_printf ("There is no file “%s”.", op->path), TRUE);
      return errno_result ("delete", shown, saved_errno);
    }

  if (S_ISDIR (st.st_mode))
    return tool_result_new_take (g_strdup_printf ("Refused: “%s” is a folder; delete_file deletes "
                                                  "files only. Delete the files in it one by one; "
                                                  "an empty folder does no harm.", op->path),
                                 TRUE);

  if (g_unlink (resolved) != 0)
    return errno_result ("delete", shown, errno);

  return tool_result_new_take (g_strdup_printf ("Deleted “%s”.", shown), FALSE);
}

static void
file_op_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  SkAgentTools *self = source_object;
  FileOp *op = task_data;
  ToolResult *result;

  if (g_task_return_error_if_cancelled (task))
    return;

  if (g_str_equal (op->tool, SK_AGENT_TOOL_LIST_DIR))
    result = list_dir (self, op);
  else if (g_str_equal (op->tool, SK_AGENT_TOOL_READ_FILE))
    result = read_file (self, op);
  else if (g_str_equal (op->tool, SK_AGENT_TOOL_WRITE_FILE))
    result = write_file (self, op);
  else
    result = delete_file (self, op);

  g_task_return_pointer (task, result, (GDestroyNotify) tool_result_free);
}

/* Commands --------------------------------------------------------------- */

typedef struct
{
  GSubprocess  *process;
  GInputStream *output;
  GCancellable *read_cancellable;
  GCancellable *cancellable;
  gulong        cancelled_id;
  GSource      *timeout_source;
  GSource      *drain_source;
  pid_t         pid;
  double        timeout;
  gsize         limit;

  /* The output is kept as its beginning and its end, each bounded, so that
   * a command that prints without end costs no memory.
   */
  GByteArray   *head;
  gsize         head_size;
  guint8       *tail;
  gsize         tail_size;
  guint64       tail_count;
  guint64       total;
  guint8       *buffer;

  guint         exited : 1;
  guint         read_done : 1;
  guint         timed_out : 1;
  guint         finished : 1;
} Command;

/* Each command runs in its own process group, made before the command
 * starts, so that what it started in the background stops with it. The
 * group alone is named: the process itself may be reaped already, and its
 * number given to another.
 */
static void
kill_group (pid_t pid)
{
  if (pid > 0)
    kill (-pid, SIGKILL);
}

static void
clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static void
command_free (Command *command)
{
  clear_source (&command->timeout_source);
  clear_source (&command->drain_source);
  if (command->cancelled_id != 0)
    g_cancellable_disconnect (command->cancellable, command->cancelled_id);
  g_clear_object (&command->cancellable);
  g_clear_object (&command->read_cancellable);
  g_clear_object (&command->output);
  g_clear_object (&command->process);
  g_clear_pointer (&command->head, g_byte_array_unref);
  g_free (command->tail);
  g_free (command->buffer);
  g_free (command);
}

static void
command_take_output (Command      *command,
                     const guint8 *data,
                     gsize         len)
{
  gsize to_head = MIN (len, command->head_size - command->head->len);

  command->total += len;
  g_byte_array_append (command->head, data, to_head);
  data += to_head;
  len -= to_head;

  if (len >= command->tail_size)
    {
      command->tail_count += len - command->tail_size;
      data += len - command->tail_size;
      len = command->tail_size;
    }

  while (len > 0)
    {
      gsize position = command->tail_count % command->tail_size;
      gsize n = MIN (len, command->tail_size - position);

      memcpy (command->tail + position, data, n);
      data += n;
      len -= n;
      command->tail_count += n;
    }
}

/* Puts the kept output together, with a note where a part was cut. */
static char *
command_output_text (Command *command)
{
  g_autoptr(GString) raw = g_string_new (NULL);
  if (command->tail_count <= command->tail_size)
    {
      g_string_append_len (raw, (const char *) command->head->data, command->head->len);
      g_string_append_len (raw, (const char *) command->tail, command->tail_count);
    }
  else
    {
      gsize position = command->tail_count % command->tail_size;
      g_autoptr(GString) tail = g_string_sized_new (command->tail_size);
      gsize head_len = command->head->len;
      const char *newline;
      guint64 cut;

      g_string_append_len (tail, (const char *) command->tail + position, command->tail_size - position);
      g_string_append_len (tail, (const char *) command->tail, position);

      /* Cut at line ends where there are any, so that no line is shown in
       * part.
       */
      while (head_len > 0 && command->head->data[head_len - 1] != '\n')
        head_len--;
      if (head_len == 0)
        head_len = command->head->len;
      newline = memchr (tail->str, '\n', tail->len);
      if (newline != NULL && (gsize) (newline - tail->str) + 1 < tail->len)
        g_string_erase (tail, 0, newline - tail->str + 1);

      cut = command->total - head_len - tail->len;
      g_string_append_len (raw, (const char *) command->head->data, head_len);
      if (raw->len > 0 && raw->str[raw->len - 1] != '\n')
        g_string_append_c (raw, '\n');
      g_string_append_printf (raw, "[… %" G_GUINT64_FORMAT " bytes of output cut here: the output "
                              "is limited to %" G_GSIZE_FORMAT " bytes. Print less, or write long "
                              "output to a file and read parts of it with read_file.]\n",
                              cut, command->limit);
      g_string_append_len (raw, tail->str, tail->len);
    }

  return g_utf8_make_valid (raw->str, raw->len);
}

static char *
command_result_text (Command  *command,
                     gboolean *is_error)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *output = command_output_text (command);

  if (output[0] == '\0')
    g_string_append (text, "(no output)\n");
  else
    g_string_append (text, output);
  if (text->str[text->len - 1] != '\n')
    g_string_append_c (text, '\n');

  if (command->timed_out)
    {
      g_string_append_printf (text, "[Stopped after %g seconds: the command took too long. "
                              "Commands must finish quickly and must not wait for input; "
                              "try a smaller sample or a faster approach.]\n",
                              command->timeout);
      *is_error = TRUE;
    }
  else if (g_subprocess_get_if_exited (command->process))
    {
      int status = g_subprocess_get_exit_status (command->process);

      g_string_append_printf (text, "[Exit status: %d]\n", status);
      *is_error = status != 0;
    }
  else
    {
      g_string_append_printf (text, "[Killed by signal %d]\n",
                              g_subprocess_get_term_sig (command->process));
      *is_error = TRUE;
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
command_maybe_finish (GTask *task)
{
  Command *command = g_task_get_task_data (task);
  gboolean is_error = FALSE;
  char *text;

  if (!command->exited || !command->read_done || command->finished)
    return;

  command->finished = TRUE;
  clear_source (&command->timeout_source);
  clear_source (&command->drain_source);
  if (command->cancelled_id != 0)
    {
      g_cancellable_disconnect (command->cancellable, command->cancelled_id);
      command->cancelled_id = 0;
    }

  /* Whatever the command left running in the background stops now; the
   * group keeps its number while it has members, so this reaches no one
   * else.
   */
  kill_group (command->pid);

  if (g_task_return_error_if_cancelled (task))
    return;

  text = command_result_text (command, &is_error);
  g_task_return_pointer (task, tool_result_new_take (text, is_error),
                         (GDestroyNotify) tool_result_free);
}

static void
command_read_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Command *command = g_task_get_task_data (task);
  gssize n;

  n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);
  if (n <= 0)
    {
      command->read_done = TRUE;
      command_maybe_finish (task);
      return;
    }

  command_take_output (command, command->buffer, n);
  g_input_stream_read_async (command->output, command->buffer, READ_CHUNK,
                             G_PRIORITY_DEFAULT, command->read_cancellable,
                             command_read_cb, g_steal_pointer (&task));
}

static gboolean
command_drain_cb (gpointer user_data)
{
  Command *command = user_data;

  /* Something the command started still holds its output open. */
  g_clear_pointer (&command->drain_source, g_source_unref);
  kill_group (command->pid);
  g_cancellable_cancel (command->read_cancellable);

  return G_SOURCE_REMOVE;
}

static GSource *
attach_timeout (GTask       *task,
                guint        msec,
                GSourceFunc  func,
                gpointer     data)
{
  GSource *source = g_timeout_source_new (msec);

  g_source_set_callback (source, func, data, NULL);
  g_source_attach (source, g_task_get_context (task));

  return source;
}

static void
command_wait_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Command *command = g_task_get_task_data (task);

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  command->exited = TRUE;

  if (!command->read_done && command->drain_source == NULL)
    command->drain_source = attach_timeout (task, DRAIN_GRACE_MS, command_drain_cb, command);

  command_maybe_finish (task);
}

static gboolean
command_timeout_cb (gpointer user_data)
{
  Command *command = user_data;

  g_clear_pointer (&command->timeout_source, g_source_unref);
  command->timed_out = TRUE;
  kill_group (command->pid);

  return G_SOURCE_REMOVE;
}

static void
command_cancelled_cb (GCancellable *cancellable,
                      gpointer      user_data)
{
  Command *command = user_data;

  /* This may run in any thread: it only sends a signal. The wait then
   * completes in the task's own context and reports the cancellation.
   */
  kill_group (command->pid);
}

static void
child_setup (gpointer user_data)
{
  setpgid (0, 0);
}

/* The environment of a command: nothing of the program's own, except where
 * to find programs and the language, so that no secret (an API key, a
 * session bus address) reaches the command.
 */
static char **
command_environment (const char *home)
{
  g_auto(GStrv) names = g_listenv ();
  const char *path = g_getenv ("PATH");
  char **env = g_new0 (char *, 1);

  env = g_environ_setenv (env, "PATH",
                          path != NULL && path[0] != '\0' ? path : "/usr/local/bin:/usr/bin:/bin",
                          TRUE);
  for (guint i = 0; names[i] != NULL; i++)
    if (g_str_equal (names[i], "LANG") || g_str_equal (names[i], "LANGUAGE") ||
        g_str_has_prefix (names[i], "LC_"))
      env = g_environ_setenv (env, names[i], g_getenv (names[i]), TRUE);
  if (g_environ_getenv (env, "LANG") == NULL)
    env = g_environ_setenv (env, "LANG", "C.UTF-8", TRUE);

  env = g_environ_setenv (env, "HOME", home, TRUE);
  /* Bytecode caches would show up among the step's files, and charts need
   * a backend that does not look for a display.
   */
  env = g_environ_setenv (env, "PYTHONDONTWRITEBYTECODE", "1", TRUE);
  env = g_environ_setenv (env, "PYTHONUNBUFFERED", "1", TRUE);
  env = g_environ_setenv (env, "PYTHONIOENCODING", "utf-8", TRUE);
  env = g_environ_setenv (env, "MPLBACKEND", "Agg", TRUE);

  return env;
}

/* Works out which sandbox a command runs in. Returns %FALSE with
 * %SK_AGENT_TOOLS_ERROR_NO_SANDBOX, in the user's language, when none may
 * be used.
 */
static gboolean
choose_sandbox (SkAgentTools   *self,
                SkSandboxKind  *kind,
                const char    **program,
                GError        **error)
{
  const Probe *probe = probe_get ();
  const char *reason = NULL;

  *kind = self->sandbox == SK_SANDBOX_AUTO ? probe->kind : self->sandbox;
  *program = NULL;

  switch (*kind)
    {
    case SK_SANDBOX_BWRAP:
      if (probe->bwrap != NULL)
        {
          *program = probe->bwrap;
          return TRUE;
        }
      reason = probe->bwrap_reason;
      break;

    case SK_SANDBOX_FLATPAK:
      if (probe->flatpak_spawn != NULL)
        {
          *program = probe->flatpak_spawn;
          return TRUE;
        }
      reason = _("The “flatpak-spawn” program is missing.");
      break;

    case SK_SANDBOX_NONE:
    case SK_SANDBOX_AUTO:
    default:
      if (self->allow_unsandboxed)
        {
          *kind = SK_SANDBOX_NONE;
          return TRUE;
        }
      reason = self->sandbox == SK_SANDBOX_NONE
        ? _("The sandbox for commands is turned off.")
        : probe->reason;
      break;
    }

  g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_NO_SANDBOX,
               /* Translators: %s says why no sandbox can be used */
               _("The coding agent's commands were not run, because they cannot be confined "
                 "safely here. %s To let the agent run commands, install bubblewrap (the "
                 "“bubblewrap” package), or turn off the command protection in Preferences if "
                 "you trust the model."),
               reason != NULL ? reason : "");
  return FALSE;
}

static GPtrArray *
command_arguments (SkAgentTools  *self,
                   SkSandboxKind  kind,
                   const char    *program,
                   const char    *command_line,
                   char        ***env)
{
  GPtrArray *argv;

  if (kind == SK_SANDBOX_BWRAP)
    {
      argv = bwrap_base_arguments (program, self->allow_network);
      for (guint i = 0; i < self->read_only_paths->len; i++)
        {
          const char *path = g_ptr_array_index (self->read_only_paths, i);

          add_args (argv, "--ro-bind-try", path, path, NULL);
        }
      /* The step's folder is mounted over the read-only workflow, at the
       * same paths as outside, so that paths in messages make sense.
       */
      add_args (argv,
                "--ro-bind", self->workflow_dir, self->workflow_dir,
                "--bind", self->node_dir, self->node_dir,
                "--chdir", self->node_dir,
                NULL);
      *env = command_environment (SANDBOX_HOME);
    }
  else if (kind == SK_SANDBOX_FLATPAK)
    {
      g_auto(GStrv) inner_env = command_environment ("/tmp");

      /* The portal turns these into `flatpak run --filesystem=` options,
       * which mount parents before children, so the step's folder stays
       * writable inside the read-only workflow. --watch-bus ends the
       * command when flatpak-spawn is killed, as it cannot pass SIGKILL on.
       */
      argv = g_ptr_array_new_with_free_func (g_free);
      add_args (argv, program, "--sandbox", "--watch-bus", "--clear-env", NULL);
      if (!self->allow_network)
        add_args (argv, "--no-network", NULL);
      for (guint i = 0; inner_env[i] != NULL; i++)
        g_ptr_array_add (argv, g_strconcat ("--env=", inner_env[i], NULL));
      g_ptr_array_add (argv, g_strconcat ("--sandbox-expose-path-ro=", self->workflow_dir, NULL));
      g_ptr_array_add (argv, g_strconcat ("--sandbox-expose-path=", self->node_dir, NULL));
      for (guint i = 0; i < self->read_only_paths->len; i++)
        g_ptr_array_add (argv, g_strconcat ("--sandbox-expose-path-ro-try=",
                                            (const char *) g_ptr_array_index (self->read_only_paths, i),
                                            NULL));
      g_ptr_array_add (argv, g_strconcat ("--directory=", self->node_dir, NULL));
      *env = g_get_environ ();
    }
  else
    {
      const char *home = g_get_home_dir ();

      argv = g_ptr_array_new_with_free_func (g_free);
      *env = command_environment (home != NULL ? home : "/");
    }

  add_args (argv, "/bin/sh", "-c", command_line, NULL);
  g_ptr_array_add (argv, NULL);

  return argv;
}

static void
run_command (SkAgentTools *self,
             GTask        *task,
             const char   *command_line)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = NULL;
  g_auto(GStrv) env = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_strstrip (g_strdup (command_line));
  GCancellable *cancellable = g_task_get_cancellable (task);
  const char *program;
  const char *identifier;
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

  if (!choose_sandbox (self, &kind, &program, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  argv = command_arguments (self, kind, program, line, &env);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_subprocess_launcher_set_environ (launcher, env);
  g_subprocess_launcher_set_cwd (launcher, self->node_dir);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);

  command = g_new0 (Command, 1);
  g_task_set_task_data (task, command, (GDestroyNotify) command_free);

  command->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata,
                                                   &error);
  if (command->process == NULL)
    {
      g_task_return_new_error (task, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_FAILED,
                               _("The command could not be started: %s"), error->message);
      return;
    }

  identifier = g_subprocess_get_identifier (command->process);
  command->pid = identifier != NULL ? (pid_t) g_ascii_strtoll (identifier, NULL, 10) : 0;
  command->output = g_object_ref (g_subprocess_get_stdout_pipe (command->process));
  command->read_cancellable = g_cancellable_new ();
  command->timeout = self->command_timeout;
  command->limit = self->output_limit;
  command->head_size = self->output_limit / 2;
  command->head = g_byte_array_sized_new (command->head_size);
  command->tail_size = self->output_limit - command->head_size;
  command->tail = g_malloc (command->tail_size);
  command->buffer = g_malloc (READ_CHUNK);

  g_input_stream_read_async (command->output, command->buffer, READ_CHUNK,
                             G_PRIORITY_DEFAULT, command->read_cancellable,
                             command_read_cb, g_object_ref (task));
  g_subprocess_wait_async (command->process, NULL, command_wait_cb, g_object_ref (task));

  if (command->timeout > 0)
    command->timeout_source = attach_timeout (task, (guint) MIN (command->timeout * 1000, G_MAXUINT),
                                              command_timeout_cb, command);

  if (cancellable != NULL)
    {
      command->cancellable = g_object_ref (cancellable);
      command->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (command_cancelled_cb),
                                                     command, NULL);
    }
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

/* Text tool calls -------------------------------------------------------- */

/* Recognises a fence line: three or more backticks or tildes, after any
 * indentation. Returns the fence's character and length, and the rest.
 */
static gboolean
parse_fence (const char  *line,
             char        *fence_char,
             gsize       *fence_len,
             const char **rest)
{
  const char *p = line;
  gsize n = 0;

  while (*p == ' ' || *p == '\t')
    p++;
  if (*p != '`' && *p != '~')
    return FALSE;
  while (p[n] == *p)
    n++;
  if (n < 3)
    return FALSE;

  *fence_char = *p;
  *fence_len = n;
  *rest = p + n;
  return TRUE;
}

static gboolean
is_closing_fence (const char *line,
                  char        fence_char,
                  gsize       fence_len)
{
  char c;
  gsize n;
  const char *rest;

  if (!parse_fence (line, &c, &n, &rest) || c != fence_char || n < fence_len)
    return FALSE;
  while (*rest == ' ' || *rest == '\t')
    rest++;

  return *rest == '\0';
}

#define TOOL_BLOCK_EXAMPLE \
  "{\"tool\": \"read_file\", \"arguments\": {\"path\": \"data.csv\"}}"

static SkLlmToolCall *
parse_tool_block (const char  *block,
                  guint        number,
                  GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) arguments = NULL;
  g_autofree char *arguments_text = NULL;
  g_autofree char *id = NULL;
  JsonObject *object;
  JsonNode *root;
  JsonNode *tool;
  JsonNode *given;

  if (!json_parser_load_from_data (parser, block, -1, &local_error))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
                   "The ```tool block is not valid JSON (%s). It must hold exactly one JSON "
                   "object, such as " TOOL_BLOCK_EXAMPLE ". Inside strings, write newlines as "
                   "\\n and escape double quotes and backslashes as \\\" and \\\\.",
                   local_error->message);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
                   "The ```tool block must hold one JSON object, such as " TOOL_BLOCK_EXAMPLE ".");
      return NULL;
    }

  object = json_node_get_object (root);
  tool = json_object_get_member (object, "tool");
  if (tool == NULL || !JSON_NODE_HOLDS_VALUE (tool) ||
      json_node_get_value_type (tool) != G_TYPE_STRING ||
      json_node_get_string (tool)[0] == '\0')
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
                   "The JSON object in the ```tool block needs a \"tool\" member with the "
                   "tool's name, and an \"arguments\" object, such as " TOOL_BLOCK_EXAMPLE ".");
      return NULL;
    }

  given = json_object_get_member (object, "arguments");
  if (given == NULL)
    {
      /* Arguments written beside the name are taken as they are. */
      g_autoptr(JsonObject) rest = json_object_new ();
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        if (!g_str_equal (l->data, "tool"))
          json_object_set_member (rest, l->data,
                                  json_node_copy (json_object_get_member (object, l->data)));
      arguments = json_node_init_object (json_node_alloc (), rest);
    }
  else if (JSON_NODE_HOLDS_NULL (given))
    {
      g_autoptr(JsonObject) empty = json_object_new ();

      arguments = json_node_init_object (json_node_alloc (), empty);
    }
  else if (JSON_NODE_HOLDS_OBJECT (given))
    {
      arguments = json_node_copy (given);
    }
  else
    {
      /* Some models send the arguments as JSON text, as native calls do. */
      if (JSON_NODE_HOLDS_VALUE (given) && json_node_get_value_type (given) == G_TYPE_STRING)
        arguments = json_from_string (json_node_get_string (given), NULL);

      if (arguments == NULL || !JSON_NODE_HOLDS_OBJECT (arguments))
        {
          g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
                       "The \"arguments\" of the ```tool block must be a JSON object, such as "
                       TOOL_BLOCK_EXAMPLE ".");
          return NULL;
        }
    }

  arguments_text = json_to_string (arguments, FALSE);
  id = g_strdup_printf ("text-call-%u", number);

  return sk_llm_tool_call_new (id, json_node_get_string (tool), arguments_text);
}

/**
 * sk_agent_parse_text_tool_calls:
 * @reply: a model's reply, for servers without native tool calls
 * @error: return location for a #GError
 *
 * Finds the fenced blocks whose info string is `tool`, each holding a JSON
 * object `{"tool": NAME, "arguments": {…}}`. Fences of backticks or tildes,
 * indented or not, with CRLF line ends, are accepted, and so is a last block
 * that the reply ends before closing. Blocks with another info string are
 * skipped, whatever they hold.
 *
 * Returns: (transfer full) (element-type SkLlmToolCall): the calls in order,
 *   with ids `text-call-1`, `text-call-2`, …; empty when there is none; or
 *   %NULL with %SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS and a message for the
 *   model when a block cannot be read
 */
GPtrArray *
sk_agent_parse_text_tool_calls (const char  *reply,
                                GError     **error)
{
  g_autoptr(GPtrArray) calls = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_llm_tool_call_free);
  g_autoptr(GString) normalized = g_string_new (reply != NULL ? reply : "");
  g_autoptr(GString) block = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean in_block = FALSE;
  gboolean is_tool = FALSE;
  char fence_char = 0;
  gsize fence_len = 0;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_string_replace (normalized, "\r\n", "\n", 0);
  lines = g_strsplit (normalized->str, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      const char *rest;

      if (!in_block)
        {
          g_autofree char *info = NULL;

          if (!parse_fence (line, &fence_char, &fence_len, &rest))
            continue;

          info = g_strstrip (g_strdup (rest));
          in_block = TRUE;
          is_tool = g_ascii_strcasecmp (info, "tool") == 0;
          if (is_tool && block == NULL)
            block = g_string_new (NULL);
          else if (is_tool)
            g_string_truncate (block, 0);
        }
      else if (is_closing_fence (line, fence_char, fence_len))
        {
          in_block = FALSE;
          if (is_tool)
            {
              SkLlmToolCall *call = parse_tool_block (block->str, calls->len + 1, error);

              if (call == NULL)
                return NULL;
              g_ptr_array_add (calls, call);
            }
        }
      else if (is_tool)
        {
          g_string_append (block, line);
          g_string_append_c (block, '\n');
        }
    }

  /* The reply may end before the last block is closed. */
  if (in_block && is_tool)
    {
      SkLlmToolCall *call = parse_tool_block (block->str, calls->len + 1, error);

      if (call == NULL)
        return NULL;
      g_ptr_array_add (calls, call);
    }

  return g_steal_pointer (&calls);
}
