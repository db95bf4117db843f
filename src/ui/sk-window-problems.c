/* sk-window-problems.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What is wrong with the open workflow, kept in view: a bar over the canvas
 * says how many problems there are and opens their list; choosing one
 * selects the steps it concerns. The bar follows every change, so a fix
 * takes its problem away at once. Only Python can tell whether a condition
 * on a connection is Python: it checks them in the background, and what it
 * finds joins the list when it answers.
 */

#define G_LOG_DOMAIN "sk-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sk-problems-list.h"
#include "sk-window-private.h"

/* Long enough that typing a name does not validate at every key. */
#define UPDATE_DELAY_MS 250

static void
problem_activated_cb (SkWindow       *self,
                      SkProblem      *problem,
                      SkProblemsList *list)
{
  SkProject *project = _sk_window_project (self);
  SkNode *first = NULL;

  if (project == NULL)
    return;

  gtk_selection_model_unselect_all (self->selection);
  for (guint i = 0; problem->node_ids != NULL && problem->node_ids[i] != NULL; i++)
    {
      SkNode *node = sk_project_get_node (project, problem->node_ids[i]);
      guint n = g_list_model_get_n_items (G_LIST_MODEL (project));

      /* A missing prior names a step that does not exist. */
      if (node == NULL)
        continue;
      for (guint position = 0; position < n; position++)
        {
          g_autoptr(SkNode) item = g_list_model_get_item (G_LIST_MODEL (project), position);

          if (item == node)
            gtk_selection_model_select_item (self->selection, position, FALSE);
        }
      if (first == NULL)
        first = node;
    }

  gtk_menu_button_popdown (self->problems_button);
  if (first != NULL)
    {
      sk_canvas_scroll_to_node (self->canvas, first);
      gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
    }
}

static void
mark_problems (SkWindow  *self,
               GPtrArray *problems)
{
  g_autoptr(GStrvBuilder) nodes = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) edges = g_strv_builder_new ();
  g_auto(GStrv) node_ids = NULL;
  g_auto(GStrv) edge_pairs = NULL;

  for (guint i = 0; problems != NULL && i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (problem->is_warning)
        continue;
      if (problem->node_ids != NULL)
        g_strv_builder_addv (nodes, (const char **) problem->node_ids);
      if (problem->edge_pairs != NULL)
        g_strv_builder_addv (edges, (const char **) problem->edge_pairs);
    }

  node_ids = g_strv_builder_end (nodes);
  edge_pairs = g_strv_builder_end (edges);
  sk_canvas_set_problem_marks (self->canvas,
                               (const char * const *) node_ids,
                               (const char * const *) edge_pairs);
}

static void
cancel_conditions_check (SkWindow *self)
{
  g_cancellable_cancel (self->conditions_cancellable);
  g_clear_object (&self->conditions_cancellable);
}

static void
forget_conditions (SkWindow *self)
{
  cancel_conditions_check (self);
  g_clear_pointer (&self->conditions_key, g_free);
  g_clear_pointer (&self->condition_problems, g_ptr_array_unref);
}

static void
check_conditions_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  SkProject *project = SK_PROJECT (object);
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  SkWindow *self;

  problems = sk_project_check_conditions_finish (project, result, &error);

  /* A newer check replaced this one, or the window is gone. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self = SK_WINDOW (user_data);
  g_clear_object (&self->conditions_cancellable);
  g_clear_pointer (&self->condition_problems, g_ptr_array_unref);
  if (problems != NULL)
    self->condition_problems = g_steal_pointer (&problems);
  else
    g_debug ("The conditions were not checked: %s", error->message);

  if (project == _sk_window_project (self))
    _sk_window_update_problems (self);
}

/* Has Python check the conditions' syntax, when they changed since it last
 * did. Python takes a while to start, so the window does not wait for it:
 * its problems join the others when it answers. Until then the last ones
 * stay, so that changing one condition does not make the problems of the
 * others blink. */
static void
check_conditions (SkWindow  *self,
                  SkProject *project)
{
  g_autofree char *conditions = sk_project_get_conditions_key (project);
  g_autofree char *python = NULL;
  g_autofree char *key = NULL;

  if (conditions == NULL)
    {
      forget_conditions (self);
      return;
    }

  python = sk_workspace_find_python (self->workspace);
  key = g_strconcat (python != NULL ? python : "", "\n", conditions, NULL);
  if (g_strcmp0 (key, self->conditions_key) == 0)
    return;

  cancel_conditions_check (self);
  g_free (self->conditions_key);
  self->conditions_key = g_steal_pointer (&key);
  if (python == NULL)
    {
      g_debug ("The conditions were not checked: no Python interpreter was found");
      g_clear_pointer (&self->condition_problems, g_ptr_array_unref);
      return;
    }

  self->conditions_cancellable = g_cancellable_new ();
  sk_project_check_conditions_async (project, python, self->conditions_cancellable, check_conditions_cb, self);
}

/* Adds what Python last found wrong with the conditions to @problems, but
 * not about a connection that has lost its condition since. */
static void
add_condition_problems (SkWindow  *self,
                        SkProject *project,
                        GPtrArray *problems)
{
  for (guint i = 0; self->condition_problems != NULL && i < self->condition_problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (self->condition_problems, i);
      char **edge = problem->edge_pairs;
      SkNode *node;

      if (edge == NULL || edge[0] == NULL || edge[1] == NULL)
        continue;
      node = sk_project_get_node (project, edge[1]);
      if (node == NULL || sk_project_get_node (project, edge[0]) == NULL ||
          sk_node_get_condition (node, edge[0]) == NULL)
        continue;

      g_ptr_array_add (problems, sk_problem_copy (problem));
    }
}

/**
 * _sk_window_update_problems:
 * @self: a #SkWindow
 *
 * Checks the workflow now and shows what is wrong with it, or hides the bar
 * when nothing is. When the conditions on its connections changed, Python
 * checks them meanwhile, and the bar is updated again when it answers.
 */
void
_sk_window_update_problems (SkWindow *self)
{
  SkProject *project = _sk_window_project (self);
  g_autoptr(GPtrArray) problems = NULL;
  guint errors;

  g_clear_handle_id (&self->problems_id, g_source_remove);

  if (project != NULL)
    {
      problems = sk_project_validate (project);
      check_conditions (self, project);
      add_condition_problems (self, project, problems);
    }
  else
    forget_conditions (self);
  errors = problems != NULL ? sk_problems_count_errors (problems) : 0;

  if (errors > 0)
    {
      g_autofree char *summary = sk_problems_summary (problems);

      gtk_label_set_label (self->problems_label, summary);
      sk_problems_list_set_problems (self->problems_list, problems);
      mark_problems (self, problems);
    }
  else
    {
      gtk_menu_button_popdown (self->problems_button);
      sk_problems_list_set_problems (self->problems_list, NULL);
      mark_problems (self, NULL);
    }

  gtk_revealer_set_reveal_child (self->problems_revealer, errors > 0);
}

static gboolean
update_problems_cb (gpointer data)
{
  SkWindow *self = data;

  self->problems_id = 0;
  _sk_window_update_problems (self);
  return G_SOURCE_REMOVE;
}

/**
 * _sk_window_queue_problems:
 * @self: a #SkWindow
 *
 * Checks the workflow again shortly, after a change.
 */
void
_sk_window_queue_problems (SkWindow *self)
{
  if (self->problems_id == 0)
    self->problems_id = g_timeout_add (UPDATE_DELAY_MS, update_problems_cb, self);
}

/**
 * _sk_window_problems_init:
 * @self: a #SkWindow
 * @overlay: the overlay over the canvas
 *
 * Builds the problems bar over the canvas.
 */
void
_sk_window_problems_init (SkWindow   *self,
                          GtkOverlay *overlay)
{
  GtkWidget *bar;
  GtkWidget *icon;
  GtkWidget *popover;
  GtkWidget *list;

  bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_add_css_class (bar, "problems-bar");

  icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  gtk_box_append (GTK_BOX (bar), icon);

  self->problems_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->problems_label, FALSE);
  gtk_label_set_xalign (self->problems_label, 0);
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->problems_label));

  list = sk_problems_list_new ();
  gtk_widget_set_size_request (list, 360, -1);
  self->problems_list = SK_PROBLEMS_LIST (list);
  g_signal_connect_object (list, "problem-activated", G_CALLBACK (problem_activated_cb), self, G_CONNECT_SWAPPED);

  popover = gtk_popover_new ();
  gtk_popover_set_child (GTK_POPOVER (popover), list);

  self->problems_button = GTK_MENU_BUTTON (gtk_menu_button_new ());
  gtk_menu_button_set_label (self->problems_button, _("Show _Problems"));
  gtk_menu_button_set_use_underline (self->problems_button, TRUE);
  gtk_menu_button_set_popover (self->problems_button, popover);
  gtk_widget_set_valign (GTK_WIDGET (self->problems_button), GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->problems_button));

  self->problems_revealer = GTK_REVEALER (gtk_revealer_new ());
  gtk_revealer_set_transition_type (self->problems_revealer, GTK_REVEALER_TRANSITION_TYPE_SLIDE_DOWN);
  gtk_revealer_set_child (self->problems_revealer, bar);
  gtk_widget_set_halign (GTK_WIDGET (self->problems_revealer), GTK_ALIGN_CENTER);
  gtk_widget_set_valign (GTK_WIDGET (self->problems_revealer), GTK_ALIGN_START);
  gtk_widget_set_margin_top (GTK_WIDGET (self->problems_revealer), 12);
  gtk_widget_set_margin_start (GTK_WIDGET (self->problems_revealer), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self->problems_revealer), 12);
  gtk_overlay_add_overlay (overlay, GTK_WIDGET (self->problems_revealer));
}
