/* sk-canvas.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "skele.h"

G_BEGIN_DECLS

#define SK_TYPE_CANVAS (sk_canvas_get_type())

G_DECLARE_FINAL_TYPE (SkCanvas, sk_canvas, SK, CANVAS, GtkWidget)

GtkWidget         *sk_canvas_new                (void);
SkProject         *sk_canvas_get_project        (SkCanvas          *self);
void               sk_canvas_set_project        (SkCanvas          *self,
                                                 SkProject         *project);
SkHistory         *sk_canvas_get_history        (SkCanvas          *self);
void               sk_canvas_set_history        (SkCanvas          *self,
                                                 SkHistory         *history);
GtkSelectionModel *sk_canvas_get_selection      (SkCanvas          *self);
void               sk_canvas_set_selection      (SkCanvas          *self,
                                                 GtkSelectionModel *selection);
SkNode            *sk_canvas_get_selected_node  (SkCanvas          *self);
void               sk_canvas_select_node        (SkCanvas          *self,
                                                 SkNode            *node);
GPtrArray         *sk_canvas_get_selected_nodes (SkCanvas          *self);
double             sk_canvas_get_zoom           (SkCanvas          *self);
void               sk_canvas_set_zoom           (SkCanvas          *self,
                                                 double             zoom);
void               sk_canvas_scroll_to_node     (SkCanvas          *self,
                                                 SkNode            *node);
void               sk_canvas_arrange            (SkCanvas          *self);
void               sk_canvas_set_problem_marks  (SkCanvas          *self,
                                                 const char * const *node_ids,
                                                 const char * const *edge_pairs);
SkChangeset       *sk_canvas_get_proposal       (SkCanvas          *self);
void               sk_canvas_set_proposal       (SkCanvas          *self,
                                                 SkChangeset       *changeset);
void               sk_canvas_proposal_changed   (SkCanvas          *self);
void               sk_canvas_show_proposal      (SkCanvas          *self);

G_END_DECLS
