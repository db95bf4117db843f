/* bench-chat-context.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Figures, not a test: how much smaller the outline the chat agent sees is
 * than the workflow it stands for (process.json and every step's script),
 * for generated workflows of 10, 50 and 200 steps whose every step has a
 * task of a few sentences and a ~60-line script on disk; then what a
 * scripted five-turn conversation sends to the model, through the same
 * session, agent and HTTP client the window uses, against a fake server.
 */

#define G_LOG_DOMAIN "bench-chat-context"

#include <string.h>

#include <gio/gio.h>

#include "sk-chat-context.h"
#include "sk-chat-session.h"
#include "sk-fake-llm.h"
#include "sk-test-util.h"

#define SEED 20260301
#define WINDOW 8

static const guint sizes[] = { 10, 50, 200 };

/* A script in the shape of the node contract, about 60 lines. */
static const char script_template[] =
  "\"\"\"Step %s of the generated workflow.\n"
  "\n"
  "Reads the priors' tables, keeps the rows of this month, drops the rows\n"
  "without an amount and adds the amounts up by region.\n"
  "\"\"\"\n"
  "\n"
  "import csv\n"
  "import datetime\n"
  "import os\n"
  "import pickle\n"
  "\n"
  "KEY = \"%s\"\n"
  "PRIORS = [%s]\n"
  "state = {}\n"
  "\n"
  "\n"
  "def this_month(row):\n"
  "    day = datetime.date.fromisoformat(row.get(\"date\", \"1970-01-01\"))\n"
  "    today = datetime.date.today()\n"
  "    return day.year == today.year and day.month == today.month\n"
  "\n"
  "\n"
  "def preprocess(prior_outputs):\n"
  "    with open(KEY + \"_summary.txt\", \"w\") as f:\n"
  "        f.write(\"Adds up this month's rows of the earlier steps by region.\\n\")\n"
  "    rows = []\n"
  "    for key in PRIORS:\n"
  "        output = prior_outputs.get(key, {})\n"
  "        if output.get(\"task_status\") != \"success\":\n"
  "            with open(KEY + \"_summary.txt\", \"a\") as f:\n"
  "                f.write(\"The step %%s gave nothing.\\n\" %% key)\n"
  "            return False\n"
  "        rows.extend(output.get(\"rows\", []))\n"
  "    state[\"local\"] = {\"rows\": [r for r in rows if this_month(r)]}\n"
  "    return True\n"
  "\n"
  "\n"
  "def compute():\n"
  "    totals = {}\n"
  "    kept = []\n"
  "    for row in state[\"local\"][\"rows\"]:\n"
  "        if row.get(\"amount\") in (None, \"\"):\n"
  "            continue\n"
  "        region = row.get(\"region\", \"unknown\")\n"
  "        totals[region] = totals.get(region, 0.0) + float(row[\"amount\"])\n"
  "        kept.append(row)\n"
  "    with open(KEY + \"_totals.csv\", \"w\", newline=\"\") as f:\n"
  "        writer = csv.writer(f)\n"
  "        writer.writerow([\"region\", \"total\"])\n"
  "        for region, total in sorted(totals.items()):\n"
  "            writer.writerow([region, \"%%.2f\" %% total])\n"
  "    with open(KEY + \"_summary.txt\", \"a\") as f:\n"
  "        f.write(\"%%d rows in %%d regions\\n\" %% (len(kept), len(totals)))\n"
  "    state[\"output\"] = {\"task_status\": \"success\", \"rows\": kept, \"totals\": totals}\n"
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

/* A workflow of @n_nodes steps in @folder, saved, with a script per step.
 * Each step after the first needs one to three earlier steps, mostly among
 * the WINDOW before it. Returns the bytes of process.json and the scripts.
 */
static SkProject *
make_workflow (const char *folder,
               guint       n_nodes,
               gsize      *workflow_bytes)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (SEED + n_nodes);
  g_autoptr(GFile) file = g_file_new_for_path (folder);
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  SkProject *project = sk_project_new (file);
  gsize bytes = 0;

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

      task = g_strdup_printf ("Take this month's rows from the tables of the steps it needs and "
                              "drop the rows without an amount.\n"
                              "Add up the amounts by region and write them to a table, one row "
                              "per region, sorted by name. Step %u's totals go into the report; "
                              "say in the summary how many rows were dropped and why.", i);
      sk_node_set_input_text (node, task);
      sk_node_set_description (node, "Amounts are in euros; regions are spelt as in the export.");
      sk_node_set_output_text (node, "Adds up this month's rows of the earlier steps by region.\n"
                               "1204 rows in 7 regions\n");
      sk_node_set_position (node, 40.0 * i, 80.0 * (i % 7));

      script = g_strdup_printf (script_template, name, sk_node_get_key (node), prior_keys->str);
      relative = g_strdup_printf ("%s/%s.py", sk_node_get_key (node), sk_node_get_key (node));
      sk_test_write_text (folder, relative, script);
      bytes += strlen (script);

      if (!sk_project_add_node (project, node, &error))
        g_error ("Could not add a step: %s", error->message);
    }

  if (!sk_project_save (project, &error))
    g_error ("Could not save the workflow: %s", error->message);
  saved = sk_test_read_text (folder, SK_PROJECT_FILE_NAME);
  bytes += strlen (saved);

  *workflow_bytes = bytes;
  return project;
}

/* The person's five messages, and what the model does for each: one or
 * more replies, each a tool call, as JSON arguments. */
typedef struct
{
  const char *message;
  const char *calls[4][2];
} Turn;

static const Turn turns[] = {
  { "What does this workflow do, in two sentences?",
    { { "finish", "{\"summary\":\"It reads the sales exports, cleans them and adds them up by region.\"}" } } },
  { "Why did step 3 fail?",
    { { "get_step", "{\"step\":\"3\"}" },
      { "read_code", "{\"step\":\"3\"}" },
      { "finish", "{\"summary\":\"It found no rows for this month; the export is from last month.\"}" } } },
  { "Add a step that draws a bar chart of step 5's totals.",
    { { "add_step", "{\"name\":\"chart totals\",\"task\":\"Draw a bar chart of the totals.\",\"priors\":[\"5\"]}" },
      { "finish", "{\"summary\":\"I propose a chart step after step 5.\"}" } } },
  { "Call it monthly chart instead.",
    { { "rename_step", "{\"step\":\"chart_totals\",\"name\":\"monthly chart\"}" },
      { "finish", "{\"summary\":\"Renamed in the proposal.\"}" } } },
  { "And leave step 2 out of the runs.",
    { { "set_run", "{\"step\":\"2\",\"run\":false}" },
      { "finish", "{\"summary\":\"Step 2 would no longer run.\"}" } } },
};

static void
send_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *reply = NULL;

  reply = sk_chat_session_send_finish (SK_CHAT_SESSION (object), result, NULL, NULL, &error);
  if (reply == NULL)
    g_error ("The turn failed: %s", error->message);
  *done = TRUE;
}

/* Runs the five turns on a workflow of @n_nodes steps and prints, per
 * turn, the bytes of the requests and the same with the whole workflow in
 * place of the outline. */
static void
measure_conversation (guint n_nodes)
{
  g_autofree char *folder = sk_test_make_tmp_dir ("bench-chat-turns");
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkWorkspace) workspace = NULL;
  g_autoptr(SkChatSession) session = NULL;
  g_autofree char *outline = NULL;
  SkFakeLlm *fake = sk_fake_llm_new ();
  gsize workflow_bytes = 0;
  guint64 sent_total = 0, whole_total = 0;
  guint seen = 0;

  project = make_workflow (folder, n_nodes, &workflow_bytes);
  outline = sk_chat_context_outline (project, NULL);
  workspace = sk_workspace_new (project, NULL);
  session = sk_chat_session_new (workspace);

  g_setenv ("SKELE_LLM_PROVIDER", "openai", TRUE);
  g_setenv ("SKELE_LLM_BASE_URL", sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_OPENAI), TRUE);
  g_setenv ("SKELE_LLM_MODEL", "bench", TRUE);
  g_setenv ("SKELE_LLM_API_KEY", "bench", TRUE);

  for (guint t = 0; t < G_N_ELEMENTS (turns); t++)
    {
      g_autoptr(GPtrArray) requests = NULL;
      guint64 sent = 0, whole = 0;
      gboolean done = FALSE;
      guint n_requests;

      for (guint c = 0; c < G_N_ELEMENTS (turns[t].calls) && turns[t].calls[c][0] != NULL; c++)
        {
          g_autoptr(GError) error = NULL;
          g_autofree char *escaped = g_strescape (turns[t].calls[c][1], NULL);
          g_autofree char *json = g_strdup_printf ("{\"parts\":[{\"tool_call\":{\"id\":\"call_%u_%u\","
                                                   "\"name\":\"%s\",\"arguments\":[\"%s\"]}}]}",
                                                   t, c, turns[t].calls[c][0], escaped);

          if (!sk_fake_llm_push_json (fake, json, &error))
            g_error ("Bad scenario: %s", error->message);
        }

      sk_chat_session_send_async (session, turns[t].message, NULL, NULL, send_done_cb, &done);
      while (!done)
        g_main_context_iteration (NULL, TRUE);

      requests = sk_fake_llm_dup_requests (fake);
      n_requests = requests->len - seen;
      for (guint r = seen; r < requests->len; r++)
        {
          SkFakeLlmRequest *request = g_ptr_array_index (requests, r);
          gsize bytes = g_bytes_get_size (request->body);

          sent += bytes;
          whole += bytes - strlen (outline) + workflow_bytes;
        }
      seen = requests->len;
      sent_total += sent;
      whole_total += whole;

      g_print ("%6u | %4u | %8u | %10" G_GUINT64_FORMAT " | %9" G_GUINT64_FORMAT " | %12" G_GUINT64_FORMAT " | %8.3f\n",
               n_nodes, t + 1, n_requests, sent, sent / 4, whole, (double) sent / whole);
    }

  g_print ("%6u | %4s | %8s | %10" G_GUINT64_FORMAT " | %9" G_GUINT64_FORMAT " | %12" G_GUINT64_FORMAT " | %8.3f\n",
           n_nodes, "all", "", sent_total, sent_total / 4, whole_total, (double) sent_total / whole_total);

  sk_fake_llm_free (fake);
  sk_test_remove_tree (folder);
}

int
main (int   argc,
      char *argv[])
{
  g_print ("The chat agent's outline against the workflow it stands for\n");
  g_print ("(every step has a ~60-line script and a task of a few sentences; bytes)\n\n");
  g_print ("%6s | %10s | %12s | %8s | %6s\n",
           "steps", "outline B", "workflow B", "ratio", "ms");
  g_print ("-------+------------+--------------+----------+-------\n");

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autofree char *folder = sk_test_make_tmp_dir ("bench-chat-context");
      g_autoptr(GPtrArray) selected = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr(SkProject) project = NULL;
      g_autofree char *outline = NULL;
      gsize workflow_bytes = 0;
      gint64 start;
      double ms;

      project = make_workflow (folder, sizes[s], &workflow_bytes);
      g_ptr_array_add (selected, g_list_model_get_item (G_LIST_MODEL (project), 0));

      start = g_get_monotonic_time ();
      outline = sk_chat_context_outline (project, selected);
      ms = (g_get_monotonic_time () - start) / 1000.0;

      g_print ("%6u | %10zu | %12zu | %8.3f | %6.2f\n",
               sizes[s], strlen (outline), workflow_bytes,
               (double) strlen (outline) / workflow_bytes, ms);

      sk_test_remove_tree (folder);
    }

  g_print ("\n\"workflow\" is process.json plus every step's script; \"ratio\" is the\n"
           "outline's share of it; \"ms\" is the time to build the outline once.\n");

  g_print ("\nA scripted five-turn conversation: a question, a failure explained (3 replies),\n"
           "a step added, renamed, and another left out of runs (2 replies each)\n\n");
  g_print ("%6s | %4s | %8s | %10s | %9s | %12s | %8s\n",
           "steps", "turn", "requests", "sent B", "~tokens", "if whole B", "ratio");
  g_print ("-------+------+----------+------------+-----------+--------------+----------\n");
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    measure_conversation (sizes[s]);

  g_print ("\n\"sent\" is the bytes of the HTTP request bodies of the turn (system prompt\n"
           "with the outline, the conversation so far, the tools and their results);\n"
           "\"~tokens\" is sent / 4, a rough count for English and JSON; \"if whole\" is the\n"
           "same requests with process.json and every script in place of the outline.\n");

  return 0;
}
