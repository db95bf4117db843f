/* sk-image-viewer.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-image-viewer"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sk-image-viewer.h"

/* A large view of a step's images, over the main window: fitted to the
 * window at first, zoomed with the buttons, the keys of GNOME's image viewer
 * or Ctrl and the wheel, and scrolled when larger than the window. */

#define ZOOM_STEP 1.25
#define ZOOM_MIN  0.05
#define ZOOM_MAX  16.0

/* A picture drawn at a given scale, or fitted to its allocation and never
 * enlarged when @best_fit is set. GtkPicture cannot be told a scale. */
#define SK_TYPE_ZOOMED_PICTURE (sk_zoomed_picture_get_type ())
G_DECLARE_FINAL_TYPE (SkZoomedPicture, sk_zoomed_picture, SK, ZOOMED_PICTURE, GtkWidget)

struct _SkZoomedPicture
{
  GtkWidget     parent_instance;
  GdkPaintable *paintable;
  double        zoom;
  gboolean      best_fit;
  guint         notify_source;
};

G_DEFINE_FINAL_TYPE (SkZoomedPicture, sk_zoomed_picture, GTK_TYPE_WIDGET)

static double
zoomed_picture_fit_scale (SkZoomedPicture *self,
                          int              width,
                          int              height)
{
  int image_width = gdk_paintable_get_intrinsic_width (self->paintable);
  int image_height = gdk_paintable_get_intrinsic_height (self->paintable);

  if (image_width <= 0 || image_height <= 0 || width <= 0 || height <= 0)
    return 1.0;

  return MIN (1.0, MIN ((double) width / image_width, (double) height / image_height));
}

static void
sk_zoomed_picture_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  SkZoomedPicture *self = SK_ZOOMED_PICTURE (widget);
  int size = 0;

  if (self->paintable != NULL)
    size = orientation == GTK_ORIENTATION_HORIZONTAL
           ? gdk_paintable_get_intrinsic_width (self->paintable)
           : gdk_paintable_get_intrinsic_height (self->paintable);

  if (self->best_fit)
    {
      *minimum = 0;
      *natural = size;
    }
  else
    *minimum = *natural = (int) ceil (size * self->zoom);
}

static gboolean
notify_zoom_cb (gpointer user_data)
{
  SkZoomedPicture *self = user_data;

  self->notify_source = 0;
  g_object_notify (G_OBJECT (self), "zoom");
  return G_SOURCE_REMOVE;
}

static void
sk_zoomed_picture_size_allocate (GtkWidget *widget,
                                 int        width,
                                 int        height,
                                 int        baseline)
{
  SkZoomedPicture *self = SK_ZOOMED_PICTURE (widget);

  if (self->best_fit && self->paintable != NULL)
    {
      double zoom = zoomed_picture_fit_scale (self, width, height);

      /* The zoom label changes after the layout, not within it. */
      if (zoom != self->zoom)
        {
          self->zoom = zoom;
          if (self->notify_source == 0)
            self->notify_source = g_idle_add (notify_zoom_cb, self);
        }
    }
}

static void
sk_zoomed_picture_snapshot (GtkWidget   *widget,
                            GtkSnapshot *snapshot)
{
  SkZoomedPicture *self = SK_ZOOMED_PICTURE (widget);
  double width, height;

  if (self->paintable == NULL)
    return;

  width = gdk_paintable_get_intrinsic_width (self->paintable) * self->zoom;
  height = gdk_paintable_get_intrinsic_height (self->paintable) * self->zoom;

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot,
                          &GRAPHENE_POINT_INIT (floor (MAX (0, gtk_widget_get_width (widget) - width) / 2),
                                                floor (MAX (0, gtk_widget_get_height (widget) - height) / 2)));
  gdk_paintable_snapshot (self->paintable, snapshot, width, height);
  gtk_snapshot_restore (snapshot);
}

static void
sk_zoomed_picture_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  g_value_set_double (value, SK_ZOOMED_PICTURE (object)->zoom);
}

static void
sk_zoomed_picture_dispose (GObject *object)
{
  g_clear_object (&SK_ZOOMED_PICTURE (object)->paintable);
  g_clear_handle_id (&SK_ZOOMED_PICTURE (object)->notify_source, g_source_remove);

  G_OBJECT_CLASS (sk_zoomed_picture_parent_class)->dispose (object);
}

static void
sk_zoomed_picture_class_init (SkZoomedPictureClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sk_zoomed_picture_dispose;
  object_class->get_property = sk_zoomed_picture_get_property;
  widget_class->measure = sk_zoomed_picture_measure;
  widget_class->size_allocate = sk_zoomed_picture_size_allocate;
  widget_class->snapshot = sk_zoomed_picture_snapshot;

  g_object_class_install_property (object_class, 1,
                                   g_param_spec_double ("zoom", NULL, NULL, 0, G_MAXDOUBLE, 1,
                                                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gtk_widget_class_set_css_name (widget_class, "picture");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
sk_zoomed_picture_init (SkZoomedPicture *self)
{
  self->zoom = 1.0;
  self->best_fit = TRUE;
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
}

/* The viewer. */

struct _SkImageViewer
{
  AdwWindow         parent_instance;

  AdwWindowTitle   *title;
  GtkWidget        *previous_button;
  GtkWidget        *next_button;
  GtkButton        *zoom_button;
  GtkScrolledWindow *scroller;
  SkZoomedPicture  *picture;
  GtkLabel         *error_label;
  GtkStack         *stack;

  GPtrArray        *files;
  guint             position;
  GCancellable     *cancellable;
};

G_DEFINE_FINAL_TYPE (SkImageViewer, sk_image_viewer, ADW_TYPE_WINDOW)

static void
update_zoom_label (SkImageViewer *self)
{
  g_autofree char *text = NULL;

  /* Translators: a zoom level, as in “75 %”. */
  text = g_strdup_printf (_("%.0f %%"), self->picture->zoom * 100);
  gtk_button_set_label (self->zoom_button, text);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "viewer.zoom-in",
                                 self->picture->zoom < ZOOM_MAX);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "viewer.zoom-out",
                                 self->picture->zoom > ZOOM_MIN);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "viewer.best-fit", !self->picture->best_fit);
}

static void
show_file (SkImageViewer *self,
           GdkTexture    *texture)
{
  GFile *file = g_ptr_array_index (self->files, self->position);
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *display_name = g_filename_display_name (name);
  g_autoptr(GdkTexture) loaded = NULL;
  g_autoptr(GError) error = NULL;

  if (texture == NULL)
    texture = loaded = gdk_texture_new_from_file (file, &error);

  gtk_window_set_title (GTK_WINDOW (self), display_name);
  adw_window_title_set_title (self->title, display_name);

  g_clear_object (&self->picture->paintable);
  if (texture != NULL)
    self->picture->paintable = g_object_ref (GDK_PAINTABLE (texture));
  self->picture->best_fit = TRUE;
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->picture),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, display_name, -1);

  if (texture != NULL)
    {
      g_autofree char *size = NULL;

      /* Translators: an image's width and height in pixels, as in “640 × 480”. */
      size = g_strdup_printf (_("%d × %d"), gdk_texture_get_width (texture),
                              gdk_texture_get_height (texture));
      adw_window_title_set_subtitle (self->title, size);
      gtk_stack_set_visible_child_name (self->stack, "picture");
    }
  else
    {
      adw_window_title_set_subtitle (self->title, "");
      gtk_label_set_label (self->error_label, _("This image could not be shown"));
      gtk_stack_set_visible_child_name (self->stack, "error");
    }

  gtk_widget_queue_resize (GTK_WIDGET (self->picture));

  gtk_widget_set_visible (self->previous_button, self->files->len > 1);
  gtk_widget_set_visible (self->next_button, self->files->len > 1);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "viewer.previous", self->position > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "viewer.next",
                                 self->position + 1 < self->files->len);
  update_zoom_label (self);
}

/* Keeps the point under @x, @y (in the scroller) in place, or the centre. */
static void
apply_zoom (SkImageViewer *self,
            double         zoom,
            double         x,
            double         y)
{
  GtkAdjustment *h = gtk_scrolled_window_get_hadjustment (self->scroller);
  GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (self->scroller);
  double old_zoom = self->picture->zoom;
  double ratio;

  zoom = CLAMP (zoom, ZOOM_MIN, ZOOM_MAX);
  if (x < 0)
    {
      x = gtk_adjustment_get_page_size (h) / 2;
      y = gtk_adjustment_get_page_size (v) / 2;
    }

  ratio = zoom / old_zoom;
  self->picture->best_fit = FALSE;
  self->picture->zoom = zoom;
  gtk_widget_queue_resize (GTK_WIDGET (self->picture));
  update_zoom_label (self);

  /* The adjustments take their new bounds at the next layout; setting
   * them beyond their old bounds now would be clamped. */
  gtk_adjustment_set_upper (h, MAX (gtk_adjustment_get_upper (h) * ratio, gtk_adjustment_get_page_size (h)));
  gtk_adjustment_set_upper (v, MAX (gtk_adjustment_get_upper (v) * ratio, gtk_adjustment_get_page_size (v)));
  gtk_adjustment_set_value (h, (gtk_adjustment_get_value (h) + x) * ratio - x);
  gtk_adjustment_set_value (v, (gtk_adjustment_get_value (v) + y) * ratio - y);
}

static void
zoom_in_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  sk_image_viewer_zoom_in (SK_IMAGE_VIEWER (widget));
}

static void
zoom_out_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  sk_image_viewer_zoom_out (SK_IMAGE_VIEWER (widget));
}

static void
best_fit_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  sk_image_viewer_best_fit (SK_IMAGE_VIEWER (widget));
}

static void
original_size_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  sk_image_viewer_set_zoom (SK_IMAGE_VIEWER (widget), 1.0);
}

static void
go_action (GtkWidget  *widget,
           const char *action_name,
           GVariant   *parameter)
{
  SkImageViewer *self = SK_IMAGE_VIEWER (widget);

  if (g_str_equal (action_name, "viewer.previous") && self->position > 0)
    self->position--;
  else if (g_str_equal (action_name, "viewer.next") && self->position + 1 < self->files->len)
    self->position++;
  else
    return;

  show_file (self, NULL);
}

static void
launch_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(SkImageViewer) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri_finish (result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("The image could not be opened: %s"),
                                               error->message);

      adw_window_title_set_subtitle (self->title, text);
    }
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  SkImageViewer *self = SK_IMAGE_VIEWER (widget);
  g_autoptr(GdkAppLaunchContext) context = NULL;
  g_autofree char *uri = g_file_get_uri (g_ptr_array_index (self->files, self->position));

  context = gdk_display_get_app_launch_context (gtk_widget_get_display (widget));
  g_app_info_launch_default_for_uri_async (uri, G_APP_LAUNCH_CONTEXT (context), self->cancellable,
                                           launch_done_cb, g_object_ref (self));
}

static gboolean
scroll_cb (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           SkImageViewer            *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  double x = -1, y = -1;
  GdkEvent *event;

  if ((state & GDK_CONTROL_MASK) == 0 || dy == 0)
    return FALSE;

  event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (controller));
  if (event != NULL)
    {
      double wx, wy;
      graphene_point_t point;

      if (gdk_event_get_position (event, &wx, &wy))
        {
          GtkNative *native = gtk_widget_get_native (GTK_WIDGET (self->scroller));
          double nx, ny;

          gtk_native_get_surface_transform (native, &nx, &ny);
          if (gtk_widget_compute_point (GTK_WIDGET (native), GTK_WIDGET (self->scroller),
                                        &GRAPHENE_POINT_INIT (wx - nx, wy - ny), &point))
            {
              x = point.x;
              y = point.y;
            }
        }
    }

  apply_zoom (self, self->picture->zoom * pow (ZOOM_STEP, -dy), x, y);
  return TRUE;
}

static GtkWidget *
icon_button (const char *icon_name,
             const char *action_name,
             const char *tooltip)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon_name);

  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action_name);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip, -1);
  return button;
}

static void
sk_image_viewer_dispose (GObject *object)
{
  SkImageViewer *self = SK_IMAGE_VIEWER (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->files, g_ptr_array_unref);

  G_OBJECT_CLASS (sk_image_viewer_parent_class)->dispose (object);
}

static void
sk_image_viewer_class_init (SkImageViewerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sk_image_viewer_dispose;

  gtk_widget_class_install_action (widget_class, "viewer.zoom-in", NULL, zoom_in_action);
  gtk_widget_class_install_action (widget_class, "viewer.zoom-out", NULL, zoom_out_action);
  gtk_widget_class_install_action (widget_class, "viewer.best-fit", NULL, best_fit_action);
  gtk_widget_class_install_action (widget_class, "viewer.original-size", NULL, original_size_action);
  gtk_widget_class_install_action (widget_class, "viewer.previous", NULL, go_action);
  gtk_widget_class_install_action (widget_class, "viewer.next", NULL, go_action);
  gtk_widget_class_install_action (widget_class, "viewer.open", NULL, open_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "viewer.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "viewer.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, GDK_CONTROL_MASK, "viewer.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "viewer.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, GDK_CONTROL_MASK, "viewer.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "viewer.best-fit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_0, GDK_CONTROL_MASK, "viewer.best-fit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1, GDK_CONTROL_MASK, "viewer.original-size", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, 0, "viewer.previous", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, 0, "viewer.next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "viewer.previous", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, GDK_ALT_MASK, "viewer.next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
sk_image_viewer_init (SkImageViewer *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *zoom_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *go_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *open_button;
  GtkEventController *scroll;

  self->cancellable = g_cancellable_new ();

  self->title = ADW_WINDOW_TITLE (adw_window_title_new ("", ""));
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), GTK_WIDGET (self->title));

  open_button = gtk_button_new_with_mnemonic (_("_Open"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (open_button), "viewer.open");
  gtk_widget_set_tooltip_text (open_button, _("Open With the Default Application"));
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), open_button);

  gtk_widget_add_css_class (go_box, "linked");
  self->previous_button = icon_button ("go-previous-symbolic", "viewer.previous",
                                       _("Previous Image (Page Up)"));
  self->next_button = icon_button ("go-next-symbolic", "viewer.next", _("Next Image (Page Down)"));
  gtk_box_append (GTK_BOX (go_box), self->previous_button);
  gtk_box_append (GTK_BOX (go_box), self->next_button);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), go_box);

  gtk_widget_add_css_class (zoom_box, "linked");
  gtk_box_append (GTK_BOX (zoom_box), icon_button ("zoom-out-symbolic", "viewer.zoom-out",
                                                   _("Zoom Out (Ctrl+−)")));
  self->zoom_button = GTK_BUTTON (gtk_button_new_with_label ("100 %"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->zoom_button), "viewer.original-size");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->zoom_button), _("Original Size (Ctrl+1)"));
  gtk_widget_add_css_class (GTK_WIDGET (self->zoom_button), "numeric");
  gtk_box_append (GTK_BOX (zoom_box), GTK_WIDGET (self->zoom_button));
  gtk_box_append (GTK_BOX (zoom_box), icon_button ("zoom-in-symbolic", "viewer.zoom-in",
                                                   _("Zoom In (Ctrl++)")));
  gtk_box_append (GTK_BOX (zoom_box), icon_button ("zoom-fit-best-symbolic", "viewer.best-fit",
                                                   _("Fit to Window (Ctrl+0)")));
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), zoom_box);

  gtk_box_append (GTK_BOX (box), header);

  self->picture = g_object_new (SK_TYPE_ZOOMED_PICTURE, NULL);
  g_signal_connect_object (self->picture, "notify::zoom", G_CALLBACK (update_zoom_label), self,
                           G_CONNECT_SWAPPED);
  self->scroller = GTK_SCROLLED_WINDOW (gtk_scrolled_window_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->scroller), TRUE);
  gtk_scrolled_window_set_child (self->scroller, GTK_WIDGET (self->picture));
  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL |
                                            GTK_EVENT_CONTROLLER_SCROLL_DISCRETE);
  gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
  g_signal_connect_object (scroll, "scroll", G_CALLBACK (scroll_cb), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self->scroller), scroll);

  self->error_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (self->error_label), "dim-label");

  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_stack_add_named (self->stack, GTK_WIDGET (self->scroller), "picture");
  gtk_stack_add_named (self->stack, GTK_WIDGET (self->error_label), "error");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->stack));

  adw_window_set_content (ADW_WINDOW (self), box);
  gtk_widget_add_css_class (GTK_WIDGET (self), "sk-image-viewer");
}

/**
 * sk_image_viewer_new:
 * @parent: (nullable): the window it belongs to
 * @files: (element-type GFile): the images it can go through
 * @position: the image to show first
 * @texture: (nullable): that image, when the caller has loaded it
 *
 * Returns: (transfer floating): a modal viewer of @files, to present
 */
GtkWidget *
sk_image_viewer_new (GtkWindow  *parent,
                     GPtrArray  *files,
                     guint       position,
                     GdkTexture *texture)
{
  SkImageViewer *self;
  int width = 900, height = 700;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (files != NULL && position < files->len, NULL);

  self = g_object_new (SK_TYPE_IMAGE_VIEWER,
                       "modal", TRUE,
                       "transient-for", parent,
                       "destroy-with-parent", TRUE,
                       NULL);

  /* Most of the main window, as large views of charts are for reading. */
  if (parent != NULL && gtk_widget_get_width (GTK_WIDGET (parent)) > 0)
    {
      width = MAX (360, gtk_widget_get_width (GTK_WIDGET (parent)) * 9 / 10);
      height = MAX (300, gtk_widget_get_height (GTK_WIDGET (parent)) * 9 / 10);
    }
  gtk_window_set_default_size (GTK_WINDOW (self), width, height);

  self->files = g_ptr_array_ref (files);
  self->position = position;
  show_file (self, texture);

  return GTK_WIDGET (self);
}

/**
 * sk_image_viewer_get_file:
 * @self: a #SkImageViewer
 *
 * Returns: (transfer none): the image shown
 */
GFile *
sk_image_viewer_get_file (SkImageViewer *self)
{
  g_return_val_if_fail (SK_IS_IMAGE_VIEWER (self), NULL);

  return g_ptr_array_index (self->files, self->position);
}

/**
 * sk_image_viewer_get_zoom:
 * @self: a #SkImageViewer
 *
 * Returns: the scale the image is drawn at, 1 for its own size
 */
double
sk_image_viewer_get_zoom (SkImageViewer *self)
{
  g_return_val_if_fail (SK_IS_IMAGE_VIEWER (self), 1.0);

  return self->picture->zoom;
}

/**
 * sk_image_viewer_get_best_fit:
 * @self: a #SkImageViewer
 *
 * Returns: whether the image is fitted to the window
 */
gboolean
sk_image_viewer_get_best_fit (SkImageViewer *self)
{
  g_return_val_if_fail (SK_IS_IMAGE_VIEWER (self), FALSE);

  return self->picture->best_fit;
}

/**
 * sk_image_viewer_set_zoom:
 * @self: a #SkImageViewer
 * @zoom: a scale, 1 for the image's own size
 *
 * Draws the image at @zoom, scrollable when larger than the window.
 */
void
sk_image_viewer_set_zoom (SkImageViewer *self,
                          double         zoom)
{
  g_return_if_fail (SK_IS_IMAGE_VIEWER (self));

  apply_zoom (self, zoom, -1, -1);
}

void
sk_image_viewer_zoom_in (SkImageViewer *self)
{
  g_return_if_fail (SK_IS_IMAGE_VIEWER (self));

  apply_zoom (self, self->picture->zoom * ZOOM_STEP, -1, -1);
}

void
sk_image_viewer_zoom_out (SkImageViewer *self)
{
  g_return_if_fail (SK_IS_IMAGE_VIEWER (self));

  apply_zoom (self, self->picture->zoom / ZOOM_STEP, -1, -1);
}

/**
 * sk_image_viewer_best_fit:
 * @self: a #SkImageViewer
 *
 * Fits the image to the window, never larger than its own size.
 */
void
sk_image_viewer_best_fit (SkImageViewer *self)
{
  g_return_if_fail (SK_IS_IMAGE_VIEWER (self));

  self->picture->best_fit = TRUE;
  gtk_widget_queue_resize (GTK_WIDGET (self->picture));
  update_zoom_label (self);
}
