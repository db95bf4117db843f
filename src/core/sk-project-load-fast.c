/* sk-project-load-fast.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-project"

#include "config.h"

#include <math.h>
#include <string.h>

#include "sk-json.h"
#include "sk-node-private.h"
#include "sk-project-private.h"

/* Reading a process.json in the form Skele-Code writes, straight into the
 * steps, without building a tree of JSON first: json-glib's parser alone
 * took longer for 10,000 steps than the whole reading may take. Whatever
 * is not in that form — the paper's spellings, values of the wrong type,
 * a member written twice, text that is not UTF-8, a lone surrogate, JSON
 * that json-glib reads but the standard does not allow, a problem of any
 * kind to report — makes this reader give up, and the lenient reading in
 * sk-project-io.c reads the file instead, so that both always give the same
 * workflow. Members this program does not know are built as JSON and kept,
 * as the lenient reading keeps them.
 */

typedef struct
{
  const char *p;
  const char *end;
  GString    *scratch;
  guint       depth;
} Reader;

/* Integers of more digits than this might not fit in 64 bits, where
 * json-glib's reading is not worth copying. */
#define MAX_INTEGER_DIGITS 18

static inline void
skip_space (Reader *r)
{
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
    r->p++;
}

static inline gboolean
take (Reader *r,
      char    c)
{
  skip_space (r);
  if (r->p < r->end && *r->p == c)
    {
      r->p++;
      return TRUE;
    }
  return FALSE;
}

static gboolean
read_hex4 (Reader  *r,
           guint   *value)
{
  guint v = 0;

  if (r->end - r->p < 4)
    return FALSE;

  for (guint i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value (r->p[i]);

      if (digit < 0)
        return FALSE;
      v = v * 16 + (guint) digit;
    }

  r->p += 4;
  *value = v;
  return TRUE;
}

/* Reads a string, its opening quote next, into r->scratch. */
static gboolean
read_string (Reader *r)
{
  const char *start;

  if (!take (r, '"'))
    return FALSE;

  g_string_truncate (r->scratch, 0);
  for (;;)
    {
      start = r->p;
      while (r->p < r->end && *r->p != '"' && *r->p != '\\' && (guchar) *r->p >= 0x20)
        r->p++;

      if (r->p >= r->end || (guchar) *r->p < 0x20)
        return FALSE;

      if (!g_utf8_validate_len (start, (gsize) (r->p - start), NULL))
        return FALSE;
      g_string_append_len (r->scratch, start, r->p - start);

      if (*r->p == '"')
        {
          r->p++;
          return TRUE;
        }

      /* An escape. */
      r->p++;
      if (r->p >= r->end)
        return FALSE;

      switch (*r->p++)
        {
        case '"': g_string_append_c (r->scratch, '"'); break;
        case '\\': g_string_append_c (r->scratch, '\\'); break;
        case '/': g_string_append_c (r->scratch, '/'); break;
        case 'b': g_string_append_c (r->scratch, '\b'); break;
        case 'f': g_string_append_c (r->scratch, '\f'); break;
        case 'n': g_string_append_c (r->scratch, '\n'); break;
        case 'r': g_string_append_c (r->scratch, '\r'); break;
        case 't': g_string_append_c (r->scratch, '\t'); break;
        case 'u':
          {
            guint code;
            guint low;

            if (!read_hex4 (r, &code) || code == 0 || (code >= 0xDC00 && code <= 0xDFFF))
              return FALSE;

            if (code >= 0xD800 && code <= 0xDBFF)
              {
                if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
                  return FALSE;
                r->p += 2;
                if (!read_hex4 (r, &low) || low < 0xDC00 || low > 0xDFFF)
                  return FALSE;
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
              }

            g_string_append_unichar (r->scratch, code);
          }
          break;
        default:
          return FALSE;
        }
    }
}

static char *
take_string (Reader *r)
{
  return read_string (r) ? g_strndup (r->scratch->str, r->scratch->len) : NULL;
}

/* Whether the string next is @name: for the names of members, which hold
 * no escape in the form Skele-Code writes. */
static gboolean
read_name (Reader      *r,
           const char **name,
           gsize       *length)
{
  if (!read_string (r) || memchr (r->scratch->str, '\0', r->scratch->len) != NULL)
    return FALSE;

  *name = r->scratch->str;
  *length = r->scratch->len;
  return take (r, ':');
}

/* A string value without a NUL inside, which json-glib would cut short. */
static char *
read_text (Reader *r)
{
  char *text = take_string (r);

  if (text != NULL && strlen (text) != r->scratch->len)
    g_clear_pointer (&text, g_free);

  return text;
}

static JsonNode *read_value (Reader *r);

static gboolean
read_number (Reader   *r,
             JsonNode *node)
{
  const char *start = r->p;
  gboolean is_double = FALSE;
  guint digits = 0;
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  char *end;

  if (r->p < r->end && *r->p == '-')
    r->p++;
  if (r->p >= r->end || !g_ascii_isdigit (*r->p))
    return FALSE;
  if (*r->p == '0' && r->p + 1 < r->end && g_ascii_isdigit (r->p[1]))
    return FALSE;
  while (r->p < r->end && g_ascii_isdigit (*r->p))
    {
      r->p++;
      digits++;
    }

  if (r->p < r->end && *r->p == '.')
    {
      is_double = TRUE;
      r->p++;
      if (r->p >= r->end || !g_ascii_isdigit (*r->p))
        return FALSE;
      while (r->p < r->end && g_ascii_isdigit (*r->p))
        r->p++;
    }

  if (r->p < r->end && (*r->p == 'e' || *r->p == 'E'))
    {
      is_double = TRUE;
      r->p++;
      if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
        r->p++;
      if (r->p >= r->end || !g_ascii_isdigit (*r->p))
        return FALSE;
      while (r->p < r->end && g_ascii_isdigit (*r->p))
        r->p++;
    }

  if ((gsize) (r->p - start) >= sizeof buffer || (!is_double && digits > MAX_INTEGER_DIGITS))
    return FALSE;

  memcpy (buffer, start, (gsize) (r->p - start));
  buffer[r->p - start] = '\0';

  if (is_double)
    {
      double value = g_ascii_strtod (buffer, &end);

      if (!isfinite (value))
        return FALSE;
      json_node_init_double (node, value);
    }
  else
    {
      json_node_init_int (node, g_ascii_strtoll (buffer, &end, 10));
    }

  return TRUE;
}

static gboolean
read_word (Reader     *r,
           const char *word)
{
  gsize length = strlen (word);

  if ((gsize) (r->end - r->p) < length || memcmp (r->p, word, length) != 0)
    return FALSE;

  r->p += length;
  return TRUE;
}

/* Reads the members of an object into @object, its opening brace read;
 * a member written twice gives up. */
static gboolean
read_object_members (Reader     *r,
                     JsonObject *object)
{
  if (take (r, '}'))
    return TRUE;

  do
    {
      g_autofree char *name = NULL;
      JsonNode *value;

      if ((name = read_text (r)) == NULL || !take (r, ':') || json_object_has_member (object, name))
        return FALSE;

      if ((value = read_value (r)) == NULL)
        return FALSE;
      json_object_set_member (object, name, value);
    }
  while (take (r, ','));

  return take (r, '}');
}

/* Reads any value as JSON, as json-glib builds it. */
static JsonNode *
read_value (Reader *r)
{
  g_autoptr(JsonNode) node = json_node_alloc ();

  skip_space (r);
  if (r->p >= r->end || r->depth >= SK_JSON_MAX_DEPTH)
    return NULL;

  switch (*r->p)
    {
    case '{':
      {
        JsonObject *object = json_object_new ();

        r->p++;
        r->depth++;
        json_node_init_object (node, object);
        json_object_unref (object);
        if (!read_object_members (r, object))
          return NULL;
        r->depth--;
      }
      break;

    case '[':
      {
        JsonArray *array = json_array_new ();

        r->p++;
        r->depth++;
        json_node_init_array (node, array);
        json_array_unref (array);
        if (!take (r, ']'))
          {
            do
              {
                JsonNode *element = read_value (r);

                if (element == NULL)
                  return NULL;
                json_array_add_element (array, element);
              }
            while (take (r, ','));

            if (!take (r, ']'))
              return NULL;
          }
        r->depth--;
      }
      break;

    case '"':
      {
        g_autofree char *text = take_string (r);

        if (text == NULL || strlen (text) != r->scratch->len)
          return NULL;
        json_node_init_string (node, text);
      }
      break;

    case 't':
      if (!read_word (r, "true"))
        return NULL;
      json_node_init_boolean (node, TRUE);
      break;

    case 'f':
      if (!read_word (r, "false"))
        return NULL;
      json_node_init_boolean (node, FALSE);
      break;

    case 'n':
      if (!read_word (r, "null"))
        return NULL;
      json_node_init_null (node);
      break;

    default:
      if (!read_number (r, node))
        return NULL;
      break;
    }

  return g_steal_pointer (&node);
}

/* The elements of a list of strings, its opening bracket read: strings,
 * integers and lists of them, flattened, as the lenient reading takes the
 * paper's [["1"], ["2"]] (@depth counts the lists around them). */
static gboolean
read_text_list_into (Reader    *r,
                     GPtrArray *list,
                     guint      depth)
{
  if (take (r, ']'))
    return TRUE;

  do
    {
      skip_space (r);
      if (r->p < r->end && *r->p == '"')
        {
          char *text = read_text (r);

          if (text == NULL)
            return FALSE;
          g_ptr_array_add (list, text);
        }
      else if (r->p < r->end && *r->p == '[')
        {
          r->p++;
          if (depth + 1 >= 4 || !read_text_list_into (r, list, depth + 1))
            return FALSE;
        }
      else
        {
          g_autoptr(JsonNode) number = json_node_alloc ();

          if (!read_number (r, number) || json_node_get_value_type (number) != G_TYPE_INT64)
            return FALSE;
          g_ptr_array_add (list, g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (number)));
        }
    }
  while (take (r, ','));

  return take (r, ']');
}

static GStrv
read_text_list (Reader *r)
{
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_free);

  if (!take (r, '[') || !read_text_list_into (r, list, 0))
    return NULL;

  g_ptr_array_add (list, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&list), FALSE);
}

static gboolean
read_boolean (Reader   *r,
              gboolean *value)
{
  skip_space (r);
  if (read_word (r, "true"))
    *value = TRUE;
  else if (read_word (r, "false"))
    *value = FALSE;
  else
    return FALSE;

  return TRUE;
}

#define IS(name, length, literal) \
  ((length) == sizeof (literal) - 1 && memcmp ((name), (literal), sizeof (literal) - 1) == 0)

/* Sets a member of *@object, made when it is the first, refusing one
 * written twice. */
static gboolean
keep_member (Reader      *r,
             JsonObject **object,
             const char  *name)
{
  g_autofree char *copy = g_strdup (name);
  JsonNode *value;

  if ((*object != NULL && json_object_has_member (*object, copy)) ||
      (value = read_value (r)) == NULL)
    return FALSE;

  if (*object == NULL)
    *object = json_object_new ();
  json_object_set_member (*object, copy, value);
  return TRUE;
}

/* "input" or "output": its text and files, and what else it holds. */
static gboolean
read_io (Reader      *r,
         char       **text,
         GStrv       *files,
         JsonObject **extra)
{
  gboolean seen_text = FALSE;
  gboolean seen_files = FALSE;

  if (!take (r, '{'))
    return FALSE;
  if (take (r, '}'))
    return TRUE;

  do
    {
      const char *name;
      gsize length;

      if (!read_name (r, &name, &length))
        return FALSE;

      if (IS (name, length, "text"))
        {
          if (seen_text || (*text = read_text (r)) == NULL)
            return FALSE;
          seen_text = TRUE;
        }
      else if (IS (name, length, "files"))
        {
          if (seen_files || (*files = read_text_list (r)) == NULL)
            return FALSE;
          seen_files = TRUE;
        }
      else if (!keep_member (r, extra, name))
        {
          return FALSE;
        }
    }
  while (take (r, ','));

  return take (r, '}');
}

/* An object, its opening brace next, into @object. */
static gboolean
read_object (Reader     *r,
             JsonObject *object)
{
  if (!take (r, '{'))
    return FALSE;

  r->depth++;
  if (!read_object_members (r, object))
    return FALSE;
  r->depth--;

  return TRUE;
}

/* The node's "skele" object: its place on the canvas, and the rest kept. */
static gboolean
read_skele (Reader *r,
            SkNode *node)
{
  g_autoptr(JsonObject) skele = json_object_new ();
  JsonNode *x = NULL;
  JsonNode *y = NULL;
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GList) members = NULL;

  if (!read_object (r, skele))
    return FALSE;

  /* The same checks as the lenient reading, which reports what fails. */
  _sk_node_check_skele (skele, problems);
  if (problems->len > 0)
    return FALSE;

  x = json_object_get_member (skele, "x");
  y = json_object_get_member (skele, "y");
  if ((x != NULL && json_node_get_value_type (x) != G_TYPE_INT64 &&
       json_node_get_value_type (x) != G_TYPE_DOUBLE) ||
      (y != NULL && json_node_get_value_type (y) != G_TYPE_INT64 &&
       json_node_get_value_type (y) != G_TYPE_DOUBLE))
    return FALSE;

  if (x != NULL && y != NULL)
    {
      node->x = json_node_get_double (x);
      node->y = json_node_get_double (y);
      node->has_position = TRUE;
    }

  members = json_object_get_members (skele);
  for (const GList *l = members; l != NULL; l = l->next)
    if (!g_str_equal (l->data, "x") && !g_str_equal (l->data, "y"))
      json_object_set_member (node->skele_extra, l->data,
                              json_node_ref (json_object_get_member (skele, l->data)));

  return TRUE;
}

static void
replace_string (char **field,
                char  *value)
{
  g_free (*field);
  *field = value;
}

static void
replace_strv (GStrv *field,
              GStrv  value)
{
  g_strfreev (*field);
  *field = value;
}

/* One node, its opening brace next; @node is new and seen by no one. */
static gboolean
read_node (Reader *r,
           SkNode *node)
{
  gboolean seen[7] = { FALSE, };

  if (!take (r, '{'))
    return FALSE;
  if (take (r, '}'))
    return FALSE;

  do
    {
      const char *name;
      gsize length;
      guint which;
      char *text = NULL;
      GStrv list = NULL;

      if (!read_name (r, &name, &length))
        return FALSE;

      if (IS (name, length, "name"))
        which = 0;
      else if (IS (name, length, "description"))
        which = 1;
      else if (IS (name, length, "priors"))
        which = 2;
      else if (IS (name, length, "run"))
        which = 3;
      else if (IS (name, length, "input"))
        which = 4;
      else if (IS (name, length, "output"))
        which = 5;
      else if (IS (name, length, "skele"))
        which = 6;
      else
        {
          if (!keep_member (r, &node->extra, name))
            return FALSE;
          continue;
        }

      if (seen[which])
        return FALSE;
      seen[which] = TRUE;

      switch (which)
        {
        case 0:
          if ((text = read_text (r)) == NULL)
            return FALSE;
          replace_string (&node->name, text);
          replace_string (&node->key, sk_node_key_from_name (text));
          break;
        case 1:
          if ((text = read_text (r)) == NULL)
            return FALSE;
          replace_string (&node->description, text);
          break;
        case 2:
          if ((list = read_text_list (r)) == NULL)
            return FALSE;
          replace_strv (&node->priors, list);
          break;
        case 3:
          {
            gboolean run;

            if (!read_boolean (r, &run))
              return FALSE;
            node->run = run;
          }
          break;
        case 4:
        case 5:
          {
            char *io_text = NULL;
            GStrv files = NULL;
            gboolean ok = read_io (r, &io_text, &files,
                                   which == 4 ? &node->input_extra : &node->output_extra);

            if (io_text != NULL)
              replace_string (which == 4 ? &node->input_text : &node->output_text, io_text);
            if (files != NULL)
              replace_strv (which == 4 ? &node->input_files : &node->output_files, files);
            if (!ok)
              return FALSE;
          }
          break;
        default:
          if (!read_skele (r, node))
            return FALSE;
          break;
        }
    }
  while (take (r, ','));

  /* A node without a name is a problem the lenient reading reports. */
  return seen[0] && take (r, '}');
}

static gboolean
read_nodes (Reader    *r,
            SkProject *self)
{
  if (!take (r, '{'))
    return FALSE;
  if (take (r, '}'))
    return TRUE;

  do
    {
      g_autofree char *id = NULL;
      g_autoptr(SkNode) node = NULL;

      if ((id = read_text (r)) == NULL || !take (r, ':') ||
          g_hash_table_contains (self->by_id, id))
        return FALSE;

      /* The identifier is given as g_object_new() would, without the cost of
       * setting a property by name. */
      node = g_object_new (SK_TYPE_NODE, NULL);
      node->id = g_steal_pointer (&id);
      if (!read_node (r, node))
        return FALSE;

      _sk_project_attach_node (self, self->nodes->len, node);
    }
  while (take (r, ','));

  return take (r, '}');
}

/* The workflow's own "skele" object. */
static gboolean
read_project_skele (Reader    *r,
                    SkProject *self)
{
  g_autoptr(JsonObject) skele = json_object_new ();
  g_autoptr(GList) members = NULL;

  if (!read_object (r, skele))
    return FALSE;

  members = json_object_get_members (skele);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *member = l->data;
      JsonNode *value = json_object_get_member (skele, member);

      if (g_str_equal (member, "python"))
        {
          if (json_node_get_value_type (value) != G_TYPE_STRING)
            return FALSE;
          if (json_node_get_string (value)[0] != '\0')
            {
              g_free (self->python);
              self->python = g_strdup (json_node_get_string (value));
              continue;
            }
        }

      if (g_str_equal (member, "network") && !JSON_NODE_HOLDS_NULL (value) &&
          json_node_get_value_type (value) != G_TYPE_BOOLEAN)
        return FALSE;

      json_object_set_member (self->skele_extra, member, json_node_ref (value));
    }

  return TRUE;
}

static gboolean
read_root (Reader    *r,
           SkProject *self)
{
  gboolean seen_name = FALSE;
  gboolean seen_description = FALSE;
  gboolean seen_nodes = FALSE;
  gboolean seen_skele = FALSE;

  if (!take (r, '{'))
    return FALSE;
  r->depth++;
  if (take (r, '}'))
    return FALSE;

  do
    {
      const char *name;
      gsize length;

      if (!read_name (r, &name, &length))
        return FALSE;

      if (IS (name, length, "process_name") || IS (name, length, "process_description"))
        {
          gboolean is_name = length == strlen ("process_name");
          gboolean *seen = is_name ? &seen_name : &seen_description;
          g_autofree char *text = NULL;

          if (*seen || (text = read_text (r)) == NULL)
            return FALSE;
          *seen = TRUE;
          if (is_name)
            sk_project_set_name (self, text);
          else
            sk_project_set_description (self, text);
        }
      else if (IS (name, length, "nodes"))
        {
          if (seen_nodes || !read_nodes (r, self))
            return FALSE;
          seen_nodes = TRUE;
        }
      else if (IS (name, length, "skele"))
        {
          if (seen_skele || !read_project_skele (r, self))
            return FALSE;
          seen_skele = TRUE;
        }
      else if (IS (name, length, "project name") || IS (name, length, "project description"))
        {
          /* The paper's spellings, which the lenient reading sorts out. */
          return FALSE;
        }
      else if (!keep_member (r, &self->extra, name))
        {
          return FALSE;
        }
    }
  while (take (r, ','));

  if (!take (r, '}'))
    return FALSE;

  /* The paper's first form, with the nodes beside the name, is read
   * leniently. */
  skip_space (r);
  return seen_nodes && r->p == r->end;
}

/*
 * _sk_project_load_canonical:
 * @data: the contents of a process.json file
 * @length: the length of @data in bytes
 * @folder: (nullable): the workflow's folder
 *
 * Reads @data when it is in the form Skele-Code writes, with nothing to
 * mend or report.
 *
 * Returns: (transfer full) (nullable): the workflow, or %NULL when the
 *   lenient reading must read @data
 */
SkProject *
_sk_project_load_canonical (const char *data,
                            gsize       length,
                            GFile      *folder)
{
  g_autoptr(SkProject) self = sk_project_new (folder);
  g_autoptr(GString) scratch = g_string_sized_new (256);
  Reader reader = { data, data + length, scratch, 0 };

  if (!read_root (&reader, self))
    return NULL;

  self->modified = FALSE;
  return g_steal_pointer (&self);
}

/**
 * sk_json_read_canonical:
 * @data: JSON text
 * @length: its length in bytes
 *
 * Reads @data into the tree json-glib's parser would build of it, as long
 * as it holds nothing this reader leaves to the parser (see above): the
 * small JSON files the runner reads for every step take less time so.
 *
 * Returns: (transfer full) (nullable): the root, or %NULL when json-glib's
 *   parser must read @data
 */
JsonNode *
sk_json_read_canonical (const char *data,
                        gsize       length)
{
  g_autoptr(GString) scratch = g_string_sized_new (256);
  Reader reader = { data, data + length, scratch, 0 };
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if ((root = read_value (&reader)) == NULL)
    return NULL;

  skip_space (&reader);
  if (reader.p != reader.end)
    return NULL;

  return g_steal_pointer (&root);
}
