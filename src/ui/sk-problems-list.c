/* sk-problems-list.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-problems-list"

#include "config.h"

#include <glib/gi18n.h>

#include "sk-problems-list.h"

/* The problems of a workflow, one row each: errors first, then warnings
 * under a heading of their own and dimmer, as they do not stop a run. It is
 * made to sit in a popover or a side panel 300 to 400 pixels wide, so the
 * messages wrap rather than being cut. Activating a row, by a click or by
 * Return, says which problem it shows, so that the window can select the
 * steps concerned. */

struct _SkProblemsList
{
  AdwBin      parent_instance;

  GtkListBox *list_box;

  /* Copies of the problems shown, errors first; a row's index in the list
   * box is its problem's index here. */
  GPtrArray  *problems;
};

G_DEFINE_FINAL_TYPE (SkProblemsList, sk_problems_list, ADW_TYPE_BIN)

enum {
  PROBLEM_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GtkWidget *
create_row (const SkProblem *problem)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *icon;
  GtkWidget *label;
  g_autofree char *description = NULL;

  icon = gtk_image_new_from_icon_name (problem->is_warning ? "dialog-warning-symbolic"
                                                           : "dialog-error-symbolic");
  gtk_widget_add_css_class (icon, problem->is_warning ? "warning" : "error");
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  /* The icon says no more than the row's accessible label does. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, "",
                                  -1);

  /* The width in characters bounds what the label asks for in a popover;
   * a wider panel still gives it all of its width. */
  label = gtk_label_new (problem->message);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_width_chars (GTK_LABEL (label), 24);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 60);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_set_hexpand (label, TRUE);
  if (problem->is_warning)
    gtk_widget_add_css_class (label, "dim-label");

  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 8);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), label);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);

  /* Translators: read out for a row of the problems list; %s is the
   * problem. */
  description = g_strdup_printf (problem->is_warning ? _("Warning: %s") : _("Error: %s"),
                                 problem->message);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, description,
                                  -1);

  return row;
}

static void
update_header (GtkListBoxRow *row,
               GtkListBoxRow *before,
               gpointer       user_data)
{
  SkProblemsList *self = user_data;
  guint index = gtk_list_box_row_get_index (row);
  const SkProblem *problem;
  GtkWidget *header;

  if (index >= self->problems->len)
    return;

  problem = g_ptr_array_index (self->problems, index);

  /* Only the first warning has a heading, to set the warnings apart. */
  if (!problem->is_warning ||
      (before != NULL &&
       ((SkProblem *) g_ptr_array_index (self->problems,
                                         gtk_list_box_row_get_index (before)))->is_warning))
    {
      gtk_list_box_row_set_header (row, NULL);
      return;
    }

  if (gtk_list_box_row_get_header (row) != NULL)
    return;

  header = gtk_label_new (_("Warnings"));
  gtk_label_set_xalign (GTK_LABEL (header), 0.0);
  gtk_widget_add_css_class (header, "heading");
  gtk_widget_add_css_class (header, "dim-label");
  gtk_widget_set_margin_top (header, 12);
  gtk_widget_set_margin_bottom (header, 6);
  gtk_widget_set_margin_start (header, 12);
  gtk_widget_set_margin_end (header, 12);
  gtk_list_box_row_set_header (row, header);
}

static void
row_activated_cb (SkProblemsList *self,
                  GtkListBoxRow  *row)
{
  guint index = gtk_list_box_row_get_index (row);

  if (index < self->problems->len)
    g_signal_emit (self, signals[PROBLEM_ACTIVATED], 0, g_ptr_array_index (self->problems, index));
}

/**
 * sk_problems_list_set_problems:
 * @self: a #SkProblemsList
 * @problems: (nullable) (element-type SkProblem): the problems to show, as
 *   sk_project_validate() returns them, or %NULL for none
 *
 * Shows @problems, errors first and then warnings; the list keeps copies.
 */
void
sk_problems_list_set_problems (SkProblemsList *self,
                               GPtrArray      *problems)
{
  GtkListBoxRow *row;

  g_return_if_fail (SK_IS_PROBLEMS_LIST (self));

  while ((row = gtk_list_box_get_row_at_index (self->list_box, 0)) != NULL)
    gtk_list_box_remove (self->list_box, GTK_WIDGET (row));

  g_ptr_array_set_size (self->problems, 0);

  for (guint pass = 0; pass < 2 && problems != NULL; pass++)
    {
      for (guint i = 0; i < problems->len; i++)
        {
          const SkProblem *problem = g_ptr_array_index (problems, i);

          if (!!problem->is_warning == (pass == 1))
            g_ptr_array_add (self->problems, sk_problem_copy (problem));
        }
    }

  for (guint i = 0; i < self->problems->len; i++)
    gtk_list_box_append (self->list_box, create_row (g_ptr_array_index (self->problems, i)));
}

/**
 * sk_problems_list_get_problems:
 * @self: a #SkProblemsList
 *
 * Returns: (transfer none) (element-type SkProblem): the problems shown, in
 *   the order of the rows: errors first
 */
GPtrArray *
sk_problems_list_get_problems (SkProblemsList *self)
{
  g_return_val_if_fail (SK_IS_PROBLEMS_LIST (self), NULL);

  return self->problems;
}

/**
 * sk_problems_list_new:
 *
 * Returns: (transfer floating): an empty list of problems
 */
GtkWidget *
sk_problems_list_new (void)
{
  return g_object_new (SK_TYPE_PROBLEMS_LIST, NULL);
}

/* The rows' headers look at the problems until the rows are gone. */
static void
sk_problems_list_finalize (GObject *object)
{
  SkProblemsList *self = SK_PROBLEMS_LIST (object);

  g_clear_pointer (&self->problems, g_ptr_array_unref);

  G_OBJECT_CLASS (sk_problems_list_parent_class)->finalize (object);
}

static void
sk_problems_list_class_init (SkProblemsListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = sk_problems_list_finalize;

  /**
   * SkProblemsList::problem-activated:
   * @self: the list
   * @problem: the problem of the row that was activated
   *
   * Emitted when a row is clicked, or activated from the keyboard.
   */
  signals[PROBLEM_ACTIVATED] =
    g_signal_new ("problem-activated",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, SK_TYPE_PROBLEM | G_SIGNAL_TYPE_STATIC_SCOPE);

  gtk_widget_class_set_css_name (widget_class, "skproblemslist");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sk_problems_list_init (SkProblemsList *self)
{
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *placeholder = gtk_label_new (_("This workflow has no problems."));

  self->problems = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free);

  gtk_widget_add_css_class (placeholder, "dim-label");
  gtk_widget_set_margin_top (placeholder, 12);
  gtk_widget_set_margin_bottom (placeholder, 12);
  gtk_widget_set_margin_start (placeholder, 12);
  gtk_widget_set_margin_end (placeholder, 12);
  gtk_label_set_wrap (GTK_LABEL (placeholder), TRUE);

  self->list_box = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->list_box, GTK_SELECTION_NONE);
  gtk_list_box_set_activate_on_single_click (self->list_box, TRUE);
  gtk_list_box_set_placeholder (self->list_box, placeholder);
  gtk_list_box_set_header_func (self->list_box, update_header, self, NULL);
  gtk_widget_add_css_class (GTK_WIDGET (self->list_box), "boxed-list");
  gtk_widget_set_valign (GTK_WIDGET (self->list_box), GTK_ALIGN_START);
  gtk_widget_set_margin_top (GTK_WIDGET (self->list_box), 6);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self->list_box), 6);
  gtk_widget_set_margin_start (GTK_WIDGET (self->list_box), 6);
  gtk_widget_set_margin_end (GTK_WIDGET (self->list_box), 6);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list_box),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Problems of the workflow"),
                                  -1);
  g_signal_connect_object (self->list_box, "row-activated",
                           G_CALLBACK (row_activated_cb), self, G_CONNECT_SWAPPED);

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), 480);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->list_box));

  adw_bin_set_child (ADW_BIN (self), scrolled);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Problems of the workflow"),
                                  -1);
}
