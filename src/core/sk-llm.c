/* sk-llm.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-llm"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "sk-json.h"
#include "sk-llm.h"

G_DEFINE_QUARK (sk-llm-error-quark, sk_llm_error)

static const struct
{
  SkLlmProvider  provider;
  const char    *name;
  const char    *base_url;
} providers[] = {
  { SK_LLM_PROVIDER_OPENAI, "openai", "https://api.openai.com/v1" },
  { SK_LLM_PROVIDER_OLLAMA, "ollama", "http://127.0.0.1:11434" },
  { SK_LLM_PROVIDER_ANTHROPIC, "anthropic", "https://api.anthropic.com" },
};

const char *
sk_llm_provider_to_string (SkLlmProvider provider)
{
  for (guint i = 0; i < G_N_ELEMENTS (providers); i++)
    if (providers[i].provider == provider)
      return providers[i].name;

  g_return_val_if_reached ("openai");
}

/**
 * sk_llm_provider_from_string:
 * @string: `openai`, `ollama` or `anthropic`, in any case
 * @provider: (out): where to put the result
 *
 * Returns: whether @string names a provider
 */
gboolean
sk_llm_provider_from_string (const char    *string,
                             SkLlmProvider *provider)
{
  g_return_val_if_fail (provider != NULL, FALSE);

  if (string == NULL)
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (providers); i++)
    if (g_ascii_strcasecmp (providers[i].name, string) == 0)
      {
        *provider = providers[i].provider;
        return TRUE;
      }

  return FALSE;
}

/**
 * sk_llm_provider_default_base_url:
 *
 * Returns: the address a provider's server has unless the user says otherwise
 */
const char *
sk_llm_provider_default_base_url (SkLlmProvider provider)
{
  for (guint i = 0; i < G_N_ELEMENTS (providers); i++)
    if (providers[i].provider == provider)
      return providers[i].base_url;

  g_return_val_if_reached (NULL);
}

SkLlmToolCall *
sk_llm_tool_call_new (const char *id,
                      const char *name,
                      const char *arguments)
{
  SkLlmToolCall *call = g_new0 (SkLlmToolCall, 1);

  call->id = g_strdup (id);
  call->name = g_strdup (name != NULL ? name : "");
  call->arguments = g_strdup (arguments != NULL ? arguments : "");

  return call;
}

SkLlmToolCall *
sk_llm_tool_call_copy (const SkLlmToolCall *call)
{
  return sk_llm_tool_call_new (call->id, call->name, call->arguments);
}

void
sk_llm_tool_call_free (SkLlmToolCall *call)
{
  if (call == NULL)
    return;

  g_free (call->id);
  g_free (call->name);
  g_free (call->arguments);
  g_free (call);
}

/**
 * sk_llm_tool_call_parse_arguments:
 *
 * Parses the arguments, which must be a JSON object; empty text counts as
 * `{}`, as Anthropic's streams send it for a call without arguments.
 *
 * Returns: (transfer full): the arguments, or %NULL with
 *   %SK_LLM_ERROR_PROTOCOL
 */
JsonObject *
sk_llm_tool_call_parse_arguments (const SkLlmToolCall  *call,
                                  GError              **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  const char *p;
  JsonNode *root;

  g_return_val_if_fail (call != NULL, NULL);

  if (call->arguments == NULL)
    return json_object_new ();
  for (p = call->arguments; g_ascii_isspace (*p); p++)
    ;
  if (*p == '\0')
    return json_object_new ();

  /* The arguments are the model's text, pieced together from fragments. */
  if (!sk_json_check_depth (call->arguments, -1, SK_JSON_MAX_DEPTH, NULL))
    {
      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                   _("The arguments of the call to “%s” are nested more than %u levels "
                     "deep, which no tool takes."),
                   call->name, SK_JSON_MAX_DEPTH);
      return NULL;
    }

  if (!json_parser_load_from_data (parser, call->arguments, -1, &local_error))
    {
      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                   "The arguments of the call to “%s” are not valid JSON: %s",
                   call->name, local_error->message);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, SK_LLM_ERROR, SK_LLM_ERROR_PROTOCOL,
                   "The arguments of the call to “%s” must be a JSON object",
                   call->name);
      return NULL;
    }

  return json_object_ref (json_node_get_object (root));
}

/**
 * sk_llm_tool_new:
 * @parameters_json: a JSON Schema object, as text
 *
 * Returns: (transfer full): the tool; %NULL when @parameters_json is not a
 *   JSON object, which is a programming error
 */
SkLlmTool *
sk_llm_tool_new (const char *name,
                 const char *description,
                 const char *parameters_json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *parameters;
  SkLlmTool *tool;

  parameters = json_from_string (parameters_json, &error);
  if (parameters == NULL || !JSON_NODE_HOLDS_OBJECT (parameters))
    {
      g_critical ("The parameters of tool %s are not a JSON object: %s",
                  name, error != NULL ? error->message : "not an object");
      g_clear_pointer (&parameters, json_node_unref);
      return NULL;
    }

  tool = g_new0 (SkLlmTool, 1);
  tool->name = g_strdup (name);
  tool->description = g_strdup (description);
  tool->parameters = parameters;

  return tool;
}

void
sk_llm_tool_free (SkLlmTool *tool)
{
  if (tool == NULL)
    return;

  g_free (tool->name);
  g_free (tool->description);
  g_clear_pointer (&tool->parameters, json_node_unref);
  g_free (tool);
}

SkLlmMessage *
sk_llm_message_new (SkLlmRole   role,
                    const char *content)
{
  SkLlmMessage *message = g_new0 (SkLlmMessage, 1);

  message->role = role;
  message->content = g_strdup (content);
  message->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_llm_tool_call_free);

  return message;
}

SkLlmMessage *
sk_llm_message_new_tool_result (const char *tool_call_id,
                                const char *tool_name,
                                const char *content,
                                gboolean    is_error)
{
  SkLlmMessage *message = sk_llm_message_new (SK_LLM_ROLE_TOOL, content);

  message->tool_call_id = g_strdup (tool_call_id);
  message->tool_name = g_strdup (tool_name);
  message->is_error = !!is_error;

  return message;
}

void
sk_llm_message_add_tool_call (SkLlmMessage        *message,
                              const SkLlmToolCall *call)
{
  g_return_if_fail (message != NULL);
  g_return_if_fail (call != NULL);

  g_ptr_array_add (message->tool_calls, sk_llm_tool_call_copy (call));
}

void
sk_llm_message_free (SkLlmMessage *message)
{
  if (message == NULL)
    return;

  g_free (message->content);
  g_clear_pointer (&message->tool_calls, g_ptr_array_unref);
  g_free (message->tool_call_id);
  g_free (message->tool_name);
  g_free (message);
}

SkLlmResponse *
sk_llm_response_new (void)
{
  SkLlmResponse *response = g_new0 (SkLlmResponse, 1);

  response->text = g_strdup ("");
  response->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_llm_tool_call_free);

  return response;
}

void
sk_llm_response_free (SkLlmResponse *response)
{
  if (response == NULL)
    return;

  g_free (response->text);
  g_free (response->reasoning);
  g_clear_pointer (&response->tool_calls, g_ptr_array_unref);
  g_free (response->finish_reason);
  g_free (response);
}
