/* sk-agent-settings.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-agent-settings"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "sk-agent-key.h"
#include "sk-agent-settings.h"
#include "sk-settings.h"

#define DEFAULT_REPAIR_ATTEMPTS 2
#define DEFAULT_MAX_STEPS       30

/* The caller sees only the public part. The rest remembers where the key came
 * from, so that a key from the keyring is looked up again when the command
 * line points the settings at another server. */
typedef struct
{
  SkAgentSettings public;
  gboolean        use_keyring;
  gboolean        key_from_environment;

  /* Where each value in effect came from, for Preferences and for errors
   * that say what to change. */
  SkSettingSource sources[SK_AGENT_SETTING_API_KEY + 1];
} SkAgentSettingsReal;

static const char * const variables[] = {
  [SK_AGENT_SETTING_PROVIDER] = "SKELE_LLM_PROVIDER",
  [SK_AGENT_SETTING_BASE_URL] = "SKELE_LLM_BASE_URL",
  [SK_AGENT_SETTING_MODEL] = "SKELE_LLM_MODEL",
  [SK_AGENT_SETTING_API_KEY] = "SKELE_LLM_API_KEY",
};

static void
set_source (SkAgentSettings *self,
            SkAgentSetting   setting,
            SkSettingSource  source)
{
  ((SkAgentSettingsReal *) self)->sources[setting] = source;
}

static const char *
provider_display_name (SkLlmProvider provider)
{
  switch (provider)
    {
    case SK_LLM_PROVIDER_OPENAI:
      return _("OpenAI-compatible");
    case SK_LLM_PROVIDER_OLLAMA:
      return _("Ollama");
    case SK_LLM_PROVIDER_ANTHROPIC:
      return _("Anthropic");
    default:
      g_return_val_if_reached ("");
    }
}

static const char *
getenv_nonempty (const char *name)
{
  const char *value = g_getenv (name);

  return value != NULL && value[0] != '\0' ? value : NULL;
}

/* Changing the provider changes the address to the new provider's default,
 * since an address given for one dialect rarely serves another. */
static gboolean
set_provider (SkAgentSettings  *self,
              const char       *name,
              const char       *variable,
              GError          **error)
{
  SkLlmProvider provider;

  if (!sk_llm_provider_from_string (name, &provider))
    {
      if (variable != NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                     _("Unknown provider “%s” in %s: choose openai, ollama or anthropic"),
                     name, variable);
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                     _("Unknown provider “%s”: choose openai, ollama or anthropic"),
                     name);
      return FALSE;
    }

  if (provider != self->provider)
    {
      self->provider = provider;
      g_free (self->base_url);
      self->base_url = g_strdup (sk_llm_provider_default_base_url (provider));
      set_source (self, SK_AGENT_SETTING_BASE_URL, SK_SETTING_SOURCE_DEFAULT);
    }

  return TRUE;
}

/* An empty address, or one of only spaces, means the provider's default. */
static void
set_base_url (SkAgentSettings *self,
              const char      *base_url)
{
  g_free (self->base_url);
  self->base_url = g_strstrip (g_strdup (base_url != NULL ? base_url : ""));

  if (self->base_url[0] == '\0')
    {
      g_free (self->base_url);
      self->base_url = g_strdup (sk_llm_provider_default_base_url (self->provider));
      set_source (self, SK_AGENT_SETTING_BASE_URL, SK_SETTING_SOURCE_DEFAULT);
    }
}

static void
look_up_key (SkAgentSettings *self)
{
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->api_key, g_free);
  self->api_key = sk_agent_key_lookup_sync (self->provider, self->base_url, NULL, &error);

  /* Servers and tests have no keyring; a local server needs no key anyway,
   * and one that does will say so when it refuses the request. */
  if (error != NULL)
    g_debug ("No API key from the keyring: %s", error->message);
}

static void
read_preferences (SkAgentSettings *self,
                  GSettings       *settings)
{
  if (sk_settings_has_key (settings, "llm-provider"))
    {
      g_autofree char *name = g_settings_get_string (settings, "llm-provider");
      SkLlmProvider provider;

      if (sk_llm_provider_from_string (name, &provider))
        {
          self->provider = provider;
          set_source (self, SK_AGENT_SETTING_PROVIDER, SK_SETTING_SOURCE_PREFERENCES);
        }
      else
        g_debug ("Ignoring the unknown provider “%s” in the preferences", name);
    }

  if (sk_settings_has_key (settings, "llm-base-url"))
    {
      g_autofree char *base_url = g_settings_get_string (settings, "llm-base-url");

      set_source (self, SK_AGENT_SETTING_BASE_URL, SK_SETTING_SOURCE_PREFERENCES);
      set_base_url (self, base_url);
    }
  else
    set_base_url (self, NULL);

  if (sk_settings_has_key (settings, "llm-model"))
    {
      g_free (self->model);
      self->model = g_strstrip (g_settings_get_string (settings, "llm-model"));
      if (self->model[0] != '\0')
        set_source (self, SK_AGENT_SETTING_MODEL, SK_SETTING_SOURCE_PREFERENCES);
    }

  if (sk_settings_has_key (settings, "agent-repair-attempts"))
    self->repair_attempts = g_settings_get_uint (settings, "agent-repair-attempts");
  if (sk_settings_has_key (settings, "agent-max-steps"))
    self->max_steps = g_settings_get_uint (settings, "agent-max-steps");
  if (sk_settings_has_key (settings, "agent-require-sandbox"))
    self->require_sandbox = g_settings_get_boolean (settings, "agent-require-sandbox");
  if (sk_settings_has_key (settings, "agent-review-commands"))
    self->review_commands = g_settings_get_boolean (settings, "agent-review-commands");
  if (sk_settings_has_key (settings, "agent-allow-network"))
    self->allow_network = g_settings_get_boolean (settings, "agent-allow-network");
}

static gboolean
is_web_address (const char *address)
{
  g_autoptr(GUri) uri = g_uri_parse (address, G_URI_FLAGS_NONE, NULL);
  const char *scheme;
  const char *host;

  if (uri == NULL)
    return FALSE;

  scheme = g_uri_get_scheme (uri);
  host = g_uri_get_host (uri);

  return (g_ascii_strcasecmp (scheme, "http") == 0 ||
          g_ascii_strcasecmp (scheme, "https") == 0) &&
         host != NULL && host[0] != '\0';
}

/**
 * sk_agent_settings_new:
 *
 * Returns: (transfer full): the default settings: Ollama on its usual
 *   address, no model, no key
 */
SkAgentSettings *
sk_agent_settings_new (void)
{
  SkAgentSettingsReal *real = g_new0 (SkAgentSettingsReal, 1);
  SkAgentSettings *self = &real->public;

  self->provider = SK_LLM_PROVIDER_OLLAMA;
  self->base_url = g_strdup (sk_llm_provider_default_base_url (self->provider));
  self->model = g_strdup ("");
  self->api_key = NULL;
  self->repair_attempts = DEFAULT_REPAIR_ATTEMPTS;
  self->max_steps = DEFAULT_MAX_STEPS;
  self->require_sandbox = TRUE;
  self->review_commands = FALSE;
  self->allow_network = FALSE;

  return self;
}

/**
 * sk_agent_settings_load:
 * @settings: (nullable): the application's settings, or %NULL to use the
 *   installed schema when there is one
 * @use_keyring: whether to look the API key up in the desktop keyring
 * @error: where to put an error
 *
 * Reads the preferences, then lets the environment variables
 * `SKELE_LLM_PROVIDER`, `SKELE_LLM_BASE_URL`, `SKELE_LLM_MODEL` and
 * `SKELE_LLM_API_KEY` replace them; empty variables count as unset. The API
 * key comes from `SKELE_LLM_API_KEY`, or else from the keyring when
 * @use_keyring is set. A keyring that cannot be reached leaves the key unset
 * and is not an error.
 *
 * Returns: (transfer full): the settings, or %NULL when a variable holds an
 *   unknown provider
 */
SkAgentSettings *
sk_agent_settings_load (GSettings  *settings,
                        gboolean    use_keyring,
                        GError    **error)
{
  g_autoptr(SkAgentSettings) self = NULL;
  g_autoptr(GSettings) installed = NULL;
  SkAgentSettingsReal *real;
  const char *value;

  g_return_val_if_fail (settings == NULL || G_IS_SETTINGS (settings), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = sk_agent_settings_new ();
  real = (SkAgentSettingsReal *) self;

  if (settings == NULL)
    settings = installed = sk_settings_open_installed ();
  if (settings != NULL)
    read_preferences (self, settings);

  if ((value = getenv_nonempty ("SKELE_LLM_PROVIDER")) != NULL)
    {
      if (!set_provider (self, value, "SKELE_LLM_PROVIDER", error))
        return NULL;
      set_source (self, SK_AGENT_SETTING_PROVIDER, SK_SETTING_SOURCE_ENVIRONMENT);
    }

  if ((value = getenv_nonempty ("SKELE_LLM_BASE_URL")) != NULL)
    {
      set_source (self, SK_AGENT_SETTING_BASE_URL, SK_SETTING_SOURCE_ENVIRONMENT);
      set_base_url (self, value);
    }

  if ((value = getenv_nonempty ("SKELE_LLM_MODEL")) != NULL)
    {
      g_free (self->model);
      self->model = g_strdup (value);
      set_source (self, SK_AGENT_SETTING_MODEL, SK_SETTING_SOURCE_ENVIRONMENT);
    }

  real->use_keyring = use_keyring;

  if ((value = getenv_nonempty ("SKELE_LLM_API_KEY")) != NULL)
    {
      self->api_key = g_strdup (value);
      real->key_from_environment = TRUE;
      set_source (self, SK_AGENT_SETTING_API_KEY, SK_SETTING_SOURCE_ENVIRONMENT);
    }
  else if (use_keyring)
    look_up_key (self);

  return g_steal_pointer (&self);
}

/**
 * sk_agent_settings_free:
 * @self: (nullable): the settings
 */
void
sk_agent_settings_free (SkAgentSettings *self)
{
  if (self == NULL)
    return;

  g_free (self->base_url);
  g_free (self->model);
  g_free (self->api_key);
  g_free ((SkAgentSettingsReal *) self);
}

/**
 * sk_agent_settings_override:
 * @self: the settings
 * @provider: (nullable): `openai`, `ollama` or `anthropic`
 * @base_url: (nullable): the server's address; empty for the provider's
 *   default
 * @model: (nullable): the model's name
 * @error: where to put an error
 *
 * Applies the command line's choices, which win over the preferences and the
 * environment. %NULL keeps a value. A new provider without a new address
 * gets the provider's default address. When the server changes, a key that
 * came from the keyring is looked up again for the new server, so that a key
 * is never sent to a server it was not kept for.
 *
 * Returns: %FALSE with %G_IO_ERROR_INVALID_ARGUMENT for an unknown provider
 */
gboolean
sk_agent_settings_override (SkAgentSettings  *self,
                            const char       *provider,
                            const char       *base_url,
                            const char       *model,
                            GError          **error)
{
  SkAgentSettingsReal *real = (SkAgentSettingsReal *) self;
  g_autofree char *old_url = NULL;
  SkLlmProvider old_provider;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  old_provider = self->provider;
  old_url = sk_agent_key_normalize_url (self->provider, self->base_url);

  if (provider != NULL)
    {
      if (!set_provider (self, provider, NULL, error))
        return FALSE;
      set_source (self, SK_AGENT_SETTING_PROVIDER, SK_SETTING_SOURCE_COMMAND_LINE);
    }

  if (base_url != NULL)
    {
      set_source (self, SK_AGENT_SETTING_BASE_URL, SK_SETTING_SOURCE_COMMAND_LINE);
      set_base_url (self, base_url);
    }

  if (model != NULL)
    {
      g_free (self->model);
      self->model = g_strdup (model);
      set_source (self, SK_AGENT_SETTING_MODEL, SK_SETTING_SOURCE_COMMAND_LINE);
    }

  if (real->use_keyring && !real->key_from_environment)
    {
      g_autofree char *new_url = sk_agent_key_normalize_url (self->provider, self->base_url);

      if (old_provider != self->provider || g_strcmp0 (old_url, new_url) != 0)
        look_up_key (self);
    }

  return TRUE;
}

/**
 * sk_agent_settings_create_client:
 * @self: the settings
 * @error: where to put an error
 *
 * Returns: (transfer full): a client for the configured server and model, or
 *   %NULL with %SK_LLM_ERROR_NOT_CONFIGURED when no model is set or the
 *   address is not a web address
 */
SkLlmClient *
sk_agent_settings_create_client (const SkAgentSettings  *self,
                                 GError                **error)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->model == NULL || self->model[0] == '\0')
    {
      g_set_error_literal (error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED,
                           _("No language model is chosen. Choose one in "
                             "Preferences ▸ Coding Agent, set the environment "
                             "variable SKELE_LLM_MODEL, or give skele the "
                             "option --model."));
      return NULL;
    }

  if (self->base_url == NULL || !is_web_address (self->base_url))
    {
      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED,
                   _("The server address “%s” is not a web address starting "
                     "with http:// or https://. Correct it in Preferences ▸ "
                     "Coding Agent, in SKELE_LLM_BASE_URL, or with --base-url."),
                   self->base_url != NULL ? self->base_url : "");
      return NULL;
    }

  return sk_llm_client_new (self->provider, self->base_url, self->model, self->api_key);
}

/**
 * sk_agent_settings_describe:
 * @self: the settings
 *
 * Names the model and the server for people, such as
 * “qwen2.5-coder:7b on http://127.0.0.1:11434 (Ollama)”. Never the key.
 *
 * Returns: (transfer full): the description
 */
char *
sk_agent_settings_describe (const SkAgentSettings *self)
{
  const char *model;

  g_return_val_if_fail (self != NULL, NULL);

  model = self->model != NULL && self->model[0] != '\0' ? self->model : _("no model");

  /* Translators: a model, a server's address and the kind of server, as in
   * “qwen2.5-coder:7b on http://127.0.0.1:11434 (Ollama)”. */
  return g_strdup_printf (_("%s on %s (%s)"),
                          model, self->base_url, provider_display_name (self->provider));
}

/**
 * sk_agent_settings_is_ready:
 * @self: the settings
 *
 * Whether a coding agent can be called with @self: a model is chosen and
 * the server's address is a web address, as sk_agent_settings_create_client()
 * needs. The API key is not asked for: a server on this computer needs
 * none, and one that does says so when it refuses a request.
 *
 * Returns: %TRUE when the settings are enough to call the agent
 */
gboolean
sk_agent_settings_is_ready (const SkAgentSettings *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->model != NULL && self->model[0] != '\0' &&
         self->base_url != NULL && is_web_address (self->base_url);
}

/**
 * sk_agent_settings_get_value:
 * @self: the settings
 * @setting: which setting
 *
 * Returns: (nullable): the value in effect: the provider's name (such as
 *   `ollama`), the address, the model's name (empty when none is chosen)
 *   or the API key (%NULL when there is none)
 */
const char *
sk_agent_settings_get_value (const SkAgentSettings *self,
                             SkAgentSetting         setting)
{
  g_return_val_if_fail (self != NULL, NULL);

  switch (setting)
    {
    case SK_AGENT_SETTING_PROVIDER:
      return sk_llm_provider_to_string (self->provider);
    case SK_AGENT_SETTING_BASE_URL:
      return self->base_url;
    case SK_AGENT_SETTING_MODEL:
      return self->model;
    case SK_AGENT_SETTING_API_KEY:
      return self->api_key;
    default:
      g_return_val_if_reached (NULL);
    }
}

/**
 * sk_agent_settings_get_source:
 * @self: the settings
 * @setting: which setting
 *
 * Returns: where the value in effect of @setting comes from; an API key set
 *   on @self by its caller counts as the keyring's
 */
SkSettingSource
sk_agent_settings_get_source (const SkAgentSettings *self,
                              SkAgentSetting         setting)
{
  const SkAgentSettingsReal *real = (const SkAgentSettingsReal *) self;

  g_return_val_if_fail (self != NULL, SK_SETTING_SOURCE_DEFAULT);
  g_return_val_if_fail (setting <= SK_AGENT_SETTING_API_KEY, SK_SETTING_SOURCE_DEFAULT);

  if (setting == SK_AGENT_SETTING_API_KEY && real->sources[setting] == SK_SETTING_SOURCE_DEFAULT &&
      self->api_key != NULL)
    return SK_SETTING_SOURCE_KEYRING;

  return real->sources[setting];
}

/**
 * sk_agent_setting_get_variable:
 * @setting: which setting
 *
 * Returns: the environment variable that sets @setting over Preferences,
 *   such as `SKELE_LLM_MODEL`
 */
const char *
sk_agent_setting_get_variable (SkAgentSetting setting)
{
  g_return_val_if_fail (setting <= SK_AGENT_SETTING_API_KEY, NULL);

  return variables[setting];
}

/**
 * sk_agent_settings_describe_source:
 * @self: the settings
 * @setting: which setting
 *
 * Says where the value in effect comes from when it is not Preferences,
 * such as “Set by the environment variable SKELE_LLM_MODEL”, for a row of
 * Preferences or an error message.
 *
 * Returns: (transfer full) (nullable): the sentence, or %NULL when the value
 *   is the one of Preferences or the default
 */
char *
sk_agent_settings_describe_source (const SkAgentSettings *self,
                                   SkAgentSetting         setting)
{
  g_return_val_if_fail (self != NULL, NULL);

  switch (sk_agent_settings_get_source (self, setting))
    {
    case SK_SETTING_SOURCE_ENVIRONMENT:
      /* Translators: %s is the name of an environment variable. */
      return g_strdup_printf (_("Set by the environment variable %s"),
                              sk_agent_setting_get_variable (setting));
    case SK_SETTING_SOURCE_COMMAND_LINE:
      return g_strdup (_("Set by an option of the command line"));
    case SK_SETTING_SOURCE_DEFAULT:
    case SK_SETTING_SOURCE_PREFERENCES:
    case SK_SETTING_SOURCE_KEYRING:
    default:
      return NULL;
    }
}
