/* sk-preferences-window.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "skele.h"
#include "sk-preferences-window.h"

struct _SkPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  /* Owned refs */
  GSettings            *settings;
  GCancellable         *cancellable;
  GCancellable         *key_cancellable;
  GCancellable         *fetch_cancellable;
  char                 *last_toast;

  /* Template widgets */
  GtkAdjustment        *jobs_adjustment;
  GtkAdjustment        *timeout_adjustment;
  AdwEntryRow          *python_row;
  AdwComboRow          *step_sandbox_row;
  AdwPreferencesPage   *agent_page;
  AdwPreferencesGroup  *environment_group;
  AdwActionRow         *environment_row;
  AdwComboRow          *provider_row;
  AdwEntryRow          *base_url_row;
  AdwEntryRow          *model_row;
  GtkMenuButton        *models_button;
  GtkPopover           *models_popover;
  GtkStack             *models_stack;
  GtkSpinner           *models_spinner;
  GtkListBox           *models_list;
  AdwPasswordEntryRow  *key_row;
  GtkLabel             *server_note;
  GtkAdjustment        *repair_adjustment;
  GtkAdjustment        *steps_adjustment;
  GtkSwitch            *sandbox_switch;
  GtkSwitch            *review_switch;
  GtkSwitch            *network_switch;
  char                 *keyring_problem;

  /* The server that environment variables set over the rows, if any: the
   * key is kept and looked up for the server the agent uses. */
  char                 *environment_base_url;
  int                   environment_provider;

  guint                 key_loaded : 1;
  guint                 key_dirty : 1;
  guint                 setting_key : 1;
  guint                 key_from_environment : 1;
};

G_DEFINE_FINAL_TYPE (SkPreferencesWindow, sk_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

static const char * const environment_variables[] = {
  "SKELE_LLM_PROVIDER",
  "SKELE_LLM_BASE_URL",
  "SKELE_LLM_MODEL",
  "SKELE_LLM_API_KEY",
};

static void
show_toast (SkPreferencesWindow *self,
            const char          *message)
{
  g_autofree char *escaped = NULL;
  AdwToast *toast;

  g_free (self->last_toast);
  self->last_toast = g_strdup (message);

  /* A toast's title is markup; messages are plain text, and may hold a
   * web address in angle brackets or an ampersand. */
  escaped = g_markup_escape_text (message, -1);
  toast = adw_toast_new (escaped);
  adw_toast_set_timeout (toast, 8);
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), toast);
}

/* Callbacks of asynchronous calls hold a reference on the window; after it is
 * closed they must leave its widgets alone. */
static gboolean
is_closed (SkPreferencesWindow *self)
{
  return g_cancellable_is_cancelled (self->cancellable);
}

static SkLlmProvider
current_provider (SkPreferencesWindow *self)
{
  g_autofree char *name = NULL;
  SkLlmProvider provider = SK_LLM_PROVIDER_OLLAMA;

  if (self->environment_provider >= 0)
    return (SkLlmProvider) self->environment_provider;

  name = g_settings_get_string (self->settings, "llm-provider");
  sk_llm_provider_from_string (name, &provider);

  return provider;
}

static char *
current_base_url (SkPreferencesWindow *self)
{
  g_autofree char *base_url = NULL;

  if (self->environment_base_url != NULL)
    return g_strdup (self->environment_base_url);

  base_url = g_strstrip (g_settings_get_string (self->settings, "llm-base-url"));
  if (base_url[0] == '\0')
    return g_strdup (sk_llm_provider_default_base_url (current_provider (self)));

  return g_steal_pointer (&base_url);
}

static void
update_server_note (SkPreferencesWindow *self)
{
  const char *default_url = sk_llm_provider_default_base_url (current_provider (self));
  g_autofree char *address = NULL;
  g_autofree char *note = NULL;
  GtkWidget *delegate;

  /* AdwEntryRow shows its title while it is empty and unfocused; the
   * placeholder appears once the user is in the field. */
  delegate = GTK_WIDGET (gtk_editable_get_delegate (GTK_EDITABLE (self->base_url_row)));
  if (GTK_IS_TEXT (delegate))
    gtk_text_set_placeholder_text (GTK_TEXT (delegate), default_url);

  /* Translators: %s is a web address, such as http://127.0.0.1:11434. */
  address = g_strdup_printf (_("Leave the address empty to use the provider’s usual one, %s."),
                             default_url);

  /* The keyring's own message says whether it is missing or locked, and
   * what to do. */
  if (self->keyring_problem != NULL)
    note = g_strdup_printf ("%s %s", address, self->keyring_problem);
  else
    note = g_strdup_printf ("%s %s", address,
                            _("The API key is kept in the desktop keyring, never in "
                              "the settings or the workflow. A server on this "
                              "computer, such as Ollama, needs no key."));

  gtk_label_set_label (self->server_note, note);
}

static void
update_environment (SkPreferencesWindow *self)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autofree char *list = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (environment_variables); i++)
    {
      const char *value = g_getenv (environment_variables[i]);

      if (value != NULL && value[0] != '\0')
        g_ptr_array_add (names, (gpointer) environment_variables[i]);
    }
  g_ptr_array_add (names, NULL);

  list = g_strjoinv (", ", (char **) names->pdata);
  adw_action_row_set_subtitle (self->environment_row, list);
  gtk_widget_set_visible (GTK_WIDGET (self->environment_group), names->len > 1);
}

static void
set_key_text (SkPreferencesWindow *self,
              const char          *key)
{
  self->setting_key = TRUE;
  gtk_editable_set_text (GTK_EDITABLE (self->key_row), key != NULL ? key : "");
  self->setting_key = FALSE;
}

static void
key_lookup_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SkPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;

  key = sk_agent_key_lookup_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || is_closed (self))
    return;

  g_clear_pointer (&self->keyring_problem, g_free);
  if (error != NULL)
    self->keyring_problem = g_strdup (error->message);
  update_server_note (self);

  /* What the user typed meanwhile wins over what the keyring had. */
  if (!self->key_dirty)
    set_key_text (self, key);
}

static void
load_key (SkPreferencesWindow *self)
{
  g_autofree char *base_url = current_base_url (self);

  /* The key in effect is the environment's; the keyring's is not used. */
  if (self->key_from_environment)
    return;

  g_cancellable_cancel (self->key_cancellable);
  g_clear_object (&self->key_cancellable);
  self->key_cancellable = g_cancellable_new ();
  self->key_loaded = TRUE;

  sk_agent_key_lookup_async (current_provider (self), base_url, self->key_cancellable,
                             key_lookup_cb, g_object_ref (self));
}

static void
key_kept (SkPreferencesWindow *self,
          const GError        *error)
{
  if (error == NULL)
    return;

  if (is_closed (self))
    {
      g_debug ("The API key was not kept: %s", error->message);
      return;
    }

  g_free (self->keyring_problem);
  self->keyring_problem = g_strdup (error->message);
  update_server_note (self);
  show_toast (self, error->message);
}

static void
key_stored_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SkPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  sk_agent_key_store_finish (result, &error);
  key_kept (self, error);
}

static void
key_cleared_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(SkPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  sk_agent_key_clear_finish (result, &error);
  key_kept (self, error);
}

/* The key is stored for the server the rows name at the time, and only when
 * the user changed it, so that opening and closing the window never touches
 * the keyring's contents. */
static void
store_key (SkPreferencesWindow *self)
{
  g_autofree char *base_url = NULL;
  const char *key;

  if (!self->key_dirty)
    return;

  self->key_dirty = FALSE;
  base_url = current_base_url (self);
  key = gtk_editable_get_text (GTK_EDITABLE (self->key_row));

  if (key[0] == '\0')
    sk_agent_key_clear_async (current_provider (self), base_url, NULL,
                              key_cleared_cb, g_object_ref (self));
  else
    sk_agent_key_store_async (current_provider (self), base_url, key, NULL,
                              key_stored_cb, g_object_ref (self));
}

/* Says in @row's title where its value comes from, such as
 * "Model — set by the environment variable SKELE_LLM_MODEL". */
static void
explain_row (AdwPreferencesRow *row,
             const char        *title,
             const char        *variable)
{
  g_autofree char *full = NULL;
  g_autofree char *tooltip = NULL;

  /* Translators: the first %s is the title of a setting, such as “Model”,
   * the second an environment variable, such as SKELE_LLM_MODEL. */
  full = g_strdup_printf (_("%s — set by the environment variable %s"), title, variable);
  /* Translators: %s is an environment variable, such as SKELE_LLM_MODEL. */
  tooltip = g_strdup_printf (_("Set by the environment variable %s, which wins over this "
                               "setting. Change or unset the variable to change it."), variable);
  adw_preferences_row_set_use_underline (row, FALSE);
  adw_preferences_row_set_title (row, full);
  gtk_widget_set_tooltip_text (GTK_WIDGET (row), tooltip);
  gtk_widget_set_sensitive (GTK_WIDGET (row), FALSE);
}

/* A row whose setting an environment variable overrides shows the value in
 * effect, says where it comes from, and cannot be edited: what it would
 * change is not what the coding agent uses. */
static void
show_effective_values (SkPreferencesWindow *self)
{
  g_autoptr(SkAgentSettings) effective = NULL;
  g_autoptr(GError) error = NULL;
  const char *variable;

  effective = sk_agent_settings_load (self->settings, FALSE, &error);
  if (effective == NULL)
    {
      /* An unknown provider in the environment is told when a run starts. */
      g_debug ("The settings in effect could not be read: %s", error->message);
      return;
    }

  if (sk_agent_settings_get_source (effective, SK_AGENT_SETTING_PROVIDER) == SK_SETTING_SOURCE_ENVIRONMENT)
    {
      g_autofree char *source = sk_agent_settings_describe_source (effective, SK_AGENT_SETTING_PROVIDER);

      self->environment_provider = effective->provider;
      g_settings_unbind (self->provider_row, "selected");
      adw_combo_row_set_selected (self->provider_row, effective->provider);
      adw_combo_row_set_use_subtitle (self->provider_row, FALSE);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self->provider_row), source);
      gtk_widget_set_sensitive (GTK_WIDGET (self->provider_row), FALSE);
    }

  /* A provider from the environment brings its usual address, whatever
   * address Preferences keep for the one they name. */
  if (sk_agent_settings_get_source (effective, SK_AGENT_SETTING_BASE_URL) == SK_SETTING_SOURCE_ENVIRONMENT)
    variable = sk_agent_setting_get_variable (SK_AGENT_SETTING_BASE_URL);
  else if (sk_agent_settings_get_source (effective, SK_AGENT_SETTING_PROVIDER) == SK_SETTING_SOURCE_ENVIRONMENT)
    variable = sk_agent_setting_get_variable (SK_AGENT_SETTING_PROVIDER);
  else
    variable = NULL;
  if (variable != NULL)
    {
      self->environment_base_url = g_strdup (effective->base_url);
      g_settings_unbind (self->base_url_row, "text");
      gtk_editable_set_text (GTK_EDITABLE (self->base_url_row), effective->base_url);
      explain_row (ADW_PREFERENCES_ROW (self->base_url_row), _("Server Address"), variable);
    }

  if (sk_agent_settings_get_source (effective, SK_AGENT_SETTING_MODEL) == SK_SETTING_SOURCE_ENVIRONMENT)
    {
      g_settings_unbind (self->model_row, "text");
      gtk_editable_set_text (GTK_EDITABLE (self->model_row), effective->model);
      explain_row (ADW_PREFERENCES_ROW (self->model_row), _("Model"),
                   sk_agent_setting_get_variable (SK_AGENT_SETTING_MODEL));
    }

  if (sk_agent_settings_get_source (effective, SK_AGENT_SETTING_API_KEY) == SK_SETTING_SOURCE_ENVIRONMENT)
    {
      self->key_from_environment = TRUE;
      set_key_text (self, effective->api_key);
      explain_row (ADW_PREFERENCES_ROW (self->key_row), _("API Key"),
                   sk_agent_setting_get_variable (SK_AGENT_SETTING_API_KEY));
    }

  update_server_note (self);
}

static void
key_row_changed_cb (SkPreferencesWindow *self)
{
  if (!self->setting_key)
    self->key_dirty = TRUE;
}

static void
key_row_apply_cb (SkPreferencesWindow *self)
{
  store_key (self);
}

static void
server_changed_cb (SkPreferencesWindow *self)
{
  update_server_note (self);

  /* Keys are kept per server: show the new server's key, unless the user
   * typed one that is still to be stored. */
  if (self->key_dirty)
    return;

  if (gtk_widget_get_mapped (GTK_WIDGET (self->agent_page)))
    load_key (self);
  else
    self->key_loaded = FALSE;
}

static void
agent_page_map_cb (SkPreferencesWindow *self)
{
  /* The keyring may have to be unlocked, so it is asked only when the page
   * that shows the key is opened. */
  if (!self->key_loaded)
    load_key (self);
}

static void
clear_models_list (SkPreferencesWindow *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->models_list))) != NULL)
    gtk_list_box_remove (self->models_list, child);
}

static char *
describe_list_error (SkPreferencesWindow *self,
                     const GError        *error)
{
  g_autofree char *base_url = current_base_url (self);

  if (g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_CONNECTION) ||
      g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_TIMEOUT))
    /* Translators: %s is a web address. */
    return g_strdup_printf (_("Could not reach the server at %s. Check the address, "
                              "and that the server is running."),
                            base_url);

  if (g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_AUTH))
    return g_strdup (_("The server refused the API key. Check the key, then press "
                       "Enter to keep it."));

  /* Translators: %s is the server's own explanation. */
  return g_strdup_printf (_("Could not get the list of models: %s"), error->message);
}

static void
list_models_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(SkPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) models = NULL;

  models = sk_llm_client_list_models_finish (SK_LLM_CLIENT (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || is_closed (self))
    return;

  gtk_spinner_stop (self->models_spinner);

  if (error != NULL)
    {
      g_autofree char *message = describe_list_error (self, error);

      g_debug ("Listing the models failed: %s", error->message);
      gtk_popover_popdown (self->models_popover);
      show_toast (self, message);
      return;
    }

  clear_models_list (self);
  for (guint i = 0; models != NULL && models[i] != NULL; i++)
    {
      GtkWidget *label = gtk_label_new (models[i]);
      GtkWidget *row = gtk_list_box_row_new ();

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
      gtk_widget_set_margin_top (label, 6);
      gtk_widget_set_margin_bottom (label, 6);
      gtk_widget_set_margin_start (label, 6);
      gtk_widget_set_margin_end (label, 6);
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), label);
      gtk_widget_set_tooltip_text (row, models[i]);
      g_object_set_data_full (G_OBJECT (row), "model", g_strdup (models[i]), g_free);
      gtk_list_box_append (self->models_list, row);
    }

  if (models == NULL || models[0] == NULL)
    {
      gtk_stack_set_visible_child_name (self->models_stack, "empty");
      return;
    }

  gtk_stack_set_visible_child_name (self->models_stack, "list");
  gtk_widget_child_focus (GTK_WIDGET (self->models_list), GTK_DIR_TAB_FORWARD);
}

static void
fetch_models (SkPreferencesWindow *self)
{
  g_autoptr(SkLlmClient) client = NULL;
  g_autofree char *base_url = current_base_url (self);
  g_autofree char *model = g_settings_get_string (self->settings, "llm-model");
  const char *key = gtk_editable_get_text (GTK_EDITABLE (self->key_row));

  if (key[0] == '\0')
    key = g_getenv ("SKELE_LLM_API_KEY");

  g_cancellable_cancel (self->fetch_cancellable);
  g_clear_object (&self->fetch_cancellable);
  self->fetch_cancellable = g_cancellable_new ();

  gtk_stack_set_visible_child_name (self->models_stack, "loading");
  gtk_spinner_start (self->models_spinner);

  client = sk_llm_client_new (current_provider (self), base_url, model,
                              key != NULL && key[0] != '\0' ? key : NULL);
  sk_llm_client_list_models_async (client, self->fetch_cancellable,
                                   list_models_cb, g_object_ref (self));
}

static void
models_popover_show_cb (SkPreferencesWindow *self)
{
  fetch_models (self);
}

static void
models_popover_closed_cb (SkPreferencesWindow *self)
{
  /* Closing the list before the server answered means the answer is no
   * longer wanted. */
  g_debug ("The list of models was closed");
  g_cancellable_cancel (self->fetch_cancellable);
  gtk_spinner_stop (self->models_spinner);
}

static void
models_list_row_activated_cb (SkPreferencesWindow *self,
                              GtkListBoxRow       *row)
{
  const char *model = g_object_get_data (G_OBJECT (row), "model");

  g_assert (model != NULL);

  gtk_editable_set_text (GTK_EDITABLE (self->model_row), model);
  gtk_popover_popdown (self->models_popover);
}

static gboolean
sandbox_get_mapping (GValue   *value,
                     GVariant *variant,
                     gpointer  user_data)
{
  SkSandboxPolicy policy;

  if (!sk_sandbox_policy_from_string (g_variant_get_string (variant, NULL), &policy))
    return FALSE;

  /* The combo row lists the policies in the order of SkSandboxPolicy. */
  g_value_set_uint (value, policy);

  return TRUE;
}

static GVariant *
sandbox_set_mapping (const GValue       *value,
                     const GVariantType *expected_type,
                     gpointer            user_data)
{
  guint selected = g_value_get_uint (value);

  if (selected > SK_SANDBOX_POLICY_OFF)
    return NULL;

  return g_variant_new_string (sk_sandbox_policy_to_string ((SkSandboxPolicy) selected));
}

static gboolean
provider_get_mapping (GValue   *value,
                      GVariant *variant,
                      gpointer  user_data)
{
  SkLlmProvider provider;

  if (!sk_llm_provider_from_string (g_variant_get_string (variant, NULL), &provider))
    return FALSE;

  /* The combo row lists the providers in the order of SkLlmProvider. */
  g_value_set_uint (value, provider);

  return TRUE;
}

static GVariant *
provider_set_mapping (const GValue       *value,
                      const GVariantType *expected_type,
                      gpointer            user_data)
{
  guint selected = g_value_get_uint (value);

  if (selected > SK_LLM_PROVIDER_ANTHROPIC)
    return NULL;

  return g_variant_new_string (sk_llm_provider_to_string ((SkLlmProvider) selected));
}

/**
 * sk_preferences_window_new:
 * @settings: the application's settings
 *
 * Returns: (transfer full): a window whose rows change @settings at once
 */
SkPreferencesWindow *
sk_preferences_window_new (GSettings *settings)
{
  SkPreferencesWindow *self;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  self = g_object_new (SK_TYPE_PREFERENCES_WINDOW, NULL);
  self->settings = g_object_ref (settings);

  g_settings_bind (settings, "jobs", self->jobs_adjustment, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "timeout", self->timeout_adjustment, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "python", self->python_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (settings, "sandbox", self->step_sandbox_row, "selected",
                                G_SETTINGS_BIND_DEFAULT,
                                sandbox_get_mapping, sandbox_set_mapping, NULL, NULL);

  g_settings_bind_with_mapping (settings, "llm-provider", self->provider_row, "selected",
                                G_SETTINGS_BIND_DEFAULT,
                                provider_get_mapping, provider_set_mapping, NULL, NULL);
  g_settings_bind (settings, "llm-base-url",
                   self->base_url_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "llm-model",
                   self->model_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "agent-repair-attempts",
                   self->repair_adjustment, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "agent-max-steps",
                   self->steps_adjustment, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "agent-require-sandbox",
                   self->sandbox_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "agent-review-commands",
                   self->review_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "agent-allow-network",
                   self->network_switch, "active", G_SETTINGS_BIND_DEFAULT);

  g_signal_connect_swapped (settings, "changed::llm-provider",
                            G_CALLBACK (server_changed_cb), self);
  g_signal_connect_swapped (settings, "changed::llm-base-url",
                            G_CALLBACK (server_changed_cb), self);

  update_server_note (self);
  update_environment (self);
  show_effective_values (self);

  return self;
}

/**
 * _sk_preferences_window_get_last_toast:
 * @self: a #SkPreferencesWindow
 *
 * For the tests, which cannot read a toast back from libadwaita 1.2.
 *
 * Returns: (nullable): the last message shown as a toast
 */
const char *
_sk_preferences_window_get_last_toast (SkPreferencesWindow *self)
{
  g_return_val_if_fail (SK_IS_PREFERENCES_WINDOW (self), NULL);

  return self->last_toast;
}

static gboolean
sk_preferences_window_close_request (GtkWindow *window)
{
  SkPreferencesWindow *self = SK_PREFERENCES_WINDOW (window);

  store_key (self);

  return GTK_WINDOW_CLASS (sk_preferences_window_parent_class)->close_request (window);
}

static void
sk_preferences_window_dispose (GObject *object)
{
  SkPreferencesWindow *self = SK_PREFERENCES_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->key_cancellable);
  g_cancellable_cancel (self->fetch_cancellable);

  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);

  gtk_widget_dispose_template (GTK_WIDGET (self), SK_TYPE_PREFERENCES_WINDOW);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (sk_preferences_window_parent_class)->dispose (object);
}

static void
sk_preferences_window_finalize (GObject *object)
{
  SkPreferencesWindow *self = SK_PREFERENCES_WINDOW (object);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->key_cancellable);
  g_clear_object (&self->fetch_cancellable);
  g_clear_pointer (&self->last_toast, g_free);
  g_clear_pointer (&self->keyring_problem, g_free);
  g_clear_pointer (&self->environment_base_url, g_free);

  G_OBJECT_CLASS (sk_preferences_window_parent_class)->finalize (object);
}

static void
sk_preferences_window_class_init (SkPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = sk_preferences_window_dispose;
  object_class->finalize = sk_preferences_window_finalize;

  window_class->close_request = sk_preferences_window_close_request;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/skelecode/SkeleCode/sk-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, jobs_adjustment);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, timeout_adjustment);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, python_row);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, step_sandbox_row);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, agent_page);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, environment_group);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, environment_row);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, provider_row);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, base_url_row);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, model_row);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, models_button);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, models_popover);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, models_stack);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, models_spinner);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, models_list);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, key_row);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, server_note);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, repair_adjustment);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, steps_adjustment);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, sandbox_switch);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, review_switch);
  gtk_widget_class_bind_template_child (widget_class, SkPreferencesWindow, network_switch);
  /* Named for the tests, which activate these rows as a user would. */
  gtk_widget_class_bind_template_child_full (widget_class, "sandbox_row", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "network_row", FALSE, 0);
  gtk_widget_class_bind_template_callback (widget_class, agent_page_map_cb);
  gtk_widget_class_bind_template_callback (widget_class, key_row_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, key_row_apply_cb);
  gtk_widget_class_bind_template_callback (widget_class, models_popover_show_cb);
  gtk_widget_class_bind_template_callback (widget_class, models_popover_closed_cb);
  gtk_widget_class_bind_template_callback (widget_class, models_list_row_activated_cb);
}

static void
sk_preferences_window_init (SkPreferencesWindow *self)
{
  self->cancellable = g_cancellable_new ();
  self->environment_provider = -1;

  gtk_widget_init_template (GTK_WIDGET (self));
}
