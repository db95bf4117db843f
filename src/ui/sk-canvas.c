/* sk-canvas.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-canvas"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sk-canvas-private.h"

/* The widget: its properties and signals, the workflow it observes, and
 * the selection, which lives in a GtkSelectionModel over the workflow that
 * others may share. The view transform is in sk-canvas-view.c, painting in
 * sk-canvas-paint.c, the gestures in sk-canvas-tools.c and the actions in
 * sk-canvas-actions.c. */

#define GRID_COLUMNS 6

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_HISTORY,
  PROP_SELECTION,
  PROP_SELECTED_NODE,
  PROP_ZOOM,
  N_PROPS
};

enum {
  NODE_CREATED,
  NODE_ACTIVATED,
  EDIT_NODE,
  EDIT_PROCESS,
  MESSAGE,
  SELECTION_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (SkCanvas, sk_canvas, GTK_TYPE_WIDGET)

static void
item_free (gpointer data)
{
  SkCanvasItem *item = data;

  g_clear_object (&item->layout);
  _sk_canvas_item_clear_paint (item);
  g_clear_object (&item->node);
  g_free (item);
}

SkCanvasItem *
_sk_canvas_lookup_item (SkCanvas *self,
                        SkNode   *node)
{
  if (node == NULL)
    return NULL;

  return g_hash_table_lookup (self->by_node, node);
}

/* The position of @node in the workflow, which is also its position in
 * the selection model. */
gboolean
_sk_canvas_item_position (SkCanvas *self,
                          SkNode   *node,
                          guint    *position)
{
  SkCanvasItem *item = _sk_canvas_lookup_item (self, node);

  return item != NULL && g_ptr_array_find (self->items, item, position);
}

void
_sk_canvas_history_begin (SkCanvas   *self,
                          const char *label)
{
  if (self->history != NULL)
    sk_history_begin (self->history, label);
}

void
_sk_canvas_history_end (SkCanvas *self)
{
  if (self->history != NULL)
    sk_history_end (self->history);
}

void
_sk_canvas_emit_node_created (SkCanvas *self,
                              SkNode   *node)
{
  g_signal_emit (self, signals [NODE_CREATED], 0, node);
}

void
_sk_canvas_emit_node_activated (SkCanvas *self,
                                SkNode   *node)
{
  g_signal_emit (self, signals [NODE_ACTIVATED], 0, node);
}

void
_sk_canvas_emit_edit_node (SkCanvas *self,
                           SkNode   *node)
{
  g_signal_emit (self, signals [EDIT_NODE], 0, node);
}

void
_sk_canvas_emit_edit_process (SkCanvas *self)
{
  g_signal_emit (self, signals [EDIT_PROCESS], 0);
}

void
_sk_canvas_emit_message (SkCanvas   *self,
                         const char *message)
{
  g_signal_emit (self, signals [MESSAGE], 0, message);
}

void
_sk_canvas_notify_zoom (SkCanvas *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_ZOOM]);
}

void
_sk_canvas_notify_selection (SkCanvas *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SELECTION]);
}

void
_sk_canvas_update_accessible (SkCanvas *self)
{
  g_autofree char *description = NULL;

  if (self->focus != NULL)
    description = g_strdup_printf (_("Selected step: %s, %s"),
                                   sk_node_get_name (self->focus),
                                   sk_node_state_label (sk_node_get_state (self->focus)));
  else
    description = g_strdup (_("No step selected"));

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
}

void
_sk_canvas_selection_changed (SkCanvas *self)
{
  _sk_canvas_update_actions (self);
  _sk_canvas_update_accessible (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals [SELECTION_CHANGED], 0);
}

void
_sk_canvas_set_focus_node (SkCanvas *self,
                           SkNode   *node)
{
  if (self->focus == node)
    return;

  self->focus = node;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SELECTED_NODE]);
}

/* Model observation */

static void
grid_position (guint   index,
               double *x,
               double *y)
{
  *x = (index % GRID_COLUMNS) * SK_CANVAS_GRID_DX;
  *y = (index / GRID_COLUMNS) * SK_CANVAS_GRID_DY;
}

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *frame_clock,
         gpointer       user_data)
{
  SkCanvas *self = SK_CANVAS (widget);

  self->frame_time = gdk_frame_clock_get_frame_time (frame_clock);
  gtk_widget_queue_draw (widget);

  return G_SOURCE_CONTINUE;
}

static void
set_item_busy (SkCanvas     *self,
               SkCanvasItem *item,
               gboolean      busy)
{
  if (item->busy == busy)
    return;

  item->busy = busy;
  if (busy)
    self->n_busy++;
  else
    self->n_busy--;

  /* Running steps are animated only while there are any, so an idle canvas
   * draws nothing between events. */
  if (self->n_busy > 0 && self->tick_id == 0)
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), tick_cb, NULL, NULL);
  else if (self->n_busy == 0 && self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
}

static void
node_notify_cb (SkCanvas   *self,
                GParamSpec *pspec,
                SkNode     *node)
{
  SkCanvasItem *item = _sk_canvas_lookup_item (self, node);
  const char *name = pspec->name;

  if (item == NULL)
    return;

  item->serial++;
  _sk_canvas_item_changed (self, item, name);

  if (g_str_equal (name, "x") || g_str_equal (name, "y") || g_str_equal (name, "has-position"))
    {
      guint index = 0;

      if (!sk_node_get_position (node, &item->x, &item->y))
        {
          g_ptr_array_find (self->items, item, &index);
          grid_position (index, &item->x, &item->y);
        }

      /* A dragged step is drawn over the tiles, which leave it out, so
       * moving it draws none of them again. */
      if (item->moving)
        {
          _sk_canvas_tiles_index_stale (self);
          gtk_widget_queue_draw (GTK_WIDGET (self));
        }
      else
        _sk_canvas_invalidate_edges (self);
    }
  else if (g_str_equal (name, "name"))
    {
      g_clear_object (&item->layout);
      if (node == self->focus)
        _sk_canvas_update_accessible (self);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  else if (g_str_equal (name, "priors"))
    {
      if (self->edge_node == node && !sk_node_has_prior (node, sk_node_get_id (self->edge_prior)))
        {
          _sk_canvas_clear_edge_selection (self);
          _sk_canvas_update_actions (self);
        }
      _sk_canvas_proposal_base_changed (self);
      _sk_canvas_invalidate_edges (self);
    }
  else if (g_str_equal (name, "state") || g_str_equal (name, "run"))
    {
      set_item_busy (self, item, _sk_canvas_state_is_busy (sk_node_get_state (node)));
      if (node == self->focus)
        _sk_canvas_update_accessible (self);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
node_changed_cb (SkCanvas *self,
                 SkNode   *node)
{
  SkCanvasItem *item = _sk_canvas_lookup_item (self, node);

  if (item != NULL)
    _sk_canvas_node_changed (self, item);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
add_item (SkCanvas *self,
          SkNode   *node,
          guint     index)
{
  SkCanvasItem *item = g_new0 (SkCanvasItem, 1);

  item->node = g_object_ref (node);
  if (!sk_node_get_position (node, &item->x, &item->y))
    grid_position (index, &item->x, &item->y);
  g_ptr_array_insert (self->items, index, item);
  g_hash_table_insert (self->by_node, node, item);

  /* Plain connections, which remove_item() takes off: one made with
   * g_signal_connect_object() adds a weak reference to the canvas for each
   * step. A change of the step's "skele" member alone, such as a condition
   * or a gate, comes without a property's notification. */
  g_signal_connect_swapped (node, "notify", G_CALLBACK (node_notify_cb), self);
  g_signal_connect_swapped (node, "changed", G_CALLBACK (node_changed_cb), self);
  _sk_canvas_item_changed (self, item, "state");
  set_item_busy (self, item, _sk_canvas_state_is_busy (sk_node_get_state (node)));
}

/* The selection model drops a removed step's position by itself. */
static void
remove_item (SkCanvas *self,
             guint     index)
{
  SkCanvasItem *item = g_ptr_array_index (self->items, index);
  SkNode *node = item->node;

  set_item_busy (self, item, FALSE);
  g_signal_handlers_disconnect_by_data (node, self);

  _sk_canvas_forget_node (self, node);
  if (self->deferred_node == node)
    self->deferred_node = NULL;
  if (self->edge_prior == node || self->edge_node == node)
    _sk_canvas_clear_edge_selection (self);
  if (self->focus == node)
    _sk_canvas_set_focus_node (self, NULL);

  g_hash_table_remove (self->by_node, node);
  /* By its place, not by a search, which closing a workflow of many steps
   * would repeat for each of them. */
  g_ptr_array_remove_index (self->items, index);
}

/* Connected after the selection model's own handler, so that the model has
 * shifted its positions to the workflow's new ones when this runs. */
static void
items_changed_cb (SkCanvas   *self,
                  guint       position,
                  guint       removed,
                  guint       added,
                  GListModel *model)
{
  for (guint i = 0; i < removed; i++)
    remove_item (self, position);

  for (guint i = 0; i < added; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (model, position + i);

      add_item (self, node, position + i);
    }

  _sk_canvas_apply_deferred_selection (self);
  _sk_canvas_proposal_base_changed (self);
  _sk_canvas_invalidate_edges (self);
  _sk_canvas_selection_changed (self);
}

static void
disconnect_project (SkCanvas *self)
{
  if (self->project == NULL)
    return;

  _sk_canvas_abandon_drag (self);
  _sk_canvas_cancel_arrange (self);

  g_signal_handlers_disconnect_by_data (self->project, self);
  while (self->items->len > 0)
    remove_item (self, self->items->len - 1);
  self->deferred_select = FALSE;
  self->deferred_follow = FALSE;
  g_clear_object (&self->project);
}

static gboolean
project_needs_layout (SkProject *project)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (project));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      if (!sk_node_get_position (node, NULL, NULL))
        return TRUE;
    }

  return FALSE;
}

static void
dark_changed_cb (SkCanvas *self)
{
  _sk_canvas_invalidate_edges (self);
}

/* GtkWidget */

static void
sk_canvas_measure (GtkWidget      *widget,
                   GtkOrientation  orientation,
                   int             for_size,
                   int            *minimum,
                   int            *natural,
                   int            *minimum_baseline,
                   int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 240 : 160;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 800 : 480;
}

static void
sk_canvas_size_allocate (GtkWidget *widget,
                         int        width,
                         int        height,
                         int        baseline)
{
  SkCanvas *self = SK_CANVAS (widget);

  /* Until the user moves the view, it follows the window's size, so that a
   * freshly opened workflow is shown whole once the panes settle. */
  if ((self->fit_pending || self->auto_fit) && width > 0 && height > 0 && !self->arranging)
    {
      self->fit_pending = FALSE;
      _sk_canvas_fit_to_view (self);
    }

  /* The tiles do not depend on the size; the proposal's picture does. */
  g_clear_pointer (&self->proposal_cache, gsk_render_node_unref);
  gtk_widget_queue_draw (widget);
  _sk_canvas_overlays_allocate (self, width, height);

  if (self->popover != NULL)
    gtk_popover_present (GTK_POPOVER (self->popover));
}

static void
sk_canvas_css_changed (GtkWidget         *widget,
                       GtkCssStyleChange *change)
{
  SkCanvas *self = SK_CANVAS (widget);

  GTK_WIDGET_CLASS (sk_canvas_parent_class)->css_changed (widget, change);

  _sk_canvas_clear_text_caches (self);
  _sk_canvas_invalidate_edges (self);
}

/* GObject */

static void
sk_canvas_dispose (GObject *object)
{
  SkCanvas *self = SK_CANVAS (object);

  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  disconnect_project (self);
  _sk_canvas_drop_selection (self);
  g_clear_object (&self->history);
  g_clear_pointer (&self->popover, gtk_widget_unparent);
  _sk_canvas_overlays_dispose (self);
  _sk_canvas_tiles_invalidate (self);
  _sk_canvas_clear_text_caches (self);
  _sk_canvas_paint_dispose (self);

  G_OBJECT_CLASS (sk_canvas_parent_class)->dispose (object);
}

static void
sk_canvas_finalize (GObject *object)
{
  SkCanvas *self = SK_CANVAS (object);

  g_ptr_array_unref (self->items);
  g_hash_table_unref (self->by_node);
  g_clear_pointer (&self->tiles, _sk_canvas_tiles_free);
  _sk_canvas_tools_finalize (self);

  G_OBJECT_CLASS (sk_canvas_parent_class)->finalize (object);
}

static void
sk_canvas_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  SkCanvas *self = SK_CANVAS (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;

    case PROP_HISTORY:
      g_value_set_object (value, self->history);
      break;

    case PROP_SELECTION:
      g_value_set_object (value, self->selection);
      break;

    case PROP_SELECTED_NODE:
      g_value_set_object (value, self->focus);
      break;

    case PROP_ZOOM:
      g_value_set_double (value, self->zoom);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_canvas_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  SkCanvas *self = SK_CANVAS (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      sk_canvas_set_project (self, g_value_get_object (value));
      break;

    case PROP_HISTORY:
      sk_canvas_set_history (self, g_value_get_object (value));
      break;

    case PROP_SELECTION:
      sk_canvas_set_selection (self, g_value_get_object (value));
      break;

    case PROP_SELECTED_NODE:
      sk_canvas_select_node (self, g_value_get_object (value));
      break;

    case PROP_ZOOM:
      sk_canvas_set_zoom (self, g_value_get_double (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_canvas_class_init (SkCanvasClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sk_canvas_dispose;
  object_class->finalize = sk_canvas_finalize;
  object_class->get_property = sk_canvas_get_property;
  object_class->set_property = sk_canvas_set_property;

  widget_class->snapshot = _sk_canvas_overlays_snapshot;
  widget_class->measure = sk_canvas_measure;
  widget_class->size_allocate = sk_canvas_size_allocate;
  widget_class->css_changed = sk_canvas_css_changed;

  properties [PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL,
                         SK_TYPE_PROJECT,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties [PROP_HISTORY] =
    g_param_spec_object ("history", NULL, NULL,
                         SK_TYPE_HISTORY,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SkCanvas:selection:
   *
   * Which steps are selected: a selection model over the workflow, listing
   * its steps in its order. Unless one is set, the canvas makes its own.
   */
  properties [PROP_SELECTION] =
    g_param_spec_object ("selection", NULL, NULL,
                         GTK_TYPE_SELECTION_MODEL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties [PROP_SELECTED_NODE] =
    g_param_spec_object ("selected-node", NULL, NULL,
                         SK_TYPE_NODE,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties [PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL,
                         SK_CANVAS_LEAST_ZOOM, SK_CANVAS_MAX_ZOOM, 1.0,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkCanvas::node-created:
   * @self: a #SkCanvas
   * @node: the new step
   *
   * Emitted when the user adds a step, so that its task can be typed at once.
   */
  signals [NODE_CREATED] =
    g_signal_new ("node-created", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, SK_TYPE_NODE);

  signals [NODE_ACTIVATED] =
    g_signal_new ("node-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, SK_TYPE_NODE);

  signals [EDIT_NODE] =
    g_signal_new ("edit-node", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, SK_TYPE_NODE);

  signals [EDIT_PROCESS] =
    g_signal_new ("edit-process", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * SkCanvas::message:
   * @self: a #SkCanvas
   * @message: a sentence for the user, such as why an edge was refused
   */
  signals [MESSAGE] =
    g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  signals [SELECTION_CHANGED] =
    g_signal_new ("selection-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  _sk_canvas_class_actions_init (klass);

  gtk_widget_class_set_css_name (widget_class, "workflowcanvas");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sk_canvas_init (SkCanvas *self)
{
  self->items = g_ptr_array_new_with_free_func (item_free);
  self->by_node = g_hash_table_new (NULL, NULL);
  self->tiles = _sk_canvas_tiles_new ();
  self->owns_selection = TRUE;
  self->zoom = 1.0;
  self->offset_x = 120;
  self->offset_y = 80;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_focus_on_click (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);

  _sk_canvas_tools_init (self);

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark", G_CALLBACK (dark_changed_cb), self, G_CONNECT_SWAPPED);

  self->popover = gtk_popover_menu_new_from_model (NULL);
  gtk_widget_set_parent (self->popover, GTK_WIDGET (self));
  gtk_popover_set_has_arrow (GTK_POPOVER (self->popover), TRUE);
  _sk_canvas_overlays_init (self);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Workflow canvas"),
                                  -1);
  _sk_canvas_update_actions (self);
}

/* Public API */

GtkWidget *
sk_canvas_new (void)
{
  return g_object_new (SK_TYPE_CANVAS, NULL);
}

/**
 * sk_canvas_get_project:
 * @self: a #SkCanvas
 *
 * Returns: (transfer none) (nullable): the workflow shown
 */
SkProject *
sk_canvas_get_project (SkCanvas *self)
{
  g_return_val_if_fail (SK_IS_CANVAS (self), NULL);

  return self->project;
}

/**
 * sk_canvas_set_project:
 * @self: a #SkCanvas
 * @project: (nullable): the workflow to show
 *
 * Shows @project and fits it into the view. A workflow whose steps have no
 * positions yet is arranged with Graphviz first.
 *
 * Unless a selection model was set with sk_canvas_set_selection(), the
 * canvas selects in a #GtkMultiSelection of its own over @project, which
 * starts empty.
 */
void
sk_canvas_set_project (SkCanvas  *self,
                       SkProject *project)
{
  g_return_if_fail (SK_IS_CANVAS (self));
  g_return_if_fail (project == NULL || SK_IS_PROJECT (project));

  if (self->project == project)
    return;

  _sk_canvas_connect_tool_cancel (self);
  disconnect_project (self);
  _sk_canvas_clear_edge_selection (self);
  _sk_canvas_set_focus_node (self, NULL);

  if (project != NULL)
    self->project = g_object_ref (project);

  /* A proposal is for the workflow it was made for. */
  if (self->changeset != NULL && sk_changeset_get_project (self->changeset) != project)
    sk_canvas_set_proposal (self, NULL);

  /* A shared model is its owner's to follow the workflow; the canvas's own
   * one is made again over the new workflow. */
  if (self->owns_selection)
    _sk_canvas_replace_selection (self, NULL);

  if (project != NULL)
    {
      g_signal_connect_object (project, "items-changed", G_CALLBACK (items_changed_cb), self,
                               G_CONNECT_SWAPPED | G_CONNECT_AFTER);
      items_changed_cb (self, 0, 0, g_list_model_get_n_items (G_LIST_MODEL (project)), G_LIST_MODEL (project));

      if (!self->owns_selection)
        _sk_canvas_follow_selection (self, 0, 0);

      if (project_needs_layout (project))
        _sk_canvas_arrange (self, FALSE);
      self->fit_pending = TRUE;
      self->auto_fit = TRUE;
      gtk_widget_queue_allocate (GTK_WIDGET (self));
    }

  _sk_canvas_invalidate_edges (self);
  _sk_canvas_selection_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_PROJECT]);
}

/**
 * sk_canvas_get_history:
 * @self: a #SkCanvas
 *
 * Returns: (transfer none) (nullable): the history the canvas groups its
 *   edits in
 */
SkHistory *
sk_canvas_get_history (SkCanvas *self)
{
  g_return_val_if_fail (SK_IS_CANVAS (self), NULL);

  return self->history;
}

void
sk_canvas_set_history (SkCanvas  *self,
                       SkHistory *history)
{
  g_return_if_fail (SK_IS_CANVAS (self));

  if (self->history != history)
    _sk_canvas_abandon_drag (self);

  if (g_set_object (&self->history, history))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_HISTORY]);
}

/**
 * sk_canvas_get_selection:
 * @self: a #SkCanvas
 *
 * Returns: (transfer none) (nullable): the selection model the canvas
 *   selects steps in: the one set with sk_canvas_set_selection(), or the
 *   canvas's own over its workflow (%NULL while it shows none)
 */
GtkSelectionModel *
sk_canvas_get_selection (SkCanvas *self)
{
  g_return_val_if_fail (SK_IS_CANVAS (self), NULL);

  return self->selection;
}

/**
 * sk_canvas_set_selection:
 * @self: a #SkCanvas
 * @selection: (nullable): a selection model listing the steps of the
 *   workflow shown, in its order, or %NULL for one of the canvas's own
 *
 * Makes the canvas select in @selection, so that a list beside it can share
 * it. The canvas redraws when it changes, and its #SkCanvas:selected-node
 * follows: it stays while still selected, and otherwise becomes the first
 * step selected in the range that changed. @selection must list the same
 * steps as the workflow; when the workflow is replaced, its owner replaces
 * or updates it too.
 */
void
sk_canvas_set_selection (SkCanvas          *self,
                         GtkSelectionModel *selection)
{
  g_return_if_fail (SK_IS_CANVAS (self));
  g_return_if_fail (selection == NULL || GTK_IS_SELECTION_MODEL (selection));

  if (selection != NULL && selection == self->selection)
    {
      self->owns_selection = FALSE;
      return;
    }
  if (selection == NULL && self->owns_selection)
    return;

  _sk_canvas_replace_selection (self, selection);
  _sk_canvas_follow_selection (self, 0, 0);
  _sk_canvas_selection_changed (self);
}

/**
 * sk_canvas_get_selected_node:
 * @self: a #SkCanvas
 *
 * Returns: (transfer none) (nullable): the step whose cells are shown: the
 *   one clicked last among the selected steps
 */
SkNode *
sk_canvas_get_selected_node (SkCanvas *self)
{
  g_return_val_if_fail (SK_IS_CANVAS (self), NULL);

  return self->focus;
}

/**
 * sk_canvas_select_node:
 * @self: a #SkCanvas
 * @node: (nullable): a step of the workflow, or %NULL to clear the selection
 *
 * Selects only @node.
 */
void
sk_canvas_select_node (SkCanvas *self,
                       SkNode   *node)
{
  g_return_if_fail (SK_IS_CANVAS (self));

  if (node != NULL && _sk_canvas_lookup_item (self, node) == NULL)
    return;

  if (self->focus == node && _sk_canvas_count_selected (self) == (node != NULL ? 1u : 0u))
    return;

  _sk_canvas_select_only (self, node);
}

/**
 * sk_canvas_get_selected_nodes:
 * @self: a #SkCanvas
 *
 * Returns: (transfer container) (element-type SkNode): the selected steps,
 *   in the workflow's order
 */
GPtrArray *
sk_canvas_get_selected_nodes (SkCanvas *self)
{
  GPtrArray *nodes = g_ptr_array_new ();
  g_autoptr(GtkBitset) selected = NULL;
  GtkBitsetIter iter;
  guint position;

  g_return_val_if_fail (SK_IS_CANVAS (self), nodes);

  if (self->selection == NULL)
    return nodes;

  selected = gtk_selection_model_get_selection (self->selection);
  for (gboolean more = gtk_bitset_iter_init_first (&iter, selected, &position);
       more && position < self->items->len;
       more = gtk_bitset_iter_next (&iter, &position))
    g_ptr_array_add (nodes, ((SkCanvasItem *) g_ptr_array_index (self->items, position))->node);

  return nodes;
}

double
sk_canvas_get_zoom (SkCanvas *self)
{
  g_return_val_if_fail (SK_IS_CANVAS (self), 1.0);

  return self->zoom;
}

void
sk_canvas_set_zoom (SkCanvas *self,
                    double    zoom)
{
  g_return_if_fail (SK_IS_CANVAS (self));

  _sk_canvas_zoom_around (self, zoom,
                          gtk_widget_get_width (GTK_WIDGET (self)) / 2.0,
                          gtk_widget_get_height (GTK_WIDGET (self)) / 2.0);
}

/**
 * sk_canvas_scroll_to_node:
 * @self: a #SkCanvas
 * @node: a step of the workflow
 *
 * Pans the view, if needed, so that @node is fully visible.
 */
void
sk_canvas_scroll_to_node (SkCanvas *self,
                          SkNode   *node)
{
  g_return_if_fail (SK_IS_CANVAS (self));

  _sk_canvas_scroll_to_item (self, _sk_canvas_lookup_item (self, node));
}

/**
 * sk_canvas_show_proposal:
 * @self: a #SkCanvas
 *
 * Pans the view, if needed, so that the steps the chat's proposal adds can
 * be seen.
 */
void
sk_canvas_show_proposal (SkCanvas *self)
{
  graphene_rect_t bounds;

  g_return_if_fail (SK_IS_CANVAS (self));

  if (_sk_canvas_proposal_bounds (self, &bounds))
    _sk_canvas_scroll_to_rect (self, &bounds);
}

/**
 * sk_canvas_arrange:
 * @self: a #SkCanvas
 *
 * Lays the workflow out with Graphviz in a worker thread, then moves every
 * step in one undoable step.
 */
void
sk_canvas_arrange (SkCanvas *self)
{
  g_return_if_fail (SK_IS_CANVAS (self));

  _sk_canvas_arrange (self, TRUE);
}
