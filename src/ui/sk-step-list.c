/* sk-step-list.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-step-list"

#include "config.h"

#include <glib/gi18n.h>

#include "sk-output-cell.h"
#include "sk-step-list.h"

/* The steps of the workflow as a list beside the canvas: the canvas's
 * accessible counterpart, sharing its selection. */

struct _SkStepList
{
  GtkWidget          parent_instance;

  SkProject         *project;
  GtkSelectionModel *selection;

  GtkListView       *list_view;
  GtkLabel          *tokens_label;
};

G_DEFINE_FINAL_TYPE (SkStepList, sk_step_list, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_SELECTION,
  N_PROPS
};

enum {
  ACTIVATE,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

static const char *
state_icon_name (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_STALE:
      return "view-refresh-symbolic";
    case SK_NODE_STATE_QUEUED:
      return "content-loading-symbolic";
    case SK_NODE_STATE_RUNNING:
      return "media-playback-start-symbolic";
    case SK_NODE_STATE_WRITING_CODE:
    case SK_NODE_STATE_NO_CODE:
      return "document-edit-symbolic";
    case SK_NODE_STATE_SUCCEEDED:
    case SK_NODE_STATE_UP_TO_DATE:
      return "emblem-ok-symbolic";
    case SK_NODE_STATE_FAILED:
      return "dialog-error-symbolic";
    case SK_NODE_STATE_SKIPPED:
      return "media-skip-forward-symbolic";
    case SK_NODE_STATE_CANCELLED:
      return "process-stop-symbolic";
    case SK_NODE_STATE_AWAITING_APPROVAL:
      return "dialog-question-symbolic";
    case SK_NODE_STATE_IDLE:
    default:
      return "media-record-symbolic";
    }
}

static void
update_row (GtkListItem *list_item)
{
  SkNode *node = gtk_list_item_get_item (list_item);
  GtkWidget *box = gtk_list_item_get_child (list_item);
  GtkWidget *icon = gtk_widget_get_first_child (box);
  GtkWidget *label = gtk_widget_get_next_sibling (icon);
  GtkWidget *mark = gtk_widget_get_next_sibling (label);
  SkNodeState state;
  g_autofree char *description = NULL;

  if (node == NULL)
    return;

  state = sk_node_get_state (node);
  gtk_image_set_from_icon_name (GTK_IMAGE (icon), state_icon_name (state));
  gtk_label_set_text (GTK_LABEL (label), sk_node_get_name (node));
  gtk_widget_set_visible (mark, sk_node_get_run (node));

  description = g_strdup_printf ("%s%s", sk_node_state_describe (state),
                                 sk_node_get_run (node) ? _(", marked to run") : "");
  gtk_widget_set_tooltip_text (box, description);
  gtk_accessible_update_property (GTK_ACCESSIBLE (box),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
}

static void
row_setup_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *list_item)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *icon = gtk_image_new ();
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *mark = gtk_image_new_from_icon_name ("object-select-symbolic");

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_add_css_class (mark, "run-mark");
  gtk_widget_set_tooltip_text (mark, _("Marked to run"));
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), mark);
  gtk_list_item_set_child (list_item, box);
}

static void
row_bind_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *list_item)
{
  SkNode *node = gtk_list_item_get_item (list_item);

  g_signal_connect_object (node, "notify::name", G_CALLBACK (update_row), list_item, G_CONNECT_SWAPPED);
  g_signal_connect_object (node, "notify::state", G_CALLBACK (update_row), list_item, G_CONNECT_SWAPPED);
  g_signal_connect_object (node, "notify::run", G_CALLBACK (update_row), list_item, G_CONNECT_SWAPPED);
  update_row (list_item);
}

static void
row_unbind_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *list_item)
{
  SkNode *node = gtk_list_item_get_item (list_item);

  if (node != NULL)
    g_signal_handlers_disconnect_by_func (node, update_row, list_item);
}

static void
update_tokens (SkStepList *self)
{
  g_autofree char *tokens = NULL;
  g_autofree char *text = NULL;
  guint64 read = 0, written = 0;

  if (self->project != NULL)
    sk_project_get_tokens (self->project, &read, &written);

  gtk_widget_set_visible (GTK_WIDGET (self->tokens_label), read > 0 || written > 0);
  if (read == 0 && written == 0)
    return;

  tokens = sk_output_cell_describe_tokens (read, written);
  /* Translators: %s is the tokens the coding agent used for every step of
   * the workflow, as in “1 234 tokens read, 567 written”. */
  text = g_strdup_printf (_("All steps: %s"), tokens);
  gtk_label_set_label (self->tokens_label, text);
}

static void
watch_tokens (SkStepList *self,
              guint       position,
              guint       added)
{
  for (guint i = 0; i < added; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->project), position + i);

      g_signal_handlers_disconnect_by_func (node, update_tokens, self);
      g_signal_connect_object (node, "notify::tokens", G_CALLBACK (update_tokens), self, G_CONNECT_SWAPPED);
    }
}

static void
project_items_changed_cb (SkStepList *self,
                          guint       position,
                          guint       removed,
                          guint       added)
{
  watch_tokens (self, position, added);
  update_tokens (self);
}

static void
list_activate_cb (SkStepList *self,
                  guint       position)
{
  g_autoptr(SkNode) node = NULL;

  if (self->project == NULL)
    return;

  node = g_list_model_get_item (G_LIST_MODEL (self->project), position);
  if (node != NULL)
    g_signal_emit (self, signals [ACTIVATE], 0, node);
}

static void selection_changed_cb (SkStepList *self);

static void
sk_step_list_dispose (GObject *object)
{
  SkStepList *self = SK_STEP_LIST (object);
  GtkWidget *child;

  sk_step_list_set_project (self, NULL);
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_func (self->selection, selection_changed_cb, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), SK_TYPE_STEP_LIST);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->selection);

  G_OBJECT_CLASS (sk_step_list_parent_class)->dispose (object);
}

static void
sk_step_list_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  SkStepList *self = SK_STEP_LIST (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;

    case PROP_SELECTION:
      g_value_set_object (value, self->selection);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_step_list_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  SkStepList *self = SK_STEP_LIST (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      sk_step_list_set_project (self, g_value_get_object (value));
      break;

    case PROP_SELECTION:
      sk_step_list_set_selection (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_step_list_class_init (SkStepListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sk_step_list_dispose;
  object_class->get_property = sk_step_list_get_property;
  object_class->set_property = sk_step_list_set_property;

  properties [PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, SK_TYPE_PROJECT,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_SELECTION] =
    g_param_spec_object ("selection", NULL, NULL, GTK_TYPE_SELECTION_MODEL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkStepList::activate:
   * @self: the list
   * @node: the step whose row was activated
   */
  signals [ACTIVATE] =
    g_signal_new ("activate",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, SK_TYPE_NODE);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/skelecode/SkeleCode/sk-step-list.ui");
  gtk_widget_class_bind_template_child (widget_class, SkStepList, list_view);
  gtk_widget_class_bind_template_child (widget_class, SkStepList, tokens_label);
  gtk_widget_class_bind_template_callback (widget_class, list_activate_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "steplist");
}

static void
sk_step_list_init (SkStepList *self)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);

  g_signal_connect (factory, "setup", G_CALLBACK (row_setup_cb), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (row_bind_cb), NULL);
  g_signal_connect (factory, "unbind", G_CALLBACK (row_unbind_cb), NULL);
  gtk_list_view_set_factory (self->list_view, factory);
}

GtkWidget *
sk_step_list_new (void)
{
  return g_object_new (SK_TYPE_STEP_LIST, NULL);
}

/**
 * sk_step_list_get_project:
 * @self: a #SkStepList
 *
 * Returns: (transfer none) (nullable): the workflow whose token total is
 *   shown
 */
SkProject *
sk_step_list_get_project (SkStepList *self)
{
  g_return_val_if_fail (SK_IS_STEP_LIST (self), NULL);

  return self->project;
}

/**
 * sk_step_list_set_project:
 * @self: a #SkStepList
 * @project: (nullable): the workflow whose token total to show
 */
void
sk_step_list_set_project (SkStepList *self,
                          SkProject  *project)
{
  g_return_if_fail (SK_IS_STEP_LIST (self));
  g_return_if_fail (project == NULL || SK_IS_PROJECT (project));

  if (self->project == project)
    return;

  if (self->project != NULL)
    {
      guint n_nodes = g_list_model_get_n_items (G_LIST_MODEL (self->project));

      for (guint i = 0; i < n_nodes; i++)
        {
          g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->project), i);

          g_signal_handlers_disconnect_by_func (node, update_tokens, self);
        }
      g_signal_handlers_disconnect_by_data (self->project, self);
    }

  g_set_object (&self->project, project);

  if (project != NULL)
    {
      g_signal_connect_object (project, "items-changed", G_CALLBACK (project_items_changed_cb), self, G_CONNECT_SWAPPED);
      watch_tokens (self, 0, g_list_model_get_n_items (G_LIST_MODEL (project)));
    }

  update_tokens (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_PROJECT]);
}

/**
 * sk_step_list_get_selection:
 * @self: a #SkStepList
 *
 * Returns: (transfer none) (nullable): the selection shown
 */
GtkSelectionModel *
sk_step_list_get_selection (SkStepList *self)
{
  g_return_val_if_fail (SK_IS_STEP_LIST (self), NULL);

  return self->selection;
}

/* A step selected elsewhere, as by finding it on the canvas, is brought
 * into view in the list too. */
static void
selection_changed_cb (SkStepList *self)
{
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (self->selection);

  if (gtk_bitset_get_size (selected) != 1 || sk_step_list_has_focus (self) ||
      !gtk_widget_get_mapped (GTK_WIDGET (self->list_view)))
    return;

  gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u",
                              gtk_bitset_get_minimum (selected));
}

/**
 * sk_step_list_set_selection:
 * @self: a #SkStepList
 * @selection: (nullable): the steps, and which of them are selected; the
 *   canvas shares it
 */
void
sk_step_list_set_selection (SkStepList        *self,
                            GtkSelectionModel *selection)
{
  g_return_if_fail (SK_IS_STEP_LIST (self));
  g_return_if_fail (selection == NULL || GTK_IS_SELECTION_MODEL (selection));

  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_func (self->selection, selection_changed_cb, self);
  if (!g_set_object (&self->selection, selection))
    return;

  if (selection != NULL)
    g_signal_connect_object (selection, "selection-changed",
                             G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
  gtk_list_view_set_model (self->list_view, selection);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SELECTION]);
}

/**
 * sk_step_list_has_focus:
 * @self: a #SkStepList
 *
 * Returns: whether the keyboard focus is in the list, so that a change of
 *   selection came from it
 */
gboolean
sk_step_list_has_focus (SkStepList *self)
{
  g_return_val_if_fail (SK_IS_STEP_LIST (self), FALSE);

  return gtk_widget_has_focus (GTK_WIDGET (self->list_view)) ||
         gtk_widget_get_focus_child (GTK_WIDGET (self->list_view)) != NULL;
}
