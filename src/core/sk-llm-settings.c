/* sk-llm-settings.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-llm-settings"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <libsecret/secret.h>

#include "sk-llm-settings.h"

#define DEFAULT_REPAIR_ATTEMPTS 2
#define DEFAULT_MAX_STEPS       30

/* The caller sees only the public part. The rest remembers where the key came
 * from, so that a key from the keyring is looked up again when the command
 * line points the settings at another server. */
typedef struct
{
  SkLlmSettings public;
  gboolean      use_keyring;
  gboolean      key_from_environment;
} SkLlmSettingsReal;

static const SecretSchema key_schema = {
  "io.github.skelecode.SkeleCode.ApiKey",
  SECRET_SCHEMA_NONE,
  {
    { "provider", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { "base-url", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { NULL, 0 },
  },
};

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

/* A key is filed under the address without trailing slashes, so that
 * "http://host/v1/" and "http://host/v1" find the same key. */
static char *
key_base_url (SkLlmProvider  provider,
              const char    *base_url)
{
  char *url;
  gsize len;

  if (base_url == NULL || base_url[0] == '\0')
    base_url = sk_llm_provider_default_base_url (provider);

  url = g_strdup (base_url);
  len = strlen (url);
  while (len > 1 && url[len - 1] == '/')
    url[--len] = '\0';

  return url;
}

static GError *
keyring_error_new (const GError *secret_error)
{
  if (g_error_matches (secret_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return g_error_copy (secret_error);

  g_debug ("Keyring: %s", secret_error->message);

  return g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED,
                      _("The desktop keyring is not available (%s). Set the "
                        "environment variable SKELE_LLM_API_KEY to give the "
                        "API key instead."),
                      secret_error->message);
}

/* libsecret hands out passwords in memory of its own, freed its own way. */
static char *
take_secret (char *secret)
{
  char *copy = NULL;

  if (secret != NULL && secret[0] != '\0')
    copy = g_strdup (secret);
  if (secret != NULL)
    secret_password_free (secret);

  return copy;
}

/* libsecret shares one connection to the keyring among the calls that are
 * waiting for it, and cancelling one of them fails all the others with
 * G_IO_ERROR_CANCELLED. Such a call is made again, a few times at most. */
#define MAX_KEYRING_ATTEMPTS 5

typedef enum
{
  KEY_STORE,
  KEY_LOOKUP,
  KEY_CLEAR,
} KeyOperation;

typedef struct
{
  KeyOperation  operation;
  SkLlmProvider provider;
  char         *base_url;
  char         *api_key;
  guint         attempts;
} KeyRequest;

static void
key_request_free (KeyRequest *request)
{
  g_free (request->base_url);
  g_free (request->api_key);
  g_free (request);
}

static gboolean
cancelled_by_another_call (GTask        *task,
                           const GError *error)
{
  KeyRequest *request = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
         (cancellable == NULL || !g_cancellable_is_cancelled (cancellable)) &&
         request->attempts < MAX_KEYRING_ATTEMPTS;
}

static void     key_request_start (GTask    *task);
static gboolean key_request_retry (gpointer  user_data);

static void
key_request_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  KeyRequest *request = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  char *secret = NULL;

  switch (request->operation)
    {
    case KEY_STORE:
      secret_password_store_finish (result, &error);
      break;
    case KEY_LOOKUP:
      secret = secret_password_lookup_finish (result, &error);
      break;
    case KEY_CLEAR:
      /* FALSE without an error means there was no key to remove. */
      secret_password_clear_finish (result, &error);
      break;
    default:
      g_assert_not_reached ();
    }

  if (error != NULL && cancelled_by_another_call (task, error))
    {
      /* A little later, once libsecret has finished with the connection
       * it failed; asked at once, it fails again the same way. */
      g_debug ("Asking the keyring again: another call was cancelled");
      g_timeout_add (25 * request->attempts, key_request_retry, g_steal_pointer (&task));
      return;
    }

  /* A call that nobody cancelled still failed as cancelled after its
   * attempts: for its caller the keyring did not answer.
   */
  if (error != NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
      (g_task_get_cancellable (task) == NULL || !g_cancellable_is_cancelled (g_task_get_cancellable (task))))
    error->code = G_IO_ERROR_FAILED;

  if (error != NULL)
    g_task_return_error (task, keyring_error_new (error));
  else if (request->operation == KEY_LOOKUP)
    g_task_return_pointer (task, take_secret (secret), g_free);
  else
    g_task_return_boolean (task, TRUE);
}

static void
key_request_start (GTask *task)
{
  KeyRequest *request = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  const char *provider = sk_llm_provider_to_string (request->provider);
  g_autofree char *label = NULL;

  request->attempts++;

  switch (request->operation)
    {
    case KEY_STORE:
      /* Translators: the name of the key in the keyring, as the Passwords
       * and Keys application shows it; %s is the server's address. */
      label = g_strdup_printf (_("Skele-Code API key for %s"), request->base_url);
      secret_password_store (&key_schema, SECRET_COLLECTION_DEFAULT, label, request->api_key,
                             cancellable, key_request_cb, task,
                             "provider", provider,
                             "base-url", request->base_url,
                             NULL);
      break;
    case KEY_LOOKUP:
      secret_password_lookup (&key_schema, cancellable, key_request_cb, task,
                              "provider", provider,
                              "base-url", request->base_url,
                              NULL);
      break;
    case KEY_CLEAR:
      secret_password_clear (&key_schema, cancellable, key_request_cb, task,
                             "provider", provider,
                             "base-url", request->base_url,
                             NULL);
      break;
    default:
      g_assert_not_reached ();
    }
}

static gboolean
key_request_retry (gpointer user_data)
{
  key_request_start (user_data);

  return G_SOURCE_REMOVE;
}

static void
key_request_run (KeyOperation         operation,
                 gpointer             source_tag,
                 SkLlmProvider        provider,
                 const char          *base_url,
                 const char          *api_key,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  KeyRequest *request = g_new0 (KeyRequest, 1);

  g_task_set_source_tag (task, source_tag);

  request->operation = operation;
  request->provider = provider;
  request->base_url = key_base_url (provider, base_url);
  request->api_key = g_strdup (api_key);
  g_task_set_task_data (task, request, (GDestroyNotify) key_request_free);

  key_request_start (task);
}

/* Changing the provider changes the address to the new provider's default,
 * since an address given for one dialect rarely serves another. */
static gboolean
set_provider (SkLlmSettings  *self,
              const char     *name,
              const char     *variable,
              GError        **error)
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
    }

  return TRUE;
}

/* An empty address, or one of only spaces, means the provider's default. */
static void
set_base_url (SkLlmSettings *self,
              const char    *base_url)
{
  g_free (self->base_url);
  self->base_url = g_strstrip (g_strdup (base_url != NULL ? base_url : ""));

  if (self->base_url[0] == '\0')
    {
      g_free (self->base_url);
      self->base_url = g_strdup (sk_llm_provider_default_base_url (self->provider));
    }
}

static void
look_up_key (SkLlmSettings *self)
{
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->api_key, g_free);
  self->api_key = sk_llm_key_lookup_sync (self->provider, self->base_url, NULL, &error);

  /* Servers and tests have no keyring; a local server needs no key anyway,
   * and one that does will say so when it refuses the request. */
  if (error != NULL)
    g_debug ("No API key from the keyring: %s", error->message);
}

static GSettings *
open_installed_settings (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, SK_LLM_SETTINGS_SCHEMA_ID, TRUE);

  if (schema == NULL)
    {
      g_debug ("The schema %s is not installed; using the defaults",
               SK_LLM_SETTINGS_SCHEMA_ID);
      return NULL;
    }

  return g_settings_new_full (schema, NULL, NULL);
}

/* An installed schema may be older than this program, so each key is read
 * only when the schema has it. */
static gboolean
has_key (GSettings  *settings,
         const char *key)
{
  g_autoptr(GSettingsSchema) schema = NULL;

  g_object_get (settings, "settings-schema", &schema, NULL);

  return schema != NULL && g_settings_schema_has_key (schema, key);
}

static void
read_preferences (SkLlmSettings *self,
                  GSettings     *settings)
{
  if (has_key (settings, "llm-provider"))
    {
      g_autofree char *name = g_settings_get_string (settings, "llm-provider");
      SkLlmProvider provider;

      if (sk_llm_provider_from_string (name, &provider))
        self->provider = provider;
      else
        g_debug ("Ignoring the unknown provider “%s” in the preferences", name);
    }

  if (has_key (settings, "llm-base-url"))
    {
      g_autofree char *base_url = g_settings_get_string (settings, "llm-base-url");

      set_base_url (self, base_url);
    }
  else
    set_base_url (self, NULL);

  if (has_key (settings, "llm-model"))
    {
      g_free (self->model);
      self->model = g_strstrip (g_settings_get_string (settings, "llm-model"));
    }

  if (has_key (settings, "agent-repair-attempts"))
    self->repair_attempts = g_settings_get_uint (settings, "agent-repair-attempts");
  if (has_key (settings, "agent-max-steps"))
    self->max_steps = g_settings_get_uint (settings, "agent-max-steps");
  if (has_key (settings, "agent-require-sandbox"))
    self->require_sandbox = g_settings_get_boolean (settings, "agent-require-sandbox");
  if (has_key (settings, "agent-review-commands"))
    self->review_commands = g_settings_get_boolean (settings, "agent-review-commands");
  if (has_key (settings, "agent-allow-network"))
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
 * sk_llm_settings_new:
 *
 * Returns: (transfer full): the default settings: Ollama on its usual
 *   address, no model, no key
 */
SkLlmSettings *
sk_llm_settings_new (void)
{
  SkLlmSettingsReal *real = g_new0 (SkLlmSettingsReal, 1);
  SkLlmSettings *self = &real->public;

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
 * sk_llm_settings_load:
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
SkLlmSettings *
sk_llm_settings_load (GSettings  *settings,
                      gboolean    use_keyring,
                      GError    **error)
{
  g_autoptr(SkLlmSettings) self = NULL;
  g_autoptr(GSettings) installed = NULL;
  SkLlmSettingsReal *real;
  const char *value;

  g_return_val_if_fail (settings == NULL || G_IS_SETTINGS (settings), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = sk_llm_settings_new ();
  real = (SkLlmSettingsReal *) self;

  if (settings == NULL)
    settings = installed = open_installed_settings ();
  if (settings != NULL)
    read_preferences (self, settings);

  if ((value = getenv_nonempty ("SKELE_LLM_PROVIDER")) != NULL &&
      !set_provider (self, value, "SKELE_LLM_PROVIDER", error))
    return NULL;

  if ((value = getenv_nonempty ("SKELE_LLM_BASE_URL")) != NULL)
    set_base_url (self, value);

  if ((value = getenv_nonempty ("SKELE_LLM_MODEL")) != NULL)
    {
      g_free (self->model);
      self->model = g_strdup (value);
    }

  real->use_keyring = use_keyring;

  if ((value = getenv_nonempty ("SKELE_LLM_API_KEY")) != NULL)
    {
      self->api_key = g_strdup (value);
      real->key_from_environment = TRUE;
    }
  else if (use_keyring)
    look_up_key (self);

  return g_steal_pointer (&self);
}

/**
 * sk_llm_settings_free:
 * @self: (nullable): the settings
 */
void
sk_llm_settings_free (SkLlmSettings *self)
{
  if (self == NULL)
    return;

  g_free (self->base_url);
  g_free (self->model);
  g_free (self->api_key);
  g_free ((SkLlmSettingsReal *) self);
}

/**
 * sk_llm_settings_override:
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
sk_llm_settings_override (SkLlmSettings  *self,
                          const char     *provider,
                          const char     *base_url,
                          const char     *model,
                          GError        **error)
{
  SkLlmSettingsReal *real = (SkLlmSettingsReal *) self;
  g_autofree char *old_url = NULL;
  SkLlmProvider old_provider;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  old_provider = self->provider;
  old_url = key_base_url (self->provider, self->base_url);

  if (provider != NULL && !set_provider (self, provider, NULL, error))
    return FALSE;

  if (base_url != NULL)
    set_base_url (self, base_url);

  if (model != NULL)
    {
      g_free (self->model);
      self->model = g_strdup (model);
    }

  if (real->use_keyring && !real->key_from_environment)
    {
      g_autofree char *new_url = key_base_url (self->provider, self->base_url);

      if (old_provider != self->provider || g_strcmp0 (old_url, new_url) != 0)
        look_up_key (self);
    }

  return TRUE;
}

/**
 * sk_llm_settings_create_client:
 * @self: the settings
 * @error: where to put an error
 *
 * Returns: (transfer full): a client for the configured server and model, or
 *   %NULL with %SK_LLM_ERROR_NOT_CONFIGURED when no model is set or the
 *   address is not a web address
 */
SkLlmClient *
sk_llm_settings_create_client (const SkLlmSettings  *self,
                               GError              **error)
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
 * sk_llm_settings_apply_to_runner:
 * @runner: the runner that is to write and repair code
 *
 * Gives @runner a coding agent with these settings: the client, the repair
 * attempts, the reply budget and the sandbox, reviewer and network choices.
 *
 * Returns: %FALSE with %SK_LLM_ERROR_NOT_CONFIGURED when no model is set
 *   or the server address is not one, leaving @runner as it was
 */
gboolean
sk_llm_settings_apply_to_runner (const SkLlmSettings  *self,
                                 SkRunner             *runner,
                                 GError              **error)
{
  g_autoptr(SkLlmClient) client = NULL;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (SK_IS_RUNNER (runner), FALSE);

  client = sk_llm_settings_create_client (self, error);
  if (client == NULL)
    return FALSE;

  sk_runner_set_agent (runner, client);
  sk_runner_set_agent_options (runner, self->repair_attempts, self->max_steps,
                               self->require_sandbox, self->review_commands,
                               self->allow_network);
  return TRUE;
}

/**
 * sk_llm_settings_describe:
 * @self: the settings
 *
 * Names the model and the server for people, such as
 * “qwen2.5-coder:7b on http://127.0.0.1:11434 (Ollama)”. Never the key.
 *
 * Returns: (transfer full): the description
 */
char *
sk_llm_settings_describe (const SkLlmSettings *self)
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
 * sk_llm_key_store_async:
 * @provider: the server's dialect
 * @base_url: (nullable): the server's address; %NULL or empty for the
 *   provider's default
 * @api_key: the key
 * @cancellable: (nullable): a cancellable
 * @callback: called when the key is stored
 * @user_data: data for @callback
 *
 * Keeps @api_key in the desktop keyring for this server, replacing the key it
 * had.
 */
void
sk_llm_key_store_async (SkLlmProvider        provider,
                        const char          *base_url,
                        const char          *api_key,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_return_if_fail (api_key != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  key_request_run (KEY_STORE, sk_llm_key_store_async, provider, base_url, api_key,
                   cancellable, callback, user_data);
}

/**
 * sk_llm_key_store_finish:
 * @result: the result passed to the callback
 * @error: where to put an error
 *
 * Returns: whether the key was stored; if not, @error says that the keyring is
 *   not available and that `SKELE_LLM_API_KEY` can give the key instead
 */
gboolean
sk_llm_key_store_finish (GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_llm_key_store_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * sk_llm_key_lookup_async:
 * @provider: the server's dialect
 * @base_url: (nullable): the server's address; %NULL or empty for the
 *   provider's default
 * @cancellable: (nullable): a cancellable
 * @callback: called with the key
 * @user_data: data for @callback
 *
 * Looks up the key kept for this server in the desktop keyring.
 */
void
sk_llm_key_lookup_async (SkLlmProvider        provider,
                         const char          *base_url,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  key_request_run (KEY_LOOKUP, sk_llm_key_lookup_async, provider, base_url, NULL,
                   cancellable, callback, user_data);
}

/**
 * sk_llm_key_lookup_finish:
 * @result: the result passed to the callback
 * @error: where to put an error
 *
 * Returns: (transfer full) (nullable): the key, or %NULL, with @error set
 *   only when the keyring could not be asked
 */
char *
sk_llm_key_lookup_finish (GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_llm_key_lookup_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * sk_llm_key_lookup_sync:
 * @provider: the server's dialect
 * @base_url: (nullable): the server's address; %NULL or empty for the
 *   provider's default
 * @cancellable: (nullable): a cancellable
 * @error: where to put an error
 *
 * Looks up the key kept for this server, blocking; for the command line.
 *
 * Returns: (transfer full) (nullable): the key, or %NULL, with @error set
 *   only when the keyring could not be asked
 */
char *
sk_llm_key_lookup_sync (SkLlmProvider   provider,
                        const char     *base_url,
                        GCancellable   *cancellable,
                        GError        **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *url = NULL;
  char *secret = NULL;

  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  url = key_base_url (provider, base_url);

  for (guint attempt = 1; attempt <= MAX_KEYRING_ATTEMPTS; attempt++)
    {
      g_clear_error (&local_error);
      secret = secret_password_lookup_sync (&key_schema, cancellable, &local_error,
                                            "provider", sk_llm_provider_to_string (provider),
                                            "base-url", url,
                                            NULL);

      /* See cancelled_by_another_call(). */
      if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
          g_cancellable_is_cancelled (cancellable))
        break;
    }

  if (local_error != NULL)
    {
      g_propagate_error (error, keyring_error_new (local_error));
      return NULL;
    }

  return take_secret (secret);
}

/**
 * sk_llm_key_clear_async:
 * @provider: the server's dialect
 * @base_url: (nullable): the server's address; %NULL or empty for the
 *   provider's default
 * @cancellable: (nullable): a cancellable
 * @callback: called when the key is gone
 * @user_data: data for @callback
 *
 * Removes the key kept for this server from the desktop keyring.
 */
void
sk_llm_key_clear_async (SkLlmProvider        provider,
                        const char          *base_url,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  key_request_run (KEY_CLEAR, sk_llm_key_clear_async, provider, base_url, NULL,
                   cancellable, callback, user_data);
}

/**
 * sk_llm_key_clear_finish:
 * @result: the result passed to the callback
 * @error: where to put an error
 *
 * Returns: whether the keyring holds no key for the server any more
 */
gboolean
sk_llm_key_clear_finish (GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_llm_key_clear_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
