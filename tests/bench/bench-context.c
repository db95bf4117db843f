/* bench-context.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Figures, not a test: how much text the coding agent is given about a step
 * with each context scope, for generated workflows of 10, 50 and 200 steps
 * whose every step has a task and a ~40-line script on disk, and how much
 * the Markov blanket saves against showing the whole workflow.
 */

#define G_LOG_DOMAIN "bench-context"

#include <string.h>

#include <gio/gio.h>

#include "sk-agent-context.h"
#include "sk-test-util.h"

#define SEED 20260214
#define WINDOW 8

static const guint sizes[] = { 10, 50, 200 };

/* A script in the shape of the node contract, about 40 lines. */
static const char script_template[] =
  "\"\"\"Step %s of the generated workflow.\n"
  "\n"
  "Reads the priors' tables, keeps the rows of this month and adds them up.\n"
  "\"\"\"\n"
  "\n"
  "import os\n"
  "import pickle\n"
  "\n"
  "KEY = \"%s\"\n"
  "PRIORS = [%s]\n"
  "state = {}\n"
  "\n"
  "\n"
  "def preprocess(prior_outputs):\n"
  "    with open(KEY + \"_summary.txt\", \"w\") as f:\n"
  "        f.write(\"Adds up this month's rows of the earlier steps.\\n\")\n"
  "    rows = []\n"
  "    for key in PRIORS:\n"
  "        output = prior_outputs.get(key, {})\n"
  "        if output.get(\"task_status\") != \"success\":\n"
  "            return False\n"
  "        rows.extend(output.get(\"rows\", []))\n"
  "    state[\"local\"] = {\"rows\": rows}\n"
  "    return True\n"
  "\n"
  "\n"
  "def compute():\n"
  "    rows = state[\"local\"][\"rows\"]\n"
  "    total = sum(row.get(\"amount\", 0) for row in rows)\n"
  "    with open(KEY + \"_summary.txt\", \"a\") as f:\n"
  "        f.write(\"%%d rows, total %%.2f\\n\" %% (len(rows), total))\n"
  "    state[\"output\"] = {\"task_status\": \"success\", \"rows\": rows, \"total\": total}\n"
  "\n"
  "\n"
  "def save():\n"
  "    with open(KEY + \".pkl\", \"wb\") as f:\n"
  "        pickle.dump(state[\"output\"], f)\n"
  "\n"
  "\n"
  "if __name__ == \"__main__\":\n"
  "    outputs = {}\n"
  "    for key in PRIORS:\n"
  "        path = os.path.join(\"..\", key, key + \".pkl\")\n"
  "        if os.path.exists(path):\n"
  "            with open(path, \"rb\") as f:\n"
  "                outputs[key] = pickle.load(f)\n"
  "    if preprocess(outputs):\n"
  "        compute()\n"
  "        save()\n";

/* A workflow of @n_nodes steps in @folder. Each step after the first needs
 * one to three earlier steps, mostly among the WINDOW before it and one in
 * five anywhere before, as real workflows are mostly local.
 */
static SkProject *
make_workflow (const char *folder,
               guint       n_nodes)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (SEED + n_nodes);
  g_autoptr(GFile) file = g_file_new_for_path (folder);
  SkProject *project = sk_project_new (file);

  sk_project_set_name (project, "generated report");
  sk_project_set_description (project,
                              "Reads the monthly sales exports, cleans them, adds them up by "
                              "region and product and writes a report with charts.");

  for (guint i = 0; i < n_nodes; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i + 1);
      g_autofree char *name = g_strdup_printf ("step %u", i);
      g_autofree char *task = NULL;
      g_autofree char *script = NULL;
      g_autofree char *relative = NULL;
      g_autoptr(SkNode) node = sk_node_new (id, name);
      g_autoptr(GString) prior_keys = g_string_new (NULL);
      g_autoptr(GError) error = NULL;
      guint n_priors = i == 0 ? 0 : (guint) g_rand_int_range (rand, 1, MIN (i, 3) + 1);
      const char * const *priors;

      for (guint j = 0; j < n_priors; j++)
        {
          guint low = g_rand_int_range (rand, 0, 5) == 0 || i < WINDOW ? 0 : i - WINDOW;
          g_autofree char *prior = g_strdup_printf ("%d", g_rand_int_range (rand, low, i) + 1);

          sk_node_add_prior (node, prior);
        }

      priors = sk_node_get_priors (node);
      for (guint j = 0; priors[j] != NULL; j++)
        g_string_append_printf (prior_keys, "%s\"step_%u\"", j > 0 ? ", " : "",
                                (guint) g_ascii_strtoull (priors[j], NULL, 10) - 1);

      task = g_strdup_printf ("Take this month's rows from the tables of the steps it needs, "
                              "drop the rows without an amount, and add up the amounts by "
                              "region. Step %u's total goes into the report.", i);
      sk_node_set_input_text (node, task);
      sk_node_set_output_text (node, "Adds up this month's rows of the earlier steps.\n"
                               "1204 rows, total 88213.50\n");
      sk_node_set_position (node, 40.0 * i, 80.0 * (i % 7));

      script = g_strdup_printf (script_template, name, sk_node_get_key (node), prior_keys->str);
      relative = g_strdup_printf ("%s/%s.py", sk_node_get_key (node), sk_node_get_key (node));
      sk_test_write_text (folder, relative, script);

      if (!sk_project_add_node (project, node, &error))
        g_error ("Could not add a step: %s", error->message);
    }

  return project;
}

int
main (int   argc,
      char *argv[])
{
  static const SkAgentContextScope scopes[] = { SK_AGENT_CONTEXT_BLANKET, SK_AGENT_CONTEXT_TWO_HOP, SK_AGENT_CONTEXT_FULL };

  g_print ("Context given to the coding agent, mean over all steps of a workflow\n");
  g_print ("(every step has a ~40-line script and a task; bytes of Markdown)\n\n");
  g_print ("%6s | %10s %10s %10s | %7s %7s %7s | %8s %9s | %6s\n",
           "steps", "blanket B", "two-hop B", "full B",
           "blk n", "2hop n", "full n", "blk/full", "2hop/full", "ms");
  g_print ("-------+----------------------------------+-------------------------+"
           "--------------------+-------\n");

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autofree char *folder = sk_test_make_tmp_dir ("bench-context");
      g_autoptr(SkProject) project = make_workflow (folder, sizes[s]);
      double bytes[G_N_ELEMENTS (scopes)] = { 0 };
      double nodes[G_N_ELEMENTS (scopes)] = { 0 };
      guint n_nodes = sk_project_get_n_nodes (project);
      gint64 start = g_get_monotonic_time ();
      double ms;

      for (guint i = 0; i < n_nodes; i++)
        {
          g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

          for (guint k = 0; k < G_N_ELEMENTS (scopes); k++)
            {
              g_autoptr(GError) error = NULL;
              g_autofree char *text = sk_agent_context_build (project, node, scopes[k], &error);
              g_autoptr(GPtrArray) included = sk_agent_context_nodes (project, node, scopes[k]);

              if (text == NULL)
                g_error ("Could not build a context: %s", error->message);

              bytes[k] += strlen (text);
              nodes[k] += included->len;
            }
        }

      /* Per context built, all three scopes together. */
      ms = (g_get_monotonic_time () - start) / 1000.0 / (n_nodes * G_N_ELEMENTS (scopes));

      for (guint k = 0; k < G_N_ELEMENTS (scopes); k++)
        {
          bytes[k] /= n_nodes;
          nodes[k] /= n_nodes;
        }

      g_print ("%6u | %10.0f %10.0f %10.0f | %7.1f %7.1f %7.1f | %8.3f %9.3f | %6.2f\n",
               n_nodes, bytes[0], bytes[1], bytes[2], nodes[0], nodes[1], nodes[2],
               bytes[0] / bytes[2], bytes[1] / bytes[2], ms);

      sk_test_remove_tree (folder);
    }

  g_print ("\n\"n\" counts the steps in a context, the target included; \"ms\" is the mean\n"
           "time to build one context (and list its steps), scripts read from disk.\n");

  return 0;
}
