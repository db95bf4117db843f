/* sk-project-io.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-project"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "sk-json.h"
#include "sk-node-private.h"
#include "sk-project-private.h"

/* Reading a process.json leniently, in the paper's spellings as well as
 * ours, and writing it back canonically, keeping what this program does
 * not know. */

static const char * const known_members[] = {
  "process_name", "process_description", "project name", "project description",
  "nodes", "skele", NULL
};

/* json-glib keeps the last of two members with the same name. A workflow
 * with two nodes under one identifier would silently lose one, so duplicates
 * are noticed while parsing, when the object's size stops growing.
 * The object replaced by a duplicate is freed, and a later object may get its
 * address, so counts are dropped when an object ends and duplicates hold a
 * reference to their object.
 */
typedef struct
{
  GHashTable *counts;
  GPtrArray  *duplicates;
} ParseState;

typedef struct
{
  JsonObject *object;
  char       *member;
} Duplicate;

static void
duplicate_free (gpointer data)
{
  Duplicate *duplicate = data;

  g_clear_pointer (&duplicate->object, json_object_unref);
  g_free (duplicate->member);
  g_free (duplicate);
}

static void
object_member_cb (JsonParser  *parser,
                  JsonObject  *object,
                  const char  *member_name,
                  ParseState  *state)
{
  guint count = GPOINTER_TO_UINT (g_hash_table_lookup (state->counts, object)) + 1;
  guint size = json_object_get_size (object);

  if (size < count)
    {
      Duplicate *duplicate = g_new0 (Duplicate, 1);

      duplicate->object = json_object_ref (object);
      duplicate->member = g_strdup (member_name);
      g_ptr_array_add (state->duplicates, duplicate);
      count = size;
    }

  g_hash_table_insert (state->counts, object, GUINT_TO_POINTER (count));
}

static void
object_end_cb (JsonParser *parser,
               JsonObject *object,
               ParseState *state)
{
  g_hash_table_remove (state->counts, object);
}

static gboolean
looks_like_node (JsonNode *node)
{
  JsonObject *object;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;

  object = json_node_get_object (node);
  return json_object_has_member (object, "name") ||
         json_object_has_member (object, "priors") ||
         json_object_has_member (object, "input");
}

/* json-glib speaks of tokens and constants; a reader of the message needs
 * to know what to look for in the file. What is not recognised is kept. */
static char *
plain_parse_error (const char *text)
{
  static const char expected_prefix[] = ", expected character `";
  g_autoptr(GString) plain = g_string_new (text);
  const char *expected = strstr (text, expected_prefix);
  gsize length = strlen (expected_prefix);

  /* ", expected character `,'" → ", a “,” is missing here" */
  if (expected != NULL && expected[length] != '\0' && expected[length + 1] == '\'')
    {
      g_autofree char *from = g_strndup (expected, length + 2);
      g_autofree char *to = g_strdup_printf (_(", a “%c” is missing here"), expected[length]);

      g_string_replace (plain, from, to, 1);
    }

  g_string_replace (plain, "unexpected string constant", _("unexpected text in quotes"), 0);
  g_string_replace (plain, "expected string constant", _("a name in quotes was expected"), 0);
  g_string_replace (plain, "unexpected end of file", _("the file ends too early"), 0);
  g_string_replace (plain, "unexpected identifier", _("unexpected word"), 0);
  g_string_replace (plain, "expected value", _("a value was expected"), 0);

  /* The scanner quotes as `x'; a reader expects “x”. */
  for (gsize i = 0; i + 2 < plain->len; i++)
    if (plain->str[i] == '`' && plain->str[i + 2] == '\'')
      {
        char quoted[2] = { plain->str[i + 1], '\0' };

        g_string_erase (plain, i, 3);
        g_string_insert (plain, i, "“”");
        g_string_insert (plain, i + strlen ("“"), quoted);
        i += strlen ("“”");
      }

  return g_string_free (g_steal_pointer (&plain), FALSE);
}

static char *
describe_parse_error (const GError *error)
{
  const char *message = error->message;
  g_autofree char *plain = NULL;
  const char *rest;
  guint64 line, column;
  char *end;

  /* json-glib writes "<data>:LINE:COLUMN: Parse error: TEXT". */
  rest = strchr (message, ':');
  if (rest == NULL)
    return g_strdup (message);

  line = g_ascii_strtoull (rest + 1, &end, 10);
  if (end == rest + 1 || *end != ':')
    return g_strdup (message);

  rest = end;
  column = g_ascii_strtoull (rest + 1, &end, 10);
  if (end == rest + 1 || *end != ':')
    return g_strdup (message);

  rest = end + 1;
  while (*rest == ' ')
    rest++;
  if (g_str_has_prefix (rest, "Parse error: "))
    rest += strlen ("Parse error: ");

  plain = plain_parse_error (rest);
  return g_strdup_printf (_("line %u, column %u: %s"), (guint) line, (guint) column, plain);
}

/* Reads the text of @member, or of @old_member when there is no @member;
 * anything but text reads as empty.
 */
static const char *
read_text_member (JsonObject *object,
                  const char *member,
                  const char *old_member)
{
  const char *text;

  if (sk_json_get_member (object, member) == NULL && old_member != NULL)
    member = old_member;

  text = sk_json_get_string (object, member);
  return text != NULL ? text : "";
}

/* Reads the process's name, description and "skele" settings, and keeps the
 * members this program does not know.
 */
static void
read_header (SkProject  *self,
             JsonObject *root,
             gboolean    nodes_beside)
{
  g_autoptr(GList) members = NULL;
  JsonNode *skele_node;
  JsonObject *skele;
  gboolean network;

  sk_project_set_name (self, read_text_member (root, "process_name", "project name"));
  sk_project_set_description (self, read_text_member (root, "process_description",
                                                      "project description"));

  members = json_object_get_members (root);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *member = l->data;
      JsonNode *value = json_object_get_member (root, member);

      if (g_strv_contains (known_members, member))
        continue;

      /* The paper's first format put the nodes beside the process's name. */
      if (nodes_beside && looks_like_node (value))
        continue;

      json_object_set_member (self->extra, member, json_node_copy (value));
    }

  skele_node = sk_json_get_member (root, "skele");
  skele = sk_json_get_object (root, "skele");
  if (skele != NULL)
    {
      g_autoptr(GList) skele_members = json_object_get_members (skele);

      for (const GList *l = skele_members; l != NULL; l = l->next)
        {
          const char *member = l->data;

          if (g_str_equal (member, "python"))
            {
              const char *python = read_text_member (skele, "python", NULL);

              g_free (self->python);
              self->python = python[0] != '\0' ? g_strdup (python) : NULL;
              if (self->python != NULL)
                continue;
            }

          if (g_str_equal (member, "network") &&
              !sk_json_get_boolean (skele, "network", &network) &&
              !JSON_NODE_HOLDS_NULL (json_object_get_member (skele, member)))
            _sk_project_add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE, NULL,
                                     _("“skele.network” of the workflow must be true or false"));

          json_object_set_member (self->skele_extra, member,
                                  json_node_copy (json_object_get_member (skele, member)));
        }
    }
  else if (skele_node != NULL)
    {
      _sk_project_add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE, NULL,
                               _("“skele” must be an object"));
      json_object_set_member (self->extra, "skele", json_node_copy (skele_node));
    }
}

/* Reads the nodes of @source: the "nodes" object, or the root object when
 * there is none (@in_root). In the root, only members that look like nodes
 * are read as nodes.
 */
static void
read_nodes (SkProject  *self,
            JsonObject *source,
            gboolean    in_root)
{
  g_autoptr(GList) ids = json_object_get_members (source);

  for (const GList *l = ids; l != NULL; l = l->next)
    {
      const char *id = l->data;
      JsonNode *value = json_object_get_member (source, id);
      g_autoptr(GPtrArray) messages = NULL;
      g_autoptr(SkNode) node = NULL;

      if (in_root && (g_strv_contains (known_members, id) || !looks_like_node (value)))
        continue;

      if (!JSON_NODE_HOLDS_OBJECT (value))
        {
          _sk_project_add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE, id,
                                   _("Node %s is not an object, so it cannot be read."), id);
          json_object_set_member (self->invalid_nodes, id, json_node_copy (value));
          continue;
        }

      messages = g_ptr_array_new_with_free_func (g_free);
      node = g_object_new (SK_TYPE_NODE, "id", id, NULL);
      _sk_node_load_json (node, json_node_get_object (value), messages);

      for (guint i = 0; i < messages->len; i++)
        {
          g_autofree char *who = _sk_project_describe_node (node);

          _sk_project_add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE, id,
                                   /* Translators: the first %s names a node, the second is
                                    * the problem. */
                                   _("In %s, %s."), who, (char *) g_ptr_array_index (messages, i));
        }

      _sk_project_attach_node (self, self->nodes->len, node);
    }
}

/* Reports the members the parser saw twice: in @source they are nodes, in
 * @root the process's own members, anywhere else members of a node.
 */
static void
report_duplicates (SkProject  *self,
                   JsonObject *root,
                   JsonObject *source,
                   gboolean    in_root,
                   ParseState *state)
{
  for (guint i = 0; i < state->duplicates->len; i++)
    {
      Duplicate *duplicate = g_ptr_array_index (state->duplicates, i);

      if (duplicate->object == source &&
          !(in_root && g_strv_contains (known_members, duplicate->member)))
        {
          _sk_project_add_problem (self->load_problems, SK_PROBLEM_DUPLICATE_ID, FALSE,
                                   duplicate->member,
                                   _("Two nodes have the identifier “%s”; only the last one "
                                     "was read. Give each node its own identifier."),
                                   duplicate->member);
        }
      else if (duplicate->object == root)
        {
          _sk_project_add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE, NULL,
                                   _("“%s” appears twice; only the last one was read."),
                                   duplicate->member);
        }
      else
        {
          for (guint j = 0; j < self->nodes->len; j++)
            {
              SkNode *node = g_ptr_array_index (self->nodes, j);
              JsonNode *value = json_object_get_member (source, sk_node_get_id (node));

              if (value != NULL && json_node_get_object (value) == duplicate->object)
                {
                  g_autofree char *who = _sk_project_describe_node (node);

                  _sk_project_add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE,
                                           sk_node_get_id (node),
                                           _("In %s, “%s” appears twice; only the last one "
                                             "was read."),
                                           who, duplicate->member);
                  break;
                }
            }
        }
    }
}

static void
apply_root (SkProject   *self,
            JsonObject  *root,
            ParseState  *state)
{
  JsonNode *nodes_node = sk_json_get_member (root, "nodes");
  JsonObject *nodes_object = sk_json_get_object (root, "nodes");
  gboolean nodes_beside = nodes_node == NULL;

  if (nodes_node != NULL && nodes_object == NULL)
    _sk_project_add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE, NULL,
                             _("“nodes” must be an object that maps identifiers to nodes"));

  read_header (self, root, nodes_beside);
  read_nodes (self, nodes_object != NULL ? nodes_object : root, nodes_object == NULL);

  if (state != NULL)
    report_duplicates (self, root, nodes_object != NULL ? nodes_object : root,
                       nodes_object == NULL, state);
}

/* The replacement character, U+FFFD, in UTF-8. */
#define REPLACEMENT_CHARACTER "\xef\xbf\xbd"

/* Tests a string or a member's name. */
typedef gboolean (*TextTest) (const char *text);

static gboolean
text_is_invalid (const char *text)
{
  return !g_utf8_validate (text, -1, NULL);
}

static gboolean
text_is_replaced (const char *text)
{
  return strstr (text, REPLACEMENT_CHARACTER) != NULL;
}

/* Whether @test holds for a string or a member's name within @node. */
static gboolean
node_has_text (JsonNode *node,
               TextTest  test)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *member;
      JsonNode *value;

      json_object_iter_init_ordered (&iter, json_node_get_object (node));
      while (json_object_iter_next_ordered (&iter, &member, &value))
        if (test (member) || node_has_text (value, test))
          return TRUE;
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        if (node_has_text (json_array_get_element (array, i), test))
          return TRUE;
    }
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      return test (json_node_get_string (node));
    }

  return FALSE;
}

/* Returns the first member of @object, itself or within its value, for which
 * @test holds, or %NULL.
 */
static const char *
find_member_with_text (JsonObject *object,
                       TextTest    test)
{
  JsonObjectIter iter;
  const char *member;
  JsonNode *value;

  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &member, &value))
    if (test (member) || node_has_text (value, test))
      return member;

  return NULL;
}

/* sk_project_load_from_data() replaced lone surrogates by U+FFFD: tells
 * where. The file may have held U+FFFD already; it is named as well, as the
 * replacement cannot be told from it once parsed.
 */
static void
report_replaced_text (SkProject  *self,
                      JsonObject *root)
{
  JsonObject *nodes = sk_json_get_object (root, "nodes");
  JsonObjectIter iter;
  const char *member;
  JsonNode *value;
  gboolean reported = FALSE;

  json_object_iter_init_ordered (&iter, root);
  while (json_object_iter_next_ordered (&iter, &member, &value))
    {
      gboolean is_node = nodes == NULL && !g_strv_contains (known_members, member) &&
                         looks_like_node (value);

      if (is_node || (nodes != NULL && g_str_equal (member, "nodes")))
        continue;

      if (text_is_replaced (member) || node_has_text (value, text_is_replaced))
        {
          _sk_project_add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, TRUE, NULL,
                                   _("“%s” held an escape that stands for no character (a "
                                     "lone UTF-16 surrogate); it was replaced by “�”. Save "
                                     "the workflow to keep the repair."),
                                   member);
          reported = TRUE;
        }
    }

  json_object_iter_init_ordered (&iter, nodes != NULL ? nodes : root);
  while (json_object_iter_next_ordered (&iter, &member, &value))
    {
      SkNode *node;
      g_autofree char *who = NULL;

      if (nodes == NULL && (g_strv_contains (known_members, member) || !looks_like_node (value)))
        continue;

      if (!text_is_replaced (member) && !node_has_text (value, text_is_replaced))
        continue;

      node = sk_project_get_node (self, member);
      who = node != NULL ? _sk_project_describe_node (node) : g_strdup_printf (_("node %s"), member);

      if (text_is_replaced (member) || !JSON_NODE_HOLDS_OBJECT (value))
        {
          _sk_project_add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, TRUE, member,
                                   _("%s held an escape that stands for no character (a lone "
                                     "UTF-16 surrogate); it was replaced by “�”. Save the "
                                     "workflow to keep the repair."),
                                   who);
        }
      else
        {
          JsonObjectIter fields;
          const char *field;
          JsonNode *field_value;

          json_object_iter_init_ordered (&fields, json_node_get_object (value));
          while (json_object_iter_next_ordered (&fields, &field, &field_value))
            {
              if (!text_is_replaced (field) && !node_has_text (field_value, text_is_replaced))
                continue;

              _sk_project_add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, TRUE, member,
                                       /* Translators: the first %s names a node, the second a
                                        * member such as “name”. */
                                       _("In %s, “%s” held an escape that stands for no "
                                         "character (a lone UTF-16 surrogate); it was replaced "
                                         "by “�”. Save the workflow to keep the repair."),
                                       who, field);
            }
        }
      reported = TRUE;
    }

  if (!reported)
    _sk_project_add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, TRUE, NULL,
                             _("The workflow file held an escape that stands for no character "
                               "(a lone UTF-16 surrogate); it was replaced by “�”. Save the "
                               "workflow to keep the repair."));
}

static SkProject *load_leniently (const char  *data,
                                  gssize       length,
                                  GFile       *folder,
                                  const char  *path,
                                  GError     **error);
static SkProject *load_from_data (const char  *data,
                                  gssize       length,
                                  GFile       *folder,
                                  const char  *path,
                                  GError     **error);

/**
 * sk_project_load_from_data:
 * @data: the contents of a process.json file
 * @length: the length of @data, or -1 if it is nul-terminated
 * @folder: (nullable): the workflow's folder
 * @error: return location for a #GError
 *
 * Reads a workflow leniently. Only text that is not a JSON object is an
 * error; everything else that is wrong is reported by sk_project_validate().
 *
 * Returns: (transfer full): the workflow, or %NULL with @error set
 */
SkProject *
sk_project_load_from_data (const char  *data,
                           gssize       length,
                           GFile       *folder,
                           GError     **error)
{
  return load_from_data (data, length, folder, NULL, error);
}

/*
 * _sk_project_load_lenient:
 *
 * Reads @data as sk_project_load_from_data() does, always with json-glib
 * and the lenient reading, never with the reader of the canonical form: for
 * tests that compare the two.
 */
SkProject *
_sk_project_load_lenient (const char  *data,
                          gssize       length,
                          GFile       *folder,
                          GError     **error)
{
  return load_leniently (data, length, folder, NULL, error);
}

/* @path names the file in messages, when the data came from one. */
static SkProject *
load_from_data (const char  *data,
                gssize       length,
                GFile       *folder,
                const char  *path,
                GError     **error)
{
  SkProject *self;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (folder == NULL || G_IS_FILE (folder), NULL);

  self = _sk_project_load_canonical (data, length >= 0 ? (gsize) length : strlen (data), folder);
  if (self != NULL)
    return self;

  return load_leniently (data, length, folder, path, error);
}

static SkProject *
load_leniently (const char  *data,
                gssize       length,
                GFile       *folder,
                const char  *path,
                GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(SkProject) self = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *repaired = NULL;
  gsize repaired_length = 0;
  guint replaced = 0;
  guint repaired_strings = 0;
  g_autoptr(JsonNode) repaired_root = NULL;
  ParseState state;
  JsonNode *root;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (folder == NULL || G_IS_FILE (folder), NULL);

  if (!sk_json_check_depth (data, length, SK_JSON_MAX_DEPTH, NULL))
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_PARSE,
                   _("The workflow file cannot be read: its arrays and objects are nested "
                     "more than %u levels deep."), SK_JSON_MAX_DEPTH);
      return NULL;
    }

  /* json-glib turns a lone surrogate into bytes that are not UTF-8 and
   * swallows the character after it. Refusing the workflow would leave the
   * user with a file only a text editor can mend; the escape stands for no
   * character, so it is replaced visibly and the repair is reported, and
   * what is written back can always be read. */
  repaired = sk_json_replace_lone_surrogates (data, length, &repaired_length, &replaced);
  if (repaired != NULL)
    {
      data = repaired;
      length = (gssize) repaired_length;
    }

  state.counts = g_hash_table_new (NULL, NULL);
  state.duplicates = g_ptr_array_new_with_free_func (duplicate_free);

  parser = json_parser_new_immutable ();
  g_signal_connect (parser, "object-member", G_CALLBACK (object_member_cb), &state);
  g_signal_connect (parser, "object-end", G_CALLBACK (object_end_cb), &state);

  if (!json_parser_load_from_data (parser, data, length, &local_error))
    {
      g_autofree char *where = describe_parse_error (local_error);

      if (path != NULL)
        g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_PARSE,
                     _("The workflow file “%s” is not valid JSON: %s. Nothing was changed; "
                       "correct it in a text editor."),
                     path, where);
      else
        g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_PARSE,
                     _("The workflow file is not valid JSON: %s."), where);
      g_hash_table_unref (state.counts);
      g_ptr_array_unref (state.duplicates);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_PARSE,
                   _("The workflow file must hold one JSON object with the process’s "
                     "name and its “nodes”."));
      g_hash_table_unref (state.counts);
      g_ptr_array_unref (state.duplicates);
      return NULL;
    }

  /* A second guard, for strings that reach json-glib's scanner otherwise
   * than the repair above saw them. */
  repaired_root = sk_json_repair_utf8 (root, &repaired_strings);
  if (repaired_root != NULL)
    {
      root = repaired_root;
      replaced += repaired_strings;
    }

  self = sk_project_new (folder);
  apply_root (self, json_node_get_object (root), &state);

  g_hash_table_unref (state.counts);
  g_ptr_array_unref (state.duplicates);

  /* The repair is kept only when the workflow is saved. */
  self->modified = replaced > 0;
  if (replaced > 0)
    report_replaced_text (self, json_node_get_object (root));

  return g_steal_pointer (&self);
}

/**
 * sk_project_load:
 * @file: a workflow folder, or its process.json file
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the workflow, or %NULL with @error set
 */
SkProject *
sk_project_load (GFile   *file,
                 GError **error)
{
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GFile) json_file = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
    {
      folder = g_object_ref (file);
      json_file = g_file_get_child (file, SK_PROJECT_FILE_NAME);
    }
  else
    {
      folder = g_file_get_parent (file);
      json_file = g_object_ref (file);
    }

  if (!g_file_load_contents (json_file, NULL, &contents, &length, NULL, &local_error))
    {
      g_autofree char *path = g_file_get_path (json_file);

      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_NOT_FOUND,
                     _("There is no workflow at “%s”: the file does not exist."), path);
      else
        g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_NOT_FOUND,
                     _("The workflow “%s” could not be read: %s"), path, local_error->message);
      return NULL;
    }

  {
    g_autofree char *path = g_file_get_path (json_file);

    return load_from_data (contents, length, folder, path, error);
  }
}

/* Writes the workflow's members in their canonical order; the "nodes"
 * member only when @with_nodes is set.
 */
static JsonObject *
project_to_json (SkProject *self,
                 gboolean   with_nodes)
{
  JsonObject *root;
  g_autoptr(GList) members = NULL;

  root = json_object_new ();
  json_object_set_string_member (root, "process_name", self->name);
  json_object_set_string_member (root, "process_description", self->description);

  if (with_nodes)
    {
      JsonObject *nodes = json_object_new ();

      for (guint i = 0; i < self->nodes->len; i++)
        {
          SkNode *node = g_ptr_array_index (self->nodes, i);

          json_object_set_object_member (nodes, sk_node_get_id (node), sk_node_to_json (node));
        }

      members = json_object_get_members (self->invalid_nodes);
      for (const GList *l = members; l != NULL; l = l->next)
        {
          if (!json_object_has_member (nodes, l->data))
            json_object_set_member (nodes, l->data,
                                    json_node_copy (json_object_get_member (self->invalid_nodes,
                                                                            l->data)));
        }
      json_object_set_object_member (root, "nodes", nodes);
    }

  g_clear_pointer (&members, g_list_free);
  members = json_object_get_members (self->extra);
  for (const GList *l = members; l != NULL; l = l->next)
    json_object_set_member (root, l->data,
                            json_node_copy (json_object_get_member (self->extra, l->data)));

  if (self->python != NULL || json_object_get_size (self->skele_extra) > 0)
    {
      JsonObject *skele = json_object_new ();

      if (self->python != NULL)
        json_object_set_string_member (skele, "python", self->python);

      g_clear_pointer (&members, g_list_free);
      members = json_object_get_members (self->skele_extra);
      for (const GList *l = members; l != NULL; l = l->next)
        json_object_set_member (skele, l->data,
                                json_node_copy (json_object_get_member (self->skele_extra,
                                                                        l->data)));

      json_object_set_object_member (root, "skele", skele);
    }

  return root;
}

/**
 * sk_project_to_json:
 * @self: a #SkProject
 *
 * Returns: (transfer full): the workflow in its canonical form
 */
JsonObject *
sk_project_to_json (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  return project_to_json (self, TRUE);
}

/*
 * Returns what sk_project_to_json() writes besides "nodes": the process's
 * name and description, the "skele" settings and the members this program
 * does not know. It costs nothing per node.
 */
JsonObject *
_sk_project_header_to_json (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  return project_to_json (self, FALSE);
}

/*
 * Applies @header, as _sk_project_header_to_json() returns it, and leaves
 * the nodes alone. Undo uses it to put back the process's settings.
 */
void
_sk_project_apply_header_json (SkProject  *self,
                               JsonObject *header)
{
  g_autoptr(GList) members = NULL;
  g_autoptr(JsonObject) extra = NULL;
  g_autoptr(JsonObject) skele_extra = NULL;
  g_autofree char *python = NULL;
  gboolean changed;

  g_return_if_fail (SK_IS_PROJECT (self));
  g_return_if_fail (header != NULL);

  extra = json_object_new ();
  skele_extra = json_object_new ();

  members = json_object_get_members (header);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *member = l->data;
      JsonNode *value = json_object_get_member (header, member);

      if (g_str_equal (member, "process_name") ||
          g_str_equal (member, "process_description") ||
          g_str_equal (member, "nodes"))
        continue;

      if (g_str_equal (member, "skele") && JSON_NODE_HOLDS_OBJECT (value))
        {
          JsonObject *skele = json_node_get_object (value);
          g_autoptr(GList) skele_members = json_object_get_members (skele);
          const char *python_text = read_text_member (skele, "python", NULL);

          for (const GList *s = skele_members; s != NULL; s = s->next)
            {
              if (g_str_equal (s->data, "python") && python_text[0] != '\0')
                {
                  python = g_strdup (python_text);
                  continue;
                }

              json_object_set_member (skele_extra, s->data,
                                      json_node_copy (json_object_get_member (skele, s->data)));
            }
          continue;
        }

      json_object_set_member (extra, member, json_node_copy (value));
    }

  changed = (g_strcmp0 (python, self->python) != 0 ||
             !json_object_equal (extra, self->extra) ||
             !json_object_equal (skele_extra, self->skele_extra));

  g_free (self->python);
  self->python = g_steal_pointer (&python);
  g_clear_pointer (&self->extra, json_object_unref);
  self->extra = g_steal_pointer (&extra);
  g_clear_pointer (&self->skele_extra, json_object_unref);
  self->skele_extra = g_steal_pointer (&skele_extra);

  sk_project_set_name (self, read_text_member (header, "process_name", NULL));
  sk_project_set_description (self, read_text_member (header, "process_description", NULL));

  if (changed)
    _sk_project_set_modified (self);
}

static JsonNode *
project_to_node (SkProject *self)
{
  JsonNode *root = json_node_init_object (json_node_alloc (), sk_project_to_json (self));

  json_object_unref (json_node_get_object (root));
  return root;
}

/* The text of sk_project_to_data(), written straight from the workflow;
 * %NULL when a member this program does not know bears the name of one it
 * writes itself, or a node could not be read, which only the tree built by
 * sk_project_to_json() orders right. */
static GString *
write_canonical (SkProject *self)
{
  static const char * const written[] = {
    "process_name", "process_description", "nodes", "skele", NULL
  };
  g_autoptr(GString) out = NULL;
  gboolean first = TRUE;
  gboolean nodes_first = TRUE;

  if (json_object_get_size (self->invalid_nodes) > 0)
    return NULL;
  for (guint i = 0; written[i] != NULL; i++)
    if (json_object_has_member (self->extra, written[i]))
      return NULL;

  out = g_string_sized_new (256 + 400 * self->nodes->len);
  g_string_append_c (out, '{');
  sk_json_append_member (out, 1, &first, "process_name");
  sk_json_append_string (out, self->name);
  sk_json_append_member (out, 1, &first, "process_description");
  sk_json_append_string (out, self->description);
  sk_json_append_member (out, 1, &first, "nodes");
  g_string_append_c (out, '{');
  for (guint i = 0; i < self->nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (self->nodes, i);

      sk_json_append_member (out, 2, &nodes_first, sk_node_get_id (node));
      if (!_sk_node_append_json (node, out, 2))
        return NULL;
    }
  sk_json_append_object_end (out, 1, nodes_first);

  sk_json_append_members (out, 1, &first, self->extra);

  if (self->python != NULL || json_object_get_size (self->skele_extra) > 0)
    {
      gboolean skele_first = TRUE;

      if (self->python != NULL && json_object_has_member (self->skele_extra, "python"))
        return NULL;

      sk_json_append_member (out, 1, &first, "skele");
      g_string_append_c (out, '{');
      if (self->python != NULL)
        {
          sk_json_append_member (out, 2, &skele_first, "python");
          sk_json_append_string (out, self->python);
        }
      sk_json_append_members (out, 2, &skele_first, self->skele_extra);
      sk_json_append_object_end (out, 1, skele_first);
    }

  sk_json_append_object_end (out, 0, first);

  /* The same text as sk_json_write_atomic() writes: it ends in a newline. */
  g_string_append_c (out, '\n');
  return g_steal_pointer (&out);
}

/**
 * sk_project_to_data:
 * @self: a #SkProject
 * @length: (out) (optional): the length of the text
 *
 * Returns: (transfer full): the workflow as the text of a process.json file
 */
char *
sk_project_to_data (SkProject *self,
                    gsize     *length)
{
  GString *text;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  text = write_canonical (self);
  if (text == NULL)
    return _sk_project_to_data_generic (self, length);

  if (length != NULL)
    *length = text->len;

  return g_string_free (text, FALSE);
}

/*
 * _sk_project_to_data_generic:
 *
 * Writes the workflow as sk_project_to_data() does, always through
 * json-glib's tree and generator: for tests that compare the two.
 */
char *
_sk_project_to_data_generic (SkProject *self,
                             gsize     *length)
{
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *data = NULL;
  GString *text;
  gsize data_length = 0;

  root = project_to_node (self);
  data = sk_json_to_data (root, TRUE, &data_length);

  /* The same text as sk_json_write_atomic() writes: it ends in a newline. */
  text = g_string_new_len (data, data_length);
  g_string_append_c (text, '\n');

  if (length != NULL)
    *length = text->len;

  return g_string_free (text, FALSE);
}

/**
 * sk_project_save_to_folder:
 * @self: a #SkProject
 * @folder: the folder to write process.json into
 * @error: return location for a #GError
 *
 * Writes the workflow atomically: the new text goes to a temporary file that
 * is flushed to disk and then renamed over process.json, so an interrupted
 * save leaves the previous file as it was.
 *
 * Returns: %TRUE if the workflow was saved
 */
gboolean
sk_project_save_to_folder (SkProject  *self,
                           GFile      *folder,
                           GError    **error)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  g_autofree char *folder_path = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (folder), FALSE);

  folder_path = g_file_get_path (folder);
  if (g_mkdir_with_parents (folder_path, 0755) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("The folder “%s” could not be created: %s"),
                   folder_path, g_strerror (saved_errno));
      return FALSE;
    }

  file = g_file_get_child (folder, SK_PROJECT_FILE_NAME);
  path = g_file_get_path (file);
  root = project_to_node (self);

  if (!sk_json_write_atomic (path, root, TRUE, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("The workflow could not be saved, and the previous file was kept: %s"),
                   local_error->message);
      return FALSE;
    }

  if (self->folder == NULL)
    _sk_project_set_folder (self, folder);

  sk_project_set_modified (self, FALSE);
  return TRUE;
}

/**
 * sk_project_save:
 * @self: a #SkProject
 * @error: return location for a #GError
 *
 * Saves the workflow into its folder; see sk_project_save_to_folder().
 *
 * Returns: %TRUE if the workflow was saved
 */
gboolean
sk_project_save (SkProject  *self,
                 GError    **error)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);

  if (self->folder == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                   _("The workflow has no folder yet; choose one with “Save As”."));
      return FALSE;
    }

  return sk_project_save_to_folder (self, self->folder, error);
}

/**
 * sk_project_update_from_json:
 * @self: a #SkProject
 * @object: the whole workflow as JSON, as the process JSON editor shows it
 * @error: return location for a #GError
 *
 * Applies an edited workflow: nodes keep their identity where their
 * identifier is unchanged. Nothing changes when @object has errors that
 * the workflow did not have already (see sk_problems_new_since()).
 *
 * Returns: %TRUE if @object was applied
 */
gboolean
sk_project_update_from_json (SkProject   *self,
                             JsonObject  *object,
                             GError     **error)
{
  g_autoptr(SkProject) scratch = NULL;
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GPtrArray) after = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GPtrArray) removed = NULL;
  const char *invalid_member;

  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (object != NULL, FALSE);

  /* Text that is not UTF-8 could be neither saved nor read back. */
  invalid_member = find_member_with_text (object, text_is_invalid);
  if (invalid_member != NULL)
    {
      g_autofree char *shown = g_utf8_make_valid (invalid_member, -1);

      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                   _("The workflow’s JSON was not applied: the text of “%s” is not valid "
                     "UTF-8. Remove escapes such as \\udce9 that stand for no character."),
                   shown);
      return FALSE;
    }

  scratch = sk_project_new (self->folder);
  apply_root (scratch, object, NULL);

  /* Only the problems the edit makes refuse it: a workflow that already had
   * several could otherwise not be repaired one problem at a time. */
  before = sk_project_validate (self);
  after = sk_project_validate (scratch);
  problems = sk_problems_new_since (before, after);
  if (problems->len > 0)
    {
      g_autoptr(GString) messages = g_string_new (NULL);

      for (guint i = 0; i < problems->len; i++)
        {
          SkProblem *problem = g_ptr_array_index (problems, i);

          if (messages->len > 0)
            g_string_append_c (messages, '\n');
          g_string_append (messages, problem->message);
        }

      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                   _("The workflow’s JSON was not applied: %s"), messages->str);
      return FALSE;
    }

  sk_project_set_name (self, scratch->name);
  sk_project_set_description (self, scratch->description);
  g_free (self->python);
  self->python = g_strdup (scratch->python);
  g_clear_pointer (&self->extra, json_object_unref);
  self->extra = json_object_ref (scratch->extra);
  g_clear_pointer (&self->skele_extra, json_object_unref);
  self->skele_extra = json_object_ref (scratch->skele_extra);

  /* What the file that was loaded could not hold is not part of the edit. */
  g_clear_pointer (&self->invalid_nodes, json_object_unref);
  self->invalid_nodes = json_object_ref (scratch->invalid_nodes);
  g_ptr_array_set_size (self->load_problems, 0);

  removed = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < self->nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (self->nodes, i);

      if (sk_project_get_node (scratch, sk_node_get_id (node)) == NULL)
        g_ptr_array_add (removed, g_object_ref (node));
    }

  for (guint i = 0; i < removed->len; i++)
    sk_project_remove_node (self, g_ptr_array_index (removed, i));

  for (guint i = 0; i < scratch->nodes->len; i++)
    {
      SkNode *edited = g_ptr_array_index (scratch->nodes, i);
      SkNode *node = sk_project_get_node (self, sk_node_get_id (edited));
      g_autoptr(JsonObject) json = sk_node_to_json (edited);

      if (node != NULL)
        _sk_node_load_json (node, json, NULL);
      else
        sk_project_add_node (self, edited, NULL);
    }

  _sk_project_set_modified (self);
  return TRUE;
}
