/* sk-export-snakemake.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-export"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-control-flow.h"
#include "sk-export.h"
#include "sk-export-private.h"
#include "sk-json.h"
#include "sk-run-record.h"
#include "sk-step-folder.h"

/* A workflow as a Snakemake workflow (DESIGN §11): the folder of the Python
 * export, whose driver runs one step at a time with --step, and a Snakefile
 * with one rule per step that runs it so. A rule's output is the step's
 * record .skele/state.json, which the driver writes after the step's pickle,
 * report and files: a step that is skipped leaves no pickle, and Snakemake 7
 * has no outputs that may be missing. Its inputs are the step's script and
 * input files and the records of the steps before it, so that Snakemake
 * runs the steps in the workflow's order and runs a step again when one of
 * them changes. Conditions, for-each steps and sub-workflows are carried
 * out inside the rules by the driver, as Skele-Code does; what Snakemake
 * does differently is written in LOSSES.md.
 */

#define SNAKEFILE_NAME "Snakefile"
#define CONFIG_NAME "config.yaml"
#define LOSSES_NAME "LOSSES.md"
#define README_NAME "README.md"
#define STATE_PATH SK_STEP_BOOKKEEPING_NAME "/state.json"

/* A step whose last run took less than this many seconds runs on the
 * machine that runs Snakemake: a cluster job costs more than that to
 * schedule. */
#define LOCAL_SECONDS 10.0

static const char * const python_keywords[] = {
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
  "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
  "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
  "while", "with", "yield",
};

/* Appends @text as a Python string literal whose braces Snakemake does not
 * take for wildcards. */
static void
append_path (GString    *out,
             const char *text)
{
  g_string_append_c (out, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (out, '\\');
      else if (*p == '{' || *p == '}')
        g_string_append_c (out, *p);

      if (*p == '\n')
        g_string_append (out, "\\n");
      else
        g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

/* Appends @text to a comment, on one line. */
static void
append_comment_text (GString    *out,
                     const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    g_string_append_c (out, *p == '\n' || *p == '\r' ? ' ' : *p);
}

static gboolean
is_rule_name (const char *text)
{
  if (text[0] == '\0' || g_ascii_isdigit (text[0]) || g_str_equal (text, "all"))
    return FALSE;

  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (python_keywords); i++)
    if (g_str_equal (text, python_keywords[i]))
      return FALSE;

  return TRUE;
}

/* The rule of each step: its key where that is a Python name other than
 * "all", or "step_" and the key's letters and digits, kept distinct. */
static GHashTable *
name_rules (SkProject *project)
{
  GHashTable *rules = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr(GHashTable) taken = g_hash_table_new (g_str_hash, g_str_equal);
  guint n_nodes = sk_project_get_n_nodes (project);

  g_hash_table_add (taken, (gpointer) "all");

  /* Keys that are names keep them; the others give way. */
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < n_nodes; i++)
      {
        g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
        const char *key = sk_node_get_key (node);
        g_autoptr(GString) name = NULL;
        g_autofree char *base = NULL;

        if ((pass == 0) != is_rule_name (key))
          continue;

        name = g_string_new (pass == 0 ? key : "step_");
        if (pass == 1)
          for (const char *p = key; *p != '\0'; p++)
            g_string_append_c (name, g_ascii_isalnum (*p) ? *p : '_');

        base = g_strdup (name->str);
        for (guint n = 2; g_hash_table_contains (taken, name->str); n++)
          g_string_printf (name, "%s_%u", base, n);

        g_hash_table_insert (rules, (gpointer) key, g_strdup (name->str));
        g_hash_table_add (taken, g_hash_table_lookup (rules, key));
      }

  return rules;
}

/* The path of @file below the export's folder, or NULL when it is not
 * there: an input the export left out is no input of the rule. */
static char *
exported_path (SkExportFolder *export,
               GFile          *file)
{
  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                              NULL) == G_FILE_TYPE_UNKNOWN)
    return NULL;

  return g_file_get_relative_path (export->root, file);
}

static void
add_input (GPtrArray  *inputs,
           char       *path)
{
  if (path == NULL)
    return;

  for (guint i = 0; i < inputs->len; i++)
    if (g_str_equal (g_ptr_array_index (inputs, i), path))
      {
        g_free (path);
        return;
      }

  g_ptr_array_add (inputs, path);
}

static SkExportPart *
find_part (SkExportFolder *export,
           const char     *relative)
{
  for (guint i = 0; i < export->parts->len; i++)
    {
      SkExportPart *part = g_ptr_array_index (export->parts, i);

      if (g_str_equal (part->relative, relative))
        return part;
    }

  return NULL;
}

static void add_part_inputs (SkExportFolder *export,
                             SkExportPart   *part,
                             GPtrArray      *inputs);

/* The files of @node that its run reads: its script and the modules beside
 * it, its input files, and for a sub-workflow everything its steps read. */
static void
add_step_inputs (SkExportFolder *export,
                 SkExportPart   *part,
                 SkNode         *node,
                 GPtrArray      *inputs)
{
  const char *key = sk_node_get_key (node);
  const char *workflow = sk_node_get_workflow (node);
  const char * const *files = sk_node_get_input_files (node);
  g_autoptr(GFile) base = part->relative[0] != '\0'
                          ? g_file_resolve_relative_path (export->root, part->relative)
                          : g_object_ref (export->root);
  g_autoptr(GFile) folder = g_file_get_child (base, key);
  g_autoptr(GFileEnumerator) children = NULL;

  if (workflow != NULL)
    {
      g_autofree char *relative = part->relative[0] != '\0'
                                  ? g_build_filename (part->relative, workflow, NULL)
                                  : g_strdup (workflow);
      SkExportPart *inner = find_part (export, relative);

      if (inner != NULL)
        add_part_inputs (export, inner, inputs);
      return;
    }

  /* The script, and the modules beside it that it may import. */
  children = g_file_enumerate_children (folder, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  while (children != NULL)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;

      if (!g_file_enumerator_iterate (children, &info, &child, NULL, NULL) || info == NULL)
        break;
      if (g_str_has_suffix (g_file_info_get_name (info), ".py"))
        add_input (inputs, exported_path (export, child));
    }

  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autoptr(GFile) file = NULL;

      if (g_path_is_absolute (files[i]))
        continue;
      file = g_file_resolve_relative_path (folder, files[i]);
      if (g_file_has_prefix (file, export->root))
        add_input (inputs, exported_path (export, file));
    }
}

static void
add_part_inputs (SkExportFolder *export,
                 SkExportPart   *part,
                 GPtrArray      *inputs)
{
  g_autoptr(GFile) base = g_file_resolve_relative_path (export->root, part->relative);
  g_autoptr(GFile) plan = g_file_get_child (base, "plan.json");

  add_input (inputs, exported_path (export, plan));
  for (guint i = 0; i < sk_project_get_n_nodes (part->project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (part->project), i);

      add_step_inputs (export, part, node, inputs);
    }
}

/* Whether the last run of @node, in the workflow's own folder, succeeded in
 * less than LOCAL_SECONDS. */
static gboolean
is_tiny (SkProject *project,
         SkNode    *node)
{
  g_autoptr(GFile) folder = sk_project_get_node_folder (project, node);
  g_autoptr(JsonObject) record = NULL;
  double seconds = 0;

  if (folder == NULL)
    return FALSE;

  record = sk_run_record_read (g_file_peek_path (folder), sk_node_get_key (node));
  return record != NULL &&
         g_strcmp0 (sk_json_get_string (record, "status"), "success") == 0 &&
         sk_json_get_double (record, "seconds", &seconds) && isfinite (seconds) &&
         seconds >= 0 && seconds < LOCAL_SECONDS;
}

static char *
compose_snakefile (SkExportFolder  *export,
                   GError         **error)
{
  SkExportPart *top = g_ptr_array_index (export->parts, 0);
  SkProject *project = top->project;
  g_autoptr(GPtrArray) order = sk_project_topological_order (project, error);
  g_autoptr(GHashTable) rules = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GPtrArray) local = g_ptr_array_new ();
  gboolean any_target = FALSE;

  if (order == NULL)
    return NULL;

  rules = name_rules (project);

  g_string_append (out, "# ");
  append_comment_text (out, sk_project_get_name (project));
  g_string_append (out,
                   "\n#\n"
                   "# The workflow, exported from Skele-Code for Snakemake. Each rule runs one\n"
                   "# step through run_workflow.py, in a Python process of its own; its output is\n"
                   "# the step's record KEY/.skele/state.json, written after the step's pickle,\n"
                   "# report and files. README.md says how to run it, here and on a cluster;\n"
                   "# LOSSES.md what Snakemake does differently from Skele-Code.\n"
                   "\n"
                   "import shlex\n"
                   "import sys\n"
                   "\n"
                   "configfile: \"" CONFIG_NAME "\"\n"
                   "\n"
                   "# The Python that runs the steps: config.yaml's, or the one that runs\n"
                   "# Snakemake.\n"
                   "PYTHON = config.get(\"python\") or sys.executable\n"
                   "\n"
                   "# The approval gates to let through: --config approve=KEY, or a list.\n"
                   "APPROVED = config.get(\"approve\") or []\n"
                   "if isinstance(APPROVED, str):\n"
                   "    APPROVED = APPROVED.split(\",\")\n"
                   "APPROVE = \" \".join(\"--approve \" + shlex.quote(str(key).strip())\n"
                   "                   for key in APPROVED if str(key).strip())\n");

  for (guint i = 0; i < order->len; i++)
    if (is_tiny (project, g_ptr_array_index (order, i)))
      g_ptr_array_add (local, g_hash_table_lookup (rules,
                                                   sk_node_get_key (g_ptr_array_index (order,
                                                                                       i))));

  g_string_append (out, "\n# Steps whose last run took less than ten seconds run here, not as\n"
                        "# cluster jobs.\nlocalrules:\n    all");
  for (guint i = 0; i < local->len; i++)
    g_string_append_printf (out, ",\n    %s", (const char *) g_ptr_array_index (local, i));
  g_string_append (out, "\n\n");

  g_string_append (out, "# The steps marked to run, and through them the steps they need.\n"
                        "rule all:\n    input:\n");
  for (guint i = 0; i < order->len; i++)
    {
      SkNode *node = g_ptr_array_index (order, i);
      g_autofree char *state = NULL;

      if (!sk_node_get_run (node))
        continue;

      state = g_build_filename (sk_node_get_key (node), STATE_PATH, NULL);
      g_string_append (out, "        ");
      append_path (out, state);
      g_string_append (out, ",\n");
      any_target = TRUE;
    }
  if (!any_target)
    g_string_append (out, "        []\n");

  for (guint i = 0; i < order->len; i++)
    {
      SkNode *node = g_ptr_array_index (order, i);
      const char *key = sk_node_get_key (node);
      g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (project, node);
      g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *state = g_build_filename (key, STATE_PATH, NULL);
      g_autofree char *quoted_key = g_shell_quote (key);
      g_autofree char *command = NULL;

      add_step_inputs (export, top, node, inputs);
      for (guint j = 0; j < priors->len; j++)
        add_input (inputs, g_build_filename (sk_node_get_key (g_ptr_array_index (priors, j)),
                                             STATE_PATH, NULL));

      g_string_append (out, "\n# ");
      append_comment_text (out, sk_node_get_name (node));
      if (sk_node_get_approval (node))
        g_string_append (out, " (an approval gate: --config approve=");
      if (sk_node_get_approval (node))
        {
          append_comment_text (out, key);
          g_string_append (out, ")");
        }
      g_string_append_printf (out, "\nrule %s:\n",
                              (const char *) g_hash_table_lookup (rules, key));
      if (inputs->len > 0)
        {
          g_string_append (out, "    input:\n");
          for (guint j = 0; j < inputs->len; j++)
            {
              g_string_append (out, "        ");
              append_path (out, g_ptr_array_index (inputs, j));
              g_string_append (out, ",\n");
            }
        }
      g_string_append (out, "    output:\n        ");
      append_path (out, state);
      g_string_append (out, "\n    threads: 1\n    shell:\n        ");
      command = g_strdup_printf ("{PYTHON:q} run_workflow.py --step %s {APPROVE}", quoted_key);
      /* The command is formatted by Snakemake, so its braces stay single. */
      g_string_append_c (out, '"');
      for (const char *p = command; *p != '\0'; p++)
        {
          if (*p == '"' || *p == '\\')
            g_string_append_c (out, '\\');
          g_string_append_c (out, *p);
        }
      g_string_append (out, "\"\n");
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

static const char config_text[] =
  "# Settings of the Snakefile. Change them here, or for one run with\n"
  "# snakemake --config NAME=VALUE.\n"
  "\n"
  "# The Python that runs the steps, with the modules they import (README.md\n"
  "# lists them). Empty: the Python that runs Snakemake.\n"
  "python: \"\"\n"
  "\n"
  "# The keys of the approval gates to let through, for example [check_totals];\n"
  "# for one run: snakemake --config approve=check_totals\n"
  "approve: []\n";

static const char profile_7_text[] =
  "# Snakemake 7 on a Slurm cluster: snakemake --profile profiles/slurm-7\n"
  "# Each step that is not a local rule becomes a Slurm job. The folder must\n"
  "# be on a file system that the cluster's nodes share.\n"
  "slurm: true\n"
  "jobs: 50\n"
  "latency-wait: 60\n"
  "max-status-checks-per-second: 1\n"
  "default-resources:\n"
  "  - runtime=60\n"
  "  - mem_mb=2000\n"
  "# Name your partition and account when the cluster has no default:\n"
  "#  - slurm_partition=YOUR_PARTITION\n"
  "#  - slurm_account=YOUR_ACCOUNT\n";

static const char profile_8_text[] =
  "# Snakemake 8 or later on a Slurm cluster: snakemake --profile profiles/slurm-8\n"
  "# It needs the Slurm executor: pip install snakemake-executor-plugin-slurm\n"
  "# Each step that is not a local rule becomes a Slurm job. The folder must\n"
  "# be on a file system that the cluster's nodes share.\n"
  "executor: slurm\n"
  "jobs: 50\n"
  "latency-wait: 60\n"
  "default-resources:\n"
  "  runtime: 60\n"
  "  mem_mb: 2000\n"
  "# Name your partition and account when the cluster has no default:\n"
  "#  slurm_partition: YOUR_PARTITION\n"
  "#  slurm_account: YOUR_ACCOUNT\n";

static void
list_steps (GString    *out,
            SkProject  *project,
            gboolean  (*test) (SkProject *, SkNode *))
{
  guint n = 0;

  for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (test (project, node))
        g_string_append_printf (out, "%s“%s” (`%s`)", n++ > 0 ? ", " : "",
                                sk_node_get_name (node), sk_node_get_key (node));
    }
}

static gboolean
node_is_gate (SkProject *project,
              SkNode    *node)
{
  return sk_node_get_approval (node);
}

static gboolean
node_has_condition (SkProject *project,
                    SkNode    *node)
{
  g_autoptr(GPtrArray) priors = sk_project_get_prior_nodes (project, node);

  for (guint i = 0; i < priors->len; i++)
    if (sk_node_get_condition (node, sk_node_get_id (g_ptr_array_index (priors, i))) != NULL)
      return TRUE;

  return FALSE;
}

static gboolean
node_is_foreach (SkProject *project,
                 SkNode    *node)
{
  return sk_node_get_foreach (node, NULL, NULL);
}

static gboolean
node_is_workflow (SkProject *project,
                  SkNode    *node)
{
  return sk_node_get_workflow (node) != NULL;
}

static gboolean
node_is_not_run (SkProject *project,
                 SkNode    *node)
{
  return !sk_node_get_run (node);
}

static gboolean
any_node (SkProject *project,
          gboolean (*test) (SkProject *, SkNode *))
{
  for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (test (project, node))
        return TRUE;
    }

  return FALSE;
}

/* Appends a section of LOSSES.md: @heading, @text, and after @lead the
 * steps of @project that pass @test, when there are any. */
static void
append_section (GString    *out,
                SkProject  *project,
                const char *heading,
                const char *text,
                const char *lead,
                gboolean  (*test) (SkProject *, SkNode *))
{
  g_string_append_printf (out, "## %s\n\n%s", heading, text);
  if (any_node (project, test))
    {
      g_string_append_printf (out, " %s ", lead);
      list_steps (out, project, test);
      g_string_append (out, ".");
    }
  g_string_append (out, "\n\n");
}

static char *
compose_losses (SkExportFolder *export)
{
  SkExportPart *top = g_ptr_array_index (export->parts, 0);
  SkProject *project = top->project;
  g_autoptr(GString) out = g_string_new (NULL);
  gboolean gates_inside = FALSE;

  for (guint i = 1; i < export->parts->len; i++)
    {
      SkExportPart *part = g_ptr_array_index (export->parts, i);

      gates_inside |= any_node (part->project, node_is_gate);
    }

  g_string_append_printf (out, "# %s\n\n", _("What Snakemake does differently"));
  g_string_append (out, _("Snakemake runs this workflow’s steps with the same scripts, through "
                          "the same harness, and they leave the same results as in Skele-Code. "
                          "These are the things Snakemake cannot express, and what this export "
                          "does instead.\n\n"));

  append_section (out, project, _("Approval gates"),
                  _("Snakemake cannot stop and wait for a person. The rule of a gate fails, "
                    "saying that the gate waits for approval, and the steps after it are not "
                    "run; with `--keep-going` the steps that do not need it still run. Look at "
                    "what the gate receives, then run again with the gate approved: "
                    "`snakemake --cores 4 --config approve=KEY`, or list the keys under "
                    "`approve` in `config.yaml`. Snakemake does not remember the decision: "
                    "once the gate has run, it runs again only when its inputs change, and "
                    "then needs approval again."),
                  _("The gates in this workflow:"), node_is_gate);
  if (gates_inside)
    g_string_append (out, _("Some sub-workflows hold gates too; approve them by their keys in "
                            "the same way, and the step of the sub-workflow runs past them.\n\n"));

  g_string_append_printf (out, "## %s\n\n%s\n\n", _("A step that fails"),
                          _("In Skele-Code the steps after a failed step still run, receiving "
                            "`{}` for it, and decide in `preprocess` what to do. Snakemake does "
                            "not run the steps that need a failed step: correct it and run "
                            "again, and Snakemake goes on from there."));

  append_section (out, project, _("Conditions on connections"),
                  _("Snakemake decides which rules to run before it runs any, so it cannot "
                    "follow a condition that depends on a step’s output. Every step after a "
                    "condition still has its rule: the rule looks at the condition when it "
                    "runs, as Skele-Code does, and records a step whose condition is not met "
                    "as skipped, without running its code. Snakemake counts that rule as "
                    "done."),
                  _("The steps with conditions here:"), node_has_condition);

  append_section (out, project, _("Steps that run for each element of a list"),
                  _("The items of such a step run one after another in its rule, in "
                    "`KEY/items/N/`, not as jobs of their own, and all of them run again when "
                    "the rule runs again; Skele-Code runs only the items whose inputs "
                    "changed."),
                  _("Such steps here:"), node_is_foreach);

  append_section (out, project, _("Sub-workflows"),
                  _("A sub-workflow runs in the rule of its step, its steps one after another, "
                    "and all of them again when any of its files changes."),
                  _("Sub-workflows here:"), node_is_workflow);

  append_section (out, project, _("Steps not marked to run"),
                  _("The rule `all` asks for the steps marked to run. Snakemake also runs a "
                    "step that is not marked when a marked step needs it and it has not run "
                    "here yet."),
                  _("Steps not marked to run:"), node_is_not_run);

  g_string_append_printf (out, "## %s\n\n", _("And also"));
  g_string_append (out,
                   _("- Up to date is Snakemake’s own judgement: the times of the files and the "
                     "rules’ code, not Skele-Code’s fingerprints of each step’s inputs.\n"
                     "- The coding agent: a step without code is not written for you, and its "
                     "rule fails.\n"
                     "- The sandbox: the steps run as ordinary processes with your permissions, "
                     "and a step’s network setting is not enforced.\n"
                     "- The results of earlier runs in Skele-Code are not included.\n"));
  _sk_export_append_left_out (export, out);

  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
compose_readme (SkExportFolder *export)
{
  g_autoptr(GString) readme = g_string_new (NULL);

  _sk_export_append_title (export, readme);

  g_string_append (readme,
                   _("This folder holds the workflow, exported from Skele-Code, as a Snakemake "
                     "workflow. The `Snakefile` has one rule for each step; each rule runs its "
                     "step with `run_workflow.py --step KEY` through `skele_harness.py`, the "
                     "same small program Skele-Code runs steps with. A step receives the "
                     "outputs of the steps before it and leaves its results in its folder: its "
                     "report in `KEY/KEY_summary.txt`, its output for the next steps in "
                     "`KEY/KEY.pkl`, its files beside them, and its printed output and its "
                     "record in `KEY/.skele/`.\n\n"));

  g_string_append (readme, _("## Running it on this machine\n\n"));
  g_string_append (readme, "    snakemake --cores 4\n\n");
  g_string_append (readme,
                   _("Snakemake runs up to four steps at a time, each after the steps it "
                     "needs. Run it again and it runs only the steps whose script or input "
                     "files changed, and the steps after them; `snakemake --cores 4 "
                     "--forceall` runs them all. `snakemake -n` shows what would run. The "
                     "steps run with the Python that runs Snakemake, unless `python` in "
                     "`config.yaml` names another.\n\n"
                     "Without Snakemake, `python3 run_workflow.py` runs the whole workflow one "
                     "step after the other.\n\n"));

  g_string_append (readme, _("## Moving it to a Slurm cluster\n\n"));
  g_string_append (readme,
                   _("1. Copy this folder to a file system that the cluster’s nodes share, "
                     "for example your home or project folder on the cluster.\n"
                     "2. Install what the steps need (below) for the Python that will run "
                     "them, and set `python` in `config.yaml` to it if it is not the one that "
                     "runs Snakemake.\n"
                     "3. On the login node, in this folder, run\n\n"
                     "       snakemake --profile profiles/slurm-7\n\n"
                     "   with Snakemake 7, or with Snakemake 8 or later, which needs "
                     "`pip install snakemake-executor-plugin-slurm`,\n\n"
                     "       snakemake --profile profiles/slurm-8\n\n"
                     "Each step becomes a Slurm job, except the quick ones listed under "
                     "`localrules` in the `Snakefile`, which run on the login node. The "
                     "profiles ask for an hour and 2,000 MB for each step and up to 50 jobs at "
                     "once: change `default-resources` in the profile for your steps, and "
                     "name your partition and account there if the cluster has no default "
                     "(`slurm_partition=…`, `slurm_account=…`). For one run, "
                     "`--default-resources slurm_partition=NAME` does the same. Keep "
                     "Snakemake running until it finishes, for example in `tmux` or "
                     "`screen`.\n\n"));

  g_string_append (readme, _("## Approval gates\n\n"));
  g_string_append (readme,
                   _("Snakemake does not wait for a person: the rule of an approval gate fails "
                     "until you approve it with `snakemake --cores 4 --config approve=KEY` "
                     "(`approve='[KEY1,KEY2]'` for several). `LOSSES.md` says this and what "
                     "else Snakemake does differently from Skele-Code.\n\n"));

  _sk_export_append_needs (export, readme);
  _sk_export_append_steps (export, readme);
  g_string_append (readme,
                   _("`workflow.json` is the workflow as Skele-Code keeps it, for reading. "
                     "`plan.json` is what `run_workflow.py` follows. A change to a step’s "
                     "script counts at the next run; a change to the steps, their connections "
                     "or their control flow needs a new export from Skele-Code.\n"));

  return g_string_free (g_steal_pointer (&readme), FALSE);
}

static gboolean
write_text (GFile       *folder,
            const char  *path,
            const char  *text,
            GError     **error)
{
  g_autoptr(GFile) file = g_file_resolve_relative_path (folder, path);

  return _sk_export_write_file (file, text, strlen (text), 0644, error);
}

/**
 * sk_export_snakemake:
 * @project: a workflow with a folder
 * @folder: an empty or new folder
 * @error: return location for a #GError
 *
 * Writes into @folder a Snakemake workflow that runs @project: what
 * sk_export_python() writes, with a Snakefile of one rule per step,
 * config.yaml, profiles for Slurm with Snakemake 7 and 8, LOSSES.md and a
 * README.md that says how to run it here and on a cluster (DESIGN §11).
 * A folder that holds files is refused with %SK_EXPORT_ERROR_EXISTS, and a
 * workflow the runner would refuse with its problem; then nothing is
 * written.
 *
 * Returns: %TRUE when the folder was written
 */
gboolean
sk_export_snakemake (SkProject  *project,
                     GFile      *folder,
                     GError    **error)
{
  g_auto(SkExportFolder) export = { 0 };
  g_autofree char *snakefile = NULL;
  g_autofree char *losses = NULL;
  g_autofree char *readme = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (G_IS_FILE (folder), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!_sk_export_folder_write (&export, project, folder, error))
    return FALSE;

  if ((snakefile = compose_snakefile (&export, error)) == NULL)
    return FALSE;
  losses = compose_losses (&export);
  readme = compose_readme (&export);

  return write_text (folder, SNAKEFILE_NAME, snakefile, error) &&
         write_text (folder, CONFIG_NAME, config_text, error) &&
         write_text (folder, "profiles/slurm-7/config.yaml", profile_7_text, error) &&
         write_text (folder, "profiles/slurm-8/config.yaml", profile_8_text, error) &&
         write_text (folder, LOSSES_NAME, losses, error) &&
         write_text (folder, README_NAME, readme, error);
}
