/* sk-export-python.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-export"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-control-flow.h"
#include "sk-core-resources.h"
#include "sk-export.h"
#include "sk-export-private.h"
#include "sk-json.h"
#include "sk-step-folder.h"

/* A workflow as a folder that runs it with Python's standard library only,
 * without Skele-Code (DESIGN §11): the bundled driver run_workflow.py and
 * the harness that Skele-Code runs its steps with, the steps' scripts and
 * input files, the workflow itself as workflow.json for people to read, and
 * plan.json for the driver: the steps in the order the runner takes them,
 * with their priors, conditions, for-each and sub-workflows by key, as the
 * core resolves them, so that the driver needs none of the lenient reading
 * of process.json. Each sub-workflow is exported the same way into its own
 * folder. Nothing a run left is taken: no pickle, report, log or decision.
 */

#define RESOURCE_FOLDER "/io/github/skelecode/SkeleCode/python/"
#define DRIVER_NAME "run_workflow.py"
#define HARNESS_NAME "skele_harness.py"
#define PLAN_NAME "plan.json"
#define WORKFLOW_NAME "workflow.json"
#define README_NAME "README.md"

/* Sub-workflows lie ever deeper in the folder (validation refuses one that
 * leads back); this only bounds a folder tree that is absurdly deep. */
#define MAX_DEPTH 32

/* The steps without code that a README names; a workflow drawn but not
 * yet written has hundreds. */
#define MAX_LISTED 20

/* The top-level modules of Python's standard library that people import,
 * sorted, to tell apart what the steps need installed. */
static const char * const stdlib_modules[] = {
  "abc", "aifc", "argparse", "array", "ast", "asynchat", "asyncio", "asyncore", "atexit",
  "audioop", "base64", "bdb", "binascii", "bisect", "builtins", "bz2", "cProfile", "calendar",
  "cgi", "cgitb", "chunk", "cmath", "cmd", "code", "codecs", "codeop", "collections",
  "colorsys", "compileall", "concurrent", "configparser", "contextlib", "contextvars", "copy",
  "copyreg", "crypt", "csv", "ctypes", "curses", "dataclasses", "datetime", "dbm", "decimal",
  "difflib", "dis", "distutils", "doctest", "email", "encodings", "enum", "errno",
  "faulthandler", "fcntl", "filecmp", "fileinput", "fnmatch", "fractions", "ftplib",
  "functools", "gc", "getopt", "getpass", "gettext", "glob", "graphlib", "grp", "gzip",
  "hashlib", "heapq", "hmac", "html", "http", "imaplib", "imghdr", "imp", "importlib",
  "inspect", "io", "ipaddress", "itertools", "json", "keyword", "linecache", "locale",
  "logging", "lzma", "mailbox", "mailcap", "marshal", "math", "mimetypes", "mmap",
  "modulefinder", "multiprocessing", "netrc", "nntplib", "numbers", "opcode", "operator",
  "optparse", "os", "pathlib", "pdb", "pickle", "pickletools", "pipes", "pkgutil", "platform",
  "plistlib", "poplib", "posix", "posixpath", "pprint", "profile", "pstats", "pty", "pwd",
  "py_compile", "pyclbr", "pydoc", "pyexpat", "queue", "quopri", "random", "re", "readline",
  "reprlib", "resource", "rlcompleter", "runpy", "sched", "secrets", "select", "selectors",
  "shelve", "shlex", "shutil", "signal", "site", "smtplib", "sndhdr", "socket",
  "socketserver", "sqlite3", "ssl", "stat", "statistics", "string", "stringprep", "struct",
  "subprocess", "sunau", "symtable", "sys", "sysconfig", "syslog", "tabnanny", "tarfile",
  "telnetlib", "tempfile", "termios", "textwrap", "threading", "time", "timeit", "tkinter",
  "token", "tokenize", "tomllib", "trace", "traceback", "tracemalloc", "tty", "turtle", "types",
  "typing", "unicodedata", "unittest", "urllib", "uu", "uuid", "warnings", "wave", "weakref",
  "webbrowser", "wsgiref", "xdrlib", "xml", "xmlrpc", "zipapp", "zipfile", "zipimport", "zlib",
  "zoneinfo",
};

static void
part_free (SkExportPart *part)
{
  g_object_unref (part->project);
  g_free (part->relative);
  g_free (part);
}

void
_sk_export_folder_clear (SkExportFolder *export)
{
  g_clear_pointer (&export->parts, g_ptr_array_unref);
  g_clear_pointer (&export->imports, g_tree_unref);
  g_clear_pointer (&export->left_out, g_ptr_array_unref);
  g_clear_pointer (&export->no_code, g_ptr_array_unref);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static int
compare_names (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  return strcmp (a, b);
}

static gboolean
is_stdlib (const char *module)
{
  return bsearch (&module, stdlib_modules, G_N_ELEMENTS (stdlib_modules),
                  sizeof stdlib_modules[0], compare_strings) != NULL;
}

static gboolean
is_identifier (const char *text)
{
  if (text[0] == '\0' || g_ascii_isdigit (text[0]))
    return FALSE;

  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;

  return TRUE;
}

/* Keeps the top-level module of @dotted, as in "import a.b as c". */
static void
add_import (SkExportFolder *export,
            const char *dotted,
            const char *step)
{
  g_autofree char *name = g_strstrip (g_strdup (dotted));
  char *end = strpbrk (name, ". \t;");

  if (end != NULL)
    *end = '\0';

  if (is_identifier (name) && g_tree_lookup (export->imports, name) == NULL)
    g_tree_insert (export->imports, g_strdup (name), g_strdup (step));
}

/* The modules a script imports, read from its "import" and "from … import"
 * lines: enough to tell a person what to install, not a Python parser. */
static void
scan_imports (SkExportFolder *export,
              const char *text,
              const char *step)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      while (*line == ' ' || *line == '\t')
        line++;

      if (g_str_has_prefix (line, "import "))
        {
          g_auto(GStrv) names = g_strsplit (line + strlen ("import "), ",", -1);

          for (guint j = 0; names[j] != NULL; j++)
            {
              char *comment = strchr (names[j], '#');

              if (comment != NULL)
                *comment = '\0';
              add_import (export, names[j], step);
              if (comment != NULL)
                break;
            }
        }
      else if (g_str_has_prefix (line, "from ") && strstr (line, " import ") != NULL &&
               line[strlen ("from ")] != '.')
        {
          add_import (export, line + strlen ("from "), step);
        }
    }
}

/* Makes @folder and its parents, unless it exists already. */
static gboolean
make_folder (GFile   *folder,
             GError **error)
{
  g_autoptr(GError) local_error = NULL;

  if (g_file_make_directory_with_parents (folder, NULL, &local_error) ||
      g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    return TRUE;

  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

gboolean
_sk_export_write_file (GFile       *file,
            const char  *data,
            gsize        length,
            int          mode,
            GError     **error)
{
  g_autoptr(GFile) parent = g_file_get_parent (file);

  if (!make_folder (parent, error))
    return FALSE;

  return g_file_set_contents_full (g_file_peek_path (file), data, length,
                                   G_FILE_SET_CONTENTS_CONSISTENT, mode, error);
}

static gboolean
write_resource (GFile       *folder,
                const char  *name,
                int          mode,
                GError     **error)
{
  g_autofree char *path = g_strconcat (RESOURCE_FOLDER, name, NULL);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GFile) file = g_file_get_child (folder, name);
  gsize size;
  const char *data;

  bytes = g_resource_lookup_data (sk_core_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE,
                                  error);
  if (bytes == NULL)
    return FALSE;

  data = g_bytes_get_data (bytes, &size);
  return _sk_export_write_file (file, data, size, mode, error);
}

/* Copies a file or a folder without following links: a link among a
 * workflow's files could lead anywhere, and an export is made to be shared.
 * What is not copied is named in @export's list for the README. */
static gboolean
copy_tree (SkExportFolder *export,
           GFile       *source,
           GFile       *target,
           const char  *shown,
           GError     **error)
{
  GFileType type = g_file_query_file_type (source, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL);
  g_autoptr(GFile) parent = NULL;

  if (type == G_FILE_TYPE_REGULAR)
    {
      parent = g_file_get_parent (target);
      if (!make_folder (parent, error))
        return FALSE;
      return g_file_copy (source, target,
                          G_FILE_COPY_NOFOLLOW_SYMLINKS | G_FILE_COPY_OVERWRITE,
                          NULL, NULL, NULL, error);
    }

  if (type == G_FILE_TYPE_DIRECTORY)
    {
      g_autoptr(GFileEnumerator) children = NULL;

      if (!make_folder (target, error))
        return FALSE;

      children = g_file_enumerate_children (source, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                            G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, error);
      if (children == NULL)
        return FALSE;

      for (;;)
        {
          GFileInfo *info = NULL;
          GFile *child = NULL;
          g_autoptr(GFile) child_target = NULL;
          g_autofree char *child_shown = NULL;
          const char *name;

          if (!g_file_enumerator_iterate (children, &info, &child, NULL, error))
            return FALSE;
          if (info == NULL)
            break;

          name = g_file_info_get_name (info);
          if (g_str_equal (name, SK_STEP_BOOKKEEPING_NAME))
            continue;
          child_target = g_file_get_child (target, name);
          child_shown = g_build_filename (shown, name, NULL);
          if (!copy_tree (export, child, child_target, child_shown, error))
            return FALSE;
        }

      return TRUE;
    }

  if (type == G_FILE_TYPE_UNKNOWN)
    /* Translators: %s is a file's path in the workflow. */
    g_ptr_array_add (export->left_out, g_strdup_printf (_("%s: it does not exist."), shown));
  else
    /* Translators: %s is a file's path in the workflow. */
    g_ptr_array_add (export->left_out, g_strdup_printf (_("%s: it is a link or a special "
                                                          "file, which an export does not "
                                                          "follow."), shown));
  return TRUE;
}

/* The steps in the order the runner takes them, with what the driver needs
 * of each, every other step named by its key. */
static char *
build_plan (SkProject  *project,
            GError    **error)
{
  g_autoptr(GPtrArray) order = sk_project_topological_order (project, error);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  if (order == NULL)
    return NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, sk_project_get_name (project));
  json_builder_set_member_name (builder, "steps");
  json_builder_begin_array (builder);

  for (guint i = 0; i < order->len; i++)
    {
      SkNode *node = g_ptr_array_index (order, i);
      g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (project, node);
      g_autoptr(GPtrArray) branches = sk_project_get_branches (project, node);
      const char *prior_id = NULL;
      const char *path = NULL;
      gboolean has_conditions = FALSE;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "key");
      json_builder_add_string_value (builder, sk_node_get_key (node));
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, sk_node_get_name (node));
      json_builder_set_member_name (builder, "run");
      json_builder_add_boolean_value (builder, sk_node_get_run (node));
      json_builder_set_member_name (builder, "priors");
      json_builder_begin_array (builder);
      for (guint j = 0; j < priors->len; j++)
        {
          SkNode *prior = g_ptr_array_index (priors, j);

          json_builder_add_string_value (builder, sk_node_get_key (prior));
          if (sk_node_get_condition (node, sk_node_get_id (prior)) != NULL)
            has_conditions = TRUE;
        }
      json_builder_end_array (builder);

      if (sk_node_get_approval (node))
        {
          json_builder_set_member_name (builder, "approval");
          json_builder_add_boolean_value (builder, TRUE);
        }

      if (has_conditions)
        {
          json_builder_set_member_name (builder, "when");
          json_builder_begin_object (builder);
          for (guint j = 0; j < priors->len; j++)
            {
              SkNode *prior = g_ptr_array_index (priors, j);
              const char *expr = sk_node_get_condition (node, sk_node_get_id (prior));

              if (expr == NULL)
                continue;
              json_builder_set_member_name (builder, sk_node_get_key (prior));
              json_builder_add_string_value (builder, expr);
            }
          json_builder_end_object (builder);
        }

      if (branches->len > 0)
        {
          json_builder_set_member_name (builder, "branches");
          json_builder_begin_array (builder);
          for (guint j = 0; j < branches->len; j++)
            {
              SkNode *next = g_ptr_array_index (branches, j);

              json_builder_begin_object (builder);
              json_builder_set_member_name (builder, "key");
              json_builder_add_string_value (builder, sk_node_get_key (next));
              json_builder_set_member_name (builder, "expr");
              json_builder_add_string_value (builder,
                                             sk_node_get_condition (next, sk_node_get_id (node)));
              json_builder_end_object (builder);
            }
          json_builder_end_array (builder);
        }

      if (sk_node_get_foreach (node, &prior_id, &path))
        {
          SkNode *prior = sk_project_get_node (project, prior_id);

          json_builder_set_member_name (builder, "foreach");
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "prior");
          json_builder_add_string_value (builder,
                                         prior != NULL ? sk_node_get_key (prior) : prior_id);
          json_builder_set_member_name (builder, "path");
          json_builder_add_string_value (builder, path);
          json_builder_end_object (builder);
        }

      if (sk_node_get_workflow (node) != NULL)
        {
          json_builder_set_member_name (builder, "workflow");
          json_builder_add_string_value (builder, sk_node_get_workflow (node));
        }

      json_builder_end_object (builder);
    }

  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return json_to_string (root, TRUE);
}

/* Refuses a workflow that the runner would refuse. */
static gboolean
check_workflow (SkProject   *project,
                const char  *relative,
                GError     **error)
{
  g_autoptr(GPtrArray) problems = sk_project_validate (project);

  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (problem->is_warning)
        continue;

      if (relative[0] == '\0')
        g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                     /* Translators: %s says what is wrong. */
                     _("The workflow has a problem to correct first: %s"), problem->message);
      else
        g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                     /* Translators: the first %s is a folder, the second the problem. */
                     _("The workflow in “%s” has a problem to correct first: %s"), relative,
                     problem->message);
      return FALSE;
    }

  return TRUE;
}

/* Reads @project and, depth first, its sub-workflows into @export. */
static gboolean
gather (SkExportFolder *export,
        SkProject   *project,
        const char  *relative,
        guint        depth,
        GError     **error)
{
  SkExportPart *part;

  if (depth > MAX_DEPTH)
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                   /* Translators: %s is a folder. */
                   _("The sub-workflows in “%s” lie too deep inside each other to export."),
                   relative);
      return FALSE;
    }

  if (!check_workflow (project, relative, error))
    return FALSE;

  part = g_new0 (SkExportPart, 1);
  part->project = g_object_ref (project);
  part->relative = g_strdup (relative);
  g_ptr_array_add (export->parts, part);

  for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      const char *workflow = sk_node_get_workflow (node);
      g_autoptr(GFile) folder = NULL;
      g_autoptr(SkProject) inner = NULL;
      g_autoptr(GError) local_error = NULL;
      g_autofree char *inner_relative = NULL;

      if (workflow == NULL)
        continue;

      folder = g_file_resolve_relative_path (sk_project_get_folder (project), workflow);
      inner_relative = relative[0] != '\0' ? g_build_filename (relative, workflow, NULL)
                                           : g_strdup (workflow);
      inner = sk_project_load (folder, &local_error);
      if (inner == NULL)
        {
          g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                       /* Translators: the first %s is a folder, the second why. */
                       _("The workflow in “%s” could not be read: %s"), inner_relative,
                       local_error->message);
          return FALSE;
        }

      if (!gather (export, inner, inner_relative, depth + 1, error))
        return FALSE;
    }

  return TRUE;
}

/* Copies the script, the other Python modules beside it and the input
 * files of @node into @target, the step's folder in the export. */
static gboolean
write_step (SkExportFolder *export,
            SkProject   *project,
            SkNode      *node,
            GFile       *target,
            const char  *shown,
            GError     **error)
{
  const char *key = sk_node_get_key (node);
  const char * const *inputs = sk_node_get_input_files (node);
  g_autoptr(GFile) source = sk_project_get_node_folder (project, node);
  g_autoptr(GFile) script = sk_project_get_node_script (project, node);
  g_autoptr(GFileEnumerator) children = NULL;
  g_autofree char *script_name = sk_step_folder_relative_path (key, SK_STEP_FILE_SCRIPT);
  g_autofree char *text = NULL;
  gsize length = 0;

  if (sk_node_get_workflow (node) != NULL)
    return TRUE;

  if (g_file_query_file_type (script, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                              NULL) == G_FILE_TYPE_REGULAR &&
      g_file_load_contents (script, NULL, &text, &length, NULL, NULL))
    {
      g_autoptr(GFile) copy = g_file_get_child (target, script_name);

      if (!_sk_export_write_file (copy, text, length, 0644, error))
        return FALSE;
      scan_imports (export, text, sk_node_get_name (node));
    }

  if (text == NULL || g_strstrip (text)[0] == '\0')
    g_ptr_array_add (export->no_code, g_strdup_printf ("“%s” (%s/%s)", sk_node_get_name (node),
                                                       shown, script_name));

  /* Modules beside the script, which it may import. */
  children = g_file_enumerate_children (source, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  while (children != NULL)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;
      g_autoptr(GFile) copy = NULL;
      const char *name;

      if (!g_file_enumerator_iterate (children, &info, &child, NULL, NULL) || info == NULL)
        break;

      name = g_file_info_get_name (info);
      if (!g_str_has_suffix (name, ".py") || g_str_equal (name, script_name) ||
          g_file_query_file_type (child, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                  NULL) != G_FILE_TYPE_REGULAR)
        continue;

      copy = g_file_get_child (target, name);
      if (!g_file_copy (child, copy, G_FILE_COPY_NOFOLLOW_SYMLINKS | G_FILE_COPY_OVERWRITE,
                        NULL, NULL, NULL, error))
        return FALSE;
    }

  for (guint i = 0; inputs[i] != NULL; i++)
    {
      g_autoptr(GFile) from = NULL;
      g_autoptr(GFile) to = NULL;
      g_autofree char *input_shown = g_build_filename (shown, inputs[i], NULL);

      if (g_path_is_absolute (inputs[i]))
        {
          /* Translators: %s is a file's path. */
          g_ptr_array_add (export->left_out, g_strdup_printf (_("%s: it lies outside the "
                                                                "workflow, so the step reads "
                                                                "it where it is."), inputs[i]));
          continue;
        }

      from = g_file_resolve_relative_path (source, inputs[i]);
      to = g_file_resolve_relative_path (target, inputs[i]);
      if (!g_file_has_prefix (from, sk_project_get_folder (project)) ||
          !g_file_has_prefix (to, export->root))
        {
          /* Translators: %s is a file's path in the workflow. */
          g_ptr_array_add (export->left_out, g_strdup_printf (_("%s: it lies outside the "
                                                                "workflow’s folder."),
                                                              input_shown));
          continue;
        }

      if (!copy_tree (export, from, to, input_shown, error))
        return FALSE;
    }

  return TRUE;
}

/* The workflow's file as Skele-Code writes it, without what the last run
 * reported: none of its results is in the export. */
static char *
workflow_without_results (SkProject *project)
{
  g_autoptr(JsonObject) object = sk_project_to_json (project);
  g_autoptr(JsonNode) root = NULL;
  JsonObject *nodes = sk_json_get_object (object, "nodes");
  g_autoptr(GList) members = nodes != NULL ? json_object_get_members (nodes) : NULL;

  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonObject *node = sk_json_get_object (nodes, l->data);
      JsonObject *output = json_object_new ();

      if (node == NULL)
        {
          json_object_unref (output);
          continue;
        }

      json_object_set_string_member (output, "text", "");
      json_object_set_array_member (output, "files", json_array_new ());
      json_object_set_object_member (node, "output", output);
    }

  root = json_node_init_object (json_node_alloc (), object);
  return json_to_string (root, TRUE);
}

static gboolean
write_part (SkExportFolder *export,
            SkExportPart *part,
            GError     **error)
{
  g_autoptr(GFile) folder = part->relative[0] != '\0'
                            ? g_file_resolve_relative_path (export->root, part->relative)
                            : g_object_ref (export->root);
  g_autoptr(GFile) plan_file = g_file_get_child (folder, PLAN_NAME);
  g_autoptr(GFile) workflow_file = g_file_get_child (folder, WORKFLOW_NAME);
  g_autofree char *plan = NULL;
  g_autofree char *data = NULL;

  if ((plan = build_plan (part->project, error)) == NULL ||
      !_sk_export_write_file (plan_file, plan, strlen (plan), 0644, error))
    return FALSE;

  data = workflow_without_results (part->project);
  if (!_sk_export_write_file (workflow_file, data, strlen (data), 0644, error))
    return FALSE;

  for (guint i = 0; i < sk_project_get_n_nodes (part->project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (part->project), i);
      g_autoptr(GFile) target = g_file_get_child (folder, sk_node_get_key (node));
      g_autofree char *shown = part->relative[0] != '\0'
                               ? g_build_filename (part->relative, sk_node_get_key (node), NULL)
                               : g_strdup (sk_node_get_key (node));

      if (!write_step (export, part->project, node, target, shown, error))
        return FALSE;
    }

  return TRUE;
}

static void
append_step_list (GString   *readme,
                  SkProject *project,
                  const char *relative)
{
  g_autoptr(GPtrArray) order = sk_project_topological_order (project, NULL);

  for (guint i = 0; order != NULL && i < order->len; i++)
    {
      SkNode *node = g_ptr_array_index (order, i);
      g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (project, node);
      const char *prior_id = NULL;
      const char *path = NULL;

      g_string_append_printf (readme, "- **%s** (`%s%s%s/`)", sk_node_get_name (node), relative,
                              relative[0] != '\0' ? "/" : "", sk_node_get_key (node));
      if (!sk_node_get_run (node))
        g_string_append (readme, _(", not marked to run"));
      if (sk_node_get_approval (node))
        g_string_append (readme, _(", an approval gate"));
      if (sk_node_get_foreach (node, &prior_id, &path))
        {
          SkNode *prior = sk_project_get_node (project, prior_id);

          /* Translators: the first %s is a path in a step's output, the second a step. */
          g_string_append_printf (readme, _(", runs for each element of `%s` of “%s”"), path,
                                  prior != NULL ? sk_node_get_name (prior) : prior_id);
        }
      if (sk_node_get_workflow (node) != NULL)
        /* Translators: %s is a folder. */
        g_string_append_printf (readme, _(", the sub-workflow in `%s/`"),
                                sk_node_get_workflow (node));
      for (guint j = 0; j < priors->len; j++)
        {
          SkNode *prior = g_ptr_array_index (priors, j);
          const char *expr = sk_node_get_condition (node, sk_node_get_id (prior));

          if (g_strcmp0 (expr, SK_CONTROL_FLOW_DEFAULT) == 0)
            /* Translators: %s is a step. */
            g_string_append_printf (readme, _(", after “%s” when no other condition after it "
                                              "holds"), sk_node_get_name (prior));
          else if (expr != NULL)
            /* Translators: the first %s is a step, the second a Python expression. */
            g_string_append_printf (readme, _(", after “%s” when `%s`"), sk_node_get_name (prior),
                                    expr);
        }
      g_string_append (readme, "\n");
    }
}

static gboolean
collect_modules (gpointer key,
                 gpointer value,
                 gpointer user_data)
{
  GPtrArray **lists = user_data;

  g_ptr_array_add (lists[is_stdlib (key) ? 0 : 1], key);
  return FALSE;
}

static void
append_names (GString   *readme,
              GPtrArray *names)
{
  for (guint i = 0; i < names->len; i++)
    g_string_append_printf (readme, "%s`%s`", i > 0 ? ", " : "",
                            (const char *) g_ptr_array_index (names, i));
}

/* The heading of an export's README: the workflow's name and
 * description. */
void
_sk_export_append_title (SkExportFolder *export,
                         GString        *readme)
{
  SkExportPart *top = g_ptr_array_index (export->parts, 0);
  const char *description = sk_project_get_description (top->project);

  g_string_append_printf (readme, "# %s\n\n", sk_project_get_name (top->project));
  if (description != NULL && description[0] != '\0')
    g_string_append_printf (readme, "%s\n\n", description);
}

/* The section "What it needs" of an export's README: Python and the
 * modules the steps import. */
void
_sk_export_append_needs (SkExportFolder *export,
                         GString        *readme)
{
  g_autoptr(GPtrArray) standard = g_ptr_array_new ();
  g_autoptr(GPtrArray) others = g_ptr_array_new ();
  GPtrArray *lists[] = { standard, others };

  g_tree_foreach (export->imports, collect_modules, lists);

  g_string_append (readme, _("## What it needs\n\n"));
  g_string_append (readme, _("Python 3.9 or later, and nothing else of Skele-Code. "));
  if (others->len > 0)
    {
      g_string_append (readme, _("The steps import these modules, which are not in Python’s "
                                 "standard library: install them first, for example with "
                                 "pip: "));
      append_names (readme, others);
      g_string_append (readme, ".");
    }
  else
    {
      g_string_append (readme, _("Every module the steps import is in Python’s standard "
                                 "library."));
    }
  if (standard->len > 0)
    {
      g_string_append (readme, _(" From the standard library they import "));
      append_names (readme, standard);
      g_string_append (readme, ".");
    }
  g_string_append (readme, "\n\n");

}

/* The section "The steps" of an export's README, in the order they run. */
void
_sk_export_append_steps (SkExportFolder *export,
                         GString        *readme)
{
  g_string_append (readme, _("## The steps\n\nIn the order they run:\n\n"));
  for (guint i = 0; i < export->parts->len; i++)
    {
      SkExportPart *part = g_ptr_array_index (export->parts, i);

      if (i > 0)
        /* Translators: %s is a folder. */
        g_string_append_printf (readme, _("\nIn the sub-workflow `%s/`:\n\n"), part->relative);
      append_step_list (readme, part->project, part->relative);
    }
  g_string_append (readme, "\n");

}

/* The items of "What is left out" that depend on the workflow: steps
 * without code and input files that were not copied. */
void
_sk_export_append_left_out (SkExportFolder *export,
                            GString        *readme)
{
  if (export->no_code->len > 0)
    {
      guint shown = MIN (export->no_code->len, MAX_LISTED);

      g_string_append (readme, _("- These steps have no code yet, so the run fails at them: "));
      for (guint i = 0; i < shown; i++)
        g_string_append_printf (readme, "%s%s", i > 0 ? ", " : "",
                                (const char *) g_ptr_array_index (export->no_code, i));
      if (export->no_code->len > shown)
        /* Translators: %u is a number of steps. */
        g_string_append_printf (readme, _(", and %u more"), export->no_code->len - shown);
      g_string_append (readme, ".\n");
    }
  if (export->left_out->len > 0)
    {
      g_string_append (readme, _("- Input files that were not copied:\n"));
      for (guint i = 0; i < export->left_out->len; i++)
        g_string_append_printf (readme, "  - %s\n",
                                (const char *) g_ptr_array_index (export->left_out, i));
    }
}

static char *
compose_readme (SkExportFolder *export)
{
  g_autoptr(GString) readme = g_string_new (NULL);

  _sk_export_append_title (export, readme);

  g_string_append (readme,
                   _("This folder holds the workflow, exported from Skele-Code, as a program "
                     "that runs it without Skele-Code: `run_workflow.py` runs the steps one after "
                     "the other, each after the steps it needs, through `skele_harness.py`, the "
                     "same small program Skele-Code runs steps with. Each step runs in a Python "
                     "process of its own, receives the outputs of the steps before it, and "
                     "leaves its results in its folder: its report in `KEY/KEY_summary.txt`, "
                     "its output for the next steps in `KEY/KEY.pkl`, its files beside them and "
                     "its printed output in `KEY/.skele/`.\n\n"));

  g_string_append (readme, _("## Running it\n\n"));
  g_string_append (readme, "    python3 run_workflow.py\n\n");
  g_string_append (readme,
                   _("It prints a line for each step: whether it succeeded, failed or was "
                     "skipped, and its report. The control flow is kept: conditions on "
                     "connections choose which steps run, a step that runs for each element of "
                     "a list runs once per element in `KEY/items/N/`, and a sub-workflow runs "
                     "like the workflow itself. The run stops before an approval gate; look at "
                     "what the gate receives, then approve it and run again with "
                     "`python3 run_workflow.py --approve KEY`.\n\n"
                     "Other options: `--only KEY` runs only that step (more than once for "
                     "several), `--from KEY` runs that step and every step after it, "
                     "`--timeout SECONDS` stops a step that takes longer, `--verbose` shows "
                     "every step’s whole report.\n\n"
                     "The exit status is 0 when every step succeeded or was skipped, 1 when a "
                     "step failed or has no code, 3 when the run stopped before an approval "
                     "gate.\n\n"));

  _sk_export_append_needs (export, readme);
  _sk_export_append_steps (export, readme);
  g_string_append (readme,
                   _("`workflow.json` is the workflow as Skele-Code keeps it, for reading. "
                     "`plan.json` is what `run_workflow.py` follows: the steps in order, with "
                     "their connections and control flow. A change to a step’s script counts "
                     "at the next run; a change to the steps, their connections or their control "
                     "flow needs a new export from Skele-Code.\n\n"));

  g_string_append (readme, _("## What is left out\n\n"));
  g_string_append (readme,
                   _("- The results of earlier runs: no step’s outputs, reports or logs are "
                     "included; running the workflow makes them.\n"
                     "- Incremental runs: every run runs every step again, as nothing is "
                     "remembered as up to date.\n"
                     "- The coding agent: a step without code is not written for you, and the "
                     "run fails at it.\n"
                     "- Decisions on approval gates are not kept; give `--approve KEY` at each "
                     "run.\n"
                     "- The sandbox: the steps run as ordinary processes, with your "
                     "permissions, one at a time.\n"));
  _sk_export_append_left_out (export, readme);

  return g_string_free (g_steal_pointer (&readme), FALSE);
}

/* Makes @folder, or checks that it is empty, so that nothing is
 * overwritten. */
static gboolean
prepare_folder (GFile   *folder,
                GError **error)
{
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GError) local_error = NULL;
  GFileInfo *info = NULL;
  GFileType type = g_file_query_file_type (folder, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL);

  if (type == G_FILE_TYPE_UNKNOWN)
    return g_file_make_directory_with_parents (folder, NULL, error);

  if (type != G_FILE_TYPE_DIRECTORY)
    {
      g_set_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_EXISTS,
                   /* Translators: %s is a path. */
                   _("%s is a file, not a folder. Choose an empty or new folder."),
                   g_file_peek_path (folder));
      return FALSE;
    }

  children = g_file_enumerate_children (folder, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, error);
  if (children == NULL)
    return FALSE;

  if (!g_file_enumerator_iterate (children, &info, NULL, NULL, &local_error))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  if (info != NULL)
    {
      g_set_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_EXISTS,
                   /* Translators: %s is a folder. */
                   _("%s holds files already. Choose an empty or new folder, so that nothing "
                     "is overwritten."), g_file_peek_path (folder));
      return FALSE;
    }

  return TRUE;
}

/* Writes into @folder, which must be empty or new, what every export that
 * runs the workflow holds: the driver, the harness, and for the workflow and
 * each of its sub-workflows plan.json, workflow.json and the steps' scripts
 * and input files. @export keeps what was gathered, for the README. */
gboolean
_sk_export_folder_write (SkExportFolder  *export,
                         SkProject       *project,
                         GFile           *folder,
                         GError         **error)
{
  if (sk_project_get_folder (project) == NULL)
    {
      g_set_error_literal (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_NOT_FOUND,
                           _("The workflow has no folder yet, so it has no scripts to export. "
                             "Save it first."));
      return FALSE;
    }

  export->root = folder;
  export->parts = g_ptr_array_new_with_free_func ((GDestroyNotify) part_free);
  export->imports = g_tree_new_full (compare_names, NULL, g_free, g_free);
  export->left_out = g_ptr_array_new_with_free_func (g_free);
  export->no_code = g_ptr_array_new_with_free_func (g_free);

  if (!gather (export, project, "", 0, error) || !prepare_folder (folder, error))
    return FALSE;

  if (!write_resource (folder, DRIVER_NAME, 0755, error) ||
      !write_resource (folder, HARNESS_NAME, 0644, error))
    return FALSE;

  for (guint i = 0; i < export->parts->len; i++)
    if (!write_part (export, g_ptr_array_index (export->parts, i), error))
      return FALSE;

  return TRUE;
}

/**
 * sk_export_python:
 * @project: a workflow with a folder
 * @folder: an empty or new folder
 * @error: return location for a #GError
 *
 * Writes into @folder a program that runs @project with Python's standard
 * library only, without Skele-Code: run_workflow.py, the harness, the steps'
 * scripts and input files, its sub-workflows, workflow.json, plan.json and
 * a README.md that says how to run it and what it needs (DESIGN §11).
 * A folder that holds files is refused with %SK_EXPORT_ERROR_EXISTS, and a
 * workflow the runner would refuse with its problem; then nothing is
 * written.
 *
 * Returns: %TRUE when the folder was written
 */
gboolean
sk_export_python (SkProject  *project,
                  GFile      *folder,
                  GError    **error)
{
  g_auto(SkExportFolder) export = { 0 };
  g_autofree char *readme = NULL;
  g_autoptr(GFile) readme_file = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (G_IS_FILE (folder), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!_sk_export_folder_write (&export, project, folder, error))
    return FALSE;

  readme = compose_readme (&export);
  readme_file = g_file_get_child (folder, README_NAME);
  return _sk_export_write_file (readme_file, readme, strlen (readme), 0644, error);
}
