/* test-agent-settings.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>

#include "sk-agent-key.h"
#include "sk-agent-settings.h"
#include "sk-settings.h"
#include "sk-test-util.h"

static const char * const variables[] = {
  "SKELE_LLM_PROVIDER",
  "SKELE_LLM_BASE_URL",
  "SKELE_LLM_MODEL",
  "SKELE_LLM_API_KEY",
};

static void
clear_environment (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (variables); i++)
    g_unsetenv (variables[i]);
}

static GSettings *
reset_settings (void)
{
  GSettings *settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  g_autoptr(GSettingsSchema) schema = NULL;
  g_auto(GStrv) keys = NULL;

  g_object_get (settings, "settings-schema", &schema, NULL);
  keys = g_settings_schema_list_keys (schema);
  for (guint i = 0; keys[i] != NULL; i++)
    g_settings_reset (settings, keys[i]);

  return settings;
}

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
  SK_TEST_WAIT_UNTIL (*result != NULL, 30000);
  return *result;
}

static void
test_defaults (void)
{
  g_autoptr(SkAgentSettings) settings = sk_agent_settings_new ();

  g_assert_cmpint (settings->provider, ==, SK_LLM_PROVIDER_OLLAMA);
  g_assert_cmpstr (settings->base_url, ==, "http://127.0.0.1:11434");
  g_assert_cmpstr (settings->model, ==, "");
  g_assert_null (settings->api_key);
  g_assert_cmpuint (settings->repair_attempts, ==, 2);
  g_assert_cmpuint (settings->max_steps, ==, 30);
  g_assert_true (settings->require_sandbox);
  g_assert_false (settings->review_commands);
  g_assert_false (settings->allow_network);
}

/* The schema's defaults and sk_agent_settings_new() agree. */
static void
test_schema_defaults (void)
{
  g_autoptr(GSettings) gsettings = reset_settings ();
  g_autoptr(SkAgentSettings) settings = NULL;
  g_autoptr(GError) error = NULL;

  clear_environment ();
  settings = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_no_error (error);

  g_assert_cmpint (settings->provider, ==, SK_LLM_PROVIDER_OLLAMA);
  g_assert_cmpstr (settings->base_url, ==, "http://127.0.0.1:11434");
  g_assert_cmpstr (settings->model, ==, "");
  g_assert_null (settings->api_key);
  g_assert_cmpuint (settings->repair_attempts, ==, 2);
  g_assert_cmpuint (settings->max_steps, ==, 30);
  g_assert_true (settings->require_sandbox);
  g_assert_false (settings->review_commands);
  g_assert_false (settings->allow_network);
}

static void
test_preferences (void)
{
  g_autoptr(GSettings) gsettings = reset_settings ();
  g_autoptr(SkAgentSettings) settings = NULL;
  g_autoptr(SkAgentSettings) anthropic = NULL;
  g_autoptr(GError) error = NULL;

  clear_environment ();
  g_settings_set_string (gsettings, "llm-provider", "openai");
  g_settings_set_string (gsettings, "llm-base-url", " http://127.0.0.1:8080/v1 ");
  g_settings_set_string (gsettings, "llm-model", "qwen2.5-coder:7b");
  g_settings_set_uint (gsettings, "agent-repair-attempts", 5);
  g_settings_set_uint (gsettings, "agent-max-steps", 120);
  g_settings_set_boolean (gsettings, "agent-require-sandbox", FALSE);
  g_settings_set_boolean (gsettings, "agent-review-commands", TRUE);
  g_settings_set_boolean (gsettings, "agent-allow-network", TRUE);

  settings = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (settings->provider, ==, SK_LLM_PROVIDER_OPENAI);
  g_assert_cmpstr (settings->base_url, ==, "http://127.0.0.1:8080/v1");
  g_assert_cmpstr (settings->model, ==, "qwen2.5-coder:7b");
  g_assert_cmpuint (settings->repair_attempts, ==, 5);
  g_assert_cmpuint (settings->max_steps, ==, 120);
  g_assert_false (settings->require_sandbox);
  g_assert_true (settings->review_commands);
  g_assert_true (settings->allow_network);

  /* An empty address is the provider's own. */
  g_settings_set_string (gsettings, "llm-provider", "anthropic");
  g_settings_set_string (gsettings, "llm-base-url", "");
  anthropic = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (anthropic->provider, ==, SK_LLM_PROVIDER_ANTHROPIC);
  g_assert_cmpstr (anthropic->base_url, ==,
                   sk_llm_provider_default_base_url (SK_LLM_PROVIDER_ANTHROPIC));
}

/* Without a GSettings the installed schema is used: the tests' schema, from
 * GSETTINGS_SCHEMA_DIR, sharing the memory backend. */
static void
test_installed_schema (void)
{
  g_autoptr(GSettings) gsettings = reset_settings ();
  g_autoptr(SkAgentSettings) settings = NULL;
  g_autoptr(GError) error = NULL;

  clear_environment ();
  g_settings_set_string (gsettings, "llm-model", "from-preferences");
  g_settings_set_uint (gsettings, "agent-max-steps", 7);

  settings = sk_agent_settings_load (NULL, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (settings->model, ==, "from-preferences");
  g_assert_cmpuint (settings->max_steps, ==, 7);
}

static void
test_environment (void)
{
  g_autoptr(GSettings) gsettings = reset_settings ();
  g_autoptr(SkAgentSettings) settings = NULL;
  g_autoptr(SkAgentSettings) same = NULL;
  g_autoptr(SkAgentSettings) other = NULL;
  g_autoptr(SkAgentSettings) empty = NULL;
  g_autoptr(SkAgentSettings) bad = NULL;
  g_autoptr(GError) error = NULL;

  clear_environment ();
  g_settings_set_string (gsettings, "llm-provider", "openai");
  g_settings_set_string (gsettings, "llm-base-url", "http://127.0.0.1:8080/v1");
  g_settings_set_string (gsettings, "llm-model", "from-preferences");

  g_setenv ("SKELE_LLM_BASE_URL", "http://gpu-box:8000/v1", TRUE);
  g_setenv ("SKELE_LLM_MODEL", "from-environment", TRUE);
  g_setenv ("SKELE_LLM_API_KEY", "sk-environment", TRUE);
  settings = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (settings->provider, ==, SK_LLM_PROVIDER_OPENAI);
  g_assert_cmpstr (settings->base_url, ==, "http://gpu-box:8000/v1");
  g_assert_cmpstr (settings->model, ==, "from-environment");
  g_assert_cmpstr (settings->api_key, ==, "sk-environment");

  /* Naming the provider the preferences already have keeps their address;
   * naming another one, without an address, gives that one's default. */
  clear_environment ();
  g_setenv ("SKELE_LLM_PROVIDER", "OpenAI", TRUE);
  same = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (same->base_url, ==, "http://127.0.0.1:8080/v1");

  g_setenv ("SKELE_LLM_PROVIDER", "ollama", TRUE);
  other = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (other->provider, ==, SK_LLM_PROVIDER_OLLAMA);
  g_assert_cmpstr (other->base_url, ==, "http://127.0.0.1:11434");
  g_assert_cmpstr (other->model, ==, "from-preferences");
  g_assert_null (other->api_key);

  /* An empty variable is no variable. */
  clear_environment ();
  g_setenv ("SKELE_LLM_MODEL", "", TRUE);
  g_setenv ("SKELE_LLM_PROVIDER", "", TRUE);
  empty = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (empty->provider, ==, SK_LLM_PROVIDER_OPENAI);
  g_assert_cmpstr (empty->model, ==, "from-preferences");

  g_setenv ("SKELE_LLM_PROVIDER", "gemini", TRUE);
  bad = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_null (bad);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  sk_test_assert_contains (error->message, "gemini");
  sk_test_assert_contains (error->message, "SKELE_LLM_PROVIDER");
  sk_test_assert_contains (error->message, "openai, ollama or anthropic");

  clear_environment ();
}

static void
test_command_line (void)
{
  g_autoptr(GSettings) gsettings = reset_settings ();
  g_autoptr(SkAgentSettings) settings = NULL;
  g_autoptr(GError) error = NULL;

  clear_environment ();
  g_settings_set_string (gsettings, "llm-provider", "openai");
  g_settings_set_string (gsettings, "llm-model", "from-preferences");
  g_setenv ("SKELE_LLM_BASE_URL", "http://gpu-box:8000/v1", TRUE);
  g_setenv ("SKELE_LLM_MODEL", "from-environment", TRUE);
  g_setenv ("SKELE_LLM_API_KEY", "sk-environment", TRUE);

  settings = sk_agent_settings_load (gsettings, TRUE, &error);
  g_assert_no_error (error);

  /* NULL keeps what the environment said. */
  g_assert_true (sk_agent_settings_override (settings, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (settings->base_url, ==, "http://gpu-box:8000/v1");
  g_assert_cmpstr (settings->model, ==, "from-environment");

  g_assert_true (sk_agent_settings_override (settings, NULL, NULL, "from-command-line", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (settings->model, ==, "from-command-line");
  g_assert_cmpstr (settings->base_url, ==, "http://gpu-box:8000/v1");

  /* A new provider without an address gets its default one. */
  g_assert_true (sk_agent_settings_override (settings, "anthropic", NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (settings->provider, ==, SK_LLM_PROVIDER_ANTHROPIC);
  g_assert_cmpstr (settings->base_url, ==, "https://api.anthropic.com");
  /* The key was given for this run in the environment, so it stays. */
  g_assert_cmpstr (settings->api_key, ==, "sk-environment");

  g_assert_true (sk_agent_settings_override (settings, "ollama", "http://10.0.0.2:11434", NULL,
                                           &error));
  g_assert_no_error (error);
  g_assert_cmpint (settings->provider, ==, SK_LLM_PROVIDER_OLLAMA);
  g_assert_cmpstr (settings->base_url, ==, "http://10.0.0.2:11434");

  /* An empty address is the provider's default. */
  g_assert_true (sk_agent_settings_override (settings, NULL, "", NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (settings->base_url, ==, "http://127.0.0.1:11434");

  g_assert_false (sk_agent_settings_override (settings, "chatgpt", "http://elsewhere", "x", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  sk_test_assert_contains (error->message, "chatgpt");
  sk_test_assert_contains (error->message, "openai, ollama or anthropic");
  g_assert_cmpint (settings->provider, ==, SK_LLM_PROVIDER_OLLAMA);
  g_assert_cmpstr (settings->base_url, ==, "http://127.0.0.1:11434");
  g_assert_cmpstr (settings->model, ==, "from-command-line");

  clear_environment ();
}

static void
test_not_configured (void)
{
  g_autoptr(SkAgentSettings) settings = sk_agent_settings_new ();
  g_autoptr(SkLlmClient) client = NULL;
  g_autoptr(GError) error = NULL;

  client = sk_agent_settings_create_client (settings, &error);
  g_assert_null (client);
  g_assert_error (error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED);
  sk_test_assert_contains (error->message, "Preferences");
  sk_test_assert_contains (error->message, "SKELE_LLM_MODEL");
  sk_test_assert_contains (error->message, "--model");
  g_clear_error (&error);

  g_assert_true (sk_agent_settings_override (settings, NULL, "127.0.0.1:11434", "llama3", &error));
  client = sk_agent_settings_create_client (settings, &error);
  g_assert_null (client);
  g_assert_error (error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED);
  sk_test_assert_contains (error->message, "127.0.0.1:11434");
  sk_test_assert_contains (error->message, "http://");
  g_clear_error (&error);

  g_assert_true (sk_agent_settings_override (settings, "openai", "http://127.0.0.1:8080/v1", "llama3",
                                           &error));
  g_free (settings->api_key);
  settings->api_key = g_strdup ("sk-test");
  client = sk_agent_settings_create_client (settings, &error);
  g_assert_no_error (error);
  g_assert_nonnull (client);
  g_assert_cmpint (sk_llm_client_get_provider (client), ==, SK_LLM_PROVIDER_OPENAI);
  g_assert_cmpstr (sk_llm_client_get_base_url (client), ==, "http://127.0.0.1:8080/v1");
  g_assert_cmpstr (sk_llm_client_get_model (client), ==, "llama3");
}

static void
test_describe (void)
{
  g_autoptr(SkAgentSettings) settings = sk_agent_settings_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *none = NULL;
  g_autofree char *ollama = NULL;
  g_autofree char *openai = NULL;

  none = sk_agent_settings_describe (settings);
  g_assert_cmpstr (none, ==, "no model on http://127.0.0.1:11434 (Ollama)");

  g_assert_true (sk_agent_settings_override (settings, NULL, NULL, "qwen2.5-coder:7b", &error));
  ollama = sk_agent_settings_describe (settings);
  g_assert_cmpstr (ollama, ==, "qwen2.5-coder:7b on http://127.0.0.1:11434 (Ollama)");

  settings->api_key = g_strdup ("sk-secret");
  g_assert_true (sk_agent_settings_override (settings, "openai", "http://127.0.0.1:8080/v1", NULL,
                                           &error));
  openai = sk_agent_settings_describe (settings);
  g_assert_cmpstr (openai, ==, "qwen2.5-coder:7b on http://127.0.0.1:8080/v1 (OpenAI-compatible)");
}

static void
assert_keyring_error (const GError *error)
{
  g_assert_nonnull (error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  sk_test_assert_contains (error->message, "keyring is not available");
  sk_test_assert_contains (error->message, "SKELE_LLM_API_KEY");
}

/* main() points D-Bus at a socket that does not exist, as on a server. */
static void
test_keyring_unavailable (void)
{
  g_autoptr(GSettings) gsettings = reset_settings ();
  g_autoptr(SkAgentSettings) settings = NULL;
  g_autoptr(SkAgentSettings) with_key = NULL;
  g_autoptr(GCancellable) cancellable = NULL;
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) keys = NULL;
  GAsyncResult *result = NULL;
  g_autofree char *key = NULL;

  clear_environment ();

  key = sk_agent_key_lookup_sync (SK_LLM_PROVIDER_OPENAI, NULL, NULL, &error);
  g_assert_null (key);
  assert_keyring_error (error);
  g_clear_error (&error);

  /* Loading is not stopped by it: there is simply no key. */
  settings = sk_agent_settings_load (gsettings, TRUE, &error);
  g_assert_no_error (error);
  g_assert_null (settings->api_key);
  g_assert_true (sk_agent_settings_override (settings, "anthropic", NULL, "claude", &error));
  g_assert_no_error (error);
  g_assert_null (settings->api_key);

  sk_agent_key_store_async (SK_LLM_PROVIDER_OPENAI, "http://127.0.0.1:8080/v1/", "sk-test",
                            NULL, async_done_cb, &result);
  g_assert_false (sk_agent_key_store_finish (wait_for_result (&result), &error));
  assert_keyring_error (error);
  g_clear_error (&error);
  g_clear_object (&result);

  sk_agent_key_lookup_async (SK_LLM_PROVIDER_OPENAI, "http://127.0.0.1:8080/v1",
                             NULL, async_done_cb, &result);
  g_assert_null (sk_agent_key_lookup_finish (wait_for_result (&result), &error));
  assert_keyring_error (error);
  g_clear_error (&error);
  g_clear_object (&result);

  sk_agent_key_clear_async (SK_LLM_PROVIDER_OPENAI, NULL, NULL, async_done_cb, &result);
  g_assert_false (sk_agent_key_clear_finish (wait_for_result (&result), &error));
  assert_keyring_error (error);
  g_clear_error (&error);
  g_clear_object (&result);

  cancellable = g_cancellable_new ();
  g_cancellable_cancel (cancellable);
  sk_agent_key_lookup_async (SK_LLM_PROVIDER_OLLAMA, NULL, cancellable, async_done_cb, &result);
  g_assert_null (sk_agent_key_lookup_finish (wait_for_result (&result), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_clear_object (&result);

  /* libsecret fails every waiting call when one is cancelled; the others
   * must still get their own answer. */
  {
    g_autoptr(GCancellable) first = g_cancellable_new ();
    GAsyncResult *first_result = NULL;

    sk_agent_key_lookup_async (SK_LLM_PROVIDER_OPENAI, NULL, first, async_done_cb, &first_result);
    sk_agent_key_lookup_async (SK_LLM_PROVIDER_OPENAI, NULL, NULL, async_done_cb, &result);
    g_cancellable_cancel (first);

    g_assert_null (sk_agent_key_lookup_finish (wait_for_result (&first_result), &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error (&error);
    g_clear_object (&first_result);

    g_assert_null (sk_agent_key_lookup_finish (wait_for_result (&result), &error));
    assert_keyring_error (error);
    g_clear_error (&error);
    g_clear_object (&result);
  }

  /* A key from the environment needs no keyring, and goes nowhere else. */
  g_setenv ("SKELE_LLM_API_KEY", "sk-from-environment", TRUE);
  with_key = sk_agent_settings_load (gsettings, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (with_key->api_key, ==, "sk-from-environment");

  g_object_get (gsettings, "settings-schema", &schema, NULL);
  keys = g_settings_schema_list_keys (schema);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autoptr(GVariant) value = g_settings_get_value (gsettings, keys[i]);
      g_autofree char *text = g_variant_print (value, FALSE);

      g_assert_null (strstr (text, "sk-from-environment"));
    }

  clear_environment ();
}

/* Where the schema is not installed, as for skele on a server, the defaults
 * and the environment still apply. */
static void
test_schema_absent (void)
{
  g_autofree char *empty = NULL;
  g_autofree char *saved_schema_dir = NULL;
  g_autofree char *saved_data_dirs = NULL;
  g_autofree char *saved_data_home = NULL;

  if (g_test_subprocess ())
    {
      GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
      g_autoptr(GSettingsSchema) schema = NULL;
      g_autoptr(SkAgentSettings) settings = NULL;
      g_autoptr(GError) error = NULL;

      if (source != NULL)
        schema = g_settings_schema_source_lookup (source, SK_SETTINGS_SCHEMA_ID, TRUE);
      g_assert_null (schema);

      settings = sk_agent_settings_load (NULL, TRUE, &error);
      g_assert_no_error (error);
      g_assert_cmpint (settings->provider, ==, SK_LLM_PROVIDER_OPENAI);
      g_assert_cmpstr (settings->base_url, ==, "https://api.openai.com/v1");
      g_assert_cmpstr (settings->model, ==, "from-environment");
      g_assert_null (settings->api_key);
      g_assert_cmpuint (settings->max_steps, ==, 30);
      g_assert_true (settings->require_sandbox);
      return;
    }

  empty = g_dir_make_tmp ("skele-no-schema-XXXXXX", NULL);
  g_assert_nonnull (empty);
  saved_schema_dir = g_strdup (g_getenv ("GSETTINGS_SCHEMA_DIR"));
  saved_data_dirs = g_strdup (g_getenv ("XDG_DATA_DIRS"));
  saved_data_home = g_strdup (g_getenv ("XDG_DATA_HOME"));

  clear_environment ();
  g_setenv ("GSETTINGS_SCHEMA_DIR", empty, TRUE);
  g_setenv ("XDG_DATA_DIRS", empty, TRUE);
  g_setenv ("XDG_DATA_HOME", empty, TRUE);
  g_setenv ("SKELE_LLM_PROVIDER", "openai", TRUE);
  g_setenv ("SKELE_LLM_MODEL", "from-environment", TRUE);

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);

  if (saved_schema_dir != NULL)
    g_setenv ("GSETTINGS_SCHEMA_DIR", saved_schema_dir, TRUE);
  else
    g_unsetenv ("GSETTINGS_SCHEMA_DIR");
  if (saved_data_dirs != NULL)
    g_setenv ("XDG_DATA_DIRS", saved_data_dirs, TRUE);
  else
    g_unsetenv ("XDG_DATA_DIRS");
  if (saved_data_home != NULL)
    g_setenv ("XDG_DATA_HOME", saved_data_home, TRUE);
  else
    g_unsetenv ("XDG_DATA_HOME");
  clear_environment ();
  g_rmdir (empty);

  g_test_trap_assert_passed ();
}

/* Preferences show the values in effect and where each comes from; an
 * agent is ready once a model is chosen on a web address. */
static void
test_sources (void)
{
  g_autoptr(GSettings) gsettings = reset_settings ();
  g_autoptr(SkAgentSettings) settings = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *model_source = NULL;
  g_autofree char *url_source = NULL;

  clear_environment ();
  settings = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_false (sk_agent_settings_is_ready (settings));
  g_assert_cmpint (sk_agent_settings_get_source (settings, SK_AGENT_SETTING_MODEL), ==,
                   SK_SETTING_SOURCE_DEFAULT);
  g_assert_cmpint (sk_agent_settings_get_source (settings, SK_AGENT_SETTING_API_KEY), ==,
                   SK_SETTING_SOURCE_DEFAULT);
  g_assert_null (sk_agent_settings_describe_source (settings, SK_AGENT_SETTING_MODEL));
  g_clear_pointer (&settings, sk_agent_settings_free);

  g_settings_set_string (gsettings, "llm-provider", "ollama");
  g_settings_set_string (gsettings, "llm-model", "from-preferences");
  g_setenv ("SKELE_LLM_PROVIDER", "openai", TRUE);
  g_setenv ("SKELE_LLM_MODEL", "from-environment", TRUE);
  settings = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_no_error (error);

  g_assert_true (sk_agent_settings_is_ready (settings));
  g_assert_cmpstr (sk_agent_settings_get_value (settings, SK_AGENT_SETTING_PROVIDER), ==, "openai");
  g_assert_cmpint (sk_agent_settings_get_source (settings, SK_AGENT_SETTING_PROVIDER), ==,
                   SK_SETTING_SOURCE_ENVIRONMENT);
  g_assert_cmpstr (sk_agent_settings_get_value (settings, SK_AGENT_SETTING_MODEL), ==,
                   "from-environment");
  g_assert_cmpint (sk_agent_settings_get_source (settings, SK_AGENT_SETTING_MODEL), ==,
                   SK_SETTING_SOURCE_ENVIRONMENT);
  model_source = sk_agent_settings_describe_source (settings, SK_AGENT_SETTING_MODEL);
  g_assert_cmpstr (model_source, ==, "Set by the environment variable SKELE_LLM_MODEL");

  /* The provider from the environment brings its own address. */
  g_assert_cmpstr (sk_agent_settings_get_value (settings, SK_AGENT_SETTING_BASE_URL), ==,
                   sk_llm_provider_default_base_url (SK_LLM_PROVIDER_OPENAI));
  g_assert_cmpint (sk_agent_settings_get_source (settings, SK_AGENT_SETTING_BASE_URL), ==,
                   SK_SETTING_SOURCE_DEFAULT);
  g_assert_cmpstr (sk_agent_setting_get_variable (SK_AGENT_SETTING_API_KEY), ==, "SKELE_LLM_API_KEY");

  /* The command line wins, and says so. */
  g_assert_true (sk_agent_settings_override (settings, NULL, "http://gpu-box:8000/v1", "cli-model", &error));
  g_assert_no_error (error);
  g_assert_cmpint (sk_agent_settings_get_source (settings, SK_AGENT_SETTING_MODEL), ==,
                   SK_SETTING_SOURCE_COMMAND_LINE);
  url_source = sk_agent_settings_describe_source (settings, SK_AGENT_SETTING_BASE_URL);
  g_assert_cmpstr (url_source, ==, "Set by an option of the command line");

  g_assert_true (sk_agent_settings_override (settings, NULL, "not an address", NULL, &error));
  g_assert_false (sk_agent_settings_is_ready (settings));
  g_clear_pointer (&settings, sk_agent_settings_free);

  /* Without the variables, the values are the ones of Preferences. */
  clear_environment ();
  settings = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sk_agent_settings_get_value (settings, SK_AGENT_SETTING_MODEL), ==,
                   "from-preferences");
  g_assert_cmpint (sk_agent_settings_get_source (settings, SK_AGENT_SETTING_MODEL), ==,
                   SK_SETTING_SOURCE_PREFERENCES);
  g_assert_cmpint (sk_agent_settings_get_source (settings, SK_AGENT_SETTING_PROVIDER), ==,
                   SK_SETTING_SOURCE_PREFERENCES);

  g_setenv ("SKELE_LLM_API_KEY", "sk-environment", TRUE);
  g_clear_pointer (&settings, sk_agent_settings_free);
  settings = sk_agent_settings_load (gsettings, FALSE, &error);
  g_assert_cmpstr (sk_agent_settings_get_value (settings, SK_AGENT_SETTING_API_KEY), ==, "sk-environment");
  g_assert_cmpint (sk_agent_settings_get_source (settings, SK_AGENT_SETTING_API_KEY), ==,
                   SK_SETTING_SOURCE_ENVIRONMENT);
  clear_environment ();
}

int
main (int   argc,
      char *argv[])
{
  /* No session bus, as on a server and in a build machine's tests: the
   * keyring must be reported unavailable, never hang or crash. A path that
   * does not exist also stops GDBus from launching a bus of its own. */
  g_setenv ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/skele-test-bus", TRUE);

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/agent-settings/schema-absent", test_schema_absent);
  g_test_add_func ("/agent-settings/defaults", test_defaults);
  g_test_add_func ("/agent-settings/schema-defaults", test_schema_defaults);
  g_test_add_func ("/agent-settings/preferences", test_preferences);
  g_test_add_func ("/agent-settings/installed-schema", test_installed_schema);
  g_test_add_func ("/agent-settings/environment", test_environment);
  g_test_add_func ("/agent-settings/command-line", test_command_line);
  g_test_add_func ("/agent-settings/not-configured", test_not_configured);
  g_test_add_func ("/agent-settings/describe", test_describe);
  g_test_add_func ("/agent-settings/sources", test_sources);
  g_test_add_func ("/agent-settings/keyring-unavailable", test_keyring_unavailable);

  return g_test_run ();
}
