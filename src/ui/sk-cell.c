/* sk-cell.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-cell"

#include "config.h"

#include "sk-cell.h"

typedef struct
{
  SkProject    *project;
  SkNode       *node;
  GSignalGroup *node_signals;
} SkCellPrivate;

/**
 * SkCell:
 *
 * The abstract base of the input, output and code cells: it holds the
 * project and the node a cell shows, and follows the node's signals.
 * Escape in a cell, when nothing inside it uses the key, activates the
 * `win.focus-canvas` action.
 */
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (SkCell, sk_cell, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_NODE,
  N_PROPS
};

enum {
  MESSAGE,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

/* Escape that nothing inside the cell used, as a popover closing or the
 * code view ending its editing do, gives the canvas the keyboard focus,
 * so that the keyboard is never caught in a cell. It runs in the bubble
 * phase, after the focused widget and its parents in the cell. */
static gboolean
key_pressed_cb (SkCell                *self,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                GtkEventControllerKey *controller)
{
  if (keyval != GDK_KEY_Escape || (state & gtk_accelerator_get_default_mod_mask ()) != 0)
    return GDK_EVENT_PROPAGATE;

  return gtk_widget_activate_action (GTK_WIDGET (self), "win.focus-canvas", NULL);
}

static void
sk_cell_dispose (GObject *object)
{
  SkCell *self = (SkCell *)object;
  SkCellPrivate *priv = sk_cell_get_instance_private (self);

  if (priv->node_signals != NULL)
    g_signal_group_set_target (priv->node_signals, NULL);

  g_clear_object (&priv->node_signals);
  g_clear_object (&priv->node);
  g_clear_object (&priv->project);

  G_OBJECT_CLASS (sk_cell_parent_class)->dispose (object);
}

static void
sk_cell_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  SkCell *self = SK_CELL (object);
  SkCellPrivate *priv = sk_cell_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, priv->project);
      break;

    case PROP_NODE:
      g_value_set_object (value, priv->node);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_cell_set_property (GObject      *object,
                      guint         prop_id,
                      const GValue *value,
                      GParamSpec   *pspec)
{
  SkCell *self = SK_CELL (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      sk_cell_set_project (self, g_value_get_object (value));
      break;

    case PROP_NODE:
      sk_cell_set_node (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_cell_class_init (SkCellClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sk_cell_dispose;
  object_class->get_property = sk_cell_get_property;
  object_class->set_property = sk_cell_set_property;

  properties [PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, SK_TYPE_PROJECT,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_NODE] =
    g_param_spec_object ("node", NULL, NULL, SK_TYPE_NODE,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkCell::message:
   * @self: a #SkCell
   * @text: a sentence for the user
   *
   * Emitted when something could not be done, such as attaching an
   * unreadable file, opening an output file or saving the script. The
   * window shows @text as a toast.
   */
  signals [MESSAGE] =
    g_signal_new ("message",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
sk_cell_init (SkCell *self)
{
  SkCellPrivate *priv = sk_cell_get_instance_private (self);
  GtkEventController *key;

  priv->node_signals = g_signal_group_new (SK_TYPE_NODE);

  key = gtk_event_controller_key_new ();
  g_signal_connect_object (key, "key-pressed",
                           G_CALLBACK (key_pressed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), key);
}

/**
 * sk_cell_get_project:
 * @self: a #SkCell
 *
 * Returns: (transfer none) (nullable): the project the node belongs to
 */
SkProject *
sk_cell_get_project (SkCell *self)
{
  SkCellPrivate *priv = sk_cell_get_instance_private (self);

  g_return_val_if_fail (SK_IS_CELL (self), NULL);

  return priv->project;
}

/**
 * sk_cell_set_project:
 * @self: a #SkCell
 * @project: (nullable): the project the node belongs to
 *
 * Sets the project, which gives the node's folder and script, and calls
 * #SkCellClass.project_changed when it differs from the current one.
 */
void
sk_cell_set_project (SkCell    *self,
                     SkProject *project)
{
  g_autoptr(SkProject) old_project = NULL;
  SkCellPrivate *priv = sk_cell_get_instance_private (self);

  g_return_if_fail (SK_IS_CELL (self));
  g_return_if_fail (project == NULL || SK_IS_PROJECT (project));

  if (priv->project == project)
    return;

  old_project = g_steal_pointer (&priv->project);
  priv->project = project != NULL ? g_object_ref (project) : NULL;

  if (SK_CELL_GET_CLASS (self)->project_changed != NULL)
    SK_CELL_GET_CLASS (self)->project_changed (self, old_project);

  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_PROJECT]);
}

/**
 * sk_cell_get_node:
 * @self: a #SkCell
 *
 * Returns: (transfer none) (nullable): the node the cell shows
 */
SkNode *
sk_cell_get_node (SkCell *self)
{
  SkCellPrivate *priv = sk_cell_get_instance_private (self);

  g_return_val_if_fail (SK_IS_CELL (self), NULL);

  return priv->node;
}

/**
 * sk_cell_set_node:
 * @self: a #SkCell
 * @node: (nullable): the node to show, or %NULL for the placeholder
 *
 * Sets the node, points the group from sk_cell_get_node_signals() at it
 * and calls #SkCellClass.node_changed when it differs from the current one.
 */
void
sk_cell_set_node (SkCell *self,
                  SkNode *node)
{
  g_autoptr(SkNode) old_node = NULL;
  SkCellPrivate *priv = sk_cell_get_instance_private (self);

  g_return_if_fail (SK_IS_CELL (self));
  g_return_if_fail (node == NULL || SK_IS_NODE (node));

  if (priv->node == node)
    return;

  old_node = g_steal_pointer (&priv->node);
  priv->node = node != NULL ? g_object_ref (node) : NULL;
  g_signal_group_set_target (priv->node_signals, node);

  if (SK_CELL_GET_CLASS (self)->node_changed != NULL)
    SK_CELL_GET_CLASS (self)->node_changed (self, old_node);

  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_NODE]);
}

/**
 * sk_cell_emit_message:
 * @self: a #SkCell
 * @text: a sentence for the user
 *
 * Emits #SkCell::message.
 */
void
sk_cell_emit_message (SkCell     *self,
                      const char *text)
{
  g_return_if_fail (SK_IS_CELL (self));
  g_return_if_fail (text != NULL);

  g_signal_emit (self, signals [MESSAGE], 0, text);
}

/**
 * sk_cell_get_node_signals:
 * @self: a #SkCell
 *
 * Gets the signal group that follows #SkCell:node, for subclasses to
 * connect to the node's signals in their init function.
 *
 * Returns: (transfer none): a #GSignalGroup for #SkNode
 */
GSignalGroup *
sk_cell_get_node_signals (SkCell *self)
{
  SkCellPrivate *priv = sk_cell_get_instance_private (self);

  g_return_val_if_fail (SK_IS_CELL (self), NULL);

  return priv->node_signals;
}

/**
 * sk_cell_dispose_template:
 * @self: a #SkCell
 * @widget_type: the subclass whose template to dispose
 *
 * Disconnects the node's signals, then disposes the template of
 * @widget_type. Subclasses call it from their dispose function instead of
 * gtk_widget_dispose_template().
 */
void
sk_cell_dispose_template (SkCell *self,
                          GType   widget_type)
{
  SkCellPrivate *priv = sk_cell_get_instance_private (self);

  g_return_if_fail (SK_IS_CELL (self));

  /* A node notification must not reach template children that are gone. */
  if (priv->node_signals != NULL)
    g_signal_group_set_target (priv->node_signals, NULL);

  gtk_widget_dispose_template (GTK_WIDGET (self), widget_type);
}
