/* sk-markdown.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-markdown"

#include "config.h"

#include <string.h>

#include "sk-markdown.h"

/* A small renderer for the Markdown that steps write: headings, paragraphs,
 * emphasis, code, lists, quotes, links and pipe tables, into a text buffer
 * with tags. It never fails: what it does not understand stays as text.
 * Every search for a closing marker is bounded, and a very long paragraph
 * is shown as it is, since a text buffer slows down with the number of tags
 * on one line: no input, however odd, makes it quadratic.
 */

#define MAX_DEPTH       8
#define MAX_SEARCH      1000
#define MAX_INLINE      8192
#define MAX_TABLE_WIDTH 40
#define URL_KEY         "sk-markdown-url"

typedef struct
{
  GtkTextBuffer *buffer;
  GPtrArray     *tags;
  guint          depth;
} Context;

static GtkTextTag *
ensure_tag (GtkTextBuffer *buffer,
            const char    *name)
{
  GtkTextTagTable *table = gtk_text_buffer_get_tag_table (buffer);
  GtkTextTag *tag = gtk_text_tag_table_lookup (table, name);

  if (tag != NULL)
    return tag;

  tag = gtk_text_buffer_create_tag (buffer, name, NULL);

  /* Colours with some transparency, so that they suit light and dark styles. */
  if (g_str_equal (name, "sk-md-h1"))
    g_object_set (tag, "weight", PANGO_WEIGHT_BOLD, "scale", 1.6,
                  "pixels-above-lines", 12, "pixels-below-lines", 6, NULL);
  else if (g_str_equal (name, "sk-md-h2"))
    g_object_set (tag, "weight", PANGO_WEIGHT_BOLD, "scale", 1.35,
                  "pixels-above-lines", 10, "pixels-below-lines", 4, NULL);
  else if (g_str_equal (name, "sk-md-h3"))
    g_object_set (tag, "weight", PANGO_WEIGHT_BOLD, "scale", 1.15,
                  "pixels-above-lines", 8, "pixels-below-lines", 4, NULL);
  else if (g_str_equal (name, "sk-md-h4"))
    g_object_set (tag, "weight", PANGO_WEIGHT_BOLD,
                  "pixels-above-lines", 6, "pixels-below-lines", 2, NULL);
  else if (g_str_equal (name, "sk-md-paragraph"))
    g_object_set (tag, "pixels-below-lines", 8, NULL);
  else if (g_str_equal (name, "sk-md-bold"))
    g_object_set (tag, "weight", PANGO_WEIGHT_BOLD, NULL);
  else if (g_str_equal (name, "sk-md-italic"))
    g_object_set (tag, "style", PANGO_STYLE_ITALIC, NULL);
  else if (g_str_equal (name, "sk-md-strike"))
    g_object_set (tag, "strikethrough", TRUE, NULL);
  else if (g_str_equal (name, "sk-md-code"))
    g_object_set (tag, "family", "monospace", "background", "rgba(127,127,127,0.18)", NULL);
  else if (g_str_equal (name, "sk-md-code-block"))
    g_object_set (tag, "family", "monospace", "paragraph-background", "rgba(127,127,127,0.12)",
                  "wrap-mode", GTK_WRAP_NONE, "left-margin", 12, "pixels-below-lines", 0,
                  NULL);
  else if (g_str_equal (name, "sk-md-quote"))
    g_object_set (tag, "left-margin", 24, "style", PANGO_STYLE_ITALIC,
                  "foreground", "rgba(127,127,127,1)", NULL);
  else if (g_str_equal (name, "sk-md-link"))
    g_object_set (tag, "underline", PANGO_UNDERLINE_SINGLE, "foreground", "#3584e4", NULL);
  else if (g_str_equal (name, "sk-md-table"))
    g_object_set (tag, "family", "monospace", "wrap-mode", GTK_WRAP_NONE, NULL);
  else if (g_str_equal (name, "sk-md-rule"))
    g_object_set (tag, "foreground", "rgba(127,127,127,0.6)", "pixels-below-lines", 8, NULL);
  else if (g_str_has_prefix (name, "sk-md-list-"))
    {
      int level = CLAMP (name[strlen ("sk-md-list-")] - '0', 1, 4);

      /* A hanging indent, so that wrapped lines start under the text. */
      g_object_set (tag, "left-margin", 8 + 20 * level, "indent", -16,
                    "pixels-below-lines", 3, NULL);
    }

  return tag;
}

static void
push_tag (Context    *ctx,
          GtkTextTag *tag)
{
  g_ptr_array_add (ctx->tags, tag);
}

static void
pop_tag (Context *ctx)
{
  g_ptr_array_set_size (ctx->tags, ctx->tags->len - 1);
}

static void
insert_text (Context    *ctx,
             const char *text,
             gssize      len)
{
  GtkTextIter start, end;
  int offset;

  if (len < 0)
    len = strlen (text);
  if (len == 0)
    return;

  gtk_text_buffer_get_end_iter (ctx->buffer, &end);
  offset = gtk_text_iter_get_offset (&end);
  gtk_text_buffer_insert (ctx->buffer, &end, text, len);
  gtk_text_buffer_get_iter_at_offset (ctx->buffer, &start, offset);
  gtk_text_buffer_get_end_iter (ctx->buffer, &end);

  for (guint i = 0; i < ctx->tags->len; i++)
    gtk_text_buffer_apply_tag (ctx->buffer, g_ptr_array_index (ctx->tags, i), &start, &end);
}

static void
flush_plain (Context *ctx,
             GString *plain)
{
  insert_text (ctx, plain->str, plain->len);
  g_string_truncate (plain, 0);
}

/* Finds @marker in @text[@from..@len), not after a space, within bounds. */
static gssize
find_closing (const char *text,
              gsize       len,
              gsize       from,
              const char *marker,
              gboolean    word_marker)
{
  gsize marker_len = strlen (marker);
  gsize limit = MIN (len, from + MAX_SEARCH);

  for (gsize j = from; j + marker_len <= limit; j++)
    {
      if (text[j] == '\\')
        {
          j++;
          continue;
        }
      if (memcmp (text + j, marker, marker_len) != 0)
        continue;
      if (j == from || g_ascii_isspace (text[j - 1]))
        continue;
      /* A single marker is not the start of a double one. */
      if (marker_len == 1 && j + 1 < len && text[j + 1] == marker[0])
        {
          j++;
          continue;
        }
      if (word_marker && j + marker_len < len && g_ascii_isalnum (text[j + marker_len]))
        continue;
      return j;
    }

  return -1;
}

static gboolean
is_link_scheme (const char *text,
                gsize       len)
{
  return (len > 7 && g_ascii_strncasecmp (text, "http://", 7) == 0) ||
         (len > 8 && g_ascii_strncasecmp (text, "https://", 8) == 0) ||
         (len > 7 && g_ascii_strncasecmp (text, "mailto:", 7) == 0);
}

static GtkTextTag *
create_link_tag (Context    *ctx,
                 const char *url,
                 gsize       url_len)
{
  GtkTextTag *tag = gtk_text_buffer_create_tag (ctx->buffer, NULL, NULL);

  g_object_set_data_full (G_OBJECT (tag), URL_KEY, g_strndup (url, url_len), g_free);
  return tag;
}

static void insert_inline (Context    *ctx,
                           const char *text,
                           gsize       len);

static void
insert_link (Context    *ctx,
             const char *label,
             gsize       label_len,
             const char *url,
             gsize       url_len)
{
  push_tag (ctx, ensure_tag (ctx->buffer, "sk-md-link"));
  push_tag (ctx, create_link_tag (ctx, url, url_len));
  ctx->depth++;
  insert_inline (ctx, label, label_len);
  ctx->depth--;
  pop_tag (ctx);
  pop_tag (ctx);
}

/* "[label](url "title")" at @text[@i]; returns the length it spans, or 0. */
static gsize
try_link (Context    *ctx,
          const char *text,
          gsize       len,
          gsize       i,
          gboolean    image)
{
  gsize open = i + (image ? 1 : 0);
  gsize limit = MIN (len, open + MAX_SEARCH);
  gsize close = 0, url_start, url_end = 0;

  for (gsize j = open + 1; j < limit; j++)
    {
      if (text[j] == '[')
        return 0;
      if (text[j] == ']')
        {
          close = j;
          break;
        }
    }
  if (close == 0 || close + 1 >= len || text[close + 1] != '(')
    return 0;

  url_start = close + 2;
  limit = MIN (len, url_start + MAX_SEARCH);
  for (gsize j = url_start; j < limit; j++)
    {
      if (text[j] == ')')
        {
          url_end = j;
          break;
        }
    }
  if (url_end == 0)
    return 0;

  {
    gsize end = url_start;

    while (url_start < url_end && text[url_start] == ' ')
      url_start++;
    end = url_start;
    while (end < url_end && text[end] != ' ')
      end++;

    if (image)
      {
        /* An image in a text view: its description, in italics. */
        push_tag (ctx, ensure_tag (ctx->buffer, "sk-md-italic"));
        insert_text (ctx, text + open + 1, close - open - 1);
        pop_tag (ctx);
      }
    else
      insert_link (ctx, text + open + 1, close - open - 1, text + url_start, end - url_start);
  }

  return url_end + 1 - i;
}

static void
insert_inline (Context    *ctx,
               const char *text,
               gsize       len)
{
  g_autoptr(GString) plain = g_string_new (NULL);
  gsize i = 0;

  if (len > MAX_INLINE)
    {
      insert_text (ctx, text, len);
      return;
    }

  while (i < len)
    {
      char c = text[i];

      if (c == '\\' && i + 1 < len && g_ascii_ispunct (text[i + 1]))
        {
          g_string_append_c (plain, text[i + 1]);
          i += 2;
          continue;
        }

      if (c == '`')
        {
          gsize run = 0;
          gsize limit;

          while (i + run < len && text[i + run] == '`')
            run++;

          limit = MIN (len, i + run + MAX_SEARCH);
          for (gsize j = i + run; j + run <= limit; j++)
            {
              gsize k = 0;

              while (j + k < len && text[j + k] == '`')
                k++;
              if (k == run)
                {
                  const char *code = text + i + run;
                  gsize code_len = j - (i + run);

                  if (code_len >= 2 && code[0] == ' ' && code[code_len - 1] == ' ')
                    {
                      code++;
                      code_len -= 2;
                    }
                  flush_plain (ctx, plain);
                  push_tag (ctx, ensure_tag (ctx->buffer, "sk-md-code"));
                  insert_text (ctx, code, code_len);
                  pop_tag (ctx);
                  i = j + run;
                  goto next;
                }
              j += k;
            }

          g_string_append_len (plain, text + i, run);
          i += run;
          continue;
        }

      if ((c == '*' || c == '_' || c == '~') && ctx->depth < MAX_DEPTH)
        {
          gsize run = 0;
          gsize marker_len;
          char marker[3] = { c, c, '\0' };
          gssize closing = -1;
          gboolean word = c == '_';

          while (i + run < len && text[i + run] == c)
            run++;

          marker_len = run >= 2 ? 2 : 1;
          marker[marker_len] = '\0';

          if ((c == '~' && run < 2) ||
              (word && i > 0 && g_ascii_isalnum (text[i - 1])) ||
              i + marker_len >= len || g_ascii_isspace (text[i + marker_len]) ||
              (closing = find_closing (text, len, i + marker_len, marker, word)) < 0)
            {
              g_string_append_len (plain, text + i, run);
              i += run;
              continue;
            }

          flush_plain (ctx, plain);
          push_tag (ctx, ensure_tag (ctx->buffer,
                                     c == '~' ? "sk-md-strike"
                                              : marker_len == 2 ? "sk-md-bold" : "sk-md-italic"));
          ctx->depth++;
          insert_inline (ctx, text + i + marker_len, closing - (i + marker_len));
          ctx->depth--;
          pop_tag (ctx);
          i = closing + marker_len;
          continue;
        }

      if ((c == '[' || (c == '!' && i + 1 < len && text[i + 1] == '[')) && ctx->depth < MAX_DEPTH)
        {
          gsize used;

          flush_plain (ctx, plain);
          used = try_link (ctx, text, len, i, c == '!');
          if (used > 0)
            {
              i += used;
              continue;
            }
        }

      if (c == '<')
        {
          const char *end = memchr (text + i, '>', MIN (len - i, MAX_SEARCH));

          if (end != NULL && is_link_scheme (text + i + 1, end - text - i - 1) &&
              memchr (text + i, ' ', end - text - i) == NULL)
            {
              flush_plain (ctx, plain);
              insert_link (ctx, text + i + 1, end - text - i - 1, text + i + 1, end - text - i - 1);
              i = end - text + 1;
              continue;
            }
        }

      if ((c == 'h' || c == 'H') && (i == 0 || !g_ascii_isalnum (text[i - 1])) &&
          is_link_scheme (text + i, len - i) && g_ascii_strncasecmp (text + i, "mailto:", 7) != 0)
        {
          gsize end = i;

          while (end < len && !g_ascii_isspace (text[end]) && text[end] != '<' &&
                 end - i < MAX_SEARCH)
            end++;
          while (end > i && strchr (".,;:!?)'\"", text[end - 1]) != NULL)
            end--;

          flush_plain (ctx, plain);
          /* The URL is its own label: no emphasis inside it. */
          push_tag (ctx, ensure_tag (ctx->buffer, "sk-md-link"));
          push_tag (ctx, create_link_tag (ctx, text + i, end - i));
          insert_text (ctx, text + i, end - i);
          pop_tag (ctx);
          pop_tag (ctx);
          i = end;
          continue;
        }

      g_string_append_c (plain, c);
      i++;
    next:
      ;
    }

  flush_plain (ctx, plain);
}

/* Block structure. */

static const char *
skip_indent (const char *line,
             guint       max)
{
  guint n = 0;

  while (n < max && line[n] == ' ')
    n++;
  return line + n;
}

static gboolean
is_blank (const char *line)
{
  for (; *line != '\0'; line++)
    if (!g_ascii_isspace (*line))
      return FALSE;
  return TRUE;
}

static gboolean
is_fence (const char *line)
{
  const char *p = skip_indent (line, 3);

  return g_str_has_prefix (p, "```") || g_str_has_prefix (p, "~~~");
}

static guint
heading_level (const char *line)
{
  const char *p = skip_indent (line, 3);
  guint level = 0;

  while (p[level] == '#')
    level++;
  if (level == 0 || level > 6 || (p[level] != ' ' && p[level] != '\t' && p[level] != '\0'))
    return 0;
  return level;
}

static gboolean
is_rule (const char *line)
{
  const char *p = skip_indent (line, 3);
  char c = *p;
  guint n = 0;

  if (c != '-' && c != '*' && c != '_')
    return FALSE;
  for (; *p != '\0'; p++)
    {
      if (*p == c)
        n++;
      else if (*p != ' ' && *p != '\t')
        return FALSE;
    }
  return n >= 3;
}

static gboolean
is_quote (const char *line)
{
  return *skip_indent (line, 3) == '>';
}

/* Returns the length of a list marker with its space, or 0; @number is set
 * to the item's number, or -1 for a bullet. */
static gsize
list_marker (const char *line,
             guint      *indent,
             gint64     *number)
{
  const char *p = line;
  const char *q;

  while (*p == ' ' || *p == '\t')
    p++;
  *indent = p - line;

  if ((*p == '-' || *p == '*' || *p == '+') && (p[1] == ' ' || p[1] == '\t'))
    {
      *number = -1;
      return p + 2 - line;
    }

  for (q = p; g_ascii_isdigit (*q) && q - p < 9; q++)
    ;
  if (q > p && (*q == '.' || *q == ')') && (q[1] == ' ' || q[1] == '\t'))
    {
      *number = g_ascii_strtoll (p, NULL, 10);
      return q + 2 - line;
    }

  return 0;
}

static gboolean
is_table_separator (const char *line)
{
  gboolean dash = FALSE, pipe = FALSE;

  for (const char *p = line; *p != '\0'; p++)
    {
      if (*p == '-')
        dash = TRUE;
      else if (*p == '|')
        pipe = TRUE;
      else if (*p != ':' && *p != ' ' && *p != '\t')
        return FALSE;
    }
  return dash && pipe;
}

static gboolean
starts_block (const char *line)
{
  guint indent;
  gint64 number;

  return is_blank (line) || is_fence (line) || heading_level (line) > 0 || is_rule (line) ||
         is_quote (line) || list_marker (line, &indent, &number) > 0;
}

static GPtrArray *
split_table_row (const char *line)
{
  GPtrArray *cells = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) cell = g_string_new (NULL);
  const char *p = line;

  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == '|')
    p++;

  for (; *p != '\0'; p++)
    {
      if (*p == '\\' && p[1] == '|')
        {
          g_string_append_c (cell, '|');
          p++;
        }
      else if (*p == '|')
        {
          g_ptr_array_add (cells, g_strstrip (g_strdup (cell->str)));
          g_string_truncate (cell, 0);
        }
      else
        g_string_append_c (cell, *p);
    }
  if (!is_blank (cell->str))
    g_ptr_array_add (cells, g_strstrip (g_strdup (cell->str)));

  return cells;
}

/* Cells cut to a width, so that a long one does not push the others away. */
static char *
table_cell (GPtrArray *row,
            guint      column)
{
  const char *text = column < row->len ? g_ptr_array_index (row, column) : "";

  if (g_utf8_strlen (text, -1) > MAX_TABLE_WIDTH)
    {
      const char *cut = g_utf8_offset_to_pointer (text, MAX_TABLE_WIDTH - 1);
      g_autofree char *head = g_strndup (text, cut - text);

      return g_strconcat (head, "…", NULL);
    }
  return g_strdup (text);
}

static void
insert_table (Context   *ctx,
              GPtrArray *rows)
{
  g_autofree guint *widths = NULL;
  guint n_columns = 0;

  for (guint r = 0; r < rows->len; r++)
    n_columns = MAX (n_columns, ((GPtrArray *) g_ptr_array_index (rows, r))->len);
  n_columns = MIN (n_columns, 50);
  if (n_columns == 0)
    return;

  widths = g_new0 (guint, n_columns);
  for (guint r = 0; r < rows->len; r++)
    for (guint c = 0; c < n_columns; c++)
      {
        g_autofree char *cell = table_cell (g_ptr_array_index (rows, r), c);

        widths[c] = MAX (widths[c], g_utf8_strlen (cell, -1));
      }

  push_tag (ctx, ensure_tag (ctx->buffer, "sk-md-table"));
  for (guint r = 0; r < rows->len; r++)
    {
      g_autoptr(GString) line = g_string_new (NULL);

      for (guint c = 0; c < n_columns; c++)
        {
          g_autofree char *cell = table_cell (g_ptr_array_index (rows, r), c);
          guint pad = widths[c] - g_utf8_strlen (cell, -1);

          g_string_append (line, cell);
          if (c + 1 < n_columns)
            {
              for (guint k = 0; k < pad + 2; k++)
                g_string_append_c (line, ' ');
            }
        }
      g_string_append_c (line, '\n');

      if (r == 0)
        push_tag (ctx, ensure_tag (ctx->buffer, "sk-md-bold"));
      insert_text (ctx, line->str, line->len);
      if (r == 0)
        {
          pop_tag (ctx);
          g_string_truncate (line, 0);
          for (guint c = 0; c < n_columns; c++)
            for (guint k = 0; k < widths[c] + (c + 1 < n_columns ? 2 : 0); k++)
              g_string_append (line, "─");
          g_string_append_c (line, '\n');
          insert_text (ctx, line->str, line->len);
        }
    }
  pop_tag (ctx);
  insert_text (ctx, "\n", 1);
}

static void
insert_paragraph (Context    *ctx,
                  GString    *paragraph,
                  const char *tag_name)
{
  if (paragraph->len == 0)
    return;

  push_tag (ctx, ensure_tag (ctx->buffer, tag_name));
  insert_inline (ctx, paragraph->str, paragraph->len);
  insert_text (ctx, "\n", 1);
  pop_tag (ctx);
  g_string_truncate (paragraph, 0);
}

static void
render_blocks (Context     *ctx,
               char       **lines,
               guint        n_lines)
{
  g_autoptr(GString) paragraph = g_string_new (NULL);
  guint i = 0;

  while (i < n_lines)
    {
      const char *line = lines[i];
      guint level, indent;
      gint64 number;
      gsize marker;

      if (is_blank (line))
        {
          insert_paragraph (ctx, paragraph, "sk-md-paragraph");
          i++;
          continue;
        }

      if (is_fence (line))
        {
          const char *fence = skip_indent (line, 3);
          g_autoptr(GString) code = g_string_new (NULL);
          char fence_text[4] = { fence[0], fence[0], fence[0], '\0' };

          insert_paragraph (ctx, paragraph, "sk-md-paragraph");
          for (i++; i < n_lines && !g_str_has_prefix (skip_indent (lines[i], 3), fence_text); i++)
            {
              g_string_append (code, lines[i]);
              g_string_append_c (code, '\n');
            }
          i++;

          push_tag (ctx, ensure_tag (ctx->buffer, "sk-md-code-block"));
          insert_text (ctx, code->str, code->len);
          pop_tag (ctx);
          insert_text (ctx, "\n", 1);
          continue;
        }

      if ((level = heading_level (line)) > 0)
        {
          g_autofree char *title = g_strdup (skip_indent (line, 3) + level);
          static const char * const names[] = {
            "sk-md-h1", "sk-md-h2", "sk-md-h3", "sk-md-h4", "sk-md-h4", "sk-md-h4",
          };
          gsize title_len;

          insert_paragraph (ctx, paragraph, "sk-md-paragraph");
          g_strstrip (title);
          /* Closing hashes are decoration. */
          title_len = strlen (title);
          while (title_len > 0 && title[title_len - 1] == '#')
            title_len--;
          if (title_len < strlen (title) && title_len > 0 && title[title_len - 1] != ' ')
            title_len = strlen (title);
          title[title_len] = '\0';
          g_strchomp (title);
          g_string_append (paragraph, title);
          insert_paragraph (ctx, paragraph, names[level - 1]);
          i++;
          continue;
        }

      if (is_rule (line))
        {
          insert_paragraph (ctx, paragraph, "sk-md-paragraph");
          push_tag (ctx, ensure_tag (ctx->buffer, "sk-md-rule"));
          insert_text (ctx, "──────────\n", -1);
          pop_tag (ctx);
          i++;
          continue;
        }

      if (strchr (line, '|') != NULL && i + 1 < n_lines && is_table_separator (lines[i + 1]))
        {
          g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

          insert_paragraph (ctx, paragraph, "sk-md-paragraph");
          g_ptr_array_add (rows, split_table_row (line));
          for (i += 2; i < n_lines && strchr (lines[i], '|') != NULL && !is_blank (lines[i]); i++)
            g_ptr_array_add (rows, split_table_row (lines[i]));
          insert_table (ctx, rows);
          continue;
        }

      if (is_quote (line) && ctx->depth < MAX_DEPTH)
        {
          g_autoptr(GPtrArray) quoted = g_ptr_array_new ();

          insert_paragraph (ctx, paragraph, "sk-md-paragraph");
          for (; i < n_lines && is_quote (lines[i]); i++)
            {
              const char *p = skip_indent (lines[i], 3) + 1;

              g_ptr_array_add (quoted, (gpointer) (*p == ' ' ? p + 1 : p));
            }

          push_tag (ctx, ensure_tag (ctx->buffer, "sk-md-quote"));
          ctx->depth++;
          render_blocks (ctx, (char **) quoted->pdata, quoted->len);
          ctx->depth--;
          pop_tag (ctx);
          continue;
        }

      if ((marker = list_marker (line, &indent, &number)) > 0)
        {
          g_autofree char *tag_name = g_strdup_printf ("sk-md-list-%u", MIN (indent / 2, 3) + 1);
          g_autofree char *bullet = NULL;
          const char *item = line + marker;

          insert_paragraph (ctx, paragraph, "sk-md-paragraph");
          if (g_str_has_prefix (item, "[ ] "))
            {
              bullet = g_strdup ("☐ ");
              item += 4;
            }
          else if (g_str_has_prefix (item, "[x] ") || g_str_has_prefix (item, "[X] "))
            {
              bullet = g_strdup ("☑ ");
              item += 4;
            }
          else if (number < 0)
            bullet = g_strdup (indent >= 2 ? "◦ " : "• ");
          else
            bullet = g_strdup_printf ("%" G_GINT64_FORMAT ". ", number);

          g_string_append (paragraph, item);
          /* Lines that continue the item are indented. */
          for (i++; i < n_lines && (lines[i][0] == ' ' || lines[i][0] == '\t') &&
                    !starts_block (lines[i]); i++)
            {
              g_string_append_c (paragraph, ' ');
              g_string_append (paragraph, g_strchug (lines[i]));
            }

          push_tag (ctx, ensure_tag (ctx->buffer, tag_name));
          insert_text (ctx, bullet, -1);
          pop_tag (ctx);
          insert_paragraph (ctx, paragraph, tag_name);
          continue;
        }

      /* A line of a paragraph; two spaces at its end keep the break. */
      if (paragraph->len > 0)
        {
          if (g_str_has_suffix (paragraph->str, "  ") || g_str_has_suffix (paragraph->str, "\\"))
            {
              g_string_truncate (paragraph, paragraph->len - (paragraph->str[paragraph->len - 1] == '\\' ? 1 : 2));
              g_string_append_c (paragraph, '\n');
            }
          else
            g_string_append_c (paragraph, ' ');
        }
      g_string_append (paragraph, line[0] == ' ' ? g_strchug (lines[i]) : line);
      i++;
    }

  insert_paragraph (ctx, paragraph, "sk-md-paragraph");
}

static void
collect_link_tag (GtkTextTag *tag,
                  gpointer    user_data)
{
  if (g_object_get_data (G_OBJECT (tag), URL_KEY) != NULL)
    g_ptr_array_add (user_data, tag);
}

/**
 * sk_markdown_render:
 * @buffer: a text buffer
 * @text: Markdown, UTF-8 or not
 *
 * Replaces the text of @buffer with @text rendered: the marks of Markdown
 * become tags named `sk-md-…`, and each link has a tag of its own that
 * sk_markdown_get_link_at() reads.
 */
void
sk_markdown_render (GtkTextBuffer *buffer,
                    const char    *text)
{
  g_autoptr(GPtrArray) old_links = g_ptr_array_new ();
  g_autoptr(GPtrArray) tags = g_ptr_array_new ();
  g_autofree char *valid = NULL;
  g_auto(GStrv) lines = NULL;
  GtkTextIter start, end;
  Context ctx = { buffer, tags, 0 };

  g_return_if_fail (GTK_IS_TEXT_BUFFER (buffer));

  gtk_text_buffer_set_text (buffer, "", 0);
  gtk_text_tag_table_foreach (gtk_text_buffer_get_tag_table (buffer), collect_link_tag, old_links);
  for (guint i = 0; i < old_links->len; i++)
    gtk_text_tag_table_remove (gtk_text_buffer_get_tag_table (buffer), g_ptr_array_index (old_links, i));

  if (text == NULL)
    return;

  valid = g_utf8_make_valid (text, -1);
  lines = g_strsplit (valid, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      gsize len = strlen (lines[i]);

      if (len > 0 && lines[i][len - 1] == '\r')
        lines[i][len - 1] = '\0';
    }

  render_blocks (&ctx, lines, g_strv_length (lines));

  /* No empty line at the end. */
  gtk_text_buffer_get_end_iter (buffer, &end);
  start = end;
  while (gtk_text_iter_backward_char (&start) && gtk_text_iter_get_char (&start) == '\n')
    ;
  if (gtk_text_iter_get_char (&start) != '\n')
    gtk_text_iter_forward_char (&start);
  gtk_text_buffer_delete (buffer, &start, &end);
}

/**
 * sk_markdown_looks_like:
 * @text: (nullable): a step's report
 *
 * Returns: whether @text uses Markdown enough to be worth rendering:
 *   headings, fenced code, tables, lists, emphasis or links
 */
gboolean
sk_markdown_looks_like (const char *text)
{
  g_auto(GStrv) lines = NULL;
  guint list_items = 0;

  if (text == NULL || text[0] == '\0')
    return FALSE;

  lines = g_strsplit (text, "\n", 200);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      guint indent;
      gint64 number;

      if (heading_level (line) > 0 || is_fence (line) ||
          (strchr (line, '|') != NULL && lines[i + 1] != NULL && is_table_separator (lines[i + 1])))
        return TRUE;
      if (list_marker (line, &indent, &number) > 0 && ++list_items >= 2)
        return TRUE;
    }

  return (strstr (text, "**") != NULL && strstr (strstr (text, "**") + 2, "**") != NULL) ||
         (strstr (text, "](") != NULL && strchr (text, '[') != NULL);
}

/**
 * sk_markdown_get_link_at:
 * @iter: a place in a buffer that sk_markdown_render() filled
 *
 * Returns: (nullable): the address of the link at @iter
 */
const char *
sk_markdown_get_link_at (GtkTextIter *iter)
{
  g_autoptr(GSList) tags = NULL;

  g_return_val_if_fail (iter != NULL, NULL);

  tags = gtk_text_iter_get_tags (iter);
  for (GSList *l = tags; l != NULL; l = l->next)
    {
      const char *url = g_object_get_data (l->data, URL_KEY);

      if (url != NULL)
        return url;
    }

  return NULL;
}

static const char *
link_at_point (GtkTextView *view,
               double       x,
               double       y)
{
  GtkTextIter iter;
  int bx, by;

  gtk_text_view_window_to_buffer_coords (view, GTK_TEXT_WINDOW_WIDGET, x, y, &bx, &by);
  if (!gtk_text_view_get_iter_at_location (view, &iter, bx, by))
    return NULL;
  return sk_markdown_get_link_at (&iter);
}

static void
click_released_cb (GtkGestureClick *gesture,
                   int              n_press,
                   double           x,
                   double           y,
                   GtkTextView     *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  g_autoptr(GdkAppLaunchContext) context = NULL;
  const char *url;

  /* A drag that selected text is not a click on a link. */
  if (gtk_text_buffer_get_has_selection (buffer))
    return;

  url = link_at_point (view, x, y);
  if (url == NULL || !is_link_scheme (url, strlen (url)))
    return;

  context = gdk_display_get_app_launch_context (gtk_widget_get_display (GTK_WIDGET (view)));
  g_app_info_launch_default_for_uri_async (url, G_APP_LAUNCH_CONTEXT (context), NULL, NULL, NULL);
}

static void
motion_cb (GtkEventControllerMotion *motion,
           double                    x,
           double                    y,
           GtkTextView              *view)
{
  gtk_widget_set_cursor_from_name (GTK_WIDGET (view),
                                   link_at_point (view, x, y) != NULL ? "pointer" : "text");
}

/**
 * sk_markdown_setup_view:
 * @view: a text view that shows rendered Markdown
 *
 * Makes the links of @view open on a click, with a pointer over them.
 */
void
sk_markdown_setup_view (GtkTextView *view)
{
  GtkGesture *click = gtk_gesture_click_new ();
  GtkEventController *motion = gtk_event_controller_motion_new ();

  g_return_if_fail (GTK_IS_TEXT_VIEW (view));

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect_object (click, "released", G_CALLBACK (click_released_cb), view, 0);
  gtk_widget_add_controller (GTK_WIDGET (view), GTK_EVENT_CONTROLLER (click));

  g_signal_connect_object (motion, "motion", G_CALLBACK (motion_cb), view, 0);
  gtk_widget_add_controller (GTK_WIDGET (view), motion);
}
