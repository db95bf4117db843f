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
