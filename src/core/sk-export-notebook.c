/* sk-export-notebook.c
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
#include "sk-json.h"
#include "sk-util.h"

/* A workflow as a Jupyter notebook (DESIGN §11). It is made from the
 * standalone Python export, so that both run the steps the same way: the
 * export is written into a temporary folder, and the notebook carries all
 * of it. Its first code cell holds the settings (the working folder and
 * APPROVE); a hidden setup cell writes the harness, run_workflow.py,
 * skele_notebook.py, the plans and the input files into the working
 * folder, next to the notebook, so that the notebook works wherever it is
 * put; then each step has a Markdown cell that describes it and a code
 * cell that holds its script and runs it through skele_notebook.py. */

#define RESOURCE_FOLDER "/io/github/skelecode/SkeleCode/python/"
#define GLUE_NAME "skele_notebook.py"
#define PLAN_NAME "plan.json"

typedef struct
{
  GFile      *root;       /* The temporary folder of the Python export. */
  GHashTable *scripts;    /* Relative paths of the steps' scripts. */
  GHashTable *skipped;    /* Relative paths the notebook does not carry. */
  int         next_id;
} Notebook;

static void
notebook_clear (Notebook *notebook)
{
  g_clear_object (&notebook->root);
  g_clear_pointer (&notebook->scripts, g_hash_table_unref);
  g_clear_pointer (&notebook->skipped, g_hash_table_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Notebook, notebook_clear)

static char *
join_path (const char *folder,
           const char *name)
{
  return folder[0] != '\0' ? g_strconcat (folder, "/", name, NULL) : g_strdup (name);
}

static void
remove_tree (GFile *file)
{
  g_autoptr(GFileEnumerator) children = NULL;

  children = g_file_enumerate_children (file, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  while (children != NULL)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;

      if (!g_file_enumerator_iterate (children, &info, &child, NULL, NULL) || info == NULL)
        break;
      remove_tree (child);
    }

  g_file_delete (file, NULL, NULL);
}

/* Whether @data can stand in a raw string between @quotes: Python would
 * turn a carriage return into a line feed, and a quote or backslash at the
 * end would run into the closing quotes. */
static gboolean
fits_raw_string (const char *data,
                 gsize       length,
                 const char *quotes)
{
  if (length > 0 && (data[length - 1] == quotes[0] || data[length - 1] == '\\'))
    return FALSE;

  return g_utf8_validate_len (data, length, NULL) && memchr (data, '\r', length) == NULL &&
         g_strstr_len (data, length, quotes) == NULL;
}

/* Appends @data as a Python literal: a raw string that begins with a line
 * feed which is not part of the text, so that a script reads in the cell
 * as in its file, or, for what cannot be one, base64-encoded bytes. */
static void
append_literal (GString    *code,
                const char *data,
                gsize       length)
{
  static const char * const quotes[] = { "'''", "\"\"\"" };
  g_autofree char *encoded = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (quotes); i++)
    if (fits_raw_string (data, length, quotes[i]))
      {
        g_string_append_printf (code, "r%s\n", quotes[i]);
        g_string_append_len (code, data, length);
        g_string_append (code, quotes[i]);
        return;
      }

  encoded = g_base64_encode ((const guchar *) data, length);
  g_string_append_printf (code, "base64.b64decode(\"%s\")", encoded);
}

/* Appends @text as a Python string literal on one line. */
static void
append_string (GString    *code,
               const char *text)
{
  g_string_append_c (code, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (code, '\\');
      if (*p == '\n')
        g_string_append (code, "\\n");
      else
        g_string_append_c (code, *p);
    }
  g_string_append_c (code, '"');
}

/* Text for a comment or a heading: on one line. */
static char *
one_line (const char *text)
{
  return g_strdelimit (g_strdup (text), "\r\n", ' ');
}

static gboolean
load_file (GFile       *file,
           char       **data,
           gsize       *length,
           GError     **error)
{
  return g_file_load_contents (file, NULL, data, length, NULL, error);
}

/* Notes, from the plans of the export, which files are scripts and which
 * are not carried, for the part of the workflow in @relative. */
static gboolean
read_plans (Notebook    *notebook,
            const char  *relative,
            GError     **error)
{
  g_autofree char *plan_path = join_path (relative, PLAN_NAME);
  g_autoptr(GFile) plan_file = g_file_resolve_relative_path (notebook->root, plan_path);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *data = NULL;
  gsize length = 0;
  JsonNode *root;
  JsonObject *plan;
  JsonArray *steps;

  if (!load_file (plan_file, &data, &length, error) ||
      !json_parser_load_from_data (parser, data, length, error))
    return FALSE;

  root = json_parser_get_root (parser);
  plan = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  steps = plan != NULL ? sk_json_get_array (plan, "steps") : NULL;
  g_hash_table_add (notebook->skipped, join_path (relative, "workflow.json"));
  g_hash_table_add (notebook->skipped, join_path (relative, "README.md"));

  for (guint i = 0; steps != NULL && i < json_array_get_length (steps); i++)
    {
      JsonNode *element = json_array_get_element (steps, i);
      JsonObject *step = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      const char *key = step != NULL ? sk_json_get_string (step, "key") : NULL;
      const char *workflow = step != NULL ? sk_json_get_string (step, "workflow") : NULL;

      if (key == NULL)
        continue;

      if (workflow != NULL)
        {
          g_autofree char *inner = join_path (relative, workflow);

          if (!read_plans (notebook, inner, error))
            return FALSE;
        }
      else
        {
          g_autofree char *folder = join_path (relative, key);
          g_autofree char *name = g_strconcat (key, ".py", NULL);

          g_hash_table_add (notebook->scripts, join_path (folder, name));
        }
    }

  return TRUE;
}

/* Adds the files below @folder, by their paths relative to the export,
 * sorted, to @files. */
static gboolean
list_files (GFile       *folder,
            const char  *relative,
            GPtrArray   *files,
            GError     **error)
{
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  children = g_file_enumerate_children (folder, G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                        G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, error);
  if (children == NULL)
    return FALSE;

  for (;;)
    {
      GFileInfo *info = NULL;

      if (!g_file_enumerator_iterate (children, &info, NULL, NULL, error))
        return FALSE;
      if (info == NULL)
        break;
      g_ptr_array_add (names, g_strdup (g_file_info_get_name (info)));
    }

  g_ptr_array_sort (names, sk_util_compare_strings);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autoptr(GFile) child = g_file_get_child (folder, name);
      g_autofree char *child_relative = join_path (relative, name);
      GFileType type = g_file_query_file_type (child, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL);

      if (type == G_FILE_TYPE_DIRECTORY)
        {
          if (!list_files (child, child_relative, files, error))
            return FALSE;
        }
      else if (type == G_FILE_TYPE_REGULAR)
        {
          g_ptr_array_add (files, g_steal_pointer (&child_relative));
        }
    }

  return TRUE;
}

static void
add_source (JsonBuilder *builder,
            const char  *text)
{
  const char *start = text;

  /* The lines, each with its line feed, as Jupyter writes them. */
  json_builder_set_member_name (builder, "source");
  json_builder_begin_array (builder);
  while (*start != '\0')
    {
      const char *end = strchr (start, '\n');
      g_autofree char *line = end != NULL ? g_strndup (start, end - start + 1) : g_strdup (start);

      json_builder_add_string_value (builder, line);
      start = end != NULL ? end + 1 : start + strlen (start);
    }
  json_builder_end_array (builder);
}

/* Adds a cell; @key names the step it belongs to, if any. */
static void
add_cell (Notebook    *notebook,
          JsonBuilder *builder,
          gboolean     code,
          const char  *text,
          const char  *key,
          gboolean     hidden)
{
  g_autofree char *id = g_strdup_printf ("cell-%d", notebook->next_id++);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "cell_type");
  json_builder_add_string_value (builder, code ? "code" : "markdown");
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, id);
  json_builder_set_member_name (builder, "metadata");
  json_builder_begin_object (builder);
  if (key != NULL)
    {
      json_builder_set_member_name (builder, "skele");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "key");
      json_builder_add_string_value (builder, key);
      json_builder_end_object (builder);
    }
  if (hidden)
    {
      json_builder_set_member_name (builder, "jupyter");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "source_hidden");
      json_builder_add_boolean_value (builder, TRUE);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
  add_source (builder, text);
  if (code)
    {
      json_builder_set_member_name (builder, "execution_count");
      json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "outputs");
      json_builder_begin_array (builder);
      json_builder_end_array (builder);
    }
  json_builder_end_object (builder);
}

static char *
compose_intro (SkProject *project)
{
  const char *description = sk_project_get_description (project);
  g_autofree char *name = one_line (sk_project_get_name (project));
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "# %s\n\n", name);
  if (description != NULL && description[0] != '\0')
    g_string_append_printf (text, "%s\n\n", description);
  g_string_append (text,
                   _("This notebook was exported from Skele-Code. It runs the workflow’s steps "
                     "in the order Skele-Code runs them: for each step a text cell says what "
                     "it does and how it is connected, and a code cell holds its script and "
                     "runs it.\n\n"));
  g_string_append (text,
                   _("**Where it works.** The notebook can be put anywhere. Its setup cell "
                     "writes what the steps need (their input files and the small programs "
                     "that run them: `skele_harness.py`, `run_workflow.py` and "
                     "`skele_notebook.py`) into the folder named by `WORKFLOW_FOLDER` in the "
                     "first code cell, next to the notebook, as Jupyter runs a notebook in its "
                     "own folder. Each step’s cell writes its script into that folder and runs "
                     "it there in a Python process of its own, as Skele-Code does, so a change "
                     "to a script in its cell counts when the cell runs. The steps leave their "
                     "results in that folder: the report in `KEY/KEY_summary.txt`, the output "
                     "for the next steps in `KEY/KEY.pkl` and their files beside them.\n\n"));
  g_string_append (text,
                   _("**Running it.** Run all cells, or run "
                     "`jupyter nbconvert --to notebook --execute` on it. It stops at a step "
                     "that fails, and before an approval gate: to go past a gate, name its key "
                     "in `APPROVE` in the first code cell, for example `APPROVE = {\"review\"}`, "
                     "and run the notebook again from the top. Every run runs every step "
                     "again.\n\n"));
  g_string_append (text,
                   _("**What it needs.** Python 3.9 or later with the modules the steps "
                     "import; nothing of Skele-Code.\n"));

  return g_string_free (text, FALSE);
}

static char *
compose_settings (SkProject *project)
{
  GFile *folder = sk_project_get_folder (project);
  g_autofree char *base = g_file_get_basename (folder);
  g_autofree char *working = g_strconcat (base, "-run", NULL);
  GString *code = g_string_new (NULL);

  g_string_append (code, _("# The folder, next to the notebook, that the steps are written into "
                           "and run in.\n"));
  g_string_append (code, "WORKFLOW_FOLDER = ");
  append_string (code, working);
  g_string_append (code, "\n");
  g_string_append (code, _("# The keys of the approval gates to go past, for example "
                           "{\"review\"}.\n"));
  g_string_append (code, "APPROVE = set()\n");

  return g_string_free (code, FALSE);
}

static gboolean
compose_setup (Notebook   *notebook,
               GPtrArray  *files,
               char      **result,
               GError    **error)
{
  g_autoptr(GString) code = g_string_new (NULL);
  g_autoptr(GBytes) glue = NULL;
  gsize size = 0;
  const char *data;

  glue = g_resource_lookup_data (sk_core_get_resource (), RESOURCE_FOLDER GLUE_NAME,
                                 G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (glue == NULL)
    return FALSE;

  g_string_append (code, _("# Writes the programs that run the steps, the plan of the workflow "
                           "and its input\n# files into WORKFLOW_FOLDER. A text’s literal "
                           "begins with a line feed that is not\n# part of the file.\n"));
  g_string_append (code, "import base64\nimport os\nimport sys\n\nSKELE_FILES = {\n");
  data = g_bytes_get_data (glue, &size);
  g_string_append (code, "    \"" GLUE_NAME "\": ");
  append_literal (code, data, size);
  g_string_append (code, ",\n");

  for (guint i = 0; i < files->len; i++)
    {
      const char *relative = g_ptr_array_index (files, i);
      g_autoptr(GFile) file = NULL;
      g_autofree char *contents = NULL;
      gsize length = 0;

      if (g_hash_table_contains (notebook->scripts, relative) ||
          g_hash_table_contains (notebook->skipped, relative))
        continue;

      file = g_file_resolve_relative_path (notebook->root, relative);
      if (!load_file (file, &contents, &length, error))
        return FALSE;
      g_string_append (code, "    ");
      append_string (code, relative);
      g_string_append (code, ": ");
      append_literal (code, contents, length);
      g_string_append (code, ",\n");
    }

  g_string_append (code,
                   "}\n\n"
                   "_folder = os.path.abspath(WORKFLOW_FOLDER)\n"
                   "for _relative, _data in SKELE_FILES.items():\n"
                   "    _path = os.path.join(_folder, _relative)\n"
                   "    os.makedirs(os.path.dirname(_path), exist_ok=True)\n"
                   "    with open(_path, \"wb\") as _handle:\n"
                   "        _handle.write(_data if isinstance(_data, bytes) "
                   "else _data[1:].encode(\"utf-8\"))\n"
                   "if _folder not in sys.path:\n"
                   "    sys.path.insert(0, _folder)\n"
                   "for _name in (\"skele_notebook\", \"run_workflow\"):\n"
                   "    sys.modules.pop(_name, None)\n"
                   "import skele_notebook\n\n"
                   "skele = skele_notebook.Notebook(_folder, APPROVE)\n");

  *result = g_string_free (g_steal_pointer (&code), FALSE);
  return TRUE;
}

static void
append_control_flow (GString   *text,
                     SkProject *project,
                     SkNode    *node)
{
  g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (project, node);
  g_autoptr(GPtrArray) branches = sk_project_get_branches (project, node);
  const char *prior_id = NULL;
  const char *path = NULL;

  if (priors->len == 0)
    {
      g_string_append (text, _("- It needs no other step.\n"));
    }
  else
    {
      g_string_append (text, _("- It runs after "));
      for (guint i = 0; i < priors->len; i++)
        {
          g_autofree char *name = one_line (sk_node_get_name (g_ptr_array_index (priors, i)));

          g_string_append_printf (text, "%s“%s”", i > 0 ? ", " : "", name);
        }
      g_string_append (text, priors->len == 1 ? _(", and receives its output.\n")
                                              : _(", and receives their outputs.\n"));
    }

  if (!sk_node_get_run (node))
    g_string_append (text, _("- **Not marked to run:** the notebook leaves it out.\n"));

  if (sk_node_get_approval (node))
    /* Translators: %s is a step's key. */
    g_string_append_printf (text, _("- **Approval gate:** the notebook stops before this step "
                                    "unless `APPROVE` in the first code cell names `%s`.\n"),
                            sk_node_get_key (node));

  for (guint i = 0; i < priors->len; i++)
    {
      SkNode *prior = g_ptr_array_index (priors, i);
      const char *expr = sk_node_get_condition (node, sk_node_get_id (prior));
      g_autofree char *name = one_line (sk_node_get_name (prior));
      g_autofree char *trimmed = NULL;

      if (expr == NULL)
        continue;
      trimmed = g_strstrip (g_strdup (expr));
      if (g_str_equal (trimmed, "default"))
        /* Translators: %s is a step. */
        g_string_append_printf (text, _("- **Condition:** it runs when no other condition "
                                        "after “%s” is true (`default`).\n"), name);
      else
        /* Translators: the first %s is a Python expression, the second a step. */
        g_string_append_printf (text, _("- **Condition:** it runs when `%s` is true of the "
                                        "output of “%s” and no condition tried before it "
                                        "is.\n"), expr, name);
    }

  if (branches->len > 0)
    {
      g_string_append (text, _("- **Branches:** after it, the conditions of "));
      for (guint i = 0; i < branches->len; i++)
        {
          g_autofree char *name = one_line (sk_node_get_name (g_ptr_array_index (branches, i)));

          g_string_append_printf (text, "%s“%s”", i > 0 ? ", " : "", name);
        }
      g_string_append (text, _(" are tried in this order; the first true one runs and the "
                               "others are skipped.\n"));
    }

  if (sk_node_get_foreach (node, &prior_id, &path))
    {
      SkNode *prior = sk_project_get_node (project, prior_id);
      g_autofree char *name = one_line (prior != NULL ? sk_node_get_name (prior) : prior_id);

      /* Translators: the first %s is a path in a step's output, the second a step, the
       * third a folder. */
      g_string_append_printf (text, _("- **For each:** it runs once for each element of `%s` "
                                      "in the output of “%s”, in `%s/items/N/`; the steps "
                                      "after it receive the list of the items’ outputs.\n"),
                              path, name, sk_node_get_key (node));
    }

  if (sk_node_get_workflow (node) != NULL)
    /* Translators: %s is a folder. */
    g_string_append_printf (text, _("- **Sub-workflow:** it runs the workflow in `%s/`, whose "
                                    "steps’ scripts are in the cell below; its first steps "
                                    "receive the outputs of the steps before it as "
                                    "`prior_outputs[\"inputs\"]`.\n"),
                            sk_node_get_workflow (node));
}

static char *
compose_step_text (SkProject *project,
                   SkNode    *node,
                   guint      number)
{
  const char *task = sk_node_get_input_text (node);
  g_autofree char *name = one_line (sk_node_get_name (node));
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "## %u. %s\n\n", number, name);
  if (task != NULL && task[0] != '\0')
    {
      g_auto(GStrv) lines = g_strsplit (task, "\n", -1);

      for (guint i = 0; lines[i] != NULL; i++)
        g_string_append_printf (text, "> %s\n", lines[i]);
      g_string_append (text, "\n");
    }

  /* Translators: the first %s is a step's key, the second its state. */
  g_string_append_printf (text, _("- Key `%s`; its state in Skele-Code when exported: %s.\n"),
                          sk_node_get_key (node), sk_node_state_describe (sk_node_get_state (node)));
  append_control_flow (text, project, node);

  return g_string_free (text, FALSE);
}

static gboolean
compose_step_code (Notebook    *notebook,
                   SkNode      *node,
                   GPtrArray   *files,
                   char       **result,
                   GError     **error)
{
  const char *key = sk_node_get_key (node);
  const char *workflow = sk_node_get_workflow (node);
  g_autofree char *name = one_line (sk_node_get_name (node));
  g_autoptr(GString) code = g_string_new (NULL);
  g_autofree char *contents = NULL;
  gsize length = 0;

  if (workflow != NULL)
    {
      g_autofree char *prefix = g_strconcat (workflow, "/", NULL);

      /* Translators: the first %s is a step, the second a folder. */
      g_string_append_printf (code, _("# “%s”: the scripts of the workflow in %s/, written "
                                      "there and run through the harness.\n"), name, workflow);
      g_string_append (code, "skele.run_step(");
      append_string (code, key);
      g_string_append (code, ", scripts={\n");
      for (guint i = 0; i < files->len; i++)
        {
          const char *relative = g_ptr_array_index (files, i);
          g_autoptr(GFile) file = NULL;

          if (!g_str_has_prefix (relative, prefix) ||
              !g_hash_table_contains (notebook->scripts, relative))
            continue;

          file = g_file_resolve_relative_path (notebook->root, relative);
          g_clear_pointer (&contents, g_free);
          if (!load_file (file, &contents, &length, error))
            return FALSE;
          g_string_append (code, "    ");
          append_string (code, relative);
          g_string_append (code, ": ");
          append_literal (code, contents, length);
          g_string_append (code, ",\n");
        }
      g_string_append (code, "})\n");
    }
  else
    {
      g_autofree char *script = g_strconcat (key, "/", key, ".py", NULL);
      g_autoptr(GFile) file = g_file_resolve_relative_path (notebook->root, script);

      if (!load_file (file, &contents, &length, NULL))
        g_clear_pointer (&contents, g_free);

      if (contents == NULL ||
          (g_utf8_validate (contents, length, NULL) && sk_util_is_blank (contents)))
        {
          /* Translators: the first %s is a step, the second a file. */
          g_string_append_printf (code, _("# “%s” has no code yet: write its script in %s "
                                          "and run this cell again.\n"), name, script);
          g_string_append (code, "skele.run_step(");
          append_string (code, key);
          g_string_append (code, ", None)\n");
        }
      else
        {
          /* Translators: the first %s is a step, the second a file. */
          g_string_append_printf (code, _("# “%s”: its script, written into %s and run "
                                          "through the harness.\n"), name, script);
          g_string_append (code, "skele.run_step(");
          append_string (code, key);
          g_string_append (code, ", ");
          append_literal (code, contents, length);
          g_string_append (code, ")\n");
        }
    }

  *result = g_string_free (g_steal_pointer (&code), FALSE);
  return TRUE;
}

static gboolean
build_cells (Notebook     *notebook,
             SkProject    *project,
             JsonBuilder  *builder,
             GError      **error)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) order = NULL;
  g_autofree char *intro = NULL;
  g_autofree char *settings = NULL;
  g_autofree char *setup = NULL;

  if (!read_plans (notebook, "", error) || !list_files (notebook->root, "", files, error) ||
      !compose_setup (notebook, files, &setup, error))
    return FALSE;

  if ((order = sk_project_topological_order (project, error)) == NULL)
    return FALSE;

  intro = compose_intro (project);
  settings = compose_settings (project);
  add_cell (notebook, builder, FALSE, intro, NULL, FALSE);
  add_cell (notebook, builder, TRUE, settings, NULL, FALSE);
  add_cell (notebook, builder, FALSE,
            _("## Setting up\n\nThe next cell writes the programs that run the steps, the "
              "plan of the workflow and its input files into `WORKFLOW_FOLDER`. It is long and "
              "hidden, as it is the same for every workflow but for the files it carries.\n"),
            NULL, FALSE);
  add_cell (notebook, builder, TRUE, setup, NULL, TRUE);

  for (guint i = 0; i < order->len; i++)
    {
      SkNode *node = g_ptr_array_index (order, i);
      g_autofree char *text = compose_step_text (project, node, i + 1);
      g_autofree char *code = NULL;

      if (!compose_step_code (notebook, node, files, &code, error))
        return FALSE;
      add_cell (notebook, builder, FALSE, text, sk_node_get_key (node), FALSE);
      add_cell (notebook, builder, TRUE, code, sk_node_get_key (node), FALSE);
    }

  return TRUE;
}

/**
 * sk_export_notebook_text:
 * @project: a workflow with a folder
 * @error: return location for a #GError
 *
 * Makes a Jupyter notebook (nbformat 4) that runs @project (DESIGN §11):
 * see sk_export_notebook().
 *
 * Returns: (transfer full): the notebook's JSON text, or %NULL with @error
 *   set when the workflow cannot be exported
 */
char *
sk_export_notebook_text (SkProject  *project,
                         GError    **error)
{
  g_auto(Notebook) notebook = { 0 };
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *temporary = NULL;
  gboolean done;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((temporary = g_dir_make_tmp ("skele-notebook-XXXXXX", error)) == NULL)
    return NULL;

  notebook.root = g_file_new_for_path (temporary);
  notebook.scripts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  notebook.skipped = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "cells");
  json_builder_begin_array (builder);
  done = sk_export_python (project, notebook.root, error) &&
         build_cells (&notebook, project, builder, error);
  remove_tree (notebook.root);
  if (!done)
    return NULL;
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "metadata");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "kernelspec");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "display_name");
  json_builder_add_string_value (builder, "Python 3");
  json_builder_set_member_name (builder, "language");
  json_builder_add_string_value (builder, "python");
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, "python3");
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "language_info");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, "python");
  json_builder_set_member_name (builder, "file_extension");
  json_builder_add_string_value (builder, ".py");
  json_builder_set_member_name (builder, "mimetype");
  json_builder_add_string_value (builder, "text/x-python");
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "skele");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "workflow");
  json_builder_add_string_value (builder, sk_project_get_name (project));
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "nbformat");
  json_builder_add_int_value (builder, 4);
  json_builder_set_member_name (builder, "nbformat_minor");
  json_builder_add_int_value (builder, 5);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return json_to_string (root, TRUE);
}

/**
 * sk_export_notebook:
 * @project: a workflow with a folder
 * @file: the notebook to write, replaced if it exists
 * @error: return location for a #GError
 *
 * Writes a Jupyter notebook (nbformat 4) that runs @project with
 * `jupyter nbconvert --execute` or in Jupyter (DESIGN §11): per step in the
 * runner's order a Markdown cell (its name, task, state and control flow)
 * and a code cell that holds its script and runs it through the harness,
 * as the standalone Python export does. The notebook works wherever it is
 * put: it writes the steps into a folder next to it, named in its first
 * code cell, with APPROVE, the approval gates to go past. A workflow the
 * runner would refuse is refused with its problem; then nothing is written.
 *
 * Returns: %TRUE when the notebook was written
 */
gboolean
sk_export_notebook (SkProject  *project,
                    GFile      *file,
                    GError    **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((text = sk_export_notebook_text (project, error)) == NULL)
    return FALSE;

  return g_file_replace_contents (file, text, strlen (text), NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
}
