/* sk-image-viewer.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SK_TYPE_IMAGE_VIEWER (sk_image_viewer_get_type())

G_DECLARE_FINAL_TYPE (SkImageViewer, sk_image_viewer, SK, IMAGE_VIEWER, AdwWindow)

GtkWidget *sk_image_viewer_new           (GtkWindow     *parent,
                                          GPtrArray     *files,
                                          guint          position,
                                          GdkTexture    *texture);
GFile     *sk_image_viewer_get_file      (SkImageViewer *self);
double     sk_image_viewer_get_zoom      (SkImageViewer *self);
gboolean   sk_image_viewer_get_best_fit  (SkImageViewer *self);
void       sk_image_viewer_set_zoom      (SkImageViewer *self,
                                          double         zoom);
void       sk_image_viewer_zoom_in       (SkImageViewer *self);
void       sk_image_viewer_zoom_out      (SkImageViewer *self);
void       sk_image_viewer_best_fit      (SkImageViewer *self);

G_END_DECLS
