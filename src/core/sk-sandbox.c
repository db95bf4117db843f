/* sk-sandbox.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-sandbox"

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sk-agent-tools.h"
#include "sk-json.h"
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
  /* No --new-session: SkProcess already starts every program in a session
   * of its own, and the sandboxed program has to stay in the process
   * group that the runner signals.
   */
  add_args (argv,
            "--die-with-parent",
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

static gboolean probe_done;

static const Probe *
probe_get (void)
{
  static GOnce once = G_ONCE_INIT;
  const Probe *probe = g_once (&once, probe_run, NULL);

  g_atomic_int_set (&probe_done, TRUE);
  return probe;
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
command_environment (const char         *home,
                     const char * const *extra_env)
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

  for (guint i = 0; extra_env != NULL && extra_env[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (extra_env[i], "=", 2);

      if (pair[0] != NULL && pair[1] != NULL)
        env = g_environ_setenv (env, pair[0], pair[1], TRUE);
    }

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
 * sk_sandbox_wrap:
 * @kind: the sandbox, as sk_sandbox_choose() gave it
 * @program: the program that makes it, as sk_sandbox_choose() gave it
 * @mounts: what the program sees
 * @extra_env: (nullable) (array zero-terminated=1): `NAME=VALUE` pairs to
 *   set in the program's environment
 * @argv: (array zero-terminated=1): the program to run and its arguments
 * @env: (out) (transfer full): the environment to run the result with
 *
 * The program's environment holds nothing of this program's own except
 * where to find programs and the language, so that no secret (an API key,
 * a session bus address) reaches it.
 *
 * Returns: (transfer full) (element-type filename): the %NULL-terminated
 *   arguments that run @argv in the sandbox
 */
GPtrArray *
sk_sandbox_wrap (SkSandboxKind           kind,
                 const char             *program,
                 const SkSandboxMounts  *mounts,
                 const char * const     *extra_env,
                 const char * const     *argv,
                 char                 ***env)
{
  GPtrArray *result;

  g_return_val_if_fail (mounts != NULL, NULL);
  g_return_val_if_fail (mounts->workflow_dir != NULL, NULL);
  g_return_val_if_fail (argv != NULL && argv[0] != NULL, NULL);

  if (kind == SK_SANDBOX_BWRAP)
    {
      result = bwrap_base_arguments (program, mounts->network);
      /* Root may map its own user into a namespace only with this
       * capability, which the fork server's children need to narrow the
       * sandbox; they drop every capability before a step runs. */
      if (mounts->nested_namespaces && geteuid () == 0)
        add_args (result, "--cap-add", "CAP_SETFCAP", NULL);
      for (guint i = 0; mounts->read_only != NULL && i < mounts->read_only->len; i++)
        {
          const char *path = g_ptr_array_index (mounts->read_only, i);

          add_args (result, "--ro-bind-try", path, path, NULL);
        }
      /* The writable folders are mounted over the read-only workflow, at
       * the same paths as outside, so that paths in messages make sense.
       */
      add_args (result, "--ro-bind", mounts->workflow_dir, mounts->workflow_dir, NULL);
      for (guint i = 0; mounts->writable != NULL && i < mounts->writable->len; i++)
        {
          const char *path = g_ptr_array_index (mounts->writable, i);

          add_args (result, "--bind", path, path, NULL);
        }
      add_args (result, "--chdir", mounts->cwd, NULL);
      *env = command_environment (SANDBOX_HOME, extra_env);
    }
  else if (kind == SK_SANDBOX_FLATPAK)
    {
      g_auto(GStrv) inner_env = command_environment ("/tmp", extra_env);

      /* The portal turns these into `flatpak run --filesystem=` options,
       * which mount parents before children, so the writable folders stay
       * writable inside the read-only workflow. --watch-bus ends the
       * program when flatpak-spawn is killed, as it cannot pass SIGKILL on.
       */
      result = g_ptr_array_new_with_free_func (g_free);
      add_args (result, program, "--sandbox", "--watch-bus", "--clear-env", NULL);
      if (!mounts->network)
        add_args (result, "--no-network", NULL);
      for (guint i = 0; inner_env[i] != NULL; i++)
        g_ptr_array_add (result, g_strconcat ("--env=", inner_env[i], NULL));
      g_ptr_array_add (result, g_strconcat ("--sandbox-expose-path-ro=", mounts->workflow_dir, NULL));
      for (guint i = 0; mounts->writable != NULL && i < mounts->writable->len; i++)
        g_ptr_array_add (result, g_strconcat ("--sandbox-expose-path=",
                                              (const char *) g_ptr_array_index (mounts->writable, i),
                                              NULL));
      for (guint i = 0; mounts->read_only != NULL && i < mounts->read_only->len; i++)
        g_ptr_array_add (result, g_strconcat ("--sandbox-expose-path-ro-try=",
                                              (const char *) g_ptr_array_index (mounts->read_only, i),
                                              NULL));
      g_ptr_array_add (result, g_strconcat ("--directory=", mounts->cwd, NULL));
      if (mounts->forward_fd > 2)
        g_ptr_array_add (result, g_strdup_printf ("--forward-fd=%d", mounts->forward_fd));
      *env = g_get_environ ();
    }
  else
    {
      const char *home = g_get_home_dir ();

      result = g_ptr_array_new_with_free_func (g_free);
      *env = command_environment (home != NULL ? home : "/", extra_env);
    }

  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (result, g_strdup (argv[i]));
  g_ptr_array_add (result, NULL);

  return result;
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
  g_autoptr(GPtrArray) writable = g_ptr_array_new ();
  const char *argv[] = { "/bin/sh", "-c", command_line, NULL };
  SkSandboxMounts mounts = {
    .workflow_dir = workflow_dir,
    .writable = writable,
    .read_only = read_only_paths,
    .cwd = node_dir,
    .network = allow_network,
  };

  g_ptr_array_add (writable, (gpointer) node_dir);

  return sk_sandbox_wrap (kind, program, &mounts, NULL, argv, env);
}

/* Policies --------------------------------------------------------------- */

static const char * const policy_names[] = { "required", "when-available", "off" };

/**
 * sk_sandbox_policy_from_string:
 * @text: `required`, `when-available` or `off`
 * @policy: (out): the policy @text names
 *
 * Returns: %TRUE when @text names a policy
 */
gboolean
sk_sandbox_policy_from_string (const char      *text,
                               SkSandboxPolicy *policy)
{
  g_return_val_if_fail (policy != NULL, FALSE);

  for (guint i = 0; text != NULL && i < G_N_ELEMENTS (policy_names); i++)
    if (g_str_equal (text, policy_names[i]))
      {
        *policy = (SkSandboxPolicy) i;
        return TRUE;
      }

  return FALSE;
}

const char *
sk_sandbox_policy_to_string (SkSandboxPolicy policy)
{
  g_return_val_if_fail (policy <= SK_SANDBOX_POLICY_OFF, NULL);

  return policy_names[policy];
}

/* The interpreter -------------------------------------------------------- */

/* Asks the interpreter where it keeps itself and its libraries, as it
 * will see them in the sandbox: without the PYTHON* variables, which the
 * sandbox does not pass on.
 */
static const char python_probe_script[] =
  "import json, os, site, sys, sysconfig\n"
  "paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]\n"
  "paths += [p for p in sys.path if p]\n"
  "if sysconfig.get_config_var('Py_ENABLE_SHARED'):\n"
  "    libdir = sysconfig.get_config_var('LIBDIR') or ''\n"
  "    library = sysconfig.get_config_var('LDLIBRARY') or ''\n"
  "    if libdir and library:\n"
  "        paths.append(os.path.join(libdir, library))\n"
  "user_base = None\n"
  "if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):\n"
  "    user_base = site.getuserbase()\n"
  "    paths.append(site.getusersitepackages())\n"
  "print(json.dumps({'executable': sys.executable, 'paths': paths, 'user_base': user_base}))\n";

typedef struct
{
  char      *executable;
  GPtrArray *read_only;
  char      *user_base;
} PythonPaths;

static void
python_paths_free (PythonPaths *paths)
{
  g_free (paths->executable);
  g_ptr_array_unref (paths->read_only);
  g_free (paths->user_base);
  g_free (paths);
}

static gboolean
path_is_under (const char *path,
               const char *folder)
{
  gsize length = strlen (folder);

  if (g_str_equal (folder, "/"))
    return TRUE;

  return strncmp (path, folder, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

/* The system's own files are visible in every sandbox already. */
static gboolean
path_is_visible (const char *path)
{
  return path_is_under (path, "/usr") || path_is_under (path, "/app");
}

/* Binding the home folder, or a folder around it, would show everything
 * that the sandbox is there to hide; such a folder is never bound whole,
 * only the interpreter's own files and folders in it.
 */
static gboolean
path_is_too_wide (const char *path)
{
  const char *home = g_get_home_dir ();

  if (g_str_equal (path, "/"))
    return TRUE;

  return home != NULL && path_is_under (home, path);
}

static void
python_paths_add (GPtrArray  *read_only,
                  const char *path)
{
  g_autofree char *canonical = NULL;
  g_autofree char *real = NULL;
  const char *candidates[2];

  if (path == NULL || !g_path_is_absolute (path))
    return;

  canonical = g_canonicalize_filename (path, NULL);
  real = realpath (canonical, NULL);
  if (real == NULL)
    return;

  candidates[0] = canonical;
  candidates[1] = real;
  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      const char *candidate = candidates[i];
      gboolean covered = FALSE;

      if (path_is_visible (candidate) || path_is_too_wide (candidate))
        continue;

      for (guint j = 0; j < read_only->len && !covered; j++)
        covered = path_is_under (candidate, g_ptr_array_index (read_only, j));
      if (!covered)
        g_ptr_array_add (read_only, g_strdup (candidate));
    }
}

/* The interpreter's answer is kept in the user's cache folder from one
 * program to the next, so that `skele run` does not start Python only to
 * ask it; under a name made of everything the answer depends on: the
 * interpreter's path and file, the virtual environment's settings beside
 * it and the user's own library folder. A day later it is asked again.
 */
#define PYTHON_ANSWER_MAX_AGE (24 * G_TIME_SPAN_HOUR)

static void
append_stat (GString    *key,
             const char *path)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    g_string_append_printf (key, "\n%s -", path);
  else
    g_string_append_printf (key, "\n%s %" G_GINT64_FORMAT " %" G_GUINT64_FORMAT " %ld.%09ld %ld.%09ld",
                            path, (gint64) st.st_size, (guint64) st.st_ino,
                            (long) st.st_mtim.tv_sec, (long) st.st_mtim.tv_nsec,
                            (long) st.st_ctim.tv_sec, (long) st.st_ctim.tv_nsec);
}

static char *
python_answer_path (const char *python)
{
  g_autofree char *real = realpath (python, NULL);
  g_autofree char *bin = g_path_get_dirname (python);
  g_autofree char *environment = g_path_get_dirname (bin);
  g_autofree char *settings = g_build_filename (environment, "pyvenv.cfg", NULL);
  g_autofree char *user_lib = g_build_filename (g_get_home_dir (), ".local", "lib", NULL);
  g_autofree char *digest = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GString) key = g_string_new (python);

  if (real == NULL)
    return NULL;

  append_stat (key, real);
  append_stat (key, settings);
  append_stat (key, user_lib);
  digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key->str, key->len);
  name = g_strdup_printf ("%.32s.json", digest);

  return g_build_filename (g_get_user_cache_dir (), PACKAGE_NAME, "python", name, NULL);
}

static char *
python_answer_read (const char *path)
{
  g_autofree char *contents = NULL;
  GStatBuf st;

  if (path == NULL || g_lstat (path, &st) != 0 || !S_ISREG (st.st_mode) ||
      g_get_real_time () - (gint64) st.st_mtime * G_USEC_PER_SEC > PYTHON_ANSWER_MAX_AGE ||
      !g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;

  return g_steal_pointer (&contents);
}

static void
python_answer_write (const char *path,
                     const char *answer)
{
  g_autofree char *folder = NULL;

  if (path == NULL)
    return;

  folder = g_path_get_dirname (path);
  if (g_mkdir_with_parents (folder, 0700) == 0)
    g_file_set_contents_full (path, answer, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL);
}

static PythonPaths *
python_paths_probe (const char  *python,
                    GError     **error)
{
  const char *argv[] = { python, "-E", "-c", python_probe_script, NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *answer_path = python_answer_path (python);
  g_autofree char *output = python_answer_read (answer_path);
  g_autofree char *errors = NULL;
  gboolean fresh = output == NULL;
  PythonPaths *paths;
  JsonObject *object;
  JsonArray *array;
  int status = 0;

  /* A kept answer that cannot be read is asked again. */
  if (output != NULL &&
      (!json_parser_load_from_data (parser, output, -1, NULL) ||
       !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser))))
    {
      g_clear_pointer (&output, g_free);
      fresh = TRUE;
    }

  if (fresh &&
      !g_spawn_sync ("/", (char **) argv, NULL, G_SPAWN_CLOEXEC_PIPES,
                     NULL, NULL, &output, &errors, &status, error))
    return NULL;

  if (fresh &&
      (!g_spawn_check_wait_status (status, NULL) ||
       !json_parser_load_from_data (parser, output, -1, NULL) ||
       !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser))))
    {
      g_auto(GStrv) lines = g_strsplit (errors != NULL ? g_strstrip (errors) : "", "\n", 2);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   /* Translators: %s is the interpreter, then what it said */
                   _("The Python interpreter “%s” did not say where its libraries are, so it "
                     "cannot be made visible in the sandbox (%s)."),
                   python, lines[0] != NULL && lines[0][0] != '\0' ? lines[0] : _("no answer"));
      return NULL;
    }

  if (fresh)
    python_answer_write (answer_path, output);

  object = json_node_get_object (json_parser_get_root (parser));
  paths = g_new0 (PythonPaths, 1);
  paths->read_only = g_ptr_array_new_with_free_func (g_free);
  paths->executable = g_strdup (sk_json_get_string (object, "executable"));
  paths->user_base = g_strdup (sk_json_get_string (object, "user_base"));
  if (paths->executable == NULL || !g_path_is_absolute (paths->executable))
    {
      g_free (paths->executable);
      paths->executable = g_strdup (python);
    }

  /* The executable first, so that its own file is bound even where the
   * folders around it are too wide to be.
   */
  python_paths_add (paths->read_only, paths->executable);
  array = sk_json_get_array (object, "paths");
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        python_paths_add (paths->read_only, json_node_get_string (element));
    }

  return paths;
}

G_LOCK_DEFINE_STATIC (python_cache);
static GHashTable *python_cache;

/* Interpreters are asked once per program, and again when they change. */
/* The cache's key for @python: its path, where it leads, and when that
 * changed. */
static char *
python_cache_key (const char  *python,
                  GError     **error)
{
  g_autofree char *real = realpath (python, NULL);
  GStatBuf st;

  if (real == NULL || g_stat (real, &st) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("The Python interpreter “%s” cannot be found: %s"),
                   python, g_strerror (saved_errno));
      return NULL;
    }

  return g_strdup_printf ("%s\n%s\n%" G_GINT64_FORMAT, python, real, (gint64) st.st_mtime);
}

static PythonPaths *
python_paths_get (const char  *python,
                  GError     **error)
{
  g_autofree char *key = python_cache_key (python, error);
  PythonPaths *paths;

  if (key == NULL)
    return NULL;

  G_LOCK (python_cache);
  if (python_cache == NULL)
    python_cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) python_paths_free);
  paths = g_hash_table_lookup (python_cache, key);
  G_UNLOCK (python_cache);

  if (paths != NULL)
    return paths;

  paths = python_paths_probe (python, error);
  if (paths == NULL)
    return NULL;

  G_LOCK (python_cache);
  g_hash_table_replace (python_cache, g_steal_pointer (&key), paths);
  G_UNLOCK (python_cache);

  return paths;
}

/* The steps' sandbox ----------------------------------------------------- */

struct _SkSandbox
{
  gatomicrefcount  ref_count;
  SkSandboxKind    kind;
  const char      *program;
  char            *python;
  PythonPaths     *python_paths;
};

G_DEFINE_BOXED_TYPE (SkSandbox, sk_sandbox, sk_sandbox_ref, sk_sandbox_unref)

/**
 * sk_sandbox_new_for_steps:
 * @policy: whether the steps must, may or must not be confined
 * @python: the full path of the interpreter that runs the steps
 * @warning: (out) (optional) (transfer full) (nullable): when the steps
 *   run without a sandbox although @policy wanted one, why, in words for
 *   the user
 * @error: return location for a #GError
 *
 * Works out the sandbox a run's steps start in, and what of @python must
 * be visible inside it. The interpreter is asked once, and again when it
 * changes.
 *
 * Returns: (transfer full) (nullable): the sandbox, or %NULL with
 *   %G_IO_ERROR_NOT_SUPPORTED when @policy requires a sandbox and none can
 *   be made here, or another error when @python cannot be asked
 */
SkSandbox *
sk_sandbox_new_for_steps (SkSandboxPolicy   policy,
                          const char       *python,
                          char            **warning,
                          GError          **error)
{
  g_autoptr(SkSandbox) self = NULL;
  const Probe *probe;

  g_return_val_if_fail (python != NULL, NULL);

  if (warning != NULL)
    *warning = NULL;

  self = g_new0 (SkSandbox, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->kind = SK_SANDBOX_NONE;
  self->python = g_strdup (python);

  if (policy == SK_SANDBOX_POLICY_OFF)
    return g_steal_pointer (&self);

  probe = probe_get ();
  if (probe->kind == SK_SANDBOX_NONE)
    {
      if (policy == SK_SANDBOX_POLICY_REQUIRED)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       /* Translators: %s says why no sandbox can be made */
                       _("The steps were not run, because they cannot be confined safely "
                         "here: %s Install bubblewrap (the “bubblewrap” package), or, if you "
                         "trust their code, set “Sandbox for Steps” to “When Available” in "
                         "Preferences (“skele run --sandbox when-available” on the command "
                         "line)."),
                       probe->reason != NULL ? probe->reason : "");
          return NULL;
        }

      if (warning != NULL)
        *warning = g_strdup_printf (_("Steps run without a sandbox, so their code can read "
                                      "and change all of your files. %s"),
                                    probe->reason != NULL ? probe->reason : "");
      return g_steal_pointer (&self);
    }

  self->python_paths = python_paths_get (python, error);
  if (self->python_paths == NULL)
    return NULL;

  self->kind = probe->kind;
  self->program = probe->kind == SK_SANDBOX_BWRAP ? probe->bwrap : probe->flatpak_spawn;

  return g_steal_pointer (&self);
}

SkSandbox *
sk_sandbox_ref (SkSandbox *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
sk_sandbox_unref (SkSandbox *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  /* The interpreter's paths belong to the cache. */
  g_free (self->python);
  g_free (self);
}

/**
 * sk_sandbox_is_confined:
 * @self: a sandbox
 *
 * Returns: whether steps started with it run in a sandbox
 */
gboolean
sk_sandbox_is_confined (SkSandbox *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->kind != SK_SANDBOX_NONE;
}

/**
 * sk_sandbox_get_kind:
 *
 * Returns: what confines the steps
 */
SkSandboxKind
sk_sandbox_get_kind (SkSandbox *self)
{
  g_return_val_if_fail (self != NULL, SK_SANDBOX_NONE);

  return self->kind;
}

/**
 * sk_sandbox_get_python:
 * @self: a sandbox
 *
 * A launcher such as pyenv's shims does not work in the sandbox, which
 * hides the files it reads; the interpreter it launches is run directly.
 *
 * Returns: the path of the interpreter to start in the sandbox
 */
const char *
sk_sandbox_get_python (SkSandbox *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->python_paths != NULL ? self->python_paths->executable : self->python;
}

/**
 * sk_sandbox_add_python_paths:
 * @self: a sandbox
 * @read_only: (element-type filename): where to add them
 *
 * Adds the files and folders of the interpreter, its libraries and its
 * packages that the sandbox does not show already, never the home folder
 * or a folder around it.
 */
void
sk_sandbox_add_python_paths (SkSandbox *self,
                             GPtrArray *read_only)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (read_only != NULL);

  for (guint i = 0; self->python_paths != NULL && i < self->python_paths->read_only->len; i++)
    g_ptr_array_add (read_only, g_strdup (g_ptr_array_index (self->python_paths->read_only, i)));
}

/**
 * sk_sandbox_wrap_python:
 * @self: a sandbox
 * @mounts: what the program sees; the interpreter's files are added
 * @argv: (array zero-terminated=1): the interpreter, as
 *   sk_sandbox_get_python() gave it, and its arguments
 * @env: (out) (transfer full) (nullable): the environment to run the
 *   result with, or %NULL to keep this program's
 *
 * Returns: (transfer full) (element-type filename): the %NULL-terminated
 *   arguments that run @argv in the sandbox, or @argv itself without one
 */
GPtrArray *
sk_sandbox_wrap_python (SkSandbox              *self,
                        const SkSandboxMounts  *mounts,
                        const char * const     *argv,
                        char                 ***env)
{
  g_autoptr(GPtrArray) read_only = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) extra = g_ptr_array_new_with_free_func (g_free);
  SkSandboxMounts all = *mounts;
  GPtrArray *result;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (mounts != NULL, NULL);

  if (self->kind == SK_SANDBOX_NONE)
    {
      result = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; argv[i] != NULL; i++)
        g_ptr_array_add (result, g_strdup (argv[i]));
      g_ptr_array_add (result, NULL);
      *env = NULL;
      return result;
    }

  sk_sandbox_add_python_paths (self, read_only);
  for (guint i = 0; mounts->read_only != NULL && i < mounts->read_only->len; i++)
    g_ptr_array_add (read_only, g_strdup (g_ptr_array_index (mounts->read_only, i)));
  all.read_only = read_only;

  /* Packages installed with `pip install --user` are found through the
   * real user base, as the home folder in the sandbox is another.
   */
  if (self->python_paths->user_base != NULL)
    g_ptr_array_add (extra, g_strconcat ("PYTHONUSERBASE=", self->python_paths->user_base, NULL));
  g_ptr_array_add (extra, NULL);

  return sk_sandbox_wrap (self->kind, self->program, &all,
                          (const char * const *) extra->pdata, argv, env);
}

/* Preparing ------------------------------------------------------------- */

/**
 * sk_sandbox_is_prepared:
 * @python: the full path of an interpreter
 *
 * Whether sk_sandbox_new_for_steps() can answer for @python at once: it
 * runs bubblewrap and the interpreter the first time, which can take a
 * second where the interpreter is a launcher such as pyenv's.
 *
 * Returns: %TRUE when nothing is left to ask
 */
gboolean
sk_sandbox_is_prepared (const char *python)
{
  g_autofree char *key = NULL;
  gboolean known;

  g_return_val_if_fail (python != NULL, FALSE);

  if (!g_atomic_int_get (&probe_done))
    return FALSE;

  key = python_cache_key (python, NULL);
  if (key == NULL)
    return TRUE;

  G_LOCK (python_cache);
  known = python_cache != NULL && g_hash_table_contains (python_cache, key);
  G_UNLOCK (python_cache);

  return known;
}

static void
probe_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  probe_get ();
  g_task_return_boolean (task, TRUE);
}

/**
 * sk_sandbox_probe_in_background:
 *
 * Starts what sk_sandbox_probe() finds out in a thread, unless it is known
 * already, so that a run that needs the answer later need not wait for it
 * then.
 */
void
sk_sandbox_probe_in_background (void)
{
  g_autoptr(GTask) task = NULL;

  if (g_atomic_int_get (&probe_done))
    return;

  task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_source_tag (task, sk_sandbox_probe_in_background);
  g_task_run_in_thread (task, probe_thread);
}

static void
prepare_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  const Probe *probe = probe_get ();

  if (probe->kind != SK_SANDBOX_NONE)
    python_paths_get (task_data, NULL);
  g_task_return_boolean (task, TRUE);
}

/**
 * sk_sandbox_prepare_async:
 * @python: the full path of an interpreter
 * @callback: called on the thread-default main context once done
 * @user_data: data for @callback
 *
 * Finds the sandbox and asks @python what it needs, in a thread, so that
 * sk_sandbox_new_for_steps() answers at once afterwards.
 */
void
sk_sandbox_prepare_async (const char          *python,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, callback, user_data);

  g_return_if_fail (python != NULL);

  g_task_set_source_tag (task, sk_sandbox_prepare_async);
  g_task_set_task_data (task, g_strdup (python), g_free);
  g_task_run_in_thread (task, prepare_thread);
}

gboolean
sk_sandbox_prepare_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
