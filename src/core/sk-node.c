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

/* A step of the workflow: its properties and state. Reading and writing it
 * as JSON is in sk-node-json.c. */

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

/* Emits #SkNode::changed for what is saved in the workflow file but shown by
 * no property, such as members this program does not know.
 */
void
_sk_node_emit_changed (SkNode *self)
{
  g_return_if_fail (SK_IS_NODE (self));

  g_signal_emit (self, signals [CHANGED], 0);
}

/* Tells that the token counts kept in the "skele" member changed. */
void
_sk_node_tokens_changed (SkNode *self)
{
  g_return_if_fail (SK_IS_NODE (self));

  emit_changed (self, properties [PROP_TOKENS]);
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
    case SK_NODE_STATE_NO_CODE: return "no-code";
    case SK_NODE_STATE_AWAITING_APPROVAL: return "awaiting-approval";
    default: return "unknown";
    }
}

/**
 * sk_node_state_color:
 * @state: a #SkNodeState
 *
 * Returns: the state's colour in the canvas's light palette (state_color()
 *   in src/ui/sk-canvas-paint.c), as "#rrggbb", for the exported pictures
 *   and reports
 */
const char *
sk_node_state_color (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_STALE:
      return "#e5a50a";
    case SK_NODE_STATE_QUEUED:
      return "#99c1f1";
    case SK_NODE_STATE_RUNNING:
      return "#3584e4";
    case SK_NODE_STATE_WRITING_CODE:
      return "#9141ac";
    case SK_NODE_STATE_SUCCEEDED:
      return "#2ec27e";
    case SK_NODE_STATE_FAILED:
      return "#e01b24";
    case SK_NODE_STATE_SKIPPED:
    case SK_NODE_STATE_CANCELLED:
      return "#9a9996";
    case SK_NODE_STATE_UP_TO_DATE:
      return "#8ff0a4";
    case SK_NODE_STATE_AWAITING_APPROVAL:
      return "#ff7800";
    case SK_NODE_STATE_NO_CODE:
    case SK_NODE_STATE_IDLE:
    default:
      return "#c0bfbc";
    }
}

/**
 * sk_node_state_label:
 * @state: a #SkNodeState
 *
 * Returns: the state in a few words of the user's language, as the canvas
 *   and the exported pictures write it under a step's name
 */
const char *
sk_node_state_label (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_STALE:
      return _("Needs to run again");
    case SK_NODE_STATE_QUEUED:
      return _("Waiting");
    case SK_NODE_STATE_RUNNING:
      return _("Running…");
    case SK_NODE_STATE_WRITING_CODE:
      return _("Writing code…");
    case SK_NODE_STATE_SUCCEEDED:
      return _("Succeeded");
    case SK_NODE_STATE_FAILED:
      return _("Failed");
    case SK_NODE_STATE_SKIPPED:
      return _("Skipped");
    case SK_NODE_STATE_CANCELLED:
      return _("Stopped");
    case SK_NODE_STATE_UP_TO_DATE:
      return _("Up to date");
    case SK_NODE_STATE_NO_CODE:
      return _("No code yet");
    case SK_NODE_STATE_AWAITING_APPROVAL:
      return _("Waiting for approval");
    case SK_NODE_STATE_IDLE:
    default:
      return _("Not run yet");
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
    case SK_NODE_STATE_NO_CODE: return _("No code yet");
    case SK_NODE_STATE_AWAITING_APPROVAL: return _("Waiting for approval");
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
         state == SK_NODE_STATE_UP_TO_DATE ||
         state == SK_NODE_STATE_NO_CODE ||
         state == SK_NODE_STATE_AWAITING_APPROVAL;
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
