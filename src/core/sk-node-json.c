/* sk-node-json.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-node"

#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "sk-json.h"
#include "sk-node-private.h"

/* A node as JSON: reading it leniently, with a message for each value of
 * the wrong type, and writing it canonically, with the members this
 * program does not know written back as they were. */

static const char * const known_node_members[] = {
  "name", "description", "priors", "run", "input", "output", "skele", NULL
};

/* The members of "input" and "output" that this program reads. */
static const char * const known_io_members[] = { "text", "files", NULL };

static JsonArray *
strv_to_array (const char * const *strv)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);

  return array;
}

static void
copy_unknown_members (JsonObject         *from,
                      JsonObject         *to,
                      const char * const *known)
{
  g_autoptr(GList) members = from != NULL ? json_object_get_members (from) : NULL;

  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *member = l->data;

      if (known != NULL && g_strv_contains (known, member))
        continue;

      json_object_set_member (to, member,
                              json_node_copy (json_object_get_member (from, member)));
    }
}

/* The members of @from not in @known, or %NULL when there are none: most
 * nodes have none, and an object for each would cost a workflow of many
 * steps much memory and time. */
static JsonObject *
unknown_members (JsonObject         *from,
                 const char * const *known)
{
  JsonObject *to = NULL;
  JsonObjectIter iter;
  const char *member;
  JsonNode *value;

  json_object_iter_init_ordered (&iter, from);
  while (json_object_iter_next_ordered (&iter, &member, &value))
    {
      if (g_strv_contains (known, member))
        continue;
      if (to == NULL)
        to = json_object_new ();
      json_object_set_member (to, member, json_node_copy (value));
    }

  return to;
}

/* Compares two sets of unknown members, %NULL standing for none. */
static gboolean
extras_equal (JsonObject *a,
              JsonObject *b)
{
  if (a == NULL || b == NULL)
    return (a == NULL || json_object_get_size (a) == 0) &&
           (b == NULL || json_object_get_size (b) == 0);

  return json_object_equal (a, b);
}

static void
add_problem (GPtrArray  *problems,
             const char *format,
             ...) G_GNUC_PRINTF (2, 3);

static void
add_problem (GPtrArray  *problems,
             const char *format,
             ...)
{
  va_list args;

  if (problems == NULL)
    return;

  va_start (args, format);
  g_ptr_array_add (problems, g_strdup_vprintf (format, args));
  va_end (args);
}

/* Whether @member is there with a value other than null. */
static gboolean
has_value (JsonObject *object,
           const char *member)
{
  JsonNode *node = sk_json_get_member (object, member);

  return node != NULL && !JSON_NODE_HOLDS_NULL (node);
}

static char *
read_string_member (JsonObject *object,
                    const char *member,
                    const char *where,
                    GPtrArray  *problems)
{
  const char *text = sk_json_get_string (object, member);

  if (text != NULL)
    return g_strdup (text);

  if (has_value (object, member))
    add_problem (problems, _("“%s” must be text"), where);

  return g_strdup ("");
}

/* Reads a list of strings. Nested lists are flattened because the paper's
 * tools write priors as [["1"], ["2"]].
 */
static gboolean
collect_strings (JsonNode  *node,
                 GPtrArray *out,
                 guint      depth)
{
  if (JSON_NODE_HOLDS_VALUE (node))
    {
      GType type = json_node_get_value_type (node);

      if (type == G_TYPE_STRING)
        g_ptr_array_add (out, g_strdup (json_node_get_string (node)));
      else if (type == G_TYPE_INT64)
        g_ptr_array_add (out, g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node)));
      else
        return FALSE;

      return TRUE;
    }

  if (JSON_NODE_HOLDS_ARRAY (node) && depth < 4)
    {
      JsonArray *array = json_node_get_array (node);
      guint length = json_array_get_length (array);

      for (guint i = 0; i < length; i++)
        {
          if (!collect_strings (json_array_get_element (array, i), out, depth + 1))
            return FALSE;
        }

      return TRUE;
    }

  return FALSE;
}

static GStrv
read_strv_member (JsonObject *object,
                  const char *member,
                  const char *where,
                  GPtrArray  *problems)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (g_free);

  if (has_value (object, member) &&
      (sk_json_get_array (object, member) == NULL ||
       !collect_strings (sk_json_get_member (object, member), out, 0)))
    {
      add_problem (problems, _("“%s” must be a list of text"), where);
      g_ptr_array_set_size (out, 0);
    }

  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

static JsonObject *
read_object_member (JsonObject *object,
                    const char *member,
                    const char *where,
                    GPtrArray  *problems)
{
  JsonObject *value = sk_json_get_object (object, member);

  if (value == NULL && has_value (object, member))
    add_problem (problems, _("“%s” must be an object"), where);

  return value;
}


/* The permissions a step asks for in its sandbox (see sk_node_get_network()
 * and sk_node_get_read_paths()); a permission that cannot be read is
 * refused rather than guessed.
 */
void
_sk_node_check_skele (JsonObject *skele,
                      GPtrArray  *problems)
{
  gboolean network;
  JsonArray *read;

  if (has_value (skele, "network") && !sk_json_get_boolean (skele, "network", &network))
    add_problem (problems, _("“skele.network” must be true or false"));

  if (!has_value (skele, "read"))
    return;

  read = sk_json_get_array (skele, "read");
  for (guint i = 0; read != NULL && i < json_array_get_length (read); i++)
    {
      JsonNode *element = json_array_get_element (read, i);

      if (!JSON_NODE_HOLDS_VALUE (element) ||
          json_node_get_value_type (element) != G_TYPE_STRING ||
          !g_path_is_absolute (json_node_get_string (element)))
        {
          read = NULL;
          break;
        }
    }
  if (read == NULL)
    add_problem (problems, _("“skele.read” must be a list of absolute paths of folders or files"));
}

/*
 * Applies @object to @self leniently: values of the wrong type are reported in
 * @problems and left at their defaults, unknown members are kept.
 */
void
_sk_node_load_json (SkNode     *self,
                    JsonObject *object,
                    GPtrArray  *problems)
{
  g_autofree char *name = NULL;
  g_autofree char *description = NULL;
  g_autofree char *input_text = NULL;
  g_autofree char *output_text = NULL;
  g_auto(GStrv) priors = NULL;
  g_auto(GStrv) input_files = NULL;
  g_auto(GStrv) output_files = NULL;
  g_autoptr(JsonObject) old_extra = NULL;
  g_autoptr(JsonObject) old_input_extra = NULL;
  g_autoptr(JsonObject) old_output_extra = NULL;
  g_autoptr(JsonObject) old_skele_extra = NULL;
  JsonObject *input;
  JsonObject *output;
  JsonObject *skele;
  gboolean run = TRUE;
  double x = 0, y = 0;

  g_return_if_fail (SK_IS_NODE (self));
  g_return_if_fail (object != NULL);

  if (!json_object_has_member (object, "name"))
    add_problem (problems, _("it has no “name”"));

  name = read_string_member (object, "name", "name", problems);
  description = read_string_member (object, "description", "description", problems);
  priors = read_strv_member (object, "priors", "priors", problems);

  if (!sk_json_get_boolean (object, "run", &run) && has_value (object, "run"))
    add_problem (problems, _("“run” must be true or false"));

  input = read_object_member (object, "input", "input", problems);
  output = read_object_member (object, "output", "output", problems);
  skele = read_object_member (object, "skele", "skele", problems);

  if (skele != NULL)
    _sk_node_check_skele (skele, problems);

  if (input != NULL)
    {
      input_text = read_string_member (input, "text", "input.text", problems);
      input_files = read_strv_member (input, "files", "input.files", problems);
    }

  if (output != NULL)
    {
      output_text = read_string_member (output, "text", "output.text", problems);
      output_files = read_strv_member (output, "files", "output.files", problems);
    }

  g_object_freeze_notify (G_OBJECT (self));

  sk_node_set_name (self, name);
  sk_node_set_description (self, description);
  sk_node_set_priors (self, (const char * const *) priors);
  sk_node_set_run (self, run);
  sk_node_set_input_text (self, input_text);
  sk_node_set_input_files (self, (const char * const *) input_files);
  sk_node_set_output_text (self, output_text);
  sk_node_set_output_files (self, (const char * const *) output_files);

  old_extra = g_steal_pointer (&self->extra);
  self->extra = unknown_members (object, known_node_members);

  old_input_extra = g_steal_pointer (&self->input_extra);
  self->input_extra = input != NULL ? unknown_members (input, known_io_members) : NULL;

  old_output_extra = g_steal_pointer (&self->output_extra);
  self->output_extra = output != NULL ? unknown_members (output, known_io_members) : NULL;

  old_skele_extra = g_steal_pointer (&self->skele_extra);
  self->skele_extra = json_object_new ();
  if (skele != NULL)
    {
      copy_unknown_members (skele, self->skele_extra, (const char * const[]) { "x", "y", NULL });

      /* A number too large for a double (1e999) reads as infinity, which
       * is no place on the canvas and cannot be written back. */
      if (sk_json_get_double (skele, "x", &x) && sk_json_get_double (skele, "y", &y) &&
          isfinite (x) && isfinite (y))
        sk_node_set_position (self, x, y);
    }

  /* Unknown members are saved too, so a change to them alone is a change. */
  if (!extras_equal (old_extra, self->extra) ||
      !extras_equal (old_input_extra, self->input_extra) ||
      !extras_equal (old_output_extra, self->output_extra) ||
      !json_object_equal (old_skele_extra, self->skele_extra))
    _sk_node_emit_changed (self);

  g_object_thaw_notify (G_OBJECT (self));
}

/**
 * sk_node_new_from_json:
 * @id: the node's identifier
 * @object: the node's JSON object
 *
 * Creates a node from its JSON leniently, as a workflow is loaded.
 *
 * Returns: (transfer full): a new node
 */
SkNode *
sk_node_new_from_json (const char *id,
                       JsonObject *object)
{
  SkNode *self;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (object != NULL, NULL);

  self = g_object_new (SK_TYPE_NODE, "id", id, NULL);
  _sk_node_load_json (self, object, NULL);
  return self;
}

/**
 * sk_node_update_from_json:
 * @self: a #SkNode
 * @object: the node's new JSON
 * @error: return location for a #GError
 *
 * Replaces everything saved about the node with @object, as the JSON editor
 * does. Nothing is changed when @object has a value of the wrong type.
 *
 * Returns: %TRUE if @object was applied
 */
gboolean
sk_node_update_from_json (SkNode      *self,
                          JsonObject  *object,
                          GError     **error)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SkNode) scratch = NULL;

  g_return_val_if_fail (SK_IS_NODE (self), FALSE);
  g_return_val_if_fail (object != NULL, FALSE);

  scratch = g_object_new (SK_TYPE_NODE, "id", self->id, NULL);
  _sk_node_load_json (scratch, object, problems);

  if (problems->len > 0)
    {
      g_autofree char *joined = NULL;

      g_ptr_array_add (problems, NULL);
      joined = g_strjoinv ("; ", (char **) problems->pdata);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The node’s JSON was not applied: %s."), joined);
      return FALSE;
    }

  /* A JSON edit that leaves out the canvas position keeps the node where it is. */
  _sk_node_load_json (self, object, NULL);

  return TRUE;
}

/* A place on the canvas is kept to half a unit, which a double holds
 * exactly: the float noise of a drag (3.9999923706054688) means nothing to
 * a reader of the file, and a whole number is written as one. Values too
 * large for that keep their own form. */
static void
set_coordinate (JsonObject *object,
                const char *member,
                double      value)
{
  double rounded = rint (value * 2) / 2;

  if (fabs (value) >= 1e15)
    json_object_set_double_member (object, member, value);
  else if (rounded == rint (rounded))
    json_object_set_int_member (object, member, (gint64) rounded);
  else
    json_object_set_double_member (object, member, rounded);
}

/**
 * sk_node_to_json:
 * @self: a #SkNode
 *
 * Serialises the node in the canonical form, with unknown members written
 * back after the known ones.
 *
 * Returns: (transfer full): the node's JSON object
 */
JsonObject *
sk_node_to_json (SkNode *self)
{
  JsonObject *object;
  JsonObject *input;
  JsonObject *output;

  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "name", self->name);
  json_object_set_string_member (object, "description", self->description);
  json_object_set_array_member (object, "priors",
                                strv_to_array ((const char * const *) self->priors));
  json_object_set_boolean_member (object, "run", self->run);

  input = json_object_new ();
  json_object_set_string_member (input, "text", self->input_text);
  json_object_set_array_member (input, "files",
                                strv_to_array ((const char * const *) self->input_files));
  copy_unknown_members (self->input_extra, input, NULL);
  json_object_set_object_member (object, "input", input);

  output = json_object_new ();
  json_object_set_string_member (output, "text", self->output_text);
  json_object_set_array_member (output, "files",
                                strv_to_array ((const char * const *) self->output_files));
  copy_unknown_members (self->output_extra, output, NULL);
  json_object_set_object_member (object, "output", output);

  copy_unknown_members (self->extra, object, NULL);

  if (self->has_position || json_object_get_size (self->skele_extra) > 0)
    {
      JsonObject *skele = json_object_new ();

      if (self->has_position)
        {
          set_coordinate (skele, "x", self->x);
          set_coordinate (skele, "y", self->y);
        }

      copy_unknown_members (self->skele_extra, skele, NULL);
      json_object_set_object_member (object, "skele", skele);
    }

  return object;
}

static void
append_coordinate (GString    *out,
                   guint       level,
                   gboolean   *first,
                   const char *member,
                   double      value)
{
  double rounded = rint (value * 2) / 2;

  /* As set_coordinate() writes it. */
  sk_json_append_member (out, level, first, member);
  if (fabs (value) >= 1e15)
    sk_json_append_double (out, value);
  else if (rounded == rint (rounded))
    g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) rounded);
  else
    sk_json_append_double (out, rounded);
}

static gboolean
holds_any (JsonObject         *object,
           const char * const *names)
{
  for (guint i = 0; object != NULL && names[i] != NULL; i++)
    if (json_object_has_member (object, names[i]))
      return TRUE;

  return FALSE;
}

/*
 * _sk_node_append_json:
 * @self: a #SkNode
 * @out: the text to add to
 * @level: how deep the node's object lies
 *
 * Appends the node as sk_node_to_json() and sk_json_to_data() write it,
 * without building its JSON.
 *
 * Returns: %FALSE, having appended nothing, when a member it does not know
 *   has the name of one it knows, which only sk_node_to_json() orders right
 */
gboolean
_sk_node_append_json (SkNode  *self,
                      GString *out,
                      guint    level)
{
  static const char * const coordinates[] = { "x", "y", NULL };
  gboolean first = TRUE;
  gboolean io_first;

  if (holds_any (self->extra, known_node_members) ||
      holds_any (self->input_extra, known_io_members) ||
      holds_any (self->output_extra, known_io_members) ||
      (self->has_position && holds_any (self->skele_extra, coordinates)))
    return FALSE;

  g_string_append_c (out, '{');
  sk_json_append_member (out, level + 1, &first, "name");
  sk_json_append_string (out, self->name);
  sk_json_append_member (out, level + 1, &first, "description");
  sk_json_append_string (out, self->description);
  sk_json_append_member (out, level + 1, &first, "priors");
  sk_json_append_strv (out, level + 1, (const char * const *) self->priors);
  sk_json_append_member (out, level + 1, &first, "run");
  g_string_append (out, self->run ? "true" : "false");

  for (guint io = 0; io < 2; io++)
    {
      io_first = TRUE;
      sk_json_append_member (out, level + 1, &first, io == 0 ? "input" : "output");
      g_string_append_c (out, '{');
      sk_json_append_member (out, level + 2, &io_first, "text");
      sk_json_append_string (out, io == 0 ? self->input_text : self->output_text);
      sk_json_append_member (out, level + 2, &io_first, "files");
      sk_json_append_strv (out, level + 2,
                           (const char * const *) (io == 0 ? self->input_files
                                                           : self->output_files));
      sk_json_append_members (out, level + 2, &io_first,
                              io == 0 ? self->input_extra : self->output_extra);
      sk_json_append_object_end (out, level + 1, io_first);
    }

  sk_json_append_members (out, level + 1, &first, self->extra);

  if (self->has_position || json_object_get_size (self->skele_extra) > 0)
    {
      gboolean skele_first = TRUE;

      sk_json_append_member (out, level + 1, &first, "skele");
      g_string_append_c (out, '{');
      if (self->has_position)
        {
          append_coordinate (out, level + 2, &skele_first, "x", self->x);
          append_coordinate (out, level + 2, &skele_first, "y", self->y);
        }
      sk_json_append_members (out, level + 2, &skele_first, self->skele_extra);
      sk_json_append_object_end (out, level + 1, skele_first);
    }

  sk_json_append_object_end (out, level, first);
  return TRUE;
}

/*
 * Returns the value of a member of the node's "skele" object that this
 * class does not interpret itself, or %NULL.
 */
JsonNode *
_sk_node_get_skele_member (SkNode     *self,
                           const char *member)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  if (!json_object_has_member (self->skele_extra, member))
    return NULL;

  return json_object_get_member (self->skele_extra, member);
}

static guint64
read_token_count (JsonObject *tokens,
                  const char *member)
{
  gint64 count;
  double value;

  if (sk_json_get_int (tokens, member, &count))
    return MAX (count, 0);
  if (sk_json_get_double (tokens, member, &value))
    return MAX (value, 0);
  return 0;
}

/**
 * sk_node_get_tokens:
 * @prompt_tokens: (out) (optional): tokens the agent's calls read
 * @completion_tokens: (out) (optional): tokens they wrote
 *
 * The counts are kept in the workflow file, under the node's "skele" member
 * `tokens`, summed over every call made for the node.
 */
void
sk_node_get_tokens (SkNode  *self,
                    guint64 *prompt_tokens,
                    guint64 *completion_tokens)
{
  JsonObject *tokens;

  g_return_if_fail (SK_IS_NODE (self));

  tokens = sk_json_get_object (self->skele_extra, "tokens");

  if (prompt_tokens != NULL)
    *prompt_tokens = read_token_count (tokens, "prompt");
  if (completion_tokens != NULL)
    *completion_tokens = read_token_count (tokens, "completion");
}

/**
 * sk_node_add_tokens:
 *
 * Adds the tokens of one of the agent's calls to the node's counts.
 */
void
sk_node_add_tokens (SkNode  *self,
                    guint64  prompt_tokens,
                    guint64  completion_tokens)
{
  JsonObject *tokens;
  guint64 prompt, completion;

  g_return_if_fail (SK_IS_NODE (self));

  if (prompt_tokens == 0 && completion_tokens == 0)
    return;

  sk_node_get_tokens (self, &prompt, &completion);
  tokens = json_object_new ();
  json_object_set_int_member (tokens, "prompt", prompt + prompt_tokens);
  json_object_set_int_member (tokens, "completion", completion + completion_tokens);
  json_object_set_object_member (self->skele_extra, "tokens", tokens);

  _sk_node_tokens_changed (self);
}

/**
 * sk_node_get_network:
 * @self: a #SkNode
 *
 * A step uses the network only where its "skele" member says
 * `"network": true`, or where the workflow's does
 * (sk_project_get_network()).
 *
 * Returns: whether the step asks to use the network
 */
gboolean
sk_node_get_network (SkNode *self)
{
  gboolean network = FALSE;

  g_return_val_if_fail (SK_IS_NODE (self), FALSE);

  return sk_json_get_boolean (self->skele_extra, "network", &network) && network;
}

/**
 * sk_node_get_read_paths:
 * @self: a #SkNode
 *
 * Files and folders outside the workflow that the step may read, from its
 * "skele" member `read`; only absolute paths count.
 *
 * Returns: (transfer full) (array zero-terminated=1): the paths, perhaps
 *   none
 */
char **
sk_node_get_read_paths (SkNode *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *read;

  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  read = sk_json_get_array (self->skele_extra, "read");
  for (guint i = 0; read != NULL && i < json_array_get_length (read); i++)
    {
      JsonNode *element = json_array_get_element (read, i);

      if (JSON_NODE_HOLDS_VALUE (element) &&
          json_node_get_value_type (element) == G_TYPE_STRING &&
          g_path_is_absolute (json_node_get_string (element)))
        g_strv_builder_add (builder, json_node_get_string (element));
    }

  return g_strv_builder_end (builder);
}

/**
 * sk_node_set_permissions:
 * @self: a #SkNode
 * @network: whether the step may use the network
 * @read_paths: (nullable) (array zero-terminated=1): absolute paths of
 *   files and folders outside the workflow that the step may read
 *
 * Sets what the step may do in its sandbox beyond the defaults, in its
 * "skele" member; a permission the step does not have is left out of the
 * file rather than written as false.
 */
void
sk_node_set_permissions (SkNode             *self,
                         gboolean            network,
                         const char * const *read_paths)
{
  g_autoptr(JsonObject) before = NULL;

  g_return_if_fail (SK_IS_NODE (self));

  before = g_steal_pointer (&self->skele_extra);
  self->skele_extra = json_object_new ();
  copy_unknown_members (before, self->skele_extra, (const char * const[]) { "network", "read", NULL });

  if (network)
    json_object_set_boolean_member (self->skele_extra, "network", TRUE);

  if (read_paths != NULL && read_paths[0] != NULL)
    {
      JsonArray *array = json_array_new ();

      for (guint i = 0; read_paths[i] != NULL; i++)
        if (g_path_is_absolute (read_paths[i]))
          json_array_add_string_element (array, read_paths[i]);
      json_object_set_array_member (self->skele_extra, "read", array);
    }

  if (!json_object_equal (before, self->skele_extra))
    _sk_node_emit_changed (self);
}

/**
 * sk_node_set_approval:
 * @self: a #SkNode
 * @approval: whether the step is an approval gate (DESIGN §10)
 *
 * Makes the step a gate that a run stops before until someone approves
 * it, or an ordinary step again.
 */
void
sk_node_set_approval (SkNode   *self,
                      gboolean  approval)
{
  g_autoptr(JsonObject) before = NULL;

  g_return_if_fail (SK_IS_NODE (self));

  before = g_steal_pointer (&self->skele_extra);
  self->skele_extra = json_object_new ();
  copy_unknown_members (before, self->skele_extra, (const char * const[]) { "approval", NULL });
  if (approval)
    json_object_set_boolean_member (self->skele_extra, "approval", TRUE);

  if (!json_object_equal (before, self->skele_extra))
    _sk_node_emit_changed (self);
}

/**
 * sk_node_set_condition:
 * @self: a #SkNode
 * @prior_id: the identifier of one of its priors
 * @condition: (nullable): a Python expression over `output`, the word
 *   `default`, or %NULL or blank for none
 *
 * Sets the condition on the connection from @prior_id to the step, kept
 * in its "skele" member under "when".
 */
void
sk_node_set_condition (SkNode     *self,
                       const char *prior_id,
                       const char *condition)
{
  g_autoptr(JsonObject) before = NULL;
  g_autofree char *text = NULL;
  JsonObject *old_when;
  JsonObject *when;

  g_return_if_fail (SK_IS_NODE (self));
  g_return_if_fail (prior_id != NULL);

  if (condition != NULL)
    text = g_strstrip (g_strdup (condition));

  before = g_steal_pointer (&self->skele_extra);
  self->skele_extra = json_object_new ();
  copy_unknown_members (before, self->skele_extra, (const char * const[]) { "when", NULL });

  old_when = sk_json_get_object (before, "when");
  when = json_object_new ();
  if (old_when != NULL)
    copy_unknown_members (old_when, when, (const char * const[]) { prior_id, NULL });
  if (text != NULL && text[0] != '\0')
    json_object_set_string_member (when, prior_id, text);

  if (json_object_get_size (when) > 0)
    json_object_set_object_member (self->skele_extra, "when", when);
  else
    json_object_unref (when);

  if (!json_object_equal (before, self->skele_extra))
    _sk_node_emit_changed (self);
}
