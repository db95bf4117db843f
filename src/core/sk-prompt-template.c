/* sk-prompt-template.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-prompt-template"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-prompt-template.h"
#include "sk-util.h"

typedef enum
{
  TOKEN_TEXT,
  TOKEN_TAG,
  TOKEN_START,
  TOKEN_END,
} TokenKind;

typedef struct
{
  TokenKind  kind;
  char      *text;  /* The literal text, or the tag's name. */
  guint      line;
} Token;

G_DEFINE_QUARK (sk-prompt-template-error-quark, sk_prompt_template_error)

static void
token_clear (gpointer data)
{
  Token *token = data;

  g_free (token->text);
}

static void
push_token (GArray     *tokens,
            TokenKind   kind,
            char       *text,
            guint       line)
{
  Token token = { kind, text, line };

  g_array_append_val (tokens, token);
}

static gboolean
is_tag_char (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Recognises a tag at @p, which points at a '{'. Returns the tag's length
 * in bytes, braces included, or 0 when @p starts no tag: such text is kept
 * as it is, so that a stray brace never breaks a prompt.
 */
static gsize
match_tag (const char *p,
           TokenKind  *kind,
           gsize      *name_length)
{
  const char *rest;
  gsize n = 0;

  g_assert (p[0] == '{');

  while (is_tag_char (p[1 + n]))
    n++;
  if (n == 0)
    return 0;

  rest = p + 1 + n;
  *name_length = n;
  if (rest[0] == '}')
    {
      *kind = TOKEN_TAG;
      return n + 2;
    }
  if (strncmp (rest, "/start}", 7) == 0)
    {
      *kind = TOKEN_START;
      return n + 1 + 7;
    }
  if (strncmp (rest, "/end}", 5) == 0)
    {
      *kind = TOKEN_END;
      return n + 1 + 5;
    }

  return 0;
}

/* A section marker is alone on its line when only spaces and tabs surround
 * it. Then the whole line goes with the marker, so that a template can put
 * its markers on lines of their own without leaving blank lines behind.
 * Returns where the text after that line starts, or NULL.
 */
static const char *
standalone_line_end (const char *text,
                     const char *start,
                     const char *end)
{
  const char *p;

  for (p = start; p > text && (p[-1] == ' ' || p[-1] == '\t'); p--)
    ;
  if (p != text && p[-1] != '\n')
    return NULL;

  for (p = end; *p == ' ' || *p == '\t'; p++)
    ;
  if (*p == '\n')
    return p + 1;
  if (p[0] == '\r' && p[1] == '\n')
    return p + 2;
  if (*p == '\0')
    return p;

  return NULL;
}

static void
flush_text (GArray  *tokens,
            GString *literal,
            guint    line)
{
  if (literal->len == 0)
    return;

  push_token (tokens, TOKEN_TEXT, g_strndup (literal->str, literal->len), line);
  g_string_truncate (literal, 0);
}

static gboolean
section_is_open (GArray     *tokens,
                 GArray     *open,
                 const char *name)
{
  for (guint i = 0; i < open->len; i++)
    {
      const Token *start = &g_array_index (tokens, Token, g_array_index (open, guint, i));

      if (strcmp (start->text, name) == 0)
        return TRUE;
    }

  return FALSE;
}

/* Checks that the section that @end closes is the innermost open one. */
static gboolean
close_section (GArray  *tokens,
               GArray  *open,
               GError **error)
{
  const Token *end = &g_array_index (tokens, Token, tokens->len - 1);
  const Token *start;

  if (open->len == 0 || !section_is_open (tokens, open, end->text))
    {
      g_set_error (error, SK_PROMPT_TEMPLATE_ERROR, SK_PROMPT_TEMPLATE_ERROR_UNBALANCED,
                   _("Line %u: the section “%s” ends, but it was never started."),
                   end->line, end->text);
      return FALSE;
    }

  start = &g_array_index (tokens, Token, g_array_index (open, guint, open->len - 1));
  if (strcmp (start->text, end->text) != 0)
    {
      g_set_error (error, SK_PROMPT_TEMPLATE_ERROR, SK_PROMPT_TEMPLATE_ERROR_UNBALANCED,
                   _("Line %u: the section “%s” ends inside the section “%s”, "
                     "which started on line %u; sections must not cross."),
                   end->line, end->text, start->text, start->line);
      return FALSE;
    }

  g_array_set_size (open, open->len - 1);
  return TRUE;
}

/* Splits @text into literal text, placeholders and section markers, and
 * checks that the sections nest.
 */
static GArray *
parse (const char  *text,
       GError     **error)
{
  g_autoptr(GArray) tokens = g_array_new (FALSE, FALSE, sizeof (Token));
  g_autoptr(GArray) open = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GString) literal = g_string_new (NULL);
  const char *p = text;
  guint line = 1;

  g_array_set_clear_func (tokens, token_clear);

  while (*p != '\0')
    {
      TokenKind kind;
      gsize name_length;
      gsize length;

      if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}'))
        {
          g_string_append_c (literal, p[0]);
          p += 2;
          continue;
        }

      if (p[0] == '{' && (length = match_tag (p, &kind, &name_length)) > 0)
        {
          const char *after = p + length;
          const char *next = NULL;

          if (kind != TOKEN_TAG && (next = standalone_line_end (text, p, after)) != NULL)
            {
              const char *newline = strrchr (literal->str, '\n');

              /* Only blanks follow the last newline: drop the indentation. */
              g_string_truncate (literal, newline != NULL ? (gsize) (newline - literal->str) + 1 : 0);
            }

          flush_text (tokens, literal, line);
          push_token (tokens, kind, g_strndup (p + 1, name_length), line);

          if (kind == TOKEN_START)
            {
              guint index = tokens->len - 1;

              g_array_append_val (open, index);
            }
          else if (kind == TOKEN_END && !close_section (tokens, open, error))
            {
              return NULL;
            }

          if (next != NULL)
            {
              if (next > after && next[-1] == '\n')
                line++;
              p = next;
            }
          else
            {
              p = after;
            }
          continue;
        }

      if (*p == '\n')
        line++;
      g_string_append_c (literal, *p);
      p++;
    }

  flush_text (tokens, literal, line);

  if (open->len > 0)
    {
      const Token *start = &g_array_index (tokens, Token, g_array_index (open, guint, open->len - 1));

      g_set_error (error, SK_PROMPT_TEMPLATE_ERROR, SK_PROMPT_TEMPLATE_ERROR_UNBALANCED,
                   _("Line %u: the section “%s” starts, but it never ends."),
                   start->line, start->text);
      return NULL;
    }

  return g_steal_pointer (&tokens);
}

static const char *
lookup_value (GHashTable *values,
              const char *name)
{
  const char *value = values != NULL ? g_hash_table_lookup (values, name) : NULL;

  return value != NULL ? value : "";
}

/**
 * sk_prompt_template_render:
 * @template_text: the template
 * @values: (nullable) (element-type utf8 utf8): the value of each tag
 * @error: return location for a #GError
 *
 * Fills in a template, such as one of the coding agent's prompts.
 *
 * `{tag}` is replaced by the value of `tag` in @values, or by nothing when
 * the tag has no value. `{tag/start}` … `{tag/end}` is an optional section:
 * its content is kept, without the markers, when the tag's value is not
 * empty, and left out otherwise. Sections may nest and may hold other tags.
 * A marker alone on its line takes the whole line with it. `{{` and `}}`
 * stand for literal braces; other braces are kept as they are. Tag names
 * are made of `a`–`z`, `0`–`9` and `_`.
 *
 * Values are inserted as they are; they are never read as templates.
 *
 * Returns: (transfer full): the text, or %NULL with @error set to
 *   %SK_PROMPT_TEMPLATE_ERROR_UNBALANCED, naming the tag and the line, when the
 *   sections do not nest
 */
char *
sk_prompt_template_render (const char  *template_text,
                           GHashTable  *values,
                           GError     **error)
{
  g_autoptr(GArray) tokens = NULL;
  GString *text;
  guint skipping = 0;

  g_return_val_if_fail (template_text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((tokens = parse (template_text, error)) == NULL)
    return NULL;

  text = g_string_sized_new (strlen (template_text));
  for (guint i = 0; i < tokens->len; i++)
    {
      const Token *token = &g_array_index (tokens, Token, i);

      switch (token->kind)
        {
        case TOKEN_TEXT:
          if (skipping == 0)
            g_string_append (text, token->text);
          break;

        case TOKEN_TAG:
          if (skipping == 0)
            g_string_append (text, lookup_value (values, token->text));
          break;

        case TOKEN_START:
          /* Inside a section that is left out, every nested one is too. */
          if (skipping > 0 || *lookup_value (values, token->text) == '\0')
            skipping++;
          break;

        case TOKEN_END:
          if (skipping > 0)
            skipping--;
          break;

        default:
          g_assert_not_reached ();
        }
    }

  return g_string_free (text, FALSE);
}

/**
 * sk_prompt_template_get_tags:
 * @template_text: the template
 * @error: return location for a #GError
 *
 * Lists the tags that a template uses, as placeholders or as sections.
 *
 * Returns: (transfer full) (array zero-terminated=1): the tag names, each
 *   once, sorted, or %NULL with @error set when the sections do not nest
 */
char **
sk_prompt_template_get_tags (const char  *template_text,
                             GError     **error)
{
  g_autoptr(GArray) tokens = NULL;
  g_autoptr(GHashTable) seen = NULL;
  GPtrArray *names;

  g_return_val_if_fail (template_text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((tokens = parse (template_text, error)) == NULL)
    return NULL;

  seen = g_hash_table_new (g_str_hash, g_str_equal);
  names = g_ptr_array_new ();
  for (guint i = 0; i < tokens->len; i++)
    {
      const Token *token = &g_array_index (tokens, Token, i);

      if (token->kind != TOKEN_TEXT && g_hash_table_add (seen, token->text))
        g_ptr_array_add (names, g_strdup (token->text));
    }

  return sk_util_sorted_strv (names);
}
