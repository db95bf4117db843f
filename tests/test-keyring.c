/* test-keyring.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The API key in a real desktop keyring: meson runs this test through
 * keyring-session.sh, which gives it a gnome-keyring-daemon of its own on a
 * private session bus. The key is kept, looked up, replaced and removed with
 * the functions the Preferences window and the agent use, and checked with
 * secret-tool, as a user would. A locked keyring and a missing one must be
 * reported in plain words, at once.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "sk-agent-key.h"
#include "sk-agent-settings.h"
#include "sk-settings.h"
#include "sk-test-util.h"

#define SERVER "http://127.0.0.1:8080/v1"

/* Every answer comes back within this many seconds; nothing here may wait
 * for a prompt or for D-Bus's own 25-second timeout. */
#define QUICK_SECONDS 10

static const char *keyring_missing;

static void
async_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static GAsyncResult *
wait_for_result (GAsyncResult **result)
{
  SK_TEST_WAIT_UNTIL (*result != NULL, QUICK_SECONDS * 1000);
  return *result;
}

static gboolean
need_keyring (void)
{
  if (g_getenv ("SKELE_TEST_KEYRING_SESSION") != NULL)
    return TRUE;

  g_test_skip (keyring_missing);
  return FALSE;
}

/* The ways the Preferences window keeps and removes the key. */
static gboolean
store_key (SkLlmProvider   provider,
           const char     *base_url,
           const char     *api_key,
           GError        **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sk_agent_key_store_async (provider, base_url, api_key, NULL, async_done_cb, &result);
  return sk_agent_key_store_finish (wait_for_result (&result), error);
}

static gboolean
clear_key (SkLlmProvider   provider,
           const char     *base_url,
           GError        **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sk_agent_key_clear_async (provider, base_url, NULL, async_done_cb, &result);
  return sk_agent_key_clear_finish (wait_for_result (&result), error);
}

/* The window and a run ask without blocking, skele blocking; both must
 * agree. */
static char *
lookup_key (SkLlmProvider   provider,
            const char     *base_url,
            GError        **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) sync_error = NULL;
  g_autofree char *sync_key = NULL;
  char *key;

  sk_agent_key_lookup_async (provider, base_url, NULL, async_done_cb, &result);
  key = sk_agent_key_lookup_finish (wait_for_result (&result), error);

  sync_key = sk_agent_key_lookup_sync (provider, base_url, NULL, &sync_error);
  g_assert_cmpstr (sync_key, ==, key);
  g_assert_true ((sync_error == NULL) == (error == NULL || *error == NULL));
  if (sync_error != NULL)
    g_assert_cmpstr (sync_error->message, ==, (*error)->message);

  return key;
}

/* Runs secret-tool with @args and returns what it printed, or %NULL when it
 * failed, as it does when it finds nothing. */
static char *
secret_tool (const char * const *args,
             const char         *input)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *output = NULL;

  g_ptr_array_add (argv, (gpointer) "secret-tool");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  process = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDIN_PIPE |
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                               G_SUBPROCESS_FLAGS_STDERR_MERGE,
                               &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, input, NULL, &output, NULL, &error);
  g_assert_no_error (error);

  if (!g_subprocess_get_successful (process))
    {
      g_test_message ("secret-tool failed: %s", output);
      return NULL;
    }

  return g_steal_pointer (&output);
}

/* A message for the user: what happened and what to do, without the
 * D-Bus error it came from. */
static void
assert_plain_message (const GError *error,
                      const char   *what_happened)
{
  g_assert_nonnull (error);
  g_test_message ("The user reads: %s", error->message);
  g_assert_false (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  sk_test_assert_contains (error->message, what_happened);
  sk_test_assert_contains (error->message, "SKELE_LLM_API_KEY");
  g_assert_null (strstr (error->message, "GDBus"));
  g_assert_null (strstr (error->message, "org.freedesktop"));
  g_assert_null (strstr (error->message, "Could not connect"));
  g_assert_null (strstr (error->message, "/nonexistent"));
}

static void
test_store_lookup_replace_delete (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  g_autofree char *other = NULL;
  gboolean ok;

  if (!need_keyring ())
    return;

  key = lookup_key (SK_LLM_PROVIDER_OPENAI, SERVER, &error);
  g_assert_no_error (error);
  g_assert_null (key);

  /* A trailing slash names the same server. */
  ok = store_key (SK_LLM_PROVIDER_OPENAI, SERVER "/", "sk-first", &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  key = lookup_key (SK_LLM_PROVIDER_OPENAI, SERVER, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (key, ==, "sk-first");
  g_clear_pointer (&key, g_free);

  /* Keys are kept per provider and per server. */
  other = lookup_key (SK_LLM_PROVIDER_ANTHROPIC, SERVER, &error);
  g_assert_no_error (error);
  g_assert_null (other);
  other = lookup_key (SK_LLM_PROVIDER_OPENAI, "http://127.0.0.1:9090/v1", &error);
  g_assert_no_error (error);
  g_assert_null (other);

  ok = store_key (SK_LLM_PROVIDER_OPENAI, SERVER, "sk-second", &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  key = lookup_key (SK_LLM_PROVIDER_OPENAI, SERVER "/", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (key, ==, "sk-second");
  g_clear_pointer (&key, g_free);

  ok = clear_key (SK_LLM_PROVIDER_OPENAI, SERVER, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  key = lookup_key (SK_LLM_PROVIDER_OPENAI, SERVER, &error);
  g_assert_no_error (error);
  g_assert_null (key);

  /* Removing a key that is not there is no error. */
  ok = clear_key (SK_LLM_PROVIDER_OPENAI, SERVER, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

/* What we keep is what a user finds with secret-tool or Passwords and Keys:
 * one item, under the schema's name and attributes, with a readable label. */
static void
test_seen_by_secret_tool (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *found = NULL;
  g_autofree char *key = NULL;
  g_auto(GStrv) lines = NULL;
  guint items = 0;
  gboolean ok;

  if (!need_keyring ())
    return;

  ok = store_key (SK_LLM_PROVIDER_ANTHROPIC, NULL, "sk-old", &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  ok = store_key (SK_LLM_PROVIDER_ANTHROPIC, NULL, "sk-for-anthropic", &error);
  g_assert_no_error (error);
  g_assert_true (ok);

  found = secret_tool (SK_TEST_STRV ("lookup",
                                     "provider", "anthropic",
                                     "base-url", "https://api.anthropic.com"),
                       NULL);
  g_assert_cmpstr (found, ==, "sk-for-anthropic");
  g_clear_pointer (&found, g_free);

  found = secret_tool (SK_TEST_STRV ("search", "--all", "--unlock",
                                     "xdg:schema", "io.github.skelecode.SkeleCode.ApiKey"),
                       NULL);
  g_assert_nonnull (found);
  g_test_message ("secret-tool search:\n%s", found);
  sk_test_assert_contains (found, "label = Skele-Code API key for https://api.anthropic.com\n");
  sk_test_assert_contains (found, "secret = sk-for-anthropic\n");
  sk_test_assert_contains (found, "attribute.provider = anthropic\n");
  sk_test_assert_contains (found, "attribute.base-url = https://api.anthropic.com\n");
  g_assert_null (strstr (found, "sk-old"));

  /* The replaced key left no item of its own behind. */
  lines = g_strsplit (found, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "secret = "))
      items++;
  g_assert_cmpuint (items, ==, 1);
  g_clear_pointer (&found, g_free);

  /* A key that the user removes is gone for us too. */
  found = secret_tool (SK_TEST_STRV ("clear",
                                     "provider", "anthropic",
                                     "base-url", "https://api.anthropic.com"),
                       NULL);
  g_assert_nonnull (found);
  key = lookup_key (SK_LLM_PROVIDER_ANTHROPIC, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (key);
}

/* The agent, in the window's runs and in skele, reads the key that the
 * Preferences window kept for the server the settings name. */
static void
test_agent_settings (void)
{
  g_autoptr(GSettings) gsettings = NULL;
  g_autoptr(SkAgentSettings) settings = NULL;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (!need_keyring ())
    return;

  gsettings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  g_settings_set_string (gsettings, "llm-provider", "openai");
  g_settings_set_string (gsettings, "llm-base-url", SERVER "/");

  ok = store_key (SK_LLM_PROVIDER_OPENAI, SERVER, "sk-for-the-agent", &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  ok = store_key (SK_LLM_PROVIDER_OLLAMA, NULL, "sk-for-ollama", &error);
  g_assert_no_error (error);
  g_assert_true (ok);

  settings = sk_agent_settings_load (gsettings, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (settings->api_key, ==, "sk-for-the-agent");

  /* skele --provider: the other server's key, never this one's. */
  g_assert_true (sk_agent_settings_override (settings, "ollama", NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (settings->api_key, ==, "sk-for-ollama");
  g_assert_true (sk_agent_settings_override (settings, "anthropic", NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (settings->api_key);
  g_clear_pointer (&settings, sk_agent_settings_free);

  settings = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_null (settings->api_key);

  ok = clear_key (SK_LLM_PROVIDER_OPENAI, SERVER, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  ok = clear_key (SK_LLM_PROVIDER_OLLAMA, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

/* Every way of using the keyring gives @what_happened quickly. */
static void
assert_every_call_fails (const char *what_happened)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  gint64 start;

  start = g_get_monotonic_time ();
  key = lookup_key (SK_LLM_PROVIDER_OPENAI, SERVER, &error);
  g_assert_null (key);
  assert_plain_message (error, what_happened);
  g_clear_error (&error);

  g_assert_false (store_key (SK_LLM_PROVIDER_OPENAI, SERVER, "sk-new", &error));
  assert_plain_message (error, what_happened);
  g_clear_error (&error);

  g_assert_false (clear_key (SK_LLM_PROVIDER_OPENAI, SERVER, &error));
  assert_plain_message (error, what_happened);
  g_clear_error (&error);

  g_assert_cmpint (g_get_monotonic_time () - start, <, QUICK_SECONDS * G_USEC_PER_SEC);
}

/* As on a server, or in a session without a bus: a path that does not exist
 * also stops GDBus from launching a bus of its own. */
static void
test_no_bus (void)
{
  g_autofree char *saved = NULL;

  if (g_test_subprocess ())
    {
      assert_every_call_fails ("keyring is not available");
      return;
    }

  saved = g_strdup (g_getenv ("DBUS_SESSION_BUS_ADDRESS"));
  g_setenv ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/skele-test-bus", TRUE);
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  if (saved != NULL)
    g_setenv ("DBUS_SESSION_BUS_ADDRESS", saved, TRUE);
  else
    g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");

  g_test_trap_assert_passed ();
}

/* A session bus on which nothing provides the Secret Service and nothing can
 * be started to provide it, as on a desktop without a keyring. */
static const char bus_config[] =
  "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
  " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
  "<busconfig>\n"
  "  <type>session</type>\n"
  "  <listen>unix:dir=@DIR@</listen>\n"
  "  <auth>EXTERNAL</auth>\n"
  "  <policy context=\"default\">\n"
  "    <allow send_destination=\"*\" eavesdrop=\"true\"/>\n"
  "    <allow eavesdrop=\"true\"/>\n"
  "    <allow own=\"*\"/>\n"
  "  </policy>\n"
  "</busconfig>\n";

static void
test_no_secret_service (void)
{
  g_autoptr(GSubprocess) daemon = NULL;
  g_autoptr(GDataInputStream) output = NULL;
  g_autoptr(GString) config = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *program = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *config_path = NULL;
  g_autofree char *address = NULL;
  g_autofree char *saved = NULL;

  if (g_test_subprocess ())
    {
      assert_every_call_fails ("keyring is not available");
      return;
    }

  program = g_find_program_in_path ("dbus-daemon");
  if (program == NULL)
    {
      g_test_skip ("dbus-daemon is not installed (apt-get install dbus)");
      return;
    }

  folder = sk_test_make_tmp_dir ("bus");
  config = g_string_new (bus_config);
  g_string_replace (config, "@DIR@", folder, 0);
  sk_test_write_text (folder, "bus.conf", config->str);
  config_path = g_build_filename (folder, "bus.conf", NULL);

  daemon = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                             &error,
                             program, "--nofork", "--print-address=1",
                             "--config-file", config_path, NULL);
  g_assert_no_error (error);
  output = g_data_input_stream_new (g_subprocess_get_stdout_pipe (daemon));
  address = g_data_input_stream_read_line_utf8 (output, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (address);

  saved = g_strdup (g_getenv ("DBUS_SESSION_BUS_ADDRESS"));
  g_setenv ("DBUS_SESSION_BUS_ADDRESS", address, TRUE);
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  if (saved != NULL)
    g_setenv ("DBUS_SESSION_BUS_ADDRESS", saved, TRUE);
  else
    g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");

  g_subprocess_force_exit (daemon);
  g_subprocess_wait (daemon, NULL, NULL);
  sk_test_remove_tree (folder);

  g_test_trap_assert_passed ();
}

/* Locks the login keyring through the Secret Service, as the screen lock or
 * the user in Passwords and Keys does. */
static void
lock_keyring (void)
{
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) locked = NULL;
  g_autoptr(GError) error = NULL;
  const char *login[] = { "/org/freedesktop/secrets/collection/login" };

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.secrets", "/org/freedesktop/secrets",
                                       "org.freedesktop.Secret.Service", "Lock",
                                       g_variant_new ("(@ao)",
                                                      g_variant_new_objv (login, 1)),
                                       G_VARIANT_TYPE ("(aoo)"), G_DBUS_CALL_FLAGS_NONE,
                                       5000, NULL, &error);
  g_assert_no_error (error);
  g_clear_pointer (&reply, g_variant_unref);

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.secrets", login[0],
                                       "org.freedesktop.DBus.Properties", "Get",
                                       g_variant_new ("(ss)", "org.freedesktop.Secret.Collection",
                                                      "Locked"),
                                       G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE,
                                       5000, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(v)", &locked);
  g_assert_true (g_variant_get_boolean (locked));
}

/* Registered last: nothing unlocks the keyring again without a prompt. */
static void
test_locked (void)
{
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (!need_keyring ())
    return;

  /* A key is there, but cannot be read while the keyring is locked: that is
   * not the same as having no key. */
  ok = store_key (SK_LLM_PROVIDER_OPENAI, SERVER, "sk-locked-away", &error);
  g_assert_no_error (error);
  g_assert_true (ok);

  lock_keyring ();

  assert_every_call_fails ("keyring is locked");
}

int
main (int   argc,
      char *argv[])
{
  /* The key must come from the keyring, for the server the settings name. */
  g_unsetenv ("SKELE_LLM_API_KEY");
  g_unsetenv ("SKELE_LLM_PROVIDER");
  g_unsetenv ("SKELE_LLM_BASE_URL");

  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("SKELE_TEST_KEYRING_SESSION") == NULL)
    {
      keyring_missing = g_getenv ("SKELE_TEST_KEYRING_MISSING");
      if (keyring_missing == NULL)
        keyring_missing = "not run through tests/keyring-session.sh, and the user's own "
                          "keyring is never used by tests";

      /* A skipped keyring test in CI is a missing package, not a pass:
       * say so where it is seen. */
      if (!g_test_subprocess ())
        g_printerr ("test-keyring: the tests of a real keyring are SKIPPED: %s\n",
                    keyring_missing);
    }

  g_test_add_func ("/keyring/store-lookup-replace-delete", test_store_lookup_replace_delete);
  g_test_add_func ("/keyring/seen-by-secret-tool", test_seen_by_secret_tool);
  g_test_add_func ("/keyring/agent-settings", test_agent_settings);
  g_test_add_func ("/keyring/no-bus", test_no_bus);
  g_test_add_func ("/keyring/no-secret-service", test_no_secret_service);
  g_test_add_func ("/keyring/locked", test_locked);

  return g_test_run ();
}
