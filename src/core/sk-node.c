/* sk-node.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-node"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "sk-enums.h"
#include "sk-node-private.h"

struct _SkNode
{
  GObject      parent_instance;

  char        *id;
  char        *name;
  char        *key;
  char        *description;
  GStrv        priors;
  char        *input_text;
  GStrv        input_files;
  char        *output_text;
  GStrv        output_files;
  char        *error_text;
  char        *error_detail;

  /* Members this program does not know, kept for writing back unchanged. */
  JsonObject  *extra;
  JsonObject  *input_extra;
  JsonObject  *output_extra;
  JsonObject  *skele_extra;

  double       x;
  double       y;
  SkNodeState  state;

  guint        run : 1;
  guint        has_position : 1;
};

G_DEFINE_FINAL_TYPE (SkNode, sk_node, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_NAME,
  PROP_KEY,
  PROP_DESCRIPTION,
  PROP_PRIORS,
  PROP_RUN,
  PROP_INPUT_TEXT,
  PROP_INPUT_FILES,
  PROP_OUTPUT_TEXT,
  PROP_OUTPUT_FILES,
  PROP_X,
  PROP_Y,
  PROP_HAS_POSITION,
  PROP_STATE,
  PROP_ERROR_TEXT,
  PROP_ERROR_DETAIL,
  PROP_TOKENS,
  N_PROPS
};

enum {
  CHANGED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

static const char * const known_node_members[] = {
  "name", "description", "priors", "run", "input", "output", "skele", NULL
};

static gboolean
strv_equal0 (const char * const *a,
             const char * const *b)
{
  static const char * const empty[] = { NULL };

  return g_strv_equal (a != NULL ? a : empty, b != NULL ? b : empty);
}

static void
emit_changed (SkNode     *self,
              GParamSpec *pspec)
{
  g_object_notify_by_pspec (G_OBJECT (self), pspec);
  g_signal_emit (self, signals [CHANGED], 0);
}

static gboolean
set_string (char       **field,
            const char  *value)
{
  if (value == NULL)
    value = "";

  if (g_strcmp0 (*field, value) == 0)
    return FALSE;

  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

static gboolean
set_strv (GStrv              *field,
          const char * const *value)
{
  static const char * const empty[] = { NULL };
  GStrv copy;

  if (value == NULL)
    value = empty;

  if (strv_equal0 ((const char * const *) *field, value))
    return FALSE;

  /* Copy before freeing: @value may share strings with the old list, as when
   * a caller appends to what the getter returned. */
  copy = g_strdupv ((char **) value);
  g_strfreev (*field);
  *field = copy;
  return TRUE;
}

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
  g_autoptr(GList) members = json_object_get_members (from);

  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *member = l->data;

      if (known != NULL && g_strv_contains (known, member))
        continue;

      json_object_set_member (to, member,
                              json_node_copy (json_object_get_member (from, member)));
    }
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

static char *
read_string_member (JsonObject *object,
                    const char *member,
                    const char *where,
                    GPtrArray  *problems)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("");

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));

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
  JsonNode *node = json_object_get_member (object, member);
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (g_free);

  if (node != NULL &&
      !JSON_NODE_HOLDS_NULL (node) &&
      (!JSON_NODE_HOLDS_ARRAY (node) || !collect_strings (node, out, 0)))
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
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;

  if (JSON_NODE_HOLDS_OBJECT (node))
    return json_node_get_object (node);

  add_problem (problems, _("“%s” must be an object"), where);
  return NULL;
}

static gboolean
read_number (JsonObject *object,
             const char *member,
             double     *value)
{
  JsonNode *node = json_object_get_member (object, member);
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type != G_TYPE_DOUBLE && type != G_TYPE_INT64)
    return FALSE;

  *value = json_node_get_double (node);
  return TRUE;
}

static void
sk_node_dispose (GObject *object)
{
  SkNode *self = (SkNode *)object;

  g_clear_pointer (&self->extra, json_object_unref);
  g_clear_pointer (&self->input_extra, json_object_unref);
  g_clear_pointer (&self->output_extra, json_object_unref);
  g_clear_pointer (&self->skele_extra, json_object_unref);

  G_OBJECT_CLASS (sk_node_parent_class)->dispose (object);
}

static void
sk_node_finalize (GObject *object)
{
  SkNode *self = (SkNode *)object;

  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->key, g_free);
  g_clear_pointer (&self->description, g_free);
  g_clear_pointer (&self->priors, g_strfreev);
  g_clear_pointer (&self->input_text, g_free);
  g_clear_pointer (&self->input_files, g_strfreev);
  g_clear_pointer (&self->output_text, g_free);
  g_clear_pointer (&self->output_files, g_strfreev);
  g_clear_pointer (&self->error_text, g_free);
  g_clear_pointer (&self->error_detail, g_free);

  G_OBJECT_CLASS (sk_node_parent_class)->finalize (object);
}

static void
sk_node_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  SkNode *self = SK_NODE (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;

    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;

    case PROP_KEY:
      g_value_set_string (value, self->key);
      break;

    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;

    case PROP_PRIORS:
      g_value_set_boxed (value, self->priors);
      break;

    case PROP_RUN:
      g_value_set_boolean (value, self->run);
      break;

    case PROP_INPUT_TEXT:
      g_value_set_string (value, self->input_text);
      break;

    case PROP_INPUT_FILES:
      g_value_set_boxed (value, self->input_files);
      break;

    case PROP_OUTPUT_TEXT:
      g_value_set_string (value, self->output_text);
      break;

    case PROP_OUTPUT_FILES:
      g_value_set_boxed (value, self->output_files);
      break;

    case PROP_X:
      g_value_set_double (value, self->x);
      break;

    case PROP_Y:
      g_value_set_double (value, self->y);
      break;

    case PROP_HAS_POSITION:
      g_value_set_boolean (value, self->has_position);
      break;

    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;

    case PROP_ERROR_TEXT:
      g_value_set_string (value, self->error_text);
      break;

    case PROP_ERROR_DETAIL:
      g_value_set_string (value, self->error_detail);
      break;

    case PROP_TOKENS:
      {
        guint64 prompt, completion;

        sk_node_get_tokens (self, &prompt, &completion);
        g_value_set_uint64 (value, prompt + completion);
      }
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_node_set_property (GObject      *object,
                      guint         prop_id,
                      const GValue *value,
                      GParamSpec   *pspec)
{
  SkNode *self = SK_NODE (object);

  switch (prop_id)
    {
    case PROP_ID:
      self->id = g_value_dup_string (value);
      break;

    case PROP_NAME:
      sk_node_set_name (self, g_value_get_string (value));
      break;

    case PROP_DESCRIPTION:
      sk_node_set_description (self, g_value_get_string (value));
      break;

    case PROP_PRIORS:
      sk_node_set_priors (self, g_value_get_boxed (value));
      break;

    case PROP_RUN:
      sk_node_set_run (self, g_value_get_boolean (value));
      break;

    case PROP_INPUT_TEXT:
      sk_node_set_input_text (self, g_value_get_string (value));
      break;

    case PROP_INPUT_FILES:
      sk_node_set_input_files (self, g_value_get_boxed (value));
      break;

    case PROP_OUTPUT_TEXT:
      sk_node_set_output_text (self, g_value_get_string (value));
      break;

    case PROP_OUTPUT_FILES:
      sk_node_set_output_files (self, g_value_get_boxed (value));
      break;

    case PROP_X:
      sk_node_set_position (self, g_value_get_double (value), self->y);
      break;

    case PROP_Y:
      sk_node_set_position (self, self->x, g_value_get_double (value));
      break;

    case PROP_STATE:
      sk_node_set_state (self, g_value_get_enum (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_node_class_init (SkNodeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sk_node_dispose;
  object_class->finalize = sk_node_finalize;
  object_class->get_property = sk_node_get_property;
  object_class->set_property = sk_node_set_property;

  properties [PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  properties [PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, "",
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_KEY] =
    g_param_spec_string ("key", NULL, NULL, "",
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties [PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, "",
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_PRIORS] =
    g_param_spec_boxed ("priors", NULL, NULL, G_TYPE_STRV,
                        (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_RUN] =
    g_param_spec_boolean ("run", NULL, NULL, TRUE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_INPUT_TEXT] =
    g_param_spec_string ("input-text", NULL, NULL, "",
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_INPUT_FILES] =
    g_param_spec_boxed ("input-files", NULL, NULL, G_TYPE_STRV,
                        (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_OUTPUT_TEXT] =
    g_param_spec_string ("output-text", NULL, NULL, "",
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_OUTPUT_FILES] =
    g_param_spec_boxed ("output-files", NULL, NULL, G_TYPE_STRV,
                        (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_X] =
    g_param_spec_double ("x", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_Y] =
    g_param_spec_double ("y", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_HAS_POSITION] =
    g_param_spec_boolean ("has-position", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties [PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, SK_TYPE_NODE_STATE, SK_NODE_STATE_IDLE,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_ERROR_TEXT] =
    g_param_spec_string ("error-text", NULL, NULL, NULL,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties [PROP_ERROR_DETAIL] =
    g_param_spec_string ("error-detail", NULL, NULL, NULL,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /* The tokens the coding agent used for this node, in all its calls. */
  properties [PROP_TOKENS] =
    g_param_spec_uint64 ("tokens", NULL, NULL, 0, G_MAXUINT64, 0,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkNode::changed:
   *
   * Emitted after any change to what is saved in the workflow file, so that
   * observers can mark the workflow modified and the node stale. Changes of
   * the run state and error text are not saved and do not emit it.
   */
  signals [CHANGED] =
    g_signal_new ("changed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
sk_node_init (SkNode *self)
{
  self->name = g_strdup ("");
  self->key = g_strdup ("");
  self->description = g_strdup ("");
  self->priors = g_new0 (char *, 1);
  self->input_text = g_strdup ("");
  self->input_files = g_new0 (char *, 1);
  self->output_text = g_strdup ("");
  self->output_files = g_new0 (char *, 1);
  self->run = TRUE;
  self->state = SK_NODE_STATE_IDLE;
  self->extra = json_object_new ();
  self->input_extra = json_object_new ();
  self->output_extra = json_object_new ();
  self->skele_extra = json_object_new ();
}

/**
 * sk_node_new:
 * @id: the node's identifier in the workflow's "nodes" object
 * @name: (nullable): the name shown to the user
 *
 * Returns: (transfer full): a new node
 */
SkNode *
sk_node_new (const char *id,
             const char *name)
{
  SkNode *self;

  g_return_val_if_fail (id != NULL, NULL);

  self = g_object_new (SK_TYPE_NODE, "id", id, NULL);
  sk_node_set_name (self, name);
  return self;
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
  JsonNode *run_node;
  gboolean run = TRUE;
  double x = 0, y = 0;

  g_return_if_fail (SK_IS_NODE (self));
  g_return_if_fail (object != NULL);

  if (!json_object_has_member (object, "name"))
    add_problem (problems, _("it has no “name”"));

  name = read_string_member (object, "name", "name", problems);
  description = read_string_member (object, "description", "description", problems);
  priors = read_strv_member (object, "priors", "priors", problems);

  run_node = json_object_get_member (object, "run");
  if (run_node != NULL && !JSON_NODE_HOLDS_NULL (run_node))
    {
      if (JSON_NODE_HOLDS_VALUE (run_node) &&
          json_node_get_value_type (run_node) == G_TYPE_BOOLEAN)
        run = json_node_get_boolean (run_node);
      else
        add_problem (problems, _("“run” must be true or false"));
    }

  input = read_object_member (object, "input", "input", problems);
  output = read_object_member (object, "output", "output", problems);
  skele = read_object_member (object, "skele", "skele", problems);

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
  self->extra = json_object_new ();
  copy_unknown_members (object, self->extra, known_node_members);

  old_input_extra = g_steal_pointer (&self->input_extra);
  self->input_extra = json_object_new ();
  if (input != NULL)
    copy_unknown_members (input, self->input_extra, (const char * const[]) { "text", "files", NULL });

  old_output_extra = g_steal_pointer (&self->output_extra);
  self->output_extra = json_object_new ();
  if (output != NULL)
    copy_unknown_members (output, self->output_extra, (const char * const[]) { "text", "files", NULL });

  old_skele_extra = g_steal_pointer (&self->skele_extra);
  self->skele_extra = json_object_new ();
  if (skele != NULL)
    {
      copy_unknown_members (skele, self->skele_extra, (const char * const[]) { "x", "y", NULL });

      if (read_number (skele, "x", &x) && read_number (skele, "y", &y))
        sk_node_set_position (self, x, y);
    }

  /* Unknown members are saved too, so a change to them alone is a change. */
  if (!json_object_equal (old_extra, self->extra) ||
      !json_object_equal (old_input_extra, self->input_extra) ||
      !json_object_equal (old_output_extra, self->output_extra) ||
      !json_object_equal (old_skele_extra, self->skele_extra))
    g_signal_emit (self, signals [CHANGED], 0);

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
          json_object_set_double_member (skele, "x", self->x);
          json_object_set_double_member (skele, "y", self->y);
        }

      copy_unknown_members (self->skele_extra, skele, NULL);
      json_object_set_object_member (object, "skele", skele);
    }

  return object;
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
  JsonNode *node = tokens != NULL ? json_object_get_member (tokens, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return 0;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return MAX (json_node_get_int (node), 0);
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return MAX (json_node_get_double (node), 0);
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
  JsonNode *node;
  JsonObject *tokens = NULL;

  g_return_if_fail (SK_IS_NODE (self));

  node = _sk_node_get_skele_member (self, "tokens");
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    tokens = json_node_get_object (node);

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

  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_TOKENS]);
  g_signal_emit (self, signals [CHANGED], 0);
}

const char *
sk_node_get_id (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  return self->id;
}

/**
 * sk_node_get_key:
 * @self: a #SkNode
 *
 * The key names the node's folder and script. It is derived from the name;
 * see sk_node_key_from_name().
 *
 * Returns: the node's key, empty when the name has no letters or digits
 */
const char *
sk_node_get_key (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  return self->key;
}

const char *
sk_node_get_name (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  return self->name;
}

void
sk_node_set_name (SkNode     *self,
                  const char *name)
{
  g_autofree char *key = NULL;

  g_return_if_fail (SK_IS_NODE (self));

  if (!set_string (&self->name, name))
    return;

  key = sk_node_key_from_name (self->name);
  if (set_string (&self->key, key))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_KEY]);

  emit_changed (self, properties [PROP_NAME]);
}

const char *
sk_node_get_description (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  return self->description;
}

void
sk_node_set_description (SkNode     *self,
                         const char *description)
{
  g_return_if_fail (SK_IS_NODE (self));

  if (set_string (&self->description, description))
    emit_changed (self, properties [PROP_DESCRIPTION]);
}

/**
 * sk_node_get_priors:
 * @self: a #SkNode
 *
 * Returns: (transfer none): the identifiers of the nodes whose results this
 *   node needs
 */
const char * const *
sk_node_get_priors (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  return (const char * const *) self->priors;
}

void
sk_node_set_priors (SkNode             *self,
                    const char * const *priors)
{
  g_return_if_fail (SK_IS_NODE (self));

  if (set_strv (&self->priors, priors))
    emit_changed (self, properties [PROP_PRIORS]);
}

gboolean
sk_node_has_prior (SkNode     *self,
                   const char *id)
{
  g_return_val_if_fail (SK_IS_NODE (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);

  return g_strv_contains ((const char * const *) self->priors, id);
}

gboolean
sk_node_add_prior (SkNode     *self,
                   const char *id)
{
  guint length;

  g_return_val_if_fail (SK_IS_NODE (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);

  if (sk_node_has_prior (self, id))
    return FALSE;

  length = g_strv_length (self->priors);
  self->priors = g_renew (char *, self->priors, length + 2);
  self->priors[length] = g_strdup (id);
  self->priors[length + 1] = NULL;

  emit_changed (self, properties [PROP_PRIORS]);
  return TRUE;
}

gboolean
sk_node_remove_prior (SkNode     *self,
                      const char *id)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) priors = NULL;

  g_return_val_if_fail (SK_IS_NODE (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);

  if (!sk_node_has_prior (self, id))
    return FALSE;

  builder = g_strv_builder_new ();
  for (guint i = 0; self->priors[i] != NULL; i++)
    {
      if (g_strcmp0 (self->priors[i], id) != 0)
        g_strv_builder_add (builder, self->priors[i]);
    }

  priors = g_strv_builder_end (builder);
  sk_node_set_priors (self, (const char * const *) priors);
  return TRUE;
}

gboolean
sk_node_get_run (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), FALSE);

  return self->run;
}

void
sk_node_set_run (SkNode   *self,
                 gboolean  run)
{
  g_return_if_fail (SK_IS_NODE (self));

  run = !!run;
  if (self->run == run)
    return;

  self->run = run;
  emit_changed (self, properties [PROP_RUN]);
}

const char *
sk_node_get_input_text (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  return self->input_text;
}

void
sk_node_set_input_text (SkNode     *self,
                        const char *text)
{
  g_return_if_fail (SK_IS_NODE (self));

  if (set_string (&self->input_text, text))
    emit_changed (self, properties [PROP_INPUT_TEXT]);
}

/**
 * sk_node_get_input_files:
 * @self: a #SkNode
 *
 * Returns: (transfer none): the attached files, relative to the node's folder
 *   unless absolute
 */
const char * const *
sk_node_get_input_files (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  return (const char * const *) self->input_files;
}

void
sk_node_set_input_files (SkNode             *self,
                         const char * const *files)
{
  g_return_if_fail (SK_IS_NODE (self));

  if (set_strv (&self->input_files, files))
    emit_changed (self, properties [PROP_INPUT_FILES]);
}

const char *
sk_node_get_output_text (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  return self->output_text;
}

void
sk_node_set_output_text (SkNode     *self,
                         const char *text)
{
  g_return_if_fail (SK_IS_NODE (self));

  if (set_string (&self->output_text, text))
    emit_changed (self, properties [PROP_OUTPUT_TEXT]);
}

/**
 * sk_node_get_output_files:
 * @self: a #SkNode
 *
 * Returns: (transfer none): the files the last run created or changed,
 *   relative to the node's folder
 */
const char * const *
sk_node_get_output_files (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  return (const char * const *) self->output_files;
}

void
sk_node_set_output_files (SkNode             *self,
                          const char * const *files)
{
  g_return_if_fail (SK_IS_NODE (self));

  if (set_strv (&self->output_files, files))
    emit_changed (self, properties [PROP_OUTPUT_FILES]);
}

/**
 * sk_node_get_position:
 * @self: a #SkNode
 * @x: (out) (optional): the canvas x coordinate
 * @y: (out) (optional): the canvas y coordinate
 *
 * Returns: %TRUE if the node has been placed on the canvas
 */
gboolean
sk_node_get_position (SkNode *self,
                      double *x,
                      double *y)
{
  g_return_val_if_fail (SK_IS_NODE (self), FALSE);

  if (x != NULL)
    *x = self->x;
  if (y != NULL)
    *y = self->y;

  return self->has_position;
}

void
sk_node_set_position (SkNode *self,
                      double  x,
                      double  y)
{
  gboolean had_position;

  g_return_if_fail (SK_IS_NODE (self));

  had_position = self->has_position;
  if (had_position && self->x == x && self->y == y)
    return;

  g_object_freeze_notify (G_OBJECT (self));

  self->has_position = TRUE;
  if (!had_position)
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_HAS_POSITION]);

  if (self->x != x)
    {
      self->x = x;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_X]);
    }

  if (self->y != y)
    {
      self->y = y;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_Y]);
    }

  g_object_thaw_notify (G_OBJECT (self));
  g_signal_emit (self, signals [CHANGED], 0);
}

SkNodeState
sk_node_get_state (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), SK_NODE_STATE_IDLE);

  return self->state;
}

void
sk_node_set_state (SkNode      *self,
                   SkNodeState  state)
{
  g_return_if_fail (SK_IS_NODE (self));

  if (self->state == state)
    return;

  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_STATE]);
}

/**
 * sk_node_get_error_text:
 * @self: a #SkNode
 *
 * Returns: (nullable): why the last run failed, in one line
 */
const char *
sk_node_get_error_text (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  return self->error_text;
}

/**
 * sk_node_get_error_detail:
 * @self: a #SkNode
 *
 * Returns: (nullable): the traceback and the end of the error output of the
 *   last failed run
 */
const char *
sk_node_get_error_detail (SkNode *self)
{
  g_return_val_if_fail (SK_IS_NODE (self), NULL);

  return self->error_detail;
}

void
sk_node_set_error (SkNode     *self,
                   const char *text,
                   const char *detail)
{
  g_return_if_fail (SK_IS_NODE (self));

  if (g_strcmp0 (self->error_text, text) != 0)
    {
      g_free (self->error_text);
      self->error_text = g_strdup (text);
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_ERROR_TEXT]);
    }

  if (g_strcmp0 (self->error_detail, detail) != 0)
    {
      g_free (self->error_detail);
      self->error_detail = g_strdup (detail);
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_ERROR_DETAIL]);
    }
}

/**
 * sk_node_state_to_string:
 * @state: a #SkNodeState
 *
 * Returns: the state's machine-readable name, as in `skele run --events json`
 */
const char *
sk_node_state_to_string (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_IDLE: return "idle";
    case SK_NODE_STATE_STALE: return "stale";
    case SK_NODE_STATE_QUEUED: return "queued";
    case SK_NODE_STATE_RUNNING: return "running";
    case SK_NODE_STATE_SUCCEEDED: return "succeeded";
    case SK_NODE_STATE_FAILED: return "failed";
    case SK_NODE_STATE_SKIPPED: return "skipped";
    case SK_NODE_STATE_CANCELLED: return "cancelled";
    case SK_NODE_STATE_UP_TO_DATE: return "up-to-date";
    case SK_NODE_STATE_WRITING_CODE: return "writing-code";
    default: return "unknown";
    }
}

/**
 * sk_node_state_describe:
 * @state: a #SkNodeState
 *
 * Returns: the state in the user's language
 */
const char *
sk_node_state_describe (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_IDLE: return _("Not run yet");
    case SK_NODE_STATE_STALE: return _("Changed since its last run");
    case SK_NODE_STATE_QUEUED: return _("Waiting");
    case SK_NODE_STATE_RUNNING: return _("Running");
    case SK_NODE_STATE_SUCCEEDED: return _("Succeeded");
    case SK_NODE_STATE_FAILED: return _("Failed");
    case SK_NODE_STATE_SKIPPED: return _("Skipped");
    case SK_NODE_STATE_CANCELLED: return _("Stopped");
    case SK_NODE_STATE_UP_TO_DATE: return _("Up to date");
    case SK_NODE_STATE_WRITING_CODE: return _("Writing code");
    default: return "";
    }
}

/**
 * sk_node_state_is_finished:
 * @state: a #SkNodeState
 *
 * Returns: %TRUE if @state ends a node's part in a run
 */
gboolean
sk_node_state_is_finished (SkNodeState state)
{
  return state == SK_NODE_STATE_SUCCEEDED ||
         state == SK_NODE_STATE_FAILED ||
         state == SK_NODE_STATE_SKIPPED ||
         state == SK_NODE_STATE_CANCELLED ||
         state == SK_NODE_STATE_UP_TO_DATE;
}

/**
 * sk_node_key_from_name:
 * @name: a node's name
 *
 * Derives the key that names a node's folder and script: the name in lower
 * case, each run of characters other than a–z and 0–9 replaced by one
 * underscore, with leading and trailing underscores removed.
 *
 * Returns: (transfer full): the key, empty if @name has no letters or digits
 */
char *
sk_node_key_from_name (const char *name)
{
  GString *key;
  gboolean pending_separator = FALSE;

  g_return_val_if_fail (name != NULL, NULL);

  key = g_string_new (NULL);

  for (const char *p = name; *p != '\0'; p++)
    {
      char c = g_ascii_tolower (*p);

      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
        {
          if (pending_separator && key->len > 0)
            g_string_append_c (key, '_');
          pending_separator = FALSE;
          g_string_append_c (key, c);
        }
      else
        {
          pending_separator = TRUE;
        }
    }

  return g_string_free (key, FALSE);
}
