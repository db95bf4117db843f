/* test-chat-context.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include "sk-chat-context.h"
#include "sk-prompt-template.h"
#include "sk-prompts.h"
#include "sk-test-util.h"

typedef struct
{
  char      *folder;
  SkProject *project;
} Fixture;

static SkNode *
add_step (SkProject          *project,
          const char         *id,
          const char         *name,
          const char         *task,
          const char * const *priors)
{
  g_autoptr(SkNode) node = sk_node_new (id, name);
  g_autoptr(GError) error = NULL;

  sk_node_set_input_text (node, task);
  if (priors != NULL)
    sk_node_set_priors (node, priors);
  g_assert_true (sk_project_add_node (project, node, &error));
  g_assert_no_error (error);

  return node;
}

/* Three steps, saved out of order: the report first, then the loading and
 * the cleaning, so that the outline must put each after its priors. */
static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GFile) folder = NULL;
  SkNode *node;

  fixture->folder = sk_test_make_tmp_dir ("chat-context");
  folder = g_file_new_for_path (fixture->folder);
  fixture->project = sk_project_new (folder);
  sk_project_set_name (fixture->project, "Sales report");
  sk_project_set_description (fixture->project, "Turns the monthly sales files into a report.");

  node = add_step (fixture->project, "3", "Report", "Plot the totals per region.", SK_TEST_STRV ("2"));
  sk_node_set_run (node, FALSE);
  add_step (fixture->project, "1", "Load data",
            "Read sales.csv from the shared folder.\nUse the second sheet.", NULL);
  node = add_step (fixture->project, "2", "Clean", "Drop the empty rows.", SK_TEST_STRV ("1"));
  sk_node_set_state (node, SK_NODE_STATE_FAILED);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->project);
  sk_test_remove_tree (fixture->folder);
  g_free (fixture->folder);
}

static void
test_outline_exact (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(GPtrArray) selected = g_ptr_array_new ();
  g_autofree char *outline = NULL;

  g_ptr_array_add (selected, sk_project_get_node (fixture->project, "2"));
  g_ptr_array_add (selected, sk_project_get_node (fixture->project, "3"));
  outline = sk_chat_context_outline (fixture->project, selected);

  g_assert_cmpstr (outline, ==,
                   "Process: Sales report\n"
                   "Description: Turns the monthly sales files into a report.\n"
                   "Steps (3), each after its priors: id key “name” run|off state priors=ids task: first line\n"
                   "1 load_data “Load data” run idle priors=- task: Read sales.csv from the shared folder. …\n"
                   "2 clean “Clean” run failed priors=1 task: Drop the empty rows.\n"
                   "3 report “Report” off idle priors=2 task: Plot the totals per region.\n"
                   "Selected: 2 clean, 3 report\n");
}

static void
test_outline_no_selection (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(GPtrArray) empty = g_ptr_array_new ();
  g_autofree char *without = sk_chat_context_outline (fixture->project, NULL);
  g_autofree char *with_empty = sk_chat_context_outline (fixture->project, empty);

  g_assert_true (g_str_has_suffix (without, "\nSelected: none\n"));
  g_assert_cmpstr (without, ==, with_empty);
}

/* Steps come after their priors, ties in the file's order; the order is
 * the same every time the outline is made. */
static void
test_outline_order (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  const char *load;
  const char *clean;
  const char *report;
  const char *extra;

  add_step (fixture->project, "4", "Extra", "Count the rows.", SK_TEST_STRV ("1"));
  first = sk_chat_context_outline (fixture->project, NULL);
  second = sk_chat_context_outline (fixture->project, NULL);
  g_assert_cmpstr (first, ==, second);

  load = strstr (first, "\n1 load_data ");
  clean = strstr (first, "\n2 clean ");
  report = strstr (first, "\n3 report ");
  extra = strstr (first, "\n4 extra ");
  g_assert_nonnull (load);
  g_assert_nonnull (clean);
  g_assert_nonnull (report);
  g_assert_nonnull (extra);
  g_assert_true (load < clean);
  g_assert_true (clean < report);
  g_assert_true (clean < extra);
}

/* A workflow with a cycle has no order, but the model still sees every
 * step, in the file's order. */
static void
test_outline_cycle (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autofree char *outline = NULL;

  sk_node_add_prior (sk_project_get_node (fixture->project, "1"), "3");
  outline = sk_chat_context_outline (fixture->project, NULL);

  sk_test_assert_contains (outline, "Steps (3)");
  g_assert_true (strstr (outline, "\n3 report ") < strstr (outline, "\n1 load_data "));
  g_assert_true (strstr (outline, "\n1 load_data ") < strstr (outline, "\n2 clean "));
  sk_test_assert_contains (outline, "\n1 load_data “Load data” run idle priors=3 task: ");
}

static void
test_outline_long_task (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GString) task = g_string_new (NULL);
  g_autofree char *outline = NULL;
  g_auto(GStrv) lines = NULL;
  const char *line = NULL;

  /* Two hundred characters, some of them outside ASCII, so that the cut
   * counts characters and never splits one. */
  for (guint i = 0; i < 40; i++)
    g_string_append (task, "été, ");
  add_step (fixture->project, "4", "Long", task->str, NULL);
  add_step (fixture->project, "5", "Empty", "", NULL);

  outline = sk_chat_context_outline (fixture->project, NULL);
  g_assert_true (g_utf8_validate (outline, -1, NULL));
  lines = g_strsplit (outline, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "4 long "))
      line = lines[i];
  g_assert_nonnull (line);

  line = strstr (line, "task: ") + strlen ("task: ");
  g_assert_cmpuint (g_utf8_strlen (line, -1), <=, SK_CHAT_CONTEXT_TASK_CHARS);
  g_assert_true (g_str_has_suffix (line, "…"));
  g_assert_true (g_str_has_prefix (line, "été, été, "));
  sk_test_assert_contains (outline, "\n5 empty “Empty” run idle priors=- task: -\n");
}

static void
test_step_details (Fixture       *fixture,
                   gconstpointer  data)
{
  SkNode *node = sk_project_get_node (fixture->project, "2");
  g_autofree char *details = NULL;
  g_autofree char *plain = NULL;

  sk_node_set_output_text (node, "Dropped 12 empty rows.");
  sk_node_set_output_files (node, SK_TEST_STRV ("clean/clean.csv", "clean/chart.png"));
  sk_node_set_error (node, "The script failed.", "KeyError: 'region'");
  details = sk_chat_context_step_details (fixture->project, node);

  g_assert_true (g_str_has_prefix (details, "Step 2 “Clean” (key clean)\nState: failed ("));
  sk_test_assert_contains (details, "\nJSON:\n{\n");
  sk_test_assert_contains (details, "\"name\" : \"Clean\"");
  sk_test_assert_contains (details, "\"text\" : \"Drop the empty rows.\"");
  sk_test_assert_contains (details, "\nReport:\nDropped 12 empty rows.\n");
  sk_test_assert_contains (details, "\nFiles:\nclean/clean.csv\nclean/chart.png\n");
  sk_test_assert_contains (details, "\nLast error:\nThe script failed.\nKeyError: 'region'\n");

  /* A step that never ran says so rather than leaving sections empty. */
  plain = sk_chat_context_step_details (fixture->project, sk_project_get_node (fixture->project, "1"));
  sk_test_assert_contains (plain, "State: idle (");
  sk_test_assert_contains (plain, "\nReport:\n(none)\n");
  sk_test_assert_contains (plain, "\nFiles:\n(none)\n");
  sk_test_assert_contains (plain, "\nLast error:\n(none)\n");
}

/* The chat agent's prompt is built in, takes the outline and the
 * selection, and names every tool of the design document exactly. */
static void
test_prompt (void)
{
  static const char * const tools[] = {
    "list_steps", "get_step", "read_code", "read_log", "add_step",
    "remove_step", "rename_step", "set_task", "set_description", "connect",
    "disconnect", "set_run", "set_process", "finish", NULL
  };
  g_autoptr(GHashTable) values = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GError) error = NULL;
  g_autofree char *template_text = NULL;
  g_autofree char *full = NULL;
  g_autofree char *minimal = NULL;
  g_auto(GStrv) tags = NULL;

  g_assert_true (g_strv_contains (sk_prompts_list (), "chat-agent"));
  template_text = sk_prompts_load ("chat-agent", &error);
  g_assert_no_error (error);
  tags = sk_prompt_template_get_tags (template_text, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (tags), ==, 4);
  g_assert_true (g_strv_contains ((const char * const *) tags, "outline"));
  g_assert_true (g_strv_contains ((const char * const *) tags, "selection"));
  g_assert_true (g_strv_contains ((const char * const *) tags, "text_tools"));
  g_assert_true (g_strv_contains ((const char * const *) tags, "max_steps"));

  g_hash_table_insert (values, "outline", "<OUTLINE>");
  minimal = sk_prompts_render ("chat-agent", values, &error);
  g_assert_no_error (error);
  g_hash_table_insert (values, "selection", "<SELECTION>");
  full = sk_prompts_render ("chat-agent", values, &error);
  g_assert_no_error (error);

  sk_test_assert_contains (minimal, "<OUTLINE>");
  g_assert_null (strstr (minimal, "<SELECTION>"));
  sk_test_assert_contains (full, "<SELECTION>");
  g_assert_null (strstr (full, "\n\n\n"));
  g_assert_null (strstr (minimal, "\n\n\n"));
  for (guint i = 0; tools[i] != NULL; i++)
    {
      g_autofree char *quoted = g_strdup_printf ("`%s {", tools[i]);

      sk_test_assert_contains (full, quoted);
    }
  sk_test_assert_contains (full, "`get_step {\"step\"}`");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/chat-context/outline/exact", test_outline_exact);
  ADD ("/chat-context/outline/no-selection", test_outline_no_selection);
  ADD ("/chat-context/outline/order", test_outline_order);
  ADD ("/chat-context/outline/cycle", test_outline_cycle);
  ADD ("/chat-context/outline/long-task", test_outline_long_task);
  ADD ("/chat-context/step-details", test_step_details);
#undef ADD
  g_test_add_func ("/chat-context/prompt", test_prompt);

  return g_test_run ();
}
