/* fake-llm-main.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * skele-fake-llm: serves a scenario file on 127.0.0.1 until interrupted, so
 * that a person can point curl or the app at a scripted LLM.
 */

#define G_LOG_DOMAIN "skele-fake-llm"

#include <stdio.h>

#include <glib-unix.h>

#include "sk-fake-llm.h"

static gboolean
quit_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);

  return G_SOURCE_REMOVE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) files = NULL;
  g_auto(GStrv) scenarios = NULL;
  gboolean once = FALSE;
  gboolean list = FALSE;
  gint port = 0;
  SkFakeLlm *fake;
  const GOptionEntry entries[] = {
    { "port", 'p', 0, G_OPTION_ARG_INT, &port,
      "Port on 127.0.0.1 (default: any free port)", "PORT" },
    { "scenario", 's', 0, G_OPTION_ARG_STRING_ARRAY, &scenarios,
      "Queue a built-in scenario (repeatable)", "NAME" },
    { "once", 0, 0, G_OPTION_ARG_NONE, &once,
      "Serve each response once instead of cycling through the queue", NULL },
    { "list", 'l', 0, G_OPTION_ARG_NONE, &list, "List the built-in scenarios and exit", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "[SCENARIO.json…]" },
    { NULL }
  };

  options = g_option_context_new ("- serve scripted LLM responses on 127.0.0.1");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }

  if (list)
    {
      const char * const *names = sk_fake_llm_get_builtin_scenarios ();

      for (guint i = 0; names[i] != NULL; i++)
        g_print ("%s\n", names[i]);
      return 0;
    }

  if (port < 0 || port > G_MAXUINT16)
    {
      g_printerr ("Invalid port %d\n", port);
      return 2;
    }

  fake = sk_fake_llm_new_on_port (port, &error);
  if (fake == NULL)
    {
      g_printerr ("Cannot listen on 127.0.0.1:%d: %s\n", port, error->message);
      return 1;
    }

  for (guint i = 0; files != NULL && files[i] != NULL; i++)
    if (!sk_fake_llm_load_scenario_file (fake, files[i], &error))
      {
        g_printerr ("%s: %s\n", files[i], error->message);
        sk_fake_llm_free (fake);
        return 1;
      }
  for (guint i = 0; scenarios != NULL && scenarios[i] != NULL; i++)
    if (!sk_fake_llm_push (fake, scenarios[i], &error))
      {
        g_printerr ("%s\n", error->message);
        sk_fake_llm_free (fake);
        return 1;
      }
  if (sk_fake_llm_get_n_pending (fake) == 0 && !sk_fake_llm_push (fake, "plain-text", &error))
    g_assert_not_reached ();
  sk_fake_llm_set_recycle (fake, !once);

  g_print ("OpenAI-compatible: %s\n", sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_OPENAI));
  g_print ("Ollama, Anthropic: %s\n", sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_OLLAMA));
  g_print ("%u response(s) queued; Ctrl+C stops.\n", sk_fake_llm_get_n_pending (fake));
  fflush (stdout);

  loop = g_main_loop_new (NULL, FALSE);
  g_unix_signal_add (SIGINT, quit_cb, loop);
  g_unix_signal_add (SIGTERM, quit_cb, loop);
  g_main_loop_run (loop);

  g_print ("%u request(s) served.\n", sk_fake_llm_get_n_requests (fake));
  sk_fake_llm_free (fake);

  return 0;
}
