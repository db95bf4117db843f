/* sk-canvas-overlays.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-canvas"

#include "config.h"

#include <glib/gi18n.h>

#include "sk-canvas-private.h"

/* The widgets the canvas holds over its drawing: the minimap in the
 * bottom left corner (the window's zoom buttons take the bottom right), the
 * find bar at the top right and the hint of connect mode at the top. The
 * canvas places and draws them after its own picture. */

#define NODE_H SK_CANVAS_NODE_HEIGHT
#define OVERLAY_MARGIN 12

void
_sk_canvas_overlays_init (SkCanvas *self)
{
  GtkWidget *widget = GTK_WIDGET (self);

  self->connect_hint = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->connect_hint), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (self->connect_hint), 60);
  gtk_label_set_justify (GTK_LABEL (self->connect_hint), GTK_JUSTIFY_CENTER);
  gtk_widget_set_can_target (self->connect_hint, FALSE);
  gtk_widget_add_css_class (self->connect_hint, "app-notification");
  gtk_widget_set_visible (self->connect_hint, FALSE);
  gtk_widget_set_parent (self->connect_hint, widget);

  self->minimap = _sk_canvas_minimap_new (self);
  gtk_widget_set_parent (self->minimap, widget);

  _sk_canvas_find_init (self);
}

void
_sk_canvas_overlays_dispose (SkCanvas *self)
{
  _sk_canvas_find_dispose (self);
  g_clear_pointer (&self->minimap, gtk_widget_unparent);
  g_clear_pointer (&self->connect_hint, gtk_widget_unparent);
  g_clear_pointer (&self->minimap_cache, gsk_render_node_unref);
  g_clear_pointer (&self->minimap_surface, cairo_surface_destroy);
  g_clear_pointer (&self->minimap_states, g_array_unref);
  g_clear_weak_pointer (&self->undo_toast);
}

/* Gives @child its natural size, no wider than @max_width, at (@x, @y);
 * a negative coordinate counts from the far side. */
static void
place (GtkWidget *child,
       int        max_width,
       int        width,
       int        height,
       int        x,
       int        y)
{
  int child_width, child_height;
  int minimum;

  if (child == NULL || !gtk_widget_get_visible (child))
    return;

  gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &child_width, NULL, NULL);
  child_width = MAX (minimum, MIN (child_width, max_width));
  gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, child_width, &minimum, &child_height, NULL, NULL);

  if (x == G_MININT)
    x = (width - child_width) / 2;
  else if (x < 0)
    x = width + x - child_width;
  if (y < 0)
    y = height + y - child_height;

  gtk_widget_size_allocate (child,
                            &(GtkAllocation) { x, y, child_width, child_height },
                            -1);
}

void
_sk_canvas_overlays_allocate (SkCanvas *self,
                              int       width,
                              int       height)
{
  int hint_y = OVERLAY_MARGIN;

  if (self->find_bar != NULL && gtk_widget_get_visible (self->find_bar))
    {
      int bar_height;

      place (self->find_bar, width - 2 * OVERLAY_MARGIN, width, height, -OVERLAY_MARGIN, OVERLAY_MARGIN);
      bar_height = gtk_widget_get_height (self->find_bar);
      hint_y += bar_height + OVERLAY_MARGIN / 2;
    }

  place (self->connect_hint, width - 4 * OVERLAY_MARGIN, width, height, G_MININT, hint_y);
  /* The map keeps to a corner: a fifth of the width, a quarter of the
   * height. */
  place (self->minimap, MIN (width / 5, height / 4 * 10 / 7), width, height, OVERLAY_MARGIN, -OVERLAY_MARGIN);
}

/* From the keyboard, connect mode shows the connection that Return would
 * make, from its source to the step selected now. The pointer's line is
 * drawn with the edges. */
static void
draw_pending_connection (SkCanvas    *self,
                         GtkSnapshot *snapshot)
{
  SkCanvasItem *source = _sk_canvas_lookup_item (self, self->connect.source);
  SkCanvasItem *target = _sk_canvas_lookup_item (self, self->focus);
  GdkRGBA accent = { 0x35 / 255.f, 0x84 / 255.f, 0xe4 / 255.f, 1 };
  double dashes[] = { 6.0, 4.0 };
  double x0, y0, x1, y1;
  cairo_t *cr;

  if (source == NULL || target == NULL || source == target)
    return;

  _sk_canvas_model_to_widget (self, source->x, source->y + NODE_H / 2, &x0, &y0);
  _sk_canvas_model_to_widget (self, target->x, target->y - NODE_H / 2, &x1, &y1);

  cr = gtk_snapshot_append_cairo (snapshot,
                                  &GRAPHENE_RECT_INIT (0, 0,
                                                       gtk_widget_get_width (GTK_WIDGET (self)),
                                                       gtk_widget_get_height (GTK_WIDGET (self))));
  gdk_cairo_set_source_rgba (cr, &accent);
  cairo_set_line_width (cr, 2.0);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_dash (cr, dashes, G_N_ELEMENTS (dashes), 0);
  cairo_move_to (cr, x0, y0);
  cairo_line_to (cr, x1, y1);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_arc (cr, x1, y1, 4.0, 0, 2 * G_PI);
  cairo_fill (cr);
  cairo_destroy (cr);
}

/* The canvas's snapshot: its picture, then what lies over it. */
void
_sk_canvas_overlays_snapshot (GtkWidget   *widget,
                              GtkSnapshot *snapshot)
{
  SkCanvas *self = SK_CANVAS (widget);

  _sk_canvas_snapshot (widget, snapshot);

  if (self->project == NULL)
    return;

  draw_pending_connection (self, snapshot);

  if (_sk_canvas_minimap_shown (self))
    {
      _sk_canvas_minimap_snapshot (self, snapshot);
      gtk_widget_snapshot_child (widget, self->minimap, snapshot);
    }
  gtk_widget_snapshot_child (widget, self->connect_hint, snapshot);
  if (self->find_bar != NULL)
    gtk_widget_snapshot_child (widget, self->find_bar, snapshot);
}

/* Shows or hides the hint of connect mode, which says what to do next. */
void
_sk_canvas_connect_hint_update (SkCanvas *self)
{
  SkNode *source = self->connect.source;

  if (self->connect_hint == NULL)
    return;

  if (source != NULL)
    {
      g_autofree char *text = NULL;

      /* Translators: the argument is the name of the step whose results
       * are to be connected to another step. */
      text = g_strdup_printf (_("Choose the step that needs the results of “%s”. Press Escape to cancel."),
                              sk_node_get_name (source));
      gtk_label_set_text (GTK_LABEL (self->connect_hint), text);
    }

  gtk_widget_set_visible (self->connect_hint, source != NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
