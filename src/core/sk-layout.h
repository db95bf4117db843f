/* sk-layout.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-project.h"

G_BEGIN_DECLS

/**
 * SkLayoutPoint:
 * @x: the horizontal coordinate of a node's centre, in canvas units
 * @y: the vertical coordinate, growing downwards
 */
typedef struct
{
  double x;
  double y;
} SkLayoutPoint;

/**
 * SkLayoutDirection:
 * @SK_LAYOUT_DIRECTION_DOWN: results flow from top to bottom
 * @SK_LAYOUT_DIRECTION_RIGHT: results flow from left to right
 *
 * Which way the arrows of an arranged workflow point.
 */
typedef enum
{
  SK_LAYOUT_DIRECTION_DOWN,
  SK_LAYOUT_DIRECTION_RIGHT,
} SkLayoutDirection;

void        sk_layout_arrange_async        (SkProject            *project,
                                            double                node_width,
                                            double                node_height,
                                            SkLayoutDirection     direction,
                                            GCancellable         *cancellable,
                                            GAsyncReadyCallback   callback,
                                            gpointer              user_data);
void        sk_layout_arrange_to_fit_async (SkProject            *project,
                                            double                node_width,
                                            double                node_height,
                                            double                view_width,
                                            double                view_height,
                                            GCancellable         *cancellable,
                                            GAsyncReadyCallback   callback,
                                            gpointer              user_data);
GHashTable *sk_layout_arrange_finish       (SkProject            *project,
                                            GAsyncResult         *result,
                                            SkLayoutDirection    *direction,
                                            GError              **error);
void        sk_layout_apply                (SkProject            *project,
                                            GHashTable           *positions);

G_END_DECLS
