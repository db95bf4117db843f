/* sk-agent-key.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-agent-key"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <libsecret/secret.h>

#include "sk-agent-key.h"

static const SecretSchema key_schema = {
  "io.github.skelecode.SkeleCode.ApiKey",
  SECRET_SCHEMA_NONE,
  {
    { "provider", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { "base-url", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { NULL, 0 },
  },
};

/**
 * sk_agent_key_normalize_url:
 * @provider: the server's dialect
 * @base_url: (nullable): the server's address; %NULL or empty for the
 *   provider's default
 *
 * A key is filed under the address without trailing slashes, so that
 * "http://host/v1/" and "http://host/v1" find the same key.
 *
 * Returns: (transfer full): the address the key of this server is filed under
 */
char *
sk_agent_key_normalize_url (SkLlmProvider  provider,
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
keyring_locked_error_new (void)
{
  return g_error_new_literal (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                              _("The desktop keyring is locked. Unlock it in Passwords "
                                "and Keys, or set the environment variable "
                                "SKELE_LLM_API_KEY to give the API key instead."));
}

/* What libsecret and D-Bus say (“Could not connect: No such file or
 * directory”, “GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown…”)
 * means nothing to a user, so it goes to the debug log only, and the user
 * reads what happened and what to do. */
static GError *
keyring_error_new (const GError *secret_error)
{
  if (g_error_matches (secret_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return g_error_copy (secret_error);

  g_debug ("Keyring: %s", secret_error->message);

  if (g_error_matches (secret_error, SECRET_ERROR, SECRET_ERROR_IS_LOCKED))
    return keyring_locked_error_new ();

  return g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED,
                              _("The desktop keyring is not available. Start a keyring "
                                "service such as GNOME Keyring, or set the environment "
                                "variable SKELE_LLM_API_KEY to give the API key instead."));
}

static GHashTable *
key_attributes_new (SkLlmProvider  provider,
                    const char    *base_url)
{
  return secret_attributes_build (&key_schema,
                                  "provider", sk_llm_provider_to_string (provider),
                                  "base-url", base_url,
                                  NULL);
}

/* libsecret answers “no key” for a key in a locked keyring when the keyring
 * was not unlocked, because there is no one to ask (no display) or the user
 * dismissed the prompt; and removing such a key does nothing. The keyring's
 * items are listed without unlocking it to tell that apart from having no
 * key. A keyring that cannot list them keeps the first answer. */
static gboolean
any_item_locked (GList *items)
{
  for (GList *l = items; l != NULL; l = l->next)
    if (secret_item_get_locked (l->data))
      return TRUE;

  return FALSE;
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
return_no_key (GTask *task)
{
  KeyRequest *request = g_task_get_task_data (task);

  if (request->operation == KEY_LOOKUP)
    g_task_return_pointer (task, NULL, NULL);
  else
    g_task_return_boolean (task, TRUE);
}

static void
locked_search_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  GList *items;

  items = secret_service_search_finish (NULL, result, &error);

  if (error != NULL)
    g_debug ("Could not tell whether the keyring is locked: %s", error->message);

  if (!g_task_return_error_if_cancelled (task))
    {
      if (any_item_locked (items))
        g_task_return_error (task, keyring_locked_error_new ());
      else
        return_no_key (task);
    }

  g_list_free_full (items, g_object_unref);
}

/* See any_item_locked(). */
static void
search_locked_items (GTask *task)
{
  KeyRequest *request = g_task_get_task_data (task);
  g_autoptr(GHashTable) attributes = key_attributes_new (request->provider, request->base_url);

  secret_service_search (NULL, &key_schema, attributes, SECRET_SEARCH_ALL,
                         g_task_get_cancellable (task), locked_search_cb, task);
}

static void
key_request_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  KeyRequest *request = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  gboolean found_nothing = FALSE;
  char *secret = NULL;

  switch (request->operation)
    {
    case KEY_STORE:
      secret_password_store_finish (result, &error);
      break;
    case KEY_LOOKUP:
      secret = take_secret (secret_password_lookup_finish (result, &error));
      found_nothing = secret == NULL;
      break;
    case KEY_CLEAR:
      /* FALSE without an error means there was no key to remove. */
      found_nothing = !secret_password_clear_finish (result, &error);
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
  else if (found_nothing)
    search_locked_items (g_steal_pointer (&task));
  else if (request->operation == KEY_LOOKUP)
    g_task_return_pointer (task, secret, g_free);
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
  request->base_url = sk_agent_key_normalize_url (provider, base_url);
  request->api_key = g_strdup (api_key);
  g_task_set_task_data (task, request, (GDestroyNotify) key_request_free);

  key_request_start (task);
}

/**
 * sk_agent_key_store_async:
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
sk_agent_key_store_async (SkLlmProvider        provider,
                          const char          *base_url,
                          const char          *api_key,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_return_if_fail (api_key != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  key_request_run (KEY_STORE, sk_agent_key_store_async, provider, base_url, api_key,
                   cancellable, callback, user_data);
}

/**
 * sk_agent_key_store_finish:
 * @result: the result passed to the callback
 * @error: where to put an error
 *
 * An error's message is meant for the user: it says in plain words what
 * happened and that `SKELE_LLM_API_KEY` can give the key instead. The error
 * is %G_IO_ERROR_PERMISSION_DENIED when the keyring is locked, and
 * %G_IO_ERROR_FAILED when there is no keyring to ask.
 *
 * Returns: whether the key was stored
 */
gboolean
sk_agent_key_store_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_agent_key_store_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * sk_agent_key_lookup_async:
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
sk_agent_key_lookup_async (SkLlmProvider        provider,
                           const char          *base_url,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  key_request_run (KEY_LOOKUP, sk_agent_key_lookup_async, provider, base_url, NULL,
                   cancellable, callback, user_data);
}

/**
 * sk_agent_key_lookup_finish:
 * @result: the result passed to the callback
 * @error: where to put an error
 *
 * Returns: (transfer full) (nullable): the key, or %NULL, with @error set
 *   only when the keyring could not be asked or holds the key locked away;
 *   see sk_agent_key_store_finish() for the errors
 */
char *
sk_agent_key_lookup_finish (GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_agent_key_lookup_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * sk_agent_key_lookup_sync:
 * @provider: the server's dialect
 * @base_url: (nullable): the server's address; %NULL or empty for the
 *   provider's default
 * @cancellable: (nullable): a cancellable
 * @error: where to put an error
 *
 * Looks up the key kept for this server, blocking; for the command line.
 *
 * Returns: (transfer full) (nullable): the key, or %NULL, with @error set
 *   only when the keyring could not be asked or holds the key locked away;
 *   see sk_agent_key_store_finish() for the errors
 */
char *
sk_agent_key_lookup_sync (SkLlmProvider   provider,
                          const char     *base_url,
                          GCancellable   *cancellable,
                          GError        **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *url = NULL;
  char *secret = NULL;
  char *key;

  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  url = sk_agent_key_normalize_url (provider, base_url);

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

  key = take_secret (secret);

  if (key == NULL)
    {
      g_autoptr(GHashTable) attributes = key_attributes_new (provider, url);
      GList *items;

      items = secret_service_search_sync (NULL, &key_schema, attributes, SECRET_SEARCH_ALL,
                                          cancellable, &local_error);
      if (local_error != NULL)
        g_debug ("Could not tell whether the keyring is locked: %s", local_error->message);

      if (any_item_locked (items))
        g_propagate_error (error, keyring_locked_error_new ());
      g_list_free_full (items, g_object_unref);
    }

  return key;
}

/**
 * sk_agent_key_clear_async:
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
sk_agent_key_clear_async (SkLlmProvider        provider,
                          const char          *base_url,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  key_request_run (KEY_CLEAR, sk_agent_key_clear_async, provider, base_url, NULL,
                   cancellable, callback, user_data);
}

/**
 * sk_agent_key_clear_finish:
 * @result: the result passed to the callback
 * @error: where to put an error
 *
 * Returns: whether the keyring holds no key for the server any more; see
 *   sk_agent_key_store_finish() for the errors
 */
gboolean
sk_agent_key_clear_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_agent_key_clear_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
