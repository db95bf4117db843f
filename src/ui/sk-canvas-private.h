/* sk-canvas-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-canvas.h"

G_BEGIN_DECLS

#define SK_CANVAS_NODE_WIDTH  168.0
#define SK_CANVAS_NODE_HEIGHT  60.0

/* The gestures call these with widget coordinates, and the widget tests
 * call them the same way, so that both go through one code path. */
void     _sk_canvas_click              (SkCanvas        *self,
                                        double           x,
                                        double           y,
                                        guint            button,
                                        GdkModifierType  state,
                                        int              n_press);
gboolean _sk_canvas_drag_begin         (SkCanvas        *self,
                                        double           x,
                                        double           y,
                                        GdkModifierType  state);
void     _sk_canvas_drag_update        (SkCanvas        *self,
                                        double           offset_x,
                                        double           offset_y);
void     _sk_canvas_drag_end           (SkCanvas        *self,
                                        double           offset_x,
                                        double           offset_y);
void     _sk_canvas_scroll             (SkCanvas        *self,
                                        double           x,
                                        double           y,
                                        double           dx,
                                        double           dy,
                                        GdkModifierType  state);
void     _sk_canvas_model_to_widget    (SkCanvas        *self,
                                        double           mx,
                                        double           my,
                                        double          *wx,
                                        double          *wy);
void     _sk_canvas_widget_to_model    (SkCanvas        *self,
                                        double           wx,
                                        double           wy,
                                        double          *mx,
                                        double          *my);
SkNode  *_sk_canvas_node_at            (SkCanvas        *self,
                                        double           x,
                                        double           y);
SkNode  *_sk_canvas_get_connect_source (SkCanvas        *self);
gboolean _sk_canvas_get_selected_edge  (SkCanvas        *self,
                                        SkNode         **prior,
                                        SkNode         **node);
void     _sk_canvas_select_edge        (SkCanvas        *self,
                                        SkNode          *prior,
                                        SkNode          *node);
gboolean _sk_canvas_is_arranging       (SkCanvas        *self);

G_END_DECLS
