/* sk-agent-text-calls.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-agent-text-calls"

#include "config.h"

#include <json-glib/json-glib.h>

#include "sk-agent-text-calls.h"
#include "sk-agent-tools.h"
#include "sk-json.h"

/* Models served without native tool calls write their calls as fenced
 * blocks in the text of their reply; the prompts tell them how.
 */

/* Recognises a fence line: three or more backticks or tildes, after any
 * indentation. Returns the fence's character and length, and the rest.
 */
static gboolean
parse_fence (const char  *line,
             char        *fence_char,
             gsize       *fence_len,
             const char **rest)
{
  const char *p = line;
  gsize n = 0;

  while (*p == ' ' || *p == '\t')
    p++;
  if (*p != '`' && *p != '~')
    return FALSE;
  while (p[n] == *p)
    n++;
  if (n < 3)
    return FALSE;

  *fence_char = *p;
  *fence_len = n;
  *rest = p + n;
  return TRUE;
}

static gboolean
is_closing_fence (const char *line,
                  char        fence_char,
                  gsize       fence_len)
{
  char c;
  gsize n;
  const char *rest;

  if (!parse_fence (line, &c, &n, &rest) || c != fence_char || n < fence_len)
    return FALSE;
  while (*rest == ' ' || *rest == '\t')
    rest++;

  return *rest == '\0';
}

#define TOOL_BLOCK_EXAMPLE \
  "{\"tool\": \"read_file\", \"arguments\": {\"path\": \"data.csv\"}}"

static SkLlmToolCall *
parse_tool_block (const char  *block,
                  guint        number,
                  GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) arguments = NULL;
  g_autofree char *arguments_text = NULL;
  g_autofree char *id = NULL;
  JsonObject *object;
  JsonNode *root;
  const char *tool;
  JsonNode *given;

  /* The parser recurses once a level, and deep enough nesting would crash
   * the program. */
  if (!sk_json_check_depth (block, -1, SK_JSON_MAX_DEPTH, NULL))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
                   "The ```tool block was not read: its arrays and objects are nested more "
                   "than %u levels deep. It must hold one JSON object, such as "
                   TOOL_BLOCK_EXAMPLE ".", SK_JSON_MAX_DEPTH);
      return NULL;
    }

  if (!json_parser_load_from_data (parser, block, -1, &local_error))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
                   "The ```tool block is not valid JSON (%s). It must hold exactly one JSON "
                   "object, such as " TOOL_BLOCK_EXAMPLE ". Inside strings, write newlines as "
                   "\\n and escape double quotes and backslashes as \\\" and \\\\.",
                   local_error->message);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
                   "The ```tool block must hold one JSON object, such as " TOOL_BLOCK_EXAMPLE ".");
      return NULL;
    }

  object = json_node_get_object (root);
  tool = sk_json_get_string (object, "tool");
  if (tool == NULL || tool[0] == '\0')
    {
      g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
                   "The JSON object in the ```tool block needs a \"tool\" member with the "
                   "tool's name, and an \"arguments\" object, such as " TOOL_BLOCK_EXAMPLE ".");
      return NULL;
    }

  given = sk_json_get_member (object, "arguments");
  if (given == NULL)
    {
      /* Arguments written beside the name are taken as they are. */
      g_autoptr(JsonObject) rest = json_object_new ();
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        if (!g_str_equal (l->data, "tool"))
          json_object_set_member (rest, l->data,
                                  json_node_copy (json_object_get_member (object, l->data)));
      arguments = json_node_init_object (json_node_alloc (), rest);
    }
  else if (JSON_NODE_HOLDS_NULL (given))
    {
      g_autoptr(JsonObject) empty = json_object_new ();

      arguments = json_node_init_object (json_node_alloc (), empty);
    }
  else if (JSON_NODE_HOLDS_OBJECT (given))
    {
      arguments = json_node_copy (given);
    }
  else
    {
      /* Some models send the arguments as JSON text, as native calls do. */
      if (JSON_NODE_HOLDS_VALUE (given) && json_node_get_value_type (given) == G_TYPE_STRING &&
          sk_json_check_depth (json_node_get_string (given), -1, SK_JSON_MAX_DEPTH, NULL))
        arguments = json_from_string (json_node_get_string (given), NULL);

      if (arguments == NULL || !JSON_NODE_HOLDS_OBJECT (arguments))
        {
          g_set_error (error, SK_AGENT_TOOLS_ERROR, SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS,
                       "The \"arguments\" of the ```tool block must be a JSON object, such as "
                       TOOL_BLOCK_EXAMPLE ".");
          return NULL;
        }
    }

  arguments_text = json_to_string (arguments, FALSE);
  id = g_strdup_printf ("text-call-%u", number);

  return sk_llm_tool_call_new (id, tool, arguments_text);
}

/**
 * sk_agent_text_calls_parse:
 * @reply: a model's reply, for servers without native tool calls
 * @error: return location for a #GError
 *
 * Finds the fenced blocks whose info string is `tool`, each holding a JSON
 * object `{"tool": NAME, "arguments": {…}}`. Fences of backticks or tildes,
 * indented or not, with CRLF line ends, are accepted, and so is a last block
 * that the reply ends before closing. Blocks with another info string are
 * skipped, whatever they hold.
 *
 * Returns: (transfer full) (element-type SkLlmToolCall): the calls in order,
 *   with ids `text-call-1`, `text-call-2`, …; empty when there is none; or
 *   %NULL with %SK_AGENT_TOOLS_ERROR_INVALID_ARGUMENTS and a message for the
 *   model when a block cannot be read
 */
GPtrArray *
sk_agent_text_calls_parse (const char  *reply,
                           GError     **error)
{
  g_autoptr(GPtrArray) calls = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_llm_tool_call_free);
  g_autoptr(GString) normalized = g_string_new (reply != NULL ? reply : "");
  g_autoptr(GString) block = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean in_block = FALSE;
  gboolean is_tool = FALSE;
  char fence_char = 0;
  gsize fence_len = 0;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_string_replace (normalized, "\r\n", "\n", 0);
  lines = g_strsplit (normalized->str, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      const char *rest;

      if (!in_block)
        {
          g_autofree char *info = NULL;

          if (!parse_fence (line, &fence_char, &fence_len, &rest))
            continue;

          info = g_strstrip (g_strdup (rest));
          in_block = TRUE;
          is_tool = g_ascii_strcasecmp (info, "tool") == 0;
          if (is_tool && block == NULL)
            block = g_string_new (NULL);
          else if (is_tool)
            g_string_truncate (block, 0);
        }
      else if (is_closing_fence (line, fence_char, fence_len))
        {
          in_block = FALSE;
          if (is_tool)
            {
              SkLlmToolCall *call = parse_tool_block (block->str, calls->len + 1, error);

              if (call == NULL)
                return NULL;
              g_ptr_array_add (calls, call);
            }
        }
      else if (is_tool)
        {
          g_string_append (block, line);
          g_string_append_c (block, '\n');
        }
    }

  /* The reply may end before the last block is closed. */
  if (in_block && is_tool)
    {
      SkLlmToolCall *call = parse_tool_block (block->str, calls->len + 1, error);

      if (call == NULL)
        return NULL;
      g_ptr_array_add (calls, call);
    }

  return g_steal_pointer (&calls);
}
