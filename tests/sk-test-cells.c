/* sk-test-cells.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the tests of the input, output and code cells share: a project with
 * two steps in a temporary folder, and ways to show a cell and look inside.
 */

#include "config.h"

#include <stdio.h>

#include "sk-test-cells.h"
#include "sk-widgets.h"

#define WAIT_MSEC 5000

/* Connected swapped, so the counter comes first whatever the signal. */
void
count_cb (guint *count)
{
  (*count)++;
}

void
message_cb (GtkWidget *cell,
            const char *text,
            GPtrArray  *messages)
{
  g_assert_nonnull (text);
  g_assert_cmpstr (text, !=, "");
  g_ptr_array_add (messages, g_strdup (text));
}

void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("skele-cells-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->folder = g_file_new_for_path (fixture->dir);
  fixture->project = sk_project_new (fixture->folder);

  fixture->a = sk_node_new ("1", "load sales");
  sk_project_add_node (fixture->project, fixture->a, &error);
  g_assert_no_error (error);
  fixture->b = sk_node_new ("2", "make chart");
  sk_project_add_node (fixture->project, fixture->b, &error);
  g_assert_no_error (error);

  /* Files the user attaches live elsewhere. */
  fixture->outside = g_dir_make_tmp ("skele-cells-outside-XXXXXX", &error);
  g_assert_no_error (error);
}

void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->a);
  g_clear_object (&fixture->b);
  g_assert_finalize_object (fixture->project);
  g_clear_object (&fixture->folder);
  sk_test_remove_tree (fixture->dir);
  sk_test_remove_tree (fixture->outside);
  g_free (fixture->dir);
  g_free (fixture->outside);
}

char *
node_path (Fixture    *fixture,
           SkNode     *node,
           const char *name)
{
  return g_build_filename (fixture->dir, sk_node_get_key (node), name, NULL);
}

GtkWidget *
present (GtkWidget *cell)
{
  GtkWidget *window = gtk_window_new ();

  g_object_ref_sink (cell);
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 600);
  gtk_window_set_child (GTK_WINDOW (window), cell);
  gtk_window_present (GTK_WINDOW (window));
  SK_TEST_WAIT_UNTIL (gtk_widget_get_mapped (cell), WAIT_MSEC);

  return window;
}

/* Destroys the window and checks that nothing else holds the cell. */
void
dismiss (GtkWidget *window,
         GtkWidget *cell)
{
  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (cell);
}

/* The cells are final types, so their own type finds their template. */
gpointer
child (GtkWidget  *cell,
       const char *name)
{
  GObject *object = gtk_widget_get_template_child (cell, G_OBJECT_TYPE (cell), name);

  g_assert_nonnull (object);
  return object;
}

const char *
page (GtkWidget  *cell,
      const char *stack)
{
  return gtk_stack_get_visible_child_name (child (cell, stack));
}

const char *
label (GtkWidget  *cell,
       const char *name)
{
  return gtk_label_get_label (child (cell, name));
}

gboolean
shown (GtkWidget  *cell,
       const char *name)
{
  return gtk_widget_get_visible (child (cell, name));
}

char *
buffer_text (GtkTextBuffer *buffer)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
}

static gboolean
trigger_matches (GtkShortcutTrigger *trigger,
                 guint               keyval,
                 GdkModifierType     state)
{
  if (GTK_IS_ALTERNATIVE_TRIGGER (trigger))
    return trigger_matches (gtk_alternative_trigger_get_first (GTK_ALTERNATIVE_TRIGGER (trigger)),
                            keyval, state) ||
           trigger_matches (gtk_alternative_trigger_get_second (GTK_ALTERNATIVE_TRIGGER (trigger)),
                            keyval, state);

  if (GTK_IS_KEYVAL_TRIGGER (trigger))
    return gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) == keyval &&
           gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) == state;

  return FALSE;
}

static gboolean
activate_shortcut (GtkShortcutController *controller,
                   guint                  keyval,
                   GdkModifierType        state)
{
  GtkWidget *widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  guint n = g_list_model_get_n_items (G_LIST_MODEL (controller));

  if (gtk_shortcut_controller_get_scope (controller) != GTK_SHORTCUT_SCOPE_LOCAL)
    return FALSE;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), i);

      if (trigger_matches (gtk_shortcut_get_trigger (shortcut), keyval, state) &&
          gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, widget,
                                        gtk_shortcut_get_arguments (shortcut)))
        return TRUE;
    }

  return FALSE;
}

static gboolean
deliver_key (GtkWidget           *widget,
             GtkPropagationPhase  phase,
             guint                keyval,
             GdkModifierType      state)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
  guint n = g_list_model_get_n_items (controllers);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);
      gboolean handled = FALSE;

      if (gtk_event_controller_get_propagation_phase (controller) != phase)
        continue;

      if (GTK_IS_EVENT_CONTROLLER_KEY (controller))
        g_signal_emit_by_name (controller, "key-pressed", keyval, 0, state, &handled);
      else if (GTK_IS_SHORTCUT_CONTROLLER (controller))
        handled = activate_shortcut (GTK_SHORTCUT_CONTROLLER (controller), keyval, state);

      if (handled)
        return TRUE;
    }

  return FALSE;
}

/* GTK 4 cannot make key events, so this delivers a key press as GTK
 * propagates one: to the key and shortcut controllers of the focus widget
 * and its parents up to @window, capture phase from the top, then target,
 * then bubble phase from the focus widget up, until one handles it. The
 * input method is left out, so a printable key types nothing; see
 * type_text(). Returns whether the key was handled. */
gboolean
send_key (GtkWidget       *window,
          guint            keyval,
          GdkModifierType  state)
{
  g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func (g_object_unref);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  gboolean handled = FALSE;

  for (GtkWidget *w = focus != NULL ? focus : window; w != NULL; w = gtk_widget_get_parent (w))
    g_ptr_array_add (chain, g_object_ref (w));

  for (guint i = chain->len; i > 0 && !handled; i--)
    handled = deliver_key (g_ptr_array_index (chain, i - 1), GTK_PHASE_CAPTURE, keyval, state);
  if (!handled)
    handled = deliver_key (g_ptr_array_index (chain, 0), GTK_PHASE_TARGET, keyval, state);
  for (guint i = 0; i < chain->len && !handled; i++)
    handled = deliver_key (g_ptr_array_index (chain, i), GTK_PHASE_BUBBLE, keyval, state);

  while (g_main_context_iteration (NULL, FALSE))
    ;

  return handled;
}

/* What the input method does with typed text: it inserts it at the
 * cursor as the user's, where the view is editable. */
void
type_text (GtkTextView *view,
           const char  *text)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);

  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_insert_interactive_at_cursor (buffer, text, -1,
                                                gtk_text_view_get_editable (view));
  gtk_text_buffer_end_user_action (buffer);
}

/* Runs the main loop for @msec, for checking that something does not
 * happen. */
void
wait_msec (guint msec)
{
  gboolean timed_out = FALSE;

  g_timeout_add (msec, sk_test_timeout_cb, &timed_out);
  while (!timed_out)
    g_main_context_iteration (NULL, TRUE);
}

/* Adds a `win.focus-canvas` action to @window, as SkWindow has, that
 * counts its activations in @count. */
void
add_focus_canvas_action (GtkWidget *window,
                         guint     *count)
{
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GSimpleAction) action = g_simple_action_new ("focus-canvas", NULL);

  g_signal_connect_swapped (action, "activate", G_CALLBACK (count_cb), count);
  g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (action));
  gtk_widget_insert_action_group (window, "win", G_ACTION_GROUP (group));
}

/* Returns %FALSE, after reporting a TAP skip, when there is no display. */
gboolean
sk_test_cells_init (int    *argc,
                    char ***argv)
{
  g_test_init (argc, argv, NULL);

  if (!gtk_init_check ())
    {
      printf ("1..0 # SKIP no display\n");
      return FALSE;
    }
  adw_init ();
  sk_widgets_init ();

  return TRUE;
}
