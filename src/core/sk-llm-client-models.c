/* sk-llm-client-models.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Asking the server which models it offers, page by page.
 */

#define G_LOG_DOMAIN "sk-llm-client-models"

#include "config.h"

#include "sk-json.h"
#include "sk-llm-client-private.h"
#include "sk-util.h"

typedef struct
{
  SkLlmExchange  exchange;
  GPtrArray     *models;
  char          *after_id;
  guint          pages;
} ListData;

static void list_start_page (GTask *task);

static void
list_data_free (ListData *data)
{
  _sk_llm_client_exchange_clear (&data->exchange);
  g_clear_pointer (&data->models, g_ptr_array_unref);
  g_free (data->after_id);
  g_free (data);
}

static void
list_fail (GTask  *task,
           GError *error)
{
  ListData *data = g_task_get_task_data (task);

  _sk_llm_client_exchange_stop_watchdog (&data->exchange);
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
add_names (GPtrArray  *models,
           JsonArray  *array,
           const char *member)
{
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        continue;

      name = sk_json_get_string (json_node_get_object (item), member);
      if (name != NULL && *name != '\0' &&
          !g_ptr_array_find_with_equal_func (models, name, g_str_equal, NULL))
        g_ptr_array_add (models, g_strdup (name));
    }
}

static void
list_body_ready (GTask  *task,
                 GBytes *body,
                 GError *error)
{
  ListData *data = g_task_get_task_data (task);
  SkLlmClient *self = g_task_get_source_object (task);
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  JsonObject *object;
  gboolean has_more = FALSE;
  gboolean more = FALSE;

  if (error != NULL)
    {
      g_autofree char *url = g_uri_to_string (soup_message_get_uri (data->exchange.message));

      list_fail (task, _sk_llm_client_transport_error (&data->exchange, error, url));
      return;
    }

  if (!SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (data->exchange.message)))
    {
      double delay;

      list_fail (task, _sk_llm_client_http_error (self, data->exchange.message, body, G_MAXUINT, &delay));
      return;
    }

  text = g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body));
  /* Nesting too deep for json-glib's stack is not a list of models. */
  if (sk_json_check_depth (text, -1, SK_JSON_MAX_DEPTH, NULL))
    node = json_from_string (text, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      list_fail (task, g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                                    "The server's list of models is not JSON: %.200s", text));
      return;
    }

  object = json_node_get_object (node);
  if (self->provider == SK_LLM_PROVIDER_OLLAMA)
    add_names (data->models, sk_json_get_array (object, "models"), "name");
  else
    add_names (data->models, sk_json_get_array (object, "data"), "id");

  if (self->provider == SK_LLM_PROVIDER_ANTHROPIC &&
      sk_json_get_boolean (object, "has_more", &has_more) && has_more)
    {
      const char *last_id = sk_json_get_string (object, "last_id");

      /* A server that repeats a page would loop forever. */
      more = last_id != NULL && g_strcmp0 (last_id, data->after_id) != 0 && data->pages < 100;
      if (more)
        {
          g_free (data->after_id);
          data->after_id = g_strdup (last_id);
        }
    }

  if (more)
    {
      list_start_page (task);
      return;
    }

  _sk_llm_client_exchange_stop_watchdog (&data->exchange);
  g_task_return_pointer (task, sk_util_sorted_strv (g_steal_pointer (&data->models)),
                         (GDestroyNotify) g_strfreev);
  g_object_unref (task);
}

static void
list_sent_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  ListData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  data->exchange.input = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (data->exchange.input == NULL)
    {
      g_autofree char *url = g_uri_to_string (soup_message_get_uri (data->exchange.message));

      list_fail (task, _sk_llm_client_transport_error (&data->exchange, error, url));
      return;
    }

  _sk_llm_client_exchange_read_body (task, &data->exchange, list_body_ready);
}

static void
list_start_page (GTask *task)
{
  SkLlmClient *self = g_task_get_source_object (task);
  ListData *data = g_task_get_task_data (task);
  g_autofree char *url = _sk_llm_client_endpoint (self, "models");
  SoupMessage *message;

  if (self->provider == SK_LLM_PROVIDER_ANTHROPIC)
    {
      g_autofree char *base = g_steal_pointer (&url);

      if (data->after_id != NULL)
        {
          g_autofree char *escaped = g_uri_escape_string (data->after_id, NULL, TRUE);

          url = g_strdup_printf ("%s?limit=1000&after_id=%s", base, escaped);
        }
      else
        url = g_strdup_printf ("%s?limit=1000", base);
    }

  message = soup_message_new (SOUP_METHOD_GET, url);
  if (message == NULL)
    {
      list_fail (task, g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED,
                                    "“%s” is not a server address.", self->base_url));
      return;
    }

  _sk_llm_client_add_auth_headers (self, message);
  data->pages++;
  _sk_llm_client_exchange_start (&data->exchange, self, message, g_task_get_cancellable (task));
  soup_session_send_async (self->session, message, G_PRIORITY_DEFAULT,
                           data->exchange.cancellable, list_sent_cb, task);
}

/**
 * sk_llm_client_list_models_async:
 *
 * Asks the server which models it offers (all pages of them).
 */
void
sk_llm_client_list_models_async (SkLlmClient         *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task;
  ListData *data;

  g_return_if_fail (SK_IS_LLM_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sk_llm_client_list_models_async);

  data = g_new0 (ListData, 1);
  data->models = g_ptr_array_new_with_free_func (g_free);
  g_task_set_task_data (task, data, (GDestroyNotify) list_data_free);

  list_start_page (task);
}

/**
 * sk_llm_client_list_models_finish:
 *
 * Returns: (transfer full): the model names, sorted
 */
char **
sk_llm_client_list_models_finish (SkLlmClient   *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
