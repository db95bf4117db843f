/* sk-canvas-find.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-canvas"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sk-canvas-private.h"

/* Finding a step: Ctrl+F opens a bar over the canvas whose entry matches
 * the steps' names, then their tasks, as the user types; the first match is
 * selected and brought into view, Return and Down go to the next one, Up to
 * the previous one, and Escape closes the bar and gives the canvas the
 * focus again. */

/* Zoomed out further than this, a found step would be a speck. */
#define FIND_MIN_ZOOM 0.5

static gboolean
text_matches (const char *text,
              const char *needle)
{
  g_autofree char *folded = NULL;

  if (text == NULL || text[0] == '\0')
    return FALSE;

  folded = g_utf8_casefold (text, -1);
  return strstr (folded, needle) != NULL;
}

/* Brings the current match into view and selects it. */
static void
show_match (SkCanvas *self)
{
  SkNode *node;
  SkCanvasItem *item;

  if (self->find_matches->len == 0)
    return;

  node = g_ptr_array_index (self->find_matches, self->find_index);
  item = _sk_canvas_lookup_item (self, node);
  if (item == NULL)
    return;

  _sk_canvas_select_only (self, node);
  if (self->zoom < FIND_MIN_ZOOM)
    {
      double x, y;

      _sk_canvas_model_to_widget (self, item->x, item->y, &x, &y);
      _sk_canvas_zoom_around (self, FIND_MIN_ZOOM, x, y);
    }
  /* Centred, the step is never under the bar that found it. */
  _sk_canvas_pan_to (self,
                     gtk_widget_get_width (GTK_WIDGET (self)) / 2.0 - item->x * self->zoom,
                     gtk_widget_get_height (GTK_WIDGET (self)) / 2.0 - item->y * self->zoom);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
update_label (SkCanvas *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->find_entry));
  g_autofree char *label = NULL;

  if (text[0] == '\0')
    label = g_strdup ("");
  else if (self->find_matches->len == 0)
    label = g_strdup (_("No step found"));
  else
    /* Translators: which of the steps found is selected, as in "2 of 5". */
    label = g_strdup_printf (_("%u of %u"), self->find_index + 1, self->find_matches->len);

  gtk_label_set_text (GTK_LABEL (self->find_label), label);
}

/* Matches the entry's text again: names first, then tasks, each in the
 * workflow's order. */
void
_sk_canvas_find_update (SkCanvas *self)
{
  const char *text;
  g_autofree char *needle = NULL;

  if (self->find_entry == NULL)
    return;

  g_ptr_array_set_size (self->find_matches, 0);
  self->find_index = 0;

  text = gtk_editable_get_text (GTK_EDITABLE (self->find_entry));
  if (text[0] != '\0')
    {
      needle = g_utf8_casefold (text, -1);

      for (guint i = 0; i < self->items->len; i++)
        {
          SkCanvasItem *item = g_ptr_array_index (self->items, i);

          if (text_matches (sk_node_get_name (item->node), needle))
            g_ptr_array_add (self->find_matches, item->node);
        }
      for (guint i = 0; i < self->items->len; i++)
        {
          SkCanvasItem *item = g_ptr_array_index (self->items, i);

          if (!text_matches (sk_node_get_name (item->node), needle) &&
              text_matches (sk_node_get_input_text (item->node), needle))
            g_ptr_array_add (self->find_matches, item->node);
        }
    }

  update_label (self);
  show_match (self);
}

/* Goes @delta matches further, round from the last to the first. */
void
_sk_canvas_find_step (SkCanvas *self,
                      int       delta)
{
  guint n;

  if (self->find_matches == NULL || self->find_matches->len == 0)
    return;

  /* The workflow may have changed since the text was typed. */
  n = self->find_matches->len;
  for (guint i = 0; i < n; i++)
    if (_sk_canvas_lookup_item (self, g_ptr_array_index (self->find_matches, i)) == NULL)
      {
        _sk_canvas_find_update (self);
        break;
      }
  n = self->find_matches->len;
  if (n == 0)
    return;

  self->find_index = (self->find_index + n + (delta % (int) n)) % n;
  update_label (self);
  show_match (self);
}

void
_sk_canvas_find_open (SkCanvas *self)
{
  if (self->find_bar == NULL)
    return;

  if (!gtk_widget_get_visible (self->find_bar))
    {
      gtk_widget_set_visible (self->find_bar, TRUE);
      gtk_widget_queue_allocate (GTK_WIDGET (self));
    }

  gtk_widget_grab_focus (self->find_entry);
  gtk_editable_select_region (GTK_EDITABLE (self->find_entry), 0, -1);
}

void
_sk_canvas_find_close (SkCanvas *self)
{
  if (self->find_bar == NULL || !gtk_widget_get_visible (self->find_bar))
    return;

  gtk_widget_set_visible (self->find_bar, FALSE);
  g_ptr_array_set_size (self->find_matches, 0);
  gtk_widget_grab_focus (GTK_WIDGET (self));
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

static void
changed_cb (SkCanvas *self)
{
  _sk_canvas_find_update (self);
}

static void
next_cb (SkCanvas *self)
{
  _sk_canvas_find_step (self, 1);
}

static void
previous_cb (SkCanvas *self)
{
  _sk_canvas_find_step (self, -1);
}

static void
close_cb (SkCanvas *self)
{
  _sk_canvas_find_close (self);
}

static gboolean
key_pressed_cb (SkCanvas              *self,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                GtkEventControllerKey *controller)
{
  switch (keyval)
    {
    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      _sk_canvas_find_step (self, 1);
      return TRUE;

    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      _sk_canvas_find_step (self, -1);
      return TRUE;

    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_ISO_Enter:
      _sk_canvas_find_step (self, (state & GDK_SHIFT_MASK) ? -1 : 1);
      return TRUE;

    default:
      return FALSE;
    }
}

static void
bar_pressed_cb (GtkGestureClick *gesture,
                int              n_press,
                double           x,
                double           y,
                gpointer         user_data)
{
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

static GtkWidget *
icon_button (const char *icon_name,
             const char *tooltip)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon_name);

  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_focus_on_click (button, FALSE);

  return button;
}

void
_sk_canvas_find_init (SkCanvas *self)
{
  GtkEventController *keys;
  GtkGesture *click;
  GtkWidget *button;

  self->find_matches = g_ptr_array_new ();

  self->find_bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  gtk_widget_add_css_class (self->find_bar, "toolbar");
  gtk_widget_add_css_class (self->find_bar, "card");
  gtk_widget_set_visible (self->find_bar, FALSE);

  /* A press on the bar's padding must not reach the canvas below, where it
   * would add a step. */
  click = gtk_gesture_click_new ();
  g_signal_connect (click, "pressed", G_CALLBACK (bar_pressed_cb), NULL);
  gtk_widget_add_controller (self->find_bar, GTK_EVENT_CONTROLLER (click));

  self->find_entry = gtk_search_entry_new ();
  g_object_set (self->find_entry, "placeholder-text", _("Find a step"), NULL);
  gtk_editable_set_width_chars (GTK_EDITABLE (self->find_entry), 22);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->find_entry),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Find a step by its name or task"),
                                  -1);
  g_signal_connect_object (self->find_entry, "changed", G_CALLBACK (changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->find_entry, "next-match", G_CALLBACK (next_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->find_entry, "previous-match", G_CALLBACK (previous_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->find_entry, "stop-search", G_CALLBACK (close_cb), self, G_CONNECT_SWAPPED);
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (key_pressed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (self->find_entry, keys);
  gtk_box_append (GTK_BOX (self->find_bar), self->find_entry);

  self->find_label = gtk_label_new (NULL);
  gtk_label_set_width_chars (GTK_LABEL (self->find_label), 8);
  gtk_widget_add_css_class (self->find_label, "dim-label");
  gtk_widget_add_css_class (self->find_label, "numeric");
  gtk_box_append (GTK_BOX (self->find_bar), self->find_label);

  button = icon_button ("go-up-symbolic", _("Previous Step (Up)"));
  g_signal_connect_object (button, "clicked", G_CALLBACK (previous_cb), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (self->find_bar), button);

  button = icon_button ("go-down-symbolic", _("Next Step (Down or Return)"));
  g_signal_connect_object (button, "clicked", G_CALLBACK (next_cb), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (self->find_bar), button);

  button = icon_button ("window-close-symbolic", _("Close (Escape)"));
  g_signal_connect_object (button, "clicked", G_CALLBACK (close_cb), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (self->find_bar), button);

  gtk_widget_set_parent (self->find_bar, GTK_WIDGET (self));
}

void
_sk_canvas_find_dispose (SkCanvas *self)
{
  self->find_entry = NULL;
  self->find_label = NULL;
  g_clear_pointer (&self->find_bar, gtk_widget_unparent);
  g_clear_pointer (&self->find_matches, g_ptr_array_unref);
}
