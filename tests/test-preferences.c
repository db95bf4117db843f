/* test-preferences.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <adwaita.h>

#include "sk-fake-llm.h"
#include "sk-llm.h"
#include "sk-preferences-window.h"
#include "sk-sandbox.h"
#include "sk-settings.h"
#include "sk-test-util.h"
#include "sk-widgets.h"

#define WAIT_MSEC 10000

static const char * const agent_keys[] = {
  "llm-provider",
  "llm-base-url",
  "llm-model",
  "agent-repair-attempts",
  "agent-max-steps",
  "agent-require-sandbox",
  "agent-review-commands",
  "agent-allow-network",
};

static const char * const environment_variables[] = {
  "SKELE_LLM_PROVIDER",
  "SKELE_LLM_BASE_URL",
  "SKELE_LLM_MODEL",
  "SKELE_LLM_API_KEY",
};

static gpointer
template_child (gpointer    widget,
                GType       type,
                const char *name)
{
  return gtk_widget_get_template_child (GTK_WIDGET (widget), type, name);
}

/* Each row changes its setting at once, and a setting changed elsewhere shows
 * in its row. */
static void
test_preferences_bindings (void)
{
  g_autoptr(GSettings) settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  SkPreferencesWindow *window;
  GtkAdjustment *jobs;
  GtkAdjustment *timeout;
  AdwEntryRow *python;
  AdwComboRow *sandbox;
  g_autofree char *chosen = NULL;
  g_autofree char *policy = NULL;

  g_settings_reset (settings, "jobs");
  g_settings_reset (settings, "timeout");
  g_settings_reset (settings, "python");
  g_settings_reset (settings, "sandbox");

  window = sk_preferences_window_new (settings);
  g_object_ref_sink (window);
  gtk_window_present (GTK_WINDOW (window));

  jobs = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "jobs_adjustment");
  timeout = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "timeout_adjustment");
  python = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "python_row");
  sandbox = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "step_sandbox_row");

  g_assert_cmpfloat (gtk_adjustment_get_value (jobs), ==, 2);
  g_assert_cmpfloat (gtk_adjustment_get_value (timeout), ==, 0);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (python)), ==, "");

  gtk_adjustment_set_value (jobs, 4);
  g_assert_cmpuint (g_settings_get_uint (settings, "jobs"), ==, 4);

  gtk_adjustment_set_value (timeout, 90);
  g_assert_cmpuint (g_settings_get_uint (settings, "timeout"), ==, 90);

  gtk_editable_set_text (GTK_EDITABLE (python), "/usr/bin/python3");
  chosen = g_settings_get_string (settings, "python");
  g_assert_cmpstr (chosen, ==, "/usr/bin/python3");

  /* The adjustment keeps the setting inside the schema's range. */
  gtk_adjustment_set_value (jobs, 1000);
  g_assert_cmpuint (g_settings_get_uint (settings, "jobs"), ==, 64);

  g_settings_set_uint (settings, "timeout", 15);
  g_assert_cmpfloat (gtk_adjustment_get_value (timeout), ==, 15);

  /* Steps run only in a sandbox unless the user says otherwise. */
  g_assert_cmpuint (adw_combo_row_get_selected (sandbox), ==, SK_SANDBOX_POLICY_REQUIRED);
  adw_combo_row_set_selected (sandbox, SK_SANDBOX_POLICY_WHEN_AVAILABLE);
  policy = g_settings_get_string (settings, "sandbox");
  g_assert_cmpstr (policy, ==, "when-available");
  g_settings_set_string (settings, "sandbox", "off");
  g_assert_cmpuint (adw_combo_row_get_selected (sandbox), ==, SK_SANDBOX_POLICY_OFF);
  g_settings_reset (settings, "sandbox");

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (window);
}

static void
reset_agent_settings (GSettings *settings)
{
  for (guint i = 0; i < G_N_ELEMENTS (agent_keys); i++)
    g_settings_reset (settings, agent_keys[i]);
  for (guint i = 0; i < G_N_ELEMENTS (environment_variables); i++)
    g_unsetenv (environment_variables[i]);
}

static SkPreferencesWindow *
open_agent_page (GSettings *settings)
{
  SkPreferencesWindow *window = sk_preferences_window_new (settings);

  g_object_ref_sink (window);
  gtk_window_present (GTK_WINDOW (window));
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (window), "agent");

  return window;
}

/* Closing the window cancels what it was waiting for; the callbacks, which
 * hold the window, then let it go. */
static void
destroy_and_wait (SkPreferencesWindow *window)
{
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
  SK_TEST_WAIT_UNTIL (window == NULL, WAIT_MSEC);
}

/* main() gives the tests no session bus, as on a server, so the keyring is
 * never available; the page must say so instead of failing. */
static void
wait_for_keyring_note (SkPreferencesWindow *window)
{
  GtkLabel *note = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "server_note");

  SK_TEST_WAIT_UNTIL (strstr (gtk_label_get_label (note), "keyring is not available") != NULL,
                      WAIT_MSEC);
  sk_test_assert_contains (gtk_label_get_label (note), "SKELE_LLM_API_KEY");
}

static void
test_preferences_agent_bindings (void)
{
  g_autoptr(GSettings) settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  SkPreferencesWindow *window;
  AdwComboRow *provider;
  AdwEntryRow *base_url;
  AdwEntryRow *model;
  AdwPasswordEntryRow *key;
  GtkAdjustment *repair;
  GtkAdjustment *steps;
  GtkSwitch *sandbox;
  GtkSwitch *review;
  GtkSwitch *network;
  GtkLabel *note;
  g_autofree char *chosen_url = NULL;
  g_autofree char *chosen_model = NULL;
  g_autofree char *provider_name = NULL;

  reset_agent_settings (settings);

  window = open_agent_page (settings);

  provider = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "provider_row");
  base_url = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "base_url_row");
  model = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "model_row");
  key = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "key_row");
  repair = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "repair_adjustment");
  steps = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "steps_adjustment");
  sandbox = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "sandbox_switch");
  review = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "review_switch");
  network = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "network_switch");
  note = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "server_note");

  /* The defaults: Ollama, its usual address, no model. */
  g_assert_cmpuint (adw_combo_row_get_selected (provider), ==, 1);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (base_url)), ==, "");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (model)), ==, "");
  g_assert_cmpfloat (gtk_adjustment_get_value (repair), ==, 2);
  g_assert_cmpfloat (gtk_adjustment_get_value (steps), ==, 30);
  g_assert_true (gtk_switch_get_active (sandbox));
  g_assert_false (gtk_switch_get_active (review));
  g_assert_false (gtk_switch_get_active (network));
  sk_test_assert_contains (gtk_label_get_label (note), "http://127.0.0.1:11434");
  g_assert_false (gtk_widget_get_visible (template_child (window, SK_TYPE_PREFERENCES_WINDOW,
                                                          "environment_group")));

  adw_combo_row_set_selected (provider, 2);
  provider_name = g_settings_get_string (settings, "llm-provider");
  g_assert_cmpstr (provider_name, ==, "anthropic");
  /* The note names the new provider's default address. */
  sk_test_assert_contains (gtk_label_get_label (note), "https://api.anthropic.com");

  g_settings_set_string (settings, "llm-provider", "openai");
  g_assert_cmpuint (adw_combo_row_get_selected (provider), ==, 0);

  gtk_editable_set_text (GTK_EDITABLE (base_url), "http://127.0.0.1:8080/v1");
  chosen_url = g_settings_get_string (settings, "llm-base-url");
  g_assert_cmpstr (chosen_url, ==, "http://127.0.0.1:8080/v1");
  g_settings_set_string (settings, "llm-base-url", "");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (base_url)), ==, "");

  gtk_editable_set_text (GTK_EDITABLE (model), "qwen2.5-coder:7b");
  chosen_model = g_settings_get_string (settings, "llm-model");
  g_assert_cmpstr (chosen_model, ==, "qwen2.5-coder:7b");
  g_settings_set_string (settings, "llm-model", "llama3.1");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (model)), ==, "llama3.1");

  gtk_adjustment_set_value (repair, 5);
  g_assert_cmpuint (g_settings_get_uint (settings, "agent-repair-attempts"), ==, 5);
  gtk_adjustment_set_value (repair, 100);
  g_assert_cmpuint (g_settings_get_uint (settings, "agent-repair-attempts"), ==, 10);
  g_settings_set_uint (settings, "agent-repair-attempts", 0);
  g_assert_cmpfloat (gtk_adjustment_get_value (repair), ==, 0);

  gtk_adjustment_set_value (steps, 1);
  g_assert_cmpuint (g_settings_get_uint (settings, "agent-max-steps"), ==, 5);
  gtk_adjustment_set_value (steps, 150);
  g_assert_cmpuint (g_settings_get_uint (settings, "agent-max-steps"), ==, 150);
  g_settings_set_uint (settings, "agent-max-steps", 40);
  g_assert_cmpfloat (gtk_adjustment_get_value (steps), ==, 40);

  /* Activating a row, as Enter or a click on it does, flips its switch
   * once the switch's animation has run. */
  adw_action_row_activate (template_child (window, SK_TYPE_PREFERENCES_WINDOW, "sandbox_row"));
  SK_TEST_WAIT_UNTIL (!g_settings_get_boolean (settings, "agent-require-sandbox"), WAIT_MSEC);
  g_assert_false (gtk_switch_get_active (sandbox));
  g_settings_set_boolean (settings, "agent-require-sandbox", TRUE);
  g_assert_true (gtk_switch_get_active (sandbox));

  gtk_switch_set_active (review, TRUE);
  g_assert_true (g_settings_get_boolean (settings, "agent-review-commands"));
  g_settings_set_boolean (settings, "agent-review-commands", FALSE);
  g_assert_false (gtk_switch_get_active (review));

  adw_action_row_activate (template_child (window, SK_TYPE_PREFERENCES_WINDOW, "network_row"));
  SK_TEST_WAIT_UNTIL (g_settings_get_boolean (settings, "agent-allow-network"), WAIT_MSEC);
  g_settings_set_boolean (settings, "agent-allow-network", FALSE);
  g_assert_false (gtk_switch_get_active (network));

  /* The key goes to the keyring only, never to the settings. */
  gtk_editable_set_text (GTK_EDITABLE (key), "sk-never-in-gsettings");
  for (guint i = 0; i < G_N_ELEMENTS (agent_keys); i++)
    {
      g_autoptr(GVariant) value = g_settings_get_value (settings, agent_keys[i]);
      g_autofree char *text = g_variant_print (value, FALSE);

      g_assert_null (strstr (text, "sk-never-in-gsettings"));
    }

  wait_for_keyring_note (window);
  destroy_and_wait (window);
  reset_agent_settings (settings);
}

static void
test_preferences_environment (void)
{
  g_autoptr(GSettings) settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  SkPreferencesWindow *window;
  GtkWidget *group;
  AdwActionRow *row;

  reset_agent_settings (settings);
  g_setenv ("SKELE_LLM_MODEL", "from-environment", TRUE);
  g_setenv ("SKELE_LLM_API_KEY", "sk-environment", TRUE);
  g_setenv ("SKELE_LLM_PROVIDER", "", TRUE);

  window = sk_preferences_window_new (settings);
  g_object_ref_sink (window);

  group = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "environment_group");
  row = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "environment_row");
  g_assert_true (gtk_widget_get_visible (group));
  sk_test_assert_contains (adw_action_row_get_subtitle (row), "SKELE_LLM_MODEL");
  sk_test_assert_contains (adw_action_row_get_subtitle (row), "SKELE_LLM_API_KEY");
  g_assert_null (strstr (adw_action_row_get_subtitle (row), "SKELE_LLM_PROVIDER"));
  g_assert_null (strstr (adw_action_row_get_subtitle (row), "sk-environment"));

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (window);
  reset_agent_settings (settings);
}

/* A setting that an environment variable overrides shows the value in
 * effect, says which variable sets it, and cannot be edited; what
 * Preferences keep stays as it was. */
static void
test_preferences_effective_values (void)
{
  g_autoptr(GSettings) settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  g_autofree char *stored = NULL;
  SkPreferencesWindow *window;
  AdwComboRow *provider;
  AdwEntryRow *base_url;
  AdwEntryRow *model;
  AdwPasswordEntryRow *key;

  reset_agent_settings (settings);
  g_settings_set_string (settings, "llm-provider", "ollama");
  g_settings_set_string (settings, "llm-model", "stored-model");
  g_setenv ("SKELE_LLM_PROVIDER", "openai", TRUE);
  g_setenv ("SKELE_LLM_MODEL", "from-environment", TRUE);

  window = open_agent_page (settings);
  provider = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "provider_row");
  base_url = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "base_url_row");
  model = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "model_row");
  key = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "key_row");

  g_assert_cmpuint (adw_combo_row_get_selected (provider), ==, SK_LLM_PROVIDER_OPENAI);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (provider)), ==,
                   "Set by the environment variable SKELE_LLM_PROVIDER");
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (provider)));

  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (model)), ==, "from-environment");
  sk_test_assert_contains (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (model)),
                           "set by the environment variable SKELE_LLM_MODEL");
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (model)));

  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (base_url)), ==,
                   sk_llm_provider_default_base_url (SK_LLM_PROVIDER_OPENAI));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (base_url)));

  /* The note names the usual address of the provider in effect. */
  sk_test_assert_contains (gtk_label_get_label (template_child (window, SK_TYPE_PREFERENCES_WINDOW, "server_note")),
                           sk_llm_provider_default_base_url (SK_LLM_PROVIDER_OPENAI));

  /* The key does not come from the environment: it stays editable. */
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (key)));

  /* Showing the value in effect did not write it into Preferences. */
  stored = g_settings_get_string (settings, "llm-model");
  g_assert_cmpstr (stored, ==, "stored-model");
  g_clear_pointer (&stored, g_free);
  stored = g_settings_get_string (settings, "llm-provider");
  g_assert_cmpstr (stored, ==, "ollama");

  wait_for_keyring_note (window);
  destroy_and_wait (window);
  reset_agent_settings (settings);

  /* A key from the environment is shown in its place, and not edited. */
  g_setenv ("SKELE_LLM_API_KEY", "sk-environment", TRUE);
  window = open_agent_page (settings);
  key = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "key_row");
  model = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "model_row");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (key)), ==, "sk-environment");
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (key)));
  sk_test_assert_contains (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (key)), "SKELE_LLM_API_KEY");
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (model)));
  destroy_and_wait (window);
  reset_agent_settings (settings);
}

static GtkListBoxRow *
models_row_at (GtkListBox *list,
               int         index)
{
  return gtk_list_box_get_row_at_index (list, index);
}

static const char *
models_row_name (GtkListBox *list,
                 int         index)
{
  GtkListBoxRow *row = models_row_at (list, index);

  g_assert_nonnull (row);
  return gtk_label_get_label (GTK_LABEL (gtk_list_box_row_get_child (row)));
}

static void
wait_for_models (SkPreferencesWindow *window)
{
  GtkStack *stack = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "models_stack");
  GtkSpinner *spinner = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "models_spinner");

  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "loading");
  g_assert_true (gtk_spinner_get_spinning (spinner));
  SK_TEST_WAIT_UNTIL (!gtk_spinner_get_spinning (spinner), WAIT_MSEC);
}

/* The button in the model's row asks the server for its models, and picking
 * one fills the row and the setting. A server that is down, or refuses the
 * key, is reported in a toast. */
static void
test_preferences_fetch_models (void)
{
  g_autoptr(GSettings) settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  g_autofree char *chosen = NULL;
  g_autofree char *dead_url = NULL;
  SkFakeLlm *fake;
  SkPreferencesWindow *window;
  GtkMenuButton *button;
  GtkPopover *popover;
  GtkStack *stack;
  GtkListBox *list;
  SkFakeLlmRequest *request;
  const char *toast;

  reset_agent_settings (settings);
  fake = sk_fake_llm_new ();
  sk_fake_llm_set_models (fake, SK_TEST_STRV ("fake-coder:7b", "fake"));

  g_settings_set_string (settings, "llm-provider", "openai");
  g_settings_set_string (settings, "llm-base-url",
                         sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_OPENAI));

  window = open_agent_page (settings);
  wait_for_keyring_note (window);

  button = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "models_button");
  popover = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "models_popover");
  stack = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "models_stack");
  list = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "models_list");

  /* Under Xvfb, without a window manager, the pointer grab of an autohiding
   * popover comes and goes with the timing of focus events, and closes it at
   * random. The list is what is tested here, so it stays open until closed. */
  gtk_popover_set_autohide (popover, FALSE);

  gtk_menu_button_popup (button);
  wait_for_models (window);
  g_assert_null (_sk_preferences_window_get_last_toast (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "list");
  g_assert_cmpstr (models_row_name (list, 0), ==, "fake");
  g_assert_cmpstr (models_row_name (list, 1), ==, "fake-coder:7b");
  g_assert_null (models_row_at (list, 2));

  requests = sk_fake_llm_dup_requests (fake);
  g_assert_cmpuint (requests->len, ==, 1);
  request = g_ptr_array_index (requests, 0);
  g_assert_cmpstr (request->method, ==, "GET");
  g_assert_cmpstr (request->path, ==, "/v1/models");
  g_clear_pointer (&requests, g_ptr_array_unref);

  g_signal_emit_by_name (models_row_at (list, 1), "activate");
  chosen = g_settings_get_string (settings, "llm-model");
  g_assert_cmpstr (chosen, ==, "fake-coder:7b");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (popover)));

  /* Ollama's own listing, from the same server. */
  g_settings_set_string (settings, "llm-provider", "ollama");
  g_settings_set_string (settings, "llm-base-url",
                         sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_OLLAMA));
  sk_fake_llm_set_models (fake, SK_TEST_STRV ("qwen2.5-coder:7b"));
  gtk_menu_button_popup (button);
  wait_for_models (window);
  g_assert_cmpstr (models_row_name (list, 0), ==, "qwen2.5-coder:7b");
  g_assert_null (models_row_at (list, 1));
  requests = sk_fake_llm_dup_requests (fake);
  request = g_ptr_array_index (requests, requests->len - 1);
  g_assert_cmpstr (request->path, ==, "/api/tags");
  g_clear_pointer (&requests, g_ptr_array_unref);
  gtk_popover_popdown (popover);

  /* A server that refuses the key. */
  g_settings_set_string (settings, "llm-provider", "openai");
  g_settings_set_string (settings, "llm-base-url",
                         sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_OPENAI));
  sk_fake_llm_push_json (fake,
                         "{\"path\": \"/v1/models\", \"status\": 401,"
                         " \"error\": {\"message\": \"Incorrect API key provided\","
                         " \"type\": \"invalid_request_error\", \"code\": \"invalid_api_key\"}}",
                         &error);
  g_assert_no_error (error);
  gtk_menu_button_popup (button);
  wait_for_models (window);
  sk_test_assert_contains (_sk_preferences_window_get_last_toast (window), "refused the API key");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (popover)));

  /* A server that is down. */
  dead_url = g_strdup (sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_OPENAI));
  sk_fake_llm_free (fake);
  gtk_menu_button_popup (button);
  wait_for_models (window);
  toast = _sk_preferences_window_get_last_toast (window);
  sk_test_assert_contains (toast, "Could not reach the server");
  sk_test_assert_contains (toast, dead_url);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (popover)));

  /* Failures leave the chosen model alone. */
  g_clear_pointer (&chosen, g_free);
  chosen = g_settings_get_string (settings, "llm-model");
  g_assert_cmpstr (chosen, ==, "fake-coder:7b");

  destroy_and_wait (window);
  reset_agent_settings (settings);
}

/* Without a keyring, applying a key says so, and names the variable that
 * gives the key instead; closing the window with a key typed in is no
 * trouble either. */
static void
test_preferences_key_without_keyring (void)
{
  g_autoptr(GSettings) settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  SkPreferencesWindow *window;
  AdwPasswordEntryRow *key;
  const char *toast;

  reset_agent_settings (settings);

  window = open_agent_page (settings);
  wait_for_keyring_note (window);
  key = template_child (window, SK_TYPE_PREFERENCES_WINDOW, "key_row");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (key)), ==, "");

  gtk_editable_set_text (GTK_EDITABLE (key), "sk-test");
  g_signal_emit_by_name (key, "apply");
  SK_TEST_WAIT_UNTIL (_sk_preferences_window_get_last_toast (window) != NULL, WAIT_MSEC);
  toast = _sk_preferences_window_get_last_toast (window);
  sk_test_assert_contains (toast, "keyring is not available");
  sk_test_assert_contains (toast, "SKELE_LLM_API_KEY");

  gtk_editable_set_text (GTK_EDITABLE (key), "sk-typed-then-closed");
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_close (GTK_WINDOW (window));
  g_object_unref (window);
  /* The store that closing started holds the window until it is done. */
  SK_TEST_WAIT_UNTIL (window == NULL, WAIT_MSEC);

  reset_agent_settings (settings);
}

int
main (int   argc,
      char *argv[])
{
  /* No session bus, so that no test reaches a real keyring, and GDBus does
   * not launch a bus of its own. */
  g_setenv ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/skele-test-bus", TRUE);

  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      printf ("1..0 # SKIP no display\n");
      return 0;
    }
  adw_init ();
  sk_widgets_init ();

  g_test_add_func ("/preferences/bindings", test_preferences_bindings);
  g_test_add_func ("/preferences/agent-bindings", test_preferences_agent_bindings);
  g_test_add_func ("/preferences/environment", test_preferences_environment);
  g_test_add_func ("/preferences/effective-values", test_preferences_effective_values);
  g_test_add_func ("/preferences/fetch-models", test_preferences_fetch_models);
  g_test_add_func ("/preferences/key-without-keyring", test_preferences_key_without_keyring);

  return g_test_run ();
}
