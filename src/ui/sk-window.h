/* sk-window.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "sk-application.h"
#include "skele.h"

G_BEGIN_DECLS

#define SK_TYPE_WINDOW (sk_window_get_type())

G_DECLARE_FINAL_TYPE (SkWindow, sk_window, SK, WINDOW, AdwApplicationWindow)

SkWindow   *sk_window_new          (SkApplication *application);
GFile      *sk_window_get_folder   (SkWindow      *self);
SkProject  *sk_window_get_project  (SkWindow      *self);
void        sk_window_open         (SkWindow      *self,
                                    GFile         *folder,
                                    gboolean       create);
void        sk_window_choose_new   (SkWindow      *self);
void        sk_window_choose_open  (SkWindow      *self);
void        sk_window_show_toast   (SkWindow      *self,
                                    const char    *message);
gboolean    sk_window_save         (SkWindow      *self);
void        sk_window_run_nodes    (SkWindow      *self,
                                    GPtrArray     *nodes);

G_END_DECLS
