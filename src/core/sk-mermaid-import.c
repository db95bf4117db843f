/* sk-mermaid-import.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads a Mermaid flowchart as a workflow (DESIGN §11). Real-world
 * flowcharts are read leniently: what cannot become a step or an edge is
 * left out with a note, and only text that is no flowchart at all, or one
 * whose brackets or quotes never close, is refused.
 *
 * The comment block between SK_MERMAID_CONFIG_START and
 * SK_MERMAID_CONFIG_END keeps what Mermaid cannot say, one entry per node
 * as `%% @ID: { JSON }` (the JSON may span several `%%` lines). These
 * members are read:
 *
 * - "prompt": the step's task;
 * - "stepType": "foreach" with "itemsPath" (`output.files`): the step runs
 *   once per element of that list in its first prior's output;
 *   "decision": the labels of its outgoing links become conditions on the
 *   successors; "flow": noted, sub-workflows are not imported;
 * - "execution": "manual": the step is an approval gate;
 * - "skele": an object, written by Skele-Code's own export: the step's whole
 *   JSON as in process.json, apart from "name" and "priors", which come from
 *   the flowchart. When it is there, the step's own "prompt", "stepType"
 *   and "execution" are not read, and the labels of the links into it are
 *   no conditions: "skele" holds them already;
 * - "id": the step's identifier in the exported workflow, so that the
 *   priors that "skele" names (in "when" and "foreach") are found again
 *   after the steps are numbered anew; a Mermaid id is understood too.
 *
 * The entry `@workflow` is the workflow's own: "name" and "description".
 */

#define G_LOG_DOMAIN "sk-mermaid-import"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-control-flow.h"
#include "sk-export.h"
#include "sk-json.h"
#include "sk-util.h"

G_DEFINE_QUARK (sk-export-error-quark, sk_export_error)

/* The config entry that describes the workflow rather than a step. */
#define WORKFLOW_ENTRY "workflow"

/* Garbage can make a note of every line; past this many, the rest are
 * summed up in one. */
#define MAX_NOTES 100

/* The notes are sorted before the first MAX_NOTES are handed over; no more
 * than this many are kept for it. */
#define MAX_KEPT_NOTES 10000

/* `A & B & … --> C & D & …` links every pair; a statement that would make
 * more edges than this is left out rather than filling the memory. */
#define MAX_PAIRS 100000

typedef struct
{
  char     *mid;
  char     *label;
  char     *name;
  guint     has_shape : 1;
  guint     dropped : 1;
} MNode;

typedef struct
{
  guint     from;
  guint     to;
  char     *label;
  guint     line;
  guint     invisible : 1;
  guint     both_ways : 1;
} MEdge;

typedef struct
{
  char     *mid;
  GString  *json;
  guint     line;
} MEntry;

typedef struct
{
  guint     line;
  guint     order;
  char     *text;
} Note;

typedef struct
{
  const char *text;
  const char *p;
  GArray     *line_starts;

  GPtrArray  *nodes;
  GHashTable *by_mid;
  GArray     *edges;
  GPtrArray  *entries;
  GHashTable *subgraphs;

  MEntry     *entry;
  gboolean    in_config;

  GPtrArray  *notes;
  GArray     *kept_notes;
  guint       n_notes;

  guint       noted_subgraph : 1;
  guint       noted_both_ways : 1;
  guint       noted_labels : 1;
} Parser;

static void
mnode_free (gpointer data)
{
  MNode *node = data;

  g_free (node->mid);
  g_free (node->label);
  g_free (node->name);
  g_free (node);
}

static void
mentry_free (gpointer data)
{
  MEntry *entry = data;

  g_free (entry->mid);
  g_string_free (entry->json, TRUE);
  g_free (entry);
}

static void
note_clear (gpointer data)
{
  Note *note = data;

  g_clear_pointer (&note->text, g_free);
}

static void
medge_clear (gpointer data)
{
  MEdge *edge = data;

  g_clear_pointer (&edge->label, g_free);
}

/* Every note starts with the number of its line, its first argument, and
 * the notes are handed over in the order of their lines. */
static void
add_note (Parser     *parser,
          const char *format,
          ...) G_GNUC_PRINTF (2, 3);

static void
add_note (Parser     *parser,
          const char *format,
          ...)
{
  va_list args;
  va_list copy;
  Note note;

  if (parser->notes == NULL)
    return;

  parser->n_notes++;
  if (parser->kept_notes->len >= MAX_KEPT_NOTES)
    return;

  va_start (args, format);
  va_copy (copy, args);
  note.line = va_arg (copy, guint);
  va_end (copy);
  note.order = parser->n_notes;
  note.text = g_strdup_vprintf (format, args);
  va_end (args);

  g_array_append_val (parser->kept_notes, note);
}

static int
compare_notes (gconstpointer a,
               gconstpointer b)
{
  const Note *note_a = a;
  const Note *note_b = b;

  if (note_a->line != note_b->line)
    return note_a->line < note_b->line ? -1 : 1;
  return note_a->order < note_b->order ? -1 : note_a->order > note_b->order;
}

static void
hand_over_notes (Parser *parser)
{
  if (parser->notes == NULL)
    return;

  g_array_sort (parser->kept_notes, compare_notes);
  for (guint i = 0; i < parser->kept_notes->len && i < MAX_NOTES; i++)
    {
      Note *note = &g_array_index (parser->kept_notes, Note, i);

      g_ptr_array_add (parser->notes, g_steal_pointer (&note->text));
    }

  if (parser->n_notes > MAX_NOTES)
    g_ptr_array_add (parser->notes,
                     g_strdup_printf (_("%u more notes were left out."), parser->n_notes - MAX_NOTES));
}

static guint
line_at (Parser     *parser,
         const char *at)
{
  gsize offset = at - parser->text;
  guint low = 0;
  guint high = parser->line_starts->len;

  /* The last line that starts at or before @at. */
  while (high - low > 1)
    {
      guint middle = low + (high - low) / 2;

      if (g_array_index (parser->line_starts, gsize, middle) <= offset)
        low = middle;
      else
        high = middle;
    }

  return low + 1;
}

/* g_set_str() is newer than GLib 2.74. */
static void
set_str (char       **place,
         const char  *value)
{
  char *copy = g_strdup (value);

  g_free (*place);
  *place = copy;
}

/* Characters ----------------------------------------------------------- */

static inline gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r';
}

static inline gboolean
is_statement_end (char c)
{
  return c == '\0' || c == '\n' || c == ';';
}

/* What Mermaid accepts in a node id: letters, digits, any character
 * outside ASCII and a few signs; a `-` or `=` only where it does not start
 * a link. */
static gboolean
is_id_char (const char *p)
{
  guchar c = (guchar) *p;

  if (c >= 0x80 || g_ascii_isalnum (c))
    return TRUE;

  switch (c)
    {
    case '_': case '!': case '#': case '$': case '\'': case '*':
    case '+': case '.': case '?': case '\\': case '/':
      return TRUE;
    case '-':
      return p[1] != '-' && p[1] != '>' && p[1] != '.';
    case '=':
      return p[1] != '=';
    default:
      return FALSE;
    }
}

static const char *
skip_blanks (const char *p)
{
  while (is_blank (*p))
    p++;
  return p;
}

static const char *
skip_id (const char *p)
{
  while (*p != '\0' && is_id_char (p))
    p++;
  return p;
}

static const char *
skip_statement (const char *p)
{
  while (!is_statement_end (*p))
    p++;
  return p;
}

static const char *
skip_line (const char *p)
{
  while (*p != '\0' && *p != '\n')
    p++;
  return p;
}

/* The first @c on the line of @p, or %NULL; a search that stops at the
 * line keeps reading a long text of broken lines linear. */
static const char *
find_on_line (const char *p,
              char        c)
{
  for (; *p != '\0' && *p != '\n'; p++)
    if (*p == c)
      return p;

  return NULL;
}

static gboolean
has_word (const char *p,
          const char *word)
{
  gsize length = strlen (word);

  return strncmp (p, word, length) == 0 && !is_id_char (p + length);
}

/* Text ------------------------------------------------------------------- */

static const struct { const char *name; const char *text; } entities[] = {
  { "quot", "\"" }, { "amp", "&" }, { "lt", "<" }, { "gt", ">" },
  { "apos", "'" }, { "nbsp", " " }, { "hash", "#" }, { "semi", ";" },
};

/* Mermaid writes characters that its syntax reserves as `#quot;` or
 * `#35;`, and passes HTML's `&quot;` and `&#35;` through. Returns the
 * length of the entity at @p, or 0. */
static gsize
read_entity (const char *p,
             GString    *out)
{
  gboolean html = *p == '&';
  const char *q = p + 1;

  if (html && *q == '#')
    q++;

  if ((html && q > p + 1) || (!html && g_ascii_isdigit (*q)))
    {
      gboolean hex = html && (*q == 'x' || *q == 'X');
      guint32 value = 0;
      guint digits = 0;

      if (hex)
        q++;
      while (digits < 7 && (hex ? g_ascii_isxdigit (*q) : g_ascii_isdigit (*q)))
        {
          value = value * (hex ? 16 : 10) + (hex ? g_ascii_xdigit_value (*q) : g_ascii_digit_value (*q));
          q++;
          digits++;
        }
      if (digits == 0 || *q != ';' || value == 0 || !g_unichar_validate (value))
        return 0;

      g_string_append_unichar (out, value);
      return q + 1 - p;
    }

  for (guint i = 0; i < G_N_ELEMENTS (entities); i++)
    {
      gsize length = strlen (entities[i].name);

      if (strncmp (q, entities[i].name, length) == 0 && q[length] == ';')
        {
          g_string_append (out, entities[i].text);
          return q + length + 1 - p;
        }
    }

  return 0;
}

/* The length of the `<br>`, `<br/>` or `<br />` at @p, or 0. */
static gsize
line_break_length (const char *p,
                   const char *end)
{
  static const char * const breaks[] = { "<br>", "<br/>", "<br />" };

  for (guint i = 0; i < G_N_ELEMENTS (breaks); i++)
    {
      gsize length = strlen (breaks[i]);

      if ((gsize) (end - p) >= length && g_ascii_strncasecmp (p, breaks[i], length) == 0)
        return length;
    }

  return 0;
}

/* Turns a label as written into a step's name: entities decoded, `<br>`
 * and line breaks made spaces, the markers of a markdown string dropped,
 * spaces collapsed. */
static char *
clean_text (const char *text,
            gsize       length,
            gboolean    markdown)
{
  g_autoptr(GString) out = g_string_sized_new (length);
  const char *end = text + length;
  gboolean space = FALSE;

  for (const char *p = text; p < end; )
    {
      gsize used;

      if (*p == '<' && ((used = line_break_length (p, end)) > 0))
        {
          space = TRUE;
          p += used;
          continue;
        }

      if (g_ascii_isspace (*p))
        {
          space = TRUE;
          p++;
          continue;
        }

      if (markdown && (*p == '*' || *p == '`' || (*p == '_' && p + 1 < end && p[1] == '_')))
        {
          p += *p == '_' ? 2 : 1;
          continue;
        }

      if (space && out->len > 0)
        g_string_append_c (out, ' ');
      space = FALSE;

      if ((*p == '#' || *p == '&') && (used = read_entity (p, out)) > 0)
        {
          p += used;
          continue;
        }

      g_string_append_c (out, *p);
      p++;
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Reads a label that may be quoted (`"text"`) or a markdown string
 * ("`text`"), between @p and @end, trimmed. */
static char *
read_label (const char *p,
            const char *end)
{
  while (p < end && g_ascii_isspace (*p))
    p++;
  while (end > p && g_ascii_isspace (end[-1]))
    end--;

  if (end - p >= 4 && p[0] == '"' && p[1] == '`' && end[-2] == '`' && end[-1] == '"')
    return clean_text (p + 2, end - p - 4, TRUE);

  if (end - p >= 2 && p[0] == '"' && end[-1] == '"')
    return clean_text (p + 1, end - p - 2, FALSE);

  return clean_text (p, end - p, FALSE);
}

/* The end of a quoted string that starts at @p (at its `"`), just after
 * the closing quote, or %NULL when it never closes. A markdown string
 * closes at "`\"" . */
static const char *
skip_quoted (const char *p)
{
  const char *close;

  g_assert (*p == '"');

  if (p[1] == '`')
    {
      close = strstr (p + 2, "`\"");
      return close != NULL ? close + 2 : NULL;
    }

  close = strchr (p + 1, '"');
  return close != NULL ? close + 1 : NULL;
}

/* Nodes ------------------------------------------------------------------ */

static guint
intern_node (Parser     *parser,
             const char *mid,
             gsize       length)
{
  g_autofree char *key = g_strndup (mid, length);
  gpointer value;
  MNode *node;

  if (g_hash_table_lookup_extended (parser->by_mid, key, NULL, &value))
    return GPOINTER_TO_UINT (value);

  node = g_new0 (MNode, 1);
  node->mid = g_steal_pointer (&key);
  g_ptr_array_add (parser->nodes, node);
  g_hash_table_insert (parser->by_mid, node->mid, GUINT_TO_POINTER (parser->nodes->len - 1));

  return parser->nodes->len - 1;
}

static void
parse_error (Parser      *parser,
             const char  *at,
             GError     **error,
             const char  *format,
             ...) G_GNUC_PRINTF (4, 5);

static void
parse_error (Parser      *parser,
             const char  *at,
             GError     **error,
             const char  *format,
             ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  /* Translators: the first %u is a line number, the %s a sentence. */
  g_set_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_PARSE,
               _("Line %u: %s"), line_at (parser, at), message);
}

/* The label in the newer `@{ shape: …, label: "…" }` form, or %NULL.
 * @p is just after the `{`; @end at the `}`. */
static char *
shape_data_label (const char *p,
                  const char *end)
{
  for (const char *q = p; q + 5 <= end; q++)
    {
      const char *value;
      const char *value_end;

      if (*q == '"')
        {
          const char *close = memchr (q + 1, '"', end - q - 1);

          if (close == NULL)
            break;
          q = close;
          continue;
        }

      if (strncmp (q, "label", 5) != 0 || (q > p && (is_id_char (q - 1) && q[-1] != ',')))
        continue;

      value = q + 5;
      while (value < end && is_blank (*value))
        value++;
      if (value >= end || *value != ':')
        continue;
      value++;
      while (value < end && is_blank (*value))
        value++;

      if (value < end && *value == '"')
        {
          value_end = memchr (value + 1, '"', end - value - 1);
          return value_end != NULL ? read_label (value, value_end + 1) : NULL;
        }

      if (value < end && (*value == '|' || *value == '>'))
        {
          /* A YAML block: the more indented lines that follow. */
          const char *line = memchr (value, '\n', end - value);
          g_autoptr(GString) block = g_string_new (NULL);

          while (line != NULL && line < end)
            {
              const char *next = memchr (line + 1, '\n', end - line - 1);
              const char *stop = next != NULL ? next : end;
              const char *text = line + 1;

              while (text < stop && is_blank (*text))
                text++;
              if (text < stop && memchr (text, ':', stop - text) != NULL && block->len > 0)
                break;
              g_string_append_len (block, text, stop - text);
              g_string_append_c (block, ' ');
              line = next;
            }

          return read_label (block->str, block->str + block->len);
        }

      value_end = value;
      while (value_end < end && *value_end != ',' && *value_end != '\n')
        value_end++;
      return read_label (value, value_end);
    }

  return NULL;
}

/* Reads `@{ … }` at @p (at the `@`); returns the position after the `}`. */
static const char *
parse_shape_data (Parser      *parser,
                  const char  *p,
                  char       **label,
                  GError     **error)
{
  const char *q = p + 2;

  while (*q != '\0' && *q != '}')
    {
      if (*q == '"')
        {
          const char *close = strchr (q + 1, '"');

          if (close == NULL)
            break;
          q = close;
        }
      q++;
    }

  if (*q != '}')
    {
      parse_error (parser, p, error, _("the “@{” that starts a node’s data is never closed."));
      return NULL;
    }

  g_free (*label);
  *label = shape_data_label (p + 2, q);
  return q + 1;
}

typedef struct
{
  const char *open;
  const char *close;
  const char *other_close;
} Shape;

/* Longer openers first, so that `((` is not read as `(`. */
static const Shape shapes[] = {
  { "(((", ")))", NULL },
  { "((", "))", NULL },
  { "([", "])", NULL },
  { "[[", "]]", NULL },
  { "[(", ")]", NULL },
  { "[/", "/]", "\\]" },
  { "[\\", "\\]", "/]" },
  { "[|", "]", NULL },
  { "{{", "}}", NULL },
  { "(-", "-)", NULL },
  { "[", "]", NULL },
  { "(", ")", NULL },
  { "{", "}", NULL },
  { ">", "]", NULL },
};

/* The first @close, or @other_close when it is given, at or after @p. */
static const char *
find_closer (const char *p,
             const char *close,
             const char *other_close)
{
  gsize close_length = strlen (close);
  gsize other_length = other_close != NULL ? strlen (other_close) : 0;

  for (; *p != '\0'; p++)
    {
      if (strncmp (p, close, close_length) == 0 ||
          (other_close != NULL && strncmp (p, other_close, other_length) == 0))
        return p;
    }

  return NULL;
}

/* Reads the shape and label after a node id; returns the position after
 * it, @p itself when there is no shape, or %NULL with @error set. */
static const char *
parse_shape (Parser      *parser,
             const char  *p,
             char       **label,
             GError     **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      const Shape *shape = &shapes[i];
      gsize open_length = strlen (shape->open);
      const char *text;
      const char *close;
      const char *search;

      if (strncmp (p, shape->open, open_length) != 0)
        continue;

      text = p + open_length;
      search = skip_blanks (text);
      while (*search == '\n')
        search = skip_blanks (search + 1);

      if (*search == '"')
        {
          search = skip_quoted (search);
          if (search == NULL)
            {
              parse_error (parser, p, error, _("a quoted label is never closed."));
              return NULL;
            }
        }
      else
        {
          search = text;
        }

      close = find_closer (search, shape->close, shape->other_close);

      if (close == NULL)
        {
          parse_error (parser, p, error, _("the “%s” that opens a node’s label is never closed."),
                       shape->open);
          return NULL;
        }

      g_free (*label);
      if (search != text)
        {
          /* Whatever stands between the closing quote and the bracket
           * is not part of the label. */
          *label = read_label (text, search);
        }
      else
        {
          *label = read_label (text, close);
        }

      return close + strlen (strncmp (close, shape->close, strlen (shape->close)) == 0 ?
                             shape->close : shape->other_close);
    }

  return p;
}

/* Reads one node at @p: its id, shape, data and class. Returns the
 * position after it, @p when there is no node there, or %NULL with @error
 * set. */
static const char *
parse_vertex (Parser      *parser,
              const char  *p,
              guint       *index,
              GError     **error)
{
  g_autofree char *label = NULL;
  const char *id_end = skip_id (p);
  const char *q;
  gboolean has_shape = FALSE;
  MNode *node;

  if (id_end == p)
    return p;

  q = id_end;
  if (q[0] == '@' && q[1] == '{')
    {
      if ((q = parse_shape_data (parser, q, &label, error)) == NULL)
        return NULL;
      has_shape = TRUE;
    }
  else
    {
      const char *after = parse_shape (parser, q, &label, error);

      if (after == NULL)
        return NULL;
      has_shape = after != q;
      q = after;

      if (q[0] == '@' && q[1] == '{')
        {
          g_autofree char *data_label = NULL;

          if ((q = parse_shape_data (parser, q, &data_label, error)) == NULL)
            return NULL;
          if (data_label != NULL)
            set_str (&label, data_label);
        }
    }

  if (strncmp (q, ":::", 3) == 0)
    q = skip_id (q + 3);

  *index = intern_node (parser, p, id_end - p);
  node = g_ptr_array_index (parser->nodes, *index);
  node->has_shape |= has_shape;
  /* As in Mermaid, the last label given to a node is its label. */
  if (label != NULL)
    set_str (&node->label, label);

  return q;
}

/* Reads `A & B & …` at @p into @group. */
static const char *
parse_group (Parser      *parser,
             const char  *p,
             GArray      *group,
             GError     **error)
{
  g_array_set_size (group, 0);

  for (;;)
    {
      const char *after;
      guint index;

      p = skip_blanks (p);
      after = parse_vertex (parser, p, &index, error);
      if (after == NULL)
        return NULL;
      if (after == p)
        return group->len > 0 ? p : NULL;

      g_array_append_val (group, index);
      p = skip_blanks (after);
      if (*p != '&')
        return p;
      p++;
    }
}

/* Links ------------------------------------------------------------------ */

typedef struct
{
  char     *label;
  gboolean  invisible;
  gboolean  both_ways;
} Link;

static gboolean
is_head (char c)
{
  return c == '>' || c == 'x' || c == 'o';
}

/* Finds the end of a link's text written inside it (`-- text -->`), on
 * the same line: returns where the text ends and sets @after to just after
 * the link, or returns %NULL. */
static const char *
find_link_end (const char  *p,
               char         line_char,
               const char **after)
{
  for (const char *q = p; *q != '\0' && *q != '\n'; q++)
    {
      if (line_char == '.')
        {
          const char *r = q;

          if (*q != '.')
            continue;
          while (*r == '.')
            r++;
          if (*r != '-')
            continue;
          r++;
          if (is_head (*r))
            r++;
          *after = r;
          return q;
        }

      if (q[0] == line_char && q[1] == line_char)
        {
          const char *r = q;

          while (*r == line_char)
            r++;
          if (is_head (*r))
            r++;
          *after = r;
          return q;
        }
    }

  return NULL;
}

/* Reads a link at @p: `-->`, `---`, `-.->`, `==>`, `~~~`, their longer
 * forms, heads `o` and `x` at either end, a text inside (`-- text -->`) or
 * after (`-->|text|`), and an id in front (`e1@-->`). Returns the position
 * after it, or %NULL when there is no link at @p. */
static const char *
parse_link (const char *p,
            Link       *link)
{
  const char *q = p;
  const char *id_end = skip_id (p);
  const char *text = NULL;
  const char *text_end = NULL;
  char left = '\0';
  char right = '\0';

  memset (link, 0, sizeof *link);

  if (id_end > p && id_end[0] == '@' && id_end[1] != '{' && id_end[1] != '"')
    q = id_end + 1;

  if ((*q == '<' || *q == 'x' || *q == 'o') &&
      (q[1] == '-' || q[1] == '=' || q[1] == '.'))
    left = *q++;

  if (*q == '~' && q[1] == '~' && q[2] == '~')
    {
      while (*q == '~')
        q++;
      link->invisible = TRUE;
    }
  else if ((q[0] == '-' && q[1] == '.') || q[0] == '.')
    {
      const char *r = q[0] == '-' ? q + 1 : q;

      while (*r == '.')
        r++;
      if (*r == '-')
        {
          r++;
          if (is_head (*r))
            right = *r++;
          q = r;
        }
      else if (q[0] == '-')
        {
          const char *after;

          text = q + 2;
          text_end = find_link_end (text, '.', &after);
          if (text_end == NULL)
            return NULL;
          right = is_head (after[-1]) ? after[-1] : '\0';
          q = after;
        }
      else
        {
          return NULL;
        }
    }
  else if (*q == '-' || *q == '=')
    {
      char line_char = *q;
      guint n = 0;

      while (q[n] == line_char)
        n++;
      if (n < 2)
        return NULL;

      if (is_head (q[n]))
        {
          right = q[n];
          q += n + 1;
        }
      else if (n >= 3)
        {
          q += n;
        }
      else
        {
          const char *after;

          text = q + 2;
          text_end = find_link_end (text, line_char, &after);
          if (text_end == NULL)
            return NULL;
          right = is_head (after[-1]) ? after[-1] : '\0';
          q = after;
        }
    }
  else
    {
      return NULL;
    }

  if (text != NULL)
    link->label = read_label (text, text_end);

  q = skip_blanks (q);
  if (*q == '|')
    {
      const char *start = q + 1;
      const char *close = skip_blanks (start);

      if (*close == '"' && (close = skip_quoted (close)) != NULL &&
          memchr (start, '\n', close - start) == NULL)
        close = find_on_line (close, '|');
      else
        close = find_on_line (start, '|');

      if (close != NULL)
        {
          g_free (link->label);
          link->label = read_label (start, close);
          q = close + 1;
        }
    }

  if (link->label != NULL && link->label[0] == '\0')
    g_clear_pointer (&link->label, g_free);

  link->both_ways = left != '\0' && right != '\0';
  return q;
}

static void
add_edges (Parser     *parser,
           GArray     *from,
           GArray     *to,
           Link       *link,
           const char *at)
{
  guint line = line_at (parser, at);

  if ((guint64) from->len * to->len > MAX_PAIRS)
    {
      add_note (parser, _("Line %u: the link makes more than %u connections, so it was left out."),
                line, MAX_PAIRS);
      return;
    }

  for (guint i = 0; i < from->len; i++)
    for (guint j = 0; j < to->len; j++)
      {
        MEdge edge = {
          .from = g_array_index (from, guint, i),
          .to = g_array_index (to, guint, j),
          .label = g_strdup (link->label),
          .line = line,
          .invisible = link->invisible,
          .both_ways = link->both_ways,
        };

        g_array_append_val (parser->edges, edge);
      }
}

/* Statements ------------------------------------------------------------- */

/* The first characters of the text between @p and @end, for a note. */
static char *
excerpt (const char *p,
         const char *end)
{
  const char *cut = p;
  g_autofree char *text = NULL;

  for (guint n = 0; n < 60 && cut < end; n++)
    cut = g_utf8_next_char (cut);
  cut = MIN (cut, end);

  text = g_strstrip (g_strndup (p, cut - p));
  if (cut < end)
    return g_strconcat (text, "…", NULL);
  return g_steal_pointer (&text);
}

static gboolean
parse_vertex_statement (Parser      *parser,
                        GError     **error)
{
  g_autoptr(GArray) group = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GArray) next = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *text = NULL;
  const char *start = parser->p;
  const char *p;

  p = parse_group (parser, start, group, error);
  if (p == NULL)
    {
      if (*error != NULL)
        return FALSE;

      parser->p = skip_statement (start);
      text = excerpt (start, parser->p);
      add_note (parser, _("Line %u: “%s” is not a statement that Skele-Code reads, so it was left out."),
                line_at (parser, start), text);
      return TRUE;
    }

  for (;;)
    {
      Link link;
      const char *after;

      p = skip_blanks (p);
      if (is_statement_end (*p) || (p[0] == '%' && p[1] == '%'))
        break;

      after = parse_link (p, &link);
      if (after != NULL)
        after = parse_group (parser, after, next, error);

      if (after == NULL)
        {
          g_free (link.label);
          if (*error != NULL)
            return FALSE;

          parser->p = skip_statement (p);
          text = excerpt (p, parser->p);
          add_note (parser, _("Line %u: “%s” could not be read, so it was left out."),
                    line_at (parser, p), text);
          return TRUE;
        }

      add_edges (parser, group, next, &link, p);
      g_free (link.label);

      g_array_set_size (group, 0);
      g_array_append_vals (group, next->data, next->len);
      p = after;
    }

  if (p[0] == '%' && p[1] == '%')
    p = skip_line (p);

  parser->p = p;
  return TRUE;
}

static void
flush_entry (Parser *parser)
{
  if (parser->entry != NULL)
    g_ptr_array_add (parser->entries, g_steal_pointer (&parser->entry));
}

/* Whether the text of a comment, without its `%%`, is @marker. */
static gboolean
is_marker (const char *text,
           const char *marker)
{
  g_assert (g_str_has_prefix (marker, "%%"));

  return g_str_equal (text, skip_blanks (marker + strlen ("%%")));
}

/* A `%%` line: a comment, a directive, or a line of the config block. */
static void
parse_comment (Parser *parser)
{
  const char *start = parser->p + 2;
  const char *end = skip_line (start);
  g_autofree char *trimmed = g_strstrip (g_strndup (start, end - start));

  parser->p = end;

  if (is_marker (trimmed, SK_MERMAID_CONFIG_START))
    {
      flush_entry (parser);
      parser->in_config = TRUE;
      return;
    }

  if (is_marker (trimmed, SK_MERMAID_CONFIG_END))
    {
      flush_entry (parser);
      parser->in_config = FALSE;
      return;
    }

  if (!parser->in_config)
    return;

  if (trimmed[0] == '@')
    {
      const char *colon = strchr (trimmed, ':');

      if (colon != NULL && colon > trimmed + 1)
        {
          flush_entry (parser);
          parser->entry = g_new0 (MEntry, 1);
          parser->entry->mid = g_strstrip (g_strndup (trimmed + 1, colon - trimmed - 1));
          parser->entry->json = g_string_new (colon + 1);
          parser->entry->line = line_at (parser, start);
          return;
        }
    }

  if (parser->entry != NULL)
    {
      g_string_append_c (parser->entry->json, '\n');
      g_string_append (parser->entry->json, trimmed);
    }
}

static void
parse_subgraph (Parser *parser)
{
  const char *p = skip_blanks (parser->p + strlen ("subgraph"));
  const char *id_end = skip_id (p);

  if (!parser->noted_subgraph)
    {
      parser->noted_subgraph = TRUE;
      add_note (parser, _("Line %u: subgraphs were flattened: the nodes inside them are ordinary steps."),
                line_at (parser, parser->p));
    }

  if (id_end > p && (is_blank (*id_end) || *id_end == '[' || is_statement_end (*id_end)))
    g_hash_table_add (parser->subgraphs, g_strndup (p, id_end - p));

  /* A title in brackets may hold a `;`. */
  if (*id_end == '[')
    {
      const char *close = find_on_line (id_end, ']');

      if (close != NULL)
        id_end = close;
    }

  parser->p = skip_statement (id_end);
}

static gboolean
parse_statement (Parser  *parser,
                 GError **error)
{
  const char *p = parser->p;

  if (p[0] == '%' && p[1] == '%')
    {
      parse_comment (parser);
      return TRUE;
    }

  if (has_word (p, "subgraph"))
    {
      parse_subgraph (parser);
      return TRUE;
    }

  if (has_word (p, "end") || has_word (p, "direction"))
    {
      parser->p = skip_statement (p);
      return TRUE;
    }

  if ((has_word (p, "classDef") || has_word (p, "class") || has_word (p, "style") ||
       has_word (p, "linkStyle") || has_word (p, "click")) && is_blank (*skip_id (p)))
    {
      parser->p = skip_statement (p);
      return TRUE;
    }

  if (has_word (p, "accTitle") || has_word (p, "accDescr"))
    {
      const char *q = skip_blanks (skip_id (p));

      if (*q == '{')
        {
          const char *close = strchr (q, '}');

          parser->p = close != NULL ? close + 1 : q + strlen (q);
        }
      else
        {
          parser->p = skip_line (p);
        }
      return TRUE;
    }

  return parse_vertex_statement (parser, error);
}

/* Skips blank lines, comments and a YAML front matter before the header;
 * returns FALSE when nothing else is there. */
static gboolean
skip_preamble (Parser *parser)
{
  for (;;)
    {
      const char *p = parser->p;

      while (g_ascii_isspace (*p) || *p == ';')
        p++;
      parser->p = p;

      if (p[0] == '%' && p[1] == '%')
        {
          parse_comment (parser);
          continue;
        }

      if (p == parser->text && strncmp (p, "---", 3) == 0 && (p[3] == '\n' || p[3] == '\r'))
        {
          const char *close = strstr (p + 3, "\n---");

          if (close == NULL)
            return *p != '\0';
          parser->p = skip_line (close + 1);
          continue;
        }

      return *p != '\0';
    }
}

static gboolean
parse_header (Parser  *parser,
              GError **error)
{
  static const char * const directions[] = { "TD", "TB", "BT", "LR", "RL", NULL };
  const char *p = parser->p;
  const char *q;

  if (has_word (p, "flowchart-elk"))
    q = p + strlen ("flowchart-elk");
  else if (has_word (p, "flowchart"))
    q = p + strlen ("flowchart");
  else if (has_word (p, "graph"))
    q = p + strlen ("graph");
  else
    {
      g_set_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_PARSE,
                   _("Line %u is not a Mermaid flowchart: it should start with “flowchart TD” or “graph TD”."),
                   line_at (parser, p));
      return FALSE;
    }

  q = skip_blanks (q);
  for (guint i = 0; directions[i] != NULL; i++)
    if (has_word (q, directions[i]))
      {
        q += 2;
        break;
      }

  parser->p = q;
  return TRUE;
}

static gboolean
parse_document (Parser  *parser,
                GError **error)
{
  if (!skip_preamble (parser))
    {
      g_set_error_literal (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_EMPTY,
                           _("The text holds no flowchart."));
      return FALSE;
    }

  if (!parse_header (parser, error))
    return FALSE;

  while (*parser->p != '\0')
    {
      const char *before;

      parser->p = skip_blanks (parser->p);
      if (*parser->p == '\n' || *parser->p == ';')
        {
          parser->p++;
          continue;
        }
      if (*parser->p == '\0')
        break;

      before = parser->p;
      if (!parse_statement (parser, error))
        return FALSE;

      /* Every statement reads something; this guards the loop against a
       * reader that did not. */
      if (parser->p == before)
        parser->p = skip_statement (before + 1);
    }

  flush_entry (parser);
  return TRUE;
}

/* Config ----------------------------------------------------------------- */

static JsonObject *
parse_entry_json (const char *json)
{
  g_autoptr(JsonParser) json_parser = NULL;
  g_autofree char *repaired = NULL;
  gsize length = 0;
  JsonNode *root;

  if (!sk_json_check_depth (json, -1, SK_JSON_MAX_DEPTH, NULL))
    return NULL;

  repaired = sk_json_replace_lone_surrogates (json, -1, &length, NULL);
  json_parser = json_parser_new ();
  if (!json_parser_load_from_data (json_parser,
                                   repaired != NULL ? repaired : json,
                                   repaired != NULL ? (gssize) length : -1,
                                   NULL))
    return NULL;

  root = json_parser_get_root (json_parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;

  return json_object_ref (json_node_get_object (root));
}

static gboolean
is_ident_start (char c)
{
  return g_ascii_isalpha (c) || c == '_' || c == '$';
}

static gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '$';
}

static void
append_spaced (GString    *out,
               const char *word)
{
  if (out->len > 0 && out->str[out->len - 1] != ' ' && out->str[out->len - 1] != '(')
    g_string_append_c (out, ' ');
  g_string_append (out, word);
  g_string_append_c (out, ' ');
}

/* Turns the seed's JavaScript-style condition into Python where that is
 * simple: `output.a.b` becomes `output["a"]["b"]`, `output.list.length`
 * `len(output["list"])`, `===` `==`, `&&` `and`, `!x` `not x`, `true`
 * `True` and so on; strings and anything else are kept as they are. */
static char *
translate_condition (const char *expression)
{
  g_autoptr(GString) out = g_string_new (NULL);
  const char *p = expression;

  while (*p != '\0')
    {
      if (*p == '"' || *p == '\'')
        {
          const char *close = p + 1;

          while (*close != '\0' && *close != *p)
            close += close[0] == '\\' && close[1] != '\0' ? 2 : 1;
          if (*close != '\0')
            close++;
          g_string_append_len (out, p, close - p);
          p = close;
        }
      else if (strncmp (p, "===", 3) == 0 || strncmp (p, "!==", 3) == 0)
        {
          g_string_append_len (out, p, 2);
          p += 3;
        }
      else if (p[0] == '!' && p[1] == '=')
        {
          g_string_append (out, "!=");
          p += 2;
        }
      else if ((p[0] == '&' && p[1] == '&') || (p[0] == '|' && p[1] == '|'))
        {
          while (out->len > 0 && out->str[out->len - 1] == ' ')
            g_string_truncate (out, out->len - 1);
          append_spaced (out, p[0] == '&' ? "and" : "or");
          p = skip_blanks (p + 2);
        }
      else if (p[0] == '!')
        {
          append_spaced (out, "not");
          p = skip_blanks (p + 1);
        }
      else if (is_ident_start (*p) && (p == expression || (!is_ident_char (p[-1]) && p[-1] != '.')))
        {
          const char *end = p;
          g_autofree char *word = NULL;

          while (is_ident_char (*end))
            end++;
          word = g_strndup (p, end - p);

          if (g_str_equal (word, "output") && end[0] == '.' && is_ident_start (end[1]))
            {
              g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
              gboolean length = FALSE;

              while (end[0] == '.' && is_ident_start (end[1]))
                {
                  const char *part = end + 1;

                  end = part;
                  while (is_ident_char (*end))
                    end++;
                  g_ptr_array_add (parts, g_strndup (part, end - part));
                }

              if (parts->len > 1 && g_str_equal (g_ptr_array_index (parts, parts->len - 1), "length"))
                {
                  length = TRUE;
                  g_ptr_array_set_size (parts, parts->len - 1);
                  g_string_append (out, "len(");
                }
              g_string_append (out, "output");
              for (guint i = 0; i < parts->len; i++)
                g_string_append_printf (out, "[\"%s\"]", (char *) g_ptr_array_index (parts, i));
              if (length)
                g_string_append_c (out, ')');
            }
          else if (g_str_equal (word, "true"))
            g_string_append (out, "True");
          else if (g_str_equal (word, "false"))
            g_string_append (out, "False");
          else if (g_str_equal (word, "null") || g_str_equal (word, "undefined"))
            g_string_append (out, "None");
          else
            g_string_append (out, word);

          p = end;
        }
      else
        {
          g_string_append_c (out, *p);
          p++;
        }
    }

  return g_strstrip (g_string_free (g_steal_pointer (&out), FALSE));
}

/* Building the workflow -------------------------------------------------- */

typedef struct
{
  JsonObject *config;
  JsonObject *skele;
  guint       line;
} NodeConfig;

/* Gives every node a name whose key no other node has. */
static void
name_nodes (Parser *parser)
{
  g_autoptr(GHashTable) keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) next_number = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < parser->nodes->len; i++)
    {
      MNode *node = g_ptr_array_index (parser->nodes, i);
      g_autofree char *base = NULL;
      g_autofree char *key = NULL;
      guint n;

      if (node->dropped)
        continue;

      base = g_strdup (sk_util_is_blank (node->label) ? node->mid : node->label);
      key = sk_node_key_from_name (base);
      if (key[0] == '\0')
        {
          set_str (&base, node->mid);
          g_free (key);
          key = sk_node_key_from_name (base);
        }
      if (key[0] == '\0')
        set_str (&base, _("Step"));

      n = GPOINTER_TO_UINT (g_hash_table_lookup (next_number, base));
      for (n = MAX (n, 1); ; n++)
        {
          g_autofree char *name = n == 1 ? g_strdup (base) : g_strdup_printf ("%s %u", base, n);

          g_free (key);
          key = sk_node_key_from_name (name);
          if (key[0] != '\0' && !g_hash_table_contains (keys, key))
            {
              node->name = g_steal_pointer (&name);
              g_hash_table_add (keys, g_steal_pointer (&key));
              break;
            }
        }
      g_hash_table_insert (next_number, g_strdup (base), GUINT_TO_POINTER (n + 1));
    }
}

/* Links to or from a subgraph join no step: Skele-Code has no subgraphs. */
static void
drop_subgraph_nodes (Parser *parser)
{
  for (guint i = 0; i < parser->nodes->len; i++)
    {
      MNode *node = g_ptr_array_index (parser->nodes, i);

      if (!node->has_shape && node->label == NULL &&
          g_hash_table_contains (parser->subgraphs, node->mid))
        node->dropped = TRUE;
    }
}

/* g_int64_hash() of GLib 2.74 keeps the low half only, which is the same
 * for every link into one node. */
static guint
hash_pair (gconstpointer key)
{
  guint64 value = *(const guint64 *) key;

  value ^= value >> 33;
  value *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  value ^= value >> 33;
  return (guint) value;
}

/* For lists that hold no array where a node has no edge. */
static void
unref_array (gpointer data)
{
  if (data != NULL)
    g_array_unref (data);
}

/* Whether @target can be reached from @start along @successors. */
static gboolean
reaches (GPtrArray *successors,
         guint      start,
         guint      target,
         guint     *visited,
         guint      stamp,
         GArray    *stack)
{
  g_array_set_size (stack, 0);
  g_array_append_val (stack, start);
  visited[start] = stamp;

  while (stack->len > 0)
    {
      guint current = g_array_index (stack, guint, stack->len - 1);
      GArray *next = g_ptr_array_index (successors, current);

      g_array_set_size (stack, stack->len - 1);
      if (current == target)
        return TRUE;

      for (guint i = 0; next != NULL && i < next->len; i++)
        {
          guint successor = g_array_index (next, guint, i);

          if (visited[successor] != stamp)
            {
              visited[successor] = stamp;
              g_array_append_val (stack, successor);
            }
        }
    }

  return FALSE;
}

static const char *
node_name (Parser *parser,
           guint   index)
{
  MNode *node = g_ptr_array_index (parser->nodes, index);

  return node->name != NULL ? node->name : node->mid;
}

/* Keeps the edges that can be priors: no invisible link, no link to or
 * from a subgraph, no repeat and none that would close a cycle. */
static GArray *
select_edges (Parser *parser)
{
  g_autoptr(GPtrArray) successors = g_ptr_array_new_with_free_func (unref_array);
  g_autoptr(GHashTable) seen = g_hash_table_new (hash_pair, g_int64_equal);
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree guint *visited = g_new0 (guint, parser->nodes->len + 1);
  g_autofree gint64 *pairs = g_new (gint64, parser->edges->len + 1);
  GArray *kept = g_array_new (FALSE, FALSE, sizeof (MEdge));
  guint stamp = 0;

  g_array_set_clear_func (kept, medge_clear);
  g_ptr_array_set_size (successors, parser->nodes->len);

  for (guint i = 0; i < parser->edges->len; i++)
    {
      MEdge *edge = &g_array_index (parser->edges, MEdge, i);
      MNode *from = g_ptr_array_index (parser->nodes, edge->from);
      MNode *to = g_ptr_array_index (parser->nodes, edge->to);
      GArray *next;

      if (from->dropped || to->dropped)
        {
          add_note (parser, _("Line %u: the link from “%s” to “%s” joins a subgraph, not a step, so it was left out."),
                    edge->line, node_name (parser, edge->from), node_name (parser, edge->to));
          continue;
        }

      if (edge->invisible)
        {
          add_note (parser, _("Line %u: the invisible link from “%s” to “%s” makes neither step need the other, so it was left out."),
                    edge->line, from->name, to->name);
          continue;
        }

      pairs[i] = ((gint64) edge->from << 32) | edge->to;
      if (g_hash_table_contains (seen, &pairs[i]))
        continue;

      if (edge->from == edge->to ||
          reaches (successors, edge->to, edge->from, visited, ++stamp, stack))
        {
          add_note (parser, _("Line %u: the link from “%s” to “%s” would close a cycle, so it was left out."),
                    edge->line, from->name, to->name);
          continue;
        }

      if (edge->both_ways && !parser->noted_both_ways)
        {
          parser->noted_both_ways = TRUE;
          add_note (parser, _("Line %u: the link between “%s” and “%s” points both ways; it was read as going from “%s” to “%s”."),
                    edge->line, from->name, to->name, from->name, to->name);
        }

      g_hash_table_add (seen, &pairs[i]);
      next = g_ptr_array_index (successors, edge->from);
      if (next == NULL)
        {
          next = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_index (successors, edge->from) = next;
        }
      g_array_append_val (next, edge->to);

      {
        MEdge copy = *edge;

        copy.label = g_strdup (edge->label);
        g_array_append_val (kept, copy);
      }
    }

  return kept;
}

/* Replaces the step identifiers that the "skele" object of an export
 * names, in "when" and "foreach", by the new ones. */
static void
renumber_skele (JsonObject *node_json,
                GHashTable *new_ids)
{
  JsonObject *skele = sk_json_get_object (node_json, "skele");
  JsonObject *when = sk_json_get_object (skele, "when");
  JsonObject *foreach = sk_json_get_object (skele, "foreach");
  const char *prior = sk_json_get_string (foreach, "prior");

  if (when != NULL)
    {
      g_autoptr(GList) members = json_object_get_members (when);
      JsonObject *renumbered = json_object_new ();

      for (GList *l = members; l != NULL; l = l->next)
        {
          const char *id = g_hash_table_lookup (new_ids, l->data);

          json_object_set_member (renumbered, id != NULL ? id : l->data,
                                  json_node_copy (json_object_get_member (when, l->data)));
        }
      json_object_set_object_member (skele, "when", renumbered);
    }

  if (prior != NULL && g_hash_table_contains (new_ids, prior))
    json_object_set_string_member (foreach, "prior", g_hash_table_lookup (new_ids, prior));
}

static SkNode *
make_node (Parser     *parser,
           guint       index,
           const char *id,
           GPtrArray  *priors,
           NodeConfig *config,
           GHashTable *new_ids)
{
  MNode *mnode = g_ptr_array_index (parser->nodes, index);
  g_autoptr(JsonObject) object = NULL;
  JsonArray *array = json_array_new ();
  const char *step_type;
  const char *execution;
  const char *prompt;

  for (guint i = 0; i < priors->len; i++)
    json_array_add_string_element (array, g_ptr_array_index (priors, i));

  if (config != NULL && config->skele != NULL)
    {
      /* The entry is read once, so it can be changed in place. */
      object = json_object_ref (config->skele);
      json_object_set_string_member (object, "name", mnode->name);
      json_object_set_array_member (object, "priors", array);
      renumber_skele (object, new_ids);
      return sk_node_new_from_json (id, object);
    }

  object = json_object_new ();
  json_object_set_string_member (object, "name", mnode->name);
  json_object_set_array_member (object, "priors", array);

  if (config == NULL)
    return sk_node_new_from_json (id, object);

  prompt = sk_json_get_string (config->config, "prompt");
  if (prompt != NULL)
    {
      JsonObject *input = json_object_new ();

      json_object_set_string_member (input, "text", prompt);
      json_object_set_object_member (object, "input", input);
    }

  step_type = sk_json_get_string (config->config, "stepType");
  if (g_strcmp0 (step_type, "foreach") == 0)
    {
      const char *path = sk_json_get_string (config->config, "itemsPath");

      if (g_str_has_prefix (path != NULL ? path : "", "output."))
        path += strlen ("output.");

      if (priors->len == 0 || sk_util_is_blank (path))
        {
          add_note (parser, _("Line %u: “%s” goes through a list, but it has no prior or no “itemsPath” to take the list from, so it runs once."),
                    config->line, mnode->name);
        }
      else
        {
          JsonObject *skele = json_object_new ();
          JsonObject *foreach = json_object_new ();

          json_object_set_string_member (foreach, "prior", g_ptr_array_index (priors, 0));
          json_object_set_string_member (foreach, "path", path);
          json_object_set_object_member (skele, "foreach", foreach);
          json_object_set_object_member (object, "skele", skele);
        }
    }
  else if (g_strcmp0 (step_type, "flow") == 0)
    {
      add_note (parser, _("Line %u: “%s” runs another flow; sub-workflows are not imported, so it is an ordinary step."),
                config->line, mnode->name);
    }

  {
    SkNode *node = sk_node_new_from_json (id, object);

    execution = sk_json_get_string (config->config, "execution");
    if (g_strcmp0 (execution, "manual") == 0)
      sk_node_set_approval (node, TRUE);

    return node;
  }
}

static SkProject *
build_project (Parser  *parser,
               GError **error)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GArray) edges = NULL;
  g_autoptr(GHashTable) new_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) node_ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) priors = g_ptr_array_new ();
  g_autoptr(GArray) config_array = g_array_new (FALSE, TRUE, sizeof (NodeConfig));
  g_autoptr(GPtrArray) incoming = g_ptr_array_new_with_free_func (unref_array);
  g_autoptr(JsonObject) workflow = NULL;
  guint n_steps = 0;

  drop_subgraph_nodes (parser);
  name_nodes (parser);

  for (guint i = 0; i < parser->nodes->len; i++)
    {
      MNode *node = g_ptr_array_index (parser->nodes, i);

      if (node->dropped)
        {
          g_ptr_array_add (node_ids, NULL);
          continue;
        }
      g_ptr_array_add (node_ids, g_strdup_printf ("%u", ++n_steps));
    }

  if (n_steps == 0)
    {
      g_set_error_literal (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_EMPTY,
                           _("The flowchart has no node, so there is no step to import."));
      return NULL;
    }

  /* The config entries, by node. */
  g_array_set_size (config_array, parser->nodes->len);
  for (guint i = 0; i < parser->entries->len; i++)
    {
      MEntry *entry = g_ptr_array_index (parser->entries, i);
      g_autoptr(JsonObject) object = parse_entry_json (entry->json->str);
      gpointer value;
      NodeConfig *config;

      if (object == NULL)
        {
          add_note (parser, _("Line %u: the configuration of “%s” is not a valid JSON object, so it was left out."),
                    entry->line, entry->mid);
          continue;
        }

      if (g_str_equal (entry->mid, WORKFLOW_ENTRY))
        {
          g_clear_pointer (&workflow, json_object_unref);
          workflow = g_steal_pointer (&object);
          continue;
        }

      if (!g_hash_table_lookup_extended (parser->by_mid, entry->mid, NULL, &value) ||
          ((MNode *) g_ptr_array_index (parser->nodes, GPOINTER_TO_UINT (value)))->dropped)
        {
          add_note (parser, _("Line %u: the configuration names “%s”, which is no node of the flowchart, so it was left out."),
                    entry->line, entry->mid);
          continue;
        }

      config = &g_array_index (config_array, NodeConfig, GPOINTER_TO_UINT (value));
      g_clear_pointer (&config->config, json_object_unref);
      config->config = g_steal_pointer (&object);
      config->skele = sk_json_get_object (config->config, "skele");
      config->line = entry->line;
    }

  /* A chart that Skele-Code exported names every step's identifier: the
   * workflow comes back with the same ones when they are all there and
   * distinct. */
  {
    g_autoptr(GHashTable) given = g_hash_table_new (g_str_hash, g_str_equal);
    gboolean all_given = TRUE;

    for (guint i = 0; all_given && i < parser->nodes->len; i++)
      {
        MNode *node = g_ptr_array_index (parser->nodes, i);
        NodeConfig *config = &g_array_index (config_array, NodeConfig, i);
        const char *old_id = config->config != NULL ? sk_json_get_string (config->config, "id") : NULL;

        if (node->dropped)
          continue;
        all_given = config->skele != NULL && old_id != NULL && old_id[0] != '\0' &&
                    g_hash_table_add (given, (gpointer) old_id);
      }

    for (guint i = 0; all_given && i < parser->nodes->len; i++)
      {
        NodeConfig *config = &g_array_index (config_array, NodeConfig, i);

        if (g_ptr_array_index (node_ids, i) == NULL)
          continue;
        g_free (g_ptr_array_index (node_ids, i));
        g_ptr_array_index (node_ids, i) = g_strdup (sk_json_get_string (config->config, "id"));
      }
  }

  /* How the identifiers that an export's "skele" objects name become the
   * new ones: Mermaid ids first, then the "id" each entry gives, which
   * wins. */
  for (guint i = 0; i < parser->nodes->len; i++)
    {
      MNode *node = g_ptr_array_index (parser->nodes, i);

      if (!node->dropped)
        g_hash_table_insert (new_ids, g_strdup (node->mid), g_strdup (g_ptr_array_index (node_ids, i)));
    }
  for (guint i = 0; i < parser->nodes->len; i++)
    {
      NodeConfig *config = &g_array_index (config_array, NodeConfig, i);
      const char *old_id = sk_json_get_string (config->config, "id");

      if (old_id != NULL && config->skele != NULL)
        g_hash_table_insert (new_ids, g_strdup (old_id), g_strdup (g_ptr_array_index (node_ids, i)));
    }

  edges = select_edges (parser);

  g_ptr_array_set_size (incoming, parser->nodes->len);
  for (guint i = 0; i < edges->len; i++)
    {
      MEdge *edge = &g_array_index (edges, MEdge, i);
      GArray *list = g_ptr_array_index (incoming, edge->to);

      if (list == NULL)
        {
          list = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_index (incoming, edge->to) = list;
        }
      g_array_append_val (list, i);
    }

  for (guint i = 0; i < parser->nodes->len; i++)
    {
      NodeConfig *config = &g_array_index (config_array, NodeConfig, i);
      GArray *list = g_ptr_array_index (incoming, i);
      g_autoptr(SkNode) node = NULL;

      if (((MNode *) g_ptr_array_index (parser->nodes, i))->dropped)
        continue;

      g_ptr_array_set_size (priors, 0);
      for (guint j = 0; list != NULL && j < list->len; j++)
        {
          MEdge *edge = &g_array_index (edges, MEdge, g_array_index (list, guint, j));

          g_ptr_array_add (priors, g_ptr_array_index (node_ids, edge->from));
        }

      node = make_node (parser, i, g_ptr_array_index (node_ids, i), priors,
                        config->config != NULL ? config : NULL, new_ids);

      /* A decision's labels are conditions on its successors, unless the
       * successor carries its own control flow from an export. */
      for (guint j = 0; list != NULL && j < list->len && config->skele == NULL; j++)
        {
          MEdge *edge = &g_array_index (edges, MEdge, g_array_index (list, guint, j));
          NodeConfig *prior_config = &g_array_index (config_array, NodeConfig, edge->from);

          if (edge->label == NULL)
            continue;

          if (g_strcmp0 (sk_json_get_string (prior_config->config, "stepType"), "decision") == 0)
            {
              g_autofree char *condition = NULL;

              if (g_ascii_strcasecmp (edge->label, SK_CONTROL_FLOW_DEFAULT) == 0)
                condition = g_strdup (SK_CONTROL_FLOW_DEFAULT);
              else
                condition = translate_condition (edge->label);
              sk_node_set_condition (node, g_ptr_array_index (node_ids, edge->from), condition);
            }
          else if (prior_config->skele == NULL && !parser->noted_labels)
            {
              parser->noted_labels = TRUE;
              add_note (parser, _("Line %u: link labels such as “%s” were left out: only the labels on the links of a decision step become conditions."),
                        edge->line, edge->label);
            }
        }

      if (!sk_project_add_node (project, node, error))
        return NULL;
    }

  for (guint i = 0; i < config_array->len; i++)
    g_clear_pointer (&g_array_index (config_array, NodeConfig, i).config, json_object_unref);

  if (!sk_util_is_blank (sk_json_get_string (workflow, "name")))
    sk_project_set_name (project, sk_json_get_string (workflow, "name"));
  else
    sk_project_set_name (project, _("Imported flowchart"));
  if (sk_json_get_string (workflow, "description") != NULL)
    sk_project_set_description (project, sk_json_get_string (workflow, "description"));

  return g_steal_pointer (&project);
}

/**
 * sk_import_mermaid:
 * @text: a Mermaid flowchart
 * @length: the length of @text in bytes, or -1 if it ends with a nul
 * @notes: (nullable) (element-type utf8): where to add, as owned strings,
 *   what was left out or read differently than written
 * @error: return location for a #GError
 *
 * Reads a Mermaid flowchart as a new workflow without a folder: a step for
 * each node, in the order they first appear, numbered from "1", and a
 * prior for each link; see the top of this file for the comment block
 * that carries tasks, gates, for-each and conditions.
 *
 * Returns: (transfer full): the workflow, or %NULL with @error set to an
 *   #SkExportError when @text is no flowchart or has no node
 */
SkProject *
sk_import_mermaid (const char  *text,
                   gssize       length,
                   GPtrArray   *notes,
                   GError     **error)
{
  g_autofree char *copy = NULL;
  g_autofree char *valid = NULL;
  g_autoptr(GArray) line_starts = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr(GPtrArray) nodes = g_ptr_array_new_with_free_func (mnode_free);
  g_autoptr(GHashTable) by_mid = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GArray) edges = g_array_new (FALSE, FALSE, sizeof (MEdge));
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (mentry_free);
  g_autoptr(GHashTable) subgraphs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GArray) kept_notes = g_array_new (FALSE, FALSE, sizeof (Note));
  g_autoptr(GError) local_error = NULL;
  SkProject *project;
  Parser parser = { 0 };
  gsize zero = 0;

  g_return_val_if_fail (text != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (length < 0)
    length = strlen (text);

  /* A nul inside the text would end it early for the string functions
   * below, and the names must be UTF-8. */
  copy = g_malloc (length + 1);
  if (length > 0)
    memcpy (copy, text, length);
  copy[length] = '\0';
  for (gssize i = 0; i < length; i++)
    if (copy[i] == '\0')
      copy[i] = ' ';
  valid = g_utf8_make_valid (copy, length);

  g_array_append_val (line_starts, zero);
  for (const char *p = strchr (valid, '\n'); p != NULL; p = strchr (p + 1, '\n'))
    {
      gsize start = p + 1 - valid;

      g_array_append_val (line_starts, start);
    }

  g_array_set_clear_func (edges, medge_clear);
  g_array_set_clear_func (kept_notes, note_clear);

  parser.text = valid;
  parser.p = valid;
  parser.line_starts = line_starts;
  parser.nodes = nodes;
  parser.by_mid = by_mid;
  parser.edges = edges;
  parser.entries = entries;
  parser.subgraphs = subgraphs;
  parser.notes = notes;
  parser.kept_notes = kept_notes;

  /* The readers tell an error from text they skip by whether it is set,
   * so they always get somewhere to set it. */
  if (!parse_document (&parser, &local_error))
    {
      g_clear_pointer (&parser.entry, mentry_free);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  project = build_project (&parser, error);
  if (project != NULL)
    hand_over_notes (&parser);

  return project;
}
