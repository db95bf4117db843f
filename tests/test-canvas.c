/* test-canvas.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Widget tests for the workflow canvas. The canvas sits in a real window
 * under a display, and each test drives it through the functions its
 * gestures call (_sk_canvas_click and friends) and through its actions, so
 * that both share one code path with what a person does.
 */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <adwaita.h>

#include "sk-canvas-private.h"
#include "sk-history.h"
#include "sk-project.h"
#include "sk-test-util.h"
#include "sk-widgets.h"

#define WINDOW_WIDTH 800
#define WINDOW_HEIGHT 600
#define WAIT_TIMEOUT_MS 20000

typedef struct
{
  GtkWidget *window;
  SkCanvas  *canvas;
  SkProject *project;
  SkHistory *history;
  char      *folder;

  /* What the canvas emitted. */
  guint      node_created;
  guint      node_activated;
  guint      edit_node;
  guint      edit_process;
  guint      messages;
  guint      selection_changed;
  guint      selected_notifies;
  guint      zoom_notifies;
  SkNode    *last_node;
  char      *last_message;
} Fixture;

/* Main loop helpers ------------------------------------------------------ */

static gboolean
flag_cb (gpointer data)
{
  gboolean *flag = data;

  *flag = TRUE;
  return G_SOURCE_REMOVE;
}

static void
count_cb (guint *counter)
{
  (*counter)++;
}

/* Iterates until the window has painted a frame in which the canvas is laid
 * out, so that allocations queued by the canvas have happened.
 */
static void
wait_for_frame (Fixture *f)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (f->canvas));
  gboolean timed_out = FALSE;
  guint painted = 0;
  guint timeout_id;
  gulong handler;

  g_assert_nonnull (clock);
  handler = g_signal_connect_swapped (clock, "after-paint", G_CALLBACK (count_cb), &painted);
  timeout_id = g_timeout_add (WAIT_TIMEOUT_MS, flag_cb, &timed_out);
  gtk_widget_queue_draw (GTK_WIDGET (f->canvas));

  while (painted == 0 && !timed_out)
    g_main_context_iteration (NULL, TRUE);

  g_signal_handler_disconnect (clock, handler);
  g_assert_false (timed_out);
  g_source_remove (timeout_id);
}

static void
wait_for_arrange (Fixture *f)
{
  gboolean timed_out = FALSE;
  guint timeout_id = g_timeout_add (WAIT_TIMEOUT_MS, flag_cb, &timed_out);

  while (_sk_canvas_is_arranging (f->canvas) && !timed_out)
    g_main_context_iteration (NULL, TRUE);

  g_assert_false (timed_out);
  g_source_remove (timeout_id);

  /* The arranged workflow is fitted into the view on the next frame. */
  wait_for_frame (f);
}

/* Signal recorders ------------------------------------------------------- */

static void
node_created_cb (SkCanvas *canvas,
                 SkNode   *node,
                 Fixture  *f)
{
  f->node_created++;
  f->last_node = node;
}

static void
node_activated_cb (SkCanvas *canvas,
                   SkNode   *node,
                   Fixture  *f)
{
  f->node_activated++;
  f->last_node = node;
}

static void
edit_node_cb (SkCanvas *canvas,
              SkNode   *node,
              Fixture  *f)
{
  f->edit_node++;
  f->last_node = node;
}

static void
edit_process_cb (SkCanvas *canvas,
                 Fixture  *f)
{
  f->edit_process++;
}

static void
message_cb (SkCanvas   *canvas,
            const char *message,
            Fixture    *f)
{
  f->messages++;
  g_free (f->last_message);
  f->last_message = g_strdup (message);
}

static void
reset_counters (Fixture *f)
{
  f->node_created = 0;
  f->node_activated = 0;
  f->edit_node = 0;
  f->edit_process = 0;
  f->messages = 0;
  f->selection_changed = 0;
  f->selected_notifies = 0;
  f->zoom_notifies = 0;
  f->last_node = NULL;
  g_clear_pointer (&f->last_message, g_free);
}

/* Fixture ---------------------------------------------------------------- */

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GFile) folder = NULL;
  gboolean timed_out = FALSE;
  guint timeout_id;

  f->folder = sk_test_make_tmp_dir ("canvas");
  folder = g_file_new_for_path (f->folder);
  f->project = sk_project_new (folder);
  f->history = sk_history_new (f->project);

  f->canvas = SK_CANVAS (g_object_ref_sink (sk_canvas_new ()));
  g_signal_connect (f->canvas, "node-created", G_CALLBACK (node_created_cb), f);
  g_signal_connect (f->canvas, "node-activated", G_CALLBACK (node_activated_cb), f);
  g_signal_connect (f->canvas, "edit-node", G_CALLBACK (edit_node_cb), f);
  g_signal_connect (f->canvas, "edit-process", G_CALLBACK (edit_process_cb), f);
  g_signal_connect (f->canvas, "message", G_CALLBACK (message_cb), f);
  g_signal_connect_swapped (f->canvas, "selection-changed",
                            G_CALLBACK (count_cb), &f->selection_changed);
  g_signal_connect_swapped (f->canvas, "notify::selected-node",
                            G_CALLBACK (count_cb), &f->selected_notifies);
  g_signal_connect_swapped (f->canvas, "notify::zoom", G_CALLBACK (count_cb), &f->zoom_notifies);

  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), WINDOW_WIDTH, WINDOW_HEIGHT);
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->canvas));
  gtk_window_present (GTK_WINDOW (f->window));

  timeout_id = g_timeout_add (WAIT_TIMEOUT_MS, flag_cb, &timed_out);
  while (!timed_out &&
         (!gtk_widget_get_mapped (GTK_WIDGET (f->canvas)) ||
          gtk_widget_get_width (GTK_WIDGET (f->canvas)) <= 0))
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (timed_out);
  g_source_remove (timeout_id);

  sk_canvas_set_history (f->canvas, f->history);
  sk_canvas_set_project (f->canvas, f->project);
  g_assert_true (sk_canvas_get_project (f->canvas) == f->project);
  g_assert_true (sk_canvas_get_history (f->canvas) == f->history);
  wait_for_frame (f);

  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->canvas)), ==, WINDOW_WIDTH);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (f->canvas)), ==, WINDOW_HEIGHT);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, 1.0);
  reset_counters (f);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  while (g_main_context_iteration (NULL, FALSE));

  g_assert_finalize_object (f->canvas);
  g_assert_finalize_object (f->history);
  g_assert_finalize_object (f->project);

  sk_test_remove_tree (f->folder);
  g_assert_false (g_file_test (f->folder, G_FILE_TEST_EXISTS));
  g_free (f->folder);
  g_free (f->last_message);
}

/* Model helpers ---------------------------------------------------------- */

static SkNode *
add_node (Fixture    *f,
          const char *name,
          double      x,
          double      y)
{
  g_autoptr(SkNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = sk_project_next_node_id (f->project);

  /* Steps start unmarked, so that marking them shows. */
  node = sk_node_new (id, name);
  sk_node_set_run (node, FALSE);
  sk_node_set_position (node, x, y);
  sk_project_add_node (f->project, node, &error);
  g_assert_no_error (error);

  return node;
}

static void
connect (SkNode *prior,
         SkNode *node)
{
  g_assert_true (sk_node_add_prior (node, sk_node_get_id (prior)));
}

/* Forgets how the test built its workflow, so that what follows starts with
 * nothing to undo.
 */
static void
start_clean (Fixture *f)
{
  sk_history_clear (f->history);
  sk_project_set_modified (f->project, FALSE);
  reset_counters (f);
  g_assert_false (sk_history_get_can_undo (f->history));
}

/* Undoes the last step and checks it was the only one. */
static void
undo_only_step (Fixture *f)
{
  g_assert_true (sk_history_get_can_undo (f->history));
  g_assert_true (sk_history_undo (f->history));
  g_assert_false (sk_history_get_can_undo (f->history));
}

static void
model_to_widget (Fixture *f,
                 double   mx,
                 double   my,
                 double  *wx,
                 double  *wy)
{
  _sk_canvas_model_to_widget (f->canvas, mx, my, wx, wy);
}

/* Clicks at a point in model coordinates. */
static void
click_at (Fixture         *f,
          double           mx,
          double           my,
          guint            button,
          GdkModifierType  state)
{
  double x, y;

  model_to_widget (f, mx, my, &x, &y);
  _sk_canvas_click (f->canvas, x, y, button, state, 1);
}

static void
click_node (Fixture         *f,
            SkNode          *node,
            guint            button,
            GdkModifierType  state)
{
  double mx, my;

  g_assert_true (sk_node_get_position (node, &mx, &my));
  click_at (f, mx, my, button, state);
}

static void
assert_position (SkNode *node,
                 double  x,
                 double  y)
{
  double nx, ny;

  g_assert_true (sk_node_get_position (node, &nx, &ny));
  g_assert_cmpfloat_with_epsilon (nx, x, 1e-6);
  g_assert_cmpfloat_with_epsilon (ny, y, 1e-6);
}

static guint
selection_size (Fixture *f)
{
  g_autoptr(GPtrArray) selection = sk_canvas_get_selected_nodes (f->canvas);

  return selection->len;
}

static gboolean
is_selected (Fixture *f,
             SkNode  *node)
{
  g_autoptr(GPtrArray) selection = sk_canvas_get_selected_nodes (f->canvas);

  return g_ptr_array_find (selection, node, NULL);
}

static SkNode *
nth_node (Fixture *f,
          guint    index)
{
  g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (f->project), index);

  g_assert_nonnull (node);
  return node;
}

static guint
n_nodes (Fixture *f)
{
  return g_list_model_get_n_items (G_LIST_MODEL (f->project));
}

static guint
n_priors (SkNode *node)
{
  const char * const *priors = sk_node_get_priors (node);

  return priors != NULL ? g_strv_length ((char **) priors) : 0;
}

static void
assert_no_overlaps (Fixture *f)
{
  guint n = n_nodes (f);

  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++)
      {
        double xi, yi, xj, yj;

        g_assert_true (sk_node_get_position (nth_node (f, i), &xi, &yi));
        g_assert_true (sk_node_get_position (nth_node (f, j), &xj, &yj));
        if (fabs (xi - xj) < SK_CANVAS_NODE_WIDTH && fabs (yi - yj) < SK_CANVAS_NODE_HEIGHT)
          g_error ("%s at (%g, %g) overlaps %s at (%g, %g)",
                   sk_node_get_name (nth_node (f, i)), xi, yi,
                   sk_node_get_name (nth_node (f, j)), xj, yj);
      }
}

/* The point halfway along the edge from @prior to @node, in model
 * coordinates, from the same geometry the canvas draws.
 */
static void
edge_midpoint (SkNode *prior,
               SkNode *node,
               double *x,
               double *y)
{
  double px, py, nx, ny;
  double x0, y0, x3, y3, dy;

  g_assert_true (sk_node_get_position (prior, &px, &py));
  g_assert_true (sk_node_get_position (node, &nx, &ny));
  x0 = px;
  y0 = py + SK_CANVAS_NODE_HEIGHT / 2;
  x3 = nx;
  y3 = ny - SK_CANVAS_NODE_HEIGHT / 2 - 2;
  dy = MAX (40.0, fabs (y3 - y0) / 2);

  /* B(½) = (P0 + 3 P1 + 3 P2 + P3) / 8 with P1 = (x0, y0 + dy) and
   * P2 = (x3, y3 - dy). */
  *x = (x0 + 3 * x0 + 3 * x3 + x3) / 8;
  *y = (y0 + 3 * (y0 + dy) + 3 * (y3 - dy) + y3) / 8;
}

static void
activate (Fixture    *f,
          const char *action)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->canvas), action, NULL));
}

static void
move_focus (Fixture    *f,
            const char *direction)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->canvas), "canvas.move-focus",
                                             "s", direction));
}

/* Presses @keyval with @modifiers on the canvas the way GTK does: through
 * the shortcuts the canvas's class binds. Returns whether a binding took
 * the key, as the event would then go no further.
 */
static gboolean
press_key (Fixture         *f,
           guint            keyval,
           GdkModifierType  modifiers)
{
  GtkWidget *widget = GTK_WIDGET (f->canvas);
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
  /* A trigger spells keys its own way (Shift+ISO_Left_Tab is Shift+Tab). */
  g_autoptr(GtkShortcutTrigger) pressed = gtk_keyval_trigger_new (keyval, modifiers);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;

      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (gtk_shortcut_trigger_equal (trigger, pressed))
            return gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, widget,
                                                 gtk_shortcut_get_arguments (shortcut));
        }
    }

  return FALSE;
}

/* Presses a key in the find bar's entry, where its own key handler sees it
 * first. */
static gboolean
press_key_in_find (Fixture         *f,
                   guint            keyval,
                   GdkModifierType  modifiers)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (f->canvas->find_entry);
  gboolean handled = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_EVENT_CONTROLLER_KEY (controller) &&
          gtk_event_controller_get_propagation_phase (controller) == GTK_PHASE_CAPTURE)
        g_signal_emit_by_name (controller, "key-pressed", keyval, 0, modifiers, &handled);
    }

  return handled;
}

static GtkWidget *
focus_widget (Fixture *f)
{
  return gtk_root_get_focus (GTK_ROOT (f->window));
}

/* Whether @node's box lies wholly inside the canvas. */
static gboolean
node_in_view (Fixture *f,
              SkNode  *node)
{
  double mx, my, x0, y0, x1, y1;

  g_assert_true (sk_node_get_position (node, &mx, &my));
  model_to_widget (f, mx - SK_CANVAS_NODE_WIDTH / 2, my - SK_CANVAS_NODE_HEIGHT / 2, &x0, &y0);
  model_to_widget (f, mx + SK_CANVAS_NODE_WIDTH / 2, my + SK_CANVAS_NODE_HEIGHT / 2, &x1, &y1);

  return x0 >= -0.5 && y0 >= -0.5 && x1 <= WINDOW_WIDTH + 0.5 && y1 <= WINDOW_HEIGHT + 0.5;
}

/* Adds @n steps in a grid of @columns, each needing the one before. */
static void
add_grid (Fixture *f,
          guint    n,
          guint    columns)
{
  SkNode *last = NULL;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("step %u", i + 1);
      SkNode *node = add_node (f, name, (i % columns) * 220.0, (i / columns) * 110.0);

      if (last != NULL && i % 7 != 0)
        connect (last, node);
      last = node;
    }
}

/* Tests ------------------------------------------------------------------ */

static void
test_add_step (Fixture       *f,
               gconstpointer  data)
{
  SkNode *first;
  SkNode *second;

  start_clean (f);

  click_at (f, 100, 50, GDK_BUTTON_PRIMARY, 0);

  g_assert_cmpuint (n_nodes (f), ==, 1);
  first = nth_node (f, 0);
  g_assert_cmpstr (sk_node_get_name (first), ==, "step");
  g_assert_true (sk_node_get_run (first));
  assert_position (first, 100, 50);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == first);
  g_assert_cmpuint (selection_size (f), ==, 1);
  g_assert_cmpuint (f->node_created, ==, 1);
  g_assert_true (f->last_node == first);
  g_assert_cmpuint (f->selected_notifies, ==, 1);
  g_assert_cmpuint (f->selection_changed, >=, 1);
  g_assert_cmpstr (sk_history_get_undo_label (f->history), ==, "Add Step");

  /* Far enough away not to hit the first step. */
  click_at (f, 400, 300, GDK_BUTTON_PRIMARY, 0);

  g_assert_cmpuint (n_nodes (f), ==, 2);
  second = nth_node (f, 1);
  g_assert_cmpstr (sk_node_get_name (second), ==, "step 2");
  g_assert_cmpstr (sk_node_get_id (second), !=, sk_node_get_id (first));
  g_assert_true (sk_node_get_run (second));
  assert_position (second, 400, 300);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == second);
  g_assert_false (is_selected (f, first));
  g_assert_cmpuint (f->node_created, ==, 2);
  g_assert_true (f->last_node == second);
  g_assert_true (sk_project_get_modified (f->project));
}

static void
test_select (Fixture       *f,
             gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 0);
  SkNode *c = add_node (f, "c", 0, 150);

  start_clean (f);

  click_node (f, a, GDK_BUTTON_PRIMARY, 0);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  g_assert_cmpuint (selection_size (f), ==, 1);
  g_assert_cmpuint (f->selected_notifies, ==, 1);
  g_assert_cmpuint (n_nodes (f), ==, 3);
  g_assert_cmpuint (f->node_created, ==, 0);

  /* Clicking a step's corner still hits it. */
  click_at (f, 250 + SK_CANVAS_NODE_WIDTH / 2 - 1, SK_CANVAS_NODE_HEIGHT / 2 - 1,
            GDK_BUTTON_PRIMARY, 0);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  g_assert_false (is_selected (f, a));
  g_assert_cmpuint (f->selected_notifies, ==, 2);

  /* Shift extends the selection, and toggles a step already in it. */
  click_node (f, a, GDK_BUTTON_PRIMARY, GDK_SHIFT_MASK);
  g_assert_cmpuint (selection_size (f), ==, 2);
  g_assert_true (is_selected (f, a));
  g_assert_true (is_selected (f, b));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);

  click_node (f, c, GDK_BUTTON_PRIMARY, GDK_SHIFT_MASK);
  g_assert_cmpuint (selection_size (f), ==, 3);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == c);

  click_node (f, a, GDK_BUTTON_PRIMARY, GDK_SHIFT_MASK);
  g_assert_cmpuint (selection_size (f), ==, 2);
  g_assert_false (is_selected (f, a));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == c);

  /* Shift-clicking the focused step takes it out, and the focus with it. */
  click_node (f, c, GDK_BUTTON_PRIMARY, GDK_SHIFT_MASK);
  g_assert_cmpuint (selection_size (f), ==, 1);
  g_assert_true (is_selected (f, b));
  g_assert_null (sk_canvas_get_selected_node (f->canvas));

  /* A plain click selects only the step clicked. */
  click_node (f, c, GDK_BUTTON_PRIMARY, 0);
  g_assert_cmpuint (selection_size (f), ==, 1);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == c);

  /* A double click opens the step. */
  {
    double x, y;

    model_to_widget (f, 250, 0, &x, &y);
    _sk_canvas_click (f->canvas, x, y, GDK_BUTTON_PRIMARY, 0, 2);
    g_assert_cmpuint (f->node_activated, ==, 1);
    g_assert_true (f->last_node == b);
    g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  }

  /* The public selection API agrees, and ignores strangers. */
  sk_canvas_select_node (f->canvas, a);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  {
    g_autoptr(SkNode) stranger = sk_node_new ("99", "stranger");

    sk_canvas_select_node (f->canvas, stranger);
    g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  }
  sk_canvas_select_node (f->canvas, NULL);
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
  g_assert_cmpuint (selection_size (f), ==, 0);

  /* Selecting changes nothing in the workflow. */
  g_assert_false (sk_history_get_can_undo (f->history));
  g_assert_false (sk_project_get_modified (f->project));
}

/* The canvas selects in a selection model of its own over the workflow, and
 * follows changes made to it from outside. */
static void
test_selection_model (Fixture       *f,
                      gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 0);
  SkNode *c = add_node (f, "c", 0, 150);
  GtkSelectionModel *model = sk_canvas_get_selection (f->canvas);
  guint selection_notifies = 0;
  g_autoptr(GPtrArray) selected = NULL;
  g_autoptr(GtkBitset) bits = NULL;

  start_clean (f);

  g_assert_true (GTK_IS_MULTI_SELECTION (model));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(SkNode) item = g_list_model_get_item (G_LIST_MODEL (model), i);

      g_assert_true (item == nth_node (f, i));
    }

  /* What the canvas selects, the model holds. */
  click_node (f, a, GDK_BUTTON_PRIMARY, 0);
  click_node (f, c, GDK_BUTTON_PRIMARY, GDK_SHIFT_MASK);
  bits = gtk_selection_model_get_selection (model);
  g_assert_cmpuint (gtk_bitset_get_size (bits), ==, 2);
  g_assert_true (gtk_bitset_contains (bits, 0));
  g_assert_true (gtk_bitset_contains (bits, 2));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == c);

  /* A change from outside moves the focus to what was selected. */
  reset_counters (f);
  gtk_selection_model_select_item (model, 1, TRUE);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  g_assert_cmpuint (selection_size (f), ==, 1);
  g_assert_cmpuint (f->selected_notifies, ==, 1);
  g_assert_cmpuint (f->selection_changed, >=, 1);

  /* Extending it from outside keeps the focus. */
  gtk_selection_model_select_item (model, 2, FALSE);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  g_assert_cmpuint (selection_size (f), ==, 2);

  /* Removing a step shifts the positions after it; the selection follows
   * the steps. */
  sk_project_remove_node (f->project, a);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 2);
  selected = sk_canvas_get_selected_nodes (f->canvas);
  g_assert_cmpuint (selected->len, ==, 2);
  g_assert_true (g_ptr_array_index (selected, 0) == b);
  g_assert_true (g_ptr_array_index (selected, 1) == c);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  g_assert_true (gtk_selection_model_is_selected (model, 0));
  g_assert_true (gtk_selection_model_is_selected (model, 1));

  /* Clearing it from outside clears the focus. */
  gtk_selection_model_unselect_all (model);
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
  g_assert_cmpuint (selection_size (f), ==, 0);

  /* Another workflow gets a model of its own. */
  g_signal_connect_swapped (f->canvas, "notify::selection", G_CALLBACK (count_cb), &selection_notifies);
  sk_canvas_set_project (f->canvas, NULL);
  g_assert_null (sk_canvas_get_selection (f->canvas));
  sk_canvas_set_project (f->canvas, f->project);
  g_assert_nonnull (sk_canvas_get_selection (f->canvas));
  g_assert_true (sk_canvas_get_selection (f->canvas) != model);
  g_assert_cmpuint (selection_notifies, ==, 2);
  g_signal_handlers_disconnect_by_func (f->canvas, count_cb, &selection_notifies);
}

typedef struct
{
  SkCanvas *canvas;
  SkNode   *node;
} SelectLater;

static void
select_on_change_cb (GListModel  *model,
                     guint        position,
                     guint        removed,
                     guint        added,
                     SelectLater *later)
{
  sk_canvas_select_node (later->canvas, later->node);
}

/* The window selects from its own handlers of the workflow's changes,
 * which run before the canvas has caught up with them. */
static void
test_select_during_change (Fixture       *f,
                           gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 0);
  SkNode *c = add_node (f, "c", 0, 150);
  SelectLater later = { f->canvas, c };
  GtkSelectionModel *model = sk_canvas_get_selection (f->canvas);
  gulong handler;

  start_clean (f);
  click_node (f, a, GDK_BUTTON_PRIMARY, 0);

  handler = g_signal_connect (f->project, "items-changed", G_CALLBACK (select_on_change_cb), &later);
  sk_project_remove_node (f->project, a);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == c);
  g_assert_cmpuint (selection_size (f), ==, 1);
  g_assert_true (is_selected (f, c));
  g_assert_true (gtk_selection_model_is_selected (model, 1));

  later.node = NULL;
  add_node (f, "d", 250, 150);
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
  g_assert_cmpuint (selection_size (f), ==, 0);

  later.node = b;
  sk_history_undo (f->history);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  g_assert_cmpuint (selection_size (f), ==, 1);
  g_assert_true (is_selected (f, b));
  g_signal_handler_disconnect (f->project, handler);
}

/* A selection model shared with someone else, such as the list of steps. */
static void
test_shared_selection (Fixture       *f,
                       gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 0);
  SkNode *c = add_node (f, "c", 0, 150);
  GtkSingleSelection *shared = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (f->project)));
  GtkSelectionModel *own;

  gtk_single_selection_set_autoselect (shared, FALSE);
  gtk_single_selection_set_can_unselect (shared, TRUE);
  gtk_single_selection_set_selected (shared, GTK_INVALID_LIST_POSITION);
  start_clean (f);

  sk_canvas_set_selection (f->canvas, GTK_SELECTION_MODEL (shared));
  g_assert_true (sk_canvas_get_selection (f->canvas) == GTK_SELECTION_MODEL (shared));
  g_assert_null (sk_canvas_get_selected_node (f->canvas));

  gtk_single_selection_set_selected (shared, 1);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  g_assert_cmpuint (f->selected_notifies, ==, 1);

  click_node (f, c, GDK_BUTTON_PRIMARY, 0);
  g_assert_cmpuint (gtk_single_selection_get_selected (shared), ==, 2);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == c);

  /* Removing a step before the selected one shifts its position. */
  sk_project_remove_node (f->project, a);
  g_assert_cmpuint (gtk_single_selection_get_selected (shared), ==, 1);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == c);
  g_assert_true (is_selected (f, c));

  sk_canvas_select_node (f->canvas, NULL);
  g_assert_cmpuint (gtk_single_selection_get_selected (shared), ==, GTK_INVALID_LIST_POSITION);
  g_assert_null (sk_canvas_get_selected_node (f->canvas));

  /* A shared model stays when the workflow is shown again. */
  sk_canvas_set_project (f->canvas, NULL);
  sk_canvas_set_project (f->canvas, f->project);
  g_assert_true (sk_canvas_get_selection (f->canvas) == GTK_SELECTION_MODEL (shared));

  /* Without it, the canvas makes its own again. */
  gtk_single_selection_set_selected (shared, 0);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  sk_canvas_set_selection (f->canvas, NULL);
  own = sk_canvas_get_selection (f->canvas);
  g_assert_true (GTK_IS_MULTI_SELECTION (own));
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (own)), ==, 2);
  g_assert_cmpuint (gtk_single_selection_get_selected (shared), ==, 0);

  g_assert_finalize_object (shared);
}

static void
test_connect (Fixture       *f,
              gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 150);

  start_clean (f);

  click_node (f, a, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);
  g_assert_true (_sk_canvas_get_connect_source (f->canvas) == a);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  g_assert_cmpuint (n_priors (b), ==, 0);

  click_node (f, b, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);
  g_assert_null (_sk_canvas_get_connect_source (f->canvas));
  g_assert_true (sk_node_has_prior (b, sk_node_get_id (a)));
  g_assert_cmpuint (n_priors (b), ==, 1);
  g_assert_cmpuint (n_priors (a), ==, 0);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  g_assert_cmpuint (f->messages, ==, 0);
  g_assert_cmpuint (n_nodes (f), ==, 2);
  g_assert_cmpstr (sk_history_get_undo_label (f->history), ==, "Connect Steps");

  undo_only_step (f);
  g_assert_cmpuint (n_priors (b), ==, 0);
  g_assert_true (sk_history_redo (f->history));
  g_assert_true (sk_node_has_prior (b, sk_node_get_id (a)));

  /* Ctrl-clicking the source again, or empty space, cancels. */
  click_node (f, a, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);
  g_assert_true (_sk_canvas_get_connect_source (f->canvas) == a);
  click_node (f, a, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);
  g_assert_null (_sk_canvas_get_connect_source (f->canvas));

  click_node (f, a, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);
  click_at (f, 500, 400, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);
  g_assert_null (_sk_canvas_get_connect_source (f->canvas));
  g_assert_cmpuint (n_nodes (f), ==, 2);
  g_assert_cmpuint (f->messages, ==, 0);
}

static void
test_connect_refused (Fixture       *f,
                      gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 0, 150);
  SkNode *c = add_node (f, "c", 0, 300);

  connect (a, b);
  connect (b, c);
  start_clean (f);

  /* c already needs b, which needs a: a cannot need c. */
  click_node (f, c, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);
  click_node (f, a, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);

  g_assert_cmpuint (f->messages, ==, 1);
  g_assert_nonnull (f->last_message);
  g_assert_cmpuint (strlen (f->last_message), >, 10);
  g_assert_true (g_str_has_suffix (f->last_message, "."));
  g_assert_null (_sk_canvas_get_connect_source (f->canvas));
  g_assert_cmpuint (n_priors (a), ==, 0);
  g_assert_cmpuint (n_priors (b), ==, 1);
  g_assert_cmpuint (n_priors (c), ==, 1);
  g_assert_false (sk_project_get_modified (f->project));
  g_assert_false (sk_history_get_can_undo (f->history));

  /* b already needs a. */
  click_node (f, a, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);
  click_node (f, b, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);

  g_assert_cmpuint (f->messages, ==, 2);
  g_assert_nonnull (f->last_message);
  g_assert_cmpuint (strlen (f->last_message), >, 0);
  g_assert_null (_sk_canvas_get_connect_source (f->canvas));
  g_assert_cmpuint (n_priors (b), ==, 1);
  g_assert_false (sk_project_get_modified (f->project));
  g_assert_false (sk_history_get_can_undo (f->history));
}

static void
test_delete_step (Fixture       *f,
                  gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 0, 150);
  SkNode *c = add_node (f, "c", 250, 300);
  g_autofree char *b_id = g_strdup (sk_node_get_id (b));
  g_autofree char *c_id = g_strdup (sk_node_get_id (c));
  SkNode *restored;

  connect (a, b);
  connect (b, c);
  connect (a, c);
  start_clean (f);

  /* Nothing selected: nothing to delete. */
  gtk_widget_activate_action (GTK_WIDGET (f->canvas), "canvas.delete", NULL);
  g_assert_cmpuint (n_nodes (f), ==, 3);

  click_node (f, b, GDK_BUTTON_PRIMARY, 0);
  activate (f, "canvas.delete");

  g_assert_cmpuint (n_nodes (f), ==, 2);
  g_assert_null (sk_project_get_node (f->project, b_id));
  g_assert_false (sk_node_has_prior (c, b_id));
  g_assert_true (sk_node_has_prior (c, sk_node_get_id (a)));
  g_assert_cmpuint (n_priors (c), ==, 1);
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
  g_assert_cmpuint (selection_size (f), ==, 0);
  g_assert_cmpstr (sk_history_get_undo_label (f->history), ==, "Delete Step");
  wait_for_frame (f);

  undo_only_step (f);
  g_assert_cmpuint (n_nodes (f), ==, 3);
  restored = sk_project_get_node (f->project, b_id);
  g_assert_nonnull (restored);
  g_assert_true (nth_node (f, 1) == restored);
  g_assert_true (sk_node_has_prior (restored, sk_node_get_id (a)));
  g_assert_true (sk_node_has_prior (c, b_id));
  g_assert_cmpuint (n_priors (c), ==, 2);
  assert_position (restored, 0, 150);
  /* The restored step is on the canvas again: a click finds it. */
  click_node (f, restored, GDK_BUTTON_PRIMARY, 0);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == restored);
  wait_for_frame (f);

  g_assert_true (sk_history_redo (f->history));
  g_assert_cmpuint (n_nodes (f), ==, 2);
  g_assert_null (sk_project_get_node (f->project, b_id));
  g_assert_null (sk_canvas_get_selected_node (f->canvas));

  /* Several steps go in one step. */
  g_assert_true (sk_history_undo (f->history));
  start_clean (f);
  activate (f, "canvas.select-all");
  g_assert_cmpuint (selection_size (f), ==, 3);
  activate (f, "canvas.delete");
  g_assert_cmpuint (n_nodes (f), ==, 0);
  undo_only_step (f);
  g_assert_cmpuint (n_nodes (f), ==, 3);
  /* The steps are new objects now; the old ones are gone. */
  g_assert_cmpuint (n_priors (sk_project_get_node (f->project, c_id)), ==, 2);
}

static void
test_delete_edge (Fixture       *f,
                  gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 100, 0);
  SkNode *b = add_node (f, "b", 100, 250);
  SkNode *c = add_node (f, "c", 400, 250);
  SkNode *prior = NULL;
  SkNode *node = NULL;
  double mx, my, x, y;

  connect (a, b);
  connect (a, c);
  start_clean (f);

  g_assert_false (_sk_canvas_get_selected_edge (f->canvas, &prior, &node));

  edge_midpoint (a, b, &mx, &my);
  model_to_widget (f, mx, my, &x, &y);
  g_assert_null (_sk_canvas_node_at (f->canvas, x, y));

  /* Ten pixels beside the edge is empty space: a new step. */
  _sk_canvas_click (f->canvas, x + 10, y, GDK_BUTTON_PRIMARY, 0, 1);
  g_assert_false (_sk_canvas_get_selected_edge (f->canvas, NULL, NULL));
  g_assert_cmpuint (n_nodes (f), ==, 4);
  undo_only_step (f);
  g_assert_cmpuint (n_nodes (f), ==, 3);
  f->node_created = 0;

  /* Four pixels beside it still hits the edge. */
  _sk_canvas_click (f->canvas, x + 4, y, GDK_BUTTON_PRIMARY, 0, 1);

  g_assert_true (_sk_canvas_get_selected_edge (f->canvas, &prior, &node));
  g_assert_true (prior == a);
  g_assert_true (node == b);
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
  g_assert_cmpuint (selection_size (f), ==, 0);
  /* The click hit the edge, so it added no step. */
  g_assert_cmpuint (n_nodes (f), ==, 3);
  g_assert_cmpuint (f->node_created, ==, 0);
  wait_for_frame (f);

  activate (f, "canvas.delete");
  g_assert_cmpuint (n_nodes (f), ==, 3);
  g_assert_cmpuint (n_priors (b), ==, 0);
  g_assert_true (sk_node_has_prior (c, sk_node_get_id (a)));
  g_assert_false (_sk_canvas_get_selected_edge (f->canvas, NULL, NULL));
  g_assert_cmpstr (sk_history_get_undo_label (f->history), ==, "Remove Connection");

  undo_only_step (f);
  g_assert_true (sk_node_has_prior (b, sk_node_get_id (a)));
  g_assert_true (sk_node_has_prior (c, sk_node_get_id (a)));

  /* An edge that goes away elsewhere is no longer selected. */
  edge_midpoint (a, c, &mx, &my);
  click_at (f, mx, my, GDK_BUTTON_PRIMARY, 0);
  g_assert_true (_sk_canvas_get_selected_edge (f->canvas, &prior, &node));
  g_assert_true (prior == a && node == c);
  sk_node_remove_prior (c, sk_node_get_id (a));
  g_assert_false (_sk_canvas_get_selected_edge (f->canvas, NULL, NULL));
  wait_for_frame (f);
}

static void
test_right_click (Fixture       *f,
                  gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 0);
  SkNode *c = add_node (f, "c", 0, 150);

  sk_node_set_run (a, TRUE);
  start_clean (f);

  click_node (f, b, GDK_BUTTON_SECONDARY, 0);
  g_assert_true (sk_node_get_run (b));
  g_assert_true (sk_node_get_run (a));
  g_assert_false (sk_node_get_run (c));
  undo_only_step (f);
  g_assert_false (sk_node_get_run (b));

  click_node (f, a, GDK_BUTTON_SECONDARY, 0);
  g_assert_false (sk_node_get_run (a));
  g_assert_cmpuint (n_nodes (f), ==, 3);

  /* Some marked: empty space marks all. */
  click_node (f, b, GDK_BUTTON_SECONDARY, 0);
  start_clean (f);
  click_at (f, 500, 400, GDK_BUTTON_SECONDARY, 0);
  g_assert_true (sk_node_get_run (a));
  g_assert_true (sk_node_get_run (b));
  g_assert_true (sk_node_get_run (c));
  g_assert_cmpuint (n_nodes (f), ==, 3);

  /* All marked: empty space unmarks all, in one step. */
  start_clean (f);
  click_at (f, 500, 400, GDK_BUTTON_SECONDARY, 0);
  g_assert_false (sk_node_get_run (a));
  g_assert_false (sk_node_get_run (b));
  g_assert_false (sk_node_get_run (c));
  undo_only_step (f);
  g_assert_true (sk_node_get_run (a));
  g_assert_true (sk_node_get_run (b));
  g_assert_true (sk_node_get_run (c));

  /* None marked: marks all. */
  activate (f, "canvas.toggle-all");
  g_assert_false (sk_node_get_run (a));
  g_assert_false (sk_node_get_run (c));
  click_at (f, 500, 400, GDK_BUTTON_SECONDARY, 0);
  g_assert_true (sk_node_get_run (a));
  g_assert_true (sk_node_get_run (b));
  g_assert_true (sk_node_get_run (c));
  g_assert_cmpuint (f->node_created, ==, 0);
}

static void
test_alt_click (Fixture       *f,
                gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 0);

  start_clean (f);

  click_node (f, b, GDK_BUTTON_PRIMARY, GDK_ALT_MASK);
  g_assert_cmpuint (f->edit_node, ==, 1);
  g_assert_true (f->last_node == b);
  g_assert_cmpuint (f->edit_process, ==, 0);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);

  click_at (f, 500, 400, GDK_BUTTON_PRIMARY, GDK_ALT_MASK);
  g_assert_cmpuint (f->edit_process, ==, 1);
  g_assert_cmpuint (f->edit_node, ==, 1);
  g_assert_cmpuint (n_nodes (f), ==, 2);
  g_assert_cmpuint (f->node_created, ==, 0);

  /* The keyboard way to the same dialog. */
  sk_canvas_select_node (f->canvas, a);
  activate (f, "canvas.properties");
  g_assert_cmpuint (f->edit_node, ==, 2);
  g_assert_true (f->last_node == a);
  g_assert_false (sk_history_get_can_undo (f->history));
}

static void
test_menu (Fixture       *f,
           gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  GtkWidget *popover;
  GMenuModel *model;
  g_autoptr(GMenuModel) section = NULL;
  g_autofree char *action = NULL;

  start_clean (f);

  popover = gtk_widget_get_first_child (GTK_WIDGET (f->canvas));
  g_assert_true (GTK_IS_POPOVER_MENU (popover));
  g_assert_false (gtk_widget_get_visible (popover));

  sk_canvas_select_node (f->canvas, a);
  activate (f, "canvas.menu");
  wait_for_frame (f);
  g_assert_true (gtk_widget_get_visible (popover));

  /* Run commands first, then the step's own. */
  model = gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (popover));
  g_assert_nonnull (model);
  g_assert_cmpint (g_menu_model_get_n_items (model), ==, 2);
  section = g_menu_model_get_item_link (model, 0, G_MENU_LINK_SECTION);
  g_assert_cmpint (g_menu_model_get_n_items (section), ==, 3);
  g_assert_true (g_menu_model_get_item_attribute (section, 0, G_MENU_ATTRIBUTE_ACTION,
                                                  "s", &action));
  g_assert_cmpstr (action, ==, "win.run-node");

  gtk_popover_popdown (GTK_POPOVER (popover));
  wait_for_frame (f);
  g_assert_false (gtk_widget_get_visible (popover));
  g_assert_false (sk_history_get_can_undo (f->history));

  /* A failed step can be explained by the chat. */
  sk_node_set_state (a, SK_NODE_STATE_FAILED);
  activate (f, "canvas.menu");
  wait_for_frame (f);
  model = gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (popover));
  g_clear_object (&section);
  section = g_menu_model_get_item_link (model, 0, G_MENU_LINK_SECTION);
  g_assert_cmpint (g_menu_model_get_n_items (section), ==, 4);
  g_clear_pointer (&action, g_free);
  g_assert_true (g_menu_model_get_item_attribute (section, 3, G_MENU_ATTRIBUTE_ACTION,
                                                  "s", &action));
  g_assert_cmpstr (action, ==, "win.explain-failure");
  gtk_popover_popdown (GTK_POPOVER (popover));
  wait_for_frame (f);
}

static void
test_drag_move (Fixture       *f,
                gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 0);
  double zoom;
  double x, y;

  connect (a, b);
  sk_canvas_set_zoom (f->canvas, 2.0);
  zoom = sk_canvas_get_zoom (f->canvas);
  g_assert_cmpfloat_with_epsilon (zoom, 2.0, 1e-9);
  start_clean (f);

  model_to_widget (f, 10, 5, &x, &y);
  g_assert_true (_sk_canvas_drag_begin (f->canvas, x, y, 0));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);

  /* Under the threshold nothing moves yet. */
  _sk_canvas_drag_update (f->canvas, 1, 1);
  assert_position (a, 0, 0);

  _sk_canvas_drag_update (f->canvas, 20, 10);
  assert_position (a, 20 / zoom, 10 / zoom);
  _sk_canvas_drag_update (f->canvas, 50, 30);
  _sk_canvas_drag_update (f->canvas, 60, -40);
  _sk_canvas_drag_end (f->canvas, 60, -40);

  assert_position (a, 60 / zoom, -40 / zoom);
  assert_position (b, 250, 0);
  g_assert_cmpstr (sk_history_get_undo_label (f->history), ==, "Move Step");
  wait_for_frame (f);

  undo_only_step (f);
  assert_position (a, 0, 0);
  g_assert_true (sk_history_redo (f->history));
  assert_position (a, 60 / zoom, -40 / zoom);

  /* Dragging one of several selected steps moves them all together. */
  start_clean (f);
  click_node (f, b, GDK_BUTTON_PRIMARY, GDK_SHIFT_MASK);
  g_assert_cmpuint (selection_size (f), ==, 2);
  model_to_widget (f, 250, 0, &x, &y);
  g_assert_true (_sk_canvas_drag_begin (f->canvas, x, y, 0));
  _sk_canvas_drag_update (f->canvas, 10, 10);
  _sk_canvas_drag_end (f->canvas, 100, 0);
  assert_position (a, (60 + 100) / zoom, -40 / zoom);
  assert_position (b, 250 + 100 / zoom, 0);
  g_assert_cmpstr (sk_history_get_undo_label (f->history), ==, "Move Steps");
  undo_only_step (f);
  assert_position (a, 60 / zoom, -40 / zoom);
  assert_position (b, 250, 0);

  /* A press and release without moving is no step. */
  start_clean (f);
  g_assert_true (_sk_canvas_drag_begin (f->canvas, x, y, 0));
  _sk_canvas_drag_end (f->canvas, 1, 0);
  assert_position (b, 250, 0);
  g_assert_false (sk_history_get_can_undo (f->history));

  /* The keyboard moves steps too, one step per key press. */
  sk_canvas_select_node (f->canvas, b);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->canvas), "canvas.nudge", "s", "right"));
  g_assert_cmpfloat (sk_node_get_position (b, &x, &y) ? x : 0, >, 250);
  undo_only_step (f);
  assert_position (b, 250, 0);
}

/* The window opens another workflow by clearing the canvas, giving it a new
 * history and then the new workflow; a drag that began before must not
 * close its group on the new history.
 */
static void
test_drag_interrupted (Fixture       *f,
                       gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 0);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(SkNode) other = sk_node_new ("1", "other");
  g_autoptr(GError) error = NULL;
  double x, y;

  start_clean (f);

  /* The dragged step goes away during the drag; the others still move. */
  click_node (f, a, GDK_BUTTON_PRIMARY, 0);
  click_node (f, b, GDK_BUTTON_PRIMARY, GDK_SHIFT_MASK);
  model_to_widget (f, 0, 0, &x, &y);
  g_assert_true (_sk_canvas_drag_begin (f->canvas, x, y, 0));
  _sk_canvas_drag_update (f->canvas, 10, 0);
  sk_project_remove_node (f->project, a);
  _sk_canvas_drag_update (f->canvas, 20, 0);
  _sk_canvas_drag_end (f->canvas, 30, 0);
  assert_position (b, 280, 0);
  g_assert_cmpuint (n_nodes (f), ==, 1);
  /* The removal and the move were one step. */
  undo_only_step (f);
  g_assert_cmpuint (n_nodes (f), ==, 2);
  assert_position (b, 250, 0);
  wait_for_frame (f);

  /* The history is replaced during a drag: the move so far is one step of
   * the old history, and the rest of the drag does nothing. */
  {
    g_autoptr(SkHistory) old_history = g_object_ref (f->history);

    start_clean (f);
    model_to_widget (f, 250, 0, &x, &y);
    g_assert_true (_sk_canvas_drag_begin (f->canvas, x, y, 0));
    _sk_canvas_drag_update (f->canvas, 10, 10);
    g_clear_object (&f->history);
    f->history = sk_history_new (f->project);
    sk_canvas_set_history (f->canvas, f->history);
    _sk_canvas_drag_update (f->canvas, 20, 20);
    _sk_canvas_drag_end (f->canvas, 20, 20);
    assert_position (b, 260, 10);
    g_assert_false (sk_history_get_can_undo (f->history));
    g_assert_true (sk_history_undo (old_history));
    assert_position (b, 250, 0);
    g_assert_false (sk_history_get_can_undo (old_history));
  }

  /* The workflow is replaced during a drag. */
  start_clean (f);
  model_to_widget (f, 250, 0, &x, &y);
  g_assert_true (_sk_canvas_drag_begin (f->canvas, x, y, 0));
  _sk_canvas_drag_update (f->canvas, 10, 10);
  assert_position (b, 260, 10);

  project = sk_project_new (NULL);
  sk_node_set_position (other, 0, 0);
  sk_project_add_node (project, other, &error);
  g_assert_no_error (error);
  sk_canvas_set_project (f->canvas, NULL);
  g_clear_object (&f->history);
  f->history = sk_history_new (project);
  sk_canvas_set_history (f->canvas, f->history);
  sk_canvas_set_project (f->canvas, project);

  _sk_canvas_drag_update (f->canvas, 40, 40);
  _sk_canvas_drag_end (f->canvas, 50, 50);
  assert_position (other, 0, 0);
  g_assert_false (sk_history_get_can_undo (f->history));

  /* The new history works: an edit is one step. */
  click_node (f, other, GDK_BUTTON_SECONDARY, 0);
  undo_only_step (f);
  g_set_object (&f->project, project);
  wait_for_frame (f);
}

static void
test_rubber_band (Fixture       *f,
                  gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 300, 0);
  SkNode *c = add_node (f, "c", 0, 200);
  SkNode *outside = add_node (f, "outside", 600, 400);
  /* Its centre is inside the band, its right end is not. */
  SkNode *partly = add_node (f, "partly", 380, 100);
  double x0, y0, x1, y1;

  start_clean (f);
  click_node (f, outside, GDK_BUTTON_PRIMARY, 0);

  model_to_widget (f, -100, -50, &x0, &y0);
  model_to_widget (f, 400, 250, &x1, &y1);
  g_assert_null (_sk_canvas_node_at (f->canvas, x0, y0));
  g_assert_true (_sk_canvas_drag_begin (f->canvas, x0, y0, 0));
  _sk_canvas_drag_update (f->canvas, (x1 - x0) / 2, (y1 - y0) / 2);
  wait_for_frame (f);
  _sk_canvas_drag_end (f->canvas, x1 - x0, y1 - y0);

  g_assert_cmpuint (selection_size (f), ==, 3);
  g_assert_true (is_selected (f, a));
  g_assert_true (is_selected (f, b));
  g_assert_true (is_selected (f, c));
  g_assert_false (is_selected (f, outside));
  g_assert_false (is_selected (f, partly));
  g_assert_nonnull (sk_canvas_get_selected_node (f->canvas));
  g_assert_cmpuint (n_nodes (f), ==, 5);
  assert_position (a, 0, 0);
  g_assert_false (sk_history_get_can_undo (f->history));
  g_assert_false (sk_project_get_modified (f->project));

  /* Dragged up and to the left, the band selects the same way; shift adds
   * to the selection. */
  model_to_widget (f, 800, 500, &x0, &y0);
  model_to_widget (f, 500, 300, &x1, &y1);
  g_assert_true (_sk_canvas_drag_begin (f->canvas, x0, y0, GDK_SHIFT_MASK));
  _sk_canvas_drag_end (f->canvas, x1 - x0, y1 - y0);
  g_assert_cmpuint (selection_size (f), ==, 4);
  g_assert_true (is_selected (f, outside));
  g_assert_true (is_selected (f, a));

  /* A band around nothing clears the selection. */
  model_to_widget (f, -110, 400, &x0, &y0);
  g_assert_true (_sk_canvas_drag_begin (f->canvas, x0, y0, 0));
  _sk_canvas_drag_end (f->canvas, 30, 30);
  g_assert_cmpuint (selection_size (f), ==, 0);
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
}

static void
test_scroll_pan (Fixture       *f,
                 gconstpointer  data)
{
  double ox, oy, nx, ny;
  double before_x, before_y, after_x, after_y;
  double zoom = sk_canvas_get_zoom (f->canvas);

  add_node (f, "a", 0, 0);
  start_clean (f);

  model_to_widget (f, 0, 0, &ox, &oy);
  _sk_canvas_widget_to_model (f->canvas, 400, 300, &before_x, &before_y);
  _sk_canvas_scroll (f->canvas, 400, 300, 10, 20, 0);
  model_to_widget (f, 0, 0, &nx, &ny);
  _sk_canvas_widget_to_model (f->canvas, 400, 300, &after_x, &after_y);

  g_assert_cmpfloat_with_epsilon (nx, ox - 10, 1e-9);
  g_assert_cmpfloat_with_epsilon (ny, oy - 20, 1e-9);
  g_assert_cmpfloat_with_epsilon (after_x - before_x, 10 / zoom, 1e-9);
  g_assert_cmpfloat_with_epsilon (after_y - before_y, 20 / zoom, 1e-9);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, zoom);
  g_assert_cmpuint (f->zoom_notifies, ==, 0);

  /* Shift turns the wheel sideways. */
  _sk_canvas_scroll (f->canvas, 400, 300, 0, 15, GDK_SHIFT_MASK);
  model_to_widget (f, 0, 0, &ox, &oy);
  g_assert_cmpfloat_with_epsilon (ox, nx - 15, 1e-9);
  g_assert_cmpfloat_with_epsilon (oy, ny, 1e-9);
  wait_for_frame (f);

  /* Panning is not an edit. */
  g_assert_false (sk_history_get_can_undo (f->history));
  g_assert_false (sk_project_get_modified (f->project));
}

static void
test_scroll_zoom (Fixture       *f,
                  gconstpointer  data)
{
  double before_x, before_y, after_x, after_y;
  const double px = 250, py = 170;

  add_node (f, "a", 0, 0);
  start_clean (f);

  _sk_canvas_widget_to_model (f->canvas, px, py, &before_x, &before_y);
  _sk_canvas_scroll (f->canvas, px, py, 0, -1, GDK_CONTROL_MASK);
  g_assert_cmpfloat_with_epsilon (sk_canvas_get_zoom (f->canvas), 1.2, 1e-9);
  g_assert_cmpuint (f->zoom_notifies, ==, 1);
  _sk_canvas_widget_to_model (f->canvas, px, py, &after_x, &after_y);
  g_assert_cmpfloat_with_epsilon (after_x, before_x, 1e-9);
  g_assert_cmpfloat_with_epsilon (after_y, before_y, 1e-9);

  _sk_canvas_scroll (f->canvas, 600, 90, 0, 2.5, GDK_CONTROL_MASK);
  g_assert_cmpfloat_with_epsilon (sk_canvas_get_zoom (f->canvas), 1.2 * pow (1.2, -2.5), 1e-9);
  _sk_canvas_widget_to_model (f->canvas, 600, 90, &before_x, &before_y);
  _sk_canvas_scroll (f->canvas, 600, 90, 0, -0.5, GDK_CONTROL_MASK);
  _sk_canvas_widget_to_model (f->canvas, 600, 90, &after_x, &after_y);
  g_assert_cmpfloat_with_epsilon (after_x, before_x, 1e-9);
  g_assert_cmpfloat_with_epsilon (after_y, before_y, 1e-9);
  wait_for_frame (f);

  /* Clamped at both ends, still around the pointer. */
  _sk_canvas_widget_to_model (f->canvas, px, py, &before_x, &before_y);
  _sk_canvas_scroll (f->canvas, px, py, 0, -100, GDK_CONTROL_MASK);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, 4.0);
  _sk_canvas_widget_to_model (f->canvas, px, py, &after_x, &after_y);
  g_assert_cmpfloat_with_epsilon (after_x, before_x, 1e-9);
  g_assert_cmpfloat_with_epsilon (after_y, before_y, 1e-9);
  wait_for_frame (f);

  f->zoom_notifies = 0;
  _sk_canvas_scroll (f->canvas, px, py, 0, -3, GDK_CONTROL_MASK);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, 4.0);
  g_assert_cmpuint (f->zoom_notifies, ==, 0);

  _sk_canvas_scroll (f->canvas, px, py, 0, 100, GDK_CONTROL_MASK);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, 0.2);
  _sk_canvas_widget_to_model (f->canvas, px, py, &after_x, &after_y);
  g_assert_cmpfloat_with_epsilon (after_x, before_x, 1e-9);
  g_assert_cmpfloat_with_epsilon (after_y, before_y, 1e-9);
  wait_for_frame (f);

  sk_canvas_set_zoom (f->canvas, 0.01);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, 0.2);
  sk_canvas_set_zoom (f->canvas, 50);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, 4.0);

  g_assert_false (sk_history_get_can_undo (f->history));
}

static void
test_zoom_actions (Fixture       *f,
                   gconstpointer  data)
{
  double cx = WINDOW_WIDTH / 2.0, cy = WINDOW_HEIGHT / 2.0;
  double before_x, before_y, after_x, after_y;
  guint n;

  add_node (f, "a", 0, 0);
  add_node (f, "b", 2000, 0);
  add_node (f, "c", 1000, 1500);
  start_clean (f);

  _sk_canvas_widget_to_model (f->canvas, cx, cy, &before_x, &before_y);
  activate (f, "canvas.zoom-in");
  g_assert_cmpfloat_with_epsilon (sk_canvas_get_zoom (f->canvas), 1.2, 1e-9);
  _sk_canvas_widget_to_model (f->canvas, cx, cy, &after_x, &after_y);
  g_assert_cmpfloat_with_epsilon (after_x, before_x, 1e-9);
  g_assert_cmpfloat_with_epsilon (after_y, before_y, 1e-9);

  activate (f, "canvas.zoom-out");
  activate (f, "canvas.zoom-out");
  g_assert_cmpfloat_with_epsilon (sk_canvas_get_zoom (f->canvas), 1 / 1.2, 1e-9);
  activate (f, "canvas.zoom-reset");
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, 1.0);
  _sk_canvas_widget_to_model (f->canvas, cx, cy, &after_x, &after_y);
  g_assert_cmpfloat_with_epsilon (after_x, before_x, 1e-9);
  g_assert_cmpfloat_with_epsilon (after_y, before_y, 1e-9);
  g_assert_cmpuint (f->zoom_notifies, ==, 4);

  /* Zoom in as far as it goes: the limit holds. */
  for (guint i = 0; i < 20; i++)
    gtk_widget_activate_action (GTK_WIDGET (f->canvas), "canvas.zoom-in", NULL);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, 4.0);
  for (guint i = 0; i < 30; i++)
    gtk_widget_activate_action (GTK_WIDGET (f->canvas), "canvas.zoom-out", NULL);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, SK_CANVAS_MIN_ZOOM);

  /* Fit shows every step. */
  activate (f, "canvas.zoom-fit");
  wait_for_frame (f);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), >, 0.2);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), <, 1.0);
  n = n_nodes (f);
  for (guint i = 0; i < n; i++)
    {
      double mx, my, x0, y0, x1, y1;

      g_assert_true (sk_node_get_position (nth_node (f, i), &mx, &my));
      model_to_widget (f, mx - SK_CANVAS_NODE_WIDTH / 2, my - SK_CANVAS_NODE_HEIGHT / 2, &x0, &y0);
      model_to_widget (f, mx + SK_CANVAS_NODE_WIDTH / 2, my + SK_CANVAS_NODE_HEIGHT / 2, &x1, &y1);
      g_assert_cmpfloat (x0, >=, 0);
      g_assert_cmpfloat (y0, >=, 0);
      g_assert_cmpfloat (x1, <=, WINDOW_WIDTH);
      g_assert_cmpfloat (y1, <=, WINDOW_HEIGHT);
    }

  g_assert_false (sk_history_get_can_undo (f->history));
}

static void
test_keyboard (Fixture       *f,
               gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 0);
  SkNode *c = add_node (f, "c", 0, 150);
  SkNode *added;
  double x, y;

  start_clean (f);

  /* Without a selection, moving starts at the first step. */
  move_focus (f, "next");
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  move_focus (f, "next");
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  move_focus (f, "previous");
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  move_focus (f, "right");
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  move_focus (f, "left");
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  move_focus (f, "down");
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == c);
  move_focus (f, "up");
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  /* Nothing further up: the selection stays. */
  move_focus (f, "up");
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  g_assert_cmpuint (selection_size (f), ==, 1);

  /* Connect a to b from the keyboard. */
  activate (f, "canvas.connect");
  g_assert_true (_sk_canvas_get_connect_source (f->canvas) == a);
  move_focus (f, "right");
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  g_assert_true (_sk_canvas_get_connect_source (f->canvas) == a);
  activate (f, "canvas.activate");
  g_assert_null (_sk_canvas_get_connect_source (f->canvas));
  g_assert_true (sk_node_has_prior (b, sk_node_get_id (a)));
  g_assert_cmpuint (f->node_activated, ==, 0);
  undo_only_step (f);
  g_assert_cmpuint (n_priors (b), ==, 0);

  /* canvas.connect finishes it as well; Escape cancels. */
  sk_canvas_select_node (f->canvas, c);
  activate (f, "canvas.connect");
  move_focus (f, "up");
  activate (f, "canvas.connect");
  g_assert_true (sk_node_has_prior (a, sk_node_get_id (c)));
  g_assert_null (_sk_canvas_get_connect_source (f->canvas));

  activate (f, "canvas.connect");
  g_assert_true (_sk_canvas_get_connect_source (f->canvas) == a);
  activate (f, "canvas.escape");
  g_assert_null (_sk_canvas_get_connect_source (f->canvas));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  activate (f, "canvas.escape");
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
  g_assert_cmpuint (selection_size (f), ==, 0);

  /* Return opens the focused step when no connection is pending. */
  sk_canvas_select_node (f->canvas, b);
  activate (f, "canvas.activate");
  g_assert_cmpuint (f->node_activated, ==, 1);
  g_assert_true (f->last_node == b);

  /* Space marks and unmarks the selection. */
  start_clean (f);
  g_assert_false (sk_node_get_run (b));
  activate (f, "canvas.toggle-run");
  g_assert_true (sk_node_get_run (b));
  g_assert_false (sk_node_get_run (a));
  undo_only_step (f);
  g_assert_false (sk_node_get_run (b));
  activate (f, "canvas.toggle-run");
  activate (f, "canvas.toggle-run");
  g_assert_false (sk_node_get_run (b));

  /* A new step goes below the selected one and becomes the selection. */
  start_clean (f);
  sk_canvas_select_node (f->canvas, c);
  activate (f, "canvas.add-step");
  g_assert_cmpuint (n_nodes (f), ==, 4);
  added = nth_node (f, 3);
  g_assert_cmpuint (f->node_created, ==, 1);
  g_assert_true (f->last_node == added);
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == added);
  g_assert_cmpstr (sk_node_get_name (added), ==, "step");
  g_assert_true (sk_node_get_run (added));
  g_assert_true (sk_node_get_position (added, &x, &y));
  g_assert_cmpfloat (y, >, 150 + SK_CANVAS_NODE_HEIGHT);
  /* It is visible, since the view follows the focus. */
  model_to_widget (f, x, y, &x, &y);
  g_assert_cmpfloat (x, >, 0);
  g_assert_cmpfloat (x, <, WINDOW_WIDTH);
  g_assert_cmpfloat (y, >, 0);
  g_assert_cmpfloat (y, <, WINDOW_HEIGHT);
  undo_only_step (f);
  g_assert_cmpuint (n_nodes (f), ==, 3);
  g_assert_null (sk_canvas_get_selected_node (f->canvas));

  /* Select all. */
  activate (f, "canvas.select-all");
  g_assert_cmpuint (selection_size (f), ==, 3);
}

static void
test_undo_redo (Fixture       *f,
                gconstpointer  data)
{
  SkNode *a;
  SkNode *b;
  g_autofree char *a_id = NULL;
  g_autofree char *b_id = NULL;

  start_clean (f);

  /* Add. */
  click_at (f, 0, 0, GDK_BUTTON_PRIMARY, 0);
  g_assert_cmpuint (n_nodes (f), ==, 1);
  a = nth_node (f, 0);
  a_id = g_strdup (sk_node_get_id (a));
  undo_only_step (f);
  g_assert_cmpuint (n_nodes (f), ==, 0);
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
  g_assert_true (sk_history_redo (f->history));
  g_assert_cmpuint (n_nodes (f), ==, 1);
  a = nth_node (f, 0);
  g_assert_cmpstr (sk_node_get_id (a), ==, a_id);
  assert_position (a, 0, 0);
  g_assert_true (sk_node_get_run (a));

  start_clean (f);
  click_at (f, 0, 200, GDK_BUTTON_PRIMARY, 0);
  b = nth_node (f, 1);
  b_id = g_strdup (sk_node_get_id (b));
  g_assert_cmpstr (sk_node_get_name (b), ==, "step 2");

  /* Connect. */
  start_clean (f);
  click_node (f, a, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);
  click_node (f, b, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);
  g_assert_true (sk_node_has_prior (b, a_id));
  undo_only_step (f);
  g_assert_false (sk_node_has_prior (b, a_id));
  g_assert_true (sk_history_redo (f->history));
  g_assert_true (sk_node_has_prior (b, a_id));

  /* Toggle. */
  start_clean (f);
  click_node (f, a, GDK_BUTTON_SECONDARY, 0);
  g_assert_false (sk_node_get_run (a));
  undo_only_step (f);
  g_assert_true (sk_node_get_run (a));
  g_assert_true (sk_history_redo (f->history));
  g_assert_false (sk_node_get_run (a));

  /* Rename, as the properties dialog does: the canvas shows the new name. */
  start_clean (f);
  sk_node_set_name (a, "Load data");
  sk_history_flush (f->history);
  wait_for_frame (f);
  undo_only_step (f);
  g_assert_cmpstr (sk_node_get_name (a), ==, "step");
  g_assert_true (sk_history_redo (f->history));
  g_assert_cmpstr (sk_node_get_name (a), ==, "Load data");
  wait_for_frame (f);

  /* Delete: the edge comes back with the step. */
  start_clean (f);
  sk_canvas_select_node (f->canvas, a);
  activate (f, "canvas.delete");
  g_assert_cmpuint (n_nodes (f), ==, 1);
  g_assert_false (sk_node_has_prior (b, a_id));
  undo_only_step (f);
  g_assert_cmpuint (n_nodes (f), ==, 2);
  a = sk_project_get_node (f->project, a_id);
  g_assert_nonnull (a);
  g_assert_cmpstr (sk_node_get_name (a), ==, "Load data");
  g_assert_true (sk_node_has_prior (b, a_id));
  g_assert_true (sk_history_redo (f->history));
  g_assert_null (sk_project_get_node (f->project, a_id));
  g_assert_cmpuint (n_priors (b), ==, 0);
  g_assert_true (sk_history_undo (f->history));
  wait_for_frame (f);
}

static void
test_model_changes (Fixture       *f,
                    gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 0);
  SkNode *c = add_node (f, "c", 0, 150);
  SkNode *prior = NULL;
  SkNode *node = NULL;
  double mx, my;

  connect (a, c);
  start_clean (f);

  /* A running step animates; the canvas keeps drawing until it ends. */
  sk_node_set_state (a, SK_NODE_STATE_RUNNING);
  sk_node_set_state (b, SK_NODE_STATE_RUNNING);
  wait_for_frame (f);
  wait_for_frame (f);
  sk_node_set_state (a, SK_NODE_STATE_SUCCEEDED);
  sk_node_set_state (c, SK_NODE_STATE_FAILED);
  wait_for_frame (f);

  /* Removing the focused, running step elsewhere drops it from the
   * selection. */
  sk_canvas_select_node (f->canvas, b);
  f->selected_notifies = 0;
  sk_project_remove_node (f->project, b);
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
  g_assert_cmpuint (selection_size (f), ==, 0);
  g_assert_cmpuint (f->selected_notifies, ==, 1);
  model_to_widget (f, 250, 0, &mx, &my);
  g_assert_null (_sk_canvas_node_at (f->canvas, mx, my));
  wait_for_frame (f);

  /* One of several selected steps. */
  click_node (f, a, GDK_BUTTON_PRIMARY, 0);
  click_node (f, c, GDK_BUTTON_PRIMARY, GDK_SHIFT_MASK);
  sk_project_remove_node (f->project, c);
  g_assert_cmpuint (selection_size (f), ==, 1);
  g_assert_true (is_selected (f, a));
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
  wait_for_frame (f);

  /* The pending connection's source. */
  click_node (f, a, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK);
  g_assert_true (_sk_canvas_get_connect_source (f->canvas) == a);
  c = add_node (f, "c", 0, 150);
  connect (a, c);
  sk_project_remove_node (f->project, a);
  g_assert_null (_sk_canvas_get_connect_source (f->canvas));
  g_assert_cmpuint (selection_size (f), ==, 0);
  wait_for_frame (f);

  /* The selected edge's end. */
  a = add_node (f, "a", 0, 0);
  connect (a, c);
  edge_midpoint (a, c, &mx, &my);
  click_at (f, mx, my, GDK_BUTTON_PRIMARY, 0);
  g_assert_true (_sk_canvas_get_selected_edge (f->canvas, &prior, &node));
  sk_project_remove_node (f->project, a);
  g_assert_false (_sk_canvas_get_selected_edge (f->canvas, NULL, NULL));
  g_assert_cmpuint (n_priors (c), ==, 0);
  /* Delete now has nothing to delete. */
  gtk_widget_activate_action (GTK_WIDGET (f->canvas), "canvas.delete", NULL);
  g_assert_cmpuint (n_nodes (f), ==, 1);
  wait_for_frame (f);

  /* Moved and renamed elsewhere: hit testing follows. */
  sk_node_set_position (c, 400, 300);
  sk_node_set_name (c, "renamed");
  model_to_widget (f, 0, 150, &mx, &my);
  g_assert_null (_sk_canvas_node_at (f->canvas, mx, my));
  model_to_widget (f, 400, 300, &mx, &my);
  g_assert_true (_sk_canvas_node_at (f->canvas, mx, my) == c);
  wait_for_frame (f);

  /* Another workflow, and none. */
  sk_canvas_set_project (f->canvas, NULL);
  g_assert_null (sk_canvas_get_project (f->canvas));
  g_assert_null (_sk_canvas_node_at (f->canvas, mx, my));
  click_at (f, 0, 0, GDK_BUTTON_PRIMARY, 0);
  g_assert_cmpuint (n_nodes (f), ==, 1);
  wait_for_frame (f);
  sk_canvas_set_project (f->canvas, f->project);
  wait_for_frame (f);
  model_to_widget (f, 400, 300, &mx, &my);
  g_assert_true (_sk_canvas_node_at (f->canvas, mx, my) == c);
  g_assert_null (sk_canvas_get_selected_node (f->canvas));
}

static void
test_arrange (Fixture       *f,
              gconstpointer  data)
{
  const char *names[] = { "load", "clean", "chart", "summary", "report", "archive", "mail" };
  /* Each step's priors, as indices into names. */
  const int priors[][2] = {
    { -1, -1 }, { 0, -1 }, { 1, -1 }, { 0, 1 }, { 2, 3 }, { 0, -1 }, { 4, 5 },
  };
  SkNode *nodes[G_N_ELEMENTS (names)];

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      /* All on one spot, as a pasted workflow might be. */
      nodes[i] = add_node (f, names[i], 10, 10);
      for (guint j = 0; j < 2; j++)
        if (priors[i][j] >= 0)
          connect (nodes[priors[i][j]], nodes[i]);
    }
  start_clean (f);

  sk_canvas_arrange (f->canvas);
  g_assert_true (_sk_canvas_is_arranging (f->canvas));
  wait_for_arrange (f);

  g_assert_cmpuint (f->messages, ==, 0);
  assert_no_overlaps (f);
  /* Graphviz puts each step below the steps it needs. */
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    for (guint j = 0; j < 2; j++)
      if (priors[i][j] >= 0)
        {
          double px, py, x, y;

          g_assert_true (sk_node_get_position (nodes[priors[i][j]], &px, &py));
          g_assert_true (sk_node_get_position (nodes[i], &x, &y));
          g_assert_cmpfloat (y, >, py);
        }
  g_assert_cmpstr (sk_history_get_undo_label (f->history), ==, "Arrange");
  g_assert_true (sk_project_get_modified (f->project));

  /* Everything is in view after arranging. */
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      double x, y;

      g_assert_true (sk_node_get_position (nodes[i], &x, &y));
      model_to_widget (f, x, y, &x, &y);
      g_assert_cmpfloat (x, >, 0);
      g_assert_cmpfloat (x, <, WINDOW_WIDTH);
      g_assert_cmpfloat (y, >, 0);
      g_assert_cmpfloat (y, <, WINDOW_HEIGHT);
    }

  undo_only_step (f);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    assert_position (nodes[i], 10, 10);
}

static void
test_arrange_on_open (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) folder = g_file_new_for_path (f->folder);
  const char json[] =
    "{\"process_name\": \"unplaced\", \"nodes\": {"
    "  \"1\": {\"name\": \"one\", \"priors\": []},"
    "  \"2\": {\"name\": \"two\", \"priors\": [\"1\"]},"
    "  \"3\": {\"name\": \"three\", \"priors\": [\"1\"]},"
    "  \"4\": {\"name\": \"four\", \"priors\": [\"2\", \"3\"]},"
    "  \"5\": {\"name\": \"five\", \"priors\": []}"
    "}}";

  project = sk_project_load_from_data (json, -1, folder, &error);
  g_assert_no_error (error);
  g_assert_false (sk_project_get_modified (project));
  for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

      g_assert_false (sk_node_get_position (node, NULL, NULL));
    }

  /* As the window opens a workflow: a new history, then the canvas. */
  g_clear_object (&f->history);
  g_set_object (&f->project, project);
  f->history = sk_history_new (f->project);
  sk_canvas_set_history (f->canvas, f->history);
  sk_canvas_set_project (f->canvas, f->project);
  g_assert_true (_sk_canvas_is_arranging (f->canvas));
  wait_for_arrange (f);

  g_assert_cmpuint (f->messages, ==, 0);
  for (guint i = 0; i < n_nodes (f); i++)
    g_assert_true (sk_node_get_position (nth_node (f, i), NULL, NULL));
  assert_no_overlaps (f);
  g_assert_false (sk_project_get_modified (f->project));
  g_assert_false (sk_history_get_can_undo (f->history));
  g_assert_false (sk_history_undo (f->history));

  /* The next edit is the first step. */
  click_node (f, nth_node (f, 0), GDK_BUTTON_SECONDARY, 0);
  undo_only_step (f);
}

static guint
count_colours (GdkTexture *texture)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  gsize stride = (gsize) width * 4;
  g_autofree guchar *data = g_malloc (stride * height);
  g_autoptr(GHashTable) colours = g_hash_table_new (NULL, NULL);

  gdk_texture_download (texture, data, stride);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        guint32 pixel;

        memcpy (&pixel, data + y * stride + x * 4, 4);
        g_hash_table_add (colours, GUINT_TO_POINTER (pixel));
      }

  return g_hash_table_size (colours);
}

/* Builds the canvas's frame by calling its snapshot function, as the
 * window does, and renders it with the window's renderer. (A
 * GtkWidgetPaintable would replay the last frame the window drew instead.)
 */
static GdkTexture *
render_canvas (Fixture *f)
{
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (f->window));
  g_autoptr(GskRenderNode) node = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  graphene_rect_t viewport = GRAPHENE_RECT_INIT (0, 0, WINDOW_WIDTH, WINDOW_HEIGHT);

  g_assert_nonnull (renderer);
  GTK_WIDGET_GET_CLASS (f->canvas)->snapshot (GTK_WIDGET (f->canvas), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);

  return gsk_renderer_render_texture (renderer, node, &viewport);
}

static guint32
pixel_at (GdkTexture *texture,
          int         x,
          int         y)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  gsize stride = (gsize) width * 4;
  g_autofree guchar *data = g_malloc (stride * height);
  guint32 pixel;

  gdk_texture_download (texture, data, stride);
  memcpy (&pixel, data + y * stride + x * 4, 4);
  return pixel;
}

static void
test_render (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GdkTexture) empty = NULL;
  g_autoptr(GdkTexture) full = NULL;
  g_autoptr(GdkTexture) moved = NULL;
  g_autoptr(GdkTexture) far = NULL;
  SkNode *a;
  SkNode *b;
  SkNode *c;
  guint empty_colours, full_colours;
  double x, y;

  empty = render_canvas (f);
  g_assert_cmpint (gdk_texture_get_width (empty), ==, WINDOW_WIDTH);
  g_assert_cmpint (gdk_texture_get_height (empty), ==, WINDOW_HEIGHT);
  empty_colours = count_colours (empty);
  g_assert_cmpuint (empty_colours, >=, 1);

  a = add_node (f, "Load the data", 0, 0);
  b = add_node (f, "Clean it", 0, 200);
  c = add_node (f, "Chart", 300, 200);
  connect (a, b);
  connect (a, c);
  sk_node_set_run (b, TRUE);
  sk_node_set_state (c, SK_NODE_STATE_FAILED);
  sk_canvas_select_node (f->canvas, a);
  wait_for_frame (f);

  full = render_canvas (f);
  full_colours = count_colours (full);
  g_test_message ("renderer %s: %u colours empty, %u with steps",
                  G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (f->window))),
                  empty_colours, full_colours);
  /* Text, borders, edges and the state stripes are antialiased into many
   * colours; an empty canvas is the background and its dot grid. */
  g_assert_cmpuint (full_colours, >, 16);
  g_assert_cmpuint (full_colours, >, empty_colours);

  /* The middle of a step is drawn in the step's fill, not the background. */
  model_to_widget (f, 40, 20, &x, &y);
  g_assert_cmpuint (pixel_at (full, (int) x, (int) y), !=, pixel_at (empty, (int) x, (int) y));

  /* Moving a step changes the picture. */
  sk_node_set_position (c, 500, 300);
  wait_for_frame (f);
  moved = render_canvas (f);
  model_to_widget (f, 300, 200, &x, &y);
  g_assert_cmpuint (pixel_at (moved, (int) x, (int) y), !=, pixel_at (full, (int) x, (int) y));

  /* Zoomed far out the steps are plain boxes without labels, still drawn. */
  sk_canvas_set_zoom (f->canvas, 0.25);
  far = render_canvas (f);
  g_assert_cmpuint (count_colours (far), >, empty_colours + 2);
  model_to_widget (f, 0, 0, &x, &y);
  g_assert_cmpuint (pixel_at (far, (int) x, (int) y), !=, pixel_at (empty, (int) x, (int) y));
}

/* Fit shows every step of a large workflow, however large, and zooming
 * out goes as far as that and no further. */
static void
test_fit_large (Fixture       *f,
                gconstpointer  data)
{
  const guint sizes[] = { 300, 5000 };

  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      guint n;
      double fitted;

      while (n_nodes (f) > 0)
        sk_project_remove_node (f->project, nth_node (f, 0));
      /* 300 steps in one row of 30, 5,000 in one tall column of 10. */
      add_grid (f, sizes[k], k == 0 ? 30 : 10);
      start_clean (f);

      activate (f, "canvas.zoom-fit");
      wait_for_frame (f);
      fitted = sk_canvas_get_zoom (f->canvas);
      g_assert_cmpfloat (fitted, <, 0.2);
      n = n_nodes (f);
      for (guint i = 0; i < n; i++)
        g_assert_true (node_in_view (f, nth_node (f, i)));

      /* The zoom property and the buttons follow. */
      g_object_get (f->canvas, "zoom", &fitted, NULL);
      g_assert_cmpfloat (fitted, ==, sk_canvas_get_zoom (f->canvas));
      activate (f, "canvas.zoom-in");
      g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), >, fitted);

      /* Zooming out stops where the whole workflow shows. */
      for (guint i = 0; i < 60; i++)
        gtk_widget_activate_action (GTK_WIDGET (f->canvas), "canvas.zoom-out", NULL);
      g_assert_cmpfloat_with_epsilon (sk_canvas_get_zoom (f->canvas), fitted, 1e-9);
      for (guint i = 0; i < n; i++)
        g_assert_true (node_in_view (f, nth_node (f, i)));
    }

  g_assert_false (sk_history_get_can_undo (f->history));
}

/* The minimap shows while part of the workflow is out of view, and a click
 * in it moves the view there. */
static void
test_minimap (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GdkTexture) before = NULL;
  g_autoptr(GdkTexture) after = NULL;
  graphene_point_t corner;
  SkNode *last;
  int width, height;

  add_grid (f, 300, 30);
  last = nth_node (f, 299);
  start_clean (f);
  activate (f, "canvas.zoom-fit");
  wait_for_frame (f);

  /* All in view: no map, and the pointer reaches the canvas there. */
  g_assert_false (_sk_canvas_minimap_shown (f->canvas));
  g_assert_true (gtk_widget_compute_point (f->canvas->minimap, GTK_WIDGET (f->canvas),
                                           &GRAPHENE_POINT_INIT (10, 10), &corner));
  g_assert_true (gtk_widget_pick (GTK_WIDGET (f->canvas), corner.x, corner.y, GTK_PICK_DEFAULT) ==
                 GTK_WIDGET (f->canvas));
  before = render_canvas (f);

  activate (f, "canvas.zoom-reset");
  wait_for_frame (f);
  g_assert_true (_sk_canvas_minimap_shown (f->canvas));
  g_assert_true (gtk_widget_pick (GTK_WIDGET (f->canvas), corner.x, corner.y, GTK_PICK_DEFAULT) ==
                 f->canvas->minimap);
  g_assert_false (node_in_view (f, last));
  after = render_canvas (f);
  g_assert_cmpuint (pixel_at (after, (int) corner.x + 2, (int) corner.y + 2), !=,
                    pixel_at (before, (int) corner.x + 2, (int) corner.y + 2));

  /* The map shows the 30 × 10 grid across its width, centred; a click near
   * its right end, below the middle, brings the last step into view. */
  width = gtk_widget_get_width (f->canvas->minimap);
  height = gtk_widget_get_height (f->canvas->minimap);
  _sk_canvas_minimap_move_view (f->canvas, width - 10, height / 2.0 + 12);
  wait_for_frame (f);
  g_assert_true (node_in_view (f, last));
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, 1.0);
  /* Clicking the map changed no step. */
  g_assert_cmpuint (n_nodes (f), ==, 300);
  g_assert_false (sk_history_get_can_undo (f->history));

  /* It does not cover the window's zoom buttons in the bottom right. */
  g_assert_true (gtk_widget_compute_point (f->canvas->minimap, GTK_WIDGET (f->canvas),
                                           &GRAPHENE_POINT_INIT (width, 0), &corner));
  g_assert_cmpfloat (corner.x, <, WINDOW_WIDTH / 2.0);
}

/* Ctrl+F finds steps by name, then by task, as the user types. */
static void
test_find (Fixture       *f,
           gconstpointer  data)
{
  SkNode *revenue;
  SkNode *region;
  SkNode *tasked;

  add_grid (f, 300, 30);
  revenue = add_node (f, "Revenue by month", 6000, 3000);
  region = add_node (f, "revenue by region", 200, 3400);
  tasked = add_node (f, "chart", 3000, 3400);
  sk_node_set_input_text (tasked, "Plot the revenue per region");
  start_clean (f);
  activate (f, "canvas.zoom-reset");
  gtk_widget_grab_focus (GTK_WIDGET (f->canvas));
  g_assert_false (gtk_widget_get_visible (f->canvas->find_bar));

  g_assert_true (press_key (f, GDK_KEY_f, GDK_CONTROL_MASK));
  wait_for_frame (f);
  g_assert_true (gtk_widget_get_visible (f->canvas->find_bar));
  g_assert_true (focus_widget (f) == f->canvas->find_entry ||
                 gtk_widget_is_ancestor (focus_widget (f), f->canvas->find_entry));

  gtk_editable_set_text (GTK_EDITABLE (f->canvas->find_entry), "REVENUE");
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == revenue);
  g_assert_cmpuint (selection_size (f), ==, 1);
  g_assert_true (node_in_view (f, revenue));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (f->canvas->find_label)), ==, "1 of 3");

  g_assert_true (press_key_in_find (f, GDK_KEY_Down, 0));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == region);
  g_assert_true (node_in_view (f, region));
  g_assert_true (press_key_in_find (f, GDK_KEY_Return, 0));
  /* The task matches after the names. */
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == tasked);
  g_assert_true (node_in_view (f, tasked));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (f->canvas->find_label)), ==, "3 of 3");
  g_assert_true (press_key_in_find (f, GDK_KEY_Return, 0));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == revenue);
  g_assert_true (press_key_in_find (f, GDK_KEY_Up, 0));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == tasked);

  gtk_editable_set_text (GTK_EDITABLE (f->canvas->find_entry), "step 250");
  g_assert_cmpstr (sk_node_get_name (sk_canvas_get_selected_node (f->canvas)), ==, "step 250");
  g_assert_true (node_in_view (f, sk_canvas_get_selected_node (f->canvas)));

  gtk_editable_set_text (GTK_EDITABLE (f->canvas->find_entry), "nothing like it");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (f->canvas->find_label)), ==, "No step found");
  g_assert_cmpstr (sk_node_get_name (sk_canvas_get_selected_node (f->canvas)), ==, "step 250");
  wait_for_frame (f);

  /* Escape closes the bar and gives the canvas the focus back. */
  g_signal_emit_by_name (f->canvas->find_entry, "stop-search");
  g_assert_false (gtk_widget_get_visible (f->canvas->find_bar));
  g_assert_true (focus_widget (f) == GTK_WIDGET (f->canvas));
  wait_for_frame (f);

  /* Finding changed nothing. */
  g_assert_false (sk_history_get_can_undo (f->history));
  g_assert_cmpuint (f->node_created, ==, 0);
}

/* Arrange goes top to bottom or left to right, whichever shows the steps
 * larger in the canvas, and either way on request. */
static void
test_arrange_direction (Fixture       *f,
                        gconstpointer  data)
{
  SkNode *source = add_node (f, "source", 0, 0);
  SkNode *fan[12];
  double sx, sy, x, y;

  for (guint i = 0; i < G_N_ELEMENTS (fan); i++)
    {
      g_autofree char *name = g_strdup_printf ("part %u", i + 1);

      fan[i] = add_node (f, name, 0, 0);
      connect (source, fan[i]);
    }
  start_clean (f);

  /* Twelve steps side by side would be small in an 800 × 600 canvas;
   * stacked, beside the step they need, they are larger. */
  activate (f, "canvas.arrange");
  wait_for_arrange (f);
  assert_no_overlaps (f);
  g_assert_true (sk_node_get_position (source, &sx, &sy));
  for (guint i = 0; i < G_N_ELEMENTS (fan); i++)
    {
      g_assert_true (sk_node_get_position (fan[i], &x, &y));
      g_assert_cmpfloat (x, >, sx + SK_CANVAS_NODE_WIDTH);
    }
  g_assert_cmpstr (sk_history_get_undo_label (f->history), ==, "Arrange");
  for (guint i = 0; i < n_nodes (f); i++)
    g_assert_true (node_in_view (f, nth_node (f, i)));

  start_clean (f);
  activate (f, "canvas.arrange-down");
  wait_for_arrange (f);
  g_assert_true (sk_node_get_position (source, &sx, &sy));
  for (guint i = 0; i < G_N_ELEMENTS (fan); i++)
    {
      g_assert_true (sk_node_get_position (fan[i], &x, &y));
      g_assert_cmpfloat (y, >, sy + SK_CANVAS_NODE_HEIGHT);
    }
  undo_only_step (f);

  /* The public call, the window's Arrange, picks as canvas.arrange does. */
  sk_canvas_arrange (f->canvas);
  wait_for_arrange (f);
  g_assert_true (sk_node_get_position (source, &sx, &sy));
  g_assert_true (sk_node_get_position (fan[0], &x, &y));
  g_assert_cmpfloat (x, >, sx + SK_CANVAS_NODE_WIDTH);

  /* A chain reads better downwards in the same canvas. */
  while (n_nodes (f) > 0)
    sk_project_remove_node (f->project, nth_node (f, 0));
  add_grid (f, 6, 6);
  start_clean (f);
  activate (f, "canvas.arrange");
  wait_for_arrange (f);
  g_assert_true (sk_node_get_position (nth_node (f, 0), &sx, &sy));
  g_assert_true (sk_node_get_position (nth_node (f, 5), &x, &y));
  g_assert_cmpfloat (y, >, sy + 5 * SK_CANVAS_NODE_HEIGHT);

  start_clean (f);
  activate (f, "canvas.arrange-right");
  wait_for_arrange (f);
  g_assert_true (sk_node_get_position (nth_node (f, 0), &sx, &sy));
  g_assert_true (sk_node_get_position (nth_node (f, 5), &x, &y));
  g_assert_cmpfloat (x, >, sx + 5 * SK_CANVAS_NODE_WIDTH);
  g_assert_cmpfloat_with_epsilon (y, sy, 1);
  undo_only_step (f);
}

/* Deleting steps and marking all of them say so, with Undo in a toast
 * when the canvas is in the window's toast overlay. */
static void
test_undo_toast (Fixture       *f,
                 gconstpointer  data)
{
  SkNode *a = add_node (f, "load", 0, 0);
  SkNode *b = add_node (f, "clean", 0, 150);
  SkNode *c = add_node (f, "chart", 250, 300);
  SkNode *d = add_node (f, "report", 0, 300);
  GtkWidget *overlay;

  connect (a, b);
  connect (b, c);
  connect (b, d);
  start_clean (f);

  click_node (f, b, GDK_BUTTON_PRIMARY, 0);
  g_assert_true (press_key (f, GDK_KEY_Delete, 0));
  g_assert_cmpuint (n_nodes (f), ==, 3);
  g_assert_cmpuint (f->messages, ==, 1);
  g_assert_cmpstr (f->last_message, ==, "“clean” deleted. 2 steps no longer get the results they needed");
  undo_only_step (f);

  reset_counters (f);
  click_at (f, 600, 500, GDK_BUTTON_SECONDARY, 0);
  g_assert_cmpuint (f->messages, ==, 1);
  g_assert_cmpstr (f->last_message, ==, "Every step is marked to run now");
  undo_only_step (f);

  /* In the window, the message is a toast whose button undoes. */
  overlay = adw_toast_overlay_new ();
  g_object_ref (f->canvas);
  gtk_window_set_child (GTK_WINDOW (f->window), overlay);
  adw_toast_overlay_set_child (ADW_TOAST_OVERLAY (overlay), GTK_WIDGET (f->canvas));
  g_object_unref (f->canvas);
  wait_for_frame (f);
  start_clean (f);

  click_node (f, nth_node (f, 0), GDK_BUTTON_PRIMARY, 0);
  activate (f, "canvas.delete");
  g_assert_cmpuint (f->messages, ==, 0);
  g_assert_nonnull (f->canvas->undo_toast);
  g_assert_cmpstr (adw_toast_get_title (f->canvas->undo_toast), ==,
                   "“load” deleted. 1 step no longer gets the results it needed");
  g_assert_cmpstr (adw_toast_get_button_label (f->canvas->undo_toast), ==, "_Undo");
  g_assert_cmpstr (adw_toast_get_action_name (f->canvas->undo_toast), ==, "win.undo");
  undo_only_step (f);

  click_at (f, 600, 500, GDK_BUTTON_SECONDARY, 0);
  g_assert_cmpstr (adw_toast_get_title (f->canvas->undo_toast), ==, "Every step is marked to run now");
  g_assert_cmpuint (f->messages, ==, 0);
  wait_for_frame (f);
}

/* Connect mode says what to do and draws the connection it would make. */
static void
test_connect_hint (Fixture       *f,
                   gconstpointer  data)
{
  SkNode *a = add_node (f, "load", 0, 0);
  SkNode *b = add_node (f, "clean", 0, 200);
  g_autoptr(GdkTexture) plain = NULL;
  g_autoptr(GdkTexture) pending = NULL;
  double x0, y0, x1, y1;
  guint differ = 0;

  start_clean (f);
  g_assert_false (gtk_widget_get_visible (f->canvas->connect_hint));

  sk_canvas_select_node (f->canvas, a);
  wait_for_frame (f);
  plain = render_canvas (f);

  g_assert_true (press_key (f, GDK_KEY_c, 0));
  g_assert_true (_sk_canvas_get_connect_source (f->canvas) == a);
  g_assert_true (gtk_widget_get_visible (f->canvas->connect_hint));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (f->canvas->connect_hint)), ==,
                   "Choose the step that needs the results of “load”. Press Escape to cancel.");
  g_assert_true (press_key (f, GDK_KEY_Down, 0));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == b);
  wait_for_frame (f);
  g_assert_true (gtk_widget_get_mapped (f->canvas->connect_hint));

  /* From the keyboard, the line runs from the source to the step that
   * Return would connect. */
  f->canvas->hover.inside = FALSE;
  pending = render_canvas (f);
  model_to_widget (f, 0, SK_CANVAS_NODE_HEIGHT / 2 + 4, &x0, &y0);
  model_to_widget (f, 0, 200 - SK_CANVAS_NODE_HEIGHT / 2 - 4, &x1, &y1);
  for (int y = (int) y0; y < (int) y1; y++)
    if (pixel_at (pending, (int) x0, y) != pixel_at (plain, (int) x0, y))
      differ++;
  g_assert_cmpuint (differ, >, (guint) ((y1 - y0) / 3));

  g_assert_true (press_key (f, GDK_KEY_Escape, 0));
  g_assert_null (_sk_canvas_get_connect_source (f->canvas));
  g_assert_false (gtk_widget_get_visible (f->canvas->connect_hint));

  /* Finishing the connection hides the hint as well. */
  sk_canvas_select_node (f->canvas, a);
  g_assert_true (press_key (f, GDK_KEY_c, 0));
  g_assert_true (press_key (f, GDK_KEY_Down, 0));
  g_assert_true (press_key (f, GDK_KEY_Return, 0));
  g_assert_true (sk_node_has_prior (b, sk_node_get_id (a)));
  g_assert_false (gtk_widget_get_visible (f->canvas->connect_hint));
  wait_for_frame (f);
}

/* Tab goes round the steps; Space and Return without a step do nothing
 * and go no further; Return opens the selected step. */
static void
test_tab_wraps (Fixture       *f,
                gconstpointer  data)
{
  SkNode *a = add_node (f, "a", 0, 0);
  SkNode *b = add_node (f, "b", 250, 0);
  SkNode *c = add_node (f, "c", 0, 150);
  double zoom = sk_canvas_get_zoom (f->canvas);

  start_clean (f);
  gtk_widget_grab_focus (GTK_WIDGET (f->canvas));

  /* Nothing selected: Space and Return are the canvas's, and change
   * nothing. */
  g_assert_true (press_key (f, GDK_KEY_space, 0));
  g_assert_true (press_key (f, GDK_KEY_Return, 0));
  g_assert_true (press_key (f, GDK_KEY_KP_Enter, 0));
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, zoom);
  g_assert_false (sk_node_get_run (a) || sk_node_get_run (b) || sk_node_get_run (c));
  g_assert_cmpuint (f->node_activated, ==, 0);
  g_assert_false (sk_history_get_can_undo (f->history));

  /* Shift+Tab without a selection starts at the last step. */
  g_assert_true (press_key (f, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == c);
  g_assert_true (press_key (f, GDK_KEY_Tab, 0));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  g_assert_true (press_key (f, GDK_KEY_Tab, 0));
  g_assert_true (press_key (f, GDK_KEY_Tab, 0));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == c);
  /* Tab off the last step comes round to the first, in view. */
  g_assert_true (press_key (f, GDK_KEY_Tab, 0));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == a);
  g_assert_true (press_key (f, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_true (sk_canvas_get_selected_node (f->canvas) == c);
  g_assert_true (focus_widget (f) == GTK_WIDGET (f->canvas));

  /* Ctrl+Tab is not the canvas's: it moves the focus on. */
  g_assert_false (press_key (f, GDK_KEY_Tab, GDK_CONTROL_MASK));

  /* Space marks the selected step; Return opens it. */
  g_assert_true (press_key (f, GDK_KEY_space, 0));
  g_assert_true (sk_node_get_run (c));
  g_assert_true (press_key (f, GDK_KEY_Return, 0));
  g_assert_cmpuint (f->node_activated, ==, 1);
  g_assert_true (f->last_node == c);
  g_assert_cmpfloat (sk_canvas_get_zoom (f->canvas), ==, zoom);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      printf ("1..0 # SKIP no display\n");
      return 0;
    }

  adw_init ();
  sk_widgets_init ();

#define ADD(path, func) \
  g_test_add ("/canvas/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("add-step", test_add_step);
  ADD ("select", test_select);
  ADD ("selection-model", test_selection_model);
  ADD ("shared-selection", test_shared_selection);
  ADD ("select-during-change", test_select_during_change);
  ADD ("connect", test_connect);
  ADD ("connect-refused", test_connect_refused);
  ADD ("delete-step", test_delete_step);
  ADD ("delete-edge", test_delete_edge);
  ADD ("right-click", test_right_click);
  ADD ("alt-click", test_alt_click);
  ADD ("menu", test_menu);
  ADD ("drag-move", test_drag_move);
  ADD ("drag-interrupted", test_drag_interrupted);
  ADD ("rubber-band", test_rubber_band);
  ADD ("scroll-pan", test_scroll_pan);
  ADD ("scroll-zoom", test_scroll_zoom);
  ADD ("zoom-actions", test_zoom_actions);
  ADD ("keyboard", test_keyboard);
  ADD ("undo-redo", test_undo_redo);
  ADD ("model-changes", test_model_changes);
  ADD ("arrange", test_arrange);
  ADD ("arrange-on-open", test_arrange_on_open);
  ADD ("render", test_render);
  ADD ("fit-large", test_fit_large);
  ADD ("minimap", test_minimap);
  ADD ("find", test_find);
  ADD ("arrange-direction", test_arrange_direction);
  ADD ("undo-toast", test_undo_toast);
  ADD ("connect-hint", test_connect_hint);
  ADD ("tab-wraps", test_tab_wraps);

#undef ADD

  return g_test_run ();
}
