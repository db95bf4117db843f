/* sk-json.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-json"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "sk-json.h"

/* json-glib's own getters warn when a member is missing or holds another
 * type, and our tests make warnings fatal. Files written by hand, by other
 * tools or by an older version are read through these instead. */

/**
 * sk_json_get_member:
 * @object: (nullable): a JSON object
 * @name: a member's name
 *
 * Returns: (transfer none) (nullable): the member called @name, which may
 *   hold a JSON null, or %NULL when there is none
 */
JsonNode *
sk_json_get_member (JsonObject *object,
                    const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  if (object == NULL)
    return NULL;

  return json_object_get_member (object, name);
}

static GType
value_type (JsonObject *object,
            const char *name)
{
  JsonNode *node = sk_json_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return G_TYPE_INVALID;

  return json_node_get_value_type (node);
}

/**
 * sk_json_get_string:
 * @object: (nullable): a JSON object
 * @name: a member's name
 *
 * Returns: (transfer none) (nullable): the text of the member @name, or
 *   %NULL when it is missing or not a string
 */
const char *
sk_json_get_string (JsonObject *object,
                    const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  if (value_type (object, name) != G_TYPE_STRING)
    return NULL;

  return json_object_get_string_member (object, name);
}

/**
 * sk_json_get_object:
 * @object: (nullable): a JSON object
 * @name: a member's name
 *
 * Returns: (transfer none) (nullable): the object held by the member @name,
 *   or %NULL when it is missing or not an object
 */
JsonObject *
sk_json_get_object (JsonObject *object,
                    const char *name)
{
  JsonNode *node;

  g_return_val_if_fail (name != NULL, NULL);

  node = sk_json_get_member (object, name);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;

  return json_node_get_object (node);
}

/**
 * sk_json_get_array:
 * @object: (nullable): a JSON object
 * @name: a member's name
 *
 * Returns: (transfer none) (nullable): the array held by the member @name,
 *   or %NULL when it is missing or not an array
 */
JsonArray *
sk_json_get_array (JsonObject *object,
                   const char *name)
{
  JsonNode *node;

  g_return_val_if_fail (name != NULL, NULL);

  node = sk_json_get_member (object, name);
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;

  return json_node_get_array (node);
}

/**
 * sk_json_get_boolean:
 * @object: (nullable): a JSON object
 * @name: a member's name
 * @value: (out) (optional): where to store the member's value
 *
 * Returns: %TRUE if the member @name holds `true` or `false`; otherwise
 *   @value is left untouched
 */
gboolean
sk_json_get_boolean (JsonObject *object,
                     const char *name,
                     gboolean   *value)
{
  g_return_val_if_fail (name != NULL, FALSE);

  if (value_type (object, name) != G_TYPE_BOOLEAN)
    return FALSE;

  if (value != NULL)
    *value = json_object_get_boolean_member (object, name);

  return TRUE;
}

/**
 * sk_json_get_int:
 * @object: (nullable): a JSON object
 * @name: a member's name
 * @value: (out) (optional): where to store the member's value
 *
 * Only a number written without a fraction or exponent counts: `3.0` reads
 * as absent, as a string does.
 *
 * Returns: %TRUE if the member @name holds an integer; otherwise @value is
 *   left untouched
 */
gboolean
sk_json_get_int (JsonObject *object,
                 const char *name,
                 gint64     *value)
{
  g_return_val_if_fail (name != NULL, FALSE);

  if (value_type (object, name) != G_TYPE_INT64)
    return FALSE;

  if (value != NULL)
    *value = json_object_get_int_member (object, name);

  return TRUE;
}

/**
 * sk_json_get_double:
 * @object: (nullable): a JSON object
 * @name: a member's name
 * @value: (out) (optional): where to store the member's value
 *
 * Returns: %TRUE if the member @name holds a number, with or without a
 *   fraction; otherwise @value is left untouched
 */
gboolean
sk_json_get_double (JsonObject *object,
                    const char *name,
                    double     *value)
{
  GType type;

  g_return_val_if_fail (name != NULL, FALSE);

  type = value_type (object, name);
  if (type != G_TYPE_DOUBLE && type != G_TYPE_INT64)
    return FALSE;

  /* json_node_get_double() converts an integer. */
  if (value != NULL)
    *value = json_node_get_double (json_object_get_member (object, name));

  return TRUE;
}

/**
 * sk_json_check_depth:
 * @data: JSON text
 * @length: the length of @data in bytes, or -1 if it ends with a NUL byte
 * @max_depth: how many arrays and objects may be nested in each other
 * @error: return location for a #GError
 *
 * Checks, without parsing, that @data does not nest arrays and objects more
 * than @max_depth levels deep. json-glib's parser recurses once a level, so
 * text from a file, a server or a model is checked with this first: deep
 * enough nesting would exhaust the stack and crash the program.
 *
 * Brackets and braces inside strings do not count. Nothing else about the
 * text is checked: malformed JSON passes if it is not nested too deeply, and
 * is left for the parser to refuse.
 *
 * Returns: %TRUE if @data is nested at most @max_depth levels deep;
 *   otherwise %FALSE with @error set in %G_IO_ERROR_INVALID_DATA
 */
gboolean
sk_json_check_depth (const char  *data,
                     gssize       length,
                     guint        max_depth,
                     GError     **error)
{
  gboolean in_string = FALSE;
  guint depth = 0;
  gsize size;

  g_return_val_if_fail (data != NULL || length == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  size = length < 0 ? strlen (data) : (gsize) length;

  for (gsize i = 0; i < size; i++)
    {
      char c = data[i];

      if (in_string)
        {
          /* An escape takes the next byte with it, so that \" neither
           * ends the string nor is taken for a quote. */
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }

      switch (c)
        {
        case '"':
          in_string = TRUE;
          break;

        case '[':
        case '{':
          if (++depth > max_depth)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("The data is nested more than %u levels deep"), max_depth);
              return FALSE;
            }
          break;

        case ']':
        case '}':
          /* Unbalanced closing brackets are the parser's to refuse. */
          if (depth > 0)
            depth--;
          break;

        default:
          break;
        }
    }

  return TRUE;
}

static gboolean
read_escape (const char *text,
             gsize       size,
             gsize       at,
             gunichar   *code)
{
  gunichar value = 0;

  /* A \uXXXX escape, with @at on its backslash. */
  if (at + 6 > size || text[at] != '\\' || text[at + 1] != 'u')
    return FALSE;

  for (guint i = 2; i < 6; i++)
    {
      int digit = g_ascii_xdigit_value (text[at + i]);

      if (digit < 0)
        return FALSE;
      value = value * 16 + (gunichar) digit;
    }

  *code = value;
  return TRUE;
}

/**
 * sk_json_replace_lone_surrogates:
 * @data: JSON text
 * @length: the length of @data in bytes, or -1 if it ends with a NUL byte
 * @new_length: (out) (optional): the length of the text returned
 * @count: (out) (optional): how many escapes were replaced
 *
 * Replaces each `\uD800` to `\uDFFF` escape in the strings of @data that
 * is not half of a surrogate pair by `\uFFFD`, the replacement character,
 * and so each `\u` that is not followed by four hexadecimal digits, whose
 * bytes after it are then kept as text.
 *
 * Such an escape stands for no character. json-glib turns it into bytes
 * that are not UTF-8, which a parser that checks its input, json-glib's
 * own included, then refuses: text written back from it could not be read.
 *
 * Returns: (transfer full) (nullable): the repaired text, or %NULL when
 *   @data has no lone surrogate
 */
char *
sk_json_replace_lone_surrogates (const char *data,
                                 gssize      length,
                                 gsize      *new_length,
                                 guint      *count)
{
  GString *text = NULL;
  gboolean in_string = FALSE;
  gsize size;
  gsize copied = 0;
  guint replaced = 0;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  size = length < 0 ? strlen (data) : (gsize) length;

  for (gsize i = 0; i < size; i++)
    {
      gunichar code, low;

      if (data[i] == '"')
        {
          in_string = !in_string;
          continue;
        }

      if (!in_string || data[i] != '\\')
        continue;

      if (!read_escape (data, size, i, &code))
        {
          /* json-glib reads any four bytes after "\u" as the digits, and
           * makes bytes that are not UTF-8 of those that are not; such an
           * escape stands for no character either. One cut short by the
           * end of the text is the parser's to refuse. */
          if (i + 6 <= size && data[i + 1] == 'u')
            {
              if (text == NULL)
                text = g_string_sized_new (size);
              g_string_append_len (text, data + copied, i - copied);
              g_string_append (text, "\\ufffd");
              copied = i + 2;
              replaced++;
            }

          /* Any other escape: skip what it escapes. */
          i++;
          continue;
        }

      if (code >= 0xD800 && code <= 0xDBFF &&
          read_escape (data, size, i + 6, &low) && low >= 0xDC00 && low <= 0xDFFF)
        {
          i += 11;
          continue;
        }

      if (code < 0xD800 || code > 0xDFFF)
        {
          i += 5;
          continue;
        }

      if (text == NULL)
        text = g_string_sized_new (size);
      g_string_append_len (text, data + copied, i - copied);
      g_string_append (text, "\\ufffd");
      copied = i + 6;
      replaced++;
      i += 5;
    }

  if (count != NULL)
    *count = replaced;

  if (text == NULL)
    {
      if (new_length != NULL)
        *new_length = size;
      return NULL;
    }

  g_string_append_len (text, data + copied, size - copied);
  if (new_length != NULL)
    *new_length = text->len;

  return g_string_free (text, FALSE);
}

/* JSON files the program reads back are its own bookkeeping; one larger
 * than this was not written by it. */
#define MAX_READ_SIZE (64 * 1024 * 1024)

/* Reads @path without following a link in its place and only when it is a
 * regular file of a sane size, so that a planted link or a FIFO can neither
 * leak another file nor block the reader. */
static char *
read_regular_file (const char  *path,
                   gsize       *length,
                   GError     **error)
{
  g_autofree char *data = NULL;
  struct stat st;
  gsize done = 0;
  int saved_errno;
  int fd;

  fd = g_open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    {
      saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Could not read %s: %s"), path, g_strerror (saved_errno));
      return NULL;
    }

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > MAX_READ_SIZE)
    {
      close (fd);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("Could not read %s: it is not a regular file of at most 64 MiB"), path);
      return NULL;
    }

  data = g_malloc (st.st_size + 1);
  while (done < (gsize) st.st_size)
    {
      gssize n = read (fd, data + done, st.st_size - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          saved_errno = errno;
          close (fd);
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                       _("Could not read %s: %s"), path, g_strerror (saved_errno));
          return NULL;
        }
      if (n == 0)
        break;
      done += n;
    }
  close (fd);

  data[done] = '\0';
  *length = done;
  return g_steal_pointer (&data);
}

/**
 * sk_json_read_object:
 * @path: the path of a JSON file
 * @error: return location for a #GError
 *
 * Reads a file that holds one JSON object. The error is in
 * %G_FILE_ERROR when the file cannot be read, in %G_IO_ERROR when it is
 * nested more than %SK_JSON_MAX_DEPTH levels deep and in %JSON_PARSER_ERROR
 * when it is not JSON or holds something other than an object.
 *
 * Returns: (transfer full): the object, or %NULL with @error set
 */
JsonObject *
sk_json_read_object (const char  *path,
                     GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(JsonNode) fast = NULL;
  g_autofree char *data = NULL;
  gsize length = 0;
  JsonNode *root;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((data = read_regular_file (path, &length, error)) == NULL)
    return NULL;

  if ((fast = sk_json_read_canonical (data, length)) != NULL)
    {
      root = fast;
    }
  else
    {
      if (!sk_json_check_depth (data, length, SK_JSON_MAX_DEPTH, error))
        return NULL;

      parser = json_parser_new_immutable ();
      if (!json_parser_load_from_data (parser, data, length, error))
        return NULL;

      root = json_parser_get_root (parser);
    }
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_autofree char *display = g_filename_display_name (path);

      g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                   _("“%s” does not hold a JSON object"), display);
      return NULL;
    }

  return json_object_ref (json_node_get_object (root));
}

/**
 * sk_json_to_data:
 * @root: a JSON node
 * @pretty: whether to indent the text by two spaces a level, one member a line
 * @length: (out) (optional): the length of the text
 *
 * Returns: (transfer full): @root as JSON text, without a final newline
 */
char *
sk_json_to_data (JsonNode *root,
                 gboolean  pretty,
                 gsize    *length)
{
  g_autoptr(JsonGenerator) generator = NULL;
  GString *text;
  gboolean in_string = FALSE;
  gsize data_length = 0;
  char *data;

  g_return_val_if_fail (root != NULL, NULL);

  generator = json_generator_new ();
  json_generator_set_pretty (generator, pretty);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, root);
  data = json_generator_to_data (generator, &data_length);

  /* json-glib 1.6 writes a double with an exponent as "1e+30.0", and one
   * that is not finite (from "1e999") as "inf.0" or "nan.0": neither can be
   * read back. The exponent's ".0" is dropped and the others become null,
   * outside strings only. */
  text = g_string_new_len (data, data_length);
  g_free (data);
  for (gsize i = 0; i < text->len; i++)
    {
      char c = text->str[i];
      gsize end = i;
      const char *word;
      gsize word_length;

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        {
          in_string = TRUE;
          continue;
        }
      if (!g_ascii_isalnum (c) && c != '-' && c != '+' && c != '.')
        continue;

      while (end < text->len &&
             (g_ascii_isalnum (text->str[end]) || strchr ("-+.", text->str[end]) != NULL))
        end++;

      word = text->str + i + (c == '-' ? 1 : 0);
      word_length = end - i - (c == '-' ? 1 : 0);
      if (word_length > 2 && memchr (word, 'e', word_length) != NULL &&
          g_ascii_isdigit (word[0]) &&
          word[word_length - 2] == '.' && word[word_length - 1] == '0')
        {
          g_string_erase (text, end - 2, 2);
          end -= 2;
        }
      else if (word_length >= 3 &&
               (strncmp (word, "inf", 3) == 0 || strncmp (word, "nan", 3) == 0))
        {
          g_string_erase (text, i, end - i);
          g_string_insert (text, i, "null");
          end = i + 4;
        }
      i = end - 1;
    }

  if (length != NULL)
    *length = text->len;

  return g_string_free (text, FALSE);
}

/* Indentation for sk_json_append_pretty(): two spaces a level. */
static void
append_indent (GString *out,
               guint    level)
{
  static const char spaces[] = "                                                                ";

  for (guint n = level * 2; n > 0;)
    {
      guint chunk = MIN (n, sizeof spaces - 1);

      g_string_append_len (out, spaces, chunk);
      n -= chunk;
    }
}

/**
 * sk_json_append_string:
 * @out: the text to add to
 * @text: a UTF-8 string
 *
 * Appends @text in quotes, escaped exactly as json-glib 1.6's generator
 * escapes it, so that sk_json_append_pretty() writes what
 * sk_json_to_data() writes.
 */
void
sk_json_append_string (GString    *out,
                       const char *text)
{
  const char *run = text;

  g_string_append_c (out, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      char c = *p;

      /* json-glib leaves U+001F as it is; so must this. */
      if (c != '\\' && c != '"' && !(c > 0 && c < 0x1f) && c != 0x7f)
        continue;

      g_string_append_len (out, run, p - run);
      run = p + 1;
      switch (c)
        {
        case '\\': g_string_append (out, "\\\\"); break;
        case '"': g_string_append (out, "\\\""); break;
        case '\b': g_string_append (out, "\\b"); break;
        case '\f': g_string_append (out, "\\f"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default: g_string_append_printf (out, "\\u00%02x", (guint) c); break;
        }
    }
  g_string_append (out, run);
  g_string_append_c (out, '"');
}

/**
 * sk_json_append_member:
 * @out: the text to add to
 * @level: how deep the member lies
 * @first: (inout): whether no member of its object was written yet
 * @name: the member's name
 *
 * Begins a member of an object that sk_json_append_pretty() writes, up to
 * its value; sk_json_append_object_end() ends the object.
 */
void
sk_json_append_member (GString    *out,
                       guint       level,
                       gboolean   *first,
                       const char *name)
{
  g_string_append (out, *first ? "\n" : ",\n");
  *first = FALSE;
  append_indent (out, level);
  sk_json_append_string (out, name);
  g_string_append (out, " : ");
}

/**
 * sk_json_append_object_end:
 * @out: the text to add to
 * @level: how deep the object lies
 * @first: whether it had no member
 */
void
sk_json_append_object_end (GString  *out,
                           guint     level,
                           gboolean  first)
{
  if (!first)
    g_string_append_c (out, '\n');
  append_indent (out, level);
  g_string_append_c (out, '}');
}

/**
 * sk_json_append_members:
 * @out: the text to add to
 * @level: how deep the members lie
 * @first: (inout): whether no member of their object was written yet
 * @object: (nullable): the members to write, in their order
 */
void
sk_json_append_members (GString    *out,
                        guint       level,
                        gboolean   *first,
                        JsonObject *object)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  if (object == NULL)
    return;

  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      sk_json_append_member (out, level, first, name);
      sk_json_append_pretty (out, member, level);
    }
}

/**
 * sk_json_append_strv:
 * @out: the text to add to
 * @level: how deep the list lies
 * @strv: the strings
 */
void
sk_json_append_strv (GString            *out,
                     guint               level,
                     const char * const *strv)
{
  g_string_append_c (out, '[');
  for (guint i = 0; strv[i] != NULL; i++)
    {
      g_string_append (out, i == 0 ? "\n" : ",\n");
      append_indent (out, level + 1);
      sk_json_append_string (out, strv[i]);
    }
  if (strv[0] != NULL)
    {
      g_string_append_c (out, '\n');
      append_indent (out, level);
    }
  g_string_append_c (out, ']');
}

void
sk_json_append_double (GString *out,
                       double   value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  /* What sk_json_to_data() makes of json-glib's "inf.0", "1e+30.0" and
   * "300": null, "1e+30" and "300.0". */
  if (!isfinite (value))
    {
      g_string_append (out, "null");
      return;
    }

  g_ascii_dtostr (buffer, sizeof buffer, value);
  g_string_append (out, buffer);
  if (strchr (buffer, '.') == NULL && strchr (buffer, 'e') == NULL)
    g_string_append (out, ".0");
}

/**
 * sk_json_append_pretty:
 * @out: the text to add to
 * @node: a JSON node
 * @level: how deep @node lies, for its indentation
 *
 * Appends @node as sk_json_to_data() writes it, indented, without building
 * the text of each member apart as json-glib's generator does: the same
 * bytes, at a fraction of the cost, for writing large workflows.
 */
void
sk_json_append_pretty (GString  *out,
                       JsonNode *node,
                       guint     level)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        gboolean first = TRUE;

        g_string_append_c (out, '{');
        sk_json_append_members (out, level + 1, &first, json_node_get_object (node));
        sk_json_append_object_end (out, level, first);
      }
      break;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint length = json_array_get_length (array);

        g_string_append_c (out, '[');
        for (guint i = 0; i < length; i++)
          {
            g_string_append (out, i == 0 ? "\n" : ",\n");
            append_indent (out, level + 1);
            sk_json_append_pretty (out, json_array_get_element (array, i), level + 1);
          }
        if (length > 0)
          {
            g_string_append_c (out, '\n');
            append_indent (out, level);
          }
        g_string_append_c (out, ']');
      }
      break;

    case JSON_NODE_NULL:
      g_string_append (out, "null");
      break;

    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          sk_json_append_double (out, json_node_get_double (node));
          break;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;
        case G_TYPE_STRING:
          sk_json_append_string (out, json_node_get_string (node));
          break;
        default:
          g_string_append (out, "null");
          break;
        }
      break;

    default:
      break;
    }
}

/**
 * sk_json_write_atomic:
 * @path: the path of the file to write
 * @root: a JSON node
 * @durable: whether to flush the text to disk before it replaces @path
 * @error: return location for a #GError
 *
 * Writes @root as indented JSON text ending in a newline. The text goes to
 * a temporary file that is renamed over @path, so an interrupted write
 * leaves the previous file as it was. The workflow itself is written
 * @durable; bookkeeping that a crash may lose without harm is not, since
 * flushing would make every step of a run wait for the disk. The file's
 * mode is 0644.
 *
 * Text that is not valid UTF-8 is not written: the error is then
 * %G_IO_ERROR_INVALID_DATA and @path is left as it was.
 *
 * Returns: %TRUE if the file was written
 */
gboolean
sk_json_write_atomic (const char  *path,
                      JsonNode    *root,
                      gboolean     durable,
                      GError     **error)
{
  g_autofree char *data = NULL;
  g_autofree char *text = NULL;
  g_autofree char *temporary = NULL;
  int fd;
  gsize length = 0;
  int saved_errno;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (root != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  data = sk_json_to_data (root, TRUE, &length);

  /* A file that is not UTF-8 cannot be read again, by us or anyone, so
   * the previous file is better kept. */
  if (!g_utf8_validate_len (data, length, NULL))
    {
      g_autofree char *display = g_filename_display_name (path);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” was not written: its text is not valid UTF-8, so it could not "
                     "be read back"), display);
      return FALSE;
    }

  text = g_realloc (g_steal_pointer (&data), length + 2);
  text[length++] = '\n';
  text[length] = '\0';

  if (durable)
    return g_file_set_contents_full (path, text, length,
                                     G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                     0644, error);

  /* GLib flushes a consistent write over an existing file; renaming a file
   * written without flags keeps it whole without waiting for the disk. The
   * temporary is made new (mkstemp's O_EXCL), so a link planted in its place
   * is never followed. */
  temporary = g_strconcat (path, ".XXXXXX", NULL);
  fd = g_mkstemp_full (temporary, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Could not write %s: %s"), path, g_strerror (saved_errno));
      return FALSE;
    }

  for (gsize done = 0; done < length; )
    {
      gssize n = write (fd, text + done, length - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          saved_errno = n < 0 ? errno : ENOSPC;
          close (fd);
          g_unlink (temporary);
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                       _("Could not write %s: %s"), path, g_strerror (saved_errno));
          return FALSE;
        }
      done += n;
    }

  if (close (fd) != 0 || g_rename (temporary, path) != 0)
    {
      saved_errno = errno;
      g_unlink (temporary);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Could not replace %s: %s"), path, g_strerror (saved_errno));
      return FALSE;
    }

  return TRUE;
}

static gboolean
node_is_valid_utf8 (JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *member;
        JsonNode *value;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, &member, &value))
          if (!g_utf8_validate (member, -1, NULL) || !node_is_valid_utf8 (value))
            return FALSE;
        return TRUE;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        for (guint i = 0; i < json_array_get_length (array); i++)
          if (!node_is_valid_utf8 (json_array_get_element (array, i)))
            return FALSE;
        return TRUE;
      }

    case JSON_NODE_VALUE:
      return json_node_get_value_type (node) != G_TYPE_STRING ||
             g_utf8_validate (json_node_get_string (node), -1, NULL);

    case JSON_NODE_NULL:
    default:
      return TRUE;
    }
}

static char *
make_valid_counted (const char *text,
                    guint      *count)
{
  if (g_utf8_validate (text, -1, NULL))
    return g_strdup (text);

  (*count)++;
  return g_utf8_make_valid (text, -1);
}

static JsonNode *
node_repair_utf8 (JsonNode *node,
                  guint    *count)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        g_autoptr(JsonObject) object = json_object_new ();
        JsonObjectIter iter;
        const char *member;
        JsonNode *value;

        json_object_iter_init_ordered (&iter, json_node_get_object (node));
        while (json_object_iter_next_ordered (&iter, &member, &value))
          {
            g_autofree char *name = make_valid_counted (member, count);

            json_object_set_member (object, name, node_repair_utf8 (value, count));
          }
        return json_node_init_object (json_node_alloc (), object);
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *source = json_node_get_array (node);
        g_autoptr(JsonArray) array = json_array_sized_new (json_array_get_length (source));

        for (guint i = 0; i < json_array_get_length (source); i++)
          json_array_add_element (array, node_repair_utf8 (json_array_get_element (source, i), count));
        return json_node_init_array (json_node_alloc (), array);
      }

    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING)
        {
          g_autofree char *text = make_valid_counted (json_node_get_string (node), count);

          return json_node_init_string (json_node_alloc (), text);
        }
      return json_node_copy (node);

    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
}

/**
 * sk_json_repair_utf8:
 * @root: a parsed JSON tree, at most %SK_JSON_MAX_DEPTH levels deep
 * @count: (out) (optional): how many strings and member names were
 *   repaired
 *
 * json-glib lets bytes that are not UTF-8 into its strings, for escapes
 * that stand for no character and for input its scanner reads otherwise
 * than the JSON grammar does; written back, they would make a file that no
 * parser reads. Each such string or member name is made valid, with the
 * replacement character for each bad byte.
 *
 * Returns: (transfer full) (nullable): a repaired copy of @root, or %NULL
 *   when every string of @root is valid UTF-8
 */
JsonNode *
sk_json_repair_utf8 (JsonNode *root,
                     guint    *count)
{
  guint repaired = 0;
  JsonNode *copy;

  g_return_val_if_fail (root != NULL, NULL);

  if (count != NULL)
    *count = 0;

  if (node_is_valid_utf8 (root))
    return NULL;

  copy = node_repair_utf8 (root, &repaired);
  if (count != NULL)
    *count = repaired;

  return copy;
}
