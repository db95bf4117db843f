/* sk-sandbox.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-sandbox"

#include "config.h"

#include <sys/stat.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sk-agent-tools.h"
#include "sk-sandbox.h"

#define SANDBOX_HOME "/tmp/home"

/* Probing ---------------------------------------------------------------- */

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

/* Commands --------------------------------------------------------------- */

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

/**
 * sk_sandbox_choose:
 * @wanted: the sandbox asked for, or %SK_SANDBOX_AUTO
 * @allow_unsandboxed: whether commands may run without a sandbox when none
 *   is available; a sandbox asked for by name is never replaced by none
 * @kind: (out): the sandbox to use
 * @program: (out) (transfer none) (nullable): the program that makes it,
 *   or %NULL for %SK_SANDBOX_NONE
 * @error: return location for a #GError
 *
 * Works out which sandbox a command runs in.
 *
 * Returns: %TRUE, or %FALSE with %SK_AGENT_TOOLS_ERROR_NO_SANDBOX and a
 *   message in the user's language when none may be used
 */
gboolean
sk_sandbox_choose (SkSandboxKind   wanted,
                   gboolean        allow_unsandboxed,
                   SkSandboxKind  *kind,
                   const char    **program,
                   GError        **error)
{
  const Probe *probe = probe_get ();
  const char *reason = NULL;

  *kind = wanted == SK_SANDBOX_AUTO ? probe->kind : wanted;
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
      if (allow_unsandboxed)
        {
          *kind = SK_SANDBOX_NONE;
          return TRUE;
        }
      reason = wanted == SK_SANDBOX_NONE
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

/**
 * sk_sandbox_command_arguments:
 * @kind: the sandbox, as sk_sandbox_choose() gave it
 * @program: the program that makes it, as sk_sandbox_choose() gave it
 * @workflow_dir: the workflow's folder, visible read-only
 * @node_dir: the step's folder, writable, where the command runs
 * @read_only_paths: (element-type filename): more paths to make visible
 *   read-only
 * @allow_network: whether the command may use the network
 * @command_line: one shell command line
 * @env: (out) (transfer full): the environment to run the result with
 *
 * Returns: (transfer full) (element-type filename): the %NULL-terminated
 *   arguments that run @command_line with `/bin/sh -c` in the sandbox
 */
GPtrArray *
sk_sandbox_command_arguments (SkSandboxKind   kind,
                              const char     *program,
                              const char     *workflow_dir,
                              const char     *node_dir,
                              GPtrArray      *read_only_paths,
                              gboolean        allow_network,
                              const char     *command_line,
                              char         ***env)
{
  GPtrArray *argv;

  if (kind == SK_SANDBOX_BWRAP)
    {
      argv = bwrap_base_arguments (program, allow_network);
      for (guint i = 0; i < read_only_paths->len; i++)
        {
          const char *path = g_ptr_array_index (read_only_paths, i);

          add_args (argv, "--ro-bind-try", path, path, NULL);
        }
      /* The step's folder is mounted over the read-only workflow, at the
       * same paths as outside, so that paths in messages make sense.
       */
      add_args (argv,
                "--ro-bind", workflow_dir, workflow_dir,
                "--bind", node_dir, node_dir,
                "--chdir", node_dir,
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
      if (!allow_network)
        add_args (argv, "--no-network", NULL);
      for (guint i = 0; inner_env[i] != NULL; i++)
        g_ptr_array_add (argv, g_strconcat ("--env=", inner_env[i], NULL));
      g_ptr_array_add (argv, g_strconcat ("--sandbox-expose-path-ro=", workflow_dir, NULL));
      g_ptr_array_add (argv, g_strconcat ("--sandbox-expose-path=", node_dir, NULL));
      for (guint i = 0; i < read_only_paths->len; i++)
        g_ptr_array_add (argv, g_strconcat ("--sandbox-expose-path-ro-try=",
                                            (const char *) g_ptr_array_index (read_only_paths, i),
                                            NULL));
      g_ptr_array_add (argv, g_strconcat ("--directory=", node_dir, NULL));
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
